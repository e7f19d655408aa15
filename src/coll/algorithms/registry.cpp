#include "algorithms.hpp"
#include "nodes.hpp"

#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <algorithm>
#include <array>
#include <vector>

namespace herald {
namespace {

constexpr std::size_t default_segment = 64 * 1024;

using detail::balanced_binomial_program;
using detail::binary_program;
using detail::binomial_program;
using detail::chain_program;
using detail::knomial_program;
using detail::linear_program;
using detail::split_binary_program;
using detail::scatter_rdb_program;
using detail::scatter_ring_program;
using detail::scatter_ring_tuned_program;
using detail::two_tree_program;
using detail::circulant_program;
using detail::hierarchical_program;
using detail::node_pipeline_program;
using detail::node_shared_program;

const std::array table{
    AlgorithmInfo{.name = "linear",
                  .summary = "the root sends the whole buffer to every rank in turn",
                  .defaults = {},
                  .program = linear_program,
                  .cost = detail::linear_cost},
    AlgorithmInfo{.name = "binomial",
                  .summary = "binomial tree, largest sub-tree first; segmented when a segment size is given",
                  .defaults = {},
                  .reads_segment = true,
                  .program = binomial_program,
                  .cost = detail::binomial_cost},
    AlgorithmInfo{.name = "balanced_binomial",
                  .summary = "Cordeiro and Zola's sBBT: Open MPI's binomial tree run blocking and unsegmented",
                  .defaults = {},
                  .blocking = true,
                  .program = balanced_binomial_program,
                  .cost = detail::binomial_cost},
    AlgorithmInfo{.name = "binary",
                  .summary = "binary tree, segmented (pipelined)",
                  .defaults = {.segment = default_segment},
                  .reads_segment = true,
                  .program = binary_program,
                  .cost = detail::binary_cost},
    AlgorithmInfo{.name = "split_binary",
                  .summary = "binary tree carrying one half down each sub-tree, then partners swap halves; segmented",
                  .defaults = {.segment = default_segment},
                  .reads_segment = true,
                  .program = split_binary_program,
                  .cost = detail::split_binary_cost},
    AlgorithmInfo{.name = "chain",
                  .summary = "pipelined chains, `fanout` of them leaving the root; segmented",
                  .defaults = {.segment = default_segment, .fanout = 1},
                  .reads_segment = true,
                  .reads_fanout = true,
                  .program = chain_program,
                  .cost = detail::chain_cost},
    AlgorithmInfo{.name = "knomial",
                  .summary = "k-nomial tree of radix `radix`; segmented when a segment size is given",
                  .defaults = {.radix = 4},
                  .reads_segment = true,
                  .reads_radix = true,
                  .program = knomial_program,
                  .cost = detail::knomial_cost},
    AlgorithmInfo{.name = "scatter_ring",
                  .summary = "binomial scatter, then MPICH's enclosed ring allgather (P-1 steps, some bytes twice)",
                  .defaults = {},
                  .program = scatter_ring_program,
                  .cost = detail::scatter_ring_cost},
    AlgorithmInfo{.name = "scatter_ring_tuned",
                  .summary = "binomial scatter, then a ring allgather in which no rank receives a chunk it has",
                  .defaults = {},
                  .program = scatter_ring_tuned_program,
                  .cost = detail::scatter_ring_cost},
    AlgorithmInfo{.name = "scatter_rdb",
                  .summary = "binomial scatter, then a recursive-doubling allgather (stand-ins for P not a power of 2)",
                  .defaults = {},
                  .program = scatter_rdb_program,
                  .cost = detail::scatter_rdb_cost},
    AlgorithmInfo{.name = "two_tree",
                  .summary = "two binary trees, each rank interior in at most one, each carrying half the segments",
                  .defaults = {.segment = default_segment},
                  .reads_segment = true,
                  .program = two_tree_program,
                  .cost = detail::two_tree_cost},
    AlgorithmInfo{.name = "circulant",
                  .summary = "Traff's round-optimal broadcast on a circulant graph: every rank sends and receives a "
                             "segment each round, n segments in n - 1 + ceil(log2 P) rounds; segmented",
                  .defaults = {.segment = default_segment},
                  .reads_segment = true,
                  .ordered_receives = true,
                  .program = circulant_program,
                  .cost = detail::circulant_cost,
                  .best_segment = detail::circulant_segment},
    AlgorithmInfo{.name = "hierarchical",
                  .summary = "binomial tree among one leader per node, then a binomial tree within each node; segmented when a segment size is given",
                  .defaults = {},
                  .reads_segment = true,
                  .reads_node_size = true,
                  .program = hierarchical_program,
                  .cost = detail::hierarchical_cost},
    AlgorithmInfo{.name = "node_pipeline",
                  .summary = "a pipelined broadcast among one leader per node (`leaders`: chain by default), each leader "
                             "passing segment k down a chain within its node while segment k+1 crosses the network; "
                             "segmented",
                  .defaults = {.segment = default_segment, .fanout = 1, .leaders = LeaderStage::chain},
                  .reads_segment = true,
                  .reads_fanout = true,
                  .reads_node_size = true,
                  .reads_leaders = true,
                  .program = node_pipeline_program,
                  .cost = detail::node_pipeline_cost,
                  .within_cost = detail::node_pipeline_within_cost},
    AlgorithmInfo{.name = "node_shared",
                  .summary = "node_pipeline's stage among node leaders, each leader handing every segment to its node's "
                             "ranks through node-shared memory (as messages where there is none); segmented",
                  .defaults = {.segment = default_segment, .fanout = 1, .leaders = LeaderStage::chain},
                  .reads_segment = true,
                  .reads_fanout = true,
                  .reads_node_size = true,
                  .reads_leaders = true,
                  .node_memory = true,
                  .program = node_shared_program,
                  .cost = detail::node_shared_cost,
                  .within_cost = detail::node_shared_within_cost},
};

struct StageName {
  LeaderStage stage;
  std::string_view name;
};
// In the order "auto" tries them (a tie keeps the first).
constexpr StageName stage_names[] = {{LeaderStage::chain, "chain"},
                                     {LeaderStage::two_tree, "two_tree"},
                                     {LeaderStage::split_binary, "split_binary"},
                                     {LeaderStage::binary, "binary"},
                                     {LeaderStage::scatter_ring_tuned, "scatter_ring_tuned"},
                                     {LeaderStage::binomial, "binomial"},
                                     {LeaderStage::circulant, "circulant"}};
constexpr std::array<LeaderStage, std::size(stage_names)> stage_order = [] {
  std::array<LeaderStage, std::size(stage_names)> order{};
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = stage_names[i].stage;
  return order;
}();

}  // namespace

std::span<const LeaderStage> leader_stages() noexcept { return stage_order; }

std::string_view leader_stage_name(LeaderStage stage) noexcept {
  for (const StageName& s : stage_names)
    if (s.stage == stage) return s.name;
  return {};
}

std::string_view leader_stage_name(std::optional<LeaderStage> stage) noexcept {
  return stage ? leader_stage_name(*stage) : std::string_view{};
}

std::string leader_stage_names() {
  std::string names;
  for (const StageName& s : stage_names) names += (names.empty() ? "" : ", ") + std::string(s.name);
  return names;
}

LeaderStage parse_leader_stage(std::string_view name, std::string_view what) {
  for (const StageName& s : stage_names)
    if (s.name == name) return s.stage;
  throw Error(Errc::invalid_argument, std::string(what) + " '" + std::string(name) +
                                          "' is not a stage among node leaders (" + leader_stage_names() + ")");
}

std::span<const AlgorithmInfo> algorithms() { return table; }

const AlgorithmInfo& find_algorithm(std::string_view name) {
  std::vector<std::string_view> names;
  for (const AlgorithmInfo& a : table) {
    if (a.name == name) return a;
    names.push_back(a.name);
  }
  throw Error(Errc::unknown_algorithm, not_one_of("algorithm", name, names));
}

void check_algorithm_choice(std::string_view name, std::string_view what) {
  std::vector<std::string_view> names{"auto", "native"};
  for (const AlgorithmInfo& a : table) names.push_back(a.name);
  if (std::ranges::find(names, name) == names.end())
    throw Error(Errc::unknown_algorithm, not_one_of(what, name, names));
}

std::string algorithm_names() {
  std::string names;
  for (const AlgorithmInfo& a : table) names += (names.empty() ? "" : ", ") + std::string(a.name);
  return names;
}

void validate(const Problem& p) {
  if (p.ranks < 1) throw Error(Errc::invalid_argument, "rank count " + std::to_string(p.ranks) + " is below 1");
  if (p.root < 0 || p.root >= p.ranks)
    throw Error(Errc::invalid_root,
                "root " + std::to_string(p.root) + " is not a rank of a " + std::to_string(p.ranks) + "-rank group");
  const Parameters& q = p.parameters;
  if (q.segment && *q.segment == 0) throw Error(Errc::invalid_argument, "segment size 0 is not positive");
  if (q.fanout && *q.fanout < 1)
    throw Error(Errc::invalid_argument, "fan-out " + std::to_string(*q.fanout) + " is below 1");
  if (q.radix && *q.radix < 2)
    throw Error(Errc::invalid_argument, "radix " + std::to_string(*q.radix) + " is below 2");
  if (q.leaders && leader_stage_name(*q.leaders).empty())
    throw Error(Errc::invalid_argument,
                "leader stage " + std::to_string(static_cast<int>(*q.leaders)) + " is not one herald knows");
  if (q.node_size && *q.node_size < 1)
    throw Error(Errc::invalid_argument, "node size " + std::to_string(*q.node_size) + " is below 1");
}

Problem with_defaults(const AlgorithmInfo& a, Problem p) {
  validate(p);
  // Exactly the fields the algorithm reads stay set: two problems that differ only in what it ignores
  // are the same problem (one plan, one cache entry).
  auto pick = [](bool reads, const auto& given, const auto& fallback) {
    return reads ? (given ? given : fallback) : std::nullopt;
  };
  Parameters& q = p.parameters;
  q.segment = pick(a.reads_segment, q.segment, a.defaults.segment);
  q.fanout = pick(a.reads_fanout, q.fanout, a.defaults.fanout);
  q.radix = pick(a.reads_radix, q.radix, a.defaults.radix);
  q.node_size = pick(a.reads_node_size, q.node_size, std::optional<int>{});
  q.leaders = pick(a.reads_leaders, q.leaders, a.defaults.leaders);
  if (!a.reads_node_size) p.layout = {};  // nothing else reads it: plans do not differ by it
  return p;
}

Program make_program(const AlgorithmInfo& a, const Problem& problem, int rank, std::size_t limit) {
  const Problem p = with_defaults(a, problem);
  if (rank < 0 || rank >= p.ranks)
    throw Error(Errc::invalid_argument, "rank " + std::to_string(rank) + " is outside the group");
  if (limit == 0) throw Error(Errc::invalid_argument, "message size limit is zero");
  if (p.bytes == 0) return {};  // nothing to move, as MPI_Bcast with count 0 returns at once
  return split_long_steps(a.program(p, rank), limit);
}

bool receives_in_order(const AlgorithmInfo& a, const Problem& problem) {
  if (a.ordered_receives) return true;
  return a.reads_leaders && detail::leader_algorithm(with_defaults(a, problem).parameters.leaders).ordered_receives;
}

Schedule make_schedule(const AlgorithmInfo& a, const Problem& problem, std::size_t limit) {
  Schedule s{with_defaults(a, problem), {}, receives_in_order(a, problem)};
  s.programs.reserve(s.problem.ranks);
  for (int r = 0; r < s.problem.ranks; ++r) s.programs.push_back(make_program(a, s.problem, r, limit));
  return s;
}

}  // namespace herald
