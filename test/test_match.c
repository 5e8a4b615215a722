/*
** test_match.c — MongoDB query filters (docext_match.c, docext_regex.c and
** the matching walker of docext_path.c).
**
** A table of (document, filter, expected) in mongo shell text, parsed with
** docextJsonParse(); expected is "1" (matches), "0" (does not) or the exact
** error message. Then the positional index (*piPos), the regex limits, a
** pattern over MongoDB's length cap, and an out-of-memory loop over
** compilation and matching: every failed allocation must give SQLITE_NOMEM
** (never a crash, a leak or a wrong answer).
**
** Build: gcc -std=c11 -O2 -Wall -Wextra -Werror -DSQLITE_CORE -I ext
**        test/test_match.c ext/(all .c) -lsqlite3 -lpcre2-8 -lstemmer -licui18n -licuuc -lm
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "oomfail.h"

static int nPass = 0, nFail = 0;

typedef struct MatchCase MatchCase;
struct MatchCase {
  const char *zDoc;
  const char *zFilter;
  const char *zExpect;    /* "1", "0" or an error message */
};

static const MatchCase aCase[] = {
  /* ---- equality, numbers across types ---- */
  { "{a: 1}", "{a: 1}", "1" },
  { "{a: 1}", "{a: 2}", "0" },
  { "{a: 1}", "{a: 1.0}", "1" },
  { "{a: NumberLong(1)}", "{a: 1}", "1" },
  { "{a: NumberDecimal(\"1.00\")}", "{a: 1}", "1" },
  { "{a: NumberDecimal(\"0.1\")}", "{a: 0.1}", "0" },
  { "{a: NumberDecimal(\"0.5\")}", "{a: 0.5}", "1" },
  { "{a: NumberLong(\"9007199254740993\")}", "{a: 9007199254740992.0}", "0" },
  { "{a: NumberLong(\"9007199254740993\")}", "{a: {$gt: 9007199254740992.0}}", "1" },
  { "{a: 1}", "{a: \"1\"}", "0" },
  { "{a: true}", "{a: 1}", "0" },
  { "{a: {$symbol: \"x\"}}", "{a: \"x\"}", "1" },
  { "{a: \"x\"}", "{a: {$eq: \"x\"}}", "1" },
  { "{}", "{}", "1" },
  { "{a: 1}", "{b: 1}", "0" },
  { "{\"\": 1}", "{\"\": 1}", "1" },
  /* ---- arrays: any element, or the whole array ---- */
  { "{a: [1, 2]}", "{a: 2}", "1" },
  { "{a: [1, 2]}", "{a: 3}", "0" },
  { "{a: [1, 2]}", "{a: [1, 2]}", "1" },
  { "{a: [[1, 2], 3]}", "{a: [1, 2]}", "1" },
  { "{a: [1, 2]}", "{a: [2, 1]}", "0" },
  { "{a: [1, 2, 3]}", "{a: [1, 2]}", "0" },
  { "{a: [[[1, 2]]]}", "{a: [1, 2]}", "0" },
  { "{a: [[1, 2]]}", "{a: 1}", "0" },
  { "{a: []}", "{a: []}", "1" },
  { "{a: [[]]}", "{a: []}", "1" },
  { "{a: [1]}", "{a: []}", "0" },
  /* ---- embedded documents: exact, field-ordered ---- */
  { "{a: {b: 1, c: 2}}", "{a: {b: 1, c: 2}}", "1" },
  { "{a: {b: 1, c: 2}}", "{a: {c: 2, b: 1}}", "0" },
  { "{a: {b: 1, c: 2, d: 3}}", "{a: {b: 1, c: 2}}", "0" },
  { "{a: {b: 1.0}}", "{a: {b: 1}}", "1" },
  { "{a: {b: {c: 5}}}", "{\"a.b.c\": 5}", "1" },
  { "{a: {b: {c: 5}}}", "{\"a.b\": {c: 5}}", "1" },
  { "{a: {b: {c: 5}}}", "{\"a.b\": {c: 5, d: 1}}", "0" },
  { "{a: [{b: 1}, {b: 2, c: 3}]}", "{a: {b: 2, c: 3}}", "1" },
  { "{a: {$ref: \"c\", $id: 1}}", "{a: {$ref: \"c\", $id: 1}}", "1" },
  /* ---- dotted paths through arrays ---- */
  { "{a: [{b: 1}, {b: 2}]}", "{\"a.b\": 2}", "1" },
  { "{a: [{b: 1}, {b: 2}]}", "{\"a.b\": 3}", "0" },
  { "{a: [{b: 1}, {b: 2}]}", "{\"a.b\": [1, 2]}", "0" },
  { "{a: [{b: [1, 2]}]}", "{\"a.b\": 2}", "1" },
  { "{a: [{b: [1, 2]}]}", "{\"a.b\": [1, 2]}", "1" },
  { "{a: [[{b: 1}]]}", "{\"a.b\": 1}", "0" },
  { "{a: [{b: {c: [{d: 7}]}}]}", "{\"a.b.c.d\": 7}", "1" },
  { "{a: [1, {b: 2}]}", "{\"a.b\": 2}", "1" },
  /* ---- numeric path components ---- */
  { "{reviews: [{user: \"ann\"}, {user: \"bob\"}]}", "{\"reviews.0.user\": \"ann\"}", "1" },
  { "{reviews: [{user: \"ann\"}, {user: \"bob\"}]}", "{\"reviews.0.user\": \"bob\"}", "0" },
  { "{reviews: [{user: \"ann\"}, {user: \"bob\"}]}", "{\"reviews.1.user\": \"bob\"}", "1" },
  { "{a: [10, 20]}", "{\"a.1\": 20}", "1" },
  { "{a: [10, 20]}", "{\"a.1\": 10}", "0" },
  { "{a: [10, 20]}", "{\"a.2\": null}", "0" },
  { "{a: {\"1\": \"x\"}}", "{\"a.1\": \"x\"}", "1" },
  { "{a: [{\"1\": \"y\"}, {\"1\": \"z\"}]}", "{\"a.1\": \"y\"}", "1" },
  { "{a: [{\"1\": \"y\"}, {\"1\": \"z\"}]}", "{\"a.1\": {\"1\": \"z\"}}", "1" },
  { "{a: [{\"0\": 5}]}", "{\"a.0\": 5}", "1" },
  { "{a: [5]}", "{\"a.0\": 5}", "1" },
  { "{a: [[1, 2], [3, 4]]}", "{\"a.1\": [3, 4]}", "1" },
  { "{a: [[1, 2], [3, 4]]}", "{\"a.0.1\": 2}", "1" },
  { "{a: [[1, 2], [3, 4]]}", "{\"a.1.0\": 2}", "0" },
  { "{a: [[{b: 1}], [{b: 2}]]}", "{\"a.1.b\": 2}", "1" },
  { "{a: [{b: [{c: 1}, {c: 2}]}]}", "{\"a.b.1.c\": 2}", "1" },
  { "{a: [{b: [{c: 1}, {c: 2}]}]}", "{\"a.0.b.c\": 2}", "1" },
  { "{a: [10, 20]}", "{\"a.01\": 20}", "0" },
  /* a numeric component is also a field name of each document element, so
  ** a document element without it reads as missing (as minimongo's suite,
  ** which mirrors MongoDB, has it) */
  { "{x: [7, {y: 8}, 9]}", "{\"x.1.y\": null}", "1" },
  { "{x: [7, {y: 8}, 9]}", "{\"x.1.y\": 8}", "1" },
  { "{a: [7, {b: 9}, {\"1\": {b: \"foo\"}}]}", "{\"a.1.b\": \"foo\"}", "1" },
  { "{a: [1, [{b: 2}], 3]}", "{\"a.1.b\": 2}", "1" },
  { "{a: [1, [{b: 2}], 3]}", "{\"a.1.b\": null}", "0" },
  { "{a: [5]}", "{\"a.0.b\": null}", "0" },
  { "{a: [{\"1\": 4}, 5]}", "{\"a.1\": 5}", "1" },
  { "{a: [{\"1\": 4}, 5]}", "{\"a.1\": null}", "0" },
  { "{a: [{\"1\": {foo: 4}}, {foo: 5}]}", "{\"a.1.foo\": null}", "1" },
  { "{a: [{b: 1}]}", "{\"a.0.b\": {$ne: null}}", "0" },
  /* MongoDB's path_test.cpp: an element reached by index is not traversed
  ** further (ArrayIndex2), field "1" of a document element comes before the
  ** element itself (ArrayIndex3), a.1.b reads element 1 of a nested array
  ** (ArrayIndexNested2). minimongo's suite matches {'a.1': 9} here; MongoDB
  ** does not. */
  { "{a: [[6, 7], [8, 9]]}", "{\"a.1\": 9}", "0" },
  { "{a: [[6, 7], [8, 9]]}", "{\"a.1\": [8, 9]}", "1" },
  { "{a: [5, [2, 4], 3]}", "{\"a.1\": 4}", "0" },
  { "{a: [5, {\"1\": 4}, 3]}", "{\"a.1\": 4}", "1" },
  { "{a: [5, {\"1\": 4}, 3]}", "{\"a.1\": {\"1\": 4}}", "1" },
  { "{a: [5, [{b: 4}], 3]}", "{\"a.1.b\": 4}", "1" },
  { "{a: [5, {b: 4}, 3]}", "{\"a.1.b\": 4}", "1" },
  { "{a: [{b: [2, 3]}, {b: [4, 5]}]}", "{\"a.0.b\": 3}", "1" },
  { "{a: [{b: [2, 3]}, {b: [4, 5]}]}", "{\"a.0.b\": 4}", "0" },
  /* ---- null, missing, undefined ---- */
  { "{}", "{a: null}", "1" },
  { "{a: null}", "{a: null}", "1" },
  { "{a: undefined}", "{a: null}", "1" },
  { "{a: 1}", "{a: null}", "0" },
  { "{a: [1, null]}", "{a: null}", "1" },
  { "{a: []}", "{a: null}", "0" },
  { "{a: [{c: 1}]}", "{\"a.b\": null}", "1" },
  { "{a: [{b: 1}]}", "{\"a.b\": null}", "0" },
  { "{a: [{b: 1}, {c: 1}]}", "{\"a.b\": null}", "1" },
  { "{a: 5}", "{\"a.b\": null}", "1" },
  { "{a: [1, 2]}", "{\"a.b\": null}", "0" },
  { "{a: {b: null}}", "{\"a.b\": null}", "1" },
  { "{}", "{a: {$eq: null}}", "1" },
  { "{}", "{a: {$gte: null}}", "1" },
  { "{}", "{a: {$lte: null}}", "1" },
  { "{}", "{a: {$gt: null}}", "0" },
  { "{}", "{a: {$lt: null}}", "0" },
  { "{a: null}", "{a: {$gte: null}}", "1" },
  { "{a: 5}", "{a: {$gt: null}}", "0" },
  { "{a: 5}", "{a: {$gte: null}}", "0" },
  { "{a: undefined}", "{a: {$lte: null}}", "1" },
  /* ---- $exists ---- */
  { "{a: 1}", "{a: {$exists: true}}", "1" },
  { "{}", "{a: {$exists: true}}", "0" },
  { "{}", "{a: {$exists: false}}", "1" },
  { "{a: null}", "{a: {$exists: false}}", "0" },
  { "{a: null}", "{a: {$exists: true}}", "1" },
  { "{a: 1}", "{a: {$exists: 0}}", "0" },
  { "{a: 1}", "{a: {$exists: \"no\"}}", "1" },
  { "{a: []}", "{a: {$exists: true}}", "1" },
  { "{a: [{b: 1}, {c: 1}]}", "{\"a.b\": {$exists: false}}", "0" },
  { "{a: [{c: 1}]}", "{\"a.b\": {$exists: true}}", "0" },
  { "{a: [{c: 1}]}", "{\"a.b\": {$exists: false}}", "1" },
  { "{a: []}", "{\"a.b\": {$exists: false}}", "1" },
  { "{a: [1, 2]}", "{\"a.5\": {$exists: false}}", "1" },
  { "{a: [1, 2]}", "{\"a.1\": {$exists: true}}", "1" },
  /* ---- comparisons bracket by type ---- */
  { "{a: 5}", "{a: {$gt: 4}}", "1" },
  { "{a: 5}", "{a: {$gt: 5}}", "0" },
  { "{a: 5}", "{a: {$gte: 5}}", "1" },
  { "{a: 5}", "{a: {$lt: 6}}", "1" },
  { "{a: 5}", "{a: {$lte: 5}}", "1" },
  { "{a: 5}", "{a: {$lt: 5}}", "0" },
  { "{a: \"abc\"}", "{a: {$gt: 5}}", "0" },
  { "{a: \"abc\"}", "{a: {$lt: 5}}", "0" },
  { "{a: \"abc\"}", "{a: {$gt: \"abb\"}}", "1" },
  { "{a: 5}", "{a: {$gt: \"a\"}}", "0" },
  { "{a: NumberDecimal(\"2\")}", "{a: {$gt: 1.5}}", "1" },
  { "{a: NumberLong(3)}", "{a: {$lt: 3.5}}", "1" },
  { "{a: true}", "{a: {$gt: false}}", "1" },
  { "{a: ISODate(\"2020-01-01\")}", "{a: {$gt: ISODate(\"2019-01-01\")}}", "1" },
  { "{a: ISODate(\"2020-01-01\")}", "{a: {$gt: 5}}", "0" },
  { "{a: {b: 2}}", "{a: {$gt: {b: 1}}}", "1" },
  { "{a: [1, 10]}", "{a: {$gt: 5, $lt: 3}}", "1" },
  { "{a: [1, 10]}", "{a: {$gt: [1, 5]}}", "1" },
  { "{a: [1, 2]}", "{a: {$lt: [1, 5]}}", "1" },
  { "{a: [1, 10]}", "{a: {$gte: 11}}", "0" },
  { "{a: [{b: 1}, {b: 7}]}", "{\"a.b\": {$gt: 5}}", "1" },
  { "{a: Timestamp(5, 1)}", "{a: {$gt: Timestamp(4, 9)}}", "1" },
  { "{a: ObjectId(\"507f1f77bcf86cd799439011\")}",
    "{a: {$lt: ObjectId(\"507f1f77bcf86cd799439012\")}}", "1" },
  /* ---- MinKey / MaxKey ---- */
  { "{a: 5}", "{a: {$lt: MaxKey}}", "1" },
  { "{a: \"x\"}", "{a: {$gt: MinKey}}", "1" },
  { "{a: null}", "{a: {$gte: MinKey}}", "1" },
  { "{a: MaxKey}", "{a: {$lt: MaxKey}}", "0" },
  { "{a: MaxKey}", "{a: {$lte: MaxKey}}", "1" },
  { "{a: 5}", "{a: {$gt: MaxKey}}", "0" },
  { "{a: 5}", "{a: {$lt: MinKey}}", "0" },
  { "{a: 5}", "{a: MaxKey}", "0" },
  { "{a: MinKey}", "{a: MinKey}", "1" },
  { "{a: MinKey}", "{a: {$gt: MinKey}}", "0" },
  { "{}", "{a: {$lt: MaxKey}}", "1" },
  /* ---- NaN ---- */
  { "{a: NaN}", "{a: NaN}", "1" },
  { "{a: NaN}", "{a: {$lt: 5}}", "0" },
  { "{a: NaN}", "{a: {$gt: 5}}", "0" },
  { "{a: NaN}", "{a: {$gte: NaN}}", "1" },
  { "{a: NaN}", "{a: {$lt: NaN}}", "0" },
  { "{a: 5}", "{a: {$gt: NaN}}", "0" },
  { "{a: 5}", "{a: {$lte: NaN}}", "0" },
  { "{a: NaN}", "{a: {$ne: NaN}}", "0" },
  { "{a: NumberDecimal(\"NaN\")}", "{a: NaN}", "1" },
  { "{a: NumberDecimal(\"NaN\")}", "{a: {$lt: 0}}", "0" },
  { "{a: Infinity}", "{a: {$gt: 1e308}}", "1" },
  { "{a: -Infinity}", "{a: {$lt: -1e308}}", "1" },
  /* ---- $ne ---- */
  { "{a: 1}", "{a: {$ne: 1}}", "0" },
  { "{a: 1}", "{a: {$ne: 2}}", "1" },
  { "{a: [1, 2]}", "{a: {$ne: 1}}", "0" },
  { "{a: [2, 3]}", "{a: {$ne: 1}}", "1" },
  { "{a: [1, 2]}", "{a: {$ne: [1, 2]}}", "0" },
  { "{}", "{a: {$ne: null}}", "0" },
  { "{}", "{a: {$ne: 1}}", "1" },
  { "{a: [{b: 1}, {b: 2}]}", "{\"a.b\": {$ne: 2}}", "0" },
  { "{a: [{b: 1}, {c: 2}]}", "{\"a.b\": {$ne: null}}", "0" },
  { "{a: [1, 2]}", "{\"a.b\": {$ne: null}}", "1" },
  /* ---- $in / $nin ---- */
  { "{a: 1}", "{a: {$in: [1, 2]}}", "1" },
  { "{a: 3}", "{a: {$in: [1, 2]}}", "0" },
  { "{a: [3, 2]}", "{a: {$in: [1, 2]}}", "1" },
  { "{}", "{a: {$in: [null]}}", "1" },
  { "{a: undefined}", "{a: {$in: [null, 5]}}", "1" },
  { "{}", "{a: {$in: [1]}}", "0" },
  { "{a: \"abc\"}", "{a: {$in: [/^a/]}}", "1" },
  { "{a: \"xbc\"}", "{a: {$in: [/^a/, 1]}}", "0" },
  { "{a: /^a/}", "{a: {$in: [/^a/]}}", "1" },
  { "{a: [1, 2]}", "{a: {$in: [[1, 2]]}}", "1" },
  { "{a: 1}", "{a: {$in: []}}", "0" },
  { "{a: 7}", "{a: {$in: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, \"x\", null, true]}}", "1" },
  { "{a: \"x\"}", "{a: {$in: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, \"x\", null, true]}}", "1" },
  { "{a: false}", "{a: {$in: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, \"x\", null, true]}}", "0" },
  { "{a: 2.0}", "{a: {$in: [NumberLong(2)]}}", "1" },
  { "{a: {b: 1}}", "{a: {$in: [{b: 1}]}}", "1" },
  { "{a: NaN}", "{a: {$in: [NaN]}}", "1" },
  { "{a: 1}", "{a: {$nin: [1, 2]}}", "0" },
  { "{a: 3}", "{a: {$nin: [1, 2]}}", "1" },
  { "{}", "{a: {$nin: [1]}}", "1" },
  { "{}", "{a: {$nin: [null]}}", "0" },
  { "{a: [3, 1]}", "{a: {$nin: [1]}}", "0" },
  { "{a: \"abc\"}", "{a: {$nin: [/b/]}}", "0" },
  { "{a: \"xyz\"}", "{a: {$nin: [/b/]}}", "1" },
  { "{a: [1, 2]}", "{a: {$nin: []}}", "1" },
  /* ---- $and $or $nor ---- */
  { "{a: 1, b: 2}", "{$and: [{a: 1}, {b: 2}]}", "1" },
  { "{a: 1, b: 2}", "{$and: [{a: 1}, {b: 3}]}", "0" },
  { "{a: 1, b: 2}", "{$or: [{a: 2}, {b: 2}]}", "1" },
  { "{a: 1, b: 2}", "{$or: [{a: 2}, {b: 3}]}", "0" },
  { "{a: 1, b: 2}", "{$nor: [{a: 2}, {b: 3}]}", "1" },
  { "{a: 1, b: 2}", "{$nor: [{a: 1}]}", "0" },
  { "{a: 1}", "{$and: [{a: {$gt: 0}}, {a: {$lt: 2}}]}", "1" },
  { "{a: 1, b: 2}", "{$or: [{$and: [{a: 1}, {b: 2}]}, {c: 1}]}", "1" },
  { "{a: 1}", "{a: 1, $or: [{b: 1}, {b: null}]}", "1" },
  { "{a: 1}", "{$or: [{}]}", "1" },
  { "{a: 1}", "{$nor: [{}]}", "0" },
  /* ---- $not ---- */
  { "{a: 5}", "{a: {$not: {$gt: 6}}}", "1" },
  { "{a: 5}", "{a: {$not: {$gt: 4}}}", "0" },
  { "{}", "{a: {$not: {$gt: 4}}}", "1" },
  { "{a: \"abc\"}", "{a: {$not: /b/}}", "0" },
  { "{a: \"xyz\"}", "{a: {$not: /b/}}", "1" },
  { "{a: [1, 7]}", "{a: {$not: {$gt: 5}}}", "0" },
  { "{a: 5}", "{a: {$not: {$gt: 4, $lt: 5}}}", "1" },
  { "{a: \"ABC\"}", "{a: {$not: {$regex: \"b\", $options: \"i\"}}}", "0" },
  { "{a: 5}", "{a: {$not: {$not: {$gt: 4}}}}", "1" },
  { "{a: 5}", "{a: {$not: {$in: [1, 5]}}}", "0" },
  /* ---- $type ---- */
  { "{a: 1}", "{a: {$type: \"int\"}}", "1" },
  { "{a: 1}", "{a: {$type: \"double\"}}", "0" },
  { "{a: 1.5}", "{a: {$type: 1}}", "1" },
  { "{a: 1.5}", "{a: {$type: 1.0}}", "1" },
  { "{a: 1}", "{a: {$type: \"number\"}}", "1" },
  { "{a: NumberDecimal(\"1\")}", "{a: {$type: \"number\"}}", "1" },
  { "{a: \"1\"}", "{a: {$type: \"number\"}}", "0" },
  { "{a: NumberLong(1)}", "{a: {$type: \"long\"}}", "1" },
  { "{a: NumberLong(1)}", "{a: {$type: 18}}", "1" },
  { "{a: \"s\"}", "{a: {$type: [\"int\", \"string\"]}}", "1" },
  { "{a: \"s\"}", "{a: {$type: [\"int\", 1]}}", "0" },
  { "{a: [1, 2]}", "{a: {$type: \"array\"}}", "1" },
  { "{a: [1, 2]}", "{a: {$type: 4}}", "1" },
  { "{a: [1, \"x\"]}", "{a: {$type: \"string\"}}", "1" },
  { "{a: []}", "{a: {$type: \"array\"}}", "1" },
  { "{a: [[]]}", "{a: {$type: \"array\"}}", "1" },
  { "{a: null}", "{a: {$type: \"null\"}}", "1" },
  { "{}", "{a: {$type: \"null\"}}", "0" },
  { "{a: undefined}", "{a: {$type: \"undefined\"}}", "1" },
  { "{a: {}}", "{a: {$type: \"object\"}}", "1" },
  { "{a: MinKey}", "{a: {$type: -1}}", "1" },
  { "{a: MinKey}", "{a: {$type: \"minKey\"}}", "1" },
  { "{a: MaxKey}", "{a: {$type: 127}}", "1" },
  { "{a: MaxKey}", "{a: {$type: \"maxKey\"}}", "1" },
  { "{a: ObjectId(\"507f1f77bcf86cd799439011\")}", "{a: {$type: \"objectId\"}}", "1" },
  { "{a: true}", "{a: {$type: 8}}", "1" },
  { "{a: true}", "{a: {$type: \"bool\"}}", "1" },
  { "{a: /x/}", "{a: {$type: \"regex\"}}", "1" },
  { "{a: NumberDecimal(\"1\")}", "{a: {$type: \"decimal\"}}", "1" },
  { "{a: ISODate(\"2020-01-01\")}", "{a: {$type: \"date\"}}", "1" },
  { "{a: Timestamp(1, 2)}", "{a: {$type: \"timestamp\"}}", "1" },
  { "{a: BinData(0, \"AQ==\")}", "{a: {$type: \"binData\"}}", "1" },
  { "{a: {$symbol: \"s\"}}", "{a: {$type: \"symbol\"}}", "1" },
  { "{a: {$symbol: \"s\"}}", "{a: {$type: \"string\"}}", "0" },
  { "{a: {$code: \"f()\"}}", "{a: {$type: \"javascript\"}}", "1" },
  { "{a: [{b: \"x\"}, {b: 2}]}", "{\"a.b\": {$type: \"int\"}}", "1" },
  /* ---- $mod ---- */
  { "{a: 7}", "{a: {$mod: [4, 3]}}", "1" },
  { "{a: 8}", "{a: {$mod: [4, 3]}}", "0" },
  { "{a: -7}", "{a: {$mod: [4, -3]}}", "1" },
  { "{a: -7}", "{a: {$mod: [4, 3]}}", "0" },
  { "{a: 7.9}", "{a: {$mod: [4, 3]}}", "1" },
  { "{a: -7.9}", "{a: {$mod: [4, -3]}}", "1" },
  { "{a: 7}", "{a: {$mod: [4.9, 3]}}", "1" },
  { "{a: 7}", "{a: {$mod: [-4, 3]}}", "1" },
  { "{a: 7}", "{a: {$mod: [4, 3.7]}}", "1" },
  { "{a: NumberLong(7)}", "{a: {$mod: [NumberLong(4), NumberLong(3)]}}", "1" },
  { "{a: NumberDecimal(\"7.5\")}", "{a: {$mod: [4, 3]}}", "1" },
  { "{a: NumberDecimal(\"-7.5\")}", "{a: {$mod: [4, -3]}}", "1" },
  { "{a: NumberDecimal(\"1E+30\")}", "{a: {$mod: [2, 0]}}", "0" },
  { "{a: NumberDecimal(\"NaN\")}", "{a: {$mod: [2, 0]}}", "0" },
  { "{a: \"7\"}", "{a: {$mod: [4, 3]}}", "0" },
  { "{a: NaN}", "{a: {$mod: [4, 0]}}", "0" },
  { "{a: Infinity}", "{a: {$mod: [4, 0]}}", "0" },
  { "{a: 1e30}", "{a: {$mod: [2, 0]}}", "0" },
  { "{a: NumberLong(\"-9223372036854775808\")}", "{a: {$mod: [-1, 0]}}", "1" },
  { "{a: [1, 7]}", "{a: {$mod: [4, 3]}}", "1" },
  { "{}", "{a: {$mod: [4, 0]}}", "0" },
  /* ---- $regex ---- */
  { "{a: \"Hello\"}", "{a: /hello/}", "0" },
  { "{a: \"Hello\"}", "{a: /hello/i}", "1" },
  { "{a: \"Hello\"}", "{a: {$regex: \"^H\"}}", "1" },
  { "{a: \"Hello\"}", "{a: {$regex: \"^h\", $options: \"i\"}}", "1" },
  { "{a: \"a\\nb\"}", "{a: /^b/}", "0" },
  { "{a: \"a\\nb\"}", "{a: /^b/m}", "1" },
  { "{a: \"a\\nb\"}", "{a: /a.b/}", "0" },
  { "{a: \"a\\nb\"}", "{a: /a.b/s}", "1" },
  { "{a: \"abc\"}", "{a: {$regex: \"a b c\", $options: \"x\"}}", "1" },
  { "{a: \"abc\"}", "{a: /a b c/x}", "1" },
  { "{a: \"abc\"}", "{a: /a b c/}", "0" },
  { "{a: \"abc\"}", "{a: {$regex: \"a\", $options: \"u\"}}", "1" },
  { "{a: [\"x\", \"abc\"]}", "{a: /b/}", "1" },
  { "{a: {$symbol: \"abc\"}}", "{a: /b/}", "1" },
  { "{a: 5}", "{a: /5/}", "0" },
  { "{}", "{a: /x*/}", "0" },
  { "{a: /abc/i}", "{a: /abc/i}", "1" },
  { "{a: /abc/}", "{a: /abc/i}", "0" },
  { "{a: /abc/}", "{a: /ab/}", "0" },
  { "{a: \"\xc3\xa9\"}", "{a: /^.$/}", "1" },
  { "{a: \"\xc3\x89\x43OLE\"}", "{a: /\xc3\xa9\x63ole/i}", "1" },
  { "{a: \"abc\"}", "{a: {$regex: /B/, $options: \"i\"}}", "1" },
  { "{a: \"abc\"}", "{a: {$regex: /B/i}}", "1" },
  { "{a: \"abc\"}", "{a: {$regex: \"b\", $ne: \"abc\"}}", "0" },
  { "{a: \"abd\"}", "{a: {$regex: \"b\", $ne: \"abc\"}}", "1" },
  { "{a: {b: \"abc\"}}", "{\"a.b\": /c$/}", "1" },
  { "{a: \"abc\"}", "{a: {$eq: /abc/}}", "0" },
  { "{a: /abc/}", "{a: {$eq: /abc/}}", "1" },
  /* ---- $all ---- */
  { "{a: [1, 2, 3]}", "{a: {$all: [1, 3]}}", "1" },
  { "{a: [1, 2, 3]}", "{a: {$all: [1, 4]}}", "0" },
  { "{a: [1, 2, 3]}", "{a: {$all: []}}", "0" },
  { "{a: 1}", "{a: {$all: [1]}}", "1" },
  { "{a: [[1, 2], 3]}", "{a: {$all: [[1, 2]]}}", "1" },
  { "{a: [1, 2]}", "{a: {$all: [[1, 2]]}}", "1" },
  { "{a: [\"abc\", \"x\"]}", "{a: {$all: [/b/, \"x\"]}}", "1" },
  { "{a: [{b: 1}, {b: 2}]}", "{\"a.b\": {$all: [1, 2]}}", "1" },
  { "{a: [{b: 1, c: 2}, {b: 3}]}", "{a: {$all: [{$elemMatch: {b: 1}}, {$elemMatch: {b: 3}}]}}", "1" },
  { "{a: [{b: 1, c: 2}, {b: 3}]}", "{a: {$all: [{$elemMatch: {b: 1}}, {$elemMatch: {b: 4}}]}}", "0" },
  { "{a: [{b: 1, c: 2}, {b: 3}]}", "{a: {$all: [{$elemMatch: {b: 1, c: 2}}]}}", "1" },
  { "{}", "{a: {$all: [null]}}", "1" },
  /* ---- $elemMatch ---- */
  { "{a: [{b: 1, c: 2}, {b: 2, c: 1}]}", "{a: {$elemMatch: {b: 1, c: 1}}}", "0" },
  { "{a: [{b: 1, c: 2}, {b: 2, c: 1}]}", "{a: {$elemMatch: {b: 2, c: 1}}}", "1" },
  { "{a: [{b: 1, c: 2}, {b: 2, c: 1}]}", "{\"a.b\": 1, \"a.c\": 1}", "1" },
  { "{a: [1, 5, 9]}", "{a: {$elemMatch: {$gt: 4, $lt: 6}}}", "1" },
  { "{a: [1, 9]}", "{a: {$elemMatch: {$gt: 4, $lt: 6}}}", "0" },
  { "{a: [1, 9]}", "{a: {$gt: 4, $lt: 6}}", "1" },
  { "{a: 5}", "{a: {$elemMatch: {$gt: 4}}}", "0" },
  { "{a: [[1, 2]]}", "{a: {$elemMatch: {$elemMatch: {$eq: 2}}}}", "1" },
  { "{a: [[1, 2]]}", "{a: {$elemMatch: {$eq: 2}}}", "0" },
  { "{a: [{b: [1, 2]}]}", "{a: {$elemMatch: {b: 2}}}", "1" },
  { "{a: [{b: [0, 2]}]}", "{\"a.b\": {$elemMatch: {$gt: 1}}}", "1" },
  { "{a: [1, 2]}", "{a: {$elemMatch: {}}}", "0" },
  { "{a: [{}]}", "{a: {$elemMatch: {}}}", "1" },
  { "{a: [[1]]}", "{a: {$elemMatch: {}}}", "1" },
  { "{a: [{b: 1}]}", "{a: {$elemMatch: {$or: [{b: 1}, {b: 2}]}}}", "1" },
  { "{a: [{b: 3}]}", "{a: {$elemMatch: {$or: [{b: 1}, {b: 2}]}}}", "0" },
  { "{a: [1, 2]}", "{a: {$elemMatch: {$not: {$gt: 1}}}}", "1" },
  { "{a: [2, 3]}", "{a: {$elemMatch: {$not: {$gt: 1}}}}", "0" },
  { "{a: [1, 2]}", "{a: {$elemMatch: {$ne: 1}}}", "1" },
  { "{a: [1, 1]}", "{a: {$elemMatch: {$ne: 1}}}", "0" },
  { "{a: [1, 2]}", "{a: {$elemMatch: {$in: [2, 3]}}}", "1" },
  { "{a: [1, 2]}", "{a: {$elemMatch: {$nin: [1, 2]}}}", "0" },
  { "{a: [[1, 2], [3]]}", "{a: {$elemMatch: {$size: 1}}}", "1" },
  { "{a: [\"x\", \"abc\"]}", "{a: {$elemMatch: {$regex: \"^a\"}}}", "1" },
  { "{a: [\"x\", \"abc\"]}", "{a: {$elemMatch: {$regex: \"^A\", $options: \"i\"}}}", "1" },
  { "{a: [1]}", "{a: {$elemMatch: {$exists: true}}}", "1" },
  { "{a: [1, \"x\"]}", "{a: {$elemMatch: {$type: \"string\"}}}", "1" },
  { "{a: [3, 5]}", "{a: {$elemMatch: {$mod: [2, 1], $gt: 4}}}", "1" },
  { "{a: [5, 6]}", "{a: {$elemMatch: {$bitsAllSet: [1, 2]}}}", "1" },
  { "{a: [1, 2]}", "{a: {$elemMatch: {$all: [2]}}}", "1" },
  { "{a: [{b: 1}]}", "{a: {$elemMatch: {b: {$exists: true}}}}", "1" },
  { "{a: [[{b: 1}]]}", "{a: {$elemMatch: {b: 1}}}", "0" },
  { "{a: [[5]]}", "{a: {$elemMatch: {\"0\": 5}}}", "1" },
  { "{a: [{b: {c: 1}}]}", "{a: {$elemMatch: {\"b.c\": 1}}}", "1" },
  { "{a: {b: [{c: 1}]}}", "{\"a.b\": {$elemMatch: {c: 1}}}", "1" },
  { "{a: [{b: [{c: 1}, {c: 2}]}]}", "{a: {$elemMatch: {b: {$elemMatch: {c: 2}}}}}", "1" },
  { "{}", "{a: {$elemMatch: {$gt: 1}}}", "0" },
  /* ---- $size ---- */
  { "{a: [1, 2]}", "{a: {$size: 2}}", "1" },
  { "{a: [1, 2]}", "{a: {$size: 1}}", "0" },
  { "{a: []}", "{a: {$size: 0}}", "1" },
  { "{a: \"ab\"}", "{a: {$size: 2}}", "0" },
  { "{a: [[1, 2]]}", "{a: {$size: 2}}", "0" },
  { "{a: [{b: [1, 2]}, {b: [1]}]}", "{\"a.b\": {$size: 1}}", "1" },
  { "{}", "{a: {$size: 0}}", "0" },
  { "{a: [1, 2]}", "{a: {$size: 2.0}}", "1" },
  { "{a: [1, 2]}", "{a: {$size: NumberLong(2)}}", "1" },
  { "{a: [1, 2]}", "{a: {$not: {$size: 2}}}", "0" },
  /* ---- bit tests ---- */
  { "{a: 5}", "{a: {$bitsAllSet: 5}}", "1" },
  { "{a: 5}", "{a: {$bitsAllSet: 7}}", "0" },
  { "{a: 5}", "{a: {$bitsAnySet: [1, 2]}}", "1" },
  { "{a: 5}", "{a: {$bitsAnySet: [1, 3]}}", "0" },
  { "{a: 5}", "{a: {$bitsAllClear: [1, 3]}}", "1" },
  { "{a: 5}", "{a: {$bitsAllClear: [0, 1]}}", "0" },
  { "{a: 5}", "{a: {$bitsAnyClear: [0, 2]}}", "0" },
  { "{a: 5}", "{a: {$bitsAnyClear: [0, 1]}}", "1" },
  { "{a: -1}", "{a: {$bitsAllSet: [63, 100]}}", "1" },
  { "{a: 1}", "{a: {$bitsAllClear: [100]}}", "1" },
  { "{a: NumberLong(\"-9223372036854775808\")}", "{a: {$bitsAllSet: [63]}}", "1" },
  { "{a: 5.0}", "{a: {$bitsAllSet: [0]}}", "1" },
  { "{a: 5.5}", "{a: {$bitsAllSet: [0]}}", "0" },
  { "{a: 1e20}", "{a: {$bitsAnySet: 1}}", "0" },
  { "{a: NaN}", "{a: {$bitsAllClear: 1}}", "0" },
  { "{a: \"5\"}", "{a: {$bitsAllSet: [0]}}", "0" },
  { "{a: BinData(0, \"BQ==\")}", "{a: {$bitsAllSet: [0, 2]}}", "1" },
  { "{a: BinData(0, \"BQ==\")}", "{a: {$bitsAnySet: [8]}}", "0" },
  { "{a: BinData(0, \"AAE=\")}", "{a: {$bitsAllSet: [8]}}", "1" },
  { "{a: 5}", "{a: {$bitsAllSet: BinData(0, \"BQ==\")}}", "1" },
  { "{a: 4}", "{a: {$bitsAllSet: BinData(0, \"BQ==\")}}", "0" },
  { "{a: [2, 5]}", "{a: {$bitsAllSet: [0, 2]}}", "1" },
  { "{a: 5}", "{a: {$bitsAllSet: []}}", "1" },
  { "{a: 5}", "{a: {$bitsAnySet: []}}", "0" },
  { "{a: 5}", "{a: {$bitsAllSet: NumberLong(4)}}", "1" },
  /* a decimal128 is tested as MongoDB's numberLong() reads it: rounded to
  ** the nearest integer, ties to even; NaN, infinities and values beyond
  ** int64 as INT64_MIN (Decimal128::toLong) */
  { "{a: NumberDecimal(\"5\")}", "{a: {$bitsAllSet: [0, 2]}}", "1" },
  { "{a: NumberDecimal(\"5.5\")}", "{a: {$bitsAllSet: [1, 2]}}", "1" },
  { "{a: NumberDecimal(\"5.5\")}", "{a: {$bitsAnySet: [0]}}", "0" },
  { "{a: NumberDecimal(\"4.5\")}", "{a: {$bitsAllSet: [2]}}", "1" },
  { "{a: NumberDecimal(\"4.5\")}", "{a: {$bitsAnySet: [0]}}", "0" },
  { "{a: NumberDecimal(\"4.50001\")}", "{a: {$bitsAllSet: [0, 2]}}", "1" },
  { "{a: NumberDecimal(\"-0.5\")}", "{a: {$bitsAllClear: [0, 63]}}", "1" },
  { "{a: NumberDecimal(\"-1.5\")}", "{a: {$bitsAllSet: [1, 63]}}", "1" },
  { "{a: NumberDecimal(\"1E+2\")}", "{a: {$bitsAllSet: 100}}", "1" },
  { "{a: NumberDecimal(\"NaN\")}", "{a: {$bitsAllSet: [63]}}", "1" },
  { "{a: NumberDecimal(\"NaN\")}", "{a: {$bitsAnySet: [0]}}", "0" },
  { "{a: NumberDecimal(\"Infinity\")}", "{a: {$bitsAllSet: [63]}}", "1" },
  { "{a: NumberDecimal(\"1E+30\")}", "{a: {$bitsAllSet: [63]}}", "1" },
  { "{a: NumberDecimal(\"9223372036854775807\")}", "{a: {$bitsAllSet: [0, 62]}}", "1" },
  { "{a: NumberDecimal(\"9223372036854775807.5\")}", "{a: {$bitsAllSet: [63]}}", "1" },
  /* ---- $comment, $alwaysTrue/$alwaysFalse ---- */
  { "{a: 1}", "{a: 1, $comment: \"hi\"}", "1" },
  { "{a: 1}", "{$comment: \"x\"}", "1" },
  { "{a: 1}", "{$alwaysFalse: 1}", "0" },
  { "{a: 1}", "{$alwaysTrue: 1}", "1" },
  /* ---- $expr (sql/expr.sql has the rest) ---- */
  { "{a: 2, b: 1}", "{$expr: {$gt: [\"$a\", \"$b\"]}}", "1" },
  { "{a: 1}", "{$expr: {$eq: [\"$b\", null]}}", "0" },
  { "{a: [1, 2]}", "{a: 1, $expr: {$eq: [{$size: \"$a\"}, 2]}}", "1" },
  { "{a: [1, 2]}", "{$or: [{a: 3}, {$expr: {$in: [2, \"$a\"]}}]}", "1" },
  { "{}", "{$expr: {$size: \"$a\"}}", "docext: $expr: $size needs an array, not missing" },
  { "{}", "{$or: [{a: 1}, {$expr: {$foo: 1}}]}",
    "docext: $expr: unknown or unsupported expression operator $foo" },
  /* ---- errors: unsupported ---- */
  { "{}", "{$where: \"this.a == 1\"}", "docext: $where is not supported" },
  { "{}", "{$text: {$search: \"x\"}}", "docext: $text needs a text index: use it in a "
                                        "query of a collection that has one (text index "
                                        "required for $text query)" },
  { "{}", "{$text: {$search: 5}}", "docext: $text: $search must be a string" },
  /* ---- $jsonSchema (sql/schema.sql has the rest) ---- */
  { "{}", "{$jsonSchema: {}}", "1" },
  { "{a: 1}", "{$jsonSchema: {required: [\"a\"], properties: {a: {bsonType: \"int\"}}}}", "1" },
  { "{a: [1]}", "{$jsonSchema: {properties: {a: {bsonType: \"int\"}}}}", "0" },
  { "{a: \"x\"}", "{$jsonSchema: {properties: {a: {minimum: 5}}}}", "1" },
  { "{}", "{$jsonSchema: {required: \"a\"}}",
    "docext: $jsonSchema keyword 'required' must be an array" },
  /* ---- geospatial (sql/geo.sql has the rest) ---- */
  { "{}", "{a: {$near: [0, 0]}}", "0" },
  { "{a: [3, 4]}", "{a: {$near: [0, 0], $maxDistance: 5}}", "1" },
  { "{a: [3, 4]}", "{a: {$near: [0, 0], $maxDistance: 4.9}}", "0" },
  { "{a: [3, 4]}", "{a: {$near: [0, 0], $minDistance: 5.1}}", "0" },
  { "{a: [0, 1]}", "{a: {$nearSphere: [0, 0], $maxDistance: 0.0175}}", "1" },
  { "{a: [0, 1]}", "{a: {$near: {$geometry: {type: \"Point\", coordinates: [0, 0]}, "
                   "$maxDistance: 111000}}}", "0" },
  { "{}", "{$or: [{a: {$near: [0, 0]}}]}",
    "docext: $near and $nearSphere must be at the top of the filter (or in a $and there), "
    "not under $or, $nor, $not or $elemMatch in filter at 'a'" },
  { "{a: [3, 4]}", "{$and: [{b: {$exists: false}}, {$and: [{a: {$near: [0, 0], $maxDistance: 5}}]}]}",
    "1" },
  { "{a: [0, 1]}", "{a: {$near: {$maxDistance: 120000, $geometry: {type: \"Point\", "
                   "coordinates: [0, 0]}}}}", "1" },
  { "{a: [3, 4]}", "{a: {$near: [0, 0, 4], $maxDistance: 6}}", "1" },
  { "{a: [3, 4]}", "{a: {$maxDistance: 6, $near: [0, 0, 4]}}", "0" },
  { "{}", "{a: {$geoWithin: {$box: [[0, 0], [1, 1]]}}}", "0" },
  { "{a: [0.5, 1]}", "{a: {$geoWithin: {$box: [[0, 0], [1, 1]]}}}", "1" },
  { "{a: [0.5, 1.5]}", "{a: {$geoWithin: {$box: [[0, 0], [1, 1]]}}}", "0" },
  { "{a: {type: \"Point\", coordinates: [0.5, 0.5]}}",
    "{a: {$geoWithin: {$geometry: {type: \"Polygon\", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]]}}}}", "1" },
  { "{a: {type: \"Point\", coordinates: [0.5, 0.6]}}",
    "{a: {$geoWithin: {$geometry: {type: \"Polygon\", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]]}}}}", "0" },
  { "{a: {type: \"Point\", coordinates: [0.5, 0.6]}}",
    "{a: {$not: {$geoWithin: {$geometry: {type: \"Polygon\", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]]}}}}}", "1" },
  { "{}", "{a: {$geoIntersects: {}}}",
    "docext: bad $geoIntersects in filter at 'a': geo query doesn't have any geometry" },
  { "{}", "{$or: [{a: 1}, {$where: \"x\"}]}", "docext: $where is not supported" },
  { "{}", "{a: {$elemMatch: {$where: \"x\"}}}", "docext: $where is not supported" },
  /* ---- errors: unknown operators ---- */
  { "{}", "{a: {$foo: 1}}", "docext: unknown operator $foo in filter at 'a'" },
  { "{}", "{$foo: 1}", "docext: unknown operator $foo in filter" },
  { "{}", "{a: {$gt: 1, b: 1}}", "docext: unknown operator b in filter at 'a'" },
  { "{}", "{a: {$comment: 1}}", "docext: unknown operator $comment in filter at 'a'" },
  { "{}", "{a: {$and: [{b: 1}]}}", "docext: unknown operator $and in filter at 'a'" },
  { "{}", "{a: {$elemMatch: {$gt: 1, $bar: 2}}}", "docext: unknown operator $bar in filter at 'a'" },
  { "{}", "{\"x.y\": {$not: {$bar: 2}}}", "docext: unknown operator $bar in filter at 'x.y'" },
  /* a top-level-only operator first makes $elemMatch's argument a query
  ** on each document (or array) element, as in MongoDB */
  { "{a: [{b: 1}]}", "{a: {$elemMatch: {$alwaysTrue: 1}}}", "1" },
  { "{a: [1]}", "{a: {$elemMatch: {$alwaysTrue: 1}}}", "0" },
  { "{a: [{b: 1}]}", "{a: {$elemMatch: {$alwaysFalse: 1}}}", "0" },
  /* ---- errors: operands ---- */
  { "{}", "{$and: []}", "docext: $and needs a non-empty array in filter" },
  { "{}", "{$or: 1}", "docext: $or needs a non-empty array in filter" },
  { "{}", "{$nor: [1]}", "docext: $nor entries must be documents in filter" },
  { "{}", "{a: {$in: 1}}", "docext: $in needs an array in filter at 'a'" },
  { "{}", "{tags: {$in: \"x\"}}", "docext: $in needs an array in filter at 'tags'" },
  { "{}", "{a: {$nin: {}}}", "docext: $nin needs an array in filter at 'a'" },
  { "{}", "{a: {$in: [{$gt: 1}]}}", "docext: cannot nest $ under $in in filter at 'a'" },
  { "{}", "{a: {$in: [undefined]}}", "docext: $in cannot contain undefined in filter at 'a'" },
  { "{}", "{a: undefined}", "docext: cannot compare to undefined in filter at 'a'" },
  { "{}", "{a: {$gt: undefined}}", "docext: cannot compare to undefined in filter at 'a'" },
  { "{}", "{a: {$ne: /x/}}", "docext: $ne cannot take a regex in filter at 'a'" },
  { "{}", "{a: {$gt: /x/}}", "docext: $gt cannot take a regex in filter at 'a'" },
  { "{}", "{a: {$not: 1}}", "docext: $not needs a regex or a document in filter at 'a'" },
  { "{}", "{a: {$not: {}}}", "docext: $not cannot be empty in filter at 'a'" },
  { "{}", "{a: {$not: {b: 1}}}",
    "docext: $not needs operators, not a document to compare with in filter at 'a'" },
  { "{}", "{a: {$type: \"foo\"}}", "docext: $type: unknown type alias 'foo' in filter at 'a'" },
  { "{}", "{a: {$type: 42}}", "docext: $type: invalid type code 42 in filter at 'a'" },
  { "{}", "{a: {$type: 1.5}}", "docext: $type: invalid type code 1.5 in filter at 'a'" },
  { "{}", "{a: {$type: 0}}", "docext: $type: invalid type code 0 in filter at 'a'" },
  /* (no conversion to int before the range check: the sanitizer's
  ** float-cast-overflow) */
  { "{}", "{a: {$type: -Infinity}}", "docext: $type: invalid type code -Inf in filter at 'a'" },
  { "{}", "{a: {$type: NaN}}", "docext: $type: invalid type code NaN in filter at 'a'" },
  { "{}", "{a: {$type: 1e300}}", "docext: $type: invalid type code 1e+300 in filter at 'a'" },
  { "{}", "{a: {$type: true}}", "docext: $type needs a type alias or code in filter at 'a'" },
  { "{}", "{a: {$type: [\"int\", \"nope\"]}}", "docext: $type: unknown type alias 'nope' in filter at 'a'" },
  { "{a: 1}", "{a: {$type: []}}", "docext: $type must match at least one type in filter at 'a'" },
  { "{}", "{a: {$mod: 4}}", "docext: $mod needs an array [divisor, remainder] in filter at 'a'" },
  { "{}", "{a: {$mod: [4]}}", "docext: $mod: not enough elements in filter at 'a'" },
  { "{}", "{a: {$mod: []}}", "docext: $mod: not enough elements in filter at 'a'" },
  { "{}", "{a: {$mod: [4, 1, 2]}}", "docext: $mod: too many elements in filter at 'a'" },
  { "{}", "{a: {$mod: [\"4\", 1]}}", "docext: $mod: divisor not a number in filter at 'a'" },
  { "{}", "{a: {$mod: [4, null]}}", "docext: $mod: remainder not a number in filter at 'a'" },
  { "{}", "{a: {$mod: [0, 1]}}", "docext: $mod: divisor cannot be 0 in filter at 'a'" },
  { "{}", "{a: {$mod: [0.5, 1]}}", "docext: $mod: divisor cannot be 0 in filter at 'a'" },
  { "{}", "{a: {$mod: [NaN, 1]}}",
    "docext: $mod: invalid divisor (cannot coerce NaN/Infinity to an integer) in filter at 'a'" },
  { "{}", "{a: {$mod: [Infinity, 1]}}",
    "docext: $mod: invalid divisor (cannot coerce NaN/Infinity to an integer) in filter at 'a'" },
  { "{}", "{a: {$mod: [1e30, 1]}}",
    "docext: $mod: invalid divisor (out of bounds for a 64-bit integer) in filter at 'a'" },
  { "{}", "{a: {$mod: [4, NaN]}}",
    "docext: $mod: invalid remainder (cannot coerce NaN/Infinity to an integer) in filter at 'a'" },
  { "{}", "{a: {$size: \"2\"}}", "docext: $size needs a number in filter at 'a'" },
  { "{}", "{a: {$size: 1.5}}", "docext: $size must be a whole number in filter at 'a'" },
  { "{}", "{a: {$size: -1}}", "docext: $size may not be negative in filter at 'a'" },
  { "{}", "{a: {$size: 1e10}}", "docext: $size must fit in a 32-bit integer in filter at 'a'" },
  { "{}", "{a: {$all: 1}}", "docext: $all needs an array in filter at 'a'" },
  { "{}", "{a: {$all: [{$elemMatch: {b: 1}}, 1]}}",
    "docext: $all/$elemMatch has to be consistent in filter at 'a'" },
  { "{}", "{a: {$all: [{$gt: 1}]}}", "docext: no $ expressions in $all in filter at 'a'" },
  { "{}", "{a: {$elemMatch: 1}}", "docext: $elemMatch needs a document in filter at 'a'" },
  { "{}", "{a: {$exists: true, $elemMatch: [1]}}", "docext: $elemMatch needs a document in filter at 'a'" },
  { "{}", "{a: {$bitsAllSet: -1}}",
    "docext: $bitsAllSet needs a non-negative whole number as bitmask in filter at 'a'" },
  { "{}", "{a: {$bitsAnySet: 1.5}}",
    "docext: $bitsAnySet needs a non-negative whole number as bitmask in filter at 'a'" },
  { "{}", "{a: {$bitsAllClear: [-1]}}",
    "docext: $bitsAllClear: bit positions must be non-negative 32-bit integers in filter at 'a'" },
  { "{}", "{a: {$bitsAnyClear: [\"1\"]}}",
    "docext: $bitsAnyClear: bit positions must be non-negative 32-bit integers in filter at 'a'" },
  { "{}", "{a: {$bitsAllSet: [1e10]}}",
    "docext: $bitsAllSet: bit positions must be non-negative 32-bit integers in filter at 'a'" },
  { "{}", "{a: {$bitsAllSet: \"x\"}}",
    "docext: $bitsAllSet needs an array of bit positions, a number or BinData in filter at 'a'" },
  /* ---- errors: $regex ---- */
  { "{}", "{a: {$options: \"i\"}}", "docext: $options needs a $regex in filter at 'a'" },
  { "{}", "{a: {$regex: 5}}", "docext: $regex has to be a string or a regex in filter at 'a'" },
  { "{}", "{a: {$regex: \"x\", $options: 5}}", "docext: $options has to be a string in filter at 'a'" },
  { "{}", "{a: {$regex: /x/i, $options: \"m\"}}",
    "docext: options set in both $regex and $options in filter at 'a'" },
  { "{}", "{a: {$regex: \"x\", $options: \"iz\", $exists: true}}",
    "docext: invalid regex /x/: unknown option 'z'" },
  { "{}", "{a: /x/l}", "docext: invalid regex /x/: unknown option 'l'" },
  { "{}", "{a: {$regex: \"(\"}}",
    "docext: invalid regex /(/: missing closing parenthesis at offset 1" },
  { "{}", "{a: {$in: [/x/, {$regex: \"a[\"}]}}",
    "docext: invalid regex /a[/: missing terminating ] for character class at offset 2" },
  { "{}", "{a: {$not: {$regex: \"*\"}}}",
    "docext: invalid regex /*/: quantifier does not follow a repeatable item at offset 0" },
};

/* Parse shell text into pBuf; 0 on success (else reports a failure). */
static int parseText(const char *z, DocBuf *pBuf){
  char *zErr = 0;
  int nUsed = 0;
  int rc = docextJsonParse(z, (int)strlen(z), 1, pBuf, &nUsed, &zErr);
  if( rc ){
    printf("FAIL: cannot parse %s: %s\n", z, zErr ? zErr : "?");
    sqlite3_free(zErr);
    nFail++;
  }
  return rc;
}

/* Run filter aFilter on aDoc: "1", "0" or the error into zOut; *piPos. */
static void runMatch(const u8 *aDoc, const u8 *aFilter, char *zOut, int nOut, int *piPos){
  DocMatcher *pM = 0;
  char *zErr = 0;
  int rc = docextMatcherNew(aFilter, 0, 0, &pM, &zErr);
  *piPos = -2;
  if( rc==SQLITE_OK ){
    int bMatch = -1;
    rc = docextMatcherMatch(pM, aDoc, &bMatch, piPos, &zErr);
    if( rc==SQLITE_OK ) snprintf(zOut, nOut, "%d", bMatch);
  }
  if( rc!=SQLITE_OK ){
    snprintf(zOut, nOut, "%s", zErr ? zErr : sqlite3_errstr(rc));
  }
  sqlite3_free(zErr);
  docextMatcherFree(pM);
}

/* One case from text. */
static void checkCase(const char *zDoc, const char *zFilter, const char *zExpect,
                      int iExpectPos){
  DocBuf doc, filter;
  memset(&doc, 0, sizeof(doc));
  memset(&filter, 0, sizeof(filter));
  if( parseText(zDoc, &doc)==0 && parseText(zFilter, &filter)==0 ){
    char zGot[512];
    int iPos;
    runMatch(doc.a, filter.a, zGot, sizeof(zGot), &iPos);
    if( strcmp(zGot, zExpect)!=0 ){
      printf("FAIL: doc %s filter %s: expected %s, got %s\n", zDoc, zFilter, zExpect, zGot);
      nFail++;
    }else if( iExpectPos>=-1 && iPos!=iExpectPos ){
      printf("FAIL: doc %s filter %s: expected position %d, got %d\n",
             zDoc, zFilter, iExpectPos, iPos);
      nFail++;
    }else{
      nPass++;
    }
  }
  docextBufFree(&doc);
  docextBufFree(&filter);
}

/* The positional index (MongoDB's elemMatchKey). */
typedef struct PosCase PosCase;
struct PosCase { const char *zDoc, *zFilter; int iPos; };
static const PosCase aPos[] = {
  { "{a: [1, 5, 9]}", "{a: 5}", 1 },
  { "{a: [1, 5, 9]}", "{a: {$gt: 6}}", 2 },
  { "{a: 5}", "{a: 5}", -1 },
  { "{a: [{b: 1}, {b: 2}]}", "{\"a.b\": 2}", 1 },
  { "{a: [{b: [1, 2]}, {b: [3, 4]}]}", "{\"a.b\": 4}", 1 },
  { "{a: [{b: 1, c: 1}, {b: 2, c: 2}]}", "{a: {$elemMatch: {b: 2}}}", 1 },
  { "{a: [1, 2], b: [3, 4]}", "{a: 2, b: 3}", 0 },
  { "{a: [1, 2], b: 3}", "{a: 2, b: 3}", 1 },
  { "{a: [1, 2]}", "{$or: [{a: 3}, {a: 2}]}", 1 },
  { "{a: [1, 2]}", "{a: {$ne: 5}}", -1 },
  { "{a: [5, 6]}", "{\"a.1\": 6}", -1 },
  { "{a: [[1, 2], [3, 4]]}", "{a: [3, 4]}", 1 },
  { "{a: [1, 2]}", "{a: [1, 2]}", -1 },
  { "{a: [{b: [1, 2]}]}", "{\"a.b\": {$elemMatch: {$eq: 2}}}", 0 },
  { "{a: [{b: [1, 2]}]}", "{\"a.0.b\": 2}", 1 },
  { "{a: [3, 4, 5]}", "{a: {$all: [5, 4]}}", 1 },
  { "{a: [3, 4, 5]}", "{a: {$in: [9, 4]}}", 1 },
  { "{a: [\"x\", \"yes\"]}", "{a: /^y/}", 1 },
  { "{a: [7, 8]}", "{a: {$elemMatch: {$gt: 7}}}", 1 },
  { "{a: [{b: 1}, {b: 2}]}", "{a: {$elemMatch: {b: 2}}, c: {$exists: false}}", 1 },
  { "{a: [1, 2]}", "{a: {$exists: true}}", 0 },
  /* path_test.cpp ArrayOffsetWithImplicitAndExplicitTraversal: an index
  ** component does not set the offset; the inner array's element does */
  { "{a: [{b: [2, 3]}, {b: [4, 5]}]}", "{\"a.0.b\": 3}", 1 },
  { "{a: [{b: [2, 3]}, {b: [4, 5]}]}", "{\"a.0.b\": [2, 3]}", -1 },
  { "{a: [{b: [2, 3]}, {b: [4, 5]}]}", "{\"a.b\": 5}", 1 },
};

/* A pattern over MongoDB's 32,764-byte cap, and one just under it. */
static void checkLongPattern(void){
  DocRegex *pRe = 0;
  char *zErr = 0;
  int n = 32765, rc, bMatch = 0;
  char *z = malloc(n+1);
  memset(z, 'a', n);
  z[n] = 0;
  rc = docextRegexCompile(z, n, "", &pRe, &zErr);
  if( rc==SQLITE_ERROR && zErr && strstr(zErr, "pattern longer than 32764 bytes")
   && strncmp(zErr, "docext: invalid regex /aaa", 26)==0 ){
    nPass++;
  }else{
    printf("FAIL: long pattern: rc=%d %s\n", rc, zErr ? zErr : "");
    nFail++;
  }
  sqlite3_free(zErr);
  zErr = 0;
  docextRegexFree(pRe);
  pRe = 0;
  rc = docextRegexCompile(z, n-1, "", &pRe, &zErr);
  if( rc==SQLITE_OK ) rc = docextRegexMatch(pRe, z, n, &bMatch, &zErr);
  if( rc==SQLITE_OK && bMatch ) nPass++;
  else{ printf("FAIL: pattern of 32764 bytes: rc=%d %s\n", rc, zErr ? zErr : ""); nFail++; }
  sqlite3_free(zErr);
  docextRegexFree(pRe);
  free(z);
}

/* Catastrophic backtracking must fail fast with a message. */
static void checkRegexLimit(const char *zFilter, const char *zDoc, const char *zExpect){
  clock_t t0 = clock();
  double secs;
  checkCase(zDoc, zFilter, zExpect, -2);
  secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  if( secs>5.0 ){
    printf("FAIL: %s took %.1f s\n", zFilter, secs);
    nFail++;
  }else{
    nPass++;
  }
}

/* An embedded NUL in a pattern (only possible in BSON, not in text). */
static void checkNulPattern(void){
  DocRegex *pRe = 0;
  char *zErr = 0;
  int rc = docextRegexCompile("a\0b", 3, "", &pRe, &zErr);
  if( rc==SQLITE_ERROR && zErr && strcmp(zErr, "docext: invalid regex /a/: embedded NUL byte")!=0
   && strstr(zErr, "embedded NUL byte") ){
    nPass++;
  }else if( rc==SQLITE_ERROR && zErr && strstr(zErr, "embedded NUL byte") ){
    nPass++;
  }else{
    printf("FAIL: NUL in pattern: rc=%d %s\n", rc, zErr ? zErr : "");
    nFail++;
  }
  sqlite3_free(zErr);
  docextRegexFree(pRe);
}

/* docextMatcherIsEmpty */
static void checkEmpty(const char *zFilter, int bExpect){
  DocBuf f;
  DocMatcher *pM = 0;
  char *zErr = 0;
  memset(&f, 0, sizeof(f));
  if( parseText(zFilter, &f)==0 ){
    if( docextMatcherNew(f.a, 0, 0, &pM, &zErr)==SQLITE_OK && docextMatcherIsEmpty(pM)==bExpect ){
      nPass++;
    }else{
      printf("FAIL: IsEmpty(%s) != %d\n", zFilter, bExpect);
      nFail++;
    }
  }
  sqlite3_free(zErr);
  docextMatcherFree(pM);
  docextBufFree(&f);
}

/*------------------------------------------------------------------------
** Out-of-memory: fail the N-th allocation for every N.
*/

static void checkOom(const char *zDoc, const char *zFilter){
  DocBuf doc, filter;
  char zWant[512];
  int iPos, i, bOk = 1;
  memset(&doc, 0, sizeof(doc));
  memset(&filter, 0, sizeof(filter));
  if( parseText(zDoc, &doc) || parseText(zFilter, &filter) ) goto done;
  runMatch(doc.a, filter.a, zWant, sizeof(zWant), &iPos);
  for(i=0; i<10000; i++){
    char zGot[512];
    int iPos2;
    bFailed = 0;
    nFailAt = i+1;
    runMatch(doc.a, filter.a, zGot, sizeof(zGot), &iPos2);
    nFailAt = 0;
    if( !bFailed ){
      if( strcmp(zGot, zWant)!=0 ){ bOk = 0; printf("FAIL: OOM run %d: %s\n", i, zGot); }
      break;
    }
    if( strcmp(zGot, zWant)!=0 && strcmp(zGot, sqlite3_errstr(SQLITE_NOMEM))!=0 ){
      bOk = 0;
      printf("FAIL: OOM at allocation %d for %s: got %s\n", i, zFilter, zGot);
      break;
    }
  }
  if( bOk ) nPass++; else nFail++;
done:
  docextBufFree(&doc);
  docextBufFree(&filter);
}

int main(void){
  int i;
  installOom();
  sqlite3_initialize();

  for(i=0; i<(int)(sizeof(aCase)/sizeof(aCase[0])); i++){
    checkCase(aCase[i].zDoc, aCase[i].zFilter, aCase[i].zExpect, -2);
  }
  for(i=0; i<(int)(sizeof(aPos)/sizeof(aPos[0])); i++){
    checkCase(aPos[i].zDoc, aPos[i].zFilter, "1", aPos[i].iPos);
  }
  checkRegexLimit("{a: /(a+)+$/}", "{a: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"}",
                  "docext: regex /(a+)+$/ exceeded its match limit");
  checkRegexLimit("{a: {$in: [/^(\\w+\\s?)*$/]}}",
                  "{a: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"}",
                  "docext: regex /^(\\w+\\s?)*$/ exceeded its match limit");
  checkRegexLimit("{a: {$not: /(x+x+)+y/}}", "{a: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxz y\"}",
                  "docext: regex /(x+x+)+y/ exceeded its match limit");
  checkRegexLimit("{a: /(?:a|a)*b/}", "{b: 1, a: [\"c\", \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac b\"]}",
                  "docext: regex /(?:a|a)*b/ exceeded its match limit");
  checkLongPattern();
  checkNulPattern();
  checkEmpty("{}", 1);
  checkEmpty("{$comment: \"x\"}", 1);
  checkEmpty("{a: 1}", 0);

  checkOom("{a: [{b: 1, c: \"xyz\"}, {b: 2}], d: 5}",
           "{$or: [{\"a.b\": {$in: [1, 2, /x/]}}, {d: {$not: {$gt: 4}}}],"
           " a: {$elemMatch: {b: 1, c: /y/i}}, d: {$type: [\"int\", \"string\"], $mod: [5, 0]},"
           " e: {$exists: false}, f: {$all: [1, 2]}, g: {$bitsAllSet: [1, 5]}}");
  checkOom("{a: [1, 2, 3]}", "{a: {$elemMatch: {$gt: 1, $not: {$in: [3, /q/]}}, $size: 3}}");
  checkOom("{}", "{a: {$regex: \"(\"}}");

  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
