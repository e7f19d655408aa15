#include <herald/balance/decision.hpp>
#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace herald::balance {
namespace {

TEST(Decision, LeavesABalancedNodeAlone) {
  const std::vector<double> loads{1.0, 1.02};
  const std::vector<int> threads{4, 4};
  const std::vector<int> cores{8};
  const Decision d = decide(loads, threads, cores);
  EXPECT_FALSE(d.act);
  EXPECT_EQ(d.placement.threads, threads);
  EXPECT_EQ(d.reason, "counts unchanged");
}

TEST(Decision, MovesThreadsToTheLoadedProcess) {
  const std::vector<double> loads{3.0, 1.0};
  const std::vector<int> threads{4, 4};
  const std::vector<int> cores{8};
  const Decision d = decide(loads, threads, cores);
  EXPECT_TRUE(d.act);
  EXPECT_EQ(d.placement.threads, (std::vector<int>{6, 2}));
  EXPECT_GT(predicted_gain(d), 0.3);  // 0.75 s -> 0.5 s
}

TEST(Decision, DeclinesWhenTheForecastSaysNo) {
  // 8 x 0.57 = 4.56 rounds to {5, 3}, but the second process would then take 0.43/3 > 0.57/4.
  const std::vector<double> loads{0.57, 0.43};
  const std::vector<int> threads{4, 4};
  const std::vector<int> cores{8};
  const Decision d = decide(loads, threads, cores);
  EXPECT_EQ(d.requests, (std::vector<int>{5, 3}));
  EXPECT_FALSE(d.act);
  EXPECT_NE(d.reason.find("forecast"), std::string::npos);
}

TEST(Decision, PlacesThePapersExample) {
  // Loads in the ratio 14 : 9 : 13 : 12, processes started with 12 threads each on 2 x 24 cores.
  const std::vector<double> loads{14, 9, 13, 12};
  const std::vector<int> threads{12, 12, 12, 12};
  const std::vector<int> cores{24, 24};
  const Decision d = decide(loads, threads, cores);
  EXPECT_EQ(d.requests, (std::vector<int>{14, 9, 13, 12}));
  EXPECT_EQ(d.placement.missing, 1);
  EXPECT_EQ(d.placement.socket[0], d.placement.socket[1]);
  EXPECT_EQ(d.placement.socket[2], d.placement.socket[3]);
  EXPECT_TRUE(d.act);
}

TEST(Decision, PredictsTheGainOfThePapersMiniFeSetting) {
  // 8 processes x 6 threads on 2 x 24 cores, one process twice as loaded as the others.
  const std::vector<double> loads{2, 1, 1, 1, 1, 1, 1, 1};
  const std::vector<int> threads(8, 6);
  const std::vector<int> cores{24, 24};
  const Decision d = decide(loads, threads, cores);
  ASSERT_TRUE(d.act);
  EXPECT_EQ(std::accumulate(d.placement.threads.begin(), d.placement.threads.end(), 0), 48);
  double before = 0, after = 0;
  for (std::size_t p = 0; p < loads.size(); ++p) {
    before = std::max(before, loads[p] / threads[p]);
    after = std::max(after, loads[p] / d.placement.threads[p]);
  }
  EXPECT_DOUBLE_EQ(predicted_gain(d), 1 - after / before);
  EXPECT_GT(predicted_gain(d), 0);
}

TEST(Decision, DescribesItself) {
  const std::vector<double> loads{3.0, 1.0};
  const std::vector<int> threads{4, 4};
  const std::vector<int> cores{8};
  const std::string text = describe(decide(loads, threads, cores));
  EXPECT_NE(text.find("counts=[6,2]"), std::string::npos) << text;
  EXPECT_NE(text.find("acted"), std::string::npos) << text;
  const std::vector<double> even{1.0, 1.0};
  EXPECT_NE(describe(decide(even, threads, cores)).find("kept (counts unchanged)"), std::string::npos);
}

TEST(Decision, RefusesMismatchedInput) {
  const std::vector<double> loads{1.0, 1.0};
  const std::vector<int> one{4}, zero{0, 4};
  const std::vector<int> cores{8};
  EXPECT_THROW(decide(loads, one, cores), Error);
  EXPECT_THROW(decide(loads, zero, cores), Error);
  const std::vector<double> three{1, 1, 1};
  const std::vector<int> three_threads{1, 1, 1};
  EXPECT_THROW(decide(three, three_threads, std::vector<int>{2}), Error);
}

}  // namespace
}  // namespace herald::balance
