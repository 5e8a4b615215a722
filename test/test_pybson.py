#!/usr/bin/python3
"""test_pybson.py - cross-check docext against MongoDB's own BSON codec.

python3-bson (the `bson` package of Debian's pymongo) is the reference: it
encodes seeded random documents holding every BSON type it can produce, and
writes them as canonical and relaxed Extended JSON (bson.json_util). For each
document:

  (a) its BSON bytes, passed as a BLOB to doc_bson(?), come back unchanged;
  (b) doc_json(blob, 'canonical'), read back by json_util with the canonical
      options, encodes to the same bytes again;
  (c) python's canonical text, passed as TEXT to doc_bson(?), gives exactly
      python's bytes;
  (d) python's relaxed text, passed as TEXT to doc_bson(?), gives the bytes of
      what that text means. Relaxed JSON is lossless except for one thing:
      an Int64 whose value fits in 32 bits is written as a plain number, which
      (INTERFACE.md section 2, like json_util) reads back as an int32. Every
      other relaxed form keeps its type: doubles always print with a '.' or
      an exponent, NaN/Infinity and dates outside 1970-9999 stay wrapped,
      integers outside int32 are int64 either way. So the expected bytes are
      python's own reading of the relaxed text, bson.encode(json_util.loads());
      they equal the original bytes when the document has no small Int64, and
      the test checks that too;
  (e) doc_json(blob) (relaxed, the default) is strict JSON for python's json
      module (no NaN/Infinity tokens), and json_util reads it as the same
      value as (d).
Then (f): all the documents one after another, as mongodump writes a .bson
file, come out of doc_each(blob) one by one, byte for byte.

Run by test/run.sh with /usr/bin/python3 (whose sqlite3 module can load
extensions) from the repository root. Prints one line per failure and ends
with "N passed, M failed". PYBSON_SEED and PYBSON_DOCS change the seed and
the number of random documents.
"""

import json
import os
import random
import sqlite3
import struct
import sys
import uuid
import datetime

try:
    import bson
    from bson import json_util
    from bson.binary import Binary, UuidRepresentation
    from bson.code import Code
    from bson.dbref import DBRef
    from bson.decimal128 import Decimal128
    from bson.int64 import Int64
    from bson.max_key import MaxKey
    from bson.min_key import MinKey
    from bson.objectid import ObjectId
    from bson.regex import Regex
    from bson.timestamp import Timestamp
except ImportError as e:
    print("skip: python-bson is not importable (%s); tools/deps.sh installs "
          "python3-bson and python3-pymongo" % e)
    print("0 passed, 0 failed")
    sys.exit(0)

SEED = int(os.environ.get("PYBSON_SEED", "20260101"))
NDOCS = int(os.environ.get("PYBSON_DOCS", "300"))

# Writing: the stock options (python-bson 3.x writes uuid.UUID as binary
# subtype 3). Reading: binary subtypes 3 and 4 must stay Binary objects, or
# json_util turns them into uuid.UUID and writes subtype 4 back as 3.
CANONICAL = json_util.CANONICAL_JSON_OPTIONS
RELAXED = json_util.RELAXED_JSON_OPTIONS
_raw_uuid = getattr(UuidRepresentation, "UNSPECIFIED", None)
if _raw_uuid is None:
    READ_CANONICAL, READ_RELAXED = CANONICAL, RELAXED
else:
    READ_CANONICAL = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL,
                                           uuid_representation=_raw_uuid, tz_aware=True)
    READ_RELAXED = json_util.JSONOptions(json_mode=json_util.JSONMode.RELAXED,
                                         uuid_representation=_raw_uuid, tz_aware=True)

UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)
INT32_MIN, INT32_MAX = -2**31, 2**31 - 1
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1

rng = random.Random(SEED)


# --- random values, one generator per BSON type ---------------------------

def rand_text(n_max=12, nul=False):
    pools = ["abcdefghijklmnopqrstuvwxyz", "ABCXYZ0123456789 _-",
             "\u00e9\u00fc\u00df\u00f1", "\u4e2d\u6587\u65e5\u672c",
             "\U0001F600\U0001F4DA", "\"\\/\b\f\n\r\t\x01\x1f\x7f",
             "\u2028\u2029\ufeff"]
    if nul:
        pools.append("\x00")
    pool = "".join(rng.sample(pools, rng.randint(1, 3)))
    return "".join(rng.choice(pool) for _ in range(rng.randint(0, n_max)))


def rand_key(used):
    # Valid stored names: not starting with '$', no '.', no NUL.
    while True:
        k = rng.choice(["a", "b", "title", "x1", "_k", "clé", "名前", "", "k e y",
                        "\U0001F511", "0", "12"])
        if rng.random() < 0.5:
            k = rand_text(8).replace(".", "_").replace("$", "S")
            k = k.replace("\x00", "")
        if k not in used:
            used.add(k)
            return k


def v_int32():
    return rng.choice([0, 1, -1, INT32_MIN, INT32_MAX, rng.randint(-1000, 1000),
                       rng.randint(INT32_MIN, INT32_MAX)])


def v_int64():
    return Int64(rng.choice([0, 5, -5, INT32_MAX, INT32_MAX + 1, INT32_MIN - 1,
                             INT64_MIN, INT64_MAX, rng.randint(-1000, 1000),
                             rng.randint(INT64_MIN, INT64_MAX)]))


def v_double():
    choice = rng.randrange(4)
    if choice == 0:
        return rng.choice([0.0, -0.0, 1.0, -1.0, 0.1, 1.5, 3.0, 1e16, 1e22,
                           -1e-300, 5e-324, 2.2250738585072014e-308,
                           1.7976931348623157e308, float("inf"),
                           float("-inf"), float("nan"), 1234567.0, 2.0**53,
                           2.0**63, 123456789012345680.0])
    if choice == 1:
        return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    if choice == 2:
        return float(rng.randint(-10**6, 10**6))
    return rng.uniform(-1e6, 1e6)


def v_string():
    return rand_text(30, nul=rng.random() < 0.1)


def v_binary():
    data = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 24)))
    subtype = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 0x80, 0x90])
    if subtype in (3, 4):
        data = bytes(rng.getrandbits(8) for _ in range(16))
    if subtype == 0:
        return data                     # python-bson's bytes is subtype 0
    return Binary(data, subtype)


def v_uuid():
    # python-bson 3.x encodes uuid.UUID as binary subtype 3 (PYTHON_LEGACY).
    return uuid.UUID(int=rng.getrandbits(128))


def v_oid():
    return ObjectId(bytes(rng.getrandbits(8) for _ in range(12)))


def v_bool():
    return rng.random() < 0.5


def v_date():
    lo = datetime.datetime(1, 1, 1, tzinfo=UTC)
    hi = datetime.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
    ms_lo = int((lo - EPOCH).total_seconds() * 1000)
    ms_hi = int((hi - EPOCH).total_seconds() * 1000)
    ms = rng.choice([0, -1, 1, 1349903647096, 253402300799999,
                     rng.randint(0, 4102444800000), rng.randint(ms_lo, ms_hi)])
    return EPOCH + datetime.timedelta(milliseconds=ms)


def v_null():
    return None


def v_regex():
    pattern = rand_text(12).replace("\x00", "")
    flags = "".join(f for f in "ilmsux" if rng.random() < 0.3)
    return Regex(pattern, flags)


def v_code():
    return Code(rand_text(20).replace("\x00", "") or "function(){}")


def v_code_scope(depth):
    return Code(rand_text(20).replace("\x00", "") or "x", rand_doc(depth + 1, 3))


def v_timestamp():
    return Timestamp(rng.choice([0, 1, 2**32 - 1, rng.getrandbits(32)]),
                     rng.choice([0, 1, 2**32 - 1, rng.getrandbits(32)]))


def v_decimal():
    fixed = ["0", "-0", "1.5", "-1.5", "0.1", "NaN", "Infinity", "-Infinity",
             "1E+6144", "1E-6176", "9.999999999999999999999999999999999E+6144",
             "1234567890123456789012345678901234", "0E-6176", "0E+6111",
             "-1.000000000000000000000000000000000E-6143", "100", "1E+3",
             "12345.6789", "-0.000001"]
    if rng.random() < 0.5:
        return Decimal128(rng.choice(fixed))
    digits = str(rng.randint(0, 10**rng.randint(1, 34) - 1))
    exp = rng.randint(-6176, 6111 - len(digits) + 1)
    sign = "-" if rng.random() < 0.3 else ""
    return Decimal128("%s%sE%+d" % (sign, digits, exp))


def v_minkey():
    return MinKey()


def v_maxkey():
    return MaxKey()


def v_dbref(depth):
    ref = rng.choice(["authors", "books", "users"])
    ident = rng.choice([v_oid, v_int32, v_string])()
    if rng.random() < 0.5:
        return DBRef(ref, ident, database=rng.choice(["library", "db2"]))
    return DBRef(ref, ident)


SCALARS = [v_int32, v_int64, v_double, v_string, v_binary, v_uuid, v_oid,
           v_bool, v_date, v_null, v_regex, v_code, v_timestamp, v_decimal,
           v_minkey, v_maxkey]


def rand_value(depth):
    r = rng.random()
    if depth < 5 and r < 0.12:
        return rand_doc(depth + 1, 5)
    if depth < 5 and r < 0.22:
        return [rand_value(depth + 1) for _ in range(rng.randint(0, 5))]
    if depth < 5 and r < 0.25:
        return v_code_scope(depth)
    if depth < 5 and r < 0.28:
        return v_dbref(depth)
    return rng.choice(SCALARS)()


def rand_doc(depth=0, n_max=10):
    used = set()
    return {rand_key(used): rand_value(depth) for _ in range(rng.randint(0, n_max))}


def documents():
    """A document per type first (failures then name the type), then mixed."""
    yield "empty", {}
    for gen in SCALARS:
        for i in range(4):
            yield gen.__name__, {"v": gen()}
    yield "v_code_scope", {"v": v_code_scope(0)}
    yield "v_dbref", {"v": v_dbref(0)}
    yield "v_dbref", {"ref": DBRef("books", v_oid(), database="library",
                                   extra=v_int32())}
    yield "nested", {"a": {"b": {"c": [1, [2, {"d": Int64(3)}], []]}}, "e": {}}
    for i in range(NDOCS):
        yield "random#%d" % i, rand_doc()


# --- the checks ------------------------------------------------------------

passed = 0
failed = 0


MAX_REPORTED = 100   # failure lines printed; the count covers them all


def result(ok, label, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        return
    failed += 1
    if failed <= MAX_REPORTED:
        print("FAIL %s %s%s" % (label, what, (": " + detail) if detail else ""))
    elif failed == MAX_REPORTED + 1:
        print("... (further failures are counted, not shown)")


def short(x, n=160):
    s = x.hex() if isinstance(x, bytes) else str(x)
    return s if len(s) <= n else s[:n] + "..."


def first_diff(a, b):
    if not isinstance(a, bytes) or not isinstance(b, bytes):
        return "got %s" % short(b)
    i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]),
             min(len(a), len(b)))
    return "bytes differ at offset %d (want %d bytes, got %d): want ...%s got ...%s" % (
        i, len(a), len(b), short(a[max(0, i - 8):i + 16]), short(b[max(0, i - 8):i + 16]))


def sql(conn, query, arg):
    """One value from query, or the error message as an Exception."""
    try:
        return conn.execute(query, (arg,)).fetchone()[0]
    except sqlite3.Error as e:
        return e


def reject_constant(name):
    raise ValueError("non-JSON token " + name)


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    conn = sqlite3.connect(":memory:")
    try:
        conn.enable_load_extension(True)
        conn.load_extension("./docext")
    except (sqlite3.Error, AttributeError) as e:
        print("FAIL cannot load ./docext: %s" % e)
        print("0 passed, 1 failed")
        return 1

    dump = []
    for label, doc in documents():
        raw = bson.encode(doc)
        dump.append(raw)
        canon_text = json_util.dumps(doc, json_options=CANONICAL)
        relaxed_text = json_util.dumps(doc, json_options=RELAXED)
        # The oracle must round-trip through its own canonical form.
        if bson.encode(json_util.loads(canon_text, json_options=READ_CANONICAL)) != raw:
            print("skip %s: python-bson does not round-trip it: %s" % (label, canon_text[:200]))
            continue
        relaxed_raw = bson.encode(json_util.loads(relaxed_text, json_options=READ_RELAXED))

        # (a) BSON in, BSON out.
        got = sql(conn, "SELECT doc_bson(?)", raw)
        result(got == raw, label, "(a) doc_bson(blob)", first_diff(raw, got))

        # (b) docext's canonical Extended JSON, read by python.
        got = sql(conn, "SELECT doc_json(?, 'canonical')", raw)
        if isinstance(got, str):
            try:
                back = bson.encode(json_util.loads(got, json_options=READ_CANONICAL))
                result(back == raw, label, "(b) doc_json canonical",
                       first_diff(raw, back) + " text " + short(got, 300))
            except Exception as e:
                result(False, label, "(b) doc_json canonical",
                       "json_util cannot read %s: %s" % (short(got, 300), e))
        else:
            result(False, label, "(b) doc_json canonical", short(got))

        # (c) python's canonical text in.
        got = sql(conn, "SELECT doc_bson(?)", canon_text)
        result(got == raw, label, "(c) doc_bson(canonical text)",
               first_diff(raw, got) + " text " + short(canon_text, 300))

        # (d) python's relaxed text in.
        got = sql(conn, "SELECT doc_bson(?)", relaxed_text)
        result(got == relaxed_raw, label, "(d) doc_bson(relaxed text)",
               first_diff(relaxed_raw, got) + " text " + short(relaxed_text, 300))
        if (relaxed_raw == raw) == has_small_int64(doc):
            result(False, label, "(d) oracle: relaxed should be lossless but "
                   "for small Int64", short(relaxed_text, 300))

        # (e) docext's relaxed output: strict JSON, and the same value.
        got = sql(conn, "SELECT doc_json(?)", raw)
        if isinstance(got, str):
            try:
                json.loads(got, parse_constant=reject_constant)
                result(True, label, "(e) doc_json relaxed is JSON")
            except ValueError as e:
                result(False, label, "(e) doc_json relaxed is JSON",
                       "%s: %s" % (e, short(got, 300)))
            try:
                back = bson.encode(json_util.loads(got, json_options=READ_RELAXED))
                result(back == relaxed_raw, label, "(e) doc_json relaxed value",
                       first_diff(relaxed_raw, back) + " text " + short(got, 300))
            except Exception as e:
                result(False, label, "(e) doc_json relaxed value",
                       "json_util cannot read %s: %s" % (short(got, 300), e))
        else:
            result(False, label, "(e) doc_json relaxed", short(got))

    # (f) the documents one after another, as mongodump writes a .bson
    # file: doc_each gives them back one by one, byte for byte.
    try:
        back = [r[0] for r in conn.execute("SELECT doc FROM doc_each(?)", (b"".join(dump),))]
        result(back == dump, "mongodump stream", "(f) doc_each(concatenated BSON)",
               "%d documents in, %d out" % (len(dump), len(back)))
    except sqlite3.Error as e:
        result(False, "mongodump stream", "(f) doc_each(concatenated BSON)", str(e))

    conn.close()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def has_small_int64(value):
    if isinstance(value, Int64):
        return INT32_MIN <= value <= INT32_MAX
    if isinstance(value, dict):
        return any(has_small_int64(v) for v in value.values())
    if isinstance(value, list):
        return any(has_small_int64(v) for v in value)
    if isinstance(value, Code):
        return value.scope is not None and has_small_int64(value.scope)
    if isinstance(value, DBRef):
        return has_small_int64(value.id) or has_small_int64(value.as_doc())
    return False


if __name__ == "__main__":
    sys.exit(main())
