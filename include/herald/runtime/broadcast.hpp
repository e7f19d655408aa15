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

// Who forwards a dynamic broadcast (dynbcast, and auto where it picks dynbcast), docs/runtime.md "Who forwards".
enum class BroadcastTrees {
  dyn,      // dyn's shape for the group, the most urgent recipients served first (so forwarding)
  spread,   // each recipient below the holder that has sent the fewest bytes so far in the run
  planned,  // each recipient, by need time, below the holder whose copy ends first on the plan's link queues
};

// "dyn", "spread", "planned".
std::string to_string(BroadcastTrees t);
// The inverse; throws herald::Error naming `what`, the text and the choices.
BroadcastTrees broadcast_trees_from_string(std::string_view text, std::string_view what = "broadcast trees");

}  // namespace herald::runtime
