// y += a * x as a task of herald's runtime (docs/runtime.md's example): rank 0 is the head, the others
// serve; the head checks y against the same sum computed in place, and prints the verdict.
#include <herald/runtime/runtime.hpp>

#include <mpi.h>

#include <cstdio>
#include <span>
#include <vector>

using namespace herald::runtime;

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);  // only the loop's thread calls MPI
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int status = 0;
  try {
    Runtime rt(MPI_COMM_WORLD);
    rt.kernel("axpy", [](TaskContext& t) {
      auto x = t.in<double>(0);
      auto y = t.inout<double>(1);
      for (std::size_t i = 0; i < y.size(); ++i) y[i] += t.argument<double>() * x[i];
    });
    rt.run([&](Head& head) {
      std::vector<double> xs(1000), ys(1000);
      for (std::size_t i = 0; i < xs.size(); ++i) {
        xs[i] = static_cast<double>(i);
        ys[i] = 1.0;
      }
      Data x = head.data(std::span(xs), "x");
      Data y = head.data(std::span(ys), "y");
      head.enter(x);
      head.enter(y);
      head.submit("axpy", {in(x), inout(y)}, arguments(2.0));
      head.submit("axpy", {in(x), inout(y)}, arguments(0.5));
      head.read(y);
      head.wait();
      bool ok = true;
      for (std::size_t i = 0; i < ys.size(); ++i) ok = ok && ys[i] == 1.0 + 2.5 * static_cast<double>(i);
      std::printf("herald-runtime-client: %s ranks=%d\n", ok ? "ok" : "FAILED", ranks);
      status = ok ? 0 : 1;
    });
  } catch (const herald::Error& e) {
    // A bad HERALD_RUNTIME_* value is refused by the constructor on every rank, a failed task by run() on
    // the head; a lost worker cannot take part in anything collective any more.
    if (rank == 0) std::fprintf(stderr, "herald-runtime-client: %s\n", e.what());
    if (e.code() == herald::Errc::worker_lost) MPI_Abort(MPI_COMM_WORLD, 1);
    status = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
