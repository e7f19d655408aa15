/* A C program using herald's C API: broadcasts an array of ints from the last rank with herald_bcast (the
 * algorithm named by HERALD_ALGORITHM, or herald's choice) and again with a named algorithm, checks it on
 * every rank and prints one line from rank 0. */
#include <herald/herald.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { COUNT = 25013 };

static int value(int i, int round) { return i * 7 + round * 1000003; }

/* 1 when every rank holds the root's array. */
static int broadcast_and_check(int* data, int rank, int root, int round, const char* algorithm) {
  for (int i = 0; i < COUNT; ++i) data[i] = rank == root ? value(i, round) : -1;
  int status = algorithm ? herald_bcast_algorithm(data, COUNT, MPI_INT, root, MPI_COMM_WORLD, algorithm)
                         : herald_bcast(data, COUNT, MPI_INT, root, MPI_COMM_WORLD);
  int ok = status == MPI_SUCCESS;
  for (int i = 0; ok && i < COUNT; ++i)
    if (data[i] != value(i, round)) ok = 0;
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all_ok;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  int* data = malloc(COUNT * sizeof *data);
  const int root = ranks - 1;
  int ok = data != NULL;
  ok = ok && broadcast_and_check(data, rank, root, 1, NULL);
  ok = ok && broadcast_and_check(data, rank, root, 2, "scatter_ring_tuned");
  if (rank == 0) printf("herald-c-client: %s ranks=%d ints=%d\n", ok ? "ok" : "FAILED", ranks, COUNT);
  free(data);
  MPI_Finalize();
  return ok ? 0 : 1;
}
