// HERALD_AUTO_LEARN=1 (set by the test's command) under real processes: sizes that change on every call,
// roots that move, communicators created and freed mid-trial, blocking and nonblocking calls mixed. Every
// byte arrives, and on every call every rank ran the same thing (the trace's record of each call, by
// communicator and call number, names one algorithm on every rank). The trials ran: some calls ran a
// candidate other than auto's own pick.
#include "../../src/coll/learning.hpp"
#include "../common/run_folder.hpp"

#include <herald/bcast.hpp>
#include <herald/config.hpp>
#include <herald/tracing.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

std::vector<std::byte> pattern(std::size_t bytes, int call) {
  std::vector<std::byte> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 31 + static_cast<std::size_t>(call)) % 251);
  return data;
}

// `calls` broadcasts on `comm`, sizes cycling through `sizes` (a new one each call), roots moving; every
// fifth one nonblocking. Returns whether every rank got every byte.
bool run(MPI_Comm comm, const std::vector<std::size_t>& sizes, int calls) {
  int me = 0, n = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  int ok = 1;
  for (int call = 0; call < calls; ++call) {
    const std::size_t bytes = sizes[static_cast<std::size_t>(call) % sizes.size()];
    const int root = (call / 3) % n;
    const std::vector<std::byte> expected = pattern(bytes, call);
    std::vector<std::byte> data = me == root ? expected : std::vector<std::byte>(bytes, std::byte{0});
    if (call % 5 == 4)
      herald::ibcast(data, root, comm).wait();
    else
      herald::bcast(data, root, comm);
    ok &= data == expected;
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

TEST(Learning, EveryRankRunsTheSameOnEveryCallAndEveryByteArrives) {
  ASSERT_STREQ(std::getenv("HERALD_AUTO_LEARN"), "1") << "run with HERALD_AUTO_LEARN=1";
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string dir = herald::test::run_folder("learn-trace", MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  herald::trace::start(MPI_COMM_WORLD, dir);

  // In blocking calls of one class (one in five of run()'s calls is nonblocking, which no trial counts):
  // the trial with its warm-up (3 candidates at most), then the agreement.
  const herald::TrialShape shape;
  const int trial = shape.warmup + 3 * shape.rounds, agreed = trial + 1 + shape.lag;
  auto calls_for = [](int blocking) { return blocking * 5 / 4 + 1; };
  // Three size classes interleaved, each past its trial and agreement.
  const std::vector<std::size_t> sizes{700, 40000, 300000};
  EXPECT_TRUE(run(MPI_COMM_WORLD, sizes, 3 * calls_for(agreed + 8)));
  // A communicator made and freed mid-trial (its agreement is never asked for), and one freed while its
  // agreement is in flight.
  for (int blocking : {shape.warmup + shape.rounds, trial + 1 + shape.lag / 2}) {
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    EXPECT_TRUE(run(half, {5000}, calls_for(blocking)));
    MPI_Comm_free(&half);
  }
  EXPECT_TRUE(run(MPI_COMM_WORLD, {1, 64, 100000}, 3 * 50));
  herald::trace::finish();
  if (rank != 0) return;

  std::ifstream in(std::filesystem::path(dir) / "trace.json");
  ASSERT_TRUE(in) << "no trace.json in " << dir;
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::map<std::tuple<std::int64_t, std::int64_t>, std::set<std::string>> ran;  // (comm, call) -> algorithms
  std::map<std::tuple<std::int64_t, std::int64_t>, int> ranks;
  int measured = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "bcast") continue;
    const auto key = std::make_tuple(e["args"]["comm"].get<std::int64_t>(), e["args"]["id"].get<std::int64_t>());
    ran[key].insert(e["name"].get<std::string>());
    ++ranks[key];
    if (e["args"]["why"].get<std::string>().starts_with("auto: measured")) ++measured;
  }
  EXPECT_FALSE(ran.empty());
  for (const auto& [key, names] : ran)
    EXPECT_EQ(names.size(), 1u) << "call " << std::get<1>(key) << " on communicator " << std::get<0>(key) << " ran "
                                << *names.begin() << " and " << *names.rbegin() << " on different ranks";
  if (size > 1) { EXPECT_GT(measured, 0) << "no call ran a candidate other than auto's own pick"; }
  in.close();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // kept to look into where it failed
}

}  // namespace
