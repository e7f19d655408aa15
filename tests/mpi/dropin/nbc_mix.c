/* Random mixes of nonblocking collectives on several communicators, MPI_Ibcast and MPI_Bcast among them,
 * completed by every wait and test form. Every rank draws the same sequence of operations from the seed, so
 * the program is correct MPI: collectives start in the same order on every member of each communicator.
 * Every result is checked. Under the drop-in, herald's messages must never be matched by another
 * collective's receives, nor theirs by herald's.
 *
 *   nbc_mix [SEED [OPERATIONS]]      (defaults 1 and 300) */
#include "dropin.h"

#include <stdint.h>

static int me, P;

/* xorshift64*: the same stream on every rank for the operations; another for completion choices, which may
 * differ between ranks (MPI_Waitany and MPI_Testsome complete different requests on different ranks). */
static uint64_t next(uint64_t* state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 2685821657736338717ULL;
}
static int below(uint64_t* state, int n) { return (int)(next(state) % (uint64_t)n); }

enum kind {
  IBCAST, BCAST, IALLREDUCE, IBARRIER, IGATHER, ISCATTER, IALLGATHER, IALLTOALL, IREDUCE, ISCAN, IEXSCAN,
  IREDUCE_SCATTER_BLOCK, IGATHERV, ALLREDUCE, KINDS
};
static const char* names[KINDS] = {"MPI_Ibcast", "MPI_Bcast", "MPI_Iallreduce", "MPI_Ibarrier", "MPI_Igather",
                                   "MPI_Iscatter", "MPI_Iallgather", "MPI_Ialltoall", "MPI_Ireduce", "MPI_Iscan",
                                   "MPI_Iexscan", "MPI_Ireduce_scatter_block", "MPI_Igatherv", "MPI_Allreduce"};

/* One operation in flight: what it was, on which communicator, and the buffers to check once complete. */
struct op {
  enum kind kind;
  int comm, root, n, salt, id;
  int *send, *recv, *counts, *displs;
  unsigned char* bytes;
};

enum { communicators = 5, most_in_flight = 12 };
static MPI_Comm comms[communicators];
static const char* comm_names[communicators] = {"MPI_COMM_WORLD", "a duplicate", "halves", "reversed",
                                                "an MPI_Comm_idup"};

static int value(int rank, int i, int salt) { return (rank + 1) * 1000 + i * 7 + salt; }

/* Starts operation `id` as drawn from `ops`; on communicator `only` when it is not negative. */
static void start(struct op* o, uint64_t* ops, int id, int only, MPI_Request* request) {
  o->id = id;
  o->kind = (enum kind)below(ops, KINDS);
  o->comm = below(ops, communicators);
  if (only >= 0) o->comm = only;
  o->salt = below(ops, 100000);
  /* Mostly small, sometimes above the eager limits of both MPIs. */
  o->n = below(ops, 8) == 0 ? 20000 + below(ops, 30000) : below(ops, 300);
  const int root_draw = below(ops, 1 << 20);
  MPI_Comm c = comms[o->comm];
  int r = 0, size = 1;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &size);
  o->root = root_draw % size;
  const int n = o->n;
  o->send = o->recv = o->counts = o->displs = NULL;
  o->bytes = NULL;
  *request = MPI_REQUEST_NULL;
  switch (o->kind) {
    case IBCAST:
    case BCAST:
      o->bytes = calloc((size_t)n * 4 + 1, 1);
      if (r == o->root) dropin_fill(o->bytes, (size_t)n * 4, o->root, o->salt);
      if (o->kind == IBCAST)
        MPI_Ibcast(o->bytes, n * 4, MPI_BYTE, o->root, c, request);
      else
        MPI_Bcast(o->bytes, n * 4, MPI_BYTE, o->root, c);
      break;
    case IALLREDUCE:
    case IREDUCE:
    case ISCAN:
    case IEXSCAN:
    case ALLREDUCE:
      o->send = malloc(sizeof(int) * (size_t)(n + 1));
      o->recv = malloc(sizeof(int) * (size_t)(n + 1));
      for (int i = 0; i < n; ++i) o->send[i] = value(r, i, o->salt), o->recv[i] = -1;
      if (o->kind == IALLREDUCE) MPI_Iallreduce(o->send, o->recv, n, MPI_INT, MPI_SUM, c, request);
      if (o->kind == IREDUCE) MPI_Ireduce(o->send, o->recv, n, MPI_INT, MPI_SUM, o->root, c, request);
      if (o->kind == ISCAN) MPI_Iscan(o->send, o->recv, n, MPI_INT, MPI_SUM, c, request);
      if (o->kind == IEXSCAN) MPI_Iexscan(o->send, o->recv, n, MPI_INT, MPI_SUM, c, request);
      if (o->kind == ALLREDUCE) MPI_Allreduce(o->send, o->recv, n, MPI_INT, MPI_SUM, c);
      break;
    case IBARRIER:
      MPI_Ibarrier(c, request);
      break;
    case IGATHER:
    case IALLGATHER:
    case IGATHERV:
      o->send = malloc(sizeof(int) * (size_t)(n + 1));
      o->recv = malloc(sizeof(int) * (size_t)(n + 1) * (size_t)size);
      o->counts = malloc(sizeof(int) * (size_t)size);
      o->displs = malloc(sizeof(int) * (size_t)size);
      for (int i = 0; i < n; ++i) o->send[i] = value(r, i, o->salt);
      for (int i = 0; i < n * size; ++i) o->recv[i] = -1;
      /* Igatherv: rank k gives n - k % 3 elements (at least 0), packed one after another. */
      for (int k = 0, at = 0; k < size; ++k) {
        o->counts[k] = n - k % 3 < 0 ? 0 : n - k % 3;
        o->displs[k] = at;
        at += o->counts[k];
      }
      if (o->kind == IGATHER) MPI_Igather(o->send, n, MPI_INT, o->recv, n, MPI_INT, o->root, c, request);
      if (o->kind == IALLGATHER) MPI_Iallgather(o->send, n, MPI_INT, o->recv, n, MPI_INT, c, request);
      if (o->kind == IGATHERV)
        MPI_Igatherv(o->send, o->counts[r], MPI_INT, o->recv, o->counts, o->displs, MPI_INT, o->root, c, request);
      break;
    case ISCATTER:
    case IALLTOALL:
    case IREDUCE_SCATTER_BLOCK:
      o->send = malloc(sizeof(int) * (size_t)(n + 1) * (size_t)size);
      o->recv = malloc(sizeof(int) * (size_t)(n + 1));
      /* Block k of rank r's send buffer is meant for rank k. */
      for (int k = 0; k < size; ++k)
        for (int i = 0; i < n; ++i) o->send[k * n + i] = value(r, i, o->salt) + k * 13;
      for (int i = 0; i < n; ++i) o->recv[i] = -1;
      if (o->kind == ISCATTER) MPI_Iscatter(o->send, n, MPI_INT, o->recv, n, MPI_INT, o->root, c, request);
      if (o->kind == IALLTOALL) {
        free(o->recv);
        o->recv = malloc(sizeof(int) * (size_t)(n + 1) * (size_t)size);
        MPI_Ialltoall(o->send, n, MPI_INT, o->recv, n, MPI_INT, c, request);
      }
      if (o->kind == IREDUCE_SCATTER_BLOCK) MPI_Ireduce_scatter_block(o->send, o->recv, n, MPI_INT, MPI_SUM, c, request);
      break;
    default:
      break;
  }
}

/* Checks a completed operation's results and frees its buffers. */
static void verify(struct op* o) {
  MPI_Comm c = comms[o->comm];
  int r = 0, size = 1;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &size);
  const int n = o->n;
  int wrong = -1;
  switch (o->kind) {
    case IBCAST:
    case BCAST:
      wrong = (int)dropin_first_wrong(o->bytes, (size_t)n * 4, o->root, o->salt);
      break;
    case IALLREDUCE:
    case ALLREDUCE:
    case IREDUCE:
    case ISCAN:
    case IEXSCAN: {
      /* Ranks 0..last contribute; sum over k of (k + 1) * 1000 + i * 7 + salt. */
      int last = size - 1, checked = 1;
      if (o->kind == IREDUCE) checked = r == o->root;
      if (o->kind == ISCAN) last = r;
      if (o->kind == IEXSCAN) last = r - 1, checked = r > 0;
      if (checked)
        for (int i = 0; i < n && wrong < 0; ++i) {
          int sum = 0;
          for (int k = 0; k <= last; ++k) sum += value(k, i, o->salt);
          if (o->recv[i] != sum) wrong = i;
        }
      break;
    }
    case IGATHER:
    case IALLGATHER:
      if (o->kind == IALLGATHER || r == o->root)
        for (int k = 0; k < size && wrong < 0; ++k)
          for (int i = 0; i < n; ++i)
            if (o->recv[k * n + i] != value(k, i, o->salt)) {
              wrong = k * n + i;
              break;
            }
      break;
    case IGATHERV:
      if (r == o->root)
        for (int k = 0; k < size && wrong < 0; ++k)
          for (int i = 0; i < o->counts[k]; ++i)
            if (o->recv[o->displs[k] + i] != value(k, i, o->salt)) {
              wrong = o->displs[k] + i;
              break;
            }
      break;
    case ISCATTER:
      for (int i = 0; i < n && wrong < 0; ++i)
        if (o->recv[i] != value(o->root, i, o->salt) + r * 13) wrong = i;
      break;
    case IALLTOALL:
      for (int k = 0; k < size && wrong < 0; ++k)
        for (int i = 0; i < n; ++i)
          if (o->recv[k * n + i] != value(k, i, o->salt) + r * 13) {
            wrong = k * n + i;
            break;
          }
      break;
    case IREDUCE_SCATTER_BLOCK:
      for (int i = 0; i < n && wrong < 0; ++i) {
        int sum = 0;
        for (int k = 0; k < size; ++k) sum += value(k, i, o->salt) + r * 13;
        if (o->recv[i] != sum) wrong = i;
      }
      break;
    default:
      break;
  }
  CHECK(wrong < 0, "operation %d, %s of %d on %s (root %d): first wrong element %d", o->id, names[o->kind], n,
        comm_names[o->comm], o->root, wrong);
  free(o->send);
  free(o->recv);
  free(o->counts);
  free(o->displs);
  free(o->bytes);
}

static struct op flight[most_in_flight];
static MPI_Request requests[most_in_flight];
static int in_flight = 0;

/* Drops the completed entry k (its request is MPI_REQUEST_NULL now), checking it. */
static void retire(int k) {
  verify(&flight[k]);
  flight[k] = flight[in_flight - 1];
  requests[k] = requests[in_flight - 1];
  --in_flight;
}

/* Completes some or all of the operations in flight, by a form drawn from `choice`. */
static void complete_some(uint64_t* choice, int all) {
  int form = below(choice, 9);
  if (all) form = below(choice, 3);
  MPI_Status statuses[most_in_flight];
  int indices[most_in_flight], outcount = 0, index = 0, flag = 0;
  switch (form) {
    case 0: /* MPI_Waitall */
      MPI_Waitall(in_flight, requests, statuses);
      while (in_flight > 0) retire(in_flight - 1);
      return;
    case 1: /* MPI_Testall until true */
      while (!flag) MPI_Testall(in_flight, requests, &flag, MPI_STATUSES_IGNORE);
      while (in_flight > 0) retire(in_flight - 1);
      return;
    case 2: /* MPI_Wait on each, last first */
      while (in_flight > 0) {
        MPI_Wait(&requests[in_flight - 1], &statuses[0]);
        retire(in_flight - 1);
      }
      return;
    case 3: /* MPI_Waitany */
      MPI_Waitany(in_flight, requests, &index, &statuses[0]);
      CHECK(index >= 0 && index < in_flight, "MPI_Waitany returned index %d of %d", index, in_flight);
      if (index >= 0 && index < in_flight) retire(index);
      return;
    case 4: /* MPI_Testany until one */
      while (!flag) MPI_Testany(in_flight, requests, &index, &flag, MPI_STATUS_IGNORE);
      CHECK(index >= 0 && index < in_flight, "MPI_Testany returned index %d of %d", index, in_flight);
      if (index >= 0 && index < in_flight) retire(index);
      return;
    case 5: /* MPI_Waitsome */
    case 6: /* MPI_Testsome until some */
      while (outcount == 0) {
        if (form == 5)
          MPI_Waitsome(in_flight, requests, &outcount, indices, statuses);
        else
          MPI_Testsome(in_flight, requests, &outcount, indices, MPI_STATUSES_IGNORE);
      }
      CHECK(outcount > 0, "MPI_Waitsome/Testsome found none of %d active", in_flight);
      /* Highest index first, so that retiring one moves no other that is still to retire. */
      for (int i = 0; i < outcount; ++i)
        for (int j = i + 1; j < outcount; ++j)
          if (indices[j] > indices[i]) {
            const int t = indices[i];
            indices[i] = indices[j];
            indices[j] = t;
          }
      for (int i = 0; i < outcount; ++i) retire(indices[i]);
      return;
    case 7: /* MPI_Test on the oldest until done */
      while (!flag) MPI_Test(&requests[0], &flag, MPI_STATUS_IGNORE);
      retire(0);
      return;
    default: /* MPI_Request_get_status until done, then MPI_Wait frees */
      while (!flag) MPI_Request_get_status(requests[0], &flag, MPI_STATUS_IGNORE);
      MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
      retire(0);
      return;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
  const int operations = argc > 2 ? atoi(argv[2]) : 300;
  uint64_t ops = seed * 0x9E3779B97F4A7C15ULL + 1, choice = ops ^ ((uint64_t)me << 32);
  comms[0] = MPI_COMM_WORLD;
  /* The first operations run on MPI_COMM_WORLD while the other communicators are made. */
  for (int i = 0; i < 3; ++i) {
    struct op* o = &flight[in_flight];
    start(o, &ops, -1 - i, 0, &requests[in_flight]);
    if (requests[in_flight] == MPI_REQUEST_NULL)
      verify(o);
    else
      ++in_flight;
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &comms[2]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, P - me, &comms[3]);
  MPI_Request idup;
  MPI_Comm_idup(MPI_COMM_WORLD, &comms[4], &idup);
  MPI_Wait(&idup, MPI_STATUS_IGNORE);

  for (int id = 0; id < operations; ++id) {
    if (in_flight == most_in_flight || (in_flight > 0 && below(&choice, 4) == 0)) complete_some(&choice, 0);
    struct op* o = &flight[in_flight];
    start(o, &ops, id, -1, &requests[in_flight]);
    if (requests[in_flight] == MPI_REQUEST_NULL)
      verify(o);  /* a blocking one */
    else
      ++in_flight;
  }
  while (in_flight > 0) complete_some(&choice, 1);
  for (int k = 1; k < communicators; ++k) MPI_Comm_free(&comms[k]);
  char name[64];
  snprintf(name, sizeof name, "nbc_mix seed %llu", (unsigned long long)seed);
  return dropin_finish(name);
}
