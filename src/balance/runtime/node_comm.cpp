#include "node_comm.hpp"

#include "../../core/mpi/check.hpp"

#include <string>

namespace herald::balance {

bool mpi_running() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

NodeComm::NodeComm() {
  int world_rank = 0;
  HERALD_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
  HERALD_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &comm_));
  HERALD_MPI(MPI_Comm_rank(comm_, &rank_));
  HERALD_MPI(MPI_Comm_size(comm_, &size_));
  HERALD_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &NodeComm::release, &keyval_, nullptr));
  HERALD_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, keyval_, this));
}

NodeComm::~NodeComm() {
  if (!mpi_running()) return;  // MPI_Finalize already released the communicator
  if (keyval_ != MPI_KEYVAL_INVALID) MPI_Comm_delete_attr(MPI_COMM_SELF, keyval_);  // calls release()
}

// Runs when the attribute goes: from the destructor, or at the start of MPI_Finalize.
int NodeComm::release(MPI_Comm, int, void* self, void*) {
  auto* node = static_cast<NodeComm*>(self);
  if (node->comm_ != MPI_COMM_NULL) MPI_Comm_free(&node->comm_);
  if (node->keyval_ != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&node->keyval_);
  return MPI_SUCCESS;
}

std::vector<std::array<double, 2>> NodeComm::allgather(std::array<double, 2> mine) const {
  std::vector<std::array<double, 2>> all(size_);
  HERALD_MPI(MPI_Allgather(mine.data(), 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, comm_));
  return all;
}

}  // namespace herald::balance
