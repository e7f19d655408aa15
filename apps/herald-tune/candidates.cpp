#include "candidates.hpp"

#include "statistics.hpp"

#include <herald/algorithms.hpp>

namespace herald::tune {

std::vector<Candidate> candidates(std::size_t bytes, bool spans_nodes) {
  std::vector<Candidate> list{{"native"}};
  for (const AlgorithmInfo& a : algorithms()) {
    const Parameters base{};
    list.push_back({std::string(a.name), base});
    if (!a.reads_segment || (a.reads_node_size && !spans_nodes)) continue;
    // A pipeline whose best segment the model places below 16 KiB (circulant's, between the sizes) starts
    // lower.
    const std::size_t smallest = a.best_segment != nullptr ? 1024 : 16 * 1024;
    for (std::size_t segment = smallest; segment < bytes && segment <= (std::size_t{4} << 20); segment *= 4) {
      if (segment == a.defaults.segment) continue;
      Parameters p = base;
      p.segment = segment;
      list.push_back({std::string(a.name), p});
    }
  }
  return list;
}

bool clearly_faster(std::span<const double> pick, std::span<const double> native) {
  if (pick.empty() || native.empty()) return false;
  const bench::Spread p = bench::spread_of(pick), n = bench::spread_of(native);
  return p.median < n.min && p.median <= clear_margin * n.median;
}

bool pick_holds(std::span<const double> pick, std::span<const double> native, bool oversubscribed) {
  if (!clearly_faster(pick, native)) return false;
  return !oversubscribed || bench::spread_of(pick).median <= oversubscribed_margin * bench::spread_of(native).median;
}

}  // namespace herald::tune
