// Broadcasts a buffer with herald from the last rank, checks that every rank received it byte for byte,
// and prints what herald's simulator predicts for the same broadcast.
#include <herald/algorithms.hpp>
#include <herald/bcast.hpp>
#include <herald/error.hpp>
#include <herald/simulator.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <vector>

namespace {

// Byte i of the message, as the root fills it.
std::byte pattern(std::size_t i) { return static_cast<std::byte>(i * 31 % 251); }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  const int root = ranks - 1;
  const char* algorithm = "binomial";
  std::vector<std::byte> message(100'003);
  if (rank == root)
    for (std::size_t i = 0; i < message.size(); ++i) message[i] = pattern(i);

  int ok = 1;
  try {
    herald::bcast(message, root, MPI_COMM_WORLD, {.algorithm = algorithm});
    for (std::size_t i = 0; i < message.size(); ++i)
      if (message[i] != pattern(i)) ok = 0;
  } catch (const herald::Error& e) {
    std::fprintf(stderr, "herald-consumer: rank %d: %s\n", rank, e.what());
    ok = 0;
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

  if (rank == 0) {
    const herald::Problem problem{.ranks = ranks, .root = root, .bytes = message.size()};
    const herald::Simulation sim =
        herald::simulate(herald::make_schedule(herald::find_algorithm(algorithm), problem));
    std::printf("herald-consumer: %s ranks=%d bytes=%zu delivered=%s messages=%zu predicted_us=%.2f\n",
                all_ok ? "ok" : "FAILED", ranks, message.size(), sim.delivered ? "yes" : "no",
                sim.messages, sim.predicted_seconds * 1e6);
  }
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
