// herald-tune's measurement of the network traits auto's model needs besides alpha and beta
// (network_traits.hpp).
#pragma once

#include "network_traits.hpp"

#include <mpi.h>

namespace herald::bench {

// Collective over `group`: its rank 0 sends, rank 1 receives, and rank 2 (when there is one) receives the
// message that tells ports from fair sharing. The result is valid on the group's rank 0.
NetworkTraits probe_network(MPI_Comm group);

}  // namespace herald::bench
