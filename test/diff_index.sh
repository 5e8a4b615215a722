#!/usr/bin/env bash
# test/diff_index.sh — differential test of the query planner: the same
# random queries with and without indexes of every kind must agree
# (test/diff_index.py does the work; see there).
#
#   make && test/diff_index.sh           3000 seeded queries
#   DIFF_CASES=20000 DIFF_SEED=7 test/diff_index.sh
#
# Debian's /usr/bin/python3 (which can load extensions) runs it against
# ./docext.so (DOCEXT_SO=path without .so for another build). The last line
# is "N passed, M failed"; the exit status is non-zero when M > 0.
set -u
cd "$(dirname "$0")/.." || exit 2
so=${DOCEXT_SO:-./docext}
[ -f "$so.so" ] || { echo "diff_index: $so.so not found (run make first)" >&2; echo "0 passed, 1 failed"; exit 1; }
DOCEXT_SO="$so" exec /usr/bin/python3 test/diff_index.py "${DIFF_CASES:-3000}" "${DIFF_SEED:-20240611}"
