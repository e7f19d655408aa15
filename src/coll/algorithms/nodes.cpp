#include "nodes.hpp"

#include <algorithm>
#include <limits>
#include <set>

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

Program merge_stages(const Program& across, const Program& within, bool holds_all) {
  Program out;
  out.reserve(across.size() + within.size());
  std::set<std::size_t> received;  // offsets of the segments `across` has brought in so far
  std::size_t j = 0;
  auto flush = [&](std::size_t next_across_offset) {
    for (; j < within.size(); ++j) {
      const std::size_t offset = within[j].range.offset;
      if (!holds_all && !received.contains(offset)) return;
      if (offset >= next_across_offset) return;
      out.push_back(within[j]);
    }
  };
  for (std::size_t i = 0; i < across.size(); ++i) {
    flush(across[i].range.offset);
    out.push_back(across[i]);
    if (across[i].op == Step::Op::recv) received.insert(across[i].range.offset);
  }
  flush(std::numeric_limits<std::size_t>::max());
  // Whatever is left waits for nothing more from `across` (or the schedule is wrong, which the simulator
  // reports): keep it, in order.
  out.insert(out.end(), within.begin() + static_cast<std::ptrdiff_t>(j), within.end());
  return out;
}

Program node_stages(const Problem& p, int rank, Stage among_leaders, Stage within_node) {
  const Nodes nodes(p);
  const int node = nodes.node_of(rank);
  const int local = nodes.local(rank);

  const Problem inside{.ranks = nodes.size(node),
                       .root = 0,
                       .bytes = p.bytes,
                       .parameters = {.segment = p.parameters.segment, .fanout = 1}};
  Program within = within_node(inside, local);
  for (Step& step : within) step.peer = nodes.global(node, step.peer);
  if (local != 0 || nodes.count() == 1) return within;

  const Problem leaders{.ranks = nodes.count(),
                        .root = 0,
                        .bytes = p.bytes,
                        .parameters = {.segment = p.parameters.segment, .fanout = p.parameters.fanout}};
  Program across = among_leaders(leaders, nodes.virtual_node(node));
  for (Step& step : across) step.peer = nodes.leader(nodes.real_node(step.peer));
  return merge_stages(across, within, rank == p.root);
}

}  // namespace herald::detail
