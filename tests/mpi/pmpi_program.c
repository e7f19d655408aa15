/* An ordinary MPI program: MPI_Bcast and MPI_Ibcast with the usual completion calls. Run against
 * libherald_pmpi (linked or LD_PRELOADed) with HERALD_EXPECT_PMPI=1, it also checks that herald was in the
 * path. Exit status 0 when every rank saw the right data. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const int* v, int n, int root, int salt) {
  for (int i = 0; i < n; ++i)
    if (v[i] != i * 7 + root * 13 + salt) return 0;
  return 1;
}

static void fill(int* v, int n, int root, int salt) {
  for (int i = 0; i < n; ++i) v[i] = i * 7 + root * 13 + salt;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, P = 1, ok = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int n = 100003;
  int* a = malloc(sizeof(int) * n);
  int* b = malloc(sizeof(int) * n);
  int* c = malloc(sizeof(int) * n);

  /* Blocking, from every root. */
  for (int root = 0; root < P; ++root) {
    memset(a, 0, sizeof(int) * n);
    if (me == root) fill(a, n, root, 1);
    MPI_Bcast(a, n, MPI_INT, root, MPI_COMM_WORLD);
    ok &= check(a, n, root, 1);
  }

  /* Nonblocking: MPI_Wait, MPI_Waitall, and a MPI_Test loop. */
  memset(a, 0, sizeof(int) * n);
  memset(b, 0, sizeof(int) * n);
  memset(c, 0, sizeof(int) * n);
  MPI_Request r[3];
  if (me == 0) fill(a, n, 0, 2);
  if (me == P - 1) fill(b, n, P - 1, 3);
  if (me == P / 2) fill(c, n, P / 2, 4);
  MPI_Ibcast(a, n, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Ibcast(b, n, MPI_INT, P - 1, MPI_COMM_WORLD, &r[1]);
  MPI_Ibcast(c, n, MPI_INT, P / 2, MPI_COMM_WORLD, &r[2]);
  int done = 0;
  while (!done) MPI_Test(&r[2], &done, MPI_STATUS_IGNORE);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  ok &= r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && r[2] == MPI_REQUEST_NULL;
  ok &= check(a, n, 0, 2) && check(b, n, P - 1, 3) && check(c, n, P / 2, 4);

  MPI_Request one;
  memset(a, 0, sizeof(int) * n);
  if (me == P - 1) fill(a, n, P - 1, 5);
  MPI_Ibcast(a, n, MPI_INT, P - 1, MPI_COMM_WORLD, &one);
  MPI_Wait(&one, MPI_STATUS_IGNORE);
  ok &= check(a, n, P - 1, 5);

  const char* expect = getenv("HERALD_EXPECT_PMPI");
  if (expect != NULL && strcmp(expect, "1") == 0) {
    long long (*calls)(void) = (long long (*)(void))dlsym(RTLD_DEFAULT, "herald_pmpi_calls");
    if (calls == NULL || calls() != P + 4) {
      fprintf(stderr, "rank %d: herald was not in the path (%lld broadcasts intercepted)\n", me,
              calls ? calls() : -1LL);
      ok = 0;
    }
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (me == 0) printf(all ? "pmpi program: data correct on every rank\n" : "pmpi program: FAILED\n");
  free(a);
  free(b);
  free(c);
  MPI_Finalize();
  return all ? 0 : 1;
}
