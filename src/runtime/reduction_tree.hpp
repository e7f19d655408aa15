// The pure half of reductions: in what order the ranks' partials meet, and the built-in operators. No MPI,
// tested without it.
#pragma once

#include <herald/runtime/reduction.hpp>
#include <herald/runtime/scheduling.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace herald::runtime::detail {

// One combine: partial `from` folded into partial `into`.
struct CombineStep {
  std::size_t into = 0;
  std::size_t from = 0;
  friend bool operator==(const CombineStep&, const CombineStep&) = default;
};

// The combines that leave partial `root` of `partials` holding every partial, each folded in exactly once:
// tree: a binomial tree rooted at `root`, round by round (a partial is folded into another only once it
// holds its whole subtree, so the rounds' steps may run in parallel); all_to_one: every other partial into
// `root`, in index order from root + 1 round the ring. The order depends only on the arguments, so that
// floating-point results are the same run to run.
std::vector<CombineStep> combine_steps(std::size_t partials, std::size_t root, ReductionStrategy strategy);

// ReductionStrategy::scatter's pieces: `bytes` cut into `pieces` runs of whole elements of `element_bytes`,
// as even as whole elements allow (the first ones one element longer); their sizes, in order, summing to
// `bytes`. Some are empty when there are fewer elements than pieces.
std::vector<std::size_t> piece_sizes(std::size_t bytes, std::size_t element_bytes, std::size_t pieces);

// What each strategy is priced at under `link`, for `partials` partials of `bytes`: tree, ceil(log2 m)
// rounds of a whole partial; all_to_one, m - 1 partials into one link; scatter, twice (m - 1)/m of the
// datum through each link. Every task on the way costs `task_seconds` and every message `link.alpha`.
double reduction_seconds(ReductionStrategy strategy, std::size_t partials, std::size_t bytes, const Link& link,
                         double task_seconds);
// ReductionStrategy::automatic resolved: the cheapest of the three (scatter only where `elementwise`);
// ties go to tree. Any other strategy is returned as given, scatter as tree where not `elementwise`.
ReductionStrategy resolve_reduction(ReductionStrategy strategy, std::size_t partials, std::size_t bytes,
                                   bool elementwise, const Link& link, double task_seconds);

// The built-in operators on `element`.
enum class BuiltinOp : std::uint8_t { sum, min, max };
// "sum", "min", "max"; nothing for any other name.
bool builtin_op(std::string_view name, BuiltinOp& op) noexcept;
// Fills `partial` with the identity of `op` (0, the type's largest, its smallest; infinities for floats).
void builtin_identity(BuiltinOp op, Element element, std::span<std::byte> partial);
// into[i] = op(into[i], from[i]) element by element.
void builtin_combine(BuiltinOp op, Element element, std::span<std::byte> into, std::span<const std::byte> from);

}  // namespace herald::runtime::detail
