// node_pipeline and node_shared, with every stage among node leaders: delivery for every placement (blocks,
// cyclic, uneven nodes), every root and sizes from 0 to above 2 GiB; only leaders send between nodes, each
// byte entering each node once; on each leader a segment goes into the node once held and sent on, and
// before the last segment has come in; and "auto" prices every stage.
#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/selector.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include "node_layouts.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace herald {
namespace {

const AlgorithmInfo& algorithm() { return find_algorithm("node_pipeline"); }
const char* const node_aware[] = {"node_pipeline", "node_shared"};

TEST(NodePipeline, DeliversForEveryPlacementAndRoot) {
  // The default stage (chain) at every root up to 20 ranks; the others at a few roots, where the stage
  // among leaders is tested on its own (its file's tests) and the merge of the two stages is what is new.
  for (const char* name_of_algorithm : node_aware)
  for (LeaderStage stage : leader_stages())
  for (int ranks = 1; ranks <= 130; ranks += ranks < 20 ? 1 : 11)
    for (int k : {1, 2, 3, 4, 5, 8, 16, 33})
      for (const auto& [name, layout] : test_layouts(ranks, k))
        for (int root = 0; root < ranks;
             root += stage == LeaderStage::chain ? (ranks <= 20 ? 1 : ranks / 5) : std::max(1, ranks / 3))
          for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{5000}, std::size_t{70001}}) {
            const Problem p{.ranks = ranks, .root = root, .bytes = bytes,
                            .parameters = {.segment = 4096, .leaders = stage}, .layout = layout};
            const Simulation sim = simulate(make_schedule(find_algorithm(name_of_algorithm), p));
            ASSERT_TRUE(sim.delivered) << name_of_algorithm << " among leaders " << leader_stage_name(stage) << ": "
                                       << ranks << " ranks, " << name << " " << k << ", root " << root << ", "
                                       << bytes << " bytes: " << sim.problem;
            EXPECT_EQ(sim.bytes, bytes * (ranks - 1)) << "each rank receives each byte once";
          }
}

TEST(NodePipeline, DeliversAbove2GiB) {
  for (const char* name : node_aware)
    for (LeaderStage stage : leader_stages()) {
      const Problem p{.ranks = 9, .root = 3, .bytes = (std::size_t{1} << 31) + 4097,
                      .parameters = {.segment = std::size_t{1} << 30, .leaders = stage},
                      .layout = NodeLayout::cyclic(9, 4)};
      const Schedule s = make_schedule(find_algorithm(name), p);
      for (const Program& program : s.programs)
        for (const Step& step : program) ASSERT_LE(step.range.length, max_message_bytes);
      EXPECT_TRUE(simulate(s).delivered) << name << " among leaders " << leader_stage_name(stage);
    }
}

TEST(NodePipeline, OnlyLeadersCrossAndEachByteEntersEachNodeOnce) {
  for (const char* algorithm_name : node_aware)
  for (LeaderStage stage : leader_stages())
  for (int ranks : {2, 7, 16, 33})
    for (int k : {2, 4, 8})
      for (const auto& [name, layout] : test_layouts(ranks, k))
        for (int root : {0, ranks - 1}) {
          const std::size_t bytes = 10000;
          const Problem p{.ranks = ranks, .root = root, .bytes = bytes,
                          .parameters = {.segment = 1000, .leaders = stage}, .layout = layout};
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
                << algorithm_name << " among leaders " << leader_stage_name(stage) << " " << name << " " << ranks
                << "/" << k;
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

// A stage value herald does not know (a cast from a caller's int) is refused before any program is built.
TEST(NodePipeline, RefusesAnUnknownLeaderStage) {
  const Problem p{.ranks = 8, .root = 0, .bytes = 1000, .parameters = {.leaders = static_cast<LeaderStage>(42)},
                  .layout = NodeLayout::blocks(8, 2)};
  try {
    make_program(find_algorithm("node_pipeline"), p, 0);
    FAIL() << "leader stage 42 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("leader stage 42"), std::string::npos) << e.what();
  }
}

// Every leader, whatever the stage among leaders: each send into its node comes after every receive and
// every send on to another node of its bytes, and (where the stage pipelines) the first segment goes into
// the node before the last one has come in.
TEST(NodePipeline, EveryStageFeedsTheNodeAsSegmentsLand) {
  const NodeLayout layout = NodeLayout::blocks(64, 4);  // 16 nodes
  for (const char* name : node_aware)
    for (LeaderStage stage : leader_stages())
      for (int root : {0, 13}) {
        const Problem p{.ranks = 64, .root = root, .bytes = 64000,
                        .parameters = {.segment = 1000, .leaders = stage}, .layout = layout};
        for (int node = 0; node < layout.nodes(); ++node) {
          const int leader = node == layout.node_of(root) ? root : layout.members(node).front();
          const Program program = make_program(find_algorithm(name), p, leader);
          std::vector<bool> got(p.bytes, leader == root);
          std::vector<std::size_t> last_out(p.bytes, 0);  // one past the last send on to another node
          for (std::size_t i = 0; i < program.size(); ++i)
            if (layout.node_of(program[i].peer) != node && program[i].op == Step::Op::send)
              for (std::size_t b = program[i].range.offset; b < program[i].range.end(); ++b) last_out[b] = i + 1;
          std::size_t first_in = program.size(), last_recv = 0;
          for (std::size_t i = 0; i < program.size(); ++i) {
            const Step& step = program[i];
            if (layout.node_of(step.peer) != node) {
              if (step.op == Step::Op::recv) {
                for (std::size_t b = step.range.offset; b < step.range.end(); ++b) got[b] = true;
                last_recv = i;
              }
              continue;
            }
            ASSERT_EQ(step.op, Step::Op::send) << "a leader only sends within its node";
            first_in = std::min(first_in, i);
            for (std::size_t b = step.range.offset; b < step.range.end(); ++b) {
              ASSERT_TRUE(got[b]) << name << "/" << leader_stage_name(stage) << " leader " << leader
                                  << " sends byte " << b << " into its node before holding it";
              ASSERT_LE(last_out[b], i) << name << "/" << leader_stage_name(stage) << " leader " << leader
                                        << " sends byte " << b << " into its node before on to the others";
            }
          }
          if (stage != LeaderStage::scatter_ring_tuned && leader != root) {
            EXPECT_LT(first_in, last_recv) << name << "/" << leader_stage_name(stage) << " leader " << leader
                                           << ": the node waits for the whole message";
          }
        }
      }
}

// "auto" prices node_pipeline at every leader stage and segment and keeps the cheapest; on many nodes at a
// middle size a tree among leaders beats the chain's one hop per node.
TEST(NodePipeline, AutoPricesEveryLeaderStage) {
  const CostModel model{.alpha = 2e-6, .beta = 1e-10, .node_alpha = 3e-7, .node_beta = 2.5e-11};
  bool tree_chosen = false;
  for (int nodes : {4, 16, 64})
    for (std::size_t bytes : {std::size_t{65536}, std::size_t{1} << 20, std::size_t{1} << 24}) {
      const Problem p{.ranks = nodes * 8, .root = 0, .bytes = bytes, .layout = NodeLayout::blocks(nodes * 8, 8)};
      const std::vector<Choice> ranked = rank_algorithms(p, model);
      const auto it = std::ranges::find(ranked, std::string_view("node_pipeline"),
                                        [](const Choice& c) { return c.algorithm->name; });
      ASSERT_NE(it, ranked.end());
      const AlgorithmInfo& a = find_algorithm("node_pipeline");
      for (LeaderStage stage : leader_stages()) {
        Problem q = with_defaults(a, p);
        q.parameters.leaders = stage;
        EXPECT_LE(it->seconds, a.cost(q, model) * (1 + 1e-12)) << leader_stage_name(stage);
      }
      Problem chosen = with_defaults(a, p);
      chosen.parameters = it->parameters;
      EXPECT_DOUBLE_EQ(it->seconds, a.cost(chosen, model));
      tree_chosen |= it->parameters.leaders != LeaderStage::chain;
    }
  EXPECT_TRUE(tree_chosen) << "the chain among leaders won everywhere";
}

// Up to 16 nodes the stage among leaders is priced by simulating it (a long pipeline from a short one's fill
// and interval): with one rank a node, node_pipeline is that stage alone, and its price is the simulator's
// time for the stage's own schedule, within 5% (the short pipeline's interval is not yet quite the long one's).
TEST(NodePipeline, AStageAmongFewLeadersIsPricedAsItSimulates) {
  const CostModel model{.alpha = 2e-6, .beta = 8e-10, .network = Network::fair_sharing, .overhead = 5e-7,
                        .eager_bytes = 65535, .node_alpha = 4e-7, .node_beta = 1e-10};
  for (int nodes : {2, 3, 5, 8, 11, 16})
    for (LeaderStage stage : leader_stages())
      for (std::size_t bytes : {std::size_t{1000}, std::size_t{65536}, std::size_t{3} << 20})
        for (std::size_t segment : {std::size_t{16384}, std::size_t{65536}}) {
          Problem p{.ranks = nodes, .root = 0, .bytes = bytes, .layout = NodeLayout::blocks(nodes, 1)};
          p.parameters = {.segment = segment, .leaders = stage};
          const AlgorithmInfo& own = find_algorithm(leader_stage_name(stage));
          const Problem alone = with_defaults(own, {.ranks = nodes, .root = 0, .bytes = bytes, .parameters = {.segment = segment}});
          const double simulated = simulate(make_schedule(own, alone), model).predicted_seconds;
          EXPECT_NEAR(algorithm().cost(with_defaults(algorithm(), p), model) / simulated, 1.0, 0.05)
              << nodes << " nodes, " << leader_stage_name(stage) << ", " << bytes << " B, segment " << segment;
        }
}

// "auto" prices a stage among leaders once for both node-aware algorithms: across nodes each one's price is
// exactly that stage's plus its own part within the nodes.
TEST(NodePipeline, APriceIsTheLeaderStagesPlusWithinTheNodes) {
  const CostModel model{.alpha = 2e-6, .beta = 8e-10, .network = Network::fair_sharing, .overhead = 5e-7,
                        .eager_bytes = 65535, .node_alpha = 4e-7, .node_beta = 1e-10};
  for (const char* name : node_aware)
    for (int nodes : {2, 5, 16, 40})
      for (LeaderStage stage : leader_stages())
        for (std::size_t bytes : {std::size_t{1000}, std::size_t{1} << 20}) {
          const AlgorithmInfo& a = find_algorithm(name);
          ASSERT_NE(a.within_cost, nullptr) << name;
          Problem p{.ranks = nodes * 3, .root = 0, .bytes = bytes, .layout = NodeLayout::blocks(nodes * 3, 3)};
          p.parameters.leaders = stage;
          p = with_defaults(a, p);
          EXPECT_DOUBLE_EQ(a.cost(p, model), leader_stage_cost(p, model) + a.within_cost(p, model))
              << name << " " << nodes << " nodes, " << leader_stage_name(stage) << ", " << bytes << " B";
        }
}

}  // namespace
}  // namespace herald
