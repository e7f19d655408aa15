#!/usr/bin/env bash
# The node-aware broadcasts on simulated multi-node clusters: several ranks per SimGrid host (a node), placed
# in blocks (ranks of one node on consecutive numbers) or cyclically (rank i on node i mod nodes), messages
# within a node over the host's own loopback link (its memory), between nodes over the network.
# herald-bcast-bench runs `node_pipeline`, `hierarchical`, the flat algorithms and `auto` (which prices the
# node-aware broadcasts with the node's model beside the flat ones) against SMPI's default MPI_Bcast in one
# smpirun per setting and size, then each of --smpi-algorithms (SMPI's built-ins, --cfg=smpi/bcast:NAME) in
# one smpirun each. herald finds the nodes itself (from the host names, which SMPI gives: see
# bench/smpi/probe-node-layout.sh); HERALD_RANKS_PER_NODE is not set.
#
#   bench/smpi/run-hierarchical.sh [--nodes 8,16] [--ranks-per-node 4,8] [--sizes 1K,64K,1M,16M]
#       [--placement blocks] [--bandwidth 10Gbps] [--latency 1us] [--node-bandwidth 800Gbps]
#       [--node-latency 0.2us] [--algorithms node_pipeline,hierarchical,binomial,knomial,two_tree,scatter_rdb,chain]
#       [--smpi-algorithms none] [--timeout 1800] [--out DIR] [--build DIR]
#
# The network is bench/smpi/common.sh's flat cluster (each node on its own full-duplex link into a
# non-blocking switch); each node's loopback link has --node-bandwidth and --node-latency. auto gets the
# network's model as bench/smpi/run-bcast.sh gives it, plus the node's model (HERALD_NODE_ALPHA = the
# loopback latency, HERALD_NODE_BETA = 1 / its bandwidth). Writes into <out> (default bench/smpi/results):
# hierarchical.md (one table per setting: each algorithm's time, the best flat one, auto's pick, the best
# SMPI built-in, and the node-link bound: every node but the root's takes the message through its one link,
# latency + n / bandwidth) and runs/ with every run's output. Exits 1 when a run fails or times out.
set -euo pipefail
shopt -s inherit_errexit

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=run-hierarchical.sh
source "$repo/bench/smpi/common.sh"
die() { smpi_die "$@"; }

nodes=8,16 ranks_per_node=4,8 sizes=1K,64K,1M,16M bandwidth=10Gbps latency=1us
node_bandwidth=800Gbps node_latency=0.2us algorithms=node_pipeline,hierarchical,binomial,knomial,two_tree,scatter_rdb,chain
placement=blocks smpi_algorithms=none timeout=1800 out=$repo/bench/smpi/results build=$repo/build-smpi
source "$repo/bench/options.sh"
parse_options "nodes ranks-per-node sizes placement bandwidth latency node-bandwidth node-latency algorithms smpi-algorithms timeout out build" "$@"
[[ $placement == blocks || $placement == cyclic ]] || die "--placement is blocks or cyclic, not '$placement'"
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
echo "nodes,ranks_per_node,placement,bytes,status,csv" >"$manifest"
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
    for ((i = 0; i < p; ++i)); do
      if [[ $placement == blocks ]]; then echo "host-$((i / r))"; else echo "host-$((i % n))"; fi
    done >"$work/hosts"
    for size in ${sizes//,/ }; do
      # herald's algorithms and auto in one run; each SMPI built-in in a run of its own (smpi:NAME rows).
      for smpi in herald ${smpi_algorithms//,/ }; do
        [[ $smpi == none ]] && continue
        name=n$n-r$r-$placement-$size
        args=(--algorithms "$algorithms,auto")
        cfg=()
        if [[ $smpi != herald ]]; then
          name+=-smpi-$smpi
          args=(--algorithms native)
          cfg=(--cfg=smpi/bcast:"$smpi")
        fi
        status=ok
        env "${smpi_model[@]}" HERALD_NODE_ALPHA="$node_alpha" HERALD_NODE_BETA="$node_beta" \
          timeout --kill-after=30 "$timeout" smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" \
          "${smpi_options[@]}" "${cfg[@]}" "$bench" --clock sync --repetitions 1 --iterations 3 --warmup 1 \
          --time-budget 0 "${args[@]}" --sizes "$size" --csv "$out/runs/$name.csv" \
          >"$out/runs/$name.txt" 2>"$out/runs/$name.log" || status=failed
        smpi_deadlocked "$out/runs/$name.log" && status=failed
        [[ $status == ok ]] || failed=1
        echo "$n nodes x $r ranks ($placement), $size, $smpi: $status" >&2
        echo "$n,$r,$placement,$size,$status,$out/runs/$name.csv" >>"$manifest"
      done
    done
  done
done

"$(smpi_python)" - "$manifest" "$out/hierarchical.md" "$bandwidth" "$latency" "$node_bandwidth" "$node_latency" \
  "$repo/bench/smpi" <<'PY'
import csv, sys
from collections import defaultdict
manifest, target, bw, lat, nbw, nlat, here = sys.argv[1:8]
sys.path.insert(0, here)
from bcast_report import bits_per_second as bits, seconds
intro = ["# The node-aware broadcasts on simulated multi-node clusters", "",
         f"Network {bw} links of {lat} (flat, non-blocking switch); within a node a loopback of {nbw} and {nlat}. "
         "Times in microseconds (SMPI, sync clock, median of 3 broadcasts). The bound: a node's data enters "
         "through its one link, latency + n / bandwidth.", "",
         "| nodes | ranks per node | placement | size | node_pipeline | hierarchical | best flat | auto (pick) | "
         "best SMPI built-in | auto / best built-in | bound |",
         "|---:|---:|---|---:|---:|---:|---|---|---|---:|---:|"]
groups, problems = defaultdict(dict), []
for m in csv.DictReader(open(manifest)):
    key = (int(m["nodes"]), int(m["ranks_per_node"]), m["placement"], m["bytes"])
    if m["status"] != "ok":
        problems.append(f"{m['csv']}: {m['status']}")
        continue
    for r in csv.DictReader(open(m["csv"])):
        label = r["algorithm"]
        if "-smpi-" in m["csv"]:
            label = "smpi:" + m["csv"].rsplit("-smpi-", 1)[1][:-4]
        groups[key][label] = r
rows_out = []
for key in sorted(groups, key=lambda k: (k[0], k[1], k[2], int(groups[k][next(iter(groups[k]))]["bytes"]))):
    rows = groups[key]
    t = {a: float(r["median_us"]) for a, r in rows.items()}
    n = int(next(iter(rows.values()))["bytes"])
    flat = {a: v for a, v in t.items() if a not in ("auto", "native", "hierarchical", "node_pipeline") and not a.startswith("smpi:")}
    built = {a: v for a, v in t.items() if a.startswith("smpi:") or a == "native"}
    best = min(flat, key=flat.get) if flat else None
    bb = min(built, key=built.get) if built else None
    bound = (seconds(lat) + 8 * n / bits(bw)) * 1e6 if key[0] > 1 else 0.0
    auto = rows.get("auto")
    fmt = lambda a: f"{t[a]:.2f}" if a in t else "-"
    rows_out.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {fmt('node_pipeline')} | {fmt('hierarchical')} | "
                    f"{best} {t[best]:.2f} | {auto['resolved'] if auto else '-'} {fmt('auto')} | "
                    f"{bb} {t[bb]:.2f} | {t['auto'] / t[bb]:.2f} | {bound:.2f} |" if bb and auto and best else
                    f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {fmt('node_pipeline')} | {fmt('hierarchical')} | "
                    f"{best} | - | - | - | {bound:.2f} |")
text = "\n".join(intro + rows_out + [""] + (["Not ok: " + "; ".join(problems)] if problems else [])) + "\n"
open(target, "w").write(text)
print(text)
PY
exit "$failed"
