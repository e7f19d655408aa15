// A worker that fails outside any kernel (HERALD_RUNTIME_INJECT=<kind>:<rank>: a handler that throws, an
// allocation that fails, an MPI call that fails) is reported by the head at once as herald::Error naming
// the rank and what failed, and every rank is released. The heartbeat timeout is 600 s, far past the
// test's own timeout, so a report that waited for it would fail the test by timing out. A malformed
// HERALD_RUNTIME_INJECT is refused when the runtime is made, on every rank, with a message that quotes it.
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  using namespace herald::runtime;
  int status = 0;
  {
    std::optional<Runtime> made;
    try {
      made.emplace(MPI_COMM_WORLD, Options{.scheduler = Scheduler::mapped, .worker_timeout = 600});
    } catch (const herald::Error& e) {
      std::printf("refused: %s\n", e.what());
      MPI_Finalize();
      return e.code() == herald::Errc::invalid_argument ? 0 : 1;
    }
    Runtime& rt = *made;
    const std::string inject = herald::environment("HERALD_RUNTIME_INJECT").value_or("");
    const std::string victim = inject.substr(inject.find(':') + 1);
    const std::string kind = inject.substr(0, inject.find(':'));
    // Head control: the tasks arrive in a message, whose handler fails; replicated: the rank takes them itself.
    const std::string taking =
        rt.control() == Control::head ? "handler for tasks failed: " : "taking its tasks failed: ";
    const std::string expected = "worker " + victim + ": " +
                                 (kind == "handler" ? taking + "injected by HERALD_RUNTIME_INJECT"
                                  : kind == "alloc" ? taking + "std::bad_alloc"
                                                    : "the worker loop failed: mpi: MPI_Send(");
    rt.kernel("work", [](TaskContext& t) { t.out<int>(0)[0] = t.argument<int>(); });
    std::vector<std::vector<int>> values(16, std::vector<int>(1));
    std::string message = "no failure was reported";
    double seconds = 0;
    try {
      rt.run([&](Head& head) {
        for (int i = 0; i < 16; ++i) {
          auto d = head.data(std::span(values[i]), std::to_string(i));
          head.submit("work", {out(d)}, arguments(i), {.worker = i % head.workers()});
        }
        const auto start = std::chrono::steady_clock::now();
        try {
          head.wait();
        } catch (...) {
          seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          throw;
        }
      });
    } catch (const herald::Error& e) {
      message = e.what();
      if (e.code() != herald::Errc::task_failed) status = 1;
    }
    // Every rank got here: the workers were released, the failed one too.
    if (rt.is_head()) {
      if (message.find(expected) == std::string::npos) status = 1;
      std::printf("head reports %.2f ms after wait(): %s\n%s\n", seconds * 1e3, message.c_str(),
                  status == 0 ? "as expected" : ("expected: " + expected).c_str());
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
