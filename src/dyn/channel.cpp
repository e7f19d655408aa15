#include <herald/dyn/channel.hpp>

#include "../core/mpi/check.hpp"

#include "send_queue.hpp"
#include "wire.hpp"

#include <herald/algorithms.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace herald::dyn {
namespace {

// Tags on herald's own communicator; nothing else is ever sent on it.
constexpr int frame_tag = 1;
constexpr int payload_tag = 2;
constexpr int long_frame_tag = 3;
// A slot must hold at least a stub frame; everything longer can take the stub path.
constexpr std::size_t min_slot_bytes = 64;
// Frames handled per progress() call, so a flood of arrivals cannot starve completions.
constexpr int frames_per_pass = 64;
// Finished transfers and their frame buffers are kept for reuse, so a steady stream of small messages
// allocates nothing; at most this many of each, and frames only up to a size worth keeping.
constexpr std::size_t spare_limit = 64;
constexpr std::size_t max_spare_frame_bytes = 64 * 1024;

}  // namespace

Channel::Options Channel::Options::from_environment() {
  Options o;
  if (const auto text = environment("HERALD_MAX_MESSAGE_BYTES")) {
    const std::size_t value = parse_bytes(*text, "HERALD_MAX_MESSAGE_BYTES");
    if (value < 1 || value > max_message_bytes)
      throw Error(Errc::invalid_argument, "HERALD_MAX_MESSAGE_BYTES '" + *text + "' must be in 1.." +
                                              std::to_string(max_message_bytes));
    o.max_piece = value;
  }
  if (const auto text = environment("HERALD_DYN_FRAME_SLOT")) o.slot_bytes = parse_bytes(*text, "HERALD_DYN_FRAME_SLOT");
  if (const auto text = environment("HERALD_DYN_WINDOW")) o.window = parse_bytes(*text, "HERALD_DYN_WINDOW");
  if (const auto text = environment("HERALD_DYN_WINDOW_PIECES"))
    o.window_pieces = static_cast<std::size_t>(parse_count(*text, "HERALD_DYN_WINDOW_PIECES"));
  if (const auto text = environment("HERALD_DYN_TOTAL_WINDOW"))
    o.total_window = parse_bytes(*text, "HERALD_DYN_TOTAL_WINDOW");
  return o;
}

struct Channel::Queue : SendQueue<Queued> {
  using SendQueue<Queued>::SendQueue;
};

bool Channel::single_frame(std::size_t body, std::size_t payload) const noexcept {
  return payload <= options_.max_inline && frame_bytes + body + payload <= options_.slot_bytes;
}

bool Channel::quiet() const noexcept { return queue_->empty() && requests_.empty(); }

Channel::Channel(MPI_Comm parent, const Options& options) : options_(options) {
  if (options_.max_piece == 0 || options_.max_piece > max_message_bytes)
    throw Error(Errc::invalid_argument, "a largest message of " + std::to_string(options_.max_piece) +
                                            " bytes; it must be in 1.." + std::to_string(max_message_bytes));
  if (options_.max_in_flight < 1) options_.max_in_flight = 1;
  options_.max_inline = std::min(options_.max_inline, options_.max_piece);
  if (options_.slot_bytes < min_slot_bytes || options_.slot_bytes > max_message_bytes)
    throw Error(Errc::invalid_argument, "a frame slot of " + std::to_string(options_.slot_bytes) +
                                            " bytes; it must be in " + std::to_string(min_slot_bytes) + ".." +
                                            std::to_string(max_message_bytes));
  comm_ = std::make_unique<mpi::Communicator>(parent);
  raw_ = comm_->get();
  rank_ = comm_->rank();
  size_ = comm_->size();
  // Each destination a link of its own: a receiver slow to post its receive holds back only its own data.
  std::vector<int> link(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) link[static_cast<std::size_t>(r)] = r;
  queue_ = std::make_unique<Queue>(std::move(link),
                                   SendQueue<Queued>::Options{.window = options_.window, .total = options_.total_window, .pieces = options_.window_pieces,
                              .patience = options_.patience});
  slots_.resize(options_.slot_bytes * slot_count);
  slot_requests_.assign(slot_count, MPI_REQUEST_NULL);
  for (int i = 0; i < slot_count; ++i) {
    HERALD_MPI(MPI_Recv_init(slots_.data() + options_.slot_bytes * i, static_cast<int>(options_.slot_bytes), MPI_BYTE, MPI_ANY_SOURCE,
                             frame_tag, raw_, &slot_requests_[i]));
    HERALD_MPI(MPI_Start(&slot_requests_[i]));
  }
}

Channel::~Channel() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // Every peer has stopped sending (the endpoint closes with a barrier), so the slots are still open once
  // the handled ones are posted again.
  rearm();
#ifdef SMPI_H
  // SimGrid's SMPI (3.32) can abort on the wait for a cancelled persistent receive; a simulated rank's
  // memory goes with the simulation, so the slots are simply left.
  return;
#endif
  for (MPI_Request& request : slot_requests_) {
    if (request == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Request_free(&request);
  }
}

void Channel::on(HandlerId id, Handler handler) {
  if (id == long_frame) throw Error(Errc::invalid_argument, "active-message handler id 65535 is reserved");
  if (handlers_.size() <= id) handlers_.resize(std::size_t{id} + 1);
  handlers_[id] = std::move(handler);
}

void Channel::put_frame(std::vector<std::byte>& out, HandlerId id, std::uint64_t payload,
                        std::span<const std::byte> body, std::span<const std::byte> carried) {
  out.resize(frame_bytes + body.size() + carried.size());  // a spare buffer mostly has about this size already
  write_frame(out, id, payload, body, carried);
}

void Channel::post(int dest, HandlerId id, std::span<const std::byte> body, std::span<const std::byte> payload,
                   int priority, Done sent) {
  Queued item{spare_frame(), {}, {}, std::move(sent)};
  std::size_t bulk = 0;
  if (!payload.empty() && single_frame(body.size(), payload.size())) {
    put_frame(item.frame, id, 0, body, payload);
  } else {
    put_frame(item.frame, id, payload.size(), body, {});
    if (item.frame.size() > options_.slot_bytes) {
      item.long_frame = std::move(item.frame);
      item.frame = spare_frame();
      put_frame(item.frame, long_frame, item.long_frame.size(), {}, {});
    }
    item.payload = payload;
  }
  if (payload.size() >= bulk_bytes) bulk = payload.size();
  queue_->push(dest, priority, bulk, std::move(item));
}

bool Channel::send(int dest, HandlerId id, std::span<const std::byte> body, std::span<const std::byte> payload,
                   int priority, std::shared_ptr<bool> sent) {
  if (!queue_->empty() || in_flight_ >= options_.max_in_flight || !single_frame(body.size(), payload.size())) {
    post(dest, id, body, payload, priority, [sent = std::move(sent)] { *sent = true; });
    flush();
    return false;
  }
  put_frame(quick_, id, 0, body, payload);  // the same bytes post() would queue for this message
  MPI_Request request;
  HERALD_MPI(MPI_Isend(quick_.data(), static_cast<int>(quick_.size()), MPI_BYTE, dest, frame_tag, raw_,
                       &request));
  int done = 0;
  HERALD_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
  if (done) return true;
  auto transfer = spare_transfer();
  transfer->outgoing = true;
  transfer->frame = std::move(quick_);  // MPI still reads it; a spare buffer takes its place
  transfer->sent = std::move(sent);
  track(request, transfer);
  quick_ = spare_frame();
  ++in_flight_;
  return false;
}

std::vector<std::byte> Channel::spare_frame() {
  if (spare_frames_.empty()) return {};
  std::vector<std::byte> frame = std::move(spare_frames_.back());
  spare_frames_.pop_back();
  return frame;
}

std::shared_ptr<Channel::Transfer> Channel::spare_transfer() {
  if (spare_transfers_.empty()) return std::make_shared<Transfer>();
  std::shared_ptr<Transfer> transfer = std::move(spare_transfers_.back());
  spare_transfers_.pop_back();
  return transfer;
}

void Channel::recycle(std::shared_ptr<Transfer> transfer) {
  // Only a transfer nobody else holds, and only a bounded stock: a burst must not pin its memory forever.
  if (transfer.use_count() != 1 || spare_transfers_.size() >= spare_limit) return;
  for (std::vector<std::byte>* frame : {&transfer->frame, &transfer->long_frame}) {
    if (frame->capacity() > 0 && frame->capacity() <= max_spare_frame_bytes && spare_frames_.size() < spare_limit) {
      spare_frames_.push_back(std::move(*frame));  // bytes and all: see spare_frame()
    }
  }
  *transfer = Transfer{};  // frees what was not kept
  spare_transfers_.push_back(std::move(transfer));
}

bool Channel::take_carried(std::span<std::byte> into) {
  if (current_.source < 0 || current_.claimed)
    throw Error(Errc::invalid_argument, "receive_payload outside a handler, or twice for one message");
  if (into.size() != current_.payload)
    throw Error(Errc::invalid_argument, "payload of " + std::to_string(current_.payload) + " bytes claimed with a " +
                                            std::to_string(into.size()) + "-byte buffer");
  if (!into.empty() && current_.carried.empty()) return false;  // it follows in messages of its own
  current_.claimed = true;
  if (!into.empty()) std::memcpy(into.data(), current_.carried.data(), into.size());
  return true;
}

void Channel::receive_later(std::span<std::byte> into, Done arrived) {
  current_.claimed = true;
  auto transfer = spare_transfer();
  transfer->done = std::move(arrived);
  // Posted now, before the next frame from this source is looked at: that is what pairs them.
  for (std::size_t at = 0; at < into.size(); at += options_.max_piece) {
    const int count = static_cast<int>(std::min(options_.max_piece, into.size() - at));
    MPI_Request request;
    HERALD_MPI(MPI_Irecv(into.data() + at, count, MPI_BYTE, current_.source, payload_tag, raw_, &request));
    track(request, transfer);
  }
}

void Channel::track(MPI_Request request, const std::shared_ptr<Transfer>& transfer) {
  ++transfer->pending;
  requests_.push_back(request);
  owners_.push_back(transfer);
}

void Channel::send_payload(int dest, std::span<const std::byte> payload, const std::shared_ptr<Transfer>& transfer) {
  // Right behind its frame: the receiver pairs a source's payloads with its frames in order.
  for (std::size_t at = 0; at < payload.size(); at += options_.max_piece) {
    const std::size_t bytes = std::min(options_.max_piece, payload.size() - at);
    MPI_Request request;
    HERALD_MPI(MPI_Isend(payload.data() + at, static_cast<int>(bytes), MPI_BYTE, dest, payload_tag, raw_, &request));
    track(request, transfer);
  }
}

void Channel::rearm() {
  // The unarmed slots are the ones just before next_slot_ in the ring, handled in ring order: posting
  // them in that order keeps the posting order the ring order.
  for (; unarmed_ > 0; --unarmed_)
    HERALD_MPI(MPI_Start(&slot_requests_[(next_slot_ + slot_count - unarmed_) % slot_count]));
}

bool Channel::handle_frames(const bool* finished) {
  bool any = false;
  // Stops once the caller's own request is done: its wait returns at once instead of testing another slot.
  for (int i = 0; i < frames_per_pass && !(finished && *finished); ++i) {
    if (unarmed_ >= slot_count / 2) rearm();
    MPI_Request& request = slot_requests_[next_slot_];
    int flag = 0;
    MPI_Status status;
    HERALD_MPI(MPI_Test(&request, &flag, &status));
    if (!flag) break;
    any = true;
    int count = 0;
    HERALD_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
    const std::span<const std::byte> bytes{slots_.data() + options_.slot_bytes * next_slot_, static_cast<std::size_t>(count)};
    // Once handled (or refused), the slot's bytes are no longer read: it is posted again, last in the ring,
    // by a later rearm(): after a pass that found nothing to do, or once half the ring waits. Not at once:
    // that keeps MPI_Start off the path from a frame's arrival to the receive it serves, to the forwarding
    // of its data, and to the next frame. MPI still matches the frames of every sender in order, since
    // slots are posted again in the order they were handled, and a frame that comes while no slot is
    // posted waits in MPI until one is.
    ++unarmed_;
    next_slot_ = (next_slot_ + 1) % slot_count;
    handle(status.MPI_SOURCE, bytes);
    // What the handler queued (a forwarder's sends to its children) leaves before the next slot is tested.
    if (!queue_->empty()) start_sends();
  }
  return any;
}

void Channel::handle(int source, std::span<const std::byte> bytes) {
  Frame frame = decode_frame(bytes);
  if (frame.handler == long_frame) {
    if (frame.inline_payload || frame.payload > max_message_bytes)
      throw Error(Errc::invalid_argument, "malformed long-frame stub from rank " + std::to_string(source));
    // The sender put the frame on the wire together with its stub, so this receive waits only for the
    // transfer itself; frames from this source after the stub are not looked at before it is handled.
    inbox_.resize(static_cast<std::size_t>(frame.payload));
    HERALD_MPI(MPI_Recv(inbox_.data(), static_cast<int>(inbox_.size()), MPI_BYTE, source, long_frame_tag, raw_,
                        MPI_STATUS_IGNORE));
    frame = decode_frame(inbox_);
    if (frame.handler == long_frame)
      throw Error(Errc::invalid_argument, "long frame from rank " + std::to_string(source) + " is itself a stub");
  }
  if (frame.handler >= handlers_.size() || !handlers_[frame.handler])
    throw Error(Errc::invalid_argument, "active message from rank " + std::to_string(source) +
                                            " for unregistered handler " + std::to_string(frame.handler));
  current_ = {source, static_cast<std::size_t>(frame.payload), frame.carried, false};
  struct Reset {
    Current& c;
    ~Reset() { c = {}; }
  } reset{current_};
  handlers_[frame.handler]({source, frame.body, current_.payload});
  if (!current_.claimed)
    throw Error(Errc::invalid_argument, "handler " + std::to_string(frame.handler) + " left a " +
                                            std::to_string(current_.payload) + "-byte payload unclaimed");
}

bool Channel::complete_transfers() {
  // What the previous call finished is recycled now rather than right after its callbacks: that keeps the
  // bookkeeping off the path from a completion to the caller waiting for it.
  for (auto& transfer : finished_) recycle(std::move(transfer));
  finished_.clear();
  if (requests_.empty()) return false;
  indices_.resize(requests_.size());
  int done = 0;
  if (requests_.size() == 1) {
    // A lone request (a waiting send, say) goes through MPI_Test, which looks again once it has made
    // progress; MPI_Testsome may not (Open MPI's does not), and would see the completion a pass later.
    indices_[0] = 0;
    HERALD_MPI(MPI_Test(&requests_[0], &done, MPI_STATUS_IGNORE));
  } else {
    HERALD_MPI(MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &done, indices_.data(),
                            MPI_STATUSES_IGNORE));
  }
  if (done == MPI_UNDEFINED || done == 0) return false;

  for (int k = 0; k < done; ++k) {
    auto& owner = owners_[indices_[k]];
    if (--owner->pending == 0) finished_.push_back(owner);
  }
  // Drop the completed requests (MPI set them to MPI_REQUEST_NULL), keeping the order of the others.
  std::size_t keep = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;
    requests_[keep] = requests_[i];
    owners_[keep] = std::move(owners_[i]);
    ++keep;
  }
  requests_.resize(keep);
  owners_.resize(keep);
  for (auto& transfer : finished_) {
    if (transfer->outgoing) --in_flight_;
    if (transfer->paced_bytes > 0) queue_->landed(transfer->paced_dest, transfer->paced_bytes);
  }
  if (!queue_->empty()) start_sends();  // what waited for room on those links leaves now
  // Callbacks last: they may post new messages, which only touches the queue.
  for (auto& transfer : finished_) {
    if (transfer->done) transfer->done();
    if (transfer->sent) *transfer->sent = true;
  }
  return true;
}

bool Channel::start_sends() {
  bool any = false;
  while (in_flight_ < options_.max_in_flight) {
    auto departure = queue_->pop();
    if (!departure) break;
    Queued& item = departure->item;
    auto transfer = spare_transfer();
    transfer->outgoing = true;
    transfer->frame = std::move(item.frame);
    transfer->long_frame = std::move(item.long_frame);
    transfer->done = std::move(item.sent);
    MPI_Request request;
    if (!transfer->long_frame.empty()) {
      // Before its stub, so the receiver finds it posted when the stub arrives.
      HERALD_MPI(MPI_Isend(transfer->long_frame.data(), static_cast<int>(transfer->long_frame.size()), MPI_BYTE,
                           departure->dest, long_frame_tag, raw_, &request));
      track(request, transfer);
    }
    HERALD_MPI(MPI_Isend(transfer->frame.data(), static_cast<int>(transfer->frame.size()), MPI_BYTE, departure->dest,
                         frame_tag, raw_, &request));
    track(request, transfer);
    send_payload(departure->dest, item.payload, transfer);
    transfer->paced_dest = departure->dest;
    transfer->paced_bytes = departure->bulk;
    ++in_flight_;
    any = true;
  }
  return any;
}

bool Channel::progress(const bool* finished) {
  // Called from inside a handler (an endpoint sharing this channel, posting a receive while its owner
  // handles a frame): the frame being handled is not done with, so only queued sends start.
  if (current_.source >= 0) return !queue_->empty() && start_sends();
  // Most passes find nothing queued: that is checked inline, before any call.
  bool any = !queue_->empty() && start_sends();
  any |= complete_transfers();
  // A caller whose request has just completed skips the frame slots (or the rest of them, when a frame
  // completed it): with mpi_yield_when_idle (or an MPI that always yields) an idle test of them would hand
  // the core away first, which costs tens of microseconds when ranks outnumber cores.
  any |= handle_frames(finished);
  if (!queue_->empty()) any |= start_sends();  // forwards the completions above queued leave now, not later
  // Last, once everything urgent has left: handled slots are posted again while there is nothing to do.
  if (!any) rearm();
  return any;
}

}  // namespace herald::dyn
