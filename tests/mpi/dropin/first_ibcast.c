/* MPI_Ibcast is local: it returns without waiting for other ranks, even the first time it is called on a
 * communicator. Rank 0 completes a nonblocking barrier on MPI_COMM_WORLD before its first MPI_Ibcast on a
 * new communicator; the other ranks start that MPI_Ibcast first and join the barrier only after it returns.
 * If MPI_Ibcast waited for rank 0 (for example in a blocking MPI_Comm_dup), nobody would move. */
#include "dropin.h"

static int me, P;

static void late_first_ibcast(size_t n, int root, int salt) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  unsigned char* data = calloc(n, 1);
  if (me == root) dropin_fill(data, n, root, salt);
  MPI_Request barrier, bcast;
  if (me == 0) {
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    MPI_Wait(&barrier, MPI_STATUS_IGNORE);
    MPI_Ibcast(data, (int)n, MPI_BYTE, root, comm, &bcast);
    MPI_Wait(&bcast, MPI_STATUS_IGNORE);
  } else {
    MPI_Ibcast(data, (int)n, MPI_BYTE, root, comm, &bcast);
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    MPI_Request both[2] = {bcast, barrier};
    MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
  }
  const long long wrong = dropin_first_wrong(data, n, root, salt);
  CHECK(wrong < 0, "%zu bytes from root %d: first wrong byte %lld", n, root, wrong);
  free(data);
  MPI_Comm_free(&comm);
}

/* Several broadcasts started on a new communicator before any completes, completed in reverse order. */
static void queued_behind_setup(void) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  enum { k = 4 };
  int data[k][257];
  MPI_Request r[k];
  for (int i = 0; i < k; ++i) {
    const int root = i % P;
    for (int j = 0; j < 257; ++j) data[i][j] = me == root ? i * 1000 + j : -1;
    MPI_Ibcast(data[i], 257, MPI_INT, root, comm, &r[i]);
  }
  for (int i = k - 1; i >= 0; --i) MPI_Wait(&r[i], MPI_STATUS_IGNORE);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < 257; ++j)
      if (data[i][j] != i * 1000 + j) {
        CHECK(data[i][j] == i * 1000 + j, "queued broadcast %d: int %d is %d", i, j, data[i][j]);
        break;
      }
  MPI_Comm_free(&comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  late_first_ibcast(4, 0, 1);
  late_first_ibcast(4, P - 1, 2);
  late_first_ibcast(1 << 20, P - 1, 3);
  queued_behind_setup();
  return dropin_finish("dropin-first-ibcast");
}
