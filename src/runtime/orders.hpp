// Head control's orders of one batch, one message per rank: its tasks in the schedule's order (each read
// a broadcast brings marked so), the budgets of the versions superseded in the batch, and its part in the
// batch's broadcasts, in id order.
#pragma once

#include "in_flight.hpp"
#include "kernels.hpp"
#include "planner.hpp"
#include "protocol/messages.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace herald::runtime::detail {

class Orders {
 public:
  // A new batch over `ranks` ranks; the last one's records make way.
  void start(int ranks);
  // The planner placed `task`; its arguments move here. Returns its accesses, as they will be sent.
  std::span<TaskAccess> placed(PlacedTask& task);
  // `holder` drops its replica of `b.key` after `b.uses` uses.
  void budget(int holder, const Budget& b) { budgets_[static_cast<std::size_t>(holder)].push_back(b); }
  // Writes every task's orders, with the batch's broadcasts, and records each task in `in_flight`.
  void write(std::vector<BroadcastOrder> broadcasts, const KernelTable& kernels, InFlight& in_flight);

  std::size_t tasks() const noexcept { return placed_.size(); }
  const std::vector<BroadcastOrder>& broadcasts() const noexcept { return broadcasts_; }
  // Rank `rank`'s part of the broadcasts, in id order.
  const std::vector<const BroadcastOrder*>& part(int rank) const { return parts_.at(static_cast<std::size_t>(rank)); }
  // Whether `rank` has anything to be told: tasks, budgets or broadcasts.
  bool any_for(int rank) const;
  // Rank `rank`'s message, complete (once).
  std::vector<std::byte>& message(int rank);

 private:
  struct Placed {
    std::uint64_t id;
    std::uint32_t kernel;  // into the kernel table
    int rank;
    int priority;
    double start;        // in the batch's schedule: orders go in this order
    std::size_t access;  // its accesses in accesses_
    std::size_t count;
    Arguments arguments;
  };
  std::vector<Placed> placed_;  // in submission order
  std::vector<TaskAccess> accesses_;
  std::vector<msg::TasksWriter> writers_;           // per rank
  std::vector<std::vector<Budget>> budgets_;        // per rank
  std::vector<BroadcastOrder> broadcasts_;
  std::vector<std::vector<const BroadcastOrder*>> parts_;  // per rank, into broadcasts_
};

}  // namespace herald::runtime::detail
