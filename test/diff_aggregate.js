// test/diff_aggregate.js — the generating half of the differential
// aggregation test (test/diff_aggregate.sh runs it, then
// test/diff_aggregate.py).
//
//   node test/diff_aggregate.js OUT.jsonl [N] [SEED]
//
// Generates N seeded random cases: a small collection c (5–30 documents:
// int32, double, string, boolean, mixed-type, null and missing fields, small
// arrays, one embedded document; unique int _id inserted in random order),
// sometimes a second collection c2 for $lookup and $unionWith, and a
// pipeline of 1–4 stages ($match, $project, $addFields, $set, $unset,
// $replaceRoot, $replaceWith, $sort, $skip, $limit, $count, $unwind, $group
// with every accumulator docext has (one field in seven or so $firstN,
// $lastN, $minN, $maxN, $top, $bottom, $topN, $bottomN or $mergeObjects:
// see nAccumulator), $sortByCount, $lookup; and, one stage
// in six, $bucket, $bucketAuto (see stageBucketAuto), $facet of 1–3
// pipelines of 1–3 such stages, or
// $unionWith of c2 or c itself through 0–3 such stages; one in twelve a
// $setWindowFields, see stageWindow; one in twelve a $densify, see
// stageDensify), sometimes then a
// $sample (its answer checked only for being one: min(size, n) distinct
// input documents), with expressions kept to forms where mingo and MongoDB
// agree ("$field", constants, $add, $multiply by a positive integer,
// $concat of strings, $cond, $ifNull, $gt/$gte/$eq/$ne against constants).
// One case in five has the options argument {let: {...}}, its variables
// read as "$$v" (or "$$d.x") where a constant (a path) would be. About one
// case in thirty holds a stage MongoDB rejects whatever the data ($limit:
// 0, an unknown stage, $bucket's boundaries out of order, ...).
//
// Each case is run through mingo (7.2.7) four or five times:
//  - "raw": the pipeline as docext gets it.
//  - "fixed": the same pipeline rewritten, where mingo departs from MongoDB,
//    into one that MongoDB evaluates the same way and mingo evaluates
//    right: a custom stage copying every document after each stage (mingo
//    shares objects between documents), and the rewrites of the stages
//    below whose comments say "The fixed run ..." (kinds: project-field-
//    order, addfields-reads-input, set-missing-into-document, sort-array-
//    keys, count-of-nothing, push-skips-missing, stddev-of-nothing, lookup-
//    local-arrays, lookup-repeats, bucket-empty, bucket-id-last, bucket-
//    default-order, bucket-boundary-value, bucket-array-groupby, bucket-
//    null-default, bucket-default-expression, unwind-empty-string, window-
//    partition-order, window-first-last-missing, covariance-pairs,
//    integral-of-nothing, window-negative-end, linearfill-ends, window-data-
//    errors, bucketauto-id-last, bucketauto-of-nothing, bucketauto-empty-
//    output, bucketauto-accumulators, bucketauto-input-order, bucketauto-
//    granularity, densify, firstn-lastn, minn-maxn, top-bottom, merge-
//    objects; KNOWN in diff_aggregate.py says why), inside $facet's and
//    $unionWith's pipelines too. This is the answer docext must give. "fixes" lists the
//    kinds without which mingo's answer would differ (found by leaving each
//    one out). mingo reads the
//    let variables from its option "variables", and $unionWith's
//    collections through its option "collectionResolver". A $sample at the
//    end is left out of mingo's runs (mingo's draws with replacement); one
//    before a $count is run as $limit.
//  - "dbl", "dbl2" and "lng": the fixed pipeline on data whose doubles are moved by
//    a tiny amount (and results that MongoDB always makes doubles, $avg and
//    $stdDev*, likewise), or with includeArrayIndex values (int64 in MongoDB)
//    moved likewise. JavaScript has one number type; where a result number
//    moved in "dbl" MongoDB gives a double, else where it moved in "lng" an
//    int64, else an int32. The checker uses that to check docext's BSON
//    number types, where the runs line up with "fixed". "dbl2" moves the
//    doubles down instead: a number that moved in one of the two only (a
//    comparison of a moved value with one it equals took another branch)
//    is of no known type.
// One JSON line per case:
//   {"i": n, "docs": ["<json>", ...], "docs2": [...] | null,
//    "pipeline": "<json>", "options": "<json>" | null, "ordered": bool,
//    "sets": [field, ...], "deep": [field, ...],
//    "inner": {field: {"ordered": bool, "sets": [...], "deep": [...]}},
//    "sample": size | null, "invalid": "<why MongoDB rejects it>" | null,
//    "bugs": [kind, ...], "alt": [...] | "E: msg" | null, "alts": {kind: alt} | null,
//    "differs": [kind, ...],
//    "raw": [...] | "E: msg", "fixed": [...] | "E: msg",
//    "fixes": [kind, ...], "dbl": [...] | "E: msg", "dbl2": [...] | "E: msg",
//    "lng": [...] | "E: msg"}
// "ordered" says whether MongoDB fixes the order of the output documents
// (else they are compared as a multiset): the collection's order (docext's
// and mingo's insertion order) until a $match on _id (which an index may
// answer in _id order) or a $group, a $sort whose keys include fields that
// are unique together, and the stages that keep the order. "sets" names
// top-level fields whose arrays have no specified order ($addToSet,
// $lookup's "as", $push after a $group, and what comes from them),
// compared as multisets; "deep" those of them whose elements are such
// arrays too; "inner" the $facet fields whose documents hold such arrays
// (and then no stage follows the $facet). "sample": the pipeline ends with
// that $sample, and "fixed" is the answer before it. "bugs": the kinds of
// a known docext departure from MongoDB the case holds (EXCLUDED in
// diff_aggregate.py), and "alt" docext's answer with those departures (the
// fixed run without their rewrites, where they are rewrites; "alts" the
// same with each one's rewrite alone left out, where there are several); "differs":
// those of a departure docext's README gives (DIFFERS there), where
// docext's answer is checked, not MongoDB's.
"use strict";
const fs = require("fs");
const path = require("path");

const modDir = process.env.DIFF_NODE_MODULES ||
  path.join(__dirname, "..", "build", "diffa", "node_modules");
const need = (m) => require(require.resolve(m, { paths: [modDir] }));
const mingo = need("mingo");
const mutil = need("mingo/util");
const { Aggregator } = need("mingo/aggregator");

const out = process.argv[2];
const N = parseInt(process.argv[3] || "1500", 10);
const SEED = parseInt(process.argv[4] || "20261127", 10);

// seeded, so a run is reproducible
const { rnd, int, pick, chance } = require("./lib_rng.js")(SEED);

// Doubles are never whole numbers (so no double equals an int32 of the data
// and the "dbl" run can tell them apart); each has its own small shift.
const DOUBLES = [1.5, -0.5, 2.25, 0.5, -2.5, 3.75];
const SHIFT_D = 2 ** -20;           // per double of the data, times 1..6
const SHIFT_ALWAYS_D = 2 ** -10;    // $avg, $stdDevPop, $stdDevSamp results
const SHIFT_L = 2 ** -10;           // includeArrayIndex values
const STRS = ["x", "y", "z", "ab", "B", ""];

// ---------------------------------------------------------------------------
// Data

function mixedScalar() {
  switch (int(6)) {
    case 0: return int(8) - 2;
    case 1: return pick(DOUBLES);
    case 2: case 3: return pick(STRS);
    case 4: return chance(0.5);
    default: return null;
  }
}

function genArr() {
  const r = rnd();
  if (r < 0.72) {
    const a = [];
    for (let i = int(4); i > 0; i--) {
      a.push(chance(0.06) ? null : chance(0.65) ? int(5) : pick(["x", "y", "z"]));
    }
    return a;
  }
  if (r < 0.88) return chance(0.5) ? int(5) : pick(["x", "y"]);
  return null;
}

function genDoc(id) {
  const d = { _id: id };
  if (chance(0.85)) d.a = chance(0.1) ? null : int(14) - 3;
  if (chance(0.8)) d.b = chance(0.65) ? pick(DOUBLES) : chance(0.15) ? null : int(10) - 2;
  if (chance(0.85)) d.s = chance(0.1) ? null : pick(STRS);
  if (chance(0.7)) d.t = chance(0.15) ? null : chance(0.5);
  if (chance(0.8)) d.m = mixedScalar();
  if (chance(0.8)) d.arr = genArr();
  // always both fields, so that documents compare field by field alike in
  // mingo (which compares sorted key lists first) and MongoDB
  if (chance(0.75)) d.e = { x: chance(0.85) ? int(6) : null, y: chance(0.85) ? pick(STRS) : null };
  return d;
}

// n distinct ids from from+1 .. from+3n, in random order.
function ids(n, from) {
  const pool = [];
  for (let i = 1; i <= 3 * n; i++) pool.push(from + i);
  const list = [];
  for (let i = 0; i < n; i++) list.push(pool.splice(int(pool.length), 1)[0]);
  return list;
}

function genDoc2(id) {
  const d = { _id: id };
  const r = int(10);
  if (r < 4) d.k = int(6);
  else if (r < 5) d.k = pick(["x", "y"]);
  else if (r < 6) d.k = null;
  else if (r < 8) d.k = Array.from({ length: int(3) }, () => int(6));
  if (chance(0.9)) d.w = int(5);
  if (chance(0.8)) d.name = pick(STRS);
  return d;
}

// ---------------------------------------------------------------------------
// What the generator knows about the documents at a point of the pipeline:
// their fields in order, each one's kind, a set of fields that together are
// unique (for sorts that fix the order), and whether the order is fixed.
//
// kinds: id (unique int), int, num (int or double), long, str, bool,
// mixed (any scalar), doc ({x: int, y: str}), docv (a document whose fields
// vary), arr (array of scalars, or a scalar), list (array of scalars, from
// $push), nlist (array of anything), set (array of scalars in no order),
// docs (array of documents in no order), any (anything), real (a double
// that another exact computation may round differently: $stdDev*'s, so
// never a group key, a sort key or compared).
// Every field may also be null or missing, except _id at the start.

const NUMERIC = new Set(["id", "int", "num", "long"]);
const SCALAR = new Set(["id", "int", "num", "long", "str", "bool", "mixed"]);

function initState() {
  return {
    order: ["_id", "a", "b", "s", "t", "m", "arr", "e"],
    kinds: { _id: "id", a: "int", b: "num", s: "str", t: "bool", m: "mixed", arr: "arr", e: "doc" },
    key: ["_id"],
    ordered: true,
    unordered: new Set(),       // arrays in no specified order
    deep: new Set(),            // ... whose elements are such arrays too
    natural: true,              // still the collection's documents in its order
    elems: {},                  // the kind of the elements of list and set fields
    inner: {},                  // $facet's fields whose documents hold arrays in no
                                // order: {ordered, sets, deep} of those documents
  };
}

// c2's documents (genDoc2), for a $unionWith's pipeline.
function initState2() {
  return {
    order: ["_id", "k", "w", "name"],
    kinds: { _id: "id", k: "arr", w: "int", name: "str" },
    key: ["_id"], ordered: true, unordered: new Set(), deep: new Set(), natural: true,
    elems: {}, inner: {},
  };
}

function cloneState(st) {
  return {
    order: st.order.slice(), kinds: Object.assign({}, st.kinds),
    key: st.key && st.key.slice(), ordered: st.ordered, unordered: new Set(st.unordered),
    deep: new Set(st.deep), natural: st.natural,
    elems: Object.assign({}, st.elems), inner: Object.assign({}, st.inner),
  };
}

function fieldsOf(st, test) {
  return st.order.filter((f) => test(st.kinds[f], f));
}

// Paths for expressions: top-level fields of a kind, and e.x / e.y.
function numPaths(st) {
  const p = fieldsOf(st, (k) => NUMERIC.has(k));
  for (const f of fieldsOf(st, (k) => k === "doc")) p.push(f + ".x");
  for (const v of VARS.doc) p.push("$" + v + ".x");      // "$$d.x"
  return p;
}
function strPaths(st) {
  const p = fieldsOf(st, (k) => k === "str");
  for (const f of fieldsOf(st, (k) => k === "doc")) p.push(f + ".y");
  for (const v of VARS.doc) p.push("$" + v + ".y");
  return p;
}
function scalarPaths(st) {
  const p = fieldsOf(st, (k) => SCALAR.has(k) || k === "doc");
  for (const f of fieldsOf(st, (k) => k === "doc")) p.push(f + ".x", f + ".y");
  return p;
}
function kindOfPath(st, p) {
  if (p.endsWith(".x")) return "int";
  if (p.endsWith(".y")) return "str";
  return st.kinds[p];
}

// ---------------------------------------------------------------------------
// Expressions

// The case's let variables (options {let: {...}}), by kind: numbers,
// strings, and documents {x: int, y: str}; a constant of an expression is
// sometimes one of them ("$$v"), a path sometimes "$$d.x".
let VARS = { num: [], str: [], doc: [] };

function numConst() {
  if (VARS.num.length && chance(0.2)) return "$$" + pick(VARS.num);
  return chance(0.3) ? pick(DOUBLES) : int(14) - 3;
}

function numExpr(st, depth) {
  const paths = numPaths(st);
  const r = int(depth >= 2 ? 4 : 10);
  if (r < 3 && paths.length) return "$" + pick(paths);
  if (r < 4) return numConst();
  switch (r) {
    case 4: case 5: {
      const a = [numExpr(st, depth + 1), numExpr(st, depth + 1)];
      if (chance(0.3)) a.push(numExpr(st, depth + 1));
      return { $add: a };
    }
    case 6: return { $multiply: chance(0.5) ? [numExpr(st, depth + 1), pick([2, 3, 10])]
                                         : [pick([2, 3]), numExpr(st, depth + 1)] };
    case 7: return condExpr(st, depth, () => numExpr(st, depth + 1));
    case 8: return paths.length ? { $ifNull: ["$" + pick(paths), numConst()] } : numConst();
    default: return paths.length ? "$" + pick(paths) : numConst();
  }
}

function strConst() {
  if (VARS.str.length && chance(0.2)) return "$$" + pick(VARS.str);
  return pick(STRS);
}

function strExpr(st, depth) {
  const paths = strPaths(st);
  const r = int(depth >= 2 ? 4 : 8);
  if (r < 3 && paths.length) return "$" + pick(paths);
  if (r < 4) return strConst();
  switch (r) {
    case 4: case 5: {
      const a = [];
      for (let i = 1 + int(3); i > 0; i--) a.push(strExpr(st, depth + 1));
      return { $concat: a };
    }
    case 6: return condExpr(st, depth, () => strExpr(st, depth + 1));
    default: return paths.length ? { $ifNull: ["$" + pick(paths), strConst()] } : strConst();
  }
}

// Comparisons only where mingo agrees with MongoDB: a number (or null, or
// missing) against a number constant with $gt/$gte (null and missing are
// below numbers, so false in both) or $ne; a string field against a string
// with $eq/$ne. Not $lt/$lte (mingo answers false for null and missing,
// MongoDB true), not $eq with null (mingo equates missing and null).
function boolExpr(st, depth) {
  const bools = fieldsOf(st, (k) => k === "bool");
  const r = int(depth >= 2 ? 5 : 8);
  switch (r) {
    case 0: if (bools.length) return "$" + pick(bools);
    // fall through
    case 1: case 2:
      return { [pick(["$gt", "$gte"])]: [numExpr(st, depth + 1), numConst()] };
    case 3: {
      const sp = strPaths(st);
      if (sp.length) return { [pick(["$eq", "$ne"])]: ["$" + pick(sp), strConst()] };
      return { $gt: [numExpr(st, depth + 1), numConst()] };
    }
    case 4: {
      const np = numPaths(st);
      if (np.length) return { $ne: ["$" + pick(np), int(6)] };
      return chance(0.5);
    }
    case 5: return { [pick(["$and", "$or"])]: [boolExpr(st, depth + 1), boolExpr(st, depth + 1)] };
    case 6: return { $not: [boolExpr(st, depth + 1)] };
    default: return chance(0.5);
  }
}

function condExpr(st, depth, branch) {
  const c = boolExpr(st, depth + 1);
  return chance(0.5) ? { $cond: { if: c, then: branch(), else: branch() } } : { $cond: [c, branch(), branch()] };
}

// Any expression: {expr, kind}.
function anyExpr(st) {
  const r = int(10);
  if (r < 3) return { expr: numExpr(st, 0), kind: "num" };
  if (r < 5) return { expr: strExpr(st, 0), kind: "str" };
  if (r < 6) return { expr: boolExpr(st, 0), kind: "bool" };
  // a field as it is
  const fs = st.order.filter((f) => !st.deep.has(f)).concat(scalarPaths(st));
  if (!fs.length) return { expr: numExpr(st, 0), kind: "num" };
  const f = pick(fs);
  return { expr: "$" + f, kind: kindOfPath(st, f), from: f };
}

// ---------------------------------------------------------------------------
// $match filters (the query operators where mingo's matcher agrees with
// MongoDB on these documents: see diff_query.py's KNOWN for the others).

function queryScalar(kind) {
  switch (kind) {
    case "id": case "int": case "long": return int(14) - 3;
    case "num": return chance(0.5) ? pick(DOUBLES) : int(10) - 2;
    case "str": return pick(STRS);
    case "bool": return chance(0.5);
    default: return mixedScalar() ?? 1;
  }
}

function condition(st, f) {
  const k = kindOfPath(st, f);
  // (arrays of arrays: mingo's matcher looks into the inner arrays, which
  // MongoDB's does not; diff_query.py's "path-through-non-document-array")
  if ((k === "list" || k === "set") && !SCALAR.has(st.elems[f])) {
    return chance(0.5) ? { $size: int(3) } : { $exists: chance(0.5) };
  }
  if (k === "arr" || k === "list" || k === "set") {
    switch (int(7)) {
      case 0: return int(5);
      case 1: return pick(["x", "y"]);
      case 2: return { $size: int(3) };
      case 3: return { $elemMatch: { [pick(["$gt", "$gte", "$lt"])]: int(5) } };
      case 4: return { $in: [int(5), pick(["x", "z"])] };
      case 5: return { $exists: chance(0.5) };
      default: return { $nin: [int(5)] };
    }
  }
  if (k === "doc") {
    return chance(0.5) ? { $exists: chance(0.5) } : { x: int(6), y: pick(STRS) };
  }
  if (!SCALAR.has(k)) return { $exists: chance(0.5) };
  const v = queryScalar(k);
  switch (int(9)) {
    case 0: case 1: return v;
    case 2: return { $ne: v };
    case 3: return { [pick(["$gt", "$gte", "$lt", "$lte"])]: v };
    case 4: return { $gt: queryScalar(k), $lt: queryScalar(k) };
    case 5: return { $in: [v, queryScalar(k)].concat(chance(0.3) ? [null] : []) };
    case 6: return { $nin: [v, queryScalar(k)] };
    case 7: return { $exists: chance(0.5) };
    default: return null;
  }
}

function filter(st, depth) {
  const f = {};
  const paths = fieldsOf(st, (k) => k !== "docv" && k !== "docs" && k !== "nlist" && k !== "any")
    .concat(fieldsOf(st, (k) => k === "doc").map((p) => p + "." + pick(["x", "y"])));
  if (!paths.length) return {};
  for (let n = 1 + int(2); n > 0; n--) {
    if (depth === 0 && chance(0.15)) {
      const subs = [];
      for (let j = 1 + int(2); j > 0; j--) subs.push(filter(st, depth + 1));
      f[pick(["$or", "$and", "$nor"])] = subs;
    } else {
      const p = pick(paths);
      f[p] = condition(st, p);
    }
  }
  return f;
}

// ---------------------------------------------------------------------------
// Stages. Each returns {stage, fix(off): the stages for mingo's fixed run
// (without the rewrites of the kinds in the set off), kinds: [the kinds of
// rewrite it has], dbl: [stages after it in the "dbl" run], lng: [...]}
// and updates st.

let tmpCounter = 0;
const tmp = () => "__t" + (tmpCounter++);

function plain(stage) {
  return { stage, fix: () => [stage], kinds: [], dbl: [], lng: [] };
}

// A stage with one kind of rewrite.
function rewritten(stage, kind, fixed, dbl, lng) {
  return { stage, fix: (off) => (off.has(kind) ? [stage] : fixed), kinds: [kind],
           dbl: dbl || [], lng: lng || [] };
}

function removeField(st, f) {
  st.order = st.order.filter((x) => x !== f);
  delete st.kinds[f];
  st.unordered.delete(f);
  st.deep.delete(f);
  if (st.key && st.key.includes(f)) st.key = null;
}

function setField(st, f, kind, unord) {
  if (!(f in st.kinds)) st.order.push(f);
  st.kinds[f] = kind;
  if (unord) st.unordered.add(f); else st.unordered.delete(f);
  st.deep.delete(f);
  if (st.key && st.key.includes(f)) st.key = null;
}

function freshName(st) {
  const names = ["n", "p", "q", "r", "z", "w2", "v"];
  const free = names.filter((x) => !(x in st.kinds));
  return free.length ? pick(free) : tmp().replace("__", "f");
}

// A value for a computed field: {expr, kind, unord}.
function computed(st) {
  const x = anyExpr(st);
  return { expr: x.expr, kind: x.kind, unord: x.from ? st.unordered.has(x.from) : false };
}

// A $match on _id over the collection's documents may be answered from
// docext's _id index, in _id order (as MongoDB may too): the order is then
// no longer the collection's.
function stageMatch(st) {
  const f = filter(st, 0);
  if (st.natural && JSON.stringify(f).includes('"_id"')) st.ordered = false;
  return plain({ $match: f });
}

// $project. An inclusion projection keeps the included fields in the
// document's order (_id too) and puts the computed fields after them, in
// the specification's order (ProjectionNode::applyProjections, then
// applyExpressions); mingo puts an _id it was not told to include last.
// The fixed run does the same with stages whose order mingo gets right:
// compute into temporaries, unset what is not kept (a dotted inclusion
// keeps e as a document of its remaining fields), then add.
function stageProject(st) {
  const fields = st.order.filter((f) => f !== "_id");
  if (chance(0.3) && fields.length) {
    // exclusion
    const spec = {};
    for (let n = 1 + int(2); n > 0; n--) {
      const f = pick(fields.concat(fieldsOf(st, (k) => k === "doc").map((p) => p + ".x")));
      if (Object.keys(spec).some((g) => g.startsWith(f + ".") || f.startsWith(g + "."))) continue;
      spec[f] = pick([0, false]);
    }
    if (chance(0.2)) spec._id = 0;
    for (const f of Object.keys(spec)) {
      if (!f.includes(".")) removeField(st, f);
      else st.kinds[f.split(".")[0]] = "docv";
    }
    return plain({ $project: spec });
  }
  const spec = {};
  const incl = [];
  const comp = [];
  for (let n = 1 + int(3); n > 0; n--) {
    if (chance(0.6) && fields.length) {
      let f = pick(fields);
      if (st.kinds[f] === "doc" && chance(0.4)) f += "." + pick(["x", "y"]);
      if (!incl.some((g) => g === f || g.startsWith(f + ".") || f.startsWith(g + ".")) &&
          !comp.some((c) => c.name === f || f.startsWith(c.name + "."))) {
        spec[f] = pick([1, true]);
        incl.push(f);
      }
    } else {
      const name = chance(0.2) && fields.length ? pick(fields) : freshName(st);
      if (name in spec || incl.some((f) => f === name || f.startsWith(name + ".")) ||
          comp.some((c) => c.name === name)) continue;
      const c = computed(st);
      c.expr = lit(c.expr);
      spec[name] = c.expr;
      comp.push(Object.assign({ name }, c));
    }
  }
  const dropId = chance(0.25);
  if (dropId) spec._id = 0;
  else if (chance(0.2)) spec._id = 1;
  if (!incl.length && !comp.length) spec[fields[0] || "a"] = 1, incl.push(fields[0] || "a");
  // the fixed run
  const fixed = [];
  const keepTop = new Set(incl.map((f) => f.split(".")[0]));
  const tmps = comp.map(() => tmp());
  if (comp.length) {
    fixed.push({ $addFields: Object.fromEntries(comp.map((c, i) => [tmps[i], c.expr])) }, { $__clone: {} });
  }
  const unset = st.order.filter((f) => !(f === "_id" ? !dropId : keepTop.has(f)));
  for (const f of incl) {
    if (f.includes(".")) {
      const [top, sub] = f.split(".");
      if (!incl.includes(top) && st.kinds[top] === "doc") {
        for (const other of ["x", "y"]) if (!incl.includes(top + "." + other)) unset.push(top + "." + other);
      }
    }
  }
  if (unset.length) fixed.push({ $unset: unset });
  if (comp.length) {
    fixed.push({ $addFields: Object.fromEntries(comp.map((c, i) => [c.name, "$" + tmps[i]])) });
    fixed.push({ $unset: tmps });
  }
  // the new state
  const old = cloneState(st);
  st.order = [];
  st.kinds = {};
  st.unordered = new Set();
  st.deep = new Set();
  for (const f of old.order) {
    if (f === "_id" ? !dropId : keepTop.has(f)) {
      st.order.push(f);
      const dotted = incl.some((g) => g.startsWith(f + ".")) && !incl.includes(f);
      st.kinds[f] = dotted ? "docv" : old.kinds[f];
      if (old.unordered.has(f)) st.unordered.add(f);
      if (old.deep.has(f)) st.deep.add(f);
    }
  }
  for (const c of comp) {
    st.order.push(c.name);
    st.kinds[c.name] = c.kind;
    if (c.unord) st.unordered.add(c.name);
  }
  st.key = old.key && old.key.every((f) => st.order.includes(f) && !comp.some((c) => c.name === f)) ? old.key : null;
  return rewritten({ $project: spec }, "project-field-order", fixed);
}

// A computed field of $project: a number or boolean constant there would
// mean inclusion or exclusion, so it goes in $literal.
function lit(e) {
  return typeof e === "number" || typeof e === "boolean" ? { $literal: e } : e;
}

function stageAddFields(st) {
  const op = pick(["$addFields", "$set"]);
  const spec = {};
  const n = 1 + int(2);
  const changes = [];
  for (let i = 0; i < n; i++) {
    const fields = st.order.filter((f) => f !== "_id");
    let name;
    if (chance(0.35) && fields.length) name = pick(fields);
    else if (chance(0.15) && fieldsOf(st, (k) => k === "doc").length) {
      name = pick(fieldsOf(st, (k) => k === "doc")) + ".z";
    } else name = freshName(st);
    if (name in spec || Object.keys(spec).some((k) => k.startsWith(name + ".") || name.startsWith(k + "."))) continue;
    // (into a document: not the document itself, which mingo would make
    // contain itself)
    const c = name.includes(".") ? (chance(0.5) ? { expr: numExpr(st, 0), kind: "num" }
                                                : { expr: strExpr(st, 0), kind: "str" }) : computed(st);
    spec[name] = c.expr;
    changes.push([name, c]);
  }
  if (!changes.length) { spec.n = 1; changes.push(["n", { kind: "num" }]); }
  for (const [name, c] of changes) {
    if (name.includes(".")) {
      const top = name.split(".")[0];
      st.kinds[top] = "docv";
      if (st.key && st.key.includes(top)) st.key = null;
    } else {
      setField(st, name, c.kind, c.unord);
    }
  }
  // mingo evaluates each field on the document as the fields before it
  // left it (and "e.z" changes e in place); MongoDB evaluates all of them
  // on the input document. The fixed run computes them into temporaries
  // first, then sets the fields one by one in order.
  // And "e.z" set to a missing value: MongoDB still makes e a document
  // (ProjectionNode::applyExpressionsToValue replaces a missing or scalar
  // e by a new document of the computed fields, here none, so {}); mingo
  // leaves e out. The fixed run first makes e {} where it is missing.
  const names = Object.keys(spec);
  const tmps = names.map(() => tmp());
  const stage = { [op]: spec };
  const fix = (off) => {
    if (off.has("addfields-reads-input")) return [stage];
    const fixed = [{ $addFields: Object.fromEntries(names.map((k, i) => [tmps[i], spec[k]])) },
                   { $__clone: {} }];
    names.forEach((k, i) => {
      if (k.includes(".") && !off.has("set-missing-into-document")) {
        const top = k.split(".")[0];
        fixed.push({ $addFields: { [top]: { $ifNull: ["$" + top, {}] } } });
      }
      fixed.push({ $addFields: { [k]: "$" + tmps[i] } });
    });
    fixed.push({ $unset: tmps });
    return fixed;
  };
  const kinds = ["addfields-reads-input"];
  if (names.some((k) => k.includes("."))) kinds.push("set-missing-into-document");
  return { stage, fix, kinds, dbl: [], lng: [] };
}

function stageUnset(st) {
  const fields = st.order.filter((f) => f !== "_id" || chance(0.2));
  if (!fields.length) return stageMatch(st);
  const list = [];
  for (let n = 1 + int(2); n > 0; n--) {
    let f = pick(fields);
    if (st.kinds[f] === "doc" && chance(0.4)) f += "." + pick(["x", "y"]);
    if (!list.includes(f)) list.push(f);
  }
  for (const f of list) {
    if (f.includes(".")) st.kinds[f.split(".")[0]] = "docv";
    else removeField(st, f);
  }
  return plain({ $unset: list.length === 1 && chance(0.5) ? list[0] : list });
}

function stageReplaceRoot(st) {
  const docs = fieldsOf(st, (k) => k === "doc");
  let newRoot;
  const old = cloneState(st);
  if (docs.length && chance(0.5)) {
    const f = pick(docs);
    // a document or, where missing or null, an empty one (plain "$e" errors
    // there, in both)
    newRoot = chance(0.8) ? { $ifNull: ["$" + f, {}] } : "$" + f;
    st.order = ["x", "y"];
    st.kinds = { x: "int", y: "str" };
  } else {
    const n = 1 + int(3);
    newRoot = {};
    st.order = [];
    st.kinds = {};
    for (let i = 0; i < n; i++) {
      const name = pick(["k", "v", "_id", "u"]);
      if (name in newRoot) continue;
      const c = computed(old);
      newRoot[name] = c.expr;
      st.order.push(name);
      st.kinds[name] = c.kind;
      if (c.unord) st.unordered.add(name);
    }
  }
  st.key = null;
  st.unordered = new Set([...st.unordered].filter((f) => f in st.kinds));
  st.deep = new Set();
  st.natural = false;
  return plain(chance(0.5) ? { $replaceRoot: { newRoot } } : { $replaceWith: newRoot });
}

function sortable(st, f) {
  const k = kindOfPath(st, f);
  return (SCALAR.has(k) || k === "doc" || k === "arr" || k === "list") && !st.unordered.has(f);
}

// $sort. mingo sorts arrays by comparing them whole after a descending sort
// reverses an ascending one; MongoDB sorts by the least element ascending,
// the greatest descending (an empty array lowest). The fixed run sorts on
// that element, computed by $__sortKey (registered below).
function stageSort(st) {
  const cands = st.order.filter((f) => sortable(st, f));
  if (!cands.length) return stageMatch(st);
  const spec = {};
  for (let n = 1 + int(2); n > 0; n--) {
    const f = pick(cands);
    // (not two arrays: MongoDB refuses to sort a document by parallel arrays)
    const isArr = (g) => ["arr", "list"].includes(st.kinds[g]);
    if (isArr(f) && Object.keys(spec).some(isArr)) continue;
    spec[f] = pick([1, -1]);
  }
  let unique = false;
  if (st.key && st.key.every((f) => sortable(st, f) && !["arr", "list"].includes(st.kinds[f]))) {
    if (chance(0.75)) for (const f of st.key) if (!(f in spec)) spec[f] = pick([1, -1]);
    unique = st.key.every((f) => f in spec);
  }
  st.ordered = unique;
  st.natural = false;
  const arrays = Object.keys(spec).filter((f) => ["arr", "list"].includes(kindOfPath(st, f)));
  if (!arrays.length) return plain({ $sort: spec });
  const keys = {};
  const fspec = {};
  const names = [];
  for (const f of Object.keys(spec)) {
    if (arrays.includes(f)) {
      const t = tmp();
      keys[t] = { $__sortKey: [f, spec[f]] };
      fspec[t] = spec[f];
      names.push(t);
    } else fspec[f] = spec[f];
  }
  return rewritten({ $sort: spec }, "sort-array-keys",
                   [{ $addFields: keys }, { $sort: fspec }, { $unset: names }]);
}

function stageSkipLimit(st) {
  if (!st.ordered) return stageMatch(st);
  st.natural = false;
  return plain(chance(0.5) ? { $limit: 1 + int(6) } : { $skip: int(6) });
}

function stageCount(st) {
  const name = pick(["count", "n", "total"]);
  st.order = [name];
  st.kinds = { [name]: "int" };
  st.key = null;
  st.ordered = true;
  st.unordered = new Set();
  st.deep = new Set();
  st.natural = false;
  // mingo outputs {name: 0} when no document comes in; MongoDB's $count is
  // a $group on null, which outputs nothing then.
  return rewritten({ $count: name }, "count-of-nothing",
                   [{ $group: { _id: null, [name]: { $sum: 1 } } }, { $project: { _id: 0 } }]);
}

// $unwind. A value that is not an array (nor null, missing or []) unwinds
// to itself (MongoDB docs: "When the operand does not resolve to an array,
// but is not missing, null, or an empty array, $unwind treats the operand
// as a single element array"); mingo drops an empty string (it tests the
// value with its isEmpty). The fixed run makes "" a stand-in
// string before the $unwind and "" again after, where the field is of kind
// arr (whose scalars are "" only after a $unionWith).
const EMPTY_STANDIN = "\u0000empty";

function stageUnwind(st) {
  const arrs = st.order.filter((f) => ["arr", "list", "set", "docs", "nlist"].includes(st.kinds[f]));
  if (!arrs.length) return stageMatch(st);
  const f = pick(arrs);
  const scalars = st.kinds[f] === "arr";
  const ek = st.kinds[f] === "arr" ? "mixed" : st.kinds[f] === "docs" ? "docv" :
    st.kinds[f] === "nlist" ? "any" : (st.elems && st.elems[f]) || "any";
  const unordArr = st.unordered.has(f);
  let stage;
  let idx = null;
  let preserve = false;
  if (chance(0.4)) {
    stage = { $unwind: "$" + f };
  } else {
    const spec = { path: "$" + f };
    // (not for an array in no order, whose indexes are unspecified)
    if (chance(0.5) && !unordArr) {
      idx = ["i", "idx", "idx2", "idx3"].filter((x) => !(x in st.kinds))[int(2)] || "idx4";
      spec.includeArrayIndex = idx;
    }
    if (chance(0.6)) { preserve = chance(0.7); spec.preserveNullAndEmptyArrays = preserve; }
    stage = { $unwind: spec };
  }
  // state (the elements of arrays of sets are sets)
  st.kinds[f] = ek;
  st.unordered.delete(f);
  if (st.deep.has(f)) { st.deep.delete(f); st.unordered.add(f); }
  if (unordArr) st.ordered = false;
  if (idx) { st.order.push(idx); st.kinds[idx] = "long"; }
  if (st.key) {
    if (idx) st.key = st.key.concat([idx]);
    else if (SCALAR.has(ek)) st.key = st.key.concat([f]);   // equal elements: equal documents
    else st.key = null;
  }
  const lng = idx ? [{ $set: { [idx]: { $add: ["$" + idx, SHIFT_L] } } }] : [];
  if (!scalars) return { stage, fix: () => [stage], kinds: [], dbl: [], lng };
  // (a string only: mingo's $eq of an array and a value is true where the
  // array holds the value)
  const swap = (from, to) => ({ $set: { [f]: { $cond: [
    { $and: [{ $eq: [{ $type: "$" + f }, "string"] }, { $eq: ["$" + f, from] }] }, to, "$" + f] } } });
  return rewritten(stage, "unwind-empty-string", [swap("", EMPTY_STANDIN), stage, swap(EMPTY_STANDIN, "")],
                   [], lng);
}

// The accumulators of MongoDB 5.2's accumulator_multi.cpp, and $mergeObjects
// ("n-accumulators"): {n, input} for $firstN, $lastN, $minN, $maxN;
// {sortBy, output} for $top and $bottom; {n, sortBy, output} for $topN
// and $bottomN; a document expression for $mergeObjects. In $group, n may
// be an expression over the group's key (the accumulator's initializer;
// here {$cond: [{$eq: ["$_id", X]}, A, B]}, evaluated against {_id: <key>}:
// see GROUP_N_KEY_DOCUMENT); elsewhere a constant (an int, or a constant
// expression). n must be a
// whole number > 0, else an error (in $group, $bucket and $bucketAuto
// where a group has such an n: a data error; in $setWindowFields a parse
// error, see INVALID). $mergeObjects of a value that is not a document
// (null and missing are skipped) is an error too.
// mingo departs from MongoDB in each family (KNOWN in diff_aggregate.py:
// firstn-lastn, minn-maxn, top-bottom, merge-objects), so the fixed run
// pushes a record of each document ({v: the input or output, k: the sortBy
// values; p and g, the position and groupBy value, in $bucketAuto}) and
// computes MongoDB's value from the records with $__accN (see accNValue).
const N_OPS = ["$firstN", "$lastN", "$minN", "$maxN", "$top", "$bottom", "$topN", "$bottomN", "$mergeObjects"];
const N_KIND = { $firstN: "firstn-lastn", $lastN: "firstn-lastn", $minN: "minn-maxn", $maxN: "minn-maxn",
                 $top: "top-bottom", $bottom: "top-bottom", $topN: "top-bottom", $bottomN: "top-bottom",
                 $mergeObjects: "merge-objects" };
// (those whose value depends on the order of the documents, not only on
// their values: the input's order must be fixed, or for $top*/$bottom*
// the sortBy keys unique)
const N_ORDERED = new Set(["$firstN", "$lastN", "$mergeObjects"]);
const N_SORTED = new Set(["$top", "$bottom", "$topN", "$bottomN"]);

// n: {expr}: a constant, a constant expression ({$add: [c - 1, 1]}) or,
// in $group, {$cond: [{$eq: ["$_id", id]}, a, b]} (see accNRecord). idKind:
// the group key's kind ($group only); bad: the chance of an n MongoDB
// rejects.
function genN(idKind, bad) {
  const badN = () => pick([0, -1, 1.5, "x"]);
  const good = () => (chance(0.8) ? 1 + int(3) : pick([4, 5, 8, 40]));
  if (idKind !== undefined && chance(0.25)) {
    let id;
    if (idKind === "null" || chance(0.15)) id = null;
    else if (["id", "int", "long"].includes(idKind)) id = int(14) - 3;
    else if (["num", "str", "bool", "mixed"].includes(idKind)) id = queryScalar(idKind);
    else id = pick([1, 2, "x", null]);
    const a = chance(bad * 3) ? badN() : good();
    const b = good();
    return { expr: { $cond: [{ $eq: ["$_id", id] }, a, b] } };
  }
  if (chance(bad)) return { expr: badN() };
  const c = good();
  if (chance(0.08)) return { expr: { $add: [c - 1, 1] } };
  return { expr: c };
}

// A sortBy for $top*/$bottom*, or null: 1-2 fields of
// scalars, documents or arrays of scalars (at most one: MongoDB refuses
// parallel arrays), often then the fields that are unique together (so
// that few keys tie); always those where the input's order is not fixed
// (ordered: whether it is).
function genTopSortBy(st, ordered) {
  const ok = (f) => !st.unordered.has(f) && !st.deep.has(f) &&
    (SCALAR.has(st.kinds[f]) || ["doc", "arr"].includes(st.kinds[f]));
  const cands = st.order.filter(ok).concat(fieldsOf(st, (k) => k === "doc").map((p) => p + "." + pick(["x", "y"])));
  if (!cands.length) return null;
  const sortBy = {};
  const isArr = (f) => st.kinds[f] === "arr";
  for (let n = 1 + int(2); n > 0; n--) {
    const f = pick(cands);
    if (f in sortBy || (isArr(f) && Object.keys(sortBy).some(isArr))) continue;
    sortBy[f] = pick([1, -1]);
  }
  const keyOk = st.key && st.key.length && st.key.every((f) => ok(f) && !isArr(f));
  if (keyOk && (!ordered || chance(0.6))) for (const f of st.key) if (!(f in sortBy)) sortBy[f] = pick([1, -1]);
  if (!ordered && !(keyOk && st.key.every((f) => f in sortBy))) return null;
  return sortBy;
}

// An input of $mergeObjects: a document field, a document expression, one
// that may be null, or now and then a value that is not a document (an
// error where a group holds one that is not null or missing).
function mergeInput(st) {
  const docsF = fieldsOf(st, (k, f) => (k === "doc" || k === "docv") && !st.unordered.has(f));
  const obj = () => {
    const o = {};
    for (let n = 1 + int(2); n > 0; n--) {
      const c = computed(st);
      if (!c.unord) o[pick(["x", "y", "k", "z"])] = c.expr;
    }
    return o;
  };
  const r = rnd();
  if (r < 0.4 && docsF.length) return "$" + pick(docsF);
  if (r < 0.68) return obj();
  if (r < 0.85) return { $cond: [boolExpr(st, 1), obj(), pick([null, "$$REMOVE"])] };
  const sc = fieldsOf(st, (k) => SCALAR.has(k));
  return sc.length && chance(0.7) ? "$" + pick(sc) : pick([5, "x"]);
}

// One of N_OPS: {arg, kind, elems (the kind of a list's elements)}, or
// null. where: {idKind} in $group, {} elsewhere, {window: true, ordered:
// whether the window's order is fixed} in $setWindowFields (n constant
// and valid there).
function nAccumulator(st, op, where) {
  const ordered = where.ordered === undefined ? st.ordered : where.ordered;
  if (N_ORDERED.has(op) && !ordered) return null;
  const bad = where.window ? 0 : 0.03;
  const n = ["$top", "$bottom", "$mergeObjects"].includes(op) ? null : genN(where.idKind, bad);
  const valueOf = () => {
    let c;
    if (chance(0.6) && st.order.length) {
      const f = pick(st.order.filter((g) => !st.deep.has(g)).concat(scalarPaths(st)));
      c = { expr: "$" + f, kind: kindOfPath(st, f), unord: st.unordered.has(f) };
    } else c = computed(st);
    return c.unord || c.kind === "date" ? null : c;
  };
  const listOf = (c) => (SCALAR.has(c.kind) || c.kind === "doc" ? "list" : "nlist");
  const elemsOf = (c) => (SCALAR.has(c.kind) || c.kind === "doc" ? c.kind : undefined);
  switch (op) {
    case "$firstN": case "$lastN": {
      const c = valueOf();
      if (!c) return null;
      return { arg: { n: n.expr, input: c.expr }, kind: listOf(c), elems: elemsOf(c) };
    }
    case "$minN": case "$maxN": {
      // (values of one kind mostly, but arrays and mixed ones too)
      const p = fieldsOf(st, (k, f) => (SCALAR.has(k) || k === "doc" || k === "arr") && !st.unordered.has(f))
        .concat(numPaths(st), strPaths(st));
      let c;
      if (p.length && chance(0.75)) { const f = pick(p); c = { expr: "$" + f, kind: kindOfPath(st, f) }; }
      else c = valueOf();
      if (!c) return null;
      return { arg: { n: n.expr, input: c.expr }, kind: c.kind === "arr" ? "nlist" : listOf(c), elems: elemsOf(c) };
    }
    case "$top": case "$bottom": case "$topN": case "$bottomN": {
      const sortBy = genTopSortBy(st, ordered);
      const c = sortBy && valueOf();
      if (!c) return null;
      let arg = n ? { n: n.expr, sortBy, output: c.expr } : { sortBy, output: c.expr };
      // (the arguments in another order now and then)
      if (chance(0.2)) arg = Object.fromEntries(Object.entries(arg).reverse());
      return { arg, kind: n ? listOf(c) : c.kind === "doc" ? "docv" : c.kind, elems: n ? elemsOf(c) : undefined };
    }
    case "$mergeObjects": {
      const e = mergeInput(st);
      return { arg: e, kind: "docv" };
    }
  }
  return null;
}

// What $__accN needs of an N_OPS accumulator {op: arg}: the record each
// document pushes ({v: its input or output, k: [its sortBy values]}) and
// spec = {op, n: {c} | {id, a, b} (n's form, see genN), dirs: sortBy's
// directions, win: in $setWindowFields, order: in $bucketAuto, "pos" for
// the input order ($firstN, $lastN: MongoDB's positional accumulators for
// $bucketAuto) or "gpos" for the groupBy value's then the input's (the
// order in which $bucketAuto's sort hands them on)}.
function accNRecord(op, arg, extra) {
  const spec = Object.assign({ op }, extra || {});
  if (op === "$mergeObjects") return { rec: { v: arg }, spec };
  const n = op === "$top" || op === "$bottom" ? 1 : arg.n;
  if (typeof n === "object" && n !== null && n.$add) spec.n = { c: n.$add[0] + n.$add[1] };
  else if (typeof n === "object" && n !== null && n.$cond) {
    spec.n = { id: n.$cond[0].$eq[1], a: n.$cond[1], b: n.$cond[2] };
  } else spec.n = { c: n };
  if (!N_SORTED.has(op)) return { rec: { v: arg.input }, spec };
  spec.dirs = Object.values(arg.sortBy);
  return { rec: { v: arg.output, k: Object.keys(arg.sortBy).map((f) => "$" + f) }, spec };
}

// The accumulator fields of a $group, or of a $bucket's output: n of them
// added to spec; their kinds into acc = {kinds, unord, deep, elems, dbl}.
// (noSd: not $stdDevPop or $stdDevSamp; where: for nAccumulator, {idKind}
// in $group.) About one in seven is one of N_OPS.
function addAccumulators(st, spec, n, acc, noSd, where) {
  const numP = numPaths(st);
  for (; n > 0; n--) {
    const name = pick(["total", "avg", "lo", "hi", "first", "last", "all", "uniq", "cnt", "sd"]) +
      (chance(0.2) ? "2" : "");
    if (name in spec) continue;
    if (chance(0.17)) {
      const op = pick(N_OPS);
      const x = nAccumulator(st, op, where || {});
      if (!x) continue;
      spec[name] = { [op]: x.arg };
      acc.kinds[name] = x.kind === "doc" ? "docv" : x.kind;
      if (x.elems) acc.elems[name] = x.elems;
      continue;
    }
    const op = pick(["$sum", "$sum", "$avg", "$min", "$max", "$first", "$last", "$push", "$push",
                     "$addToSet", "$count"].concat(noSd ? [] : ["$stdDevPop", "$stdDevSamp"]));
    let arg;
    let kind = "num";
    switch (op) {
      case "$sum":
        arg = chance(0.3) ? 1 : chance(0.7) && numP.length ? "$" + pick(numP) :
          chance(0.5) || !st.order.length ? numExpr(st, 0) : "$" + pick(st.order);
        break;
      case "$avg": case "$stdDevPop": case "$stdDevSamp":
        arg = chance(0.8) && numP.length ? "$" + pick(numP) :
          chance(0.5) || !st.order.length ? numExpr(st, 0) : "$" + pick(st.order);
        acc.dbl.push(name);
        if (op !== "$avg") kind = "real";
        break;
      case "$min": case "$max": {
        const p = fieldsOf(st, (k) => SCALAR.has(k) || k === "doc").concat(numP, strPaths(st));
        if (!p.length) continue;
        const f = pick(p);
        arg = "$" + f;
        kind = kindOfPath(st, f);
        break;
      }
      case "$first": case "$last": {
        if (!st.ordered) continue;
        const c = computed(st);
        arg = c.expr;
        kind = c.kind;
        if (c.unord) acc.unord.add(name);
        break;
      }
      case "$push": case "$addToSet": {
        let c;
        if (chance(0.6) && st.order.length) {
          const f = pick(st.order.filter((g) => !st.deep.has(g)).concat(scalarPaths(st)));
          c = { expr: "$" + f, kind: kindOfPath(st, f), unord: st.unordered.has(f) };
        } else c = computed(st);
        // not sets of arrays in no order, nor of documents whose fields vary
        if (op === "$addToSet" && (c.unord || c.kind === "docv" || c.kind === "docs")) continue;
        arg = c.expr;
        const scalarElems = SCALAR.has(c.kind) || c.kind === "doc";
        kind = op === "$addToSet" ? "set" : scalarElems && !c.unord ? "list" : "nlist";
        if (op === "$addToSet" || !st.ordered || c.unord) acc.unord.add(name);
        if (c.unord) acc.deep.add(name);
        if (scalarElems) acc.elems[name] = c.kind;
        break;
      }
      case "$count":
        arg = {};
        kind = "int";
        break;
    }
    if (arg === undefined) continue;
    spec[name] = { [op]: arg };
    acc.kinds[name] = kind === "doc" ? "docv" : kind;     // (null when no document has one)
  }
}

const accOf = (spec, k) => (k === "_id" ? null : Object.keys(spec[k])[0]);

// The kinds of rewrite of the fixed run that accumulators need.
function accumulatorKinds(spec) {
  const kinds = [];
  const accs = Object.keys(spec).map((k) => accOf(spec, k));
  if (accs.includes("$push") || accs.includes("$addToSet")) kinds.push("push-skips-missing");
  if (accs.includes("$stdDevPop") || accs.includes("$stdDevSamp")) kinds.push("stddev-of-nothing");
  for (const a of accs) if (N_KIND[a] && !kinds.includes(N_KIND[a])) kinds.push(N_KIND[a]);
  return kinds;
}

// The fixed run's accumulators: {fspec: the specification for mingo,
// after: the stages after the $group (or $bucket) that make its answer
// MongoDB's}.
// mingo's $push and $addToSet add null for a missing value, which MongoDB
// skips: the fixed run pushes {v: value} (a missing value makes {}) and
// unwraps after the group. mingo's $stdDevSamp of no number is 0 (and
// $stdDevPop's NaN, null in JSON); MongoDB gives null: the fixed run counts
// the numbers. The N_OPS (firstn-lastn, minn-maxn, top-bottom, merge-
// objects): the fixed run pushes a record of each document (accNRecord)
// and computes MongoDB's value after ($__accN).
function accumulatorFix(spec, off) {
  const push = !off.has("push-skips-missing");
  const sd = !off.has("stddev-of-nothing");
  const fspec = {};
  const post = [];
  const counts = {};
  const accN = [];
  for (const k of Object.keys(spec)) {
    const acc = accOf(spec, k);
    if (push && (acc === "$push" || acc === "$addToSet")) {
      fspec[k] = { [acc]: { v: spec[k][acc] } };
      post.push(k);
    } else if (N_KIND[acc] && !off.has(N_KIND[acc])) {
      const { rec, spec: s } = accNRecord(acc, spec[k][acc]);
      fspec[k] = { $push: rec };
      accN.push([k, s]);
    } else fspec[k] = spec[k];
  }
  for (const k of Object.keys(spec)) {
    const acc = accOf(spec, k);
    if (sd && (acc === "$stdDevPop" || acc === "$stdDevSamp")) {
      const t = "__n" + k;
      fspec[t] = { $sum: { $cond: [{ $isNumber: spec[k][acc] }, 1, 0] } };
      counts[k] = [t, acc === "$stdDevSamp" ? 1 : 0];
    }
  }
  const after = [];
  if (Object.keys(counts).length) {
    after.push({ $set: Object.fromEntries(Object.entries(counts).map(([k, [t, min]]) =>
      [k, { $cond: [{ $gt: ["$" + t, min] }, "$" + k, null] }])) });
    after.push({ $unset: Object.values(counts).map(([t]) => t) });
  }
  if (post.length) {
    after.push({ $set: Object.fromEntries(post.map((k) => [k, {
      $map: { input: { $filter: { input: "$" + k, cond: { $ne: [{ $type: "$$this.v" }, "missing"] } } },
              in: "$$this.v" } }])) });
  }
  if (accN.length) after.push({ $set: Object.fromEntries(accN.map(([k, s]) => [k, { $__accN: [k, s] }])) });
  return { fspec, after };
}

// The "dbl" run's stages after accumulators whose results MongoDB always
// makes doubles.
function accumulatorDbl(dbl) {
  return dbl.length
    ? [{ $set: Object.fromEntries(dbl.map((k) => [k, { $add: ["$" + k, SHIFT_ALWAYS_D] }])) }] : [];
}

// $group (its accumulators' rewrites: accumulatorFix).
function stageGroup(st) {
  let id, idKind;
  const r = int(10);
  const sp = scalarPaths(st);
  if (r < 4 && sp.length) {
    const p = pick(sp);
    id = "$" + p;
    idKind = kindOfPath(st, p);
  } else if (r < 5) {
    id = null; idKind = "null";
  } else if (r < 7 && sp.length) {
    id = {};
    for (let n = 1 + int(2); n > 0; n--) id[pick(["a", "b", "k"])] = "$" + pick(sp);
    idKind = "docv";
  } else if (r < 8) {
    const arrs = fieldsOf(st, (k) => k === "arr");
    if (arrs.length) { id = "$" + pick(arrs); idKind = "arr"; } else { id = numExpr(st, 0); idKind = "num"; }
  } else if (r < 9) {
    id = numExpr(st, 0); idKind = "num";
  } else {
    id = strExpr(st, 0); idKind = "str";
  }
  const spec = { _id: id };
  const acc = { kinds: { _id: idKind === "null" ? "int" : idKind }, unord: new Set(), deep: new Set(),
                elems: {}, dbl: [] };
  addAccumulators(st, spec, 1 + int(3), acc, false, { idKind });
  const fix = (off) => {
    const { fspec, after } = accumulatorFix(spec, off);
    return [{ $group: fspec }].concat(after);
  };
  // the state
  st.order = Object.keys(spec);
  st.kinds = acc.kinds;
  st.unordered = acc.unord;
  st.deep = acc.deep;
  st.natural = false;
  st.elems = acc.elems;
  const idSortable = ["id", "int", "num", "long", "str", "bool", "mixed", "doc", "null"].includes(idKind);
  st.key = idSortable ? ["_id"] : null;
  st.ordered = false;
  return { stage: { $group: spec }, fix, kinds: accumulatorKinds(spec), dbl: accumulatorDbl(acc.dbl),
           lng: [] };
}

function stageSortByCount(st) {
  const sp = scalarPaths(st);
  let e, kind;
  if (sp.length && chance(0.7)) { const p = pick(sp); e = "$" + p; kind = kindOfPath(st, p); }
  else if (chance(0.5)) { e = strExpr(st, 0); kind = "str"; }
  else { e = numExpr(st, 0); kind = "num"; }
  // (MongoDB wants a $-prefixed path or an expression object there)
  if (typeof e !== "object" && !(typeof e === "string" && e[0] === "$")) e = { $literal: e };
  st.order = ["_id", "count"];
  st.kinds = { _id: kind, count: "int" };
  st.key = ["_id"];
  st.ordered = false;       // by count; ties in no specified order
  st.unordered = new Set();
  st.deep = new Set();
  st.natural = false;
  return plain({ $sortByCount: e });
}

// $lookup. mingo gives an empty array for a local empty array, where
// MongoDB looks up null (DocumentSourceLookUp::makeMatchStageFromInput:
// "Missing values are treated as null", no value at the path being
// missing); and for a local array it adds a hole (JSON null) for each
// element that matched nothing. The fixed run looks up a copy of the local
// value with [] made null, and drops the holes. And mingo lists a foreign
// document once for each element of its foreignField array that matches
// (MongoDB's query on the foreign collection returns it once); the fixed
// run drops the repeats.
function stageLookup(st, ctx) {
  ctx.lookup = true;
  const locals = fieldsOf(st, (k) => SCALAR.has(k) || k === "arr" || k === "list")
    .concat(fieldsOf(st, (k) => k === "doc").map((p) => p + ".x"), ["nope"]);
  const localField = pick(locals);
  const foreignField = pick(["k", "k", "k", "w", "_id", "name"]);
  const as = chance(0.8) || st.order.length < 2 ? pick(["j", "joined"])
                                                 : pick(st.order.filter((f) => f !== "_id"));
  const stage = { $lookup: { from: "c2", localField, foreignField, as } };
  const l = tmp();
  const fix = (off) => {
    const fixed = off.has("lookup-local-arrays") ? [stage] : [
      { $set: { [l]: { $cond: [{ $eq: ["$" + localField, []] }, null, "$" + localField] } } },
      { $lookup: { from: "c2", localField: l, foreignField, as } },
      { $unset: l },
      { $set: { [as]: { $filter: { input: "$" + as, cond: { $eq: [{ $type: "$$this" }, "object"] } } } } },
    ];
    if (!off.has("lookup-repeats")) {
      fixed.push({ $set: { [as]: { $reduce: { input: "$" + as, initialValue: [], in: {
        $cond: [{ $in: ["$$this", "$$value"] }, "$$value", { $concatArrays: ["$$value", ["$$this"]] }] } } } } });
    }
    return fixed;
  };
  setField(st, as, "docs", true);
  return { stage, fix, kinds: ["lookup-local-arrays", "lookup-repeats"], dbl: [], lng: [] };
}

// $bucket: {groupBy, boundaries, default, output}. MongoDB makes it a
// $group on a $switch over the boundaries, then a $sort on _id
// (DocumentSourceBucket::createFromBson): a bucket per boundary that some
// document falls in, and the default's bucket if some document is in no
// other; a value compares with the boundaries in BSON order as $gte/$lt do
// (null, missing, a string among numbers, an array, a document: in none).
// mingo's $bucket departs from that; the fixed run, around mingo's own
// $bucket:
//  - bucket-empty: mingo outputs every boundary's bucket, empty ones too:
//    the fixed run counts the documents alongside (__n) and drops those
//    with none;
//  - bucket-id-last: mingo puts _id after the output fields: moved first;
//  - bucket-default-order: mingo puts the default's bucket last: sorted on
//    _id;
//  - bucket-boundary-value: mingo puts a value equal to a boundary (but
//    the first) in the bucket before that boundary's (its binary search
//    finds the boundary's own index): the fixed run groups such a value by
//    one a little above it (+1e-9; a string with "\0" appended), in the
//    same bucket in MongoDB;
//  - bucket-array-groupby: mingo places an array by its elements (its
//    query comparison): the fixed run groups by true instead, which like
//    an array is above every number and string;
//  - bucket-null-default: mingo takes default: null for no default: the
//    fixed run gives a stand-in document and makes it null afterwards;
//  - bucket-default-expression: MongoDB evaluates the default as an
//    expression that must be constant ({$literal: "other"} is "other");
//    mingo takes it as it is: the fixed run gives the value;
// and the accumulators' rewrites of $group (accumulatorFix).
const BUCKET_STRS = ["", "B", "ab", "b", "x", "y", "z", "zz"];
const NULL_STANDIN = { __nullDefault: 1 };

// (end: the stage ends the pipeline at the top)
function stageBucket(st, ctx, end) {
  const numeric = chance(0.7);
  let groupBy;
  let arrays = false;
  // (values of other types: in no bucket)
  const others = fieldsOf(st, (k) => ["mixed", "arr", "list", "doc", "bool"].includes(k) ||
                                    (numeric ? k === "str" : NUMERIC.has(k)));
  const r = int(10);
  const paths = numeric ? numPaths(st) : strPaths(st);
  if (r < 5 && paths.length) groupBy = "$" + pick(paths);
  else if (r < 7 && others.length) {
    const f = pick(others);
    groupBy = "$" + f;
    arrays = ["arr", "list"].includes(st.kinds[f]);
  } else groupBy = numeric ? numExpr(st, 0) : strExpr(st, 0);
  // (MongoDB wants a $-prefixed path or an expression object there)
  if (typeof groupBy !== "object" || groupBy === null) {
    if (!(typeof groupBy === "string" && groupBy[0] === "$")) groupBy = { $literal: groupBy };
  }
  const pool = numeric ? [-3, -1, 0, 1, 2, 3, 4, 5, 6, 8, 10, 12].concat(DOUBLES) : BUCKET_STRS;
  const bounds = [];
  for (let n = 2 + int(4); bounds.length < n;) {
    const v = pick(pool);
    if (!bounds.includes(v)) bounds.push(v);
  }
  if (numeric) bounds.sort((x, y) => x - y); else bounds.sort();
  const lo = bounds[0];
  const hi = bounds[bounds.length - 1];
  let dflt;            // undefined: none
  let dfltValue;       // what MongoDB makes of it
  const d = int(40);
  if (d < 10) dflt = undefined;
  else if (d < 13) dflt = null;
  else if (d < 22) {
    dflt = pick(["other", "none", "zzz", ""]);
    if (!numeric && dflt >= lo && dflt < hi) dflt = "zzz";
  } else if (d < 34) {
    if (!numeric) dflt = pick([-1, 0, 2.5]);
    else dflt = chance(0.5) ? Math.floor(lo) - 1 - int(4) : Math.ceil(hi) + int(3);
  } else if (d < 38) dflt = chance(0.5);
  else if (d < 39 || !end) dflt = { k: "other" };
  else {
    // an expression that MongoDB folds into a constant (only at the end,
    // so that no later stage reads that _id)
    dflt = !numeric ? { $literal: "zzz" }
      : chance(0.5) ? { $add: [Math.ceil(hi), 1] } : { $literal: "other" };
  }
  dfltValue = dflt && dflt.$add ? dflt.$add[0] + dflt.$add[1] : dflt && dflt.$literal ? dflt.$literal : dflt;
  const spec = { groupBy, boundaries: bounds };
  if (dflt !== undefined) spec.default = dflt;
  const acc = { kinds: {}, unord: new Set(), deep: new Set(), elems: {}, dbl: [] };
  let output;                        // undefined: none ({count: {$sum: 1}})
  const o = int(20);
  if (o < 9) output = undefined;
  else if (o < 10) output = {};
  else {
    output = {};
    addAccumulators(st, output, 1 + int(3), acc);
  }
  if (output !== undefined) spec.output = output;
  const kinds = ["bucket-empty", "bucket-id-last", "bucket-default-order", "bucket-boundary-value"]
    .concat(accumulatorKinds(output || {}));
  if (arrays) kinds.push("bucket-array-groupby");
  if (dflt === null) kinds.push("bucket-null-default");
  if (dflt !== dfltValue) kinds.push("bucket-default-expression");
  const fix = (off) => {
    const empty = !off.has("bucket-empty");
    const { fspec, after } = accumulatorFix(output === undefined ? { count: { $sum: 1 } } : output, off);
    const fs = { boundaries: bounds };
    let g = arrays && !off.has("bucket-array-groupby")
      ? { $cond: [{ $isArray: [groupBy] }, true, groupBy] } : groupBy;
    if (bounds.length > 2 && !off.has("bucket-boundary-value")) {
      g = { $cond: [{ $in: [g, bounds.slice(1, -1)] },
                    numeric ? { $add: [g, 1e-9] } : { $concat: [g, "\u0000"] }, g] };
    }
    fs.groupBy = g;
    if (dflt !== undefined) {
      fs.default = dflt === null && !off.has("bucket-null-default") ? NULL_STANDIN
        : off.has("bucket-default-expression") ? dflt : dfltValue;
    }
    if (output !== undefined || empty) {
      fs.output = Object.assign({}, fspec, empty ? { __n: { $sum: 1 } } : {});
    }
    const fixed = [{ $bucket: fs }];
    if (empty) fixed.push({ $match: { __n: { $gt: 0 } } }, { $unset: "__n" });
    fixed.push(...after);
    if (dflt === null && !off.has("bucket-null-default")) {
      fixed.push({ $set: { _id: { $cond: [{ $eq: ["$_id", { $literal: NULL_STANDIN }] }, null, "$_id"] } } });
    }
    if (!off.has("bucket-id-last")) {
      fixed.push({ $replaceWith: { $mergeObjects: [{ _id: "$_id" }, "$$ROOT"] } });
    }
    if (!off.has("bucket-default-order")) fixed.push({ $sort: { _id: 1 } });
    return fixed;
  };
  // the state: _id a boundary or the default
  const dk = dfltValue === undefined || dfltValue === null ? null
    : typeof dfltValue === "number" ? "num" : typeof dfltValue === "string" ? "str"
    : typeof dfltValue === "boolean" ? "bool" : "doc";
  const bk = numeric ? "num" : "str";
  st.order = ["_id"].concat(output === undefined ? ["count"] : Object.keys(output));
  st.kinds = Object.assign({ _id: !dk || dk === bk ? bk : dk === "doc" ? "any" : "mixed" },
                           output === undefined ? { count: "int" } : acc.kinds);
  st.unordered = acc.unord;
  st.deep = acc.deep;
  st.elems = acc.elems;
  st.natural = false;
  st.key = st.kinds._id === "any" ? null : ["_id"];
  st.ordered = true;                 // sorted on _id, unique
  return { stage: { $bucket: spec }, fix, kinds, dbl: accumulatorDbl(acc.dbl), lng: [] };
}

// $bucketAuto: {groupBy, buckets, output, granularity} (MongoDB's
// DocumentSourceBucketAuto): the documents sorted on their groupBy value
// (missing is null; BSON order), cut into buckets of round(n / buckets)
// documents (at least 1; the last bucket, number buckets, takes the rest),
// each also taking the documents after it whose value equals its last one;
// _id {min, max}: its least value and the next bucket's (the last bucket:
// its greatest). With a granularity (the values must all be numbers >= 0,
// else an error) the bounds are numbers of the series (granularity_
// rounder_*.cpp): the first min rounded down, each max the bucket's last
// value rounded up (the documents below it, or equal to that last value,
// join the bucket; a max of 0 with documents after it is the next value
// rounded down), each min the max before it. output {} is no output: the
// default {count: {$sum: 1}} (DocumentSourceBucketAuto::create). mingo
// departs; the fixed run, around mingo's own $bucketAuto:
//  - bucketauto-id-last: mingo puts _id after the output fields: moved
//    first;
//  - bucketauto-of-nothing: mingo outputs a bucket {_id: {}} when no
//    document comes in; MongoDB none: the fixed run counts the documents
//    alongside (__n) and drops a bucket of none;
//  - bucketauto-empty-output: mingo outputs no field for output {}: the
//    fixed run gives no output;
//  - bucketauto-accumulators: mingo drops null (and missing) from every
//    array of the output (so $push's nulls, and nulls within arrays), and
//    gives null for a $push's missing value... : the fixed run accumulates
//    $push, $first and $last as $push of {v: value, p: position} and
//    $addToSet of {v: value}, and takes the values after ($__bucketAcc):
//    missing ones skipped ($push, $addToSet) or null ($first, $last);
//  - bucketauto-input-order: $first and $last take the documents in the
//    order they came in (MongoDB's positional accumulators for $bucketAuto,
//    accumulator_for_bucket_auto.cpp: $first, $firstN, $last, $lastN), the
//    others ($push) in groupBy order, as MongoDB's sorter hands them on
//    (stable); mingo's order of equal groupBy values is its own: the fixed
//    run numbers the documents first ($__number) and sorts on that;
//  - bucketauto-granularity: mingo's rounding departs from MongoDB's (its
//    POWERSOF2 starts at 0, neither absorbs values equal to the last one
//    nor makes a max of 0 the next value rounded down, ...): the fixed
//    run computes the groupBy value into __g, numbers each document's
//    bucket and sets its bounds by MongoDB's algorithm ($__autoGranular,
//    which raises MongoDB's errors), then runs mingo's $bucketAuto on the
//    bucket numbers, one bucket each;
//  - firstn-lastn, minn-maxn, top-bottom, merge-objects: the N_OPS as in
//    $group (accNRecord, $__accN), their records with the documents'
//    positions (__pos, $__number) and groupBy values: MongoDB's $bucketAuto
//    hands the documents to $firstN and $lastN in the order they came in
//    (its positional accumulators), to the others in groupBy order (its
//    sorter's, stable: DocumentSourceBucketAuto::addDocumentToBucket), its
//    $mergeObjects merging them in that order too.
// The bounds MongoDB makes doubles (those of a series, but 0) are moved in
// the "dbl" run.
const GRANULARITIES = ["R5", "R10", "R20", "R40", "R80", "1-2-5", "E6", "E12", "E24", "E48", "E96",
                       "E192", "POWERSOF2"];
const POSITIONAL = ["$first", "$last"];

function stageBucketAuto(st, ctx) {
  const gran = chance(0.35) ? pick(GRANULARITIES) : null;
  let groupBy;
  let zero = "int";        // the type of a groupBy value 0 with a granularity ("int", "double")
  const np = numPaths(st);
  if (gran) {
    const r = int(20);
    const bad = fieldsOf(st, (k) => ["str", "mixed", "bool"].includes(k));
    if (r < 2 && np.length) {
      const p = pick(np);
      groupBy = "$" + p;                            // null, missing, negative: an error
      zero = ["int", "id"].includes(kindOfPath(st, p)) ? "int" : null;
    } else if (r < 3 && bad.length) {
      groupBy = "$" + pick(bad);                    // not numbers: an error
    } else if (r < 4) {
      groupBy = { $add: [numExpr(st, 1), -2] };     // negative ones: an error
      zero = null;
    } else if (!np.length || r < 5) {
      groupBy = { $literal: pick([0, 1, 2.5, 7]) };
    } else {
      const p = pick(np);
      groupBy = { $abs: { $ifNull: ["$" + p, pick([0, 0, 1, 2.25])] } };
      zero = ["int", "id"].includes(kindOfPath(st, p)) ? "int" : null;
      if (chance(0.4)) {
        const k = pick([10, 100, 1000, 0.1, 0.01, 3]);
        groupBy = { $multiply: [groupBy, k] };
        if (k < 1) zero = "double";
      }
      if (chance(0.15)) {
        const k = pick([0.5, 40, 0]);
        groupBy = { $add: [groupBy, k] };
        if (k === 0.5) zero = "double";
      }
    }
    // (a value 0 whose type is not known, made a double: int * double is
    // a double)
    if (zero === null) {
      groupBy = { $multiply: [groupBy, pick([0.1, 2.5, 0.01])] };
      zero = "double";
    }
  } else {
    const sp = scalarPaths(st).filter((p) => !st.unordered.has(p));
    const r = int(10);
    if (r < 5 && sp.length) groupBy = "$" + pick(sp);
    else if (r < 7) groupBy = numExpr(st, 0);
    else if (r < 8) groupBy = strExpr(st, 0);
    else if (r < 9) groupBy = { $cond: [boolExpr(st, 1), numConst(), strConst()] };
    else groupBy = np.length ? "$" + pick(np) : numExpr(st, 0);
  }
  if (typeof groupBy !== "object" || groupBy === null) {
    if (!(typeof groupBy === "string" && groupBy[0] === "$")) groupBy = { $literal: groupBy };
  }
  const buckets = chance(0.85) ? 1 + int(8) : 8 + int(30);
  const acc = { kinds: {}, unord: new Set(), deep: new Set(), elems: {}, dbl: [] };
  let output;                        // undefined: none ({count: {$sum: 1}})
  const o = int(20);
  if (o < 8) output = undefined;
  else if (o < 9) output = {};
  else {
    output = {};
    addAccumulators(st, output, 1 + int(3), acc, true);
  }
  const spec = { groupBy, buckets };
  if (output !== undefined) spec.output = output;
  if (gran) spec.granularity = gran;
  const emptyOut = output !== undefined && !Object.keys(output).length;
  const accs = output === undefined ? {} : output;
  const positional = Object.keys(accs).some((k) => POSITIONAL.includes(accOf(accs, k)) ||
                                                  accOf(accs, k) === "$push");
  const kinds = ["bucketauto-id-last", "bucketauto-accumulators", "bucketauto-of-nothing"];
  if (positional) kinds.push("bucketauto-input-order");
  if (gran) kinds.push("bucketauto-granularity");
  if (emptyOut) kinds.push("bucketauto-empty-output");
  for (const k of Object.keys(accs)) {
    const nk = N_KIND[accOf(accs, k)];
    if (nk && !kinds.includes(nk)) kinds.push(nk);
  }
  const fix = (off, extra) => {
    const fixAcc = !off.has("bucketauto-accumulators");
    const byPos = !off.has("bucketauto-input-order");
    const nothing = !off.has("bucketauto-of-nothing");
    let out = emptyOut && !off.has("bucketauto-empty-output") ? undefined : output;
    const after = [];
    if (nothing) {
      out = Object.assign({}, out || { count: { $sum: 1 } }, { __n: { $sum: 1 } });
      after.push({ $match: { __n: { $gt: 0 } } }, { $unset: "__n" });
    }
    // (N_OPS: records with their positions and groupBy values)
    const nOps = new Set(Object.keys(out || {}).filter((k) => k !== "__n" && N_KIND[accOf(out, k)] &&
                                                            !off.has(N_KIND[accOf(out, k)])));
    if (nOps.size) {
      out = Object.assign({}, out);
      for (const k of nOps) {
        const op = accOf(out, k);
        const { rec, spec: s } = accNRecord(op, out[k][op],
          { order: op === "$firstN" || op === "$lastN" ? "pos" : "gpos" });
        out[k] = { $push: Object.assign(rec, { p: "$__pos", g: groupBy }) };
        after.push({ $set: { [k]: { $__accN: [k, s] } } });
      }
    }
    if (fixAcc) {
      const a = out === undefined ? { count: { $sum: 1 } } : out;
      out = {};
      for (const k of Object.keys(a)) {
        const op = k === "__n" ? null : accOf(a, k);
        const arg = a[k][op];
        if (nOps.has(k)) { out[k] = a[k]; continue; }
        if (POSITIONAL.includes(op) || op === "$push") out[k] = { $push: { v: arg, p: "$__pos", g: groupBy } };
        else if (op === "$addToSet") out[k] = { $addToSet: { v: arg } };
        else { out[k] = a[k]; continue; }
        after.push({ $set: { [k]: { $__bucketAcc: [k, op, byPos && POSITIONAL.includes(op)] } } });
      }
    }
    const fixed = [];
    if ((fixAcc && positional) || nOps.size) fixed.push({ $__number: "__pos" });
    if (gran && !off.has("bucketauto-granularity")) {
      fixed.push({ $set: { __g: groupBy } }, { $__clone: {} });
      fixed.push({ $__autoGranular: { buckets, granularity: gran, zero,
                                      shift: extra === "dbl" ? SHIFT_ALWAYS_D : 0 } });
      const o2 = Object.assign({}, out || { count: { $sum: 1 } },
                               { __min: { $max: "$__min" }, __max: { $max: "$__max" } });
      fixed.push({ $bucketAuto: { groupBy: "$__b", buckets: 1000000, output: o2 } }, { $__clone: {} });
      fixed.push({ $set: { _id: { min: "$__min", max: "$__max" } } }, { $unset: ["__min", "__max"] });
    } else {
      const s = { groupBy, buckets };
      if (out !== undefined) s.output = out;
      if (gran) s.granularity = gran;
      fixed.push({ $bucketAuto: s });
    }
    fixed.push({ $__clone: {} }, ...after);
    if (!off.has("bucketauto-id-last")) {
      fixed.push({ $replaceWith: { $mergeObjects: [{ _id: "$_id" }, "$$ROOT"] } });
    }
    return fixed;
  };
  // the state: _id {min, max}, in bucket order
  const names = output === undefined || emptyOut ? ["count"] : Object.keys(output);
  st.order = ["_id"].concat(names);
  st.kinds = Object.assign({ _id: "docv" }, output === undefined || emptyOut ? { count: "int" } : acc.kinds);
  st.unordered = acc.unord;
  st.deep = acc.deep;
  st.elems = acc.elems;
  st.natural = false;
  st.key = null;
  st.ordered = true;
  return { stage: { $bucketAuto: spec }, fix, kinds, dbl: accumulatorDbl(acc.dbl), lng: [] };
}

// MongoDB's granularity rounders (granularity_rounder_preferred_numbers.cpp,
// granularity_rounder_powers_of_two.cpp), on numbers >= 0: {v, dbl: whether
// MongoDB gives a double}. 0 stays itself.
const SERIES = {
  R5: [10, 16, 25, 40, 63],
  R10: [100, 125, 160, 200, 250, 315, 400, 500, 630, 800],
  R20: [100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630, 710, 800, 900],
  R40: [100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200, 212, 224, 236, 250, 265, 280,
        300, 315, 355, 375, 400, 425, 450, 475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900, 950],
  R80: [103, 109, 115, 122, 128, 136, 145, 155, 165, 175, 185, 195, 206, 218, 230, 243, 258, 272, 290,
        307, 325, 345, 365, 387, 412, 437, 462, 487, 515, 545, 575, 615, 650, 690, 730, 775, 825, 875,
        925, 975],
  "1-2-5": [10, 20, 50],
  E6: [10, 15, 22, 33, 47, 68],
  E12: [10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82],
  E24: [10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91],
  E48: [100, 105, 110, 115, 121, 127, 133, 140, 147, 154, 162, 169, 178, 187, 196, 205, 215, 226, 237,
        249, 261, 274, 287, 301, 316, 332, 348, 365, 383, 402, 422, 442, 464, 487, 511, 536, 562, 590,
        619, 649, 681, 715, 750, 787, 825, 866, 909, 953],
  E96: [100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133, 137, 140, 143, 147, 150, 154,
        158, 162, 165, 169, 174, 178, 182, 187, 191, 196, 200, 205, 210, 215, 221, 226, 232, 237, 243,
        249, 255, 261, 267, 274, 280, 287, 294, 301, 309, 316, 324, 332, 340, 348, 357, 365, 374, 383,
        392, 402, 412, 422, 432, 442, 453, 464, 475, 487, 499, 511, 523, 536, 549, 562, 576, 590, 604,
        619, 634, 649, 665, 681, 698, 715, 732, 750, 768, 787, 806, 825, 845, 866, 887, 909, 931, 953, 976],
  E192: [100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115, 117, 118, 120, 121, 123, 124,
         126, 127, 129, 130, 132, 133, 135, 137, 138, 140, 142, 143, 145, 147, 149, 150, 152, 154, 156,
         158, 160, 162, 164, 165, 167, 169, 172, 174, 176, 178, 180, 182, 184, 187, 189, 191, 193, 196,
         198, 200, 203, 205, 208, 210, 213, 215, 218, 221, 223, 226, 229, 232, 234, 237, 240, 243, 246,
         249, 252, 255, 258, 261, 264, 267, 271, 274, 277, 280, 284, 287, 291, 294, 298, 301, 305, 309,
         312, 316, 320, 324, 328, 332, 336, 340, 344, 348, 352, 357, 361, 365, 370, 374, 379, 383, 388,
         392, 397, 402, 407, 412, 417, 422, 427, 432, 437, 442, 448, 453, 459, 464, 470, 475, 481, 487,
         493, 499, 505, 511, 517, 523, 530, 536, 542, 549, 556, 562, 569, 576, 583, 590, 597, 604, 612,
         619, 626, 634, 642, 649, 657, 665, 673, 681, 690, 698, 706, 715, 723, 732, 741, 750, 759, 768,
         777, 787, 796, 806, 816, 825, 835, 845, 856, 866, 876, 887, 898, 909, 920, 931, 942, 953, 965,
         976, 988],
};

function roundGranular(granularity, n, up) {
  if (n === 0) return { v: n, dbl: false };
  if (granularity === "POWERSOF2") {
    // (an int's exponent from its bits, a double's from log2: the same
    // for whole numbers; $pow(2, exp) is an int for exp >= 0)
    const e = up ? Math.floor(Math.log2(n)) + 1 : Math.ceil(Math.log2(n)) - 1;
    return { v: 2 ** e, dbl: e < 0 };
  }
  const s = SERIES[granularity];
  const first = s[0];
  const last = s[s.length - 1];
  let m = 1.0;
  if (up) {
    while (n >= last * m) m *= 10.0;
    while (n < first * m) {
      const prevMin = first * m;
      m /= 10.0;
      if (n >= last * m) return { v: prevMin, dbl: true };
    }
    let i = 0;
    while (!(n < s[i] * m)) i++;                     // upper_bound
    return { v: s[i] * m, dbl: true };
  }
  while (n <= first * m) m /= 10.0;
  while (n > last * m) {
    const prevMax = last * m;
    m *= 10.0;
    if (n <= first * m) return { v: prevMax, dbl: true };
  }
  let i = 0;
  while (s[i] * m < n) i++;                          // lower_bound
  return { v: s[i - 1] * m, dbl: true };
}

// The stages of a sub-pipeline ($facet's, $unionWith's) for a run of
// mingo, as pipelineFor makes the top one: each item's fixed stages (but
// for the kinds in off), its extra stages of the "dbl" or "lng" run, and a
// copy of each document after it.
function itemsFor(items, off, extra) {
  return [].concat(...items.map((x) => x.fix(off, extra).concat(
    extra ? x[extra] : [], off.has("shared-objects") ? [] : [{ $__clone: {} }])));
}
function kindsOf(items) {
  return [...new Set([].concat(...items.map((x) => x.kinds)))];
}
function hasExtra(items, extra) {
  return items.some((x) => x[extra].length || (x.subs || []).some((s) => hasExtra(s, extra)));
}

// A sub-pipeline of 1..max stages on state s (changed to its output's).
function subPipeline(s, ctx, where, max) {
  const items = [];
  for (let n = 1 + int(max), i = 0; i < n; i++) items.push(...[].concat(stage(s, ctx, i === n - 1, where)));
  return items;
}

// $facet: one document, each facet's name holding the array of what its
// pipeline makes of the same input (in the input's order: an index serves
// no stage of a facet). The fixed run is the same $facet of the facets'
// fixed pipelines. Where a facet's documents hold arrays in no order, the
// case says so in "inner", and the pipeline ends there.
function stageFacet(st, ctx) {
  const names = [];
  for (let n = 1 + int(3); n > 0; n--) {
    const nm = pick(["f", "g", "top", "all", "byA"]);
    if (!names.includes(nm)) names.push(nm);
  }
  const subs = names.map(() => {
    const s = cloneState(st);
    s.natural = false;
    return { s, items: subPipeline(s, ctx, { depth: 1, inUnion: false }, 3) };
  });
  const stage = { $facet: Object.fromEntries(names.map((nm, i) => [nm, subs[i].items.map((x) => x.stage)])) };
  const fix = (off, extra) => [{ $facet: Object.fromEntries(names.map((nm, i) =>
    [nm, itemsFor(subs[i].items, off, extra)])) }];
  st.order = names.slice();
  st.kinds = {};
  st.unordered = new Set();
  st.deep = new Set();
  st.elems = {};
  st.inner = {};
  names.forEach((nm, i) => {
    const s = subs[i].s;
    st.kinds[nm] = "docs";
    if (s.unordered.size || s.deep.size) {
      st.inner[nm] = { ordered: s.ordered, sets: [...s.unordered], deep: [...s.deep] };
      ctx.stop = true;
    } else if (!s.ordered) st.unordered.add(nm);
  });
  st.key = null;
  st.ordered = true;
  st.natural = false;
  return { stage, fix, kinds: kindsOf([].concat(...subs.map((x) => x.items))), dbl: [], lng: [],
           subs: subs.map((x) => x.items) };
}

// The kind of a field that is of kind a in some documents and b in others.
function mergeKind(a, b) {
  if (a === undefined || a === b) return b;
  if (b === undefined) return a;
  if (NUMERIC.has(a) && NUMERIC.has(b)) {
    return [a, b].some((k) => k === "num" || k === "long") ? "num" : "int";
  }
  if (SCALAR.has(a) && SCALAR.has(b)) return "mixed";
  const arrish = (k) => k === "arr" || k === "list" || SCALAR.has(k);
  if (arrish(a) && arrish(b)) return "arr";
  if ((a === "doc" || a === "docv") && (b === "doc" || b === "docv")) return "docv";
  return "any";
}

// The state after st's documents then s's: their _id unique together when
// each was and they come from different collections (c's ids are 1..90,
// c2's from 101). Still "natural" when both parts were: MongoDB moves a
// $match after a $unionWith into both pipelines (DocumentSourceUnionWith::
// doOptimizeAt), where an index may serve it.
function mergeStates(st, s, disjoint) {
  const idKey = (x) => x.key && x.key.length === 1 && x.key[0] === "_id" && x.kinds._id === "id";
  const key = disjoint && idKey(st) && idKey(s) ? ["_id"] : null;
  for (const f of s.order) if (!st.order.includes(f)) st.order.push(f);
  const kinds = {};
  for (const f of st.order) kinds[f] = mergeKind(st.kinds[f], s.kinds[f]);
  if (!disjoint && kinds._id === "id") kinds._id = "int";
  st.kinds = kinds;
  for (const f of s.unordered) st.unordered.add(f);
  for (const f of s.deep) st.deep.add(f);
  for (const f of Object.keys(s.elems)) {
    if (f in st.elems && st.elems[f] !== s.elems[f]) delete st.elems[f];
    else st.elems[f] = s.elems[f];
  }
  st.key = key;
  st.ordered = st.ordered && s.ordered;
  st.natural = st.natural && s.natural;
}

// $unionWith: the input documents, then those of c2 (or of c itself)
// through a pipeline of 0..3 stages, which reads its collection as a
// pipeline at the top does (its leading $match on _id may come in _id
// order). mingo gets the collections from the collectionResolver option;
// the fixed run is the same $unionWith of the fixed pipeline. Rarely a
// collection that does not exist, which MongoDB reads as empty (jstests/
// aggregation/sources/unionWith/unionWith.js: "using non-existent
// collections yields no results") and docext's README says is an error
// (the case's "differs": missing-collection).
function stageUnionWith(st, ctx, where) {
  ctx.union = true;
  if (chance(0.03)) {
    ctx.differs.push("missing-collection");
    return plain({ $unionWith: chance(0.5) ? "nope" : { coll: "nope", pipeline: [{ $match: {} }] } });
  }
  const self = chance(0.2);
  const coll = self ? "c" : "c2";
  if (!self) ctx.c2 = true;
  const s = self ? initState() : initState2();
  const items = chance(0.3) ? [] : subPipeline(s, ctx, { depth: where.depth + 1, inUnion: true }, 3);
  const spec = items.length ? { coll, pipeline: items.map((x) => x.stage) }
    : pick([coll, { coll }, { coll, pipeline: [] }]);
  const fix = (off, extra) => [{ $unionWith: { coll, pipeline: itemsFor(items, off, extra) } }];
  mergeStates(st, s, !self);
  return { stage: { $unionWith: spec }, fix, kinds: kindsOf(items), dbl: [], lng: [], subs: [items] };
}

// $sample: size documents at random, distinct, all of them when there are
// no more. At the end of a pipeline the checker checks only that
// ("sample": the size); mingo runs the pipeline without it (its $sample
// draws with replacement, and at random). Followed by $count, it is
// min(size, n) documents: mingo runs $limit instead.
function stageSample(st, thenCount) {
  let size = 1 + int(30);
  // (MongoDB takes a fractional size whole: safeNumberLong)
  if (!thenCount && chance(0.04)) size += 0.5;
  st.ordered = false;
  st.natural = false;
  const instead = thenCount ? [{ $limit: size }] : [];
  return { stage: { $sample: { size } }, fix: () => instead, raw: instead, kinds: [], dbl: [], lng: [],
           sample: size };
}

// $setWindowFields: {partitionBy, sortBy, output} (MongoDB's rules, which
// docext_window.c follows): the documents ordered by partition value
// (missing is null) then sortBy, stably; each output field set to its
// window function's value over its window within the partition. Sometimes
// a $set before it makes "ts", a number (or a date, for range windows with
// a unit and $derivative/$integral with one) always there ($ifNull), or
// now and then the bare path (null and missing: MongoDB's errors where it
// needs a number), for the functions that read the sortBy value. A date
// ts is unset after the stage (the checker compares no dates).
//
// The fixed run, around mingo's own $setWindowFields:
//  - window-partition-order: mingo outputs the partitions in the order of
//    their first document (it $groups); MongoDB in the order of their
//    value: the fixed run computes the partition value into a field
//    (missing made null) and sorts on it after, stably ($__stableSort);
//  - push-skips-missing: a window's $push and $addToSet skip missing
//    values as $group's do; mingo adds null: pushed as {v: value};
//  - window-first-last-missing: $first/$last of a missing value leaves the
//    output field out (MongoDB's window $first/$last return the value as
//    it is, missing too; an empty window gives null); mingo gives null:
//    the fixed run takes {v: value}, then v;
//  - stddev-of-nothing: $stdDevSamp of one number is null; mingo gives 0:
//    the fixed run counts the numbers of the window alongside;
//  - covariance-pairs: $covariancePop/Samp take the pairs of two numbers
//    only (MongoDB's WindowFunctionCovariance; null for no pair, and for
//    one in Samp); mingo takes every pair (NaN, so null, from one that is
//    not two numbers): the fixed run sums n, x, y and xy over the pairs
//    of numbers and divides;
//  - integral-of-nothing: $integral over an empty window is null; mingo 0:
//    the fixed run counts the window's documents alongside;
//  - window-data-errors: the errors MongoDB raises for the documents
//    (a partitionBy value that is an array; a range window's or
//    $derivative's/$integral's sortBy value that is not a number, or not a
//    date with a unit, or a date without one; $linearFill's sortBy values
//    that are not numbers or dates, or repeat in a partition, or its input
//    a value that is neither a number nor null); mingo runs on: the fixed
//    run checks them first ($__windowCheck) and raises the error;
//  - firstn-lastn, minn-maxn, top-bottom: the N_OPS but $mergeObjects (n a
//    constant) as in $group, a $push of records then $__accN, the
//    accumulators' rules where the window's lower bound is "unbounded" and
//    the removable window functions' otherwise (see accNValue);
//    window-negative-end gives [] (null for $top and $bottom) for an empty
//    window.
// Where the order of the input is not fixed and sortBy does not fix it,
// only the functions whose value does not depend on the order of equal
// sortBy values are drawn (no window, or a range window of numbers).
const WIN_NAMES = ["w", "w1", "w2", "run", "rk", "prev", "fill", "avgw", "tot"];
const WP = "__wp";

function stageWindow(st, ctx) {
  const pre = [];
  const post = [];
  // partitionBy
  let part;
  const pp = fieldsOf(st, (k) => SCALAR.has(k) && k !== "id").concat(
    fieldsOf(st, (k) => k === "doc").map((p) => p + "." + pick(["x", "y"])))
    .filter((f) => !st.unordered.has(f));
  const r = int(10);
  if (r < 5 && pp.length) part = "$" + pick(pp);
  else if (r < 6) part = strExpr(st, 1);
  else if (r < 7) part = { $cond: [boolExpr(st, 1), pick(["x", 1, null]), pick(["y", 2])] };
  else if (r < 8 && fieldsOf(st, (k) => k === "arr").length && chance(0.3)) {
    part = "$" + pick(fieldsOf(st, (k) => k === "arr"));          // arrays: an error
  }
  if (part !== undefined && typeof part !== "object" && !(typeof part === "string" && part[0] === "$")) {
    part = { $literal: part };
  }
  // ts: a number or a date (for the functions that read the sortBy value)
  let ts = null;
  let tsDate = false;
  const np = numPaths(st).filter((p) => !p.startsWith("$") && !st.unordered.has(p));
  if (chance(0.45) && np.length) {
    ts = "ts";
    const p = chance(0.3) && st.kinds._id === "id" ? "_id" : pick(np);
    const bare = chance(0.1);
    const v = bare ? "$" + p : { $ifNull: ["$" + p, int(3)] };
    tsDate = chance(0.4);
    const step = pick([3600000, 86400000, 7 * 86400000, 25 * 86400000]);
    const def = tsDate
      ? { $toDate: { $toLong: { $add: [1700000000000, { $multiply: [v, step] }] } } } : v;
    pre.push(plain({ $set: { ts: def } }));
    setField(st, "ts", tsDate ? "date" : "num", false);
  }
  // sortBy
  let sortBy;
  const sf = st.order.filter((f) => sortable(st, f) && !["arr", "list", "doc"].includes(st.kinds[f]))
    .concat(fieldsOf(st, (k) => k === "doc").map((p) => p + "." + pick(["x", "y"])));
  if (ts && chance(0.85)) {
    sortBy = { ts: 1 };
    if (chance(0.15)) sortBy = { ts: -1 };
    if (chance(0.15) && sf.length) { const f = pick(sf); if (f !== "ts") sortBy[f] = pick([1, -1]); }
  } else if (chance(0.85) && sf.length) {
    sortBy = {};
    for (let n = 1 + int(2); n > 0; n--) sortBy[pick(sf)] = pick([1, 1, -1]);
  }
  const sKeys = sortBy ? Object.keys(sortBy) : [];
  const one = sKeys.length === 1;
  const asc = one && sortBy[sKeys[0]] === 1;
  const s0 = sKeys[0];
  const s0Date = s0 === "ts" && tsDate;
  const s0Num = s0 === "ts" ? !tsDate : sortBy && NUMERIC.has(kindOfPath(st, s0));
  // the order of equal sortBy values fixed?
  const det = st.ordered || !!(st.key && st.key.every((f) => sKeys.includes(f)));
  // the window functions
  const spec = {};
  const outs = [];
  const checks = [];
  const kinds = ["window-partition-order", "window-data-errors"];
  const numIn = () => {
    const p = numPaths(st).filter((x) => !x.startsWith("$"));
    return chance(0.6) && p.length ? "$" + pick(p) : numExpr(st, 1);
  };
  // (not the date ts, which is unset after)
  const anyIn = () => {
    const c = computed(st);
    return c.kind === "date" ? { expr: numExpr(st, 1), kind: "num" } : c;
  };
  const docWindow = () => {
    const b = () => pick(["unbounded", "current", -2, -1, 0, 1, 2]);
    let lo = b(); let hi = b();
    const v = (x) => (x === "current" ? 0 : x);
    if (lo === "unbounded" && hi === "unbounded") return { documents: [lo, hi] };
    if (hi === "unbounded" || lo === "unbounded") {
      if (hi === "unbounded" && lo === "unbounded") return { documents: [lo, hi] };
      if (hi === "unbounded") return { documents: [lo === "unbounded" ? "unbounded" : lo, hi] };
      return { documents: [lo, hi] };
    }
    if (v(lo) > v(hi)) [lo, hi] = [hi, lo];
    return { documents: [lo, hi] };
  };
  const rangeWindow = (numbersOnly) => {
    const b = () => (numbersOnly ? pick([-3, -2, -1, 0, 1, 2, 3, "unbounded"])
                                 : pick(["unbounded", "current", -3, -2, -1, 0, 1, 2]));
    let lo = b(); let hi = b();
    if (lo === "unbounded" && hi === "unbounded") lo = -1;
    const v = (x) => (x === "current" ? 0 : x);
    if (lo !== "unbounded" && hi !== "unbounded" && v(lo) > v(hi)) [lo, hi] = [hi, lo];
    if (hi === "unbounded" && lo !== "unbounded" && chance(0.5)) [lo, hi] = ["unbounded", lo];
    const w = { range: [lo, hi] };
    if (s0Date) w.unit = pick(["hour", "day", "week", "month", "minute"]);
    return w;
  };
  const rangeOk = one && asc && (s0Num || s0Date) && s0 === "ts";
  for (let n = 1 + int(3); n > 0; n--) {
    const free = WIN_NAMES.filter((x) => !(x in st.kinds) && !(x in spec));
    if (!free.length) break;
    const name = pick(free);
    const ops = ["$sum", "$sum", "$avg", "$min", "$max", "$count", "$addToSet", "$stdDevPop", "$stdDevSamp",
                 "$covariancePop", "$covarianceSamp"];
    if (one) ops.push("$rank", "$rank", "$denseRank");
    if (one && det) ops.push("$documentNumber");
    if (det) ops.push("$push", "$push", "$locf");
    if (det && sortBy) ops.push("$first", "$last", "$shift", "$shift", "$expMovingAvg");
    if (det && one && s0 === "ts") ops.push("$derivative", "$integral", "$linearFill", "$derivative", "$integral");
    // (N_OPS but $mergeObjects, which is no window function; those that
    // depend on the order of the window's documents where it is fixed)
    const nOps = det ? N_OPS.filter((x) => x !== "$mergeObjects") : ["$minN", "$maxN"];
    ops.push(pick(nOps), pick(nOps), pick(nOps));
    const op = pick(ops);
    let arg;
    let kind = "num";
    let window;
    let unord = false;
    const windowed = ["$sum", "$avg", "$min", "$max", "$count", "$addToSet", "$stdDevPop", "$stdDevSamp",
                      "$covariancePop", "$covarianceSamp", "$first", "$last", "$push"].includes(op) || !!N_KIND[op];
    if (windowed && chance(0.6)) {
      if (rangeOk && chance(0.5)) window = rangeWindow(!det);
      else if (det && sortBy && chance(0.85)) window = docWindow();
      else if (rangeOk) window = rangeWindow(!det);
      else if (chance(0.3)) window = { documents: ["unbounded", "unbounded"] };
    }
    switch (op) {
      case "$sum": arg = chance(0.2) ? 1 : numIn(); break;
      case "$avg": case "$stdDevPop": case "$stdDevSamp": arg = numIn(); kind = "real"; break;
      case "$count": arg = {}; kind = "int"; break;
      case "$min": case "$max": case "$first": case "$last": {
        const p = fieldsOf(st, (k) => SCALAR.has(k) || k === "doc").concat(strPaths(st)).filter((x) => !x.startsWith("$"));
        if (p.length && chance(0.7)) { const f = pick(p); arg = "$" + f; kind = kindOfPath(st, f); }
        else { const c = anyIn(); arg = c.expr; kind = c.kind; if (c.unord) continue; }
        // (no arrays, nor documents whose fields vary: mingo compares them
        // otherwise than MongoDB)
        if (!SCALAR.has(kind) && kind !== "doc") continue;
        if (kind === "doc") kind = "docv";
        break;
      }
      case "$push": case "$addToSet": {
        const p = fieldsOf(st, (k) => SCALAR.has(k)).filter((x) => !st.unordered.has(x));
        if (p.length && chance(0.7)) { const f = pick(p); arg = "$" + f; }
        else arg = chance(0.5) ? numExpr(st, 1) : strExpr(st, 1);
        kind = op === "$push" ? "list" : "set";
        unord = op === "$addToSet";
        break;
      }
      case "$covariancePop": case "$covarianceSamp": arg = [numIn(), numIn()]; kind = "real"; break;
      case "$firstN": case "$lastN": case "$minN": case "$maxN":
      case "$top": case "$bottom": case "$topN": case "$bottomN": {
        const x = nAccumulator(st, op, { window: true, ordered: det });
        if (!x) continue;
        arg = x.arg;
        kind = x.kind === "doc" ? "docv" : x.kind;
        break;
      }
      case "$rank": case "$denseRank": case "$documentNumber": arg = {}; kind = "int"; break;
      case "$shift": {
        const c = anyIn();
        if (c.unord) continue;
        arg = { output: c.expr, by: pick([-2, -1, -1, 1, 1, 2, 0]) };
        if (chance(0.5)) arg.default = pick([0, -1, "none", null, 1.5]);
        // (an array with a default: of no kind that sorts alike in mingo)
        kind = arg.default === undefined || arg.default === null ? c.kind : SCALAR.has(c.kind) ? "mixed" : "any";
        if (kind === "doc") kind = "docv";
        break;
      }
      case "$locf": {
        const c = anyIn();
        if (c.unord) continue;
        arg = c.expr; kind = c.kind === "doc" ? "docv" : c.kind;
        break;
      }
      case "$expMovingAvg":
        arg = { input: numIn() };
        if (chance(0.5)) arg.N = 1 + int(4); else arg.alpha = pick([0.25, 0.75, 0.3]);
        kind = "real";
        break;
      case "$linearFill": {
        const p = numPaths(st).filter((x) => !x.startsWith("$"));
        arg = p.length && chance(0.9) ? "$" + pick(p) : "$s";
        kind = "real";
        break;
      }
      case "$derivative": case "$integral": {
        const p = numPaths(st).filter((x) => !x.startsWith("$"));
        arg = { input: p.length ? { $ifNull: ["$" + pick(p), int(4)] } : int(4) };
        if (s0Date ? chance(0.95) : chance(0.05)) arg.unit = pick(["hour", "day", "week", "minute"]);
        // (windows where each document is an end of its own window, and so
        // has its sortBy value read)
        if (op === "$derivative" || chance(0.7)) {
          window = chance(0.4) && rangeOk
            ? { range: pick([["unbounded", "current"], [-2, "current"], ["current", 1], [-1, "current"]]) }
            : { documents: pick([["unbounded", "current"], [-1, "current"], [-2, 0], ["current", 1],
                                 [0, "unbounded"], ["current", 2]]) };
          if (window.range && s0Date) window.unit = pick(["hour", "day", "week"]);
        }
        kind = "real";
        break;
      }
    }
    if (arg === undefined) continue;
    const o = { [op]: arg };
    if (window) o.window = window;
    spec[name] = o;
    outs.push({ name, op, arg, window, kind, unord });
    // MongoDB's errors for the documents
    if (window && window.range) checks.push({ t: "range", unit: !!window.unit, f: s0, name });
    if (op === "$derivative" || op === "$integral") checks.push({ t: "x", unit: !!arg.unit, f: s0, name });
    if (op === "$linearFill") checks.push({ t: "fill", f: s0, input: arg, name });
  }
  if (!outs.length) {
    const name = "tot";
    spec[name] = { $count: {} };
    outs.push({ name, op: "$count", arg: {}, kind: "int" });
  }
  const stageSpec = {};
  if (part !== undefined) stageSpec.partitionBy = part;
  if (sortBy) stageSpec.sortBy = sortBy;
  stageSpec.output = spec;
  const stage = { $setWindowFields: stageSpec };
  // the rewrites
  const has = (ops) => outs.some((o) => ops.includes(o.op));
  if (has(["$push", "$addToSet"])) kinds.push("push-skips-missing");
  if (has(["$first", "$last"])) kinds.push("window-first-last-missing");
  if (has(["$stdDevSamp", "$stdDevPop"])) kinds.push("stddev-of-nothing");
  if (has(["$covariancePop", "$covarianceSamp"])) kinds.push("covariance-pairs");
  if (has(["$integral"])) kinds.push("integral-of-nothing");
  if (has(["$linearFill"])) kinds.push("linearfill-ends");
  if (outs.some((o) => o.window && o.window.documents && o.window.documents[1] < 0)) kinds.push("window-negative-end");
  for (const o of outs) if (N_KIND[o.op] && !kinds.includes(N_KIND[o.op])) kinds.push(N_KIND[o.op]);
  const fix = (off) => {
    const fixed = [];
    const temps = [];
    let k = 0;
    const t = () => { const x = "__wt" + (k++); temps.push(x); return x; };
    if (part !== undefined) fixed.push({ $set: { [WP]: { $ifNull: [part, null]} } });
    if (!off.has("window-data-errors")) {
      fixed.push({ $__windowCheck: { p: part !== undefined ? WP : null, checks } });
    }
    const fout = {};
    const before = {};
    const after = [];
    const last = [];
    const win = (o, x) => (o.window ? Object.assign({ window: o.window }, x) : x);
    for (const o of outs) {
      const isNum = (e) => ({ $isNumber: e });
      if ((o.op === "$push" || o.op === "$addToSet") && !off.has("push-skips-missing")) {
        fout[o.name] = win(o, { [o.op]: { v: o.arg } });
        after.push({ $set: { [o.name]: { $map: { input: { $filter: { input: "$" + o.name,
          cond: { $ne: [{ $type: "$$this.v" }, "missing"] } } }, in: "$$this.v" } } } });
      } else if ((o.op === "$first" || o.op === "$last") && !off.has("window-first-last-missing")) {
        // (mingo's $first of {v: …} over an empty window is {}: the
        // window's documents counted alongside)
        const c = t();
        fout[o.name] = win(o, { [o.op]: { v: o.arg } });
        fout[c] = win(o, { $sum: 1 });
        after.push({ $set: { [o.name]: { $cond: [{ $and: [{ $gt: ["$" + c, 0] },
          { $eq: [{ $type: "$" + o.name }, "object"] }] }, "$" + o.name + ".v", null] } } });
      } else if ((o.op === "$stdDevSamp" || o.op === "$stdDevPop") && !off.has("stddev-of-nothing")) {
        const c = t();
        fout[o.name] = win(o, { [o.op]: o.arg });
        fout[c] = win(o, { $sum: { $cond: [isNum(o.arg), 1, 0] } });
        after.push({ $set: { [o.name]: { $cond: [{ $gt: ["$" + c, o.op === "$stdDevSamp" ? 1 : 0] },
                                                  "$" + o.name, null] } } });
      } else if ((o.op === "$covariancePop" || o.op === "$covarianceSamp") && !off.has("covariance-pairs")) {
        const [x, y] = o.arg;
        const both = { $and: [isNum(x), isNum(y)] };
        const sx = t(), sy = t(), sxy = t();
        fout[o.name] = win(o, { $sum: { $cond: [both, 1, 0] } });
        fout[sx] = win(o, { $sum: { $cond: [both, x, 0] } });
        fout[sy] = win(o, { $sum: { $cond: [both, y, 0] } });
        fout[sxy] = win(o, { $sum: { $cond: [both, { $multiply: [x, y] }, 0] } });
        const n = "$" + o.name;
        const samp = o.op === "$covarianceSamp";
        after.push({ $set: { [o.name]: { $cond: [{ $gt: [n, samp ? 1 : 0] },
          { $divide: [{ $subtract: ["$" + sxy, { $divide: [{ $multiply: ["$" + sx, "$" + sy] }, n] }] },
                      samp ? { $subtract: [n, 1] } : n] }, null] } } });
      } else if (o.op === "$integral" && !off.has("integral-of-nothing")) {
        const c = t();
        fout[o.name] = win(o, { [o.op]: o.arg });
        fout[c] = win(o, { $sum: 1 });
        after.push({ $set: { [o.name]: { $cond: [{ $gt: ["$" + c, 0] }, "$" + o.name, null] } } });
      } else if (o.op === "$linearFill" && !off.has("linearfill-ends")) {
        // (leading gaps made 0, whose value no other document reads, and
        // made null after; trailing ones null)
        // (into a temporary: the output field holds its place meanwhile)
        const c = t();
        const f = t();
        before[c] = { $sum: { $cond: [isNum(o.arg), 1, 0] }, window: { documents: ["unbounded", "current"] } };
        fout[o.name] = { $count: {} };
        fout[f] = { $linearFill: { $cond: [{ $eq: ["$" + c, 0] }, 0, o.arg] } };
        after.push({ $set: { [o.name]: { $cond: [{ $eq: ["$" + c, 0] }, null, { $ifNull: ["$" + f, null] }] } } });
      } else if (N_KIND[o.op] && !off.has(N_KIND[o.op])) {
        // (MongoDB's WindowFunctionExec::create: a window whose lower bound
        // is "unbounded" (the default's too) runs the accumulator, any other
        // the removable window function)
        const lo = o.window && (o.window.documents || o.window.range)[0];
        const { rec, spec: s } = accNRecord(o.op, o.arg, { win: o.window !== undefined && lo !== "unbounded" });
        fout[o.name] = win(o, { $push: rec });
        after.push({ $set: { [o.name]: { $__accN: [o.name, s] } } });
      } else {
        fout[o.name] = win(o, { [o.op]: o.arg });
      }
      const hi = o.window && o.window.documents && o.window.documents[1];
      if (typeof hi === "number" && hi < 0 && !off.has("window-negative-end")) {
        // (the first -hi documents of a partition: an empty window)
        const c = t();
        fout[c] = { $documentNumber: {} };
        const empty = { $sum: 0, $count: 0, $push: [], $addToSet: [], $firstN: [], $lastN: [], $minN: [], $maxN: [],
                        $topN: [], $bottomN: [] }[o.op];
        last.push({ $set: { [o.name]: { $cond: [{ $lte: ["$" + c, -hi] }, empty === undefined ? null : { $literal: empty },
                                                "$" + o.name] } } });
      }
    }
    const fspec = {};
    if (part !== undefined) fspec.partitionBy = off.has("window-partition-order") ? part : "$" + WP;
    if (sortBy) fspec.sortBy = sortBy;
    fspec.output = fout;
    if (Object.keys(before).length) {
      fixed.push({ $setWindowFields: Object.assign({}, fspec, { output: before }) }, { $__clone: {} });
    }
    fixed.push({ $setWindowFields: fspec }, { $__clone: {} }, ...after, ...last);
    if (part !== undefined && !off.has("window-partition-order")) fixed.push({ $__stableSort: WP });
    const drop = temps.concat(part !== undefined ? [WP] : []);
    if (drop.length) fixed.push({ $unset: drop });
    return fixed;
  };
  // the "dbl" run: the results MongoDB always makes doubles
  const dblNames = outs.filter((o) => ["$avg", "$stdDevPop", "$stdDevSamp", "$covariancePop", "$covarianceSamp",
                                       "$derivative", "$expMovingAvg"].includes(o.op)).map((o) => o.name);
  const dbl = accumulatorDbl(dblNames);
  // the state
  for (const o of outs) setField(st, o.name, o.kind, o.unord);
  for (const o of outs) if (["$integral", "$linearFill"].includes(o.op)) ctx.loose.push(o.name);
  st.ordered = det;
  st.natural = false;
  const item = { stage, fix, kinds, dbl, lng: [] };
  if (tsDate) {
    removeField(st, "ts");
    post.push(plain({ $unset: "ts" }));
  }
  return pre.concat([item], post);
}

// $densify (see docext_densify.c, and MongoDB's document_source_densify.cpp,
// exec/agg/densify_stage.cpp, jstests/aggregation/sources/densify/*). The
// field densified is dv, computed by a $set before the stage: a number of
// the data kept to [-4, 12] (null or missing otherwise), or a date made of
// one (BASE plus so many hours, days, ... or months); some data errors: a
// string in dv (a field of strings or mixed values), a number with a unit,
// a date without one. partitionByFields: 0-2 scalar fields (their values
// sometimes null or missing; e.x and e.y too). range: a positive step (an
// int, or a double that is not whole and not one of DOUBLES, so the "dbl"
// run leaves it be); a unit for dates; bounds "full", "partition" (with
// partitionByFields only) or [lo, hi] (two numbers of step's type; two
// dates with a unit). A date dv is made a string after ($dateToString, the
// one form in which mingo's and docext's dates compare here).
// The order: MongoDB sorts on the partition fields and dv first (dv alone
// for "full"), makes the documents of a gap before the document after it,
// and those at the end of a partition ("full", [lo, hi]) after every input
// document, in no specified order (the partitions' hash table's,
// finishDensifyingPartitionedInputHelper); equal sort keys come in no
// specified order either. So the output is compared as a multiset
// (st.ordered = false), which checks every document made and passed on.
// The fixed run replaces mingo's $densify with $__densify, MongoDB's
// algorithm (kind densify; KNOWN says where mingo departs). Made documents
// have no _id, so _id is no longer a unique key after.
// The "dbl" run: a double step makes every made value a double; the made
// documents (those without the marker __dm) have dv moved then.
const DENSIFY_BASE = Date.UTC(2023, 10, 14);          // 2023-11-14T00:00:00Z
const DATE_FORMAT = "%Y-%m-%dT%H:%M:%S.%LZ";
// dates of a number v: BASE + v * ms, densified by step units
const DENSIFY_FIXED = [
  [3600000, "hour", 1], [3600000, "hour", 2], [3600000, "minute", 30], [3600000, "minute", 90],
  [86400000, "day", 1], [86400000, "hour", 12], [86400000, "day", 3], [7 * 86400000, "week", 1],
  [7 * 86400000, "day", 2], [1000, "second", 1], [1000, "millisecond", 500], [60000, "second", 45],
];
// dates of an int v: BASE + v months, densified by step units
const DENSIFY_MONTHS = [["month", 1], ["month", 2], ["quarter", 1], ["year", 1], ["week", 4], ["day", 20]];
const DENSIFY_MADE_MAX = 250;
let densifyMade = 0;            // the most documents one $__densify made, in the case's fixed run

function stageDensify(st, ctx) {
  const nullish = () => pick([null, "$$REMOVE"]);
  const within = (p) => ({ $and: [{ $isNumber: "$" + p }, { $gte: ["$" + p, -4] }, { $lte: ["$" + p, 12] }] });
  const numP = numPaths(st).filter((p) => !p.startsWith("$") && !st.unordered.has(p) && p !== "dv");
  const intP = numP.filter((p) => ["int", "id"].includes(kindOfPath(st, p)));
  const badP = fieldsOf(st, (k, f) => (k === "str" || k === "mixed") && f !== "dv" && !st.unordered.has(f));
  let isDate = chance(0.4);
  let unit;
  let step;
  let dv;
  let ms = null;                 // the ms per unit of v of a date dv (BASE + v * ms)
  let months = false;            // a date dv of BASE + v months
  const r = int(20);
  if (r < 1 && badP.length) {
    dv = "$" + pick(badP);       // strings: an error
    if (isDate) unit = pick(["day", "hour"]);
    step = 1;
  } else if (isDate && (numP.length || intP.length)) {
    if (intP.length && chance(0.4)) {
      const p = pick(intP);
      [unit, step] = pick(DENSIFY_MONTHS);
      months = true;
      dv = { $cond: [within(p), { $dateAdd: { startDate: { $toDate: DENSIFY_BASE }, unit: "month", amount: "$" + p } },
                     nullish()] };
    } else {
      const p = pick(numP);
      let u;
      [ms, u, step] = pick(DENSIFY_FIXED);
      unit = u;
      dv = { $cond: [within(p), { $toDate: { $toLong: { $add: [DENSIFY_BASE, { $multiply: ["$" + p, ms] }] } } },
                     nullish()] };
    }
    if (r < 2) unit = undefined;                 // a date without a unit: an error
  } else if (numP.length) {
    isDate = false;
    const p = pick(numP);
    dv = { $cond: [within(p), "$" + p, nullish()] };
    if (chance(0.15)) dv = "$" + p;              // (any number: the made documents counted)
    step = chance(0.3) ? pick([0.75, 1.25, 2.5]) : pick([1, 1, 2, 3, 5]);
    if (r < 2) {
      unit = "day";                              // a number with a unit: an error
      step = pick([1, 2]);                       // (whole, as a unit needs)
    }
  } else {
    return stageMatch(st);
  }
  // (made documents hold dates where there is a unit; without one a date dv
  // is an error, so no date is left)
  const dateOut = unit !== undefined;
  // partitionByFields
  // (where the input's order is not fixed, top-level fields only: see below)
  const pc = fieldsOf(st, (k, f) => ["str", "bool", "int", "mixed"].includes(k) && f !== "dv" && !st.unordered.has(f))
    .concat(st.ordered ? fieldsOf(st, (k) => k === "doc").map((f) => f + "." + pick(["x", "y"])) : []);
  const parts = [];
  for (let n = pick([0, 0, 1, 1, 2]); n > 0 && pc.length; n--) {
    const f = pc.splice(int(pc.length), 1)[0];
    if (!parts.some((q) => q.split(".")[0] === f.split(".")[0])) parts.push(f);
  }
  // bounds
  let bounds;
  let lo;
  let hi;
  const b = int(10);
  if (b < 3 && parts.length) bounds = "partition";
  else if (b < 6) bounds = "full";
  else if (unit === undefined) {
    // (numbers of step's type)
    if (Number.isInteger(step)) {
      lo = int(9) - 5;
      hi = lo + int(13);
    } else {
      do {
        lo = pick([-3.25, -1.75, 0.25, 1.25, -0.75]);
        hi = lo + pick([0, 2.5, 4, 6.5, 9]);
      } while (Number.isInteger(hi) || DOUBLES.includes(hi));
    }
    bounds = [lo, hi];
  } else {
    // (dates, on the grid of dv's dates or off it)
    if (months) {
      lo = densifyDateAdd(new Date(DENSIFY_BASE), "month", int(8) - 4);
      hi = densifyDateAdd(lo, "month", int(14));
    } else {
      const u = ms || 86400000;
      lo = new Date(DENSIFY_BASE + (int(8) - 4) * u);
      hi = new Date(lo.getTime() + int(14) * u + (chance(0.3) ? u / 2 : 0));
    }
    bounds = [lo, hi];
  }
  const range = (forMingo) => {
    const x = { step };
    if (unit !== undefined) x.unit = unit;
    x.bounds = Array.isArray(bounds) && !forMingo && bounds[0] instanceof Date
      ? bounds.map((d) => ({ $date: d.toISOString() })) : bounds;
    return x;
  };
  const spec = (forMingo) => {
    const s = { field: "dv" };
    if (parts.length || chance(0.1)) s.partitionByFields = parts.slice();
    s.range = range(forMingo);
    return s;
  };
  const stage = { $densify: spec(false) };
  const mingoStage = { $densify: spec(true) };
  const kinds = ["densify"];
  const dblStep = !Number.isInteger(step);
  // (with "full", a partition's grid starts at the least value of all, made
  // in that value's own type (an int), the rest in the step's: the shifted
  // "dbl" run cannot tell one from the other, so the types go unchecked)
  if (bounds === "full" && parts.length && dblStep) ctx.loose.push("dv");
  const fix = (off, extra) => {
    const out = [];
    const mark = extra === "dbl" && dblStep;
    if (mark) out.push({ $set: { __dm: 1 } });
    if (off.has("densify")) out.push(mingoStage);
    else {
      out.push({ $__densify: { field: "dv", parts, step, unit: unit || null, bounds } });
    }
    if (mark) {
      out.push({ $__clone: {} },
               { $set: { dv: { $cond: [{ $eq: [{ $type: "$__dm" }, "missing"] }, { $add: ["$dv", SHIFT_ALWAYS_D] }, "$dv"] } } },
               { $unset: "__dm" });
    }
    return out;
  };
  const set = { dv };
  const pre = plain({ $set: set });
  const item = { stage, raw: [mingoStage], fix, kinds, dbl: [], lng: [] };
  // the state
  setField(st, "dv", dateOut ? "str" : "num", false);
  for (const f of st.order) if (st.kinds[f] === "id") st.kinds[f] = "int";
  // (a made document's e of partition field e.x holds x alone: mingo
  // compares such documents otherwise than MongoDB)
  for (const f of parts) if (f.includes(".")) st.kinds[f.split(".")[0]] = "docv";
  st.ordered = false;
  st.natural = false;
  st.key = null;
  const items = [pre, item];
  if (dateOut) items.push(plain({ $set: { dv: { $dateToString: { date: "$dv", format: DATE_FORMAT } } } }));
  return items;
}

// $dateAdd of n units to a date, in UTC (a month's day past the end of the
// month made its last day).
function densifyDateAdd(d, unit, n) {
  const fixed = { millisecond: 1, second: 1000, minute: 60000, hour: 3600000, day: 86400000, week: 7 * 86400000 };
  if (unit in fixed) return new Date(d.getTime() + n * fixed[unit]);
  const months = n * { month: 1, quarter: 3, year: 12 }[unit];
  const m = d.getUTCMonth() + months;
  const y = d.getUTCFullYear() + Math.floor(m / 12);
  const mm = ((m % 12) + 12) % 12;
  const last = new Date(Date.UTC(y, mm + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, mm, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(),
                           d.getUTCSeconds(), d.getUTCMilliseconds()));
}

// Stages MongoDB rejects whatever the documents (its parse errors).
const INVALID = [
  [{ $limit: 0 }, "$limit must be positive"],
  [{ $limit: -2 }, "$limit must be positive"],
  [{ $limit: "3" }, "$limit must be a number"],
  [{ $skip: -1 }, "$skip must be non-negative"],
  [{ $foo: {} }, "unrecognized pipeline stage name"],
  [{ $sort: { a: 0 } }, "$sort key ordering must be 1 or -1"],
  [{ $sort: {} }, "$sort needs at least one sort key"],
  [{ $group: { n: { $sum: 1 } } }, "a $group specification must include an _id"],
  [{ $group: { _id: null, n: { $foo: "$a" } } }, "unknown group operator"],
  [{ $group: { _id: null, n: 1 } }, "a $group field must be an accumulator object"],
  [{ $project: {} }, "$project needs at least one field"],
  [{ $project: { a: 1, b: 0 } }, "exclusion of a field other than _id in an inclusion projection"],
  [{ $unwind: "arr" }, "$unwind's path must start with '$'"],
  [{ $count: "$x" }, "the $count field cannot be a $-prefixed path"],
  [{ $count: "" }, "the $count field must be a non-empty string"],
  [{ $count: "a.b" }, "the $count field cannot contain '.'"],
  [{ $match: { a: 1 }, $limit: 1 }, "a stage must have exactly one field"],
  [{ $match: { $foo: 1 } }, "unknown top-level query operator"],
  [{ $replaceRoot: {} }, "$replaceRoot needs newRoot"],
  [{ $lookup: { from: "c2", localField: "a", as: "j" } }, "$lookup needs both localField and foreignField"],
  [{ $sortByCount: "a" }, "$sortByCount needs a $-prefixed path or an expression object"],
  [{ $addFields: { $x: 1 } }, "a field name cannot start with '$'"],
  [{ $addFields: { z: "$$nope" } }, "use of an undefined variable"],
  [{ $bucket: { groupBy: "$a", boundaries: [5, 0] } }, "$bucket's boundaries must be in ascending order"],
  [{ $bucket: { groupBy: "$a", boundaries: [0, 5, 5], default: "o" } }, "$bucket's boundaries must be in ascending order"],
  [{ $bucket: { groupBy: "$a", boundaries: [0] } }, "$bucket needs at least 2 boundaries"],
  [{ $bucket: { groupBy: "$a", boundaries: 5 } }, "$bucket's boundaries must be an array"],
  [{ $bucket: { groupBy: "$a", boundaries: [0, "x"], default: true } }, "$bucket's boundaries must all have the same type"],
  [{ $bucket: { groupBy: "$a", boundaries: [0, 5, 10], default: 5 } }, "$bucket's default must be below the lowest boundary or at least the highest"],
  [{ $bucket: { groupBy: "$s", boundaries: ["a", "y"], default: "x" } }, "$bucket's default must be below the lowest boundary or at least the highest"],
  [{ $bucket: { groupBy: "a", boundaries: [0, 5], default: 9 } }, "$bucket's groupBy must be a $-prefixed path or an expression"],
  [{ $bucket: { boundaries: [0, 5], default: 9 } }, "$bucket needs groupBy and boundaries"],
  [{ $bucket: { groupBy: "$a", boundaries: [0, 5], default: 9, foo: 1 } }, "unrecognized option to $bucket"],
  [{ $bucket: { groupBy: "$a", boundaries: [0, 5], default: 9, output: 1 } }, "$bucket's output must be an object"],
  [{ $bucket: { groupBy: "$a", boundaries: [0, 5], default: 9, output: { n: 1 } } }, "a $bucket output field must be an accumulator object"],
  [{ $bucket: { groupBy: "$a", boundaries: ["$a", "$b"], default: 9 } }, "$bucket's boundaries must be constant values"],
  [{ $bucket: { groupBy: "$a", boundaries: [0, 5], default: "$b" } }, "$bucket's default must be a constant expression"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 0 } }, "$bucketAuto's buckets must be above 0"],
  [{ $bucketAuto: { groupBy: "$a", buckets: -2 } }, "$bucketAuto's buckets must be above 0"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 2.5 } }, "$bucketAuto's buckets must be a whole number"],
  [{ $bucketAuto: { groupBy: "$a", buckets: "3" } }, "$bucketAuto's buckets must be a number"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 3, granularity: "R7" } }, "unknown granularity of $bucketAuto"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 3, granularity: "powersof2" } }, "unknown granularity of $bucketAuto"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 3, granularity: 5 } }, "$bucketAuto's granularity must be a string"],
  [{ $bucketAuto: { buckets: 3 } }, "$bucketAuto needs groupBy and buckets"],
  [{ $bucketAuto: { groupBy: "$a" } }, "$bucketAuto needs groupBy and buckets"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 3, foo: 1 } }, "unrecognized option to $bucketAuto"],
  [{ $bucketAuto: { groupBy: "a", buckets: 3 } }, "$bucketAuto's groupBy must be a $-prefixed path or an expression"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 3, output: 1 } }, "$bucketAuto's output must be an object"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 3, output: { n: 1 } } }, "a $bucketAuto output field must be an accumulator object"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 3, output: { n: { $foo: "$a" } } } }, "unknown accumulator in $bucketAuto's output"],
  [{ $bucketAuto: 3 }, "$bucketAuto takes a document"],
  [{ $facet: {} }, "$facet needs at least one facet"],
  [{ $facet: { f: [] } }, "a $facet's pipeline must not be empty"],
  [{ $facet: { f: { $match: {} } } }, "a $facet's pipeline must be an array"],
  [{ $facet: { f: [{ $facet: { g: [{ $match: {} }] } }] } }, "$facet is not allowed inside $facet"],
  [{ $facet: { "f.g": [{ $match: {} }] } }, "a $facet's name cannot contain '.'"],
  [{ $facet: { f: [{ $limit: 0 }] } }, "$limit must be positive (in a $facet)"],
  [{ $unionWith: 5 }, "$unionWith takes a string or a document"],
  [{ $unionWith: { pipeline: [{ $match: {} }] } }, "$unionWith without coll needs a pipeline starting with $documents"],
  [{ $unionWith: { coll: "c2", foo: 1 } }, "unknown field of $unionWith"],
  [{ $unionWith: { coll: "c2", pipeline: [{ $foo: {} }] } }, "unrecognized pipeline stage name (in $unionWith)"],
  [{ $sample: { size: -1 } }, "$sample's size must not be negative"],
  [{ $sample: {} }, "$sample must specify a size"],
  [{ $sample: { size: "2" } }, "$sample's size must be a number"],
  [{ $sample: { size: 2, foo: 1 } }, "unrecognized option to $sample"],
  [{ $sample: 2 }, "$sample takes a document"],
  [{ $setWindowFields: { output: { r: { $rank: {} } } } }, "$rank needs a sortBy"],
  [{ $setWindowFields: { sortBy: { a: 1, b: 1 }, output: { r: { $rank: {} } } } }, "$rank needs a sortBy of one field"],
  [{ $setWindowFields: { output: { w: { $sum: "$a", window: { documents: [-1, 0] } } } } }, "document-based bounds need a sortBy"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $sum: "$a", window: { documents: [1, 0] } } } } }, "a window's lower bound must not exceed its upper bound"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $sum: "$a", window: { documents: [0.5, 1] } } } } }, "document-based bounds must be integers"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $sum: "$a", window: { documents: ["current", "next"] } } } } }, "window bounds must be 'unbounded', 'current' or a number"],
  [{ $setWindowFields: { sortBy: { a: 1, b: 1 }, output: { w: { $sum: "$a", window: { range: [-1, 1] } } } } }, "range-based bounds need a sortBy of one field"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $sum: "$a", window: { documents: [0, 1], range: [0, 1] } } } } }, "a window is documents or range, not both"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $sum: "$a", window: { range: [0, 1], unit: "fortnight" } } } } }, "unknown time unit of a window"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $foo: "$a" } } } }, "unknown window function"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $sum: "$a", $max: "$a" } } } }, "two window functions in one output field"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: 1 } } }, "an output field must be a window function object"],
  [{ $setWindowFields: { sortBy: { a: 1 } } }, "$setWindowFields needs output"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $sum: 1 } }, foo: 1 } }, "unknown field of $setWindowFields"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $shift: { output: "$a" } } } } }, "$shift needs by"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $shift: { output: "$a", by: 1, default: "$b" } } } } }, "$shift's default must be a constant"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $shift: { output: "$a", by: 1.5 } } } } }, "$shift's by must be an integer"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $shift: { output: "$a", by: 1 }, window: { documents: [0, 1] } } } } }, "$shift takes no window"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $rank: {}, window: { documents: [0, 1] } } } } }, "$rank takes no window"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $expMovingAvg: { input: "$a" } } } } }, "$expMovingAvg needs N or alpha"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $expMovingAvg: { input: "$a", N: 2, alpha: 0.25 } } } } }, "$expMovingAvg takes N or alpha, not both"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $expMovingAvg: { input: "$a", alpha: 1.5 } } } } }, "$expMovingAvg's alpha must be between 0 and 1"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $expMovingAvg: { input: "$a", N: 0 } } } } }, "$expMovingAvg's N must be above 0"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $derivative: { input: "$a" } } } } }, "$derivative needs a window"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $derivative: { input: "$a", unit: "month" }, window: { documents: [-1, 0] } } } } }, "$derivative's unit must be a fixed length"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $integral: { input: "$a", foo: 1 } } } } }, "unknown argument of $integral"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { $w: { $sum: 1 } } } }, "an output field name cannot start with '$'"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $sum: 1 }, "w.x": { $sum: 1 } } } }, "output fields that conflict"],
  [{ $setWindowFields: { output: { w: { $linearFill: "$a" } } } }, "$linearFill needs a sortBy"],
  [{ $setWindowFields: { sortBy: {}, output: { w: { $sum: 1 } } } }, "sortBy must not be empty"],
  [{ $group: { _id: "$s", x: { $firstN: { input: "$a" } } } }, "$firstN needs n"],
  [{ $group: { _id: null, x: { $lastN: { n: 2 } } } }, "$lastN needs input"],
  [{ $group: { _id: null, x: { $minN: { n: 2, input: "$a", output: "$a" } } } }, "unknown argument of $minN"],
  [{ $group: { _id: null, x: { $maxN: [2, "$a"] } } }, "$maxN takes a document"],
  [{ $group: { _id: null, x: { $topN: { n: 2, output: "$a" } } } }, "$topN needs sortBy"],
  [{ $group: { _id: null, x: { $bottomN: { n: 2, sortBy: { a: 1 } } } } }, "$bottomN needs output"],
  [{ $group: { _id: null, x: { $top: { n: 1, sortBy: { a: 1 }, output: "$a" } } } }, "$top takes no n"],
  [{ $group: { _id: null, x: { $bottom: { sortBy: "a", output: "$a" } } } }, "$bottom's sortBy must be a document"],
  [{ $group: { _id: null, x: { $topN: { n: 2, sortBy: { a: 1 }, output: "$a", input: "$b" } } } }, "unknown argument of $topN"],
  [{ $group: { _id: null, x: { $bottomN: { n: 2, sortBy: { a: 2 }, output: "$a" } } } }, "$bottomN's sortBy directions must be 1 or -1"],
  [{ $bucket: { groupBy: "$a", boundaries: [0, 5], default: 9, output: { x: { $firstN: { n: 2, input: "$a", foo: 1 } } } } },
   "unknown argument of $firstN (in $bucket)"],
  [{ $bucketAuto: { groupBy: "$a", buckets: 2, output: { x: { $top: { output: "$a" } } } } }, "$top needs sortBy (in $bucketAuto)"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $firstN: { n: 0, input: "$a" } } } } },
   "$firstN's n must be above 0 (in $setWindowFields, where it is evaluated once)"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $lastN: { n: -1, input: "$a" }, window: { documents: [-1, 1] } } } } },
   "$lastN's n must be above 0 (in $setWindowFields, where it is evaluated once)"],
  [{ $setWindowFields: { output: { w: { $minN: { n: 1.5, input: "$a" } } } } },
   "$minN's n must be a whole number (in $setWindowFields, where it is evaluated once)"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $maxN: { n: "x", input: "$a" } } } } },
   "$maxN's n must be a number (in $setWindowFields, where it is evaluated once)"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $topN: { n: "$a", sortBy: { b: 1 }, output: "$s" } } } } },
   "$topN's n must be constant in $setWindowFields (evaluated against no document: missing)"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $bottomN: { sortBy: { b: 1 }, output: "$s" } } } } }, "$bottomN needs n"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $top: { sortBy: 1, output: "$s" } } } } }, "$top's sortBy must be a document"],
  [{ $setWindowFields: { sortBy: { a: 1 }, output: { w: { $bottom: { sortBy: { b: 1 } } } } } }, "$bottom needs output"],
  [{ $densify: { field: "a", range: { step: 0, bounds: "full" } } }, "$densify's step must be above 0"],
  [{ $densify: { field: "a", range: { step: -1, bounds: "full" } } }, "$densify's step must be above 0"],
  [{ $densify: { field: "a", range: { step: -0.75, bounds: [-3.25, 1.25] } } }, "$densify's step must be above 0"],
  [{ $densify: { field: "a", range: { step: "1", bounds: "full" } } }, "$densify's step must be a number"],
  [{ $densify: { field: "a", range: { step: 1, unit: "fortnight", bounds: "full" } } }, "unknown unit of $densify"],
  [{ $densify: { field: "a", range: { step: 1, unit: "Day", bounds: "full" } } }, "unknown unit of $densify"],
  [{ $densify: { field: "a", range: { step: 1.5, unit: "day", bounds: "full" } } }, "$densify's step must be whole with a unit"],
  [{ $densify: { field: "a", range: { step: 1, bounds: "partition" } } }, "$densify's bounds \"partition\" need partitionByFields"],
  [{ $densify: { field: "a", partitionByFields: [], range: { step: 1, bounds: "partition" } } }, "$densify's bounds \"partition\" need partitionByFields"],
  [{ $densify: { field: "a", range: { step: 1, bounds: "all" } } }, "$densify's bounds must be \"full\", \"partition\" or [lo, hi]"],
  [{ $densify: { field: "a", range: { step: 1, bounds: [0] } } }, "$densify's bounds must be two values"],
  [{ $densify: { field: "a", range: { step: 1, bounds: [0, 5, 9] } } }, "$densify's bounds must be two values"],
  [{ $densify: { field: "a", range: { step: 1, bounds: 5 } } }, "$densify's bounds must be \"full\", \"partition\" or [lo, hi]"],
  [{ $densify: { field: "a", range: { step: 1, bounds: [5, 1] } } }, "$densify's lower bound must not pass the upper"],
  [{ $densify: { field: "a", range: { step: 1, unit: "day", bounds: [{ $date: "2023-11-20T00:00:00.000Z" }, { $date: "2023-11-14T00:00:00.000Z" }] } } }, "$densify's lower bound must not pass the upper"],
  [{ $densify: { field: "a", range: { step: 1, bounds: [0, "x"] } } }, "$densify's bounds must be two numbers or two dates"],
  [{ $densify: { field: "a", range: { step: 1, unit: "day", bounds: [{ $date: "2023-11-14T00:00:00.000Z" }, 5] } } }, "$densify's bounds must be two numbers or two dates"],
  [{ $densify: { field: "a", range: { step: 1, bounds: ["a", "b"] } } }, "$densify's bounds must be two numbers or two dates"],
  [{ $densify: { field: "a", range: { step: 1, bounds: [0, 5.5] } } }, "$densify's bounds and step must be of one type"],
  [{ $densify: { field: "a", range: { step: 0.75, bounds: [0, 6] } } }, "$densify's bounds and step must be of one type"],
  [{ $densify: { field: "a", range: { step: 1, bounds: [{ $date: "2023-11-14T00:00:00.000Z" }, { $date: "2023-11-20T00:00:00.000Z" }] } } }, "$densify's date bounds need a unit"],
  [{ $densify: { field: "a", range: { step: 1, unit: "hour", bounds: [0, 5] } } }, "$densify's numeric bounds take no unit"],
  [{ $densify: { field: "a", range: { step: 1, bounds: "full" }, foo: 1 } }, "unknown field of $densify"],
  [{ $densify: { field: "a", range: { step: 1, bounds: "full", foo: 1 } } }, "unknown field of $densify's range"],
  [{ $densify: { field: "a", range: { step: 1 } } }, "$densify's range needs bounds"],
  [{ $densify: { field: "a", range: { bounds: "full" } } }, "$densify's range needs step"],
  [{ $densify: { range: { step: 1, bounds: "full" } } }, "$densify needs field"],
  [{ $densify: { field: "a" } }, "$densify needs range"],
  [{ $densify: { field: 5, range: { step: 1, bounds: "full" } } }, "$densify's field must be a string"],
  [{ $densify: { field: "$a", range: { step: 1, bounds: "full" } } }, "$densify's field cannot start with '$'"],
  [{ $densify: { field: "a", partitionByFields: ["a"], range: { step: 1, bounds: "full" } } }, "a $densify partition field cannot be the field"],
  [{ $densify: { field: "e", partitionByFields: ["s", "e.x"], range: { step: 1, bounds: "partition" } } }, "a $densify partition field cannot be under the field"],
  [{ $densify: { field: "a", partitionByFields: "s", range: { step: 1, bounds: "full" } } }, "$densify's partitionByFields must be an array"],
  [{ $densify: { field: "a", partitionByFields: [5], range: { step: 1, bounds: "full" } } }, "$densify's partitionByFields must be strings"],
  [{ $densify: 1 }, "$densify takes a document"],
  [null, "a let variable's name must start with a lower-case letter",
   { options: { let: { Bad: 1 } } }],
  [null, "a let value cannot read a field (it is evaluated before any document)",
   { options: { let: { v: "$a" } } }],
];

// A stage: the newer ones ($bucket, $bucketAuto; $facet at the top only, as MongoDB
// allows no $facet in a $facet; $unionWith, once a case) one time in six.
// ($setWindowFields: one time in twelve; it may come with a $set before
// it and an $unset after, so a list of items.)
function stage(st, ctx, last, where = { depth: 0, inUnion: false }) {
  if (chance(1 / 12)) return stageWindow(st, ctx);
  if (chance(1 / 12)) return stageDensify(st, ctx);
  if (chance(1 / 6)) {
    const q = int(13);
    if (q < 4) return stageBucket(st, ctx, last && where.depth === 0);
    if (q < 7) return stageBucketAuto(st, ctx);
    if (q < 10 && where.depth === 0) return stageFacet(st, ctx);
    if (!ctx.union && !where.inUnion) return stageUnionWith(st, ctx, where);
    return stageBucket(st, ctx, last && where.depth === 0);
  }
  const r = int(100);
  if (r < 17) return stageMatch(st);
  if (r < 25) return stageProject(st);
  if (r < 35) return stageAddFields(st);
  if (r < 39) return stageUnset(st);
  if (r < 43) return stageReplaceRoot(st);
  if (r < 53) return stageSort(st);
  if (r < 59) return stageSkipLimit(st);
  if (r < 62) return last ? stageCount(st) : stageMatch(st);
  if (r < 71) return stageUnwind(st);
  if (r < 87) return stageGroup(st);
  if (r < 91) return last ? stageSortByCount(st) : stageGroup(st);
  return ctx.lookup ? stageSort(st) : stageLookup(st, ctx);
}

// ---------------------------------------------------------------------------
// Running mingo

const sortKeyOp = {
  // [path, 1 | -1]: MongoDB's sort key of the value at path: an array's
  // least (ascending) or greatest (descending) element, by mingo's own BSON
  // order comparison; an empty array stays [] (lowest, as MongoDB has it)
  $__sortKey(obj, expr) {
    const v = mutil.resolve(obj, expr[0]);
    if (!Array.isArray(v) || !v.length) return v;
    const sorted = v.slice().sort(mutil.compare);
    return expr[1] > 0 ? sorted[0] : sorted[sorted.length - 1];
  },
};
// {$__clone: {}}: each document copied. mingo's stages share objects
// between documents and fields ($unwind's copies share the other fields'
// documents, "$e" is the same object as e, $set "e.z" changes e in place),
// so a later change of one shows in the others; in MongoDB values are
// values. And an expression object keeps a field whose value is missing
// as undefined, which holds the field's place for a later $set. The fixed
// run copies the documents after every stage, through JSON.
const cloneOp = {
  $__clone(coll) {
    return coll.map(clone);
  },
};
// {$__stableSort: field}: the documents sorted on the field's value (BSON
// order, mingo's compare), stably.
// {$__windowCheck: {p, checks}}: the errors MongoDB's $setWindowFields
// raises for these documents (see stageWindow), raised; p the field of the
// partition value, checks [{t: "range" | "x" | "fill", f: the sortBy field,
// unit, input}].
const { Lazy } = need("mingo/lazy");
const windowOps = {
  $__stableSort(coll, field) {
    return coll.transform((xs) => Lazy(xs.map((x, i) => [x, i]).sort((p, q) =>
      mutil.compare(mutil.resolve(p[0], field), mutil.resolve(q[0], field)) || p[1] - q[1]).map((p) => p[0])));
  },
  $__windowCheck(coll, spec) {
    return coll.transform((xs) => {
      const parts = new Map();
      for (const x of xs) {
        const pv = spec.p ? mutil.resolve(x, spec.p) : null;
        if (Array.isArray(pv)) throw new Error("a partitionBy value cannot be an array");
        const key = JSON.stringify(pv === undefined ? null : pv);
        if (!parts.has(key)) parts.set(key, []);
        parts.get(key).push(x);
      }
      const isNum = (v) => typeof v === "number";
      const isDate = (v) => v instanceof Date;
      for (const c of spec.checks) {
        for (const docs of parts.values()) {
          const xsv = docs.map((d) => mutil.resolve(d, c.f));
          if (c.t === "range" || c.t === "x") {
            for (const v of xsv) {
              if (c.unit ? !isDate(v) : !isNum(v)) {
                throw new Error("sortBy value " + JSON.stringify(v) + " for " + c.t + (c.unit ? " with a unit" : ""));
              }
            }
          } else {
            const sorted = xsv.slice().sort(mutil.compare);
            for (let i = 0; i < sorted.length; i++) {
              const v = sorted[i];
              if (!isNum(v) && !isDate(v)) throw new Error("$linearFill sortBy value " + JSON.stringify(v));
              if (i && isDate(v) !== isDate(sorted[i - 1])) throw new Error("$linearFill mixes dates and numbers");
              if (i && mutil.compare(v, sorted[i - 1]) === 0) throw new Error("$linearFill repeated sortBy");
            }
            for (const d of docs) {
              const y = typeof c.input === "string" && c.input[0] === "$" ? mutil.resolve(d, c.input.slice(1)) : c.input;
              if (y !== null && y !== undefined && !isNum(y)) throw new Error("$linearFill of a non-number");
            }
          }
        }
      }
      return Lazy(xs);
    });
  },
};
// {$__number: field}: each document numbered (0, 1, ...) in the order it
// comes in, into field.
// {$__autoGranular: {buckets, granularity, zero, shift}}: MongoDB's $bucketAuto
// with a granularity (DocumentSourceBucketAuto::populateNextBucket and
// adjustBoundariesAndGetMinForNextBucket) over the values in __g: its
// errors raised; each document given its bucket's number (__b) and bounds
// (__min, __max; a double moved by shift, for the "dbl" run; zero: the
// type of a value 0, "int" or "double"); the
// documents in the order of their values, stably.
const bucketAutoOps = {
  $__number(coll, field) {
    return coll.transform((xs) => Lazy(xs.map((x, i) => Object.assign({}, x, { [field]: i }))));
  },
  $__autoGranular(coll, spec) {
    return coll.transform((xs) => {
      for (const x of xs) {
        const v = x.__g;
        if (typeof v !== "number") {
          throw new Error("$bucketAuto can specify a 'granularity' with numeric boundaries only, but found " +
                          JSON.stringify(v === undefined ? "missing" : v));
        }
        if (Number.isNaN(v)) throw new Error("$bucketAuto: a NaN with a granularity");
        if (v < 0) throw new Error("$bucketAuto can specify a 'granularity' with non-negative numbers only");
      }
      const sorted = xs.map((x, i) => [x, i]).sort((p, q) => p[0].__g - q[0].__g || p[1] - q[1]).map((p) => p[0]);
      const n = sorted.length;
      const approx = Math.max(1, Math.round(n / spec.buckets));
      // (a bound 0 is the value itself, a double or an int)
      const out = (r) => (r.dbl || (r.v === 0 && spec.zero === "double") ? r.v + spec.shift : r.v);
      let i = 0;
      let prevMax = null;
      for (let num = 1; num <= spec.buckets && i < n; num++) {
        const members = [];
        const min = prevMax || roundGranular(spec.granularity, sorted[i].__g, false);
        const isLast = num === spec.buckets;
        members.push(sorted[i++]);
        for (let k = 1; i < n && (k < approx || isLast); k++) members.push(sorted[i++]);
        let last = members[members.length - 1].__g;
        const bound = roundGranular(spec.granularity, last, true);
        while (i < n && (bound.v > sorted[i].__g || last === sorted[i].__g)) {
          last = sorted[i].__g;
          members.push(sorted[i++]);
        }
        const max = bound.v === 0 && i < n ? roundGranular(spec.granularity, sorted[i].__g, false) : bound;
        prevMax = max;
        for (const x of members) Object.assign(x, { __b: num, __min: out(min), __max: out(max) });
      }
      for (const x of sorted) delete x.__g;
      return Lazy(sorted);
    });
  },
};
// mingo's $bucketAuto with a granularity loops forever on a negative
// value (its rounders assume none): it is run behind a check that raises
// MongoDB's error for one first, in every run.
const mingoBucketAuto = need("mingo/operators/pipeline").$bucketAuto;
const { evalExpr } = need("mingo/core");
bucketAutoOps.$bucketAuto = (coll, expr, options) => {
  if (expr && expr.granularity) {
    coll = coll.transform((xs) => {
      for (const x of xs) {
        const v = evalExpr(x, expr.groupBy, options);
        if (typeof v === "number" && !(v >= 0)) {
          throw new Error("$bucketAuto can specify a 'granularity' with non-negative numbers only");
        }
      }
      return Lazy(xs);
    });
  }
  return mingoBucketAuto(coll, expr, options);
};
// {$__bucketAcc: [field, op, byPos]}: the value of a $bucketAuto output
// field op ($push, $first, $last, $addToSet) from the field's [{v, p, g}]
// (value, position, groupBy value): sorted on p (byPos) or on g then p (as
// docext has them; mingo's own order of equal null values is none); missing values
// skipped ($push, $addToSet); the first or last value, null for a missing
// one ($first, $last).
const bucketAccOp = {
  $__bucketAcc(obj, expr) {
    let a = mutil.resolve(obj, expr[0]) || [];
    const g = (x) => (x.g === undefined ? null : x.g);
    a = a.slice().sort((x, y) => (expr[2] ? 0 : mutil.compare(g(x), g(y))) || x.p - y.p);
    if (expr[1] === "$push" || expr[1] === "$addToSet") return a.filter((x) => x.v !== undefined).map((x) => x.v);
    const e = expr[1] === "$first" ? a[0] : a[a.length - 1];
    return e && e.v !== undefined ? e.v : null;
  },
};
// MongoDB's order of values (BSON's canonical types: null and missing <
// numbers < strings < documents < arrays < booleans < dates; numbers by
// value; documents field by field, each by its value's type, then its
// name, then its value; arrays element by element), EMPTY_KEY (the sort
// key of an empty array) below null.
const EMPTY_KEY = Symbol("empty array");
function bsonRank(v) {
  if (v === EMPTY_KEY) return 0;
  if (v === undefined || v === null) return 5;
  if (typeof v === "number") return 10;
  if (typeof v === "string") return 15;
  if (typeof v === "boolean") return 40;
  if (Array.isArray(v)) return 25;
  if (v instanceof Date) return 45;
  return 20;
}
function bsonCmp(a, b) {
  const ra = bsonRank(a);
  const rb = bsonRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 10: case 15: return a < b ? -1 : a > b ? 1 : 0;     // (strings of ASCII: byte order)
    case 40: return a === b ? 0 : a ? 1 : -1;
    case 45: return Math.sign(a.getTime() - b.getTime());
    case 25: {
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        const c = bsonCmp(a[i], b[i]);
        if (c) return c;
      }
      return Math.sign(a.length - b.length);
    }
    case 20: {
      const ka = Object.keys(a).filter((k) => a[k] !== undefined);
      const kb = Object.keys(b).filter((k) => b[k] !== undefined);
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        const ta = bsonRank(a[ka[i]]);
        const tb = bsonRank(b[kb[i]]);
        if (ta !== tb) return ta < tb ? -1 : 1;
        if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
        const c = bsonCmp(a[ka[i]], b[kb[i]]);
        if (c) return c;
      }
      return Math.sign(ka.length - kb.length);
    }
  }
  return 0;
}
// A value's sort key in a direction (MongoDB's SortKeyGenerator): an
// array's least element ascending, its greatest descending, EMPTY_KEY for
// an empty one; missing is null.
function sortKeyOf(v, dir) {
  if (!Array.isArray(v)) return v === undefined ? null : v;
  if (!v.length) return EMPTY_KEY;
  let best = v[0];
  for (const x of v) {
    const c = bsonCmp(x, best);
    if (dir > 0 ? c < 0 : c > 0) best = x;
  }
  return best === undefined ? null : best;
}
// x put into the sorted list after the elements equal to it (std::multiset's
// insert).
function insertAfterEqual(list, x, cmp) {
  let i = 0;
  while (i < list.length && cmp(list[i], x) <= 0) i++;
  list.splice(i, 0, x);
}
// What $group evaluates an accumulator's n against. This test takes it to
// be {_id: <the group's key>}, as docext does. MongoDB's
// GroupProcessorBase::findOrCreateGroup (and DocumentSourceGroup before
// it) evaluates the initializer against the key itself where that is a
// document (expandId), else against an empty document (MongoDB's docs on
// $firstN: _id: {gameId: "$gameId"} with n: {$cond: {if: {$eq: ["$gameId",
// "G2"]}, ...}}); set this to check that instead.
const GROUP_N_KEY_DOCUMENT = true;

// The value of an N_OPS accumulator (spec, see accNRecord) over the records
// recs the documents pushed, in the order the accumulator takes them; obj
// the output document (for n's {_id} in $group). As accumulator_multi.cpp
// has it: in $group, $bucket and $bucketAuto AccumulatorN::validateN (n a
// number, whole, > 0, else an error), $firstN/$lastN the first/last n
// values (missing made null), $minN/$maxN and $topN/$bottomN the bounded
// multiset of AccumulatorMinMaxN/AccumulatorTopBottomN (null and missing
// skipped by $minN/$maxN; once it holds n, a value enters only if it is
// strictly below the greatest held ($minN, $topN), which leaves, or
// strictly above the least ($maxN, $bottomN), the earliest of equal least
// leaving; $maxN descending, the others ascending; $top*/$bottom* by the
// sortBy keys, missing output null, $top/$bottom the value itself), and
// $mergeObjects the documents' fields merged (null and missing skipped,
// another value an error; a later value replaces an earlier one where the
// field first came, as JavaScript objects have it too; in $bucketAuto the
// documents come in groupBy order). In
// $setWindowFields the same where the window's lower bound is "unbounded"
// (MongoDB runs the accumulator there), else (win) the removable window
// functions (window_function_first_last_n.h, window_function_min_max.h,
// window_function_top_bottom_n.h): every value of the window kept, and the
// first n taken ($firstN, $topN, $minN ascending) or the last n ($lastN,
// $bottomN in sortBy order, $maxN descending: the multiset backwards), ties
// in the window's order; $firstN/$lastN keep a missing value as it is,
// which an array leaves out. An empty window gives [] ($top, $bottom:
// null).
function accNValue(s, recs, obj) {
  const op = s.op;
  if (op === "$mergeObjects") {
    const out = {};
    for (const r of recs) {
      const v = r.v;
      if (v === undefined || v === null) continue;
      if (typeof v !== "object" || Array.isArray(v) || v instanceof Date) {
        throw new Error("$mergeObjects needs documents, not " + JSON.stringify(v));
      }
      for (const k of Object.keys(v)) {
        if (v[k] === undefined) continue;
        out[k] = clone(v[k]);
      }
    }
    return out;
  }
  let n = s.n.c;
  if ("id" in s.n) {
    // (n's {$cond: [{$eq: ["$_id", id]}, a, b]} against {_id: <key>}, a
    // missing key null; or, with GROUP_N_KEY_DOCUMENT, against the key
    // itself where it is a document, else {}, where "$_id" is missing and
    // equal to nothing)
    const key = obj._id === undefined ? null : obj._id;
    const idv = !GROUP_N_KEY_DOCUMENT ? key : bsonRank(key) === 20 ? key._id : undefined;
    n = idv !== undefined && bsonCmp(idv, s.n.id) === 0 ? s.n.a : s.n.b;
  }
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1) {
    throw new Error(op + ": 'n' must be a whole number above 0, not " + JSON.stringify(n));
  }
  const val = (v) => (v === undefined ? null : v);
  switch (op) {
    case "$firstN": case "$lastN": {
      const some = op === "$firstN" ? recs.slice(0, n) : recs.slice(Math.max(0, recs.length - n));
      // (the removable window function keeps a missing value as it is, and
      // an array leaves it out: Value::addToBsonArray)
      return s.win ? some.map((r) => r.v).filter((v) => v !== undefined) : some.map((r) => val(r.v));
    }
    case "$minN": case "$maxN": {
      const xs = recs.map((r) => r.v).filter((v) => v !== undefined && v !== null);
      const min = op === "$minN";
      if (s.win) {
        const sorted = xs.slice().sort(bsonCmp);
        return (min ? sorted : sorted.reverse()).slice(0, n);
      }
      const set = [];
      for (const v of xs) {
        if (set.length === n) {
          if (min ? bsonCmp(set[set.length - 1], v) > 0 : bsonCmp(v, set[0]) > 0) {
            if (min) set.pop(); else set.shift();
          } else continue;
        }
        insertAfterEqual(set, v, bsonCmp);
      }
      return min ? set : set.reverse();
    }
  }
  // $top, $bottom, $topN, $bottomN
  const top = op === "$top" || op === "$topN";
  const items = recs.map((r) => ({ key: r.k.map((v, i) => sortKeyOf(v, s.dirs[i])), v: val(r.v) }));
  const cmp = (x, y) => {
    for (let i = 0; i < s.dirs.length; i++) {
      const c = bsonCmp(x.key[i], y.key[i]) * s.dirs[i];
      if (c) return c;
    }
    return 0;
  };
  let res;
  if (s.win) {
    const sorted = items.slice().sort(cmp);
    res = top ? sorted.slice(0, n) : sorted.slice(Math.max(0, sorted.length - n));
  } else {
    res = [];
    for (const it of items) {
      if (res.length === n) {
        if (top ? cmp(res[res.length - 1], it) > 0 : cmp(it, res[0]) > 0) {
          if (top) res.pop(); else res.shift();
        } else continue;
      }
      insertAfterEqual(res, it, cmp);
    }
  }
  res = res.map((x) => x.v);
  if (op === "$top" || op === "$bottom") return res.length ? res[0] : null;
  return res;
}
// {$__accN: [field, spec]}: accNValue of the field's records (those of
// $bucketAuto put in the order its accumulators take them first, spec.order).
const accNOp = {
  $__accN(obj, expr) {
    const [field, s] = expr;
    const recs = (mutil.resolve(obj, field) || []).slice();
    if (s.order === "pos") recs.sort((x, y) => x.p - y.p);
    else if (s.order === "gpos") recs.sort((x, y) => bsonCmp(x.g, y.g) || x.p - y.p);
    return accNValue(s, recs, obj);
  },
};
// {$__densify: {field, parts, step, unit, bounds}}:
// MongoDB's $densify (InternalDensifyStage, as jstests/aggregation/sources/
// densify/libs/densify_in_js.js and partitions.js, doc_on_bound.js have it):
// a document whose field is null or missing passes as it is and is in no
// partition; any other value must be a number (no unit) or a date (a unit),
// else an error. A partition is the value of {p1: "$p1", ...} (nested for a
// dotted path; a missing value left out, so missing and null are two
// partitions), and a made document holds that value, then the field. Each
// partition's values are taken in ascending order, from the grid's start
// ("partition": its least value; "full": the least of all; [lo, hi]: lo),
// each value of the grid below the document made, a document on the grid
// moving it on; at the end "full" makes the grid's values up to the
// greatest value of all, inclusive, and [lo, hi] those below hi, in every
// partition that has a value (without partitionByFields: the one
// partition, even with no document). Made documents are counted into
// densifyMade.
const densifyOps = {
  $__densify(coll, s) {
    return coll.transform((xs) => {
      const isNil = (v) => v === null || v === undefined;
      const add = (v) => (s.unit ? densifyDateAdd(v, s.unit, s.step) : v + s.step);
      for (const x of xs) {
        const v = mutil.resolve(x, s.field);
        if (isNil(v)) continue;
        if (s.unit ? !(v instanceof Date) : typeof v !== "number") {
          throw new Error("$densify: the field holds " + JSON.stringify(v) + (s.unit ? ", not a date" : ", not a number"));
        }
      }
      const setPath = (o, p, v) => {
        const ks = p.split(".");
        let cur = o;
        for (let i = 0; i < ks.length - 1; i++) {
          if (cur[ks[i]] === null || typeof cur[ks[i]] !== "object") cur[ks[i]] = {};
          cur = cur[ks[i]];
        }
        if (v !== undefined) cur[ks[ks.length - 1]] = v;
      };
      // the partitions, in the order of their first documents (nullish ones too)
      const parts = new Map();
      const keyOf = (x) => {
        const o = {};
        for (const p of s.parts) setPath(o, p, mutil.resolve(x, p));
        return JSON.stringify(o);
      };
      const docPart = [];
      for (const x of xs) {
        const k = keyOf(x);
        if (!parts.has(k)) {
          // (the fields of a made document)
          const inc = {};
          for (const p of s.parts) {
            const pv = mutil.resolve(x, p);
            setPath(inc, p, clone(pv));
          }
          parts.set(k, { inc, next: null, started: false });
        }
        docPart.push(parts.get(k));
      }
      if (!s.parts.length && !parts.size) parts.set("{}", { inc: {}, next: null, started: false });
      const num = (v) => +v;
      const vals = xs.map((x) => mutil.resolve(x, s.field)).filter((v) => !isNil(v)).map(num);
      const full = s.bounds === "full";
      const ranged = Array.isArray(s.bounds);
      const min = Math.min(...vals);
      const max = Math.max(...vals);
      const minV = xs.map((x) => mutil.resolve(x, s.field)).find((v) => !isNil(v) && num(v) === min);
      // (the documents in docext's order, which MongoDB's sort allows: on
      // the partition's values, missing as null, and the field, stably)
      const nul = (v) => (v === undefined ? null : v);
      const order = xs.map((x, i) => i).sort((i, j) => {
        if (!full) {
          for (const p of s.parts) {
            const c = mutil.compare(nul(mutil.resolve(xs[i], p)), nul(mutil.resolve(xs[j], p)));
            if (c) return c;
          }
        }
        return mutil.compare(nul(mutil.resolve(xs[i], s.field)), nul(mutil.resolve(xs[j], s.field))) || i - j;
      });
      const out = [];
      let made = 0;
      const emit = (q, v) => {
        const d = clone(q.inc);
        setPath(d, s.field, v);
        out.push(d);
        made++;
      };
      for (const i of order) {
        const v = mutil.resolve(xs[i], s.field);
        const q = docPart[i];
        if (!isNil(v)) {
          if (!q.started) {
            q.started = true;
            q.next = ranged ? s.bounds[0] : full ? minV : v;
          }
          if (!ranged || (num(v) >= num(s.bounds[0]) && num(v) < num(s.bounds[1]))) {
            while (num(q.next) < num(v)) { emit(q, q.next); q.next = add(q.next); }
            if (num(q.next) === num(v)) q.next = add(v);
          }
        }
        out.push(xs[i]);
      }
      // the ends, partition by partition
      for (const q of parts.values()) {
        if (full && q.started) while (num(q.next) <= max) { emit(q, q.next); q.next = add(q.next); }
        if (ranged && (q.started || !s.parts.length)) {
          if (!q.started) q.next = s.bounds[0];
          while (num(q.next) < num(s.bounds[1])) { emit(q, q.next); q.next = add(q.next); }
        }
      }
      densifyMade = Math.max(densifyMade, made);
      return Lazy(out);
    });
  },
};
// All of mingo's operators and these, in one context made once (mingo's
// aggregate() would merge a given context into its own on every call).
const context = mingo.Context.init({
  accumulator: need("mingo/operators/accumulator"),
  expression: Object.assign({}, need("mingo/operators/expression"), sortKeyOp, bucketAccOp, accNOp),
  pipeline: Object.assign({}, need("mingo/operators/pipeline"), cloneOp, windowOps, bucketAutoOps,
                         densifyOps),
  projection: need("mingo/operators/projection"),
  query: need("mingo/operators/query"),
  window: need("mingo/operators/window"),
});

// A copy of a JSON value; object fields whose value is undefined are left
// out (as JSON.stringify does).
function clone(v) {
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Date) return new Date(v.getTime());
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = v[i] === undefined ? null : clone(v[i]);
    return a;
  }
  const o = {};
  for (const k in v) if (v[k] !== undefined) o[k] = clone(v[k]);
  return o;
}

// vars: the let variables (mingo's option "variables"). The collections
// $lookup and $unionWith name: c2, c itself, and any other as empty.
function run(docs, docs2, pipeline, vars) {
  try {
    const res = new Aggregator(clone(pipeline), {
      context,
      variables: vars ? clone(vars) : {},
      collectionResolver: (name) => (name === "c2" ? clone(docs2 || []) : name === "c" ? clone(docs) : []),
    }).run(clone(docs));
    return clone(res);
  } catch (e) {
    return "E: " + String(e && e.message || e).split("\n")[0].slice(0, 200);
  }
}

// The "dbl" run's data and constants: each double of the data moved by its
// own small amount (always up, so that no sum cancels the moves out). With
// sign -1, the "dbl2" run's: each moved down, and the results of $avg and
// $stdDev* too (the constant of accumulatorDbl's stages negated).
function shiftDoubles(v, sign = 1) {
  if (typeof v === "number") {
    if (v === SHIFT_ALWAYS_D) return sign * v;
    const k = DOUBLES.indexOf(v);
    return k < 0 ? v : v + sign * SHIFT_D * (k + 1);
  }
  if (Array.isArray(v)) return v.map((x) => shiftDoubles(x, sign));
  if (v && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) o[k] = shiftDoubles(v[k], sign);
    return o;
  }
  return v;
}

// ---------------------------------------------------------------------------

// The EXCLUDED kinds (docext's known departures) that are also the kinds
// of a rewrite of the fixed run, without which mingo gives docext's answer
// (the case's "alt").
const BUG_REWRITES = new Set([]);

const lines = [];
for (let i = 0; i < N; i++) {
  densifyMade = 0;
  const n = 5 + int(26);
  const docs = ids(n, 0).map(genDoc);
  // one case in five has let variables (numbers, strings, a document)
  VARS = { num: [], str: [], doc: [] };
  let options = null;
  if (chance(0.2)) {
    const vars = {};
    for (let k = 1 + int(3); k > 0; k--) {
      const r = int(5);
      const kind = r < 2 ? "num" : r < 4 ? "str" : "doc";
      const nm = pick({ num: ["v", "lo", "n1"], str: ["tag", "s1"], doc: ["d", "d1"] }[kind]);
      if (nm in vars) continue;
      vars[nm] = kind === "num" ? (chance(0.3) ? pick(DOUBLES) : int(14) - 3)
        : kind === "str" ? pick(STRS) : { x: int(6), y: pick(STRS) };
      VARS[kind].push(nm);
    }
    options = { let: vars };
    if (chance(0.2)) options.comment = "diff_aggregate";
  }
  const st = initState();
  // lookup, union: a $lookup or a $unionWith is in the case already; c2: c2
  // is read; stop: no stage may follow; bugs: the EXCLUDED kinds of case
  // that it is; differs: the DIFFERS kinds
  const ctx = { lookup: false, union: false, c2: false, stop: false, bugs: [], differs: [], loose: [] };
  const nStages = 1 + int(4);
  const items = [];
  for (let s = 0; s < nStages && !ctx.stop; s++) items.push(...[].concat(stage(st, ctx, s === nStages - 1)));
  if (!ctx.stop && chance(0.08)) {
    const thenCount = chance(0.25);
    items.push(stageSample(st, thenCount));
    if (thenCount) items.push(stageCount(st));
  }
  const last = items[items.length - 1];
  let invalid = null;
  if (chance(0.035)) {
    const [bad, why, extra] = pick(INVALID);
    // (mingo runs a $sample of a size that is not a number, or negative,
    // forever: it is left out of mingo's runs, which accept it)
    // (nor is a $densify: mingo runs one of step 0 forever)
    const item = bad && (bad.$sample || bad.$densify) ? Object.assign(plain(bad), { fix: () => [], raw: [] })
      : plain(bad);
    if (bad) items.splice(int(items.length + 1), 0, item);
    invalid = why;
    ctx.bugs = extra && extra.bug ? [extra.bug] : [];
    ctx.differs = [];
    if (extra && extra.options) options = extra.options;
    if (bad && bad.$lookup) ctx.lookup = true;
  }
  const vars = options && options.let;
  const docs2 = ctx.lookup || ctx.c2 ? ids(2 + int(7), 100).map(genDoc2) : null;
  const pipeline = items.map((x) => x.stage);
  const pipelineFor = (off, extra) => itemsFor(items, off, extra);
  const none = new Set();
  // (mingo's run of the pipeline as written, but for a $sample)
  const raw = run(docs, docs2, [].concat(...items.map((x) => x.raw || [x.stage])), vars);
  const fixed = run(docs, docs2, pipelineFor(none), vars);
  // (a case whose $densify makes too many documents is made anew)
  if (densifyMade > DENSIFY_MADE_MAX) { i--; continue; }
  // which rewrites changed mingo's answer: those without which it differs
  let fixes = [];
  if (JSON.stringify(raw) !== JSON.stringify(fixed)) {
    // (not the rewrites of docext's departures, BUG_REWRITES: not mingo's)
    const kinds = kindsOf(items).filter((k) => !BUG_REWRITES.has(k)).concat(["shared-objects"]);
    fixes = kinds.filter((k) => JSON.stringify(run(docs, docs2, pipelineFor(new Set([k])), vars)) !==
                                JSON.stringify(fixed));
  }
  // docext's answer where it has the known departures the case holds
  // (EXCLUDED): the fixed run without those rewrites
  const altKinds = ctx.bugs.filter((b) => BUG_REWRITES.has(b));
  const alt = altKinds.length ? run(docs, docs2, pipelineFor(new Set(altKinds)), vars) : null;
  // (and with each one alone, to tell which one a failure is)
  const alts = altKinds.length > 1
    ? Object.fromEntries(altKinds.map((k) => [k, run(docs, docs2, pipelineFor(new Set([k])), vars)])) : null;
  lines.push(JSON.stringify({
    i,
    docs: docs.map((d) => JSON.stringify(d)),
    docs2: docs2 && docs2.map((d) => JSON.stringify(d)),
    pipeline: JSON.stringify(pipeline),
    options: options && JSON.stringify(options),
    ordered: st.ordered,
    loose: ctx.loose.length > 0,
    sets: [...st.unordered],
    deep: [...st.deep],
    inner: st.inner,
    sample: !invalid && last.sample !== undefined && last === items[items.length - 1] ? last.sample : null,
    invalid,
    bugs: [...new Set(ctx.bugs)],
    alt,
    alts,
    differs: [...new Set(ctx.differs)],
    raw,
    fixed,
    fixes,
    dbl: run(shiftDoubles(docs), docs2, shiftDoubles(pipelineFor(none, "dbl")), shiftDoubles(vars)),
    dbl2: run(shiftDoubles(docs, -1), docs2, shiftDoubles(pipelineFor(none, "dbl"), -1), shiftDoubles(vars, -1)),
    // (the same as fixed without includeArrayIndex)
    lng: hasExtra(items, "lng") ? run(docs, docs2, pipelineFor(none, "lng"), vars) : fixed,
  }));
}
fs.writeFileSync(out, lines.join("\n") + "\n");
