/* Helpers shared by the drop-in test programs: ordinary MPI programs that know nothing of herald. Each is
 * run twice, with libherald_pmpi.so preloaded (HERALD_EXPECT_PMPI=1: it must be in the path) and without it
 * (the MPI's own MPI_Bcast must pass the same checks, so a check cannot be wrong about MPI).
 *
 * CHECK(cond, ...) records a failure on this rank with a message; finish() agrees on a verdict over
 * MPI_COMM_WORLD, prints it on rank 0, finalizes and returns the exit status. */
#ifndef HERALD_TESTS_DROPIN_H
#define HERALD_TESTS_DROPIN_H

#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dropin_failures = 0;

#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      int check_rank_ = -1;                                                     \
      MPI_Comm_rank(MPI_COMM_WORLD, &check_rank_);                              \
      fprintf(stderr, "rank %d: %s:%d: %s: ", check_rank_, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n");                                                    \
      ++dropin_failures;                                                        \
    }                                                                           \
  } while (0)

/* The byte pattern a broadcast from `root` with `salt` carries at offset i. */
static inline unsigned char dropin_pattern(size_t i, int root, int salt) {
  return (unsigned char)((i * 131u + (size_t)root * 7u + (size_t)salt) % 251u);
}

static inline void dropin_fill(void* data, size_t bytes, int root, int salt) {
  unsigned char* p = (unsigned char*)data;
  for (size_t i = 0; i < bytes; ++i) p[i] = dropin_pattern(i, root, salt);
}

/* Index of the first wrong byte, or -1. */
static inline long long dropin_first_wrong(const void* data, size_t bytes, int root, int salt) {
  const unsigned char* p = (const unsigned char*)data;
  for (size_t i = 0; i < bytes; ++i)
    if (p[i] != dropin_pattern(i, root, salt)) return (long long)i;
  return -1;
}

static inline int dropin_error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

/* True when the test runs with libherald_pmpi preloaded and must see herald in the path. */
static inline int dropin_expect_herald(void) {
  const char* expect = getenv("HERALD_EXPECT_PMPI");
  return expect != NULL && strcmp(expect, "1") == 0;
}

/* Broadcasts herald intercepted so far in this process, -1 without herald. */
static inline long long dropin_herald_calls(void) {
  long long (*calls)(void) = (long long (*)(void))dlsym(RTLD_DEFAULT, "herald_pmpi_calls");
  return calls ? calls() : -1;
}

static inline int dropin_finish(const char* name) {
  if (dropin_expect_herald() && dropin_herald_calls() <= 0) {
    fprintf(stderr, "%s: herald was not in the path\n", name);
    ++dropin_failures;
  }
  int mine = dropin_failures, all = 0, rank = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf(all == 0 ? "%s: passed\n" : "%s: FAILED (%d failures)\n", name, all);
  fflush(stdout);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}

#endif
