// The simulator must catch each kind of broken schedule, and price correct ones exactly.
#include <herald/dataflow.hpp>
#include <herald/error.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

namespace herald {
namespace {

using Op = Step::Op;

Schedule two_ranks(Program root, Program other, std::size_t bytes) {
  return {{.ranks = 2, .root = 0, .bytes = bytes}, {std::move(root), std::move(other)}};
}

TEST(Simulator, PricesOneMessage) {
  const Simulation sim = simulate(two_ranks({{Op::send, 1, {0, 100}}}, {{Op::recv, 0, {0, 100}}}, 100),
                                  {.alpha = 2e-6, .beta = 1e-9});
  ASSERT_TRUE(sim.delivered) << sim.problem;
  EXPECT_EQ(sim.messages, 1u);
  EXPECT_EQ(sim.bytes, 100u);
  EXPECT_EQ(sim.rounds, 1u);
  EXPECT_DOUBLE_EQ(sim.predicted_seconds, 2e-6 + 100e-9);
  EXPECT_DOUBLE_EQ(sim.lower_bound_seconds, 2e-6);
}

TEST(Simulator, AGapBelowAlphaLetsTheNextMessageStartEarly) {
  // A root sends 100 bytes to 4 ranks one after the other (alpha 1 us, beta 1 ns/byte). Hockney (gap =
  // alpha): each send holds the port 1.1 us, the last arrives at 4.4 us. With a gap of 0.2 us the sends
  // start 0.3 us apart and the last arrives at 3 * 0.3 + 1.1 = 2.0 us; a receiver's port is held as long.
  const Schedule linear{{.ranks = 5, .root = 0, .bytes = 100},
                        {{{Op::send, 1, {0, 100}}, {Op::send, 2, {0, 100}}, {Op::send, 3, {0, 100}},
                          {Op::send, 4, {0, 100}}},
                         {{Op::recv, 0, {0, 100}}},
                         {{Op::recv, 0, {0, 100}}},
                         {{Op::recv, 0, {0, 100}}},
                         {{Op::recv, 0, {0, 100}}}}};
  const CostModel hockney{.alpha = 1e-6, .beta = 1e-9};
  EXPECT_NEAR(simulate(linear, hockney).predicted_seconds, 4.4e-6, 1e-15);
  CostModel logp = hockney;
  logp.gap = 0.2e-6;
  EXPECT_NEAR(simulate(linear, logp).predicted_seconds, 2.0e-6, 1e-15);
  EXPECT_EQ(simulate(linear, logp).rounds, 4u);  // rounds keep counting hops one port at a time
  // A chain is bound by latency hop after hop: the gap does not shorten it.
  const Schedule chain{{.ranks = 3, .root = 0, .bytes = 100},
                       {{{Op::send, 1, {0, 100}}},
                        {{Op::recv, 0, {0, 100}}, {Op::send, 2, {0, 100}}},
                        {{Op::recv, 1, {0, 100}}}}};
  EXPECT_NEAR(simulate(chain, logp).predicted_seconds, 2.2e-6, 1e-15);
}

TEST(Simulator, MissingBytesAreNotDelivered) {
  const Simulation sim = simulate(two_ranks({{Op::send, 1, {0, 50}}}, {{Op::recv, 0, {0, 50}}}, 100));
  EXPECT_FALSE(sim.delivered);
  EXPECT_NE(sim.problem.find("50 of 100"), std::string::npos) << sim.problem;
}

TEST(Simulator, UnmatchedSendIsCaught) {
  const Simulation sim = simulate(two_ranks({{Op::send, 1, {0, 10}}}, {}, 10));
  EXPECT_FALSE(sim.delivered);
  EXPECT_NE(sim.problem.find("no matching receive"), std::string::npos) << sim.problem;
}

TEST(Simulator, MismatchedRangesAreCaught) {
  const Simulation sim = simulate(two_ranks({{Op::send, 1, {0, 10}}}, {{Op::recv, 0, {0, 9}}}, 10));
  EXPECT_FALSE(sim.delivered);
}

TEST(Simulator, SendBeforeHavingIsCaught) {
  // Rank 1 forwards to rank 2 before it has received anything.
  Schedule s{{.ranks = 3, .root = 0, .bytes = 8},
             {{{Op::send, 1, {0, 8}}}, {{Op::send, 2, {0, 8}}, {Op::recv, 0, {0, 8}}}, {{Op::recv, 1, {0, 8}}}}};
  const Simulation sim = simulate(s);
  EXPECT_FALSE(sim.delivered);
  EXPECT_NE(sim.problem.find("before it has"), std::string::npos) << sim.problem;
}

TEST(Simulator, CyclicWaitIsADeadlock) {
  // Ranks 1 and 2 each must first send the half only the other one brings.
  Schedule s{{.ranks = 3, .root = 0, .bytes = 8},
             {{{Op::send, 1, {0, 4}}, {Op::send, 2, {4, 4}}},
              {{Op::recv, 0, {0, 4}}, {Op::recv, 2, {4, 4}}, {Op::send, 2, {4, 4}}, {Op::send, 2, {0, 4}}},
              {{Op::recv, 0, {4, 4}}, {Op::recv, 1, {0, 4}}, {Op::send, 1, {0, 4}}, {Op::send, 1, {4, 4}}}}};
  // Rank 1 sends [4,4) back to 2 only after 2 sends it; 2 sends [0,4) to 1 only after 1 sends it.
  const Simulation sim = simulate(s);
  EXPECT_FALSE(sim.delivered);
}

TEST(Dataflow, SendWaitsForTheReceivesItCovers) {
  const Program p{{Op::recv, 0, {0, 4}}, {Op::recv, 0, {4, 4}}, {Op::send, 2, {2, 4}}, {Op::send, 3, {4, 4}}};
  const Dataflow flow(p, false, 8);
  EXPECT_EQ(std::vector<std::uint32_t>(flow.waits_for(2).begin(), flow.waits_for(2).end()),
            (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(std::vector<std::uint32_t>(flow.waits_for(3).begin(), flow.waits_for(3).end()),
            (std::vector<std::uint32_t>{1}));
}

TEST(Dataflow, RootWaitsForNothingAndRedundantReceivesUseScratch) {
  const Program p{{Op::send, 1, {0, 8}}, {Op::recv, 1, {0, 4}}};
  const Dataflow flow(p, true, 8);
  EXPECT_TRUE(flow.waits_for(0).empty());
  EXPECT_TRUE(flow.redundant(1));
  EXPECT_EQ(flow.scratch_bytes(), 4u);
}

TEST(Dataflow, RejectsOutOfBufferPartialOverlapAndEmptySteps) {
  EXPECT_THROW(Dataflow(Program{{Op::recv, 0, {4, 8}}}, false, 8), Error);
  EXPECT_THROW(Dataflow(Program{{Op::recv, 0, {0, 4}}, {Op::recv, 0, {2, 4}}}, false, 8), Error);
  EXPECT_THROW(Dataflow(Program{{Op::send, 0, {0, 0}}}, true, 8), Error);
}

TEST(Schedule, SegmentsCoverTheBufferExactly) {
  for (std::size_t bytes : {0, 1, 7, 64, 65, 1000})
    for (std::size_t seg : {0, 1, 3, 64, 2000}) {
      std::size_t next = 0;
      for (ByteRange r : segments(bytes, seg)) {
        ASSERT_EQ(r.offset, next);
        ASSERT_GT(r.length, 0u);
        if (seg) {
          ASSERT_LE(r.length, seg);
        }
        next = r.end();
      }
      ASSERT_EQ(next, bytes);
    }
}

TEST(Schedule, SplitLongStepsKeepsOrderAndBytes) {
  const Program p{{Op::recv, 0, {0, 10}}, {Op::send, 2, {10, 3}}};
  const Program q = split_long_steps(p, 4);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[0].range, (ByteRange{0, 4}));
  EXPECT_EQ(q[2].range, (ByteRange{8, 2}));
  EXPECT_EQ(q[3].range, (ByteRange{10, 3}));
  EXPECT_EQ(q[3].op, Op::send);
}

}  // namespace
}  // namespace herald
