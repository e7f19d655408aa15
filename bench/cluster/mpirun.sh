#!/bin/sh
# Runs an Open MPI job on the emulated cluster (bench/cluster/cluster.sh up N), one rank per host, over TCP.
#
#   mpirun.sh [--hosts K] [mpirun options...] -- program [args...]
#
# --hosts K uses the first K hosts (default: all of them). The options before "--" go to mpirun (which
# refuses those it does not know); a command line without "--" is refused. -n/-np defaults to the number of
# hosts. mpirun runs in the root namespace and starts one orted per host through
# netns-agent.sh (Open MPI's ssh launcher pointed at `ip netns exec`), so every rank is on its own "node"
# and its traffic, to other ranks and to mpirun, crosses its shaped link. Only TCP over the cluster's subnet is
# allowed: no shared memory between ranks, no loopback.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../options.sh
. "$here/../options.sh"
prefix=herald
net=${HERALD_CLUSTER_NET:-10.213.0}

die() {
  echo "mpirun.sh: $*" >&2
  exit 2
}

# The command line before anything else: --help and a refused command line need no MPI and no cluster.
case ${1:-} in -h | --help) show_usage; exit 0 ;; esac
[ $# -gt 0 ] || refuse "no program to run (see --help)"
has_separator=no
for arg in "$@"; do
  if [ "$arg" = -- ]; then has_separator=yes; break; fi
done
[ "$has_separator" = yes ] || refuse "no '--' before the program in '$*' (see --help)"
if [ "$1" = --hosts ]; then
  [ $# -ge 2 ] || refuse "--hosts needs a number"
  case $2 in '' | *[!0-9]*) refuse "--hosts must be a number, not '$2'" ;; esac
fi

command -v mpirun >/dev/null 2>&1 || die "mpirun not found (apt-get install openmpi-bin)"
mpirun --version 2>&1 | grep -Eq 'Open MPI|OpenRTE' ||
  die "needs Open MPI's mpirun (its rsh launcher starts the daemons in the namespaces); found: $(mpirun --version 2>&1 | head -n 1)"

available=$(ip netns list 2>/dev/null | awk -v p="${prefix}-h" 'index($1, p) == 1 && substr($1, length(p) + 1) ~ /^[0-9]+$/' | wc -l)
[ "$available" -ge 1 ] || die "no cluster is up: run bench/cluster/cluster.sh up N first"
count=$available
if [ "$1" = --hosts ]; then
  count=$2
  shift 2
fi
if [ "$count" -lt 1 ] || [ "$count" -gt "$available" ]; then die "--hosts $count: the cluster has $available hosts"; fi
k=0
while [ "$k" -lt "$count" ]; do
  [ -e "/run/netns/${prefix}-h$k" ] || die "namespace ${prefix}-h$k is missing: bring the cluster up again"
  k=$((k + 1))
done

hosts=$(awk -v n="$count" -v net="$net" 'BEGIN { for (k = 1; k <= n; ++k) printf "%s%s.%d:1", (k > 1 ? "," : ""), net, k }')

# The options before "--" are mpirun's; -n/-np given there wins over ours.
ranks="-np $count"
for arg in "$@"; do
  case $arg in
    --) break ;;
    -n | -np | --np | -c | --n) ranks="" ;;
  esac
done
# Rebuild "$@" without the first "--".
seen=no
for arg in "$@"; do
  shift
  if [ "$seen" = no ] && [ "$arg" = -- ]; then seen=yes; continue; fi
  set -- "$@" "$arg"
done

# --bind-to none: every orted sees the same cores and would bind its one rank to the first of them.
# mpi_yield_when_idle: each orted sees one rank on a node of its own, so ranks would spin in their waits as on
# a dedicated node; here all of them share the machine's cores, and a spinning rank steals the core of the
# rank it waits for (measured: 8-byte latency 239 us spinning, 44 us yielding, at 8 hosts on 2 cores).
# shellcheck disable=SC2086  # $ranks is empty or two words
exec mpirun --allow-run-as-root \
  --host "$hosts" $ranks --map-by node --bind-to none --mca mpi_yield_when_idle 1 \
  --mca plm_rsh_agent "$here/netns-agent.sh" --mca plm_rsh_no_tree_spawn 1 \
  --mca btl tcp,self --mca btl_tcp_if_include "$net.0/24" --mca oob_tcp_if_include "$net.0/24" \
  "$@"
