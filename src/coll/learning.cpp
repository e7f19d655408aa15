#include "learning.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

namespace herald {

int size_class(std::size_t bytes) noexcept { return static_cast<int>(std::bit_width(bytes)); }

Learner::Learner(int candidates, TrialShape shape)
    : candidates_(candidates), shape_(shape), times_(static_cast<std::size_t>(std::max(candidates, 0))) {
  if (candidates < 1 || shape.warmup < 0 || shape.rounds < 1 || shape.lag < 1 || shape.block < 1 ||
      shape.rounds % shape.block != 0)
    throw Error(Errc::invalid_argument, "a trial needs a candidate and whole blocks of calls: " +
                                            std::to_string(candidates) + " candidates, warm-up " +
                                            std::to_string(shape.warmup) + ", " + std::to_string(shape.rounds) +
                                            " rounds, blocks of " + std::to_string(shape.block) + ", lag " +
                                            std::to_string(shape.lag));
  if (candidates == 1) phase_ = Phase::learned;  // nothing to choose
}

int Learner::next() noexcept {
  switch (phase_) {
    case Phase::trial: {
      if (calls_ == calls_in_trial()) return 0;  // figures() is due first
      const int k = calls_++ - shape_.warmup;
      if (k < 0) {
        last_ = 0;
        timed_ = false;
        return 0;
      }
      last_ = (k / shape_.block) % candidates_;
      timed_ = shape_.block == 1 || k % shape_.block != 0;
      return last_;
    }
    case Phase::agreeing:
      ++since_;
      return 0;
    case Phase::learned:
      return winner_;
  }
  return 0;
}

void Learner::record(double seconds) {
  if (phase_ == Phase::trial && timed_) times_[static_cast<std::size_t>(last_)].push_back(seconds);
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
