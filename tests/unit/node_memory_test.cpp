// The stage within a node carried through node memory (lower_to_node_memory): on every node, for every
// placement, root and size (steps split for MPI's int counts included), the writer's puts and each
// reader's gets name the same ranges at the same ring positions, cover the buffer once, and take the same
// number of positions; the steps between nodes stay messages.
#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/node_memory.hpp>

#include <gtest/gtest.h>

#include "node_layouts.hpp"

#include <string>
#include <vector>

namespace herald {
namespace {

struct Carried {
  NodeStep::Op op;
  ByteRange range;
  std::uint32_t position;
  friend bool operator==(const Carried&, const Carried&) = default;
};

std::vector<Carried> carried(const NodeLowering& l) {
  std::vector<Carried> out;
  for (const NodeStep& n : l.node) out.push_back({n.op, n.range, n.position});
  return out;
}

void check_node(const Problem& p, const NodeLayout& layout, int node, std::size_t slot, std::size_t limit,
                const std::string& where) {
  const AlgorithmInfo& a = find_algorithm("node_shared");
  const std::span<const int> members = layout.members(node);
  int writer = -1;
  std::vector<Carried> puts;
  std::uint32_t positions = 0;
  std::vector<std::vector<Carried>> gets;
  for (int r : members) {
    const Program program = make_program(a, p, r, limit);
    const NodeLowering l = lower_to_node_memory(program, layout, r, slot);
    // The messages left are those between nodes; what is carried stays within the node.
    for (std::uint32_t i : l.sends) ASSERT_NE(layout.node_of(program[i].peer), node) << where;
    for (std::uint32_t i : l.recvs) ASSERT_NE(layout.node_of(program[i].peer), node) << where;
    for (const NodeStep& n : l.node) {
      ASSERT_LE(n.range.length, slot) << where;
      ASSERT_EQ(layout.node_of(program[n.step].peer), node) << where;
    }
    if (l.readers > 0) {
      ASSERT_EQ(writer, -1) << where << ": two writers";
      writer = r;
      EXPECT_EQ(l.readers, static_cast<int>(members.size()) - 1) << where;
      for (const NodeStep& n : l.node) ASSERT_EQ(n.op, NodeStep::Op::put) << where;
      puts = carried(l);
      positions = l.positions;
    } else if (!l.node.empty()) {
      for (const NodeStep& n : l.node) ASSERT_EQ(n.op, NodeStep::Op::get) << where;
      gets.push_back(carried(l));
      ASSERT_EQ(gets.back().size(), l.positions) << where;
    }
  }
  if (members.size() == 1 || p.bytes == 0) {
    EXPECT_EQ(writer, -1) << where;
    EXPECT_TRUE(gets.empty()) << where;
    return;
  }
  ASSERT_NE(writer, -1) << where;
  EXPECT_EQ(writer, layout.node_of(p.root) == node ? p.root : members.front()) << where;
  ASSERT_EQ(gets.size(), members.size() - 1) << where << ": a reader gets nothing";
  // The pieces cover the buffer once, in order, at positions 0, 1, ...
  std::size_t offset = 0;
  for (std::size_t i = 0; i < puts.size(); ++i) {
    EXPECT_EQ(puts[i].position, i) << where;
    EXPECT_EQ(puts[i].range.offset, offset) << where;
    offset = puts[i].range.end();
  }
  EXPECT_EQ(offset, p.bytes) << where;
  EXPECT_EQ(positions, puts.size()) << where;
  for (const std::vector<Carried>& g : gets) {
    ASSERT_EQ(g.size(), puts.size()) << where;
    for (std::size_t i = 0; i < g.size(); ++i) {
      EXPECT_EQ(g[i].range, puts[i].range) << where << ", piece " << i;
      EXPECT_EQ(g[i].position, puts[i].position) << where << ", piece " << i;
    }
  }
}

TEST(NodeMemory, WriterAndReadersAgreeOnEveryNode) {
  for (int ranks = 1; ranks <= 40; ranks += ranks < 12 ? 1 : 7)
    for (int k : {1, 2, 3, 5, 8, 33})
      for (const auto& [name, layout] : test_layouts(ranks, k))
        for (int root = 0; root < ranks; root += ranks <= 12 ? 1 : ranks / 4)
          for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{5000}, std::size_t{70001}})
            for (std::size_t segment : {std::size_t{1000}, std::size_t{65536}})
              for (std::size_t slot : {std::size_t{1024}, std::size_t{262144}})
                for (std::size_t limit : {std::size_t{3000}, max_message_bytes}) {
                  const Problem p{.ranks = ranks, .root = root, .bytes = bytes, .parameters = {.segment = segment},
                                  .layout = layout};
                  for (int node = 0; node < layout.nodes(); ++node) {
                    const std::string where = std::to_string(ranks) + " ranks, " + name + " " + std::to_string(k) +
                                              ", root " + std::to_string(root) + ", " + std::to_string(bytes) +
                                              " bytes, segment " + std::to_string(segment) + ", slot " +
                                              std::to_string(slot) + ", limit " + std::to_string(limit) +
                                              ", node " + std::to_string(node);
                    check_node(p, layout, node, slot, limit, where);
                    if (HasFatalFailure()) return;
                  }
                }
}

TEST(NodeMemory, AboveTwoGiB) {
  const NodeLayout layout = NodeLayout::cyclic(5, 2);
  const Problem p{.ranks = 5, .root = 3, .bytes = (std::size_t{1} << 31) + 4097,
                  .parameters = {.segment = std::size_t{1} << 30}, .layout = layout};
  for (int node = 0; node < 2; ++node) check_node(p, layout, node, 256 * 1024, max_message_bytes, "above 2 GiB");
}

// A stage within the node that is not one writer handing everything to the others is refused.
TEST(NodeMemory, RefusesOtherShapesWithin) {
  const NodeLayout one = NodeLayout::blocks(3, 3);
  const Problem p{.ranks = 3, .root = 0, .bytes = 4000, .parameters = {.segment = 1000}, .layout = one};
  const Program chain_middle = make_program(find_algorithm("chain"), p, 1);  // gets from 0, puts for 2
  try {
    lower_to_node_memory(chain_middle, one, 1, 4096);
    ADD_FAILURE() << "a forwarding reader was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_schedule);
  }
  EXPECT_THROW(lower_to_node_memory(make_program(find_algorithm("node_shared"), p, 0), one, 0, 0), Error);
}

}  // namespace
}  // namespace herald
