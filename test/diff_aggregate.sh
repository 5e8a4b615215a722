#!/usr/bin/env bash
# test/diff_aggregate.sh — differential test of docext's aggregation
# pipeline (doc_aggregate) against mingo, a JavaScript implementation of
# MongoDB's aggregation framework.
#
#   make && test/diff_aggregate.sh          1500 seeded cases
#   DIFF_CASES=20000 DIFF_SEED=7 test/diff_aggregate.sh
#
# 1. Installs mingo (pinned version: the list of known disagreements in
#    diff_aggregate.py, and the rewrites of diff_aggregate.js, depend on its
#    behaviour) with npm into build/diffa/node_modules — outside the tracked
#    tree, removed by `make clean`, reinstalled when missing; no network is
#    needed once there. DIFF_NODE_MODULES=dir uses an existing node_modules
#    instead.
# 2. node test/diff_aggregate.js generates DIFF_CASES random (collection,
#    pipeline, options) cases from DIFF_SEED and records mingo's results:
#    the stages of doc_aggregate ($bucket, $facet, $unionWith and $sample
#    among them) and the options argument's let.
# 3. Debian's /usr/bin/python3 (which can load extensions) runs
#    test/diff_aggregate.py: doc_aggregate() through ./docext.so
#    (DOCEXT_SO=path without .so for another build), compared case by case.
# The last line is "N passed, M failed"; the exit status is non-zero when
# M > 0 or when something could not run. Cases of a known docext departure
# from MongoDB (EXCLUDED in diff_aggregate.py) that fail are counted on a
# line of their own, in neither number.
set -u
cd "$(dirname "$0")/.." || exit 2

cases=${DIFF_CASES:-1500}
seed=${DIFF_SEED:-20261127}
so=${DOCEXT_SO:-./docext}
MINGO=mingo@7.2.7

fail() { echo "diff_aggregate: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

command -v node >/dev/null || fail "node is not installed"
[ -f "$so.so" ] || fail "$so.so not found (run make first)"
. test/lib_npm.sh
diff_node_modules build/diffa "$MINGO"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
DIFF_NODE_MODULES="$mods" node test/diff_aggregate.js "$out" "$cases" "$seed" \
  || fail "the generator failed"
DOCEXT_SO="$so" /usr/bin/python3 test/diff_aggregate.py "$out"
