#include "orders.hpp"

#include <algorithm>
#include <numeric>

namespace herald::runtime::detail {

void Orders::start(int ranks) {
  const auto n = static_cast<std::size_t>(ranks);
  placed_.clear();
  accesses_.clear();
  writers_.assign(n, {});
  budgets_.assign(n, {});
  broadcasts_.clear();
  parts_.assign(n, {});
}

std::span<TaskAccess> Orders::placed(PlacedTask& task) {
  const std::size_t first = accesses_.size();
  placed_.push_back({task.id, task.kernel, task.rank, task.priority, task.start, first, task.accesses.size(),
                     std::move(task.arguments)});
  accesses_.insert(accesses_.end(), task.accesses.begin(), task.accesses.end());
  return std::span(accesses_).subspan(first);
}

void Orders::write(std::vector<BroadcastOrder> broadcasts, const KernelTable& kernels, InFlight& in_flight) {
  broadcasts_ = std::move(broadcasts);
  std::vector<std::pair<std::int32_t, std::uint64_t>> received;  // (rank, packed version) a broadcast brings
  for (const BroadcastOrder& b : broadcasts_) {
    parts_[static_cast<std::size_t>(b.root)].push_back(&b);
    for (std::int32_t r : b.recipients) {
      parts_[static_cast<std::size_t>(r)].push_back(&b);
      received.emplace_back(r, b.key.packed());
    }
  }
  std::sort(received.begin(), received.end());
  std::vector<std::size_t> order(placed_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return placed_[a].start < placed_[b].start; });
  in_flight.start_batch(placed_.empty() ? 0 : placed_.front().id, placed_.empty() ? 0 : placed_.back().id + 1);
  for (std::size_t i : order) {
    const Placed& task = placed_[i];
    msg::TasksWriter& writer = writers_[static_cast<std::size_t>(task.rank)];
    writer.task(task.id, kernels.index_on(task.kernel, task.rank), task.priority, static_cast<std::uint32_t>(task.count));
    const auto accesses = std::span(accesses_).subspan(task.access, task.count);
    for (TaskAccess a : accesses) {
      if (reads(a.mode) && a.source != task.rank &&
          std::binary_search(received.begin(), received.end(), std::pair{std::int32_t{task.rank}, a.read.packed()}))
        a.source = by_broadcast;
      writer.access(a);
    }
    writer.arguments(task.arguments);
    in_flight.sent(task.id, task.rank, task.kernel, accesses);
  }
}

bool Orders::any_for(int rank) const {
  const auto r = static_cast<std::size_t>(rank);
  return writers_[r].tasks() > 0 || !budgets_[r].empty() || !parts_[r].empty();
}

std::vector<std::byte>& Orders::message(int rank) {
  const auto r = static_cast<std::size_t>(rank);
  return writers_[r].finish(budgets_[r], parts_[r]);
}

}  // namespace herald::runtime::detail
