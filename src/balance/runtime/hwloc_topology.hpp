// The node's sockets and cores as hwloc sees them.
#pragma once

#include <herald/balance/topology.hpp>

#include <vector>

namespace herald::balance {

// Packages and their cores (one CPU per core: its first hardware thread), with the L3 caches of each
// package counted. A machine that reports no package is one socket of all its cores. Throws Error if hwloc
// cannot load the topology.
Topology detect_topology();

// All cores' CPUs, socket by socket.
std::vector<int> all_cpus(const Topology& topology);

}  // namespace herald::balance
