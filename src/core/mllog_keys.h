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

inline constexpr const char* kStatusSuccess = "success";
inline constexpr const char* kStatusAborted = "aborted";

}  // namespace trainbench::core::keys
