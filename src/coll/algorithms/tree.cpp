#include "tree.hpp"

namespace herald::detail {

Program tree_program(const TreeNode& node, std::size_t bytes, std::optional<std::size_t> segment) {
  Program program;
  const auto pieces = segments(bytes, segment);
  program.reserve(pieces.size() * (node.children.size() + (node.parent >= 0 ? 1 : 0)));
  for (const ByteRange& piece : pieces) {
    if (node.parent >= 0) program.push_back({Step::Op::recv, node.parent, piece});
    for (int child : node.children) program.push_back({Step::Op::send, child, piece});
  }
  return program;
}

TreeNode node_to_real(TreeNode node, int root, int ranks) {
  if (node.parent >= 0) node.parent = herald::to_real(node.parent, root, ranks);
  for (int& child : node.children) child = herald::to_real(child, root, ranks);
  return node;
}

}  // namespace herald::detail
