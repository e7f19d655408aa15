// The order in which a reduction's partials meet, and the built-in operators, without MPI.
#include "reduction_tree.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

namespace herald::runtime::detail {
namespace {

// Runs the steps over sets of contributions: every partial starts with its own; a step moves `from`'s set
// into `into`'s. Fails on a partial folded twice, a folded partial used again, or a set combined twice.
void check_folds_everything_once(std::size_t n, std::size_t root, ReductionStrategy strategy) {
  SCOPED_TRACE("partials " + std::to_string(n) + ", root " + std::to_string(root) + ", " + to_string(strategy));
  std::vector<std::multiset<std::size_t>> held(n);
  for (std::size_t i = 0; i < n; ++i) held[i].insert(i);
  std::vector<bool> gone(n, false);
  const auto steps = combine_steps(n, root, strategy);
  ASSERT_EQ(steps.size(), n - 1);
  for (const CombineStep& s : steps) {
    ASSERT_LT(s.into, n);
    ASSERT_LT(s.from, n);
    ASSERT_NE(s.into, s.from);
    ASSERT_FALSE(gone[s.into]) << "partial " << s.into << " used after it was folded";
    ASSERT_FALSE(gone[s.from]) << "partial " << s.from << " folded twice";
    held[s.into].insert(held[s.from].begin(), held[s.from].end());
    held[s.from].clear();
    gone[s.from] = true;
  }
  std::multiset<std::size_t> all;
  for (std::size_t i = 0; i < n; ++i) all.insert(i);
  EXPECT_EQ(held[root], all);
}

TEST(CombineSteps, EveryPartialFoldedExactlyOnceForEveryCountAndRoot) {
  for (std::size_t n = 1; n <= 64; ++n)
    for (std::size_t root = 0; root < n; ++root)
      for (auto strategy : {ReductionStrategy::tree, ReductionStrategy::all_to_one})
        check_folds_everything_once(n, root, strategy);
}

TEST(CombineSteps, TheTreeTakesLogarithmicRounds) {
  // A round: steps touching disjoint partials, in order. The binomial tree needs ceil(log2 n) of them.
  for (std::size_t n = 2; n <= 64; ++n) {
    const auto steps = combine_steps(n, n / 3, ReductionStrategy::tree);
    std::vector<std::size_t> ready(n, 0);  // the round after which each partial is free again
    std::size_t rounds = 0;
    for (const CombineStep& s : steps) {
      const std::size_t round = std::max(ready[s.into], ready[s.from]) + 1;
      ready[s.into] = round;
      rounds = std::max(rounds, round);
    }
    EXPECT_EQ(rounds, static_cast<std::size_t>(std::ceil(std::log2(static_cast<double>(n))))) << n << " partials";
  }
}

TEST(CombineSteps, AllToOneFoldsIntoTheRootInRingOrder) {
  const auto steps = combine_steps(5, 3, ReductionStrategy::all_to_one);
  const std::vector<CombineStep> expected{{3, 4}, {3, 0}, {3, 1}, {3, 2}};
  EXPECT_EQ(steps, expected);
}

TEST(PieceSizes, TileTheDatumInWholeElements) {
  for (std::size_t element : {1U, 4U, 8U})
    for (std::size_t pieces = 1; pieces <= 64; ++pieces)
      for (std::size_t bytes : {std::size_t{0}, element, 7 * element, 1000 * element, 1048576 / element * element}) {
        const auto sizes = piece_sizes(bytes, element, pieces);
        ASSERT_EQ(sizes.size(), pieces);
        std::size_t total = 0, largest = 0, smallest = bytes;
        for (std::size_t s : sizes) {
          EXPECT_EQ(s % element, 0U);
          total += s;
          largest = std::max(largest, s);
          smallest = std::min(smallest, s);
        }
        EXPECT_EQ(total, bytes);
        EXPECT_LE(largest - smallest, element) << bytes << " bytes in " << pieces;
      }
  // Untyped bytes that are no whole number of elements: the tail goes to the last piece.
  EXPECT_EQ(piece_sizes(10, 4, 3), (std::vector<std::size_t>{4, 4, 2}));
}

TEST(ResolveReduction, PricesTheStrategies) {
  const Link ten_gbit{.alpha = 2e-6, .beta = 8e-10};
  // Large data over many partials: scatter, where the operator allows pieces; tree where it does not.
  EXPECT_EQ(resolve_reduction(ReductionStrategy::automatic, 16, 1 << 20, true, ten_gbit, 1e-5), ReductionStrategy::scatter);
  EXPECT_EQ(resolve_reduction(ReductionStrategy::automatic, 16, 1 << 20, false, ten_gbit, 1e-5), ReductionStrategy::tree);
  // A few bytes: scatter's 2 (m - 1) messages and three tasks lose to either of the others.
  EXPECT_NE(resolve_reduction(ReductionStrategy::automatic, 16, 8, true, ten_gbit, 1e-5), ReductionStrategy::scatter);
  // Whatever it picks is the cheapest under the model, at every count and size.
  for (std::size_t m = 1; m <= 64; ++m)
    for (std::size_t bytes : {std::size_t{8}, std::size_t{1} << 14, std::size_t{1} << 20, std::size_t{1} << 26}) {
      const auto chosen = resolve_reduction(ReductionStrategy::automatic, m, bytes, true, ten_gbit, 1e-5);
      for (auto other : {ReductionStrategy::tree, ReductionStrategy::all_to_one, ReductionStrategy::scatter})
        EXPECT_LE(reduction_seconds(chosen, m, bytes, ten_gbit, 1e-5), reduction_seconds(other, m, bytes, ten_gbit, 1e-5))
            << m << " partials, " << bytes << " bytes: " << to_string(chosen) << " over " << to_string(other);
    }
  // Two partials: one combine either way; ties go to tree.
  EXPECT_EQ(resolve_reduction(ReductionStrategy::automatic, 2, 8, true, ten_gbit, 1e-5), ReductionStrategy::tree);
  // Given strategies stand, but scatter needs an element-wise operator.
  EXPECT_EQ(resolve_reduction(ReductionStrategy::all_to_one, 16, 1 << 20, true, ten_gbit, 1e-5), ReductionStrategy::all_to_one);
  EXPECT_EQ(resolve_reduction(ReductionStrategy::scatter, 16, 1 << 20, false, ten_gbit, 1e-5), ReductionStrategy::tree);
  // The prices behind it: the tree's rounds grow with log2 m, scatter's link load does not.
  EXPECT_NEAR(reduction_seconds(ReductionStrategy::tree, 64, 1 << 20, ten_gbit, 0), 6 * (2e-6 + 8e-10 * (1 << 20)), 1e-12);
  const double scatter16 = reduction_seconds(ReductionStrategy::scatter, 16, 1 << 20, ten_gbit, 0);
  const double scatter64 = reduction_seconds(ReductionStrategy::scatter, 64, 1 << 20, ten_gbit, 0);
  EXPECT_LT(scatter64, 1.2 * scatter16);
  EXPECT_LT(scatter64, reduction_seconds(ReductionStrategy::tree, 64, 1 << 20, ten_gbit, 0) / 2);
}

TEST(BuiltinOperators, IdentitiesAndCombines) {
  std::vector<double> a(3), b{1.5, -2.0, 4.0};
  builtin_identity(BuiltinOp::sum, Element::f64, std::as_writable_bytes(std::span(a)));
  EXPECT_EQ(a, (std::vector<double>{0, 0, 0}));
  builtin_identity(BuiltinOp::min, Element::f64, std::as_writable_bytes(std::span(a)));
  EXPECT_EQ(a[0], std::numeric_limits<double>::infinity());
  builtin_combine(BuiltinOp::min, Element::f64, std::as_writable_bytes(std::span(a)), std::as_bytes(std::span(b)));
  EXPECT_EQ(a, b);
  std::vector<std::int32_t> i(2), j{-7, 9};
  builtin_identity(BuiltinOp::max, Element::i32, std::as_writable_bytes(std::span(i)));
  EXPECT_EQ(i[0], std::numeric_limits<std::int32_t>::lowest());
  builtin_combine(BuiltinOp::max, Element::i32, std::as_writable_bytes(std::span(i)), std::as_bytes(std::span(j)));
  EXPECT_EQ(i, j);
  std::vector<std::uint16_t> u{65535, 1}, v{1, 2};
  builtin_combine(BuiltinOp::sum, Element::u16, std::as_writable_bytes(std::span(u)), std::as_bytes(std::span(v)));
  EXPECT_EQ(u, (std::vector<std::uint16_t>{0, 3}));  // unsigned wraps, as in C++
  std::vector<std::int64_t> s{std::numeric_limits<std::int64_t>::max()}, one{1};
  builtin_combine(BuiltinOp::sum, Element::i64, std::as_writable_bytes(std::span(s)), std::as_bytes(std::span(one)));
  EXPECT_EQ(s[0], std::numeric_limits<std::int64_t>::min());  // signed wraps too (two's complement), no overflow
  BuiltinOp op{};
  EXPECT_TRUE(builtin_op("max", op));
  EXPECT_EQ(op, BuiltinOp::max);
  EXPECT_FALSE(builtin_op("prod", op));
}

TEST(ReductionStrategy, NamesRoundTripAndBadOnesAreNamed) {
  EXPECT_EQ(reduction_strategy_from_string("all_to_one"), ReductionStrategy::all_to_one);
  EXPECT_EQ(reduction_strategy_from_string("tree"), ReductionStrategy::tree);
  EXPECT_EQ(reduction_strategy_from_string("scatter"), ReductionStrategy::scatter);
  EXPECT_EQ(reduction_strategy_from_string("auto"), ReductionStrategy::automatic);
  try {
    reduction_strategy_from_string("tre", "HERALD_RUNTIME_REDUCE");
    FAIL() << "accepted 'tre'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("HERALD_RUNTIME_REDUCE 'tre'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tree"), std::string::npos) << e.what();
  }
}

TEST(Element, OfTheArithmeticTypes) {
  static_assert(element_of<double>() == Element::f64);
  static_assert(element_of<const float>() == Element::f32);
  static_assert(element_of<std::int64_t>() == Element::i64);
  static_assert(element_of<unsigned char>() == Element::u8);
  static_assert(element_of<bool>() == Element::bytes);
  struct Pair { int a, b; };
  static_assert(element_of<Pair>() == Element::bytes);
  EXPECT_EQ(element_size(Element::i16), 2U);
  EXPECT_STREQ(to_string(Element::f64), "double");
}

}  // namespace
}  // namespace herald::runtime::detail
