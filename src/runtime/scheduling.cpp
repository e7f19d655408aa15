#include "timeline.hpp"

#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace herald::runtime {
namespace detail {

void check(const Workload& workload) {
  if (workload.workers == 0) throw Error(Errc::invalid_argument, "a workload needs at least one worker");
  if (workload.lanes == 0) throw Error(Errc::invalid_argument, "a workload's workers need at least one lane");
  for (std::size_t t = 0; t < workload.tasks(); ++t) {
    const auto& row = workload.compute[t];
    if (row.size() != workload.workers)
      throw Error(Errc::invalid_argument, "task " + std::to_string(t) + " has compute times for " +
                                              std::to_string(row.size()) + " workers, not " +
                                              std::to_string(workload.workers));
    for (double seconds : row)
      if (!std::isfinite(seconds) || seconds < 0)
        throw Error(Errc::invalid_argument, "task " + std::to_string(t) + " has a compute time of " +
                                                std::to_string(seconds) + " s");
  }
  for (const Edge& e : workload.edges)
    if (e.from >= e.to || e.to >= workload.tasks())
      throw Error(Errc::invalid_argument, "edge " + std::to_string(e.from) + " -> " + std::to_string(e.to) +
                                              " of a " + std::to_string(workload.tasks()) +
                                              "-task workload: edges go from a lower to a higher task");
}

PerTask<Incoming> predecessors(const Workload& workload) {
  return {workload.tasks(), workload.edges, [](const Edge& e) { return e.to; },
          [](const Edge& e) { return Incoming{e.from, e.bytes, e.datum}; }};
}

double Timeline::earliest_start(double ready, double length) const {
  auto gap = std::lower_bound(gaps_.begin(), gaps_.end(), ready, [](const Gap& g, double r) { return g.finish <= r; });
  for (; gap != gaps_.end(); ++gap) {
    const double start = std::max(ready, gap->start);
    if (start + length <= gap->finish) return start;
  }
  return std::max(ready, end_);
}

double Timeline::clear_from(double start, double finish) const {
  if (start >= end_) return start;
  // The gap holding `start`, if any: the first that ends after it.
  auto gap = std::lower_bound(gaps_.begin(), gaps_.end(), start, [](const Gap& g, double s) { return g.finish <= s; });
  if (gap != gaps_.end() && gap->start <= start) {
    if (finish <= gap->finish) return start;
    ++gap;  // the busy interval after this gap is the first overlapped
  }
  return gap == gaps_.end() ? end_ : gap->start;
}

void Timeline::occupy(double start, double finish, std::size_t task) {
  starts_.emplace_back(start, task);
  if (start >= end_) {
    if (start > end_) gaps_.push_back({end_, start});
    end_ = finish;
    return;
  }
  // Inside a gap (earliest_start found it): what is left of it on either side stays a gap.
  auto gap = std::lower_bound(gaps_.begin(), gaps_.end(), start, [](const Gap& g, double s) { return g.finish <= s; });
  const Gap was = *gap;
  gap = gaps_.erase(gap);
  if (finish < was.finish) gap = gaps_.insert(gap, {finish, was.finish});
  if (was.start < start) gaps_.insert(gap, {was.start, start});
}

std::vector<std::size_t> Timeline::tasks() const {
  auto sorted = starts_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> out;
  out.reserve(sorted.size());
  for (const auto& s : sorted) out.push_back(s.second);
  return out;
}

double LinkTimelines::start(std::size_t from, std::size_t to, double ready, double length, double until) const {
  // Each round moves past a busy interval of one link or the other, so it ends within their count.
  for (double at = ready;;) {
    const double finish = std::max(at + length, until);
    const double next = std::max(out_[from].clear_from(at, finish), in_[to].clear_from(at, finish));
    if (next == at) return at;
    at = next;
  }
}

void LinkTimelines::occupy(std::size_t from, std::size_t to, double start, double finish) {
  out_[from].occupy(start, finish, to);
  in_[to].occupy(start, finish, from);
}

Placer::Placer(const Workload& workload, const Link& link)
    : workload_(workload), link_(link), predecessors_(predecessors(workload)),
      timelines_(workload.workers * workload.lanes), links_(workload.workers) {
  schedule_.tasks.assign(workload.tasks(), Slot{});
}

Placer::Arrival Placer::arrival(const Incoming& in, std::size_t worker) const {
  const Slot& from = schedule_.tasks[in.from];
  if (from.worker == worker) return {from.finish, std::nullopt};
  if (!link_.queued || in.bytes == 0) return {from.finish + link_.seconds(in.bytes), std::nullopt};
  const double length = link_.seconds(in.bytes);
  std::span<const Holder> copied;
  if (const auto it = holders_.find(output_key(in.from, in.datum)); it != holders_.end()) copied = it->second;
  for (const Holder& h : copied)
    if (h.worker == worker) return {h.arrived, std::nullopt};
  // The producer, then (forwarded) the workers copied to, in the order planned: the first whose copy ends
  // earliest.
  Copy best{.from = in.from, .datum = in.datum, .source = from.worker, .worker = worker};
  best.start = links_.start(from.worker, worker, from.finish, length);
  best.finish = best.start + length;
  if (link_.forwarded)
    for (const Holder& h : copied) {
      const double start = links_.start(h.worker, worker, h.first, length, h.last);
      const double finish = std::max(start + length, h.last);
      if (finish < best.finish) best = {.from = in.from, .datum = in.datum, .source = h.worker, .worker = worker, .start = start, .finish = finish};
    }
  return {best.finish, best};
}

double Placer::ready(std::size_t task, std::size_t worker) const {
  double ready = 0;
  for (const Incoming& in : predecessors_[task]) ready = std::max(ready, arrival(in, worker).at);
  return ready;
}

Slot Placer::try_on(std::size_t task, std::size_t worker) const {
  const double ready = this->ready(task, worker);
  const double length = workload_.compute[task][worker];
  Slot best{worker, 0, 0, 0};
  for (std::size_t lane = 0; lane < workload_.lanes; ++lane) {
    const double start = timelines_[worker * workload_.lanes + lane].earliest_start(ready, length);
    if (lane == 0 || start < best.start) best = {worker, start, start + length, lane};
  }
  return best;
}

void Placer::place(std::size_t task, const Slot& slot) {
  double ready = 0;
  for (const Incoming& in : predecessors_[task]) {
    const Arrival a = arrival(in, slot.worker);
    ready = std::max(ready, a.at);
    if (!a.copy) continue;
    const Copy& c = *a.copy;
    links_.occupy(c.source, c.worker, c.start, c.finish);
    // Store and forward sends once the copy is in; pipelined, one piece after it starts and ends.
    const double lag = link_.piece == 0 ? 0.0 : link_.seconds(std::min(link_.piece, in.bytes));
    holders_[output_key(c.from, c.datum)].push_back(
        link_.piece == 0 ? Holder{c.worker, c.finish, c.finish, 0.0} : Holder{c.worker, c.finish, c.start + lag, c.finish + lag});
    schedule_.copies.push_back(c);
  }
  const double length = workload_.compute[task][slot.worker];
  Slot placed = slot;
  placed.start = timelines_[slot.worker * workload_.lanes + slot.lane].earliest_start(ready, length);
  placed.finish = placed.start + length;
  schedule_.tasks[task] = placed;
  timelines_[placed.worker * workload_.lanes + placed.lane].occupy(placed.start, placed.finish, task);
  schedule_.makespan = std::max(schedule_.makespan, placed.finish);
}

TaskSchedule Placer::finish() && {
  for (std::size_t w = 0; w < workload_.workers; ++w) {
    std::vector<std::size_t> tasks;
    for (std::size_t lane = 0; lane < workload_.lanes; ++lane) {
      const std::vector<std::size_t> on_lane = timelines_[w * workload_.lanes + lane].tasks();
      tasks.insert(tasks.end(), on_lane.begin(), on_lane.end());
    }
    if (workload_.lanes > 1)  // one lane's tasks come sorted
      std::stable_sort(tasks.begin(), tasks.end(),
                       [&](std::size_t a, std::size_t b) { return schedule_.tasks[a].start < schedule_.tasks[b].start; });
    schedule_.order.push_back(std::move(tasks));
  }
  return std::move(schedule_);
}

}  // namespace detail

Scheduler scheduler_from_string(std::string_view name, std::string_view what) {
  std::vector<std::string_view> choices;
  for (Scheduler s : {Scheduler::heft, Scheduler::round_robin, Scheduler::mapped, Scheduler::owner}) {
    if (name == to_string(s)) return s;
    choices.emplace_back(to_string(s));
  }
  throw Error(Errc::invalid_argument, not_one_of(what, name, choices));
}

const char* to_string(Scheduler scheduler) noexcept {
  switch (scheduler) {
    case Scheduler::heft: return "heft";
    case Scheduler::round_robin: return "round_robin";
    case Scheduler::mapped: return "mapped";
    case Scheduler::owner: return "owner";
  }
  return "?";
}

TaskSchedule mapped(const Workload& workload, const Link& link, std::span<const std::size_t> worker_of) {
  detail::check(workload);
  if (worker_of.size() != workload.tasks())
    throw Error(Errc::invalid_argument, "a mapping of " + std::to_string(worker_of.size()) + " tasks for a " +
                                            std::to_string(workload.tasks()) + "-task workload");
  detail::Placer placer(workload, link);
  for (std::size_t t = 0; t < workload.tasks(); ++t) {
    if (worker_of[t] >= workload.workers)
      throw Error(Errc::invalid_argument, "task " + std::to_string(t) + " mapped to worker " +
                                              std::to_string(worker_of[t]) + " of " +
                                              std::to_string(workload.workers));
    placer.place(t, placer.try_on(t, worker_of[t]));
  }
  return std::move(placer).finish();
}

std::size_t block_cyclic(std::size_t row, std::size_t column, std::size_t p, std::size_t q) {
  if (p == 0 || q == 0) throw Error(Errc::invalid_argument, "block_cyclic: a grid of " + std::to_string(p) + " x " + std::to_string(q) + " workers");
  return (row % p) * q + column % q;
}

TaskSchedule round_robin(const Workload& workload, const Link& link) {
  std::vector<std::size_t> worker_of(workload.tasks());
  for (std::size_t t = 0; t < worker_of.size(); ++t) worker_of[t] = t % std::max<std::size_t>(workload.workers, 1);
  return mapped(workload, link, worker_of);
}

TaskSchedule guarded_heft(const Workload& workload, const Link& link) {
  TaskSchedule best = heft(workload, link);
  if (workload.workers == 1) return best;
  // Each alternative costs one pass over the graph; HEFT itself costs one per worker.
  auto keep_faster = [&](TaskSchedule other) {
    if (other.makespan < best.makespan) best = std::move(other);
  };
  keep_faster(round_robin(workload, link));
  std::vector<double> serial(workload.workers, 0.0);
  for (const auto& row : workload.compute)
    for (std::size_t w = 0; w < workload.workers; ++w) serial[w] += row[w];
  const auto fastest = static_cast<std::size_t>(std::min_element(serial.begin(), serial.end()) - serial.begin());
  keep_faster(mapped(workload, link, std::vector<std::size_t>(workload.tasks(), fastest)));
  return best;
}

TaskSchedule schedule(Scheduler scheduler, const Workload& workload, const Link& link,
                      std::span<const std::size_t> worker_of) {
  switch (scheduler) {
    case Scheduler::heft: return guarded_heft(workload, link);
    case Scheduler::round_robin: return round_robin(workload, link);
    case Scheduler::mapped:
    case Scheduler::owner: return mapped(workload, link, worker_of);
  }
  throw Error(Errc::invalid_argument, "unknown scheduler");
}

}  // namespace herald::runtime
