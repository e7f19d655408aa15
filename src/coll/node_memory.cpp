#include <herald/error.hpp>
#include <herald/node_memory.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace herald {

NodeLowering lower_to_node_memory(const Program& program, const NodeLayout& layout, int rank, std::size_t slot_bytes) {
  if (slot_bytes == 0) throw Error(Errc::invalid_argument, "a ring slot of 0 bytes");
  NodeLowering out;
  const int node = layout.node_of(rank);
  const auto refuse = [&](const std::string& why) {
    throw Error(Errc::invalid_schedule, "rank " + std::to_string(rank) + " cannot use node memory: " + why);
  };
  // Cuts `range` into slot pieces at consecutive positions.
  const auto pieces = [&](Step::Op op, std::uint32_t step, ByteRange range) {
    const NodeStep::Op kind = op == Step::Op::send ? NodeStep::Op::put : NodeStep::Op::get;
    std::size_t offset = range.offset;
    do {
      const std::size_t length = std::min(slot_bytes, range.end() - offset);
      out.node.push_back({.op = kind, .step = step, .range = {offset, length}, .position = out.positions++});
      offset += length;
    } while (offset < range.end());
  };
  std::set<std::pair<std::size_t, std::size_t>> put;  // ranges already in the ring: (offset, length)
  for (std::uint32_t i = 0; i < program.size(); ++i) {
    const Step& s = program[i];
    if (layout.node_of(s.peer) != node) {
      (s.op == Step::Op::send ? out.sends : out.recvs).push_back(i);
      continue;
    }
    if (s.op == Step::Op::recv) {
      if (!put.empty()) refuse("it both puts and gets");
      if (out.writer >= 0 && out.writer != s.peer) refuse("it gets from two ranks of its node");
      out.writer = s.peer;
      pieces(s.op, i, s.range);
      continue;
    }
    if (out.writer >= 0) refuse("it both gets and puts");
    // The same range to another rank: already in the ring (sends split for MPI's int counts interleave).
    if (!put.insert({s.range.offset, s.range.length}).second) continue;
    pieces(s.op, i, s.range);
  }
  if (!put.empty()) out.readers = static_cast<int>(layout.members(node).size()) - 1;
  return out;
}

}  // namespace herald
