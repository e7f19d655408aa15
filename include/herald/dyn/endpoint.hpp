// Dynamic broadcast and transparent receive.
//
//   herald::dyn::Endpoint dyn(MPI_COMM_WORLD);              // collective, like MPI_Comm_dup
//   if (rank == 0) dyn.send(data, recipients, tag).wait();  // only the origin knows the recipients
//   else dyn.recv(buffer, /*source=*/0, tag);               // cannot tell a broadcast from a point-to-point
//
// A dynamic broadcast goes from any rank to any set of other ranks, without the recipients knowing of it
// or of each other. The origin plans a tree from a coll schedule over the recipients and sends every
// message with the sub-tree its receiver must serve (source routing); each recipient forwards segment by
// segment, passing one segment on while the next arrives. A recipient receives with an ordinary `recv`
// naming the origin, exactly as it would a point-to-point message sent with `send_p2p`: the two are
// matched in the order the origin sent them, like MPI messages with one source and tag.
//
// Everything advances when the endpoint is polled: any call on the endpoint or a request does so, and
// `progress()` does nothing else. A rank that forwards a broadcast must keep polling (or run the optional
// progress thread) until the data has passed through it.
#pragma once

#include <herald/dyn/channel.hpp>
#include <herald/dyn/shape.hpp>
#include <herald/error.hpp>
#include <herald/simulator.hpp>

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace herald::dyn {

// Endpoint::irecv's wildcards: a message from any source, with any tag (as MPI_ANY_SOURCE and MPI_ANY_TAG).
inline constexpr int any_source = -1;
inline constexpr int any_tag = -1;

struct Options {
  // Poll from a thread of herald's own. Needs MPI_THREAD_MULTIPLE; unset: HERALD_DYN_PROGRESS_THREAD
  // (0/1), else off.
  std::optional<bool> progress_thread{};
  // The largest single MPI message (1..INT_MAX); longer payloads go in pieces. Unset: HERALD_MAX_MESSAGE_BYTES,
  // else INT_MAX.
  std::optional<std::size_t> max_piece{};
  // Outgoing messages on the wire at once; more wait in the send queue, the most urgent first.
  int max_in_flight = 64;
  // Bulk bytes (of messages of 64 KiB and more) a rank keeps on the wire to one rank at once; a bulk
  // message always leaves when none is. What waits for room stays in the send queue, where a more urgent
  // message overtakes it (docs/dyn.md, "One send queue"). Unset: HERALD_DYN_WINDOW (K/M/G suffixes; 0: no bound), else
  // 512 KiB. HERALD_DYN_TOTAL_WINDOW bounds all ranks together (unset or 0: no bound).
  std::optional<std::size_t> window{};
  // Segments up to this size travel inside their header's MPI message (one message instead of two).
  std::size_t max_inline = 8192;
  // Bytes of each pre-posted receive for message headers; must be the same on every rank. Larger headers
  // (long routes) travel separately, announced by a small one. Unset: HERALD_DYN_FRAME_SLOT, else 16 KiB.
  std::optional<std::size_t> frame_slot{};
  // The model `send` prices tree shapes with when no algorithm is named; unset: HERALD_ALPHA and
  // HERALD_BETA, as for the broadcast's "auto".
  std::optional<CostModel> cost_model{};
  // How forwarders move bytes, for that pricing (see Forwarding); unset: HERALD_DYN_FORWARDING (serial or
  // overlapped), else serial when every rank of the communicator is on one node, overlapped otherwise.
  std::optional<Forwarding> forwarding{};
};

struct SendOptions {
  // One per recipient, higher = served earlier; empty = all equal (then the recipients' order decides).
  std::span<const int> priorities{};
  // A tree-shaped algorithm from the table, or "auto" (the cheapest shape under the cost model); unset:
  // HERALD_DYN_ALGORITHM, else "auto".
  std::optional<std::string> algorithm{};
  // Bytes per segment with a named algorithm (positive); unset: HERALD_SEGMENT_SIZE, else the algorithm's
  // default (binomial: no segmenting).
  std::optional<std::size_t> segment{};
  // The caller's own tree: one entry per recipient, the index in `recipients` of the recipient it gets the
  // data from, or -1 for this rank; a rank serves its children in their order in `recipients`. The
  // algorithm then only sets the segment size. Empty: the algorithm's tree, recipients placed by priority.
  // A caller that knows what else loads the ranks' links (a task runtime) spreads the forwarding with it.
  std::span<const int> parents{};
};

struct Status {
  int source = -1;
  int tag = -1;
  std::size_t bytes = 0;
};

namespace detail {
struct Engine;
}

// A send or receive in flight. Move-only; it keeps the endpoint's engine alive, but once the endpoint is
// destroyed an unfinished request can only report an error. Dropping an unfinished request does not
// cancel the operation (a receive may never be matched, so nothing can wait for it): its buffer must stay
// valid until the endpoint is destroyed.
class Request {
 public:
  struct State;
  Request() noexcept;
  Request(Request&&) noexcept;
  Request& operator=(Request&&) noexcept;
  ~Request();

  // Advances the endpoint; true once complete. A failed operation (a message too long for the receive
  // buffer) throws its herald::Error here, once complete.
  bool test();
  // True once complete, without advancing the endpoint: for a caller holding many requests, which advances
  // the endpoint once (Endpoint::progress()) and then looks at each, where a test() of each would make a
  // polling pass per request. Throws as test() does.
  bool done();
  // For a receive: true once every byte is in the buffer, without advancing the endpoint. The bytes may
  // be read from then on; a forwarder's buffer may still be read by its forwards to its sub-tree until
  // done() (so it must not be written or freed before that). A receive that took the message from
  // herald's own copy is done at once. Throws as test() does.
  bool delivered();
  void wait();
  // For a completed receive: who sent it, with which tag, and how many bytes landed in the buffer.
  Status status() const;
  // True while the request has not been seen complete.
  bool active() const noexcept;

 private:
  friend class Endpoint;
  Request(std::shared_ptr<State> state, std::shared_ptr<detail::Engine> engine) noexcept;
  bool poll(bool* progressed = nullptr);
  std::shared_ptr<State> state_;
  std::shared_ptr<detail::Engine> engine_;
};

// What this rank's endpoint has done so far; exact counts, for tests and tuning.
struct Statistics {
  std::size_t received_in_place = 0;   // receives whose data landed straight in their buffer (small
                                       // segments are copied there from their header's message)
  std::size_t received_held = 0;       // receives served from data that arrived before them (one copy)
  std::size_t bytes_copied = 0;        // bytes those copies moved
  std::size_t segments_forwarded = 0;  // segments this rank passed on to its sub-tree
  std::size_t overtaken = 0;           // messages that arrived before an earlier one from their origin
};

class Endpoint {
 public:
  // Collective over `comm`: duplicates it. Throws Error(invalid_comm) for MPI_COMM_NULL and
  // Error(invalid_argument) when a progress thread is asked for without MPI_THREAD_MULTIPLE.
  explicit Endpoint(MPI_Comm comm, const Options& options = {});
  // On a channel that its owner also sends on (collective over the channel's communicator): broadcasts
  // and the owner's messages then leave through one send queue, the most urgent first. The channel's
  // options apply (its window, pieces, slots), no progress thread is allowed (the owner polls), and the
  // owner's handler ids stay below Channel::shared_channel_handler. The channel must outlive this
  // endpoint's use of it; the endpoint keeps it alive.
  Endpoint(std::shared_ptr<Channel> channel, const Options& options = {});
  // Collective: finishes forwarding what passed through this rank, then waits for the other ranks.
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  // Dynamic broadcast of `data` to `recipients` (ranks of the endpoint's communicator, any order).
  // Throws Error(invalid_argument) before anything is sent for a duplicate recipient, this rank among
  // them, a rank outside the communicator, a negative tag, priorities of the wrong length or an algorithm
  // that is not a tree. `data` must stay untouched until the request completes.
  Request send(std::span<const std::byte> data, std::span<const int> recipients, int tag,
               const SendOptions& options = {});

  // A point-to-point message to `dest`, received by the same `recv` as a broadcast.
  Request send_p2p(std::span<const std::byte> data, int dest, int tag, int priority = 0);

  // Receives one message from `source` (or any_source / MPI_ANY_SOURCE) with `tag` (or any_tag /
  // MPI_ANY_TAG), whether it comes point-to-point or by a dynamic broadcast. When the receive is posted
  // before the message arrives, the data lands in `buffer` directly; otherwise it was held and is copied.
  // The receive completes once the whole message is here and this rank has passed it on to its sub-tree,
  // so afterwards the rank owes the broadcast nothing; Request::delivered() says earlier that the bytes
  // are there to read. A shorter message is fine (status().bytes says how
  // long); a longer one completes the request with Error(truncated) and writes nothing into `buffer`.
  Request irecv(std::span<std::byte> buffer, int source, int tag);
  Status recv(std::span<std::byte> buffer, int source, int tag);

  // The message a receive with this source and tag would take now, if one has arrived.
  std::optional<Status> iprobe(int source, int tag);

  // One polling pass; true if anything happened.
  bool progress();

  // The tree shape and segment size `send` picks for this many recipients and bytes when no algorithm is
  // named, and how forwarders are taken to move bytes when it prices them.
  Shape shape(int recipients, std::size_t bytes);
  Forwarding forwarding() const noexcept;

  Statistics statistics();

  int rank() const noexcept;
  int size() const noexcept;
  bool has_progress_thread() const noexcept;

 private:
  std::shared_ptr<detail::Engine> engine_;
};

}  // namespace herald::dyn
