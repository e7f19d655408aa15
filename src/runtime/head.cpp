#include "head.hpp"
#include "broadcasts/ordering.hpp"
#include "idle.hpp"
#include "protocol/post.hpp"

#include <herald/tracing.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

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
  stats_.peak_bytes.assign(static_cast<std::size_t>(size_), 0);
  if (settings_.log && workers_ < 2 && settings_.broadcast != BroadcastStrategy::nobcast) {
    Statistics none;
    complete_statistics(none, planner_.plan(), settings_, static_cast<int>(workers_), true);
    std::fprintf(stderr, "herald runtime: %s\n", none.broadcasts_impossible.c_str());  // said once, here
  }
  channel_.on(done_handler, [this](const auto& a) { on_done(a); });
  channel_.on(failure_handler, [this](const auto& a) { on_failure(a); });
  channel_.on(readback_handler, [this](const auto& a) {
    heard(a.source);
    read_backs_.arrived(a);
  });
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

Data HeadState::data(std::span<std::byte> bytes, std::string name, int owner, bool broadcast) {
  check_usable();
  const Data d = planner_.add_data(id_, bytes, std::move(name), owner, broadcast);
  handles_.push_back(bytes);
  return d;
}

void HeadState::enter(Data d) {
  check_usable();
  const Key key = planner_.enter(planner_.handle(d, id_, "enter"));
  local_.store().put(key, Replica::borrowed(handles_[d.index_]));
  versions_.made(key, true);
}

void HeadState::read(Data d, bool exit) {
  check_usable();
  const Key key = planner_.read(planner_.handle(d, id_, exit ? "exit" : "read"), exit);
  versions_.reading(key);
  read_backs_.want(key, exit);
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
  orders_.start(size_);
  Planner::Batch planned = planner_.end_batch(std::nullopt, stats_);
  if (planned.makespan) stats_.makespan_predicted = *planned.makespan;
  orders_.write(std::move(planned.broadcasts), planner_.kernels(), in_flight_);
  send_orders();
  read_backs_.ask();
  stats_.schedule_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (recorder) recorder->span(trace::Kind::schedule, trace_started, static_cast<std::int64_t>(orders_.tasks()));
}

void HeadState::read(std::uint32_t handle, bool, std::uint64_t) {
  read_backs_.planned(planner_.plan().datum(handle).replicas.origin);
}

void HeadState::placed(PlacedTask& task) {
  // The head's read() takes no place in the plan: in place only where no read() waits for it either.
  for (TaskAccess& a : orders_.placed(task))
    if (a.in_place) a.in_place = versions_.readers_left(a.read) == 1;
}

void HeadState::settled(const DataPlan::Settled& s) {
  if (!s.superseded) return;
  versions_.superseded(s.key, s.replicas.holders);
  // Per holder of a version superseded in this batch and read in it, the reads and transfers it serves
  // here: it drops its replica once those are done, without waiting for the head. One read() brings
  // back is left to the head's releases.
  if (s.reads.empty() || read_backs_.wants(s.key)) return;
  for (int holder : s.replicas.holders)
    if (holder != 0) orders_.budget(holder, {s.key, s.uses(holder)});
}

void HeadState::send_orders() {
  for (const BroadcastOrder& b : orders_.broadcasts())
    if (b.sync) awaiting_go_.emplace(b.id, std::pair{b.recipients.size(), b.recipients});
  auto batches_left = std::make_shared<std::size_t>(0);
  for (int r = size_ > 1 ? 1 : 0; r < size_; ++r) {  // the head's own part is below
    if (!orders_.any_for(r)) continue;
    ++*batches_left;
    channel_.post(r, msg::Tasks::kind, orders_.message(r), {}, 0, [batches_left] { --*batches_left; });
  }
  if (size_ > 1 && !orders_.part(0).empty()) {
    // The head roots these (data the program entered). MPI_Comm_create_group blocks until every member
    // calls it, which a worker does while handling its batch: the batches leave first.
    for (auto checked = LoopClock::now(); *batches_left > 0;) {
      channel_.progress();
      if (seconds_since(checked) > liveness_check_seconds) {
        check_workers();  // a worker that died before taking its batch is reported, not waited for
        checked = LoopClock::now();
      }
    }
    for (const BroadcastOrder* b : orders_.part(0)) local_.broadcast(*b);
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

void HeadState::on_done(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  heard(a.source);
  const auto done = msg::decode<msg::Done>(a.body);
  for (const auto& [task, seconds] : done.completions) {
    const InFlight::Done r = in_flight_.done(task, a.source);
    ++stats_.tasks;
    planner_.estimates().measured(r.kernel, r.bytes, seconds);
    for (const Key& k : r.writes) versions_.produced(k);
    for (const Key& k : r.reads) versions_.reader_done(k);
  }
  in_flight_.reported(a.source, done);
}

void HeadState::on_failure(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  heard(a.source);
  const auto [task, what] = msg::decode<msg::Failure>(a.body);
  if (task == no_task) {  // the worker itself failed, outside any kernel
    if (!failure_) failure_.emplace(Errc::task_failed, "worker " + std::to_string(a.source) + ": " + what);
    return;
  }
  const auto running = in_flight_.kernel(task);
  const std::string kernel = running ? planner_.kernels().name(*running) : "?";
  if (!failure_)
    failure_.emplace(Errc::task_failed,
                     task_name(task, kernel) + " failed on rank " + std::to_string(a.source) + ": " + what);
}

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
  if (auto silent = in_flight_.silent(settings_.timeout)) {
    lost_ = true;
    throw *silent;
  }
}

void HeadState::wait() {
  check_usable();
  try {
    in_flight_.restart();
    if (planner_.waiting()) dispatch();
    flush_releases();
    auto checked = LoopClock::now();
    Idle idle(settings_.idle_sleep, [this](std::chrono::nanoseconds d) { local_.wait(d); });
    while (in_flight_.left() > 0 || read_backs_.left() > 0) {
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
  s.fetches = local_.fetches();
  s.bytes_moved = local_.bytes_fetched();
  in_flight_.add_reports(s);
  s.peak_bytes[0] = std::max<std::size_t>(s.peak_bytes[0], local_.store().peak_bytes());
  complete_statistics(s, planner_.plan(), settings_, static_cast<int>(workers_), true);
  return s;
}

}  // namespace herald::runtime::detail
