// The clocks a thread's busy time is read from.
#pragma once

#include <herald/balance/settings.hpp>

#include <cstdint>
#include <ctime>

namespace herald::balance {

// Nanoseconds on the wall (monotonic) or on the calling thread's CPU clock. The CPU clock ignores time
// the thread spent descheduled, which matters when threads share cores.
inline std::int64_t now_ns(Clock clock) noexcept {
  timespec ts{};
  clock_gettime(clock == Clock::cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace herald::balance
