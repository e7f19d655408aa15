// What the scheduler prices a task at, under both controls: its kernel's cost model where the program gave
// one, else the mean of its kernel's measured runs on data of the same total size, else
// unknown_task_seconds. Pure: no MPI.
#pragma once

#include "kernels.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace herald::runtime::detail {

// A task without a cost model or measured history is priced at this, so that HEFT spreads independent
// tasks before anything has been measured.
inline constexpr double unknown_task_seconds = 1.0e-5;

class Estimates {
 public:
  explicit Estimates(const KernelTable& kernels) : kernels_(kernels) {}

  // A task of `kernel` with these accesses (anything with .handle), each of bytes_of(handle) bytes.
  template <class Accesses, class BytesOf>
  double seconds(std::uint32_t kernel, const Accesses& accesses, BytesOf bytes_of) const {
    if (const KernelCost* cost = kernels_.cost(kernel)) {
      sizes_.clear();
      for (const auto& a : accesses) sizes_.push_back(bytes_of(a.handle));
      return std::max(0.0, (*cost)(sizes_));
    }
    if (history_.empty()) return unknown_task_seconds;
    std::size_t total = 0;
    for (const auto& a : accesses) total += bytes_of(a.handle);
    const auto it = history_.find({kernel, total});
    return it == history_.end() ? unknown_task_seconds : it->second.first / static_cast<double>(it->second.second);
  }
  // A run of `kernel` on `total_bytes` of data took `seconds`. Only the head measures: under replicated
  // control each rank sees only its own runs, and every rank must price every task alike.
  void measured(std::uint32_t kernel, std::size_t total_bytes, double seconds) {
    auto& [sum, count] = history_[{kernel, total_bytes}];
    sum += seconds;
    ++count;
  }

 private:
  const KernelTable& kernels_;
  std::map<std::pair<std::uint32_t, std::size_t>, std::pair<double, std::size_t>> history_;  // (sum, count)
  mutable std::vector<std::size_t> sizes_;  // reused: no allocation per task
};

}  // namespace herald::runtime::detail
