#include "tuning_state.hpp"

#include "tuning_file.hpp"

#include <herald/algorithms.hpp>
#include <herald/selector.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace herald::mpi {

void TuningState::load() {
  if (auto job_tuning = tuning_from_environment()) {
    tuning_ = std::move(job_tuning->tuning);
    fit_ = std::move(job_tuning->fit);
  }
  // A job across nodes prices every flat algorithm with the network's model; the hierarchical ones price
  // their hops within a node apart. A file measured on one node has no network model: herald's defaults
  // (or a preset) stand in for it.
  // A measured file wins over a preset; without either, the defaults (cost_model_from_environment()).
  CostModel base = tuning_ ? tuning_->intra_node : cost_model_from_environment();
  if (tuning_ && fit_.spans_nodes) {
    base = tuning_->inter_node ? *tuning_->inter_node : cost_model_from_environment();
    base.node_alpha = tuning_->intra_node.alpha;
    base.node_beta = tuning_->intra_node.beta;
  }
  model_ = cost_model_from_environment(base);
}

const TuningCell* TuningState::measured(int ranks, std::size_t bytes) {
  if (!tuning_) return nullptr;
  // Ranks fit 24 bits and sizes 40 here; a larger shape is looked up each time.
  if (ranks >= (1 << 24) || bytes >= (std::uint64_t{1} << 40)) return find_cell(*tuning_, fit_, ranks, bytes);
  const std::uint64_t key = static_cast<std::uint64_t>(ranks) << 40 | bytes;
  if (key == last_measured_key_) return last_measured_;
  auto it = measured_.find(key);
  if (it == measured_.end()) {
    if (measured_.size() >= 1024) measured_.clear();  // a program sweeping sizes must not grow it forever
    it = measured_.emplace(key, find_cell(*tuning_, fit_, ranks, bytes)).first;
  }
  last_measured_key_ = key;
  return last_measured_ = it->second;
}

void TuningState::explain(const Problem& problem, const TuningCell* cell, std::optional<std::size_t> native_below) {
  if (problem.ranks < 2 || problem.bytes == 0) return;  // nothing moves: nothing to choose
  if (!explained_.insert({problem.ranks, problem.bytes}).second) return;
  const auto parameters = [](const Parameters& p) {
    std::string text;
    if (p.segment) text += " segment " + std::to_string(*p.segment);
    if (p.fanout) text += " fanout " + std::to_string(*p.fanout);
    if (p.radix) text += " radix " + std::to_string(*p.radix);
    if (p.node_size) text += " node_size " + std::to_string(*p.node_size);
    if (p.leaders) text += " leaders " + std::string(leader_stage_name(*p.leaders));
    return text;
  };
  if (cell) {
    std::fprintf(stderr, "herald auto: %d ranks, %zu bytes: %s%s, measured %.2f us (native %.2f us) for %d ranks and %zu bytes in the tuning file\n",
                 problem.ranks, problem.bytes, cell->algorithm.c_str(), parameters(cell->parameters).c_str(),
                 cell->seconds * 1e6, cell->native_seconds * 1e6, cell->ranks, cell->bytes);
    return;
  }
  std::string text = "herald auto: " + std::to_string(problem.ranks) + " ranks, " + std::to_string(problem.bytes) +
                     " bytes: ";
  if (keeps_native(problem, native_below)) {
    std::fprintf(stderr, "%snative: one node whose ranks share memory, no tuning-file cell, below %zu bytes (%s)\n",
                 text.c_str(), native_below.value_or(default_native_below(problem.ranks)),
                 native_below ? "HERALD_AUTO_NATIVE_BELOW" : "herald's default for this many ranks on a node");
    return;
  }
  // The same choice as the call's (CommState::plan()), and the prices it compared.
  const Choice chosen = choose_unmeasured(problem, model_, native_below).value();
  text += std::string(chosen.algorithm->name) + parameters(chosen.parameters);
  char figures[200];
  std::snprintf(figures, sizeof figures, ", predicted %.2f us (alpha %.3g s, beta %.3g s/byte, gap %.3g s%s%s%s); then",
                chosen.seconds * 1e6, model_.alpha, model_.beta, model_.port_seconds(),
                tuning_ ? ", from the tuning file" : "", problem.node_memory ? ", node memory" : "",
                problem.node_memory && node_counts(problem).nodes == 1 ? ", one node: node memory only" : "");
  text += figures;
  int shown = 0;
  for (const Choice& c : rank_algorithms(problem, model_)) {
    if (c.algorithm == chosen.algorithm || shown == 3) continue;
    std::snprintf(figures, sizeof figures, "%s %s %.2f us", shown++ > 0 ? "," : "", std::string(c.algorithm->name).c_str(),
                  c.seconds * 1e6);
    text += figures;
  }
  std::fprintf(stderr, "%s\n", text.c_str());
}

}  // namespace herald::mpi
