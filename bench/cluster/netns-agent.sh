#!/bin/sh
# Open MPI's remote launcher (plm_rsh_agent) for the emulated cluster: called like ssh,
#   netns-agent.sh [ssh options] HOST command...
# it runs the command inside the namespace of HOST (herald-hK for address $HERALD_CLUSTER_NET.(K+1), or the
# name herald-hK itself) through a shell, as sshd would, with the caller's environment (PATH and
# LD_LIBRARY_PATH reach orted unchanged). Each host also gets its own UTS namespace named after it, so that
# the daemons report distinct host names, as on real nodes. -h and --help print this; ssh has no long
# options, so any other --option is refused (exit 2).
set -eu

# shellcheck source=SCRIPTDIR/../options.sh
. "$(dirname "$0")/../options.sh"
prefix=herald
net=${HERALD_CLUSTER_NET:-10.213.0}

die() {
  echo "netns-agent.sh: $*" >&2
  exit 255   # ssh's status for a failed connection
}

# Skip ssh options; the ones that take a value skip it too.
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) show_usage; exit 0 ;;
    --) shift; break ;;
    --*) refuse "unknown option '$1' (see --help)" ;;
    -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || die "usage: netns-agent.sh [ssh options] HOST command..."
host=$1
shift
case $host in
  "$net".*)
    last=${host#"$net".}
    case $last in '' | *[!0-9]*) die "'$host' is not an address of the emulated cluster ($net.0/24)" ;; esac
    ns=${prefix}-h$((last - 1))
    ;;
  ${prefix}-h[0-9]*) ns=$host ;;
  *) die "'$host' is not a host of the emulated cluster (expected $net.K or ${prefix}-hK)" ;;
esac
[ -e "/run/netns/$ns" ] || die "no namespace $ns for host '$host' (is the cluster up? bench/cluster/cluster.sh up N)"

# ssh hands the remote shell its arguments joined by spaces; do the same.
# shellcheck disable=SC2016  # $1 and $* belong to the inner shell
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$1" && shift && exec sh -c "$*"' sh "$ns" "$@"
