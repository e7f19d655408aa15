// A ring of shared objects that are handed out again once nobody but the ring holds them. By the time the
// ring has gone round, the oldest object is usually free, so steady traffic allocates nothing; an object
// still held elsewhere is left to its holders and its place taken by a new one.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace herald::dyn::detail {

template <class T>
class Recycler {
 public:
  explicit Recycler(std::size_t size) : size_(size) {}

  // An object only the ring and the caller hold. A reused one goes through `renew` first, which makes it
  // as good as new (it may keep capacity, never contents).
  template <class Renew>
  std::shared_ptr<T> get(Renew&& renew) {
    if (ring_.size() < size_) return ring_.emplace_back(std::make_shared<T>());
    std::shared_ptr<T>& oldest = ring_[next_];
    next_ = (next_ + 1) % size_;
    if (oldest.use_count() == 1) {
      // The last other owner may have let go on another thread.
      std::atomic_thread_fence(std::memory_order_acquire);
      renew(*oldest);
    } else {
      oldest = std::make_shared<T>();
    }
    return oldest;
  }

 private:
  std::size_t size_;
  std::vector<std::shared_ptr<T>> ring_;
  std::size_t next_ = 0;
};

}  // namespace herald::dyn::detail
