-- Sharding the books (SCENARIOS.md A.15, and the inbox of B.3): a
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
-- sequence}. Delivering a message to a recipient bumps their counter
-- (findAndModify with upsert), then pushes the message into their bucket
-- (floor(count / 5) here; 50 in the scenario) with an upsert, which the
-- router sends to the shard of that bucket's chunk. Chunks split on their
-- own past chunkSize; an owner's inbox is read from the shards of its
-- chunks only.
CREATE VIRTUAL TABLE users USING docext;
CREATE VIRTUAL TABLE inbox USING docext;
SELECT doc_shard_collection('inbox', '{owner: 1, sequence: 1}', '{"chunkSize": 1000}');
SELECT count(doc_update_one('inbox',
    json_object('owner', r.value, 'sequence',
      (doc_find_and_modify('users', json_object('query', json_object('user_name', r.value),
        'update', json('{"$inc": {"msg_count": 1}}'), 'upsert', json('true'), 'new', json('true')))
       ->> 'msg_count' - 1) / 5),
    json_object('$push', json_object('messages', json_object('from', 'Sue', 'n', m.value))),
    '{upsert: true}'))
  FROM generate_series(1, 30) AS m, json_each('["Bob","Jane","Joe","Ann"]') AS r;
SELECT doc FROM users('{}', '{_id: 0}', '{user_name: 1}');
SELECT doc_balance('inbox');
SELECT shard, count(*), sum(docs) FROM doc_chunks('inbox') GROUP BY shard;
SELECT doc_route('inbox', '{owner: "Joe"}');
SELECT doc FROM inbox('{owner: "Joe"}', '{_id: 0, sequence: 1, messages: 1}',
  '{sequence: -1}', '{limit: 2}');
-- The collection commands reach the shards: Joe's latest bucket marked
-- (the shards of Joe's chunks), everyone's first bucket archived (all); a
-- sorted read by the shard key goes chunk after chunk, asking only the
-- shards of the chunks it reads
SELECT doc_update_one('inbox', '{owner: "Joe"}', '{$set: {seen: true}}',
  '{sort: {sequence: -1}}');
SELECT doc_update_many('inbox', '{sequence: 0}', '{$set: {archived: true}}');
SELECT json_extract(e, '$.clusteredType'), json_extract(e, '$.numQueries'), json_extract(e, '$.n')
  FROM (SELECT doc_explain('inbox', '{}', NULL, '{owner: 1, sequence: 1}', '{limit: 3}') AS e);
SELECT json_extract(doc_stats('inbox'), '$.count'), doc_distinct('inbox', 'owner', '{archived: true}');
