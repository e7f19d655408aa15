// The one MPI executor: runs any compiled plan with nonblocking point-to-point on herald's private
// communicator. Receives are posted up front (or, where the algorithm asks, one at a time in program
// order); each send is posted, in program order (in its queue: to other
// nodes, or into the node), as soon as the receives it waits for (Dataflow) have completed and the send
// window (SendWindow) has room, so a forwarder passes
// segment k on while segment k+1 arrives, and passes it on before segment k+1 competes with it for the link.
// Point-to-point, wait and test go through the PMPI entry points, so a library that intercepts MPI_Bcast or
// MPI_Wait around herald never sees (or re-enters on) herald's own traffic.
//
// Every receive is checked against the bytes its step expects. A rank whose receive came short or long (the
// ranks passed different counts, an erroneous program) reports it, and sends empty messages for the rest of
// its steps, so that the ranks after it report it too instead of waiting or taking wrong data for right.
#include "call.hpp"

#include <herald/algorithms.hpp>
#include <herald/coll_settings.hpp>
#include <herald/selector.hpp>
#include <herald/trace.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <thread>

namespace herald {
namespace {

using mpi::Buffers;
using mpi::CommState;
using mpi::Plan;

// The first error a run met, and whether the data it forwards is still good.
class Outcome {
 public:
  // Checks a completed receive of `expected` bytes from `peer`.
  void received(int rc, const MPI_Status& status, std::size_t expected, int peer) {
    if (rc != MPI_SUCCESS) {
      int cls = MPI_ERR_OTHER;
      MPI_Error_class(rc, &cls);
      if (cls == MPI_ERR_TRUNCATE)
        return fail(Error(Errc::truncated, "a message from rank " + std::to_string(peer) + " was longer than the " +
                                               std::to_string(expected) +
                                               " bytes expected: the ranks passed different counts"));
      return failed_call(rc, "MPI_Recv");
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (static_cast<std::size_t>(count) != expected)
      fail(Error(Errc::truncated, "received " + std::to_string(count) + " bytes from rank " + std::to_string(peer) +
                                      " where " + std::to_string(expected) +
                                      " were expected: the ranks passed different counts"));
  }
  void sent(int rc) {
    if (rc != MPI_SUCCESS) failed_call(rc, "MPI_Send");
  }
  // Checks what a get from node memory found (NodeMemory::get), put there by `writer`.
  void got(mpi::NodeMemory::Got got, int writer, std::size_t expected) {
    using Got = mpi::NodeMemory::Got;
    if (got == Got::refused)
      fail(Error(Errc::truncated, "rank " + std::to_string(writer) +
                                      ", which hands this node its data, had none to give: it refused the call or "
                                      "received wrong data"));
    else if (got == Got::mismatch)
      fail(Error(Errc::truncated, "the " + std::to_string(expected) + " bytes from rank " + std::to_string(writer) +
                                      " within the node were not the part expected: the ranks passed different "
                                      "counts"));
  }
  // This rank refused the call (see stand_in()): it reports that, and sends no data.
  void refuse(const Error& e) { fail(e); }
  bool good() const noexcept { return !error_; }
  // What a send of `length` good bytes carries: nothing once this rank's data is known to be wrong.
  int forwarded(std::size_t length) const noexcept { return error_ ? 0 : static_cast<int>(length); }
  void rethrow() const {
    if (error_) throw *error_;
  }

 private:
  void failed_call(int rc, const char* call) {
    try {
      mpi::check(rc, call);
    } catch (const Error& e) {
      fail(e);
    }
  }
  void fail(Error e) {
    if (!error_) error_ = std::move(e);
  }
  std::optional<Error> error_;
};

// What one call records into an open trace (herald/tracing.hpp): the broadcast, and each message from its
// posting to its completion. Nothing, beyond a test of one pointer per message, where no trace is open.
class CallTrace {
 public:
  CallTrace(const mpi::Slot& slot, const char* why, std::size_t steps)
      : recorder_(mpi::Context::get().tracing().recorder()), why_(why) {
    if (!recorder_) return;
    state_ = slot.state.get();
    call_ = slot.call;
    comm_ = state_->trace_id();
    started_ = recorder_->now();
    posted_.assign(steps, 0);
  }
  void posted(std::uint32_t i) {
    if (recorder_) posted_[i] = recorder_->now();
  }
  void completed(std::uint32_t i, const Step& s) {
    if (!recorder_) return;
    recorder_->span(s.op == Step::Op::recv ? trace::Kind::recv : trace::Kind::send, posted_[i], call_, comm_,
                    state_->world_rank(s.peer), static_cast<std::int64_t>(s.range.length),
                    static_cast<std::int64_t>(i) << 40 | static_cast<std::int64_t>(s.range.offset));
  }
  void finished(std::string_view algorithm, int root, std::size_t bytes, double predicted = 0) {
    if (!recorder_) return;
    std::string why = why_;
    if (predicted > 0) why += ", predicted " + std::to_string(predicted * 1e6) + " us";
    recorder_->span(trace::Kind::bcast, started_, call_, comm_, root, static_cast<std::int64_t>(bytes), 0,
                    recorder_->string(algorithm), recorder_->string(why));
  }

 private:
  trace::Recorder* recorder_;
  const char* why_;
  mpi::CommState* state_ = nullptr;  // the call's slot keeps it
  std::uint32_t call_ = 0;
  std::int64_t comm_ = 0;
  double started_ = 0;
  std::vector<double> posted_;
};

class ScheduleRun final : public Request::State, private mpi::Forwarder {
  static constexpr int spins_before_yield = mpi::Forwarders::spins_before_yield;

 public:
  // With `refused`, this rank plays its part without data: see stand_in().
  ScheduleRun(std::shared_ptr<Plan> plan, const mpi::Slot& slot, std::byte* base, const char* why,
              const Error* refused = nullptr)
      : plan_(std::move(plan)),
        state_(slot.state),
        buffers_(plan_->take_buffers()),
        base_(base),
        tag_(slot.tag),
        window_(mpi::Context::get().settings().send_window()),
        trace_(slot, why, plan_->program.size()) {
    if (refused) outcome_.refuse(*refused);
    // The call's place in the node's ring, taken now: calls take it in the order they are made.
    if (!plan_->node.node.empty()) {
      memory_ = state_->node_memory();
      place_ = {.first = memory_->reserve(plan_->node.positions), .count = plan_->node.positions,
                .bytes = plan_->problem.bytes};
    }
    if (!forward()) mpi::Context::get().forwarders().enroll(this);
  }
  ScheduleRun(const ScheduleRun&) = delete;
  ScheduleRun& operator=(const ScheduleRun&) = delete;
  ~ScheduleRun() override {
    mpi::Context& context = mpi::Context::get();
    context.forwarders().withdraw(this);
    if (!done_ && !mpi::finalized()) {
      // Abandoned with work in flight (an exception unwound past it): finish rather than leave MPI
      // writing into a buffer the caller no longer watches.
      try {
        while (!test()) context.forwarders().forward_all();
      } catch (...) {
      }
    }
  }

  bool test() override {
    if (done_) return true;
    if (!advance(false) || !complete_all(false)) return false;
    finish();
    return true;
  }

  void wait() override {
    if (done_) return;
    mpi::Context& context = mpi::Context::get();
    if (context.forwarders().others_in_flight(this) || memory_) {
      // Other broadcasts need forwarding too, or node memory must be watched: poll rather than block. A
      // long wait lets other processes run: with more ranks than cores the one this rank waits for may be
      // waiting for a core.
      for (int polls = 0; !test(); ++polls) {
        context.forwarders().forward_all();
        if (polls >= spins_before_yield) std::this_thread::yield();
      }
      return;
    }
    advance(true);
    complete_all(true);
    finish();
  }

  void leave() override {
    if (!done_) advance(false, /*windowed=*/false);
  }

 private:
  // Posts the receives first, then the sends in program order while their inputs have arrived and the
  // window has room; with `block`, waits for both. Then carries what it can through node memory. True once
  // everything is posted and carried.
  bool advance(bool block, bool windowed = true) {
    const bool posted = post(block, windowed);
    return carry() && posted;
  }

  bool post(bool block, bool windowed) {
    if (!started_) {
      // All at once, or (ordered receives) the first; settle() posts each next one.
      while (posted_recvs_ < plan_->recvs.size() && (!ordered_ || posted_recvs_ == 0)) post_next_receive();
      started_ = true;
    }
    // One queue (every algorithm but the node-aware ones): wait for each send's inputs and room in turn.
    // (Ordered receives wait beside their receive in flight: complete().)
    if (block && queues_[1].sends->empty()) return post(queues_[0], windowed, true);
    for (;;) {
      bool all = true;
      for (Queue& q : queues_) all = post(q, windowed, false) && all;
      if (all) return true;
      if (!block) return false;
      wait_for_any(windowed);
    }
  }

  void post_next_receive() {
    const std::uint32_t i = plan_->recvs[posted_recvs_++];
    const Step& s = plan_->program[i];
    std::byte* into = plan_->dataflow.redundant(i) ? buffers_.scratch.data() : base_ + s.range.offset;
    trace_.posted(i);
    HERALD_MPI(PMPI_Irecv(into, static_cast<int>(s.range.length), MPI_BYTE, s.peer, tag_, state_->comm(),
                          &buffers_.requests[i]));
  }

  // A receive that waits for the one before it to complete (ordered receives) before it is posted. (Not a
  // step carried through node memory: those are in no list of receives.)
  bool unposted(std::uint32_t i) const {
    if (!ordered_ || plan_->program[i].op != Step::Op::recv) return false;
    const auto waiting = plan_->recvs.begin() + static_cast<std::ptrdiff_t>(posted_recvs_);
    return std::binary_search(waiting, plan_->recvs.end(), i);  // the list is in program order
  }
  // The receive in flight, which an unposted one waits for.
  std::uint32_t receive_in_flight() const { return plan_->recvs[posted_recvs_ - 1]; }
  // That receive while it is still to complete (ordered receives only).
  std::optional<std::uint32_t> live_receive() const {
    if (!ordered_ || posted_recvs_ == 0 || buffers_.requests[receive_in_flight()] == MPI_REQUEST_NULL) return {};
    return receive_in_flight();
  }

  // Blocks until step i completes (ordered receives): a receive in flight that completes first is settled
  // meanwhile, which posts the next one; waiting on a send alone would hold this rank's receives back, and
  // with them the rank sending to it.
  void wait_beside_receive(std::uint32_t i) {
    while (buffers_.requests[i] != MPI_REQUEST_NULL) {
      std::array<std::uint32_t, 2> steps{i, i};
      std::array<MPI_Request, 2> requests{buffers_.requests[i], MPI_REQUEST_NULL};
      int n = 1;
      if (const std::optional<std::uint32_t> r = live_receive(); r && *r != i) {
        steps[1] = *r;
        requests[1] = buffers_.requests[*r];
        n = 2;
      }
      int which = MPI_UNDEFINED;
      MPI_Status status;
      const int rc = PMPI_Waitany(n, requests.data(), &which, &status);
      if (which == MPI_UNDEFINED) which = 0;  // an error without an index: step i's
      settle(steps[static_cast<std::size_t>(which)], rc, status);
    }
  }

  // One queue of sends (SendWindow): posts them in order while their inputs have arrived and its window has
  // room (with `block`, waiting for both); true once all are posted.
  struct Queue {
    const std::vector<std::uint32_t>* sends;
    std::vector<std::uint32_t>* in_flight;
    std::size_t next = 0;
  };

  bool post(Queue& q, bool windowed, bool block) {
    for (; q.next < q.sends->size(); ++q.next) {
      const std::uint32_t i = (*q.sends)[q.next];
      for (std::uint32_t d : plan_->dataflow.waits_for(i))
        if (!complete(d, block)) return false;
      const Step& s = plan_->program[i];
      if (windowed && !make_room(*q.in_flight, s.peer, block)) return false;
      // A pipeline's segment completes only once it has arrived (Plan::paced), so the window paces them.
      const auto send = plan_->paced ? PMPI_Issend : PMPI_Isend;
      trace_.posted(i);
      HERALD_MPI(send(base_ + s.range.offset, outcome_.forwarded(s.range.length), MPI_BYTE, s.peer, tag_,
                      state_->comm(), &buffers_.requests[i]));
      q.in_flight->push_back(i);
    }
    return true;
  }

  // The step whose request the queue's next send waits for: an input not yet in, else (its window full)
  // the send in flight whose completion makes room; none where it may go now or the queue is done.
  std::optional<std::uint32_t> blocker(const Queue& q, bool windowed) const {
    if (q.next == q.sends->size()) return std::nullopt;
    const std::uint32_t i = (*q.sends)[q.next];
    for (std::uint32_t d : plan_->dataflow.waits_for(i)) {
      if (unposted(d)) return receive_in_flight();
      if (buffers_.requests[d] != MPI_REQUEST_NULL) return d;
    }
    if (!windowed) return std::nullopt;
    int live = 0, to_peer = 0;  // sends still in flight (one seen complete no longer counts)
    std::optional<std::uint32_t> oldest, oldest_to_peer;
    for (std::uint32_t j : *q.in_flight) {
      if (buffers_.requests[j] == MPI_REQUEST_NULL) continue;
      if (live++ == 0) oldest = j;
      if (plan_->program[j].peer == plan_->program[i].peer && to_peer++ == 0) oldest_to_peer = j;
    }
    if (live >= window_.per_rank) return oldest;
    return to_peer >= window_.per_peer ? oldest_to_peer : std::nullopt;
  }

  // Blocks until one queue's next send may go: whatever either waits for, the first to complete. (Waiting
  // for one queue's would hold back the other's sends, which a leader's two links could carry meanwhile.)
  void wait_for_any(bool windowed) {
    std::array<std::uint32_t, 3> steps{};
    std::array<MPI_Request, 3> requests{};
    int n = 0;
    auto add = [&](std::uint32_t step) {
      if (std::find(steps.begin(), steps.begin() + n, step) != steps.begin() + n) return;
      steps[static_cast<std::size_t>(n)] = step;
      requests[static_cast<std::size_t>(n++)] = buffers_.requests[step];
    };
    for (const Queue& q : queues_) {
      if (q.next == q.sends->size()) continue;
      const std::optional<std::uint32_t> b = blocker(q, windowed);
      if (!b) return;  // its next send may go now: the caller posts it
      add(*b);
    }
    if (n == 0) return;
    // Ordered receives: the one in flight too, so that the next is posted as soon as it completes.
    if (const std::optional<std::uint32_t> r = live_receive()) add(*r);
    int which = MPI_UNDEFINED;
    MPI_Status status;
    const int rc = PMPI_Waitany(n, requests.data(), &which, &status);
    if (which == MPI_UNDEFINED) return;
    settle(steps[static_cast<std::size_t>(which)], rc, status);
  }

  // Puts and gets through node memory in program order, as far as the data and the ring allow. Apart
  // from the messages: a leader's sends to other nodes never wait for its node's readers.
  bool carry() {
    if (next_carried_ == plan_->node.node.size()) return true;
    if (carry_some()) return true;
    // Waiting on memory makes no MPI call, yet the program's own nonblocking operations must progress while
    // this rank waits here (MPI's progress rule; a peer may wait for them before it writes what this rank
    // reads): a probe drives the MPI library's progress, consuming nothing. It probes herald's duplicate:
    // MPICH's progress did not move for a probe of MPI_COMM_SELF (tests/mpi/dropin/nbc_mix.c hung).
    int flag = 0;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, state_->comm(), &flag, MPI_STATUS_IGNORE);
    return false;
  }

  bool carry_some() {
    const std::vector<NodeStep>& steps = plan_->node.node;
    if (skip_to_ != 0) return skip();
    for (; next_carried_ < steps.size(); ++next_carried_) {
      const NodeStep& n = steps[next_carried_];
      const std::uint64_t position = place_.first + n.position;
      if (n.op == NodeStep::Op::put) {
        for (std::uint32_t d : plan_->dataflow.waits_for(n.step))
          if (!complete(d, false)) return false;
        if (!memory_->put(position, base_, n.range, place_, outcome_.good())) return false;
      } else {
        mpi::NodeMemory::Place writer;
        const mpi::NodeMemory::Got got = memory_->get(position, base_, n.range, place_, writer);
        if (got == mpi::NodeMemory::Got::not_yet) return false;
        outcome_.got(got, plan_->node.writer, n.range.length);
        if (writer != place_) {
          // The writer's call is not this rank's (the ranks passed different counts): take exactly the
          // writer's positions, no more and no fewer, so that neither waits for ever and later calls
          // find the ring in step.
          skip_to_ = writer.end();
          next_skipped_ = position + 1;
          memory_->resync(place_.end(), skip_to_);
          return skip();
        }
      }
    }
    return true;
  }

  // Counts the reads of the writer's positions left after a mismatch, without copying them.
  bool skip() {
    for (; next_skipped_ < skip_to_; ++next_skipped_)
      if (!memory_->discard(next_skipped_)) return false;
    next_carried_ = plan_->node.node.size();
    return true;
  }

  // True once a send to `peer` fits the window of a queue whose sends in flight are `in_flight`; with
  // `block`, waits for the oldest send in the way.
  bool make_room(std::vector<std::uint32_t>& in_flight, int peer, bool block) {
    for (;;) {
      std::erase_if(in_flight, [&](std::uint32_t i) { return complete(i, false); });
      const std::uint32_t* oldest_to_peer = nullptr;
      int to_peer = 0;
      for (const std::uint32_t& i : in_flight)
        if (plan_->program[i].peer == peer && to_peer++ == 0) oldest_to_peer = &i;
      const bool rank_full = static_cast<int>(in_flight.size()) >= window_.per_rank;
      if (!rank_full && to_peer < window_.per_peer) return true;
      if (!block) return false;
      complete(rank_full ? in_flight.front() : *oldest_to_peer, true);
    }
  }

  // Completes step i's request if it can (or must, with `block`) and checks it; true once done.
  bool complete(std::uint32_t i, bool block) {
    while (unposted(i))  // the receives before it first: completing each posts the next
      if (!complete(receive_in_flight(), block)) return false;
    MPI_Request& request = buffers_.requests[i];
    if (request == MPI_REQUEST_NULL) return true;
    if (block && ordered_) {
      wait_beside_receive(i);
      return true;
    }
    MPI_Status status;
    int rc = MPI_SUCCESS;
    if (block) {
      rc = PMPI_Wait(&request, &status);
    } else {
      int flag = 0;
      rc = PMPI_Test(&request, &flag, &status);
      if (rc == MPI_SUCCESS && !flag) return false;
    }
    settle(i, rc, status);
    return true;
  }

  // Step i's request has completed (with or without an error): checks it.
  void settle(std::uint32_t i, int rc, const MPI_Status& status) {
    buffers_.requests[i] = MPI_REQUEST_NULL;
    const Step& s = plan_->program[i];
    trace_.completed(i, s);
    if (s.op == Step::Op::recv) {
      outcome_.received(rc, status, s.range.length, s.peer);
      if (ordered_ && posted_recvs_ < plan_->recvs.size()) post_next_receive();
    } else {
      outcome_.sent(rc);
    }
  }

  bool complete_all(bool block) {
    for (; next_complete_ < buffers_.requests.size(); ++next_complete_)
      if (!complete(static_cast<std::uint32_t>(next_complete_), block)) return false;
    return true;
  }

  // Off the forwarders' list only once no receive is held back either: a peer's synchronous send may wait
  // for one before the peer can join a blocking call this rank makes (settle() posts them).
  bool forward() override { return advance(false) && posted_recvs_ == plan_->recvs.size(); }

  // MPI matches each peer's messages in order, so posting the rest at once changes no match; in-order posting
  // only paces the rounds.
  void post_receives() override {
    while (posted_recvs_ < plan_->recvs.size()) post_next_receive();
    started_ = true;
  }

  void finish() {
    done_ = true;
    trace_.finished(plan_->algorithm->name, plan_->problem.root, plan_->problem.bytes, plan_->predicted);
    buffers_.in_flight.clear();  // all complete; the capacity stays with the plan for its next run
    buffers_.node_in_flight.clear();
    mpi::Context::get().forwarders().withdraw(this);
    plan_->give_back(std::move(buffers_));
    outcome_.rethrow();
  }

  std::shared_ptr<Plan> plan_;
  std::shared_ptr<CommState> state_;
  Buffers buffers_;
  std::byte* base_;
  int tag_;
  SendWindow window_;
  Outcome outcome_;
  mpi::NodeMemory* memory_ = nullptr;  // the state keeps it
  mpi::NodeMemory::Place place_;       // this call's positions in the ring
  std::size_t next_carried_ = 0;
  std::uint64_t skip_to_ = 0, next_skipped_ = 0;  // after a mismatch: the writer's positions left to count
  bool started_ = false;
  // Receives posted one at a time, in program order (Plan::ordered_receives).
  bool ordered_ = plan_->ordered_receives;
  std::size_t posted_recvs_ = 0;  // of plan_->recvs
  std::array<Queue, 2> queues_{Queue{&plan_->sends, &buffers_.in_flight},
                               Queue{&plan_->node_sends, &buffers_.node_in_flight}};
  std::size_t next_complete_ = 0;
  bool done_ = false;
  CallTrace trace_;
};

// The installed MPI's own nonblocking broadcast, on the private communicator.
class NativeRun final : public Request::State {
 public:
  NativeRun(const mpi::Slot& slot, std::byte* base, std::size_t bytes, int root, const char* why)
      : state_(slot.state), trace_(slot, why, 0), bytes_(bytes), root_(root) {
    // MPI counts are ints: larger broadcasts go as consecutive pieces.
    for (std::size_t offset = 0; offset < bytes; offset += max_message_bytes) {
      const int count = static_cast<int>(std::min(max_message_bytes, bytes - offset));
      requests_.push_back(MPI_REQUEST_NULL);
      HERALD_MPI(PMPI_Ibcast(base + offset, count, MPI_BYTE, root, state_->comm(), &requests_.back()));
    }
  }
  ~NativeRun() override {
    if (!mpi::finalized()) PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
  NativeRun(const NativeRun&) = delete;
  NativeRun& operator=(const NativeRun&) = delete;
  bool test() override {
    int flag = 0;
    HERALD_MPI(PMPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE));
    if (flag) finished();
    return flag != 0;
  }
  void wait() override {
    mpi::Context& context = mpi::Context::get();
    if (context.forwarders().forwarding()) {
      // herald broadcasts in flight need this rank's forwarding while it waits.
      while (!test()) context.forwarders().forward_all();
      return;
    }
    HERALD_MPI(PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
    finished();
  }

 private:
  void finished() {
    if (std::exchange(traced_, true)) return;
    trace_.finished("native", root_, bytes_);
  }
  std::shared_ptr<CommState> state_;  // keeps the private communicator alive while the broadcast runs
  std::vector<MPI_Request> requests_;
  CallTrace trace_;
  std::size_t bytes_;
  int root_;
  bool traced_ = false;
};

// A validated call: what it runs. Everything here is checked before any byte moves.
struct Call {
  bool native = false;
  mpi::PlanKey key{};
  std::shared_ptr<const mpi::Decided> decided;  // "auto": what it decided, and the plans (CommState::decide())
  const mpi::Candidate* candidate = nullptr;      // "auto": the one this call runs, kept alive by `decided`
  bool timed = false;  // HERALD_AUTO_LEARN: a blocking call whose time the trial takes
  const char* why = "named";  // how the algorithm was chosen, for traces
};

std::shared_ptr<Plan> plan_of(const mpi::Slot& slot, const Call& call) {
  return call.candidate ? call.candidate->plan : slot.state->plan(call.key);
}

// Checks what is the same on every rank of a correct program (root, algorithm, settings), so that a refusal
// here is a refusal everywhere. A blocking call counts in HERALD_AUTO_LEARN's trials; nothing else does.
Call prepare(const mpi::Slot& slot, std::size_t bytes, int root, const Options& options, bool blocking = false) {
  const int ranks = slot.state->size();
  if (root < 0 || root >= ranks)
    throw Error(Errc::invalid_root,
                "root " + std::to_string(root) + " is not a rank of this " + std::to_string(ranks) + "-rank communicator");
  mpi::Context& context = mpi::Context::get();
  Call call;
  call.key.algorithm = context.settings().algorithm(options.algorithm, call.native);
  call.key.root = root;
  call.key.bytes = bytes;
  call.key.parameters = merge(options.parameters, context.settings().parameters());
  // Node memory holds the nodes the communicator's layout gives; a node size set by hand names others.
  call.key.node_memory = !call.key.parameters.node_size && slot.state->node_memory_open();
  if (!call.key.algorithm && !call.native) {
    // "auto": decided once per shape on the communicator, alike on every rank (decide()).
    call.decided = slot.state->decide(call.key);
    const auto& candidates = call.decided->candidates;
    const bool moves = ranks > 1 && bytes > 0;
    const int k = moves ? slot.state->learn(bytes, blocking, candidates, call.timed) : 0;
    call.candidate = &candidates[std::min(static_cast<std::size_t>(k), candidates.size() - 1)];
    call.why = k == 0 ? because_text(call.decided->decision.because) : "auto: measured on this communicator";
    call.native = call.candidate->native;
    if (!call.native) {
      call.key.algorithm = call.candidate->algorithm;
      call.key.parameters = call.candidate->parameters;
    }
  }
  validate({.ranks = ranks, .root = root, .bytes = bytes, .parameters = call.key.parameters});
  return call;
}

// A check that failed on this rank only (a null buffer, say) must not leave the others waiting: ranks that
// expect this rank's messages (its children, or a root whose algorithm receives) would wait for ever. So the
// refusing rank still plays its part, receiving into scratch and sending messages without data; the ranks
// it sends to then report the error too (a short receive), and every rank leaves the call. The MPI's own
// broadcast (`native`) cannot send without data: there the MPI's behaviour stands.
void stand_in(std::unique_lock<std::recursive_mutex>& lock, const mpi::Slot& slot, const Call& call,
              std::size_t bytes, const Error& refusal) {
  if (call.native || slot.state->size() == 1 || bytes == 0) return;
  std::vector<std::byte> scratch(bytes);
  Request request(std::make_unique<ScheduleRun>(plan_of(slot, call), slot, scratch.data(), call.why, &refusal));
  if (mpi::Context::get().multithreaded()) lock.unlock();  // Request::wait() polls and lets others in
  try {
    request.wait();
  } catch (const Error&) {
    // This rank's report is the refusal itself.
  }
}

// The buffer is checked after prepare(), and refused through stand_in().
void require_buffer(std::unique_lock<std::recursive_mutex>& lock, const mpi::Slot& slot, const Call& call,
                    std::span<std::byte> buffer) {
  if (buffer.data() != nullptr || buffer.empty()) return;
  const Error refusal(Errc::invalid_buffer, "the buffer is null but holds " + std::to_string(buffer.size()) + " bytes");
  stand_in(lock, slot, call, buffer.size(), refusal);
  throw refusal;
}

std::unique_ptr<Request::State> start(const mpi::Slot& slot, const Call& call, std::span<std::byte> buffer) {
  if (call.native) return std::make_unique<NativeRun>(slot, buffer.data(), buffer.size(), call.key.root, call.why);
  return std::make_unique<ScheduleRun>(plan_of(slot, call), slot, buffer.data(), call.why);
}

// Blocking receives and sends in program order (Plan::blocking), checked as ScheduleRun checks them.
void run_blocking(const Plan& plan, std::byte* base, const mpi::Slot& slot, const char* why) {
  Outcome outcome;
  CallTrace trace(slot, why, plan.program.size());
  const MPI_Comm comm = slot.state->comm();
  for (std::uint32_t i = 0; i < plan.program.size(); ++i) {
    const Step& s = plan.program[i];
    std::byte* at = base + s.range.offset;
    trace.posted(i);
    if (s.op == Step::Op::recv) {
      MPI_Status status;
      const int rc = PMPI_Recv(at, static_cast<int>(s.range.length), MPI_BYTE, s.peer, slot.tag, comm, &status);
      outcome.received(rc, status, s.range.length, s.peer);
    } else {
      const auto send = plan.paced ? PMPI_Ssend : PMPI_Send;
      outcome.sent(send(at, outcome.forwarded(s.range.length), MPI_BYTE, s.peer, slot.tag, comm));
    }
    trace.completed(i, s);
  }
  trace.finished(plan.algorithm->name, plan.problem.root, plan.problem.bytes, plan.predicted);
  outcome.rethrow();
}

}  // namespace

namespace mpi {

Slot reserve(MPI_Comm comm) {
  Context& context = Context::get();
  const auto lock = context.lock();
  context.check_settings();
  std::shared_ptr<CommState> state = context.state(comm);
  const std::uint32_t call = state->calls();
  const int tag = state->next_tag();
  return {std::move(state), tag, call};
}

void finish_forwarding() {
  Context& context = Context::get();
  const auto lock = context.lock();
  context.forwarders().finish_forwarding();
}

bool attached(MPI_Comm comm) {
  Context& context = Context::get();
  const auto lock = context.lock();
  return context.existing_state(comm) != nullptr;
}

// HERALD_AUTO_LEARN: a blocking call's time on this rank, from its entry to its exit, for the trial. The
// clock is read only where learning is on.
class TrialClock {
 public:
  TrialClock(const Slot& slot, std::size_t bytes)
      : slot_(slot), bytes_(bytes), started_(Context::get().settings().learn() ? PMPI_Wtime() : 0) {}
  TrialClock(const TrialClock&) = delete;
  TrialClock& operator=(const TrialClock&) = delete;
  void stop(bool timed) const {
    if (timed) slot_.state->learned_time(bytes_, PMPI_Wtime() - started_);
  }

 private:
  const Slot& slot_;
  std::size_t bytes_;
  double started_;
};

void bcast(const Slot& slot, std::span<std::byte> buffer, int root, const Options& options) {
  Context& context = Context::get();
  auto lock = context.lock();
  const TrialClock clock(slot, buffer.size());
  const Call call = prepare(slot, buffer.size(), root, options, true);
  require_buffer(lock, slot, call, buffer);
  if (slot.state->size() == 1 || buffer.empty()) return;
  if (context.multithreaded()) {
    // Never block inside MPI: another thread's broadcast may need this rank's forwarding meanwhile.
    Request request(start(slot, call, buffer));
    lock.unlock();
    request.wait();
    if (call.timed) {
      lock.lock();
      clock.stop(true);
    }
    return;
  }
  // Every rank makes the same MPI calls whatever it has in flight (MPI_Bcast never matches MPI_Ibcast), so
  // what this rank owes to earlier broadcasts is settled first.
  context.forwarders().finish_forwarding();
  if (call.native) {
    CallTrace trace(slot, call.why, 0);
    // The installed MPI_Bcast itself (its nonblocking form is often a different, slower code path).
    for (std::size_t offset = 0; offset < buffer.size(); offset += max_message_bytes) {
      const int count = static_cast<int>(std::min(max_message_bytes, buffer.size() - offset));
      HERALD_MPI(PMPI_Bcast(buffer.data() + offset, count, MPI_BYTE, root, slot.state->comm()));
    }
    trace.finished("native", root, buffer.size());
    // A repeat may skip prepare() only where no trial counts it.
    if (!call.timed) context.remember_passthrough(*slot.state, buffer.size(), root, options);
    clock.stop(call.timed);
    return;
  }
  const std::shared_ptr<Plan> plan = plan_of(slot, call);
  if (plan->blocking) {
    run_blocking(*plan, buffer.data(), slot, call.why);
  } else {
    ScheduleRun(plan, slot, buffer.data(), call.why).wait();
  }
  clock.stop(call.timed);
}

void refused(const Slot& slot, std::size_t bytes, int root, const Options& options, const Error& refusal,
             bool blocking) {
  auto lock = Context::get().lock();
  try {
    const Call call = prepare(slot, bytes, root, options, blocking);  // counted as the others count it
    stand_in(lock, slot, call, bytes, refusal);
  } catch (const Error&) {
    // Refused everywhere alike: no rank waits for this one.
  }
}

Request ibcast(const Slot& slot, std::span<std::byte> buffer, int root, const Options& options) {
  auto lock = Context::get().lock();
  const Call call = prepare(slot, buffer.size(), root, options);
  require_buffer(lock, slot, call, buffer);
  if (slot.state->size() == 1 || buffer.empty()) return Request();
  std::unique_ptr<Request::State> run = start(slot, call, buffer);
  if (!options.polled) run->leave();
  return Request(std::move(run));
}

Resolved resolve(const std::shared_ptr<CommState>& state, std::size_t bytes, int root, const Options& options) {
  const Call call = prepare({state, 0}, bytes, root, options);  // the same decision as a call's
  if (call.native) return {"native"};
  const std::shared_ptr<Plan> plan = plan_of({state, 0}, call);
  if (!plan) return {std::string(call.key.algorithm->name), call.key.parameters};  // nothing moves
  return {std::string(plan->algorithm->name), plan->problem.parameters};
}

}  // namespace mpi

}  // namespace herald
