// balanced_binomial (Cordeiro and Zola's sBBT): Open MPI's binomial tree, blocking, unsegmented, any root.
#include "tree_shape.hpp"

#include <herald/algorithms.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

namespace herald {
namespace {

using testing::Shape;
using testing::shapes;

TEST(BalancedBinomial, IsBlockingAndReadsNoParameter) {
  const AlgorithmInfo& a = find_algorithm("balanced_binomial");
  EXPECT_TRUE(a.blocking);
  EXPECT_FALSE(a.reads_segment);
  EXPECT_FALSE(a.reads_fanout);
  EXPECT_FALSE(a.reads_radix);
}

// The complete tree of 8 ranks: parent = rank with its highest set bit cleared, children served smallest
// added power of two first (the largest sub-tree first).
TEST(BalancedBinomial, CompleteTreeOfEightRanks) {
  const std::vector<Shape> expected{{-1, {1, 2, 4}}, {0, {3, 5}}, {0, {6}}, {1, {7}},
                                    {0, {}},         {1, {}},     {2, {}},  {3, {}}};
  EXPECT_EQ(shapes("balanced_binomial", 8), expected);
}

// For P = 6 the sub-trees under the root's children hold 3, 1 and 1 ranks; `binomial` (lowest set bit
// cleared) splits the same ranks 2, 2, 1: same depth, different tree.
TEST(BalancedBinomial, IncompleteTreeDiffersFromBinomial) {
  const std::vector<Shape> expected{{-1, {1, 2, 4}}, {0, {3, 5}}, {0, {}}, {1, {}}, {0, {}}, {1, {}}};
  EXPECT_EQ(shapes("balanced_binomial", 6), expected);
  const std::vector<Shape> binomial{{-1, {4, 2, 1}}, {0, {}}, {0, {3}}, {2, {}}, {0, {5}}, {4, {}}};
  EXPECT_EQ(shapes("binomial", 6), binomial);
}

// Logical ranks are physical ranks shifted by the root: virtual v is real (v + root) mod P.
TEST(BalancedBinomial, AnyRootThroughVirtualRanks) {
  const std::vector<Shape> tree = shapes("balanced_binomial", 6, 3);
  EXPECT_EQ(tree[3], (Shape{-1, {4, 5, 1}}));
  EXPECT_EQ(tree[4], (Shape{3, {0, 2}}));  // virtual 1 serves virtual 3 and 5
  EXPECT_EQ(tree[0], (Shape{4, {}}));
  EXPECT_EQ(tree[1], (Shape{3, {}}));
}

// Receive the whole message once, then send it whole to each child: what blocking MPI_Recv / MPI_Send run.
// A segment size, if given, is ignored.
TEST(BalancedBinomial, ReceivesWholeThenSendsWholeEvenWhenASegmentIsGiven) {
  const std::size_t n = 1000;
  const Schedule s = make_schedule(find_algorithm("balanced_binomial"),
                                   {.ranks = 13, .root = 5, .bytes = n, .parameters = {.segment = 100}});
  for (int r = 0; r < 13; ++r) {
    const Program& program = s.programs[r];
    for (std::size_t i = 0; i < program.size(); ++i) {
      EXPECT_EQ(program[i].range, (ByteRange{0, n})) << "rank " << r;
      const bool receives_first = r != 5 && i == 0;
      EXPECT_EQ(program[i].op, receives_first ? Step::Op::recv : Step::Op::send) << "rank " << r << " step " << i;
    }
    if (r != 5) {
      EXPECT_FALSE(program.empty());
    }
  }
}

// Virtual rank v hears the message after floor(log2 v) + 1 rounds, so the last one after ceil(log2 P);
// one message per rank below the root, the whole message each time.
TEST(BalancedBinomial, CeilLog2RoundsAndOneMessagePerRank) {
  for (int P = 1; P <= 200; ++P)
    for (int root : {0, P / 2, P - 1}) {
      const std::size_t n = 777;
      const Simulation sim = simulate(make_schedule(find_algorithm("balanced_binomial"),
                                                    {.ranks = P, .root = root, .bytes = n}));
      ASSERT_TRUE(sim.delivered) << sim.problem;
      std::size_t log2 = 0;
      while ((std::size_t{1} << log2) < static_cast<std::size_t>(P)) ++log2;
      ASSERT_EQ(sim.rounds, log2) << "P=" << P;
      ASSERT_EQ(sim.messages, static_cast<std::size_t>(P - 1)) << "P=" << P;
      ASSERT_EQ(sim.bytes, n * (P - 1)) << "P=" << P;
    }
}

}  // namespace
}  // namespace herald
