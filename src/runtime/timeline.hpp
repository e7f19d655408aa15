// What the schedulers share: the checks on a workload, each task's predecessors, and a worker's timeline
// with insertion into idle gaps.
#pragma once

#include <herald/runtime/scheduling.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace herald::runtime::detail {

// Throws herald::Error naming the first problem: a row of the wrong width, a negative or non-finite time,
// an edge that is out of range or goes backwards.
void check(const Workload& workload);

// Items grouped by task, each group in the order given: two arrays for the whole graph rather than a
// vector per task (the schedulers run at every wait() over graphs of 10^5 tasks).
template <class T>
class PerTask {
 public:
  // Each of `edges` gives make(edge) to task task_of(edge) < tasks.
  template <class Edges, class TaskOf, class Make>
  PerTask(std::size_t tasks, const Edges& edges, TaskOf task_of, Make make) : start_(tasks + 1, 0) {
    for (const auto& e : edges) ++start_[task_of(e) + 1];
    for (std::size_t t = 0; t < tasks; ++t) start_[t + 1] += start_[t];
    items_.resize(start_[tasks]);
    std::vector<std::size_t> next(start_.begin(), start_.end() - 1);
    for (const auto& e : edges) items_[next[task_of(e)]++] = make(e);
  }
  std::span<const T> operator[](std::size_t task) const {
    return {items_.data() + start_[task], start_[task + 1] - start_[task]};
  }

 private:
  std::vector<std::size_t> start_;  // task t's items are items_[start_[t], start_[t + 1])
  std::vector<T> items_;
};

struct Incoming {
  std::size_t from;
  std::size_t bytes;
  std::size_t datum;
};
// predecessors[task]: the edges into it.
PerTask<Incoming> predecessors(const Workload& workload);

// One worker's time: when it is busy, as the idle gaps before its last busy interval and the end of that
// interval. Graphs of 10^5 tasks are scheduled at every wait(), so a lookup scans only the gaps that end
// after the task could start, which are few when tasks pack densely.
class Timeline {
 public:
  // The earliest start at or after `ready` of a run of `length` seconds: in the first idle gap that holds
  // it, else after the last busy interval.
  double earliest_start(double ready, double length) const;
  // `start` if [start, finish) is idle, else the end of the first busy interval it overlaps.
  double clear_from(double start, double finish) const;
  // Takes [start, finish) (idle: a result of earliest_start, or where clear_from says so) for `task`.
  void occupy(double start, double finish, std::size_t task);
  // The tasks by start time.
  std::vector<std::size_t> tasks() const;

 private:
  struct Gap {
    double start;
    double finish;
  };
  std::vector<Gap> gaps_;  // by start; each of positive length, all before end_
  double end_ = 0;
  std::vector<std::pair<double, std::size_t>> starts_;  // (start, task), in the order placed
};

// Each worker's outgoing and incoming link as a timeline (Link::queued): a transfer takes the earliest
// time both are idle for its whole length.
class LinkTimelines {
 public:
  explicit LinkTimelines(std::size_t workers) : out_(workers), in_(workers) {}
  // The earliest start at or after `ready` from which both links are idle for `length`, and until `until`
  // at least (a forwarder's copy holds them until its source's last piece is through).
  double start(std::size_t from, std::size_t to, double ready, double length, double until = 0) const;
  void occupy(std::size_t from, std::size_t to, double start, double finish);

 private:
  std::vector<Timeline> out_;
  std::vector<Timeline> in_;
};

// Places tasks in the order given (a topological one), each on its worker at the earliest start its
// inputs and its worker's lanes allow (on the first lane that allows it). With Link::queued, each input a
// task lacks on its worker is copied there once, on the links (LinkTimelines), from the holder whose copy
// ends first (its producer first among equals; only the producer unless Link::forwarded). A copy holds
// both links from its start until it ends: its length, or for a forwarded one, until its source's own
// copy's last piece is through if that is later.
class Placer {
 public:
  Placer(const Workload& workload, const Link& link);
  // When `task` could start on `worker`, and finish, given the tasks and copies placed so far. Under
  // Link::queued each input is priced on its own: two inputs arriving at once may share the incoming link
  // once placed, so place() can start the task later than this says.
  Slot try_on(std::size_t task, std::size_t worker) const;
  // Places `task` on the slot's worker and lane, at the earliest start its inputs' copies, now planned on
  // the links, allow.
  void place(std::size_t task, const Slot& slot);
  TaskSchedule finish() &&;

 private:
  // A worker an output was copied to: its copy ends at `arrived`; it may send from `first` on, and no copy
  // from it ends before `last`.
  struct Holder {
    std::size_t worker;
    double arrived;
    double first;
    double last;
  };
  struct Arrival {
    double at = 0;
    std::optional<Copy> copy;  // the copy to plan, where the worker lacks the output
  };
  Arrival arrival(const Incoming& in, std::size_t worker) const;
  double ready(std::size_t task, std::size_t worker) const;
  static std::uint64_t output_key(std::size_t task, std::size_t datum) {
    return (static_cast<std::uint64_t>(task) << 32) ^ static_cast<std::uint64_t>(datum);
  }

  const Workload& workload_;
  Link link_;
  PerTask<Incoming> predecessors_;
  std::vector<Timeline> timelines_;  // per worker, its lanes: worker * lanes + lane
  LinkTimelines links_;
  std::unordered_map<std::uint64_t, std::vector<Holder>> holders_;  // per output copied: its holders but the producer
  TaskSchedule schedule_;
};

}  // namespace herald::runtime::detail
