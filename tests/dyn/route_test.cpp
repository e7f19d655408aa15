// Source routing without MPI: trees read off schedules, recipients placed by priority, routes trimmed.
#include <herald/algorithms.hpp>
#include "../../src/dyn/route.hpp"
#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace herald::dyn {
namespace {

Tree tree(const std::string& algorithm, int group, std::size_t bytes = 1, std::optional<std::size_t> segment = {}) {
  return tree_of(make_schedule(find_algorithm(algorithm),
                               {.ranks = group, .root = 0, .bytes = bytes, .parameters = {.segment = segment}}));
}

std::vector<std::string> tree_algorithms() {
  std::vector<std::string> names;
  for (const AlgorithmInfo& a : algorithms()) {
    try {
      tree_of_algorithm(a, 9);
      names.emplace_back(a.name);
    } catch (const Error&) {
    }
  }
  return names;
}

// What each recipient sees, found by walking the route the way forwarders do: the round its data arrives
// in (one send per round per node, in route order), its parent rank and its depth.
struct Seen {
  int round = 0;
  int parent = -1;
  int depth = 0;
};
std::map<int, Seen> walk(std::span<const RouteEntry> route, int origin) {
  std::map<int, Seen> seen;
  std::function<void(std::span<const RouteEntry>, int, int, int)> visit = [&](std::span<const RouteEntry> r,
                                                                              int parent, int round, int depth) {
    const auto hops = split_route(r);
    for (std::size_t i = 0; i < hops.size(); ++i) {
      const int rank = hops[i].to.rank;
      EXPECT_FALSE(seen.count(rank)) << "rank " << rank << " reached twice";
      seen[rank] = {round + static_cast<int>(i) + 1, parent, depth + 1};
      visit(hops[i].route, rank, seen[rank].round, depth + 1);
    }
  };
  visit(route, origin, 0, 0);
  return seen;
}

TEST(Route, BinomialTreeIsTheOneOfTheFigure) {
  // Denis et al., "Using Dynamic Broadcasts...", Figure 1: six recipients; 0 serves 4, then 2, then 1; 4 serves 6 then 5; 2 serves 3.
  const Tree t = tree("binomial", 7);
  EXPECT_EQ(t.children[0], (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(t.children[4], (std::vector<int>{6, 5}));
  EXPECT_EQ(t.children[2], (std::vector<int>{3}));
  EXPECT_EQ(t.parent[5], 4);
  EXPECT_EQ(t.parent[0], -1);
}

TEST(Route, FigureOneRoutesAreTrimmedPerChild) {
  // The origin hands its first child a list of two more ranks, the second one, the last none.
  const Tree t = tree("binomial", 7);
  std::vector<Recipient> r;
  for (int i = 1; i <= 6; ++i) r.push_back({10 + i, 0, 0});
  const auto route = plan_route(t, r);
  const auto hops = split_route(route);
  ASSERT_EQ(hops.size(), 3u);
  EXPECT_EQ(hops[0].route.size(), 2u);
  EXPECT_EQ(hops[1].route.size(), 1u);
  EXPECT_EQ(hops[2].route.size(), 0u);
  // Equal priorities: the recipients' own order is the order they are served in.
  EXPECT_EQ(hops[0].to.rank, 11);
  EXPECT_EQ(hops[1].to.rank, 12);
}

TEST(Route, NonTreeSchedulesAreRefused) {
  for (const char* name : {"scatter_ring", "scatter_ring_tuned", "scatter_rdb", "two_tree", "split_binary"}) {
    for (int group : {3, 8}) {
      try {
        tree_of_algorithm(find_algorithm(name), group);
        ADD_FAILURE() << name << " accepted as a tree over " << group << " ranks";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::invalid_schedule) << name;
      }
    }
  }
  // Trees stay trees at every size.
  for (const char* name : {"linear", "binomial", "chain", "binary", "knomial"})
    EXPECT_NO_THROW(tree_of_algorithm(find_algorithm(name), 8)) << name;
}

TEST(Route, TreeDoesNotDependOnSizeOrSegments) {
  // The endpoint reads the tree off a one-byte schedule and segments by itself.
  for (const std::string& name : tree_algorithms())
    for (int group : {2, 3, 5, 8, 13})
      for (const std::optional<std::size_t> segment : {std::optional<std::size_t>{}, std::optional<std::size_t>{1000}}) {
        const Tree small = tree(name, group);
        const Tree large = tree(name, group, 10007, segment);
        EXPECT_EQ(small.parent, large.parent) << name << " group " << group;
        EXPECT_EQ(small.children, large.children) << name << " group " << group;
      }
}

TEST(Route, EveryRecipientOnceWithConsistentSubTrees) {
  std::mt19937 rng(11);
  for (const std::string& name : tree_algorithms()) {
    for (int k = 1; k <= 40; ++k) {
      const Tree t = tree(name, k + 1);
      std::vector<Recipient> recipients;
      std::vector<int> ranks(200);
      std::iota(ranks.begin(), ranks.end(), 1);
      std::shuffle(ranks.begin(), ranks.end(), rng);
      for (int i = 0; i < k; ++i) recipients.push_back({ranks[i], static_cast<int>(rng() % 5), rng() % 100u});
      const auto route = plan_route(t, recipients);
      ASSERT_EQ(route.size(), static_cast<std::size_t>(k));
      check_route_shape(route);
      const auto seen = walk(route, 0);
      EXPECT_EQ(seen.size(), static_cast<std::size_t>(k)) << name << " k=" << k;
      for (const Recipient& r : recipients) {
        auto it = std::find_if(route.begin(), route.end(), [&](const RouteEntry& e) { return e.rank == r.rank; });
        ASSERT_NE(it, route.end());
        EXPECT_EQ(it->priority, r.priority);
        EXPECT_EQ(it->seq, r.seq);
      }
      // The walked tree has the schedule's shape: same multiset of fan-outs.
      std::multiset<int> fanouts_tree, fanouts_route;
      for (const auto& c : t.children) fanouts_tree.insert(static_cast<int>(c.size()));
      std::map<int, int> kids;
      for (const auto& [rank, s] : seen) ++kids[s.parent];
      fanouts_route.insert(kids[0]);
      for (const auto& [rank, s] : seen) fanouts_route.insert(kids.count(rank) ? kids[rank] : 0);
      EXPECT_EQ(fanouts_tree, fanouts_route) << name << " k=" << k;
    }
  }
}

TEST(Route, HigherPriorityIsServedNoLater) {
  std::mt19937 rng(5);
  for (const std::string& name : tree_algorithms()) {
    for (int trial = 0; trial < 60; ++trial) {
      const int k = 1 + static_cast<int>(rng() % 30);
      std::vector<Recipient> recipients;
      for (int i = 0; i < k; ++i) recipients.push_back({100 + i, static_cast<int>(rng() % 4), 0});
      const auto seen = walk(plan_route(tree(name, k + 1), recipients), 0);
      for (const Recipient& a : recipients) {
        for (const Recipient& b : recipients) {
          if (a.priority > b.priority) {
            EXPECT_LE(seen.at(a.rank).round, seen.at(b.rank).round)
                << name << ": priority " << a.priority << " served after priority " << b.priority;
          }
        }
      }
      // The most urgent recipient is the origin's first child.
      const auto top = std::max_element(recipients.begin(), recipients.end(),
                                        [](const Recipient& x, const Recipient& y) { return x.priority < y.priority; });
      EXPECT_EQ(seen.at(top->rank).round, 1) << name;
    }
  }
}

TEST(Route, SplitPartitionsTheRoute) {
  const Tree t = tree("binomial", 20);
  std::vector<Recipient> recipients;
  for (int i = 0; i < 19; ++i) recipients.push_back({i + 1, 0, 0});
  const auto route = plan_route(t, recipients);
  std::vector<RouteEntry> rebuilt;
  for (const Hop& hop : split_route(route)) {
    rebuilt.push_back(hop.to);
    rebuilt.insert(rebuilt.end(), hop.route.begin(), hop.route.end());
  }
  EXPECT_EQ(rebuilt, route);
}

TEST(Route, PlanNeedsOneRecipientPerRank) {
  const Tree t = tree("binomial", 4);
  std::vector<Recipient> two{{1, 0, 0}, {2, 0, 0}};
  EXPECT_THROW(plan_route(t, two), Error);
}

TEST(Tree, DepthCountsHopsFromTheRoot) {
  // Figure 1's binomial tree over 8 ranks: 0 -> 4 -> 6 -> 7 is the longest path.
  EXPECT_EQ(tree_depth(tree("binomial", 8)), 3);
  EXPECT_EQ(tree_depth(tree("linear", 8)), 1);
  EXPECT_EQ(tree_depth(tree("chain", 8)), 7);
  EXPECT_EQ(tree_depth(tree("binomial", 1)), 0);
  EXPECT_EQ(depths(tree("chain", 4)), (std::vector<int>{0, 1, 2, 3}));
}

TEST(Shape, SerialWorkCountsEveryStepOfTheBusiestRank) {
  const CostModel model{.alpha = 1.0, .beta = 0.001};
  // linear over 3 ranks, 1000 bytes: the root sends twice, 2 * (1 + 1) = 4.
  const Schedule linear = make_schedule(find_algorithm("linear"), {.ranks = 3, .root = 0, .bytes = 1000});
  EXPECT_DOUBLE_EQ(serial_work(linear, model), 4.0);
  // chain over 3 ranks in 100-byte segments: the middle rank receives and sends 10 each, 20 * 1.1 = 22,
  // far above its single-port time, where receives and sends overlap.
  const Schedule chain = make_schedule(find_algorithm("chain"),
                                       {.ranks = 3, .root = 0, .bytes = 1000, .parameters = {.segment = 100}});
  EXPECT_NEAR(serial_work(chain, model), 22.0, 1e-9);
  EXPECT_NEAR(shape_cost(chain, model), 22.0, 1e-9);
  EXPECT_LT(simulate(chain, model).predicted_seconds, 22.0);
}

TEST(Shape, NeverPricedAbovePlainBinomialAndDeeperRivalsNeedTheMargin) {
  for (int group : {2, 3, 4, 5, 9, 17})
    for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{1024}, std::size_t{65536},
                              std::size_t{1} << 20, std::size_t{8} << 20}) {
      const Shape s = choose_shape(group, bytes);
      const double binomial = shape_cost(make_schedule(find_algorithm("binomial"),
                                                       {.ranks = group, .root = 0, .bytes = bytes}),
                                         CostModel{});
      // Within an algorithm, a segment size may be chosen over a cheaper one by up to segment_tie.
      const double slack = 1 + segment_tie;
      EXPECT_LE(s.predicted_seconds, binomial * slack + 1e-15) << group << " ranks, " << bytes << " bytes";
      const auto depth = [&](const std::string& name) { return tree_depth(tree(name, group)); };
      if (s.algorithm != "binomial" && depth(s.algorithm) > depth("binomial")) {
        EXPECT_LE(s.predicted_seconds, shape_margin * binomial * slack + 1e-15) << s.algorithm << " at " << group;
      }
      EXPECT_NO_THROW(tree(s.algorithm, group)) << s.algorithm << " is not a tree";
    }
}

TEST(Shape, SmallGroupsKeepBinomialAndLargeOnesPipeline) {
  // 8 MiB to 2 recipients: a chain's forwarder receives and sends 8 MiB, as much serial work as the
  // binomial root sending it twice, so binomial stays. To 16 recipients the binomial root sends 4 times
  // while a pipelined shape's busiest rank moves the data about twice: that wins by far more than the
  // margin. 1 KiB is latency-bound and goes whole.
  EXPECT_EQ(choose_shape(3, std::size_t{8} << 20).algorithm, "binomial");
  const Shape large = choose_shape(17, std::size_t{8} << 20);
  EXPECT_NE(large.algorithm, "binomial");
  EXPECT_GT(large.segment, 0u);
  for (int group : {3, 4, 5, 9}) EXPECT_EQ(choose_shape(group, 1024).segment, 0u) << group;
}

TEST(Shape, SegmentSizeIsChosenForThePipeline) {
  // A 1 Gbit/s network (alpha 12 us, beta 8 ns/byte), 8 MiB to 7 recipients: a chain wins. Its serial
  // bound is about the same at every segment size (the forwarder moves 8 MiB in and out), one alpha per
  // segment apart, so the strict minimum would be the coarsest size; among sizes that close, the finest
  // pipeline is taken: (128 + 6) hops of 64 KiB against (8 + 6) of 1 MiB.
  const CostModel network{.alpha = 12e-6, .beta = 8e-9};
  const std::size_t bytes = std::size_t{8} << 20;
  const Shape s = choose_shape(8, bytes, network);
  ASSERT_EQ(s.algorithm, "chain");
  EXPECT_EQ(s.segment, std::size_t{64} * 1024);
  const auto at = [&](std::size_t segment) {
    return make_schedule(find_algorithm("chain"),
                         {.ranks = 8, .root = 0, .bytes = bytes, .parameters = {.segment = segment}});
  };
  const double coarse = shape_cost(at(std::size_t{1} << 20), network);
  EXPECT_LT(coarse, s.predicted_seconds) << "the coarse size is strictly cheaper, only within the tie";
  EXPECT_LE(s.predicted_seconds, coarse * (1 + segment_tie));
  EXPECT_LT(simulate(at(std::size_t{64} * 1024), network).predicted_seconds,
            simulate(at(std::size_t{1} << 20), network).predicted_seconds);
}

double beta_time(const CostModel& model, std::size_t bytes) { return model.beta * static_cast<double>(bytes); }

TEST(Shape, OverlappedForwardingPipelinesSmallGroupsToo) {
  // 8 MiB to 2 and 3 recipients on a 1 Gbit/s network. With serial forwarding a forwarder moves the
  // message in and then out, no better than binomial's root sending it twice, so binomial stays. Where
  // network cards forward (overlapped), a pipeline takes little more than one transfer: it wins, priced by
  // the single-port time alone, below binomial's.
  const CostModel network{.alpha = 12e-6, .beta = 8e-9};
  const std::size_t bytes = std::size_t{8} << 20;
  for (int group : {3, 4}) {
    EXPECT_EQ(choose_shape(group, bytes, network, Forwarding::serial).algorithm, "binomial") << group;
    const Shape s = choose_shape(group, bytes, network, Forwarding::overlapped);
    EXPECT_GT(s.segment, 0u) << group << " ranks: " << s.algorithm;
    const Schedule binomial = make_schedule(find_algorithm("binomial"), {.ranks = group, .root = 0, .bytes = bytes});
    EXPECT_LE(s.predicted_seconds, shape_margin * simulate(binomial, network).predicted_seconds) << group;
    EXPECT_LT(s.predicted_seconds, 1.2 * beta_time(network, bytes)) << group << " ranks: " << s.algorithm;
  }
  // The serial bound is what tells them apart: overlapped prices are the simulator's alone.
  const Schedule chain = make_schedule(find_algorithm("chain"),
                                       {.ranks = 4, .root = 0, .bytes = bytes, .parameters = {.segment = 65536}});
  EXPECT_DOUBLE_EQ(shape_cost(chain, network, Forwarding::overlapped), simulate(chain, network).predicted_seconds);
  EXPECT_GT(shape_cost(chain, network, Forwarding::serial), 1.5 * simulate(chain, network).predicted_seconds);
}

TEST(Shape, ShallowerTreesWinWhenMessagesCanOverlap) {
  // 1 KiB to 4 recipients where the latency (2 us) dwarfs the time a message holds its sender (0.8 us of
  // bytes, no gap): the loop of sends costs 3 * 0.8 + 2.8 = 5.2 us, three hops of binomial more. The loop
  // is shallower, so it wins without the margin; with Hockney's gap (= alpha) it costs 4 * 2.8 us and
  // binomial stays.
  const CostModel logp{.alpha = 2e-6, .beta = 8e-10, .gap = 0};
  const Shape s = choose_shape(5, 1024, logp, Forwarding::overlapped);
  EXPECT_EQ(s.algorithm, "linear");
  const Schedule binomial = make_schedule(find_algorithm("binomial"), {.ranks = 5, .root = 0, .bytes = 1024});
  EXPECT_GT(s.predicted_seconds, shape_margin * simulate(binomial, logp).predicted_seconds)
      << "won without the margin, as a shallower tree";
  const CostModel hockney{.alpha = 2e-6, .beta = 8e-10};
  EXPECT_EQ(choose_shape(5, 1024, hockney, Forwarding::overlapped).algorithm, "binomial");
  // One recipient: every tree is the one edge, binomial stays, and the message is not cut for nothing.
  for (std::size_t bytes : {std::size_t{1024}, std::size_t{8} << 20}) {
    const Shape one = choose_shape(2, bytes, logp, Forwarding::overlapped);
    EXPECT_EQ(one.algorithm, "binomial") << bytes;
    EXPECT_EQ(one.segment, 0u) << bytes;
  }
}

TEST(Shape, SharedLinksCarryTheCopiesAsTheChannelSendsThem) {
  // Binomial over 3 ranks: the root sends to both others. The channel bounds bulk bytes per destination,
  // so both copies leave at once, small or bulk, share the root's link and both arrive at alpha + 2 n beta.
  const CostModel fair{.alpha = 2e-6, .beta = 1e-9, .network = Network::fair_sharing};
  const auto binomial = [](std::size_t bytes) {
    return make_schedule(find_algorithm("binomial"), {.ranks = 3, .root = 0, .bytes = bytes});
  };
  const auto beta = [&](std::size_t bytes) { return fair.beta * static_cast<double>(bytes); };
  const std::size_t small = 16 * 1024;
  const std::size_t bulk = std::size_t{1} << 20;
  EXPECT_NEAR(shape_cost(binomial(small), fair, Forwarding::overlapped), fair.alpha + 2 * beta(small), 1e-12);
  EXPECT_NEAR(shape_cost(binomial(bulk), fair, Forwarding::overlapped), fair.alpha + 2 * beta(bulk), 1e-12);
  // The single-port network carries one message per port at a time whatever the window.
  const CostModel ports{.alpha = 2e-6, .beta = 1e-9, .gap = 0};
  EXPECT_NEAR(shape_cost(binomial(small), ports, Forwarding::overlapped), ports.alpha + 2 * beta(small), 1e-12);
}

TEST(Shape, SharedLinksKeepSmallMessagesInShallowTrees) {
  // 1 KiB to 9 recipients on a 10 Gbit/s network of 2 us. On single ports with a small gap the root's
  // copies leave one after the other, so a k-nomial's first children forward early and it looks
  // cheapest; where the copies share the root's link they all arrive late together, and the loop of
  // sends is cheaper than any deeper tree. The margin is smaller there, as the model is closer.
  const CostModel ports{.alpha = 2e-6, .beta = 8e-10, .gap = 2e-8};
  const CostModel fair{.alpha = 2e-6, .beta = 8e-10, .network = Network::fair_sharing, .eager_bytes = 65535};
  EXPECT_NE(choose_shape(10, 1024, ports, Forwarding::overlapped).algorithm, "linear");
  const Shape shared = choose_shape(10, 1024, fair, Forwarding::overlapped);
  EXPECT_EQ(shared.algorithm, "linear");
  EXPECT_EQ(shared.segment, 0u);
  for (const char* deeper : {"binomial", "knomial", "binary"}) {
    const Schedule tree = make_schedule(find_algorithm(deeper), {.ranks = 10, .root = 0, .bytes = 1024});
    EXPECT_GT(shape_cost(tree, fair, Forwarding::overlapped), shared_link_shape_margin * shared.predicted_seconds)
        << deeper;
  }
  EXPECT_LT(shape_margin_for(ports), shape_margin_for(fair));
}

TEST(Route, ACallersTreeIsCheckedAndFollowedForEveryParentListUpToFiveRecipients) {
  // Every list of parents over 1 to 5 recipients (each -2 to 5): the lists that are trees give a route in
  // which each recipient hangs below its parent, children in list order; the others are refused, and a
  // list is a tree exactly when every parent is -1 or another recipient and walking up reaches -1.
  std::size_t trees = 0, refused = 0;
  for (int k = 1; k <= 5; ++k) {
    std::vector<int> parents(static_cast<std::size_t>(k), -2);
    std::vector<Recipient> placed(static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i) placed[static_cast<std::size_t>(i)] = {100 + i, -i, 0};
    while (true) {
      bool in_range = true;
      for (int i = 0; i < k; ++i) {
        const int p = parents[static_cast<std::size_t>(i)];
        in_range = in_range && p >= -1 && p < k && p != i;
      }
      bool reaches = in_range;
      for (int i = 0; reaches && i < k; ++i) {
        int up = i, steps = 0;
        while (up != -1 && steps++ <= k) up = parents[static_cast<std::size_t>(up)];
        reaches = up == -1;
      }
      if (!reaches) {
        EXPECT_THROW(tree_of_parents(parents), Error);
        ++refused;
      } else {
        ++trees;
        const auto seen = walk(route_of(tree_of_parents(parents), placed), 0);
        ASSERT_EQ(seen.size(), static_cast<std::size_t>(k));
        for (int i = 0; i < k; ++i) {
          const int p = parents[static_cast<std::size_t>(i)];
          EXPECT_EQ(seen.at(100 + i).parent, p == -1 ? 0 : 100 + p);
        }
        // Siblings are served in list order: the earlier-listed child arrives in an earlier round.
        for (int i = 0; i < k; ++i)
          for (int j = i + 1; j < k; ++j)
            if (parents[static_cast<std::size_t>(i)] == parents[static_cast<std::size_t>(j)]) {
              EXPECT_LT(seen.at(100 + i).round, seen.at(100 + j).round);
            }
      }
      int i = 0;
      while (i < k && ++parents[static_cast<std::size_t>(i)] > 5) parents[static_cast<std::size_t>(i++)] = -2;
      if (i == k) break;
    }
  }
  // Cayley: (k + 1)^(k - 1) trees on k + 1 labelled vertices rooted at the origin, summed over k = 1..5.
  EXPECT_EQ(trees, 1u + 3u + 16u + 125u + 1296u);
  EXPECT_GT(refused, 0u);
}

TEST(Route, PlanRouteIsRouteOfThePriorityPlacement) {
  // plan_route places by priority, then writes the route as route_of does for that placement.
  const Tree t = tree("binomial", 7);
  std::vector<Recipient> recipients;
  for (int i = 0; i < 6; ++i) recipients.push_back({10 + i, (i * 5) % 7, 0});
  std::vector<int> order = service_order(t);
  std::vector<std::size_t> by_priority(6);
  std::iota(by_priority.begin(), by_priority.end(), std::size_t{0});
  std::stable_sort(by_priority.begin(), by_priority.end(),
                   [&](std::size_t a, std::size_t b) { return recipients[a].priority > recipients[b].priority; });
  std::vector<Recipient> placed(6);
  for (std::size_t i = 0; i < 6; ++i) placed[static_cast<std::size_t>(order[i]) - 1] = recipients[by_priority[i]];
  const auto a = plan_route(t, recipients), b = route_of(t, placed);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].rank, b[i].rank);
    EXPECT_EQ(a[i].subtree, b[i].subtree);
  }
  EXPECT_THROW(route_of(t, std::span(placed).first(5)), Error);
}

TEST(Shape, SerialWorkOnSharedLinksCountsTheOverhead) {
  // On the fair-sharing network alpha is latency, which overlaps; a message costs its rank the overhead.
  const CostModel fair{.alpha = 5e-6, .beta = 1e-9, .network = Network::fair_sharing, .overhead = 1e-7};
  const Schedule linear = make_schedule(find_algorithm("linear"), {.ranks = 4, .root = 0, .bytes = 1000});
  EXPECT_NEAR(serial_work(linear, fair), 3 * (1e-7 + 1e-6), 1e-15);
}

TEST(Shape, ForwardingFromTheEnvironment) {
  ::setenv("HERALD_DYN_FORWARDING", "overlapped", 1);
  EXPECT_EQ(forwarding_from_environment(), Forwarding::overlapped);
  ::setenv("HERALD_DYN_FORWARDING", "serial", 1);
  EXPECT_EQ(forwarding_from_environment(), Forwarding::serial);
  ::setenv("HERALD_DYN_FORWARDING", "fast", 1);
  EXPECT_THROW(forwarding_from_environment(), Error);
  ::unsetenv("HERALD_DYN_FORWARDING");
  EXPECT_EQ(forwarding_from_environment(), std::nullopt);
}

}  // namespace
}  // namespace herald::dyn
