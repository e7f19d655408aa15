/* A C program with the thread balancer linked in: phases of OpenMP work of different weights, each ended
 * by herald_balanced(). On LLVM's OpenMP runtime the balancer moves threads between the processes of a
 * node; on another runtime, or with OMP_TOOL=disabled, herald_balanced() returns at once. Prints one line
 * from rank 0. */
#include <herald/balance.h>

#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  double sum = 0.0;
  const int phases = 4;
  for (int phase = 0; phase < phases; ++phase) {
    const long work = 200000L * (rank + 1);
#pragma omp parallel for reduction(+ : sum)
    for (long i = 0; i < work; ++i) sum += 1.0 / (double)(i + 1);
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    herald_balanced();
  }
  if (rank == 0) printf("herald-balance-client: ok ranks=%d phases=%d sum=%.3f\n", ranks, phases, sum);
  MPI_Finalize();
  return 0;
}
