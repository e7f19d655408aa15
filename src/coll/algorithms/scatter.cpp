#include "scatter.hpp"

#include <algorithm>
#include <bit>

namespace herald::detail {
namespace {

int lowest_bit(int v) noexcept { return v & -v; }

}  // namespace

Chunks::Chunks(std::size_t bytes, int count)
    : bytes_(bytes), count_(count), size_(count > 0 ? (bytes + count - 1) / count : 0) {}

ByteRange Chunks::range(int first, int last) const noexcept {
  const std::size_t begin = std::min(bytes_, static_cast<std::size_t>(first) * size_);
  const std::size_t end = std::min(bytes_, static_cast<std::size_t>(last) * size_);
  return {begin, end - begin};
}

int scatter_share(int vrank, int ranks) {
  return vrank == 0 ? ranks : std::min(lowest_bit(vrank), ranks - vrank);
}

void append_step(Program& program, Step::Op op, int peer, const Chunks& chunks, int first, int last) {
  if (first < last) program.push_back({op, peer, chunks.range(first, last)});
}

void append_binomial_scatter(Program& program, const Problem& p, const Chunks& chunks, int rank) {
  const int P = p.ranks;
  const int v = to_virtual(rank, p.root, P);
  // The parent clears v's lowest set bit; the children add each smaller power of two.
  int mask = static_cast<int>(std::bit_ceil(static_cast<unsigned>(P)));
  if (v != 0) {
    mask = lowest_bit(v);
    append_step(program, Step::Op::recv, to_real(v - mask, p.root, P), chunks, v, v + scatter_share(v, P));
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    const int child = v + mask;
    if (child < P)
      append_step(program, Step::Op::send, to_real(child, p.root, P), chunks, child,
                  child + scatter_share(child, P));
  }
}

void append_ring_allgather(Program& program, const Problem& p, const Chunks& chunks, int rank, bool skip_held) {
  const int P = p.ranks;
  const int v = to_virtual(rank, p.root, P);
  const int left = (rank + P - 1) % P, right = (rank + 1) % P;  // neighbours in real and virtual ranks alike
  // The right neighbour lacks P - s(v+1) chunks and this rank P - s(v): they arrive in the first steps.
  const int last_send = skip_held ? P - scatter_share((v + 1) % P, P) : P - 1;
  const int last_recv = skip_held ? P - scatter_share(v, P) : P - 1;
  for (int i = 1; i < P; ++i) {
    const int sent = (v - i + 1 + P) % P, received = (v - i + P) % P;
    if (i <= last_send) append_step(program, Step::Op::send, right, chunks, sent, sent + 1);
    if (i <= last_recv) append_step(program, Step::Op::recv, left, chunks, received, received + 1);
  }
}

Program scatter_ring_allgather(const Problem& p, int rank, bool skip_held) {
  const Chunks chunks(p.bytes, p.ranks);
  Program program;
  program.reserve(2 * static_cast<std::size_t>(p.ranks) + 32);
  append_binomial_scatter(program, p, chunks, rank);
  append_ring_allgather(program, p, chunks, rank, skip_held);
  return program;
}

}  // namespace herald::detail
