// One balancing decision for a node: proportional split, placement, forecast. Pure: every process of the
// node computes the same decision from the same gathered loads.
#pragma once

#include <herald/balance/forecast.hpp>
#include <herald/balance/placement.hpp>
#include <herald/error.hpp>

#include <span>
#include <string>
#include <vector>

namespace herald::balance {

struct Decision {
  std::vector<double> loads;     // busy thread-seconds of each process in the phase
  std::vector<int> threads;      // threads each process ran with
  std::vector<int> requests;     // proportional split of the node's cores
  Placement placement;           // sockets and fitted counts
  std::vector<double> times;     // loads / threads: each process's time in parallel regions
  Forecast forecast;             // filled only when the counts change
  bool act = false;              // apply placement.threads and bind to its cores
  std::string reason;            // why (not): "counts unchanged", "forecast: ...", "predicted gain ..."
};

// Decides from each process's load and current threads on a node with the given cores per socket.
// Throws Error(invalid_argument) on mismatched sizes, a thread count below one, or more processes than cores.
Decision decide(std::span<const double> loads, std::span<const int> threads, std::span<const int> socket_cores);

// One line that says it all: loads, threads, requests, counts, sockets, missing cores, forecast, outcome.
std::string describe(const Decision& decision);

// 1 - (slowest predicted time / slowest last time): the gain the model expects when the decision acts.
double predicted_gain(const Decision& decision);

}  // namespace herald::balance
