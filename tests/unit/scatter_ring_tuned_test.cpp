// scatter_ring_tuned: the non-enclosed ring of Zhou et al., "A Bandwidth-saving Optimization for MPI Broadcast
// Collective Operation" (Figures 4 and 5): each rank receives exactly the chunks the scatter did not give it.
#include <herald/algorithms.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace herald {
namespace {

Simulation run(const char* name, int P, int root, std::size_t bytes) {
  return simulate(make_schedule(find_algorithm(name), {.ranks = P, .root = root, .bytes = bytes}));
}

// Figure 4: 44 ring transfers at P = 8; Figure 5: 75 at P = 10 (against 56 and 90 for the enclosed ring).
// The scatter adds P-1 messages to both when no chunk is empty.
TEST(ScatterRingTuned, TransferCountsOfTheSeedFigures) {
  for (int root : {0, 3}) {
    const Simulation tuned8 = run("scatter_ring_tuned", 8, root, 8 * 4096);
    const Simulation tuned10 = run("scatter_ring_tuned", 10, root, 10 * 4096 - 5);
    EXPECT_EQ(tuned8.messages, 44u + 7u);
    EXPECT_EQ(tuned10.messages, 75u + 9u);
    EXPECT_EQ(run("scatter_ring", 8, root, 8 * 4096).messages - tuned8.messages, 12u);
    EXPECT_EQ(run("scatter_ring", 10, root, 10 * 4096 - 5).messages - tuned10.messages, 15u);
  }
}

// Sub-tree sizes of the binomial scatter, counted from the tree itself: the parent of virtual rank u > 0 is
// u with its lowest set bit cleared.
std::vector<int> subtree_sizes(int P) {
  std::vector<int> size(P, 0);
  for (int u = 0; u < P; ++u)
    for (int a = u;; a &= a - 1) {  // u and each of its ancestors
      ++size[a];
      if (a == 0) break;
    }
  return size;
}

// A rank that holds its sub-tree's chunks lacks P - size of them, and receives exactly those.
TEST(ScatterRingTuned, RingTransfersAreTheChunksEachRankLacks) {
  for (int P = 1; P <= 130; ++P) {
    const std::vector<int> size = subtree_sizes(P);
    std::size_t lacking = 0;
    for (int u = 0; u < P; ++u) lacking += static_cast<std::size_t>(P - size[u]);
    const Simulation sim = run("scatter_ring_tuned", P, P / 2, 7 * static_cast<std::size_t>(P));
    ASSERT_TRUE(sim.delivered) << "P=" << P << ": " << sim.problem;
    EXPECT_EQ(sim.messages, lacking + (P - 1)) << "P=" << P;
  }
}

// No byte reaches a rank twice: (P-1) n bytes, the least any broadcast moves, for every shape.
TEST(ScatterRingTuned, EveryByteArrivesOnce) {
  for (int P = 1; P <= 70; ++P)
    for (int root : {0, 1 % P, P / 2, P - 1})
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t(P - 1), std::size_t(P), std::size_t(P + 1),
                            std::size_t{7919}}) {
        const Simulation sim = run("scatter_ring_tuned", P, root, n);
        ASSERT_TRUE(sim.delivered) << "P=" << P << " root=" << root << " n=" << n << ": " << sim.problem;
        EXPECT_EQ(sim.redundant_bytes, 0u);
        EXPECT_EQ(sim.bytes, (P - 1) * n) << "P=" << P << " root=" << root << " n=" << n;
      }
}

// The enclosed ring sends the same chunks plus the redundant ones: its surplus is exactly its redundancy.
TEST(ScatterRingTuned, SavesExactlyTheEnclosedRingsRedundantBytes) {
  for (int P : {2, 3, 8, 10, 17, 64, 129}) {
    const std::size_t n = 1000 * static_cast<std::size_t>(P) + 1;
    const Simulation tuned = run("scatter_ring_tuned", P, 0, n);
    const Simulation enclosed = run("scatter_ring", P, 0, n);
    EXPECT_GT(enclosed.redundant_bytes, 0u) << "P=" << P;
    EXPECT_EQ(enclosed.bytes - tuned.bytes, enclosed.redundant_bytes) << "P=" << P;
  }
}

// Skipping transfers keeps the ring's steps and their order, hence its critical path.
TEST(ScatterRingTuned, SameRoundsAsTheEnclosedRing) {
  for (int P = 1; P <= 64; ++P) {
    const std::size_t n = 100 * static_cast<std::size_t>(P);
    EXPECT_EQ(run("scatter_ring_tuned", P, P - 1, n).rounds, run("scatter_ring", P, P - 1, n).rounds) << "P=" << P;
  }
}

}  // namespace
}  // namespace herald
