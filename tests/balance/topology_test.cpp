#include <herald/balance/topology.hpp>
#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace herald::balance {
namespace {

TEST(Topology, PretendsABiggerNodeOverFewCpus) {
  const std::vector<int> sockets{4, 4};
  const std::vector<int> real{0, 1};
  const Topology t = pretend(sockets, real);
  EXPECT_TRUE(t.pretended);
  EXPECT_EQ(t.cores(), 8);
  EXPECT_EQ(t.socket_cores(), sockets);
  for (int core = 0; core < 8; ++core) EXPECT_EQ(t.cpu(core), real[core % 2]) << core;
  EXPECT_THROW(t.cpu(8), Error);
}

TEST(Topology, DescribesItself) {
  const std::vector<int> real{0, 1};
  EXPECT_EQ(describe(pretend(std::vector<int>{24, 24}, real)), "2 sockets x 24 cores (pretended)");
  EXPECT_EQ(describe(pretend(std::vector<int>{8}, real)), "1 socket x 8 cores (pretended)");
  Topology uneven;
  uneven.sockets = {Socket{{0, 1, 2}, 1}, Socket{{3}, 1}};
  EXPECT_EQ(describe(uneven), "sockets of 3,1 cores (2 L3 groups)");
  EXPECT_EQ(uneven.cpu(3), 3);
}

TEST(Topology, RefusesAnEmptyPretence) {
  const std::vector<int> real{0};
  EXPECT_THROW(pretend({}, real), Error);
  EXPECT_THROW(pretend(std::vector<int>{4}, {}), Error);
}

}  // namespace
}  // namespace herald::balance
