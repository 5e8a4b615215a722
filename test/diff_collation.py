#!/usr/bin/python3
"""test/diff_collation.py — differential test of collations: docext's
answers to queries under MongoDB collations against a model written here on
ICU's own collator (PyICU, Debian's python3-icu), and the same queries over
copies of the collection that carry indexes with collations, which must
never change an answer.

    make && /usr/bin/python3 test/diff_collation.py [CASES] [SEED] [-v]
    (test/diff_collation.sh runs it; test/run.sh runs test/diff_*.sh)

Loads ./docext.so (or $DOCEXT_SO without the suffix). The model is
MongoDB's semantics: under a collation, strings and symbols compare as the
ICU collator of its locale and attributes does (strength, caseLevel,
caseFirst, numericOrdering, alternate, maxVariable, normalization,
backwards; a field not given is the locale's own, fr_CA's backwards and
da's caseFirst for two; maxVariable "space" through a RuleBasedCollator of
the locale's rules, which PyICU needs for it), also inside documents and
arrays compared whole; values of different types compare in BSON type
order, numbers by value; $regex reads the bytes whatever the collation.
Queries: equality, $eq, $ne, ranges (one type bracket only), $in, $nin,
$all, $elemMatch with value operators, $regex, $exists, $not, $and, $or,
$nor, and $expr comparisons of a path and a constant (whole values, no
array expansion, missing below null); an array matches when one of its
elements does or when it equals the operand as a whole; a missing field
equals null. Sorts: strings in the collation's order, an array by its
least (ascending) or greatest (descending) element, an empty array before
null and missing; every sort ends with _id, so the order is total.
distinct: one value of each class of equal values (arrays unwound).
Updates: $pull, $addToSet, $min and $max compare as the collation says.

The data: strings chosen to stress collations (case and accents, "ß" and
"ss", ligatures, Turkish dotted and dotless i, digits for numericOrdering,
punctuation and spaces for alternate "shifted", Swedish letters, French
accents for backwards, canonically equivalent spellings, the empty string,
characters beyond the BMP, strings whose sort keys are longer than 64
bytes), now and then a number, null, a symbol or a document in their
place; t an array of them, d a document {x: ...}, k always a string. Copies
of the collection carry indexes: simple ones, and ones under collations
(en strength 2, fr strength 1, sv with caseLevel, numericOrdering,
alternate shifted, fr_CA, two random ones), several collations over one
key pattern, compound, descending, multikey, on an embedded path, on a
whole document, hashed, sparse and partial; one copy is sharded by {k: 1}
over two shards (chunks split and balanced), with collated indexes too.
Documents are inserted before and after the indexes are built, and some
replaced.

Each case: a random filter, optional sort, skip, limit and hint, and a
collation: none, "simple", exactly one of the indexes' (as written, or
spelled another way: fields reordered, defaults written out, the version),
or a random one. It checks that
  - the collection without indexes gives the model's answer (the ids in
    order when sorted, as a set when not), and count(*) the model's count;
  - every other copy gives the same ids, count(*) and doc_explain n, and
    the same documents for projections of indexed fields;
  - now and then, doc_distinct gives the model's classes, on every copy.
Halfway, updates under collations (doc_update_many, and doc_update_one
with a sort) of strings and arrays that the collated indexes hold must
match and modify what the model says; at the end, deletes under
collations (doc_delete_many, and doc_find_and_modify with a sort and
remove) must remove what it says, every copy must hold the model's
documents, and doc_check must be "ok" on each (and on each shard's part).
A fixed set of cases with answers written out comes first (en strength 2
and 1, numericOrdering, shifted, sv, fr_CA, backwards, caseFirst, caseLevel,
tr, ß, canonical equivalence, $regex, arrays and documents, the indexes a
query of a collation uses, a unique collated index, invalid collations).
It reports how often a collated index served a query of its own collation
(doc_explain's cursor), and fails if none did.
The last line is "N passed, M failed"; the exit status is non-zero if M > 0.
"""
import functools
import json
import os
import random
import re
import sqlite3
import sys

import icu

SO = os.environ.get("DOCEXT_SO", "./docext")

A = icu.UCollAttribute
V = icu.UCollAttributeValue

LOCALES = ["en", "fr", "fr_CA", "de", "sv", "en_US", "es", "tr", "da"]

# Stored strings: each group is equal under some collation and different
# under another.
DATA_STRINGS = [
    "apple", "Apple", "APPLE", "\u00e4pple", "\u00c4pple", "apfel",
    "e", "E", "\u00e9", "\u00c9", "\u00e8", "\u00ea", "e\u0301", "E\u0301",
    "a", "A", "\u00e4", "\u00e5", "\u00c5", "\u00f6", "o", "z", "Z", "b", "B",
    "\u00df", "ss", "SS", "Ss", "\ufb01", "fi", "FI",
    "\u0131", "i", "I", "\u0130", "\u0131s", "Is", "is",
    "a2", "a10", "a9", "A10", "a02", "2", "10",
    "a-b", "a b", "ab", "Ab", "a_b", "a.b", "-", " ",
    "cote", "c\u00f4te", "cot\u00e9", "c\u00f4t\u00e9",
    "", "\uff41", "\u01c6", "d\u017e",
    "\U0001d49c", "\U0001f600", "\u304b", "\u30ab", "\uff76",
    "\u1ead", "a\u0323\u0302", "a\u0302\u0323",
    # sort keys longer than 64 bytes (ICU writes them in parts)
    "apple" * 14, "Apple" * 14, "apple" * 13 + "\u00e4pple", "x" * 60 + "a", "x" * 60 + "A",
    "x" * 60 + "\u00e1", "a" + "9" * 30, "a1" + "0" * 30, "c\u00f4t\u00e9 " * 10, "cote " * 10,
]
# Operands only: other spellings of the same words.
QUERY_STRINGS = ["aPPle", "\u00c4PPLE", "AB", "A-B", "a1", "A2", "SS", "\u1e9e", "COTE",
                 "C\u00d4TE", "\u00c5", "O", "y", "\u00e0", "a\u0308pple", "ISS",
                 "APPLE" * 14, "x" * 60 + "\u00c1", "a" + "9" * 29, "a\u0323\u0302"[::-1]]
NUMS = [0, 1, 2, 2.5, -1, 10, 1.0]

REGEXES = ["^a", "^A", "^ap", "^\u00e4", "\u00e9", "^\u00c9", "e$", "^a.b$", "^$", "ss",
           "^c.te$", "b", "^[aA]\\d"]


class Sym(str):
    """A BSON symbol: compares as a string (MongoDB's canonical type)."""


class Missing:
    def __repr__(self):
        return "MISSING"


MISSING = Missing()
EMPTY = object()        # a sort key: an empty array, before null


def ejson(v):
    """v as the Extended JSON that docext reads."""
    if isinstance(v, Sym):
        return {"$symbol": str(v)}
    if isinstance(v, dict):
        return {k: ejson(x) for k, x in v.items()}
    if isinstance(v, list):
        return [ejson(x) for x in v]
    return v


def dumps(v):
    return json.dumps(ejson(v), ensure_ascii=False)


# ---------------------------------------------------------------------------
# Collations: MongoDB's collation documents onto ICU collators.

STRENGTH = {1: V.PRIMARY, 2: V.SECONDARY, 3: V.TERTIARY, 4: V.QUATERNARY, 5: V.IDENTICAL}
CASE_FIRST = {"upper": V.UPPER_FIRST, "lower": V.LOWER_FIRST, "off": V.OFF}
ALTERNATE = {"shifted": V.SHIFTED, "non-ignorable": V.NON_IGNORABLE}
BOOLS = {"caseLevel": A.CASE_LEVEL, "numericOrdering": A.NUMERIC_COLLATION,
         "normalization": A.NORMALIZATION_MODE, "backwards": A.FRENCH_COLLATION}
ICU_VERSION = icu.ICU_VERSION    # (docext's, read from an index's spec, in main)

# Locales whose collator PyICU can rebuild from its rules (for maxVariable
# "space", which PyICU cannot set otherwise): found at startup.
SPACE_OK = set()


def icu_collator(spec):
    loc = spec["locale"]
    if spec.get("maxVariable") == "space":
        base = icu.Collator.createInstance(icu.Locale(loc))
        c = icu.RuleBasedCollator(base.getRules() + " [maxVariable space]")
    else:
        c = icu.Collator.createInstance(icu.Locale(loc))
    for k, v in spec.items():
        if k == "strength":
            c.setAttribute(A.STRENGTH, STRENGTH[v])
        elif k == "caseFirst":
            c.setAttribute(A.CASE_FIRST, CASE_FIRST[v])
        elif k == "alternate":
            c.setAttribute(A.ALTERNATE_HANDLING, ALTERNATE[v])
        elif k in BOOLS:
            c.setAttribute(BOOLS[k], V.ON if v else V.OFF)
    return c


def check_rebuild():
    """Which locales RuleBasedCollator(rules) rebuilds exactly (on the pool)."""
    words = sorted(set(DATA_STRINGS + QUERY_STRINGS))
    for loc in LOCALES:
        base = icu.Collator.createInstance(icu.Locale(loc))
        try:
            rb = icu.RuleBasedCollator(base.getRules())
        except icu.ICUError:
            continue
        if all(base.getSortKey(w) == rb.getSortKey(w) for w in words):
            SPACE_OK.add(loc)


def spec_key(spec):
    """The collation a spec means, as MongoDB fills it in (None: simple)."""
    if spec is None or spec.get("locale") == "simple":
        return None
    c = icu_collator(spec)
    st = {v: k for k, v in STRENGTH.items()}[c.getAttribute(A.STRENGTH)]
    cf = {v: k for k, v in CASE_FIRST.items()}[c.getAttribute(A.CASE_FIRST)]
    al = {v: k for k, v in ALTERNATE.items()}[c.getAttribute(A.ALTERNATE_HANDLING)]
    full = {"locale": spec["locale"], "caseLevel": c.getAttribute(A.CASE_LEVEL) == V.ON,
            "caseFirst": cf, "strength": st,
            "numericOrdering": c.getAttribute(A.NUMERIC_COLLATION) == V.ON,
            "alternate": al, "maxVariable": spec.get("maxVariable", "punct"),
            "normalization": c.getAttribute(A.NORMALIZATION_MODE) == V.ON,
            "backwards": c.getAttribute(A.FRENCH_COLLATION) == V.ON}
    return tuple(full.items())


class Coll:
    """A collation of the model: sort keys of strings, cached."""

    def __init__(self, spec):
        self.icu = icu_collator(spec)
        self.cache = {}

    def key(self, s):
        k = self.cache.get(s)
        if k is None:
            k = self.cache[s] = self.icu.getSortKey(s)
        return k


_colls = {}


def model_coll(spec):
    k = spec_key(spec)
    if k is None:
        return None
    if k not in _colls:
        _colls[k] = Coll(dict(k))
    return _colls[k]


def random_spec(rnd):
    loc = rnd.choice(LOCALES)
    spec = {"locale": loc}
    if rnd.random() < 0.6:
        spec["strength"] = rnd.choice([1, 1, 2, 2, 3, 4, 5])
    if rnd.random() < 0.25:
        spec["caseLevel"] = rnd.random() < 0.5
    if rnd.random() < 0.25:
        spec["caseFirst"] = rnd.choice(["upper", "lower", "off"])
    if rnd.random() < 0.3:
        spec["numericOrdering"] = rnd.random() < 0.7
    if rnd.random() < 0.3:
        spec["alternate"] = rnd.choice(["shifted", "shifted", "non-ignorable"])
        if rnd.random() < 0.4:
            spec["maxVariable"] = "space" if loc in SPACE_OK and rnd.random() < 0.6 else "punct"
    if rnd.random() < 0.15:
        spec["normalization"] = rnd.random() < 0.5
    if rnd.random() < 0.2:
        spec["backwards"] = rnd.random() < 0.5
    return spec


def respell(rnd, spec):
    """The same collation written another way: the fields in another order,
    some defaults written out, the version."""
    full = dict(spec_key(spec))
    out = dict(spec)
    for k, v in full.items():
        if k not in out and rnd.random() < 0.4:
            out[k] = v
    if rnd.random() < 0.3:
        out["version"] = ICU_VERSION
    items = list(out.items())
    rnd.shuffle(items)
    return dict(items)


# ---------------------------------------------------------------------------
# The model: MongoDB's comparison, matching and sorting.

def rank(v):
    if v is EMPTY:
        return 0
    if v is None or v is MISSING:
        return 1
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return 2
    if isinstance(v, str):
        return 3
    if isinstance(v, dict):
        return 4
    if isinstance(v, list):
        return 5
    raise TypeError(repr(v))


def cmp(a, b, coll):
    ra, rb = rank(a), rank(b)
    if ra != rb:
        return -1 if ra < rb else 1
    if ra == 2:
        return (a > b) - (a < b)
    if ra == 3:
        if coll is None:
            # code point order is UTF-8's byte order
            return (a > b) - (a < b)
        ka, kb = coll.key(a), coll.key(b)
        return (ka > kb) - (ka < kb)
    if ra == 4:
        ia, ib = list(a.items()), list(b.items())
        for (na, va), (nb, vb) in zip(ia, ib):
            c = (rank(va) > rank(vb)) - (rank(va) < rank(vb))
            if c:
                return c
            c = (na > nb) - (na < nb)
            if c:
                return c
            c = cmp(va, vb, coll)
            if c:
                return c
        return (len(ia) > len(ib)) - (len(ia) < len(ib))
    if ra == 5:
        for va, vb in zip(a, b):
            c = cmp(va, vb, coll)
            if c:
                return c
        return (len(a) > len(b)) - (len(a) < len(b))
    return 0


def get_path(doc, path):
    v = doc
    for p in path.split("."):
        if isinstance(v, dict) and p in v:
            v = v[p]
        else:
            return MISSING
    return v


def eq1(e, v, coll):
    """One value (no array expansion) equals v."""
    if e is MISSING:
        return v is None
    return rank(e) == rank(v) and cmp(e, v, coll) == 0


def eq(x, v, coll):
    if eq1(x, v, coll):
        return True
    return isinstance(x, list) and any(eq1(e, v, coll) for e in x)


OPS = {"$gt": lambda c: c > 0, "$gte": lambda c: c >= 0,
       "$lt": lambda c: c < 0, "$lte": lambda c: c <= 0}


def cmp1(e, op, v, coll):
    if e is MISSING:
        e = None
    return rank(e) == rank(v) and OPS[op](cmp(e, v, coll))


def regex1(e, pat, opts):
    if not isinstance(e, str):
        return False
    return re.search(pat, e, re.IGNORECASE if "i" in opts else 0) is not None


def elem_ok(e, op, v, coll):
    if op == "$eq":
        return eq1(e, v, coll)
    if op == "$ne":
        return not eq1(e, v, coll)
    if op in OPS:
        return cmp1(e, op, v, coll)
    if op == "$in":
        return any(eq1(e, w, coll) for w in v)
    raise ValueError(op)


def is_ops(c):
    return isinstance(c, dict) and c and next(iter(c)).startswith("$")


def cond_ok(x, c, coll):
    if not is_ops(c):
        return eq(x, c, coll)
    for op, v in c.items():
        if op == "$eq":
            ok = eq(x, v, coll)
        elif op == "$ne":
            ok = not eq(x, v, coll)
        elif op in OPS:
            ok = cmp1(x, op, v, coll) or (isinstance(x, list) and
                                          any(cmp1(e, op, v, coll) for e in x))
        elif op == "$in":
            ok = any(eq(x, w, coll) for w in v)
        elif op == "$nin":
            ok = not any(eq(x, w, coll) for w in v)
        elif op == "$all":
            ok = bool(v) and all(eq(x, w, coll) for w in v)
        elif op == "$elemMatch":
            ok = isinstance(x, list) and any(
                all(elem_ok(e, o, w, coll) for o, w in v.items()) for e in x)
        elif op == "$regex":
            opts = c.get("$options", "")
            ok = regex1(x, v, opts) or (isinstance(x, list) and any(regex1(e, v, opts) for e in x))
        elif op == "$options":
            ok = True
        elif op == "$exists":
            ok = (x is not MISSING) == v
        elif op == "$not":
            ok = not cond_ok(x, v, coll)
        elif op == "$type":         # ("array" only)
            ok = isinstance(x, list)
        else:
            raise ValueError(op)
        if not ok:
            return False
    return True


def multi_ok(vals, c, coll):
    """A condition on a path through an array of documents (g.x): the values
    it reaches (no null operands)."""
    if not is_ops(c):
        return any(eq(v, c, coll) for v in vals)
    for op, w in c.items():
        if op == "$eq":
            ok = any(eq(v, w, coll) for v in vals)
        elif op == "$ne":
            ok = not any(eq(v, w, coll) for v in vals)
        elif op in OPS:
            ok = any(cmp1(v, op, w, coll) for v in vals)
        elif op == "$in":
            ok = any(eq(v, x, coll) for v in vals for x in w)
        elif op == "$nin":
            ok = not any(eq(v, x, coll) for v in vals for x in w)
        elif op == "$all":
            ok = bool(w) and all(any(eq(v, x, coll) for v in vals) for x in w)
        elif op == "$regex":
            ok = any(regex1(v, w, c.get("$options", "")) for v in vals)
        elif op == "$options":
            ok = True
        elif op == "$not":
            ok = not multi_ok(vals, w, coll)
        else:
            raise ValueError(op)
        if not ok:
            return False
    return True


def expr_ok(doc, e, coll):
    (op, (a, b)), = e.items()
    a, b = [get_path(doc, x[1:]) if isinstance(x, str) and x.startswith("$") else x for x in (a, b)]
    if a is MISSING or b is MISSING:
        c = 0 if a is b else -1 if a is MISSING else 1
    else:
        c = cmp(a, b, coll)
    return {"$eq": c == 0, "$ne": c != 0, "$gt": c > 0, "$gte": c >= 0,
            "$lt": c < 0, "$lte": c <= 0}[op]


def match(doc, f, coll):
    for k, c in f.items():
        if k == "$expr":
            ok = expr_ok(doc, c, coll)
        elif k == "$and":
            ok = all(match(doc, g, coll) for g in c)
        elif k == "$or":
            ok = any(match(doc, g, coll) for g in c)
        elif k == "$nor":
            ok = not any(match(doc, g, coll) for g in c)
        elif k == "g.x":
            g = doc.get("g")
            els = g if isinstance(g, list) else [g]
            ok = multi_ok([e["x"] for e in els if isinstance(e, dict) and "x" in e], c, coll)
        elif k == "g" and isinstance(c, dict) and "$elemMatch" in c:
            g = doc.get("g")
            ok = isinstance(g, list) and any(isinstance(e, dict) and match(e, c["$elemMatch"], coll)
                                             for e in g)
        else:
            ok = cond_ok(get_path(doc, k), c, coll)
        if not ok:
            return False
    return True


def sort_value(x, direction, coll):
    if x is MISSING:
        return None
    if isinstance(x, list):
        if not x:
            return EMPTY
        best = x[0]
        for e in x[1:]:
            c = cmp(e, best, coll)
            if (c < 0 and direction > 0) or (c > 0 and direction < 0):
                best = e
        return best
    return x


def model_find(docs, f, sort, skip, limit, coll):
    hits = [d for d in docs if match(d, f, coll)]
    if sort:
        keys = {id(d): [sort_value(get_path(d, p), dr, coll) for p, dr in sort.items()]
                for d in hits}
        dirs = list(sort.values())

        def order(a, b):
            for va, vb, dr in zip(keys[id(a)], keys[id(b)], dirs):
                c = cmp(va, vb, coll)
                if c:
                    return c * dr
            return 0
        hits.sort(key=functools.cmp_to_key(order))
    ids = [d["_id"] for d in hits]
    n = len(ids)
    if sort:
        ids = ids[skip:]
        if limit:
            ids = ids[:limit]
    return ids, n


# ---------------------------------------------------------------------------
# Random data and queries.

def rstr(rnd):
    return rnd.choice(DATA_STRINGS)


def qstr(rnd):
    return rnd.choice(DATA_STRINGS) if rnd.random() < 0.8 else rnd.choice(QUERY_STRINGS)


def element(rnd):
    r = rnd.random()
    if r < 0.85:
        return rstr(rnd)
    if r < 0.92:
        return rnd.choice(NUMS)
    if r < 0.96:
        return None
    return Sym(rstr(rnd))


def document(rnd, i):
    # k: always a string (the sharded copy's shard key)
    d = {"_id": i, "k": rstr(rnd)}
    r = rnd.random()
    if r < 0.75:
        d["s"] = rstr(rnd)
    elif r < 0.82:
        d["s"] = rnd.choice(NUMS)
    elif r < 0.86:
        d["s"] = None
    elif r < 0.9:
        d["s"] = Sym(rstr(rnd))
    elif r < 0.93:
        d["s"] = {"x": rstr(rnd)}
    r = rnd.random()
    if r < 0.7:
        d["t"] = [element(rnd) for _ in range(rnd.randrange(4))]
    elif r < 0.8:
        d["t"] = rstr(rnd)
    elif r < 0.84:
        d["t"] = None
    r = rnd.random()
    if r < 0.6:
        d["d"] = {"x": rstr(rnd)}
    elif r < 0.7:
        d["d"] = {"x": rstr(rnd), "y": rstr(rnd)}
    elif r < 0.75:
        d["d"] = {"y": rstr(rnd), "x": rstr(rnd)}
    elif r < 0.8:
        d["d"] = {"x": rnd.choice(NUMS)}
    elif r < 0.84:
        d["d"] = rstr(rnd)
    elif r < 0.87:
        d["d"] = {}
    elif r < 0.9:
        d["d"] = {"x": None}
    # g: an array of documents (or one), whose x and y a path reaches
    r = rnd.random()
    el = lambda: {k: rstr(rnd) for k in ("x", "y") if rnd.random() < (0.9 if k == "x" else 0.7)}
    if r < 0.45:
        d["g"] = [el() if rnd.random() < 0.9 else rstr(rnd) for _ in range(rnd.randrange(4))]
    elif r < 0.55:
        d["g"] = el()
    return d


def operand(rnd, path):
    r = rnd.random()
    if path in ("s", "d.x", "k"):
        if r < 0.8:
            return qstr(rnd)
        if r < 0.88:
            return rnd.choice(NUMS)
        if r < 0.94:
            return None
        if r < 0.97:
            return Sym(qstr(rnd))
        return {"x": qstr(rnd)}
    if path == "t":
        if r < 0.7:
            return qstr(rnd)
        if r < 0.85:
            return [qstr(rnd) for _ in range(1 + rnd.randrange(3))]
        if r < 0.9:
            return None
        if r < 0.95:
            return rnd.choice(NUMS)
        return []
    if path == "d":
        if r < 0.7:
            return {"x": qstr(rnd)}
        if r < 0.85:
            return {"x": qstr(rnd), "y": qstr(rnd)}
        if r < 0.92:
            return None
        return qstr(rnd)
    if path == "g.x":
        # (never null: which documents a null reaches through arrays is
        # another subject)
        return qstr(rnd) if r < 0.85 else rnd.choice(NUMS)
    if ID_HOOK[0]:                   # _id of a collection with string _ids
        return ID_HOOK[0](rnd)
    return rnd.randrange(1, 50)      # _id


PATHS = ["s", "s", "s", "t", "t", "d.x", "d.x", "d", "k", "g.x", "_id"]

# When set (to a function of rnd), _id operands are drawn from it: the
# collections with a default collation have string _ids.
ID_HOOK = [None]


def cond(rnd, path, depth=0):
    r = rnd.randrange(20)
    if r < 6:
        return operand(rnd, path)
    if r == 6:
        return {"$eq": operand(rnd, path)}
    if r == 7:
        return {"$ne": operand(rnd, path)}
    if r in (8, 9, 10):
        c = {rnd.choice(["$gt", "$gte", "$lt", "$lte"]): operand(rnd, path)}
        if rnd.random() < 0.5:
            c[rnd.choice(["$gt", "$gte", "$lt", "$lte"])] = operand(rnd, path)
        return c
    if r in (11, 12):
        return {"$in": [operand(rnd, path) for _ in range(rnd.randrange(5))]}
    if r == 13:
        return {"$nin": [operand(rnd, path) for _ in range(rnd.randrange(3))]}
    if r == 14:
        if path == "t":
            return {"$all": [qstr(rnd) for _ in range(1 + rnd.randrange(2))]}
        return {"$all": [operand(rnd, path)]}
    if r == 15 and path == "g.x":
        return operand(rnd, path)
    if r == 15:
        if path == "t":
            c = {}
            for _ in range(1 + rnd.randrange(2)):
                op = rnd.choice(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in"])
                c[op] = [qstr(rnd) for _ in range(1 + rnd.randrange(3))] if op == "$in" else qstr(rnd)
            return {"$elemMatch": c}
        return {"$exists": rnd.random() < 0.5}
    if r == 16:
        c = {"$regex": rnd.choice(REGEXES)}
        if rnd.random() < 0.4:
            c["$options"] = "i"
        return c
    if r == 17 and depth == 0:
        inner = cond(rnd, path, 1)
        if not is_ops(inner) or "$regex" in inner:
            inner = {"$eq": operand(rnd, path)}
        return {"$not": inner}
    if path == "_id" and ID_HOOK[0]:
        return {rnd.choice(["$gt", "$gte", "$lt", "$lte"]): ID_HOOK[0](rnd)}
    return {rnd.choice(["$gte", "$lte"]): qstr(rnd)} if path != "_id" else {"$lte": rnd.randrange(50)}


EXPR_OPS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]


def filt(rnd, depth=0):
    f = {}
    for _ in range(1 + (rnd.random() < 0.3)):
        r = rnd.random()
        if depth == 0 and r < 0.1:
            f["$or"] = [filt(rnd, 1) for _ in range(1 + rnd.randrange(3))]
        elif depth == 0 and r < 0.14:
            f["$and"] = [filt(rnd, 1) for _ in range(1 + rnd.randrange(2))]
        elif depth == 0 and r < 0.17:
            f["$nor"] = [filt(rnd, 1)]
        elif r < 0.22:
            # $expr compares whole values (no array expansion; missing is
            # below null), strings as the collation says
            p = rnd.choice(["s", "s", "t", "d.x", "d"])
            v = operand(rnd, p)
            while isinstance(v, Sym):
                v = operand(rnd, p)
            args = ["$" + p, v]
            if rnd.random() < 0.3:
                args.reverse()
            f["$expr"] = {rnd.choice(EXPR_OPS): args}
        elif r < 0.26:
            # one element of g: the bounds of {g.x: 1, g.y: 1} compound
            inner = {"x": cond(rnd, "s", 1)}
            if rnd.random() < 0.7:
                inner["y"] = cond(rnd, "s", 1)
            f["g"] = {"$elemMatch": inner}
        else:
            p = rnd.choice(PATHS)
            f[p] = cond(rnd, p)
    return f


SORTS = [None, None, {"s": 1, "_id": 1}, {"s": -1, "_id": 1}, {"s": 1, "_id": -1},
         {"d.x": 1, "_id": 1}, {"d.x": -1, "_id": -1}, {"t": 1, "_id": 1}, {"t": -1, "_id": 1},
         {"d": 1, "_id": 1}, {"s": 1, "d.x": -1, "_id": 1}, {"_id": -1},
         {"k": 1, "_id": 1}, {"k": -1, "_id": -1}]

PROJS = [{"s": 1, "_id": 0}, {"s": 1}, {"d.x": 1, "_id": 0}, {"t": 1, "_id": 0},
         {"d": 1, "_id": 0}, {"s": 1, "d.x": 1, "_id": 0}]

# The collations of the indexes below (and of queries that should use them).
EN2 = {"locale": "en", "strength": 2}
FR1 = {"locale": "fr", "strength": 1}
SV1 = {"locale": "sv", "strength": 1, "caseLevel": True}
NUM = {"locale": "en", "numericOrdering": True}
SHIFT = {"locale": "en", "alternate": "shifted"}
FRCA = {"locale": "fr_CA"}


def index_sets(r1, r2):
    """Per copy: (name, keys, collation or None, other options)."""
    return {
        "simple": [("s_1", {"s": 1}, None, {}), ("t_1", {"t": 1}, None, {}), ("k_1", {"k": 1}, None, {}),
                   ("gx_gy", {"g.x": 1, "g.y": 1}, None, {}),
                   ("dx_1", {"d.x": 1}, None, {}), ("s_id", {"s": 1, "_id": 1}, None, {}),
                   ("d_1", {"d": 1}, None, {})],
        "en2": [("s_en2", {"s": 1}, EN2, {}), ("t_en2", {"t": 1}, EN2, {}), ("k_en2", {"k": 1}, EN2, {}),
                ("gx_gy_en2", {"g.x": 1, "g.y": 1}, EN2, {}), ("gy_en2", {"g.y": -1}, EN2, {}),
                ("dx_en2", {"d.x": 1}, EN2, {}), ("d_en2", {"d": 1}, EN2, {}),
                ("s_id_en2", {"s": 1, "_id": 1}, EN2, {})],
        "multi": [("s_1", {"s": 1}, None, {}), ("s_en2", {"s": 1}, EN2, {}),
                  ("s_fr1", {"s": 1}, FR1, {}), ("s_num", {"s": -1}, NUM, {}),
                  ("s_id_shift", {"s": 1, "_id": 1}, SHIFT, {}), ("t_fr1", {"t": 1}, FR1, {}),
                  ("dx_sv1", {"d.x": -1}, SV1, {}), ("s_h_en2", {"s": "hashed"}, EN2, {}),
                  ("gx_fr1", {"g.x": 1}, FR1, {}), ("gx_gy_num", {"g.x": 1, "g.y": 1}, NUM, {})],
        "rand": [("s_r1", {"s": 1}, r1, {}), ("s_id_r1", {"s": 1, "_id": 1}, r1, {}),
                 ("t_r1", {"t": 1}, r1, {}), ("dx_r2", {"d.x": 1}, r2, {}),
                 ("s_r2", {"s": 1}, r2, {}), ("d_r1", {"d": 1}, r1, {}),
                 ("s_dx_r2", {"s": 1, "d.x": 1}, r2, {}), ("gx_gy_r1", {"g.x": 1, "g.y": -1}, r1, {}),
                 ("gx_r2", {"g.x": 1}, r2, {})],
        "special": [("t_en2_sp", {"t": 1}, EN2, {"sparse": True}),
                    ("dx_en2_pf", {"d.x": 1}, EN2,
                     {"partialFilterExpression": {"d.x": {"$gte": "b"}}}),
                    ("s_frca", {"s": 1}, FRCA, {}), ("s_id_num", {"s": 1, "_id": -1}, NUM, {}),
                    ("s_h_fr1", {"s": "hashed"}, FR1, {}), ("d_sv1", {"d": -1}, SV1, {})],
        # sharded by {k: 1} over two shards (its index k_1 comes with it)
        "sharded": [("k_en2", {"k": 1}, EN2, {}), ("dx_en2", {"d.x": 1}, EN2, {}),
                    ("s_fr1", {"s": 1}, FR1, {}), ("k_r2", {"k": 1, "_id": 1}, r2, {}),
                    ("s_id_r1", {"s": 1, "_id": 1}, r1, {}), ("t_en2", {"t": 1}, EN2, {})],
    }


INCOMPLETE = {"t_en2_sp", "dx_en2_pf"}      # never hinted: they lack documents


# ---------------------------------------------------------------------------
# Fixed cases with their answers written out.

FIXED_DOCS = [
    {"_id": 1, "s": "apple"}, {"_id": 2, "s": "Apple"}, {"_id": 3, "s": "\u00e4pple"},
    {"_id": 4, "s": "a10"}, {"_id": 5, "s": "a2"}, {"_id": 6, "s": "a9"},
    {"_id": 7, "s": "ab"}, {"_id": 8, "s": "a-b"}, {"_id": 9, "s": "a b"},
    {"_id": 10, "s": "\u00e5"}, {"_id": 11, "s": "\u00e4"}, {"_id": 12, "s": "\u00f6"},
    {"_id": 13, "s": "z"}, {"_id": 14, "s": "o"},
    {"_id": 15, "s": "cote"}, {"_id": 16, "s": "c\u00f4te"}, {"_id": 17, "s": "cot\u00e9"},
    {"_id": 18, "s": "c\u00f4t\u00e9"},
    {"_id": 19, "s": "\u00df"}, {"_id": 20, "s": "ss"}, {"_id": 21, "s": "A"}, {"_id": 22, "s": "a"},
    {"_id": 23, "s": "\u0131"}, {"_id": 24, "s": "I"}, {"_id": 25, "s": "i"}, {"_id": 26, "s": "\u0130"},
    {"_id": 27, "t": ["apple", "x"], "d": {"x": "apple"}},
    {"_id": 28, "s": "\u00e9"}, {"_id": 29, "s": "e\u0301"},
]


def C(**kw):
    return {"collation": kw}


# (filter, sort, options, expected ids: in order when sorted)
FIXED = [
    ({"s": "apple"}, None, C(locale="en", strength=2), [1, 2]),
    ({"s": "apple"}, None, C(locale="en", strength=1), [1, 2, 3]),
    ({"s": "apple"}, None, C(locale="en"), [1]),
    ({"s": "APPLE"}, None, C(locale="en", strength=3), []),
    ({"s": "apple"}, None, None, [1]),
    ({"s": "apple"}, None, C(locale="simple"), [1]),
    ({"s": {"$in": ["APPLE", "zz"]}}, None, C(locale="en", strength=2), [1, 2]),
    ({"s": {"$nin": ["APPLE", "zz"]}, "_id": {"$lte": 3}}, None, C(locale="en", strength=2), [3]),
    ({"s": {"$ne": "APPLE"}, "_id": {"$lte": 3}}, None, C(locale="en", strength=1), []),
    ({"s": {"$in": ["a10", "a2", "a9"]}}, {"s": 1, "_id": 1}, C(locale="en", numericOrdering=True), [5, 6, 4]),
    ({"s": {"$in": ["a10", "a2", "a9"]}}, {"s": 1, "_id": 1}, C(locale="en"), [4, 5, 6]),
    ({"s": {"$in": ["a10", "a2", "a9"]}}, {"s": 1, "_id": 1}, None, [4, 5, 6]),
    ({"s": {"$gt": "a3", "$lt": "a99"}}, None, C(locale="en", numericOrdering=True), [4, 6]),
    ({"s": "ab"}, None, C(locale="en", alternate="shifted"), [7, 8, 9]),
    ({"s": "ab"}, None, C(locale="en", alternate="shifted", strength=4), [7]),
    ({"s": "ab"}, None, C(locale="en"), [7]),
    ({"s": {"$gt": "z"}}, {"s": 1, "_id": 1}, C(locale="sv"), [10, 11, 3, 12]),
    ({"s": {"$gt": "z"}, "_id": {"$gte": 10, "$lte": 14}}, None, C(locale="en"), []),
    ({"_id": {"$gte": 15, "$lte": 18}}, {"s": 1, "_id": 1}, C(locale="fr_CA"), [15, 16, 17, 18]),
    ({"_id": {"$gte": 15, "$lte": 18}}, {"s": 1, "_id": 1}, C(locale="en"), [15, 17, 16, 18]),
    ({"_id": {"$gte": 15, "$lte": 18}}, {"s": 1, "_id": 1}, C(locale="en", backwards=True), [15, 16, 17, 18]),
    ({"s": "ss"}, None, C(locale="de", strength=1), [19, 20]),
    ({"s": "ss"}, None, C(locale="de"), [20]),
    ({"s": {"$in": ["a", "A"]}}, {"s": 1, "_id": 1}, C(locale="en", caseFirst="upper"), [21, 22]),
    ({"s": {"$in": ["a", "A"]}}, {"s": 1, "_id": 1}, C(locale="en", caseFirst="lower"), [22, 21]),
    ({"s": {"$in": ["a", "A"]}}, {"s": 1, "_id": 1}, None, [21, 22]),
    ({"s": "a"}, None, C(locale="en", strength=1, caseLevel=True), [10, 11, 22]),
    ({"s": "A"}, None, C(locale="en", strength=1, caseLevel=True), [21]),
    ({"s": "I"}, None, C(locale="tr", strength=2), [23, 24]),
    ({"s": "i"}, None, C(locale="tr", strength=2), [25, 26]),
    ({"s": "i"}, None, C(locale="en", strength=2), [24, 25]),
    ({"s": {"$regex": "^apple$"}}, None, C(locale="en", strength=1), [1]),
    ({"s": {"$regex": "^a", "$options": "i"}, "_id": {"$lte": 3}}, None, C(locale="en", strength=1), [1, 2]),
    ({"t": ["APPLE", "X"]}, None, C(locale="en", strength=2), [27]),
    ({"t": ["APPLE", "X"]}, None, None, []),
    ({"t": "\u00c4PPLE"}, None, C(locale="en", strength=1), [27]),
    ({"d": {"x": "APPLE"}}, None, C(locale="en", strength=2), [27]),
    ({"d.x": {"$gte": "APPLE", "$lte": "APPLE"}}, None, C(locale="en", strength=2), [27]),
    ({"t": {"$elemMatch": {"$eq": "X"}}}, None, C(locale="en", strength=2), [27]),
    ({"s": "\u00e9"}, None, C(locale="en"), [28, 29]),
    ({"s": "\u00e9"}, None, C(locale="en", strength=5), [28, 29]),
    ({"s": "\u00e9"}, None, None, [28]),
]

# (options, the start of the expected error)
FIXED_ERRORS = [
    ({"collation": {"locale": "en-US"}}, "docext: collation: field 'locale' is invalid"),
    ({"collation": {"locale": "simple", "strength": 2}}, "docext: collation:"),
    ({"collation": {"strength": 2}}, "docext: collation: field 'locale' is required"),
    ({"collation": {"locale": "en", "strength": 6}}, "docext: collation: field 'strength'"),
    ({"collation": {"locale": "en", "caseFirst": "up"}}, "docext: collation: field 'caseFirst'"),
    ({"collation": {"locale": "en", "colour": 1}}, "docext: collation: unknown field"),
    ({"collation": {"locale": "en", "version": "1.0"}}, "docext: collation:"),
    ({"collation": "en"}, "docext: collation must be a document"),
]


def run_fixed(db, verbose):
    passed = failed = 0

    def bad(msg):
        nonlocal failed
        failed += 1
        print("FAIL fixed:", msg)

    for name, indexes in (("fx", []),
                          ("fxi", [("s_en2", {"s": 1}, EN2), ("s_en1", {"s": 1}, {"locale": "en", "strength": 1}),
                                      ("s_num", {"s": 1, "_id": 1}, NUM), ("t_en2", {"t": 1}, EN2),
                                      ("dx_en2", {"d.x": 1}, EN2), ("s_1", {"s": 1}, None)])):
        db.execute(f"CREATE VIRTUAL TABLE {name} USING docext")
        for d in FIXED_DOCS:
            db.execute(f"INSERT INTO {name}(doc) VALUES (?)", (dumps(d),))
        for iname, keys, coll in indexes:
            o = {"name": iname}
            if coll:
                o["collation"] = coll
            db.execute("SELECT doc_create_index(?, ?, ?)", (name, json.dumps(keys), json.dumps(o)))
        for f, sort, opts, want in FIXED:
            args = (json.dumps(f), json.dumps(sort) if sort else None,
                    json.dumps(opts) if opts else None)
            try:
                got = [r[0] for r in db.execute(f"SELECT _id FROM {name}(?, NULL, ?, ?)", args)]
            except sqlite3.Error as e:
                got = f"error: {e}"
            if isinstance(got, list) and not sort:
                got.sort()
            # the model must agree with the answers written out, too
            coll = model_coll(opts["collation"]) if opts else None
            mod, _ = model_find([json_to_model(d) for d in FIXED_DOCS], f, sort, 0, 0, coll)
            if not sort:
                mod.sort()
            if got != want:
                bad(f"{name}: filter {dumps(f)} sort {sort} options {json.dumps(opts)}:"
                    f" want {want} got {got}")
            elif mod != want:
                bad(f"model: filter {dumps(f)} sort {sort} options {json.dumps(opts)}:"
                    f" want {want} model {mod}")
            else:
                passed += 1
        for opts, want in FIXED_ERRORS:
            try:
                got = db.execute(f"SELECT _id FROM {name}('{{}}', NULL, NULL, ?)",
                                 (json.dumps(opts),)).fetchall()
                got = f"no error: {got}"
            except sqlite3.Error as e:
                got = str(e)
            if got.startswith(want):
                passed += 1
            else:
                bad(f"{name}: options {json.dumps(opts)}: want an error {want!r}, got {got!r}")

    # A query of an index's collation uses it; a query of another does not
    # bound it by strings.
    for f, opts, want in (({"s": "APPLE"}, C(locale="en", strength=2), "BtreeCursor s_en2"),
                          ({"s": "APPLE"}, C(strength=2, locale="en", caseLevel=False), "BtreeCursor s_en2"),
                          ({"s": "APPLE"}, C(locale="en", strength=1), "BtreeCursor s_en1"),
                          ({"s": "apple"}, None, "BtreeCursor s_1"),
                          ({"t": "X"}, C(locale="en", strength=2), "BtreeCursor t_en2"),
                          ({"d.x": {"$gt": "APPLD", "$lt": "APPLF"}}, C(locale="en", strength=2),
                           "BtreeCursor dx_en2")):
        e = json.loads(db.execute("SELECT doc_explain('fxi', ?, NULL, NULL, ?)",
                                  (json.dumps(f), json.dumps(opts) if opts else None)).fetchone()[0])
        if e["cursor"] == want:
            passed += 1
        else:
            bad(f"explain {dumps(f)} {opts}: want cursor {want!r}, got {e['cursor']!r}")
    e = json.loads(db.execute("SELECT doc_explain('fxi', '{\"s\": {\"$gte\": \"a\"}}', NULL, NULL,"
                              " '{\"collation\": {\"locale\": \"fr\"}}')").fetchone()[0])
    if "s_en" not in e["cursor"] or e.get("indexBounds", {}).get("s") != [["a", "a"]]:
        passed += 1
    else:
        bad(f"explain under fr used an en index with bounds: {e}")

    # A unique index under en strength 2: "APPLE" is a duplicate of "apple".
    db.execute("CREATE VIRTUAL TABLE fx_u USING docext")
    db.execute("SELECT doc_create_index('fx_u', '{\"s\": 1}', ?)",
               (json.dumps({"name": "s_u", "unique": True, "collation": EN2}),))
    db.execute("INSERT INTO fx_u(doc) VALUES ('{\"_id\": 1, \"s\": \"apple\"}')")
    try:
        db.execute("INSERT INTO fx_u(doc) VALUES ('{\"_id\": 2, \"s\": \"APPLE\"}')")
        bad("unique en strength 2 index took \"APPLE\" after \"apple\"")
    except sqlite3.Error as e:
        if "duplicate key" in str(e):
            passed += 1
        else:
            bad(f"unique: unexpected error {e}")
    try:
        db.execute("INSERT INTO fx_u(doc) VALUES ('{\"_id\": 3, \"s\": \"\u00e4pple\"}')")
        passed += 1
    except sqlite3.Error as e:
        bad(f"unique en strength 2 index refused \"\u00e4pple\": {e}")
    chk = db.execute("SELECT doc_check('fx_u')").fetchone()[0]
    if chk == "ok":
        passed += 1
    else:
        bad(f"doc_check(fx_u): {chk}")
    if verbose:
        print(f"fixed: {passed} passed, {failed} failed")
    return passed, failed


def json_to_model(v):
    if isinstance(v, dict):
        if len(v) == 1 and "$symbol" in v:
            return Sym(v["$symbol"])
        return {k: json_to_model(x) for k, x in v.items()}
    if isinstance(v, list):
        return [json_to_model(x) for x in v]
    return v


# ---------------------------------------------------------------------------

def random_update(rnd, k):
    """An update of the random phase: (update, the filter it adds or None).
    $pull and $addToSet only meet arrays and missing fields (else an error)."""
    arrays = {"$or": [{"t": {"$type": "array"}}, {"t": {"$exists": False}}]}
    r = rnd.randrange(6)
    if r == 0:
        return {"$set": {"m": k}}, None
    if r == 1:
        return {"$pull": {"t": qstr(rnd)}}, arrays
    if r == 2:
        c = {rnd.choice(["$gte", "$lte", "$eq", "$ne"]): qstr(rnd)}
        if rnd.random() < 0.3:
            c = {"$in": [qstr(rnd) for _ in range(1 + rnd.randrange(3))]}
        return {"$pull": {"t": c}}, arrays
    if r == 3:
        if rnd.random() < 0.5:
            return {"$addToSet": {"t": qstr(rnd)}}, arrays
        return {"$addToSet": {"t": {"$each": [qstr(rnd) for _ in range(1 + rnd.randrange(3))]}}}, arrays
    v = qstr(rnd) if rnd.random() < 0.85 else rnd.choice(NUMS)
    return {rnd.choice(["$min", "$max"]): {"s": v}}, None


def model_update(d, upd, coll):
    """The document d after upd under coll (a new one; d is left alone)."""
    d = json_to_model(ejson(d))
    (op, spec), = upd.items()
    (path, v), = spec.items()
    if op == "$set":
        d[path] = v
    elif op == "$pull":
        t = d.get(path, MISSING)
        if isinstance(t, list):
            if is_ops(v):
                d[path] = [e for e in t if not all(elem_ok(e, o, w, coll) for o, w in v.items())]
            else:
                d[path] = [e for e in t if not eq1(e, v, coll)]
    elif op == "$addToSet":
        t = list(d.get(path, []))
        for w in v["$each"] if isinstance(v, dict) and "$each" in v else [v]:
            if not any(eq1(e, w, coll) for e in t):
                t.append(w)
        d[path] = t
    else:
        old = d.get(path, MISSING)
        c = 1 if old is MISSING else cmp(v, old, coll)
        if old is MISSING or (op == "$max" and c > 0) or (op == "$min" and c < 0):
            d[path] = v
    return d


def distinct_check(got, docs, f, field, coll):
    """Is got (doc_distinct's answer) MongoDB's distinct of field: one value
    of each class of the matched documents' values (arrays' elements) that
    the collation holds equal? (Which value of a class comes is the first
    met, which depends on the order documents are read.) None if so, else
    why not."""
    vals = []
    for d in docs:
        if match(d, f, coll):
            x = get_path(d, field)
            if x is not MISSING:
                vals.extend(x if isinstance(x, list) else [x])
    classes = []
    for v in vals:
        if not any(cmp(v, c, coll) == 0 for c in classes):
            classes.append(v)
    if got[0] != "ok":
        return f"error {got[1]}"
    out = json_to_model(json.loads(got[1][0][0]))
    seen = {canon(v) for v in vals}
    if len(out) != len(classes):
        return f"{len(out)} values, the model {len(classes)}: {canon(classes)}"
    for i, o in enumerate(out):
        if canon(o) not in seen:
            return f"{canon(o)} is no value of a matched document"
        if any(cmp(o, p, coll) == 0 for p in out[:i]):
            return f"{canon(o)} twice (equal under the collation)"
    return None


def canon(d):
    return json.dumps(ejson(d), ensure_ascii=True)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    ncases = int(args[0]) if args else int(os.environ.get("DIFF_CASES", "2000"))
    seed = int(args[1]) if len(args) > 1 else int(os.environ.get("DIFF_SEED", "20250301"))
    rnd = random.Random(seed)
    check_rebuild()
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.enable_load_extension(True)
    db.load_extension(SO)
    passed, failed = run_fixed(db, verbose)
    shown = [0]

    def report(msg, lines=()):
        nonlocal failed
        failed += 1
        shown[0] += 1
        if verbose or shown[0] <= 30:
            print(msg)
            for ln in lines:
                print("   ", ln[:2000])

    def run(sql, params):
        try:
            return ("ok", db.execute(sql, params).fetchall())
        except sqlite3.Error as e:
            return ("error", str(e))

    stats = {}

    def bump(k):
        stats[k] = stats.get(k, 0) + 1

    r1, r2 = random_spec(rnd), random_spec(rnd)
    sets = index_sets(r1, r2)
    names = ["plain"] + list(sets)
    for name in names:
        db.execute(f"CREATE VIRTUAL TABLE {name} USING docext")
    shards = ["sh1", "sh2"]
    for sh in shards:
        db.execute(f"ATTACH ':memory:' AS {sh}")
        db.execute("SELECT doc_add_shard(?)", (sh,))
    db.execute("""SELECT doc_shard_collection('sharded', '{"k": 1}', '{"chunkSize": 3000}')""")
    ndocs = 240
    docs = {i: document(rnd, i) for i in range(1, ndocs + 1)}

    def insert(ids):
        for name in names:
            for i in ids:
                db.execute(f"INSERT INTO {name}(doc) VALUES (?)", (dumps(docs[i]),))
    insert(range(1, ndocs // 2 + 1))
    # the collation of each index, as MongoDB fills it in
    idx_coll = {}
    for name, idx in sets.items():
        for iname, keys, coll, extra in idx:
            o = dict(extra, name=iname)
            if coll:
                o["collation"] = coll
            try:
                db.execute("SELECT doc_create_index(?, ?, ?)", (name, json.dumps(keys), json.dumps(o)))
            except sqlite3.Error as e:
                report(f"create index {iname} {keys} {o} on {name} failed: {e}")
            idx_coll[(name, iname)] = spec_key(coll)
    insert(range(ndocs // 2 + 1, ndocs + 1))
    db.execute("SELECT doc_balance('sharded')")
    global ICU_VERSION
    spec = db.execute("SELECT collation FROM doc_indexes('en2') WHERE name = 's_en2'").fetchone()[0]
    ICU_VERSION = json.loads(spec)["version"]
    if ICU_VERSION != icu.ICU_VERSION:
        print(f"note: docext's ICU is {ICU_VERSION}, the model's (PyICU) {icu.ICU_VERSION}")
    # replace some documents everywhere, once the indexes exist
    for i in rnd.sample(range(1, ndocs + 1), ndocs // 6):
        docs[i] = document(rnd, i)
        for name in names:
            db.execute(f"UPDATE {name} SET doc = ? WHERE doc_match(doc, ?)",
                       (dumps(docs[i]), json.dumps({"_id": i})))
    index_colls = [EN2, FR1, SV1, NUM, SHIFT, FRCA, r1, r2]
    hintable = {name: [i for i, _, _, _ in idx if i not in INCOMPLETE] for name, idx in sets.items()}

    def query_collation():
        r = rnd.random()
        if r < 0.2:
            return None
        if r < 0.27:
            return {"locale": "simple"}
        if r < 0.67:
            spec = rnd.choice(index_colls)
            return respell(rnd, spec) if rnd.random() < 0.3 else spec
        return random_spec(rnd)

    def find_case(case):
        nonlocal passed
        f = filt(rnd)
        sort = rnd.choice(SORTS)
        opts = {}
        spec = query_collation()
        if spec is not None:
            opts["collation"] = spec
        coll = model_coll(spec)
        skip = limit = 0
        if sort and rnd.random() < 0.3:
            limit = opts["limit"] = rnd.randrange(1, 8)
        if sort and rnd.random() < 0.15:
            skip = opts["skip"] = rnd.randrange(0, 5)
        live = list(docs.values())
        want_ids, want_n = model_find(live, f, sort, skip, limit, coll)
        if not sort:
            want_ids.sort()
        if coll is not None and model_find(live, f, sort, skip, limit, None)[0] != \
                model_find(live, f, sort, skip, limit, coll)[0]:
            bump("the collation changed the answer")
        fs, ss = dumps(f), json.dumps(sort) if sort else None
        os_ = json.dumps(opts) if opts else None
        copts = json.dumps({"collation": spec}) if spec else None
        proj = json.dumps(rnd.choice(PROJS)) if rnd.random() < 0.3 else None

        got = run("SELECT _id FROM plain(?, NULL, ?, ?)", (fs, ss, os_))
        if got[0] == "ok":
            got = ("ok", [r[0] for r in got[1]])
            if not sort:
                got[1].sort()
        if got != ("ok", want_ids):
            report(f"FAIL case {case} plain vs model: filter {fs} sort {ss} options {os_}",
                   [f"model: {want_ids}", f"docext: {got}"])
            # the indexed copies are compared with plain's answer anyway
        else:
            passed += 1
        gn = run("SELECT count(*) FROM plain(?, NULL, NULL, ?)", (fs, copts))
        if gn != ("ok", [(want_n,)]):
            report(f"FAIL case {case} plain count(*) vs model: filter {fs} options {copts}",
                   [f"model: {want_n}", f"docext: {gn}"])
        want_p = run("SELECT doc FROM plain(?, ?, ?, ?)", (fs, proj, ss, os_)) if proj else None
        dfield = rnd.choice(["s", "t", "d.x", "d"]) if rnd.random() < 0.2 else None
        if dfield:
            gd = run("SELECT doc_distinct('plain', ?, ?, ?)", (dfield, fs, copts))
            why = distinct_check(gd, live, f, dfield, coll)
            if why:
                report(f"FAIL case {case} plain doc_distinct({dfield!r}) vs model: filter {fs}"
                       f" options {copts}", [why, f"docext: {gd}"])
        if want_p and want_p[0] == "ok" and not sort:
            want_p = ("ok", sorted(want_p[1]))
        qkey = spec_key(spec) if spec else None

        for name in sets:
            o = dict(opts)
            if rnd.random() < 0.08:
                o["hint"] = rnd.choice(hintable[name])
            oj = json.dumps(o) if o else None
            why = []
            g = run(f"SELECT _id FROM {name}(?, NULL, ?, ?)", (fs, ss, oj))
            if g[0] == "ok":
                g = ("ok", [r[0] for r in g[1]])
                if not sort:
                    g[1].sort()
            if g != got:
                why.append(f"find: plain {got} got {g}")
            co = {"collation": spec} if spec else {}
            if "hint" in o:
                co["hint"] = o["hint"]
            gc = run(f"SELECT count(*) FROM {name}(?, NULL, NULL, ?)",
                     (fs, json.dumps(co) if co else None))
            if gc != gn:
                why.append(f"count(*): plain {gn} got {gc}")
            if dfield:
                gd = run("SELECT doc_distinct(?, ?, ?, ?)", (name, dfield, fs, json.dumps(co) if co else None))
                why_d = distinct_check(gd, live, f, dfield, coll)
                if why_d:
                    why.append(f"doc_distinct({dfield!r}): {why_d}: {gd}")
            if proj:
                gp = run(f"SELECT doc FROM {name}(?, ?, ?, ?)", (fs, proj, ss, oj))
                if gp[0] == "ok" and not sort:
                    gp = ("ok", sorted(gp[1]))
                if gp != want_p:
                    why.append(f"projection {proj}: plain {want_p} got {gp}")
                pe = run("SELECT doc_explain(?, ?, ?, ?, ?)", (name, fs, proj, ss, oj))
                if pe[0] == "ok" and json.loads(pe[1][0][0]).get("indexOnly"):
                    iname = json.loads(pe[1][0][0])["cursor"].split(" ", 1)[-1]
                    bump("covered by a collated index" if idx_coll.get((name, iname))
                         else "covered by a simple index")
            ex = run("SELECT doc_explain(?, ?, NULL, ?, ?)", (name, fs, ss, oj))
            if ex[0] == "ok" and got[0] == "ok":
                e = json.loads(ex[1][0][0])
                if e["n"] != len(got[1]):
                    why.append(f"explain n {e['n']} != {len(got[1])}")
                cur = e["cursor"]
                if cur.startswith("BtreeCursor"):
                    iname = cur.split(" ", 1)[1]
                    ic = idx_coll.get((name, iname))
                    if ic is not None and ic == qkey:
                        bump("collated index used by its collation")
                        if "hint" not in o:
                            bump("collated index chosen")
                        if sort and not e.get("scanAndOrder", True):
                            bump("collated index gave the sort")
                    elif ic is not None:
                        bump("collated index used by another collation")
                    elif qkey is not None and iname != "_id_":
                        bump("simple index used under a collation")
            elif ex[0] != got[0]:
                why.append(f"explain: {ex}")
            if why:
                report(f"FAIL case {case} on {name}: filter {fs} sort {ss} options {oj}",
                       why + ([f"plan: {ex[1][0][0]}"] if ex[0] == "ok" else []))
            else:
                passed += 1

    def update_case(k):
        """An update under a collation (doc_update_many, or doc_update_one
        with a sort, which picks the first in the collation's order): the
        matched and modified counts, in every copy (and the documents are
        compared at the end)."""
        nonlocal passed
        f = filt(rnd)
        upd, extra = random_update(rnd, k)
        if extra:
            f = {"$and": [f, extra]}
        spec = query_collation()
        coll = model_coll(spec)
        o = {"collation": spec} if spec else {}
        if rnd.random() < 0.3:
            o["sort"] = rnd.choice([s for s in SORTS if s])
            matched = model_find(list(docs.values()), f, o["sort"], 0, 1, coll)[0]
            func = "doc_update_one"
        else:
            matched = [i for i, d in docs.items() if match(d, f, coll)]
            func = "doc_update_many"
        after = {i: model_update(docs[i], upd, coll) for i in matched}
        modified = sum(canon(after[i]) != canon(docs[i]) for i in matched)
        want = {"matchedCount": len(matched), "modifiedCount": modified,
                "upsertedId": None, "upsertedCount": 0}
        oj = json.dumps(o) if o else None
        for name in names:
            g = run(f"SELECT {func}(?, ?, ?, ?)", (name, dumps(f), dumps(upd), oj))
            g = json.loads(g[1][0][0]) if g[0] == "ok" else g
            if g != want:
                report(f"FAIL update {k} on {name}: {func} filter {dumps(f)} update {dumps(upd)}"
                       f" options {oj}", [f"model: {want} ({sorted(matched)})", f"docext: {g}"])
            else:
                passed += 1
        docs.update(after)

    def delete_case(k):
        """A delete under a collation: doc_delete_many, or doc_find_and_modify
        with a sort, which removes the first in the collation's order."""
        nonlocal passed
        f = filt(rnd)
        spec = query_collation()
        coll = model_coll(spec)
        if rnd.random() < 0.3:
            sort = rnd.choice([s for s in SORTS if s])
            gone = model_find(list(docs.values()), f, sort, 0, 1, coll)[0]
            fam = {"query": f, "sort": sort, "remove": True}
            if spec:
                fam["collation"] = spec
            want = ("ok", [(canon(docs[gone[0]]) if gone else None,)])
            for name in names:
                g = run("SELECT doc_find_and_modify(?, ?)", (name, dumps(fam)))
                if g[0] == "ok" and g[1][0][0] is not None:
                    g = ("ok", [(canon(json_to_model(json.loads(g[1][0][0]))),)])
                if g != want:
                    report(f"FAIL find_and_modify {k} on {name}: {dumps(fam)}",
                           [f"model: {want}", f"docext: {g}"])
                else:
                    passed += 1
        else:
            gone = [i for i, d in docs.items() if match(d, f, coll)]
            if len(gone) > 12:
                return
            o = json.dumps({"collation": spec}) if spec else None
            for name in names:
                g = run("SELECT doc_delete_many(?, ?, ?)", (name, dumps(f), o))
                if g != ("ok", [(len(gone),)]):
                    report(f"FAIL delete {k} on {name}: filter {dumps(f)} options {o}",
                           [f"model deletes {len(gone)}: {sorted(gone)}", f"docext: {g}"])
                else:
                    passed += 1
        for i in gone:
            del docs[i]

    # finds; updates under collations (which change indexed strings and
    # arrays); finds over what they left; deletes under collations
    for case in range(ncases // 2):
        find_case(case)
    for k in range(60):
        update_case(k)
    for case in range(ncases // 2, ncases):
        find_case(case)
    for k in range(40):
        delete_case(k)
    want_docs = [canon(docs[i]) for i in sorted(docs)]
    for name in names:
        got_docs = [canon(json_to_model(json.loads(r[0])))
                    for r in db.execute(f"SELECT doc FROM {name}('{{}}', NULL, '{{\"_id\": 1}}')")]
        if got_docs != want_docs:
            diff = [(w, g) for w, g in zip(want_docs, got_docs) if w != g][:3]
            report(f"FAIL at the end, {name} holds {len(got_docs)} documents, the model"
                   f" {len(want_docs)}", [f"model {w}\n    docext {g}" for w, g in diff])
        else:
            passed += 1
        for part in [name] + (["%s.%s" % (sh, name) for sh in shards] if name == "sharded" else []):
            c = db.execute("SELECT doc_check(?)", (part,)).fetchone()[0]
            if c != "ok":
                report(f"FAIL doc_check({part}): {c}")
            else:
                passed += 1

    chunks = db.execute("SELECT shard, count(*) FROM doc_chunks('sharded') GROUP BY shard").fetchall()
    print(f"random collations: r1 {json.dumps(r1)} r2 {json.dumps(r2)}; chunks of sharded: {chunks}")
    print("plans: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))
    if ncases >= 200 and not stats.get("collated index chosen"):
        report("no query of an index's collation used that index (doc_explain's cursor)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
