#include "tuning_state.hpp"

#include "tuning_file.hpp"


#include <algorithm>
#include <cstdio>
#include <fstream>

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

void TuningState::explain(const AutoQuestion& question, const Decision& decision) {
  if (decision.because == Because::nothing_moves) return;  // nothing to choose
  std::string line = describe(question, decision, tuning_.has_value());
  if (!explained_.insert(line).second) return;
  std::fprintf(stderr, "%s\n", line.c_str());
}

void TuningState::learned(const TuningCell& cell) {
  for (const TuningCell& c : learned_)
    if (c.ranks == cell.ranks && c.bytes == cell.bytes) return;
  learned_.push_back(cell);
}

void TuningState::write_learned(const std::string& path) const {
  Tuning tuning{.layout = this_job_layout(), .intra_node = model_, .inter_node = std::nullopt, .cells = learned_};
  std::ranges::sort(tuning.cells, {}, [](const TuningCell& c) { return std::pair(c.ranks, c.bytes); });
  std::ofstream out(path);
  out << tuning_json(tuning);
  if (!out) throw Error(Errc::invalid_argument, "HERALD_TUNING_LEARN '" + path + "' cannot be written");
}

}  // namespace herald::mpi
