// Static scheduling of a task graph onto workers: HEFT, round-robin and a user-given mapping.
//
// Pure functions, no MPI. The head schedules every task submitted up to a wait() at once, as OpenMP
// Cluster does, so the whole graph is known: each task's compute time on each worker, and the bytes each
// dependency carries from its producer to its consumer. Moving bytes between workers costs
// alpha + bytes * beta (the alpha-beta model of coll); between a worker and itself, nothing.
//
//   Workload w{.workers = 3, .compute = {...}, .edges = {{0, 1, 4096}, ...}};
//   TaskSchedule s = heft(w, {.alpha = 2e-6, .beta = 1e-10});
//   s.tasks[7].worker, s.tasks[7].start, s.makespan
#pragma once

#include <herald/error.hpp>

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace herald::runtime {

// A dependency: `to` needs what `from` produced, `bytes` of it (0: only an order). `datum` names which of
// `from`'s outputs (the runtime's handle): one worker receives each output once, whichever tasks read it.
struct Edge {
  std::size_t from = 0;
  std::size_t to = 0;
  std::size_t bytes = 0;
  std::size_t datum = 0;
};

struct Workload {
  std::size_t workers = 1;
  // Tasks a worker runs at once (its kernel threads, Options::threads): each worker's time is that many
  // lanes, a task on one of them.
  std::size_t lanes = 1;
  // compute[task][worker]: seconds the task runs on that worker. Tasks are numbered in a topological order
  // (every edge goes from a lower to a higher number), as the program submitted them.
  std::vector<std::vector<double>> compute;
  std::vector<Edge> edges;

  std::size_t tasks() const noexcept { return compute.size(); }
};

// alpha-beta cost of moving bytes between two different workers, and how transfers share the network.
struct Link {
  double alpha = 1.0e-6;  // seconds per message
  double beta = 1.0e-10;  // seconds per byte
  // false: any number of transfers at once, each at full speed (HEFT's paper). true: each worker's outgoing
  // and incoming link carries one transfer at a time; a transfer starts once its data is there and both
  // its sender's outgoing and its receiver's incoming link are free until it ends (in an idle gap or after
  // their last transfer), and holds both until then.
  bool queued = false;
  // With `queued`: a copy may come from any worker that holds the output by then, its producer or one it
  // was copied to (a broadcast's tree), not only from its producer. A forwarder passes the output on in
  // pieces of `piece` bytes (0: whole) as they land: it may start one piece after its own copy starts, and
  // ends no sooner than one piece after its own copy ends (the rule of docs/runtime.md, "Who forwards").
  bool forwarded = false;
  std::size_t piece = 0;
  double seconds(std::size_t bytes) const noexcept { return alpha + beta * static_cast<double>(bytes); }
};

struct Slot {
  std::size_t worker = 0;
  double start = 0;
  double finish = 0;
  std::size_t lane = 0;  // of the worker's Workload::lanes
};

// One output of a task copied to a worker, as planned (Link::queued).
struct Copy {
  std::size_t from = 0;    // the task that produced it
  std::size_t datum = 0;   // Edge::datum
  std::size_t source = 0;  // the worker it comes from: the producer's, or one it was copied to before
  std::size_t worker = 0;  // the worker it goes to
  double start = 0;
  double finish = 0;
};

struct TaskSchedule {
  std::vector<Slot> tasks;                         // per task
  std::vector<std::vector<std::size_t>> order;     // per worker: its tasks by start time (all its lanes')
  double makespan = 0;
  std::vector<Copy> copies;                        // with Link::queued: every copy, in the order planned
};

// heft: HEFT on the cost model; round_robin: the i-th task of a wait() on worker i mod workers; mapped: the
// worker the program names (TaskOptions::worker, else Options::mapping); owner: owner computes, each task on
// the worker that owns the first datum it writes (Head::data's owner), else the first it reads.
enum class Scheduler { heft, round_robin, mapped, owner };

// "heft", "round_robin", "mapped", "owner"; throws herald::Error naming `what`, the name and the choices for
// anything else.
Scheduler scheduler_from_string(std::string_view name, std::string_view what = "scheduler");
const char* to_string(Scheduler scheduler) noexcept;

// HEFT's upward rank of every task: its mean compute time plus the longest path, in mean compute and
// communication time, from it to an exit task (Topcuoglu, Hariri and Wu, 2002).
std::vector<double> upward_ranks(const Workload& workload, const Link& link);

// A priority per task from its place on the critical path: tasks ordered by upward rank, the highest rank
// the highest priority (n-1 for n tasks), equal ranks by task number (the lower higher). What the data a
// task reads travels with, so a panel tile goes before a trailing update's.
std::vector<int> critical_path_priorities(const Workload& workload, const Link& link);

// HEFT: tasks by decreasing upward rank, each on the worker where it would finish first, with insertion
// into idle gaps (on the lane where it would start first). Ties go to the lower task, worker or lane
// number, so the result is deterministic.
TaskSchedule heft(const Workload& workload, const Link& link);

// Task i on worker i mod workers, timed in task order.
TaskSchedule round_robin(const Workload& workload, const Link& link);

// Task i on worker_of[i] (owner computes, e.g. a 2D block-cyclic distribution), timed in task order.
TaskSchedule mapped(const Workload& workload, const Link& link, std::span<const std::size_t> worker_of);

// HEFT, or round-robin, or every task on the one fastest worker, whichever finishes first under the
// model. HEFT is greedy: where moving data costs more than computing it, it can spread a graph over
// workers that one worker, or a plain round-robin, would finish sooner (see docs/runtime.md).
TaskSchedule guarded_heft(const Workload& workload, const Link& link);

// The owner of tile (row, column) of a matrix dealt block-cyclically over a p x q grid of workers, numbered
// row by row (ScaLAPACK's 2D block-cyclic distribution): worker (row mod p) * q + (column mod q).
std::size_t block_cyclic(std::size_t row, std::size_t column, std::size_t p, std::size_t q);

// One of the above by name (Scheduler::heft is guarded_heft); `worker_of` only for Scheduler::mapped and
// Scheduler::owner (which the head resolves to a mapping).
TaskSchedule schedule(Scheduler scheduler, const Workload& workload, const Link& link,
                      std::span<const std::size_t> worker_of = {});

}  // namespace herald::runtime
