/* A rank that blocks in a collective while a nonblocking broadcast is in flight, its peers waiting for that
 * broadcast before they join: MPI's progress rule makes the broadcast complete anyway. For every root and
 * every other rank as the one that blocks first, on MPI_COMM_WORLD:
 *   that rank:   MPI_Ibcast, MPI_Barrier (another communicator), MPI_Wait
 *   the others:  MPI_Ibcast, MPI_Wait, MPI_Barrier
 * The broadcast is long enough for many rounds (run it with a small segment), so the blocking rank still has
 * receives to come when it enters the barrier.
 *
 *   blocked_peer [BYTES]      (default 65536) */
#include "dropin.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int bytes = argc > 1 ? atoi(argv[1]) : 65536;
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  unsigned char* data = malloc((size_t)bytes);
  int salt = 0;
  for (int root = 0; root < P; ++root)
    for (int blocker = 0; blocker < P; ++blocker) {
      if (blocker == root) continue;
      ++salt;
      if (me == root)
        dropin_fill(data, (size_t)bytes, root, salt);
      else
        memset(data, 0, (size_t)bytes);
      MPI_Request request;
      MPI_Ibcast(data, bytes, MPI_BYTE, root, MPI_COMM_WORLD, &request);
      if (me == blocker) {
        MPI_Barrier(other);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      } else {
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        MPI_Barrier(other);
      }
      const long long wrong = dropin_first_wrong(data, (size_t)bytes, root, salt);
      CHECK(wrong < 0, "root %d, rank %d blocking first: byte %lld wrong", root, blocker, wrong);
    }
  free(data);
  MPI_Comm_free(&other);
  return dropin_finish("blocked_peer");
}
