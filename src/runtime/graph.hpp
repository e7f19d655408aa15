// The head's record of a task graph: data handles with their versions, tasks with their accesses, and
// the dependencies the accesses imply, inferred as OpenMP's depend clauses and StarPU's sequential task
// flow do: read after write, write after read, write after write.
//
// Every write makes a new version of its handle. A worker keeps each version it holds apart from the
// others (a write never overwrites a replica somebody may still read), so only read-after-write edges
// move data and order execution; the other two kinds are recorded for what they say (a task that
// overwrites data others read), and the scheduler may keep them as orders.
#pragma once

#include <herald/error.hpp>
#include <herald/runtime/access.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace herald::runtime::detail {

// A version of a data handle.
struct Key {
  std::uint32_t handle = 0;
  std::uint32_t version = 0;
  std::uint64_t packed() const noexcept { return (std::uint64_t{handle} << 32) | version; }
  friend bool operator==(const Key&, const Key&) = default;
};

struct KeyHash {
  std::size_t operator()(const Key& k) const noexcept { return std::hash<std::uint64_t>{}(k.packed()); }
};

struct Access {
  std::uint32_t handle = 0;
  Mode mode = Mode::in;
  // commute: the updates before it when it closes a run of updates (lowering.hpp); 0 for an update.
  std::uint32_t closes = 0;
};

enum class DependenceKind : std::uint8_t { read_after_write, write_after_read, write_after_write };

struct Dependence {
  std::size_t from = 0;  // the earlier task
  std::size_t to = 0;
  std::uint32_t handle = 0;
  DependenceKind kind = DependenceKind::read_after_write;
};

// What one access of a task resolved to.
struct Resolved {
  std::uint32_t handle = 0;
  Mode mode = Mode::in;
  std::uint32_t read = 0;     // the version read (reads(mode) only)
  std::uint32_t written = 0;  // the version written (writes(mode) only); commute: Access::closes
};

// How errors name a task: "task 12 (kernel 'gemm')".
inline std::string task_name(std::uint64_t id, std::string_view kernel) {
  return "task " + std::to_string(id) + " (kernel '" + std::string(kernel) + "')";
}

// Both controls' one wording for a read of data nothing has written yet; `who` is the task, or "read".
inline std::string no_value_yet(std::string_view who, std::string_view data) {
  return std::string(who) + ": data '" + std::string(data) + "' has no value yet (enter it, or write it first)";
}

// The checks every mode of control makes of a task's accesses before it records anything, so that a refused
// task leaves no trace: a handle out of range, a handle named twice, a read of a handle with no value.
// `name(handle)` and `has_value(handle)` describe the handles; `task_name()` is called only to throw.
template <class Name, class HasValue, class TaskName>
void check_accesses(std::span<const Access> accesses, std::size_t handles, Name name, HasValue has_value,
                    TaskName task_name) {
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    const Access& a = accesses[i];
    if (a.handle >= handles)
      throw Error(Errc::invalid_argument, task_name() + " uses a data handle this runtime never registered");
    for (std::size_t j = 0; j < i; ++j)
      if (accesses[j].handle == a.handle)
        throw Error(Errc::invalid_argument, task_name() + " names data '" + name(a.handle) +
                                                "' twice; use one access with mode inout");
  }
  for (const Access& a : accesses)
    if (reads(a.mode) && !has_value(a.handle))
      throw Error(Errc::invalid_argument, no_value_yet(task_name(), name(a.handle)));
}

class DependencyTracker {
 public:
  // Starts tracking a handle: it has no value (version 0) until something writes it.
  std::uint32_t add_handle(std::size_t bytes, std::string name);
  std::size_t handles() const noexcept { return handles_.size(); }
  std::size_t bytes(std::uint32_t handle) const { return handles_.at(handle).bytes; }
  const std::string& name(std::uint32_t handle) const { return handles_.at(handle).name; }
  // The latest version (0: never written) and the task that wrote it.
  std::uint32_t version(std::uint32_t handle) const { return handles_.at(handle).version; }
  std::optional<std::size_t> writer(std::uint32_t handle) const { return handles_.at(handle).writer; }

  // Adds task number `task` (numbers grow with every call) with its accesses, appends the dependencies
  // they imply to `out` (at most one per earlier task, handle and kind) and returns what each access
  // resolved to. Throws herald::Error, recording nothing, for a handle out of range, a handle named twice,
  // or a read of a handle that has no value yet; `task_name` names the task in the message (called only
  // then, so that naming costs nothing on the way that succeeds).
  std::vector<Resolved> add_task(std::size_t task, std::span<const Access> accesses, std::vector<Dependence>& out,
                                 const std::function<std::string()>& task_name);
  std::vector<Resolved> add_task(std::size_t task, std::span<const Access> accesses, std::vector<Dependence>& out,
                                 const std::string& task_name) {
    return add_task(task, accesses, out, [&] { return task_name; });
  }

 private:
  struct Handle {
    std::size_t bytes = 0;
    std::string name;
    std::uint32_t version = 0;
    std::optional<std::size_t> writer;     // the task that wrote the current version
    std::vector<std::size_t> readers;      // tasks that read the current version, in order
  };
  std::vector<Handle> handles_;
};

const char* to_string(DependenceKind kind) noexcept;

}  // namespace herald::runtime::detail
