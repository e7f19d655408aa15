// A node as the balancer sees it: sockets, each a list of cores (one OS CPU number per core).
#pragma once

#include <herald/error.hpp>

#include <span>
#include <string>
#include <vector>

namespace herald::balance {

struct Socket {
  std::vector<int> cpus;  // OS index of each core's first hardware thread
  int l3_groups = 0;      // L3 caches inside the socket (0 when unknown)
};

struct Topology {
  std::vector<Socket> sockets;
  bool pretended = false;  // from HERALD_BALANCE_CORES rather than the hardware

  std::vector<int> socket_cores() const;  // cores per socket
  int cores() const;                      // all cores of the node
  // OS CPU of node core `core` (numbered socket by socket).
  int cpu(int core) const;
};

// A node of the given cores per socket laid over the real CPUs: pretended core k runs on real_cpus[k mod n],
// so a small machine can stand in for a bigger node. Throws Error(invalid_argument) if either is empty.
Topology pretend(std::span<const int> socket_cores, std::span<const int> real_cpus);

// "2 sockets x 24 cores (8 L3 groups)", "sockets of 24,12 cores", with " (pretended)" when overridden.
std::string describe(const Topology& topology);

}  // namespace herald::balance
