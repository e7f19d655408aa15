// "auto": the algorithm the cost model predicts fastest for a shape.
#pragma once

#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/simulator.hpp>

#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

namespace herald {

// What "auto" runs: an algorithm, the parameters it was priced with, and its closed-form time.
struct Choice {
  const AlgorithmInfo* algorithm = nullptr;
  Parameters parameters{};
  double seconds = 0;
};

// How many ranks' worth of traffic the busiest node's one network link carries, in or out, under the
// problem's nodes (nodes_of()): that node's bytes across over its busiest rank's. The closed forms time
// each rank's own sends one after another, so this is what they miss: 1 where a node's traffic crosses
// through one rank (the node-aware algorithms, whose leaders alone cross; a tree's root; a chain over nodes
// in blocks), up to the ranks per node where every rank of a node takes its data from another node.
// Counted on the algorithm's own schedule at a small size (a few segments); 1 on one node. Above 2048 ranks,
// where building every rank's program would cost seconds, the largest node's ranks for the algorithms that
// are not node-aware.
double link_load(const AlgorithmInfo& algorithm, const Problem& problem);

// The bytes an algorithm's schedule moves, in all, per byte broadcast: P - 1 where no rank receives a byte
// twice, more for scatter_ring's enclosed ring. Counted as link_load() is (estimated as P - 1 above 2048
// ranks). What breaks ties between algorithms priced alike.
double bytes_moved(const AlgorithmInfo& algorithm, const Problem& problem);

// The link loads and bytes moved of one communicator, kept by algorithm, root and node-size override: they
// depend on neither the size nor the cost model, so a communicator computes each once.
class LinkLoads {
 public:
  double of(const AlgorithmInfo& algorithm, const Problem& problem);
  double moved(const AlgorithmInfo& algorithm, const Problem& problem);

 private:
  using Key = std::tuple<const AlgorithmInfo*, int, std::optional<int>>;  // algorithm, root, parameters.node_size
  std::map<Key, double> known_, moved_;
};

// Prices every algorithm of the table in closed form (AlgorithmInfo::cost) with the parameters given, and
// each segmented one whose segment the caller left unset at every candidate segment size too (powers of
// two from 16 KiB to 16 MiB below the message size, and its default), and each node-aware one whose leader
// stage the caller left unset at every stage (leader_stages()) where the ranks span nodes; returns the cheapest, ties to the
// algorithm that moves fewer bytes (bytes_moved()), then to the earlier table entry. Where the ranks span
// nodes, each algorithm's network beta is multiplied by its link load (the ranks of a node share its link).
// `loads`, if given, keeps loads and bytes moved per communicator. Pure and deterministic.
Choice choose_algorithm(const Problem& problem, const CostModel& model, LinkLoads* loads = nullptr);

// Every algorithm of the table at its cheapest parameters as choose_algorithm() prices them, cheapest
// first (ties in table order): its first entry is choose_algorithm()'s choice, the rest the runners-up.
std::vector<Choice> rank_algorithms(const Problem& problem, const CostModel& model, LinkLoads* loads = nullptr);

// The algorithm choose_algorithm() picks.
const AlgorithmInfo& select_algorithm(const Problem& problem, const CostModel& model, LinkLoads* loads = nullptr);

// What "auto" runs where no measurement (tuning file) speaks for the size. On one node whose ranks share
// memory (problem.node_memory, the layout's one node), the installed MPI_Bcast is the peer to beat, over the
// same memory, and the model cannot price it: herald's messages are no faster than its own, and node memory
// (AlgorithmInfo::node_memory) wins only once a call is long enough to pay for its synchronisation. So auto
// keeps MPI_Bcast there below `native_below` bytes (std::nullopt, exactly where keeps_native()); unset, below
// default_native_below() for the node's ranks; on a node of two ranks also from two_ranks_native_from;
// between them runs the cheapest algorithm
// that carries the node through its memory, at the caller's parameters or its defaults (no segment search:
// node memory moves slot-sized pieces). Elsewhere it is choose_algorithm(). Pure and deterministic.
bool keeps_native(const Problem& problem, std::optional<std::size_t> native_below) noexcept;
std::optional<Choice> choose_unmeasured(const Problem& problem, const CostModel& model,
                                        std::optional<std::size_t> native_below, LinkLoads* loads = nullptr);
// The cheapest algorithm that carries the node through its memory, at the caller's parameters or its
// defaults; none where the table has no such algorithm.
std::optional<Choice> cheapest_node_memory(const Problem& problem, const CostModel& model);
// The size below which MPI_Bcast beats node memory on a node of `ranks` ranks, as measured (selector.cpp).
std::size_t default_native_below(int ranks) noexcept;
// On one node of two ranks a broadcast is one message: the MPI's own single-copy path moves it with one copy
// where node memory takes two, and from this size the two copies are what a slow machine state slows
// (docs/benchmarks.md, "auto without a tuning file, on one node"). keeps_native() keeps MPI_Bcast there.
inline constexpr std::size_t two_ranks_native_from = 8192;
// keeps_native() because of the rule above, not the short-call one.
bool keeps_native_one_message(const Problem& problem) noexcept;

// Built-in models of typical machines (docs/tuning.md, "Without a tuning file"): published orders of
// magnitude for their latency, bandwidth and per-message cost, not measurements of any one machine.
// Each cluster preset has a typical node: its processors and as many ranks as they have cores, with MPI
// over shared memory within it (the model's node_alpha and node_beta). herald finds a job's real nodes
// itself; the shape is for the tools that price a cluster without running on it (herald-sim --preset).
struct CostPreset {
  const char* name;
  const char* describes;
  CostModel model;
  const char* node = "";    // the typical node's processors
  int ranks_per_node = 0;   // one per core; 0: one node (shared-memory)
};
std::span<const CostPreset> cost_presets() noexcept;
// Comma-separated list of their names, for error messages and --help.
std::string cost_preset_names();
// The preset of that name; throws Error(invalid_argument) naming `what` and the choices for any other.
const CostPreset& cost_preset(std::string_view name, std::string_view what = "HERALD_PRESET");

// The cost model "auto" uses: HERALD_ALPHA, HERALD_BETA and HERALD_GAP (seconds, seconds per byte), and
// HERALD_NETWORK (ports or fair) with HERALD_OVERHEAD and HERALD_EAGER_BYTES for the fair-sharing network;
// unset ones come from the preset HERALD_PRESET names, else keep values measured on a shared-memory node
// (docs/configuration.md). Throws Error(invalid_argument) naming the variable on a bad value.
CostModel cost_model_from_environment();
// The same over `base` (a tuning file's model, which HERALD_PRESET does not replace): each variable set
// replaces its value.
CostModel cost_model_from_environment(const CostModel& base);

}  // namespace herald
