// herald-task-bench-metg: Task Bench's minimum effective task granularity (METG) of herald's runtime and of
// a plain MPI program running the same graph, measured in the same run.
//
//   mpiexec -n 2 herald-task-bench-metg -steps 200 -width 8 -type stencil_1d -kernel busy_wait -threads 0
//
// One graph (Task Bench's flags) runs at a sweep of kernel sizes (-iter), from large to small. Per size and
// repetition, the runtime (runtime_graph.hpp) and the MPI baseline (mpi_graph.hpp) each run the graph once,
// in alternating order, after one untimed warm-up run of each. The METG follows Task Bench's own analysis
// (metg_rule.hpp): efficiency is each system's work per second (FLOPs; bytes or kernel iterations for
// kernels that count no FLOPs) over its own rate with the largest tasks of the sweep, granularity is
// elapsed seconds x cores / tasks, and the METG is the finest granularity still at 50% or more,
// interpolated linearly toward the next size below 50%. Cores are the ones that run tasks: the MPI
// program's ranks, and the runtime's workers times kernel threads per worker (the head schedules and
// dispatches, as OpenMP Cluster's head node does, and runs no task unless it is alone), both at most the
// cores of the job's nodes (with more processes than cores, the machine's). A point whose repetitions
// spread by more than -spread of their median is run again, up to -max-reps times; what makes a figure
// doubtful (an efficiency above 1 beyond the spread, no size under 50%) is printed under it. Rank 0 prints
// the table and both METGs; -csv writes every run.
//
// Own options: -iters N,N,... (default: 2^20 down to 2^3 iterations, halving), -reps N (default 5),
// -spread F (default 0.1), -max-reps N (default 15), -csv FILE, and the runtime's -threads N and
// -scheduler S.
#include "driver_main.hpp"
#include "kernel.hpp"
#include "metg_rule.hpp"
#include "mpi_graph.hpp"
#include "options.hpp"
#include "runtime_graph.hpp"
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
  std::vector<long> iterations;  // empty: 2^20 down to 2^3
  int reps = 5;
  double spread = 0.1;
  int max_reps = 15;
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
    if (flag != "-iters" && flag != "-reps" && flag != "-csv" && flag != "-threads" && flag != "-scheduler" &&
        flag != "-spread" && flag != "-max-reps") {
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
      } else if (flag == "-max-reps") {
        const long long reps = herald::parse_count(value, "-max-reps");
        if (reps < 1 || reps > 1000) throw std::invalid_argument("-max-reps takes 1 to 1000, not " + value);
        flags.max_reps = static_cast<int>(reps);
      } else if (flag == "-spread") {
        std::size_t used = 0;
        flags.spread = std::stod(value, &used);
        if (used != value.size() || !(flags.spread > 0)) throw std::invalid_argument("-spread takes a fraction above 0, not " + value);
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
  if (flags.max_reps < flags.reps) flags.max_reps = flags.reps;
  args = std::move(rest);
  return flags;
}

bool has_iterations(tb::KernelType type) {
  using enum tb::KernelType;
  return type == busy_wait || type == compute_bound || type == compute_bound2 || type == load_imbalance ||
         type == memory_bound || type == memory_daxpy || type == compute_dgemm;
}

// Kernel iterations of all tasks (load_imbalance draws each task's count).
double total_iterations(const tb::TaskGraph& g) {
  double total = 0;
  for (long t = 0; t < g.timesteps; ++t)
    for (long p = g.offset_at_timestep(t); p < g.offset_at_timestep(t) + g.width_at_timestep(t); ++p)
      total += static_cast<double>(tb::task_iterations(g, t, p));
  return total;
}

constexpr const char* system_names[2] = {"herald", "mpi"};

std::string microseconds(const herald::taskbench::MetgResult& m) {
  if (!m.metg) return "not reached (under 50% at every size)";
  char text[64];
  std::snprintf(text, sizeof text, "%s%.2f us", m.bound ? "<= " : "", *m.metg * 1e6);
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

  std::vector<long> sizes = flags.iterations;
  if (sizes.empty())
    for (long n = 1L << 20; n >= 8; n /= 2) sizes.push_back(n);
  std::sort(sizes.rbegin(), sizes.rend());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

  // Work per graph run: FLOPs where the kernel counts them, else bytes, else kernel iterations.
  const double tasks = static_cast<double>(tb::count_totals(graph, 0).tasks);
  const char* unit = "FLOP";
  std::vector<tb::SweepPoint> points[2];
  for (long n : sizes) {
    graph[0].kernel.iterations = n;
    const tb::RunTotals totals = tb::count_totals(graph, 0);
    double work = static_cast<double>(totals.flops);
    if (totals.flops == 0 && totals.bytes > 0) work = static_cast<double>(totals.bytes), unit = "B";
    if (totals.flops == 0 && totals.bytes == 0) work = total_iterations(graph[0]), unit = "iteration";
    for (auto& p : points) p.push_back({n, work, {}});
  }
  auto measure = [&](int system) {
    return system == 0 ? runtime_graphs.run(graph, 1) : tb::run_on_mpi(graph, MPI_COMM_WORLD, 1);
  };
  auto repeat = [&](std::size_t i, int rep) {
    graph[0].kernel.iterations = sizes[i];
    const int first = static_cast<int>((static_cast<std::size_t>(rep) + i) % 2);
    for (int system : {first, 1 - first}) points[system][i].seconds.push_back(measure(system));
  };
  graph[0].kernel.iterations = sizes.back();
  measure(0);
  measure(1);
  for (int rep = 0; rep < flags.reps; ++rep)
    for (std::size_t i = 0; i < sizes.size(); ++i) repeat(i, rep);
  // Points whose repetitions still spread widely run again; rank 0 decides, so every rank runs the same.
  for (int rep = flags.reps; rep < flags.max_reps; ++rep) {
    std::vector<int> again(sizes.size(), 0);
    if (rank == 0)
      for (std::size_t i = 0; i < sizes.size(); ++i)
        again[i] = tb::relative_spread(points[0][i].seconds) > flags.spread ||
                   tb::relative_spread(points[1][i].seconds) > flags.spread;
    MPI_Bcast(again.data(), static_cast<int>(again.size()), MPI_INT, 0, MPI_COMM_WORLD);
    if (std::none_of(again.begin(), again.end(), [](int a) { return a != 0; })) break;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (again[i]) repeat(i, rep);
  }
  if (rank != 0) return 0;

  const tb::MetgResult m[2] = {tb::compute_metg(points[0], cores[0], tasks), tb::compute_metg(points[1], cores[1], tasks)};
  std::printf("# METG: herald's runtime and a plain MPI program, same graph, same run\n");
  std::printf("graph:");
  for (const std::string_view arg : args) std::printf(" %.*s", static_cast<int>(arg.size()), arg.data());
  std::printf(" (-iter swept)\n");
  std::printf("ranks %d on %d cores; cores running tasks: herald %d (%d workers x %d threads), mpi %d; "
              "%d to %d repetitions a point, medians; efficiency against each system's own rate with the largest "
              "tasks: herald %.4g, mpi %.4g %s/s\n\n",
              size, machine, cores[0], size == 1 ? 1 : size - 1, slots, cores[1], flags.reps, flags.max_reps,
              m[0].peak, m[1].peak, unit);
  std::printf("| iterations | herald s | spread | herald granularity us | herald efficiency | mpi s | spread | "
              "mpi granularity us | mpi efficiency |\n|---|---|---|---|---|---|---|---|---|\n");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const tb::RatedPoint &h = m[0].points[i], &p = m[1].points[i];
    std::printf("| %ld | %.4g | %.3f | %.3f | %.3f | %.4g | %.3f | %.3f | %.3f |\n", h.iterations, h.elapsed, h.spread,
                h.granularity * 1e6, h.efficiency, p.elapsed, p.spread, p.granularity * 1e6, p.efficiency);
  }
  std::printf("\nMETG(50%%) herald: %s\nMETG(50%%) mpi: %s\n", microseconds(m[0]).c_str(), microseconds(m[1]).c_str());
  if (m[0].metg && m[1].metg)
    std::printf("METG ratio herald/mpi: %.2f%s\n", *m[0].metg / *m[1].metg, m[0].bound || m[1].bound ? " (bounds)" : "");
  for (int system : {0, 1})
    for (const std::string& w : m[system].warnings) std::printf("warning: %s: %s\n", system_names[system], w.c_str());
  if (!flags.csv.empty()) {
    std::ofstream csv(flags.csv);
    csv << "system,iterations,rep,seconds,cores,tasks,granularity_us,work,efficiency\n";
    for (int system : {0, 1})
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const tb::SweepPoint& p = points[system][i];
        for (std::size_t r = 0; r < p.seconds.size(); ++r) {
          const double s = p.seconds[r];
          csv << system_names[system] << ',' << p.iterations << ',' << r << ',' << s << ',' << cores[system] << ','
              << tasks << ',' << s * cores[system] / tasks * 1e6 << ',' << p.work << ','
              << p.work / s / m[system].peak << '\n';
        }
      }
    if (!csv) throw std::runtime_error("cannot write " + flags.csv);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return herald::taskbench::driver_main(argc, argv, "herald-task-bench-metg", run); }
