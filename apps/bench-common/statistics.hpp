// Medians and spreads of the repetitions, and the verdict: a difference counts only when the two min-max
// ranges do not overlap (a spread larger than the effect is no win).
#pragma once

#include <span>
#include <string_view>

namespace herald::bench {

struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
};

// Median (mean of the middle two for an even count), min and max; all zero for no samples.
Spread spread_of(std::span<const double> samples);

enum class Verdict {
  peer,                 // the reference itself
  faster,               // every repetition beat every repetition of the peer
  slower,               // every repetition lost to every repetition of the peer
  not_distinguishable,  // the ranges overlap: the spread is larger than the effect
};

Verdict compare(const Spread& candidate, const Spread& peer) noexcept;

// "peer", "faster", "slower", "not distinguishable" (with `for_csv`: "not_distinguishable").
std::string_view to_string(Verdict verdict, bool for_csv = false) noexcept;

}  // namespace herald::bench
