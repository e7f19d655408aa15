// One factorisation, timed, and what it reports.
#pragma once

#include "kernel_times.hpp"
#include "options.hpp"

#include <mpi.h>

#include <limits>
#include <optional>
#include <string>

namespace herald::cholesky {

struct Result {
  double seconds = 0;                                        // the factorisation alone
  double residual = std::numeric_limits<double>::quiet_NaN();  // scaled; NaN when not checked
  std::string strategy;  // the runtime's broadcast strategy ("-" for ScaLAPACK)
  std::string grid;      // the process grid, or "-" for HEFT
  int tiles = 0;         // per side
  int threads = 1;       // kernel threads per computing process
};

// On herald's task runtime (collective over comm). `times` prices the kernels for the scheduler, and under
// SimGrid's SMPI replaces them. Result on rank 0; throws herald::Error on rank 0 for a failed task.
Result factor_on_runtime(const Options& options, const KernelTimes& times, MPI_Comm comm);

// ScaLAPACK's pxPOTRF on the same matrix (collective over comm), when built with it.
bool have_scalapack() noexcept;
Result factor_with_scalapack(const Options& options, MPI_Comm comm);

}  // namespace herald::cholesky
