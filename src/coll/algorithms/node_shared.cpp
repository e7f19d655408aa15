// node_shared: node_pipeline's stage among nodes (a pipelined chain among one leader per node), with each
// leader handing every segment, once it has gone on to the other nodes, to all of its node's ranks. As
// messages that is a fan-out the leader sends R - 1 times; where the node's ranks share memory the
// executor puts each segment once into a ring of slots the node shares and every other rank copies it out
// (node_memory.hpp), so each byte crosses the network once per node and the memory bus twice per reader.
// Under SMPI, or without shared memory, it runs as the messages it is.
#include "algorithms.hpp"
#include "nodes.hpp"
#include "tree.hpp"

namespace herald::detail {
namespace {

// The group's root sends each segment to every other rank in turn.
Program fan_out_program(const Problem& p, int rank) {
  TreeNode node;
  if (rank != p.root) {
    node.parent = p.root;
  } else {
    for (int r = 0; r < p.ranks; ++r)
      if (r != p.root) node.children.push_back(r);
  }
  return tree_program(node, p.bytes, p.parameters.segment);
}

}  // namespace

Program node_shared_program(const Problem& p, int rank) { return node_stages(p, rank, fan_out_program); }

}  // namespace herald::detail
