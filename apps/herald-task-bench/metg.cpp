// herald-task-bench-metg: Task Bench's minimum effective task granularity (METG) of herald's runtime and of
// a plain MPI program running the same graph, measured in the same run.
//
//   mpiexec -n 2 herald-task-bench-metg -steps 200 -width 8 -type stencil_1d -kernel busy_wait -threads 0
//
// One graph (Task Bench's flags) runs at a sweep of kernel sizes (-iter), from large to small. Per size and
// repetition, the runtime (runtime_graph.hpp) and the MPI baseline (mpi_graph.hpp) each run the graph once,
// in alternating order, after one untimed warm-up run of each. For each run:
//   granularity = elapsed seconds x cores / tasks
//   efficiency  = kernel seconds of all tasks / (elapsed seconds x cores)
// where kernel seconds come from the kernel's rate on one core, measured on rank 0 before the sweep, and
// cores are the ones that run tasks: the MPI program's ranks, and the runtime's workers times kernel threads
// per worker (the head schedules and dispatches, as OpenMP Cluster's head node does, and runs no task unless
// it is alone), both at most the cores of the job's nodes (with more processes than cores, the machine's). The METG is the granularity at which the median efficiency falls to 50%, interpolated in
// log(granularity) between the two sizes around it. Rank 0 prints the table and both METGs; -csv writes
// every run.
//
// Own options: -iters N,N,... (default: kernel times of 1 ms down to about 0.1 us, halving), -reps N
// (default 3), -csv FILE, and the runtime's -threads N and -scheduler S.
#include "driver_main.hpp"
#include "kernel.hpp"
#include "mpi_graph.hpp"
#include "options.hpp"
#include "runtime_graph.hpp"
#include "statistics.hpp"
#include "summary.hpp"

#include <herald/config.hpp>
#include <herald/runtime/runtime.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using namespace herald::runtime;
namespace tb = herald::taskbench;

struct Flags {
  std::vector<long> iterations;  // empty: from the kernel's rate
  int reps = 3;
  std::string csv;
  int threads = -1;
  std::optional<Scheduler> scheduler;
};

// Takes this program's own flags out of the command line; the rest is Task Bench's.
Flags take_flags(std::vector<std::string_view>& args) {
  Flags flags;
  std::vector<std::string_view> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view flag = args[i];
    if (flag != "-iters" && flag != "-reps" && flag != "-csv" && flag != "-threads" && flag != "-scheduler") {
      rest.push_back(flag);
      continue;
    }
    if (i + 1 == args.size()) throw tb::UsageError("error: " + std::string(flag) + " needs a value");
    const std::string value(args[++i]);
    try {
      if (flag == "-iters") {
        for (const long long n : herald::parse_count_list(value, "-iters")) {
          if (n < 1) throw std::invalid_argument("-iters takes counts of at least 1");
          flags.iterations.push_back(static_cast<long>(n));
        }
      } else if (flag == "-reps") {
        const long long reps = herald::parse_count(value, "-reps");
        if (reps < 1 || reps > 1000) throw std::invalid_argument("-reps takes 1 to 1000, not " + value);
        flags.reps = static_cast<int>(reps);
      } else if (flag == "-csv") {
        flags.csv = value;
      } else if (flag == "-threads") {
        const long long threads = herald::parse_count(value, "-threads");
        if (threads > 1024) throw std::invalid_argument("-threads " + value + " is more than 1024");
        flags.threads = static_cast<int>(threads);
      } else {
        flags.scheduler = scheduler_from_string(value);
      }
    } catch (const std::exception& e) {
      throw tb::UsageError(std::string("error: ") + e.what());
    }
  }
  args = std::move(rest);
  return flags;
}

bool has_iterations(tb::KernelType type) {
  using enum tb::KernelType;
  return type == busy_wait || type == compute_bound || type == compute_bound2 || type == load_imbalance ||
         type == memory_bound || type == memory_daxpy || type == compute_dgemm;
}

// Seconds per kernel iteration on one core: the iteration count doubles until a run takes 20 ms, then the
// fastest of five runs counts (the least disturbed by whatever else runs on the machine).
double seconds_per_iteration(tb::TaskGraph g) {
  std::vector<std::byte> scratch(g.scratch_bytes_per_task);
  if (!scratch.empty()) tb::prepare_scratch(scratch);
  auto time_once = [&] {
    const auto start = std::chrono::steady_clock::now();
    tb::execute_kernel(g, 0, 0, scratch);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  g.kernel.type = g.kernel.type == tb::KernelType::load_imbalance ? tb::KernelType::compute_bound : g.kernel.type;
  g.kernel.iterations = 1;
  while (time_once() < 0.02 && g.kernel.iterations < (1L << 40)) g.kernel.iterations *= 2;
  double best = time_once();
  for (int i = 0; i < 4; ++i) best = std::min(best, time_once());
  return best / static_cast<double>(g.kernel.iterations);
}

// Kernel iterations of all tasks (load_imbalance draws each task's count).
double total_iterations(const tb::TaskGraph& g) {
  double total = 0;
  for (long t = 0; t < g.timesteps; ++t)
    for (long p = g.offset_at_timestep(t); p < g.offset_at_timestep(t) + g.width_at_timestep(t); ++p)
      total += static_cast<double>(tb::task_iterations(g, t, p));
  return total;
}

struct Point {
  long iterations = 0;
  double kernel_seconds = 0;  // of all tasks on one core
  std::vector<double> seconds[2];  // per system: 0 herald, 1 MPI
};

constexpr const char* system_names[2] = {"herald", "mpi"};

struct Summary {
  double granularity = 0;
  double efficiency = 0;
};

Summary summarize(const Point& point, int system, int cores, double tasks) {
  const double elapsed = herald::bench::spread_of(point.seconds[system]).median;
  return {elapsed * cores / tasks, point.kernel_seconds / (elapsed * cores)};
}

// The granularity at which efficiency falls to 50%, from the largest task down; nothing when even the
// largest is under 50%; the smallest measured (a bound: METG is at most this) when none is.
struct Metg {
  std::optional<double> seconds;
  bool bound = false;
};

Metg metg(const std::vector<Summary>& by_size_descending) {
  const auto& s = by_size_descending;
  if (s.empty() || s.front().efficiency < 0.5) return {};
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i].efficiency >= 0.5) continue;
    const Summary &above = s[i - 1], &below = s[i];
    const double f = (above.efficiency - 0.5) / (above.efficiency - below.efficiency);
    return {std::exp(std::log(above.granularity) + f * (std::log(below.granularity) - std::log(above.granularity))),
            false};
  }
  return {s.back().granularity, true};
}

std::string microseconds(const Metg& m) {
  if (!m.seconds) return "not reached (under 50% at the largest size)";
  char text[64];
  std::snprintf(text, sizeof text, "%s%.2f us", m.bound ? "<= " : "", *m.seconds * 1e6);
  return text;
}

// The cores of the nodes the job runs on: with more processes than cores, efficiency is the machine's.
int machine_cores() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  int mine = node_rank == 0 ? static_cast<int>(std::max(1U, std::thread::hardware_concurrency())) : 0, total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::string_view> args(argv + 1, argv + argc);
  Flags flags;
  tb::Options options;
  try {
    flags = take_flags(args);
    options = tb::parse_options(args);
    if (options.graphs.size() != 1) throw tb::UsageError("error: the METG sweep takes one graph (no -and)");
    if (!has_iterations(options.graphs[0].kernel.type))
      throw tb::UsageError("error: the METG sweep needs a kernel with -iter (busy_wait, compute_bound, ...), not " +
                           std::string(tb::kernel_name(options.graphs[0].kernel.type)));
  } catch (const tb::UsageError& e) {
    if (rank == 0) std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  std::vector<tb::TaskGraph> graph = options.graphs;

  Runtime rt(MPI_COMM_WORLD, {.threads = flags.threads, .scheduler = flags.scheduler});
  tb::RuntimeGraphs runtime_graphs(rt);
  const int slots = std::max(rt.threads(), 1);
  const int machine = machine_cores();
  const int cores[2] = {std::min(size == 1 ? slots : (size - 1) * slots, machine), std::min(size, machine)};

  double per_iteration = rank == 0 ? seconds_per_iteration(graph[0]) : 0;
  MPI_Bcast(&per_iteration, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::vector<long> sizes = flags.iterations;
  if (sizes.empty())
    for (double t = 1e-3; t > 0.9e-7; t /= 2) sizes.push_back(std::max(1L, std::lround(t / per_iteration)));
  std::sort(sizes.rbegin(), sizes.rend());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

  const double tasks = static_cast<double>(tb::count_totals(graph, 0).tasks);
  std::vector<Point> points;
  for (long n : sizes) {
    graph[0].kernel.iterations = n;
    points.push_back({n, total_iterations(graph[0]) * per_iteration, {}});
  }
  auto measure = [&](int system) {
    return system == 0 ? runtime_graphs.run(graph, 1) : tb::run_on_mpi(graph, MPI_COMM_WORLD, 1);
  };
  graph[0].kernel.iterations = sizes.back();
  measure(0);
  measure(1);
  for (int rep = 0; rep < flags.reps; ++rep) {
    for (std::size_t i = 0; i < points.size(); ++i) {
      graph[0].kernel.iterations = points[i].iterations;
      const int first = static_cast<int>((rep + i) % 2);
      for (int system : {first, 1 - first}) points[i].seconds[system].push_back(measure(system));
    }
  }
  if (rank != 0) return 0;

  std::printf("# METG: herald's runtime and a plain MPI program, same graph, same run\n");
  std::printf("graph:");
  for (const std::string_view arg : args) std::printf(" %.*s", static_cast<int>(arg.size()), arg.data());
  std::printf(" (-iter swept)\n");
  std::printf("ranks %d on %d cores; cores running tasks: herald %d (%d workers x %d threads), mpi %d; kernel "
              "%.3e s per iteration; %d repetitions, medians\n\n",
              size, machine, cores[0], size == 1 ? 1 : size - 1, slots, cores[1], per_iteration, flags.reps);
  std::printf("| iterations | task us | herald s | herald granularity us | herald efficiency | mpi s | "
              "mpi granularity us | mpi efficiency |\n|---|---|---|---|---|---|---|---|\n");
  std::vector<Summary> summaries[2];
  for (const Point& p : points) {
    Summary s[2];
    for (int system : {0, 1}) summaries[system].push_back(s[system] = summarize(p, system, cores[system], tasks));
    std::printf("| %ld | %.2f | %.4f | %.2f | %.3f | %.4f | %.2f | %.3f |\n", p.iterations,
                p.kernel_seconds / tasks * 1e6, herald::bench::spread_of(p.seconds[0]).median, s[0].granularity * 1e6,
                s[0].efficiency, herald::bench::spread_of(p.seconds[1]).median, s[1].granularity * 1e6,
                s[1].efficiency);
  }
  const Metg m[2] = {metg(summaries[0]), metg(summaries[1])};
  std::printf("\nMETG(50%%) herald: %s\nMETG(50%%) mpi: %s\n", microseconds(m[0]).c_str(), microseconds(m[1]).c_str());
  if (m[0].seconds && m[1].seconds)
    std::printf("METG ratio herald/mpi: %.2f%s\n", *m[0].seconds / *m[1].seconds,
                m[0].bound || m[1].bound ? " (bounds)" : "");
  if (!flags.csv.empty()) {
    std::ofstream csv(flags.csv);
    csv << "system,iterations,rep,seconds,cores,tasks,granularity_us,efficiency\n";
    for (const Point& p : points)
      for (int system : {0, 1})
        for (std::size_t r = 0; r < p.seconds[system].size(); ++r) {
          const double s = p.seconds[system][r];
          csv << system_names[system] << ',' << p.iterations << ',' << r << ',' << s << ',' << cores[system] << ','
              << tasks << ',' << s * cores[system] / tasks * 1e6 << ',' << p.kernel_seconds / (s * cores[system])
              << '\n';
        }
    if (!csv) throw std::runtime_error("cannot write " + flags.csv);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return herald::taskbench::driver_main(argc, argv, "herald-task-bench-metg", run); }
