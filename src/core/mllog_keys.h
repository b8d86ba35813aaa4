// Named MLLOG keys (mlcommons/logging `mllog.constants`). Use these, never string literals.
#pragma once

namespace trainbench::core::keys {

inline constexpr const char* kCacheClear = "cache_clear";
inline constexpr const char* kInitStart = "init_start";
inline constexpr const char* kInitStop = "init_stop";
inline constexpr const char* kRunStart = "run_start";
inline constexpr const char* kRunStop = "run_stop";
inline constexpr const char* kBlockStart = "block_start";
inline constexpr const char* kBlockStop = "block_stop";
inline constexpr const char* kEpochStart = "epoch_start";
inline constexpr const char* kEpochStop = "epoch_stop";
inline constexpr const char* kEvalStart = "eval_start";
inline constexpr const char* kEvalStop = "eval_stop";
inline constexpr const char* kEvalAccuracy = "eval_accuracy";
inline constexpr const char* kTrainLoss = "train_loss";
inline constexpr const char* kTrackedStats = "tracked_stats";

inline constexpr const char* kSubmissionBenchmark = "submission_benchmark";
inline constexpr const char* kSubmissionOrg = "submission_org";
inline constexpr const char* kSubmissionDivision = "submission_division";
inline constexpr const char* kSubmissionStatus = "submission_status";
inline constexpr const char* kSubmissionPlatform = "submission_platform";
inline constexpr const char* kSeed = "seed";
inline constexpr const char* kGlobalBatchSize = "global_batch_size";
inline constexpr const char* kGradientAccumulationSteps = "gradient_accumulation_steps";
inline constexpr const char* kTrainSamples = "train_samples";
inline constexpr const char* kEvalSamples = "eval_samples";
inline constexpr const char* kOptName = "opt_name";

// Benchmark-specific keys of the official closed rules (mlcommons/logging training_0.7.0).
// Translation (gnmt, transformer): the longest training sequence; metadata kMdMethod says
// what happens to longer ones ("truncate" | "discard").
inline constexpr const char* kMaxSequenceLength = "max_sequence_length";
// GNMT's learning-rate schedule, in the reference's terms (its WarmupMultiStepLR): the
// "alternative" warmup (exponential) and decay (multi-step) functions, the warmup steps, the
// step from which decays start, the steps between decays, the number of decays and their factor.
inline constexpr const char* kOptLrAltWarmupFunc = "opt_learning_rate_alt_warmup_func";
inline constexpr const char* kOptLrAltDecayFunc = "opt_learning_rate_alt_decay_func";
inline constexpr const char* kOptLrWarmupSteps = "opt_learning_rate_warmup_steps";
inline constexpr const char* kOptLrRemainSteps = "opt_learning_rate_remain_steps";
inline constexpr const char* kOptLrDecayInterval = "opt_learning_rate_decay_interval";
inline constexpr const char* kOptLrDecaySteps =
    "opt_learning_rate_decay_steps";  // Mask R-CNN: the steps of its 2 boundaries
inline constexpr const char* kOptLrDecayFactor = "opt_learning_rate_decay_factor";
// MiniGo: the training minibatch, the piecewise-constant learning rate (boundaries in steps,
// one more rate than boundaries), the self-play games each generation must have and had.
inline constexpr const char* kTrainBatchSize = "train_batch_size";
inline constexpr const char* kLrBoundaries = "lr_boundaries";
inline constexpr const char* kLrRates = "lr_rates";
inline constexpr const char* kMinSelfplayGamesPerGeneration = "min_selfplay_games_per_generation";
inline constexpr const char* kActualSelfplayGamesPerGeneration =
    "actual_selfplay_games_per_generation";
// Mask R-CNN: RPN proposals kept per image for training, the resized image's sides.
inline constexpr const char* kNumImageCandidates = "num_image_candidates";
inline constexpr const char* kMinImageSize = "min_image_size";
inline constexpr const char* kMaxImageSize = "max_image_size";
// SSD: crop windows tried per drawn mode of the random crop (the reference's sampling trials).
inline constexpr const char* kMaxSamples = "max_samples";

// trainbench's own keys (allowed by the official checker: unknown keys are ignored).
inline constexpr const char* kTrainbenchConfigRequested = "trainbench_config_requested";
inline constexpr const char* kTrainbenchConfigEffective = "trainbench_config_effective";
inline constexpr const char* kTrainbenchProvenance = "trainbench_provenance";
inline constexpr const char* kTrainbenchBenchmark = "trainbench_benchmark";
inline constexpr const char* kTrainbenchScale = "trainbench_scale";
inline constexpr const char* kTrainbenchQualityTarget = "trainbench_quality_target";
// {"own": f, "other": f}: shares of the machine's CPU time over the timed region (cpu_share.h).
inline constexpr const char* kTrainbenchCpuShare = "trainbench_cpu_share";
// Data-parallel runs: {world_size, backend, rendezvous, per_rank_batch_size, ...}.
inline constexpr const char* kTrainbenchDist = "trainbench_dist";

// Metadata fields.
inline constexpr const char* kMdEpochNum = "epoch_num";
inline constexpr const char* kMdFirstEpochNum = "first_epoch_num";
inline constexpr const char* kMdEpochCount = "epoch_count";
inline constexpr const char* kMdSamplesCount = "samples_count";
inline constexpr const char* kMdStatus = "status";
inline constexpr const char* kMdMethod = "method";  // max_sequence_length: "truncate" | "discard"

// Fields of Mask R-CNN's eval_accuracy value {"BBOX": box mAP, "SEGM": mask mAP}.
inline constexpr const char* kEvalBbox = "BBOX";
inline constexpr const char* kEvalSegm = "SEGM";

// Keys the workloads log in a derived form (not a configured value as it is: those are named by
// the definitions' `mllog:`), and trainbench's own facts of a run's data.
inline constexpr const char* kModelBnSpan = "model_bn_span";
inline constexpr const char* kBackbone = "backbone";
inline constexpr const char* kOptLrDecayBoundaryEpochs = "opt_learning_rate_decay_boundary_epochs";
inline constexpr const char* kOptLrWarmupEpochs = "opt_learning_rate_warmup_epochs";
inline constexpr const char* kOptLrWarmupFactor = "opt_learning_rate_warmup_factor";
inline constexpr const char* kOptLrSchedule = "opt_learning_rate_schedule";
inline constexpr const char* kOptBiasWeightDecay = "opt_bias_weight_decay";
inline constexpr const char* kLarsEpsilon = "lars_epsilon";
inline constexpr const char* kLarsOptLrWarmupEpochs = "lars_opt_learning_rate_warmup_epochs";
inline constexpr const char* kModelHpRpnBatchSizePerImage = "model_hp_rpn_batch_size_per_image";
inline constexpr const char* kModelHpRoiPositiveFraction = "model_hp_roi_positive_fraction";
inline constexpr const char* kModelHpPretrainedTrunk = "model_hp_pretrained_trunk";
inline constexpr const char* kModelHpMlpLayerSizes = "model_hp_mlp_layer_sizes";
inline constexpr const char* kModelHpLossFn = "model_hp_loss_fn";
inline constexpr const char* kModelHpDefaultBoxes = "model_hp_default_boxes";
inline constexpr const char* kEvalHpMaskThreshold = "eval_hp_mask_threshold";
inline constexpr const char* kEvalHpNumUsers = "eval_hp_num_users";
inline constexpr const char* kPreprocHpSampleEvalReplacement = "preproc_hp_sample_eval_replacement";
inline constexpr const char* kPreprocHpNumEval = "preproc_hp_num_eval";
inline constexpr const char* kInputHpSampleTrainReplacement = "input_hp_sample_train_replacement";
inline constexpr const char* kSelfplayCPuct = "selfplay_c_puct";
inline constexpr const char* kSelfplayDirichletAlpha = "selfplay_dirichlet_alpha";
inline constexpr const char* kSelfplayNoiseFraction = "selfplay_noise_fraction";
inline constexpr const char* kTrainValueTargetQWeight = "train_value_target_q_weight";
inline constexpr const char* kSearchPrecision = "search_precision";
inline constexpr const char* kTrainThreads = "train_threads";
inline constexpr const char* kTrainbenchDataset = "trainbench_dataset";
inline constexpr const char* kTrainbenchTrainImagesWithoutObjectsDropped =
    "trainbench_train_images_without_objects_dropped";
inline constexpr const char* kTrainbenchTrainCrowdAnnotationsDropped =
    "trainbench_train_crowd_annotations_dropped";
inline constexpr const char* kTrainbenchTrainTargetTokens = "trainbench_train_target_tokens";
inline constexpr const char* kTrainbenchTrainPairsTooLong = "trainbench_train_pairs_too_long";
// Optimizer-prefixed schedule keys of the resnet SGD and LARS rules.
inline constexpr const char* kSgdOptPrefix = "sgd_opt_";
inline constexpr const char* kLarsOptPrefix = "lars_opt_";
// Metadata fields of trainbench's notes on the GNMT schedule keys.
inline constexpr const char* kMdTrainbenchWarmup = "trainbench_warmup";
inline constexpr const char* kMdTrainbenchSchedule = "trainbench_schedule";

inline constexpr const char* kStatusSuccess = "success";
inline constexpr const char* kStatusAborted = "aborted";
// run_stop's error for a run stopped by SIGINT or SIGTERM (`run --suite` runs it again).
inline constexpr const char* kErrorInterrupted = "interrupted";

// The legacy MLPerf v0.5 lines (`:::MLPv0.5.0`, mlperf_compliance's tags) that readers share:
// the quality target, and the fields of eval_accuracy's {"epoch": e, "value": v}.
inline constexpr const char* kLegacyEvalTarget = "eval_target";
inline constexpr const char* kLegacyEpochField = "epoch";
inline constexpr const char* kLegacyValueField = "value";

}  // namespace trainbench::core::keys
