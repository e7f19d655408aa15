#include <herald/schedule.hpp>

#include <algorithm>

namespace herald {

bool paced(const Problem& p) { return p.parameters.segment && p.bytes > *p.parameters.segment; }

NodeLayout nodes_of(const Problem& p) {
  if (p.parameters.node_size) return NodeLayout::blocks(p.ranks, *p.parameters.node_size);
  if (p.layout.known() && p.layout.ranks() == p.ranks) return p.layout;
  return NodeLayout::blocks(p.ranks, p.ranks);
}

NodeCounts node_counts(const Problem& p) {
  if (const auto size = p.parameters.node_size) return {(p.ranks + *size - 1) / *size, std::min(p.ranks, *size)};
  if (p.layout.known() && p.layout.ranks() == p.ranks) return {p.layout.nodes(), p.layout.largest_node()};
  return {1, p.ranks};
}

SendQueues send_queues(const NodeLayout& nodes, int rank, const Program& program) {
  SendQueues q;
  const bool apart = nodes.nodes() > 1;
  for (std::uint32_t i = 0; i < program.size(); ++i) {
    if (program[i].op != Step::Op::send) continue;
    (apart && nodes.node_of(program[i].peer) == nodes.node_of(rank) ? q.node : q.network).push_back(i);
  }
  return q;
}

std::vector<ByteRange> segments(std::size_t bytes, std::optional<std::size_t> segment) {
  std::vector<ByteRange> out;
  if (bytes == 0) return out;
  if (!segment || *segment == 0 || *segment >= bytes) {
    out.push_back({0, bytes});
    return out;
  }
  const std::size_t s = *segment;
  out.reserve((bytes + s - 1) / s);
  for (std::size_t offset = 0; offset < bytes; offset += s) out.push_back({offset, std::min(s, bytes - offset)});
  return out;
}

Program split_long_steps(const Program& program, std::size_t limit) {
  const bool any_long = std::any_of(program.begin(), program.end(),
                                    [&](const Step& s) { return s.range.length > limit; });
  if (!any_long) return program;
  Program out;
  for (const Step& step : program) {
    if (step.range.length <= limit) {  // an empty step too: it is a message all the same
      out.push_back(step);
      continue;
    }
    for (ByteRange piece : segments(step.range.length, limit)) {
      piece.offset += step.range.offset;
      out.push_back({step.op, step.peer, piece});
    }
  }
  return out;
}

}  // namespace herald
