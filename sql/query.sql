-- The query language over a collection: filters, projection, sort, skip,
-- limit; the table-valued form and the hidden columns; doc_match pushdown.
.load ./docext
.headers off
.mode list

CREATE VIRTUAL TABLE authors USING docext;
INSERT INTO authors(doc) VALUES
  ('{ _id: 1, first_name: "F. Scott", last_name: "Fitzgerald" }'),
  ('{ _id: 2, first_name: "Ernest", last_name: "Hemingway" }'),
  ('{ _id: 3, first_name: "Frank", last_name: "Herbert" }');
CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES
  ('{ _id: 1, title: "The Great Gatsby", slug: "9781857150193-the-great-gatsby", author: 1, available: true,
      isbn: "9781857150193", pages: 176, language: "English",
      publisher: { name: "Everyman''s Library", date: ISODate("1991-09-19T00:00:00Z"), city: "London" },
      subjects: ["Love stories", "1920s", "Jazz Age"],
      reviews: [ { user: 1, text: "One of the best…" }, { user: 2, text: "It''s hard to…" } ] }'),
  ('{ _id: 2, title: "Tender Is the Night", author: 1, available: false, pages: 320, language: "English",
      publisher: { name: "Scribner", city: "New York" }, subjects: ["1920s", "Riviera"],
      reviews: [ { user: 3, text: "Dark." } ] }'),
  ('{ _id: 3, title: "The Sun Also Rises", author: 2, available: true, pages: 251, language: "English",
      publisher: { name: "Scribner", city: "New York" }, subjects: ["Lost Generation", "1920s"], reviews: [] }'),
  ('{ _id: 4, title: "Dune", author: 3, available: true, pages: 412, language: "English",
      publisher: { name: "Chilton", city: "Philadelphia" }, subjects: ["Science fiction"], series_title: "Dune", volume: 1 }'),
  ('{ _id: 5, title: "Le Petit Prince", author: { first_name: "Antoine", last_name: "de Saint-Exupéry" },
      available: false, pages: 96, language: "French", subjects: ["Children"], tags: null }');

-- 1. Table-valued form and the filter column, the same thing
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{ subjects: "Jazz Age", pages: {$gt: 100} }'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books WHERE filter = '{"author": 1}');
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{author: 1}'));
SELECT doc FROM books('{author: 1}', '{title: 1, _id: 0}');
SELECT doc->>'title' FROM books('{ "publisher.name": "Everyman''s Library" }');
SELECT count(*) FROM books('{available: true}');
SELECT count(*) FROM books;
SELECT count(*) FROM books(NULL);

-- 2. Embed or link (A.1): an application-level join, and the one-step query
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM authors('{first_name: /^f.*/i}', '{_id: 1}'));
SELECT b._id FROM authors a, books b
 WHERE a.filter = '{first_name: /^f.*/i}' AND b.filter = json_object('author', a._id) ORDER BY 1;
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{ "author.first_name": /^a.*/i }'));

-- 3. Sort, skip, limit; SQL LIMIT/OFFSET on top
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{pages: -1}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{pages: -1}') LIMIT 2);
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{pages: -1}') LIMIT 2 OFFSET 1);
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{pages: 1}', '{"skip": 1, "limit": 2}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{language: 1, pages: -1}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{subjects: 1}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{subjects: -1}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{"publisher.city": 1, _id: -1}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{}', '{"limit": 3}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, NULL, '{"hint": "_id_"}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books LIMIT 2 OFFSET 3);

-- 4. Operators (A.3)
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{pages: {$gte: 251, $lt: 412}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{pages: {$lte: 176}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{author: {$ne: 1}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{subjects: {$all: ["1920s", "Riviera"]}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{author: {$in: [2, 3]}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{author: {$nin: [1, 2]}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{subjects: {$size: 3}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{$and: [{available: true}, {pages: {$gt: 200}}]}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{$or: [{author: 2}, {language: "French"}]}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{$nor: [{available: true}, {language: "French"}]}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{pages: {$mod: [2, 0]}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{author: {$type: "object"}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{series_title: {$exists: true}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{tags: null}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{title: {$regex: "^the", $options: "i"}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{subjects: "1920s"}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{reviews: {$elemMatch: {user: {$gt: 1}, text: /^I/}}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{"reviews.user": 2}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{"reviews.0.user": 3}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{reviews: {$size: 0}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{pages: {$not: {$gt: 200}}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{volume: {$gt: 0}}'));

-- 5. Projections
SELECT doc FROM books('{_id: 1}', '{title: 1, "publisher.city": 1}');
SELECT doc FROM books('{_id: 1}', '{reviews: 0, publisher: 0, subjects: 0}');
SELECT doc FROM books('{_id: 1}', '{reviews: {$slice: 1}, title: 1}');
SELECT doc FROM books('{_id: 1}', '{subjects: {$slice: -2}, _id: 0}');
SELECT doc FROM books('{_id: 1}', '{reviews: {$elemMatch: {user: 2}}}');
SELECT doc FROM books('{"reviews.user": 2}', '{"reviews.$": 1}');
SELECT doc FROM books('{_id: 1}', '{"reviews.user": 1}');
SELECT doc_json(bson) FROM books('{_id: 4}', '{title: 1}');

-- 6. doc_match: on any value, and pushed down on a collection's doc column
SELECT doc_match('{a: [1, 5]}', '{a: {$gt: 4}}'), doc_match('{a: "x"}', '{a: {$gt: 4}}');
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books WHERE doc_match(doc, '{language: "French"}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books WHERE doc_match(doc, '{available: true}') AND doc_match(doc, '{pages: {$gt: 300}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{available: true}') WHERE doc_match(doc, '{author: 3}'));
SELECT doc_project('{a: 1, b: 2, c: [1, 2, 3]}', '{c: {$slice: 2}, a: 1}');
EXPLAIN QUERY PLAN SELECT _id FROM books WHERE doc_match(doc, '{language: "French"}');

-- 7. Combining with _id constraints and SQL
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{available: true}') WHERE _id > 1);
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{available: true}') WHERE _id IN (1, 2, 4));
SELECT doc->>'title' FROM books('{available: true}') ORDER BY doc->>'title' LIMIT 2;
-- a filter argument and a filter constraint are both applied (ANDed), with doc_match too
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{available: true}') WHERE filter = '{pages: {$gt: 200}}');
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{available: true}') WHERE filter = '{pages: {$gt: 200}}' AND doc_match(doc, '{author: 2}'));
-- a second projection, sort or options is an error, not an empty result
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', '{title: 1}') WHERE projection = '{pages: 1}');
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{pages: 1}') WHERE sort = '{pages: -1}');
-- up to eight filters (the argument, one filter = term, doc_match terms) are pushed down and
-- ANDed; a ninth doc_match is left to SQLite, which calls doc_match itself: the same answer
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{available: true}')
 WHERE filter = '{pages: {$gt: 1}}' AND doc_match(doc, '{pages: {$gt: 2}}')
   AND doc_match(doc, '{pages: {$gt: 3}}') AND doc_match(doc, '{pages: {$gt: 4}}')
   AND doc_match(doc, '{pages: {$gt: 5}}') AND doc_match(doc, '{pages: {$gt: 6}}')
   AND doc_match(doc, '{pages: {$gt: 200}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{available: true}')
 WHERE filter = '{pages: {$gt: 1}}' AND doc_match(doc, '{pages: {$gt: 2}}')
   AND doc_match(doc, '{pages: {$gt: 3}}') AND doc_match(doc, '{pages: {$gt: 4}}')
   AND doc_match(doc, '{pages: {$gt: 5}}') AND doc_match(doc, '{pages: {$gt: 6}}')
   AND doc_match(doc, '{pages: {$gt: 7}}') AND doc_match(doc, '{pages: {$gt: 200}}'));
-- (the plan: the argument F, one filter = F, six doc_match M)
EXPLAIN QUERY PLAN SELECT _id FROM books('{available: true}')
 WHERE filter = '{pages: {$gt: 1}}' AND doc_match(doc, '{pages: {$gt: 2}}')
   AND doc_match(doc, '{pages: {$gt: 3}}') AND doc_match(doc, '{pages: {$gt: 4}}')
   AND doc_match(doc, '{pages: {$gt: 5}}') AND doc_match(doc, '{pages: {$gt: 6}}')
   AND doc_match(doc, '{pages: {$gt: 7}}') AND doc_match(doc, '{pages: {$gt: 200}}');

-- 8. Errors name the operator or path; nothing runs
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{pages: {$foo: 1}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{$where: "this.a > 1"}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{pages: {$in: 5}}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{title: 1'));
SELECT doc FROM books('{}', '{title: 1, pages: 0}');
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, '{pages: "up"}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, NULL, '{"limit": "ten"}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, NULL, '{"hint": "slug_1"}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books('{}', NULL, NULL, '{"colour": 1}'));
SELECT group_concat(x, ' ') FROM (SELECT _id AS x FROM books WHERE filter > '{}');
