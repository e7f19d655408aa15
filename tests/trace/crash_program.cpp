// A traced run that never finishes its trace: broadcasts enough to spill each rank's buffer more than once,
// then ends with MPI_Abort. recover_test.sh rebuilds the trace from what it left.
#include <herald/bcast.hpp>
#include <herald/tracing.hpp>

#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: crash_program DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  herald::trace::start(MPI_COMM_WORLD, argv[1]);
  std::vector<std::byte> data(8);
  // Each broadcast records its call and its messages: 20000 of them fill a 16384-event buffer twice.
  for (int i = 0; i < 20000; ++i) herald::bcast(data, 0, MPI_COMM_WORLD, {.algorithm = "binomial"});
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MPI_Abort(MPI_COMM_WORLD, 3);  // the trace is never finished
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
