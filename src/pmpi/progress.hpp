// What the PMPI library's files share: herald's nonblocking broadcasts in flight, driven from every call the
// library intercepts (MPI gives generalized requests no progress hook of their own).
#pragma once

namespace herald::pmpi {

// Advances every broadcast in flight without blocking, and completes the finished ones.
void progress();
// True while an MPI_Ibcast of herald's is in flight on this process.
bool busy();
// Before a blocking call herald cannot poll inside (a blocking collective): advances, then posts every
// message this rank owes to the broadcasts in flight, waiting for the data it forwards where it must. A
// peer may wait for that data before it joins the call.
void settle();

}  // namespace herald::pmpi
