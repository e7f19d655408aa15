// Blocking calls that wait for other processes, made to keep herald's nonblocking broadcasts moving.
//
// MPI's progress rule lets a program start MPI_Ibcast, then block in another call (MPI_Recv, MPI_Allreduce)
// while a peer waits for this rank to forward the broadcast's data: the MPI's own broadcast would progress
// inside that call, herald's cannot unless the call is herald's. So while herald has broadcasts in flight:
//   - a blocking point-to-point call runs as its nonblocking form, polled with herald's progress (the two
//     forms match messages alike);
//   - a blocking collective first posts everything this rank owes to herald's broadcasts (settle()), then
//     blocks in the MPI library. It cannot be polled: a blocking collective never matches a nonblocking
//     one, and other ranks may have no broadcast in flight and call the blocking form.
// With nothing in flight each call goes straight to the MPI library.
#include "progress.hpp"

#include <mpi.h>

namespace {

using herald::pmpi::busy;
using herald::pmpi::progress;

// Polls `request` to completion with herald's progress between tests.
int poll(MPI_Request* request, MPI_Status* status) {
  for (;;) {
    progress();
    int done = 0;
    const int rc = PMPI_Test(request, &done, status);
    if (rc != MPI_SUCCESS || done) return rc;
  }
}

}  // namespace

extern "C" {

int MPI_Send(const void* buffer, int count, MPI_Datatype type, int to, int tag, MPI_Comm comm) {
  if (!busy()) return PMPI_Send(buffer, count, type, to, tag, comm);
  MPI_Request request;
  const int rc = PMPI_Isend(buffer, count, type, to, tag, comm, &request);
  return rc != MPI_SUCCESS ? rc : poll(&request, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void* buffer, int count, MPI_Datatype type, int to, int tag, MPI_Comm comm) {
  if (!busy()) return PMPI_Ssend(buffer, count, type, to, tag, comm);
  MPI_Request request;
  const int rc = PMPI_Issend(buffer, count, type, to, tag, comm, &request);
  return rc != MPI_SUCCESS ? rc : poll(&request, MPI_STATUS_IGNORE);
}

int MPI_Recv(void* buffer, int count, MPI_Datatype type, int from, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!busy()) return PMPI_Recv(buffer, count, type, from, tag, comm, status);
  MPI_Request request;
  const int rc = PMPI_Irecv(buffer, count, type, from, tag, comm, &request);
  return rc != MPI_SUCCESS ? rc : poll(&request, status);
}

int MPI_Sendrecv(const void* out, int out_count, MPI_Datatype out_type, int to, int out_tag, void* in, int in_count,
                 MPI_Datatype in_type, int from, int in_tag, MPI_Comm comm, MPI_Status* status) {
  if (!busy())
    return PMPI_Sendrecv(out, out_count, out_type, to, out_tag, in, in_count, in_type, from, in_tag, comm, status);
  MPI_Request requests[2];
  int rc = PMPI_Irecv(in, in_count, in_type, from, in_tag, comm, &requests[0]);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Isend(out, out_count, out_type, to, out_tag, comm, &requests[1]);
  if (rc != MPI_SUCCESS) {
    PMPI_Cancel(&requests[0]);
    PMPI_Request_free(&requests[0]);
    return rc;
  }
  const int send_rc = poll(&requests[1], MPI_STATUS_IGNORE);
  rc = poll(&requests[0], status);
  return send_rc != MPI_SUCCESS ? send_rc : rc;
}

int MPI_Probe(int from, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!busy()) return PMPI_Probe(from, tag, comm, status);
  for (;;) {
    progress();
    int found = 0;
    const int rc = PMPI_Iprobe(from, tag, comm, &found, status);
    if (rc != MPI_SUCCESS || found) return rc;
  }
}

int MPI_Mprobe(int from, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  if (!busy()) return PMPI_Mprobe(from, tag, comm, message, status);
  for (;;) {
    progress();
    int found = 0;
    const int rc = PMPI_Improbe(from, tag, comm, &found, message, status);
    if (rc != MPI_SUCCESS || found) return rc;
  }
}

int MPI_Mrecv(void* buffer, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  if (!busy()) return PMPI_Mrecv(buffer, count, type, message, status);
  MPI_Request request;
  const int rc = PMPI_Imrecv(buffer, count, type, message, &request);
  return rc != MPI_SUCCESS ? rc : poll(&request, status);
}

// Blocking collectives: settle, then the MPI library's own.
#define HERALD_SETTLED(call) \
  do {                       \
    if (busy()) herald::pmpi::settle(); \
    return call;             \
  } while (0)

int MPI_Barrier(MPI_Comm comm) { HERALD_SETTLED(PMPI_Barrier(comm)); }

int MPI_Allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Allreduce(in, out, count, type, op, comm));
}

int MPI_Reduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Reduce(in, out, count, type, op, root, comm));
}

int MPI_Scan(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Scan(in, out, count, type, op, comm));
}

int MPI_Exscan(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Exscan(in, out, count, type, op, comm));
}

int MPI_Reduce_scatter(const void* in, void* out, const int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Reduce_scatter(in, out, counts, type, op, comm));
}

int MPI_Reduce_scatter_block(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Reduce_scatter_block(in, out, count, type, op, comm));
}

int MPI_Gather(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count, MPI_Datatype out_type,
               int root, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Gather(in, in_count, in_type, out, out_count, out_type, root, comm));
}

int MPI_Gatherv(const void* in, int in_count, MPI_Datatype in_type, void* out, const int counts[], const int displs[],
                MPI_Datatype out_type, int root, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Gatherv(in, in_count, in_type, out, counts, displs, out_type, root, comm));
}

int MPI_Scatter(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count, MPI_Datatype out_type,
                int root, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Scatter(in, in_count, in_type, out, out_count, out_type, root, comm));
}

int MPI_Scatterv(const void* in, const int counts[], const int displs[], MPI_Datatype in_type, void* out,
                 int out_count, MPI_Datatype out_type, int root, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Scatterv(in, counts, displs, in_type, out, out_count, out_type, root, comm));
}

int MPI_Allgather(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count,
                  MPI_Datatype out_type, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Allgather(in, in_count, in_type, out, out_count, out_type, comm));
}

int MPI_Allgatherv(const void* in, int in_count, MPI_Datatype in_type, void* out, const int counts[],
                   const int displs[], MPI_Datatype out_type, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Allgatherv(in, in_count, in_type, out, counts, displs, out_type, comm));
}

int MPI_Alltoall(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count, MPI_Datatype out_type,
                 MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Alltoall(in, in_count, in_type, out, out_count, out_type, comm));
}

int MPI_Alltoallv(const void* in, const int in_counts[], const int in_displs[], MPI_Datatype in_type, void* out,
                  const int out_counts[], const int out_displs[], MPI_Datatype out_type, MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Alltoallv(in, in_counts, in_displs, in_type, out, out_counts, out_displs, out_type, comm));
}

int MPI_Alltoallw(const void* in, const int in_counts[], const int in_displs[], const MPI_Datatype in_types[],
                  void* out, const int out_counts[], const int out_displs[], const MPI_Datatype out_types[],
                  MPI_Comm comm) {
  HERALD_SETTLED(PMPI_Alltoallw(in, in_counts, in_displs, in_types, out, out_counts, out_displs, out_types, comm));
}

}  // extern "C"
