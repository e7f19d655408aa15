// split_binary: the split-binary tree. The message is cut in two halves; the first streams, segment by
// segment, down the root's first sub-tree of the binary tree (binary_tree.hpp) and the second down its
// other sub-tree, so every rank below the root forwards only half the message. Then each rank swaps halves
// with its partner, the rank at the same place in the other sub-tree (virtual ranks v odd and v + 1).
// With P even the last virtual rank, P - 1, has no partner: the rank that would be the parent of the
// missing virtual rank P (on the second half's side; the root when P = 2) sends it the second half,
// segment by segment, in the place of that absent child.
// Every rank below the root receives each byte exactly once, so (P-1) n bytes cross the wire.
// Cost, m = ceil(n / 2s) segments per half, D = floor(log2 P): about (3m + 2D)(alpha + s beta), since a
// forwarding rank sends each of its half's segments to two children and to its partner: 1.5 n beta for
// large n, against 2 n beta for `binary`. Wins for large messages at moderate P.
#include "algorithms.hpp"
#include "binary_tree.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace herald::detail {
namespace {

// The half a virtual rank's sub-tree carries: odd ranks (under rank 1) the first, even ranks the second.
int half_of(int vrank) { return vrank % 2 == 1 ? 0 : 1; }

// An empty half (a 1-byte message) is still one message, so that the messages do not depend on the count.
std::vector<ByteRange> segments_of(ByteRange half, std::optional<std::size_t> segment) {
  if (half.length == 0) return {half};
  std::vector<ByteRange> out = segments(half.length, segment);
  for (ByteRange& piece : out) piece.offset += half.offset;
  return out;
}

}  // namespace

Program split_binary_program(const Problem& p, int rank) {
  Program program;
  const int P = p.ranks;
  if (P == 1) return program;
  const int v = herald::to_virtual(rank, p.root, P);
  auto real = [&](int vrank) { return herald::to_real(vrank, p.root, P); };
  auto emit = [&](Step::Op op, int vpeer, ByteRange range) { program.push_back({op, real(vpeer), range}); };

  const std::size_t first = p.bytes - p.bytes / 2;
  const std::array<std::vector<ByteRange>, 2> half{segments_of({0, first}, p.parameters.segment),
                                                   segments_of({first, p.bytes / 2}, p.parameters.segment)};

  // With P even the tree is laid out for P + 1 ranks; the bytes meant for the absent rank P go to P - 1.
  const int tree_ranks = P % 2 == 0 ? P + 1 : P;
  auto target = [P](int vrank) { return vrank == P ? P - 1 : vrank; };
  const TreeNode node = binary_node(v, tree_ranks);

  // The root's order: segment k of each half in turn, so both sub-trees start at once. A child of the root
  // receives in this same order (at P = 2 the one child gets both halves).
  auto from_root = [&](auto&& each) {
    const std::vector<int> top = binary_node(0, tree_ranks).children;
    const std::size_t count = std::max(half[0].size(), half[1].size());
    for (std::size_t k = 0; k < count; ++k)
      for (int child : top)
        if (k < half[half_of(child)].size()) each(target(child), half[half_of(child)][k]);
  };

  if (v == 0) {
    from_root([&](int to, ByteRange piece) { emit(Step::Op::send, to, piece); });
    return program;
  }

  // Down the tree: receive each segment of this sub-tree's half, pass it to the children at once.
  std::vector<ByteRange> incoming;
  if (node.parent == 0) {
    from_root([&](int to, ByteRange piece) {
      if (to == v) incoming.push_back(piece);
    });
  } else {
    incoming = half[half_of(v)];
  }
  for (const ByteRange& piece : incoming) {
    emit(Step::Op::recv, node.parent, piece);
    for (int child : node.children) emit(Step::Op::send, target(child), piece);
  }

  // The unpaired rank gets the second half from its stand-in supplier (already counted above at P = 2).
  if (P % 2 == 0 && v == P - 1) {
    const int supplier = binary_node(P, tree_ranks).parent;
    if (supplier != node.parent)
      for (const ByteRange& piece : half[1]) emit(Step::Op::recv, supplier, piece);
  }

  // The exchange: send this side's half to the partner, receive the other half from it.
  const int partner = v % 2 == 1 ? v + 1 : v - 1;
  if (partner < P) {
    for (const ByteRange& piece : half[half_of(v)]) emit(Step::Op::send, partner, piece);
    for (const ByteRange& piece : half[1 - half_of(v)]) emit(Step::Op::recv, partner, piece);
  }
  return program;
}

}  // namespace herald::detail
