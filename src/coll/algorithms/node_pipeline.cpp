// node_pipeline: a node-aware pipelined broadcast (nodes_of(): any placement, nodes of any size). The
// message, cut into segments, crosses the network among one leader per node, nodes counted from the root's,
// down a pipelined chain (`fanout` chains leave the root's node, as in chain). Each leader passes each segment on down a chain of its node's ranks as soon as
// it has come in and gone on to the other nodes (merge_stages). Segment k thus travels within a node while
// segment k+1 crosses the network; only the leaders send between nodes, and each byte enters each node
// once, through its one link.
// Cost, m segments of s bytes, N nodes of at most R ranks: the chain among leaders ((m + N - 2) hops of s
// bytes), each segment interval of a leader stretched by its send
// within the node, and R - 1 hops within the node after the last segment arrives.
#include "algorithms.hpp"
#include "nodes.hpp"

namespace herald::detail {
namespace {

using Stage = Program (*)(const Problem&, int);

Program node_stages(const Problem& p, int rank, Stage among_leaders) {
  const Nodes nodes(p);
  const int node = nodes.node_of(rank);
  const int local = nodes.local(rank);

  const Problem inside{.ranks = nodes.size(node),
                       .root = 0,
                       .bytes = p.bytes,
                       .parameters = {.segment = p.parameters.segment, .fanout = 1}};
  Program within = chain_program(inside, local);
  for (Step& step : within) step.peer = nodes.global(node, step.peer);
  if (local != 0 || nodes.count() == 1) return within;

  const Problem leaders{.ranks = nodes.count(),
                        .root = 0,
                        .bytes = p.bytes,
                        .parameters = {.segment = p.parameters.segment, .fanout = p.parameters.fanout}};
  Program across = among_leaders(leaders, nodes.virtual_node(node));
  for (Step& step : across) step.peer = nodes.leader(nodes.real_node(step.peer));
  return merge_stages(across, within, rank == p.root);
}

}  // namespace

Program node_pipeline_program(const Problem& p, int rank) { return node_stages(p, rank, chain_program); }


}  // namespace herald::detail
