// Thread counts in proportion to load: the first step of a balancing decision.
#pragma once

#include <herald/error.hpp>

#include <span>
#include <vector>

namespace herald::balance {

// Splits `cores` among processes in proportion to `weights` (non-negative, finite), every process getting at
// least one. Processes whose share is below one core get exactly one and the rest is shared again among the
// others; what is left after rounding down goes to the largest fractional parts, ties to the lower index.
// The counts sum to `cores` exactly. All weights zero counts as all equal. Throws Error(invalid_argument) on
// no process, fewer cores than processes, or a negative or non-finite weight.
std::vector<int> proportional_split(std::span<const double> weights, int cores);

}  // namespace herald::balance
