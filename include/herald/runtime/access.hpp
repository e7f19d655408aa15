// How a task uses a piece of data.
#pragma once

#include <cstdint>

namespace herald::runtime {

// reduce: the task contributes to the datum under a reduction operator (Use::op), in any order with the
// other contributions until the datum is next used otherwise. Its kernel reads and writes a private
// partial of its rank, which starts at the operator's identity (docs/runtime.md, "Reductions").
// scratch: no datum; space of Use::bytes for the task alone, which its kernel writes (TaskContext::out),
// never moved, and reused by the worker's later tasks ("Scratch space").
enum class Mode : std::uint8_t { in, out, inout, reduce, scratch };

constexpr bool reads(Mode m) noexcept { return m != Mode::out; }
constexpr bool writes(Mode m) noexcept { return m != Mode::in; }

}  // namespace herald::runtime
