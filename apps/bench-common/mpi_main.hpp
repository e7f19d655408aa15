// main() for a benchmark program: MPI_Init, the program's run(argc, argv), MPI_Finalize. An error is
// printed with the program's name and ends every rank with MPI_Abort, since the others may be waiting
// inside a collective.
#pragma once

#include <mpi.h>

#include <exception>
#include <iostream>

namespace herald::bench {

template <class Run>
int mpi_main(int argc, char** argv, const char* program, Run run) {
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    status = run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return status;
}

}  // namespace herald::bench
