-- doc_update(d, update [, options]): update operators and replacements
-- (INTERFACE.md §4, SCENARIOS.md A.4, A.6, A.8, A.10, A.12, A.13, B.3, B.4,
-- E.4, E.5), on values and on a collection.
.load ./docext
.headers off
.mode list

-- 1. Fields: $set, $unset, $rename; new fields appended in lexicographic
--    order (numeric names numerically), as MongoDB 5.0 does.
SELECT doc_update('{_id: 1, title: "Gatsby", pages: 176}', '{$set: {title: "The Great Gatsby", "publisher.city": "London"}}');
SELECT doc_update('{_id: 1}', '{$set: {z: 1, b: 2, "a.10": 3, "a.9": 4, "a.x": 5}}');
SELECT doc_update('{_id: 1, a: 1, b: 2, tmp: 3}', '{$unset: {tmp: "", nothere: 1}, $rename: {a: "alpha"}}');
SELECT doc_update('{_id: 1, a: [1, 2, 3]}', '{$unset: {"a.1": 1}}');
SELECT doc_update('{_id: 1, a: 1, b: 2, c: 3}', '{$rename: {a: "b"}}');
SELECT doc_update('{_id: 1, hour: {}}', '{$set: {"hour.23.1439": 1}}');
SELECT doc_update('{_id: 1, a: [1]}', '{$set: {"a.4": 5}}');

-- 2. Numbers: $inc, $mul, $min, $max, $bit; int32 overflow becomes int64;
--    doubles and decimals as MongoDB computes them.
--    (BLOB in and out, so that every type shows.)
SELECT doc_json(doc_update(doc_bson('{i: 2147483647, l: NumberLong(1), d: 1.5, n: NumberDecimal("1.5"), m: 2}'),
                           '{$inc: {i: 1, l: 1, d: 1, n: 0.1, m: NumberDecimal("0.50"), "new": NumberLong(7)}}'), 'canonical');
SELECT doc_json(doc_update(doc_bson('{a: 3, b: 65536, l: NumberLong(3)}'),
                           '{$mul: {a: 4, b: 65536, l: 2, c: 2.5, d: NumberDecimal("2.50")}}'), 'canonical');
SELECT doc_update('{lo: 5, hi: 5}', '{$min: {lo: 3}, $max: {hi: 9, miss: "s"}}');
SELECT doc_update('{lo: 5, hi: 5, d: ISODate("2020-01-01T00:00:00Z")}', '{$min: {lo: 7, hi: "str"}, $max: {d: ISODate("2021-01-01T00:00:00Z")}}');
-- one path, two operators: a conflict
SELECT doc_update('{lo: 5, hi: 5}', '{$min: {hi: 9}, $max: {hi: 9}}');
SELECT doc_update('{a: 13, b: 13, c: 12}', '{$bit: {a: {and: 10}, b: {or: 2}, c: {and: 10, or: 1}}}');

-- 3. Arrays: $push (with $each, $position, $sort, $slice, applied in that
--    order however they are written), $pushAll, $addToSet, $pop, $pull,
--    $pullAll.
SELECT doc_update('{r: [1]}', '{$push: {r: 2, s: 1}}');
SELECT doc_update('{r: [1, 9]}', '{$push: {r: {$slice: 2, $sort: -1, $each: [5], $position: 0}}}');
SELECT doc_update('{r: [{s: 3}, {s: 1}]}', '{$push: {r: {$each: [{s: 2}], $sort: {s: -1}}}}');
SELECT doc_update('{r: [1, 2, 3]}', '{$push: {r: {$each: [4, 5], $slice: -3}}}');
SELECT doc_update('{r: [1]}', '{$pushAll: {r: [2, 3]}}');
SELECT doc_update('{t: ["a", "b"]}', '{$addToSet: {t: "b", u: {$each: [1, 1, 2]}}}');
SELECT doc_update('{a: [1, 2, 3], b: [1, 2, 3]}', '{$pop: {a: 1, b: -1}}');
SELECT doc_update('{a: [1, 2, 3, 4], b: [{x: 1}, {x: 2}], c: ["apple", "banana"], d: [1, 2, 1]}',
                  '{$pull: {a: {$gte: 3}, b: {x: 2}, c: /an/}, $pullAll: {d: [1]}}');

-- 4. Positional forms: $ (resolved by the option query), $[], $[<id>]
--    with arrayFilters.
SELECT doc_update('{grades: [80, 85, 90]}', '{$set: {"grades.$": 82}}', '{"query": {grades: 85}}');
SELECT doc_update('{items: [{n: "a", q: 1}, {n: "b", q: 1}]}', '{$inc: {"items.$.q": 5}}', '{query: {"items.n": "b"}}');
SELECT doc_update('{grades: [80, 85, 90]}', '{$inc: {"grades.$[]": 10}}');
SELECT doc_update('{grades: [80, 85, 90]}', '{$set: {"grades.$[g]": 100}}', '{arrayFilters: [{g: {$gte: 85}}]}');
SELECT doc_update('{s: [{g: 80, m: 1}, {g: 90, m: 1}]}', '{$inc: {"s.$[e].m": 1}}', '{arrayFilters: [{"e.g": {$gt: 85}}]}');
SELECT doc_update('{m: [[1, 9], [2, 7]]}', '{$set: {"m.$[].$[v]": 0}}', '{arrayFilters: [{v: {$gt: 5}}]}');

-- 5. Replacement documents keep _id (placed first).
SELECT doc_update('{_id: 7, a: 1}', '{b: 2}');
SELECT doc_update('{_id: 7, a: 1}', '{b: 2, _id: 7}');
SELECT doc_update('{a: 1}', '{}');

-- 6. TEXT in, TEXT out; BLOB in, BLOB out, every type kept (an int64 stays
--    an int64 even where relaxed JSON would not show it).
SELECT typeof(doc_update('{a: 1}', '{$inc: {a: 1}}')), typeof(doc_update(doc_bson('{a: 1}'), '{$inc: {a: 1}}'));
SELECT doc_json(doc_update(doc_bson('{n: NumberLong(5), d: 1.0}'), '{$inc: {n: 1}, $set: {e: NumberLong(2)}}'), 'canonical');
SELECT doc_type(doc_update(doc_bson('{n: NumberLong(5)}'), doc_bson('{$inc: {n: 1}}')), 'n');
SELECT doc_update(NULL, '{$set: {a: 1}}') IS NULL, doc_update('{}', NULL) IS NULL;

-- 7. No change: the result is byte-identical.
SELECT doc_update(doc_bson('{a: 1, b: [1, 2], c: [3]}'), '{$set: {a: 1}, $addToSet: {b: 2}, $pull: {c: 7}, $unset: {z: 1}}') = doc_bson('{a: 1, b: [1, 2], c: [3]}');
SELECT doc_update(doc_bson('{a: 1}'), '{$set: {a: 1.0}}') = doc_bson('{a: 1}');

-- 8. Errors: each says what and where, in MongoDB's words; nothing changes.
SELECT doc_update('{a: 1}', '{$set: {a: 1}, $inc: {"a.b": 1}}');
SELECT doc_update('{a: 1}', '{$set: {"a.b": 1}, $unset: {a: 1}}');
SELECT doc_update('{a: "x"}', '{$inc: {a: 1}}');
SELECT doc_update('{_id: 3, a: 1}', '{$mul: {a: "2"}}');
SELECT doc_update('{_id: 3, a: 1}', '{$push: {a: 2}}');
SELECT doc_update('{a: 1}', '{$addToSet: {a: 2}}');
SELECT doc_update('{a: 1}', '{$pull: {a: 2}}');
SELECT doc_update('{_id: 1}', '{$set: {_id: 2}}');
SELECT doc_update('{_id: 1}', '{$unset: {_id: 1}}');
SELECT doc_update('{_id: 1, a: 2}', '{$rename: {a: "_id"}}');
SELECT doc_update('{_id: 1}', '{_id: 2, a: 1}');
SELECT doc_update('{a: 1}', '{$set: {}}');
SELECT doc_update('{a: 1}', '{$foo: {a: 1}}');
SELECT doc_update('{a: 1}', '{$set: {b: 1}, c: 1}');
SELECT doc_update('{a: 1}', '{$set: {"a.x": 1}}');
SELECT doc_update('{a: [1, 2]}', '{$set: {"a.x": 1}}');
SELECT doc_update('{_id: 1, a: NumberLong("9223372036854775807")}', '{$inc: {a: 1}}');
SELECT doc_update('{a: [1]}', '{$set: {"a.$": 1}}');
SELECT doc_update('{a: [1]}', '{$set: {"a.$": 1}}', '{query: {a: 5}}');
SELECT doc_update('{a: [1]}', '{$set: {"a.$[x]": 1}}');
SELECT doc_update('{a: [1]}', '{$set: {"a.$[x]": 1}}', '{arrayFilters: [{x: 1}, {y: 1}]}');
SELECT doc_update('{a: [1, 2]}', '{$set: {"a.$[]": 0, "a.$[x]": 1}}', '{arrayFilters: [{x: 2}]}');
SELECT doc_update('{}', '{$set: {"a.$[]": 1}}');
SELECT doc_update('{a: [1]}', '{$push: {a: {$each: [2], $slice: "x"}}}');
SELECT doc_update('{a: [1]}', '{$pop: {a: 2}}');
SELECT doc_update('{a: 1}', '{$bit: {a: {not: 1}}}');
SELECT doc_update('{a: 1}', '{$currentDate: {a: 1}}');
SELECT doc_update('{a: 1}', '{$set: {b: 1}}', '{upsert: true}');
SELECT doc_update('{a: 1}', '{$set: {b: 1}}', '{multi: true}');
SELECT doc_update('{a: 1}', '{$set: {b: 1}}', '{query: 1}');
SELECT doc_update('{a: 1}', '{$set: {b: }}');
SELECT doc_update(x'0500000001', '{$set: {b: 1}}');
SELECT doc_update('{a: 1}', 42);

-- 9. $currentDate reads the (frozen) clock: a date, or a timestamp.
SELECT doc_config('clock', '2013-03-01T00:00:00Z') IS NOT NULL;
SELECT doc_update('{a: 1}', '{$currentDate: {d: true, t: {$type: "timestamp"}, e: {$type: "date"}}}');
SELECT doc_config('clock', NULL) IS NULL;

-- 10. A collection: UPDATE ... SET doc = doc_update(doc, ...), one compiled
--     update for every row of the statement.
CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES ('{ _id: 1, title: "The Great Gatsby", author: 1, pages: 176, subjects: ["Love stories", "1920s"] }');
INSERT INTO books(doc) VALUES ('{ _id: 2, title: "Tender Is the Night", author: 1, pages: 320 }');
INSERT INTO books(doc) VALUES ('{ _id: 3, title: "Ulysses", author: "James Joyce", pages: NumberLong(730) }');
UPDATE books SET doc = doc_update(doc, '{ $inc: {pages: 1} }') WHERE filter = '{author: 1}';
SELECT doc FROM books;
UPDATE books SET doc = doc_update(doc, '{ $push: {subjects: "Jazz Age"}, $set: {available: true} }') WHERE _id = 1;
SELECT doc FROM books WHERE _id = 1;
-- through the bson column, an int64 stays an int64
UPDATE books SET doc = doc_update(bson, '{ $inc: {pages: 1} }') WHERE _id = 3;
SELECT doc_type(bson, 'pages'), doc_get(bson, 'pages') FROM books WHERE _id = 3;
-- an error on any row (here the last: its author is a string) fails the
-- statement and changes nothing
UPDATE books SET doc = doc_update(doc, '{ $inc: {author: 1} }');
SELECT doc FROM books ORDER BY _id;
-- _id cannot change through an update
UPDATE books SET doc = doc_update(doc, '{ $set: {_id: 9} }') WHERE _id = 2;
SELECT _id FROM books ORDER BY _id;
-- a replacement through doc_update keeps _id
UPDATE books SET doc = doc_update(doc, '{ title: "Tender Is the Night", pages: 317 }') WHERE _id = 2;
SELECT doc FROM books WHERE _id = 2;

-- 11. The scenarios' writes.
-- A.4: push a review
UPDATE books SET doc = doc_update(doc, '{$push: {reviews: {user: 1, text: "I did NOT like this book."}}}') WHERE _id = 1;
SELECT doc->'reviews' FROM books WHERE _id = 1;
-- A.6: monthly review buckets: add with $push, delete one by its ObjectId
CREATE VIRTUAL TABLE buckets USING docext;
INSERT INTO buckets(doc) VALUES ('{_id: "bob-201210", reviews: []}');
UPDATE buckets SET doc = doc_update(doc, '{$push: {reviews: {_id: ObjectId("507f1f77bcf86cd799439011"), rating: 4}}}') WHERE _id = 'bob-201210';
UPDATE buckets SET doc = doc_update(doc, '{$push: {reviews: {_id: ObjectId("507f1f77bcf86cd799439012"), rating: 2}}}') WHERE _id = 'bob-201210';
UPDATE buckets SET doc = doc_update(doc, '{$pull: {reviews: {_id: ObjectId("507f1f77bcf86cd799439011")}}}') WHERE _id = 'bob-201210';
SELECT doc FROM buckets;
-- A.8: take the highest-priority loan request
CREATE VIRTUAL TABLE loans USING docext;
INSERT INTO loans(doc) VALUES ('{_id: {borrower: "bob", book: 1}, pending: false, approved: false, priority: 1}');
INSERT INTO loans(doc) VALUES ('{_id: {borrower: "ann", book: 2}, pending: false, approved: false, priority: 3}');
SELECT doc_config('clock', '2012-10-10T21:14:07Z') IS NOT NULL;
UPDATE loans SET doc = doc_update(doc, '{$set: {pending: true}, $currentDate: {started: true}}')
  WHERE _id = (SELECT _id FROM loans('{pending: false}', NULL, '{priority: -1}') LIMIT 1);
SELECT doc FROM loans('{pending: true}');
SELECT doc_config('clock', NULL) IS NULL;
-- A.10: time series, flat and nested
SELECT doc_update('{_id: "b1-20121010", total: 5, hour: {"0": 1, "23": 4}, minute: {"1439": 4}}',
                  '{$inc: {total: 1, "hour.23": 1, "minute.1439": 1}}');
SELECT doc_update('{_id: "b1-20121010", total: 5, hour: {"23": {total: 4, "1438": 4}}}',
                  '{$inc: {total: 1, "hour.23.total": 1, "hour.23.1439": 1}}');
-- A.12: at most 10 recommendations: the conditional update does nothing
-- once the book is there
CREATE VIRTUAL TABLE user_recs USING docext;
INSERT INTO user_recs(doc) VALUES ('{_id: "bob", remaining: 8, books: [3, 10]}');
UPDATE user_recs SET doc = doc_update(doc, '{$inc: {remaining: -1}, $push: {books: 4}}')
  WHERE filter = '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 4}}';
UPDATE user_recs SET doc = doc_update(doc, '{$inc: {remaining: -1}, $push: {books: 4}}')
  WHERE filter = '{_id: "bob", remaining: {$gt: 0}, books: {$ne: 4}}';
SELECT doc FROM user_recs;
-- A.13: referrer statistics, positional and as a map
CREATE VIRTUAL TABLE book_refs USING docext;
INSERT INTO book_refs(doc) VALUES ('{_id: 1, referrers: [{domain: "google.com", count: 4}, {domain: "bing.com", count: 1}]}');
INSERT INTO book_refs(doc) VALUES ('{_id: 2, referrers: {google_com: 5}}');
UPDATE book_refs SET doc = doc_update(doc, '{$inc: {"referrers.$.count": 1}}', '{query: {"referrers.domain": "bing.com"}}')
  WHERE filter = '{"referrers.domain": "bing.com"}';
UPDATE book_refs SET doc = doc_update(doc, '{$inc: {"referrers.bing_com": 1}}') WHERE _id = 2;
SELECT doc FROM book_refs;
-- B.3: the message counter and the bucket
SELECT doc_update('{user_name: "Joe", msg_count: 49}', '{$inc: {msg_count: 1}}');
SELECT doc_update('{owner: "Joe", sequence: 1, messages: [{from: "Bob"}]}', '{$push: {messages: {from: "Jane", message: "Hi!"}}}');
-- B.4: history retention: $pull the old, keep the newest 2 by date
SELECT doc_update('{owner: "Joe", messages: [{sent: ISODate("2012-01-01T00:00:00Z"), m: 1}, {sent: ISODate("2012-03-01T00:00:00Z"), m: 3}]}',
                  '{$pull: {messages: {sent: {$lt: ISODate("2012-02-01T00:00:00Z")}}}}');
SELECT doc_update('{owner: "Joe", messages: [{sent: ISODate("2012-03-01T00:00:00Z"), m: 3}, {sent: ISODate("2012-01-01T00:00:00Z"), m: 1}]}',
                  '{$push: {messages: {$each: [{sent: ISODate("2012-02-01T00:00:00Z"), m: 2}], $sort: {sent: 1}, $slice: -2}}}');
-- E.4: reassigning a task is two updates
SELECT doc_update('{_id: "p1", tasks: ["t1", "t2"]}', '{$pull: {tasks: "t1"}}');
SELECT doc_update('{_id: "p2", tasks: ["t3"]}', '{$addToSet: {tasks: "t1"}}');
-- E.5: the host keeps its last 2 log messages
SELECT doc_update('{_id: "h1", ip: "127.66.66.66", logmsgs: [{time: 5, m: "a"}, {time: 9, m: "b"}]}',
                  '{$push: {logmsgs: {$each: [{time: 7, m: "c"}], $sort: {time: 1}, $slice: -2}}}');

-- 12. Many rows, one statement: the update is compiled once and applied to each.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 5)
SELECT doc_update(doc_json('{"i": ' || i || '}'), '{$inc: {i: 100}, $push: {seen: "x"}}') FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 3)
SELECT doc_update('{a: [1, 5, 10]}', '{$set: {"a.$[x]": 0}}', '{arrayFilters: [{x: {$gte: ' || (i*4) || '}}]}') FROM n;

-- 13. A NULL new document is an error, not a silent no-op (NULL in,
--     NULL out: a NULL update gives a NULL document); DELETE removes rows.
UPDATE books SET doc = doc_update(doc, NULL) WHERE _id = 2;
UPDATE books SET doc = NULL WHERE _id = 2;
UPDATE books SET bson = NULL WHERE _id = 2;
SELECT doc FROM books WHERE _id = 2;

-- An update path has at most 200 components (as a projection's), and the
-- collection is unchanged when one has more.
CREATE TEMP TABLE parts(n INTEGER PRIMARY KEY, path TEXT);
INSERT INTO parts SELECT value, rtrim(replace(printf('%.*c', value, 'k'), 'k', 'k.'), '.')
  FROM (SELECT 200 AS value UNION ALL SELECT 201);
SELECT doc_update('{_id: 1, k: 2}', printf('{$unset: {"%s": 1}}', path)) FROM parts WHERE n = 200;
SELECT doc_update('{_id: 1, k: 2}', printf('{$unset: {"%s": 1}}', path)) FROM parts WHERE n = 201;
SELECT doc_update('{_id: 1, k: 2}', printf('{$set: {x: 1}, $rename: {k: "%s"}}', path)) FROM parts WHERE n = 201;
-- (a path of 100,000 components is refused as soon: the update's walks,
-- one call deeper a component, never see it)
SELECT doc_update('{_id: 1}', printf('{$unset: {"%s": 1}}', rtrim(replace(printf('%.*c', 100000, 'k'), 'k', 'k.'), '.')));
SELECT doc_update('{_id: 1}', printf('[{$set: {"%s": 1}}]', rtrim(replace(printf('%.*c', 100000, 'k'), 'k', 'k.'), '.')));
