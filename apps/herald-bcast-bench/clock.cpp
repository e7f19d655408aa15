#include "clock.hpp"

#include "mpi_call.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <vector>

namespace herald::bench {
namespace {

// On a real machine a sleep may wake this much late; the last stretch before the start is spun instead.
constexpr double spin_window = 200e-6;

void sleep_seconds(double seconds) {
  // Rounded up to whole nanoseconds, never zero, so every sleep advances the (simulated) clock.
  const auto nanoseconds = std::max<long long>(1, static_cast<long long>(std::ceil(seconds * 1e9)));
  timespec pause{};
  pause.tv_sec = static_cast<time_t>(nanoseconds / 1'000'000'000);
  pause.tv_nsec = static_cast<long>(nanoseconds % 1'000'000'000);
  nanosleep(&pause, nullptr);  // under SMPI a macro for smpi_nanosleep
}

}  // namespace

bool global_clock() {
  int* value = nullptr;
  int found = 0;
  BENCH_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &found));
  return found && value != nullptr && *value != 0;
}

void wait_until(double instant) {
  for (double now = MPI_Wtime(); now < instant; now = MPI_Wtime()) {
    const double rest = instant - now;
    if constexpr (under_smpi) {
      sleep_seconds(rest);
    } else if (rest > spin_window) {
      sleep_seconds(rest - spin_window);
    }
  }
}

double synchronised_seconds(const Contender& c, std::span<std::byte> buffer, int root, MPI_Comm comm,
                            int iterations, Lead& lead) {
  int rank = 0;
  BENCH_MPI(MPI_Comm_rank(comm, &rank));
  std::vector<double> starts(iterations);
  // Each iteration's finish, then a late flag: one reduction gives every rank the latest of each.
  std::vector<double> finishes(iterations + 1);
  while (true) {
    double late = 0;
    for (int i = 0; i < iterations; ++i) {
      double start = rank == root ? MPI_Wtime() + lead.seconds : 0.0;
      BENCH_MPI(MPI_Bcast(&start, 1, MPI_DOUBLE, root, comm));
      if (MPI_Wtime() > start) late = 1;
      wait_until(start);
      c.broadcast(buffer, root, comm);
      finishes[i] = MPI_Wtime();
      starts[i] = start;
    }
    finishes[iterations] = late;
    BENCH_MPI(MPI_Allreduce(MPI_IN_PLACE, finishes.data(), iterations + 1, MPI_DOUBLE, MPI_MAX, comm));
    if (finishes[iterations] == 0) {
      double total = 0;
      for (int i = 0; i < iterations; ++i) total += finishes[i] - starts[i];
      return total / iterations;
    }
    // Twice the lead, or more when the late sample already showed the broadcast needs more: a late start
    // only shortens what it measured, so twice the longest (latest finish - T) is a lead the next try
    // needs at least, and one redo usually does.
    double longest = 0;
    for (int i = 0; i < iterations; ++i) longest = std::max(longest, finishes[i] - starts[i]);
    lead.seconds = std::max(2 * lead.seconds, 2 * longest);
    ++lead.late_samples;
  }
}

}  // namespace herald::bench
