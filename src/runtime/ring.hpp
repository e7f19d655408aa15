// Replicated control's ranks while they serve one another: each runs its worker and the channel, tells the
// next rank it is alive and watches the one before (silent past the timeout, it is lost, and every rank is
// told, as the head reports a silent worker); a failure anywhere is told to every rank, so that no wait()
// waits for what a failed task would have made. Every collective the ranks meet in outside their tasks is
// one Agreement, which they serve while it completes.
#pragma once

#include "agreement.hpp"
#include "coordinator.hpp"
#include "idle.hpp"
#include "worker.hpp"

#include <herald/dyn/channel.hpp>
#include <herald/error.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace herald::runtime::detail {

class Ring {
 public:
  // What the ranks agree on; a rank at another point of the program gives another kind, and every rank
  // learns it.
  enum class Sync : std::uint64_t { wait_start = 1, wait_end = 2, leave = 3 };

  // `sums`: the counts every agreement carries.
  Ring(dyn::Channel& channel, Worker& local, const ControlSettings& settings, std::size_t sums);

  // The neighbours' clocks start again (a rank outside wait() serves no one, so none is late).
  void restart();
  // Runs the worker and the channel until `done`; throws worker_lost once a rank is lost.
  void serve_until(const std::function<bool()>& done);
  // Every rank's (kind, value) equal? One reduction, served until complete; `sums` (as many as the
  // constructor's, or none) are summed over the ranks into sums().
  bool agree(Sync kind, std::uint64_t value, std::span<const std::uint64_t> sums = {});
  std::span<const std::uint64_t> sums() const noexcept { return agreement_.sums(); }

  // This rank's worker failed (a task, or itself with no_task): every rank is told.
  void failed_here(std::uint64_t task, std::string_view kernel, const std::string& what);
  bool failed_somewhere() const noexcept { return failed_somewhere_; }
  bool lost() const noexcept { return lost_; }
  // The first failure heard of, or the loss.
  const std::optional<Error>& failure() const noexcept { return failure_; }

 private:
  [[noreturn]] void lose(const std::string& why);  // this rank found a process lost: every rank is told
  void tell_all(const auto& message);

  dyn::Channel& channel_;
  Worker& local_;
  const ControlSettings& settings_;
  Agreement agreement_;
  int rank_;
  int size_;
  std::optional<Error> failure_;
  bool failed_somewhere_ = false;
  bool lost_ = false;
  LoopClock::time_point heard_;  // from the rank before this one
  LoopClock::time_point told_;   // the rank after this one, last
};

}  // namespace herald::runtime::detail
