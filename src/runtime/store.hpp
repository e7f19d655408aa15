// The versions of data a process holds (its replicas), and the requests for versions it will hold.
#pragma once

#include "free_lists.hpp"
#include "protocol/messages.hpp"

#include <cstddef>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace herald::runtime::detail {

// A replica's bytes. `owner` keeps them alive (a send in flight holds a copy of the Replica); it is empty
// for the head's own buffers, which the program owns.
struct Replica {
  std::span<std::byte> bytes;
  std::shared_ptr<std::byte[]> owner;
  // Part of another replica's block (a piece of a 1-D partition, docs/runtime.md "Partitions"): a store
  // counts its bytes with that replica's, not again.
  bool view = false;

  static Replica borrowed(std::span<std::byte> bytes) { return {bytes, nullptr}; }
};

// Where replicas' bytes come from: a pool, so that a finished task's output or a consumed copy gives its
// block back for the next one of about its size instead of to malloc (a worker in steady state then
// allocates nothing for its versions). Blocks above `largest_pooled` go to malloc and back. Every replica
// drawn from it keeps it alive, so one may outlive its store. Any thread may drop a replica.
class ReplicaPool {
 public:
  static constexpr std::size_t largest_pooled = std::size_t{1} << 20;
  ReplicaPool();
  // `bytes` zeroed bytes (a kernel need not fill all its output).
  Replica allocate(std::size_t bytes) const;

 private:
  std::shared_ptr<std::pmr::memory_resource> blocks_;
};

class Store {
 public:
  // Room for a version of `bytes` bytes, from this process's pool.
  Replica allocate(std::size_t bytes) const { return pool_.allocate(bytes); }
  const Replica* find(const Key& key) const;
  // Holds `replica` as version `key`; returns the ranks that asked for it before it was here.
  std::pmr::vector<int> put(const Key& key, Replica replica);
  // Removes the version, returning it (to become a task's output in place), or nothing if absent.
  std::optional<Replica> take(const Key& key);
  void release(const Key& key) { take(key); }
  // A rank asked for a version not here yet: it is sent once put() brings it.
  void request(const Key& key, int rank) { requests_[key].push_back(rank); }

  std::size_t peak_bytes() const noexcept { return peak_; }

 private:
  ReplicaPool pool_;
  // Entries come and go with every version: their nodes are recycled, not allocated each time.
  FreeLists nodes_{4096};
  std::pmr::unordered_map<Key, Replica, KeyHash> replicas_{&nodes_};
  std::pmr::unordered_map<Key, std::pmr::vector<int>, KeyHash> requests_{&nodes_};
  std::size_t held_ = 0;  // bytes of owned replicas, views left out
  std::size_t peak_ = 0;
};

}  // namespace herald::runtime::detail
