// "auto": the algorithm the cost model predicts fastest for a shape.
#pragma once

#include <herald/algorithms.hpp>
#include <herald/simulator.hpp>

namespace herald {

// Simulates every algorithm of the table with its default parameters (or the ones given) and returns the one
// with the lowest predicted time; ties go to the earlier table entry. Pure and deterministic.
const AlgorithmInfo& select_algorithm(const Problem& problem, const CostModel& model);

// The cost model "auto" uses: HERALD_ALPHA and HERALD_BETA (seconds, seconds per byte) when set, else values
// measured on a shared-memory node (docs/configuration.md). Throws Error(invalid_argument) on a bad value.
CostModel cost_model_from_environment();

}  // namespace herald
