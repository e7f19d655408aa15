#include <herald/algorithms.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/selector.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace herald {

namespace {

constexpr std::size_t smallest_candidate = 16 * 1024;
constexpr std::size_t largest_candidate = 16 * 1024 * 1024;

}  // namespace

// Over the busiest rank's, not over the message: the closed forms already time a rank's own sends one after
// another, so only other ranks crossing the same link slow it.
double link_load(const AlgorithmInfo& a, const Problem& problem) {
  const NodeLayout nodes = nodes_of(problem);
  // One leader a node crosses the network, and its stage's formula counts each leader's sends.
  if (nodes.nodes() == 1 || a.reads_node_size) return 1.0;
  const int P = problem.ranks;
  if (P > 2048) return nodes.largest_node();
  // A few segments of a few bytes per rank: the structure of a large broadcast, built quickly.
  Problem small = problem;
  small.bytes = 64 * static_cast<std::size_t>(P);
  small.parameters.segment = a.reads_segment ? std::optional(small.bytes / 8) : std::nullopt;
  const auto N = static_cast<std::size_t>(nodes.nodes());
  std::vector<std::size_t> node_in(N, 0), node_out(N, 0), rank_in(N, 0), rank_out(N, 0);
  for (int r = 0; r < P; ++r) {
    std::size_t in = 0, out = 0;
    for (const Step& step : make_program(a, small, r))
      if (nodes.node_of(step.peer) != nodes.node_of(r)) (step.op == Step::Op::recv ? in : out) += step.range.length;
    const auto n = static_cast<std::size_t>(nodes.node_of(r));
    node_in[n] += in;
    node_out[n] += out;
    rank_in[n] = std::max(rank_in[n], in);
    rank_out[n] = std::max(rank_out[n], out);
  }
  double load = 1.0;
  for (std::size_t n = 0; n < N; ++n) {
    if (rank_in[n] > 0) load = std::max(load, static_cast<double>(node_in[n]) / static_cast<double>(rank_in[n]));
    if (rank_out[n] > 0) load = std::max(load, static_cast<double>(node_out[n]) / static_cast<double>(rank_out[n]));
  }
  return load;
}

double bytes_moved(const AlgorithmInfo& a, const Problem& problem) {
  const int P = problem.ranks;
  if (P > 2048 || P < 2) return P - 1;
  Problem small = problem;
  small.bytes = 64 * static_cast<std::size_t>(P);
  small.parameters.segment = a.reads_segment ? std::optional(small.bytes / 8) : std::nullopt;
  std::size_t received = 0;
  for (int r = 0; r < P; ++r)
    for (const Step& step : make_program(a, small, r))
      if (step.op == Step::Op::recv) received += step.range.length;
  return static_cast<double>(received) / static_cast<double>(small.bytes);
}

double LinkLoads::moved(const AlgorithmInfo& a, const Problem& problem) {
  const Key key{&a, problem.root, problem.parameters.node_size};
  if (auto it = moved_.find(key); it != moved_.end()) return it->second;
  return moved_[key] = bytes_moved(a, problem);
}

double LinkLoads::of(const AlgorithmInfo& a, const Problem& problem) {
  const Key key{&a, problem.root, problem.parameters.node_size};
  if (auto it = known_.find(key); it != known_.end()) return it->second;
  return known_[key] = link_load(a, problem);
}

std::vector<Choice> rank_algorithms(const Problem& problem, const CostModel& model, LinkLoads* loads) {
  validate(problem);
  const bool spans_nodes = node_counts(problem).nodes > 1;
  std::vector<Choice> ranked;
  // The stage among node leaders, priced once for every node-aware algorithm that runs it: its link load is
  // 1 (link_load()), so each prices it under the same model.
  std::map<std::tuple<std::optional<LeaderStage>, std::optional<std::size_t>, std::optional<int>>, double>
      stage_seconds;
  for (const AlgorithmInfo& a : algorithms()) {
    const Problem given = with_defaults(a, problem);
    // Nothing moves: every algorithm is free.
    if (problem.ranks < 2 || problem.bytes == 0) {
      ranked.push_back({&a, given.parameters, 0.0});
      continue;
    }
    // The ranks of a node share its link: its bytes cross it as many times as the algorithm makes them.
    CostModel shared = model;
    if (spans_nodes) shared.beta *= loads ? loads->of(a, problem) : link_load(a, problem);
    auto price = [&](const Problem& candidate) {
      if (!spans_nodes || a.within_cost == nullptr) return a.cost(candidate, shared);
      const Parameters& q = candidate.parameters;
      auto [known, added] = stage_seconds.try_emplace({q.leaders, q.segment, q.fanout}, 0.0);
      if (added) known->second = leader_stage_cost(candidate, shared);
      return known->second + a.within_cost(candidate, shared);
    };
    Choice best{&a, given.parameters, price(given)};
    std::vector<std::optional<LeaderStage>> stages{given.parameters.leaders};
    if (a.reads_leaders && !problem.parameters.leaders && spans_nodes) stages.assign(leader_stages().begin(), leader_stages().end());
    for (const std::optional<LeaderStage> stage : stages) {
      Problem candidate = given;
      candidate.parameters.leaders = stage;
      if (stage != given.parameters.leaders) {
        const double seconds = price(candidate);
        if (seconds < best.seconds) best = {&a, candidate.parameters, seconds};
      }
      if (!a.reads_segment || problem.parameters.segment || !a.defaults.segment) continue;
      for (std::size_t segment = smallest_candidate; segment <= largest_candidate && segment < problem.bytes;
           segment *= 2) {
        candidate.parameters.segment = segment;
        const double seconds = price(candidate);
        if (seconds < best.seconds) best = {&a, candidate.parameters, seconds};
      }
      // The segment a pipeline's model places best: the algorithm's own, or its stage among the leaders'
      // (among as many ranks as nodes).
      const AlgorithmInfo* stage_algorithm =
          a.reads_leaders && stage && spans_nodes ? &find_algorithm(leader_stage_name(*stage)) : nullptr;
      if (a.best_segment != nullptr) {
        candidate.parameters.segment = a.best_segment(candidate, shared);
      } else if (stage_algorithm != nullptr && stage_algorithm->best_segment != nullptr) {
        Problem leaders = candidate;
        leaders.ranks = node_counts(problem).nodes;
        leaders.root = 0;
        candidate.parameters.segment = stage_algorithm->best_segment(leaders, model);
      } else {
        continue;
      }
      const double seconds = price(candidate);
      if (seconds < best.seconds) best = {&a, candidate.parameters, seconds};
    }
    ranked.push_back(best);
  }
  // A tie for the first place (scatter_ring and scatter_ring_tuned share a formula) goes to the algorithm
  // that moves fewer bytes, then keeps the table's order; only that tie changes the choice, and only it pays
  // for counting the bytes.
  std::ranges::stable_sort(ranked, {}, &Choice::seconds);
  std::size_t tied = 1;
  while (tied < ranked.size() && ranked[tied].seconds == ranked[0].seconds) ++tied;
  if (tied > 1 && ranked[0].seconds > 0) {
    auto moved = [&](const Choice& c) {
      return loads ? loads->moved(*c.algorithm, problem) : bytes_moved(*c.algorithm, problem);
    };
    std::vector<double> by(tied);
    for (std::size_t i = 0; i < tied; ++i) by[i] = moved(ranked[i]);
    std::vector<std::size_t> order(tied);
    for (std::size_t i = 0; i < tied; ++i) order[i] = i;
    std::ranges::stable_sort(order, {}, [&](std::size_t i) { return by[i]; });
    std::vector<Choice> first(tied);
    for (std::size_t i = 0; i < tied; ++i) first[i] = ranked[order[i]];
    std::ranges::copy(first, ranked.begin());
  }
  return ranked;
}

Choice choose_algorithm(const Problem& problem, const CostModel& model, LinkLoads* loads) {
  return rank_algorithms(problem, model, loads).front();
}

const AlgorithmInfo& select_algorithm(const Problem& problem, const CostModel& model, LinkLoads* loads) {
  return *choose_algorithm(problem, model, loads).algorithm;
}

namespace {
bool one_shared_node(const Problem& problem) noexcept {
  return problem.node_memory && problem.ranks > 1 && node_counts(problem).nodes == 1;
}
}  // namespace

// With Open MPI 4.1.4 on one node of the 2-core VM (bench/tune/results/untuned_openmpi_p{2,4}*.csv) node
// memory's fixed cost, about 0.2 us a call at 2 ranks and 0.6 at 4, is above MPI_Bcast's own up to 256 B at
// 2 ranks (0.08-0.13 us) and up to 128 B at 4 (0.24-0.55); from 512 B and 256 B it is below (MPI_Bcast's
// tree grows with the ranks, the ring does not).
std::size_t default_native_below(int ranks) noexcept { return ranks <= 2 ? 512 : 256; }

bool keeps_native_one_message(const Problem& problem) noexcept {
  return one_shared_node(problem) && problem.ranks == 2 && problem.bytes >= two_ranks_native_from;
}

bool keeps_native(const Problem& problem, std::optional<std::size_t> native_below) noexcept {
  return keeps_native_one_message(problem) ||
         (one_shared_node(problem) && problem.bytes < native_below.value_or(default_native_below(problem.ranks)));
}

std::optional<Choice> choose_unmeasured(const Problem& problem, const CostModel& model,
                                        std::optional<std::size_t> native_below, LinkLoads* loads) {
  if (keeps_native(problem, native_below)) return std::nullopt;
  if (!one_shared_node(problem)) return choose_algorithm(problem, model, loads);
  const std::optional<Choice> best = cheapest_node_memory(problem, model);
  return best ? best : choose_algorithm(problem, model, loads);  // a table without node memory: the model
}

std::optional<Choice> cheapest_node_memory(const Problem& problem, const CostModel& model) {
  // Each node-memory algorithm at the caller's parameters, else its defaults: the ring moves slot-sized
  // pieces, and a segment below the slot only adds handshakes, which the price cannot see: auto's searched
  // segments ran node_shared 1.4-2.1x slower than its default from 64 KiB to 8 MiB at 2 ranks
  // (bench/tune/results/untuned_openmpi_p2-40537af.csv).
  std::optional<Choice> best;
  for (const AlgorithmInfo& a : algorithms()) {
    if (!a.node_memory) continue;
    const Problem given = with_defaults(a, problem);
    const Choice c{&a, given.parameters, a.cost(given, model)};
    if (!best || c.seconds < best->seconds) best = c;
  }
  return best;
}

namespace {
// Within a node, MPI over shared memory: about 0.4 us and 10 GB/s.
constexpr double shm_alpha = 4.0e-7, shm_beta = 1.0e-10;
constexpr CostModel cluster(double alpha, double beta, double overhead, std::size_t eager) {
  return {.alpha = alpha, .beta = beta, .network = Network::fair_sharing, .overhead = overhead, .eager_bytes = eager,
          .node_alpha = shm_alpha, .node_beta = shm_beta};
}
// Each cluster's typical node: the processors of common machines on that network, a rank per core.
constexpr CostPreset presets[] = {
    {"shared-memory", "one node, MPI over shared memory", {.alpha = shm_alpha, .beta = shm_beta}},
    {"ethernet-10g", "10 Gbit/s Ethernet, MPI over TCP", cluster(25e-6, 8.5e-10, 2e-6, 65536), "2 x 16-core x86", 32},
    {"ethernet-100g", "100 Gbit/s Ethernet with RoCE", cluster(3e-6, 8.5e-11, 3e-7, 16384), "2 x 32-core x86", 64},
    {"infiniband-edr", "InfiniBand EDR, 100 Gbit/s", cluster(1.2e-6, 8.3e-11, 1e-7, 8192), "2 x 18-core Intel Xeon",
     36},
    {"infiniband-hdr", "InfiniBand HDR, 200 Gbit/s", cluster(1.1e-6, 4.2e-11, 1e-7, 8192), "2 x 64-core AMD EPYC",
     128},
    {"omni-path", "Intel Omni-Path, 100 Gbit/s", cluster(1.0e-6, 8.6e-11, 2e-7, 8192), "2 x 24-core Intel Xeon", 48},
    {"slingshot", "HPE Slingshot-11, 200 Gbit/s", cluster(2.0e-6, 4.2e-11, 2e-7, 8192), "2 x 64-core AMD EPYC", 128},
};
}  // namespace

std::span<const CostPreset> cost_presets() noexcept { return presets; }

std::string cost_preset_names() {
  std::string names;
  for (const CostPreset& p : presets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

const CostPreset& cost_preset(std::string_view name, std::string_view what) {
  for (const CostPreset& p : presets)
    if (name == p.name) return p;
  throw Error(Errc::invalid_argument,
              std::string(what) + " '" + std::string(name) + "' is not one of " + cost_preset_names());
}

CostModel cost_model_from_environment() {
  CostModel base{.alpha = 1.0e-6, .beta = 1.0e-10};
  if (auto v = environment("HERALD_PRESET")) base = cost_preset(*v).model;
  return cost_model_from_environment(base);
}

CostModel cost_model_from_environment(const CostModel& base) {
  CostModel model = base;
  auto seconds = [](const std::string& text, const char* name) { return parse_seconds(text, name); };

  if (auto v = environment("HERALD_ALPHA")) model.alpha = seconds(*v, "HERALD_ALPHA");
  if (auto v = environment("HERALD_BETA")) model.beta = seconds(*v, "HERALD_BETA");
  if (auto v = environment("HERALD_GAP")) model.gap = seconds(*v, "HERALD_GAP");
  if (auto v = environment("HERALD_NODE_ALPHA")) model.node_alpha = seconds(*v, "HERALD_NODE_ALPHA");
  if (auto v = environment("HERALD_NODE_BETA")) model.node_beta = seconds(*v, "HERALD_NODE_BETA");
  if (auto v = environment("HERALD_NETWORK")) {
    if (*v == "fair") model.network = Network::fair_sharing;
    else if (*v != "ports")
      throw Error(Errc::invalid_argument, "HERALD_NETWORK '" + *v + "' is neither 'ports' nor 'fair'");
  }
  if (auto v = environment("HERALD_OVERHEAD")) model.overhead = seconds(*v, "HERALD_OVERHEAD");
  if (auto v = environment("HERALD_EAGER_BYTES")) model.eager_bytes = parse_bytes(*v, "HERALD_EAGER_BYTES");
  return model;
}

}  // namespace herald
