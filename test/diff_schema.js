// test/diff_schema.js — the generating half of the differential $jsonSchema
// test (test/diff_schema.sh runs this, then test/diff_schema.py).
//
//   DIFF_NODE_MODULES=dir node test/diff_schema.js OUT.jsonl CASES SEED
//
// Writes CASES random (schema, document) pairs, each with the answer of
// ajv, an independent JSON Schema validator, in its draft 4 mode: one JSON
// line {"schema": …, "doc": …, "valid": true|false}.
//
// The schemas keep to what MongoDB and standard draft 4 agree on (MongoDB's
// $jsonSchema is draft 4 with its own rules; docs.mongodb.com, "$jsonSchema",
// "Omissions" and "Extensions"), so ajv's answer is MongoDB's:
//   - "type" names JSON types, never "integer" (MongoDB refuses it);
//   - documents are JSON objects (MongoDB matches only objects at the top);
//   - multipleOf divides whole numbers only (ajv divides doubles, MongoDB
//     decimals: 0.3 is a multiple of 0.1 to MongoDB only);
//   - enum, required and the logical keywords' lists are never empty and
//     never repeat themselves (errors to MongoDB);
//   - strings are ASCII, and patterns are regexes that JavaScript and PCRE2
//     read alike.
'use strict';
const fs = require('fs');
const path = require('path');

const mods = process.env.DIFF_NODE_MODULES;
const Ajv = require(path.join(mods, 'ajv-draft-04'));
const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: false });

const [, , outFile, nCases, seedArg] = process.argv;
let seed = (Number(seedArg) >>> 0) || 1;

// xorshift32: the same cases for the same seed
function rnd(n) {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed % n;
}
function pick(a) { return a[rnd(a.length)]; }
function chance(p) { return rnd(1000) < p * 1000; }

const NAMES = ['a', 'b', 'c', 'k1', 'k2', 'x'];
const STRINGS = ['', 'a', 'ab', 'abc', 'b', 'ba', 'xyz', 'a1', '10', 'aab'];
const PATTERNS = ['^a', 'b$', 'a.c', '^[0-9]+$', '^(ab)*$', 'x|y', '^.{2}$', '[abc]{2}'];
const TYPES = ['null', 'boolean', 'object', 'array', 'number', 'string'];

function genValue(depth) {
  switch (rnd(depth > 2 ? 5 : 8)) {
    case 0: return rnd(21) - 5;
    case 1: return pick([0.5, 1.5, -2.5, 3.25, 100, 7]);
    case 2: return pick(STRINGS);
    case 3: return pick([true, false]);
    case 4: return null;
    case 5: case 6: {
      const a = [];
      for (let i = rnd(4); i > 0; i--) a.push(genValue(depth + 1));
      return a;
    }
    default: return genObject(depth + 1);
  }
}
function genObject(depth) {
  const o = {};
  for (let i = rnd(4); i > 0; i--) o[pick(NAMES)] = genValue(depth);
  return o;
}

function distinct(gen, n) {
  const out = [];
  const seen = new Set();
  for (let tries = 0; out.length < n && tries < 20; tries++) {
    const v = gen();
    const k = JSON.stringify(canon(v));
    if (!seen.has(k)) { seen.add(k); out.push(v); }
  }
  return out;
}
// a key for equality with fields in any order and 1 == 1.0
function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) o[k] = canon(v[k]);
    return o;
  }
  return v;
}

function genSchema(depth) {
  const s = {};
  const n = depth > 2 ? rnd(2) + 1 : rnd(4) + 1;
  for (let i = 0; i < n; i++) {
    switch (rnd(depth > 2 ? 14 : 20)) {
      case 0:
        s.type = chance(0.7) ? pick(TYPES) : distinct(() => pick(TYPES), rnd(2) + 2);
        break;
      case 1: s.minimum = rnd(11) - 3; if (chance(0.3)) s.exclusiveMinimum = chance(0.5); break;
      case 2: s.maximum = rnd(11) - 3; if (chance(0.3)) s.exclusiveMaximum = chance(0.5); break;
      case 3: s.multipleOf = rnd(4) + 1; break;
      case 4: s.minLength = rnd(4); break;
      case 5: s.maxLength = rnd(4); break;
      case 6: s.pattern = pick(PATTERNS); break;
      case 7: s.enum = distinct(() => genValue(2), rnd(3) + 1); break;
      case 8: s.required = distinct(() => pick(NAMES), rnd(2) + 1); break;
      case 9: s.minProperties = rnd(4); break;
      case 10: s.maxProperties = rnd(4); break;
      case 11: s.minItems = rnd(3); break;
      case 12: s.maxItems = rnd(3); break;
      case 13: s.uniqueItems = chance(0.8); break;
      case 14: {
        const p = {};
        for (let j = rnd(3) + 1; j > 0; j--) p[pick(NAMES)] = genSchema(depth + 1);
        s.properties = p;
        break;
      }
      case 15:
        s.additionalProperties = chance(0.5) ? chance(0.5) : genSchema(depth + 1);
        if (chance(0.5)) s.patternProperties = { [pick(['^k', 'b', '^[ax]$'])]: genSchema(depth + 1) };
        break;
      case 16:
        if (chance(0.5)) {
          s.items = genSchema(depth + 1);
        } else {
          s.items = [];
          for (let j = rnd(3) + 1; j > 0; j--) s.items.push(genSchema(depth + 1));
          if (chance(0.6)) s.additionalItems = chance(0.5) ? chance(0.5) : genSchema(depth + 1);
        }
        break;
      case 17: {
        const d = {};
        const k = pick(NAMES);
        d[k] = chance(0.5) ? distinct(() => pick(NAMES), rnd(2) + 1) : genSchema(depth + 1);
        s.dependencies = d;
        break;
      }
      case 18: {
        const kw = pick(['allOf', 'anyOf', 'oneOf']);
        s[kw] = [];
        for (let j = rnd(3) + 1; j > 0; j--) s[kw].push(genSchema(depth + 1));
        break;
      }
      default: s.not = genSchema(depth + 1); break;
    }
  }
  return s;
}

// The documents: random, or made to fit the schema's properties more often
// than chance would.
function genDoc(schema) {
  const d = genObject(0);
  if (schema.properties && chance(0.7)) {
    for (const k of Object.keys(schema.properties)) if (chance(0.7)) d[k] = genValue(1);
  }
  return d;
}

const lines = [];
for (let i = 0; i < Number(nCases); i++) {
  const schema = genSchema(0);
  const doc = genDoc(schema);
  let valid;
  try {
    valid = ajv.validate(schema, doc);
  } catch (e) {
    continue;                    // a schema ajv cannot compile: not a case
  }
  lines.push(JSON.stringify({ schema, doc, valid }));
}
fs.writeFileSync(outFile, lines.join('\n') + '\n');
