// Task Bench's minimum effective task granularity (METG), computed as its own analysis scripts compute it,
// from a sweep of one graph over kernel sizes (-iter):
//   granularity = elapsed seconds x cores / tasks
//   efficiency  = work per second / the peak, where work is the graph's FLOPs (its bytes for memory
//                 kernels, its kernel iterations for kernels that count neither) and the peak is the
//                 rate of the largest tasks of the same sweep: each system against its own peak
//   METG(t)     = of the points at or above efficiency t, the one of smallest granularity; where the next
//                 smaller size falls below t with a smaller granularity, the linear interpolation at t
//                 between the two.
// Elapsed is the median of a point's repetitions (Task Bench takes the mean; a median ignores one
// disturbed run). Pure logic, no MPI.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace herald::taskbench {

struct SweepPoint {
  long iterations = 0;           // per task
  double work = 0;               // of the whole graph, in the sweep's unit (FLOPs, bytes or iterations)
  std::vector<double> seconds;   // elapsed, one per repetition
};

struct RatedPoint {
  long iterations = 0;
  double elapsed = 0;      // median of the repetitions
  double spread = 0;       // (max - min) / median of the repetitions
  double granularity = 0;  // seconds
  double efficiency = 0;   // against the peak of the sweep
};

struct MetgResult {
  std::vector<RatedPoint> points;  // by iterations, largest first
  double peak = 0;                 // work per second of the largest tasks
  std::optional<double> metg;      // seconds; none when no point reaches the threshold, or none is below it
  bool bound = false;              // every point is above the threshold: METG is at most `metg`
  // What makes the figure doubtful, one sentence each: points whose efficiency exceeds 1 by more than
  // their own spread (the peak was not the largest tasks' rate), no point below the threshold.
  std::vector<std::string> warnings;
};

// Throws std::invalid_argument for an empty sweep, a point without repetitions, or cores or tasks < 1.
MetgResult compute_metg(std::vector<SweepPoint> sweep, int cores, double tasks, double threshold = 0.5);

// (max - min) / median of `seconds`; 0 for fewer than two.
double relative_spread(const std::vector<double>& seconds);

}  // namespace herald::taskbench
