#!/bin/sh
# The balancer's model for 8 processes x 6 threads on 2 sockets x 24 cores, one run of herald-placement per
# load shape of docs/balance.md (deterministic, no MPI):
#   bench/balance/placement.sh [herald-placement binary] > bench/balance/results/placement.txt
set -eu
# shellcheck source=SCRIPTDIR/../options.sh
. "$(dirname "$0")/../options.sh"
check_positionals 1 "$@"
placement=${1:-build/apps/herald-placement/herald-placement}
echo "# bench/balance/placement.sh: herald-placement --sockets 2 --cores-per-socket 24 --threads 6 --loads L"
echo "# herald $(git -C "$(dirname "$0")" describe --always 2>/dev/null || echo unknown), $(date -u +%Y-%m-%dT%H:%MZ)"
for loads in 1.1,1,1,1,1,1,1,1 1.25,1,1,1,1,1,1,1 1.5,1,1,1,1,1,1,1 2,1,1,1,1,1,1,1 3,1,1,1,1,1,1,1 \
    2,2,1,1,1,1,1,1 2,2,2,2,1,1,1,1 \
    1,1.14286,1.28571,1.42857,1.57143,1.71429,1.85714,2 \
    1,1.28571,1.57143,1.85714,2.14286,2.42857,2.71429,3; do
  echo
  echo "\$ herald-placement --sockets 2 --cores-per-socket 24 --threads 6 --loads $loads"
  "$placement" --sockets 2 --cores-per-socket 24 --threads 6 --loads "$loads"
done
