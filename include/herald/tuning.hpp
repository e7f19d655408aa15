// A tuning file: what herald-tune measured on one machine, for `auto` to use there (HERALD_TUNING_FILE).
//
// It holds the point-to-point cost model (alpha, beta, gap), measured between two ranks of one node and,
// when the job spanned nodes, between two nodes; the MPI library and rank layout it was measured with; and,
// after `herald-tune --exhaustive`, the fastest algorithm measured per (ranks, bytes) cell. The schema is
// documented in docs/tuning.md and versioned (`tuning_version`).
#pragma once

#include <herald/error.hpp>
#include <herald/schedule.hpp>
#include <herald/simulator.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace herald {

inline constexpr int tuning_version = 1;

// The fastest algorithm measured for one broadcast shape, with its median time and the installed
// MPI_Bcast's, measured in the same run.
struct TuningCell {
  int ranks = 0;
  std::size_t bytes = 0;
  std::string algorithm;  // a name from the algorithm table, or "native"
  Parameters parameters{};
  double seconds = 0;
  double native_seconds = 0;
  friend bool operator==(const TuningCell&, const TuningCell&) = default;
};

// Where and how the file was measured: a job must run the same MPI library; any other shape is fitted.
struct TuningLayout {
  std::string mpi_library;  // the first line of MPI_Get_library_version
  int ranks = 0;            // processes of the measuring job
  int ranks_per_node = 0;   // of the measuring job's first node
  friend bool operator==(const TuningLayout&, const TuningLayout&) = default;
};

struct Tuning {
  TuningLayout layout;
  CostModel intra_node;                   // between two ranks of one node
  std::optional<CostModel> inter_node;    // between two nodes, when the job spanned several
  std::vector<TuningCell> cells;          // sorted by (ranks, bytes)
};

// Reads a tuning file's text. Throws Error(invalid_argument) naming `source` and the problem: not JSON, a
// missing or mistyped field, another version, an unknown algorithm, a non-positive alpha or beta.
Tuning parse_tuning(std::string_view text, std::string_view source);

// The file's text for `tuning` (what parse_tuning() reads back).
std::string tuning_json(const Tuning& tuning);

// How a job stands to a file measured elsewhere on its machine. One file serves every job of the machine:
// a job takes the cells measured nearest its own shape and prices the rest with the file's model. Decided
// from what every rank of the job sees alike, so that all ranks pick alike.
struct TuningFit {
  bool spans_nodes = false;  // the job's ranks are on more than one node
  bool node_cells = true;    // the cells measured across nodes apply (the job spans nodes laid out as the file's)
  std::vector<std::string> unused;  // what the file cannot give this job, to be said once
};

// The measured cell for a broadcast of `bytes` among `ranks`: among the cells that apply to `fit`, those of
// the nearest rank count within a factor of two (more ranks on a tie), and of them the one whose size is
// nearest in ratio, if within a factor of two; nullptr otherwise (auto then prices with the model).
const TuningCell* find_cell(const Tuning& tuning, const TuningFit& fit, int ranks, std::size_t bytes);
// The same for a job laid out as the file was (every cell applies).
const TuningCell* find_cell(const Tuning& tuning, int ranks, std::size_t bytes);

// This job as a tuning file records it: the MPI library (MPI_Get_library_version's first line), the size
// of MPI_COMM_WORLD and the ranks per node the launcher reports (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE,
// MPICH's MPI_LOCALNRANKS; 0 when neither is set). Part of libherald (it asks MPI, which must be
// initialised); local: asks no other process.
TuningLayout this_job_layout();

// Why a job of `job` cannot use a file measured with `file` at all, or nothing when it can: only another MPI
// library refuses a file (its timings and even its algorithm table describe another library); any other
// difference of shape is fitted by fit_tuning().
std::optional<std::string> layout_mismatch(const TuningLayout& file, const TuningLayout& job);

// How a job of `job` (this_job_layout()) uses `tuning`. `job.ranks_per_node` is the launcher's count on this
// rank's node, which may differ on a partly filled last node: only whether it is below the job's size (the
// job spans nodes) is read from it, which every rank sees alike; 0 (unknown) falls back to the file's ranks
// per node. Lists in `unused` what the file cannot give this job: cells for its rank count, cells across
// nodes laid out otherwise, a network model for a job across nodes measured on one.
TuningFit fit_tuning(const Tuning& tuning, const TuningLayout& job);

}  // namespace herald
