/*
** test_project.c — projections and sort keys (docext_project.c).
**
** Projection cases are (document, projection, iPos, expected) in mongo
** shell text; the expected text is either the projected document (compared
** byte for byte as BSON, so types and field order count) or an error
** message, which must match exactly. Sort cases are (documents, sort,
** expected order): the documents are ordered by memcmp() of their
** docextSortKey() keys, ties kept in input order. Then hostile inputs.
** Ends with "N passed, M failed"; exits non-zero on failure.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>

static int nPass = 0, nFail = 0;

static void check(int bOk, const char *zWhat){
  if( bOk ){ nPass++; }
  else{ nFail++; printf("FAIL: %s\n", zWhat); }
}

/* Parse shell text into b (reset first); exits on a parse error, since
** that is a mistake in the test itself. */
static void parse(const char *z, DocBuf *b){
  int nUsed = 0;
  char *zErr = 0;
  docextBufReset(b);
  if( docextJsonParse(z, (int)strlen(z), 1, b, &nUsed, &zErr)!=SQLITE_OK ){
    printf("test bug: cannot parse %s: %s\n", z, zErr);
    exit(2);
  }
}

/* Shell text of a document, in a static buffer. */
static const char *show(const u8 *aDoc){
  static char zOut[4][2000];
  static int iOut = 0;
  DocBuf o;
  int rc = SQLITE_OK;
  char *z = zOut[iOut++ % 4];
  memset(&o, 0, sizeof(o));
  docextJsonWriteDoc(&rc, &o, aDoc, DOCEXT_JSON_RELAXED);
  docextBufAppendByte(&rc, &o, 0);
  snprintf(z, 2000, "%s", rc==SQLITE_OK ? (const char*)o.a : "(oom)");
  docextBufFree(&o);
  return z;
}

/*------------------------------------------------------------------------
** Projections
*/

typedef struct ProjCase ProjCase;
struct ProjCase {
  const char *zDoc;
  const char *zProj;
  int iPos;
  const char *zExpect;     /* document, or "docext: ..." error */
};

static const ProjCase aProj[] = {
  /* Inclusion, exclusion, _id */
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: 1}", -1,
    "{_id: 1, title: 'T'}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: 1, _id: 0}", -1,
    "{title: 'T'}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{_id: 0, title: 1}", -1,
    "{title: 'T'}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{_id: 0}", -1,
    "{title: 'T', author: 'A', year: 2000}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{author: 0}", -1,
    "{_id: 1, title: 'T', year: 2000}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{author: 0, _id: 0}", -1,
    "{title: 'T', year: 2000}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{author: 0, _id: 1}", -1,
    "{_id: 1, title: 'T', year: 2000}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{_id: 1}", -1,
    "{_id: 1}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{}", -1,
    "{_id: 1, title: 'T', author: 'A', year: 2000}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: true}", -1,
    "{_id: 1, title: 'T'}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: -1}", -1,
    "{_id: 1, title: 'T'}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: 0.5}", -1,
    "{_id: 1, title: 'T'}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: NumberLong(7)}", -1,
    "{_id: 1, title: 'T'}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: NumberDecimal('1')}", -1,
    "{_id: 1, title: 'T'}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: false}", -1,
    "{_id: 1, author: 'A', year: 2000}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: 0.0}", -1,
    "{_id: 1, author: 'A', year: 2000}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: NumberLong(0)}", -1,
    "{_id: 1, author: 'A', year: 2000}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{title: NumberDecimal('0.00')}", -1,
    "{_id: 1, author: 'A', year: 2000}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{missing: 1}", -1,
    "{_id: 1}" },
  { "{_id: 1, title: 'T', author: 'A', year: 2000}", "{missing: 0}", -1,
    "{_id: 1, title: 'T', author: 'A', year: 2000}" },
  /* Output follows the document's order, not the projection's. */
  { "{a: 1, b: 2, c: 3}", "{c: 1, a: 1}", -1, "{a: 1, c: 3}" },
  { "{x: 1, _id: 2, y: 3}", "{y: 1}", -1, "{_id: 2, y: 3}" },
  { "{x: 1, _id: 2, y: 3}", "{x: 1}", -1, "{x: 1, _id: 2}" },
  { "{title: 'no id'}", "{title: 1}", -1, "{title: 'no id'}" },
  /* Mixing */
  { "{a: 1}", "{title: 1, author: 0}", -1,
    "docext: cannot mix inclusion and exclusion in projection at 'author'" },
  { "{a: 1}", "{author: 0, title: 1}", -1,
    "docext: cannot mix inclusion and exclusion in projection at 'title'" },
  { "{a: 1}", "{'a.b': 0, 'c.d': 1}", -1,
    "docext: cannot mix inclusion and exclusion in projection at 'c.d'" },
  { "{a: 1}", "{a: {b: 1, c: 0}}", -1,
    "docext: cannot mix inclusion and exclusion in projection at 'a.c'" },
  { "{_id: 5, a: {x: 1, y: 2}}", "{'_id.x': 1, a: 0}", -1,
    "docext: cannot mix inclusion and exclusion in projection at 'a'" },
  /* Nested paths */
  { "{_id: 1, publisher: {name: 'P', city: 'C'}, x: 1}", "{'publisher.name': 1}", -1,
    "{_id: 1, publisher: {name: 'P'}}" },
  { "{_id: 1, publisher: {name: 'P', city: 'C'}, x: 1}", "{publisher: {name: 1}}", -1,
    "{_id: 1, publisher: {name: 'P'}}" },
  { "{_id: 1, publisher: {name: 'P', city: 'C'}, x: 1}", "{'publisher.name': 0}", -1,
    "{_id: 1, publisher: {city: 'C'}, x: 1}" },
  { "{_id: 1, publisher: {name: 'P', city: 'C'}, x: 1}", "{publisher: {name: false}}", -1,
    "{_id: 1, publisher: {city: 'C'}, x: 1}" },
  { "{a: {b: {c: 1, d: 2}, e: 3}, f: 4}", "{'a.b.c': 1, f: 1}", -1,
    "{a: {b: {c: 1}}, f: 4}" },
  { "{a: {b: {c: 1, d: 2}, e: 3}, f: 4}", "{a: {b: {d: 1}, e: 1}}", -1,
    "{a: {b: {d: 2}, e: 3}}" },
  { "{a: {b: {c: 1, d: 2}, e: 3}, f: 4}", "{'a.b.c': 0, 'a.e': 0}", -1,
    "{a: {b: {d: 2}}, f: 4}" },
  { "{a: {c: 1}}", "{'a.b': 1}", -1, "{a: {}}" },
  { "{a: 5, z: 1}", "{'a.b': 1}", -1, "{}" },
  { "{a: 5, z: 1}", "{'a.b': 0}", -1, "{a: 5, z: 1}" },
  { "{a: null}", "{'a.b': 1}", -1, "{}" },
  /* Through arrays */
  { "{a: [{b: 1, c: 2}, {c: 3}]}", "{'a.b': 1}", -1, "{a: [{b: 1}, {}]}" },
  { "{a: [1, {b: 2}, [{b: 3, c: 4}, 5], 'x']}", "{'a.b': 1}", -1,
    "{a: [{b: 2}, [{b: 3}]]}" },
  { "{a: [1, {b: 2, c: 3}, [{b: 4, c: 5}, 6]]}", "{'a.b': 0}", -1,
    "{a: [1, {c: 3}, [{c: 5}, 6]]}" },
  { "{a: []}", "{'a.b': 1}", -1, "{a: []}" },
  { "{a: [{b: [{c: 1, d: 2}, {c: 3}]}, {b: 7}]}", "{'a.b.c': 1}", -1,
    "{a: [{b: [{c: 1}, {c: 3}]}, {}]}" },
  { "{a: [{b: [{c: 1, d: 2}, {c: 3}]}, {b: 7}]}", "{'a.b.c': 0}", -1,
    "{a: [{b: [{d: 2}, {}]}, {b: 7}]}" },
  { "{a: [1, 2]}", "{a: 1}", -1, "{a: [1, 2]}" },
  { "{a: [{b: 1}]}", "{'a.0': 1}", -1, "{a: [{}]}" },
  /* Path collisions */
  { "{a: 1}", "{a: 1, 'a.b': 1}", -1, "docext: path collision at 'a.b' in projection" },
  { "{a: 1}", "{'a.b': 1, a: 1}", -1, "docext: path collision at 'a' in projection" },
  { "{a: 1}", "{'a.b': 1, a: {b: 1}}", -1, "docext: path collision at 'a.b' in projection" },
  { "{a: {b: 1, c: 2, d: 3}}", "{'a.b': 1, a: {c: 1}}", -1, "{a: {b: 1, c: 2}}" },
  { "{a: {b: 1, c: 2, d: 3}}", "{a: {c: 1}, 'a.b': 1}", -1, "{a: {b: 1, c: 2}}" },
  { "{a: 1}", "{comments: {$slice: 1}, 'comments.id': 1}", -1,
    "docext: path collision at 'comments.id' in projection" },
  /* $slice */
  { "{_id: 1, arr: [1, 2, 3, 4, 5], t: 'x'}", "{arr: {$slice: 2}}", -1,
    "{_id: 1, arr: [1, 2], t: 'x'}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: -2}}", -1, "{arr: [4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: 0}}", -1, "{arr: []}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: 100}}", -1, "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: -100}}", -1, "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: [1, 2]}}", -1, "{arr: [2, 3]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: [-2, 1]}}", -1, "{arr: [4]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: [-2, 10]}}", -1, "{arr: [4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: [-10, 2]}}", -1, "{arr: [1, 2]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: [10, 2]}}", -1, "{arr: []}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: [0, 5]}}", -1, "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: 2.9}}", -1, "{arr: [1, 2]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: -1.5}}", -1, "{arr: [5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: NumberLong(3)}}", -1, "{arr: [1, 2, 3]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: NumberDecimal('-1')}}", -1, "{arr: [5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: 2147483648}}", -1, "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: -2147483649}}", -1, "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: NumberLong('9223372036854775807')}}", -1,
    "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: NumberLong('-9223372036854775808')}}", -1,
    "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: 1e300}}", -1, "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: -1e300}}", -1, "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: Infinity}}", -1, "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: NaN}}", -1, "{arr: []}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: [-2147483648, 2147483647]}}", -1,
    "{arr: [1, 2, 3, 4, 5]}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: [2147483647, 2147483647]}}", -1,
    "{arr: []}" },
  { "{arr: [1, 2, 3, 4, 5]}", "{arr: {$slice: [3, 1e300]}}", -1, "{arr: [4, 5]}" },
  { "{arr: []}", "{arr: {$slice: -3}}", -1, "{arr: []}" },
  { "{arr: 5, b: {c: 1}}", "{arr: {$slice: 1}, b: {$slice: 1}}", -1, "{arr: 5, b: {c: 1}}" },
  { "{x: 1}", "{arr: {$slice: 1}}", -1, "{x: 1}" },
  { "{_id: 1, title: 'T', arr: [1, 2, 3]}", "{title: 1, arr: {$slice: 1}}", -1,
    "{_id: 1, title: 'T', arr: [1]}" },
  { "{_id: 1, title: 'T', arr: [1, 2, 3]}", "{title: 0, arr: {$slice: -1}}", -1,
    "{_id: 1, arr: [3]}" },
  { "{_id: 1, title: 'T', arr: [1, 2, 3]}", "{_id: 0, arr: {$slice: 1}}", -1,
    "{title: 'T', arr: [1]}" },
  { "{_id: 1, title: 'T', arr: [1, 2, 3]}", "{_id: 1, arr: {$slice: 1}}", -1,
    "{_id: 1, title: 'T', arr: [1]}" },
  { "{_id: 7, item: 'socks', qty: 100, details: {colors: ['blue', 'red'], sizes: ['S', 'M', 'L']}}",
    "{qty: 1, 'details.colors': {$slice: 1}}", -1,
    "{_id: 7, qty: 100, details: {colors: ['blue']}}" },
  { "{_id: 7, item: 'socks', qty: 100, details: {colors: ['blue', 'red'], sizes: ['S', 'M', 'L']}}",
    "{'details.colors': {$slice: 1}}", -1,
    "{_id: 7, item: 'socks', qty: 100, details: {colors: ['blue'], sizes: ['S', 'M', 'L']}}" },
  { "{_id: 7, item: 'socks', qty: 100, details: {colors: ['blue', 'red'], sizes: ['S', 'M', 'L']}}",
    "{details: {colors: {$slice: -1}}}", -1,
    "{_id: 7, item: 'socks', qty: 100, details: {colors: ['red'], sizes: ['S', 'M', 'L']}}" },
  { "{a: [{b: [1, 2, 3]}, {b: [4, 5]}, 7, {c: 1}]}", "{'a.b': {$slice: 1}}", -1,
    "{a: [{b: [1]}, {b: [4]}, 7, {c: 1}]}" },
  { "{a: [{b: [1, 2, 3]}, {b: [4, 5]}, 7, {c: 1}]}", "{'a.b': {$slice: 1}, z: 1}", -1,
    "{a: [{b: [1]}, {b: [4]}, {}]}" },
  { "{arr: [[1, 2], [3, 4], [5]]}", "{arr: {$slice: -1}}", -1, "{arr: [[5]]}" },
  /* an array nested directly in an array on the way is left as it is by
  ** $slice (MongoDB's applyFindSliceProjectionToArray), while inclusion
  ** and exclusion still go into it */
  { "{a: [[{b: [1, 2, 3]}], {b: [4, 5]}, 7]}", "{'a.b': {$slice: 1}}", -1,
    "{a: [[{b: [1, 2, 3]}], {b: [4]}, 7]}" },
  { "{a: [[{b: [1, 2, 3], c: 0}], {b: [4, 5]}, 7]}", "{'a.b': {$slice: 1}, z: 1}", -1,
    "{a: [[{b: [1, 2, 3]}], {b: [4]}]}" },
  { "{a: [[{b: [1, 2], c: 1}], {b: [3, 4], c: 2}]}", "{'a.b': {$slice: 1}, 'a.c': 0}", -1,
    "{a: [[{b: [1, 2]}], {b: [3]}]}" },
  { "{a: [[[{b: [1, 2]}]], {b: [3, 4]}]}", "{'a.b': {$slice: -1}}", -1,
    "{a: [[[{b: [1, 2]}]], {b: [4]}]}" },
  { "{a: 1}", "{arr: {$slice: [1, 0]}}", -1,
    "docext: $slice limit must be positive in projection at 'arr'" },
  { "{a: 1}", "{arr: {$slice: [1, -1]}}", -1,
    "docext: $slice limit must be positive in projection at 'arr'" },
  { "{a: 1}", "{arr: {$slice: 'x'}}", -1,
    "docext: $slice needs a number or an array [skip, limit] in projection at 'arr'" },
  { "{a: 1}", "{arr: {$slice: [1]}}", -1,
    "docext: $slice needs a number or an array [skip, limit] in projection at 'arr'" },
  { "{a: 1}", "{arr: {$slice: [1, 2, 3]}}", -1,
    "docext: $slice needs a number or an array [skip, limit] in projection at 'arr'" },
  { "{a: 1}", "{arr: {$slice: [1, 'a']}}", -1,
    "docext: $slice needs a number or an array [skip, limit] in projection at 'arr'" },
  { "{a: 1}", "{arr: {$slice: null}}", -1,
    "docext: $slice needs a number or an array [skip, limit] in projection at 'arr'" },
  { "{a: 1}", "{'x.arr': {$slice: {}}}", -1,
    "docext: $slice needs a number or an array [skip, limit] in projection at 'x.arr'" },
  { "{a: 1}", "{arr: {$slice: 1, $elemMatch: {a: 1}}}", -1,
    "docext: $slice must be the only key of its document in projection at 'arr'" },
  { "{a: 1}", "{arr: {$slice: 1, b: 1}}", -1,
    "docext: $slice must be the only key of its document in projection at 'arr'" },
  /* $elemMatch */
  { "{_id: 1, zipcode: '63109', students: [{name: 'john', school: 102, age: 10},"
    " {name: 'jess', school: 102, age: 11}, {name: 'jeff', school: 108, age: 15}]}",
    "{students: {$elemMatch: {school: 102}}}", -1,
    "{_id: 1, students: [{name: 'john', school: 102, age: 10}]}" },
  { "{_id: 1, zipcode: '63109', students: [{name: 'john', school: 102, age: 10},"
    " {name: 'jess', school: 102, age: 11}, {name: 'jeff', school: 108, age: 15}]}",
    "{students: {$elemMatch: {school: 102, age: {$gt: 10}}}}", -1,
    "{_id: 1, students: [{name: 'jess', school: 102, age: 11}]}" },
  { "{_id: 1, zipcode: '63109', students: [{name: 'john', school: 102, age: 10}]}",
    "{students: {$elemMatch: {school: 999}}}", -1, "{_id: 1}" },
  { "{_id: 1, zipcode: '63109', students: [{name: 'john', school: 102, age: 10}]}",
    "{students: {$elemMatch: {school: 102}}, zipcode: 1, _id: 0}", -1,
    "{zipcode: '63109', students: [{name: 'john', school: 102, age: 10}]}" },
  { "{_id: 1, scores: [1, 7, 3, 9]}", "{scores: {$elemMatch: {$gte: 5}}}", -1,
    "{_id: 1, scores: [7]}" },
  { "{_id: 1, scores: [1, 7, 3, 9]}", "{scores: {$elemMatch: {$gt: 7, $lt: 10}}}", -1,
    "{_id: 1, scores: [9]}" },
  { "{_id: 1, scores: 7}", "{scores: {$elemMatch: {$gte: 5}}}", -1, "{_id: 1}" },
  { "{_id: 1}", "{scores: {$elemMatch: {$gte: 5}}}", -1, "{_id: 1}" },
  { "{_id: 1, name: 'player1', games: [{game: 'abc', score: 8}, {game: 'xyz', score: 5}],"
    " joined: 3, lastLogin: 4}",
    "{games: {$elemMatch: {score: {$gt: 5}}}, joined: 1, lastLogin: 1}", -1,
    "{_id: 1, joined: 3, lastLogin: 4, games: [{game: 'abc', score: 8}]}" },
  { "{_id: 1, a: [1, 2], b: [3, 4]}",
    "{b: {$elemMatch: {$gt: 3}}, a: {$elemMatch: {$gt: 1}}}", -1,
    "{_id: 1, b: [4], a: [2]}" },
  { "{_id: 1, a: [1, 2], b: [3, 4, 5], c: 9}",
    "{a: {$elemMatch: {$gt: 1}}, b: {$slice: -1}}", -1,
    "{_id: 1, b: [5], a: [2]}" },
  { "{tags: ['x', 'y', 'z']}", "{tags: {$elemMatch: {$in: ['z', 'y']}}}", -1, "{tags: ['y']}" },
  { "{a: [{b: {c: 1}}, {b: {c: 2}}]}", "{a: {$elemMatch: {'b.c': 2}}}", -1,
    "{a: [{b: {c: 2}}]}" },
  { "{a: [{b: [1, 2]}, {b: [3]}]}", "{a: {$elemMatch: {b: 3}}}", -1, "{a: [{b: [3]}]}" },
  { "{a: [1, 'x', {b: 1}]}", "{a: {$elemMatch: {b: {$exists: true}}}}", -1, "{a: [{b: 1}]}" },
  { "{a: [{b: 1}, {b: 2}], c: 1}", "{a: {$elemMatch: {b: {$gt: 0}}}, 'c': 1}", -1,
    "{c: 1, a: [{b: 1}]}" },
  { "{a: 1}", "{a: {$elemMatch: {$foo: 1}}}", -1, "docext: unknown operator $foo in filter at 'a'" },
  { "{a: 1}", "{a: {$elemMatch: {b: {$in: 5}}}}", -1,
    "docext: $in needs an array in filter at 'b'" },
  { "{a: 1}", "{'a.b': {$elemMatch: {x: 1}}}", -1,
    "docext: $elemMatch cannot be used on a nested field in projection at 'a.b'" },
  { "{a: 1}", "{a: {b: {$elemMatch: {x: 1}}}}", -1,
    "docext: $elemMatch cannot be used on a nested field in projection at 'a.b'" },
  { "{a: 1}", "{a: {$elemMatch: 1}}", -1,
    "docext: $elemMatch needs a document in projection at 'a'" },
  { "{a: 1}", "{a: {$elemMatch: [1]}}", -1,
    "docext: $elemMatch needs a document in projection at 'a'" },
  { "{a: 1}", "{x: 0, a: {$elemMatch: {b: 1}}}", -1,
    "docext: cannot mix inclusion and exclusion in projection at 'a'" },
  { "{a: 1}", "{a: {$elemMatch: {b: 1}}, x: 0}", -1,
    "docext: cannot mix inclusion and exclusion in projection at 'x'" },
  { "{a: 1}", "{a: {$elemMatch: {b: 1}}, a: 1}", -1,
    "docext: path collision at 'a' in projection" },
  /* Positional */
  { "{_id: 1, reviews: [{u: 'a', r: 1}, {u: 'b', r: 5}], title: 'T'}", "{'reviews.$': 1}", 1,
    "{_id: 1, reviews: [{u: 'b', r: 5}]}" },
  { "{_id: 1, reviews: [{u: 'a', r: 1}, {u: 'b', r: 5}], title: 'T'}", "{'reviews.$': 1}", 0,
    "{_id: 1, reviews: [{u: 'a', r: 1}]}" },
  { "{_id: 1, reviews: [{u: 'a', r: 1}, {u: 'b', r: 5}], title: 'T'}",
    "{title: 1, 'reviews.$': true, _id: 0}", 1,
    "{reviews: [{u: 'b', r: 5}], title: 'T'}" },
  { "{_id: 1, reviews: [{u: 'a', r: 1}, {u: 'b', r: 5}], title: 'T'}", "{'reviews.$': 1}", -1,
    "docext: positional projection 'reviews.$' but the filter matched no array element" },
  { "{_id: 1, reviews: [{u: 'a', r: 1}, {u: 'b', r: 5}], title: 'T'}", "{'reviews.$': 1}", 2,
    "docext: positional projection 'reviews.$' element mismatch: the array has no element 2" },
  { "{_id: 1, title: 'T'}", "{'reviews.$': 1}", 0, "{_id: 1}" },
  { "{_id: 1, reviews: 5}", "{'reviews.$': 1}", 0, "{_id: 1, reviews: 5}" },
  /* no array on the path: MongoDB leaves the field as the inclusion gives
  ** it, whether or not the filter recorded a position */
  { "{_id: 1, title: 'T'}", "{'reviews.$': 1}", -1, "{_id: 1}" },
  { "{_id: 1, reviews: 5}", "{'reviews.$': 1}", -1, "{_id: 1, reviews: 5}" },
  { "{a: {b: 5, c: 1}, d: 1}", "{'a.b.$': 1}", -1, "{a: {b: 5}}" },
  { "{a: {b: [5], c: 1}, d: 1}", "{'a.b.$': 1}", -1,
    "docext: positional projection 'a.b.$' but the filter matched no array element" },
  { "{a: {b: [1, 2, 3], c: 1}, d: 1}", "{'a.b.$': 1}", 2, "{a: {b: [3]}}" },
  { "{a: {b: [1, 2, 3], c: 1}, d: 1}", "{a: {'b.$': 1}}", 1, "{a: {b: [2]}}" },
  { "{a: [{b: 1, c: 1}, {b: 2, c: 2}], d: 1}", "{'a.b.$': 1}", 1, "{a: [{b: 2}]}" },
  { "{a: [{b: 1, c: 1}, {b: 2, c: 2}], d: 1}", "{'a.b.$': 1, d: 1}", 0, "{a: [{b: 1}], d: 1}" },
  { "{a: [[1, 2], [3, 4]]}", "{'a.$': 1}", 1, "{a: [[3, 4]]}" },
  { "{a: [1, {b: 2}]}", "{'a.b.$': 1}", 0, "{a: []}" },
  { "{a: 1}", "{'a.$': 1, 'b.$': 1}", 0,
    "docext: only one positional projection is allowed, found 'a.$' and 'b.$'" },
  { "{a: 1}", "{'a.$': 0}", 0,
    "docext: positional projection 'a.$' cannot be an exclusion" },
  { "{a: 1}", "{'a.$': false}", 0,
    "docext: positional projection 'a.$' cannot be an exclusion" },
  { "{a: 1}", "{'a.$': {$slice: 1}}", 0,
    "docext: positional projection 'a.$' takes 1 or true, not an operator" },
  { "{a: 1}", "{'a.$': 1, b: {$elemMatch: {c: 1}}}", 0,
    "docext: cannot combine positional projection 'a.$' with $elemMatch at 'b'" },
  { "{a: 1}", "{b: {$elemMatch: {c: 1}}, 'a.$': 1}", 0,
    "docext: cannot combine positional projection 'a.$' with $elemMatch" },
  { "{a: 1}", "{x: 0, 'a.$': 1}", 0,
    "docext: cannot mix inclusion and exclusion in projection at 'a.$'" },
  { "{a: 1}", "{'a.$': 1, x: 0}", 0,
    "docext: cannot mix inclusion and exclusion in projection at 'x'" },
  { "{a: 1}", "{a: 1, 'a.$': 1}", 0, "docext: path collision at 'a.$' in projection" },
  { "{a: 1}", "{'a.$': 1, 'a.b': 1}", 0, "docext: path collision at 'a.b' in projection" },
  { "{a: 1}", "{'a.$.b': 1}", 0,
    "docext: field names in projection cannot start with '$' at 'a.$.b'" },
  { "{a: 1}", "{'$': 1}", 0,
    "docext: positional projection needs a field before '$' at '$'" },
  { "{a: 1}", "{'a.$.$': 1}", 0,
    "docext: field names in projection cannot start with '$' at 'a.$.$'" },
  /* Bad projections */
  { "{a: 1}", "{a: {$foo: 1}}", -1, "docext: unknown operator $foo in projection at 'a'" },
  { "{a: 1}", "{a: {$meta: 'textScore'}}", -1,
    "docext: query requires text score metadata, but it is not available (no $text)" },
  { "{a: 1}", "{a: {$meta: 'indexKey'}}", -1,
    "docext: $meta takes \"textScore\" (the one docext has) in projection at 'a'" },
  { "{a: 1}", "{a: {}}", -1, "docext: empty sub-projection at 'a'" },
  { "{a: 1}", "{a: {b: {}}}", -1, "docext: empty sub-projection at 'a.b'" },
  { "{a: 1}", "{a: 'x'}", -1,
    "docext: bad projection value for 'a': use 1, 0, true, false, $slice or $elemMatch" },
  { "{a: 1}", "{a: null}", -1,
    "docext: bad projection value for 'a': use 1, 0, true, false, $slice or $elemMatch" },
  { "{a: 1}", "{a: [1]}", -1,
    "docext: bad projection value for 'a': use 1, 0, true, false, $slice or $elemMatch" },
  { "{a: 1}", "{'': 1}", -1, "docext: empty field name in projection at ''" },
  { "{a: 1}", "{'a..b': 1}", -1, "docext: empty field name in projection at 'a..b'" },
  { "{a: 1}", "{'a.': 1}", -1, "docext: empty field name in projection at 'a.'" },
  { "{a: 1}", "{'.a': 1}", -1, "docext: empty field name in projection at '.a'" },
  { "{a: 1}", "{$x: 1}", -1,
    "docext: field names in projection cannot start with '$' at '$x'" },
  { "{a: 1}", "{'a.$x': 1}", -1,
    "docext: field names in projection cannot start with '$' at 'a.$x'" },
};

static void testProjections(void){
  DocBuf doc, proj, out, exp;
  size_t i;
  memset(&doc, 0, sizeof(doc));
  memset(&proj, 0, sizeof(proj));
  memset(&out, 0, sizeof(out));
  memset(&exp, 0, sizeof(exp));
  for(i=0; i<sizeof(aProj)/sizeof(aProj[0]); i++){
    const ProjCase *pC = &aProj[i];
    DocProjection *p = 0;
    char *zErr = 0;
    char zWhat[3000];
    int rc;
    int bErr = strncmp(pC->zExpect, "docext:", 7)==0;
    parse(pC->zDoc, &doc);
    parse(pC->zProj, &proj);
    rc = docextProjectionNew(proj.a, &p, &zErr);
    if( rc==SQLITE_OK ){
      /* the projection must not depend on the caller's buffer */
      memset(proj.a, 0xAB, (size_t)proj.n);
      rc = docextProjectionApply(p, doc.a, pC->iPos, &out, &zErr);
    }else{
      if( p!=0 ){ nFail++; printf("FAIL: projection set on error\n"); }
    }
    if( bErr ){
      snprintf(zWhat, sizeof(zWhat), "#%d %s on %s: want error \"%s\", got rc=%d \"%s\"%s%s",
               (int)i, pC->zProj, pC->zDoc, pC->zExpect, rc, zErr ? zErr : "",
               rc==SQLITE_OK ? " -> " : "", rc==SQLITE_OK ? show(out.a) : "");
      check(rc==SQLITE_ERROR && zErr && strcmp(zErr, pC->zExpect)==0, zWhat);
    }else{
      parse(pC->zExpect, &exp);
      snprintf(zWhat, sizeof(zWhat), "#%d %s on %s (iPos %d): want %s, got %s",
               (int)i, pC->zProj, pC->zDoc, pC->iPos, show(exp.a),
               rc==SQLITE_OK ? show(out.a) : (zErr ? zErr : "error"));
      check(rc==SQLITE_OK && out.n==exp.n && memcmp(out.a, exp.a, (size_t)exp.n)==0
            && docextBsonCheck(out.a, out.n, &zErr)==SQLITE_OK, zWhat);
    }
    sqlite3_free(zErr);
    docextProjectionFree(p);
  }
  docextBufFree(&doc);
  docextBufFree(&proj);
  docextBufFree(&out);
  docextBufFree(&exp);
}

/* A projection is reusable: applying it twice (and to other documents)
** gives the same results; pOut is reset each time. */
static void testReuse(void){
  DocBuf doc, proj, out;
  DocProjection *p = 0;
  char *zErr = 0;
  int rc, i;
  memset(&doc, 0, sizeof(doc));
  memset(&proj, 0, sizeof(proj));
  memset(&out, 0, sizeof(out));
  parse("{a: {$elemMatch: {$gt: 1}}, b: 1}", &proj);
  rc = docextProjectionNew(proj.a, &p, &zErr);
  check(rc==SQLITE_OK, "reuse: compile");
  for(i=0; rc==SQLITE_OK && i<3; i++){
    parse(i==1 ? "{_id: 2, a: [0], b: 3}" : "{_id: 1, a: [0, 5, 9], b: 2, c: 3}", &doc);
    docextBufAppend(&rc, &out, "garbage", 7);
    rc = docextProjectionApply(p, doc.a, -1, &out, &zErr);
    check(rc==SQLITE_OK && strcmp(show(out.a),
          i==1 ? "{\"_id\":2,\"b\":3}" : "{\"_id\":1,\"b\":2,\"a\":[5]}")==0, "reuse: apply");
  }
  docextProjectionFree(p);
  docextProjectionFree(0);
  sqlite3_free(zErr);
  docextBufFree(&doc);
  docextBufFree(&proj);
  docextBufFree(&out);
}

/*------------------------------------------------------------------------
** Sort keys
*/

typedef struct SortCase SortCase;
struct SortCase {
  const char *zDocs;       /* documents, one per line */
  const char *zSort;
  const char *zOrder;      /* expected order of the documents, e.g. "2 0 1" */
};

static const SortCase aSort[] = {
  { "{a: 3}\n{a: 1}\n{a: 2}", "{a: 1}", "1 2 0" },
  { "{a: 3}\n{a: 1}\n{a: 2}", "{a: -1}", "0 2 1" },
  { "{a: 3}\n{a: 1}\n{a: 2}", "{a: 1.0}", "1 2 0" },
  { "{a: 3}\n{a: 1}\n{a: 2}", "{a: NumberLong(-1)}", "0 2 1" },
  { "{a: 3}\n{a: 1}\n{a: 2}", "{a: NumberDecimal('-1.0')}", "0 2 1" },
  { "{a: 3}\n{a: 1}\n{a: 2}", "{}", "0 1 2" },
  /* missing == null */
  { "{a: 1}\n{}\n{a: null}\n{a: -5}", "{a: 1}", "1 2 3 0" },
  { "{a: 1}\n{}\n{a: null}\n{a: -5}", "{a: -1}", "0 3 1 2" },
  /* arrays: smallest element ascending, largest descending */
  { "{a: [5, 1]}\n{a: 2}\n{a: [3, 4]}", "{a: 1}", "0 1 2" },
  { "{a: [5, 1]}\n{a: 2}\n{a: [3, 4]}", "{a: -1}", "0 2 1" },
  { "{a: [1, 'x']}\n{a: 2}", "{a: -1}", "0 1" },
  { "{a: [1, 'x']}\n{a: 2}", "{a: 1}", "0 1" },
  { "{a: [[1, 2], 0]}\n{a: [[0]]}\n{a: 1}", "{a: 1}", "0 2 1" },
  /* empty array below null, both directions */
  { "{a: null}\n{a: []}\n{a: 1}\n{}", "{a: 1}", "1 0 3 2" },
  { "{a: null}\n{a: []}\n{a: 1}\n{}", "{a: -1}", "2 0 3 1" },
  { "{a: [null]}\n{a: []}", "{a: 1}", "1 0" },
  { "{a: [MinKey]}\n{a: []}", "{a: 1}", "0 1" },
  /* types in BSON order */
  { "{a: 'str'}\n{a: 1}\n{a: {x: 1}}\n{a: true}\n{a: [[]]}\n{a: null}\n{a: MaxKey}\n{a: MinKey}",
    "{a: 1}", "7 5 1 0 2 4 3 6" },
  { "{a: NumberLong(3)}\n{a: 2.5}\n{a: NumberDecimal('2.6')}\n{a: -Infinity}\n{a: NaN}",
    "{a: 1}", "4 3 1 2 0" },
  /* several fields */
  { "{a: 1, b: 2}\n{a: 1, b: 1}\n{a: 0, b: 9}", "{a: 1, b: -1}", "2 0 1" },
  { "{a: 1, b: 2}\n{a: 1, b: 1}\n{a: 0, b: 9}", "{a: -1, b: 1}", "1 0 2" },
  { "{a: 'x', b: 2}\n{a: 'x\\u0000', b: 1}\n{a: 'x', b: 1}", "{a: 1, b: 1}", "2 0 1" },
  { "{a: 'ab', b: 1}\n{a: 'a', b: 2}\n{a: 'a', b: 1}", "{a: -1, b: -1}", "0 1 2" },
  { "{b: 1}\n{a: null, b: 0}", "{a: 1, b: 1}", "1 0" },
  /* dotted paths, through arrays of documents */
  { "{a: [{b: 3}, {b: 1}]}\n{a: {b: 2}}", "{'a.b': 1}", "0 1" },
  { "{a: [{b: 3}, {b: 1}]}\n{a: {b: 2}}", "{'a.b': -1}", "0 1" },
  { "{a: [{b: 3}, {b: 1}]}\n{a: {b: 0}}", "{'a.b': -1}", "0 1" },
  { "{a: [{b: [7, 8]}, {b: 1}]}\n{a: {b: 5}}", "{'a.b': -1}", "0 1" },
  { "{a: {b: {c: 2}}}\n{a: {b: {c: 1}}}\n{a: 5}", "{'a.b.c': 1}", "2 1 0" },
  /* an element of a fanned-out array that lacks the rest of the path is null */
  { "{a: {b: 2}}\n{a: [{b: 3}, {c: 1}]}", "{'a.b': 1}", "1 0" },
  { "{a: {b: 2}}\n{a: [{b: 3}, {c: 1}]}", "{'a.b': -1}", "1 0" },
  { "{a: {b: null}}\n{a: [{b: 3}, {c: 1}]}\n{a: [{b: []}]}", "{'a.b': 1}", "2 0 1" },
  /* ... and so does a scalar element (MongoDB's key generator recurses into
  ** it as an empty document: btree_key_generator.cpp) */
  { "{a: {b: 0}}\n{a: [{b: 3}, 7]}", "{'a.b': 1}", "1 0" },
  { "{a: [{b: {c: 5}}, {b: [{c: 1}, {d: 1}]}]}\n{a: {b: {c: 0}}}", "{'a.b.c': 1}", "0 1" },
  { "{a: [{b: {c: 5}}, {b: [{c: 1}, {c: 2}]}]}\n{a: {b: {c: 0}}}", "{'a.b.c': 1}", "1 0" },
  { "{a: [{b: 1}, {c: 1}]}\n{a: [{b: 0}]}", "{'a.0.b': 1}", "1 0" },
  { "{a: [9, 1]}\n{a: [0, 5]}", "{'a.1': 1}", "0 1" },
  { "{a: [9, 1]}\n{a: [0, 5]}", "{'a.0': 1}", "1 0" },
  /* MongoDB's sort key is the first of the keys its index key generator
  ** makes from the sort pattern: fields that cross the same array take
  ** their values from the same element */
  { "{a: [{x: 1, y: 9}, {x: 2, y: 0}]}\n{a: [{x: 1, y: 5}]}", "{'a.x': 1, 'a.y': 1}", "1 0" },
  { "{a: [{x: 1, y: 9}, {x: 2, y: 0}]}\n{a: [{x: 1, y: 5}]}", "{'a.x': -1, 'a.y': -1}", "0 1" },
  { "{a: [{x: 1, y: 9}, {x: 2, y: 0}]}\n{a: [{x: 1, y: 5}]}", "{'a.x': 1, 'a.y': -1}", "0 1" },
  { "{a: [{x: 1, y: 0}, {x: 2, y: 9}]}\n{a: [{x: 2, y: 5}]}", "{'a.y': -1, 'a.x': 1}", "0 1" },
  { "{a: [3, 1], b: 2}\n{a: 1, b: 1}", "{a: 1, b: -1}", "0 1" },
  /* an element named by position is the value, an array included */
  { "{a: [[1], 5]}\n{a: [2]}", "{'a.0': 1}", "1 0" },
};

/* Split zDocs into BSON documents; returns their count. */
static int parseDocs(const char *zDocs, DocBuf *aDoc, int nMax){
  int n = 0;
  const char *z = zDocs;
  while( *z && n<nMax ){
    const char *zEnd = strchr(z, '\n');
    char zLine[500];
    int nLine = zEnd ? (int)(zEnd - z) : (int)strlen(z);
    memcpy(zLine, z, (size_t)nLine);
    zLine[nLine] = 0;
    memset(&aDoc[n], 0, sizeof(aDoc[n]));
    parse(zLine, &aDoc[n]);
    n++;
    z += nLine + (zEnd ? 1 : 0);
  }
  return n;
}

static DocBuf *aSortKey;   /* for cmpSortIdx */

static int cmpSortIdx(const void *a, const void *b){
  int i = *(const int*)a, j = *(const int*)b;
  DocBuf *ka = &aSortKey[i], *kb = &aSortKey[j];
  i64 n = ka->n<kb->n ? ka->n : kb->n;
  int c = n>0 ? memcmp(ka->a, kb->a, (size_t)n) : 0;
  if( c==0 ) c = ka->n<kb->n ? -1 : ka->n>kb->n;
  if( c==0 ) c = i - j;
  return c;
}

static void testSorts(void){
  size_t i;
  DocBuf sort;
  memset(&sort, 0, sizeof(sort));
  for(i=0; i<sizeof(aSort)/sizeof(aSort[0]); i++){
    const SortCase *pC = &aSort[i];
    DocBuf aDoc[16], aKey[16];
    int aIdx[16];
    int nDoc, j, rc = SQLITE_OK;
    DocSort *p = 0;
    char *zErr = 0;
    char zGot[100], zWhat[600];
    nDoc = parseDocs(pC->zDocs, aDoc, 16);
    parse(pC->zSort, &sort);
    rc = docextSortNew(sort.a, &p, &zErr);
    zGot[0] = 0;
    if( rc==SQLITE_OK ){
      memset(sort.a, 0xAB, (size_t)sort.n);
      for(j=0; j<nDoc; j++){
        memset(&aKey[j], 0, sizeof(aKey[j]));
        if( rc==SQLITE_OK ) rc = docextSortKey(p, aDoc[j].a, &aKey[j], &zErr);
        aIdx[j] = j;
      }
      aSortKey = aKey;
      qsort(aIdx, (size_t)nDoc, sizeof(int), cmpSortIdx);
      for(j=0; j<nDoc; j++){
        size_t n = strlen(zGot);
        snprintf(zGot+n, sizeof(zGot)-n, "%s%d", j ? " " : "", aIdx[j]);
        docextBufFree(&aKey[j]);
      }
    }
    snprintf(zWhat, sizeof(zWhat), "sort #%d %s: want \"%s\", got \"%s\" %s",
             (int)i, pC->zSort, pC->zOrder, zGot, zErr ? zErr : "");
    check(rc==SQLITE_OK && strcmp(zGot, pC->zOrder)==0, zWhat);
    for(j=0; j<nDoc; j++) docextBufFree(&aDoc[j]);
    sqlite3_free(zErr);
    docextSortFree(p);
  }
  docextBufFree(&sort);
}

static void testSortErrors(void){
  static const char *const azBad[][2] = {
    { "{a: 2}",                   "docext: bad sort direction for 'a': must be 1, -1 or {$meta: \"textScore\"}" },
    { "{a: 0}",                   "docext: bad sort direction for 'a': must be 1, -1 or {$meta: \"textScore\"}" },
    { "{a: 1, b: 1.5}",           "docext: bad sort direction for 'b': must be 1, -1 or {$meta: \"textScore\"}" },
    { "{a: 'asc'}",               "docext: bad sort direction for 'a': must be 1, -1 or {$meta: \"textScore\"}" },
    { "{a: true}",                "docext: bad sort direction for 'a': must be 1, -1 or {$meta: \"textScore\"}" },
    { "{a: null}",                "docext: bad sort direction for 'a': must be 1, -1 or {$meta: \"textScore\"}" },
    { "{a: NaN}",                 "docext: bad sort direction for 'a': must be 1, -1 or {$meta: \"textScore\"}" },
    { "{a: {$meta: 'searchScore'}}", "docext: bad sort direction for 'a': must be 1, -1 or {$meta: \"textScore\"}" },
    { "{a: {$meta: 'textScore'}, b: {$meta: 'textScore'}}",
                                  "docext: a sort may have one {$meta: \"textScore\"}" },
    { "{'x.y': [1]}",             "docext: bad sort direction for 'x.y': must be 1, -1 or {$meta: \"textScore\"}" },
    { "{'': 1}",                  "docext: empty field name in sort" },
  };
  size_t i;
  DocBuf sort;
  memset(&sort, 0, sizeof(sort));
  for(i=0; i<sizeof(azBad)/sizeof(azBad[0]); i++){
    DocSort *p = 0;
    char *zErr = 0;
    char zWhat[300];
    int rc;
    parse(azBad[i][0], &sort);
    rc = docextSortNew(sort.a, &p, &zErr);
    snprintf(zWhat, sizeof(zWhat), "sort %s: want \"%s\", got rc=%d \"%s\"",
             azBad[i][0], azBad[i][1], rc, zErr ? zErr : "");
    check(rc==SQLITE_ERROR && p==0 && zErr && strcmp(zErr, azBad[i][1])==0, zWhat);
    sqlite3_free(zErr);
    docextSortFree(p);
  }
  /* field counts, and an empty sort writes an empty key */
  {
    DocSort *p = 0;
    char *zErr = 0;
    DocBuf key;
    int rc = SQLITE_OK;
    memset(&key, 0, sizeof(key));
    parse("{}", &sort);
    check(docextSortNew(sort.a, &p, &zErr)==SQLITE_OK && docextSortFieldCount(p)==0,
          "empty sort has 0 fields");
    rc = docextSortKey(p, sort.a, &key, &zErr);
    check(rc==SQLITE_OK && key.n==0, "empty sort key");
    docextSortFree(p);
    parse("{a: 1, 'b.c': -1, d: 1}", &sort);
    check(docextSortNew(sort.a, &p, &zErr)==SQLITE_OK && docextSortFieldCount(p)==3,
          "sort field count 3");
    docextSortFree(p);
    /* two different arrays in one document: MongoDB's error */
    parse("{a: 1, 'b.c': -1}", &sort);
    check(docextSortNew(sort.a, &p, &zErr)==SQLITE_OK, "sort {a: 1, 'b.c': -1}");
    {
      DocBuf doc;
      memset(&doc, 0, sizeof(doc));
      parse("{a: [1, 2], b: [{c: 3}, {c: 4}]}", &doc);
      docextBufReset(&key);
      rc = docextSortKey(p, doc.a, &key, &zErr);
      check(rc==SQLITE_ERROR && zErr && strcmp(zErr,
            "docext: cannot sort with keys that are parallel arrays [a] [b]")==0,
            "sort over parallel arrays");
      sqlite3_free(zErr); zErr = 0;
      parse("{a: [1, 2], b: {c: 3}}", &doc);
      docextBufReset(&key);
      rc = docextSortKey(p, doc.a, &key, &zErr);
      check(rc==SQLITE_OK && key.n>0, "sort over one array");
      docextBufFree(&doc);
    }
    docextSortFree(p);
    /* at most 32 fields, as MongoDB's key generator */
    {
      char zSort[600];
      int k, n = 0;
      n += snprintf(zSort+n, sizeof(zSort)-n, "{");
      for(k=0; k<33; k++) n += snprintf(zSort+n, sizeof(zSort)-n, "%sf%d: 1", k ? ", " : "", k);
      snprintf(zSort+n, sizeof(zSort)-n, "}");
      parse(zSort, &sort);
      rc = docextSortNew(sort.a, &p, &zErr);
      check(rc==SQLITE_ERROR && p==0 && zErr
            && strcmp(zErr, "docext: a sort may have at most 32 fields")==0, "33 sort fields");
      sqlite3_free(zErr); zErr = 0;
    }
    docextBufFree(&key);
  }
  docextBufFree(&sort);
}

/*------------------------------------------------------------------------
** Hostile inputs
*/

/* {a: {a: ... {a: 1, b: 2} ...}} nDepth levels below the root. */
static void deepDoc(DocBuf *p, int nDepth){
  int rc = SQLITE_OK, i;
  i64 aStart[200];
  docextBufReset(p);
  aStart[0] = docextBsonStartDoc(&rc, p);
  for(i=1; i<=nDepth; i++){
    aStart[i] = docextBsonStartChild(&rc, p, DOC_DOCUMENT, "a", 1);
  }
  docextBsonAppendInt32(&rc, p, "a", 1, 1);
  docextBsonAppendInt32(&rc, p, "b", 1, 2);
  for(i=nDepth; i>=0; i--) docextBsonEndDoc(&rc, p, aStart[i]);
}

static void testHostile(void){
  DocBuf doc, proj, out;
  DocProjection *p = 0;
  char *zErr = 0;
  int rc, i;
  char *zPath;
  memset(&doc, 0, sizeof(doc));
  memset(&proj, 0, sizeof(proj));
  memset(&out, 0, sizeof(out));

  /* A 99-level nested projection over a 99-level document (the limit is
  ** 100 below the root, so a 100th level holds the leaves). */
  deepDoc(&doc, 99);
  deepDoc(&proj, 99);
  /* proj is {a: {a: ... {a: 1, b: 2}}}: an inclusion of a...a.a and a...a.b */
  rc = docextProjectionNew(proj.a, &p, &zErr);
  check(rc==SQLITE_OK, "deep projection compiles");
  if( rc==SQLITE_OK ){
    rc = docextProjectionApply(p, doc.a, -1, &out, &zErr);
    check(rc==SQLITE_OK && out.n==doc.n && memcmp(out.a, doc.a, (size_t)doc.n)==0,
          "deep projection keeps the deep document");
  }
  docextProjectionFree(p); p = 0;

  /* The same path dotted, 200 components: allowed. 201: an error. */
  zPath = sqlite3_malloc(1000);
  for(i=0; i<200; i++){ zPath[2*i] = 'a'; zPath[2*i+1] = '.'; }
  zPath[399] = 0;
  rc = SQLITE_OK;
  docextBufReset(&proj);
  {
    i64 s = docextBsonStartDoc(&rc, &proj);
    docextBsonAppendInt32(&rc, &proj, zPath, 399, 0);
    docextBsonEndDoc(&rc, &proj, s);
  }
  rc = docextProjectionNew(proj.a, &p, &zErr);
  check(rc==SQLITE_OK, "200-component path compiles");
  if( rc==SQLITE_OK ){
    rc = docextProjectionApply(p, doc.a, -1, &out, &zErr);
    check(rc==SQLITE_OK && out.n==doc.n, "200-component exclusion beyond the document");
  }
  docextProjectionFree(p); p = 0;
  zPath[399] = '.'; zPath[400] = 'a'; zPath[401] = 0;
  docextBufReset(&proj);
  rc = SQLITE_OK;
  {
    i64 s = docextBsonStartDoc(&rc, &proj);
    docextBsonAppendInt32(&rc, &proj, zPath, 401, 1);
    docextBsonEndDoc(&rc, &proj, s);
  }
  rc = docextProjectionNew(proj.a, &p, &zErr);
  check(rc==SQLITE_ERROR && p==0 && zErr
        && strncmp(zErr, "docext: path with more than 200 components in projection at 'a.a.a", 66)==0,
        "201-component path is an error");
  sqlite3_free(zErr); zErr = 0;

  /* A very long path of many short components, through the dotted form. */
  {
    int n = 100000;
    char *z = sqlite3_malloc(n+1);
    for(i=0; i<n; i++) z[i] = (i%2) ? '.' : 'b';
    z[n-1] = 'b';
    z[n] = 0;
    docextBufReset(&proj);
    rc = SQLITE_OK;
    {
      i64 s = docextBsonStartDoc(&rc, &proj);
      docextBsonAppendInt32(&rc, &proj, z, n, 1);
      docextBsonEndDoc(&rc, &proj, s);
    }
    rc = docextProjectionNew(proj.a, &p, &zErr);
    check(rc==SQLITE_ERROR && p==0, "50000-component path is an error");
    sqlite3_free(zErr); zErr = 0;
    sqlite3_free(z);
  }
  sqlite3_free(zPath);

  /* Many fields, and a big array sliced from the end. */
  {
    i64 s, sa;
    char zKey[16];
    docextBufReset(&doc);
    rc = SQLITE_OK;
    s = docextBsonStartDoc(&rc, &doc);
    sa = docextBsonStartChild(&rc, &doc, DOC_ARRAY, "big", 3);
    for(i=0; i<100000; i++){
      int n = docextBsonArrayKey(zKey, i);
      docextBsonAppendInt32(&rc, &doc, zKey, n, i);
    }
    docextBsonEndDoc(&rc, &doc, sa);
    docextBsonEndDoc(&rc, &doc, s);
    parse("{big: {$slice: [-3, 2]}}", &proj);
    rc = docextProjectionNew(proj.a, &p, &zErr);
    if( rc==SQLITE_OK ) rc = docextProjectionApply(p, doc.a, -1, &out, &zErr);
    check(rc==SQLITE_OK && strcmp(show(out.a), "{\"big\":[99997,99998]}")==0,
          "slice of a 100000-element array");
    docextProjectionFree(p); p = 0;
    parse("{'big.$': 1}", &proj);
    rc = docextProjectionNew(proj.a, &p, &zErr);
    if( rc==SQLITE_OK ) rc = docextProjectionApply(p, doc.a, 99999, &out, &zErr);
    check(rc==SQLITE_OK && strcmp(show(out.a), "{\"big\":[99999]}")==0,
          "positional at the end of a 100000-element array");
    if( rc==SQLITE_OK ) rc = docextProjectionApply(p, doc.a, 2147483647, &out, &zErr);
    check(rc==SQLITE_ERROR, "positional far beyond the end");
    sqlite3_free(zErr); zErr = 0;
    docextProjectionFree(p); p = 0;
  }

  /* Sort over deep documents and long paths: the walker just finds nothing. */
  {
    DocSort *pS = 0;
    DocBuf key;
    memset(&key, 0, sizeof(key));
    deepDoc(&doc, 99);
    parse("{'a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a': -1,"
          " 'x.y.z': 1}", &proj);
    rc = docextSortNew(proj.a, &pS, &zErr);
    if( rc==SQLITE_OK ){
      rc = docextSortKey(pS, doc.a, &key, &zErr);
    }
    check(rc==SQLITE_OK && key.n>2, "sort key over a deep document");
    docextSortFree(pS);
    docextBufFree(&key);
  }

  docextBufFree(&doc);
  docextBufFree(&proj);
  docextBufFree(&out);
}

/* Out-of-memory: fail allocation N for every N; every call must either
** succeed with the right result or fail with SQLITE_NOMEM, never crash or
** leak (the sanitizer build checks the leaks). */
static int nAllocLeft = -1;
static sqlite3_mem_methods memDefault;
static void *faultMalloc(int n){
  if( nAllocLeft==0 ) return 0;
  if( nAllocLeft>0 ) nAllocLeft--;
  return memDefault.xMalloc(n);
}
static void *faultRealloc(void *p, int n){
  if( nAllocLeft==0 ) return 0;
  if( nAllocLeft>0 ) nAllocLeft--;
  return memDefault.xRealloc(p, n);
}

static void testOom(void){
  static const char *const azCase[][3] = {
    { "{_id: 1, a: [{b: 1, c: 2}, {c: 3}], d: [1, 2, 3], e: {f: 1}}",
      "{'a.b': 1, d: {$slice: -1}, 'e.f': 1}", "" },
    { "{_id: 1, a: [1, 5, 9], b: 2}", "{a: {$elemMatch: {$gt: 4}}, b: 1}", "" },
    { "{_id: 1, a: [{x: 1}, {x: 2}], b: 2}", "{'a.$': 1}", "" },
  };
  sqlite3_mem_methods m;
  size_t i;
  int bOk = 1, nOomSeen = 0;
  sqlite3_shutdown();
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &memDefault);
  m = memDefault;
  m.xMalloc = faultMalloc;
  m.xRealloc = faultRealloc;
  if( sqlite3_config(SQLITE_CONFIG_MALLOC, &m)!=SQLITE_OK ){
    printf("skipping OOM test: cannot install allocator\n");
    return;
  }
  sqlite3_initialize();
  for(i=0; i<sizeof(azCase)/sizeof(azCase[0]); i++){
    DocBuf doc, proj, want, out;
    int iFail;
    memset(&doc, 0, sizeof(doc)); memset(&proj, 0, sizeof(proj));
    memset(&want, 0, sizeof(want)); memset(&out, 0, sizeof(out));
    parse(azCase[i][0], &doc);
    parse(azCase[i][1], &proj);
    {
      DocProjection *p = 0; char *zErr = 0;
      int rc = docextProjectionNew(proj.a, &p, &zErr);
      if( rc==SQLITE_OK ) rc = docextProjectionApply(p, doc.a, 1, &want, &zErr);
      if( rc!=SQLITE_OK ){ bOk = 0; printf("OOM baseline failed: %s\n", zErr); }
      docextProjectionFree(p);
      sqlite3_free(zErr);
    }
    for(iFail=0; iFail<2000; iFail++){
      DocProjection *p = 0; char *zErr = 0;
      int rc, bDone;
      nAllocLeft = iFail;
      rc = docextProjectionNew(proj.a, &p, &zErr);
      if( rc==SQLITE_OK ){
        docextBufFree(&out);   /* so that the output buffer allocates too */
        rc = docextProjectionApply(p, doc.a, 1, &out, &zErr);
      }
      bDone = nAllocLeft>0;    /* every allocation succeeded */
      nAllocLeft = -1;
      if( rc==SQLITE_NOMEM ) nOomSeen++;
      if( rc==SQLITE_OK ){
        if( out.n!=want.n || memcmp(out.a, want.a, (size_t)want.n)!=0 ){
          bOk = 0; printf("OOM %d/%d: wrong result\n", (int)i, iFail);
        }
      }else if( rc!=SQLITE_NOMEM ){
        bOk = 0; printf("OOM %d/%d: rc=%d %s\n", (int)i, iFail, rc, zErr ? zErr : "");
      }
      docextProjectionFree(p);
      sqlite3_free(zErr);
      if( bDone ) break;
    }
    docextBufFree(&doc); docextBufFree(&proj);
    docextBufFree(&want); docextBufFree(&out);
  }
  /* sort */
  {
    DocBuf doc, sort, key;
    int iFail;
    memset(&doc, 0, sizeof(doc)); memset(&sort, 0, sizeof(sort)); memset(&key, 0, sizeof(key));
    parse("{a: [3, 1], b: 'x'}", &doc);
    parse("{a: 1, b: -1}", &sort);
    for(iFail=0; iFail<10; iFail++){
      DocSort *p = 0; char *zErr = 0;
      int rc;
      nAllocLeft = iFail;
      rc = docextSortNew(sort.a, &p, &zErr);
      if( rc==SQLITE_OK ){ docextBufReset(&key); rc = docextSortKey(p, doc.a, &key, &zErr); }
      nAllocLeft = -1;
      if( rc==SQLITE_NOMEM ) nOomSeen++;
      if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){ bOk = 0; printf("sort OOM %d: rc=%d\n", iFail, rc); }
      docextSortFree(p);
      sqlite3_free(zErr);
    }
    docextBufFree(&doc); docextBufFree(&sort); docextBufFree(&key);
  }
  check(bOk, "out-of-memory at every allocation");
  check(nOomSeen>10, "out-of-memory injection reached docext");
  sqlite3_shutdown();
  sqlite3_config(SQLITE_CONFIG_MALLOC, &memDefault);
  sqlite3_initialize();
}

int main(void){
  testProjections();
  testReuse();
  testSorts();
  testSortErrors();
  testHostile();
  testOom();
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
