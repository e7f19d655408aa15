// The simulator must catch each kind of broken schedule, and price correct ones exactly.
#include <herald/algorithms.hpp>
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

// A root sending `bytes` to each of `ranks - 1` others in turn.
Schedule linear_schedule(int ranks, std::size_t bytes) {
  Schedule s{{.ranks = ranks, .root = 0, .bytes = bytes}, std::vector<Program>(ranks)};
  for (int r = 1; r < ranks; ++r) {
    s.programs[0].push_back({Op::send, r, {0, bytes}});
    s.programs[r].push_back({Op::recv, 0, {0, bytes}});
  }
  return s;
}

CostModel fair(double overhead = 0, std::size_t eager = 0) {
  return {.alpha = 1e-6, .beta = 1e-9, .network = Network::fair_sharing, .overhead = overhead, .eager_bytes = eager};
}

TEST(FairSharing, OneSendInFlightKeepsTheRootsOrder) {
  // Window 1: the root's next send leaves when the previous one has arrived (1 us + 1 us each).
  const Schedule s = linear_schedule(5, 1000);
  EXPECT_NEAR(simulate(s, fair(), {.per_rank = 1, .per_peer = 1}).predicted_seconds, 4 * 2e-6, 1e-12);
  // Window 4: all four share the root's up link and arrive together, after 4000 bytes' time.
  EXPECT_NEAR(simulate(s, fair(), {.per_rank = 4, .per_peer = 4}).predicted_seconds, 1e-6 + 4e-6, 1e-12);
  // The per-peer bound does not limit sends to different peers.
  EXPECT_NEAR(simulate(s, fair(), {.per_rank = 4, .per_peer = 1}).predicted_seconds, 1e-6 + 4e-6, 1e-12);
}

TEST(FairSharing, PerPeerWindowKeepsSegmentsToOnePeerInOrder) {
  // Two segments to the same peer: window 2 per rank but 1 per peer sends them one after the other.
  const Schedule s = two_ranks({{Op::send, 1, {0, 500}}, {Op::send, 1, {500, 500}}},
                               {{Op::recv, 0, {0, 500}}, {Op::recv, 0, {500, 500}}}, 1000);
  EXPECT_NEAR(simulate(s, fair(), {.per_rank = 2, .per_peer = 1}).predicted_seconds, 2 * 1.5e-6, 1e-12);
  EXPECT_NEAR(simulate(s, fair(), {.per_rank = 2, .per_peer = 2}).predicted_seconds, 1e-6 + 1e-6, 1e-12);
}

TEST(FairSharing, SendsLeaveInProgramOrder) {
  // The root's first send waits for nothing but is large; its second is tiny. In order, with one in flight,
  // the tiny one leaves only once the large one has arrived, as the MPI executor posts them.
  const Schedule s{{.ranks = 3, .root = 0, .bytes = 1000},
                   {{{Op::send, 1, {0, 1000}}, {Op::send, 2, {0, 1000}}},
                    {{Op::recv, 0, {0, 1000}}},
                    {{Op::recv, 0, {0, 1000}}}}};
  EXPECT_NEAR(simulate(s, fair(), {}).predicted_seconds, 2 * 2e-6, 1e-12);
  // A forwarder's send waits for the receive that brings its bytes.
  const Schedule chain{{.ranks = 3, .root = 0, .bytes = 1000},
                       {{{Op::send, 1, {0, 1000}}},
                        {{Op::recv, 0, {0, 1000}}, {Op::send, 2, {0, 1000}}},
                        {{Op::recv, 1, {0, 1000}}}}};
  EXPECT_NEAR(simulate(chain, fair(), {}).predicted_seconds, 2 * 2e-6, 1e-12);
}

TEST(FairSharing, ReceiversShareTheirDownLink) {
  // Rank 1 gets everything from the root (2 us), then the root and rank 1 each send rank 2 one half at
  // once: they share its down link, so after 1 us of latency each half moves at half the bandwidth.
  const Schedule s{{.ranks = 3, .root = 0, .bytes = 1000},
                   {{{Op::send, 1, {0, 1000}}, {Op::send, 2, {500, 500}}},
                    {{Op::recv, 0, {0, 1000}}, {Op::send, 2, {0, 500}}},
                    {{Op::recv, 0, {500, 500}}, {Op::recv, 1, {0, 500}}}}};
  EXPECT_NEAR(simulate(s, fair(), {}).predicted_seconds, 2e-6 + 1e-6 + 1e-6, 1e-12);
}

TEST(FairSharing, ANodesRanksShareItsLinks) {
  // The root gives rank 1 everything (2 us), then the root sends to rank 2 while rank 1 sends to rank 3.
  // As hosts of their own, those take 2 us more; with ranks 2 and 3 on one node, they share its down link
  // and take 1 + 2 us.
  const Schedule s{{.ranks = 4, .root = 0, .bytes = 1000},
                   {{{Op::send, 1, {0, 1000}}, {Op::send, 2, {0, 1000}}},
                    {{Op::recv, 0, {0, 1000}}, {Op::send, 3, {0, 1000}}},
                    {{Op::recv, 0, {0, 1000}}},
                    {{Op::recv, 1, {0, 1000}}}}};
  EXPECT_NEAR(simulate(s, fair(), {}).predicted_seconds, 2e-6 + 2e-6, 1e-12);
  const std::vector<int> shared{0, 1, 2, 2};
  EXPECT_NEAR(simulate(s, fair(), {}, {.hosts = NodeLayout(shared)}).predicted_seconds, 2e-6 + 3e-6, 1e-12);
  // The schedule's own nodes stand for the platform's where none is given (the node-aware algorithms').
  Schedule own = s;
  own.problem.layout = NodeLayout(shared);
  EXPECT_NEAR(simulate(own, fair(), {}).predicted_seconds, 2e-6 + 3e-6, 1e-12);
}

TEST(FairSharing, AFatTreesLeavesShareTheirUplinks) {
  // As ANodesRanksShareItsLinks, with four hosts in two leaves of two: after rank 1 has everything (within
  // its leaf, 2 us), the root's message to rank 2 and rank 1's to rank 3 cross between leaves (two alphas
  // of latency). With one uplink a leaf they share it (2 us of bytes); with two, each destination's top
  // switch is its own (its number modulo 2) and neither waits (1 us).
  const Schedule s{{.ranks = 4, .root = 0, .bytes = 1000},
                   {{{Op::send, 1, {0, 1000}}, {Op::send, 2, {0, 1000}}},
                    {{Op::recv, 0, {0, 1000}}, {Op::send, 3, {0, 1000}}},
                    {{Op::recv, 0, {0, 1000}}},
                    {{Op::recv, 1, {0, 1000}}}}};
  EXPECT_NEAR(simulate(s, fair(), {}, {.leaf_nodes = 2, .uplinks = 1}).predicted_seconds, 2e-6 + 2e-6 + 2e-6, 1e-12);
  EXPECT_NEAR(simulate(s, fair(), {}, {.leaf_nodes = 2, .uplinks = 2}).predicted_seconds, 2e-6 + 2e-6 + 1e-6, 1e-12);
  // One leaf holds everything: one switch.
  EXPECT_NEAR(simulate(s, fair(), {}, {.leaf_nodes = 4, .uplinks = 1}).predicted_seconds, 2e-6 + 2e-6, 1e-12);
}

TEST(FairSharing, WithinANodeOverItsMemoryOrItsLink) {
  // Ranks 0 and 1 on node 0, rank 2 on node 1; the root sends 1000 bytes to each, eagerly.
  const Schedule s = linear_schedule(3, 1000);
  const NodeLayout nodes(std::vector<int>{0, 0, 1});
  // With the node's figures, rank 1's copy takes 0.1 us of latency and 0.01 us of bytes and shares
  // nothing; rank 2's message has the root's up link alone: 1 + 1 us.
  CostModel memory = fair(0, 1000);
  memory.node_alpha = 1e-7;
  memory.node_beta = 1e-11;
  EXPECT_NEAR(simulate(s, memory, {}, {.hosts = nodes}).predicted_seconds, 1e-6 + 1e-6, 1e-12);
  // Without them, rank 1's message crosses the node's own links, sharing the up link with rank 2's: both
  // move at half the bandwidth.
  EXPECT_NEAR(simulate(s, fair(0, 1000), {}, {.hosts = nodes}).predicted_seconds, 1e-6 + 2e-6, 1e-12);
  // Node memory is a fat pipe (as SimGrid's cluster loopback): the root's two eager copies to ranks 1 and 2
  // at 1 ns a byte each take 1 us, not 2; rank 1 then forwards to rank 3 on the other node, 1 + 1 us.
  const Schedule forward{{.ranks = 4, .root = 0, .bytes = 1000},
                         {{{Op::send, 1, {0, 1000}}, {Op::send, 2, {0, 1000}}},
                          {{Op::recv, 0, {0, 1000}}, {Op::send, 3, {0, 1000}}},
                          {{Op::recv, 0, {0, 1000}}},
                          {{Op::recv, 1, {0, 1000}}}}};
  memory.node_alpha = 0;
  memory.node_beta = 1e-9;
  EXPECT_NEAR(simulate(forward, memory, {}, {.hosts = NodeLayout(std::vector<int>{0, 0, 0, 1})}).predicted_seconds,
              1e-6 + 1e-6 + 1e-6, 1e-12);
}

TEST(FairSharing, EagerSendsCompleteWhenPostedAndOverheadsAddUp) {
  // 1000-byte eager sends: the window does not hold them back; each costs the root 0.1 us to post, and
  // their bytes share its up link, which is busy from 1.1 us (the first one's latency over) without a
  // break, so the last byte of the four leaves at 1.1 + 4 us; its receiver then pays 0.1 us.
  const Schedule s = linear_schedule(5, 1000);
  EXPECT_NEAR(simulate(s, fair(0.1e-6, 1000), {}).predicted_seconds, 1.1e-6 + 4e-6 + 0.1e-6, 1e-12);
  // Not eager: one at a time, each 0.1 us to post, 1 us latency, 1 us of bytes; then 0.1 us to complete.
  EXPECT_NEAR(simulate(s, fair(0.1e-6, 999), {}).predicted_seconds, 4 * 2.1e-6 + 0.1e-6, 1e-12);
}

TEST(FairSharing, MatchesPortsOnTreesWithOneSendInFlight) {
  // In a tree every rank receives from one parent, so with one send in flight, no overhead and nothing
  // eager, sharing links changes nothing: the fair network must price every tree as the ports model
  // (gap = alpha) does, for every size, root and rank count tried.
  for (const char* name : {"linear", "binomial", "chain", "binary", "knomial"})
    for (int ranks = 2; ranks <= 17; ++ranks)
      for (std::size_t bytes : {std::size_t{1}, std::size_t{100000}, std::size_t{1} << 20})
        for (int root : {0, ranks / 2}) {
          const Schedule s = make_schedule(find_algorithm(name),
                                           {.ranks = ranks, .root = root, .bytes = bytes,
                                            .parameters = {.segment = 1 << 16}});
          const double ports = simulate(s, {.alpha = 1e-6, .beta = 1e-9}).predicted_seconds;
          const double shared = simulate(s, fair(), {}).predicted_seconds;
          EXPECT_NEAR(shared, ports, ports * 1e-9) << name << " P=" << ranks << " n=" << bytes << " root=" << root;
        }
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

TEST(Dataflow, RejectsOutOfBufferAndPartialOverlap) {
  EXPECT_THROW(Dataflow(Program{{Op::recv, 0, {4, 8}}}, false, 8), Error);
  EXPECT_THROW(Dataflow(Program{{Op::recv, 0, {0, 4}}, {Op::recv, 0, {2, 4}}}, false, 8), Error);
  EXPECT_THROW(Dataflow(Program{{Op::send, 0, {9, 0}}}, true, 8), Error);
}

// An empty step is a message without data: its send waits for nothing, its receive brings nothing.
TEST(Dataflow, EmptyStepsWaitForNothingAndBringNothing) {
  const Program p{{Op::recv, 0, {8, 0}}, {Op::send, 2, {8, 0}}, {Op::recv, 0, {0, 8}}, {Op::send, 2, {0, 8}}};
  const Dataflow flow(p, false, 8);
  EXPECT_TRUE(flow.waits_for(1).empty());
  EXPECT_TRUE(flow.redundant(0));
  EXPECT_EQ(flow.scratch_bytes(), 0u);
  ASSERT_EQ(flow.waits_for(3).size(), 1u);
  EXPECT_EQ(flow.waits_for(3)[0], 2u);
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
