// SIGINT and SIGTERM handled by `handler` while the object lives, the previous handlers back
// when it goes (`run` while its workers train; `run --suite` between runs).
#pragma once

#include <signal.h>

namespace trainbench::cli {

class InterruptSignals {
 public:
  explicit InterruptSignals(void (*handler)(int)) {
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~InterruptSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptSignals(const InterruptSignals&) = delete;
  InterruptSignals& operator=(const InterruptSignals&) = delete;

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

}  // namespace trainbench::cli
