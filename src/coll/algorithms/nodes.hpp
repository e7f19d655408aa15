// Shared by the node-aware algorithms: the nodes of a Problem with one leader each, and a rank's place in
// its node. The root leads its own node; every other node is led by its lowest rank. Nodes are counted from
// the root's (virtual nodes), as ranks are from the root.
#pragma once

#include <herald/algorithms.hpp>
#include <herald/schedule.hpp>

namespace herald::detail {

class Nodes {
 public:
  explicit Nodes(const Problem& p);
  int count() const noexcept { return layout_.nodes(); }
  // Real node of virtual node v (the root's node is virtual node 0).
  int real_node(int vnode) const noexcept { return (vnode + root_node_) % count(); }
  int virtual_node(int node) const noexcept { return (node - root_node_ + count()) % count(); }
  int node_of(int rank) const { return layout_.node_of(rank); }
  int size(int node) const { return static_cast<int>(layout_.members(node).size()); }
  int leader(int node) const { return global(node, 0); }
  // A rank's index in its node, the leader at 0 and the others after it in rank order, wrapping.
  int local(int rank) const;
  // The rank at `index` in `node`, in that order.
  int global(int node, int index) const;
  int largest() const noexcept { return layout_.largest_node(); }

 private:
  NodeLayout layout_;
  int root_;
  int root_node_;
};

// A leader's program from its two stages: `across` (among leaders, in its own order) and `within` (its
// node's sends, each of one segment). Each step of `within` comes as soon as its bytes are held (at once for
// the root, `holds_all`; else once `across` has received them all) and every send of `across` that carries
// any of them to another node has come: a segment goes on to the other nodes first, then into the node.
// The executor posts sends in program order, so segment k travels within the node while segment k+1
// crosses the network, whatever cuts the stage among leaders makes (segments, halves of a tree's, a
// scatter's pieces).
Program merge_stages(const Program& across, const Program& within, bool holds_all);

// The table algorithm a leader stage runs (chain where unset), and the problem it solves among `nodes`
// leaders (virtual nodes, the root's first), with its defaults.
const AlgorithmInfo& leader_algorithm(std::optional<LeaderStage> stage);
Problem leaders_problem(const Problem& p, int nodes);

// A program of one stage: a pipelined broadcast over a group, in the group's ranks.
using Stage = Program (*)(const Problem&, int);

// A node-aware broadcast of two stages: the problem's leader stage (parameters.leaders) among one leader per
// node, then `within_node` inside each node from its leader (local index 0), merged by merge_stages() so
// that segment k travels within the node while segment k+1 crosses the network.
Program node_stages(const Problem& p, int rank, Stage within_node);

}  // namespace herald::detail
