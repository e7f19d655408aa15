// coll's settings from the environment: the schedule parameters and the send window that HERALD_* variables
// give, and how a call's own parameters fall back on them. They live with the schedules they configure, not
// in <herald/config.hpp>: core's generic parsers and readers know nothing of the layers above them.
#pragma once

#include <herald/error.hpp>
#include <herald/schedule.hpp>

namespace herald {

// HERALD_SEGMENT_SIZE, HERALD_CHAIN_FANOUT, HERALD_KNOMIAL_RADIX, HERALD_LEADER_STAGE and
// HERALD_RANKS_PER_NODE; unset ones stay unset. A malformed value throws Error(invalid_argument)
// naming the variable.
Parameters parameters_from_environment();

// HERALD_SENDS_IN_FLIGHT and HERALD_SENDS_PER_PEER (each at least 1; the per-peer bound defaults to the
// per-rank one). Throws Error(invalid_argument) naming the variable on a bad value.
SendWindow send_window_from_environment();

// Fills each unset field of `call` from `fallback`.
Parameters merge(Parameters call, const Parameters& fallback);

}  // namespace herald
