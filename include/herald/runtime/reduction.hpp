// Reductions in the task runtime (docs/runtime.md, "Reductions"): the element types built-in operators
// work on, user operators, and how the ranks' partials combine.
#pragma once

#include <herald/error.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <type_traits>

namespace herald::runtime {

// What a datum holds, for the built-in operators ("sum", "min", "max"): Head::data(std::span<T>) records it
// for the arithmetic types; bytes otherwise.
enum class Element : std::uint8_t { bytes, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64 };

template <class T>
constexpr Element element_of() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return Element::f32;
  else if constexpr (std::is_same_v<U, double>) return Element::f64;
  else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, bool>) {
    constexpr bool s = std::is_signed_v<U>;
    if constexpr (sizeof(U) == 1) return s ? Element::i8 : Element::u8;
    else if constexpr (sizeof(U) == 2) return s ? Element::i16 : Element::u16;
    else if constexpr (sizeof(U) == 4) return s ? Element::i32 : Element::u32;
    else if constexpr (sizeof(U) == 8) return s ? Element::i64 : Element::u64;
    else return Element::bytes;
  } else {
    return Element::bytes;
  }
}
std::size_t element_size(Element e) noexcept;  // 1 for bytes
const char* to_string(Element e) noexcept;

// A user's operator (Runtime::reduction): `identity` fills a fresh partial with the operator's identity;
// `combine` folds `from` into `into` (same size). It must be associative and commutative: the runtime
// combines partials in a tree whose shape depends on the ranks, not on submission order. An operator that
// works element by element (the built-ins, and Runtime::reduction<T>) may also be given pieces of the
// datum, so that the ranks share the combining (ReductionStrategy::scatter).
using Initializer = std::function<void(std::span<std::byte> partial)>;
using Combiner = std::function<void(std::span<std::byte> into, std::span<const std::byte> from)>;

// How the ranks' partials of a reduction meet (Options::reduction, HERALD_RUNTIME_REDUCE).
enum class ReductionStrategy {
  tree,        // a binomial tree over the ranks that contributed: log2(ranks) rounds, partials in parallel
  all_to_one,  // every partial sent to one rank and combined there, in rank order
  scatter,     // each of the m contributing ranks combines one m-th of the datum from every partial, and
               // the value stays in those pieces until a use gathers them (readers on known workers: each
               // its own copy): each rank's link carries about twice the datum whatever m (element-wise
               // operators only; the others fall back to tree)
  automatic,   // per reduction, the one the cost model (Options::link) prices fastest
};
// "tree", "all_to_one", "scatter", "auto"; throws herald::Error naming `what`, the text and the choices for
// anything else.
ReductionStrategy reduction_strategy_from_string(std::string_view text, std::string_view what = "reduction strategy");
const char* to_string(ReductionStrategy s) noexcept;

}  // namespace herald::runtime
