// binary: complete binary tree filled level by level, segmented.
#include "tree_shape.hpp"

#include <herald/algorithms.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

namespace herald {
namespace {

using testing::Shape;
using testing::shapes;

Simulation run(int P, std::size_t bytes, std::optional<std::size_t> segment, int root = 0) {
  return simulate(make_schedule(find_algorithm("binary"),
                                {.ranks = P, .root = root, .bytes = bytes, .parameters = {.segment = segment}}));
}

TEST(Binary, SegmentsByDefaultAt64KiB) {
  const AlgorithmInfo& a = find_algorithm("binary");
  EXPECT_TRUE(a.reads_segment);
  EXPECT_FALSE(a.blocking);
  EXPECT_EQ(with_defaults(a, {.ranks = 4}).parameters.segment, std::size_t{64} * 1024);
}

// Level L holds ranks 2^L - 1 .. 2^(L+1) - 2; a rank on level L has children rank + 2^L and rank + 2^(L+1).
TEST(Binary, TreeOfTwelveRanks) {
  const std::vector<Shape> expected{{-1, {1, 2}}, {0, {3, 5}}, {0, {4, 6}}, {1, {7, 11}}, {2, {8}}, {1, {9}},
                                    {2, {10}},    {3, {}},     {4, {}},     {5, {}},      {6, {}},  {3, {}}};
  EXPECT_EQ(shapes("binary", 12), expected);
}

TEST(Binary, RootIsShiftedToVirtualZero) {
  const std::vector<Shape> tree = shapes("binary", 5, 4);
  EXPECT_EQ(tree[4], (Shape{-1, {0, 1}}));
  EXPECT_EQ(tree[0], (Shape{4, {2}}));
  EXPECT_EQ(tree[1], (Shape{4, {3}}));
}

// A complete binary tree of P nodes is floor(log2 P) levels deep, and nobody has more than two children.
TEST(Binary, DepthIsFloorLog2) {
  for (int P = 1; P <= 200; ++P) {
    const std::vector<Shape> tree = shapes("binary", P, P / 3);
    int floor_log2 = 0;
    while ((2 << floor_log2) <= P) ++floor_log2;
    ASSERT_EQ(testing::depth(tree), floor_log2) << "P=" << P;
    for (const Shape& node : tree) ASSERT_LE(node.children.size(), 2u);
  }
}

// A first child hears one round after its parent, a second child two. By hand, unsegmented:
// P=2: 1; P=3: 2 (0->2 second); P=4: 2 (0->1->3); P=5: 3 (0->2->4 is 2+1); P=7: 4 (0->2->6 is 2+2);
// P=15: 6 (0->2->6->14).
TEST(Binary, UnsegmentedRoundsByHand) {
  const std::vector<std::pair<int, std::size_t>> cases{{1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {7, 4}, {15, 6}};
  for (auto [P, rounds] : cases) {
    const Simulation sim = run(P, 100, std::nullopt, P - 1);
    ASSERT_TRUE(sim.delivered) << sim.problem;
    EXPECT_EQ(sim.rounds, rounds) << "P=" << P;
    EXPECT_EQ(sim.messages, static_cast<std::size_t>(P - 1)) << "P=" << P;
  }
}

// Pipelined: a rank with two children sends every segment twice, so each further segment adds two rounds
// (one at P = 2, where the root has a single child).
TEST(Binary, EachSegmentAddsTwoRounds) {
  for (std::size_t m : {1u, 2u, 5u, 9u}) {
    const Simulation seven = run(7, 100 * m, 100);
    EXPECT_EQ(seven.rounds, 4 + 2 * (m - 1)) << "m=" << m;
    EXPECT_EQ(seven.messages, 6 * m);
    const Simulation two = run(2, 100 * m, 100);
    EXPECT_EQ(two.rounds, m) << "m=" << m;
  }
}

}  // namespace
}  // namespace herald
