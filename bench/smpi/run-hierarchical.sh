#!/usr/bin/env bash
# The node-aware broadcasts on simulated multi-node clusters: several ranks per SimGrid host (a node), placed
# in blocks (ranks of one node on consecutive numbers) or cyclically (rank i on node i mod nodes), messages
# within a node over the host's own loopback link (its memory), between nodes over the network.
# herald-bcast-bench runs --algorithms and `auto` (which prices the node-aware broadcasts, at every stage
# among leaders, with the node's model beside the flat ones) against SMPI's default MPI_Bcast in one smpirun
# per setting and size, then each of --smpi-algorithms (SMPI's built-ins, --cfg=smpi/bcast:NAME) in one
# smpirun each. herald finds the nodes itself (from the host names, which SMPI gives: see
# bench/smpi/probe-node-layout.sh); HERALD_RANKS_PER_NODE is not set.
#
#   bench/smpi/run-hierarchical.sh [--nodes 8,16] [--ranks-per-node 4,8] [--sizes 1K,64K,1M,16M]
#       [--placement blocks[,cyclic]] [--bandwidth 10Gbps[,100Gbps]] [--latency 1us]
#       [--node-bandwidth 800Gbps] [--node-latency 0.2us]
#       [--algorithms node_pipeline,node_shared,hierarchical,binomial,knomial,two_tree,scatter_rdb,chain]
#       [--smpi-algorithms none] [--shared-buffer no] [--models hand[,tuned]] [--fat-tree none|L,U]
#       [--poll 1e-7] [--timeout 1800] [--out DIR] [--build DIR]
#
# The network is bench/smpi/common.sh's flat cluster (each node on its own full-duplex link into a
# non-blocking switch), or with --fat-tree L,U a two-level fat tree (SimGrid's FAT_TREE cluster
# "2;L,S;1,U;1,1": leaves of L nodes, S = nodes / L of them, each leaf linked once to each of U top
# switches, so L / U to 1 oversubscribed; every link full duplex, --latency and the bandwidth); each node's
# loopback link has --node-bandwidth and --node-latency. auto gets the
# network's model as bench/smpi/run-bcast.sh gives it, plus the node's model (HERALD_NODE_ALPHA = the
# loopback latency, HERALD_NODE_BETA = 1 / its bandwidth). --shared-buffer yes gives every rank one
# buffer (SMPI_SHARED_MALLOC): the memory of thousands of ranks, but no delivery is checked. --models
# tuned adds a user's path: herald-tune runs once per setting on the platform (runs/<setting>-tuning.json),
# then auto alone with that file and no other HERALD_ variable, a run per size (the "auto, tuned" column);
# hand (the default) is the model given as above. --poll is the simulated time an MPI_Test or MPI_Iprobe
# costs its caller (bench/smpi/common.sh's smpi_settings). Writes into
# <out> (default bench/smpi/results): hierarchical.md (one row per setting and size: auto's time and pick,
# the best herald algorithm, the best SMPI built-in, the node-link bound, every node but the root's taking
# the message through its one link, latency + n / bandwidth, and auto's ratios to the three),
# node-aware.csv (the same rows), node-aware.png (auto / best built-in and auto / bound by size, a line
# per shape, a panel per bandwidth and placement), and runs/ with every run's output. Exits 1 when a run
# fails or times out.
set -euo pipefail
shopt -s inherit_errexit

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=run-hierarchical.sh
source "$repo/bench/smpi/common.sh"
die() { smpi_die "$@"; }

nodes=8,16 ranks_per_node=4,8 sizes=1K,64K,1M,16M bandwidth=10Gbps latency=1us
node_bandwidth=800Gbps node_latency=0.2us
algorithms=node_pipeline,node_shared,hierarchical,binomial,knomial,two_tree,scatter_rdb,chain
placement=blocks smpi_algorithms=none shared_buffer=no timeout=1800 out=$repo/bench/smpi/results models=hand
poll=1e-7
fat_tree=none
build=$repo/build-smpi
source "$repo/bench/options.sh"
parse_options "nodes ranks-per-node sizes placement bandwidth latency node-bandwidth node-latency algorithms smpi-algorithms shared-buffer models fat-tree poll timeout out build" "$@"
if [[ $fat_tree != none ]]; then
  [[ $fat_tree =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]] || die "--fat-tree takes none or L,U (two positive counts), not '$fat_tree'"
  leaf=${fat_tree%,*} uplinks=${fat_tree#*,}
  for n in ${nodes//,/ }; do
    ((n % leaf == 0)) || die "--fat-tree $fat_tree: $n nodes do not fill leaves of $leaf"
  done
fi
[[ $poll =~ ^[0-9.]+(e-?[0-9]+)?$ ]] || die "--poll takes seconds (1e-7), not '$poll'"
[[ $models =~ ^(hand|tuned|hand,tuned|tuned,hand)$ ]] || die "--models takes hand, tuned or both, not '$models'"
for pl in ${placement//,/ }; do
  [[ $pl == blocks || $pl == cyclic ]] || die "--placement takes blocks and cyclic, not '$pl'"
done
[[ $shared_buffer == yes || $shared_buffer == no ]] || die "--shared-buffer is yes or no, not '$shared_buffer'"
counts_list "$nodes" --nodes
counts_list "$ranks_per_node" --ranks-per-node

smpi_require
smpi_build "$repo" "$build" herald-bcast-bench herald-tune
bench=$build/apps/herald-bcast-bench/herald-bcast-bench
tune=$build/apps/herald-tune/herald-tune
mkdir -p "$out/runs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpi_settings 4e-8 "$poll" 0
smpi_options+=(--cfg=smpi/wtime:0 --cfg=network/crosstraffic:0)
units="import sys; sys.path.insert(0, '$repo/bench/smpi'); import bcast_report as r"
node_alpha=$("$(smpi_python)" -c "$units; print(r.seconds('$node_latency'))")
node_beta=$("$(smpi_python)" -c "$units; print(8 / r.bits_per_second('$node_bandwidth'))")
shared=()
[[ $shared_buffer == yes ]] && shared=(--shared-buffer)

failed=0
manifest=$out/hierarchical-runs.csv
echo "bandwidth,nodes,ranks_per_node,placement,bytes,status,wall_s,csv,topology" >"$manifest"
topology=flat
[[ $fat_tree != none ]] && topology="\"fattree:$fat_tree\""  # quoted: it holds a comma
for bw in ${bandwidth//,/ }; do
  smpi_cost_model "$latency" "$bw" 4e-8
  for n in ${nodes//,/ }; do
    shape='bb_bw="1000Tbps" bb_lat="0us"'
    [[ $fat_tree != none ]] && shape="topology=\"FAT_TREE\" topo_parameters=\"2;$leaf,$((n / leaf));1,$uplinks;1,1\""
    cat >"$work/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="cluster" prefix="host-" suffix="" radical="0-$((n - 1))" speed="1Gf" bw="$bw" lat="$latency"
           sharing_policy="SPLITDUPLEX" $shape loopback_bw="$node_bandwidth" loopback_lat="$node_latency"/>
</platform>
XML
    for r in ${ranks_per_node//,/ }; do
      p=$((n * r))
      for pl in ${placement//,/ }; do
        for ((i = 0; i < p; ++i)); do
          if [[ $pl == blocks ]]; then echo "host-$((i / r))"; else echo "host-$((i % n))"; fi
        done >"$work/hosts"
        tuning=$out/runs/$bw-n$n-r$r-$pl-tuning.json
        if [[ $models == *tuned* ]]; then
          # A user's path: herald-tune on the platform, its file for auto (no other HERALD_ variable).
          started=$SECONDS status=ok
          timeout --kill-after=30 "$timeout" smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" \
            "${smpi_options[@]}" "$tune" -o "$tuning" >"${tuning%.json}.txt" 2>"${tuning%.json}.log" || status=failed
          [[ $status == ok ]] || failed=1
          echo "$bw, $n nodes x $r ranks ($pl), herald-tune: $status, $((SECONDS - started)) s" >&2
        fi
        for size in ${sizes//,/ }; do
          # herald's algorithms and auto in one run (hand: the platform's model given); auto with herald-tune's
          # file in one (tuned); each SMPI built-in in a run of its own (smpi:NAME rows).
          runs=()
          [[ $models == *hand* ]] && runs+=(herald)
          [[ $models == *tuned* && -s $tuning ]] && runs+=(tuned)
          for smpi in "${runs[@]}" ${smpi_algorithms//,/ }; do
            [[ $smpi == none ]] && continue
            name=$bw-n$n-r$r-$pl-$size
            args=(--algorithms "$algorithms,auto")
            cfg=()
            model=("${smpi_model[@]}" HERALD_NODE_ALPHA="$node_alpha" HERALD_NODE_BETA="$node_beta")
            if [[ $smpi == tuned ]]; then
              name+=-tuned
              args=(--algorithms auto)
              model=(HERALD_TUNING_FILE="$tuning")
            elif [[ $smpi != herald ]]; then
              name+=-smpi-$smpi
              args=(--algorithms native)
              cfg=(--cfg=smpi/bcast:"$smpi")
            fi
            status=ok
            started=$SECONDS
            env "${model[@]}" \
              timeout --kill-after=30 "$timeout" smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" \
              "${smpi_options[@]}" "${cfg[@]}" "$bench" --clock sync --repetitions 1 --iterations 3 --warmup 1 \
              --time-budget 0 "${shared[@]}" "${args[@]}" --sizes "$size" --csv "$out/runs/$name.csv" \
              >"$out/runs/$name.txt" 2>"$out/runs/$name.log" || status=failed
            smpi_deadlocked "$out/runs/$name.log" && status=failed
            [[ $status == ok ]] || failed=1
            echo "$bw, $n nodes x $r ranks ($pl), $size, $smpi: $status, $((SECONDS - started)) s" >&2
            echo "$bw,$n,$r,$pl,$size,$status,$((SECONDS - started)),$out/runs/$name.csv,$topology" >>"$manifest"
          done
        done
      done
    done
  done
done

"$(smpi_python)" "$repo/bench/smpi/node_report.py" --manifest "$manifest" --out "$out" --latency "$latency" \
  --node-bandwidth "$node_bandwidth" --node-latency "$node_latency"
exit "$failed"
