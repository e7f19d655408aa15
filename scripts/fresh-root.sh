#!/usr/bin/env bash
# Runs a command in a clean clone of this repository's committed HEAD, inside a brand-new Debian 12 root
# (mmdebstrap: nothing installed but apt, git and sudo), as on a new machine. It proves that the README's
# commands install everything they need; CI runs its first stage this way.
#
#   scripts/fresh-root.sh                     scripts/test.sh, the README's test command
#   scripts/fresh-root.sh scripts/main.sh     the main job
#   HERALD_FRESH_ENV="HERALD_TEST_LARGE=0" scripts/fresh-root.sh    variables for the command
#
# Needs root (mmdebstrap, chroot, bind mounts); installs mmdebstrap with apt-get when missing. Takes about
# 30 s plus the command. Uncommitted changes are not seen: commit first.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case ${1-} in  # what follows the command is the command's own
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "fresh-root.sh: unknown option '$1'; it takes a command to run (--help lists the options)" >&2; exit 2 ;;
esac
command=${*:-scripts/test.sh}
read -r -a extra_env <<<"${HERALD_FRESH_ENV:-}"
[[ $(id -u) -eq 0 ]] || { echo "fresh-root.sh: needs root (mmdebstrap, chroot, bind mounts)" >&2; exit 2; }
if ! command -v mmdebstrap >/dev/null; then
  echo "fresh-root.sh: installing mmdebstrap"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi

root=$(mktemp -d /tmp/herald-fresh-root.XXXXXX)
mounts=(proc sys dev dev/pts dev/shm)
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "$root/${mounts[i]}" 2>/dev/null || true; done
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT

# The host's own Debian mirror (first URI of its apt sources), so the new root installs from where the host
# does; Debian's default mirror otherwise.
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[[ -n "$mirror" ]] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
mmdebstrap --quiet --variant=apt --include=ca-certificates,git,sudo bookworm "$root" ${mirror:+"$mirror"}
# An installed Debian names localhost and itself in /etc/hosts; mmdebstrap's root has no such file, and
# "localhost" then goes to DNS (Open MPI's hwloc probes X displays over TCP on localhost at every launch:
# scripts/test.sh turns that probe off, for roots made without this file).
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' "$(hostname)" >"$root/etc/hosts"
for m in "${mounts[@]}"; do
  mkdir -p "$root/$m"
  mount --bind "/$m" "$root/$m"
done
git clone -q "$repo" "$root/work/project"

echo "fresh-root.sh: running '$command' in a new Debian 12 root ($(git -C "$repo" rev-parse --short HEAD))"
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${extra_env[@]}" \
  bash -c "cd /work/project && $command"
