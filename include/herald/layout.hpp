// Which node each rank of a group runs on: what a node-aware broadcast needs to keep its messages between
// nodes few and its messages within nodes cheap. A value type, MPI-free; the MPI layer discovers it for each
// communicator (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED), tests and the simulator build it.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace herald {

class NodeLayout {
 public:
  // No layout known: every rank on one node.
  NodeLayout() = default;
  // `node_of[r]` names rank r's node by any integer; ranks with equal names share a node. Nodes are
  // numbered 0, 1, ... in the order of their lowest rank.
  explicit NodeLayout(std::span<const int> node_of);
  // `per_node` consecutive ranks a node, the last node holding the rest (the launchers' default placement).
  static NodeLayout blocks(int ranks, int per_node);
  // Rank r on node r mod `nodes` (round-robin placement).
  static NodeLayout cyclic(int ranks, int nodes);

  // False for the default layout: one node, or nothing known.
  bool known() const noexcept { return data_ != nullptr; }
  int ranks() const noexcept;
  int nodes() const noexcept;
  int node_of(int rank) const;
  // A node's ranks, in increasing order.
  std::span<const int> members(int node) const;
  // The largest number of ranks on one node.
  int largest_node() const noexcept;
  // "4 nodes of 2-3 ranks, cyclic" and the like, for logs and errors.
  std::string describe() const;
  std::size_t hash() const noexcept;

  friend bool operator==(const NodeLayout& a, const NodeLayout& b) noexcept;

 private:
  struct Data {
    std::vector<int> node_of;             // by rank
    std::vector<std::vector<int>> members;  // by node
    int largest = 0;
  };
  std::shared_ptr<const Data> data_;  // shared: a layout is copied with every Problem
};

}  // namespace herald
