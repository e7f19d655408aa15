// MPI datatypes on top of herald's byte broadcasts, shared by the C API and the PMPI library.
#pragma once

#include <herald/error.hpp>

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

namespace herald::mpi {

// The bytes a typed broadcast moves. Contiguous datatypes are used in place (from the true lower bound);
// others are packed at the root into `staging` and unpacked at the other ranks by finish().
class TypedBuffer {
 public:
  // Validates the arguments (throws herald::Error) and packs at the root when needed.
  TypedBuffer(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
  std::span<std::byte> bytes() noexcept { return bytes_; }
  // After the broadcast: unpacks at non-root ranks.
  void finish();

 private:
  void* buffer_;
  int count_;
  MPI_Datatype type_;
  MPI_Comm comm_;
  bool unpack_ = false;
  std::vector<std::byte> staging_;
  std::span<std::byte> bytes_;
};

// Hands a herald::Error to the communicator's error handler as an MPI call would, and returns the MPI
// error class. Under MPI_ERRORS_ARE_FATAL herald's message is printed first, since the abort would hide it.
int report(MPI_Comm comm, const Error& error);

}  // namespace herald::mpi
