// split_binary: one half down each sub-tree of the binary tree, then partners swap halves.
#include "tree_shape.hpp"

#include <herald/algorithms.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace herald {
namespace {

using Op = Step::Op;

Schedule make(int P, std::size_t bytes, std::optional<std::size_t> segment, int root = 0) {
  return make_schedule(find_algorithm("split_binary"),
                       {.ranks = P, .root = root, .bytes = bytes, .parameters = {.segment = segment}});
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

TEST(SplitBinary, OneRankDoesNothing) {
  const Schedule s = make(1, 1000, 10);
  ASSERT_EQ(s.programs.size(), 1u);
  EXPECT_TRUE(s.programs[0].empty());
}

// Two ranks: the root's one child gets both halves from the root (no partner, so the root supplies the
// missing half): two messages, two rounds.
TEST(SplitBinary, TwoRanks) {
  const Schedule s = make(2, 10, std::nullopt, 1);
  EXPECT_EQ(s.programs[1], (Program{{Op::send, 0, {0, 5}}, {Op::send, 0, {5, 5}}}));
  EXPECT_EQ(s.programs[0], (Program{{Op::recv, 1, {0, 5}}, {Op::recv, 1, {5, 5}}}));
  const Simulation sim = simulate(s);
  ASSERT_TRUE(sim.delivered) << sim.problem;
  EXPECT_EQ(sim.rounds, 2u);
}

// Three ranks: root -> 1 (first half, round 1), root -> 2 (second half, round 2), then 1 and 2 swap
// (round 3).
TEST(SplitBinary, ThreeRanksSwapHalves) {
  const Schedule s = make(3, 11, std::nullopt);
  EXPECT_EQ(s.programs[0], (Program{{Op::send, 1, {0, 6}}, {Op::send, 2, {6, 5}}}));
  EXPECT_EQ(s.programs[1], (Program{{Op::recv, 0, {0, 6}}, {Op::send, 2, {0, 6}}, {Op::recv, 2, {6, 5}}}));
  EXPECT_EQ(s.programs[2], (Program{{Op::recv, 0, {6, 5}}, {Op::send, 1, {6, 5}}, {Op::recv, 1, {0, 6}}}));
  const Simulation sim = simulate(s);
  ASSERT_TRUE(sim.delivered) << sim.problem;
  EXPECT_EQ(sim.rounds, 3u);
  EXPECT_EQ(sim.messages, 4u);
}

// Four ranks: binary tree 0 -> {1, 2}, 1 -> 3. Virtual 3 has no partner (4 does not exist); rank 2, which
// would be 4's parent, sends it the second half instead. 1 and 2 swap.
TEST(SplitBinary, FourRanksUnpairedRankGetsTheSecondHalfFromTheOtherSide) {
  const Schedule s = make(4, 10, std::nullopt);
  EXPECT_EQ(s.programs[0], (Program{{Op::send, 1, {0, 5}}, {Op::send, 2, {5, 5}}}));
  EXPECT_EQ(s.programs[1], (Program{{Op::recv, 0, {0, 5}}, {Op::send, 3, {0, 5}}, {Op::send, 2, {0, 5}},
                                    {Op::recv, 2, {5, 5}}}));
  EXPECT_EQ(s.programs[2], (Program{{Op::recv, 0, {5, 5}}, {Op::send, 3, {5, 5}}, {Op::send, 1, {5, 5}},
                                    {Op::recv, 1, {0, 5}}}));
  EXPECT_EQ(s.programs[3], (Program{{Op::recv, 1, {0, 5}}, {Op::recv, 2, {5, 5}}}));
  EXPECT_TRUE(simulate(s).delivered);
}

// Any root: the tree and the pairs live in virtual ranks (virtual v is real (v + root) mod P).
TEST(SplitBinary, RootThroughVirtualRanks) {
  const Schedule s = make(5, 8, std::nullopt, 2);
  EXPECT_EQ(s.programs[2], (Program{{Op::send, 3, {0, 4}}, {Op::send, 4, {4, 4}}}));
  // Virtual 3 and 4 (real 0 and 1) are partners, children of virtual 1 and 2 (real 3 and 4).
  EXPECT_EQ(s.programs[0], (Program{{Op::recv, 3, {0, 4}}, {Op::send, 1, {0, 4}}, {Op::recv, 1, {4, 4}}}));
  EXPECT_EQ(s.programs[1], (Program{{Op::recv, 4, {4, 4}}, {Op::send, 0, {4, 4}}, {Op::recv, 0, {0, 4}}}));
}

// The root sends each byte once (n in all, against 2n for `binary`), and every other rank gets one half
// from one peer and the other half from another: the sub-trees each carry half the message.
TEST(SplitBinary, EachSubTreeCarriesHalfTheMessage) {
  const std::size_t n = 1'000'001;
  for (int P = 3; P <= 40; ++P) {
    const Schedule s = make(P, n, 4096, P / 2);
    std::size_t root_sent = 0;
    for (const Step& step : s.programs[P / 2]) root_sent += step.op == Op::send ? step.range.length : 0;
    EXPECT_EQ(root_sent, n) << "P=" << P;
    for (int r = 0; r < P; ++r) {
      if (r == P / 2) continue;
      std::map<int, std::size_t> from;
      for (const Step& step : s.programs[r])
        if (step.op == Op::recv) from[step.peer] += step.range.length;
      ASSERT_EQ(from.size(), 2u) << "P=" << P << " rank " << r;
      std::multiset<std::size_t> amounts{from.begin()->second, from.rbegin()->second};
      EXPECT_EQ(amounts, (std::multiset<std::size_t>{n / 2, n - n / 2})) << "P=" << P << " rank " << r;
    }
  }
}

// Every rank below the root receives each segment of each half exactly once: (P-1)(m0 + m1) messages and
// (P-1) n bytes, m0 and m1 the segment counts of the halves, nothing redundant.
TEST(SplitBinary, EachSegmentReachesEachRankOnce) {
  for (int P = 1; P <= 64; ++P)
    for (std::size_t n : {0, 1, 2, 999, 1000, 4093, 65539})
      for (std::size_t seg : {0, 7, 1000}) {
        if (seg == 7 && n > 5000) continue;  // thousands of segments per rank add time, not coverage
        const Simulation sim = simulate(make(P, n, seg ? std::optional(seg) : std::nullopt, P - 1));
        ASSERT_TRUE(sim.delivered) << "P=" << P << " n=" << n << ": " << sim.problem;
        const std::size_t first = n - n / 2, second = n / 2;
        // Every half is at least one message (an empty half too, at n = 1), so the messages do not depend
        // on the count within a segment.
        auto in_half = [&](std::size_t half) { return seg ? std::max<std::size_t>(1, ceil_div(half, seg)) : 1; };
        const std::size_t m = n == 0 ? 0 : in_half(first) + in_half(second);
        EXPECT_EQ(sim.messages, (P - 1) * m) << "P=" << P << " n=" << n << " s=" << seg;
        EXPECT_EQ(sim.bytes, (P - 1) * n);
        EXPECT_EQ(sim.redundant_bytes, 0u);
      }
}

TEST(SplitBinary, SegmentsByDefaultAt64KiB) {
  EXPECT_EQ(with_defaults(find_algorithm("split_binary"), {.ranks = 4}).parameters.segment,
            std::size_t{64} * 1024);
}

}  // namespace
}  // namespace herald
