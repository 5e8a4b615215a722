-- Multi-document commands: doc_update_one/many, doc_delete_one/many,
-- doc_find_and_modify; upserts; atomicity.
.load ./docext
.headers off
.mode list
SELECT doc_config('clock', '2013-03-01T00:00:00Z');

-- 1. A.8 Loans, a priority work queue
CREATE VIRTUAL TABLE loans USING docext;
INSERT INTO loans(doc) VALUES
  ('{_id: {borrower: "bob", book: ObjectId("507f1f77bcf86cd799439011")}, pending: false, approved: false, priority: 1}'),
  ('{_id: {borrower: "ann", book: ObjectId("507f1f77bcf86cd799439012")}, pending: false, approved: false, priority: 3}'),
  ('{_id: {borrower: "joe", book: ObjectId("507f1f77bcf86cd799439013")}, pending: false, approved: false, priority: 2}');
-- take the highest-priority request
SELECT doc_find_and_modify('loans', '{query: {pending: false}, sort: {priority: -1},
  update: {$set: {pending: true, started: new Date()}}, new: true}');
SELECT doc_find_and_modify('loans', '{query: {pending: false}, sort: {priority: -1},
  update: {$set: {pending: true, started: new Date()}}, new: true, fields: {priority: 1, _id: 0}}');
-- approve one
SELECT doc_update_one('loans', '{"_id.borrower": "ann"}', '{$set: {approved: true, pending: false}}');
-- time out everything pending whose start is over seven days old
SELECT doc_config('clock', '2013-03-09T00:00:00Z');
SELECT doc_update_many('loans', '{pending: true, started: {$lt: ISODate("2013-03-02T00:00:00Z")}}',
  '{$set: {pending: false}, $unset: {started: 1}}');
SELECT doc FROM loans ORDER BY doc->>'$.priority';
-- nothing left to take: NULL
SELECT doc_find_and_modify('loans', '{query: {pending: true}, update: {$set: {x: 1}}}') IS NULL;

-- 2. A.12 At most 10 recommendations per user: one conditional update
CREATE VIRTUAL TABLE user_recs USING docext;
INSERT INTO user_recs(doc) VALUES ('{_id: "bob", remaining: 2, books: [3, 10]}');
SELECT doc_update_one('user_recs', '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 4}}',
  '{$inc: {remaining: -1}, $push: {books: 4}}');
SELECT doc_update_one('user_recs', '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 4}}',
  '{$inc: {remaining: -1}, $push: {books: 4}}');
SELECT doc_update_one('user_recs', '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 5}}',
  '{$inc: {remaining: -1}, $push: {books: 5}}');
SELECT doc_update_one('user_recs', '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 6}}',
  '{$inc: {remaining: -1}, $push: {books: 6}}');
SELECT doc FROM user_recs;

-- 3. A.13 Referrer statistics: positional $inc, and the map form with upsert
CREATE VIRTUAL TABLE refs USING docext;
INSERT INTO refs(doc) VALUES ('{_id: 1, book: 1, referrers: [{domain: "google.com", count: 4}, {domain: "bing.com", count: 1}]}');
SELECT doc_update_one('refs', '{book: 1, "referrers.domain": "bing.com"}', '{$inc: {"referrers.$.count": 1}}');
SELECT doc FROM refs;
CREATE VIRTUAL TABLE refmap USING docext;
SELECT doc_update_one('refmap', '{book: 7}', '{$inc: {"referrers.bing_com": 1}}', '{upsert: true}') LIKE '{"matchedCount":0,"modifiedCount":0,"upsertedId":{"$oid":"%"},"upsertedCount":1}';
SELECT doc_update_one('refmap', '{book: 7}', '{$inc: {"referrers.bing_com": 1}}', '{upsert: true}');
SELECT doc_get(doc, 'book'), doc_get(doc, 'referrers') FROM refmap;

-- 4. B.3 Fan out on write with buckets
CREATE VIRTUAL TABLE users USING docext;
CREATE VIRTUAL TABLE inbox USING docext;
SELECT doc_json(doc_find_and_modify('users', '{query: {user_name: "joe"}, update: {$inc: {msg_count: 1}}, upsert: true, new: true}'), 'relaxed') LIKE '%"user_name":"joe","msg_count":1}';
SELECT doc_find_and_modify('users', '{query: {user_name: "joe"}, update: {$inc: {msg_count: 1}}, upsert: true, new: true, fields: {_id: 0}}');
SELECT doc_update_one('inbox', '{owner: "joe", sequence: 0}', '{$push: {messages: {from: "ann", message: "Hi!"}}}', '{upsert: true}') LIKE '%"upsertedId":{"$oid"%';
SELECT doc_update_one('inbox', '{owner: "joe", sequence: 0}', '{$push: {messages: {from: "bob", message: "Yo"}}}', '{upsert: true}');
SELECT doc_json(doc_project(doc, '{_id: 0}')) FROM inbox;

-- 5. Upserts: equality fields, $and, dotted paths, _id from the filter,
--    $setOnInsert, replacement
CREATE VIRTUAL TABLE ups USING docext;
SELECT doc_update_one('ups', '{_id: 5, "a.b": 1, $and: [{c: 2}, {d: {$eq: 3}}], e: {$gt: 1}}', '{$set: {x: 1}, $setOnInsert: {created: true}}', '{upsert: true}');
SELECT doc FROM ups;
SELECT doc_update_one('ups', '{_id: 5}', '{$set: {x: 2}, $setOnInsert: {created: false}}', '{upsert: true}');
SELECT doc FROM ups;
SELECT doc_update_one('ups', '{_id: 6}', '{y: 1}', '{upsert: true}');
SELECT doc FROM ups WHERE _id = 6;
-- a "$"-prefixed field in $setOnInsert matters only when it inserts: then
-- the new document's names are refused, and nothing is written
SELECT doc_update_one('ups', '{_id: 5}', '{$set: {x: 3}, $setOnInsert: {"$bad": 1, "a.$bad": 1}}', '{upsert: true}');
SELECT doc_update_one('ups', '{_id: 7}', '{$set: {x: 3}, $setOnInsert: {"a.$bad": 1}}', '{upsert: true}');
SELECT doc_update_one('ups', '{_id: 7}', '{$set: {"$bad": 3}, $setOnInsert: {a: 1}}', '{upsert: true}');
SELECT count(*) FROM ups WHERE _id = 7;
SELECT doc FROM ups WHERE _id = 5;

-- 6. doc_update_many / delete, counts
CREATE VIRTUAL TABLE nums USING docext;
INSERT INTO nums(doc) SELECT json_object('_id', value, 'n', value, 'odd', value % 2) FROM generate_series(1, 10);
SELECT doc_update_many('nums', '{odd: 1}', '{$inc: {n: 100}}');
SELECT doc_update_many('nums', '{odd: 1}', '{$set: {odd: 1}}');
SELECT doc_update_many('nums', '{n: {$gt: 1000}}', '{$inc: {n: 1}}');
SELECT group_concat(doc_get(doc, 'n'), ' ') FROM nums;
SELECT doc_delete_one('nums', '{odd: 0}');
SELECT doc_delete_many('nums', '{odd: 0}');
SELECT doc_delete_many('nums', '{nothing: 1}');
SELECT count(*) FROM nums;
SELECT doc_update_one('nums', '{}', '{$set: {first: true}}', '{sort: {n: -1}}');
SELECT doc_get(doc, '_id') FROM nums('{first: true}');

-- 7. Atomicity: an error on the last document leaves every document as it was
SELECT doc_update_many('nums', '{}', '{$inc: {n: 1}}');
SELECT doc_update_many('nums', '{}', '{$inc: {first: 1}}');
SELECT group_concat(doc_get(doc, 'n'), ' ') FROM nums;
SELECT doc_update_many('nums', '{}', '{$set: {_id: 1}}');
SELECT count(*) FROM nums WHERE _id = 1;
BEGIN;
SELECT doc_delete_many('nums', '{}');
ROLLBACK;
SELECT count(*) FROM nums;

-- A unique violation on the 500th document: nothing changed, index
-- entries included
CREATE VIRTUAL TABLE many USING docext;
SELECT doc_create_index('many', '{k: 1}', '{unique: true}');
INSERT INTO many(doc) SELECT json_object('_id', value, 'k', 2 * value + 1) FROM generate_series(1, 600);
INSERT INTO many(doc) VALUES ('{_id: 10000, k: 2002}');
SELECT sum(doc_get(doc, 'k')), doc_check('many') FROM many;
SELECT doc_update_many('many', '{_id: {$lte: 600}}', '{$mul: {k: 2}}');
SELECT sum(doc_get(doc, 'k')), doc_check('many') FROM many;
SELECT doc_count('many', '{k: 1001}'), doc_count('many', '{k: 2002}');

-- 8. Errors name what is wrong; nothing changes
SELECT doc_update_one('nope', '{}', '{$set: {a: 1}}');
SELECT doc_update_one('nums', '{$foo: 1}', '{$set: {a: 1}}');
SELECT doc_update_one('nums', '{}', '{$bar: {a: 1}}');
SELECT doc_update_one('nums', '{}', '{$set: {a: 1}}', '{colour: 1}');
SELECT doc_update_many('nums', '{}', '{a: 1}');
SELECT doc_find_and_modify('nums', '{query: {}}');
SELECT doc_find_and_modify('nums', '{query: {}, remove: true, update: {$set: {a: 1}}}');
SELECT doc_find_and_modify('nums', '{query: {}, remove: true, new: true}');
SELECT doc_find_and_modify('nums', '{bogus: 1, remove: true}');
SELECT doc_delete_many('nums', 'not json');
SELECT count(*), sum(doc_get(doc, 'n')) FROM nums;

-- 9. Hints on deletes and on doc_find_and_modify, as on updates (MongoDB
--    4.4): a name or a key pattern; the hinted index drives the scan, so a
--    sparse one only reaches the documents it holds; a bad hint is an error
--    that changes nothing
CREATE VIRTUAL TABLE hinted USING docext;
INSERT INTO hinted(doc) VALUES ('{_id: 1, a: 1}'), ('{_id: 2}'), ('{_id: 3, a: 3}'), ('{_id: 4}'), ('{_id: 5, a: 5}');
SELECT doc_create_index('hinted', '{a: 1}', '{sparse: true}');
SELECT doc_delete_one('hinted', '{_id: 1}', '{hint: "_id_"}');
SELECT doc_delete_one('hinted', '{}', '{hint: {a: 1}}');
SELECT _id FROM hinted;
SELECT doc_delete_many('hinted', '{}', '{hint: "a_1"}');
SELECT _id FROM hinted;
INSERT INTO hinted(doc) VALUES ('{_id: 6, a: 6}'), ('{_id: 7, a: 7}');
SELECT doc_find_and_modify('hinted', '{query: {}, sort: {a: -1}, remove: true, hint: "a_1"}');
SELECT doc_find_and_modify('hinted', '{query: {}, update: {$inc: {a: 1}}, new: true, hint: {a: 1}}');
SELECT doc_find_and_modify('hinted', '{query: {_id: 2}, update: {$set: {b: 1}}, new: true, hint: {_id: 1}}');
SELECT doc_delete_many('hinted', '{}', '{hint: "b_1"}');
SELECT doc_delete_one('hinted', '{}', '{hint: {b: 1}}');
SELECT doc_delete_one('hinted', '{}', '{hint: "a_1", colour: 1}');
SELECT doc_delete_many('hinted', '{}', '[1]');
SELECT doc_find_and_modify('hinted', '{query: {}, remove: true, hint: "b_1"}');
SELECT doc_delete_many('hinted', '{}', NULL);
SELECT count(*), doc_check('hinted') FROM hinted;

-- 10. Which filter fields an upsert takes, as MongoDB's own tests of upsert
--    field extraction have it: equalities, $eq, a one-value $in or $all,
--    inside $and or a one-clause $or; not $gt, $ne, a longer $in, $nor, a
--    regex; a longer $all (two equalities on one path) is an error. A
--    replacement takes only _id from the filter, and other conflicts do not
--    matter to it.
CREATE VIRTUAL TABLE upx USING docext;
SELECT doc_update_one('upx', '{_id: {$in: [1]}, x: {$in: [1]}, y: {$all: [2]}, $or: [{z: 3}], "w.v": {$all: [4]}}', '{$set: {a: 1}}', '{upsert: true}');
SELECT doc_update_one('upx', '{_id: {$all: [2]}, $or: [{x: 1}, {x: 2}], $nor: [{y: 1}], z: {$in: [1, 2]}, r: /abc/, s: {$in: [/abc/]}}', '{$setOnInsert: {a: 1}}', '{upsert: true}');
SELECT doc_update_one('upx', '{$or: [{_id: 3}], $and: [{$or: [{x: {$eq: 1}}]}]}', '{}', '{upsert: true}');
SELECT doc_update_one('upx', '{_id: 4, x: [1, {x: 1}], "x.x": 1, y: {$in: [5]}}', '{b: 1}', '{upsert: true}');
SELECT doc FROM upx ORDER BY _id;
SELECT doc_update_one('upx', '{x: {$all: [1, 2]}}', '{$set: {a: 1}}', '{upsert: true}');
SELECT doc_update_one('upx', '{_id: {$all: [5, 6]}}', '{b: 1}', '{upsert: true}');
SELECT doc_update_one('upx', '{$and: [{_id: 5}, {_id: 5}]}', '{b: 1}', '{upsert: true}');
SELECT doc_update_one('upx', '{"_id.x": 1, "_id.y": 2}', '{b: 1}', '{upsert: true}');
SELECT doc_update_one('upx', '{"_id.x": 1, "_id.y": 2}', '{$set: {b: 1}}', '{upsert: true}');
SELECT doc FROM upx WHERE doc_type(bson, '_id') = 'object';
SELECT count(*), doc_check('upx') FROM upx;

-- 11. arrayFilters belong to an update: with remove they are an error, as
--     in MongoDB, and nothing is removed.
SELECT doc_find_and_modify('upx', '{query: {_id: 1}, remove: true, arrayFilters: [{i: 0}]}');
SELECT count(*) FROM upx WHERE _id = 1;

-- 12. A command inside a statement that itself writes cannot open its
--     savepoint (SQLite allows none while a write is in progress): a clear
--     error, nothing changed; from a SELECT of its own it works.
CREATE TABLE audit(r);
INSERT INTO audit SELECT doc_update_many('upx', '{}', '{$set: {audited: true}}');
SELECT count(*) FROM audit;
SELECT count(*) FROM upx('{audited: true}');
INSERT INTO audit SELECT r FROM (SELECT doc_update_many('upx', '{}', '{$set: {audited: true}}') AS r);
WITH w(r) AS MATERIALIZED (SELECT doc_update_many('upx', '{}', '{$set: {audited: true}}')) SELECT r FROM w;
SELECT count(*) FROM upx('{audited: true}');

-- 13. Atomicity: $inc on a non-number in the 500th document of a
--     doc_update_many leaves all 1000 documents and every index entry as
--     they were (the first 499 were already rewritten when it failed).
CREATE VIRTUAL TABLE atom USING docext;
SELECT doc_create_index('atom', '{n: 1}');
SELECT doc_create_index('atom', '{tags: 1}');
INSERT INTO atom(doc) SELECT json_object('_id', value, 'n', CASE WHEN value = 500 THEN 'five hundred' ELSE value END,
                                         'tags', json_array('t' || value)) FROM generate_series(1, 1000);
SELECT doc_update_many('atom', '{}', '{$inc: {n: 1000}, $push: {tags: "new"}}', '{sort: {_id: 1}}');
SELECT doc_update_many('atom', '{_id: {$gte: 1}}', '{$inc: {n: 1000}, $push: {tags: "new"}}');
SELECT sum(doc_get(doc, 'n')), count(*), doc_check('atom') FROM atom;
SELECT doc_count('atom', '{tags: "new"}'), doc_count('atom', '{n: {$gt: 1000}}'), doc_count('atom', '{n: 1}'),
       doc_count('atom', '{tags: "t499"}');
SELECT doc_update_many('atom', '{n: {$type: "number"}}', '{$inc: {n: 1000}, $push: {tags: "new"}}');
SELECT doc_count('atom', '{tags: "new"}'), doc_count('atom', '{n: {$gt: 1000}}'), doc_check('atom');

-- 14. upsertedCount tells an upserted _id of null from nothing upserted
CREATE VIRTUAL TABLE nullid USING docext;
SELECT doc_update_one('nullid', '{_id: null}', '{$unset: {a: ""}}', '{upsert: true}');
SELECT doc_update_one('nullid', '{_id: null}', '{$set: {a: 1}}', '{upsert: true}');
SELECT doc_update_one('nullid', '{_id: 5}', '{$set: {a: 1}}');
SELECT doc, doc_check('nullid') FROM nullid;

-- 15. A command that fails in a transaction that changed the schema: its
--     ROLLBACK TO makes SQLite reset every schema (disconnecting the
--     collection's table) while the command still uses the collection,
--     which stays alive until the command returns
CREATE VIRTUAL TABLE ddl USING docext;
INSERT INTO ddl(doc) VALUES ('{_id: 1, a: "x", u: 1}'), ('{_id: 2, a: 2, u: 1}');
BEGIN;
CREATE TABLE ddl_side(x);
SELECT doc_update_one('ddl', '{_id: 1}', '{$inc: {a: 1}}');
SELECT doc_update_many('ddl', '{}', '{$inc: {a: 1}}');
SELECT doc_create_index('ddl', '{u: 1}', '{unique: true}');
SELECT doc_count('ddl', '{a: 2}'), doc_check('ddl');
ROLLBACK;
SELECT doc FROM ddl;
SELECT count(*) FROM sqlite_schema WHERE name = 'ddl_side';

-- 16. doc_distinct(coll, field [, filter [, options]]): MongoDB's distinct.
--     An array at the end of the path counts as its elements (an array
--     inside it is one value); equal values (11, 11.0, NumberLong(11))
--     count once, as the first met; missing values none; the result is a
--     JSON array in BSON order
CREATE VIRTUAL TABLE dis USING docext;
INSERT INTO dis(doc) VALUES
  ('{_id: 1, x: 11, tags: ["a", ["b"], "a"], a: [{b: 1}, {b: [2, 3]}, 5]}'),
  ('{_id: 2, x: 22.0, tags: [], a: {b: null}}'),
  ('{_id: 3, x: NumberLong(11), tags: "c", d: ISODate("2020-01-01T00:00:00Z")}'),
  ('{_id: 4, x: 11.0, tags: ["z", 1, null]}');
SELECT doc_distinct('dis', 'x');
SELECT doc_distinct('dis', 'tags');
SELECT doc_distinct('dis', 'a.b'), doc_distinct('dis', 'a.0'), doc_distinct('dis', 'nope');
SELECT doc_distinct('dis', 'x', '{_id: {$gt: 2}}'), doc_distinct('dis', 'd'), doc_distinct('dis', '_id');
-- the filter may use an index, or the one a hint names
SELECT doc_create_index('dis', '{tags: 1}');
SELECT doc_distinct('dis', 'x', '{tags: {$in: ["a", "z"]}}'),
       doc_distinct('dis', 'x', '{_id: 1}', '{hint: "_id_"}'),
       doc_distinct('dis', 'x', '{_id: 1}', '{hint: {tags: 1}}');
-- errors
SELECT doc_distinct('dis', 'x', NULL, '{limit: 1}');
SELECT doc_distinct('dis', 'a..b');
SELECT doc_distinct('dis', '');
SELECT doc_distinct('dis', 5);
SELECT doc_distinct('dis', 'x', '{$bad: 1}');
SELECT doc_distinct('dis', 'x', '{x: ');
SELECT doc_distinct('dis', 'x', NULL, '{hint: "nope"}');
SELECT doc_distinct('nope', 'x');
-- an index that answers the filter exactly and holds the field (never an
-- array there) covers the distinct values: no document is read (their
-- bodies are damaged here, and only the queries an index covers work)
CREATE VIRTUAL TABLE discov USING docext;
INSERT INTO discov(doc) VALUES ('{_id: 1, genre: "novel", author: "Woolf", tags: ["a", "b"]}'),
  ('{_id: 2, genre: "novel", author: "Joyce", tags: ["b"]}'), ('{_id: 3, genre: "poetry", author: "Yeats"}'),
  ('{_id: 4, genre: "novel", author: 5}');
SELECT doc_create_index('discov', '{genre: 1, author: 1}'), doc_create_index('discov', '{tags: 1, author: 1}');
SELECT doc_distinct('discov', 'author', '{genre: "novel"}'), doc_distinct('discov', 'author', '{tags: "b"}');
.dbconfig defensive off
CREATE TEMP TABLE discov_saved AS SELECT * FROM discov_docs;
UPDATE discov_docs SET body = x'0500000000ff';
SELECT doc_distinct('discov', 'author', '{genre: "novel"}'), doc_distinct('discov', 'author', '{tags: "b"}'),
       doc_distinct('discov', 'author', '{genre: {$gte: "n"}}');
SELECT doc_distinct('discov', 'genre', '{genre: "novel", author: {$type: "string"}}');
SELECT doc_distinct('discov', 'tags', '{tags: "b"}');
UPDATE discov_docs SET body = (SELECT body FROM discov_saved AS s WHERE s.id = discov_docs.id);
SELECT doc_distinct('discov', 'tags', '{tags: "b"}'), doc_check('discov');
-- many values (1,200,000 here, 2,000 distinct: each value met again is
-- found through a hash of its index key); more than 16 MiB of distinct
-- values is an error, as in MongoDB
CREATE VIRTUAL TABLE disbig USING docext;
INSERT INTO disbig(doc) SELECT json_object('_id', k.value, 'v', json((SELECT json_group_array(s.value % 1000 + k.value * 1000)
                                                                      FROM generate_series(1, 600000) AS s)))
FROM generate_series(0, 1) AS k;
SELECT json_array_length(doc_distinct('disbig', 'v')), doc_distinct('disbig', 'v') ->> '$[0]',
       doc_distinct('disbig', 'v') ->> '$[#-1]';
CREATE VIRTUAL TABLE distoo USING docext;
INSERT INTO distoo(doc) SELECT json_object('_id', value, 's', value || hex(zeroblob(524288))) FROM generate_series(1, 17);
SELECT json_array_length(doc_distinct('distoo', 's', '{_id: {$lte: 15}}'));
SELECT doc_distinct('distoo', 's');
