#include <herald/balance/split.hpp>
#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace herald::balance {
namespace {

int sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }

TEST(ProportionalSplit, GivesCoresInProportionToLoad) {
  const std::vector<double> loads{3, 1};
  EXPECT_EQ(proportional_split(loads, 8), (std::vector<int>{6, 2}));
  const std::vector<double> four{2, 2, 1, 1};
  EXPECT_EQ(proportional_split(four, 12), (std::vector<int>{4, 4, 2, 2}));
}

TEST(ProportionalSplit, RoundsByLargestRemainderTiesToLowerIndex) {
  const std::vector<double> equal{1, 1, 1};
  // 8/3 = 2.67 each: two cores each, the two left over go to the first two.
  EXPECT_EQ(proportional_split(equal, 8), (std::vector<int>{3, 3, 2}));
  const std::vector<double> loads{0.6, 0.4};
  // 5 * 0.6 = 3, 5 * 0.4 = 2 exactly: nothing to round.
  EXPECT_EQ(proportional_split(loads, 5), (std::vector<int>{3, 2}));
  const std::vector<double> uneven{1, 3};
  // 2.5 and 7.5 of 10: both halves; the tie goes to the lower index.
  EXPECT_EQ(proportional_split(uneven, 10), (std::vector<int>{3, 7}));
}

TEST(ProportionalSplit, GivesEveryProcessAtLeastOneThread) {
  const std::vector<double> loads{1000, 1, 0};
  // The idle and the nearly idle processes keep one thread each; the loaded one takes the rest.
  EXPECT_EQ(proportional_split(loads, 4), (std::vector<int>{2, 1, 1}));
  const std::vector<double> tight{5, 0, 0, 0};
  EXPECT_EQ(proportional_split(tight, 4), (std::vector<int>{1, 1, 1, 1}));
}

TEST(ProportionalSplit, SplitsEquallyWhenNothingWasMeasured) {
  const std::vector<double> zero{0, 0, 0, 0};
  EXPECT_EQ(proportional_split(zero, 8), (std::vector<int>{2, 2, 2, 2}));
}

TEST(ProportionalSplit, StaysWithinOneCoreOfTheExactShareOnRandomLoads) {
  std::mt19937 random(2022);
  std::uniform_real_distribution<double> load(0.0, 10.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = 1 + trial % 9;
    const int cores = n + static_cast<int>(random() % 60);
    std::vector<double> loads(n);
    for (double& l : loads) l = load(random);
    const std::vector<int> counts = proportional_split(loads, cores);
    ASSERT_EQ(static_cast<int>(counts.size()), n);
    EXPECT_EQ(sum(counts), cores);
    const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
    bool pinned = false;
    for (int p = 0; p < n; ++p) {
      EXPECT_GE(counts[p], 1);
      if (cores * loads[p] / total < 1) pinned = true;
    }
    if (pinned) continue;  // pins move shares around; the other checks still hold
    for (int p = 0; p < n; ++p) EXPECT_LT(std::abs(counts[p] - cores * loads[p] / total), 1.0) << "trial " << trial;
  }
}

TEST(ProportionalSplit, GivesMoreLoadNoFewerCores) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> load(0.0, 5.0);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<double> loads(6);
    for (double& l : loads) l = load(random);
    const std::vector<int> counts = proportional_split(loads, 48);
    for (int a = 0; a < 6; ++a)
      for (int b = 0; b < 6; ++b)
        if (loads[a] > loads[b]) {
          EXPECT_GE(counts[a], counts[b]);
        }
  }
}

TEST(ProportionalSplit, RefusesImpossibleSplits) {
  const std::vector<double> three{1, 1, 1};
  EXPECT_THROW(proportional_split(three, 2), Error);
  EXPECT_THROW(proportional_split({}, 4), Error);
  const std::vector<double> negative{1, -1};
  EXPECT_THROW(proportional_split(negative, 4), Error);
  const std::vector<double> nan{1, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW(proportional_split(nan, 4), Error);
  try {
    proportional_split(three, 2);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
  }
}

}  // namespace
}  // namespace herald::balance
