// Where a benchmark's step spends its CPU time, operator by operator: LibTorch's legacy profiler
// (the one `torch.autograd.profiler.profile()` uses) records every ATen operator and autograd
// node between Start() and Stop(); Stop() prints the operators with the most self time (their
// time minus the operators they called), per step, and the share of the profiled time.
// Self times add up to the profiled time, so the table says where the time goes; the profiler's
// own cost (a few microseconds per operator) is in it, so compare steps profiled the same way.
#pragma once

#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainbench::bench {

class OpProfile {
 public:
  void Start() {
    torch::autograd::profiler::enableProfilerLegacy(
        torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
    started_ = true;
  }

  // Prints the `top` operators by self time, divided by `steps`.
  void Stop(const std::string& title, int steps, int top = 25) {
    if (!started_) return;
    started_ = false;
    namespace prof = torch::autograd::profiler;
    prof::thread_event_lists lists = prof::disableProfilerLegacy();
    struct Sum {
      double self_us = 0, total_us = 0;
      int64_t calls = 0;
    };
    std::map<std::string, Sum> sums;
    double profiled_us = 0;
    for (const auto& list : lists) {
      struct Open {
        const prof::LegacyEvent* push;
        double children_us;
      };
      std::vector<Open> stack;
      for (const auto& e : list) {
        if (e.kind() == prof::EventKind::PushRange) {
          stack.push_back({&e, 0.0});
        } else if (e.kind() == prof::EventKind::PopRange && !stack.empty()) {
          const Open o = stack.back();
          stack.pop_back();
          const double us = o.push->cpuElapsedUs(e);
          Sum& s = sums[o.push->name()];
          s.calls += 1;
          s.total_us += us;
          s.self_us += us - o.children_us;
          if (stack.empty())
            profiled_us += us;
          else
            stack.back().children_us += us;
        }
      }
    }
    std::vector<std::pair<std::string, Sum>> rows(sums.begin(), sums.end());
    std::sort(rows.begin(), rows.end(),
              [](const auto& x, const auto& y) { return x.second.self_us > y.second.self_us; });
    const double n = std::max(1, steps);
    std::printf("%s: operators by self time, per step (%.1f ms profiled per step)\n", title.c_str(),
                profiled_us / 1e3 / n);
    std::printf("  %-44s %10s %8s %10s %8s\n", "operator", "self ms", "share", "total ms", "calls");
    for (size_t i = 0; i < rows.size() && i < static_cast<size_t>(top); ++i) {
      const Sum& s = rows[i].second;
      std::printf("  %-44.44s %10.2f %7.1f%% %10.2f %8.0f\n", rows[i].first.c_str(),
                  s.self_us / 1e3 / n, profiled_us > 0 ? 100 * s.self_us / profiled_us : 0.0,
                  s.total_us / 1e3 / n, static_cast<double>(s.calls) / n);
    }
  }

  ~OpProfile() {
    if (started_) torch::autograd::profiler::disableProfilerLegacy();
  }

 private:
  bool started_ = false;
};

}  // namespace trainbench::bench
