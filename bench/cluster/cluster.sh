#!/bin/sh
# An emulated cluster on one machine: N hosts, each a network namespace with one rate-limited (and
# optionally delayed) link into a bridge.
#
#   cluster.sh up N [--rate 1gbit] [--delay 0us] [--burst BYTES]
#   cluster.sh down
#   cluster.sh status
#   cluster.sh has-delay     (exit status 0 when the kernel can delay packets: netem)
#
# Host K is namespace herald-hK with address $HERALD_CLUSTER_NET.(K+1) on its interface eth0; the bridge
# herald-br0 in the root namespace has $HERALD_CLUSTER_NET.254. HERALD_CLUSTER_NET defaults to 10.213.0, a
# /24 that exists only on this bridge and these namespaces; the namespaces have no other route, so their
# traffic cannot leave the bridge.
#
# Every link is shaped in both directions with a token bucket (tbf): the namespace side's egress is the
# host's upload, the bridge side's egress (herald-vK) its download. --delay adds a netem delay in front of
# each token bucket, so one way between two hosts crosses two delays (upload of one, download of the other).
set -eu

# shellcheck source=SCRIPTDIR/../options.sh
. "$(dirname "$0")/../options.sh"
prefix=herald
net=${HERALD_CLUSTER_NET:-10.213.0}
bridge=${prefix}-br0
state=/run/${prefix}-cluster.conf

die() {
  echo "cluster.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '5,8s/^#   //p' "$0" >&2
  exit "${1:-2}"
}

require_tools() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (network namespaces, bridges and qdiscs need CAP_NET_ADMIN)"
  for tool in ip tc; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found: install iproute2 (apt-get install iproute2)"
  done
  case $net in
    *[!0-9.]* | *.*.*.* ) die "HERALD_CLUSTER_NET must be three octets such as 10.213.0, not '$net'" ;;
  esac
}

# The namespaces this script created, one name per line.
hosts() {
  ip netns list 2>/dev/null | awk -v p="${prefix}-h" 'index($1, p) == 1 && substr($1, length(p) + 1) ~ /^[0-9]+$/ { print $1 }' | sort -V
}

# "1gbit" -> bits per second (integer); accepts bit, kbit, mbit, gbit, tbit and a bare number of bit/s.
rate_bits() {
  echo "$1" | awk '
    match(tolower($0), /^[0-9]+(\.[0-9]+)?/) {
      n = substr($0, 1, RLENGTH); u = tolower(substr($0, RLENGTH + 1))
      m = (u == "" || u == "bit") ? 1 : u == "kbit" ? 1e3 : u == "mbit" ? 1e6 : u == "gbit" ? 1e9 : u == "tbit" ? 1e12 : -1
      if (m > 0 && n * m >= 8000) { printf "%.0f\n", n * m; exit 0 }
    }
    { exit 1 }'
}

# "50us" / "1ms" / "0" -> microseconds (integer).
delay_us() {
  echo "$1" | awk '
    match(tolower($0), /^[0-9]+(\.[0-9]+)?/) {
      n = substr($0, 1, RLENGTH); u = tolower(substr($0, RLENGTH + 1))
      m = (u == "" || u == "us" || u == "usec") ? 1 : (u == "ms" || u == "msec") ? 1e3 : (u == "s" || u == "sec") ? 1e6 : -1
      if (m > 0) { printf "%.0f\n", n * m; exit 0 }
    }
    { exit 1 }'
}

# Whether this kernel has netem (CONFIG_NET_SCH_NETEM), tried on a throwaway veth pair.
netem_available() {
  ip link del ${prefix}-probe0 2>/dev/null || true
  ip link add ${prefix}-probe0 type veth peer name ${prefix}-probe1 || return 1
  if tc qdisc add dev ${prefix}-probe0 root netem delay 1us 2>/dev/null; then found=0; else found=1; fi
  ip link del ${prefix}-probe0
  return $found
}

# Shapes one direction: egress of device $2 in namespace $1 ("" for the root namespace).
shape() {
  ns=$1 dev=$2
  if [ -n "$ns" ]; then set -- -n "$ns"; else set --; fi
  tc "$@" qdisc del dev "$dev" root 2>/dev/null || true
  if [ "$delay" -gt 0 ]; then
    # netem holds each packet for the delay, then the token bucket paces it; netem's limit is in packets and
    # must cover a delay's worth of traffic at the rate.
    tc "$@" qdisc add dev "$dev" root handle 1: netem delay "${delay}us" limit 100000
    tc "$@" qdisc add dev "$dev" parent 1:1 handle 10: tbf rate "${bits}bit" burst "$burst" limit "$limit"
  else
    tc "$@" qdisc add dev "$dev" root handle 1: tbf rate "${bits}bit" burst "$burst" limit "$limit"
  fi
}

# Names of this script's links in the root namespace (bridge-side veth ends), one per line.
links() {
  ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | grep -E "^${prefix}-v[0-9]+$" || true
}

down() {
  # Processes still inside a host (a daemon or rank of an interrupted job) are ended first: they would keep
  # the namespace alive after its name is gone.
  for h in $(hosts); do
    for pid in $(ip netns pids "$h" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null || true; done
  done
  tries=0
  for h in $(hosts); do
    while [ -n "$(ip netns pids "$h" 2>/dev/null)" ] && [ "$tries" -lt 30 ]; do
      sleep 0.1
      tries=$((tries + 1))
    done
    for pid in $(ip netns pids "$h" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  done
  # Deleting a veth end takes its peer with it at once; deleting a namespace frees its devices only later,
  # in the background, which would race with the next "up".
  for link in $(links); do
    ip link del "$link" 2>/dev/null || true
  done
  for h in $(hosts); do
    ip netns del "$h"
  done
  if ip link show "$bridge" >/dev/null 2>&1; then ip link del "$bridge"; fi
  tries=0
  while [ -n "$(links)" ]; do
    tries=$((tries + 1))
    [ "$tries" -le 50 ] || die "links still present after 5 s: $(links | tr '\n' ' ')"
    sleep 0.1
  done
  rm -f "$state"
}

up() {
  [ $# -ge 1 ] || usage
  n=$1
  shift
  case $n in '' | *[!0-9]*) die "N must be a number of hosts, not '$n'" ;; esac
  if [ "$n" -lt 1 ] || [ "$n" -gt 200 ]; then die "N must be between 1 and 200, not $n"; fi
  rate=1gbit delay_text=0us burst=""
  while [ $# -gt 0 ]; do
    case $1 in
      --rate | --delay | --burst) [ $# -ge 2 ] || refuse "$1 needs a value" ;;
    esac
    case $1 in
      --rate) rate=$2; shift 2 ;;
      --rate=*) rate=${1#--rate=}; shift ;;
      --delay) delay_text=$2; shift 2 ;;
      --delay=*) delay_text=${1#--delay=}; shift ;;
      --burst) burst=$2; shift 2 ;;
      --burst=*) burst=${1#--burst=}; shift ;;
      *) refuse "unknown option '$1' (see --help)" ;;
    esac
  done
  bits=$(rate_bits "$rate") || die "--rate must look like 100mbit, 1gbit or 2.5gbit (at least 8kbit), not '$rate'"
  delay=$(delay_us "$delay_text") || die "--delay must look like 0us, 50us or 2ms, not '$delay_text'"
  # Bucket: 1 ms of the rate, at least 96 KiB. TCP hands the link 64 KiB segmentation-offload packets (about
  # 68 kB with their per-segment headers); a smaller bucket makes tbf cut each into MTU-sized packets, and the
  # 45-fold packet rate made 8 hosts at 500 Mbit/s CPU-bound here (ring at 0.37 of the rate instead of 0.94).
  # Queue: 20 ms of the rate, at least 1 MiB, so that TCP's bursts are queued rather than dropped (a lost
  # tail costs a retransmission timeout).
  [ -n "$burst" ] || burst=$(awk -v b="$bits" 'BEGIN { x = b / 8 / 1000; if (x < 98304) x = 98304; printf "%.0f\n", x }')
  case $burst in '' | *[!0-9]*) die "--burst must be a number of bytes, not '$burst'" ;; esac
  limit=$(awk -v b="$bits" -v k="$burst" 'BEGIN { x = b / 8 / 50; if (x < 1048576) x = 1048576; printf "%.0f\n", x + k }')
  require_tools

  if [ "$delay" -gt 0 ] && ! netem_available; then
    die "--delay needs the netem qdisc, which this kernel lacks (CONFIG_NET_SCH_NETEM); use --delay 0"
  fi

  down
  # A half-built cluster is removed again when any step fails.
  building=1
  trap 'if [ "$building" = 1 ]; then down; fi' EXIT
  ip link add "$bridge" type bridge stp_state 0 forward_delay 0
  if [ -w "/proc/sys/net/ipv6/conf/$bridge/disable_ipv6" ]; then
    echo 1 >"/proc/sys/net/ipv6/conf/$bridge/disable_ipv6"
  fi
  ip addr add "$net.254/24" dev "$bridge"
  ip link set "$bridge" up
  k=0
  while [ "$k" -lt "$n" ]; do
    h=${prefix}-h$k v=${prefix}-v$k
    ip netns add "$h"
    ip link add "$v" type veth peer name eth0 netns "$h"
    ip link set "$v" master "$bridge"
    ip link set "$v" up
    ip netns exec "$h" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null || true
    ip -n "$h" link set lo up
    ip -n "$h" addr add "$net.$((k + 1))/24" dev eth0
    ip -n "$h" link set eth0 up
    shape "$h" eth0   # upload
    shape "" "$v"     # download
    k=$((k + 1))
  done
  building=0
  printf 'hosts=%s\nrate=%s\nrate_bits=%s\ndelay_us=%s\nburst=%s\nlimit=%s\nnet=%s\n' \
    "$n" "$rate" "$bits" "$delay" "$burst" "$limit" "$net" >"$state"
  echo "cluster up: $n hosts ${prefix}-h0..${prefix}-h$((n - 1)) at $net.1..$net.$n, bridge $bridge ($net.254)"
  echo "links: $rate each way (tbf burst $burst B, queue $limit B), delay ${delay} us each way per link"
}

status() {
  if [ -r "$state" ]; then cat "$state"; else echo "no cluster state ($state missing)"; fi
  for h in $(hosts); do
    printf '%s: %s\n' "$h" "$(ip -n "$h" -4 -o addr show dev eth0 2>/dev/null | awk '{ print $4 }')"
  done
}

[ $# -ge 1 ] || usage
command=$1
shift
case $command in
  up) up "$@" ;;  # reads its command line, then require_tools
  down) require_tools; [ $# -eq 0 ] || usage; down; echo "cluster down" ;;
  status) require_tools; status ;;
  has-delay) require_tools; netem_available ;;
  -h | --help | help) show_usage; exit 0 ;;
  -*) refuse "unknown option '$command' (see --help)" ;;
  *) refuse "unknown command '$command' (see --help)" ;;
esac
