#include "idle.hpp"

#include <algorithm>
#include <thread>

#include <mpi.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace herald::runtime::detail {
namespace {

// Spinning this long finds most replies to a request just sent without a sleep.
constexpr std::chrono::microseconds spin_before_sleep{20};
constexpr std::chrono::microseconds first_sleep{2};

void precise_sleeps() noexcept {
#if defined(__linux__)
  // Linux lets a sleep run 50 us late by default; ask for 1 us on this thread.
  thread_local const bool done = (prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL), true);
  (void)done;
#endif
}

}  // namespace

Idle::Idle(double max_sleep_seconds, Wait wait)
    : max_sleep_(std::chrono::nanoseconds(static_cast<long long>(std::max(0.0, max_sleep_seconds) * 1e9))),
      wait_(std::move(wait)) {
  if (!wait_) wait_ = [](std::chrono::nanoseconds d) { std::this_thread::sleep_for(d); };
#ifdef SMPI_H
  max_sleep_ = {};  // SimGrid's SMPI: a real sleep would only slow the simulation down
#endif
}

void Idle::idle() {
  if (max_sleep_.count() == 0) {
    std::this_thread::yield();
    return;
  }
  const auto now = Clock::now();
  if (!idle_since_.set) {
    idle_since_ = {now, true};
    return;
  }
  if (now - idle_since_.at < spin_before_sleep) {
    std::this_thread::yield();
    return;
  }
  precise_sleeps();
  sleep_ = std::min(max_sleep_, sleep_.count() == 0 ? std::chrono::nanoseconds(first_sleep) : 2 * sleep_);
  wait_(sleep_);
}

}  // namespace herald::runtime::detail
