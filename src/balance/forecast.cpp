#include <herald/balance/forecast.hpp>
#include <herald/error.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace herald::balance {

Forecast forecast(std::span<const double> times, std::span<const int> old_threads,
                  std::span<const int> new_threads) {
  if (times.size() != old_threads.size() || times.size() != new_threads.size())
    throw Error(Errc::invalid_argument, "forecast needs one time, old and new thread count per process");
  Forecast f;
  f.predicted.resize(times.size());
  for (std::size_t p = 0; p < times.size(); ++p) {
    if (!std::isfinite(times[p]) || times[p] < 0)
      throw Error(Errc::invalid_argument, "time " + std::to_string(times[p]) + " is not a non-negative number");
    if (old_threads[p] < 1 || new_threads[p] < 1)
      throw Error(Errc::invalid_argument, "process " + std::to_string(p) + " would run below one thread");
    f.slowest = std::max(f.slowest, times[p]);
    f.predicted[p] = times[p] * old_threads[p] / new_threads[p];
    if (f.worst < 0 || f.predicted[p] > f.predicted[f.worst]) f.worst = static_cast<int>(p);
  }
  // A change is worth it only if no process is predicted to be as slow as the slowest was.
  f.gains = !times.empty() &&
            std::all_of(f.predicted.begin(), f.predicted.end(), [&](double t) { return t < f.slowest; });
  return f;
}

}  // namespace herald::balance
