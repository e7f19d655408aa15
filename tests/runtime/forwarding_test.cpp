// The forwarding ledger without MPI: its trees, checked against the rule stated directly over every short
// history on four ranks, and its spread on a factorisation's pattern of broadcasts.
#include "forwarding.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <vector>

namespace herald::runtime::detail {
namespace {

struct Broadcast {
  int root;
  std::vector<int> recipients;
};

// Every broadcast on `ranks` ranks: each root, each ordered list of one or more of the others.
std::vector<Broadcast> every_broadcast(int ranks) {
  std::vector<Broadcast> all;
  for (int root = 0; root < ranks; ++root) {
    std::vector<int> others;
    for (int r = 0; r < ranks; ++r)
      if (r != root) others.push_back(r);
    for (unsigned mask = 1; mask < (1u << others.size()); ++mask) {
      std::vector<int> chosen;
      for (std::size_t i = 0; i < others.size(); ++i)
        if (mask & (1u << i)) chosen.push_back(others[i]);
      do all.push_back({root, chosen});
      while (std::next_permutation(chosen.begin(), chosen.end()));
    }
  }
  return all;
}

TEST(ForwardingLedger, EveryTreeFollowsTheRuleOverEveryHistoryOfThreeBroadcastsOnFourRanks) {
  // The rule, stated directly: recipients in the given order; each gets the data from the holder so far
  // (the root, then the recipients before it) that has sent the fewest bytes, this broadcast's copies
  // included, the earliest among equals; the ledger adds one copy to that holder.
  const std::vector<Broadcast> all = every_broadcast(4);
  ASSERT_EQ(all.size(), 4u * 15u);
  std::size_t histories = 0;
  for (const Broadcast& a : all)
    for (const Broadcast& b : all)
      for (const Broadcast& c : all) {
        ForwardingLedger ledger;
        std::vector<std::uint64_t> sent(4, 0);
        std::uint64_t bytes = 3;
        for (const Broadcast* x : {&a, &b, &c}) {
          const std::vector<int> parents = ledger.tree(x->root, x->recipients, bytes);
          ASSERT_EQ(parents.size(), x->recipients.size());
          std::vector<int> holders{x->root};
          for (std::size_t i = 0; i < parents.size(); ++i) {
            ASSERT_GE(parents[i], -1);
            ASSERT_LT(parents[i], static_cast<int>(i));  // a parent is served before its child
            const int from = holders[static_cast<std::size_t>(parents[i] + 1)];
            for (std::size_t h = 0; h < holders.size(); ++h) {
              const std::uint64_t other = sent[static_cast<std::size_t>(holders[h])];
              if (static_cast<int>(h) < parents[i] + 1) EXPECT_GT(other, sent[static_cast<std::size_t>(from)]);
              else EXPECT_GE(other, sent[static_cast<std::size_t>(from)]);
            }
            sent[static_cast<std::size_t>(from)] += bytes;
            holders.push_back(x->recipients[i]);
          }
          for (int r = 0; r < 4; ++r) ASSERT_EQ(ledger.sent(r), sent[static_cast<std::size_t>(r)]);
          bytes += 5;  // sizes differ between broadcasts
        }
        ++histories;
      }
  EXPECT_EQ(histories, 60u * 60u * 60u);
}

TEST(ForwardingLedger, AFreshLedgerChainsTheRecipients) {
  // Nothing sent yet: each new recipient has sent nothing, so it forwards to the next.
  ForwardingLedger ledger;
  const std::vector<int> recipients{5, 2, 7, 1};
  EXPECT_EQ(ledger.tree(3, recipients, 10), (std::vector<int>{-1, 0, 1, 2}));
  EXPECT_EQ(ledger.sent(3), 10u);
  EXPECT_EQ(ledger.sent(1), 0u);
  EXPECT_EQ(ledger.sent(99), 0u);
}

TEST(ForwardingLedger, RefusesANegativeRank) {
  ForwardingLedger ledger;
  const std::vector<int> bad{1, -1};
  EXPECT_THROW(ledger.tree(0, bad, 1), Error);
  const std::vector<int> good{1};
  EXPECT_THROW(ledger.tree(-3, good, 1), Error);
}

TEST(ForwardingLedger, SpreadsAFactorisationsBroadcastsOverEveryRank) {
  // A tiled Cholesky's broadcasts on a 4 x 4 grid of ranks, 2D block-cyclic: tile (i, k) of panel k goes
  // from its owner to the owners of the tiles its updates write (row i and column i), most urgent first
  // (the trailing updates nearest the panel first). The tree the urgency alone gives, a chain in urgency
  // order, loads the ranks unevenly; the ledger's trees keep every rank's sent bytes near the mean.
  const int grid = 4, tiles = 32;
  auto owner = [&](int i, int j) { return (i % grid) * grid + (j % grid); };
  ForwardingLedger ledger;
  std::vector<std::uint64_t> chain(grid * grid, 0);
  for (int k = 0; k < tiles; ++k)
    for (int i = k; i < tiles; ++i) {
      const int root = owner(i, k);
      std::vector<int> recipients;
      auto add = [&](int r) {
        if (r != root && std::find(recipients.begin(), recipients.end(), r) == recipients.end()) recipients.push_back(r);
      };
      for (int j = k + 1; j <= i; ++j) add(owner(i, j));     // row i: the updates of (i, j)
      for (int j = i + 1; j < tiles; ++j) add(owner(j, i));  // column i: the updates of (j, i)
      if (recipients.empty()) continue;
      ledger.tree(root, recipients, 1);
      chain[static_cast<std::size_t>(root)] += 1;
      for (std::size_t r = 0; r + 1 < recipients.size(); ++r) chain[static_cast<std::size_t>(recipients[r])] += 1;
    }
  std::vector<std::uint64_t> spread(grid * grid);
  for (int r = 0; r < grid * grid; ++r) spread[static_cast<std::size_t>(r)] = ledger.sent(r);
  const auto total = std::accumulate(spread.begin(), spread.end(), std::uint64_t{0});
  ASSERT_EQ(total, std::accumulate(chain.begin(), chain.end(), std::uint64_t{0}));  // one copy per recipient either way
  const double mean = static_cast<double>(total) / (grid * grid);
  const auto [low, high] = std::minmax_element(spread.begin(), spread.end());
  const auto [chain_low, chain_high] = std::minmax_element(chain.begin(), chain.end());
  EXPECT_LE(static_cast<double>(*high), 1.05 * mean);
  EXPECT_GE(static_cast<double>(*low), 0.95 * mean);
  EXPECT_GT(static_cast<double>(*chain_high) / static_cast<double>(*chain_low), 1.2);  // the uneven load it mends
}

}  // namespace
}  // namespace herald::runtime::detail
