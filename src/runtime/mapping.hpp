// The worker a task runs on where the program or its data decide it at submit (Scheduler::mapped and
// Scheduler::owner). The same rule in both modes of control.
#pragma once

#include <herald/runtime/task.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace herald::runtime::detail {

// mapped: TaskOptions::worker, else the Mapping; owner: the owner of the first datum the task writes, else
// of the first it reads, else worker 0; nothing for the schedulers that decide at wait(). `owner_of` gives a
// handle's owner. Throws herald::Error naming the task for a worker out of range, or a mapped task that
// names none without a Mapping.
std::optional<std::size_t> chosen_worker(Scheduler scheduler, const TaskInfo& info, std::optional<int> named, const Mapping& mapping,
                                         std::span<const std::size_t> owner_of);

}  // namespace herald::runtime::detail
