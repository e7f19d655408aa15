// The generators behind the algorithm table, one file each. All take a Problem whose parameters are
// already defaulted and validated, and return the steps of one rank.
#pragma once

#include <herald/schedule.hpp>

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

}  // namespace herald::detail
