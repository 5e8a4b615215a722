#!/usr/bin/env bash
# test/run.sh — run docext's tests; `make test` calls it, and it can be run
# by hand from any directory (it changes to the repository root first).
#
#   test/run.sh                    everything
#   test/run.sh bson sql/query     only tests whose name contains one of the
#                                  words (also: make test T="bson sql/query")
#   test/run.sh --update NAME      rewrite sql/expected/NAME.out from the
#                                  current output (UPDATE=1 does the same);
#                                  without NAME, for every script
#   SANITIZE=1 test/run.sh         use the ASan+UBSan build (make SANITIZE=1 test)
#   NEWSQLITE=1 test/run.sh        use the build against SQLite 3.52 and its
#                                  shell (make NEWSQLITE=1 test); python and
#                                  node keep the system's SQLite
#
# The tests, each printed as "ok NAME" or "FAIL NAME":
#   build/MODE/replay_*    each fuzz target of test/fuzz/ over its saved
#                          inputs in test/fuzz/seeds/ (no libFuzzer)
#   build/MODE/test_*      C programs; each ends with "N passed, M failed",
#                          whose counts are added up (a crash, or a non-zero
#                          exit without failures counted, is 1 failed)
#   sql/NAME.sql           run by the sqlite3 shell, output (errors included)
#                          compared with sql/expected/NAME.out: 1 test each
#   test/diff_*.sh         differential tests against mingo/sift (node);
#                          their counts are added up
#   test/test_pybson.py    cross-check with python-bson, run by Debian's
#                          /usr/bin/python3; its counts are added up
#   test/test_crud.py      MongoDB's CRUD spec tests, read from
#                          ../shared/crud-tests (skipped when absent), run
#                          by /usr/bin/python3; its counts are added up
#   test/test_readme.py    README.md's shell sessions, run by the shell: each
#                          statement must print what the README shows
#   examples/NAME.sql      runs with no error but the E11000 it shows on purpose
#   exports                docext.so exports sqlite3_docext_init and nothing else
#   generated              ext/docext_unicode.c and ext/docext_stopwords.c are
#                          what tools/gen_unicode.py and tools/gen_stopwords.py
#                          write from Debian's data now
# The last line is "N passed, M failed" over everything; the exit status is
# non-zero when M > 0.
set -u
cd "$(dirname "$0")/.." || exit 2

update=${UPDATE:-0}
patterns=()
for arg in "$@"; do
  case $arg in
    --update) update=1 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) patterns+=("$arg") ;;
  esac
done

SANITIZE=${SANITIZE:-0}
NEWSQLITE=${NEWSQLITE:-0}
if [ "$SANITIZE" = 1 ]; then build=build/sanitize; else build=build/plain; fi
shell=sqlite3
if [ "$NEWSQLITE" = 1 ]; then
  build=$build-sqlite352
  shell=build/sqlite-3.52.0/sqlite3
fi
if [ "$NEWSQLITE" = 1 ] && [ "$update" = 1 ]; then
  echo "test/run.sh: --update records the system shell's output, not with NEWSQLITE=1" >&2
  exit 2
fi
if [ "${DOCEXT_NO_BUILD:-0}" != 1 ]; then
  make -s --no-print-directory SANITIZE="$SANITIZE" NEWSQLITE="$NEWSQLITE" test-build || {
    echo "FAIL build"; echo "0 passed, 1 failed"; exit 1; }
fi

timeout_s=${DOCEXT_TEST_TIMEOUT:-900}
python=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Under SANITIZE=1 the C test programs carry the sanitizer runtimes
# themselves; the sqlite3 shell and python are not instrumented, so they get
# the runtimes preloaded (ASan's must come first) to host the sanitized .so.
preload=()
if [ "$SANITIZE" = 1 ]; then
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
  # Debian's sqlite3 shell leaks nothing of its own, so every leak report is
  # docext's and no suppressions file is needed; one is used if ever added.
  if [ -f test/lsan.supp ]; then
    export LSAN_OPTIONS="suppressions=$PWD/test/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
  fi
  # The shell unloads docext.so when it closes the database, before LSan
  # reports at exit, leaving leak stacks without names; a preloaded no-op
  # dlclose keeps it mapped so the report names docext's functions.
  nodlclose=$build/nodlclose.so
  if [ ! -f "$nodlclose" ]; then
    mkdir -p "$build"
    echo 'int dlclose(void *h){ (void)h; return 0; }' \
      | gcc -shared -fPIC -x c -o "$nodlclose" - || exit 2
  fi
  preload=(env "LD_PRELOAD=$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so) $PWD/$nodlclose")
fi
# Python keeps much of its heap alive at exit, and every allocation docext
# makes under python has python frames above it, so no suppression can tell
# python's leaks from docext's: leak checking stays off for python only (the
# sql/ scripts and the C tests cover docext's leaks).
python_env=("${preload[@]}")
[ "$SANITIZE" = 1 ] && python_env+=("ASAN_OPTIONS=${ASAN_OPTIONS}:detect_leaks=0")

passed=0
failed=0
ran=0

selected() {  # selected NAME: true when no pattern was given or one matches
  [ ${#patterns[@]} -eq 0 ] && return 0
  local p
  for p in "${patterns[@]}"; do
    case $1 in *"$p"*) return 0 ;; esac
  done
  return 1
}

sanitizer_report() {  # sanitizer_report FILE: true if FILE holds one
  grep -q -E 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer' "$1"
}

# counted NAME CMD...: run a program that prints "N passed, M failed" and add
# its counts; show its output when it failed.
counted() {
  local name=$1; shift
  local log="$out/${name//\//_}.log" rc=0 line p f
  ran=$((ran + 1))
  # (the subshell keeps bash's "Aborted"/"Segmentation fault" notice quiet:
  # the exit status and the log say it)
  ( timeout "$timeout_s" "$@" >"$log" 2>&1 </dev/null ) 2>/dev/null || rc=$?
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  if [ -n "$line" ]; then
    p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
  else
    p=0; f=0
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if sanitizer_report "$log" && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$f" -eq 0 ] && grep -q '^skipped: ' "$log"; then
    echo "skip $name ($(grep -m1 '^skipped: ' "$log" | cut -c10-))"
  elif [ "$f" -eq 0 ]; then
    echo "ok   $name ($p passed)"
  else
    echo "FAIL $name ($p passed, $f failed, exit $rc)"
    tail -n 60 "$log" | sed 's/^/    /'
  fi
}

# shell_errors FILE: FILE with the shell's error lines in one form. The
# sqlite3 shell of 3.40 writes "Runtime error near line N: MSG (CODE)" where
# later shells write "Error near line N: MSG"; the expected outputs are the
# former's, and the NEWSQLITE run compares both in the latter form.
shell_errors() {
  sed -E 's/^Runtime error near (line [0-9]+: .*) \([0-9]+\)$/Error near \1/;
          s/^Runtime error near /Error near /' "$1"
}

# same_output EXPECTED GOT: the shell's output is the expected one.
same_output() {
  if [ "$NEWSQLITE" = 1 ]; then
    cmp -s <(shell_errors "$1") <(shell_errors "$2")
  else
    cmp -s "$1" "$2"
  fi
}

# sql_script NAME: run sql/NAME.sql, compare with sql/expected/NAME.out.
sql_script() {
  local name=$1 script=sql/$1.sql expect=sql/expected/$1.out
  local got="$out/sql_$1.out" rc=0
  ran=$((ran + 1))
  ( timeout "$timeout_s" "${preload[@]}" "$shell" -init /dev/null -batch :memory: \
      <"$script" >"$got" 2>&1 ) 2>/dev/null || rc=$?
  if [ "$rc" -ge 124 ] || sanitizer_report "$got"; then
    failed=$((failed + 1))
    echo "FAIL sql/$name (exit $rc)"
    tail -n 60 "$got" | sed 's/^/    /'
  elif [ "$update" = 1 ]; then
    mkdir -p sql/expected
    cp "$got" "$expect"
    passed=$((passed + 1))
    echo "ok   sql/$name (expected output written)"
  elif [ ! -f "$expect" ]; then
    failed=$((failed + 1))
    echo "FAIL sql/$name: no $expect (create it with: test/run.sh --update $name)"
    sed 's/^/    /' "$got" | head -n 60
  elif same_output "$expect" "$got"; then
    passed=$((passed + 1))
    echo "ok   sql/$name"
  else
    failed=$((failed + 1))
    echo "FAIL sql/$name: output differs from $expect"
    diff -u "$expect" "$got" | head -n 80 | sed 's/^/    /'
  fi
}

# example NAME: examples/NAME.sql runs in the shell with no error but the
# duplicate-key errors (E11000) it shows on purpose.
example() {
  local name=$1 got="$out/example_$1.out" rc=0 bad
  ran=$((ran + 1))
  ( timeout "$timeout_s" "${preload[@]}" "$shell" -init /dev/null -batch :memory: \
      <"examples/$name.sql" >"$got" 2>&1 ) 2>/dev/null || rc=$?
  bad=$(grep -E '^(Parse error|Runtime error|Error)' "$got" | grep -v E11000)
  if [ "$rc" -ge 124 ] || sanitizer_report "$got" || [ -n "$bad" ]; then
    failed=$((failed + 1))
    echo "FAIL examples/$name (exit $rc)"
    if [ -n "$bad" ]; then echo "$bad"; else tail -n 60 "$got"; fi | sed 's/^/    /'
  else
    passed=$((passed + 1))
    echo "ok   examples/$name"
  fi
}

# exports: only the entry point is visible in docext.so.
exports() {
  local syms
  ran=$((ran + 1))
  syms=$(nm -D --defined-only docext.so 2>&1 | awk '{print $NF}' | sort | tr '\n' ' ')
  if [ "$syms" = "sqlite3_docext_init " ]; then
    passed=$((passed + 1)); echo "ok   exports"
  else
    failed=$((failed + 1)); echo "FAIL exports: docext.so defines: $syms"
  fi
}

# generated: each generated source is what its tool writes now (a tool or
# its data changed without the file being made again, or the file was
# edited by hand, fails).
generated() {
  local tool out tmp
  for tool in gen_unicode:docext_unicode gen_stopwords:docext_stopwords; do
    out="ext/${tool#*:}.c"
    tmp=$(mktemp)
    ran=$((ran + 1))
    if /usr/bin/python3 "tools/${tool%%:*}.py" >"$tmp" 2>&1 && cmp -s "$tmp" "$out"; then
      passed=$((passed + 1)); echo "ok   generated $out"
    else
      failed=$((failed + 1))
      echo "FAIL generated $out: tools/${tool%%:*}.py writes something else:"
      diff "$out" "$tmp" | head -5 | sed 's/^/    /'
    fi
    rm -f "$tmp"
  done
}

if [ "$update" != 1 ]; then
  for src in test/test_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    selected "$name" || continue
    if [ -x "$build/$name" ]; then
      counted "$name" "$build/$name"
    else
      ran=$((ran + 1)); failed=$((failed + 1))
      echo "FAIL $name: $build/$name was not built"
    fi
  done
fi

# The fuzz targets' saved inputs (seeds, and inputs that once broke them).
if [ "$update" != 1 ]; then
  for src in test/fuzz/fuzz_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c); name=replay_${name#fuzz_}
    selected "$name" || continue
    counted "$name" "$build/$name" "test/fuzz/seeds/fuzz_${name#replay_}"
  done
fi

for script in sql/*.sql; do
  [ -f "$script" ] || continue
  name=${script#sql/}; name=${name%.sql}
  selected "sql/$name" && sql_script "$name"
done

if [ "$update" != 1 ]; then
  for script in examples/*.sql; do
    [ -f "$script" ] || continue
    name=${script#examples/}; name=${name%.sql}
    selected "examples/$name" && example "$name"
  done
  if selected test_pybson; then
    counted test_pybson "${python_env[@]}" "$python" test/test_pybson.py
  fi
  if selected test_crud; then
    counted test_crud "${python_env[@]}" "$python" test/test_crud.py
  fi
  if selected test_readme; then
    counted test_readme "${python_env[@]}" "$python" test/test_readme.py "$shell"
  fi
  # Differential tests against independent MongoDB-semantics libraries
  # (node + npm; the scripts install their pinned packages under build/).
  # They test semantics, so they run on the plain build only: node would not
  # survive a preloaded ASan runtime, and the C tests cover memory safety.
  if [ "$SANITIZE" != 1 ]; then
    for diff in test/diff_*.sh; do
      [ -f "$diff" ] || continue
      name=${diff#test/}; name=${name%.sh}
      selected "$name" && counted "$name" bash "$diff"
    done
  fi
  selected exports && exports
  selected generated && generated
fi

if [ "$ran" -eq 0 ]; then
  echo "no test matches: ${patterns[*]}" >&2
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
