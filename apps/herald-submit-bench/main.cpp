// herald-submit-bench: what a task costs the ranks that neither run it nor hold its data, under replicated
// control, against what it costs the rank that runs it (docs/runtime.md, "Replicated control").
//
//   mpiexec -n 4 herald-submit-bench [--tasks N] [--repetitions R] [--width W]
//
// Every rank submits the same N tasks, each reading two of W data and writing a third (a stencil's shape),
// all mapped to rank 0. On the other ranks each task concerns nothing of theirs; the submit loop is timed
// on every rank (submission only, not the wait() that runs the tasks), R times, and rank 0 prints each
// rank's median nanoseconds per submit().
#include <herald/runtime/runtime.hpp>

#include "cli.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long tasks = 100000, width = 64;
  int repetitions = 7;
  CLI::App app{"What a task costs the ranks that neither run it nor hold its data, under replicated control"};
  app.add_option("--tasks", tasks, "tasks submitted per repetition")
      ->check(herald::cli::positive)
      ->capture_default_str();
  app.add_option("--repetitions", repetitions, "repetitions of the submit loop (median)")
      ->check(herald::cli::positive)
      ->capture_default_str();
  app.add_option("--width", width, "data the tasks read and write (at least 3)")
      ->check(CLI::Range(3L, 1L << 20))
      ->capture_default_str();
  if (const auto status = herald::cli::parse(app, argc, argv, rank == 0)) {
    MPI_Finalize();
    return *status;
  }
  using namespace herald::runtime;
  std::vector<double> per_task;
  {
    Runtime rt(MPI_COMM_WORLD, {.threads = 0, .control = Control::replicated, .scheduler = Scheduler::mapped});
    rt.kernel("step", [](TaskContext& t) { t.out<double>(2)[0] = t.in<double>(0)[0] + t.in<double>(1)[0]; });
    std::vector<std::vector<double>> values(static_cast<std::size_t>(width), std::vector<double>(1, 1.0));
    rt.run([&](Head& head) {
      std::vector<Data> d;
      for (long i = 0; i < width; ++i) {
        d.push_back(head.data(std::span(values[static_cast<std::size_t>(i)]), "d" + std::to_string(i)));
        head.enter(d.back());
      }
      head.wait();
      for (int r = 0; r < repetitions; ++r) {
        const double start = MPI_Wtime();
        for (long t = 0; t < tasks; ++t) {
          const auto w = static_cast<std::size_t>(width);
          const auto at = static_cast<std::size_t>(t) % w;
          head.submit("step", {in(d[(at + 1) % w]), in(d[(at + 2) % w]), out(d[at])}, {}, {.worker = 0});
        }
        per_task.push_back((MPI_Wtime() - start) / static_cast<double>(tasks));
        head.wait();
      }
    });
  }
  std::sort(per_task.begin(), per_task.end());
  double median = per_task[per_task.size() / 2];
  std::vector<double> all(static_cast<std::size_t>(size));
  MPI_Gather(&median, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("# herald-submit-bench: %ld tasks (2 reads, 1 write of %ld data), all on rank 0; replicated control, "
                "mapped; median of %d repetitions of the submit loop\n",
                tasks, width, repetitions);
    std::printf("rank,role,ns_per_submit\n");
    for (int r = 0; r < size; ++r)
      std::printf("%d,%s,%.1f\n", r, r == 0 ? "runs every task" : "runs none", all[static_cast<std::size_t>(r)] * 1e9);
  }
  MPI_Finalize();
  return 0;
}
