// Head control: the head plans every rank's part at wait() (Planner), sends each rank its orders (Orders),
// and follows the tasks until done (InFlight), each version's life (VersionLives) and the values read()
// asks back (ReadBacks); ranks 1.. run the tasks.
#pragma once

#include "coordinator.hpp"
#include "in_flight.hpp"
#include "orders.hpp"
#include "planner.hpp"
#include "protocol/messages.hpp"
#include "read_backs.hpp"
#include "version_lives.hpp"
#include "worker.hpp"

#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
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
  bool has_value(const Data& d) const noexcept override {
    return planner_.owns(d, id_) && planner_.has_value(d.index_);
  }

  int workers() const noexcept override { return static_cast<int>(workers_); }
  Statistics statistics() const override;
  bool lost_worker() const noexcept override { return lost_; }
  bool usable() const noexcept override { return !broken_ && !lost_; }
  std::exception_ptr failure() const override {
    return failure_ && !broken_ ? std::make_exception_ptr(*failure_) : nullptr;
  }

 private:
  void check_usable() const;
  // dispatch() and its steps.
  void dispatch();
  // The planner's sink (PlanSink): what the dispatch plans, in submission order.
  void entered(const Key&, int) override {}
  void read(std::uint32_t handle, bool exit, std::uint64_t id) override;
  void placed(PlacedTask& task) override;
  void settled(const DataPlan::Settled& s) override;
  void send_orders();
  void on_done(const dyn::Channel::Arrival& a);
  void on_failure(const dyn::Channel::Arrival& a);
  void on_got(const dyn::Channel::Arrival& a);
  void heard(int rank) { in_flight_.heard(rank); }
  void flush_releases();  // the versions' releases, one message per rank
  void check_workers();

  dyn::Channel& channel_;
  Worker& local_;
  ControlSettings settings_;
  std::uint64_t id_;
  int size_;
  std::size_t workers_;

  Planner planner_;  // its estimates with the measured run times of finished tasks
  Orders orders_;  // the last batch's
  std::vector<std::span<std::byte>> handles_;  // the program's buffers
  VersionLives versions_{planner_, local_.store(), handles_, size_};
  ReadBacks read_backs_{channel_, local_.store(), versions_, handles_, planner_};
  InFlight in_flight_{size_};
  std::optional<Error> failure_;
  bool broken_ = false;
  bool lost_ = false;
  Statistics stats_;
  // Synchronised broadcasts: recipients that have not reported the data yet, and who gets the go.
  std::unordered_map<std::uint64_t, std::pair<std::size_t, std::vector<std::int32_t>>> awaiting_go_;
};

}  // namespace herald::runtime::detail
