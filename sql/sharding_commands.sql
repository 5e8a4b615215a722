-- The collection commands of INTERFACE.md §5 on a sharded collection
-- (§6: "reads, updates, deletes routed to the shards whose chunks the
-- filter can touch"), and sorted reads by the shard key in chunk order.
-- The inbox of SCENARIOS B.3, sharded by {owner, sequence} over two shards.
.load ./docext
.headers off
.mode list
ATTACH ':memory:' AS s1;
ATTACH ':memory:' AS s2;
SELECT doc_add_shard('s1');
SELECT doc_add_shard('s2');
CREATE VIRTUAL TABLE inbox USING docext;
SELECT doc_shard_collection('inbox', '{owner: 1, sequence: 1}');
-- 24 messages: ann, bob and cy, 8 each
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i<23)
INSERT INTO inbox(doc) SELECT json_object('_id', i+1,
  'owner', CASE i%3 WHEN 0 THEN 'ann' WHEN 1 THEN 'bob' ELSE 'cy' END,
  'sequence', i/3+1, 'read', json('false'), 'tags', json('[]')) FROM n;
SELECT doc_split_chunk('inbox', '{owner: "bob", sequence: 1}');
SELECT doc_split_chunk('inbox', '{owner: "cy", sequence: 5}');
SELECT json_extract(doc_move_chunk('inbox', '{owner: "bob", sequence: 3}', 's2'), '$.moved.docs');
SELECT json_extract(doc_move_chunk('inbox', '{owner: "cy", sequence: 7}', 's2'), '$.moved.docs');
SELECT min, shard, docs FROM doc_chunks('inbox');

-- 1. doc_update_many: targeted (bob's chunk is on s2 alone) and scattered
SELECT doc_update_many('inbox', '{owner: "bob"}', '{$set: {read: true}}');
SELECT (SELECT count(*) FROM inbox('{read: true}')), (SELECT count(*) FROM s2.inbox('{read: true}'));
SELECT doc_update_many('inbox', '{sequence: {$gte: 7}}', '{$push: {tags: "old"}}');
SELECT group_concat(_id) FROM inbox('{tags: "old"}', NULL, '{_id: 1}');
SELECT doc_update_many('inbox', '{owner: "nobody"}', '{$set: {x: 1}}');

-- 2. doc_update_one: sorted over the shards, positional, upserts (an
-- upsert needs the whole shard key, from the filter or the update)
SELECT doc_update_one('inbox', '{read: false}', '{$set: {flag: 1}}', '{sort: {sequence: -1, owner: -1}}');
SELECT doc FROM inbox('{flag: 1}');
SELECT doc_update_one('inbox', '{owner: "ann", tags: "old"}', '{$set: {"tags.$": "older"}}', '{sort: {_id: 1}}');
SELECT doc FROM inbox('{tags: "older"}');
SELECT doc_update_one('inbox', '{_id: 100, owner: "dee", sequence: 1}', '{$set: {read: false}}', '{upsert: true}');
SELECT doc_update_one('inbox', '{_id: 101, owner: "dee"}', '{$set: {sequence: 2}}', '{upsert: true}');
SELECT doc_update_one('inbox', '{_id: 102, owner: "dee"}', '{$set: {read: true}}', '{upsert: true}');
SELECT doc, rowid & 1023 = (SELECT num FROM docext_shards WHERE name = 's1') FROM inbox('{owner: "dee"}', NULL, '{_id: 1}');
SELECT shard, docs FROM doc_chunks('inbox') WHERE shard = 's1' AND min = '{"owner":"cy","sequence":5}';

-- 3. A document whose shard key changes moves to the shard owning its new
-- chunk (as in MongoDB 4.2 and later); a key may not become an array; a
-- command that fails on one shard leaves every shard as it was
SELECT doc_update_one('inbox', '{_id: 1}', '{$set: {owner: "zed"}}');    -- s1 to s2
SELECT doc, rowid & 1023 = (SELECT num FROM docext_shards WHERE name = 's2') FROM inbox('{_id: 1}');
SELECT (SELECT count(*) FROM s1.inbox('{_id: 1}')), (SELECT count(*) FROM s2.inbox('{_id: 1}'));
SELECT doc_find_and_modify('inbox', '{query: {_id: 1}, update: {$set: {owner: "ann"}}, new: true}');
SELECT (SELECT count(*) FROM s1.inbox('{_id: 1}')), (SELECT count(*) FROM s2.inbox('{_id: 1}'));
UPDATE inbox SET doc = '{owner: "cy", sequence: 9, read: false, tags: []}' WHERE _id = 1;  -- _id kept
SELECT doc FROM inbox WHERE _id = 1;
UPDATE inbox SET doc = '{_id: 1, owner: "ann", sequence: 1, read: false, tags: []}' WHERE _id = 1;
SELECT doc_update_one('inbox', '{_id: 1}', '{$set: {owner: ["ann"]}}');
SELECT doc_update_one('inbox', '{_id: 1}', '{$set: {_id: 1000}}');
SELECT doc_update_one('inbox', '{_id: 1}', '{$unset: {sequence: 1}}');
SELECT doc FROM inbox WHERE _id = 1;
-- _id is unique within a shard only (unless it leads the key): a move onto
-- a shard holding that _id fails with E11000, changing nothing, also in a
-- transaction and for one row
INSERT INTO s2.inbox(doc) VALUES ('{_id: 1, owner: "zz", sequence: 1}');
SELECT count(*) FROM inbox WHERE _id = 1;
SELECT doc_update_one('inbox', '{_id: 1, owner: "ann"}', '{$set: {owner: "zed"}}');
BEGIN;
UPDATE inbox SET doc = '{_id: 1, owner: "zed", sequence: 1}' WHERE _id = 1 AND doc ->> 'owner' = 'ann';
UPDATE inbox SET doc = '{_id: 1, owner: "zed", sequence: 1}'
  WHERE rowid = (SELECT rowid FROM inbox WHERE _id = 1 AND doc ->> 'owner' = 'ann');
COMMIT;
SELECT doc FROM inbox WHERE _id = 1 ORDER BY doc ->> 'owner';
DELETE FROM inbox WHERE doc_match(doc, '{_id: 1, owner: "zz"}');
UPDATE inbox SET doc = doc_update(doc, '{$set: {n: "text"}}') WHERE _id = 24;     -- cy, 8: on s2
SELECT doc_update_many('inbox', '{}', '{$inc: {n: 1}}');
SELECT (SELECT count(*) FROM inbox('{n: 1}')), (SELECT count(*) FROM s1.inbox('{n: 1}'));
SELECT doc_update_many('inbox', '{}', '{$set: {a: 1}}', '{bad: 1}');
SELECT doc_update_many('inbox', '{$bad: 1}', '{$set: {a: 1}}');
SELECT doc_update_many('inbox', '{}', '{a: 1}');

-- A $push onto a large document of a shard rewrites only the pages it
-- touches there, as in an unsharded collection, and counts toward its chunk
INSERT INTO inbox(doc) VALUES (json_object('_id', 300, 'owner', 'dee', 'sequence', 9,
  'messages', json_array(printf('%.3000c', 'a'), printf('%.3000c', 'b'), printf('%.3000c', 'c'))));
SELECT rowid & 1023 = (SELECT num FROM docext_shards WHERE name = 's2') FROM inbox WHERE _id = 300;
CREATE TEMP TABLE before AS SELECT pgno, data FROM s2.inbox_pages;
SELECT doc_update_one('inbox', '{_id: 300}', '{$push: {messages: "d"}}');
SELECT 'pages rewritten by one $push', count(*) FROM s2.inbox_pages p LEFT JOIN temp.before b USING (pgno)
 WHERE b.data IS NOT p.data;
SELECT json_array_length(doc, '$.messages'), doc ->> '$.messages[3]' FROM inbox WHERE _id = 300;
SELECT doc_delete_one('inbox', '{_id: 300}');

-- 4. doc_delete_one and doc_delete_many
SELECT doc_delete_one('inbox', '{owner: "ann", sequence: 1}');
SELECT doc_delete_many('inbox', '{tags: "old"}');
SELECT doc_delete_many('inbox', '{owner: "dee"}');
SELECT doc_count('inbox'), (SELECT count(*) FROM s1.inbox) + (SELECT count(*) FROM s2.inbox);

-- 5. doc_find_and_modify
SELECT doc_find_and_modify('inbox', '{query: {owner: "bob"}, sort: {sequence: -1}, update: {$set: {read: false}}, new: true, fields: {tags: 0}}');
SELECT doc_find_and_modify('inbox', '{query: {owner: "cy"}, sort: {sequence: 1}, remove: true}');
SELECT doc_find_and_modify('inbox', '{query: {_id: 200, owner: "eve", sequence: 1}, update: {$set: {read: false}}, upsert: true, new: true}');
SELECT doc_find_and_modify('inbox', '{query: {owner: "nobody"}, remove: true}');
SELECT doc_count('inbox');

-- 6. Inside a transaction, commands nest and roll back with it
BEGIN;
SELECT doc_delete_many('inbox', '{}');
SELECT doc_count('inbox'), count(*) FROM inbox;
ROLLBACK;
SELECT doc_count('inbox'), count(*) FROM inbox;

-- 7. doc_count, doc_distinct
SELECT doc_count('inbox', '{owner: "bob"}'), doc_count('inbox', '{read: false}');
SELECT doc_distinct('inbox', 'owner');
SELECT doc_distinct('inbox', 'sequence', '{owner: {$gte: "bob"}, read: false}');
SELECT doc_distinct('inbox', 'owner', '{$bad: 1}');

-- 8. Sorted reads: by the shard key, chunk after chunk (only the shards of
-- the chunks read are asked); by anything else, a merge
SELECT group_concat(owner || sequence, ' ') FROM (SELECT doc->>'owner' AS owner, doc->>'sequence' AS sequence
  FROM inbox('{}', NULL, '{owner: 1, sequence: 1}'));
SELECT group_concat(owner || sequence, ' ') FROM (SELECT doc->>'owner' AS owner, doc->>'sequence' AS sequence
  FROM inbox('{}', NULL, '{owner: -1, sequence: -1}', '{skip: 2, limit: 5}'));
SELECT group_concat(_id, ' ') FROM inbox('{read: false}', NULL, '{sequence: -1, _id: 1}', '{limit: 6}');

-- 9. doc_explain: the router's counts, each shard's own plan
SELECT json_extract(e, '$.clusteredType'), json_extract(e, '$.cursor'), json_extract(e, '$.n'),
       json_extract(e, '$.numShards'), json_extract(e, '$.numQueries'),
       (SELECT group_concat(key) FROM json_each(e, '$.shards')),
       json_extract(e, '$.shards.s2[0].cursor'), json_extract(e, '$.shards.s2[0].n')
  FROM (SELECT doc_explain('inbox', '{owner: "bob", sequence: {$gte: 5}}') AS e);
SELECT json_extract(e, '$.clusteredType'), json_extract(e, '$.cursor'), json_extract(e, '$.n'),
       json_extract(e, '$.nscannedObjects'), json_extract(e, '$.numShards'),
       json_extract(e, '$.numQueries'), (SELECT group_concat(key) FROM json_each(e, '$.shards'))
  FROM (SELECT doc_explain('inbox', '{read: false}') AS e);
SELECT json_extract(e, '$.clusteredType'), json_extract(e, '$.n'), json_extract(e, '$.numShards'),
       json_extract(e, '$.numQueries'), (SELECT group_concat(key) FROM json_each(e, '$.shards')),
       json_extract(e, '$.scanAndOrder')
  FROM (SELECT doc_explain('inbox', '{}', NULL, '{owner: 1, sequence: 1}', '{limit: 3}') AS e);
-- EXPLAIN QUERY PLAN: ROUTED, and idxNum bit 1 (2): a plan for a sharded
-- collection, which SQLite never runs as a one-pass write
EXPLAIN QUERY PLAN SELECT _id FROM inbox('{owner: "bob"}');
EXPLAIN QUERY PLAN UPDATE inbox SET doc = doc WHERE _id = 1;

-- 10. Indexes: made and dropped on every partition; the shard key's stays;
-- a unique index must begin with the shard key
SELECT doc_create_index('inbox', '{read: 1}');
SELECT 's1', name FROM doc_indexes('s1.inbox') UNION ALL SELECT 's2', name FROM doc_indexes('s2.inbox');
SELECT doc_drop_index('inbox', '{read: 1}');
SELECT 's1', name FROM doc_indexes('s1.inbox') UNION ALL SELECT 's2', name FROM doc_indexes('s2.inbox');
SELECT doc_drop_index('inbox', 'owner_1_sequence_1');
SELECT doc_drop_index('inbox', '_id_');
SELECT doc_drop_index('inbox', 'nothing_1');
SELECT doc_create_index('inbox', '{sequence: 1}', '{unique: true}');
SELECT doc_create_index('inbox', '{owner: 1, sequence: 1, read: 1}', '{unique: true}');
SELECT name FROM doc_indexes('inbox');
CREATE VIRTUAL TABLE users USING docext;
SELECT doc_create_index('users', '{email: 1}', '{unique: true}');
SELECT doc_shard_collection('users', '{_id: 1}');
SELECT count(*) FROM docext_chunks WHERE coll = 'users';

-- 11. doc_stats: the sums, and each shard's
SELECT json_extract(s, '$.sharded'), json_extract(s, '$.nchunks'), json_extract(s, '$.count'),
       json_extract(s, '$.nindexes'), (SELECT group_concat(key) FROM json_each(s, '$.shards')),
       json_extract(s, '$.shards.s1.count') + json_extract(s, '$.shards.s2.count'),
       json_extract(s, '$.size') = json_extract(s, '$.shards.s1.size') + json_extract(s, '$.shards.s2.size')
  FROM (SELECT doc_stats('inbox') AS s);

-- 12. TTL: expired documents are never read; doc_ttl_sweep removes them
-- from every partition (each write removes those of its partition too)
SELECT doc_config('clock', '2024-06-01T00:00:00Z');
SELECT doc_create_index('inbox', '{at: 1}', '{expireAfterSeconds: 3600}');
SELECT doc_update_many('inbox', '{sequence: {$lte: 2}}', '{$set: {at: {$date: "2024-05-01T00:00:00Z"}}}');
SELECT doc_count('inbox'), doc_count('inbox', '{sequence: {$lte: 2}}');
SELECT doc_ttl_sweep('inbox');
SELECT (SELECT count(*) FROM s1.inbox_docs) + (SELECT count(*) FROM s2.inbox_docs), doc_count('inbox');
SELECT doc_config('clock', NULL);

-- 13. doc_check checks every partition, naming the shard of a problem
SELECT doc_check('inbox');
.dbconfig defensive off
DELETE FROM s2.inbox_idx WHERE docid = (SELECT min(docid) FROM s2.inbox_idx);
SELECT doc_check('inbox') LIKE 'shard s2: %';
SELECT doc_check('s1.inbox');

-- 14. doc_analyze_shard_key reads a sharded collection through its router
SELECT json_extract(a, '$.keyCharacteristics.numDocs') = doc_count('inbox'),
       json_extract(a, '$.keyCharacteristics.numDistinctValues')
  FROM (SELECT doc_analyze_shard_key('inbox', '{owner: 1}') AS a);
