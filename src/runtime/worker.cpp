#include "worker.hpp"

#include "idle.hpp"
#include "internal_kernels.hpp"
#include "protocol/post.hpp"

#include "../core/mpi/check.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

namespace herald::runtime::detail {
namespace {

constexpr int queued_per_thread = 4;
constexpr auto inline_slice = std::chrono::microseconds(100);
constexpr std::uint32_t done_batch = 512;
constexpr auto report_every = std::chrono::microseconds(200);

}  // namespace

void HeadReport::failure(std::uint64_t task, std::string_view, const std::string& what) {
  post(channel_, head_, msg::Failure{task, what});
  channel_.flush();  // a failure leaves now, not at the next pass
}

void HeadReport::done(const msg::Done& done) { post(channel_, head_, done); }

void HeadReport::alive() {
  if (channel_.rank() != head_) post(channel_, head_, msg::Heartbeat{});
}

void HeadReport::got(std::uint64_t broadcast) { post(channel_, head_, msg::Got{broadcast}); }

std::string describe(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

void abort_run(MPI_Comm comm, const std::string& message) noexcept {
  std::fprintf(stderr, "herald runtime: %s; aborting\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(comm, 1);
  std::abort();  // MPI_Abort does not return; should it, the program still ends
}

Worker::Worker(dyn::Channel& channel, const std::vector<KernelEntry>& kernels, Settings settings)
    : channel_(channel), kernels_(kernels), settings_(std::move(settings)), rank_(channel.rank()),
      last_heartbeat_(LoopClock::now()) {
  if (!settings_.report) throw Error(Errc::invalid_argument, "a worker needs a report to send its news to");
  if (settings_.threads > 0) pool_ = std::make_unique<Pool>(settings_.threads);
  for (std::size_t k = 0; k < kernels_.size(); ++k)
    if (kernels_[k].name == partition_kernel) partition_kernel_ = static_cast<std::uint32_t>(k);
  on(tasks_handler, "tasks", [this](const auto& a) { on_tasks(a); });
  on(fetch_handler, "fetch", [this](const auto& a) { on_fetch(a); });
  on(data_handler, "data", [this](const auto& a) { on_data(a); });
  on(release_handler, "release", [this](const auto& a) { on_release(a); });
  on(go_handler, "go", [this](const auto& a) { on_go(a); });
  on(turn_handler, "turn", [this](const auto& a) { on_turn(a); });
  on(grant_handler, "grant", [this](const auto& a) { on_grant(a); });
  on(back_handler, "back", [this](const auto& a) { on_back(a); });
  on(stop_handler, "stop", [this](const auto& a) {
    channel_.receive_payload({}, [] {});
    msg::decode<msg::Stop>(a.body);
    state_ = State::stopped;
  });
}

template <class Handle>
void Worker::on(dyn::Channel::HandlerId id, const char* kind, Handle handle) {
  channel_.on(id, [this, kind, handle](const dyn::Channel::Arrival& a) {
    try {
      handle(a);
    } catch (...) {
      handler_failed(kind, a);
    }
  });
}

void Worker::handler_failed(const char* kind, const dyn::Channel::Arrival& a) noexcept {
  try {
    const std::string what = std::string("handler for ") + kind + " failed: " + describe(std::current_exception());
    // A payload left unclaimed would be paired with the next message from that rank, and its sender's
    // shutdown would wait for it: it is received and dropped. A claimed one refuses a second claim.
    try {
      auto scratch = std::make_shared<std::vector<std::byte>>(a.payload);
      channel_.receive_payload(*scratch, [scratch] {});
    } catch (const Error& e) {
      if (e.code() != Errc::invalid_argument) throw;
    }
    fail(what);
  } catch (...) {
    abort_run(channel_.comm(), "worker " + std::to_string(rank_) + ": handler for " + kind +
                                   " failed, and so did dropping its message: " + describe(std::current_exception()));
  }
}

void Worker::fail(const std::string& what) noexcept {
  const std::string message = "worker " + std::to_string(rank_) + ": " + what;
  if (state_ == State::failed) abort_run(channel_.comm(), message + " (after an earlier failure)");
  if (state_ == State::stopped) abort_run(channel_.comm(), message + " (after the head stopped listening)");
  state_ = State::failed;
  try {
    settings_.report->failure(no_task, {}, what);
  } catch (...) {
    abort_run(channel_.comm(),
              message + "; reporting it to the head failed too: " + describe(std::current_exception()));
  }
}

void Worker::inject(std::string_view kind) {
  if (settings_.inject != kind) return;
  settings_.inject.clear();
  if (kind == "alloc") throw std::bad_alloc();
  if (kind == "handler") throw std::runtime_error("injected by HERALD_RUNTIME_INJECT");
  // A real MPI call that fails (a send to a rank past the communicator's end), checked as every call is.
  int size = 0;
  MPI_Comm_size(settings_.groups, &size);
  HERALD_MPI(MPI_Send(nullptr, 0, MPI_BYTE, size, 0, settings_.groups));
}

void Worker::on_tasks(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  // Decoded into the last batch's vectors, each task's accesses into a finished task's room (no allocation
  // per task); taken out of the member while in use, in case a handler runs inside.
  msg::Tasks batch = std::move(batch_);
  msg::decode_into(a.body, batch);
  for (TaskOrder& task : batch.tasks) {
    add_task(std::move(task));
    task.accesses = spare_accesses();
  }
  // Superseded versions this rank holds or will hold, with the reads and transfers they still serve here.
  for (const Budget& budget : batch.budgets) set_budget(budget.key, budget.uses);
  // Broadcasts this process roots or receives, in the order of their ids.
  for (const BroadcastOrder& order : batch.broadcasts) broadcast(order);
  batch_ = std::move(batch);
}

void Worker::add_task(TaskOrder order) {
  inject("handler");
  inject("alloc");
  if (order.kernel >= kernels_.size())
    throw Error(Errc::invalid_argument, "task " + std::to_string(order.task) + " names kernel " +
                                            std::to_string(order.kernel) + " of " + std::to_string(kernels_.size()) +
                                            " on rank " + std::to_string(rank_));
  const std::uint64_t task = order.task;
  if (!pushed_early_.empty())
    if (trace::Recorder* recorder = trace::recorder())
      for (const TaskAccess& access : order.accesses)
        if (const auto early = pushed_early_.find(access.read); reads(access.mode) && early != pushed_early_.end()) {
          trace_push(*recorder, access.read, early->second, task);
          pushed_early_.erase(early);
        }
  Local& local = tasks_[task];
  for (const TaskAccess& access : order.accesses) {
    if (access.mode == Mode::commute) {
      ++local.missing;
      ++local.turns;
    }
    if (!reads(access.mode) || store_.find(access.read)) continue;
    ++local.missing;
    waiting_[access.read].push_back(task);
    if (access.source == rank_) ++local.missing_here;
  }
  local.order = std::move(order);
  if (local.missing_here == 0) fetch_inputs(local);
  if (local.turns > 0 && local.missing == local.turns) ask_turn(local);
  if (local.missing == 0) {
    trace_ready(local);
    ready_.push({local.order.priority, sequence_++, task});
  }
}

void Worker::trace_push(trace::Recorder& recorder, const Key& key, const PushLanded& landed, std::uint64_t task) {
  recorder.record({.begin = landed.at, .end = landed.at, .a = landed.source, .b = rank_,
                   .c = static_cast<std::int64_t>(landed.bytes), .d = static_cast<std::int64_t>(task),
                   .e = static_cast<std::int64_t>(key.packed()), .kind = trace::Kind::transfer});
}

void Worker::set_budget(const Key& key, std::uint32_t uses) {
  budget_[key] = uses;
  if (uses == 0 && store_.find(key)) spend_nothing(key);
}

Worker::~Worker() = default;

void Worker::broadcast(const BroadcastOrder& order) {
  const bool root = order.root == rank_;
  if (trace::Recorder* recorder = trace::recorder()) {
    const double now = recorder->now();
    broadcasts_begun_[order.id] = {now, order};
    if (root)
      for (std::int32_t r : order.recipients)
        recorder->record(
            {.begin = now, .end = now, .a = static_cast<std::int64_t>(order.id), .b = r, .kind = trace::Kind::recipient});
    if (const auto early = landed_early_.find(order.id); early != landed_early_.end()) {
      const double at = early->second;
      recorder->record({.begin = at, .end = at, .a = static_cast<std::int64_t>(order.id), .b = order.root,
                        .c = static_cast<std::int64_t>(order.bytes), .d = 0,
                        .e = static_cast<std::int64_t>(order.key.packed()),
                        .name = recorder->string(to_string(order.strategy)), .kind = trace::Kind::broadcast});
      landed_early_.erase(early);
      broadcasts_begun_.erase(order.id);
    }
  }
  carrier(order.strategy).join(order);
}

BroadcastCarrier& Worker::carrier(BroadcastStrategy strategy) {
  const auto at = static_cast<std::size_t>(strategy);
  if (carriers_.size() <= at) carriers_.resize(at + 1);
  if (!carriers_[at])
    carriers_[at] = make_carrier(strategy, {.worker = *this, .channel = channel_, .endpoint = settings_.endpoint,
                                            .groups = settings_.groups, .rank = rank_});
  return *carriers_[at];
}

void Worker::landed(const BroadcastOrder& order, Replica replica) {
  broadcast_landed(order.id, order.key, order.sync, std::move(replica));
}

void Worker::sending(const BroadcastOrder& order) { spend(order.key); }

void Worker::sent(const BroadcastOrder& order) { trace_broadcast(order.id, true); }

void Worker::broadcast_landed(std::uint64_t id, const Key& key, bool sync, Replica replica) {
  trace_broadcast(id, false);
  ++fetches_;
  bytes_fetched_ += replica.bytes.size();
  if (!sync) return arrived(key, std::move(replica));
  held_for_go_.emplace(id, std::pair{key, std::move(replica)});
  settings_.report->got(id);
}

void Worker::on_go(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  for (const std::uint64_t id : msg::decode<msg::Go>(a.body).broadcasts) {
    const auto it = held_for_go_.find(id);
    if (it == held_for_go_.end()) throw Error(Errc::invalid_argument, "go for a broadcast that has not landed here");
    auto [key, replica] = std::move(it->second);
    held_for_go_.erase(it);
    arrived(key, std::move(replica));
  }
}

void Worker::fetch_inputs(const Local& local) {
  // On demand: a task's inputs from elsewhere are asked for once nothing made here holds it back, so a
  // worker does not pile up the inputs of tasks far ahead. Each version is asked for once.
  for (const TaskAccess& access : local.order.accesses) {
    if (!reads(access.mode) || access.source == rank_ || access.source == by_broadcast || store_.find(access.read))
      continue;
    if (!requested_.insert(access.read).second) continue;
    if (trace::Recorder* recorder = trace::recorder())
      fetches_begun_[access.read] = {recorder->now(), static_cast<std::int64_t>(local.order.task)};
    post(channel_, access.source, msg::Fetch{access.read, false}, {}, local.order.priority);
  }
}

void Worker::spend(const Key& key) {
  const auto it = budget_.find(key);
  if (it == budget_.end()) return;
  if (it->second > 0) --it->second;
  if (it->second == 0) spend_nothing(key);
}

void Worker::spend_nothing(const Key& key) {
  budget_.erase(key);
  store_.release(key);
}

void Worker::on_fetch(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  const auto fetch = msg::decode<msg::Fetch>(a.body);
  if (stopped()) return;
  serve(fetch.key, a.source, fetch.readback);
}

void Worker::serve(const Key& key, int rank, bool readback) {
  if (const Replica* r = store_.find(key)) {
    send(key, *r, rank, readback);
  } else {
    store_.request(key, readback ? -1 - rank : rank);
  }
}

void Worker::send(const Key& key, const Replica& replica, int rank, bool readback) {
  // The replica stays in its slot until the message's completion, so a release meanwhile cannot free its
  // bytes; the completion names only the slot, which std::function holds without allocating. A transfer
  // is a use of a budgeted version once it completes, but a read-back never is: the head leaves what it
  // reads back out of budgets, and a read-back completing after the next batch's budget has come would
  // take one of its uses (the replica would go before a fetch that budget counts, which then waits for
  // ever).
  std::uint32_t slot = 0;
  if (free_outgoing_.empty()) {
    slot = static_cast<std::uint32_t>(outgoing_.size());
    outgoing_.push_back({key, replica});
  } else {
    slot = free_outgoing_.back();
    free_outgoing_.pop_back();
    outgoing_[slot] = {key, replica};
  }
  auto sent = [this, slot, readback] {
    const Outgoing done = std::move(outgoing_[slot]);  // leaves the slot empty
    free_outgoing_.push_back(slot);
    if (!readback) spend(done.key);
  };
  if (readback)
    post(channel_, rank, msg::Readback{key}, replica.bytes, 0, std::move(sent));
  else
    post(channel_, rank, msg::Data{key}, replica.bytes, 0, std::move(sent));
}

void Worker::on_data(const dyn::Channel::Arrival& a) {
  const auto [key, broadcast, sync] = msg::decode<msg::Data>(a.body);
  Replica replica = store_.allocate(a.payload);
  const auto into = replica.bytes;
  channel_.receive_payload(into, [this, key, broadcast, sync, source = a.source, replica = std::move(replica)]() mutable {
    if (broadcast != 0) return broadcast_landed(broadcast, key, sync, std::move(replica));
    if (trace::Recorder* recorder = trace::recorder()) {
      if (const auto begun = fetches_begun_.find(key); begun != fetches_begun_.end()) {
        recorder->span(trace::Kind::transfer, begun->second.at, source, rank_,
                       static_cast<std::int64_t>(replica.bytes.size()), begun->second.task,
                       static_cast<std::int64_t>(key.packed()));
        fetches_begun_.erase(begun);
      } else {
        // Sent unasked (replicated control pushes small versions): a transfer of no length at its landing,
        // for the first task here that reads it, which may not have arrived yet.
        const PushLanded landed{recorder->now(), source, replica.bytes.size()};
        if (const auto readers = waiting_.find(key); readers != waiting_.end() && !readers->second.empty())
          trace_push(*recorder, key, landed, readers->second.front());
        else
          pushed_early_.emplace(key, landed);
      }
    }
    ++fetches_;
    bytes_fetched_ += replica.bytes.size();
    arrived(key, std::move(replica));
  });
}

void Worker::on_release(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  msg::Release release = std::move(release_);  // the last one's room (taken out while in use)
  msg::decode_into(a.body, release);
  for (const Key& key : release.keys) {
    store_.release(key);
    requested_.erase(key);
  }
  release_ = std::move(release);
}

void Worker::arrived(const Key& key, Replica replica) {
  const Replica copy = replica;  // put() takes it; the sends below need one
  for (int code : store_.put(key, std::move(replica))) {
    if (!stopped()) send(key, copy, code < 0 ? -1 - code : code, code < 0);
  }
  requested_.erase(key);
  if (!runs_.empty() && runs_.contains(key)) next_turn(key);  // a run's opening value: its turns may start
  for (const auto& c : carriers_)
    if (c) c->arrived(key, copy);
  if (const auto it = budget_.find(key); it != budget_.end() && it->second == 0) spend_nothing(key);
  if (const auto it = waiting_.find(key); it != waiting_.end()) {
    for (std::uint64_t task : it->second) {
      Local& local = tasks_.at(task);
      const bool made_here = std::any_of(local.order.accesses.begin(), local.order.accesses.end(),
                                         [&](const TaskAccess& a) { return a.read == key && a.source == rank_; });
      if (made_here && --local.missing_here == 0) fetch_inputs(local);
      if (--local.missing == 0) {
        trace_ready(local);
        ready_.push({local.order.priority, sequence_++, task});
      } else if (local.turns > 0 && local.missing == local.turns && !local.asked) {
        ask_turn(local);
      }
    }
    waiting_.erase(it);
  }
}

void Worker::start(std::uint64_t task) {
  Local& local = tasks_.at(task);
  if (!spare_keep_.empty()) {
    local.keep = std::move(spare_keep_.back());
    spare_keep_.pop_back();
  }
  if (!spare_views_.empty()) {
    local.views = std::move(spare_views_.back());
    spare_views_.pop_back();
  }
  local.views.reserve(local.order.accesses.size());
  local.keep.reserve(local.order.accesses.size());
  // A partition's pieces: consecutive views of its input's replica, sharing its ownership (a write to a
  // piece later makes a new version of its own, as the replica is never theirs alone).
  const bool views = partition_kernel_ && local.order.kernel == *partition_kernel_;
  std::size_t viewed = 0;
  for (std::size_t i = 0; i < local.order.accesses.size(); ++i) {
    const TaskAccess& access = local.order.accesses[i];
    Replica bytes;
    if (access.mode == Mode::commute) {
      // The run's value, the task's alone until it gives it back: updated in place (the closing use reads it).
      const auto value = std::find_if(local.granted.begin(), local.granted.end(), [&](const auto& g) { return g.first == i; });
      bytes = std::move(value->second);
    } else if (access.mode == Mode::in) {
      bytes = *store_.find(access.read);
    } else if (views && access.mode == Mode::out && !local.keep.empty() &&
               viewed + access.bytes <= local.keep.front().bytes.size()) {
      const Replica& whole = local.keep.front();
      bytes = Replica{whole.bytes.subspan(viewed, access.bytes), whole.owner, true};
      viewed += access.bytes;
    } else if (access.mode == Mode::out) {
      bytes = store_.allocate(access.bytes);
    } else {
      // inout: the input's replica becomes the output when nobody else reads it and it is ours to change.
      const Replica* input = store_.find(access.read);
      if (access.in_place && input->owner && input->owner.use_count() == 1) {
        bytes = *store_.take(access.read);
      } else {
        bytes = store_.allocate(access.bytes);
        if (!bytes.bytes.empty()) std::memcpy(bytes.bytes.data(), input->bytes.data(), bytes.bytes.size());
      }
    }
    if (bytes.bytes.size() != access.bytes)
      throw Error(Errc::invalid_argument, "task " + std::to_string(task) + ": a version of " +
                                              std::to_string(bytes.bytes.size()) + " bytes where " +
                                              std::to_string(access.bytes) + " were expected");
    Mode seen = access.mode;
    if (access.mode == Mode::commute) seen = access.written == 0 ? Mode::inout : Mode::in;
    local.views.push_back({bytes.bytes.data(), bytes.bytes.size(), seen});
    local.keep.push_back(std::move(bytes));
  }
  ++running_;
  auto job = [this, &local] {
    trace::Recorder* recorder = trace::recorder();
    const double begin = recorder ? recorder->now() : 0;
    TaskContext context(local.order.task, rank_, local.views, local.order.arguments);
    kernels_[local.order.kernel].run(context);
    local.occupied = context.occupied();
    if (recorder) trace_task(*recorder, local, begin);
  };
  if (pool_) {
    pool_->submit(task, std::move(job));
  } else {
    Pool::Result result = Pool::run(task, job);
    if (local.occupied > 0 && !result.error) {
      result.seconds += local.occupied;
      modelled_.emplace_back(MPI_Wtime() + local.occupied, std::move(result));
    } else {
      results_.push_back(std::move(result));
    }
  }
}

void Worker::trace_ready(Local& local) {
  if (trace::Recorder* recorder = trace::recorder()) local.ready = recorder->now();
}

// On the thread that ran the kernel; a modelled kernel (on the polling thread) on the row of the modelled
// core it holds, ending when its modelled time does.
void Worker::trace_task(trace::Recorder& recorder, const Local& local, double begin) {
  trace::Event event{.begin = begin, .end = recorder.now(), .mark = local.ready,
                     .a = static_cast<std::int64_t>(local.order.task), .b = local.order.priority,
                     .name = recorder.string(kernels_[local.order.kernel].name), .kind = trace::Kind::task};
  if (pool_) {
    recorder.thread("kernel thread");
    recorder.record(event);
    return;
  }
  if (local.occupied <= 0) return recorder.record(event);
  event.end += local.occupied;
  cores_busy_until_.resize(static_cast<std::size_t>(std::max(1, settings_.modelled_cores)), 0);
  std::size_t core = 0;
  while (core + 1 < cores_busy_until_.size() && cores_busy_until_[core] > begin) ++core;
  cores_busy_until_[core] = event.end;
  recorder.record_on(recorder.lane("core " + std::to_string(core)), event);
}

void Worker::trace_broadcast(std::uint64_t id, bool root) {
  trace::Recorder* recorder = trace::recorder();
  if (!recorder) return;
  const auto begun = broadcasts_begun_.find(id);
  if (begun == broadcasts_begun_.end()) {
    // A p2p copy can come before this process has its order (its root got the order first): its part is
    // recorded when the order comes.
    if (!root) landed_early_[id] = recorder->now();
    return;
  }
  const BroadcastOrder& o = begun->second.order;
  recorder->span(trace::Kind::broadcast, begun->second.at, static_cast<std::int64_t>(o.id), o.root,
                 static_cast<std::int64_t>(o.bytes), root ? 1 : 0, static_cast<std::int64_t>(o.key.packed()),
                 recorder->string(to_string(o.strategy)));
  broadcasts_begun_.erase(begun);
}

void Worker::finish(const Pool::Result& result) {
  --running_;
  const auto it = tasks_.find(result.task);
  Local local = std::move(it->second);
  tasks_.erase(it);
  if (result.error) {
    settings_.report->failure(result.task, kernels_[local.order.kernel].name, describe(result.error));
    return;
  }
  for (std::size_t i = 0; i < local.order.accesses.size(); ++i) {
    const TaskAccess& access = local.order.accesses[i];
    if (writes(access.mode)) arrived({access.read.handle, access.written}, std::move(local.keep[i]));
    if (reads(access.mode)) spend(access.read);
    if (access.mode == Mode::commute && access.written == 0) give_back(access, std::move(local.keep[i]));
  }
  ++completed_;
  if (settings_.report->tracks_tasks()) done_.push_back({result.task, result.seconds});
  recycle(local);
}

void Worker::recycle(Local& local) {
  local.keep.clear();  // the replicas go now; the vectors' room serves the next task
  local.views.clear();
  local.order.accesses.clear();
  local.granted.clear();
  spare_keep_.push_back(std::move(local.keep));
  spare_views_.push_back(std::move(local.views));
  spare_accesses_.push_back(std::move(local.order.accesses));
}

std::vector<TaskAccess> Worker::spare_accesses() {
  if (spare_accesses_.empty()) return {};
  std::vector<TaskAccess> room = std::move(spare_accesses_.back());
  spare_accesses_.pop_back();
  return room;
}

void Worker::start_guarded(std::uint64_t task) {
  try {
    start(task);
  } catch (...) {
    ++running_;
    results_.push_back({task, 0.0, std::current_exception()});
  }
}

bool Worker::poll() {
  if (!tasks_.empty()) inject("mpi");
  if (settings_.inject == "stall" && !tasks_.empty()) {
    // A process that stops answering and never ends: what its peers must detect without a head.
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  bool any = false;
  for (const auto& c : carriers_)
    if (c) any |= c->poll();
  const auto now = LoopClock::now();
  if (pool_) {
    // A few tasks queued per thread, so a thread that finishes one takes the next without waiting for
    // this loop; few enough that priorities still order what is ready.
    const int room = settings_.threads * queued_per_thread - running_;
    for (int i = 0; i < room && !ready_.empty() && !stopped(); ++i) {
      const std::uint64_t task = ready_.top().task;
      ready_.pop();
      start_guarded(task);
      any = true;
    }
    pool_->collect(results_);
  } else {
    // Kernels on the polling thread: ready tasks for up to a slice of time, then messages again. Modelled
    // kernels hold one of the modelled cores until their time has passed.
    const double clock = MPI_Wtime();
    for (auto it = modelled_.begin(); it != modelled_.end();) {
      if (it->first <= clock) {
        results_.push_back(std::move(it->second));
        it = modelled_.erase(it);
      } else {
        ++it;
      }
    }
    while (!ready_.empty() && !stopped() && modelled_.size() < static_cast<std::size_t>(settings_.modelled_cores) &&
           LoopClock::now() - now < inline_slice) {
      const std::uint64_t task = ready_.top().task;
      ready_.pop();
      start_guarded(task);
      for (const auto& r : results_) finish(r);
      results_.clear();
      // What the task's end sends (its outputs to the ranks that read them) leaves before the next kernel
      // takes this thread: queued, it would wait a whole kernel, and a neighbour waiting for it would run
      // its own tasks after this rank's instead of beside them.
      channel_.flush();
      any = true;
    }
  }
  for (const auto& r : results_) finish(r);
  any |= !results_.empty();
  results_.clear();
  // Completions go to the head in batches: at once when this worker runs out of work, else every so often.
  const bool idle = ready_.empty() && running_ == 0;
  if (!done_.empty() && !stopped() && (idle || done_.size() >= done_batch || now - last_report_ >= report_every)) {
    msg::Done done{std::move(done_), fetches_, bytes_fetched_, static_cast<std::uint64_t>(store_.peak_bytes())};
    settings_.report->done(done);
    done_ = std::move(done.completions);
    done_.clear();
    last_report_ = now;
    last_heartbeat_ = now;
  }
  if (!stopped() && settings_.report->tracks_tasks()) {
    if (std::chrono::duration<double>(now - last_heartbeat_).count() >= settings_.heartbeat) {
      settings_.report->alive();
      last_heartbeat_ = now;
    }
  }
  return any;
}

void Worker::wait(std::chrono::nanoseconds limit) {
  if (pool_ && running_ > 0) {
    pool_->wait_for_result(limit);
  } else if (!modelled_.empty()) {  // until the first modelled kernel ends, if that is sooner
    double first = modelled_.front().first;
    for (const auto& m : modelled_) first = std::min(first, m.first);
    const auto until = std::chrono::nanoseconds(static_cast<long long>(std::max(0.0, first - MPI_Wtime()) * 1e9));
    idle_sleep(std::min(limit, std::max(until, std::chrono::nanoseconds(1000))));
  } else {
    idle_sleep(limit);
  }
}

void Worker::quiesce() {
  state_ = State::stopped;
  pool_.reset();  // waits for the kernels running now
  results_.clear();
  modelled_.clear();
}

void Worker::finish_broadcasts() {
  for (bool any = true; any;) {
    any = false;
    for (const auto& c : carriers_)
      if (c) any |= c->poll();
  }
}

}  // namespace herald::runtime::detail
