// Broadcasts in a scheduled graph (seed 000, Fig. 1): a data version that tasks placed on two or more
// processes lacking it will read. Pure, no MPI.
#pragma once

#include "graph.hpp"
#include "protocol/messages.hpp"

#include <herald/runtime/broadcast.hpp>
#include <herald/runtime/scheduling.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

namespace herald::runtime::detail {

// Where one version is, and who must receive it, as the tasks reading it are placed: the one rule of
// both controls (kept per datum by the data plan, data_plan.hpp). A version read on two or more processes
// that lacked it is a broadcast.
struct Replicas {
  int origin = 0;
  std::vector<int> holders;     // processes holding it or about to (origin first)
  std::vector<int> recipients;  // processes that lacked it and read it, in the order of their first read
  std::vector<int> priorities;  // per recipient: the highest priority among its tasks reading it
  // When the plan has it made (0: before the batch), and per recipient when its first reader starts: the
  // times of the batch's schedule, for the trees planned on the links (link_plan.hpp).
  double ready = 0;
  std::vector<double> needs;

  // A version made on `origin` and held by `holders` (origin among them), with no recipients yet.
  static Replicas held(int origin, std::vector<int> holders);
  // A new version, made on `rank` at `at`: it alone holds it.
  void made(int rank, double at = 0);
  // A task on `rank` reads it with `priority`, planned to start at `need`: whether `rank` held it already.
  // One that did not becomes a holder and a recipient; a recipient's priority is its most urgent reader's,
  // its need time its first reader's.
  bool read(int rank, int priority, double need = 0);
  bool holds(int rank) const;
  // Its recipients are served (they stay holders): the next reads start a new list.
  void served();
};

struct FoundBroadcast {
  Key key;
  int root = 0;                 // the process that made the version (it holds it once made)
  std::vector<int> recipients;  // in the order of their first need
  std::vector<int> priorities;  // per recipient: the highest priority among its tasks reading the version
  std::uint64_t made_by = 0;    // the number of the task (or enter) that made the version: broadcasts go in this order
  double ready = 0;             // Replicas::ready and needs
  std::vector<double> needs;
};

// The order of broadcast `id` of `bytes` bytes: its recipients most urgent first, among equals the first
// to need it.
BroadcastOrder order_of(const FoundBroadcast& found, std::uint64_t id, std::uint64_t bytes);

// A copy of a version made in the batch, as the schedule planned it (TaskSchedule::copies), in ranks.
struct PlannedCopy {
  int source;
  int rank;
};
// By (the number of the task that made the version, its handle): the copies in the order planned.
using PlannedCopies = std::map<std::pair<std::uint64_t, std::uint32_t>, std::vector<PlannedCopy>>;
// The schedule's copies, given each row's task number and each worker's rank.
template <class RankOf>
PlannedCopies planned_copies(const TaskSchedule& schedule, std::span<const std::uint64_t> task_of_row, RankOf rank_of) {
  PlannedCopies out;
  for (const Copy& c : schedule.copies)
    out[{task_of_row[c.from], static_cast<std::uint32_t>(c.datum)}].push_back({rank_of(c.source), rank_of(c.worker)});
  return out;
}

}  // namespace herald::runtime::detail
