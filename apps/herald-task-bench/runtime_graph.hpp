// Task Bench's graphs as tasks of herald's runtime.
//
// Every task (t, p) is a runtime task that reads the outputs of its dependencies in row t-1 and writes its
// own, checking every input it received (a wrong or missing dependency fails the run). Outputs live in two
// data handles per point, one for even rows and one for odd, so that row t writes while row t+1's readers
// of row t-1 are still to come; the runtime's versions keep everything else in order. -scratch is one
// inout handle per point, -broadcast one handle every task reads; the head enters both before timing.
// Under Scheduler::mapped, point p of a row of width W runs on worker p*workers/W, as Task Bench's MPI
// program splits points; that is the default under replicated control (scheduler_for).
#pragma once

#include "graph.hpp"

#include <herald/runtime/runtime.hpp>

#include <optional>
#include <span>

namespace herald::taskbench {

// The scheduler herald-task-bench gives the runtime: `asked` (-scheduler) if given, else
// HERALD_RUNTIME_SCHEDULER's; without either, mapped under replicated control (Task Bench's own split of
// points, which every rank computes per task in nanoseconds, where HEFT would plan the whole graph on every
// rank) and the runtime's default, HEFT, under the head. `control` unset: the runtime's default.
std::optional<runtime::Scheduler> scheduler_for(std::optional<runtime::Scheduler> asked,
                                                std::optional<runtime::Control> control);

class RuntimeGraphs {
 public:
  // Registers the kernel "task" with `runtime` (on every rank, before any run).
  explicit RuntimeGraphs(runtime::Runtime& runtime);
  RuntimeGraphs(const RuntimeGraphs&) = delete;
  RuntimeGraphs& operator=(const RuntimeGraphs&) = delete;

  // Collective over the runtime's ranks, all given the same graphs: runs every graph `passes` times and
  // returns the last pass's seconds, from its first submit to the end of its wait(), on the head (0 on the
  // workers). A faulty input ends the run with the runtime's task_failed error.
  double run(std::span<const TaskGraph> graphs, int passes);

 private:
  runtime::Runtime& runtime_;
  std::span<const TaskGraph> graphs_;  // what the kernel reads during run()
};

}  // namespace herald::taskbench
