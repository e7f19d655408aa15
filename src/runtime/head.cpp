#include "head.hpp"
#include "broadcasts/ordering.hpp"
#include "idle.hpp"
#include "protocol/post.hpp"

#include <herald/tracing.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <thread>

namespace herald::runtime::detail {
namespace {

// How often the head looks for silent workers while it waits.
constexpr double liveness_check_seconds = 0.05;

}  // namespace

HeadState::HeadState(dyn::Channel& channel, Worker& local, const std::vector<KernelEntry>& kernels,
                     std::vector<std::vector<std::string>> kernel_names, ControlSettings settings, std::uint64_t id)
    : channel_(channel), local_(local), settings_(settings), id_(id), size_(channel.size()),
      workers_(channel.size() == 1 ? 1 : static_cast<std::size_t>(channel.size() - 1)),
      // The head plans every rank's part at wait(), every entered value on itself; ranks 1.. run the tasks
      // (rank 0 alone runs them too).
      planner_(kernels, kernel_names, settings_,
               {.workers = workers_, .first_worker = size_ == 1 ? 0 : 1, .entered_on_owner = false,
                .schedule_all = true, .own_rank = std::nullopt, .resolves = true, .recorder = &trace::recorder},
               settings_.broadcast != BroadcastStrategy::nobcast && size_ > 2, *this) {
  outstanding_.assign(static_cast<std::size_t>(size_), 0);
  last_heard_.assign(static_cast<std::size_t>(size_), LoopClock::now());
  stats_.peak_bytes.assign(static_cast<std::size_t>(size_), 0);
  worker_stats_.assign(static_cast<std::size_t>(size_), {});
  if (settings_.log && workers_ < 2 && settings_.broadcast != BroadcastStrategy::nobcast) {
    Statistics none;
    complete_statistics(none, planner_.plan(), settings_, static_cast<int>(workers_), true);
    std::fprintf(stderr, "herald runtime: %s\n", none.broadcasts_impossible.c_str());  // said once, here
  }
  channel_.on(done_handler, [this](const auto& a) { on_done(a); });
  channel_.on(failure_handler, [this](const auto& a) { on_failure(a); });
  channel_.on(readback_handler, [this](const auto& a) { on_readback(a); });
  channel_.on(got_handler, [this](const auto& a) { on_got(a); });
  channel_.on(heartbeat_handler, [this](const auto& a) {
    channel_.receive_payload({}, [] {});
    msg::decode<msg::Heartbeat>(a.body);
    heard(a.source);
  });
}

void HeadState::check_usable() const {
  if (lost_) throw Error(Errc::worker_lost, "the runtime lost a worker earlier; it cannot run more tasks");
  if (broken_) throw Error(Errc::task_failed, "the runtime stopped after an earlier failure");
}

void HeadState::check_handle(const Data& d, const char* what) const {
  if (!owns(d))
    throw Error(Errc::invalid_argument, std::string(what) + " of a data handle this runtime never registered");
}

Data HeadState::data(std::span<std::byte> bytes, std::string name, int owner, bool broadcast) {
  check_usable();
  const Data d = planner_.add_data(id_, bytes, std::move(name), owner, broadcast);
  handles_.push_back(bytes);
  return d;
}

void HeadState::enter(Data d) {
  check_usable();
  check_handle(d, "enter");
  const Key key = planner_.enter(d.index_);
  local_.store().put(key, Replica::borrowed(handles_[d.index_]));
  versions_.made(key, true);
}

void HeadState::read(Data d, bool exit) {
  check_usable();
  check_handle(d, exit ? "exit" : "read");
  const Key key = planner_.read(d.index_, exit);
  versions_.reading(key);
  reads_.push_back({key, exit});
}

std::uint64_t HeadState::submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments,
                                TaskOptions options) {
  check_usable();
  const Planner::Submitted task = planner_.submit(id_, kernel, uses, std::move(arguments), options);
  for (const Resolved& r : task.resolved) {
    if (reads(r.mode)) versions_.reading({r.handle, r.read});
    if (writes(r.mode)) versions_.made({r.handle, r.written}, false);
  }
  return task.id;
}

// A wait() hands what was submitted since the last one to the workers: the planner schedules it and
// plans its data (where each read finds its version, the broadcasts, the budgets of superseded versions);
// then each worker's orders are written and sent, and the values read() wants asked for.
void HeadState::dispatch() {
  const auto started = std::chrono::steady_clock::now();  // host CPU time, simulated or not
  trace::Recorder* recorder = trace::recorder();
  const double trace_started = recorder ? recorder->now() : 0;
  Batch batch;
  batch.writers.resize(static_cast<std::size_t>(size_));
  batch.budgets.resize(static_cast<std::size_t>(size_));
  batch_ = &batch;
  placed_.clear();
  accesses_.clear();
  reads_planned_ = 0;
  Planner::Batch planned = planner_.end_batch(std::nullopt, stats_);
  batch_ = nullptr;
  if (planned.makespan) stats_.makespan_predicted = *planned.makespan;
  batch.broadcasts = std::move(planned.broadcasts);
  for (const BroadcastOrder& b : batch.broadcasts)
    for (std::int32_t r : b.recipients) batch.received.emplace_back(r, b.key.packed());
  std::sort(batch.received.begin(), batch.received.end());
  write_tasks(batch);
  send_batch(batch);
  ask_read_backs();
  reads_.clear();
  stats_.schedule_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (recorder) recorder->span(trace::Kind::schedule, trace_started, static_cast<std::int64_t>(placed_.size()));
}

void HeadState::read(std::uint32_t handle, bool, std::uint64_t) {
  reads_[reads_planned_++].origin = planner_.plan().datum(handle).replicas.origin;
}

void HeadState::placed(PlacedTask& task) {
  placed_.push_back({task.id, task.kernel, task.rank, task.priority, task.start, accesses_.size(), task.accesses.size(),
                     std::move(task.arguments)});
  for (TaskAccess a : task.accesses) {
    // The head's read() takes no place in the plan: in place only where no read() waits for it either.
    if (a.in_place) a.in_place = versions_.readers_left(a.read) == 1;
    accesses_.push_back(a);
  }
}

void HeadState::settled(const DataPlan::Settled& s) {
  Batch& batch = *batch_;
  if (!s.superseded) return;
  versions_.superseded(s.key, s.replicas.holders);
  // Per holder of a version superseded in this batch and read in it, the reads and transfers it serves
  // here: it drops its replica once those are done, without waiting for the head. One read() brings
  // back is left to the head's releases.
  if (s.reads.empty()) return;
  for (const PendingRead& r : reads_)
    if (r.key == s.key) return;
  for (int holder : s.replicas.holders)
    if (holder != 0) batch.budgets[static_cast<std::size_t>(holder)].push_back({s.key, s.uses(holder)});
}

void HeadState::write_tasks(Batch& batch) {
  // Each task's orders, in the schedule's order, its reads by a broadcast where one brings them.
  // The last batch is done (its wait() returned): its records make way for this one's.
  std::vector<std::size_t> order(placed_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return placed_[a].start < placed_[b].start; });
  running_first_ = placed_.empty() ? planner_.next_id() : placed_.front().id;
  running_.assign(planner_.next_id() - running_first_, Running{});
  running_keys_.clear();
  for (std::size_t i : order) {
    Placed& task = placed_[i];
    const int rank = task.rank;
    msg::TasksWriter& writer = batch.writers[static_cast<std::size_t>(rank)];
    writer.task(task.id, planner_.kernels().index_on(task.kernel, rank), task.priority, static_cast<std::uint32_t>(task.count));
    Running& running = running_[task.id - running_first_];
    running.rank = rank;
    running.kernel = task.kernel;
    running.keys = static_cast<std::uint32_t>(running_keys_.size());
    const auto accesses = std::span(accesses_).subspan(task.access, task.count);
    for (TaskAccess a : accesses) {
      running.total_bytes += a.bytes;
      if (reads(a.mode)) {
        const std::pair<std::int32_t, std::uint64_t> mine{rank, a.read.packed()};
        if (a.source != rank && std::binary_search(batch.received.begin(), batch.received.end(), mine))
          a.source = by_broadcast;
        running_keys_.push_back(a.read);
        ++running.reads;
      }
      writer.access(a);
    }
    for (const TaskAccess& a : accesses)
      if (writes(a.mode)) {
        running_keys_.push_back({a.read.handle, a.written});
        ++running.writes;
      }
    writer.arguments(task.arguments);
    ++outstanding_[static_cast<std::size_t>(rank)];
    ++running_left_;
  }
}

HeadState::Running* HeadState::running(std::uint64_t task) {
  if (task < running_first_ || task - running_first_ >= running_.size()) return nullptr;
  Running& r = running_[task - running_first_];
  return r.rank < 0 ? nullptr : &r;
}

void HeadState::send_batch(Batch& batch) {
  const auto& budget = batch.budgets;
  // Each process's part in the broadcasts, in id order.
  std::vector<std::vector<const BroadcastOrder*>> parts(static_cast<std::size_t>(size_));
  for (const BroadcastOrder& b : batch.broadcasts) {
    parts[static_cast<std::size_t>(b.root)].push_back(&b);
    for (std::int32_t r : b.recipients) parts[static_cast<std::size_t>(r)].push_back(&b);
    if (b.sync) awaiting_go_.emplace(b.id, std::pair{b.recipients.size(), b.recipients});
  }
  auto batches_left = std::make_shared<std::size_t>(0);
  for (int r = 0; r < size_; ++r) {
    if (r == 0 && size_ > 1) continue;  // the head's own part is below
    const auto ri = static_cast<std::size_t>(r);
    if (batch.writers[ri].tasks() == 0 && budget[ri].empty() && parts[ri].empty()) continue;
    ++*batches_left;
    channel_.post(r, msg::Tasks::kind, batch.writers[ri].finish(budget[ri], parts[ri]), {}, 0,
                  [batches_left] { --*batches_left; });
  }
  if (size_ > 1 && !parts[0].empty()) {
    // The head roots these (data the program entered). MPI_Comm_create_group blocks until every member
    // calls it, which a worker does while handling its batch: the batches leave first.
    for (auto checked = LoopClock::now(); *batches_left > 0;) {
      channel_.progress();
      if (seconds_since(checked) > liveness_check_seconds) {
        check_workers();  // a worker that died before taking its batch is reported, not waited for
        checked = LoopClock::now();
      }
    }
    for (const BroadcastOrder* b : parts[0]) local_.broadcast(*b);
  }
}

void HeadState::ask_read_backs() {
  for (const PendingRead& read : reads_) {
    const Replica* here = local_.store().find(read.key);
    if (here && here->bytes.data() == handles_[read.key.handle].data()) {
      versions_.landed(read.key, read.exit);  // the entered value itself: the program's buffer holds it already
      continue;
    }
    ++reads_left_;
    readbacks_[read.key].push_back(read.exit);
    post(channel_, read.origin, msg::Fetch{read.key, true});
  }
}

void HeadState::on_got(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  heard(a.source);
  const auto id = msg::decode<msg::Got>(a.body).broadcast;
  const auto it = awaiting_go_.find(id);
  if (it == awaiting_go_.end())
    throw Error(Errc::invalid_argument, "rank " + std::to_string(a.source) + " reports broadcast " +
                                            std::to_string(id) + ", which is not waiting for its recipients");
  if (--it->second.first > 0) return;
  const msg::Go go{{id}};
  for (std::int32_t r : it->second.second) post(channel_, r, go);
  awaiting_go_.erase(it);
}

void HeadState::on_readback(const dyn::Channel::Arrival& a) {
  heard(a.source);
  const Key key = msg::decode<msg::Readback>(a.body).key;
  const auto waiting = readbacks_.find(key);
  if (waiting == readbacks_.end() || waiting->second.empty())
    throw Error(Errc::invalid_argument, "rank " + std::to_string(a.source) + " sent a value nobody asked for");
  const std::span<std::byte> into = handles_.at(key.handle);
  if (a.payload != into.size())
    throw Error(Errc::truncated, "rank " + std::to_string(a.source) + " sent " + std::to_string(a.payload) +
                                     " bytes of '" + planner_.graph().name(key.handle) + "', which has " +
                                     std::to_string(into.size()));
  const bool exit = waiting->second.front();
  waiting->second.pop_front();
  if (waiting->second.empty()) readbacks_.erase(waiting);
  channel_.receive_payload(into, [this, key, exit] {
    --reads_left_;
    versions_.landed(key, exit);
  });
}

void HeadState::on_done(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  heard(a.source);
  const auto done = msg::decode<msg::Done>(a.body);
  for (const auto& [task, seconds] : done.completions) {
    Running* r = running(task);
    if (!r || r->rank != a.source)
      throw Error(Errc::invalid_argument, "rank " + std::to_string(a.source) + " reports task " +
                                              std::to_string(task) + ", which it was not running");
    --outstanding_[static_cast<std::size_t>(r->rank)];
    --running_left_;
    r->rank = -1;
    ++stats_.tasks;
    planner_.estimates().measured(r->kernel, r->total_bytes, seconds);
    const auto keys = std::span(running_keys_).subspan(r->keys, r->reads + r->writes);
    for (const Key& k : keys.subspan(r->reads)) versions_.produced(k);
    for (const Key& k : keys.first(r->reads)) versions_.reader_done(k);
  }
  WorkerStats& w = worker_stats_.at(static_cast<std::size_t>(a.source));
  w.fetches = done.fetches;
  w.bytes = done.bytes;
  w.peak = done.peak;
}

void HeadState::on_failure(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  heard(a.source);
  const auto [task, what] = msg::decode<msg::Failure>(a.body);
  if (task == no_task) {  // the worker itself failed, outside any kernel
    if (!failure_) failure_.emplace(Errc::task_failed, "worker " + std::to_string(a.source) + ": " + what);
    return;
  }
  const Running* r = running(task);
  const std::string kernel = r ? planner_.kernels().name(r->kernel) : "?";
  if (!failure_)
    failure_.emplace(Errc::task_failed,
                     task_name(task, kernel) + " failed on rank " + std::to_string(a.source) + ": " + what);
}

void HeadState::heard(int rank) { last_heard_.at(static_cast<std::size_t>(rank)) = LoopClock::now(); }

void HeadState::flush_releases() {
  auto& releases = versions_.releases();
  for (std::size_t r = 0; r < releases.size(); ++r) {
    auto& keys = releases[r];
    if (keys.empty()) continue;
    post(channel_, static_cast<int>(r), msg::Release{keys});
    keys.clear();
  }
}

void HeadState::check_workers() {
  for (int r = 1; r < size_; ++r) {
    const double silent = seconds_since(last_heard_[static_cast<std::size_t>(r)]);
    if (silent <= settings_.timeout) continue;
    lost_ = true;
    throw Error(Errc::worker_lost, "worker rank " + std::to_string(r) + " has sent nothing for " +
                                       std::to_string(static_cast<int>(silent)) + " s while " +
                                       std::to_string(outstanding_[static_cast<std::size_t>(r)]) +
                                       " of its tasks were unfinished: it is dead or stuck");
  }
}

void HeadState::wait() {
  check_usable();
  try {
    for (auto& t : last_heard_) t = LoopClock::now();
    if (planner_.waiting()) dispatch();
    flush_releases();
    auto checked = LoopClock::now();
    Idle idle(settings_.idle_sleep, [this](std::chrono::nanoseconds d) { local_.wait(d); });
    while (running_left_ > 0 || reads_left_ > 0) {
      bool any = channel_.progress();
      any |= local_.poll();
      flush_releases();
      if (failure_) throw *failure_;
      if (seconds_since(checked) > liveness_check_seconds) {
        check_workers();
        checked = LoopClock::now();
      }
      if (any)
        idle.busy();
      else
        idle.idle();
    }
  } catch (...) {
    broken_ = true;
    throw;
  }
}

Statistics HeadState::statistics() const {
  Statistics s = stats_;
  s.fetches = 0;
  s.bytes_moved = 0;
  for (std::size_t r = 0; r < worker_stats_.size(); ++r) {
    s.fetches += worker_stats_[r].fetches;
    s.bytes_moved += worker_stats_[r].bytes;
    s.peak_bytes[r] = worker_stats_[r].peak;
  }
  s.fetches += local_.fetches();
  s.bytes_moved += local_.bytes_fetched();
  s.peak_bytes[0] = std::max<std::size_t>(s.peak_bytes[0], local_.store().peak_bytes());
  complete_statistics(s, planner_.plan(), settings_, static_cast<int>(workers_), true);
  return s;
}

}  // namespace herald::runtime::detail
