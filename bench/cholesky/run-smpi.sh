#!/usr/bin/env bash
# Seed 003's Cholesky experiment on simulated clusters: herald-cholesky on SimGrid SMPI, one process per
# simulated node (plus the head on a node of its own), tiles placed 2D block-cyclic on the squarest grid of
# the nodes (owner computes, as Chameleon's distributed runs do; --mapping heft: the runtime's HEFT
# scheduler places every task instead), for every broadcast strategy.
#
#   bench/cholesky/run-smpi.sh [--nodes 16,64,100] [--sizes 8192,16384]
#       [--bandwidths 10Gbps,100Gbps] [--latency 1us] [--strategies nobcast,dynbcast,p2p,mpibcast]
#       [--tile 512] [--cores 16] [--kernel-times FILE] [--perturb F] [--timeout 3600]
#       [--control head|replicated] [--mapping cyclic|heft] [--out DIR] [--build DIR]
#
# --control replicated runs the runtime without a head (docs/runtime.md): one process per node and no more,
# every one of them computing.
#
# A strategy dynbcast/T runs dynbcast with the trees T: dyn, spread or planned (HERALD_RUNTIME_TREES), or a
# tree algorithm of dyn's for every broadcast, e.g. dynbcast/chain or dynbcast/linear (the root sends to
# every recipient itself; HERALD_DYN_ALGORITHM). dynbcast alone takes the runtime's default trees.
#
# The runtime and dyn price with the network's own figures (smpi_cost_model, bench/smpi/common.sh:
# HERALD_ALPHA and HERALD_BETA from --latency and the bandwidth), as a user gives them for their cluster.
#
# The kernels are modelled, not run: each takes the time it took on this machine on one core (measured
# first with herald-cholesky --calibrate at --tile, or read from --kernel-times), in proportion to its flops
# for narrower edge tiles, and a node runs --cores of them at once while its communication goes on
# (TaskContext::occupy): a node of that many cores with a thread for communication, as StarPU runs. The
# data is not computed, so every replica maps one shared block (HERALD_SMPI_SHARED_REPLICAS=1) and
# matrices far larger than this machine's memory fit; the residual is not checked here (the real runs and
# the tests check it). --perturb F runs each task's kernel for its time times a factor drawn for that task
# in [1 - F, 1 + F] (herald-cholesky --perturb, the same factors in every run), while the runtime still
# plans on the times measured: how a plan holds up when the run does not follow it. Every host has its own full-duplex link of --bandwidths and --latency into a
# non-blocking switch (bench/smpi/common.sh). Each run is its own smpirun, --timeout seconds at most.
#
# Writes into <out> (default bench/cholesky/results): cholesky-smpi.csv (every run), cholesky-smpi.md (the
# settings, the times and the gain of each strategy over nobcast, as seed 003 reports it: 1 - time /
# nobcast's time) and cholesky-smpi.png, and runs/ with every run's output. Needs SimGrid
# (HERALD_SIMGRID=1 scripts/setup.sh); builds herald-cholesky with smpicxx in --build (build-smpi).
set -euo pipefail
shopt -s inherit_errexit

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=run-smpi.sh
source "$repo/bench/smpi/common.sh"
die() { smpi_die "$@"; }

nodes=16,64,100 sizes=8192,16384 bandwidths=10Gbps,100Gbps latency=1us
strategies=nobcast,dynbcast,p2p,mpibcast tile=512 cores=16 kernel_times="" perturb=0 timeout=3600
out=$repo/bench/cholesky/results build=$repo/build-smpi control=head mapping=cyclic
source "$repo/bench/options.sh"
parse_options "nodes sizes bandwidths latency strategies tile cores kernel-times perturb timeout control mapping out build" "$@"
[[ $control == head || $control == replicated ]] || die "--control takes head or replicated, not '$control'"
[[ $mapping == cyclic || $mapping == heft ]] || die "--mapping takes cyclic or heft, not '$mapping'"
export HERALD_RUNTIME_CONTROL=$control
counts_list "$nodes" --nodes
counts_list "$sizes" --sizes
[[ $tile =~ ^[1-9][0-9]*$ ]] || die "--tile must be a positive size, not '$tile'"
[[ $cores =~ ^[1-9][0-9]*$ ]] || die "--cores must be a positive count, not '$cores'"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive number of seconds"
[[ $perturb =~ ^0(\.[0-9]+)?$ ]] || die "--perturb takes a fraction from 0 to 0.9, not '$perturb'"

smpi_require
mkdir -p "$out/runs"
if [[ -z $kernel_times ]]; then
  # The kernels' times on one core of this machine, from the real build.
  real=$repo/build/apps/herald-cholesky/herald-cholesky
  if [[ ! -x $real ]]; then
    cmake -S "$repo" -B "$repo/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$repo/build" -j2 --target herald-cholesky >/dev/null
  fi
  kernel_times=$out/kernel-times-$tile.json
  "$real" --calibrate "$kernel_times" --tile "$tile"
fi
[[ -r $kernel_times ]] || die "--kernel-times: cannot read '$kernel_times'"
smpi_build "$repo" "$build" herald-cholesky
bin=$build/apps/herald-cholesky/herald-cholesky
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpi_settings 0 1e-7 0
# SMPI maps each shared replica as copies of one block of smpi/shared-malloc-blocksize bytes (1 MiB unless
# set): a block of one whole tile keeps every replica to one mapping, under Linux's vm.max_map_count.
tile_bytes=$((tile * tile * 8))
smpi_options+=(--cfg=smpi/shared-malloc-blocksize:$(((tile_bytes + 1048575) / 1048576 * 1048576)))

csv=$out/cholesky-smpi.csv
echo "nodes,bandwidth,n,tile,strategy,status,seconds,gflops,wall_s" >"$csv"
failed=0
IFS=, read -r -a bandwidth_list <<<"$bandwidths"
IFS=, read -r -a strategy_list <<<"$strategies"
for p in ${nodes//,/ }; do
  ranks=$p
  [[ $control == replicated ]] || ranks=$((p + 1))  # the head on a node of its own
  smpi_hostfile "$work/hosts" "$ranks"
  for bw in "${bandwidth_list[@]}"; do
    smpi_flat_platform "$work/platform.xml" "$ranks" "$bw" "$latency"
    smpi_cost_model "$latency" "$bw" 0
    for n in ${sizes//,/ }; do
      for strategy in "${strategy_list[@]}"; do
        name=p$p-$bw-n$n-${strategy//[:\/]/_}
        trees=()
        case $strategy in
          dynbcast/dyn | dynbcast/spread | dynbcast/planned) trees=(HERALD_RUNTIME_TREES="${strategy#*/}") ;;
          dynbcast/*) trees=(HERALD_RUNTIME_TREES=dyn HERALD_DYN_ALGORITHM="${strategy#*/}") ;;
        esac
        started=$SECONDS
        status=ok
        env "${smpi_model[@]}" "${trees[@]}" HERALD_SMPI_SHARED_REPLICAS=1 timeout --kill-after=10 "$timeout" smpirun -np "$ranks" \
          -platform "$work/platform.xml" -hostfile "$work/hosts" "${smpi_options[@]}" --cfg=smpi/host-speed:1Gf \
          "$bin" -n "$n" --tile "$tile" --kernel-times "$kernel_times" --threads "$cores" --mapping "$mapping" \
          --perturb "$perturb" --strategy "${strategy%%/*}" --csv >"$out/runs/$name.txt" 2>"$out/runs/$name.log" || status=$?
        row=$(tail -1 "$out/runs/$name.txt")
        case $status in
          ok) [[ $row == herald,* ]] || status=failed ;;
          124 | 137) status=timeout ;;
          *) status=failed ;;
        esac
        smpi_deadlocked "$out/runs/$name.log" && status=deadlock
        seconds= gflops=
        if [[ $status == ok ]]; then
          seconds=$(cut -d, -f11 <<<"$row")
          gflops=$(cut -d, -f12 <<<"$row")
        else
          failed=1
        fi
        printf '%s nodes, %s, N %s, %s: %s (%s s simulated) in %s s\n' "$p" "$bw" "$n" "$strategy" "$status" \
          "${seconds:--}" "$((SECONDS - started))"
        echo "$p,$bw,$n,$tile,$strategy,$status,$seconds,$gflops,$((SECONDS - started))" >>"$csv"
      done
    done
  done
done

perturbed=""
[[ $perturb =~ ^0(\.0*)?$ ]] || perturbed=" each task's kernel time moved by a factor in [1 - $perturb, 1 + $perturb] (--perturb), the plan on the times measured;"
"$(smpi_python)" "$repo/bench/cholesky/smpi_report.py" "$csv" "$out" "$kernel_times" \
  "SimGrid $(smpi_version); $control control, tiles placed by $mapping;$perturbed every node on its own full-duplex link of the bandwidth shown and $latency into a non-blocking switch; $cores modelled cores per node; tile $tile; $(date -u '+%Y-%m-%d')"
echo "wrote $csv, $out/cholesky-smpi.md and .png, $out/runs/"
exit "$failed"
