#!/usr/bin/env bash
# test/diff_geo.sh — differential test of $geoWithin, $geoIntersects and the
# $geoNear stage against a spherical-geometry model of MongoDB's semantics
# without a geo index (test/diff_geo.py does the work; see there).
#
#   make && test/diff_geo.sh             2000 seeded cases
#   DIFF_CASES=20000 DIFF_SEED=7 test/diff_geo.sh
#
# Debian's /usr/bin/python3 (which can load extensions) runs it against
# ./docext.so (DOCEXT_SO=path without .so for another build). The last line
# is "N passed, M failed"; the exit status is non-zero when M > 0.
set -u
cd "$(dirname "$0")/.." || exit 2
so=${DOCEXT_SO:-./docext}
[ -f "$so.so" ] || { echo "diff_geo: $so.so not found (run make first)" >&2; echo "0 passed, 1 failed"; exit 1; }
DOCEXT_SO="$so" exec /usr/bin/python3 test/diff_geo.py "${DIFF_CASES:-2000}" "${DIFF_SEED:-20261128}"
