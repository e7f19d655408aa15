// linear: the root sends the whole buffer to every other rank in turn (the "p2p" baseline of task runtimes).
// Cost: (P-1)(alpha + n beta). Wins only at P = 2, where every algorithm is this one.
#include "algorithms.hpp"
#include "tree.hpp"

namespace herald::detail {

Program linear_program(const Problem& p, int rank) {
  TreeNode node;
  if (rank != p.root) {
    node.parent = p.root;
  } else {
    for (int v = 1; v < p.ranks; ++v) node.children.push_back(herald::to_real(v, p.root, p.ranks));
  }
  return tree_program(node, p.bytes, 0);
}

}  // namespace herald::detail
