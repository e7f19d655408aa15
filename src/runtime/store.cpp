#include "store.hpp"

#include <herald/config.hpp>

#include <algorithm>

#include <mpi.h>
#ifdef SMPI_H
#include <cstdlib>
#include <string_view>
#endif

namespace herald::runtime::detail {

#ifdef SMPI_H
namespace {
// SimGrid's SMPI runs every rank in one process: with HERALD_SMPI_SHARED_REPLICAS=1 every replica maps one
// shared block (SMPI_SHARED_MALLOC), so a simulation whose kernels only spend their measured time (the
// data is then meaningless) can hold matrices larger than this machine's memory.
bool shared_replicas() {
  static const bool shared = environment_switch("HERALD_SMPI_SHARED_REPLICAS");
  return shared;
}
}  // namespace
#endif

namespace {
// An allocator drawing from a shared memory resource it keeps alive: allocate_shared stores a copy beside
// the bytes, so the resource outlives every block taken from it.
template <class T>
struct SharedResourceAllocator {
  using value_type = T;
  std::shared_ptr<std::pmr::memory_resource> resource;

  explicit SharedResourceAllocator(std::shared_ptr<std::pmr::memory_resource> r) : resource(std::move(r)) {}
  template <class U>
  SharedResourceAllocator(const SharedResourceAllocator<U>& other) : resource(other.resource) {}
  T* allocate(std::size_t n) { return static_cast<T*>(resource->allocate(n * sizeof(T), alignof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { resource->deallocate(p, n * sizeof(T), alignof(T)); }
  template <class U>
  bool operator==(const SharedResourceAllocator<U>& other) const noexcept {
    return resource == other.resource;
  }
};
}  // namespace

ReplicaPool::ReplicaPool() : blocks_(std::make_shared<FreeLists>(largest_pooled, true)) {}

Replica ReplicaPool::allocate(std::size_t bytes) const {
#ifdef SMPI_H
  if (shared_replicas() && bytes > 0) {
    auto* block = static_cast<std::byte*>(SMPI_SHARED_MALLOC(bytes));
    std::shared_ptr<std::byte[]> owner(block, [](std::byte* p) { SMPI_SHARED_FREE(p); });
    return {std::span(block, bytes), std::move(owner)};
  }
#endif
  // One block for the bytes and their count, zeroed.
  std::shared_ptr<std::byte[]> owner =
      std::allocate_shared<std::byte[]>(SharedResourceAllocator<std::byte>(blocks_), bytes);
  return {std::span(owner.get(), bytes), std::move(owner)};
}

const Replica* Store::find(const Key& key) const {
  const auto it = replicas_.find(key);
  return it == replicas_.end() ? nullptr : &it->second;
}

namespace {
// The bytes a replica adds to what its store holds.
std::size_t counted(const Replica& r) { return r.owner && !r.view ? r.bytes.size() : 0; }
}  // namespace

std::pmr::vector<int> Store::put(const Key& key, Replica replica) {
  held_ += counted(replica);
  if (const auto old = replicas_.find(key); old != replicas_.end()) {
    held_ -= counted(old->second);  // replaced: it never held both
    old->second = std::move(replica);
  } else {
    replicas_.emplace(key, std::move(replica));
  }
  peak_ = std::max(peak_, held_);
  std::pmr::vector<int> waiting(&nodes_);
  if (const auto it = requests_.find(key); it != requests_.end()) {
    waiting = std::move(it->second);
    requests_.erase(it);
  }
  return waiting;
}

std::optional<Replica> Store::take(const Key& key) {
  const auto it = replicas_.find(key);
  if (it == replicas_.end()) return std::nullopt;
  Replica r = std::move(it->second);
  replicas_.erase(it);
  held_ -= counted(r);
  return r;
}

}  // namespace herald::runtime::detail
