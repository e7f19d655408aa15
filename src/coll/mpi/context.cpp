#include "context.hpp"

#include <herald/config.hpp>

#include <cstdio>
#include <exception>
#include <thread>

namespace herald::mpi {

bool finalized() noexcept {
  int done = 0;
  MPI_Finalized(&done);
  return done != 0;
}

// Runs when the user's communicator is freed (or at MPI_Finalize): drops the attribute's reference.
int forget_state(MPI_Comm user, int, void* attribute, void*) {
  Context& context = Context::get();
  const auto lock = context.lock();
  context.passthrough_.forget(user);
  context.states_.forget(user, attribute);
  return MPI_SUCCESS;
}

// Runs at the start of MPI_Finalize (attributes of MPI_COMM_SELF go first): frees the duplicates still
// cached on communicators the program never freed, such as MPI_COMM_WORLD, and the keyvals.
int release_all(MPI_Comm, int, void*, void*) {
  Context& context = Context::get();
  const auto lock = context.lock();
  // A trace still open ends here, where every process meets (MPI_Finalize is collective).
  if (std::unique_ptr<trace::OpenTrace> open = context.tracing_.close()) {
    try {
      open->finish();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "herald: the trace could not be written: %s\n", e.what());
    }
  }
  context.states_.release_all();
  // What the communicators learned, as a tuning file for the next run (every member agreed the same).
  if (const auto path = environment("HERALD_TUNING_LEARN"); path && !path->empty() && context.settings_.learn()) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
      try {
        context.tuning_.write_learned(*path);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "herald: %s\n", e.what());
      }
    }
  }
  MPI_Comm_free_keyval(&context.finalize_keyval_);
  return MPI_SUCCESS;
}

// Out of line: the one instance lives in libherald, whoever includes this header.
Context& Context::get() {
  static Context context;
  return context;
}

// The settings were read by settings_'s making, before any of this.
Context::Context() {
  int level = MPI_THREAD_SINGLE;
  HERALD_MPI(MPI_Query_thread(&level));
  multithreaded_ = level == MPI_THREAD_MULTIPLE;
  self_ = Communicator(MPI_COMM_SELF);
  HERALD_MPI(MPI_Comm_set_errhandler(self_.get(), MPI_ERRORS_RETURN));
  states_.open(forget_state);
  HERALD_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, release_all, &finalize_keyval_, nullptr));
  HERALD_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval_, nullptr));
}

std::shared_ptr<CommState> Context::state(MPI_Comm user) {
  if (user == MPI_COMM_NULL) throw Error(Errc::invalid_comm, "the communicator is MPI_COMM_NULL");
  if (std::shared_ptr<CommState> found = states_.use(user)) return found;
  // Every member is in this call: the duplication completes here, while this rank keeps forwarding what
  // its other broadcasts owe to ranks that may not have reached the call yet. Under MPI_THREAD_MULTIPLE the
  // lock is let go between polls (callers hold it once there): another thread may be making a state for
  // another communicator, which the peers of this one can reach only after it.
  return states_.make(user, [this] {
    forwarders_.forward_all();
    if (multithreaded_) {
      mutex_.unlock();
      std::this_thread::yield();
      mutex_.lock();
    }
  });
}

std::unique_lock<std::recursive_mutex> lock_context() { return Context::get().lock(); }

TracingHooks& tracing_hooks() { return Context::get().tracing(); }

std::uint64_t this_node() { return node_name(Context::get().settings().emulated_nodes()); }

}  // namespace herald::mpi
