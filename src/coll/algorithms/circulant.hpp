// The circulant graph of Träff's round-optimal broadcast of n blocks ("Optimal broadcast schedules in
// logarithmic time with applications to broadcast, all-broadcast, reduction and all-reduction", ACM TOPC
// 2025, doi 10.1145/3735139): P ranks, q = ceil(log2 P) skips s_0 = 1 < s_1 < ... < s_{q-1}, halving down
// from s_q = P (s_k = ceil(s_{k+1} / 2)). In round i, with k = i mod q, every rank sends one block to
// rank + s_k and receives one from rank - s_k (virtual ranks, mod P); n blocks reach every rank in
// n - 1 + q rounds, the least any one-ported broadcast can take.
//
// Each rank's part is computed alone, in O(log P): its receive schedule names, for each round of a phase
// of q rounds, the block it receives, relative to the phase (its baseblock b, received in the phase the
// root sends it, or e - q, block e of the phase before). What a rank sends in a round is what its
// destination receives then, so the send side needs no schedule of its own.
#pragma once

#include <vector>

namespace herald::detail {

class Circulant {
 public:
  explicit Circulant(int ranks);

  int ranks() const noexcept { return ranks_; }
  // q: the rounds of a phase, ceil(log2 P) (0 for one rank).
  int phase() const noexcept { return phase_; }
  // s_k, for k in [0, q]: s_q = P.
  int skip(int k) const noexcept { return skips_[static_cast<unsigned>(k)]; }
  // The block of its phase a rank receives first: the smallest index in the greedy sum of distinct skips
  // that makes its virtual rank (a block goes out from the root along increasing skips). q for the root.
  int baseblock(int vrank) const;
  // For each round k of a phase, the block received, relative to the phase (see above). Empty for the root.
  std::vector<int> receive_schedule(int vrank) const;
  // For n blocks, the block received in each of the n - 1 + q rounds, -1 for none: blocks before the first
  // are not received; blocks past the last stand for the last, which is received once, first time only.
  std::vector<int> received_blocks(int vrank, int blocks) const;

  // The same one round at a time, holding only the rank's receive schedule: a rank's program reads q
  // destinations' receipts, which as vectors would take q times its own length.
  class Receipts {
   public:
    Receipts(const Circulant& graph, int vrank, int blocks);
    int at(int round) const;  // the block received in that round, -1 for none
   private:
    int raw(int round) const;  // before the repeats of the last block are left out
    std::vector<int> schedule_;
    int phase_, blocks_, lead_;
    int last_round_ = -1;  // the round that brings the last block
  };

 private:
  int ranks_;
  int phase_ = 0;
  std::vector<int> skips_;  // q + 2 entries: s_0 .. s_q = P, then 2P, a bound the search never passes
};

}  // namespace herald::detail
