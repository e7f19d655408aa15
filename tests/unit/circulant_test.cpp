// The circulant broadcast's schedules: each rank's part alone, then the whole broadcast in the simulator,
// which proves delivery (no send ahead of its bytes, no deadlock) for every P up to 1024.
#include "../../src/coll/algorithms/circulant.hpp"

#include <herald/algorithms.hpp>
#include <herald/selector.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace herald {
namespace {

using detail::Circulant;

int ceil_log2(int ranks) {
  int q = 0;
  while ((1 << q) < ranks) ++q;
  return q;
}

TEST(Circulant, SkipsHalveFromPDownToOne) {
  for (int P = 2; P <= 4096; ++P) {
    const Circulant g(P);
    ASSERT_EQ(g.phase(), ceil_log2(P)) << P;
    EXPECT_EQ(g.skip(0), 1) << P;
    EXPECT_EQ(g.skip(g.phase()), P) << P;
    for (int k = 0; k < g.phase(); ++k) EXPECT_EQ(g.skip(k), (g.skip(k + 1) + 1) / 2) << P << " k=" << k;
  }
}

// Every phase a rank receives q blocks, one of each residue mod q: its baseblock in the phase the root sends
// it, the others from the phase before. Exhaustive up to 4096 ranks.
TEST(Circulant, EachPhaseBringsEveryRankOneBlockOfEachResidue) {
  for (int P = 2; P <= 4096; ++P) {
    const Circulant g(P);
    const int q = g.phase();
    for (int r = 1; r < P; ++r) {
      const std::vector<int> s = g.receive_schedule(r);
      ASSERT_EQ(static_cast<int>(s.size()), q) << P << " rank " << r;
      std::vector<int> residues;
      for (int block : s) {
        ASSERT_GE(block, -q) << P << " rank " << r;
        ASSERT_LT(block, q) << P << " rank " << r;
        ASSERT_TRUE(block < 0 || block == g.baseblock(r)) << P << " rank " << r;
        residues.push_back((block + q) % q);
      }
      std::ranges::sort(residues);
      for (int k = 0; k < q; ++k) ASSERT_EQ(residues[static_cast<std::size_t>(k)], k) << P << " rank " << r;
    }
  }
}

// The root sends block k in round k to rank s_k: that rank's baseblock is k.
TEST(Circulant, TheRootsDestinationsStartWithTheRoundsBlock) {
  for (int P = 2; P <= 4096; ++P) {
    const Circulant g(P);
    for (int k = 0; k < g.phase(); ++k) {
      EXPECT_EQ(g.baseblock(g.skip(k)), k) << P;
      EXPECT_EQ(g.receive_schedule(g.skip(k))[static_cast<std::size_t>(k)], k) << P;
    }
  }
}

TEST(Circulant, EveryRankReceivesEveryBlockOnce) {
  for (int P = 2; P <= 200; ++P) {
    const Circulant g(P);
    for (int blocks : {1, 2, 3, 7, 8, 9, 30}) {
      for (int r = 1; r < P; ++r) {
        std::vector<int> got = g.received_blocks(r, blocks);
        ASSERT_EQ(static_cast<int>(got.size()), blocks - 1 + g.phase());
        std::erase(got, -1);
        std::ranges::sort(got);
        ASSERT_EQ(static_cast<int>(got.size()), blocks) << P << " rank " << r << " blocks " << blocks;
        for (int b = 0; b < blocks; ++b) ASSERT_EQ(got[static_cast<std::size_t>(b)], b);
      }
    }
  }
}

Simulation run(int P, int root, int blocks, std::size_t segment) {
  const Problem p{.ranks = P, .root = root, .bytes = static_cast<std::size_t>(blocks) * segment - 1,
                  .parameters = {.segment = segment}};
  return simulate(make_schedule(find_algorithm("circulant"), p));
}

// n blocks in n - 1 + ceil(log2 P) rounds, the least a one-ported broadcast can take, for every P up to
// 1024: the simulator checks every send has its bytes and every rank gets every byte.
TEST(Circulant, DeliversInTheLeastRoundsForEveryRankCountUpTo1024) {
  for (int P = 2; P <= 1024; ++P)
    for (int blocks : {1, 3, ceil_log2(P) + 1}) {
      const Simulation sim = run(P, 0, blocks, 64);
      ASSERT_TRUE(sim.delivered) << "P=" << P << " blocks=" << blocks << ": " << sim.problem;
      EXPECT_EQ(sim.rounds, static_cast<std::size_t>(blocks - 1 + ceil_log2(P))) << "P=" << P << " blocks=" << blocks;
      // Each rank receives each byte once.
      EXPECT_EQ(sim.redundant_bytes, 0u) << "P=" << P;
    }
}

TEST(Circulant, EveryRootAndManyBlocks) {
  for (int P : {2, 3, 5, 7, 12, 16, 17, 33, 100})
    for (int root = 0; root < P; ++root)
      for (int blocks : {2, 10, 41}) {
        const Simulation sim = run(P, root, blocks, 100);
        ASSERT_TRUE(sim.delivered) << "P=" << P << " root=" << root << ": " << sim.problem;
        EXPECT_EQ(sim.rounds, static_cast<std::size_t>(blocks - 1 + ceil_log2(P)));
      }
}

// The model's segment count lies where the simulated time is least, among the counts around it, on both
// networks: on the fair-sharing one only because the receives are posted in order (without, 1.5-1.9 times
// the rounds' time at P = 33 and 200).
TEST(Circulant, TheModelsSegmentIsTheSimulatorsBestWithinTenPercent) {
  const AlgorithmInfo& a = find_algorithm("circulant");
  for (const CostModel& model : {CostModel{.alpha = 1e-6, .beta = 8e-10},
                                 CostModel{.alpha = 1e-6, .beta = 8e-10, .network = Network::fair_sharing}})
  for (int P : {8, 16, 33, 200})
    for (std::size_t bytes : {std::size_t{16} << 10, std::size_t{256} << 10, std::size_t{4} << 20}) {
      Problem p{.ranks = P, .root = 0, .bytes = bytes};
      const std::size_t model_segment = a.best_segment(p, model);
      p.parameters.segment = model_segment;
      const double chosen = simulate(make_schedule(a, p), model).predicted_seconds;
      double best = chosen;
      // Four times fewer to four times more segments.
      for (std::size_t segment = std::max<std::size_t>(1, model_segment / 4); segment <= 4 * model_segment;
           segment *= 2) {
        p.parameters.segment = segment;
        best = std::min(best, simulate(make_schedule(a, p), model).predicted_seconds);
      }
      EXPECT_LE(chosen, 1.1 * best) << "P=" << P << " bytes=" << bytes;
      // And it reaches the pipelined optimum within 5%: (sqrt(n beta) + sqrt((q - 1) alpha))^2.
      const double q = ceil_log2(P);
      const double optimum = std::pow(std::sqrt(bytes * model.beta) + std::sqrt((q - 1) * model.alpha), 2);
      EXPECT_LE(chosen, 1.05 * optimum) << "P=" << P << " bytes=" << bytes;
    }
}

TEST(Circulant, AutoOffersIt) {
  // Between the sizes, among many ranks on a network, the model ranks it first, at its own segment count.
  const CostModel model{.alpha = 1e-6, .beta = 8e-10};
  const Problem p{.ranks = 64, .root = 0, .bytes = 64 << 10};
  const Choice c = choose_algorithm(p, model);
  EXPECT_EQ(c.algorithm->name, "circulant");
  EXPECT_EQ(c.parameters.segment, c.algorithm->best_segment(p, model));
  // As the stage among 16 node leaders, at the segment its model gives among 16 ranks (below the 16 KiB
  // the search starts at).
  const CostModel nodes{.alpha = 2e-6, .beta = 8e-10, .network = Network::fair_sharing, .overhead = 4e-8,
                        .eager_bytes = 65535, .node_alpha = 2e-7, .node_beta = 1e-11};
  const Choice staged = choose_algorithm({.ranks = 64, .root = 0, .bytes = 256 << 10, .parameters = {.node_size = 4}}, nodes);
  EXPECT_TRUE(staged.algorithm->reads_leaders) << staged.algorithm->name;
  EXPECT_EQ(staged.parameters.leaders, LeaderStage::circulant);
  EXPECT_EQ(staged.parameters.segment,
            find_algorithm("circulant").best_segment({.ranks = 16, .root = 0, .bytes = 256 << 10}, nodes));
  EXPECT_LT(*staged.parameters.segment, std::size_t{16} << 10);
}

}  // namespace
}  // namespace herald

namespace herald {
namespace {

// As the stage among node leaders, the node-aware algorithms' leaders post their receives in order too: at
// one rank a node the broadcast is circulant's own, and with more it beats the other stages.
TEST(Circulant, AsTheStageAmongNodeLeaders) {
  // 10 Gbit/s between nodes, shared memory within.
  const CostModel model{.alpha = 1e-6, .beta = 8e-10, .network = Network::fair_sharing, .node_alpha = 4e-7,
                        .node_beta = 1e-10};
  const std::size_t bytes = 1 << 20;
  const std::size_t segment = find_algorithm("circulant").best_segment({.ranks = 16, .bytes = bytes}, model);
  auto seconds = [&](const AlgorithmInfo& a, Problem p) {
    const Schedule s = make_schedule(a, p);
    EXPECT_EQ(s.ordered_receives, receives_in_order(a, p));
    const Simulation sim = simulate(s, model);
    EXPECT_TRUE(sim.delivered) << a.name << ": " << sim.problem;
    return sim.predicted_seconds;
  };
  const double alone = seconds(find_algorithm("circulant"),
                               {.ranks = 16, .root = 0, .bytes = bytes, .parameters = {.segment = segment}});
  for (const char* name : {"node_pipeline", "node_shared"}) {
    const AlgorithmInfo& a = find_algorithm(name);
    Problem p{.ranks = 16, .root = 0, .bytes = bytes,
              .parameters = {.segment = segment, .node_size = 1, .leaders = LeaderStage::circulant}};
    EXPECT_TRUE(receives_in_order(a, p)) << name;
    EXPECT_NEAR(seconds(a, p), alone, 0.01 * alone) << name;
    p.ranks = 64;
    p.root = 5;
    p.parameters.node_size = 4;
    const double circulant = seconds(a, p);
    for (LeaderStage other : {LeaderStage::chain, LeaderStage::two_tree, LeaderStage::binomial}) {
      p.parameters.leaders = other;
      EXPECT_FALSE(receives_in_order(a, p)) << name;
      EXPECT_LT(circulant, seconds(a, p)) << name << " against " << leader_stage_name(other);
    }
  }
}

}  // namespace
}  // namespace herald
