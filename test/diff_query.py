#!/usr/bin/python3
"""test/diff_query.py — the checking half of the differential query test
(test/diff_query.sh runs test/diff_query.js first, then this).

    /usr/bin/python3 test/diff_query.py CASES.jsonl [-v]

Loads docext (./docext.so, or $DOCEXT_SO without the suffix) into SQLite,
evaluates SELECT doc_match(doc, filter) for every case the generator wrote,
and compares docext's answer with mingo's and sift's.

Every case is also answered by a reference model of MongoDB's matcher
(test/diff_query_ref.py), and docext must agree with it. A case passes when
docext agrees with the model and with every library that gave an answer,
or, where a library differs, the case is one of KNOWN below: a kind of
case where the library departs from MongoDB's documented behaviour, with
the rule that decides it. (A kind's predicate alone could hide a docext
bug in the same case; the model's answer cannot.) A case no library could
answer (both threw: an operator or option they lack) is checked by the
model alone, and counted as such. Anything else is a failure, printed with its document and filter
and all the answers. The last line is "N passed, M failed"; the exit
status is non-zero when M > 0.
"""
import json
import os
import re
import sqlite3
import sys

import diff_query_ref


def parse_shell(text):
    """A mongo shell text of the generator (a subset: JSON plus ISODate("…")
    and /re/flags) as Python values: dates as ('date', iso), regexes as
    ('regex', source, flags)."""
    pos = 0

    def ws():
        nonlocal pos
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1

    def value():
        nonlocal pos
        ws()
        ch = text[pos]
        if ch == "{":
            pos += 1
            out = {}
            ws()
            if text[pos] == "}":
                pos += 1
                return out
            while True:
                ws()
                key = string()
                ws()
                assert text[pos] == ":"
                pos += 1
                out[key] = value()
                ws()
                if text[pos] == ",":
                    pos += 1
                    continue
                assert text[pos] == "}"
                pos += 1
                return out
        if ch == "[":
            pos += 1
            out = []
            ws()
            if text[pos] == "]":
                pos += 1
                return out
            while True:
                out.append(value())
                ws()
                if text[pos] == ",":
                    pos += 1
                    continue
                assert text[pos] == "]"
                pos += 1
                return out
        if ch == '"':
            return string()
        if text.startswith("ISODate(", pos):
            pos += len("ISODate(")
            iso = string()
            assert text[pos] == ")"
            pos += 1
            return ("date", iso)
        if ch == "/":
            end = pos + 1
            while text[end] != "/":
                end += 2 if text[end] == "\\" else 1
            src = text[pos + 1:end]
            pos = end + 1
            flags = ""
            while pos < len(text) and text[pos].isalpha():
                flags += text[pos]
                pos += 1
            return ("regex", src, flags)
        for word, val in (("null", None), ("true", True), ("false", False)):
            if text.startswith(word, pos):
                pos += len(word)
                return val
        m = re.compile(r"-?[0-9.eE+-]+").match(text, pos)
        pos = m.end()
        num = m.group(0)
        return float(num) if any(c in num for c in ".eE") else int(num)

    def string():
        nonlocal pos
        dec = json.JSONDecoder()
        val, end = dec.raw_decode(text, pos)
        pos = end
        return val

    return value()


# ---------------------------------------------------------------------------
# Known disagreements: (library or "*", name, reason, predicate(case, docext,
# lib)). Each kind is a place where a library departs from MongoDB's
# documented behaviour (the reason cites the rule; every kind was found by
# this test, reduced to a small case and checked against MongoDB's sources,
# its jstests or its documentation). A predicate says whether the case has
# that kind's structure — a filter operator meeting the document shape the
# rule is about — judged from the parsed case alone (reach() below reads
# paths independently of docext). It never looks at docext's answer, so a
# disagreement only passes where the library is known to go wrong; docext
# bugs elsewhere still fail. The same rules are unit-tested against exact
# answers in test/test_match.c.
KNOWN = []


def known(lib, name, reason):
    def deco(fn):
        KNOWN.append((lib, name, reason, fn))
        return fn
    return deco


def top_leaves(f):
    """(path, op, operand) of the filter's conditions on the document itself
    (through $and/$or/$nor, $not and $all; not inside $elemMatch, whose
    paths are relative to array elements). op is None for {path: value}."""
    out = []
    for k, v in f.items():
        if k in ("$and", "$or", "$nor"):
            for sub in v:
                out.extend(top_leaves(sub))
        elif k.startswith("$"):
            continue
        elif isinstance(v, dict) and v and next(iter(v)).startswith("$"):
            out.extend(path_ops(k, v))
        else:
            out.append((k, None, v))
    return out


def path_ops(k, ops):
    """(path, op, operand) of an operator document, through $not."""
    out = []
    for op, arg in ops.items():
        out.append((k, op, arg))
        if op == "$not" and isinstance(arg, dict):
            out.extend(path_ops(k, arg))
    return out


def reach(doc, path):
    """What MongoDB's matcher reaches on a dotted path, as a list of
    (value, how) with how "plain", "elem" (through a document element of an
    array), "missing" or "elem-missing"; and flags: "nondoc" (the path ran
    on through an array with no document element: empty, or scalars or
    arrays among its elements), "nested" (an array directly inside an array
    on the way or at the end), "numfield" (a numeric component after an
    array was also looked up as a field of the array's document elements),
    "intostring" (the path went on after reaching a string), "arrays" (how
    many arrays the path went on through).
    Independent of docext: a plain reading of MongoDB's rules, used only to
    classify disagreements, never to decide a match."""
    parts = path.split(".")
    out = []
    flags = {"nondoc": False, "nested": False, "numfield": False, "intostring": False,
             "arrays": 0}

    def go(v, i, how):
        if i == len(parts):
            out.append((v, how))
            return
        if isinstance(v, dict):
            if parts[i] in v:
                go(v[parts[i]], i + 1, how)
            else:
                out.append(("<missing>", "missing" if how == "plain" else "elem-missing"))
            return
        if isinstance(v, list):
            flags["arrays"] += 1
            if not v or any(not isinstance(el, dict) for el in v):
                flags["nondoc"] = True
            if any(isinstance(el, list) for el in v):
                flags["nested"] = True
            for j, el in enumerate(v):
                if isinstance(el, dict):
                    if parts[i].isdigit():
                        flags["numfield"] = True
                    go(el, i, "elem")
                if parts[i] == str(j):
                    go(el, i + 1, how)
            return
        if isinstance(v, str):
            flags["intostring"] = True
        out.append(("<missing>", "missing" if how == "plain" else "elem-missing"))

    if isinstance(doc, dict):
        go(doc, 0, "plain")
    if any(isinstance(v, list) and any(isinstance(x, list) for x in v) for v, _ in out):
        flags["nested"] = True
    return out, flags


def type_class(v):
    if v is None or v == "<missing>":
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return v[0]                     # ("date", …), ("regex", …)


def all_leaves(f, doc):
    """(path, op, operand, reached, flags) for every operator of filter f
    applied to doc (see reach()), $elemMatch included: its operators get the
    elements of the arrays at its path as values, its query document is
    applied to each document (or array) element."""
    out = []
    for path, op, arg in top_leaves(f):
        r, fl = reach(doc, path)
        out.append((path, op, arg, r, fl))
        subs = []
        if op == "$elemMatch" and isinstance(arg, dict):
            subs = [arg]
        elif op == "$all" and isinstance(arg, list):
            subs = [el["$elemMatch"] for el in arg if isinstance(el, dict)
                    and isinstance(el.get("$elemMatch"), dict)]
        elems = [x for v, h in r if isinstance(v, list) for x in v]
        for sub in subs:
            if sub and next(iter(sub)).startswith("$") and next(iter(sub)) not in ("$and", "$or", "$nor"):
                for p2, op2, a2 in path_ops(path, sub):
                    out.append((path, op2, a2, [(el, "plain") for el in elems], fl))
            else:
                for el in elems:
                    if isinstance(el, list):
                        el = {str(i): x for i, x in enumerate(el)}
                    if isinstance(el, dict):
                        out.extend(all_leaves(sub, el))
    return out


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def leaves_with(case, pred):
    """Paths of the top-level leaves for which pred(path, op, arg, reached,
    flags) holds (see reach())."""
    return [path for path, op, arg, r, fl in all_leaves(case["_filter"], case["_doc"])
            if pred(path, op, arg, r, fl)]


@known("*", "path-through-non-document-array",
       "MongoDB reads a field name after an array only in the array's document "
       "elements (and a numeric component as an index): an empty array, scalars "
       "and arrays nested directly in the array yield nothing, not a missing value "
       "(jstests/core/query/null_query_semantics.js: {'a.b': null} does not match "
       "a: [], a: [[]] or a: [1, 'string', 4]); and an array at the end of a path "
       "is matched element by element and as a whole, never flattened further "
       "({a: 5} does not match a: [[5]]). The libraries descend into nested "
       "arrays or treat such paths as missing.")
def _k_nondoc(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl: fl["nondoc"] or fl["nested"]))


@known("mingo", "missing-vs-null-range",
       "MongoDB's comparison treats a missing field as null for $gte/$lte: "
       "{$gte: null} and {$lte: null} match a missing field (null and missing "
       "sort equal; null_query_semantics.js 'a: {$not: {$gte: null}}' excludes "
       "no_a). mingo does not match missing for $gte/$lte null.")
def _k_range_null(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl:
                            op in ("$gte", "$lte") and a is None
                            and any(v == "<missing>" for v, h in r)))


@known("mingo", "null-in-array-document",
       "{'a.b': null} (and $in/$nin with null, $ne: null, $exists) also looks at each "
       "document in array a: one without b counts as b: null "
       "(null_query_semantics.js: a: [{b: 3}, {}] matches {'a.b': null}). mingo "
       "collects only the present values.")
def _k_null_elem(case, dx, lx):
    def pred(p, op, a, r, fl):
        if not any(h == "elem-missing" for v, h in r):
            return False
        if op in (None, "$eq", "$ne") and a is None:
            return True
        if op in ("$in", "$nin", "$all") and isinstance(a, list) and None in a:
            return True
        return op in ("$exists", "$gte", "$lte", "$not", "$type", "$size")
    return bool(leaves_with(case, pred))


@known("mingo", "array-operator-on-collected-values",
       "$size, $type: 'array' and $all/$elemMatch see the array stored at the path; values "
       "gathered from several documents of an array are not an array "
       "(MongoDB: $size 'matches any array with the number of elements specified'; "
       "{'a.b': {$size: 1}} over a: [{b: 1}] does not match). mingo tests the "
       "collected list of values as if it were an array.")
def _k_collected(case, dx, lx):
    def pred(p, op, a, r, fl):
        if not any(h.startswith("elem") for v, h in r):
            return False
        return op in ("$size", "$type", "$all", "$elemMatch", "$not") or \
            (op in (None, "$eq", "$ne", "$in", "$nin") and isinstance(a, list))
    return bool(leaves_with(case, pred))


@known("*", "mod-on-non-number",
       "$mod matches numbers only (MongoDB's ModMatchExpression returns false for "
       "any non-numeric value); the libraries coerce null, missing, booleans "
       "or dates to numbers.")
def _k_mod(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl:
                            op == "$mod" and any(not is_number(v) for v, h in r)))


@known("mingo", "bits-on-non-number",
       "The bit operators match only numbers (whole, representable as int64) and "
       "BinData; any other value, a missing field included, never matches "
       "(MongoDB's BitTestMatchExpression). mingo treats a non-number as 0 "
       "(so $bitsAllClear/$bitsAnyClear and an empty mask match it) and tests "
       "fractional doubles.")
def _k_bits(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl:
                            (op or "").startswith("$bits")
                            and any(not is_number(v) or v != int(v) for v, h in r)))


@known("*", "numeric-component-as-field",
       "After an array, MongoDB reads a numeric path component both as an index "
       "and as a field name in every document element (so 'a.0' also reaches "
       "field '0' of each document in a), and a document element without that "
       "field reads as missing, i.e. null (MongoDB's "
       "BSONElementIterator; minimongo's suite: {'x.1.y': null} matches "
       "x: [7, {y: 8}, 9], 'from trying 1 as key in the plain object'). The "
       "libraries only index.")
def _k_numfield(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl: fl["numfield"]))


@known("*", "elemmatch-filter-on-non-documents",
       "$elemMatch with a query document ({a: {$elemMatch: {b: 1}}}) applies it "
       "to the array's elements that are documents (or arrays); a scalar element "
       "never matches it (MongoDB's ElemMatchObjectMatchExpression). The "
       "libraries apply the filter to scalars too, where {b: {$ne: 1}} or "
       "{b: {$exists: false}} then hold.")
def _k_elem_obj(lib, case, dx, lx):
    # With documents and scalars in the array, the generator asked the
    # library again about the document without those scalars (which cannot
    # change MongoDB's answer, see noScalarDoc in diff_query.js): the
    # disagreement is this one only if that answer is docext's.
    if lib + "_noscalars" in case:
        return case[lib + "_noscalars"] == dx
    # Otherwise only arrays of scalars: there the library's answer can only
    # come from applying the query to scalars.
    def scalars_only(r):
        return any(isinstance(v, list) and v and
                   all(not isinstance(x, (dict, list)) for x in v) for v, h in r)

    def pred(p, op, a, r, fl):
        if op == "$all" and isinstance(a, list):
            return any(isinstance(el, dict) and "$elemMatch" in el for el in a) and scalars_only(r)
        if op != "$elemMatch" or not isinstance(a, dict):
            return False
        if a and next(iter(a)).startswith("$") and next(iter(a)) not in ("$and", "$or", "$nor"):
            return False
        return scalars_only(r)
    return bool(leaves_with(case, pred))


@known("mingo", "in-whole-array",
       "$in and $nin compare each value with the array itself as well as with "
       "its elements, as equality does: {a: {$in: [[1, 2]]}} matches a: [1, 2] "
       "(MongoDB: 'If the field holds an array, $in selects the documents whose "
       "field holds an array that contains at least one element that matches a "
       "value', and an array value equal to the whole array matches). mingo "
       "compares elements only.")
def _k_in_array(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl:
                            op in ("$in", "$nin") and isinstance(a, list)
                            and any(isinstance(x, list) for x in a)
                            and any(isinstance(v, list) for v, h in r)))


@known("mingo", "all-on-non-array",
       "$all is an $and of equalities, so it also matches a field that is not "
       "an array: {a: {$all: ['x']}} matches a: 'x' (MongoDB docs: $all is "
       "equivalent to an $and of the specified values). mingo requires an array.")
def _k_all_scalar(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl:
                            op == "$all" and any(not isinstance(v, list) for v, h in r)))


@known("sift", "null-is-not-an-empty-array",
       "An empty array is neither null nor missing: {a: null}, {a: {$in: [null]}} "
       "and {a: {$lte: null}} do not match a: [] (null_query_semantics.js: "
       "a_empty_array is not among the results of {a: {$eq: null}}). sift "
       "treats [] as null.")
def _k_empty_null(case, dx, lx):
    def pred(p, op, a, r, fl):
        if not any(v == [] for v, h in r):
            return False
        if op in (None, "$eq", "$ne", "$lte", "$gte", "$lt", "$gt") and a is None:
            return True
        return op in ("$in", "$nin", "$all") and isinstance(a, list) and None in a
    return bool(leaves_with(case, pred))


@known("sift", "comparison-across-types",
       "$gt, $gte, $lt and $lte only match values of the operand's BSON type "
       "class (numbers with numbers, strings with strings, dates with dates; "
       "null only with null/missing): {a: {$gt: 5}} never matches a string, "
       "{$lte: ISODate()} never matches a number, {$gt: null} matches nothing "
       "(MongoDB docs, 'Comparison/Sort Order' and 'Query for Null'). sift "
       "compares across types with JavaScript's coercions.")
def _k_cross(case, dx, lx):
    def pred(p, op, a, r, fl):
        if op not in ("$gt", "$gte", "$lt", "$lte"):
            return False
        ta = type_class(a)
        vals = [v for v, h in r]
        for v in list(vals):
            if isinstance(v, list):
                vals.extend(v)
        return any(type_class(v) != ta for v in vals)
    return bool(leaves_with(case, pred))


@known("mingo", "type-or-bits-on-array-elements",
       "$type and the bit operators test each element of an array field "
       "(MongoDB 3.6+: '$type now matches array elements'; any element "
       "satisfying the bit test matches). mingo tests the array as a whole.")
def _k_type_elems(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl:
                            (op == "$type" or (op or "").startswith("$bits"))
                            and any(isinstance(v, list) or h == "elem" for v, h in r)))


@known("*", "mod-truncates-doubles",
       "$mod truncates a double (or decimal) dividend toward zero before taking "
       "the remainder: {a: {$mod: [4, 2]}} matches a: 2.25 (MongoDB docs, $mod: "
       "'truncates ... towards zero'; ModMatchExpression uses std::trunc). The "
       "libraries take JavaScript's fractional remainder.")
def _k_mod_trunc(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl:
                            op == "$mod" and any(is_number(v) and v != int(v) for v, h in r)))


@known("sift", "path-into-string",
       "A path component after a string reaches nothing: {'c.1': ...} does "
       "not look at the characters of c: 'ab' (BSON strings have no fields; "
       "MongoDB yields a missing value there). sift indexes into the string.")
def _k_into_string(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl: fl["intostring"]))


@known("mingo", "arrays-reached-through-documents",
       "When a path crosses an array of documents and reaches arrays, MongoDB "
       "tests each element of every array reached, and each array whole "
       "({'a.b': 1} matches a: [{b: [3, 1]}, {b: [{x: 2}]}]: 'match if any "
       "element matches'), however many arrays of documents the path crosses. "
       "mingo loses or nests values when one of the reached arrays holds "
       "documents or the path crosses two arrays.")
def _k_arrays_through_docs(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl:
                            fl["arrays"] >= 2
                            or any(isinstance(v, list) and h == "elem" for v, h in r)))


@known("sift", "documents-in-in-are-values",
       "A document operand of $eq/$ne, or among the values of $in/$nin, is a value, "
       "compared with the field as a whole document, field order included "
       "({a: {$in: [{b: null}]}} matches only a: {b: null}; MongoDB docs, "
       "'Match an Embedded Document': exact match), and so is one inside an "
       "array operand ({a: [{b: null, c: null}]} does not match a: [{b: null}]). "
       "sift reads it as a nested query.")
def _k_doc_values(case, dx, lx):
    def plain_doc(x):
        if isinstance(x, list):
            return any(plain_doc(y) for y in x)
        return isinstance(x, dict) and not any(k.startswith("$") for k in x)

    def pred(p, op, a, r, fl):
        if op in (None, "$eq", "$ne"):          # (None: {path: value})
            return plain_doc(a)
        return op in ("$in", "$nin") and isinstance(a, list) and any(plain_doc(x) for x in a)
    return bool(leaves_with(case, pred))


@known("sift", "type-null",
       "{$type: 'null'} (code 10) matches a stored null and nothing else: "
       "not a missing field, not a path that ends early (MongoDB docs, $type: "
       "'null' is BSON type 10; 'Query for Null or Missing Fields': "
       "{item: {$type: 10}} matches only documents whose item is null). sift "
       "does not match null for code 10 and matches missing paths for 'null'.")
def _k_type_null(case, dx, lx):
    return bool(leaves_with(case, lambda p, op, a, r, fl:
                            op == "$type" and (a in ("null", 10) or (isinstance(a, list) and
                                                                     ("null" in a or 10 in a)))))


def model_expr_error(case):
    """Does MongoDB raise an error evaluating the case's $expr (the model's
    answer, from the case alone)?"""
    try:
        diff_query_ref.match(case["_doc"], case["_filter"])
    except diff_query_ref.ExprError:
        return True
    except diff_query_ref.Unsupported:
        pass
    return False


@known("mingo", "expr-evaluation-error",
       "An aggregation expression that cannot be evaluated is an error that fails the "
       "query: $size or $in of a non-array, arithmetic on a non-number, $concat or "
       "$strLenCP of a non-string, a division by zero (MongoDB docs of each operator, "
       "e.g. $size: 'The argument for $size must resolve to an array... If the argument "
       "is missing or not an array, $size errors'). mingo returns a value and goes on.")
def _k_expr_error(case, dx, lx):
    return model_expr_error(case)


NO_VALUE = object()


def expr_nodes(e, doc, test):
    """Does test(op, arg, ev) hold for some operator node of expression e?
    ev(x) is the model's value of sub-expression x for doc (NO_VALUE when
    it cannot be evaluated)."""
    def ev(x):
        try:
            return diff_query_ref.agg_eval(x, doc)
        except (diff_query_ref.ExprError, diff_query_ref.Unsupported):
            return NO_VALUE
    if isinstance(e, list):
        return any(expr_nodes(x, doc, test) for x in e)
    if not isinstance(e, dict):
        return False
    for op, arg in e.items():
        if op == "$literal":
            continue
        if test(op, arg, ev) or expr_nodes(arg, doc, test):
            return True
    return False


def cross_type(a, b):
    """Do a and b first differ (in BSON order) at values of different types,
    or where one is missing?"""
    M = diff_query_ref.MISSING
    if a is M or b is M:
        return a is not b
    if diff_query_ref.canon(a) != diff_query_ref.canon(b):
        return True
    if isinstance(a, list) or isinstance(a, dict):
        ia = list(a.items()) if isinstance(a, dict) else list(enumerate(a))
        ib = list(b.items()) if isinstance(b, dict) else list(enumerate(b))
        for (ka, x), (kb, y) in zip(ia, ib):
            if ka != kb:
                return True
            if diff_query_ref.cmp(x, y) != 0:
                return cross_type(x, y)
        return len(ia) != len(ib)
    return False


def expr_cross_type_comparison(e, doc):
    """An ordering comparison whose two values (as the model evaluates them)
    first differ at values of different BSON types, or at a missing one, or
    are both arrays or documents."""
    def test(op, arg, ev):
        if op in ("$lt", "$lte", "$gt", "$gte", "$cmp") and isinstance(arg, list) and len(arg) == 2:
            a, b = ev(arg[0]), ev(arg[1])
            if a is NO_VALUE or b is NO_VALUE:
                return False
            return cross_type(a, b) or (isinstance(a, (list, dict)) and isinstance(b, (list, dict)))
        return False
    return expr_nodes(e, doc, test)


def expr_missing_vs_null(e, doc):
    """An $eq, $ne or $in that meets a missing value and a null."""
    M = diff_query_ref.MISSING
    def test(op, arg, ev):
        if op in ("$eq", "$ne", "$in") and isinstance(arg, list) and len(arg) == 2:
            a, b = ev(arg[0]), ev(arg[1])
            if op == "$in":
                return a is M and isinstance(b, list) and None in b
            return (a is M and b is None) or (a is None and b is M)
        return False
    return expr_nodes(e, doc, test)


def expr_eq_array_contains(e, doc):
    """An $eq or $ne between an array and a value that is not an array but
    equals one of its elements (in the model's values)."""
    def test(op, arg, ev):
        if op in ("$eq", "$ne") and isinstance(arg, list) and len(arg) == 2:
            a, b = ev(arg[0]), ev(arg[1])
            if a is NO_VALUE or b is NO_VALUE:
                return False
            if isinstance(b, list):
                a, b = b, a
            return isinstance(a, list) and not isinstance(b, list) \
                and any(diff_query_ref.cmp(x, b) == 0 for x in a)
        return False
    return expr_nodes(e, doc, test)


def expr_empty_string_truth(e, doc):
    """An empty string (true in MongoDB) whose truth decides an $and, $or,
    $not, $cond or the $expr itself."""
    def test(op, arg, ev):
        args = arg if isinstance(arg, list) else [arg]
        if op == "$cond":
            args = [arg["if"]] if isinstance(arg, dict) else arg[:1]
        elif op not in ("$and", "$or", "$not"):
            return False
        return any(ev(x) == "" for x in args)
    return diff_query_ref.agg_eval(e, doc) == "" if not isinstance(e, dict) else \
        (expr_nodes(e, doc, test) or _safe_eval(e, doc) == "")


def _safe_eval(e, doc):
    try:
        return diff_query_ref.agg_eval(e, doc)
    except (diff_query_ref.ExprError, diff_query_ref.Unsupported):
        return None


def filter_exprs(f):
    """The $expr expressions of a filter (through $and, $or and $nor)."""
    out = []
    for k, v in f.items():
        if k == "$expr":
            out.append(v)
        elif k in ("$and", "$or", "$nor"):
            for g in v:
                out.extend(filter_exprs(g))
    return out


def any_filter_expr(case, pred):
    """Does pred(expression, document) hold for an $expr of the case's filter?"""
    return any(pred(e, case["_doc"]) for e in filter_exprs(case["_filter"]))


@known("mingo", "expr-compare-across-types",
       "In aggregation, $lt, $lte, $gt, $gte and $cmp order values of different types by "
       "BSON's comparison order (a missing value lowest, then null, numbers, strings, "
       "objects, arrays, ..., booleans, dates): {$lt: [1.5, 'ab']} is true (MongoDB docs, "
       "$lt (aggregation): 'compares both value and type, using the specified BSON "
       "comparison order for values of different types'), and arrays and documents "
       "element by element in that order (so an array is $gte itself). mingo answers "
       "false.")
def _k_expr_cross_type(case, dx, lx):
    return any_filter_expr(case, expr_cross_type_comparison)


def expr_numeric_component(e, doc):
    """A field path with a numeric component applied to an array."""
    def walk(x):
        if isinstance(x, str) and x.startswith("$") and not x.startswith("$$"):
            parts = x[1:].split(".")
            for i in range(1, len(parts)):
                if parts[i].isdigit() and isinstance(diff_query_ref.agg_path(doc, parts[:i]), list):
                    return True
            return False
        if isinstance(x, list):
            return any(walk(y) for y in x)
        if isinstance(x, dict):
            return any(walk(y) for k, y in x.items() if k != "$literal")
        return False
    return walk(e)


@known("mingo", "expr-numeric-component-is-a-field",
       "In an aggregation field path a numeric component is a field name, never an array "
       "index: '$a.1' over a: [x, y] gives the field '1' of each document in a, here "
       "nothing, so [] (MongoDB docs, Field Paths; $arrayElemAt is the way to index). "
       "mingo indexes the array.")
def _k_expr_numeric_component(case, dx, lx):
    return any_filter_expr(case, expr_numeric_component)


@known("mingo", "expr-missing-is-not-null",
       "In aggregation a missing value is not null: {$eq: ['$nope', null]} is false, and "
       "so is {$in: ['$nope', [null]]} (MongoDB docs, $ne (aggregation): 'If a field is "
       "missing from a document, $ne treats the missing field as a distinct value, "
       "separate from null'). mingo treats missing as null.")
def _k_expr_missing_null(case, dx, lx):
    return any_filter_expr(case, expr_missing_vs_null)


@known("mingo", "expr-empty-string-is-true",
       "In aggregation only false, null, missing, undefined and zeros are false; every "
       "string, the empty one included, is true (MongoDB docs, Expressions > Boolean "
       "expressions: 'all other values, including non-zero numeric values and arrays, "
       "evaluate as true'; $and: {$and: ['']} is true). mingo uses JavaScript's truth, "
       "where '' is false.")
def _k_expr_empty_string(case, dx, lx):
    return any_filter_expr(case, expr_empty_string_truth)


@known("mingo", "expr-eq-array-is-a-value",
       "In aggregation $eq and $ne compare an array as one value: {$eq: ['$c', 0]} is false "
       "for c: [null, 0] (MongoDB docs, $eq (aggregation): 'Compares two values and returns "
       "true when the values are equivalent', both value and type; query's 'an element "
       "matches' rule is for find filters only). mingo uses the query rule and answers true.")
def _k_expr_eq_array(case, dx, lx):
    return any_filter_expr(case, expr_eq_array_contains)


def classify(lib, case, dx, lx):
    for klib, name, reason, fn in KNOWN:
        if klib not in (lib, "*"):
            continue
        if fn is _k_elem_obj:
            if fn(lib, case, dx, lx):
                return name
        elif fn(case, dx, lx):
            return name
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    cases = [json.loads(line) for line in open(args[0]) if line.strip()]
    so = os.environ.get("DOCEXT_SO", "./docext")
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(so)

    passed = failed = unchecked = 0
    agree = {"mingo": 0, "sift": 0}
    answered = {"mingo": 0, "sift": 0}
    kinds = {}
    shown = 0
    n_match = 0
    n_error = 0
    n_both_differ = 0
    n_model = 0
    for c in cases:
        try:
            dx = conn.execute("SELECT doc_match(?, ?)", (c["doc"], c["filter"])).fetchone()[0]
        except sqlite3.Error as e:
            dx = "E: " + str(e)
        if dx == 1:
            n_match += 1
        elif isinstance(dx, str):
            n_error += 1
        if not isinstance(c["mingo"], str) and c["mingo"] == c["sift"] and c["mingo"] != dx:
            n_both_differ += 1
        c["_doc"] = parse_shell(c["doc"])
        c["_filter"] = parse_shell(c["filter"])
        try:
            mx = diff_query_ref.match(c["_doc"], c["_filter"])
        except diff_query_ref.Unsupported as e:
            mx = "model cannot evaluate: %s" % e
        except diff_query_ref.ExprError as e:
            mx = "error (%s)" % e             # docext must raise one too
        model_agrees = dx == mx or (isinstance(mx, str) and mx.startswith("error (")
                                     and isinstance(dx, str) and dx.startswith("E: docext: $expr: "))
        ok = model_agrees
        if not ok:
            n_model += 1
        any_answer = False
        for lib in ("mingo", "sift"):
            lx = c[lib]
            if isinstance(lx, str):
                continue                      # the library cannot evaluate it
            any_answer = True
            answered[lib] += 1
            if dx == lx:
                agree[lib] += 1
                continue
            kind = classify(lib, c, dx, lx) if model_agrees else None
            if kind:
                kinds[(lib, kind)] = kinds.get((lib, kind), 0) + 1
                if verbose:
                    print("known %s/%s: %s %s docext=%s %s=%s" % (lib, kind, c["doc"], c["filter"], dx, lib, lx))
            else:
                ok = False
        if not any_answer:
            unchecked += 1
            if isinstance(dx, str) and verbose:
                print("model only (docext error): %s %s %s" % (c["doc"], c["filter"], dx))
        if ok:
            passed += 1
        else:
            failed += 1
            if shown < 40 or verbose:
                shown += 1
                print("FAIL #%d doc %s\n     filter %s\n     docext=%s model=%s mingo=%s sift=%s"
                      % (c["i"], c["doc"], c["filter"], dx, mx, c["mingo"], c["sift"]))

    print("cases: %d; docext matched %d, did not match %d, raised an error for %d"
          % (len(cases), n_match, len(cases) - n_match - n_error, n_error))
    print("cases where mingo and sift agree with each other and not with docext: %d"
          % n_both_differ)
    print("reference model (diff_query_ref.py): docext agrees on %d, differs on %d"
          % (len(cases) - n_model, n_model))
    for lib in ("mingo", "sift"):
        print("%s: answered %d, docext agrees on %d" % (lib, answered[lib], agree[lib]))
    for (lib, kind), n in sorted(kinds.items()):
        reason = next(r for l, nm, r, f in KNOWN if nm == kind)
        print("known disagreement with %s, %s: %d case(s) — %s" % (lib, kind, n, reason))
    print("checked by the model only (no library could evaluate): %d" % unchecked)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
