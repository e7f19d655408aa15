#include "network_probe.hpp"

#include "mpi_call.hpp"

#include <algorithm>
#include <span>
#include <vector>

namespace herald::bench {
namespace {

constexpr int rounds = 7;
constexpr int burst = 64;             // small sends posted back to back for the overhead
constexpr int polls = 1000;           // MPI_Test calls an unmatched send gets to complete
constexpr std::size_t small = 8;
constexpr int tag_burst = 21, tag_eager = 22, tag_go = 23, tag_small = 24, tag_large = 25, tag_ack = 26;

double now() { return MPI_Wtime(); }

// The least over the rounds of the time rank 0 takes to post one of `burst` small sends, rank 1's receives
// already posted: what a message costs its sender before it leaves.
double overhead(MPI_Comm group, int me) {
  std::vector<std::byte> buf(small * burst);
  std::vector<MPI_Request> requests(burst, MPI_REQUEST_NULL);
  double least = 0;
  for (int round = 0; round < rounds; ++round) {
    if (me == 1)
      for (int i = 0; i < burst; ++i)
        BENCH_MPI(MPI_Irecv(buf.data() + small * i, small, MPI_BYTE, 0, tag_burst, group, &requests[i]));
    BENCH_MPI(MPI_Barrier(group));
    if (me == 0) {
      const double start = now();
      for (int i = 0; i < burst; ++i)
        BENCH_MPI(MPI_Isend(buf.data() + small * i, small, MPI_BYTE, 1, tag_burst, group, &requests[i]));
      const double each = (now() - start) / burst;
      least = round == 0 ? each : std::min(least, each);
    }
    if (me <= 1) BENCH_MPI(MPI_Waitall(burst, requests.data(), MPI_STATUSES_IGNORE));
  }
  return least;
}

// Whether a send of `bytes` to rank 1, whose receive is not posted, completes within `polls` tests (rank 0);
// then rank 1 is told to receive it.
bool completes_unmatched(MPI_Comm group, std::span<std::byte> buf, std::size_t bytes) {
  MPI_Request request = MPI_REQUEST_NULL;
  BENCH_MPI(MPI_Isend(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, tag_eager, group, &request));
  int done = 0;
  for (int i = 0; i < polls && !done; ++i) BENCH_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
  int go = 1;
  BENCH_MPI(MPI_Send(&go, 1, MPI_INT, 1, tag_go, group));
  BENCH_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  return done != 0;
}

// The largest size whose send completes before its receive is posted (rank 0): doubling from 1 byte to
// the first that does not, then halving the interval between the two.
std::size_t eager_limit(MPI_Comm group, int me) {
  std::vector<std::byte> buf(max_eager_probe);
  std::size_t limit = max_eager_probe;
  if (me == 0) {
    std::size_t lo = 0, hi = 1;
    while (hi <= max_eager_probe && completes_unmatched(group, buf, hi)) {
      lo = hi;
      hi *= 2;
    }
    if (hi <= max_eager_probe) {
      while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        (completes_unmatched(group, buf, mid) ? lo : hi) = mid;
      }
      limit = lo;
    }
    int stop = 0;
    BENCH_MPI(MPI_Send(&stop, 1, MPI_INT, 1, tag_go, group));
  } else if (me == 1) {
    for (int go = 1;;) {
      BENCH_MPI(MPI_Recv(&go, 1, MPI_INT, 0, tag_go, group, MPI_STATUS_IGNORE));
      if (!go) break;
      BENCH_MPI(MPI_Recv(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 0, tag_eager, group, MPI_STATUS_IGNORE));
    }
  }
  return limit;
}

// Seconds from rank 0's first send until the acknowledgement of the rank told to answer reaches it: a
// small message to rank 2 (`with_small`), a large one to rank 1 (`with_large`), or both at once, the
// large first; receives posted beforehand. Valid on rank 0.
double round_trip(MPI_Comm group, int me, bool with_large, bool with_small, std::span<std::byte> large) {
  std::byte small_buf[small]{}, ack[1]{};
  MPI_Request request = MPI_REQUEST_NULL;
  const bool receives = (me == 1 && with_large) || (me == 2 && with_small);
  if (receives) {
    const bool is_large = me == 1;
    BENCH_MPI(MPI_Irecv(is_large ? large.data() : small_buf, static_cast<int>(is_large ? large.size() : small),
                        MPI_BYTE, 0, is_large ? tag_large : tag_small, group, &request));
  }
  BENCH_MPI(MPI_Barrier(group));
  double seconds = 0;
  if (me == 0) {
    MPI_Request sends[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    const double start = now();
    if (with_large)
      BENCH_MPI(MPI_Isend(large.data(), static_cast<int>(large.size()), MPI_BYTE, 1, tag_large, group, &sends[0]));
    if (with_small) BENCH_MPI(MPI_Isend(small_buf, small, MPI_BYTE, 2, tag_small, group, &sends[1]));
    // The small message's acknowledgement when there is one, else the large one's.
    BENCH_MPI(MPI_Recv(ack, 1, MPI_BYTE, with_small ? 2 : 1, tag_ack, group, MPI_STATUS_IGNORE));
    seconds = now() - start;
    BENCH_MPI(MPI_Waitall(2, sends, MPI_STATUSES_IGNORE));
  } else if (receives) {
    BENCH_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    // Rank 1 answers only where it is the one timed.
    if (me == 2 || !with_small) BENCH_MPI(MPI_Send(ack, 1, MPI_BYTE, 0, tag_ack, group));
  }
  return seconds;
}

Network sharing(MPI_Comm group, int me) {
  std::vector<std::byte> large(max_eager_probe);
  double small_alone = 0, large_alone = 0, behind = 0;
  for (int round = 0; round < rounds; ++round) {
    const double s = round_trip(group, me, false, true, large);
    const double l = round_trip(group, me, true, false, large);
    const double b = round_trip(group, me, true, true, large);
    small_alone = round == 0 ? s : std::min(small_alone, s);
    large_alone = round == 0 ? l : std::min(large_alone, l);
    behind = round == 0 ? b : std::min(behind, b);
  }
  return network_from_delays(small_alone, behind, large_alone);
}

}  // namespace

NetworkTraits probe_network(MPI_Comm group) {
  int me = 0, size = 0;
  BENCH_MPI(MPI_Comm_rank(group, &me));
  BENCH_MPI(MPI_Comm_size(group, &size));
  NetworkTraits traits;
  traits.overhead = overhead(group, me);
  traits.eager_bytes = eager_limit(group, me);
  if (size >= 3) {
    traits.network = sharing(group, me);
    traits.sharing_measured = true;
  }
  return traits;
}

}  // namespace herald::bench
