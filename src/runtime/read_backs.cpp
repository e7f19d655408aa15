#include "read_backs.hpp"
#include "protocol/post.hpp"

#include <herald/error.hpp>

#include <algorithm>

namespace herald::runtime::detail {

ReadBacks::ReadBacks(dyn::Channel& channel, Store& store, VersionLives& versions,
                     const std::vector<std::span<std::byte>>& buffers, const Planner& planner)
    : channel_(channel), store_(store), versions_(versions), buffers_(buffers), planner_(planner) {}

bool ReadBacks::wants(const Key& key) const {
  return std::any_of(wanted_.begin(), wanted_.end(), [&](const Wanted& w) { return w.key == key; });
}

void ReadBacks::ask() {
  for (const Wanted& w : wanted_) {
    const Replica* here = store_.find(w.key);
    if (here && here->bytes.data() == buffers_[w.key.handle].data()) {
      versions_.landed(w.key, w.exit);  // the entered value itself: the program's buffer holds it already
      continue;
    }
    ++left_;
    asked_[w.key].push_back(w.exit);
    post(channel_, w.origin, msg::Fetch{w.key, true});
  }
  wanted_.clear();
  planned_ = 0;
}

void ReadBacks::arrived(const dyn::Channel::Arrival& a) {
  const Key key = msg::decode<msg::Readback>(a.body).key;
  const auto waiting = asked_.find(key);
  if (waiting == asked_.end() || waiting->second.empty())
    throw Error(Errc::invalid_argument, "rank " + std::to_string(a.source) + " sent a value nobody asked for");
  const std::span<std::byte> into = buffers_.at(key.handle);
  if (a.payload != into.size())
    throw Error(Errc::truncated, "rank " + std::to_string(a.source) + " sent " + std::to_string(a.payload) +
                                     " bytes of '" + planner_.graph().name(key.handle) + "', which has " + std::to_string(into.size()));
  const bool exit = waiting->second.front();
  waiting->second.pop_front();
  if (waiting->second.empty()) asked_.erase(waiting);
  channel_.receive_payload(into, [this, key, exit] {
    --left_;
    versions_.landed(key, exit);
  });
}

}  // namespace herald::runtime::detail
