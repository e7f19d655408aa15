#include "check.hpp"

#include <string>

namespace herald::mpi {

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw Error(Errc::mpi, std::string(call) + " failed: " + std::string(text, length));
}

// PMPI: a library that intercepts MPI_Comm_dup (herald's own PMPI library does) must not see herald's duplicates.
Communicator::Communicator(MPI_Comm parent) { HERALD_MPI(PMPI_Comm_dup(parent, &comm_)); }

void Communicator::start_dup(MPI_Comm parent, MPI_Request& pending) {
#ifdef SMPI_H
  // SimGrid's SMPI has no MPI_Comm_idup; a simulated program may block here, as nothing else runs meanwhile.
  HERALD_MPI(PMPI_Comm_dup(parent, &comm_));
  pending = MPI_REQUEST_NULL;
#else
  HERALD_MPI(PMPI_Comm_idup(parent, &comm_, &pending));
#endif
}

Communicator::~Communicator() {
  // MPI_Comm_free after MPI_Finalize is erroneous; a cached communicator may outlive it.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

int Communicator::rank() const {
  int r = 0;
  HERALD_MPI(MPI_Comm_rank(comm_, &r));
  return r;
}

int Communicator::size() const {
  int n = 0;
  HERALD_MPI(MPI_Comm_size(comm_, &n));
  return n;
}

}  // namespace herald::mpi
