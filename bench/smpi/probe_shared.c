/* What SMPI gives a program asking which ranks share a node: each rank's MPI_Get_processor_name and the size
 * of its MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) communicator. Run by bench/smpi/probe-node-layout.sh. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, n; char name[MPI_MAX_PROCESSOR_NAME]; int len;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Get_processor_name(name, &len);
  MPI_Comm shared; MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared);
  MPI_Comm_size(shared, &n);
  printf("rank %d name %s shared size %d\n", me, name, n);
  MPI_Finalize();
}
