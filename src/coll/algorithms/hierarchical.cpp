// hierarchical: a two-level broadcast for ranks spread over nodes (nodes_of(): any placement, nodes of any
// size). The root's node is led by the root, every other node by its lowest rank. A
// binomial tree carries the message between the leaders, then each leader starts a binomial tree within its
// node; a leader serves the other nodes first, since their subtrees lie behind the slower links. Only
// nodes - 1 messages cross between nodes, against up to P - 1 for a flat tree whose ranks ignore where they
// are. Optionally segmented (pipelined down both levels).
// Cost: ceil(log2 nodes) inter-node hops, then ceil(log2 node_size) hops within the node.
#include "algorithms.hpp"
#include "nodes.hpp"
#include "tree.hpp"

namespace herald::detail {

namespace {

TreeNode node_in(const Nodes& nodes, int rank) {
  TreeNode t;
  const int n = nodes.node_of(rank);
  const int local = nodes.local(rank);
  const TreeNode inside = binomial_node(local, nodes.size(n));
  if (local == 0) {
    // A leader: its place among the leaders, in virtual nodes.
    const TreeNode across = binomial_node(nodes.virtual_node(n), nodes.count());
    if (across.parent >= 0) t.parent = nodes.leader(nodes.real_node(across.parent));
    for (int c : across.children) t.children.push_back(nodes.leader(nodes.real_node(c)));
  } else {
    t.parent = nodes.global(n, inside.parent);
  }
  for (int c : inside.children) t.children.push_back(nodes.global(n, c));
  return t;
}

}  // namespace

Program hierarchical_program(const Problem& p, int rank) {
  return tree_program(node_in(Nodes(p), rank), p.bytes, p.parameters.segment);
}

double hierarchical_cost(const Problem& p, const CostModel& m) {
  const NodeCounts nodes = node_counts(p);
  Problem across = p, inside = p;
  across.ranks = nodes.nodes;
  inside.ranks = nodes.largest;
  const double between = nodes.nodes > 1 ? binomial_cost(across, m) : 0.0;
  const double within = inside.ranks > 1 ? binomial_cost(inside, m.within_node()) : 0.0;
  return between + within;
}

}  // namespace herald::detail
