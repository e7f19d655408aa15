// hierarchical: a two-level broadcast for ranks spread over nodes, node_size consecutive ranks per node (the
// last node may hold fewer). The root's node is led by the root, every other node by its first rank. A
// binomial tree carries the message between the leaders, then each leader starts a binomial tree within its
// node; a leader serves the other nodes first, since their subtrees lie behind the slower links. Only
// nodes - 1 messages cross between nodes, against up to P - 1 for a flat tree whose ranks ignore where they
// are. Optionally segmented (pipelined down both levels).
// Cost: ceil(log2 nodes) inter-node hops, then ceil(log2 node_size) hops within the node.
#include "algorithms.hpp"
#include "tree.hpp"

#include <algorithm>

namespace herald::detail {

namespace {

struct Layout {
  int ranks, size, nodes, root;
  int node_of(int r) const { return r / size; }
  int first(int node) const { return node * size; }
  int members(int node) const { return std::min(size, ranks - first(node)); }
  int leader(int node) const { return node == node_of(root) ? root : first(node); }
  // A rank's place in its node's tree: its leader at 0, the others after it in rank order, wrapping.
  int local(int r) const {
    const int n = node_of(r);
    return (r - leader(n) + members(n)) % members(n);
  }
  int global(int node, int local_index) const {
    return first(node) + (leader(node) - first(node) + local_index) % members(node);
  }
};

TreeNode node_in(const Layout& l, int rank) {
  TreeNode t;
  const int n = l.node_of(rank);
  const TreeNode inside = binomial_node(l.local(rank), l.members(n));
  if (l.local(rank) == 0) {
    // A leader: its place among the leaders, in nodes counted from the root's.
    const int vnode = (n - l.node_of(l.root) + l.nodes) % l.nodes;
    const TreeNode across = binomial_node(vnode, l.nodes);
    const auto real_node = [&](int v) { return (v + l.node_of(l.root)) % l.nodes; };
    if (across.parent >= 0) t.parent = l.leader(real_node(across.parent));
    for (int c : across.children) t.children.push_back(l.leader(real_node(c)));
  } else {
    t.parent = l.global(n, inside.parent);
  }
  for (int c : inside.children) t.children.push_back(l.global(n, c));
  return t;
}

Layout layout_of(const Problem& p) {
  const int size = p.parameters.node_size > 0 ? std::min(p.parameters.node_size, p.ranks) : p.ranks;
  return {p.ranks, size, (p.ranks + size - 1) / size, p.root};
}

}  // namespace

Program hierarchical_program(const Problem& p, int rank) {
  return tree_program(node_in(layout_of(p), rank), p.bytes, p.parameters.segment);
}

double hierarchical_cost(const Problem& p, const CostModel& m) {
  const Layout l = layout_of(p);
  Problem across = p, inside = p;
  across.ranks = l.nodes;
  inside.ranks = l.size;
  const double between = l.nodes > 1 ? binomial_cost(across, m) : 0.0;
  const double within = l.size > 1 ? binomial_cost(inside, m.within_node()) : 0.0;
  return between + within;
}

}  // namespace herald::detail
