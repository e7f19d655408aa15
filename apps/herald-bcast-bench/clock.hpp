// The synchronised clock of --clock sync, and what the benchmark needs to know about SimGrid's SMPI.
//
// The OSU clock times each rank from its own exit of a barrier. Ranks leave a barrier at different times,
// and a rank that leaves late times only the tail of the broadcast: on a simulated cluster, where nothing
// blurs it, `linear` to 16 hosts read 0.01 us at 1 byte, far below what 15 messages cost. The sync clock
// starts every broadcast at one instant T on every rank and times it to the latest finish over the ranks,
// the quantity a broadcast's lower bound speaks of. It needs every rank to read the same clock.
#pragma once

#include "contender.hpp"

#include <mpi.h>

#include <cstddef>
#include <span>

namespace herald::bench {

// True when built with SimGrid's smpicxx, whose mpi.h is SMPI's (it defines SMPI_H).
#ifdef SMPI_H
inline constexpr bool under_smpi = true;
#else
inline constexpr bool under_smpi = false;
#endif

// True when MPI_WTIME_IS_GLOBAL is set and true: every rank's MPI_Wtime reads the same clock.
bool global_clock();

// Returns once MPI_Wtime() has reached `instant`. Under SMPI it sleeps the simulated time that remains
// (smpi_helpers.h maps nanosleep to a simulated sleep; spinning on MPI_Wtime would not advance simulated
// time); elsewhere it sleeps to shortly before and spins on MPI_Wtime for the rest, since a sleep wakes late.
void wait_until(double instant);

// How far ahead of the root's clock one contender's next start is set. It only grows: a lead too short
// for one size is too short for the larger ones that follow.
struct Lead {
  double seconds = 50e-6;
  int late_samples = 0;  // samples redone because a rank reached the start late
};

// One sample on the sync clock, valid on every rank. `iterations` times: the root picks the start
// T = its MPI_Wtime() + lead and broadcasts it (MPI_Bcast on `comm`), every rank waits until T and runs the
// contender's broadcast and notes when it finished. The sample is the average over the iterations of the
// latest finish over ranks minus T. A rank that reached some T already past would have started late and
// shortened its time, so such a sample is redone with twice the lead (or twice the longest broadcast
// seen, if more), as often as needed.
double synchronised_seconds(const Contender& c, std::span<std::byte> buffer, int root, MPI_Comm comm,
                            int iterations, Lead& lead);

}  // namespace herald::bench
