// Ordering a batch's broadcasts, the same under both controls: their numbers, strategies and trees, and the
// statistics both derive from them. Pure: no MPI.
#pragma once

#include "../broadcast.hpp"
#include "../coordinator.hpp"
#include "../data_plan.hpp"
#include "../forwarding.hpp"

#include <herald/runtime/task.hpp>

#include <optional>
#include <vector>

namespace herald::runtime::detail {

// The link a batch's schedule (`workload`) plans on (Link::queued): the settings' cost model with each
// worker's links as queues and, where the dynamic broadcast may carry broadcasts, copies forwarded by their
// holders in the pieces dyn would cut the largest datum an edge carries into for every other worker.
Link schedule_link(const ControlSettings& settings, const Workload& workload);

// The broadcasts a batch's data plan found, numbered from `made` + 1 in the order their versions were made,
// their recipients most urgent first, each counted in the run's statistics (every control counts every
// broadcast once). Those this process takes part in (`rank`; every one for the head, which orders them)
// come back with their strategy: the setting, or for `auto` the dynamic broadcast's cost model's choice
// (`settings.shape` prices its shapes; where its cheapest is the loop of sends, the runtime's plain messages do
// it without the dynamic broadcast's machinery), synchronised under the head where `settings.sync` asks.
// `settings.log` prints one line each. A dynamic broadcast's tree is dyn's, or comes from the ledger of
// what every rank has sent (forwarding.hpp), or is planned on the batch's link queues (link_plan.hpp), as
// `settings.trees` asks; a planned tree's recipients come in the order it serves them. A planned tree is
// the schedule's own copies (`copies`) where they reach every recipient from the root or a recipient;
// else (a version made before the batch) it is planned on the batch's link queues (link_plan.hpp).
std::vector<BroadcastOrder> order_broadcasts(std::vector<FoundBroadcast>& found, BroadcastNumbering& numbering,
                                             Statistics& stats, const DataPlan& plan,
                                             const ControlSettings& settings, std::optional<int> rank,
                                             const PlannedCopies& copies = {});

// The statistics both controls derive the same way from their counts: what moved point to point (every
// delivery less the broadcasts'), the broadcasts the plan did not run and why, and whether the strategy
// can do anything with `workers` workers under this control.
void complete_statistics(Statistics& stats, const DataPlan& plan, const ControlSettings& settings, int workers,
                         bool head_control);

}  // namespace herald::runtime::detail
