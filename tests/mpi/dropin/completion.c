/* Every completion call MPI offers, on MPI_Ibcast requests: MPI_Request_get_status, MPI_Wait/Test and their
 * all/any/some forms, mixed with point-to-point requests, at a small and a large size. */
#include "dropin.h"

static int me, P;

enum { count = 3 };

static void start(unsigned char* data[count], size_t n, int salt, MPI_Request r[count]) {
  for (int k = 0; k < count; ++k) {
    const int root = (k * (P - 1)) % P;
    memset(data[k], 0, n);
    if (me == root) dropin_fill(data[k], n, root, salt + k);
    MPI_Ibcast(data[k], (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &r[k]);
  }
}

static void verify(unsigned char* data[count], size_t n, int salt, const char* how) {
  for (int k = 0; k < count; ++k) {
    const long long wrong = dropin_first_wrong(data[k], n, (k * (P - 1)) % P, salt + k);
    CHECK(wrong < 0, "%s, %zu bytes, broadcast %d: first wrong byte %lld", how, n, k, wrong);
  }
}

static void every_completion_call(size_t n) {
  unsigned char* data[count];
  for (int k = 0; k < count; ++k) data[k] = malloc(n);
  MPI_Request r[count];
  MPI_Status statuses[count];

  /* MPI_Request_get_status reports completion without freeing; MPI_Wait then frees at once. */
  start(data, n, 10, r);
  for (int k = 0; k < count; ++k) {
    int flag = 0;
    long long polls = 0;
    while (!flag && polls < 200000000LL) {
      MPI_Request_get_status(r[k], &flag, MPI_STATUS_IGNORE);
      ++polls;
    }
    CHECK(flag, "MPI_Request_get_status never reported completion (%zu bytes)", n);
    CHECK(r[k] != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
    MPI_Wait(&r[k], MPI_STATUS_IGNORE);
    CHECK(r[k] == MPI_REQUEST_NULL, "MPI_Wait left the request set");
  }
  verify(data, n, 10, "MPI_Request_get_status");

  /* MPI_Testany until all are done: each index once. */
  start(data, n, 20, r);
  int seen[count] = {0}, done = 0;
  while (done < count) {
    int index = MPI_UNDEFINED, flag = 0;
    MPI_Testany(count, r, &index, &flag, MPI_STATUS_IGNORE);
    if (flag && index != MPI_UNDEFINED) {
      CHECK(index >= 0 && index < count && !seen[index], "MPI_Testany returned index %d", index);
      if (index >= 0 && index < count) seen[index] = 1;
      ++done;
    }
    if (flag && index == MPI_UNDEFINED) break;
  }
  CHECK(done == count, "MPI_Testany completed %d of %d", done, count);
  verify(data, n, 20, "MPI_Testany");

  /* MPI_Waitany, then MPI_Waitsome, then MPI_Testsome, with statuses. */
  start(data, n, 30, r);
  int index = -1;
  MPI_Waitany(count, r, &index, &statuses[0]);
  CHECK(index >= 0 && index < count && r[index] == MPI_REQUEST_NULL, "MPI_Waitany returned index %d", index);
  int left = count - 1;
  while (left > 0) {
    int outcount = 0, indices[count];
    if (left == count - 1)
      MPI_Waitsome(count, r, &outcount, indices, statuses);
    else
      MPI_Testsome(count, r, &outcount, indices, statuses);
    CHECK(outcount != MPI_UNDEFINED, "MPI_Waitsome/Testsome found no active request with %d left", left);
    if (outcount == MPI_UNDEFINED) break;
    left -= outcount;
  }
  verify(data, n, 30, "MPI_Waitany/Waitsome/Testsome");

  /* MPI_Testall and MPI_Waitall over broadcasts and point-to-point requests together. */
  start(data, n, 40, r);
  int token = me, got = -1;
  MPI_Request mixed[count + 2];
  for (int k = 0; k < count; ++k) mixed[k] = r[k];
  MPI_Irecv(&got, 1, MPI_INT, (me + P - 1) % P, 5, MPI_COMM_WORLD, &mixed[count]);
  MPI_Isend(&token, 1, MPI_INT, (me + 1) % P, 5, MPI_COMM_WORLD, &mixed[count + 1]);
  int all = 0;
  MPI_Testall(count + 2, mixed, &all, MPI_STATUSES_IGNORE);
  if (!all) MPI_Waitall(count + 2, mixed, MPI_STATUSES_IGNORE);
  for (int k = 0; k < count + 2; ++k) CHECK(mixed[k] == MPI_REQUEST_NULL, "request %d left set", k);
  CHECK(got == (me + P - 1) % P, "point-to-point token %d", got);
  verify(data, n, 40, "MPI_Waitall mixed");

  /* MPI_Test on one request at a time. */
  start(data, n, 50, r);
  for (int k = count - 1; k >= 0; --k) {
    int flag = 0;
    while (!flag) MPI_Test(&r[k], &flag, MPI_STATUS_IGNORE);
  }
  verify(data, n, 50, "MPI_Test");

  for (int k = 0; k < count; ++k) free(data[k]);
}

/* MPI_Cancel of a broadcast is refused (MPI calls it erroneous), and the broadcast goes on. */
static void cancel_and_free(void) {
  enum { n = 4099 };
  unsigned char* a = calloc(n, 1);
  if (me == 0) dropin_fill(a, n, 0, 60);
  MPI_Request r;
  MPI_Ibcast(a, n, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = MPI_Cancel(&r);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(rc != MPI_SUCCESS, "MPI_Cancel of a broadcast was not refused");
  if (dropin_expect_herald()) CHECK(dropin_error_class(rc) == MPI_ERR_REQUEST, "class %d", dropin_error_class(rc));
  MPI_Status status;
  MPI_Wait(&r, &status);
  CHECK(dropin_first_wrong(a, n, 0, 60) < 0, "after a refused MPI_Cancel: wrong data");
  free(a);
}

/* MPI calls freeing a collective's request erroneous too; MPICH refuses it, herald lets the broadcast complete,
 * at the latest in MPI_Finalize: main() checks the buffer after MPI_Finalize has returned. */
enum { freed_bytes = 4099, freed_salt = 61 };
static unsigned char* freed;

static void start_and_free(void) {
  freed = calloc(freed_bytes, 1);
  if (me == P - 1) dropin_fill(freed, freed_bytes, P - 1, freed_salt);
  MPI_Request r;
  MPI_Ibcast(freed, freed_bytes, MPI_BYTE, P - 1, MPI_COMM_WORLD, &r);
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the request set");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  every_completion_call(4);
  every_completion_call(1 << 20);
  cancel_and_free();
  const int herald = dropin_expect_herald();
  if (herald) start_and_free();
  int status = dropin_finish("dropin-completion");
  if (herald && dropin_first_wrong(freed, freed_bytes, P - 1, freed_salt) >= 0) {
    fprintf(stderr, "rank %d: FAILED: the freed broadcast had not delivered when MPI_Finalize returned\n", me);
    status = 1;
  }
  free(freed);
  return status;
}
