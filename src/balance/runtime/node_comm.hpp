// The processes sharing this node: a communicator split from MPI_COMM_WORLD by shared memory.
#pragma once

#include <mpi.h>

#include <array>
#include <vector>

namespace herald::balance {

// True between MPI_Init and MPI_Finalize.
bool mpi_running();

// Owns the node-local communicator. MPI_Finalize frees it (through an attribute on MPI_COMM_SELF, whose
// attributes MPI deletes first), so it never outlives MPI; the destructor frees it if MPI still runs.
// Neither copied nor moved: MPI holds its address.
class NodeComm {
 public:
  NodeComm();  // collective over MPI_COMM_WORLD; throws Error(mpi) on failure
  ~NodeComm();
  NodeComm(const NodeComm&) = delete;
  NodeComm& operator=(const NodeComm&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool usable() const { return comm_ != MPI_COMM_NULL; }

  // Every process's (busy seconds, threads), in node rank order.
  std::vector<std::array<double, 2>> allgather(std::array<double, 2> mine) const;

 private:
  static int release(MPI_Comm, int, void* self, void*);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int keyval_ = MPI_KEYVAL_INVALID;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace herald::balance
