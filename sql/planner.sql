-- The query planner: which index a find() reads and over which bounds
-- (doc_explain, EXPLAIN QUERY PLAN), doc_count, sorts from an index, hints,
-- $or unions; the reference scenarios that rely on indexes (A.2, A.7, A.9,
-- A.11, B.4, C, D, E.3); and, for every query, the same answer with and
-- without the index. doc_explain's millis is removed: it is a timing.
.load ./docext
.headers off
.mode list

CREATE VIRTUAL TABLE books USING docext;
CREATE VIRTUAL TABLE plain USING docext;     -- the same documents, no index
INSERT INTO books(doc) VALUES
  ('{ _id: 1, title: "The Great Gatsby", slug: "the-great-gatsby", author: 1, available: true,
      pages: 176, language: "English",
      publisher: { name: "Everyman''s Library", date: ISODate("1991-09-19T00:00:00Z"), city: "London" },
      subjects: ["Love stories", "1920s", "Jazz Age"] }'),
  ('{ _id: 2, title: "Tender Is the Night", slug: "tender-is-the-night", author: 1, available: false,
      pages: 320, language: "English", publisher: { name: "Scribner", city: "New York" },
      subjects: ["1920s", "Riviera"] }'),
  ('{ _id: 3, title: "The Sun Also Rises", slug: "the-sun-also-rises", author: 2, available: true,
      pages: 251, language: "English", publisher: { name: "Scribner", city: "New York" },
      subjects: ["Lost Generation", "1920s"] }'),
  ('{ _id: 4, title: "Dune", slug: "dune", author: 3, available: true, pages: 412, language: "English",
      publisher: { name: "Chilton", city: "Philadelphia" }, subjects: ["Science fiction"],
      series_title: "Dune", volume: 1 }'),
  ('{ _id: 5, title: "Le Petit Prince", slug: "le-petit-prince", author: { first_name: "Antoine" },
      available: false, pages: 96, language: "French", subjects: ["Children"], tags: null }'),
  ('{ _id: 6, title: "Dune Messiah", slug: "dune-messiah", author: 3, available: true, pages: 256,
      language: "English", subjects: [], series_title: "Dune", volume: 2 }'),
  ('{ _id: 7, title: "Untitled", pages: "unknown", language: null }'),
  ('{ _id: 8, title: "Pamphlet", slug: "pamphlet", pages: 12.5, language: "English", subjects: "Misc" }');
INSERT INTO plain(doc) SELECT bson FROM books;

-- 1. No index but _id_: a collection scan (BasicCursor), or the _id index
SELECT json_remove(doc_explain('books', '{slug: "the-great-gatsby"}'), '$.millis');
SELECT json_remove(doc_explain('books', '{_id: {$gte: 6}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{_id: {$in: [2, 4, 99]}}'), '$.millis');

-- 2. A.2: an index on slug; explain shows BtreeCursor slug_1, n 1, nscanned 1, nscannedObjects 1
SELECT doc_create_index('books', '{slug: 1}');
SELECT json_remove(doc_explain('books', '{slug: "the-great-gatsby"}'), '$.millis');
EXPLAIN QUERY PLAN SELECT doc FROM books('{slug: "the-great-gatsby"}');
SELECT doc->>'title' FROM books('{slug: "the-great-gatsby"}');
-- a filter bound at run time plans at xFilter (EXPLAIN cannot see it), with the same result
EXPLAIN QUERY PLAN SELECT doc FROM books(?1);
SELECT doc->>'title' FROM books(json_object('slug', 'dune'));

-- 3. Equality, $in, ranges (within the operand's type), prefix regexes
SELECT json_remove(doc_explain('books', '{slug: {$in: ["dune", "pamphlet", "nope"]}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{slug: {$gt: "le", $lte: "the"}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{slug: {$lt: "e"}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{slug: /^dune/}'), '$.millis');
SELECT json_remove(doc_explain('books', '{slug: /^the-(great|sun)/}'), '$.millis');
SELECT json_remove(doc_explain('books', '{slug: /une/}'), '$.millis');
SELECT json_remove(doc_explain('books', '{slug: /^DUNE/i}'), '$.millis');
SELECT json_remove(doc_explain('books', '{slug: {$regex: "^dune-?m", $options: ""}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{slug: {$ne: "dune"}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{slug: {$exists: true}}'), '$.millis');
SELECT doc_create_index('books', '{pages: 1}');
SELECT json_remove(doc_explain('books', '{pages: {$gt: 200}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{pages: {$gte: 100, $lt: 300}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{pages: {$lt: "v"}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{pages: {$gt: 300, $lt: 200}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{$and: [{pages: {$gt: 100}}, {pages: {$lt: 200}}]}'), '$.millis');
SELECT json_remove(doc_explain('books', '{pages: {$lt: {$maxKey: 1}}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{pages: {$in: []}}'), '$.millis');
-- the index with fewer keys in its bounds wins
SELECT json_extract(doc_explain('books', '{slug: "dune", pages: {$gt: 0}}'), '$.cursor');
SELECT json_extract(doc_explain('books', '{slug: {$gt: "a"}, pages: 12.5}'), '$.cursor');

-- 4. null: points null and undefined; documents without the field key as null
SELECT doc_create_index('books', '{language: 1}');
SELECT json_remove(doc_explain('books', '{language: null}'), '$.millis');
SELECT group_concat(_id) FROM books('{language: null}');
SELECT json_remove(doc_explain('books', '{language: {$in: ["French", null]}}'), '$.millis');

-- 5. Multikey (A.2): an array makes the index multikey; each element is a key
SELECT doc_create_index('books', '{subjects: 1}');
SELECT json_remove(doc_explain('books', '{subjects: "1920s"}'), '$.millis');
SELECT group_concat(_id) FROM books('{subjects: "1920s"}');
-- ranges on a multikey path are not intersected ({$gt: "M", $lt: "B"} can match ["A", "Z"])
SELECT json_remove(doc_explain('books', '{subjects: {$gt: "M", $lt: "B"}}'), '$.millis');
SELECT group_concat(_id) FROM books('{subjects: {$gt: "M", $lt: "B"}}');
-- inside one $elemMatch the element must satisfy both: they intersect
SELECT json_remove(doc_explain('books', '{subjects: {$elemMatch: {$gt: "A", $lt: "M"}}}'), '$.millis');
SELECT group_concat(_id) FROM books('{subjects: {$elemMatch: {$gt: "A", $lt: "M"}}}');
-- $all uses its first value; an array value gives no bounds
SELECT json_extract(doc_explain('books', '{subjects: {$all: ["1920s", "Riviera"]}}'), '$.indexBounds');
SELECT json_extract(doc_explain('books', '{subjects: ["1920s", "Riviera"]}'), '$.cursor');
SELECT group_concat(_id) FROM books('{subjects: ["1920s", "Riviera"]}');
-- an embedded field
SELECT doc_create_index('books', '{"publisher.name": 1}');
SELECT json_remove(doc_explain('books', '{"publisher.name": "Scribner"}'), '$.millis');

-- 6. Compound indexes: equality prefixes, then one range; later fields unbounded
SELECT doc_create_index('books', '{author: 1, pages: -1}');
SELECT json_remove(doc_explain('books', '{author: 1, pages: {$gt: 200}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{author: {$in: [1, 3]}, pages: {$lte: 300}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{author: {$gte: 2}, pages: 412}', NULL, NULL, '{"hint": "author_1_pages_-1"}'), '$.millis');
SELECT json_remove(doc_explain('books', '{pages: 412}', NULL, NULL, '{"hint": {author: 1, pages: -1}}'), '$.millis');
SELECT group_concat(_id) FROM books('{author: {$in: [1, 3]}, pages: {$lte: 300}}');

-- 7. Sorts from an index: forward, backward, after an equality prefix; no in-memory sort
SELECT json_remove(doc_explain('books', '{author: 3}', NULL, '{pages: -1}'), '$.millis');
SELECT json_remove(doc_explain('books', '{author: 3}', NULL, '{pages: 1}'), '$.millis');
SELECT json_remove(doc_explain('books', '{author: 1}', NULL, '{author: -1, pages: 1}'), '$.millis');
SELECT json_remove(doc_explain('books', '{author: {$in: [1, 3]}}', NULL, '{pages: -1}'), '$.millis');
SELECT group_concat(_id) FROM books('{author: 3}', NULL, '{pages: 1}');
SELECT group_concat(_id) FROM books('{author: {$in: [1, 3]}}', NULL, '{pages: -1}');
-- a sort and a limit with no filter: the index yields the order and stops early
SELECT json_remove(doc_explain('books', '{}', NULL, '{slug: -1}', '{"limit": 2}'), '$.millis');
SELECT group_concat(_id) FROM books('{}', NULL, '{slug: -1}', '{"limit": 2}');
SELECT group_concat(_id) FROM (SELECT _id FROM books('{}', NULL, '{slug: 1}') LIMIT 3 OFFSET 1);
-- multikey: sorted in memory
SELECT json_extract(doc_explain('books', '{subjects: "1920s"}', NULL, '{subjects: 1}'), '$.scanAndOrder');

-- 8. Hints: by name, by key pattern, $natural; unknown ones are errors
SELECT json_remove(doc_explain('books', '{slug: "dune"}', NULL, NULL, '{"hint": "pages_1"}'), '$.millis');
SELECT json_remove(doc_explain('books', '{}', NULL, NULL, '{"hint": {slug: 1}}'), '$.millis');
SELECT json_extract(doc_explain('books', '{slug: "dune"}', NULL, NULL, '{"hint": {$natural: 1}}'), '$.cursor');
SELECT group_concat(_id) FROM books('{}', NULL, NULL, '{"hint": {$natural: -1}}');
SELECT group_concat(_id) FROM books('{}', NULL, NULL, '{"hint": {slug: 1}}');
SELECT doc_explain('books', '{}', NULL, NULL, '{"hint": "nope_1"}');
SELECT doc_explain('books', '{}', NULL, NULL, '{"hint": {slug: -1}}');
SELECT _id FROM books('{}', NULL, NULL, '{"hint": "nope_1"}');
SELECT doc_explain('nobooks', '{}');

-- 9. $or: a union when every branch has an index, documents once; else a scan
SELECT json_remove(doc_explain('books', '{$or: [{slug: "dune"}, {pages: {$lt: 100}}, {subjects: "1920s"}]}'), '$.millis');
SELECT group_concat(_id) FROM (SELECT _id FROM books('{$or: [{slug: "dune"}, {pages: {$lt: 100}}, {subjects: "1920s"}]}') ORDER BY _id);
SELECT json_extract(doc_explain('books', '{$or: [{slug: "dune"}, {title: "Dune"}]}'), '$.cursor');
SELECT json_extract(doc_explain('books', '{available: true, $or: [{slug: "dune"}, {pages: 256}]}'), '$.cursor');

-- 10. EXPLAIN QUERY PLAN names the index when the filter is a literal
EXPLAIN QUERY PLAN SELECT _id FROM books('{pages: {$gt: 200}}');
EXPLAIN QUERY PLAN SELECT _id FROM books('{title: "Dune"}');
EXPLAIN QUERY PLAN SELECT _id FROM books('{$or: [{slug: "dune"}, {pages: 96}]}');
EXPLAIN QUERY PLAN SELECT _id FROM books WHERE doc_match(doc, '{slug: "dune"}');
EXPLAIN QUERY PLAN SELECT count(*) FROM books('{pages: {$gt: 200}}');
EXPLAIN QUERY PLAN SELECT _id FROM books('{pages: {$gt: 200}}') WHERE _id = 4;
SELECT _id FROM books('{pages: {$gt: 200}}') WHERE _id IN (1, 2, 3);

-- 11. Counts: doc_count and count(*) from index entries alone when the bounds are exact
SELECT doc_count('books'), doc_count('books', '{pages: {$gt: 200}}'), doc_count('books', '{subjects: "1920s"}');
SELECT count(*) FROM books('{pages: {$gt: 200}}');
SELECT json_remove(doc_explain('books', '{pages: {$gt: 200}}', NULL, NULL, '{"count": true}'), '$.millis');
SELECT json_remove(doc_explain('books', '{author: 3, pages: {$lt: 300}}', NULL, NULL, '{"count": true}'), '$.millis');
-- a multikey index meets a document once for one point (a document has
-- one entry per distinct element), and may meet it again for several
-- points: the count then drops the repeats, still from the entries alone
SELECT json_extract(doc_explain('books', '{subjects: "1920s"}', NULL, NULL, '{"count": true}'), '$.indexOnly');
SELECT json_extract(doc_explain('books', '{subjects: {$in: ["1920s", "Jazz Age"]}}', NULL, NULL, '{"count": true}'), '$.indexOnly');
SELECT doc_count('books', '{subjects: {$in: ["1920s", "Jazz Age"]}}'), count(*) FROM books('{subjects: {$in: ["1920s", "Jazz Age"]}}');
SELECT count(*) FROM books WHERE doc_match(doc, '{subjects: {$in: ["1920s", "Jazz Age"]}}') AND _id > 0;
-- a count over an exact plan counts the entries once and yields its rows
-- without reading them; skip and limit apply; a DELETE over the same plan
-- still gets every row's id
CREATE VIRTUAL TABLE counted USING docext;
INSERT INTO counted(doc) SELECT json_object('_id', value, 'a', value % 3, 'b', json_array(value % 2, 5))
  FROM generate_series(1, 30);
SELECT doc_create_index('counted', '{a: 1}'), doc_create_index('counted', '{b: 1}');
SELECT count(*) FROM counted('{a: 1}');
SELECT count(*) FROM counted('{b: 1}');
SELECT count(*) FROM counted('{a: 1}', NULL, NULL, '{"skip": 3, "limit": 4}');
SELECT count(*) FROM counted('{a: 1}', NULL, NULL, '{"skip": 12}');
DELETE FROM counted WHERE filter = '{a: 1}';
SELECT count(*), doc_count('counted', '{a: 1}') FROM counted;
DELETE FROM counted WHERE filter = '{b: 1}';
SELECT count(*), group_concat(_id) FROM counted('{b: 1}');
SELECT count(*), doc_check('counted') FROM counted;
-- not exact: a condition left over
SELECT json_extract(doc_explain('books', '{pages: {$gt: 200}, available: true}', NULL, NULL, '{"count": true}'), '$.indexOnly');
SELECT doc_count('books', '{pages: {$gt: 200}, available: true}');
SELECT doc_count('books', '{pages: {$bad: 1}}');

-- 12. The same answers without the indexes (the plain copy)
WITH qs(q) AS (VALUES ('{slug: "dune"}'), ('{slug: {$gt: "le", $lte: "the"}}'), ('{slug: /^dune/}'),
               ('{slug: /une/}'), ('{pages: {$gt: 200}}'), ('{pages: {$lt: "v"}}'),
               ('{pages: {$gte: 100, $lt: 300}}'), ('{language: null}'), ('{subjects: "1920s"}'),
               ('{subjects: {$gt: "M", $lt: "B"}}'), ('{subjects: {$elemMatch: {$gt: "A", $lt: "M"}}}'),
               ('{subjects: ["1920s", "Riviera"]}'), ('{subjects: {$all: ["1920s", "Riviera"]}}'),
               ('{"publisher.name": "Scribner"}'), ('{author: 1, pages: {$gt: 200}}'),
               ('{author: {$in: [1, 3]}, pages: {$lte: 300}}'), ('{pages: {$in: []}}'),
               ('{$or: [{slug: "dune"}, {pages: {$lt: 100}}, {subjects: "1920s"}]}'),
               ('{subjects: {$size: 0}}'), ('{language: {$exists: false}}'), ('{pages: NaN}'))
SELECT q, (SELECT group_concat(_id) FROM (SELECT _id FROM books(q) ORDER BY _id))
        IS (SELECT group_concat(_id) FROM (SELECT _id FROM plain(q) ORDER BY _id)),
       (SELECT count(*) FROM books(q)) = (SELECT count(*) FROM plain(q)),
       doc_count('books', q) = doc_count('plain', q)
  FROM qs;
WITH ss(s) AS (VALUES ('{slug: 1}'), ('{slug: -1}'), ('{pages: 1, _id: 1}'), ('{author: 1, pages: -1}'),
               ('{author: -1, pages: 1}'))
SELECT s, (SELECT group_concat(_id) FROM books('{}', NULL, s))
        IS (SELECT group_concat(_id) FROM plain('{}', NULL, s))
  FROM ss;
SELECT doc_check('books');

-- 13. A.7: a tree of subjects; sub-categories through a multikey index
CREATE VIRTUAL TABLE subjects USING docext;
INSERT INTO subjects(doc) VALUES
  ('{_id: "American Literature", ancestors: [], parent: null}'),
  ('{_id: "1920s", ancestors: ["American Literature"], parent: "American Literature"}'),
  ('{_id: "Jazz Age", ancestors: ["American Literature", "1920s"], parent: "1920s"}'),
  ('{_id: "Jazz Age Music", ancestors: ["American Literature", "1920s", "Jazz Age"], parent: "Jazz Age"}'),
  ('{_id: "Lost Generation", ancestors: ["American Literature", "1920s"], parent: "1920s"}');
SELECT doc_create_index('subjects', '{ancestors: 1}');
SELECT json_remove(doc_explain('subjects', '{ancestors: "1920s"}'), '$.millis');
SELECT _id FROM subjects('{ancestors: "1920s"}');
SELECT json_extract(doc_explain('subjects', '{parent: null}'), '$.cursor'), group_concat(_id) FROM subjects('{parent: null}');
SELECT doc_check('subjects');

-- 14. A.9: recommend once: a unique compound index; count by book
CREATE VIRTUAL TABLE recommendations USING docext;
SELECT doc_create_index('recommendations', '{book: 1, user: 1}', '{unique: true}');
INSERT INTO recommendations(doc) VALUES ('{_id: 1, book: 1, user: 1}'), ('{_id: 2, book: 1, user: 2}'),
  ('{_id: 3, book: 2, user: 1}');
INSERT INTO recommendations(doc) VALUES ('{_id: 4, book: 1, user: 2}');
SELECT json_remove(doc_explain('recommendations', '{book: 1, user: 2}'), '$.millis');
SELECT json_remove(doc_explain('recommendations', '{book: 1}', NULL, NULL, '{"count": true}'), '$.millis');
SELECT doc_count('recommendations', '{book: 1}');
SELECT doc_check('recommendations');

-- 15. A.11: single-collection inheritance with sparse indexes
SELECT doc_create_index('books', '{series_title: 1}', '{sparse: true}');
SELECT doc_create_index('books', '{volume: 1}', '{sparse: true}');
SELECT json_remove(doc_explain('books', '{series_title: {$exists: true}}'), '$.millis');
SELECT json_remove(doc_explain('books', '{volume: {$gt: 0}}'), '$.millis');
SELECT group_concat(_id) FROM books('{series_title: {$exists: true}}');
SELECT group_concat(_id) FROM books('{volume: {$gt: 0}}');
-- a sparse index lacks the documents without the field: never used for null
SELECT json_extract(doc_explain('books', '{volume: null}'), '$.cursor'), doc_count('books', '{volume: null}');
SELECT json_extract(doc_explain('books', '{volume: {$exists: false}}'), '$.cursor');
-- hinted anyway, it gives what it holds, as MongoDB does
SELECT doc_count('books', '{}'), (SELECT count(*) FROM books('{}', NULL, NULL, '{"hint": "volume_1"}'));
SELECT doc_check('books');

-- 16. Partial indexes serve the queries that imply their filter
SELECT doc_create_index('books', '{title: 1}', '{partialFilterExpression: {pages: {$gt: 100}}}');
SELECT json_extract(doc_explain('books', '{title: "Dune", pages: {$gt: 300}}'), '$.cursor');
SELECT json_extract(doc_explain('books', '{title: "Dune", pages: {$gte: 100}}'), '$.cursor');
SELECT json_extract(doc_explain('books', '{title: "Dune"}'), '$.cursor');
SELECT group_concat(_id) FROM books('{title: {$gte: "D"}, pages: {$gt: 300}}');

-- 17. B.4: history retention: $elemMatch on an embedded array; a TTL index hides expired days
SELECT doc_config('clock', '2013-03-08T12:00:00Z');
CREATE VIRTUAL TABLE inbox USING docext;
INSERT INTO inbox(doc) VALUES
  ('{_id: 1, owner: "joe", sequence: ISODate("2013-03-08T00:00:00Z"),
     messages: [{from: "bob", sent: ISODate("2013-03-08T10:00:00Z")}, {from: "ann", sent: ISODate("2013-03-08T11:00:00Z")}]}'),
  ('{_id: 2, owner: "joe", sequence: ISODate("2013-03-09T00:00:00Z"),
     messages: [{from: "bob", sent: ISODate("2013-03-09T09:00:00Z")}]}'),
  ('{_id: 3, owner: "ann", sequence: ISODate("2013-03-09T00:00:00Z"), messages: []}');
SELECT doc_create_index('inbox', '{"messages.sent": 1}');
SELECT doc_create_index('inbox', '{sequence: 1}', '{expireAfterSeconds: 86400}');
SELECT json_remove(doc_explain('inbox', '{messages: {$elemMatch: {sent: {$gte: ISODate("2013-03-08T10:30:00Z")}, from: "bob"}}}'), '$.millis');
SELECT group_concat(_id) FROM inbox('{messages: {$elemMatch: {sent: {$gte: ISODate("2013-03-08T10:30:00Z")}}}}');
SELECT count(*), doc_count('inbox') FROM inbox;
SELECT doc_config('clock', '2013-03-09T12:00:00Z');
SELECT count(*), doc_count('inbox'), doc_count('inbox', '{owner: "joe"}') FROM inbox;
SELECT group_concat(_id) FROM inbox('{messages: {$elemMatch: {sent: {$gte: ISODate("2013-03-08T10:30:00Z")}}}}');
SELECT group_concat(_id) FROM inbox('{sequence: {$gte: ISODate("2013-01-01T00:00:00Z")}}');
SELECT doc_config('clock', '2013-03-10T12:00:00Z');
SELECT count(*), doc_count('inbox') FROM inbox;
SELECT json_extract(doc_explain('inbox', '{sequence: {$lt: ISODate("2014-01-01T00:00:00Z")}}', NULL, NULL, '{"count": true}'), '$.indexOnly');
SELECT doc_config('clock', NULL);
SELECT doc_check('inbox');

-- 18. C: attributes as a sub-document (an index per attribute) or as an array of one-key documents
CREATE VIRTUAL TABLE attrs USING docext;
INSERT INTO attrs(doc) VALUES
  ('{_id: 1, attr: {type: "text", size: 64}, kv: [{type: "text"}, {size: 64}]}'),
  ('{_id: 2, attr: {type: "image", size: 4096}, kv: [{type: "image"}, {size: 4096}]}'),
  ('{_id: 3, attr: {type: "video", size: 65536}, kv: [{type: "video"}, {size: 65536}]}');
SELECT doc_create_index('attrs', '{"attr.size": 1}');
SELECT doc_create_index('attrs', '{kv: 1}');
SELECT doc_create_index('attrs', '{"kv.size": 1}');
SELECT json_remove(doc_explain('attrs', '{"attr.size": {$gt: 64, $lte: 16384}}'), '$.millis');
SELECT json_remove(doc_explain('attrs', '{kv: {size: 64}}'), '$.millis');
SELECT group_concat(_id) FROM attrs('{kv: {size: 64}}');
SELECT json_remove(doc_explain('attrs', '{kv: {$elemMatch: {size: {$gt: 64}}}}'), '$.millis');
SELECT group_concat(_id) FROM attrs('{kv: {$elemMatch: {size: {$gt: 64}}}}');
SELECT doc_check('attrs');

-- 19. D: one document per identity, a unique index on an embedded document
CREATE VIRTUAL TABLE identities USING docext;
SELECT doc_create_index('identities', '{identifier: 1}', '{unique: true}');
INSERT INTO identities(doc) VALUES
  ('{identifier: {email: "joe@abc.com"}, user: "1200-42"}'),
  ('{identifier: {fb: "joe.smith"}, user: "1200-42"}'),
  ('{identifier: {email: "ann@abc.com"}, user: "1200-43"}');
SELECT json_remove(doc_explain('identities', '{identifier: {email: "joe@abc.com"}}'), '$.millis');
SELECT doc->>'user' FROM identities('{identifier: {email: "joe@abc.com"}}');
SELECT doc_check('identities');

-- 20. E.3: one-to-squillions: the latest messages of a host, read in index order
CREATE VIRTUAL TABLE logmsg USING docext;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<300)
INSERT INTO logmsg(doc) SELECT json_object('_id', i, 'host', i % 3, 'time', i * 10, 'message', 'm' || i) FROM n;
SELECT doc_create_index('logmsg', '{host: 1, time: -1}');
SELECT json_remove(doc_explain('logmsg', '{host: 2}', NULL, '{time: -1}', '{"limit": 5}'), '$.millis');
SELECT group_concat(_id) FROM logmsg('{host: 2}', NULL, '{time: -1}', '{"limit": 5}');
SELECT group_concat(_id) FROM (SELECT _id FROM logmsg('{host: 2}', NULL, '{time: 1}') LIMIT 5);
SELECT json_extract(doc_explain('logmsg', '{host: 2, time: {$gt: 2950}}', NULL, '{time: 1}'), '$.nscanned');
SELECT doc_check('logmsg');

-- 21. Hashed indexes: equality only; values are found by their hash (1.5 hashes as 1)
SELECT doc_create_index('books', '{title: "hashed"}');
SELECT json_remove(doc_explain('books', '{title: {$in: ["Dune", "Dune Messiah"]}}'), '$.millis');
SELECT json_extract(doc_explain('books', '{title: {$gt: "D"}}'), '$.cursor');
SELECT doc_create_index('books', '{volume: "hashed"}');
SELECT json_remove(doc_explain('books', '{volume: 1.5}', NULL, NULL, '{"hint": "volume_hashed"}'), '$.millis');
SELECT group_concat(_id), json_extract(doc_explain('books', '{volume: 2.0}'), '$.cursor') FROM books('{volume: 2.0}');
SELECT json_extract(doc_explain('books', '{volume: 2.0}', NULL, NULL, '{"count": true}'), '$.indexOnly');
SELECT doc_check('books');

-- 22. Covered queries (indexOnly): an exact plan on an index that is not
--     hashed, a projection of its fields only (_id excluded unless indexed;
--     on a multikey index, fields that never held an array), no sort or
--     the index's order: the results come from
--     the entries' vals and no document is read (nscannedObjects 0). Each
--     answer is compared with the same query on a collection without index.
CREATE VIRTUAL TABLE cov USING docext;
CREATE VIRTUAL TABLE covplain USING docext;
INSERT INTO cov(doc) SELECT doc FROM plain;
INSERT INTO covplain(doc) SELECT doc FROM plain;
INSERT INTO cov(doc) VALUES ('{_id: 100, title: "Nameless", author: 4, language: "English", pages: 88,
                               publisher: { city: "Paris" } }');
INSERT INTO covplain(doc) VALUES ('{_id: 100, title: "Nameless", author: 4, language: "English", pages: 88,
                                    publisher: { city: "Paris" } }');
SELECT doc_create_index('cov', '{language: 1, pages: 1}');
SELECT doc_create_index('cov', '{author: 1, "publisher.name": 1}');
SELECT doc_create_index('cov', '{slug: 1, _id: 1}');
SELECT doc_create_index('cov', '{subjects: 1}');
SELECT doc_create_index('cov', '{title: "hashed"}');
CREATE TEMP TABLE covq(q INTEGER PRIMARY KEY, f, p, s, o);
INSERT INTO covq(f, p, s, o) VALUES
  -- covered
  ('{language: "English"}', '{language: 1, pages: 1, _id: 0}', NULL, NULL),
  ('{language: "English", pages: {$gt: 200}}', '{pages: 1, _id: 0}', '{pages: -1}', '{limit: 2}'),
  ('{language: "English", pages: {$gte: 100, $lt: 300}}', '{pages: 1, language: 1, _id: false}', NULL, NULL),
  ('{author: {$gte: 1}}', '{author: 1, "publisher.name": 1, _id: 0}', NULL, NULL),
  ('{author: {$in: [1, 4]}}', '{"publisher.name": 1, _id: 0}', NULL, NULL),
  ('{slug: {$gt: "d", $lt: "e"}}', '{slug: 1, _id: 1}', NULL, NULL),
  ('{slug: {$gte: "t"}}', '{_id: 1}', '{slug: 1, _id: 1}', '{skip: 1}'),
  -- almost covered: the normal path
  ('{language: "English"}', '{language: 1, pages: 1}', NULL, NULL),
  ('{language: "English"}', '{language: 1, title: 1, _id: 0}', NULL, NULL),
  ('{language: "English"}', '{language: 0, _id: 0}', NULL, NULL),
  ('{language: "English", available: true}', '{language: 1, pages: 1, _id: 0}', NULL, NULL),
  ('{language: "English", pages: {$gt: 200}}', '{pages: 1, _id: 0}', '{title: 1}', NULL),
  ('{language: null}', '{language: 1, _id: 0}', NULL, NULL),
  ('{author: {$gte: 1}}', '{publisher: 1, _id: 0}', NULL, NULL),
  ('{subjects: "1920s"}', '{subjects: 1, _id: 0}', NULL, NULL),
  ('{title: "Dune"}', '{title: 1, _id: 0}', NULL, NULL),
  ('{language: "English"}', '{language: 1, pages: {$slice: 1}, _id: 0}', NULL, NULL);
SELECT q, json_extract(e, '$.cursor'), json_extract(e, '$.n'), json_extract(e, '$.nscanned'),
       json_extract(e, '$.nscannedObjects'), json_extract(e, '$.indexOnly')
FROM (SELECT q, doc_explain('cov', f, p, s, o) AS e FROM covq);
SELECT q, (SELECT group_concat(doc, ' ') FROM cov(covq.f, covq.p, covq.s, covq.o))
FROM covq ORDER BY q;
-- identical BSON with and without the index: how many queries differ (in
-- order when sorted, else as sets)
SELECT count(*) FROM covq
WHERE (s IS NOT NULL
       AND (SELECT group_concat(hex(bson), ',') FROM cov(covq.f, covq.p, covq.s, covq.o))
   IS NOT (SELECT group_concat(hex(bson), ',') FROM covplain(covq.f, covq.p, covq.s, covq.o)))
   OR (SELECT group_concat(h, ',') FROM (SELECT hex(bson) AS h FROM cov(covq.f, covq.p, covq.s, covq.o) ORDER BY h))
   IS NOT (SELECT group_concat(h, ',') FROM (SELECT hex(bson) AS h FROM covplain(covq.f, covq.p, covq.s, covq.o) ORDER BY h));
-- vals follow the document when the key does not change (176 -> 176.0,
-- field order), and a covered projection never shows the stale value
UPDATE cov SET doc = doc_update(doc, '{$set: {pages: 176.0}}') WHERE _id = 1;
UPDATE covplain SET doc = doc_update(doc, '{$set: {pages: 176.0}}') WHERE _id = 1;
UPDATE cov SET doc = '{_id: 100, publisher: { city: "Paris", name: "Gallimard" }, pages: 88, language: "English", author: 4}' WHERE _id = 100;
UPDATE covplain SET doc = '{_id: 100, publisher: { city: "Paris", name: "Gallimard" }, pages: 88, language: "English", author: 4}' WHERE _id = 100;
SELECT doc, json_extract(doc_explain('cov', '{language: "English", pages: {$lt: 200}}', '{pages: 1, _id: 0}'), '$.indexOnly')
FROM cov('{language: "English", pages: {$lt: 200}}', '{pages: 1, _id: 0}');
SELECT group_concat(hex(bson)) FROM cov('{author: 4}', '{"publisher.name": 1, author: 1, _id: 0}')
UNION ALL
SELECT group_concat(hex(bson)) FROM covplain('{author: 4}', '{"publisher.name": 1, author: 1, _id: 0}');
-- (defensive mode off, so that the shadow tables can be changed by hand:
-- the shells of SQLite 3.41 and later turn it on)
.dbconfig defensive off
-- an entry without vals (written before vals existed) reads its document
UPDATE cov_idx SET vals = NULL WHERE docid = (SELECT rowid FROM cov WHERE _id = 4);
SELECT json_extract(e, '$.n'), json_extract(e, '$.nscannedObjects'), json_extract(e, '$.indexOnly')
FROM (SELECT doc_explain('cov', '{language: "English"}', '{language: 1, pages: 1, _id: 0}') AS e);
SELECT group_concat(doc, ' ') FROM cov('{language: "English"}', '{language: 1, pages: 1, _id: 0}');
-- once an index turns multikey, it covers only the fields that never held
-- an array: language still (only _id 4, without vals, is read), pages not
INSERT INTO cov(doc) VALUES ('{_id: 9, language: "English", pages: [1, 2]}');
SELECT json_extract(doc_explain('cov', '{language: "English"}', '{language: 1, _id: 0}'), '$.n', '$.nscannedObjects', '$.indexOnly');
SELECT json_extract(doc_explain('cov', '{language: "English"}', '{pages: 1, _id: 0}'), '$.n', '$.nscannedObjects', '$.indexOnly');
SELECT group_concat(doc, ' ') FROM cov('{language: "English"}', '{language: 1, _id: 0}');
SELECT group_concat(doc, ' ') FROM cov('{language: "English", pages: {$lt: 100}}', '{language: 1, pages: 1, _id: 0}');
SELECT doc_check('cov');
-- vals over 1024 bytes are not stored: an update that makes them too large
-- (the same key: 100 int32 become doubles) clears them, the document is read
CREATE VIRTUAL TABLE covbig USING docext;
SELECT doc_create_index('covbig', '{o: 1}');
INSERT INTO covbig(doc) SELECT json_object('_id', 1, 'o', json_group_object('f' || value, value))
FROM generate_series(1, 100);
SELECT length(vals), json_extract(doc_explain('covbig', '{o: {$gte: {}}}', '{o: 1, _id: 0}'), '$.indexOnly')
FROM covbig_idx;
UPDATE covbig SET doc = doc_update(doc, '{$mul: {' ||
  (SELECT group_concat('"o.f' || value || '": 1.0', ',') FROM generate_series(1, 100)) || '}}');
SELECT vals IS NULL, json_extract(doc_explain('covbig', '{o: {$gte: {}}}', '{o: 1, _id: 0}'), '$.nscannedObjects')
FROM covbig_idx;
SELECT substr(doc, 1, 40) FROM covbig('{o: {$gte: {}}}', '{o: 1, _id: 0}');
SELECT doc_check('covbig');
-- doc_check compares stored vals with the document's (NULL always passes)
UPDATE cov_idx SET vals = (SELECT vals FROM cov_idx WHERE docid = (SELECT rowid FROM cov WHERE _id = 2)
                             AND ix = (SELECT id FROM cov_idxdef WHERE name = 'author_1_publisher.name_1'))
WHERE docid = (SELECT rowid FROM cov WHERE _id = 3)
  AND ix = (SELECT id FROM cov_idxdef WHERE name = 'author_1_publisher.name_1');
SELECT doc_check('cov');
UPDATE cov_idx SET vals = NULL WHERE docid = (SELECT rowid FROM cov WHERE _id = 3);
SELECT doc_check('cov');
