#include <herald/balance/forecast.hpp>
#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace herald::balance {
namespace {

TEST(Forecast, PredictsTimeFromThreadRatio) {
  const std::vector<double> times{0.75, 0.25};
  const std::vector<int> before{4, 4}, after{6, 2};
  const Forecast f = forecast(times, before, after);
  ASSERT_EQ(f.predicted.size(), 2u);
  EXPECT_DOUBLE_EQ(f.predicted[0], 0.75 * 4 / 6);
  EXPECT_DOUBLE_EQ(f.predicted[1], 0.25 * 4 / 2);
  EXPECT_DOUBLE_EQ(f.slowest, 0.75);
  EXPECT_TRUE(f.gains);
}

TEST(Forecast, RejectsAChangeThatMakesAnotherProcessTheSlowest) {
  // Limited imbalance: taking a thread from the second process makes it slower than the first was.
  const std::vector<double> times{1.0, 0.95};
  const std::vector<int> before{4, 4}, after{5, 3};
  const Forecast f = forecast(times, before, after);
  EXPECT_FALSE(f.gains);
  EXPECT_EQ(f.worst, 1);
  EXPECT_GE(f.predicted[1], f.slowest);
}

TEST(Forecast, CountsReachingTheSlowestTimeAsNoGain) {
  const std::vector<double> times{1.0, 0.5};
  const std::vector<int> before{2, 2}, after{2, 1};  // the second predicted at exactly 1.0
  const Forecast f = forecast(times, before, after);
  EXPECT_DOUBLE_EQ(f.predicted[1], 1.0);
  EXPECT_FALSE(f.gains);
  const std::vector<double> idle{0, 0};
  EXPECT_FALSE(forecast(idle, before, before).gains) << "nothing measured, nothing to gain";
}

TEST(Forecast, RefusesBadInput) {
  const std::vector<double> times{1.0, 0.5};
  const std::vector<int> two{2, 2}, one{2}, zero{0, 2};
  EXPECT_THROW(forecast(times, one, two), Error);
  EXPECT_THROW(forecast(times, two, zero), Error);
  const std::vector<double> negative{-1.0, 0.5};
  EXPECT_THROW(forecast(negative, two, two), Error);
}

}  // namespace
}  // namespace herald::balance
