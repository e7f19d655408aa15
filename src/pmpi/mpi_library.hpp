// Which MPI library a process runs, from MPI_Get_library_version's text, and whether libherald_pmpi can run
// on it. Pure: no MPI here, so the unit tests check it without one (tests/unit/mpi_library_test.cpp).
//
// The two MPI ABIs herald is built for are Open MPI's and MPICH's. Their handles and constants differ (an
// MPI_Comm is a pointer in Open MPI, an int in MPICH), so a libherald_pmpi.so built with one and preloaded
// into a program of the other would pass its own MPI_COMM_WORLD to the other library. Only the family
// counts: releases of one family keep its C ABI (Open MPI 5.0 documents it for programs built with 4.x,
// MPICH has kept libmpi.so.12 since 3.1), and MPICH's derivatives (MVAPICH2 and MVAPICH, Intel MPI, Cray
// MPICH) share MPICH's ABI under the MPICH ABI Compatibility Initiative, so they are of MPICH's family. A text
// naming neither family is unknown and never refused: herald cannot tell, and refuses only what it knows to
// be wrong.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace herald::pmpi {

enum class MpiFamily { open_mpi, mpich, unknown };

// "Open MPI", "MPICH" or "an unknown MPI".
std::string_view family_name(MpiFamily family);

// The first line of a library version text, its runs of blanks made one space and the ends trimmed:
// "MPICH Version:\t4.0.2\nMPICH Release date: ..." gives "MPICH Version: 4.0.2".
std::string first_line(std::string_view library_version);

// How the message names a library: its first line up to the first comma, "Open MPI v4.1.4" for "Open MPI
// v4.1.4, package: Debian OpenMPI, ident: 4.1.4, ...", and the whole first line for MPICH's and most others.
std::string library_name(std::string_view library_version);

// The family a MPI_Get_library_version text names in its first line: Open MPI ("Open MPI v4.1.4, ..."), or
// MPICH and its derivatives ("MPICH Version: ...", "MVAPICH2 Version : ...", "Intel(R) MPI Library ...",
// "MPI VERSION : CRAY MPICH version ..."); unknown otherwise.
MpiFamily family_of(std::string_view library_version);

// nullopt when a library built for `built` (its family, and how to name it: "Open MPI v4.1.4") can run in a
// process whose MPI says `running` (MPI_Get_library_version's text): the same family, or either one unknown.
// Otherwise the message to stop with, naming both libraries and what to do.
std::optional<std::string> library_mismatch(MpiFamily built, std::string_view built_name, std::string_view running);

}  // namespace herald::pmpi
