// Replicated control's one reduction. Every collective its ranks meet in outside their tasks has this one
// shape, so that ranks at different points of the program (one leaving run(), the others in wait()) still
// meet in the same collective and learn it: a kind and a value that must be equal on every rank, and counts
// summed over the ranks (the statistics a wait() ends with), in one MPI_Iallreduce.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace herald::runtime::detail {

class Agreement {
 public:
  // `sums`: how many counts every reduction carries, the same on every rank.
  Agreement(MPI_Comm comm, std::size_t sums);
  ~Agreement();
  Agreement(const Agreement&) = delete;
  Agreement& operator=(const Agreement&) = delete;

  // Starts the reduction of (kind, value) and `sums` (as many as given to the constructor, or none: zeros).
  void start(std::uint64_t kind, std::uint64_t value, std::span<const std::uint64_t> sums = {});
  // True once the reduction is complete.
  bool test();
  // After test(): whether every rank gave the same kind and value, and the sums over the ranks.
  bool agreed() const noexcept;
  std::span<const std::uint64_t> sums() const noexcept;

 private:
  MPI_Comm comm_;
  MPI_Datatype record_ = MPI_DATATYPE_NULL;  // the whole reduction as one element, never split by MPI
  MPI_Op op_ = MPI_OP_NULL;
  std::vector<std::uint64_t> mine_, all_;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace herald::runtime::detail
