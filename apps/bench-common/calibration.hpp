// This machine's alpha (seconds per message) and beta (seconds per byte), measured by ping-pong, and gap
// (how soon a rank can start its next small message), measured by a burst, so the simulator's predictions
// can sit next to the measurements.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace herald::bench {

struct Calibration {
  double alpha = 0;          // seconds per message
  double beta = 0;           // seconds per byte
  double gap = 0;            // seconds between the starts of back-to-back small messages, at most alpha
  bool measured = false;     // false: taken from the command line or, with one rank, left at zero
  std::size_t small_bytes = 0;  // the two ping-pong sizes the line t(n) = alpha + n * beta runs through
  std::size_t large_bytes = 0;
  double small_seconds = 0;  // median one-way time at each size
  double large_seconds = 0;
};

// Collective over `comm`. Ranks 0 and 1 ping-pong a small and a large message, and time a burst of small
// messages answered by one (each the median of several rounds) while the others wait; every rank returns
// the same result.
Calibration calibrate(MPI_Comm comm);

}  // namespace herald::bench
