/* An ordinary MPI program, built by tests/mpi/other_mpi.sh with the other MPI's compiler than herald's (MPICH's
 * mpicc.mpich beside an Open MPI herald, or the reverse). Rank 0 prints the first line of
 * MPI_Get_library_version ("other_mpi: runs ..."); each rank prints "other_mpi: rank R passed" once its
 * broadcast is right. Under a libherald_pmpi.so built for the other MPI neither line may appear. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, value = 0, length = 0;
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) value = 42;
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Get_library_version(text, &length);
  text[strcspn(text, "\r\n")] = '\0';
  if (rank == 0) printf("other_mpi: runs %s\n", text);
  if (value == 42) printf("other_mpi: rank %d passed\n", rank);
  MPI_Finalize();
  return value == 42 ? 0 : 1;
}
