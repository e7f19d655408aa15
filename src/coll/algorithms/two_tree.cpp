// two_tree: the two-tree broadcast of Sanders, Speck and Traff ("Two-tree algorithms for full bandwidth
// broadcast, reduction and scan", 2009).
//
// The message is cut into segments. Two binary trees span the P-1 non-root ranks; the root sends the even
// segments to the top of tree 0 and the odd ones to the top of tree 1, and each tree pipelines its segments
// down. No rank is interior in both trees: a rank forwards (to at most two children) in one tree and is a
// leaf in the other, so every rank receives each segment once and sends about as many segments as it
// receives. (A single binary tree makes interior ranks send every segment twice; two trees halve that.)
//
// Trees: the non-root ranks are numbered 0 .. P-2 (virtual rank - 1). A tree on an interval takes a middle
// element as its top and the two sides as its sub-trees (in-order numbering). Tree t always picks a middle
// element of parity t for an interval of two or more (any such interval has one), so all its interior ranks
// have parity t; one-element intervals are leaves of either parity. This plays the part of the paper's
// mirrored or shifted second tree.
//
// Order: as in the paper, every edge gets a colour, 0 or 1, and carries its tree's segments in rounds of
// that parity only. A rank's two incoming edges (one per tree) have different colours, and so do its
// outgoing edges; then in every round each rank receives at most one segment and sends at most one, and the
// two trees never compete for a port. Such a colouring exists: ports joined by edges form a bipartite graph
// (send ports on one side, receive ports on the other) in which every port has at most two edges, i.e.
// paths and even cycles, whose edges alternate colours. The root sends segment s in round s, so its edge
// into tree t has colour t. A segment crosses an edge in the first round of the edge's colour after it has
// arrived, so segment s reaches rank y in round d_t(y) + s - t (t = s mod 2), d_t(y) fixed by the colours
// on y's path. Each rank lists its steps in that round order.
//
// Cost with S segments of s = n/S bytes: about (S + 2h)(alpha + s beta), h ~ log2 P the trees' height; with
// the best s, n beta + 2 log2 P alpha + sqrt(8 log2 P alpha beta n).
#include "algorithms.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <array>
#include <deque>
#include <utility>
#include <vector>

namespace herald::detail {
namespace {

constexpr int none = -1;

// The top of the tree of parity `parity` on [lo, hi) (non-empty): a middle element of that parity.
int middle(int lo, int hi, int parity) {
  const int size = hi - lo;
  if (size == 1) return lo;
  const int mid = lo + size / 2;  // the centre (upper middle when size is even), lo < mid < hi
  if ((mid & 1) == parity) return mid;
  return size % 2 == 0 ? mid - 1 : mid + 1;  // the lower middle, or a neighbour of the centre
}

// Both trees over the n non-root ranks, with the colour of every edge. An edge is named by its tree and its
// lower end: every non-root rank has exactly one parent in each tree (`none` = the broadcast root).
class TwoTrees {
 public:
  explicit TwoTrees(int n) : n_(n) {
    for (int t = 0; t < 2; ++t) {
      parent_[t].assign(n, none);
      children_[t].assign(n, {none, none});
      top_[t] = build(t, 0, n, none);
    }
    colour_edges();
  }

  int top(int t) const { return top_[t]; }
  int parent(int t, int i) const { return parent_[t][i]; }
  const std::array<int, 2>& children(int t, int i) const { return children_[t][i]; }

  // The round in which rank i receives tree t's first segment; the next ones follow every second round.
  long long first_round(int t, int i) const {
    std::vector<int> path;  // i and its ancestors, up to the top
    for (int j = i; j != none; j = parent_[t][j]) path.push_back(j);
    long long round = -1;  // the root has every segment before round 0
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      ++round;
      if ((round & 1) != colour_[t][*it]) ++round;
    }
    return round;
  }

 private:
  int build(int t, int lo, int hi, int up) {
    if (lo >= hi) return none;
    const int mid = middle(lo, hi, t);
    parent_[t][mid] = up;
    children_[t][mid] = {build(t, lo, mid, mid), build(t, mid + 1, hi, mid)};
    return mid;
  }

  // Two-colours the edges so that edges sharing a port differ: breadth-first over the edges, each edge's
  // neighbours being the other edge into the same rank and the other edge out of the same parent.
  void colour_edges() {
    for (int t = 0; t < 2; ++t) colour_[t].assign(n_, none);
    using Edge = std::pair<int, int>;  // (tree, lower end)
    std::deque<Edge> queue;
    auto visit = [&](Edge e, int colour) {
      int& c = colour_[e.first][e.second];
      if (c == none) {
        c = colour;
        queue.push_back(e);
      } else if (c != colour) {
        throw Error(Errc::invalid_schedule, "two_tree: no edge colouring (the port graph is not bipartite)");
      }
    };
    auto spread = [&] {
      while (!queue.empty()) {
        const auto [t, i] = queue.front();
        queue.pop_front();
        const int other = 1 - colour_[t][i];
        visit({1 - t, i}, other);  // the same receive port
        const int up = parent_[t][i];
        if (up == none) {
          visit({1 - t, top_[1 - t]}, other);  // the root's send port
        } else {
          for (int sibling : children_[t][up])
            if (sibling != none && sibling != i) visit({t, sibling}, other);  // the parent's send port
        }
      }
    };
    visit({0, top_[0]}, 0);  // the root sends even segments in even rounds
    visit({1, top_[1]}, 1);
    spread();
    for (int t = 0; t < 2; ++t)
      for (int i = 0; i < n_; ++i)
        if (colour_[t][i] == none) {
          visit({t, i}, 0);
          spread();
        }
  }

  int n_;
  std::array<int, 2> top_{};
  std::array<std::vector<int>, 2> parent_, colour_;
  std::array<std::vector<std::array<int, 2>>, 2> children_;
};

}  // namespace

Program two_tree_program(const Problem& p, int rank) {
  const int P = p.ranks;
  const auto pieces = segments(p.bytes, p.parameters.segment);
  Program program;
  if (P == 1 || pieces.empty()) return program;
  const TwoTrees trees(P - 1);
  auto real = [&](int index) { return to_real(index + 1, p.root, P); };

  const int v = to_virtual(rank, p.root, P);
  if (v == 0) {
    program.reserve(pieces.size());
    for (std::size_t s = 0; s < pieces.size(); ++s)
      program.push_back({Step::Op::send, real(trees.top(static_cast<int>(s % 2))), pieces[s]});
    return program;
  }

  struct Timed {
    long long round;
    Step step;
  };
  std::vector<Timed> timed;
  timed.reserve(pieces.size() * 2);
  const int i = v - 1;
  for (int t = 0; t < 2; ++t) {
    const int up = trees.parent(t, i);
    const int from = up == none ? p.root : real(up);
    const long long first = trees.first_round(t, i);
    for (std::size_t s = t; s < pieces.size(); s += 2)
      timed.push_back({first + static_cast<long long>(s) - t, {Step::Op::recv, from, pieces[s]}});
    for (int child : trees.children(t, i)) {
      if (child == none) continue;
      const long long at = trees.first_round(t, child);
      for (std::size_t s = t; s < pieces.size(); s += 2)
        timed.push_back({at + static_cast<long long>(s) - t, {Step::Op::send, real(child), pieces[s]}});
    }
  }
  std::stable_sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) { return a.round < b.round; });
  program.reserve(timed.size());
  for (const Timed& e : timed) program.push_back(e.step);
  return program;
}

}  // namespace herald::detail
