// The public API of herald's broadcasts (herald/bcast.hpp): the calls, their requests, and what "auto"
// would run. Each call takes its place on its communicator and runs through the executor (executor.cpp,
// call.hpp); a repeat of the last pass-through goes to MPI's own broadcast before any of that.
#include "call.hpp"

#include <herald/algorithms.hpp>
#include <herald/bcast.hpp>
#include <herald/coll_settings.hpp>
#include <herald/decision.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace herald {

Request::Request() noexcept = default;
Request::Request(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
Request::Request(Request&&) noexcept = default;
Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    abandon();
    state_ = std::move(other.state_);
  }
  return *this;
}
Request::~Request() { abandon(); }

// Waits for an unfinished broadcast (not after MPI_Finalize, when no MPI call is allowed) and drops it.
void Request::abandon() noexcept {
  if (!state_) return;
  if (!mpi::finalized()) {
    try {
      wait();
    } catch (...) {
    }
  }
  const auto lock = mpi::Context::get().lock();
  state_.reset();
}

bool Request::test() { return advance(true); }
bool Request::poll() { return advance(false); }

bool Request::advance(bool leaving) {
  if (!state_) return true;
  const auto lock = mpi::Context::get().lock();
  bool done = false;
  try {
    done = state_->test();
    if (!done && leaving) state_->leave();
  } catch (...) {
    state_.reset();
    throw;
  }
  if (done) state_.reset();
  return done;
}

void Request::wait() {
  if (!state_) return;
  mpi::Context& context = mpi::Context::get();
  try {
    if (context.multithreaded()) {
      // Poll, letting other threads in between: any of them may be the one whose forwarding this needs.
      for (;;) {
        {
          const auto lock = context.lock();
          if (state_->test()) break;
          context.forwarders().forward_all();
        }
        std::this_thread::yield();
      }
    } else {
      const auto lock = context.lock();
      state_->wait();
    }
  } catch (...) {
    const auto lock = context.lock();
    state_.reset();
    throw;
  }
  const auto lock = context.lock();
  state_.reset();
}

bool Request::active() const noexcept { return state_ != nullptr; }

// Below MPI_THREAD_MULTIPLE the lock is taken once here for both halves (they take it again, recursively, which
// costs little).
namespace {

// Everything but a repeated pass-through; apart, so that the short way saves no registers for it.
[[gnu::noinline]] void bcast_long_way(std::span<std::byte> buffer, int root, MPI_Comm comm, const Options& options) {
  // Under MPI_THREAD_MULTIPLE each half takes the lock on its own: both let it go while they poll.
  std::unique_lock<std::recursive_mutex> lock;
  if (!mpi::Context::get().multithreaded()) lock = mpi::Context::get().lock();
  mpi::bcast(mpi::reserve(comm), buffer, root, options);
}

}  // namespace

void bcast(std::span<std::byte> buffer, int root, MPI_Comm comm, const Options& options) {
  if (buffer.data() != nullptr) {
    if (const MPI_Comm native = mpi::Context::get().repeat_passthrough(comm, buffer.size(), root, options);
        native != MPI_COMM_NULL) {
      const int rc = PMPI_Bcast(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, root, native);
      if (rc != MPI_SUCCESS) mpi::check(rc, "MPI_Bcast");
      return;
    }
  }
  bcast_long_way(buffer, root, comm, options);
}

Request ibcast(std::span<std::byte> buffer, int root, MPI_Comm comm, const Options& options) {
  std::unique_lock<std::recursive_mutex> lock;
  if (!mpi::Context::get().multithreaded()) lock = mpi::Context::get().lock();  // as bcast_long_way()
  return mpi::ibcast(mpi::reserve(comm), buffer, root, options);
}

void attach(MPI_Comm comm) {
  mpi::Context& context = mpi::Context::get();
  const auto lock = context.lock();
  context.state(comm);
}

NodeLayout node_layout(MPI_Comm comm) {
  mpi::Context& context = mpi::Context::get();
  const auto lock = context.lock();
  return context.state(comm)->layout();
}

Resolved resolve(MPI_Comm comm, const Options& options, std::size_t bytes, int root) {
  mpi::Context& context = mpi::Context::get();
  const auto lock = context.lock();
  context.check_settings();
  std::shared_ptr<mpi::CommState> state = context.state(comm);
  if (state->size() == 1 || bytes == 0) return {resolve_algorithm(options, state->size(), bytes)};
  return mpi::resolve(state, bytes, root, options);  // the same decision as a call's
}

std::string resolve_algorithm(MPI_Comm comm, const Options& options, std::size_t bytes, int root) {
  return resolve(comm, options, bytes, root).algorithm;
}

std::string resolve_algorithm(const Options& options, int ranks, std::size_t bytes) {
  mpi::Context& context = mpi::Context::get();
  const auto lock = context.lock();
  context.check_settings();
  bool native = false;
  if (const AlgorithmInfo* named = context.settings().algorithm(options.algorithm, native))
    return std::string(named->name);
  if (native) return "native";
  AutoQuestion question;
  question.problem = {.ranks = ranks, .root = 0, .bytes = bytes,
                      .parameters = merge(options.parameters, context.settings().parameters())};
  question.model = context.tuning().cost_model();
  question.cell = context.tuning().measured(ranks, bytes);
  question.native_below = context.settings().native_below();
  const Decision d = decide(question);
  return d.native ? "native" : std::string(d.choice.algorithm->name);
}

}  // namespace herald
