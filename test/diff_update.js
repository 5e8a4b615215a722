// test/diff_update.js — the generating half of the differential update test
// (test/diff_update.sh runs it, then test/diff_update.py).
//
//   node test/diff_update.js OUT.jsonl [N] [SEED]
//
// Generates N seeded random (document, update[, arrayFilters]) cases —
// nested documents, arrays of scalars and of documents, mixed types,
// missing fields; updates of one to three operators (all of MongoDB's, and
// $pushAll) over paths that exist, that do not, that cross arrays by index,
// with $[] and $[<id>], or with the positional $ and a query — applies
// each with mingo's update() and with @seald-io/nedb's model.modify(), and
// writes one JSON line per case:
//   {"i": n, "doc": "<shell text>", "update": "<shell text>",
//    "options": "<shell text>" | null, "query": <query for $> | null,
//    "ops": ["$set", ...],
//    "docj": <document>, "updj": <update>,
//    "mingo": <result> | "E: message", "nedb": <result> | "E: message"}
// Results are JSON with dates as {"$date": ms}. Values are restricted to
// what JavaScript represents without loss: small integers and halves (so an
// int32 never overflows and no double is inexact), no int64 or decimal, no
// NaN; docext's int/double distinction is compared by value.
"use strict";
const fs = require("fs");
const path = require("path");

// $currentDate: every library and docext read one frozen clock (the
// checker freezes docext's with doc_config('clock', ...) at the same time).
const FROZEN_NOW = Date.UTC(2013, 2, 1);
const RealDate = Date;
global.Date = class FrozenDate extends RealDate {
  constructor(...a) { if (a.length === 0) super(FROZEN_NOW); else super(...a); }
  static now() { return FROZEN_NOW; }
};

const modDir = process.env.DIFF_NODE_MODULES ||
  path.join(__dirname, "..", "build", "diffu", "node_modules");
const mingo = require(path.join(modDir, "mingo"));
const nedbModel = require(path.join(modDir, "@seald-io", "nedb", "lib", "model.js"));

const out = process.argv[2];
const N = parseInt(process.argv[3] || "3000", 10);
const SEED = parseInt(process.argv[4] || "20240602", 10);

// seeded, so a run is reproducible
const { rnd, int, pick, chance } = require("./lib_rng.js")(SEED);

const KEYS = ["a", "b", "c", "d"];
const SUBKEYS = ["x", "y", "z"];
const STRINGS = ["", "a", "ab", "b", "B", "x y"];
const DATES = [new Date("2020-01-01T00:00:00Z"), new Date("2021-06-15T12:00:00Z")];
const NUMS = [-3, -1, 0, 1, 2, 3, 5, 7, 1.5, -0.5, 2.5, 12];

function scalar() {
  switch (int(9)) {
    case 0: case 1: case 2: case 3: return pick(NUMS);
    case 4: case 5: return pick(STRINGS);
    case 6: return chance(0.5);
    case 7: return null;
    default: return pick(DATES);
  }
}

function value(depth) {
  const r = int(10);
  if (depth >= 3 || r < 5) return scalar();
  if (r < 7) return subdoc(depth + 1);
  return arr(depth + 1);
}

function arr(depth) {
  const n = int(5);
  const a = [];
  const kind = int(3);           // 0: scalars, 1: documents, 2: mixed
  for (let i = 0; i < n; i++) {
    if (kind === 0) a.push(chance(0.9) ? scalar() : (depth < 3 ? arr(depth + 1) : scalar()));
    else if (kind === 1) a.push(subdoc(depth + 1));
    else a.push(value(depth));
  }
  return a;
}

function subdoc(depth) {
  const d = {};
  const n = int(3) + (depth <= 1 ? 1 : 0);
  for (let i = 0; i < n; i++) d[pick(SUBKEYS)] = value(depth);
  return d;
}

function topdoc() {
  const d = { _id: 1 };
  for (const k of KEYS) if (chance(0.7)) d[k] = value(1);
  return d;
}

// Paths of a document: existing ones (with indexes into arrays), and new.
function paths(doc) {
  const found = [];
  function walk(v, p, depth) {
    if (depth > 3) return;
    if (Array.isArray(v)) {
      v.forEach((e, i) => { found.push(p + "." + i); walk(e, p + "." + i, depth + 1); });
    } else if (v && typeof v === "object" && !(v instanceof Date)) {
      for (const k of Object.keys(v)) { found.push(p + "." + k); walk(v[k], p + "." + k, depth + 1); }
    }
  }
  for (const k of Object.keys(doc)) {
    if (k === "_id") continue;
    found.push(k);
    walk(doc[k], k, 1);
  }
  return found;
}

function randomPath(doc) {
  const p = paths(doc);
  const r = int(10);
  if (p.length && r < 6) return pick(p);
  if (r < 8) return pick(KEYS) + (chance(0.5) ? "." + pick(SUBKEYS) : "");
  if (p.length && r < 9) return pick(p) + "." + pick(SUBKEYS.concat(["0", "1", "3"]));
  return pick(["e", "e.f", "a.0", "b.1.x", "c.2"]);
}

// A path that does not exist yet.
function newPath(doc) {
  const free = KEYS.filter((k) => !(k in doc));
  return free.length && chance(0.5) ? pick(free) + (chance(0.3) ? "." + pick(SUBKEYS) : "")
                                    : pick(["e", "e.f", "f", "g.h"]);
}

// Paths that end at a value of a kind (arrays for the array operators,
// numbers for $inc and $mul, integers for $bit), mostly; sometimes a new
// path, sometimes any path.
function pathOf(doc, test) {
  const p = paths(doc).filter((q) => test(get(doc, q)));
  if (p.length && chance(0.75)) return pick(p);
  return chance(0.6) ? newPath(doc) : randomPath(doc);
}
const arrayPath = (doc) => pathOf(doc, Array.isArray);
const numberPath = (doc) => pathOf(doc, (v) => typeof v === "number");
const intPath = (doc) => pathOf(doc, (v) => Number.isInteger(v));

function get(doc, p) {
  let v = doc;
  for (const c of p.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = v[c];
  }
  return v;
}

function numArg() { return pick([1, 2, -1, 0, 1.5, -2, 3]); }

// $push's $sort by fields: one or two, sometimes dotted (x.y: the field of
// an embedded document; never through an array but by index).
function sortFields() {
  const o = {};
  const n = chance(0.7) ? 1 : 2;
  for (let i = 0; i < n; i++) {
    o[pick(SUBKEYS) + (chance(0.25) ? "." + pick(SUBKEYS.concat(["0"])) : "")] = pick([1, -1]);
  }
  return o;
}

function pushArg() {
  if (chance(0.4)) return value(2);
  const m = { $each: Array.from({ length: int(4) }, () => (chance(0.5) ? scalar() : subdoc(2))) };
  if (chance(0.3)) m.$position = pick([0, 1, -1, 5, -5]);
  if (chance(0.4)) m.$sort = chance(0.6) ? pick([1, -1]) : sortFields();
  if (chance(0.4)) m.$slice = pick([0, 1, 2, -1, -2, 10]);
  // the modifiers in a random order: MongoDB applies them in its own
  const keys = Object.keys(m).sort(() => rnd() - 0.5);
  const o = {};
  for (const k of keys) o[k] = m[k];
  return o;
}

function pullArg() {
  switch (int(5)) {
    case 0: return scalar();
    case 1: return { $gte: pick(NUMS) };
    case 2: return { $in: [scalar(), scalar()] };
    case 3: return { [pick(SUBKEYS)]: scalar() };
    default: return { [pick(SUBKEYS)]: { $gt: pick(NUMS) } };
  }
}

const OPS = ["$set", "$set", "$unset", "$inc", "$mul", "$min", "$max", "$rename", "$push",
  "$push", "$addToSet", "$pop", "$pull", "$pull", "$pullAll", "$bit", "$positional",
  "$setOnInsert", "$pushAll", "$currentDate", "$first"];

const SKIP = {};

// Do two paths conflict (one is the other, or a prefix of it)?
function clash(p, q) {
  return p === q || p.startsWith(q + ".") || q.startsWith(p + ".");
}

// An update of one to three operators; returns {update, filters}. Paths
// that conflict with one already chosen are mostly avoided (a tenth are
// kept, to test the conflict errors).
function randomUpdate(doc) {
  const u = {};
  const used = [];
  let filters = null;
  let query = null;
  const keepClash = chance(0.1);
  const fresh = (gen) => {
    let p = gen();
    for (let k = 0; k < 20 && !keepClash && used.some((q) => clash(p, q)); k++) p = gen();
    if (!keepClash && used.some((q) => clash(p, q))) throw SKIP;
    used.push(p);
    return p;
  };
  const nOp = 1 + int(3);
  for (let i = 0; i < nOp; i++) {
    let op = pick(OPS);
    if (op === "$first") {
      // the positional $: the first element the query matches, an element
      // equal to a scalar of the array or a document element by one field
      if (query) continue;
      const p = paths(doc).filter((q) => !/\.[0-9]/.test(q) && Array.isArray(get(doc, q))
                                    && get(doc, q).length);
      if (!p.length) continue;
      let base;
      try { base = fresh(() => pick(p)); } catch (e) { if (e !== SKIP) throw e; continue; }
      const elem = pick(get(doc, base));
      const isDoc = (v) => v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
      let target = base + ".$";
      if (isDoc(elem)) {
        const ks = Object.keys(elem).filter((k) => elem[k] !== null && !Array.isArray(elem[k])
                                                  && !isDoc(elem[k]));
        if (!ks.length) continue;
        const k = pick(ks);
        query = { [base + "." + k]: elem[k] };
        if (chance(0.7)) target += "." + pick(SUBKEYS);
      } else if (Array.isArray(elem) || elem === null) {
        continue;                  // (null would also match missing fields)
      } else {
        query = { [base]: elem };
      }
      op = pick(["$set", "$inc", "$unset", "$max", "$min"]);
      u[op] = u[op] || {};
      u[op][target] = op === "$inc" ? numArg() : op === "$unset" ? "" : scalar();
      continue;
    }
    if (op === "$positional") {
      // $[] or $[e] over an array of the document
      const p = paths(doc).filter((q) => Array.isArray(get(doc, q)));
      if (!p.length) continue;
      let base;
      try { base = fresh(() => pick(p)); } catch (e) { if (e !== SKIP) throw e; continue; }
      const arrv = get(doc, base);
      const docs = arrv.some((e) => e && typeof e === "object" && !Array.isArray(e) && !(e instanceof Date));
      let target;
      if (chance(0.5)) {
        target = base + ".$[]";
      } else {
        target = base + ".$[e]";
        filters = docs && chance(0.6) ? [{ ["e." + pick(SUBKEYS)]: { $gte: pick(NUMS) } }]
                                      : [{ e: pick([{ $gte: pick(NUMS) }, { $type: "string" }, scalar()]) }];
      }
      if (docs && chance(0.7)) target += "." + pick(SUBKEYS);
      op = pick(["$set", "$inc", "$unset", "$max"]);
      u[op] = u[op] || {};
      u[op][target] = op === "$inc" ? numArg() : op === "$unset" ? "" : scalar();
      continue;
    }
    const nPath = 1 + (chance(0.3) ? 1 : 0);
    for (let j = 0; j < nPath; j++) {
      let p, v;
      try {
      switch (op) {
        case "$set": case "$min": case "$max": case "$setOnInsert":
          p = fresh(() => randomPath(doc)); v = value(2); break;
        case "$currentDate":
          p = fresh(() => randomPath(doc)); v = pick([true, { $type: "date" }]); break;
        case "$pushAll":
          p = fresh(() => arrayPath(doc));
          v = Array.from({ length: int(3) }, () => (chance(0.6) ? scalar() : subdoc(2)));
          break;
        case "$unset": p = fresh(() => randomPath(doc)); v = ""; break;
        case "$inc": case "$mul": p = fresh(() => numberPath(doc)); v = numArg(); break;
        case "$rename":
          p = fresh(() => randomPath(doc));
          v = fresh(() => pick(KEYS.concat(["e", "f.g", "a.x"])));
          break;
        case "$push": p = fresh(() => arrayPath(doc)); v = pushArg(); break;
        case "$addToSet":
          p = fresh(() => arrayPath(doc));
          v = chance(0.4) ? { $each: [scalar(), scalar(), scalar()] } : value(2);
          break;
        case "$pop": p = fresh(() => arrayPath(doc)); v = pick([1, -1]); break;
        case "$pull": p = fresh(() => arrayPath(doc)); v = pullArg(); break;
        case "$pullAll": p = fresh(() => arrayPath(doc)); v = [scalar(), scalar()]; break;
        case "$bit":
          p = fresh(() => intPath(doc));
          v = { [pick(["and", "or", "xor"])]: pick([1, 2, 5, 12]) };
          break;
      }
      } catch (e) {
        if (e !== SKIP) throw e;
        continue;                  // no path left that would not conflict
      }
      u[op] = u[op] || {};
      u[op][p] = v;
    }
  }
  if (Object.keys(u).length === 0) u.$set = { a: 1 };
  // an arrayFilters identifier must be used: drop filters nobody uses
  if (filters && !JSON.stringify(u).includes("$[e]")) filters = null;
  return { update: u, filters, query };
}

// Shell text that docext parses back to the same values (numbers: an
// integer is an int32, anything else a double).
function shell(v) {
  if (v === null) return "null";
  if (v instanceof Date) return 'ISODate("' + v.toISOString() + '")';
  if (Array.isArray(v)) return "[" + v.map(shell).join(", ") + "]";
  if (typeof v === "object") {
    return "{" + Object.keys(v).map((k) => JSON.stringify(k) + ": " + shell(v[k])).join(", ") + "}";
  }
  if (typeof v === "number") {
    if (Object.is(v, -0)) return "-0.0";
    return Number.isInteger(v) ? String(v) : String(v);
  }
  return JSON.stringify(v);
}

// Results as JSON: dates as {"$date": ms}, -0 kept apart from 0.
function plain(v) {
  if (v === null || v === undefined) return v === null ? null : { $undefined: true };
  if (v instanceof Date) return { $date: v.getTime() };
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) o[k] = plain(v[k]);
    return o;
  }
  if (typeof v === "number" && Object.is(v, -0)) return { $negzero: true };
  return v;
}

function clone(v) {
  if (v instanceof Date) return new Date(v.getTime());
  if (Array.isArray(v)) return v.map(clone);
  if (v && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) o[k] = clone(v[k]);
    return o;
  }
  return v;
}

function runMingo(doc, update, filters, query) {
  try {
    const d = clone(doc);
    mingo.update(d, clone(update), filters ? clone(filters) : undefined,
                 query ? clone(query) : undefined);
    return plain(d);
  } catch (e) {
    return "E: " + String(e && e.message).slice(0, 200);
  }
}

function runNedb(doc, update, filters, query) {
  if (filters || JSON.stringify(update).includes("$[")) return "E: unsupported ($[])";
  if (query) return "E: unsupported ($)";
  try {
    return plain(nedbModel.modify(clone(doc), clone(update)));
  } catch (e) {
    return "E: " + String(e && e.message).slice(0, 200);
  }
}

const lines = [];
for (let i = 0; i < N; i++) {
  const doc = topdoc();
  const { update, filters, query } = randomUpdate(doc);
  const options = {};
  if (filters) options.arrayFilters = filters;
  if (query) options.query = query;
  lines.push(JSON.stringify({
    i,
    doc: shell(doc),
    update: shell(update),
    options: Object.keys(options).length ? shell(options) : null,
    query: query ? plain(query) : null,
    ops: Object.keys(update),
    docj: plain(doc),
    updj: plain(update),
    mingo: runMingo(doc, update, filters, query),
    nedb: runNedb(doc, update, filters, query),
  }));
}
fs.writeFileSync(out, lines.join("\n") + "\n");
