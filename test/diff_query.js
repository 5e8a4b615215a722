// test/diff_query.js — the generating half of the differential query test
// (test/diff_query.sh runs it, then test/diff_query.py).
//
//   node test/diff_query.js OUT.jsonl [N] [SEED]
//
// Generates N seeded random (document, filter) cases — nested documents,
// arrays, arrays of documents, mixed types, missing fields, nulls; filters
// over every query operator the libraries know — evaluates each with mingo
// and sift, and writes one JSON line per case:
//   {"i": n, "doc": "<shell text>", "filter": "<shell text>",
//    "mingo": 1 | 0 | "E: message", "sift": 1 | 0 | "E: message"}
// The texts are mongo shell syntax (ISODate(...), /re/flags) that docext
// parses. Values are restricted to what JavaScript represents without loss:
// no int/long/double distinction is relied upon, no undefined, no NaN.
"use strict";
const fs = require("fs");
const path = require("path");

const modDir = process.env.DIFF_NODE_MODULES ||
  path.join(__dirname, "..", "build", "diffq", "node_modules");
const mingo = require(path.join(modDir, "mingo"));
const sift = require(path.join(modDir, "sift")).default;

const out = process.argv[2];
const N = parseInt(process.argv[3] || "3000", 10);
const SEED = parseInt(process.argv[4] || "20240601", 10);

// seeded, so a run is reproducible
const { rnd, int, pick, chance } = require("./lib_rng.js")(SEED);

const KEYS = ["a", "b", "c"];
const STRINGS = ["", "a", "ab", "abc", "B", "ba", "x y", "Abc", "a\nb", "\u00e9t\u00e9"];
const DATES = [new Date("2020-01-01T00:00:00Z"), new Date("2021-06-15T12:00:00Z")];
const NUMS = [-3, -1, 0, 1, 2, 3, 5, 7, 10, 1.5, -0.5, 2.25, 12];

function scalar() {
  if (docValues.length && chance(0.4)) {
    const v = pick(docValues);
    if (v === null || typeof v !== "object" || v instanceof Date) return v;
  }
  switch (int(8)) {
    case 0: case 1: case 2: return pick(NUMS);
    case 3: case 4: return pick(STRINGS);
    case 5: return chance(0.5);
    case 6: return null;
    default: return pick(DATES);
  }
}

function value(depth) {
  const r = int(10);
  if (depth >= 3 || r < 5) return scalar();
  if (r < 7) return doc(depth + 1);
  return arr(depth + 1);
}

function arr(depth) {
  const n = int(4);
  const a = [];
  const kind = int(3);           // 0: scalars, 1: documents, 2: mixed
  for (let i = 0; i < n; i++) {
    if (kind === 0) a.push(depth >= 3 ? scalar() : (chance(0.85) ? scalar() : arr(depth + 1)));
    else if (kind === 1) a.push(doc(depth + 1));
    else a.push(value(depth));
  }
  return a;
}

function doc(depth) {
  const d = {};
  for (const k of KEYS) {
    if (chance(0.6)) d[k] = value(depth);
  }
  if (depth > 0 && chance(0.1)) d["0"] = value(depth);
  return d;
}

// Paths and values of the document being matched, so that most filters
// talk about what is there (a purely random filter almost never matches).
let docPaths = [];
let docValues = [];

function collect(v, prefix) {
  if (v === null || typeof v !== "object" || v instanceof Date) {
    docValues.push(v);
    return;
  }
  if (Array.isArray(v)) {
    if (prefix) docValues.push(v);
    v.forEach((el, i) => {
      if (chance(0.3)) collect(el, prefix ? prefix + "." + i : String(i));
      else if (el && typeof el === "object" && !Array.isArray(el) && !(el instanceof Date)) collect(el, prefix);
      else docValues.push(el);
    });
    return;
  }
  if (prefix) docValues.push(v);
  for (const k of Object.keys(v)) {
    const p = prefix ? prefix + "." + k : k;
    docPaths.push(p);
    collect(v[k], p);
  }
}

// The arrays a path reaches in the current document (through documents and
// arrays of documents), for $elemMatch and $all to talk about.
let curDoc = {};
function arraysAt(v, parts, i, out) {
  if (i === parts.length) {
    if (Array.isArray(v)) out.push(v);
    return out;
  }
  if (Array.isArray(v)) {
    for (const el of v) arraysAt(el, parts, i, out);
  } else if (v && typeof v === "object" && !(v instanceof Date) && parts[i] in v) {
    arraysAt(v[parts[i]], parts, i + 1, out);
  }
  return out;
}

// A sub-filter for {path: {$elemMatch: ...}}: about the fields of the
// documents in the arrays at path, when there are any.
function elemFilter(path, depth) {
  const elems = [];
  for (const a of arraysAt(curDoc, path.split("."), 0, [])) {
    for (const el of a) {
      if (el && typeof el === "object" && !Array.isArray(el) && !(el instanceof Date)) elems.push(el);
    }
  }
  if (!elems.length) {
    inElemMatch++;
    const f = filter(depth);
    inElemMatch--;
    return f;
  }
  if (chance(0.5)) {
    // Conditions taken from one element, so that some element matches;
    // the second condition may come from another element (then only the
    // implicit-array form of the same query would match).
    const f = {};
    for (let i = 1 + int(2); i > 0; i--) {
      const el = pick(elems);
      const keys = Object.keys(el);
      if (!keys.length) continue;
      const k = pick(keys);
      const v = el[k];
      f[k] = (typeof v === "number" && chance(0.5)) ? { [pick(["$gte", "$lte"])]: v } : v;
    }
    return f;
  }
  const saved = [docPaths, docValues];
  docPaths = [];
  docValues = [];
  collect(pick(elems), "");
  inElemMatch++;
  const f = filter(depth);
  inElemMatch--;
  [docPaths, docValues] = saved;
  return f;
}

// A scalar from the arrays at path (for $elemMatch with operators).
function elemScalar(path) {
  const vals = [];
  for (const a of arraysAt(curDoc, path.split("."), 0, [])) {
    for (const el of a) if (el === null || typeof el !== "object" || el instanceof Date) vals.push(el);
  }
  return vals.length && chance(0.6) ? pick(vals) : scalar();
}

function fieldPath() {
  if (docPaths.length && chance(0.7)) return pick(docPaths);
  const n = 1 + int(3);
  const parts = [];
  for (let i = 0; i < n; i++) {
    parts.push(i > 0 && chance(0.2) ? pick(["0", "1"]) : pick(KEYS));
  }
  return parts.join(".");
}

function regex() {
  const src = pick(["^a", "b$", "a.c", "[ab]+", "^$", "B", "^A", "a\\nb", "^b", "t\u00e9", "x y", "a|c"]);
  const flags = pick(["", "", "i", "m", "s", "im"]);
  return new RegExp(src, flags);
}

function opValue() {
  if (docValues.length && chance(0.4)) return pick(docValues);
  switch (int(6)) {
    case 0: return doc(2);
    case 1: return arr(2);
    default: return scalar();
  }
}

// One operator document (or implicit value) for a path.
function condition(depth, path) {
  switch (int(24)) {
    case 0: case 1: return opValue();                 // implicit equality
    case 2: return { $eq: opValue() };
    case 3: return { $ne: opValue() };
    case 4: return { $gt: scalar() };
    case 5: return { $gte: scalar() };
    case 6: return { $lt: scalar() };
    case 7: return { $lte: scalar() };
    case 8: { const v = []; for (let i = int(4); i >= 0; i--) v.push(chance(0.2) ? regex() : opValue()); return { $in: v }; }
    case 9: { const v = []; for (let i = int(4); i >= 0; i--) v.push(chance(0.2) ? regex() : opValue()); return { $nin: v }; }
    case 10: return { $exists: chance(0.5) };
    case 11: return { $type: pick(["string", "number", "bool", "null", "array", "object", "date", "regex", 2, 3, 4, 8, 9, 10]) };
    case 12: return { $mod: [pick([2, 3, 4, -3]), pick([0, 1, -1, 2])] };
    case 13: return regex();
    case 14: return chance(0.5) ? { $regex: regex().source } : { $regex: regex().source, $options: pick(["i", "m", "s", "im", "x"]) };
    case 15: { const v = []; for (let i = int(3); i >= 0; i--) v.push(scalar()); return { $all: v }; }
    case 16: return { $size: int(4) };
    case 17: return depth < 2 ? { $elemMatch: chance(0.5) ? operatorDoc(depth + 1, path)
                                   : { [pick(["$gt", "$gte", "$lt", "$lte", "$eq", "$ne"])]: elemScalar(path) } }
                              : { $size: 1 };
    case 18: return depth < 2 ? { $elemMatch: elemFilter(path, depth + 1) } : { $exists: true };
    case 19: return depth < 2 ? { $not: operatorDoc(depth + 1, path) } : { $not: regex() };
    case 20: return { [pick(["$bitsAllSet", "$bitsAnySet", "$bitsAllClear", "$bitsAnyClear"])]:
                      chance(0.5) ? int(16) : [int(4), int(6)] };
    case 21: return { $gt: pick(NUMS), $lt: pick(NUMS) };
    case 22: return { $in: [null, pick(NUMS)] };
    default: return { $all: [{ $elemMatch: depth < 2 ? elemFilter(path, depth + 1) : { b: 1 } }] };
  }
}

// An operator document only (for $elemMatch values and $not).
function operatorDoc(depth, path) {
  for (;;) {
    const c = condition(depth, path);
    if (c && typeof c === "object" && !Array.isArray(c) && !(c instanceof Date) &&
        !(c instanceof RegExp) && Object.keys(c).length > 0 && Object.keys(c)[0][0] === "$") {
      return c;
    }
  }
}

// $expr applies to the whole document only (MongoDB refuses it under
// $elemMatch), so it is not generated inside one.
let inElemMatch = 0;

// An aggregation expression for $expr: field paths of the document (read
// the aggregation way), constants, and the operators docext supports.
function exprPath() {
  const p = fieldPath();
  return "$" + (/(^|\.)\$/.test(p) ? "a" : p);
}
function exprConst() {
  const v = scalar();
  return typeof v === "string" && v[0] === "$" ? { $literal: v } : v;
}
function numExpr(depth) {
  if (depth > 2 || chance(0.5)) return chance(0.6) ? exprPath() : pick(NUMS);
  return expr(depth);
}
function expr(depth) {
  const r = int(depth > 2 ? 3 : 16);
  const e = () => expr(depth + 1);
  switch (r) {
    case 0: case 1: return exprPath();
    case 2: return exprConst();
    case 3: case 4: return { [pick(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp"])]: [e(), e()] };
    case 5: return { [pick(["$and", "$or"])]: [e(), e()] };
    case 6: return { $not: [e()] };
    case 7: return chance(0.5) ? { $cond: [e(), e(), e()] } : { $cond: { if: e(), then: e(), else: e() } };
    case 8: return { $ifNull: [e(), e()] };
    case 9: return { [pick(["$add", "$multiply"])]: [numExpr(depth + 1), numExpr(depth + 1)] };
    case 10: return { [pick(["$subtract", "$divide", "$mod"])]: [numExpr(depth + 1), numExpr(depth + 1)] };
    case 11: return { [pick(["$abs", "$ceil", "$floor", "$trunc"])]: numExpr(depth + 1) };
    case 12: return { $size: chance(0.7) ? { $ifNull: [exprPath(), []] } : exprPath() };
    case 13: return { $in: [e(), chance(0.5) ? exprPath() : [exprConst(), exprConst()]] };
    case 14: return { [pick(["$type", "$isArray"])]: e() };
    default: return chance(0.5) ? { $concat: [e(), pick(STRINGS)] } : { $strLenCP: exprPath() };
  }
}

function filter(depth) {
  const f = {};
  const n = 1 + int(2);
  if (depth === 0 && chance(0.02)) f.$comment = "generated";
  for (let i = 0; i < n; i++) {
    const r = int(12);
    if (r === 1 && chance(0.5) && !inElemMatch) {
      f.$expr = { [pick(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"])]: [expr(1), expr(1)] };
      if (chance(0.3)) f.$expr = expr(0);
    } else if (r === 0 && depth < 2) {
      const op = pick(["$and", "$or", "$nor"]);
      const subs = [];
      for (let j = int(3); j >= 0; j--) subs.push(filter(depth + 1));
      f[op] = subs;
    } else {
      const p = fieldPath();
      f[p] = condition(depth, p);
    }
  }
  return f;
}

// Shell text docext parses (keys always quoted).
function shell(v) {
  if (v === null) return "null";
  if (typeof v === "number") {
    if (Number.isInteger(v)) return String(v);
    return String(v);
  }
  if (typeof v === "string" || typeof v === "boolean") return JSON.stringify(v);
  if (v instanceof Date) return "ISODate(\"" + v.toISOString() + "\")";
  if (v instanceof RegExp) return "/" + v.source + "/" + v.flags.split("").sort().join("");
  if (Array.isArray(v)) return "[" + v.map(shell).join(", ") + "]";
  return "{" + Object.keys(v).map((k) => JSON.stringify(k) + ": " + shell(v[k])).join(", ") + "}";
}

function evaluate(fn) {
  try {
    return fn() ? 1 : 0;
  } catch (e) {
    return "E: " + String(e && e.message || e).split("\n")[0];
  }
}

// The filter as given to the libraries: the same query, minus what they
// cannot express. $comment (ignored by MongoDB) is dropped, as mingo rejects
// it; $options "x" (PCRE's extended mode) is applied by hand, removing the
// pattern's white space, since JavaScript has no such flag (the generated
// patterns have no '#' or escaped spaces, so this is exact).
function libFilter(v) {
  if (v === null || typeof v !== "object" || v instanceof Date || v instanceof RegExp) return v;
  if (Array.isArray(v)) return v.map(libFilter);
  const out = {};
  for (const k of Object.keys(v)) {
    if (k === "$comment") continue;
    out[k] = libFilter(v[k]);
  }
  if (typeof out.$regex === "string" && typeof out.$options === "string" && out.$options.includes("x")) {
    out.$regex = out.$regex.replace(/\s/g, "");
    out.$options = out.$options.replace(/x/g, "");
  }
  return out;
}

// The counterfactual behind the "elemmatch-filter-on-non-documents" rule:
// {$elemMatch: <query document>} ignores scalar elements in MongoDB, so
// removing them from the arrays it looks at leaves MongoDB's answer
// unchanged — provided no other condition of the filter reads those arrays.
// When that holds, the libraries are also asked about that document, and
// diff_query.py accepts a disagreement only if their answer there equals
// docext's.
function leafPaths(f, out) {
  for (const k of Object.keys(f)) {
    if (k === "$and" || k === "$or" || k === "$nor") { f[k].forEach((g) => leafPaths(g, out)); continue; }
    if (k[0] === "$") continue;
    const v = f[k];
    const ops = v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date) &&
      !(v instanceof RegExp) && Object.keys(v).length && Object.keys(v)[0][0] === "$" ? v : null;
    const em = ops && ((ops.$elemMatch && isQueryDoc(ops.$elemMatch)) ||
      (Array.isArray(ops.$all) && ops.$all.some((x) => x && x.$elemMatch)));
    out.push({ path: k, elemObj: !!em, only: !!em && Object.keys(ops).length === 1 });
  }
  return out;
}
function isQueryDoc(q) {
  const ks = Object.keys(q);
  return !ks.length || ks[0][0] !== "$" || ["$and", "$or", "$nor"].includes(ks[0]);
}
function dropScalars(v, parts, i) {
  if (Array.isArray(v)) {
    if (i === parts.length) {
      return v.filter((el) => el && typeof el === "object" && !(el instanceof Date));
    }
    return v.map((el) => dropScalars(el, parts, i));
  }
  if (i < parts.length && v && typeof v === "object" && !(v instanceof Date) && parts[i] in v) {
    return Object.assign({}, v, { [parts[i]]: dropScalars(v[parts[i]], parts, i + 1) });
  }
  return v;
}
function noScalarDoc(d, f) {
  const leaves = leafPaths(f, []);
  const em = leaves.filter((l) => l.elemObj);
  if (!em.length) return null;
  for (const l of em) {
    if (!l.only) return null;
    for (const o of leaves) {
      if (o === l) continue;
      if (o.path === l.path || o.path.startsWith(l.path + ".") || l.path.startsWith(o.path + ".")) return null;
    }
  }
  let d2 = d;
  for (const l of em) d2 = dropScalars(d2, l.path.split("."), 0);
  return d2;
}

const lines = [];
for (let i = 0; i < N; i++) {
  docPaths = [];
  docValues = [];
  const d = doc(0);
  collect(d, "");
  curDoc = d;
  const f = filter(0);
  const fl = libFilter(f);
  const m = evaluate(() => new mingo.Query(fl).test(d));
  const s = evaluate(() => sift(fl)(d));
  const rec = { i, doc: shell(d), filter: shell(f), mingo: m, sift: s };
  const d2 = noScalarDoc(d, f);
  if (d2) {
    rec.mingo_noscalars = evaluate(() => new mingo.Query(fl).test(d2));
    rec.sift_noscalars = evaluate(() => sift(fl)(d2));
  }
  lines.push(JSON.stringify(rec));
}
fs.writeFileSync(out, lines.join("\n") + "\n");
