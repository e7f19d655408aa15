// Kernels: what Task Bench credits each with, and that each does its work on the scratch it is given.
#include "graph.hpp"
#include "kernel.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace herald::taskbench {
namespace {

using enum KernelType;

TaskGraph with_kernel(KernelType type, long iterations, std::size_t scratch = 0, int samples = 16) {
  TaskGraph g;
  g.kernel = {.type = type, .iterations = iterations, .samples = samples, .imbalance = 0};
  g.scratch_bytes_per_task = scratch;
  return g;
}

std::vector<double> as_doubles(const std::vector<std::byte>& bytes) {
  std::vector<double> d(bytes.size() / sizeof(double));
  std::memcpy(d.data(), bytes.data(), d.size() * sizeof(double));
  return d;
}

void put_doubles(std::vector<std::byte>& bytes, std::size_t first, const std::vector<double>& values) {
  std::memcpy(bytes.data() + first * sizeof(double), values.data(), values.size() * sizeof(double));
}

TEST(TaskBenchKernel, FlopsAndBytesAsTaskBenchCountsThem) {
  EXPECT_EQ(flops_per_task(with_kernel(empty, 100), 0, 0), 0);
  EXPECT_EQ(flops_per_task(with_kernel(busy_wait, 100), 0, 0), 0);
  EXPECT_EQ(flops_per_task(with_kernel(compute_bound, 100), 0, 0), 2 * 64 * 100 + 64);
  EXPECT_EQ(flops_per_task(with_kernel(compute_bound2, 100), 0, 0), 2 * 32 * 100);
  // N = floor(sqrt(scratch / 24)): 98304 bytes give N = 64; 100000 give N = 64 too.
  EXPECT_EQ(flops_per_task(with_kernel(compute_dgemm, 3, 98304), 0, 0), 2LL * 64 * 64 * 64 * 3);
  EXPECT_EQ(flops_per_task(with_kernel(compute_dgemm, 3, 100000), 0, 0), 2LL * 64 * 64 * 64 * 3);
  EXPECT_EQ(flops_per_task(with_kernel(compute_dgemm, 1, 24 * 65 * 65), 0, 0), 2LL * 65 * 65 * 65);
  EXPECT_EQ(bytes_per_task(with_kernel(memory_bound, 8, 65536, 4), 0, 0), 65536 * 8 / 4);
  EXPECT_EQ(bytes_per_task(with_kernel(memory_daxpy, 3, 4096, 3), 0, 0), 4096 * 3 / 3);
  EXPECT_EQ(bytes_per_task(with_kernel(memory_bound, 5, 4096, 3), 0, 0), 4096 * 5 / 3);
  EXPECT_EQ(bytes_per_task(with_kernel(compute_bound, 5, 4096), 0, 0), 0);
  EXPECT_EQ(flops_per_task(with_kernel(io_bound, 5), 0, 0), 0);
  EXPECT_EQ(bytes_per_task(with_kernel(io_bound, 5), 0, 0), 0);
}

// Iterations and FLOPs printed by Task Bench's select_imbalance_iterations() and count_flops_per_task()
// for -kernel load_imbalance -iter 1000 -imbalance 0.5 -width 8 -steps 8 -and -kernel load_imbalance
// -iter 333 -imbalance 2 -width 8 -steps 8 (a program linked to its core, built in /tmp).
TEST(TaskBenchKernel, LoadImbalanceMatchesTaskBench) {
  struct Case {
    long graph, timestep, point, iterations;
    long long flops;
  };
  const std::vector<Case> cases{
      {0, 0, 0, 1219, 156096}, {0, 0, 2, 1165, 149184}, {0, 0, 5, 1068, 136768}, {0, 3, 0, 905, 115904},
      {0, 3, 2, 1077, 137920}, {0, 3, 5, 960, 122944},  {0, 7, 0, 1127, 144320}, {0, 7, 2, 1106, 141632},
      {0, 7, 5, 992, 127040},  {1, 0, 0, 383, 49088},   {1, 0, 2, 544, 69696},   {1, 0, 5, 466, 59712},
      {1, 3, 0, 361, 46272},   {1, 3, 2, 594, 76096},   {1, 3, 5, 638, 81728},   {1, 7, 0, 75, 9664},
      {1, 7, 2, 319, 40896},   {1, 7, 5, 649, 83136},
  };
  for (const Case& c : cases) {
    TaskGraph g = with_kernel(load_imbalance, c.graph == 0 ? 1000 : 333);
    g.kernel.imbalance = c.graph == 0 ? 0.5 : 2.0;
    g.graph_index = c.graph;
    EXPECT_EQ(imbalance_iterations(g.kernel, c.graph, c.timestep, c.point), c.iterations);
    EXPECT_EQ(flops_per_task(g, c.timestep, c.point), c.flops);
  }
  // No imbalance: every task runs exactly -iter iterations.
  EXPECT_EQ(imbalance_iterations({.type = load_imbalance, .iterations = 77}, 0, 5, 5), 77);
}

TEST(TaskBenchKernel, ScratchMarker) {
  std::vector<std::byte> scratch(64);
  EXPECT_FALSE(scratch_is_prepared(scratch));
  prepare_scratch(scratch);
  EXPECT_TRUE(scratch_is_prepared(scratch));
  std::uint64_t word = 0;
  std::memcpy(&word, scratch.data() + 56, 8);
  EXPECT_EQ(word, scratch_marker);
  std::vector<std::byte> odd(12);
  EXPECT_THROW(prepare_scratch(odd), std::invalid_argument);
}

TEST(TaskBenchKernel, EveryKernelRunsAndLeavesTheMarker) {
  for (const KernelType type : kernel_types_by_name()) {
    SCOPED_TRACE(std::string(kernel_name(type)));
    const std::size_t bytes = kernel_uses_scratch(type) ? 3 * 8 * 16 : 64;
    TaskGraph g = with_kernel(type, 20, bytes, 4);
    g.kernel.imbalance = 1;
    std::vector<std::byte> scratch(bytes);
    prepare_scratch(scratch);
    for (long t = 0; t < 5; ++t) execute_kernel(g, t, 1, scratch);
    EXPECT_TRUE(scratch_is_prepared(scratch));
  }
}

TEST(TaskBenchKernel, RefusesWrongOrUnpreparedScratch) {
  const TaskGraph g = with_kernel(memory_bound, 2, 64, 2);
  std::vector<std::byte> small(32);
  prepare_scratch(small);
  EXPECT_THROW(execute_kernel(g, 0, 0, small), std::invalid_argument);
  std::vector<std::byte> blank(64);
  EXPECT_THROW(execute_kernel(g, 0, 0, blank), std::invalid_argument);
  std::vector<std::byte> none;
  EXPECT_NO_THROW(execute_kernel(with_kernel(compute_bound, 3), 0, 0, none));
}

// memory_bound copies the first half of a slice onto its second half; timestep t, iteration i uses slice
// (t * iterations + i) mod samples.
TEST(TaskBenchKernel, MemoryBoundCopiesTheSlicesOfItsIterations) {
  const TaskGraph g = with_kernel(memory_bound, 1, 4 * 32, 4);  // four slices of 32 bytes
  for (long t = 0; t < 6; ++t) {
    std::vector<std::byte> scratch(g.scratch_bytes_per_task);
    prepare_scratch(scratch);
    for (std::size_t i = 8; i < scratch.size(); ++i) scratch[i] = std::byte(i);
    const std::vector<std::byte> before = scratch;
    execute_kernel(g, t, 0, scratch);
    const std::size_t slice = std::size_t(t % 4);
    for (std::size_t i = 0; i < scratch.size(); ++i) {
      const bool in_copy = i >= slice * 32 + 16 && i < slice * 32 + 32;
      const std::byte expected = in_copy ? before[i - 16] : before[i];
      ASSERT_EQ(scratch[i], expected) << "t " << t << " byte " << i;
    }
  }
}

TEST(TaskBenchKernel, DgemmMultipliesTheScratchMatrices) {
  // N = 2: A, B, C column-major, 4 doubles each. A's first word keeps the marker.
  TaskGraph g = with_kernel(compute_dgemm, 1, 3 * 4 * 8);
  std::vector<std::byte> scratch(g.scratch_bytes_per_task);
  prepare_scratch(scratch);
  put_doubles(scratch, 1, {0.0, 0.0, 1.0});          // A = [marker 0; 0 1]
  put_doubles(scratch, 4, {1.0, 3.0, 2.0, 4.0});     // B = [1 2; 3 4]
  put_doubles(scratch, 8, {10.0, 20.0, 30.0, 40.0}); // C
  execute_kernel(g, 0, 0, scratch);
  const std::vector<double> c = as_doubles(scratch);
  EXPECT_EQ(c[9], 20.0 + 3.0);  // C[1][0] += A[1][1] * B[1][0]
  EXPECT_EQ(c[11], 40.0 + 4.0);
  EXPECT_NEAR(c[8], 10.0, 1e-300);
  g.kernel.iterations = 2;
  execute_kernel(g, 0, 0, scratch);
  EXPECT_EQ(as_doubles(scratch)[9], 23.0 + 2 * 3.0);
}

TEST(TaskBenchKernel, DaxpyAddsXToYInItsSlice) {
  const TaskGraph g = with_kernel(memory_daxpy, 1, 2 * 32, 2);  // two slices of x[2], y[2]
  std::vector<std::byte> scratch(g.scratch_bytes_per_task);
  prepare_scratch(scratch);
  put_doubles(scratch, 1, {5.0, 100.0, 200.0});        // slice 0: x = [marker 5], y = [100 200]
  put_doubles(scratch, 4, {1.0, 2.0, 300.0, 400.0});   // slice 1: x = [1 2], y = [300 400]
  execute_kernel(g, 1, 0, scratch);                    // timestep 1: slice 1
  std::vector<double> d = as_doubles(scratch);
  EXPECT_EQ(d[6], 301.0);
  EXPECT_EQ(d[7], 402.0);
  EXPECT_EQ(d[3], 200.0);
  execute_kernel(g, 2, 0, scratch);  // timestep 2: slice 0
  d = as_doubles(scratch);
  EXPECT_EQ(d[3], 205.0);
}

TEST(TaskBenchKernel, NamesRoundTrip) {
  EXPECT_EQ(kernel_types_by_name().size(), 9u);
  for (const KernelType k : kernel_types_by_name()) EXPECT_EQ(kernel_type_named(kernel_name(k)), k);
  EXPECT_FALSE(kernel_type_named("compute"));
  EXPECT_TRUE(kernel_uses_scratch(memory_bound));
  EXPECT_FALSE(kernel_uses_scratch(compute_bound));
}

}  // namespace
}  // namespace herald::taskbench
