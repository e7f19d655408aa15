// Replicated control: every rank runs the program's submission, as StarPU-MPI runs its sequential task
// flow on every node. Every rank sees every task and every use, in the same order, and keeps for each
// datum its latest version, where that version is and who reads it; from that each rank knows, with no
// message, which tasks it runs, where their inputs come from, who will fetch from it, which versions are
// broadcasts and when its replicas can go. A task that concerns a rank costs it a task order for its
// worker; one that does not costs a few updates of the datum's record (docs/runtime.md).
//
// wait() first checks that every rank submitted the same work (one reduction of a fingerprint), hands the
// worker this rank's part, serves and runs until that part is done, and ends once every rank is done (a
// second reduction, which also sums the statistics). A failure anywhere is told to every rank and raised by
// every wait(); a rank whose neighbour falls silent reports it lost, as the head does without a heartbeat.
#pragma once

#include "coordinator.hpp"
#include "planner.hpp"
#include "ring.hpp"
#include "protocol/messages.hpp"
#include "worker.hpp"

#include <herald/error.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace herald::runtime::detail {

class ReplicatedState final : public Coordinator, PlanSink {
 public:
  ReplicatedState(dyn::Channel& channel, Worker& local, const std::vector<KernelEntry>& kernels,
                  const std::vector<std::vector<std::string>>& kernel_names, ControlSettings settings, std::uint64_t id);

  Data data(std::span<std::byte> bytes, std::string name, int owner, bool broadcast) override;
  void enter(Data d) override;
  void read(Data d, bool exit) override;
  std::uint64_t submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments,
                       TaskOptions options) override;
  void wait() override;
  std::uint64_t next_task() const noexcept override { return planner_.next_id(); }
  bool has_value(const Data& d) const noexcept override {
    return planner_.owns(d, id_) && planner_.has_value(d.index_);
  }
  int workers() const noexcept override { return size_; }
  Statistics statistics() const override;
  bool lost_worker() const noexcept override { return ring_.lost(); }
  bool usable() const noexcept override { return !broken_ && !ring_.lost(); }
  std::exception_ptr failure() const override { return nullptr; }  // every failure is raised by a wait()

  // At the end of run(): returns once every rank has left the program. A rank still in wait() is told that
  // this one left, and raises it.
  void leave();
  // This rank's worker failed (a task, or itself with no_task): every rank is told, and every wait() raises.
  void failed_here(std::uint64_t task, std::string_view kernel, const std::string& what) {
    ring_.failed_here(task, kernel, what);
  }

 private:
  // What this rank keeps of a datum beside the data plan's record (the same on every rank).
  struct Handle {
    std::span<std::byte> buffer;  // this rank's
    bool exit = false;            // exit() asked: the owner's buffer becomes the value again
  };
  void check_usable() const;
  Handle& handle(const Data& d, const char* what) { return handles_[planner_.handle(d, id_, what)]; }
  void mix(std::uint64_t value) noexcept;
  // The planner's sink (PlanSink): every rank's tasks, in submission order; this rank keeps its own.
  void entered(const Key& key, int rank) override;
  void read(std::uint32_t handle, bool exit, std::uint64_t id) override;
  void placed(PlacedTask& task) override;
  void settled(const DataPlan::Settled& s) override;

  dyn::Channel& channel_;
  Worker& local_;
  ControlSettings settings_;
  std::uint64_t id_;
  int rank_;
  int size_;
  // Every task placed at submission but heft's, at wait(); estimates never measured here (see
  // Estimates::measured).
  Planner planner_;
  std::uint32_t read_kernel_;

  std::vector<Handle> handles_;
  std::uint64_t fingerprint_ = 0;      // of everything submitted since the last wait()
  std::vector<std::uint32_t> exits_;    // handles exit() named since the last wait()
  std::vector<TaskOrder> orders_;       // this rank's tasks since the last wait()
  std::vector<double> starts_;          // their planned starts (heft), to order them
  std::vector<std::pair<Key, std::uint32_t>> budgets_;
  std::vector<std::pair<Key, int>> pushes_;  // small versions this rank makes, and a rank to send each to
  std::vector<Key> pushed_here_;             // small versions made elsewhere that are sent here unasked
  std::vector<std::uint64_t> received_;      // wait(): the versions that come here unasked, packed, sorted
  std::uint64_t copies_ = 0;            // read()'s tasks on this rank, which the statistics leave out

  Ring ring_;  // after settings_, which it reads
  bool broken_ = false;
  Statistics stats_;
};

}  // namespace herald::runtime::detail
