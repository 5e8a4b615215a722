#!/usr/bin/env bash
# test/diff_update.sh — differential test of docext's update operators
# (doc_update) against two JavaScript implementations, mingo's update() and
# @seald-io/nedb's model.modify(), and a model of MongoDB's documented
# update semantics written in the checker.
#
#   make && test/diff_update.sh          10000 seeded cases
#   DIFF_CASES=20000 DIFF_SEED=7 test/diff_update.sh
#
# 1. Installs mingo and @seald-io/nedb (pinned versions: the list of known
#    disagreements in diff_update.py depends on their behaviour) with npm
#    into build/diffu/node_modules — outside the tracked tree, removed by
#    `make clean`, reinstalled when missing; no network is needed once there.
#    DIFF_NODE_MODULES=dir uses an existing node_modules instead.
# 2. node test/diff_update.js generates DIFF_CASES random (document, update,
#    arrayFilters) cases from DIFF_SEED and records both libraries' results.
# 3. Debian's /usr/bin/python3 (which can load extensions) runs
#    test/diff_update.py: doc_update() through ./docext.so (DOCEXT_SO=path
#    without .so for another build), compared case by case.
# The last line is "N passed, M failed"; the exit status is non-zero when
# M > 0 or when something could not run.
set -u
cd "$(dirname "$0")/.." || exit 2

cases=${DIFF_CASES:-10000}
seed=${DIFF_SEED:-20240602}
so=${DOCEXT_SO:-./docext}
MINGO=mingo@7.2.7
NEDB=@seald-io/nedb@4.1.2

fail() { echo "diff_update: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

command -v node >/dev/null || fail "node is not installed"
[ -f "$so.so" ] || fail "$so.so not found (run make first)"
. test/lib_npm.sh
diff_node_modules build/diffu "$MINGO" "$NEDB"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
DIFF_NODE_MODULES="$mods" node test/diff_update.js "$out" "$cases" "$seed" \
  || fail "the generator failed"
DOCEXT_SO="$so" /usr/bin/python3 test/diff_update.py "$out"
