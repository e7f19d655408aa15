// knomial: k-nomial tree with a radix, optionally segmented.
#include "tree_shape.hpp"

#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace herald {
namespace {

using testing::Shape;
using testing::shapes;

Simulation run(int P, int radix, std::size_t bytes, std::optional<std::size_t> segment = {}, int root = 0) {
  return simulate(make_schedule(find_algorithm("knomial"), {.ranks = P,
                                                            .root = root,
                                                            .bytes = bytes,
                                                            .parameters = {.segment = segment, .radix = radix}}));
}

TEST(Knomial, DefaultsToRadixFourUnsegmented) {
  const Problem p = with_defaults(find_algorithm("knomial"), {.ranks = 4});
  EXPECT_EQ(p.parameters.radix, 4);
  EXPECT_EQ(p.parameters.segment, std::nullopt);
}

// Ten ranks (the usual textbook example): a rank's parent clears its lowest non-zero base-k digit; the
// children set each lower digit, highest digit first.
TEST(Knomial, TreesOfTenRanks) {
  const std::vector<Shape> radix4{{-1, {4, 8, 1, 2, 3}}, {0, {}}, {0, {}}, {0, {}}, {0, {5, 6, 7}},
                                  {4, {}},               {4, {}}, {4, {}}, {0, {9}}, {8, {}}};
  EXPECT_EQ(shapes("knomial", 10, 0, {.radix = 4}), radix4);
  const std::vector<Shape> radix3{{-1, {9, 3, 6, 1, 2}}, {0, {}}, {0, {}}, {0, {4, 5}}, {3, {}},
                                  {3, {}},               {0, {7, 8}}, {6, {}}, {6, {}}, {0, {}}};
  EXPECT_EQ(shapes("knomial", 10, 0, {.radix = 3}), radix3);
  const std::vector<Shape> radix2{{-1, {8, 4, 2, 1}}, {0, {}}, {0, {3}}, {2, {}}, {0, {6, 5}},
                                  {4, {}},            {4, {7}}, {6, {}}, {0, {9}}, {8, {}}};
  EXPECT_EQ(shapes("knomial", 10, 0, {.radix = 2}), radix2);
}

TEST(Knomial, RadixTwoIsTheBinomialTree) {
  for (int P = 1; P <= 64; ++P) {
    const Problem p{.ranks = P, .root = P / 2, .bytes = 1000, .parameters = {.segment = 300, .radix = 2}};
    EXPECT_EQ(make_schedule(find_algorithm("knomial"), p).programs,
              make_schedule(find_algorithm("binomial"), p).programs)
        << "P=" << P;
  }
}

TEST(Knomial, RadixAtLeastPIsTheRootSendingToEveryone) {
  const std::vector<Shape> tree = shapes("knomial", 5, 3, {.radix = 7});
  EXPECT_EQ(tree[3], (Shape{-1, {4, 0, 1, 2}}));
  for (int r : {0, 1, 2, 4}) EXPECT_EQ(tree[r], (Shape{3, {}}));
}

// A rank is as deep as it has non-zero base-k digits (each hop clears one), so the tree is as deep as the
// most such digits below P, and never deeper than ceil(log_k P).
TEST(Knomial, DepthCountsNonZeroDigits) {
  for (int k = 2; k <= 7; ++k)
    for (int P = 1; P <= 150; ++P) {
      int deepest = 0;
      for (int v = 0; v < P; ++v) {
        int digits = 0;
        for (int rest = v; rest > 0; rest /= k) digits += rest % k != 0;
        deepest = std::max(deepest, digits);
      }
      int levels = 0;
      for (long long reach = 1; reach < P; reach *= k) ++levels;
      const int depth = testing::depth(shapes("knomial", P, P - 1, {.radix = k}));
      ASSERT_EQ(depth, deepest) << "P=" << P << " k=" << k;
      ASSERT_LE(depth, levels) << "P=" << P << " k=" << k;
    }
}

// P = k^D: the rank whose every digit is k - 1 waits k - 1 sends at each of the D levels, so D (k - 1)
// rounds; one message per rank below the root.
TEST(Knomial, FullTreeRoundsAreLevelsTimesRadixMinusOne) {
  for (auto [k, D] : {std::pair{2, 5}, {3, 1}, {3, 2}, {3, 4}, {4, 3}, {5, 2}, {8, 2}}) {
    int P = 1;
    for (int i = 0; i < D; ++i) P *= k;
    const Simulation sim = run(P, k, 512);
    ASSERT_TRUE(sim.delivered) << sim.problem;
    EXPECT_EQ(sim.rounds, static_cast<std::size_t>(D * (k - 1))) << "k=" << k << " D=" << D;
    EXPECT_EQ(sim.messages, static_cast<std::size_t>(P - 1));
  }
}

TEST(Knomial, SegmentsWhenASegmentIsGiven) {
  const Simulation whole = run(16, 4, 1000);
  const Simulation pieces = run(16, 4, 1000, 100);
  ASSERT_TRUE(pieces.delivered) << pieces.problem;
  EXPECT_EQ(whole.messages, 15u);
  EXPECT_EQ(pieces.messages, 15u * 10);
}

TEST(Knomial, RadixOneAndNegativeRadixAreRefused) {
  for (int radix : {1, -3}) {
    try {
      run(8, radix, 64);
      FAIL() << "radix " << radix << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("radix " + std::to_string(radix)), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace herald
