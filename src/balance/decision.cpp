#include <herald/balance/decision.hpp>
#include <herald/balance/split.hpp>
#include <herald/error.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>

namespace herald::balance {
namespace {

template <class T>
std::string list(const std::vector<T>& values) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out << ',';
    if constexpr (std::is_floating_point_v<T>) {
      char text[32];
      std::snprintf(text, sizeof text, "%.4g", values[i]);
      out << text;
    } else {
      out << values[i];
    }
  }
  out << ']';
  return out.str();
}

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4gs", s);
  return text;
}

}  // namespace

Decision decide(std::span<const double> loads, std::span<const int> threads, std::span<const int> socket_cores) {
  if (loads.size() != threads.size())
    throw Error(Errc::invalid_argument, "a decision needs one load and one thread count per process");
  for (int t : threads)
    if (t < 1) throw Error(Errc::invalid_argument, "a process runs " + std::to_string(t) + " threads");
  Decision d;
  d.loads.assign(loads.begin(), loads.end());
  d.threads.assign(threads.begin(), threads.end());
  const int cores = std::accumulate(socket_cores.begin(), socket_cores.end(), 0);
  d.requests = proportional_split(loads, cores);
  d.placement = place(d.requests, socket_cores);
  d.times.resize(loads.size());
  for (std::size_t p = 0; p < loads.size(); ++p) d.times[p] = loads[p] / threads[p];

  if (d.placement.threads == d.threads) {
    d.reason = "counts unchanged";
    return d;
  }
  d.forecast = forecast(d.times, d.threads, d.placement.threads);
  if (!d.forecast.gains) {
    const int w = d.forecast.worst;
    d.reason = "forecast: process " + std::to_string(w) + " would take " + seconds(d.forecast.predicted[w]) +
               " >= slowest " + seconds(d.forecast.slowest);
    return d;
  }
  d.act = true;
  char gain[32];
  std::snprintf(gain, sizeof gain, "%.1f%%", 100 * predicted_gain(d));
  d.reason = std::string("predicted gain ") + gain;
  return d;
}

double predicted_gain(const Decision& d) {
  if (d.forecast.predicted.empty() || d.forecast.slowest <= 0) return 0;
  const double next = *std::max_element(d.forecast.predicted.begin(), d.forecast.predicted.end());
  return 1 - next / d.forecast.slowest;
}

std::string describe(const Decision& d) {
  std::ostringstream out;
  out << "loads=" << list(d.loads) << " threads=" << list(d.threads) << " requests=" << list(d.requests)
      << " counts=" << list(d.placement.threads) << " sockets=" << list(d.placement.socket)
      << " missing=" << d.placement.missing;
  if (!d.forecast.predicted.empty())
    out << " slowest=" << seconds(d.forecast.slowest) << " predicted=" << list(d.forecast.predicted);
  out << " -> " << (d.act ? "acted" : "kept") << " (" << d.reason << ")";
  return out.str();
}

}  // namespace herald::balance
