#include "free_lists.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <vector>

namespace herald::runtime::detail {
namespace {

// Counts what reaches the heap.
class Counting final : public std::pmr::memory_resource {
 public:
  std::size_t allocations = 0;
  std::size_t deallocations = 0;

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    ++allocations;
    return std::pmr::new_delete_resource()->allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    ++deallocations;
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
};

TEST(FreeLists, EveryClassHoldsItsSizesAndWastesLittle) {
  std::size_t last_class = 0;
  for (std::size_t bytes = 1; bytes <= (std::size_t{1} << 18); ++bytes) {
    const std::size_t c = FreeLists::class_of(bytes);
    const std::size_t room = FreeLists::class_bytes(c);
    ASSERT_GE(room, bytes) << bytes;
    ASSERT_EQ(room % alignof(std::max_align_t), 0u) << bytes;  // blocks side by side stay aligned
    if (bytes > 128) ASSERT_LT(room - bytes, (bytes + 7) / 8) << bytes;  // less than an eighth...
    else ASSERT_LT(room - bytes, 16u) << bytes;                         // ...or than 16 bytes
    ASSERT_GE(c, last_class) << bytes;  // classes grow with the size...
    ASSERT_LE(c, last_class + 1) << bytes;  // ...one at a time, so none is empty
    if (c > 0) { ASSERT_GT(bytes, FreeLists::class_bytes(c - 1)) << bytes; }  // the smallest class that fits
    last_class = c;
  }
}

TEST(FreeLists, AFreedBlockServesTheNextOfItsClassWithoutTheHeap) {
  Counting heap;
  {
    FreeLists lists(4096, false, &heap);
    std::vector<std::pair<void*, std::size_t>> blocks;
    // One chunk per class (8 and 16 share one, as do the two of 100): five.
    for (std::size_t bytes : {8, 16, 17, 100, 100, 1000, 4096})
      blocks.emplace_back(lists.allocate(bytes, alignof(std::max_align_t)), bytes);
    EXPECT_EQ(heap.allocations, 5u);
    const std::size_t spare = lists.free_blocks();
    for (const auto& [p, bytes] : blocks) lists.deallocate(p, bytes, alignof(std::max_align_t));
    EXPECT_EQ(lists.free_blocks(), spare + 7);
    EXPECT_EQ(heap.deallocations, 0u);
    // The same sizes again, and sizes of the same classes: every block from the lists.
    for (std::size_t bytes : {8, 16, 18, 99, 100, 1000, 4090}) {
      void* p = lists.allocate(bytes, alignof(std::max_align_t));
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignof(std::max_align_t), 0u);
      lists.deallocate(p, bytes, alignof(std::max_align_t));
    }
    EXPECT_EQ(heap.allocations, 5u);
    // Larger than `largest`, or over-aligned: straight to the heap and back.
    void* big = lists.allocate(4097, 8);
    lists.deallocate(big, 4097, 8);
    void* aligned = lists.allocate(64, 64);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned) % 64, 0u);
    lists.deallocate(aligned, 64, 64);
    EXPECT_EQ(heap.allocations, 7u);
    EXPECT_EQ(heap.deallocations, 2u);
  }
  // Its chunks go back when it goes.
  EXPECT_EQ(heap.deallocations, heap.allocations);
}

TEST(FreeLists, ManyBlocksAliveAtOnceCostFewChunks) {
  Counting heap;
  FreeLists lists(4096, false, &heap);
  std::vector<void*> blocks;
  for (int i = 0; i < 10000; ++i) blocks.push_back(lists.allocate(48, 8));
  std::sort(blocks.begin(), blocks.end());
  EXPECT_EQ(std::adjacent_find(blocks.begin(), blocks.end()), blocks.end());  // all distinct
  for (std::size_t i = 1; i < blocks.size(); ++i)
    ASSERT_GE(static_cast<std::byte*>(blocks[i]) - static_cast<std::byte*>(blocks[i - 1]), 48);  // none overlap
  EXPECT_LT(heap.allocations, 20u);  // chunks of 4, 8, ... blocks, up to 64 KiB: 15 here
  for (void* p : blocks) lists.deallocate(p, 48, 8);
}

TEST(FreeLists, ServesContainersAndTheirNodes) {
  Counting heap;
  FreeLists lists(4096, true, &heap);
  for (int round = 0; round < 3; ++round) {
    std::pmr::vector<std::pmr::vector<int>> v(&lists);
    for (int i = 0; i < 100; ++i) v.emplace_back(static_cast<std::size_t>(i), i);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(v[static_cast<std::size_t>(i)].size(), static_cast<std::size_t>(i));
  }
  const std::size_t after_three = heap.allocations;
  {
    std::pmr::vector<std::pmr::vector<int>> v(&lists);
    for (int i = 0; i < 100; ++i) v.emplace_back(static_cast<std::size_t>(i), i);
  }
  EXPECT_EQ(heap.allocations, after_three);  // a fourth round reuses the first's blocks
}

}  // namespace
}  // namespace herald::runtime::detail
