// The fair-sharing network: a flat cluster in which every node has an up link and a down link of bandwidth
// 1/beta into a non-blocking switch, shared by the node's ranks (one rank a node where the problem has one
// node: a flat cluster of hosts). A message from a to b on other nodes is a flow over a's node's up link and
// b's node's down link. Within a node, with the node's figures given (node_alpha, node_beta), a message
// spends node_alpha in latency and moves at 1/node_beta, sharing nothing (node memory as SimGrid's cluster
// loopback models it, a fat pipe); without them it crosses the node's own up and down links at alpha, as a
// cluster without a loopback routes it.
// It starts `overhead` after its send is posted (the sender's own time, LogP's o), spends alpha in latency,
// then moves its bytes at the max-min fair share of both links, which is recomputed whenever a flow starts
// or ends (as SimGrid's network model does). Ranks post their sends in program order (in two queues where
// the nodes are known: SendWindow), each once its inputs have arrived and the send window has room; a send of at most eager_bytes counts as complete once posted
// (MPI's eager protocol), a longer one, or any send of a pipeline (paced(): the executor sends its segments
// synchronously), once its last byte has arrived. Completing a receive costs the
// receiver `overhead` too. With ordered receives, a flow's bytes wait for its receive to be posted: for the
// receiver's receive before it to have arrived.
#include "timing.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <queue>
#include <span>
#include <utility>

namespace herald::timing {
namespace {

struct Flow {
  int source = 0;
  bool local = false;     // within a node, over its memory (a fat pipe at the node's bandwidth)
  std::array<std::size_t, 4> path{};  // the links it crosses, `hops` of them
  std::uint8_t hops = 0;
  std::size_t queue = 0;  // the sender's send queue it left from
  int dest = 0;
  std::size_t recv_step = 0;
  bool eager = false;
  double sent_at = 0;      // when the sender may count it complete, if eager
  double bytes_left = 0;   // as of `since`
  double rate = 0;         // bytes per second while in its bandwidth phase
  double since = 0;
  std::uint32_t version = 0;  // bumped at every new rate, so stale finish events are skipped
  std::uint32_t stamp = 0;    // the last reshare that reached it
  std::uint32_t fixed = 0;    // the last reshare that fixed its rate, to next_rate
  double next_rate = 0;
};

class FairSharing {
 public:
  FairSharing(const Input& in, const CostModel& model, const SendWindow& window, const Platform& platform)
      : in_(in), model_(model), window_(window), ranks_(in.schedule.problem.ranks),
        paced_(synchronous_sends(in.schedule.problem, in.schedule.ordered_receives)) {
    const auto& programs = in.schedule.programs;
    sends_.resize(2 * static_cast<std::size_t>(ranks_));
    next_.assign(sends_.size(), 0);
    cpu_.assign(ranks_, 0.0);
    in_flight_.resize(sends_.size());
    arrival_.resize(ranks_);
    observed_.resize(ranks_);
    // Two links a node (up, down), then two a pair of leaf and top switch of the fat tree, if any.
    leaf_nodes_ = platform.leaf_nodes;
    uplinks_ = platform.uplinks;
    const std::size_t leaves = leaf_nodes_ > 0 ? (static_cast<std::size_t>(ranks_) + leaf_nodes_ - 1) / leaf_nodes_ : 0;
    link_flows_.resize(2 * static_cast<std::size_t>(ranks_) + 2 * leaves * static_cast<std::size_t>(std::max(uplinks_, 0)));
    link_capacity_.assign(link_flows_.size(), 0.0);
    link_count_.assign(link_flows_.size(), 0);
    parked_.resize(static_cast<std::size_t>(ranks_));
    link_stamp_.assign(link_flows_.size(), 0);
    const NodeLayout nodes = nodes_of(in.schedule.problem);  // the executor's send queues
    const NodeLayout& hosts = platform.hosts.known() && platform.hosts.ranks() == ranks_ ? platform.hosts : nodes;
    node_memory_ = hosts.nodes() > 1 && (model.node_alpha || model.node_beta);
    host_.resize(static_cast<std::size_t>(ranks_));
    for (int r = 0; r < ranks_; ++r)
      host_[static_cast<std::size_t>(r)] = hosts.nodes() > 1 ? hosts.node_of(r) : r;
    for (int r = 0; r < ranks_; ++r) {
      arrival_[r].assign(programs[r].size(), never);
      observed_[r].assign(programs[r].size(), false);
      SendQueues q = send_queues(nodes, r, programs[r]);
      sends_[2 * static_cast<std::size_t>(r)].assign(q.network.begin(), q.network.end());
      sends_[2 * static_cast<std::size_t>(r) + 1].assign(q.node.begin(), q.node.end());
    }
  }

  std::optional<double> run(std::string& problem) {
    for (int r = 0; r < ranks_; ++r) push(0.0, Kind::post, static_cast<std::size_t>(r));
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      now_ = e.time;
      switch (e.kind) {
        case Kind::post:
          try_post(static_cast<int>(e.id));
          break;
        case Kind::start:
          start(e.id);
          break;
        case Kind::finish:
          if (flows_[e.id].version == e.version) finish(e.id);
          break;
      }
    }
    for (std::size_t q = 0; q < sends_.size(); ++q)
      if (next_[q] < sends_[q].size()) {
        problem = "deadlock: rank " + std::to_string(q / 2) + " step " + std::to_string(sends_[q][next_[q]]) +
                  " waits for bytes that never arrive";
        return std::nullopt;
      }
    // Each rank ends once it has completed the receives no send of its waited for.
    double end = 0;
    for (int r = 0; r < ranks_; ++r) {
      double t = cpu_[r];
      std::vector<double> left;
      for (std::size_t i = 0; i < arrival_[r].size(); ++i)
        if (arrival_[r][i] != never && !observed_[r][i]) left.push_back(arrival_[r][i]);
      std::sort(left.begin(), left.end());
      for (double a : left) t = std::max(t, a) + model_.overhead;
      end = std::max(end, t);
    }
    return end;
  }

 private:
  enum class Kind : std::uint8_t { post, start, finish };
  struct Event {
    double time;
    Kind kind;
    std::size_t id;  // a rank for `post`, a flow otherwise
    std::uint32_t version;
    bool operator>(const Event& o) const { return time > o.time; }
  };

  void push(double time, Kind kind, std::size_t id, std::uint32_t version = 0) {
    events_.push({time, kind, id, version});
  }
  // The links a message from rank a to rank b crosses: a's node's up link, b's node's down link and, between
  // leaves of a fat tree, the up link from a's leaf to the top switch of b's node's number modulo the
  // uplinks and that switch's down link to b's leaf (SimGrid's routing). Returns its latency: alpha is two
  // links' worth, so four links take two.
  double route(Flow& flow) const {
    const auto a = static_cast<std::size_t>(host_[static_cast<std::size_t>(flow.source)]);
    const auto b = static_cast<std::size_t>(host_[static_cast<std::size_t>(flow.dest)]);
    flow.hops = 0;
    flow.path[flow.hops++] = 2 * a;
    double latency = model_.alpha;
    if (leaf_nodes_ > 0 && uplinks_ > 0 && a / leaf_nodes_ != b / leaf_nodes_) {
      const std::size_t base = 2 * static_cast<std::size_t>(ranks_), top = b % static_cast<std::size_t>(uplinks_);
      flow.path[flow.hops++] = base + 2 * (a / leaf_nodes_ * uplinks_ + top);
      flow.path[flow.hops++] = base + 2 * (b / leaf_nodes_ * uplinks_ + top) + 1;
      latency *= 2;
    }
    flow.path[flow.hops++] = 2 * b + 1;
    return latency;
  }
  std::span<const std::size_t> path_of(const Flow& flow) const { return {flow.path.data(), flow.hops}; }

  // Posts rank r's next sends, from each of its queues, for as long as their inputs have arrived, its time
  // allows and the queue's window has room; whatever stops it (an arrival, a completion, its own time) posts
  // again later.
  void try_post(int r) {
    for (std::size_t q = 2 * static_cast<std::size_t>(r); q < 2 * static_cast<std::size_t>(r) + 2; ++q)
      if (!try_post(r, q)) return;
  }

  // False when the rank's own time stops it (a post event is then due).
  bool try_post(int r, std::size_t q) {
    const Program& program = in_.schedule.programs[r];
    while (next_[q] < sends_[q].size()) {
      const std::size_t i = sends_[q][next_[q]];
      const auto inputs = in_.flows[r].waits_for(i);
      for (std::uint32_t d : inputs)
        if (arrival_[r][d] == never) return true;
      for (std::uint32_t d : inputs)
        if (!observed_[r][d]) {
          cpu_[r] = std::max(cpu_[r], arrival_[r][d]) + model_.overhead;
          observed_[r][d] = true;
        }
      if (cpu_[r] > now_) {
        push(cpu_[r], Kind::post, static_cast<std::size_t>(r));
        return false;
      }
      std::erase_if(in_flight_[q], [&](std::size_t f) { return flows_[f].eager && flows_[f].sent_at <= now_; });
      const Step& step = program[i];
      const auto to_peer = std::count_if(in_flight_[q].begin(), in_flight_[q].end(),
                                         [&](std::size_t f) { return flows_[f].dest == step.peer; });
      if (static_cast<int>(in_flight_[q].size()) >= window_.per_rank || to_peer >= window_.per_peer) return true;

      Flow flow;
      flow.source = r;
      flow.queue = q;
      flow.dest = step.peer;
      flow.recv_step = in_.recv_of_send[r][i];
      flow.local = node_memory_ && host_[static_cast<std::size_t>(r)] == host_[static_cast<std::size_t>(step.peer)];
      flow.eager = step.range.length <= model_.eager_bytes && !paced_;
      flow.sent_at = now_ + model_.overhead;
      flow.bytes_left = static_cast<double>(step.range.length);
      const double latency = flow.local ? model_.node_alpha.value_or(model_.alpha) : route(flow);
      flows_.push_back(flow);
      in_flight_[q].push_back(flows_.size() - 1);
      push(now_ + model_.overhead + latency, Kind::start, flows_.size() - 1);
      cpu_[r] = now_ + model_.overhead;
      ++next_[q];
    }
    return true;
  }

  // The latency has passed: the flow's bytes start to move (once its receive is posted).
  void start(std::size_t f) {
    Flow& flow = flows_[f];
    if (const std::size_t b = in_.posted_after(flow.dest, flow.recv_step);
        b != Input::first && arrival_[flow.dest][b] == never) {
      parked_[static_cast<std::size_t>(flow.dest)].push_back(f);
      return;
    }
    if (flow.local) {
      const double beta = model_.node_beta.value_or(model_.beta);
      if (flow.bytes_left <= 0 || beta <= 0) return finish(f);
      flow.since = now_;
      flow.rate = 1.0 / beta;
      flow.version = ++version_;
      push(now_ + flow.bytes_left / flow.rate, Kind::finish, f, flow.version);
      return;
    }
    if (flow.bytes_left <= 0 || model_.beta <= 0) return finish(f);
    flow.since = now_;
    for (std::size_t link : path_of(flow)) link_flows_[link].push_back(f);
    reshare(path_of(flow));
  }

  void finish(std::size_t f) {
    Flow& flow = flows_[f];
    ++flow.version;
    std::size_t erased = 0;
    for (std::size_t link : path_of(flow)) erased += std::erase(link_flows_[link], f);
    if (erased > 0) reshare(path_of(flow));
    arrival_[flow.dest][flow.recv_step] = now_;
    for (std::size_t g : std::exchange(parked_[static_cast<std::size_t>(flow.dest)], {})) start(g);
    push(now_, Kind::post, static_cast<std::size_t>(flow.dest));
    if (!flow.eager) {
      std::erase(in_flight_[flow.queue], f);
      push(now_, Kind::post, static_cast<std::size_t>(flow.source));
    }
  }

  // Max-min fair rates for the flows connected (through shared links) to links a and b: the most loaded
  // link fixes its flows' rate at an equal share, which then leaves the other links; repeat.
  void reshare(std::span<const std::size_t> touched) {
    ++stamp_;
    std::vector<std::size_t> links, component;
    auto visit = [&](std::size_t link) {
      if (link_stamp_[link] == stamp_) return;
      link_stamp_[link] = stamp_;
      links.push_back(link);
    };
    for (std::size_t link : touched) visit(link);
    for (std::size_t k = 0; k < links.size(); ++k)
      for (std::size_t f : link_flows_[links[k]])
        if (flows_[f].stamp != stamp_) {
          flows_[f].stamp = stamp_;
          component.push_back(f);
          for (std::size_t link : path_of(flows_[f])) visit(link);
        }
    // Progressive filling: the link whose equal share is smallest fixes its flows at that share, which then
    // leaves their other links; repeat. A heap of (share, link) keeps the next bottleneck; an entry whose link
    // has changed since is stale (shares only grow as flows are fixed) and skipped.
    const double capacity = 1.0 / model_.beta;
    std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>, std::greater<>>
        bottlenecks;
    for (std::size_t link : links) {
      link_capacity_[link] = capacity;
      link_count_[link] = link_flows_[link].size();
      if (link_count_[link] > 0) bottlenecks.emplace(capacity / static_cast<double>(link_count_[link]), link);
    }
    while (!bottlenecks.empty()) {
      const auto [share, link] = bottlenecks.top();
      bottlenecks.pop();
      if (link_count_[link] == 0 || share != link_capacity_[link] / static_cast<double>(link_count_[link])) continue;
      for (std::size_t f : link_flows_[link]) {
        Flow& flow = flows_[f];
        if (flow.fixed == stamp_) continue;
        flow.fixed = stamp_;
        flow.next_rate = share;
        for (std::size_t other : path_of(flow)) {
          link_capacity_[other] = std::max(0.0, link_capacity_[other] - share);
          if (--link_count_[other] > 0 && other != link)
            bottlenecks.emplace(link_capacity_[other] / static_cast<double>(link_count_[other]), other);
        }
      }
    }
    // Only a flow whose rate changed gets a new finish event: the others' still stand.
    for (std::size_t f : component) {
      Flow& flow = flows_[f];
      if (flow.next_rate == flow.rate) continue;
      flow.bytes_left = std::max(0.0, flow.bytes_left - flow.rate * (now_ - flow.since));
      flow.since = now_;
      flow.rate = flow.next_rate;
      flow.version = ++version_;
      push(now_ + flow.bytes_left / flow.rate, Kind::finish, f, flow.version);
    }
  }

  const Input& in_;
  const CostModel& model_;
  SendWindow window_;
  int ranks_;
  bool paced_;  // a pipeline's sends are synchronous, and so are those of a schedule in rounds
  bool node_memory_ = false;  // messages within a node move over its memory (the node's figures are given)
  std::vector<int> host_;     // per rank, whose links it uses: its node's, or its own on one node
  int leaf_nodes_ = 0, uplinks_ = 0;  // the fat tree's shape (Platform); 0: one switch
  double now_ = 0;
  // Send steps per queue, in program order: rank r's to other nodes at 2r, to its own node at 2r + 1.
  std::vector<std::vector<std::size_t>> sends_;
  std::vector<std::size_t> next_;  // per queue, into sends_
  std::vector<double> cpu_;                      // when each rank's own time is next free
  std::vector<std::vector<std::size_t>> in_flight_;  // per queue
  std::vector<std::vector<double>> arrival_;
  std::vector<std::vector<bool>> observed_;  // receives a rank has completed (and paid for)
  std::vector<Flow> flows_;
  std::vector<std::vector<std::size_t>> link_flows_;  // flows in their bandwidth phase, per link
  std::vector<std::vector<std::size_t>> parked_;      // per rank, flows waiting for it to post their receive
  std::vector<double> link_capacity_;
  std::vector<std::size_t> link_count_;
  std::vector<std::uint32_t> link_stamp_;
  std::uint32_t stamp_ = 0;
  std::uint32_t version_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
};

}  // namespace

std::optional<double> fair_sharing(const Input& in, const CostModel& model, const SendWindow& window,
                                   const Platform& platform, std::string& problem) {
  return FairSharing(in, model, window, platform).run(problem);
}

}  // namespace herald::timing
