#include <herald/balance/placement.hpp>
#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace herald::balance {
namespace {

// The fewest missing cores over every assignment of processes to sockets (at most one process per core).
int brute_force_missing(const std::vector<int>& requests, const std::vector<int>& cores) {
  const int n = static_cast<int>(requests.size());
  const int s = static_cast<int>(cores.size());
  int best = std::numeric_limits<int>::max();
  std::vector<int> socket(n, 0);
  for (;;) {
    std::vector<int> members(s, 0), load(s, 0);
    for (int p = 0; p < n; ++p) {
      ++members[socket[p]];
      load[socket[p]] += requests[p];
    }
    bool fits = true;
    int missing = 0;
    for (int k = 0; k < s; ++k) {
      fits = fits && members[k] <= cores[k];
      missing += std::max(0, load[k] - cores[k]);
    }
    if (fits) best = std::min(best, missing);
    int p = 0;  // next assignment, as a base-s counter
    while (p < n && ++socket[p] == s) socket[p++] = 0;
    if (p == n) return best;
  }
}

// What every placement must satisfy, whatever the search found.
void expect_valid(const Placement& placement, const std::vector<int>& requests, const std::vector<int>& cores) {
  const int n = static_cast<int>(requests.size());
  ASSERT_EQ(static_cast<int>(placement.socket.size()), n);
  EXPECT_EQ(missing_cores(requests, placement.socket, cores), placement.missing);
  std::vector<int> first(cores.size(), 0);
  for (std::size_t s = 1; s < cores.size(); ++s) first[s] = first[s - 1] + cores[s - 1];
  std::vector<int> owner(std::accumulate(cores.begin(), cores.end(), 0), -1);
  for (int p = 0; p < n; ++p) {
    const int s = placement.socket[p];
    ASSERT_GE(s, 0);
    ASSERT_LT(s, static_cast<int>(cores.size()));
    EXPECT_GE(placement.threads[p], 1);
    // A process's cores lie inside its socket and belong to no other process.
    EXPECT_GE(placement.first_core[p], first[s]);
    EXPECT_LE(placement.first_core[p] + placement.threads[p], first[s] + cores[s]);
    for (int c = placement.first_core[p]; c < placement.first_core[p] + placement.threads[p]; ++c) {
      EXPECT_EQ(owner[c], -1) << "core " << c << " given twice";
      owner[c] = p;
    }
  }
  for (std::size_t s = 0; s < cores.size(); ++s) {
    int used = 0;
    bool occupied = false;
    for (int p = 0; p < n; ++p)
      if (placement.socket[p] == static_cast<int>(s)) {
        used += placement.threads[p];
        occupied = true;
      }
    if (occupied) {
      EXPECT_EQ(used, cores[s]) << "an occupied socket uses all its cores";
    }
  }
}

TEST(Placement, FindsThePapersExample) {
  // The SABO paper, Fig. 1: 2 sockets of 24 cores, 4 processes requesting 14, 9, 13, 12 threads.
  const std::vector<int> requests{14, 9, 13, 12};
  const std::vector<int> cores{24, 24};
  const Placement placement = place(requests, cores);
  EXPECT_EQ(placement.socket[0], placement.socket[1]);
  EXPECT_EQ(placement.socket[2], placement.socket[3]);
  EXPECT_NE(placement.socket[0], placement.socket[2]);
  EXPECT_EQ(placement.missing, 1);
  EXPECT_TRUE(placement.exhaustive);
  expect_valid(placement, requests, cores);
  // {14, 9} fit in 24 with one core to spare; {13, 12} give up the core they miss.
  EXPECT_GE(placement.threads[0], 14);
  EXPECT_GE(placement.threads[1], 9);
  EXPECT_EQ(placement.threads[2] + placement.threads[3], 24);
}

TEST(Placement, IsExactWhereTheLargestProcessesShareASocket) {
  // The two largest must share a socket to miss nothing: {5,5} and {4,3,3} on 2 x 10.
  const std::vector<int> requests{5, 5, 4, 3, 3};
  const std::vector<int> cores{10, 10};
  const Placement placement = place(requests, cores);
  EXPECT_EQ(placement.missing, 0);
  EXPECT_EQ(placement.socket[0], placement.socket[1]);
  expect_valid(placement, requests, cores);
  EXPECT_EQ(placement.threads, requests);
}

TEST(Placement, MatchesBruteForceOnEverySmallCase) {
  const std::vector<std::vector<int>> nodes{{4}, {4, 4}, {3, 5}, {2, 2, 2}, {6, 6}, {4, 4, 4}, {8, 8}};
  int cases = 0;
  for (const auto& cores : nodes) {
    const int total = std::accumulate(cores.begin(), cores.end(), 0);
    const int max_request = std::min(total, 9);
    for (int n = 1; n <= std::min(total, 5); ++n) {
      // Every request vector in [1, max_request]^n for small n, sampled beyond.
      std::vector<int> requests(n, 1);
      for (;;) {
        const Placement placement = place(requests, cores);
        ASSERT_EQ(placement.missing, brute_force_missing(requests, cores))
            << "n=" << n << " sockets=" << cores.size() << " first request=" << requests[0];
        expect_valid(placement, requests, cores);
        ++cases;
        int p = 0;
        while (p < n && ++requests[p] > max_request) requests[p++] = 1;
        if (p == n) break;
      }
    }
  }
  EXPECT_GT(cases, 280000);
}

TEST(Placement, MatchesBruteForceOnRandomLargerCases) {
  std::mt19937 random(42);
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<int> cores = trial % 2 ? std::vector<int>{12, 12} : std::vector<int>{6, 6, 6};
    const int n = 4 + static_cast<int>(random() % 5);
    std::vector<int> requests(n);
    for (int& r : requests) r = 1 + static_cast<int>(random() % 9);
    const Placement placement = place(requests, cores);
    ASSERT_EQ(placement.missing, brute_force_missing(requests, cores)) << "trial " << trial;
    expect_valid(placement, requests, cores);
  }
}

TEST(Placement, GivesAValidPlacementWhenTheSearchIsCutShort) {
  // The first dive puts the two largest apart and misses a core; a limit of 3 nodes stops right after it.
  const std::vector<int> requests{5, 5, 4, 3, 3};
  const std::vector<int> cores{10, 10};
  const Placement placement = place(requests, cores, 3);
  expect_valid(placement, requests, cores);
  EXPECT_FALSE(placement.exhaustive);
  EXPECT_GE(placement.missing, place(requests, cores).missing);
}

TEST(Placement, HandlesEightProcessesOnTwoSocketsQuickly) {
  // The SABO paper's MiniFE setting: 8 processes on 2 x 24 cores.
  const std::vector<int> requests{11, 6, 6, 5, 5, 5, 5, 5};
  const std::vector<int> cores{24, 24};
  const Placement placement = place(requests, cores);
  EXPECT_EQ(placement.missing, brute_force_missing(requests, cores));
  expect_valid(placement, requests, cores);
  EXPECT_LT(placement.nodes, 1000);
}

TEST(Placement, RefusesWhatCannotBePlaced) {
  const std::vector<int> cores{2, 2};
  const std::vector<int> five{1, 1, 1, 1, 1};
  EXPECT_THROW(place(five, cores), Error);
  const std::vector<int> zero{0, 1};
  EXPECT_THROW(place(zero, cores), Error);
  EXPECT_THROW(place({}, cores), Error);
  const std::vector<int> one{1};
  EXPECT_THROW(place(one, {}), Error);
  const std::vector<int> empty_socket{0, 4};
  EXPECT_THROW(place(one, empty_socket), Error);
}

}  // namespace
}  // namespace herald::balance
