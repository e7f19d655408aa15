// The data plan of both controls (seed 000's on-demand data delivery): for each datum its latest version, where that
// version's replicas are and who reads it in this batch, as the tasks are placed in submission order on the
// ranks a scheduler chose. When a version has had every read of the batch (the batch ends, or a write
// supersedes it), it is settled: a version read on two or more processes that lacked it is a broadcast,
// and every holder's uses of it in the batch (its reads, and its sends as the origin) are known, so that
// it can drop its replica once they are done. The head plans every rank's part at a wait(); under
// replicated control every rank plans alike and keeps its own part. Pure: no MPI, tested without it.
#pragma once

#include "broadcast.hpp"
#include "graph.hpp"
#include "protocol/messages.hpp"

#include <herald/runtime/scheduling.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace herald::runtime::detail {

class DataPlan {
 public:
  struct Datum {
    std::size_t bytes = 0;
    std::string name;
    int owner = 0;               // the rank holding its entered value
    std::uint32_t version = 0;   // the latest; 0: no value yet
    Replicas replicas;           // of the latest version; its recipients: this batch's
    std::uint64_t made_by = 0;   // the number of the task (or enter) that made it
    std::uint32_t readers = 0;   // this batch's reads of the latest version, on any rank
    bool broadcast = true;       // its versions may be broadcast (else every reader fetches)
  };
  // Where a task on `rank` finds a version it reads.
  struct Read {
    Key key;
    bool held = false;  // `rank` holds it (or is about to: an earlier read there brings it)
    int origin = 0;     // else it comes from here, or by a broadcast once settled
    bool first = false; // the batch's first read of this version
  };
  // A version whose reads in the batch are all known.
  struct Settled {
    Key key;
    const Replicas& replicas;  // origin, holders; recipients and their priorities: this batch's
    std::span<const std::pair<int, std::uint32_t>> reads;  // this batch's reads, per rank reading it
    std::uint64_t made_by = 0;
    bool superseded = false;   // a newer version exists: nobody will read this one again
    bool broadcast = false;    // read on two or more ranks that lacked it, and broadcasts are on
    // The uses of this version on `rank` in the batch: its reads there, and as the origin its sends (one
    // broadcast, or one transfer per recipient).
    std::uint32_t uses(int rank) const;
    // The broadcast it is (where `broadcast`).
    FoundBroadcast found() const {
      return {.key = key, .root = replicas.origin, .recipients = replicas.recipients, .priorities = replicas.priorities,
              .made_by = made_by, .ready = replicas.ready, .needs = replicas.needs};
    }
  };
  using Sink = std::function<void(const Settled&)>;

  // `broadcasts`: whether a version read on two or more lacking ranks is carried by a broadcast (else each
  // recipient fetches it). `settled` hears of every version settled.
  DataPlan(bool broadcasts, Sink settled);

  std::uint32_t add(std::size_t bytes, std::string name, int owner, bool broadcast = true);
  std::size_t size() const noexcept { return data_.size(); }
  const Datum& datum(std::uint32_t handle) const { return data_[handle]; }
  // Whether `key` is the latest version of its datum.
  bool latest(const Key& key) const { return data_[key.handle].version == key.version; }

  // The program's value of `handle` is made on `rank` (entered on its owner, or written by task `maker`),
  // at `at` in the batch's schedule: the version it supersedes is settled first. Returns the new version.
  Key write(std::uint32_t handle, int rank, std::uint64_t maker, double at = 0);
  // A task (or a read-back) on `rank` reads the latest version of `handle`, with `urgency`, planned to
  // start at `need`.
  Read read(std::uint32_t handle, int rank, int urgency, double need = 0);
  // exit(): the latest version is on `rank` alone again (the owner's buffer), with no new version.
  void returned(std::uint32_t handle, int rank);
  // The batch ends: every version read or made in it is settled (not superseded), and the next batch's
  // reads start new recipient lists.
  void end_batch();

  // Versions read on two or more ranks that lacked them but not broadcast, so far: broadcasts off, or the
  // datum's versions never broadcast (DataPlan::add's `broadcast`).
  struct NotBroadcast {
    std::uint64_t off = 0;
    std::uint64_t unbroadcastable = 0;
  };
  NotBroadcast not_broadcast() const noexcept { return not_broadcast_; }

 private:
  struct Batch {
    std::uint64_t id = 0;                                 // the batch this datum was last touched in
    std::vector<std::pair<int, std::uint32_t>> reads;     // per rank: its reads of the latest version
  };
  Datum& touch(std::uint32_t handle);
  void settle(std::uint32_t handle, bool superseded);

  bool broadcasts_;
  Sink settled_;
  std::vector<Datum> data_;
  std::vector<Batch> batch_of_;     // per datum
  std::vector<std::uint32_t> touched_;  // data touched in this batch
  std::uint64_t batch_ = 1;
  NotBroadcast not_broadcast_;
};

// The graph of a batch for the scheduler: its tasks in submission order, and the read-after-write edges
// between them (what an earlier batch made is done, and versions make the other kinds no constraint).
// An enter between them gives a datum a value no task of the batch made.
class WorkloadBuilder {
 public:
  WorkloadBuilder(std::size_t workers, std::size_t lanes, std::size_t handles);
  // A task with these accesses (anything with .handle and .mode), priced at `seconds`: its row.
  template <class Accesses, class BytesOf>
  std::size_t task(const Accesses& accesses, double seconds, BytesOf bytes_of) {
    const std::size_t row = workload_.compute.size();
    workload_.compute.emplace_back(workload_.workers, seconds);
    for (const auto& a : accesses) {
      if (reads(a.mode) && writer_[a.handle]) workload_.edges.push_back({*writer_[a.handle], row, bytes_of(a.handle), a.handle});
      if (writes(a.mode)) writer_[a.handle] = row;
    }
    return row;
  }
  void entered(std::uint32_t handle) { writer_[handle].reset(); }
  Workload take() { return std::move(workload_); }

 private:
  Workload workload_;
  std::vector<std::optional<std::size_t>> writer_;  // per handle: the row writing its latest version
};

// A commute use's order (lowering.hpp): its run of updates is the latest version of `handle`, made by the
// run's opening task, whose rank keeps it between turns and grants them; `closes`: Access::closes.
inline TaskAccess commute_access(const DataPlan& plan, std::uint32_t handle, std::uint32_t closes) {
  const DataPlan::Datum& d = plan.datum(handle);
  return {.read = {handle, d.version}, .written = closes, .bytes = d.bytes, .source = d.replicas.origin,
          .mode = Mode::commute};
}

// One access of task `task` on `rank` placed on the plan, at the times the batch's schedule gives the task
// (0: placed before the batch is scheduled): the version it reads and where that comes from (`rank`
// itself where it holds it, else the origin), the version it writes. An inout is `in_place` where it is
// its version's first read of the batch, so that nothing placed before it reads that version.
TaskAccess place_access(DataPlan& plan, const Access& a, int rank, std::uint64_t task, int urgency, double start = 0,
                        double finish = 0);

}  // namespace herald::runtime::detail
