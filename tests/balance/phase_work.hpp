// Shared by the balancer's MPI tests: gathered thread counts and a phase of tunable OpenMP work.
#pragma once

#include <mpi.h>
#include <omp.h>

#include <vector>

namespace herald::balance::testing {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

inline std::vector<int> gather(int mine) {
  std::vector<int> all(world_size());
  MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
  return all;
}

// Threads each process's next parallel region will have.
inline std::vector<int> threads_everywhere() { return gather(omp_get_max_threads()); }

// `units` of arithmetic shared by the process's threads: one parallel region.
inline double work(long units) {
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (long i = 0; i < units; ++i) {
    double x = static_cast<double>(i);
    for (int k = 0; k < 200; ++k) x = x * 0.999 + 1.0;
    sum += x;
  }
  return sum;
}

constexpr long unit = 20000;  // a few milliseconds of one core

// `count` phases in which process `heavy` does `factor` times the work of the others (nobody if -1),
// who do `units`, each ended by `mark` unless it is null.
inline void phases(int count, int heavy, double factor, void (*mark)(), long units = unit) {
  for (int i = 0; i < count; ++i) {
    volatile double sink = work(world_rank() == heavy ? static_cast<long>(units * factor) : units);
    (void)sink;
    if (mark != nullptr) mark();
  }
}

}  // namespace herald::balance::testing
