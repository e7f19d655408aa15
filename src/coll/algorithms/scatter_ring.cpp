// scatter_ring: binomial scatter, then the enclosed ring allgather MPICH uses for long messages.
//
// After the scatter (chunk = ceil(n/P) bytes, virtual rank v holds chunk v and its sub-tree's), the ring
// runs P-1 steps over ranks in order: at step i every rank sends its right neighbour the chunk it received
// at step i-1 (its own chunk at step 1) and receives the next chunk from its left neighbour. Each rank acts
// as if it held only its own chunk, so every rank, the root included, receives P-1 chunks, some of which it
// already has; the Dataflow analysis marks those receives redundant and the executor lands them in scratch.
// Empty chunks (n < P * chunk) are not sent.
// Cost: (ceil(log2 P) + P - 1) alpha + 2 (P-1) c beta, chunk c = ceil(n/P).
#include "algorithms.hpp"
#include "scatter.hpp"

namespace herald::detail {

Program scatter_ring_program(const Problem& p, int rank) {
  return scatter_ring_allgather(p, rank, /*skip_held=*/false);
}

}  // namespace herald::detail
