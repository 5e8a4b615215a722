#!/usr/bin/env bash
# test/diff_collation.sh — differential test of collations: queries, updates
# and deletes under MongoDB collations against a model on ICU's own collator
# (Debian's python3-icu), and over copies with collated indexes, which must
# never change an answer (test/diff_collation.py does the work; see there).
#
#   make && test/diff_collation.sh           2000 seeded cases
#   DIFF_CASES=20000 DIFF_SEED=7 test/diff_collation.sh
#
# Debian's /usr/bin/python3 (which can load extensions) runs it against
# ./docext.so (DOCEXT_SO=path without .so for another build). Skipped when
# python3-icu is not installed. The last line is "N passed, M failed"; the
# exit status is non-zero when M > 0.
set -u
cd "$(dirname "$0")/.." || exit 2

if ! /usr/bin/python3 -c 'import icu' 2>/dev/null; then
  echo "skipped: python3-icu is not installed"
  echo "0 passed, 0 failed"
  exit 0
fi
so=${DOCEXT_SO:-./docext}
[ -f "$so.so" ] || { echo "diff_collation: $so.so not found (run make first)" >&2; echo "0 passed, 1 failed"; exit 1; }
DOCEXT_SO="$so" exec /usr/bin/python3 test/diff_collation.py "${DIFF_CASES:-2000}" "${DIFF_SEED:-20250301}"
