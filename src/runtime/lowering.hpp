// The access modes and partitions the controls do not know, lowered to tasks and data they do, once, above
// both controls (docs/runtime.md, "Reductions", "Scratch space", "Partitions"). The controls, the protocol
// and the traces see only in, out and inout uses of the runtime's own kernels (internal_kernels.hpp) on
// internal data; under replicated control every rank lowers alike.
//
// A reduce(d, op) use becomes an inout use of one of d's partials, one per worker, each started from op's
// identity by an internal task. When d is next used otherwise (a task, enter, read or exit), internal tasks
// fold the partials (reduction_tree.hpp): over a binomial tree, or all into one rank, into d itself; or,
// scatter, each contributing worker combines one piece of d from every partial, and d's value stays in
// those pieces until a use needs it whole. A task reading d on a worker known at submit (mapped and owner
// scheduling) then reads a copy assembled on that worker from the pieces, so that a reduction read on every
// worker moves as a reduce-scatter and an allgather do; any other use assembles d itself once, at the
// root. Contributions go to partials by a fixed rule and combine in a fixed order, so results are the same
// bits run to run for the same workers and submissions.
//
// A commute(d) use joins the run of updates open on d, or opens one: an internal task copies d's value into
// the run's own datum, and the updates use that datum with mode commute, which the controls plan as no
// version at all; the workers hand its value from update to update at run time (turns.cpp). When d is next
// used otherwise, an internal task closes the run, taking the value back into d once every update is done.
//
// A scratch(bytes) use becomes an out use of an internal datum of that size: written, never read, so never
// moved; each task makes a new version, and the worker's store reuses the memory of the versions before.
//
// partition(d, ...) makes each piece a datum of its own, written from d by one internal task (1-D: views of
// d's replica, made by the worker; 2-D: copies), and refuses d until unpartition(d) writes it back from them.
#pragma once

#include "coordinator.hpp"
#include "internal_kernels.hpp"
#include "reduction_tree.hpp"

#include <herald/runtime/runtime.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace herald::runtime::detail {

// A user's operator as Runtime::reduction registered it: element_bytes > 0 when it works element by
// element on elements of that size.
struct Operator {
  std::string name;
  std::size_t element_bytes = 0;
};

class Lowering {
 public:
  // `runtime`: the Runtime's number, which its handles carry; `operators`: the users' operators.
  Lowering(Coordinator& control, std::uint64_t runtime, Scheduler scheduler, Mapping mapping,
             ReductionStrategy strategy, Link link, std::vector<Operator> operators);

  Data data(std::span<std::byte> bytes, std::string name, int owner);
  void enter(Data d);
  void read(Data d, bool exit);
  std::uint64_t submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments, TaskOptions options);
  // Head::partition (`grid` for 2-D, else `blocks` runs) and Head::unpartition.
  std::vector<Data> partition(Data d, std::size_t blocks, std::optional<Blocks2D> grid);
  void unpartition(Data d);

 private:
  struct Datum {
    std::span<std::byte> buffer;  // the program's; the internal data name parts of it, but never enter nor read it
    std::string name;
    int owner = 0;
    std::vector<Data> partials;  // per worker, made when first contributed to
    // The reduction open on it, if any: its operator, and which partials hold a contribution.
    bool open = false;
    std::string op;
    Element element = Element::bytes;
    std::vector<bool> started;
    std::size_t contributions = 0;
    // scatter: pieces[w][p] is piece p of worker w's partial, value_pieces[p] of the datum's value before,
    // for folds over `pieces_of` partials; while `scattered`, piece p of the value is pieces[used[p]][p].
    std::vector<std::vector<Data>> pieces;
    std::vector<Data> value_pieces;
    std::size_t pieces_of = 0;
    bool scattered = false;
    std::vector<std::size_t> used;
    std::size_t root = 0;
    std::vector<Data> copies;    // per worker: the value assembled there for its readers
    std::vector<bool> assembled;  // per worker: its copy holds the scattered value
    // Partitions: a parent's pieces while it is partitioned (and its 2-D shape); a piece's parent
    // (std::nullopt for data that are no piece), whether it is 2-D, and whether unpartition retired it.
    bool partitioned = false;
    std::vector<Data> parts;
    std::optional<Blocks2D> grid;
    std::optional<std::uint32_t> parent;
    bool block = false;
    bool retired = false;
    // Commutative updates: the run open on it (the datum holding the run's value), and its updates so far.
    std::optional<Data> run;
    std::uint32_t updates = 0;
    std::uint32_t runs = 0;
  };
  Datum& datum(const Data& d) { return data_[d.index_]; }
  // The k-th scratch use of `bytes` in a task on `worker` (0 where the task's worker is unknown at submit).
  Data scratch(std::size_t bytes, std::size_t k, std::size_t worker);
  bool ours(const Data& d) const noexcept { return d.owner_ == runtime_ && d.index_ < data_.size(); }
  // Refuses what the controls cannot see: a foreign handle, an unknown operator, a datum named twice.
  void check(std::string_view kernel, std::span<const Use> uses) const;
  void check_operator(const Use& use, std::string_view task) const;
  // Refuses a use of a partitioned datum or a retired piece: `what` names the use ("task 4 (kernel 'k')").
  void check_whole(const Data& d, std::string_view what, bool program_buffer) const;
  // The worker a task runs on where the program or its data decide it at submit (mapped, owner).
  std::optional<std::size_t> known_worker(std::string_view kernel, std::span<const Use> uses, const TaskOptions& options) const;
  Data contribute(const Use& use, std::optional<std::size_t> worker, const TaskOptions& options);
  void fold(const Data& d);
  // The run of updates `use` joins, opened if none is; closed when the datum is used otherwise (settle).
  Data join_run(const Use& use, std::string_view task);
  void close_run(const Data& d);
  // Before any other use of `d`: its open reduction folded, its open run of updates closed.
  void settle(const Data& d) {
    close_run(d);
    fold(d);
  }
  void scatter(Datum& d, const Data& target, const Arguments& how);
  // The scattered value put together: into the datum itself on its root's worker, or into worker w's copy.
  void assemble(const Data& target, Datum& d);
  void assemble_into(const Data& whole, const Datum& d, std::size_t worker);
  Data copy_on(Datum& d, std::size_t worker);
  // `broadcast`: false for pieces, which every reader fetches from its worker (an allgather: each link
  // carries the datum once, which no tree over the same links improves on).
  Data internal(Datum& d, std::span<std::byte> bytes, std::string name, std::size_t worker, bool broadcast = true);
  // Bytes of an element `op` combines one at a time on data of `element`; 0: it needs the whole datum.
  std::size_t elementwise(std::string_view op, Element element) const;
  Arguments operator_arguments(std::string_view op, Element element) const;
  std::string kernel_of(std::string_view base, std::string_view op) const;

  Coordinator& control_;
  std::uint64_t runtime_;
  Scheduler scheduler_;
  Mapping mapping_;
  ReductionStrategy strategy_;
  Link link_;
  std::vector<Operator> operators_;
  std::deque<Datum> data_;    // by handle index, the controls' own numbering (a deque: records stay put as it grows)
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, Data> scratch_;  // by (bytes, k, worker)
  // Buffers for the scratch data's registration, never entered nor read: each as large as the largest
  // scratch so far, shared by all up to that size (a deque: the earlier ones stay put).
  std::deque<std::vector<std::byte>> scratch_buffers_;
  std::vector<Use> lowered_;  // a submit's uses as the control sees them
};

}  // namespace herald::runtime::detail
