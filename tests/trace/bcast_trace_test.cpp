// A traced run of coll broadcasts: every rank's record of each broadcast and its messages agrees with the
// schedule the algorithm gives that rank, and every message sent is received. The trace's directory comes
// from HERALD_TEST_TRACE_DIR; the tests after this one read the same files with otf2-print and herald-trace.
#include <herald/algorithms.hpp>
#include <herald/bcast.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/tracing.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

namespace herald {
namespace {

struct Call {
  const char* algorithm;
  int root;
  std::size_t bytes;
  std::optional<std::size_t> segment;
  bool nonblocking;
};

using Message = std::tuple<std::string, int, std::size_t, std::size_t>;  // send/recv, world peer, offset, bytes

TEST(TraceMpi, EveryBroadcastsMessagesAreItsSchedulesAndEveryOneArrives) {
  const std::string dir = environment("HERALD_TEST_TRACE_DIR").value_or("trace-bcast");
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) std::filesystem::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  trace::start(MPI_COMM_WORLD, dir);
  ASSERT_NE(trace::recorder(), nullptr);
  const std::vector<Call> calls{{"binomial", 1 % size, 4093, std::nullopt, false},
                                {"chain", 0, 10000, 1024, false},
                                {"scatter_ring", 2 % size, 65539, std::nullopt, false},
                                {"binary", size - 1, 777, std::nullopt, true}};
  for (const Call& c : calls) {
    std::vector<std::byte> data(c.bytes, std::byte{static_cast<unsigned char>(rank == c.root ? 7 : 0)});
    Options options{.algorithm = c.algorithm, .parameters = {.segment = c.segment}};
    if (c.nonblocking)
      ibcast(data, c.root, MPI_COMM_WORLD, options).wait();
    else
      bcast(data, c.root, MPI_COMM_WORLD, options);
    ASSERT_TRUE(std::all_of(data.begin(), data.end(), [](std::byte b) { return b == std::byte{7}; }));
  }
  trace::finish();
  EXPECT_EQ(trace::recorder(), nullptr);
  if (rank != 0) return;

  std::ifstream in(std::filesystem::path(dir) / "trace.json");
  ASSERT_TRUE(in) << "no trace.json in " << dir;
  const nlohmann::json trace = nlohmann::json::parse(in);
  // Every rank's clock offset, and how far off it may be: none on one host (exact), half a round trip
  // where ping-pong measured it (HERALD_EMULATE_NODES makes every rank a host of its own).
  const auto& errors = trace["otherData"]["offset_errors_us"];
  ASSERT_EQ(errors.size(), static_cast<std::size_t>(size));
  EXPECT_EQ(errors[0].get<double>(), 0);
  const bool own_hosts = environment("HERALD_EMULATE_NODES").value_or("") == "1";
  for (int r = 1; r < size; ++r) {
    if (own_hosts)
      EXPECT_GT(errors[static_cast<std::size_t>(r)].get<double>(), 0) << "rank " << r << " was measured by ping-pong";
    else
      EXPECT_EQ(errors[static_cast<std::size_t>(r)].get<double>(), 0) << "rank " << r << " shares rank 0's host";
  }
  // Per broadcast (by its id), per rank: its record and its messages.
  std::map<std::int64_t, std::map<int, std::string>> names;
  std::map<std::int64_t, std::map<int, std::vector<Message>>> messages;
  std::map<std::int64_t, std::pair<int, int>> sends_and_recvs;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int pid = e["pid"];
    const auto& args = e["args"];
    if (e["cat"] == "bcast") names[args["id"]][pid] = e["name"];
    if (e["cat"] == "send" || e["cat"] == "recv") {
      const bool send = e["cat"] == "send";
      messages[args["bcast"]][pid].emplace_back(e["cat"], send ? args["to"] : args["from"], args["offset"],
                                                args["bytes"]);
      (send ? sends_and_recvs[args["bcast"]].first : sends_and_recvs[args["bcast"]].second)++;
      EXPECT_GE(e["dur"].get<double>(), 0);
    }
  }
  ASSERT_EQ(names.size(), calls.size());
  std::size_t i = 0;
  for (const auto& [id, by_rank] : names) {
    const Call& c = calls[i++];
    ASSERT_EQ(by_rank.size(), static_cast<std::size_t>(size)) << "broadcast " << id;
    const Problem problem{.ranks = size, .root = c.root, .bytes = c.bytes, .parameters = {.segment = c.segment}};
    for (int r = 0; r < size; ++r) {
      EXPECT_EQ(by_rank.at(r), c.algorithm);
      std::vector<Message> expected;
      for (const Step& s : make_program(find_algorithm(c.algorithm), problem, r))
        expected.emplace_back(s.op == Step::Op::send ? "send" : "recv", s.peer, s.range.offset, s.range.length);
      std::vector<Message> got = messages[id][r];
      std::sort(expected.begin(), expected.end());
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, expected) << c.algorithm << " on rank " << r;
    }
    EXPECT_EQ(sends_and_recvs[id].first, sends_and_recvs[id].second) << c.algorithm;
  }
}

TEST(TraceMpi, ASecondTraceOnAnotherCommunicatorIsRefused) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string dir = environment("HERALD_TEST_TRACE_DIR").value_or("trace-bcast") + "-refused";
  MPI_Comm self_dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
  trace::start(MPI_COMM_WORLD, dir);
  trace::start(MPI_COMM_WORLD, dir);  // the same communicator again: nothing new
  EXPECT_THROW(trace::start(self_dup, dir), Error);
  EXPECT_THROW(trace::start(MPI_COMM_NULL, dir), Error);
  trace::finish();
  trace::finish();  // none open: nothing
  EXPECT_THROW(trace::start(MPI_COMM_WORLD, ""), Error);
  MPI_Comm_free(&self_dup);
  if (rank == 0) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace herald
