// A schedule compiled for one rank of one communicator: built once per shape, reused by every call.
#pragma once

#include <herald/algorithms.hpp>
#include <herald/dataflow.hpp>
#include <herald/node_memory.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace herald::mpi {

// What one broadcast in flight needs besides the plan: a request per step and scratch for redundant
// receives. Plans keep one spare set so back-to-back calls allocate nothing.
struct Buffers {
  std::vector<MPI_Request> requests;
  std::vector<std::byte> scratch;
  std::vector<std::uint32_t> in_flight;       // sends posted and not yet seen complete, oldest first
  std::vector<std::uint32_t> node_in_flight;  // the same of the sends into the node (Plan::node_sends)
};

struct Plan {
  // With problem.node_memory, this rank's node shares a ring (NodeMemory) and its steps within the node go
  // through it where the algorithm allows (AlgorithmInfo::node_memory).
  Plan(const AlgorithmInfo& algorithm, const Problem& problem, int rank, std::size_t limit);

  const AlgorithmInfo* algorithm;
  Problem problem;  // with defaults applied
  Program program;  // this rank's steps
  Dataflow dataflow;
  // Indices of send steps, in order, in the two queues of SendWindow: to other nodes (all of them where the
  // problem has one node) and into this rank's node.
  std::vector<std::uint32_t> sends;
  std::vector<std::uint32_t> node_sends;
  std::vector<std::uint32_t> recvs;  // indices of receive steps, in order
  // The steps within the node that go through node memory instead (their sends and receives are in neither
  // list above; its own lists of those are moved into them); empty where there are none.
  NodeLowering node;
  // Run with blocking MPI_Recv/MPI_Send in program order: the algorithm asks for it (sBBT), or the rank's
  // part is one receive from its parent followed by sends elsewhere and the message is small, where the
  // nonblocking machinery costs more than it can overlap. Safe: a tree has no cycle to deadlock on.
  bool blocking = false;
  // A pipeline (paced()), or a schedule in rounds (ordered_receives): its sends are synchronous, MPI_Issend
  // and MPI_Ssend.
  bool paced = false;
  // Receives posted one at a time, in program order (receives_in_order()).
  bool ordered_receives = false;
  // What the cost model predicted where "auto" chose by it (seconds), else 0: for traces.
  double predicted = 0;

  Buffers take_buffers();
  void give_back(Buffers buffers);

 private:
  std::optional<Buffers> spare_;
};

}  // namespace herald::mpi
