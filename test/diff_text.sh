#!/usr/bin/env bash
# test/diff_text.sh — differential test of text indexes and $text against a
# model of MongoDB's text search written from its sources (test/diff_text.py
# does the work; see there).
#
#   make && test/diff_text.sh            1500 seeded $text queries
#   DIFF_CASES=20000 DIFF_SEED=7 test/diff_text.sh
#
# Debian's /usr/bin/python3 (which can load extensions, and has
# python3-snowballstemmer) runs it against ./docext.so (DOCEXT_SO=path
# without .so for another build). The last line is "N passed, M failed";
# the exit status is non-zero when M > 0.
set -u
cd "$(dirname "$0")/.." || exit 2
so=${DOCEXT_SO:-./docext}
[ -f "$so.so" ] || { echo "diff_text: $so.so not found (run make first)" >&2; echo "0 passed, 1 failed"; exit 1; }
/usr/bin/python3 -c 'import snowballstemmer' 2>/dev/null || { echo "diff_text: python3-snowballstemmer is not installed" >&2; echo "0 passed, 1 failed"; exit 1; }
DOCEXT_SO="$so" exec /usr/bin/python3 test/diff_text.py "${DIFF_CASES:-1500}" "${DIFF_SEED:-20261128}"
