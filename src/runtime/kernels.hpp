// The kernels every rank registered, by name: each one's index on each rank and its cost model, looked up
// once per submit by both modes of control.
#pragma once

#include <herald/runtime/task.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace herald::runtime::detail {

struct KernelEntry {
  std::string name;
  Kernel run;
  KernelCost cost;
};

class KernelTable {
 public:
  static constexpr std::uint32_t missing = UINT32_MAX;
  // `names[rank]`: the kernels each rank registered, in its own order; `local`: this rank's, for their cost
  // models; ranks from `first_worker` on run tasks.
  KernelTable(const std::vector<std::vector<std::string>>& names, const std::vector<KernelEntry>& local, int first_worker);
  // The kernel's id; throws herald::Error naming task `task` for a kernel some rank that runs tasks lacks.
  std::uint32_t id(std::string_view name, std::uint64_t task) const;
  const std::string& name(std::uint32_t id) const { return kernels_[id].name; }
  std::uint32_t index_on(std::uint32_t id, int rank) const { return kernels_[id].index[static_cast<std::size_t>(rank)]; }
  const KernelCost* cost(std::uint32_t id) const { return kernels_[id].cost; }

 private:
  struct Info {
    std::string name;
    std::vector<std::uint32_t> index;  // per rank; missing where that rank lacks it
    int missing_on = -1;               // the first rank that runs tasks and lacks it
    const KernelCost* cost = nullptr;  // this rank's, if it has one
  };
  // Looked up by string_view without making a string (a submit's cost).
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::vector<Info> kernels_;
  // The last name looked up: programs submit runs of tasks of one kernel, and a compare is cheaper than a
  // hash (replicated control pays a lookup for every task of every rank).
  mutable std::string last_name_;
  mutable std::uint32_t last_id_ = missing;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> ids_;
  int first_worker_;
};

}  // namespace herald::runtime::detail
