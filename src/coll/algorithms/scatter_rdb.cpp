// scatter_rdb: binomial scatter, then a recursive-doubling allgather, for any P.
//
// Recursive doubling runs over the hypercube of Q = 2^ceil(log2 P) members, in virtual ranks. At step k
// (m = 2^k) member u swaps with u ^ m: it sends the chunks of its aligned block [u & ~(m-1), +m), clipped to
// the P chunks, so that after step k it holds its aligned block of 2m chunks. When P is not a power of
// two, the members u in [P, Q) do not exist; each is played by the real rank u - Q/2 (a "stand-in"), which
// thus works for two members at once. A stand-in's second member starts with nothing (its chunks lie past
// P) and gathers, during the first log2(Q) - 1 steps, the chunks [Q/2, P) of the upper half; at the last
// step it would swap with the stand-in itself, so that swap is local. Every member of the complete
// hypercube ends with every chunk, hence so does every real rank.
//
// A rank never receives a block it got from the scatter: a real member aligned to 2m at step k already
// holds its whole 2m-block (its sub-tree's chunks), so its partner skips that send. No byte is received
// twice, and the root receives nothing.
// Cost (P a power of two): 2 log2 P alpha + 2 (P-1) c beta, chunk c = ceil(n/P). Otherwise a stand-in moves
// up to two messages per step, and at the last step the ranks above Q/2 receive Q/2 chunks at once: about
// (P + Q - 2) c beta, near 3 n beta just above a power of two (use a ring there for large messages).
#include "algorithms.hpp"
#include "scatter.hpp"

#include <algorithm>
#include <bit>

namespace herald::detail {

Program scatter_rdb_program(const Problem& p, int rank) {
  const int P = p.ranks;
  const Chunks chunks(p.bytes, P);
  Program program;
  append_binomial_scatter(program, p, chunks, rank);
  if (P == 1) return program;

  const int Q = static_cast<int>(std::bit_ceil(static_cast<unsigned>(P)));
  const int half = Q / 2;
  const int v = to_virtual(rank, p.root, P);
  auto host = [&](int member) { return member < P ? member : member - half; };
  // A real member aligned to 2m holds its 2m-block from the scatter already.
  auto needs = [&](int member, int m) { return member >= P || member % (2 * m) != 0; };
  auto append = [&](Step::Op op, int peer, int member, int m) {
    const int first = member & ~(m - 1);
    append_step(program, op, peer, chunks, std::min(first, P), std::min(first + m, P));  // clipped to P chunks
  };

  // The members this rank plays: itself, and the missing member v + Q/2 if there is one.
  const int members[2] = {v, v + half};
  const int roles = v < half && v + half >= P ? 2 : 1;
  for (int m = 1; m < Q; m <<= 1) {
    for (int role = 0; role < roles; ++role) {
      const int u = members[role], w = u ^ m;
      if (host(w) == v) continue;  // both members on this rank: nothing moves
      const int peer = to_real(host(w), p.root, P);
      if (needs(w, m)) append(Step::Op::send, peer, u, m);
      if (needs(u, m)) append(Step::Op::recv, peer, w, m);
    }
  }
  return program;
}

}  // namespace herald::detail
