// Starting and finishing a trace of herald's work in an MPI program (herald/trace.hpp has the records and
// the formats). HERALD_TRACE=<directory> traces without a change to the program: the drop-in library from
// MPI_Init to MPI_Finalize, the task runtime from its construction to its destruction, herald's programs
// for their whole run. A program using the C++ API calls start() itself; a trace still open at
// MPI_Finalize is finished there.
#pragma once

#include <herald/error.hpp>
#include <herald/trace.hpp>

#include <mpi.h>

#include <optional>
#include <string>

namespace herald::trace {

// Collective over `comm`: every rank starts recording into `directory` (created if missing), and rank 0
// measures every rank's clock against its own. Throws herald::Error(invalid_argument) for an empty path,
// a directory that cannot be written, or a trace already open on another communicator (one trace per
// process at a time; starting again on the same communicator is a no-op, so layers may each ask).
// Returns true where this call opened the trace, false where one was open on `comm` already.
bool start(MPI_Comm comm, const std::string& directory);
// start() with HERALD_TRACE's directory, if set; returns whether this call opened a trace.
bool start_from_environment(MPI_Comm comm);
// Collective over start()'s communicator: measures the clocks again, gathers every rank's events on its
// rank 0, which writes `directory`/trace.json and, where herald has libotf2, `directory`/trace.otf2. Then
// recording stops. Without an open trace, does nothing.
void finish();
// The open trace's directory, if one is open.
std::optional<std::string> directory();
// This process's recorder while a trace is open, else nullptr: what every layer tests before recording.
Recorder* recorder() noexcept;

}  // namespace herald::trace
