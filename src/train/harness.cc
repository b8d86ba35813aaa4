#include "train/harness.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>

#include "core/cpu_share.h"
#include "core/error.h"
#include "core/mllog_keys.h"
#include "core/provenance.h"

namespace trainbench::train {

namespace k = core::keys;
using core::Json;

namespace {

using SteadyClock = std::chrono::steady_clock;

// Whether an evaluation also reaches the scale's secondary targets (Mask R-CNN's mask AP). A
// target the evaluation did not report is an error in the workload, not a miss.
bool ReachesSecondaryTargets(const core::ScaleDef& scale, const EvalResult& r) {
  for (const auto& [name, minimum] : scale.secondary_targets) {
    auto it = r.extra.find(name);
    if (it == r.extra.end() || !it->is_number()) {
      throw core::Error("evaluation did not report the secondary target metric \"" + name + "\"");
    }
    if (it->get<double>() < minimum) return false;
  }
  return true;
}

std::string FormatElapsed(double seconds) {
  int s = static_cast<int>(seconds);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

// Counts steps and samples, enforces the step budget and the interrupt flag, and draws the
// progress line. Progress uses a steady clock for display only, never for results.
class Control : public TrainControl {
 public:
  Control(const RunSettings& s, const std::atomic<bool>* interrupt, SteadyClock::time_point start)
      : s_(s), interrupt_(interrupt), start_(start), window_start_(start) {}

  void BeginEpoch(int epoch, int64_t steps_hint) {
    epoch_ = epoch;
    epoch_step_ = 0;
    steps_hint_ = steps_hint;
    epoch_samples_ = 0;
    epoch_start_ = SteadyClock::now();
  }

  bool OnStep(int64_t samples, double loss) override {
    ++total_steps_;
    ++epoch_step_;
    epoch_samples_ += samples;
    window_samples_ += samples;
    if (!std::isnan(loss)) last_loss_ = loss;
    Draw(false);
    return !Stopped();
  }

  bool Stopped() const { return Interrupted() || BudgetSpent(); }
  bool Interrupted() const { return interrupt_ && interrupt_->load(); }
  bool BudgetSpent() const { return s_.max_steps >= 0 && total_steps_ >= s_.max_steps; }
  int64_t epoch_samples() const { return epoch_samples_; }
  int64_t epoch_steps() const { return epoch_step_; }
  double epoch_seconds() const {
    return std::chrono::duration<double>(SteadyClock::now() - epoch_start_).count();
  }
  double last_loss() const { return last_loss_; }
  void set_last_eval(double v) {
    last_eval_ = v;
    has_eval_ = true;
  }

  void Draw(bool force) {
    if (!s_.progress) return;
    auto now = SteadyClock::now();
    double since = std::chrono::duration<double>(now - last_draw_).count();
    double min_gap = s_.progress_is_tty ? 0.5 : 15.0;
    if (!force && since < min_gap) return;
    double wsec = std::chrono::duration<double>(now - window_start_).count();
    if (wsec > 0.2) {
      rate_ = window_samples_ / wsec;
      window_samples_ = 0;
      window_start_ = now;
    }
    last_draw_ = now;
    char line[256];
    char eval[32] = "-";
    if (has_eval_) std::snprintf(eval, sizeof(eval), "%.4f", last_eval_);
    std::snprintf(
        line, sizeof(line),
        "[run %d/%d] epoch %d step %lld%s samples/s %.0f loss %.4f last eval %s elapsed %s",
        s_.run_number, s_.run_count, epoch_, static_cast<long long>(epoch_step_),
        steps_hint_ > 0 ? ("/" + std::to_string(steps_hint_)).c_str() : "", rate_, last_loss_, eval,
        FormatElapsed(std::chrono::duration<double>(now - start_).count()).c_str());
    if (s_.progress_is_tty) {
      *s_.progress << "\r\033[K" << line << std::flush;
    } else {
      *s_.progress << line << "\n" << std::flush;
    }
  }

  void EndLine() {
    if (s_.progress && s_.progress_is_tty) *s_.progress << "\n" << std::flush;
  }

 private:
  const RunSettings& s_;
  const std::atomic<bool>* interrupt_;
  SteadyClock::time_point start_, window_start_, epoch_start_, last_draw_{};
  int epoch_ = 0;
  int64_t epoch_step_ = 0, steps_hint_ = 0, total_steps_ = 0, epoch_samples_ = 0,
          window_samples_ = 0;
  double rate_ = 0, last_loss_ = NAN, last_eval_ = 0;
  bool has_eval_ = false;
};

}  // namespace

RunOutcome RunBenchmark(Workload& workload, const RunContext& given_ctx, const RunSettings& s,
                        core::Logger& log, const std::atomic<bool>* interrupt) {
  RunOutcome out;
  RunContext ctx = given_ctx;
  const core::ScaleDef& scale = *s.scale;
  bool run_started = false;
  int64_t run_start_ms = 0;
  std::optional<core::CpuTimes> cpu_at_start;
  auto stop = [&](const std::string& status, const std::string& reason, const std::string& error) {
    if (run_started && cpu_at_start) {
      // Who had the machine during the timed region (a busy machine makes a slow run).
      if (auto now = core::ReadCpuTimes(s.sibling_pids)) {
        if (auto share = core::CpuShareBetween(*cpu_at_start, *now)) {
          TB_MLLOG_EVENT(log, k::kTrainbenchCpuShare,
                         Json({{"own", share->own}, {"other", share->other}}));
          out.other_cpu_share = share->other;
        }
      }
    }
    Json md = {{k::kMdStatus, status}};
    if (!error.empty()) md["error"] = error;
    if (!run_started) {
      // A run that failed during init still ends with a run_stop, so the log says why.
      TB_MLLOG_END(log, k::kRunStop, nullptr, md);
    } else {
      int64_t now = log.NowMs();
      TB_MLLOG_END(log, k::kRunStop, nullptr, md);
      out.run_minutes = (now - run_start_ms) / 60000.0;
    }
    out.status = status;
    out.success = status == k::kStatusSuccess;
    out.reason = reason;
    out.error = error;
  };

  TB_MLLOG_EVENT(log, k::kCacheClear, true);
  TB_MLLOG_START(log, k::kInitStart);
  TB_MLLOG_EVENT(log, k::kSubmissionBenchmark, s.benchmark->log_name);
  TB_MLLOG_EVENT(log, k::kSubmissionOrg, s.org);
  TB_MLLOG_EVENT(log, k::kSubmissionDivision, core::DivisionName(s.division));
  TB_MLLOG_EVENT(log, k::kSubmissionStatus, s.status);
  TB_MLLOG_EVENT(log, k::kSubmissionPlatform, s.platform);
  TB_MLLOG_EVENT(log, k::kTrainbenchBenchmark, s.benchmark->name);
  TB_MLLOG_EVENT(log, k::kTrainbenchScale, scale.scale);
  Json target_md = {{"metric", scale.metric}};
  if (!scale.secondary_targets.empty()) {
    Json st = Json::object();
    for (const auto& [name, value] : scale.secondary_targets) st[name] = value;
    target_md["secondary_targets"] = st;
  }
  TB_MLLOG_EVENT(log, k::kTrainbenchQualityTarget, scale.quality_target, target_md);
  TB_MLLOG_EVENT(log, k::kSeed, ctx.seed);

  // The definition's epoch limit, or a lower one the caller asked for.
  const int max_epochs =
      s.max_epochs >= 0 ? std::min(s.max_epochs, scale.max_epochs) : scale.max_epochs;
  try {
    if (s.setup) s.setup(ctx);
    workload.Init(ctx);
    Json effective = ctx.config;
    effective["seed"] = ctx.seed;
    effective["threads"] = ctx.threads;
    effective["loader_threads"] = ctx.loader_threads;
    effective["device"] = ctx.device;
    effective["world_size"] = ctx.world_size;
    effective["max_epochs"] = max_epochs;
    effective["eval_every_epochs"] = scale.eval_every_epochs;
    if (s.max_steps >= 0) effective["max_steps"] = s.max_steps;
    TB_MLLOG_EVENT(log, k::kTrainbenchConfigRequested, s.requested_config);
    TB_MLLOG_EVENT(log, k::kTrainbenchConfigEffective, effective);
    Json prov = core::MachineProvenance();
    Json rt = workload.RuntimeProvenance();
    for (auto it = rt.begin(); it != rt.end(); ++it) prov[it.key()] = it.value();
    TB_MLLOG_EVENT(log, k::kTrainbenchProvenance, prov);
    if (ctx.world_size > 1) {
      Json info = ctx.dist_info;
      info["world_size"] = ctx.world_size;
      info["global_batch_size"] = workload.GlobalBatchSize();
      info["per_rank_batch_size"] = workload.GlobalBatchSize() / ctx.world_size;
      TB_MLLOG_EVENT(log, k::kTrainbenchDist, info);
    }
    TB_MLLOG_EVENT(log, k::kGlobalBatchSize, workload.GlobalBatchSize());
    TB_MLLOG_EVENT(log, k::kGradientAccumulationSteps, 1);
    for (const LoggedEvent& e : workload.LoggedHyperparameters()) {
      TB_MLLOG_EVENT(log, e.key, e.value, e.metadata);
    }
  } catch (const std::exception& e) {
    TB_MLLOG_END(log, k::kInitStop);
    stop(k::kStatusAborted, "init failed", e.what());
    return out;
  }
  TB_MLLOG_END(log, k::kInitStop);

  run_start_ms = log.NowMs();
  TB_MLLOG_START(log, k::kRunStart);
  run_started = true;
  cpu_at_start = core::ReadCpuTimes(s.sibling_pids);
  auto run_start = SteadyClock::now();
  Control run_control(s, interrupt, run_start);
  int epoch = 0;
  try {
    workload.LoadData();
    TB_MLLOG_EVENT(log, k::kTrainSamples, workload.TrainSamples());
    TB_MLLOG_EVENT(log, k::kEvalSamples, workload.EvalSamples());
    for (const LoggedEvent& e : workload.LoggedDataFacts()) {
      TB_MLLOG_EVENT(log, e.key, e.value, e.metadata);
    }
    const int64_t gbs = workload.GlobalBatchSize();
    const int64_t steps_hint = gbs > 0 ? workload.TrainSamples() / gbs : 0;
    const int every = scale.eval_every_epochs;
    while (epoch < max_epochs) {
      const int first = epoch + 1;
      const int count = std::min(every, max_epochs - epoch);
      TB_MLLOG_START(log, k::kBlockStart, nullptr,
                     Json({{k::kMdFirstEpochNum, first}, {k::kMdEpochCount, count}}));
      for (int e = first; e < first + count; ++e) {
        epoch = e;
        TB_MLLOG_START(log, k::kEpochStart, nullptr, Json({{k::kMdEpochNum, e}}));
        run_control.BeginEpoch(e, steps_hint);
        workload.TrainEpoch(e, run_control);
        double sec = run_control.epoch_seconds();
        TB_MLLOG_END(
            log, k::kEpochStop, nullptr,
            Json({{k::kMdEpochNum, e}, {k::kMdSamplesCount, run_control.epoch_samples()}}));
        Json stats = {{"throughput", sec > 0 ? run_control.epoch_samples() / sec : 0.0},
                      {"steps", run_control.epoch_steps()}};
        if (!std::isnan(run_control.last_loss())) stats["train_loss"] = run_control.last_loss();
        TB_MLLOG_EVENT(log, k::kTrackedStats, stats, Json({{k::kMdEpochNum, e}}));
        for (LoggedEvent& f : workload.LoggedEpochFacts(e)) {
          f.metadata[k::kMdEpochNum] = e;
          TB_MLLOG_EVENT(log, f.key, f.value, f.metadata);
        }
        if (run_control.Stopped()) break;
      }
      TB_MLLOG_END(log, k::kBlockStop, nullptr, Json({{k::kMdFirstEpochNum, first}}));
      out.epochs = epoch;
      if (run_control.Interrupted()) {
        out.interrupted = true;
        run_control.EndLine();
        stop(k::kStatusAborted, "interrupted", k::kErrorInterrupted);
        return out;
      }
      TB_MLLOG_START(log, k::kEvalStart, nullptr, Json({{k::kMdEpochNum, epoch}}));
      EvalResult r = workload.Evaluate(epoch);
      TB_MLLOG_END(log, k::kEvalStop, nullptr,
                   Json({{k::kMdEpochNum, epoch}, {k::kMdSamplesCount, r.samples}}));
      Json md = {{k::kMdEpochNum, epoch}};
      for (auto it = r.extra.begin(); it != r.extra.end(); ++it) md[it.key()] = it.value();
      TB_MLLOG_EVENT(log, k::kEvalAccuracy, r.logged.is_null() ? Json(r.value) : r.logged, md);
      out.last_eval = r.value;
      run_control.set_last_eval(r.value);
      run_control.Draw(true);
      if (r.value >= scale.quality_target && ReachesSecondaryTargets(scale, r)) {
        run_control.EndLine();
        stop(k::kStatusSuccess, "quality target reached", "");
        return out;
      }
      if (run_control.Interrupted()) {
        out.interrupted = true;
        run_control.EndLine();
        stop(k::kStatusAborted, "interrupted", k::kErrorInterrupted);
        return out;
      }
      if (run_control.BudgetSpent()) {
        run_control.EndLine();
        stop(k::kStatusAborted, "step budget spent", "");
        return out;
      }
    }
    run_control.EndLine();
    stop(k::kStatusAborted, "epoch limit reached", "");
  } catch (const std::exception& e) {
    run_control.EndLine();
    out.epochs = epoch;
    stop(k::kStatusAborted, "error", e.what());
  }
  return out;
}

}  // namespace trainbench::train
