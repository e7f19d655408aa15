// Picks the tree and segment size of a dynamic broadcast by pricing the candidates.
//
// The simulator's single-port model lets a forwarder receive segment k+1 while it sends segment k at full
// speed, which holds where a network card moves the bytes (Forwarding::overlapped). Where a core moves
// them (shared memory) or several ranks share a core, a rank's receives and sends take turns
// (Forwarding::serial), so a shape is also priced by its busiest rank's serial work; the price is the
// larger of the two. Binomial, the original dynamic broadcast's tree, is the first choice; another shape
// replaces the choice so far when it is cheaper, and when it is deeper by a clear margin: the model leaves
// out the cost of polling and forwarding, which grows with the number of forwarders and hops, and the
// single-port network also leaves out that a rank's copies share its link. A model of a fair-sharing
// network is priced with the channel's send window, so its margin is small.
#include <herald/algorithms.hpp>
#include "route.hpp"
#include <herald/config.hpp>
#include <herald/error.hpp>

#include <herald/dyn/bulk.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

namespace herald::dyn {
namespace {

// Segment sizes tried for pipelined shapes. Below 64 KiB a segment costs two messages (header and
// payload) for little data; more than 128 segments make the pricing itself slow for large groups.
constexpr std::array<std::size_t, 4> segment_candidates{smallest_shape_segment, 256 * 1024, 1024 * 1024,
                                                         4 * 1024 * 1024};
static_assert(std::ranges::is_sorted(segment_candidates), "smallest_shape_segment must be the smallest candidate");
constexpr std::size_t max_segments = 128;

// A schedule's price (see shape_cost) and its single-port time, the pipelining part of it.
struct Price {
  double price = std::numeric_limits<double>::infinity();
  double pipelined = std::numeric_limits<double>::infinity();
};

// How the channel puts one broadcast's copies on the wire, for a network that shares links: pieces
// below bulk size all leave at once, bulk ones under the window of their destination, and all of them under
// the total window where there is one. (The single-port network ignores the window: a port carries one
// message at a time.)
SendWindow channel_window(const Schedule& schedule) {
  const Problem& p = schedule.problem;
  const std::size_t piece = std::min(p.parameters.segment.value_or(p.bytes), p.bytes);
  const int all = std::max(p.ranks, 1);
  if (piece < bulk_bytes) return {.per_rank = all, .per_peer = all};
  const auto fit = [piece](std::size_t window) {
    return static_cast<int>(std::clamp<std::size_t>(window / piece, 1, 1 << 20));
  };
  return {.per_rank = default_total_window == 0 ? all : fit(default_total_window), .per_peer = std::min(fit(default_bulk_window), default_window_pieces == 0 ? all : static_cast<int>(default_window_pieces))};
}

Price price_of(const Schedule& schedule, const CostModel& model, Forwarding forwarding) {
  const Simulation sim = simulate(schedule, model, channel_window(schedule));
  if (!sim.delivered) return {};
  const double serial = forwarding == Forwarding::serial ? serial_work(schedule, model) : 0.0;
  return {std::max(sim.predicted_seconds, serial), sim.predicted_seconds};
}

// The depth of the tree an algorithm builds over `group` ranks (the most hops from the root to a rank),
// or nothing if it builds no tree.
std::optional<int> depth_of(const AlgorithmInfo& algorithm, int group) {
  try {
    return tree_depth(tree_of_algorithm(algorithm, group));
  } catch (const Error&) {
    return std::nullopt;
  }
}

// The best segment size of one algorithm: the lowest shape_cost(), except that sizes priced within
// segment_tie of it count as equal and the one that pipelines best (lowest single-port time) wins among
// them. The serial bound barely depends on the segment size (it only counts one alpha more per segment),
// so it must not pick the size: that would cut a pipeline into few coarse segments. predicted_seconds is
// infinite when no candidate delivers.
Shape cheapest(const AlgorithmInfo& a, int group, std::size_t bytes, const CostModel& model,
               Forwarding forwarding) {
  std::vector<std::size_t> sizes{0};
  if (a.reads_segment)
    for (std::size_t s : segment_candidates)
      if (s < bytes && bytes / s <= max_segments) sizes.push_back(s);
  std::vector<Price> prices;
  double lowest = std::numeric_limits<double>::infinity();
  for (std::size_t s : sizes) {
    Problem p{.ranks = group, .root = 0, .bytes = bytes};
    // Size 0 is the whole message, asked for explicitly: left unset, a segmented algorithm takes its default.
    if (a.reads_segment) p.parameters.segment = s ? s : std::max<std::size_t>(bytes, 1);
    prices.push_back(price_of(make_schedule(a, p), model, forwarding));
    lowest = std::min(lowest, prices.back().price);
  }
  Shape best{std::string(a.name), 0, std::numeric_limits<double>::infinity()};
  double best_pipelined = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < sizes.size(); ++i)
    // Strictly better by more than rounding, so an unsegmented message is kept where cutting it gains nothing.
    if (prices[i].price <= lowest * (1 + segment_tie) && prices[i].pipelined < best_pipelined * (1 - 1e-9)) {
      best = {std::string(a.name), sizes[i], prices[i].price};
      best_pipelined = prices[i].pipelined;
    }
  return best;
}

}  // namespace

double serial_work(const Schedule& schedule, const CostModel& model) {
  // What a message costs its rank besides its bytes: on the fair-sharing network its overhead (alpha
  // there is latency, which overlaps), on single ports the time it holds the port.
  const double per_message = model.network == Network::fair_sharing ? model.overhead : model.port_seconds();
  double busiest = 0;
  for (const Program& program : schedule.programs) {
    double work = 0;
    for (const Step& step : program) work += per_message + model.beta * static_cast<double>(step.range.length);
    busiest = std::max(busiest, work);
  }
  return busiest;
}

std::optional<Forwarding> forwarding_from_environment() {
  const auto text = environment("HERALD_DYN_FORWARDING");
  if (!text) return std::nullopt;
  if (*text == "serial") return Forwarding::serial;
  if (*text == "overlapped") return Forwarding::overlapped;
  throw Error(Errc::invalid_argument, "HERALD_DYN_FORWARDING must be serial or overlapped, not '" + *text + "'");
}

double shape_cost(const Schedule& schedule, const CostModel& model, Forwarding forwarding) {
  return price_of(schedule, model, forwarding).price;
}

double shape_margin_for(const CostModel& model) {
  return model.network == Network::fair_sharing ? shared_link_shape_margin : shape_margin;
}

Shape choose_shape(int group, std::size_t bytes, const CostModel& model, Forwarding forwarding) {
  const double margin = shape_margin_for(model);
  if (group < 1) throw Error(Errc::invalid_argument, "a broadcast group of " + std::to_string(group) + " ranks");
  const AlgorithmInfo& binomial = find_algorithm("binomial");
  Shape best = cheapest(binomial, group, bytes, model, forwarding);
  int best_depth = depth_of(binomial, group).value_or(0);
  for (const AlgorithmInfo& a : algorithms()) {
    const std::optional<int> depth = depth_of(a, group);
    if (a.name == "binomial" || !depth) continue;
    // What the model leaves out grows with the hops, so of two trees the deeper must be cheaper by the
    // margin: a deeper one replaces the choice so far only then, a shallower one unless the choice beats
    // it so, and one as deep when cheaper (by more than rounding: between equal prices, as all trees over
    // two ranks are one edge, the earlier choice stays).
    Shape s = cheapest(a, group, bytes, model, forwarding);
    const bool better = *depth > best_depth   ? s.predicted_seconds <= best.predicted_seconds * margin
                        : *depth < best_depth ? best.predicted_seconds > s.predicted_seconds * margin
                                              : s.predicted_seconds < best.predicted_seconds * (1 - 1e-9);
    if (better) {
      best = std::move(s);
      best_depth = *depth;
    }
  }
  if (best.predicted_seconds == std::numeric_limits<double>::infinity()) best.predicted_seconds = 0;
  return best;
}

}  // namespace herald::dyn
