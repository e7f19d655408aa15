// The ring of slots the ranks of one node share, through which node_memory algorithms carry their stage
// within the node (include/herald/node_memory.hpp says which steps, at which positions).
//
// Each slot has a stamp, the last position written into it plus one, and a count of the reads of it ever
// completed. The writer of position p fills slot p mod S once the node's other ranks have all read its
// previous use (released == readers x uses so far), then stamps it; a reader copies position p out once
// the stamp says p, then counts its read. Positions are handed out per call in the order calls are made,
// the same on every rank of a node, so concurrent broadcasts on one communicator (nonblocking ones) take
// the ring in turn without a word between ranks. Only counters grow, so nothing is ever reset.
//
// The memory is a POSIX shared-memory object rather than an MPI window: unmapping it is local, while
// MPI_Win_free is collective, and herald frees a communicator's state wherever its last broadcast ends.
#pragma once

#include <herald/node_memory.hpp>

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace herald::mpi {

class NodeMemory {
 public:
  static constexpr std::size_t slot_bytes = node_memory_slot_bytes;
  static constexpr std::size_t slots = 16;

  // Collective over `comm`, whose ranks sit on the nodes of `layout`; every member must make the call.
  // `wait` completes a request (polling, so that other broadcasts keep moving). Gives this rank its node's
  // ring where every node of two ranks or more has one (`everywhere`), else nullptr (a node's ranks are on
  // different hosts, or the system refuses). `everywhere` is the same on every rank, as "auto" must decide
  // alike everywhere; it is false where no node holds two ranks. A rank alone on its node gets nullptr:
  // its plans have no steps within the node. With `allowed` false this rank takes part but maps nothing
  // (it holds rings enough already), and so no rank gets one.
  static std::unique_ptr<NodeMemory> open(MPI_Comm comm, const NodeLayout& layout, int rank, std::uint64_t host,
                                          const std::function<void(MPI_Request&)>& wait, bool allowed,
                                          bool& everywhere);
  ~NodeMemory();
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;

  // The first of `count` positions for a call; calls must reserve in the order they are made.
  std::uint64_t reserve(std::uint64_t count) noexcept {
    const std::uint64_t first = next_;
    next_ += count;
    return first;
  }
  // A call's place in the ring, as its rank sees it: its positions and its size.
  struct Place {
    std::uint64_t first = 0, count = 0;
    std::size_t bytes = 0;
    std::uint64_t end() const noexcept { return first + count; }
    friend bool operator==(const Place&, const Place&) = default;
  };
  // Fills position `position` with `range` of the call at `place` from `from` (the buffer's start); with
  // `good` false, only marks it refused (the writer's data is known to be wrong). False while the slot is
  // still being read.
  bool put(std::uint64_t position, const std::byte* from, ByteRange range, const Place& place, bool good) noexcept;
  enum class Got { not_yet, good, refused, mismatch };
  // Copies position `position` into `into` (the buffer's start) if it holds `range` of the call at
  // `place`; counts the read whatever it found, so that the writer moves on. On a mismatch (the ranks
  // passed different counts) `writer` says where the writer's call lies.
  Got get(std::uint64_t position, std::byte* into, ByteRange range, const Place& place, Place& writer) noexcept;
  // Counts a read of `position` without copying it, once it is written: false until then.
  bool discard(std::uint64_t position) noexcept;
  // After a mismatch: the call this rank placed up to `mine` took the ring up to `actual`, the writer's end.
  // Later calls then start where the writer's do, if no call of this rank has taken positions since.
  void resync(std::uint64_t mine, std::uint64_t actual) noexcept {
    if (next_ == mine) next_ = actual;
  }

 private:
  struct Slot {
    alignas(64) std::atomic<std::uint64_t> written;  // position + 1
    std::uint64_t call_bytes, call_first, call_count;  // the call it belongs to, set before `written`
    std::uint64_t offset, length;                      // what it holds, likewise
    alignas(64) std::atomic<std::uint64_t> released;  // reads completed, all uses together
  };
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "the ring's counters must work across processes");
  static constexpr std::uint64_t refused_length = ~std::uint64_t{0};
  // The slots' control words first, then their bytes, page-aligned.
  static constexpr std::size_t data_offset = (slots * 128 + 4095) / 4096 * 4096;
  static std::size_t mapped_bytes() noexcept { return data_offset + slots * slot_bytes; }

  NodeMemory(void* base, int readers) noexcept;
  Slot& slot(std::uint64_t position) const noexcept { return controls_[position % slots]; }
  std::byte* bytes(std::uint64_t position) const noexcept {
    return static_cast<std::byte*>(base_) + data_offset + (position % slots) * slot_bytes;
  }

  void* base_;
  Slot* controls_;
  int readers_;  // the node's ranks but the writer
  std::uint64_t next_ = 0;
};

}  // namespace herald::mpi
