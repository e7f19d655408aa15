#include "random.hpp"

#include <array>
#include <bit>

namespace herald::taskbench {
namespace {

// The key's bytes are 1, 2, ..., 15, 0; read as two little-endian words.
constexpr std::uint64_t key_word(int first_byte) {
  std::uint64_t word = 0;
  for (int i = 0; i < 8; ++i) {
    const int value = first_byte + i <= 15 ? first_byte + i : 0;
    word |= std::uint64_t(value) << (8 * i);
  }
  return word;
}
constexpr std::uint64_t k0 = key_word(1);
constexpr std::uint64_t k1 = key_word(9);

struct SipState {
  std::array<std::uint64_t, 4> v{0x736f6d6570736575ULL ^ k0, 0x646f72616e646f6dULL ^ k1,
                                 0x6c7967656e657261ULL ^ k0, 0x7465646279746573ULL ^ k1};

  void round() {
    v[0] += v[1];
    v[1] = std::rotl(v[1], 13);
    v[1] ^= v[0];
    v[0] = std::rotl(v[0], 32);
    v[2] += v[3];
    v[3] = std::rotl(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = std::rotl(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = std::rotl(v[1], 17);
    v[1] ^= v[2];
    v[2] = std::rotl(v[2], 32);
  }

  // Two compression rounds per message word.
  void absorb(std::uint64_t m) {
    v[3] ^= m;
    round();
    round();
    v[0] ^= m;
  }
};

}  // namespace

std::uint64_t siphash_words(std::span<const std::int64_t> words) {
  static_assert(std::endian::native == std::endian::little,
                "Task Bench hashes the in-memory bytes of its integers; this reproduces a little-endian host");
  SipState s;
  for (const std::int64_t w : words) s.absorb(std::uint64_t(w));
  // Whole words only, so the last block holds nothing but the message length in bytes.
  s.absorb(std::uint64_t(words.size() * 8) << 56);
  s.v[2] ^= 0xff;
  for (int i = 0; i < 4; ++i) s.round();
  return s.v[0] ^ s.v[1] ^ s.v[2] ^ s.v[3];
}

double uniform_from(std::span<const std::int64_t> seed) {
  return double(siphash_words(seed)) * 0x1p-64;
}

double uniform_from(std::initializer_list<std::int64_t> seed) {
  return uniform_from(std::span(seed.begin(), seed.size()));
}

}  // namespace herald::taskbench
