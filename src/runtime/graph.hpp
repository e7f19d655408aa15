// The task graph as both controls record it at submission, before anything is planned: data handles with
// their versions, and what each access of a task resolves to. Dependencies follow from the modes, as
// OpenMP's depend clauses and StarPU's sequential task flow infer them: read after write, write after
// read, write after write.
//
// Every write makes a new version of its handle. A worker keeps each version it holds apart from the
// others (a write never overwrites a replica somebody may still read), so only read after write moves
// data and orders execution: a read resolves to the version the last earlier write made, and to the task
// that made it. The other two kinds need no record.
#pragma once

#include <herald/error.hpp>
#include <herald/runtime/access.hpp>

#include <cstddef>
#include <cstdint>
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

// What one access of a task resolved to.
struct Resolved {
  std::uint32_t handle = 0;
  Mode mode = Mode::in;
  std::uint32_t read = 0;     // the version read (reads(mode) only)
  std::uint32_t written = 0;  // the version written (writes(mode) only); commute: Access::closes
  std::uint64_t maker = 0;    // the task (or enter) that made the version read (reads(mode) only)
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

class GraphRecord {
 public:
  // Starts recording a handle: it has no value (version 0) until something writes it.
  std::uint32_t add_handle(std::size_t bytes, std::string name);
  std::size_t handles() const noexcept { return handles_.size(); }
  std::size_t bytes(std::uint32_t handle) const { return handles_[handle].bytes; }
  const std::string& name(std::uint32_t handle) const { return handles_[handle].name; }
  // The latest version submitted (0: never written) and the task (or enter) that made it.
  std::uint32_t version(std::uint32_t handle) const { return handles_[handle].version; }
  std::uint64_t maker(std::uint32_t handle) const { return handles_[handle].maker; }
  bool has_value(std::uint32_t handle) const { return handles_[handle].version != 0; }

  // Throws herald::Error, as check_accesses does, for accesses task `task_name()` may not make.
  template <class TaskName>
  void check(std::span<const Access> accesses, TaskName task_name) const {
    check_accesses(
        accesses, handles_.size(), [&](std::uint32_t h) -> const std::string& { return handles_[h].name; },
        [&](std::uint32_t h) { return handles_[h].version != 0; }, task_name);
  }
  // Records task number `task` (numbers grow with every call) with accesses check() accepted, and appends
  // to `out`, if given, what each resolved to.
  void add_task(std::uint64_t task, std::span<const Access> accesses, std::vector<Resolved>* out = nullptr);
  // check() then add_task(), returning what each access resolved to.
  template <class TaskName>
  std::vector<Resolved> add_task(std::uint64_t task, std::span<const Access> accesses, TaskName task_name) {
    check(accesses, task_name);
    std::vector<Resolved> out;
    out.reserve(accesses.size());
    add_task(task, accesses, &out);
    return out;
  }

 private:
  struct Handle {
    std::size_t bytes = 0;
    std::string name;
    std::uint32_t version = 0;
    std::uint64_t maker = 0;
  };
  std::vector<Handle> handles_;
};

}  // namespace herald::runtime::detail
