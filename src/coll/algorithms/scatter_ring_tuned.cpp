// scatter_ring_tuned: binomial scatter, then the non-enclosed ring of Zhou et al. ("A Bandwidth-saving
// Optimization for MPI Broadcast Collective Operation"): the same P-1 ring steps as scatter_ring, but no
// rank receives a chunk it already holds.
//
// After the scatter virtual rank v holds chunks [v, v + s(v)), s = scatter_share. In the ring, v receives
// chunk v-i at step i, so the chunks it lacks, v-1 down to v+s(v) (mod P), are exactly those of steps
// 1 .. P - s(v); it receives at those steps only, and its left neighbour sends at those steps only. The
// left neighbour always has what it forwards: for i - 1 <= P - s(v-1) it received that chunk at step i-1,
// and for later steps the chunk lies in its own sub-tree. So every byte reaches every rank exactly once:
// (P-1) n bytes on the wire, the least any broadcast moves, in sum over v of (P - s(v)) ring transfers
// (44 instead of 56 at P = 8, 75 instead of 90 at P = 10).
// Cost: the critical path is the enclosed ring's, (ceil(log2 P) + P - 1) alpha + 2 (P-1) c beta with
// c = ceil(n/P); the gain is in bytes injected into the network and in receive-side copies.
#include "algorithms.hpp"
#include "scatter.hpp"

namespace herald::detail {

Program scatter_ring_tuned_program(const Problem& p, int rank) {
  return scatter_ring_allgather(p, rank, /*skip_held=*/true);
}

}  // namespace herald::detail
