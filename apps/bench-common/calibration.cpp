#include "calibration.hpp"

#include "mpi_call.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace herald::bench {
namespace {

constexpr std::size_t small_size = 8;
constexpr std::size_t large_size = std::size_t{4} << 20;
constexpr int rounds = 7;
constexpr int burst = 64;  // small messages in a burst

// The least of the rounds' one-way times of a `bytes`-byte message between the two ranks of `pair` (valid
// on both). The least, not the median: on a busy machine (more ranks than cores, another job beside) a round
// carries the waits of ranks that were not running, which are not the network's; they lengthen the
// 8-byte ping-pong most, and a median of them once put it above the 4 MiB one, a negative beta.
double one_way_seconds(MPI_Comm pair, int rank, std::size_t bytes, int exchanges, std::vector<std::byte>& buf) {
  const int count = static_cast<int>(bytes);
  std::vector<double> samples;
  for (int round = 0; round < rounds; ++round) {
    BENCH_MPI(MPI_Barrier(pair));
    const double start = MPI_Wtime();
    for (int i = 0; i < exchanges; ++i) {
      if (rank == 0) {
        BENCH_MPI(MPI_Send(buf.data(), count, MPI_BYTE, 1, 0, pair));
        BENCH_MPI(MPI_Recv(buf.data(), count, MPI_BYTE, 1, 0, pair, MPI_STATUS_IGNORE));
      } else {
        BENCH_MPI(MPI_Recv(buf.data(), count, MPI_BYTE, 0, 0, pair, MPI_STATUS_IGNORE));
        BENCH_MPI(MPI_Send(buf.data(), count, MPI_BYTE, 0, 0, pair));
      }
    }
    samples.push_back((MPI_Wtime() - start) / (2.0 * exchanges));
  }
  return *std::ranges::min_element(samples);
}

// The least time for rank 0 to send `burst` small messages at once and get one back: about 2 alpha plus
// (burst - 1) gaps (valid on rank 0).
double burst_seconds(MPI_Comm pair, int rank, int exchanges) {
  std::vector<std::byte> buf(small_size * burst);
  std::vector<MPI_Request> requests(burst);
  std::vector<double> samples;
  for (int round = 0; round < rounds; ++round) {
    BENCH_MPI(MPI_Barrier(pair));
    const double start = MPI_Wtime();
    for (int e = 0; e < exchanges; ++e) {
      for (int i = 0; i < burst; ++i) {
        std::byte* at = buf.data() + small_size * static_cast<std::size_t>(i);
        if (rank == 0)
          BENCH_MPI(MPI_Isend(at, small_size, MPI_BYTE, 1, 1, pair, &requests[i]));
        else
          BENCH_MPI(MPI_Irecv(at, small_size, MPI_BYTE, 0, 1, pair, &requests[i]));
      }
      BENCH_MPI(MPI_Waitall(burst, requests.data(), MPI_STATUSES_IGNORE));
      if (rank == 0)
        BENCH_MPI(MPI_Recv(buf.data(), small_size, MPI_BYTE, 1, 2, pair, MPI_STATUS_IGNORE));
      else
        BENCH_MPI(MPI_Send(buf.data(), small_size, MPI_BYTE, 0, 2, pair));
    }
    samples.push_back((MPI_Wtime() - start) / exchanges);
  }
  return *std::ranges::min_element(samples);
}

// A barrier whose waiting ranks sleep instead of polling: with more ranks than cores, the ranks outside the
// ping-pong would otherwise take CPU time from the two inside it.
void sleeping_barrier(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  BENCH_MPI(MPI_Ibarrier(comm, &request));
  int done = 0;
  while (true) {
    BENCH_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

Calibration calibrate(MPI_Comm comm) {
  int rank = 0, ranks = 1;
  BENCH_MPI(MPI_Comm_rank(comm, &rank));
  BENCH_MPI(MPI_Comm_size(comm, &ranks));
  Calibration c;
  if (ranks < 2) return c;

  // Ranks 0 and 1 measure on a communicator of their own; the others sleep until they are done.
  MPI_Comm pair = MPI_COMM_NULL;
  BENCH_MPI(MPI_Comm_split(comm, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair));
  double times[3] = {0, 0, 0};
  if (pair != MPI_COMM_NULL) {
    std::vector<std::byte> buf(large_size);
    // One untimed exchange of each size first, so connection set-up stays out of the figures.
    (void)one_way_seconds(pair, rank, large_size, 1, buf);
    // A 4 MiB message that took no longer than an 8-byte one was measured among waits: measure again.
    for (int attempt = 0; attempt < 5 && !(times[1] > times[0]); ++attempt) {
      times[0] = one_way_seconds(pair, rank, small_size, 1000, buf);
      times[1] = one_way_seconds(pair, rank, large_size, 20, buf);
    }
    times[2] = burst_seconds(pair, rank, 100);
    BENCH_MPI(MPI_Comm_free(&pair));
  }
  sleeping_barrier(comm);
  BENCH_MPI(MPI_Bcast(times, 3, MPI_DOUBLE, 0, comm));

  c.measured = true;
  c.small_bytes = small_size;
  c.large_bytes = large_size;
  c.small_seconds = times[0];
  c.large_seconds = times[1];
  // The line through both points; clamped at zero, since noise can tilt it on a busy machine.
  c.beta = std::max(0.0, (times[1] - times[0]) / static_cast<double>(large_size - small_size));
  c.alpha = std::max(0.0, times[0] - static_cast<double>(small_size) * c.beta);
  // The burst and its answer take two one-way times and (burst - 1) gaps; a gap above alpha would mean the
  // burst queued somewhere, which the single-port model already charges.
  c.gap = std::clamp((times[2] - 2 * times[0]) / (burst - 1), 0.0, c.alpha);
  return c;
}

}  // namespace herald::bench
