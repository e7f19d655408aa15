#include "metg_rule.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tb = herald::taskbench;

namespace {

// A sweep of 100 tasks on 4 cores whose overhead per task is `overhead` seconds on top of `work` units at
// one unit per second per core: elapsed = tasks / cores * (work per task + overhead).
std::vector<tb::SweepPoint> sweep(double overhead, std::initializer_list<long> iterations) {
  std::vector<tb::SweepPoint> points;
  for (long n : iterations) {
    const double per_task = static_cast<double>(n) * 1e-6;
    points.push_back({n, 100 * per_task, {25 * (per_task + overhead)}});
  }
  return points;
}

}  // namespace

TEST(MetgRule, EfficiencyIsAgainstTheLargestTasksRate) {
  const auto r = tb::compute_metg(sweep(1e-6, {1000, 10}), 4, 100);
  ASSERT_EQ(r.points.size(), 2U);
  EXPECT_DOUBLE_EQ(r.points[0].efficiency, 1.0);
  // 10 us of work and 1 us of overhead against 1000 and 1: (10 / 11) / (1000 / 1001).
  EXPECT_NEAR(r.points[1].efficiency, (10.0 / 11) / (1000.0 / 1001), 1e-12);
  EXPECT_NEAR(r.points[1].granularity, 11e-6, 1e-15);
}

TEST(MetgRule, InterpolatesLinearlyBetweenTheLastPointAboveAndTheFirstBelow) {
  // Overhead 10 us: 20 us of work runs at 2/3 of the largest rate, 5 us at 1/3.
  const auto r = tb::compute_metg(sweep(10e-6, {100000, 20, 5}), 4, 100);
  ASSERT_TRUE(r.metg);
  EXPECT_FALSE(r.bound);
  const double e_above = (20.0 / 30) / (100000.0 / 100010), e_below = (5.0 / 15) / (100000.0 / 100010);
  const double expected = 15e-6 + (0.5 - e_below) / (e_above - e_below) * (30e-6 - 15e-6);
  EXPECT_NEAR(*r.metg, expected, 1e-15);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(MetgRule, SortsThePointsLargestFirst) {
  const auto a = tb::compute_metg(sweep(10e-6, {5, 100000, 20}), 4, 100);
  const auto b = tb::compute_metg(sweep(10e-6, {100000, 20, 5}), 4, 100);
  ASSERT_TRUE(a.metg && b.metg);
  EXPECT_DOUBLE_EQ(*a.metg, *b.metg);
  EXPECT_EQ(a.points.front().iterations, 100000);
}

TEST(MetgRule, OneNoisyPointInTheMiddleDoesNotDecideTheFigure) {
  // Task Bench's rule keeps the finest point at 50% or more, so a slow run at one middle size (here 10x)
  // does not make the METG that size's.
  auto points = sweep(1e-6, {100000, 1000, 100, 10, 1});
  points[2].seconds = {points[2].seconds[0] * 10};
  const auto r = tb::compute_metg(points, 4, 100);
  ASSERT_TRUE(r.metg);
  EXPECT_LT(*r.metg, 11e-6);  // between the 10 and 1 iteration points, not at 100's 1010 us
  EXPECT_GE(*r.metg, 2e-6 * (1 - 1e-9));  // the 1-iteration point's, at 0.49999
}

TEST(MetgRule, FlagsAnEfficiencyAboveOneBeyondTheSpread) {
  auto points = sweep(1e-6, {1000, 100, 10});
  points[1].seconds[0] /= 2;  // twice the largest tasks' rate: impossible, the peak was wrong
  const auto r = tb::compute_metg(points, 4, 100);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.front().find("-iter 100"), std::string::npos);
}

TEST(MetgRule, AnEfficiencyAboveOneWithinTheSpreadIsNotFlagged) {
  auto points = sweep(0, {1000, 100, 10});
  points[0].seconds = {points[0].seconds[0] * 1.02, points[0].seconds[0] * 0.98, points[0].seconds[0] * 1.04};
  const auto r = tb::compute_metg(points, 4, 100);
  for (const auto& w : r.warnings) EXPECT_EQ(w.find("rate"), std::string::npos) << w;
}

TEST(MetgRule, NoPointBelowTheThresholdGivesABound) {
  const auto r = tb::compute_metg(sweep(0, {1000, 100}), 4, 100);
  ASSERT_TRUE(r.metg);
  EXPECT_TRUE(r.bound);
  EXPECT_NEAR(*r.metg, 100e-6, 1e-15);
  EXPECT_FALSE(r.warnings.empty());
}

TEST(MetgRule, TheLargestTasksAreTheirOwnPeak) {
  auto points = sweep(1e-6, {1000, 10});
  points[0].seconds = {points[0].seconds[0]};
  points[1].seconds = {points[1].seconds[0] * 100};
  const auto r = tb::compute_metg(points, 4, 100);
  ASSERT_TRUE(r.metg);  // the largest point is at 100% of itself, whatever follows
  EXPECT_NEAR(*r.metg, r.points[0].granularity, 1e-15);
}

TEST(MetgRule, MediansOfTheRepetitionsAndTheirSpread) {
  std::vector<tb::SweepPoint> points{{1000, 1000, {2.0, 1.0, 100.0}}};
  const auto r = tb::compute_metg(points, 1, 1);
  EXPECT_DOUBLE_EQ(r.points[0].elapsed, 2.0);
  EXPECT_DOUBLE_EQ(r.points[0].spread, 99.0 / 2.0);
  EXPECT_DOUBLE_EQ(tb::relative_spread({1.0}), 0.0);
}

TEST(MetgRule, RefusesWhatItCannotRate) {
  EXPECT_THROW(tb::compute_metg({}, 1, 1), std::invalid_argument);
  EXPECT_THROW(tb::compute_metg({{10, 10, {}}}, 1, 1), std::invalid_argument);
  EXPECT_THROW(tb::compute_metg({{10, 10, {1.0}}}, 0, 1), std::invalid_argument);
  EXPECT_THROW(tb::compute_metg({{10, 10, {0.0}}}, 1, 1), std::invalid_argument);
}
