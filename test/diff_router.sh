#!/usr/bin/env bash
# test/diff_router.sh — checks of the router of sharded collections against an
# unsharded twin, and the states a crash leaves a migration in
# (test/diff_router.py does the work; see there).
#
#   make && test/diff_router.sh           60 seeded cases
#   DIFF_CASES=5000 DIFF_SEED=7 test/diff_router.sh
#
# Debian's /usr/bin/python3 (which can load extensions) runs it against
# ./docext.so (DOCEXT_SO=path without .so for another build). The last line
# is "N passed, M failed"; the exit status is non-zero when M > 0.
set -u
cd "$(dirname "$0")/.." || exit 2
so=${DOCEXT_SO:-./docext}
[ -f "$so.so" ] || { echo "diff_router: $so.so not found (run make first)" >&2; echo "0 passed, 1 failed"; exit 1; }
DOCEXT_SO="$so" exec /usr/bin/python3 test/diff_router.py "${DIFF_CASES:-60}" "${DIFF_SEED:-20261126}"
