#!/usr/bin/python3
"""test/diff_index.py — differential test of the query planner: the same
random queries over a collection without secondary indexes and over copies
of it with indexes of every kind must give identical answers.

    make && /usr/bin/python3 test/diff_index.py [CASES] [SEED] [-v]
    (test/diff_index.sh runs it; test/run.sh runs test/diff_*.sh)

Loads ./docext.so (or $DOCEXT_SO without the suffix). Builds one collection
of random documents (mixed types: numbers of every BSON type, NaN, -0.0,
strings with shared prefixes and NULs, booleans, null, undefined, dates,
ObjectIds, regexes, MinKey/MaxKey, documents, arrays of scalars and of
documents, empty and nested arrays, missing fields) and copies of it that
carry indexes: single-field, descending, compound (with _id last, so a sort
on the index is total), multikey, embedded paths, hashed, sparse, partial,
unique on _id-like data, and a TTL index under a frozen clock (that copy is
filled after the replacements below; its expected answers are the plain
collection's without the documents it has expired). Then for CASES random filters (equality, $eq, $in,
ranges, $ne, $nin, $exists, $type, $all, $size, regexes, $elemMatch in both
forms (and on arr with conditions on x and y, whose bounds the index
{arr.x: 1, arr.y: 1} compounds), $and, $or, $nor, $not, nested conjunctions) with optional sorts,
limits, skips and hints, it compares per index set:
  - the ids found (sorted queries: the ids in order; the sorts end with _id
    so that no two documents tie),
  - SELECT count(*) (which may be answered from index entries alone),
  - doc_count(), and doc_explain()'s n,
  - the error, when the filter is invalid,
  - the projected documents (exact BSON bytes) for a projection of index
    fields only (the shape of a covered query, answered from the entries'
    vals when the plan is exact; see docext_query.c).
Before the queries, some documents are replaced in every collection (after
the indexes exist), so that index maintenance, including the vals of
entries whose keys stay the same (1 and 1.0), is exercised too.
The last line is "N passed, M failed"; the exit status is non-zero if M > 0.
"""
import json
import os
import random
import sqlite3
import sys

SO = os.environ.get("DOCEXT_SO", "./docext")

INDEX_SETS = {
    "single": [
        ('{"a": 1}', None), ('{"b": -1}', None), ('{"c.d": 1}', None),
        ('{"arr": 1}', None), ('{"arr.x": 1}', None), ('{"s": 1}', None),
        ('{"n": -1}', None),
    ],
    "compound": [
        ('{"a": 1, "_id": 1}', None), ('{"b": -1, "_id": -1}', None),
        ('{"a": 1, "b": 1}', None), ('{"s": 1, "n": -1}', None), ('{"b": 1, "a": 1}', None),
        ('{"arr.x": 1, "arr.y": 1}', None), ('{"c.d": 1, "a": -1}', None),
        ('{"n": 1, "s": 1, "_id": 1}', None), ('{"arr": 1, "a": 1}', None),
        ('{"c": 1, "_id": 1}', None), ('{"arr.0": 1, "_id": 1}', None),
    ],
    "special": [
        ('{"a": "hashed"}', None), ('{"s": "hashed"}', None),
        ('{"b": 1}', '{"sparse": true}'),
        ('{"n": 1}', '{"partialFilterExpression": {"n": {"$gt": 0}}}'),
        ('{"c.d": -1, "s": 1}', '{"sparse": true}'),
        ('{"s": -1}', '{"partialFilterExpression": {"s": {"$exists": true}}}'),
        ('{"arr.x": -1}', None), ('{"arr.0": 1}', None),
    ],
    "special2": [
        ('{"s": "hashed"}', '{"sparse": true}'),
        ('{"a": 1, "n": -1}', '{"sparse": true}'),
        ('{"b": 1}', '{"partialFilterExpression": {"b": {"$exists": true}}}'),
        ('{"u": 1}', '{"unique": true, "sparse": true}'),
        ('{"u": -1, "a": 1}', '{"unique": true, "partialFilterExpression": {"u": {"$exists": true}}}'),
        ('{"c": 1}', None), ('{"e": 1}', '{"sparse": true}'),
        ('{"arr.0.x": 1}', '{"sparse": true}'),
    ],
    # multikey indexes with fields that never meet an array (b may be one,
    # a never; arr is one, n never; h is a document whose p may be an
    # array; g an array of documents whose p and q never are): bounds
    # intersect and compound there, and sorts come from the index
    "paths": [
        ('{"b": 1, "a": 1, "_id": 1}', None), ('{"arr": 1, "n": -1, "_id": -1}', None),
        ('{"h.p": 1, "h.q": 1, "_id": 1}', None), ('{"h.q": -1, "h.p": 1}', None),
        ('{"g.p": 1, "g.q": 1}', None), ('{"g.q": 1}', None),
    ],
    "ttl": [
        ('{"t": 1}', '{"expireAfterSeconds": 0}'), ('{"a": 1, "t": -1}', None),
        ('{"c": -1}', None), ('{"s": "hashed"}', None), ('{"arr.x": 1}', None),
    ],
}

# The TTL copy: the clock is frozen at CLOCK, so documents whose t holds a
# date before it (or an array with one) are expired there, never seen.
CLOCK = "1970-01-01T12:00:00Z"
EXPIRED = {"t": {"$lt": {"$date": CLOCK}}}

# Sparse and partial indexes: a hint of one of them may miss documents.
INCOMPLETE = {"special": ("b_1", "n_1", "c.d_-1_s_1", "s_-1"),
              "special2": ("s_hashed", "a_1_n_-1", "b_1", "u_1", "e_1", "u_-1_a_1", "arr.0.x_1"),
              "paths": (), "ttl": ()}

FIELDS = ["a", "b", "s", "n", "arr", "c", "e", "g", "h"]
PATHS = ["a", "b", "s", "n", "arr", "arr.x", "arr.y", "c", "c.d", "c.e", "e", "_id", "zz",
         "g", "g.p", "g.q", "h", "h.p", "h.q",
         "arr.0", "c.d.f", "u", "e.d", "t", "arr.0.x", "c.0.d"]
STRINGS = ["", "a", "ab", "abc", "abd", "b", "ba", "B", "a\u0000b", "a\u0001", "\u00e9t\u00e9",
           "x y", "ab\n", "~", "a.b", "^a", "[a]"]
NUMS = ["0", "1", "-1", "2", "2.5", "-2.5", "3", "5", "10", "100", "1e300", "-0.0"]


def num(rnd):
    r = rnd.random()
    if r < 0.35:
        return {"$numberInt": str(rnd.choice([-3, -1, 0, 1, 2, 3, 5, 7, 10]))}
    if r < 0.5:
        return {"$numberLong": str(rnd.choice([-3, 0, 1, 2, 5, 9007199254740993, -9007199254740993]))}
    if r < 0.75:
        return {"$numberDouble": rnd.choice(["0.0", "-0.0", "1.0", "1.5", "2.0", "2.5", "-2.5",
                                             "5.0", "9007199254740992.0", "Infinity", "-Infinity", "NaN"])}
    return {"$numberDecimal": rnd.choice(["1", "1.0", "2.50", "-0", "5", "NaN", "1E+1", "0.1",
                                          "9007199254740993"])}


def scalar(rnd):
    r = rnd.randrange(20)
    if r < 7:
        return num(rnd)
    if r < 12:
        return rnd.choice(STRINGS)
    if r == 12:
        return rnd.choice([True, False])
    if r == 13:
        return None
    if r == 14:
        return {"$date": {"$numberLong": str(rnd.choice([0, 86400000, -1000, 1600000000000]))}}
    if r == 15:
        return {"$oid": rnd.choice(["5f0000000000000000000001", "5f0000000000000000000002"])}
    if r == 16:
        return rnd.choice([{"$minKey": 1}, {"$maxKey": 1}, {"$undefined": True}])
    if r == 17:
        return {"$regularExpression": {"pattern": rnd.choice(["^a", "a", "^ab"]), "options": rnd.choice(["", "i"])}}
    if r == 18:
        return {"$symbol": rnd.choice(["a", "ab"])}
    return {"$timestamp": {"t": rnd.choice([1, 2]), "i": 1}}


def subdoc(rnd, depth):
    d = {}
    for k in ["d", "e", "x", "y"]:
        if rnd.random() < 0.5:
            d[k] = value(rnd, depth + 1)
    if rnd.random() < 0.1:
        # a field named like an array position: "arr.0.x" reads it too
        d["0"] = subdoc(rnd, depth + 1) if depth < 3 else scalar(rnd)
    return d


def array(rnd, depth):
    n = rnd.randrange(4)
    kind = rnd.randrange(3)
    out = []
    for _ in range(n):
        if kind == 0:
            out.append(scalar(rnd) if rnd.random() < 0.85 or depth > 2 else array(rnd, depth + 1))
        elif kind == 1:
            out.append(subdoc(rnd, depth + 1))
        else:
            out.append(value(rnd, depth + 1))
    return out


def value(rnd, depth=0):
    r = rnd.random()
    if depth >= 3 or r < 0.6:
        return scalar(rnd)
    if r < 0.8:
        return subdoc(rnd, depth)
    return array(rnd, depth)


def document(rnd, i):
    # mostly integer ids, some of other types (the _id index orders them)
    r = rnd.random()
    _id = i if r < 0.8 else ("k%03d" % i if r < 0.9 else
                             {"$numberDouble": "%d.5" % i} if r < 0.95 else {"k": i})
    d = {"_id": _id}
    if rnd.random() < 0.5:
        d["u"] = i if rnd.random() < 0.8 else "u%d" % i
    for f in FIELDS:
        if rnd.random() < 0.7:
            if f == "arr":
                d[f] = array(rnd, 1) if rnd.random() < 0.8 else value(rnd, 1)
                # {arr.x: 1, arr.y: 1} cannot index x and y both arrays
                for el in d[f] if isinstance(d[f], list) else [d[f]]:
                    if isinstance(el, dict) and isinstance(el.get("y"), list):
                        el["y"] = scalar(rnd)
            elif f == "a":
                # never an array: compound indexes pair it with arrays
                d[f] = scalar(rnd) if rnd.random() < 0.8 else subdoc(rnd, 1)
            elif f == "b":
                d[f] = scalar(rnd) if rnd.random() < 0.7 else [scalar(rnd) for _ in range(rnd.randrange(4))]
            elif f == "c":
                r = rnd.random()
                d[f] = (subdoc(rnd, 1) if r < 0.6 else
                        [subdoc(rnd, 2) for _ in range(rnd.randrange(3))] if r < 0.8 else scalar(rnd))
            elif f == "s":
                d[f] = rnd.choice(STRINGS) if rnd.random() < 0.8 else scalar(rnd)
            elif f == "n":
                d[f] = num(rnd) if rnd.random() < 0.8 else scalar(rnd)
            elif f == "g":
                # documents of scalars, mostly in an array
                el = lambda: {k: scalar(rnd) for k in ("p", "q") if rnd.random() < 0.8}
                d[f] = [el() for _ in range(rnd.randrange(4))] if rnd.random() < 0.8 else el()
            elif f == "h":
                # a document, never an array, whose p may be one
                d[f] = {k: scalar(rnd) for k in ("p", "q") if rnd.random() < 0.8}
                if "p" in d[f] and rnd.random() < 0.3:
                    d[f]["p"] = [scalar(rnd) for _ in range(rnd.randrange(4))]
            else:
                d[f] = value(rnd, 1)
    r = rnd.random()
    if r < 0.5:
        # the TTL copy's field: dates (some expired), arrays of them, others
        date = lambda: {"$date": {"$numberLong": str(rnd.choice([0, 86400000, -1000, 1600000000000]))}}
        d["t"] = (date() if r < 0.25 else [date() for _ in range(rnd.randrange(3))] if r < 0.35
                  else [scalar(rnd), date()] if r < 0.4 else scalar(rnd))
    return d


def operand(rnd):
    r = rnd.random()
    if r < 0.75:
        return scalar(rnd)
    if r < 0.85:
        return subdoc(rnd, 2)
    return array(rnd, 2)


def regex(rnd):
    pat = rnd.choice(["^a", "^ab", "^abc", "a", "^a.c", "^ab*", "^a?", "^$", "^B", "^\u00e9", "^a|^b",
                      "b$", "^x y", "^a\\.b", "^~", "^"])
    return {"$regularExpression": {"pattern": pat, "options": rnd.choice(["", "", "", "i", "m", "s"])}}


def cond(rnd, depth):
    """A condition: the value for a path."""
    r = rnd.randrange(26)
    if r < 4:
        return operand(rnd)
    if r == 4:
        return {"$eq": operand(rnd)}
    if r in (5, 6):
        op = rnd.choice(["$gt", "$gte", "$lt", "$lte"])
        c = {op: scalar(rnd) if rnd.random() < 0.7 else operand(rnd)}
        if rnd.random() < 0.5:
            c[rnd.choice(["$gt", "$gte", "$lt", "$lte"])] = scalar(rnd)
        return c
    if r in (7, 8):
        return {rnd.choice(["$gt", "$gte", "$lt", "$lte"]): num(rnd)}
    if r == 9:
        n = rnd.randrange(4) if rnd.random() < 0.8 else rnd.randrange(10, 25)
        return {"$in": [operand(rnd) if rnd.random() < 0.9 else regex(rnd) for _ in range(n)]}
    if r == 10:
        return {"$ne": scalar(rnd)}
    if r == 11:
        return {"$nin": [scalar(rnd) for _ in range(rnd.randrange(3))]}
    if r == 12:
        return {"$exists": rnd.choice([True, False])}
    if r == 13:
        return {"$type": rnd.choice(["number", "string", "array", "null", "object", "bool"])}
    if r == 14:
        return {"$all": [scalar(rnd) for _ in range(1 + rnd.randrange(2))]}
    if r == 15:
        return {"$size": rnd.randrange(3)}
    if r in (16, 17):
        return regex(rnd)
    if r == 18:
        return {"$regex": rnd.choice(["^a", "^ab", "b"]), "$options": rnd.choice(["", "i"])}
    if r == 19:
        inner = {}
        for _ in range(1 + rnd.randrange(2)):
            inner[rnd.choice(["x", "y", "d", "e"])] = cond(rnd, depth + 1) if depth < 2 else scalar(rnd)
        return {"$elemMatch": inner}
    if r == 20:
        c = {}
        for _ in range(1 + rnd.randrange(2)):
            c[rnd.choice(["$gt", "$gte", "$lt", "$lte", "$eq", "$ne"])] = scalar(rnd)
        return {"$elemMatch": c}
    if r == 21:
        return {"$not": {rnd.choice(["$gt", "$lt", "$eq"]): scalar(rnd)}}
    if r == 22:
        return None
    if r == 23:
        return {"$gte": None}
    if r == 24:
        return {"$in": [None, scalar(rnd)]}
    return {"$lt": {"$maxKey": 1}} if rnd.random() < 0.5 else {"$gt": {"$minKey": 1}}


def filt(rnd, depth=0):
    f = {}
    n = 1 + rnd.randrange(3)
    for _ in range(n):
        r = rnd.random()
        if depth < 2 and r < 0.1:
            f["$or"] = [filt(rnd, depth + 1) for _ in range(1 + rnd.randrange(3))]
        elif depth < 2 and r < 0.16:
            f["$and"] = [filt(rnd, depth + 1) for _ in range(1 + rnd.randrange(2))]
        elif depth < 2 and r < 0.19:
            f["$nor"] = [filt(rnd, depth + 1)]
        elif r < 0.21:
            # $expr's $eq of a path and a scalar: indexes give its bounds
            # (the expression is still tested), alone or in an $and
            eq = [{"$eq": ["$" + rnd.choice(PATHS), scalar(rnd)]}
                  for _ in range(1 + rnd.randrange(2))]
            if rnd.random() < 0.3:
                eq[0]["$eq"].reverse()
            f["$expr"] = eq[0] if len(eq) == 1 else {"$and": eq}
        elif r < 0.25:
            # one element's x and y (p and q): bounds of {arr.x: 1, arr.y: 1}
            # ({g.p: 1, g.q: 1}) compound
            path, k1, k2 = rnd.choice([("arr", "x", "y"), ("g", "p", "q")])
            inner = {k1: operand(rnd) if rnd.random() < 0.5 else cond(rnd, 2),
                     k2: cond(rnd, 2)}
            if rnd.random() < 0.3:
                inner["d"] = cond(rnd, 2)
            f[path] = {"$elemMatch": inner}
        else:
            f[rnd.choice(PATHS)] = cond(rnd, depth)
    return f


# Projections of index fields only: covered when an exact plan uses an
# index that holds all of them, none a path where a document has an array
# (else the normal path).
COVER_PROJS = [{"a": 1, "_id": 0}, {"s": 1, "n": 1, "_id": 0}, {"n": 1, "s": 1, "_id": 1},
               {"a": 1, "_id": 1}, {"u": 1, "_id": 0}, {"a": 1, "n": 1, "_id": 0},
               {"n": 1, "_id": 0}, {"s": 1, "_id": 0}, {"c.d": 1, "_id": 0}, {"b": 1, "_id": 0}]



# One value of a multikey index's leading field, and projections of its
# other fields (never arrays), which the index covers: {b: 1, a: 1, _id: 1}
# and {arr: 1, n: -1, _id: -1} (paths), {arr: 1, a: 1} (compound); and some
# with the array field, which it must not (an entry's vals lack it).
MULTIKEY_COVERS = {"b": [{"a": 1, "_id": 0}, {"a": 1, "_id": 1}, {"b": 1, "a": 1, "_id": 0}],
                   "arr": [{"n": 1, "_id": 0}, {"n": 1, "_id": 1}, {"a": 1, "_id": 0},
                           {"arr": 1, "n": 1, "_id": 0}]}


def cover_filter(rnd):
    """A filter that an index may answer exactly (a covered query's), and
    the projections to try with it (None: those of COVER_PROJS that fit)."""
    f = rnd.choice(["a", "s", "n", "u", "_id", "b", "arr"])
    if f in MULTIKEY_COVERS:
        d = {f: scalar(rnd)}
        if rnd.random() < 0.3:
            d["n" if f == "arr" else "a"] = {"$gte": num(rnd)}
        return d, MULTIKEY_COVERS[f]
    if f == "s":
        lo = rnd.choice(STRINGS)
        return {"s": rnd.choice([lo, {"$gte": lo}, {"$gt": lo, "$lt": "b"}, {"$in": [lo, "ab"]}])}, None
    v = num(rnd)
    r = rnd.random()
    c = v if r < 0.3 else {"$gt": v} if r < 0.6 else {"$lte": v} if r < 0.8 else {"$in": [v, num(rnd)]}
    d = {f: c}
    if rnd.random() < 0.3:
        d["s"] = {"$gte": rnd.choice(STRINGS)}
    return d, None


SORTS = [None, None, None, {"a": 1, "_id": 1}, {"a": -1, "_id": -1}, {"b": -1, "_id": -1},
         {"b": 1, "_id": 1}, {"n": 1, "s": 1, "_id": 1}, {"n": -1, "s": -1, "_id": -1},
         {"s": 1, "_id": 1}, {"arr": 1, "_id": 1}, {"_id": -1}, {"c": 1, "_id": 1},
         {"c": -1, "_id": 1}, {"arr.0": 1, "_id": 1}, {"t": -1, "_id": 1}, {"a": 1, "t": -1, "_id": 1},
         {"n": -1, "_id": -1}, {"h.q": 1, "_id": 1}, {"h.p": 1, "_id": 1}]


def distinct_norm(res):
    """doc_distinct's answer with the values that compare equal made equal:
    numbers by value, a symbol as its string (which of equal values is shown
    is the first met, and that depends on the order documents are read)."""
    def norm(v):
        if isinstance(v, bool):
            return ("bool", v)
        if isinstance(v, (int, float)):
            return ("num", float(v))
        if isinstance(v, str):
            return ("str", v)
        if isinstance(v, dict) and len(v) == 1:
            (k, x), = v.items()
            if k == "$symbol":
                return ("str", x)
            if k in ("$numberDecimal", "$numberDouble", "$numberLong", "$numberInt"):
                f = float(x.replace("Inf", "inf")) if "NaN" not in x else "NaN"
                return ("num", f)
        if isinstance(v, dict):
            return ("doc", [(k, norm(x)) for k, x in v.items()])
        if isinstance(v, list):
            return ("arr", [norm(x) for x in v])
        return ("other", v)
    if res is None or res[0] != "ok":
        return res
    return ("ok", norm(json.loads(res[1][0][0])))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    ncases = int(args[0]) if args else int(os.environ.get("DIFF_CASES", "3000"))
    seed = int(args[1]) if len(args) > 1 else int(os.environ.get("DIFF_SEED", "20240611"))
    rnd = random.Random(seed)
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(SO)
    names = ["plain"] + list(INDEX_SETS)
    late = ["ttl"]                  # filled from plain after the replacements
    db.execute("SELECT doc_config('clock', ?)", (CLOCK,))
    for name in names:
        db.execute(f"CREATE VIRTUAL TABLE {name} USING docext")
    docs = [json.dumps(document(rnd, i)) for i in range(1, 401)]
    failed = passed = 0
    for name in names:
        if name in late:
            continue
        for d in docs:
            try:
                db.execute(f"INSERT INTO {name}(doc) VALUES (?)", (d,))
            except sqlite3.Error as e:
                print(f"insert into {name} failed: {e}: {d}")
                failed += 1
    for name, idx in INDEX_SETS.items():
        for keys, opts in idx:
            try:
                if opts:
                    db.execute("SELECT doc_create_index(?, ?, ?)", (name, keys, opts))
                else:
                    db.execute("SELECT doc_create_index(?, ?)", (name, keys))
            except sqlite3.Error as e:
                print(f"create index {keys} on {name} failed: {e}")
                failed += 1

    # Replace some documents everywhere (each replacement in all collections
    # or in none: a unique index may refuse one).
    for i in rnd.sample(range(1, 401), 80):
        d = document(rnd, i)
        if rnd.random() < 0.3:
            # the same keys, other number types: only the vals change
            for f in ("a", "n", "s"):
                v = d.get(f)
                if isinstance(v, dict) and "$numberInt" in v:
                    d[f] = {"$numberDouble": v["$numberInt"] + ".0"}
        old = json.loads(docs[i - 1])
        d["_id"] = old["_id"]
        dj = json.dumps(d)
        db.execute("SAVEPOINT r")
        try:
            for name in names:
                if name in late:
                    continue
                db.execute(f"UPDATE {name} SET doc = ? WHERE doc_match(doc, ?)",
                           (dj, json.dumps({"_id": old["_id"]})))
            db.execute("RELEASE r")
            docs[i - 1] = dj
        except sqlite3.Error:
            db.execute("ROLLBACK TO r")
            db.execute("RELEASE r")
    for name in late:
        db.execute(f"INSERT INTO {name}(doc) SELECT bson FROM plain")

    def run(sql, params):
        if "@S@" in sql:
            sql = sql.replace("@S@", "sort = ?" if params[1] is not None else "? IS NULL")
            sql = sql.replace("@O@", "options = ?" if params[2] is not None else "? IS NULL")
        try:
            return ("ok", db.execute(sql, params).fetchall())
        except sqlite3.Error as e:
            return ("error", str(e))

    index_names = {name: [r[0] for r in db.execute("SELECT name FROM doc_indexes(?)", (name,))]
                   for name in INDEX_SETS}
    seen_plans = {}
    for case in range(ncases):
        fd = filt(rnd)
        sort = rnd.choice(SORTS)
        if rnd.random() < 0.15:
            # one value of a multikey index's leading field, sorted on the
            # fields after it: the paths set's indexes give that order
            lead, sort = rnd.choice([("b", {"a": 1, "_id": 1}), ("arr", {"n": -1, "_id": -1}),
                                     ("h.p", {"h.q": 1, "_id": 1}), ("b", {"_id": -1}),
                                     ("arr", {"n": 1, "_id": 1})])
            fd[lead] = scalar(rnd)
        f = json.dumps(fd)
        opts = {}
        if rnd.random() < 0.3:
            opts["limit"] = rnd.randrange(1, 6)
        if rnd.random() < 0.15:
            opts["skip"] = rnd.randrange(0, 4)
        hinted = {}
        for name in INDEX_SETS:
            if rnd.random() < 0.1:
                hinted[name] = rnd.choice(index_names[name])
        sort_s = json.dumps(sort) if sort else None
        base_opts = json.dumps(opts) if opts else None
        q = "SELECT _id FROM @T@(?, NULL, ?, ?)"
        # sometimes half the conditions as a doc_match() term instead
        fd = json.loads(f)
        f_full = f
        if rnd.random() < 0.15 and len(fd) > 1:
            k = list(fd)[0]
            f = json.dumps({kk: v for kk, v in fd.items() if kk != k})
            q = ("SELECT _id FROM @T@ WHERE filter = ? AND doc_match(doc, '%s')"
                 " AND @S@ AND @O@"
                 % json.dumps({k: fd[k]}).replace("'", "''"))
        qc = "SELECT count(*) FROM @T@(?)"
        # without a sort, order is the plan's: skip and limit then pick any
        # of the matches, so compare with all of them
        loose = not sort and bool(opts)
        proj = json.dumps(rnd.choice(COVER_PROJS))
        qp = "SELECT hex(bson) FROM @T@(?, ?, ?, ?)"
        want_p = None
        f_p = f_full
        if rnd.random() < 0.5:
            cf, fits = cover_filter(rnd)
            fits = fits or [p for p in COVER_PROJS if set(cf) - {"_id"} <= set(p) - {"_id"}
                            and (p.get("_id") or "_id" not in cf)]
            proj = json.dumps(rnd.choice(fits or COVER_PROJS))
            f_p = json.dumps(cf)
        with_p = not loose and rnd.random() < 0.5
        # doc_distinct over the same filter: the same values whatever the
        # plan (each once; which of equal numbers is shown may differ)
        dfield = rnd.choice(PATHS) if rnd.random() < 0.3 else None

        def wants(wrap):
            """The plain collection's answers, the filters wrapped by wrap."""
            want = run(q.replace("@T@", "plain"), (wrap(f), sort_s, base_opts))
            want_n = run(qc.replace("@T@", "plain"), (wrap(f_full),))
            want_all = run(q.replace("@T@", "plain"), (wrap(f), None, None)) if loose else None
            if want[0] == "ok" and not sort:
                want = ("ok", sorted(want[1], key=repr))
            want_p = None
            if with_p:
                want_p = run(qp.replace("@T@", "plain"), (wrap(f_p), proj, sort_s, base_opts))
                if want_p[0] == "ok" and not sort:
                    want_p = ("ok", sorted(want_p[1]))
            want_d = run("SELECT doc_distinct('plain', ?, ?)", (dfield, wrap(f_full))) if dfield else None
            return want, want_n, want_all, want_p, want_d

        answers = {"": wants(lambda x: x)}
        unexpired = lambda x: json.dumps({"$and": [json.loads(x), {"$nor": [EXPIRED]}]})
        for name in INDEX_SETS:
            key = "ttl" if name in late else ""
            if key not in answers:
                answers[key] = wants(unexpired)
            want, want_n, want_all, want_p, want_d = answers[key]
            o = dict(opts)
            h = hinted.get(name)
            if h:
                # a sparse or partial index hinted may lack documents (as in
                # MongoDB): only hint the complete ones
                if h in INCOMPLETE.get(name, ()):
                    h = None
            if h:
                o["hint"] = h
            os_ = json.dumps(o) if o else None
            got = run(q.replace("@T@", name), (f, sort_s, os_))
            if got[0] == "ok" and not sort:
                got = ("ok", sorted(got[1], key=repr))
            got_n = run(qc.replace("@T@", name), (f_full,))
            got_p = None
            if want_p is not None:
                got_p = run(qp.replace("@T@", name), (f_p, proj, sort_s, os_))
                if got_p[0] == "ok" and not sort:
                    got_p = ("ok", sorted(got_p[1]))
            got_c = run("SELECT doc_count(?, ?)", (name, f_full))
            if dfield:
                got_d = run("SELECT doc_distinct(?, ?, ?)", (name, dfield, f_full))
                if distinct_norm(got_d) != distinct_norm(want_d) and not (
                        name in late and got_d[0] == want_d[0] == "error"):
                    failed += 1
                    print(f"case {case} set {name}: doc_distinct({dfield!r}, {f_full}):"
                          f" want {want_d} got {got_d}")
            expl = run("SELECT doc_explain(?, ?, NULL, ?, ?)", (name, f_full, sort_s, os_))
            ok = True
            why = []
            if loose and got[0] == "ok" and want[0] == "ok":
                if len(got[1]) != len(want[1]) or not set(got[1]) <= set(want_all[1]):
                    ok = False
                    why.append(f"find: want {len(want[1])} of {want_all} got {got}")
            elif got != want and not (name in late and got[0] == want[0] == "error"):
                ok = False
                why.append(f"find: want {want} got {got}")
            if got_p is not None and got_p != want_p and not (
                    got_p[0] == "error" and want_p[0] == "error"):
                ok = False
                why.append(f"projection {proj} filter {f_p}: want {want_p} got {got_p}")
            if got_p is not None and got_p[0] == "ok":
                pe = run("SELECT doc_explain(?, ?, ?, ?, ?)", (name, f_p, proj, sort_s, os_))
                if pe[0] == "ok":
                    pj = json.loads(pe[1][0][0])
                    if pj["indexOnly"]:
                        seen_plans["covered"] = seen_plans.get("covered", 0) + 1
                        if pj["isMultiKey"]:
                            seen_plans["covered multikey"] = seen_plans.get("covered multikey", 0) + 1
                        if pj["nscannedObjects"] != 0 or pj["n"] != len(got_p[1]):
                            ok = False
                            why.append(f"covered explain: {pe[1][0][0]}")
            if got_n != want_n and not (name in late and got_n[0] == want_n[0] == "error"):
                ok = False
                why.append(f"count(*): want {want_n} got {got_n}")
            if want_n[0] == "ok" and (got_c[0] != "ok" or got_c[1][0][0] != want_n[1][0][0]):
                ok = False
                why.append(f"doc_count: want {want_n} got {got_c}")
            if expl[0] == "ok" and want[0] == "ok":
                e = json.loads(expl[1][0][0])
                seen_plans[e["cursor"].split(" ")[0]] = seen_plans.get(e["cursor"].split(" ")[0], 0) + 1
                if "$expr" in f and e["cursor"].startswith("BtreeCursor"):
                    seen_plans["$expr by index"] = seen_plans.get("$expr by index", 0) + 1
                if sort and not e["scanAndOrder"]:
                    seen_plans["sorted by index"] = seen_plans.get("sorted by index", 0) + 1
                ce = run("SELECT doc_explain(?, ?, NULL, NULL, '{\"count\": true}')", (name, f_full))
                if ce[0] == "ok" and json.loads(ce[1][0][0])["indexOnly"]:
                    seen_plans["count from index"] = seen_plans.get("count from index", 0) + 1
                if e["n"] != len(want[1]):
                    ok = False
                    why.append(f"explain n {e['n']} != {len(want[1])}: {expl[1][0][0]}")
            elif expl[0] != want[0]:
                ok = False
                why.append(f"explain: {expl}")
            if ok:
                passed += 1
            else:
                failed += 1
                if failed <= 30 or verbose:
                    print(f"FAIL case {case} on {name}: filter {f} sort {sort_s} options {os_}")
                    for w in why:
                        print("   ", w[:2000])
                    if expl[0] == "ok":
                        print("    plan:", expl[1][0][0][:1500])
    chk = [db.execute("SELECT doc_check(?)", (n,)).fetchone()[0] for n in names]
    for n, c in zip(names, chk):
        if c != "ok":
            failed += 1
            print(f"doc_check({n}): {c}")
    if verbose:
        print("plans:", seen_plans)
    if ncases >= 1000 and not seen_plans.get("covered"):
        failed += 1
        print("no query was covered (indexOnly): the projected comparison tests nothing")
    if ncases >= 1000 and not seen_plans.get("$expr by index"):
        failed += 1
        print("no $expr query used an index: the bounds of its $eq went untested")
    if ncases >= 1000 and not seen_plans.get("covered multikey"):
        failed += 1
        print("no query was covered by a multikey index: their vals went untested")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
