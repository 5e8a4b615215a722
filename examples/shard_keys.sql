-- Choosing a shard key (SCENARIOS.md F): doc_analyze_shard_key judges a
-- candidate key on a collection as it is, by the five criteria of a good
-- shard key: cardinality, write distribution, read distribution, read
-- targeting and read locality. It simulates the collection cut into chunks
-- on N shards; examples/sharding.sql then shards collections for real.
-- Run: sqlite3 < examples/shard_keys.sql
.load ./docext
.headers off
.mode list
.echo on

-- Logs from four hosts, one document per event
CREATE VIRTUAL TABLE logs USING docext;
INSERT INTO logs(doc) SELECT json_object('host', 'web' || (value % 4),
    'time', json_object('$date', 1362096000000 + value * 1000), 'msg', 'event ' || value)
  FROM generate_series(1, 4000);

-- 1. Cardinality: by host alone there are four values, each more than a
-- chunk: four chunks that can never split (jumbo)
SELECT json_extract(doc_analyze_shard_key('logs', '{ host: 1 }', '{ shards: 4 }'),
    '$.keyCharacteristics.numDistinctValues', '$.keyCharacteristics.jumbo');
-- ... by { host: 1, time: 1 } every document has a value of its own
SELECT json_extract(doc_analyze_shard_key('logs', '{ host: 1, time: 1 }', '{ shards: 4 }'),
    '$.keyCharacteristics.isUnique', '$.keyCharacteristics.jumbo.numJumboChunks');

-- 2. Write distribution: a time (or ObjectId) key is monotonic, and every
-- new document lands in the last chunk, on one shard
SELECT json_extract(doc_analyze_shard_key('logs', '{ time: 1 }', '{ shards: 4 }'),
    '$.keyCharacteristics.monotonicity', '$.writeDistribution');
-- ... hashed, the same key spreads the inserts
SELECT json_extract(doc_analyze_shard_key('logs', '{ time: "hashed" }', '{ shards: 4 }'),
    '$.writeDistribution.percentageOfInsertsToHottestShard') < 35 AS spread;

-- 3. Read targeting and distribution: a query names the shard key's
-- leading field, or it goes to every shard (scatter/gather)
SELECT json_extract(doc_analyze_shard_key('logs', '{ host: 1, time: 1 }',
    '{ shards: 4, queries: [ { host: "web1" },
                             { host: "web1", time: { $gte: ISODate("2013-03-01T00:30:00Z") } },
                             { msg: "event 7" } ] }'),
    '$.queries[0].targeting', '$.queries[1].targeting', '$.queries[2].targeting',
    '$.readDistribution.percentageOfScatterGatherReads');

-- 4. Read locality: the latest 10 events of a host are on one shard
SELECT json_extract(doc_analyze_shard_key('logs', '{ host: 1, time: 1 }',
    '{ shards: 4, queries: [ { filter: { host: "web2" }, sort: { time: -1 }, limit: 10 } ] }'),
    '$.queries[0].resultShards', '$.queries[0].docsReturned', '$.readLocality');

-- 5. The whole report for one key
SELECT doc_analyze_shard_key('logs', '{ host: 1, time: 1 }',
    '{ shards: 2, queries: [ { filter: { host: "web3" }, sort: { time: -1 }, limit: 5 } ] }');
