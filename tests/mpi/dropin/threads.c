/* MPI_THREAD_MULTIPLE: several threads per rank, each broadcasting on its own duplicate of MPI_COMM_WORLD at
 * the same time, blocking and nonblocking, with every completion call. Usage: dropin-threads [threads]. */
#include "dropin.h"

#include <pthread.h>

enum { rounds = 6 };
static const size_t sizes[] = {1, 100, 4099, 65539, (1u << 20) + 3};
static const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);

struct worker {
  int index;
  MPI_Comm comm;
  int failures;
};

static void expect_pattern(struct worker* w, const unsigned char* data, size_t bytes, int root, int salt,
                           const char* what) {
  const long long wrong = dropin_first_wrong(data, bytes, root, salt);
  if (wrong >= 0) {
    int rank = 0;
    MPI_Comm_rank(w->comm, &rank);
    fprintf(stderr, "rank %d thread %d: %s of %zu bytes from root %d: first wrong byte %lld\n", rank, w->index,
            what, bytes, root, wrong);
    ++w->failures;
  }
}

static void* run(void* arg) {
  struct worker* w = (struct worker*)arg;
  int me = 0, P = 1;
  MPI_Comm_rank(w->comm, &me);
  MPI_Comm_size(w->comm, &P);
  unsigned char* a = malloc(sizes[nsizes - 1]);
  unsigned char* b = malloc(sizes[nsizes - 1]);
  for (int round = 0; round < rounds; ++round)
    for (int s = 0; s < nsizes; ++s) {
      const size_t n = sizes[s];
      const int root = (round + s + w->index) % P, other = (root + 1) % P;
      const int salt = w->index * 1000 + round * 10 + s;

      memset(a, 0, n);
      if (me == root) dropin_fill(a, n, root, salt);
      MPI_Bcast(a, (int)n, MPI_BYTE, root, w->comm);
      expect_pattern(w, a, n, root, salt, "MPI_Bcast");

      MPI_Request r[2];
      memset(a, 0, n);
      memset(b, 0, n);
      if (me == root) dropin_fill(a, n, root, salt + 1);
      if (me == other) dropin_fill(b, n, other, salt + 2);
      MPI_Ibcast(a, (int)n, MPI_BYTE, root, w->comm, &r[0]);
      MPI_Ibcast(b, (int)n, MPI_BYTE, other, w->comm, &r[1]);
      switch ((round + s) % 3) {
        case 0: MPI_Waitall(2, r, MPI_STATUSES_IGNORE); break;
        case 1:
          MPI_Wait(&r[1], MPI_STATUS_IGNORE);
          MPI_Wait(&r[0], MPI_STATUS_IGNORE);
          break;
        default: {
          int done = 0;
          while (!done) MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        }
      }
      expect_pattern(w, a, n, root, salt + 1, "MPI_Ibcast");
      expect_pattern(w, b, n, other, salt + 2, "MPI_Ibcast");
    }
  free(a);
  free(b);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  CHECK(provided == MPI_THREAD_MULTIPLE, "the MPI library granted thread level %d", provided);
  CHECK(threads >= 1 && threads <= 16, "thread count %d", threads);
  if (provided == MPI_THREAD_MULTIPLE && threads >= 1 && threads <= 16) {
    struct worker workers[16];
    pthread_t ids[16];
    for (int t = 0; t < threads; ++t) {
      workers[t].index = t;
      workers[t].failures = 0;
      MPI_Comm_dup(MPI_COMM_WORLD, &workers[t].comm);
    }
    for (int t = 0; t < threads; ++t) pthread_create(&ids[t], NULL, run, &workers[t]);
    for (int t = 0; t < threads; ++t) {
      pthread_join(ids[t], NULL);
      dropin_failures += workers[t].failures;
      MPI_Comm_free(&workers[t].comm);
    }
  }
  return dropin_finish("dropin-threads");
}
