/* Datatypes as MPI defines them: uncommitted types refused with MPI_ERR_TYPE on every rank before any byte
 * moves, MPI_BOTTOM with absolute addresses, and a derived type freed while a nonblocking broadcast that
 * uses it is still pending. */
#include "dropin.h"

static int me, P;

/* Broadcasts with an uncommitted type must fail with MPI_ERR_TYPE and leave the buffer alone. */
static void uncommitted(MPI_Datatype type, const char* what) {
  int data[64];
  for (int i = 0; i < 64; ++i) data[i] = me == 0 ? i : -1;
  int rc = MPI_Bcast(data, 2, type, 0, MPI_COMM_WORLD);
  CHECK(dropin_error_class(rc) == MPI_ERR_TYPE, "MPI_Bcast with an uncommitted %s: error class %d", what,
        dropin_error_class(rc));
  MPI_Request request = MPI_REQUEST_NULL;
  rc = MPI_Ibcast(data, 2, type, 0, MPI_COMM_WORLD, &request);
  CHECK(dropin_error_class(rc) == MPI_ERR_TYPE, "MPI_Ibcast with an uncommitted %s: error class %d", what,
        dropin_error_class(rc));
  if (rc == MPI_SUCCESS) MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int i = 0; i < 64; ++i) CHECK(data[i] == (me == 0 ? i : -1), "%s: element %d changed", what, i);
}

/* A struct of two arrays described by their absolute addresses, broadcast from MPI_BOTTOM. */
static void absolute_addresses(int root) {
  int ints[10];
  double doubles[7];
  for (int i = 0; i < 10; ++i) ints[i] = me == root ? 3 * i + root : -1;
  for (int i = 0; i < 7; ++i) doubles[i] = me == root ? 0.5 * i + root : -1.0;
  MPI_Aint where[2];
  MPI_Get_address(ints, &where[0]);
  MPI_Get_address(doubles, &where[1]);
  int lengths[2] = {10, 7};
  MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE}, both;
  MPI_Type_create_struct(2, lengths, where, members, &both);
  MPI_Type_commit(&both);
  const int rc = MPI_Bcast(MPI_BOTTOM, 1, both, root, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "MPI_Bcast from MPI_BOTTOM: error class %d", dropin_error_class(rc));
  for (int i = 0; i < 10; ++i) CHECK(ints[i] == 3 * i + root, "MPI_BOTTOM: int %d is %d", i, ints[i]);
  for (int i = 0; i < 7; ++i) CHECK(doubles[i] == 0.5 * i + root, "MPI_BOTTOM: double %d is %g", i, doubles[i]);
  MPI_Type_free(&both);
}

/* Every other int of the buffer, `count` times; the type is freed before the broadcast completes (MPI keeps it
 * alive for the pending operation). */
static void freed_while_pending(int count, int root, int salt) {
  MPI_Datatype every_other;
  MPI_Type_vector(1000, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(every_other, &lb, &extent);
  const int n = (int)(extent / (MPI_Aint)sizeof(int)) * count + 1;
  int* data = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) data[i] = me == root ? i + salt : -7;
  MPI_Request request;
  const int rc = MPI_Ibcast(data, count, every_other, root, MPI_COMM_WORLD, &request);
  CHECK(rc == MPI_SUCCESS, "MPI_Ibcast of a vector: error class %d", dropin_error_class(rc));
  MPI_Type_free(&every_other);
  CHECK(every_other == MPI_DATATYPE_NULL, "MPI_Type_free did not reset the handle");
  if (rc == MPI_SUCCESS) MPI_Wait(&request, MPI_STATUS_IGNORE);
  const int per = (int)(extent / (MPI_Aint)sizeof(int));
  for (int i = 0; i < n; ++i) {
    const int in_element = i < per * count && (i % per) % 2 == 0;
    const int expected = me == root || in_element ? i + salt : -7;
    if (data[i] != expected) {
      CHECK(data[i] == expected, "freed type, count %d: int %d is %d, expected %d", count, i, data[i], expected);
      break;
    }
  }
  free(data);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Datatype vector, contiguous;
  MPI_Type_vector(4, 1, 2, MPI_INT, &vector);
  MPI_Type_contiguous(4, MPI_INT, &contiguous);
  uncommitted(vector, "vector");
  uncommitted(contiguous, "contiguous type");
  MPI_Type_free(&vector);
  MPI_Type_free(&contiguous);

  for (int root = 0; root < P; root += P > 2 ? P - 1 : 1) absolute_addresses(root);
  freed_while_pending(1, P - 1, 11);
  freed_while_pending(300, 0, 12);  /* 1.2 MB packed: the segmented algorithms */

  /* The communicator is still in order after the refusals. */
  int after[5] = {0, 0, 0, 0, 0};
  if (me == 0)
    for (int i = 0; i < 5; ++i) after[i] = 40 + i;
  CHECK(MPI_Bcast(after, 5, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "a valid broadcast after refusals");
  for (int i = 0; i < 5; ++i) CHECK(after[i] == 40 + i, "after the refusals: element %d is %d", i, after[i]);
  return dropin_finish("dropin-datatypes");
}
