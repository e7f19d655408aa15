#!/usr/bin/env bash
# herald-sim against SimGrid's SMPI, row by row: every herald algorithm and auto, run by SMPI on a platform,
# then simulated by herald-sim from the platform's figures alone (bench/sim/agree.py).
#
#   bench/sim/agree-smpi.sh [--hosts 16,64] [--nodes 8,16] [--ranks-per-node 4,8] [--placement blocks,cyclic]
#       [--bandwidth 10Gbps,100Gbps] [--sizes 16K,1M,16M] [--large 16M] [--large-ranks 64] [--latency 1us]
#       [--node-bandwidth 800Gbps]
#       [--node-latency 0.2us] [--fat-trees "64x1:16,4 16x8:4,1"] [--fat-tree-bandwidth 10Gbps]
#       [--poll 1e-7] [--out DIR] [--build DIR] [--sim PATH] [--timeout 1800]
#
# Rows: --hosts hosts of one rank each (a flat cluster), and each --nodes x --ranks-per-node pair that
# bench/smpi/run-hierarchical.sh runs (8 x 4 and 16 x 8 by default: pairs, not every combination), each
# placement, bandwidth and size (the --large sizes only up to --large-ranks ranks: 16 MiB at 128 ranks runs for
# most of an hour in SMPI on this machine); then each --fat-trees entry NODESxRANKS:L,U, a two-level fat tree of
# leaves of L nodes with U uplinks each (run-hierarchical.sh --fat-tree; 4:1 oversubscribed by default),
# nodes in blocks, at --fat-tree-bandwidth ("none" skips them). SMPI's side is bench/smpi/run-hierarchical.sh (its platform: a node's ranks
# share its full-duplex link into a non-blocking switch and talk over its loopback within it; its SMPI
# settings), into <out>/flat-* and <out>/nodes-*; herald-sim's is agree.py over their manifests, into <out>
# (agree.csv, agree.md). Default <out>: bench/sim/results/agree. --poll is what SMPI charges a rank for an
# MPI_Test (run-hierarchical.sh --poll); herald-sim charges nothing for one (docs/benchmarks.md says what
# that does to the rows). Exits 1 when an SMPI run failed.
set -euo pipefail
shopt -s inherit_errexit

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=agree-smpi.sh
die() { echo "$script: $*" >&2; exit 2; }

hosts=16,64 nodes=8,16 ranks_per_node=4,8 placement=blocks,cyclic bandwidth=10Gbps,100Gbps sizes=16K,1M,16M
latency=1us node_bandwidth=800Gbps node_latency=0.2us out=$repo/bench/sim/results/agree build=$repo/build-smpi
fat_trees="64x1:16,4 16x8:4,1" fat_tree_bandwidth=10Gbps large=16M large_ranks=64
sim=$repo/build/apps/herald-sim/herald-sim timeout=1800 poll=1e-7
source "$repo/bench/options.sh"
parse_options "hosts nodes ranks-per-node placement bandwidth sizes large large-ranks latency node-bandwidth node-latency fat-trees fat-tree-bandwidth poll out build sim timeout" "$@"
# sizes_for RANKS: --sizes without the --large ones above --large-ranks ranks.
sizes_for() {
  local kept=() size
  for size in ${sizes//,/ }; do
    if (($1 > large_ranks)) && [[ ,$large, == *",$size,"* ]]; then continue; fi
    kept+=("$size")
  done
  local IFS=,
  echo "${kept[*]}"
}
[[ $fat_trees == none ]] && fat_trees=""
for entry in $fat_trees; do
  [[ $entry =~ ^[1-9][0-9]*x[1-9][0-9]*:[1-9][0-9]*,[1-9][0-9]*$ ]] || die "--fat-trees entries are NODESxRANKS:L,U, not '$entry'"
done
IFS=, read -ra node_counts <<<"$nodes"
IFS=, read -ra rank_counts <<<"$ranks_per_node"
[[ ${#node_counts[@]} == "${#rank_counts[@]}" ]] || die "--nodes and --ranks-per-node pair up: give as many of each"
[[ -x $sim ]] || die "no herald-sim at $sim (build it, or give --sim)"

algorithms=linear,binomial,balanced_binomial,binary,split_binary,chain,knomial,scatter_ring,scatter_ring_tuned
algorithms+=,scatter_rdb,two_tree,circulant,hierarchical,node_pipeline,node_shared
mkdir -p "$out"
common=(--latency "$latency" --node-bandwidth "$node_bandwidth"
  --node-latency "$node_latency" --algorithms "$algorithms" --poll "$poll" --timeout "$timeout" --build "$build")
failed=0
manifests=()
for h in ${hosts//,/ }; do
  "$repo/bench/smpi/run-hierarchical.sh" "${common[@]}" --bandwidth "$bandwidth" --sizes "$(sizes_for "$h")" \
    --nodes "$h" --ranks-per-node 1 --placement blocks --out "$out/flat-$h" || failed=1
  manifests+=("$out/flat-$h/hierarchical-runs.csv")
done
for i in "${!node_counts[@]}"; do
  n=${node_counts[$i]} r=${rank_counts[$i]}
  "$repo/bench/smpi/run-hierarchical.sh" "${common[@]}" --bandwidth "$bandwidth" --sizes "$(sizes_for $((n * r)))" \
    --nodes "$n" --ranks-per-node "$r" --placement "$placement" --out "$out/nodes-${n}x$r" || failed=1
  manifests+=("$out/nodes-${n}x$r/hierarchical-runs.csv")
done
for entry in $fat_trees; do
  shape=${entry%%:*} tree=${entry#*:}
  n=${shape%x*} r=${shape#*x}
  "$repo/bench/smpi/run-hierarchical.sh" "${common[@]}" --bandwidth "$fat_tree_bandwidth" \
    --sizes "$(sizes_for $((n * r)))" --nodes "$n" \
    --ranks-per-node "$r" --placement blocks --fat-tree "$tree" --out "$out/fattree-${n}x$r-${tree/,/-}" || failed=1
  manifests+=("$out/fattree-${n}x$r-${tree/,/-}/hierarchical-runs.csv")
done
args=()
for m in "${manifests[@]}"; do args+=(--manifest "$m"); done
/usr/bin/python3 "$repo/bench/sim/agree.py" "${args[@]}" --latency "$latency" --node-latency "$node_latency" \
  --node-bandwidth "$node_bandwidth" --out "$out" --sim "$sim"
exit "$failed"
