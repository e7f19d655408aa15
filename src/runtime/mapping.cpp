#include "mapping.hpp"

#include <herald/error.hpp>

namespace herald::runtime::detail {

std::optional<std::size_t> chosen_worker(Scheduler scheduler, const TaskInfo& info, std::optional<int> named, const Mapping& mapping,
                                         std::span<const std::size_t> owner_of) {
  const auto task_name = [&] {
    return "task " + std::to_string(info.task) + " (kernel '" + std::string(info.kernel) + "')";
  };
  if (scheduler == Scheduler::owner) {
    for (const Use& u : info.uses)
      if (writes(u.mode)) return owner_of[u.data.index()];
    return info.uses.empty() ? 0 : owner_of[info.uses.front().data.index()];
  }
  if (scheduler != Scheduler::mapped) return std::nullopt;
  if (!named && !mapping)
    throw Error(Errc::invalid_argument, task_name() + ": the mapped scheduler needs TaskOptions::worker or Options::mapping");
  const int worker = named ? *named : mapping(info);
  if (worker < 0 || worker >= info.workers)
    throw Error(Errc::invalid_argument, task_name() + ": the mapped scheduler needs a worker in 0.." +
                                            std::to_string(info.workers - 1) + ", not " + std::to_string(worker));
  return static_cast<std::size_t>(worker);
}

}  // namespace herald::runtime::detail
