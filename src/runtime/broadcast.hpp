// Broadcasts in a scheduled graph (seed 000, Fig. 1): a data version that tasks placed on two or more
// processes lacking it will read. Pure, no MPI: the head runs it on every dispatch, the tests on
// hand-made and random plans.
#pragma once

#include "graph.hpp"
#include "protocol/messages.hpp"

#include <herald/runtime/broadcast.hpp>

#include <functional>
#include <span>
#include <vector>

namespace herald::runtime::detail {

// One step of a dispatch, in the order the schedule starts tasks: a task on `rank` reads or writes `key`.
struct PlanStep {
  bool write = false;
  Key key;
  int rank = 0;
  int priority = 0;  // the reading task's
};

// Where a version is before the dispatch: the process that made it, and every process holding it.
struct Placement {
  int origin = 0;
  std::vector<int> holders;
};

struct FoundBroadcast {
  Key key;
  int root = 0;                 // the process that made the version (it holds it once made)
  std::vector<int> recipients;  // in the order of their first need
  std::vector<int> priorities;  // per recipient: the highest priority among its tasks reading the version
  std::size_t ready_step = 0;   // 1 + the step writing the version; 0 for one made before the dispatch
};

// The order of broadcast `id` of `bytes` bytes: its recipients most urgent first, among equals the first
// to need it.
BroadcastOrder order_of(const FoundBroadcast& found, std::uint64_t id, std::uint64_t bytes);

// Every version read, in `steps`, on at least two processes that neither hold it nor make it, in the order
// in which the versions become ready (then of their first read). `before` gives the placement of a version
// written before the dispatch (it is never asked for one that `steps` writes first).
std::vector<FoundBroadcast> find_broadcasts(std::span<const PlanStep> steps,
                                            const std::function<Placement(const Key&)>& before);

}  // namespace herald::runtime::detail
