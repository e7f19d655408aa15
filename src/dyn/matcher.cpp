#include "matcher.hpp"
#include <herald/error.hpp>

#include <algorithm>
#include <string>

namespace herald::dyn {

std::vector<Matcher::Match> Matcher::arrive(Id message, int origin, std::uint64_t seq, int tag) {
  Origin& o = origins_[origin];
  if (seq < o.next || o.ahead.count(seq))
    throw Error(Errc::invalid_argument, "message " + std::to_string(seq) + " from rank " + std::to_string(origin) +
                                            " arrived twice");
  std::vector<Match> matches;
  if (seq != o.next) {
    // An earlier message from this origin is still on its way: it must be matched first.
    o.ahead.insert(seq);
    blocked_.emplace(std::pair{origin, seq}, Envelope{message, origin, tag});
    return matches;
  }
  auto release = [&](const Envelope& m) {
    auto it = std::find_if(posted_.begin(), posted_.end(),
                           [&](const Posted& p) { return fits(p.source, p.tag, m.source, m.tag); });
    if (it == posted_.end()) {
      unexpected_.push_back(m);
    } else {
      matches.push_back({it->receive, m.message});
      posted_.erase(it);
    }
  };
  release({message, origin, tag});
  ++o.next;
  // Release the messages this one was holding back, in the origin's order.
  while (!o.ahead.empty() && *o.ahead.begin() == o.next) {
    o.ahead.erase(o.ahead.begin());
    auto node = blocked_.extract(std::pair{origin, o.next});
    release(node.mapped());
    ++o.next;
  }
  return matches;
}

std::optional<Matcher::Id> Matcher::post(Id receive, int source, int tag) {
  auto it = std::find_if(unexpected_.begin(), unexpected_.end(),
                         [&](const Envelope& m) { return fits(source, tag, m.source, m.tag); });
  if (it == unexpected_.end()) {
    posted_.push_back({receive, source, tag});
    return std::nullopt;
  }
  const Id message = it->message;
  unexpected_.erase(it);
  return message;
}

std::optional<Matcher::Envelope> Matcher::probe(int source, int tag) const {
  auto it = std::find_if(unexpected_.begin(), unexpected_.end(),
                         [&](const Envelope& m) { return fits(source, tag, m.source, m.tag); });
  if (it == unexpected_.end()) return std::nullopt;
  return *it;
}

}  // namespace herald::dyn
