#!/usr/bin/python3
"""test/diff_sum.py — differential test of $sum and $avg.

    make && /usr/bin/python3 test/diff_sum.py [CASES] [SEED]
    (test/diff_sum.sh runs it; test/run.sh runs test/diff_*.sh)

Loads ./docext.so (or $DOCEXT_SO without the suffix). Each case is a list
of random numbers (int32, int64 and doubles: small, huge, tiny, the
classic 0.1-like ones, and now and then a value near the int64 limits),
summed by docext's $group ($sum and $avg) and by a model written here of
MongoDB's accumulators (src/mongo/util/summation.h and accumulator_sum.cpp,
accumulator_avg.cpp): integers and doubles in a double-double kept by the
2Sum and Fast2Sum formulas, an int64 added as its two halves; the result
an int32 or int64 while every number was an integer and the sum rounds to
an int64 (halves away from zero), else the double nearest the sum; $avg
that double (the integers' sum as one) over the count. Python's floats are
IEEE doubles, so the model computes what MongoDB computes, bit for bit.
The last line is "N passed, M failed".
"""
import json
import math
import os
import random
import sqlite3
import sys

SO = os.environ.get("DOCEXT_SO", "./docext")
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


class DoubleDouble:
    """MongoDB's DoubleDoubleSummation."""

    def __init__(self):
        self.sum = self.addend = self.special = 0.0

    def add_double(self, x):
        self.special += x
        s = x + self.addend                 # Fast2Sum(x, addend)
        z = s - x
        t = self.addend - z
        x, self.addend = s, t
        s = self.sum + x                    # 2Sum(sum, x)
        a = s - x
        b = s - a
        t = (self.sum - a) + (x - b)
        self.sum = s
        self.addend += t

    def add_long(self, x):
        # (its two halves, each exact as a double: C's x / 2^32 * 2^32)
        high = (abs(x) >> 32 << 32) * (1 if x >= 0 else -1)
        self.add_double(float(x - high))
        self.add_double(float(high))

    def double(self):
        return self.special if math.isnan(self.sum) else self.sum

    def long(self):
        """The sum rounded to an int64 (halves away from zero), or None."""
        def lround(d):
            return int(math.floor(d + 0.5)) if d >= 0 else -int(math.floor(-d + 0.5))
        if -2.0**63 < self.sum < 2.0**63:
            i = lround(self.sum)
            r = i + lround((self.sum - i) + self.addend)
            return r if I64_MIN <= r <= I64_MAX else None
        if self.sum == 2.0**63 and self.addend < -0.5:
            return lround(self.addend) + (1 << 63)
        if self.sum == -2.0**63 and self.addend > -0.5:
            return I64_MIN + lround(self.addend)
        return None


def model(values):
    """(sum, avg) of [(type, value)] as MongoDB's accumulators give them."""
    dd = DoubleDouble()
    kind = "int"
    for t, v in values:
        if t == "double":
            dd.add_double(v)
            kind = "double"
        else:
            dd.add_long(v)
            if t == "long" and kind == "int":
                kind = "long"
    total = None
    if kind != "double":
        i = dd.long()
        if i is not None:
            total = ("int" if kind == "int" and -2**31 <= i < 2**31 else "long", i)
    if total is None:
        total = ("double", dd.double())
    return total, ("double", dd.double() / len(values))


def random_values(rng):
    out = []
    for _ in range(rng.randint(1, 25)):
        k = rng.random()
        if k < 0.15:
            out.append(("int", rng.randint(-2**31, 2**31 - 1)))
        elif k < 0.25:
            out.append(("long", rng.choice([rng.randint(-2**62, 2**62),
                                            I64_MAX - rng.randint(0, 5), I64_MIN + rng.randint(0, 5)])))
        elif k < 0.5:
            out.append(("double", round(rng.uniform(-1000, 1000), rng.randint(0, 3))))
        elif k < 0.7:
            out.append(("double", rng.choice([0.1, 0.2, 0.3, 0.02, 1e16, -1e16, 1e-9, 3.3, 2.0**53])))
        else:
            out.append(("double", rng.uniform(-1, 1) * 10.0**rng.randint(-20, 20)))
    if rng.random() < 0.4:                  # integers alone, now and then
        out = [x for x in out if x[0] != "double"] or [("int", 1)]
    return out


def ext_json(t, v):
    if t == "int":
        return {"$numberInt": str(v)}
    if t == "long":
        return {"$numberLong": str(v)}
    return {"$numberDouble": repr(float(v))}


def from_canonical(x):
    (t, s), = x.items()
    if t == "$numberInt":
        return ("int", int(s))
    if t == "$numberLong":
        return ("long", int(s))
    return ("double", float(s))


def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20261127
    rng = random.Random(seed)
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(SO)
    passed = failed = 0
    for i in range(cases):
        values = random_values(rng)
        docs = [{"v": ext_json(t, v)} for t, v in values]
        pipeline = json.dumps([{"$documents": docs},
                               {"$group": {"_id": None, "s": {"$sum": "$v"}, "a": {"$avg": "$v"}}}])
        row = con.execute("SELECT doc_json(bson, 'canonical') FROM doc_aggregate(NULL, ?)",
                          (pipeline,)).fetchone()
        got = json.loads(row[0])
        got = (from_canonical(got["s"]), from_canonical(got["a"]))
        want = model(values)
        if got == want:
            passed += 1
        else:
            failed += 1
            if failed <= 5:
                print("FAIL case %d: %s\n  docext %s, MongoDB's model %s" % (i, values, got, want))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
