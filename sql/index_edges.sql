-- Index and planner edge cases: key order of nested values, numeric path
-- components, multikey bounds, sparse/partial/TTL/hashed corner cases,
-- covered queries, hints, SQL LIMIT/OFFSET, and doc_check against damaged
-- shadow tables. Each query runs on an indexed collection and on a plain
-- copy: an index never changes an answer. Every scenario ends with
-- doc_check(...) = 'ok'.
.load ./docext
.headers off
.mode list

-- 1. Nested documents order by (type, name, value), and false and true are
--    one type: {b: false} > {a: true}, with or without an index.
CREATE VIRTUAL TABLE nest USING docext;
CREATE VIRTUAL TABLE nest_plain USING docext;
INSERT INTO nest(doc) VALUES ('{_id: 1, x: {b: false}}'), ('{_id: 2, x: {a: true}}'),
  ('{_id: 3, x: {a: false}}'), ('{_id: 4, x: [true]}'), ('{_id: 5, x: {a: false, b: true}}'),
  ('{_id: 6, x: {a: true, b: false}}');
INSERT INTO nest_plain(doc) SELECT bson FROM nest;
SELECT doc_create_index('nest', '{x: 1}');
SELECT 'asc', group_concat(_id) FROM nest('{}', NULL, '{x: 1}');
SELECT 'asc', group_concat(_id) FROM nest_plain('{}', NULL, '{x: 1}');
SELECT 'desc limit', group_concat(_id) FROM nest('{}', NULL, '{x: -1}', '{"limit": 3}');
SELECT 'desc limit', group_concat(_id) FROM nest_plain('{}', NULL, '{x: -1}', '{"limit": 3}');
SELECT 'gt', group_concat(_id) FROM (SELECT _id FROM nest('{x: {$gt: {a: true}}}') ORDER BY _id);
SELECT 'gt', group_concat(_id) FROM (SELECT _id FROM nest_plain('{x: {$gt: {a: true}}}') ORDER BY _id);
SELECT 'lt', group_concat(_id) FROM (SELECT _id FROM nest('{x: {$lt: {b: false}}}') ORDER BY _id);
SELECT 'lt', group_concat(_id) FROM (SELECT _id FROM nest_plain('{x: {$lt: {b: false}}}') ORDER BY _id);
SELECT json_extract(doc_explain('nest', '{x: {$gt: {a: true}}}'), '$.cursor');
SELECT doc_check('nest');

-- 2. An index on a path with a numeric component ("a.0") reads the element
--    at that position as one value (an array stays whole), while a sort
--    reads it as the matcher does: it cannot give a sort its order.
CREATE VIRTUAL TABLE pos USING docext;
CREATE VIRTUAL TABLE pos_plain USING docext;
INSERT INTO pos(doc) VALUES ('{_id: 1, a: [[3, 1]]}'), ('{_id: 2, a: [5]}'), ('{_id: 3, a: [2, 9]}'),
  ('{_id: 4, a: {"0": 4}}'), ('{_id: 5, a: [{"0": 0}]}'), ('{_id: 6, a: 7}'), ('{_id: 7, a: [[]]}'),
  ('{_id: 8}');
INSERT INTO pos_plain(doc) SELECT bson FROM pos;
SELECT doc_create_index('pos', '{"a.0": 1}');
SELECT 'asc', group_concat(_id) FROM pos('{}', NULL, '{"a.0": 1}', '{"limit": 8}');
SELECT 'asc', group_concat(_id) FROM pos_plain('{}', NULL, '{"a.0": 1}', '{"limit": 8}');
SELECT 'desc', group_concat(_id) FROM pos('{}', NULL, '{"a.0": -1}', '{"limit": 3}');
SELECT 'desc', group_concat(_id) FROM pos_plain('{}', NULL, '{"a.0": -1}', '{"limit": 3}');
SELECT 'eq', group_concat(_id) FROM pos('{"a.0": 1}');
SELECT 'eq', group_concat(_id) FROM pos_plain('{"a.0": 1}');
SELECT 'hint', group_concat(_id) FROM (SELECT _id FROM pos('{"a.0": {$gt: 2}}', NULL, NULL, '{"hint": "a.0_1"}') ORDER BY _id);
SELECT 'hint', group_concat(_id) FROM (SELECT _id FROM pos_plain('{"a.0": {$gt: 2}}') ORDER BY _id);
SELECT json_extract(doc_explain('pos', '{}', NULL, '{"a.0": 1}', '{"limit": 3}'), '$.scanAndOrder');
SELECT doc_check('pos');

-- 3. doc_check reads everything from the shadow tables, definitions
--    included, and judges the types SQLite compares by: a key or a body
--    stored as TEXT holds the right bytes but is not found by a lookup.
.dbconfig defensive off
CREATE VIRTUAL TABLE chk USING docext;
INSERT INTO chk(doc) VALUES ('{_id: 1, a: 1, b: "x"}'), ('{_id: 2, a: 2, b: "y"}'), ('{_id: 3, a: 3}');
SELECT doc_create_index('chk', '{a: 1}');
SELECT doc_create_index('chk', '{b: 1}', '{sparse: true}');
SELECT doc_check('chk');
-- a definition damaged in place (the cache's tag left alone)
CREATE TEMP TABLE chk_saved AS SELECT * FROM chk_idxdef;
UPDATE chk_idxdef SET spec = x'0102' WHERE name = 'a_1';
SELECT doc_check('chk');
SELECT count(*) FROM chk('{a: 2}');
UPDATE chk_idxdef SET spec = (SELECT spec FROM chk_saved WHERE name = 'a_1') WHERE name = 'a_1';
SELECT doc_check('chk');
SELECT count(*) FROM chk('{a: 2}');
-- keys of index a_1 stored as TEXT: the same bytes, but not found
UPDATE chk_idx SET key = CAST(key AS TEXT) WHERE ix = (SELECT id FROM chk_idxdef WHERE name = 'a_1') AND docid = 2;
SELECT doc_count('chk', '{a: 2}');
SELECT doc_check('chk');
UPDATE chk_idx SET key = CAST(key AS BLOB) WHERE typeof(key) = 'text';
SELECT doc_count('chk', '{a: 2}');
SELECT doc_check('chk');
-- an entry's document id that is not an integer
UPDATE chk_idx SET docid = 'two' WHERE ix = (SELECT id FROM chk_idxdef WHERE name = 'b_1') AND docid = 2;
SELECT doc_check('chk');
UPDATE chk_idx SET docid = 2 WHERE docid = 'two';
SELECT doc_check('chk');
-- a body and an _id key stored as TEXT
UPDATE chk_docs SET body = CAST(body AS TEXT) WHERE id = 3;
UPDATE chk_docs SET idkey = CAST(idkey AS TEXT) WHERE id = 1;
SELECT doc_check('chk');
SELECT count(*) FROM chk WHERE _id = 1;
SELECT group_concat(_id) FROM chk('{a: {$gte: 0}}');
UPDATE chk_docs SET body = CAST(body AS BLOB), idkey = CAST(idkey AS BLOB);
SELECT count(*) FROM chk WHERE _id = 1;
SELECT group_concat(_id) FROM chk('{a: {$gte: 0}}');
SELECT doc_check('chk');

-- 4. Hashed: numerically equal values hash equal, decimal128 included (an
--    integral decimal beyond 2^53 is not rounded through a double).
CREATE VIRTUAL TABLE hsh USING docext;
CREATE VIRTUAL TABLE hsh_plain USING docext;
INSERT INTO hsh(doc) VALUES ('{_id: 1, a: NumberDecimal("9007199254740993")}'),
  ('{_id: 2, a: NumberLong("9007199254740993")}'), ('{_id: 3, a: NumberDecimal("-9223372036854775807")}'),
  ('{_id: 4, a: NumberLong("-9223372036854775807")}'), ('{_id: 5, a: NumberDecimal("1.5")}'),
  ('{_id: 6, a: 1}'), ('{_id: 7, a: NumberDecimal("9.007199254740993E+15")}'),
  ('{_id: 8, a: NumberDecimal("1E+30")}'), ('{_id: 9, a: 1e30}'), ('{_id: 10, a: NumberDecimal("-0")}'), ('{_id: 11, a: 0}');
INSERT INTO hsh_plain(doc) SELECT bson FROM hsh;
SELECT doc_create_index('hsh', '{a: "hashed"}');
SELECT 'long', group_concat(_id) FROM (SELECT _id FROM hsh('{a: NumberLong("9007199254740993")}') ORDER BY _id);
SELECT 'long', group_concat(_id) FROM (SELECT _id FROM hsh_plain('{a: NumberLong("9007199254740993")}') ORDER BY _id);
SELECT 'decimal', group_concat(_id) FROM (SELECT _id FROM hsh('{a: NumberDecimal("9007199254740993.0")}') ORDER BY _id);
SELECT 'decimal', group_concat(_id) FROM (SELECT _id FROM hsh_plain('{a: NumberDecimal("9007199254740993.0")}') ORDER BY _id);
SELECT 'min', group_concat(_id) FROM (SELECT _id FROM hsh('{a: NumberLong("-9223372036854775807")}') ORDER BY _id);
SELECT 'min', group_concat(_id) FROM (SELECT _id FROM hsh_plain('{a: NumberLong("-9223372036854775807")}') ORDER BY _id);
SELECT 'in', group_concat(_id) FROM (SELECT _id FROM hsh('{a: {$in: [1.5, 1e30, 0]}}') ORDER BY _id);
SELECT 'in', group_concat(_id) FROM (SELECT _id FROM hsh_plain('{a: {$in: [1.5, 1e30, 0]}}') ORDER BY _id);
SELECT json_extract(doc_explain('hsh', '{a: NumberLong("9007199254740993")}'), '$.cursor');
SELECT doc_check('hsh');
