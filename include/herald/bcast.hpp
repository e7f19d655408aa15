// herald's C++ broadcast API over MPI.
//
//   herald::bcast(std::as_writable_bytes(std::span(data)), root, MPI_COMM_WORLD);
//   auto request = herald::ibcast(bytes, root, comm, {.algorithm = "scatter_ring_tuned"});
//   ...; request.wait();
//
// herald never sends on the caller's communicator: each call runs on a duplicate cached on it, with a tag
// taken from a per-communicator sequence number, so overlapping ibcasts never cross. As with MPI_Bcast,
// every rank of `comm` must call with the same root, byte count and options, in the same order. Calls on
// distinct communicators may come from several threads at once under MPI_THREAD_MULTIPLE.
//
// The duplicate is made by herald's first call on a communicator (or by attach()), and that call is
// collective: it returns once every rank of the communicator has made it, even when it is ibcast. Only then
// is the duplicate complete, so no collective the program starts on the communicator afterwards can be
// interleaved with MPI's own messages for it. Every later ibcast on the communicator is local.
#pragma once

#include <herald/error.hpp>
#include <herald/schedule.hpp>

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace herald {

struct Options {
  // A name from the algorithm table, "native" (the installed MPI_Bcast) or "auto" (chosen by the cost
  // model). Unset: HERALD_ALGORITHM, else "auto".
  std::optional<std::string_view> algorithm{};
  // Unset fields fall back to HERALD_SEGMENT_SIZE / HERALD_CHAIN_FANOUT / HERALD_KNOMIAL_RADIX /
  // HERALD_LEADER_STAGE / HERALD_RANKS_PER_NODE, then to the algorithm's defaults.
  Parameters parameters{};
  // ibcast only: the caller advances the request with Request::poll() on every pass of a polling loop.
  // Its sends then stay under the send window from the start (a pipeline's segments leave as the ones
  // before them arrive, as on a network that shares links they must); otherwise ibcast and test() hand MPI
  // every send whose data is here, so the broadcast moves on while the caller does something else.
  bool polled = false;
};

// Broadcasts `buffer` from `root` to every rank of `comm`. Throws herald::Error before any byte moves on
// bad input (MPI_COMM_NULL, invalid root, unknown algorithm or parameter), and Errc::truncated where a rank
// receives more or fewer bytes than its own count (the ranks passed different counts).
void bcast(std::span<std::byte> buffer, int root, MPI_Comm comm, const Options& options = {});

// A broadcast in flight. Move-only; destroying an unfinished request waits for it.
class Request {
 public:
  class State;
  Request() noexcept;
  explicit Request(std::unique_ptr<State> state) noexcept;
  Request(Request&&) noexcept;
  Request& operator=(Request&&) noexcept;
  ~Request();

  // Advances the broadcast; true once this rank's part is complete (the buffer holds the data and may be
  // reused).
  bool test();
  // As test(), for a caller that polls again soon (Options::polled): sends stay under the send window.
  // Before a blocking call that another rank of the broadcast may wait in, call test() once instead.
  bool poll();
  // Blocks until complete.
  void wait();
  // True while the request has work left.
  bool active() const noexcept;

 private:
  void abandon() noexcept;
  bool advance(bool leaving);  // test() (leaving: every send whose data is here goes to MPI) or poll()
  std::unique_ptr<State> state_;
};

// Starts a broadcast and returns at once (the first herald call on `comm` waits for the other ranks, see
// above). The buffer must stay untouched until the request completes.
Request ibcast(std::span<std::byte> buffer, int root, MPI_Comm comm, const Options& options = {});

// Makes herald's duplicate of `comm` now, if it has none: collective over `comm`, returns once every rank has
// called it. Call it where every rank may wait for the others (after creating the communicator, say) so that
// the first ibcast on it is local too. Throws for MPI_COMM_NULL and intercommunicators.
void attach(MPI_Comm comm);

// Which ranks of `comm` share a node, as herald found them from the host names when it attached (collective
// on first use, as attach()). The node-aware algorithms use it unless HERALD_RANKS_PER_NODE overrides it.
NodeLayout node_layout(MPI_Comm comm);

// The algorithm a broadcast of `bytes` from `root` on `comm` with these options runs ("auto" resolved),
// decided as the call decides it, under the communicator's node layout; for logs and tests. Collective on
// first use of `comm`, as attach(). (The communicator comes first: where MPI_Comm is an int, as in MPICH,
// this overload and the next would otherwise be ambiguous.)
std::string resolve_algorithm(MPI_Comm comm, const Options& options, std::size_t bytes, int root = 0);
// The same with the parameters the broadcast runs with (its algorithm's defaults applied; empty for "native").
struct Resolved {
  std::string algorithm;
  Parameters parameters{};
};
Resolved resolve(MPI_Comm comm, const Options& options, std::size_t bytes, int root = 0);
// The same for `ranks` ranks of an unknown layout (one node).
std::string resolve_algorithm(const Options& options, int ranks, std::size_t bytes);

}  // namespace herald
