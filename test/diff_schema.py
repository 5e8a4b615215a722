#!/usr/bin/python3
"""test/diff_schema.py — the checking half of the differential $jsonSchema
test (test/diff_schema.sh runs test/diff_schema.js first, then this).

    /usr/bin/python3 test/diff_schema.py CASES.jsonl

Loads docext (./docext.so, or $DOCEXT_SO without the suffix) into SQLite and
evaluates SELECT doc_match(doc, '{"$jsonSchema": schema}') for every case,
comparing docext's answer with ajv's. Every mismatch is printed with its
schema and document. The last line is "N passed, M failed"; the exit status
is non-zero when M > 0.
"""
import json
import os
import sqlite3
import sys


def main():
    cases = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(os.environ.get("DOCEXT_SO", "./docext"))
    passed = failed = 0
    for case in cases:
        doc = json.dumps(case["doc"])
        filt = json.dumps({"$jsonSchema": case["schema"]})
        try:
            got = db.execute("SELECT doc_match(?, ?)", (doc, filt)).fetchone()[0]
        except sqlite3.Error as e:
            got = "error: %s" % e
        if got == (1 if case["valid"] else 0):
            passed += 1
        else:
            failed += 1
            if failed <= 30:
                print("FAIL schema %s\n     doc %s\n     ajv %s, docext %s"
                      % (json.dumps(case["schema"]), doc, case["valid"], got))
    if len(cases) < 100:
        print("diff_schema: only %d cases were generated" % len(cases))
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
