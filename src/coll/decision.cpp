#include <herald/coll_settings.hpp>
#include <herald/decision.hpp>

#include <algorithm>
#include <cstdio>
#include <string>

namespace herald {

const char* because_text(Because because) noexcept {
  switch (because) {
    case Because::nothing_moves: return "auto: nothing moves";
    case Because::tuning_file: return "auto: tuning file";
    case Because::one_node_short: return "auto: one node, short";
    case Because::one_message: return "auto: one node, one message";
    case Because::node_memory: return "auto: node memory";
    case Because::cost_model: return "auto: cost model";
  }
  return "auto";
}

namespace {

// The ranked table without the choice.
std::vector<Choice> others(std::vector<Choice> ranked, const AlgorithmInfo* chosen) {
  std::erase_if(ranked, [&](const Choice& c) { return c.algorithm == chosen; });
  return ranked;
}

}  // namespace

Decision decide(const AutoQuestion& q) {
  const Problem& problem = q.problem;
  validate(problem);
  Decision d;
  auto ranked = [&] { return rank_algorithms(problem, q.model, q.loads); };
  if (problem.ranks < 2 || problem.bytes == 0) {
    std::vector<Choice> all = ranked();
    d.choice = all.front();
    d.because = Because::nothing_moves;
    if (q.rank_alternatives) d.alternatives.assign(all.begin() + 1, all.end());
    return d;
  }
  if (q.cell) {
    // Every rank reads the same file, so every rank decides alike. The caller's parameters win over the
    // cell's.
    d.because = Because::tuning_file;
    d.choice.seconds = q.cell->seconds;
    if (q.cell->algorithm == "native") {
      d.native = true;
    } else {
      const AlgorithmInfo& a = find_algorithm(q.cell->algorithm);
      Problem measured = problem;
      measured.parameters = merge(problem.parameters, q.cell->parameters);
      d.choice.algorithm = &a;
      d.choice.parameters = with_defaults(a, measured).parameters;
    }
    if (q.rank_alternatives) d.alternatives = others(ranked(), d.choice.algorithm);
    return d;
  }
  if (keeps_native(problem, q.native_below)) {
    d.native = true;
    d.because = keeps_native_one_message(problem) ? Because::one_message : Because::one_node_short;
    if (q.rank_alternatives) {
      // Node memory is what MPI_Bcast is kept against here: the first runner-up (what a trial measures).
      d.alternatives = ranked();
      if (const std::optional<Choice> shared = cheapest_node_memory(problem, q.model)) {
        d.alternatives = others(std::move(d.alternatives), shared->algorithm);
        d.alternatives.insert(d.alternatives.begin(), *shared);
      }
    }
    return d;
  }
  if (!problem.node_memory || node_counts(problem).nodes > 1) {
    // The model's cheapest, and the rest as it ranked them: one pricing of the table.
    std::vector<Choice> all = ranked();
    d.choice = all.front();
    d.because = Because::cost_model;
    d.alternatives.assign(all.begin() + 1, all.end());
    return d;
  }
  d.choice = *choose_unmeasured(problem, q.model, q.native_below, q.loads);  // keeps_native() was false
  d.because = d.choice.algorithm->node_memory ? Because::node_memory : Because::cost_model;
  if (q.rank_alternatives) d.alternatives = others(ranked(), d.choice.algorithm);
  return d;
}

namespace {

std::string parameter_text(const Parameters& p) {
  std::string text;
  if (p.segment) text += " segment " + std::to_string(*p.segment);
  if (p.fanout) text += " fanout " + std::to_string(*p.fanout);
  if (p.radix) text += " radix " + std::to_string(*p.radix);
  if (p.node_size) text += " node_size " + std::to_string(*p.node_size);
  if (p.leaders) text += " leaders " + std::string(leader_stage_name(*p.leaders));
  return text;
}

}  // namespace

std::string describe(const AutoQuestion& q, const Decision& d, bool from_file) {
  const Problem& problem = q.problem;
  std::string text = "herald auto: " + std::to_string(problem.ranks) + " ranks, " + std::to_string(problem.bytes) +
                     " bytes" + (problem.root != 0 ? ", root " + std::to_string(problem.root) : "") + ": ";
  char figures[240];
  switch (d.because) {
    case Because::nothing_moves:
      return text + "nothing moves";
    case Because::tuning_file:
      std::snprintf(figures, sizeof figures,
                    "%s%s, measured %.2f us (native %.2f us) for %d ranks and %zu bytes in the tuning file",
                    q.cell->algorithm.c_str(), d.native ? "" : parameter_text(d.choice.parameters).c_str(),
                    q.cell->seconds * 1e6, q.cell->native_seconds * 1e6, q.cell->ranks, q.cell->bytes);
      return text + figures;
    case Because::one_node_short:
      std::snprintf(figures, sizeof figures,
                    "native: one node whose ranks share memory, no tuning-file cell, below %zu bytes (%s)",
                    q.native_below.value_or(default_native_below(problem.ranks)),
                    q.native_below ? "HERALD_AUTO_NATIVE_BELOW" : "herald's default for this many ranks on a node");
      return text + figures;
    case Because::one_message:
      std::snprintf(figures, sizeof figures,
                    "native: one node of two ranks, no tuning-file cell, from %zu bytes (one message: the MPI's "
                    "own path copies it once, node memory twice)",
                    two_ranks_native_from);
      return text + figures;
    case Because::node_memory:
    case Because::cost_model:
      break;
  }
  text += std::string(d.choice.algorithm->name) + parameter_text(d.choice.parameters);
  std::snprintf(figures, sizeof figures, ", predicted %.2f us (alpha %.3g s, beta %.3g s/byte, gap %.3g s%s%s%s)",
                d.choice.seconds * 1e6, q.model.alpha, q.model.beta, q.model.port_seconds(),
                from_file ? ", from the tuning file" : "", problem.node_memory ? ", node memory" : "",
                d.because == Because::node_memory ? ", one node: node memory only" : "");
  text += figures;
  // The runners-up, as the model priced them for this call.
  const std::size_t shown = std::min<std::size_t>(3, d.alternatives.size());
  for (std::size_t i = 0; i < shown; ++i) {
    std::snprintf(figures, sizeof figures, "%s %s %.2f us", i == 0 ? "; then" : ",",
                  std::string(d.alternatives[i].algorithm->name).c_str(), d.alternatives[i].seconds * 1e6);
    text += figures;
  }
  return text;
}

}  // namespace herald
