// circulant: Träff's round-optimal broadcast of n blocks on a circulant graph (circulant.hpp). The buffer
// is cut into segments (the blocks); in each round every rank sends one block and receives one, so once
// the pipeline is full every link carries a block every round: about (n - 1 + ceil(log2 P))
// (alpha + n_bytes beta / n), the pipelined optimum at the best n, for any P and any root.
// Cost: rounds of one block each; wins between the sizes, where chain's P - 1 hops of fill and binomial's
// log2 P copies of every byte are both too slow.
#include "circulant.hpp"

#include "algorithms.hpp"

#include <algorithm>
#include <cstdint>

namespace herald::detail {

Circulant::Circulant(int ranks) : ranks_(ranks) {
  while ((1LL << phase_) < ranks_) ++phase_;
  skips_.assign(static_cast<std::size_t>(phase_) + 2, 0);
  skips_[static_cast<std::size_t>(phase_)] = ranks_;
  skips_[static_cast<std::size_t>(phase_) + 1] = 2 * ranks_;
  for (int k = phase_ - 1; k >= 0; --k) {
    const int above = skips_[static_cast<std::size_t>(k) + 1];
    skips_[static_cast<std::size_t>(k)] = above - above / 2;
  }
}

int Circulant::baseblock(int vrank) const {
  // Greedy: the largest skip that fits first; the skips grow at most twofold, so any rank is such a sum.
  int rest = vrank;
  int smallest = phase_;
  for (int k = phase_ - 1; k >= 0 && rest > 0; --k)
    if (skip(k) <= rest) {
      rest -= skip(k);
      smallest = k;
    }
  return smallest;
}

std::vector<int> Circulant::receive_schedule(int vrank) const {
  if (vrank == 0) return {};
  const int q = phase_;
  const int base = baseblock(vrank);
  // Blocks not yet given a round, by index: e < q is block e of the phase before, q the baseblock.
  std::uint64_t left = ((std::uint64_t{1} << (q + 1)) - 1) & ~(std::uint64_t{1} << base);
  // The rank one period on, so that ranks before it are reached from the root at 0 going up.
  const long long self = static_cast<long long>(ranks_) + vrank;
  std::vector<int> index(static_cast<std::size_t>(q), 0);
  int round = 0;
  // The paper's search, depth first over the sums of distinct skips taken largest first (the ranks a block
  // passes on its way from the root), giving each round in turn the first block its source (self - s_round)
  // holds in time and this rank has not yet taken. That every source then holds what it sends, and that
  // every rank gets all q blocks, is the paper's theorem; the simulator checks it for every P up to 1024
  // (tests/unit/circulant_test.cpp).
  auto walk = [&](auto& deeper, long long reached, long long bound, int from) -> void {
    for (int e = from; e >= 0 && round < q; --e) {
      if ((left >> e & 1U) == 0) continue;
      const long long next = reached + skip(e);
      if (next > self - skip(round) || next >= bound) continue;
      if (next <= self - skip(round + 1)) {
        deeper(deeper, next, bound, e);
        if (round >= q) return;
      }
      if (reached > self - skip(round + 1)) return;
      bound = next;
      index[static_cast<std::size_t>(round++)] = e;
      left &= ~(std::uint64_t{1} << e);
    }
  };
  walk(walk, 0, 2LL * ranks_, q);
  std::vector<int> blocks(index.size());
  std::ranges::transform(index, blocks.begin(), [&](int e) { return e == q ? base : e - q; });
  return blocks;
}

std::vector<int> Circulant::received_blocks(int vrank, int blocks) const {
  const int q = phase_;
  if (blocks <= 0 || q == 0) return {};
  const int rounds = blocks - 1 + q;
  std::vector<int> got(static_cast<std::size_t>(rounds), -1);
  if (vrank == 0) return got;
  const std::vector<int> schedule = receive_schedule(vrank);
  // Phases are whole: the first starts `lead` rounds early, rounds whose blocks do not exist yet.
  const int lead = (q - (blocks - 1) % q) % q;
  bool have_last = false;
  for (int i = 0; i < rounds; ++i) {
    const int round = i + lead;
    const int block = schedule[static_cast<std::size_t>(round % q)] + (round / q) * q - lead;
    if (block < 0) continue;
    if (block >= blocks - 1) {
      if (have_last) continue;
      have_last = true;
    }
    got[static_cast<std::size_t>(i)] = std::min(block, blocks - 1);
  }
  return got;
}

Program circulant_program(const Problem& p, int rank) {
  const std::vector<ByteRange> blocks = segments(p.bytes, p.parameters.segment);
  const int n = static_cast<int>(blocks.size());
  const Circulant graph(p.ranks);
  const int q = graph.phase();
  Program program;
  if (n == 0 || q == 0) return program;
  const int P = p.ranks;
  const int me = to_virtual(rank, p.root, P);
  const std::vector<int> mine = graph.received_blocks(me, n);
  // Each destination's receipts: what this rank sends it, round by round.
  std::vector<std::vector<int>> theirs(static_cast<std::size_t>(q));
  for (int k = 0; k < q; ++k) theirs[static_cast<std::size_t>(k)] = graph.received_blocks((me + graph.skip(k)) % P, n);
  // A rank may skip a round (nothing yet to pass on, or a repeat of the last block): its next block may
  // then leave a round early, and the receives posted in order (AlgorithmInfo::ordered_receives) hold it
  // until its receiver has taken the round before, instead of letting it share that receiver's link.
  const int lead = (q - (n - 1) % q) % q;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const int k = (static_cast<int>(i) + lead) % q;
    if (const int block = mine[i]; block >= 0)
      program.push_back({Step::Op::recv, to_real((me - graph.skip(k) + P) % P, p.root, P),
                         blocks[static_cast<std::size_t>(block)]});
    if (const int block = theirs[static_cast<std::size_t>(k)][i]; block >= 0)
      program.push_back({Step::Op::send, to_real((me + graph.skip(k)) % P, p.root, P),
                         blocks[static_cast<std::size_t>(block)]});
  }
  return program;
}

}  // namespace herald::detail
