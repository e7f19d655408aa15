/* herald's C API: broadcasts with MPI_Bcast's signature.
 *
 * Errors are MPI error codes, raised through the communicator's error handler as MPI would (with
 * MPI_ERRORS_ARE_FATAL, the default, the program aborts with herald's message). */
#ifndef HERALD_HERALD_H
#define HERALD_HERALD_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Broadcasts with the algorithm named by HERALD_ALGORITHM, or "auto". Derived datatypes are packed. */
int herald_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);

/* Same, with the algorithm named ("binomial", "scatter_ring_tuned", "native", "auto", ...); NULL: as herald_bcast. */
int herald_bcast_algorithm(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           const char* algorithm);

#ifdef __cplusplus
}
#endif

#endif /* HERALD_HERALD_H */
