#include "broadcast.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <numeric>
#include <array>
#include <unordered_map>

namespace herald::runtime {

namespace {
constexpr std::array<std::pair<BroadcastStrategy, const char*>, 6> names{{
    {BroadcastStrategy::nobcast, "nobcast"},
    {BroadcastStrategy::p2p, "p2p"},
    {BroadcastStrategy::mpibcast, "mpibcast"},
    {BroadcastStrategy::mpibcast_herald, "mpibcast:herald"},
    {BroadcastStrategy::dynbcast, "dynbcast"},
    {BroadcastStrategy::automatic, "auto"},
}};
}  // namespace

std::string to_string(BroadcastStrategy s) {
  for (const auto& [strategy, name] : names)
    if (strategy == s) return name;
  return "?";
}

BroadcastStrategy broadcast_strategy_from_string(std::string_view text) {
  for (const auto& [strategy, name] : names)
    if (text == name) return strategy;
  throw Error(Errc::invalid_argument, "unknown broadcast strategy '" + std::string(text) +
                                          "' (nobcast, p2p, mpibcast, mpibcast:herald, dynbcast, auto)");
}

namespace detail {

BroadcastOrder order_of(const FoundBroadcast& found, std::uint64_t id, std::uint64_t bytes) {
  BroadcastOrder b;
  b.id = id;
  b.key = found.key;
  b.bytes = bytes;
  b.root = found.root;
  std::vector<std::size_t> by_urgency(found.recipients.size());
  std::iota(by_urgency.begin(), by_urgency.end(), std::size_t{0});
  std::stable_sort(by_urgency.begin(), by_urgency.end(),
                   [&](std::size_t x, std::size_t y) { return found.priorities[x] > found.priorities[y]; });
  for (std::size_t i : by_urgency) {
    b.recipients.push_back(found.recipients[i]);
    b.priorities.push_back(found.priorities[i]);
  }
  return b;
}

std::vector<FoundBroadcast> find_broadcasts(std::span<const PlanStep> steps,
                                            const std::function<Placement(const Key&)>& before) {
  struct Tracked {
    Placement place;
    FoundBroadcast found;
  };
  std::unordered_map<Key, Tracked, KeyHash> versions;
  std::vector<Key> order;  // versions in the order they were first seen
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& s = steps[i];
    auto [it, added] = versions.try_emplace(s.key);
    Tracked& v = it->second;
    if (added) {
      order.push_back(s.key);
      v.found.key = s.key;
      if (s.write) {
        v.place = {s.rank, {s.rank}};
        v.found.ready_step = i + 1;
      } else {
        v.place = before(s.key);
      }
      v.found.root = v.place.origin;
    }
    if (s.write) continue;
    auto& holders = v.place.holders;
    if (std::find(holders.begin(), holders.end(), s.rank) != holders.end()) {
      // Held already, or a recipient already: a recipient's priority is its most urgent reader's.
      const auto r = std::find(v.found.recipients.begin(), v.found.recipients.end(), s.rank);
      if (r != v.found.recipients.end()) {
        int& p = v.found.priorities[static_cast<std::size_t>(r - v.found.recipients.begin())];
        p = std::max(p, s.priority);
      }
      continue;
    }
    holders.push_back(s.rank);
    v.found.recipients.push_back(s.rank);
    v.found.priorities.push_back(s.priority);
  }
  std::vector<FoundBroadcast> out;
  for (const Key& key : order) {
    Tracked& v = versions.at(key);
    if (v.found.recipients.size() < 2) continue;
    out.push_back(std::move(v.found));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FoundBroadcast& a, const FoundBroadcast& b) { return a.ready_step < b.ready_step; });
  return out;
}

}  // namespace detail
}  // namespace herald::runtime
