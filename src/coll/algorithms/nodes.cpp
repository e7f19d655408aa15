#include "nodes.hpp"

#include <herald/algorithms.hpp>

#include <algorithm>
#include <map>
#include <vector>

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
  // The distinct ranges `within` sends (its segments, in offset order), and for each the index in `across`
  // just past the last send that carries any of its bytes on to the other nodes.
  std::vector<ByteRange> ranges;
  for (const Step& step : within)
    if (step.range.length != 0) ranges.push_back(step.range);
  std::ranges::sort(ranges, {}, &ByteRange::offset);
  ranges.erase(std::unique(ranges.begin(), ranges.end()), ranges.end());
  std::vector<std::size_t> sent_on(ranges.size(), 0);
  for (std::size_t i = 0; i < across.size(); ++i) {
    const ByteRange r = across[i].range;
    if (across[i].op != Step::Op::send || r.length == 0) continue;
    auto it = std::ranges::upper_bound(ranges, r.offset, {}, &ByteRange::end);
    for (; it != ranges.end() && it->offset < r.end(); ++it) sent_on[it - ranges.begin()] = i + 1;
  }
  auto sent_on_of = [&](const ByteRange& r) -> std::size_t {
    if (r.length == 0) return 0;
    return sent_on[std::ranges::lower_bound(ranges, r.offset, {}, &ByteRange::offset) - ranges.begin()];
  };

  std::map<std::size_t, std::size_t> received;  // disjoint [offset, end) ranges `across` has brought in
  auto receive = [&](ByteRange r) {
    if (r.length == 0) return;
    std::size_t begin = r.offset, end = r.end();
    auto it = received.upper_bound(begin);
    if (it != received.begin() && std::prev(it)->second >= begin) --it;
    while (it != received.end() && it->first <= end) {
      begin = std::min(begin, it->first);
      end = std::max(end, it->second);
      it = received.erase(it);
    }
    received.emplace(begin, end);
  };
  auto held = [&](const ByteRange& r) {
    if (holds_all || r.length == 0) return true;
    auto it = received.upper_bound(r.offset);
    return it != received.begin() && std::prev(it)->second >= r.end();
  };

  Program out;
  out.reserve(across.size() + within.size());
  std::size_t j = 0;
  auto flush = [&](std::size_t emitted) {
    for (; j < within.size(); ++j) {
      if (!held(within[j].range) || sent_on_of(within[j].range) > emitted) return;
      out.push_back(within[j]);
    }
  };
  flush(0);
  for (std::size_t i = 0; i < across.size(); ++i) {
    out.push_back(across[i]);
    if (across[i].op == Step::Op::recv) receive(across[i].range);
    flush(i + 1);
  }
  // Whatever is left waits for nothing more from `across` (or the schedule is wrong, which the simulator
  // reports): keep it, in order.
  out.insert(out.end(), within.begin() + static_cast<std::ptrdiff_t>(j), within.end());
  return out;
}

const AlgorithmInfo& leader_algorithm(std::optional<LeaderStage> stage) {
  return find_algorithm(leader_stage_name(stage.value_or(LeaderStage::chain)));
}

Problem leaders_problem(const Problem& p, int nodes) {
  return with_defaults(leader_algorithm(p.parameters.leaders),
                       Problem{.ranks = nodes,
                               .root = 0,
                               .bytes = p.bytes,
                               .parameters = {.segment = p.parameters.segment, .fanout = p.parameters.fanout}});
}

Program node_stages(const Problem& p, int rank, Stage within_node) {
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

  const Problem leaders = leaders_problem(p, nodes.count());
  Program across = leader_algorithm(p.parameters.leaders).program(leaders, nodes.virtual_node(node));
  for (Step& step : across) step.peer = nodes.leader(nodes.real_node(step.peer));
  return merge_stages(across, within, rank == p.root);
}

}  // namespace herald::detail
