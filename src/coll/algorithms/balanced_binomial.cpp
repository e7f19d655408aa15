// balanced_binomial: the sBBT of Cordeiro & Zola ("Balanced Binomial Tree for Broadcast with MPI").
//
// The tree is the one of Open MPI's binomial broadcast, which the paper keeps ("the communication happens
// between the same processes"): in virtual ranks (root = 0) a rank's parent is itself with its highest set
// bit cleared, and its children add each higher power of two, smallest first, so the first child heads the
// largest sub-tree. What the paper changes is the execution: each rank receives the whole message with a
// blocking receive, then sends it whole to each child in turn with blocking sends. No segmentation, no
// nonblocking requests: the least per-message overhead, which is what small messages pay for.
//
// Against `binomial` (parent = vrank with its lowest set bit cleared): the same depth and message count,
// but for a non-power-of-two P the sub-trees differ (P = 6: 3, 1, 1 ranks below the root's children here,
// 2, 2, 1 there), and this one never segments and runs blocking.
// Cost: ceil(log2 P) (alpha + n beta).
#include "algorithms.hpp"
#include "tree.hpp"

namespace herald::detail {
namespace {

TreeNode balanced_binomial_node(int vrank, int ranks) {
  TreeNode node;
  long long bit = 1;  // the lowest power of two above vrank
  while (bit <= vrank) bit <<= 1;
  if (vrank != 0) node.parent = vrank - static_cast<int>(bit >> 1);
  for (; vrank + bit < ranks; bit <<= 1) node.children.push_back(vrank + static_cast<int>(bit));
  return node;
}

}  // namespace

Program balanced_binomial_program(const Problem& p, int rank) {
  // One message per edge: receive it all, then pass it on.
  return tree_program(p, rank, 0, [&](int vrank) { return balanced_binomial_node(vrank, p.ranks); });
}

}  // namespace herald::detail
