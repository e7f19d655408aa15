#!/usr/bin/env bash
# A run that aborts with its trace open leaves its spill files; herald-trace-recover makes the trace from
# them, and the trace holds each rank's spilled events in Chrome's format.
#   recover_test.sh MPIEXEC "MPIEXEC_FLAGS" CRASH_PROGRAM RECOVER VALIDATOR DIR
set -uo pipefail
mpiexec=$1 flags=$2 program=$3 recover=$4 validator=$5 dir=$6
rm -rf "$dir"
# shellcheck disable=SC2086
"$mpiexec" $flags -n 2 "$program" "$dir" > "$dir.log" 2>&1
status=$?
[[ $status -ne 0 ]] || { echo "the program was meant to abort"; exit 1; }
[[ ! -e $dir/trace.json ]] || { echo "an aborted run wrote trace.json"; exit 1; }
ls "$dir/raw"
"$recover" "$dir" || exit 1
/usr/bin/python3 "$validator" "$dir/trace.json" || exit 1
# Each rank spilled at least one full buffer (16384 events): its bcast and message records are there.
/usr/bin/python3 - "$dir/trace.json" <<'PY' || exit 1
import json, sys, collections
events = json.load(open(sys.argv[1]))["traceEvents"]
per_rank = collections.Counter(e["pid"] for e in events if e["ph"] == "X")
print("events per rank:", dict(per_rank))
assert set(per_rank) == {0, 1}, per_rank
assert all(n >= 16384 for n in per_rank.values()), per_rank
PY
