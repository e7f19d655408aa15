// Threads that run kernels for a worker, so its communication thread keeps polling meanwhile.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace herald::runtime::detail {

class Pool {
 public:
  struct Result {
    std::uint64_t task;
    double seconds;
    std::exception_ptr error;
  };
  explicit Pool(int threads);
  ~Pool();  // waits for running jobs, drops queued ones
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  void submit(std::uint64_t task, std::function<void()> job);
  // Moves the finished jobs' results into `out` (appended); does not block.
  void collect(std::vector<Result>& out);
  // Blocks until a result is there to collect or `limit` has passed: an idle polling thread waits here,
  // so that it wakes at once when a kernel ends (and a core frees) rather than after its whole sleep.
  void wait_for_result(std::chrono::nanoseconds limit);

  // Runs `job` and times it, catching what it throws.
  static Result run(std::uint64_t task, const std::function<void()>& job);

 private:
  void serve();
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  std::deque<std::pair<std::uint64_t, std::function<void()>>> jobs_;
  std::vector<Result> results_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace herald::runtime::detail
