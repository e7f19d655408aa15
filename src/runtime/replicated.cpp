#include "replicated.hpp"

#include "broadcasts/ordering.hpp"
#include "idle.hpp"
#include "protocol/post.hpp"

#include <herald/tracing.hpp>

#include "../core/mpi/check.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>
#include <unordered_set>

namespace herald::runtime::detail {
namespace {

// The statistics a wait() ends with, summed over the ranks: a failure somewhere, tasks, fetches, bytes;
// then each rank's peak bytes.
constexpr std::size_t statistic_fields = 4;
// Versions up to this size ride inside their message's frame (the channel's inline payload): they are
// pushed to their readers rather than fetched.
constexpr std::size_t push_bytes = dyn::Channel::Options{}.max_inline;

}  // namespace

ReplicatedState::ReplicatedState(dyn::Channel& channel, Worker& local, const std::vector<KernelEntry>& kernels,
                                 const std::vector<std::vector<std::string>>& kernel_names,
                                 ControlSettings settings, std::uint64_t id)
    : channel_(channel), local_(local), settings_(std::move(settings)), id_(id), rank_(channel.rank()), size_(channel.size()),
      planner_(kernels, kernel_names, settings_,
               {.workers = static_cast<std::size_t>(size_), .first_worker = 0, .entered_on_owner = true,
                .schedule_all = false, .own_rank = rank_, .recorder = &trace::recorder},
               settings_.broadcast != BroadcastStrategy::nobcast, *this),
      read_kernel_(planner_.kernels().id(settings_.read_kernel, 0)),
      ring_(channel, local, settings_, statistic_fields + static_cast<std::size_t>(channel.size())) {
  stats_.peak_bytes.assign(static_cast<std::size_t>(size_), 0);
}

void ReplicatedState::check_usable() const {
  if (ring_.lost()) throw Error(Errc::worker_lost, "the runtime lost a process earlier; it cannot run more tasks");
  if (broken_) throw Error(Errc::task_failed, "the runtime stopped after an earlier failure");
}

void ReplicatedState::mix(std::uint64_t value) noexcept {
  // FNV-1a over 64-bit words: cheap, and any difference in what was submitted changes it.
  fingerprint_ = (fingerprint_ ^ value) * 0x100000001b3ULL;
}

Data ReplicatedState::data(std::span<std::byte> bytes, std::string name, int owner, bool broadcast) {
  check_usable();
  const Data d = planner_.add_data(id_, bytes, std::move(name), owner, broadcast);
  handles_.push_back({bytes});
  mix(0xda7a);
  mix(bytes.size());
  mix(static_cast<std::uint64_t>(owner + 1));
  return d;
}

void ReplicatedState::enter(Data d) {
  check_usable();
  handle(d, "enter");
  mix(0xe7e7);
  mix(d.index_);
  planner_.enter(d.index_);
}

void ReplicatedState::entered(const Key& key, int rank) {
  if (rank == rank_) local_.store().put(key, Replica::borrowed(handles_[key.handle].buffer));
}

void ReplicatedState::read(Data d, bool exit) {
  check_usable();
  handle(d, exit ? "exit" : "read");
  // One task number per rank's copy, so that every task of a trace has its own.
  planner_.read(d.index_, exit, static_cast<std::uint64_t>(size_));
  mix(exit ? 0xe1e1 : 0x4ead);
  mix(d.index_);
}

void ReplicatedState::read(std::uint32_t index, bool exit, std::uint64_t id) {
  // One task per rank, each copying the version into that rank's own buffer; where the rank holds the very
  // buffer (the owner, its entered value) the copy is skipped.
  Handle& h = handles_[index];
  const Access access[] = {{index, Mode::in}};
  for (int r = 0; r < size_; ++r) {
    Arguments where;
    if (r == rank_) {
      where = arguments(reinterpret_cast<std::uintptr_t>(h.buffer.data()));
      ++copies_;
    }
    planner_.place(id + static_cast<std::uint64_t>(r), read_kernel_, access, std::move(where), 0, 0, r, 0, 0, false);
  }
  if (exit && !h.exit) exits_.push_back(index);
  h.exit = h.exit || exit;
}

std::uint64_t ReplicatedState::submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments,
                                      TaskOptions options) {
  check_usable();
  const Planner::Submitted task = planner_.submit(id_, kernel, uses, std::move(arguments), options);
  mix(task.kernel);
  for (const Access& a : task.accesses)
    mix((std::uint64_t{a.closes} << 40) | (std::uint64_t{a.handle} << 3) | static_cast<std::uint64_t>(a.mode));
  mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(options.priority)) << 32 |
      (task.worker ? *task.worker : 0xffffffffU));
  return task.id;
}

void ReplicatedState::placed(PlacedTask& task) {
  if (task.rank != rank_) return;
  TaskOrder& order = orders_.emplace_back(TaskOrder{task.id, planner_.kernels().index_on(task.kernel, rank_), task.priority,
                                                    local_.spare_accesses(), std::move(task.arguments)});
  order.accesses.assign(task.accesses.begin(), task.accesses.end());
  starts_.push_back(task.start);
}

void ReplicatedState::settled(const DataPlan::Settled& s) {
  const Replicas& r = s.replicas;
  // A small version travels inside one frame, as an eager MPI message does: its maker sends it to each
  // reader as soon as it is made instead of waiting to be asked (a message less, and no round trip when
  // the reader asks late). Larger ones are fetched when a task needs them, so that early copies do not
  // take the links and memory from what is needed first.
  if (!s.broadcast && planner_.plan().datum(s.key.handle).bytes <= push_bytes) {
    if (r.origin == rank_)
      for (int to : r.recipients) pushes_.push_back({s.key, to});
    else if (std::ranges::find(r.recipients, rank_) != r.recipients.end())
      pushed_here_.push_back(s.key);
  }
  // This rank's uses of a version nobody will read again: the replica goes once they are done.
  if (s.superseded && r.holds(rank_)) budgets_.push_back({s.key, s.uses(rank_)});
}

void ReplicatedState::wait() {
  check_usable();
  try {
    const auto started = std::chrono::steady_clock::now();  // host CPU time, simulated or not
    trace::Recorder* recorder = trace::recorder();
    const double trace_started = recorder ? recorder->now() : 0;
    const std::uint64_t tasks = planner_.batch_tasks();
    Planner::Batch planned = planner_.end_batch(rank_, stats_);
    if (planned.makespan) {
      stats_.makespan_predicted = *planned.makespan;
      // This rank's tasks start in the schedule's order.
      std::vector<std::size_t> by_start(orders_.size());
      std::iota(by_start.begin(), by_start.end(), std::size_t{0});
      std::stable_sort(by_start.begin(), by_start.end(), [&](std::size_t a, std::size_t b) { return starts_[a] < starts_[b]; });
      std::vector<TaskOrder> sorted;
      sorted.reserve(orders_.size());
      for (std::size_t i : by_start) sorted.push_back(std::move(orders_[i]));
      orders_ = std::move(sorted);
    }
    ring_.restart();
    // Before any byte moves: the same work on every rank, or none of it runs.
    if (!ring_.agree(Ring::Sync::wait_start, fingerprint_))
      throw Error(Errc::invalid_argument,
                  "replicated control: the ranks did not all submit the same work since the last wait() (every rank "
                  "must make the same calls with the same data and kernels), or some left run(); nothing of it ran");
    // Every rank found the same broadcasts and numbers them alike; each keeps those it takes part in.
    const std::vector<BroadcastOrder>& broadcasts = planned.broadcasts;
    // A broadcast's copy and a small version come unasked; anything else is fetched from its maker when
    // a task needs it.
    received_.clear();  // packed keys, sorted: a reused vector, where a set would allocate per wait()
    for (const Key& key : pushed_here_) received_.push_back(key.packed());
    for (const BroadcastOrder& b : broadcasts)
      if (b.root != rank_) received_.push_back(b.key.packed());
    std::sort(received_.begin(), received_.end());
    for (TaskOrder& order : orders_)
      for (TaskAccess& a : order.accesses)
        if (reads(a.mode) && a.source != rank_ && std::binary_search(received_.begin(), received_.end(), a.read.packed()))
          a.source = by_broadcast;
    stats_.schedule_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (recorder) recorder->span(trace::Kind::schedule, trace_started, static_cast<std::int64_t>(tasks));
    try {
      for (TaskOrder& order : orders_) local_.add_task(std::move(order));
      for (const auto& [key, uses] : budgets_) local_.set_budget(key, uses);
      for (const BroadcastOrder& b : broadcasts) local_.broadcast(b);
      for (const auto& [key, rank] : pushes_) local_.serve(key, rank, false);
    } catch (...) {
      // The other ranks wait for this one's part: they are told, as of a failing kernel.
      local_.fail("taking its tasks failed: " + describe(std::current_exception()));
    }
    orders_.clear();
    starts_.clear();
    budgets_.clear();
    pushes_.clear();
    pushed_here_.clear();
    fingerprint_ = 0;

    ring_.serve_until([&] { return local_.unfinished() == 0 || ring_.failed_somewhere(); });
    // Once every rank is here, every task ran and every transfer landed; the same reduction sums the
    // statistics.
    std::vector<std::uint64_t> mine(statistic_fields + static_cast<std::size_t>(size_), 0);
    mine[0] = ring_.failed_somewhere() ? 1 : 0;
    mine[1] = local_.completed() - copies_;  // the program's tasks, not read()'s copies
    mine[2] = local_.fetches();
    mine[3] = local_.bytes_fetched();
    mine[statistic_fields + static_cast<std::size_t>(rank_)] = local_.store().peak_bytes();
    if (!ring_.agree(Ring::Sync::wait_end, 0, mine))
      throw Error(Errc::invalid_argument, "replicated control: some rank left run() while this one was in wait()");
    const auto all = ring_.sums();
    stats_.tasks = all[1];
    stats_.fetches = all[2];
    stats_.bytes_moved = all[3];
    for (std::size_t r = 0; r < static_cast<std::size_t>(size_); ++r) stats_.peak_bytes[r] = all[statistic_fields + r];
    if (all[0] > 0) {
      // The report that some rank failed may still be on its way here.
      ring_.serve_until([&] { return ring_.failure().has_value(); });
      throw *ring_.failure();
    }
    // exit(): the owner's buffer is the value again; every other replica of it goes.
    for (std::uint32_t index : exits_) {
      Handle& h = handles_[index];
      h.exit = false;
      const DataPlan::Datum& datum = planner_.plan().datum(index);
      const Key key{index, datum.version};
      local_.store().release(key);
      if (datum.owner == rank_) local_.store().put(key, Replica::borrowed(h.buffer));
      planner_.plan().returned(index, datum.owner);
    }
    exits_.clear();
  } catch (...) {
    broken_ = true;
    throw;
  }
}

void ReplicatedState::leave() {
  // Until every rank leaves: a rank still in wait() sees this one's kind differ, raises, and leaves too.
  ring_.restart();
  while (!ring_.agree(Ring::Sync::leave, 0)) {
  }
}

Statistics ReplicatedState::statistics() const {
  Statistics s = stats_;
  complete_statistics(s, planner_.plan(), settings_, size_, false);
  return s;
}

}  // namespace herald::runtime::detail
