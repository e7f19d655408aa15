// A folder name of one MPI test run's own, the same on every rank: the tests that run one program may run
// at once (ctest -j) from one working folder, so a name from the rank count alone is not enough.
#pragma once

#include <mpi.h>
#include <unistd.h>

#include <string>

namespace herald::test {

inline std::string run_folder(const std::string& stem, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  long long pid = static_cast<long long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, comm);
  return stem + "-" + std::to_string(size) + "-" + std::to_string(pid);
}

}  // namespace herald::test
