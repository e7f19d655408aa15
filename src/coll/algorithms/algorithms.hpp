// The generators behind the algorithm table, one file each. All take a Problem whose parameters are
// already defaulted and validated, and return the steps of one rank.
#pragma once

#include <herald/schedule.hpp>
#include <herald/simulator.hpp>

namespace herald::detail {

Program linear_program(const Problem& p, int rank);
Program binomial_program(const Problem& p, int rank);
Program balanced_binomial_program(const Problem& p, int rank);
Program binary_program(const Problem& p, int rank);
Program split_binary_program(const Problem& p, int rank);
Program chain_program(const Problem& p, int rank);
Program knomial_program(const Problem& p, int rank);
Program scatter_ring_program(const Problem& p, int rank);
Program scatter_ring_tuned_program(const Problem& p, int rank);
Program scatter_rdb_program(const Problem& p, int rank);
Program two_tree_program(const Problem& p, int rank);
Program circulant_program(const Problem& p, int rank);
Program hierarchical_program(const Problem& p, int rank);
Program node_pipeline_program(const Problem& p, int rank);
Program node_shared_program(const Problem& p, int rank);

// Closed-form costs (cost.cpp), for problems with P >= 2 and parameters defaulted.
double linear_cost(const Problem& p, const CostModel& m);
double binomial_cost(const Problem& p, const CostModel& m);
double knomial_cost(const Problem& p, const CostModel& m);
double chain_cost(const Problem& p, const CostModel& m);
double binary_cost(const Problem& p, const CostModel& m);
double split_binary_cost(const Problem& p, const CostModel& m);
double two_tree_cost(const Problem& p, const CostModel& m);
double circulant_cost(const Problem& p, const CostModel& m);
// The segment at which circulant_cost is least.
std::size_t circulant_segment(const Problem& p, const CostModel& m);
double scatter_ring_cost(const Problem& p, const CostModel& m);
double scatter_rdb_cost(const Problem& p, const CostModel& m);
double hierarchical_cost(const Problem& p, const CostModel& m);
double node_pipeline_cost(const Problem& p, const CostModel& m);
double node_shared_cost(const Problem& p, const CostModel& m);
// Across nodes, node_pipeline_cost and node_shared_cost are leader_stage_cost() plus these.
double node_pipeline_within_cost(const Problem& p, const CostModel& m);
double node_shared_within_cost(const Problem& p, const CostModel& m);

}  // namespace herald::detail
