// herald's errors as MPI error codes: each message gets a code of the MPI error class that fits it
// (MPI_Add_error_code, MPI_Add_error_string), so MPI_Error_class still says MPI_ERR_ROOT or MPI_ERR_TYPE and
// MPI_Error_string says what herald knows ("root 7 is not a rank of this 4-rank communicator").
#pragma once

#include <herald/error.hpp>

#include <mpi.h>

#include <optional>
#include <string>

namespace herald::mpi {

// The MPI error class of an error.
int error_class(const Error& error);

// The MPI error code for an error: a code of error_class() that carries herald's message where the MPI keeps
// strings for such codes, the bare class elsewhere.
int error_code(const Error& error);

// Hands the error to the communicator's error handler as an MPI call would and returns the MPI error code.
// Under MPI_ERRORS_ARE_FATAL herald's message is printed first, since the abort would hide it.
int report(MPI_Comm comm, const Error& error);

// report() for the exception being handled: herald::Error as it is, anything else (out of memory, ...) as
// MPI_ERR_OTHER with its message. Call only from a catch block.
int report_exception(MPI_Comm comm);

// herald's message for a code report() returned; nothing for any other code.
std::optional<std::string> message_of(int code);

// Called once by a library that answers MPI_Error_string from message_of(): herald's codes then work even
// where the MPI library does not keep strings for codes of its predefined classes (MPICH 4.0).
void error_strings_intercepted();

}  // namespace herald::mpi
