// One Task Bench task graph: its parameters and its shape.
//
// A graph is `timesteps` rows of at most `max_width` points. Row t holds the live points
// [offset_at_timestep(t), offset_at_timestep(t) + width_at_timestep(t)). Task (t, p) reads the outputs of
// its dependencies in row t - 1 and nothing older, so row t can run once row t - 1 is done. Which points
// a task depends on is a function of its point and of the row's dependence set: most types use one set
// for every row, fft, spread and random_nearest cycle through several (dependence_set_at_timestep).
// A dependency that is not live in row t - 1 (dom, tree) is no input: it is skipped.
#pragma once

#include "kernel.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace herald::taskbench {

enum class DependenceType {
  trivial,              // no dependencies
  no_comm,              // p <- p
  stencil_1d,           // p <- p-1, p, p+1 (clipped at the edges)
  stencil_1d_periodic,  // the same, wrapping around
  dom,                  // p <- p-1, p over a diamond of rows (a wavefront)
  tree,                 // p <- p/2: a binary tree that doubles the width each row
  fft,                  // p <- p - 2^k, p, p + 2^k, k cycling over the rows (butterflies)
  all_to_all,           // p <- every point
  nearest,              // p <- the `radix` points around p
  spread,               // p <- `radix` points spread evenly over the width, shifted per row
  random_nearest,       // nearest, each neighbour kept with probability `fraction` (p itself always)
  random_spread,        // named by Task Bench but not defined there: refused by find_graph_error
};

// Task Bench's type names ("all_to_all", ...), in its help listing's (alphabetical) order.
std::string_view dependence_name(DependenceType type);
std::optional<DependenceType> dependence_type_named(std::string_view name);
std::span<const DependenceType> dependence_types_by_name();

// Types whose dependence sets cycle with a user-chosen period: spread and random_nearest. Task Bench
// gives them period 3 when -period is absent and every other type period 0 (it refuses any other value).
bool needs_period(DependenceType type);
long default_period(DependenceType type);

// An inclusive range of points [first, last].
struct Interval {
  long first = 0;
  long last = -1;

  long size() const { return last >= first ? last - first + 1 : 0; }
  bool contains(long point) const { return first <= point && point <= last; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

// The smallest -output: every output holds at least one (timestep, point) record.
inline constexpr std::size_t min_output_bytes = 2 * sizeof(long);

struct TaskGraph {
  long graph_index = 0;  // position among the run's graphs (-and), which random choices depend on
  long timesteps = 4;
  long max_width = 4;
  DependenceType dependence = DependenceType::trivial;
  long radix = 3;
  long period = 0;  // already resolved: see default_period()
  double fraction_connected = 0.25;
  Kernel kernel{};
  std::size_t output_bytes_per_task = min_output_bytes;
  std::size_t scratch_bytes_per_task = 0;
  int nb_fields = 0;  // -field: buffers an implementation may rotate through; parse_options sets timesteps
  std::size_t broadcast_bytes = 0;  // -broadcast: a buffer every task of the graph reads (0: none)

  long offset_at_timestep(long timestep) const;  // 0 before the first row
  long width_at_timestep(long timestep) const;   // 0 before the first row
  bool is_live(long timestep, long point) const;

  // How many dependence sets the rows cycle through, the period of that cycle (Task Bench keeps both
  // equal), and the set row `timestep` uses.
  long max_dependence_sets() const;
  long timestep_period() const;
  long dependence_set_at_timestep(long timestep) const;

  // The points of the previous row `point` depends on under dependence set `dset`, before clipping to the
  // previous row's live points, as Task Bench lists them (not sorted for stencil_1d_periodic and spread).
  std::vector<Interval> dependencies(long dset, long point) const;
  // The points of the next row that depend on `point` under `dset` (the next row's set), unclipped.
  std::vector<Interval> reverse_dependencies(long dset, long point) const;

  // The live points of row timestep-1 whose outputs task (timestep, point) reads, in the order its inputs
  // are numbered (the order of dependencies()).
  std::vector<long> input_points(long timestep, long point) const;
  // The live points of row timestep+1 that read the output of task (timestep, point).
  std::vector<long> consumer_points(long timestep, long point) const;
};

// The first reason the graph is not one Task Bench runs, as an error message, or nothing. Covers its
// flag checks (period, spread's period bound) and its structural check over every dependence set (no
// point lists a dependency twice; every reverse dependency is mirrored by a dependency), and refuses what
// Task Bench accepts but then crashes on: -radix 0, fft on one point, random_spread, -scratch not a
// multiple of 8, a memory kernel without scratch or with -sample 0.
std::optional<std::string> find_graph_error(const TaskGraph& graph);

}  // namespace herald::taskbench
