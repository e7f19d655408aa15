// The shapes of Task Bench's graphs: widths and offsets, dependencies against reverse dependencies by
// brute force, and the facts each pattern is known for.
#include "graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace herald::taskbench {
namespace {

using enum DependenceType;

TaskGraph graph(DependenceType type, long steps, long width, long radix = 3, long period = -1, double fraction = 0.25) {
  TaskGraph g;
  g.dependence = type;
  g.timesteps = steps;
  g.max_width = width;
  g.radix = radix;
  g.period = period < 0 ? default_period(type) : period;
  g.fraction_connected = fraction;
  return g;
}

std::set<long> points_of(const std::vector<Interval>& intervals) {
  std::set<long> points;
  for (const Interval& i : intervals) {
    for (long p = i.first; p <= i.last; ++p) points.insert(p);
  }
  return points;
}

std::vector<long> flat(const std::vector<Interval>& intervals) {
  std::vector<long> points;
  for (const Interval& i : intervals) {
    for (long p = i.first; p <= i.last; ++p) points.push_back(p);
  }
  return points;
}

// Whether Task Bench runs the graph, by its documented limits rather than by find_graph_error(), so a
// broken pattern cannot hide by being refused.
bool runnable(const TaskGraph& g) {
  switch (g.dependence) {
    case random_spread:
      return false;
    case fft:
      return g.max_width >= 2;
    case stencil_1d_periodic:
      return g.max_width >= 3;  // narrower, the wrapped neighbours repeat the clipped ones
    case spread:
      return g.radix <= g.max_width && g.period <= (g.max_width + g.radix - 1) / g.radix;
    default:
      return true;
  }
}

// Every graph Task Bench runs among small sizes of every type, with a few radices, periods and
// fractions, and a graph index so random choices vary.
std::vector<TaskGraph> small_graphs() {
  std::vector<TaskGraph> graphs;
  for (const DependenceType type : dependence_types_by_name()) {
    for (long width = 1; width <= 12; ++width) {
      for (long radix : {1, 2, 3, 4, 5, 7}) {
        for (long period : {-1, 1, 2, 4}) {
          if (!needs_period(type) && period > 0) continue;
          for (double fraction : {0.0, 0.3, 1.0}) {
            if (type != random_nearest && fraction != 0.3) continue;
            TaskGraph g = graph(type, 9, width, radix, period, fraction);
            g.graph_index = width % 3;
            if (runnable(g)) graphs.push_back(g);
          }
        }
      }
    }
  }
  return graphs;
}

std::string name(const TaskGraph& g) {
  return std::string(dependence_name(g.dependence)) + " width " + std::to_string(g.max_width) + " radix " +
         std::to_string(g.radix) + " period " + std::to_string(g.period) + " fraction " +
         std::to_string(g.fraction_connected);
}

TEST(TaskBenchGraph, SmallGraphsCoverEveryRunnableTypeAndPassValidation) {
  std::set<DependenceType> seen;
  for (const TaskGraph& g : small_graphs()) {
    seen.insert(g.dependence);
    const auto error = find_graph_error(g);
    EXPECT_FALSE(error) << name(g) << ": " << error.value_or("");
  }
  EXPECT_EQ(seen.size(), dependence_types_by_name().size() - 1);  // all but random_spread
  EXPECT_FALSE(seen.contains(random_spread));
}

// d in dependencies(t, p)  <=>  p in reverse_dependencies(t - 1, d), for every dependence set.
TEST(TaskBenchGraph, DependenciesAndReverseDependenciesAgree) {
  for (const TaskGraph& g : small_graphs()) {
    SCOPED_TRACE(name(g));
    for (long dset = 0; dset < g.max_dependence_sets(); ++dset) {
      std::vector<std::set<long>> deps(std::size_t(g.max_width)), rdeps(std::size_t(g.max_width));
      for (long p = 0; p < g.max_width; ++p) {
        deps[std::size_t(p)] = points_of(g.dependencies(dset, p));
        rdeps[std::size_t(p)] = points_of(g.reverse_dependencies(dset, p));
        // No point listed twice.
        EXPECT_EQ(flat(g.dependencies(dset, p)).size(), deps[std::size_t(p)].size());
        EXPECT_EQ(flat(g.reverse_dependencies(dset, p)).size(), rdeps[std::size_t(p)].size());
      }
      for (long p = 0; p < g.max_width; ++p) {
        for (long d = 0; d < g.max_width; ++d) {
          EXPECT_EQ(deps[std::size_t(p)].contains(d), rdeps[std::size_t(d)].contains(p))
              << "consumer " << p << " producer " << d << " set " << dset;
        }
        for (long d : deps[std::size_t(p)]) {
          EXPECT_TRUE(d >= 0 && d < g.max_width);
        }
      }
    }
  }
}

// Per live task: its inputs are its consumers' mirror, over whole graphs with their live ranges.
TEST(TaskBenchGraph, InputsAndConsumersAgreeOnLivePoints) {
  for (const TaskGraph& g : small_graphs()) {
    SCOPED_TRACE(name(g));
    for (long t = 0; t < g.timesteps; ++t) {
      for (long p = 0; p < g.max_width; ++p) {
        const std::vector<long> inputs = g.input_points(t, p);
        if (!g.is_live(t, p)) {
          EXPECT_TRUE(inputs.empty());
          continue;
        }
        for (long d : inputs) {
          ASSERT_TRUE(g.is_live(t - 1, d)) << "input " << d << " of (" << t << ", " << p << ")";
          const std::vector<long> consumers = g.consumer_points(t - 1, d);
          EXPECT_NE(std::ranges::find(consumers, p), consumers.end()) << "(" << t << ", " << p << ") <- " << d;
        }
        for (long c : g.consumer_points(t, p)) {
          const std::vector<long> back = g.input_points(t + 1, c);
          EXPECT_NE(std::ranges::find(back, p), back.end()) << "(" << t << ", " << p << ") -> " << c;
        }
      }
    }
  }
}

TEST(TaskBenchGraph, WidthsAndOffsets) {
  for (const DependenceType type : {trivial, no_comm, stencil_1d, stencil_1d_periodic, fft, all_to_all, nearest}) {
    const TaskGraph g = graph(type, 6, 8);
    for (long t = 0; t < 6; ++t) {
      EXPECT_EQ(g.offset_at_timestep(t), 0);
      EXPECT_EQ(g.width_at_timestep(t), 8);
    }
    EXPECT_EQ(g.width_at_timestep(-1), 0);
  }
  // dom: a diamond, one point more per row until the width, then narrowing to one point at the end.
  const TaskGraph dom_graph = graph(dom, 10, 4);
  const std::vector<long> dom_widths{1, 2, 3, 4, 4, 4, 4, 3, 2, 1};
  const std::vector<long> dom_offsets{0, 0, 0, 0, 0, 0, 0, 1, 2, 3};
  for (long t = 0; t < 10; ++t) {
    EXPECT_EQ(dom_graph.width_at_timestep(t), dom_widths[std::size_t(t)]) << t;
    EXPECT_EQ(dom_graph.offset_at_timestep(t), dom_offsets[std::size_t(t)]) << t;
  }
  // tree: doubles each row up to the width.
  const TaskGraph tree_graph = graph(tree, 6, 13);
  const std::vector<long> tree_widths{1, 2, 4, 8, 13, 13};
  for (long t = 0; t < 6; ++t) EXPECT_EQ(tree_graph.width_at_timestep(t), tree_widths[std::size_t(t)]);
  EXPECT_EQ(graph(tree, 100, 1L << 40).width_at_timestep(99), 1L << 40);
  EXPECT_FALSE(tree_graph.is_live(2, 4));
  EXPECT_TRUE(tree_graph.is_live(2, 3));
  EXPECT_FALSE(tree_graph.is_live(6, 0));
}

TEST(TaskBenchGraph, DependenceSetsAndPeriods) {
  EXPECT_EQ(graph(stencil_1d, 5, 8).max_dependence_sets(), 1);
  // fft: ceil(log2(width)) sets; row 0 uses the last, row 1 the first.
  const TaskGraph f = graph(fft, 8, 8);
  EXPECT_EQ(f.max_dependence_sets(), 3);
  EXPECT_EQ(f.timestep_period(), 3);
  const std::vector<long> fft_sets{2, 0, 1, 2, 0, 1, 2, 0};
  for (long t = 0; t < 8; ++t) EXPECT_EQ(f.dependence_set_at_timestep(t), fft_sets[std::size_t(t)]);
  EXPECT_EQ(graph(fft, 4, 9).max_dependence_sets(), 4);
  EXPECT_EQ(graph(fft, 4, 2).max_dependence_sets(), 1);
  // spread and random_nearest: period sets, row t uses t mod period.
  const TaskGraph s = graph(spread, 8, 12, 3, 4);
  EXPECT_EQ(s.max_dependence_sets(), 4);
  for (long t = 0; t < 8; ++t) EXPECT_EQ(s.dependence_set_at_timestep(t), t % 4);
  EXPECT_EQ(default_period(spread), 3);
  EXPECT_EQ(default_period(random_nearest), 3);
  EXPECT_EQ(default_period(nearest), 0);
}

TEST(TaskBenchGraph, StencilHasAtMostThreeNeighbours) {
  for (const DependenceType type : {stencil_1d, stencil_1d_periodic}) {
    const TaskGraph g = graph(type, 3, 9);
    for (long p = 0; p < 9; ++p) {
      const std::set<long> deps = points_of(g.dependencies(0, p));
      EXPECT_LE(deps.size(), 3u);
      EXPECT_TRUE(deps.contains(p));
      for (long d : deps) EXPECT_TRUE(std::abs(d - p) <= 1 || (type == stencil_1d_periodic && std::abs(d - p) == 8));
    }
  }
  EXPECT_EQ(points_of(graph(stencil_1d, 3, 9).dependencies(0, 0)), (std::set<long>{0, 1}));
  EXPECT_EQ(points_of(graph(stencil_1d_periodic, 3, 9).dependencies(0, 0)), (std::set<long>{8, 0, 1}));
  EXPECT_EQ(points_of(graph(stencil_1d_periodic, 3, 9).dependencies(0, 8)), (std::set<long>{7, 8, 0}));
  // The wrapped neighbour comes after the clipped range, as Task Bench numbers inputs.
  EXPECT_EQ(graph(stencil_1d_periodic, 3, 9).input_points(1, 0), (std::vector<long>{0, 1, 8}));
}

TEST(TaskBenchGraph, TreeFansInOneAndOutTwo) {
  const TaskGraph g = graph(tree, 6, 16);
  for (long t = 1; t < 6; ++t) {
    for (long p = 0; p < g.width_at_timestep(t); ++p) {
      EXPECT_EQ(g.input_points(t, p), std::vector<long>{p / 2});
    }
    for (long p = 0; p < g.width_at_timestep(t - 1); ++p) {
      // Children 2p and 2p + 1 where they are live; at full width the upper half has none.
      std::vector<long> expected;
      for (long c : {2 * p, 2 * p + 1}) {
        if (c < g.width_at_timestep(t)) expected.push_back(c);
      }
      EXPECT_EQ(g.consumer_points(t - 1, p), expected) << "t " << t << " p " << p;
    }
  }
}

TEST(TaskBenchGraph, FftButterflies) {
  const TaskGraph g = graph(fft, 7, 8);
  for (long t = 1; t < 7; ++t) {
    const long stride = 1L << g.dependence_set_at_timestep(t);
    for (long p = 0; p < 8; ++p) {
      std::vector<long> expected;
      if (p - stride >= 0) expected.push_back(p - stride);
      expected.push_back(p);
      if (p + stride < 8) expected.push_back(p + stride);
      EXPECT_EQ(g.input_points(t, p), expected) << "t " << t << " p " << p;
    }
  }
  // After log2(width) rows every point has heard from every other.
  std::vector<std::set<long>> heard(8);
  for (long p = 0; p < 8; ++p) heard[std::size_t(p)] = {p};
  for (long t = 1; t <= 3; ++t) {
    std::vector<std::set<long>> next(8);
    for (long p = 0; p < 8; ++p) {
      for (long d : g.input_points(t, p)) next[std::size_t(p)].insert(heard[std::size_t(d)].begin(), heard[std::size_t(d)].end());
    }
    heard = next;
  }
  for (const auto& h : heard) EXPECT_EQ(h.size(), 8u);
}

TEST(TaskBenchGraph, DomWavefront) {
  const TaskGraph g = graph(dom, 7, 4);
  EXPECT_EQ(g.input_points(1, 0), std::vector<long>{0});
  EXPECT_EQ(g.input_points(1, 1), (std::vector<long>{0}));  // 1 is not live in row 0
  EXPECT_EQ(g.input_points(3, 3), (std::vector<long>{2}));
  EXPECT_EQ(g.input_points(2, 2), (std::vector<long>{1}));  // 2 is not live in row 1
  EXPECT_EQ(g.input_points(5, 3), (std::vector<long>{2, 3}));
  EXPECT_EQ(g.input_points(6, 3), (std::vector<long>{2, 3}));  // the last row: one point
}

TEST(TaskBenchGraph, AllToAllAndNearest) {
  const TaskGraph a = graph(all_to_all, 3, 6);
  EXPECT_EQ(a.input_points(2, 4), (std::vector<long>{0, 1, 2, 3, 4, 5}));
  // nearest with radix r: r consecutive points, the extra one of an even radix on the left.
  EXPECT_EQ(graph(nearest, 3, 10, 4).input_points(1, 5), (std::vector<long>{3, 4, 5, 6}));
  EXPECT_EQ(graph(nearest, 3, 10, 5).input_points(1, 5), (std::vector<long>{3, 4, 5, 6, 7}));
  EXPECT_EQ(graph(nearest, 3, 10, 1).input_points(1, 5), (std::vector<long>{5}));
  EXPECT_EQ(graph(nearest, 3, 10, 5).input_points(1, 0), (std::vector<long>{0, 1, 2}));
}

TEST(TaskBenchGraph, SpreadSpreadsAndShifts) {
  const TaskGraph g = graph(spread, 6, 12, 3, 4);
  // Set 0: p, p + 4, p + 8; set k shifts all but the first by k.
  EXPECT_EQ(flat(g.dependencies(0, 1)), (std::vector<long>{1, 5, 9}));
  EXPECT_EQ(flat(g.dependencies(2, 1)), (std::vector<long>{1, 7, 11}));
  EXPECT_EQ(flat(g.dependencies(3, 5)), (std::vector<long>{5, 0, 4}));
  for (long dset = 0; dset < 4; ++dset) {
    for (long p = 0; p < 12; ++p) EXPECT_EQ(points_of(g.dependencies(dset, p)).size(), 3u);
  }
}

TEST(TaskBenchGraph, RandomNearestKeepsSelfAndFollowsFraction) {
  for (long p = 0; p < 12; ++p) {
    const TaskGraph none = graph(random_nearest, 4, 12, 5, 3, 0.0);
    EXPECT_EQ(flat(none.dependencies(1, p)), std::vector<long>{p});
    const TaskGraph all = graph(random_nearest, 4, 12, 5, 3, 1.0);
    EXPECT_EQ(flat(all.dependencies(1, p)), flat(graph(nearest, 4, 12, 5).dependencies(0, p)));
  }
  // Different sets and graph indices choose differently; the same ones choose the same.
  TaskGraph g = graph(random_nearest, 4, 64, 9, 3, 0.5);
  std::vector<std::vector<Interval>> first;
  for (long p = 0; p < 64; ++p) first.push_back(g.dependencies(0, p));
  bool set_differs = false;
  bool index_differs = false;
  for (long p = 0; p < 64; ++p) {
    EXPECT_EQ(g.dependencies(0, p), first[std::size_t(p)]);
    set_differs |= g.dependencies(1, p) != first[std::size_t(p)];
  }
  g.graph_index = 1;
  for (long p = 0; p < 64; ++p) index_differs |= g.dependencies(0, p) != first[std::size_t(p)];
  EXPECT_TRUE(set_differs);
  EXPECT_TRUE(index_differs);
}

// Task Bench's own choices for -type random_nearest -radix 3 -fraction 0.5 -period 2 -width 5, as its
// -vv listing printed them (see summary_test.cpp for the command).
TEST(TaskBenchGraph, RandomNearestMatchesTaskBench) {
  const TaskGraph g = graph(random_nearest, 4, 5, 3, 2, 0.5);
  const std::vector<std::vector<long>> row1{{0, 1}, {1}, {2}, {2, 3, 4}, {4}};
  const std::vector<std::vector<long>> row2{{0}, {0, 1, 2}, {2}, {3}, {3, 4}};
  for (long p = 0; p < 5; ++p) {
    EXPECT_EQ(g.input_points(1, p), row1[std::size_t(p)]) << p;
    EXPECT_EQ(g.input_points(2, p), row2[std::size_t(p)]) << p;
    EXPECT_EQ(g.input_points(3, p), row1[std::size_t(p)]) << p;
  }
}

TEST(TaskBenchGraph, FindGraphErrorRefusesWhatTaskBenchRefusesOrCrashesOn) {
  EXPECT_FALSE(find_graph_error(graph(stencil_1d, 4, 4)));
  auto error_of = [](const TaskGraph& g) { return find_graph_error(g).value_or(""); };
  EXPECT_NE(error_of(graph(random_spread, 4, 4)).find("random_spread"), std::string::npos);
  EXPECT_NE(error_of(graph(fft, 4, 1)).find("-width"), std::string::npos);
  EXPECT_NE(error_of(graph(spread, 4, 4, 3, 0)).find("non-zero period"), std::string::npos);
  EXPECT_NE(error_of(graph(stencil_1d, 4, 4, 3, 2)).find("period"), std::string::npos);
  EXPECT_NE(error_of(graph(spread, 4, 10, 3, 5)).find("at most 4"), std::string::npos);
  EXPECT_FALSE(find_graph_error(graph(spread, 4, 10, 3, 4)));
  EXPECT_NE(error_of(graph(stencil_1d, 4, 4, 0)).find("-radix"), std::string::npos);
  // Duplicated dependencies, which Task Bench's check stops on.
  EXPECT_NE(error_of(graph(stencil_1d_periodic, 4, 2)).find("twice"), std::string::npos);
  EXPECT_NE(error_of(graph(stencil_1d_periodic, 4, 1)).find("twice"), std::string::npos);
  EXPECT_NE(error_of(graph(spread, 4, 4, 5, 1)).find("twice"), std::string::npos);
  EXPECT_FALSE(find_graph_error(graph(stencil_1d_periodic, 4, 3)));
  TaskGraph g = graph(trivial, 4, 4);
  g.scratch_bytes_per_task = 12;
  EXPECT_NE(error_of(g).find("multiple of 8"), std::string::npos);
  g.scratch_bytes_per_task = 0;
  g.kernel.type = KernelType::memory_bound;
  EXPECT_NE(error_of(g).find("-scratch"), std::string::npos);
  g.scratch_bytes_per_task = 64;
  g.kernel.samples = 0;
  EXPECT_NE(error_of(g).find("-sample"), std::string::npos);
  g.kernel.samples = 1;
  EXPECT_FALSE(find_graph_error(g));
}

TEST(TaskBenchGraph, NamesRoundTrip) {
  EXPECT_EQ(dependence_types_by_name().size(), 12u);
  for (const DependenceType t : dependence_types_by_name()) EXPECT_EQ(dependence_type_named(dependence_name(t)), t);
  EXPECT_FALSE(dependence_type_named("stencil"));
  EXPECT_EQ(dependence_name(dependence_types_by_name().front()), "all_to_all");
}

}  // namespace
}  // namespace herald::taskbench
