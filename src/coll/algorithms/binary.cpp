// binary: a complete binary tree in virtual ranks (see binary_tree.hpp), segmented so that segments stream
// down the tree: a rank forwards segment k to its two children while segment k+1 is still arriving.
// Cost, m = ceil(n/s) segments, D = floor(log2 P) levels below the root (P >= 3): at most
// (2(m - 1) + 2D)(alpha + s beta) -- each rank sends every segment twice, so about 2 n beta for large n.
// Wins over `chain` at many ranks and few segments (depth log2 P instead of P), over `binomial` for medium
// sizes, where segments overlap across levels.
#include "algorithms.hpp"
#include "binary_tree.hpp"

namespace herald::detail {

TreeNode binary_node(int vrank, int ranks) {
  TreeNode node;
  long long width = 1;  // 2^L, the number of places on vrank's level L
  while (vrank >= 2 * width - 1) width <<= 1;
  if (vrank != 0) {
    // The parent sits on the level above, at this rank's place modulo that level's width.
    const long long half = width / 2;
    const long long place = vrank - (width - 1);
    node.parent = static_cast<int>(half - 1 + place % half);
  }
  for (long long child : {vrank + width, vrank + 2 * width})
    if (child < ranks) node.children.push_back(static_cast<int>(child));
  return node;
}

Program binary_program(const Problem& p, int rank) {
  return tree_program(p, rank, p.parameters.segment, [&](int vrank) { return binary_node(vrank, p.ranks); });
}

}  // namespace herald::detail
