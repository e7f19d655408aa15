// What tracing costs. Two parts, each with medians over repetitions:
//  - per event, on one rank: the test every recording site makes when no trace is open (trace::recorder()
//    and a branch), and one recorded span with a trace open (buffered, spilled to disk when full);
//  - per broadcast, across the ranks: herald::bcast with no trace open against the same calls with one
//    open, interleaved repetition by repetition (the order alternates), each the mean of --calls calls
//    timed to the slowest rank.
//
//   mpiexec -n 2 herald-trace-bench [--sizes 1,1K,64K] [--calls 2000] [--repetitions 7] [--algorithm binomial]
#include <herald/algorithms.hpp>
#include <herald/bcast.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/tracing.hpp>

#include "cli.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Seconds per iteration of `body`, run `iterations` times, on this process's steady clock.
template <class Body>
double per_iteration(long iterations, Body body) {
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i) body(i);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / static_cast<double>(iterations);
}

// Mean seconds of one broadcast over `calls`, the slowest rank's.
double bcast_seconds(std::vector<std::byte>& buffer, int calls, const herald::Options& options) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < calls; ++i) herald::bcast(buffer, 0, MPI_COMM_WORLD, options);
  double mine = (MPI_Wtime() - start) / calls, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"herald-trace-bench: what recording a trace costs, per event and per broadcast"};
  std::string sizes = "1,1K,64K", algorithm = "binomial";
  std::string directory = (std::filesystem::temp_directory_path() / "herald-trace-bench").string();
  int calls = 2000, repetitions = 7;
  app.add_option("--sizes", sizes, "broadcast sizes, comma-separated (4096, 64K, 1M)")->capture_default_str();
  app.add_option("--calls", calls, "broadcasts per repetition")
      ->check(herald::cli::positive)
      ->capture_default_str();
  app.add_option("--repetitions", repetitions, "repetitions of each measurement")
      ->check(herald::cli::positive)
      ->capture_default_str();
  app.add_option("--algorithm", algorithm, "the broadcasts' algorithm")->capture_default_str();
  app.add_option("--trace-dir", directory, "where the traces go (overwritten)");
  if (const auto status = herald::cli::parse(app, argc, argv, rank == 0)) {
    MPI_Finalize();
    return *status;
  }
  std::vector<std::size_t> bytes;
  try {
    for (std::size_t start = 0; start <= sizes.size();) {
      const std::size_t comma = std::min(sizes.find(',', start), sizes.size());
      bytes.push_back(herald::parse_bytes(sizes.substr(start, comma - start), "--sizes"));
      start = comma + 1;
    }
    // An unknown name is refused before any broadcast, as a bad size is.
    herald::check_algorithm_choice(algorithm, "--algorithm");
  } catch (const herald::Error& e) {
    if (rank == 0) std::fprintf(stderr, "herald-trace-bench: %s\n", e.what());
    MPI_Finalize();
    return herald::cli::usage_status;
  }

  // Per event, rank 0 alone.
  std::vector<double> off_check, on_span;
  if (rank == 0) std::printf("# herald-trace-bench: %d ranks, %d repetitions\n", size, repetitions);
  for (int r = 0; r < repetitions; ++r) {
    long hits = 0;
    off_check.push_back(per_iteration(10'000'000, [&](long) {
      if (herald::trace::Recorder* recorder = herald::trace::recorder()) hits += recorder->rank();
    }));
    if (hits != 0) std::printf("a trace was open\n");
  }
  {
    // A recorder as an open trace has (MPI_Wtime's clock, a buffer spilled to a file when full), without
    // writing a million events into a trace at the end.
    std::filesystem::create_directories(directory);
    herald::trace::Recorder recorder([] { return MPI_Wtime(); },
                                     std::filesystem::path(directory) / ("spill-" + std::to_string(rank)), rank);
    for (int r = 0; r < repetitions; ++r)
      on_span.push_back(per_iteration(1'000'000, [&](long i) { recorder.span(herald::trace::Kind::submit, 0, i); }));
  }
  if (rank == 0) {
    std::printf("per event (rank 0): no trace open %.2f ns (the test at each recording site); one span recorded %.1f ns\n",
                median(off_check) * 1e9, median(on_span) * 1e9);
  }

  // Per broadcast.
  const herald::Options options{.algorithm = algorithm};
  if (rank == 0) std::printf("\n%10s %14s %14s %8s %14s\n", "bytes", "untraced_us", "traced_us", "ratio", "overhead_us");
  for (std::size_t b : bytes) {
    std::vector<std::byte> buffer(b);
    bcast_seconds(buffer, std::max(1, calls / 10), options);  // warm-up: the plan and the duplicate
    std::vector<double> off, on;
    for (int r = 0; r < repetitions; ++r) {
      for (int k = 0; k < 2; ++k) {
        const bool traced = (k == 0) == (r % 2 == 1);
        if (traced) herald::trace::start(MPI_COMM_WORLD, directory);
        (traced ? on : off).push_back(bcast_seconds(buffer, calls, options));
        if (traced) herald::trace::finish();
      }
    }
    if (rank == 0)
      std::printf("%10zu %14.3f %14.3f %8.3f %14.3f\n", b, median(off) * 1e6, median(on) * 1e6, median(on) / median(off),
                  (median(on) - median(off)) * 1e6);
  }
  if (rank == 0) std::filesystem::remove_all(directory);
  MPI_Finalize();
  return 0;
}
