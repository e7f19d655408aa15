// herald-stencil: an MPI + OpenMP mini-app with a tunable load imbalance, to watch herald's balancer work.
//
// Every process relaxes its own 3-D grid with a 7-point Jacobi stencil; a phase is a number of sweeps
// (one parallel region each) followed by an MPI_Allreduce of the residual, the synchronisation point of
// solvers such as CG. Loaded processes sweep `factor` times as often, so the others wait for them in the
// reduction. herald_balanced() ends each phase. From --flip-at on, the load moves to the mirrored ranks.
#include <herald/balance.h>

#include "cli.hpp"

#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

namespace {

// One process's grid: n x n x n points, boundaries held at zero, a constant source inside.
class Grid {
 public:
  explicit Grid(int n) : n_(n), u_(static_cast<std::size_t>(n) * n * n, 0.0), next_(u_) {}

  // One Jacobi sweep; returns the sum of squared updates.
  double sweep() {
    const long n = n_;
    double change = 0;
    const double* u = u_.data();
    double* v = next_.data();
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : change)
    for (long k = 1; k < n - 1; ++k)
      for (long j = 1; j < n - 1; ++j) {
        const long row = (k * n + j) * n;
        for (long i = 1; i < n - 1; ++i) {
          const long c = row + i;
          const double updated =
              (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + u[c - n * n] + u[c + n * n] + 1.0) / 6.0;
          change += (updated - u[c]) * (updated - u[c]);
          v[c] = updated;
        }
      }
    u_.swap(next_);
    return change;
  }

 private:
  int n_;
  std::vector<double> u_, next_;
};

bool loaded(int rank, int ranks, const std::vector<int>& heavy, bool flipped) {
  const int r = flipped ? ranks - 1 - rank : rank;
  return std::find(heavy.begin(), heavy.end(), r) != heavy.end();
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  CLI::App app{"Jacobi stencil with a tunable imbalance between MPI processes; herald_balanced() ends each phase"};
  int size = 64, phases = 30, sweeps = 4, flip_at = 0;
  double factor = 3.0;
  std::vector<int> heavy{0};
  bool csv = false;
  app.add_option("--size", size, "grid edge per process (points)")->check(CLI::Range(3, 1024))->capture_default_str();
  app.add_option("--phases", phases, "phases to run")->check(herald::cli::positive)->capture_default_str();
  app.add_option("--sweeps", sweeps, "sweeps per phase on an unloaded process")
      ->check(herald::cli::positive)->capture_default_str();
  app.add_option("--factor", factor, "work of a loaded process relative to the others")
      ->check(CLI::Range(0.01, 1000.0))->capture_default_str();
  app.add_option("--loaded", heavy, "loaded ranks: 0,3")->delimiter(',')->capture_default_str();
  app.add_option("--flip-at", flip_at, "phase from which the load moves to the mirrored ranks (0: never)")
      ->check(herald::cli::non_negative)->capture_default_str();
  app.add_flag("--csv", csv, "print every phase: phase,seconds,threads of each rank");
  if (const auto status = herald::cli::parse(app, argc, argv, rank == 0)) {
    MPI_Finalize();
    return *status;
  }

  Grid grid(size);
  std::vector<double> phase_seconds(phases), compute_seconds(phases);
  std::vector<int> phase_threads(phases);
  double residual = 0;

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int phase = 0; phase < phases; ++phase) {
    const double begin = MPI_Wtime();
    phase_threads[phase] = omp_get_max_threads();
    const bool flipped = flip_at > 0 && phase + 1 >= flip_at;
    const int mine = loaded(rank, ranks, heavy, flipped) ? std::max(1, static_cast<int>(std::lround(sweeps * factor)))
                                                         : sweeps;
    double change = 0;
    for (int s = 0; s < mine; ++s) change += grid.sweep();
    compute_seconds[phase] = MPI_Wtime() - begin;
    MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    herald_balanced();
    phase_seconds[phase] = MPI_Wtime() - begin;
  }
  double total = MPI_Wtime() - start, slowest_total = 0;
  MPI_Reduce(&total, &slowest_total, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  // Per phase: the slowest process's time, and every process's threads.
  std::vector<double> slowest(phases);
  MPI_Reduce(phase_seconds.data(), slowest.data(), phases, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  std::vector<int> threads(rank == 0 ? static_cast<std::size_t>(phases) * ranks : 0);
  MPI_Gather(phase_threads.data(), phases, MPI_INT, threads.data(), phases, MPI_INT, 0, MPI_COMM_WORLD);

  if (rank == 0) {
    std::printf("herald-stencil ranks=%d size=%d phases=%d sweeps=%d factor=%g loaded=", ranks, size, phases,
                sweeps, factor);
    for (std::size_t i = 0; i < heavy.size(); ++i) std::printf("%s%d", i ? "," : "", heavy[i]);
    std::printf(" flip_at=%d\n", flip_at);
    if (csv) {
      std::printf("phase,seconds,threads\n");
      for (int phase = 0; phase < phases; ++phase) {
        std::printf("%d,%.6f,", phase + 1, slowest[phase]);
        for (int r = 0; r < ranks; ++r) std::printf("%s%d", r ? " " : "", threads[r * phases + phase]);
        std::printf("\n");
      }
    }
    std::string last_threads;
    for (int r = 0; r < ranks; ++r) last_threads += (r ? " " : "") + std::to_string(threads[r * phases + phases - 1]);
    std::printf("total_seconds=%.6f last_phase_threads=%s residual=%.6e\n", slowest_total, last_threads.c_str(),
                residual);
  }
  MPI_Finalize();
  return 0;
}
