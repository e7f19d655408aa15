#include "statistics.hpp"

#include <algorithm>
#include <vector>

namespace herald::bench {

Spread spread_of(std::span<const double> samples) {
  if (samples.empty()) return {};
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return {median, sorted.front(), sorted.back()};
}

Verdict compare(const Spread& candidate, const Spread& peer) noexcept {
  if (candidate.max < peer.min) return Verdict::faster;
  if (candidate.min > peer.max) return Verdict::slower;
  return Verdict::not_distinguishable;
}

std::string_view to_string(Verdict verdict, bool for_csv) noexcept {
  switch (verdict) {
    case Verdict::peer: return "peer";
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::not_distinguishable: return for_csv ? "not_distinguishable" : "not distinguishable";
  }
  return "?";
}

}  // namespace herald::bench
