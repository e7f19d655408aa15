/* A program as many are written: every iteration broadcasts a few control ints, then a payload, from rank 0.
 * Plain MPI (herald comes in as the drop-in, or not at all). Prints the slowest rank's time for the loop, then
 * for its iterations after the first 200 (each size's first 200 calls: where a trial has ended).
 *
 *   learn_loop [ITERATIONS] [PAYLOAD_BYTES]      (defaults 2000 and 262144)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int iterations = argc > 1 ? atoi(argv[1]) : 2000;
  const int payload = argc > 2 ? atoi(argv[2]) : 262144;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char* data = malloc((size_t)payload);
  for (int i = 0; i < payload; ++i) data[i] = (char)(rank == 0 ? i : 0);
  int control[3] = {0, 0, 0};
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  double steady = start;
  for (int it = 0; it < iterations; ++it) {
    if (it == 200) steady = MPI_Wtime();
    if (rank == 0) {
      control[0] = it;
      control[1] = payload;
      control[2] = 7;
    }
    MPI_Bcast(control, 3, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(data, payload, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (control[0] != it || data[payload - 1] != (char)(payload - 1)) {
      fprintf(stderr, "learn_loop: rank %d got wrong data at iteration %d\n", rank, it);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  const double end = MPI_Wtime();
  double mine[2] = {end - start, iterations > 200 ? end - steady : 0}, slowest[2] = {0, 0};
  MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%.6f %.6f\n", slowest[0], slowest[1]);
  free(data);
  MPI_Finalize();
  return 0;
}
