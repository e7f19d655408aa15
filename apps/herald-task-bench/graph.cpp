#include "graph.hpp"

#include "random.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace herald::taskbench {
namespace {

using enum DependenceType;

struct NamedType {
  std::string_view name;
  DependenceType type;
};

// Alphabetical, as Task Bench lists them in its help.
constexpr std::array<NamedType, 12> dependence_names{{
    {"all_to_all", all_to_all},
    {"dom", dom},
    {"fft", fft},
    {"nearest", nearest},
    {"no_comm", no_comm},
    {"random_nearest", random_nearest},
    {"random_spread", random_spread},
    {"spread", spread},
    {"stencil_1d", stencil_1d},
    {"stencil_1d_periodic", stencil_1d_periodic},
    {"tree", tree},
    {"trivial", trivial},
}};

constexpr std::array<DependenceType, 12> types_by_name = [] {
  std::array<DependenceType, 12> types{};
  for (std::size_t i = 0; i < types.size(); ++i) types[i] = dependence_names[i].type;
  return types;
}();

// ceil(log2(width)) in integers, so that no rounding of log2 can change fft's number of sets.
long ceil_log2(long width) {
  return width <= 1 ? 0 : long(std::bit_width(std::uint64_t(width - 1)));
}

// random_nearest keeps the edge producer -> consumer when the hash of (graph, radix, set, producer,
// consumer) falls below the fraction; a point always keeps itself. Dependencies and reverse
// dependencies hash the same tuple, so the two views agree.
bool random_edge_kept(const TaskGraph& g, long dset, long producer, long consumer) {
  if (g.radix > 0 && producer == consumer) return true;
  return uniform_from({g.graph_index, g.radix, dset, producer, consumer}) < g.fraction_connected;
}

// The kept points of [first, last], as maximal runs.
template <typename Kept>
std::vector<Interval> runs_of(long first, long last, Kept kept) {
  std::vector<Interval> runs;
  for (long i = first; i <= last; ++i) {
    if (!kept(i)) continue;
    if (!runs.empty() && runs.back().last == i - 1) {
      runs.back().last = i;
    } else {
      runs.push_back({i, i});
    }
  }
  return runs;
}

}  // namespace

std::string_view dependence_name(DependenceType type) {
  for (const auto& [name, t] : dependence_names) {
    if (t == type) return name;
  }
  return "unknown";
}

std::optional<DependenceType> dependence_type_named(std::string_view name) {
  for (const auto& [n, t] : dependence_names) {
    if (n == name) return t;
  }
  return std::nullopt;
}

std::span<const DependenceType> dependence_types_by_name() { return types_by_name; }

bool needs_period(DependenceType type) { return type == spread || type == random_nearest; }

long default_period(DependenceType type) { return needs_period(type) ? 3 : 0; }

long TaskGraph::offset_at_timestep(long timestep) const {
  if (timestep < 0) return 0;
  // The diamond starts narrowing once fewer rows remain than the width.
  if (dependence == dom) return std::max(0L, timestep + max_width - timesteps);
  return 0;
}

long TaskGraph::width_at_timestep(long timestep) const {
  if (timestep < 0) return 0;
  switch (dependence) {
    case dom:
      return std::min({max_width, timestep + 1, timesteps - timestep});
    case tree:
      return std::min(max_width, 1L << std::min(timestep, 62L));
    default:
      return max_width;
  }
}

bool TaskGraph::is_live(long timestep, long point) const {
  if (timestep < 0 || timestep >= timesteps) return false;
  const long offset = offset_at_timestep(timestep);
  return offset <= point && point < offset + width_at_timestep(timestep);
}

long TaskGraph::max_dependence_sets() const {
  switch (dependence) {
    case fft:
      return ceil_log2(max_width);
    case spread:
    case random_nearest:
    case random_spread:
      return period;
    default:
      return 1;
  }
}

long TaskGraph::timestep_period() const { return max_dependence_sets(); }

long TaskGraph::dependence_set_at_timestep(long timestep) const {
  const long sets = max_dependence_sets();
  switch (dependence) {
    case fft:
      // Row 0 has no inputs; row 1 pairs points 1 apart, row 2 points 2 apart, ...
      return (timestep + sets - 1) % sets;
    case spread:
    case random_nearest:
    case random_spread:
      return timestep % sets;
    default:
      return 0;
  }
}

std::vector<Interval> TaskGraph::dependencies(long dset, long point) const {
  const long last_point = max_width - 1;
  switch (dependence) {
    case trivial:
    case random_spread:
      return {};
    case no_comm:
      return {{point, point}};
    case stencil_1d:
      return {{std::max(0L, point - 1), std::min(point + 1, last_point)}};
    case stencil_1d_periodic: {
      std::vector<Interval> deps{{std::max(0L, point - 1), std::min(point + 1, last_point)}};
      if (point - 1 < 0) deps.push_back({last_point, last_point});
      if (point + 1 > last_point) deps.push_back({0, 0});
      return deps;
    }
    case dom:
      return {{std::max(0L, point - 1), point}};
    case tree:
      return {{point / 2, point / 2}};
    case fft: {
      const long stride = 1L << dset;
      std::vector<Interval> deps;
      if (point - stride >= 0) deps.push_back({point - stride, point - stride});
      deps.push_back({point, point});
      if (point + stride <= last_point) deps.push_back({point + stride, point + stride});
      return deps;
    }
    case all_to_all:
      return {{0, last_point}};
    case nearest:
      if (radix <= 0) return {};
      return {{std::max(0L, point - radix / 2), std::min(point + (radix - 1) / 2, last_point)}};
    case spread: {
      std::vector<Interval> deps;
      for (long i = 0; i < radix; ++i) {
        const long dep = (point + i * max_width / radix + (i > 0 ? dset : 0)) % max_width;
        deps.push_back({dep, dep});
      }
      return deps;
    }
    case random_nearest:
      return runs_of(std::max(0L, point - radix / 2), std::min(point + (radix - 1) / 2, last_point),
                     [&](long producer) { return random_edge_kept(*this, dset, producer, point); });
  }
  return {};
}

std::vector<Interval> TaskGraph::reverse_dependencies(long dset, long point) const {
  const long last_point = max_width - 1;
  switch (dependence) {
    case trivial:
    case random_spread:
      return {};
    case no_comm:
    case stencil_1d:
    case stencil_1d_periodic:
    case fft:
    case all_to_all:
      // Symmetric patterns: p feeds exactly the points it reads from.
      return dependencies(dset, point);
    case dom:
      return {{point, std::min(last_point, point + 1)}};
    case tree: {
      const long child = 2 * point;
      if (child > last_point) return {};
      return {{child, std::min(child + 1, last_point)}};
    }
    case nearest:
      if (radix <= 0) return {};
      return {{std::max(0L, point - (radix - 1) / 2), std::min(point + radix / 2, last_point)}};
    case spread: {
      std::vector<Interval> rdeps;
      for (long i = 0; i < radix; ++i) {
        long consumer = (point - i * max_width / radix - (i > 0 ? dset : 0)) % max_width;
        if (consumer < 0) consumer += max_width;
        rdeps.push_back({consumer, consumer});
      }
      return rdeps;
    }
    case random_nearest:
      return runs_of(std::max(0L, point - (radix - 1) / 2), std::min(point + radix / 2, last_point),
                     [&](long consumer) { return random_edge_kept(*this, dset, point, consumer); });
  }
  return {};
}

std::vector<long> TaskGraph::input_points(long timestep, long point) const {
  std::vector<long> inputs;
  if (!is_live(timestep, point) || timestep == 0) return inputs;
  const long last_offset = offset_at_timestep(timestep - 1);
  const long last_end = last_offset + width_at_timestep(timestep - 1);
  for (const Interval& deps : dependencies(dependence_set_at_timestep(timestep), point)) {
    for (long dep = std::max(deps.first, last_offset); dep <= deps.last && dep < last_end; ++dep) {
      inputs.push_back(dep);
    }
  }
  return inputs;
}

std::vector<long> TaskGraph::consumer_points(long timestep, long point) const {
  std::vector<long> consumers;
  if (!is_live(timestep, point) || timestep + 1 >= timesteps) return consumers;
  const long next_offset = offset_at_timestep(timestep + 1);
  const long next_end = next_offset + width_at_timestep(timestep + 1);
  for (const Interval& rdeps : reverse_dependencies(dependence_set_at_timestep(timestep + 1), point)) {
    for (long c = std::max(rdeps.first, next_offset); c <= rdeps.last && c < next_end; ++c) {
      consumers.push_back(c);
    }
  }
  return consumers;
}

namespace {

std::string quoted(std::string_view s) {
  std::string q(1, '"');
  q.append(s).push_back('"');
  return q;
}

std::string type_of(const TaskGraph& g) { return "graph type " + quoted(dependence_name(g.dependence)); }

// Task Bench's structural check for one dependence set: no duplicate dependency, and every reverse
// dependency mirrored by a dependency.
std::optional<std::string> find_set_error(const TaskGraph& g, long dset) {
  std::vector<std::vector<Interval>> deps(std::size_t(g.max_width));
  for (long p = 0; p < g.max_width; ++p) {
    auto& mine = deps[std::size_t(p)];
    mine = g.dependencies(dset, p);
    std::vector<Interval> sorted = mine;
    std::ranges::sort(sorted, {}, &Interval::first);
    long covered_up_to = -1;  // the highest point the intervals so far include
    for (const Interval& d : sorted) {
      if (d.size() > 0 && d.first <= covered_up_to) {
        return type_of(g) + " with -width " + std::to_string(g.max_width) + " and -radix " +
               std::to_string(g.radix) + " lists dependency " + std::to_string(d.first) + " of point " +
               std::to_string(p) + " twice (dependence set " + std::to_string(dset) + ")";
      }
      covered_up_to = std::max(covered_up_to, d.last);
    }
  }
  for (long p = 0; p < g.max_width; ++p) {
    for (const Interval& r : g.reverse_dependencies(dset, p)) {
      for (long c = r.first; c <= r.last; ++c) {
        const bool mirrored = c >= 0 && c < g.max_width &&
                              std::ranges::any_of(deps[std::size_t(c)], [&](const Interval& d) { return d.contains(p); });
        if (!mirrored) {
          return type_of(g) + ": point " + std::to_string(c) + " is a reverse dependency of point " +
                 std::to_string(p) + " but does not depend on it (dependence set " + std::to_string(dset) + ")";
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> find_graph_error(const TaskGraph& g) {
  if (g.timesteps <= 0) return "the number of timesteps (-steps) must be > 0";
  if (g.max_width <= 0) return "the width (-width) must be > 0";
  if (g.dependence == random_spread) {
    return type_of(g) + " is listed by Task Bench but has no dependencies defined there; it cannot run";
  }
  // Task Bench divides by the radix for every type (when bounding spread's period).
  if (g.radix <= 0) return "-radix must be > 0";
  if (needs_period(g.dependence) && g.period == 0) {
    return type_of(g) + " needs a non-zero period (give one with -period)";
  }
  if (!needs_period(g.dependence) && g.period != 0) {
    return type_of(g) + " has no period to configure (only spread and random_nearest take -period)";
  }
  if (g.period < 0) return "-period must be >= 0";
  // A larger period would wrap spread's later dependence sets around onto earlier ones.
  const long spread_limit = (g.max_width + g.radix - 1) / g.radix;
  if (g.dependence == spread && g.period > spread_limit) {
    return type_of(g) + " with -width " + std::to_string(g.max_width) + " and -radix " + std::to_string(g.radix) +
           " allows a period of at most " + std::to_string(spread_limit);
  }
  if (g.dependence == fft && g.max_width < 2) return type_of(g) + " needs -width >= 2";
  if (g.fraction_connected < 0 || g.fraction_connected > 1) return "-fraction must be >= 0 and <= 1";
  if (g.output_bytes_per_task < min_output_bytes) {
    return "-output must be >= " + std::to_string(min_output_bytes) + " bytes";
  }
  if (g.scratch_bytes_per_task % 8 != 0) {
    return "-scratch " + std::to_string(g.scratch_bytes_per_task) + " must be a multiple of 8 bytes";
  }
  if (kernel_uses_scratch(g.kernel.type) && g.scratch_bytes_per_task == 0) {
    return "kernel " + quoted(kernel_name(g.kernel.type)) + " needs scratch memory (give -scratch > 0)";
  }
  if ((g.kernel.type == KernelType::memory_bound || g.kernel.type == KernelType::memory_daxpy) &&
      g.kernel.samples <= 0) {
    return "kernel " + quoted(kernel_name(g.kernel.type)) + " needs -sample > 0";
  }
  if (g.kernel.iterations < 0) return "-iter must be >= 0";
  if (g.kernel.imbalance < 0 || g.kernel.imbalance > 2) return "-imbalance must be >= 0 and <= 2";
  for (long dset = 0; dset < g.max_dependence_sets(); ++dset) {
    if (auto error = find_set_error(g, dset)) return error;
  }
  return std::nullopt;
}

}  // namespace herald::taskbench
