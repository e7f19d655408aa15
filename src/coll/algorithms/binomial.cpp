// binomial: binomial tree in virtual ranks; a rank serves its largest sub-tree first, so the last rank is
// reached after ceil(log2 P) rounds. Optionally segmented (pipelined down the tree).
// Cost unsegmented: ceil(log2 P)(alpha + n beta). Wins for small messages.
#include "algorithms.hpp"
#include "tree.hpp"

namespace herald::detail {

TreeNode binomial_node(int vrank, int ranks) {
  TreeNode node;
  int mask = 1;
  // The parent clears the lowest set bit; the children set each lower bit, largest sub-tree first.
  while (mask < ranks && (vrank & mask) == 0) mask <<= 1;
  if (vrank != 0) node.parent = vrank & ~mask;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vrank + mask < ranks) node.children.push_back(vrank + mask);
  return node;
}

Program binomial_program(const Problem& p, int rank) {
  return tree_program(p, rank, p.parameters.segment, [&](int vrank) { return binomial_node(vrank, p.ranks); });
}

}  // namespace herald::detail
