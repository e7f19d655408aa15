// link_check: measures what MPI ranks get from the emulated cluster's links, to compare with the shaped rate.
//
//   link_check RATE_BITS_PER_S BYTES REPS
//
// Four measurements, each the median of REPS repetitions, printed by rank 0 as a Markdown table:
//   latency   ping-pong of 8 bytes between ranks 0 and 1: half the round trip
//   pair      rank 0 sends BYTES to rank 1: one link, expected at the link rate
//   fan-out   rank 0 sends BYTES to every other rank at once: the root's upload is shared, so each stream
//             expects rate / (P - 1)
//   pairs     ranks 2i send BYTES to ranks 2i+1 at once: P/2 disjoint links, each expected at the full rate
//   ring      every rank i sends BYTES to rank i+1 (mod P) at once: every link busy both ways, as in a
//             pipelined chain; P streams, each expected at the full rate
// The sum over streams in pairs and ring is what the machine's CPUs must move in parallel: where measured
// falls below expected there, the CPUs, not the links, are the bottleneck.
// A transfer ends when the receiver's 1-byte acknowledgement is back, so it includes one small-message latency.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Half the round trip of an 8-byte ping-pong between ranks 0 and 1, in seconds.
double latency(int rank) {
  constexpr int rounds = 200;
  char byte[8] = {};
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < rounds; ++i) {
    if (rank == 0) {
      MPI_Send(byte, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(byte, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(byte, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(byte, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) / rounds / 2;
}

// Every rank sends `buffer` to its receivers and receives into `inbox` from its senders, all at once, then
// acknowledges with one byte each way; returns the slowest sender's time (on every rank).
double transfer(const std::vector<int>& receivers, const std::vector<int>& senders, std::vector<char>& buffer,
                std::vector<char>& inbox) {
  const int count = static_cast<int>(buffer.size());
  std::vector<char> acks(receivers.size() + senders.size());
  std::vector<MPI_Request> requests;
  auto post = [&](auto call) {
    requests.emplace_back();
    call(&requests.back());
  };
  auto wait = [&] {
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    requests.clear();
  };
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int r : senders) post([&](MPI_Request* q) { MPI_Irecv(inbox.data(), count, MPI_BYTE, r, 1, MPI_COMM_WORLD, q); });
  for (int r : receivers)
    post([&](MPI_Request* q) { MPI_Isend(buffer.data(), count, MPI_BYTE, r, 1, MPI_COMM_WORLD, q); });
  wait();
  std::size_t a = 0;
  for (int r : receivers) post([&](MPI_Request* q) { MPI_Irecv(&acks[a++], 1, MPI_BYTE, r, 2, MPI_COMM_WORLD, q); });
  for (int r : senders) post([&](MPI_Request* q) { MPI_Isend(&acks[a++], 1, MPI_BYTE, r, 2, MPI_COMM_WORLD, q); });
  wait();
  const double mine = receivers.empty() ? 0.0 : MPI_Wtime() - t0;
  double slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4 || size < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: mpiexec -n P (P >= 2) link_check RATE_BITS_PER_S BYTES REPS\n");
    MPI_Finalize();
    return 2;
  }
  const double rate = std::atof(argv[1]);
  const std::size_t bytes = std::strtoull(argv[2], nullptr, 10);
  if (bytes < 1 || bytes > (std::size_t{1} << 30)) {
    if (rank == 0) std::fprintf(stderr, "link_check: BYTES must be between 1 and 1 GiB\n");
    MPI_Finalize();
    return 2;
  }
  const int reps = std::max(1, std::atoi(argv[3]));
  std::vector<char> buffer(bytes, 'x'), inbox(bytes);  // touched once here, not inside the timings

  struct Test {
    const char* name;
    int streams;
    double expected_per_stream;  // bit/s
    std::vector<int> receivers;  // of this rank
    std::vector<int> senders;    // to this rank
  };
  std::vector<Test> tests;
  {
    Test pair{"pair 0->1", 1, rate, {}, {}};
    if (rank == 0) pair.receivers = {1};
    if (rank == 1) pair.senders = {0};
    tests.push_back(pair);

    Test fan{"fan-out 0->all", size - 1, rate / (size - 1), {}, {}};
    if (rank == 0)
      for (int r = 1; r < size; ++r) fan.receivers.push_back(r);
    else
      fan.senders = {0};
    tests.push_back(fan);

    Test pairs{"pairs 2i->2i+1", size / 2, rate, {}, {}};
    if (rank % 2 == 0 && rank + 1 < size) pairs.receivers = {rank + 1};
    if (rank % 2 == 1) pairs.senders = {rank - 1};
    tests.push_back(pairs);

    Test ring{"ring i->i+1", size, rate, {(rank + 1) % size}, {(rank + size - 1) % size}};
    if (size > 2) tests.push_back(ring);  // at P = 2 it is two opposite streams, not a ring
  }

  for (int warm = 0; warm < 2; ++warm) latency(rank);
  std::vector<double> lat;
  for (int rep = 0; rep < reps; ++rep) lat.push_back(latency(rank));
  if (rank == 0) {
    std::printf("| test | streams | bytes per stream | median time (s) | measured per stream (Mbit/s) | expected per stream (Mbit/s) | measured / expected |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    std::printf("| latency 0<->1 (8 B, half round trip) | 1 | 8 | %.1f us | | | |\n", median(lat) * 1e6);
  }
  for (Test& t : tests) {
    transfer(t.receivers, t.senders, buffer, inbox);  // warm-up: connections, registration
    std::vector<double> times;
    for (int rep = 0; rep < reps; ++rep) times.push_back(transfer(t.receivers, t.senders, buffer, inbox));
    if (rank == 0) {
      const double seconds = median(times);
      const double measured = static_cast<double>(bytes) * 8 / seconds;
      std::printf("| %s | %d | %zu | %.3f | %.1f | %.1f | %.3f |\n", t.name, t.streams, bytes, seconds, measured / 1e6,
                  t.expected_per_stream / 1e6, measured / t.expected_per_stream);
    }
  }
  MPI_Finalize();
  return 0;
}
