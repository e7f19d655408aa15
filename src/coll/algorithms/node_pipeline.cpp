// node_pipeline: a node-aware pipelined broadcast (nodes_of(): any placement, nodes of any size). The
// message, cut into segments, crosses the network among one leader per node, nodes counted from the root's,
// by a pipelined broadcast of the table (`leaders`: a chain by default, with `fanout` chains leaving the
// root's node; or two_tree, split_binary, binary, scatter_ring_tuned, binomial, circulant, which "auto" prices
// alike). Each
// leader passes each segment on down a chain of its node's ranks as soon as it has come in and gone on to
// the other nodes (merge_stages). Segment k thus travels within a node while segment k+1 crosses the
// network; only the leaders send between nodes.
// Cost, m segments of s bytes, nodes of at most R ranks: the stage among leaders, each segment interval of
// a leader stretched by its send within the node, and R - 1 hops within the node after the last segment
// arrives.
#include "algorithms.hpp"
#include "nodes.hpp"

namespace herald::detail {

Program node_pipeline_program(const Problem& p, int rank) { return node_stages(p, rank, chain_program); }

}  // namespace herald::detail
