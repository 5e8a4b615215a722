// test/diff_aggregate.js — the generating half of the differential
// aggregation test (test/diff_aggregate.sh runs it, then
// test/diff_aggregate.py).
//
//   node test/diff_aggregate.js OUT.jsonl [N] [SEED]
//
// Generates N seeded random cases: a small collection c (5–30 documents:
// int32, double, string, boolean, mixed-type, null and missing fields, small
// arrays, one embedded document; unique int _id inserted in random order),
// sometimes a second collection c2 for $lookup, and a pipeline of 1–4
// stages ($match, $project, $addFields, $set, $unset, $replaceRoot,
// $replaceWith, $sort, $skip, $limit, $count, $unwind, $group with every
// accumulator docext has, $sortByCount, $lookup), with expressions kept to
// forms where mingo and MongoDB agree ("$field", constants, $add, $multiply
// by a positive integer, $concat of strings, $cond, $ifNull, $gt/$gte/$eq/
// $ne against constants). About one case in thirty holds a stage MongoDB
// rejects whatever the data ($limit: 0, an unknown stage, ...).
//
// Each case is run through mingo (7.2.7) three or four times:
//  - "raw": the pipeline as docext gets it.
//  - "fixed": the same pipeline rewritten, where mingo departs from MongoDB,
//    into one that MongoDB evaluates the same way and mingo evaluates
//    right: a custom stage copying every document after each stage (mingo
//    shares objects between documents), and the rewrites of the stages
//    below whose comments say "The fixed run ..." (kinds: project-field-
//    order, addfields-reads-input, set-missing-into-document, sort-array-
//    keys, count-of-nothing, push-skips-missing, stddev-of-nothing, lookup-
//    local-arrays, lookup-repeats; KNOWN in diff_aggregate.py says why).
//    This is the answer docext must give. "fixes" lists the kinds without
//    which mingo's answer would differ (found by leaving each one out).
//  - "dbl" and "lng": the fixed pipeline on data whose doubles are moved by
//    a tiny amount (and results that MongoDB always makes doubles, $avg and
//    $stdDev*, likewise), or with includeArrayIndex values (int64 in MongoDB)
//    moved likewise. JavaScript has one number type; where a result number
//    moved in "dbl" MongoDB gives a double, else where it moved in "lng" an
//    int64, else an int32. The checker uses that to check docext's BSON
//    number types, where the runs line up with "fixed".
// One JSON line per case:
//   {"i": n, "docs": ["<json>", ...], "docs2": [...] | null,
//    "pipeline": "<json>", "ordered": bool, "sets": [field, ...],
//    "deep": [field, ...], "invalid": "<why MongoDB rejects it>" | null,
//    "raw": [...] | "E: msg", "fixed": [...] | "E: msg", "fixes": [kind, ...],
//    "dbl": [...] | "E: msg", "lng": [...] | "E: msg"}
// "ordered" says whether MongoDB fixes the order of the output documents
// (else they are compared as a multiset): the collection's order (docext's
// and mingo's insertion order) until a $match on _id (which an index may
// answer in _id order) or a $group, a $sort whose keys include fields that
// are unique together, and the stages that keep the order. "sets" names
// top-level fields whose arrays have no specified order ($addToSet,
// $lookup's "as", $push after a $group, and what comes from them),
// compared as multisets; "deep" those of them whose elements are such
// arrays too.
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

function stageUnwind(st) {
  const arrs = st.order.filter((f) => ["arr", "list", "set", "docs", "nlist"].includes(st.kinds[f]));
  if (!arrs.length) return stageMatch(st);
  const f = pick(arrs);
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
  return { stage, fix: () => [stage], kinds: [], dbl: [], lng };
}

// The accumulator fields of a $group, or of a $bucket's output: n of them
// added to spec; their kinds into acc = {kinds, unord, deep, elems, dbl}.
function addAccumulators(st, spec, n, acc) {
  const numP = numPaths(st);
  for (; n > 0; n--) {
    const name = pick(["total", "avg", "lo", "hi", "first", "last", "all", "uniq", "cnt", "sd"]) +
      (chance(0.2) ? "2" : "");
    if (name in spec) continue;
    const op = pick(["$sum", "$sum", "$avg", "$min", "$max", "$first", "$last", "$push", "$push",
                     "$addToSet", "$count", "$stdDevPop", "$stdDevSamp"]);
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
  return kinds;
}

// The fixed run's accumulators: {fspec: the specification for mingo,
// after: the stages after the $group (or $bucket) that make its answer
// MongoDB's}.
// mingo's $push and $addToSet add null for a missing value, which MongoDB
// skips: the fixed run pushes {v: value} (a missing value makes {}) and
// unwraps after the group. mingo's $stdDevSamp of no number is 0 (and
// $stdDevPop's NaN, null in JSON); MongoDB gives null: the fixed run counts
// the numbers.
function accumulatorFix(spec, off) {
  const push = !off.has("push-skips-missing");
  const sd = !off.has("stddev-of-nothing");
  const fspec = {};
  const post = [];
  const counts = {};
  for (const k of Object.keys(spec)) {
    const acc = accOf(spec, k);
    if (push && (acc === "$push" || acc === "$addToSet")) {
      fspec[k] = { [acc]: { v: spec[k][acc] } };
      post.push(k);
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
  addAccumulators(st, spec, 1 + int(3), acc);
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
  return { stage: { $group: spec }, fix, kinds: accumulatorKinds(spec), dbl: accumulatorDbl(acc.dbl), lng: [] };
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
];

function stage(st, ctx, last) {
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
// All of mingo's operators and these, in one context made once (mingo's
// aggregate() would merge a given context into its own on every call).
const context = mingo.Context.init({
  accumulator: need("mingo/operators/accumulator"),
  expression: Object.assign({}, need("mingo/operators/expression"), sortKeyOp),
  pipeline: Object.assign({}, need("mingo/operators/pipeline"), cloneOp),
  projection: need("mingo/operators/projection"),
  query: need("mingo/operators/query"),
  window: need("mingo/operators/window"),
});

// A copy of a JSON value; object fields whose value is undefined are left
// out (as JSON.stringify does).
function clone(v) {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = v[i] === undefined ? null : clone(v[i]);
    return a;
  }
  const o = {};
  for (const k in v) if (v[k] !== undefined) o[k] = clone(v[k]);
  return o;
}

function run(docs, docs2, pipeline) {
  try {
    const res = new Aggregator(clone(pipeline), {
      context,
      collectionResolver: (name) => (name === "c2" && docs2 ? clone(docs2) : []),
    }).run(clone(docs));
    return clone(res);
  } catch (e) {
    return "E: " + String(e && e.message || e).split("\n")[0].slice(0, 200);
  }
}

// The "dbl" run's data and constants: each double of the data moved by its
// own small amount (always up, so that no sum cancels the moves out).
function shiftDoubles(v) {
  if (typeof v === "number") {
    const k = DOUBLES.indexOf(v);
    return k < 0 ? v : v + SHIFT_D * (k + 1);
  }
  if (Array.isArray(v)) return v.map(shiftDoubles);
  if (v && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) o[k] = shiftDoubles(v[k]);
    return o;
  }
  return v;
}

// ---------------------------------------------------------------------------

const lines = [];
for (let i = 0; i < N; i++) {
  const n = 5 + int(26);
  const docs = ids(n, 0).map(genDoc);
  const st = initState();
  const ctx = { lookup: false };
  const nStages = 1 + int(4);
  const items = [];
  for (let s = 0; s < nStages; s++) items.push(stage(st, ctx, s === nStages - 1));
  let invalid = null;
  if (chance(0.035)) {
    const [bad, why] = pick(INVALID);
    items.splice(int(items.length + 1), 0, plain(bad));
    invalid = why;
    if (bad.$lookup) ctx.lookup = true;
  }
  const docs2 = ctx.lookup ? ids(2 + int(7), 100).map(genDoc2) : null;
  const pipeline = items.map((x) => x.stage);
  const C = { $__clone: {} };
  const pipelineFor = (off, extra) => [].concat(...items.map((x) =>
    x.fix(off).concat(extra ? x[extra] : [], off.has("shared-objects") ? [] : [C])));
  const none = new Set();
  const raw = run(docs, docs2, pipeline);
  const fixed = run(docs, docs2, pipelineFor(none));
  // which rewrites changed mingo's answer: those without which it differs
  let fixes = [];
  if (JSON.stringify(raw) !== JSON.stringify(fixed)) {
    const kinds = [...new Set([].concat(...items.map((x) => x.kinds)))].concat(["shared-objects"]);
    fixes = kinds.filter((k) => JSON.stringify(run(docs, docs2, pipelineFor(new Set([k])))) !==
                                JSON.stringify(fixed));
  }
  lines.push(JSON.stringify({
    i,
    docs: docs.map((d) => JSON.stringify(d)),
    docs2: docs2 && docs2.map((d) => JSON.stringify(d)),
    pipeline: JSON.stringify(pipeline),
    ordered: st.ordered,
    sets: [...st.unordered],
    deep: [...st.deep],
    invalid,
    raw,
    fixed,
    fixes,
    dbl: run(shiftDoubles(docs), docs2, shiftDoubles(pipelineFor(none, "dbl"))),
    // (the same as fixed without includeArrayIndex)
    lng: items.some((x) => x.lng.length) ? run(docs, docs2, pipelineFor(none, "lng")) : fixed,
  }));
}
fs.writeFileSync(out, lines.join("\n") + "\n");
