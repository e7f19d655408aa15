#include "broadcast.hpp"

#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <algorithm>
#include <numeric>
#include <array>
#include <vector>

namespace herald::runtime {

namespace {

template <class E, std::size_t N>
using Names = std::array<std::pair<E, const char*>, N>;

constexpr Names<BroadcastStrategy, 6> strategy_names{{
    {BroadcastStrategy::nobcast, "nobcast"},
    {BroadcastStrategy::p2p, "p2p"},
    {BroadcastStrategy::mpibcast, "mpibcast"},
    {BroadcastStrategy::mpibcast_herald, "mpibcast:herald"},
    {BroadcastStrategy::dynbcast, "dynbcast"},
    {BroadcastStrategy::automatic, "auto"},
}};

constexpr Names<BroadcastTrees, 3> tree_names{{
    {BroadcastTrees::dyn, "dyn"},
    {BroadcastTrees::spread, "spread"},
    {BroadcastTrees::planned, "planned"},
}};

template <class E, std::size_t N>
std::string name_in(const Names<E, N>& names, E value) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return "?";
}

// The value named `text`; else throws herald::Error naming `what`, the text and the choices.
template <class E, std::size_t N>
E value_in(const Names<E, N>& names, std::string_view text, std::string_view what) {
  std::vector<std::string_view> choices;
  for (const auto& [v, name] : names) {
    if (text == name) return v;
    choices.emplace_back(name);
  }
  throw Error(Errc::invalid_argument, not_one_of(what, text, choices));
}

}  // namespace

std::string to_string(BroadcastStrategy s) { return name_in(strategy_names, s); }

BroadcastStrategy broadcast_strategy_from_string(std::string_view text, std::string_view what) {
  return value_in(strategy_names, text, what);
}

std::string to_string(BroadcastTrees t) { return name_in(tree_names, t); }

BroadcastTrees broadcast_trees_from_string(std::string_view text, std::string_view what) {
  return value_in(tree_names, text, what);
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
