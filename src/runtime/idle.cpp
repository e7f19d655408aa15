#include "idle.hpp"

#include <algorithm>
#include <thread>

#include <mpi.h>
#ifdef SMPI_H
#include <smpi/smpi_helpers_internal.h>
#endif
#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace herald::runtime::detail {
namespace {

// Spinning this long finds most replies to a request just sent without a sleep.
constexpr double spin_before_sleep = 20e-6;
constexpr std::chrono::nanoseconds first_sleep{2000};

void precise_sleeps() noexcept {
#if defined(__linux__) && !defined(SMPI_H)
  // Linux lets a sleep run 50 us late by default; ask for 1 us on this thread.
  thread_local const bool done = (prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL), true);
  (void)done;
#endif
}

}  // namespace

LoopClock::time_point LoopClock::now() noexcept {
#ifdef SMPI_H
  return time_point(duration(static_cast<rep>(MPI_Wtime() * 1e9)));
#else
  return time_point(std::chrono::duration_cast<duration>(std::chrono::steady_clock::now().time_since_epoch()));
#endif
}

void idle_sleep(std::chrono::nanoseconds duration) {
#ifdef SMPI_H
  smpi_usleep(static_cast<useconds_t>(std::max<long long>(1, duration.count() / 1000)));
#else
  std::this_thread::sleep_for(duration);
#endif
}

Idle::Idle(double max_sleep_seconds, Wait wait)
    : max_sleep_(std::chrono::nanoseconds(static_cast<long long>(std::max(0.0, max_sleep_seconds) * 1e9))),
      wait_(std::move(wait)) {
  if (!wait_) wait_ = idle_sleep;
}

void Idle::idle() {
  if (max_sleep_.count() == 0) {
    std::this_thread::yield();
    return;
  }
  const double now = MPI_Wtime();  // SMPI's is the simulated clock, which the sleeps advance
  if (idle_since_ < 0) {
    idle_since_ = now;
    return;
  }
  if (now - idle_since_ < spin_before_sleep) {
    std::this_thread::yield();
    return;
  }
  precise_sleeps();
  sleep_ = std::min(max_sleep_, sleep_.count() == 0 ? first_sleep : 2 * sleep_);
  wait_(sleep_);
}

}  // namespace herald::runtime::detail
