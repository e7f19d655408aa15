// Clocks of several processes put on one: offsets from ping-pongs, the one with the shortest round trip
// (the least time for the reply to be delayed), moving linearly between the two measurements.
#include <herald/trace.hpp>

#include <limits>

namespace herald::trace {

double ClockFit::to_reference(double local) const noexcept {
  if (!has_end || local_end <= local_start) return local - offset_start;
  const double f = (local - local_start) / (local_end - local_start);
  return local - (offset_start + f * (offset_end - offset_start));
}

double offset_from(std::span<const Probe> probes) {
  double best_trip = std::numeric_limits<double>::infinity(), offset = 0;
  for (const Probe& p : probes) {
    const double trip = p.received - p.sent;
    if (trip < best_trip) {
      best_trip = trip;
      offset = p.remote - (p.sent + p.received) / 2;
    }
  }
  return offset;
}

}  // namespace herald::trace
