// What auto runs where no tuning-file cell speaks: on one node sharing memory, MPI_Bcast below the size rule
// and a node-memory algorithm from there; elsewhere the cost model's choice.
#include <herald/algorithms.hpp>
#include <herald/selector.hpp>

#include <gtest/gtest.h>

namespace herald {
namespace {

const CostModel models[] = {{.alpha = 1e-6, .beta = 1e-10},
                            {.alpha = 1.25e-7, .beta = 8.55e-11},  // one node, as herald-bcast-bench calibrates it
                            {.alpha = 2e-6, .beta = 8e-11, .network = Network::fair_sharing, .overhead = 4e-8,
                             .eager_bytes = 65536}};

TEST(Unmeasured, OneNodeKeepsNativeBelowTheRuleThenNodeMemory) {
  for (const CostModel& model : models)
    for (int ranks : {2, 3, 4, 8, 17})
      for (std::size_t below : {std::size_t{0}, std::size_t{512}, std::size_t{4096}})
        for (std::size_t bytes : {std::size_t{1}, std::size_t{64}, std::size_t{511}, std::size_t{512}, std::size_t{4096},
                                  std::size_t{1} << 20}) {
          const Problem p{.ranks = ranks, .root = ranks / 2, .bytes = bytes, .layout = NodeLayout::blocks(ranks, ranks),
                          .node_memory = true};
          const std::optional<Choice> c = choose_unmeasured(p, model, below);
          const bool one_message = ranks == 2 && bytes >= two_ranks_native_from;
          EXPECT_EQ(keeps_native_one_message(p), one_message);
          EXPECT_EQ(keeps_native(p, below), bytes < below || one_message);
          EXPECT_EQ(c.has_value(), !keeps_native(p, below));  // nothing exactly where auto keeps MPI_Bcast
          if (bytes < below || one_message) {
            EXPECT_FALSE(c) << ranks << " ranks, " << bytes << " bytes";
          } else {
            ASSERT_TRUE(c) << ranks << " ranks, " << bytes << " bytes";
            EXPECT_TRUE(c->algorithm->node_memory) << c->algorithm->name << ": messages do not beat the MPI's own";
            EXPECT_EQ(c->parameters.segment, c->algorithm->defaults.segment) << "no segment search on one node";
          }
        }
}

// Unset, the rule is the measured one: MPI_Bcast below 512 B at 2 ranks on the node, below 256 B above;
// 0 turns it off.
TEST(Unmeasured, DefaultRuleFollowsTheNodesRanks) {
  EXPECT_EQ(default_native_below(2), 512u);
  for (int ranks : {3, 4, 8, 64}) EXPECT_EQ(default_native_below(ranks), 256u);
  for (int ranks : {2, 3, 4, 8})
    for (std::size_t bytes = 1; bytes <= 1024; bytes *= 2) {
      const Problem p{.ranks = ranks, .root = 0, .bytes = bytes, .layout = NodeLayout::blocks(ranks, ranks),
                      .node_memory = true};
      EXPECT_EQ(keeps_native(p, std::nullopt), bytes < (ranks == 2 ? 512u : 256u)) << ranks << " ranks, " << bytes;
      EXPECT_FALSE(keeps_native(p, 0));
      EXPECT_EQ(choose_unmeasured(p, models[0], std::nullopt).has_value(), !keeps_native(p, std::nullopt));
    }
}

// Two ranks on one node: one message, MPI_Bcast's from two_ranks_native_from whatever the short-call rule;
// three ranks or more, or two across nodes, keep node memory or the model there.
TEST(Unmeasured, TwoRanksOnOneNodeKeepNativeForLongCalls) {
  for (std::size_t bytes : {two_ranks_native_from - 1, two_ranks_native_from, std::size_t{1} << 24}) {
    const bool long_call = bytes >= two_ranks_native_from;
    const Problem two{.ranks = 2, .root = 1, .bytes = bytes, .layout = NodeLayout::blocks(2, 2), .node_memory = true};
    for (std::optional<std::size_t> below : {std::optional<std::size_t>{}, std::optional<std::size_t>{0}}) {
      EXPECT_EQ(keeps_native(two, below), long_call) << bytes;
      EXPECT_EQ(choose_unmeasured(two, models[0], below).has_value(), !long_call) << bytes;
    }
    const Problem three{.ranks = 3, .root = 0, .bytes = bytes, .layout = NodeLayout::blocks(3, 3), .node_memory = true};
    const Problem apart{.ranks = 2, .root = 0, .bytes = bytes, .layout = NodeLayout::blocks(2, 1), .node_memory = true};
    const Problem no_memory{.ranks = 2, .root = 0, .bytes = bytes, .layout = NodeLayout::blocks(2, 2)};
    for (const Problem& p : {three, apart, no_memory}) {
      EXPECT_FALSE(keeps_native_one_message(p)) << p.ranks << " ranks, " << bytes;
      EXPECT_FALSE(keeps_native(p, std::nullopt)) << p.ranks << " ranks, " << bytes;
    }
  }
}

// A segment the caller gives is kept.
TEST(Unmeasured, OneNodeKeepsTheCallersSegment) {
  const Problem p{.ranks = 4, .root = 0, .bytes = 1 << 20, .parameters = {.segment = 16384},
                  .layout = NodeLayout::blocks(4, 4), .node_memory = true};
  const std::optional<Choice> c = choose_unmeasured(p, models[0], 512);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->parameters.segment, 16384u);
}

// Without node memory, or across nodes, the rule does not apply: the cost model's choice, at every size.
TEST(Unmeasured, ElsewhereTheCostModelChooses) {
  for (const CostModel& model : models)
    for (std::size_t bytes : {std::size_t{1}, std::size_t{64}, std::size_t{65536}}) {
      const Problem one_node_no_memory{.ranks = 4, .root = 0, .bytes = bytes, .layout = NodeLayout::blocks(4, 4)};
      const Problem across{.ranks = 8, .root = 0, .bytes = bytes, .layout = NodeLayout::blocks(8, 4), .node_memory = true};
      for (const Problem& p : {one_node_no_memory, across}) {
        EXPECT_FALSE(keeps_native(p, 512));
        const std::optional<Choice> c = choose_unmeasured(p, model, 512);
        ASSERT_TRUE(c);
        EXPECT_EQ(c->algorithm, choose_algorithm(p, model).algorithm);
        EXPECT_EQ(c->parameters, choose_algorithm(p, model).parameters);
      }
    }
  // One rank moves nothing: no rule either.
  EXPECT_FALSE(keeps_native({.ranks = 1, .bytes = 8, .layout = NodeLayout::blocks(1, 1), .node_memory = true}, 512));
}

}  // namespace
}  // namespace herald
