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
