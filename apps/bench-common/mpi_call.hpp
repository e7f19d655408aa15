// Checked MPI calls for the benchmark: a failing call becomes a herald::Error naming it.
#pragma once

#include <herald/error.hpp>

#include <mpi.h>

#include <string>

namespace herald::bench {

inline void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(Errc::mpi, std::string(call) + " failed: " + std::string(text, length));
}

}  // namespace herald::bench

#define BENCH_MPI(call) ::herald::bench::check_mpi((call), #call)
