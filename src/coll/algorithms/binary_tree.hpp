// The binary tree shared by `binary` and `split_binary`.
#pragma once

#include "tree.hpp"

namespace herald::detail {

// A complete binary tree in virtual ranks (root = 0), filled level by level: level L holds virtual ranks
// 2^L - 1 .. 2^(L+1) - 2, and a rank on level L has the children vrank + 2^L and vrank + 2^(L+1), served in
// that order. Below the root, odd ranks form the sub-tree of rank 1 and even ranks that of rank 2, and the
// odd rank v and v + 1 sit at the same place in the two sub-trees.
TreeNode binary_node(int vrank, int ranks);

}  // namespace herald::detail
