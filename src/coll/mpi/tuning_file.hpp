// The tuning file a job uses (HERALD_TUNING_FILE), read and checked against the job at the first call.
#pragma once

#include <herald/tuning.hpp>

#include <optional>

namespace herald::mpi {

// The file HERALD_TUNING_FILE names, if set. Throws Error(invalid_argument) naming the file and the problem
// (unreadable, malformed, another version, another MPI library or layout) unless HERALD_TUNING_FALLBACK=1,
// which prints the problem once (world rank 0) and goes on without the file.
std::optional<Tuning> tuning_from_environment();

}  // namespace herald::mpi
