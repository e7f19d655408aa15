// Spreading a dynamic broadcast's forwarding over the ranks (docs/runtime.md, "Broadcasts"). Pure, no MPI.
//
// A tree picked for one broadcast alone (dyn's shape, recipients placed by urgency) gives the forwarding to
// the same ranks broadcast after broadcast: in a factorisation the most urgent readers of every panel tile
// sit in the same process rows and columns, so half the ranks' links carried twice what the other half
// did. The runtime sees every broadcast of the run in one order on every process (the head's plan, or each
// replicated process's), so it can keep a ledger of what each rank has sent and hang each recipient below
// the holder that has sent the least.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace herald::runtime::detail {

class ForwardingLedger {
 public:
  // The tree of a broadcast of `bytes` from `root` to `recipients` (most urgent first): per recipient, the
  // index of its parent among them, -1 for the root. Each recipient in turn hangs below the holder so far
  // (the root, then the recipients placed before it) with the fewest bytes sent, counting the copies this
  // broadcast has given it already; among equals the earlier holder, nearer the root. The ledger counts
  // the copies. Every process calling this with the same broadcasts in the same order gets the same trees.
  std::vector<int> tree(int root, std::span<const int> recipients, std::uint64_t bytes);
  // Bytes `rank` has sent as root or forwarder so far.
  std::uint64_t sent(int rank) const;

 private:
  std::vector<std::uint64_t> sent_;  // by rank
};

// What a control keeps between batches to order its broadcasts (order_broadcasts, broadcasts/strategy.hpp).
struct BroadcastNumbering {
  std::uint64_t made = 0;  // broadcasts numbered so far
  ForwardingLedger ledger;
};

}  // namespace herald::runtime::detail
