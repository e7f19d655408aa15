// The tuning file a job uses (HERALD_TUNING_FILE), read and checked against the job at the first call.
#pragma once

#include <herald/tuning.hpp>

#include <optional>

namespace herald::mpi {

// This job as a tuning file records it: the MPI library (MPI_Get_library_version's first line), the size
// of MPI_COMM_WORLD and the ranks per node the launcher reports (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE,
// MPICH's MPI_LOCALNRANKS; 0 when neither is set). Local: asks no other process.
TuningLayout job_layout();

// The file HERALD_TUNING_FILE names, if set. Throws Error(invalid_argument) naming the file and the problem
// (unreadable, malformed, another version, another MPI library or layout) unless HERALD_TUNING_FALLBACK=1,
// which prints the problem once (world rank 0) and goes on without the file.
std::optional<Tuning> tuning_from_environment();

}  // namespace herald::mpi
