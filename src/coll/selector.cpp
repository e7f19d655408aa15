#include <herald/algorithms.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/selector.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace herald {

namespace {

constexpr std::size_t smallest_candidate = 16 * 1024;
constexpr std::size_t largest_candidate = 16 * 1024 * 1024;

}  // namespace

std::vector<Choice> rank_algorithms(const Problem& problem, const CostModel& model) {
  validate(problem);
  std::vector<Choice> ranked;
  for (const AlgorithmInfo& a : algorithms()) {
    const Problem given = with_defaults(a, problem);
    // Nothing moves: every algorithm is free.
    if (problem.ranks < 2 || problem.bytes == 0) {
      ranked.push_back({&a, given.parameters, 0.0});
      continue;
    }
    Choice best{&a, given.parameters, a.cost(given, model)};
    if (a.reads_segment && problem.parameters.segment == 0 && a.defaults.segment != 0) {
      for (std::size_t segment = smallest_candidate; segment <= largest_candidate && segment < problem.bytes;
           segment *= 2) {
        Problem candidate = given;
        candidate.parameters.segment = segment;
        const double seconds = a.cost(candidate, model);
        if (seconds < best.seconds) best = {&a, candidate.parameters, seconds};
      }
    }
    ranked.push_back(best);
  }
  // Ties keep the table's order.
  std::ranges::stable_sort(ranked, {}, &Choice::seconds);
  return ranked;
}

Choice choose_algorithm(const Problem& problem, const CostModel& model) {
  return rank_algorithms(problem, model).front();
}

const AlgorithmInfo& select_algorithm(const Problem& problem, const CostModel& model) {
  return *choose_algorithm(problem, model).algorithm;
}

CostModel cost_model_from_environment() { return cost_model_from_environment({.alpha = 1.0e-6, .beta = 1.0e-10}); }

CostModel cost_model_from_environment(const CostModel& base) {
  CostModel model = base;
  auto seconds = [](const std::string& text, const char* name) { return parse_seconds(text, name); };

  if (auto v = environment("HERALD_ALPHA")) model.alpha = seconds(*v, "HERALD_ALPHA");
  if (auto v = environment("HERALD_BETA")) model.beta = seconds(*v, "HERALD_BETA");
  if (auto v = environment("HERALD_GAP")) model.gap = seconds(*v, "HERALD_GAP");
  if (auto v = environment("HERALD_NODE_ALPHA")) model.node_alpha = seconds(*v, "HERALD_NODE_ALPHA");
  if (auto v = environment("HERALD_NODE_BETA")) model.node_beta = seconds(*v, "HERALD_NODE_BETA");
  if (auto v = environment("HERALD_NETWORK")) {
    if (*v == "fair") model.network = Network::fair_sharing;
    else if (*v != "ports")
      throw Error(Errc::invalid_argument, "HERALD_NETWORK '" + *v + "' is neither 'ports' nor 'fair'");
  }
  if (auto v = environment("HERALD_OVERHEAD")) model.overhead = seconds(*v, "HERALD_OVERHEAD");
  if (auto v = environment("HERALD_EAGER_BYTES")) model.eager_bytes = parse_bytes(*v, "HERALD_EAGER_BYTES");
  return model;
}

}  // namespace herald
