// How a task uses a piece of data.
#pragma once

#include <cstdint>

namespace herald::runtime {

// reduce: the task contributes to the datum under a reduction operator (Use::op), in any order with the
// other contributions until the datum is next used otherwise. Its kernel reads and writes a private
// partial of its rank, which starts at the operator's identity (docs/runtime.md, "Reductions").
// scratch: no datum; space of Use::bytes for the task alone, which its kernel writes (TaskContext::out),
// never moved, and reused by the worker's later tasks ("Scratch space").
// commute: the task reads and writes the datum (TaskContext::inout), one such task at a time, in the order
// they become ready rather than the order they were submitted (StarPU's STARPU_COMMUTE, OpenMP's
// mutexinoutset); the rank owning the datum grants the turns ("Commutative updates").
enum class Mode : std::uint8_t { in, out, inout, reduce, scratch, commute };

// Whether the task reads (writes) a version the runtime's plan delivers (records). A commute use reads and
// writes too, but its versions are handed over at run time, in turns, so the plan sees neither.
constexpr bool reads(Mode m) noexcept { return m != Mode::out && m != Mode::commute; }
constexpr bool writes(Mode m) noexcept { return m != Mode::in && m != Mode::commute; }

}  // namespace herald::runtime
