// auto's one decision, by what is seen: for a grid of sizes and roots on two communicators (the world, and
// the world in reverse rank order, whose node layout and link loads differ), the algorithm each broadcast ran
// (as the trace records it on every rank) is the one herald::resolve() returns and the one HERALD_VERBOSE
// printed, with the same parameters. Run with HERALD_VERBOSE=1; HERALD_TEST_DECISION_TUNING=<path> makes rank 0
// write a tuning file there first (cells that name native, binomial and a segmented chain), which every rank
// then reads; the test's commands add node layouts and presets.
#include "../common/run_folder.hpp"

#include <herald/algorithms.hpp>
#include <herald/bcast.hpp>
#include <herald/config.hpp>
#include <herald/tracing.hpp>
#include <herald/tuning.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

void write_tuning_file(const std::string& path) {
  int me = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (me == 0) {
    herald::Tuning t;
    t.layout = herald::this_job_layout();
    t.intra_node = {.alpha = 5e-7, .beta = 2e-10, .gap = 1e-7};
    t.cells = {{.ranks = P, .bytes = 100, .algorithm = "native", .seconds = 1e-6},
               {.ranks = P, .bytes = 4096, .algorithm = "binomial", .seconds = 3e-6},
               {.ranks = P, .bytes = 300000, .algorithm = "chain", .parameters = {.segment = 16384}, .seconds = 9e-5}};
    std::ofstream(path) << herald::tuning_json(t);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("HERALD_TUNING_FILE", path.c_str(), 1);
}

// HERALD_VERBOSE's words for a call's parameters (describe()).
std::string parameter_text(const herald::Parameters& p) {
  std::string text;
  if (p.segment) text += " segment " + std::to_string(*p.segment);
  if (p.fanout) text += " fanout " + std::to_string(*p.fanout);
  if (p.radix) text += " radix " + std::to_string(*p.radix);
  if (p.node_size) text += " node_size " + std::to_string(*p.node_size);
  if (p.leaders) text += " leaders " + std::string(herald::leader_stage_name(*p.leaders));
  return text;
}

struct Asked {
  int ranks;
  int root;
  std::size_t bytes;
  herald::Resolved resolved;
};

TEST(Decision, WhatRanIsWhatResolveAndVerboseSay) {
  ASSERT_STREQ(std::getenv("HERALD_VERBOSE"), "1") << "run with HERALD_VERBOSE=1";
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ASSERT_GE(size, 2);
  if (const auto path = herald::environment("HERALD_TEST_DECISION_TUNING")) write_tuning_file(*path);
  const std::string dir = herald::test::run_folder("decision-trace", MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);

  // Every rank's stderr into a file for the calls below: each communicator's rank 0 speaks for it, and the
  // reversed one's rank 0 is the world's last.
  char path[] = "/tmp/herald_decision_XXXXXX";
  std::fflush(stderr);
  const int file = mkstemp(path);
  ASSERT_GE(file, 0);
  const int saved = dup(2);
  dup2(file, 2);

  MPI_Comm reversed = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  herald::trace::start(MPI_COMM_WORLD, dir);
  const std::vector<std::size_t> sizes{1, 100, 600, 4096, 65536, 300000, std::size_t{1} << 21};
  std::vector<Asked> asked;
  for (MPI_Comm comm : {MPI_COMM_WORLD, reversed}) {
    int me = 0;
    MPI_Comm_rank(comm, &me);
    for (std::size_t bytes : sizes) {
      for (int root : {0, size - 1}) {
        std::vector<std::byte> buffer(bytes, std::byte{static_cast<unsigned char>(me == root ? 7 : 0)});
        herald::bcast(buffer, root, comm);
        EXPECT_TRUE(std::ranges::all_of(buffer, [](std::byte b) { return b == std::byte{7}; }))
            << bytes << " bytes from " << root;
        asked.push_back({size, root, bytes, herald::resolve(comm, {}, bytes, root)});
      }
    }
  }
  herald::trace::finish();
  MPI_Comm_free(&reversed);

  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(file);
  std::string said;
  {
    std::ifstream in(path);
    said.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  unlink(path);
  // Each communicator's rank 0 speaks for it: gather what the world's first and last ranks heard.
  int length = static_cast<int>(said.size());
  std::vector<int> lengths(static_cast<std::size_t>(size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size(), 0);
  for (std::size_t r = 1; r < lengths.size(); ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string everything(rank == 0 ? static_cast<std::size_t>(offsets.back() + lengths.back()) : 0, '\0');
  MPI_Gatherv(said.data(), length, MPI_CHAR, everything.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (rank != 0) return;

  // Every rank's broadcasts, in the order each rank made them (blocking calls, one after another).
  std::ifstream in(std::filesystem::path(dir) / "trace.json");
  ASSERT_TRUE(in) << "no trace.json in " << dir;
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::map<int, std::vector<std::pair<double, std::string>>> ran;  // rank -> (start, algorithm)
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "bcast") ran[e["pid"].get<int>()].emplace_back(e["ts"], e["name"]);
  ASSERT_EQ(ran.size(), static_cast<std::size_t>(size));
  for (auto& [r, calls] : ran) {
    std::ranges::stable_sort(calls, {}, [](const auto& c) { return c.first; });
    ASSERT_EQ(calls.size(), asked.size()) << "rank " << r;
    for (std::size_t i = 0; i < asked.size(); ++i)
      EXPECT_EQ(calls[i].second, asked[i].resolved.algorithm)
          << "rank " << r << ", call " << i << ": " << asked[i].bytes << " bytes from " << asked[i].root;
  }
  for (const Asked& a : asked) {
    std::string line = "herald auto: " + std::to_string(a.ranks) + " ranks, " + std::to_string(a.bytes) + " bytes" +
                       (a.root != 0 ? ", root " + std::to_string(a.root) : "") + ": ";
    // MPI_Bcast ("native: one node..." or "native, measured..."), or a herald algorithm with the parameters
    // it runs with, then its price.
    const bool found = a.resolved.algorithm == "native"
                           ? everything.find(line + "native:") != std::string::npos ||
                                 everything.find(line + "native,") != std::string::npos
                           : everything.find(line + a.resolved.algorithm + parameter_text(a.resolved.parameters) +
                                             ",") != std::string::npos;
    EXPECT_TRUE(found) << "expected '" << line << a.resolved.algorithm << "' in:\n" << everything;
  }
  in.close();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // kept to look into where it failed
}

}  // namespace
