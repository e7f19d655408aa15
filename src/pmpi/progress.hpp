// What the PMPI library's files share: herald's nonblocking broadcasts in flight, driven from every call the
// library intercepts (MPI gives generalized requests no progress hook of their own), and the check that the
// process runs the MPI library this one was built for.
#pragma once

namespace herald::pmpi {

// Stops the process, with a message naming both libraries, when an MPI C library it holds is not of the
// family this library was built for (an Open MPI build preloaded into an MPICH program, or the reverse).
// Checks once; every later call is a single load. The first intercepted call makes it before it touches any
// MPI handle or constant: MPI_Init, MPI_Init_thread, MPI_Error_string and the Fortran entry points call it,
// and the Interceptor's constructor, which every other intercepted call reaches first. (library_check.cpp
// also checks once at load time.)
void check_library();

// Advances every broadcast in flight without blocking, and completes the finished ones.
void progress();
// True while an MPI_Ibcast of herald's is in flight on this process.
bool busy();
// Before a blocking call herald cannot poll inside (a blocking collective): advances, then posts every
// message this rank owes to the broadcasts in flight, waiting for the data it forwards where it must. A
// peer may wait for that data before it joins the call.
void settle();

}  // namespace herald::pmpi
