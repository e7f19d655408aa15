// herald-cholesky: see options.cpp for the command line and docs/cholesky.md for the method.
#include "kernel_times.hpp"
#include "kernels.hpp"
#include "matrix.hpp"
#include "options.hpp"
#include "solve.hpp"

#include <herald/error.hpp>

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>

namespace {

using namespace herald::cholesky;

#ifdef SMPI_H
constexpr bool simulated = true;
#else
constexpr bool simulated = false;
#endif

// Every rank stops with the worst verdict of any rank (only the head knows how a runtime run went, but a
// rank may fail on its own, reading a file say).
int agree(int status, MPI_Comm comm) {
  int worst = status;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm);
  return worst;
}

KernelTimes kernel_times(const Options& o, int rank, MPI_Comm comm) {
  if (o.kernel_times) return read_kernel_times(*o.kernel_times, o.tile, o.precision);
  if (simulated)
    throw herald::Error(herald::Errc::invalid_argument,
                        "a simulated build runs no kernels: give their times with --kernel-times (from --calibrate)");
  KernelTimes t{.tile = o.tile, .precision = o.precision, .seconds = {}, .machine = {}};
  if (rank == 0) t = measure_kernel_times(o.tile, o.precision, 3);
  MPI_Bcast(t.seconds.data(), static_cast<int>(t.seconds.size()), MPI_DOUBLE, 0, comm);
  return t;
}

void report(const Options& o, const Result& r, int ranks) {
  const double gflops = static_cast<double>(o.n) * o.n * o.n / 3.0 / r.seconds / 1e9;
  const bool checked = !std::isnan(r.residual);
  const char* mapping = o.solver == Solver::scalapack ? "cyclic" : to_string(o.mapping);
  if (o.csv) {
    std::printf("solver,precision,n,tile,tiles,ranks,threads,mapping,grid,strategy,seconds,gflops,residual\n");
    std::printf("%s,%s,%lld,%lld,%d,%d,%d,%s,%s,%s,%.6f,%.3f,%s\n", to_string(o.solver), to_string(o.precision),
                static_cast<long long>(o.n), static_cast<long long>(o.tile), r.tiles, ranks, r.threads, mapping,
                r.grid.c_str(), r.strategy.c_str(), r.seconds, gflops,
                checked ? std::to_string(r.residual).c_str() : "");
  } else {
    const std::string threads = r.threads == 0 ? "kernels on the polling thread"
                                : std::to_string(r.threads) + (r.threads == 1 ? " thread each" : " threads each");
    std::printf("herald-cholesky: %s, N %lld, tile %lld (%d x %d tiles), %s precision, %d ranks, %s, "
                "mapping %s%s%s, strategy %s: %.4f s, %.2f GFlop/s, ",
                to_string(o.solver), static_cast<long long>(o.n), static_cast<long long>(o.tile), r.tiles, r.tiles,
                to_string(o.precision), ranks, threads.c_str(), mapping,
                r.grid == "-" ? "" : " ", r.grid == "-" ? "" : r.grid.c_str(), r.strategy.c_str(), r.seconds, gflops);
    if (checked)
      std::printf("scaled residual %.3g (threshold %g)\n", r.residual, residual_threshold);
    else
      std::printf("not checked%s\n", simulated ? " (simulated kernels)" : "");
  }
  std::fflush(stdout);
}

int run(int argc, char** argv) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Parsed parsed = parse_options(argc, argv, size);
  if (parsed.exit_code >= 0) {
    if (rank == 0) std::fputs(parsed.message.c_str(), parsed.exit_code == 0 ? stdout : stderr);
    return parsed.exit_code;
  }
  const Options& o = parsed.options;
  single_threaded_blas();

  if (o.calibrate) {
    int status = 0;
    if (rank == 0) {
      try {
        const KernelTimes t = measure_kernel_times(o.tile, o.precision);
        write_kernel_times(t, *o.calibrate);
        std::printf("herald-cholesky: kernel times at tile %lld, %s precision (s): potrf %.3g, trsm %.3g, syrk %.3g, "
                    "gemm %.3g -> %s\n",
                    static_cast<long long>(o.tile), to_string(o.precision), t.seconds[0], t.seconds[1], t.seconds[2],
                    t.seconds[3], o.calibrate->c_str());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "herald-cholesky: %s\n", e.what());
        status = 1;
      }
    }
    return agree(status, comm);
  }

  int status = 0;
  Result result;
  try {
    if (o.solver == Solver::scalapack) {
      if (!have_scalapack())
        throw herald::Error(herald::Errc::invalid_argument,
                            "--solver scalapack: this build has no ScaLAPACK (install libscalapack-openmpi-dev or "
                            "libscalapack-mpich-dev, which scripts/setup.sh does, and rebuild)");
      result = factor_with_scalapack(o, comm);
    } else {
      result = factor_on_runtime(o, kernel_times(o, rank, comm), comm);
    }
  } catch (const herald::Error& e) {
    if (e.code() == herald::Errc::worker_lost) {
      std::fprintf(stderr, "herald-cholesky: %s\n", e.what());
      std::fflush(stderr);
      // MPICH's launcher drops output still in its pipes at MPI_Abort: let the report reach the user first.
      std::this_thread::sleep_for(std::chrono::seconds(1));
      MPI_Abort(comm, 1);  // the lost worker cannot take part in an orderly stop
    }
    if (rank == 0) std::fprintf(stderr, "herald-cholesky: %s\n", e.what());
    status = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "herald-cholesky: rank %d: %s\n", rank, e.what());
    status = 1;
  }
  if (rank == 0 && status == 0) {
    report(o, result, size);
    if (o.check && !simulated && !(result.residual <= residual_threshold)) {
      std::fprintf(stderr, "herald-cholesky: wrong result: scaled residual %g is above %g\n", result.residual,
                   residual_threshold);
      status = 1;
    }
  }
  return agree(status, comm);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const int code = run(argc, argv);
  MPI_Finalize();
  return code;
}
