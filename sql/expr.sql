-- $expr: aggregation expressions in filters (docext_expr.c).
.load ./docext
.headers off
.mode list

-- 1. Two fields of one document compared: MongoDB's own example
CREATE VIRTUAL TABLE budget USING docext;
INSERT INTO budget(doc) VALUES
  ('{_id: 1, category: "food", budget: 400, spent: 450}'),
  ('{_id: 2, category: "drinks", budget: 100, spent: 150}'),
  ('{_id: 3, category: "clothes", budget: 100, spent: 50}'),
  ('{_id: 4, category: "misc", budget: 500, spent: 300}'),
  ('{_id: 5, category: "travel", budget: 200, spent: 650}');
SELECT doc FROM budget('{$expr: {$gt: ["$spent", "$budget"]}}');
-- with other conditions, in $and, $or and $nor, and through doc_match
SELECT _id FROM budget('{budget: {$gte: 200}, $expr: {$lt: ["$spent", "$budget"]}}');
SELECT _id FROM budget('{$or: [{category: "clothes"}, {$expr: {$gt: ["$spent", {$multiply: ["$budget", 3]}]}}]}');
SELECT _id FROM budget('{$nor: [{$expr: {$gt: ["$spent", "$budget"]}}]}');
SELECT _id FROM budget WHERE doc_match(doc, '{$and: [{$expr: {$eq: ["$budget", 100]}}, {$expr: {$lt: ["$spent", 100]}}]}');
SELECT doc_count('budget', '{$expr: {$gte: [{$subtract: ["$spent", "$budget"]}, 50]}}');

-- 2. $cond on decimals (MongoDB's example: a discounted price below 5)
CREATE VIRTUAL TABLE supplies USING docext;
INSERT INTO supplies(doc) VALUES
  ('{_id: 1, item: "binder", qty: NumberInt(100), price: NumberDecimal("12")}'),
  ('{_id: 2, item: "notebook", qty: NumberInt(200), price: NumberDecimal("8")}'),
  ('{_id: 3, item: "pencil", qty: NumberInt(50), price: NumberDecimal("6")}'),
  ('{_id: 4, item: "eraser", qty: NumberInt(150), price: NumberDecimal("3")}'),
  ('{_id: 5, item: "legal pad", qty: NumberInt(42), price: NumberDecimal("10")}');
SELECT _id FROM supplies('{$expr: {$lt: [{$cond: {if: {$gte: ["$qty", 100]},
  then: {$multiply: ["$price", NumberDecimal("0.50")]},
  else: {$multiply: ["$price", NumberDecimal("0.75")]}}}, NumberDecimal("5")]}}');
-- the array form of $cond, and $switch
SELECT _id FROM supplies('{$expr: {$cond: [{$eq: [{$mod: ["$qty", 100]}, 0]}, true, false]}}');
SELECT _id FROM supplies('{$expr: {$eq: ["cheap", {$switch: {branches: [
  {case: {$lt: ["$price", 5]}, then: "cheap"},
  {case: {$lt: ["$price", 10]}, then: "fair"}], default: "dear"}}]}}');

-- 3. Missing is not null: it sorts below null and equals only missing
CREATE VIRTUAL TABLE m USING docext;
INSERT INTO m(doc) VALUES ('{_id: 1, a: null}'), ('{_id: 2}'), ('{_id: 3, a: 0}'),
  ('{_id: 4, a: MinKey}'), ('{_id: 5, a: undefined}');
SELECT 'eq null', group_concat(_id) FROM m('{$expr: {$eq: ["$a", null]}}');
SELECT 'lt null', group_concat(_id) FROM m('{$expr: {$lt: ["$a", null]}}');
SELECT 'eq missing', group_concat(_id) FROM m('{$expr: {$eq: ["$a", "$nothing"]}}');
SELECT 'ifNull', group_concat(_id) FROM m('{$expr: {$eq: [{$ifNull: ["$a", "none"]}, "none"]}}');
SELECT 'ifNull n-ary', group_concat(_id) FROM m('{$expr: {$eq: [{$ifNull: ["$a", "$b", 7]}, 7]}}');
SELECT 'truth', group_concat(_id) FROM m('{$expr: "$a"}');
SELECT 'not', group_concat(_id) FROM m('{$expr: {$not: "$a"}}');
SELECT 'type', group_concat(_id) FROM m('{$expr: {$eq: [{$type: "$a"}, "missing"]}}');
SELECT 'cmp', group_concat(_id) FROM m('{$expr: {$eq: [{$cmp: ["$a", null]}, -1]}}');
-- $$REMOVE is missing too
SELECT '$$REMOVE', group_concat(_id) FROM m('{$expr: {$eq: ["$a", "$$REMOVE"]}}');

-- 4. Field paths read as aggregation reads them
CREATE VIRTUAL TABLE p USING docext;
INSERT INTO p(doc) VALUES
  ('{_id: 1, arr: [{x: 1}, {x: 2}, {y: 3}, 4]}'),
  ('{_id: 2, arr: [[{x: 7}], {x: [8, 9]}]}'),
  ('{_id: 3, arr: {x: 5}, obj: {"0": "zero"}}'),
  ('{_id: 4, arr: [{"0": "first"}]}');
-- over an array: each element's value, nothing for elements without one
SELECT _id FROM p('{$expr: {$eq: ["$arr.x", [1, 2]]}}');
-- arrays in arrays stay nested
SELECT _id FROM p('{$expr: {$eq: ["$arr.x", [[7], [8, 9]]]}}');
SELECT _id FROM p('{$expr: {$eq: ["$arr.x", 5]}}');
-- a number in a path names a field, never an element
SELECT _id FROM p('{$expr: {$eq: ["$arr.0", ["first"]]}}');
SELECT _id FROM p('{$expr: {$eq: ["$obj.0", "zero"]}}');
-- $$ROOT and $$CURRENT
SELECT _id FROM p('{$expr: {$eq: ["$$ROOT.arr.x", 5]}}');
SELECT _id FROM p('{$expr: {$eq: [{$type: "$$CURRENT"}, "object"]}}') LIMIT 1;
-- documents and arrays of expressions: missing fields are left out of a
-- document, and are null in an array
SELECT _id FROM p('{$expr: {$eq: [{a: "$arr.x", b: "$nope"}, {a: 5}]}}');
SELECT _id FROM p('{$expr: {$eq: [["$arr.x", "$nope"], [5, null]]}}');
-- {$literal} keeps a string that starts with $ as it is
SELECT _id FROM p('{_id: 1, $expr: {$eq: [{$literal: "$arr"}, "$arr"]}}');

-- 5. Arithmetic: types widen as in MongoDB
CREATE VIRTUAL TABLE n USING docext;
INSERT INTO n(doc) VALUES ('{_id: 1, i: NumberInt(2147483647), l: NumberLong("9223372036854775807"),
  d: 2.5, m: NumberDecimal("1.10"), t: ISODate("2020-01-01T00:00:00Z"), s: "x"}');
-- int32 overflow gives a long, long overflow a double
SELECT 'int+1', count(*) FROM n('{$expr: {$eq: [{$type: {$add: ["$i", 1]}}, "long"]}}');
SELECT 'long+1', count(*) FROM n('{$expr: {$eq: [{$type: {$add: ["$l", 1]}}, "double"]}}');
SELECT 'long*2', count(*) FROM n('{$expr: {$eq: [{$type: {$multiply: ["$l", 2]}}, "double"]}}');
SELECT 'int+double', count(*) FROM n('{$expr: {$eq: [{$add: ["$i", "$d"]}, 2147483649.5]}}');
SELECT 'decimal', count(*) FROM n('{$expr: {$eq: [{$type: {$add: ["$d", "$m"]}}, "decimal"]}}');
SELECT 'decimal sum', count(*) FROM n('{$expr: {$eq: [{$add: ["$m", "$m", "$m"]}, NumberDecimal("3.3")]}}');
SELECT 'decimal /', count(*) FROM n('{$expr: {$eq: [{$divide: [1, NumberDecimal("3")]},
  NumberDecimal("0.3333333333333333333333333333333333")]}}');
SELECT 'divide', count(*) FROM n('{$expr: {$eq: [{$divide: [7, 2]}, 3.5]}}');
SELECT 'mod', count(*) FROM n('{$expr: {$and: [{$eq: [{$mod: [-7, 3]}, -1]}, {$eq: [{$mod: [7.5, 2]}, 1.5]},
  {$eq: [{$type: {$mod: ["$l", 2]}}, "long"]}]}}');
SELECT 'subtract', count(*) FROM n('{$expr: {$eq: [{$subtract: ["$l", -1]}, 9223372036854775808.0]}}');
SELECT 'abs', count(*) FROM n('{$expr: {$eq: [{$abs: NumberInt(-2147483648)}, NumberLong("2147483648")]}}');
SELECT 'round', count(*) FROM n('{$expr: {$and: [{$eq: [{$ceil: "$d"}, 3]}, {$eq: [{$floor: -2.5}, -3]},
  {$eq: [{$trunc: -2.5}, -2]}, {$eq: [{$ceil: NumberDecimal("-0.5")}, 0]},
  {$eq: [{$floor: "$m"}, NumberDecimal("1")]}, {$eq: [{$ceil: "$m"}, 2]}]}}');
-- dates: plus milliseconds, minus a date
SELECT 'date+', count(*) FROM n('{$expr: {$eq: [{$add: [86400000, "$t"]}, ISODate("2020-01-02T00:00:00Z")]}}');
SELECT 'date-', count(*) FROM n('{$expr: {$eq: [{$subtract: ["$t", ISODate("2019-12-31T00:00:00Z")]}, 86400000]}}');
SELECT 'date-n', count(*) FROM n('{$expr: {$eq: [{$subtract: ["$t", 1000]}, ISODate("2019-12-31T23:59:59Z")]}}');
-- null or missing in arithmetic gives null
SELECT 'null', count(*) FROM n('{$expr: {$eq: [{$add: [1, "$nope", "$s"]}, null]}}');

-- 6. Arrays and strings
CREATE VIRTUAL TABLE shelves USING docext;
INSERT INTO shelves(doc) VALUES
  ('{_id: 1, books: ["Dune", "Emma"], capacity: 2, label: "Sci-fi"}'),
  ('{_id: 2, books: ["Ulysses"], capacity: 3, label: "Classics"}'),
  ('{_id: 3, books: [], capacity: 1, label: "Ñandú"}');
SELECT 'full', group_concat(_id) FROM shelves('{$expr: {$gte: [{$size: "$books"}, "$capacity"]}}');
SELECT 'in', group_concat(_id) FROM shelves('{$expr: {$in: ["Emma", "$books"]}}');
SELECT 'last', group_concat(_id) FROM shelves('{$expr: {$eq: [{$arrayElemAt: ["$books", -1]}, "Ulysses"]}}');
SELECT 'past end', group_concat(_id) FROM shelves('{$expr: {$eq: [{$arrayElemAt: ["$books", 5]}, "$$REMOVE"]}}');
SELECT 'isArray', group_concat(_id) FROM shelves('{$expr: {$isArray: "$books"}}');
SELECT 'concat', group_concat(_id) FROM shelves('{$expr: {$eq: [{$concat: ["$label", "/", "shelf"]}, "Sci-fi/shelf"]}}');
SELECT 'strLen', group_concat(_id) FROM shelves('{$expr: {$and: [{$eq: [{$strLenCP: "$label"}, 5]}, {$eq: [{$strLenBytes: "$label"}, 7]}]}}');

-- 7. The planner: the other conditions use indexes, and so does $expr's
-- $eq of a field and a constant (alone or in an $and), as in MongoDB 5.0;
-- the expression is still tested on each document read
SELECT doc_create_index('budget', '{category: 1}');
SELECT json_extract(doc_explain('budget', '{category: "food", $expr: {$gt: ["$spent", "$budget"]}}'),
  '$.cursor', '$.n', '$.nscanned', '$.nscannedObjects');
SELECT json_extract(doc_explain('budget', '{$expr: {$eq: ["$category", "food"]}}'),
  '$.cursor', '$.n', '$.nscanned');
SELECT json_extract(doc_explain('budget', '{$expr: {$and: [{$eq: ["drinks", "$category"]}, {$lt: ["$budget", 500]}]}}'),
  '$.cursor', '$.n', '$.nscanned');
-- an array in the field is not equal to its element for $expr, though the
-- index holds the element
INSERT INTO budget(doc) VALUES ('{_id: 6, category: ["food"], budget: 1, spent: 2}');
SELECT json_extract(doc_explain('budget', '{$expr: {$eq: ["$category", "food"]}}'),
  '$.cursor', '$.n', '$.nscanned');
SELECT _id FROM budget('{category: "food"}');
SELECT _id FROM budget('{$expr: {$eq: ["$category", "food"]}}');
DELETE FROM budget WHERE _id = 6;
-- other forms read every document
SELECT json_extract(doc_explain('budget', '{$expr: {$eq: ["$category", "$budget"]}}'), '$.cursor');
SELECT json_extract(doc_explain('budget', '{$expr: {$eq: ["$category", ["food"]]}}'), '$.cursor');
SELECT json_extract(doc_explain('budget', '{$expr: {$gte: ["$category", "food"]}}'), '$.cursor');
SELECT doc_count('budget', '{category: {$in: ["food", "misc"]}, $expr: {$gt: ["$spent", "$budget"]}}');

-- 8. Updates and deletes take $expr filters
SELECT doc_update_many('budget', '{$expr: {$gt: ["$spent", "$budget"]}}', '{$set: {over: true}}');
SELECT group_concat(_id) FROM budget('{over: true}');
SELECT doc_delete_many('budget', '{$expr: {$lt: ["$spent", {$divide: ["$budget", 2]}]}}');
SELECT group_concat(_id) FROM budget;
SELECT doc_find_and_modify('budget', '{query: {$expr: {$eq: ["$spent", 650]}}, update: {$inc: {spent: 1}}, new: true}');
-- an upsert takes no field from $expr
SELECT doc_update_one('budget', '{$expr: {$eq: ["$category", "none"]}}', '{$set: {x: 1}}', '{upsert: true}') LIKE '{"matchedCount":0,"modifiedCount":0,"upsertedId":%';
SELECT count(*) FROM budget('{x: 1, category: {$exists: false}}');

-- 9. An error while evaluating stops the statement and changes nothing
SELECT doc_update_many('budget', '{$expr: {$gt: [{$size: "$tags"}, 0]}}', '{$set: {y: 1}}');
SELECT doc_update_many('budget', '{$expr: {$gt: [{$divide: ["$spent", {$subtract: ["$budget", 100]}]}, 1]}}', '{$set: {y: 1}}');
SELECT count(*) FROM budget('{y: {$exists: true}}');
SELECT _id FROM budget('{$expr: {$concat: ["$category", 1]}}');
SELECT _id FROM n('{$expr: {$add: ["$t", "$s"]}}');
SELECT _id FROM supplies('{$expr: {$mod: ["$price", 2]}}');
SELECT _id FROM n('{$expr: {$add: ["$t", "$t"]}}');
SELECT _id FROM n('{$expr: {$subtract: [1, "$t"]}}');
SELECT _id FROM n('{$expr: {$abs: NumberLong("-9223372036854775808")}}');
SELECT _id FROM n('{$expr: {$arrayElemAt: [[1], 1.5]}}');
SELECT _id FROM n('{$expr: {$switch: {branches: [{case: false, then: 1}]}}}');
SELECT _id FROM n('{$expr: {$strLenCP: 5}}');
SELECT _id FROM n('{$expr: {$in: [1, "$nope"]}}');
SELECT _id FROM n('{$expr: {$mod: [5, 0]}}');

-- 10. Bad expressions are refused before anything runs
SELECT doc_match('{}', '{$expr: {$foo: 1}}');
SELECT doc_match('{}', '{$expr: {$eq: [1]}}');
SELECT doc_match('{}', '{$expr: {$size: [1, 2]}}');
SELECT doc_match('{}', '{$expr: {$ifNull: ["$a"]}}');
SELECT doc_match('{}', '{$expr: {$add: 1, $abs: 2}}');
SELECT doc_match('{}', '{$expr: "$"}');
SELECT doc_match('{}', '{$expr: "$a..b"}');
SELECT doc_match('{}', '{$expr: "$a.$b"}');
SELECT doc_match('{}', '{$expr: "$$NOPE"}');
SELECT doc_match('{}', '{$expr: {a: 1, $b: 2}}');
SELECT doc_match('{}', '{$expr: {"a.b": 1}}');
SELECT doc_match('{}', '{$expr: {$cond: {if: 1, then: 2}}}');
SELECT doc_match('{}', '{$expr: {$cond: {if: 1, then: 2, else: 3, otherwise: 4}}}');
SELECT doc_match('{}', '{$expr: {$switch: {branches: []}}}');
SELECT doc_match('{}', '{$expr: {$switch: {branches: [{case: 1}]}}}');
SELECT doc_match('{}', '{$expr: {$switch: {branches: [{case: 1, then: 2}], other: 3}}}');
SELECT doc_match('{}', '{$expr: {$switch: 1}}');
-- only on the whole document: not in $elemMatch, partial indexes, array
-- filters or $pull conditions
SELECT doc_match('{}', '{a: {$elemMatch: {$expr: {$eq: [1, 1]}}}}');
SELECT doc_create_index('budget', '{spent: 1}', '{partialFilterExpression: {$expr: {$gt: ["$spent", 1]}}}');
SELECT doc_update_many('budget', '{}', '{$set: {"tags.$[t]": 1}}', '{arrayFilters: [{t: 1, $expr: {$eq: [1, 1]}}]}');
SELECT doc_update_many('budget', '{}', '{$pull: {tags: {$expr: {$eq: [1, 1]}}}}');
SELECT name FROM doc_indexes('budget');
SELECT doc_check('budget');

-- 11. Limits: no value over 16 MiB, no evaluation over 64 MiB
CREATE VIRTUAL TABLE big USING docext;
INSERT INTO big(doc) SELECT json_object('_id', 1, 's', printf('%.*c', 1000000, 'x'));
SELECT _id FROM big('{$expr: {$eq: [{$strLenCP: {$concat: ["$s", "$s", "$s"]}}, 3000000]}}');
SELECT _id FROM big('{$expr: {$eq: [["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"], 1]}}');
SELECT _id FROM big('{$expr: {$eq: [{a: ["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"], b: ["$s","$s","$s","$s","$s","$s","$s","$s"]}, 1]}}');
SELECT _id FROM big('{$expr: {$or: [{$eq: [["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"], 1]},
  {$eq: [["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"], 1]}, {$eq: [["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"], 1]},
  {$eq: [["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"], 1]}, {$eq: [["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"], 1]},
  {$eq: [["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"], 1]}, {$eq: [["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"], 1]}]}}');
SELECT _id FROM big('{$expr: {$eq: [{$strLenCP: {$concat: ["$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s","$s"]}}, 1]}}');

-- 12. Variables: the let option of finds and commands, and $let
CREATE VIRTUAL TABLE v USING docext;
INSERT INTO v(doc) VALUES ('{_id: 1, name: "a", n: 5}'), ('{_id: 2, name: "b", n: 7}'),
  ('{_id: 3, name: "a", n: 9}');
SELECT doc FROM v('{$expr: {$eq: ["$_id", "$$id"]}}', NULL, NULL, '{let: {id: 2}}');
SELECT doc FROM v WHERE filter = '{$expr: {$gt: ["$n", "$$lo"]}}' AND options = '{let: {lo: 6}}';
-- a variable's value is an expression, evaluated before any document
SELECT _id FROM v('{$expr: {$gt: ["$n", {$add: ["$$lo", 1]}]}}', NULL, '{n: -1}',
  '{let: {lo: {$multiply: [2, 2.5]}}, limit: 1}');
-- ... so one that reads a field is an error, as in MongoDB; so is a bad name
SELECT count(*) FROM v('{$expr: {$eq: ["$$nothing", "$$REMOVE"]}}', NULL, NULL, '{let: {nothing: "$n"}}');
SELECT count(*) FROM v('{$expr: {$eq: ["$$Bad", 1]}}', NULL, NULL, '{let: {Bad: 1}}');
SELECT doc_update_many('v', '{$expr: {$eq: ["$name", "$$nm"]}}', '{$inc: {n: 1}}', '{let: {nm: "a"}}');
SELECT doc_find_and_modify('v', '{query: {$expr: {$lt: ["$n", "$$x"]}}, update: {$set: {m: 1}}, new: true, let: {x: 7}}');
SELECT doc_distinct('v', 'name', '{$expr: {$gte: ["$n", "$$min"]}}', '{let: {min: 8}}');
SELECT json_extract(doc_explain('v', '{$expr: {$eq: ["$_id", "$$id"]}}', NULL, NULL, '{let: {id: 1}}'), '$.n');
SELECT doc_delete_one('v', '{$expr: {$eq: ["$_id", "$$id"]}}', '{let: {id: 3}, hint: {_id: 1}}');
SELECT group_concat(_id) FROM v;
-- $let: its variables are seen in "in" only; an inner one hides an outer
SELECT doc_match('{a: 5}', '{$expr: {$let: {vars: {x: 2, y: {$add: ["$a", 1]}}, in: {$eq: [{$multiply: ["$$x", 3]}, "$$y"]}}}}');
SELECT doc_match('{a: 5}', '{$expr: {$let: {vars: {x: 2}, in: {$let: {vars: {x: 3}, in: {$eq: ["$$x", 3]}}}}}}');
SELECT doc_match('{a: {b: [{c: 3}, {c: 4}]}}', '{$expr: {$let: {vars: {d: "$a"}, in: {$eq: ["$$d.b.c", [3, 4]]}}}}');
SELECT doc FROM v('{$expr: {$eq: ["$_id", "$$id"]}}');
SELECT doc FROM v('{$expr: {$eq: ["$_id", "$$id"]}}', NULL, NULL, '{let: 5}');
SELECT doc FROM v('{$expr: {$eq: ["$_id", "$$Id"]}}', NULL, NULL, '{let: {Id: 5}}');
SELECT doc_match('{a: 5}', '{$expr: {$let: {vars: {x: 2}, in: "$$x", z: 1}}}');
SELECT doc_match('{a: 5}', '{$expr: {$let: {vars: {x: 2, y: "$$x"}, in: "$$y"}}}');
SELECT doc_match('{a: 5}', '{$expr: {$let: {vars: 1, in: 1}}}');
SELECT doc_delete_one('v', '{}', '{let: {a: 1}, foo: 1}');
SELECT doc_distinct('v', 'name', '{}', '{let: {a: 1}, foo: 1}');

-- 13. Arrays, accumulators and strings: $map, $filter, $reduce ($$this,
-- $$value, "as"), $concatArrays, $reverseArray, $first, $last, $slice,
-- $sum, $avg, $min, $max, $stdDevPop, $stdDevSamp, $toLower, $toUpper, $substrCP
CREATE VIRTUAL TABLE carts USING docext;
INSERT INTO carts(doc) VALUES
  ('{_id: 1, owner: "Ann", items: [{sku: "a", qty: 2, price: 3.5}, {sku: "b", qty: 1, price: 10}]}'),
  ('{_id: 2, owner: "bob", items: [{sku: "c", qty: 5, price: 1}]}'),
  ('{_id: 3, owner: "Cy", items: []}');
-- carts worth more than 10
SELECT _id FROM carts('{$expr: {$gt: [{$sum: {$map: {input: "$items", as: "i",
  in: {$multiply: ["$$i.qty", "$$i.price"]}}}}, 10]}}');
-- the same with $reduce
SELECT _id FROM carts('{$expr: {$gt: [{$reduce: {input: "$items", initialValue: 0,
  in: {$add: ["$$value", {$multiply: ["$$this.qty", "$$this.price"]}]}}}, 10]}}');
-- carts with an item bought more than once, and the first such item
SELECT _id FROM carts('{$expr: {$gt: [{$size: {$filter: {input: "$items", cond: {$gt: ["$$this.qty", 1]}}}}, 0]}}');
SELECT _id FROM carts('{$expr: {$eq: [{$first: {$filter: {input: "$items", cond: {$gt: ["$$this.qty", 1]}, limit: 1}}}, {sku: "c", qty: 5, price: 1}]}}');
SELECT doc_update('{a: [1, 2, 3, 4]}', '[{$set: {r: {$reverseArray: "$a"}, f: {$first: "$a"}, l: {$last: "$a"},
  s: {$slice: ["$a", -2]}, t: {$slice: ["$a", 1, 2]}, c: {$concatArrays: ["$a", [5]]},
  sum: {$sum: "$a"}, avg: {$avg: "$a"}, min: {$min: "$a"}, max: {$max: [1, "z", null]},
  none: {$avg: ["x"]}, e: {$first: [[]]}}}]');
-- standard deviations of the numbers (the rest ignored), in doubles; the
-- sample's needs two
SELECT doc_update('{a: [1, 2, 3, 4, "x", null], one: 5}', '[{$set: {pop: {$stdDevPop: "$a"}, samp: {$stdDevSamp: "$a"},
  args: {$stdDevPop: ["$one", 7]}, single: {$stdDevPop: "$one"}, sampOfOne: {$stdDevSamp: "$one"},
  none: {$stdDevPop: [[]]}, kinds: {$stdDevSamp: [NumberDecimal("1.5"), NumberLong(3), 4.5]}}}]');
-- $median and $percentile (MongoDB 7.0's example: scores 62 81 80 75 68 give
-- 68, 75 and 80): exact in an expression, "approximate" and "discrete" take
-- the value of rank ceil(n*p), "continuous" interpolates; NaN is left out,
-- a number alone is every percentile, no numbers give null
SELECT doc_update('{s: [62, 81, 80, 75, 68]}', '[{$set: {
  p: {$percentile: {input: "$s", p: [0.25, 0.5, 0.75], method: "approximate"}},
  m: {$median: {input: "$s", method: "discrete"}}, even: {$median: {input: [1, 2, 3, 4], method: "continuous"}},
  c: {$percentile: {input: "$s", p: [0, 0.9, 1], method: "continuous"}},
  inf: {$percentile: {input: [1, Infinity, -Infinity, NaN, 3], p: [0, 0.5, 1], method: "continuous"}},
  one: {$median: {input: 5, method: "approximate"}}, none: {$percentile: {input: ["a"], p: [0.5, 0.1], method: "discrete"}},
  missing: {$median: {input: "$nope", method: "approximate"}}}}]');
SELECT doc_update('{n: "Ann Bell"}', '[{$set: {lo: {$toLower: "$n"}, up: {$toUpper: "$n"},
  first: {$substrCP: ["$n", 0, 3]}, missing: {$toUpper: "$nope"}, accents: {$toUpper: "é"}}}]');
SELECT _id FROM carts('{$expr: {$eq: [{$toLower: "$owner"}, "bob"]}}');
-- errors
SELECT doc_match('{a: 1}', '{$expr: {$map: {input: "$a", in: 1}}}');
SELECT doc_match('{a: 1}', '{$expr: {$map: {input: [1], as: "X", in: 1}}}');
SELECT doc_match('{a: 1}', '{$expr: {$map: {input: [1], in: 1, foo: 2}}}');
SELECT doc_match('{a: 1}', '{$expr: {$reduce: {input: [1], in: 1}}}');
SELECT doc_match('{a: 1}', '{$expr: {$filter: {input: [1], cond: true, limit: 0}}}');
SELECT doc_match('{a: 1}', '{$expr: {$slice: [[1, 2], 1, 0]}}');
SELECT doc_match('{a: 1}', '{$expr: {$slice: [[1, 2], 1.5]}}');
SELECT doc_match('{a: 1}', '{$expr: {$toLower: 5}}');
SELECT doc_match('{a: 1}', '{$expr: {$substrCP: ["abc", -1, 2]}}');
SELECT doc_match('{a: 1}', '{$expr: {$concatArrays: [[1], "$a"]}}');
SELECT doc_match('{a: 1}', '{$expr: {$first: "$a"}}');
SELECT doc_match('{a: 1}', '{$expr: "$$this"}');
SELECT doc_match('{a: 1}', '{$expr: {$eq: [{a: 1, b: 3, a: 2}, {a: 2}]}}');

-- 14. Math, sets, dates, conversions, more strings and arrays (MongoDB's
-- documentation examples where it has them)
SELECT doc_update('{}', '[{$set: {p: {$pow: [5, 0]}, p2: {$pow: [2, -1]}, p3: {$pow: [-5, 0.5]},
  p4: {$pow: [NumberLong(3), 40]}, p5: {$pow: [2, 31]}, p6: {$pow: [-1, -3]}, p7: {$pow: [NumberDecimal("2"), 3]},
  sq: {$sqrt: 25}, sq2: {$sqrt: NumberDecimal("2.25")}, e: {$exp: 0}, ln: {$ln: 1}, lg: {$log: [100, 10]},
  l10: {$log10: 1000}, n: {$sqrt: null}, nan: {$sqrt: NaN}}}]');
SELECT doc_update('{}', '[{$set: {a: {$round: [1234.5678, 2]}, b: {$round: [1234.5678, -2]}, c: {$round: [19.25, 1]},
  d: {$round: [28.73, -1]}, e: {$round: [NumberDecimal("34.3271"), 2]}, f: {$round: [NumberDecimal("-45.39"), -1]},
  g: {$round: [NumberLong(1250), -2]}, h: {$round: [1350, -2]}, i: {$round: 10.5}, j: {$round: 11.5},
  k: {$round: [Infinity, 1]}, l: {$round: [NumberDecimal("0.5"), 0]}, m: {$round: [null, 1]},
  t: {$trunc: [1234.5678, 2]}, u: {$trunc: [-1234.5678, -2]}, v: {$trunc: [NumberDecimal("9.99"), 1]},
  w: {$trunc: [NumberLong("9223372036854775807"), -18]}}}]');
SELECT doc_update('{}', '[{$set: {u: {$setUnion: [["a", "b", "a"], ["c", 1, 1.0]]}, u2: {$setUnion: [["a"], null]},
  i: {$setIntersection: [["a", "b", "c"], ["b", "c", "d"], ["c", "b"]]}, d: {$setDifference: [["a", "b", "c"], ["b"]]},
  e: {$setEquals: [["a", "b", "a"], ["b", "a"]]}, e2: {$setEquals: [[1], [1.0], [NumberLong(1)]]}, e3: {$setEquals: [[1], [1, 2]]},
  s: {$setIsSubset: [["a", "b"], [["a", "b"]]]}, s2: {$setIsSubset: [[], [1]]},
  any: {$anyElementTrue: [[0, null, false]]}, any2: {$anyElementTrue: [[[false]]]}, all: {$allElementsTrue: [[]]},
  all2: {$allElementsTrue: [[1, "", false]]}}}]');
SELECT doc_update('{d: ISODate("2014-01-01T08:15:39.736Z")}', '[{$set: {y: {$year: "$d"}, mo: {$month: "$d"},
  dm: {$dayOfMonth: "$d"}, h: {$hour: "$d"}, mi: {$minute: "$d"}, s: {$second: "$d"}, ms: {$millisecond: "$d"},
  dy: {$dayOfYear: "$d"}, dw: {$dayOfWeek: "$d"}, w: {$week: "$d"}, iw: {$isoWeek: "$d"}, iy: {$isoWeekYear: "$d"},
  id: {$isoDayOfWeek: "$d"}, hz: {$hour: {date: "$d", timezone: "+05:30"}}, mz: {$minute: {date: "$d", timezone: "+0530"}},
  yz: {$year: {date: "$d", timezone: "-09"}}, null: {$year: "$nope"}}}]');
-- ISO weeks at the turn of years (2008-12-29 is in week 1 of 2009; 2010-01-03 in week 53 of 2009)
SELECT doc_update('{}', '[{$set: {a: [{$isoWeek: ISODate("2008-12-29")}, {$isoWeekYear: ISODate("2008-12-29")}],
  b: [{$isoWeek: ISODate("2010-01-03")}, {$isoWeekYear: ISODate("2010-01-03")}, {$isoDayOfWeek: ISODate("2010-01-03")}],
  c: [{$week: ISODate("2016-01-03")}, {$dayOfWeek: ISODate("2016-01-03")}, {$dayOfYear: ISODate("2016-12-31")}],
  o: {$year: ObjectId("5ab9cbfa31c2ab715d42129e")}, t: {$second: Timestamp(1412180887, 1)}}}]');
SELECT doc_update('{d: ISODate("2014-01-01T08:15:39.736Z")}', '[{$set: {a: {$dateToString: {date: "$d"}},
  b: {$dateToString: {format: "%Y-%m-%d", date: "$d"}},
  c: {$dateToString: {format: "%H:%M:%S:%L%z", date: "$d", timezone: "-05:00"}},
  d: {$dateToString: {format: "%Z minutes, day %j, week %U (ISO %V of %G), weekday %w (ISO %u), 100%%", date: "$d", timezone: "+04:30"}},
  e: {$dateToString: {date: "$d", timezone: "+01"}}, f: {$dateToString: {date: "$nope", onNull: "no date"}},
  g: {$dateToString: {date: "$nope"}}}}]');
SELECT doc_update('{}', '[{$set: {i: {$toInt: "42"}, i2: {$toInt: -3.9}, i3: {$toInt: true},
  l: {$toLong: ISODate("1970-01-01T00:00:01Z")}, l2: {$toLong: NumberDecimal("9223372036854775807")},
  d: {$toDouble: "1.5e3"}, d2: {$toDouble: "-Infinity"}, d3: {$toDouble: ISODate("2018-03-26T04:38:28.044Z")},
  m: {$toDecimal: 2.5}, m2: {$toDecimal: "2.50"}, m3: {$toDecimal: true},
  s: {$toString: 2.5}, s2: {$toString: 1.0}, s3: {$toString: NumberDecimal("1.50")}, s4: {$toString: ISODate("2018-03-27T16:58:51.538Z")},
  s5: {$toString: ObjectId("5ab9cbfa31c2ab715d42129e")}, s6: {$toString: false}, s7: {$toString: NumberLong(-7)},
  b: {$toBool: 0}, b2: {$toBool: ""}, b3: {$toBool: NaN}, b4: {$toBool: ISODate("2018-03-26")},
  o: {$toObjectId: "5ab9cbfa31c2ab715d42129e"}, t: {$toDate: "2018-03-03T12:00:00+01:00"},
  t2: {$toDate: NumberLong(1000)}, t3: {$toDate: ObjectId("5ab9cbfa31c2ab715d42129e")}, t4: {$toDate: 1.5e12},
  c: {$convert: {input: "abc", to: "int", onError: "not a number"}}, c2: {$convert: {input: null, to: "int", onNull: 0}},
  c3: {$convert: {input: 5, to: 2}}, c4: {$convert: {input: "5", to: {$concat: ["lo", "ng"]}}},
  c5: {$convert: {input: "$nope", to: "bool"}}, c6: {$convert: {input: 1, to: null}},
  n: [{$isNumber: "5"}, {$isNumber: NumberDecimal("5")}, {$isNumber: "$nope"}]}}]');
SELECT doc_update('{s: "  hello world  "}', '[{$set: {t: {$trim: {input: "$s"}}, l: {$ltrim: {input: "$s"}},
  r: {$rtrim: {input: "$s"}}, c: {$trim: {input: "xxaxyx", chars: "xy"}}, u: {$trim: {input: "\u00a0 é\u3000\u0000"}},
  u2: {$trim: {input: "ééaé", chars: "é"}}, n: {$trim: {input: null}},
  sp: {$split: ["a,b,,c,", ","]}, sp2: {$split: ["June-15-2013", "-"]}, sp3: {$split: ["abc", "abcd"]},
  ib: {$indexOfBytes: ["cafeteria", "e"]}, ib2: {$indexOfBytes: ["cafétéria", "t"]}, icp: {$indexOfCP: ["cafétéria", "t"]},
  ib3: {$indexOfBytes: ["cafeteria", "e", 4]}, ib4: {$indexOfBytes: ["cafeteria", "e", 4, 5]},
  ib5: {$indexOfBytes: ["abc", "", 5]}, ib6: {$indexOfCP: ["abc", ""]}, ib7: {$indexOfCP: ["héllo", "l", 3]},
  cmp: [{$strcasecmp: ["Hello", "hello"]}, {$strcasecmp: ["a", "B"]}, {$strcasecmp: ["b", "A"]}, {$strcasecmp: [null, ""]}],
  r1: {$replaceOne: {input: "blue paint blue", find: "blue", replacement: "red"}},
  r2: {$replaceAll: {input: "blue paint blue", find: "blue", replacement: "red"}},
  r3: {$replaceAll: {input: "abc", find: "", replacement: "-"}}, r4: {$replaceOne: {input: "abc", find: "", replacement: "-"}},
  r5: {$replaceAll: {input: "aaa", find: "aa", replacement: "b"}}, r6: {$replaceOne: {input: null, find: "a", replacement: "b"}},
  sb: {$substrBytes: ["abcde", 1, 2]}, sb2: {$substr: ["abcde", 2, -1]}, sb3: {$substrBytes: ["éa", 0, 2]}}}]');
SELECT doc_update('{}', '[{$set: {ia: {$indexOfArray: [["a", "abc", 1, 1.0], 1]}, ia2: {$indexOfArray: [[1, 2, 1], 1, 1]},
  ia3: {$indexOfArray: [null, 1]}, ia4: {$indexOfArray: [[1, 2], 3]}, ia5: {$indexOfArray: [[1, 2, 1], 1, 1, 2]},
  rg: {$range: [0, 10, 3]}, rg2: {$range: [10, 0, -4]}, rg3: {$range: [0, 0]}, rg4: {$range: [5, 0]},
  oa: {$objectToArray: {a: 1, b: {c: 2}}}, oa2: {$objectToArray: "$nope"},
  ao: {$arrayToObject: [[["x", 1], ["y", 2], ["x", 3]]]}, ao2: {$arrayToObject: [[{k: "p", v: true}]]},
  ao3: {$arrayToObject: {$objectToArray: {z: 1}}}}}]');
-- the new operators in filters: orders of this year, by week day, with a total
CREATE VIRTUAL TABLE orders USING docext;
INSERT INTO orders(doc) VALUES ('{_id: 1, at: ISODate("2024-03-04T10:00:00Z"), items: ["a", "b"], total: "12.50"}'),
  ('{_id: 2, at: ISODate("2023-12-31T23:30:00Z"), items: ["b"], total: "3"}'),
  ('{_id: 3, at: ISODate("2024-03-09T09:00:00Z"), items: ["a", "a", "c"], total: "40.25"}');
SELECT _id FROM orders('{$expr: {$eq: [{$year: "$at"}, 2024]}}');
SELECT _id FROM orders('{$expr: {$eq: [{$year: {date: "$at", timezone: "+01:00"}}, 2024]}}');
SELECT _id FROM orders('{$expr: {$in: [{$dayOfWeek: "$at"}, [1, 7]]}}');
SELECT _id FROM orders('{$expr: {$gt: [{$toDecimal: "$total"}, 10]}}');
SELECT _id FROM orders('{$expr: {$setIsSubset: [["a"], "$items"]}}');
SELECT _id FROM orders('{$expr: {$lt: [{$size: {$setUnion: ["$items"]}}, {$size: "$items"}]}}');
SELECT doc_update_many('orders', '{}', '[{$set: {day: {$dateToString: {date: "$at", format: "%Y-%m-%d"}},
  total: {$round: [{$toDouble: "$total"}, 0]}}}]');
SELECT doc FROM orders;
-- errors
SELECT doc_match('{}', '{$expr: {$sqrt: -1}}');
SELECT doc_match('{}', '{$expr: {$ln: 0}}');
SELECT doc_match('{}', '{$expr: {$log: [10, 1]}}');
SELECT doc_match('{}', '{$expr: {$pow: [0, -1]}}');
SELECT doc_match('{}', '{$expr: {$pow: ["2", 1]}}');
SELECT doc_match('{}', '{$expr: {$round: [1, 101]}}');
SELECT doc_match('{}', '{$expr: {$round: [1, 1.5]}}');
SELECT doc_match('{}', '{$expr: {$round: [NumberLong("9223372036854775807"), -1]}}');
SELECT doc_match('{}', '{$expr: {$setUnion: [[1], 2]}}');
SELECT doc_match('{}', '{$expr: {$setEquals: [[1], null]}}');
SELECT doc_match('{}', '{$expr: {$anyElementTrue: 1}}');
SELECT doc_match('{}', '{$expr: {$year: "2020"}}');
SELECT doc_match('{}', '{$expr: {$year: {date: ISODate("2020-01-01"), timezone: "Europe/Atlantis"}}}');
SELECT doc_match('{}', '{$expr: {$year: {date: ISODate("2020-01-01"), timezone: "../../etc/passwd"}}}');
SELECT doc_match('{}', '{$expr: {$year: {date: ISODate("2020-01-01"), timezone: "zone.tab"}}}');
SELECT doc_match('{}', '{$expr: {$year: {date: ISODate("2020-01-01"), timezone: "+24:00"}}}');
SELECT doc_match('{}', '{$expr: {$hour: {date: {$toDate: NumberLong("9223372036854775807")}, timezone: "+05:00"}}}');
SELECT doc_match('{}', '{$expr: {$year: {date: ISODate("2020-01-01"), tz: "UTC"}}}');
SELECT doc_match('{}', '{$expr: {$year: {timezone: "UTC"}}}');
SELECT doc_match('{}', '{$expr: {$dateToString: {date: ISODate("2020-01-01"), format: "%Q"}}}');
SELECT doc_match('{}', '{$expr: {$dateToString: {date: ISODate("2020-01-01"), format: "100%"}}}');
SELECT doc_match('{}', '{$expr: {$dateToString: {date: {$toDate: NumberLong("400000000000000")}}}}');
SELECT doc_match('{}', '{$expr: {$toInt: "2147483648"}}');
SELECT doc_match('{}', '{$expr: {$toInt: " 5"}}');
SELECT doc_match('{}', '{$expr: {$toInt: NaN}}');
SELECT doc_match('{}', '{$expr: {$toLong: 1e19}}');
SELECT doc_match('{}', '{$expr: {$toObjectId: "xyz"}}');
SELECT doc_match('{}', '{$expr: {$toDate: 5}}');
SELECT doc_match('{}', '{$expr: {$toDate: "March 3rd"}}');
SELECT doc_match('{}', '{$expr: {$toBool: [[1]]}}');
SELECT doc_match('{}', '{$expr: {$toString: [[1]]}}');
SELECT doc_match('{}', '{$expr: {$convert: {input: 1, to: "nope"}}}');
SELECT doc_match('{}', '{$expr: {$convert: {input: 1, to: 3}}}');
SELECT doc_match('{}', '{$expr: {$convert: {input: 1}}}');
SELECT doc_match('{}', '{$expr: {$toInt: [1, 2]}}');
SELECT doc_match('{}', '{$expr: {$split: ["a", ""]}}');
SELECT doc_match('{}', '{$expr: {$split: [1, ","]}}');
SELECT doc_match('{}', '{$expr: {$trim: {chars: "x"}}}');
SELECT doc_match('{}', '{$expr: {$trim: {input: 1}}}');
SELECT doc_match('{}', '{$expr: {$indexOfBytes: ["a", null]}}');
SELECT doc_match('{}', '{$expr: {$indexOfCP: ["a", "a", -1]}}');
SELECT doc_match('{}', '{$expr: {$strcasecmp: ["a", 1]}}');
SELECT doc_match('{}', '{$expr: {$replaceAll: {input: "a", find: 1, replacement: "b"}}}');
SELECT doc_match('{}', '{$expr: {$substrBytes: ["é", 1, 1]}}');
SELECT doc_match('{}', '{$expr: {$indexOfArray: ["a", 1]}}');
SELECT doc_match('{}', '{$expr: {$range: [0, 1, 0]}}');
SELECT doc_match('{}', '{$expr: {$range: [0, 1.5]}}');
SELECT doc_match('{}', '{$expr: {$range: [0, 100000000]}}');
SELECT doc_match('{}', '{$expr: {$objectToArray: [1]}}');
SELECT doc_match('{}', '{$expr: {$arrayToObject: [[1]]}}');
SELECT doc_match('{}', '{$expr: {$arrayToObject: [[[1, 2]]]}}');

-- 15. Date arithmetic: $dateAdd, $dateSubtract, $dateDiff, $dateTrunc,
-- $dateFromParts, $dateToParts, $dateFromString
SELECT doc_update('{d: ISODate("2020-01-31T10:30:00Z"), e: ISODate("2021-03-01T00:00:00Z")}', '[{$set: {
  a1: {$dateAdd: {startDate: "$d", unit: "month", amount: 1}}, a2: {$dateAdd: {startDate: "$d", unit: "day", amount: 3}},
  a3: {$dateSubtract: {startDate: "$d", unit: "hour", amount: 12}}, a4: {$dateAdd: {startDate: "$d", unit: "year", amount: 1, timezone: "+14:00"}},
  a5: {$dateAdd: {startDate: ISODate("2020-02-29"), unit: "year", amount: 1}}, a6: {$dateAdd: {startDate: "$d", unit: "quarter", amount: -1}},
  a7: {$dateAdd: {startDate: "$d", unit: "week", amount: NumberLong(2)}}, a8: {$dateAdd: {startDate: "$nope", unit: "day", amount: 1}},
  d1: {$dateDiff: {startDate: "$d", endDate: "$e", unit: "month"}}, d2: {$dateDiff: {startDate: "$d", endDate: "$e", unit: "day"}},
  d3: {$dateDiff: {startDate: "$d", endDate: "$e", unit: "year"}}, d4: {$dateDiff: {startDate: "$d", endDate: "$e", unit: "week", startOfWeek: "MON"}},
  d5: {$dateDiff: {startDate: "$e", endDate: "$d", unit: "quarter"}},
  d6: {$dateDiff: {startDate: ISODate("2020-01-01T23:59:59Z"), endDate: ISODate("2020-01-02T00:00:00Z"), unit: "day"}},
  t1: {$dateTrunc: {date: "$d", unit: "month"}}, t2: {$dateTrunc: {date: "$d", unit: "week"}},
  t3: {$dateTrunc: {date: "$d", unit: "hour", binSize: 4}}, t4: {$dateTrunc: {date: ISODate("2020-05-18T14:10:30Z"), unit: "week", binSize: 2}},
  t5: {$dateTrunc: {date: "$d", unit: "year", binSize: 3}}, t6: {$dateTrunc: {date: "$d", unit: "day", timezone: "-05:00"}},
  t7: {$dateTrunc: {date: "$d", unit: "week", startOfWeek: "monday"}}}}]');
SELECT doc_update('{}', '[{$set: {f1: {$dateFromParts: {year: 2017, month: 2, day: 8, hour: 12}},
  f2: {$dateFromParts: {year: 2017, month: 14, day: 1}}, f3: {$dateFromParts: {isoWeekYear: 2017, isoWeek: 6, isoDayOfWeek: 3, hour: 12}},
  f4: {$dateFromParts: {year: 2016, month: 12, day: 31, hour: 23, minute: 46, second: 12, timezone: "+0500"}},
  f5: {$dateFromParts: {year: 2017, day: 0}}, f6: {$dateFromParts: {year: 2017, month: null}},
  p1: {$dateToParts: {date: ISODate("2017-01-01T01:29:09.123Z")}}, p2: {$dateToParts: {date: ISODate("2017-01-01T01:29:09.123Z"), iso8601: true}},
  p3: {$dateToParts: {date: ISODate("2017-01-01T01:29:09.123Z"), timezone: "-05:00"}},
  s1: {$dateFromString: {dateString: "2017-02-08T12:10:40.787"}}, s2: {$dateFromString: {dateString: "2017-02-08T12:10:40.787", timezone: "+05:00"}},
  s3: {$dateFromString: {dateString: "15-06-2018", format: "%d-%m-%Y"}}, s4: {$dateFromString: {dateString: "oops", onError: "bad"}},
  s5: {$dateFromString: {dateString: null, onNull: "none"}}, s6: {$dateFromString: {dateString: "2018-06-15 10:00 +0200", format: "%Y-%m-%d %H:%M %z"}},
  s7: {$dateFromString: {dateString: "2017-02-08"}}}}]');
-- monthly buckets of the orders, and each order's age in days at a fixed date
SELECT json_extract(doc, '$._id'), doc_update(doc, '[{$project: {_id: 0, month: {$dateTrunc: {date: "$at", unit: "month"}},
  age: {$dateDiff: {startDate: "$at", endDate: ISODate("2024-04-01"), unit: "day"}}}}]') FROM orders;
-- Zones of the time zone database (read from /usr/share/zoneinfo). MongoDB's
-- jstests/aggregation/expressions/date_expressions_monotonic.js: New York's
-- autumn change repeats 01:00-02:00; minutes count elapsed time, days local ones
SELECT doc_update(doc, '[{$project: {_id: 0, s: {$dateToString: {date: "$d", format: "%Y-%m-%dT%H:%M:%S.%L%z", timezone: "America/New_York"}},
  m: {$dateDiff: {startDate: ISODate("2022-11-06T04:00:00Z"), endDate: "$d", unit: "minute", timezone: "America/New_York"}},
  h: {$dateTrunc: {date: "$d", unit: "hour", timezone: "America/New_York"}},
  dd: {$dateDiff: {startDate: ISODate("2022-11-06T04:00:00Z"), endDate: "$d", unit: "day", timezone: "America/New_York"}}}}]')
FROM (SELECT '{d: ISODate("' || value || '")}' AS doc FROM json_each('["2022-11-06T03:00:00Z",
  "2022-11-06T05:00:00Z", "2022-11-06T05:30:00Z", "2022-11-06T06:00:00Z", "2022-11-06T06:30:00Z", "2022-11-06T07:00:00Z"]'));
-- Samoa skipped 2011-12-30; Dublin's winter is its daylight saving time
-- (negative); Lord Howe moves by 30 minutes; Kathmandu is +05:45
SELECT doc_update('{}', '[{$set: {
  apia: {$dateToString: {date: ISODate("2011-12-30T10:00:00Z"), timezone: "Pacific/Apia", format: "%Y-%m-%d %H:%M %z"}},
  apiaDays: {$dateDiff: {startDate: ISODate("2011-12-28T10:00:00Z"), endDate: ISODate("2011-12-30T10:00:00Z"), unit: "day", timezone: "Pacific/Apia"}},
  dublinJan: {$dateToString: {date: ISODate("2024-01-15T12:00:00Z"), timezone: "Europe/Dublin", format: "%H:%M %z"}},
  dublinJul: {$dateToString: {date: ISODate("2024-07-15T12:00:00Z"), timezone: "Europe/Dublin", format: "%H:%M %z"}},
  lordHowe: {$dateToString: {date: ISODate("2024-01-15T12:00:00Z"), timezone: "Australia/Lord_Howe", format: "%H:%M %z"}},
  kathmandu: {$hour: {date: ISODate("2024-01-15T12:00:00Z"), timezone: "Asia/Kathmandu"}},
  lmt: {$dateToString: {date: ISODate("1850-01-01T00:00:00Z"), timezone: "America/New_York", format: "%Y-%m-%d %H:%M:%S %z"}},
  far: {$dateToParts: {date: ISODate("2300-07-04T12:00:00Z"), timezone: "America/New_York"}}}}]');
-- a day across a change is 23 or 25 hours of a zone, 24 of an offset; a
-- month keeps the wall clock; truncating to a day finds local midnight
SELECT doc_update('{d: ISODate("2024-03-09T17:00:00Z")}', '[{$set: {
  day: {$dateAdd: {startDate: "$d", unit: "day", amount: 1, timezone: "America/New_York"}},
  hours24: {$dateAdd: {startDate: "$d", unit: "hour", amount: 24, timezone: "America/New_York"}},
  dayFixed: {$dateAdd: {startDate: "$d", unit: "day", amount: 1, timezone: "-05:00"}},
  week: {$dateSubtract: {startDate: ISODate("2024-10-30T17:00:00Z"), unit: "week", amount: 1, timezone: "Europe/Paris"}},
  month: {$dateAdd: {startDate: "$d", unit: "month", amount: 4, timezone: "America/New_York"}},
  midnight: {$dateTrunc: {date: ISODate("2024-03-10T12:00:00Z"), unit: "day", timezone: "America/New_York"}},
  month1: {$dateTrunc: {date: ISODate("2024-04-01T02:00:00Z"), unit: "month", timezone: "America/New_York"}}}}]');
-- $dateToString's default format ends in Z for UTC itself only (none,
-- "UTC", "Z" or an offset of zero; "GMT" and "Etc/UTC" are zones)
SELECT doc_update('{d: ISODate("2024-01-15T12:00:00Z")}', '[{$set: {none: {$dateToString: {date: "$d"}},
  utc: {$dateToString: {date: "$d", timezone: "UTC"}}, z: {$dateToString: {date: "$d", timezone: "Z"}},
  zero: {$dateToString: {date: "$d", timezone: "-00:00"}}, gmt: {$dateToString: {date: "$d", timezone: "GMT"}},
  london: {$dateToString: {date: "$d", timezone: "Europe/London"}}, plus1: {$dateToString: {date: "$d", timezone: "+01"}}}}]');
-- month names (%b, %B: MongoDB 7.0), written and read in any case
SELECT doc_update('{d: ISODate("2024-09-05T10:00:00Z")}', '[{$set: {s: {$dateToString: {date: "$d", format: "%b %B %d"}},
  f1: {$dateFromString: {dateString: "05 Sep 2024", format: "%d %b %Y"}}, f2: {$dateFromString: {dateString: "5 SEPTEMBER 2024", format: "%d %B %Y"}},
  f3: {$dateFromString: {dateString: "5 may 2024", format: "%d %b %Y"}}, f4: {$dateFromString: {dateString: "5 Sept 2024", format: "%d %b %Y", onError: "bad"}}}}]');
-- an ISO week date (%G %V %u, Monday when %u is absent) and a day of the
-- year (%j); a date given two ways is refused
SELECT doc_update('{}', '[{$set: {
  iso: {$dateFromString: {dateString: "2020-W53-5", format: "%G-W%V-%u"}}, isoMon: {$dateFromString: {dateString: "2025-W01", format: "%G-W%V"}},
  yday: {$dateFromString: {dateString: "2024-366", format: "%Y-%j"}}, yday1: {$dateFromString: {dateString: "2023 060 10:30", format: "%Y %j %H:%M"}},
  bad1: {$dateFromString: {dateString: "2023-366", format: "%Y-%j", onError: "no day 366"}}, bad2: {$dateFromString: {dateString: "2021-W53-1", format: "%G-W%V-%u", onError: "no week 53"}},
  bad3: {$dateFromString: {dateString: "2021-03 060", format: "%Y-%m %j", onError: "two dates"}}}}]');
-- a wall clock time the spring change skips reads with the offset before
-- it (02:30 EST is 03:30 EDT); one the autumn change repeats is its first
SELECT doc_update('{}', '[{$set: {
  gap: {$dateFromParts: {year: 2024, month: 3, day: 10, hour: 2, minute: 30, timezone: "America/New_York"}},
  overlap: {$dateFromParts: {year: 2024, month: 11, day: 3, hour: 1, minute: 30, timezone: "America/New_York"}},
  afterOverlap: {$dateFromParts: {year: 2024, month: 11, day: 3, hour: 2, timezone: "America/New_York"}},
  iso: {$dateFromParts: {isoWeekYear: 2024, isoWeek: 27, timezone: "Asia/Tokyo"}},
  str: {$dateFromString: {dateString: "2024-07-04T09:00:00", timezone: "Europe/London"}},
  fmt: {$dateFromString: {dateString: "04/07/2024", format: "%d/%m/%Y", timezone: "Australia/Sydney"}},
  null: {$year: {date: ISODate("2024-07-04"), timezone: null}}}}]');
-- errors
SELECT doc_match('{}', '{$expr: {$dateAdd: {startDate: ISODate("2020-01-01"), unit: "lightyear", amount: 1}}}');
SELECT doc_match('{}', '{$expr: {$dateAdd: {startDate: ISODate("2020-01-01"), unit: 5, amount: 1}}}');
SELECT doc_match('{}', '{$expr: {$dateAdd: {startDate: ISODate("2020-01-01"), unit: "day", amount: 1.5}}}');
SELECT doc_match('{}', '{$expr: {$dateAdd: {startDate: ISODate("2020-01-01"), unit: "day"}}}');
SELECT doc_match('{}', '{$expr: {$dateAdd: {startDate: {$toDate: NumberLong("9000000000000000000")}, unit: "day", amount: 1}}}');
SELECT doc_match('{}', '{$expr: {$dateAdd: {startDate: ISODate("2020-01-01"), unit: "month", amount: 100000000}}}');
SELECT doc_match('{}', '{$expr: {$dateTrunc: {date: ISODate("2020-01-01"), unit: "day", binSize: 0}}}');
SELECT doc_match('{}', '{$expr: {$dateTrunc: {date: ISODate("2020-01-01"), unit: "week", startOfWeek: "someday"}}}');
SELECT doc_match('{}', '{$expr: {$dateDiff: {startDate: ISODate("2020-01-01"), endDate: 5, unit: "day"}}}');
SELECT doc_match('{}', '{$expr: {$dateFromParts: {year: 10000}}}');
SELECT doc_match('{}', '{$expr: {$dateFromParts: {month: 1}}}');
SELECT doc_match('{}', '{$expr: {$dateFromParts: {year: 2000, hour: 40000}}}');
SELECT doc_match('{}', '{$expr: {$dateFromParts: {year: 2000, isoWeek: 1}}}');
SELECT doc_match('{}', '{$expr: {$dateToParts: {date: ISODate("2020-01-01"), iso8601: 1}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: "2017-02-08T12:10:40Z", timezone: "+01:00"}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: "x"}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: "2020", format: "%Q"}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: 5}}}');

-- 16. Regular expressions, trigonometry, bits, and $zip, $sortArray,
-- $firstN/$lastN/$maxN/$minN, $getField, $bsonSize, $binarySize, $tsSecond,
-- $tsIncrement
SELECT doc_update('{s: "Is this the real life? Is this just fantasy? é1 é22"}', '[{$set: {
  m1: {$regexMatch: {input: "$s", regex: "fantasy"}}, m2: {$regexMatch: {input: "$s", regex: /FANTASY/i}},
  m3: {$regexMatch: {input: null, regex: "x"}}, m4: {$regexMatch: {input: "$s", regex: {$concat: ["fan", "t"]}}},
  f1: {$regexFind: {input: "$s", regex: "(th)(is)"}}, f2: {$regexFind: {input: "$s", regex: "é(\\d+)"}},
  f3: {$regexFind: {input: "$s", regex: "nomatch"}}, f4: {$regexFind: {input: "$s", regex: null}},
  a1: {$regexFindAll: {input: "$s", regex: "is", options: "i"}}, a2: {$regexFindAll: {input: "abc", regex: ""}},
  a3: {$regexFindAll: {input: "aXbX", regex: "(X)|(Y)"}}, a4: {$regexFindAll: {input: "$nope", regex: "x"}}}}]');
SELECT _id FROM orders('{$expr: {$regexMatch: {input: "$day", regex: "^2024-03-0[1-5]$"}}}');
SELECT doc_update('{}', '[{$set: {t1: {$sin: 0}, t2: {$cos: 0}, t3: {$atan2: [1, 1]}, t4: {$degreesToRadians: 180},
  t5: {$radiansToDegrees: 3.141592653589793}, t6: {$acosh: 1}, t7: {$sin: NumberDecimal("0")}, t8: {$tan: null},
  b1: {$bitAnd: [12, 10]}, b2: {$bitOr: [12, NumberLong(3)]}, b3: {$bitXor: [5, 1]}, b4: {$bitNot: 0}, b5: {$bitAnd: []},
  z1: {$zip: {inputs: [[1, 2, 3], ["a", "b"]]}}, z2: {$zip: {inputs: [[1, 2, 3], ["a", "b"]], useLongestLength: true, defaults: [0, "z"]}},
  s1: {$sortArray: {input: [3, 1, "a", 2], sortBy: 1}}, s2: {$sortArray: {input: [{n: 2, k: "x"}, {n: 1}, {n: 3}], sortBy: {n: -1}}},
  s3: {$sortArray: {input: [1, [0], null], sortBy: -1}},
  n1: {$firstN: {n: 2, input: [5, 6, 7]}}, n2: {$lastN: {n: 2, input: [5, 6, 7]}}, n3: {$maxN: {n: 2, input: [5, null, 9, 7]}},
  n4: {$minN: {n: 5, input: [5, 9, 7]}}, g1: {$getField: "b1"}, g2: {$getField: {field: "a.b", input: {$literal: {"a.b": 1}}}},
  g3: {$getField: {field: {$literal: "$x"}, input: {$setField: {field: {$literal: "$x"}, input: {}, value: 5}}}},
  u1: {$unsetField: {field: "b", input: {a: 1, b: 2, c: 3}}}, u2: {$unsetField: {field: "zz", input: {a: 1}}},
  u3: {$unsetField: {field: {$literal: "$p"}, input: {$literal: {"$p": 1, q: 2}}}}, u4: {$unsetField: {field: "a", input: null}},
  z: {$bsonSize: {a: 1}}, bs: {$binarySize: "héllo"}, ts: {$tsSecond: Timestamp(1412180887, 7)}, ti: {$tsIncrement: Timestamp(1412180887, 7)}}}]');
-- errors
SELECT doc_match('{}', '{$expr: {$regexMatch: {input: "a", regex: "("}}}');
SELECT doc_match('{}', '{$expr: {$regexMatch: {input: 1, regex: "a"}}}');
SELECT doc_match('{}', '{$expr: {$regexMatch: {input: "a", regex: /a/i, options: "m"}}}');
SELECT doc_match('{}', '{$expr: {$regexMatch: {input: "a", regex: 5}}}');
SELECT doc_match('{}', '{$expr: {$regexFind: {input: "a"}}}');
SELECT doc_match('{}', '{$expr: {$asin: 2}}');
SELECT doc_match('{}', '{$expr: {$sin: Infinity}}');
SELECT doc_match('{}', '{$expr: {$bitAnd: [1, 1.5]}}');
SELECT doc_match('{}', '{$expr: {$sortArray: {input: [1], sortBy: 2}}}');
SELECT doc_match('{}', '{$expr: {$sortArray: {input: 1, sortBy: 1}}}');
SELECT doc_match('{}', '{$expr: {$firstN: {n: 0, input: [1]}}}');
SELECT doc_match('{}', '{$expr: {$maxN: {n: 1, input: "x"}}}');
-- (null is no array either, as MongoDB's evaluateAccumulatorN has it)
SELECT doc_match('{}', '{$expr: {$lastN: {n: 1, input: null}}}');
-- $maxN's equal values as its accumulator holds them: once n are held, an
-- equal one does not enter
SELECT doc_json(doc_update('{a: [2, 2.0, 1, 2]}', '[{$set: {mx: {$maxN: {n: 2, input: "$a"}}, mn: {$minN: {n: 2, input: "$a"}}}}]'), 'canonical');
SELECT doc_match('{}', '{$expr: {$zip: {inputs: [[1], 2]}}}');
SELECT doc_match('{}', '{$expr: {$zip: {inputs: [[1]], defaults: [0]}}}');
SELECT doc_match('{}', '{$expr: {$getField: {field: 1}}}');
SELECT doc_match('{}', '{$expr: {$getField: {field: "a", input: 5}}}');
SELECT doc_match('{}', '{$expr: {$unsetField: {field: "a", input: 5}}}');
SELECT doc_match('{}', '{$expr: {$percentile: {input: [1], p: "$x", method: "approximate"}}}');
SELECT doc_match('{}', '{$expr: {$percentile: {input: [1], p: [1.5], method: "approximate"}}}');
SELECT doc_match('{}', '{$expr: {$median: {input: [1], method: "exact"}}}');
SELECT doc_match('{}', '{$expr: {$median: {input: [1]}}}');
SELECT doc_match('{}', '{$expr: {$unsetField: {field: "a", input: {}, value: 1}}}');
SELECT doc_match('{}', '{$expr: {$unsetField: {field: "$a", input: {}}}}');
SELECT doc_match('{}', '{$expr: {$getField: "$a"}}');
SELECT doc_match('{}', '{$expr: {$bsonSize: 1}}');
SELECT doc_match('{}', '{$expr: {$tsSecond: 1}}');

-- 17. $$NOW: the time the filter was compiled at, by docext's clock
SELECT doc_config('clock', '2024-05-06T07:08:09.123Z');
SELECT doc_match('{t: ISODate("2024-05-06T07:08:09.123Z")}', '{$expr: {$eq: ["$t", "$$NOW"]}}');
SELECT doc_match('{t: ISODate("2024-05-06T07:08:09.122Z")}', '{$expr: {$gte: ["$t", "$$NOW"]}}');
SELECT doc_match('{}', '{$expr: {$eq: [{$type: "$$NOW"}, "date"]}}');
SELECT doc_match('{}', '{$expr: {$eq: ["$$NOW.x", "$$REMOVE"]}}');
-- (the let option sees it too, and a filter's every $expr gets one time)
SELECT count(*) FROM budget('{$and: [{$expr: {$eq: ["$$t", "$$NOW"]}}, {$expr: {$eq: [{$year: "$$NOW"}, 2024]}}]}',
  NULL, NULL, '{let: {t: "$$NOW"}}');
SELECT doc_config('clock', NULL);
SELECT doc_match('{t: ISODate("2020-01-01")}', '{$expr: {$lt: ["$t", "$$NOW"]}}');
SELECT doc_match('{}', '{$expr: "$$CLUSTER_TIME"}');

-- A date format is checked before anything else, as MongoDB checks it: a bad
-- one is an error for a null date too, and onError does not catch it.
-- $dateFromString reads neither %U nor %w (nor does MongoDB's parser).
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: "2020 05 3", format: "%Y %U %w"}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: null, format: "%Y %w"}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: 5, format: "%Y %U", onError: true}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: 5, format: "%Y", onError: true}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: null, format: 7}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: null, format: "%Y %"}}}');
SELECT doc_match('{}', '{$expr: {$dateFromString: {dateString: "2020", format: "%Q", timezone: "Nowhere/Zone"}}}');
SELECT doc_match('{}', '{$expr: {$dateToString: {date: null, format: "%Q"}}}');
SELECT doc_match('{}', '{$expr: {$dateToString: {date: null, format: "%Y", onNull: true}}}');
SELECT doc_match('{}', '{$expr: {$dateToString: {date: ISODate("2020-01-01"), format: "%é"}}}');

-- What a null hides is MongoDB's order of evaluation: the date parts,
-- $dateAdd, $dateDiff and $dateTrunc return null for a null date without
-- reading the zone; $dateToString, $dateToParts and $dateFromString read
-- the zone first; $dateFromParts reads the time's parts, the zone, then the
-- date's parts. ("$z" is a zone that does not exist.)
SELECT doc_update('{z: "Nowhere/Zone", s: "x"}', '[{$set: {
  y: {$year: {date: null, timezone: "$z"}},
  a: {$dateAdd: {startDate: null, unit: "day", amount: 1, timezone: "$z"}},
  a2: {$dateAdd: {startDate: "$s", unit: "day", amount: null, timezone: "$z"}},
  d: {$dateDiff: {startDate: ISODate("2020-01-01"), endDate: null, unit: "day", timezone: "$z"}},
  t: {$dateTrunc: {date: null, unit: "day", timezone: "$z"}},
  t2: {$dateTrunc: {date: "$s", unit: null, timezone: "$z"}},
  p: {$dateFromParts: {year: 2020, hour: null, timezone: "$z"}}}}]');
SELECT doc_update('{z: "Nowhere/Zone"}', '[{$set: {v: {$dateToString: {date: null, timezone: "$z"}}}}]');
SELECT doc_update('{z: "Nowhere/Zone"}', '[{$set: {v: {$dateToParts: {date: null, timezone: "$z"}}}}]');
SELECT doc_update('{z: "Nowhere/Zone"}', '[{$set: {v: {$dateFromString: {dateString: null, timezone: "$z"}}}}]');
SELECT doc_update('{z: "Nowhere/Zone"}', '[{$set: {v: {$dateFromParts: {year: null, timezone: "$z"}}}}]');
-- a null zone hides a date that is not one, where the zone comes first
SELECT doc_update('{s: "x"}', '[{$set: {v: {$dateToString: {date: "$s", timezone: null}},
  w: {$dateToParts: {date: "$s", timezone: null}}, x: {$dateAdd: {startDate: "$s", unit: "day", amount: 1, timezone: null}}}}]');
SELECT doc_update('{s: "x"}', '[{$set: {v: {$year: {date: "$s", timezone: null}}}}]');
-- the unit is checked before the amount and the zone
SELECT doc_update('{}', '[{$set: {v: {$dateAdd: {startDate: ISODate("2020-01-01"), unit: "fortnight", amount: null}}}}]');
SELECT doc_update('{}', '[{$set: {v: {$dateTrunc: {date: "x", unit: "fortnight"}}}}]');
-- $dateFromParts: seconds and milliseconds have no range of their own and
-- carry over; month, day, hour and minute are -32768 to 32767; the year is
-- checked after the month and the day
SELECT doc_update('{}', '[{$set: {s: {$dateFromParts: {year: 2020, second: 100000}},
  ms: {$dateFromParts: {year: 2020, millisecond: -86400001}},
  n: {$dateFromParts: {year: 0, month: null}}}}]');
SELECT doc_update('{}', '[{$set: {v: {$dateFromParts: {year: 2020, minute: 40000}}}}]');
SELECT doc_update('{}', '[{$set: {v: {$dateFromParts: {year: 0}}}}]');
SELECT doc_update('{}', '[{$set: {v: {$dateFromParts: {year: 2020, second: 9223372036854775807}}}}]');
SELECT doc_update('{}', '[{$set: {v: {$dateFromParts: {year: 2020, millisecond: 9223372036854775807}}}}]');

-- $rand: a double in [0, 1), another at each evaluation; $sampleRate r
-- matches each document with chance r (MongoDB's {$expr: {$lt: [{$rand:
-- {}}, r]}}). 10,000 documents: a share of 0.3 is 3,000 give or take 46,
-- so 2,700 to 3,300 (six and a half deviations) holds but once in 10^10.
CREATE VIRTUAL TABLE dice USING docext;
INSERT INTO dice(doc) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<10000)
  SELECT json_object('_id', i) FROM n;
SELECT count(*) BETWEEN 2700 AND 3300 FROM dice('{$sampleRate: 0.3}');
SELECT count(*) FROM dice('{$sampleRate: 0}');
SELECT count(*) FROM dice('{$sampleRate: 1}');
SELECT count(*) FROM dice('{_id: {$lte: 100}, $sampleRate: 1.0}');
SELECT count(*) BETWEEN 2700 AND 3300 FROM dice('{$expr: {$lt: [{$rand: {}}, 0.3]}}');
SELECT count(*) BETWEEN 4700 AND 5300 FROM dice WHERE doc_match(doc, '{$or: [{$sampleRate: 0.5}, {_id: 0}]}');
SELECT json_extract(doc_explain('dice', '{_id: {$lt: 10}, $sampleRate: 0.5}'), '$.cursor', '$.nscanned');
WITH r(v) AS (SELECT doc_get(doc_update('{}', '[{$set: {r: {$rand: {}}}}]'), 'r') FROM dice)
  SELECT min(v) >= 0, max(v) < 1, count(DISTINCT v) = 10000, typeof(min(v)), abs(avg(v) - 0.5) < 0.02 FROM r;
SELECT doc_update_many('dice', '{_id: {$lte: 3}}', '[{$set: {r: {$rand: {}}}}]');
SELECT count(DISTINCT doc_get(doc, 'r')) FROM dice('{_id: {$lte: 3}}');
-- errors: $rand takes {}; $sampleRate a number from 0 to 1, at the top;
-- like $expr, neither in a partial index, arrayFilters or $pull
SELECT doc_update('{}', '[{$set: {r: {$rand: 1}}}]');
SELECT doc_update('{}', '[{$set: {r: {$rand: {seed: 1}}}}]');
SELECT doc_update('{}', '[{$set: {r: {$rand: []}}}]');
SELECT count(*) FROM dice('{$sampleRate: "half"}');
SELECT count(*) FROM dice('{$sampleRate: 1.5}');
SELECT count(*) FROM dice('{$sampleRate: -0.1}');
SELECT count(*) FROM dice('{$sampleRate: NaN}');
SELECT count(*) FROM dice('{a: {$elemMatch: {$sampleRate: 0.5}}}');
SELECT doc_create_index('dice', '{r: 1}', '{partialFilterExpression: {$sampleRate: 0.5}}');
SELECT doc_update('{a: [1, 2]}', '{$pull: {a: {$sampleRate: 0.5}}}');
