// How the runtime moves a data version that tasks on several workers read (a broadcast found in the
// scheduled graph; see docs/runtime.md, "Broadcasts").
#pragma once

#include <herald/error.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace herald::runtime {

enum class BroadcastStrategy {
  nobcast,          // on demand: each recipient fetches the version when a task of its needs it
  p2p,              // the root sends to every recipient in turn, as soon as the version exists
  mpibcast,         // MPI's own MPI_Ibcast on a communicator of exactly the root and the recipients
  mpibcast_herald,  // the same, with herald's own broadcast ("auto") on that communicator
  dynbcast,         // herald's dynamic broadcast: a routed tree, pipelined, landing in the workers' receives
  automatic,        // per broadcast, from the cost model: p2p where a loop of sends is the cheapest shape
};

// "nobcast", "p2p", "mpibcast", "mpibcast:herald", "dynbcast", "auto".
std::string to_string(BroadcastStrategy s);
// The inverse; throws herald::Error naming `what` (a variable or an option: "HERALD_RUNTIME_BCAST"), the text
// and the choices, with the nearest one.
BroadcastStrategy broadcast_strategy_from_string(std::string_view text, std::string_view what = "broadcast strategy");

}  // namespace herald::runtime
