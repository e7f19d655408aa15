// herald-reduce-bench: a sum of doubles from every worker through the task runtime (reduce(data, "sum")),
// beside the MPI's own MPI_Reduce or MPI_Allreduce of the same bytes over the same processes, interleaved
// (docs/runtime.md, "Reductions").
//
//   mpiexec -n P herald-reduce-bench [--bytes 1M] [--repetitions 5] [--allreduce]
//
// Every worker runs one task that adds its contribution to the datum; then one task on worker 0 reads
// the sum and checks it (--allreduce: one task on every worker); a wrong sum fails the run. The runtime runs with the mapped scheduler, one
// contribution a worker, so the reduction's partials are the workers'. The peer runs on the workers'
// processes (head control: ranks 1..P-1; replicated: all), rooted at worker 0's. Each repetition times
// one run() of the runtime (submit to the end of wait(), on the slowest rank) and then one collective
// (barrier to barrier, slowest rank), each checked for the right sum. Under SimGrid SMPI the kernels cost
// no simulated time, as SMPI's built-in operators do; the built-in combine's cost on this host is printed
// beside.
#include <herald/config.hpp>
#include <herald/runtime/runtime.hpp>

#include "cli.hpp"
#include "reduction_tree.hpp"
#include "statistics.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

double median(const std::vector<double>& v) { return herald::bench::spread_of(v).median; }

// The host's time for one built-in sum of `bytes` into as many (median of 5), outside any simulation.
double combine_seconds(std::size_t bytes) {
  using namespace herald::runtime;
  std::vector<double> a(bytes / sizeof(double), 1.0), b(a.size(), 2.0);
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    detail::builtin_combine(detail::BuiltinOp::sum, Element::f64, std::as_writable_bytes(std::span(a)),
                            std::as_bytes(std::span(b)));
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return median(times);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string bytes_text = "1M";
  int repetitions = 5;
  bool allreduce = false;
  CLI::App app{"A reduction through the task runtime beside MPI_Reduce / MPI_Allreduce"};
  app.add_option("--bytes", bytes_text, "bytes reduced (K, M, G: powers of 1024), a multiple of 8")->capture_default_str();
  app.add_option("--repetitions", repetitions, "repetitions of each (median)")->check(herald::cli::positive)->capture_default_str();
  app.add_flag("--allreduce", allreduce, "every worker reads the sum (the peer is MPI_Allreduce)");
  if (const auto status = herald::cli::parse(app, argc, argv, rank == 0)) {
    MPI_Finalize();
    return *status;
  }
  using namespace herald::runtime;
  const std::size_t bytes = herald::parse_bytes(bytes_text, "--bytes");
  if (bytes == 0 || bytes % sizeof(double) != 0) {
    if (rank == 0) std::fprintf(stderr, "herald-reduce-bench: --bytes %s is not a positive multiple of 8\n", bytes_text.c_str());
    MPI_Finalize();
    return 2;
  }
  const std::size_t n = bytes / sizeof(double);
  int failures = 0;
  {
    Runtime rt(MPI_COMM_WORLD, {.scheduler = Scheduler::mapped});
    rt.kernel("contribute", [](TaskContext& t) {
      const double mine = t.rank() + 1.0;
      for (double& v : t.out<double>(0)) v += mine;
    });
    // The reader checks the sum it was given (the argument), so a wrong one fails the run.
    rt.kernel("use", [](TaskContext& t) {
      const double expected = t.argument<double>();
      for (double v : t.in<double>(0))
        if (v != expected) throw std::runtime_error("the sum read is " + std::to_string(v) + ", not " + std::to_string(expected));
    });
    const bool replicated = rt.control() == Control::replicated;
    const int first = replicated ? 0 : (size > 1 ? 1 : 0);  // worker 0's rank
    const int workers = replicated ? size : std::max(1, size - 1);
    // The peer's communicator: the workers' processes.
    MPI_Comm peers = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank >= first ? 0 : MPI_UNDEFINED, rank, &peers);
    // Each worker's contribution is its rank + 1 in every element.
    double expected = 0;
    for (int r = first; r < first + workers; ++r) expected += r + 1.0;
    std::vector<double> herald_s, mpi_s;
    std::vector<double> total(n), mine(n), sum(n);  // total: the datum's buffer, never read back
    for (int rep = 0; rep < repetitions; ++rep) {
      double took = 0;
      std::fill(total.begin(), total.end(), 0.0);
      rt.run([&](Head& head) {
        const double start = MPI_Wtime();
        auto d = head.data(std::span(total), "sum" + std::to_string(rep));
        for (int w = 0; w < workers; ++w) head.submit("contribute", {reduce(d, "sum")}, {}, {.worker = w});
        for (int w = 0; w < (allreduce ? workers : 1); ++w)
          head.submit("use", {in(d)}, arguments(expected), {.worker = w});
        head.wait();
        took = MPI_Wtime() - start;
      });
      MPI_Allreduce(MPI_IN_PLACE, &took, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      herald_s.push_back(took);
      double peer = 0;
      if (peers != MPI_COMM_NULL) {
        std::fill(mine.begin(), mine.end(), rank + 1.0);
        MPI_Barrier(peers);
        const double start = MPI_Wtime();
        if (allreduce)
          MPI_Allreduce(mine.data(), sum.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, peers);
        else
          MPI_Reduce(mine.data(), sum.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, 0, peers);
        MPI_Barrier(peers);
        peer = MPI_Wtime() - start;
        if ((allreduce || rank == first) && sum.front() != expected) {
          std::fprintf(stderr, "herald-reduce-bench: MPI's sum is %g, not %g\n", sum.front(), expected);
          ++failures;
        }
      }
      MPI_Allreduce(MPI_IN_PLACE, &peer, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      mpi_s.push_back(peer);
    }
    if (peers != MPI_COMM_NULL) MPI_Comm_free(&peers);
    if (rank == 0) {
      const char* peer_name = allreduce ? "MPI_Allreduce" : "MPI_Reduce";
          std::printf("# herald-reduce-bench: %zu bytes of doubles summed from %d workers, %s, %s control; "
                  "peer %s over the workers\n",
                  bytes, workers, allreduce ? "read on every worker" : "read on worker 0", to_string(rt.control()),
                  peer_name);
      std::printf("repetition,herald_s,mpi_s\n");
      for (int r = 0; r < repetitions; ++r) std::printf("%d,%.9f,%.9f\n", r, herald_s[r], mpi_s[r]);
      const double h = median(herald_s), m = median(mpi_s);
      std::printf("median herald_s %.9f mpi_s %.9f ratio %.4f\n", h, m, h / m);
      std::printf("combine_host_s %.9f  (one built-in sum of %zu bytes into as many, on this host)\n",
                  combine_seconds(bytes), bytes);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return failures ? 1 : 0;
}
