// The tuning file a job uses (HERALD_TUNING_FILE), read and checked against the job at the first call.
#pragma once

#include <herald/tuning.hpp>

#include <optional>

namespace herald::mpi {

// A tuning file and how this job uses it.
struct JobTuning {
  Tuning tuning;
  TuningFit fit;
};

// The file HERALD_TUNING_FILE names, if set, fitted to this job; what it cannot give the job is said once
// (world rank 0). Throws Error(invalid_argument) naming the file and the problem (unreadable, malformed,
// another version, another MPI library) unless HERALD_TUNING_FALLBACK=1, which prints the problem once
// (world rank 0) and goes on without the file.
std::optional<JobTuning> tuning_from_environment();

}  // namespace herald::mpi
