# The command lines of the scripts under bench/ and scripts/ (sourced, not run). Every script prints its
# opening comment (from its second line to the line before its `set -e`), which says how to run it, for -h
# and --help, and refuses an unknown option with one line on standard error and exit 2
# (tests/cli/check_scripts.py checks every one).
#
# The scripts that take only "--name value" options (the benchmark scripts, and scripts/test.sh and
# scripts/setup.sh, which take none) set their defaults as variables, define die() (one line on standard
# error, exit 2: counts_list uses it), then call
#
#   parse_options "nodes sizes kernel-times ..." "$@"
#
# which sets the variable of each option given (dashes become underscores: --kernel-times sets
# kernel_times), prints the usage for -h or --help, and refuses anything else. The scripts with a parser of
# their own (positional arguments, flags, options passed on after --) call show_usage and refuse, and
# the ones that take only positional arguments check_positionals.
#
# parse_options and counts_list need bash; show_usage, refuse and check_positionals are POSIX sh, for the
# /bin/sh scripts too. /bin/sh (dash) reads the bash functions without running them, as long as they hold
# nothing it cannot parse: a regular expression after =~ stays in a variable.

# show_usage: the running script's opening comment without its "#", on standard output. A comment that
# never names the script is headed by "usage: NAME".
show_usage() {
  usage_text=$(sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//')
  case $usage_text in *"$(basename "$0")"*) ;; *) printf 'usage: %s\n\n' "$(basename "$0")" ;; esac
  printf '%s\n' "$usage_text"
}

# refuse MESSAGE: a refused command line: one line on standard error, named after the script; exit 2.
refuse() {
  echo "$(basename "$0"): $*" >&2
  exit 2
}

# check_positionals MAX ARGS...: for a script that takes at most MAX positional arguments and no option:
# prints the usage and exits 0 for -h or --help, refuses any other argument that starts with a dash and
# more than MAX arguments. The script then reads its arguments as before.
check_positionals() {
  positionals_max=$1
  shift
  for positional in "$@"; do
    case $positional in
      -h | --help) show_usage; exit 0 ;;
    esac
  done
  for positional in "$@"; do
    case $positional in
      -*) refuse "unknown option '$positional' (see --help)" ;;
    esac
  done
  [ $# -le "$positionals_max" ] || refuse "too many arguments: $#, at most $positionals_max (see --help)"
}

parse_options() {
  local names=" $1 " name
  shift
  while [[ $# -gt 0 ]]; do
    case $1 in
      -h | --help)
        show_usage
        exit 0
        ;;
      --*)
        name=${1#--}
        [[ $names == *" $name "* ]] || refuse "unknown option '$1' (see --help)"
        [[ $# -ge 2 ]] || refuse "$1 needs a value"
        declare -g "${name//-/_}=$2"
        shift 2
        ;;
      *) refuse "unknown argument '$1' (see --help)" ;;
    esac
  done
}

# counts_list TEXT WHAT: dies unless TEXT is a comma list of positive counts.
counts_list() {
  local counts='^[1-9][0-9]*(,[1-9][0-9]*)*$'
  [[ $1 =~ $counts ]] || die "$2 takes a comma list of positive counts, not '$1'"
}
