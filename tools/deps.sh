#!/usr/bin/env bash
# tools/deps.sh — install the Debian 12 packages docext needs to build, test,
# demo and benchmark, and only those that are missing. Quiet and fast (one
# dpkg-query) when everything is already there; runs `apt-get update` once,
# and only when something has to be installed. Uses sudo when not root.
#
#   build-essential   gcc, make, libc headers
#   sqlite3           the shell: `make demo`, the sql/ tests
#   libsqlite3-dev    sqlite3.h / sqlite3ext.h, libsqlite3.so
#   libpcre2-dev      PCRE2 (8-bit), used for $regex
#   libstemmer-dev    Snowball's stemmers (libstemmer), used by text indexes
#                     in languages other than English
#   libicu-dev        ICU, whose collators give collations (as in MongoDB)
#   python3-icu       ICU in Python (PyICU): test/diff_collation.py's model
#   python3           Debian's /usr/bin/python3, whose sqlite3 module can load
#                     extensions (test/test_pybson.py)
#   python3-bson      MongoDB's own BSON codec, the cross-check's reference
#   python3-pymongo   bson.json_util imports pymongo.errors, so Extended JSON
#                     from python-bson needs it
#   python3-snowballstemmer  Snowball's stemmers in Python, the reference
#                     of test/diff_stem.py for docext's English stemmer,
#                     and of test/diff_text.py for the other languages
#   unicode-data      the Unicode Character Database (/usr/share/unicode):
#                     test/diff_text.py's reference, and the source of
#                     tools/gen_unicode.py
#   liblingua-stopwords-perl  Snowball's stop word lists: test/diff_text.py's
#                     reference, and the source of tools/gen_stopwords.py
#   tzdata            the time zone database (/usr/share/zoneinfo), which
#                     the date expressions read for zone names such as
#                     "America/New_York" (sql/expr.sql, test/diff_dates.py)
#   clang, libclang-rt-14-dev   only with the argument `fuzz` (make fuzz):
#                     the compiler and its libFuzzer runtime
#   nodejs, npm       the differential tests (mingo, sift from the npm
#                     registry); checked by command, not by package, because
#                     a NodeSource nodejs bundles npm and conflicts with
#                     Debian's npm package
set -euo pipefail

packages=(build-essential sqlite3 libsqlite3-dev libpcre2-dev libstemmer-dev libicu-dev
          python3 python3-bson python3-pymongo python3-snowballstemmer python3-icu
          liblingua-stopwords-perl unicode-data tzdata)
[ "${1:-}" = fuzz ] && packages+=(clang libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "tools/deps.sh: missing packages: ${missing[*]} (run as root or install sudo)" >&2
  exit 1
fi

echo "tools/deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >&2
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
