#include <herald/algorithms.hpp>
#include <herald/coll_settings.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>

#include <limits>
#include <string>

namespace herald {
namespace {

int small_count(const std::string& v, const char* name) {
  const long long n = parse_count(v, name);
  if (n > std::numeric_limits<int>::max())
    throw Error(Errc::invalid_argument, std::string(name) + " '" + v + "' is too large");
  return static_cast<int>(n);
}

}  // namespace

Parameters parameters_from_environment() {
  Parameters p;
  if (auto v = environment("HERALD_SEGMENT_SIZE")) p.segment = parse_bytes(*v, "HERALD_SEGMENT_SIZE");
  if (auto v = environment("HERALD_CHAIN_FANOUT")) p.fanout = small_count(*v, "HERALD_CHAIN_FANOUT");
  if (auto v = environment("HERALD_KNOMIAL_RADIX")) p.radix = small_count(*v, "HERALD_KNOMIAL_RADIX");
  if (auto v = environment("HERALD_LEADER_STAGE")) p.leaders = parse_leader_stage(*v, "HERALD_LEADER_STAGE");
  if (auto v = environment("HERALD_RANKS_PER_NODE")) {
    p.node_size = small_count(*v, "HERALD_RANKS_PER_NODE");
    if (*p.node_size < 1) throw Error(Errc::invalid_argument, "HERALD_RANKS_PER_NODE '" + *v + "' must be at least 1");
  }
  return p;
}

SendWindow send_window_from_environment() {
  SendWindow w;
  auto positive = [](const char* name, int fallback) {
    const auto v = environment(name);
    if (!v) return fallback;
    const int n = small_count(*v, name);
    if (n < 1) throw Error(Errc::invalid_argument, std::string(name) + " '" + *v + "' must be at least 1");
    return n;
  };
  w.per_rank = positive("HERALD_SENDS_IN_FLIGHT", w.per_rank);
  // One bound alone means both, unless the per-peer one is set too.
  w.per_peer = positive("HERALD_SENDS_PER_PEER", w.per_rank);
  return w;
}

Parameters merge(Parameters call, const Parameters& fallback) {
  if (!call.segment) call.segment = fallback.segment;
  if (!call.fanout) call.fanout = fallback.fanout;
  if (!call.radix) call.radix = fallback.radix;
  if (!call.node_size) call.node_size = fallback.node_size;
  if (!call.leaders) call.leaders = fallback.leaders;
  return call;
}

}  // namespace herald
