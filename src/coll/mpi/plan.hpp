// A schedule compiled for one rank of one communicator: built once per shape, reused by every call.
#pragma once

#include <herald/algorithms.hpp>
#include <herald/dataflow.hpp>

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
};

struct Plan {
  Plan(const AlgorithmInfo& algorithm, const Problem& problem, int rank, std::size_t limit);

  const AlgorithmInfo* algorithm;
  Problem problem;  // with defaults applied
  Program program;  // this rank's steps
  Dataflow dataflow;
  std::vector<std::uint32_t> sends;  // indices of send steps, in order
  std::vector<std::uint32_t> recvs;  // indices of receive steps, in order

  Buffers take_buffers();
  void give_back(Buffers buffers);

 private:
  std::optional<Buffers> spare_;
};

}  // namespace herald::mpi
