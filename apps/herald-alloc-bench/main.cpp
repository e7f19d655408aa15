// herald-alloc-bench: heap allocations per task in the runtime's steady state (docs/runtime.md, "What a
// task costs").
//
//   mpiexec -n 2 herald-alloc-bench [--steps N] [--control head|replicated] [--threads T] [--window W]
//                                      [--max-per-task F]
//
// A stencil of one point per worker: at each step the task of every point reads its neighbours' values (an
// exchange each way between neighbouring workers) and updates its own, on that point's worker; the kernels
// do next to nothing. Every C++ allocation in the process (the program's, the runtime's) is counted by a
// replaced operator new; MPI's own malloc() is not. A first run warms the runtime up (its tables, its
// pools, the channel's buffers), then a second one of the same graph is measured: each rank's allocations
// during it, per task it ran and per task of the whole graph.
#include <herald/runtime/runtime.hpp>

#include "cli.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

namespace {
std::atomic<std::uint64_t> allocations{0};

void* counted(std::size_t bytes, std::size_t alignment = 0) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (bytes == 0) bytes = 1;
  void* p = alignment ? std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment) : std::malloc(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t bytes) { return counted(bytes); }
void* operator new[](std::size_t bytes) { return counted(bytes); }
void* operator new(std::size_t bytes, std::align_val_t a) { return counted(bytes, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t bytes, std::align_val_t a) { return counted(bytes, static_cast<std::size_t>(a)); }
// The nothrow forms too (std::stable_sort's buffer uses them): every form must pair with the free() below,
// or a sanitizer's own operator new would meet this delete.
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try { return counted(bytes); } catch (const std::bad_alloc&) { return nullptr; }
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  try { return counted(bytes); } catch (const std::bad_alloc&) { return nullptr; }
}
void* operator new(std::size_t bytes, std::align_val_t a, const std::nothrow_t&) noexcept {
  try { return counted(bytes, static_cast<std::size_t>(a)); } catch (const std::bad_alloc&) { return nullptr; }
}
void* operator new[](std::size_t bytes, std::align_val_t a, const std::nothrow_t&) noexcept {
  try { return counted(bytes, static_cast<std::size_t>(a)); } catch (const std::bad_alloc&) { return nullptr; }
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long steps = 20000;
  int threads = 0;
  long window = 0;
  double max_per_task = -1;  // unset: no check
  std::string control = "replicated";
  CLI::App app{"Heap allocations per task in the runtime's steady state"};
  app.add_option("--steps", steps, "stencil steps of the measured run (one task per worker each)")
      ->check(herald::cli::positive)
      ->capture_default_str();
  app.add_option("--control", control, "head or replicated")
      ->check(CLI::IsMember({"head", "replicated"}))
      ->capture_default_str();
  app.add_option("--window", window,
                 "steps between the program's waits (0: one wait at the end, every task in flight at once)")
      ->check(herald::cli::non_negative)
      ->capture_default_str();
  app.add_option("--max-per-task", max_per_task,
                 "fail (exit 1) if a worker's allocations per task it ran exceed this (a check of the steady state)")
      ->check(herald::cli::non_negative);
  app.add_option("--threads", threads, "kernel threads per worker (0: kernels on the polling thread)")
      ->check(herald::cli::non_negative)
      ->capture_default_str();
  if (const auto status = herald::cli::parse(app, argc, argv, rank == 0)) {
    MPI_Finalize();
    return *status;
  }
  using namespace herald::runtime;
  std::uint64_t counted_here = 0;
  long points = 0;
  {
    Runtime rt(MPI_COMM_WORLD, {.threads = threads,
                                .control = control == "head" ? Control::head : Control::replicated,
                                .scheduler = Scheduler::mapped});
    rt.kernel("step", [](TaskContext& t) {
      const auto own = t.in<double>(0)[0];
      t.out<double>(0)[0] = own + 1;
    });
    rt.kernel("step2", [](TaskContext& t) { t.out<double>(1)[0] = t.in<double>(0)[0] + 1; });
    rt.kernel("step3", [](TaskContext& t) { t.out<double>(2)[0] = t.in<double>(0)[0] + t.in<double>(1)[0]; });
    std::vector<std::vector<double>> values;
    const auto graph = [&](long n) {
      rt.run([&](Head& head) {
        points = head.workers();
        const auto w = static_cast<std::size_t>(points);
        values.assign(w, std::vector<double>(1, 1.0));
        std::vector<Data> d;
        for (std::size_t p = 0; p < w; ++p) {
          d.push_back(head.data(std::span(values[p]), "p" + std::to_string(p), static_cast<int>(p)));
          head.enter(d.back());
        }
        for (long t = 0; t < n; ++t)
          for (std::size_t p = 0; p < w; ++p) {
            const TaskOptions on{.worker = static_cast<int>(p)};
            // Reads the neighbours, updates its own: an exchange each way between neighbouring workers.
            if (w == 1) head.submit("step", {inout(d[p])}, {}, on);
            else if (w == 2) head.submit("step2", {in(d[1 - p]), inout(d[p])}, {}, on);
            else head.submit("step3", {in(d[(p + w - 1) % w]), in(d[(p + 1) % w]), inout(d[p])}, {}, on);
            if (window > 0 && p + 1 == w && (t + 1) % window == 0) head.wait();
          }
        head.wait();
      });
    };
    graph(steps / 4 + 1);  // warm-up
    MPI_Barrier(MPI_COMM_WORLD);
    const std::uint64_t before = allocations.load();
    graph(steps);
    counted_here = allocations.load() - before;
  }
  int failed = 0;
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
  MPI_Gather(&counted_here, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const bool head = control == "head";
    const double tasks = static_cast<double>(steps) * static_cast<double>(points);
    std::printf("# herald-alloc-bench: %ld steps x %ld points (one per worker), %s control, %d kernel threads; "
                "%s; C++ allocations during the measured run\n",
                steps, points, control.c_str(), threads, window > 0 ? ("a wait every " + std::to_string(window) + " steps").c_str() : "one wait");
    std::printf("rank,role,tasks_here,allocations,per_task_here,per_task_of_graph\n");
    double sum = 0;
    for (int r = 0; r < size; ++r) {
      const auto n = static_cast<double>(all[static_cast<std::size_t>(r)]);
      sum += n;
      const bool runs = !head || r > 0 || size == 1;
      const double here = runs ? static_cast<double>(steps) : 0;
      std::printf("%d,%s,%.0f,%.0f,%s,%.2f\n", r, head && r == 0 ? "head" : "worker", here, n,
                  here > 0 ? std::to_string(n / here).c_str() : "-", n / tasks);
    }
    std::printf("all,,%.0f,%.0f,,%.2f\n", tasks, sum, sum / tasks);
    for (int r = head ? 1 : 0; r < size && max_per_task >= 0; ++r)
      if (const double per_task = static_cast<double>(all[static_cast<std::size_t>(r)]) / static_cast<double>(steps);
          per_task > max_per_task) {
        std::fprintf(stderr, "herald-alloc-bench: worker %d made %.3f allocations per task, above --max-per-task %g\n",
                     r, per_task, max_per_task);
        failed = 1;
      }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
