/* A non-contiguous broadcast of more than 2^31 bytes: 262145 elements of a vector of two 4096-byte blocks
 * with a 4096-byte gap (2 GiB + 8 KiB of data in a 3.2 GB buffer per rank). The gaps must stay untouched. */
#include "dropin.h"

#include <stdint.h>

enum { block = 4096 };

/* The value the root puts at offset i (a function of the element, so misplaced pieces show). */
static unsigned char value(size_t i) { return (unsigned char)(i / block % 251 + 1); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int count = 262145, root = P - 1;
  MPI_Datatype pair;
  MPI_Type_vector(2, block, 2 * block, MPI_BYTE, &pair);
  MPI_Type_commit(&pair);
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(pair, &lb, &extent);
  const size_t bytes = (size_t)extent * (size_t)count;
  unsigned char* data = malloc(bytes);
  CHECK(data != NULL, "cannot allocate %zu bytes", bytes);
  if (data != NULL) {
    /* Non-roots get a marker everywhere; blocks are then checked at their first and last byte. */
    for (size_t i = 0; i < bytes; i += block) memset(data + i, me == root ? value(i) : 0xEE, block);
    const int rc = MPI_Bcast(data, count, pair, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "MPI_Bcast: error class %d", dropin_error_class(rc));
    long long wrong = -1;
    for (size_t i = 0; i < bytes && wrong < 0; i += block) {
      /* Blocks 0 and 2 of each 3-block element carry data; block 1 is the gap. */
      const int in_element = (i / block) % 3 != 1;
      const unsigned char expected = me == root || in_element ? value(i) : 0xEE;
      if (data[i] != expected || data[i + block - 1] != expected) wrong = (long long)i;
    }
    CHECK(wrong < 0, "first wrong block at byte %lld", wrong);
    free(data);
  }
  MPI_Type_free(&pair);
  return dropin_finish("dropin-large-noncontiguous");
}
