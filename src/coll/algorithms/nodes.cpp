#include "nodes.hpp"

#include <algorithm>

namespace herald::detail {

Nodes::Nodes(const Problem& p) : layout_(nodes_of(p)), root_(p.root), root_node_(layout_.node_of(p.root)) {}

// The leader's position among the node's members, by rank order.
namespace {
int position(std::span<const int> members, int rank) {
  return static_cast<int>(std::lower_bound(members.begin(), members.end(), rank) - members.begin());
}
}  // namespace

int Nodes::local(int rank) const {
  const int node = layout_.node_of(rank);
  const std::span<const int> members = layout_.members(node);
  const int first = node == root_node_ ? position(members, root_) : 0;
  return (position(members, rank) - first + size(node)) % size(node);
}

int Nodes::global(int node, int index) const {
  const std::span<const int> members = layout_.members(node);
  const int first = node == root_node_ ? position(members, root_) : 0;
  return members[static_cast<std::size_t>((first + index) % size(node))];
}

Program merge_stages(const Program& across, const Program& within) {
  Program out;
  out.reserve(across.size() + within.size());
  std::size_t i = 0, j = 0;
  while (i < across.size() || j < within.size()) {
    if (j == within.size() || (i < across.size() && across[i].range.offset <= within[j].range.offset))
      out.push_back(across[i++]);
    else
      out.push_back(within[j++]);
  }
  return out;
}

}  // namespace herald::detail
