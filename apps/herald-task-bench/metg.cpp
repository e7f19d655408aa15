// herald-task-bench-metg: Task Bench's minimum effective task granularity (METG) of herald's runtime and of
// a plain MPI program running the same graph, measured in the same run.
//
//   mpiexec -n 2 herald-task-bench-metg -steps 200 -width 8 -type stencil_1d -kernel busy_wait -threads 0
//
// One graph (Task Bench's flags) runs at a sweep of kernel sizes (-iter), from large to small. Per size and
// repetition, the runtime (runtime_graph.hpp) under each control of -controls and the MPI baseline
// (mpi_graph.hpp) each run the graph once, in an order that rotates, after one untimed warm-up run of each. The METG follows Task Bench's own analysis
// (metg_rule.hpp): efficiency is each system's work per second (FLOPs; bytes or kernel iterations for
// kernels that count no FLOPs) over its own rate with the largest tasks of the sweep, granularity is
// elapsed seconds x cores / tasks, and the METG is the finest granularity still at 50% or more,
// interpolated linearly toward the next size below 50%. Cores are the ones that run tasks: the MPI
// program's ranks, and the runtime's workers times kernel threads per worker (the head schedules and
// dispatches, as OpenMP Cluster's head node does, and runs no task unless it is alone), both at most the
// cores of the job's nodes (with more processes than cores, the machine's). A point whose repetitions
// spread by more than -spread of their median is run again, up to -max-reps times; what makes a figure
// doubtful (an efficiency above 1 beyond the spread, no size under 50%) is printed under it. Rank 0 prints
// the table and every system's METG; -csv writes every run. -from-csv FILE rates runs measured elsewhere
// (system,iterations,seconds,cores,tasks,work; bench/taskbench/metg.sh) by the same rule.
//
// Own options: -iters N,N,... (default: 2^20 down to 2^3 iterations, halving), -reps N (default 5),
// -spread F (default 0.1), -max-reps N (default 15), -csv FILE, -controls head,replicated (the default),
// and the runtime's -threads N and -scheduler S.
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
#include <memory>
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
  std::optional<int> threads;  // unset: the runtime's default
  std::optional<Scheduler> scheduler;
  std::vector<Control> controls{Control::head, Control::replicated};  // the runtime's, each a system
};

constexpr const char* program = "herald-task-bench-metg";

constexpr tb::FlagHelp own_flag_help[] = {
    {"-iters [INT,...]", "kernel iterations of the sweep, from large to small (default 2^20 down to 2^3, halving)"},
    {"-reps [INT]", "runs of each system at each size (5)"},
    {"-spread [FLOAT]", "a point whose runs spread by more than this share of their median runs again (0.1)"},
    {"-max-reps [INT]", "runs of a point at most (15)"},
    {"-controls [CONTROL,...]", "the runtime's controls, each measured as a system: head, replicated (both)"},
    {"-threads [INT]", "the runtime's kernel threads per worker (default HERALD_RUNTIME_THREADS, else 1)"},
    {"-scheduler [SCHEDULER]", "the runtime's scheduler: heft, round_robin, mapped or owner"},
    {"-csv [FILE]", "write every run to FILE"},
    {"-from-csv [FILE]", "alone: rate runs measured elsewhere (system,iterations,seconds,cores,tasks,work) by the "
                         "same rule, without running anything"},
};

// Takes this program's own flags out of the command line; the rest is Task Bench's.
Flags take_flags(std::vector<std::string_view>& args) {
  Flags flags;
  std::vector<std::string_view> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view flag = args[i];
    if (flag == "-from-csv") throw tb::UsageError("error: -from-csv FILE takes no other flag");
    if (flag != "-iters" && flag != "-reps" && flag != "-csv" && flag != "-threads" && flag != "-scheduler" &&
        flag != "-spread" && flag != "-max-reps" && flag != "-controls") {
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
      } else if (flag == "-controls") {
        flags.controls.clear();
        for (std::size_t at = 0; at <= value.size();) {
          const std::size_t comma = std::min(value.find(',', at), value.size());
          flags.controls.push_back(control_from_string(value.substr(at, comma - at), "-controls"));
          at = comma + 1;
        }
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
        flags.scheduler = scheduler_from_string(value, "-scheduler");
      }
    } catch (const herald::Error& e) {
      throw tb::UsageError("error: " + e.message());
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

// What the report needs of a system: its name, the cores that run its tasks, and its runs.
struct Rated {
  std::string name;
  int cores = 0;
  std::string cores_text;
  std::vector<tb::SweepPoint> points;
};

// The table of every system at every size, each system's METG and its ratio to the last system (the
// reference), and the warnings; with `csv`, every run.
void report(const std::vector<Rated>& systems, double tasks, const char* unit, const std::string& heading,
            const std::string& csv_path) {
  std::vector<tb::MetgResult> m;
  for (const Rated& s : systems) m.push_back(tb::compute_metg(s.points, s.cores, tasks));
  std::printf("%s", heading.c_str());
  for (std::size_t k = 0; k < systems.size(); ++k)
    std::printf("- %s: %d cores running tasks (%s), peak %.4g %s/s\n", systems[k].name.c_str(), systems[k].cores,
                systems[k].cores_text.c_str(), m[k].peak, unit);
  std::printf("\n| iterations |");
  for (const Rated& s : systems) std::printf(" %s s | spread | granularity us | efficiency |", s.name.c_str());
  std::printf("\n|---|");
  for (std::size_t k = 0; k < systems.size(); ++k) std::printf("---|---|---|---|");
  std::printf("\n");
  for (std::size_t i = 0; i < m.front().points.size(); ++i) {
    std::printf("| %ld |", m.front().points[i].iterations);
    for (std::size_t k = 0; k < systems.size(); ++k) {
      const tb::RatedPoint& p = m[k].points[i];
      std::printf(" %.4g | %.3f | %.3f | %.3f |", p.elapsed, p.spread, p.granularity * 1e6, p.efficiency);
    }
    std::printf("\n");
  }
  std::printf("\n");
  for (std::size_t k = 0; k < systems.size(); ++k)
    std::printf("METG(50%%) %s: %s\n", systems[k].name.c_str(), microseconds(m[k]).c_str());
  const tb::MetgResult& reference = m.back();
  for (std::size_t k = 0; k + 1 < systems.size(); ++k)
    if (m[k].metg && reference.metg)
      std::printf("METG ratio %s/%s: %.2f%s\n", systems[k].name.c_str(), systems.back().name.c_str(),
                  *m[k].metg / *reference.metg, m[k].bound || reference.bound ? " (bounds)" : "");
  for (std::size_t k = 0; k < systems.size(); ++k)
    for (const std::string& w : m[k].warnings) std::printf("warning: %s: %s\n", systems[k].name.c_str(), w.c_str());
  if (csv_path.empty()) return;
  std::ofstream csv(csv_path);
  csv << "system,iterations,rep,seconds,cores,tasks,granularity_us,work,efficiency\n";
  for (std::size_t k = 0; k < systems.size(); ++k)
    for (const tb::SweepPoint& p : systems[k].points)
      for (std::size_t r = 0; r < p.seconds.size(); ++r) {
        const double s = p.seconds[r];
        csv << systems[k].name << ',' << p.iterations << ',' << r << ',' << s << ',' << systems[k].cores << ','
            << tasks << ',' << s * systems[k].cores / tasks * 1e6 << ',' << p.work << ',' << p.work / s / m[k].peak
            << '\n';
      }
  if (!csv) throw std::runtime_error("cannot write " + csv_path);
}

// -from-csv: the METG of runs measured elsewhere (bench/taskbench/metg.sh: Task Bench's own programs beside
// herald's), one row a run: system,iterations,seconds,cores,tasks,work; systems in order of first row, the
// last the reference.
int report_from_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw tb::UsageError("error: -from-csv: cannot read " + path);
  std::string line;
  std::getline(in, line);
  if (line.rfind("system,iterations,seconds,cores,tasks,work", 0) != 0)
    throw std::runtime_error(path + ": expected the header system,iterations,seconds,cores,tasks,work");
  std::vector<Rated> systems;
  double tasks = 0;
  for (std::size_t row = 2; std::getline(in, line); ++row) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    for (std::size_t at = 0; at <= line.size();) {
      const std::size_t comma = std::min(line.find(',', at), line.size());
      f.push_back(line.substr(at, comma - at));
      at = comma + 1;
    }
    if (f.size() < 6) throw std::runtime_error(path + ":" + std::to_string(row) + ": expected 6 fields");
    auto it = std::find_if(systems.begin(), systems.end(), [&](const Rated& r) { return r.name == f[0]; });
    if (it == systems.end()) {
      systems.push_back({f[0], std::stoi(f[3]), f[3] + " cores", {}});
      it = systems.end() - 1;
    }
    const long iterations = std::stol(f[1]);
    auto p = std::find_if(it->points.begin(), it->points.end(), [&](const tb::SweepPoint& q) { return q.iterations == iterations; });
    if (p == it->points.end()) {
      it->points.push_back({iterations, std::stod(f[5]), {}});
      p = it->points.end() - 1;
    }
    p->seconds.push_back(std::stod(f[2]));
    tasks = std::stod(f[4]);
  }
  if (systems.empty()) throw std::runtime_error(path + ": no runs");
  for (const Rated& s : systems)
    if (s.points.size() != systems.front().points.size())
      throw std::runtime_error(path + ": " + s.name + " has runs at " + std::to_string(s.points.size()) + " sizes, " +
                               systems.front().name + " at " + std::to_string(systems.front().points.size()));
  for (Rated& s : systems)
    std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.iterations > b.iterations; });
  report(systems, tasks, "FLOP", "# METG from " + path + " (efficiency against each system's own rate with the largest tasks)\n", {});
  return 0;
}

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "-from-csv") return rank == 0 ? report_from_csv(std::string(args[1])) : 0;
  // A refusal (UsageError) is driver_main's to tell.
  const Flags flags = take_flags(args);
  const tb::Options options = tb::parse_options(args);
  if (options.help) {
    if (rank == 0)
      std::printf("%s", tb::usage_text(program,
                                       "the minimum effective task granularity (METG) of herald's runtime and of a "
                                       "plain MPI program on one Task Bench graph",
                                       own_flag_help)
                            .c_str());
    return 0;
  }
  if (options.graphs.size() != 1) throw tb::UsageError("error: the METG sweep takes one graph (no -and)");
  if (!has_iterations(options.graphs[0].kernel.type))
    throw tb::UsageError("error: the METG sweep needs a kernel with -iter (busy_wait, compute_bound, ...), not " +
                         std::string(tb::kernel_name(options.graphs[0].kernel.type)));
  std::vector<tb::TaskGraph> graph = options.graphs;

  // The systems: the runtime under each control asked for, then the plain MPI program.
  struct System {
    std::string name;
    std::unique_ptr<Runtime> runtime;
    std::unique_ptr<tb::RuntimeGraphs> graphs;
    int cores = 0;
    std::string cores_text;
    std::vector<tb::SweepPoint> points;
  };
  const int machine = machine_cores();
  std::vector<System> systems;
  for (Control control : flags.controls) {
    System s;
    s.name = std::string("herald-") + to_string(control);
    s.runtime = std::make_unique<Runtime>(MPI_COMM_WORLD, Options{.threads = flags.threads, .control = control,
                                                                  .scheduler = tb::scheduler_for(flags.scheduler, control)});
    s.graphs = std::make_unique<tb::RuntimeGraphs>(*s.runtime);
    const int slots = std::max(s.runtime->threads(), 1);
    // Head control: the head schedules and dispatches and runs no task unless it is alone.
    const int workers = control == Control::head && size > 1 ? size - 1 : size;
    s.cores = std::min(workers * slots, machine);
    s.cores_text = std::to_string(workers) + " workers x " + std::to_string(slots) + " threads";
    systems.push_back(std::move(s));
  }
  systems.push_back({"mpi", nullptr, nullptr, std::min(size, machine), std::to_string(size) + " ranks", {}});

  std::vector<long> sizes = flags.iterations;
  if (sizes.empty())
    for (long n = 1L << 20; n >= 8; n /= 2) sizes.push_back(n);
  std::sort(sizes.rbegin(), sizes.rend());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

  // Work per graph run: FLOPs where the kernel counts them, else bytes, else kernel iterations.
  const double tasks = static_cast<double>(tb::count_totals(graph, 0).tasks);
  const char* unit = "FLOP";
  for (long n : sizes) {
    graph[0].kernel.iterations = n;
    const tb::RunTotals totals = tb::count_totals(graph, 0);
    double work = static_cast<double>(totals.flops);
    if (totals.flops == 0 && totals.bytes > 0) work = static_cast<double>(totals.bytes), unit = "B";
    if (totals.flops == 0 && totals.bytes == 0) work = total_iterations(graph[0]), unit = "iteration";
    for (System& s : systems) s.points.push_back({n, work, {}});
  }
  auto measure = [&](System& s) { return s.graphs ? s.graphs->run(graph, 1) : tb::run_on_mpi(graph, MPI_COMM_WORLD, 1); };
  // One repetition of a size: every system once, starting with a different one each time.
  auto repeat = [&](std::size_t i, int rep) {
    graph[0].kernel.iterations = sizes[i];
    for (std::size_t k = 0; k < systems.size(); ++k) {
      System& s = systems[(static_cast<std::size_t>(rep) + i + k) % systems.size()];
      s.points[i].seconds.push_back(measure(s));
    }
  };
  graph[0].kernel.iterations = sizes.back();
  for (System& s : systems) measure(s);
  for (int rep = 0; rep < flags.reps; ++rep)
    for (std::size_t i = 0; i < sizes.size(); ++i) repeat(i, rep);
  // Points whose repetitions still spread widely run again; rank 0 decides, so every rank runs the same.
  for (int rep = flags.reps; rep < flags.max_reps; ++rep) {
    std::vector<int> again(sizes.size(), 0);
    if (rank == 0)
      for (std::size_t i = 0; i < sizes.size(); ++i)
        for (const System& s : systems) again[i] |= tb::relative_spread(s.points[i].seconds) > flags.spread ? 1 : 0;
    MPI_Bcast(again.data(), static_cast<int>(again.size()), MPI_INT, 0, MPI_COMM_WORLD);
    if (std::none_of(again.begin(), again.end(), [](int a) { return a != 0; })) break;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (again[i]) repeat(i, rep);
  }
  if (rank != 0) return 0;

  std::vector<Rated> rated;
  for (System& s : systems) rated.push_back({s.name, s.cores, s.cores_text, std::move(s.points)});
  std::string heading = "# METG: herald's runtime and a plain MPI program, same graph, same run\ngraph:";
  for (const std::string_view arg : args) heading += " " + std::string(arg);
  heading += " (-iter swept)\nranks " + std::to_string(size) + " on " + std::to_string(machine) + " cores; " +
             std::to_string(flags.reps) + " to " + std::to_string(flags.max_reps) +
             " repetitions a point, medians; efficiency against each system's own rate with the largest tasks\n";
  report(rated, tasks, unit, heading, flags.csv);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return herald::taskbench::driver_main(argc, argv, program, run); }
