// herald-task-bench-schedule: the makespans the runtime's schedulers give Task Bench graphs, under the
// runtime's cost model, without running anything (and without MPI).
//
//   herald-task-bench-schedule -workers 4,16,64 -steps 50 -width 64 -type stencil_1d
//       -kernel load_imbalance -iter 100000 -imbalance 1   (one line)
//
// Every task of every graph (Task Bench's flags, -and for several) becomes a task of a runtime Workload: it
// runs its kernel iterations (load_imbalance draws each task's count, as Task Bench does) at
// -iteration-seconds each on any worker, and each dependency carries -output bytes at -alpha + bytes *
// -beta between two workers. Printed per graph and worker count, as a Markdown table: the makespan of
// HEFT as published, of the runtime's heft (the fastest of HEFT, round-robin and one worker), of
// round-robin and of Task Bench's block mapping (point p of W on worker p*workers/W), with the ratios to
// the runtime's heft.
#include "graph.hpp"
#include "kernel.hpp"
#include "options.hpp"

#include <herald/config.hpp>
#include <herald/runtime/scheduling.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace tb = herald::taskbench;
namespace rt = herald::runtime;

struct Flags {
  std::vector<std::size_t> workers{4, 16, 64};
  rt::Link link{.alpha = 2e-6, .beta = 1e-10};
  double iteration_seconds = 1e-8;
};

constexpr tb::FlagHelp own_flag_help[] = {
    {"-workers [INT,...]", "worker counts, a table row each per graph (4,16,64)"},
    {"-alpha [SECONDS]", "seconds per transfer between two workers (2e-6)"},
    {"-beta [SECONDS]", "seconds per byte transferred (1e-10)"},
    {"-iteration-seconds [SECONDS]", "seconds per kernel iteration on any worker (1e-8)"},
};

Flags take_flags(std::vector<std::string_view>& args) {
  Flags flags;
  std::vector<std::string_view> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string flag(args[i]);
    if (flag != "-workers" && flag != "-alpha" && flag != "-beta" && flag != "-iteration-seconds") {
      rest.push_back(args[i]);
      continue;
    }
    if (i + 1 == args.size()) throw tb::UsageError("error: " + flag + " needs a value");
    const std::string value(args[++i]);
    try {
      if (flag == "-workers") {
        flags.workers.clear();
        for (const long long n : herald::parse_count_list(value, "-workers")) {
          if (n < 1 || n > 100000) throw std::invalid_argument("-workers takes counts from 1 to 100000");
          flags.workers.push_back(static_cast<std::size_t>(n));
        }
      } else if (flag == "-alpha") {
        flags.link.alpha = herald::parse_seconds(value, flag);
      } else if (flag == "-beta") {
        flags.link.beta = herald::parse_seconds(value, flag);
      } else {
        flags.iteration_seconds = herald::parse_seconds(value, flag);
      }
    } catch (const herald::Error& e) {
      throw tb::UsageError("error: " + e.message());
    } catch (const std::exception& e) {
      throw tb::UsageError(std::string("error: ") + e.what());
    }
  }
  args = std::move(rest);
  return flags;
}

struct GraphWorkload {
  rt::Workload workload;
  std::vector<std::size_t> block;  // Task Bench's block mapping
};

GraphWorkload workload_of(const tb::TaskGraph& g, std::size_t workers, double iteration_seconds) {
  GraphWorkload out;
  out.workload.workers = workers;
  std::vector<std::vector<std::size_t>> number(static_cast<std::size_t>(g.timesteps),
                                               std::vector<std::size_t>(static_cast<std::size_t>(g.max_width)));
  for (long t = 0; t < g.timesteps; ++t)
    for (long p = g.offset_at_timestep(t); p < g.offset_at_timestep(t) + g.width_at_timestep(t); ++p) {
      const long iterations = tb::task_iterations(g, t, p);
      const std::size_t task = out.workload.tasks();
      number[static_cast<std::size_t>(t)][static_cast<std::size_t>(p)] = task;
      out.workload.compute.emplace_back(workers, static_cast<double>(iterations) * iteration_seconds);
      out.block.push_back(static_cast<std::size_t>(p) * workers / static_cast<std::size_t>(g.max_width));
      if (t > 0)
        for (long q : g.input_points(t, p))
          out.workload.edges.push_back(
              {number[static_cast<std::size_t>(t - 1)][static_cast<std::size_t>(q)], task, g.output_bytes_per_task});
    }
  return out;
}

int run(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  Flags flags;
  tb::Options options;
  try {
    flags = take_flags(args);
    options = tb::parse_options(args);
  } catch (const tb::UsageError& e) {
    std::fprintf(stderr, "herald-task-bench-schedule: %s\n", e.what());
    return 2;
  }
  if (options.help) {
    std::printf("%s", tb::usage_text("herald-task-bench-schedule",
                                     "the makespans the runtime's schedulers give Task Bench graphs under its cost "
                                     "model, without running them",
                                     own_flag_help)
                          .c_str());
    return 0;
  }
  std::printf("alpha %.3g s, beta %.3g s/B, %.3g s per kernel iteration\n\n", flags.link.alpha, flags.link.beta,
              flags.iteration_seconds);
  std::printf("| graph | workers | HEFT ms | runtime's heft ms | round-robin ms | block ms | round-robin / heft | "
              "block / heft |\n|---|---|---|---|---|---|---|---|\n");
  for (const tb::TaskGraph& g : options.graphs) {
    const std::string name = std::string(tb::dependence_name(g.dependence)) + " " + std::to_string(g.max_width) + "x" +
                             std::to_string(g.timesteps) + " " + std::string(tb::kernel_name(g.kernel.type)) +
                             " -iter " + std::to_string(g.kernel.iterations) +
                             (g.kernel.type == tb::KernelType::load_imbalance
                                  ? " -imbalance " + std::to_string(g.kernel.imbalance).substr(0, 4)
                                  : std::string());
    for (std::size_t w : flags.workers) {
      const GraphWorkload gw = workload_of(g, w, flags.iteration_seconds);
      const double heft = rt::heft(gw.workload, flags.link).makespan;
      const double guarded = rt::guarded_heft(gw.workload, flags.link).makespan;
      const double rr = rt::round_robin(gw.workload, flags.link).makespan;
      const double block = rt::mapped(gw.workload, flags.link, gw.block).makespan;
      std::printf("| %s | %zu | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |\n", name.c_str(), w, heft * 1e3,
                  guarded * 1e3, rr * 1e3, block * 1e3, rr / guarded, block / guarded);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "herald-task-bench-schedule: %s\n", e.what());
    return 1;
  }
}
