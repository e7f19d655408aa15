/* Every size, root and datatype: an ordinary program's MPI_Bcast and MPI_Ibcast must give the same results
 * with herald preloaded as with the MPI alone. For each datatype (predefined, contiguous, strided vector,
 * indexed, struct with a gap, resized), element count (0 to about 1 MiB) and root (first, middle, last), the
 * root fills its buffer with a pattern, the others with a sentinel; after the broadcast every byte the type
 * covers must be the root's and every gap byte the receiver's own. Then one broadcast on an intercommunicator,
 * which herald passes to MPI. Prints how many broadcasts it made. */
#include "dropin.h"

#include <complex.h>
#include <stddef.h>

static int me, P;

/* mask[i] = 1 where the type map of `count` elements of `type` covers byte i of a buffer of `span` bytes:
 * all-ones packed with the type and unpacked into zeros. */
static void type_mask(MPI_Datatype type, int count, size_t span, unsigned char* mask) {
  unsigned char* ones = malloc(span ? span : 1);
  memset(ones, 0xFF, span);
  memset(mask, 0, span);
  int packed_size = 0;
  MPI_Pack_size(count, type, MPI_COMM_SELF, &packed_size);
  char* packed = malloc(packed_size ? (size_t)packed_size : 1);
  int position = 0;
  MPI_Pack(ones, count, type, packed, packed_size, &position, MPI_COMM_SELF);
  position = 0;
  MPI_Unpack(packed, packed_size, &position, mask, count, type, MPI_COMM_SELF);
  for (size_t i = 0; i < span; ++i) mask[i] = mask[i] != 0;
  free(packed);
  free(ones);
}

static int broadcasts = 0;

static void one(MPI_Datatype type, const char* name, int count, int root, int nonblocking) {
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Type_get_true_extent(type, &true_lb, &true_extent);
  const size_t span = count > 0 ? (size_t)((count - 1) * extent + true_extent + true_lb) : 0;
  unsigned char* data = malloc(span ? span : 1);
  unsigned char* mask = malloc(span ? span : 1);
  type_mask(type, count, span, mask);
  const int salt = count % 97 + nonblocking;
  for (size_t i = 0; i < span; ++i) data[i] = me == root ? dropin_pattern(i, root, salt) : 0xEE;
  int rc;
  if (nonblocking) {
    MPI_Request request = MPI_REQUEST_NULL;
    rc = MPI_Ibcast(data, count, type, root, MPI_COMM_WORLD, &request);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    rc = MPI_Bcast(data, count, type, root, MPI_COMM_WORLD);
  }
  ++broadcasts;
  CHECK(rc == MPI_SUCCESS, "%s x %d from %d (%s): code %d", name, count, root, nonblocking ? "MPI_Ibcast" : "MPI_Bcast", rc);
  long long wrong = -1;
  for (size_t i = 0; i < span && wrong < 0; ++i) {
    const unsigned char expected = mask[i] || me == root ? dropin_pattern(i, root, salt) : 0xEE;
    if (data[i] != expected) wrong = (long long)i;
  }
  CHECK(wrong < 0, "%s x %d from %d (%s): byte %lld of %zu is wrong", name, count, root,
        nonblocking ? "MPI_Ibcast" : "MPI_Bcast", wrong, span);
  free(mask);
  free(data);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);

  MPI_Datatype contiguous, vector, indexed, record, resized;
  MPI_Type_contiguous(3, MPI_INT, &contiguous);
  MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &vector); /* 4 blocks of 2 doubles, stride 5: gaps */
  const int lengths[3] = {1, 3, 2}, displacements[3] = {0, 4, 11};
  MPI_Type_indexed(3, lengths, displacements, MPI_INT, &indexed);
  struct item { char tag; double value; int count; };
  const int struct_lengths[3] = {1, 1, 1};
  const MPI_Aint struct_offsets[3] = {offsetof(struct item, tag), offsetof(struct item, value), offsetof(struct item, count)};
  const MPI_Datatype struct_types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(3, struct_lengths, struct_offsets, struct_types, &record); /* padding after tag */
  MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &resized);                  /* one int every three */
  MPI_Datatype derived[] = {contiguous, vector, indexed, record, resized};
  for (int i = 0; i < 5; ++i) MPI_Type_commit(&derived[i]);

  struct { MPI_Datatype type; const char* name; } types[] = {
      {MPI_BYTE, "MPI_BYTE"},       {MPI_CHAR, "MPI_CHAR"},       {MPI_INT, "MPI_INT"},
      {MPI_DOUBLE, "MPI_DOUBLE"},   {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
      {derived[0], "contiguous(3, MPI_INT)"},  {derived[1], "vector(4, 2, 5, MPI_DOUBLE)"},
      {derived[2], "indexed(MPI_INT)"},        {derived[3], "struct{char, double, int}"},
      {derived[4], "resized(MPI_INT, extent 12)"}};
  /* Sizes from nothing to about 1 MiB, odd ones included, for any element size. */
  const int targets[] = {0, 1, 13, 1000, 65537, 1 << 20};
  const int roots[] = {0, P / 2, P - 1};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
    int type_size = 0;
    MPI_Type_size(types[t].type, &type_size);
    for (size_t s = 0; s < sizeof targets / sizeof targets[0]; ++s) {
      const int count = targets[s] == 0 ? 0 : (targets[s] + type_size - 1) / type_size;
      for (int r = 0; r < 3; ++r)
        for (int nonblocking = 0; nonblocking < 2; ++nonblocking) one(types[t].type, types[t].name, count, roots[r], nonblocking);
    }
  }
  for (int i = 0; i < 5; ++i) MPI_Type_free(&derived[i]);

  /* An intercommunicator broadcast, which herald passes to MPI: from rank 0 of the even ranks to the odd. */
  if (P >= 2) {
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 == 0 ? 1 : 0, 77, &inter);
    int value = me == 0 ? 4242 : -1;
    const int root = me % 2 == 1 ? 0 : (me == 0 ? MPI_ROOT : MPI_PROC_NULL);
    CHECK(MPI_Bcast(&value, 1, MPI_INT, root, inter) == MPI_SUCCESS, "the intercommunicator broadcast");
    CHECK(value == (me % 2 == 1 || me == 0 ? 4242 : -1), "intercommunicator broadcast: got %d", value);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }
  if (me == 0) printf("sweep: %d broadcasts on MPI_COMM_WORLD, 1 on an intercommunicator\n", broadcasts);
  return dropin_finish("sweep");
}
