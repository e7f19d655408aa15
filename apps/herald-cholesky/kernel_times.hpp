// Each kernel's time on a full tile, measured on this machine: the runtime's cost model for scheduling, and
// under SimGrid's SMPI the time a simulated kernel takes instead of running (seed 003's experiment on
// simulated clusters). A tile of other extents costs in proportion to its flops.
#pragma once

#include "kernels.hpp"
#include "options.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace herald::cholesky {

struct KernelTimes {
  std::int64_t tile = 0;
  Precision precision = Precision::double_;
  std::array<double, 4> seconds{};  // per Kernel, on full tiles
  std::string machine;              // where they were measured (informational)

  // Seconds for the kernel on tiles of these extents (see flops()).
  double time(Kernel kernel, std::int64_t m, std::int64_t n, std::int64_t k) const noexcept;
};

// Runs each kernel on full tiles of `tile` in `precision` on this thread (median of `repetitions`).
// Needs BLAS.
KernelTimes measure_kernel_times(std::int64_t tile, Precision precision, int repetitions = 5);

// The JSON file --calibrate writes and --kernel-times reads; a malformed file, one of another tile size or
// precision, throws herald::Error naming the file and the problem.
void write_kernel_times(const KernelTimes& times, const std::string& path);
KernelTimes read_kernel_times(const std::string& path, std::int64_t tile, Precision precision);

}  // namespace herald::cholesky
