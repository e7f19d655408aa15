#include "head.hpp"
#include "batch_schedule.hpp"
#include "idle.hpp"
#include "mapping.hpp"
#include "protocol/post.hpp"
#include "task_trace.hpp"

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
    : channel_(channel), local_(local), kernels_(kernel_names, kernels, channel.size() == 1 ? 0 : 1),
      settings_(settings), id_(id), size_(channel.size()),
      workers_(channel.size() == 1 ? 1 : static_cast<std::size_t>(channel.size() - 1)),
      plan_(settings_.broadcast != BroadcastStrategy::nobcast && channel.size() > 2,
            [this](const DataPlan::Settled& s) { settled(s); }) {
  outstanding_.assign(static_cast<std::size_t>(size_), 0);
  last_heard_.assign(static_cast<std::size_t>(size_), LoopClock::now());
  stats_.peak_bytes.assign(static_cast<std::size_t>(size_), 0);
  worker_stats_.assign(static_cast<std::size_t>(size_), {});
  release_batches_.resize(static_cast<std::size_t>(size_));
  if (settings_.log && workers_ < 2 && settings_.broadcast != BroadcastStrategy::nobcast) {
    Statistics none;
    complete_statistics(none, plan_, settings_, static_cast<int>(workers_), true);
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
  if (bytes.data() == nullptr && !bytes.empty())
    throw Error(Errc::invalid_buffer, "data '" + name + "': a null buffer of " + std::to_string(bytes.size()) + " bytes");
  const std::uint32_t index = graph_.add_handle(bytes.size(), name);
  plan_.add(bytes.size(), name, 0, broadcast);  // entered on the head
  handles_.push_back({bytes, std::move(name), static_cast<std::size_t>(owner)});
  owners_.push_back(handles_.back().owner);
  return Data(id_, index, bytes.size());
}

void HeadState::enter(Data d) {
  check_usable();
  check_handle(d, "enter");
  const Access write[] = {{d.index_, Mode::out}};
  const std::uint64_t id = next_id_++;
  const auto resolved = graph_.add_task(id, write, [&] { return "enter of '" + handles_[d.index_].name + "'"; });
  const Key key{d.index_, resolved[0].written};
  Version& v = versions_[key];
  v = Version(&nodes_);
  v.produced = true;
  events_.push_back({Event::enter, d.index_, id});
  local_.store().put(key, Replica::borrowed(handles_[d.index_].buffer));
  if (key.version > 1) release_if_unneeded({key.handle, key.version - 1});
}

void HeadState::read(Data d, bool exit) {
  check_usable();
  check_handle(d, exit ? "exit" : "read");
  const Access access[] = {{d.index_, Mode::in}};
  const auto resolved = graph_.add_task(next_id_++, access, [&] { return std::string(exit ? "exit" : "read"); });
  const Key key{d.index_, resolved[0].read};
  ++versions_.at(key).readers_left;
  events_.push_back({Event::read, static_cast<std::uint32_t>(reads_.size())});
  reads_.push_back({key, exit});
}

std::uint64_t HeadState::submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments,
                                TaskOptions options) {
  check_usable();
  const std::uint64_t id = next_id_;
  const std::uint32_t kernel_id = kernels_.id(kernel, id);
  std::vector<Access>& accesses = scratch_;
  accesses.clear();
  for (const Use& u : uses) {
    if (!owns(u.data)) check_handle(u.data, (task_name(id, kernel) + ": a use").c_str());
    accesses.push_back(access_of(u, u.data.index_));
  }
  const TaskInfo info{id, kernel, uses, options.priority, static_cast<int>(workers_)};
  if (const auto w = chosen_worker(settings_.scheduler, info, options.worker, settings_.mapping, owners_))
    options.worker = static_cast<int>(*w);
  auto resolved = graph_.add_task(id, accesses, [&] { return task_name(id, kernel); });
  ++next_id_;
  if (trace::Recorder* recorder = trace::recorder()) {
    const TaskTrace trace(recorder, id, kernel);
    for (const Resolved& r : resolved) {
      if (reads(r.mode)) trace.reads(r.maker);
      if (writes(r.mode)) trace.writes({r.handle, r.written});
    }
  }
  for (const Resolved& r : resolved) {
    if (reads(r.mode)) ++versions_.at({r.handle, r.read}).readers_left;
    if (writes(r.mode)) {
      versions_[{r.handle, r.written}] = Version(&nodes_);
      if (r.written > 1) release_if_unneeded({r.handle, r.written - 1});
    }
  }
  events_.push_back({Event::task, static_cast<std::uint32_t>(pending_.size())});
  pending_.push_back({id, kernel_id, std::move(resolved), std::move(arguments), options});
  return id;
}

// A wait() hands what was submitted since the last one to the workers, in five steps: schedule it, plan its
// data (where each read finds its version, the broadcasts, the budgets of superseded versions), write each
// worker's orders, send them, and ask for the values read() wants.
void HeadState::dispatch() {
  const auto started = std::chrono::steady_clock::now();  // host CPU time, simulated or not
  trace::Recorder* recorder = trace::recorder();
  const double trace_started = recorder ? recorder->now() : 0;
  const std::size_t tasks = pending_.size();
  Batch batch;
  batch.writers.resize(static_cast<std::size_t>(size_));
  batch.budgets.resize(static_cast<std::size_t>(size_));
  const Plan plan = schedule_pending();
  plan_data(plan, batch);
  write_tasks(plan, batch);
  send_batch(batch);
  ask_read_backs();
  pending_.clear();
  reads_.clear();
  events_.clear();
  stats_.schedule_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (recorder) recorder->span(trace::Kind::schedule, trace_started, static_cast<std::int64_t>(tasks));
}

HeadState::Plan HeadState::schedule_pending() {
  // The graph since the last wait, for the scheduler: tasks in submission order, and the
  // read-after-write edges between them (what an earlier wait ran is done, and versions make the other
  // kinds no constraint on execution).
  BatchSchedule batch(workers_, settings_.lanes, plan_.size());
  const auto bytes_of = [&](std::uint32_t h) { return graph_.bytes(h); };
  for (const Event& e : events_) {
    if (e.kind == Event::enter) batch.entered(e.index);
    if (e.kind != Event::task) continue;
    const Pending& p = pending_[e.index];
    batch.task(p.id, p.accesses, estimates_.seconds(p.kernel, p.accesses, bytes_of), bytes_of,
               static_cast<std::size_t>(std::max(p.options.worker.value_or(0), 0)));
  }
  auto [made, urgency, copies] =
      batch.schedule(settings_.scheduler, [&](const Workload& w) { return schedule_link(settings_, w); }, settings_.link,
                     settings_.trees == BroadcastTrees::planned, [&](std::size_t w) { return rank_of_worker(w); });
  stats_.makespan_predicted = made.makespan;
  Plan plan;
  plan.order.resize(pending_.size());
  std::iota(plan.order.begin(), plan.order.end(), std::size_t{0});
  std::stable_sort(plan.order.begin(), plan.order.end(),
                   [&](std::size_t a, std::size_t b) { return made.tasks[a].start < made.tasks[b].start; });
  for (const Slot& t : made.tasks) plan.rank.push_back(rank_of_worker(t.worker));
  plan.urgency = std::move(urgency);
  plan.slots = std::move(made.tasks);
  plan.copies = std::move(copies);
  return plan;
}

void HeadState::plan_data(const Plan& plan, Batch& batch) {
  // Every access resolved on the rank its task runs on, in submission order: held there, or from its
  // maker; the versions read on two or more ranks lacking them become broadcasts once settled.
  batch_ = &batch;
  accesses_.clear();
  access_at_.assign(pending_.size(), 0);
  for (const Event& e : events_) {
    if (e.kind == Event::enter) {
      plan_.write(e.index, 0, e.id);
    } else if (e.kind == Event::read) {
      reads_[e.index].origin = plan_.datum(reads_[e.index].key.handle).replicas.origin;
    } else {
      const Pending& task = pending_[e.index];
      const int rank = plan.rank[e.index];
      access_at_[e.index] = accesses_.size();
      const Slot& slot = plan.slots[e.index];
      for (const Resolved& r : task.accesses) {
        TaskAccess a = place_access(plan_, {r.handle, r.mode, r.written}, rank, task.id, plan.urgency[e.index],
                                    slot.start, slot.finish);
        // The head's read() takes no place in the plan: in place only where no read() waits for it either.
        if (a.in_place) a.in_place = versions_.at(a.read).readers_left == 1;
        accesses_.push_back(a);
      }
    }
  }
  plan_.end_batch();
  batch_ = nullptr;
  batch.broadcasts = order_broadcasts(batch.found, broadcasts_, stats_, plan_, settings_, std::nullopt, plan.copies);
  for (const BroadcastOrder& b : batch.broadcasts)
    for (std::int32_t r : b.recipients) batch.received.emplace_back(r, b.key.packed());
  std::sort(batch.received.begin(), batch.received.end());
}

void HeadState::settled(const DataPlan::Settled& s) {
  Batch& batch = *batch_;
  if (s.broadcast) batch.found.push_back(s.found());
  if (!s.superseded) return;
  const auto it = versions_.find(s.key);
  if (it == versions_.end()) return;  // released already: superseded before this dispatch, and done
  it->second.holders.assign(s.replicas.holders.begin(), s.replicas.holders.end());
  // Per holder of a version superseded in this batch and read in it, the reads and transfers it serves
  // here: it drops its replica once those are done, without waiting for the head. One read() brings
  // back is left to the head's releases.
  if (s.reads.empty()) return;
  for (const PendingRead& r : reads_)
    if (r.key == s.key) return;
  for (int holder : s.replicas.holders)
    if (holder != 0) batch.budgets[static_cast<std::size_t>(holder)].push_back({s.key, s.uses(holder)});
}

std::span<const int> HeadState::holders(const Key& key, const Version& v) const {
  if (plan_.latest(key)) return plan_.datum(key.handle).replicas.holders;
  return {v.holders.data(), v.holders.size()};
}

void HeadState::write_tasks(const Plan& plan, Batch& batch) {
  // Each task's orders, in the schedule's order, its reads by a broadcast where one brings them.
  // The last batch is done (its wait() returned): its records make way for this one's.
  running_first_ = pending_.empty() ? next_id_ : pending_.front().id;
  running_.assign(next_id_ - running_first_, Running{});
  running_keys_.clear();
  for (std::size_t i : plan.order) {
    Pending& task = pending_[i];
    const int rank = plan.rank[i];
    msg::TasksWriter& writer = batch.writers[static_cast<std::size_t>(rank)];
    writer.task(task.id, kernels_.index_on(task.kernel, rank), task.options.priority,
                static_cast<std::uint32_t>(task.accesses.size()));
    Running& running = running_[task.id - running_first_];
    running.rank = rank;
    running.kernel = task.kernel;
    running.keys = static_cast<std::uint32_t>(running_keys_.size());
    for (std::size_t k = 0; k < task.accesses.size(); ++k) {
      TaskAccess a = accesses_[access_at_[i] + k];
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
    for (const TaskAccess& a : std::span(accesses_).subspan(access_at_[i], task.accesses.size()))
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
    if (here && here->bytes.data() == handles_[read.key.handle].buffer.data()) {
      land(read.key, read.exit);  // the entered value itself: the program's buffer holds it already
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

void HeadState::land(const Key& key, bool exit) {
  Version& v = versions_.at(key);
  v.exited = v.exited || exit;
  reader_done(key);
}

void HeadState::on_readback(const dyn::Channel::Arrival& a) {
  heard(a.source);
  const Key key = msg::decode<msg::Readback>(a.body).key;
  const auto waiting = readbacks_.find(key);
  if (waiting == readbacks_.end() || waiting->second.empty())
    throw Error(Errc::invalid_argument, "rank " + std::to_string(a.source) + " sent a value nobody asked for");
  const std::span<std::byte> into = handles_.at(key.handle).buffer;
  if (a.payload != into.size())
    throw Error(Errc::truncated, "rank " + std::to_string(a.source) + " sent " + std::to_string(a.payload) +
                                     " bytes of '" + handles_[key.handle].name + "', which has " +
                                     std::to_string(into.size()));
  const bool exit = waiting->second.front();
  waiting->second.pop_front();
  if (waiting->second.empty()) readbacks_.erase(waiting);
  channel_.receive_payload(into, [this, key, exit] {
    --reads_left_;
    land(key, exit);
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
    estimates_.measured(r->kernel, r->total_bytes, seconds);
    const auto keys = std::span(running_keys_).subspan(r->keys, r->reads + r->writes);
    for (const Key& k : keys.subspan(r->reads)) {
      versions_.at(k).produced = true;
      release_if_unneeded(k);
    }
    for (const Key& k : keys.first(r->reads)) reader_done(k);
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
  const std::string kernel = r ? kernels_.name(r->kernel) : "?";
  if (!failure_)
    failure_.emplace(Errc::task_failed,
                     task_name(task, kernel) + " failed on rank " + std::to_string(a.source) + ": " + what);
}

void HeadState::heard(int rank) { last_heard_.at(static_cast<std::size_t>(rank)) = LoopClock::now(); }

void HeadState::reader_done(const Key& key) {
  Version& v = versions_.at(key);
  --v.readers_left;
  release_if_unneeded(key);
}

void HeadState::release(int rank, const Key& key) {
  if (rank == 0) {
    local_.store().release(key);
  } else {
    release_batches_[static_cast<std::size_t>(rank)].push_back(key);
  }
}

void HeadState::release_if_unneeded(const Key& key) {
  const auto it = versions_.find(key);
  if (it == versions_.end()) return;
  Version& v = it->second;
  if (!v.produced || v.readers_left > 0) return;
  if (graph_.version(key.handle) > key.version) {
    // Superseded and read by everyone who will: no replica is needed any more.
    for (int holder : holders(key, v)) release(holder, key);
    versions_.erase(it);
  } else if (v.exited) {
    // exit(): the program's buffer is the value again, and the workers' replicas go.
    for (int holder : holders(key, v))
      if (holder != 0) release(holder, key);
    plan_.returned(key.handle, 0);
    v.exited = false;
    local_.store().put(key, Replica::borrowed(handles_[key.handle].buffer));
  }
}

void HeadState::flush_releases() {
  for (std::size_t r = 0; r < release_batches_.size(); ++r) {
    auto& keys = release_batches_[r];
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
    if (!pending_.empty() || !reads_.empty()) dispatch();
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
  complete_statistics(s, plan_, settings_, static_cast<int>(workers_), true);
  return s;
}

}  // namespace herald::runtime::detail
