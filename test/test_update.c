/*
** test_update.c — update operators and replacements (docext_update.c).
**
** A table of (document, update, options, positional index, upsert?,
** expected) in mongo shell text, parsed with docextJsonParse(). The
** expected result is a document — compared byte for byte with the result,
** so types count: 1 is an int32, 1.0 a double, NumberLong(1) an int64 — or
** the exact error message. A case may also demand that the result be
** byte-identical to the input (*pbChanged == 0) or not.
**
** Then: unchanged parts of a large document stay byte-identical and in
** place; the 16 MiB, nesting and padding limits; hostile paths and arrays
** with unusual keys; compiled updates reused across documents; and an
** out-of-memory loop: every failed allocation must give SQLITE_NOMEM (never
** a crash, a leak or a wrong answer).
**
** Build: gcc -std=c11 -O2 -Wall -Wextra -Werror -DSQLITE_CORE -I ext
**        test/test_update.c ext/(all .c) -lsqlite3 -lpcre2-8 -lstemmer -licui18n -licuuc -lm
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include "oomfail.h"

static int nPass = 0, nFail = 0;

#define ANY -1
typedef struct UpdCase UpdCase;
struct UpdCase {
  const char *zDoc;
  const char *zUpdate;
  const char *zOptions;   /* {arrayFilters: [...]} or NULL */
  int iPos;               /* what "$" stands for, or -1 */
  int bInsert;            /* upsert: $setOnInsert applies */
  const char *zExpect;    /* a document, or an error message */
  int bChanged;           /* 0, 1, or ANY */
};

/* Most cases: no options, no "$", not an insert. */
#define T(doc, upd, expect)            { doc, upd, 0, -1, 0, expect, ANY }
#define TC(doc, upd, expect, changed)  { doc, upd, 0, -1, 0, expect, changed }
#define TF(doc, upd, opts, expect)     { doc, upd, opts, -1, 0, expect, ANY }
#define TP(doc, upd, pos, expect)      { doc, upd, 0, pos, 0, expect, ANY }
#define TI(doc, upd, expect)           { doc, upd, 0, -1, 1, expect, ANY }

static const UpdCase aCase[] = {
  /* ---- $set ---- */
  T("{_id: 1, a: 1}", "{$set: {a: 2}}", "{_id: 1, a: 2}"),
  T("{_id: 1}", "{$set: {b: 1, a: 2}}", "{_id: 1, a: 2, b: 1}"),
  T("{_id: 1, z: 1}", "{$set: {\"a.b.c\": 1}}", "{_id: 1, z: 1, a: {b: {c: 1}}}"),
  TC("{_id: 1, a: 1}", "{$set: {a: 1}}", "{_id: 1, a: 1}", 0),
  TC("{_id: 1, a: 1}", "{$set: {a: 1.0}}", "{_id: 1, a: 1.0}", 1),
  TC("{_id: 1, a: {b: [1, {c: 2}]}}", "{$set: {a: {b: [1, {c: 2}]}}}",
     "{_id: 1, a: {b: [1, {c: 2}]}}", 0),
  T("{a: {b: 1}}", "{$set: {\"a.c\": 2}}", "{a: {b: 1, c: 2}}"),
  T("{a: {b: 1, c: 2}}", "{$set: {a: 5}}", "{a: 5}"),
  T("{a: 1}", "{$set: {a: {b: [1, {c: 2}]}}}", "{a: {b: [1, {c: 2}]}}"),
  /* 5.0: fields in lexicographic order, numeric names numerically */
  T("{}", "{$set: {\"a.10\": 1, \"a.9\": 2, \"a.b\": 3}}", "{a: {\"9\": 2, \"10\": 1, b: 3}}"),
  T("{a: {}}", "{$set: {\"a.3\": \"c\", \"a.2\": \"b\", \"a.10\": \"d\"}}",
    "{a: {\"2\": \"b\", \"3\": \"c\", \"10\": \"d\"}}"),
  T("{}", "{$set: {b: 1}, $inc: {a: 1}}", "{a: 1, b: 1}"),
  T("{c: 0}", "{$set: {z: 1, \"y.b\": 2, \"y.a\": 3}, $min: {x: 4}}",
    "{c: 0, x: 4, y: {a: 3, b: 2}, z: 1}"),
  /* numeric components: array indexes, or field names in documents */
  T("{a: [1, 2, 3]}", "{$set: {\"a.1\": 9}}", "{a: [1, 9, 3]}"),
  T("{a: [1]}", "{$set: {\"a.3\": 4}}", "{a: [1, null, null, 4]}"),
  T("{a: [1]}", "{$set: {\"a.3\": 4, \"a.1\": 2}}", "{a: [1, 2, null, 4]}"),
  T("{a: []}", "{$set: {\"a.0.b\": 1}}", "{a: [{b: 1}]}"),
  T("{a: [{b: 1}, {b: 2}]}", "{$set: {\"a.1.b\": 5}}", "{a: [{b: 1}, {b: 5}]}"),
  T("{a: [[1, 2], [3]]}", "{$set: {\"a.1.0\": 9}}", "{a: [[1, 2], [9]]}"),
  T("{_id: 1, hour: {}}", "{$set: {\"hour.23.1439\": 1}}", "{_id: 1, hour: {\"23\": {\"1439\": 1}}}"),
  T("{}", "{$set: {\"hour.23.1439\": 1}}", "{hour: {\"23\": {\"1439\": 1}}}"),
  T("{a: [1, 2]}", "{$set: {\"a.b\": 1}}", "docext: Cannot create field 'b' in element {a: [ 1, 2 ]}"),
  T("{a: [1, 2]}", "{$set: {\"a.01\": 1}}", "docext: Cannot create field '01' in element {a: [ 1, 2 ]}"),
  T("{a: {\"01\": 1}}", "{$set: {\"a.01\": 2}}", "{a: {\"01\": 2}}"),
  T("{a: 5}", "{$set: {\"a.b\": 1}}", "docext: Cannot create field 'b' in element {a: 5}"),
  T("{a: null}", "{$set: {\"a.b.c\": 1}}", "docext: Cannot create field 'b' in element {a: null}"),
  T("{a: {b: \"x\"}}", "{$set: {\"a.b.c\": 1}}", "docext: Cannot create field 'c' in element {b: \"x\"}"),
  T("{a: [{b: 1}, 5]}", "{$set: {\"a.1.c\": 1}}", "docext: Cannot create field 'c' in element {1: 5}"),
  /* path syntax */
  T("{}", "{$set: {\"a.$x\": 1}}",
    "docext: The dollar ($) prefixed field '$x' in 'a.$x' is not valid for storage."),
  T("{}", "{$set: {\"a..b\": 1}}",
    "docext: The update path 'a..b' contains an empty field name, which is not allowed."),
  T("{}", "{$set: {\"a.\": 1}}",
    "docext: The update path 'a.' contains an empty field name, which is not allowed."),
  T("{}", "{$set: {\"\": 1}}", "docext: An empty update path is not valid."),

  /* ---- $unset ---- */
  T("{a: 1, b: 2}", "{$unset: {a: \"\"}}", "{b: 2}"),
  T("{a: [1, 2, 3]}", "{$unset: {\"a.1\": 1}}", "{a: [1, null, 3]}"),
  TC("{a: 1}", "{$unset: {b: 1}}", "{a: 1}", 0),
  TC("{a: 1}", "{$unset: {\"a.b\": 1}}", "{a: 1}", 0),
  TC("{a: [1]}", "{$unset: {\"a.b\": 1, \"a.5\": 1}}", "{a: [1]}", 0),
  T("{a: {b: 1, c: 2}}", "{$unset: {\"a.b\": 1}}", "{a: {c: 2}}"),
  TC("{}", "{$unset: {\"a.b\": 1}}", "{}", 0),
  T("{}", "{$unset: {\"a.b\": 1}, $set: {\"a.c\": 1}}", "{a: {c: 1}}"),
  T("{_id: 1}", "{$unset: {_id: 1}}",
    "docext: Performing an update on the path '_id' would modify the immutable field '_id'"),

  /* ---- $inc ---- */
  T("{a: 1}", "{$inc: {a: 2}}", "{a: 3}"),
  T("{a: 1}", "{$inc: {a: 2.5}}", "{a: 3.5}"),
  T("{a: 1.5}", "{$inc: {a: 1}}", "{a: 2.5}"),
  T("{a: NumberLong(1)}", "{$inc: {a: 1}}", "{a: NumberLong(2)}"),
  T("{a: 1}", "{$inc: {a: NumberLong(1)}}", "{a: NumberLong(2)}"),
  T("{a: 2147483647}", "{$inc: {a: 1}}", "{a: NumberLong(\"2147483648\")}"),
  T("{a: -2147483648}", "{$inc: {a: -1}}", "{a: NumberLong(\"-2147483649\")}"),
  T("{a: NumberLong(\"2147483648\")}", "{$inc: {a: -1}}", "{a: NumberLong(2147483647)}"),
  T("{_id: 1, a: NumberLong(\"9223372036854775807\")}", "{$inc: {a: 1}}",
    "docext: Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) "
    "for document {_id: 1}"),
  /* the current value shown with its own type (an int32 here) */
  T("{_id: 2, a: 2147483647}", "{$inc: {a: NumberLong(\"9223372036854775807\")}}",
    "docext: Failed to apply $inc operations to current value ((NumberInt)2147483647) "
    "for document {_id: 2}"),
  T("{_id: 3, a: 3}", "{$mul: {a: NumberLong(\"9223372036854775807\")}}",
    "docext: Failed to apply $mul operations to current value ((NumberInt)3) "
    "for document {_id: 3}"),
  T("{}", "{$inc: {a: NumberLong(5)}}", "{a: NumberLong(5)}"),
  T("{}", "{$inc: {\"a.b\": -1.5}}", "{a: {b: -1.5}}"),
  TC("{a: 1}", "{$inc: {a: 0}}", "{a: 1}", 0),
  T("{a: 1.0}", "{$inc: {a: NumberLong(0)}}", "{a: 1.0}"),
  T("{_id: 1, a: \"x\"}", "{$inc: {a: 1}}",
    "docext: Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'a' of "
    "non-numeric type string"),
  T("{a: {b: null}}", "{$inc: {\"a.b\": 1}}",
    "docext: Cannot apply $inc to a value of non-numeric type. {} has the field 'a.b' of "
    "non-numeric type null"),
  T("{}", "{$inc: {a: \"1\"}}", "docext: Cannot increment with non-numeric argument: {a: \"1\"}"),
  T("{a: NumberDecimal(\"1.5\")}", "{$inc: {a: 1}}", "{a: NumberDecimal(\"2.5\")}"),
  T("{a: NumberDecimal(\"1.5\")}", "{$inc: {a: 0.1}}", "{a: NumberDecimal(\"1.600000000000000\")}"),
  T("{a: 1}", "{$inc: {a: NumberDecimal(\"0.5\")}}", "{a: NumberDecimal(\"1.5\")}"),
  T("{a: NumberDecimal(\"1.0\")}", "{$inc: {a: NumberDecimal(\"0.10\")}}", "{a: NumberDecimal(\"1.10\")}"),
  T("{a: NumberDecimal(\"1\")}", "{$inc: {a: NumberDecimal(\"-1\")}}", "{a: NumberDecimal(\"0\")}"),
  T("{a: NumberDecimal(\"-0\")}", "{$inc: {a: NumberDecimal(\"-0.0\")}}", "{a: NumberDecimal(\"-0.0\")}"),
  T("{a: NumberDecimal(\"9999999999999999999999999999999999\")}", "{$inc: {a: 1}}",
    "{a: NumberDecimal(\"1.000000000000000000000000000000000E+34\")}"),
  T("{a: NumberDecimal(\"1234567890123456789012345678901234\")}", "{$inc: {a: 0.5}}",
    "{a: NumberDecimal(\"1234567890123456789012345678901234\")}"),
  T("{a: NumberDecimal(\"1234567890123456789012345678901235\")}", "{$inc: {a: 0.5}}",
    "{a: NumberDecimal(\"1234567890123456789012345678901236\")}"),
  T("{a: NumberDecimal(\"1E+6000\")}", "{$inc: {a: NumberDecimal(\"1E-6000\")}}",
    "{a: NumberDecimal(\"1.000000000000000000000000000000000E+6000\")}"),
  T("{a: NumberDecimal(\"Infinity\")}", "{$inc: {a: NumberDecimal(\"-Infinity\")}}",
    "{a: NumberDecimal(\"NaN\")}"),
  T("{a: NumberDecimal(\"Infinity\")}", "{$inc: {a: 1}}", "{a: NumberDecimal(\"Infinity\")}"),
  T("{a: NumberDecimal(\"NaN\")}", "{$inc: {a: 1}}", "{a: NumberDecimal(\"NaN\")}"),
  T("{a: NumberDecimal(\"9.999999999999999999999999999999999E+6144\")}",
    "{$inc: {a: NumberDecimal(\"9.999999999999999999999999999999999E+6144\")}}",
    "{a: NumberDecimal(\"Infinity\")}"),

  /* ---- $mul ---- */
  T("{a: 3}", "{$mul: {a: 4}}", "{a: 12}"),
  T("{a: 65536}", "{$mul: {a: 65536}}", "{a: NumberLong(\"4294967296\")}"),
  T("{a: NumberLong(\"4611686018427387904\")}", "{$mul: {a: 2}}",
    "docext: Failed to apply $mul operations to current value ((NumberLong)4611686018427387904) "
    "for document {}"),
  T("{}", "{$mul: {a: 5}}", "{a: 0}"),
  T("{}", "{$mul: {a: NumberLong(5)}}", "{a: NumberLong(0)}"),
  T("{}", "{$mul: {a: 2.5}}", "{a: 0.0}"),
  T("{}", "{$mul: {a: -2.5}}", "{a: -0.0}"),
  T("{}", "{$mul: {a: NumberDecimal(\"2.50\")}}", "{a: NumberDecimal(\"0.00\")}"),
  T("{a: 1.5}", "{$mul: {a: 2}}", "{a: 3.0}"),
  T("{a: NumberDecimal(\"1.5\")}", "{$mul: {a: NumberDecimal(\"2\")}}", "{a: NumberDecimal(\"3.0\")}"),
  T("{a: NumberDecimal(\"1E-6176\")}", "{$mul: {a: NumberDecimal(\"0.1\")}}",
    "{a: NumberDecimal(\"0E-6176\")}"),
  T("{a: NumberDecimal(\"5E-6176\")}", "{$mul: {a: NumberDecimal(\"0.1\")}}",
    "{a: NumberDecimal(\"0E-6176\")}"),
  T("{a: NumberDecimal(\"15E-6176\")}", "{$mul: {a: NumberDecimal(\"0.1\")}}",
    "{a: NumberDecimal(\"2E-6176\")}"),
  T("{a: NumberDecimal(\"Infinity\")}", "{$mul: {a: 0}}", "{a: NumberDecimal(\"NaN\")}"),
  T("{a: NumberDecimal(\"1E+6111\")}", "{$mul: {a: 10}}", "{a: NumberDecimal(\"1.0E+6112\")}"),
  T("{a: 2}", "{$mul: {a: NumberDecimal(\"0.5\")}}", "{a: NumberDecimal(\"1.0\")}"),
  T("{_id: 1, a: [1]}", "{$mul: {a: 2}}",
    "docext: Cannot apply $mul to a value of non-numeric type. {_id: 1} has the field 'a' of "
    "non-numeric type array"),
  T("{}", "{$mul: {a: true}}", "docext: Cannot multiply with non-numeric argument: {a: true}"),

  /* ---- $min, $max ---- */
  T("{a: 5}", "{$min: {a: 3}}", "{a: 3}"),
  TC("{a: 5}", "{$min: {a: 7}}", "{a: 5}", 0),
  T("{a: 5}", "{$max: {a: 7}}", "{a: 7}"),
  T("{}", "{$min: {a: 1}}", "{a: 1}"),
  TC("{a: 5}", "{$min: {a: \"x\"}}", "{a: 5}", 0),
  T("{a: 5}", "{$max: {a: \"x\"}}", "{a: \"x\"}"),
  TC("{a: 1}", "{$min: {a: 1.0}}", "{a: 1}", 0),
  TC("{a: null}", "{$min: {a: 1}}", "{a: null}", 0),
  T("{a: ISODate(\"2020-01-01T00:00:00Z\")}", "{$max: {a: ISODate(\"2021-01-01T00:00:00Z\")}}",
    "{a: ISODate(\"2021-01-01T00:00:00Z\")}"),
  T("{a: [1, 2]}", "{$max: {\"a.0\": 9}}", "{a: [9, 2]}"),

  /* ---- $rename ---- */
  T("{a: 1, b: 2}", "{$rename: {a: \"c\"}}", "{b: 2, c: 1}"),
  T("{a: 1, b: 2, c: 3}", "{$rename: {a: \"b\"}}", "{b: 1, c: 3}"),
  TC("{b: 2}", "{$rename: {a: \"c\"}}", "{b: 2}", 0),
  T("{a: {b: 1}, c: 1}", "{$rename: {\"a.b\": \"d.e\"}}", "{a: {}, c: 1, d: {e: 1}}"),
  T("{a: 1, z: {y: 2}}", "{$rename: {a: \"z.x\", \"z.y\": \"b\"}}", "{z: {x: 1}, b: 2}"),
  T("{_id: 1, a: [{b: 1}]}", "{$rename: {\"a.0.b\": \"c\"}}",
    "docext: The source field cannot be an array element, 'a.0.b' in doc with {_id: 1} has an "
    "array field called 'a'"),
  TC("{a: [{b: 1}]}", "{$rename: {\"a.b\": \"c\"}}", "{a: [{b: 1}]}", 0),
  T("{a: 1, b: [1]}", "{$rename: {a: \"b\"}}",
    "docext: The destination field cannot be an array element, 'b' in doc with {} has an array "
    "field called 'b'"),
  T("{a: 1, b: [1]}", "{$rename: {a: \"b.0\"}}",
    "docext: The destination field cannot be an array element, 'b.0' in doc with {} has an array "
    "field called 'b'"),
  T("{a: 1, b: 5}", "{$rename: {a: \"b.c\"}}", "docext: Cannot create field 'c' in element {b: 5}"),
  TC("{b: 5}", "{$rename: {a: \"b.c\"}}", "{b: 5}", 0),
  T("{a: 1}", "{$rename: {a: 1}}", "docext: The 'to' field for $rename must be a string: a: 1"),
  T("{a: 1}", "{$rename: {a: \"a\"}}", "docext: The source and target field for $rename must differ: a: \"a\""),
  T("{a: 1}", "{$rename: {a: \"a.b\"}}",
    "docext: The source and target field for $rename must not be on the same path: a: \"a.b\""),
  T("{a: {b: 1}}", "{$rename: {\"a.b\": \"a\"}}",
    "docext: The source and target field for $rename must not be on the same path: a.b: \"a\""),
  T("{a: [1]}", "{$rename: {\"a.$\": \"b\"}}", "docext: The source field for $rename may not be dynamic: a.$"),
  T("{a: [1]}", "{$rename: {a: \"b.$[]\"}}", "docext: The destination field for $rename may not be dynamic: b.$[]"),
  T("{_id: 1}", "{$rename: {_id: \"x\"}}",
    "docext: Performing an update on the path '_id' would modify the immutable field '_id'"),
  T("{_id: 1, a: 2}", "{$rename: {a: \"_id\"}}",
    "docext: after applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"),
  T("{a: 1}", "{$rename: {a: \"b\"}, $set: {b: 1}}", "docext: Updating the path 'b' would create a conflict at 'b'"),
  T("{a: 1}", "{$rename: {a: \"b\"}, $set: {a: 1}}", "docext: Updating the path 'a' would create a conflict at 'a'"),
  T("{a: 1}", "{$set: {\"b.c\": 1}, $rename: {a: \"b\"}}", "docext: Updating the path 'b' would create a conflict at 'b'"),

  /* ---- $setOnInsert ---- */
  TC("{a: 1}", "{$setOnInsert: {b: 2}}", "{a: 1}", 0),
  TI("{_id: 1}", "{$setOnInsert: {b: 2}, $set: {a: 1}}", "{_id: 1, a: 1, b: 2}"),
  TC("{a: 1}", "{$setOnInsert: {\"a.b\": 1}}", "{a: 1}", 0),
  TI("{a: 1}", "{$setOnInsert: {\"a.b\": 1}}", "docext: Cannot create field 'b' in element {a: 1}"),

  /* ---- $currentDate (the clock is frozen at 2013-03-01T00:00:00.500Z) ---- */
  T("{}", "{$currentDate: {a: true}}", "{a: ISODate(\"2013-03-01T00:00:00.500Z\")}"),
  T("{}", "{$currentDate: {a: false}}", "{a: ISODate(\"2013-03-01T00:00:00.500Z\")}"),
  T("{a: 1}", "{$currentDate: {a: {$type: \"date\"}}}", "{a: ISODate(\"2013-03-01T00:00:00.500Z\")}"),
  T("{}", "{$currentDate: {\"x.t\": {$type: \"timestamp\"}}}", "{x: {t: Timestamp(1362096000, 1)}}"),
  T("{}", "{$currentDate: {a: {$type: \"x\"}}}",
    "docext: The '$type' string field is required to be 'date' or 'timestamp': "
    "{$currentDate: {field : {$type: 'date'}}}"),
  T("{}", "{$currentDate: {a: {}}}",
    "docext: The '$type' string field is required to be 'date' or 'timestamp': "
    "{$currentDate: {field : {$type: 'date'}}}"),
  T("{}", "{$currentDate: {a: {foo: 1}}}", "docext: Unrecognized $currentDate option: foo"),
  T("{}", "{$currentDate: {a: 1}}",
    "docext: a: 1 is not valid type for $currentDate. Please use a boolean ('true') or a $type "
    "expression ({$type: 'timestamp/date'})."),

  /* ---- $push, $pushAll ---- */
  T("{a: [1]}", "{$push: {a: 2}}", "{a: [1, 2]}"),
  T("{}", "{$push: {a: 1}}", "{a: [1]}"),
  T("{}", "{$push: {\"a.b\": 1}}", "{a: {b: [1]}}"),
  T("{a: 1}", "{$push: {a: 2}}", "docext: The field 'a' must be an array but is of type int in document {}"),
  T("{_id: 1, a: {b: \"x\"}}", "{$push: {\"a.b\": 2}}",
    "docext: The field 'a.b' must be an array but is of type string in document {_id: 1}"),
  T("{a: [1]}", "{$push: {a: [2, 3]}}", "{a: [1, [2, 3]]}"),
  T("{a: [1]}", "{$push: {a: {$each: [2, 3]}}}", "{a: [1, 2, 3]}"),
  T("{a: [1, 2]}", "{$push: {a: {$each: [9], $position: 0}}}", "{a: [9, 1, 2]}"),
  T("{a: [1, 2]}", "{$push: {a: {$each: [8, 9], $position: 1}}}", "{a: [1, 8, 9, 2]}"),
  T("{a: [1, 2]}", "{$push: {a: {$each: [9], $position: -1}}}", "{a: [1, 9, 2]}"),
  T("{a: [1, 2]}", "{$push: {a: {$each: [9], $position: 10}}}", "{a: [1, 2, 9]}"),
  T("{a: [1, 2]}", "{$push: {a: {$each: [9], $position: -10}}}", "{a: [9, 1, 2]}"),
  T("{a: [1, 2]}", "{$push: {a: {$each: [9], $position: 1.0}}}", "{a: [1, 9, 2]}"),
  T("{a: [3, 1]}", "{$push: {a: {$each: [2], $sort: 1}}}", "{a: [1, 2, 3]}"),
  T("{a: [3, 1]}", "{$push: {a: {$each: [2], $sort: -1}}}", "{a: [3, 2, 1]}"),
  T("{a: [1, \"a\", null, {x: 1}, [0]]}", "{$push: {a: {$each: [], $sort: -1}}}",
    "{a: [[0], {x: 1}, \"a\", 1, null]}"),
  T("{a: [{s: 3}, {s: 1}]}", "{$push: {a: {$each: [{s: 2}], $sort: {s: -1}}}}",
    "{a: [{s: 3}, {s: 2}, {s: 1}]}"),
  T("{a: [{s: 1, t: 2}, {s: 1, t: 1}, {s: 0}]}", "{$push: {a: {$each: [], $sort: {s: 1, t: 1}}}}",
    "{a: [{s: 0}, {s: 1, t: 1}, {s: 1, t: 2}]}"),
  T("{a: [{s: {x: 2}}, {s: {x: 1}}]}", "{$push: {a: {$each: [], $sort: {\"s.x\": 1}}}}",
    "{a: [{s: {x: 1}}, {s: {x: 2}}]}"),
  /* sorting by a field: elements that are not documents read it as null;
  ** an array field compares as a whole array (MongoDB's woCompare) */
  T("{a: [{s: 2}, 5, {s: 1}]}", "{$push: {a: {$each: [], $sort: {s: 1}}}}",
    "{a: [5, {s: 1}, {s: 2}]}"),
  T("{a: [{s: [1, 5]}, {s: [2]}]}", "{$push: {a: {$each: [], $sort: {s: -1}}}}",
    "{a: [{s: [2]}, {s: [1, 5]}]}"),
  /* ties keep their order */
  T("{a: [{s: 1, i: 1}, {s: 0}, {s: 1, i: 2}, {s: 1, i: 3}]}",
    "{$push: {a: {$each: [{s: 1, i: 4}], $sort: {s: 1}}}}",
    "{a: [{s: 0}, {s: 1, i: 1}, {s: 1, i: 2}, {s: 1, i: 3}, {s: 1, i: 4}]}"),
  T("{a: [1, 2, 3]}", "{$push: {a: {$each: [4], $slice: -2}}}", "{a: [3, 4]}"),
  T("{a: [1, 2, 3]}", "{$push: {a: {$each: [4], $slice: 2}}}", "{a: [1, 2]}"),
  T("{a: [1, 2, 3]}", "{$push: {a: {$each: [4], $slice: 0}}}", "{a: []}"),
  T("{a: [1, 2, 3]}", "{$push: {a: {$each: [4], $slice: 10}}}", "{a: [1, 2, 3, 4]}"),
  T("{a: [1, 2, 3]}", "{$push: {a: {$each: [4], $slice: -10}}}", "{a: [1, 2, 3, 4]}"),
  /* position, then sort, then slice, however they are written */
  T("{a: [1, 9]}", "{$push: {a: {$slice: 2, $sort: -1, $each: [5], $position: 0}}}", "{a: [9, 5]}"),
  T("{a: [1, 9]}", "{$push: {a: {$slice: -1, $position: 0, $each: [5, 7]}}}", "{a: [9]}"),
  T("{a: [1, 9]}", "{$push: {a: {$slice: 1, $position: 1, $each: [5]}}}", "{a: [1]}"),
  T("{}", "{$push: {a: {$each: []}}}", "{a: []}"),
  T("{}", "{$push: {a: {$each: [3, 1, 2], $sort: 1, $slice: 2}}}", "{a: [1, 2]}"),
  T("{a: [1]}", "{$push: {a: {$slice: 1}}}", "{a: [1, {$slice: 1}]}"),
  T("{a: []}", "{$push: {a: {$each: 1}}}",
    "docext: The argument to $each in $push must be an array but it was of type: int"),
  T("{a: []}", "{$push: {a: {$each: [1], $slice: \"x\"}}}",
    "docext: The value for $slice must be an integer value but was given type: string"),
  T("{a: []}", "{$push: {a: {$each: [1], $slice: 1.5}}}",
    "docext: The value for $slice must be an integer value but was given type: double"),
  T("{a: []}", "{$push: {a: {$each: [1], $position: 1.5}}}",
    "docext: The value for $position must be an integer value, not of type: double"),
  T("{a: []}", "{$push: {a: {$each: [1], $sort: 2}}}",
    "docext: The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort "
    "embedded fields"),
  T("{a: []}", "{$push: {a: {$each: [1], $sort: {}}}}",
    "docext: The $sort pattern is empty when it should be a set of fields."),
  T("{a: []}", "{$push: {a: {$each: [1], $sort: {s: 0}}}}",
    "docext: The $sort element value must be either 1 or -1"),
  T("{a: []}", "{$push: {a: {$each: [1], $sort: {\"s..t\": 1}}}}",
    "docext: The $sort field is a dotted field but has an empty part: s..t"),
  T("{a: []}", "{$push: {a: {$each: [1], $foo: 1}}}", "docext: Unrecognized clause in $push: $foo"),
  T("{a: [1]}", "{$pushAll: {a: [2, 3]}}", "{a: [1, 2, 3]}"),
  T("{}", "{$pushAll: {a: [2, 3]}}", "{a: [2, 3]}"),
  T("{a: [1]}", "{$pushAll: {a: 1}}", "docext: $pushAll requires an array argument but was given a int"),

  /* ---- $addToSet ---- */
  TC("{a: [1, 2]}", "{$addToSet: {a: 2}}", "{a: [1, 2]}", 0),
  T("{a: [1, 2]}", "{$addToSet: {a: 3}}", "{a: [1, 2, 3]}"),
  TC("{a: [1]}", "{$addToSet: {a: 1.0}}", "{a: [1]}", 0),
  TC("{a: [1]}", "{$addToSet: {a: NumberDecimal(\"1.00\")}}", "{a: [1]}", 0),
  T("{a: [1]}", "{$addToSet: {a: \"1\"}}", "{a: [1, \"1\"]}"),
  T("{a: [1]}", "{$addToSet: {a: {$each: [1, 2, 2, 3]}}}", "{a: [1, 2, 3]}"),
  T("{}", "{$addToSet: {a: {$each: []}}}", "{a: []}"),
  T("{}", "{$addToSet: {a: {$each: [1, 1]}}}", "{a: [1]}"),
  T("{a: [{x: 1, y: 2}]}", "{$addToSet: {a: {y: 2, x: 1}}}", "{a: [{x: 1, y: 2}, {y: 2, x: 1}]}"),
  TC("{a: [[1, 2]]}", "{$addToSet: {a: [1, 2]}}", "{a: [[1, 2]]}", 0),
  T("{a: [null]}", "{$addToSet: {a: {$each: [null, false]}}}", "{a: [null, false]}"),
  T("{a: 1}", "{$addToSet: {a: 1}}",
    "docext: Cannot apply $addToSet to non-array field. Field named 'a' has non-array type int"),
  T("{a: [1]}", "{$addToSet: {a: {$each: 1}}}",
    "docext: The argument to $each in $addToSet must be an array but it was of type int"),
  T("{a: [1]}", "{$addToSet: {a: {$each: [2], x: 1}}}",
    "docext: Found unexpected fields after $each in $addToSet: { \"$each\" : [ 2 ], \"x\" : 1 }"),
  T("{a: [1]}", "{$addToSet: {a: {x: 1, $each: [2]}}}", "{a: [1, {x: 1, $each: [2]}]}"),

  /* ---- $pop ---- */
  T("{a: [1, 2, 3]}", "{$pop: {a: 1}}", "{a: [1, 2]}"),
  T("{a: [1, 2, 3]}", "{$pop: {a: -1}}", "{a: [2, 3]}"),
  T("{a: [1, 2, 3]}", "{$pop: {a: NumberLong(-1)}}", "{a: [2, 3]}"),
  T("{a: [1]}", "{$pop: {a: 1.0}}", "{a: []}"),
  TC("{a: []}", "{$pop: {a: 1}}", "{a: []}", 0),
  TC("{b: 1}", "{$pop: {a: 1}}", "{b: 1}", 0),
  /* a path that could not be created is an error for $pop, $pull and
  ** $pullAll (MongoDB's checkViability), though they create nothing; only
  ** $unset passes silently */
  T("{a: 5}", "{$pop: {\"a.b\": 1}}",
    "docext: Cannot use the part (b) of (a.b) to traverse the element ({a: 5})"),
  T("{_id: 0, a: {b: 1}}", "{$pop: {\"a.b.c\": 1}}",
    "docext: Cannot use the part (c) of (a.b.c) to traverse the element ({b: 1})"),
  T("{_id: 0, a: {b: [1, 2]}}", "{$pop: {\"a.b.c\": 1}}",
    "docext: Cannot use the part (c) of (a.b.c) to traverse the element ({b: [ 1, 2 ]})"),
  TC("{_id: 0, a: {c: 1}}", "{$pop: {\"a.b\": 1}}", "{_id: 0, a: {c: 1}}", 0),
  TC("{_id: 0, a: [{b: 0}, {b: 1}]}", "{$pop: {\"a.2.b\": 1}}", "{_id: 0, a: [{b: 0}, {b: 1}]}", 0),
  T("{a: [{b: [1]}]}", "{$pull: {\"a.b\": 1}}",
    "docext: Cannot use the part (b) of (a.b) to traverse the element ({a: [ { \"b\" : [ 1 ] } ]})"),
  T("{a: {b: \"x\"}}", "{$pullAll: {\"a.b.c\": [1]}}",
    "docext: Cannot use the part (c) of (a.b.c) to traverse the element ({b: \"x\"})"),
  T("{a: {b: [1]}}", "{$pull: {\"a.b.$[]\": 1}}", "docext: Cannot apply $pull to a non-array value"),
  TC("{a: {b: 1}}", "{$unset: {\"a.b.c\": 1}}", "{a: {b: 1}}", 0),
  TC("{a: [1]}", "{$unset: {\"a.x\": 1}}", "{a: [1]}", 0),
  TC("{a: {b: 1}}", "{$setOnInsert: {\"a.b.c\": 1}}", "{a: {b: 1}}", 0),
  T("{a: 1}", "{$pop: {a: 1}}", "docext: Path 'a' contains an element of non-array type 'int'"),
  T("{a: []}", "{$pop: {a: 2}}", "docext: $pop expects 1 or -1, found: 2"),
  T("{a: []}", "{$pop: {a: \"1\"}}", "docext: $pop expects 1 or -1, found: \"1\""),

  /* ---- $pull, $pullAll ---- */
  T("{a: [1, 2, 3, 2]}", "{$pull: {a: 2}}", "{a: [1, 3]}"),
  T("{a: [1, 2, 3]}", "{$pull: {a: {$gte: 2}}}", "{a: [1]}"),
  T("{a: [1, 2, 3]}", "{$pull: {a: {$in: [1, 3]}}}", "{a: [2]}"),
  T("{a: [1, 2, 3]}", "{$pull: {a: {$not: {$gt: 1}}}}", "{a: [2, 3]}"),
  T("{a: [\"apple\", \"banana\"]}", "{$pull: {a: /an/}}", "{a: [\"apple\"]}"),
  T("{a: [{x: 1, y: 1}, {x: 2}]}", "{$pull: {a: {x: 1}}}", "{a: [{x: 2}]}"),
  T("{a: [{x: 1}, {x: 2}]}", "{$pull: {a: {x: {$gt: 1}}}}", "{a: [{x: 1}]}"),
  T("{a: [1, {x: 1}, {}]}", "{$pull: {a: {}}}", "{a: [1]}"),
  T("{a: [[1, 2], [3]]}", "{$pull: {a: [1, 2]}}", "{a: [[3]]}"),
  T("{a: [[1, 2], [3]]}", "{$pull: {a: {$gte: 3}}}", "{a: [[1, 2]]}"),
  T("{a: [1, 1.0, NumberLong(1), \"1\"]}", "{$pull: {a: 1}}", "{a: [\"1\"]}"),
  T("{a: [{b: [1, 2]}, {b: [3]}]}", "{$pull: {a: {b: {$elemMatch: {$gt: 2}}}}}", "{a: [{b: [1, 2]}]}"),
  T("{a: [{b: 1, c: 1}, {b: 1, c: 2}]}", "{$pull: {a: {$and: [{b: 1}, {c: 2}]}}}", "{a: [{b: 1, c: 1}]}"),
  TC("{a: [1, 2]}", "{$pull: {a: 5}}", "{a: [1, 2]}", 0),
  TC("{}", "{$pull: {a: 5}}", "{}", 0),
  T("{a: 1}", "{$pull: {a: 1}}", "docext: Cannot apply $pull to a non-array value"),
  T("{a: []}", "{$pull: {a: {$foo: 1}}}", "docext: $pull on 'a': unknown operator $foo in filter"),
  T("{messages: [{sent: ISODate(\"2020-01-01T00:00:00Z\")}, {sent: ISODate(\"2022-01-01T00:00:00Z\")}]}",
    "{$pull: {messages: {sent: {$lt: ISODate(\"2021-01-01T00:00:00Z\")}}}}",
    "{messages: [{sent: ISODate(\"2022-01-01T00:00:00Z\")}]}"),
  T("{a: [1, 2, 3, 1]}", "{$pullAll: {a: [1, 3]}}", "{a: [2]}"),
  T("{a: [{x: 1}, {x: 2}]}", "{$pullAll: {a: [{x: 1}]}}", "{a: [{x: 2}]}"),
  TC("{a: [1]}", "{$pullAll: {a: []}}", "{a: [1]}", 0),
  T("{a: [1]}", "{$pullAll: {a: 1}}", "docext: $pullAll requires an array argument but was given a int"),
  T("{a: 1}", "{$pullAll: {a: [1]}}", "docext: Cannot apply $pullAll to a non-array value"),

  /* ---- $bit ---- */
  T("{a: 13}", "{$bit: {a: {and: 10}}}", "{a: 8}"),
  T("{a: 13}", "{$bit: {a: {or: 2}}}", "{a: 15}"),
  T("{a: 13}", "{$bit: {a: {xor: 5}}}", "{a: 8}"),
  T("{a: 12}", "{$bit: {a: {and: 10, or: 1}}}", "{a: 9}"),
  T("{a: 13}", "{$bit: {a: {and: NumberLong(10)}}}", "{a: NumberLong(8)}"),
  T("{a: NumberLong(13)}", "{$bit: {a: {or: 16}}}", "{a: NumberLong(29)}"),
  T("{}", "{$bit: {a: {or: 5}}}", "{a: 5}"),
  T("{a: -1}", "{$bit: {a: {and: 2147483647}}}", "{a: 2147483647}"),
  T("{a: 1.5}", "{$bit: {a: {and: 1}}}",
    "docext: Cannot apply $bit to a value of non-integral type. {} has the field 'a' of non-integer type double"),
  T("{a: 1}", "{$bit: {a: {and: 1.0}}}",
    "docext: The $bit modifier field must be an Integer(32/64 bit); a 'double' is not supported here: {and: 1}"),
  T("{a: 1}", "{$bit: {a: {not: 1}}}",
    "docext: The $bit modifier only supports 'and', 'or', and 'xor', not 'not' which is an unknown operator: {not: 1}"),
  T("{a: 1}", "{$bit: {a: {}}}",
    "docext: You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}"),
  T("{a: 1}", "{$bit: {a: 5}}",
    "docext: The $bit modifier is not compatible with a int. You must pass in an embedded document: "
    "{$bit: {field: {and/or/xor: #}}"),

  /* ---- the positional $ ---- */
  TP("{a: [{b: 1}, {b: 2}]}", "{$set: {\"a.$.b\": 5}}", 1, "{a: [{b: 1}, {b: 5}]}"),
  TP("{a: [1, 2, 3]}", "{$set: {\"a.$\": 9}}", 2, "{a: [1, 2, 9]}"),
  TP("{referrers: [{domain: \"google.com\", count: 4}, {domain: \"bing.com\", count: 1}]}",
     "{$inc: {\"referrers.$.count\": 1}}", 0,
     "{referrers: [{domain: \"google.com\", count: 5}, {domain: \"bing.com\", count: 1}]}"),
  TP("{a: [1, 2]}", "{$set: {\"a.$\": 9}}", -1,
     "docext: The positional operator did not find the match needed from the query."),
  TP("{a: [1, 2]}", "{$set: {\"a.$\": 9, \"a.1\": 8}}", 1, "docext: Update created a conflict at 'a.1'"),
  TP("{a: [1, 2]}", "{$set: {\"a.$\": 9, \"a.0\": 8}}", 1, "{a: [8, 9]}"),
  TP("{a: [{b: 1}, {b: 2}]}", "{$set: {\"a.$.c\": 9, \"a.1.d\": 8}}", 1, "{a: [{b: 1}, {b: 2, c: 9, d: 8}]}"),
  TP("{a: [{b: [1, 2]}]}", "{$set: {\"a.0.b.$\": 7}}", 1, "{a: [{b: [1, 7]}]}"),
  TP("{a: [1]}", "{$set: {\"a.$\": 9}}", 3, "{a: [1, null, null, 9]}"),
  TP("{a: {}}", "{$set: {\"a.$\": 9}}", 0, "{a: {\"0\": 9}}"),
  TP("{a: [1]}", "{$set: {\"$\": 9}}", 0, "docext: Cannot have positional (i.e. '$') element in the first position in path '$'"),
  TP("{a: [1]}", "{$set: {\"a.$.b.$\": 9}}", 0, "docext: Too many positional (i.e. '$') elements found in path 'a.$.b.$'"),
  { "{a: [1]}", "{$set: {\"a.$\": 9}}", 0, 0, 1,
    "docext: The positional operator did not find the match needed from the query.", ANY },

  /* ---- all elements: $[] ---- */
  T("{a: [1, 2, 3]}", "{$inc: {\"a.$[]\": 1}}", "{a: [2, 3, 4]}"),
  T("{a: [{b: 1}, {b: 2}]}", "{$set: {\"a.$[].c\": 0}}", "{a: [{b: 1, c: 0}, {b: 2, c: 0}]}"),
  TC("{a: []}", "{$set: {\"a.$[]\": 1}}", "{a: []}", 0),
  T("{}", "{$set: {\"a.$[]\": 1}}", "docext: The path 'a' must exist in the document in order to apply array updates."),
  T("{x: {}}", "{$unset: {\"x.a.$[]\": 1}}", "docext: The path 'x.a' must exist in the document in order to apply array updates."),
  T("{a: 5}", "{$set: {\"a.$[]\": 1}}", "docext: Cannot apply array updates to non-array element a: 5"),
  T("{a: [[1, 2], [3]]}", "{$inc: {\"a.$[].$[]\": 10}}", "{a: [[11, 12], [13]]}"),
  T("{a: [{t: [1]}, {t: []}]}", "{$push: {\"a.$[].t\": 9}}", "{a: [{t: [1, 9]}, {t: [9]}]}"),
  T("{a: [{b: 1}, 5]}", "{$set: {\"a.$[].b\": 2}}", "docext: Cannot create field 'b' in element {1: 5}"),
  T("{a: [{b: 1}, 5]}", "{$unset: {\"a.$[].b\": 1}}", "{a: [{}, 5]}"),
  T("{a: [1, 2]}", "{$unset: {\"a.$[]\": 1}}", "{a: [null, null]}"),
  T("{}", "{$set: {\"a.$[]\": 1, \"a.0\": 2}}", "docext: Updating the path 'a.0' would create a conflict at 'a'"),
  T("{}", "{$set: {\"a.0\": 2, \"a.$[]\": 1}}", "docext: Updating the path 'a.$[]' would create a conflict at 'a'"),
  T("{}", "{$set: {\"a.$[]\": 1, \"a.$[].b\": 2}}", "docext: Updating the path 'a.$[].b' would create a conflict at 'a.$[]'"),
  T("{}", "{$set: {\"$[]\": 1}}",
    "docext: Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '$[]'"),

  /* ---- filtered elements: $[<id>] with arrayFilters ---- */
  TF("{a: [1, 5, 10]}", "{$set: {\"a.$[x]\": 0}}", "{arrayFilters: [{x: {$gte: 5}}]}", "{a: [1, 0, 0]}"),
  TF("{a: [{g: 80}, {g: 90}]}", "{$set: {\"a.$[e].ok\": true}}", "{arrayFilters: [{\"e.g\": {$gte: 85}}]}",
     "{a: [{g: 80}, {g: 90, ok: true}]}"),
  TF("{a: [{g: 80, n: 1}, {g: 90, n: 1}]}", "{$inc: {\"a.$[e].n\": 1}}",
     "{arrayFilters: [{\"e.g\": {$gte: 85}, \"e.n\": 1}]}", "{a: [{g: 80, n: 1}, {g: 90, n: 2}]}"),
  TF("{a: [1, 5, 10]}", "{$set: {\"a.$[x]\": 0}}", "{arrayFilters: [{$or: [{x: 1}, {x: 10}]}]}", "{a: [0, 5, 0]}"),
  TF("{a: [[1, 9], [2]]}", "{$set: {\"a.$[o].$[i]\": 0}}",
     "{arrayFilters: [{o: {$size: 2}}, {i: {$gt: 5}}]}", "{a: [[1, 0], [2]]}"),
  TF("{a: [{b: 1}]}", "{$set: {\"a.$[].c\": 1, \"a.$[x].d\": 2}}", "{arrayFilters: [{\"x.b\": 1}]}",
     "{a: [{b: 1, c: 1, d: 2}]}"),
  TF("{a: [1, 2]}", "{$set: {\"a.$[]\": 0, \"a.$[x]\": 1}}", "{arrayFilters: [{x: 2}]}",
     "docext: Update created a conflict at 'a.1'"),
  TF("{a: [1, 2]}", "{$set: {\"a.$[x]\": 0}}", "{arrayFilters: [{x: 1}, {y: 1}]}",
     "docext: The array filter for identifier 'y' was not used in the update"),
  TF("{a: [1, 2]}", "{$set: {\"a.$[z]\": 0}}", "{arrayFilters: []}",
     "docext: No array filter found for identifier 'z' in path 'a.$[z]'"),
  T("{a: [1, 2]}", "{$set: {\"a.$[z]\": 0}}", "docext: No array filter found for identifier 'z' in path 'a.$[z]'"),
  TF("{a: [1]}", "{$set: {\"a.$[X]\": 0}}", "{arrayFilters: [{X: 1}]}",
     "docext: Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric "
     "string beginning with a lowercase letter, found 'X'"),
  TF("{a: [1]}", "{$set: {\"a.$[x]\": 0}}", "{arrayFilters: [{x: 1}, {x: 2}]}",
     "docext: Found multiple array filters with the same top-level field name x"),
  TF("{a: [1]}", "{$set: {\"a.$[x]\": 0}}", "{arrayFilters: [{}]}",
     "docext: Cannot use an expression without a top-level field name in arrayFilters"),
  TF("{a: [1]}", "{$set: {\"a.$[x]\": 0}}", "{arrayFilters: [{x: 1, y: 2}]}",
     "docext: Error parsing array filter :: caused by :: Expected a single top-level field name, found 'x' and 'y'"),
  TF("{a: [1]}", "{$set: {\"a.$[x]\": 0}}", "{arrayFilters: 5}",
     "docext: arrayFilters must be an array of documents, not int"),
  TF("{a: [1]}", "{$set: {\"a.$[x]\": 0}}", "{arrayFilters: [5]}",
     "docext: arrayFilters must be an array of documents, found int"),
  TF("{a: [1]}", "{$set: {\"a.$[x]\": 0}}", "{arrayFilters: [{x: {$foo: 1}}]}",
     "docext: Error parsing array filter :: caused by :: unknown operator $foo in filter at 'x'"),
  TF("{a: [1]}", "{$set: {b: 0}}", "{upsert: true}", "{a: [1], b: 0}"),
  TF("{a: [1]}", "{b: 0}", "{arrayFilters: [{x: 1}]}",
     "docext: arrayFilters cannot be used with a replacement document (no $[<identifier>] to apply them to)"),
  TF("{a: [1]}", "{b: 0}", "{arrayFilters: []}", "{b: 0}"),

  /* ---- conflicts ---- */
  T("{}", "{$set: {a: 1}, $inc: {a: 1}}", "docext: Updating the path 'a' would create a conflict at 'a'"),
  T("{}", "{$set: {\"a.b\": 1}, $unset: {a: 1}}", "docext: Updating the path 'a' would create a conflict at 'a'"),
  T("{}", "{$set: {a: 1, \"a.b\": 1}}", "docext: Updating the path 'a.b' would create a conflict at 'a'"),
  T("{}", "{$set: {\"a.b.c\": 1}, $push: {\"a.b\": 1}}", "docext: Updating the path 'a.b' would create a conflict at 'a.b'"),
  T("{}", "{$set: {\"a.b\": 1, \"a.c\": 1, \"ab\": 1}}", "{a: {b: 1, c: 1}, ab: 1}"),

  /* ---- the update document itself ---- */
  T("{}", "{$foo: {a: 1}}", "docext: Unknown modifier: $foo. Expected a valid update modifier"),
  T("{}", "{$set: 1}",
    "docext: Modifiers operate on fields but we found type int instead. For example: {$mod: {<field>: ...}} not {$set: 1}"),
  T("{}", "{$set: {}}", "docext: '$set' is empty. You must specify a field like so: {$set: {<field>: ...}}"),
  T("{}", "{$unset: {}}", "docext: '$unset' is empty. You must specify a field like so: {$unset: {<field>: ...}}"),
  T("{}", "{$set: {a: 1}, b: 2}",
    "docext: an update cannot mix operators and plain fields ('$set' and 'b'): use only operators, "
    "or a replacement document without operators"),
  T("{}", "{b: 2, $set: {a: 1}}",
    "docext: an update cannot mix operators and plain fields ('$set' and 'b'): use only operators, "
    "or a replacement document without operators"),

  /* ---- replacement documents ---- */
  T("{_id: 1, a: 1}", "{b: 2}", "{_id: 1, b: 2}"),
  T("{_id: 1, a: 1}", "{b: 2, _id: 1}", "{_id: 1, b: 2}"),
  T("{_id: 1}", "{_id: 2}",
    "docext: after applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"),
  T("{_id: 1}", "{_id: 1.5}",
    "docext: after applying the update, the (immutable) field '_id' was found to have been altered to _id: 1.5"),
  T("{a: 1}", "{b: 2}", "{b: 2}"),
  T("{a: 1}", "{b: 2, _id: 3}", "{_id: 3, b: 2}"),
  T("{_id: 1, a: 1}", "{}", "{_id: 1}"),
  TC("{_id: 1, a: 1}", "{_id: 1, a: 1}", "{_id: 1, a: 1}", 0),
  TC("{_id: 1, a: 1}", "{a: 1}", "{_id: 1, a: 1}", 0),
  TC("{a: 1, _id: 1}", "{a: 1}", "{_id: 1, a: 1}", 1),

  /* ---- _id ---- */
  TC("{_id: 1}", "{$set: {_id: 1}}", "{_id: 1}", 0),
  T("{_id: {a: 1}}", "{$set: {\"_id.a\": 2}}",
    "docext: after applying the update, the (immutable) field '_id' was found to have been altered to _id: { \"a\" : 2 }"),
  T("{_id: 1}", "{$inc: {_id: 1}}",
    "docext: after applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"),
  T("{a: 1}", "{$set: {_id: 5}}", "{a: 1, _id: 5}"),
  T("{a: 1}", "{$set: {_id: [1]}}", "docext: The '_id' value cannot be of type array"),
  TI("{_id: 5}", "{$setOnInsert: {_id: 6}}",
     "docext: after applying the update, the (immutable) field '_id' was found to have been altered to _id: 6"),

  /* ---- the scenarios' writes (SCENARIOS.md) ---- */
  /* A.4: push a review; every atomic modifier */
  T("{_id: 1, reviews: [{user: 1, text: \"One of the best\"}]}",
    "{$push: {reviews: {user: 1, text: \"I did NOT like this book.\"}}}",
    "{_id: 1, reviews: [{user: 1, text: \"One of the best\"}, {user: 1, text: \"I did NOT like this book.\"}]}"),
  T("{_id: 1, subjects: [\"Love stories\"]}", "{$addToSet: {subjects: \"Jazz Age\"}, $inc: {pages: 1}}",
    "{_id: 1, subjects: [\"Love stories\", \"Jazz Age\"], pages: 1}"),
  /* A.6: monthly buckets, delete one review by ObjectId */
  T("{_id: \"bob-201210\", reviews: [{_id: ObjectId(\"507f1f77bcf86cd799439011\"), t: 1},"
    " {_id: ObjectId(\"507f1f77bcf86cd799439012\"), t: 2}]}",
    "{$pull: {reviews: {_id: ObjectId(\"507f1f77bcf86cd799439011\")}}}",
    "{_id: \"bob-201210\", reviews: [{_id: ObjectId(\"507f1f77bcf86cd799439012\"), t: 2}]}"),
  /* A.8: take a loan request */
  T("{_id: {borrower: \"bob\", book: 1}, pending: false, approved: false, priority: 1}",
    "{$set: {pending: true, started: ISODate(\"2012-10-10T21:14:07Z\")}}",
    "{_id: {borrower: \"bob\", book: 1}, pending: true, approved: false, priority: 1, "
    "started: ISODate(\"2012-10-10T21:14:07Z\")}"),
  /* A.10: time series, flat and nested */
  T("{_id: \"b1-20121010\", total: 5, hour: {\"0\": 1, \"23\": 4}, minute: {\"0\": 1, \"1439\": 4}}",
    "{$inc: {total: 1, \"hour.23\": 1, \"minute.1439\": 1}}",
    "{_id: \"b1-20121010\", total: 6, hour: {\"0\": 1, \"23\": 5}, minute: {\"0\": 1, \"1439\": 5}}"),
  T("{_id: \"b1-20121010\", total: 5, hour: {\"0\": {total: 1}, \"23\": {total: 4, \"1438\": 4}}}",
    "{$inc: {total: 1, \"hour.23.total\": 1, \"hour.23.1439\": 1}}",
    "{_id: \"b1-20121010\", total: 6, hour: {\"0\": {total: 1}, \"23\": {total: 5, \"1438\": 4, \"1439\": 1}}}"),
  /* A.12: a recommendation from the budget */
  T("{_id: \"bob\", remaining: 8, books: [3, 10]}", "{$inc: {remaining: -1}, $push: {books: 4}}",
    "{_id: \"bob\", remaining: 7, books: [3, 10, 4]}"),
  /* A.13: referrers as a map */
  T("{book: 1, referrers: {google_com: 5}}", "{$inc: {\"referrers.bing_com\": 1}}",
    "{book: 1, referrers: {google_com: 5, bing_com: 1}}"),
  TI("{book: 1}", "{$inc: {\"referrers.bing_com\": 1}}", "{book: 1, referrers: {bing_com: 1}}"),
  /* B.3: the counter, and the bucket */
  TI("{user_name: \"Joe\"}", "{$inc: {msg_count: 1}}", "{user_name: \"Joe\", msg_count: 1}"),
  TI("{owner: \"Joe\", sequence: 2}", "{$push: {messages: {from: \"Bob\", message: \"Hi!\"}}}",
     "{owner: \"Joe\", sequence: 2, messages: [{from: \"Bob\", message: \"Hi!\"}]}"),
  /* B.4: keep the latest 2 by date */
  T("{messages: [{sent: ISODate(\"2020-01-03T00:00:00Z\")}, {sent: ISODate(\"2020-01-01T00:00:00Z\")}]}",
    "{$push: {messages: {$each: [{sent: ISODate(\"2020-01-02T00:00:00Z\")}], $sort: {sent: 1}, $slice: -2}}}",
    "{messages: [{sent: ISODate(\"2020-01-02T00:00:00Z\")}, {sent: ISODate(\"2020-01-03T00:00:00Z\")}]}"),
  /* E.4: reassigning a task */
  T("{_id: \"t1\", owner: \"p1\"}", "{$set: {owner: \"p2\"}}", "{_id: \"t1\", owner: \"p2\"}"),
  T("{_id: \"p1\", tasks: [\"t1\", \"t2\"]}", "{$pull: {tasks: \"t1\"}}", "{_id: \"p1\", tasks: [\"t2\"]}"),
  /* E.5: the last 2 log messages by time */
  T("{_id: \"h\", logmsgs: [{time: 5}, {time: 9}]}",
    "{$push: {logmsgs: {$each: [{time: 7}], $sort: {time: 1}, $slice: -2}}}",
    "{_id: \"h\", logmsgs: [{time: 7}, {time: 9}]}"),
};

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

/* Run one update; zOut receives canonical JSON of the result or the error
** message (or the SQLite error string when there is no message). */
static int runUpdate(const u8 *aDoc, const u8 *aUpd, const u8 *aOpt, int iPos, int bInsert,
                     DocBuf *pOut, int *pbChanged, char **pzErr){
  DocUpdate *p = 0;
  int rc = docextUpdateNew(aUpd, aOpt, &p, pzErr);
  if( rc==SQLITE_OK ){
    rc = docextUpdateApply(p, aDoc, iPos, bInsert, pOut, pbChanged, pzErr);
    docextUpdateFree(p);
  }
  return rc;
}

static void describe(const u8 *a, char *zOut, int nOut){
  DocBuf t;
  int rc = SQLITE_OK;
  memset(&t, 0, sizeof(t));
  docextJsonWriteDoc(&rc, &t, a, DOCEXT_JSON_CANONICAL);
  docextBufAppendByte(&rc, &t, 0);
  snprintf(zOut, nOut, "%s", rc==SQLITE_OK ? (const char*)t.a : "(cannot write)");
  docextBufFree(&t);
}

static void checkCase(const UpdCase *pC){
  DocBuf doc, upd, opt, out, want;
  char *zErr = 0;
  int rc, bChanged = -1, bOk = 1;
  char zGot[2048], zWant[2048];
  memset(&doc, 0, sizeof(doc));
  memset(&upd, 0, sizeof(upd));
  memset(&opt, 0, sizeof(opt));
  memset(&out, 0, sizeof(out));
  memset(&want, 0, sizeof(want));
  if( parseText(pC->zDoc, &doc) || parseText(pC->zUpdate, &upd) ) goto done;
  if( pC->zOptions && parseText(pC->zOptions, &opt) ) goto done;
  rc = runUpdate(doc.a, upd.a, pC->zOptions ? opt.a : 0, pC->iPos, pC->bInsert,
                 &out, &bChanged, &zErr);
  if( pC->zExpect[0]=='{' ){
    if( parseText(pC->zExpect, &want) ) goto done;
    if( rc!=SQLITE_OK ){
      bOk = 0;
      snprintf(zGot, sizeof(zGot), "error %d: %s", rc, zErr ? zErr : "(no message)");
    }else if( out.n!=want.n || memcmp(out.a, want.a, out.n)!=0 ){
      bOk = 0;
      describe(out.a, zGot, sizeof(zGot));
    }else if( docextBsonCheck(out.a, out.n, &zErr) ){
      bOk = 0;
      snprintf(zGot, sizeof(zGot), "invalid BSON: %s", zErr);
    }else if( pC->bChanged!=ANY && bChanged!=pC->bChanged ){
      bOk = 0;
      snprintf(zGot, sizeof(zGot), "*pbChanged is %d", bChanged);
    }
    if( !bOk ){
      describe(want.a, zWant, sizeof(zWant));
      printf("FAIL: %s with %s\n  want %s\n  got  %s\n", pC->zDoc, pC->zUpdate, zWant, zGot);
    }
  }else{
    if( rc==SQLITE_OK ){
      bOk = 0;
      describe(out.a, zGot, sizeof(zGot));
    }else if( zErr==0 || strcmp(zErr, pC->zExpect)!=0 ){
      bOk = 0;
      snprintf(zGot, sizeof(zGot), "error %d: %s", rc, zErr ? zErr : "(no message)");
    }
    if( !bOk ){
      printf("FAIL: %s with %s\n  want %s\n  got  %s\n", pC->zDoc, pC->zUpdate, pC->zExpect, zGot);
    }
  }
  if( bOk ) nPass++; else nFail++;
done:
  sqlite3_free(zErr);
  docextBufFree(&doc);
  docextBufFree(&upd);
  docextBufFree(&opt);
  docextBufFree(&out);
  docextBufFree(&want);
}

static void check(int bOk, const char *zWhat){
  if( bOk ){
    nPass++;
  }else{
    nFail++;
    printf("FAIL: %s\n", zWhat);
  }
}

/* Apply update text to a document built in C; returns rc, message in zErr. */
static int applyText(const u8 *aDoc, const char *zUpd, DocBuf *pOut, int *pbChanged, char **pzErr){
  DocBuf upd;
  int rc;
  memset(&upd, 0, sizeof(upd));
  if( parseText(zUpd, &upd) ) return SQLITE_ERROR;
  rc = runUpdate(aDoc, upd.a, 0, -1, 0, pOut, pbChanged, pzErr);
  docextBufFree(&upd);
  return rc;
}

/* A small update of a large document leaves every other byte as it was:
** the same bytes before the change, and the same bytes (shifted by the
** change in size) after it, apart from the enclosing length prefixes. */
static void checkInPlace(void){
  DocBuf doc, out;
  int rc = SQLITE_OK, i, bChanged = 0;
  i64 iStart, iSub, iMid = 0;
  char *zErr = 0;
  memset(&doc, 0, sizeof(doc));
  memset(&out, 0, sizeof(out));
  iStart = docextBsonStartDoc(&rc, &doc);
  for(i=0; i<2000; i++){
    char zKey[16];
    int n = snprintf(zKey, sizeof(zKey), "f%d", i);
    if( i==1000 ){
      iSub = docextBsonStartChild(&rc, &doc, DOC_DOCUMENT, "sub", 3);
      docextBsonAppendString(&rc, &doc, DOC_STRING, "x", 1, "hello", 5);
      iMid = doc.n;
      docextBsonAppendInt32(&rc, &doc, "n", 1, 7);
      docextBsonAppendString(&rc, &doc, DOC_STRING, "y", 1, "world", 5);
      docextBsonEndDoc(&rc, &doc, iSub);
    }
    docextBsonAppendString(&rc, &doc, DOC_STRING, zKey, n, "some text", 9);
  }
  docextBsonEndDoc(&rc, &doc, iStart);
  check(rc==SQLITE_OK, "in place: build");

  /* same size: only the 4 value bytes differ */
  rc = applyText(doc.a, "{$inc: {\"sub.n\": 1}}", &out, &bChanged, &zErr);
  check(rc==SQLITE_OK && out.n==doc.n && bChanged==1, "in place: $inc ran");
  if( rc==SQLITE_OK && out.n==doc.n ){
    i64 j, nDiff = 0, iFirst = -1;
    for(j=0; j<doc.n; j++){
      if( out.a[j]!=doc.a[j] ){ nDiff++; if( iFirst<0 ) iFirst = j; }
    }
    check(nDiff==1 && iFirst==iMid+3, "in place: $inc changes exactly one byte");
  }
  /* a larger value: identical prefix, identical suffix after the change */
  rc = applyText(doc.a, "{$set: {\"sub.n\": \"a longer value\"}}", &out, &bChanged, &zErr);
  check(rc==SQLITE_OK, "in place: $set ran");
  if( rc==SQLITE_OK ){
    i64 nGrow = out.n - doc.n;
    i64 iAfter = iMid + 1 + 2 + 4;      /* end of the old "n" element */
    /* everything but the two length prefixes and the changed element */
    {
      DocValue sub;
      i64 iSubOff;
      docextBsonFind(doc.a, "sub", 3, &sub);
      iSubOff = sub.p - doc.a;
      check(memcmp(out.a+4, doc.a+4, (size_t)(iSubOff-4))==0, "in place: bytes before the change");
      check(memcmp(out.a+iSubOff+4, doc.a+iSubOff+4, (size_t)(iMid-iSubOff-4))==0,
            "in place: bytes of sub before the change");
      check(memcmp(out.a+iAfter+nGrow, doc.a+iAfter, (size_t)(doc.n-iAfter))==0,
            "in place: bytes after the change");
    }
  }
  /* nothing to do: byte-identical, *pbChanged 0 */
  rc = applyText(doc.a, "{$set: {f5: \"some text\"}, $unset: {nothere: 1}, $min: {f1999: \"z\"}}",
                 &out, &bChanged, &zErr);
  check(rc==SQLITE_OK && bChanged==0 && out.n==doc.n && memcmp(out.a, doc.a, doc.n)==0,
        "in place: a no-op is byte-identical");
  sqlite3_free(zErr);
  docextBufFree(&doc);
  docextBufFree(&out);
}

/* The 16 MiB limit, the nesting limit, padding, hostile paths. */
static void checkLimits(void){
  DocBuf doc, upd, out;
  int rc = SQLITE_OK, bChanged, i;
  char *zErr = 0;
  i64 iStart;
  char *zBig;
  const int nBig = 9*1024*1024;

  memset(&doc, 0, sizeof(doc));
  memset(&upd, 0, sizeof(upd));
  memset(&out, 0, sizeof(out));
  zBig = malloc(nBig);
  memset(zBig, 'x', nBig);

  /* 9 MiB + 9 MiB > 16 MiB */
  iStart = docextBsonStartDoc(&rc, &doc);
  docextBsonAppendString(&rc, &doc, DOC_STRING, "a", 1, zBig, nBig);
  docextBsonEndDoc(&rc, &doc, iStart);
  iStart = docextBsonStartDoc(&rc, &upd);
  {
    i64 iSet = docextBsonStartChild(&rc, &upd, DOC_DOCUMENT, "$set", 4);
    docextBsonAppendString(&rc, &upd, DOC_STRING, "b", 1, zBig, nBig);
    docextBsonEndDoc(&rc, &upd, iSet);
  }
  docextBsonEndDoc(&rc, &upd, iStart);
  rc = runUpdate(doc.a, upd.a, 0, -1, 0, &out, &bChanged, &zErr);
  check(rc==SQLITE_TOOBIG && zErr && strcmp(zErr, "docext: Resulting document after "
        "update is larger than 16777216")==0, "16 MiB: $set");
  sqlite3_free(zErr); zErr = 0;
  /* the same through $push of the document's own size */
  docextBufReset(&upd);
  rc = SQLITE_OK;
  iStart = docextBsonStartDoc(&rc, &upd);
  {
    i64 iSet = docextBsonStartChild(&rc, &upd, DOC_DOCUMENT, "$push", 5);
    docextBsonAppendString(&rc, &upd, DOC_STRING, "c", 1, zBig, nBig);
    docextBsonEndDoc(&rc, &upd, iSet);
  }
  docextBsonEndDoc(&rc, &upd, iStart);
  rc = runUpdate(doc.a, upd.a, 0, -1, 0, &out, &bChanged, &zErr);
  check(rc==SQLITE_TOOBIG && zErr!=0, "16 MiB: $push");
  sqlite3_free(zErr); zErr = 0;

  /* padding: 1,500,000 nulls is allowed, more is not */
  docextBufReset(&doc);
  rc = SQLITE_OK;
  parseText("{a: []}", &doc);
  rc = applyText(doc.a, "{$set: {\"a.1500000\": 1}}", &out, &bChanged, &zErr);
  check(rc==SQLITE_OK && out.n > 1500000, "padding: 1,500,000 nulls");
  rc = applyText(doc.a, "{$set: {\"a.1500001\": 1}}", &out, &bChanged, &zErr);
  check(rc==SQLITE_ERROR && zErr && strcmp(zErr, "docext: can't backfill array 'a' to index "
        "1500001: more than 1500000 elements of padding")==0, "padding: 1,500,001 nulls");
  sqlite3_free(zErr); zErr = 0;
  rc = applyText(doc.a, "{$set: {\"a.1500001\": 1, \"b.1500000\": 1}, $unset: {\"a.99999999\": 1}}",
                 &out, &bChanged, &zErr);
  check(rc==SQLITE_ERROR, "padding: $set beyond");
  sqlite3_free(zErr); zErr = 0;
  rc = applyText(doc.a, "{$unset: {\"a.99999999\": 1}}", &out, &bChanged, &zErr);
  check(rc==SQLITE_OK && bChanged==0, "padding: $unset far beyond the end does nothing");
  rc = applyText(doc.a, "{$set: {\"a.99999999999999999999\": 1}}", &out, &bChanged, &zErr);
  check(rc==SQLITE_ERROR && zErr && strcmp(zErr, "docext: Cannot create field "
        "'99999999999999999999' in element {a: [ ]}")==0, "padding: a huge index");
  sqlite3_free(zErr); zErr = 0;
  /* many padded arrays: stopped at 16 MiB, not after gigabytes */
  {
    DocBuf t;
    int rc2 = SQLITE_OK;
    memset(&t, 0, sizeof(t));
    docextBufAppendStr(&rc2, &t, "{$set: {");
    for(i=0; i<50; i++) docextBufAppendf(&rc2, &t, "%s\"k%d.1500000\": 1", i ? ", " : "", i);
    docextBufAppendStr(&rc2, &t, "}}");
    docextBufAppendByte(&rc2, &t, 0);
    docextBufReset(&doc);
    parseText("{k0: [], k1: [], k2: [], k3: [], k4: []}", &doc);
    rc = applyText(doc.a, (const char*)t.a, &out, &bChanged, &zErr);
    check(rc==SQLITE_TOOBIG && out.nAlloc < 64*1024*1024, "padding: many arrays stop at 16 MiB");
    sqlite3_free(zErr); zErr = 0;
    docextBufFree(&t);
  }

  /* nesting: at most 100 documents and arrays below the root (the
  ** validator's limit) — through a long path, a deep value, a $push */
  {
    static const struct { int nComp; const char *zTail; int bOk; } aDeep[] = {
      { 101, "\": 1}}", 1 },             /* 100 documents and a scalar */
      { 102, "\": 1}}", 0 },
      { 99,  "\": {b: {c: 1}}}}", 1 },   /* 98 + 2 */
      { 100, "\": {b: {c: 1}}}}", 0 },
    };
    DocBuf t;
    int rc2 = SQLITE_OK, j;
    memset(&t, 0, sizeof(t));
    docextBufReset(&doc);
    parseText("{}", &doc);
    for(j=0; j<(int)(sizeof(aDeep)/sizeof(aDeep[0])); j++){
      char zWhat[64];
      docextBufReset(&t);
      docextBufAppendStr(&rc2, &t, "{$set: {\"");
      for(i=0; i<aDeep[j].nComp; i++) docextBufAppendStr(&rc2, &t, i ? ".a" : "a");
      docextBufAppendStr(&rc2, &t, aDeep[j].zTail);
      docextBufAppendByte(&rc2, &t, 0);
      rc = applyText(doc.a, (const char*)t.a, &out, &bChanged, &zErr);
      snprintf(zWhat, sizeof(zWhat), "nesting: %d components%s", aDeep[j].nComp,
               aDeep[j].zTail[3]=='{' ? " and a 2-level value" : "");
      if( aDeep[j].bOk ){
        check(rc==SQLITE_OK && docextBsonCheck(out.a, out.n, &zErr)==SQLITE_OK, zWhat);
      }else{
        check(rc==SQLITE_ERROR && zErr && strstr(zErr, "deeper than 100 levels"), zWhat);
      }
      sqlite3_free(zErr); zErr = 0;
    }
    /* $push: 98 documents, the array, the pushed document */
    for(j=99; j<=100; j++){
      docextBufReset(&t);
      docextBufAppendStr(&rc2, &t, "{$push: {\"");
      for(i=0; i<j; i++) docextBufAppendStr(&rc2, &t, i ? ".a" : "a");
      docextBufAppendStr(&rc2, &t, "\": {b: 1}}}");
      docextBufAppendByte(&rc2, &t, 0);
      rc = applyText(doc.a, (const char*)t.a, &out, &bChanged, &zErr);
      if( j==99 ){
        check(rc==SQLITE_OK && docextBsonCheck(out.a, out.n, &zErr)==SQLITE_OK, "nesting: $push at 100");
      }else{
        check(rc==SQLITE_ERROR && zErr && strstr(zErr, "deeper than 100 levels"), "nesting: $push at 101");
      }
      sqlite3_free(zErr); zErr = 0;
    }
    docextBufFree(&t);
  }

  /* many fields in one update, in order */
  {
    DocBuf t;
    int rc2 = SQLITE_OK;
    DocIter it;
    int bOrdered = 1, n = 0;
    memset(&t, 0, sizeof(t));
    docextBufAppendStr(&rc2, &t, "{$set: {");
    for(i=4999; i>=0; i--) docextBufAppendf(&rc2, &t, "%s\"%d\": %d", i<4999 ? ", " : "", i, i);
    docextBufAppendStr(&rc2, &t, "}}");
    docextBufAppendByte(&rc2, &t, 0);
    docextBufReset(&doc);
    parseText("{}", &doc);
    rc = applyText(doc.a, (const char*)t.a, &out, &bChanged, &zErr);
    if( rc==SQLITE_OK ){
      docextIterInit(&it, out.a);
      while( docextIterNext(&it) ){
        if( docextValueI32(&it.v)!=n++ ) bOrdered = 0;
      }
    }
    check(rc==SQLITE_OK && n==5000 && bOrdered, "5000 fields in numeric order");
    docextBufFree(&t);
  }

  /* an array whose keys are not 0, 1, 2: elements are read by position */
  {
    DocBuf arr;
    int rc2 = SQLITE_OK;
    i64 iArr;
    memset(&arr, 0, sizeof(arr));
    iStart = docextBsonStartDoc(&rc2, &arr);
    iArr = docextBsonStartChild(&rc2, &arr, DOC_ARRAY, "a", 1);
    docextBsonAppendInt32(&rc2, &arr, "7", 1, 10);
    docextBsonAppendInt32(&rc2, &arr, "x", 1, 20);
    docextBsonEndDoc(&rc2, &arr, iArr);
    docextBsonEndDoc(&rc2, &arr, iStart);
    rc = applyText(arr.a, "{$inc: {\"a.1\": 1}}", &out, &bChanged, &zErr);
    if( rc==SQLITE_OK ){
      DocValue v;
      check(docextPathGet(out.a, "a.x", 3, &v)==0, "odd array keys: kept");
    }
    {
      DocIter it, ia;
      DocValue a;
      int bOk = rc==SQLITE_OK && docextBsonFind(out.a, "a", 1, &a);
      if( bOk ){
        docextIterInitValue(&ia, &a);
        bOk = docextIterNext(&ia) && docextValueI32(&ia.v)==10
           && docextIterNext(&ia) && docextValueI32(&ia.v)==21;
      }
      (void)it;
      check(bOk, "odd array keys: $inc by position");
    }
    rc = applyText(arr.a, "{$push: {a: 3}}", &out, &bChanged, &zErr);
    check(rc==SQLITE_OK && docextBsonCheck(out.a, out.n, &zErr)==SQLITE_OK, "odd array keys: $push");
    rc = applyText(arr.a, "{$pop: {a: -1}}", &out, &bChanged, &zErr);
    {
      DocValue v;
      check(rc==SQLITE_OK && docextPathGet(out.a, "a.0", 3, &v) && docextValueI32(&v)==20,
            "odd array keys: $pop renumbers");
    }
    sqlite3_free(zErr); zErr = 0;
    docextBufFree(&arr);
  }

  free(zBig);
  docextBufFree(&doc);
  docextBufFree(&upd);
  docextBufFree(&out);
}

/* One compiled update applied to many documents gives each its answer. */
static void checkReuse(void){
  DocBuf upd, opt, d1, d2, out;
  DocUpdate *p = 0;
  char *zErr = 0;
  int rc, bChanged, i;
  memset(&upd, 0, sizeof(upd));
  memset(&opt, 0, sizeof(opt));
  memset(&d1, 0, sizeof(d1));
  memset(&d2, 0, sizeof(d2));
  memset(&out, 0, sizeof(out));
  parseText("{$inc: {n: 1}, $push: {\"a.$[x]\": 0}, $rename: {r: \"s\"}}", &upd);
  parseText("{arrayFilters: [{x: {$size: 1}}]}", &opt);
  parseText("{n: 1, a: [[1], [1, 2]], r: 5}", &d1);
  parseText("{a: [[], [2]]}", &d2);
  rc = docextUpdateNew(upd.a, opt.a, &p, &zErr);
  check(rc==SQLITE_OK && docextUpdateIsReplacement(p)==0, "reuse: compile");
  for(i=0; rc==SQLITE_OK && i<3; i++){
    char zGot[512];
    rc = docextUpdateApply(p, d1.a, -1, 0, &out, &bChanged, &zErr);
    describe(out.a, zGot, sizeof(zGot));
    check(rc==SQLITE_OK && strcmp(zGot, "{\"n\":{\"$numberInt\":\"2\"},\"a\":[[{\"$numberInt\":\"1\"},"
          "{\"$numberInt\":\"0\"}],[{\"$numberInt\":\"1\"},{\"$numberInt\":\"2\"}]],\"s\":"
          "{\"$numberInt\":\"5\"}}")==0, "reuse: document 1");
    rc = docextUpdateApply(p, d2.a, -1, 0, &out, &bChanged, &zErr);
    describe(out.a, zGot, sizeof(zGot));
    check(rc==SQLITE_OK && strcmp(zGot, "{\"a\":[[],[{\"$numberInt\":\"2\"},{\"$numberInt\":"
          "\"0\"}]],\"n\":{\"$numberInt\":\"1\"}}")==0, "reuse: document 2");
  }
  docextUpdateFree(p);
  p = 0;
  docextBufReset(&upd);
  parseText("{title: \"x\"}", &upd);
  rc = docextUpdateNew(upd.a, 0, &p, &zErr);
  check(rc==SQLITE_OK && docextUpdateIsReplacement(p)==1, "reuse: a replacement");
  docextUpdateFree(p);
  sqlite3_free(zErr);
  docextBufFree(&upd);
  docextBufFree(&opt);
  docextBufFree(&d1);
  docextBufFree(&d2);
  docextBufFree(&out);
}

/* Out-of-memory: fail allocation N for every N. */

static void oomRun(const u8 *aDoc, const u8 *aUpd, const u8 *aOpt, char *zOut, int nOut){
  DocBuf out;
  char *zErr = 0;
  int bChanged = 0;
  int rc, nSave;
  memset(&out, 0, sizeof(out));
  rc = runUpdate(aDoc, aUpd, aOpt, 1, 0, &out, &bChanged, &zErr);
  nSave = nFailAt;            /* describing is not under test */
  nFailAt = 0;
  if( rc==SQLITE_OK ){
    describe(out.a, zOut, nOut);
  }else if( rc==SQLITE_NOMEM ){
    snprintf(zOut, nOut, "%s", sqlite3_errstr(SQLITE_NOMEM));
  }else{
    snprintf(zOut, nOut, "error %d: %s", rc, zErr ? zErr : "");
  }
  nFailAt = nSave;
  sqlite3_free(zErr);
  docextBufFree(&out);
}

static void checkOom(const char *zDoc, const char *zUpd, const char *zOpt){
  DocBuf doc, upd, opt;
  char zWant[2048];
  int i, bOk = 1;
  memset(&doc, 0, sizeof(doc));
  memset(&upd, 0, sizeof(upd));
  memset(&opt, 0, sizeof(opt));
  if( parseText(zDoc, &doc) || parseText(zUpd, &upd) ) goto done;
  if( zOpt && parseText(zOpt, &opt) ) goto done;
  oomRun(doc.a, upd.a, zOpt ? opt.a : 0, zWant, sizeof(zWant));
  for(i=0; i<100000; i++){
    char zGot[2048];
    bFailed = 0;
    nFailAt = i+1;
    oomRun(doc.a, upd.a, zOpt ? opt.a : 0, zGot, sizeof(zGot));
    nFailAt = 0;
    if( !bFailed ){
      if( strcmp(zGot, zWant)!=0 ){ bOk = 0; printf("FAIL: OOM run %d: %s\n", i, zGot); }
      break;
    }
    if( strcmp(zGot, zWant)!=0 && strcmp(zGot, sqlite3_errstr(SQLITE_NOMEM))!=0 ){
      bOk = 0;
      printf("FAIL: OOM at allocation %d for %s: got %s\n", i, zUpd, zGot);
      break;
    }
  }
  if( bOk ) nPass++; else nFail++;
done:
  docextBufFree(&doc);
  docextBufFree(&upd);
  docextBufFree(&opt);
}

int main(void){
  int i;
  installOom();
  sqlite3_initialize();
  docextClockSet(1, 1362096000500LL);     /* 2013-03-01T00:00:00.500Z */

  for(i=0; i<(int)(sizeof(aCase)/sizeof(aCase[0])); i++) checkCase(&aCase[i]);
  checkInPlace();
  checkLimits();
  checkReuse();

  checkOom("{_id: 1, a: [{b: 1, c: [3, 1]}, {b: 2, c: []}], n: NumberDecimal(\"1.5\"), s: [1, 2, 3], r: 1}",
           "{$set: {\"a.$.x\": 1, \"z.y\": [1, 2]}, $inc: {n: 0.25, \"m.k\": 1},"
           " $push: {\"a.$[e].c\": {$each: [5, 4], $sort: 1, $slice: -3, $position: 0}},"
           " $pull: {s: {$in: [1, /x/]}}, $addToSet: {t: {$each: [1, 1, 2]}}, $rename: {r: \"q\"},"
           " $currentDate: {d: true}, $bit: {w: {or: 3}}, $min: {lo: 0}, $unset: {\"a.0.b\": 1}}",
           "{arrayFilters: [{\"e.b\": {$gte: 1}}]}");
  checkOom("{_id: 1, a: [1, 2]}", "{$set: {\"a.$\": 9, \"a.1\": 8}}", 0);
  checkOom("{_id: 1}", "{b: 2, c: [1, 2, {d: 3}]}", 0);
  checkOom("{a: [{b: [1]}, {b: [2]}]}", "{$set: {\"a.$[].b.$[x]\": 0, \"a.$[].c\": 1}}",
           "{arrayFilters: [{x: {$gt: 1}}]}");
  checkOom("{}", "{$set: {\"a..b\": 1}}", 0);
  checkOom("{a: [1]}", "{$pull: {a: {$foo: 1}}}", 0);
  checkOom("{}", "{$set: {\"a.$[x]\": 1}}", "{arrayFilters: [{x: {$regex: \"(\"}}]}");

  docextClockSet(0, 0);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
