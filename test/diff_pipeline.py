#!/usr/bin/python3
"""test/diff_pipeline.py — differential test of pipeline updates.

    /usr/bin/python3 test/diff_pipeline.py [N] [SEED] [-v]

Generates N seeded random (document, pipeline) cases — nested documents,
arrays of documents and of scalars, scalars where documents are expected;
stages $set/$addFields (dotted paths, nested specs, field paths, literals,
$$REMOVE), $project (inclusion with computed fields, exclusion, _id: 0),
$unset and $replaceRoot/$replaceWith — and compares what docext's
doc_update(doc, pipeline) gives with a model of MongoDB's stages written
here from MongoDB's documentation and its ProjectionNode semantics
(src/mongo/db/exec/projection_node.cpp: fields are walked in the document's
order; arrays apply the node to each element; for computed fields a scalar
or missing value becomes a new document of them; inclusion drops scalars
where documents were expected; new computed fields go after the existing
ones), independently of docext's C code. Expressions are evaluated by the
reference model of the query test (diff_query_ref.agg_eval). About a third
of the cases instead set one field to one operator of the second batch
(sets, $indexOfArray, $range, $split, $strcasecmp, $indexOfCP/Bytes,
$substrBytes, the $trim family, $replaceOne/All, $objectToArray,
$arrayToObject, $toString/$toBool/$toInt/$isNumber, $convert with onError
and onNull, $pow, $sqrt, $round to a place, the bitwise operators,
$firstN/$lastN/$maxN/$minN, $zip, $sortArray, $regexMatch, $median,
$percentile) over fields and
constants of every kind, so that each one's results and errors are compared
often; a case the model cannot compute (a double's text) is left out and
counted.

A case passes when both give the same document (field order included), or
both refuse the pipeline. The last line is "N passed, M failed".
"""
import json
import os
import random
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diff_query_ref as ref   # noqa: E402

MISSING = ref.MISSING
KEYS = ["a", "b", "c"]


class Refused(Exception):
    """The pipeline is not valid (docext must refuse it too)."""


# -------------------------------------------------------------------------
# Generating

def gen_value(rnd, depth):
    r = rnd.random()
    if depth >= 3 or r < 0.5:
        return rnd.choice([0, 1, 2, 7, -1, "x", "yz", None, True, False])
    if r < 0.75:
        return gen_doc(rnd, depth + 1)
    return [gen_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]


def gen_doc(rnd, depth=0):
    return {k: gen_value(rnd, depth) for k in KEYS if rnd.random() < 0.6}


def gen_path(rnd):
    return ".".join(rnd.choice(KEYS) for _ in range(1 + rnd.randrange(3)))


def gen_more(rnd):
    """The second batch of operators: sets, strings, arrays, conversions and
    numbers, over fields or constants of the kinds they take (and others)."""
    k = "$" + rnd.choice(KEYS)
    arr = rnd.choice([k, [1, "x", k], [[1, 2], 2, 1], [], None])
    s = rnd.choice([k, "a,b,,c", " x yz ", "éaé", "xyzzy", None, 3])
    n = rnd.choice([k, 0, 1, 2, -1, 7, 10, -5, 1.5, None, "3"])
    return rnd.choice([
        {rnd.choice(["$setUnion", "$setIntersection", "$setDifference"]):
         [arr, rnd.choice([[1, 2, "x"], k, []])]},
        {rnd.choice(["$setEquals", "$setIsSubset"]): [arr, rnd.choice([[1, "x", 1], k])]},
        {rnd.choice(["$anyElementTrue", "$allElementsTrue"]): [arr]},
        {"$indexOfArray": [arr, rnd.choice([1, "x", k])] + rnd.choice([[], [n], [n, n]])},
        {"$range": [n, n] + rnd.choice([[], [n]])},
        {"$split": [s, rnd.choice([",", "y", "", k])]},
        {"$strcasecmp": [s, rnd.choice(["X", "xYZZY", k, None])]},
        {rnd.choice(["$indexOfCP", "$indexOfBytes"]):
         [s, rnd.choice(["a", "z", "", "é", k])] + rnd.choice([[], [n], [n, n]])},
        {"$substrBytes": [s, n, n]},
        {rnd.choice(["$trim", "$ltrim", "$rtrim"]):
         dict([("input", s)] + ([("chars", rnd.choice(["x", " é", k]))] if rnd.random() < 0.5 else []))},
        {rnd.choice(["$replaceOne", "$replaceAll"]):
         {"input": s, "find": rnd.choice(["z", "", ",", k]), "replacement": rnd.choice(["-", "", k])}},
        {"$objectToArray": rnd.choice([k, {"p": 1, "q": [2]}, None])},
        {"$arrayToObject": [rnd.choice([k, [["a", 1], ["b", 2], ["a", 3]], [{"k": "z", "v": k}], [[1, 2]]])]},
        {rnd.choice(["$toString", "$toBool", "$toInt", "$isNumber"]): rnd.choice([k, n, s, True])},
        {"$convert": dict([("input", rnd.choice([k, n, s])), ("to", rnd.choice(["int", "string", "bool", k]))]
                          + ([("onError", "err")] if rnd.random() < 0.5 else [])
                          + ([("onNull", "nil")] if rnd.random() < 0.5 else []))},
        {"$pow": [n, rnd.choice([0, 1, 2, -1, 3, k])]},
        {"$sqrt": n},
        {"$round": [rnd.choice([k, 1250, 1350, -1250, 7, None]), rnd.choice([0, -1, -2, 2, k, 1.5])]},
        {"$median": {"input": rnd.choice([arr, n, [7, 1.5, -2, n, 4]]),
                     "method": rnd.choice(["approximate", "discrete", "continuous"])}},
        {"$percentile": {"input": rnd.choice([arr, n, [7, 1.5, -2, n, 4, 4]]),
                         "p": rnd.choice([[0.5], [0, 0.25, 1], [0.9, 0.1, 0.333]]),
                         "method": rnd.choice(["approximate", "discrete", "continuous"])}},
        {rnd.choice(["$bitAnd", "$bitOr", "$bitXor"]): [n, rnd.choice([6, -1, k])]},
        {"$bitNot": n},
        {rnd.choice(["$firstN", "$lastN", "$maxN", "$minN"]): {"n": rnd.choice([1, 2, 5, 0, k]), "input": arr}},
        {"$zip": {"inputs": rnd.choice([[arr, [1, 2]], [k, [0]], arr, [[], k]])}},
        {"$sortArray": {"input": arr, "sortBy": rnd.choice([1, -1, 2])}},
        {"$regexMatch": {"input": s, "regex": rnd.choice(["^x", "y+", "z$", "a|b", k, None])}},
    ])


def gen_expr(rnd):
    r = rnd.randrange(11)
    if r >= 9:
        return gen_more(rnd)
    if r == 6:
        k = "$" + rnd.choice(KEYS)
        return {"$map": {"input": {"$cond": [{"$isArray": k}, k, [1, "$" + gen_path(rnd)]]},
                         "as": "e", "in": rnd.choice([{"$ifNull": ["$$e.a", "$$e"]}, "$$e", ["$$e", 1]])}}
    if r == 7:
        k = "$" + rnd.choice(KEYS)
        return {rnd.choice(["$sum", "$max", "$min", "$avg", "$stdDevPop", "$stdDevSamp"]):
                k if rnd.random() < 0.5 else [k, 1, "$" + gen_path(rnd)]}
    if r == 8:
        k = "$" + rnd.choice(KEYS)
        arr = {"$cond": [{"$isArray": k}, k, []]}
        return rnd.choice([{"$filter": {"input": arr, "cond": {"$ne": ["$$this", 1]}}},
                           {"$reverseArray": arr}, {"$slice": [arr, rnd.choice([-2, 1, 3])]},
                           {"$concatArrays": [arr, [0]]}, {"$first": [arr]}, {"$last": [arr]},
                           {"$reduce": {"input": arr, "initialValue": [],
                                        "in": {"$concatArrays": ["$$value", ["$$this"]]}}}])
    if r == 0:
        return "$" + gen_path(rnd)
    if r == 1:
        return rnd.choice([5, "s", None, [1, 2], {"k": 1}])
    if r == 2:
        return {"$literal": "$" + rnd.choice(KEYS)}
    if r == 3:
        return "$$REMOVE"
    if r == 4:
        return {"$add": ["$" + gen_path(rnd), 1]} if rnd.random() < 0.1 else "$" + rnd.choice(KEYS)
    return {"$ifNull": ["$" + gen_path(rnd), "none"]}


def gen_spec(rnd, depth, project):
    """Fields of a $set (project False) or of an inclusion $project's
    computed and included fields (project True)."""
    spec = {}
    used = set()
    for _ in range(1 + rnd.randrange(3)):
        key = gen_path(rnd) if rnd.random() < 0.5 else rnd.choice(KEYS + ["n", "m"])
        # mostly paths that do not meet (a few do: the stage is refused)
        if key.split(".")[0] in used and rnd.random() < 0.85:
            continue
        used.add(key.split(".")[0])
        r = rnd.random()
        if project and r < 0.5:
            spec[key] = rnd.choice([1, True])
        elif depth < 2 and r < 0.7:
            spec[key] = gen_spec(rnd, depth + 1, project)
        else:
            spec[key] = gen_expr(rnd)
    return spec


def gen_stage(rnd):
    r = rnd.randrange(7)
    if r <= 1:
        return {rnd.choice(["$set", "$addFields"]): gen_spec(rnd, 0, False)}
    if r == 2:
        spec = gen_spec(rnd, 0, True)
        if rnd.random() < 0.3:
            spec["_id"] = 0
        return {"$project": spec}
    if r == 3:
        spec = {gen_path(rnd): rnd.choice([0, False]) for _ in range(1 + rnd.randrange(2))}
        return {"$project": spec}
    if r == 4:
        paths = list(dict.fromkeys(gen_path(rnd) for _ in range(1 + rnd.randrange(2))))
        return {"$unset": paths if len(paths) > 1 or rnd.random() < 0.5 else paths[0]}
    if r == 5:
        k = "$" + rnd.choice(KEYS)
        root = k if rnd.random() < 0.2 else \
            {"$cond": [{"$eq": [{"$type": k}, "object"]}, k, {"z": "$" + gen_path(rnd)}]}
        return {"$replaceRoot": {"newRoot": root}}
    return {"$replaceWith": {"$mergeObjects": ["$" + rnd.choice(KEYS), {"n": gen_expr(rnd)}]}}


# -------------------------------------------------------------------------
# The model

def is_doc_spec(v):
    return isinstance(v, dict) and v and not next(iter(v)).startswith("$")


def build_tree(spec, kind):
    """{name: ("leaf", what) | ("node", subtree)}, insertion-ordered;
    what is 1 (include), 0 (exclude) or ("expr", e). Raises Refused for
    conflicting paths and, for $project, mixed modes."""
    tree = {}

    def put(node, parts, what):
        head = parts[0]
        if any(p == "" or p.startswith("$") for p in parts):
            raise Refused("bad path")
        if len(parts) == 1:
            if head in node:
                raise Refused("conflict")
            node[head] = ("leaf", what)
            return
        if head in node and node[head][0] == "leaf":
            raise Refused("conflict")
        if head not in node:
            node[head] = ("node", {})
        put(node[head][1], parts[1:], what)

    def walk(node, sp):
        for k, v in sp.items():
            parts = k.split(".")
            if kind != "set" and (isinstance(v, bool) or isinstance(v, (int, float))):
                put(node, parts, 1 if v else 0)
            elif is_doc_spec(v):
                if len(parts) == 1 and k in node and node[k][0] == "leaf":
                    raise Refused("conflict")
                sub = node
                for p in parts:
                    if p == "" or p.startswith("$"):
                        raise Refused("bad path")
                    if p in sub and sub[p][0] == "leaf":
                        raise Refused("conflict")
                    if p not in sub:
                        sub[p] = ("node", {})
                    sub = sub[p][1]
                walk(sub, v)
            else:
                put(node, parts, ("expr", v))
    walk(tree, spec)
    return tree


def leaves(tree):
    for _, (t, x) in tree.items():
        if t == "leaf":
            yield x
        else:
            yield from leaves(x)


def computes(entry):
    t, x = entry
    if t == "leaf":
        return isinstance(x, tuple)
    return any(computes(e) for e in x.values())


def ev(e, root):
    try:
        return ref.agg_eval(e, root)
    except ref.ExprError:
        raise Refused("evaluation error")


def apply_doc(tree, doc, mode, root, top):
    out = {}
    for k, v in (doc or {}).items():
        if k not in tree:
            if mode != "include" or (top and k == "_id"):
                out[k] = v
            continue
        if mode == "include" and tree[k][0] == "leaf" and isinstance(tree[k][1], tuple):
            continue                       # computed: after the included ones
        r = apply_value(tree[k], v, mode, root)
        if r is not MISSING:
            out[k] = r
    done = set(k for k in (doc or {}) if k in tree and not (
        mode == "include" and tree[k][0] == "leaf" and isinstance(tree[k][1], tuple)))
    for k, entry in tree.items():
        if k in done or not computes(entry):
            continue
        if entry[0] == "leaf":
            r = ev(entry[1][1], root)
        else:
            r = apply_doc(entry[1], None, mode, root, False)
        if r is not MISSING:
            out[k] = r
    return out


def apply_value(entry, v, mode, root):
    t, x = entry
    if t == "leaf":
        if x == 1:
            return v
        if x == 0:
            return MISSING
        return ev(x[1], root)
    if isinstance(v, dict):
        return apply_doc(x, v, mode, root, False)
    if isinstance(v, list):
        out = []
        for el in v:
            r = apply_value(entry, el, mode, root)
            if r is not MISSING:
                out.append(r)
        return out
    if mode == "exclude":
        return v
    if computes(entry):
        return apply_doc(x, None, mode, root, False)
    return MISSING


def run_stage(stage, doc):
    (name, spec), = stage.items()
    if name in ("$set", "$addFields"):
        if not isinstance(spec, dict) or not spec:
            raise Refused("empty")
        return apply_doc(build_tree(spec, "set"), doc, "set", doc, True)
    if name == "$project":
        tree = build_tree(spec, "project")
        vals = list(leaves(tree))
        n_incl = sum(1 for x in vals if x == 1 or isinstance(x, tuple))
        n_excl = sum(1 for x in vals if x == 0)
        if tree.get("_id") == ("leaf", 0):
            n_excl -= 1                    # the one exclusion inclusion allows
        if n_incl and n_excl:
            raise Refused("mixed")
        mode = "include" if n_incl else "exclude"
        return apply_doc(tree, doc, mode, doc, True)
    if name == "$unset":
        paths = spec if isinstance(spec, list) else [spec]
        return apply_doc(build_tree({p: 0 for p in paths} if len(set(paths)) == len(paths)
                                    else _dup(), "project"), doc, "exclude", doc, True)
    if name in ("$replaceRoot", "$replaceWith"):
        e = spec["newRoot"] if name == "$replaceRoot" else spec
        r = ev(e, doc)
        if not isinstance(r, dict):
            raise Refused("new root not a document")
        return r
    raise Refused(name)


def _dup():
    raise Refused("conflict")


def model(doc, pipeline):
    out = doc
    for stage in pipeline:
        out = run_stage(stage, out)
    if "_id" in doc:
        if "_id" in out and out["_id"] != doc["_id"]:
            raise Refused("_id changed")
        rest = {k: v for k, v in out.items() if k != "_id"}
        out = dict([("_id", doc["_id"])] + list(rest.items()))
    for k in out:
        check_names(k, out[k])
    return out


def check_names(k, v):
    """Stored names may not start with $ or hold a dot."""
    if k.startswith("$") or "." in k:
        raise Refused("bad stored name")
    if isinstance(v, dict):
        for k2, v2 in v.items():
            check_names(k2, v2)
    elif isinstance(v, list):
        for x in v:
            check_names("x", x)


# -------------------------------------------------------------------------

def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    n = int(args[0]) if args else 3000
    seed = int(args[1]) if len(args) > 1 else 20261126
    rnd = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(os.environ.get("DOCEXT_SO", "./docext"))
    passed = failed = refused = skipped = 0
    for i in range(n):
        doc = gen_doc(rnd)
        if rnd.random() < 0.7:
            doc = dict([("_id", i)] + list(doc.items()))
        pipeline = [gen_stage(rnd) for _ in range(1 + rnd.randrange(3))]
        if rnd.random() < 0.3:
            # one operator of the second batch alone, on the document
            pipeline = [{"$set": {"r": gen_more(rnd)}}]
        try:
            want = model(doc, pipeline)
        except Refused as e:
            want = "refused (%s)" % e
        except ref.Unsupported:
            # an operand the model does not compute (a double's text):
            # another case instead
            skipped += 1
            continue
        try:
            got = json.loads(conn.execute("SELECT doc_update(?, ?)",
                                          (json.dumps(doc), json.dumps(pipeline))).fetchone()[0])
        except sqlite3.Error as e:
            got = "error: %s" % e
        ok = (got == want and list_order(got) == list_order(want)) if isinstance(want, dict) \
            else isinstance(got, str)
        if isinstance(want, str):
            refused += 1
        if ok:
            passed += 1
        else:
            failed += 1
            if failed <= 20 or verbose:
                print("FAIL #%d doc %s\n     pipeline %s\n     docext %s\n     model  %s"
                      % (i, json.dumps(doc), json.dumps(pipeline), got, want))
    print("cases: %d, of which the model refuses %d and leaves out %d" % (n, refused, skipped))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def list_order(v):
    """The document with its field order made visible (== ignores it)."""
    if isinstance(v, dict):
        return [(k, list_order(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [list_order(x) for x in v]
    return v


if __name__ == "__main__":
    sys.exit(main())
