// The generators behind the algorithm table, one file each. All take a Problem whose parameters are
// already defaulted and validated, and return the steps of one rank.
#pragma once

#include <herald/schedule.hpp>

namespace herald::detail {

Program linear_program(const Problem& p, int rank);
Program binomial_program(const Problem& p, int rank);

}  // namespace herald::detail
