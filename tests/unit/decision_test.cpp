// decide(), auto's one decision, against its rule stated directly: nothing moves; else the tuning file's
// cell (native, or its algorithm under the caller's parameters, then the cell's, then the defaults); else
// MPI_Bcast on one shared node below the size rule; else the cheapest node-memory algorithm on one shared
// node; else the cost model's cheapest with the link loads. Over a grid of shapes, layouts and models.
#include <herald/algorithms.hpp>
#include <herald/decision.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace herald {
namespace {

const CostModel models[] = {{.alpha = 1e-6, .beta = 1e-10},
                            {.alpha = 2.5e-5, .beta = 8.5e-10, .network = Network::fair_sharing, .overhead = 2e-6,
                             .eager_bytes = 65536, .node_alpha = 4e-7, .node_beta = 1e-10}};

std::vector<Problem> problems() {
  std::vector<Problem> all;
  for (int ranks : {2, 3, 8, 12})
    for (int root : {0, ranks - 1})
      for (std::size_t bytes : {std::size_t{1}, std::size_t{300}, std::size_t{65536}, std::size_t{3} << 20}) {
        all.push_back({.ranks = ranks, .root = root, .bytes = bytes});
        all.push_back({.ranks = ranks, .root = root, .bytes = bytes, .layout = NodeLayout::blocks(ranks, ranks),
                       .node_memory = true});
        if (ranks % 2 == 0) {
          all.push_back({.ranks = ranks, .root = root, .bytes = bytes, .layout = NodeLayout::blocks(ranks, 2)});
          all.push_back({.ranks = ranks, .root = root, .bytes = bytes, .layout = NodeLayout::cyclic(ranks, 2),
                         .node_memory = true});
        }
      }
  return all;
}

bool shared_node(const Problem& p) { return p.node_memory && node_counts(p).nodes == 1; }

// Where auto keeps MPI_Bcast on one node, node memory is the runner-up a trial measures against it, and no
// algorithm is ranked twice.
TEST(Decide, NativeOnOneNodeRanksNodeMemoryFirst) {
  for (const CostModel& model : models)
    for (const Problem& p : problems()) {
      if (!keeps_native(p, std::nullopt)) continue;
      const Decision d = decide({.problem = p, .model = model, .rank_alternatives = true});
      SCOPED_TRACE(std::to_string(p.ranks) + " ranks, " + std::to_string(p.bytes) + " bytes");
      ASSERT_TRUE(d.native);
      ASSERT_FALSE(d.alternatives.empty());
      EXPECT_TRUE(d.alternatives.front().algorithm->node_memory);
      EXPECT_EQ(d.alternatives.size(), rank_algorithms(p, model).size());
    }
}

TEST(Decide, WithoutACellFollowsTheRule) {
  for (const CostModel& model : models)
    for (const Problem& p : problems()) {
      LinkLoads loads;
      const Decision d = decide({.problem = p, .model = model, .loads = &loads});
      SCOPED_TRACE(std::to_string(p.ranks) + " ranks, root " + std::to_string(p.root) + ", " +
                   std::to_string(p.bytes) + " bytes, " + std::to_string(node_counts(p).nodes) + " nodes");
      if (keeps_native(p, std::nullopt)) {
        EXPECT_TRUE(d.native);
        EXPECT_EQ(d.because, keeps_native_one_message(p) ? Because::one_message : Because::one_node_short);
        continue;
      }
      ASSERT_FALSE(d.native);
      const Choice expected = *choose_unmeasured(p, model, std::nullopt);
      EXPECT_EQ(d.choice.algorithm, expected.algorithm);
      EXPECT_EQ(d.choice.parameters, expected.parameters);
      EXPECT_EQ(d.choice.seconds, expected.seconds);
      if (shared_node(p)) {
        EXPECT_EQ(d.because, Because::node_memory);
        EXPECT_TRUE(d.choice.algorithm->node_memory);
        continue;
      }
      EXPECT_EQ(d.because, Because::cost_model);
      // The runners-up: every other algorithm, as the model ranked them, without the choice.
      const std::vector<Choice> ranked = rank_algorithms(p, model);
      ASSERT_EQ(d.alternatives.size(), ranked.size() - 1);
      EXPECT_TRUE(std::ranges::is_sorted(d.alternatives, {}, &Choice::seconds));
      EXPECT_TRUE(std::ranges::none_of(d.alternatives, [&](const Choice& c) { return c.algorithm == d.choice.algorithm; }));
      for (const Choice& c : d.alternatives) EXPECT_GE(c.seconds, d.choice.seconds);
    }
}

TEST(Decide, ACellWinsAndTheCallersParametersWinOverIts) {
  const TuningCell native{.ranks = 4, .bytes = 1000, .algorithm = "native", .seconds = 1e-6};
  const TuningCell chain{.ranks = 4, .bytes = 1000, .algorithm = "chain", .parameters = {.segment = 256}, .seconds = 2e-6};
  for (const CostModel& model : models)
    for (const Problem& p : problems()) {
      Decision d = decide({.problem = p, .model = model, .cell = &native});
      EXPECT_TRUE(d.native);
      EXPECT_EQ(d.because, Because::tuning_file);
      EXPECT_TRUE(d.alternatives.empty());  // not asked for
      d = decide({.problem = p, .model = model, .cell = &chain, .rank_alternatives = true});
      ASSERT_FALSE(d.native);
      EXPECT_EQ(d.choice.algorithm->name, "chain");
      EXPECT_EQ(d.choice.parameters, with_defaults(find_algorithm("chain"), {.ranks = p.ranks, .root = p.root,
                                                                             .bytes = p.bytes,
                                                                             .parameters = {.segment = 256}})
                                         .parameters);
      EXPECT_EQ(d.choice.seconds, 2e-6);
      EXPECT_EQ(d.alternatives.size(), algorithms().size() - 1);
      Problem given = p;
      given.parameters.segment = 128;
      EXPECT_EQ(decide({.problem = given, .model = model, .cell = &chain}).choice.parameters.segment, 128u);
    }
}

TEST(Decide, NothingMovesAndBadProblems) {
  for (const Problem& p : {Problem{.ranks = 1, .root = 0, .bytes = 100}, Problem{.ranks = 6, .root = 5, .bytes = 0}}) {
    const Decision d = decide({.problem = p, .model = models[0]});
    EXPECT_EQ(d.because, Because::nothing_moves);
    EXPECT_FALSE(d.native);
    EXPECT_EQ(d.choice.seconds, 0);
    EXPECT_NE(describe({.problem = p, .model = models[0]}, d, false).find("nothing moves"), std::string::npos);
  }
  EXPECT_THROW(decide({.problem = {.ranks = 4, .root = 4, .bytes = 100}, .model = models[0]}), Error);
  const TuningCell unknown{.ranks = 4, .bytes = 100, .algorithm = "binomal"};
  EXPECT_THROW(decide({.problem = {.ranks = 4, .root = 0, .bytes = 100}, .model = models[0], .cell = &unknown}), Error);
}

TEST(Decide, DescribeNamesWhatRunsAndItsRoot) {
  const AutoQuestion q{.problem = {.ranks = 8, .root = 3, .bytes = 65536}, .model = models[0]};
  const Decision d = decide(q);
  const std::string line = describe(q, d, false);
  const std::string expected = "herald auto: 8 ranks, 65536 bytes, root 3: " + std::string(d.choice.algorithm->name);
  EXPECT_EQ(line.rfind(expected, 0), 0u) << line;
  EXPECT_NE(line.find("; then " + std::string(d.alternatives.front().algorithm->name)), std::string::npos) << line;
  AutoQuestion at_zero = q;
  at_zero.problem.root = 0;
  EXPECT_EQ(describe(at_zero, decide(at_zero), false).find("root"), std::string::npos);
}

}  // namespace
}  // namespace herald
