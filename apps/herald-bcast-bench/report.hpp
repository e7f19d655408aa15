// What the benchmark prints and writes: the table on stdout, CSV and JSON files.
//
// CSV columns (one row per size and algorithm; the order and names are stable):
//   ranks, root, mode (blocking|nonblocking), bytes, algorithm, resolved (auto's choice, else the name),
//   segment, fanout, radix (the parameters the algorithm ran with, defaults applied; 0 where unused),
//   iterations (per repetition), repetitions, median_us, min_us, max_us (over repetitions of the maximum over
//   ranks of the per-iteration average), ratio_to_native (median / native's median at that size),
//   verdict (peer|faster|slower|not_distinguishable), predicted_us (simulator, alpha-beta; empty for native),
//   alpha_s, beta_s_per_byte (the model behind predicted_us), leaders (the stage among node leaders of a
//   node-aware algorithm; empty for the others).
#pragma once

#include "calibration.hpp"
#include "options.hpp"
#include "statistics.hpp"

#include <herald/schedule.hpp>

#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace herald::bench {

struct Measurement {
  std::size_t bytes = 0;
  std::string algorithm;
  std::string resolved;
  Parameters parameters{};
  int iterations = 0;
  std::vector<double> samples;  // seconds, one per repetition
  Spread spread{};
  double ratio = 0;
  Verdict verdict = Verdict::peer;
  std::optional<double> predicted_seconds;
  std::optional<double> lower_bound_seconds;
};

struct Machine {
  std::string hostname;
  unsigned cores = 0;
  std::string mpi_library;  // first line of MPI_Get_library_version
  std::string date;         // UTC, ISO 8601
  std::string load;         // 1, 5 and 15 minute load averages at start (Linux), since the machine is shared
  int ranks = 1;
};

struct Run {
  Machine machine;
  Settings settings;
  Calibration calibration;
  std::vector<Measurement> measurements;
};

Machine describe_machine(int ranks);

// Sets ratio and verdict of every measurement of one size against its "native" entry.
void compare_to_native(std::span<Measurement> one_size);

void print_header(std::ostream& out, const Run& run);
// The rows of one size and its summary line: the best herald algorithm and its ratio.
void print_size(std::ostream& out, std::span<const Measurement> one_size);
// Per size: native's median and the best herald algorithm with its ratio.
void print_summary(std::ostream& out, const Run& run);

void write_csv(const std::string& path, const Run& run);
void write_json(const std::string& path, const Run& run);

}  // namespace herald::bench
