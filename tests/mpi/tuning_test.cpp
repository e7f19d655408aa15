// A tuning file under real processes. HERALD_TEST_TUNING_MODE says which file rank 0 writes (at
// HERALD_TEST_TUNING_PATH) before the first herald call reads it:
//   measured   this job's layout, cells forcing chain at 1 KiB and native at 64 KiB: auto runs those
//   version    tuning_version 2: every call refuses, naming the file
//   other_mpi  another MPI library: every call refuses, naming both libraries
//   fallback   the other MPI's file with HERALD_TUNING_FALLBACK=1: auto runs on the cost model
//   other_shape  this MPI, but measured by a 2-rank job (2 ranks per node): this larger job uses it, taking the
//              2-rank cells, and says so once
//   existing   no file is written: the one at the path (herald-tune's) is used, cell by cell
#include <herald/bcast.hpp>
#include <herald/error.hpp>
#include <herald/tuning.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Rank 0 writes the file of this mode; every rank then points HERALD_TUNING_FILE at it.
void write_file(const std::string& mode, const std::string& path) {
  if (mode == "existing") {
    setenv("HERALD_TUNING_FILE", path.c_str(), 1);
    return;
  }
  int me = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (me == 0) {
    herald::Tuning t;
    t.layout = herald::this_job_layout();
    if (mode == "other_mpi" || mode == "fallback") t.layout.mpi_library = "Other MPI 1.0";
    t.intra_node = {.alpha = 5e-7, .beta = 2e-10, .gap = 1e-7};
    const int measured = mode == "other_shape" ? 2 : P;
    if (mode == "other_shape") t.layout.ranks = t.layout.ranks_per_node = 2;
    t.cells = {{.ranks = measured, .bytes = 1024, .algorithm = "chain", .parameters = {.segment = 256}, .seconds = 1e-6},
               {.ranks = measured, .bytes = 65536, .algorithm = "native", .seconds = 1e-5}};
    std::string text = herald::tuning_json(t);
    if (mode == "version") text.replace(text.find("\"tuning_version\": 1"), 19, "\"tuning_version\": 2");
    std::ofstream(path) << text;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("HERALD_TUNING_FILE", path.c_str(), 1);
  if (mode == "fallback") setenv("HERALD_TUNING_FALLBACK", "1", 1);
}

// Broadcasts `bytes` with auto from every root; true on every rank when every rank got the root's bytes.
bool delivers(std::size_t bytes) {
  int me = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int ok = 1;
  for (int root = 0; root < P; ++root) {
    std::vector<std::byte> data(bytes, std::byte{0});
    if (me == root)
      for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 7 + root) % 251);
    herald::bcast(data, root, MPI_COMM_WORLD, {.algorithm = "auto"});
    for (std::size_t i = 0; i < bytes; ++i) ok &= data[i] == static_cast<std::byte>((i * 7 + root) % 251);
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

TEST(TuningFile, AsTheModeSays) {
  const std::string mode = env("HERALD_TEST_TUNING_MODE");
  const std::string path = env("HERALD_TEST_TUNING_PATH");
  ASSERT_FALSE(mode.empty() || path.empty()) << "set HERALD_TEST_TUNING_MODE and HERALD_TEST_TUNING_PATH";
  write_file(mode, path);
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);

  if (mode == "existing") {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const herald::Tuning t = herald::parse_tuning(text, path);
    // Besides alpha and beta herald-tune measured the overhead (a send's posting takes time), the eager
    // limit and, with three ranks on the node, the network; which network and limit is the MPI's own.
    EXPECT_GT(t.intra_node.overhead, 0.0);
    for (const char* field : {"\"network\"", "\"eager_bytes\"", "\"overhead\""})
      EXPECT_NE(text.find(field), std::string::npos) << field << " missing from " << path;
    int cells = 0;
    for (const herald::TuningCell& c : t.cells) {
      if (c.ranks != P) continue;
      ++cells;
      EXPECT_EQ(herald::resolve_algorithm({.algorithm = "auto"}, P, c.bytes), c.algorithm) << c.bytes << " bytes";
      EXPECT_TRUE(delivers(c.bytes)) << c.bytes << " bytes";
    }
    EXPECT_GT(cells, 0) << "the file has no cell for " << P << " ranks";
    return;
  }
  if (mode == "measured" || mode == "fallback" || mode == "other_shape") {
    const std::string small = herald::resolve_algorithm({.algorithm = "auto"}, P, 1024);
    const std::string medium = herald::resolve_algorithm({.algorithm = "auto"}, P, 65536);
    if (mode == "measured" || mode == "other_shape") {
      EXPECT_EQ(small, "chain");
      EXPECT_EQ(herald::resolve_algorithm({.algorithm = "auto"}, P, 1500), "chain");  // within a factor of two
      EXPECT_EQ(medium, "native");
    } else {
      EXPECT_NE(small, "chain") << "the refused file's cell was used";
      EXPECT_NE(medium, "native") << "the refused file's cell was used";
    }
    // An explicit algorithm is never replaced by the file.
    EXPECT_EQ(herald::resolve_algorithm({.algorithm = "binomial"}, P, 1024), "binomial");
    for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{65536},
                              std::size_t{300000}})
      EXPECT_TRUE(delivers(bytes)) << bytes << " bytes";
    return;
  }
  const std::string expected = mode == "version" ? "tuning_version 2" : "Other MPI 1.0";
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<std::byte> data(16);
    try {
      herald::bcast(data, 0, MPI_COMM_WORLD, {.algorithm = "auto"});
      ADD_FAILURE() << "a broadcast ran with the refused file";
    } catch (const herald::Error& e) {
      EXPECT_EQ(e.code(), herald::Errc::invalid_argument);
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(expected), std::string::npos) << what;
    }
  }
}

}  // namespace
