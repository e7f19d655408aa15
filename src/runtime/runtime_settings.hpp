// The runtime's settings, resolved once when a Runtime is made: each from the program's Options where it
// gave it, else from its environment variable, else its default (docs/configuration.md). A bad value is
// refused by name (herald::Error) before anything collective. No MPI: tested without it.
#pragma once

#include "coordinator.hpp"

#include <herald/runtime/runtime.hpp>

#include <optional>
#include <string>
#include <utility>

namespace herald::runtime::detail {

// Each member's initializer is its default, but threads' (Runtime::default_threads()), control's
// (default_control()) and heartbeat's (a tenth of the timeout, at most 1 s), which depend on the machine or
// on another setting.
struct RuntimeSettings {
  int threads = 1;  // before MPI's thread level is known (Runtime's constructor may lower it to 0)
  Control control = Control::head;
  Scheduler scheduler = Scheduler::heft;
  Mapping mapping{};
  double worker_timeout = 60;
  double heartbeat = 1;
  double idle_sleep = 50e-6;
  Link link{};
  BroadcastStrategy broadcast = BroadcastStrategy::nobcast;
  bool broadcast_sync = false;
  BroadcastTrees trees = BroadcastTrees::dyn;
  ReductionStrategy reduction = ReductionStrategy::automatic;
  bool log = false;      // HERALD_RUNTIME_LOG
  std::string trace;     // empty: no trace
  // Test only: HERALD_RUNTIME_INJECT=<kind>:<rank> makes that worker fail once outside any kernel (kinds in
  // Worker::inject), to test that such failures reach the head.
  std::optional<std::pair<std::string, int>> inject;

  // Every setting from `options` and the environment (an unknown HERALD_ variable is refused too).
  static RuntimeSettings resolve(const Options& options);
  // What both controls take of them; `endpoint` prices dynbcast's shapes, `read_kernel` is replicated
  // control's, `lanes` the kernels a worker runs at once (the threads asked for, which modelled kernels
  // keep under SMPI).
  ControlSettings control_settings(dyn::Endpoint* endpoint, std::string read_kernel, int lanes) const;
};

}  // namespace herald::runtime::detail
