// One broadcast above 2^31 bytes: no MPI message may carry more than INT_MAX bytes, so herald splits.
#include <herald/bcast.hpp>
#include <herald/error.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace {

TEST(Large, BroadcastAbove2GiB) {
  const std::size_t bytes = (std::size_t{1} << 31) + 4099;
  int me = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int root = P - 1;
  for (const char* algorithm : {"binomial", "scatter_ring_tuned", "native"}) {
    std::vector<unsigned char> data(bytes, 0);
    if (me == root)
      for (std::size_t i = 0; i < bytes; i += 4096) data[i] = static_cast<unsigned char>(i / 4096 % 253 + 1);
    if (me == root) data[bytes - 1] = 0x5A;
    try {
      herald::bcast(std::as_writable_bytes(std::span(data)), root, MPI_COMM_WORLD, {.algorithm = algorithm});
    } catch (const herald::Error& e) {
      if (e.code() != herald::Errc::unknown_algorithm) throw;
      continue;
    }
    long long wrong = -1;
    for (std::size_t i = 0; i < bytes && wrong < 0; i += 4096)
      if (data[i] != static_cast<unsigned char>(i / 4096 % 253 + 1)) wrong = static_cast<long long>(i);
    if (data[bytes - 1] != 0x5A) wrong = static_cast<long long>(bytes - 1);
    int ok = wrong < 0, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    EXPECT_TRUE(all) << algorithm << ": rank " << me << " first wrong byte " << wrong;
  }
}

}  // namespace
