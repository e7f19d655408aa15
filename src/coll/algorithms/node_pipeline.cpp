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

Program node_pipeline_program(const Problem& p, int rank) { return node_stages(p, rank, chain_program, chain_program); }

}  // namespace herald::detail
