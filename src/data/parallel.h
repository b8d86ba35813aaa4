// RunOnThreads: the data layer's one fork-join helper. work(t) runs for t = 0..threads-1, each
// on its own thread (the caller's thread alone when threads <= 1); returns when all are done.
// Work is split by the callee (e.g. users u = t, t + threads, ...), and results must not depend
// on the thread count: give each item its own RNG stream.
#pragma once

#include <thread>
#include <vector>

namespace trainbench::data {

template <typename F>
void RunOnThreads(int threads, F&& work) {
  if (threads <= 1) {
    work(0);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();
}

}  // namespace trainbench::data
