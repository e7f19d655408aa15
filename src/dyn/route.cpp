#include "route.hpp"
#include <herald/error.hpp>

#include <algorithm>
#include <numeric>
#include <string>

namespace herald::dyn {

Tree tree_of(const Schedule& schedule) {
  const int n = schedule.problem.ranks;
  if (schedule.problem.root != 0)
    throw Error(Errc::invalid_schedule, "a dynamic-broadcast tree must be rooted at virtual rank 0");
  Tree tree{std::vector<int>(n, -1), std::vector<std::vector<int>>(n)};
  auto not_a_tree = [](const std::string& why) {
    throw Error(Errc::invalid_schedule, "schedule is not a tree: " + why);
  };

  for (int r = 0; r < n; ++r) {
    for (const Step& step : schedule.programs[r]) {
      if (step.op != Step::Op::recv) continue;
      if (r == 0) not_a_tree("the root receives from rank " + std::to_string(step.peer));
      if (tree.parent[r] >= 0 && tree.parent[r] != step.peer)
        not_a_tree("rank " + std::to_string(r) + " receives from both " + std::to_string(tree.parent[r]) +
                   " and " + std::to_string(step.peer));
      tree.parent[r] = step.peer;
    }
  }
  for (int r = 0; r < n; ++r) {
    for (const Step& step : schedule.programs[r]) {
      if (step.op != Step::Op::send) continue;
      if (tree.parent[step.peer] != r)
        not_a_tree("rank " + std::to_string(r) + " sends to " + std::to_string(step.peer) +
                   ", which does not receive from it");
      auto& kids = tree.children[r];
      if (std::find(kids.begin(), kids.end(), step.peer) == kids.end()) kids.push_back(step.peer);
    }
  }
  // Every rank must hang below the root; a rank with no parent, or a cycle, is left unreached.
  std::vector<int> frontier{0};
  int reached = 0;
  while (!frontier.empty()) {
    const int v = frontier.back();
    frontier.pop_back();
    ++reached;
    frontier.insert(frontier.end(), tree.children[v].begin(), tree.children[v].end());
  }
  if (reached != n) not_a_tree(std::to_string(n - reached) + " ranks are not reached from the root");
  return tree;
}

Tree tree_of_algorithm(const AlgorithmInfo& algorithm, int group) {
  Tree tree = tree_of(make_schedule(algorithm, {.ranks = group, .root = 0, .bytes = 1}));
  const std::size_t bytes = 64 * static_cast<std::size_t>(group) + 7;
  const Tree check = tree_of(make_schedule(
      algorithm, {.ranks = group, .root = 0, .bytes = bytes, .parameters = {.segment = bytes / 5}}));
  if (check.parent != tree.parent || check.children != tree.children)
    throw Error(Errc::invalid_schedule, "schedule is not a tree: " + std::string(algorithm.name) +
                                            "'s tree changes with the message size");
  return tree;
}

std::vector<int> arrival_rounds(const Tree& tree) {
  std::vector<int> round(tree.parent.size(), 0);
  std::vector<int> frontier{0};
  while (!frontier.empty()) {
    const int v = frontier.back();
    frontier.pop_back();
    const auto& kids = tree.children[v];
    for (std::size_t i = 0; i < kids.size(); ++i) {
      round[kids[i]] = round[v] + static_cast<int>(i) + 1;
      frontier.push_back(kids[i]);
    }
  }
  return round;
}

std::vector<int> depths(const Tree& tree) {
  std::vector<int> depth(tree.parent.size(), 0);
  std::vector<int> frontier{0};
  while (!frontier.empty()) {
    const int v = frontier.back();
    frontier.pop_back();
    for (int c : tree.children[v]) {
      depth[c] = depth[v] + 1;
      frontier.push_back(c);
    }
  }
  return depth;
}

int tree_depth(const Tree& tree) {
  const std::vector<int> depth = depths(tree);
  return depth.empty() ? 0 : *std::max_element(depth.begin(), depth.end());
}

std::vector<int> service_order(const Tree& tree) {
  const std::vector<int> round = arrival_rounds(tree);
  const std::vector<int> depth = depths(tree);
  std::vector<int> order(tree.parent.size() > 0 ? tree.parent.size() - 1 : 0);
  std::iota(order.begin(), order.end(), 1);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (round[a] != round[b]) return round[a] < round[b];
    if (depth[a] != depth[b]) return depth[a] < depth[b];
    return a < b;
  });
  return order;
}

std::vector<RouteEntry> plan_route(const Tree& tree, std::span<const Recipient> recipients) {
  return plan_route(tree, service_order(tree), recipients);
}

std::vector<RouteEntry> plan_route(const Tree& tree, std::span<const int> order,
                                   std::span<const Recipient> recipients) {
  const std::size_t n = tree.parent.size();
  if (n == 0 || recipients.size() != n - 1 || order.size() != n - 1)
    throw Error(Errc::invalid_argument, "a tree of " + std::to_string(n) + " ranks needs " +
                                            std::to_string(n ? n - 1 : 0) + " recipients, got " +
                                            std::to_string(recipients.size()));
  // Highest priority first; stable, so equal priorities keep the caller's order.
  std::vector<std::size_t> by_priority(recipients.size());
  std::iota(by_priority.begin(), by_priority.end(), std::size_t{0});
  std::stable_sort(by_priority.begin(), by_priority.end(),
                   [&](std::size_t a, std::size_t b) { return recipients[a].priority > recipients[b].priority; });
  std::vector<Recipient> placed(n - 1);  // virtual rank - 1 -> recipient placed there
  for (std::size_t i = 0; i < order.size(); ++i) placed[static_cast<std::size_t>(order[i]) - 1] = recipients[by_priority[i]];
  return route_of(tree, placed);
}

Tree tree_of_parents(std::span<const int> parents) {
  const int n = static_cast<int>(parents.size()) + 1;
  Tree tree{std::vector<int>(static_cast<std::size_t>(n), -1), std::vector<std::vector<int>>(static_cast<std::size_t>(n))};
  for (int i = 0; i + 1 < n; ++i) {
    const int p = parents[static_cast<std::size_t>(i)];
    if (p < -1 || p >= n - 1 || p == i)
      throw Error(Errc::invalid_argument, "recipient " + std::to_string(i) + "'s parent " + std::to_string(p) +
                                              " is not -1 (the root) or another of the " + std::to_string(n - 1) +
                                              " recipients");
    tree.parent[static_cast<std::size_t>(i) + 1] = p + 1;
    tree.children[static_cast<std::size_t>(p) + 1].push_back(i + 1);
  }
  // Walking up from each recipient must reach the root within n steps; longer means a cycle.
  for (int v = 1; v < n; ++v) {
    int up = v;
    for (int steps = 0; up != 0; ++steps) {
      if (steps == n)
        throw Error(Errc::invalid_argument, "recipient " + std::to_string(v - 1) +
                                                " is not reached from the root: its parents form a cycle");
      up = tree.parent[static_cast<std::size_t>(up)];
    }
  }
  return tree;
}

std::vector<RouteEntry> route_of(const Tree& tree, std::span<const Recipient> placed) {
  const std::size_t n = tree.parent.size();
  if (n == 0 || placed.size() != n - 1)
    throw Error(Errc::invalid_argument, "a tree of " + std::to_string(n) + " ranks needs " +
                                            std::to_string(n ? n - 1 : 0) + " recipients, got " +
                                            std::to_string(placed.size()));
  // Pre-order walk with an explicit stack (chains can be deep); sizes are filled in on the way back.
  std::vector<RouteEntry> route;
  route.reserve(n - 1);
  struct Frame {
    int vrank;
    std::size_t index;  // where its entry sits in the route
    std::size_t next;   // next child to visit
  };
  std::vector<Frame> stack{{0, 0, 0}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    const auto& kids = tree.children[top.vrank];
    if (top.next < kids.size()) {
      const int child = kids[top.next++];
      const Recipient& r = placed[static_cast<std::size_t>(child) - 1];
      route.push_back({r.rank, r.priority, r.seq, 0});
      stack.push_back({child, route.size() - 1, 0});
      continue;
    }
    if (top.vrank != 0) route[top.index].subtree = static_cast<std::uint32_t>(route.size() - top.index);
    stack.pop_back();
  }
  return route;
}

std::vector<Hop> split_route(std::span<const RouteEntry> route) {
  check_route_shape(route);
  std::vector<Hop> hops;
  for (std::size_t i = 0; i < route.size(); i += route[i].subtree)
    hops.push_back({route[i], route.subspan(i + 1, route[i].subtree - 1)});
  return hops;
}

}  // namespace herald::dyn
