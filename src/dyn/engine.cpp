#include "engine.hpp"

#include <herald/algorithms.hpp>
#include <herald/coll_settings.hpp>
#include <herald/config.hpp>
#include <herald/selector.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

namespace herald::dyn::detail {

static_assert(any_source == Matcher::any && any_tag == Matcher::any, "the endpoint's wildcards are the matcher's");
namespace {

// The endpoint's handler on its channel; a channel it shares (Endpoint's second constructor) keeps the ids
// below it for its owner's messages.
constexpr Channel::HandlerId message_handler = Channel::shared_channel_handler;
// Shapes priced per (group, bytes) are remembered; the table is emptied when it grows past this.
constexpr std::size_t max_remembered_shapes = 1024;
// Request states, and messages passing through, kept for reuse.
constexpr std::size_t state_pool = 32;
constexpr std::size_t incoming_pool = 64;
// A reused message keeps a buffer of held bytes up to this size: the pools hold at most 2 MiB of them.
constexpr std::size_t kept_held_bytes = 32 * 1024;

// Options::progress_thread, else HERALD_DYN_PROGRESS_THREAD; refused without MPI_THREAD_MULTIPLE.
bool progress_thread_wanted(const Options& options) {
  bool wanted = false;
  if (options.progress_thread) {
    wanted = *options.progress_thread;
  } else if (const auto text = environment("HERALD_DYN_PROGRESS_THREAD")) {
    wanted = parse_switch(*text, "HERALD_DYN_PROGRESS_THREAD");
  }
  if (wanted) {
    int provided = MPI_THREAD_SINGLE;
    HERALD_MPI(MPI_Query_thread(&provided));
    if (provided != MPI_THREAD_MULTIPLE)
      throw Error(Errc::invalid_argument,
                  "a dynamic-broadcast progress thread needs MPI_THREAD_MULTIPLE; MPI was initialised with level " +
                      std::to_string(provided));
  }
  return wanted;
}

// The channel's options: the endpoint's where it sets them, else the environment's, else the defaults.
Channel::Options channel_options(const Options& options) {
  Channel::Options o = Channel::Options::from_environment();
  if (options.max_piece) {
    if (*options.max_piece < 1 || *options.max_piece > max_message_bytes)
      throw Error(Errc::invalid_argument, "a largest message of " + std::to_string(*options.max_piece) +
                                              " bytes; it must be in 1.." + std::to_string(max_message_bytes));
    o.max_piece = *options.max_piece;
  }
  if (options.frame_slot) o.slot_bytes = *options.frame_slot;
  if (options.window) o.window = *options.window;
  o.max_in_flight = options.max_in_flight;
  o.max_inline = options.max_inline;
  return o;
}

// Options::forwarding, else HERALD_DYN_FORWARDING, else serial when all of `comm` shares one node (a core
// copies every byte there) and overlapped otherwise (network cards move them). Collective over `comm`, on
// every rank whatever its options say, so ranks configured differently cannot leave the others waiting.
Forwarding forwarding_of(MPI_Comm comm, const Options& options) {
  MPI_Comm node;
  HERALD_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int on_node = 0, all = 0;
  HERALD_MPI(MPI_Comm_size(node, &on_node));
  HERALD_MPI(MPI_Comm_free(&node));
  HERALD_MPI(MPI_Comm_size(comm, &all));
  if (options.forwarding) return *options.forwarding;
  if (const auto given = forwarding_from_environment()) return *given;
  return on_node == all ? Forwarding::serial : Forwarding::overlapped;
}

std::string message_named(int origin, int tag) {
  return "from rank " + std::to_string(origin) + " with tag " + std::to_string(tag);
}

}  // namespace

namespace {
// The endpoint's own channel on a duplicate of `comm`, once the settings and options are known good.
std::shared_ptr<Channel> own_channel(MPI_Comm comm, const Options& options) {
  require_known_settings();
  progress_thread_wanted(options);  // refused before the duplicate
  if (comm == MPI_COMM_NULL) throw Error(Errc::invalid_comm, "dynamic broadcast on MPI_COMM_NULL");
  return std::make_shared<Channel>(comm, channel_options(options));
}
}  // namespace

Engine::Engine(MPI_Comm comm, const Options& options) : Engine(own_channel(comm, options), options, true) {}

Engine::Engine(std::shared_ptr<Channel> channel, const Options& options, bool own)
    : threaded(own ? progress_thread_wanted(options)
                   : (options.progress_thread.value_or(false)
                          ? throw Error(Errc::invalid_argument,
                                        "a dynamic-broadcast endpoint on a shared channel has no progress thread: "
                                        "the channel's owner polls it")
                          : false)),
      options_(options),
      cost_model_(options.cost_model ? *options.cost_model : cost_model_from_environment()),
      default_algorithm_(environment("HERALD_DYN_ALGORITHM")),
      default_segment_(parameters_from_environment().segment),
      channel_(std::move(channel)),
      states_(state_pool),
      incoming_(incoming_pool) {
  if (default_algorithm_ == "auto") default_algorithm_.reset();
  if (default_algorithm_) tree_for(2, *default_algorithm_);  // an unknown name fails here, early
  rank = channel_->rank();
  size = channel_->size();
  forwarding = forwarding_of(channel_->comm(), options);
  next_seq_.assign(static_cast<std::size_t>(size), 0);
  channel_->on(message_handler, [this](const Channel::Arrival& a) { on_message(a); });
  if (threaded) thread_ = std::jthread([this](std::stop_token stop) { run_progress_thread(stop); });
}

Engine::~Engine() {
  // close() normally ran already; this only stops a thread left running by a failed constructor path.
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  // A shared channel outlives this engine: a frame for it from now on is refused, not handed to it.
  if (channel_) channel_->on(message_handler, {});
}

void Engine::run_progress_thread(std::stop_token stop) {
  while (!stop.stop_requested()) {
    bool busy = false;
    {
      std::lock_guard lock(mutex);
      if (failure_) return;
      try {
        busy = channel_->progress();
      } catch (...) {
        failure_ = std::current_exception();
        return;
      }
    }
    // Idle: leave the core to the application (this machine class often has fewer cores than ranks).
    if (!busy) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

std::shared_ptr<Request::State> Engine::new_state() {
  return states_.get([](Request::State& state) { state = {}; });
}

void Engine::check_usable() const {
  if (failure_) std::rethrow_exception(failure_);
  if (closed_) throw Error(Errc::invalid_argument, "dynamic-broadcast endpoint already destroyed");
}

bool Engine::progress(const bool* finished) {
  check_usable();
  return channel_->progress(finished);
}

void Engine::check_peer(int peer, const char* what) const {
  if (peer < 0 || peer >= size)
    throw Error(Errc::invalid_argument, std::string(what) + " " + std::to_string(peer) + " is not a rank of the " +
                                            std::to_string(size) + "-rank communicator");
  if (peer == rank)
    throw Error(Errc::invalid_argument, std::string(what) + " " + std::to_string(peer) + " is this rank itself");
}

const Engine::Planned& Engine::tree_for(int group, const std::string& algorithm) {
  const auto key = std::pair{group, algorithm};
  if (auto it = trees_.find(key); it != trees_.end()) return it->second;
  const AlgorithmInfo& info = find_algorithm(algorithm);
  Tree tree;
  try {
    tree = tree_of_algorithm(info, group);
  } catch (const Error& e) {
    throw Error(Errc::invalid_argument, "algorithm '" + algorithm + "' cannot carry a dynamic broadcast (" +
                                            e.message() + ")");
  }
  std::vector<int> order = service_order(tree);
  return trees_.emplace(key, Planned{std::move(tree), std::move(order)}).first->second;
}

Shape Engine::shape_for(int group, std::size_t bytes) {
  const auto key = std::pair{group, bytes};
  if (auto it = shapes_.find(key); it != shapes_.end()) return it->second;
  if (shapes_.size() >= max_remembered_shapes) shapes_.clear();
  return shapes_.emplace(key, choose_shape(group, bytes, cost_model_, forwarding)).first->second;
}

void Engine::start_send(const std::shared_ptr<Request::State>& state, std::span<const std::byte> data,
                        std::span<const int> recipients, int tag, const SendOptions& options) {
  check_usable();
  // Every check first: nothing is sent, and no sequence number taken, for a refused broadcast.
  if (tag < 0) throw Error(Errc::invalid_argument, "tag " + std::to_string(tag) + " is negative");
  if (data.data() == nullptr && !data.empty())
    throw Error(Errc::invalid_buffer, "null buffer for " + std::to_string(data.size()) + " bytes");
  if (!options.priorities.empty() && options.priorities.size() != recipients.size())
    throw Error(Errc::invalid_argument, std::to_string(options.priorities.size()) + " priorities for " +
                                            std::to_string(recipients.size()) + " recipients");
  if (!options.parents.empty() && options.parents.size() != recipients.size())
    throw Error(Errc::invalid_argument, std::to_string(options.parents.size()) + " parents for " +
                                            std::to_string(recipients.size()) + " recipients");
  for (int r : recipients) check_peer(r, "recipient");
  if (recipients.size() > 1) {
    sorted_.assign(recipients.begin(), recipients.end());
    std::sort(sorted_.begin(), sorted_.end());
    if (auto dup = std::adjacent_find(sorted_.begin(), sorted_.end()); dup != sorted_.end())
      throw Error(Errc::invalid_argument, "recipient " + std::to_string(*dup) + " is listed twice");
  }
  // The caller's tree is checked here too, before anything moves (it throws naming the recipient).
  const std::optional<Tree> given = options.parents.empty() ? std::nullopt : std::optional(tree_of_parents(options.parents));
  if (recipients.empty()) {
    state->done = true;
    return;
  }
  const int group = static_cast<int>(recipients.size()) + 1;
  const std::string algorithm = options.algorithm.value_or(default_algorithm_.value_or("auto"));
  const bool automatic = algorithm == "auto";
  if (automatic && recipients.size() == 1 && data.size() <= smallest_shape_segment) {
    // The cost model cuts no message this short into segments, and its shapes are trees: to one recipient
    // that is the point-to-point message the general path below sends, without pricing or looking it up.
    post_whole(state, data, recipients[0], tag, options.priorities.empty() ? 0 : options.priorities[0]);
    return;
  }
  Shape shape;
  if (automatic) {
    shape = shape_for(group, data.size());
  } else {
    // An unset segment means HERALD_SEGMENT_SIZE, else the algorithm's own default, as everywhere in herald.
    const Problem p = with_defaults(find_algorithm(algorithm),
                                    {.ranks = group, .root = 0, .bytes = data.size(),
                                     .parameters = {.segment = options.segment ? options.segment : default_segment_}});
    shape = {algorithm, p.parameters.segment.value_or(0), 0};
  }
  // Every segment is a queued message with its own header: refuse a size that would flood memory.
  constexpr std::size_t max_segments = std::size_t{1} << 20;
  if (shape.segment > 0 && data.size() / shape.segment >= max_segments)
    throw Error(Errc::invalid_argument, "segments of " + std::to_string(shape.segment) + " bytes cut " +
                                            std::to_string(data.size()) + " bytes into more than " +
                                            std::to_string(max_segments) + " pieces");
  // The algorithm is checked to be a tree even where the caller gives its own: the segment size is its.
  const Planned& planned_tree = tree_for(group, shape.algorithm);
  if (recipients.size() == 1 && (shape.segment == 0 || data.size() <= shape.segment)) {
    // The algorithm is a tree (tree_for checked it), and every tree over two ranks is the one edge; one
    // segment has nothing to pipeline. So the message is a point-to-point one, whose empty route is what
    // plan_route() and split_route() would give.
    post_whole(state, data, recipients[0], tag, options.priorities.empty() ? 0 : options.priorities[0]);
    return;
  }

  std::vector<Recipient> planned(recipients.size());
  for (std::size_t i = 0; i < recipients.size(); ++i)
    planned[i] = {recipients[i], options.priorities.empty() ? 0 : options.priorities[i],
                  next_seq_[static_cast<std::size_t>(recipients[i])]++};
  const std::vector<RouteEntry> route =
      given ? route_of(*given, planned) : plan_route(planned_tree.tree, planned_tree.order, planned);
  const std::vector<Hop> hops = split_route(route);
  std::vector<ByteRange> pieces = segments(data.size(), shape.segment);
  // An empty message still travels, as one header. A bulk one is announced by its header alone first: a
  // message's first piece must come before its others (it carries the route), and a receiver takes a
  // message only once every earlier one from its origin has announced itself; a header is never held by
  // the send queue's window, so a bulk piece waiting for room holds back neither.
  if (pieces.empty() || pieces.front().length >= bulk_bytes) pieces.insert(pieces.begin(), ByteRange{0, 0});

  post_pieces(state, data, tag, hops, pieces);
}

void Engine::post_pieces(const std::shared_ptr<Request::State>& state, std::span<const std::byte> data, int tag,
                         std::span<const Hop> hops, std::span<const ByteRange> pieces) {
  state->outstanding = hops.size() * pieces.size();
  auto sent = [state] {
    if (--state->outstanding == 0) state->done = true;
  };
  bool first = true;
  for (const ByteRange& piece : pieces) {
    for (const Hop& hop : hops) {
      Header h{.origin = rank,
               .tag = tag,
               .priority = hop.to.priority,
               .seq = hop.to.seq,
               .total = data.size(),
               .segment = piece,
               .has_route = first,
               .route = first ? std::vector<RouteEntry>(hop.route.begin(), hop.route.end())
                              : std::vector<RouteEntry>{}};
      channel_->post(hop.to.rank, message_handler, encoded(h), data.subspan(piece.offset, piece.length),
                    hop.to.priority, traced("send", h, hop.to.rank, sent));
    }
    first = false;
  }
  channel_->flush();  // on the wire now; completions are polled for by whoever waits
}

void Engine::start_p2p(const std::shared_ptr<Request::State>& state, std::span<const std::byte> data, int dest,
                       int tag, int priority) {
  check_usable();
  if (tag < 0) throw Error(Errc::invalid_argument, "tag " + std::to_string(tag) + " is negative");
  if (data.data() == nullptr && !data.empty())
    throw Error(Errc::invalid_buffer, "null buffer for " + std::to_string(data.size()) + " bytes");
  check_peer(dest, "destination");
  post_whole(state, data, dest, tag, priority);
}

void Engine::post_whole(const std::shared_ptr<Request::State>& state, std::span<const std::byte> data, int dest,
                        int tag, int priority) {
  const std::uint64_t seq = next_seq_[static_cast<std::size_t>(dest)]++;
  if (data.size() >= bulk_bytes) {
    // Announced by its header alone first, as a bulk broadcast is (start_send): one hop, no route.
    const Hop hop{.to = {.rank = dest, .priority = priority, .seq = seq}, .route = {}};
    const ByteRange pieces[] = {{0, 0}, {0, data.size()}};
    post_pieces(state, data, tag, std::span(&hop, 1), pieces);
    return;
  }
  const Header h{.origin = rank,
                 .tag = tag,
                 .priority = priority,
                 .seq = seq,
                 .total = data.size(),
                 .segment = {0, data.size()},
                 .has_route = true,
                 .route = {}};
  // On the wire now; unless MPI completed the send at once, whoever waits polls for its completion.
  if (channel_->send(dest, message_handler, encoded(h), data, priority, std::shared_ptr<bool>(state, &state->done)))
    state->done = true;
}

void Engine::check_recv(std::span<std::byte> buffer, int& source, int& tag) const {
  check_usable();
  if (source == MPI_ANY_SOURCE) source = any_source;
  if (tag == MPI_ANY_TAG) tag = any_tag;
  if (source != any_source) check_peer(source, "source");
  if (tag < 0 && tag != any_tag) throw Error(Errc::invalid_argument, "tag " + std::to_string(tag) + " is negative");
  if (buffer.data() == nullptr && !buffer.empty())
    throw Error(Errc::invalid_buffer, "null buffer for " + std::to_string(buffer.size()) + " bytes");
}

std::optional<Status> Engine::take_held(std::span<std::byte> buffer, int source, int tag) {
  Incoming* found = nullptr;
  const auto envelope = matcher_.take_unexpected(source, tag, [&](Matcher::Id id) {
    Incoming& m = *messages_.at(id);
    // Only a message this rank has wholly passed on, and that fits: anything else takes the general path.
    if (!passed_on(m) || m.total > buffer.size()) return false;
    found = &m;
    return true;
  });
  if (!envelope) return std::nullopt;
  Incoming& m = *found;
  if (m.total > 0) std::memcpy(buffer.data(), m.storage.data(), m.total);
  ++statistics.received_held;
  statistics.bytes_copied += m.total;
  const Status status{m.origin, m.tag, m.total};
  m.consumed = true;
  retire(m);
  return status;
}

void Engine::start_recv(const std::shared_ptr<Request::State>& state, std::span<std::byte> buffer, int source,
                        int tag) {
  check_recv(buffer, source, tag);
  if (auto status = take_held(buffer, source, tag)) {
    state->status = *status;
    state->done = true;
    return;
  }
  post_recv(state, buffer, source, tag);
}

void Engine::post_recv(const std::shared_ptr<Request::State>& state, std::span<std::byte> buffer, int source,
                       int tag) {
  const Matcher::Id id = next_id_++;
  posted_.push_back({id, state, buffer});
  if (auto message = matcher_.post(id, source, tag)) bind(id, *message);
  // Sends and completions advance; frames are handled only until one completes this receive. The frames
  // behind it stay in their slots for the receives posted next, which then take them in place instead of
  // finding them held (copied aside, then copied again), and the caller sees its receive done without one
  // more call into MPI's progress engine.
  channel_->progress(&state->done);
}

std::optional<Status> Engine::probe(int source, int tag) {
  check_usable();
  if (source == MPI_ANY_SOURCE) source = any_source;
  if (tag == MPI_ANY_TAG) tag = any_tag;
  channel_->progress();
  const auto found = matcher_.probe(source, tag);
  if (!found) return std::nullopt;
  return Status{found->source, found->tag, messages_.at(found->message)->total};
}

void Engine::on_message(const Channel::Arrival& arrival) {
  Header h = decode_header(arrival.body);
  if (h.segment.length != arrival.payload)
    throw Error(Errc::invalid_argument, "header announces a " + std::to_string(h.segment.length) +
                                            "-byte segment but " + std::to_string(arrival.payload) + " bytes follow");
  check_peer(h.origin, "origin");
  for (const RouteEntry& e : h.route) check_peer(e.rank, "routed recipient");
  if (deliver_at_once(h, arrival.source)) return;

  // Only a message in several segments is looked up again by its origin's numbering: a whole one (most
  // messages) is not entered there. A repeated number is the matcher's to refuse.
  const bool whole = h.has_route && h.segment.offset == 0 && h.segment.length == h.total;
  std::shared_ptr<Incoming> message;
  if (auto it = whole ? by_origin_.end() : by_origin_.find({h.origin, h.seq}); it != by_origin_.end()) {
    message = it->second;
    if (h.has_route || h.total != message->total || h.tag != message->tag)
      throw Error(Errc::invalid_argument, "segment " + message_named(h.origin, h.tag) + " disagrees with its message");
  } else {
    if (!h.has_route)
      throw Error(Errc::invalid_argument, "segment " + message_named(h.origin, h.tag) + " of a message never announced");
    message = incoming_.get([](Incoming& m) { m.renew(); });
    message->id = next_id_++;
    message->origin = h.origin;
    message->tag = h.tag;
    message->seq = h.seq;
    message->total = h.total;
    message->route = std::move(h.route);
    if (!whole) {
      by_origin_.emplace(std::pair{h.origin, h.seq}, message);
      message->numbered = true;
    }
    messages_.emplace(message->id, message);
    const std::size_t blocked = matcher_.blocked();
    for (const Matcher::Match& m : matcher_.arrive(message->id, h.origin, h.seq, h.tag)) bind(m.receive, m.message);
    if (matcher_.blocked() > blocked) ++statistics.overtaken;
    if (!message->placed) hold(*message);
  }
  if (message->arrived + h.segment.length > message->total)
    throw Error(Errc::invalid_argument, "more bytes than announced " + message_named(h.origin, h.tag));
  // A segment that rode in the frame is passed on at once.
  receive_piece(message->storage.subspan(h.segment.offset, h.segment.length), h, arrival.source,
                [this, message, segment = h.segment] { on_segment(message, segment); });
}

std::span<const std::byte> Engine::encoded(const Header& h) {
  header_.resize(header_bytes(h));  // mostly the size it already has: nothing to allocate or clear
  write_header(header_, h);
  return header_;  // the channel copies it into the frame before the next call
}

bool Engine::deliver_at_once(const Header& h, int source) {
  const bool whole_leaf = h.has_route && h.route.empty() && h.segment.offset == 0 && h.segment.length == h.total;
  if (!whole_leaf) return false;
  // A receive too short for the message takes the general path, which reports it.
  const auto receive = matcher_.take_at_once(h.origin, h.seq, h.tag, [&](Matcher::Id r) {
    return find_posted(r)->buffer.size() >= h.total;
  });
  if (!receive) return false;
  Posted taken = take_posted(*receive);
  taken.state->status = {h.origin, h.tag, 0};
  receive_piece(taken.buffer.first(h.total), h, source, [this, state = std::move(taken.state), bytes = h.total] {
    ++statistics.received_in_place;
    state->status.bytes = bytes;
    state->done = true;
  });
  return true;
}

std::vector<Engine::Posted>::iterator Engine::find_posted(Matcher::Id receive) {
  const auto it = std::find_if(posted_.begin(), posted_.end(), [&](const Posted& p) { return p.id == receive; });
  if (it == posted_.end()) throw Error(Errc::invalid_argument, "receive " + std::to_string(receive) + " is not posted");
  return it;
}

Engine::Posted Engine::take_posted(Matcher::Id receive) {
  const auto it = find_posted(receive);
  Posted taken = std::move(*it);
  posted_.erase(it);
  return taken;
}

// A piece's key in a trace: its origin and its number there for the rank it goes to, which the sender and
// the receiver both know.
std::int64_t piece_key(const Header& h) { return static_cast<std::int64_t>(h.origin) << 40 | static_cast<std::int64_t>(h.seq); }

Channel::Done Engine::traced(const char* what, const Header& h, int to, Channel::Done done) {
  trace::Recorder* recorder = trace::recorder();
  if (!recorder) return done;
  // From queued to off this rank: a piece held back behind others shows as a long span.
  return [done = std::move(done), name = recorder->string(what), begin = recorder->now(), key = piece_key(h), to,
          bytes = h.segment.length, offset = h.segment.offset, priority = h.priority] {
    if (trace::Recorder* r = trace::recorder())
      r->span(trace::Kind::dyn_send, begin, key, to, static_cast<std::int64_t>(bytes), static_cast<std::int64_t>(offset),
              priority, name);
    done();
  };
}

Channel::Done Engine::landed(trace::Recorder& recorder, const Header& h, int from, Channel::Done done) {
  return [done = std::move(done), name = recorder.string("land"), begin = recorder.now(), key = piece_key(h), from,
          bytes = h.segment.length, offset = h.segment.offset, priority = h.priority] {
    if (trace::Recorder* r = trace::recorder())
      r->span(trace::Kind::dyn_land, begin, key, from, static_cast<std::int64_t>(bytes), static_cast<std::int64_t>(offset),
              priority, name);
    done();
  };
}

void Engine::on_segment(const std::shared_ptr<Incoming>& message, ByteRange segment) {
  message->arrived += segment.length;
  // Pass the segment down at once; the next one is already being received.
  for (const Hop& hop : split_route(message->route)) {
    Header h{.origin = message->origin,
             .tag = message->tag,
             .priority = hop.to.priority,
             .seq = hop.to.seq,
             .total = message->total,
             .segment = segment,
             .has_route = !message->route_forwarded,
             .route = message->route_forwarded ? std::vector<RouteEntry>{}
                                               : std::vector<RouteEntry>(hop.route.begin(), hop.route.end())};
    ++message->forwarding;
    ++statistics.segments_forwarded;
    // A plain pointer keeps the callback small enough for std::function to hold without allocating: the
    // message stays in messages_ while a forward of it is pending (settle() drops it only after the last).
    channel_->post(hop.to.rank, message_handler, encoded(h),
                  message->storage.subspan(segment.offset, segment.length), hop.to.priority,
                  traced("forward", h, hop.to.rank,
                         [this, forwarded = message.get()] {
                           --forwarded->forwarding;
                           settle(*forwarded);
                         }));
  }
  message->route_forwarded = true;
  settle(*message);
}

void Engine::hold(Incoming& message) {
  if (message.held_capacity < message.total) {
    message.held = std::make_unique_for_overwrite<std::byte[]>(message.total);
    message.held_capacity = message.total;
  }
  message.storage = {message.held.get(), message.total};
  message.placed = true;
}

void Engine::Incoming::renew() {
  // settle() has already let go of a large buffer: what is left is worth keeping.
  std::unique_ptr<std::byte[]> kept = std::move(held);
  const std::size_t capacity = held_capacity;
  *this = {};
  held = std::move(kept);
  held_capacity = capacity;
}

void Engine::bind(Matcher::Id receive, Matcher::Id id) {
  const Posted posted = take_posted(receive);
  const std::shared_ptr<Incoming> message = messages_.at(id);
  message->consumed = true;
  message->receive = posted.state;
  posted.state->status = {message->origin, message->tag, 0};
  if (message->total > posted.buffer.size()) {
    // MPI would write what fits; herald writes nothing, and the message still reaches its sub-tree.
    posted.state->error = Error(Errc::truncated, "message of " + std::to_string(message->total) + " bytes " +
                                                     message_named(message->origin, message->tag) + " does not fit the " +
                                                     std::to_string(posted.buffer.size()) + "-byte receive buffer");
    message->refused = true;
    if (!message->placed) hold(*message);
  } else {
    message->user = posted.buffer.first(message->total);
    if (!message->placed) {
      message->storage = message->user;
      message->placed = true;
      message->zero_copy = true;
    }
  }
  settle(*message);
}

void Engine::settle(Incoming& m) {
  if (!all_here(m)) return;
  if (m.receive) {
    Request::State& receive = *m.receive;
    if (!receive.delivered) {
      if (!m.refused) {
        if (m.zero_copy) {
          ++statistics.received_in_place;
        } else {
          if (m.total > 0) std::memcpy(m.user.data(), m.storage.data(), m.total);
          ++statistics.received_held;
          statistics.bytes_copied += m.total;
        }
        receive.status.bytes = m.total;
      }
      receive.delivered = true;
    }
    // The receive completes once its buffer is the caller's again: at once when the forwards read herald's
    // own copy, else once they have left this rank, which then owes its sub-tree nothing more.
    if (!m.zero_copy || m.forwarding == 0) {
      receive.done = true;
      m.receive.reset();
    }
  }
  if (m.consumed && passed_on(m)) retire(m);
}

void Engine::retire(Incoming& m) {
  // A large held buffer is not kept for the next message: it goes as soon as its bytes are delivered.
  if (m.held_capacity > kept_held_bytes) {
    m.held.reset();
    m.held_capacity = 0;
  }
  if (m.numbered) by_origin_.erase({m.origin, m.seq});
  messages_.erase(m.id);
}

void Engine::close() {
  if (closed_) return;
  if (thread_.joinable()) {
    // The thread takes `mutex`, which the caller holds: let go while it stops.
    mutex.unlock();
    thread_.request_stop();
    thread_.join();
    mutex.lock();
  }
  closed_ = true;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized || failure_) return;
  // Forward whatever passed through this rank, then keep serving until every rank has done the same.
  while (!channel_->quiet()) channel_->progress();
  MPI_Request barrier;
  HERALD_MPI(MPI_Ibarrier(channel_->comm(), &barrier));
  for (int done = 0; !done;) {
    if (!channel_->progress()) std::this_thread::yield();
    HERALD_MPI(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE));
  }
  while (!channel_->quiet()) channel_->progress();
}

}  // namespace herald::dyn::detail
