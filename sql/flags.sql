-- Function flags, as SQLite's documentation recommends: pure functions are
-- SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS (expression indexes, generated
-- columns, CHECK constraints, views of untrusted schemas); doc_oid and
-- doc_update (the clock, for $currentDate) are not deterministic; functions
-- with side effects or that name collections are SQLITE_DIRECTONLY.
.load ./docext
.headers off
.mode list

-- 1. Deterministic: generated columns, expression and partial indexes, CHECK.
CREATE TABLE books(d TEXT CHECK (doc_valid(d)), title AS (doc_get(d, 'title')), kind AS (doc_type(d, 'pages')));
CREATE INDEX books_pages ON books(doc_get(d, 'pages'));
CREATE INDEX books_json ON books(doc_json(d, 'canonical')) WHERE doc_match(d, '{pages: {$gt: 0}}');
CREATE INDEX books_bson ON books(doc_bson(d), doc_project(d, '{title: 1}'));
INSERT INTO books(d) VALUES ('{_id: 1, title: "Dune", pages: 412}'), ('{_id: 2, title: "Emma", pages: NumberLong(474)}');
INSERT INTO books(d) VALUES ('{not a document');
SELECT title, kind FROM books WHERE doc_get(d, 'pages') > 420;
EXPLAIN QUERY PLAN SELECT title FROM books WHERE doc_get(d, 'pages') > 420;
PRAGMA integrity_check;

-- 2. Not deterministic: doc_oid (a new ObjectId each call), doc_update.
CREATE INDEX bad1 ON books(doc_oid());
CREATE INDEX bad2 ON books(doc_update(d, '{$set: {seen: true}}'));
CREATE TABLE bad3(d, x AS (doc_update(d, '{$currentDate: {at: true}}')));
SELECT count(DISTINCT doc_oid()) FROM generate_series(1, 5);

-- 3. Innocuous functions and doc_each work in views of an untrusted schema;
--    direct-only ones (doc_config, the collection commands) never do.
PRAGMA trusted_schema = OFF;
CREATE VIEW v_ok AS SELECT doc_json('{a: 1}', 'shell') AS j, length(doc_oid()) AS n,
  (SELECT count(*) FROM doc_each('[{a: 1}, {a: 2}]')) AS c, doc_get(doc_update('{a: 1}', '{$inc: {a: 1}}'), 'a') AS u;
SELECT * FROM v_ok;
CREATE VIEW v_clock AS SELECT doc_config('clock') AS c;
SELECT * FROM v_clock;
CREATE VIRTUAL TABLE coll USING docext;
CREATE VIEW v_count AS SELECT doc_count('coll') AS n;
SELECT * FROM v_count;
CREATE VIEW v_distinct AS SELECT doc_distinct('coll', 'a') AS d;
SELECT * FROM v_distinct;
CREATE TRIGGER tr AFTER INSERT ON books BEGIN SELECT doc_create_index('coll', '{a: 1}'); END;
INSERT INTO books(d) VALUES ('{_id: 3}');
SELECT count(*) FROM books;
CREATE VIEW v_coll_mod AS SELECT doc_coll_mod('coll', '{validator: {a: {$exists: true}}}') AS s;
SELECT * FROM v_coll_mod;
SELECT doc_coll_mod('coll', '{}');
