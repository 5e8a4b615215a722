-- Sharding the books (SCENARIOS.md A.15, and the inbox of B.2): a
-- collection partitioned across attached database files by a shard key,
-- in chunks that split as documents arrive and move between shards; reads
-- by the key go to one shard, others to all.
-- Run: sqlite3 < examples/sharding.sql
.load ./docext
.headers off
.mode list
.echo on

-- The shards are databases of the connection (files in real use)
ATTACH ':memory:' AS shard1;
ATTACH ':memory:' AS shard2;
ATTACH ':memory:' AS shard3;
SELECT doc_add_shard('shard1');

-- shardCollection("library.books", {_id: 1}), with chunks (-inf, 40),
-- [40, 50), [50, 60), [60, +inf)
CREATE VIRTUAL TABLE books USING docext;
SELECT doc_shard_collection('books', '{_id: 1}', '{"chunkSize": 65536}');
SELECT doc_split_chunk('books', '{_id: 40}');
SELECT doc_split_chunk('books', '{_id: 50}');
SELECT doc_split_chunk('books', '{_id: 60}');
INSERT INTO books(doc) VALUES ('{_id: 35, title: "Call of the Wild"}');
INSERT INTO books(doc) VALUES ('{_id: 40, title: "The Jungle"}');
INSERT INTO books(doc) VALUES ('{_id: 45, title: "Moby Dick"}');
INSERT INTO books(doc) VALUES ('{_id: 50, title: "Dracula"}');
SELECT * FROM doc_chunks('books');

-- Two more shards arrive: the balancer moves chunks to them
SELECT doc_add_shard('shard2');
SELECT doc_add_shard('shard3');
SELECT doc_balance('books');
SELECT min, max, shard, docs FROM doc_chunks('books');

-- Reads by _id are targeted, others go to every shard
SELECT doc_route('books', '{_id: 45}');
SELECT doc FROM books('{_id: 45}');
SELECT doc_route('books', '{title: "The Jungle"}');
SELECT doc FROM books('{title: "The Jungle"}');
-- sorted reads come back in order across the shards
SELECT _id FROM books('{}', NULL, '{_id: 1}');
SELECT doc FROM books('{}', '{_id: 0, title: 1}', '{title: 1}');
-- each shard's partition is a collection of its own
SELECT 'shard1', _id FROM shard1.books UNION ALL SELECT 'shard2', _id FROM shard2.books
  UNION ALL SELECT 'shard3', _id FROM shard3.books;

-- Writes are routed too; a chunk moves by hand
UPDATE books SET doc = '{_id: 45, title: "Moby-Dick", year: 1851}' WHERE _id = 45;
DELETE FROM books WHERE _id = 40;
SELECT doc_move_chunk('books', '{_id: 45}', 'shard3');
SELECT _id, doc FROM books ORDER BY _id;

-- Fan out on write with buckets (B.3): the inbox sharded by {owner,
-- sequence}; chunks split on their own past chunkSize, and one owner's
-- inbox is read from one shard
CREATE VIRTUAL TABLE inbox USING docext;
SELECT doc_shard_collection('inbox', '{owner: 1, sequence: 1}', '{"chunkSize": 2000}');
INSERT INTO inbox(doc) SELECT json_object('owner', o.value, 'sequence', s.value,
    'messages', json_array('message ' || s.value))
  FROM json_each('["Bob","Jane","Joe","Ann"]') AS o, generate_series(0, 9) AS s;
SELECT doc_balance('inbox');
SELECT shard, count(*), sum(docs) FROM doc_chunks('inbox') GROUP BY shard;
SELECT doc_route('inbox', '{owner: "Joe"}');
SELECT doc FROM inbox('{owner: "Joe"}', '{_id: 0, sequence: 1, messages: 1}',
  '{sequence: -1}', '{limit: 2}');
-- The collection commands reach the shards: a new message appended to
-- Joe's latest bucket (one shard), everyone's first bucket archived (all
-- shards), and the sorted read by the shard key goes chunk after chunk
SELECT doc_update_one('inbox', '{owner: "Joe"}', '{$push: {messages: "hello Joe"}}',
  '{sort: {sequence: -1}}');
SELECT doc_update_many('inbox', '{sequence: 0}', '{$set: {archived: true}}');
SELECT json_extract(e, '$.clusteredType'), json_extract(e, '$.numQueries'), json_extract(e, '$.n')
  FROM (SELECT doc_explain('inbox', '{}', NULL, '{owner: 1, sequence: 1}', '{limit: 3}') AS e);
SELECT json_extract(doc_stats('inbox'), '$.count'), doc_distinct('inbox', 'owner', '{archived: true}');
