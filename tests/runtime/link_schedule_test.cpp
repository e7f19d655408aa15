// The schedule on queued links (Link::queued), without MPI: every copy checked against the rule stated
// directly, from the list of copies planned before it (not from per-link timelines), over every mapping of
// small graphs; then the shapes the rule gives a broadcast, and HEFT's schedules on random graphs.
#include <herald/runtime/scheduling.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace herald::runtime {
namespace {

bool overlap(double a0, double a1, double b0, double b1) { return a0 < b1 && b0 < a1; }

// A copy holds its source's outgoing and its worker's incoming link from its start until it ends.
double held_until(const Copy& c) { return c.finish; }

// The earliest start at or after `ready` of a copy from `from` to `to`, by the rule: the first moment, of
// `ready` and the ends of the copies planned before it on either link, from which neither link carries
// another copy for `length`, nor before `until` (a forwarder's source's last piece).
double rule_start(const std::vector<Copy>& before, std::size_t from, std::size_t to, double ready, double length,
                  double until = 0) {
  std::vector<double> candidates{ready};
  for (const Copy& c : before)
    if (c.source == from || c.worker == to) candidates.push_back(held_until(c));
  std::sort(candidates.begin(), candidates.end());
  for (double t : candidates) {
    if (t < ready) continue;
    bool free = true;
    for (const Copy& c : before)
      if ((c.source == from || c.worker == to) && overlap(t, std::max(t + length, until), c.start, held_until(c))) free = false;
    if (free) return t;
  }
  ADD_FAILURE() << "no start";
  return 0;
}

// Checks `s` against the rule: each copy in the order planned comes from the holder (the producer first,
// then, forwarded, the workers copied to before, in that order) whose copy would end first, at the start
// the rule gives; every input a task lacks on its worker arrives once, before the task starts; no two
// tasks of one worker overlap (one lane).
void expect_follows_the_rule(const Workload& w, const Link& link, const TaskSchedule& s) {
  for (std::size_t i = 0; i < s.copies.size(); ++i) {
    const Copy& c = s.copies[i];
    const std::vector<Copy> before(s.copies.begin(), s.copies.begin() + static_cast<std::ptrdiff_t>(i));
    std::size_t bytes = 0;
    for (const Edge& e : w.edges)
      if (e.from == c.from && e.datum == c.datum) bytes = e.bytes;
    const double length = link.seconds(bytes);
    const double lag = link.piece == 0 ? 0.0 : link.seconds(std::min(link.piece, bytes));
    const Slot& producer = s.tasks[c.from];
    ASSERT_NE(c.worker, producer.worker) << "copy " << i;
    std::size_t source = producer.worker;
    double start = rule_start(before, producer.worker, c.worker, producer.finish, length);
    double finish = start + length;
    if (link.forwarded)
      for (const Copy& h : before) {
        if (h.from != c.from || h.datum != c.datum) continue;
        ASSERT_NE(h.worker, c.worker) << "output copied twice to one worker, copy " << i;
        const double first = link.piece == 0 ? h.finish : h.start + lag;
        const double last = link.piece == 0 ? 0.0 : h.finish + lag;
        const double t = rule_start(before, h.worker, c.worker, first, length, last);
        if (std::max(t + length, last) < finish) {
          source = h.worker;
          start = t;
          finish = std::max(t + length, last);
        }
      }
    EXPECT_EQ(c.source, source) << "copy " << i;
    EXPECT_DOUBLE_EQ(c.start, start) << "copy " << i;
    EXPECT_DOUBLE_EQ(c.finish, finish) << "copy " << i;
  }
  for (const Edge& e : w.edges) {
    const Slot& from = s.tasks[e.from];
    const Slot& to = s.tasks[e.to];
    if (from.worker == to.worker) {
      EXPECT_GE(to.start, from.finish);
      continue;
    }
    if (e.bytes == 0) {
      EXPECT_GE(to.start, from.finish + link.seconds(0));
      continue;
    }
    int copies = 0;
    for (const Copy& c : s.copies)
      if (c.from == e.from && c.datum == e.datum && c.worker == to.worker) {
        ++copies;
        EXPECT_GE(to.start, c.finish) << "task " << e.to << " starts before its input arrives";
      }
    EXPECT_EQ(copies, 1) << "edge " << e.from << " -> " << e.to;
  }
  for (std::size_t a = 0; a < s.tasks.size(); ++a)
    for (std::size_t b = a + 1; b < s.tasks.size(); ++b)
      if (s.tasks[a].worker == s.tasks[b].worker && s.tasks[a].lane == s.tasks[b].lane) {
        EXPECT_FALSE(overlap(s.tasks[a].start, s.tasks[a].finish, s.tasks[b].start, s.tasks[b].finish)) << a << ", " << b;
      }
}

TEST(QueuedLinks, EveryCopyFollowsTheRuleOverEveryMappingOfSmallGraphs) {
  // Two producers (outputs 0 and 1) and three consumers, each reading one, the other or both, on three
  // workers: every mapping, with outputs of one and of three bytes' time, compute times of 1 and 2, from
  // the producer only, forwarded whole, and forwarded in pieces.
  std::size_t schedules = 0;
  for (int reads = 0; reads < 27; ++reads)
    for (int sizes = 0; sizes < 4; ++sizes)
      for (int mode = 0; mode < 3; ++mode) {
        Workload w;
        w.workers = 3;
        w.compute = {{1, 1, 1}, {2, 2, 2}, {1, 1, 1}, {2, 2, 2}, {1, 1, 1}};
        const std::size_t bytes[2] = {sizes & 1 ? 3u : 1u, sizes & 2 ? 3u : 1u};
        for (std::size_t consumer = 0, r = static_cast<std::size_t>(reads); consumer < 3; ++consumer, r /= 3) {
          const std::size_t which = r % 3;  // 0: output 0, 1: output 1, 2: both
          if (which != 1) w.edges.push_back({0, 2 + consumer, bytes[0], 0});
          if (which != 0) w.edges.push_back({1, 2 + consumer, bytes[1], 1});
        }
        const Link link{.alpha = 0, .beta = 1, .queued = true, .forwarded = mode > 0, .piece = mode == 2 ? 1u : 0u};
        std::vector<std::size_t> worker_of(5);
        for (int m = 0; m < 243; ++m) {
          for (std::size_t t = 0, x = static_cast<std::size_t>(m); t < 5; ++t, x /= 3) worker_of[t] = x % 3;
          const TaskSchedule s = mapped(w, link, worker_of);
          expect_follows_the_rule(w, link, s);
          // Placed in task order, each task starts at the first moment, of its inputs' arrival and the ends
          // of the tasks placed before it on its worker, when its worker is idle for its length.
          for (std::size_t t = 0; t < 5; ++t) {
            double ready = 0;
            for (const Edge& e : w.edges) {
              if (e.to != t) continue;
              ready = std::max(ready, s.tasks[e.from].finish);
              for (const Copy& c : s.copies)
                if (c.from == e.from && c.datum == e.datum && c.worker == worker_of[t]) ready = std::max(ready, c.finish);
            }
            std::vector<std::size_t> before;
            for (std::size_t u = 0; u < t; ++u)
              if (worker_of[u] == worker_of[t]) before.push_back(u);
            std::vector<double> candidates{ready};
            for (std::size_t u : before)
              if (s.tasks[u].finish >= ready) candidates.push_back(s.tasks[u].finish);
            std::sort(candidates.begin(), candidates.end());
            const double length = w.compute[t][worker_of[t]];
            double start = -1;
            for (double c : candidates) {
              bool idle = true;
              for (std::size_t u : before)
                if (overlap(c, c + length, s.tasks[u].start, s.tasks[u].finish)) idle = false;
              if (idle) {
                start = c;
                break;
              }
            }
            EXPECT_DOUBLE_EQ(s.tasks[t].start, start) << "task " << t;
          }
          ++schedules;
          if (::testing::Test::HasFailure()) return;
        }
      }
  EXPECT_EQ(schedules, 27u * 4 * 3 * 243);
}

// One producer on worker 0 and a reader on each of workers 1 to 4, each copy of 4 s on idle links.
Workload star() {
  Workload w;
  w.workers = 5;
  w.compute.assign(5, std::vector<double>(5, 1.0));
  for (std::size_t r = 1; r < 5; ++r) w.edges.push_back({0, r, 4, 7});
  return w;
}

std::vector<std::size_t> sources(const TaskSchedule& s) {
  std::vector<std::size_t> out;
  for (const Copy& c : s.copies) out.push_back(c.source);
  return out;
}

TEST(QueuedLinks, ABroadcastIsTheRootsSendsATreeOrAChainAsTheRuleGives) {
  const Workload w = star();
  const std::vector<std::size_t> spread{0, 1, 2, 3, 4};
  // Contention-free: every copy at once.
  const TaskSchedule free = mapped(w, {.alpha = 0, .beta = 1}, spread);
  EXPECT_TRUE(free.copies.empty());
  for (std::size_t r = 1; r < 5; ++r) EXPECT_DOUBLE_EQ(free.tasks[r].start, 5.0);
  // Queued, from the producer only: its outgoing link sends one copy after another.
  const TaskSchedule root = mapped(w, {.alpha = 0, .beta = 1, .queued = true}, spread);
  EXPECT_EQ(sources(root), (std::vector<std::size_t>{0, 0, 0, 0}));
  for (std::size_t r = 1; r < 5; ++r) EXPECT_DOUBLE_EQ(root.tasks[r].start, 1.0 + 4.0 * static_cast<double>(r));
  // Forwarded whole: each holder sends once its copy is in, a binomial tree (ties to the producer).
  const TaskSchedule tree = mapped(w, {.alpha = 0, .beta = 1, .queued = true, .forwarded = true}, spread);
  EXPECT_EQ(sources(tree), (std::vector<std::size_t>{0, 0, 1, 0}));
  EXPECT_DOUBLE_EQ(tree.tasks[4].start, 13.0);
  // Forwarded in pieces of one second: each holder passes the data on as it lands, a chain.
  const TaskSchedule chain = mapped(w, {.alpha = 0, .beta = 1, .queued = true, .forwarded = true, .piece = 1}, spread);
  EXPECT_EQ(sources(chain), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(chain.tasks[4].start, 1.0 + 4.0 + 3.0);
  // A busy forwarder: worker 1's outgoing link carries another output (20 s) from time 1 on, so the chain
  // goes around it: the producer sends to workers 1 and 2, and 2 passes the data on to 3, 3 to 4.
  Workload busy;
  busy.workers = 5;
  busy.compute.assign(7, std::vector<double>(5, 1.0));
  busy.edges = {{1, 2, 20, 8}};
  for (std::size_t r = 3; r < 7; ++r) busy.edges.push_back({0, r, 4, 7});
  const TaskSchedule around = mapped(busy, {.alpha = 0, .beta = 1, .queued = true, .forwarded = true, .piece = 1},
                                     std::vector<std::size_t>{0, 1, 0, 1, 2, 3, 4});
  EXPECT_EQ(sources(around), (std::vector<std::size_t>{1, 0, 0, 2, 3}));
}

TEST(QueuedLinks, HeftSchedulesOnQueuedLinksAreValid) {
  std::mt19937 rng(11);
  for (int graph = 0; graph < 300; ++graph) {
    Workload w;
    w.workers = 2 + rng() % 3;
    const std::size_t n = 2 + rng() % 9;
    for (std::size_t t = 0; t < n; ++t) {
      w.compute.emplace_back();
      for (std::size_t k = 0; k < w.workers; ++k) w.compute.back().push_back(1.0 + static_cast<double>(rng() % 4));
      for (std::size_t from = 0; from < t; ++from)
        if (rng() % 3 == 0) w.edges.push_back({from, t, from * 7 % 5, 0});  // one size per output
    }
    for (int mode = 0; mode < 3; ++mode) {
      const Link link{.alpha = 0.5, .beta = 1, .queued = true, .forwarded = mode > 0, .piece = mode == 2 ? 1u : 0u};
      const TaskSchedule s = heft(w, link);
      expect_follows_the_rule(w, link, s);
      // No two copies overlap on a link.
      for (std::size_t a = 0; a < s.copies.size(); ++a)
        for (std::size_t b = a + 1; b < s.copies.size(); ++b) {
          const Copy& x = s.copies[a];
          const Copy& y = s.copies[b];
          if (x.source == y.source || x.worker == y.worker) {
            EXPECT_FALSE(overlap(x.start, held_until(x), y.start, held_until(y))) << "graph " << graph;
          }
        }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace herald::runtime
