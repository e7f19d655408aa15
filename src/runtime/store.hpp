// The versions of data a process holds (its replicas), and the requests for versions it will hold.
#pragma once

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

  static Replica allocate(std::size_t bytes);
  static Replica borrowed(std::span<std::byte> bytes) { return {bytes, nullptr}; }
};

class Store {
 public:
  const Replica* find(const Key& key) const;
  // Holds `replica` as version `key`; returns the ranks that asked for it before it was here.
  std::vector<int> put(const Key& key, Replica replica);
  // Removes the version, returning it (to become a task's output in place), or nothing if absent.
  std::optional<Replica> take(const Key& key);
  void release(const Key& key) { take(key); }
  // A rank asked for a version not here yet: it is sent once put() brings it.
  void request(const Key& key, int rank) { requests_[key].push_back(rank); }

  std::size_t peak_bytes() const noexcept { return peak_; }

 private:
  // Entries come and go with every version: their nodes are recycled, not allocated each time.
  std::pmr::unsynchronized_pool_resource nodes_;
  std::pmr::unordered_map<Key, Replica, KeyHash> replicas_{&nodes_};
  std::pmr::unordered_map<Key, std::vector<int>, KeyHash> requests_{&nodes_};
  std::size_t held_ = 0;  // bytes of owned replicas
  std::size_t peak_ = 0;
};

}  // namespace herald::runtime::detail
