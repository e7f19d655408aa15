// herald-tune's grid: what a cell measures on one node and across nodes, and when a pick stands.
#include "candidates.hpp"

#include <herald/algorithms.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace herald::tune {
namespace {

bool has(const std::vector<Candidate>& list, std::string_view algorithm) {
  return std::ranges::any_of(list, [&](const Candidate& c) { return c.algorithm == algorithm; });
}

// On one node the node-aware algorithms are measured too, on the layout herald finds (no node size): that is
// where node_shared's node memory runs, herald's fastest there. Every algorithm of the table is a candidate.
TEST(TuneCandidates, OneNodeMeasuresEveryAlgorithmNodeMemoryIncluded) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4096}, std::size_t{1} << 20}) {
    const std::vector<Candidate> list = candidates(bytes, false);
    ASSERT_FALSE(list.empty());
    EXPECT_EQ(list.front(), Candidate{"native"});
    for (const AlgorithmInfo& a : algorithms()) EXPECT_TRUE(has(list, a.name)) << a.name << " at " << bytes;
    for (const Candidate& c : list) {
      EXPECT_EQ(c.parameters.node_size, std::nullopt) << c.algorithm;
      if (c.algorithm == "node_shared" || c.algorithm == "node_pipeline" || c.algorithm == "hierarchical") {
        EXPECT_EQ(c.parameters.segment, std::nullopt) << c.algorithm << ": segments change nothing on one node";
      }
    }
    EXPECT_EQ(std::ranges::count(list, Candidate{"native"}), 1);
  }
}

// Across nodes the node-aware ones run on the nodes herald finds (no node size given, so a cyclic placement
// is measured as it runs), and are measured at each segment size.
TEST(TuneCandidates, AcrossNodesTheNodeAwareOnesFindTheNodes) {
  const std::vector<Candidate> list = candidates(std::size_t{1} << 20, true);
  int node_shared_segments = 0;
  for (const Candidate& c : list) {
    EXPECT_EQ(c.parameters.node_size, std::nullopt) << c.algorithm;
    if (c.algorithm == "node_shared" && c.parameters.segment) ++node_shared_segments;
  }
  EXPECT_EQ(node_shared_segments, 2);  // 16 KiB and 256 KiB; 64 KiB is its default, measured as such
  EXPECT_TRUE(has(list, "hierarchical"));
}

// Segment sizes: powers of four from 16 KiB (1 KiB for circulant) below the message, the default measured
// once; every candidate is a problem the algorithms accept.
TEST(TuneCandidates, CirculantAlsoBelowSixteenKiB) {
  std::vector<std::size_t> circulant, chain;
  for (const Candidate& c : candidates(std::size_t{1} << 20, false)) {
    if (!c.parameters.segment) continue;
    if (c.algorithm == "circulant") circulant.push_back(*c.parameters.segment);
    if (c.algorithm == "chain") chain.push_back(*c.parameters.segment);
  }
  EXPECT_EQ(circulant, (std::vector<std::size_t>{1024, 4096, 16384, 262144}));
  EXPECT_EQ(chain, (std::vector<std::size_t>{16384, 262144}));
}

TEST(TuneCandidates, SegmentsBelowTheMessageEachOnce) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{16 * 1024}, std::size_t{100000}, std::size_t{64} << 20})
    for (bool spans : {false, true}) {
      const std::vector<Candidate> list = candidates(bytes, spans);
      for (std::size_t i = 0; i < list.size(); ++i) {
        for (std::size_t j = i + 1; j < list.size(); ++j) EXPECT_FALSE(list[i] == list[j]) << list[i].algorithm;
        if (list[i].parameters.segment) {
          EXPECT_LT(*list[i].parameters.segment, bytes);
          EXPECT_LE(*list[i].parameters.segment, std::size_t{4} << 20);
        }
        if (list[i].algorithm != "native") {
          EXPECT_NO_THROW(make_schedule(find_algorithm(list[i].algorithm),
                                        {.ranks = 4, .root = 0, .bytes = bytes, .parameters = list[i].parameters}));
        }
      }
    }
}

// A pick stands where its median is below every one of native's samples and at most 0.95 of native's median;
// where ranks outnumber cores, its median must also be at most 0.8 of native's. Anything else goes back to
// native (the file then says native).
TEST(TunePick, StandsOnlyWhereClearlyFaster) {
  const std::vector<double> native{10, 11, 12};
  EXPECT_TRUE(pick_holds(std::vector<double>{5, 6, 7}, native, false));
  EXPECT_TRUE(pick_holds(std::vector<double>{5, 6, 7}, native, true));
  EXPECT_TRUE(pick_holds(std::vector<double>{9, 9.5, 9.9}, native, false));   // faster, by 14%
  EXPECT_FALSE(pick_holds(std::vector<double>{9, 9.5, 9.9}, native, true));   // not by the margin
  EXPECT_TRUE(pick_holds(std::vector<double>{5, 6, 40}, native, false));      // one slow sample of the pick
  EXPECT_TRUE(pick_holds(std::vector<double>{5, 6, 7}, std::vector<double>{10, 11, 50}, false));  // of native
  EXPECT_FALSE(pick_holds(std::vector<double>{5, 10.5, 11}, native, false));  // its median among native's
  EXPECT_FALSE(pick_holds(std::vector<double>{9.8, 9.9, 9.95}, std::vector<double>{10, 10.1, 10.2}, false));  // < 5%
  EXPECT_FALSE(pick_holds(std::vector<double>{13, 14, 15}, native, false));   // slower
  EXPECT_FALSE(pick_holds(std::vector<double>{}, native, false));
  EXPECT_FALSE(pick_holds(std::vector<double>{1}, std::vector<double>{}, false));
}

}  // namespace
}  // namespace herald::tune
