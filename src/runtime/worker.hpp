// A process's part as a worker: it runs the tasks the head sends it, fetches their inputs from the
// processes holding them, and serves the versions it holds to those who ask. Every rank has one (the
// head's serves the data the program entered; with one rank it also runs every task).
#pragma once

#include "broadcasts/strategy.hpp"
#include "free_lists.hpp"
#include "idle.hpp"
#include "kernels.hpp"
#include "protocol/messages.hpp"
#include "pool.hpp"
#include "store.hpp"

#include <herald/runtime/runtime.hpp>

#include <herald/dyn/channel.hpp>

#include <herald/dyn/endpoint.hpp>
#include <herald/tracing.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory_resource>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace herald::runtime::detail {

// Where a worker's news goes: to a head, which tracks every task (completions, heartbeats, failures, the
// landing of synchronised broadcasts), or, under replicated control, to the other ranks, which need only
// failures (each rank knows the plan and watches its neighbour itself).
class Report {
 public:
  virtual ~Report() = default;
  // A task failed (`task`, its kernel's name), or the worker itself outside any kernel (no_task).
  virtual void failure(std::uint64_t task, std::string_view kernel, const std::string& what) = 0;
  // Whether completions and heartbeats are wanted: if not, the worker keeps no record of them.
  virtual bool tracks_tasks() const noexcept = 0;
  virtual void done(const msg::Done& done) = 0;
  virtual void alive() = 0;
  // A synchronised broadcast has landed here.
  virtual void got(std::uint64_t broadcast) = 0;
};

// The report to the head on rank `head` (itself, for the head's own worker: no heartbeat).
class HeadReport final : public Report {
 public:
  HeadReport(dyn::Channel& channel, int head) : channel_(channel), head_(head) {}
  void failure(std::uint64_t task, std::string_view kernel, const std::string& what) override;
  bool tracks_tasks() const noexcept override { return true; }
  void done(const msg::Done& done) override;
  void alive() override;
  void got(std::uint64_t broadcast) override;

 private:
  dyn::Channel& channel_;
  int head_;
};

class Worker final : private Participant {
 public:
  struct Settings {
    int threads = 1;          // 0: kernels run on the polling thread
    int modelled_cores = 1;   // with threads 0: modelled kernels (TaskContext::occupy) that overlap
    double heartbeat = 1.0;   // seconds between "alive" messages to the head (not from the head itself)
    dyn::Endpoint* endpoint = nullptr;  // carries dynbcast broadcasts
    MPI_Comm groups = MPI_COMM_NULL;    // the parent of mpibcast's communicators (all processes)
    // Test only (HERALD_RUNTIME_INJECT, read in runtime.cpp): "handler", "alloc" or "mpi" makes this
    // worker fail once that way outside any kernel, "stall" makes it stop answering; empty: never.
    std::string inject;
    Report* report = nullptr;  // where failures, completions and heartbeats go (it outlives the worker)
  };
  Worker(dyn::Channel& channel, const std::vector<KernelEntry>& kernels, Settings settings);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // One pass: runs ready tasks, collects finished ones, reports them, says it is alive. True if anything
  // happened.
  bool poll();
  // Sleeps for at most `limit` while idle, waking early when one of its kernels ends.
  void wait(std::chrono::nanoseconds limit);
  bool stopped() const noexcept { return state_ == State::stopped; }
  // After stop: no new task starts and no request is served; returns once no kernel runs.
  void quiesce();
  // After quiesce(), once every message is off this rank: the broadcasts rooted here see their sends done
  // (their trace records written, their replicas freed), which the stopped loop no longer polls for.
  void finish_broadcasts();
  // A failure outside any kernel (`what` failed): reported to the head at once, as a failing kernel is,
  // and the worker carries on until the head releases it. A second failure, one after stop, or one that
  // cannot be reported ends the program (abort_run): the worker could not promise the shutdown.
  void fail(const std::string& what) noexcept;

  Store& store() noexcept { return store_; }
  // A task to run here, as a tasks message brings them: queued in this order, its inputs fetched on demand.
  void add_task(TaskOrder order);
  // An empty access list with the room of a finished task's, for the next order made here.
  std::vector<TaskAccess> spare_accesses();
  // A superseded version held here: dropped once `uses` more reads and sends of it are done.
  void set_budget(const Key& key, std::uint32_t uses);
  // Tasks given and not finished (run, failed, or waiting for inputs).
  std::size_t unfinished() const noexcept { return tasks_.size(); }
  std::uint64_t completed() const noexcept { return completed_; }
  // Sends version `key` to `rank` now if held, else once it is (a read by the head when `readback`).
  void serve(const Key& key, int rank, bool readback);
  // Takes part in a broadcast as its root or a recipient. Every process gets its orders in the order of
  // their ids; mpibcast's communicators are made here, in that order.
  void broadcast(const BroadcastOrder& order);

  std::uint64_t fetches() const noexcept { return fetches_; }
  std::uint64_t bytes_fetched() const noexcept { return bytes_fetched_; }

 private:
  struct Local {
    TaskOrder order;
    int missing = 0;                   // inputs not here yet
    int missing_here = 0;              // of which this rank makes (or already asked for)
    std::vector<Replica> keep;         // inputs and outputs, alive while the kernel runs
    std::vector<TaskContext::View> views;
    double occupied = 0;               // seconds the kernel modelled (TaskContext::occupy)
    double ready = 0;                  // when its inputs were all here (recorded only for traces)
    // Commute accesses: turns not yet granted (counted in `missing` too), whether one is asked for, and
    // the values granted, by access index.
    int turns = 0;
    bool asked = false;
    std::vector<std::pair<std::size_t, Replica>> granted;
  };
  struct Ready {
    std::int32_t priority;
    std::uint64_t sequence;
    std::uint64_t task;
    bool operator<(const Ready& o) const noexcept {
      return priority != o.priority ? priority < o.priority : sequence > o.sequence;
    }
  };

  // Registers a handler whose failure is reported (fail) as "handler for <kind> failed: <what>".
  template <class Handle>
  void on(dyn::Channel::HandlerId id, const char* kind, Handle handle);
  void handler_failed(const char* kind, const dyn::Channel::Arrival& a) noexcept;
  void inject(std::string_view kind);  // Settings::inject
  void on_tasks(const dyn::Channel::Arrival& a);
  void on_fetch(const dyn::Channel::Arrival& a);
  void on_data(const dyn::Channel::Arrival& a);
  void on_release(const dyn::Channel::Arrival& a);
  void arrived(const Key& key, Replica replica);  // a version is here: serve, wake tasks
  void start(std::uint64_t task);
  void start_guarded(std::uint64_t task);  // start(), a failure to set up reported as the task's
  void finish(const Pool::Result& result);
  void recycle(Local& local);  // a finished task's vectors, kept for the next ones
  void send(const Key& key, const Replica& replica, int rank, bool readback);
  void fetch_inputs(const Local& local);  // asks for the task's inputs held elsewhere
  void spend(const Key& key);          // one use of a budgeted version is done
  void spend_nothing(const Key& key);  // a budgeted version has no use left here: dropped
  void broadcast_landed(std::uint64_t id, const Key& key, bool sync, Replica replica);
  void on_go(const dyn::Channel::Arrival& a);
  // Commutative updates (turns.cpp; docs/runtime.md, "Commutative updates"). As a task's worker: asks for
  // its next turn once the turns are all it lacks, one run at a time in the order of their keys (so that
  // two tasks updating the same two data cannot each hold the turn the other waits for).
  void ask_turn(Local& local);
  void on_grant(const dyn::Channel::Arrival& a);
  void granted(std::uint64_t task, const Key& run, Replica value);
  void give_back(const TaskAccess& access, Replica value);
  // As the rank granting a run's turns: a request, a value given back, and the next turn given.
  void on_turn(const dyn::Channel::Arrival& a);
  void on_back(const dyn::Channel::Arrival& a);
  void want_turn(const Key& run, int rank, std::uint64_t task, std::uint32_t closes);
  void turn_over(const Key& run, Replica value);
  void next_turn(const Key& run);
  // Participant, for the broadcast carriers.
  const Replica* held(const Key& key) const override { return store_.find(key); }
  Replica allocate(std::size_t bytes) override { return store_.allocate(bytes); }
  void landed(const BroadcastOrder& order, Replica replica) override;
  void sending(const BroadcastOrder& order) override;
  void sent(const BroadcastOrder& order) override;
  BroadcastCarrier& carrier(BroadcastStrategy strategy);

  dyn::Channel& channel_;
  const std::vector<KernelEntry>& kernels_;
  // The index of the runtime's herald.partition among kernels_, if registered: its outputs are made views
  // of its input's replica, with no copy (docs/runtime.md, "Partitions").
  std::optional<std::uint32_t> partition_kernel_;
  Settings settings_;
  int rank_;
  Store store_;
  // The tables below gain and lose an entry with every task and version: their nodes are recycled from
  // this pool instead of allocated each time (the loop's thread alone uses them).
  FreeLists nodes_{4096};
  std::pmr::unordered_map<std::uint64_t, Local> tasks_{&nodes_};
  std::pmr::unordered_map<Key, std::pmr::vector<std::uint64_t>, KeyHash> waiting_{&nodes_};  // tasks per missing version
  std::pmr::unordered_set<Key, KeyHash> requested_{&nodes_};
  // Superseded versions: the uses (reads here, transfers from here) left before the replica goes.
  std::pmr::unordered_map<Key, std::uint32_t, KeyHash> budget_{&nodes_};
  // Replicas being sent, each in a slot until its message has left (send()); free slots are reused.
  struct Outgoing {
    Key key;
    Replica replica;
  };
  std::vector<Outgoing> outgoing_;
  std::vector<std::uint32_t> free_outgoing_;
  // Vectors of finished tasks, emptied, whose room the next tasks take (no allocation per task).
  std::vector<std::vector<Replica>> spare_keep_;
  std::vector<std::vector<TaskContext::View>> spare_views_;
  std::vector<std::vector<TaskAccess>> spare_accesses_;
  msg::Tasks batch_;  // the last tasks message, decoded: its room serves the next (on_tasks())
  msg::Release release_;  // the same for release messages (on_release())
  std::priority_queue<Ready> ready_;
  std::uint64_t sequence_ = 0;
  int running_ = 0;
  std::unique_ptr<Pool> pool_;
  std::vector<Pool::Result> results_;
  // Kernels on the polling thread that modelled their time: each ends at its time on MPI_Wtime's clock.
  std::vector<std::pair<double, Pool::Result>> modelled_;
  std::uint64_t completed_ = 0;
  std::vector<Completion> done_;  // completions not yet reported
  // serving -> failed (a failure outside kernels, reported; it still serves data) -> stopped (the head's
  // Stop, or quiesce(): no task starts, no data leaves). A second failure, or one once stopped, aborts.
  enum class State { serving, failed, stopped };
  State state_ = State::serving;
  LoopClock::time_point last_heartbeat_;
  LoopClock::time_point last_report_;
  std::uint64_t fetches_ = 0;
  std::uint64_t bytes_fetched_ = 0;
  // The carriers of the strategies this process has taken part in, made at the first broadcast of each.
  std::vector<std::unique_ptr<BroadcastCarrier>> carriers_;
  std::unordered_map<std::uint64_t, std::pair<Key, Replica>> held_for_go_;  // sync: landed, waiting for go
  // The runs of updates whose turns this rank grants, by the version their opening task made here (the
  // run's value until the first turn takes it from the store).
  struct Run {
    struct Want {
      int rank;
      std::uint64_t task;
      std::uint32_t closes;
    };
    std::optional<Replica> value;  // between turns
    bool lent = false;
    std::uint32_t back = 0;        // updates done
    std::deque<Want> waiting;      // in the order they asked
  };
  std::unordered_map<Key, Run, KeyHash> runs_;

  // Traces (herald/tracing.hpp): what a record made at the end needs from the beginning.
  void trace_ready(Local& local);
  void trace_task(trace::Recorder& recorder, const Local& local, double begin);
  void trace_broadcast(std::uint64_t id, bool root);
  struct FetchBegun {
    double at;
    std::int64_t task;
  };
  std::unordered_map<Key, FetchBegun, KeyHash> fetches_begun_;
  struct BroadcastBegun {
    double at;
    BroadcastOrder order;
  };
  std::unordered_map<std::uint64_t, BroadcastBegun> broadcasts_begun_;
  std::unordered_map<std::uint64_t, double> landed_early_;  // p2p copies here before their orders
  // Versions sent unasked that landed before any task here that reads them: recorded with the first one.
  struct PushLanded {
    double at;
    int source;
    std::size_t bytes;
  };
  std::unordered_map<Key, PushLanded, KeyHash> pushed_early_;
  void trace_push(trace::Recorder& recorder, const Key& key, const PushLanded& landed, std::uint64_t task);
  std::vector<double> cores_busy_until_;  // modelled kernels: each modelled core's, for its row
};

// What a worker reports when a task fails: the task and the reason.
std::string describe(std::exception_ptr error);

// Prints "herald runtime: <message>; aborting" on stderr and calls MPI_Abort on `comm`: for a failure
// that cannot reach the head, or after which the collective shutdown could hang.
[[noreturn]] void abort_run(MPI_Comm comm, const std::string& message) noexcept;

}  // namespace herald::runtime::detail
