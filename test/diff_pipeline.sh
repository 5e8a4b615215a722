#!/usr/bin/env bash
# test/diff_pipeline.sh — differential test of pipeline updates: docext's
# doc_update(doc, [stages]) against a model of MongoDB's stages
# (test/diff_pipeline.py does the work; see there).
#
#   make && test/diff_pipeline.sh          3000 seeded cases
#   DIFF_CASES=20000 DIFF_SEED=7 test/diff_pipeline.sh
#
# Debian's /usr/bin/python3 (which can load extensions) runs it against
# ./docext.so (DOCEXT_SO=path without .so for another build). The last line
# is "N passed, M failed"; the exit status is non-zero when M > 0.
set -u
cd "$(dirname "$0")/.." || exit 2
so=${DOCEXT_SO:-./docext}
[ -f "$so.so" ] || { echo "diff_pipeline: $so.so not found (run make first)" >&2; echo "0 passed, 1 failed"; exit 1; }
DOCEXT_SO="$so" exec /usr/bin/python3 test/diff_pipeline.py "${DIFF_CASES:-3000}" "${DIFF_SEED:-20261126}"
