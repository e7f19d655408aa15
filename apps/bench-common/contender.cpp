#include "contender.hpp"

#include "mpi_call.hpp"

#include <herald/algorithms.hpp>

#include <algorithm>
#include <climits>
#include <string_view>

namespace herald::bench {
namespace {

// The same name in storage that lives as long as the program: Options may hold only a view of it, and
// contenders move around in their vector.
std::string_view lasting_name(const std::string& name) {
  if (name == "native" || name == via_herald_native) return "native";
  if (name == "auto") return "auto";
  return find_algorithm(name).name;
}

}  // namespace

Contender::Contender(std::string name, const Parameters& parameters, bool nonblocking)
    : name_(std::move(name)), native_(name_ == "native"), nonblocking_(nonblocking) {
  options_.algorithm = lasting_name(name_);
  options_.parameters = parameters;
}

void Contender::broadcast(std::span<std::byte> buffer, int root, MPI_Comm comm) const {
  if (!native_) {
    if (nonblocking_) ibcast(buffer, root, comm, options_).wait();
    else bcast(buffer, root, comm, options_);
    return;
  }
  // MPI counts are ints: larger buffers go in consecutive pieces (every rank cuts them alike).
  std::size_t offset = 0;
  do {
    const std::size_t piece = std::min<std::size_t>(buffer.size() - offset, INT_MAX);
    void* data = buffer.data() + offset;
    const int count = static_cast<int>(piece);
    if (nonblocking_) {
      MPI_Request request = MPI_REQUEST_NULL;
      BENCH_MPI(MPI_Ibcast(data, count, MPI_BYTE, root, comm, &request));
      BENCH_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    } else {
      BENCH_MPI(MPI_Bcast(data, count, MPI_BYTE, root, comm));
    }
    offset += piece;
  } while (offset < buffer.size());
}

double Contender::average_seconds(std::span<std::byte> buffer, int root, MPI_Comm comm, int iterations) const {
  BENCH_MPI(MPI_Barrier(comm));
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) broadcast(buffer, root, comm);
  return (MPI_Wtime() - start) / iterations;
}

}  // namespace herald::bench
