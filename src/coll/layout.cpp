#include <herald/error.hpp>
#include <herald/layout.hpp>

#include <algorithm>
#include <functional>
#include <map>

namespace herald {

NodeLayout::NodeLayout(std::span<const int> node_of) {
  auto data = std::make_shared<Data>();
  std::map<int, int> number;  // the caller's name of a node -> its number
  data->node_of.reserve(node_of.size());
  for (std::size_t r = 0; r < node_of.size(); ++r) {
    const auto [it, added] = number.try_emplace(node_of[r], static_cast<int>(data->members.size()));
    if (added) data->members.emplace_back();
    data->node_of.push_back(it->second);
    data->members[it->second].push_back(static_cast<int>(r));
  }
  for (const auto& m : data->members) data->largest = std::max(data->largest, static_cast<int>(m.size()));
  data_ = std::move(data);
}

NodeLayout NodeLayout::blocks(int ranks, int per_node) {
  if (ranks < 1 || per_node < 1)
    throw Error(Errc::invalid_argument, "a layout of " + std::to_string(ranks) + " ranks in nodes of " +
                                            std::to_string(per_node) + " is empty");
  std::vector<int> node_of(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) node_of[r] = r / per_node;
  return NodeLayout(node_of);
}

NodeLayout NodeLayout::cyclic(int ranks, int nodes) {
  if (ranks < 1 || nodes < 1)
    throw Error(Errc::invalid_argument, "a layout of " + std::to_string(ranks) + " ranks on " +
                                            std::to_string(nodes) + " nodes is empty");
  std::vector<int> node_of(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) node_of[r] = r % nodes;
  return NodeLayout(node_of);
}

int NodeLayout::ranks() const noexcept { return data_ ? static_cast<int>(data_->node_of.size()) : 0; }
int NodeLayout::nodes() const noexcept { return data_ ? static_cast<int>(data_->members.size()) : 1; }
int NodeLayout::largest_node() const noexcept { return data_ ? data_->largest : 0; }

int NodeLayout::node_of(int rank) const {
  if (!data_) return 0;
  if (rank < 0 || rank >= ranks())
    throw Error(Errc::invalid_argument, "rank " + std::to_string(rank) + " is outside the node layout");
  return data_->node_of[static_cast<std::size_t>(rank)];
}

std::span<const int> NodeLayout::members(int node) const {
  if (!data_ || node < 0 || node >= nodes())
    throw Error(Errc::invalid_argument, "node " + std::to_string(node) + " is outside the node layout");
  return data_->members[static_cast<std::size_t>(node)];
}

std::string NodeLayout::describe() const {
  if (!data_) return "one node";
  std::size_t smallest = data_->node_of.size();
  for (const auto& m : data_->members) smallest = std::min(smallest, m.size());
  bool consecutive = true;
  for (std::size_t r = 1; r < data_->node_of.size(); ++r)
    consecutive = consecutive && data_->node_of[r] >= data_->node_of[r - 1];
  std::string text = std::to_string(nodes());
  text.append(nodes() == 1 ? " node of " : " nodes of ").append(std::to_string(smallest));
  if (static_cast<int>(smallest) != data_->largest) text.append("-").append(std::to_string(data_->largest));
  text.append(data_->largest == 1 ? " rank" : " ranks");
  if (!consecutive) text.append(", not in blocks");
  return text;
}

std::size_t NodeLayout::hash() const noexcept {
  if (!data_) return 0;
  std::size_t h = data_->node_of.size();
  for (int n : data_->node_of) h = h * 1000003u ^ std::hash<int>{}(n);
  return h;
}

bool operator==(const NodeLayout& a, const NodeLayout& b) noexcept {
  if (a.data_ == b.data_) return true;
  if (!a.data_ || !b.data_) return false;
  return a.data_->node_of == b.data_->node_of;
}

}  // namespace herald
