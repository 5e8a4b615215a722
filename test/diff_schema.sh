#!/usr/bin/env bash
# test/diff_schema.sh — differential test of docext's $jsonSchema against
# ajv, an independent JSON Schema validator, in its draft 4 mode, on random
# schemas of the part of JSON Schema where MongoDB and draft 4 agree (see
# test/diff_schema.js).
#
#   make && test/diff_schema.sh          2000 seeded cases
#   DIFF_CASES=20000 DIFF_SEED=7 test/diff_schema.sh
#
# 1. Installs ajv and ajv-draft-04 (pinned versions) with npm into
#    build/diffs/node_modules — outside the tracked tree, removed by
#    `make clean`, reinstalled when missing. DIFF_NODE_MODULES=dir uses an
#    existing node_modules instead.
# 2. node test/diff_schema.js writes DIFF_CASES random (schema, document)
#    cases from DIFF_SEED with ajv's answers.
# 3. /usr/bin/python3 test/diff_schema.py checks doc_match() through
#    ./docext.so (DOCEXT_SO=path without .so for another build) against them.
# The last line is "N passed, M failed"; the exit status is non-zero when
# M > 0 or when something could not run.
set -u
cd "$(dirname "$0")/.." || exit 2

cases=${DIFF_CASES:-2000}
seed=${DIFF_SEED:-20261127}
so=${DOCEXT_SO:-./docext}
AJV=ajv@8.12.0
DRAFT4=ajv-draft-04@1.0.0

fail() { echo "diff_schema: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

command -v node >/dev/null || fail "node is not installed"
[ -f "$so.so" ] || fail "$so.so not found (run make first)"
. test/lib_npm.sh
diff_node_modules build/diffs "$AJV" "$DRAFT4"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
DIFF_NODE_MODULES="$mods" node test/diff_schema.js "$out" "$cases" "$seed" \
  || fail "the generator failed"
DOCEXT_SO="$so" /usr/bin/python3 test/diff_schema.py "$out"
