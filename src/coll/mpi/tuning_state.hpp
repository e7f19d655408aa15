// What "auto" decides by: the tuning file fitted to this job (tuning_file.hpp), the cost model made from it
// and the HERALD_* model settings, and the measured cells looked up so far.
#pragma once

#include <herald/decision.hpp>
#include <herald/schedule.hpp>
#include <herald/simulator.hpp>
#include <herald/tuning.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace herald::mpi {

class TuningState {
 public:
  // Reads HERALD_TUNING_FILE and the cost model's settings; throws Error(invalid_argument) on a malformed
  // one. CollSettings calls it in its place among the settings.
  void load();

  const CostModel& cost_model() const noexcept { return model_; }
  // The measured cell of the tuning file "auto" takes for `ranks` and `bytes`, or nullptr where the file
  // has none (or there is no file): the cost model decides there.
  // Remembered per shape: a broadcast's own cost must not grow with the file.
  const TuningCell* measured(int ranks, std::size_t bytes);
  // Prints to stderr what "auto" decided and why (describe()), each line once: HERALD_VERBOSE, through
  // Context::explain().
  void explain(const AutoQuestion& question, const Decision& decision);
  // HERALD_AUTO_LEARN's agreed results, kept for HERALD_TUNING_LEARN (the first per ranks and bytes).
  void learned(const TuningCell& cell);
  // Writes them as a tuning file at `path` (this job's layout, the model auto priced with); throws
  // Error(invalid_argument) naming the path when it cannot be written.
  void write_learned(const std::string& path) const;

 private:
  CostModel model_;
  std::optional<Tuning> tuning_;
  TuningFit fit_;  // how this job uses tuning_
  std::unordered_map<std::uint64_t, const TuningCell*> measured_;  // (ranks, bytes) -> cell or nullptr
  std::uint64_t last_measured_key_ = ~std::uint64_t{0};
  const TuningCell* last_measured_ = nullptr;
  std::set<std::string> explained_;  // the lines explain() has printed
  std::vector<TuningCell> learned_;
};

}  // namespace herald::mpi
