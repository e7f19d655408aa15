#!/usr/bin/env bash
# A reduction through the task runtime beside SMPI's own MPI_Reduce and MPI_Allreduce built-ins, on a
# simulated cluster (docs/runtime.md, "Reductions"). herald-reduce-bench sums --bytes of doubles from every
# worker: read by one task on worker 0 (reduce), or by a task on every worker (allreduce, the sum then
# broadcast with --bcast). In the same run, interleaved, the same processes call MPI_Reduce or
# MPI_Allreduce with one of SMPI's algorithms (--cfg=smpi/reduce:NAME, smpi/allreduce:NAME): one run per
# algorithm, so herald is measured in every run and compared with the best algorithm.
#
#   bench/runtime/run-reduce-smpi.sh [--workers 16,64] [--bytes 1M] [--controls head,replicated]
#       [--modes reduce,allreduce] [--reduce-algorithms LIST] [--allreduce-algorithms LIST]
#       [--repetitions 3] [--bandwidth 10Gbps] [--latency 1us] [--bcast dynbcast] [--timeout 1800]
#       [--out DIR] [--build DIR]
#
# One rank per simulated host (every host on its own full-duplex link into a non-blocking switch); under
# head control the head has a host of its own (W + 1 ranks), replicated W. Communication only: the CPU
# time between MPI calls is not simulated, so herald's combines cost nothing, as SMPI's built-in operators
# do; herald-reduce-bench prints what one combine takes on this host beside. The runtime is given the
# network's model (HERALD_ALPHA, HERALD_BETA from smpi_cost_model). Each run is its own smpirun, --timeout
# seconds at most. Writes into <out> (default bench/runtime/results/reduce-smpi): reduce-smpi.csv (every
# run), reduce-smpi.md (per control, workers and mode: herald's median, the best algorithm's, their ratio)
# and runs/ with every run's output. Exits 1 when a run failed or timed out.
# Needs SimGrid (HERALD_SIMGRID=1 scripts/setup.sh); builds herald with smpicxx in --build (build-smpi).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=run-reduce-smpi.sh
source "$repo/bench/smpi/common.sh"
export HERALD_RUNTIME_IDLE_SLEEP=${HERALD_RUNTIME_IDLE_SLEEP:-0}
die() { smpi_die "$@"; }
source "$repo/bench/options.sh"

workers=16,64 bytes=1M controls=head,replicated modes=reduce,allreduce repetitions=3
reduce_algorithms=binomial,flat_tree,NTSL,scatter_gather,ompi_chain,ompi_pipeline,ompi_binary,ompi_in_order_binary,mvapich2_knomial,rab,default
allreduce_algorithms=lr,rab1,rab2,rab_rdb,rdb,redbcast,ompi_ring_segmented,mvapich2_rs,smp_rsag,default
bandwidth=10Gbps latency=1us bcast=dynbcast timeout=1800
out=$repo/bench/runtime/results/reduce-smpi build=$repo/build-smpi
parse_options "workers bytes controls modes reduce-algorithms allreduce-algorithms repetitions bandwidth latency bcast timeout out build" "$@"
counts_list "$workers" --workers
counts_list "$repetitions" --repetitions
[[ $timeout =~ ^[0-9]+$ && $timeout -ge 1 ]] || die "--timeout must be a positive number of seconds"
IFS=, read -r -a worker_list <<<"$workers"
IFS=, read -r -a control_list <<<"$controls"
IFS=, read -r -a mode_list <<<"$modes"
for c in "${control_list[@]}"; do [[ $c == head || $c == replicated ]] || die "--controls takes head and replicated, not '$c'"; done
for m in "${mode_list[@]}"; do [[ $m == reduce || $m == allreduce ]] || die "--modes takes reduce and allreduce, not '$m'"; done

smpi_require
smpi_build "$repo" "$build" herald-reduce-bench
bench=$build/apps/herald-reduce-bench/herald-reduce-bench
mkdir -p "$out/runs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpi_settings 0 1e-7 0
smpi_cost_model "$latency" "$bandwidth" 0

csv=$out/reduce-smpi.csv
echo "control,workers,mode,algorithm,status,herald_s,mpi_s,combine_host_s,wall_s" >"$csv"
failed=0
for control in "${control_list[@]}"; do
  for w in "${worker_list[@]}"; do
    p=$w
    [[ $control == replicated ]] || p=$((w + 1))
    smpi_flat_platform "$work/platform.xml" "$p" "$bandwidth" "$latency"
    smpi_hostfile "$work/hosts" "$p"
    for mode in "${mode_list[@]}"; do
      if [[ $mode == reduce ]]; then list=$reduce_algorithms flag=(); else list=$allreduce_algorithms flag=(--allreduce); fi
      IFS=, read -r -a algorithm_list <<<"$list"
      for algorithm in "${algorithm_list[@]}"; do
        name=$control-w$w-$mode-$algorithm
        started=$(date +%s)
        status=ok
        env "${smpi_model[@]}" HERALD_RUNTIME_CONTROL="$control" HERALD_RUNTIME_BCAST="$bcast" \
          timeout --kill-after=10 "$timeout" smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" \
          "${smpi_options[@]}" --cfg=smpi/"$mode":"$algorithm" "$bench" --bytes "$bytes" \
          --repetitions "$repetitions" "${flag[@]}" >"$out/runs/$name.txt" 2>"$out/runs/$name.log" || status=$?
        wall=$(($(date +%s) - started))
        read -r herald mpi < <(awk '/^median/ { print $3, $5 }' "$out/runs/$name.txt") || true
        combine=$(awk '/^combine_host_s/ { print $2 }' "$out/runs/$name.txt")
        case $status in
          ok) [[ -n ${herald:-} ]] || status=failed ;;
          124 | 137) status=timeout ;;
          *) status=failed ;;
        esac
        [[ $status == ok ]] || failed=1
        printf '%s, %s workers, %s, %s: %s (herald %s s, MPI %s s simulated) in %s s\n' "$control" "$w" "$mode" \
          "$algorithm" "$status" "${herald:--}" "${mpi:--}" "$wall"
        echo "$control,$w,$mode,$algorithm,$status,${herald:-},${mpi:-},${combine:-},$wall" >>"$csv"
        herald='' mpi=''
      done
    done
  done
done

command_line="bench/runtime/run-reduce-smpi.sh --workers $workers --bytes $bytes --controls $controls --modes $modes"
command_line+=" --repetitions $repetitions --bandwidth $bandwidth --latency $latency --bcast $bcast"
"$(smpi_python)" "$repo/bench/runtime/reduce_report.py" "$csv" --out "$out/reduce-smpi.md" --command "$command_line" \
  --platform "$bandwidth links of $latency, full duplex, non-blocking switch; SimGrid $(smpi_version), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "wrote $csv, $out/reduce-smpi.md, $out/runs/"
exit "$failed"
