// The runtime's own kernels, registered on every rank beside the program's (names start "herald."): the
// built-in reduction operators, and the copies that reductions and partitions are lowered to
// (lowering.hpp). The worker knows one of them: herald.partition's outputs are views of its input.
#pragma once

#include "kernels.hpp"

#include <span>
#include <string_view>
#include <vector>

namespace herald::runtime::detail {

// "herald.identity" fills its output with an operator's identity; "herald.combine" folds every input
// after the first access into the first, in access order. Both take (BuiltinOp, Element) as arguments; a
// program's operator NAME runs as "herald.identity:NAME" and "herald.combine:NAME", without.
inline constexpr std::string_view identity_kernel = "herald.identity";
inline constexpr std::string_view combine_kernel = "herald.combine";
// "herald.assemble" copies its inputs into its output, one after the other.
inline constexpr std::string_view assemble_kernel = "herald.assemble";
// "herald.partition" gives its outputs its input's bytes, one after the other; a worker makes them views of
// the input's replica, so the kernel finds them in place and copies nothing. "herald.partition2d" and
// "herald.unpartition2d" copy the blocks of a row-major matrix out of it and back (arguments: Blocks2D,
// then the element's bytes as std::size_t).
inline constexpr std::string_view partition_kernel = "herald.partition";
inline constexpr std::string_view partition2d_kernel = "herald.partition2d";
inline constexpr std::string_view unpartition2d_kernel = "herald.unpartition2d";

// For the scheduler: filling or copying the first access's bytes, and a pass over every access's bytes.
double fill_cost(std::span<const std::size_t> bytes);
double combine_cost(std::span<const std::size_t> bytes);

// Appends the kernels above (the built-in operators' forms) to `kernels`.
void add_internal_kernels(std::vector<KernelEntry>& kernels);

}  // namespace herald::runtime::detail
