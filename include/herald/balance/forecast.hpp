// The forecast check (SABO paper, section IV-C): act only if no process is predicted to become the slowest.
#pragma once

#include <herald/error.hpp>

#include <span>
#include <vector>

namespace herald::balance {

struct Forecast {
  std::vector<double> predicted;  // time * old threads / new threads, per process
  double slowest = 0;             // the highest last time
  int worst = -1;                 // the process with the highest prediction
  bool gains = false;             // every prediction below `slowest`
};

// Predicts each process's next time from its last time if its threads go from old to new, assuming its
// work scales perfectly with threads. Throws Error(invalid_argument) on mismatched sizes, a thread count
// below one, or a negative or non-finite time.
Forecast forecast(std::span<const double> times, std::span<const int> old_threads,
                  std::span<const int> new_threads);

}  // namespace herald::balance
