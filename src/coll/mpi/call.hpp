// A broadcast call in two halves, for callers with checks of their own between them (the typed C API and
// the PMPI library): reserve() takes the call's place in its communicator's sequence, then bcast()/ibcast()
// validate the rest and run it. Taking the place first, on every rank, keeps the sequence in step even when
// a check fails on some ranks only. Also what a broadcast in flight is to its Request (Request::State): the
// executor (executor.cpp) makes them, the public API (api.cpp) drives them.
#pragma once

#include "context.hpp"

#include <herald/bcast.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace herald {

// A broadcast in flight. Both calls run under the context's lock; wait() only in single-threaded processes.
class Request::State {
 public:
  virtual ~State() = default;
  virtual bool test() = 0;
  virtual void wait() = 0;
  // The program is about to leave herald with this broadcast in flight, perhaps for a blocking MPI call
  // herald does not see: post every send whose bytes have arrived, window or not, so that this rank never
  // holds back data a peer may wait for meanwhile (as the MPI's own nonblocking broadcast, progressed inside
  // any MPI call, would not).
  virtual void leave() {}
};

}  // namespace herald

namespace herald::mpi {

struct Slot {
  std::shared_ptr<CommState> state;
  int tag = 0;
  std::uint32_t call = 0;  // the call's number on its communicator (CommState::calls())
};

// Throws for MPI_COMM_NULL, an intercommunicator or a malformed HERALD_* setting: the same on every rank.
Slot reserve(MPI_Comm comm);
// Posts every message this rank owes to the broadcasts in flight (Forwarders::finish_forwarding()).
void finish_forwarding();
// True when herald already has its duplicate of `comm` (herald::attach()); local.
bool attached(MPI_Comm comm);
void bcast(const Slot& slot, std::span<std::byte> buffer, int root, const Options& options);
Request ibcast(const Slot& slot, std::span<std::byte> buffer, int root, const Options& options);
// This rank refused a call of `bytes` bytes for `refusal`, a reason found on this rank only (after
// reserve()): it plays its part without data, so that no rank waits for it, then returns; the caller throws.
// `blocking`: the call was MPI_Bcast's kind, which HERALD_AUTO_LEARN counts, not MPI_Ibcast's.
void refused(const Slot& slot, std::size_t bytes, int root, const Options& options, const Error& refusal,
             bool blocking);
// The algorithm a call of `bytes` bytes from `root` with `options` runs on `state`'s communicator, decided as
// the call decides ("native": MPI's own); throws where the call would refuse.
Resolved resolve(const std::shared_ptr<CommState>& state, std::size_t bytes, int root, const Options& options);

}  // namespace herald::mpi
