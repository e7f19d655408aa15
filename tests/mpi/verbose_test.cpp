// HERALD_VERBOSE=1 (set by the test's command): for each auto call, world rank 0 names on stderr the algorithm
// the call runs, the same that herald::resolve_algorithm() reports, native included (one node, short call).
#include <herald/bcast.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

TEST(Verbose, NamesTheAlgorithmAutoRuns) {
  ASSERT_STREQ(std::getenv("HERALD_VERBOSE"), "1") << "run with HERALD_VERBOSE=1";
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Rank 0's stderr into a file for the calls below.
  char path[] = "/tmp/herald_verbose_XXXXXX";
  int file = -1, saved = -1;
  if (rank == 0) {
    file = mkstemp(path);
    ASSERT_GE(file, 0);
    std::fflush(stderr);
    saved = dup(2);
    dup2(file, 2);
  }
  const std::vector<std::size_t> sizes{1, 100, 4096, 100000};
  std::vector<std::string> runs;
  std::vector<herald::Resolved> resolved;
  for (std::size_t bytes : sizes) {
    std::vector<std::byte> buffer(bytes, std::byte{7});
    herald::bcast(buffer, 0, MPI_COMM_WORLD);
    runs.push_back(herald::resolve_algorithm(MPI_COMM_WORLD, {}, bytes, 0));
    resolved.push_back(herald::resolve(MPI_COMM_WORLD, {}, bytes, 0));
    EXPECT_EQ(resolved.back().algorithm, runs.back()) << bytes;
  }
  if (rank != 0) return;
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(file);
  std::ifstream in(path);
  const std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (size < 2) continue;  // one rank moves nothing: nothing to choose, nothing said
    const std::string line = "herald auto: " + std::to_string(size) + " ranks, " + std::to_string(sizes[i]) +
                             " bytes: " + runs[i];
    EXPECT_NE(said.find(line), std::string::npos) << "expected '" << line << "' in:\n" << said;
    // herald::resolve() gives the segment the call runs, as the line names it.
    if (const auto segment = resolved[i].parameters.segment) {
      const std::string with_segment = line + " segment " + std::to_string(*segment);
      EXPECT_NE(said.find(with_segment), std::string::npos) << "expected '" << with_segment << "' in:\n" << said;
    }
  }
}

}  // namespace
