#include "kernel.hpp"

#include "graph.hpp"
#include "random.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace herald::taskbench {
namespace {

using enum KernelType;

struct NamedKernel {
  std::string_view name;
  KernelType type;
};

constexpr std::array<NamedKernel, 9> kernel_names{{
    {"busy_wait", busy_wait},
    {"compute_bound", compute_bound},
    {"compute_bound2", compute_bound2},
    {"compute_dgemm", compute_dgemm},
    {"empty", empty},
    {"io_bound", io_bound},
    {"load_imbalance", load_imbalance},
    {"memory_bound", memory_bound},
    {"memory_daxpy", memory_daxpy},
}};

constexpr std::array<KernelType, 9> types_by_name = [] {
  std::array<KernelType, 9> types{};
  for (std::size_t i = 0; i < types.size(); ++i) types[i] = kernel_names[i].type;
  return types;
}();

// A result the optimizer must assume is observed, so the loops that produce it are kept.
template <typename T>
void keep(T value) {
  [[maybe_unused]] volatile T sink = value;
}

void run_busy_wait(long iterations) {
  long long acc = 113;
  for (long i = 0; i < iterations; ++i) acc = acc * 139 % 2147483647;
  keep(acc);
}

// The two compute kernels are built twice, for x86-64-v3 (AVX2 and FMA) and for the baseline, and the
// loader picks the first the CPU runs: the FLOP/s of a Task Bench comparison then measure the runtime, not
// the compiler flags, and the binary still runs on any x86-64. Elsewhere they are built once.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)
#define HERALD_KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HERALD_KERNEL_CLONES
#endif

// Four doubles, one AVX register where there is one (GCC's vector extension lowers it to what the target
// has).
using Lanes = double __attribute__((vector_size(32)));

// 64 independent lanes of a = a * a + a: 2 FLOPs per lane per iteration, plus the final product. Sixteen
// independent chains of four keep both FMA units of a core busy despite each FMA's latency.
HERALD_KERNEL_CLONES void run_compute_bound(long iterations) {
  Lanes a[16];
  for (Lanes& x : a) x = Lanes{1.2345, 1.2345, 1.2345, 1.2345};
  for (long it = 0; it < iterations; ++it) {
    for (Lanes& x : a) x = x * x + x;
  }
  double product = 1.0;
  for (const Lanes& x : a) product *= x[0] * x[1] * x[2] * x[3];
  keep(product);
}

// 32 lanes of c += a * b.
HERALD_KERNEL_CLONES void run_compute_bound2(long iterations) {
  std::array<double, 32> a, b, c{};
  a.fill(1.2345);
  b.fill(1.010101);
  for (long it = 0; it < iterations; ++it) {
    for (std::size_t i = 0; i < c.size(); ++i) c[i] += a[i] * b[i];
  }
  double sum = 0;
  for (const double x : c) sum += x;
  keep(sum);
}

// Copies the first half of a region of scratch onto its second half.
void copy_half(std::span<std::byte> region) {
  const std::size_t half = region.size() / 2;
  std::memcpy(region.data() + half, region.data(), half);
}

// Task Bench's memory kernel: scratch is `samples` slices; iteration i of timestep t touches slice
// (t * iterations + i) mod samples, and runs of consecutive slices are copied in one go: a partial run
// up to the last slice, whole passes over all slices, then the rest.
void run_memory_bound(const Kernel& k, std::span<std::byte> scratch, long timestep) {
  const long samples = k.samples;
  const std::size_t sample_bytes = scratch.size() / std::size_t(samples);
  auto copy_slices = [&](long first, long count) {
    if (count > 0) copy_half(scratch.subspan(std::size_t(first) * sample_bytes, std::size_t(count) * sample_bytes));
  };
  long done = 0;
  long start = (timestep * k.iterations + done) % samples;
  const long lead = std::min(samples, start + k.iterations) - start;
  copy_slices(start, lead);
  done += std::max(0L, lead);
  for (; done + samples <= k.iterations; done += samples) {
    copy_slices((timestep * k.iterations + done) % samples, samples);
  }
  start = (timestep * k.iterations + done) % samples;
  copy_slices(start, k.iterations - done);
}

// Task Bench calls MKL's dgemm here (and stops without a BLAS). A plain column-major loop does the same
// 2 N^3 FLOPs per iteration: C += A * B on the three N x N matrices that fill the scratch, where
// N = floor(sqrt(scratch / 24)).
void run_dgemm(const Kernel& k, std::span<std::byte> scratch) {
  const std::size_t per_matrix = scratch.size() / (3 * sizeof(double));
  const auto n = std::size_t(std::sqrt(double(per_matrix)));
  // The scratch is 8-byte aligned storage used as doubles, as Task Bench uses it.
  auto* const a = reinterpret_cast<double*>(scratch.data());
  const double* const b = a + per_matrix;
  double* const c = a + 2 * per_matrix;
  for (long it = 0; it < k.iterations; ++it) {
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t l = 0; l < n; ++l) {
        const double blj = b[l + j * n];
        for (std::size_t i = 0; i < n; ++i) c[i + j * n] += a[i + l * n] * blj;
      }
    }
  }
}

// Task Bench calls MKL's daxpy here; a plain loop: each iteration y += x over one slice of the scratch
// (the slice's first half is x, the second y), cycling through the slices as the memory kernel does.
void run_daxpy(const Kernel& k, std::span<std::byte> scratch, long timestep) {
  const std::size_t sample_bytes = scratch.size() / std::size_t(k.samples);
  const std::size_t n = sample_bytes / (2 * sizeof(double));
  for (long it = 0; it < k.iterations; ++it) {
    const auto slice = std::size_t((timestep * k.iterations + it) % k.samples);
    const double* const x = reinterpret_cast<const double*>(scratch.data() + slice * sample_bytes);
    double* const y = reinterpret_cast<double*>(scratch.data() + slice * sample_bytes) + n;
    for (std::size_t i = 0; i < n; ++i) y[i] += 1.0 * x[i];
  }
}

}  // namespace

std::string_view kernel_name(KernelType type) {
  for (const auto& [name, t] : kernel_names) {
    if (t == type) return name;
  }
  return "unknown";
}

std::optional<KernelType> kernel_type_named(std::string_view name) {
  for (const auto& [n, t] : kernel_names) {
    if (n == name) return t;
  }
  return std::nullopt;
}

std::span<const KernelType> kernel_types_by_name() { return types_by_name; }

bool kernel_uses_scratch(KernelType type) {
  return type == memory_bound || type == compute_dgemm || type == memory_daxpy;
}

long imbalance_iterations(const Kernel& kernel, long graph_index, long timestep, long point) {
  const double u = uniform_from({graph_index, timestep, point});
  return long(std::round((1 + (u - 0.5) * kernel.imbalance) * double(kernel.iterations)));
}

long task_iterations(const TaskGraph& graph, long timestep, long point) {
  return graph.kernel.type == KernelType::load_imbalance
             ? imbalance_iterations(graph.kernel, graph.graph_index, timestep, point)
             : graph.kernel.iterations;
}

long long flops_per_task(const TaskGraph& g, long timestep, long point) {
  switch (g.kernel.type) {
    case compute_dgemm: {
      const auto n = (long long)std::sqrt(double(g.scratch_bytes_per_task / (3 * sizeof(double))));
      return 2 * n * n * n * g.kernel.iterations;
    }
    case compute_bound:
      return 2 * 64 * (long long)g.kernel.iterations + 64;
    case compute_bound2:
      return 2 * 32 * (long long)g.kernel.iterations;
    case load_imbalance:
      return 2 * 64 * (long long)imbalance_iterations(g.kernel, g.graph_index, timestep, point) + 64;
    default:
      return 0;
  }
}

long long bytes_per_task(const TaskGraph& g, long, long) {
  switch (g.kernel.type) {
    case memory_bound:
    case memory_daxpy:
      // Unsigned arithmetic, as Task Bench's size_t product.
      return (long long)(g.scratch_bytes_per_task * std::size_t(g.kernel.iterations) / std::size_t(g.kernel.samples));
    default:
      return 0;
  }
}

void prepare_scratch(std::span<std::byte> scratch) {
  if (scratch.size() % sizeof(std::uint64_t) != 0) {
    throw std::invalid_argument("scratch of " + std::to_string(scratch.size()) + " bytes is not a whole number of words");
  }
  for (std::size_t at = 0; at < scratch.size(); at += sizeof(std::uint64_t)) {
    std::memcpy(scratch.data() + at, &scratch_marker, sizeof(std::uint64_t));
  }
}

bool scratch_is_prepared(std::span<const std::byte> scratch) {
  if (scratch.size() < sizeof(std::uint64_t)) return false;
  std::uint64_t first = 0;
  std::memcpy(&first, scratch.data(), sizeof first);
  return first == scratch_marker;
}

void execute_kernel(const TaskGraph& g, long timestep, long point, std::span<std::byte> scratch) {
  if (scratch.size() != g.scratch_bytes_per_task) {
    throw std::invalid_argument("task (graph " + std::to_string(g.graph_index) + ", timestep " +
                                std::to_string(timestep) + ", point " + std::to_string(point) + ") got " +
                                std::to_string(scratch.size()) + " bytes of scratch, not " +
                                std::to_string(g.scratch_bytes_per_task));
  }
  if (!scratch.empty() && !scratch_is_prepared(scratch)) {
    throw std::invalid_argument("task (graph " + std::to_string(g.graph_index) + ", timestep " +
                                std::to_string(timestep) + ", point " + std::to_string(point) +
                                ") got scratch without the marker: not prepared, or another task's");
  }
  const Kernel& k = g.kernel;
  if ((k.type == memory_bound || k.type == memory_daxpy) && k.samples <= 0) {
    throw std::invalid_argument("kernel " + std::string(kernel_name(k.type)) + " needs at least one sample");
  }
  switch (k.type) {
    case empty:
    case io_bound:
      return;
    case busy_wait:
      return run_busy_wait(k.iterations);
    case memory_bound:
      return run_memory_bound(k, scratch, timestep);
    case compute_dgemm:
      return run_dgemm(k, scratch);
    case memory_daxpy:
      return run_daxpy(k, scratch, timestep);
    case compute_bound:
      return run_compute_bound(k.iterations);
    case compute_bound2:
      return run_compute_bound2(k.iterations);
    case load_imbalance:
      return run_compute_bound(imbalance_iterations(k, g.graph_index, timestep, point));
  }
}

}  // namespace herald::taskbench
