#!/usr/bin/env bash
# tools/newsqlite.sh DIR — build a newer SQLite (3.52.0) in DIR for
# `make NEWSQLITE=1 test`, which builds docext against it and runs every
# test with it: the system's SQLite (Debian 12: 3.40) is the oldest docext
# supports, this one is the newest it is tested with. Features that only
# newer versions have (xIntegrity, 3.44) are compiled in and tested here.
#
# Writes DIR/sqlite3.h, DIR/sqlite3ext.h, DIR/sqlite3.o (the library) and
# DIR/sqlite3 (the shell), and does nothing when they are there.
#
# The source is SQLite's own autoconf tarball (public domain). sqlite.org
# may be out of reach where the npm registry is not (this project's CI), so
# it comes from the npm package sqlite3, which ships that tarball unchanged
# in deps/; the package is pinned and the tarball checked by its SHA-256.
# Compile options follow Debian's build where they change what SQL can do
# (dbstat, FTS5, R*Tree, math functions, URI names); lookaside stays on,
# as SQLite's default, where Debian turns it off.
set -euo pipefail

dir=${1:?usage: tools/newsqlite.sh DIR}
package=sqlite3@6.0.1
tarball=sqlite-autoconf-3520000
sha256=f6b50b0c103392af32a8be15b2b9d25959de9a00a70c3979128aafeaa5338b3f

[ -f "$dir/sqlite3.o" ] && [ -x "$dir/sqlite3" ] && exit 0
command -v npm >/dev/null || { echo "tools/newsqlite.sh: npm is not installed (tools/deps.sh)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "tools/newsqlite.sh: fetching $package for $tarball.tar.gz" >&2
(cd "$work" && npm pack "$package" --silent --no-audit --no-fund >/dev/null) \
  || { echo "tools/newsqlite.sh: npm pack $package failed" >&2; exit 1; }
tar -xzf "$work"/sqlite3-*.tgz -C "$work" "package/deps/$tarball.tar.gz"
echo "$sha256  $work/package/deps/$tarball.tar.gz" | sha256sum -c --quiet - \
  || { echo "tools/newsqlite.sh: $tarball.tar.gz has the wrong checksum" >&2; exit 1; }
tar -xzf "$work/package/deps/$tarball.tar.gz" -C "$work"

src=$work/$tarball
options=(-DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_FTS5
         -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS
         -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_USE_URI=1
         -DSQLITE_MAX_VARIABLE_NUMBER=250000)
mkdir -p "$dir"
echo "tools/newsqlite.sh: compiling SQLite $(cat "$src/VERSION") into $dir" >&2
gcc -O1 -fPIC "${options[@]}" -c -o "$work/sqlite3.o" "$src/sqlite3.c"
gcc -O1 "${options[@]}" -o "$work/sqlite3" "$src/shell.c" "$work/sqlite3.o" \
    -lm -ldl -lpthread
cp "$src/sqlite3.h" "$src/sqlite3ext.h" "$dir/"
mv "$work/sqlite3" "$dir/sqlite3"
mv "$work/sqlite3.o" "$dir/sqlite3.o"      # last: its presence means done
