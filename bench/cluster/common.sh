# Shared by the benchmark scripts of the emulated cluster (sourced, not run): bring the cluster up for one
# script's lifetime and describe the run.
# shellcheck shell=sh

cluster_dir=$(cd "$(dirname "$0")" && pwd)
# show_usage and refuse, for the command lines.
# shellcheck source=SCRIPTDIR/../options.sh
. "$cluster_dir/../options.sh"

# die MESSAGE: the calling script's error exit, named after it.
die() {
  echo "$(basename "$0"): $*" >&2
  exit 2
}

# The delay used when none is given: 50 us per link direction where the kernel can delay packets (netem),
# none where it cannot.
default_delay() {
  if "$cluster_dir/cluster.sh" has-delay; then echo 50us; else echo 0us; fi
}

# start_cluster HOSTS RATE DELAY: brings the cluster up (replacing any) and takes it down again when the calling
# script exits, whether it succeeds, fails or is interrupted; a job still running is stopped first.
start_cluster() {
  cluster_session
  "$cluster_dir/cluster.sh" up "$1" --rate "$2" --delay "$3"
}

# cluster_session: from now until the calling script exits, $cluster_tmp is a scratch directory, and on exit
# a running job is stopped, the cluster taken down and the directory removed. Called by start_cluster.
cluster_session() {
  [ -z "${cluster_tmp:-}" ] || return 0
  cluster_tmp=$(mktemp -d)
  trap 'stop_job; "$cluster_dir/cluster.sh" down >/dev/null 2>&1 || true; rm -rf "$cluster_tmp"' EXIT
  trap 'exit 130' INT TERM
}

# Stops the job run_logged started, if it still runs: mpirun ends its daemons and ranks on SIGTERM, which it
# must do before the links vanish (it would wait for them forever).
stop_job() {
  [ -s "$cluster_tmp/pid" ] || return 0
  job=$(cat "$cluster_tmp/pid")
  kill -TERM "$job" 2>/dev/null || return 0
  tries=0
  while kill -0 "$job" 2>/dev/null && [ "$tries" -lt 100 ]; do
    sleep 0.1
    tries=$((tries + 1))
  done
  kill -KILL "$job" 2>/dev/null || true
}

# describe_run: Markdown lines saying how, where and when the figures were measured (benchmarking rule 6).
describe_run() {
  echo "Emulated cluster (bench/cluster): $(awk -F= '$1 == "hosts" { h = $2 } $1 == "rate" { r = $2 } $1 == "delay_us" { d = $2 }
    END { printf "%s hosts, one rank each, links %s each way, delay %s us per link direction", h, r, d }' /run/herald-cluster.conf)."
  echo "Machine: $(nproc) cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), Linux $(uname -r);" \
    "$(mpirun --version 2>&1 | head -n 1), TCP only; date $(date -u '+%Y-%m-%d %H:%M UTC');" \
    "load average at start $(cut -d' ' -f1-3 /proc/loadavg)."
}

# run_logged LOG command...: runs the command (after start_cluster), its stdout shown and appended to LOG, its
# stderr shown afterwards without Open MPI's harmless "setpgid ... failed" launch warning; returns its status.
# The command runs in the background of a subshell so that stop_job can find it.
run_logged() {
  log=$1
  shift
  rm -f "$cluster_tmp/status"
  {
    status=0
    "$@" 2>"$cluster_tmp/stderr" &
    echo $! >"$cluster_tmp/pid"
    wait $! || status=$?
    : >"$cluster_tmp/pid"   # ended: its number may be reused
    echo "$status" >"$cluster_tmp/status"
  } | tee -a "$log"
  grep -v 'setpgid(.*) failed' "$cluster_tmp/stderr" >&2 || true
  [ -s "$cluster_tmp/status" ] || return 130   # the subshell was interrupted
  return "$(cat "$cluster_tmp/status")"
}

# bench_app BUILD NAME: the path of the herald program NAME in build directory BUILD; dies if it is not built.
bench_app() {
  app="$1/apps/$2/$2"
  [ -x "$app" ] || die "$app not found: build it (cmake --build $1 --target $2)"
  echo "$app"
}

# plot_python: the python3 with Debian's python3-matplotlib (/usr/bin/python3 where there is one).
plot_python() {
  if [ -x /usr/bin/python3 ]; then echo /usr/bin/python3; else echo python3; fi
}

# report_total LOG STARTED: prints the run time since STARTED (seconds since the epoch) and the load average,
# and appends them to LOG.
report_total() {
  printf '\nTotal run time %d s (cluster set-up, launch and measurement); load average at the end %s.\n' \
    "$(($(date +%s) - $2))" "$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$1"
}
