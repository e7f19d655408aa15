// The benchmark's command line: what to measure, how often, and where to write it.
#pragma once

#include <herald/schedule.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace herald::bench {

// How a sample is timed (see clock.hpp): osu, each rank from its own exit of a barrier; sync, every
// broadcast from one instant shared by all ranks, which needs a global clock.
enum class Clock { osu, sync };

struct Settings {
  // Canonical names in run order: "native" (the installed MPI_Bcast, the peer) always first, then herald's
  // algorithms and "auto".
  std::vector<std::string> algorithms;
  std::vector<std::size_t> sizes;  // ascending, no duplicates
  int iterations = 1000;           // per repetition, upper bound (see `time_budget`)
  int min_iterations = 5;          // lower bound when the time budget scales iterations down
  double time_budget = 0.02;       // seconds one algorithm may take per repetition; 0 keeps `iterations`
  int repetitions = 5;
  int warmup = 20;                 // untimed iterations per algorithm and size (at most `iterations`)
  int root = 0;                    // a rank of the group (-1 on the command line means the last rank)
  Parameters parameters{};         // passed to every herald algorithm; zero means its default
  bool nonblocking = false;        // ibcast + wait instead of bcast (MPI_Ibcast + MPI_Wait for native)
  Clock clock = Clock::osu;
  bool shared_buffer = false;      // one SMPI_SHARED_MALLOC block for every rank, no validation (SMPI only)
  std::optional<double> alpha;     // seconds per message; measured when not given
  std::optional<double> beta;      // seconds per byte; measured when not given
  std::optional<std::string> csv;   // write the results as CSV here
  std::optional<std::string> json;  // and as JSON here
  std::vector<std::string> command_line;
};

// Either settings to run with, or the exit code to leave with (0 after --help, 2 on a bad option) and the
// text to print. Every rank parses the same arguments and reaches the same outcome without communicating.
struct Parsed {
  std::optional<Settings> settings;
  int exit_code = 0;
  std::string message;
};

Parsed parse_command_line(int argc, char** argv, int ranks);

// The default sweep: powers of two from 1 B to 16 MiB, the off-by-one sizes around the MPI libraries'
// switch points (12288 and 524288 bytes) and a prime size, which no rank count above 1 divides.
std::vector<std::size_t> default_sizes();

// "1,4K,16M" or power-of-two ranges "1..16M" (1, 2, 4, ... 16M), mixed freely; sorted, duplicates removed.
// Throws herald::Error naming the bad entry.
std::vector<std::size_t> parse_size_list(const std::string& text);

// "all" expands to every herald algorithm, "auto" and "native"; "native" is added when missing because
// every figure is a ratio to it. Throws herald::Error(unknown_algorithm) naming the bad entry.
std::vector<std::string> parse_algorithm_list(const std::string& text);

}  // namespace herald::bench
