// A batch's schedule, built the same way under both controls: its tasks in submission order with their
// estimates, the enters between them, and the read-after-write edges (WorkloadBuilder); then the schedule,
// each task's critical-path urgency (what its reads travel with) and the copies the planned trees take
// (PlannedCopies). Pure: no MPI.
#pragma once

#include "broadcast.hpp"
#include "data_plan.hpp"

#include <herald/runtime/scheduling.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace herald::runtime::detail {

class BatchSchedule {
 public:
  struct Result {
    TaskSchedule schedule;     // tasks by row, in submission order
    std::vector<int> urgency;  // per row
    PlannedCopies copies;      // where `copies` was asked
  };

  BatchSchedule(std::size_t workers, std::size_t lanes, std::size_t handles) : build_(workers, lanes, handles) {}
  void entered(std::uint32_t handle) { build_.entered(handle); }
  // Task `id` (accesses with .handle and .mode, each of bytes_of(handle) bytes), priced at `seconds`, on
  // `worker` where the scheduler takes the program's choice (mapped, owner): its row.
  template <class Accesses, class BytesOf>
  std::size_t task(std::uint64_t id, const Accesses& accesses, double seconds, BytesOf bytes_of, std::size_t worker = 0) {
    worker_of_.push_back(worker);
    task_of_row_.push_back(id);
    return build_.task(accesses, seconds, bytes_of);
  }
  std::size_t tasks() const noexcept { return task_of_row_.size(); }

  // The batch scheduled by `scheduler` on the link link_of(workload) gives, urgencies priced on `priced`
  // (the program's link, as it gave it); `copies`: the schedule's copies by rank, rank_of(worker) each.
  template <class LinkOf, class RankOf>
  Result schedule(Scheduler scheduler, LinkOf link_of, const Link& priced, bool copies, RankOf rank_of) {
    const Workload workload = build_.take();
    Result r;
    r.schedule = herald::runtime::schedule(scheduler, workload, link_of(workload), worker_of_);
    r.urgency = critical_path_priorities(workload, priced);
    if (copies) r.copies = planned_copies(r.schedule, task_of_row_, rank_of);
    return r;
  }

 private:
  WorkloadBuilder build_;
  std::vector<std::size_t> worker_of_;
  std::vector<std::uint64_t> task_of_row_;
};

}  // namespace herald::runtime::detail
