// One entry of the comparison: the installed MPI_Bcast ("native") or a herald algorithm, and the timed loop
// that runs it OSU-style.
#pragma once

#include <herald/bcast.hpp>

#include <mpi.h>

#include <cstddef>
#include <span>
#include <string>

namespace herald::bench {

// The contender that runs the installed MPI_Bcast through herald's API ({.algorithm = "native"}).
inline constexpr const char* via_herald_native = "herald_native";

class Contender {
 public:
  // `name` is "native", "auto", a herald algorithm or "herald_native" (MPI_Bcast reached through
  // herald::bcast, which isolates herald's per-call cost); `parameters` reach herald's algorithms only.
  Contender(std::string name, const Parameters& parameters, bool nonblocking);

  const std::string& name() const noexcept { return name_; }
  bool is_native() const noexcept { return native_; }
  const Options& options() const noexcept { return options_; }

  // One broadcast of `buffer` from `root`. Native calls MPI_Bcast (or MPI_Ibcast + MPI_Wait) itself, in
  // pieces of at most INT_MAX bytes; herald runs through herald::bcast (or ibcast + wait).
  void broadcast(std::span<std::byte> buffer, int root, MPI_Comm comm) const;

  // Barrier, then `iterations` back-to-back broadcasts. Returns this rank's average seconds per broadcast.
  double average_seconds(std::span<std::byte> buffer, int root, MPI_Comm comm, int iterations) const;

 private:
  std::string name_;
  bool native_;
  bool nonblocking_;
  Options options_;  // built once, so the timed loop allocates nothing
};

}  // namespace herald::bench
