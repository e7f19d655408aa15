// herald-task-bench: Task Bench's graphs on herald's task runtime.
//
//   mpiexec -n 5 herald-task-bench -steps 100 -width 4 -type stencil_1d -kernel busy_wait -iter 1000
//
// Rank 0 is the runtime's head and the others its workers. Every task (t, p) is a runtime task that reads
// the outputs of its dependencies in row t-1 and writes its own, checking every input it received (a wrong
// or missing dependency fails the run). Outputs live in two data handles per point, one for even rows and
// one for odd, so that row t writes while row t+1's readers of row t-1 are still to come; the runtime's
// versions keep everything else in order. As Task Bench does, every graph runs twice and the second pass
// is timed; the summary goes to rank 0's standard output.
//
// Options of the runtime itself: `-scheduler heft|round_robin|mapped` (mapped: point p of a row of width W
// on worker p*workers/W, as Task Bench's MPI program splits points) and `-threads N` (kernel threads per
// worker; 0: kernels on the worker's polling thread); everything else is Task Bench's command line.
#include "kernel.hpp"
#include "options.hpp"
#include "output.hpp"
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

struct TaskId {
  long graph;
  long timestep;
  long point;
};

// The runtime's own flags, taken out of the command line before Task Bench's parser sees it.
struct RuntimeFlags {
  std::optional<Scheduler> scheduler;
  int threads = -1;  // the runtime's default
};

RuntimeFlags take_runtime_flags(std::vector<std::string_view>& args) {
  RuntimeFlags flags;
  std::vector<std::string_view> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "-scheduler" || args[i] == "-threads") {
      if (!has_value) throw tb::UsageError("error: " + std::string(args[i]) + " needs a value");
      const std::string value(args[++i]);
      try {
        if (args[i - 1] == "-scheduler") {
          flags.scheduler = scheduler_from_string(value);
        } else {
          const long long threads = herald::parse_count(value, "-threads");
          if (threads > 1024) throw std::invalid_argument("-threads " + value + " is more than 1024");
          flags.threads = static_cast<int>(threads);
        }
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

// Submits every task of every graph, in row order.
void submit_graphs(Head& head, const std::vector<tb::TaskGraph>& graphs, std::vector<std::vector<std::vector<Data>>>& outputs,
                   std::vector<std::vector<Data>>& scratch, std::vector<std::optional<Data>>& broadcast) {
  for (const tb::TaskGraph& g : graphs) {
    const auto gi = static_cast<std::size_t>(g.graph_index);
    for (long t = 0; t < g.timesteps; ++t) {
      const long offset = g.offset_at_timestep(t), width = g.width_at_timestep(t);
      for (long p = offset; p < offset + width; ++p) {
        std::vector<Use> uses;
        for (long q : g.input_points(t, p)) uses.push_back(in(outputs[gi][static_cast<std::size_t>((t + 1) % 2)][static_cast<std::size_t>(q)]));
        uses.push_back(out(outputs[gi][static_cast<std::size_t>(t % 2)][static_cast<std::size_t>(p)]));
        if (!scratch[gi].empty()) uses.push_back(inout(scratch[gi][static_cast<std::size_t>(p)]));
        if (broadcast[gi]) uses.push_back(in(*broadcast[gi]));
        const int worker = static_cast<int>(p * head.workers() / g.max_width);
        head.submit("task", uses, arguments(TaskId{g.graph_index, t, p}), {.worker = worker});
      }
    }
  }
}

int run(int argc, char** argv) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<std::string_view> args(argv + 1, argv + argc);
  tb::Options options;
  RuntimeFlags flags;
  try {
    flags = take_runtime_flags(args);
    options = tb::parse_options(args);
  } catch (const tb::UsageError& e) {
    // Every rank parsed the same command line and fails the same way; rank 0 tells.
    if (rank == 0) std::fprintf(stderr, "%s\n%s", e.what(), tb::usage_text(argv[0]).c_str());
    return 2;
  }
  if (options.help) {
    if (rank == 0) std::printf("%s", tb::usage_text(argv[0]).c_str());
    return 0;
  }
  const std::vector<tb::TaskGraph>& graphs = options.graphs;

  Runtime rt(MPI_COMM_WORLD, {.threads = flags.threads, .scheduler = flags.scheduler});
  rt.kernel("task", [&graphs](TaskContext& task) {
    const auto id = task.argument<TaskId>();
    const tb::TaskGraph& g = graphs.at(static_cast<std::size_t>(id.graph));
    const std::size_t inputs = g.input_points(id.timestep, id.point).size();
    std::vector<std::span<const std::byte>> received;
    for (std::size_t i = 0; i < inputs; ++i) received.push_back(task.in(i));
    if (auto fault = tb::check_inputs(g, id.timestep, id.point, received)) throw std::runtime_error(fault->message());
    std::size_t next = inputs + 1;
    std::span<std::byte> scratch;
    if (g.scratch_bytes_per_task > 0) scratch = task.out(next++);
    if (g.broadcast_bytes > 0)
      if (auto fault = tb::check_broadcast(g, id.timestep, id.point, task.in(next++)))
        throw std::runtime_error(fault->message());
    tb::execute_kernel(g, id.timestep, id.point, scratch);
    tb::write_output(id.timestep, id.point, task.out(inputs));
  });

  if (rank == 0) std::printf("%s", tb::configuration_text(options).c_str());
  std::fflush(stdout);
  double elapsed = 0;
  rt.run([&](Head& head) {
    // Per graph: two output handles per point (even and odd rows), a scratch buffer per point, and the
    // broadcast buffer, all the head's.
    std::vector<std::vector<std::vector<std::vector<std::byte>>>> output_bytes(graphs.size());
    std::vector<std::vector<std::vector<std::byte>>> scratch_bytes(graphs.size());
    std::vector<std::vector<std::byte>> broadcast_bytes(graphs.size());
    std::vector<std::vector<std::vector<Data>>> outputs(graphs.size());
    std::vector<std::vector<Data>> scratch(graphs.size());
    std::vector<std::optional<Data>> broadcast(graphs.size());
    for (const tb::TaskGraph& g : graphs) {
      const auto gi = static_cast<std::size_t>(g.graph_index);
      const auto width = static_cast<std::size_t>(g.max_width);
      output_bytes[gi].assign(2, std::vector<std::vector<std::byte>>(width, std::vector<std::byte>(g.output_bytes_per_task)));
      for (std::size_t parity = 0; parity < 2; ++parity) {
        outputs[gi].emplace_back();
        for (std::size_t p = 0; p < width; ++p)
          outputs[gi][parity].push_back(head.data(std::span(output_bytes[gi][parity][p]),
                                                  "g" + std::to_string(gi) + (parity ? " odd " : " even ") + std::to_string(p)));
      }
      if (g.scratch_bytes_per_task > 0) {
        scratch_bytes[gi].assign(width, std::vector<std::byte>(g.scratch_bytes_per_task));
        for (std::size_t p = 0; p < width; ++p) {
          tb::prepare_scratch(scratch_bytes[gi][p]);
          scratch[gi].push_back(head.data(std::span(scratch_bytes[gi][p]), "g" + std::to_string(gi) + " scratch " + std::to_string(p)));
          head.enter(scratch[gi].back());
        }
      }
      if (g.broadcast_bytes > 0) {
        broadcast_bytes[gi].resize(g.broadcast_bytes);
        tb::write_broadcast(g, broadcast_bytes[gi]);
        broadcast[gi] = head.data(std::span(broadcast_bytes[gi]), "g" + std::to_string(gi) + " broadcast");
        head.enter(*broadcast[gi]);
      }
    }
    // Task Bench runs everything twice and times the second pass.
    for (int pass = 0; pass < 2; ++pass) {
      const double start = MPI_Wtime();
      submit_graphs(head, graphs, outputs, scratch, broadcast);
      head.wait();
      elapsed = MPI_Wtime() - start;
    }
  });
  if (rank == 0) std::printf("%s", tb::summary_text(options, elapsed).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int status = 0;
  try {
    status = run(argc, argv);
  } catch (const std::exception& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "herald-task-bench: rank %d: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
