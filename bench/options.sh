# The command line of the scripts that take only "--name value" options (sourced, not run; the benchmark
# scripts, and scripts/test.sh and scripts/setup.sh, which take none): each sets its defaults as variables,
# defines die() (one line on standard error, exit 2), then calls
#
#   parse_options "nodes sizes kernel-times ..." "$@"
#
# which sets the variable of each option given (dashes become underscores: --kernel-times sets
# kernel_times), prints the script's opening comment for -h or --help, and refuses anything else.
parse_options() {
  local names=" $1 " name
  shift
  while [[ $# -gt 0 ]]; do
    case $1 in
      -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
      --*)
        name=${1#--}
        [[ $names == *" $name "* ]] || die "unknown option '$1' (see --help)"
        [[ $# -ge 2 ]] || die "$1 needs a value"
        declare -g "${name//-/_}=$2"
        shift 2
        ;;
      *) die "unknown argument '$1' (see --help)" ;;
    esac
  done
}

# counts_list TEXT WHAT: dies unless TEXT is a comma list of positive counts.
counts_list() {
  [[ $1 =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "$2 takes a comma list of positive counts, not '$1'"
}
