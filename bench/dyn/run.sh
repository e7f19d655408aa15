#!/bin/sh
# Runs herald-dynbcast-bench at P = 2, 3, 4 (3 and 4 are oversubscribed on a 2-core machine), then plots.
#   bench/dyn/run.sh <build dir> [output dir] [file suffix]
# The environment reaches the benchmark: HERALD_DYN_ALGORITHM=binomial HERALD_SEGMENT_SIZE=256K bench/dyn/run.sh
# build out -binomial measures another tree shape into p2-binomial.csv, ...
set -eu
# shellcheck source=SCRIPTDIR/../options.sh
. "$(dirname "$0")/../options.sh"
case ${1:-} in -h | --help) show_usage; exit 0 ;; esac
for arg in "${1:-}" "${2:-}"; do  # not the suffix, which may start with a dash (-binomial)
  case $arg in -*) refuse "unknown option '$arg' (see --help)" ;; esac
done
[ $# -le 3 ] || refuse "too many arguments: $#, at most 3 (see --help)"
build=${1:?usage: run.sh <build dir> [output dir]}
out=${2:-$(dirname "$0")/results}
suffix=${3:-}
mkdir -p "$out"
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3   # Debian's python3-matplotlib lives there
# Open MPI needs to be told about more ranks than cores and about running as root; MPICH rejects both flags.
flags=""
if mpiexec --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'; then
  flags="--oversubscribe"
  [ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
fi
for p in 2 3 4; do
  # shellcheck disable=SC2086
  mpiexec $flags -n "$p" "$build/apps/herald-dynbcast-bench/herald-dynbcast-bench" \
    --sizes 1K,8M --reps 11 --csv "$out/p$p$suffix.csv" | tee "$out/p$p$suffix.md"
done
"$python" "$(dirname "$0")/plot_dynbcast.py" "$out/p2$suffix.csv" "$out/p3$suffix.csv" "$out/p4$suffix.csv" \
  -o "$out/dynbcast$suffix.png" --summary "$out/summary$suffix.csv"
