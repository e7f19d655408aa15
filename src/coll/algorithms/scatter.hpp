// Shared by scatter_ring, scatter_ring_tuned and scatter_rdb: the buffer cut into one chunk per rank, and
// the binomial scatter that hands each rank its chunk together with the chunks of its sub-tree.
//
// Everything here is in virtual ranks (root = 0). Chunk c belongs to virtual rank c. After the scatter,
// virtual rank v holds chunks [v, v + scatter_share(v, P)): the root holds all P, any other rank its own
// chunk and those of its descendants in the binomial tree.
#pragma once

#include <herald/schedule.hpp>

namespace herald::detail {

// The buffer cut into `count` chunks of ceil(bytes / count) bytes. When bytes is not a multiple of count the
// last chunk is short, and when bytes < count * size the trailing chunks are empty.
class Chunks {
 public:
  Chunks(std::size_t bytes, int count);
  int count() const noexcept { return count_; }
  std::size_t size() const noexcept { return size_; }
  // The bytes of chunks [first, last), clipped to the buffer; length 0 if all of them lie past its end.
  ByteRange range(int first, int last) const noexcept;

 private:
  std::size_t bytes_;
  int count_;
  std::size_t size_;
};

// How many chunks virtual rank `vrank` holds after the binomial scatter over `ranks` ranks: its sub-tree's
// size, min(lowest set bit of vrank, ranks - vrank), and `ranks` at the root.
int scatter_share(int vrank, int ranks);

// Appends a step moving chunks [first, last), or nothing when that set of chunks is empty. Chunks that lie
// past the end of a short buffer still travel, as a message without data: which messages a rank exchanges
// then depends on the ranks and the root only, never on the count, so ranks that passed different counts
// (an erroneous program) exchange the same messages and report the mismatch instead of waiting.
void append_step(Program& program, Step::Op op, int peer, const Chunks& chunks, int first, int last);

// Appends the binomial scatter steps of real rank `rank`: receive the sub-tree's chunks from the parent,
// then send each child its sub-tree's chunks, largest sub-tree first. ceil(log2 P) rounds;
// cost ceil(log2 P) alpha + (P-1)/P n beta when P is a power of two.
void append_binomial_scatter(Program& program, const Problem& p, const Chunks& chunks, int rank);

// Appends the P-1 steps of the ring allgather that follows the scatter: at step i real rank `rank` sends its
// right neighbour chunk v-i+1 and receives chunk v-i from its left one (v its virtual rank). Enclosed, as in
// MPICH, every rank takes part in every step, receiving chunks it may already hold; with `skip_held`, a rank
// receives only in the steps that bring chunks it lacks, and its left neighbour sends only then.
void append_ring_allgather(Program& program, const Problem& p, const Chunks& chunks, int rank, bool skip_held);

// The whole program of scatter_ring (skip_held = false) or scatter_ring_tuned (true).
Program scatter_ring_allgather(const Problem& p, int rank, bool skip_held);

}  // namespace herald::detail
