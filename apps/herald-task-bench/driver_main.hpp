// main() of the MPI programs of this folder: MPI with kernel threads beside the polling one
// (MPI_THREAD_FUNNELED, what the runtime asks for), the program's run(), and on an error the program's
// name, the rank and the reason on standard error, then MPI_Abort (other ranks may be inside a collective).
//
// A refused command line (UsageError) ends the program normally instead, with one line from rank 0 and
// exit status 2: every rank reads the same command line and refuses it at the same point, before any
// communication.
#pragma once

#include "options.hpp"

#include <mpi.h>

#include <cstdio>
#include <exception>

namespace herald::taskbench {

template <class Run>
int driver_main(int argc, char** argv, const char* program, Run run) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int status = 0;
  try {
    status = run(argc, argv);
  } catch (const UsageError& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::fprintf(stderr, "%s: %s\n", program, e.what());
    status = 2;
  } catch (const std::exception& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "%s: rank %d: %s\n", program, rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}

}  // namespace herald::taskbench
