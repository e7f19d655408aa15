// The simulator's two network models, each timing a schedule whose messages are already paired.
#pragma once

#include <herald/dataflow.hpp>
#include <herald/simulator.hpp>

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace herald::timing {

// A time that never comes: a message not yet sent, a byte not yet arrived.
constexpr double never = std::numeric_limits<double>::infinity();

// What both models read: the schedule, each rank's dataflow, and for each send step the receive step it
// pairs with at its peer.
struct Input {
  const Schedule& schedule;
  const std::vector<Dataflow>& flows;
  const std::vector<std::vector<std::size_t>>& recv_of_send;
  // With ordered receives (Schedule::ordered_receives), for each rank and receive step the receive before it
  // in program order, whose arrival posts it (none: `first`); empty otherwise.
  std::vector<std::vector<std::size_t>> before;
  static constexpr std::size_t first = static_cast<std::size_t>(-1);
  // The receive rank `dest`'s receive `step` waits for before its bytes may move, or `first`.
  std::size_t posted_after(int dest, std::size_t step) const {
    return before.empty() ? first : before[static_cast<std::size_t>(dest)][step];
  }
};

// Completion time, or nullopt with `problem` naming the stuck rank when some send can never be posted.
std::optional<double> ports(const Input& in, const CostModel& model, std::string& problem);
std::optional<double> fair_sharing(const Input& in, const CostModel& model, const SendWindow& window,
                                   const Platform& platform, std::string& problem);

}  // namespace herald::timing
