// Where tasks go under the schedulers that decide at submit, without MPI: every case of small grids.
#include "mapping.hpp"

#include <herald/error.hpp>
#include <herald/runtime/scheduling.hpp>

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace herald::runtime::detail {
namespace {

TEST(BlockCyclic, DealsTilesOverTheGridRowByRow) {
  for (std::size_t p = 1; p <= 4; ++p)
    for (std::size_t q = 1; q <= 4; ++q) {
      std::set<std::size_t> seen;
      for (std::size_t row = 0; row < 3 * p; ++row)
        for (std::size_t column = 0; column < 3 * q; ++column) {
          const std::size_t w = block_cyclic(row, column, p, q);
          ASSERT_LT(w, p * q);
          // The same owner every p rows and every q columns, and distinct owners within one p x q block.
          EXPECT_EQ(w, block_cyclic(row + p, column, p, q));
          EXPECT_EQ(w, block_cyclic(row, column + q, p, q));
          EXPECT_EQ(w, (row % p) * q + column % q);
          seen.insert(w);
        }
      EXPECT_EQ(seen.size(), p * q) << p << "x" << q;
    }
  EXPECT_THROW(block_cyclic(0, 0, 0, 2), Error);
}

TEST(ChosenWorker, OwnerComputesTheFirstWrittenDatumsOwner) {
  // Only a handle's index matters here: default handles have index 0, whose owner is worker 3.
  const std::vector<std::size_t> owners{3};
  const Use uses[] = {in(Data{}), out(Data{})};
  TaskInfo info{.task = 7, .kernel = "k", .uses = uses, .priority = 0, .workers = 4};
  EXPECT_EQ(chosen_worker(Scheduler::owner, info, std::nullopt, {}, owners), 3U);
  const Use reads_only[] = {in(Data{})};
  info.uses = reads_only;
  EXPECT_EQ(chosen_worker(Scheduler::owner, info, std::nullopt, {}, owners), 3U);
  info.uses = {};
  EXPECT_EQ(chosen_worker(Scheduler::owner, info, std::nullopt, {}, owners), 0U);
}

TEST(ChosenWorker, MappedTakesTheNamedWorkerElseTheMapping) {
  const std::vector<std::size_t> owners{0};
  TaskInfo info{.task = 9, .kernel = "k", .uses = {}, .priority = 0, .workers = 4};
  const Mapping mapping = [](const TaskInfo& t) { return static_cast<int>(t.task % 4); };
  for (int named = 0; named < 4; ++named)
    EXPECT_EQ(chosen_worker(Scheduler::mapped, info, named, mapping, owners), static_cast<std::size_t>(named));
  EXPECT_EQ(chosen_worker(Scheduler::mapped, info, std::nullopt, mapping, owners), 1U);
  EXPECT_FALSE(chosen_worker(Scheduler::heft, info, 2, mapping, owners));
  EXPECT_FALSE(chosen_worker(Scheduler::round_robin, info, 2, mapping, owners));
}

TEST(ChosenWorker, RefusesAWorkerOutOfRangeOrNone) {
  const std::vector<std::size_t> owners{0};
  TaskInfo info{.task = 9, .kernel = "k", .uses = {}, .priority = 0, .workers = 4};
  for (int bad : {-1, 4, 100}) {
    try {
      chosen_worker(Scheduler::mapped, info, bad, {}, owners);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("task 9 (kernel 'k'): the mapped scheduler needs a worker in 0..3"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(chosen_worker(Scheduler::mapped, info, std::nullopt, {}, owners), Error);
  EXPECT_THROW(chosen_worker(Scheduler::mapped, info, std::nullopt, [](const TaskInfo&) { return -3; }, owners), Error);
}

}  // namespace
}  // namespace herald::runtime::detail
