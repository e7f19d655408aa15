// What the schedulers share: the checks on a workload, each task's predecessors, and a worker's timeline
// with insertion into idle gaps.
#pragma once

#include <herald/runtime/scheduling.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace herald::runtime::detail {

// Throws herald::Error naming the first problem: a row of the wrong width, a negative or non-finite time,
// an edge that is out of range or goes backwards.
void check(const Workload& workload);

struct Incoming {
  std::size_t from;
  std::size_t bytes;
};
// predecessors[task]: the edges into it.
std::vector<std::vector<Incoming>> predecessors(const Workload& workload);

// One worker's time: when it is busy, as the idle gaps before its last busy interval and the end of that
// interval. Graphs of 10^5 tasks are scheduled at every wait(), so a lookup scans only the gaps that end
// after the task could start, which are few when tasks pack densely.
class Timeline {
 public:
  // The earliest start at or after `ready` of a run of `length` seconds: in the first idle gap that holds
  // it, else after the last busy interval.
  double earliest_start(double ready, double length) const;
  // Takes [start, finish) (a result of earliest_start) for `task`.
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

// Places tasks in the order given (a topological one), each on its worker at the earliest start its
// inputs and its worker's lanes allow (on the first lane that allows it).
class Placer {
 public:
  Placer(const Workload& workload, const Link& link);
  // When `task` could start on `worker`, and finish, given the tasks placed so far.
  Slot try_on(std::size_t task, std::size_t worker) const;
  void place(std::size_t task, const Slot& slot);
  TaskSchedule finish() &&;

 private:
  const Workload& workload_;
  Link link_;
  std::vector<std::vector<Incoming>> predecessors_;
  std::vector<Timeline> timelines_;  // per worker, its lanes: worker * lanes + lane
  TaskSchedule schedule_;
};

}  // namespace herald::runtime::detail
