// The order in which a rank's outgoing messages leave: one queue over every message it sends (broadcast
// pieces it originates or forwards, point-to-point messages), MPI-free so that its rules are tested alone.
//
// - The most urgent message goes next (higher priority first, then the one queued first).
// - Bulk bytes on the wire are bounded per link: a message of `bulk` bytes leaves only while its link
//   carries at most `window - bulk` bytes of others and fewer than `pieces` bulk messages, or none, and
//   all links together at most `total - bulk`, or none. What waits for room can be overtaken by a more urgent message that arrives
//   later, which a bound in messages per broadcast (or bytes handed to MPI in queue order) would not
//   allow: the bytes MPI already has are bytes an urgent piece waits behind.
// - Small messages (bulk 0: control frames, inline payloads) have no window: they leave in priority order
//   as soon as they are next, whatever the links carry.
// - No starvation: a message overtaken by `patience` departures since it was queued is overdue and goes
//   first (the oldest overdue first) as soon as its link has room; until then nothing else takes its link.
//
// A link is what messages to a destination share: Channel gives each destination a link of its own, so a
// receiver slow to take its data holds back only what goes to it (a transfer above MPI's eager limit does
// not move until its receive is posted), and bounds all of them together with `total`. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace herald::dyn {

template <class T>
class SendQueue {
 public:
  struct Options {
    std::size_t window = 0;    // bulk bytes on one link at once; 0: no bound
    std::size_t total = 0;     // bulk bytes on all links at once; 0: no bound
    std::size_t pieces = 0;    // bulk messages on one link at once; 0: no bound
    std::size_t patience = 0;  // departures a message may be overtaken by; 0: none (strict priority)
  };
  struct Departure {
    T item;
    int dest = 0;
    int priority = 0;
    std::size_t bulk = 0;  // to hand back with landed() once these bytes are off the wire
  };

  SendQueue() : SendQueue({}, {}) {}
  // link_of[d]: the link a message to rank d leaves on, in 0..links-1.
  SendQueue(std::vector<int> link_of, Options options) : link_of_(std::move(link_of)), options_(options) {
    int links = 0;
    for (int link : link_of_) {
      if (link < 0) throw std::invalid_argument("SendQueue: a negative link");
      links = std::max(links, link + 1);
    }
    small_lane_ = links;
    lanes_.resize(static_cast<std::size_t>(links) + 1);
    listed_.assign(lanes_.size(), false);
    on_wire_.assign(static_cast<std::size_t>(links), 0);
    pieces_on_wire_.assign(static_cast<std::size_t>(links), 0);
  }

  void push(int dest, int priority, std::size_t bulk, T item) {
    const int lane = bulk == 0 ? small_lane_ : link_of_.at(static_cast<std::size_t>(dest));
    std::size_t slot;
    if (free_.empty()) {
      slot = slots_.size();
      slots_.emplace_back();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    const std::uint64_t seq = next_seq_++;
    slots_[slot] = {seq, departures_, dest, priority, lane, bulk, std::move(item)};
    auto& heap = lanes_[static_cast<std::size_t>(lane)];
    heap.push_back({priority, seq, slot});
    std::push_heap(heap.begin(), heap.end(), Later{});
    if (!listed_[static_cast<std::size_t>(lane)]) {
      listed_[static_cast<std::size_t>(lane)] = true;
      active_.push_back(lane);
    }
    if (options_.patience > 0) fifo_.push_back({seq, slot});
    ++count_;
  }

  // The message that leaves now, if one may; its bulk bytes count on its link until landed().
  std::optional<Departure> pop() {
    int blocked = -1;          // the link an overdue message waits on: nothing else takes it
    bool blocked_all = false;  // ...and every link, when what it waits for is room under `total`
    if (options_.patience > 0) {
      while (!fifo_.empty() && !live(fifo_.front().second, fifo_.front().first)) fifo_.pop_front();
      if (!fifo_.empty()) {
        const std::size_t slot = fifo_.front().second;
        const Entry& oldest = slots_[slot];
        if (departures_ - oldest.queued_at >= options_.patience) {
          if (room(oldest.lane, oldest.bulk)) {
            fifo_.pop_front();
            return take(slot);
          }
          blocked = oldest.lane;
          blocked_all = !total_room(oldest.bulk);
        }
      }
    }
    const Key* best = nullptr;
    for (std::size_t i = 0; i < active_.size();) {
      const int lane = active_[i];
      auto& heap = lanes_[static_cast<std::size_t>(lane)];
      while (!heap.empty() && !live(heap.front().slot, heap.front().seq)) {
        std::pop_heap(heap.begin(), heap.end(), Later{});
        heap.pop_back();
      }
      if (heap.empty()) {
        listed_[static_cast<std::size_t>(lane)] = false;
        active_[i] = active_.back();
        active_.pop_back();
        continue;
      }
      ++i;
      const Key& top = heap.front();
      if (lane == blocked || (blocked_all && lane != small_lane_) || !room(lane, slots_[top.slot].bulk)) continue;
      if (!best || Later{}(*best, top)) best = &top;
    }
    if (!best) return std::nullopt;
    const std::size_t slot = best->slot;
    auto& heap = lanes_[static_cast<std::size_t>(slots_[slot].lane)];
    std::pop_heap(heap.begin(), heap.end(), Later{});
    heap.pop_back();
    return take(slot);
  }

  // `bulk` bytes of a departed message to `dest` are off the wire.
  void landed(int dest, std::size_t bulk) {
    if (bulk == 0) return;
    const auto link = static_cast<std::size_t>(link_of_.at(static_cast<std::size_t>(dest)));
    std::size_t& bytes = on_wire_.at(link);
    if (bytes < bulk || pieces_on_wire_[link] == 0) throw std::logic_error("SendQueue: more bytes landed than left");
    bytes -= bulk;
    --pieces_on_wire_[link];
    total_ -= bulk;
  }

  bool empty() const noexcept { return count_ == 0; }
  std::size_t size() const noexcept { return count_; }
  std::size_t on_wire(int link) const { return on_wire_.at(static_cast<std::size_t>(link)); }
  std::size_t on_wire() const noexcept { return total_; }
  int links() const noexcept { return small_lane_; }

 private:
  struct Entry {
    std::uint64_t seq = 0;
    std::uint64_t queued_at = 0;  // departures_ when it was queued
    int dest = 0;
    int priority = 0;
    int lane = 0;
    std::size_t bulk = 0;
    std::optional<T> item;  // empty: the slot is free
  };
  struct Key {
    int priority;
    std::uint64_t seq;
    std::size_t slot;
  };
  struct Later {  // a heap under it has the most urgent at the front
    bool operator()(const Key& a, const Key& b) const noexcept {
      return a.priority != b.priority ? a.priority < b.priority : a.seq > b.seq;
    }
  };

  // A heap or FIFO entry still names a queued message (the other structure may have taken it).
  bool live(std::size_t slot, std::uint64_t seq) const noexcept {
    return slots_[slot].item.has_value() && slots_[slot].seq == seq;
  }
  bool room(int lane, std::size_t bulk) const noexcept {
    if (lane == small_lane_) return true;
    const std::size_t bytes = on_wire_[static_cast<std::size_t>(lane)];
    const std::size_t pieces = pieces_on_wire_[static_cast<std::size_t>(lane)];
    const bool fits = (options_.window == 0 || bytes + bulk <= options_.window) &&
                      (options_.pieces == 0 || pieces < options_.pieces);
    return (bytes == 0 || fits) && total_room(bulk);
  }
  bool total_room(std::size_t bulk) const noexcept {
    return options_.total == 0 || total_ == 0 || total_ + bulk <= options_.total;
  }
  Departure take(std::size_t slot) {
    Entry& e = slots_[slot];
    if (e.lane != small_lane_) {
      on_wire_[static_cast<std::size_t>(e.lane)] += e.bulk;
      ++pieces_on_wire_[static_cast<std::size_t>(e.lane)];
      total_ += e.bulk;
    }
    Departure d{std::move(*e.item), e.dest, e.priority, e.bulk};
    e.item.reset();
    free_.push_back(slot);
    ++departures_;
    --count_;
    return d;
  }

  std::vector<int> link_of_;
  Options options_;
  int small_lane_ = 0;                  // lanes_[small_lane_]: messages with no bulk bytes
  std::vector<std::vector<Key>> lanes_;  // per link, then the small lane: heaps under Later
  std::vector<bool> listed_;            // the lane is in active_
  std::vector<int> active_;             // lanes that may hold messages
  std::vector<std::size_t> on_wire_;    // per link: bulk bytes departed and not landed
  std::vector<std::size_t> pieces_on_wire_;  // per link: bulk messages departed and not landed
  std::size_t total_ = 0;               // ...over all links
  std::vector<Entry> slots_;
  std::vector<std::size_t> free_;
  std::deque<std::pair<std::uint64_t, std::size_t>> fifo_;  // (seq, slot), oldest first, when patience > 0
  std::uint64_t next_seq_ = 0;
  std::uint64_t departures_ = 0;
  std::size_t count_ = 0;
};

}  // namespace herald::dyn
