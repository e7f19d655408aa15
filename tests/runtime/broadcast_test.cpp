// The rule of where a version is and who must receive it (Replicas), over every small history; the data
// plan's tests (data_plan_test.cpp) check the broadcasts it finds with it.
#include "broadcast.hpp"
#include "histories.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace herald::runtime::detail {
namespace {

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
  const std::size_t histories = for_every_history(alphabet, 5, [&](const std::vector<Event>& history) {
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
  });
  EXPECT_EQ(histories, 1u + 10 + 100 + 1000 + 10000 + 100000);
}

TEST(Broadcasts, StrategiesHaveNames) {
  EXPECT_EQ(to_string(BroadcastStrategy::mpibcast_herald), "mpibcast:herald");
  EXPECT_EQ(broadcast_strategy_from_string("auto"), BroadcastStrategy::automatic);
  EXPECT_THROW(broadcast_strategy_from_string("bcast"), Error);
}

}  // namespace
}  // namespace herald::runtime::detail
