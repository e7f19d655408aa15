// The plan's link queues and the trees planned on them, without MPI: each checked against its rule stated
// directly (from the list of every transfer planned so far, not from per-link clocks) over every small case.
#include "link_plan.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <vector>

namespace herald::runtime::detail {
namespace {

struct Copy {
  int from;
  int to;
  double start;
  double finish;
};

// When a transfer may start, by the rule itself: once its data is there and after every transfer planned
// before it that leaves its sender or reaches its receiver.
double rule_start(const std::vector<Copy>& planned, int from, int to, double ready) {
  double start = ready;
  for (const Copy& c : planned)
    if (c.from == from || c.to == to) start = std::max(start, c.finish);
  return start;
}

TEST(LinkQueues, EveryTransferStartsAsTheRuleSaysOverEverySequenceOfThree) {
  struct Transfer {
    int from, to;
    double ready, length;
  };
  std::vector<Transfer> options;
  for (int from = 0; from < 3; ++from)
    for (int to = 0; to < 3; ++to)
      if (from != to)
        for (double ready : {0.0, 1.0, 2.0})
          for (double length : {1.0, 2.5}) options.push_back({from, to, ready, length});
  std::size_t cases = 0;
  for (const Transfer& a : options)
    for (const Transfer& b : options)
      for (const Transfer& c : options) {
        LinkQueues links;
        std::vector<Copy> planned;
        for (const Transfer& t : {a, b, c}) {
          const double start = links.start(t.from, t.to, t.ready);
          ASSERT_EQ(start, rule_start(planned, t.from, t.to, t.ready));
          links.occupy(t.from, t.to, start + t.length);
          planned.push_back({t.from, t.to, start, start + t.length});
        }
        // Two transfers on one link never overlap.
        for (std::size_t i = 0; i < planned.size(); ++i)
          for (std::size_t j = i + 1; j < planned.size(); ++j)
            if (planned[i].from == planned[j].from || planned[i].to == planned[j].to) {
              ASSERT_LE(planned[i].finish, planned[j].start);
            }
        ++cases;
      }
  EXPECT_EQ(cases, options.size() * options.size() * options.size());
}

// Checks `tree` against the rule of plan_tree stated directly, given the transfers planned before it.
void expect_rule(const PlannedTree& tree, int root, double ready, const std::vector<Need>& given, double seconds,
                 double lag, std::vector<Copy> planned) {
  const std::size_t n = given.size();
  ASSERT_EQ(tree.recipients.size(), n);
  ASSERT_EQ(tree.parents.size(), n);
  // Served by need time, then priority, then as given; each recipient once.
  std::vector<std::size_t> index(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto at = std::find_if(given.begin(), given.end(), [&](const Need& g) { return g.rank == tree.recipients[i].rank; });
    ASSERT_NE(at, given.end());
    index[i] = static_cast<std::size_t>(at - given.begin());
  }
  std::vector<std::size_t> sorted = index;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i) << "a recipient served twice or never";
  for (std::size_t i = 1; i < n; ++i) {
    const Need& a = given[index[i - 1]];
    const Need& b = given[index[i]];
    const bool before = a.need < b.need || (a.need == b.need && (a.priority > b.priority ||
                                                                  (a.priority == b.priority && index[i - 1] < index[i])));
    ASSERT_TRUE(before) << "recipients " << a.rank << " and " << b.rank << " out of order";
  }
  // Each from the holder whose copy would end first, the first such; a holder holds the data.
  std::vector<int> holder{root};
  std::vector<double> first{ready}, last{0.0};
  for (std::size_t i = 0; i < n; ++i) {
    const int r = tree.recipients[i].rank;
    double best = 0;
    std::size_t chosen = 0;
    for (std::size_t h = 0; h < holder.size(); ++h) {
      const double s = rule_start(planned, holder[h], r, first[h]);
      const double f = std::max(s + seconds, last[h]);
      if (h == 0 || f < best) {
        best = f;
        chosen = h;
      }
    }
    ASSERT_EQ(tree.parents[i], static_cast<int>(chosen) - 1) << "recipient " << r;
    ASSERT_LT(tree.parents[i], static_cast<int>(i));
    const double s = rule_start(planned, holder[chosen], r, first[chosen]);
    ASSERT_EQ(tree.starts[i], s);
    ASSERT_EQ(tree.finishes[i], best);
    ASSERT_GE(tree.starts[i], first[chosen]);  // the parent holds (a piece of) the data by then
    planned.push_back({holder[chosen], r, s, best});
    holder.push_back(r);
    first.push_back(s + lag);
    last.push_back(best + lag);
  }
}

TEST(PlannedTree, FollowsTheRuleOverEveryLinkLoadAndNeedOnFiveRanks) {
  // Root 0 and one to four recipients; before the broadcast each rank's outgoing and incoming link is idle
  // or busy (a transfer to or from rank 5 until time 2), each recipient needs the data at 0 or 1 and has
  // priority 0 or 1; pipelined (a piece of a quarter) and store-and-forward.
  std::size_t cases = 0;
  for (int recipients = 1; recipients <= 4; ++recipients) {
    const int ranks = recipients + 1;
    for (unsigned busy = 0; busy < (1u << (2 * ranks)); ++busy)
      for (unsigned needs = 0; needs < (1u << recipients); ++needs)
        for (unsigned priorities : {0u, 0b0101u, 0b1010u})
          for (double lag : {0.25, 1.0}) {
            LinkQueues links;
            std::vector<Copy> planned;
            for (int r = 0; r < ranks; ++r) {
              if (busy & (1u << (2 * r))) {
                links.occupy(r, 5, 2.0);
                planned.push_back({r, 5, 0.0, 2.0});
              }
              if (busy & (1u << (2 * r + 1))) {
                links.occupy(5, r, 2.0);
                planned.push_back({5, r, 0.0, 2.0});
              }
            }
            std::vector<Need> given;
            for (int i = 0; i < recipients; ++i)
              given.push_back({.rank = i + 1, .need = (needs >> i) & 1u ? 1.0 : 0.0,
                               .priority = static_cast<int>((priorities >> i) & 1u)});
            const PlannedTree tree = plan_tree(0, 0.5, given, 1.0, lag, links);
            expect_rule(tree, 0, 0.5, given, 1.0, lag, planned);
            if (HasFatalFailure()) {
              ADD_FAILURE() << "recipients " << recipients << " busy " << busy << " needs " << needs << " lag " << lag;
              return;
            }
            ++cases;
          }
  }
  EXPECT_EQ(cases, 2u * 3u * (16u * 2u + 64u * 4u + 256u * 8u + 1024u * 16u));
}

TEST(PlannedTree, ChainsOnIdleLinksAndSendsFromTheRootWhenForwardersAreBusy) {
  const std::vector<Need> four{{1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}};
  {
    // Idle links, pipelined: each copy from the last recipient ends a piece after its parent's, sooner
    // than the root's next copy could.
    LinkQueues links;
    EXPECT_EQ(plan_tree(0, 0, four, 1.0, 0.1, links).parents, (std::vector<int>{-1, 0, 1, 2}));
  }
  {
    // Every recipient's outgoing link busy for longer than the root takes to send them all.
    LinkQueues links;
    for (int r = 1; r <= 4; ++r) links.occupy(r, 9, 10.0);
    EXPECT_EQ(plan_tree(0, 0, four, 1.0, 0.1, links).parents, (std::vector<int>{-1, -1, -1, -1}));
  }
  {
    // Store and forward on idle links: recipients 1 and 2 from the root (recipient 1 could end 2's copy
    // no sooner), 3 from 1, and 4 from the root, which ties with every other holder.
    LinkQueues links;
    const PlannedTree tree = plan_tree(0, 0, four, 1.0, 1.0, links);
    EXPECT_EQ(tree.parents, (std::vector<int>{-1, -1, 0, -1}));
    EXPECT_EQ(tree.finishes, (std::vector<double>{1, 2, 2, 3}));
  }
  {
    // Recipients served by need, the latest last.
    LinkQueues links;
    const std::vector<Need> late_first{{1, 5, 0}, {2, 0, 0}, {3, 2, 9}, {4, 2, 1}};
    const PlannedTree tree = plan_tree(0, 0, late_first, 1.0, 0.1, links);
    std::vector<int> served;
    for (const Need& n : tree.recipients) served.push_back(n.rank);
    EXPECT_EQ(served, (std::vector<int>{2, 3, 4, 1}));
  }
}

TEST(PlannedTree, RefusesBadInputBeforePlanningAnything) {
  LinkQueues links;
  const std::vector<Need> one{{1, 0, 0}};
  EXPECT_THROW(plan_tree(-1, 0, one, 1, 0.1, links), Error);
  EXPECT_THROW(plan_tree(1, 0, one, 1, 0.1, links), Error);
  EXPECT_THROW(plan_tree(0, -1, one, 1, 0.1, links), Error);
  EXPECT_THROW(plan_tree(0, 0, one, -1, 0.1, links), Error);
  EXPECT_THROW(plan_tree(0, 0, std::vector<Need>{{1, 0, 0}, {1, 1, 0}}, 1, 0.1, links), Error);
  EXPECT_THROW(plan_tree(0, 0, std::vector<Need>{{-2, 0, 0}}, 1, 0.1, links), Error);
  EXPECT_EQ(links.out_free(0), 0.0);
  EXPECT_EQ(links.in_free(1), 0.0);
}

}  // namespace
}  // namespace herald::runtime::detail
