-- Every query operator and matching rule, on a collection of values of
-- every kind: each line is a filter and the _ids it matches, in insertion
-- order ("-" for none). Then errors that name the operator or path,
-- projections, sorts across types, and the SCENARIOS.md queries.
.load ./docext
.headers off
.mode list
.separator ' => '

CREATE VIRTUAL TABLE v USING docext;
INSERT INTO v(doc) VALUES
  ('{_id: 1, a: null}'),
  ('{_id: 2}'),
  ('{_id: 3, a: undefined}'),
  ('{_id: 4, a: 5}'),
  ('{_id: 5, a: NumberLong(5)}'),
  ('{_id: 6, a: 5.5}'),
  ('{_id: 7, a: NumberDecimal("5.00")}'),
  ('{_id: 8, a: "5"}'),
  ('{_id: 9, a: [1, 5]}'),
  ('{_id: 10, a: []}'),
  ('{_id: 11, a: [[5]]}'),
  ('{_id: 12, a: {b: 5}}'),
  ('{_id: 13, a: [{b: 5}, {c: 1}]}'),
  ('{_id: 14, a: true}'),
  ('{_id: 15, a: ISODate("2020-01-01T00:00:00Z")}'),
  ('{_id: 16, a: Timestamp(1, 1)}'),
  ('{_id: 17, a: NaN}'),
  ('{_id: 18, a: MinKey}'),
  ('{_id: 19, a: MaxKey}'),
  ('{_id: 20, a: /^x/i}'),
  ('{_id: 21, a: "xyz"}'),
  ('{_id: 22, a: BinData(0, "BQ==")}'),
  ('{_id: 23, a: ObjectId("507f1f77bcf86cd799439011")}'),
  ('{_id: 24, a: [null]}'),
  ('{_id: 25, a: -7}'),
  ('{_id: 26, a: [{b: [1, 2]}, {b: [3]}]}');

-- Each filter through the filter column, one query per row.
CREATE TEMP VIEW matches AS
  SELECT column1 AS q,
         ifnull((SELECT group_concat(_id, ' ') FROM v WHERE filter = column1), '-') AS ids
  FROM temp.filters;

-- 1. null matches null, missing and undefined; $exists sees presence
CREATE TEMP TABLE filters(column1 TEXT);
INSERT INTO filters VALUES
  ('{a: null}'), ('{a: {$eq: null}}'), ('{a: {$ne: null}}'), ('{a: {$in: [null]}}'),
  ('{a: {$nin: [null]}}'), ('{a: {$exists: true}}'), ('{a: {$exists: false}}'),
  ('{a: {$type: "null"}}'), ('{a: {$type: "undefined"}}'), ('{a: {$gte: null}}'),
  ('{a: {$lt: null}}'), ('{"a.b": null}'), ('{"a.b": {$exists: true}}'),
  ('{"a.c": null}'), ('{"a.c": {$ne: null}}');
SELECT * FROM matches;

-- 2. numbers compare by value across int32, int64, double, decimal128;
--    NaN equals only NaN; comparisons stay within a type
DELETE FROM filters;
INSERT INTO filters VALUES
  ('{a: 5}'), ('{a: NumberDecimal("5")}'), ('{a: 5.0}'), ('{a: {$gt: 5}}'), ('{a: {$gte: 5, $lte: 5}}'),
  ('{a: {$lt: 5}}'), ('{a: {$lt: 5.5}}'), ('{a: NaN}'), ('{a: {$gt: -Infinity}}'), ('{a: {$lte: NaN}}'),
  ('{a: {$in: [5, "5"]}}'), ('{a: {$gt: "4"}}'), ('{a: {$type: "number"}}'),
  ('{a: {$type: ["long", "decimal"]}}'), ('{a: {$type: 1}}'), ('{a: {$type: "int"}}');
SELECT * FROM matches;

-- 3. arrays: any element or the whole array; $size, $all, $elemMatch look
--    at the array; $ne and $nin hold only if no element equals
DELETE FROM filters;
INSERT INTO filters VALUES
  ('{a: 1}'), ('{a: [1, 5]}'), ('{a: [5, 1]}'), ('{a: [5]}'), ('{a: []}'), ('{a: {$size: 2}}'),
  ('{a: {$size: 0}}'), ('{a: {$size: 1}}'), ('{a: {$all: [1, 5]}}'), ('{a: {$all: [5]}}'),
  ('{a: {$all: [[5]]}}'), ('{a: {$elemMatch: {$gt: 2}}}'), ('{a: {$elemMatch: {$gt: 0, $lt: 2}}}'),
  ('{a: {$gt: 0, $lt: 2}}'), ('{a: {$ne: 1}}'), ('{a: {$nin: [1, 5, null]}}'), ('{a: {$type: "array"}}'),
  ('{"a.0": 1}'), ('{"a.0": 5}'), ('{"a.1": {$exists: true}}'), ('{"a.0.0": 5}');
SELECT * FROM matches;

-- 4. embedded documents: exact and ordered; dotted paths through arrays of
--    documents; $elemMatch with a query on each document
DELETE FROM filters;
INSERT INTO filters VALUES
  ('{a: {b: 5}}'), ('{a: {b: 5.0}}'), ('{"a.b": 5}'), ('{"a.b": 2}'), ('{"a.b": [3]}'),
  ('{"a.b": {$size: 1}}'), ('{"a.b": {$elemMatch: {$gte: 2}}}'), ('{a: {$elemMatch: {b: 5}}}'),
  ('{a: {$elemMatch: {c: {$exists: false}}}}'), ('{a: {$elemMatch: {b: {$all: [1, 2]}}}}'),
  ('{a: {$all: [{$elemMatch: {b: 5}}, {$elemMatch: {c: 1}}]}}'), ('{"a.0.b": 5}'), ('{"a.1.c": 1}'),
  ('{a: {$type: "object"}}');
SELECT * FROM matches;

-- 5. other types, MinKey and MaxKey
DELETE FROM filters;
INSERT INTO filters VALUES
  ('{a: {$lt: MaxKey}}'), ('{a: {$gt: MinKey}}'), ('{a: {$gt: ISODate("2019-01-01")}}'),
  ('{a: {$gt: Timestamp(0, 0)}}'), ('{a: {$lte: true}}'), ('{a: {$gte: ObjectId("000000000000000000000000")}}'),
  ('{a: BinData(0, "BQ==")}'), ('{a: {$type: "minKey"}}'), ('{a: {$type: 127}}'), ('{a: {$type: "timestamp"}}');
SELECT * FROM matches;

-- 6. regular expressions: strings, and an identical stored regex
DELETE FROM filters;
INSERT INTO filters VALUES
  ('{a: /^x/}'), ('{a: /^X/i}'), ('{a: {$regex: "^X"}}'), ('{a: {$regex: "^X", $options: "i"}}'),
  ('{a: {$regex: /^X/, $options: "i"}}'), ('{a: {$regex: "^ x # comment", $options: "ix"}}'),
  ('{a: {$in: [/^x/, 5]}}'), ('{a: {$nin: [/^x/, null]}}'), ('{a: {$not: /^x/}}'), ('{a: {$not: {$regex: "z$"}}}'),
  ('{a: /^x/i}'), ('{a: {$eq: /^x/i}}'), ('{a: {$all: [/y/, /z/]}}'), ('{a: {$type: "regex"}}');
SELECT * FROM matches;

-- 7. $mod (numbers only, truncated toward zero) and the bit operators
DELETE FROM filters;
INSERT INTO filters VALUES
  ('{a: {$mod: [2, 1]}}'), ('{a: {$mod: [4, -3]}}'), ('{a: {$mod: [-4, -3]}}'), ('{a: {$mod: [5, 0]}}'),
  ('{a: {$mod: [2.9, 1.9]}}'), ('{a: {$bitsAllSet: [0, 2]}}'), ('{a: {$bitsAnySet: 2}}'),
  ('{a: {$bitsAllClear: [1]}}'), ('{a: {$bitsAnyClear: BinData(0, "BQ==")}}'), ('{a: {$bitsAllSet: [63]}}');
SELECT * FROM matches;

-- 8. logical operators, $not, $comment
DELETE FROM filters;
INSERT INTO filters VALUES
  ('{$and: [{a: {$type: "number"}}, {a: {$gt: 5}}]}'), ('{$or: [{a: 1}, {a: "5"}, {"a.c": 1}]}'),
  ('{$nor: [{a: {$exists: false}}, {a: {$type: "number"}}, {a: {$type: "array"}}]}'),
  ('{a: {$not: {$gt: 1, $lt: 6}}}'), ('{a: {$not: {$size: 0}}, "a.0": {$exists: true}}'),
  ('{a: 5, $comment: "ignored"}'), ('{$and: [{$or: [{a: 5}, {a: 1}]}, {$nor: [{a: NumberLong(5)}]}]}');
SELECT * FROM matches;

.separator '|'

-- 9. errors name the operator and the path; nothing is returned
SELECT _id FROM v('{a: {$foo: 1}}');
SELECT _id FROM v('{$foo: [{a: 1}]}');
SELECT _id FROM v('{"x.y": {$gt: 1, z: 1}}');
SELECT _id FROM v('{a: {$in: 5}}');
SELECT _id FROM v('{a: {$nin: [{$gt: 1}]}}');
SELECT _id FROM v('{a: {$all: 5}}');
SELECT _id FROM v('{a: {$all: [{$elemMatch: {b: 1}}, 5]}}');
SELECT _id FROM v('{a: {$size: -1}}');
SELECT _id FROM v('{a: {$size: 1.5}}');
SELECT _id FROM v('{a: {$mod: [2]}}');
SELECT _id FROM v('{a: {$mod: [2, 1, 0]}}');
SELECT _id FROM v('{a: {$mod: [0, 1]}}');
SELECT _id FROM v('{a: {$mod: [NaN, 1]}}');
SELECT _id FROM v('{a: {$mod: "x"}}');
SELECT _id FROM v('{a: {$type: "text"}}');
SELECT _id FROM v('{a: {$type: 42}}');
SELECT _id FROM v('{a: {$type: []}}');
SELECT _id FROM v('{a: {$regex: "("}}');
SELECT _id FROM v('{a: {$regex: "x", $options: "q"}}');
SELECT _id FROM v('{a: {$regex: /x/m, $options: "i"}}');
SELECT _id FROM v('{a: {$options: "i"}}');
SELECT _id FROM v('{a: {$ne: /x/}}');
SELECT _id FROM v('{a: {$gt: /x/}}');
SELECT _id FROM v('{a: {$not: 5}}');
SELECT _id FROM v('{a: {$not: {}}}');
SELECT _id FROM v('{a: {$elemMatch: 5}}');
SELECT _id FROM v('{a: {$bitsAllSet: -1}}');
SELECT _id FROM v('{a: {$bitsAnySet: [1.5]}}');
SELECT _id FROM v('{a: {$eq: undefined}}');
SELECT _id FROM v('{$and: []}');
SELECT _id FROM v('{$or: [5]}');
SELECT _id FROM v('{$where: "this.a > 1"}');
SELECT _id FROM v('{$text: {$search: "x"}}');
SELECT _id FROM v('{a: {$near: "here"}}');
SELECT _id FROM v('{$jsonSchema: {required: "a"}}');
SELECT _id FROM v('{a: {$elemMatch: {$where: "1"}}}');
SELECT _id FROM v('{$or: [{a: {$geoWithin: {}}}]}');

-- 10. a pathological regex fails with a clear error instead of hanging
CREATE VIRTUAL TABLE s USING docext;
INSERT INTO s(doc) VALUES ('{_id: 1, s: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}');
SELECT _id FROM s('{s: /^(a+)+$/}');
SELECT _id FROM s('{s: /^a+!$/}');

-- 11. projections: inclusion, exclusion, _id rules, nested paths, $slice,
--     $elemMatch, the positional $
CREATE VIRTUAL TABLE p USING docext;
INSERT INTO p(doc) VALUES
  ('{_id: 1, a: [1, 2, 3, 4, 5], b: {c: 1, d: [{e: 1, f: 2}, {e: 3, f: 4}], g: 2}, h: [{x: 1, y: 1}, {x: 2, y: 2}, 7, [{x: 3, y: 3}]], s: "t"}'),
  ('{_id: 2, a: 5, b: 7, h: 3}');
SELECT doc FROM p('{}', '{a: 1}');
SELECT doc FROM p('{}', '{a: 0}');
SELECT doc FROM p('{}', '{_id: 0, s: 1}');
SELECT doc FROM p('{}', '{_id: 0}');
SELECT doc FROM p('{}', '{_id: 1}');
SELECT doc FROM p('{}', '{_id: 1, b: 0}');
SELECT doc FROM p('{}', '{"b.c": 1, "b.d.f": 1}');
SELECT doc FROM p('{}', '{b: {d: {e: 1}}}');
SELECT doc FROM p('{}', '{"b.d.e": 0, h: 0}');
SELECT doc FROM p('{}', '{"h.x": 1}');
SELECT doc FROM p('{}', '{"h.x": 0, a: 0, b: 0}');
SELECT doc FROM p('{_id: 1}', '{a: {$slice: 2}, s: 1}');
SELECT doc FROM p('{_id: 1}', '{a: {$slice: -2}, _id: 0, s: 1}');
SELECT doc FROM p('{_id: 1}', '{a: {$slice: [1, 2]}, b: 0, h: 0}');
SELECT doc FROM p('{_id: 1}', '{a: {$slice: [-2, 5]}, b: 0, h: 0}');
SELECT doc FROM p('{_id: 1}', '{a: {$slice: [-9, 2]}, b: 0, h: 0}');
SELECT doc FROM p('{_id: 1}', '{a: {$slice: [9, 2]}, b: 0, h: 0}');
SELECT doc FROM p('{_id: 1}', '{a: {$slice: 0}, b: 0, h: 0}');
SELECT doc FROM p('{_id: 1}', '{"b.d": {$slice: -1}, a: 0, h: 0}');
SELECT doc FROM p('{_id: 2}', '{a: {$slice: 1}}');
SELECT doc FROM p('{}', '{h: {$elemMatch: {x: {$gte: 2}}}}');
SELECT doc FROM p('{}', '{s: 1, h: {$elemMatch: {$gt: 5}}}');
SELECT doc FROM p('{"h.x": 2}', '{"h.$": 1}');
SELECT doc FROM p('{"b.d.e": 3}', '{"b.d.$": 1}');
SELECT doc FROM p('{a: {$gt: 3}}', '{"a.$": 1, s: 1}');
SELECT doc FROM p('{h: 3}', '{"h.$": 1}');
SELECT doc FROM p('{a: {$exists: true}}', '{"a.$": 1}');
SELECT doc FROM p('{_id: 1}', '{a: 1, b: 0}');
SELECT doc FROM p('{_id: 1}', '{a: 0, "b.c": 1}');
SELECT doc FROM p('{_id: 1}', '{a: 1, "a.b": 1}');
SELECT doc FROM p('{_id: 1}', '{a: {$slice: [1, 0]}}');
SELECT doc FROM p('{_id: 1}', '{a: {$slice: "x"}}');
SELECT doc FROM p('{_id: 1}', '{"b.d": {$elemMatch: {e: 1}}}');
SELECT doc FROM p('{_id: 1}', '{a: {$elemMatch: {$gt: 1}}, b: 0}');
SELECT doc FROM p('{_id: 1}', '{"a.$": 0}');
SELECT doc FROM p('{_id: 1}', '{"a.$": 1, "h.$": 1}');
SELECT doc FROM p('{_id: 1}', '{a: {$foo: 1}}');
SELECT doc FROM p('{_id: 1}', '{a: "yes"}');
SELECT doc FROM p('{_id: 1}', '{a: {}}');

-- 12. sort: MongoDB's order across types; arrays by their smallest element
--     ascending and largest descending; missing as null; an empty array
--     below null; ties in insertion order
SELECT group_concat(_id, ' ') FROM v('{}', NULL, '{a: 1}');
SELECT group_concat(_id, ' ') FROM v('{}', NULL, '{a: -1}');
SELECT group_concat(_id, ' ') FROM v('{"a.b": {$exists: true}}', NULL, '{"a.b": 1}');
SELECT group_concat(_id, ' ') FROM v('{"a.b": {$exists: true}}', NULL, '{"a.b": -1}');
SELECT group_concat(_id, ' ') FROM (SELECT _id FROM v('{}', NULL, '{a: -1}') LIMIT 4);
SELECT group_concat(_id, ' ') FROM (SELECT _id FROM v('{}', NULL, '{a: 1}', '{skip: 3, limit: 4}'));
SELECT group_concat(_id, ' ') FROM (SELECT _id FROM v('{}', NULL, '{a: 1}', '{skip: 3, limit: 4}') LIMIT 2 OFFSET 1);
-- fields through one array take their values from one element (MongoDB's
-- sort key is the first key of the pattern's index keys); two different
-- arrays in one document are an error, as in MongoDB
CREATE VIRTUAL TABLE r USING docext;
INSERT INTO r(doc) VALUES ('{_id: 1, a: [{x: 1, y: 9}, {x: 2, y: 0}]}'), ('{_id: 2, a: [{x: 1, y: 5}]}'),
  ('{_id: 3, a: [{x: 0}, 4]}');
SELECT group_concat(_id, ' ') FROM r('{}', NULL, '{"a.x": 1, "a.y": 1}');
SELECT group_concat(_id, ' ') FROM r('{}', NULL, '{"a.x": -1, "a.y": 1}');
INSERT INTO r(doc) VALUES ('{_id: 4, a: [1], b: [2]}');
SELECT group_concat(_id, ' ') FROM r('{}', NULL, '{a: 1, b: 1}');
SELECT group_concat(_id, ' ') FROM r('{_id: {$lt: 4}}', NULL, '{a: 1, b: 1}');
SELECT _id FROM v('{}', NULL, '{a: 0}');
SELECT _id FROM v('{}', NULL, '{a: "asc"}');

-- 13. doc_match and doc_project on ordinary values
SELECT doc_match('{a: [{b: 1}, {}]}', '{"a.b": null}'), doc_match('{a: [1, 2]}', '{"a.b": null}'),
       doc_match('{a: [[1, 2]]}', '{"a.0.1": 2}'), doc_match('{a: [{"0": 9}]}', '{"a.0": 9}');
SELECT doc_project('{_id: 1, a: [1, 2, 3]}', '{a: {$slice: -1}}'),
       doc_project(doc_bson('{_id: 1, a: [1, 2, 3]}'), '{_id: 0}') IS NOT NULL;

-- 14. SCENARIOS.md A.1: embed or link, an application-level join or one step
CREATE VIRTUAL TABLE authors USING docext;
INSERT INTO authors(doc) VALUES
  ('{ _id: 1, first_name: "F. Scott", last_name: "Fitzgerald" }'),
  ('{ _id: 2, first_name: "Ernest", last_name: "Hemingway" }');
CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES
  ('{ _id: 1, title: "The Great Gatsby", slug: "9781857150193-the-great-gatsby", author: 1, available: true,
      isbn: "9781857150193", pages: 176, language: "English",
      publisher: { name: "Everyman''s Library", date: ISODate("1991-09-19T00:00:00Z"), city: "London" },
      subjects: ["Love stories", "1920s", "Jazz Age"],
      reviews: [ { user: 1, text: "One of the best…" }, { user: 2, text: "It''s hard to…" } ] }'),
  ('{ _id: 2, title: "The Great Gatsby (cached)", author: { first_name: "F. Scott", last_name: "Fitzgerald" },
      available: false, pages: 180, language: "English", subjects: ["1920s"] }'),
  ('{ _id: 3, title: "The Sun Also Rises", author: 2, available: true, pages: 251, language: "English",
      subjects: ["Lost Generation", "1920s"], reviews: [ { user: 3, text: "Spare." } ] }');
SELECT group_concat(b._id, ' ') FROM books b
 WHERE b.filter = (SELECT json_object('author', json_object('$in', json_group_array(a._id)))
                     FROM authors('{first_name: /^f.*/i}', '{_id: 1}') a);
SELECT group_concat(_id, ' ') FROM books('{"author.first_name": /^f.*/i}');

-- A.3: operators and cursor methods
SELECT group_concat(_id, ' ') FROM books('{pages: {$gt: 176, $lte: 251}}');
SELECT group_concat(_id, ' ') FROM books('{subjects: {$all: ["1920s", "Jazz Age"]}}');
SELECT group_concat(_id, ' ') FROM books('{subjects: {$size: 1}}');
SELECT group_concat(_id, ' ') FROM books('{author: {$type: "object"}}');
SELECT group_concat(_id, ' ') FROM books('{reviews: {$exists: false}}');
SELECT group_concat(_id, ' ') FROM books('{pages: {$mod: [2, 1]}}');
SELECT group_concat(_id, ' ') FROM books('{reviews: {$elemMatch: {user: {$gte: 2}}}}');
SELECT count(*) FROM books('{subjects: "1920s"}');
SELECT group_concat(_id, ' ') FROM (SELECT _id FROM books('{subjects: "1920s"}', NULL, '{pages: -1}', '{skip: 1, limit: 1}'));
SELECT group_concat(_id, ' ') FROM (SELECT _id FROM books('{}', NULL, '{pages: 1}') LIMIT 2);

-- A.6: the latest 10 reviews by a user from monthly buckets
CREATE VIRTUAL TABLE buckets USING docext;
INSERT INTO buckets(doc) VALUES
  ('{_id: "bob-201209", reviews: [{n: 1}, {n: 2}, {n: 3}]}'),
  ('{_id: "bob-201210", reviews: [{n: 4}, {n: 5}, {n: 6}, {n: 7}, {n: 8}, {n: 9}, {n: 10}, {n: 11}, {n: 12}, {n: 13}, {n: 14}, {n: 15}]}'),
  ('{_id: "ann-201210", reviews: [{n: 99}]}');
SELECT doc FROM buckets('{_id: /^bob-/}', '{reviews: {$slice: 10}}', '{_id: -1}');

-- A.7: sub-categories of a subject
CREATE VIRTUAL TABLE subjects USING docext;
INSERT INTO subjects(doc) VALUES
  ('{_id: "American Literature", ancestors: [], parent: null}'),
  ('{_id: "1920s", ancestors: ["American Literature"], parent: "American Literature"}'),
  ('{_id: "Jazz Age", ancestors: ["American Literature", "1920s"], parent: "1920s"}'),
  ('{_id: "Lost Generation", ancestors: ["American Literature", "1920s"], parent: "1920s"}');
SELECT group_concat(_id, ', ') FROM subjects('{ancestors: "1920s"}');
SELECT group_concat(_id, ', ') FROM subjects('{parent: null}');

-- C: variable attributes, as a sub-document or as an array of one-key documents
CREATE VIRTUAL TABLE attrs USING docext;
INSERT INTO attrs(doc) VALUES
  ('{_id: 1, attr: {type: "text", size: 64}, kv: [{type: "text"}, {size: 64}]}'),
  ('{_id: 2, attr: {type: "image", size: 4096}, kv: [{type: "image"}, {size: 4096}]}'),
  ('{_id: 3, attr: {type: "video", size: 65536}, kv: [{type: "video"}, {size: 65536}]}');
SELECT group_concat(_id, ' ') FROM attrs('{"attr.size": {$gt: 64, $lte: 16384}}');
SELECT group_concat(_id, ' ') FROM attrs('{kv: {size: 64}}');
SELECT group_concat(_id, ' ') FROM attrs('{kv: {$elemMatch: {size: {$gt: 64}}}}');

-- E.2: child references; E.3: the latest log messages of a host
CREATE VIRTUAL TABLE parts USING docext;
INSERT INTO parts(doc) VALUES
  ('{_id: ObjectId("aaaaaaaaaaaaaaaaaaaaaaa1"), name: "bolt"}'),
  ('{_id: ObjectId("aaaaaaaaaaaaaaaaaaaaaaa2"), name: "nut"}'),
  ('{_id: ObjectId("aaaaaaaaaaaaaaaaaaaaaaa3"), name: "washer"}');
SELECT group_concat(doc->>'name', ' ') FROM parts(
  '{_id: {$in: [ObjectId("aaaaaaaaaaaaaaaaaaaaaaa1"), ObjectId("aaaaaaaaaaaaaaaaaaaaaaa3")]}}');
CREATE VIRTUAL TABLE logmsg USING docext;
INSERT INTO logmsg(doc) VALUES
  ('{_id: 1, host: ObjectId("bbbbbbbbbbbbbbbbbbbbbbb1"), time: ISODate("2014-01-01T00:00:01Z"), message: "a"}'),
  ('{_id: 2, host: ObjectId("bbbbbbbbbbbbbbbbbbbbbbb2"), time: ISODate("2014-01-01T00:00:02Z"), message: "b"}'),
  ('{_id: 3, host: ObjectId("bbbbbbbbbbbbbbbbbbbbbbb1"), time: ISODate("2014-01-01T00:00:03Z"), message: "c"}'),
  ('{_id: 4, host: ObjectId("bbbbbbbbbbbbbbbbbbbbbbb1"), time: ISODate("2014-01-01T00:00:04Z"), message: "d"}');
SELECT group_concat(doc->>'message', ' ') FROM (
  SELECT doc FROM logmsg('{host: ObjectId("bbbbbbbbbbbbbbbbbbbbbbb1")}', '{message: 1, _id: 0}', '{time: -1}') LIMIT 2);
SELECT doc_check('v'), doc_check('books');
