// Closed-form costs: what each algorithm's schedule takes under a cost model, in a few operations whatever
// P, so that "auto" can price every algorithm and segment size at every call size without building a
// schedule (but the node-aware algorithms' stage among up to 16 leaders, simulated: below). Each formula follows the critical path the algorithm's file describes, in two per-message terms
// that hold for both networks of the simulator with one send in flight:
//   hop(m)  from posting a send of m bytes to its receiver having completed it: 2o + alpha + m beta
//   next(m) from posting a send to posting the rank's next one: o + g + m beta, where g is alpha on the
//           fair-sharing network (the send completes when its bytes have arrived) and the port gap on the
//           ports network; an eager send (fair network) completes when posted, so the rank posts the next
//           after o, while the link still carries the previous one's bytes: max(o, m beta).
// (o is the fair network's per-message overhead, 0 on the ports network.) The formulas are checked against
// the simulator in tests/unit/cost_test.cpp.
#include "algorithms.hpp"
#include "nodes.hpp"

#include <herald/algorithms.hpp>
#include <herald/node_memory.hpp>
#include <herald/simulator.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace herald::detail {
namespace {

class Terms {
 public:
  // A pipeline's sends (paced()) are synchronous: none of them is eager; so are a schedule's in rounds
  // (`synchronous`, Schedule::ordered_receives).
  Terms(const CostModel& m, const Problem& p, bool synchronous = false)
      : m_(m), fair_(m.network == Network::fair_sharing), paced_(synchronous_sends(p, synchronous)) {}
  double o() const { return fair_ ? m_.overhead : 0.0; }
  double hop(double bytes) const { return 2 * o() + m_.alpha + bytes * m_.beta; }
  double next(double bytes) const {
    if (eager(bytes) && !paced_) return std::max(o(), bytes * m_.beta);  // posting overlaps the previous one's bytes
    // A synchronous send (paced_) completes once it has arrived, whatever the port's gap.
    return o() + (fair_ || paced_ ? m_.alpha : m_.port_seconds()) + bytes * m_.beta;
  }
  bool eager(double bytes) const { return fair_ && !paced_ && bytes <= static_cast<double>(m_.eager_bytes); }
  double beta() const { return m_.beta; }

 private:
  const CostModel& m_;
  bool fair_;
  bool paced_;
};

int ceil_log(long long base, int ranks) {
  int levels = 0;
  for (long long span = 1; span < ranks; span *= base) ++levels;
  return levels;
}

int floor_log2(int ranks) {
  int levels = 0;
  while ((2LL << levels) <= ranks) ++levels;
  return levels;
}

// Segments of a pipelined algorithm: their count and average size. A pipeline's sends are synchronous
// (paced()), never eager, so each segment is priced as a send that completes on arrival.
struct Pipeline {
  double count;
  double bytes;
};

Pipeline pipeline(const Problem& p) {
  const double n = static_cast<double>(p.bytes);
  if (!paced(p)) return {1.0, n};
  const double count = std::ceil(n / static_cast<double>(*p.parameters.segment));
  return {count, n / count};
}

// A binomial scatter: n (P-1)/P bytes leave the root, down ceil(log2 P) levels. When its pieces go eagerly
// they all leave at once and share the root's link, so the largest (the biggest sub-tree's) arrives last,
// and so on down: the scatter then takes about as long as a binomial tree of the whole message.
double scatter(const Problem& p, const Terms& t) {
  const double n = static_cast<double>(p.bytes);
  const int levels = ceil_log(2, p.ranks);
  if (t.eager(n / 2)) return levels * std::max(t.hop(n), t.next(n));
  return levels * t.hop(0) + n * (p.ranks - 1) / p.ranks * t.beta();
}

// A tree whose sends go eagerly: each rank posts all of them at once, as soon as it has the message, and
// they share its link, so fairly shared they end together, its sends x n beta after the first left. Down
// the largest sub-trees, the rank at depth j has (levels - j) x `children` sends: their sum is the path.
// (Priced as one send after another, a level at a time, knomial came out at 0.5-0.76 of the simulator on
// 16-256 ranks at 16 KiB, and auto took it where it ran 1.2-2.0x the pipelined optimum on SMPI.)
// The first send on the path leaves first; the others share its bytes' time only if they are posted before
// it ends (one overhead each), so a rank's sends that share it are at most 1 + n beta / o.
double eager_tree(int levels, int children, double n, const Terms& t) {
  const double bytes = n * t.beta();
  const double sharing = t.o() > 0 ? 1 + bytes / t.o() : std::numeric_limits<double>::infinity();
  double path = 0;
  for (int depth = 0; depth < levels; ++depth)
    path += t.hop(0) + bytes * std::min<double>((levels - depth) * children, sharing);
  return path;
}

}  // namespace

double linear_cost(const Problem& p, const CostModel& m) {
  const Terms t(m, p);
  const double n = static_cast<double>(p.bytes);
  return (p.ranks - 2) * t.next(n) + t.hop(n);
}

// Segmented or not: the root sends each segment to its L children; the last one then goes down L levels.
double binomial_cost(const Problem& p, const CostModel& m) {
  const Terms t(m, p);
  const Pipeline s = pipeline(p);
  const int levels = ceil_log(2, p.ranks);
  if (s.count == 1 && t.eager(s.bytes)) return eager_tree(levels, 1, s.bytes, t);
  return (s.count - 1) * levels * t.next(s.bytes) + levels * std::max(t.hop(s.bytes), t.next(s.bytes));
}

double knomial_cost(const Problem& p, const CostModel& m) {
  const Terms t(m, p);
  const Pipeline s = pipeline(p);
  const int radix = *p.parameters.radix;
  const int levels = ceil_log(radix, p.ranks);
  const int children = std::min(radix - 1, p.ranks - 1);
  const double one_at_a_time = (s.count - 1) * levels * children * t.next(s.bytes) +
                               levels * ((children - 1) * t.next(s.bytes) + t.hop(s.bytes));
  // Posting a level's sends one overhead after another can take longer than their bytes' share of the link.
  if (s.count == 1 && t.eager(s.bytes)) return std::max(one_at_a_time, eager_tree(levels, children, s.bytes, t));
  return one_at_a_time;
}

// f chains of length L: the root sends every segment f times, then the last one crosses L ranks.
double chain_cost(const Problem& p, const CostModel& m) {
  const Terms t(m, p);
  const Pipeline s = pipeline(p);
  const int others = p.ranks - 1;
  const int chains = std::clamp(*p.parameters.fanout, 1, others);
  const int length = (others + chains - 1) / chains;
  return (s.count * chains - 1) * t.next(s.bytes) + length * t.hop(s.bytes);
}

// Interior ranks send every segment twice; the last segment goes down the tree's height.
double binary_cost(const Problem& p, const CostModel& m) {
  if (p.ranks == 2) return chain_cost(p, m);
  const Terms t(m, p);
  const Pipeline s = pipeline(p);
  const int height = floor_log2(p.ranks);
  return (s.count - 1) * 2 * t.next(s.bytes) + height * (t.hop(s.bytes) + t.next(s.bytes));
}

// Each half goes down one sub-tree (two sends per segment of a half), then partners swap halves.
double split_binary_cost(const Problem& p, const CostModel& m) {
  if (p.ranks == 2) return chain_cost(p, m);
  const Terms t(m, p);
  const Pipeline s = pipeline(p);
  const int height = floor_log2(p.ranks);
  return (1.5 * s.count - 1) * t.next(s.bytes) + height * (t.hop(s.bytes) + t.next(s.bytes));
}

// Every rank sends about one segment per segment it receives; the last crosses both trees' heights.
double two_tree_cost(const Problem& p, const CostModel& m) {
  // Two or three ranks: the trees are single edges, and (P = 3) each rank forwards to the other what the
  // root sent it, which costs as much as the root sending everything to both.
  if (p.ranks <= 3) return linear_cost(p, m);
  const Terms t(m, p);
  const Pipeline s = pipeline(p);
  return (s.count - 1) * t.next(s.bytes) + 2 * ceil_log(2, p.ranks) * t.hop(s.bytes);
}

// n - 1 + ceil(log2 P) rounds of one segment each: a rank's next send waits for its last one to arrive
// (a pipeline's sends are synchronous) and for its segment, which came the round before.
double circulant_cost(const Problem& p, const CostModel& m) {
  const Terms t(m, p, true);
  const Pipeline s = pipeline(p);
  const double rounds = s.count - 1 + ceil_log(2, p.ranks);
  return rounds * std::max(t.hop(s.bytes), t.next(s.bytes));
}

// (m - 1 + q)(c + n beta / m), c a hop's fixed part, is least at m = sqrt((q - 1) n beta / c) segments.
std::size_t circulant_segment(const Problem& p, const CostModel& m) {
  const Terms t(m, p);
  const double n = static_cast<double>(p.bytes);
  const double best = std::sqrt((ceil_log(2, p.ranks) - 1) * n * t.beta() / t.hop(0));
  const double count = std::clamp(std::round(best), 1.0, std::max(1.0, n));
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(n / count)));
}

// Scatter, then P-1 ring steps, each waiting for the chunk the previous one brought.
double scatter_ring_cost(const Problem& p, const CostModel& m) {
  const Terms t(m, p);
  const double chunk = static_cast<double>(p.bytes) / p.ranks;
  return scatter(p, t) + (p.ranks - 1) * t.hop(chunk);
}

// Scatter, then recursive doubling: log2 P exchanges moving n (P-1)/P bytes in all, plus one step to or
// from the stand-ins when P is not a power of two.
double scatter_rdb_cost(const Problem& p, const CostModel& m) {
  // One rank beside a pair: the bytes go down a binomial tree.
  if (p.ranks == 3) return binomial_cost(p, m);
  const Terms t(m, p);
  const int below = 1 << floor_log2(p.ranks);
  // Below P bytes most chunks are empty: their messages (still sent, so that the messages do not depend on
  // the count) wait for no data, and on a network that overlaps postings they cost only their posting.
  if (p.bytes < static_cast<std::size_t>(p.ranks) && t.eager(0))
    return scatter(p, t) + ceil_log(2, below) * t.next(0);
  const double extra = below == p.ranks ? 0.0 : t.hop(static_cast<double>(p.bytes) / below);
  // The exchanges: log2 P steps moving n (P-1)/P bytes in all.
  const double n = static_cast<double>(p.bytes);
  return scatter(p, t) + ceil_log(2, below) * t.hop(0) + n * (p.ranks - 1) / p.ranks * t.beta() + extra;
}

namespace {

// Up to this many nodes the stage among leaders is priced by simulating it: the closed forms follow each
// algorithm's critical path at the rank counts they are built around (two_tree's at powers of 4), and
// stray from it elsewhere (two_tree among 8 leaders runs 1.4x its formula). Simulating costs each size's
// first choice a few milliseconds at 16 leaders (herald-selection-bench) and grows with the leaders; beyond,
// the formula.
constexpr int simulated_leaders = 16;
// A pipeline's segments simulated: twice this many give its fill and drain, the difference to this many its
// interval, which the longer pipeline repeats.
constexpr std::size_t simulated_segments = 8;

double simulated_cost(const AlgorithmInfo& a, const Problem& p, const CostModel& m) {
  auto run = [&](std::size_t bytes) {
    Problem q = p;
    q.bytes = bytes;
    return simulate(make_schedule(a, q), m).predicted_seconds;
  };
  if (!paced(p) || p.bytes <= 2 * simulated_segments * *p.parameters.segment) return run(p.bytes);
  const std::size_t segment = *p.parameters.segment;
  const double count = std::ceil(static_cast<double>(p.bytes) / static_cast<double>(segment));
  const double shorter = run(simulated_segments * segment);
  const double longer = run(2 * simulated_segments * segment);
  const double interval = (longer - shorter) / static_cast<double>(simulated_segments);
  return longer + (count - 2.0 * simulated_segments) * interval;
}

// Within the nodes of a node-aware broadcast: each segment interval of a leader stretched by its sends
// within the node, then the last segment's way through the largest node: down a chain (`fan_out` false,
// R - 1 hops) or from the leader to each rank in turn (one hop, R - 1 sends a segment). On one node, the
// whole broadcast.
double within_nodes_cost(const Problem& p, const CostModel& m, bool fan_out) {
  const NodeCounts nodes = node_counts(p);
  const CostModel node_model = m.within_node();  // Terms holds a reference
  const Terms inside(node_model, p);
  const Pipeline s = pipeline(p);
  const int sends = fan_out ? nodes.largest - 1 : 1;
  const int hops = fan_out ? 1 : nodes.largest - 1;
  if (nodes.nodes == 1) return (s.count * sends - 1) * inside.next(s.bytes) + hops * inside.hop(s.bytes);
  if (nodes.largest == 1) return 0.0;
  return s.count * sends * inside.next(s.bytes) + hops * inside.hop(s.bytes);
}

// Across nodes, the stage among leaders plus the node-aware algorithm's own part within them.
double with_leader_stage(const Problem& p, const CostModel& m, double within) {
  return node_counts(p).nodes == 1 ? within : leader_stage_cost(p, m) + within;
}

}  // namespace

double node_pipeline_within_cost(const Problem& p, const CostModel& m) { return within_nodes_cost(p, m, false); }

double node_pipeline_cost(const Problem& p, const CostModel& m) {
  if (node_counts(p).nodes == 1) {  // one chain through the node
    Problem one = p;
    one.parameters.fanout = 1;
    return chain_cost(one, m.within_node());
  }
  return with_leader_stage(p, m, node_pipeline_within_cost(p, m));
}

// As messages (a fan-out from each leader), or where the node's ranks share memory, through it
// (node_memory.hpp): each piece of a ring slot is copied once into the ring by the leader, which stretches
// its interval in the pipeline among nodes, and once out by every reader at the same time. A copy is priced
// at a quarter of a message's bytes within the node and a fixed cost of its own; measured on one node at 2
// and 4 ranks, node_shared runs in 0.2-0.4 of the MPI's own broadcast from 64 KiB (docs/benchmarks.md).
// Pieces are at most a slot whatever the segment, so on one node the segment changes nothing.
double node_shared_within_cost(const Problem& p, const CostModel& m) {
  if (!p.node_memory) return within_nodes_cost(p, m, true);
  constexpr double copy_alpha = 2.5e-7;
  const double copy_beta = m.within_node().beta / 4;
  const Pipeline s = pipeline(p);
  const double piece = std::min(s.bytes, static_cast<double>(node_memory_slot_bytes));
  const double pieces = std::ceil(static_cast<double>(p.bytes) / piece);
  const double copy = copy_alpha + piece * copy_beta;
  return node_counts(p).largest == 1 ? 0.0 : pieces * copy + copy;
}

double node_shared_cost(const Problem& p, const CostModel& m) {
  return with_leader_stage(p, m, node_shared_within_cost(p, m));
}

}  // namespace herald::detail

namespace herald {

double leader_stage_cost(const Problem& p, const CostModel& m) {
  const int nodes = node_counts(p).nodes;
  const AlgorithmInfo& a = detail::leader_algorithm(p.parameters.leaders);
  const Problem leaders = detail::leaders_problem(p, nodes);
  return nodes <= detail::simulated_leaders ? detail::simulated_cost(a, leaders, m) : a.cost(leaders, m);
}

}  // namespace herald
