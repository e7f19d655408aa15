// chain: pipelined chains. The ranks below the root (in virtual ranks) are cut into `fanout` runs of
// consecutive ranks, as equal as possible, longest first; the root heads each run and every rank passes
// each segment to the next rank of its run as soon as it has it.
// Cost, m = ceil(n/s) segments, f chains of at most L = ceil((P-1)/f) ranks: about (f (m - 1) + f - 1 + L)
// (alpha + s beta); one chain (the default) gives (P - 2 + m)(alpha + s beta), about n beta for large n,
// the bandwidth optimum of a single-port network. More chains shorten the pipeline's fill (L) but make the
// root send every segment f times. Wins for large messages; fan-out > 1 helps when P - 1 is large against m.
#include "algorithms.hpp"
#include "tree.hpp"

#include <algorithm>

namespace herald::detail {
namespace {

TreeNode chain_node(int vrank, int ranks, int fanout) {
  TreeNode node;
  const int others = ranks - 1;
  if (others == 0) return node;
  const int chains = std::clamp(fanout, 1, others);  // more chains than ranks: one rank per chain
  const int length = others / chains;                 // every chain has this many ranks ...
  const int longer = others % chains;                 // ... and the first `longer` chains one more
  auto head = [&](int chain) { return 1 + chain * length + std::min(chain, longer); };
  if (vrank == 0) {
    for (int chain = 0; chain < chains; ++chain) node.children.push_back(head(chain));
    return node;
  }
  const int before_short = longer * (length + 1);  // ranks in the longer chains
  const int chain = vrank - 1 < before_short ? (vrank - 1) / (length + 1)
                                             : longer + (vrank - 1 - before_short) / length;
  node.parent = vrank == head(chain) ? 0 : vrank - 1;
  if (vrank + 1 < head(chain + 1)) node.children.push_back(vrank + 1);
  return node;
}

}  // namespace

Program chain_program(const Problem& p, int rank) {
  return tree_program(p, rank, p.parameters.segment,
                      [&](int vrank) { return chain_node(vrank, p.ranks, *p.parameters.fanout); });
}

}  // namespace herald::detail
