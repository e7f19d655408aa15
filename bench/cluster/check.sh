#!/bin/sh
# Checks that MPI ranks on the emulated cluster really talk over the shaped links: brings a cluster up at each
# rate, runs link_check.cpp (compiled here with mpicxx) with one rank per host, prints measured against
# expected bandwidth, and takes the cluster down again (also on failure or Ctrl-C).
#
#   check.sh [--hosts 8] [--rate 1gbit[,4gbit,...]] [--delay 0us] [--bytes 64M] [--reps 3]
#
# A list of rates measures each in turn: where "measured / expected" falls well below ~0.95 (TCP's payload
# share of the bytes the shaper counts at MTU 1500), the machine's CPUs, not the links, are the bottleneck.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"
hosts=8 rates=1gbit delay=0us bytes=64M reps=3

while [ $# -gt 0 ]; do
  case $1 in
    --hosts | --rate | --delay | --bytes | --reps)
      [ $# -ge 2 ] || die "$1 needs a value"
      case $1 in
        --hosts) hosts=$2 ;; --rate) rates=$2 ;; --delay) delay=$2 ;; --bytes) bytes=$2 ;; --reps) reps=$2 ;;
      esac
      shift 2
      ;;
    -h | --help) show_usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
case $hosts in '' | *[!0-9]*) die "--hosts must be a number, not '$hosts'" ;; esac
[ "$hosts" -ge 2 ] || die "--hosts must be at least 2"
byte_count=$(echo "$bytes" | awk '
  match(toupper($0), /^[0-9]+[KMG]?$/) {
    n = $0 + 0; u = toupper(substr($0, length($0)))
    print n * (u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : 1); exit 0
  }
  { exit 1 }') || die "--bytes must look like 64M, 512K or 1000000, not '$bytes'"
if [ "$byte_count" -lt 1 ] || [ "$byte_count" -gt 1073741824 ]; then die "--bytes must be between 1 and 1G"; fi
command -v mpicxx >/dev/null 2>&1 || die "mpicxx not found (apt-get install libopenmpi-dev)"

cluster_session
mpicxx -O2 -std=c++20 -DOMPI_SKIP_MPICXX=1 -o "$cluster_tmp/link_check" "$here/link_check.cpp"

echo "check: $hosts hosts, one rank each, $byte_count bytes per stream, median of $reps; $(mpirun --version 2>&1 | head -n 1)"
for rate in $(echo "$rates" | tr ',' ' '); do
  start_cluster "$hosts" "$rate" "$delay"
  bits=$(awk -F= '$1 == "rate_bits" { print $2 }' /run/herald-cluster.conf)
  echo
  run_logged /dev/null "$here/mpirun.sh" -- "$cluster_tmp/link_check" "$bits" "$byte_count" "$reps" ||
    die "link_check failed at $rate (status $?)"
done
