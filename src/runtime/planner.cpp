#include "planner.hpp"

#include "batch_schedule.hpp"
#include "broadcasts/ordering.hpp"
#include "mapping.hpp"
#include "task_trace.hpp"

#include <herald/error.hpp>

#include <array>

namespace herald::runtime::detail {

Planner::Planner(const std::vector<KernelEntry>& kernels, const std::vector<std::vector<std::string>>& kernel_names,
                 const ControlSettings& settings, PlannerShape shape, bool broadcasts, PlanSink& sink)
    : settings_(settings), shape_(shape), sink_(sink), kernels_(kernel_names, kernels, shape.first_worker),
      plan_(broadcasts, [this](const DataPlan::Settled& s) {
        if (s.broadcast) found_.push_back(s.found());
        sink_.settled(s);
      }) {}

Data Planner::add_data(std::uint64_t runtime, std::span<std::byte> bytes, std::string name, int owner, bool broadcast) {
  if (bytes.data() == nullptr && !bytes.empty())
    throw Error(Errc::invalid_buffer, "data '" + name + "': a null buffer of " + std::to_string(bytes.size()) + " bytes");
  const std::uint32_t index = graph_.add_handle(bytes.size(), name);
  plan_.add(bytes.size(), std::move(name), shape_.entered_on_owner ? owner : 0, broadcast);
  owners_.push_back(static_cast<std::size_t>(owner));
  return Data(runtime, index, bytes.size());
}

std::uint32_t Planner::handle(const Data& d, std::uint64_t runtime, const char* what) const {
  if (!owns(d, runtime))
    throw Error(Errc::invalid_argument, std::string(what) + " of a data handle this runtime never registered");
  return d.index_;
}

Planner::Submitted Planner::submit(std::uint64_t runtime, std::string_view kernel, std::span<const Use> uses,
                                   Arguments&& arguments, TaskOptions options) {
  const std::uint64_t id = next_id_;
  const std::uint32_t k = kernels_.id(kernel, id);
  // Every check before anything is recorded: a refused task leaves no trace. A handle of another runtime
  // gets an index past this one's handles, which the check refuses.
  accesses_.clear();
  for (const Use& u : uses)
    accesses_.push_back(access_of(u, u.data.owner_ == runtime ? u.data.index_ : static_cast<std::uint32_t>(graph_.handles())));
  graph_.check(accesses_, [&] { return task_name(id, kernel); });
  const TaskInfo info{id, kernel, uses, options.priority, static_cast<int>(shape_.workers)};
  std::optional<std::size_t> worker = chosen_worker(settings_.scheduler, info, options.worker, settings_.mapping, owners_);
  if (!schedules_all() && settings_.scheduler == Scheduler::round_robin) worker = batch_tasks_ % shape_.workers;
  ++next_id_;
  ++batch_tasks_;
  resolved_.clear();
  graph_.add_task(id, accesses_, shape_.resolves || !shape_.own_rank ? &resolved_ : nullptr);
  if (!shape_.own_rank)
    if (trace::Recorder* recorder = shape_.recorder ? shape_.recorder() : nullptr) {
      const TaskTrace trace(recorder, id, kernel);
      for (const Resolved& r : resolved_) {
        if (reads(r.mode)) trace.reads(r.maker);
        if (writes(r.mode)) trace.writes({r.handle, r.written});
      }
    }
  if (schedules_all() || !worker || !waiting_.empty()) {
    // Waits for the batch's schedule (or behind what does, to keep submission order).
    const auto first = static_cast<std::uint32_t>(waiting_accesses_.size());
    waiting_accesses_.insert(waiting_accesses_.end(), accesses_.begin(), accesses_.end());
    ++waiting_tasks_;
    waiting_.push_back({Entry::task, id, k, first, static_cast<std::uint32_t>(accesses_.size()), worker.value_or(0),
                        options.priority, std::move(arguments)});
  } else {
    // Placed at submission, before the tasks after it are known: its reads travel with its own priority.
    place(id, k, accesses_, std::move(arguments), options.priority, options.priority,
          shape_.first_worker + static_cast<int>(*worker));
  }
  return {id, k, accesses_, shape_.resolves ? std::span<const Resolved>(resolved_) : std::span<const Resolved>(), worker};
}

Key Planner::enter(std::uint32_t handle) {
  const std::uint64_t id = next_id_++;
  resolved_.clear();
  graph_.add_task(id, std::array{Access{handle, Mode::out}}, &resolved_);
  const Key key{handle, resolved_[0].written};
  if (schedules_all() || !waiting_.empty())
    waiting_.push_back({Entry::enter, id, handle});
  else
    entered(handle, id);
  return key;
}

void Planner::entered(std::uint32_t handle, std::uint64_t id) {
  const int rank = shape_.entered_on_owner ? plan_.datum(handle).owner : 0;
  sink_.entered(plan_.write(handle, rank, id), rank);
}

Key Planner::read(std::uint32_t handle, bool exit, std::uint64_t ids) {
  const char* what = exit ? "exit" : "read";
  if (!graph_.has_value(handle)) throw Error(Errc::invalid_argument, no_value_yet(what, graph_.name(handle)));
  const std::uint64_t id = next_id_;
  next_id_ += ids;
  if (schedules_all() || !waiting_.empty())
    waiting_.push_back({exit ? Entry::exit : Entry::read, id, handle});
  else
    sink_.read(handle, exit, id);
  return {handle, graph_.version(handle)};
}

void Planner::place(std::uint64_t id, std::uint32_t kernel, std::span<const Access> accesses, Arguments&& arguments,
                    int priority, int urgency, int rank, double start, double finish, bool traced) {
  if (shape_.own_rank && *shape_.own_rank != rank) {
    // Another rank's task: only the plan's records.
    for (const Access& a : accesses) place_access(plan_, a, rank, id, urgency, start, finish);
    return;
  }
  // The trace's record of a task is made where it runs, when a control keeps only its own.
  const bool here = traced && shape_.own_rank;
  const TaskTrace trace(here && shape_.recorder ? shape_.recorder() : nullptr, id, kernels_.name(kernel));
  placed_.clear();
  for (const Access& a : accesses) {
    if (reads(a.mode)) trace.reads(plan_.datum(a.handle).made_by);
    placed_.push_back(place_access(plan_, a, rank, id, urgency, start, finish));
    if (writes(a.mode)) trace.writes({a.handle, placed_.back().written});
  }
  PlacedTask task{id, kernel, rank, priority, start, placed_, arguments};
  sink_.placed(task);
}

std::optional<double> Planner::schedule_waiting() {
  if (waiting_.empty()) return std::nullopt;
  // The graph since the last batch for the scheduler: tasks in submission order, and the read-after-write
  // edges between them (what an earlier batch ran is done, and versions make the other kinds no
  // constraint on execution).
  BatchSchedule batch(shape_.workers, settings_.lanes, plan_.size());
  const auto bytes_of = [&](std::uint32_t h) { return graph_.bytes(h); };
  std::vector<std::size_t> row_of(waiting_.size(), 0);
  for (std::size_t i = 0; i < waiting_.size(); ++i) {
    const Entry& e = waiting_[i];
    if (e.kind == Entry::enter) batch.entered(e.handle_or_kernel);
    if (e.kind != Entry::task) continue;
    const auto accesses = std::span(waiting_accesses_).subspan(e.first, e.count);
    row_of[i] = batch.task(e.id, accesses, estimates_.seconds(e.handle_or_kernel, accesses, bytes_of), bytes_of, e.worker);
  }
  const auto rank_of = [&](std::size_t w) { return shape_.first_worker + static_cast<int>(w); };
  auto [made, urgency, copies] =
      batch.schedule(settings_.scheduler,
                     [&](const Workload& w) { return schedule_link(settings_, w); }, settings_.link,
                     settings_.trees == BroadcastTrees::planned, rank_of);
  copies_ = std::move(copies);
  // Versions follow submission order whatever the schedule.
  for (std::size_t i = 0; i < waiting_.size(); ++i) {
    Entry& e = waiting_[i];
    if (e.kind == Entry::enter) {
      entered(e.handle_or_kernel, e.id);
    } else if (e.kind != Entry::task) {
      sink_.read(e.handle_or_kernel, e.kind == Entry::exit, e.id);
    } else {
      const Slot& slot = made.tasks[row_of[i]];
      place(e.id, e.handle_or_kernel, std::span(waiting_accesses_).subspan(e.first, e.count), std::move(e.arguments),
            e.priority, urgency[row_of[i]], rank_of(slot.worker), slot.start, slot.finish);
    }
  }
  const bool scheduled = waiting_tasks_ > 0;
  waiting_.clear();
  waiting_accesses_.clear();
  waiting_tasks_ = 0;
  return scheduled ? std::optional(made.makespan) : std::nullopt;
}

Planner::Batch Planner::end_batch(std::optional<int> rank, Statistics& stats) {
  Batch batch;
  batch.makespan = schedule_waiting();
  plan_.end_batch();
  batch_tasks_ = 0;
  batch.broadcasts = order_broadcasts(found_, numbering_, stats, plan_, settings_, rank, copies_);
  copies_.clear();
  return batch;
}

}  // namespace herald::runtime::detail
