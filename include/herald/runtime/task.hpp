// The runtime's tasks as a program describes them, with no MPI: data handles and their uses, a task's
// context, kernels and their cost models, a task's options, and the statistics a run reports. Included
// by herald/runtime/runtime.hpp, which the program includes.
#pragma once

#include <herald/error.hpp>
#include <herald/runtime/access.hpp>
#include <herald/runtime/broadcast.hpp>
#include <herald/runtime/reduction.hpp>
#include <herald/runtime/scheduling.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace herald::runtime {
namespace detail {
class HeadState;
class ReplicatedState;
class Lowering;
class Planner;
}
class Head;

// A data handle: a small value naming a buffer the head registered. Valid on the Head that made it.
class Data {
 public:
  Data() = default;
  std::size_t bytes() const noexcept { return bytes_; }
  std::uint32_t index() const noexcept { return index_; }
  bool valid() const noexcept { return owner_ != 0; }
  // What it holds, as Head::data recorded it from the span's type: the built-in reductions need it.
  Element element() const noexcept { return element_; }

 private:
  friend class detail::HeadState;
  friend class detail::ReplicatedState;
  friend class detail::Lowering;
  friend class detail::Planner;
  friend class Head;
  Data(std::uint64_t owner, std::uint32_t index, std::size_t bytes) : owner_(owner), index_(index), bytes_(bytes) {}
  std::uint64_t owner_ = 0;
  std::uint32_t index_ = 0;
  std::size_t bytes_ = 0;
  Element element_ = Element::bytes;
};

struct Use {
  Data data;
  Mode mode = Mode::in;
  // Mode::reduce: the operator, "sum", "min", "max" or one of Runtime::reduction's; read during submit()
  // only, so the text it views must live until submit() returns.
  std::string_view op{};
  std::size_t bytes = 0;  // Mode::scratch: its size
};
inline Use in(Data d) { return {d, Mode::in}; }
inline Use out(Data d) { return {d, Mode::out}; }
inline Use inout(Data d) { return {d, Mode::inout}; }
// A contribution to `d` under `op` (docs/runtime.md, "Reductions"): the kernel sees a partial it reads and
// writes (TaskContext::out), to which it adds its contribution; the partials meet when `d` is next used.
inline Use reduce(Data d, std::string_view op) { return {d, Mode::reduce, op}; }
// `bytes` of space for the task alone (StarPU's STARPU_SCRATCH): its kernel sees it as an output of
// unspecified contents; it is never moved, and a worker reuses it for its later tasks.
inline Use scratch(std::size_t bytes) { return {Data{}, Mode::scratch, {}, bytes}; }
// An update of `d` that commutes with the others of its run (docs/runtime.md, "Commutative updates"): the
// kernel reads and writes `d` (TaskContext::inout) while no other update of it runs, the updates taking
// their turns in the order they become ready.
inline Use commute(Data d) { return {d, Mode::commute}; }

// A task's by-value arguments: bytes copied at submit.
using Arguments = std::vector<std::byte>;
// Packs trivially copyable values one after the other; TaskContext::argument<T>(offset) reads them back.
template <class... T>
Arguments arguments(const T&... values) {
  static_assert((std::is_trivially_copyable_v<T> && ...), "task arguments are copied as bytes");
  Arguments out((sizeof(T) + ... + 0));
  std::size_t at = 0;
  ((std::memcpy(out.data() + at, &values, sizeof(T)), at += sizeof(T)), ...);
  return out;
}

// What a kernel sees: its accesses' bytes, in the order the task named them, and its arguments.
class TaskContext {
 public:
  std::span<const std::byte> in(std::size_t access) const;  // an in or inout access
  std::span<std::byte> out(std::size_t access) const;       // an out or inout access
  template <class T>
  std::span<const T> in(std::size_t access) const {
    return typed<const T>(in(access));
  }
  template <class T>
  std::span<T> out(std::size_t access) const {
    return typed<T>(out(access));
  }
  template <class T>
  std::span<T> inout(std::size_t access) const {
    return out<T>(access);
  }
  std::size_t accesses() const noexcept { return views_.size(); }
  std::span<const std::byte> arguments() const noexcept { return arguments_; }
  // The value of type T at byte `offset` of the arguments.
  template <class T>
  T argument(std::size_t offset = 0) const {
    static_assert(std::is_trivially_copyable_v<T>);
    check_argument(offset, sizeof(T));
    T value;
    std::memcpy(&value, arguments_.data() + offset, sizeof(T));
    return value;
  }
  std::uint64_t task() const noexcept { return task_; }  // the number submit() returned for it
  int rank() const noexcept { return rank_; }
  // The kernel keeps its core busy `seconds` longer (a modelled kernel: a measured time instead of the
  // work). On a real machine the kernel's thread sleeps that long. Under SimGrid's SMPI the task ends that
  // much later in simulated time while the process keeps communicating, and up to `Options::threads`
  // such tasks overlap: a node with that many cores and a thread of its own for communication.
  void occupy(double seconds);
  double occupied() const noexcept { return occupied_; }

  struct View {
    std::byte* data;
    std::size_t bytes;
    Mode mode;
  };
  TaskContext(std::uint64_t task, int rank, std::span<const View> views, std::span<const std::byte> arguments)
      : task_(task), rank_(rank), views_(views), arguments_(arguments) {}

 private:
  template <class T>
  static std::span<T> typed(std::span<std::conditional_t<std::is_const_v<T>, const std::byte, std::byte>> bytes) {
    return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
  void check_argument(std::size_t offset, std::size_t size) const;
  std::uint64_t task_;
  int rank_;
  std::span<const View> views_;
  std::span<const std::byte> arguments_;
  double occupied_ = 0;
};

using Kernel = std::function<void(TaskContext&)>;
// Seconds a task of this kernel takes, from the sizes of its accesses in order (for the scheduler).
using KernelCost = std::function<double(std::span<const std::size_t> access_bytes)>;

// Who runs the program's submission (docs/runtime.md, "Two modes of control").
enum class Control {
  head,        // rank 0 runs it, schedules each wait()'s graph and dispatches it to the other ranks, as
               // OpenMP Cluster's head node does
  replicated,  // every rank runs it, knows the whole graph and the mapping, and does only its own part, as
               // StarPU-MPI does: no process stands between a task and its data
};
// "head", "replicated"; throws herald::Error naming `what`, the text and the choices for anything else.
Control control_from_string(std::string_view text, std::string_view what = "control");
const char* to_string(Control control) noexcept;
// The control of Options without one: HERALD_RUNTIME_CONTROL, else head.
Control default_control();

// A task as submitted, for a mapping function.
struct TaskInfo {
  // The number submit() returns for it; for a task with reduce or scratch uses, or reading a reduction's
  // result, the runtime's own tasks it submits first (docs/runtime.md, "Reductions") come between, so
  // submit() returns a larger one.
  std::uint64_t task = 0;
  std::string_view kernel;
  std::span<const Use> uses;
  int priority = 0;
  int workers = 1;                        // the workers there are
};
// The 0-based worker that runs a task (Scheduler::mapped, for tasks that name none). In replicated control
// every rank calls it for every task, so it must give the same answer everywhere.
using Mapping = std::function<int(const TaskInfo&)>;

struct Options {
  // Threads per worker that run kernels (0 or more); 0: none, kernels run on the communication thread
  // between polls. Unset: HERALD_RUNTIME_THREADS, else Runtime::default_threads() (1, or 0 in a process
  // bound to a single core). Where MPI grants less than MPI_THREAD_FUNNELED
  // (SimGrid's SMPI), kernels run on the communication thread whatever this says, and this many modelled
  // kernels (TaskContext::occupy) overlap in simulated time.
  std::optional<int> threads{};
  // unset: HERALD_RUNTIME_CONTROL (head, replicated), else head.
  std::optional<Control> control{};
  // unset: HERALD_RUNTIME_SCHEDULER (heft, round_robin, mapped, owner), else heft. In replicated control,
  // heft schedules from the kernels' cost models alone (what a process measures differs between processes).
  std::optional<Scheduler> scheduler{};
  // Scheduler::mapped: the worker of a task whose TaskOptions::worker is unset.
  Mapping mapping{};
  // A worker silent this long (seconds, positive) while it has work is reported lost; unset:
  // HERALD_RUNTIME_TIMEOUT, else 60 s. In replicated control: a process its neighbour has not heard from this
  // long while both are in wait().
  std::optional<double> worker_timeout{};
  // How often (seconds, positive) an idle or busy worker tells the head it is alive (replicated: tells the
  // next rank, while in wait()); unset: a tenth of the timeout, at most 1 s.
  std::optional<double> heartbeat{};
  // The longest a polling loop (a worker's, or the head's in wait()) sleeps when it has found nothing to do
  // for a while, in seconds: spinning without end takes a core from the kernels; sleeping delays noticing
  // a message by at most this. 0: never sleep (spin, yielding the processor). Unset:
  // HERALD_RUNTIME_IDLE_SLEEP, else 50e-6.
  std::optional<double> idle_sleep{};
  // Communication model for scheduling; unset: HERALD_ALPHA / HERALD_BETA as for coll's auto.
  std::optional<Link> link{};
  // How a version read on several workers that lack it gets there; unset: HERALD_RUNTIME_BCAST, else nobcast.
  std::optional<BroadcastStrategy> broadcast{};
  // true: a broadcast's recipients run no task reading it until every recipient has it (as OpenMP
  // Cluster paused for a broadcast; head control only); false: a task starts once its own inputs are
  // here. Unset: HERALD_RUNTIME_BCAST_SYNC (0 or 1), else false.
  std::optional<bool> broadcast_sync{};
  // Who forwards a dynbcast broadcast (and auto's, where it picks dynbcast): dyn's shape for the group,
  // the spread trees, or the trees planned on the links (BroadcastTrees). Unset: HERALD_RUNTIME_TREES,
  // else dyn.
  std::optional<BroadcastTrees> trees{};
  // A directory to write a trace of the run into (docs/tracing.md): tasks, transfers, broadcasts and the
  // head's scheduling, from construction to destruction; where a trace is open already (the drop-in's), into
  // that one. Unset: HERALD_TRACE, else none; empty: none.
  std::optional<std::string> trace{};
  // How the ranks' partials of a reduction meet; unset: HERALD_RUNTIME_REDUCE (tree, all_to_one, scatter,
  // auto), else auto: per reduction, the strategy the cost model (link) prices fastest.
  std::optional<ReductionStrategy> reduction{};
};

// What the runtime did, since it started (docs/runtime.md, "Statistics", defines each).
struct Statistics {
  std::uint64_t tasks = 0;            // tasks run to completion (the internal ones of reductions too)
  std::uint64_t fetches = 0;          // replicas delivered to a rank, by any means
  std::uint64_t bytes_moved = 0;      // their bytes
  std::uint64_t p2p_fetches = 0;      // of those, moved point to point: one holder to one rank
  std::uint64_t p2p_bytes = 0;        // their bytes
  std::vector<std::size_t> peak_bytes;  // per rank (0: the head): most replica bytes held at once
  std::uint64_t broadcasts = 0;           // versions sent to several workers at once (not nobcast)
  std::uint64_t broadcast_recipients = 0; // their recipients, summed
  std::uint64_t broadcast_bytes = 0;      // bytes delivered by them: size times recipients
  // What they kept off their holders' links against point to point (every recipient fetching from the
  // holder): their bytes delivered, less those each holder sent itself in its broadcast's tree. Not counted
  // for mpibcast, whose trees the MPI library chooses (docs/runtime.md, "Statistics").
  std::uint64_t broadcast_bytes_saved = 0;
  // Versions read on two or more ranks that lacked them, moved point to point instead of by a broadcast,
  // and why, in words ("" when none): the strategy is nobcast, or they are a reduction's pieces.
  std::uint64_t broadcasts_not_run = 0;
  std::string broadcasts_not_run_why;
  // Where the broadcast strategy can do nothing at all (head control with one worker: no version is ever
  // read on two ranks apart from its holder), why; else "".
  std::string broadcasts_impossible;
  double schedule_seconds = 0;        // head time spent scheduling at wait()
  double makespan_predicted = 0;      // the last wait()'s schedule length under the model
};

struct TaskOptions {
  int priority = 0;  // higher runs first among a worker's ready tasks
  // For Scheduler::mapped: the 0-based worker (head control: rank - 1, with one rank 0; replicated: the
  // rank); unset: Options::mapping decides.
  std::optional<int> worker{};
};

// A 2-D partition (Head::partition): a row-major matrix of `rows` x `columns` elements cut into blocks of
// `block_rows` x `block_columns` (the last row and column of blocks take what is left).
struct Blocks2D {
  std::size_t rows = 0;
  std::size_t columns = 0;
  std::size_t block_rows = 0;
  std::size_t block_columns = 0;
};

}  // namespace herald::runtime
