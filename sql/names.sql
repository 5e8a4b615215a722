-- Names as hostile input: collection, schema, index and field names with
-- quotes, brackets, printf specifiers, dots, unicode, case differences,
-- keywords; functions given something that is not a docext collection.
-- Every scenario ends with doc_check(...) = 'ok' where a collection changed.
.load ./docext
.headers off
.mode list

-- 1. Index names with odd characters: kept exactly, escaped in JSON, and a
--    '|' in a name does not confuse the plan string EXPLAIN QUERY PLAN shows.
CREATE VIRTUAL TABLE ix USING docext;
INSERT INTO ix(doc) VALUES ('{_id: 1, a: 1, b: 1}'), ('{_id: 2, a: 2, b: 2}');
SELECT doc_create_index('ix', '{a: 1}', '{name: "a|P"}');
EXPLAIN QUERY PLAN SELECT doc FROM ix('{a: 1}');
SELECT doc FROM ix('{a: 1}');
SELECT doc FROM ix('{a: 1}', '{_id: 0}');
SELECT doc FROM ix WHERE filter = '{a: 2}' AND projection = '{a: 1}';
SELECT doc FROM ix('{a: {$gte: 1}}', NULL, '{a: -1}', '{hint: "a|P"}');
SELECT doc_create_index('ix', '{b: 1}', '{name: "we\"ird\\ \n %s%w%q '' ] `x`"}');
SELECT json_valid(doc_explain('ix', '{b: 1}')), doc_explain('ix', '{b: 1}') ->> 'indexName';
SELECT doc_explain('ix', '{b: 1}') ->> 'cursor';
SELECT json_valid(doc_stats('ix')), json_extract(doc_stats('ix'), '$.nindexes');
SELECT name FROM doc_indexes('ix') ORDER BY name;
SELECT doc_check('ix');
