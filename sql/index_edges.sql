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
-- nor can a sparse one answer $exists: "a.0.b" of [{x: 1}, {"0": {b: 1}}]
-- exists for the matcher (field "0" of an element), not for the key
CREATE VIRTUAL TABLE pos2 USING docext;
INSERT INTO pos2(doc) VALUES ('{_id: 1, a: [{x: 1}, {"0": {b: 1}}]}'), ('{_id: 2, a: [{b: 1}]}'), ('{_id: 3, a: {"0": {b: 2}}}');
SELECT 'plain', group_concat(_id) FROM pos2('{"a.0.b": {$exists: true}}');
SELECT doc_create_index('pos2', '{"a.0.b": 1}', '{sparse: true}');
SELECT 'sparse', group_concat(_id), json_extract(doc_explain('pos2', '{"a.0.b": {$exists: true}}'), '$.cursor')
  FROM pos2('{"a.0.b": {$exists: true}}');
SELECT doc_check('pos2');

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

-- 5. Keys of every BSON type sort as BSON compares: an ascending and a
--    descending index give the order (and the ranges) of the plain copy.
CREATE VIRTUAL TABLE kinds USING docext;
CREATE VIRTUAL TABLE kinds_plain USING docext;
INSERT INTO kinds(doc) VALUES
  ('{_id: 1, v: MinKey}'), ('{_id: 2, v: undefined}'), ('{_id: 3, v: null}'), ('{_id: 4}'),
  ('{_id: 5, v: NaN}'), ('{_id: 6, v: NumberDecimal("NaN")}'), ('{_id: 7, v: -Infinity}'),
  ('{_id: 8, v: NumberDecimal("-1E+400")}'), ('{_id: 9, v: NumberLong("-9223372036854775808")}'),
  ('{_id: 10, v: -0.0}'), ('{_id: 11, v: NumberDecimal("-0")}'), ('{_id: 12, v: 0}'),
  ('{_id: 13, v: NumberDecimal("1E-400")}'), ('{_id: 14, v: 0.1}'), ('{_id: 15, v: NumberDecimal("0.1")}'),
  ('{_id: 16, v: 1}'), ('{_id: 17, v: NumberDecimal("1.00")}'), ('{_id: 18, v: 9007199254740992.0}'),
  ('{_id: 19, v: NumberLong("9007199254740993")}'), ('{_id: 20, v: NumberLong("9223372036854775807")}'),
  ('{_id: 21, v: 9223372036854775808.0}'), ('{_id: 22, v: NumberDecimal("1E+400")}'), ('{_id: 23, v: Infinity}'),
  ('{_id: 24, v: ""}'), ('{_id: 25, v: "a"}'), ('{_id: 26, v: "a\u0000"}'), ('{_id: 27, v: "a\u0000b"}'),
  ('{_id: 28, v: "a\u0001"}'), ('{_id: 29, v: {"$symbol": "ab"}}'), ('{_id: 30, v: "\u00e9"}'),
  ('{_id: 31, v: {}}'), ('{_id: 32, v: {a: 1}}'), ('{_id: 33, v: {a: 1, b: 1}}'), ('{_id: 34, v: {a: "x"}}'),
  ('{_id: 35, v: {b: 0}}'), ('{_id: 36, v: {a: {b: [1, {c: 2}]}}}'), ('{_id: 37, v: [[]]}'), ('{_id: 38, v: [[1, 2]]}'),
  ('{_id: 39, v: BinData(0, "")}'), ('{_id: 40, v: BinData(1, "AA==")}'), ('{_id: 41, v: BinData(0, "AAA=")}'),
  ('{_id: 42, v: ObjectId("5f0000000000000000000001")}'), ('{_id: 43, v: false}'), ('{_id: 44, v: true}'),
  ('{_id: 45, v: new Date(-1)}'), ('{_id: 46, v: new Date(0)}'), ('{_id: 47, v: Timestamp(1, 2)}'),
  ('{_id: 48, v: Timestamp(4294967295, 1)}'), ('{_id: 49, v: /a/}'), ('{_id: 50, v: /a/i}'), ('{_id: 51, v: /b/}'),
  ('{_id: 52, v: {"$code": "x"}}'), ('{_id: 53, v: MaxKey}'), ('{_id: 54, v: {a: true}}'),
  ('{_id: 55, v: {b: false}}'), ('{_id: 56, v: {a: [false]}}'), ('{_id: 57, v: {a: [true], b: 1}}');
INSERT INTO kinds_plain(doc) SELECT bson FROM kinds;
SELECT doc_create_index('kinds', '{v: 1, _id: 1}');
SELECT doc_create_index('kinds', '{v: -1, _id: -1}', '{name: "desc"}');
SELECT group_concat(_id) FROM kinds_plain('{}', NULL, '{v: 1, _id: 1}');
SELECT (SELECT group_concat(_id) FROM kinds('{}', NULL, '{v: 1, _id: 1}', '{"hint": "v_1__id_1"}'))
     = (SELECT group_concat(_id) FROM kinds_plain('{}', NULL, '{v: 1, _id: 1}')),
       (SELECT group_concat(_id) FROM kinds('{}', NULL, '{v: -1, _id: -1}', '{"hint": "desc", "limit": 60}'))
     = (SELECT group_concat(_id) FROM kinds_plain('{}', NULL, '{v: -1, _id: -1}')),
       json_extract(doc_explain('kinds', '{}', NULL, '{v: -1, _id: -1}', '{"limit": 60}'), '$.scanAndOrder');
-- every value against every other: equality and the four ranges, with and without
-- the index (undefined cannot be an operand, nor a regex of a range)
WITH ops(op) AS (VALUES ('$eq'), ('$gt'), ('$gte'), ('$lt'), ('$lte')),
     q(f) AS (SELECT json_object('v', json_object(op, json(doc_json(doc_bson(x.bson), 'canonical') -> 'v')))
              FROM kinds_plain AS x, ops WHERE x._id NOT IN (2, 4)
                AND (op = '$eq' OR doc_type(x.bson, 'v') <> 'regex'))
SELECT count(*), sum((SELECT group_concat(_id) FROM (SELECT _id FROM kinds(f) ORDER BY _id))
                 IS (SELECT group_concat(_id) FROM (SELECT _id FROM kinds_plain(f) ORDER BY _id))),
       sum((SELECT count(*) FROM kinds(f)) = doc_count('kinds', f))
FROM q;
SELECT doc_check('kinds');

-- 6. TTL: an expired document is never returned, whatever reads it: a
--    count(*), doc_count, a covered projection, an _id lookup, a hint, a
--    command. An array of dates expires at its earliest; a nested array, a
--    string or a number never expire. Any write sweeps.
SELECT doc_config('clock', '2013-03-01T00:00:00Z');
CREATE VIRTUAL TABLE ttl USING docext;
INSERT INTO ttl(doc) VALUES
  ('{_id: 1, at: ISODate("2013-02-28T23:00:00Z"), k: 1}'),
  ('{_id: 2, at: ISODate("2013-03-01T05:00:00Z"), k: 2}'),
  ('{_id: 3, at: [ISODate("2013-03-09T00:00:00Z"), ISODate("2013-01-01T00:00:00Z")], k: 3}'),
  ('{_id: 4, at: [[ISODate("2013-01-01T00:00:00Z")]], k: 4}'),
  ('{_id: 5, at: "2013-01-01", k: 5}'),
  ('{_id: 6, at: 0, k: 6}'),
  ('{_id: 7, k: 7}');
SELECT doc_create_index('ttl', '{at: 1}', '{expireAfterSeconds: 600}');
SELECT doc_create_index('ttl', '{k: 1}');
SELECT 'scan', group_concat(_id) FROM ttl;
SELECT 'count', count(*), doc_count('ttl'), doc_count('ttl', '{k: {$gte: 1}}') FROM ttl;
SELECT 'count k', count(*) FROM ttl('{k: {$gte: 1}}');
SELECT 'covered', group_concat(doc->>'k'), json_extract(doc_explain('ttl', '{k: {$gte: 1}}', '{k: 1, _id: 0}'), '$.n')
  FROM ttl('{k: {$gte: 1}}', '{k: 1, _id: 0}');
SELECT 'by _id', count(*) FROM ttl WHERE _id = 1;
SELECT 'by _id in', group_concat(_id) FROM ttl WHERE _id IN (1, 2, 3);
SELECT 'filter _id', count(*) FROM ttl('{_id: 1}');
SELECT 'hint', group_concat(_id) FROM ttl('{}', NULL, NULL, '{"hint": "at_1"}');
SELECT 'sorted', group_concat(_id) FROM ttl('{}', NULL, '{k: -1}', '{"limit": 3}');
SELECT 'find_and_modify', doc_find_and_modify('ttl', '{query: {k: 1}, update: {$set: {seen: true}}}');
SELECT 'update_one', doc_update_one('ttl', '{_id: 3}', '{$set: {seen: true}}');
SELECT 'swept', count(*) FROM ttl_docs;
-- the clock moves on: document 2 expires too, hidden at once, swept by the next write
SELECT doc_config('clock', '2013-03-01T05:10:01Z');
SELECT 'later', group_concat(_id) FROM ttl;
DELETE FROM ttl WHERE _id = 7;
SELECT 'swept', group_concat(id) FROM (SELECT id FROM ttl_docs ORDER BY id);
SELECT doc_config('clock', NULL) IS NULL;
SELECT doc_check('ttl');

-- 7. A sort never comes from a sparse or partial index, so no document is
--    dropped; a hinted one gives what it holds, as in MongoDB.
CREATE VIRTUAL TABLE sp USING docext;
INSERT INTO sp(doc) VALUES ('{_id: 1, a: 3}'), ('{_id: 2}'), ('{_id: 3, a: 1}'), ('{_id: 4, a: null}'), ('{_id: 5, b: 2}');
SELECT doc_create_index('sp', '{a: 1}', '{sparse: true}');
SELECT doc_create_index('sp', '{b: 1}', '{partialFilterExpression: {b: {$gt: 0}}}');
SELECT 'sort', group_concat(_id) FROM sp('{}', NULL, '{a: 1}', '{"limit": 10}');
SELECT 'sort b', group_concat(_id) FROM sp('{}', NULL, '{b: -1}', '{"limit": 10}');
SELECT 'null', group_concat(_id), json_extract(doc_explain('sp', '{a: null}'), '$.cursor') FROM sp('{a: null}');
SELECT 'exists', group_concat(_id), json_extract(doc_explain('sp', '{a: {$exists: true}}'), '$.cursor') FROM sp('{a: {$exists: true}}');
SELECT 'not exists', group_concat(_id), json_extract(doc_explain('sp', '{a: {$exists: false}}'), '$.cursor') FROM sp('{a: {$exists: false}}');
SELECT 'ne', group_concat(_id), json_extract(doc_explain('sp', '{a: {$ne: 3}}'), '$.cursor') FROM sp('{a: {$ne: 3}}');
SELECT 'hinted', group_concat(_id) FROM sp('{}', NULL, '{a: 1}', '{"hint": "a_1"}');
SELECT 'partial', json_extract(doc_explain('sp', '{b: {$gt: 1}}'), '$.cursor'), json_extract(doc_explain('sp', '{b: {$gt: -1}}'), '$.cursor');
SELECT doc_check('sp');

-- 8. Regexes in $in give no bounds; a prefix regex bounds only without i
--    (and m, x); $or falls back to a scan when a branch has no index.
CREATE VIRTUAL TABLE rx USING docext;
INSERT INTO rx(doc) VALUES ('{_id: 1, s: "abc"}'), ('{_id: 2, s: "ABC"}'), ('{_id: 3, s: "xabc"}'), ('{_id: 4, s: "ab"}'),
  ('{_id: 5, s: /^ab/}'), ('{_id: 6, s: "line\nabc"}'), ('{_id: 7, t: 1}');
SELECT doc_create_index('rx', '{s: 1}');
SELECT 'in', group_concat(_id), json_extract(doc_explain('rx', '{s: {$in: [/^ab/, "xabc"]}}'), '$.indexBounds')
  FROM (SELECT _id FROM rx('{s: {$in: [/^ab/, "xabc"]}}') ORDER BY _id);
SELECT 'i', group_concat(_id), json_extract(doc_explain('rx', '{s: /^ab/i}'), '$.indexBounds')
  FROM (SELECT _id FROM rx('{s: /^ab/i}') ORDER BY _id);
SELECT 'm', group_concat(_id), json_extract(doc_explain('rx', '{s: {$regex: "^abc", $options: "m"}}'), '$.indexBounds')
  FROM (SELECT _id FROM rx('{s: {$regex: "^abc", $options: "m"}}') ORDER BY _id);
SELECT 'prefix', group_concat(_id), json_extract(doc_explain('rx', '{s: /^ab/}'), '$.indexBounds')
  FROM (SELECT _id FROM rx('{s: /^ab/}') ORDER BY _id);
SELECT 'or', group_concat(_id), json_extract(doc_explain('rx', '{$or: [{s: "ab"}, {t: 1}]}'), '$.cursor')
  FROM (SELECT _id FROM rx('{$or: [{s: "ab"}, {t: 1}]}') ORDER BY _id);
SELECT doc_check('rx');

-- 9. Indexes that share a key pattern (different partial filters) are
--    dropped by name: dropping by key pattern would be ambiguous.
CREATE VIRTUAL TABLE amb USING docext;
SELECT doc_create_index('amb', '{a: 1}', '{partialFilterExpression: {b: 1}}');
SELECT doc_create_index('amb', '{a: 1}', '{name: "a_b2", partialFilterExpression: {b: 2}}');
SELECT doc_drop_index('amb', '{a: 1}');
SELECT group_concat(name) FROM doc_indexes('amb');
SELECT doc_drop_index('amb', 'a_b2');
SELECT doc_drop_index('amb', '{a: 1}');
SELECT group_concat(name) FROM doc_indexes('amb');
SELECT doc_check('amb');

-- 10. doc_check on damaged documents and pages: each damage is reported,
--     reads fail with a docext: error instead of crashing, and the report is
--     'ok' again once the damage is undone.
CREATE VIRTUAL TABLE dmg USING docext;
INSERT INTO dmg(doc) VALUES ('{_id: 1, a: 1}'), ('{_id: 2, a: 2, big: "' || printf('%.*c', 9000, 'z') || '"}'),
  ('{_id: 3, a: 3}');
SELECT doc_create_index('dmg', '{a: 1}');
SELECT 'paged', count(*) FROM dmg_docs WHERE pages IS NOT NULL;
SELECT doc_check('dmg');
CREATE TEMP TABLE dmg_docs_saved AS SELECT * FROM dmg_docs;
CREATE TEMP TABLE dmg_pages_saved AS SELECT * FROM dmg_pages;
-- a page missing
DELETE FROM dmg_pages WHERE pgno = (SELECT min(pgno) FROM dmg_pages);
SELECT doc_check('dmg');
SELECT count(*), group_concat(doc->>'a') FROM dmg('{a: {$gte: 1}}');
INSERT INTO dmg_pages SELECT * FROM dmg_pages_saved WHERE pgno NOT IN (SELECT pgno FROM dmg_pages);
-- a page shorter than its list says, and a size that does not match
UPDATE dmg_pages SET data = substr(data, 1, 10) WHERE pgno = (SELECT min(pgno) FROM dmg_pages);
UPDATE dmg_docs SET size = size + 1 WHERE id = 1;
SELECT doc_check('dmg');
SELECT doc FROM dmg WHERE _id = 1;
UPDATE dmg_pages SET data = (SELECT data FROM dmg_pages_saved AS s WHERE s.pgno = dmg_pages.pgno);
UPDATE dmg_docs SET size = size - 1 WHERE id = 1;
-- a malformed page list, a document with both a body and pages, one with neither
UPDATE dmg_docs SET pages = x'FFFFFFFFFFFFFFFFFFFFFF' WHERE id = 2;
UPDATE dmg_docs SET pages = x'0105' WHERE id = 1;
UPDATE dmg_docs SET body = NULL WHERE id = 3;
SELECT doc_check('dmg');
SELECT count(*), group_concat(doc->>'a') FROM dmg('{a: 1}');
UPDATE dmg_docs SET body = (SELECT body FROM dmg_docs_saved AS s WHERE s.id = dmg_docs.id),
                    pages = (SELECT pages FROM dmg_docs_saved AS s WHERE s.id = dmg_docs.id);
-- invalid BSON; _id not first (valid BSON, same size): corrupt to readers
-- too, as writers rely on _id first
UPDATE dmg_docs SET body = zeroblob(size) WHERE id = 1;
UPDATE dmg_docs SET body = doc_bson('{a: 3, _id: 3}') WHERE id = 3;
SELECT doc_check('dmg');
SELECT group_concat(_id) FROM dmg('{a: 3}');
SELECT group_concat(_id) FROM dmg('{a: 1}');
UPDATE dmg_docs SET body = (SELECT body FROM dmg_docs_saved AS s WHERE s.id = dmg_docs.id);
SELECT doc_check('dmg');
-- document 1 made to read document 2's pages: the pages are shared, and
-- document 1's _id key and index entries no longer fit what it holds
UPDATE dmg_docs SET body = NULL, pages = (SELECT pages FROM dmg_docs WHERE id = 2),
                    size = (SELECT size FROM dmg_docs WHERE id = 2) WHERE id = 1;
SELECT doc_check('dmg');
UPDATE dmg_docs SET body = (SELECT body FROM dmg_docs_saved AS s WHERE s.id = dmg_docs.id),
                    pages = (SELECT pages FROM dmg_docs_saved AS s WHERE s.id = dmg_docs.id),
                    size = (SELECT size FROM dmg_docs_saved AS s WHERE s.id = dmg_docs.id);
SELECT doc_check('dmg');
DELETE FROM dmg WHERE _id = 2;
SELECT 'pages left', count(*) FROM dmg_pages;
SELECT doc_check('dmg');

-- 11. Compound bounds on one array's fields (index {"a.b": 1, "a.c": 1},
-- multikey on a). Without $elemMatch, a.b and a.c may come from different
-- elements: only a.b bounds the keys. Inside one object-form $elemMatch on
-- a, one element holds both, so a.c bounds the keys too (MongoDB's rule for
-- compound multikey bounds), one condition per field as on any multikey path.
CREATE VIRTUAL TABLE elem USING docext;
SELECT doc_create_index('elem', '{"a.b": 1, "a.c": 1}');
SELECT doc_create_index('elem', '{"a.x.b": 1, "a.x.c": 1}');
INSERT INTO elem(doc) VALUES
  ('{_id: 1, a: [{b: 1, c: 2}, {b: 3, c: 4}]}'),
  ('{_id: 2, a: [{b: 1, c: 4}, {b: 3, c: 2}]}'),
  ('{_id: 3, a: [{b: 1, c: [1, 9]}]}'),
  ('{_id: 4, a: [{b: 1, c: 0}, {b: 7, c: 2}]}'),
  ('{_id: 5, a: [{x: [{b: 1, c: 0}, {b: 0, c: 2}]}]}'),
  ('{_id: 6, a: [{b: [1, 8], c: 2}]}');
SELECT json_extract(doc_explain('elem', '{"a.b": 1, "a.c": 2}'), '$.indexBounds', '$.n', '$.nscanned');
SELECT group_concat(_id) FROM elem('{"a.b": 1, "a.c": 2}');
SELECT json_extract(doc_explain('elem', '{a: {$elemMatch: {b: 1, c: 2}}}'), '$.indexBounds', '$.n', '$.nscanned');
SELECT group_concat(_id) FROM elem('{a: {$elemMatch: {b: 1, c: 2}}}');
SELECT json_extract(doc_explain('elem', '{a: {$elemMatch: {b: {$in: [1, 7]}, c: {$lte: 2}}}}'), '$.indexBounds', '$.n');
SELECT group_concat(_id) FROM elem('{a: {$elemMatch: {b: {$in: [1, 7]}, c: {$lte: 2}}}}');
-- c: [1, 9] meets {$gte: 2, $lte: 3} with two of its values: one bound only
SELECT json_extract(doc_explain('elem', '{a: {$elemMatch: {b: 1, c: {$gte: 2, $lte: 3}}}}'), '$.indexBounds', '$.n');
SELECT group_concat(_id) FROM elem('{a: {$elemMatch: {b: 1, c: {$gte: 2, $lte: 3}}}}');
-- a.b's bounds come from another condition (a.b: 1, not the $elemMatch's
-- b > 5): the element with c 2 need not have b 1, so a.c is not bounded
SELECT json_extract(doc_explain('elem', '{"a.b": 1, a: {$elemMatch: {b: {$gt: 5}, c: 2}}}'), '$.indexBounds', '$.n');
SELECT group_concat(_id) FROM elem('{"a.b": 1, a: {$elemMatch: {b: {$gt: 5}, c: 2}}}');
-- two $elemMatch may meet two elements: no compound bounds
SELECT json_extract(doc_explain('elem', '{$and: [{a: {$elemMatch: {b: 1}}}, {a: {$elemMatch: {c: 2}}}]}'), '$.indexBounds', '$.n');
SELECT group_concat(_id) FROM elem('{$and: [{a: {$elemMatch: {b: 1}}}, {a: {$elemMatch: {c: 2}}}]}');
-- a.x.b and a.x.c under an $elemMatch on a: x may be an array whose
-- elements hold b and c apart, so a.x.c is not bounded
SELECT json_extract(doc_explain('elem', '{a: {$elemMatch: {"x.b": 1, "x.c": 2}}}', NULL, NULL, '{hint: "a.x.b_1_a.x.c_1"}'), '$.indexBounds', '$.n');
SELECT group_concat(_id) FROM elem('{a: {$elemMatch: {"x.b": 1, "x.c": 2}}}', NULL, NULL, '{hint: "a.x.b_1_a.x.c_1"}');
SELECT doc_check('elem');
-- where x has never been an array, a.x.b and a.x.c come from one x of the
-- element: they compound (b and c may still be arrays, one at a time)
CREATE VIRTUAL TABLE elem2 USING docext;
SELECT doc_create_index('elem2', '{"a.x.b": 1, "a.x.c": 1}');
INSERT INTO elem2(doc) VALUES
  ('{_id: 1, a: [{x: {b: 1, c: 2}}, {x: {b: 3, c: 4}}]}'),
  ('{_id: 2, a: [{x: {b: 1, c: 4}}, {x: {b: 3, c: [2, 9]}}]}'),
  ('{_id: 3, a: [{x: {b: [0, 1], c: 2}}]}');
SELECT json_extract(doc_explain('elem2', '{a: {$elemMatch: {"x.b": 1, "x.c": 2}}}'), '$.indexBounds', '$.n', '$.nscanned');
SELECT group_concat(_id) FROM elem2('{a: {$elemMatch: {"x.b": 1, "x.c": 2}}}');
SELECT doc_check('elem2');

-- 12. Multikey paths: an index keeps, per field, the components of its path
-- where some document had an array (MongoDB's multiKeyPaths, never
-- cleared). Bounds intersect and compound, and sorts come from the index,
-- wherever no array was met; only where one was do they give way.
CREATE VIRTUAL TABLE mkp USING docext;
SELECT doc_create_index('mkp', '{tags: 1, pages: 1}');
SELECT doc_create_index('mkp', '{"h.p": 1, "h.q": 1}');
INSERT INTO mkp(doc) VALUES
  ('{_id: 1, tags: ["a", "b"], pages: 100, h: {p: [1, 2], q: 5}, k: [1, 9]}'),
  ('{_id: 2, tags: ["a"], pages: 250, h: {p: 1, q: 7}, k: [5]}'),
  ('{_id: 3, tags: "a", pages: 400, h: {p: 2, q: 5}, k: 7}'),
  ('{_id: 4, tags: ["b", "c"], pages: 300, h: {p: 1, q: 6}}');
SELECT name, json_extract(doc_json(spec), '$.multikeyPaths') FROM mkp_idxdef ORDER BY id;
-- pages never held an array: its two bounds intersect, and a sort on it
-- after one tag comes from the index (limit 2 reads 2 entries)
SELECT json_extract(doc_explain('mkp', '{tags: "a", pages: {$gt: 200, $lt: 300}}'), '$.indexBounds', '$.n', '$.nscanned');
SELECT group_concat(_id) FROM mkp('{tags: "a", pages: {$gt: 200, $lt: 300}}');
SELECT json_extract(doc_explain('mkp', '{tags: "a"}', NULL, '{pages: -1}', '{limit: 2}'), '$.scanAndOrder', '$.nscanned');
SELECT group_concat(_id) FROM (SELECT _id FROM mkp('{tags: "a"}', NULL, '{pages: -1}') LIMIT 2);
-- one tag and a range of pages meet each document once: a count is the
-- number of entries; two tags could meet a document twice, so the count
-- drops the repeats, still from the entries alone
SELECT json_extract(doc_explain('mkp', '{tags: "a", pages: {$gt: 50}}', NULL, NULL, '{count: true}'),
                    '$.n', '$.indexOnly', '$.nscannedObjects');
SELECT json_extract(doc_explain('mkp', '{tags: {$in: ["a", "b"]}, pages: {$gt: 50}}', NULL, NULL, '{count: true}'),
                    '$.n', '$.indexOnly', '$.nscanned', '$.nscannedObjects');
SELECT doc_count('mkp', '{tags: "a", pages: {$gt: 50}}'), doc_count('mkp', '{tags: {$in: ["a", "b"]}, pages: {$gt: 50}}');
-- h is never an array (h.p is): h.p and h.q come from h's one document,
-- so their bounds compound
SELECT json_extract(doc_explain('mkp', '{"h.p": 1, "h.q": {$gte: 5, $lt: 7}}'), '$.indexBounds', '$.n', '$.nscanned');
SELECT group_concat(_id) FROM mkp('{"h.p": 1, "h.q": {$gte: 5, $lt: 7}}');
-- bounds on h.p do not intersect: [1, 2] meets {$gt: 1.5, $lt: 1.5}, one
-- condition with each value
SELECT json_extract(doc_explain('mkp', '{"h.p": {$gt: 1.5, $lt: 1.5}}'), '$.indexBounds', '$.n');
SELECT group_concat(_id) FROM mkp('{"h.p": {$gt: 1.5, $lt: 1.5}}');
-- a sort on an array field stays in memory: an array sorts by its least
-- element (ascending) or its greatest (descending), even one the filter's
-- bounds leave out, where the index would meet it later
SELECT doc_create_index('mkp', '{k: 1}');
SELECT json_extract(doc_explain('mkp', '{k: {$gte: 4}}', NULL, '{k: 1}'), '$.cursor', '$.scanAndOrder');
SELECT group_concat(_id) FROM mkp('{k: {$gte: 4}}', NULL, '{k: 1}');
SELECT group_concat(_id) FROM mkp('{k: {$lte: 6}}', NULL, '{k: -1}');
-- a document puts an array on pages: the paths grow, pages' bounds no
-- longer intersect and its sort is done in memory
INSERT INTO mkp(doc) VALUES ('{_id: 5, tags: "a", pages: [150, 350]}');
SELECT name, json_extract(doc_json(spec), '$.multikeyPaths') FROM mkp_idxdef ORDER BY id;
SELECT json_extract(doc_explain('mkp', '{tags: "a", pages: {$gt: 200, $lt: 300}}'), '$.indexBounds', '$.n');
SELECT group_concat(_id) FROM mkp('{tags: "a", pages: {$gt: 200, $lt: 300}}');
SELECT json_extract(doc_explain('mkp', '{tags: "a"}', NULL, '{pages: -1}', '{limit: 2}'), '$.scanAndOrder');
SELECT group_concat(_id) FROM (SELECT _id FROM mkp('{tags: "a"}', NULL, '{pages: -1}') LIMIT 2);
SELECT json_extract(doc_explain('mkp', '{tags: "a", pages: {$gt: 50}}', NULL, NULL, '{count: true}'),
                    '$.n', '$.indexOnly', '$.nscanned', '$.nscannedObjects');
SELECT doc_count('mkp', '{tags: "a", pages: {$gt: 50}}');
SELECT doc_check('mkp');
-- paths that lack an array a document has are damage: doc_check says so
CREATE TEMP TABLE mkp_saved AS SELECT * FROM mkp_idxdef;
UPDATE mkp_idxdef SET spec = doc_bson(json_set(doc_json(spec, 'canonical'), '$.multikeyPaths',
                                               json('[{"$numberLong": "1"}, {"$numberLong": "0"}]')))
WHERE name = 'tags_1_pages_1';
SELECT doc_check('mkp');
-- a spec without multikeyPaths (as docext wrote them before it kept them)
-- counts every component as an array: bounds give way on every field
UPDATE mkp_idxdef SET spec = doc_bson(json_remove(doc_json(spec, 'canonical'), '$.multikeyPaths'))
WHERE name = 'h.p_1_h.q_1';
UPDATE mkp_config SET v = -1 WHERE k = 'idxtag';
SELECT json_extract(doc_explain('mkp', '{"h.p": 1, "h.q": {$gte: 5, $lt: 7}}'), '$.indexBounds', '$.n');
SELECT group_concat(_id) FROM mkp('{"h.p": 1, "h.q": {$gte: 5, $lt: 7}}');
UPDATE mkp_idxdef SET spec = (SELECT spec FROM mkp_saved AS s WHERE s.id = mkp_idxdef.id);
UPDATE mkp_config SET v = -2 WHERE k = 'idxtag';
SELECT doc_check('mkp');
-- 13. Covered queries on a multikey index (MongoDB's rule): the index
-- covers a projection of its fields on which no document has an array. Each
-- entry keeps the document's values of those fields (vals), kept exact
-- (1, 1.0 and NumberLong(1) are one key but three values).
CREATE VIRTUAL TABLE cov USING docext;
INSERT INTO cov(doc) VALUES
  ('{_id: 1, tags: ["a", "b"], title: "T1", n: 1}'),
  ('{_id: 2, tags: ["b", "c"], title: "T2", n: 2.5}'),
  ('{_id: 3, tags: "b", title: "T3", n: NumberLong(3)}');
SELECT doc_create_index('cov', '{tags: 1, title: 1, n: 1}');
-- multikeyVals is docext's own record, not an option
SELECT doc_create_index('cov', '{n: 1}', '{multikeyVals: true}');
SELECT doc_json(bson, 'canonical') FROM cov('{tags: "b"}', '{title: 1, n: 1, _id: 0}');
SELECT json_extract(doc_explain('cov', '{tags: "b"}', '{title: 1, n: 1, _id: 0}'),
                    '$.cursor', '$.n', '$.nscanned', '$.nscannedObjects', '$.indexOnly');
-- tags holds arrays: projecting it reads the documents
SELECT doc FROM cov('{tags: "b"}', '{tags: 1, _id: 0}');
SELECT json_extract(doc_explain('cov', '{tags: "b"}', '{tags: 1, _id: 0}'), '$.nscannedObjects', '$.indexOnly');
-- n changes type but not key: every entry of the document gets the new value
UPDATE cov SET doc = doc_update(bson, '{$set: {n: 1.0}}') WHERE _id = 1;
SELECT doc_json(bson, 'canonical') FROM cov('{tags: "a"}', '{n: 1, _id: 0}');
SELECT count(*) FROM cov_idx WHERE doc_json(vals) = '{"title":"T1","n":1.0}';
SELECT doc_check('cov');
-- a document puts an array on title: title is no longer covered, n still is
INSERT INTO cov(doc) VALUES ('{_id: 4, tags: "b", title: ["T4", "T5"], n: 4}');
SELECT json_extract(doc_explain('cov', '{tags: "b"}', '{title: 1, _id: 0}'), '$.nscannedObjects', '$.indexOnly');
SELECT json_extract(doc_explain('cov', '{tags: "b"}', '{n: 1, _id: 0}'), '$.nscannedObjects', '$.indexOnly');
SELECT doc FROM cov('{tags: "b"}', '{n: 1, _id: 0}');
SELECT doc FROM cov('{tags: "b"}', '{title: 1, _id: 0}');
-- an index built over documents that hold arrays covers as well
SELECT doc_drop_index('cov', 'tags_1_title_1_n_1');
SELECT doc_create_index('cov', '{tags: 1, n: 1}');
SELECT doc FROM cov('{tags: "b"}', '{n: 1, _id: 0}');
SELECT json_extract(doc_explain('cov', '{tags: "b"}', '{n: 1, _id: 0}'), '$.nscannedObjects', '$.indexOnly');
-- stale values are damage, and doc_check says so
CREATE TEMP TABLE cov_saved AS SELECT * FROM cov_idx;
UPDATE cov_idx SET vals = doc_bson('{n: 99}') WHERE docid = (SELECT min(docid) FROM cov_idx);
SELECT doc_check('cov');
-- a multikey index written before docext kept its vals (no multikeyVals in
-- its spec) may hold stale ones: it never covers, and doc_check ignores them
UPDATE cov_idxdef SET spec = doc_bson(json_remove(doc_json(spec, 'canonical'), '$.multikeyVals'))
WHERE name = 'tags_1_n_1';
UPDATE cov_config SET v = -3 WHERE k = 'idxtag';
SELECT json_extract(doc_explain('cov', '{tags: "b"}', '{n: 1, _id: 0}'), '$.nscannedObjects', '$.indexOnly');
SELECT doc FROM cov('{tags: "b"}', '{n: 1, _id: 0}');
SELECT doc_check('cov');
DELETE FROM cov_idx;
INSERT INTO cov_idx SELECT * FROM cov_saved;
UPDATE cov_config SET v = -4 WHERE k = 'idxtag';
