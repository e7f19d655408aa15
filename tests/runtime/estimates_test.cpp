// What the scheduler prices a task at (estimates.hpp), without MPI: the cost model first, then the measured
// mean on the same total size, then the price of the unknown.
#include "estimates.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace herald::runtime::detail {
namespace {

struct Use {
  std::uint32_t handle;
};

TEST(Estimates, ACostModelIsAskedWithEachAccessSize) {
  std::vector<std::size_t> seen;
  const std::vector<KernelEntry> local{{"model", {}, [&](std::span<const std::size_t> s) {
                                          seen.assign(s.begin(), s.end());
                                          return 2.0 * static_cast<double>(s.size());
                                        }},
                                       {"negative", {}, [](std::span<const std::size_t>) { return -1.0; }}};
  const KernelTable table({{"model", "negative"}}, local, 0);
  Estimates estimates(table);
  const std::vector<Use> uses{{3}, {5}};
  const auto bytes_of = [](std::uint32_t h) { return std::size_t{h} * 10; };
  EXPECT_DOUBLE_EQ(estimates.seconds(table.id("model", 0), uses, bytes_of), 4.0);
  EXPECT_EQ(seen, (std::vector<std::size_t>{30, 50}));
  // A model is believed over what was measured; a negative price is none.
  estimates.measured(table.id("model", 0), 80, 9.0);
  EXPECT_DOUBLE_EQ(estimates.seconds(table.id("model", 0), uses, bytes_of), 4.0);
  EXPECT_DOUBLE_EQ(estimates.seconds(table.id("negative", 0), uses, bytes_of), 0.0);
}

TEST(Estimates, WithoutAModelTheMeanOfRunsOnTheSameTotalOrTheUnknownPrice) {
  const KernelTable table({{"a", "b"}}, {}, 0);
  Estimates estimates(table);
  const auto a = table.id("a", 0), b = table.id("b", 0);
  const std::vector<Use> uses{{1}, {2}};
  const auto bytes_of = [](std::uint32_t h) { return std::size_t{h} * 100; };  // 300 in all
  EXPECT_DOUBLE_EQ(estimates.seconds(a, uses, bytes_of), unknown_task_seconds);
  estimates.measured(a, 300, 1.0);
  estimates.measured(a, 300, 3.0);
  estimates.measured(a, 400, 50.0);
  EXPECT_DOUBLE_EQ(estimates.seconds(a, uses, bytes_of), 2.0);
  // Another kernel, or another total, has no history of its own.
  EXPECT_DOUBLE_EQ(estimates.seconds(b, uses, bytes_of), unknown_task_seconds);
  EXPECT_DOUBLE_EQ(estimates.seconds(a, std::vector<Use>{{1}}, bytes_of), unknown_task_seconds);
}

}  // namespace
}  // namespace herald::runtime::detail
