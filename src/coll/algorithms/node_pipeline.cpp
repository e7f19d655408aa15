// node_pipeline: a node-aware pipelined broadcast (nodes_of(): any placement, nodes of any size). The
// message, cut into segments, goes down a pipelined chain of one leader per node, nodes counted from the
// root's (`fanout` chains leave the root's node, as in chain); each leader passes each segment on down a
// chain of its node's ranks as soon as it has come in and gone on to the next node (merge_stages). Segment
// k thus travels within a node while segment k+1 crosses the network; only the leaders send between nodes,
// and each byte enters each node once, through its one link.
// Cost, m segments of s bytes, N nodes of at most R ranks: the chain among leaders, (m + N - 2) hops of s
// bytes between nodes (n beta for large n), each leader's segment intervals stretched by its send within
// the node, and R - 1 hops within the node after the last segment arrives.
#include "algorithms.hpp"
#include "nodes.hpp"

namespace herald::detail {

Program node_pipeline_program(const Problem& p, int rank) {
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
  Program across = chain_program(leaders, nodes.virtual_node(node));
  for (Step& step : across) step.peer = nodes.leader(nodes.real_node(step.peer));
  return merge_stages(across, within);
}

}  // namespace herald::detail
