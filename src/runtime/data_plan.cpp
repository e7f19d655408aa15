#include "data_plan.hpp"

#include <algorithm>

namespace herald::runtime::detail {

std::uint32_t DataPlan::Settled::uses(int rank) const {
  std::uint32_t n = 0;
  for (const auto& [r, count] : reads)
    if (r == rank) n = count;
  if (rank == replicas.origin) n += broadcast ? 1U : static_cast<std::uint32_t>(replicas.recipients.size());
  return n;
}

DataPlan::DataPlan(bool broadcasts, Sink settled) : broadcasts_(broadcasts), settled_(std::move(settled)) {}

std::uint32_t DataPlan::add(std::size_t bytes, std::string name, int owner, bool broadcast) {
  const auto index = static_cast<std::uint32_t>(data_.size());
  Datum d;
  d.bytes = bytes;
  d.name = std::move(name);
  d.owner = owner;
  d.broadcast = broadcast;
  d.replicas = Replicas::held(owner, {owner});
  data_.push_back(std::move(d));
  batch_of_.emplace_back();
  return index;
}

DataPlan::Datum& DataPlan::touch(std::uint32_t handle) {
  Batch& b = batch_of_[handle];
  Datum& d = data_[handle];
  if (b.id != batch_) {
    // Its first use in this batch: the last batch's reads are served.
    b.id = batch_;
    b.reads.clear();
    d.readers = 0;
    d.replicas.served();
    d.replicas.ready = 0;  // made before this batch's schedule starts
    touched_.push_back(handle);
  }
  return d;
}

Key DataPlan::write(std::uint32_t handle, int rank, std::uint64_t maker, double at) {
  Datum& d = touch(handle);
  settle(handle, true);
  ++d.version;
  d.replicas.made(rank, at);
  d.made_by = maker;
  batch_of_[handle].reads.clear();
  d.readers = 0;
  return {handle, d.version};
}

DataPlan::Read DataPlan::read(std::uint32_t handle, int rank, int urgency, double need) {
  Datum& d = touch(handle);
  Read r;
  r.key = {handle, d.version};
  r.origin = d.replicas.origin;
  r.first = d.readers == 0;
  ++d.readers;
  r.held = d.replicas.read(rank, urgency, need);
  auto& reads = batch_of_[handle].reads;
  const auto it = std::find_if(reads.begin(), reads.end(), [&](const auto& p) { return p.first == rank; });
  if (it == reads.end())
    reads.emplace_back(rank, 1);
  else
    ++it->second;
  return r;
}

void DataPlan::returned(std::uint32_t handle, int rank) { data_[handle].replicas.made(rank); }

void DataPlan::settle(std::uint32_t handle, bool superseded) {
  Datum& d = data_[handle];
  if (d.version == 0) return;
  if (d.replicas.recipients.size() >= 2) {
    if (!broadcasts_) ++not_broadcast_.off;
    else if (!d.broadcast) ++not_broadcast_.unbroadcastable;
  }
  const Settled s{.key = {handle, d.version},
                  .replicas = d.replicas,
                  .reads = batch_of_[handle].reads,
                  .made_by = d.made_by,
                  .superseded = superseded,
                  .broadcast = broadcasts_ && d.broadcast && d.replicas.recipients.size() >= 2};
  settled_(s);
  d.replicas.served();
}

void DataPlan::end_batch() {
  for (std::uint32_t handle : touched_) settle(handle, false);
  touched_.clear();
  ++batch_;
}

WorkloadBuilder::WorkloadBuilder(std::size_t workers, std::size_t lanes, std::size_t handles) : writer_(handles) {
  workload_.workers = workers;
  workload_.lanes = lanes;
}

TaskAccess place_access(DataPlan& plan, const Access& a, int rank, std::uint64_t task, int urgency, double start,
                        double finish) {
  if (a.mode == Mode::commute) return commute_access(plan, a.handle, a.closes);
  TaskAccess t;
  t.mode = a.mode;
  t.bytes = plan.datum(a.handle).bytes;
  t.read.handle = a.handle;
  if (reads(a.mode)) {
    const DataPlan::Read r = plan.read(a.handle, rank, urgency, start);
    t.read = r.key;
    t.source = r.held ? rank : r.origin;
    t.in_place = a.mode == Mode::inout && r.first;
  }
  if (writes(a.mode)) t.written = plan.write(a.handle, rank, task, finish).version;
  return t;
}

}  // namespace herald::runtime::detail
