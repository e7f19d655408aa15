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
  // Everything is checked before anything changes, so a refused task leaves no trace.
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    const Access& a = accesses[i];
    if (a.handle >= handles_.size())
      throw Error(Errc::invalid_argument, task_name() + " uses a data handle this runtime never registered");
    for (std::size_t j = 0; j < i; ++j)
      if (accesses[j].handle == a.handle)
        throw Error(Errc::invalid_argument, task_name() + " names data '" + handles_[a.handle].name +
                                                "' twice; use one access with mode inout");
  }
  for (const Access& a : accesses) {
    if (reads(a.mode) && handles_[a.handle].version == 0)
      throw Error(Errc::invalid_argument, task_name() + " reads data '" + handles_[a.handle].name +
                                              "' before anything gave it a value (enter it, or write it first)");
  }

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
