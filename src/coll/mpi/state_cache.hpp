// herald's states of the program's communicators (comm_state.hpp): each cached on its communicator as an MPI
// attribute, so that it goes away with the communicator, and the last one used checked first.
#pragma once

#include "comm_state.hpp"

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace herald::mpi {

class StateCache {
 public:
  // Makes the attribute key; `forget` runs when a communicator holding a state is freed (or at MPI_Finalize)
  // and calls forget() under the context's lock.
  void open(MPI_Comm_delete_attr_function* forget);

  // The state herald already has for `user`, else nullptr; never communicates.
  std::shared_ptr<CommState> existing(MPI_Comm user) {
    if (user == MPI_COMM_NULL) return nullptr;
    if (user == last_comm_) return last_state_;
    return attribute(user);
  }
  // existing(), remembered as the last used: most programs use one communicator.
  std::shared_ptr<CommState> use(MPI_Comm user) {
    if (std::shared_ptr<CommState> found = existing(user)) {
      last_comm_ = user;
      return last_state_ = std::move(found);
    }
    return nullptr;
  }
  // Makes the state of `user`, collectively (Context::state()), calling `poll` while it waits for the others;
  // caches and returns it.
  std::shared_ptr<CommState> make(MPI_Comm user, const std::function<void()>& poll);
  // `user`'s attribute is going: drops its reference (`attribute`) and whatever remembers `user`.
  void forget(MPI_Comm user, void* attribute) noexcept;
  // At MPI_Finalize: drops the states of the communicators the program never freed (MPI_COMM_WORLD, say),
  // and the key.
  void release_all();

  // Node rings this process may map at once: each is 1 MiB of /dev/shm per node, which a program making
  // many communicators would otherwise fill, to its MPI library's cost. Past it, broadcasts on new
  // communicators carry their steps within a node as messages.
  static constexpr int max_rings = 16;
  bool take_ring() noexcept { return rings_ < max_rings ? (++rings_, true) : false; }
  void give_ring() noexcept { --rings_; }

  // How many communicators of these members (a hash of their world ranks) had trace ids before: the same
  // on every member where they make communicators in the same order, as MPI asks.
  std::int64_t communicators_like(std::uint64_t members) { return same_members_[members]++; }

 private:
  std::shared_ptr<CommState> attribute(MPI_Comm user);

  int keyval_ = MPI_KEYVAL_INVALID;
  std::vector<MPI_Comm> users_;  // communicators holding herald state, freed at MPI_Finalize at the latest
  int rings_ = 0;  // node rings mapped (CommState::open_node_memory)
  // The last communicator asked for, checked before MPI's attribute look-up.
  MPI_Comm last_comm_ = MPI_COMM_NULL;
  std::shared_ptr<CommState> last_state_;
  std::unordered_map<std::uint64_t, std::int64_t> same_members_;
};

}  // namespace herald::mpi
