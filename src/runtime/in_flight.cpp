#include "in_flight.hpp"

#include <string>

namespace herald::runtime::detail {

InFlight::InFlight(int ranks)
    : outstanding_(static_cast<std::size_t>(ranks), 0), last_heard_(static_cast<std::size_t>(ranks), LoopClock::now()),
      reports_(static_cast<std::size_t>(ranks)) {}

void InFlight::start_batch(std::uint64_t first, std::uint64_t next) {
  first_ = first;
  running_.assign(next - first, Running{});
  keys_.clear();
}

void InFlight::sent(std::uint64_t task, int rank, std::uint32_t kernel, std::span<const TaskAccess> accesses) {
  Running& r = running_[task - first_];
  r.rank = rank;
  r.kernel = kernel;
  r.keys = static_cast<std::uint32_t>(keys_.size());
  for (const TaskAccess& a : accesses) {
    r.bytes += a.bytes;
    if (reads(a.mode)) {
      keys_.push_back(a.read);
      ++r.reads;
    }
  }
  for (const TaskAccess& a : accesses)
    if (writes(a.mode)) {
      keys_.push_back({a.read.handle, a.written});
      ++r.writes;
    }
  ++outstanding_[static_cast<std::size_t>(rank)];
  ++left_;
}

const InFlight::Running* InFlight::find(std::uint64_t task) const {
  if (task < first_ || task - first_ >= running_.size()) return nullptr;
  const Running& r = running_[task - first_];
  return r.rank < 0 ? nullptr : &r;
}

InFlight::Done InFlight::done(std::uint64_t task, int rank) {
  const Running* found = find(task);
  if (!found || found->rank != rank)
    throw Error(Errc::invalid_argument, "rank " + std::to_string(rank) + " reports task " + std::to_string(task) +
                                            ", which it was not running");
  --outstanding_[static_cast<std::size_t>(rank)];
  --left_;
  Running& r = running_[task - first_];
  r.rank = -1;
  const auto keys = std::span(keys_).subspan(r.keys, r.reads + r.writes);
  return {r.kernel, r.bytes, keys.first(r.reads), keys.subspan(r.reads)};
}

std::optional<std::uint32_t> InFlight::kernel(std::uint64_t task) const {
  const Running* r = find(task);
  return r ? std::optional(r->kernel) : std::nullopt;
}

void InFlight::restart() {
  for (auto& t : last_heard_) t = LoopClock::now();
}

std::optional<Error> InFlight::silent(double timeout) const {
  for (std::size_t r = 1; r < last_heard_.size(); ++r) {
    const double silent = seconds_since(last_heard_[r]);
    if (silent > timeout)
      return Error(Errc::worker_lost, "worker rank " + std::to_string(r) + " has sent nothing for " +
                                          std::to_string(static_cast<int>(silent)) + " s while " +
                                          std::to_string(outstanding_[r]) +
                                          " of its tasks were unfinished: it is dead or stuck");
  }
  return std::nullopt;
}

void InFlight::add_reports(Statistics& s) const {
  for (std::size_t r = 0; r < reports_.size(); ++r) {
    s.fetches += reports_[r].fetches;
    s.bytes_moved += reports_[r].bytes;
    s.peak_bytes.at(r) = reports_[r].peak;
  }
}

}  // namespace herald::runtime::detail
