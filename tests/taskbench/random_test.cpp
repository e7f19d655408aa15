// Task Bench's deterministic uniform values: the same integers must give the same value as its
// random_uniform(), or random graphs and load imbalance would differ from Task Bench's.
#include "random.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace herald::taskbench {
namespace {

// Values printed (with %a) by Task Bench's core/core_random.c random_uniform() on these seeds, built in
// /tmp beside herald: g++ -O2 -Icore rnd.cc -Lcore -lcore_s, where rnd.cc calls
// random_uniform(seed, 8 * length) and prints "%a".
TEST(TaskBenchRandom, MatchesTaskBenchRandomUniform) {
  EXPECT_EQ(uniform_from({0, 0, 0}), 0x1.dfd115d0e3922p-1);
  EXPECT_EQ(uniform_from({0, 5, 3}), 0x1.e1e704dda6a29p-1);
  EXPECT_EQ(uniform_from({0, 5, 1, 7, 8}), 0x1.d0445c2b54efp-1);
  EXPECT_EQ(uniform_from({2, 3, 0, 4, 4}), 0x1.6161196b0cdbfp-2);
  EXPECT_EQ(uniform_from({-1}), 0x1.4307d0c45e0c1p-1);
}

TEST(TaskBenchRandom, DependsOnOrderAndLength) {
  EXPECT_NE(uniform_from({1, 2}), uniform_from({2, 1}));
  EXPECT_NE(uniform_from({1, 2}), uniform_from({1, 2, 0}));
  const std::vector<std::int64_t> seed{4, 5, 6};
  EXPECT_EQ(uniform_from(seed), uniform_from({4, 5, 6}));
}

TEST(TaskBenchRandom, RoughlyUniform) {
  int below_half = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const double u = uniform_from({i});
    ASSERT_GE(u, 0.0);
    ASSERT_LE(u, 1.0);
    below_half += u < 0.5;
  }
  EXPECT_NEAR(double(below_half) / n, 0.5, 0.05);
}

}  // namespace
}  // namespace herald::taskbench
