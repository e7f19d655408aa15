#include "graph.hpp"

#include <herald/error.hpp>

#include <algorithm>

namespace herald::runtime::detail {

std::uint32_t DependencyTracker::add_handle(std::size_t bytes, std::string name) {
  handles_.push_back({bytes, std::move(name), 0, std::nullopt, {}});
  return static_cast<std::uint32_t>(handles_.size() - 1);
}

std::vector<Resolved> DependencyTracker::add_task(std::size_t task, std::span<const Access> accesses,
                                                  std::vector<Dependence>& out,
                                                  const std::function<std::string()>& task_name) {
  check_accesses(
      accesses, handles_.size(), [&](std::uint32_t h) -> const std::string& { return handles_[h].name; },
      [&](std::uint32_t h) { return handles_[h].version != 0; }, task_name);

  const std::size_t first = out.size();
  auto depend = [&](std::size_t from, std::uint32_t handle, DependenceKind kind) {
    for (std::size_t k = first; k < out.size(); ++k)
      if (out[k].from == from && out[k].handle == handle && out[k].kind == kind) return;
    out.push_back({from, task, handle, kind});
  };

  std::vector<Resolved> resolved;
  resolved.reserve(accesses.size());
  for (const Access& a : accesses) {
    Handle& h = handles_[a.handle];
    Resolved r{a.handle, a.mode, 0, 0};
    if (a.mode == Mode::commute) {  // turns taken at run time: no version, no dependence (lowering.hpp)
      r.written = a.closes;
      resolved.push_back(r);
      continue;
    }
    if (reads(a.mode)) {
      r.read = h.version;
      if (h.writer) depend(*h.writer, a.handle, DependenceKind::read_after_write);
    }
    if (writes(a.mode)) {
      // Everyone who read the current version must be done with it first; with no reader in between, the
      // previous writer must be (unless this task reads that version anyway).
      for (std::size_t reader : h.readers) depend(reader, a.handle, DependenceKind::write_after_read);
      if (h.writer && h.readers.empty() && !reads(a.mode))
        depend(*h.writer, a.handle, DependenceKind::write_after_write);
      h.version += 1;
      r.written = h.version;
      h.writer = task;
      h.readers.clear();
    } else {
      h.readers.push_back(task);
    }
    resolved.push_back(r);
  }
  return resolved;
}

const char* to_string(DependenceKind kind) noexcept {
  switch (kind) {
    case DependenceKind::read_after_write: return "read-after-write";
    case DependenceKind::write_after_read: return "write-after-read";
    case DependenceKind::write_after_write: return "write-after-write";
  }
  return "?";
}

}  // namespace herald::runtime::detail
