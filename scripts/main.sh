#!/usr/bin/env bash
# The main job: sets up a fresh Debian machine, builds herald (Release, in build/), measures the machine for
# auto with herald-tune (results/tuning_p<P>.json, one per rank count, as a tuning file is per layout), and
# runs herald-bcast-bench on the built-in default with that file: 2 and 4 ranks, 1 B to 16 MiB, every
# herald algorithm, auto and the installed MPI_Bcast ("native") interleaved in one run per rank count. It
# prints the tables and writes results/bcast_p<P>.{txt,csv,json} and the plots
# results/bcast_{latency,ratio}_p<P>.png. Then it traces one small run of the task runtime (a Task Bench
# stencil on 4 processes, its shared buffer sent with the dynamic broadcast) into results/trace/, with
# herald-trace's Gantt chart and summary beside it (docs/tracing.md).
#
#   scripts/main.sh                          the default (7 to 9 minutes on a 2-core machine)
#   scripts/main.sh --ranks "2"              other rank counts
#   scripts/main.sh --build-dir build-rel    another build directory (default build/)
#   scripts/main.sh --no-tune                auto on the built-in cost model, no herald-tune
#   scripts/main.sh --sizes 1,64K,1M         herald-bcast-bench's options are passed on to it (listed below;
#                                            --repetitions replaces main.sh's 7; --csv and --json are
#                                            main.sh's own: results/bcast_p<P>.csv and .json)
#   scripts/main.sh --help                   this help
#
# An unknown option, or an option without its value, stops it at once with one line and exit status 2.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
self="$repo/scripts/$(basename "${BASH_SOURCE[0]}")"
cd "$repo"

refuse() { echo "main.sh: $* (--help lists the options)" >&2; exit 2; }
# herald-bcast-bench's options as "option NAME" (takes a value) or "flag NAME", read from its source so that
# the list cannot drift from the program's (a test compares it with the program's --help); but --csv and
# --json, which main.sh gives it.
mapfile -t bench_options < <(sed -n 's/.*app\.add_\(option\|flag\)("\(--[a-z-]*\)".*/\1 \2/p' \
  apps/herald-bcast-bench/options.cpp | grep -v -e ' --csv$' -e ' --json$')
bench_kind() {  # prints option or flag for herald-bcast-bench's option $1; fails for any other
  local entry
  for entry in "${bench_options[@]}"; do
    [[ ${entry#* } == "$1" ]] && { echo "${entry%% *}"; return 0; }
  done
  return 1
}

ranks_list="2 4"
build_dir="build"
tune=1
bench_args=()
repetitions=(--repetitions 7)  # unless given
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks | --build-dir) [ $# -ge 2 ] || refuse "$1 needs a value" ;;&
    --ranks) ranks_list="$2"; shift 2 ;;
    --ranks=*) ranks_list="${1#--ranks=}"; shift ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --build-dir=*) build_dir="${1#--build-dir=}"; shift ;;
    --no-tune) tune=0; shift ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'
      printf '\nherald-bcast-bench'"'"'s options, passed on to it (its --help says what each does):\n'
      printf '%s\n' "${bench_options[@]#* }" | paste -sd ' ' | fold -s -w 100 | sed 's/ *$//; s/^/  /'
      exit 0
      ;;
    --csv | --csv=* | --json | --json=*) refuse "$1: main.sh writes results/bcast_p<P>.csv and .json itself" ;;
    --repetitions | --repetitions=*) repetitions=() ;;&
    --*)
      kind=$(bench_kind "${1%%=*}") || refuse "unknown option '$1'"
      if [[ $kind == option && $1 != *=* ]]; then
        [ $# -ge 2 ] || refuse "$1 needs a value"
        bench_args+=("$1" "$2")
        shift 2
      else
        bench_args+=("$1")
        shift
      fi
      ;;
    *) refuse "unknown argument '$1'" ;;
  esac
done
ranks_list=${ranks_list//,/ }
[[ $ranks_list =~ ^\ *[1-9][0-9]*(\ +[1-9][0-9]*)*\ *$ ]] ||
  refuse "--ranks takes rank counts such as \"2 4\", not '$ranks_list'"
[ -n "$build_dir" ] || refuse "--build-dir needs a directory"

say() { printf '\n==> %s\n' "$*"; }

# 1. System dependencies (compiler, CMake, MPI, CLI11, nlohmann-json, matplotlib ...).
if [ -f scripts/setup.sh ]; then
  say "set-up: scripts/setup.sh"
  bash scripts/setup.sh
fi

# 2. Build only what the main job needs.
say "build: Release in $build_dir/"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" --target herald-bcast-bench herald-tune herald-task-bench -j "$(nproc)"
bench="$(cd "$build_dir" && pwd)/apps/herald-bcast-bench/herald-bcast-bench"
taskbench="$(cd "$build_dir" && pwd)/apps/herald-task-bench/herald-task-bench"
tuner="$(cd "$build_dir" && pwd)/apps/herald-tune/herald-tune"

# 3. The launcher: Open MPI refuses root and more ranks than cores unless told; MPICH's Hydra needs neither.
# Open MPI's launcher probes X displays over TCP on "localhost" (hwloc's "gl" plugin); where /etc/hosts does
# not name localhost, as in a new chroot, every launch can wait on DNS timeouts. Nothing here needs displays.
export HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--gl}
version="$(mpiexec --version 2>&1 || true)"
case "$version" in
  *"Open MPI"*|*OpenRTE*|*open-mpi*) flavour="Open MPI" ;;
  *HYDRA*|*MPICH*|*mpich*) flavour="MPICH" ;;
  *) flavour="unknown" ;;
esac
launcher_for() {  # prints the mpiexec flags for $1 ranks
  local flags=(-n "$1")
  if [ "$flavour" = "Open MPI" ]; then
    [ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
    [ "$1" -gt "$(nproc)" ] && flags+=(--oversubscribe)
  fi
  printf '%s\n' "${flags[@]}"
}
say "MPI: $flavour ($(printf '%s' "$version" | head -n 1)), $(nproc) cores"

# 4. The benchmark, one launch per rank count. Seven repetitions; each algorithm's repetition is kept near
#    20 ms by scaling iterations down (1000 at most, 5 at least), which bounds the run time at large sizes.
mkdir -p results
outputs=()
for ranks in $ranks_list; do
  mapfile -t flags < <(launcher_for "$ranks")
  out="results/bcast_p$ranks"
  tuning=()
  if [ "$tune" = 1 ]; then
    # Every algorithm and segment size against MPI_Bcast, 1 B to 64 MiB: auto then runs the measured
    # winner where MPI_Bcast is beaten beyond the spread, else MPI_Bcast (docs/tuning.md).
    file="results/tuning_p$ranks.json"
    command=(mpiexec "${flags[@]}" "$tuner" --exhaustive --max-bytes 64M -o "$file")
    say "tuning, $ranks ranks: ${command[*]}"
    timeout 1800 "${command[@]}" | tee "results/tuning_p$ranks.txt"
    tuning=(env "HERALD_TUNING_FILE=$repo/$file")
    outputs+=("$file" "results/tuning_p$ranks.txt")
  fi
  command=(mpiexec "${flags[@]}" "$bench" "${repetitions[@]}" --csv "$out.csv" --json "$out.json"
           "${bench_args[@]}")
  say "benchmark, $ranks ranks: ${tuning[*]:1} ${command[*]}"
  # A hang must not go unnoticed: no default run comes near this limit.
  timeout 1800 "${tuning[@]}" "${command[@]}" | tee "$out.txt"
  outputs+=("$out.txt" "$out.csv" "$out.json")
done

# 5. Plots. Debian's python3-matplotlib belongs to /usr/bin/python3, which may differ from python3 on PATH.
python=""
for candidate in /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import matplotlib' >/dev/null 2>&1; then
    python="$candidate"
    break
  fi
done
csvs=()
for ranks in $ranks_list; do csvs+=("results/bcast_p$ranks.csv"); done
if [ -z "$python" ]; then
  echo "main.sh: no Python with matplotlib found (apt-get install python3-matplotlib); plots not written" >&2
  exit 1
fi
say "plots: $python bench/plot_bcast.py ${csvs[*]} -o results"
mapfile -t plots < <("$python" bench/plot_bcast.py "${csvs[@]}" -o results)
outputs+=("${plots[@]}")

# 6. One traced run: the runtime's tasks, transfers, broadcasts and scheduling, and dyn's pieces, as a
#    Chrome trace (results/trace/trace.json, for Perfetto), an OTF2 archive and herald-trace's pictures.
rm -rf results/trace
mapfile -t flags < <(launcher_for 4)
command=(mpiexec "${flags[@]}" "$taskbench" -steps 8 -width 6 -type stencil_1d -kernel compute_bound -iter 20000
         -broadcast 1048576)
say "a traced run: HERALD_TRACE=results/trace HERALD_RUNTIME_BCAST=dynbcast ${command[*]}"
HERALD_TRACE=results/trace HERALD_RUNTIME_BCAST=dynbcast timeout 600 "${command[@]}" > results/trace-run.txt
say "its pictures: $python apps/herald-trace/herald-trace results/trace"
"$python" apps/herald-trace/herald-trace results/trace --title "Task Bench stencil_1d, 3 workers, dynbcast"
outputs+=(results/trace-run.txt results/trace/trace.json results/trace/gantt.png results/trace/summary.txt)
[ -f results/trace/trace.otf2 ] && outputs+=(results/trace/trace.otf2)

# 7. The summaries once more, together, and where everything is.
for ranks in $ranks_list; do
  say "summary, $ranks ranks (ratio = best herald median / native median; below 1: herald faster)"
  sed -n '/^# summary/,$p' "results/bcast_p$ranks.txt"
done
say "results in $repo/results:"
for file in "${outputs[@]}"; do printf '  %s\n' "$repo/$file"; done
