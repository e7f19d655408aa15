#include "pool.hpp"

#include <chrono>

namespace herald::runtime::detail {

Pool::Pool(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { serve(); });
}

Pool::~Pool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    jobs_.clear();
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void Pool::submit(std::uint64_t task, std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    jobs_.emplace_back(task, std::move(job));
  }
  wake_.notify_one();
}

void Pool::wait_for_result(std::chrono::nanoseconds limit) {
  std::unique_lock lock(mutex_);
  finished_.wait_for(lock, limit, [this] { return stopping_ || !results_.empty(); });
}

void Pool::collect(std::vector<Result>& out) {
  std::lock_guard lock(mutex_);
  for (auto& r : results_) out.push_back(std::move(r));
  results_.clear();
}

Pool::Result Pool::run(std::uint64_t task, const std::function<void()>& job) {
  const auto start = std::chrono::steady_clock::now();
  std::exception_ptr error;
  try {
    job();
  } catch (...) {
    error = std::current_exception();
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return {task, took.count(), error};
}

void Pool::serve() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    auto [task, job] = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    Result result = run(task, job);
    lock.lock();
    results_.push_back(std::move(result));
    finished_.notify_one();
  }
}

}  // namespace herald::runtime::detail
