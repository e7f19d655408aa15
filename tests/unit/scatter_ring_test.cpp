// scatter_ring: the binomial scatter followed by MPICH's enclosed ring, checked against the counts of Zhou et
// al., "A Bandwidth-saving Optimization for MPI Broadcast Collective Operation" (Section III, Figure 3) and
// against facts that follow from the algorithm's definition.
#include <herald/algorithms.hpp>
#include <herald/dataflow.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include <cstddef>

namespace herald {
namespace {

Schedule ring(int P, int root, std::size_t bytes) {
  return make_schedule(find_algorithm("scatter_ring"), {.ranks = P, .root = root, .bytes = bytes});
}

int ceil_log2(int P) {
  int k = 0;
  while ((1 << k) < P) ++k;
  return k;
}

// The paper's enclosed ring makes P(P-1) transfers: 56 at P = 8 and 90 at P = 10. With no empty chunk the
// binomial scatter adds one message per non-root rank.
TEST(ScatterRing, TransferCountsOfTheSeedFigures) {
  EXPECT_EQ(simulate(ring(8, 0, 8 * 1000)).messages, 56u + 7u);
  EXPECT_EQ(simulate(ring(10, 0, 10 * 1000)).messages, 90u + 9u);
  EXPECT_EQ(simulate(ring(10, 7, 10 * 1000 + 3)).messages, 90u + 9u);  // any root, a short last chunk
}

TEST(ScatterRing, MessagesAreScatterPlusEnclosedRing) {
  for (int P = 1; P <= 64; ++P)
    for (int root : {0, P / 2, P - 1}) {
      const Simulation sim = simulate(ring(P, root, 3 * static_cast<std::size_t>(P)));
      ASSERT_TRUE(sim.delivered) << "P=" << P << ": " << sim.problem;
      EXPECT_EQ(sim.messages, static_cast<std::size_t>((P - 1) + P * (P - 1))) << "P=" << P << " root=" << root;
    }
}

// Every rank, the root included, receives P-1 ring chunks; those it already had are marked redundant. The
// root has everything, so all its receives are redundant; a leaf of the scatter tree (odd virtual rank) has
// only its own chunk, so none of its receives is.
TEST(ScatterRing, EveryRankReceivesPMinusOneRingChunks) {
  for (int P = 2; P <= 33; ++P)
    for (int root = 0; root < P; ++root) {
      const Schedule s = ring(P, root, 5 * static_cast<std::size_t>(P));
      for (int r = 0; r < P; ++r) {
        const Program& program = s.programs[r];
        const Dataflow flow(program, r == root, s.problem.bytes, r);
        int receives = 0, redundant = 0;
        for (std::size_t i = 0; i < program.size(); ++i)
          if (program[i].op == Step::Op::recv) {
            ++receives;
            redundant += flow.redundant(i) ? 1 : 0;
          }
        const int v = (r - root + P) % P;
        EXPECT_EQ(receives, v == 0 ? P - 1 : P) << "P=" << P << " root=" << root << " rank=" << r;
        if (v == 0) {
          EXPECT_EQ(redundant, P - 1);
        } else if (v % 2 == 1) {
          EXPECT_EQ(redundant, 0);
        }
      }
    }
}

// For P = 2^K and n = P c: the binomial scatter moves K P/2 chunks (each of the K rounds halves what the
// senders hold), the ring P(P-1) chunks; a broadcast needs only (P-1) n, the rest is redundant.
TEST(ScatterRing, BytesOnTheWire) {
  const std::size_t c = 1000;
  for (int K = 1; K <= 7; ++K) {
    const int P = 1 << K;
    const Simulation sim = simulate(ring(P, P - 1, P * c));
    ASSERT_TRUE(sim.delivered) << sim.problem;
    EXPECT_EQ(sim.bytes, (static_cast<std::size_t>(K) * P / 2 + static_cast<std::size_t>(P) * (P - 1)) * c);
    EXPECT_EQ(sim.redundant_bytes, sim.bytes - (P - 1) * P * c);
    EXPECT_GT(sim.redundant_bytes, 0u);
  }
  // P = 8: 12 redundant chunks, the 12 transfers the tuned ring saves.
  EXPECT_EQ(simulate(ring(8, 0, 8 * c)).redundant_bytes, 12 * c);
}

TEST(ScatterRing, RoundsAreScatterThenPMinusOneRingSteps) {
  for (int P = 1; P <= 64; ++P) {
    const Simulation sim = simulate(ring(P, P / 3, 64 * static_cast<std::size_t>(P)));
    EXPECT_EQ(sim.rounds, static_cast<std::size_t>(ceil_log2(P) + P - 1)) << "P=" << P;
  }
}

// One byte: only chunk 0 is non-empty, so the scatter sends nothing and the byte walks the ring once.
// Empty chunks still travel, as messages without data, so that the messages do not depend on the count.
TEST(ScatterRing, EmptyChunksAreMessagesWithoutData) {
  for (int P = 1; P <= 40; ++P) {
    const Simulation one = simulate(ring(P, P - 1, 1));
    ASSERT_TRUE(one.delivered) << one.problem;
    EXPECT_EQ(one.messages, simulate(ring(P, P - 1, 1000 * P)).messages);
    EXPECT_EQ(one.bytes, static_cast<std::size_t>(P - 1));
  }
}

}  // namespace
}  // namespace herald
