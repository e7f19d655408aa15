#!/usr/bin/env bash
# Runs herald-bcast-bench on simulated clusters: SimGrid's SMPI runs herald's real code, one rank per
# simulated host, over a modelled network, so every herald broadcast algorithm, `auto`, SMPI's default
# MPI_Bcast and each of SMPI's built-in broadcast algorithms are measured at 16 to 1024 hosts, on
# deterministic figures, on a 2-core machine.
#
#   bench/smpi/run-bcast.sh [--hosts 16,64,256,1024] [--sizes 1,1K,64K,1M,16M,64M,256M]
#       [--topologies flat,fattree] [--bandwidths 10Gbps,100Gbps] [--latency 1us] [--overhead 4e-8]
#       [--poll 1e-7] [--algorithms all] [--smpi-algorithms LIST|none] [--models hand[,tuned][,none]] [--reps 1]
#       [--iterations 3] [--shared-buffer auto|yes|no] [--timeout 1800] [--out DIR] [--build DIR]
#       [-- bench options]
#
# Platforms (one per topology, bandwidth and host count), every link with --latency and the bandwidth:
#   flat     every host on its own full-duplex link into one non-blocking switch (as run-dynbcast.sh);
#            a message crosses two links.
#   fattree  a two-level fat tree (SimGrid's FAT_TREE cluster, "2;L,S;1,L;1,1"): S leaf switches of L
#            hosts each (L = 16 from 64 hosts on, a quarter of the hosts below), every leaf with one link
#            up to each of L top switches, so as many links leave a leaf as enter it (full bisection);
#            a message crosses two links within a leaf and four between leaves.
#
# auto's model: `hand` (the default) gives it the platform's own figures (smpi_cost_model in common.sh: the
# fair-sharing network, alpha two latencies, the overhead and eager size above); `tuned` is a user's path:
# herald-tune runs once per platform, on the platform, and writes a tuning file (runs/<setting>-tuning.json,
# its output beside it), then a run of `auto` alone reads it (HERALD_TUNING_FILE, no other HERALD_ variable);
# the report shows its row as "auto, tuned". `none` is the drop-in's first run: `auto` alone with no tuning
# file and no HERALD_ variable, so it prices with herald's built-in default model; its row is "auto, no model".
#
# Runs, per platform and size, each in its own smpirun (--timeout seconds at most; one that takes longer
# is stopped and reported, and the larger sizes of the same run are skipped): herald's (every --algorithms entry, `auto`, and `native`, which is
# SMPI's default MPI_Bcast, labelled smpi:default), then one per SMPI built-in algorithm (the benchmark's
# `native` alone with --cfg=smpi/bcast:NAME, labelled smpi:NAME). --smpi-algorithms none skips them.
# The default list is every bcast algorithm SimGrid 3.32 has (smpirun --cfg=smpi/bcast:help lists them)
# and its copies of Open MPI's, MPICH's, MVAPICH2's and Intel MPI's decision rules, except: "default"
# (the herald run's native), "automatic" (it tries every algorithm on each call), and three that cannot
# broadcast on these one-core hosts in SimGrid 3.32: SMP_linear and ompi_split_bintree deliver wrong bytes
# (from 4 bytes on), arrival_scatter crashes. --smpi-algorithms names them to see for yourself.
#
# SMPI settings (common.sh), each for a reason:
#   - the latency and bandwidth of the platform as given (lat-factor and bw-factor 1, not SMPI's
#     correction factors, which fit one particular TCP cluster);
#   - messages up to 64 KiB travel eagerly (async-small-thresh, send-is-detached-thresh), as in Open MPI;
#   - an MPI_Test or MPI_Iprobe costs --poll seconds, always the same (grow-injected-times off);
#   - every send and receive costs its caller --overhead seconds (smpi/os, smpi/ois, smpi/or: LogP's o).
#     With no overhead a loop of 63 sends costs no more than one send, which no real network does. The
#     default, 4e-8 s, is the gap (how soon a rank can start its next small message) herald-bcast-bench
#     measured with Open MPI between 2 ranks of this 2-core machine (0.035 to 0.037 us; shared memory,
#     which is MPI's own per-message cost without a NIC's; over TCP loopback, --mca btl self,tcp, it was
#     4.2 us, the kernel's TCP cost, which --overhead 4.2e-6 models instead):
#       mpiexec -n 2 build/apps/herald-bcast-bench/herald-bcast-bench --sizes 1 --algorithms binomial \
#         --repetitions 1 --iterations 10          # the header's "gap between back-to-back small sends"
#   - communication only (simulate-computation off): herald's CPU time between MPI calls is not simulated;
#   - reading the clock costs nothing (smpi/wtime 0), so the benchmark's own clock reads add no time.
# The benchmark runs with --clock sync (every broadcast starts at one instant on every rank and lasts
# until the last rank has it; SMPI's clock is global), one repetition (SMPI's time is deterministic),
# --iterations broadcasts per sample after one warm-up broadcast, no time budget.
#
# Memory: SMPI runs every rank in this one process. With --shared-buffer auto (the default) the benchmark
# gets --shared-buffer (one SMPI_SHARED_MALLOC block for all ranks, smpi/shared-malloc:global, no copies
# and no validation) whenever hosts x the size exceeds 2 GiB; below that each rank has its own buffer and
# every delivery is validated byte for byte.
#
# Writes to <out> (default bench/smpi/results): smpi-bcast.csv (one row per topology, bandwidth, hosts,
# size and algorithm), smpi-bcast.md (the tables), smpi-bcast-<topology>-<bandwidth>.png (time / lower
# bound per size), runs.csv (every smpirun: status and wall time; "skipped" after a timeout at a smaller
# size) and runs/ (each run's table, CSV and SMPI log). Exits 1 when a herald run failed (wrong data, an error) or passed --timeout, 2 on a bad
# option; an SMPI built-in algorithm that fails or times out is reported in the table and runs.csv only.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=run-bcast.sh
source "$repo/bench/smpi/common.sh"
die() { smpi_die "$@"; }

hosts=16,64,256,1024 sizes=1,1K,64K,1M,16M,64M,256M topologies=flat,fattree bandwidths=10Gbps,100Gbps
latency=1us overhead=4e-8 poll=1e-7 algorithms=all reps=1 iterations=3 shared=auto timeout=1800
smpi_algorithms=binomial_tree,flattree,flattree_pipeline,NTSB,NTSL,NTSL_Isend,scatter_LR_allgather
smpi_algorithms+=,scatter_rdb_allgather,arrival_pattern_aware,arrival_pattern_aware_wait,SMP_binary
smpi_algorithms+=,SMP_binomial,ompi_pipeline,mvapich2_inter_node,mvapich2_intra_node
smpi_algorithms+=,mvapich2_knomial_intra_node,ompi,mpich,mvapich2,impi
models=hand out=$repo/bench/smpi/results build=$repo/build-smpi
command_line="bench/smpi/run-bcast.sh $*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --) shift; break ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --hosts | --sizes | --topologies | --bandwidths | --latency | --overhead | --poll | --algorithms | \
      --models | --reps | --iterations | --timeout | --out | --build)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2
      ;;
    --smpi-algorithms) [[ $# -ge 2 ]] || die "$1 needs a value"; smpi_algorithms=$2; shift 2 ;;
    --shared-buffer) [[ $# -ge 2 ]] || die "$1 needs a value"; shared=$2; shift 2 ;;
    *) die "unknown option '$1' (see --help; options for the benchmark go after --)" ;;
  esac
done

# "1K" -> 1024 (K, M, G are powers of 1024, as the benchmark reads them).
bytes_of() {
  local text=$1 scale=1
  case $text in
    *K) scale=1024 ;;
    *M) scale=$((1024 * 1024)) ;;
    *G) scale=$((1024 * 1024 * 1024)) ;;
  esac
  echo $((${text%[KMG]} * scale))
}

IFS=, read -r -a host_counts <<<"$hosts"
IFS=, read -r -a topology_list <<<"$topologies"
IFS=, read -r -a bandwidth_list <<<"$bandwidths"
smpi_list=()
[[ $smpi_algorithms == none ]] || IFS=, read -r -a smpi_list <<<"$smpi_algorithms"
# The sizes in bytes, ascending: "1,1K" and power-of-two ranges "1K..1M" (1K, 2K, 4K, ... 1M).
IFS=, read -r -a size_list <<<"$sizes"
byte_list=()
for entry in "${size_list[@]}"; do
  [[ $entry =~ ^[0-9]+[KMG]?(\.\.[0-9]+[KMG]?)?$ ]] ||
    die "--sizes: '$entry' is not a byte count or range (1, 4K, 16M, 1K..1M)"
  if [[ $entry == *..* ]]; then
    low=$(bytes_of "${entry%%..*}") high=$(bytes_of "${entry##*..}")
    ((low > 0 && low <= high)) || die "--sizes range '$entry' must run from a positive size up to a larger one"
    for ((n = low; n <= high; n *= 2)); do byte_list+=("$n"); done
  else
    byte_list+=("$(bytes_of "$entry")")
  fi
done
mapfile -t byte_list < <(printf '%s\n' "${byte_list[@]}" | sort -n -u)
for p in "${host_counts[@]}"; do
  [[ $p =~ ^[0-9]+$ && $p -ge 2 ]] || die "--hosts takes counts of at least 2, not '$p'"
done
for topology in "${topology_list[@]}"; do
  [[ $topology == flat || $topology == fattree ]] || die "--topologies takes flat and fattree, not '$topology'"
done
for bandwidth in "${bandwidth_list[@]}"; do
  [[ $bandwidth =~ ^[0-9.]+[kMGT]?bps$ ]] || die "--bandwidths takes SimGrid rates in bits like 10Gbps, not '$bandwidth'"
done
[[ $latency =~ ^[0-9.]+(s|ms|us|ns)$ ]] || die "--latency takes a time like 1us, not '$latency'"
[[ $shared =~ ^(auto|yes|no)$ ]] || die "--shared-buffer takes auto, yes or no, not '$shared'"
[[ $timeout =~ ^[0-9]+$ && $timeout -gt 0 ]] || die "--timeout takes whole seconds, not '$timeout'"
[[ $reps =~ ^[0-9]+$ && $iterations =~ ^[0-9]+$ ]] || die "--reps and --iterations take counts"
for model in ${models//,/ }; do
  [[ $model =~ ^(hand|tuned|none)$ ]] || die "--models takes a list of hand, tuned and none, not '$models'"
done

smpi_require
smpi_build "$repo" "$build" herald-bcast-bench herald-tune
bench=$build/apps/herald-bcast-bench/herald-bcast-bench
tune=$build/apps/herald-tune/herald-tune
mkdir -p "$out/runs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# timeout runs each simulation in a process group of its own, out of reach of the terminal's Ctrl-C: an
# interrupted script passes the signal on (timeout hands it to the simulation) instead of leaving it running.
simulation=
trap 'if [[ -n $simulation ]]; then kill -TERM "$simulation" 2>/dev/null; fi; exit 130' INT TERM

smpi_settings "$overhead" "$poll" 0
# No cross-traffic: SimGrid charges, by default, every transfer's TCP acknowledgements to the reverse
# links, which slows any rank that sends and receives at once (rings, trees that forward) by up to 1.7x;
# HPC fabrics (RDMA) carry acknowledgements in hardware, and herald's simulator has no such term.
smpi_options+=(--cfg=smpi/wtime:0 --cfg=network/crosstraffic:0)
bench_options=(--clock sync --repetitions "$reps" --iterations "$iterations" --warmup 1 --time-budget 0 "$@")

# block_for BYTES: SMPI's shared-malloc block for a buffer of BYTES: whole MiB (so whole pages), at least one.
block_for() {
  local mib=$((1024 * 1024))
  local block=$((($1 + mib - 1) / mib * mib))
  echo $((block > mib ? block : mib))
}

# fattree_shape HOSTS: "L S", L hosts on each of S leaf switches.
fattree_shape() {
  local p=$1 leaf=16
  if ((p < 64)); then leaf=$((p / 4 > 1 ? p / 4 : 2)); fi
  ((p % leaf == 0)) || die "a fat tree of $p hosts: $leaf hosts per leaf switch do not divide it"
  echo "$leaf $((p / leaf))"
}

# Every fat tree's shape is checked before the first run, not hours into the sweep.
if [[ $topologies == *fattree* ]]; then
  for p in "${host_counts[@]}"; do fattree_shape "$p" >/dev/null; done
fi

# platform FILE TOPOLOGY HOSTS BANDWIDTH: the platform file; prints the shape in words.
platform() {
  local file=$1 topology=$2 p=$3 bandwidth=$4
  if [[ $topology == flat ]]; then
    smpi_flat_platform "$file" "$p" "$bandwidth" "$latency"
    echo "flat: $p hosts, each on its own full-duplex link into one non-blocking switch"
    return
  fi
  local leaf leaves
  read -r leaf leaves <<<"$(fattree_shape "$p")"
  cat >"$file" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="fattree" topology="FAT_TREE" topo_parameters="2;$leaf,$leaves;1,$leaf;1,1" prefix="host-" suffix=""
           radical="0-$((p - 1))" speed="1Gf" bw="$bandwidth" lat="$latency" sharing_policy="SPLITDUPLEX"/>
</platform>
XML
  echo "fattree: two levels, $leaves leaf switches of $leaf hosts, each leaf linked once to each of $leaf top" \
    "switches (full bisection), every link full duplex"
}

manifest=$out/runs.csv
echo "topology,bandwidth,latency,hosts,bytes,run,status,wall_s,shared_buffer,csv" >"$manifest"
shapes=$out/shapes.txt
: >"$shapes"
failures=0
# run LABEL BYTES [smpirun options] -- [bench options]: one smpirun of one size under the time limit, for
# the platform in $work, with the assignments in run_env in its environment; sets `status` (ok, failed,
# timeout) and adds a line to the manifest.
run_env=()  # environment assignments for the next run's simulation
run() {
  local label=$1 bytes=$2
  shift 2
  local extra=()
  while [[ $1 != -- ]]; do extra+=("$1"); shift; done
  shift
  local name=$setting-$bytes-$label use_shared=$shared
  if [[ $shared == auto ]]; then
    use_shared=no
    if ((p * bytes > 2 * 1024 * 1024 * 1024)); then use_shared=yes; fi
  fi
  if [[ $use_shared == yes ]]; then
    # SMPI maps a shared block as copies of one file of shared-malloc-blocksize bytes (1 MiB unless set):
    # 256 MiB on 256 ranks would take 65536 mappings, past Linux's vm.max_map_count. A file as large as
    # the buffer takes one mapping per rank.
    extra+=(--cfg=smpi/shared-malloc:global --cfg=smpi/shared-malloc-blocksize:"$(block_for "$bytes")")
    set -- "$@" --shared-buffer
  fi
  local csv=$out/runs/$name.csv started=$SECONDS rc=0
  status=ok
  # timeout signals the whole process group, so the simulation stops with smpirun.
  env "${run_env[@]}" timeout --kill-after=30 "$timeout" smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" \
    "${smpi_options[@]}" "${extra[@]}" "$bench" "${bench_options[@]}" --sizes "$bytes" --csv "$csv" "$@" \
    >"$out/runs/$name.txt" 2>"$out/runs/$name.log" &
  simulation=$!
  wait "$simulation" || rc=$?
  simulation=
  if ((rc == 124 || rc == 137)); then
    status=timeout
    echo "$script: $name: stopped after $timeout s (--timeout); its larger sizes are skipped" >&2
  elif ((rc != 0)) || smpi_deadlocked "$out/runs/$name.log"; then
    status=failed
    local why="status $rc"
    if ((rc == 0)); then why="SimGrid found its ranks deadlocked"; fi
    echo "$script: $name: failed ($why); the end of its log ($out/runs/$name.log):" >&2
    grep -v '\[xbt_cfg/INFO\]' "$out/runs/$name.log" | tail -5 >&2
  fi
  # herald's runs must finish; SMPI's own algorithms failing is SimGrid's matter (reported, not fatal).
  if [[ $status != ok && $label == herald* ]]; then failures=$((failures + 1)); fi
  echo "$name: $status in $((SECONDS - started)) s" >&2
  echo "$topology,$bandwidth,$latency,$p,$bytes,$label,$status,$((SECONDS - started)),$use_shared,$csv" >>"$manifest"
}

# One smpirun per size, so a run too slow for --timeout costs only its own size: the smaller sizes keep
# their figures, and the larger ones of the same run, which would take longer still, are skipped.
for topology in "${topology_list[@]}"; do
  for bandwidth in "${bandwidth_list[@]}"; do
    for p in "${host_counts[@]}"; do
      setting=$topology-$bandwidth-p$p
      shape=$(platform "$work/platform.xml" "$topology" "$p" "$bandwidth")
      echo "$topology $bandwidth $p: $shape" >>"$shapes"
      smpi_hostfile "$work/hosts" "$p"
      echo "== $setting: $shape" >&2
      declare -A timed_out=()
      tuning=$out/runs/$setting-tuning.json
      if [[ $models == *tuned* ]]; then
        # A user's path: herald-tune on the platform, its file for auto (nothing else set).
        started=$SECONDS status=ok
        timeout --kill-after=30 "$timeout" smpirun -np "$p" -platform "$work/platform.xml" -hostfile "$work/hosts" \
          "${smpi_options[@]}" "$tune" -o "$tuning" >"$out/runs/$setting-tuning.txt" 2>"$out/runs/$setting-tuning.log" ||
          status=failed
        echo "$setting-tuning: $status in $((SECONDS - started)) s" >&2
        echo "$topology,$bandwidth,$latency,$p,0,tune,$status,$((SECONDS - started)),,$tuning" >>"$manifest"
        if [[ $status != ok ]]; then failures=$((failures + 1)); fi
      fi
      for bytes in "${byte_list[@]}"; do
        labels=()
        if [[ $models == *hand* ]]; then labels+=(herald); fi
        if [[ $models == *tuned* && -s $tuning ]]; then labels+=(herald_tuned); fi
        if [[ $models == *none* ]]; then labels+=(herald_none); fi
        for algorithm in "${smpi_list[@]}"; do labels+=("smpi_$algorithm"); done
        for label in "${labels[@]}"; do
          if [[ -n ${timed_out[$label]:-} ]]; then
            echo "$topology,$bandwidth,$latency,$p,$bytes,$label,skipped,0,,$out/runs/$setting-$bytes-$label.csv" >>"$manifest"
            continue
          fi
          if [[ $label == herald ]]; then
            # auto's cost model describes this network (smpi_cost_model).
            smpi_cost_model "$latency" "$bandwidth" "$overhead"
            run_env=("${smpi_model[@]}")
            run herald "$bytes" -- --algorithms "$algorithms"
            run_env=()
          elif [[ $label == herald_tuned ]]; then
            run_env=(HERALD_TUNING_FILE="$tuning")
            run herald_tuned "$bytes" -- --algorithms auto
            run_env=()
          elif [[ $label == herald_none ]]; then
            run herald_none "$bytes" -- --algorithms auto
          else
            run "$label" "$bytes" --cfg=smpi/bcast:"${label#smpi_}" -- --algorithms native
          fi
          if [[ $status == timeout ]]; then timed_out[$label]=1; fi
        done
      done
      unset timed_out
    done
  done
done

{
  echo "# herald's broadcast on simulated clusters (SimGrid SMPI)"
  echo
  echo "Links $latency each, full duplex; MPI overhead $overhead s per send and per receive; a test costs" \
    "$poll s; communication only; herald-bcast-bench --clock sync, $reps repetition(s) of $iterations" \
    "broadcasts. SimGrid $(smpi_version), $(date -u '+%Y-%m-%d %H:%M UTC')."
  echo
  echo "Command: $command_line"
  echo
  echo "Platforms:"
  echo
  sort -u "$shapes" | sed 's/^/- /'
  echo
} >"$work/preamble.md"
"$(smpi_python)" "$repo/bench/smpi/bcast_report.py" --manifest "$manifest" --out "$out" \
  --latency "$latency" --preamble "$work/preamble.md"
echo "wrote $out/smpi-bcast.csv, $out/smpi-bcast.md, the plots $out/smpi-bcast-*.png and $out/runs.csv"
if ((failures > 0)); then
  echo "$script: $failures herald run(s) failed or timed out (see $manifest and $out/runs/)" >&2
  exit 1
fi
