// chain: `fanout` pipelined chains leaving the root, segmented.
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

Simulation run(int P, std::size_t bytes, std::optional<std::size_t> segment, int fanout, int root = 0) {
  return simulate(make_schedule(find_algorithm("chain"), {.ranks = P,
                                                          .root = root,
                                                          .bytes = bytes,
                                                          .parameters = {.segment = segment, .fanout = fanout}}));
}

TEST(Chain, DefaultsToOneChainOf64KiBSegments) {
  const Problem p = with_defaults(find_algorithm("chain"), {.ranks = 4});
  EXPECT_EQ(p.parameters.fanout, 1);
  EXPECT_EQ(p.parameters.segment, std::size_t{64} * 1024);
}

TEST(Chain, OneChainFollowsTheRanksFromTheRoot) {
  const std::vector<Shape> tree = shapes("chain", 6, 2, {.fanout = 1});
  const std::vector<Shape> expected{{5, {1}}, {0, {}}, {-1, {3}}, {2, {4}}, {3, {5}}, {4, {0}}};
  EXPECT_EQ(tree, expected);
}

// Seven ranks below the root in two chains: the longer one first (1-2-3-4), then 5-6-7.
TEST(Chain, TwoChainsSplitTheRanksLongestFirst) {
  const std::vector<Shape> tree = shapes("chain", 8, 0, {.fanout = 2});
  const std::vector<Shape> expected{{-1, {1, 5}}, {0, {2}}, {1, {3}}, {2, {4}},
                                    {3, {}},      {0, {6}}, {5, {7}}, {6, {}}};
  EXPECT_EQ(tree, expected);
}

// One chain, m segments: the last rank gets segment k at round (P - 1) + k, so P - 1 + m - 1 rounds.
TEST(Chain, OneChainPipelines) {
  for (int P = 2; P <= 40; ++P)
    for (std::size_t m : {1u, 2u, 5u, 13u}) {
      const Simulation sim = run(P, 10 * m, 10, 1, P / 2);
      ASSERT_TRUE(sim.delivered) << sim.problem;
      EXPECT_EQ(sim.rounds, static_cast<std::size_t>(P - 1) + m - 1) << "P=" << P << " m=" << m;
      EXPECT_EQ(sim.messages, static_cast<std::size_t>(P - 1) * m);
    }
}

// f chains, lengths L_0 >= L_1 >= ..., m segments: the root sends segment k to chain j at round k f + j + 1,
// and it moves one rank per round down the chain, so the end of chain j has it at k f + j + L_j.
std::size_t chain_rounds(int P, int f, std::size_t m) {
  const int others = P - 1;
  f = std::min(f, others);
  std::size_t worst = 0;
  for (int j = 0; j < f; ++j) {
    const int length = others / f + (j < others % f ? 1 : 0);
    worst = std::max(worst, (m - 1) * f + j + length);
  }
  return worst;
}

TEST(Chain, FanOutChangesRounds) {
  // By hand, P = 9 unsegmented: one chain of 8 -> 8 rounds; two of 4 -> 5; three (3, 3, 2) -> 4;
  // eight of 1 (the root sends to everyone) -> 8.
  EXPECT_EQ(run(9, 64, std::nullopt, 1).rounds, 8u);
  EXPECT_EQ(run(9, 64, std::nullopt, 2).rounds, 5u);
  EXPECT_EQ(run(9, 64, std::nullopt, 3).rounds, 4u);
  EXPECT_EQ(run(9, 64, std::nullopt, 8).rounds, 8u);
  for (int P = 2; P <= 30; ++P)
    for (int f : {1, 2, 3, 5, 40})
      for (std::size_t m : {1u, 4u}) {
        const Simulation sim = run(P, 3 * m, 3, f, P - 1);
        ASSERT_TRUE(sim.delivered) << sim.problem;
        EXPECT_EQ(sim.rounds, chain_rounds(P, f, m)) << "P=" << P << " f=" << f << " m=" << m;
      }
}

// More chains than ranks below the root is the same as one rank per chain.
TEST(Chain, FanOutBeyondTheRanksIsClamped) {
  const AlgorithmInfo& a = find_algorithm("chain");
  const Schedule wide = make_schedule(a, {.ranks = 6, .root = 1, .bytes = 100, .parameters = {.fanout = 1000}});
  const Schedule exact = make_schedule(a, {.ranks = 6, .root = 1, .bytes = 100, .parameters = {.fanout = 5}});
  EXPECT_EQ(wide.programs, exact.programs);
}

TEST(Chain, NegativeFanOutIsRefused) {
  try {
    make_schedule(find_algorithm("chain"), {.ranks = 4, .root = 0, .bytes = 8, .parameters = {.fanout = -2}});
    FAIL() << "fan-out -2 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("fan-out -2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace herald
