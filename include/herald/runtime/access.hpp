// How a task uses a piece of data.
#pragma once

#include <cstdint>

namespace herald::runtime {

enum class Mode : std::uint8_t { in, out, inout };

constexpr bool reads(Mode m) noexcept { return m != Mode::out; }
constexpr bool writes(Mode m) noexcept { return m != Mode::in; }

}  // namespace herald::runtime
