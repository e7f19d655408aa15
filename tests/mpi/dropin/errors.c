/* Errors under MPI_ERRORS_RETURN, as herald reports them through the drop-in:
 *  - MPI_Error_string gives herald's own message, MPI_Error_class the usual class;
 *  - a call refused on some ranks only (a null buffer on the non-roots, or on one forwarding rank) ends on
 *    every rank, and leaves later calls correct;
 *  - counts that differ between ranks (MPICH's bcastlength) are reported by the ranks that receive, and
 *    every rank leaves the call, whatever the algorithm (HERALD_ALGORITHM);
 *  - nothing reaches MPI after MPI_Finalize.
 * With HERALD_BAD_SETTING naming a variable set to a bad value, checks only that the first broadcast
 * reports it, naming the variable and quoting the value. */
#include "dropin.h"

static int me, P;

static int message_has(int code, const char* words) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  if (strstr(text, words) != NULL) return 1;
  fprintf(stderr, "rank %d: the error string \"%s\" does not mention \"%s\"\n", me, text, words);
  return 0;
}

static void valid_broadcasts(int salt) {
  for (size_t n = 16; n <= 400000; n *= 25) {
    for (int root = 0; root < P; root += P > 1 ? P - 1 : 1) {
      unsigned char* data = calloc(n, 1);
      if (me == root) dropin_fill(data, n, root, salt);
      const int rc = MPI_Bcast(data, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
      CHECK(rc == MPI_SUCCESS, "valid broadcast of %zu bytes: error class %d", n, dropin_error_class(rc));
      const long long wrong = dropin_first_wrong(data, n, root, salt);
      CHECK(wrong < 0, "valid broadcast of %zu bytes from %d after errors: first wrong byte %lld", n, root, wrong);
      free(data);
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x[10] = {0};

  const char* setting = getenv("HERALD_BAD_SETTING");
  if (setting != NULL) {
    const char* value = getenv(setting);
    const int rc = MPI_Bcast(x, 10, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(dropin_error_class(rc) == MPI_ERR_ARG, "bad %s: error class %d", setting, dropin_error_class(rc));
    CHECK(rc != MPI_SUCCESS && message_has(rc, setting), "the message names the variable");
    CHECK(value != NULL && rc != MPI_SUCCESS && message_has(rc, value), "the message quotes the value");
    return dropin_finish("dropin-errors");
  }

  /* A root outside the communicator: class MPI_ERR_ROOT, and the message says which root. */
  int rc = MPI_Bcast(x, 10, MPI_INT, P + 3, MPI_COMM_WORLD);
  CHECK(dropin_error_class(rc) == MPI_ERR_ROOT, "root %d: error class %d", P + 3, dropin_error_class(rc));
  char root_words[32];
  snprintf(root_words, sizeof root_words, "root %d", P + 3);
  CHECK(rc != MPI_SUCCESS && message_has(rc, root_words), "the message names the root");

  /* An invalid count: class MPI_ERR_COUNT. */
  rc = MPI_Bcast(x, -2, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(dropin_error_class(rc) == MPI_ERR_COUNT, "count -2: error class %d", dropin_error_class(rc));

  /* Refused on the non-roots only. */
  rc = MPI_Bcast(me == 0 ? x : NULL, 10, MPI_INT, 0, MPI_COMM_WORLD);
  if (me != 0) CHECK(dropin_error_class(rc) == MPI_ERR_BUFFER, "null buffer: class %d", dropin_error_class(rc));
  valid_broadcasts(1);

  /* Refused on rank 1 only, which forwards in most algorithms; then on the root only. The ranks that wait
   * for the refusing one get an error or the data, never a hang, and nobody gets wrong data silently. */
  for (int refusing = 1; refusing >= 0; --refusing) {
    int y[1000];
    for (int i = 0; i < 1000; ++i) y[i] = me == 0 ? i : -1;
    rc = MPI_Bcast(me == refusing ? NULL : y, 1000, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == refusing) {
      CHECK(dropin_error_class(rc) == MPI_ERR_BUFFER, "null buffer on rank %d: class %d", me, dropin_error_class(rc));
    } else if (rc == MPI_SUCCESS && refusing != 0) {
      for (int i = 0; i < 1000; ++i) CHECK(y[i] == i, "rank %d reported success but y[%d] = %d", me, i, y[i]);
    } else if (refusing == 0 && me != 0) {
      CHECK(rc != MPI_SUCCESS, "the root refused, yet rank %d reported success", me);
    }
    valid_broadcasts(3 + refusing);
  }

  /* Counts that differ between the root and the others, both ways. */
  rc = MPI_Bcast(x, me == 0 ? 1 : 10, MPI_INT, 0, MPI_COMM_WORLD);
  if (me != 0) CHECK(rc != MPI_SUCCESS, "a receive of 4 bytes where 40 were expected was not reported");
  rc = MPI_Bcast(x, me == 0 ? 10 : 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (me != 0) CHECK(rc != MPI_SUCCESS, "a message of 40 bytes into a 4-byte buffer was not reported");
  valid_broadcasts(2);
  /* Wider: chunks of a scatter fall on different bytes; and from the last rank. */
  int z[1000];
  rc = MPI_Bcast(z, me == P - 1 ? 1000 : 3 * P + 1, MPI_INT, P - 1, MPI_COMM_WORLD);
  if (me != P - 1) CHECK(rc != MPI_SUCCESS, "%d ints where the root sent 1000 was not reported", 3 * P + 1);
  valid_broadcasts(5);

  /* Through node memory, counts that cut the broadcast into different numbers of pieces, both ways, also end
   * on every rank and leave later calls correct: the readers take the writer's pieces, no more, no fewer.
   * Only where every rank shares one node: between nodes such counts leave messages unmatched, as with
   * every algorithm (docs/coll.md). */
  const char* algorithm = getenv("HERALD_ALGORITHM");
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  if (algorithm != NULL && strcmp(algorithm, "node_shared") == 0 && node_size == P &&
      getenv("HERALD_EMULATE_NODES") == NULL) {
    int* w = malloc(300000 * sizeof(int));
    CHECK(w != NULL, "out of memory");
    rc = MPI_Bcast(w, me == 0 ? 300000 : 100000, MPI_INT, 0, MPI_COMM_WORLD);
    if (me != 0) CHECK(rc != MPI_SUCCESS, "100000 ints where the root sent 300000 was not reported");
    valid_broadcasts(6);
    rc = MPI_Bcast(w, me == 0 ? 100000 : 300000, MPI_INT, 0, MPI_COMM_WORLD);
    if (me != 0) CHECK(rc != MPI_SUCCESS, "300000 ints where the root sent 100000 was not reported");
    valid_broadcasts(7);
    free(w);
  }

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return dropin_finish("dropin-errors");
}
