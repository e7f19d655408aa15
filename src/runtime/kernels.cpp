#include "kernels.hpp"

#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <string_view>
#include <vector>

namespace herald::runtime::detail {

KernelTable::KernelTable(const std::vector<std::vector<std::string>>& names, const std::vector<KernelEntry>& local,
                         int first_worker)
    : first_worker_(first_worker) {
  for (std::size_t r = 0; r < names.size(); ++r)
    for (std::uint32_t k = 0; k < names[r].size(); ++k) {
      auto [it, added] = ids_.emplace(names[r][k], static_cast<std::uint32_t>(kernels_.size()));
      if (added) kernels_.push_back({names[r][k], std::vector<std::uint32_t>(names.size(), missing)});
      kernels_[it->second].index[r] = k;
    }
  const int ranks = static_cast<int>(names.size());
  for (Info& k : kernels_) {
    for (int r = first_worker; r < ranks && k.missing_on < 0; ++r)
      if (k.index[static_cast<std::size_t>(r)] == missing) k.missing_on = r;
    for (const KernelEntry& e : local)
      if (e.name == k.name && e.cost) k.cost = &e.cost;
  }
}

std::uint32_t KernelTable::id(std::string_view name, std::uint64_t task) const {
  if (last_id_ != missing && name == last_name_) return last_id_;
  const auto it = ids_.find(name);
  if (it == ids_.end()) {
    // Registered nowhere: most likely misspelt.
    std::vector<std::string_view> known;
    for (const Info& k : kernels_)
      if (!k.name.starts_with("herald.")) known.push_back(k.name);
    std::string message = "task " + std::to_string(task) + ": no kernel '" + std::string(name) + "' is registered";
    if (const std::string_view near = nearest_name(name, known); !near.empty())
      message += "; did you mean '" + std::string(near) + "'?";
    throw Error(Errc::invalid_argument, message);
  }
  const int missing_on = kernels_[it->second].missing_on;
  if (missing_on >= 0)
    throw Error(Errc::invalid_argument, "task " + std::to_string(task) + " (kernel '" + std::string(name) +
                                            "'): not registered on rank " + std::to_string(missing_on));
  last_name_ = name;
  last_id_ = it->second;
  return it->second;
}

}  // namespace herald::runtime::detail
