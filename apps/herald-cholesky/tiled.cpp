// The tiled factorisation as a task graph (seed 003's Algorithm 1) on herald's runtime.
#include "matrix.hpp"
#include "solve.hpp"

#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace herald::cholesky {
namespace {

namespace rt = herald::runtime;

// Simulated builds (SimGrid's smpicxx) model each kernel by its measured time (TaskContext::occupy): the
// node keeps communicating meanwhile, and as many kernels overlap as the runtime has threads.
#ifdef SMPI_H
constexpr bool simulated = true;
#else
constexpr bool simulated = false;
#endif

// The extents of a kernel's tiles and its step, packed as its arguments.
struct Step {
  std::int64_t m = 0, n = 0, k = 0;  // tile coordinates: row m, column n, step k
  std::int64_t rows = 0, cols = 0, inner = 0;
};

// Priorities along the critical path, as Chameleon gives them: earlier steps first, and within a step the
// tiles nearest the next panel first, so the next POTRF and its TRSMs are never starved.
int priority(std::int64_t tiles, std::int64_t k, std::int64_t distance) {
  return static_cast<int>(3 * (tiles - k) - distance);
}

// A task's factor in [1 - spread, 1 + spread]: the same for that task (its kernel and tiles) on every run
// with this seed, whichever rank runs it.
double perturbation(std::uint64_t seed, Kernel kernel, const Step& s, double spread) {
  if (spread == 0) return 1;
  std::seed_seq seq{seed, static_cast<std::uint64_t>(kernel), static_cast<std::uint64_t>(s.m),
                    static_cast<std::uint64_t>(s.n), static_cast<std::uint64_t>(s.k)};
  std::mt19937_64 draw(seq);
  return std::uniform_real_distribution<double>(1 - spread, 1 + spread)(draw);
}

template <class T>
void register_kernels(rt::Runtime& runtime, const Layout& layout, const Generator& gen, const KernelTimes& times,
                      const Options& o) {
  const double scalar = sizeof(T);
  auto side = [scalar](std::size_t bytes) { return static_cast<std::int64_t>(std::llround(std::sqrt(bytes / scalar))); };
  // The kernel runs its perturbed time; the cost functions below give the runtime the times as measured.
  auto timed = [&times, seed = o.seed, spread = o.perturb](rt::TaskContext& t, Kernel kernel, const Step& s) {
    t.occupy(times.time(kernel, s.rows, s.cols, s.inner) * perturbation(seed, kernel, s, spread));
  };

  runtime.kernel(
      "generate",
      [layout, gen](rt::TaskContext& t) {
        const auto s = t.argument<Step>();
        if (!simulated) generate_tile<T>(layout, gen, s.m, s.n, t.out<T>(0));
      },
      [scalar](std::span<const std::size_t> bytes) { return 2e-9 * bytes[0] / scalar; });
  runtime.kernel(
      "potrf",
      [timed, tile = layout.tile](rt::TaskContext& t) {
        const auto s = t.argument<Step>();
        if (simulated) return timed(t, Kernel::potrf, s);
        if (const int info = potrf<T>(s.rows, t.inout<T>(0)); info != 0) {
          std::ostringstream why;
          why << "the matrix is not positive definite: POTRF of tile (" << s.k << ", " << s.k << ") at step " << s.k
              << " returned info " << info << " (its leading minor of order " << info << ", global row "
              << s.k * tile + info << ")";
          throw std::runtime_error(why.str());
        }
      },
      [&times, side](std::span<const std::size_t> bytes) {
        const auto r = side(bytes[0]);
        return times.time(Kernel::potrf, r, r, r);
      });
  runtime.kernel(
      "trsm",
      [timed](rt::TaskContext& t) {
        const auto s = t.argument<Step>();
        if (simulated) return timed(t, Kernel::trsm, s);
        trsm<T>(s.rows, s.inner, t.in<T>(0), t.inout<T>(1));
      },
      [&times, side, scalar](std::span<const std::size_t> bytes) {
        const auto k = side(bytes[0]);
        return times.time(Kernel::trsm, static_cast<std::int64_t>(bytes[1] / scalar) / k, k, k);
      });
  runtime.kernel(
      "syrk",
      [timed](rt::TaskContext& t) {
        const auto s = t.argument<Step>();
        if (simulated) return timed(t, Kernel::syrk, s);
        syrk<T>(s.rows, s.inner, t.in<T>(0), t.inout<T>(1));
      },
      [&times, side, scalar](std::span<const std::size_t> bytes) {
        const auto m = side(bytes[1]);
        return times.time(Kernel::syrk, m, m, static_cast<std::int64_t>(bytes[0] / scalar) / m);
      });
  runtime.kernel(
      "gemm",
      [timed](rt::TaskContext& t) {
        const auto s = t.argument<Step>();
        if (simulated) return timed(t, Kernel::gemm, s);
        gemm<T>(s.rows, s.cols, s.inner, t.in<T>(0), t.in<T>(1), t.inout<T>(2));
      },
      [&times, scalar](std::span<const std::size_t> bytes) {
        // a: m x k, b: n x k, c: m x n
        const double mk = bytes[0] / scalar, nk = bytes[1] / scalar, mn = bytes[2] / scalar;
        const auto m = static_cast<std::int64_t>(std::llround(std::sqrt(mk * mn / nk)));
        const auto n = static_cast<std::int64_t>(std::llround(mn / static_cast<double>(m)));
        return times.time(Kernel::gemm, m, n, static_cast<std::int64_t>(std::llround(mk / static_cast<double>(m))));
      });
}

template <class T>
Result run(const Options& o, const KernelTimes& times, MPI_Comm comm) {
  const Layout layout{o.n, o.tile};
  const Generator gen{.seed = o.seed, .diagonal = o.diagonal.value_or(static_cast<double>(o.n))};
  rt::Options ro;
  ro.threads = o.threads;
  ro.scheduler = o.mapping == Mapping::cyclic ? rt::Scheduler::mapped : rt::Scheduler::heft;
  ro.control = o.replicated ? rt::Control::replicated : rt::Control::head;
  if (o.strategy) ro.broadcast = rt::broadcast_strategy_from_string(*o.strategy);
  rt::Runtime runtime(comm, ro);
  register_kernels<T>(runtime, layout, gen, times, o);
  const Grid grid = o.grid.value_or(squarest_grid(computing_processes(Solver::herald, runtime.size(), o.replicated)));

  Result result;
  result.strategy = rt::to_string(runtime.broadcast());
  result.tiles = static_cast<int>(layout.tiles());
  result.threads = runtime.threads();
  result.grid = o.mapping == Mapping::cyclic ? std::to_string(grid.rows) + "x" + std::to_string(grid.cols) : "-";
  runtime.run([&](rt::Head& head) {
    const std::int64_t tiles = layout.tiles();
    std::vector<std::vector<T>> storage(static_cast<std::size_t>(layout.lower_tiles()));
    std::vector<rt::Data> a(storage.size());
    // Simulated runs give every tile handle the same block of one tile's size: their tiles are generated
    // on the workers and never read back, so the head's buffers are never touched.
    std::vector<T> simulated_block(simulated ? static_cast<std::size_t>(layout.tile * layout.tile) : 0);
    for (std::int64_t m = 0; m < tiles; ++m)
      for (std::int64_t k = 0; k <= m; ++k) {
        const auto i = static_cast<std::size_t>(Layout::index(m, k));
        const auto size = static_cast<std::size_t>(layout.extent(m) * layout.extent(k));
        if (!simulated) storage[i].resize(size);
        const std::span<T> buffer = simulated ? std::span(simulated_block).first(size) : std::span(storage[i]);
        a[i] = head.data(std::as_writable_bytes(buffer), "A[" + std::to_string(m) + "][" + std::to_string(k) + "]");
      }
    const auto tile = [&](std::int64_t m, std::int64_t k) { return a[static_cast<std::size_t>(Layout::index(m, k))]; };
    const auto owner = [&](std::int64_t m, std::int64_t n) {
      return o.mapping == Mapping::cyclic ? static_cast<int>((m % grid.rows) * grid.cols + n % grid.cols) : -1;
    };
    const auto submit = [&](std::string_view kernel, std::initializer_list<rt::Use> uses, const Step& s, int prio) {
      head.submit(kernel, uses, rt::arguments(s), {.priority = prio, .worker = owner(s.m, s.n)});
    };

    // The matrix is generated where its tiles are first used (as Chameleon's generators are), untimed.
    for (std::int64_t m = 0; m < tiles; ++m)
      for (std::int64_t k = 0; k <= m; ++k) submit("generate", {rt::out(tile(m, k))}, {.m = m, .n = k, .k = 0}, 0);
    head.wait();

    const double start = MPI_Wtime();
    for (std::int64_t k = 0; k < tiles; ++k) {
      const std::int64_t bk = layout.extent(k);
      submit("potrf", {rt::inout(tile(k, k))}, {.m = k, .n = k, .k = k, .rows = bk, .cols = bk, .inner = bk},
             priority(tiles, k, 0));
      for (std::int64_t m = k + 1; m < tiles; ++m)
        submit("trsm", {rt::in(tile(k, k)), rt::inout(tile(m, k))},
               {.m = m, .n = k, .k = k, .rows = layout.extent(m), .cols = bk, .inner = bk}, priority(tiles, k, m - k));
      for (std::int64_t m = k + 1; m < tiles; ++m) {
        const std::int64_t bm = layout.extent(m);
        submit("syrk", {rt::in(tile(m, k)), rt::inout(tile(m, m))},
               {.m = m, .n = m, .k = k, .rows = bm, .cols = bm, .inner = bk}, priority(tiles, k, m - k));
        for (std::int64_t n = k + 1; n < m; ++n)
          submit("gemm", {rt::in(tile(m, k)), rt::in(tile(n, k)), rt::inout(tile(m, n))},
                 {.m = m, .n = n, .k = k, .rows = bm, .cols = layout.extent(n), .inner = bk},
                 priority(tiles, k, (m - k) + (n - k)));
      }
    }
    head.wait();
    result.seconds = MPI_Wtime() - start;

    if (o.check && !simulated) {
      for (const rt::Data& d : a) head.read(d);
      head.wait();
      result.residual = scaled_residual<T>(layout, gen, storage);
    }
  });
  return result;
}

}  // namespace

Result factor_on_runtime(const Options& options, const KernelTimes& times, MPI_Comm comm) {
  return options.precision == Precision::single ? run<float>(options, times, comm) : run<double>(options, times, comm);
}

}  // namespace herald::cholesky
