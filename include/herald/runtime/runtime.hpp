// A distributed task runtime: one process per node, rank 0 the head, the others workers.
//
//   herald::runtime::Runtime rt(MPI_COMM_WORLD);                // collective
//   rt.kernel("scale", [](herald::runtime::TaskContext& t) {    // on every rank, before run()
//     auto x = t.inout<double>(0);
//     for (double& v : x) v *= t.argument<double>();
//   });
//   rt.run([&](herald::runtime::Head& head) {                  // rank 0 runs this; the others serve
//     auto a = head.data(std::span(values), "a");
//     head.enter(a);                                            // the head's copy is the value
//     head.submit("scale", {inout(a)}, herald::runtime::arguments(2.0));
//     head.read(a);                                             // back into `values` ...
//     head.wait();                                              // ... once everything submitted is done
//   });
//
// The head records tasks as they are submitted, with their accesses (in, out, inout) on data handles; the
// dependencies follow from the accesses, in program order. At wait() it schedules everything submitted
// since the last wait (HEFT by default), sends each worker its tasks, and tracks them until done. A
// worker fetches a task's inputs from a process that holds their version, worker to worker, when the
// task reaches it ("on demand"). Every write makes a new version of its data; old versions are freed
// once no scheduled task needs them. Errors (a kernel that throws, a worker that fails outside a kernel or
// goes silent) come back from wait() as herald::Error naming the task and the rank.
//
// A registered buffer belongs to the runtime from enter() until the wait() after a read() of it: the
// program must not write it in between (OpenMP's `target enter data` has the same rule).
//
// That is head control, OpenMP Cluster's model. Under replicated control (Options::control) there is no
// head: every rank runs the program, which must submit the same work everywhere, and each rank runs its
// own part of every wait()'s graph, as StarPU-MPI does (docs/runtime.md, "Two modes of control").
#pragma once

#include <herald/error.hpp>
#include <herald/runtime/task.hpp>

#include <mpi.h>

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

class Head;

class Runtime {
 public:
  // Collective over `comm` (duplicated: nothing of the runtime's travels on it).
  explicit Runtime(MPI_Comm comm = MPI_COMM_WORLD, Options options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Registers a kernel under `name` on this rank; every rank that may run it must register it before
  // run(). A task naming a kernel some worker lacks is refused at submit.
  void kernel(std::string name, Kernel kernel, KernelCost cost = {});
  // Registers a reduction operator under `name` for reduce(data, name), on every rank before run(), as
  // kernels are. The built-in "sum", "min" and "max" need no registration. `element_bytes` > 0 says
  // `combine` works element by element on elements of that size, so pieces of the datum may be combined
  // apart (ReductionStrategy::scatter); 0: it is only ever given whole partials.
  void reduction(std::string name, Initializer identity, Combiner combine, std::size_t element_bytes = 0);
  // The same, element by element over T: every element starts at `identity`, and `combine(into, from)`
  // folds one element into another (OpenMP's `declare reduction` with its initializer).
  template <class T, class F>
    requires std::is_invocable_v<F&, T&, const T&>
  void reduction(std::string name, T identity, F combine) {
    static_assert(std::is_trivially_copyable_v<T>);
    reduction(
        std::move(name),
        Initializer([identity](std::span<std::byte> partial) {
          for (std::size_t at = 0; at + sizeof(T) <= partial.size(); at += sizeof(T))
            std::memcpy(partial.data() + at, &identity, sizeof(T));
        }),
        Combiner([combine](std::span<std::byte> into, std::span<const std::byte> from) {
          for (std::size_t at = 0; at + sizeof(T) <= into.size(); at += sizeof(T)) {
            T a, b;
            std::memcpy(&a, into.data() + at, sizeof(T));
            std::memcpy(&b, from.data() + at, sizeof(T));
            combine(a, static_cast<const T&>(b));
            std::memcpy(into.data() + at, &a, sizeof(T));
          }
        }),
        sizeof(T));
  }

  // Collective. Head control: rank 0 runs `program` with the head; every other rank serves as a worker
  // until it returns (or throws: the exception is rethrown on rank 0 once the workers have been released).
  // Replicated control: every rank runs `program`, which must submit the same work on every rank. A worker that
  // fails outside its kernels reports it to the head, whose wait() raises it; one that cannot (its start,
  // its shutdown, MPI broken) aborts the program with the reason on stderr.
  void run(const std::function<void(Head&)>& program);

  int rank() const noexcept;
  int size() const noexcept;
  bool is_head() const noexcept { return rank() == 0; }
  Control control() const noexcept;
  // Kernel threads per worker as resolved from Options and MPI's thread level (0: the polling thread).
  int threads() const noexcept;
  // The kernel threads a worker gets when neither Options nor HERALD_RUNTIME_THREADS says: 1, or 0 where
  // this process may run on one core only (as Open MPI binds each of up to two processes), so that the
  // kernels and the polling loop do not take turns on that core.
  static int default_threads();
  // How versions read on several workers move, as resolved from Options and HERALD_RUNTIME_BCAST.
  BroadcastStrategy broadcast() const noexcept;

  struct State;

 private:
  void run_ranks(const std::function<void(Head&)>& program);  // run() on any rank, unguarded
  std::unique_ptr<State> state_;
};

// The program's side of the runtime. Head control: rank 0's; replicated control: every rank has one, and
// every call is made on every rank in the same order with the same handles (wait() checks it).
class Head {
 public:
  // Registers a buffer. Nothing moves yet. `owner`, a 0-based worker (unset: worker 0), runs the tasks that
  // write it under Scheduler::owner; in replicated control its buffer is the one enter() takes the value
  // from.
  Data data(std::span<std::byte> bytes, std::string name, std::optional<int> owner = {});
  template <class T>
  Data data(std::span<T> values, std::string name, std::optional<int> owner = {}) {
    static_assert(std::is_trivially_copyable_v<T>);
    Data d = data(std::as_writable_bytes(values), std::move(name), owner);
    d.element_ = element_of<T>();
    return d;
  }
  // The buffer's current contents become the data's value; workers get it when a task needs it. Replicated
  // control: the owner's buffer.
  void enter(Data d);
  // The data's current value is written back into the program's buffer by the next wait(). Replicated
  // control: into every rank's buffer (each rank's program reads its own).
  void read(Data d);
  // read(), and afterwards every replica on the workers is freed.
  void exit(Data d);

  // Records a task; throws herald::Error (recording nothing) for a kernel some rank lacks, a handle of
  // another runtime, the same handle twice, or a read of data that has no value yet.
  std::uint64_t submit(std::string_view kernel, std::initializer_list<Use> uses, Arguments arguments = {},
                       TaskOptions options = {});
  std::uint64_t submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments = {},
                       TaskOptions options = {});

  // Cuts `d` into pieces, each a datum of its own for placement, transfer and broadcast, in the graph's
  // order (StarPU's partition plan and submit): the tasks submitted next use the pieces, and `d` itself is
  // refused until unpartition(d) puts them back. 1-D: `blocks` consecutive runs of whole elements (as even
  // as they allow), views into d's version where it is, with no copy; read() of a piece lands in its part
  // of d's buffer. 2-D: the blocks of a row-major matrix of d's element type, in row-major block order,
  // each copied out where d is (a block is no contiguous run); read() them through d, after unpartition.
  std::vector<Data> partition(Data d, std::size_t blocks);
  std::vector<Data> partition(Data d, Blocks2D blocks);
  // The pieces' values become d's, in the graph's order; the pieces are refused from then on.
  void unpartition(Data d);

  // Runs everything submitted so far; returns when it is all done and every read() has landed.
  void wait();

  int workers() const noexcept;
  Statistics statistics() const;

  explicit Head(Runtime::State& state) : state_(state) {}

 private:
  Runtime::State& state_;
};

}  // namespace herald::runtime
