// scatter_rdb: binomial scatter, then a recursive-doubling allgather; for P not a power of two, ranks stand
// in for the missing members of the hypercube.
#include <herald/algorithms.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <vector>

namespace herald {
namespace {

Schedule rdb(int P, int root, std::size_t bytes) {
  return make_schedule(find_algorithm("scatter_rdb"), {.ranks = P, .root = root, .bytes = bytes});
}

// P = 2^K: log2 P rounds of scatter, then log2 P rounds of doubling.
TEST(ScatterRdb, PowerOfTwoRoundsAreScatterPlusAllgather) {
  for (int K = 0; K <= 8; ++K) {
    const int P = 1 << K;
    for (int root : {0, P / 2, P - 1}) {
      const Simulation sim = simulate(rdb(P, root, 16 * static_cast<std::size_t>(P)));
      ASSERT_TRUE(sim.delivered) << sim.problem;
      EXPECT_EQ(sim.rounds, static_cast<std::size_t>(K + K)) << "P=" << P << " root=" << root;
    }
  }
}

// P = 2^K, no empty chunk: the scatter sends P-1 messages; at doubling step k every rank receives the
// partner's block except the P / 2^(k+1) ranks aligned to 2^(k+1), which got that block in the scatter.
// Sum: (P-1) + K P - (P-1) = K P.
TEST(ScatterRdb, PowerOfTwoMessages) {
  for (int K = 0; K <= 8; ++K) {
    const int P = 1 << K;
    const Simulation sim = simulate(rdb(P, P - 1, 3 * static_cast<std::size_t>(P)));
    EXPECT_EQ(sim.messages, static_cast<std::size_t>(K * P)) << "P=" << P;
  }
}

// P = 2^K: the scatter tree's edges are hypercube edges too, so every message joins virtual ranks that
// differ in exactly one bit.
TEST(ScatterRdb, PowerOfTwoTalksOnlyAlongHypercubeEdges) {
  for (int P : {2, 4, 8, 32, 128})
    for (int root : {0, 5 % P, P - 1}) {
      const Schedule s = rdb(P, root, 1000 * static_cast<std::size_t>(P));
      for (int r = 0; r < P; ++r)
        for (const Step& step : s.programs[r]) {
          const unsigned a = static_cast<unsigned>((r - root + P) % P);
          const unsigned b = static_cast<unsigned>((step.peer - root + P) % P);
          EXPECT_EQ(std::popcount(a ^ b), 1) << "P=" << P << " rank " << r << " peer " << step.peer;
        }
    }
}

// Worked by hand. P = 3 (hypercube of 4, member 3 played by rank 1): scatter 0->2 {2}, 0->1 {1}; step 1:
// 0->1 {0}, 2->1 {2} (for member 3); step 2: 0->2 {0,1}. 5 messages.
// P = 5 (hypercube of 8, members 5, 6, 7 played by ranks 1, 2, 3): scatter 0->4, 0->2, 0->1, 2->3 (4);
// step 1: 0->1, 2->3, 4->1 (member 5) (3); step 2: 0->2, 1->3, 3->1, 4->2 (member 6), 1->3 (member 5 to
// member 7) (5); step 3: 0->4, the other pairs are local (1). 13 messages.
TEST(ScatterRdb, NonPowerOfTwoCountsWorkedByHand) {
  EXPECT_EQ(simulate(rdb(3, 0, 300)).messages, 5u);
  EXPECT_EQ(simulate(rdb(3, 2, 300)).messages, 5u);
  EXPECT_EQ(simulate(rdb(5, 0, 500)).messages, 13u);
  EXPECT_EQ(simulate(rdb(5, 4, 500)).messages, 13u);
}

// No rank ever receives a byte it has: (P-1) n bytes on the wire, whatever P, root and size.
TEST(ScatterRdb, EveryByteArrivesOnceForAnyP) {
  for (int P = 1; P <= 130; ++P)
    for (int root : {0, P - 1})
      for (std::size_t n : {std::size_t{1}, std::size_t(P - 1), std::size_t(P + 1), std::size_t{4093}}) {
        const Simulation sim = simulate(rdb(P, root, n));
        ASSERT_TRUE(sim.delivered) << "P=" << P << " root=" << root << " n=" << n << ": " << sim.problem;
        EXPECT_EQ(sim.redundant_bytes, 0u);
        EXPECT_EQ(sim.bytes, (P - 1) * n) << "P=" << P << " root=" << root << " n=" << n;
      }
}

// A stand-in plays at most two members, so no rank talks to more than its scatter neighbours (at most
// ceil(log2 P)) plus two partners per doubling step (ceil(log2 P) steps).
TEST(ScatterRdb, FewPartnersPerRank) {
  for (int P = 2; P <= 130; ++P) {
    const int K = std::bit_width(static_cast<unsigned>(P - 1));
    const Schedule s = rdb(P, P / 2, 10 * static_cast<std::size_t>(P));
    for (int r = 0; r < P; ++r) {
      std::vector<bool> peer(P, false);
      for (const Step& step : s.programs[r]) peer[step.peer] = true;
      EXPECT_LE(std::count(peer.begin(), peer.end(), true), 3 * K) << "P=" << P << " rank " << r;
    }
  }
}

}  // namespace
}  // namespace herald
