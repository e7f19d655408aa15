// herald-task-bench: Task Bench's graphs on herald's task runtime.
//
//   mpiexec -n 5 herald-task-bench -steps 100 -width 4 -type stencil_1d -kernel busy_wait -iter 1000
//
// Under head control rank 0 is the runtime's head and the others its workers; under replicated control every
// rank submits the graph and runs its part (runtime_graph.hpp: how a graph becomes tasks).
// As Task Bench does, every graph runs twice and the second pass is timed; the summary goes to rank 0's
// standard output.
//
// Options beside Task Bench's command line: `-control head|replicated` (who runs the submission; default
// HERALD_RUNTIME_CONTROL, else head), `-scheduler heft|round_robin|mapped|owner` (default: mapped under
// replicated control, else the runtime's HEFT; mapped: point p of a
// row of width W on worker p*workers/W, as Task Bench's MPI program splits points), `-threads N` (kernel
// threads per worker; 0: kernels on the worker's polling thread), `-strategy nobcast|p2p|mpibcast|
// mpibcast:herald|dynbcast|auto` (how data read on several workers gets there), `-sync` (a broadcast's
// recipients wait for each other, as OpenMP Cluster's runtime did) and `-system mpi`, which runs the graphs
// on plain MPI point-to-point instead (mpi_graph.hpp: the baseline the runtime is measured against).
#include "driver_main.hpp"
#include "mpi_graph.hpp"
#include "options.hpp"
#include "runtime_graph.hpp"
#include "summary.hpp"

#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <mpi.h>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace herald::runtime;
namespace tb = herald::taskbench;

constexpr const char* program = "herald-task-bench";

// The runtime's own flags, taken out of the command line before Task Bench's parser sees it.
constexpr tb::FlagHelp runtime_flag_help[] = {
    {"-control [CONTROL]", "head (rank 0 schedules and dispatches) or replicated (every rank runs the submission) "
                           "(default HERALD_RUNTIME_CONTROL, else head)"},
    {"-scheduler [SCHEDULER]", "heft, round_robin, mapped (point p of width W on worker p*workers/W) or owner "
                               "(default HERALD_RUNTIME_SCHEDULER, else mapped under replicated control, heft under "
                               "the head)"},
    {"-threads [INT]", "kernel threads per worker; 0: kernels on the worker's polling thread (default "
                       "HERALD_RUNTIME_THREADS, else 1, or 0 in a process bound to one core)"},
    {"-strategy [STRATEGY]", "how data read on several workers gets there: nobcast, p2p, mpibcast, "
                             "mpibcast:herald, dynbcast or auto (default HERALD_RUNTIME_BCAST, else nobcast)"},
    {"-sync", "a broadcast's recipients wait for each other before reading it (head control)"},
    {"-system [SYSTEM]", "herald (the runtime, the default) or mpi (the graphs on plain MPI point-to-point, "
                         "the baseline)"},
};

struct RuntimeFlags {
  std::optional<Scheduler> scheduler;
  std::optional<Control> control;
  std::optional<BroadcastStrategy> strategy;
  std::optional<bool> sync;
  std::optional<int> threads;  // unset: the runtime's default
  bool mpi = false;    // -system mpi: the plain MPI baseline instead of the runtime
};

RuntimeFlags take_runtime_flags(std::vector<std::string_view>& args) {
  RuntimeFlags flags;
  std::vector<std::string_view> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "-sync") {
      flags.sync = true;
      continue;
    }
    if (args[i] == "-scheduler" || args[i] == "-threads" || args[i] == "-system" || args[i] == "-strategy" ||
        args[i] == "-control") {
      if (!has_value) throw tb::UsageError("error: " + std::string(args[i]) + " needs a value");
      const std::string value(args[++i]);
      try {
        if (args[i - 1] == "-scheduler") {
          flags.scheduler = scheduler_from_string(value, "-scheduler");
        } else if (args[i - 1] == "-control") {
          flags.control = control_from_string(value, "-control");
        } else if (args[i - 1] == "-strategy") {
          flags.strategy = broadcast_strategy_from_string(value, "-strategy");
        } else if (args[i - 1] == "-system") {
          if (value != "herald" && value != "mpi")
            throw std::invalid_argument("-system takes herald or mpi, not '" + value + "'");
          flags.mpi = value == "mpi";
        } else {
          const long long threads = herald::parse_count(value, "-threads");
          if (threads > 1024) throw std::invalid_argument("-threads " + value + " is more than 1024");
          flags.threads = static_cast<int>(threads);
        }
      } catch (const herald::Error& e) {
        throw tb::UsageError("error: " + e.message());
      } catch (const std::exception& e) {
        throw tb::UsageError(std::string("error: ") + e.what());
      }
      continue;
    }
    rest.push_back(args[i]);
  }
  args = std::move(rest);
  return flags;
}

int run(int argc, char** argv) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<std::string_view> args(argv + 1, argv + argc);
  // A refusal (UsageError) is driver_main's to tell.
  const RuntimeFlags flags = take_runtime_flags(args);
  const tb::Options options = tb::parse_options(args);
  if (options.help) {
    if (rank == 0)
      std::printf("%s", tb::usage_text(program, "Task Bench task graphs on herald's task runtime (or on plain MPI)",
                                       runtime_flag_help)
                            .c_str());
    return 0;
  }
  const std::vector<tb::TaskGraph>& graphs = options.graphs;

  if (rank == 0) std::printf("%s", tb::configuration_text(options).c_str());
  std::fflush(stdout);
  double elapsed = 0;
  if (flags.mpi) {
    elapsed = tb::run_on_mpi(graphs, MPI_COMM_WORLD, 2);
  } else {
    Runtime rt(MPI_COMM_WORLD, {.threads = flags.threads,
                                .control = flags.control,
                                .scheduler = tb::scheduler_for(flags.scheduler, flags.control),
                                .broadcast = flags.strategy,
                                .broadcast_sync = flags.sync});
    if (rank == 0 && !flags.threads && !herald::environment("HERALD_RUNTIME_THREADS") && rt.threads() == 0 &&
        Runtime::default_threads() == 0)
      std::fprintf(stderr, "herald-task-bench: this process is bound to one core, so kernels run on the runtime's "
                           "polling thread (-threads 1 gives them a thread of their own)\n");
    tb::RuntimeGraphs runner(rt);
    elapsed = runner.run(graphs, 2);
  }
  if (rank == 0) std::printf("%s", tb::summary_text(options, elapsed).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return herald::taskbench::driver_main(argc, argv, program, run); }
