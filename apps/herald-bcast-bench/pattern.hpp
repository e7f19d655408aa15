// The data of the untimed validation pass: the root holds a pattern that depends on the byte's offset, the
// message size and the root, every other rank starts from its complement, so any byte that did not arrive,
// arrived at the wrong offset or came from another message shows up.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace herald::bench {

std::byte pattern_byte(std::size_t offset, std::size_t size, int root) noexcept;

// The root's buffer gets the pattern, the others its complement.
void fill_for_validation(std::span<std::byte> buffer, int root, int rank);

// The first offset whose byte differs from the pattern, if any.
std::optional<std::size_t> first_mismatch(std::span<const std::byte> buffer, int root);

}  // namespace herald::bench
