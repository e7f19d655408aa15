// How a polling loop waits when it finds nothing to do: it spins for a moment (a message often follows
// soon), then sleeps for a while that doubles up to a limit, and spins again after any work. Spinning
// without end takes a core from the kernels of the same node; sleeping delays noticing a message by at
// most the limit. A limit of 0 only yields the processor, as a pure spin does.
#pragma once

#include <chrono>
#include <functional>

namespace herald::runtime::detail {

// Sleeps this long: in simulated time under SimGrid's SMPI, where a real sleep would stall the simulation.
void idle_sleep(std::chrono::nanoseconds duration);

// The clock the runtime's loops pace themselves by (time slices, batching, heartbeats, timeouts): the host's
// steady clock, but SMPI's simulated one under SimGrid, so that a simulated run does not depend on how fast
// the host ran it and two runs of one point give the same times.
struct LoopClock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<LoopClock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept;
};

// Seconds from `t` to now, on LoopClock.
inline double seconds_since(LoopClock::time_point t) {
  return std::chrono::duration<double>(LoopClock::now() - t).count();
}

class Idle {
 public:
  // `wait` sleeps for at most its argument; it may return early, when there is work (a kernel ended).
  using Wait = std::function<void(std::chrono::nanoseconds)>;
  explicit Idle(double max_sleep_seconds, Wait wait = {});
  void busy() noexcept {
    sleep_ = {};
    idle_since_ = -1;
  }
  void idle();

 private:
  std::chrono::nanoseconds max_sleep_;
  Wait wait_;
  std::chrono::nanoseconds sleep_{};
  double idle_since_ = -1;  // seconds (this process's clock; SMPI's simulated one), or -1: busy
};

}  // namespace herald::runtime::detail
