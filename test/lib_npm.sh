# test/lib_npm.sh — sourced by the differential tests that compare docext
# with JavaScript libraries (diff_query, diff_update, diff_schema).
#
# diff_node_modules DIR PACKAGE@VERSION...: sets $mods to an absolute
# node_modules holding the pinned packages: $DIFF_NODE_MODULES when set
# (they must be there), else DIR/node_modules, where npm installs them when
# one is missing (outside the tracked tree; no network once they are
# there). Calls the caller's fail() when it cannot.
diff_node_modules() {
  local dir=$1 pkg missing=0
  shift
  mods=${DIFF_NODE_MODULES:-$dir/node_modules}
  for pkg in "$@"; do
    [ -f "$mods/${pkg%@*}/package.json" ] || missing=1
  done
  if [ "$missing" = 1 ]; then
    [ -z "${DIFF_NODE_MODULES:-}" ] || fail "$* missing from $mods"
    command -v npm >/dev/null || fail "npm is not installed"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-save --no-package-lock --no-audit \
        --no-fund --loglevel=error "$@" >/dev/null 2>"$dir/npm.log" \
      || fail "npm install $* failed (see $dir/npm.log)"
  fi
  case $mods in /*) ;; *) mods=$PWD/$mods ;; esac
}
