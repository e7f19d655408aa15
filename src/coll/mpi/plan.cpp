#include "plan.hpp"

#include <utility>

namespace herald::mpi {
namespace {

// Up to here a blocking tree step costs less than posting, testing and waiting on requests (measured at
// 2 ranks with Open MPI's shared memory: at 64 KiB the nonblocking path costs 30-50% more; docs/benchmarks.md).
constexpr std::size_t blocking_bytes = 64 * 1024;

// One receive, and no send back to where it came from: this rank's part of a tree.
bool tree_step(const Program& program) {
  int parent = -1, receives = 0;
  for (const Step& s : program)
    if (s.op == Step::Op::recv) {
      parent = s.peer;
      ++receives;
    }
  if (receives > 1) return false;
  for (const Step& s : program)
    if (s.op == Step::Op::send && s.peer == parent) return false;
  return true;
}

}  // namespace

Plan::Plan(const AlgorithmInfo& a, const Problem& p, int rank, std::size_t limit)
    : algorithm(&a),
      problem(with_defaults(a, p)),
      program(make_program(a, problem, rank, limit)),
      dataflow(program, rank == problem.root, problem.bytes, rank) {
  // The ring holds the nodes the communicator's layout gives; a node size set by hand names others.
  if (problem.node_memory && a.node_memory && !problem.parameters.node_size) {
    node = lower_to_node_memory(program, problem.layout, rank, node_memory_slot_bytes);
    sends = std::move(node.sends);
    recvs = std::move(node.recvs);
  } else {
    SendQueues queues = send_queues(nodes_of(problem), rank, program);
    sends = std::move(queues.network);
    node_sends = std::move(queues.node);
    for (std::size_t i = 0; i < program.size(); ++i)
      if (program[i].op == Step::Op::recv) recvs.push_back(static_cast<std::uint32_t>(i));
  }
  blocking = node.node.empty() && (a.blocking || (problem.bytes <= blocking_bytes && tree_step(program)));
  ordered_receives = receives_in_order(a, problem);
  paced = synchronous_sends(problem, ordered_receives);
  Buffers first;
  first.requests.assign(program.size(), MPI_REQUEST_NULL);
  first.scratch.resize(dataflow.scratch_bytes());
  spare_ = std::move(first);
}

Buffers Plan::take_buffers() {
  if (spare_) {
    Buffers b = std::move(*spare_);
    spare_.reset();
    return b;
  }
  // Another broadcast of the same shape is in flight: it keeps the spare.
  Buffers b;
  b.requests.assign(program.size(), MPI_REQUEST_NULL);
  b.scratch.resize(dataflow.scratch_bytes());
  return b;
}

void Plan::give_back(Buffers buffers) {
  if (!spare_) spare_ = std::move(buffers);
}

}  // namespace herald::mpi
