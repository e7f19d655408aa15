// The table of broadcast algorithms: canonical names, defaults, and the generators behind them.
#pragma once

#include <herald/error.hpp>
#include <herald/schedule.hpp>
#include <herald/simulator.hpp>

#include <climits>
#include <span>
#include <string>
#include <string_view>

namespace herald {

// The largest byte count one MPI message may carry: counts are ints.
inline constexpr std::size_t max_message_bytes = INT_MAX;

struct AlgorithmInfo {
  std::string_view name;     // canonical name, used by the API, the CLI and the docs
  std::string_view summary;  // one line for --help and the docs
  Parameters defaults;       // used where the caller leaves a parameter at zero
  bool reads_segment = false;  // the parameters the algorithm reads; others are ignored
  bool reads_fanout = false;
  bool reads_radix = false;
  bool reads_node_size = false;
  bool reads_leaders = false;
  // true: the program is "receive, then send", executed with blocking MPI_Recv/MPI_Send (Cordeiro and Zola's sBBT).
  bool blocking = false;
  // true: each segment goes from one rank of a node (its writer) to all the others of that node, so where
  // they share memory the executor may carry that stage through it (node_memory.hpp).
  bool node_memory = false;
  // true: its schedules need their receives posted one at a time, in program order (Schedule::ordered_receives).
  bool ordered_receives = false;
  // Builds the steps of one rank. Called with parameters already defaulted and validated.
  Program (*program)(const Problem& problem, int rank) = nullptr;
  // Its completion time under a cost model, in closed form (with one send in flight per rank), for P >= 2
  // and parameters defaulted: what "auto" compares. The simulator gives the exact figure.
  double (*cost)(const Problem& problem, const CostModel& model) = nullptr;
  // The algorithms with a stage among node leaders (reads_leaders): where the ranks span nodes, `cost` is
  // leader_stage_cost() plus this, so that "auto" prices each stage once for them all.
  double (*within_cost)(const Problem& problem, const CostModel& model) = nullptr;
  // A pipeline whose best segment the model gives in closed form: that segment, which "auto" prices beside
  // the sizes it searches (they stop at 16 KiB, and the best may lie below).
  std::size_t (*best_segment)(const Problem& problem, const CostModel& model) = nullptr;
};

// Every schedule-generating algorithm, in the order the docs list them. (`native`, the installed MPI's own
// MPI_Bcast, is not a schedule and is handled by the executor.)
std::span<const AlgorithmInfo> algorithms();

// The entry with that name; throws Error(unknown_algorithm) naming the known ones and the nearest.
const AlgorithmInfo& find_algorithm(std::string_view name);

// Checks a name a user may give for a broadcast (`auto`, `native` or an algorithm of the table), naming `what`
// (HERALD_ALGORITHM, an option) in the Error(unknown_algorithm) it throws otherwise, with every choice and the
// nearest.
void check_algorithm_choice(std::string_view name, std::string_view what);

// Comma-separated list of all names, for error messages and --help.
std::string algorithm_names();

// Every leader stage, in the order "auto" tries them.
std::span<const LeaderStage> leader_stages() noexcept;
// Its name, the table algorithm it runs ("" for a value that is not a stage, or unset).
std::string_view leader_stage_name(LeaderStage stage) noexcept;
std::string_view leader_stage_name(std::optional<LeaderStage> stage) noexcept;
// Comma-separated list of their names, for error messages and --help.
std::string leader_stage_names();
// What the problem's stage among the leaders of its nodes (more than one) takes under the model: simulated
// up to 16 nodes, in closed form beyond.
double leader_stage_cost(const Problem& problem, const CostModel& model);
// The stage of that name; throws Error(invalid_argument) naming `what` and the choices for any other.
LeaderStage parse_leader_stage(std::string_view name, std::string_view what);

// Checks ranks, root and parameters; throws Error naming the first problem.
void validate(const Problem& problem);

// The problem with every zero parameter the algorithm reads replaced by its default.
Problem with_defaults(const AlgorithmInfo& algorithm, Problem problem);

// One rank's program (defaults applied, long steps split at `limit`).
Program make_program(const AlgorithmInfo& algorithm, const Problem& problem, int rank,
                     std::size_t limit = max_message_bytes);

// Whether the problem's schedule posts its receives one at a time (Schedule::ordered_receives): the
// algorithm's own need, or its stage among node leaders'.
bool receives_in_order(const AlgorithmInfo& algorithm, const Problem& problem);

// All ranks' programs.
Schedule make_schedule(const AlgorithmInfo& algorithm, const Problem& problem,
                       std::size_t limit = max_message_bytes);

}  // namespace herald
