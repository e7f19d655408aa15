#include "internal_kernels.hpp"

#include "reduction_tree.hpp"

#include <herald/runtime/runtime.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace herald::runtime::detail {

// About 10 GB/s to fill or copy, 4 GB/s to combine: only the order of magnitude matters to HEFT.
double fill_cost(std::span<const std::size_t> bytes) { return bytes.empty() ? 0 : static_cast<double>(bytes[0]) * 1e-10; }

double combine_cost(std::span<const std::size_t> bytes) {
  double total = 0;
  for (std::size_t b : bytes) total += static_cast<double>(b);
  return total * 2.5e-10;
}

void add_internal_kernels(std::vector<KernelEntry>& kernels) {
  // The built-in reduction operators, on every rank: (BuiltinOp, Element) in the arguments.
  kernels.push_back({std::string(identity_kernel), [](TaskContext& t) {
                         builtin_identity(t.argument<BuiltinOp>(), t.argument<Element>(1), t.out(0));
                       }, fill_cost});
  kernels.push_back({std::string(combine_kernel), [](TaskContext& t) {
                         const auto op = t.argument<BuiltinOp>();
                         const auto element = t.argument<Element>(1);
                         for (std::size_t i = 1; i < t.accesses(); ++i) builtin_combine(op, element, t.out(0), t.in(i));
                       }, combine_cost});
  kernels.push_back({std::string(assemble_kernel), [](TaskContext& t) {
                         const auto whole = t.out(0);
                         std::size_t at = 0;
                         for (std::size_t i = 1; i < t.accesses(); ++i) {
                           const auto piece = t.in(i);
                           if (!piece.empty()) std::memcpy(whole.data() + at, piece.data(), piece.size());
                           at += piece.size();
                         }
                       }, fill_cost});
  // Partitions. A worker makes herald.partition's outputs views of its input, so that the copy below
  // finds each piece in place already; it copies where a piece is not (a worker that did not).
  kernels.push_back({std::string(partition_kernel), [](TaskContext& t) {
                         const auto whole = t.in(0);
                         std::size_t at = 0;
                         for (std::size_t i = 1; i < t.accesses(); ++i) {
                           const auto piece = t.out(i);
                           if (!piece.empty() && piece.data() != whole.data() + at)
                             std::memcpy(piece.data(), whole.data() + at, piece.size());
                           at += piece.size();
                         }
                       }, fill_cost});
  // Every row of every block (row-major block order): (block, offset in the matrix, offset in the block,
  // bytes), for the copies both ways.
  const auto rows_of_blocks = [](TaskContext& t, const auto& copy) {
    const auto g = t.argument<Blocks2D>();
    const auto element = t.argument<std::size_t>(sizeof(Blocks2D));
    std::size_t i = 1;
    for (std::size_t r = 0; r < g.rows; r += g.block_rows)
      for (std::size_t c = 0; c < g.columns; c += g.block_columns, ++i) {
        const std::size_t rows = std::min(g.block_rows, g.rows - r), columns = std::min(g.block_columns, g.columns - c);
        for (std::size_t row = 0; row < rows; ++row)
          copy(i, ((r + row) * g.columns + c) * element, row * columns * element, columns * element);
      }
  };
  kernels.push_back({std::string(partition2d_kernel), [rows_of_blocks](TaskContext& t) {
                         const auto matrix = t.in(0);
                         rows_of_blocks(t, [&](std::size_t i, std::size_t in_matrix, std::size_t in_block, std::size_t n) {
                           std::memcpy(t.out(i).data() + in_block, matrix.data() + in_matrix, n);
                         });
                       }, fill_cost});
  kernels.push_back({std::string(unpartition2d_kernel), [rows_of_blocks](TaskContext& t) {
                         const auto matrix = t.out(0);
                         rows_of_blocks(t, [&](std::size_t i, std::size_t in_matrix, std::size_t in_block, std::size_t n) {
                           std::memcpy(matrix.data() + in_matrix, t.in(i).data() + in_block, n);
                         });
                       }, fill_cost});
}

}  // namespace herald::runtime::detail
