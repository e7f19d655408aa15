// main() for a benchmark program: MPI_Init, the program's run(argc, argv), MPI_Finalize.
//
// A refused command line (UsageError) ends the program normally, with rank 0's message and exit code 2:
// every rank reads the same command line and communicator size, so every rank refuses it at the same
// point, before any communication. Any other error is printed with the program's name and ends every rank
// with MPI_Abort, since the others may be waiting inside a collective; an abort may cut off output still
// on its way to mpiexec, which is why a refusal does not take that road.
#pragma once

#include <herald/tracing.hpp>

#include <mpi.h>

#include <exception>
#include <iostream>
#include <stdexcept>

namespace herald::bench {

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Runs a program's checks of its command line: whatever they throw is a refusal of that command line.
template <class Checks>
void check_usage(Checks checks) {
  try {
    checks();
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

// Whether this process is rank 0 of MPI_COMM_WORLD: every rank reads the same command line and reaches the
// same verdict, and rank 0 alone tells it.
inline bool world_rank_zero() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}

template <class Run>
int mpi_main(int argc, char** argv, const char* program, Run run) {
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    herald::trace::start_from_environment(MPI_COMM_WORLD);  // HERALD_TRACE: written at MPI_Finalize
    status = run(argc, argv);
  } catch (const UsageError& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::cerr << program << ": " << e.what() << std::endl;
    status = 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  // An open trace (HERALD_TRACE) is written here, where every rank is: SimGrid's SMPI runs no attribute
  // callbacks in MPI_Finalize, where herald would write it otherwise.
  try {
    herald::trace::finish();
  } catch (const std::exception& e) {
    std::cerr << program << ": the trace could not be written: " << e.what() << std::endl;
  }
  MPI_Finalize();
  return status;
}

}  // namespace herald::bench
