-- Sharded collections (INTERFACE.md §6): shards, chunks, the router, splits,
-- migration; SCENARIOS A.15 (sharding the books), B.1-B.3 (inbox keys), the
-- states a crash can leave, and bad input.
.load ./docext
.headers off
.mode list
ATTACH ':memory:' AS shard1;
ATTACH ':memory:' AS shard2;
ATTACH ':memory:' AS shard3;

-- 1. Before anything is sharded
CREATE VIRTUAL TABLE books USING docext;
SELECT doc_shard_collection('books', '{_id: 1}');               -- no shard yet
SELECT doc_add_shard('nowhere');
SELECT doc_add_shard('temp');
SELECT doc_add_shard(NULL);
SELECT doc_add_shard('shard1');
SELECT doc_add_shard('SHARD1');                                 -- names ignore case
SELECT name, num FROM docext_shards;
SELECT doc_route('books', '{_id: 1}');                          -- not sharded
SELECT * FROM doc_chunks('books');
SELECT * FROM doc_chunks('nothing');
SELECT doc_shard_collection('nothing', '{_id: 1}');
SELECT doc_shard_collection('books', '{_id: -1}');
SELECT doc_shard_collection('books', '{a: "hashed", b: "hashed"}');
SELECT doc_shard_collection('books', '{}');
SELECT doc_shard_collection('books', 'not a key');
SELECT doc_shard_collection('books', NULL);
SELECT doc_shard_collection('books', '{_id: 1}', '{chunkSize: 0}');
SELECT doc_shard_collection('books', '{_id: 1}', '{chunkSize: 1.5}');
SELECT doc_shard_collection('books', '{_id: 1}', '{chunk: 5}');
CREATE VIRTUAL TABLE shard1.books USING docext;                 -- a partition, full
INSERT INTO shard1.books(doc) VALUES ('{_id: 1, left: "behind"}');
SELECT doc_shard_collection('books', '{_id: 1}');
DROP TABLE shard1.books;
CREATE VIRTUAL TABLE shard2.elsewhere USING docext;
SELECT doc_shard_collection('shard2.elsewhere', '{_id: 1}');     -- only main's
-- nothing above changed anything
SELECT count(*) FROM docext_chunks;
SELECT doc_indexes.name FROM doc_indexes('books');

-- 2. SCENARIOS A.15: books sharded by _id; chunks (-inf, 40), [40, 50),
-- [50, 60), [60, +inf); books 35, 40, 45, 50 arrive
SELECT doc_shard_collection('books', '{_id: 1}');
SELECT doc_shard_collection('books', '{_id: 1}');               -- again
SELECT doc_split_chunk('books', '{_id: 40}');
SELECT doc_split_chunk('books', '{_id: 50}');
SELECT doc_split_chunk('books', '{_id: 60}');
SELECT doc_split_chunk('books', '{_id: 60}');                   -- a bound already
SELECT doc_split_chunk('books', '{_id: {$minKey: 1}}');
SELECT doc_split_chunk('books', '{title: "x"}');
SELECT doc_split_chunk('books', '{_id: 1, title: "x"}');
SELECT doc_split_chunk('books', '{_id: [1]}');
INSERT INTO books(doc) VALUES ('{_id: 35, title: "Call of the Wild"}');
INSERT INTO books(doc) VALUES ('{_id: 40, title: "The Jungle"}');
INSERT INTO books(doc) VALUES ('{_id: 45, title: "Moby Dick"}');
INSERT INTO books(doc) VALUES ('{_id: 50, title: "Dracula"}');
SELECT * FROM doc_chunks('books');
-- shards 2 and 3 arrive: the balancer evens out the chunks
SELECT doc_add_shard('shard2');
SELECT doc_add_shard('shard3');
SELECT doc_balance('books');
SELECT min, max, shard, docs FROM doc_chunks('books');
SELECT doc_balance('books');                                    -- balanced
-- reads by _id are targeted, others scatter/gather
SELECT doc_route('books', '{_id: 45}');
SELECT doc_route('books', '{_id: {$in: [35, 45]}}');
SELECT doc_route('books', '{_id: {$gte: 40, $lt: 50}}');
SELECT doc_route('books', '{title: "The Jungle"}');
SELECT doc_route('books', '{_id: 45, title: "Moby Dick"}');     -- a document routes too
SELECT doc FROM books('{_id: 45}');
SELECT doc FROM books('{title: "The Jungle"}');
-- in shard-key order across the shards, and by any other field
SELECT _id FROM books('{}', NULL, '{_id: 1}');
SELECT _id FROM books('{}', NULL, '{_id: -1}');
SELECT doc FROM books('{}', '{_id: 0, title: 1}', '{title: 1}');
SELECT _id FROM books('{}', NULL, '{_id: 1}', '{skip: 1, limit: 2}');
SELECT _id FROM books('{}', NULL, '{_id: 1}') LIMIT 2 OFFSET 1;
SELECT count(*) FROM books;
SELECT count(*) FROM books WHERE doc_match(doc, '{_id: {$gt: 36}}');
-- each partition is a collection of its own
SELECT 'shard1', _id FROM shard1.books UNION ALL SELECT 'shard2', _id FROM shard2.books
  UNION ALL SELECT 'shard3', _id FROM shard3.books ORDER BY 1, 2;
SELECT doc_check('shard1.books'), doc_check('shard2.books'), doc_check('shard3.books');

-- 3. Writes through the router
INSERT INTO books(doc) VALUES ('{title: "no _id: one is made, and routed"}');
SELECT count(*) FROM books('{title: "no _id: one is made, and routed"}');
DELETE FROM books WHERE doc_match(doc, '{title: "no _id: one is made, and routed"}');
UPDATE books SET doc = '{_id: 45, title: "Moby-Dick", year: 1851}' WHERE _id = 45;
SELECT doc FROM books('{_id: 45}');
UPDATE books SET doc = '{_id: 46, title: "Moby-Dick"}' WHERE _id = 45;   -- _id, the key, cannot change
DELETE FROM books WHERE _id = 40;
SELECT _id FROM books ORDER BY _id;
SELECT doc FROM books WHERE rowid = (SELECT rowid FROM books WHERE _id = 50);
INSERT INTO books(doc) VALUES ('{_id: 35, title: "again"}');     -- E11000 within its shard
INSERT OR IGNORE INTO books(doc) VALUES ('{_id: 35, title: "again"}');
INSERT OR REPLACE INTO books(doc) VALUES ('{_id: 35, title: "Call of the Wild (2nd ed.)"}');
SELECT doc FROM books('{_id: 35}');
BEGIN;
INSERT INTO books(doc) VALUES ('{_id: 70, title: "in a transaction"}');
ROLLBACK;
SELECT count(*) FROM books('{_id: 70}');
-- a statement that fails at its ninth row undoes the eight before it, on
-- every shard
CREATE VIRTUAL TABLE b USING docext;
SELECT doc_shard_collection('b', '{_id: 1}');
INSERT INTO b(doc) SELECT json_object('_id', value) FROM generate_series(1, 10);
SELECT json_extract(doc_split_chunk('b', '{_id: 5}'), '$.right.min');
SELECT json_extract(doc_move_chunk('b', '{_id: 7}', 'shard2'), '$.moved.docs');
SELECT group_concat(_id) FROM b;
UPDATE b SET doc = CASE WHEN _id = 9 THEN '{_id: 99}' ELSE json_object('_id', _id, 'touched', 1) END;
SELECT count(*) FROM b('{touched: 1}');
SELECT (SELECT count(*) FROM shard1.b('{touched: 1}')), (SELECT count(*) FROM shard2.b('{touched: 1}'));
DELETE FROM b WHERE _id <> 9 OR doc_match(doc, '{$expr: {$divide: [1, 0]}}');
SELECT count(*) FROM b;
-- a one-row INSERT has no statement journal, so a routed one fails before
-- it writes, or takes out what it wrote: in a transaction, nothing stays.
-- a. the chunk's measurement, which may split it, reads before the write
-- and records after it: here the split fails, as a document it must read
-- is damaged
-- (the damage is written into shadow tables, which defensive mode refuses)
.output /dev/null
.dbconfig defensive off
.output stdout
CREATE VIRTUAL TABLE sj USING docext;
SELECT doc_shard_collection('sj', '{k: 1}', '{chunkSize: 2000}') IS NOT NULL;
SELECT shard, docs FROM doc_chunks('sj');
INSERT INTO shard1.sj(doc) SELECT json_object('_id', value, 'k', value, 'pad', printf('%.300c', 'x'))
  FROM generate_series(1, 10);
UPDATE shard1.sj_docs SET body = x'0500000000';
BEGIN;
INSERT INTO sj(doc) VALUES (json_object('_id', 100, 'k', 100, 'pad', printf('%.500c', 'y')));
SELECT count(*) FROM shard1.sj_docs;
COMMIT;
SELECT count(*), (SELECT count(*) FROM shard1.sj_idx) FROM shard1.sj_docs;
DROP TABLE sj;
DROP TABLE shard1.sj;
-- c. an insert refused (a duplicate _id) when its chunk was due to be
-- counted and split (its bytes counted on every write at this chunk size)
-- leaves the chunks' count and layout as they were
CREATE VIRTUAL TABLE sc USING docext;
SELECT doc_shard_collection('sc', '{k: 1}', '{chunkSize: 300}') IS NOT NULL;
INSERT INTO sc(doc) SELECT json_object('_id', value, 'k', value % 5) FROM generate_series(1, 30);
SELECT count(*), sum(written) FROM docext_chunks WHERE coll = 'sc';
BEGIN;
INSERT INTO sc(doc) VALUES ('{_id: 6, k: 1, x: "new"}');
SELECT count(*), sum(written) FROM docext_chunks WHERE coll = 'sc';
INSERT INTO sc(doc) VALUES ('{_id: 31, k: 1, x: "new"}');
SELECT count(*), sum(written) > 0 FROM docext_chunks WHERE coll = 'sc';
COMMIT;
DROP TABLE sc;
DROP TABLE shard1.sc;
DROP TABLE shard2.sc;
-- b. a partition's document ids must fit the router's rowid (below 2^52):
-- one that would not is taken out again, index entries and all
CREATE VIRTUAL TABLE sk USING docext;
SELECT doc_shard_collection('sk', '{k: 1}') IS NOT NULL;
INSERT INTO sk(doc) SELECT json_object('_id', value, 'k', value) FROM generate_series(1, 3);
UPDATE shard1.sk_docs SET id = (1 << 52) - 1 WHERE id = 3;
UPDATE shard1.sk_idx SET docid = (1 << 52) - 1 WHERE docid = 3;
BEGIN;
INSERT INTO sk(doc) VALUES ('{_id: 4, k: 4}');
INSERT OR REPLACE INTO sk(doc) VALUES ('{_id: 3, k: 3, again: true}');
COMMIT;
SELECT count(*), max(id) = (1 << 52) - 1, (SELECT count(*) FROM shard1.sk_idx) FROM shard1.sk_docs;
SELECT group_concat(doc, ' ') FROM sk;
SELECT doc_check('shard1.sk');
SELECT json_extract(doc_move_chunk('sk', '{k: 1}', 'shard2'), '$.moved.docs');
SELECT group_concat(doc, ' ') FROM sk;
DROP TABLE sk;
DROP TABLE shard1.sk;
DROP TABLE shard2.sk;
.output /dev/null
.dbconfig defensive on
.output stdout

-- 4. Moving a chunk by hand, within and across transactions
SELECT doc_move_chunk('books', '{_id: 55}', 'shard1');
SELECT doc_move_chunk('books', '{_id: 55}', 'shard1');           -- where it is: no move
SELECT doc_move_chunk('books', '{_id: 55}', 'nowhere');
SELECT doc_move_chunk('books', '{_id: [55]}', 'shard2');
BEGIN;
SELECT doc_move_chunk('books', '{_id: 35}', 'shard3');
ROLLBACK;
SELECT min, max, shard, docs FROM doc_chunks('books');
SELECT _id FROM books ORDER BY _id;

-- 5. Splits on their own: small chunks split at the median as documents
-- arrive; a chunk of one key value cannot split and is jumbo (F: logs
-- sharded by host alone)
CREATE VIRTUAL TABLE logs USING docext;
SELECT doc_shard_collection('logs', '{host: 1}', '{chunkSize: 2000}');
INSERT INTO logs(doc) SELECT json_object('_id', value, 'host', 'h' || (value % 3),
    'message', 'event ' || value) FROM generate_series(1, 300);
SELECT min, max, docs, jumbo FROM doc_chunks('logs');
INSERT INTO logs(doc) VALUES ('{_id: 1000, message: "no host"}');   -- every key field
INSERT INTO logs(doc) VALUES ('{_id: 1001, host: ["a", "b"]}');     -- no arrays
SELECT doc_split_chunk('logs', '{host: "h1"}');                    -- a bound already
CREATE VIRTUAL TABLE events USING docext;
SELECT doc_shard_collection('events', '{host: 1, n: 1}', '{chunkSize: 2000}');
INSERT INTO events(doc) SELECT json_object('host', 'h' || (value % 3), 'n', value)
  FROM generate_series(1, 300);
SELECT count(*), sum(jumbo), sum(docs) FROM doc_chunks('events');
SELECT doc_balance('events') IS NOT NULL;
SELECT shard, count(*) FROM doc_chunks('events') GROUP BY shard;
SELECT count(*) FROM events;
SELECT json_extract(doc_route('events', '{host: "h1", n: 7}'), '$.targeted', '$.chunks');
SELECT json_extract(doc_route('events', '{n: 7}'), '$.targeted');
-- documents written one command at a time (upserts) count towards their
-- chunk's splits as a statement's rows do
CREATE VIRTUAL TABLE events2 USING docext;
SELECT doc_shard_collection('events2', '{host: 1, n: 1}', '{chunkSize: 2000}') IS NOT NULL;
SELECT count(doc_update_one('events2', json_object('host', 'h' || (value % 3), 'n', value),
  '{$set: {seen: true}}', '{upsert: true}')) FROM generate_series(1, 300);
SELECT count(*) > 5, sum(jumbo), sum(docs) FROM doc_chunks('events2');
DROP TABLE events2;

-- 6. A hashed key: an empty collection starts with two chunks per shard,
-- and consecutive ids spread over them
CREATE VIRTUAL TABLE games USING docext;
SELECT doc_shard_collection('games', '{_id: "hashed"}');
SELECT min, max, shard FROM doc_chunks('games');
INSERT INTO games(doc) SELECT json_object('_id', value, 'state', 'turn ' || value)
  FROM generate_series(1, 600);
SELECT shard, sum(docs) > 100 FROM doc_chunks('games') GROUP BY shard;
SELECT doc_route('games', '{_id: 17}');
SELECT json_extract(doc_route('games', '{_id: {$gt: 17}}'), '$.targeted', '$.chunks');
SELECT doc FROM games('{_id: 17}');
SELECT count(*), min(_id), max(_id) FROM games;
SELECT doc_split_chunk('games', '{_id: 12345}');
SELECT doc_split_chunk('games', '{_id: "abc"}');                   -- a hash is an integer

-- 7. B.2/B.3: an inbox by {owner, sequence}: a read of one inbox goes to one
-- shard, newest buckets first
CREATE VIRTUAL TABLE inbox USING docext;
SELECT doc_shard_collection('inbox', '{owner: 1, sequence: 1}', '{chunkSize: 1500}');
INSERT INTO inbox(doc) SELECT json_object('owner', o.value, 'sequence', s.value,
    'messages', json_array('m' || s.value))
  FROM json_each('["Bob","Jane","Joe","Ann"]') AS o, generate_series(0, 9) AS s;
SELECT doc_balance('inbox') IS NOT NULL;
SELECT json_extract(doc_route('inbox', '{owner: "Joe"}'), '$.targeted');
SELECT json_array_length(json_extract(doc_route('inbox', '{owner: "Joe"}'), '$.shards'));
SELECT doc FROM inbox('{owner: "Joe"}', '{_id: 0, owner: 1, sequence: 1}', '{sequence: -1}',
  '{limit: 2}');

-- 8. Sharding a collection that holds documents, main not a shard: they
-- move out to the first shard, split there, and stay readable throughout
CREATE VIRTUAL TABLE old USING docext;
INSERT INTO old(doc) SELECT json_object('_id', value, 'v', value * 10) FROM generate_series(1, 50);
SELECT doc_shard_collection('old', '{v: 1}', '{chunkSize: 600}');
SELECT count(*), sum(v) FROM (SELECT doc_get(doc, 'v') AS v FROM old);
SELECT count(*) FROM main.old_docs;           -- (their copies, until cleaned up)
SELECT doc_balance('old') IS NOT NULL;
SELECT count(*) FROM main.old_docs;
SELECT count(*), sum(v) FROM (SELECT doc_get(doc, 'v') AS v FROM old);
SELECT count(*) FROM doc_chunks('old') WHERE shard = 'main';
CREATE VIRTUAL TABLE arr USING docext;
INSERT INTO arr(doc) VALUES ('{_id: 1, k: [1, 2]}');
SELECT doc_shard_collection('arr', '{k: 1}');                      -- an array key

-- 9. main as a shard: its partition is the collection itself
SELECT doc_add_shard('main');
CREATE VIRTUAL TABLE local USING docext;
INSERT INTO local(doc) SELECT json_object('_id', value) FROM generate_series(1, 20);
SELECT doc_shard_collection('local', '{_id: 1}');
SELECT min, max, shard, docs FROM doc_chunks('local');
SELECT doc_split_chunk('local', '{_id: 10}');
SELECT json_extract(doc_move_chunk('local', '{_id: 15}', 'shard2'), '$.moved.docs');
SELECT count(*), sum(_id) FROM local;
SELECT doc_balance('local') IS NOT NULL;
SELECT count(*), sum(_id) FROM local;
SELECT shard, docs FROM doc_chunks('local');

-- 10. Moves between files in WAL mode, which SQLite commits file by file
-- (main first): a move leaves the source's copies until a later migration
-- command, and ownership follows the destination's marker. (Between
-- databases in memory, or files in a rollback journal, the commit takes
-- every file or none, and a move cleans up at once, as above.)
.shell rm -f build/sharding-f1.db* build/sharding-f2.db*
ATTACH 'build/sharding-f1.db' AS f1;
ATTACH 'build/sharding-f2.db' AS f2;
PRAGMA f1.journal_mode = WAL;
PRAGMA f2.journal_mode = WAL;
SELECT doc_add_shard('f1'), doc_add_shard('f2');
CREATE VIRTUAL TABLE crash USING docext;
SELECT doc_shard_collection('crash', '{_id: 1}');               -- on main, a shard
INSERT INTO crash(doc) SELECT json_object('_id', value) FROM generate_series(0, 19);
SELECT json_extract(doc_split_chunk('crash', '{_id: 10}'), '$.right.min');
BEGIN;
SELECT json_extract(doc_move_chunk('crash', '{_id: 15}', 'f1'), '$.moved.docs');
SELECT doc_move_chunk('crash', '{_id: 15}', 'f2');              -- still moving
COMMIT;
SELECT (SELECT count(*) FROM main.crash_docs), (SELECT count(*) FROM f1.crash);   -- copies
SELECT count(*), sum(_id) FROM crash;                           -- each once
SELECT count(*) FROM crash('{_id: {$gte: 10}}');
-- doc_count counts each once too: a shard's own count (from its index
-- keys) stands only where the shard holds no copy of a chunk it does not own
SELECT doc_count('crash'), doc_count('crash', '{_id: {$gte: 10}}'),
  doc_count('crash', '{_id: {$lt: 10}}'), doc_count('crash', '{_id: {$gte: 15}}');
SELECT doc_balance('crash') IS NOT NULL;                        -- cleans up first
SELECT (SELECT count(*) FROM main.crash_docs), (SELECT count(*) FROM f1.crash),
  (SELECT count(*) FROM f2.crash);
SELECT count(*), sum(_id) FROM crash;
-- a. main committed a move, the destination did not: no marker there, so
-- the source still owns the chunk, and nothing is lost
SELECT shard FROM doc_chunks('crash') WHERE min = '{"_id":{"$minKey":1}}';
-- (the simulation writes a shadow table, which defensive mode refuses)
.output /dev/null
.dbconfig defensive off
.output stdout
BEGIN;
SELECT json_extract(doc_move_chunk('crash', '{_id: 5}', 'f2'), '$.moved.docs');
DELETE FROM f2.crash_config WHERE k LIKE 'migrated:%';
DELETE FROM f2.crash WHERE _id < 10;
COMMIT;
SELECT count(*), sum(_id) FROM crash;
SELECT shard FROM doc_chunks('crash') WHERE min = '{"_id":{"$minKey":1}}';
SELECT doc_balance('crash') IS NOT NULL;                        -- gives it back
SELECT count(*), sum(_id) FROM crash;
SELECT count(*) FROM docext_chunks WHERE coll = 'crash' AND prev IS NOT NULL;
-- b. a shard committed copies that main never pointed to: orphans, never
-- shown, and cleared when a chunk moves there
INSERT INTO f2.crash(doc) VALUES ('{_id: 3, note: "an orphan copy"}');
SELECT doc FROM crash('{_id: 3}');
SELECT count(*) FROM crash;
SELECT doc_count('crash'), doc_count('crash', '{_id: 3}'), doc_count('crash', '{_id: {$lt: 10}}'),
  doc_count('crash', '{_id: {$gte: 10}}'), doc_count('crash', '{note: {$exists: true}}');
SELECT doc_check('crash'), doc_check('f1.crash'), doc_check('f2.crash');
-- c. an orphan written into a partition by hand, in a chunk another shard
-- owns: doc_count leaves it out whether or not its filter reaches it
CREATE VIRTUAL TABLE orph USING docext;
SELECT doc_shard_collection('orph', '{k: 1}') IS NOT NULL;
INSERT INTO orph(doc) SELECT json_object('_id', value, 'k', value) FROM generate_series(1, 100);
SELECT doc_split_chunk('orph', '{k: 50}') IS NOT NULL;
SELECT json_extract(doc_move_chunk('orph', '{k: 60}', 'f2'), '$.moved.docs');
SELECT json_extract(doc_move_chunk('orph', '{k: 10}', 'f1'), '$.moved.docs');
INSERT INTO f2.orph(doc) VALUES ('{_id: 1000, k: 7, orphan: true}');
SELECT doc_count('orph'), doc_count('orph', '{k: {$lt: 50}}'), doc_count('orph', '{k: {$gte: 50}}'),
  doc_count('orph', '{orphan: true}'), doc_count('orph', '{k: 7}'), doc_count('orph', '{k: {$gt: 5}}');
SELECT count(*), (SELECT count(*) FROM orph('{k: {$gt: 5}}')) FROM orph;
-- finds: a shard with no orphan where the filter reaches is read without
-- checking each document's key; f2's orphan is passed over where it is
SELECT group_concat(_id) FROM orph('{k: {$lt: 12}}', NULL, '{n: 1, _id: -1}');
SELECT group_concat(_id) FROM orph('{k: {$in: [7, 60, 1000]}}', NULL, '{_id: 1}');
SELECT json_extract(doc_explain('orph', '{}'), '$.n', '$.nChunkSkips'),
  json_extract(doc_explain('orph', '{k: {$gte: 50}}'), '$.n', '$.nChunkSkips');
DROP TABLE orph;
-- (f1 and f2 stay attached: a shard whose database is not attached is
-- an error for whatever needs it)

-- 11. doc_count and doc_create_index reach the shards; an index made on a
-- sharded collection reaches a shard added later when a chunk moves there.
-- (sql/sharding_commands has the other commands.)
SELECT doc_count('books'), doc_count('books', '{_id: {$gte: 40}}'), doc_count('books', '{title: /Call/}');
SELECT doc_count('books', '{$bad: 1}');
SELECT doc_create_index('books', '{title: 1}', '{sparse: true}');
SELECT doc_create_index('books', '{title: 1}', '{sparse: true}');      -- exists
SELECT doc_create_index('books', '{title: -1, x: "hashed", y: "hashed"}');
SELECT 'main', name FROM doc_indexes('books') UNION ALL SELECT 'shard1', name FROM doc_indexes('shard1.books')
  UNION ALL SELECT 'shard3', name FROM doc_indexes('shard3.books') ORDER BY 1, 2;
ATTACH ':memory:' AS shard4;
SELECT doc_add_shard('shard4');
SELECT json_extract(doc_move_chunk('books', '{_id: 55}', 'shard4'), '$.moved.to');
SELECT name, sparse FROM doc_indexes('shard4.books') ORDER BY name;
SELECT doc_count('shard1.books') + doc_count('shard2.books') >= 0;
ALTER TABLE books RENAME TO novels;
SELECT doc_route('books', '{_id: {$bad: 1}}');
SELECT doc_route('books', NULL);
SELECT doc_route(1, '{}');
SELECT doc_balance('nothing');
-- DROP TABLE takes a sharded collection's chunks; its partitions stay, and
-- sharding one of that name again waits until they are dropped
SELECT count(*) FROM docext_chunks WHERE coll = 'logs';
DROP TABLE logs;
SELECT count(*) FROM docext_chunks WHERE coll = 'logs';
SELECT count(*) FROM shard1.logs;
CREATE VIRTUAL TABLE logs USING docext;
SELECT doc_shard_collection('logs', '{host: 1}');
