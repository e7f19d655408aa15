// Transparent receive, the matching half: which arrived message goes to which posted receive.
//
// The rule is MPI's: a receive names a source (or any) and a tag (or any); among the messages that fit,
// it takes the one its source sent first. Messages from one origin may arrive out of order, because a
// dynamic broadcast and a later point-to-point message travel different paths, so every message carries
// the origin's sequence number for this receiver and a message only becomes matchable once all earlier
// ones from its origin have arrived. Pure bookkeeping on ids; the caller owns buffers and data.
#pragma once

#include <herald/error.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace herald::dyn {

class Matcher {
 public:
  // A receive's source or tag that matches any (Endpoint's any_source and any_tag).
  static constexpr int any = -1;
  using Id = std::uint64_t;
  struct Match {
    Id receive;
    Id message;
  };
  struct Envelope {
    Id message;
    int source;
    int tag;
  };

  // The first part of message (origin, seq) arrived. Returns the matches this makes: the message itself
  // and any later messages from the same origin it unblocks, in the origin's order. Throws
  // Error(invalid_argument) on a sequence number seen before.
  std::vector<Match> arrive(Id message, int origin, std::uint64_t seq, int tag);

  // The quick way for a message that arrives whole and in its origin's order: if it is matchable at once
  // (every earlier message from its origin has arrived, none is held back behind it) and a posted receive
  // fits, and `accept(receive)` agrees, that receive takes it and is returned. Otherwise nothing changes
  // and the caller goes through arrive().
  template <class Accept>
  std::optional<Id> take_at_once(int origin, std::uint64_t seq, int tag, Accept&& accept) {
    auto o = origins_.find(origin);
    const std::uint64_t next = o == origins_.end() ? 0 : o->second.next;
    if (seq != next || (o != origins_.end() && !o->second.ahead.empty())) return std::nullopt;
    auto it = std::find_if(posted_.begin(), posted_.end(),
                           [&](const Posted& p) { return fits(p.source, p.tag, origin, tag); });
    if (it == posted_.end() || !accept(it->receive)) return std::nullopt;
    const Id receive = it->receive;
    if (it == posted_.begin()) {
      posted_.pop_front();  // the usual case, far cheaper than a general erase
    } else {
      posted_.erase(it);
    }
    if (o == origins_.end()) o = origins_.emplace(origin, Origin{}).first;
    ++o->second.next;
    return receive;
  }

  // A receive is posted; returns the waiting message it takes, if any. Otherwise the receive waits.
  std::optional<Id> post(Id receive, int source, int tag);

  // A receive that would take a waiting message at once takes it only if `accept(message)` agrees;
  // otherwise (or with none waiting) nothing changes and the receive is still to be posted.
  template <class Accept>
  std::optional<Envelope> take_unexpected(int source, int tag, Accept&& accept) {
    auto it = std::find_if(unexpected_.begin(), unexpected_.end(),
                           [&](const Envelope& m) { return fits(source, tag, m.source, m.tag); });
    if (it == unexpected_.end() || !accept(it->message)) return std::nullopt;
    const Envelope taken = *it;
    if (it == unexpected_.begin()) {
      unexpected_.pop_front();
    } else {
      unexpected_.erase(it);
    }
    return taken;
  }

  // The message a receive with this source and tag would take now, without taking it.
  std::optional<Envelope> probe(int source, int tag) const;

  std::size_t posted() const noexcept { return posted_.size(); }
  std::size_t unexpected() const noexcept { return unexpected_.size(); }
  // Messages held back because an earlier one from their origin has not arrived.
  std::size_t blocked() const noexcept { return blocked_.size(); }

 private:
  struct Posted {
    Id receive;
    int source;
    int tag;
  };
  struct Origin {
    std::uint64_t next = 0;            // lowest sequence number not yet arrived
    std::set<std::uint64_t> ahead;     // arrived beyond `next`
  };
  static bool fits(int want_source, int want_tag, int source, int tag) noexcept {
    return (want_source == any || want_source == source) && (want_tag == any || want_tag == tag);
  }

  std::map<int, Origin> origins_;
  std::map<std::pair<int, std::uint64_t>, Envelope> blocked_;  // (origin, seq) -> message
  std::deque<Posted> posted_;         // receives in posting order
  std::deque<Envelope> unexpected_;   // matchable messages in the order they became so
};

}  // namespace herald::dyn
