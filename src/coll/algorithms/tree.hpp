// Shared by the tree-shaped algorithms: a rank's place in a tree and the pipelined program it implies.
#pragma once

#include <herald/schedule.hpp>

#include <vector>

namespace herald::detail {

// One rank's view of a broadcast tree, in real ranks. `children` are in the order the rank serves them.
struct TreeNode {
  int parent = -1;  // -1 at the root
  std::vector<int> children;
};

// Segment by segment: receive it from the parent, then send it to each child in turn. With receives posted
// up front, a node forwards segment k while segment k+1 is still arriving.
Program tree_program(const TreeNode& node, std::size_t bytes, std::optional<std::size_t> segment);

// A rank's place in a binomial tree of `ranks` in virtual ranks (binomial.cpp).
TreeNode binomial_node(int vrank, int ranks);

// Converts a node built in virtual ranks (root = 0) to real ranks.
TreeNode node_to_real(TreeNode node, int root, int ranks);

// The program of real rank `rank` in a tree that `build(vrank)` describes in virtual ranks.
template <class Build>
Program tree_program(const Problem& p, int rank, std::optional<std::size_t> segment, Build&& build) {
  return tree_program(node_to_real(build(herald::to_virtual(rank, p.root, p.ranks)), p.root, p.ranks), p.bytes, segment);
}

}  // namespace herald::detail
