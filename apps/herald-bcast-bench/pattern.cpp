#include "pattern.hpp"

#include <cstdint>

namespace herald::bench {

std::byte pattern_byte(std::size_t offset, std::size_t size, int root) noexcept {
  // A splitmix64 finaliser: neighbouring offsets, and offsets a segment apart, get unrelated bytes.
  std::uint64_t x = offset + 0x9e3779b97f4a7c15ULL * (size + 1) + 0xbf58476d1ce4e5b9ULL * (root + 1ULL);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<std::byte>(x & 0xff);
}

void fill_for_validation(std::span<std::byte> buffer, int root, int rank) {
  const std::size_t size = buffer.size();
  const bool is_root = rank == root;
  for (std::size_t i = 0; i < size; ++i) {
    const std::byte b = pattern_byte(i, size, root);
    buffer[i] = is_root ? b : ~b;
  }
}

std::optional<std::size_t> first_mismatch(std::span<const std::byte> buffer, int root) {
  const std::size_t size = buffer.size();
  for (std::size_t i = 0; i < size; ++i)
    if (buffer[i] != pattern_byte(i, size, root)) return i;
  return std::nullopt;
}

}  // namespace herald::bench
