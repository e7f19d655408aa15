// A program that includes herald/balance.h but does not link libherald_balance, built with the default
// compiler and its own OpenMP runtime (libgomp with gcc). Without the library the marker does nothing;
// preloading libomp and libherald_balance makes the same binary balance, and so does loading the library
// as an OMPT tool only (OMP_TOOL_LIBRARIES) in implicit mode, where every region ends a phase.
#include "phase_work.hpp"

#include <gtest/gtest.h>

extern "C" void weak_marker_phase_end(void);

namespace herald::balance {
namespace {

using namespace herald::balance::testing;

TEST(BalanceWeak, MarkerDoesNothingWithoutTheLibrary) {
  const std::vector<int> before = threads_everywhere();
  phases(3, 0, 4.0, weak_marker_phase_end);
  EXPECT_EQ(threads_everywhere(), before);
}

TEST(BalanceWeak, LoadedLibraryBalancesTheSameBinary) {
  const std::vector<int> before = threads_everywhere();
  phases(3, 0, 4.0, weak_marker_phase_end);
  const std::vector<int> after = threads_everywhere();
  EXPECT_GT(after[0], before[0]);
  EXPECT_LT(after[1], before[1]);
}

}  // namespace
}  // namespace herald::balance
