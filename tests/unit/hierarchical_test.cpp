// hierarchical: delivery for every shape of nodes, exactly nodes - 1 messages between nodes, the root leading
// its node, binomial where there is one node, and auto taking it only where the node's links are faster.
#include <herald/algorithms.hpp>
#include <herald/selector.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace herald {
namespace {

// node_size 0: no override (one node).
Schedule hierarchical(int ranks, int root, int node_size, std::size_t bytes, std::optional<std::size_t> segment = {}) {
  return make_schedule(find_algorithm("hierarchical"),
                       {.ranks = ranks, .root = root, .bytes = bytes,
                        .parameters = {.segment = segment,
                                       .node_size = node_size > 0 ? std::optional(node_size) : std::nullopt}});
}

TEST(Hierarchical, DeliversForEveryShapeOfNodes) {
  for (int ranks = 1; ranks <= 23; ++ranks)
    for (int node_size : {0, 1, 2, 3, 4, 7, 16, 40})
      for (int root : {0, ranks / 2, ranks - 1})
        for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{70000}})
          for (const std::optional<std::size_t> segment : {std::optional<std::size_t>{}, std::optional<std::size_t>{4096}}) {
            const Simulation sim = simulate(hierarchical(ranks, root, node_size, bytes, segment));
            EXPECT_TRUE(sim.delivered) << ranks << " ranks, " << node_size << " per node, root " << root << ", "
                                       << bytes << " bytes, segment " << segment.value_or(0) << ": " << sim.problem;
          }
}

TEST(Hierarchical, CrossesBetweenNodesOnlyOncePerNode) {
  for (int ranks : {5, 12, 17, 64})
    for (int node_size : {2, 4, 5, 16})
      for (int root : {0, 3, ranks - 1}) {
        const Schedule s = hierarchical(ranks, root, node_size, 1000);
        const int nodes = (ranks + node_size - 1) / node_size;
        int between = 0, received = 0;
        for (int r = 0; r < ranks; ++r)
          for (const Step& step : s.programs[static_cast<std::size_t>(r)]) {
            if (step.op != Step::Op::send) {
              ++received;
              continue;
            }
            if (step.peer / node_size != r / node_size) ++between;
          }
        EXPECT_EQ(between, nodes - 1) << ranks << " ranks, " << node_size << " per node, root " << root;
        EXPECT_EQ(received, ranks - 1);
        // The root leads its node: its first sends go to other nodes' leaders (when there are other nodes).
        const Program& at_root = s.programs[static_cast<std::size_t>(root)];
        if (nodes > 1) {
          ASSERT_FALSE(at_root.empty());
          EXPECT_NE(at_root.front().peer / node_size, root / node_size);
        }
      }
}

TEST(Hierarchical, OneNodeIsTheBinomialTree) {
  for (int ranks : {1, 2, 7, 16})
    for (int node_size : {0, ranks, ranks + 5}) {
      const Problem p{.ranks = ranks, .root = ranks / 3, .bytes = 4096,
                      .parameters = {.node_size = node_size > 0 ? std::optional(node_size) : std::nullopt}};
      const Schedule h = make_schedule(find_algorithm("hierarchical"), p);
      const Schedule b = make_schedule(find_algorithm("binomial"), p);
      EXPECT_EQ(h.programs, b.programs) << ranks << " ranks, node size " << node_size;
    }
}

TEST(Hierarchical, AutoTakesItWhereTheNodesLinksAreFaster) {
  // 64 ranks, 16 per node, 1 KiB: 2 network hops and 4 node-local ones against a flat tree's 6 network hops.
  const Problem p{.ranks = 64, .root = 0, .bytes = 1024, .parameters = {.node_size = 16}};
  const CostModel network{.alpha = 5e-6, .beta = 1e-9};
  CostModel two_levels = network;
  two_levels.node_alpha = 3e-7;
  two_levels.node_beta = 1e-10;
  EXPECT_EQ(choose_algorithm(p, two_levels).algorithm->name, "hierarchical");
  const double flat = find_algorithm("binomial").cost(with_defaults(find_algorithm("binomial"), p), two_levels);
  EXPECT_LT(choose_algorithm(p, two_levels).seconds, 0.6 * flat);
  // With one model for every link it is a binomial tree at best: it never wins.
  EXPECT_NE(choose_algorithm(p, network).algorithm->name, "hierarchical");
}

}  // namespace
}  // namespace herald
