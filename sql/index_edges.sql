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
