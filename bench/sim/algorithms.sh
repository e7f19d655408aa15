#!/bin/sh
# Every herald-sim run quoted in docs/algorithms/*.md and docs/coll.md, with its full output:
#   bench/sim/algorithms.sh [herald-sim binary] > bench/sim/results/algorithms.txt
# herald-sim is deterministic; its defaults are alpha 1 us and beta 1e-10 s/byte on the ports network.
set -eu
# shellcheck source=SCRIPTDIR/../options.sh
. "$(dirname "$0")/../options.sh"
check_positionals 1 "$@"
sim=${1:-build/apps/herald-sim/herald-sim}
echo "# bench/sim/algorithms.sh: every herald-sim run quoted in docs/algorithms/*.md and docs/coll.md"
echo "# herald $(git -C "$(dirname "$0")" describe --always 2>/dev/null || echo unknown), $(date -u +%Y-%m-%dT%H:%MZ)"
while read -r args; do
  [ -n "$args" ] || continue
  echo
  echo "\$ herald-sim $args"
  # shellcheck disable=SC2086
  "$sim" $args
done <<'RUNS'
--algorithm balanced_binomial --ranks 64 --bytes 16K
--algorithm binomial --ranks 64 --bytes 16K --segment 1K
--algorithm balanced_binomial --ranks 64 --bytes 16M
--algorithm chain --ranks 64 --bytes 16M
--algorithm binary --ranks 64 --bytes 1M
--algorithm chain --ranks 64 --bytes 1M
--algorithm binomial --ranks 64 --bytes 1M
--algorithm split_binary --ranks 64 --bytes 1M
--algorithm binomial --ranks 64 --bytes 1K
--algorithm binomial --ranks 64 --bytes 16M
--algorithm binomial --ranks 64 --bytes 16M --segment 64K
--algorithm two_tree --ranks 64 --bytes 16M
--algorithm chain --ranks 64 --bytes 64K --fanout 1
--algorithm chain --ranks 64 --bytes 64K --fanout 8
--algorithm chain --ranks 64 --bytes 16M --fanout 1
--algorithm chain --ranks 64 --bytes 16M --fanout 8
--algorithm chain --ranks 16 --bytes 16M --segment 8K
--algorithm chain --ranks 16 --bytes 16M --segment 64K
--algorithm hierarchical --ranks 64 --bytes 1K --node-size 16
--algorithm knomial --ranks 64 --bytes 1K --radix 2
--algorithm knomial --ranks 64 --bytes 1K --radix 4
--algorithm knomial --ranks 64 --bytes 1K --radix 8
--algorithm knomial --ranks 64 --bytes 4M --radix 4 --segment 64K
--algorithm linear --ranks 8 --bytes 1K
--algorithm binomial --ranks 8 --bytes 1K
--algorithm linear --ranks 2 --bytes 16M
--algorithm chain --ranks 2 --bytes 16M
--algorithm scatter_rdb --ranks 8 --bytes 1M
--algorithm scatter_ring --ranks 8 --bytes 1M
--algorithm scatter_rdb --ranks 64 --bytes 64K
--algorithm binomial --ranks 64 --bytes 64K
--algorithm scatter_rdb --ranks 64 --bytes 1M
--algorithm scatter_ring_tuned --ranks 64 --bytes 1M
--algorithm scatter_rdb --ranks 129 --bytes 64K
--algorithm binomial --ranks 129 --bytes 64K
--algorithm scatter_rdb --ranks 64 --bytes 1K
--algorithm scatter_rdb --ranks 64 --bytes 16M
--algorithm scatter_rdb --ranks 65 --bytes 16M
--algorithm scatter_rdb --ranks 101 --root 50 --bytes 64K
--algorithm scatter_ring_tuned --ranks 65 --bytes 16M
--algorithm scatter_ring --ranks 10 --bytes 1M --root 9
--algorithm scatter_ring --ranks 64 --bytes 16M
--algorithm scatter_ring --ranks 64 --bytes 64K
--algorithm chain --ranks 10 --bytes 16M
--algorithm scatter_ring --ranks 10 --bytes 16M
--algorithm scatter_ring --ranks 8 --bytes 4M
--algorithm scatter_ring_tuned --ranks 8 --bytes 4M
--algorithm scatter_ring --ranks 10 --bytes 4M
--algorithm scatter_ring_tuned --ranks 10 --bytes 4M
--algorithm scatter_ring --ranks 64 --bytes 4M
--algorithm scatter_ring_tuned --ranks 64 --bytes 4M
--algorithm scatter_ring --ranks 129 --bytes 4M
--algorithm scatter_ring_tuned --ranks 129 --bytes 4M
--algorithm split_binary --ranks 64 --bytes 4M
--algorithm binary --ranks 64 --bytes 4M
--algorithm chain --ranks 64 --bytes 4M
--algorithm split_binary --ranks 2 --bytes 1M
--algorithm linear --ranks 2 --bytes 1M
--algorithm binary --ranks 64 --bytes 16M
--algorithm two_tree --ranks 129 --bytes 16M
--algorithm chain --ranks 129 --bytes 16M
--algorithm scatter_ring_tuned --ranks 10 --bytes 1M --root 9
RUNS
