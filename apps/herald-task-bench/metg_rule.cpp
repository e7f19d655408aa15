#include "metg_rule.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace herald::taskbench {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

double relative_spread(const std::vector<double>& seconds) {
  if (seconds.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(seconds.begin(), seconds.end());
  const double m = median(seconds);
  return m > 0 ? (*hi - *lo) / m : 0;
}

MetgResult compute_metg(std::vector<SweepPoint> sweep, int cores, double tasks, double threshold) {
  if (sweep.empty()) throw std::invalid_argument("METG: no point in the sweep");
  if (cores < 1 || tasks < 1) throw std::invalid_argument("METG: cores and tasks must be at least 1");
  std::sort(sweep.begin(), sweep.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.iterations > b.iterations; });
  MetgResult r;
  for (const SweepPoint& p : sweep) {
    if (p.seconds.empty()) throw std::invalid_argument("METG: a point without repetitions");
    const double elapsed = median(p.seconds);
    if (!(elapsed > 0)) throw std::invalid_argument("METG: a point that took no time");
    r.points.push_back({p.iterations, elapsed, relative_spread(p.seconds), elapsed * cores / tasks, 0});
  }
  r.peak = sweep.front().work / r.points.front().elapsed;
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    RatedPoint& p = r.points[i];
    p.efficiency = r.peak > 0 ? sweep[i].work / p.elapsed / r.peak : 0;
    if (p.efficiency > 1 + std::max(p.spread, r.points.front().spread)) {
      char text[160];
      std::snprintf(text, sizeof text, "-iter %ld runs at %.2f of the largest tasks' rate, more than the runs' spread",
                    p.iterations, p.efficiency);
      r.warnings.emplace_back(text);
    }
  }
  // Task Bench's rule: the smallest granularity still at or above the threshold...
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < r.points.size(); ++i)
    if (r.points[i].efficiency >= threshold && (!best || r.points[i].granularity < r.points[*best].granularity)) best = i;
  if (!best) return r;
  const RatedPoint& at = r.points[*best];
  r.metg = at.granularity;
  const bool any_below = std::any_of(r.points.begin(), r.points.end(), [&](const RatedPoint& p) { return p.efficiency < threshold; });
  if (!any_below) {
    r.bound = true;
    r.warnings.emplace_back("no size fell below the threshold: the METG is at most the smallest granularity measured");
    return r;
  }
  // ... interpolated toward the next smaller size when that one is finer and below the threshold.
  if (*best + 1 < r.points.size()) {
    const RatedPoint& next = r.points[*best + 1];
    if (next.granularity < at.granularity && next.efficiency < threshold)
      r.metg = next.granularity + (threshold - next.efficiency) / (at.efficiency - next.efficiency) *
                                      (at.granularity - next.granularity);
  }
  return r;
}

}  // namespace herald::taskbench
