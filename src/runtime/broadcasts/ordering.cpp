#include "ordering.hpp"

#include "../link_plan.hpp"

#include <herald/algorithms.hpp>
#include <herald/error.hpp>

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>

namespace herald::runtime::detail {

namespace {

// The bytes a broadcast's holder sends itself in the broadcast's tree, where the runtime knows the tree: every
// recipient's copy (p2p), those of the recipients the forwarding tree hangs below it (dynbcast with the
// runtime's tree), or its sends in the shape dyn chose (dyn's own tree). mpibcast leaves the tree to MPI.
std::optional<std::uint64_t> holder_sends(const BroadcastOrder& b, const ShapeOf& shape_of) {
  const std::uint64_t recipients = b.recipients.size();
  switch (b.strategy) {
    case BroadcastStrategy::p2p: return b.bytes * recipients;
    case BroadcastStrategy::dynbcast: {
      if (!b.parents.empty())
        return b.bytes * static_cast<std::uint64_t>(std::count(b.parents.begin(), b.parents.end(), -1));
      if (!shape_of) return std::nullopt;
      const dyn::Shape shape = shape_of(static_cast<int>(recipients), b.bytes);
      Problem problem{.ranks = static_cast<int>(recipients) + 1, .root = 0, .bytes = b.bytes};
      if (shape.segment > 0) problem.parameters.segment = shape.segment;
      std::uint64_t sent = 0;
      const Schedule schedule = make_schedule(find_algorithm(shape.algorithm), problem);
      for (const Step& step : schedule.programs[0])
        if (step.op == Step::Op::send) sent += step.range.length;
      return sent;
    }
    default: return std::nullopt;
  }
}

// The tree the schedule planned for `b`: its recipients in the order the schedule copies to them, each
// below the root or a recipient served before; nothing where the copies miss a recipient or come from a
// rank outside the broadcast.
bool tree_from_schedule(BroadcastOrder& b, const FoundBroadcast& f, const PlannedCopies& copies) {
  const auto it = copies.find({f.made_by, f.key.handle});
  if (it == copies.end()) return false;
  std::vector<int> served;
  std::vector<int> parents;
  for (const PlannedCopy& c : it->second) {
    if (std::find(f.recipients.begin(), f.recipients.end(), c.rank) == f.recipients.end()) continue;
    if (std::find(served.begin(), served.end(), c.rank) != served.end()) continue;
    const auto parent = std::find(served.begin(), served.end(), c.source);
    if (c.source != f.root && parent == served.end()) return false;
    parents.push_back(c.source == f.root ? -1 : static_cast<int>(parent - served.begin()));
    served.push_back(c.rank);
  }
  if (served.size() != f.recipients.size()) return false;
  b.recipients.clear();
  b.priorities.clear();
  for (int r : served) {
    b.recipients.push_back(r);
    b.priorities.push_back(f.priorities[static_cast<std::size_t>(std::find(f.recipients.begin(), f.recipients.end(), r) - f.recipients.begin())]);
  }
  b.parents = std::move(parents);
  return true;
}

// The batch's dynamic broadcasts' trees: the schedule's (tree_from_schedule), else planned on the links
// (link_plan.hpp), in the order their versions are ready in the plan (among equals, by id): each order's
// recipients become the order served, with their parents. Returns, per order, whether the schedule's copies
// gave its tree (for the log).
std::vector<bool> plan_trees(std::span<BroadcastOrder> orders, std::span<const FoundBroadcast> found,
                             const ControlSettings& settings, const PlannedCopies& copies) {
  std::vector<bool> from_schedule(orders.size(), false);
  std::vector<std::size_t> by_ready;
  for (std::size_t i = 0; i < orders.size(); ++i)
    if (orders[i].strategy == BroadcastStrategy::dynbcast) by_ready.push_back(i);
  std::stable_sort(by_ready.begin(), by_ready.end(), [&](std::size_t a, std::size_t b) { return found[a].ready < found[b].ready; });
  LinkQueues links;  // the batch's schedule starts with the links idle
  std::vector<Need> needs;
  for (std::size_t i : by_ready) {
    BroadcastOrder& b = orders[i];
    const FoundBroadcast& f = found[i];
    if (tree_from_schedule(b, f, copies)) {
      from_schedule[i] = true;
      continue;
    }
    needs.clear();
    for (std::size_t r = 0; r < f.recipients.size(); ++r)
      needs.push_back({.rank = f.recipients[r], .need = f.needs[r], .priority = f.priorities[r]});
    // A forwarder passes a piece on once it has landed: dyn's segment for this size (it keeps the caller's
    // tree and sets only that), else the whole message.
    std::size_t piece = b.bytes;
    if (settings.shape)
      if (const std::size_t segment = settings.shape(static_cast<int>(needs.size()), b.bytes).segment; segment > 0)
        piece = std::min(piece, segment);
    const PlannedTree tree = plan_tree(b.root, f.ready, needs, settings.link.seconds(b.bytes), settings.link.seconds(piece), links);
    b.recipients.clear();
    b.priorities.clear();
    for (const Need& n : tree.recipients) {
      b.recipients.push_back(n.rank);
      b.priorities.push_back(n.priority);
    }
    b.parents = tree.parents;
  }
  return from_schedule;
}

}  // namespace

Link schedule_link(const ControlSettings& settings, const Workload& workload) {
  const std::size_t workers = workload.workers;
  std::size_t largest = 0;
  for (const Edge& e : workload.edges) largest = std::max(largest, e.bytes);
  Link link = settings.link;
  link.queued = true;
  const bool dynamic = settings.broadcast == BroadcastStrategy::dynbcast || settings.broadcast == BroadcastStrategy::automatic;
  if (dynamic && workers > 2) {
    link.forwarded = true;
    link.piece = largest;
    if (settings.shape && largest > 0)
      if (const std::size_t segment = settings.shape(static_cast<int>(workers) - 1, largest).segment; segment > 0)
        link.piece = std::min(largest, segment);
  }
  return link;
}

std::vector<BroadcastOrder> order_broadcasts(std::vector<FoundBroadcast>& found, BroadcastNumbering& numbering,
                                             Statistics& stats, const DataPlan& plan,
                                             const ControlSettings& settings, std::optional<int> rank,
                                             const PlannedCopies& copies) {
  std::stable_sort(found.begin(), found.end(),
                   [](const FoundBroadcast& a, const FoundBroadcast& b) { return a.made_by < b.made_by; });
  // Every process resolves every broadcast, its own or not: the ledger and the link plan must see them all.
  std::vector<BroadcastOrder> all;
  all.reserve(found.size());
  for (const FoundBroadcast& f : found) {
    BroadcastOrder& b = all.emplace_back(order_of(f, ++numbering.made, plan.datum(f.key.handle).bytes));
    b.strategy = settings.broadcast;
    if (b.strategy == BroadcastStrategy::automatic) {
      const dyn::Shape shape = settings.shape(static_cast<int>(b.recipients.size()), b.bytes);
      b.strategy = shape.algorithm == "linear" ? BroadcastStrategy::p2p : BroadcastStrategy::dynbcast;
    }
    if (b.strategy == BroadcastStrategy::dynbcast && settings.trees == BroadcastTrees::spread)
      b.parents = numbering.ledger.tree(b.root, b.recipients, b.bytes);
  }
  std::vector<bool> from_schedule;
  if (settings.trees == BroadcastTrees::planned) from_schedule = plan_trees(all, found, settings, copies);
  std::vector<BroadcastOrder> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    BroadcastOrder& b = all[i];
    ++stats.broadcasts;
    stats.broadcast_recipients += b.recipients.size();
    stats.broadcast_bytes += b.bytes * b.recipients.size();
    if (const auto sent = holder_sends(b, settings.shape))
      stats.broadcast_bytes_saved += b.bytes * b.recipients.size() - std::min(*sent, b.bytes * b.recipients.size());
    if (rank && b.root != *rank && std::find(b.recipients.begin(), b.recipients.end(), *rank) == b.recipients.end())
      continue;
    b.sync = settings.sync;  // head control only (replicated control refuses it): the head says go
    // One line a broadcast: the head's, or under replicated control its root's (every rank finds it); with
    // the runtime's own tree, how many recipients the root serves itself and how deep the tree is.
    if (settings.log && (!rank || b.root == *rank)) {
      std::string tree;
      if (!b.parents.empty()) {
        std::vector<int> depth(b.parents.size(), 1);
        for (std::size_t i = 0; i < b.parents.size(); ++i)
          if (b.parents[i] >= 0) depth[i] = depth[static_cast<std::size_t>(b.parents[i])] + 1;
        tree = ", " + to_string(settings.trees) + " tree: " +
               std::to_string(std::count(b.parents.begin(), b.parents.end(), -1)) + " from the root, depth " +
               std::to_string(*std::max_element(depth.begin(), depth.end()));
        // A planned tree is the schedule's own copies where they reach every recipient, else planned on the links.
        if (i < from_schedule.size()) tree += from_schedule[i] ? ", the schedule's copies" : ", on the link plan";
      }
      std::fprintf(stderr, "herald runtime: broadcast %llu of '%s' version %u, %llu bytes, from rank %d to %zu ranks, %s%s%s\n",
                   static_cast<unsigned long long>(b.id),
                   plan.datum(b.key.handle).name.c_str(), b.key.version, static_cast<unsigned long long>(b.bytes),
                   b.root, b.recipients.size(), to_string(b.strategy).c_str(), tree.c_str(), b.sync ? ", synchronised" : "");
    }
    out.push_back(std::move(b));
  }
  found.clear();
  return out;
}

void complete_statistics(Statistics& stats, const DataPlan& plan, const ControlSettings& settings, int workers,
                         bool head_control) {
  stats.p2p_fetches = stats.fetches - std::min(stats.fetches, stats.broadcast_recipients);
  stats.p2p_bytes = stats.bytes_moved - std::min(stats.bytes_moved, stats.broadcast_bytes);
  const DataPlan::NotBroadcast skipped = plan.not_broadcast();
  stats.broadcasts_not_run = skipped.off + skipped.unbroadcastable;
  stats.broadcasts_not_run_why.clear();
  const auto why = [&](std::uint64_t count, const std::string& reason) {
    if (count == 0) return;
    if (!stats.broadcasts_not_run_why.empty()) stats.broadcasts_not_run_why += "; ";
    stats.broadcasts_not_run_why += std::to_string(count) + " " + reason;
  };
  why(skipped.off, settings.broadcast == BroadcastStrategy::nobcast
                       ? "as the broadcast strategy is nobcast (HERALD_RUNTIME_BCAST)"
                       : "as broadcasts need three ranks or more under head control");
  why(skipped.unbroadcastable, "as pieces of a reduction, which their readers fetch");
  stats.broadcasts_impossible.clear();
  if (head_control && workers < 2 && settings.broadcast != BroadcastStrategy::nobcast)
    stats.broadcasts_impossible = "broadcast strategy " + to_string(settings.broadcast) +
                                  " does nothing with one worker: no version is read on two ranks apart from its holder";
}

}  // namespace herald::runtime::detail
