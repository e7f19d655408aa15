// Commutative updates on a worker (docs/runtime.md, "Commutative updates"). A run of updates of one datum
// has a value, made by the run's opening task on some rank, which then grants the run's turns: to the
// updates in the order they ask (each asks once it has everything else), and to the use closing the run
// once every update before it is done. An update's worker gets the value, runs the task on it in place,
// and gives it back. So the updates run one at a time, in the order they become ready, and since one rank
// decides that order every rank agrees on it, under either control.
#include "worker.hpp"

#include "protocol/post.hpp"

#include <herald/error.hpp>

#include <algorithm>

namespace herald::runtime::detail {

void Worker::ask_turn(Local& local) {
  const TaskAccess* next = nullptr;
  for (std::size_t i = 0; i < local.order.accesses.size(); ++i) {
    const TaskAccess& a = local.order.accesses[i];
    const bool held = std::any_of(local.granted.begin(), local.granted.end(), [&](const auto& g) { return g.first == i; });
    if (a.mode == Mode::commute && !held && (!next || a.read.packed() < next->read.packed())) next = &a;
  }
  local.asked = true;
  if (next->source == rank_) return want_turn(next->read, rank_, local.order.task, next->written);
  post(channel_, next->source, msg::Turn{next->read, local.order.task, next->written}, {}, local.order.priority);
}

void Worker::on_turn(const dyn::Channel::Arrival& a) {
  channel_.receive_payload({}, [] {});
  const auto turn = msg::decode<msg::Turn>(a.body);
  want_turn(turn.run, a.source, turn.task, turn.closes);
}

void Worker::want_turn(const Key& run, int rank, std::uint64_t task, std::uint32_t closes) {
  runs_[run].waiting.push_back({rank, task, closes});
  next_turn(run);
}

void Worker::next_turn(const Key& run) {
  const auto it = runs_.find(run);
  if (it == runs_.end()) return;
  Run& r = it->second;
  if (r.lent || r.waiting.empty()) return;
  if (!r.value) {
    // The opening task's value, once it is here.
    std::optional<Replica> made = store_.take(run);
    if (!made) return;
    r.value = std::move(made);
  }
  // The first update that asked; the closing use only once every update before it is back.
  auto want = std::find_if(r.waiting.begin(), r.waiting.end(), [](const Run::Want& w) { return w.closes == 0; });
  if (want == r.waiting.end()) {
    want = std::find_if(r.waiting.begin(), r.waiting.end(), [&](const Run::Want& w) { return w.closes == r.back; });
    if (want == r.waiting.end()) return;
  }
  const Run::Want w = *want;
  r.waiting.erase(want);
  Replica value = std::move(*r.value);
  r.value.reset();
  r.lent = true;
  if (w.closes != 0) {
    if (!r.waiting.empty())
      throw Error(Errc::invalid_argument, "a run of commutative updates was closed with " +
                                              std::to_string(r.waiting.size()) + " more turns asked for");
    runs_.erase(it);  // the run is over: nobody asks again
  }
  if (w.rank == rank_) return granted(w.task, run, std::move(value));
  const std::span<const std::byte> bytes = value.bytes;
  post(channel_, w.rank, msg::Grant{run, w.task}, bytes, 0, [value = std::move(value)] {});
}

void Worker::on_grant(const dyn::Channel::Arrival& a) {
  const auto grant = msg::decode<msg::Grant>(a.body);
  Replica value = store_.allocate(a.payload);
  const auto into = value.bytes;
  channel_.receive_payload(into, [this, grant, source = a.source, value = std::move(value)]() mutable {
    // In the trace, a transfer of the run's value to the task, at its landing (as a pushed version's).
    if (trace::Recorder* recorder = trace::recorder())
      trace_push(*recorder, grant.run, {recorder->now(), source, value.bytes.size()}, grant.task);
    ++fetches_;
    bytes_fetched_ += value.bytes.size();
    granted(grant.task, grant.run, std::move(value));
  });
}

void Worker::granted(std::uint64_t task, const Key& run, Replica value) {
  const auto it = tasks_.find(task);
  if (it == tasks_.end())
    throw Error(Errc::invalid_argument, "a turn of run " + std::to_string(run.packed()) + " for task " +
                                            std::to_string(task) + ", which is not waiting here");
  Local& local = it->second;
  const auto& accesses = local.order.accesses;
  const auto access = std::find_if(accesses.begin(), accesses.end(),
                                   [&](const TaskAccess& x) { return x.mode == Mode::commute && x.read == run; });
  if (access == accesses.end() || !local.asked)
    throw Error(Errc::invalid_argument, "a turn of run " + std::to_string(run.packed()) + " that task " +
                                            std::to_string(task) + " did not ask for");
  local.granted.emplace_back(static_cast<std::size_t>(access - accesses.begin()), std::move(value));
  local.asked = false;
  --local.turns;
  if (--local.missing == 0) {
    trace_ready(local);
    ready_.push({local.order.priority, sequence_++, task});
  } else if (local.turns > 0 && local.missing == local.turns) {
    ask_turn(local);
  }
}

void Worker::give_back(const TaskAccess& access, Replica value) {
  if (access.source == rank_) return turn_over(access.read, std::move(value));
  const std::span<const std::byte> bytes = value.bytes;
  post(channel_, access.source, msg::Back{access.read}, bytes, 0, [value = std::move(value)] {});
}

void Worker::on_back(const dyn::Channel::Arrival& a) {
  const auto back = msg::decode<msg::Back>(a.body);
  Replica value = store_.allocate(a.payload);
  const auto into = value.bytes;
  channel_.receive_payload(into, [this, run = back.run, value = std::move(value)]() mutable {
    ++fetches_;
    bytes_fetched_ += value.bytes.size();
    turn_over(run, std::move(value));
  });
}

void Worker::turn_over(const Key& run, Replica value) {
  const auto it = runs_.find(run);
  if (it == runs_.end() || !it->second.lent)
    throw Error(Errc::invalid_argument, "run " + std::to_string(run.packed()) + "'s value given back, but no turn of it is out");
  Run& r = it->second;
  r.value = std::move(value);
  r.lent = false;
  ++r.back;
  next_turn(run);
}

}  // namespace herald::runtime::detail
