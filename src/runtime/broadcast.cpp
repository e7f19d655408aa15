#include "broadcast.hpp"

#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <algorithm>
#include <numeric>
#include <array>
#include <vector>

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

BroadcastStrategy broadcast_strategy_from_string(std::string_view text, std::string_view what) {
  std::vector<std::string_view> choices;
  for (const auto& [strategy, name] : names) {
    if (text == name) return strategy;
    choices.emplace_back(name);
  }
  throw Error(Errc::invalid_argument, not_one_of(what, text, choices));
}

namespace {
constexpr std::array<std::pair<BroadcastTrees, const char*>, 3> tree_names{{
    {BroadcastTrees::dyn, "dyn"},
    {BroadcastTrees::spread, "spread"},
    {BroadcastTrees::planned, "planned"},
}};
}  // namespace

std::string to_string(BroadcastTrees t) {
  for (const auto& [trees, name] : tree_names)
    if (trees == t) return name;
  return "?";
}

BroadcastTrees broadcast_trees_from_string(std::string_view text, std::string_view what) {
  std::vector<std::string_view> choices;
  for (const auto& [trees, name] : tree_names) {
    if (text == name) return trees;
    choices.emplace_back(name);
  }
  throw Error(Errc::invalid_argument, not_one_of(what, text, choices));
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

Replicas Replicas::held(int origin, std::vector<int> holders) {
  Replicas r;
  r.origin = origin;
  r.holders = std::move(holders);
  return r;
}

void Replicas::made(int rank, double at) {
  origin = rank;
  ready = at;
  holders.assign(1, rank);
  served();
}

bool Replicas::holds(int rank) const { return std::find(holders.begin(), holders.end(), rank) != holders.end(); }

bool Replicas::read(int rank, int priority, double need) {
  if (!holds(rank)) {
    holders.push_back(rank);
    recipients.push_back(rank);
    priorities.push_back(priority);
    needs.push_back(need);
    return false;
  }
  if (const auto r = std::find(recipients.begin(), recipients.end(), rank); r != recipients.end()) {
    const auto i = static_cast<std::size_t>(r - recipients.begin());
    priorities[i] = std::max(priorities[i], priority);
    needs[i] = std::min(needs[i], need);
  }
  return true;
}

void Replicas::served() {
  recipients.clear();
  priorities.clear();
  needs.clear();
}

}  // namespace detail
}  // namespace herald::runtime
