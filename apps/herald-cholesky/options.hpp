// herald-cholesky's command line: what to factorise, with what, and how to report it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace herald::cholesky {

enum class Precision { single, double_ };
enum class Solver { herald, scalapack };
enum class Mapping { heft, cyclic };  // cyclic: 2D block-cyclic owner computes, on a P x Q grid

struct Grid {
  int rows = 0;
  int cols = 0;
  int size() const noexcept { return rows * cols; }
};

struct Options {
  std::int64_t n = 2048;     // matrix order
  std::int64_t tile = 256;   // tile (or ScaLAPACK block) size
  Precision precision = Precision::double_;
  Solver solver = Solver::herald;
  Mapping mapping = Mapping::heft;
  std::optional<Grid> grid;  // unset: the squarest grid of the processes that compute
  std::optional<std::string> strategy;  // the runtime's broadcast strategy; unset: HERALD_RUNTIME_BCAST, else nobcast
  bool replicated = false;   // the runtime's control: --control, else HERALD_RUNTIME_CONTROL, else head
  std::optional<int> threads;  // kernel threads per worker; unset: the runtime's default
  bool check = true;         // compute the scaled residual and fail the run above the threshold
  bool csv = false;
  std::uint64_t seed = 1;
  std::optional<double> diagonal;  // added to the generated matrix's diagonal; unset: N
  std::optional<std::string> kernel_times;  // SimGrid SMPI: the kernels' measured times (JSON from --calibrate)
  double perturb = 0;  // SimGrid SMPI: each task runs its kernel's time times a factor in [1 - perturb, 1 + perturb]
  std::optional<std::string> calibrate;     // measure every kernel at this tile size, write the JSON here, and exit
};

// What the command line asked for, or why it cannot run. `processes` is the job's size: the grid must
// match the processes that compute (the workers for herald, every process for ScaLAPACK).
struct Parsed {
  Options options;
  int exit_code = -1;   // >= 0: stop with this code (help printed, or a usage error)
  std::string message;  // the usage error or the help text, for rank 0 to print
};
Parsed parse_options(int argc, char** argv, int processes);

// The processes that compute for this solver in a job of `processes`: under head control herald's head does
// not compute unless it is alone.
int computing_processes(Solver solver, int processes, bool replicated) noexcept;
// The squarest P x Q = count with P <= Q.
Grid squarest_grid(int count) noexcept;

const char* to_string(Precision p) noexcept;
const char* to_string(Solver s) noexcept;
const char* to_string(Mapping m) noexcept;

}  // namespace herald::cholesky
