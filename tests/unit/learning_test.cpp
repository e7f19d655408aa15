// HERALD_AUTO_LEARN's trial without MPI: which candidate each call runs, from the call count alone; the
// agreement's timing; the winner from the slowest ranks' medians.
#include "../../src/coll/learning.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace herald {
namespace {

TEST(Learner, TakesBlocksInTurnThenAgreesThenKeepsTheWinner) {
  for (int candidates : {2, 3}) {
    for (int lag : {1, 8}) {
      Learner learner(candidates, {.warmup = 0, .rounds = 8, .block = 4, .lag = lag});
      for (int call = 0; call < candidates * 8; ++call) {
        ASSERT_EQ(learner.phase(), Learner::Phase::trial);
        EXPECT_FALSE(learner.trial_done());
        const int c = learner.next();
        EXPECT_EQ(c, (call / 4) % candidates);
        // Candidate c takes about 1 + c seconds; a block's first call, 100 (the switch), never counts.
        learner.record(call % 4 == 0 ? 100.0 : 1.0 + c + 0.01 * call);
      }
      ASSERT_TRUE(learner.trial_done());
      const std::vector<double> mine = learner.figures();
      ASSERT_EQ(mine.size(), static_cast<std::size_t>(candidates));
      for (int c = 0; c < candidates; ++c) {
        // Candidate c's timed calls: 4c + 1..3 and 4(c + k) + 1..3; the median of six is the fourth.
        EXPECT_DOUBLE_EQ(mine[static_cast<std::size_t>(c)], 1.0 + c + 0.01 * (4 * (c + candidates) + 1));
      }
      EXPECT_EQ(learner.phase(), Learner::Phase::agreeing);
      for (int call = 1; call <= lag; ++call) {
        EXPECT_EQ(learner.next(), 0);
        EXPECT_EQ(learner.agreement_due(), call == lag);
      }
      std::vector<double> slowest(static_cast<std::size_t>(candidates), 5.0);
      slowest.back() = 2.0;
      EXPECT_EQ(learner.agreed(slowest), candidates - 1);
      EXPECT_EQ(learner.phase(), Learner::Phase::learned);
      for (int call = 0; call < 5; ++call) EXPECT_EQ(learner.next(), candidates - 1);
    }
  }
}

TEST(Learner, TiesGoToAutosOwnPickAndMissingSamplesNeverWin) {
  Learner learner(3, {.warmup = 0, .rounds = 1, .block = 1, .lag = 1});
  for (int call = 0; call < 3; ++call) {
    learner.next();
    if (call != 2) learner.record(1.0);  // the third candidate's call failed here
  }
  const std::vector<double> mine = learner.figures();
  EXPECT_EQ(mine[2], std::numeric_limits<double>::infinity());
  learner.next();
  EXPECT_TRUE(learner.agreement_due());
  EXPECT_EQ(learner.agreed(mine), 0);
}

TEST(Learner, ACallBeyondTheTrialWaitsForTheFigures) {
  Learner learner(2, {.warmup = 0, .rounds = 1, .block = 1, .lag = 1});
  EXPECT_EQ(learner.next(), 0);
  EXPECT_EQ(learner.next(), 1);
  // Numbered out, figures not yet asked for: the call runs auto's pick and numbers nothing.
  EXPECT_TRUE(learner.trial_done());
  EXPECT_EQ(learner.next(), 0);
  EXPECT_TRUE(learner.trial_done());
}

TEST(Learner, OneCandidateHasNothingToLearnAndBadShapesAreRefused) {
  Learner one(1);
  EXPECT_EQ(one.phase(), Learner::Phase::learned);
  EXPECT_EQ(one.next(), 0);
  EXPECT_THROW(Learner(0), Error);
  EXPECT_THROW(Learner(2, {.rounds = 0}), Error);
  EXPECT_THROW(Learner(2, {.lag = 0}), Error);
  EXPECT_THROW(Learner(2, {.block = 0}), Error);
  EXPECT_THROW(Learner(2, {.warmup = -1}), Error);
  EXPECT_THROW(Learner(2, {.rounds = 8, .block = 3}), Error);  // not whole blocks: unequal shares
}

// The warm-up's calls run auto's pick and count for no candidate; the trial starts after them.
TEST(Learner, WarmsUpBeforeTheTrial) {
  Learner learner(2, {.warmup = 5, .rounds = 2, .block = 2, .lag = 1});
  for (int call = 0; call < 5; ++call) {
    EXPECT_EQ(learner.next(), 0);
    learner.record(1000.0);  // never counted
  }
  for (int call = 0; call < 4; ++call) {
    EXPECT_FALSE(learner.trial_done());
    EXPECT_EQ(learner.next(), call / 2);
    learner.record(call % 2 == 0 ? 1000.0 : 1.0 + call);  // each block's first call is not timed
  }
  ASSERT_TRUE(learner.trial_done());
  const std::vector<double> mine = learner.figures();
  EXPECT_DOUBLE_EQ(mine[0], 2.0);
  EXPECT_DOUBLE_EQ(mine[1], 4.0);
}

TEST(Learner, SizeClassesAreBitWidths) {
  EXPECT_EQ(size_class(0), 0);
  EXPECT_EQ(size_class(1), 1);
  EXPECT_EQ(size_class(2), 2);
  EXPECT_EQ(size_class(3), 2);
  EXPECT_EQ(size_class(4), 3);
  EXPECT_EQ(size_class(65535), 16);
  EXPECT_EQ(size_class(65536), 17);
}

}  // namespace
}  // namespace herald
