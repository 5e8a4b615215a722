#!/usr/bin/python3
"""test/diff_update.py — the checking half of the differential update test
(test/diff_update.sh runs test/diff_update.js first, then this).

    /usr/bin/python3 test/diff_update.py CASES.jsonl [-v]

Loads docext (./docext.so, or $DOCEXT_SO without the suffix) into SQLite,
evaluates SELECT doc_update(doc, update [, options]) for every case the
generator wrote, and compares docext's result with mingo's update() and
@seald-io/nedb's model.modify().

docext's clock is frozen at 2013-03-01T00:00:00Z (doc_config('clock', ...)),
the time the generator gives the libraries, so $currentDate compares too;
a case's query (for the positional $) goes to doc_update as its "query"
option and to mingo as its condition.

Results are compared as values: numbers by value (JavaScript has one number
type; docext keeps int32 and double apart), dates by their milliseconds,
and field order counts. Two errors agree whatever their messages say.

There is a third oracle: a small model of MongoDB's documented update
semantics, written here independently of docext (mongo_must_fail(): which
updates MongoDB rejects; expected_at(): the value an operator leaves at a
path, $setOnInsert none since this is not an insert; positional_index():
the element the positional $ stands for; filter_match() and pull_match(): the query semantics of arrayFilters
and $pull conditions; bson_cmp(): BSON comparison order). Every case must
agree with it: docext fails exactly when the model says MongoDB fails, and
otherwise holds the model's value at every path the update touches, with
the fields in MongoDB 5.0's order.

A case passes when docext agrees with the model and with every library that
answered, or where it does not agree with a library, the disagreement is one
of KNOWN below: a kind of case where that library departs from MongoDB's
documented behaviour, with the rule that decides it (each rule re-checks
docext against the model, so a known disagreement cannot hide a docext
bug). Anything else is a failure, printed with its document and update. The
last line is "N passed, M failed"; the exit status is non-zero when M > 0.
"""
import json
import math
import os
import re
import sqlite3
import sys
from datetime import datetime, timezone


def norm(v):
    """A JSON value (docext's relaxed Extended JSON, or the generator's
    plain JSON) as a comparable tuple; documents keep their field order."""
    if isinstance(v, list) and (not v or isinstance(v[0], tuple)) and getattr(v, "is_doc", False):
        pass
    if isinstance(v, Doc):
        pairs = v.pairs
        keys = [k for k, _ in pairs]
        if keys == ["$date"]:
            d = pairs[0][1]
            if isinstance(d, (int, float)):
                return ("date", int(d))
            if isinstance(d, str):
                t = datetime.fromisoformat(d.replace("Z", "+00:00"))
                return ("date", int(round(t.timestamp() * 1000)))
            if isinstance(d, Doc):
                return ("date", int(d.pairs[0][1]))
        if keys == ["$numberLong"]:
            return ("num", float(int(pairs[0][1])))
        if keys == ["$numberDouble"]:
            return ("num", float(pairs[0][1]))
        if keys == ["$negzero"]:
            return ("num", -0.0, "neg")
        if keys == ["$undefined"]:
            return ("undefined",)
        return ("doc", tuple((k, norm(x)) for k, x in pairs))
    if isinstance(v, list):
        return ("arr", tuple(norm(x) for x in v))
    if v is None:
        return ("null",)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float)):
        f = float(v)
        if f == 0.0 and math.copysign(1.0, f) < 0:
            return ("num", -0.0, "neg")
        return ("num", f)
    if isinstance(v, str):
        return ("str", v)
    raise ValueError("unexpected JSON value %r" % (v,))


class Doc:
    """A JSON object with its field order."""
    def __init__(self, pairs):
        self.pairs = pairs


def loads(text):
    return json.loads(text, object_pairs_hook=Doc)


def unordered(t):
    """The same value with every document's fields sorted by name."""
    if t[0] == "doc":
        return ("doc", tuple(sorted(((k, unordered(x)) for k, x in t[1]), key=lambda p: p[0])))
    if t[0] == "arr":
        return ("arr", tuple(unordered(x) for x in t[1]))
    return t


def get_path(t, path):
    """The normalized value at a dotted path, or None."""
    for comp in path.split("."):
        if t is None:
            return None
        if t[0] == "doc":
            t = dict(t[1]).get(comp)
        elif t[0] == "arr" and comp.isdigit() and int(comp) < len(t[1]):
            t = t[1][int(comp)]
        else:
            return None
    return t


# ---------------------------------------------------------------------------
# Known disagreements: (library, name, test, reason). A test gets the case,
# docext's normalized result (or "E: message") and the library's, and says
# whether this disagreement is of its kind.

def is_err(r):
    return isinstance(r, str)


def ops_of(case):
    return case["ops"]


KNOWN = []


def known(lib, name, reason):
    def deco(fn):
        KNOWN.append((lib, name, fn, reason))
        return fn
    return deco


def classify(lib, case, mine, theirs):
    for l, name, fn, reason in KNOWN:
        if l in (lib, "*") and fn(case, mine, theirs):
            return name
    return None


# --- MongoDB's rules, written from its documentation, independently of
# docext: must this update fail on this document?

CREATORS = {"$set", "$inc", "$mul", "$min", "$max", "$push", "$pushAll", "$addToSet", "$bit",
            "$currentDate", "$setOnInsert"}


# Operators that fail on a path that could not be created (a scalar in the
# way, a name that is not an index on an array): those that create it, and
# $pop, $pull, $pullAll, which do not but check (MongoDB's checkViability;
# only $unset passes).
NEED_VIABLE = CREATORS | {"$pop", "$pull", "$pullAll"}


def is_doc(v):
    return isinstance(v, dict) and not ("$date" in v or "$negzero" in v)


def is_num(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) or (isinstance(v, dict) and "$negzero" in v)


def positional_index(case, arr_path):
    """The index the positional $ after arr_path stands for: the first
    element of that array the query matches (the generator writes {p: v}
    for an element equal to v, or {"p.k": v} for a document element whose
    k is v or an array holding v; v is never null), or None."""
    (key, val), = case["query"].items()
    found, arr, _ = get_json(case["docj"], arr_path.split("."))
    if not found or not isinstance(arr, list):
        return None
    for i, e in enumerate(arr):
        if key == arr_path:
            hit = bson_eq(e, val)
        else:
            k = key[len(arr_path) + 1:]
            x = e.get(k) if is_doc(e) else None
            hit = is_doc(e) and k in e and (bson_eq(x, val) or (
                isinstance(x, list) and any(bson_eq(y, val) for y in x)))
        if hit:
            return i
    return None


def resolve_positional(case, path):
    """path with its positional $ replaced by the index it stands for."""
    comps = path.split(".")
    if "$" not in comps or not case.get("query"):
        return path
    k = comps.index("$")
    i = positional_index(case, ".".join(comps[:k]))
    return path if i is None else ".".join(comps[:k] + [str(i)] + comps[k + 1:])


def entries(case):
    """(operator, path, operand) of the update, $rename's destination
    included as ("$rename>", to, from); a positional $ resolved."""
    out = []
    for op, fields in case["updj"].items():
        for path, arg in fields.items():
            path = resolve_positional(case, path)
            out.append((op, path, arg))
            if op == "$rename":
                out.append(("$rename>", arg, path))
    return out


def paths_conflict(case):
    ps = [p for _, p, _ in entries(case)]
    for i in range(len(ps)):
        for j in range(len(ps)):
            if i == j:
                continue
            a, b = ps[i], ps[j]
            if a == b and i < j:
                return True
            if b.startswith(a + "."):
                return True
            # one path wants a.$[...] (an array node), the other a.x
            ca, cb = a.split("."), b.split(".")
            for k in range(min(len(ca), len(cb))):
                if ca[k] != cb[k]:
                    if k > 0 and (ca[k].startswith("$[") != cb[k].startswith("$[")):
                        return True
                    break
    return False


def canonical_index(c):
    return c.isdigit() and (c == "0" or not c.startswith("0"))


def walk_fails(op, v, comps, arg, filters=None):
    """Would operator op at path comps (relative to value v, which exists)
    fail? Follows the update rules: numeric components index arrays, other
    components name fields; a creator cannot pass a scalar or a non-index
    on an array; the final value must suit the operator."""
    if not comps:
        if op in ("$inc", "$mul") and not is_num(v):
            return "non-numeric %s" % op
        if op in ("$push", "$pushAll", "$addToSet") and not isinstance(v, list):
            return "%s on a non-array" % op
        if op in ("$pull", "$pullAll", "$pop") and not isinstance(v, list):
            return "%s on a non-array" % op
        if op == "$bit" and not (isinstance(v, int) and not isinstance(v, bool)):
            return "$bit on a non-integer"
        return None
    c = comps[0]
    if c == "$[]" or c.startswith("$["):
        if not isinstance(v, list):
            return "array update on a non-array"
        for e in v:
            if c != "$[]" and not filter_match(e, filters[c[2:-1]]):
                continue
            r = walk_fails(op, e, comps[1:], arg, filters)
            if r:
                return r
        return None
    if is_doc(v):
        if c in v:
            return walk_fails(op, v[c], comps[1:], arg, filters)
        if any(x.startswith("$[") for x in comps[1:]) and op in CREATORS | {"$unset"}:
            return "array update on a missing path"
        return None
    if isinstance(v, list):
        if canonical_index(c):
            i = int(c)
            if i < len(v):
                return walk_fails(op, v[i], comps[1:], arg, filters)
            return None
        return "cannot create a field in an array" if op in NEED_VIABLE else None
    # a scalar in the way
    return "cannot create a field in a scalar" if op in NEED_VIABLE else None


def get_json(v, comps):
    """(found, value, crossed an array) for a path in plain JSON."""
    crossed = False
    for c in comps:
        if is_doc(v) and c in v:
            v = v[c]
        elif isinstance(v, list) and canonical_index(c) and int(c) < len(v):
            v = v[int(c)]
            crossed = True
        else:
            return False, None, crossed
    return True, v, crossed


def concrete_conflict(case):
    """Do two paths meet at one element once $[] and $[<id>] are resolved
    (MongoDB's "Update created a conflict at ...")?"""
    conc = []
    for op, path, _ in entries(case):
        if "$[" in path:
            ps = expand(case, path)
            conc.append(ps if ps is not None else [])
        else:
            conc.append([path])
    for i in range(len(conc)):
        for j in range(i + 1, len(conc)):
            for a in conc[i]:
                for b in conc[j]:
                    if a == b or a.startswith(b + ".") or b.startswith(a + "."):
                        return True
    return False


def mongo_must_fail(case):
    """A reason MongoDB rejects this update of this document, or None."""
    if paths_conflict(case):
        return "conflicting paths"
    if concrete_conflict(case):
        return "conflicting paths once $[] and $[<id>] are resolved"
    doc = case["docj"]
    for op, path, arg in entries(case):
        comps = path.split(".")
        if op == "$rename":
            found, _, crossed = get_json(doc, comps)
            if found and crossed:
                return "$rename from inside an array"
            if found:
                v = doc
                for c in arg.split("."):
                    if not is_doc(v) or c not in v:
                        break
                    v = v[c]
                    if isinstance(v, list):
                        return "$rename into an array"
                r = walk_fails("$set", doc, arg.split("."), None)
                if r:
                    return r
            continue
        if op in ("$rename>", "$setOnInsert"):
            continue                  # (not an insert: $setOnInsert does nothing)
        if op in ("$inc", "$mul") and not is_num(arg):
            return "non-numeric operand"
        if "_id" == comps[0] and op != "$set":
            return "changes _id"
        r = walk_fails(op, doc, comps, arg, case_filters(case))
        if r:
            return r
    return None


@known("*", "error-ignored",
       "MongoDB rejects the update (its rules, checked independently above: "
       "conflicting paths, also once $[] and $[<id>] are resolved; $inc/$mul on a non-number or null; $push, $addToSet, "
       "$pull, $pullAll, $pop on a non-array; $bit on a non-integer; a field "
       "created (or, for $pop, $pull, $pullAll, reached) inside a scalar or as "
       "a non-index of an array; $rename from or "
       "into an array); the library applies what it can or nothing")
def rule_error_ignored(case, mine, theirs):
    return is_err(mine) and not is_err(theirs) and mongo_must_fail(case) is not None


NEDB_LIMITS = [
    "Can only use $slice in cunjunction with $each",     # $sort/$position without $slice
    "Unknown logical operator",                           # operators in $pull conditions
    "Cannot read properties of",                          # a crash on null/undefined
    "Cannot set properties of",
    "Cannot convert undefined or null",
    "$position", "$sort",
    "Can't $pull an element from non-array values",       # ... of a missing field
    "Can't $pop an element from non-array values",
]


@known("nedb", "nedb-limits",
       "nedb lacks part of the update language MongoDB documents: $push's "
       "$sort and $position (it accepts $slice only), query operators in $pull "
       "conditions; it throws for $pull and $pop of a missing field (a no-op in "
       "MongoDB) and on null/undefined intermediate values that MongoDB updates "
       "or skips")
def rule_nedb_limits(case, mine, theirs):
    return (not is_err(mine) and is_err(theirs) and mongo_must_fail(case) is None
            and any(m in theirs for m in NEDB_LIMITS))


# BSON comparison order of types (canonical classes), for $min/$max.
def type_class(v):
    if v is None:
        return 3
    if isinstance(v, bool):
        return 10
    if is_num(v):
        return 4
    if isinstance(v, str):
        return 5
    if isinstance(v, dict) and "$date" in v:
        return 11
    if isinstance(v, dict):
        return 6
    if isinstance(v, list):
        return 7
    return 0


def bson_cmp(a, b):
    """MongoDB's comparison of two plain JSON values (BSON order: type class
    first, numbers by value, strings bytewise, documents field by field —
    type class, name, value — arrays element by element)."""
    ca, cb = type_class(a), type_class(b)
    if ca != cb:
        return -1 if ca < cb else 1
    if ca == 4:
        x = 0.0 if isinstance(a, dict) else float(a)
        y = 0.0 if isinstance(b, dict) else float(b)
        return (x > y) - (x < y)
    if ca == 5:
        x, y = a.encode(), b.encode()
        return (x > y) - (x < y)
    if ca == 10:
        return (a > b) - (a < b)
    if ca == 11:
        return (a["$date"] > b["$date"]) - (a["$date"] < b["$date"])
    if ca == 6:
        ia, ib = list(a.items()), list(b.items())
        for (ka, va), (kb, vb) in zip(ia, ib):
            c = type_class(va) - type_class(vb)
            if c:
                return -1 if c < 0 else 1
            x, y = ka.encode(), kb.encode()
            if x != y:
                return -1 if x < y else 1
            c = bson_cmp(va, vb)
            if c:
                return c
        return (len(ia) > len(ib)) - (len(ia) < len(ib))
    if ca == 7:
        for va, vb in zip(a, b):
            c = bson_cmp(va, vb)
            if c:
                return c
        return (len(a) > len(b)) - (len(a) < len(b))
    return 0


def as_norm(v):
    return norm(json.loads(json.dumps(v), object_pairs_hook=Doc))


def push_key(elem, sort):
    if not isinstance(sort, dict):
        return elem
    keys = []
    for f, _ in sort.items():
        found, v, _ = get_json(elem, f.split(".")) if is_doc(elem) else (False, None, False)
        keys.append(v if found else None)
    return keys


def push_sorted(arr, sort):
    """Is arr sorted as $push's $sort orders it?"""
    for x, y in zip(arr, arr[1:]):
        if isinstance(sort, dict):
            kx, ky = push_key(x, sort), push_key(y, sort)
            for (f, d), vx, vy in zip(sort.items(), kx, ky):
                c = bson_cmp(vx, vy) * (1 if d > 0 else -1)
                if c > 0:
                    return False
                if c < 0:
                    break
        elif bson_cmp(x, y) * (1 if sort > 0 else -1) > 0:
            return False
    return True


def to_plain(t):
    """A normalized value back to plain JSON (for docext's results)."""
    k = t[0]
    if k == "doc":
        return {n: to_plain(v) for n, v in t[1]}
    if k == "arr":
        return [to_plain(v) for v in t[1]]
    if k == "num":
        return {"$negzero": True} if len(t) > 2 else t[1]
    if k == "str":
        return t[1]
    if k == "bool":
        return t[1]
    if k == "date":
        return {"$date": t[1]}
    return None


def push_simulate(old, arg):
    """MongoDB's $push with modifiers: insert at $position, then a stable
    $sort, then $slice — whatever order they are written in."""
    import functools
    each = arg["$each"]
    arr = list(old)
    pos = arg.get("$position", len(arr))
    if pos < 0:
        pos = max(0, len(arr) + pos)
    pos = min(pos, len(arr))
    arr[pos:pos] = each
    if "$sort" in arg:
        srt = arg["$sort"]

        def cmp(x, y):
            if isinstance(srt, dict):
                for (f, d), vx, vy in zip(srt.items(), push_key(x, srt), push_key(y, srt)):
                    c = bson_cmp(vx, vy) * (1 if d > 0 else -1)
                    if c:
                        return c
                return 0
            return bson_cmp(x, y) * (1 if srt > 0 else -1)
        arr.sort(key=functools.cmp_to_key(cmp))
    if "$slice" in arg:
        n = arg["$slice"]
        arr = arr[:n] if n >= 0 else arr[max(0, len(arr) + n):]
    return arr


@known("mingo", "array-filter-conflict",
       "MongoDB detects a conflict between $[] and $[<id>] (or two identifiers, "
       "or the positional $ and an index) only when both reach the same element "
       "while the update is applied; mingo rejects such paths at once — checked: "
       "no two paths conflict as written, nor once $ is resolved")
def rule_filter_conflict(case, mine, theirs):
    upd = json.dumps(case["updj"])
    return (not is_err(mine) and is_err(theirs) and "conflict" in theirs
            and ("$[" in upd or '.$"' in upd or '.$.' in upd) and not paths_conflict(case))


@known("mingo", "positional-dotted-array",
       "mingo finds no element for the positional $ when the array is inside a "
       "document (a dotted path such as d.x.$): it looks the query up on a field "
       "literally named 'd.x' — checked: docext's result is the model's, with $ "
       "the first element the query matches")
def rule_positional_dotted(case, mine, theirs):
    return (not is_err(mine) and is_err(theirs) and "positional operator found no match" in theirs
            and bool(case.get("query")) and "." in next(iter(case["query"]))
            and model_check(case, mine) is None)


def bson_eq(a, b):
    return bson_cmp(a, b) == 0


# --- query semantics for the conditions the generator writes (arrayFilters,
# $pull): a value matches a condition, or an array does when it or one of
# its elements does.

def cond_match(v, cond, present=True):
    """Does value v (present=False: missing) match the condition cond, read
    as the right-hand side of a query field?"""
    if is_doc(cond) and cond and all(k.startswith("$") for k in cond):
        for k, x in cond.items():
            if not op_match(v, k, x, present):
                return False
        return True
    if not present:
        return cond is None               # null also matches a missing field
    if bson_eq(v, cond):
        return True
    return isinstance(v, list) and any(bson_eq(e, cond) for e in v)


def op_match(v, op, x, present):
    if op == "$type":
        vals = ([v] + (v if isinstance(v, list) else [])) if present else []
        return any(isinstance(e, str) for e in vals) if x == "string" else False
    if op == "$in":
        return any(cond_match(v, e, present) for e in x)
    if not present:
        return False
    vals = [v] + (v if isinstance(v, list) else [])
    for e in vals:
        if type_class(e) != type_class(x):
            continue
        c = bson_cmp(e, x)
        if (op == "$gte" and c >= 0) or (op == "$gt" and c > 0) or \
           (op == "$lte" and c <= 0) or (op == "$lt" and c < 0):
            return True
    return False


def filter_match(elem, filt):
    """An arrayFilters document ({e: cond} or {"e.k": cond}) on an element,
    as MongoDB matches it: against {e: element}."""
    for key, cond in filt.items():
        comps = key.split(".")
        if len(comps) == 1:
            if not cond_match(elem, cond):
                return False
        else:
            k = comps[1]
            if is_doc(elem):
                cands = [elem[k]] if k in elem else []
                missing = k not in elem
            elif isinstance(elem, list):
                cands = [d[k] for d in elem if is_doc(d) and k in d]
                missing = any(is_doc(d) and k not in d for d in elem) or not cands
            else:
                cands, missing = [], True
            if not (any(cond_match(c, cond) for c in cands)
                    or (missing and cond_match(None, cond, present=False))):
                return False
    return True


def case_filters(case):
    """The arrayFilters of a case by identifier (parsed from the shell text,
    which the generator writes as JSON plus ISODate)."""
    if not case["options"]:
        return {}
    text = re.sub(r'ISODate\("([^"]*)"\)', lambda m: json.dumps(
        {"$date": int(datetime.fromisoformat(m.group(1).replace("Z", "+00:00")).timestamp() * 1000)}),
        case["options"])
    out = {}
    for f in json.loads(text).get("arrayFilters", []):
        out[list(f)[0].split(".")[0]] = f
    return out


MISSING = object()
UNKNOWN = object()
# The clock docext reads (doc_config('clock', ...)) and the generator gives
# the libraries: 2013-03-01T00:00:00Z.
FROZEN_NOW = 1362096000000


def expand(case, path):
    """The concrete paths a path with $[] or $[<id>] stands for in the
    original document, or None where it cannot be followed."""
    filters = case_filters(case)
    results = [([], case["docj"])]
    for c in path.split("."):
        nxt = []
        for pre, v in results:
            if c.startswith("$["):
                if not isinstance(v, list):
                    return None
                ident = c[2:-1]
                for i, e in enumerate(v):
                    if ident == "" or filter_match(e, filters[ident]):
                        nxt.append((pre + [str(i)], e))
            elif is_doc(v):
                nxt.append((pre + [c], v.get(c, MISSING)))
            elif isinstance(v, list) and canonical_index(c) and int(c) < len(v):
                nxt.append((pre + [c], v[int(c)]))
            else:
                nxt.append((pre + [c], MISSING))
        results = nxt
    return [".".join(p) for p, _ in results]


def unmatched_elements(case, path):
    """The paths of the array elements the first $[<id>] of path does not
    select (its filter does not match them), in the original document; none
    when another path of the update reaches into the same array."""
    comps = path.split(".")
    for k, c in enumerate(comps):
        if c.startswith("$[") and c != "$[]":
            break
    else:
        return []
    prefix = ".".join(comps[:k])
    if any(q != path and (q == prefix or q.startswith(prefix + ".")) for _, q, _ in entries(case)):
        return []                     # another path reaches these elements too
    filt = case_filters(case)[c[2:-1]]
    out = []
    for ap in (expand(case, ".".join(comps[:k])) or []):
        found, arr, _ = get_json(case["docj"], ap.split("."))
        if found and isinstance(arr, list):
            out += [ap + "." + str(i) for i, e in enumerate(arr) if not filter_match(e, filt)]
    return out


def padded(case, cp):
    """Is cp an index past the end of an array of the original document
    that another path of the update creates a later index of, so that
    MongoDB pads it with a null (what an operator that only removes, such as
    $unset or $pull, then leaves there)?"""
    comps = cp.split(".")
    parent, last = comps[:-1], comps[-1]
    found, arr, _ = get_json(case["docj"], parent)
    if not found or not isinstance(arr, list) or not canonical_index(last) or int(last) < len(arr):
        return False
    for op, q, _ in entries(case):
        qc = q.split(".")
        # ($setOnInsert creates nothing: no case is an insert)
        if (op in CREATORS and op != "$setOnInsert" and len(qc) > len(parent) and qc[:len(parent)] == parent
                and canonical_index(qc[len(parent)]) and int(qc[len(parent)]) > int(last)):
            return True
    return False


def pull_match(e, arg):
    """Does $pull with operand arg remove element e (MongoDB's PullNode)?"""
    if is_doc(arg) and arg and list(arg)[0].startswith("$"):
        return cond_match(e, arg)                 # {"": e} against {"": arg}
    if is_doc(arg):
        if not is_doc(e):
            return False
        return all(cond_match(e[k], c) if k in e else cond_match(None, c, present=False)
                   for k, c in arg.items())
    return bson_eq(e, arg)


def arith(op, old, arg):
    if not is_num(old) or not is_num(arg) or isinstance(old, dict) or isinstance(arg, dict):
        return UNKNOWN                            # (-0.0 operands: not modelled)
    if isinstance(old, int) and isinstance(arg, int):
        return old + arg if op == "$inc" else old * arg
    return float(old) + float(arg) if op == "$inc" else float(old) * float(arg)


def expected_at(case, op, path, arg):
    """MongoDB's value at concrete path after op (MISSING: no field), or
    UNKNOWN where the model does not decide."""
    found, old, _ = get_json(case["docj"], path.split("."))
    if op == "$set":
        return arg
    if op == "$setOnInsert":
        return old if found else MISSING      # an update, not an insert
    if op == "$currentDate":
        return {"$date": FROZEN_NOW}
    if op == "$pushAll":
        return (old if found else []) + arg
    if op == "$unset":
        if not found:
            return MISSING
        parent = path.rsplit(".", 1)[0] if "." in path else None
        pv = get_json(case["docj"], parent.split("."))[1] if parent else None
        return None if isinstance(pv, list) else MISSING
    if op in ("$inc", "$mul"):
        if not found:
            return arg if op == "$inc" else (0 if isinstance(arg, int) else 0.0 * arg)
        return arith(op, old, arg)
    if op in ("$min", "$max"):
        if not found:
            return arg
        c = bson_cmp(arg, old)
        return arg if (c < 0 if op == "$min" else c > 0) else old
    if op == "$push":
        if isinstance(arg, dict) and "$each" in arg:
            return push_simulate(old if found else [], arg)
        return (old if found else []) + [arg]
    if op == "$addToSet":
        vals = arg["$each"] if isinstance(arg, dict) and list(arg.keys())[:1] == ["$each"] else [arg]
        want = list(old) if found else []
        for v in vals:
            if not any(bson_eq(v, w) for w in want):
                want.append(v)
        return want
    if op == "$pop":
        if not found:
            return MISSING
        return old[:-1] if arg > 0 else old[1:]
    if op == "$pull":
        return [e for e in old if not pull_match(e, arg)] if found else MISSING
    if op == "$pullAll":
        return [e for e in old if not any(bson_eq(e, v) for v in arg)] if found else MISSING
    if op == "$bit":
        v = old if found else 0
        for k, x in arg.items():
            v = v & x if k == "and" else v | x if k == "or" else v ^ x
        return v
    return UNKNOWN


REASONS = {
    "$min": "$min/$max compare in BSON order (null < numbers < strings < objects < "
            "arrays < bool < dates; documents field by field, type before name "
            "before value)",
    "$inc": "$inc/$mul of int32 values is integer arithmetic: 0 * -1 is the int 0, "
            "where JavaScript gives -0",
    "$push": "$push applies $position, then a stable BSON-order $sort (whole values, "
             "or fields of document elements, others as null; arrays compare whole), "
             "then $slice, also when it creates the array",
    "$addToSet": "$addToSet adds a value only if no element is equal in BSON "
                 "comparison, and deduplicates $each",
    "$pull": "$pull with a scalar is plain BSON equality (an array holding the "
             "value is not removed); a document condition is a query on document "
             "elements only, where {k: null} also matches documents without k",
    "$pullAll": "$pullAll removes elements equal (in BSON comparison) to a listed "
                "value, not arrays that contain one",
    "filters": "arrayFilters match with query semantics: {e: cond} against {e: "
               "element}, so an array element matches when one of its elements "
               "does, $type 'string' matches strings, {e: null} matches null",
    "other": "the operator's documented behaviour",
}


def reason_key(op, path):
    if "$[" in path and "$[]" not in path:
        return "filters"
    if op in ("$min", "$max"):
        return "$min"
    if op in ("$inc", "$mul"):
        return "$inc"
    return op if op in REASONS else "other"


def plain_at_or_missing(case, path):
    found, v, _ = get_json(case["docj"], path.split("."))
    return v if found else MISSING


def explain(case, mine, theirs):
    """If docext's result agrees with the model of MongoDB at every path the
    update touches, and with the library everywhere else, the set of reasons
    for the paths where the library differs; else None."""
    if is_err(mine) or is_err(theirs) or mongo_must_fail(case):
        return None
    keys = set()
    rename_src = {}
    for op, path, arg in entries(case):
        if op == "$rename":
            found, v, crossed = get_json(case["docj"], path.split("."))
            rename_src[path] = (found and not crossed, v)
    for op, path, arg in entries(case):
        if op in ("$rename", "$rename>"):
            ok, v = rename_src[path if op == "$rename" else arg]
            if op == "$rename":
                want = MISSING if ok else plain_at_or_missing(case, path)
            else:
                want = v if ok else plain_at_or_missing(case, path)
            conc = [(path, want)]
        else:
            paths = expand(case, path)
            if paths is None:
                return None
            conc = [(cp, expected_at(case, op, cp, arg)) for cp in paths]
            # elements a $[<id>] filter leaves out keep their value: checked
            # whole, so a library that picks other elements is explained
            conc += [(ep, plain_at_or_missing(case, ep)) for ep in unmatched_elements(case, path)]
        for cp, w in conc:
            if w is UNKNOWN:
                return None
            if w is MISSING and padded(case, cp):
                w = None
            w_norm = None if w is MISSING else as_norm(w)
            if get_path(mine, cp) != w_norm:
                return None
            if get_path(theirs, cp) != w_norm:
                keys.add(reason_key(op, path))
            mine = drop_path(mine, cp.split("."))
            theirs = drop_path(theirs, cp.split("."))
    if unordered(mine) != unordered(theirs):
        return None
    return keys


def model_check(case, mine):
    """docext against the model alone: None when they agree, "unknown" where
    the model does not decide, else what differs."""
    must_fail = mongo_must_fail(case)
    if is_err(mine):
        return None if must_fail else "docext rejects an update MongoDB applies"
    if must_fail:
        return "MongoDB rejects this update (%s); docext applied it" % must_fail
    if explain(case, mine, mine) is None:
        if explain_decides(case):
            return "a touched path differs from MongoDB's semantics"
        return "unknown"
    if not order_ok(case["docj"], mine, [], case):
        return "fields not in MongoDB 5.0's order"
    return None


def explain_decides(case):
    """Does the model decide every path of this case?"""
    for op, path, arg in entries(case):
        if op in ("$rename", "$rename>"):
            continue
        paths = expand(case, path)
        if paths is None:
            return False
        if any(expected_at(case, op, cp, arg) is UNKNOWN for cp in paths):
            return False
    return True


SEMANTIC_COUNTS = {}


@known("*", "mongodb-semantics",
       "the library departs from MongoDB's documented semantics of an operator "
       "(per reason below); checked: at every path the update touches, docext's "
       "value is the one an independent model of those semantics gives, and the "
       "results agree everywhere else")
def rule_semantics(case, mine, theirs):
    keys = explain(case, mine, theirs)
    if not keys:
        return False
    for k in keys:
        SEMANTIC_COUNTS[k] = SEMANTIC_COUNTS.get(k, 0) + 1
    return True


def strip(t, case):
    """t without the values at the $min/$max paths of the case."""
    for op, path, _ in entries(case):
        if op in ("$min", "$max"):
            t = drop_path(t, path.split("."))
    return t


def drop_path(t, comps):
    if not comps or t is None or t[0] not in ("doc", "arr"):
        return t
    c = comps[0]
    if t[0] == "doc":
        return ("doc", tuple((k, ("gone",) if (k == c and len(comps) == 1) else
                              (drop_path(v, comps[1:]) if k == c else v)) for k, v in t[1]))
    if c.isdigit():
        i = int(c)
        return ("arr", tuple(("gone",) if (j == i and len(comps) == 1) else
                             (drop_path(v, comps[1:]) if j == i else v) for j, v in enumerate(t[1])))
    return t


def name_key(k):
    """MongoDB 5.0's order of field names in an update: numeric names by
    value, others bytewise (numeric ones first when they meet)."""
    if k.isdigit():
        return (0, len(k), k)
    return (1, 0, k.encode())


def order_ok(orig, res, path, case):
    """Do the documents of res keep the fields of orig first, in their
    order, followed by the new ones in MongoDB 5.0's order? Checked where
    both have a document and no update path replaces it wholesale."""
    if res[0] != "doc":
        return True
    keys = [k for k, _ in res[1]]
    if orig is not None and is_doc(orig):
        old = [k for k in orig.keys() if k in keys]
        if keys[:len(old)] != old:
            return False
        new = keys[len(old):]
    else:
        new = keys
    if new != sorted(new, key=name_key):
        return False
    for k, v in res[1]:
        sub = path + [k]
        if any(p == ".".join(sub) for _, p, _ in entries(case)):
            continue                  # a value set as a whole keeps its own order
        o = orig.get(k) if (orig is not None and is_doc(orig)) else None
        if v[0] == "doc" and (o is not None or any(p.startswith(".".join(sub) + ".")
                                                    for _, p, _ in entries(case))):
            if not order_ok(o, v, sub, case):
                return False
    return True


@known("*", "field-order",
       "MongoDB 5.0 applies an update's fields in lexicographic order of their "
       "paths (numeric names numerically) and appends new fields in that order "
       "(docs: 'Behavior' of the update operators); the library follows the order "
       "the update was written in")
def rule_field_order(case, mine, theirs):
    if is_err(mine) or is_err(theirs) or unordered(mine) != unordered(theirs):
        return False
    return order_ok(case["docj"], mine, [], case)


# ---------------------------------------------------------------------------

def main():
    if len(sys.argv) < 2:
        print("usage: diff_update.py CASES.jsonl [-v]", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    verbose = "-v" in sys.argv
    so = os.environ.get("DOCEXT_SO", "./docext")
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(so)
    db.execute("SELECT doc_config('clock', '2013-03-01T00:00:00Z')")

    cases = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    passed = failed = unchecked = model_unknown = model_only = 0
    counts = {}
    shown = 0
    for case in cases:
        try:
            if case["options"]:
                row = db.execute("SELECT doc_update(?, ?, ?)",
                                 (case["doc"], case["update"], case["options"])).fetchone()
            else:
                row = db.execute("SELECT doc_update(?, ?)", (case["doc"], case["update"])).fetchone()
            mine = norm(loads(row[0]))
        except sqlite3.Error as e:
            mine = "E: " + str(e)
        answers = 0
        bad = []
        verdict = model_check(case, mine)
        if verdict == "unknown":
            model_unknown += 1
        elif verdict:
            bad.append(("model", "E: " + verdict))
        for lib in ("mingo", "nedb"):
            raw = case[lib]
            if isinstance(raw, str) and raw.startswith("E: unsupported"):
                continue
            theirs = raw if is_err(raw) else norm(json.loads(json.dumps(raw), object_pairs_hook=Doc))
            if is_err(theirs) and re.match(r"E: Unknown (modifier|update operator)", theirs):
                continue           # the library lacks the operator
            answers += 1
            if is_err(mine) and is_err(theirs):
                continue
            if not is_err(mine) and not is_err(theirs) and mine == theirs:
                continue
            name = classify(lib, case, mine, theirs)
            if name:
                counts[(lib, name)] = counts.get((lib, name), 0) + 1
                continue
            bad.append((lib, theirs))
        if answers == 0 and not bad:
            if verdict is None:
                model_only += 1     # the model answered for MongoDB alone
            else:
                unchecked += 1
                continue
        if bad:
            failed += 1
            if shown < 40 or verbose:
                shown += 1
                print("FAIL case %d: doc %s\n  update %s%s\n  docext %s" % (
                    case["i"], case["doc"], case["update"],
                    ("\n  options " + case["options"]) if case["options"] else "",
                    show(mine)))
                for lib, theirs in bad:
                    print("  %-6s %s" % (lib, show(theirs)))
        else:
            passed += 1
    for (lib, name), n in sorted(counts.items()):
        reason = [r for l, nm, f, r in KNOWN if nm == name][0]
        print("known: %s %s: %d case%s — %s" % (lib, name, n, "" if n == 1 else "s", reason))
    for k, n in sorted(SEMANTIC_COUNTS.items()):
        print("  mongodb-semantics, %s: %d — %s" % (k, n, REASONS[k]))
    print("checked by the model of MongoDB alone (no library has the operator): %d" % model_only)
    print("not decided by the model (compared with the libraries only): %d" % model_unknown)
    print("unchecked (no library answered, no model): %d" % unchecked)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def show(t):
    """A normalized value back as compact text, for failure reports."""
    if isinstance(t, str):
        return t
    kind = t[0]
    if kind == "doc":
        return "{" + ", ".join("%s: %s" % (k, show(v)) for k, v in t[1]) + "}"
    if kind == "arr":
        return "[" + ", ".join(show(v) for v in t[1]) + "]"
    if kind == "num":
        return "-0.0" if len(t) > 2 else ("%g" % t[1])
    if kind == "str":
        return json.dumps(t[1])
    if kind == "bool":
        return "true" if t[1] else "false"
    if kind == "date":
        return "Date(%d)" % t[1]
    return kind


if __name__ == "__main__":
    sys.exit(main())
