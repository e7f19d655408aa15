// A schedule's stage within a node carried through memory the node's ranks share, instead of messages.
//
// An algorithm flagged AlgorithmInfo::node_memory hands each segment from one rank of a node (its writer:
// the root on the root's node, the leader elsewhere) to every other rank of that node. Where those ranks
// share memory, the writer puts each segment once into a ring of slots the node shares and every other
// rank gets it from there: no message per rank. This is the MPI-free part an executor needs: which of a
// rank's steps become puts and gets, and at which ring positions, so that the writer and every reader of
// a node agree on them without a word.
#pragma once

#include <herald/error.hpp>
#include <herald/schedule.hpp>

#include <cstdint>
#include <vector>

namespace herald {

// The bytes of one slot of a node's ring: the largest piece a put or get carries, whatever the segment.
// Small enough that the slots in use stay in the cache while the writer fills one and readers empty others.
inline constexpr std::size_t node_memory_slot_bytes = 64 * 1024;

struct NodeStep {
  enum class Op : std::uint8_t { put, get };
  Op op = Op::put;
  std::uint32_t step = 0;      // the program's step it carries (for a put, the first send of its range)
  ByteRange range{};           // at most one slot's bytes
  std::uint32_t position = 0;  // in the ring, counted from the call's first position
};

struct NodeLowering {
  std::vector<std::uint32_t> sends, recvs;  // the steps that stay messages, in program order
  std::vector<NodeStep> node;               // puts and gets, in program order
  // Ring positions the call takes: the same on every rank of the node, writer or reader.
  std::uint32_t positions = 0;
  int writer = -1;   // for a reader, the rank whose puts it gets
  int readers = 0;   // for the writer, the ranks that get each put: its node's other ranks
};

// Splits `rank`'s program: steps whose peer is on the rank's own node (by `layout`) go through the ring
// in pieces of at most `slot_bytes`, numbered in program order; the sends of one range to the ranks of
// the node are one put, at the first of them. Throws Error(invalid_schedule) where the stage within the
// node is not one writer handing every range to all the others (a reader that sends within the node, or
// gets from two ranks).
NodeLowering lower_to_node_memory(const Program& program, const NodeLayout& layout, int rank, std::size_t slot_bytes);

}  // namespace herald
