// What the program's Head calls: the runtime's control, centralised on rank 0 (HeadState) or replicated
// on every rank (ReplicatedState). Both record the same graph with the same rules; they differ in who
// plans it and how a process learns its part.
#pragma once

#include "graph.hpp"

#include <herald/dyn/shape.hpp>
#include <herald/runtime/task.hpp>

#include <functional>

#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <string_view>

namespace herald::dyn {
class Endpoint;
}

namespace herald::runtime::detail {

// A use as both controls record it, on handle `handle` (the use's own, or one past the last to refuse a
// foreign one): a commute use carries the count of updates it closes in Use::bytes (lowering.cpp).
inline Access access_of(const Use& u, std::uint32_t handle) {
  return {handle, u.mode, u.mode == Mode::commute ? static_cast<std::uint32_t>(u.bytes) : 0};
}

// The tree shape and segment the dynamic broadcast takes for this many recipients and bytes.
using ShapeOf = std::function<dyn::Shape(int recipients, std::size_t bytes)>;

// How a control runs, from the runtime's options: the same for both.
struct ControlSettings {
  Scheduler scheduler = Scheduler::heft;
  Link link{};
  std::size_t lanes = 1;        // kernels a worker runs at once, for the schedule (Workload::lanes)
  Mapping mapping{};            // Scheduler::mapped, tasks that name no worker
  double timeout = 60;          // a process silent this long is lost
  double heartbeat = 1;         // seconds between "alive" messages (replicated control: to the next rank)
  BroadcastStrategy broadcast = BroadcastStrategy::nobcast;
  bool sync = false;            // head control: a broadcast's recipients wait until every one has the data
  bool log = false;             // HERALD_RUNTIME_LOG: one line per broadcast on stderr
  BroadcastTrees trees = BroadcastTrees::dyn;  // who forwards dynbcast's broadcasts
  double idle_sleep = 50e-6;    // the longest sleep of wait()'s loop when idle (see idle.hpp)
  dyn::Endpoint* endpoint = nullptr;  // carries the dynamic broadcast's broadcasts (the worker's)
  ShapeOf shape;                      // prices their shapes (the endpoint's Endpoint::shape), for `auto`
  std::string read_kernel;      // replicated control: the internal kernel that copies a version into a program's buffer
};

class Coordinator {
 public:
  virtual ~Coordinator() = default;
  // `owner`: a worker, checked by Head::data. `broadcast`: whether a version read on several ranks may be
  // broadcast (false: each reader fetches it, as the pieces of a reduction's allgather should).
  virtual Data data(std::span<std::byte> bytes, std::string name, int owner, bool broadcast = true) = 0;
  virtual void enter(Data d) = 0;
  virtual void read(Data d, bool exit) = 0;
  virtual std::uint64_t submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments,
                               TaskOptions options) = 0;
  virtual void wait() = 0;
  // Whether `d` has a value in submission order (entered, or written by a task submitted so far).
  virtual bool has_value(const Data& d) const noexcept = 0;
  // The number the next submit() will return.
  virtual std::uint64_t next_task() const noexcept = 0;
  virtual int workers() const noexcept = 0;
  virtual Statistics statistics() const = 0;
  // A process was lost: the others cannot be released cleanly.
  virtual bool lost_worker() const noexcept = 0;
  // Neither a failure nor a lost process so far.
  virtual bool usable() const noexcept = 0;
  // A failure reported (a kernel, or a process outside its kernels) that no wait() has raised yet.
  virtual std::exception_ptr failure() const = 0;
};

}  // namespace herald::runtime::detail
