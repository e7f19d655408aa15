// Head control's record of each version's life: its readers not done (tasks and read()s), whether its
// writer has finished, exit(), and once superseded the ranks holding it (where the latest version is stays
// the data plan's). A version nobody needs any more is released on every holder: in the head's own store at
// once, on a worker by a release message, gathered per rank until the head sends them. Replicated control
// needs none of this: each holder counts its own uses (DataPlan's budgets).
#pragma once

#include "free_lists.hpp"
#include "graph.hpp"
#include "planner.hpp"
#include "store.hpp"

#include <cstddef>
#include <memory_resource>
#include <span>
#include <unordered_map>
#include <vector>

namespace herald::runtime::detail {

class VersionLives {
 public:
  // `buffers[handle]`: the program's buffer, the value once exit() has it back; `ranks`: the job's.
  VersionLives(Planner& planner, Store& store, const std::vector<std::span<std::byte>>& buffers, int ranks);

  // A new version: entered (`produced`), or to be written by a task. The one before it may go once done.
  void made(const Key& key, bool produced);
  // A task or read() will read `key`.
  void reading(const Key& key) { ++versions_.at(key).readers_left; }
  std::size_t readers_left(const Key& key) const { return versions_.at(key).readers_left; }
  // Its writer finished.
  void produced(const Key& key);
  void reader_done(const Key& key);
  // A read() has the value in the program's buffer; `exit`: only the head keeps it now.
  void landed(const Key& key, bool exit);
  // `key` was superseded while `holders` held it (the data plan's last word on it).
  void superseded(const Key& key, std::span<const int> holders);
  // Per rank, the versions its replicas of may go, not yet sent; the caller sends and clears them.
  std::vector<std::vector<Key>>& releases() noexcept { return releases_; }

 private:
  // These come and go with every version: they and their lists take their memory from nodes_
  // (allocator-aware, so the table hands it to them), not from the heap each time.
  struct Version {
    using allocator_type = std::pmr::polymorphic_allocator<>;
    explicit Version(allocator_type a = {}) : holders(a) {}
    Version(const Version& o, allocator_type a)
        : holders(o.holders, a), readers_left(o.readers_left), produced(o.produced), exited(o.exited) {}
    Version(Version&& o, allocator_type a)
        : holders(std::move(o.holders), a), readers_left(o.readers_left), produced(o.produced), exited(o.exited) {}
    Version(const Version&) = default;
    Version(Version&&) = default;
    Version& operator=(const Version&) = default;
    Version& operator=(Version&&) = default;

    std::pmr::vector<int> holders;  // once superseded: the ranks holding it
    std::size_t readers_left = 0;   // scheduled readers (tasks and reads) not done
    bool produced = false;          // its writer has finished
    bool exited = false;            // exit(): once read, only the head keeps it
  };
  // The ranks holding `key`: the data plan's while it is the latest.
  std::span<const int> holders(const Key& key, const Version& v) const;
  void release(int rank, const Key& key);
  void release_if_unneeded(const Key& key);

  Planner& planner_;
  Store& store_;
  const std::vector<std::span<std::byte>>& buffers_;
  FreeLists nodes_{4096};  // before the table that uses it, so that it outlives it
  std::pmr::unordered_map<Key, Version, KeyHash> versions_{&nodes_};
  std::vector<std::vector<Key>> releases_;  // per rank
};

}  // namespace herald::runtime::detail
