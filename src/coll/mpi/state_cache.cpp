#include "state_cache.hpp"

#include <algorithm>

namespace herald::mpi {
namespace {

// The attribute's value: one reference to the state; broadcasts in flight hold others.
using StateHandle = std::shared_ptr<CommState>;

}  // namespace

void StateCache::open(MPI_Comm_delete_attr_function* forget) {
  HERALD_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, forget, &keyval_, nullptr));
}

std::shared_ptr<CommState> StateCache::attribute(MPI_Comm user) {
  void* value = nullptr;
  int found = 0;
  HERALD_MPI(MPI_Comm_get_attr(user, keyval_, &value, &found));
  return found ? *static_cast<StateHandle*>(value) : nullptr;
}

std::shared_ptr<CommState> StateCache::make(MPI_Comm user, const std::function<void()>& poll) {
  auto handle = std::make_unique<StateHandle>(std::make_shared<CommState>(user));
  while (!(*handle)->ready()) poll();
  // Node memory is made here too, where every member is: any later call, blocking or not, may use it.
  (*handle)->open_node_memory([&](MPI_Request& request) {
    for (int done = 0;;) {
      HERALD_MPI(PMPI_Test(&request, &done, MPI_STATUS_IGNORE));
      if (done) return;
      poll();
    }
  });
  HERALD_MPI(MPI_Comm_set_attr(user, keyval_, handle.get()));
  users_.push_back(user);
  last_comm_ = user;
  last_state_ = *handle;
  return *handle.release();  // the attribute owns the handle from here on
}

void StateCache::forget(MPI_Comm user, void* attribute) noexcept {
  std::erase(users_, user);
  if (user == last_comm_) {  // a later communicator may reuse the handle
    last_comm_ = MPI_COMM_NULL;
    last_state_.reset();
  }
  delete static_cast<StateHandle*>(attribute);
}

void StateCache::release_all() {
#ifdef SMPI_H
  // SimGrid's SMPI fails MPI_Comm_delete_attr once MPI_Finalize has begun; the simulation ends there anyway.
  users_.clear();
#endif
  while (!users_.empty()) {
    const MPI_Comm user = users_.back();
    MPI_Comm_delete_attr(user, keyval_);  // runs forget(), which drops it from the list
    std::erase(users_, user);             // in case MPI refused
  }
  MPI_Comm_free_keyval(&keyval_);
}

}  // namespace herald::mpi
