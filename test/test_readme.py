#!/usr/bin/python3
"""test/test_readme.py — the README's shell sessions, run as they are shown.

Every code block of README.md that holds "sqlite>" prompts is a piece of one
long sqlite3 shell session, in the README's order (the tour builds on
itself). Each statement is run, and what the shell prints for it must be what
the README shows under it, errors included; a statement the README shows no
output for must print nothing. So the README cannot drift from the code.

  - A statement may continue on "...>" lines.
  - `CREATE VIRTUAL TABLE x USING docext` starts x afresh (a section may
    reuse a name an earlier one used), as if x had not existed.
  - A block may need data the README does not show being made (it points
    to a test that does). An HTML comment right before the block, which
    a reader of the rendered README does not see, gives it:
        <!-- setup
        CREATE VIRTUAL TABLE budget USING docext;
        INSERT INTO budget(doc) VALUES (...);
        -->
    Its statements run first; they must print nothing.
  - Errors compare in one form ("Error: MSG"): the README writes the
    shell's "Runtime error: MSG (19)", the shell adds "near line N".
  - ObjectIds compare as placeholders: a new one differs at every run.
    So does doc_explain's "millis", the time a query took.
  - Tables of `.mode box` compare by their cells: shells draw them
    differently from one version to the next.

Each ```python block that the README says prints something ("It prints:"
and a block) is run too, by this python, in a directory of its own, and
must print exactly that.

Run from anywhere: /usr/bin/python3 test/test_readme.py [SHELL] (default
sqlite3). The session runs in a temporary directory (the sharding tour
attaches files), loading the repository's docext. Prints each mismatch,
then "N passed, M failed" (one per statement, one per python program).
"""
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHELL = sys.argv[1] if len(sys.argv) > 1 else "sqlite3"
if "/" in SHELL:
    SHELL = os.path.abspath(SHELL)      # (the session runs elsewhere)
MARK = "@@docext-readme@@"

BLOCK = re.compile(r"(?:<!--\s*setup\n(?P<setup>.*?)-->\s*\n)?[ \t]*```[a-z]*\n(?P<body>.*?)```", re.S)
ERROR = re.compile(r"^(?:Runtime error|Parse error|Error)(?: near line \d+)?: (.*?)(?: \(\d+\))?$")
BOX_RULE = re.compile("^[\u2500-\u257f ]+$")   # a rule of .mode box
OID = re.compile(r'(ObjectId\("|\{"\$oid":")[0-9a-f]{24}"')
MILLIS = re.compile(r'("millis":)\d+')


def statements(body):
    """The block's statements, each [sql, shown output lines]."""
    out = []
    for line in body.split("\n"):
        s = line.strip()
        if s.startswith("sqlite>"):
            out.append([s[len("sqlite>"):].strip(), []])
        elif s.startswith("...>") and out and not out[-1][1]:
            out[-1][0] += "\n" + s[len("...>"):].strip()
        elif out and s:
            out[-1][1].append(s)
    return out


def normal(lines):
    """Lines in the form they are compared in."""
    res = []
    for line in lines:
        line = line.strip()
        if BOX_RULE.match(line):
            continue
        if line.startswith("\u2502"):
            # a row of .mode box: its cells (shells draw and align them
            # differently from one version to the next)
            line = "|".join(cell.strip() for cell in line.strip("\u2502").split("\u2502"))
        m = ERROR.match(line)
        if m:
            line = "Error: " + m.group(1)
        res.append(MILLIS.sub(r'\1<ms>', OID.sub(r'\1<oid>"', line)))
    return res


def script_of(items):
    """The shell input: a marker before each statement's output."""
    lines = []
    load = ".load " + os.path.join(REPO, "docext")
    for kind, sql in items:
        sql = re.sub(r"^\.load \./docext\b", load, sql)
        m = re.match(r"CREATE VIRTUAL TABLE (\w+) USING docext", sql)
        if m:
            lines.append("DROP TABLE IF EXISTS %s;" % m.group(1))
        lines.append(".print " + MARK)
        lines.append(sql if sql.startswith(".") or sql.endswith(";") else sql + ";")
    return "\n".join(lines) + "\n"


PYTHON = re.compile(r"```python\n(?P<code>.*?)```\s*\n(?P<between>[^`]*?)```[a-z]*\n(?P<out>.*?)```", re.S)


def python_programs(text):
    """(program, what the README says it prints) for each python block
    followed by "It prints:" and a block."""
    return [(m.group("code"), m.group("out")) for m in PYTHON.finditer(text)
            if "prints" in m.group("between")]


def run_python(code, shown):
    """Run one program of the README; True if it prints what is shown."""
    code = code.replace('"./docext"', repr(os.path.join(REPO, "docext")))
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, cwd=tmp)
    if run.returncode == 0 and run.stdout.strip() == shown.strip():
        return True
    print("README python program (exit %d):\n%s" % (run.returncode, code))
    print("  README shows: %r" % shown.strip())
    print("  python:       %r" % run.stdout.strip()[:2000])
    return False


def main():
    try:
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print("cannot read README.md: %s" % e)
        print("0 passed, 1 failed")
        return 1
    items = []      # (kind, sql): kind "setup" or "shown"
    expected = []   # per item: the shown lines (None for setup)
    for m in BLOCK.finditer(text):
        body = statements(m.group("body"))
        if not body:
            continue
        for sql in (m.group("setup") or "").split(";\n"):
            if sql.strip():
                items.append(("setup", sql.strip() + ";"))
                expected.append([])
        for sql, shown in body:
            items.append(("shown", sql))
            expected.append(shown)
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(["stdbuf", "-o0", "-e0", SHELL, "-init", "/dev/null", "-batch", ":memory:"],
                             input=script_of(items), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, cwd=tmp)
    if "Sanitizer" in run.stdout or "runtime error:" in run.stdout:
        print(run.stdout)           # (test/run.sh finds the report in it)
    outputs = run.stdout.split(MARK + "\n")[1:]
    if not outputs:
        print("the shell printed nothing a statement gave:\n" + run.stdout[:2000])
    passed = failed = 0
    for i, ((kind, sql), shown) in enumerate(zip(items, expected)):
        got = outputs[i].rstrip("\n").split("\n") if i < len(outputs) else ["<no output: the shell stopped>"]
        got = [g for g in got if g.strip()]
        if normal(got) == normal(shown):
            passed += kind == "shown"
            continue
        failed += 1
        print("README %s statement: %s" % (kind, sql[:400]))
        print("  README shows: %r" % (shown[:8],))
        print("  the shell:    %r" % (got[:8],))
    for code, shown in python_programs(text):
        if run_python(code, shown):
            passed += 1
        else:
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
