-- The library's write patterns (SCENARIOS.md A.4, A.6, A.8, A.9, A.10,
-- A.12, A.13), each one SQL call, atomic. Run: sqlite3 < examples/library_writes.sql
.load ./docext
.headers off
.mode list
.echo on
SELECT doc_config('clock', '2013-03-01T00:00:00Z');

-- A.4 Atomic modifiers on a book
CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES ('{ _id: 1, title: "The Great Gatsby", pages: 176, tags: ["classic"],
  reviews: [ { user: 1, text: "One of the best…" } ] }');
UPDATE books SET doc = doc_update(doc, '{ $push: { reviews: { user: 1, text: "I did NOT like this book." } } }') WHERE _id = 1;
UPDATE books SET doc = doc_update(doc, '{ $set: { available: true }, $inc: { pages: 4 } }') WHERE _id = 1;
UPDATE books SET doc = doc_update(doc, '{ $addToSet: { subjects: { $each: ["1920s", "Jazz Age", "1920s"] } } }') WHERE _id = 1;
UPDATE books SET doc = doc_update(doc, '{ $pushAll: { subjects: ["Classics", "Long Island"] } }') WHERE _id = 1;
UPDATE books SET doc = doc_update(doc, '{ $pop: { subjects: 1 }, $pullAll: { tags: ["classic"] } }') WHERE _id = 1;
UPDATE books SET doc = doc_update(doc, '{ $pull: { reviews: { text: /NOT/ } }, $rename: { pages: "page_count" } }') WHERE _id = 1;
UPDATE books SET doc = doc_update(doc, '{ $bit: { flags: { or: 5 } } }') WHERE _id = 1;
SELECT doc FROM books WHERE _id = 1;

-- A.6 Latest reviews by a user, few seeks: monthly buckets
CREATE VIRTUAL TABLE review_buckets USING docext;
SELECT doc_update_one('review_buckets', '{ _id: "bob-201210" }',
  '{ $push: { reviews: { _id: ObjectId("507f1f77bcf86cd799439011"), book: 1, text: "Great" } } }', '{ upsert: true }');
SELECT doc_update_one('review_buckets', '{ _id: "bob-201211" }',
  '{ $push: { reviews: { $each: [ { _id: ObjectId("507f1f77bcf86cd799439012"), book: 2, text: "Fine" },
                                  { _id: ObjectId("507f1f77bcf86cd799439013"), book: 3, text: "Meh" } ] } } }', '{ upsert: true }');
SELECT doc FROM review_buckets('{ _id: /^bob-/ }', '{ reviews: { $slice: 10 } }', '{ _id: -1 }') LIMIT 10;
SELECT doc_update_one('review_buckets', '{ _id: "bob-201211" }',
  '{ $pull: { reviews: { _id: ObjectId("507f1f77bcf86cd799439013") } } }');

-- A.8 Loans: a priority work queue
CREATE VIRTUAL TABLE loans USING docext;
INSERT INTO loans(doc) VALUES
  ('{ _id: { borrower: "bob", book: ObjectId("507f1f77bcf86cd799439011") }, pending: false, approved: false, priority: 1 }'),
  ('{ _id: { borrower: "ann", book: ObjectId("507f1f77bcf86cd799439012") }, pending: false, approved: false, priority: 3 }');
SELECT doc_find_and_modify('loans', '{ query: { pending: false }, sort: { priority: -1 },
  update: { $set: { pending: true, started: new Date() } }, new: true }');
SELECT doc_update_one('loans', '{ "_id.borrower": "ann", pending: true }', '{ $set: { approved: true } }');
SELECT doc_config('clock', '2013-03-09T00:00:00Z');
-- time out everything pending that started over seven days ago (before
-- the clock's time less seven days), in one multi-document update
SELECT doc_update_many('loans',
  json_object('pending', json('true'), 'started', json_object('$lt', json_object('$date',
    strftime('%Y-%m-%dT%H:%M:%fZ', doc_config('clock'), '-7 days')))),
  '{ $set: { pending: false }, $unset: { started: 1 } }');
SELECT doc FROM loans;

-- A.9 Recommend once: a unique compound index
CREATE VIRTUAL TABLE recommendations USING docext;
SELECT doc_create_index('recommendations', '{ book: 1, user: 1 }', '{ unique: true }');
INSERT INTO recommendations(doc) VALUES ('{ book: 1, user: 7 }');
INSERT INTO recommendations(doc) VALUES ('{ book: 1, user: 7 }');    -- E11000 on purpose
SELECT doc_count('recommendations', '{ book: 1 }');
UPDATE books SET doc = doc_update(doc, '{ $inc: { recommendations: 1 } }') WHERE _id = 1;

-- A.10 Time series: per book per day, counters by hour and minute; flat
-- ({ total, hour: { "0".."23" }, minute: { "0".."1439" } }) and nested
-- ({ total, hour: { "23": { total, "1380".."1439" } } })
CREATE VIRTUAL TABLE rec_ts USING docext;
SELECT doc_update_one('rec_ts', '{ _id: "1-2013-03-09" }',
  '{ $inc: { total: 1, "hour.23": 1, "minute.1439": 1 } }', '{ upsert: true }');
SELECT doc_update_one('rec_ts', '{ _id: "1-2013-03-09" }',
  '{ $inc: { total: 1, "hour.23": 1, "minute.1439": 1 } }', '{ upsert: true }');
CREATE VIRTUAL TABLE rec_ts_nested USING docext;
SELECT doc_update_one('rec_ts_nested', '{ _id: "1-2013-03-09" }',
  '{ $inc: { total: 1, "hour.23.total": 1, "hour.23.1439": 1 } }', '{ upsert: true }');
SELECT doc_update_one('rec_ts_nested', '{ _id: "1-2013-03-09" }',
  '{ $inc: { total: 1, "hour.23.total": 1, "hour.23.1439": 1 } }', '{ upsert: true }');
SELECT doc FROM rec_ts;
SELECT doc FROM rec_ts_nested;
-- the bucket, hour and minute of a moment in the library's own time zone:
-- 2013-03-10T04:59Z is 23:59 on March 9 in New York
SELECT doc_update('{ at: ISODate("2013-03-10T04:59:00Z") }', '[{ $project: { _id: 0,
  bucket: { $concat: [ "1-", { $dateToString: { date: "$at", format: "%Y-%m-%d", timezone: "America/New_York" } } ] },
  hour: { $hour: { date: "$at", timezone: "America/New_York" } },
  minute: { $add: [ { $multiply: [ { $hour: { date: "$at", timezone: "America/New_York" } }, 60 ] },
                    { $minute: { date: "$at", timezone: "America/New_York" } } ] } } }]');

-- A.12 At most 10 recommendations per user
CREATE VIRTUAL TABLE user_recs USING docext;
INSERT INTO user_recs(doc) VALUES ('{ _id: "bob", remaining: 8, books: [3, 10] }');
SELECT doc_update_one('user_recs', '{ _id: "bob", remaining: { $gt: 0 }, books: { $ne: 4 } }',
  '{ $inc: { remaining: -1 }, $push: { books: 4 } }');
SELECT doc_update_one('user_recs', '{ _id: "bob", remaining: { $gt: 0 }, books: { $ne: 4 } }',
  '{ $inc: { remaining: -1 }, $push: { books: 4 } }');
SELECT doc FROM user_recs;

-- A.13 Referrer statistics
CREATE VIRTUAL TABLE book_refs USING docext;
INSERT INTO book_refs(doc) VALUES ('{ _id: 1, book: 1, referrers: [ { domain: "google.com", count: 4 } ] }');
SELECT doc_update_one('book_refs', '{ book: 1, "referrers.domain": "google.com" }', '{ $inc: { "referrers.$.count": 1 } }');
SELECT doc_update_one('book_refs', '{ book: 2 }', '{ $inc: { "referrers.bing_com": 1 } }', '{ upsert: true }') LIKE '%"upsertedId":{"$oid"%';
SELECT doc_json(doc_project(doc, '{ _id: 0 }')) FROM book_refs;
SELECT doc_check('books'), doc_check('loans'), doc_check('recommendations'), doc_check('rec_ts'),
       doc_check('rec_ts_nested'), doc_check('user_recs'), doc_check('book_refs');
