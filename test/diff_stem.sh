#!/usr/bin/env bash
# test/diff_stem.sh — differential test of the English stemmer
# (ext/docext_stem.c) against Snowball's own, Debian's
# python3-snowballstemmer (test/diff_stem.py does the work; see there).
#
#   make test-build && test/diff_stem.sh      about 57,000 words
#   DIFF_SEED=7 test/diff_stem.sh             other random variants
#
# The words and Snowball's stems go to build/MODE/test_stem --pairs, MODE
# as test/run.sh chooses it: plain, or sanitize when SANITIZE=1, with
# -sqlite352 when NEWSQLITE=1 (DOCEXT_BUILD=dir names another directory).
# Skipped when python3-snowballstemmer is not installed. The last line is
# "N passed, M failed"; the exit status is non-zero when M > 0.
set -u
cd "$(dirname "$0")/.." || exit 2

if [ "${SANITIZE:-0}" = 1 ]; then build=build/sanitize; else build=build/plain; fi
[ "${NEWSQLITE:-0}" = 1 ] && build=$build-sqlite352
build=${DOCEXT_BUILD:-$build}

if ! /usr/bin/python3 -c 'import snowballstemmer' 2>/dev/null; then
  echo "skipped: python3-snowballstemmer is not installed"
  echo "0 passed, 0 failed"
  exit 0
fi
[ -x "$build/test_stem" ] || {
  echo "diff_stem: $build/test_stem not found (run make test-build first)" >&2
  echo "0 passed, 1 failed"; exit 1; }
exec /usr/bin/python3 test/diff_stem.py "$build/test_stem" "${DIFF_SEED:-20260101}"
