// What auto's model needs of a network besides alpha and beta (docs/tuning.md): the per-message overhead
// (LogP's o), the eager limit (the largest send that completes before its receive is posted) and whether
// a rank's concurrent messages share its link (the fair-sharing network) or leave one at a time (ports).
// MPI-free: herald-tune measures them (network_probe.hpp), the unit tests check the decisions.
#pragma once

#include <herald/simulator.hpp>

#include <cstddef>

namespace herald::bench {

struct NetworkTraits {
  double overhead = 0;          // seconds of the sender's time per small send posted
  std::size_t eager_bytes = 0;  // largest send measured to complete unmatched (up to max_eager_probe)
  Network network = Network::ports;
  bool sharing_measured = false;  // false: fewer than three ranks, network left at ports
};

inline constexpr std::size_t max_eager_probe = std::size_t{4} << 20;

// Whether a small message sent right behind a large one to another rank arrived about as soon as alone
// (fair sharing) or only after the large one had left (ports), from three round trips timed by the sender:
// the small one alone, the small one behind the large one, the large one alone. On ports the small one
// waits about the large one's time; sharing the link, it is slowed by its own bytes' share at most. The
// line is drawn at half the large one's time.
constexpr Network network_from_delays(double small_alone, double small_behind_large, double large_alone) noexcept {
  const double delay = small_behind_large - small_alone;
  const double large_bytes_time = large_alone - small_alone;
  return delay < 0.5 * large_bytes_time ? Network::fair_sharing : Network::ports;
}

// Writes the traits into `model`, the network only where it was measured.
constexpr void apply(const NetworkTraits& traits, CostModel& model) noexcept {
  model.overhead = traits.overhead;
  model.eager_bytes = traits.eager_bytes;
  if (traits.sharing_measured) model.network = traits.network;
}

}  // namespace herald::bench
