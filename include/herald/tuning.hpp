// A tuning file: what herald-tune measured on one machine, for `auto` to use there (HERALD_TUNING_FILE).
//
// It holds the point-to-point cost model (alpha, beta, gap), measured between two ranks of one node and,
// when the job spanned nodes, between two nodes; the MPI library and rank layout it was measured with; and,
// after `herald-tune --exhaustive`, the fastest algorithm measured per (ranks, bytes) cell. The schema is
// documented in docs/tuning.md and versioned (`tuning_version`).
#pragma once

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

// Where and how the file was measured; a job must match it to use the file.
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

// The measured cell for a broadcast of `bytes` among `ranks`: the one with that many ranks whose size is
// nearest in ratio, if within a factor of two; nullptr otherwise.
const TuningCell* find_cell(const Tuning& tuning, int ranks, std::size_t bytes);

// This job as a tuning file records it: the MPI library (MPI_Get_library_version's first line), the size
// of MPI_COMM_WORLD and the ranks per node the launcher reports (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE,
// MPICH's MPI_LOCALNRANKS; 0 when neither is set). Part of libherald (it asks MPI, which must be
// initialised); local: asks no other process.
TuningLayout this_job_layout();

// Why a job of `job` cannot use a file measured with `file`, or nothing when it can: another MPI library, or
// a job spanning nodes whose size is not a multiple of the file's ranks per node. Decided from what every
// rank of the job sees alike (not the rank's own node, which may be a partly filled last one), so that all
// ranks accept or refuse together.
std::optional<std::string> layout_mismatch(const TuningLayout& file, const TuningLayout& job);

}  // namespace herald
