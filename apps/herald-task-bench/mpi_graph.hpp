// Task Bench's graphs on plain MPI point-to-point: the baseline herald's runtime is measured against.
//
// As in Task Bench's MPI program, point p of a graph of width W lives on rank p*P/W of the P ranks; every
// rank walks the rows in order and, per row, receives the outputs its points read from other ranks,
// runs its points (checking every input, as the runtime's tasks do) and sends their outputs to the ranks
// of their consumers. Nothing is scheduled, nothing is forwarded: the least a program can do to run the
// graph, written the way an MPI programmer would.
#pragma once

#include "graph.hpp"

#include <mpi.h>

#include <span>

namespace herald::taskbench {

// Collective over `comm` (duplicated for the run), every rank given the same graphs: runs every graph
// `passes` times and returns the last pass's seconds, barrier to barrier. A faulty input throws
// std::runtime_error naming the task, on the rank that ran it.
double run_on_mpi(std::span<const TaskGraph> graphs, MPI_Comm comm, int passes);

}  // namespace herald::taskbench
