#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/selector.hpp>

#include <string>

namespace herald {

const AlgorithmInfo& select_algorithm(const Problem& problem, const CostModel& model) {
  validate(problem);
  const AlgorithmInfo* best = nullptr;
  double best_time = 0;
  for (const AlgorithmInfo& a : algorithms()) {
    const Simulation sim = simulate(make_schedule(a, problem), model);
    if (!sim.delivered) continue;  // never the case for a table entry; the tests make sure
    if (best == nullptr || sim.predicted_seconds < best_time) {
      best = &a;
      best_time = sim.predicted_seconds;
    }
  }
  return best ? *best : algorithms().front();
}

CostModel cost_model_from_environment() {
  CostModel model{.alpha = 1.0e-6, .beta = 1.0e-10};
  auto seconds = [](const std::string& text, const char* name) {
    std::size_t used = 0;
    double value = -1;
    try {
      value = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || !(value >= 0))
      throw Error(Errc::invalid_argument, std::string(name) + " '" + text + "' is not a non-negative number");
    return value;
  };
  if (auto v = environment("HERALD_ALPHA")) model.alpha = seconds(*v, "HERALD_ALPHA");
  if (auto v = environment("HERALD_BETA")) model.beta = seconds(*v, "HERALD_BETA");
  if (auto v = environment("HERALD_GAP")) model.gap = seconds(*v, "HERALD_GAP");
  return model;
}

}  // namespace herald
