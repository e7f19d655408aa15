#!/usr/bin/env bash
# The hierarchical broadcast on simulated multi-node clusters: several ranks per SimGrid host (a node),
# ranks of one node on consecutive numbers, messages within a node over the host's own loopback link (its
# memory), between nodes over the network. herald-bcast-bench runs `hierarchical`, the flat algorithms and
# `auto` (which prices the hierarchical broadcast with the node's model beside the flat ones) against SMPI's
# default MPI_Bcast, in one smpirun per setting and size.
#
#   bench/smpi/run-hierarchical.sh [--nodes 8,16] [--ranks-per-node 4,8] [--sizes 1K,64K,1M,16M]
#       [--bandwidth 10Gbps] [--latency 1us] [--node-bandwidth 800Gbps] [--node-latency 0.2us]
#       [--algorithms hierarchical,binomial,knomial,two_tree,scatter_rdb,chain] [--timeout 1800]
#       [--out DIR] [--build DIR]
#
# The network is bench/smpi/common.sh's flat cluster (each node on its own full-duplex link into a
# non-blocking switch); each node's loopback link has --node-bandwidth and --node-latency. auto gets the
# network's model as bench/smpi/run-bcast.sh gives it, plus HERALD_RANKS_PER_NODE and the node's model
# (HERALD_NODE_ALPHA = the loopback latency, HERALD_NODE_BETA = 1 / its bandwidth). Writes into <out>
# (default bench/smpi/results): hierarchical.md (one table per setting: each algorithm's time, the best
# flat one, auto's pick) and runs/ with every run's output. Exits 1 when a run fails or times out.
set -euo pipefail
shopt -s inherit_errexit

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=run-hierarchical.sh
source "$repo/bench/smpi/common.sh"
die() { smpi_die "$@"; }

nodes=8,16 ranks_per_node=4,8 sizes=1K,64K,1M,16M bandwidth=10Gbps latency=1us
node_bandwidth=800Gbps node_latency=0.2us algorithms=hierarchical,binomial,knomial,two_tree,scatter_rdb,chain
timeout=1800 out=$repo/bench/smpi/results build=$repo/build-smpi
source "$repo/bench/options.sh"
parse_options "nodes ranks-per-node sizes bandwidth latency node-bandwidth node-latency algorithms timeout out build" "$@"
counts_list "$nodes" --nodes
counts_list "$ranks_per_node" --ranks-per-node

smpi_require
smpi_build "$repo" "$build" herald-bcast-bench
bench=$build/apps/herald-bcast-bench/herald-bcast-bench
mkdir -p "$out/runs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpi_settings 4e-8 1e-7 0
smpi_options+=(--cfg=smpi/wtime:0 --cfg=network/crosstraffic:0)
smpi_cost_model "$latency" "$bandwidth" 4e-8
units="import sys; sys.path.insert(0, '$repo/bench/smpi'); import bcast_report as r"
node_alpha=$("$(smpi_python)" -c "$units; print(r.seconds('$node_latency'))")
node_beta=$("$(smpi_python)" -c "$units; print(8 / r.bits_per_second('$node_bandwidth'))")

failed=0
manifest=$out/hierarchical-runs.csv
echo "nodes,ranks_per_node,bytes,status,csv" >"$manifest"
for n in ${nodes//,/ }; do
  cat >"$work/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="cluster" prefix="host-" suffix="" radical="0-$((n - 1))" speed="1Gf" bw="$bandwidth" lat="$latency"
           sharing_policy="SPLITDUPLEX" bb_bw="1000Tbps" bb_lat="0us" loopback_bw="$node_bandwidth" loopback_lat="$node_latency"/>
</platform>
XML
  for r in ${ranks_per_node//,/ }; do
    p=$((n * r))
    for ((h = 0; h < n; ++h)); do for ((i = 0; i < r; ++i)); do echo "host-$h"; done; done >"$work/hosts"
    for size in ${sizes//,/ }; do
      name=n$n-r$r-$size
      status=ok
      env "${smpi_model[@]}" HERALD_RANKS_PER_NODE="$r" HERALD_NODE_ALPHA="$node_alpha" HERALD_NODE_BETA="$node_beta" \
        timeout --kill-after=30 "$timeout" smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" \
        "${smpi_options[@]}" "$bench" --clock sync --repetitions 1 --iterations 3 --warmup 1 --time-budget 0 \
        --algorithms "$algorithms,auto" --sizes "$size" --csv "$out/runs/$name.csv" \
        >"$out/runs/$name.txt" 2>"$out/runs/$name.log" || status=failed
      smpi_deadlocked "$out/runs/$name.log" && status=failed
      [[ $status == ok ]] || failed=1
      echo "$n nodes x $r ranks, $size: $status" >&2
      echo "$n,$r,$size,$status,$out/runs/$name.csv" >>"$manifest"
    done
  done
done

"$(smpi_python)" - "$manifest" "$out/hierarchical.md" "$bandwidth" "$latency" "$node_bandwidth" "$node_latency" <<'PY'
import csv, sys
manifest, target, bw, lat, nbw, nlat = sys.argv[1:7]
intro = ["# The hierarchical broadcast on simulated multi-node clusters", "",
         f"Network {bw} links of {lat} (flat, non-blocking switch); within a node a loopback of {nbw} and {nlat}. "
         "Times in microseconds (SMPI, sync clock, median of 3 broadcasts).", "",
         "| nodes | ranks per node | size | hierarchical | best flat | hierarchical / best flat | auto (pick) | SMPI default |",
         "|---:|---:|---:|---:|---|---:|---|---:|"]
rows_out, problems = [], []
for m in csv.DictReader(open(manifest)):
    if m["status"] != "ok":
        problems.append(f"{m['nodes']} nodes x {m['ranks_per_node']} ranks, {m['bytes']}: {m['status']}")
        continue
    rows = list(csv.DictReader(open(m["csv"])))
    t = {r["algorithm"]: float(r["median_us"]) for r in rows}
    auto = next((r for r in rows if r["algorithm"] == "auto"), None)
    flat = {a: v for a, v in t.items() if a not in ("auto", "native", "hierarchical")}
    best = min(flat, key=flat.get)
    rows_out.append(f"| {m['nodes']} | {m['ranks_per_node']} | {m['bytes']} | {t.get('hierarchical', float('nan')):.2f} | "
                    f"{best} {flat[best]:.2f} | {t.get('hierarchical', 0) / flat[best]:.2f} | "
                    f"{auto['resolved'] if auto else '-'} {t.get('auto', float('nan')):.2f} | {t.get('native', float('nan')):.2f} |")
text = "\n".join(intro + rows_out + [""] + (["Not ok: " + "; ".join(problems)] if problems else [])) + "\n"
open(target, "w").write(text)
print(text)
PY
exit "$failed"
