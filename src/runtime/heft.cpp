// HEFT (Topcuoglu, Hariri and Wu, IEEE TPDS 2002): list scheduling by upward rank, earliest finish time
// with insertion.
#include "timeline.hpp"

#include <algorithm>
#include <numeric>

namespace herald::runtime {

std::vector<double> upward_ranks(const Workload& workload, const Link& link) {
  detail::check(workload);
  const std::size_t n = workload.tasks();
  const detail::PerTask<Edge> successors(n, workload.edges, [](const Edge& e) { return e.from; },
                                         [](const Edge& e) { return e; });
  // Mean communication: a fraction (W-1)/W of the placements of two tasks put them on different workers;
  // HEFT's paper, with its one link type, simply charges the full cost, and so does this with W > 1.
  const bool one_worker = workload.workers == 1;
  std::vector<double> rank(n, 0.0);
  for (std::size_t t = n; t-- > 0;) {
    const auto& row = workload.compute[t];
    const double mean = std::accumulate(row.begin(), row.end(), 0.0) / static_cast<double>(row.size());
    double longest = 0;
    for (const Edge& e : successors[t])
      longest = std::max(longest, (one_worker ? 0.0 : link.seconds(e.bytes)) + rank[e.to]);
    rank[t] = mean + longest;
  }
  return rank;
}

std::vector<int> critical_path_priorities(const Workload& workload, const Link& link) {
  const std::vector<double> rank = upward_ranks(workload, link);
  std::vector<std::size_t> order(rank.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Least critical first; among equals the higher task number first, so the lower ends up higher.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rank[a] != rank[b] ? rank[a] < rank[b] : a > b; });
  std::vector<int> priority(rank.size());
  for (std::size_t i = 0; i < order.size(); ++i) priority[order[i]] = static_cast<int>(i);
  return priority;
}

TaskSchedule heft(const Workload& workload, const Link& link) {
  const std::vector<double> rank = upward_ranks(workload, link);
  // Decreasing rank is a topological order when compute times are positive; with zero-cost tasks a tie
  // between a task and its successor must still put the predecessor first, hence the lower number first.
  std::vector<std::size_t> order(workload.tasks());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank[a] > rank[b]; });

  detail::Placer placer(workload, link);
  for (std::size_t task : order) {
    Slot best = placer.try_on(task, 0);
    for (std::size_t w = 1; w < workload.workers; ++w) {
      const Slot s = placer.try_on(task, w);
      if (s.finish < best.finish) best = s;
    }
    placer.place(task, best);
  }
  return std::move(placer).finish();
}

}  // namespace herald::runtime
