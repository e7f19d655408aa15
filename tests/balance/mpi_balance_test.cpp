// The OMPT balancer in real MPI processes on a pretended node (HERALD_BALANCE_CORES), run on LLVM's
// OpenMP runtime. Each ctest entry selects one test and sets the environment it needs. Every check is
// made on the same gathered data on every rank; decisions are asserted, never times.
#include <herald/balance.h>
#include <herald/balance/status.hpp>

#include "phase_work.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <vector>

namespace herald::balance {
namespace {

using namespace herald::balance::testing;

void mark() { herald_balanced(); }

// Size of the team a region gets, and the most CPUs any of its threads may run on.
struct Team {
  int size = 0;
  int widest_affinity = 0;
};

Team team() {
  Team t;
#pragma omp parallel
  {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
#pragma omp critical
    {
      t.size = omp_get_num_threads();
      t.widest_affinity = std::max(t.widest_affinity, CPU_COUNT(&set));
    }
  }
  return t;
}

TEST(BalanceMpi, MovesThreadsTowardTheLoadedProcessAndBack) {
  const std::vector<int> initial = threads_everywhere();  // starts the OpenMP runtime, and the tool
  ASSERT_TRUE(status().active) << "the OpenMP runtime did not start herald's OMPT tool";
  const int first = 0, last = world_size() - 1;
  ASSERT_NE(first, last) << "needs two processes or more";

  phases(3, first, 4.0, mark);
  const std::vector<int> toward = threads_everywhere();
  EXPECT_GT(toward[first], initial[first]);
  for (int r = 0; r < world_size(); ++r)
    if (r != first) {
      EXPECT_LT(toward[r], toward[first]) << "process " << r;
    }
  const Team after_move = team();  // one region: not a phase end, explicit mode
  EXPECT_EQ(after_move.size, toward[world_rank()]) << "regions run with the chosen count";
  EXPECT_EQ(after_move.widest_affinity, 1) << "each thread is bound to one core";

  phases(3, last, 4.0, mark);
  const std::vector<int> back = threads_everywhere();
  EXPECT_GT(back[last], toward[last]);
  EXPECT_LT(back[first], toward[first]);
  for (int r = 0; r < world_size(); ++r)
    if (r != last) {
      EXPECT_LT(back[r], back[last]) << "process " << r;
    }

  const Status s = status();
  EXPECT_EQ(s.calls, 6);
  EXPECT_EQ(s.exchanges, 6);
  EXPECT_GE(s.actions, 2);
  ASSERT_TRUE(s.last.has_value());
  EXPECT_EQ(static_cast<int>(s.last->loads.size()), world_size());
}

TEST(BalanceMpi, LeavesABalancedRunUntouched) {
  const std::vector<int> initial = threads_everywhere();
  ASSERT_TRUE(status().active);
  const Team before = team();
  // Long phases: a virtual machine counts time stolen by its host as CPU time of the thread that ran, and
  // a burst of it in a short phase can pass for the 30 % imbalance (4.5 against 3.5 cores' worth) that
  // would move a thread between the two processes.
  phases(5, -1, 1.0, mark, 10 * unit);
  EXPECT_EQ(threads_everywhere(), initial);
  const Team after = team();
  EXPECT_EQ(after.size, before.size);
  EXPECT_EQ(after.widest_affinity, before.widest_affinity) << "no thread was rebound";
  const Status s = status();
  EXPECT_EQ(s.exchanges, 5);
  EXPECT_EQ(s.actions, 0);
  ASSERT_TRUE(s.last.has_value());
  EXPECT_FALSE(s.last->act);
}

TEST(BalanceMpi, ActsOnlyAtTheConfiguredCall) {  // HERALD_BALANCE_AT=3
  const std::vector<int> initial = threads_everywhere();
  ASSERT_TRUE(status().active);
  const int first = 0, last = world_size() - 1;
  phases(2, first, 4.0, mark);
  EXPECT_EQ(threads_everywhere(), initial) << "calls 1 and 2 only measure";
  EXPECT_EQ(status().exchanges, 0);
  phases(1, first, 4.0, mark);
  const std::vector<int> moved = threads_everywhere();
  EXPECT_GT(moved[first], initial[first]) << "call 3 acts";
  phases(3, last, 4.0, mark);
  EXPECT_EQ(threads_everywhere(), moved) << "and nothing after it";
  EXPECT_EQ(status().exchanges, 1);
  EXPECT_EQ(status().calls, 6);
}

TEST(BalanceMpi, ImplicitModeEndsAPhaseWithEveryRegion) {  // HERALD_BALANCE_IMPLICIT=1, EVERY=2
  const std::vector<int> initial = threads_everywhere();
  ASSERT_TRUE(status().active);
  const int first = 0;
  herald_balanced();  // explicit calls do not count in implicit mode
  EXPECT_EQ(status().calls, 0);
  phases(6, first, 4.0, nullptr);  // six regions, no marker: three exchanges
  const std::vector<int> moved = threads_everywhere();
  EXPECT_GT(moved[first], initial[first]);
  EXPECT_EQ(status().calls, 6);
  EXPECT_EQ(status().exchanges, 3);
}

TEST(BalanceMpi, BadSettingStopsTheProgram) {  // HERALD_BALANCE_EVERY=zero: the message is the check
  work(unit);
  ADD_FAILURE() << "the OpenMP runtime started with a bad HERALD_BALANCE_EVERY";
}

}  // namespace
}  // namespace herald::balance
