// Picks the tree and segment size of a dynamic broadcast by pricing the candidates with the simulator.
#include <herald/algorithms.hpp>
#include <herald/dyn/route.hpp>
#include <herald/error.hpp>

#include <array>
#include <limits>

namespace herald::dyn {
namespace {

// Segment sizes tried for pipelined shapes. Below 64 KiB a segment costs two messages (header and
// payload) for little data; more than 128 segments make the pricing itself slow for large groups.
constexpr std::array<std::size_t, 4> segment_candidates{64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024};
constexpr std::size_t max_segments = 128;

bool is_tree(const AlgorithmInfo& algorithm, int group) {
  try {
    tree_of_algorithm(algorithm, group);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

Shape choose_shape(int group, std::size_t bytes, const CostModel& model) {
  if (group < 1) throw Error(Errc::invalid_argument, "a broadcast group of " + std::to_string(group) + " ranks");
  // Binomial first, so it wins ties (for instance every shape is one message when group == 2).
  std::vector<const AlgorithmInfo*> candidates{&find_algorithm("binomial")};
  for (const AlgorithmInfo& a : algorithms())
    if (a.name != "binomial") candidates.push_back(&a);

  Shape best{"binomial", 0, std::numeric_limits<double>::infinity()};
  for (const AlgorithmInfo* a : candidates) {
    if (!is_tree(*a, group)) continue;
    std::vector<std::size_t> segments{0};
    if (a->reads_segment)
      for (std::size_t s : segment_candidates)
        if (s < bytes && bytes / s <= max_segments) segments.push_back(s);
    for (std::size_t s : segments) {
      Problem p{.ranks = group, .root = 0, .bytes = bytes, .parameters = {.segment = s}};
      // A segmented algorithm given segment 0 falls back to its own default; ask for "whole" explicitly.
      if (a->reads_segment && s == 0) p.parameters.segment = bytes ? bytes : 1;
      const Simulation sim = simulate(make_schedule(*a, p), model);
      if (!sim.delivered) continue;
      if (sim.predicted_seconds < best.predicted_seconds) best = {std::string(a->name), s, sim.predicted_seconds};
    }
  }
  if (best.predicted_seconds == std::numeric_limits<double>::infinity()) best.predicted_seconds = 0;
  return best;
}

}  // namespace herald::dyn
