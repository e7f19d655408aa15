// herald's per-process state: the one Context, made at the first call, owns each part of it: the settings
// read once from HERALD_* variables (settings.hpp), what "auto" decides by (tuning_state.hpp), the states of
// the program's communicators (state_cache.hpp, comm_state.hpp), the broadcasts in flight that herald must
// forward (forwarders.hpp), the pass-through (passthrough.hpp), the open trace (tracing_hooks.hpp) and the
// error codes made for herald's messages (error_codes.hpp). The parts are held by value, not behind
// pointers: a part's field is as near as the context's own, so the pass-through's repeat, which tests fields
// of three parts, costs what it cost when they were the context's.
//
// Threads: every piece of state here is guarded by the context's one mutex, held only across non-blocking
// work. Under MPI_THREAD_MULTIPLE herald never blocks inside MPI at all (it polls, releasing the mutex between
// polls), so any thread inside herald keeps every broadcast in flight moving and no thread waits on another.
#pragma once

#include "../../core/mpi/check.hpp"
#include "comm_state.hpp"
#include "error_codes.hpp"
#include "forwarders.hpp"
#include "passthrough.hpp"
#include "settings.hpp"
#include "state_cache.hpp"
#include "tracing_hooks.hpp"
#include "tuning_state.hpp"

#include <herald/bcast.hpp>
#include <herald/tuning.hpp>

#include <cstddef>
#include <memory>
#include <mutex>

namespace herald::mpi {

class Context {
 public:
  // Constructed at the first call, after MPI_Init; never throws for a bad setting (check_settings()).
  static Context& get();
  // Guards everything below and every broadcast in flight. Never held across a blocking MPI call that
  // another thread's progress could be needed for.
  [[nodiscard]] std::unique_lock<std::recursive_mutex> lock() { return std::unique_lock(mutex_); }
  // MPI_THREAD_MULTIPLE was granted: herald polls instead of blocking (see above).
  bool multithreaded() const noexcept { return multithreaded_; }

  CollSettings& settings() noexcept { return settings_; }
  const CollSettings& settings() const noexcept { return settings_; }
  // Throws the error a malformed HERALD_* setting caused, at every call until the program fixes it.
  void check_settings() const { settings_.check(); }
  TuningState& tuning() noexcept { return tuning_; }
  const TuningState& tuning() const noexcept { return tuning_; }
  StateCache& states() noexcept { return states_; }
  Forwarders& forwarders() noexcept { return forwarders_; }
  Passthrough& passthrough() noexcept { return passthrough_; }
  TracingHooks& tracing() noexcept { return tracing_; }
  ErrorCodes& error_codes() noexcept { return error_codes_; }
  // A communicator of this process alone whose errors return: for local checks such as whether a datatype
  // is committed.
  MPI_Comm self() const noexcept { return self_.get(); }

  // Creates and caches on first use; refuses MPI_COMM_NULL and intercommunicators. Creating is collective
  // over the communicator and returns once every member has joined: call it only where every member makes
  // a blocking call on the communicator in the same place (its first herald call, or attach()). The other
  // broadcasts in flight keep moving meanwhile. The state lives as long as the communicator or the last
  // broadcast that uses it, whichever is longer.
  std::shared_ptr<CommState> state(MPI_Comm user);
  // The state if herald already has one for `user`, else nullptr; never communicates.
  std::shared_ptr<CommState> existing_state(MPI_Comm user) { return states_.existing(user); }

  // HERALD_VERBOSE=1: what "auto" runs and why (TuningState::explain()). Called on the communicator's rank
  // 0 only.
  void explain(const AutoQuestion& question, const Decision& decision) {
    if (settings_.verbose()) tuning_.explain(question, decision);
  }

  // An identical repeat of the pass-through's last call skips every check (passthrough.hpp), only where
  // calls are serialized (below MPI_THREAD_MULTIPLE), with no broadcast of herald's in flight (they would
  // need forwarding) and no trace open (it records every call).
  // Returns the private communicator to broadcast the bytes on, or MPI_COMM_NULL to take the long way.
  MPI_Comm repeat_passthrough(MPI_Comm user, std::size_t bytes, int root, const Options& options) noexcept {
    const Passthrough::Call& p = passthrough_.last();
    if (user != p.user || user == MPI_COMM_NULL || bytes != p.bytes || root != p.root || multithreaded_ ||
        forwarders_.forwarding() || tracing_.recorder() || options.parameters != p.parameters ||
        options.algorithm.has_value() != p.algorithm.has_value())
      return MPI_COMM_NULL;
    if (options.algorithm && *options.algorithm != std::string_view(*p.algorithm)) return MPI_COMM_NULL;
    p.state->next_tag();  // in step with ranks that took the long way, which drew a tag
    return p.state->comm();
  }
  // Called by a call that passed every check and went to MPI's broadcast as one message.
  void remember_passthrough(CommState& state, std::size_t bytes, int root, const Options& options) {
    if (!multithreaded_) passthrough_.remember(state, bytes, root, options);
  }
  // The size of `type` if it is the predefined, contiguous type last remembered, else 0.
  std::size_t plain_size(MPI_Datatype type) const noexcept {
    return type == passthrough_.plain_type() && !multithreaded_ ? passthrough_.plain_type_size() : 0;
  }
  void remember_plain(MPI_Datatype type, std::size_t size) noexcept {
    if (!multithreaded_) passthrough_.remember_plain(type, size);
  }

 private:
  Context();
  std::recursive_mutex mutex_;  // recursive: MPI may call back into herald (attribute deletion) under it
  bool multithreaded_ = false;
  // Before settings_, which reads the tuning file in its place among the settings.
  TuningState tuning_;
  CollSettings settings_{tuning_};
  ErrorCodes error_codes_;
  Communicator self_;
  StateCache states_;
  Forwarders forwarders_;
  Passthrough passthrough_;
  TracingHooks tracing_;
  int finalize_keyval_ = MPI_KEYVAL_INVALID;
  friend int forget_state(MPI_Comm, int, void*, void*);
  friend int release_all(MPI_Comm, int, void*, void*);
};

// True once MPI_Finalize has run: nothing may call MPI then, not even a destructor at exit.
bool finalized() noexcept;

}  // namespace herald::mpi
