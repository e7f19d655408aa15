// The head's side of the runtime: the task graph as submitted, its schedule at every wait(), the
// versions of every datum and where their replicas are, and the tracking of tasks until done.
#pragma once

#include "coordinator.hpp"
#include "planner.hpp"
#include "protocol/messages.hpp"
#include "version_lives.hpp"
#include "worker.hpp"

#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <chrono>
#include <climits>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory_resource>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace herald::runtime::detail {

class HeadState final : public Coordinator, PlanSink {
 public:
  // `kernel_names[rank]`: the kernels each rank registered, in its own order.
  HeadState(dyn::Channel& channel, Worker& local, const std::vector<KernelEntry>& kernels,
            std::vector<std::vector<std::string>> kernel_names, ControlSettings settings, std::uint64_t id);

  Data data(std::span<std::byte> bytes, std::string name, int owner, bool broadcast) override;
  void enter(Data d) override;
  void read(Data d, bool exit) override;
  std::uint64_t submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments,
                       TaskOptions options) override;
  void wait() override;
  std::uint64_t next_task() const noexcept override { return planner_.next_id(); }
  bool has_value(const Data& d) const noexcept override { return owns(d) && planner_.has_value(d.index_); }

  int workers() const noexcept override { return static_cast<int>(workers_); }
  Statistics statistics() const override;
  bool lost_worker() const noexcept override { return lost_; }
  bool usable() const noexcept override { return !broken_ && !lost_; }
  std::exception_ptr failure() const override {
    return failure_ && !broken_ ? std::make_exception_ptr(*failure_) : nullptr;
  }

 private:
  // A task the planner placed in this batch: its orders, once the batch's broadcasts are known.
  struct Placed {
    std::uint64_t id;
    std::uint32_t kernel;  // into the kernel table
    int rank;
    int priority;
    double start;        // in the batch's schedule: orders go in this order
    std::size_t access;  // its accesses in accesses_
    std::size_t count;
    Arguments arguments;
  };
  struct PendingRead {
    Key key;
    bool exit;
    int origin = 0;  // where the value is, once the dispatch has planned it
  };
  struct WorkerStats {
    std::uint64_t fetches = 0;
    std::uint64_t bytes = 0;
    std::uint64_t peak = 0;
  };
  // A task sent to a worker and not reported done. A wait() returns once every task of its batch is done,
  // so the records of one batch at a time are kept, by task number from the batch's first: no lookup by
  // hash, and no allocation once the vectors have grown to a batch's size.
  struct Running {
    int rank = -1;  // -1: no task of this batch by this number (an enter, a read, or done)
    std::uint32_t kernel = 0;
    std::size_t total_bytes = 0;
    std::uint32_t keys = 0;    // its versions in running_keys_: from here, `reads` read, then `writes` written
    std::uint32_t reads = 0;
    std::uint32_t writes = 0;
  };
  void check_usable() const;
  bool owns(const Data& d) const noexcept { return d.owner_ == id_ && d.index_ < handles_.size(); }
  void check_handle(const Data& d, const char* what) const;
  // dispatch() and its steps.
  struct Batch {
    std::vector<msg::TasksWriter> writers;  // per rank
    std::vector<std::vector<Budget>> budgets;  // per rank
    std::vector<std::pair<std::int32_t, std::uint64_t>> received;  // (rank, packed version) a broadcast brings, sorted
    std::vector<BroadcastOrder> broadcasts;
  };
  void dispatch();
  // The planner's sink (PlanSink): what the dispatch plans, in submission order.
  void entered(const Key&, int) override {}
  void read(std::uint32_t handle, bool exit, std::uint64_t id) override;
  void placed(PlacedTask& task) override;
  void settled(const DataPlan::Settled& s) override;
  void write_tasks(Batch& batch);
  void send_batch(Batch& batch);
  void ask_read_backs();
  void on_done(const dyn::Channel::Arrival& a);
  void on_failure(const dyn::Channel::Arrival& a);
  void on_readback(const dyn::Channel::Arrival& a);
  void on_got(const dyn::Channel::Arrival& a);
  void heard(int rank);
  void flush_releases();  // the versions' releases, one message per rank
  void check_workers();

  dyn::Channel& channel_;
  Worker& local_;
  ControlSettings settings_;
  std::uint64_t id_;
  int size_;
  std::size_t workers_;

  Planner planner_;  // its estimates with the measured run times of finished tasks
  Batch* batch_ = nullptr;  // the dispatch's, while it plans data
  std::vector<Placed> placed_;        // the dispatch's, in submission order
  std::vector<TaskAccess> accesses_;  // theirs
  std::vector<std::span<std::byte>> handles_;  // the program's buffers
  std::vector<PendingRead> reads_;
  std::size_t reads_planned_ = 0;  // the dispatch's: reads_ the planner has reached
  VersionLives versions_{planner_, local_.store(), handles_, size_};
  std::vector<Running> running_;  // this batch's, by task number - running_first_
  std::vector<Key> running_keys_;
  std::uint64_t running_first_ = 0;
  std::size_t running_left_ = 0;
  Running* running(std::uint64_t task);  // the record of a task still running, or nullptr
  std::size_t reads_left_ = 0;
  std::unordered_map<Key, std::deque<bool>, KeyHash> readbacks_;  // reads on their way, exit or not
  std::vector<WorkerStats> worker_stats_;
  std::vector<std::size_t> outstanding_;  // per rank: tasks dispatched, not done
  std::vector<LoopClock::time_point> last_heard_;
  std::optional<Error> failure_;
  bool broken_ = false;
  bool lost_ = false;
  Statistics stats_;
  // Synchronised broadcasts: recipients that have not reported the data yet, and who gets the go.
  std::unordered_map<std::uint64_t, std::pair<std::size_t, std::vector<std::int32_t>>> awaiting_go_;
};

}  // namespace herald::runtime::detail
