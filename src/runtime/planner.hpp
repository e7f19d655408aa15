// The planner both controls share (docs/runtime.md, "One planner"): the graph as submitted and its checks,
// the estimates, each batch's schedule, the data plan its tasks are placed on, the broadcasts found there
// and the trace's records of each task. It decides every rank's orders; a control only distributes and
// agrees on them. The head plans every rank's part and sends it; a replicated rank plans the same and keeps
// its own. Pure: no MPI.
#pragma once

#include "broadcast.hpp"
#include "coordinator.hpp"
#include "data_plan.hpp"
#include "estimates.hpp"
#include "forwarding.hpp"
#include "graph.hpp"
#include "kernels.hpp"

#include <herald/runtime/task.hpp>
#include <herald/trace.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace herald::runtime::detail {

// How a control uses the planner: what differs between the two.
struct PlannerShape {
  std::size_t workers = 1;    // ranks that run tasks: first_worker, first_worker + 1, ...
  int first_worker = 0;
  bool entered_on_owner = true;  // else every entered value is on rank 0 (the head)
  // Every task waits for the batch's schedule at end_batch(); else only those no rule places at submission
  // (heft), and the rest are placed as they come, unless the trees are planned (they need the schedule's
  // times, and both controls must plan them alike).
  bool schedule_all = false;
  // The rank whose part this planner keeps: only its tasks are told to the sink and recorded in the trace,
  // as they are placed (replicated control). Unset: every rank's (head control), each task recorded in the
  // trace at submission.
  std::optional<int> own_rank;
  // submit() tells what each access resolved to (Submitted::resolved; else it is empty).
  bool resolves = false;
  // The recorder the trace's records go to when called (trace::recorder), or none.
  trace::Recorder* (*recorder)() noexcept = nullptr;
};

// A task placed on a rank, as the planner tells its control.
struct PlacedTask {
  std::uint64_t id = 0;
  std::uint32_t kernel = 0;  // into the kernel table
  int rank = 0;
  int priority = 0;
  double start = 0;  // in the batch's schedule (0: placed at submission)
  std::span<const TaskAccess> accesses;
  Arguments& arguments;
};

// What a control does with what the planner places, in submission order.
class PlanSink {
 public:
  virtual ~PlanSink() = default;
  // Every call below is made in submission order; placed() for the tasks of PlannerShape::own_rank only.
  // Version `key` was entered; the plan has it on `rank`.
  virtual void entered(const Key& key, int rank) = 0;
  // read() or exit() of `handle`, task number `id` (replicated control places its copies here).
  virtual void read(std::uint32_t handle, bool exit, std::uint64_t id) = 0;
  virtual void placed(PlacedTask& task) = 0;
  // A version has had all its reads of the batch (superseded: and all it will have).
  virtual void settled(const DataPlan::Settled& s) = 0;
};

class Planner {
 public:
  Planner(const std::vector<KernelEntry>& kernels, const std::vector<std::vector<std::string>>& kernel_names,
          const ControlSettings& settings, PlannerShape shape, bool broadcasts, PlanSink& sink);

  // A new datum of `bytes`, owned by worker `owner` (Scheduler::owner; a rank under replicated control),
  // and its handle, of runtime `runtime`. Throws herald::Error for a null buffer of some bytes.
  Data add_data(std::uint64_t runtime, std::span<std::byte> bytes, std::string name, int owner, bool broadcast);
  bool has_value(std::uint32_t handle) const { return graph_.has_value(handle); }
  bool owns(const Data& d, std::uint64_t runtime) const noexcept {
    return d.owner_ == runtime && d.index_ < graph_.handles();
  }
  // `d`'s index, where runtime `runtime` registered it; else throws invalid_argument, naming the call `what`.
  std::uint32_t handle(const Data& d, std::uint64_t runtime, const char* what) const;
  std::size_t handles() const noexcept { return graph_.handles(); }

  // The program's calls, recorded after every check. Each returns what the control needs of it (spans into
  // the planner's own vectors, valid until its next call).
  struct Submitted {
    std::uint64_t id = 0;
    std::uint32_t kernel = 0;
    std::span<const Access> accesses;
    std::span<const Resolved> resolved;  // where PlannerShape::resolves
    std::optional<std::size_t> worker;  // where submission chose it (mapped, owner, round_robin), if it did
  };
  // A task of `kernel` with `uses` (handles of runtime `runtime` only). Throws herald::Error, recording
  // nothing, for an unknown kernel, a foreign or repeated handle, a read of no value, or a worker out of range.
  Submitted submit(std::uint64_t runtime, std::string_view kernel, std::span<const Use> uses, Arguments&& arguments,
                   TaskOptions options);
  Key enter(std::uint32_t handle);
  // Throws herald::Error where `handle` has no value yet. Takes `ids` task numbers.
  Key read(std::uint32_t handle, bool exit, std::uint64_t ids = 1);
  std::uint64_t next_id() const noexcept { return next_id_; }
  // Tasks submitted since the last end_batch().
  std::uint64_t batch_tasks() const noexcept { return batch_tasks_; }
  // Whether anything waits for end_batch().
  bool waiting() const noexcept { return !waiting_.empty(); }

  // Places task `id` on `rank` (the accesses' versions, where each read comes from) and tells the sink.
  // `urgency`: what its reads travel with; `start`, `finish`: its times in the batch's schedule (else 0).
  void place(std::uint64_t id, std::uint32_t kernel, std::span<const Access> accesses, Arguments&& arguments,
             int priority, int urgency, int rank, double start = 0, double finish = 0, bool traced = true);

  // Schedules and places what waits for the batch's schedule, ends the batch on the data plan and orders
  // its broadcasts: those `rank` takes part in, or every one. Returns the schedule's predicted makespan
  // (unset where nothing was scheduled).
  struct Batch {
    std::optional<double> makespan;
    std::vector<BroadcastOrder> broadcasts;
  };
  Batch end_batch(std::optional<int> rank, Statistics& stats);

  const KernelTable& kernels() const noexcept { return kernels_; }
  Estimates& estimates() noexcept { return estimates_; }
  const GraphRecord& graph() const noexcept { return graph_; }
  DataPlan& plan() noexcept { return plan_; }
  const DataPlan& plan() const noexcept { return plan_; }

 private:
  // A call waiting for the batch's schedule, in submission order.
  struct Entry {
    enum Kind : std::uint8_t { task, enter, read, exit } kind;
    std::uint64_t id = 0;
    std::uint32_t handle_or_kernel = 0;
    std::uint32_t first = 0;  // task: its accesses in waiting_accesses_
    std::uint32_t count = 0;
    std::size_t worker = 0;   // where submission chose it (scheduler::mapped, owner)
    int priority = 0;
    Arguments arguments{};
  };
  std::optional<double> schedule_waiting();
  bool schedules_all() const noexcept { return shape_.schedule_all || settings_.trees == BroadcastTrees::planned; }
  void entered(std::uint32_t handle, std::uint64_t id);

  ControlSettings settings_;
  PlannerShape shape_;
  PlanSink& sink_;
  KernelTable kernels_;
  Estimates estimates_{kernels_};
  GraphRecord graph_;
  DataPlan plan_;
  std::vector<std::size_t> owners_;  // per handle: its owning worker
  std::uint64_t next_id_ = 0;
  std::uint64_t batch_tasks_ = 0;    // submitted since the last batch (round_robin)
  std::vector<Entry> waiting_;
  std::size_t waiting_tasks_ = 0;
  std::vector<Access> waiting_accesses_;
  std::vector<Access> accesses_;      // a submit's, reused
  std::vector<Resolved> resolved_;    // and what they resolved to
  std::vector<TaskAccess> placed_;    // a placement's, reused
  std::vector<FoundBroadcast> found_;
  PlannedCopies copies_;              // the last schedule's (planned trees)
  BroadcastNumbering numbering_;
};

}  // namespace herald::runtime::detail
