// A memory resource that keeps each freed block on the free list of its size class and hands it out again,
// in a few instructions each way: the runtime's tables and replicas gain and lose an entry with every task,
// and std::pmr's pool resources search their chunks on every deallocation (a third of an empty task's
// instructions when the worker used them). Size classes step by 16 bytes up to 128, then by an eighth of a
// power of two, so a larger block wastes less than 12.5% of what it holds. An empty list is refilled with a
// chunk of blocks (twice as many as its last, up to 64 KiB), so that many blocks alive at once cost few
// allocations too. Chunks go back upstream only when the resource goes; blocks larger than `largest`, or
// aligned beyond max_align_t, come from upstream and go back at once.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <mutex>
#include <vector>

namespace herald::runtime::detail {

class FreeLists final : public std::pmr::memory_resource {
 public:
  // `synchronized`: blocks may be taken and given back on any thread (a mutex guards the lists).
  explicit FreeLists(std::size_t largest, bool synchronized = false,
                     std::pmr::memory_resource* upstream = std::pmr::new_delete_resource());
  ~FreeLists() override;
  FreeLists(const FreeLists&) = delete;
  FreeLists& operator=(const FreeLists&) = delete;

  // The class of a block of `bytes` bytes (bytes <= largest), and the bytes a block of that class has.
  static std::size_t class_of(std::size_t bytes) noexcept;
  static std::size_t class_bytes(std::size_t size_class) noexcept;

  // Blocks on the free lists now (for tests).
  std::size_t free_blocks() const;

 private:
  struct Block {
    Block* next;
  };
  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
  bool pooled(std::size_t bytes, std::size_t alignment) const noexcept {
    return bytes <= largest_ && alignment <= alignof(std::max_align_t);
  }

  struct Chunk {
    void* at;
    std::size_t bytes;
  };
  static constexpr std::size_t chunk_bytes = 64 * 1024;
  void refill(std::size_t size_class);  // the list of `size_class` is empty: a new chunk's blocks on it

  std::size_t largest_;
  bool synchronized_;
  std::pmr::memory_resource* upstream_;
  std::vector<Block*> heads_;      // per class, its first free block
  std::vector<std::size_t> next_;  // per class, the blocks of its next chunk
  std::vector<Chunk> chunks_;
  mutable std::mutex mutex_;
};

}  // namespace herald::runtime::detail
