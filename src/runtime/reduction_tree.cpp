#include "reduction_tree.hpp"

#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace herald::runtime {

std::size_t element_size(Element e) noexcept {
  switch (e) {
    case Element::bytes:
    case Element::i8:
    case Element::u8: return 1;
    case Element::i16:
    case Element::u16: return 2;
    case Element::i32:
    case Element::u32:
    case Element::f32: return 4;
    case Element::i64:
    case Element::u64:
    case Element::f64: return 8;
  }
  return 1;
}

const char* to_string(Element e) noexcept {
  switch (e) {
    case Element::bytes: return "bytes";
    case Element::i8: return "int8";
    case Element::u8: return "uint8";
    case Element::i16: return "int16";
    case Element::u16: return "uint16";
    case Element::i32: return "int32";
    case Element::u32: return "uint32";
    case Element::i64: return "int64";
    case Element::u64: return "uint64";
    case Element::f32: return "float";
    case Element::f64: return "double";
  }
  return "?";
}

ReductionStrategy reduction_strategy_from_string(std::string_view text, std::string_view what) {
  std::vector<std::string_view> choices;
  for (ReductionStrategy s : {ReductionStrategy::tree, ReductionStrategy::all_to_one, ReductionStrategy::scatter,
                              ReductionStrategy::automatic}) {
    if (text == to_string(s)) return s;
    choices.emplace_back(to_string(s));
  }
  throw Error(Errc::invalid_argument, not_one_of(what, text, choices));
}

const char* to_string(ReductionStrategy s) noexcept {
  switch (s) {
    case ReductionStrategy::tree: return "tree";
    case ReductionStrategy::all_to_one: return "all_to_one";
    case ReductionStrategy::scatter: return "scatter";
    case ReductionStrategy::automatic: return "auto";
  }
  return "?";
}

namespace detail {

std::vector<CombineStep> combine_steps(std::size_t partials, std::size_t root, ReductionStrategy strategy) {
  std::vector<CombineStep> steps;
  if (partials < 2) return steps;
  const auto at = [&](std::size_t relative) { return (relative + root) % partials; };
  if (strategy == ReductionStrategy::all_to_one) {
    for (std::size_t r = 1; r < partials; ++r) steps.push_back({root, at(r)});
    return steps;
  }
  // Binomial, by rank relative to the root: in the round of `mask`, relative rank v (a multiple of
  // 2 * mask) takes v + mask, which has folded in its own subtree in the earlier rounds.
  for (std::size_t mask = 1; mask < partials; mask <<= 1)
    for (std::size_t v = 0; v + mask < partials; v += 2 * mask) steps.push_back({at(v), at(v + mask)});
  return steps;
}

std::vector<std::size_t> piece_sizes(std::size_t bytes, std::size_t element_bytes, std::size_t pieces) {
  std::vector<std::size_t> sizes(pieces, 0);
  if (pieces == 0) return sizes;
  const std::size_t unit = std::max<std::size_t>(element_bytes, 1);
  const std::size_t elements = bytes / unit;
  for (std::size_t i = 0; i < pieces; ++i) sizes[i] = (elements / pieces + (i < elements % pieces ? 1 : 0)) * unit;
  sizes.back() += bytes - elements * unit;  // a tail shorter than an element (untyped data): the last piece's
  return sizes;
}

double reduction_seconds(ReductionStrategy strategy, std::size_t partials, std::size_t bytes, const Link& link,
                         double task_seconds) {
  const auto m = static_cast<double>(partials);
  const double whole = link.beta * static_cast<double>(bytes);
  if (partials < 2) return task_seconds;
  switch (strategy) {
    case ReductionStrategy::all_to_one: return link.alpha + (m - 1) * (whole + link.alpha) + task_seconds;
    case ReductionStrategy::scatter:
      // Two phases (each rank's piece from every partial, then the pieces to one rank); in each, a link
      // carries (m - 1)/m of the datum in m - 1 messages, and three tasks stand on the way.
      return 2 * (link.alpha + (m - 1) / m * whole + (m - 1) * link.alpha) + 3 * task_seconds;
    case ReductionStrategy::tree:
    case ReductionStrategy::automatic: break;
  }
  return std::ceil(std::log2(m)) * (link.alpha + whole + task_seconds);
}

ReductionStrategy resolve_reduction(ReductionStrategy strategy, std::size_t partials, std::size_t bytes,
                                   bool elementwise, const Link& link, double task_seconds) {
  if (strategy == ReductionStrategy::scatter && !elementwise) return ReductionStrategy::tree;
  if (strategy != ReductionStrategy::automatic) return strategy;
  ReductionStrategy best = ReductionStrategy::tree;
  double best_seconds = reduction_seconds(best, partials, bytes, link, task_seconds);
  for (ReductionStrategy s : {ReductionStrategy::all_to_one, ReductionStrategy::scatter}) {
    if (s == ReductionStrategy::scatter && !elementwise) continue;
    const double seconds = reduction_seconds(s, partials, bytes, link, task_seconds);
    if (seconds < best_seconds) best = s, best_seconds = seconds;
  }
  return best;
}

bool builtin_op(std::string_view name, BuiltinOp& op) noexcept {
  if (name == "sum") op = BuiltinOp::sum;
  else if (name == "min") op = BuiltinOp::min;
  else if (name == "max") op = BuiltinOp::max;
  else return false;
  return true;
}

namespace {

template <class T>
void identity_of(BuiltinOp op, std::span<std::byte> partial) {
  T value{};
  if (op == BuiltinOp::min)
    value = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  if (op == BuiltinOp::max)
    value = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  for (std::size_t at = 0; at + sizeof(T) <= partial.size(); at += sizeof(T)) std::memcpy(partial.data() + at, &value, sizeof(T));
}

template <class T>
void combine_of(BuiltinOp op, std::span<std::byte> into, std::span<const std::byte> from) {
  const std::size_t n = std::min(into.size(), from.size()) / sizeof(T);
  for (std::size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, into.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&b, from.data() + i * sizeof(T), sizeof(T));
    switch (op) {
      case BuiltinOp::sum:
        if constexpr (std::is_integral_v<T>)  // wraps, as unsigned arithmetic does, where a signed sum would overflow
          a = static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
        else
          a = a + b;
        break;
      case BuiltinOp::min: a = std::min(a, b); break;
      case BuiltinOp::max: a = std::max(a, b); break;
    }
    std::memcpy(into.data() + i * sizeof(T), &a, sizeof(T));
  }
}

template <template <class> class F, class... Args>
void by_element(Element e, Args&&... args) {
  switch (e) {
    case Element::i8: return F<std::int8_t>::run(args...);
    case Element::u8:
    case Element::bytes: return F<std::uint8_t>::run(args...);
    case Element::i16: return F<std::int16_t>::run(args...);
    case Element::u16: return F<std::uint16_t>::run(args...);
    case Element::i32: return F<std::int32_t>::run(args...);
    case Element::u32: return F<std::uint32_t>::run(args...);
    case Element::i64: return F<std::int64_t>::run(args...);
    case Element::u64: return F<std::uint64_t>::run(args...);
    case Element::f32: return F<float>::run(args...);
    case Element::f64: return F<double>::run(args...);
  }
}

template <class T>
struct Identity {
  static void run(BuiltinOp op, std::span<std::byte> partial) { identity_of<T>(op, partial); }
};
template <class T>
struct Combine {
  static void run(BuiltinOp op, std::span<std::byte> into, std::span<const std::byte> from) { combine_of<T>(op, into, from); }
};

}  // namespace

void builtin_identity(BuiltinOp op, Element element, std::span<std::byte> partial) {
  by_element<Identity>(element, op, partial);
}

void builtin_combine(BuiltinOp op, Element element, std::span<std::byte> into, std::span<const std::byte> from) {
  by_element<Combine>(element, op, into, from);
}

}  // namespace detail
}  // namespace herald::runtime
