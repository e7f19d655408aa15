#include "agreement.hpp"

#include "../core/mpi/check.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <string>

namespace herald::runtime::detail {
namespace {

// (kind, ~kind, value, ~value) by MAX gives every rank the largest and the smallest of each: all ranks
// gave the same exactly when both are its own.
constexpr std::size_t agreement_fields = 4;

// MAX over the agreement fields, SUM over the rest, record by record. A record is one element of the
// reduction's datatype, so an MPI that splits a reduction into pieces never cuts one.
void max_then_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const auto fields = static_cast<std::size_t>(bytes) / sizeof(std::uint64_t);
  const auto* a = static_cast<const std::uint64_t*>(in);
  auto* b = static_cast<std::uint64_t*>(inout);
  for (int r = 0; r < *len; ++r, a += fields, b += fields)
    for (std::size_t i = 0; i < fields; ++i) b[i] = i < agreement_fields ? std::max(a[i], b[i]) : a[i] + b[i];
}

}  // namespace

Agreement::Agreement(MPI_Comm comm, std::size_t sums)
    : comm_(comm), mine_(agreement_fields + sums, 0), all_(mine_.size(), 0) {
  HERALD_MPI(MPI_Type_contiguous(static_cast<int>(mine_.size()), MPI_UINT64_T, &record_));
  HERALD_MPI(MPI_Type_commit(&record_));
  HERALD_MPI(MPI_Op_create(max_then_sum, 1, &op_));
}

Agreement::~Agreement() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // A reduction still open (a rank was lost mid-way) may never end: its datatype and op stay.
  if (finalized || request_ != MPI_REQUEST_NULL) return;
  MPI_Op_free(&op_);
  MPI_Type_free(&record_);
}

void Agreement::start(std::uint64_t kind, std::uint64_t value, std::span<const std::uint64_t> sums) {
  if (!sums.empty() && sums.size() != mine_.size() - agreement_fields)
    throw Error(Errc::invalid_argument, "agreement of " + std::to_string(sums.size()) + " sums where " +
                                            std::to_string(mine_.size() - agreement_fields) + " were set up");
  mine_[0] = kind;
  mine_[1] = ~kind;
  mine_[2] = value;
  mine_[3] = ~value;
  std::fill(mine_.begin() + agreement_fields, mine_.end(), 0);
  std::copy(sums.begin(), sums.end(), mine_.begin() + agreement_fields);
  HERALD_MPI(MPI_Iallreduce(mine_.data(), all_.data(), 1, record_, op_, comm_, &request_));
}

bool Agreement::test() {
  int finished = 0;
  HERALD_MPI(MPI_Test(&request_, &finished, MPI_STATUS_IGNORE));
  return finished != 0;
}

bool Agreement::agreed() const noexcept {
  return std::equal(all_.begin(), all_.begin() + agreement_fields, mine_.begin());
}

std::span<const std::uint64_t> Agreement::sums() const noexcept {
  return std::span<const std::uint64_t>(all_).subspan(agreement_fields);
}

}  // namespace herald::runtime::detail
