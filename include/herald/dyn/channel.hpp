// Active messages on a communicator herald duplicated, advanced by polling: the layer the dynamic
// broadcast and the task runtime both run on, and open to programs that want one-sided, handler-driven
// messages of their own (examples in tests/dyn/channel_mpi_test.cpp; docs/dyn.md "The active-message channel").
//
// A message is a small frame (handler id, payload length, handler body) sent with one tag, followed by
// its payload in pieces of at most `max_piece` bytes sent with another tag; a payload of at most
// `max_inline` bytes rides inside the frame instead (one MPI message, one copy out of it, as MPI's own
// eager protocol does). MPI keeps messages between
// two ranks with one tag in order, so the receiver pairs the k-th payload from a rank with the k-th frame
// from it, provided it posts each payload receive while handling its frame, before the next frame from
// that rank. That lets a handler choose where the payload lands (the user's buffer when a receive is
// waiting) before any payload byte is read.
//
// Frames land in a ring of receive slots, each a persistent receive from any source posted in advance,
// so an arriving frame is matched and copied by MPI at once instead of being probed for. MPI matches
// receives in the order they were posted, so taking the slots in ring order (and re-posting each after
// its frame is handled) keeps every sender's frames in order. A frame longer than a slot travels with
// another tag and is announced by a stub frame (reserved handler `long_frame`) that does fit.
//
// Outgoing messages wait in one queue (docs/dyn.md, "One send queue"): the most urgent leaves first, frame and payload
// together, while at most `max_in_flight` are on the wire and its link has room for a bulk payload; so a
// forwarder passes urgent data first, across every broadcast and point-to-point message it sends. A
// channel is not thread-safe; its owner serialises calls.
#pragma once

#include <herald/dyn/bulk.hpp>
#include <herald/error.hpp>

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace herald::mpi {
class Communicator;
}

namespace herald::dyn {

class Channel {
 public:
  using HandlerId = std::uint16_t;
  using Done = std::function<void()>;
  struct Arrival {
    int source = 0;
    std::span<const std::byte> body;  // valid only during the handler call
    std::size_t payload = 0;          // bytes the handler must claim with receive_payload()
  };
  using Handler = std::function<void(const Arrival&)>;

  struct Options {
    std::size_t max_piece = INT_MAX;  // largest single MPI message (1..INT_MAX)
    int max_in_flight = 64;     // outgoing messages on the wire at once
    std::size_t max_inline = 8192;  // payloads up to this size ride inside their frame
    // Bytes of one receive slot, the same on every rank: by default an 8 KiB inline payload with its
    // header and a route of about 400 recipients; longer frames take the stub path.
    std::size_t slot_bytes = 16 * 1024;
    // Bulk payload bytes on the wire to one rank at once; a payload always leaves when none is. 0: no bound.
    std::size_t window = default_bulk_window;
    // ...and at most this many bulk pieces to one rank at once (0: no bound).
    std::size_t window_pieces = default_window_pieces;
    // ...and to all ranks together (this rank's link); a payload always leaves when none is. 0: no bound.
    std::size_t total_window = default_total_window;
    // Departures that may overtake a queued message before it goes first (docs/dyn.md). 0: none.
    std::size_t patience = default_patience;

    // The defaults, with what the environment sets: HERALD_MAX_MESSAGE_BYTES (max_piece),
    // HERALD_DYN_FRAME_SLOT (slot_bytes), HERALD_DYN_WINDOW (window), HERALD_DYN_WINDOW_PIECES
    // (window_pieces) and HERALD_DYN_TOTAL_WINDOW (total_window). Bad values throw herald::Error.
    static Options from_environment();
  };

  static constexpr int slot_count = 8;
  // The handler a dynamic-broadcast endpoint takes on a channel it shares with its owner (Endpoint's
  // second constructor): the owner's handlers are the ids below it.
  static constexpr HandlerId shared_channel_handler = 64;
  static constexpr HandlerId long_frame = 0xffff;  // reserved: "a frame of `payload` bytes follows"

  Channel(MPI_Comm parent, const Options& options);  // collective over `parent` (duplicates it)
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  void on(HandlerId id, Handler handler);

  // Queues a message; `payload` must stay valid until `sent` runs (inside a later progress()). Messages
  // to one rank with one priority leave in posting order, but a bulk one waiting for room may be
  // overtaken by a smaller one.
  void post(int dest, HandlerId id, std::span<const std::byte> body, std::span<const std::byte> payload,
            int priority, Done sent);

  // A buffer to encode a body into just before post() or send(), which copy the body: reused, so a body
  // costs no allocation. The loop's thread alone uses it, as it does the channel.
  std::vector<std::byte>& body_buffer() noexcept { return body_; }

  // Sends a message at once when nothing is queued (so it overtakes nothing: priorities keep their meaning,
  // and MPI keeps the order per destination), fewer than `max_in_flight` are on the wire and it is one
  // frame that fits a slot (payload inline, or none): encoded into a reused buffer, handed to MPI and
  // tested once. Returns true if MPI completed it right then (small eager messages usually are): nothing is
  // kept. Otherwise returns false; the message is tracked (or queued and put on the wire, as post() and
  // flush() do), and `*sent` becomes true once it has left. A flag rather than a callback, as it needs no
  // allocation: made with shared_ptr's aliasing constructor, it keeps its owner alive.
  bool send(int dest, HandlerId id, std::span<const std::byte> body, std::span<const std::byte> payload,
            int priority, std::shared_ptr<bool> sent);

  // Only inside a handler, for the message being handled: where its payload goes (exactly Arrival::payload
  // bytes) and what to do once it is all there. A payload that came inside the frame (or none) is copied
  // into `into` at once and `arrived` runs right away, never stored: a capture too large for
  // std::function's own room costs no allocation then.
  template <class Arrived>
  void receive_payload(std::span<std::byte> into, Arrived&& arrived) {
    if (take_carried(into)) {
      arrived();
    } else {
      receive_later(into, Done(std::forward<Arrived>(arrived)));
    }
  }

  // One polling pass: starts queued sends, completes finished transfers (running their callbacks) and
  // handles arrived frames, unless `*finished` (the caller's own request) has become true by then.
  // Returns true if anything happened. Inside a handler it only starts queued sends.
  bool progress(const bool* finished = nullptr);
  // Only the sending part of a pass: puts queued messages on the wire, up to `max_in_flight`.
  bool flush() { return start_sends(); }

  // Nothing queued, on the wire or being received.
  bool quiet() const noexcept;

  MPI_Comm comm() const noexcept { return raw_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

 private:
  // One logical transfer: a frame and its payload pieces, or the payload pieces of one arrival.
  struct Transfer {
    std::size_t pending = 0;        // MPI requests still open
    bool outgoing = false;
    std::vector<std::byte> frame;   // kept alive while the send is on the wire
    std::vector<std::byte> long_frame;  // the frame itself when `frame` is only its stub
    Done done;
    std::shared_ptr<bool> sent;     // raised once done, for send()
    int paced_dest = -1;            // an outgoing message's bytes under the queue's window, handed back
    std::size_t paced_bytes = 0;    // once the whole transfer is off the wire
  };
  struct Queued {
    std::vector<std::byte> frame;
    std::vector<std::byte> long_frame;
    std::span<const std::byte> payload;
    Done sent;
  };
  struct Current {  // the arrival whose handler is running
    int source = -1;
    std::size_t payload = 0;
    std::span<const std::byte> carried;  // the payload, when it came inside the frame
    bool claimed = false;
  };

  // One MPI message: the payload inline or none, and the frame fits a slot.
  bool single_frame(std::size_t body, std::size_t payload) const noexcept;
  // Writes a frame into `out`, sized to fit it exactly.
  static void put_frame(std::vector<std::byte>& out, HandlerId id, std::uint64_t payload,
                        std::span<const std::byte> body, std::span<const std::byte> carried);
  // For receive_payload(): copies a payload that came inside the frame (or none) and claims it; otherwise
  // claims nothing and returns false, and receive_later() posts the receives of its pieces.
  bool take_carried(std::span<std::byte> into);
  void receive_later(std::span<std::byte> into, Done arrived);
  bool handle_frames(const bool* finished);
  void rearm();  // posts the handled slots again
  void handle(int source, std::span<const std::byte> bytes);
  bool complete_transfers();
  bool start_sends();
  void track(MPI_Request request, const std::shared_ptr<Transfer>& transfer);
  // Puts a payload on the wire in pieces of at most max_piece, right behind its frame.
  void send_payload(int dest, std::span<const std::byte> payload, const std::shared_ptr<Transfer>& transfer);
  // A spare frame buffer (or a new one), at its old size, so that put_frame() resizing it for a frame of
  // about that size clears nothing.
  std::vector<std::byte> spare_frame();
  std::shared_ptr<Transfer> spare_transfer();
  void recycle(std::shared_ptr<Transfer> transfer);

  std::unique_ptr<mpi::Communicator> comm_;  // the duplicate this channel owns...
  MPI_Comm raw_ = MPI_COMM_NULL;               // ...and its handle
  int rank_ = 0;
  int size_ = 0;
  Options options_;
  std::vector<Handler> handlers_;
  // The outgoing queue (dyn's send queue, not installed): held by pointer so that its type stays inside dyn.
  struct Queue;
  std::unique_ptr<Queue> queue_;
  int in_flight_ = 0;
  std::vector<MPI_Request> requests_;                 // open MPI requests...
  std::vector<std::shared_ptr<Transfer>> owners_;     // ...and the transfer each belongs to
  Current current_;
  std::vector<std::byte> inbox_;                      // reused buffer for long frames
  std::vector<std::byte> slots_;                      // slot_count receive slots of slot_bytes each
  std::vector<MPI_Request> slot_requests_;            // their persistent receives, posted in ring order
  std::size_t next_slot_ = 0;                         // the slot the next frame lands in
  int unarmed_ = 0;                                   // slots handled, not yet posted again (see rearm())
  std::vector<int> indices_;                          // reused by complete_transfers()
  std::vector<std::shared_ptr<Transfer>> finished_;   // finished by the last complete_transfers(), to recycle
  std::vector<std::shared_ptr<Transfer>> spare_transfers_;  // finished, ready for reuse
  std::vector<std::vector<std::byte>> spare_frames_;        // finished frame buffers, kept for reuse
  std::vector<std::byte> quick_;                            // the frame of send(), reused
  std::vector<std::byte> body_;                             // body_buffer()
};

}  // namespace herald::dyn
