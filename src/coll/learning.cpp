#include "learning.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

namespace herald {

int size_class(std::size_t bytes) noexcept { return static_cast<int>(std::bit_width(bytes)); }

Learner::Learner(int candidates, int rounds, int lag)
    : candidates_(candidates), rounds_(rounds), lag_(lag), times_(static_cast<std::size_t>(std::max(candidates, 0))) {
  if (candidates < 1 || rounds < 1 || lag < 1)
    throw Error(Errc::invalid_argument, "a trial needs a candidate and a round: " + std::to_string(candidates) +
                                            " candidates, " + std::to_string(rounds) + " rounds");
  if (candidates == 1) phase_ = Phase::learned;  // nothing to choose
}

int Learner::next() noexcept {
  switch (phase_) {
    case Phase::trial:
      if (calls_ == candidates_ * rounds_) return 0;  // figures() is due first
      last_ = calls_++ % candidates_;
      return last_;
    case Phase::agreeing:
      ++since_;
      return 0;
    case Phase::learned:
      return winner_;
  }
  return 0;
}

void Learner::record(double seconds) {
  if (phase_ == Phase::trial) times_[static_cast<std::size_t>(last_)].push_back(seconds);
}

std::vector<double> Learner::figures() {
  std::vector<double> medians;
  for (std::vector<double>& t : times_) {
    std::ranges::sort(t);
    // No sample (every call of it failed here): never the fastest.
    medians.push_back(t.empty() ? std::numeric_limits<double>::infinity() : t[t.size() / 2]);
  }
  phase_ = Phase::agreeing;
  since_ = 0;
  return medians;
}

int Learner::agreed(std::span<const double> slowest) {
  winner_ = 0;
  for (int c = 1; c < static_cast<int>(slowest.size()) && c < candidates_; ++c)
    if (slowest[static_cast<std::size_t>(c)] < slowest[static_cast<std::size_t>(winner_)]) winner_ = c;
  phase_ = Phase::learned;
  return winner_;
}

}  // namespace herald
