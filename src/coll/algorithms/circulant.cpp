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

Circulant::Receipts::Receipts(const Circulant& graph, int vrank, int blocks)
    : schedule_(graph.receive_schedule(vrank)), phase_(graph.phase()), blocks_(blocks),
      // Phases are whole: the first starts `lead` rounds early, rounds whose blocks do not exist yet.
      lead_(phase_ == 0 ? 0 : (phase_ - (blocks - 1) % phase_) % phase_) {
  if (schedule_.empty()) return;  // the root
  for (int i = 0; i < blocks - 1 + phase_ && last_round_ < 0; ++i)
    if (raw(i) >= blocks - 1) last_round_ = i;
}

int Circulant::Receipts::raw(int round) const {
  const int r = round + lead_;
  return schedule_[static_cast<std::size_t>(r % phase_)] + (r / phase_) * phase_ - lead_;
}

int Circulant::Receipts::at(int round) const {
  if (schedule_.empty()) return -1;
  const int block = raw(round);
  if (block < 0) return -1;
  if (block >= blocks_ - 1) return round == last_round_ ? blocks_ - 1 : -1;
  return block;
}

std::vector<int> Circulant::received_blocks(int vrank, int blocks) const {
  if (blocks <= 0 || phase_ == 0) return {};
  const Receipts receipts(*this, vrank, blocks);
  std::vector<int> got(static_cast<std::size_t>(blocks - 1 + phase_));
  for (std::size_t i = 0; i < got.size(); ++i) got[i] = receipts.at(static_cast<int>(i));
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
  const Circulant::Receipts mine(graph, me, n);
  // Each destination's receipts: what this rank sends it, round by round.
  std::vector<Circulant::Receipts> theirs;
  theirs.reserve(static_cast<std::size_t>(q));
  for (int k = 0; k < q; ++k) theirs.emplace_back(graph, (me + graph.skip(k)) % P, n);
  // A rank may skip a round (nothing yet to pass on, or a repeat of the last block): its next block may
  // then leave a round early, and the receives posted in order (AlgorithmInfo::ordered_receives) hold it
  // until its receiver has taken the round before, instead of letting it share that receiver's link.
  const int lead = (q - (n - 1) % q) % q;
  for (int i = 0; i < n - 1 + q; ++i) {
    const int k = (i + lead) % q;
    if (const int block = mine.at(i); block >= 0)
      program.push_back({Step::Op::recv, to_real((me - graph.skip(k) + P) % P, p.root, P),
                         blocks[static_cast<std::size_t>(block)]});
    if (const int block = theirs[static_cast<std::size_t>(k)].at(i); block >= 0)
      program.push_back({Step::Op::send, to_real((me + graph.skip(k)) % P, p.root, P),
                         blocks[static_cast<std::size_t>(block)]});
  }
  return program;
}

}  // namespace herald::detail
