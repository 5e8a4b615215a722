#!/usr/bin/env bash
# test/diff_query.sh — differential test of docext's query matcher against
# two JavaScript implementations of MongoDB's query language, mingo and sift.
#
#   make && test/diff_query.sh          3000 seeded cases
#   DIFF_CASES=20000 DIFF_SEED=7 test/diff_query.sh
#
# 1. Installs mingo and sift (pinned versions: the list of known
#    disagreements in diff_query.py depends on their behaviour) with npm
#    into build/diffq/node_modules — outside the tracked tree, removed by
#    `make clean`, reinstalled when missing; no network is needed once there.
#    DIFF_NODE_MODULES=dir uses an existing node_modules instead.
# 2. node test/diff_query.js generates DIFF_CASES random (document, filter)
#    cases from DIFF_SEED and records mingo's and sift's answers.
# 3. Debian's /usr/bin/python3 (which can load extensions) runs
#    test/diff_query.py: doc_match() through ./docext.so (DOCEXT_SO=path
#    without .so for another build), compared case by case.
# The last line is "N passed, M failed"; the exit status is non-zero when
# M > 0 or when something could not run.
set -u
cd "$(dirname "$0")/.." || exit 2

cases=${DIFF_CASES:-3000}
seed=${DIFF_SEED:-20240601}
so=${DOCEXT_SO:-./docext}
MINGO=mingo@7.2.7
SIFT=sift@17.1.4

fail() { echo "diff_query: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

command -v node >/dev/null || fail "node is not installed"
[ -f "$so.so" ] || fail "$so.so not found (run make first)"
. test/lib_npm.sh
diff_node_modules build/diffq "$MINGO" "$SIFT"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
DIFF_NODE_MODULES="$mods" node test/diff_query.js "$out" "$cases" "$seed" \
  || fail "the generator failed"
DOCEXT_SO="$so" /usr/bin/python3 test/diff_query.py "$out"
