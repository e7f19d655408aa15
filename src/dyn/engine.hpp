// The state behind an Endpoint: the active-message channel, the messages passing through this rank, the
// posted receives, and the optional progress thread. Every member function expects `mutex` held.
#pragma once

#include "../core/mpi/check.hpp"
#include "recycler.hpp"

#include <herald/dyn/channel.hpp>
#include <herald/dyn/endpoint.hpp>
#include "matcher.hpp"
#include "route.hpp"
#include "wire.hpp"
#include <herald/error.hpp>
#include <herald/tracing.hpp>

#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace herald::dyn {

struct Request::State {
  bool done = false;
  bool delivered = false;  // receives: every byte is in the buffer (done may wait for this rank's forwards)
  std::optional<Error> error;
  Status status;
  std::size_t outstanding = 0;  // broadcasts: messages not yet off this rank
};

namespace detail {

struct Engine {
  Engine(MPI_Comm comm, const Options& options);
  // On a channel shared with its owner (`own` false): its options apply, not the endpoint's.
  Engine(std::shared_ptr<Channel> channel, const Options& options, bool own);
  ~Engine();

  void start_send(const std::shared_ptr<Request::State>& state, std::span<const std::byte> data,
                  std::span<const int> recipients, int tag, const SendOptions& options);
  void start_p2p(const std::shared_ptr<Request::State>& state, std::span<const std::byte> data, int dest, int tag,
                 int priority);
  void start_recv(const std::shared_ptr<Request::State>& state, std::span<std::byte> buffer, int source, int tag);
  // start_recv's three steps, for recv(): refuse bad arguments (MPI_ANY_* become any_*); take a message
  // already here in full, as MPI takes one from its unexpected queue (no request, no call into MPI); or post
  // the receive.
  void check_recv(std::span<std::byte> buffer, int& source, int& tag) const;
  std::optional<Status> take_held(std::span<std::byte> buffer, int source, int tag);
  void post_recv(const std::shared_ptr<Request::State>& state, std::span<std::byte> buffer, int source, int tag);
  std::optional<Status> probe(int source, int tag);
  bool progress(const bool* finished = nullptr);  // see Channel::progress
  // A fresh request state: one no request holds any more, or a new one.
  std::shared_ptr<Request::State> new_state();
  // Rethrows a failure of the progress thread; refuses use after close().
  void check_usable() const;
  // Collective: stops the thread, finishes this rank's forwarding, waits for the other ranks.
  void close();

  // The shape an automatic send uses for a group of this many ranks (the root included).
  Shape shape_for(int group, std::size_t bytes);

  std::mutex mutex;
  Statistics statistics;
  int rank = 0;
  int size = 0;
  bool threaded = false;
  Forwarding forwarding = Forwarding::serial;

 private:
  // A message passing through (or ending at) this rank, from its first segment until it is delivered and
  // every forward of it has left.
  struct Incoming {
    Matcher::Id id = 0;
    int origin = 0;
    int tag = 0;
    std::uint64_t seq = 0;
    std::size_t total = 0;
    std::vector<RouteEntry> route;    // the sub-tree this rank serves
    bool numbered = false;            // in by_origin_ (only messages in several segments are)
    bool route_forwarded = false;     // children got their routes with the first forwarded segment
    bool placed = false;              // `storage` chosen
    bool zero_copy = false;           // `storage` is the receive's buffer
    std::span<std::byte> storage;     // where segments land and are forwarded from
    std::unique_ptr<std::byte[]> held;  // storage when no receive was waiting
    std::size_t held_capacity = 0;      // bytes `held` can take
    std::size_t arrived = 0;          // bytes landed
    std::size_t forwarding = 0;       // forwards still reading `storage`
    bool consumed = false;            // matched by a receive (delivered, or refused as too long)
    bool refused = false;             // the receive's buffer is too short: it gets an error, no bytes
    std::shared_ptr<Request::State> receive;
    std::span<std::byte> user;

    // As good as new for the next message, keeping a small `held` buffer for it.
    void renew();
  };
  // The whole message is here, and its segments are handed to the channel for this rank's sub-tree.
  static bool all_here(const Incoming& m) noexcept {
    // route_forwarded says the first segment has been handled: a message of zero bytes has "arrived"
    // before its one empty segment is passed on, and must not be dropped before that.
    return m.placed && m.route_forwarded && m.arrived == m.total;
  }
  // ...and every forward of it has left this rank.
  static bool passed_on(const Incoming& m) noexcept { return all_here(m) && m.forwarding == 0; }
  struct Posted {
    Matcher::Id id = 0;
    std::shared_ptr<Request::State> state;
    std::span<std::byte> buffer;
  };

  // Every piece of `data` to every hop, in that order; the first piece to a hop carries its route.
  void post_pieces(const std::shared_ptr<Request::State>& state, std::span<const std::byte> data, int tag,
                   std::span<const Hop> hops, std::span<const ByteRange> pieces);
  // One message carrying all of `data` to `dest`, with an empty route.
  void post_whole(const std::shared_ptr<Request::State>& state, std::span<const std::byte> data, int dest, int tag,
                  int priority);
  void on_message(const Channel::Arrival& arrival);
  // A whole message with nothing to forward that a posted receive takes at once: straight into its buffer.
  bool deliver_at_once(const Header& h, int source);  // `source`: the rank the frame came from
  std::span<const std::byte> encoded(const Header& h);
  void on_segment(const std::shared_ptr<Incoming>& message, ByteRange segment);
  // `done`, recording the piece `h` into an open trace (herald/tracing.hpp) once it has left for `to`
  // (`what`: "send" or "forward"), or once it has landed from `from`. `done` itself where none is open.
  Channel::Done traced(const char* what, const Header& h, int to, Channel::Done done);
  Channel::Done landed(trace::Recorder& recorder, const Header& h, int from, Channel::Done done);
  // Channel::receive_payload(), the piece recorded where a trace is open; without one, as cheap as before.
  template <class Arrived>
  void receive_piece(std::span<std::byte> into, const Header& h, int from, Arrived&& arrived) {
    if (trace::Recorder* recorder = trace::recorder())
      channel_->receive_payload(into, landed(*recorder, h, from, Channel::Done(std::forward<Arrived>(arrived))));
    else
      channel_->receive_payload(into, std::forward<Arrived>(arrived));
  }
  void bind(Matcher::Id receive, Matcher::Id message);
  std::vector<Posted>::iterator find_posted(Matcher::Id receive);
  Posted take_posted(Matcher::Id receive);
  void hold(Incoming& message);
  void settle(Incoming& message);  // may destroy it: the caller must not touch it afterwards
  void retire(Incoming& message);  // a delivered message is forgotten (and may be destroyed)
  void check_peer(int rank, const char* what) const;
  struct Planned {
    Tree tree;
    std::vector<int> order;  // service_order(tree)
  };
  const Planned& tree_for(int group, const std::string& algorithm);
  void run_progress_thread(std::stop_token stop);

  Options options_;
  CostModel cost_model_;
  std::optional<std::string> default_algorithm_;  // HERALD_DYN_ALGORITHM; unset or "auto": the cost model chooses
  std::optional<std::size_t> default_segment_;    // HERALD_SEGMENT_SIZE; unset: the algorithm's default
  std::shared_ptr<Channel> channel_;
  Matcher matcher_;
  Matcher::Id next_id_ = 0;
  std::vector<std::uint64_t> next_seq_;  // per destination: the number of the next message to it
  std::map<std::pair<int, std::uint64_t>, std::shared_ptr<Incoming>> by_origin_;  // (origin, seq)
  std::unordered_map<Matcher::Id, std::shared_ptr<Incoming>> messages_;
  // Receives not yet matched, in posting order. The matcher scans its own list of them in that order
  // anyway, and a receive is most often taken from the front: a vector costs no allocation per receive.
  std::vector<Posted> posted_;
  std::map<std::pair<int, std::string>, Planned, std::less<>> trees_;
  std::map<std::pair<int, std::size_t>, Shape> shapes_;
  std::vector<int> sorted_;          // reused by start_send()
  Recycler<Request::State> states_;
  Recycler<Incoming> incoming_;
  std::vector<std::byte> header_;    // reused by encoded()
  std::exception_ptr failure_;
  bool closed_ = false;
  std::jthread thread_;
};

}  // namespace detail
}  // namespace herald::dyn
