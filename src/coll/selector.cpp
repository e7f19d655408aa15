#include <herald/algorithms.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/selector.hpp>

#include <string>

namespace herald {

namespace {

constexpr std::size_t smallest_candidate = 16 * 1024;
constexpr std::size_t largest_candidate = 16 * 1024 * 1024;

}  // namespace

Choice choose_algorithm(const Problem& problem, const CostModel& model) {
  validate(problem);
  Choice best{&algorithms().front(), with_defaults(algorithms().front(), problem).parameters, 0.0};
  if (problem.ranks < 2 || problem.bytes == 0) return best;  // nothing moves: every algorithm is free
  bool first = true;
  auto consider = [&](const AlgorithmInfo& a, const Problem& p) {
    const double seconds = a.cost(p, model);
    if (first || seconds < best.seconds) best = {&a, p.parameters, seconds};
    first = false;
  };
  for (const AlgorithmInfo& a : algorithms()) {
    const Problem given = with_defaults(a, problem);
    consider(a, given);
    if (!a.reads_segment || problem.parameters.segment != 0 || a.defaults.segment == 0) continue;
    for (std::size_t segment = smallest_candidate; segment <= largest_candidate && segment < problem.bytes;
         segment *= 2) {
      Problem candidate = given;
      candidate.parameters.segment = segment;
      consider(a, candidate);
    }
  }
  return best;
}

const AlgorithmInfo& select_algorithm(const Problem& problem, const CostModel& model) {
  return *choose_algorithm(problem, model).algorithm;
}

CostModel cost_model_from_environment() {
  CostModel model{.alpha = 1.0e-6, .beta = 1.0e-10};
  auto seconds = [](const std::string& text, const char* name) { return parse_seconds(text, name); };

  if (auto v = environment("HERALD_ALPHA")) model.alpha = seconds(*v, "HERALD_ALPHA");
  if (auto v = environment("HERALD_BETA")) model.beta = seconds(*v, "HERALD_BETA");
  if (auto v = environment("HERALD_GAP")) model.gap = seconds(*v, "HERALD_GAP");
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
