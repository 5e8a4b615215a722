-- A messaging inbox (SCENARIOS.md B.1-B.4): fan out on read, fan out on
-- write, fan out on write with buckets, history retention (the shard keys
-- of B.1 and B.2 wait for sharding). Run: sqlite3 < examples/inbox.sql
.load ./docext
.headers off
.mode list
.echo on
SELECT doc_config('clock', '2013-03-01T00:00:00Z');

-- B.1 fan out on read: one document per message, read through { to: 1, sent: 1 }.
-- to is an array, sent never is: the index gives the inbox newest first
-- (read backward), so the limit reads only the entries it returns
CREATE VIRTUAL TABLE messages USING docext;
SELECT doc_create_index('messages', '{ to: 1, sent: 1 }');
INSERT INTO messages(doc) SELECT json_object('from', 'joe', 'to', json_array('bob', 'jane'),
    'sent', json_object('$date', 1362096000000 + value * 60000), 'message', 'Hi! #' || value)
  FROM generate_series(1, 100);
SELECT doc_get(doc, 'message') FROM messages('{ to: "bob" }', NULL, '{ sent: -1 }') LIMIT 3;
SELECT json_extract(doc_explain('messages', '{ to: "bob" }', NULL, '{ sent: -1 }', '{ limit: 3 }'),
                    '$.cursor', '$.direction', '$.scanAndOrder', '$.nscanned', '$.multiKeyPaths');
-- B.2 fan out on write: one document per recipient, read through { recipient: 1, sent: 1 }
CREATE VIRTUAL TABLE inbox_copies USING docext;
SELECT doc_create_index('inbox_copies', '{ recipient: 1, sent: 1 }');
INSERT INTO inbox_copies(doc) SELECT json_object('recipient', r.value, 'from', 'joe',
    'sent', json_object('$date', 1362096000000 + m.value * 60000), 'message', 'Hi! #' || m.value)
  FROM generate_series(1, 100) AS m, json_each('["bob", "jane"]') AS r;
SELECT doc_get(doc, 'message') FROM inbox_copies('{ recipient: "bob" }', NULL, '{ sent: -1 }') LIMIT 3;
SELECT json_extract(doc_explain('inbox_copies', '{ recipient: "bob" }', NULL, '{ sent: -1 }', '{ limit: 3 }'),
                    '$.cursor', '$.scanAndOrder', '$.nscanned');
CREATE VIRTUAL TABLE users USING docext;
CREATE VIRTUAL TABLE inbox USING docext;
SELECT doc_create_index('inbox', '{ owner: 1, sequence: -1 }');

-- B.3 deliver a message from joe to bob and ann: bump each recipient's
-- counter, then push into the bucket floor(count / 50) (both upserts)
CREATE TABLE recipients(user_name);
INSERT INTO recipients VALUES ('bob'), ('ann');
SELECT user_name, doc_update_one('inbox',
    json_object('owner', user_name, 'sequence',
      doc_get(doc_find_and_modify('users', json_object('query', json_object('user_name', user_name),
        'update', json('{ "$inc": { "msg_count": 1 } }'), 'upsert', json('true'), 'new', json('true'))),
        'msg_count') / 50),
    '{ $push: { messages: { from: "joe", sent: new Date(), message: "Hi!" } } }', '{ upsert: true }') LIKE '%"matchedCount":0%'
  FROM recipients;
SELECT doc_json(doc_project(doc, '{ _id: 0 }')) FROM users;
-- reading an inbox: the latest two buckets
SELECT doc_json(doc_project(doc, '{ _id: 0 }')) FROM inbox('{ owner: "bob" }', NULL, '{ sequence: -1 }') LIMIT 2;
SELECT doc_explain('inbox', '{ owner: "bob" }', NULL, '{ sequence: -1 }', '{ limit: 2 }') LIKE '%"cursor":"BtreeCursor owner_1_sequence_-1"%';

-- B.4 history retention
SELECT doc_config('clock', '2013-03-05T00:00:00Z');
SELECT doc_update_one('inbox', '{ owner: "bob", sequence: 0 }',
  '{ $push: { messages: { $each: [ { from: "ann", sent: new Date(), message: "Later" } ], $sort: { sent: 1 }, $slice: -50 } } }');
SELECT count(*) FROM inbox('{ messages: { $elemMatch: { sent: { $gte: ISODate("2013-03-04T00:00:00Z") } } } }');
SELECT doc_update_many('inbox', '{}', '{ $pull: { messages: { sent: { $lt: ISODate("2013-03-02T00:00:00Z") } } } }');
SELECT doc_get(doc, 'messages.message') FROM inbox('{ owner: "bob" }');
-- one document per user per day, expiring through a TTL index
CREATE VIRTUAL TABLE daily USING docext;
SELECT doc_create_index('daily', '{ day: 1 }', '{ expireAfterSeconds: 86400 }');
INSERT INTO daily(doc) VALUES ('{ user: "bob", day: ISODate("2013-03-03T00:00:00Z") }'),
                              ('{ user: "bob", day: ISODate("2013-03-04T12:00:00Z") }');
SELECT count(*) FROM daily;
SELECT doc_ttl_sweep('daily');
SELECT doc_check('messages'), doc_check('inbox_copies'), doc_check('inbox'), doc_check('daily');
