"""test/diff_query_ref.py — a reference model of MongoDB's query matcher,
the third opinion of the differential query test (test/diff_query.py).

    import diff_query_ref
    diff_query_ref.match(doc, filter)   -> 1 or 0

Written from MongoDB's documentation and sources, independently of docext's
C code: the path iterator is a transcription of BSONElementIterator
(src/mongo/db/matcher/path.cpp: getFieldDottedOrArray, then array elements
— a document element gets the rest of the path, and also the rest after a
numeric component equal to its index; a nested array only through its
index — and the whole array last when the path ends at it); each operator
tests each value the iterator yields ("match if any element matches"),
$size and $elemMatch see the arrays only (kNoTraversal); $ne, $nin,
$exists: false and $not are negations of the whole path test. Values are
the parsed cases of diff_query.py: None, bool, int, float, str, list, dict,
("date", iso) and ("regex", source, flags); nothing else is generated, and
anything else raises Unsupported.

Why a model: the libraries depart from MongoDB in known kinds of cases
(diff_query.py's KNOWN), and a rule that excuses a kind of case cannot also
check docext there. So docext must agree with this model on every case, and
a library may disagree with docext only where docext agrees with the model
and the case is of a known kind.
"""
import functools
import math
import re

MISSING = object()


class Unsupported(Exception):
    pass


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_date(v):
    return isinstance(v, tuple) and v[0] == "date"


def is_regex(v):
    return isinstance(v, tuple) and v[0] == "regex"


def canon(v):
    """MongoDB's canonical type order (missing ranks with undefined)."""
    if v is MISSING:
        return 2
    if v is None:
        return 3
    if isinstance(v, bool):
        return 10
    if is_num(v):
        return 4
    if isinstance(v, str):
        return 5
    if isinstance(v, dict):
        return 6
    if isinstance(v, list):
        return 7
    if is_date(v):
        return 11
    if is_regex(v):
        return 13
    raise Unsupported(repr(v))


def sign(x):
    return (x > 0) - (x < 0)


def ustr(s):
    return s.encode("utf-8")


def cmp(a, b):
    """BSON order of two present values."""
    ca, cb = canon(a), canon(b)
    if ca != cb:
        return sign(ca - cb)
    if ca == 3:
        return 0
    if ca == 4:
        return sign((a > b) - (a < b))
    if ca == 5:
        return sign((ustr(a) > ustr(b)) - (ustr(a) < ustr(b)))
    if ca == 10:
        return sign(int(a) - int(b))
    if ca == 11:
        return sign((a[1] > b[1]) - (a[1] < b[1]))
    if ca == 13:
        c = cmp(a[1], b[1])
        return c if c else cmp(a[2], b[2])
    if ca in (6, 7):
        ia = list(a.items()) if ca == 6 else [(str(i), x) for i, x in enumerate(a)]
        ib = list(b.items()) if ca == 6 else [(str(i), x) for i, x in enumerate(b)]
        for (ka, va), (kb, vb) in zip(ia, ib):
            c = sign(canon(va) - canon(vb))
            if c:
                return c
            c = sign((ustr(ka) > ustr(kb)) - (ustr(ka) < ustr(kb)))
            if c:
                return c
            c = cmp(va, vb)
            if c:
                return c
        return sign(len(ia) - len(ib))
    raise Unsupported(repr(a))


def compare_match(op, v, rhs):
    ca, cb = canon(v), canon(rhs)
    if ca != cb:
        if {ca, cb} == {2, 3}:
            return op in ("$eq", "$lte", "$gte")
        return False
    if v is MISSING:
        return op in ("$eq", "$lte", "$gte")
    c = cmp(v, rhs)
    return {"$eq": c == 0, "$lt": c < 0, "$lte": c <= 0, "$gt": c > 0, "$gte": c >= 0}[op]


# -------------------------------------------------------------------------
# Paths: MongoDB's BSONElementIterator (src/mongo/db/matcher/path.cpp)

def field_dotted_or_array(obj, parts, start):
    """getFieldDottedOrArray: (element or MISSING, index of the part where
    it stopped)."""
    cur = obj
    i = start
    res = MISSING
    while i < len(parts):
        res = cur.get(parts[i], MISSING) if isinstance(cur, dict) else MISSING
        if res is MISSING:
            break
        if isinstance(res, dict):
            cur = res
            i += 1
            continue
        if isinstance(res, list):
            break
        if i + 1 < len(parts):
            res = MISSING
        break
    return res, i


def as_obj(v):
    """An array read as a document (keys "0", "1", ...)."""
    if isinstance(v, list):
        return {str(i): x for i, x in enumerate(v)}
    return v


def iterate(obj, parts, leaf_traverse, start=0):
    """The values the iterator yields for path parts over document obj."""
    e, idx = field_dotted_or_array(as_obj(obj), parts, start)
    if not isinstance(e, list):
        yield e
        return
    yield from iter_array(e, parts[idx + 1:], leaf_traverse)


def iter_array(arr, rest, leaf_traverse):
    has_more = len(rest) > 0
    if not has_more and not leaf_traverse:
        yield arr
        return
    nxt = rest[0] if has_more else None
    is_num_part = has_more and nxt.isdigit()
    for j, el in enumerate(arr):
        if not has_more:
            yield el
            continue
        offset = is_num_part and nxt == str(j)
        if isinstance(el, dict):
            yield from iterate(el, rest, leaf_traverse)
            if offset:
                if len(rest) == 1:
                    yield el
                else:
                    yield from iterate(el, rest[1:], leaf_traverse)
        elif offset:
            if len(rest) == 1:
                yield el
            elif isinstance(el, list):
                yield from iter_array(el, rest[1:], leaf_traverse)
    if has_more:
        return
    yield arr


# -------------------------------------------------------------------------
# Expressions

TYPES = {"double": 1, "string": 2, "object": 3, "array": 4, "bool": 8, "date": 9,
         "null": 10, "regex": 11, "int": 16, "long": 18, "decimal": 19}


def type_code(v):
    if v is MISSING:
        return None
    if v is None:
        return 10
    if isinstance(v, bool):
        return 8
    if isinstance(v, int):
        return 16 if -2**31 <= v < 2**31 else 18
    if isinstance(v, float):
        return 1
    if isinstance(v, str):
        return 2
    if isinstance(v, dict):
        return 3
    if isinstance(v, list):
        return 4
    if is_date(v):
        return 9
    if is_regex(v):
        return 11
    raise Unsupported(repr(v))


def py_regex(src, flags):
    f = 0
    for c in flags:
        f |= {"i": re.I, "m": re.M, "s": re.S, "x": re.X}[c]
    return re.compile(src, f)


def regex_test(src, flags, v):
    if isinstance(v, str):
        return py_regex(src, flags).search(v) is not None
    if is_regex(v):
        return v[1] == src and v[2] == flags
    return False


def to_int_trunc(v):
    if isinstance(v, int):
        return v
    return int(math.trunc(v))


def c_mod(a, b):
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def is_op_doc(v):
    return isinstance(v, dict) and len(v) > 0 and next(iter(v)).startswith("$")


class Leaf:
    """One operator: test(v) on a single value (MISSING for missing)."""

    def __init__(self, op, arg, leaf_traverse=True):
        self.op, self.arg, self.leaf_traverse = op, arg, leaf_traverse

    def test(self, v):
        op, arg = self.op, self.arg
        if op in ("$eq", "$lt", "$lte", "$gt", "$gte"):
            return compare_match(op, v, arg)
        if op == "$regex":
            return v is not MISSING and regex_test(arg[0], arg[1], v)
        if op == "$in":
            for x in arg:
                if is_regex(x):
                    if v is not MISSING and regex_test(x[1], x[2], v):
                        return True
                elif compare_match("$eq", v, x):
                    return True
            return False
        if op == "$exists":
            return v is not MISSING
        if op == "$type":
            t = type_code(v)
            if t is None:
                return False
            for x in (arg if isinstance(arg, list) else [arg]):
                if x == "number" and t in (1, 16, 18, 19):
                    return True
                code = TYPES.get(x) if isinstance(x, str) else x
                if code == t:
                    return True
            return False
        if op == "$mod":
            if not is_num(v) or (isinstance(v, float) and not math.isfinite(v)):
                return False
            d, r = to_int_trunc(arg[0]), to_int_trunc(arg[1])
            return c_mod(to_int_trunc(v), d) == r
        if op == "$size":
            return isinstance(v, list) and len(v) == arg
        if op.startswith("$bits"):
            if not is_num(v):
                return False
            if isinstance(v, float) and (v != math.floor(v) or not -2**63 <= v < 2**63):
                return False
            x = int(v)
            bits = arg if isinstance(arg, list) else [i for i in range(63) if (arg >> i) & 1]
            got = [(x >> b) & 1 for b in bits]
            return {"$bitsAllSet": all(got), "$bitsAnySet": any(got),
                    "$bitsAllClear": not any(got), "$bitsAnyClear": not all(got)}[op]
        if op == "$elemMatch":
            if not isinstance(v, list):
                return False
            return any(self.arg.test_elem(el) for el in v)
        raise Unsupported(op)


class ElemMatch:
    def __init__(self, arg):
        first = next(iter(arg)) if arg else None
        self.value_form = first is not None and first.startswith("$") and \
            first not in ("$and", "$or", "$nor", "$comment")
        if self.value_form:
            self.tests = value_ops(arg)
        else:
            self.sub = parse_filter(arg)

    def test_elem(self, el):
        if self.value_form:
            return all(t(el) for t in self.tests)
        if isinstance(el, (dict, list)):
            return self.sub(as_obj(el))
        return False


def value_ops(ops):
    """Tests on a single value for the operators of ops (value leaves)."""
    tests = []
    for op, arg in ops.items():
        for leaf_fn in op_leaves(op, arg, ops):
            tests.append(leaf_fn)
    return tests


def op_leaves(op, arg, ops):
    """Single-value tests for one operator (regex with its $options)."""
    if op == "$options":
        return []
    if op == "$regex":
        src = arg[1] if is_regex(arg) else arg
        flags = arg[2] if is_regex(arg) else ops.get("$options", "")
        return [Leaf("$regex", (src, flags)).test]
    if op == "$ne":
        return [lambda v, a=arg: not compare_match("$eq", v, a)]
    if op == "$nin":
        t = Leaf("$in", arg).test
        return [lambda v: not t(v)]
    if op == "$exists":
        t = Leaf("$exists", None).test
        return [t] if arg else [lambda v: not t(v)]
    if op == "$eq" and is_regex(arg):
        return [lambda v, a=arg: v is not MISSING and is_regex(v) and v[1:] == a[1:]]
    if op == "$all":
        if not arg:
            return [lambda v: False]
        out = []
        for x in arg:
            if isinstance(x, dict) and "$elemMatch" in x:
                out.append(Leaf("$elemMatch", ElemMatch(x["$elemMatch"])).test)
            elif is_regex(x):
                out.append(Leaf("$regex", (x[1], x[2])).test)
            else:
                out.append(lambda v, a=x: compare_match("$eq", v, a))
        return out
    if op == "$not":
        if is_regex(arg):
            t = Leaf("$regex", (arg[1], arg[2])).test
            return [lambda v: not t(v)]
        ts = value_ops(arg)
        return [lambda v: not all(t(v) for t in ts)]
    if op == "$elemMatch":
        return [Leaf("$elemMatch", ElemMatch(arg)).test]
    return [Leaf(op, arg).test]


def path_pred(path, op, arg, ops):
    """A predicate on a document for one operator over a path."""
    parts = path.split(".")
    no_leaf = op in ("$size", "$elemMatch")

    def any_value(test, leaf_traverse=True):
        return lambda d: any(test(v) for v in iterate(d, parts, leaf_traverse))

    if op == "$options":
        return None
    if op in ("$ne", "$nin"):
        pos = path_pred(path, "$eq" if op == "$ne" else "$in", arg, ops)
        return lambda d: not pos(d)
    if op == "$exists" and not arg:
        pos = path_pred(path, "$exists", True, ops)
        return lambda d: not pos(d)
    if op == "$not":
        if is_regex(arg):
            pos = path_pred(path, "$regex", arg, {})
            return lambda d: not pos(d)
        subs = [p for p in (path_pred(path, o, a, arg) for o, a in arg.items()) if p]
        return lambda d: not all(p(d) for p in subs)
    if op == "$all":
        if not arg:
            return lambda d: False
        subs = []
        for x in arg:
            if isinstance(x, dict) and "$elemMatch" in x:
                subs.append(path_pred(path, "$elemMatch", x["$elemMatch"], {}))
            elif is_regex(x):
                subs.append(path_pred(path, "$regex", x, {}))
            else:
                subs.append(path_pred(path, "$eq", x, {}))
        return lambda d: all(p(d) for p in subs)
    tests = op_leaves(op, arg, ops)
    assert len(tests) == 1, op
    return any_value(tests[0], not no_leaf)


def parse_filter(f):
    preds = []
    for k, v in f.items():
        if k in ("$and", "$or", "$nor"):
            subs = [parse_filter(x) for x in v]
            if k == "$and":
                preds.append(lambda d, s=subs: all(p(d) for p in s))
            elif k == "$or":
                preds.append(lambda d, s=subs: any(p(d) for p in s))
            else:
                preds.append(lambda d, s=subs: not any(p(d) for p in s))
        elif k == "$comment":
            continue
        elif k == "$expr":
            preds.append(lambda d, e=v: truth(agg_eval(e, d)))
        elif k.startswith("$"):
            raise Unsupported(k)
        elif is_op_doc(v):
            for op, arg in v.items():
                p = path_pred(k, op, arg, v)
                if p:
                    preds.append(p)
        elif is_regex(v):
            preds.append(path_pred(k, "$regex", v, {}))
        else:
            preds.append(path_pred(k, "$eq", v, {}))
    return lambda d: all(p(d) for p in preds)


# -------------------------------------------------------------------------
# $expr: aggregation expressions (MongoDB's Expression classes, from the
# documentation of each operator). Evaluation errors raise ExprError; the
# order in which arguments are evaluated and checked follows the server.

class ExprError(Exception):
    pass


def truth(v):
    """Value::coerceToBool: false, null, missing and zeros are false."""
    if v is MISSING or v is None or v is False:
        return False
    if is_num(v):
        return v != 0
    return True


def nullish(v):
    return v is MISSING or v is None


def agg_cmp(a, b):
    """Aggregation's order: missing below null (there is no undefined or
    MinKey in the generated cases), then BSON's order."""
    if a is MISSING or b is MISSING:
        return 0 if a is b else (-1 if a is MISSING else 1)
    return cmp(a, b)


def agg_path(v, parts):
    """ExpressionFieldPath: over an array, each element (documents give
    their value, arrays a nested array, the rest nothing)."""
    if isinstance(v, list):
        out = []
        for el in v:
            if isinstance(el, (dict, list)):
                x = agg_path(el, parts)
                if x is not MISSING:
                    out.append(x)
        return out
    if not parts:
        return v
    if isinstance(v, dict) and parts[0] in v:
        return agg_path(v[parts[0]], parts[1:]) if len(parts) > 1 else v[parts[0]]
    return MISSING


def type_alias(v):
    if v is MISSING:
        return "missing"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int" if -2**31 <= v < 2**31 else "long"
    if isinstance(v, float):
        return "double"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    if is_date(v):
        return "date"
    if is_regex(v):
        return "regex"
    raise Unsupported(repr(v))


def date_ms(v):
    import datetime
    t = datetime.datetime.strptime(v[1], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return round(t.timestamp() * 1000)


def ms_date(ms):
    import datetime
    t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return ("date", t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000))


def to_ms(x):
    return x if isinstance(x, int) else int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def string_upper():
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def string_lower():
    return "abcdefghijklmnopqrstuvwxyz"


def agg_args(arg):
    return arg if isinstance(arg, list) else [arg]


def agg_eval(e, doc, env=None):
    """The value of expression e for doc; env maps the names of $map's,
    $filter's and $reduce's variables to their values."""
    env = env or {}
    if isinstance(e, str) and e.startswith("$$"):
        if e == "$$REMOVE":
            return MISSING
        parts = e.split(".")
        name = parts[0][2:]
        if name in env:
            base = env[name]
        else:
            assert name in ("ROOT", "CURRENT")
            base = doc
        return agg_path(base, parts[1:]) if len(parts) > 1 else base
    if isinstance(e, str) and e.startswith("$"):
        return agg_path(doc, e[1:].split("."))
    if isinstance(e, list):
        return [None if x is MISSING else x for x in (agg_eval(y, doc, env) for y in e)]
    if not isinstance(e, dict):
        return e
    if not e or not next(iter(e)).startswith("$"):
        out = {}
        for k, y in e.items():
            x = agg_eval(y, doc, env)
            if x is not MISSING:
                out[k] = x
        return out
    (op, arg), = e.items()
    ev = lambda y: agg_eval(y, doc, env)
    if op == "$literal":
        return arg
    if op in ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp"):
        a, b = [ev(y) for y in agg_args(arg)]
        c = agg_cmp(a, b)
        return {"$eq": c == 0, "$ne": c != 0, "$gt": c > 0, "$gte": c >= 0,
                "$lt": c < 0, "$lte": c <= 0, "$cmp": c}[op]
    if op == "$and":
        return all(truth(ev(y)) for y in agg_args(arg))
    if op == "$or":
        return any(truth(ev(y)) for y in agg_args(arg))
    if op == "$not":
        return not truth(ev(agg_args(arg)[0]))
    if op == "$cond":
        if isinstance(arg, dict):
            arg = [arg["if"], arg["then"], arg["else"]]
        return ev(arg[1]) if truth(ev(arg[0])) else ev(arg[2])
    if op == "$ifNull":
        args = agg_args(arg)
        for y in args[:-1]:
            x = ev(y)
            if not nullish(x):
                return x
        return ev(args[-1])
    if op in ("$add", "$multiply"):
        total, date = (1 if op == "$multiply" else 0), None
        for y in agg_args(arg):
            x = ev(y)
            if nullish(x):
                return None
            if op == "$add" and is_date(x):
                if date is not None:
                    raise ExprError("two dates")
                date = x
            elif not is_num(x):
                raise ExprError("not a number")
            else:
                total = total * x if op == "$multiply" else total + x
        return ms_date(date_ms(date) + to_ms(total)) if date is not None else total
    if op in ("$subtract", "$divide", "$mod"):
        a, b = [ev(y) for y in agg_args(arg)]
        if nullish(a) or nullish(b):
            return None
        if op == "$subtract" and is_date(a) and is_date(b):
            return date_ms(a) - date_ms(b)
        if op == "$subtract" and is_date(a) and is_num(b):
            return ms_date(date_ms(a) - to_ms(b))
        if not is_num(a) or not is_num(b):
            raise ExprError("not numbers")
        if op == "$subtract":
            return a - b
        if b == 0:
            raise ExprError("by zero")
        if op == "$divide":
            return float(a) / float(b)
        if isinstance(a, float) or isinstance(b, float):
            return math.fmod(a, b)
        return int(math.fmod(a, b))
    if op in ("$abs", "$ceil", "$floor", "$trunc"):
        x = ev(agg_args(arg)[0])
        if nullish(x):
            return None
        if not is_num(x):
            raise ExprError("not a number")
        if isinstance(x, int) or op == "$abs":
            return abs(x) if op == "$abs" else x
        return float({"$ceil": math.ceil, "$floor": math.floor, "$trunc": math.trunc}[op](x))
    if op == "$size":
        x = ev(agg_args(arg)[0])
        if not isinstance(x, list):
            raise ExprError("$size of a non-array")
        return len(x)
    if op == "$in":
        a, b = [ev(y) for y in agg_args(arg)]
        if not isinstance(b, list):
            raise ExprError("$in of a non-array")
        return any(agg_cmp(a, x) == 0 for x in b)
    if op == "$type":
        return type_alias(ev(agg_args(arg)[0]))
    if op == "$isArray":
        return isinstance(ev(agg_args(arg)[0]), list)
    if op == "$concat":
        out = ""
        for y in agg_args(arg):
            x = ev(y)
            if nullish(x):
                return None
            if not isinstance(x, str):
                raise ExprError("not a string")
            out += x
        return out
    if op in ("$map", "$filter", "$reduce"):
        inp = ev(arg["input"])
        if op == "$filter" and "limit" in arg and not nullish(ev(arg["limit"])):
            limit = ev(arg["limit"])
            if not is_num(limit) or limit != int(limit) or limit < 1:
                raise ExprError("bad limit")
        else:
            limit = None
        if nullish(inp):
            return None
        if not isinstance(inp, list):
            raise ExprError(op + " of a non-array")
        if op == "$reduce":
            acc = ev(arg["initialValue"])
            for x in inp:
                acc = agg_eval(arg["in"], doc, dict(env, value=acc, this=x))
            return acc
        name = arg.get("as", "this")
        out = []
        for x in inp:
            if op == "$map":
                v = agg_eval(arg["in"], doc, dict(env, **{name: x}))
                out.append(None if v is MISSING else v)
            elif truth(agg_eval(arg["cond"], doc, dict(env, **{name: x}))):
                if limit is not None and len(out) >= limit:
                    break
                out.append(x)
        return out
    if op == "$concatArrays":
        out = []
        for y in agg_args(arg):
            x = ev(y)
            if nullish(x):
                return None
            if not isinstance(x, list):
                raise ExprError("not an array")
            out += x
        return out
    if op in ("$reverseArray", "$first", "$last", "$slice"):
        args = [ev(y) for y in agg_args(arg)]
        a = args[0]
        if nullish(a):
            return None
        if not isinstance(a, list):
            raise ExprError("not an array")
        if op == "$reverseArray":
            return a[::-1]
        if op in ("$first", "$last"):
            return (a[0] if op == "$first" else a[-1]) if a else MISSING
        for x in args[1:]:
            if not is_num(x) or x != int(x):
                raise ExprError("$slice of a non-integer")
        if len(args) == 2:
            n = int(args[1])
            return a[:n] if n >= 0 else a[max(0, len(a) + n):]
        pos, n = int(args[1]), int(args[2])
        if n <= 0:
            raise ExprError("$slice count")
        start = max(0, len(a) + pos) if pos < 0 else min(pos, len(a))
        return a[start:start + n]
    if op in ("$sum", "$avg", "$min", "$max", "$stdDevPop", "$stdDevSamp"):
        args = [ev(y) for y in agg_args(arg)]
        vals = args[0] if len(args) == 1 and isinstance(args[0], list) else args
        if op in ("$stdDevPop", "$stdDevSamp"):
            # Welford's online algorithm in doubles, as MongoDB's
            # accumulator_std_dev.cpp computes it
            n, mean, m2 = 0, 0.0, 0.0
            for x in vals:
                if is_num(x):
                    n += 1
                    delta = float(x) - mean
                    mean += delta / n
                    m2 += delta * (float(x) - mean)
            n -= op == "$stdDevSamp"
            return math.sqrt(m2 / n) if n > 0 else None
        if op in ("$sum", "$avg"):
            nums = [x for x in vals if is_num(x)]
            if op == "$sum":
                return sum(nums)
            return sum(nums) / len(nums) if nums else None
        vals = [x for x in vals if not nullish(x)]
        if not vals:
            return None
        best = vals[0]
        for x in vals[1:]:
            c = agg_cmp(x, best)
            if (c < 0) if op == "$min" else (c > 0):
                best = x
        return best
    if op in ("$toLower", "$toUpper"):
        x = ev(agg_args(arg)[0])
        if nullish(x):
            return ""
        if not isinstance(x, str):
            raise ExprError("not a string")
        table = {c: chr(ord(c) + (32 if op == "$toLower" else -32))
                 for c in (string_upper() if op == "$toLower" else string_lower())}
        return "".join(table.get(c, c) for c in x)
    if op == "$mergeObjects":
        out = {}
        for y in agg_args(arg):
            x = ev(y)
            if nullish(x):
                continue
            if not isinstance(x, dict):
                raise ExprError("$mergeObjects of a non-document")
            out.update(x)          # an existing field keeps its place
        return out
    if op == "$strLenCP":
        x = ev(agg_args(arg)[0])
        if not isinstance(x, str):
            raise ExprError("not a string")
        return len(x)
    return agg_eval_more(op, arg, ev)


# Whitespace $trim removes when no chars are given.
TRIM_SPACE = "\u0000 \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005" \
             "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def agg_set(x):
    """An array as a sorted list of distinct values (aggregation equality)."""
    out = []
    for v in sorted(x, key=functools.cmp_to_key(agg_cmp)):
        if not out or agg_cmp(out[-1], v) != 0:
            out.append(v)
    return out


def whole(x):
    return is_num(x) and not isinstance(x, bool) and x == int(x)


def agg_eval_more(op, arg, ev):
    """The operators of MongoDB's documentation added with docext's second
    batch: sets, more strings and arrays, conversions of simple values,
    $pow/$sqrt/$round."""
    args = [ev(y) for y in agg_args(arg)] if not (isinstance(arg, dict) and op in (
        "$trim", "$ltrim", "$rtrim", "$replaceOne", "$replaceAll", "$convert", "$firstN", "$lastN",
        "$maxN", "$minN", "$zip", "$sortArray", "$regexMatch", "$median", "$percentile")) else None
    if op in ("$setUnion", "$setIntersection", "$setDifference"):
        if any(not nullish(a) and not isinstance(a, list) for a in args):
            raise ExprError(op + " of a non-array")
        if any(nullish(a) for a in args):
            return None
        sets = [agg_set(a) for a in args]
        if op == "$setUnion":
            return agg_set([v for s_ in sets for v in s_])
        if op == "$setIntersection":
            return [v for v in sets[0] if all(any(agg_cmp(v, w) == 0 for w in s_) for s_ in sets[1:])]
        return [v for v in sets[0] if not any(agg_cmp(v, w) == 0 for w in sets[1])]
    if op in ("$setEquals", "$setIsSubset"):
        if any(not isinstance(a, list) for a in args):
            raise ExprError(op + " of a non-array")
        sets = [agg_set(a) for a in args]
        sub = lambda a, b: all(any(agg_cmp(v, w) == 0 for w in b) for v in a)
        if op == "$setIsSubset":
            return sub(sets[0], sets[1])
        return all(len(x) == len(sets[0]) and sub(x, sets[0]) for x in sets[1:])
    if op in ("$anyElementTrue", "$allElementsTrue"):
        if not isinstance(args[0], list):
            raise ExprError(op + " of a non-array")
        f = any if op == "$anyElementTrue" else all
        return f(truth(v) for v in args[0])
    if op == "$indexOfArray":
        a = args[0]
        if nullish(a):
            return None
        if not isinstance(a, list):
            raise ExprError("not an array")
        lim = args[2:]
        if any(not whole(x) or x < 0 for x in lim):
            raise ExprError("bad index")
        start = int(lim[0]) if lim else 0
        end = int(lim[1]) if len(lim) > 1 else len(a)
        for i in range(start, min(end, len(a))):
            if agg_cmp(a[i], args[1]) == 0:
                return i
        return -1
    if op == "$range":
        if any(not whole(x) or not -2**31 <= x < 2**31 for x in args):
            raise ExprError("bad $range")
        step = int(args[2]) if len(args) > 2 else 1
        if step == 0:
            raise ExprError("step 0")
        return list(range(int(args[0]), int(args[1]), step))
    if op in ("$indexOfCP", "$indexOfBytes") and nullish(args[0]):
        return None                        # (the other arguments unchecked)
    if op in ("$split", "$strcasecmp", "$indexOfCP", "$indexOfBytes", "$substrBytes"):
        strs = args if op in ("$split", "$strcasecmp") else args[:2] if op != "$substrBytes" else args[:1]
        for x in strs:
            if not nullish(x) and not isinstance(x, str):
                raise ExprError("not a string")
        if op == "$strcasecmp":
            a = "".join(c.lower() if c.isascii() else c for c in (args[0] if isinstance(args[0], str) else ""))
            b = "".join(c.lower() if c.isascii() else c for c in (args[1] if isinstance(args[1], str) else ""))
            a, b = a.encode(), b.encode()
            return (a > b) - (a < b)
        if op == "$substrBytes":
            if not whole(args[1]) or args[1] < 0 or not whole(args[2]):
                raise ExprError("bad range")
            raw = (args[0] if isinstance(args[0], str) else "").encode()
            start = min(int(args[1]), len(raw))
            n = int(args[2])
            end = len(raw) if n < 0 or n > len(raw) - start else start + n
            try:
                return raw[start:end].decode()
            except UnicodeDecodeError:
                raise ExprError("cuts a character")
        if nullish(args[0]):
            return None
        if op == "$split":
            if nullish(args[1]):
                return None
            if args[1] == "":
                raise ExprError("empty delimiter")
            return args[0].split(args[1])
        if nullish(args[1]):
            raise ExprError("null substring")
        units = list(args[0]) if op == "$indexOfCP" else list(args[0].encode())
        sub = list(args[1]) if op == "$indexOfCP" else list(args[1].encode())
        lim = args[2:]
        if any(not whole(x) or x < 0 for x in lim):
            raise ExprError("bad index")
        start = int(lim[0]) if lim else 0
        end = min(int(lim[1]), len(units)) if len(lim) > 1 else len(units)
        if start > len(units) or (len(lim) > 1 and start > int(lim[1])):
            return -1
        for i in range(start, end - len(sub) + 1):
            if units[i:i + len(sub)] == sub:
                return i
        return -1
    if op in ("$trim", "$ltrim", "$rtrim"):
        x = ev(arg["input"])
        chars = ev(arg["chars"]) if "chars" in arg else TRIM_SPACE
        for y in (x, chars):
            if not nullish(y) and not isinstance(y, str):
                raise ExprError("not a string")
        if nullish(x) or nullish(chars):
            return None
        if op == "$trim":
            return x.strip(chars)
        return x.lstrip(chars) if op == "$ltrim" else x.rstrip(chars)
    if op in ("$replaceOne", "$replaceAll"):
        x, f, r = ev(arg["input"]), ev(arg["find"]), ev(arg["replacement"])
        for y in (x, f, r):
            if not nullish(y) and not isinstance(y, str):
                raise ExprError("not a string")
        if nullish(x) or nullish(f) or nullish(r):
            return None
        return x.replace(f, r, 1) if op == "$replaceOne" else x.replace(f, r)
    if op == "$objectToArray":
        if nullish(args[0]):
            return None
        if not isinstance(args[0], dict):
            raise ExprError("not a document")
        return [{"k": k, "v": v} for k, v in args[0].items()]
    if op == "$arrayToObject":
        a = args[0]
        if nullish(a):
            return None
        if not isinstance(a, list):
            raise ExprError("not an array")
        out = {}
        for el in a:
            if isinstance(el, list) and len(el) == 2:
                k, v = el
            elif isinstance(el, dict) and len(el) == 2 and "k" in el and "v" in el:
                k, v = el["k"], el["v"]
            else:
                raise ExprError("bad pair")
            if not isinstance(k, str) or "\0" in k:
                raise ExprError("bad name")
            out[k] = v
        return out
    if op in ("$toString", "$toBool", "$toInt", "$isNumber", "$convert"):
        if op == "$convert":
            x, to = ev(arg["input"]), ev(arg["to"])
            if nullish(to):
                return None
            if not isinstance(to, str):
                raise Unsupported("$convert to a type number")
            if to not in ("double", "string", "objectId", "bool", "date", "int", "long", "decimal"):
                raise ExprError("unknown type name")
            to = {"string": "$toString", "bool": "$toBool", "int": "$toInt"}.get(to)
            if to is None:
                raise Unsupported("$convert to that")
            if nullish(x):
                return ev(arg["onNull"]) if "onNull" in arg else None
            try:
                return agg_eval_more(to, {"$literal": x}, lambda y: y["$literal"])
            except ExprError:
                if "onError" in arg:
                    return ev(arg["onError"])
                raise
        x = args[0]
        if op == "$isNumber":
            return is_num(x) and not isinstance(x, bool)
        if nullish(x):
            return None
        if op == "$toString":
            if isinstance(x, bool):
                return "true" if x else "false"
            if isinstance(x, (str, int)):
                return str(x)
            if isinstance(x, float):
                raise Unsupported("$toString of a double")
            raise ExprError("unsupported")
        if op == "$toBool":
            if isinstance(x, (bool, int, float, str)) or is_date(x):
                return truth(x) if not isinstance(x, str) else True
            raise ExprError("unsupported")
        if isinstance(x, bool):
            return int(x)
        if isinstance(x, float):
            if math.isnan(x) or math.isinf(x) or not -2**31 <= math.trunc(x) < 2**31:
                raise ExprError("not an int")
            return math.trunc(x)
        if isinstance(x, int):
            if not -2**31 <= x < 2**31:
                raise ExprError("overflow")
            return x
        if isinstance(x, str):
            if not re.fullmatch(r"[+-]?[0-9]+", x) or not -2**31 <= int(x) < 2**31:
                raise ExprError("not an int")
            return int(x)
        raise ExprError("unsupported")
    if op in ("$bitAnd", "$bitOr", "$bitXor", "$bitNot"):
        out = -1 if op == "$bitAnd" else 0
        for x in args:
            if nullish(x):
                return None
            if not isinstance(x, int) or isinstance(x, bool):
                raise ExprError("not an integer")
            out = {"$bitAnd": out & x, "$bitOr": out | x, "$bitXor": out ^ x, "$bitNot": ~x}[op]
        return out
    if op in ("$median", "$percentile"):
        # MongoDB's percentile_algo_discrete and _continuous: the numbers of
        # an array (NaN left out) or a number alone, as doubles, sorted;
        # discrete: rank ceil(n*p) - 1, continuous: interpolated at p*(n-1)
        a = {k: ev(v) for k, v in arg.items()}
        x = a["input"]
        if is_num(x):
            xs = [float(x)]
        elif isinstance(x, list):
            xs = sorted(float(v) for v in x if is_num(v) and not math.isnan(float(v)))
        else:
            xs = []
        ps = [0.5] if op == "$median" else a["p"]
        if not isinstance(ps, list) or not ps or any(not is_num(q) or not 0 <= q <= 1 for q in ps):
            raise ExprError("bad p")

        def quantile(q):
            n = len(xs)
            if a["method"] != "continuous":
                return xs[n - 1] if q >= 1 else xs[max(0, math.ceil(n * q) - 1)]
            rank = q * (n - 1)
            lo, hi = math.floor(rank), math.ceil(rank)
            if xs[lo] == -math.inf:
                return -math.inf
            if xs[hi] == math.inf:
                return math.inf
            return xs[lo] if lo == hi else (hi - rank) * xs[lo] + (rank - lo) * xs[hi]
        out = [quantile(q) if xs else None for q in ps]
        return out[0] if op == "$median" else out
    if op in ("$firstN", "$lastN", "$maxN", "$minN", "$zip", "$sortArray", "$regexMatch"):
        a = {k: ev(v) for k, v in arg.items()}
        if op == "$regexMatch":
            x, r = a.get("input"), a.get("regex")
            if not nullish(x) and not isinstance(x, str):
                raise ExprError("not a string")
            if not nullish(r) and not isinstance(r, str):
                raise ExprError("not a regex")
            if nullish(x) or nullish(r):
                return False
            return re.search(r, x) is not None
        if op == "$sortArray":
            by = a["sortBy"]
            if by not in (1, -1) or isinstance(by, bool):
                raise Unsupported("$sortArray by fields")
            if nullish(a["input"]):
                return None
            if not isinstance(a["input"], list):
                raise ExprError("not an array")
            return sorted(a["input"], key=functools.cmp_to_key(agg_cmp), reverse=by == -1)
        if op == "$zip":
            ins = a["inputs"]
            if nullish(ins):
                return None
            if not isinstance(ins, list):
                raise ExprError("not an array")
            for x in ins:                       # (in order, as MongoDB checks them)
                if nullish(x):
                    return None
                if not isinstance(x, list):
                    raise ExprError("not arrays")
            n = min((len(x) for x in ins), default=0)
            return [[x[i] for x in ins] for i in range(n)]
        # (MongoDB's evaluateAccumulatorN: n checked first; then any input
        # but an array, null too, is an error; the accumulator over it)
        n, x = a["n"], a["input"]
        if not whole(n) or n < 1:
            raise ExprError("bad n")
        if not isinstance(x, list):
            raise ExprError("not an array")
        n = int(n)
        if op == "$firstN":
            return x[:n]
        if op == "$lastN":
            return x[max(0, len(x) - n):]
        # AccumulatorMinMaxN's multiset: ascending, equal values in the order
        # they came; once it holds n, a value enters only if strictly better
        # than the worst held ($minN: the last, $maxN: the first), which
        # leaves; $maxN reads it backwards
        held = []
        for v in x:
            if nullish(v):
                continue
            if len(held) == n:
                if op == "$minN" and agg_cmp(held[-1], v) > 0:
                    held.pop()
                elif op == "$maxN" and agg_cmp(held[0], v) < 0:
                    held.pop(0)
                else:
                    continue
            i = len(held)
            while i > 0 and agg_cmp(held[i - 1], v) > 0:
                i -= 1
            held.insert(i, v)
        return held if op == "$minN" else held[::-1]
    if op in ("$pow", "$sqrt", "$round"):
        if any(nullish(a) for a in args):
            return None
        if any(not is_num(a) or isinstance(a, bool) for a in args):
            raise ExprError("not numbers")
        if op == "$sqrt":
            if args[0] < 0:
                raise ExprError("negative")
            return math.sqrt(args[0])
        if op == "$pow":
            b, e = args
            if b == 0 and e < 0:
                raise ExprError("0 to a negative power")
            if isinstance(b, int) and isinstance(e, int) and (e >= 0 or b in (1, -1)):
                r = b ** abs(e) if e >= 0 else b ** e
                if -2**63 <= r < 2**63:
                    return int(r)
            try:
                return math.pow(b, e)
            except (OverflowError, ValueError):
                raise Unsupported("$pow in doubles")
        place = args[1] if len(args) > 1 else 0
        if not whole(place) or not -20 <= place <= 100:
            raise ExprError("bad place")
        x, place = args[0], int(place)
        if isinstance(x, float):
            raise Unsupported("$round of a double")
        if place >= 0:
            return x
        m = 10 ** -place
        q, r = divmod(abs(x), m)
        if r * 2 > m or (r * 2 == m and q % 2 == 1):
            q += 1
        out = q * m * (-1 if x < 0 else 1)
        if not -2**63 <= out < 2**63:
            raise ExprError("overflow")
        return out
    raise Unsupported(op)


def match(doc, f):
    return 1 if parse_filter(f)(doc) else 0
