// The work a task does: Task Bench's kernels, the FLOPs and bytes it credits each one with, and the
// per-task scratch memory some of them walk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace herald::taskbench {

struct TaskGraph;  // graph.hpp; the functions below read its kernel, scratch size and graph index

enum class KernelType {
  empty,           // nothing
  busy_wait,       // an integer recurrence, `iterations` steps
  memory_bound,    // copies within the scratch buffer, one sample per iteration
  compute_dgemm,   // C += A * B on three square matrices in the scratch buffer, `iterations` times
  memory_daxpy,    // y += x over one sample of the scratch buffer per iteration
  compute_bound,   // 64 independent multiply-adds per iteration
  compute_bound2,  // 32 multiply-accumulates per iteration
  io_bound,        // no body in Task Bench (its version stops on an assertion); here: nothing
  load_imbalance,  // compute_bound with a per-task iteration count drawn from -imbalance
};

struct Kernel {
  KernelType type = KernelType::empty;
  long iterations = 0;     // -iter
  int samples = 16;        // -sample: how many slices the memory kernels cycle through
  double imbalance = 0.0;  // -imbalance, in [0, 2]: spread of load_imbalance's iteration counts
};

// Task Bench's kernel names ("busy_wait", ...), in its help listing's (alphabetical) order.
std::string_view kernel_name(KernelType type);
std::optional<KernelType> kernel_type_named(std::string_view name);
std::span<const KernelType> kernel_types_by_name();

// Kernels that read and write the scratch buffer and so need -scratch > 0.
bool kernel_uses_scratch(KernelType type);

// load_imbalance's iterations for one task: round((1 + (u - 1/2) * imbalance) * iterations) with u
// Task Bench's uniform value of (graph, timestep, point).
long imbalance_iterations(const Kernel& kernel, long graph_index, long timestep, long point);
// The iterations task (timestep, point) of the graph runs: -iter, or load_imbalance's draw.
long task_iterations(const TaskGraph& graph, long timestep, long point);

// What Task Bench's summary credits one task with. compute_dgemm counts 2 N^3 per iteration with
// N = floor(sqrt(scratch / 24)); the memory kernels count scratch * iterations / samples bytes.
long long flops_per_task(const TaskGraph& graph, long timestep, long point);
long long bytes_per_task(const TaskGraph& graph, long timestep, long point);

// Scratch memory starts as one 64-bit marker repeated; a task finds the marker in its first word, which
// no kernel writes, and so notices a buffer that is not its own or was never prepared.
inline constexpr std::uint64_t scratch_marker = 0x5C4A7C8B;
void prepare_scratch(std::span<std::byte> scratch);  // size a multiple of 8
bool scratch_is_prepared(std::span<const std::byte> scratch);

// Runs the graph's kernel for the task (timestep, point) on its scratch, whose size must be the graph's
// scratch bytes per task. Throws std::invalid_argument when it is not, or when a non-empty scratch
// lacks the marker (Task Bench checks every non-empty scratch, whatever the kernel).
void execute_kernel(const TaskGraph& graph, long timestep, long point, std::span<std::byte> scratch);

}  // namespace herald::taskbench
