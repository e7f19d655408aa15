// NodeLayout: nodes numbered by their lowest rank, blocks, cyclic and uneven placements, equality, and
// refusals of empty layouts and ranks outside.
#include <herald/error.hpp>
#include <herald/layout.hpp>
#include <herald/schedule.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace herald {
namespace {

std::vector<int> members(const NodeLayout& l, int node) {
  const auto m = l.members(node);
  return {m.begin(), m.end()};
}

TEST(NodeLayout, NumbersNodesByTheirLowestRank) {
  const std::vector<int> names{42, 7, 42, 9, 7};
  const NodeLayout l(names);
  ASSERT_EQ(l.ranks(), 5);
  ASSERT_EQ(l.nodes(), 3);
  EXPECT_EQ(members(l, 0), (std::vector<int>{0, 2}));
  EXPECT_EQ(members(l, 1), (std::vector<int>{1, 4}));
  EXPECT_EQ(members(l, 2), (std::vector<int>{3}));
  EXPECT_EQ(l.node_of(4), 1);
  EXPECT_EQ(l.largest_node(), 2);
  EXPECT_EQ(l.describe(), "3 nodes of 1-2 ranks, not in blocks");
}

TEST(NodeLayout, BlocksAndCyclicForEveryShape) {
  for (int ranks = 1; ranks <= 40; ++ranks)
    for (int k = 1; k <= 12; ++k) {
      const NodeLayout b = NodeLayout::blocks(ranks, k);
      const NodeLayout c = NodeLayout::cyclic(ranks, k);
      ASSERT_EQ(b.nodes(), (ranks + k - 1) / k);
      ASSERT_EQ(c.nodes(), std::min(ranks, k));
      int seen = 0;
      for (int n = 0; n < b.nodes(); ++n)
        for (int r : b.members(n)) {
          EXPECT_EQ(r / k, n);
          EXPECT_EQ(b.node_of(r), n);
          ++seen;
        }
      EXPECT_EQ(seen, ranks);
      for (int r = 0; r < ranks; ++r) EXPECT_EQ(c.node_of(r), r % k);
      bool same = true;  // equality is by placement
      for (int r = 0; r < ranks; ++r) same = same && r / k == r % k;
      EXPECT_EQ(b == c, same) << ranks << " ranks, " << k;
    }
}

TEST(NodeLayout, EqualByContentAndHash) {
  const NodeLayout a = NodeLayout::blocks(8, 4);
  const std::vector<int> names{5, 5, 5, 5, 1, 1, 1, 1};
  const NodeLayout b(names);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a, NodeLayout::cyclic(8, 2));
  EXPECT_NE(a, NodeLayout());
  EXPECT_FALSE(NodeLayout().known());
  EXPECT_EQ(NodeLayout().nodes(), 1);
}

TEST(NodeLayout, RefusesEmptyLayoutsAndRanksOutside) {
  EXPECT_THROW(NodeLayout::blocks(0, 4), Error);
  EXPECT_THROW(NodeLayout::blocks(4, 0), Error);
  EXPECT_THROW(NodeLayout::cyclic(4, 0), Error);
  const NodeLayout l = NodeLayout::blocks(4, 2);
  EXPECT_THROW(static_cast<void>(l.node_of(4)), Error);
  EXPECT_THROW(static_cast<void>(l.members(2)), Error);
}

// The override wins over the layout; a layout of another size counts as none.
TEST(NodeLayout, NodesOfAProblem) {
  Problem p{.ranks = 8, .layout = NodeLayout::cyclic(8, 2)};
  EXPECT_EQ(nodes_of(p), NodeLayout::cyclic(8, 2));
  p.parameters.node_size = 4;
  EXPECT_EQ(nodes_of(p), NodeLayout::blocks(8, 4));
  p.parameters.node_size.reset();
  p.layout = NodeLayout::cyclic(6, 2);
  EXPECT_EQ(nodes_of(p).nodes(), 1);
}

}  // namespace
}  // namespace herald

namespace herald {
namespace {

// node_counts() answers what nodes_of() would, without building the layout: the override, a known layout,
// a layout of other ranks (ignored) and none.
TEST(NodeCounts, AgreeWithTheLayoutNodesOfBuilds) {
  for (int ranks : {1, 2, 7, 16, 33})
    for (std::optional<int> node_size : {std::optional<int>{}, std::optional(1), std::optional(3), std::optional(8), std::optional(40)})
      for (int layout : {0, 1, 2, 3}) {
        Problem p{.ranks = ranks, .root = 0, .bytes = 1000, .parameters = {.node_size = node_size}};
        if (layout == 1) p.layout = NodeLayout::blocks(ranks, 4);
        if (layout == 2) p.layout = NodeLayout::cyclic(ranks, 3);
        if (layout == 3) p.layout = NodeLayout::blocks(ranks + 1, 2);
        const NodeLayout built = nodes_of(p);
        const NodeCounts counted = node_counts(p);
        EXPECT_EQ(counted.nodes, built.nodes()) << ranks << " ranks, node size " << node_size.value_or(0) << ", layout " << layout;
        EXPECT_EQ(counted.largest, built.largest_node()) << ranks << " ranks, node size " << node_size.value_or(0) << ", layout " << layout;
      }
}

}  // namespace
}  // namespace herald
