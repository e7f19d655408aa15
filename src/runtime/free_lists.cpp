#include "free_lists.hpp"

#include <algorithm>
#include <bit>
#include <new>

namespace herald::runtime::detail {

// Up to 128 bytes, classes step by 16. Above, a block of s bytes with 2^(e-1) < s <= 2^e (e >= 8) is
// rounded up to a multiple of 2^(e-4): eight classes per power of two. Every class is a multiple of 16, so
// the blocks of a chunk keep max_align_t's alignment.
std::size_t FreeLists::class_of(std::size_t bytes) noexcept {
  if (bytes <= 128) return bytes <= 16 ? 0 : (bytes + 15) / 16 - 1;
  const auto e = static_cast<std::size_t>(std::bit_width(bytes - 1));
  const std::size_t step = std::size_t{1} << (e - 4);
  const std::size_t q = (bytes + step - 1) / step;  // 9..16
  return 8 + (e - 8) * 8 + (q - 9);
}

std::size_t FreeLists::class_bytes(std::size_t size_class) noexcept {
  if (size_class < 8) return (size_class + 1) * 16;
  const std::size_t e = 8 + (size_class - 8) / 8;
  const std::size_t q = 9 + (size_class - 8) % 8;
  return q << (e - 4);
}

FreeLists::FreeLists(std::size_t largest, bool synchronized, std::pmr::memory_resource* upstream)
    : largest_(largest),
      synchronized_(synchronized),
      upstream_(upstream),
      heads_(class_of(largest) + 1, nullptr),
      next_(heads_.size(), 4) {}

FreeLists::~FreeLists() {
  for (const Chunk& chunk : chunks_) upstream_->deallocate(chunk.at, chunk.bytes, alignof(std::max_align_t));
}

void FreeLists::refill(std::size_t size_class) {
  const std::size_t block = class_bytes(size_class);
  const std::size_t most = std::max<std::size_t>(1, chunk_bytes / block);
  const std::size_t blocks = std::min(next_[size_class], most);
  next_[size_class] = std::min(blocks * 2, most);
  chunks_.reserve(chunks_.size() + 1);  // before the chunk, so that a failure here leaks nothing
  auto* at = static_cast<std::byte*>(upstream_->allocate(blocks * block, alignof(std::max_align_t)));
  chunks_.push_back({at, blocks * block});
  // Threaded from the last so that the chunk's first block is handed out first.
  for (std::size_t i = blocks; i-- > 0;) heads_[size_class] = ::new (at + i * block) Block{heads_[size_class]};
}

std::size_t FreeLists::free_blocks() const {
  std::unique_lock lock(mutex_, std::defer_lock);
  if (synchronized_) lock.lock();
  std::size_t n = 0;
  for (const Block* head : heads_)
    for (const Block* b = head; b; b = b->next) ++n;
  return n;
}

void* FreeLists::do_allocate(std::size_t bytes, std::size_t alignment) {
  if (!pooled(bytes, alignment)) return upstream_->allocate(bytes, alignment);
  const std::size_t c = class_of(bytes);
  std::unique_lock lock(mutex_, std::defer_lock);
  if (synchronized_) lock.lock();
  if (!heads_[c]) refill(c);
  Block* b = heads_[c];
  heads_[c] = b->next;
  return b;
}

void FreeLists::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
  if (!pooled(bytes, alignment)) return upstream_->deallocate(p, bytes, alignment);
  const std::size_t c = class_of(bytes);
  std::unique_lock lock(mutex_, std::defer_lock);
  if (synchronized_) lock.lock();
  heads_[c] = ::new (p) Block{heads_[c]};
}

}  // namespace herald::runtime::detail
