// A process's part as a worker: it runs the tasks the head sends it, fetches their inputs from the
// processes holding them, and serves the versions it holds to those who ask. Every rank has one (the
// head's serves the data the program entered; with one rank it also runs every task).
#pragma once

#include "message.hpp"
#include "pool.hpp"
#include "store.hpp"

#include <herald/runtime/runtime.hpp>

#include "../dyn/channel.hpp"

#include <chrono>
#include <cstdint>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace herald::runtime::detail {

struct KernelEntry {
  std::string name;
  Kernel run;
  KernelCost cost;
};

class Worker {
 public:
  struct Settings {
    int threads = 1;          // 0: kernels run on the polling thread
    double heartbeat = 1.0;   // seconds between "alive" messages to the head (not from the head itself)
  };
  Worker(dyn::Channel& channel, const std::vector<KernelEntry>& kernels, Settings settings);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // One pass: runs ready tasks, collects finished ones, reports them, says it is alive. True if anything
  // happened.
  bool poll();
  bool stopped() const noexcept { return stopped_; }
  // After stop: no new task starts and no request is served; returns once no kernel runs.
  void quiesce();

  Store& store() noexcept { return store_; }
  // Sends version `key` to `rank` now if held, else once it is (a read by the head when `readback`).
  void serve(const Key& key, int rank, bool readback);

  std::uint64_t fetches() const noexcept { return fetches_; }
  std::uint64_t bytes_fetched() const noexcept { return bytes_fetched_; }

 private:
  struct Local {
    TaskOrder order;
    int missing = 0;                   // inputs not here yet
    int missing_here = 0;              // of which this rank makes (or already asked for)
    std::vector<Replica> keep;         // inputs and outputs, alive while the kernel runs
    std::vector<TaskContext::View> views;
  };
  struct Ready {
    std::int32_t priority;
    std::uint64_t sequence;
    std::uint64_t task;
    bool operator<(const Ready& o) const noexcept {
      return priority != o.priority ? priority < o.priority : sequence > o.sequence;
    }
  };

  void on_tasks(const dyn::Channel::Arrival& a);
  void on_fetch(const dyn::Channel::Arrival& a);
  void on_data(const dyn::Channel::Arrival& a);
  void on_release(const dyn::Channel::Arrival& a);
  void arrived(const Key& key, Replica replica);  // a version is here: serve, wake tasks
  void start(std::uint64_t task);
  void start_guarded(std::uint64_t task);  // start(), a failure to set up reported as the task's
  void finish(const Pool::Result& result);
  void send(const Key& key, const Replica& replica, int rank, bool readback);
  void fetch_inputs(const Local& local);  // asks for the task's inputs held elsewhere
  void spend(const Key& key);          // one use of a budgeted version is done
  void spend_nothing(const Key& key);  // a budgeted version has no use left here: dropped

  dyn::Channel& channel_;
  const std::vector<KernelEntry>& kernels_;
  Settings settings_;
  int rank_;
  Store store_;
  std::unordered_map<std::uint64_t, Local> tasks_;
  std::unordered_map<Key, std::vector<std::uint64_t>, KeyHash> waiting_;  // tasks per missing version
  std::unordered_set<Key, KeyHash> requested_;
  // Superseded versions: the uses (reads here, transfers from here) left before the replica goes.
  std::unordered_map<Key, std::uint32_t, KeyHash> budget_;
  std::priority_queue<Ready> ready_;
  std::uint64_t sequence_ = 0;
  int running_ = 0;
  std::unique_ptr<Pool> pool_;
  std::vector<Pool::Result> results_;
  Encoder done_;              // completions not yet reported
  std::uint32_t done_count_ = 0;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point last_heartbeat_;
  std::chrono::steady_clock::time_point last_report_;
  std::uint64_t fetches_ = 0;
  std::uint64_t bytes_fetched_ = 0;
};

// What a worker reports when a task fails: the task and the reason.
std::string describe(std::exception_ptr error);

}  // namespace herald::runtime::detail
