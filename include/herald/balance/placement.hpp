// Placement of processes on sockets by branch and bound (SABO, Rocha Barbosa et al., IPDRM 2022, IV-B).
//
// No process spans two sockets. Processes are placed in decreasing order of requested threads, depth first;
// a branch is cut as soon as the cores it already misses (tightened by what the remaining processes cannot
// fit in the free cores) reach the best complete placement found so far. Each socket's cores are then
// shared among its processes in proportion to their requests, so every core is used and every process keeps
// at least one.
#pragma once

#include <herald/error.hpp>

#include <span>
#include <vector>

namespace herald::balance {

struct Placement {
  std::vector<int> socket;      // socket of each process
  std::vector<int> threads;     // threads of each process once fitted to its socket
  std::vector<int> first_core;  // node core numbering, socket by socket: process p owns
                                // [first_core[p], first_core[p] + threads[p])
  int missing = 0;              // cores short of granting every request: the search's objective
  long nodes = 0;               // search-tree nodes visited (the root included)
  bool exhaustive = true;       // false if the search stopped at its node limit with the best found so far
};

// Cores a given assignment misses: on each socket, the requests above its cores.
int missing_cores(std::span<const int> requests, std::span<const int> socket_of,
                  std::span<const int> socket_cores);

// Places processes with the given requests (each >= 1) on sockets with the given core counts (each >= 1).
// Throws Error(invalid_argument) when a request or a socket is empty, or there are more processes than cores.
Placement place(std::span<const int> requests, std::span<const int> socket_cores, long node_limit = 1'000'000);

}  // namespace herald::balance
