// The simulator's two network models, each timing a schedule whose messages are already paired.
#pragma once

#include <herald/dataflow.hpp>
#include <herald/simulator.hpp>

#include <optional>
#include <string>
#include <vector>

namespace herald::timing {

// What both models read: the schedule, each rank's dataflow, and for each send step the receive step it
// pairs with at its peer.
struct Input {
  const Schedule& schedule;
  const std::vector<Dataflow>& flows;
  const std::vector<std::vector<std::size_t>>& recv_of_send;
};

// Completion time, or nullopt with `problem` naming the stuck rank when some send can never be posted.
std::optional<double> ports(const Input& in, const CostModel& model, std::string& problem);
std::optional<double> fair_sharing(const Input& in, const CostModel& model, const SendWindow& window,
                                   std::string& problem);

}  // namespace herald::timing
