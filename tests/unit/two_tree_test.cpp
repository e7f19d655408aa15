// two_tree: the trees are read back from the schedule (segment s travels in tree s mod 2) and checked for
// the properties of Sanders, Speck and Traff's two-tree broadcast.
#include <herald/algorithms.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <set>
#include <vector>

namespace herald {
namespace {

constexpr std::size_t segment = 100;

Schedule two_tree(int P, int root, std::size_t bytes, std::size_t seg = segment) {
  return make_schedule(find_algorithm("two_tree"), {.ranks = P, .root = root, .bytes = bytes, .parameters = {.segment = seg}});
}

// What the schedule says about each tree.
struct Trees {
  std::vector<std::array<std::set<int>, 2>> senders;    // per rank and tree: who sent it that tree's segments
  std::vector<std::array<std::set<int>, 2>> children;   // per rank and tree: whom it sent them to
  std::vector<std::array<std::size_t, 2>> sent;         // per rank and tree: segments sent
  std::vector<std::vector<int>> received;               // per rank: times each segment arrived
};

Trees read_trees(const Schedule& s) {
  const int P = s.problem.ranks;
  const std::size_t seg = s.problem.parameters.segment.value();
  const std::size_t count = (s.problem.bytes + seg - 1) / seg;
  Trees t{std::vector<std::array<std::set<int>, 2>>(P), std::vector<std::array<std::set<int>, 2>>(P),
          std::vector<std::array<std::size_t, 2>>(P, {0, 0}), std::vector<std::vector<int>>(P, std::vector<int>(count))};
  for (int r = 0; r < P; ++r)
    for (const Step& step : s.programs[r]) {
      const std::size_t index = step.range.offset / seg;
      const int tree = static_cast<int>(index % 2);
      if (step.op == Step::Op::recv) {
        t.senders[r][tree].insert(step.peer);
        ++t.received[r][index];
      } else {
        t.children[r][tree].insert(step.peer);
        ++t.sent[r][tree];
      }
    }
  return t;
}

TEST(TwoTree, EveryRankIsInteriorInAtMostOneTree) {
  for (int P = 2; P <= 80; ++P)
    for (int root = 0; root < P; root += (P <= 20 ? 1 : P / 3)) {
      const Trees t = read_trees(two_tree(P, root, 11 * segment - 37));  // 11 segments, the last one short
      for (int r = 0; r < P; ++r) {
        if (r == root) continue;
        const bool forwards0 = !t.children[r][0].empty(), forwards1 = !t.children[r][1].empty();
        EXPECT_FALSE(forwards0 && forwards1) << "P=" << P << " root=" << root << " rank " << r;
        for (int tree = 0; tree < 2; ++tree) {
          EXPECT_LE(t.children[r][tree].size(), 2u) << "binary: P=" << P << " rank " << r;
          EXPECT_EQ(t.senders[r][tree].size(), 1u) << "one parent per tree: P=" << P << " rank " << r;
        }
        for (int times : t.received[r]) EXPECT_EQ(times, 1) << "P=" << P << " rank " << r;
      }
    }
}

// The root feeds both trees: even segments to one top, odd ones to the other (the same rank when P = 2).
TEST(TwoTree, RootSendsHalfTheSegmentsIntoEachTree) {
  for (int P = 2; P <= 40; ++P)
    for (int root : {0, P / 2, P - 1}) {
      const std::size_t S = 9;
      const Trees t = read_trees(two_tree(P, root, S * segment));
      EXPECT_EQ(t.sent[root][0], 5u) << "P=" << P;
      EXPECT_EQ(t.sent[root][1], 4u) << "P=" << P;
      ASSERT_EQ(t.children[root][0].size(), 1u);
      ASSERT_EQ(t.children[root][1].size(), 1u);
      if (P >= 3) {
        EXPECT_NE(*t.children[root][0].begin(), *t.children[root][1].begin()) << "P=" << P;
      }
      EXPECT_TRUE(t.senders[root][0].empty() && t.senders[root][1].empty());
    }
}

// Both trees span all ranks from the root, without cycles, and are shallow: a binary tree on P-1 ranks has
// ceil(log2 P) levels at best; the parity rule costs at most one more.
TEST(TwoTree, TreesSpanAllRanksAndAreShallow) {
  for (int P = 2; P <= 300; ++P) {
    const int root = P - 1;
    const Trees t = read_trees(two_tree(P, root, 2 * segment));
    int levels = 0;
    while ((1 << levels) < P) ++levels;
    for (int tree = 0; tree < 2; ++tree)
      for (int r = 0; r < P; ++r) {
        if (r == root) continue;
        int depth = 0;
        for (int x = r; x != root && depth <= P; ++depth) x = *t.senders[x][tree].begin();
        EXPECT_LE(depth, levels + 1) << "P=" << P << " tree " << tree << " rank " << r;
      }
  }
}

// Full bandwidth: no rank sends more segments than it receives, plus one; a single binary tree would make
// interior ranks send every segment twice.
TEST(TwoTree, NoRankSendsMoreThanItReceivesPlusOne) {
  for (int P : {3, 4, 7, 8, 15, 16, 33, 100}) {
    const std::size_t S = 20;
    const Trees t = read_trees(two_tree(P, 1, S * segment - 1));
    for (int r = 0; r < P; ++r) EXPECT_LE(t.sent[r][0] + t.sent[r][1], S + 1) << "P=" << P << " rank " << r;
  }
}

TEST(TwoTree, EachSegmentCrossesPMinusOneEdges) {
  for (int P = 1; P <= 64; ++P)
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{99}, std::size_t{100}, std::size_t{1234}}) {
      const Simulation sim = simulate(two_tree(P, P / 2, n));
      ASSERT_TRUE(sim.delivered) << "P=" << P << " n=" << n << ": " << sim.problem;
      const std::size_t S = (n + segment - 1) / segment;
      EXPECT_EQ(sim.messages, (P - 1) * S) << "P=" << P << " n=" << n;
      EXPECT_EQ(sim.bytes, (P - 1) * n);
      EXPECT_EQ(sim.redundant_bytes, 0u);
    }
}

TEST(TwoTree, DefaultSegmentIs64KiB) {
  const std::size_t n = 5 * 65536 + 1;
  const Schedule s = make_schedule(find_algorithm("two_tree"), {.ranks = 6, .root = 2, .bytes = n});
  EXPECT_EQ(s.problem.parameters.segment, 65536u);
  EXPECT_EQ(simulate(s).messages, 5u * 6u);
}

}  // namespace
}  // namespace herald
