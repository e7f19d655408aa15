#include "options.hpp"

#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/runtime/broadcast.hpp>

#include "cli.hpp"  // CLI11, also under SimGrid's smpicxx

#include <regex>
#include <sstream>

namespace herald::cholesky {

int computing_processes(Solver solver, int processes, bool replicated) noexcept {
  return solver == Solver::herald && !replicated && processes > 1 ? processes - 1 : processes;
}

Grid squarest_grid(int count) noexcept {
  int rows = 1;
  for (int r = 1; r * r <= count; ++r)
    if (count % r == 0) rows = r;
  return {rows, count / rows};
}

const char* to_string(Precision p) noexcept { return p == Precision::single ? "single" : "double"; }
const char* to_string(Solver s) noexcept { return s == Solver::herald ? "herald" : "scalapack"; }
const char* to_string(Mapping m) noexcept { return m == Mapping::heft ? "heft" : "cyclic"; }

Parsed parse_options(int argc, char** argv, int processes) {
  Parsed parsed;
  Options& o = parsed.options;
  CLI::App app{"Tiled Cholesky factorisation of a generated symmetric positive definite matrix, on herald's task "
               "runtime (under head control rank 0 is the head and the others compute; under replicated control every "
               "rank computes) or on ScaLAPACK, with a residual check",
               "herald-cholesky"};
  app.add_option("-n,--n", o.n, "matrix order N");
  app.add_option("-b,--tile", o.tile, "tile size (ScaLAPACK: block size); need not divide N");
  std::string precision = "double", solver = "herald", mapping = "heft", grid, control;
  app.add_option("--precision", precision, "double or single")->check(CLI::IsMember({"double", "single"}));
  app.add_option("--solver", solver, "herald (the task runtime) or scalapack (pdpotrf/pspotrf)")
      ->check(CLI::IsMember({"herald", "scalapack"}));
  app.add_option("--mapping", mapping,
                 "herald: heft (the runtime's scheduler) or cyclic (2D block-cyclic on the grid, owner computes)")
      ->check(CLI::IsMember({"heft", "cyclic"}));
  app.add_option("--grid", grid, "process grid PxQ (cyclic mapping, ScaLAPACK); default the squarest");
  app.add_option("--strategy", o.strategy,
                 "herald: broadcast strategy nobcast, p2p, mpibcast, mpibcast:herald, dynbcast or auto "
                 "(default HERALD_RUNTIME_BCAST, else nobcast)");
  app.add_option("--control", control,
                 "herald: head (rank 0 schedules and dispatches) or replicated (every rank runs the submission) "
                 "(default HERALD_RUNTIME_CONTROL, else head)")
      ->check(CLI::IsMember({"head", "replicated"}));
  app.add_option("--threads", o.threads, "herald: kernel threads per worker, 0 or more (default: the runtime's, "
                                         "HERALD_RUNTIME_THREADS, else 1)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("!--no-check", o.check, "skip the residual check");
  app.add_flag("--csv", o.csv, "print a CSV header and row instead of the text line");
  app.add_option("--seed", o.seed, "seed of the generated matrix");
  app.add_option("--diagonal", o.diagonal,
                 "added to the generated matrix's diagonal (default N, which makes it positive definite; "
                 "a negative value does not, to see the error)");
  app.add_option("--kernel-times", o.kernel_times,
                 "SimGrid SMPI: kernel times measured with --calibrate, injected instead of running the kernels");
  app.add_option("--perturb", o.perturb,
                 "SimGrid SMPI, with --kernel-times: each task's modelled kernel runs its time times a factor "
                 "drawn in [1 - F, 1 + F] for that task from --seed, while the runtime plans on the times given "
                 "(0 to 0.9; default 0)")
      ->check(CLI::Range(0.0, 0.9));
  app.add_option("--calibrate", o.calibrate,
                 "measure each kernel at the tile size and precision, write them as JSON to this file, exit");

  std::ostringstream out;
  if (const auto status = herald::cli::parse(app, argc, argv, out, out)) {
    parsed.exit_code = *status;
    parsed.message = out.str();
    return parsed;
  }
  auto fail = [&](const std::string& why) {
    parsed.exit_code = herald::cli::usage_status;
    parsed.message = herald::cli::refusal("herald-cholesky", why) + "\n";
    return parsed;
  };
  o.precision = precision == "single" ? Precision::single : Precision::double_;
  o.solver = solver == "scalapack" ? Solver::scalapack : Solver::herald;
  o.mapping = mapping == "cyclic" ? Mapping::cyclic : Mapping::heft;
  if (o.n <= 0) return fail("--n must be a positive matrix order, not " + std::to_string(o.n));
  if (o.tile <= 0) return fail("--tile must be a positive tile size, not " + std::to_string(o.tile));
  const std::int64_t tiles = (o.n + o.tile - 1) / o.tile;
  if (tiles > 4096) return fail("--n / --tile gives " + std::to_string(tiles) + " tiles per side; at most 4096");
  if (o.strategy) {
    try {
      (void)runtime::broadcast_strategy_from_string(*o.strategy, "--strategy");
    } catch (const herald::Error& e) {
      return fail(e.message());
    }
  }
  if (control.empty()) control = environment("HERALD_RUNTIME_CONTROL").value_or("head");
  if (control != "head" && control != "replicated")
    return fail("HERALD_RUNTIME_CONTROL='" + control + "': the runtime's control is head or replicated");
  o.replicated = control == "replicated";
  const int computing = computing_processes(o.solver, processes, o.replicated);
  if (!grid.empty() && o.solver == Solver::herald && o.mapping == Mapping::heft)
    return fail("--grid places tiles for --mapping cyclic; with heft the scheduler places every task");
  if (!grid.empty()) {
    std::smatch m;
    if (!std::regex_match(grid, m, std::regex(R"(([0-9]{1,6})x([0-9]{1,6}))")))
      return fail("--grid takes PxQ, such as 2x3, not '" + grid + "'");
    Grid g{std::stoi(m[1]), std::stoi(m[2])};
    if (g.rows <= 0 || g.cols <= 0) return fail("--grid " + grid + " has an empty side");
    if (g.size() != computing)
      return fail("--grid " + grid + " has " + std::to_string(g.size()) + " processes, but " +
                  std::to_string(computing) + " compute here (" + std::to_string(processes) + " ranks" +
                  (o.solver == Solver::herald && processes > 1 ? ", one of them herald's head" : "") + ")");
    o.grid = g;
  }
  if (o.perturb > 0 && !o.kernel_times)
    return fail("--perturb moves the modelled kernel times of a simulated run: it needs --kernel-times");
  if (o.solver == Solver::scalapack && o.strategy)
    return fail("--strategy is the task runtime's; ScaLAPACK has none");
  return parsed;
}

}  // namespace herald::cholesky
