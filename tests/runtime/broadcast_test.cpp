// Broadcast detection on dispatch plans: hand-made cases, and random plans checked against the rule
// itself (a version read on two or more processes that neither hold it nor make it).
#include "broadcast.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace herald::runtime::detail {
namespace {

PlanStep read(Key k, int rank, int priority = 0) { return {false, k, rank, priority}; }
PlanStep write(Key k, int rank) { return {true, k, rank, 0}; }

TEST(Broadcasts, EnteredDataReadOnEveryWorkerIsOneBroadcastFromTheHead) {
  const Key entered{0, 1};
  const std::vector<PlanStep> steps{read(entered, 1), read(entered, 2, 5), read(entered, 3), read(entered, 2, 7)};
  const auto found = find_broadcasts(steps, [](const Key&) { return Replicas::held(0, {0}); });
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].root, 0);
  EXPECT_EQ(found[0].recipients, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(found[0].priorities, (std::vector<int>{0, 7, 0}));  // rank 2: its most urgent reader's
}

TEST(Broadcasts, ReadersThatHoldOrMakeTheVersionAreNoRecipients) {
  const Key held{0, 1}, made{1, 1};
  const std::vector<PlanStep> steps{read(held, 1), read(held, 2), write(made, 3), read(made, 3), read(made, 1)};
  const auto found = find_broadcasts(steps, [](const Key&) { return Replicas::held(1, {1, 2}); });
  EXPECT_TRUE(found.empty());  // `held`: every reader holds it; `made`: one reader lacks it
}

TEST(Broadcasts, AVersionMadeInTheDispatchIsRootedAtItsWriterAndOrderedByReadiness) {
  const Key early{0, 1}, late{1, 2}, entered{2, 1};
  const std::vector<PlanStep> steps{write(early, 1), write(late, 2), read(late, 1), read(late, 3),
                                    read(early, 2), read(early, 3), read(entered, 1), read(entered, 2)};
  const auto found = find_broadcasts(steps, [](const Key&) { return Replicas::held(0, {0}); });
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].key, entered);  // ready before the dispatch
  EXPECT_EQ(found[1].key, early);
  EXPECT_EQ(found[1].root, 1);
  EXPECT_EQ(found[2].key, late);
  EXPECT_EQ(found[2].root, 2);
  EXPECT_EQ(found[2].recipients, (std::vector<int>{1, 3}));
}

TEST(Broadcasts, RandomPlansFollowTheRule) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const int ranks = 2 + static_cast<int>(random() % 6);
    const int handles = 1 + static_cast<int>(random() % 4);
    std::vector<PlanStep> steps;
    std::vector<std::uint32_t> version(static_cast<std::size_t>(handles), 1);
    for (int s = 0, n = static_cast<int>(random() % 30); s < n; ++s) {
      const auto h = static_cast<std::uint32_t>(random() % static_cast<unsigned>(handles));
      const int rank = static_cast<int>(random() % static_cast<unsigned>(ranks));
      if (random() % 4 == 0) {
        steps.push_back(write({h, ++version[h]}, rank));
      } else {
        steps.push_back(read({h, version[h]}, rank, static_cast<int>(random() % 3)));
      }
    }
    // Versions 1 were made before the dispatch, on rank h % ranks, which alone holds them.
    auto before = [&](const Key& k) {
      EXPECT_EQ(k.version, 1u);
      const int origin = static_cast<int>(k.handle) % ranks;
      return Replicas::held(origin, {origin});
    };
    const auto found = find_broadcasts(steps, before);
    // The rule, directly: per version, its maker and the ranks reading it.
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> maker;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<int>> readers;
    for (const PlanStep& s : steps) {
      const auto k = std::pair{s.key.handle, s.key.version};
      if (s.write) maker[k] = s.rank;
      else readers[k].insert(s.rank);
    }
    std::size_t expected = 0;
    for (const auto& [k, ranks_reading] : readers) {
      const int root = maker.contains(k) ? maker[k] : static_cast<int>(k.first) % ranks;
      std::set<int> lacking = ranks_reading;
      lacking.erase(root);
      const auto it = std::find_if(found.begin(), found.end(),
                                   [&](const FoundBroadcast& f) { return f.key == Key{k.first, k.second}; });
      if (lacking.size() < 2) {
        EXPECT_EQ(it, found.end());
        continue;
      }
      ++expected;
      ASSERT_NE(it, found.end());
      EXPECT_EQ(it->root, root);
      EXPECT_EQ(std::set<int>(it->recipients.begin(), it->recipients.end()), lacking);
      EXPECT_EQ(it->recipients.size(), lacking.size());  // each once
      EXPECT_EQ(it->priorities.size(), it->recipients.size());
    }
    EXPECT_EQ(found.size(), expected);
    for (std::size_t i = 1; i < found.size(); ++i) EXPECT_LE(found[i - 1].ready_step, found[i].ready_step);
  }
}

TEST(Replicas, FollowTheRuleOverEverySmallHistory) {
  // Replicated control keeps one Replicas per datum as tasks are placed, across batches (served() between
  // them) and new versions (made()). Every history of up to 5 events over 3 ranks, against the rule stated
  // directly: since the version was made, every rank that read it holds it; the recipients are the ranks
  // whose first read of it came since the last served(), in that order, each with its highest priority
  // among its reads since then.
  struct Event {
    enum Kind { read, write, serve } kind;
    int rank = 0;
    int priority = 0;
  };
  std::vector<Event> alphabet;
  for (int r = 0; r < 3; ++r) {
    for (int p = 0; p < 2; ++p) alphabet.push_back({Event::read, r, p});
    alphabet.push_back({Event::write, r, 0});
  }
  alphabet.push_back({Event::serve, 0, 0});
  const auto size = alphabet.size();
  std::size_t histories = 0;
  for (int length = 0; length <= 5; ++length) {
    std::size_t count = 1;
    for (int i = 0; i < length; ++i) count *= size;
    for (std::size_t code = 0; code < count; ++code) {
      std::vector<Event> history;
      for (std::size_t c = code, i = 0; i < static_cast<std::size_t>(length); ++i, c /= size)
        history.push_back(alphabet[c % size]);
      Replicas replicas = Replicas::held(0, {0});
      std::vector<bool> held_answers;
      for (const Event& e : history) {
        if (e.kind == Event::read) held_answers.push_back(replicas.read(e.rank, e.priority));
        if (e.kind == Event::write) replicas.made(e.rank);
        if (e.kind == Event::serve) replicas.served();
      }
      // The rule: from the last write (or the start, where rank 0 made it) and the last serve after it.
      std::size_t made_at = 0, served_at = 0;
      int origin = 0;
      for (std::size_t i = 0; i < history.size(); ++i) {
        if (history[i].kind == Event::write) {
          made_at = served_at = i + 1;
          origin = history[i].rank;
        }
        if (history[i].kind == Event::serve) served_at = i + 1;
      }
      std::set<int> holders{origin};
      std::vector<int> recipients, priorities;
      for (std::size_t i = made_at; i < history.size(); ++i) {
        const Event& e = history[i];
        if (e.kind != Event::read) continue;
        const bool first = holders.insert(e.rank).second;
        if (first && i >= served_at) {
          recipients.push_back(e.rank);
          priorities.push_back(e.priority);
        } else if (i >= served_at) {
          const auto r = std::find(recipients.begin(), recipients.end(), e.rank);
          if (r != recipients.end()) priorities[static_cast<std::size_t>(r - recipients.begin())] =
              std::max(priorities[static_cast<std::size_t>(r - recipients.begin())], e.priority);
        }
      }
      ASSERT_EQ(replicas.origin, origin);
      ASSERT_EQ(std::set<int>(replicas.holders.begin(), replicas.holders.end()), holders);
      ASSERT_EQ(replicas.holders.size(), holders.size()) << "a holder listed twice";
      ASSERT_EQ(replicas.recipients, recipients);
      ASSERT_EQ(replicas.priorities, priorities);
      // read() said whether the rank held it: replay the holders.
      std::set<int> had{0};
      std::size_t answer = 0;
      for (const Event& e : history) {
        if (e.kind == Event::write) had = {e.rank};
        if (e.kind == Event::read) {
          ASSERT_EQ(held_answers[answer++], !had.insert(e.rank).second);
        }
      }
      ++histories;
    }
  }
  EXPECT_EQ(histories, 1u + 10 + 100 + 1000 + 10000 + 100000);
}

TEST(Broadcasts, StrategiesHaveNames) {
  EXPECT_EQ(to_string(BroadcastStrategy::mpibcast_herald), "mpibcast:herald");
  EXPECT_EQ(broadcast_strategy_from_string("auto"), BroadcastStrategy::automatic);
  EXPECT_THROW(broadcast_strategy_from_string("bcast"), Error);
}

}  // namespace
}  // namespace herald::runtime::detail
