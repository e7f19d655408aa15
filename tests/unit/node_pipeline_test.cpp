// node_pipeline and node_shared: delivery for every placement (blocks, cyclic, uneven nodes), every root and sizes from 0 to
// above 2 GiB; only leaders send between nodes, each byte entering each node once; and on each leader,
// segment k is passed on within the node before segment k+1 is received.
#include <herald/algorithms.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include "node_layouts.hpp"

#include <string>
#include <vector>

namespace herald {
namespace {

const AlgorithmInfo& algorithm() { return find_algorithm("node_pipeline"); }
const char* const node_aware[] = {"node_pipeline", "node_shared"};

TEST(NodePipeline, DeliversForEveryPlacementAndRoot) {
  for (const char* name_of_algorithm : node_aware)
  for (int ranks = 1; ranks <= 130; ranks += ranks < 20 ? 1 : 11)
    for (int k : {1, 2, 3, 4, 5, 8, 16, 33})
      for (const auto& [name, layout] : test_layouts(ranks, k))
        for (int root = 0; root < ranks; root += ranks <= 20 ? 1 : ranks / 5)
          for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{5000}, std::size_t{70001}}) {
            const Problem p{.ranks = ranks, .root = root, .bytes = bytes, .parameters = {.segment = 4096},
                            .layout = layout};
            const Simulation sim = simulate(make_schedule(find_algorithm(name_of_algorithm), p));
            ASSERT_TRUE(sim.delivered) << name_of_algorithm << ": " << ranks << " ranks, " << name << " " << k
                                       << ", root " << root << ", " << bytes << " bytes: " << sim.problem;
            EXPECT_EQ(sim.bytes, bytes * (ranks - 1)) << "each rank receives each byte once";
          }
}

TEST(NodePipeline, DeliversAbove2GiB) {
  for (const char* name : node_aware) {
  const Problem p{.ranks = 5, .root = 3, .bytes = (std::size_t{1} << 31) + 4097,
                  .parameters = {.segment = std::size_t{1} << 30}, .layout = NodeLayout::cyclic(5, 2)};
  const Schedule s = make_schedule(find_algorithm(name), p);
  for (const Program& program : s.programs)
    for (const Step& step : program) ASSERT_LE(step.range.length, max_message_bytes);
  EXPECT_TRUE(simulate(s).delivered) << name;
  }
}

TEST(NodePipeline, OnlyLeadersCrossAndEachByteEntersEachNodeOnce) {
  for (const char* algorithm_name : node_aware)
  for (int ranks : {2, 7, 16, 33})
    for (int k : {2, 4, 8})
      for (const auto& [name, layout] : test_layouts(ranks, k))
        for (int root : {0, ranks - 1}) {
          const std::size_t bytes = 10000;
          const Problem p{.ranks = ranks, .root = root, .bytes = bytes, .parameters = {.segment = 1000},
                          .layout = layout};
          const Schedule s = make_schedule(find_algorithm(algorithm_name), p);
          std::vector<std::size_t> entered(static_cast<std::size_t>(layout.nodes()), 0);
          std::vector<bool> crosses(static_cast<std::size_t>(ranks), false);
          for (int r = 0; r < ranks; ++r)
            for (const Step& step : s.programs[r])
              if (layout.node_of(step.peer) != layout.node_of(r)) {
                if (step.op == Step::Op::recv) entered[layout.node_of(r)] += step.range.length;
                crosses[r] = true;
              }
          for (int n = 0; n < layout.nodes(); ++n) {
            EXPECT_EQ(entered[n], n == layout.node_of(root) ? 0 : bytes)
                << algorithm_name << " " << name << " " << ranks << "/" << k;
            int crossing = 0;
            for (int r : layout.members(n)) crossing += crosses[r];
            EXPECT_LE(crossing, 1) << "one rank a node sends or receives between nodes";
          }
        }
}

// A leader (not the root) receives segment k from the previous node, passes it to the next node and into
// its node, and only then receives segment k+1: the two stages overlap.
TEST(NodePipeline, LeadersPassEachSegmentOnBeforeTheNext) {
  const NodeLayout layout = NodeLayout::blocks(12, 4);
  const Problem p{.ranks = 12, .root = 0, .bytes = 8000, .parameters = {.segment = 1000}, .layout = layout};
  const Program leader = make_program(algorithm(), p, 4);
  ASSERT_EQ(leader.size(), 8u * 3);  // receive, to the next leader, into the node
  for (std::size_t k = 0; k < 8; ++k) {
    EXPECT_EQ(leader[3 * k].op, Step::Op::recv);
    EXPECT_EQ(leader[3 * k + 1].peer, 8) << "the next node's leader first";
    EXPECT_EQ(leader[3 * k + 2].peer, 5) << "then its own node";
    EXPECT_EQ(leader[3 * k + 2].range.offset, 1000 * k);
  }
}

}  // namespace
}  // namespace herald
