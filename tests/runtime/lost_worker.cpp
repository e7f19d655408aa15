// A worker that stops answering mid-run (SIGSTOP: as silent as a dead node) is reported by the head as
// herald::Error(worker_lost) naming its rank, within the timeout, instead of a hang. The program then
// aborts, as a program that lost a process must.
#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  using namespace herald::runtime;
  {
    Runtime rt(MPI_COMM_WORLD, {.worker_timeout = 2});
    const int victim = size - 1;
    rt.kernel("work", [victim](TaskContext& t) {
      if (t.rank() == victim && t.argument<int>() == 5) std::raise(SIGSTOP);
      t.out<int>(0)[0] = t.argument<int>();
    });
    std::vector<std::vector<int>> values(16, std::vector<int>(1));
    try {
      rt.run([&](Head& head) {
        for (int i = 0; i < 16; ++i) {
          auto d = head.data(std::span(values[i]), "v" + std::to_string(i));
          head.submit("work", {out(d)}, arguments(i % 8), {.worker = i % head.workers()});
        }
        head.wait();
      });
    } catch (const herald::Error& e) {
      std::printf("head reports: %s\n", e.what());
      std::fflush(stdout);
      // MPICH's launcher tears down its output pipes at MPI_Abort, and a line still in the pipe is lost
      // (the report went missing once in CI): give it a moment to forward the report first.
      std::this_thread::sleep_for(std::chrono::seconds(1));
      MPI_Abort(MPI_COMM_WORLD, e.code() == herald::Errc::worker_lost ? 3 : 4);
    }
  }
  std::printf("no failure was reported\n");
  MPI_Finalize();
  return 1;
}
