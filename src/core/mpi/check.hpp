// Checked MPI calls and RAII owners for what herald creates. Internal to the MPI layers.
#pragma once

#include <herald/error.hpp>

#include <mpi.h>

#include <utility>

namespace herald::mpi {

// Throws Error(mpi) naming the call and MPI's own words when rc is not MPI_SUCCESS.
void check(int rc, const char* call);

#define HERALD_MPI(call) ::herald::mpi::check((call), #call)

// A communicator herald duplicated and frees.
class Communicator {
 public:
  Communicator() = default;
  explicit Communicator(MPI_Comm parent);  // MPI_Comm_dup
  // MPI_Comm_idup into this (empty) object, usable once `pending` completes. MPI writes the handle at
  // completion, so the object must not move until then.
  void start_dup(MPI_Comm parent, MPI_Request& pending);
  ~Communicator();
  Communicator(Communicator&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}
  Communicator& operator=(Communicator&& other) noexcept {
    std::swap(comm_, other.comm_);
    return *this;
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  MPI_Comm get() const noexcept { return comm_; }
  int rank() const;
  int size() const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace herald::mpi
