#!/usr/bin/env bash
# What SimGrid's SMPI gives for the two ways of finding which ranks share a node (MPI_Get_processor_name and
# MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)), with 6 ranks on 3 hosts placed in blocks and cyclically.
# Writes bench/smpi/results/node-layout-probe.txt.
#   bench/smpi/probe-node-layout.sh
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$repo/bench/options.sh"
check_positionals 0 "$@"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicc "$repo/bench/smpi/probe_shared.c" -o "$work/probe"
cat >"$work/platform.xml" <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="host-" suffix="" radical="0-2" speed="1Gf" bw="10Gbps" lat="1us"/>
</platform>
XML
out=$repo/bench/smpi/results/node-layout-probe.txt
{
  echo "# bench/smpi/probe-node-layout.sh; $(smpirun --version 2>&1 | head -1)"
  for placement in blocks cyclic; do
    for r in 0 1 2 3 4 5; do
      if [[ $placement == blocks ]]; then echo "host-$((r / 2))"; else echo "host-$((r % 3))"; fi
    done >"$work/hosts"
    echo "## 6 ranks on 3 hosts, $placement: $(paste -sd' ' "$work/hosts")"
    smpirun -np 6 -platform "$work/platform.xml" -hostfile "$work/hosts" "$work/probe" 2>/dev/null | grep '^rank' | sort -k2 -n
  done
} >"$out"
cat "$out"
