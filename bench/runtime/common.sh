# What the runtime's broadcast scripts share (sourced, not run): each defines die() before sourcing.

# bytes_of TEXT: a byte count with an optional K, M or G suffix (powers of 1024), as a number.
bytes_of() {
  [[ $1 =~ ^([0-9]+)([KMG]?)$ ]] || die "--sizes takes byte counts like 256K or 64M, not '$1'"
  case ${BASH_REMATCH[2]} in
    K) echo $((BASH_REMATCH[1] << 10)) ;; M) echo $((BASH_REMATCH[1] << 20)) ;;
    G) echo $((BASH_REMATCH[1] << 30)) ;; *) echo "${BASH_REMATCH[1]}" ;;
  esac
}

# split_lists: the comma lists in $sizes and $strategies into the arrays size_list and strategy_list,
# every size checked.
split_lists() {
  IFS=, read -r -a size_list <<<"$sizes"
  IFS=, read -r -a strategy_list <<<"$strategies"
  local s
  for s in "${size_list[@]}"; do bytes_of "$s" >/dev/null; done
}
