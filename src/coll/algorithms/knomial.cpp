// knomial: k-nomial tree of radix k in virtual ranks. A rank's parent is itself with its lowest non-zero
// base-k digit cleared; its children set each lower digit to 1 .. k-1, highest digit first, so the largest
// sub-trees are served first. Radix 2 is the binomial tree. Optionally segmented.
// Cost unsegmented, D = ceil(log_k P): at most D (k - 1)(alpha + n beta), reached when P is a power of k.
// On a single-port network radix 2 minimises this; a larger radix wins where a rank can have several
// sends in flight at little extra cost (shared memory, several rails), as it makes the tree shallower.
#include "algorithms.hpp"
#include "tree.hpp"

namespace herald::detail {
namespace {

TreeNode knomial_node(int vrank, int ranks, int radix) {
  TreeNode node;
  const long long k = radix;
  long long span = 1;  // k^i for the lowest non-zero digit i of vrank (past ranks for the root)
  while (span < ranks && vrank % (span * k) == 0) span *= k;
  if (vrank != 0) node.parent = static_cast<int>(vrank - vrank % (span * k));
  for (span /= k; span >= 1; span /= k)
    for (long long digit = 1; digit < k; ++digit) {
      const long long child = vrank + digit * span;
      if (child >= ranks) break;
      node.children.push_back(static_cast<int>(child));
    }
  return node;
}

}  // namespace

Program knomial_program(const Problem& p, int rank) {
  return tree_program(p, rank, p.parameters.segment,
                      [&](int vrank) { return knomial_node(vrank, p.ranks, *p.parameters.radix); });
}

}  // namespace herald::detail
