-- Pipeline updates: an update written as an array of stages
-- (docext_pipeline.c), through doc_update_one/many, doc_find_and_modify and
-- doc_update.
.load ./docext
.headers off
.mode list

-- 1. MongoDB's examples: fill missing fields with $mergeObjects, then
-- compute from the document's own fields
CREATE VIRTUAL TABLE students USING docext;
INSERT INTO students(doc) VALUES
  ('{_id: 1, quiz1: 8, test2: 100, quiz2: 9}'),
  ('{_id: 2, quiz2: 5, test1: 80, test2: 89}');
SELECT doc_update_many('students', '{}', '[
  {$replaceRoot: {newRoot: {$mergeObjects: [{quiz1: 0, quiz2: 0, test1: 0, test2: 0}, "$$ROOT"]}}},
  {$set: {total: {$add: ["$quiz1", "$quiz2", "$test1", "$test2"]}}}]');
SELECT doc FROM students;
-- a grade from the total, and the quizzes dropped
SELECT doc_update_many('students', '{}', '[{$set: {grade: {$switch: {branches: [
  {case: {$gte: ["$total", 110]}, then: "A"}, {case: {$gte: ["$total", 100]}, then: "B"}],
  default: "C"}}}}, {$unset: ["quiz1", "quiz2"]}]');
SELECT doc FROM students;

-- 2. $set / $addFields: in place when the field exists, appended when new;
-- dotted paths and nested documents merge into embedded documents, go
-- into every element of an array, and turn a scalar into a document
SELECT doc_update('{_id: 1, a: {b: 1, c: 2}, x: 5}', '[{$set: {x: 6, "a.d": 3, n: {m: "$x"}}}]');
SELECT doc_update('{a: {b: 1, c: 2}}', '[{$addFields: {a: {c: 20, e: {$literal: 4}}}}]');
SELECT doc_update('{arr: [{q: 1}, 2, [{q: 3}], {r: 4}]}', '[{$set: {"arr.z": 7}}]');
SELECT doc_update('{a: 5}', '[{$set: {"a.b": 1}}]');
-- a computed value that is missing ($$REMOVE, an absent field) removes the
-- field or leaves it out
SELECT doc_update('{a: 1, b: 2}', '[{$set: {a: "$$REMOVE", c: "$nothing"}}]');
-- expressions read the stage's whole input, not the subdocument
SELECT doc_update('{x: 2, a: {x: 9}}', '[{$set: {"a.y": "$x"}}]');
-- an empty document is a value
SELECT doc_update('{a: {b: 1}}', '[{$set: {a: {}}}]');
-- a dotted path and a nested document may share a field; a path may not
-- also be a leaf
SELECT doc_update('{a: {x: 1}}', '[{$set: {"a.b": 1, a: {c: 2}}}]');
SELECT doc_update('{a: {x: 1}}', '[{$set: {a: 1, "a.b": 2}}]');

-- 3. $project: inclusion keeps _id unless _id: 0, computed fields follow
-- the included ones; exclusion keeps everything else
SELECT doc_update('{_id: 1, a: 1, b: {c: 1, d: 2}, e: [{c: 1, f: 2}, 3]}',
  '[{$project: {"b.c": 1, "e.c": 1, s: {$add: ["$a", 1]}, a: 1}}]');
SELECT doc_update('{_id: 1, a: 1, b: {c: 1, d: 2}, e: [{c: 1, f: 2}, 3]}',
  '[{$project: {a: 0, "b.d": 0, "e.f": 0}}]');
SELECT doc_update('{_id: 1, a: 1, b: 2}', '[{$project: {_id: 0, a: 1}}]');
SELECT doc_update('{_id: 1, a: 1, b: 2}', '[{$project: {_id: 0}}]');
SELECT doc_update('{_id: 1, a: 1, b: 2}', '[{$project: {b: true, a: false}}]');

-- 4. $unset, $replaceRoot, $replaceWith; _id is kept when a stage drops it
CREATE VIRTUAL TABLE orders USING docext;
INSERT INTO orders(doc) VALUES
  ('{_id: 1, item: "book", ship: {city: "Oslo", zip: "0150"}, qty: 2, price: NumberDecimal("12.50")}'),
  ('{_id: 2, item: "pen", ship: {city: "Bergen"}, qty: 10, price: NumberDecimal("1.20")}');
SELECT doc_update_one('orders', '{_id: 1}', '[{$replaceWith: {$mergeObjects: ["$ship", {item: "$item"}]}}]');
SELECT doc_update_one('orders', '{_id: 2}', '[{$replaceRoot: {newRoot: {item: "$item",
  cost: {$multiply: ["$qty", "$price"]}}}}, {$unset: "nothing"}]');
SELECT doc FROM orders;
SELECT doc_check('orders');

-- 5. let variables, upserts, doc_find_and_modify, modifiedCount
SELECT doc_update_one('orders', '{_id: 2}', '[{$set: {note: "$$n"}}]', '{let: {n: "gift"}}');
SELECT doc_update_one('orders', '{_id: 2}', '[{$set: {note: "gift"}}]');
SELECT doc_update_one('orders', '{_id: 3, item: "ink"}', '[{$set: {qty: 1, made: {$concat: ["new ", "$item"]}}}]',
  '{upsert: true}');
SELECT doc_find_and_modify('orders', '{query: {_id: 3}, update: [{$set: {qty: {$add: ["$qty", 1]}}}], new: true}');
SELECT doc FROM orders WHERE _id = 3;
-- a pipeline updates many documents at once; an index sees the new values
SELECT doc_create_index('orders', '{item: 1}');
SELECT doc_update_many('orders', '{}', '[{$set: {item: {$concat: ["$item", "!"]}}}]');
SELECT group_concat(_id) FROM orders('{item: "ink!"}');
SELECT doc_check('orders');
-- $$NOW: docext's clock (frozen here), one time for every stage and
-- document of an update; $$CLUSTER_TIME needs a replica set
SELECT doc_config('clock', '2024-05-06T07:08:09.123Z');
SELECT doc_update_many('orders', '{}', '[{$set: {seen: "$$NOW"}}, {$set: {year: {$year: "$$NOW"}}}]');
SELECT _id, doc_get(doc, 'seen'), doc_get(doc, 'year') FROM orders;
SELECT doc_config('clock', NULL);
SELECT doc_update_many('orders', '{}', '[{$set: {seen: "$$NOW"}}, {$set: {again: "$$NOW"}}]');
SELECT count(DISTINCT doc_get(doc, 'seen')), count(*) FROM orders('{$expr: {$eq: ["$seen", "$again"]}}');
SELECT count(*) FROM orders('{seen: {$gt: ISODate("2026-01-01")}}');
-- one $$NOW for a command's filter and its pipeline: the documents whose
-- _id has the parity of the filter's millisecond get the pipeline's time,
-- which must have that parity too (which _ids match depends on the clock;
-- the seconds' text times 1000 is rounded, as 8.123 * 1000 may fall below 8123)
SELECT doc_update_many('orders', '{}', '[{$unset: "seen"}]') IS NOT NULL;
SELECT doc_update_many('orders', '{$expr: {$eq: [{$mod: [{$toLong: "$$NOW"}, 2]}, {$mod: ["$_id", 2]}]}}',
  '[{$set: {seen: "$$NOW"}}]') IS NOT NULL;
SELECT count(doc_get(doc, 'seen')) > 0, count(*) FILTER (WHERE doc_get(doc, 'seen') IS NOT NULL
  AND (CAST(round(strftime('%f', doc_get(doc, 'seen')) * 1000) AS INTEGER) - _id) % 2 != 0) FROM orders;
SELECT doc_update_many('orders', '{}', '[{$unset: ["seen", "again", "year"]}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {t: "$$CLUSTER_TIME"}}]');

-- 6. Errors: nothing changes
SELECT doc_update_many('orders', '{}', '[{$set: {n: {$size: "$item"}}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {_id: 5}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$replaceWith: "$city"}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$replaceRoot: {newRoot: "$nothing"}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$replaceRoot: {root: "$ship"}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$match: {}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[]');
SELECT doc_update_one('orders', '{_id: 1}', '[5]');
SELECT doc_update_one('orders', '{_id: 1}', '[{}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {a: 1}, $unset: "b"}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {a: 1, "a.b": 2}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {"a..b": 1}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {$a: 1}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$project: {a: 1, b: 0}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$project: {}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$unset: []}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$unset: [1]}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {a: 1}}]', '{arrayFilters: [{x: 1}]}');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {a: "$$v"}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {a: 1}}] x');
SELECT doc_update_one('orders', '{_id: 1}', '[{$replaceWith: {$literal: {"$bad": 1}}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {a: {$mergeObjects: [1]}}}]');
-- an expression's error names the stage and the field it computes
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {a: 1}}, {$addFields: {a: {b: {c: {$foo: 1}}, d: 1}}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {"a.b": {$add: [1, "$city"]}}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$project: {item: 1, x: {y: {$toInt: "$city"}}}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$replaceWith: {$mergeObjects: ["$$ROOT", "$city"]}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$replaceRoot: {newRoot: {$regexFind: {input: "$city", regex: "("}}}}]');
SELECT doc_update_one('orders', '{_id: 1}', '[{$set: {a: {$let: {vars: {v: 1}, in: "$$w"}}}}]', '{let: {x: 1}}');
-- (a long field name is cut, between characters, after 100 bytes)
SELECT doc_update_one('orders', '{_id: 1}', json_array(json_object('$set',
  json_object(printf('%.*c', 93, 'x') || 'éé', json('{"$foo": 1}')))));
SELECT doc FROM orders;
SELECT doc_check('orders');
-- the second document fails: the first keeps its old value too
SELECT doc_update_many('orders', '{}', '[{$set: {n: {$divide: [10, {$subtract: ["$_id", 2]}]}}}]');
SELECT count(*) FROM orders('{n: {$exists: true}}');

-- 7. A result over 16 MiB is refused as it grows
SELECT length(doc_update(json_object('s', printf('%.*c', 1000000, 'x'), 'arr', json('[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]')),
  '[{$set: {"arr.copy": "$s"}}]'));
SELECT length(doc_update(json_object('s', printf('%.*c', 1000000, 'x'), 'arr', json('[1,2,3,4,5,6,7,8,9,10]')),
  '[{$set: {"arr.copy": "$s"}}]')) > 10000000;

-- 8. Depth and path length: a stage's document may nest no deeper than a
-- stored one (100 levels below the root), whether a long path or an
-- expression nests it; a field path has at most 200 components. Each is
-- refused with the stage's name, and the collection is unchanged.
CREATE TEMP TABLE parts(n INTEGER PRIMARY KEY, path TEXT);
INSERT INTO parts SELECT value, rtrim(replace(printf('%.*c', value, 'k'), 'k', 'k.'), '.')
  FROM (SELECT 101 AS value UNION ALL SELECT 102 UNION ALL SELECT 200 UNION ALL SELECT 201);
-- k.k…k (101 components): 100 documents, the last holding k: 1
SELECT doc_valid(doc_update(doc_bson('{_id: 1}'), printf('[{$set: {"%s": 1}}]', path))) FROM parts WHERE n = 101;
SELECT doc_update('{_id: 1}', printf('[{$set: {"%s": 1}}]', path)) FROM parts WHERE n = 102;
SELECT length(doc_update('{_id: 1}', printf('[{$unset: "%s"}, {$project: {"%s": 0}}]', path, path))) FROM parts WHERE n = 200;
SELECT doc_update('{_id: 1}', printf('[{$unset: "%s"}]', path)) FROM parts WHERE n = 201;
SELECT doc_update('{_id: 1}', printf('[{$project: {"%s": 1}}]', path)) FROM parts WHERE n = 201;
-- a nested field spec counts the components above it
SELECT doc_update('{_id: 1}', printf('[{$project: {"%s": {"%s": 1}}}]', a.path, b.path))
  FROM parts AS a, parts AS b WHERE a.n = 101 AND b.n = 101;
-- an expression that nests: 100 arrays fit below the root, 101 do not
SELECT doc_valid(doc_update(doc_bson('{_id: 1}'), '[{$set: {a: {$reduce: {input: {$range: [0, 99]}, initialValue: [], in: ["$$value"]}}}}]'));
SELECT doc_update('{_id: 1}', '[{$set: {a: {$reduce: {input: {$range: [0, 100]}, initialValue: [], in: ["$$value"]}}}}]');
SELECT doc_update('{_id: 1}', '[{$replaceWith: {a: {$reduce: {input: {$range: [0, 100]}, initialValue: [], in: ["$$value"]}}}}]');
-- a stored document 98 levels deep, copied into itself
CREATE VIRTUAL TABLE deep USING docext;
INSERT INTO deep(doc) SELECT printf('{_id: 1, d: %s1%s}', replace(printf('%.*c', 98, 'x'), 'x', '{x: '),
                                    replace(printf('%.*c', 98, 'x'), 'x', '}'));
-- w.v: 99 levels, fits; w.v.u.t: 101, does not; nor the document under a.b
SELECT doc_update_one('deep', '{_id: 1}', '[{$set: {w: {v: "$d"}}}]');
SELECT doc_update_one('deep', '{_id: 1}', '[{$set: {w: {v: {u: {t: "$d"}}}}}]');
SELECT doc_update_one('deep', '{_id: 1}', '[{$replaceWith: {a: {b: "$$ROOT"}}}]');
SELECT doc_update_one('deep', '{_id: 1}', printf('[{$set: {"%s": 1}}]', path)) FROM parts WHERE n = 102;
SELECT doc_match(doc, '{"w.v": {$exists: true}, a: {$exists: false}, k: {$exists: false}}'),
       doc_check('deep') FROM deep;
