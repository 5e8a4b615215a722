-- The write patterns of SCENARIOS.md end to end, on collections: A.4, A.6,
-- A.8, A.9, A.10, A.12, A.13, B.3, B.4, E.4, E.5. Every write is one SQL
-- call; each scenario reads back what it wrote and ends with doc_check.
.load ./docext
.headers off
.mode list
SELECT doc_config('clock', '2012-10-10T21:14:07Z');

-- A.4 Atomic modifiers, one at a time on the book.
CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES ('{ _id: 1, title: "The Great Gatsby", slug: "9781857150193-the-great-gatsby",
  author: 1, available: true, isbn: "9781857150193", pages: 176,
  publisher: { name: "Everyman''s Library", date: ISODate("1991-09-19T00:00:00Z"), city: "London" },
  subjects: ["Love stories", "1920s", "Jazz Age"], language: "English",
  reviews: [ { user: 1, text: "One of the best…" }, { user: 2, text: "It''s hard to…" } ] }');
SELECT doc_update_one('books', '{_id: 1}', '{$push: {reviews: {user: 1, text: "I did NOT like this book."}}}');
SELECT doc_update_one('books', '{_id: 1}', '{$pushAll: {subjects: ["American Literature", "Classics"]}}');
SELECT doc_update_one('books', '{_id: 1}', '{$addToSet: {subjects: "1920s"}}');
SELECT doc_update_one('books', '{_id: 1}', '{$addToSet: {subjects: {$each: ["Jazz Age", "Long Island"]}}}');
SELECT doc_update_one('books', '{_id: 1}', '{$pop: {subjects: 1}}');
SELECT doc_update_one('books', '{_id: 1}', '{$pull: {subjects: "Love stories"}}');
SELECT doc_update_one('books', '{_id: 1}', '{$pullAll: {subjects: ["Classics", "Romance"]}}');
SELECT doc_update_one('books', '{_id: 1}', '{$set: {available: false, "publisher.city": "New York"}, $inc: {pages: 4}, $unset: {language: 1}}');
SELECT doc_update_one('books', '{_id: 1}', '{$rename: {isbn: "isbn13"}}');
SELECT doc_update_one('books', '{_id: 1}', '{$bit: {flags: {or: 5}}}');
SELECT doc_update_one('books', '{_id: 1}', '{$bit: {flags: {and: 6, xor: 2}}}');
SELECT doc_update_one('books', '{_id: 1}', '{$pull: {reviews: {text: /NOT/}}}');
SELECT doc FROM books WHERE _id = 1;
-- the errors MongoDB gives, and nothing changes
SELECT doc_update_one('books', '{_id: 1}', '{$inc: {title: 1}}');
SELECT doc_update_one('books', '{_id: 1}', '{$push: {title: "x"}}');
SELECT doc_update_one('books', '{_id: 1}', '{$set: {"pages.count": 1}}');
SELECT doc_update_one('books', '{_id: 1}', '{$set: {pages: 1}, $unset: {pages: 1}}');
SELECT doc_update_one('books', '{_id: 1}', '{$set: {_id: 2}}');
SELECT doc_update_one('books', '{_id: 1}', '{$rename: {subjects: "tags"}, $set: {"tags.0": 1}}');
SELECT doc_update_one('books', '{_id: 1}', '{$rename: {"subjects.0": "first"}}');
SELECT doc_update_one('books', '{_id: 1}', '{$set: {}}');
SELECT doc_update_one('books', '{_id: 1}', '{$setAll: {a: 1}}');
SELECT doc_get(doc, 'pages'), doc_get(doc, 'subjects'), doc_check('books') FROM books WHERE _id = 1;

-- A.6 The latest 10 reviews by a user, few seeks: one bucket per user per
-- month, newest review first in its bucket ($position: 0); read the buckets
-- newest first and stop after 10 reviews.
-- (A command's result used twice goes through a MATERIALIZED CTE: SQLite
-- would otherwise copy the call into each use and run it twice.)
CREATE VIRTUAL TABLE review_buckets USING docext;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 14),
  w(r) AS MATERIALIZED (
    SELECT doc_update_one('review_buckets',
             json_object('_id', 'bob-2012' || CASE WHEN i <= 6 THEN '09' WHEN i <= 11 THEN '10' ELSE '11' END),
             json_object('$push', json_object('reviews', json_object(
               '$each', json_array(json_object('_id', json_object('$oid', printf('507f1f77bcf86cd7994390%02d', i)),
                                               'book', i, 'rating', i % 5)),
               '$position', 0))),
             '{upsert: true}') FROM n)
SELECT sum(json_extract(r, '$.matchedCount')), count(json_extract(r, '$.upsertedId')) FROM w;
SELECT b._id, json_extract(r.value, '$.book')
  FROM review_buckets('{_id: /^bob-/}', '{reviews: {$slice: 10}}', '{_id: -1}') AS b,
       json_each(b.doc, '$.reviews') AS r
 ORDER BY b._id DESC, r.key LIMIT 10;
SELECT doc_update_one('review_buckets', '{_id: "bob-201210"}',
  '{$pull: {reviews: {_id: ObjectId("507f1f77bcf86cd799439010")}}}');
SELECT _id, doc_get(doc, 'reviews.book') FROM review_buckets ORDER BY _id;
SELECT doc_check('review_buckets');

-- A.8 Loans, a priority work queue.
CREATE VIRTUAL TABLE loans USING docext;
SELECT doc_create_index('loans', '{pending: 1, priority: -1}');
INSERT INTO loans(doc) VALUES
  ('{_id: {borrower: "bob", book: ObjectId("507f1f77bcf86cd799439011")}, pending: false, approved: false, priority: 1}'),
  ('{_id: {borrower: "ann", book: ObjectId("507f1f77bcf86cd799439012")}, pending: false, approved: false, priority: 3}'),
  ('{_id: {borrower: "joe", book: ObjectId("507f1f77bcf86cd799439013")}, pending: false, approved: false, priority: 2}');
-- take the highest-priority request, twice, a day apart
SELECT doc_find_and_modify('loans', '{query: {pending: false}, sort: {priority: -1},
  update: {$set: {pending: true, started: new Date()}}, new: true}');
SELECT doc_config('clock', '2012-10-11T21:14:07Z');
SELECT doc_find_and_modify('loans', '{query: {pending: false}, sort: {priority: -1},
  update: {$set: {pending: true, started: new Date()}}, new: true}');
-- approve joe's
SELECT doc_update_one('loans', '{"_id.borrower": "joe", pending: true}', '{$set: {approved: true}}');
-- seven and a half days after the first was taken: time out, in one
-- multi-document update, everything pending that started over seven days ago
SELECT doc_config('clock', '2012-10-18T09:14:07Z');
SELECT doc_update_many('loans',
  json_object('pending', json('true'),
              'started', json_object('$lt', json_object('$date',
                strftime('%Y-%m-%dT%H:%M:%fZ', doc_config('clock'), '-7 days')))),
  '{$set: {pending: false}, $unset: {started: 1}}');
SELECT doc FROM loans('{}', NULL, '{priority: -1}');
SELECT doc_check('loans');

-- A.9 Recommend once: a unique compound index; the second recommendation
-- is a duplicate-key error; a denormalized count on the book.
CREATE VIRTUAL TABLE recommendations USING docext;
SELECT doc_create_index('recommendations', '{book: 1, user: 1}', '{unique: true}');
INSERT INTO recommendations(doc) VALUES ('{book: 1, user: 7}');
SELECT doc_update_one('books', '{_id: 1}', '{$inc: {recommendations: 1}}');
INSERT INTO recommendations(doc) VALUES ('{book: 1, user: 7}');
INSERT INTO recommendations(doc) VALUES ('{book: 1, user: 8}');
SELECT doc_update_one('books', '{_id: 1}', '{$inc: {recommendations: 1}}');
SELECT doc_count('recommendations', '{book: 1}'), doc_get(doc, 'recommendations') FROM books WHERE _id = 1;
SELECT doc_check('recommendations'), doc_check('books');

-- A.10 Time series: recommendations of a book per day, by hour and minute,
-- flat ({total, hour: {"0".."23"}, minute: {"0".."1439"}}) and nested
-- ({total, hour: {"23": {total, "1380".."1439"}}}), each event one upsert.
CREATE VIRTUAL TABLE rec_ts USING docext;
CREATE VIRTUAL TABLE rec_ts_nested USING docext;
CREATE TABLE events(book, at);
INSERT INTO events VALUES (1, '2012-10-10T23:59:30Z'), (1, '2012-10-10T23:59:59Z'),
  (1, '2012-10-10T23:00:10Z'), (1, '2012-10-10T00:00:00Z'), (2, '2012-10-10T12:30:00Z');
SELECT sum(json_extract(doc_update_one('rec_ts',
         json_object('_id', book || '-' || date(at)),
         json_object('$inc', json_object('total', 1,
           'hour.' || CAST(strftime('%H', at) AS INTEGER), 1,
           'minute.' || (strftime('%H', at) * 60 + strftime('%M', at)), 1)),
         '{upsert: true}'), '$.matchedCount')) FROM events;
SELECT sum(json_extract(doc_update_one('rec_ts_nested',
         json_object('_id', book || '-' || date(at)),
         json_object('$inc', json_object('total', 1,
           'hour.' || CAST(strftime('%H', at) AS INTEGER) || '.total', 1,
           'hour.' || CAST(strftime('%H', at) AS INTEGER) || '.' || (strftime('%H', at) * 60 + strftime('%M', at)), 1)),
         '{upsert: true}'), '$.matchedCount')) FROM events;
SELECT doc FROM rec_ts ORDER BY _id;
SELECT doc FROM rec_ts_nested ORDER BY _id;
SELECT doc_get(f.doc, 'minute.1439'), doc_get(n.doc, 'hour.23.1439'), doc_get(n.doc, 'hour.23.total')
  FROM rec_ts f, rec_ts_nested n WHERE f._id = '1-2012-10-10' AND n._id = f._id;
SELECT doc_check('rec_ts'), doc_check('rec_ts_nested');

-- A.12 At most 10 recommendations per user: one conditional update that
-- does nothing once the budget is spent or the book is already there.
CREATE VIRTUAL TABLE user_recs USING docext;
INSERT INTO user_recs(doc) VALUES ('{_id: "bob", remaining: 2, books: [3, 10]}');
SELECT doc_update_one('user_recs', '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 4}}', '{$inc: {remaining: -1}, $push: {books: 4}}');
SELECT doc_update_one('user_recs', '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 4}}', '{$inc: {remaining: -1}, $push: {books: 4}}');
SELECT doc_update_one('user_recs', '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 5}}', '{$inc: {remaining: -1}, $push: {books: 5}}');
SELECT doc_update_one('user_recs', '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 6}}', '{$inc: {remaining: -1}, $push: {books: 6}}');
SELECT doc FROM user_recs;
SELECT doc_check('user_recs');

-- A.13 Referrer statistics: an array with the positional $inc, and a map
-- with an upserted $inc.
CREATE VIRTUAL TABLE book_refs USING docext;
INSERT INTO book_refs(doc) VALUES ('{_id: 1, book: 1, referrers: [{domain: "google.com", count: 4}, {domain: "bing.com", count: 1}]}');
SELECT doc_update_one('book_refs', '{book: 1, "referrers.domain": "bing.com"}', '{$inc: {"referrers.$.count": 1}}');
SELECT doc_update_one('book_refs', '{book: 1, "referrers.domain": "google.com"}', '{$inc: {"referrers.$.count": 1}}');
SELECT doc FROM book_refs WHERE _id = 1;
CREATE VIRTUAL TABLE book_refmap USING docext;
SELECT doc_update_one('book_refmap', '{_id: 2}', '{$inc: {"referrers.bing_com": 1}}', '{upsert: true}');
SELECT doc_update_one('book_refmap', '{_id: 2}', '{$inc: {"referrers.bing_com": 1}}', '{upsert: true}');
SELECT doc_update_one('book_refmap', '{_id: 2}', '{$inc: {"referrers.google_com": 5}}', '{upsert: true}');
SELECT doc FROM book_refmap;
SELECT doc_check('book_refs'), doc_check('book_refmap');

-- B.3 Fan out on write with buckets: bump the recipient's counter (an
-- upserted findAndModify), then push the message into the bucket
-- floor(count / 50) (an upserted $push); 52 messages make two buckets.
CREATE VIRTUAL TABLE users USING docext;
CREATE VIRTUAL TABLE inbox USING docext;
SELECT doc_create_index('inbox', '{owner: 1, sequence: 1}');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 52),
  w(r) AS MATERIALIZED (
    SELECT doc_update_one('inbox',
             json_object('owner', 'bob', 'sequence',
               doc_get(doc_find_and_modify('users', '{query: {user_name: "bob"},
                 update: {$inc: {msg_count: 1}}, upsert: true, new: true}'), 'msg_count') / 50),
             json_object('$push', json_object('messages', json_object('from', 'joe', 'n', i, 'message', 'Hi!'))),
             '{upsert: true}') FROM n)
SELECT sum(json_extract(r, '$.matchedCount')), count(json_extract(r, '$.upsertedId')) FROM w;
SELECT doc_json(doc_project(doc, '{_id: 0}')) FROM users;
SELECT doc_get(doc, 'sequence'), json_array_length(doc, '$.messages'), doc_get(doc, 'messages.0.n')
  FROM inbox('{owner: "bob"}', NULL, '{sequence: -1}') LIMIT 2;
SELECT doc_explain('inbox', '{owner: "bob"}', NULL, '{sequence: -1}', '{limit: 2}') LIKE '%"cursor":"BtreeCursor owner_1_sequence_1"%';
SELECT doc_check('users'), doc_check('inbox');

-- B.4 History retention: find buckets with recent messages, pull the old
-- ones, keep the newest 3 by date; daily buckets expire through a TTL index.
SELECT doc_config('clock', '2012-11-01T00:00:00Z');
CREATE VIRTUAL TABLE inbox_daily USING docext;
SELECT doc_create_index('inbox_daily', '{sequence: 1}', '{expireAfterSeconds: 31536000}');
INSERT INTO inbox_daily(doc) VALUES
  ('{_id: "bob-20121030", owner: "bob", sequence: ISODate("2012-10-30T00:00:00Z"), messages: [
     {from: "ann", sent: ISODate("2012-10-30T08:00:00Z")}, {from: "joe", sent: ISODate("2012-10-30T09:00:00Z")}]}'),
  ('{_id: "bob-20121031", owner: "bob", sequence: ISODate("2012-10-31T00:00:00Z"), messages: [
     {from: "ann", sent: ISODate("2012-10-31T08:00:00Z")}, {from: "joe", sent: ISODate("2012-10-31T22:00:00Z")}]}');
SELECT _id FROM inbox_daily('{messages: {$elemMatch: {sent: {$gte: ISODate("2012-10-31T12:00:00Z")}}}}');
SELECT doc_update_many('inbox_daily', '{owner: "bob"}', '{$pull: {messages: {sent: {$lt: ISODate("2012-10-30T12:00:00Z")}}}}');
SELECT doc_update_one('inbox_daily', '{_id: "bob-20121031"}',
  '{$push: {messages: {$each: [{from: "sue", sent: ISODate("2012-10-31T10:00:00Z")}, {from: "max", sent: ISODate("2012-10-31T23:00:00Z")}],
                       $sort: {sent: 1}, $slice: -3}}}');
SELECT _id, json_array_length(doc, '$.messages'), doc_get(doc, 'messages.from') FROM inbox_daily ORDER BY _id;
SELECT doc_config('clock', '2013-10-30T12:00:00Z');
SELECT count(*) FROM inbox_daily;
SELECT doc_ttl_sweep('inbox_daily'), doc_check('inbox_daily');

-- E.4 Two-way references: reassigning a task changes the task and both
-- people, in one transaction.
CREATE VIRTUAL TABLE people USING docext;
CREATE VIRTUAL TABLE tasks USING docext;
INSERT INTO people(doc) VALUES ('{_id: 1, name: "Kate Monster", tasks: [10, 11]}'), ('{_id: 2, name: "Bob", tasks: []}');
INSERT INTO tasks(doc) VALUES ('{_id: 10, description: "Write lesson plan", owner: 1}'), ('{_id: 11, description: "Grade tests", owner: 1}');
BEGIN;
SELECT doc_update_one('tasks', '{_id: 10}', '{$set: {owner: 2}}');
SELECT doc_update_many('people', '{tasks: 10}', '{$pull: {tasks: 10}}');
SELECT doc_update_one('people', '{_id: 2}', '{$addToSet: {tasks: 10}}');
COMMIT;
SELECT doc_get(doc, 'name'), doc_get(doc, 'tasks') FROM people ORDER BY _id;
SELECT doc_get(doc, 'owner') FROM tasks ORDER BY _id;
-- a failing step rolls back with its transaction
BEGIN;
SELECT doc_update_one('tasks', '{_id: 11}', '{$set: {owner: 2}}');
SELECT doc_update_one('people', '{_id: 1}', '{$pull: {name: 11}}');
ROLLBACK;
SELECT doc_get(doc, 'owner') FROM tasks WHERE _id = 11;
SELECT doc_check('people'), doc_check('tasks');

-- E.5 Denormalization: the part name copied into each product (renamed
-- everywhere with one positional multi-document update), and the host
-- keeping its last 1000 log messages ($push with $each, $sort, $slice),
-- looked up with the projection {_id: 1}.
CREATE VIRTUAL TABLE products USING docext;
INSERT INTO products(doc) VALUES
  ('{_id: 1, name: "left-handed smoke shifter", parts: [{id: ObjectId("AAAAAAAAAAAAAAAAAAAAAAAA"), name: "#4 grommet"}, {id: ObjectId("F17C1A5D2F2E4D5E6A7B8C9D"), name: "#4 washer"}]}'),
  ('{_id: 2, name: "right-handed smoke shifter", parts: [{id: ObjectId("F17C1A5D2F2E4D5E6A7B8C9D"), name: "#4 washer"}]}');
SELECT doc_update_many('products', '{"parts.id": ObjectId("F17C1A5D2F2E4D5E6A7B8C9D")}', '{$set: {"parts.$.name": "#4 steel washer"}}');
SELECT doc_get(doc, 'parts.name') FROM products ORDER BY _id;
CREATE VIRTUAL TABLE hosts USING docext;
INSERT INTO hosts(doc) VALUES ('{_id: ObjectId("507f1f77bcf86cd799439011"), name: "goofy.example.com", ipaddr: "127.66.66.66", logmsgs: []}');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1005)
SELECT sum(json_extract(doc_update_one('hosts', '{name: "goofy.example.com"}',
         json_object('$push', json_object('logmsgs', json_object(
           '$each', json_array(json_object('time', json_object('$date', 1349903647000 + ((i * 7919) % 1005) * 1000),
                                           'message', 'cpu is on fire ' || i)),
           '$sort', json_object('time', 1), '$slice', -1000)))), '$.modifiedCount')) FROM n;
SELECT json_array_length(doc, '$.logmsgs'), doc_get(doc, 'logmsgs.0.time'), doc_get(doc, 'logmsgs.999.time')
  FROM hosts('{name: "goofy.example.com"}');
SELECT doc FROM hosts('{name: "goofy.example.com"}', '{_id: 1}');
SELECT doc_check('products'), doc_check('hosts');
