// Task Bench's deterministic randomness: a value in [0, 1) that depends only on a few integers.
//
// Random graphs and the load-imbalance kernel must make the same choices on every rank and in every
// implementation, so they draw nothing from a generator: they hash the integers that name the choice
// (graph, timestep, point, ...) with SipHash-2-4 under the fixed key 01 02 ... 0f 00 and scale the
// 64-bit hash to [0, 1). Hashing the same integers in the same order gives Task Bench's value.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

namespace herald::taskbench {

// SipHash-2-4 (64-bit output) of the little-endian bytes of `words`, under Task Bench's key.
std::uint64_t siphash_words(std::span<const std::int64_t> words);

// The hash scaled to [0, 1): hash * 2^-64.
double uniform_from(std::span<const std::int64_t> seed);
double uniform_from(std::initializer_list<std::int64_t> seed);

}  // namespace herald::taskbench
