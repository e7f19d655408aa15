# What the SimGrid SMPI scripts share (sourced, not run; by run-dynbcast.sh, run-bcast.sh and the others):
# the build with smpicxx, the flat cluster's platform file and hostfile, and SMPI's settings.
#
# Each script sets `script` (its name, for messages) before sourcing this file.

smpi_die() {
  echo "$script: $*" >&2
  exit 2
}

smpi_require() {
  command -v smpirun >/dev/null && command -v smpicxx >/dev/null ||
    smpi_die "SimGrid's smpirun and smpicxx are missing: run HERALD_SIMGRID=1 scripts/setup.sh"
}

# smpi_build REPO BUILD TARGET...: herald configured with SMPI's compiler wrappers in BUILD (static
# libraries, see CMakeLists.txt), and the targets built. Release, unless HERALD_SMPI_CMAKE_ARGS (configure
# arguments, split on spaces, given last) says otherwise: CI, which checks that the runs finish and deliver,
# builds at -O1 (.ci/run). Simulated times depend on it only where a run charges the host's own time (CPU=1
# in smpi_settings).
smpi_build() {
  local repo=$1 build=$2
  shift 2
  local extra=()
  read -r -a extra <<<"${HERALD_SMPI_CMAKE_ARGS:-}"
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=smpicc -DCMAKE_CXX_COMPILER=smpicxx \
    -DMPI_C_COMPILER=smpicc -DMPI_CXX_COMPILER=smpicxx "${extra[@]}" >/dev/null
  cmake --build "$build" -j2 --target "$@" >/dev/null
}

# smpi_flat_platform FILE HOSTS BANDWIDTH LATENCY: every host on its own full-duplex link (SPLITDUPLEX: up
# and down are separate links, so a host sends and receives at full rate at once) into a non-blocking
# switch (a backbone far faster than all hosts together, with no latency of its own).
smpi_flat_platform() {
  cat >"$1" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="cluster" prefix="host-" suffix="" radical="0-$(($2 - 1))" speed="1Gf"
           bw="$3" lat="$4" sharing_policy="SPLITDUPLEX" bb_bw="1000Tbps" bb_lat="0us"/>
</platform>
XML
}

# smpi_hostfile FILE HOSTS: one rank per host, in order.
smpi_hostfile() {
  seq -f 'host-%g' 0 $(($2 - 1)) >"$1"
}

# smpi_settings OVERHEAD POLL CPU: SMPI's settings, each for a reason, into the array smpi_options:
#  - the link latency and bandwidth as given, not scaled by SMPI's default correction factors (which fit one
#    particular TCP cluster);
#  - messages up to 64 KiB travel eagerly, as in Open MPI over TCP: the sender does not wait for the
#    receive, and the data moves whether or not the receive is posted yet;
#  - a test or probe costs POLL seconds, always the same (SMPI would otherwise charge 100 us, growing, to
#    stop a polling loop from stalling the simulation);
#  - every send (blocking or not) and every receive costs its caller OVERHEAD seconds (LogP's o);
#  - with CPU=1 the time the program spends between MPI calls is measured on this machine and added (one
#    second of this machine's time is one second of a simulated host's, speed 1 Gf both, and even the
#    shortest stretch counts); with CPU=0 only the communication is simulated.
smpi_settings() {
  local overhead=$1 poll=$2 cpu=$3
  smpi_options=(
    --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
    --cfg=smpi/async-small-thresh:65536 --cfg=smpi/send-is-detached-thresh:65536
    --cfg=smpi/test:"$poll" --cfg=smpi/iprobe:"$poll" --cfg=smpi/grow-injected-times:no
    --cfg=smpi/os:0:"$overhead":0 --cfg=smpi/ois:0:"$overhead":0 --cfg=smpi/or:0:"$overhead":0
  )
  if [[ $cpu == 1 ]]; then
    smpi_options+=(--cfg=smpi/host-speed:1Gf --cfg=smpi/cpu-threshold:-1)
  else
    smpi_options+=(--cfg=smpi/simulate-computation:no)
  fi
}

# smpi_cost_model LATENCY BANDWIDTH OVERHEAD: herald's cost model of this network, as environment
# assignments in the array smpi_model: a message crosses two links (alpha is twice LATENCY), the links
# are shared fairly, and the overheads and eager size are the settings above.
smpi_cost_model() {
  local units="import sys; sys.path.insert(0, '$repo/bench/smpi'); import bcast_report as r"
  smpi_model=(
    HERALD_NETWORK=fair HERALD_OVERHEAD="$3" HERALD_EAGER_BYTES=65535
    HERALD_ALPHA="$("$(smpi_python)" -c "$units; print(2 * r.seconds('$1'))")"
    HERALD_BETA="$("$(smpi_python)" -c "$units; print(8 / r.bits_per_second('$2'))")"
  )
}

# smpi_deadlocked LOG: true when SimGrid found the simulated ranks deadlocked (it then ends the simulation with
# status 0, its report in LOG).
smpi_deadlocked() {
  grep -q 'Deadlock detected' "$1"
}

smpi_version() {
  smpirun -version 2>&1 | grep -o -m1 '[0-9][0-9.]*' || echo '?'
}

# Debian's python3-matplotlib lives in /usr/bin/python3, which may not be the python3 on PATH.
smpi_python() {
  if [[ -x /usr/bin/python3 ]]; then echo /usr/bin/python3; else echo python3; fi
}
