// A broadcast as data: for every rank, the ordered steps it takes.
//
// An algorithm is a pure function from a Problem to each rank's Program. A send of a byte range may start
// only once that range has arrived (or the rank is the root); receives may be posted at once. The MPI
// executor, the dynamic broadcast and the simulator all consume this one representation.
#pragma once

#include <herald/layout.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace herald {

// A contiguous range of the broadcast buffer, in bytes.
struct ByteRange {
  std::size_t offset = 0;
  std::size_t length = 0;
  std::size_t end() const noexcept { return offset + length; }
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

// The pipelined broadcast a node-aware algorithm runs among its nodes' leaders (one rank a node): one of
// the table's algorithms of that name.
enum class LeaderStage : std::uint8_t { chain = 1, binary, split_binary, two_tree, scatter_ring_tuned, binomial, circulant };

// Tunables shared by the algorithms. Unset (std::nullopt) means "the algorithm's documented default" (or,
// for a call's own parameters, the HERALD_* variable, then that default); a set value must be valid
// (positive, radix at least 2). Once an algorithm's parameters are resolved, exactly the fields it reads
// are set.
struct Parameters {
  std::optional<std::size_t> segment{};   // bytes per pipelined segment
  std::optional<int> fanout{};            // chains leaving the root (chain)
  std::optional<int> radix{};             // children per level (knomial)
  std::optional<int> node_size{};         // ranks per node, in blocks of consecutive ranks: overrides the layout
  std::optional<LeaderStage> leaders{};   // the stage among node leaders (node-aware algorithms)
  friend bool operator==(const Parameters&, const Parameters&) = default;
};

// What is broadcast: P ranks, from root, `bytes` bytes; `layout`, where known, says which ranks share a node.
struct Problem {
  int ranks = 1;
  int root = 0;
  std::size_t bytes = 0;
  Parameters parameters{};
  NodeLayout layout{};
  // The ranks of each node of `layout` share memory through which an executor carries the stage within the
  // node of algorithms that allow it (AlgorithmInfo::node_memory): their cost says so, and so do their plans.
  bool node_memory = false;
  friend bool operator==(const Problem&, const Problem&) = default;
};

// The nodes a node-aware algorithm works with: blocks of parameters.node_size ranks where that is set (an
// override, for tests and simulation), else the layout, else one node.
NodeLayout nodes_of(const Problem& problem);

// How many nodes nodes_of() gives and the ranks of the largest, without building the layout: what the
// closed-form costs need, at any P in a few operations.
struct NodeCounts {
  int nodes = 1;
  int largest = 1;
};
NodeCounts node_counts(const Problem& problem);

// One message sent or received. Its range may be empty: it is still a message, so that an algorithm whose
// chunks can run past the end of a short buffer keeps the same messages for every count.
struct Step {
  enum class Op : std::uint8_t { send, recv };
  Op op = Op::send;
  int peer = 0;
  ByteRange range{};
  friend bool operator==(const Step&, const Step&) = default;
};

// How a rank issues its program's sends: in program order, each once its bytes have arrived, with at most
// `per_rank` sends in flight (posted, not yet complete) and at most `per_peer` of them to one peer. The
// bound keeps the schedule's order on a network that shares a link fairly between a rank's transfers:
// unbounded, a forwarder's segments (or a root's sub-trees) would all progress together and arrive
// together at the end, turning a pipeline into store-and-forward. Receives are not bounded.
// Where the problem's nodes are known (nodes_of() gives several), a rank's sends to ranks of its own node
// and its sends to other nodes are two queues (send_queues()), each in program order under a window of its
// own: they leave over different links (the node's memory, the network), so a send into the node that waits
// for its bytes never holds back one to another node, nor the other way.
struct SendWindow {
  int per_rank = 1;
  int per_peer = 1;
  friend bool operator==(const SendWindow&, const SendWindow&) = default;
};

// One rank's steps, in the order it issues them.
using Program = std::vector<Step>;

// A rank's sends as SendWindow issues them: indices into its program, in program order, those to other
// nodes (`network`) apart from those to its own node (`node`); all in `network` where `nodes` has one node.
struct SendQueues {
  std::vector<std::uint32_t> network;
  std::vector<std::uint32_t> node;
};
SendQueues send_queues(const NodeLayout& nodes, int rank, const Program& program);

// Every rank's program; programs[r] belongs to rank r.
// With `ordered_receives`, each rank posts its receives one at a time, in program order, and its sends are
// synchronous (as a pipeline's, even of one segment: an eager send would not wait for the receive), so a
// message's bytes move only once the receives before its own have completed: a schedule of one-ported
// rounds needs it, since a rank a round ahead would otherwise send into a receiver still taking the round
// before and share its link (the executor, the simulator's two networks and the cost model all follow it).
struct Schedule {
  Problem problem{};
  std::vector<Program> programs;
  bool ordered_receives = false;
};

// Splits `bytes` into segments of `segment` bytes (unset or 0: one segment); the last may be shorter.
// Zero bytes give no segment.
std::vector<ByteRange> segments(std::size_t bytes, std::optional<std::size_t> segment);

// A pipeline: the message is cut into more than one segment. Its sends are synchronous (MPI_Issend), so
// that they complete only once their bytes have arrived: under an eager protocol a rank would otherwise
// post every segment at once, they would share its link and arrive together, and the pipeline would
// collapse into store-and-forward. The executor, the simulator and the cost model all follow this.
bool paced(const Problem& problem);
// Whether a schedule's sends are synchronous: a pipeline's (paced()), and a schedule in rounds (its receives
// posted in order, Schedule::ordered_receives), where an eager send would land in a receiver still taking
// the round before. The executor, both simulated networks and the cost model ask this one rule.
inline bool synchronous_sends(const Problem& problem, bool ordered_receives) {
  return ordered_receives || paced(problem);
}

// Ranks renumbered so the root is 0: the "virtual rank" every tree builder works in.
inline int to_virtual(int rank, int root, int ranks) noexcept { return (rank - root + ranks) % ranks; }
inline int to_real(int vrank, int root, int ranks) noexcept { return (vrank + root) % ranks; }

// Replaces every step longer than `limit` bytes by consecutive steps of at most `limit` bytes, on both
// sides of each transfer alike, so no single MPI message exceeds what an int count can say.
Program split_long_steps(const Program& program, std::size_t limit);

}  // namespace herald
