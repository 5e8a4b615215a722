#!/usr/bin/python3
"""test/diff_aggregate.py — the checking half of the differential
aggregation test (test/diff_aggregate.sh runs test/diff_aggregate.js first,
then this).

    /usr/bin/python3 test/diff_aggregate.py CASES.jsonl [-v]

Loads docext (./docext.so, or $DOCEXT_SO without the suffix) into SQLite;
for every case the generator wrote, fills collection c (and c2, for
$lookup and $unionWith) with its documents in their order and reads

    SELECT doc, doc_json(bson, 'canonical') FROM doc_aggregate('c', pipeline
                                                                [, options])

then compares the documents with mingo's answer to the pipeline as the
generator rewrote it around mingo's known departures from MongoDB ("fixed";
see diff_aggregate.js, and KNOWN below for what each rewrite is about).

Comparison: documents field by field in order; strings, booleans and null
exactly; numbers by value (doubles to 1e-9 relative, for $avg and $stdDev*)
and by BSON type, read from docext's canonical Extended JSON: a double, an
int32 or an int64 where the generator's shifted runs say MongoDB gives one
(see diff_aggregate.js; where those runs do not line up with the plain one,
only a number that is not whole must be a double). The output documents are
compared in order when MongoDB fixes it (the collection's order, insertion
order in docext and array order in mingo, through stages that keep it; a
$sort whose keys include fields unique together) and as a multiset
otherwise ($group's and $sortByCount's order, sorts with ties, a $match on
_id that an index may answer in _id order); the arrays of $addToSet,
$lookup's "as" and $push after a $group (the "sets" of a case) as
multisets; a $facet's arrays in order or as multisets, as its pipeline
gives them, their documents' such arrays as multisets ("inner"). A
pipeline that ends with a $sample ("sample") must give min(size, n) of the
n documents mingo gives without it, each a different one. The doc column
must be the bson column's relaxed Extended JSON.

A pipeline MongoDB rejects whatever the data (the generator's "invalid"
cases) must be an error from docext, whose message starts "docext:"; where
mingo runs it anyway, that is counted as KNOWN. Where mingo raises an error
on a valid pipeline (a $replaceRoot of a non-document: MongoDB raises one
too), docext must raise one. Every disagreement is printed with the case's
documents and pipeline. A case that holds a known departure of docext from
MongoDB (its "bugs", EXCLUDED below) and fails the way that entry says is
counted under it, neither passed nor failed. The last line is "N passed, M
failed"; the exit status is non-zero when M > 0.
"""
import json
import os
import sqlite3
import sys

# ---------------------------------------------------------------------------
# Known departures of mingo 7.2.7 from MongoDB's documented behaviour. The
# generator rewrites the pipeline for mingo around each one ("fixed"); the
# checker compares docext with the fixed answer only, and counts a case
# under a kind when mingo's answer to the pipeline as written differed.
KNOWN = {
    "project-field-order":
        "an inclusion $project keeps the included fields, _id too, in the document's "
        "order, then the computed fields in the specification's order (MongoDB's "
        "ProjectionNode::applyProjections: 'Iterate over the input document so that the "
        "projected document retains its field ordering', then applyExpressions); mingo "
        "puts an _id it was not told to include last. Rewritten as $addFields to "
        "temporaries, $unset of what is not kept, $addFields of the computed fields",
    "push-skips-missing":
        "$push and $addToSet skip a missing value (MongoDB's AccumulatorPush and "
        "AccumulatorAddToSet: 'if (!input.missing())'); mingo adds null. Rewritten "
        "to accumulate {v: value} (a missing value gives {}) and unwrap after the group",
    "sort-array-keys":
        "$sort on an array field sorts by its least element ascending and its "
        "greatest descending, an empty array lowest (MongoDB docs, Comparison/Sort "
        "Order); mingo compares arrays whole and reverses the ascending order for "
        "descending. Rewritten to sort on that element",
    "lookup-local-arrays":
        "$lookup with a local array looks up each element, and with an empty (or "
        "missing) one looks up null (DocumentSourceLookUp::makeMatchStageFromInput: "
        "'Missing values are treated as null'; jstests/aggregation/sources/lookup/"
        "lookup_equijoin_semantics.js: local a: [] matches a foreign b: null or no b); "
        "mingo matches nothing for [] and leaves a hole (null) in 'as' for each element "
        "that matched nothing. Rewritten to look up a copy with [] made null and to drop "
        "the holes",
    "set-missing-into-document":
        "$addFields/$set of a dotted path 'e.z' whose value is missing still makes e "
        "a document where it was missing or not a document (ProjectionNode::"
        "applyExpressionsToValue: 'replace whatever existing value we find with a new "
        "document of all the computed values'; here none, so e: {}); mingo leaves e out. "
        "Rewritten to make e {} first where it is missing",
    "lookup-repeats":
        "$lookup lists each matching foreign document once (its query on the foreign "
        "collection returns a document once); mingo lists it once per element of its "
        "foreignField array that matches. Rewritten to drop the repeats",
    "count-of-nothing":
        "$count outputs no document when no document comes in (it is a $group on "
        "null, MongoDB docs: $count 'is equivalent to' $group + $project); mingo "
        "outputs {<name>: 0}. Rewritten as that $group and $project",
    "stddev-of-nothing":
        "$stdDevPop of no number, and $stdDevSamp of fewer than two, is null (MongoDB "
        "docs: 'If all operands are non-numeric, returns null'); mingo gives 0 or NaN. "
        "Rewritten to count the numbers alongside and make the result null",
    "addfields-reads-input":
        "$addFields/$set evaluate every expression on the input document (MongoDB docs: "
        "the stage adds the fields computed from the document it receives); mingo "
        "evaluates each on the document as the earlier fields of the same stage left it, "
        "and a dotted 'e.z' changes e in place. Rewritten to compute all of them into "
        "temporaries first",
    "shared-objects":
        "values are values: a document or array copied to another field, or shared by "
        "the documents $unwind makes of one, is a separate copy in MongoDB; in mingo they "
        "are one object, so a later dotted $set/$unset/$project of one shows in the others. "
        "And a field an expression object leaves missing ({k: '$nope'}) is no field; mingo "
        "keeps it as undefined, holding its place for a later $set. Rewritten to copy each "
        "document (through JSON) after every stage",
    "unwind-empty-string":
        "$unwind of a value that is not an array, null or missing gives the document as it "
        "is, an empty string too (MongoDB docs: 'When the operand does not resolve to an "
        "array, but is not missing, null, or an empty array, $unwind treats the operand as a "
        "single element array'); mingo drops a document whose value is '' (its isEmpty). "
        "Rewritten to unwind a stand-in string for ''",
    "bucket-empty":
        "$bucket outputs a bucket only where some document falls (it is a $group on a "
        "$switch over the boundaries, DocumentSourceBucket::createFromBson; MongoDB docs: "
        "'$bucket only produces output documents for buckets that contain at least one "
        "input document'); mingo outputs every boundary's bucket. Rewritten to count the "
        "documents alongside and drop the buckets of none",
    "bucket-id-last":
        "$bucket's documents have _id first, then the output fields (a $group's); mingo "
        "puts _id last. Rewritten to move _id first",
    "bucket-default-order":
        "$bucket's documents come sorted on _id (its $group is followed by {$sort: {_id: 1}}, "
        "DocumentSourceBucket::createFromBson), the default's bucket where its value sorts; "
        "mingo puts it last. Rewritten to sort on _id",
    "bucket-boundary-value":
        "$bucket's boundaries are inclusive lower bounds (MongoDB docs: 'Each adjacent pair "
        "of values acts as the inclusive lower boundary and the exclusive upper boundary for "
        "the bucket'): a value equal to a boundary is in that boundary's bucket; mingo puts "
        "it in the bucket before, but for the first boundary (its binary search finds the "
        "boundary's own index). Rewritten to group such a value by one a little above it",
    "bucket-array-groupby":
        "$bucket compares the groupBy value with the boundaries as $gte and $lt do, in BSON "
        "order, where an array is above every number and string: in no bucket (so in the "
        "default's); mingo compares an array by its elements (its query comparison). "
        "Rewritten to group an array by true, which is above them too",
    "bucket-null-default":
        "$bucket's default: null is a default, the bucket _id null (only a missing default "
        "is none, DocumentSourceBucket::createFromBson); mingo takes null for none and "
        "raises an error for a value in no bucket. Rewritten to a stand-in default made "
        "null after",
    "bucket-default-expression":
        "$bucket's default is an expression that must be constant "
        "(DocumentSourceBucket::createFromBson: getExpressionConstant; {$literal: 'other'} "
        "is 'other', {$add: [11, 1]} is 12); mingo takes it as it is. Rewritten to its value",
    "window-partition-order":
        "$setWindowFields outputs the partitions in the order of their partitionBy values "
        "(it sorts on the partition, then on sortBy; a missing value is null), each one's "
        "documents in sortBy order, stably; mingo outputs them in the order of their first "
        "document. Rewritten to compute the partition value into a field and sort on it "
        "after, stably",
    "window-first-last-missing":
        "$setWindowFields' $first and $last give the value of the first (last) document of "
        "the window as it is: a missing one leaves the output field out (an empty window "
        "gives null); mingo gives null (and {} for an empty window, where it computes {v: value}). "
        "Rewritten to take {v: value}, then v, and null where the window is empty",
    "window-negative-end":
        "a documents window whose upper bound is before the current document ([\"unbounded\", -1], "
        "[-2, -1]) is empty for the first documents of a partition; mingo slices the partition "
        "with a negative end, which counts from the partition's end. Rewritten to number the "
        "documents alongside and give the empty window's value ($sum and $count 0, $push and "
        "$addToSet [], the others null) to those",
    "linearfill-ends":
        "$linearFill leaves null a gap before the first number and after the last (null for a "
        "missing value too); mingo fails (a JavaScript TypeError) on a gap before the first "
        "number and leaves a missing value at the end missing. Rewritten to fill the leading gap "
        "with 0 (a value no other document reads) and make it null after, and a missing "
        "result null",
    "covariance-pairs":
        "$covariancePop and $covarianceSamp take the pairs whose two values are numbers "
        "(MongoDB's WindowFunctionCovariance skips the others; null for no pair, and for one "
        "pair in $covarianceSamp); mingo takes every pair, and a pair with a non-number makes "
        "it NaN (null). Rewritten to sum n, x, y and xy over the pairs of numbers and divide",
    "integral-of-nothing":
        "$integral over an empty window is null (WindowFunctionIntegral: no point, no value); "
        "mingo gives 0. Rewritten to count the window's documents alongside",
    "window-data-errors":
        "$setWindowFields raises an error for some documents: a partitionBy value that is an "
        "array; a range window's (or $derivative's, $integral's) sortBy value that is not a "
        "number, or not a date where a unit is given, or a date where none is; $linearFill's "
        "sortBy values that are not numbers or dates or that repeat within a partition, or "
        "its input a value that is neither a number nor null; mingo runs on. Rewritten to "
        "check for those first and raise the error",
    "bucketauto-id-last":
        "$bucketAuto's documents have _id ({min, max}) first, then the output fields "
        "(DocumentSourceBucketAuto::makeDocument); mingo puts _id last. Rewritten to move _id first",
    "bucketauto-of-nothing":
        "$bucketAuto outputs no bucket when no document comes in (DocumentSourceBucketAuto::"
        "populateNextBucket: no bucket without a document); mingo outputs one, {_id: {}}. "
        "Rewritten to count the documents alongside and drop a bucket of none",
    "bucketauto-empty-output":
        "$bucketAuto with output {} outputs the default count (DocumentSourceBucketAuto::create: "
        "'If there is no output field specified, then add the default one', when no accumulator "
        "was parsed); mingo outputs no field. Rewritten to give no output",
    "bucketauto-accumulators":
        "$bucketAuto's $push and $addToSet skip a missing value and keep null, and $first/$last of "
        "a missing value give null (DocumentSourceBucketAuto::makeDocument: 'missing to be "
        "equivalent to null'); mingo drops every null (and missing) value from every array of the "
        "output. Rewritten to accumulate {v: value, p: position} and take the values after",
    "bucketauto-input-order":
        "$bucketAuto's $first and $last take a bucket's documents in the order they came in "
        "(the positional accumulators of accumulator_for_bucket_auto.cpp: 'determine the "
        "accumulated results based on their original positions'), its $push in groupBy order as "
        "its sorter hands them on (stably); mingo takes them all in groupBy order, equal values "
        "in an order of its own. Rewritten to number the documents first and sort on that",
    "bucketauto-granularity":
        "$bucketAuto with a granularity rounds the first min down, each max (the last value rounded "
        "up) takes the documents below it and those equal to the last value, a max of 0 with "
        "documents after it is the next value rounded down, each min is the max before "
        "(DocumentSourceBucketAuto::adjustBoundariesAndGetMinForNextBucket); an int's POWERSOF2 "
        "bound is 2^k as $pow gives it; a value that is not a number >= 0 is an error. mingo's "
        "rounding departs (its POWERSOF2 starts at 0, it absorbs no equal value, ...; and it loops "
        "forever on a negative value, so every run checks for those first). Rewritten to number "
        "each document's bucket by MongoDB's algorithm and run mingo's $bucketAuto on the numbers",
    "densify":
        "$densify (DocumentSourceInternalDensify / exec/agg/densify_stage.cpp; jstests/aggregation/"
        "sources/densify/partitions.js, doc_on_bound.js, libs/densify_in_js.js): a partition's "
        "values may be of any type (its key is {p: '$p', ...}), a missing one is no error; "
        "[lo, hi] is made up to hi in each partition (and whole without partitionByFields, "
        "documents or not); lo == hi is allowed; a made document holds the partition's fields, "
        "then the field. mingo 7.2.7 raises an error for a partition value that is not a "
        "string (or missing), makes nothing after a partition's last document with [lo, hi], "
        "rejects lo == hi, and puts the field first in a made document. Rewritten as "
        "$__densify, MongoDB's algorithm in the generator",
    "firstn-lastn":
        "$firstN and $lastN (accumulator_multi.cpp) keep the first (last) n values, a missing one "
        "as null (in a window whose lower bound is not 'unbounded', MongoDB's removable "
        "WindowFunctionFirstLastN: a missing one counts and is left out of the array); in $group n "
        "may be an expression over the group's key (here evaluated against {_id: <key>}, see "
        "GROUP_N_KEY_DOCUMENT in diff_aggregate.js), which mingo evaluates against the key itself; "
        "in $bucketAuto they take a bucket's documents in the order they came in "
        "(accumulator_for_bucket_auto.cpp) and keep nulls, where mingo takes them in groupBy order "
        "and drops the nulls of every output array. Rewritten to push a record of each document and "
        "compute MongoDB's value from them ($__accN)",
    "minn-maxn":
        "$minN and $maxN skip null and missing and order the values as BSON does (AccumulatorMinMaxN: "
        "numbers < strings < documents < arrays, documents field by field in their order, arrays "
        "element by element), $minN ascending, $maxN descending; mingo orders documents by their "
        "sorted field names and arrays by their sorted elements; n as for firstn-lastn. Rewritten "
        "as those ($__accN)",
    "top-bottom":
        "$top, $bottom, $topN and $bottomN (AccumulatorTopBottomN): the output (missing as null) of "
        "the documents ranked by sortBy as $sort ranks them (an array by its least element ascending, "
        "its greatest descending, an empty one lowest, missing as null), ties in the order the "
        "documents came ($bucketAuto hands them on in groupBy order); $bottomN keeps a bounded "
        "multiset (once it holds n, a document enters only if its key is strictly above the least "
        "held, the earliest of equal least leaving), and in a window whose lower bound is not "
        "'unbounded' takes the last n; $top and $bottom give the value, not a one-element array. "
        "mingo gives an array for $top and $bottom, ranks arrays otherwise and takes $bottomN's last "
        "n; n as for firstn-lastn. Rewritten as those ($__accN)",
    "merge-objects":
        "$mergeObjects as an accumulator merges the documents its expression gives for each document "
        "(null and missing skipped, any other value an error: AccumulatorMergeObjects::processInternal; "
        "in $bucketAuto each field's value from the last document in the input's order that has it, "
        "the fields in the order the groupBy-sorted documents bring them: "
        "AccumulatorMergeObjectsForBucketAuto); mingo "
        "evaluates the expression once against the group's array of documents (its expression "
        "operator $mergeObjects comes before the accumulator), so an expression object fails, a "
        "string is merged as fields '0', '1', ..., and in $bucketAuto the documents come in groupBy "
        "order. Rewritten as that ($__accN)",
    "several-together":
        "mingo's answer changed only through more than one of these rewrites at once",
    "mingo-accepts-invalid":
        "a stage MongoDB rejects when it parses the pipeline (see the reasons "
        "below); mingo runs it (or ignores it). docext must reject it",
}

# Known departures of docext from MongoDB (its documentation, or its
# server's source and tests where the documentation says nothing), reported
# and not yet fixed: the generator tags the cases that hold one ("bugs"); such
# a case that fails the way excluded_applies says is counted here instead of
# failing the run (one that passes passes; one that fails some other way
# fails). Remove an entry once docext is fixed.
EXCLUDED = {
}

# Departures of docext from MongoDB that its README gives: the generator
# tags the cases that hold one ("differs"), and docext must give the answer
# the README says (here: an error that names the collection).
DIFFERS = {
    "missing-collection":
        "$unionWith of a collection that does not exist reads it as empty in MongoDB "
        "(jstests/aggregation/sources/unionWith/unionWith.js: 'using non-existent "
        "collections yields no results'); docext's README (Aggregation: 'Collections that "
        "do not exist are an error') makes it an error",
}


def excluded_applies(bug, case, got):
    """Does docext's answer got to a case tagged bug fail the way that
    EXCLUDED entry says (and not some other way)?"""
    if case["invalid"]:
        # (where MongoDB rejects the pipeline: that docext ran it)
        return not is_err(got)
    alt = case.get("alt")
    if alt is not None:
        # (docext gives the answer of the fixed run without the rewrites of
        # its known departures)
        if is_err(alt) or is_err(got):
            return is_err(alt) and is_err(got)
        shape = make_shape(case["sets"], case["deep"], case["inner"])
        alt = [from_plain(d) for d in alt]
        if case["sample"] is not None:
            return sample_of(alt, got, case["sample"], False, shape)
        return same_output(alt, got, case["ordered"], False, shape)
    return False


DOUBLE_TOL = 1e-9

# how many numbers of mingo's answers got each expected type
TYPE_COUNTS = {}


# ---------------------------------------------------------------------------
# Values. Both sides become tuples: ("num", value, type) where type is
# "int", "long", "double" (docext's, or the expected one), "integer" (int or
# long) or None (not known); ("str", s); ("bool", b); ("null",);
# ("doc", ((name, value), ...)); ("arr", (value, ...)); ("other", text).

def from_canonical(v):
    """docext's canonical Extended JSON, parsed (dicts keep the fields'
    order)."""
    if isinstance(v, dict):
        if len(v) == 1:
            k, x = next(iter(v.items()))
            if k == "$numberInt":
                return ("num", int(x), "int")
            if k == "$numberLong":
                return ("num", int(x), "long")
            if k == "$numberDouble":
                return ("num", float(x), "double")
            if k.startswith("$"):
                return ("other", json.dumps(v))
        return ("doc", tuple((k, from_canonical(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("arr", tuple(from_canonical(x) for x in v))
    if v is None:
        return ("null",)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, str):
        return ("str", v)
    raise ValueError("unexpected canonical JSON value %r" % (v,))


def from_plain(v):
    """JSON of mingo's results (or docext's relaxed doc column): numbers
    without a type."""
    if isinstance(v, dict):
        if len(v) == 1:
            k, x = next(iter(v.items()))
            if k in ("$numberDouble", "$numberLong", "$numberInt"):
                return ("num", float(x), None)
        return ("doc", tuple((k, from_plain(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("arr", tuple(from_plain(x) for x in v))
    if v is None:
        return ("null",)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float)):
        return ("num", v, None)
    if isinstance(v, str):
        return ("str", v)
    raise ValueError("unexpected JSON value %r" % (v,))


def typed(a, d, l, d2=None):
    """mingo's fixed answer a with each number's expected BSON type, from
    the "dbl" (d), "lng" (l) and "dbl2" (d2) runs of the same pipeline (None
    where a run did not line up). A number that moved in one of dbl and dbl2
    only (where both line up) is of no known type: a comparison of a moved
    value took another branch. Returns (value, whether the types are
    known)."""
    def lines_up(x, y, tol):
        if y is None or x[0] != y[0]:
            return False
        if x[0] == "num":
            return abs(x[1] - y[1]) <= tol
        if x[0] == "doc":
            return len(x[1]) == len(y[1]) and all(
                kx == ky and lines_up(vx, vy, tol) for (kx, vx), (ky, vy) in zip(x[1], y[1]))
        if x[0] == "arr":
            return len(x[1]) == len(y[1]) and all(lines_up(p, q, tol) for p, q in zip(x[1], y[1]))
        return x == y

    d_ok = d is not None and lines_up(a, d, 0.2)
    l_ok = l is not None and lines_up(a, l, 0.45)
    d2_ok = d_ok and d2 is not None and lines_up(a, d2, 0.2)

    def walk(x, dx, lx, d2x):
        if x[0] == "num":
            v = x[1]
            if v != int(v):
                t = "double"
            elif not d_ok:
                t = None
            elif d2_ok and (dx[1] != v) != (d2x[1] != v):
                t = None
            elif dx[1] != v:
                t = "double"
            elif not l_ok:
                t = "integer"
            elif lx[1] != v:
                t = "long"
            else:
                t = "int"
            TYPE_COUNTS[t] = TYPE_COUNTS.get(t, 0) + 1
            return ("num", v, t)
        if x[0] == "doc":
            return ("doc", tuple((k, walk(v, dx and dx[1][i][1], lx and lx[1][i][1],
                                          d2x and d2x[1][i][1]))
                                 for i, (k, v) in enumerate(x[1])))
        if x[0] == "arr":
            return ("arr", tuple(walk(v, dx and dx[1][i], lx and lx[1][i], d2x and d2x[1][i])
                                 for i, v in enumerate(x[1])))
        return x

    return walk(a, d if d_ok else None, l if l_ok else None, d2 if d2_ok else None), d_ok


def untyped(x):
    """x with no number of a known type."""
    if x[0] == "num":
        return ("num", x[1], None)
    if x[0] == "doc":
        return ("doc", tuple((k, untyped(v)) for k, v in x[1]))
    if x[0] == "arr":
        return ("arr", tuple(untyped(v) for v in x[1]))
    return x


def num_eq(e, g, types):
    ev, et = e[1], e[2]
    gv, gt = g[1], g[2]
    if gt == "double" or et == "double" or isinstance(ev, float) or isinstance(gv, float):
        if not (ev == gv or abs(ev - gv) <= DOUBLE_TOL * max(1.0, abs(ev), abs(gv))):
            return False
    elif ev != gv:
        return False
    if not types or et is None or gt is None:
        return True
    if et == "integer":
        return gt in ("int", "long")
    return et == gt


# How a document's fields compare (a "shape"): (sets, deep, inner). At the
# top of a document, a field named in sets holds an array compared as a
# multiset, and if also in deep, one whose elements are arrays compared as
# multisets too; a field named in inner ($facet's) holds an array of
# documents compared in order or as a multiset, each by a shape of its own:
# inner = {name: (ordered, shape)}.
NO_SHAPE = (frozenset(), frozenset(), {})


def make_shape(sets, deep, inner=None):
    return (frozenset(sets), frozenset(deep),
            {k: (v["ordered"], make_shape(v["sets"], v["deep"])) for k, v in (inner or {}).items()})


def same(e, g, types, shape=NO_SHAPE, top=True):
    """Is docext's value g mingo's e? shape applies at the top of a
    document."""
    if e[0] != g[0]:
        return False
    kind = e[0]
    if kind == "num":
        return num_eq(e, g, types)
    if kind == "doc":
        if len(e[1]) != len(g[1]):
            return False
        sets, deep, inner = shape
        for (ke, ve), (kg, vg) in zip(e[1], g[1]):
            if ke != kg:
                return False
            arrays = top and ve[0] == "arr" and vg[0] == "arr"
            if arrays and ke in inner:
                ordered, sub = inner[ke]
                if not same_output(ve[1], vg[1], ordered, types, sub):
                    return False
            elif arrays and ke in sets:
                if not multiset(ve[1], vg[1], types, NO_SHAPE, ke in deep):
                    return False
            elif not same(ve, vg, types, NO_SHAPE, False):
                return False
        return True
    if kind == "arr":
        return len(e[1]) == len(g[1]) and all(same(x, y, types, NO_SHAPE, False) for x, y in zip(e[1], g[1]))
    return e == g


def multiset(es, gs, types, shape, inner=False):
    """Are the lists the same multiset (documents by shape)? With inner,
    elements that are arrays are compared as multisets too."""
    if len(es) != len(gs):
        return False
    left = list(es)
    for g in gs:
        for i, e in enumerate(left):
            if (multiset(e[1], g[1], types, NO_SHAPE) if inner and e[0] == g[0] == "arr"
                    else same(e, g, types, shape, True)):
                del left[i]
                break
        else:
            return False
    return True


def same_output(exp, got, ordered, types, shape):
    if ordered:
        return len(exp) == len(got) and all(same(e, g, types, shape, True) for e, g in zip(exp, got))
    return multiset(exp, got, types, shape)


def sample_of(exp, got, size, types, shape):
    """Is got a $sample of {size: size} from exp: min(size, len(exp))
    documents (a fractional size taken whole), each a different one of
    exp?"""
    if len(got) != min(int(size), len(exp)):
        return False
    left = list(exp)
    for g in got:
        for i, e in enumerate(left):
            if same(e, g, types, shape, True):
                del left[i]
                break
        else:
            return False
    return True


def show(t):
    """A value as compact text, with docext's number types (1, 1L, 1.0)."""
    kind = t[0]
    if kind == "doc":
        return "{" + ", ".join("%s: %s" % (k, show(v)) for k, v in t[1]) + "}"
    if kind == "arr":
        return "[" + ", ".join(show(v) for v in t[1]) + "]"
    if kind == "num":
        v, ty = t[1], t[2]
        if ty == "double" or (isinstance(v, float) and v != int(v)):
            return repr(float(v))
        s = str(int(v))
        return s + ("L" if ty == "long" else "")
    if kind == "str":
        return json.dumps(t[1])
    if kind == "bool":
        return "true" if t[1] else "false"
    if kind == "null":
        return "null"
    return t[1]


def show_list(ts):
    return "[" + ", ".join(show(t) for t in ts) + "]" if isinstance(ts, list) else ts


def first_difference(exp, got, ordered, shape, sample=None):
    """A line saying where the two outputs first differ."""
    if isinstance(exp, str) or isinstance(got, str):
        return ""
    if sample is not None:
        want = min(int(sample), len(exp))
        if len(got) != want:
            return "%d documents, expected %d of the %d" % (len(got), want, len(exp))
        ordered = False
    elif len(exp) != len(got):
        return "%d documents, expected %d" % (len(got), len(exp))
    if ordered:
        for i, (e, g) in enumerate(zip(exp, got)):
            if not same(e, g, True, shape):
                why = "types" if same(e, g, False, shape) else "values"
                return "document %d differs (%s): %s, expected %s" % (i, why, show(g), show(e))
    else:
        left = list(exp)
        for g in got:
            for i, e in enumerate(left):
                if same(e, g, True, shape):
                    del left[i]
                    break
            else:
                near = [e for e in left if same(e, g, False, shape)]
                if near:
                    return "document differs in its number types: %s, expected %s" % (show(g), show(near[0]))
                return "document not expected%s: %s" % (
                    " (or repeated)" if sample is not None else "", show(g))
    return ""


# ---------------------------------------------------------------------------

def is_err(r):
    return isinstance(r, str)


def run_docext(db, case):
    """Fills c and c2 (emptied first) and runs the pipeline: (documents, or
    "E: message"; a line if the doc column is not the bson column)."""
    db.execute("DELETE FROM c")
    db.execute("DELETE FROM c2")
    db.executemany("INSERT INTO c(doc) VALUES (?)", [(d,) for d in case["docs"]])
    if case["docs2"] is not None:
        db.executemany("INSERT INTO c2(doc) VALUES (?)", [(d,) for d in case["docs2"]])
    try:
        if case["options"] is None:
            rows = db.execute("SELECT doc, doc_json(bson, 'canonical') FROM doc_aggregate('c', ?)",
                              (case["pipeline"],)).fetchall()
        else:
            rows = db.execute("SELECT doc, doc_json(bson, 'canonical') FROM doc_aggregate('c', ?, ?)",
                              (case["pipeline"], case["options"])).fetchall()
    except sqlite3.Error as e:
        return "E: " + str(e), None
    out = []
    mismatch = None
    for doc, canon in rows:
        t = from_canonical(json.loads(canon))
        out.append(t)
        if mismatch is None and not same(from_plain(json.loads(doc)), t, False):
            mismatch = "the doc column %s is not the bson column %s" % (doc, canon)
    return out, mismatch


NEW_STAGES = ("$bucket", "$bucketAuto", "$facet", "$unionWith", "$sample", "$setWindowFields",
              "$densify")


def stages_in(pipeline, found):
    """The names of the stages of a pipeline, those inside $facet and
    $unionWith too, into the set found."""
    for st in pipeline if isinstance(pipeline, list) else ():
        for name, arg in (st.items() if isinstance(st, dict) else ()):
            found.add(name)
            if name == "$facet" and isinstance(arg, dict):
                for sub in arg.values():
                    stages_in(sub, found)
            if name == "$unionWith" and isinstance(arg, dict):
                stages_in(arg.get("pipeline"), found)
    return found


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    if not args:
        print("usage: diff_aggregate.py CASES.jsonl [-v]", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    cases = [json.loads(line) for line in open(args[0]) if line.strip()]
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(os.environ.get("DOCEXT_SO", "./docext"))
    db.execute("CREATE VIRTUAL TABLE c USING docext")
    db.execute("CREATE VIRTUAL TABLE c2 USING docext")

    passed = failed = shown = 0
    known = {}
    invalid_reasons = {}
    excluded = {}
    excluded_passed = {}
    differs = {}
    stats = {"both-error": 0, "typed": 0, "untyped": 0, "ordered": 0, "multiset": 0, "documents": 0,
             "sampled": 0}
    # for each newer stage (and let): cases holding it, and of those the
    # ones whose documents were compared
    holding = {k: [0, 0] for k in NEW_STAGES + ("let",)}
    for case in cases:
        got, col_mismatch = run_docext(db, case)
        problem = None
        shape = make_shape(case["sets"], case["deep"], case["inner"])
        sample = case["sample"]
        names = stages_in(json.loads(case["pipeline"]), set())
        if case["options"] is not None and "let" in json.loads(case["options"]):
            names.add("let")
        compared = False
        if case["differs"] and not case["invalid"]:
            # (the README's answer, not MongoDB's)
            if is_err(got) and "no collection named nope" in got:
                for k in case["differs"]:
                    differs[k] = differs.get(k, 0) + 1
            else:
                problem = ("docext's README makes this an error (%s); docext gave another answer"
                           % ", ".join(case["differs"]))
        elif case["invalid"]:
            if not is_err(got):
                problem = "MongoDB rejects this pipeline (%s); docext ran it" % case["invalid"]
            elif not is_err(case["raw"]):
                known["mingo-accepts-invalid"] = known.get("mingo-accepts-invalid", 0) + 1
                invalid_reasons[case["invalid"]] = invalid_reasons.get(case["invalid"], 0) + 1
        elif is_err(case["fixed"]):
            if is_err(got):
                stats["both-error"] += 1
            else:
                problem = "mingo raises an error (%s); docext ran the pipeline" % case["fixed"]
        elif is_err(got):
            problem = "docext raised an error; mingo ran the pipeline"
        else:
            exp_plain = [from_plain(d) for d in case["fixed"]]
            dbl = None if is_err(case["dbl"]) else [from_plain(d) for d in case["dbl"]]
            lng = None if is_err(case["lng"]) else [from_plain(d) for d in case["lng"]]
            dbl2 = None if is_err(case["dbl2"]) else [from_plain(d) for d in case["dbl2"]]
            exp, typed_ok = typed(("arr", tuple(exp_plain)),
                                  None if dbl is None else ("arr", tuple(dbl)),
                                  None if lng is None else ("arr", tuple(lng)),
                                  None if dbl2 is None else ("arr", tuple(dbl2)))
            exp = list(exp[1])
            if case.get("loose"):
                # ($integral and $linearFill: doubles, but for numbers that
                # are not computed; their types are not checked in the case)
                exp = [untyped(e) for e in exp]
                typed_ok = False
            compared = True
            stats["typed" if typed_ok else "untyped"] += 1
            stats["documents"] += len(exp)
            if sample is not None:
                # a $sample at the end: mingo's answer is that of the
                # pipeline before it
                stats["sampled"] += 1
                if not sample_of(exp, got, sample, True, shape):
                    problem = "docext's output is not a $sample of %s of mingo's %d documents" % (
                        sample, len(exp))
                    if sample_of(exp, got, sample, False, shape):
                        problem += " (but for its number types)"
                    case["_exp"] = exp
            else:
                stats["ordered" if case["ordered"] else "multiset"] += 1
                if not same_output(exp, got, case["ordered"], True, shape):
                    problem = "docext's output differs from mingo's"
                    if same_output(exp, got, case["ordered"], False, shape):
                        problem = "docext's output differs from mingo's in its number types"
                    case["_exp"] = exp
            if problem is None and col_mismatch:
                problem = col_mismatch
            if json.dumps(case["raw"]) != json.dumps(case["fixed"]):
                raw = case["raw"]
                raw_t = raw if is_err(raw) else [from_plain(d) for d in raw]
                if is_err(raw_t) or not same_output(exp_plain, raw_t, case["ordered"], False, shape):
                    for kind in case["fixes"] or ["several-together"]:
                        known[kind] = known.get(kind, 0) + 1
        if is_err(got) and not got.startswith("E: docext:"):
            problem = (problem + "; " if problem else "") + "the error message does not start with 'docext:'"
        for k in names & set(holding):
            holding[k][0] += 1
            holding[k][1] += compared
        if case["bugs"]:
            # a known docext deviation (EXCLUDED)
            # (the one whose departure alone gives docext's answer, where
            # the generator ran each alone: "alts")
            alone = [b for b in case["bugs"] if case.get("alts") and b in case["alts"]
                     and excluded_applies(b, dict(case, alt=case["alts"][b]), got)]
            bug = alone[0] if alone else next((b for b in case["bugs"] if excluded_applies(b, case, got)), None)
            if problem and bug:
                excluded[bug] = excluded.get(bug, 0) + 1
                if verbose:
                    print("EXCLUDED case %d (%s): %s\n  pipeline %s%s\n  docext   %s" % (
                        case["i"], bug, problem, case["pipeline"],
                        "" if case["options"] is None else "\n  options  " + case["options"],
                        show_list(got)))
                continue
            if not problem:
                for b in case["bugs"]:
                    excluded_passed[b] = excluded_passed.get(b, 0) + 1
        if problem:
            failed += 1
            if shown < 30 or verbose:
                shown += 1
                print("FAIL case %d: %s" % (case["i"], problem))
                print("  docs     %s" % ", ".join(case["docs"]))
                if case["docs2"] is not None:
                    print("  c2       %s" % ", ".join(case["docs2"]))
                print("  pipeline %s" % case["pipeline"])
                if case["options"] is not None:
                    print("  options  %s" % case["options"])
                print("  docext   %s" % show_list(got))
                exp = case.get("_exp", case["fixed"])
                if not is_err(exp) and "_exp" not in case:
                    exp = [from_plain(d) for d in exp]
                print("  mingo    %s%s" % (show_list(exp) if not is_err(exp) else exp,
                                          "  (a $sample of %s of these)" % sample if sample is not None
                                          else "" if case["ordered"] else "  (in any order)"))
                if json.dumps(case["raw"]) != json.dumps(case["fixed"]):
                    print("  (mingo's answer to the pipeline as written: %s)" %
                          (case["raw"] if is_err(case["raw"]) else json.dumps(case["raw"])))
                diff = first_difference(case.get("_exp"), got, case["ordered"], shape, sample) \
                    if case.get("_exp") is not None and not is_err(got) else ""
                if diff:
                    print("  " + diff)
        else:
            passed += 1
    n = len(cases)
    print("cases: %d (%d with a pipeline MongoDB rejects, %d rejected by both for their "
          "documents); %d compared in order, %d as multisets, %d as a $sample; %d documents "
          "compared" % (n, sum(1 for c in cases if c["invalid"]), stats["both-error"], stats["ordered"],
                        stats["multiset"], stats["sampled"], stats["documents"]))
    print("cases holding (documents compared): %s" % ", ".join(
        "%s %d (%d)" % (k, holding[k][0], holding[k][1]) for k in NEW_STAGES + ("let",)))
    print("number types checked in %d cases; in %d the shifted runs did not line up "
          "(only non-whole numbers checked as doubles)" % (stats["typed"], stats["untyped"]))
    print("numbers expected: %s" % ", ".join(
        "%d %s" % (k, {"int": "int32", "long": "int64", "double": "double", "integer":
                       "int32 or int64", None: "of any type"}[t])
        for t, k in sorted(TYPE_COUNTS.items(), key=lambda p: str(p[0]))))
    for kind, k in sorted(known.items()):
        print("known: mingo %s: %d case%s — %s" % (kind, k, "" if k == 1 else "s", KNOWN[kind]))
    for why, k in sorted(invalid_reasons.items()):
        print("  mingo-accepts-invalid, %s: %d" % (why, k))
    for kind, k in sorted(differs.items()):
        print("docext differs from MongoDB as its README says, %s: %d case%s — %s"
              % (kind, k, "" if k == 1 else "s", DIFFERS[kind]))
    for kind in sorted(set(excluded) | set(excluded_passed)):
        k = excluded.get(kind, 0)
        print("EXCLUDED: docext %s: %d case%s not counted as failed (%d passed) — %s"
              % (kind, k, "" if k == 1 else "s", excluded_passed.get(kind, 0), EXCLUDED[kind]))
    if n < 100:
        print("diff_aggregate: only %d cases were generated" % n)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
