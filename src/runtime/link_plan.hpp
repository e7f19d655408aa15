// The plan's links: each rank's outgoing and incoming link as a queue, and the dynamic broadcast's trees
// chosen on them (docs/runtime.md, "Who forwards"). A tree picked for one broadcast alone cannot see that a
// forwarder's link is busy with another broadcast: where links are scarce, each hop of a chain then waits
// behind a queue, and the root sending to every recipient itself wins. Planned on the queues, each
// recipient hangs below whichever holder delivers it first, which is the root's own sends where the
// forwarders are busy and a chain or a tree where they are idle. Pure, no MPI.
#pragma once

#include <herald/runtime/scheduling.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace herald::runtime::detail {

// Each rank's two links in the plan, each a queue in the order transfers are planned: a transfer starts
// once its data is there and both its sender's outgoing link and its receiver's incoming link are free,
// and holds both until it ends. Ranks are counted from 0; one not seen yet has both links free at 0.
class LinkQueues {
 public:
  // When a transfer from `from` to `to` whose data is there at `ready` could start.
  double start(int from, int to, double ready) const;
  // The transfer from `from` to `to` holds both links until `finish`.
  void occupy(int from, int to, double finish);
  double out_free(int rank) const;
  double in_free(int rank) const;

 private:
  std::vector<double> out_;  // by rank: when its outgoing link is free
  std::vector<double> in_;   // by rank: when its incoming link is free
};

// A recipient of a broadcast, as the plan sees it.
struct Need {
  int rank = 0;
  double need = 0;   // when its first reader is planned to start
  int priority = 0;  // its most urgent reader's (order_of)
};

struct PlannedTree {
  std::vector<Need> recipients;  // in the order they are served: by need time, then priority, then as given
  std::vector<int> parents;      // per recipient above: the index of its parent among them, -1 for the root
  std::vector<double> starts;    // per recipient: when its copy starts to arrive, in the plan
  std::vector<double> finishes;  // and when its last byte is in
};

// The tree of a broadcast from `root`, whose data is there at `ready`, to `recipients`, planned on `links`
// and taking its transfers there. A whole copy holds a link for `seconds`; a forwarder passes the data on
// once its first `lag` seconds (one piece) have landed, and ends a piece after its own last one.
//
// The rule: recipients are served in order of need time (ties: the higher priority, then the order given).
// Each in turn hangs below the holder, of the root and the recipients served before it, whose copy to it
// would end first: a copy from holder h to recipient r starts at max(h has data, h's outgoing link free,
// r's incoming link free), where the root has its data at `ready` and a recipient `lag` after its own copy
// starts; it ends `seconds` later, and no sooner than `lag` after h's own copy ends. Ties go to the
// earlier holder: the root, then recipients in the order served. The copy then holds h's outgoing and r's
// incoming link until it ends. Throws herald::Error on a negative rank, time or length, on a repeated
// recipient, or the root among them.
PlannedTree plan_tree(int root, double ready, std::span<const Need> recipients, double seconds, double lag,
                      LinkQueues& links);

}  // namespace herald::runtime::detail
