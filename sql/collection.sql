-- Collections: create, write, read by _id, conflicts, limits, drop, rename.
.load ./docext
.headers off
.mode list

-- 1. Create a collection; insert in mongo shell syntax, JSON and Extended JSON.
CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES ('{ _id: 1, title: "The Great Gatsby", author: 1 }');
INSERT INTO books(doc) VALUES ('{"_id": 2, "title": "Tender Is the Night", "pages": 320}');
INSERT INTO books(doc) VALUES ('{"_id": {"$numberLong": "3"}, "title": "This Side of Paradise"}');
INSERT INTO books(doc) VALUES ('{title: "Gatsby, again", _id: "g2", pages: 180.0}');
SELECT doc FROM books;
SELECT _id, typeof(_id) FROM books;

-- 2. A document without _id gets a new ObjectId, stored first.
INSERT INTO books(doc) VALUES ('{ title: "No id" }');
SELECT doc_type(doc, '_id'), length(doc_get(doc, '_id')),
       substr(doc, 1, 16), doc_get(doc, 'title') FROM books WHERE rowid = 5;
SELECT _id LIKE '{"$oid":"%"}' FROM books WHERE rowid = 5;

-- 3. Reads by _id use the _id index.
SELECT doc FROM books WHERE _id = 1;
SELECT doc FROM books WHERE _id = 1.0;
SELECT doc FROM books WHERE _id = 'g2';
SELECT doc->>'title' FROM books WHERE _id IN (3, 1, 1.0, 'g2', 'nope') ORDER BY 1;
SELECT doc->>'title' FROM books WHERE _id > 1;
SELECT doc->>'title' FROM books WHERE _id BETWEEN 2 AND 3;
SELECT doc->>'title' FROM books WHERE _id < 'h';
SELECT count(*) FROM books WHERE _id > 1 AND _id < 'z';
SELECT doc->>'title' FROM books WHERE _id = (SELECT _id FROM books WHERE rowid = 5);
EXPLAIN QUERY PLAN SELECT doc FROM books WHERE _id = 1;

-- 4. Duplicate _id: E11000, nothing changes; 1 and 1.0 are the same _id.
INSERT INTO books(doc) VALUES ('{ _id: 1, title: "dup" }');
INSERT INTO books(doc) VALUES ('{ _id: 1.0, title: "dup" }');
INSERT INTO books(doc) VALUES ('{ _id: "g2" }');
SELECT count(*) FROM books;
-- a multi-row INSERT that fails on its third row inserts nothing
INSERT INTO books(doc) VALUES ('{_id: 10}'), ('{_id: 11}'), ('{_id: 10}');
SELECT count(*) FROM books WHERE _id IN (10, 11);

-- 5. OR IGNORE skips a duplicate; OR REPLACE replaces the document in place.
INSERT OR IGNORE INTO books(doc) VALUES ('{ _id: 1, title: "ignored" }');
SELECT doc->>'title' FROM books WHERE _id = 1;
INSERT OR REPLACE INTO books(doc) VALUES ('{ _id: 1, title: "The Great Gatsby", pages: 176 }');
SELECT rowid, doc FROM books WHERE _id = 1;
INSERT OR REPLACE INTO books(doc) VALUES ('{ _id: 99, title: "new through OR REPLACE" }');
SELECT doc FROM books WHERE _id = 99;

-- 6. Replacement UPDATE keeps _id; a replacement without _id keeps the old
--    one; changing _id is an error.
UPDATE books SET doc = '{ _id: 1, title: "Gatsby" }' WHERE _id = 1;
SELECT doc FROM books WHERE _id = 1;
UPDATE books SET doc = '{ title: "Gatsby (no _id given)" }' WHERE _id = 1;
SELECT doc FROM books WHERE _id = 1;
UPDATE books SET doc = '{ _id: 7, title: "moved" }' WHERE _id = 1;
UPDATE books SET doc = '{ _id: NumberLong(1), title: "same _id, other type" }' WHERE _id = 1;
SELECT doc FROM books WHERE _id = 1;
UPDATE books SET _id = 5 WHERE _id = 1;
UPDATE books SET bson = doc_bson('{ _id: 1, title: "through bson" }') WHERE _id = 1;
SELECT doc FROM books WHERE _id = 1;
SELECT hex(bson) FROM books WHERE _id = 2;

-- 7. DELETE by _id and by scan.
DELETE FROM books WHERE _id = 99;
DELETE FROM books WHERE doc->>'title' = 'No id';
SELECT _id FROM books ORDER BY rowid;

-- 8. Bad input: a clear docext error, nothing changed.
INSERT INTO books(doc) VALUES ('{ title: "unterminated }');
INSERT INTO books(doc) VALUES ('{ a: 1,
  b: [1, 2,, 3] }');
INSERT INTO books(doc) VALUES (x'0500000001');
INSERT INTO books(doc) VALUES (x'0c0000000861000200');
INSERT INTO books(doc) VALUES ('{ "$set": 1 }');
INSERT INTO books(doc) VALUES ('{ a: { "b.c": 1 } }');
INSERT INTO books(doc) VALUES ('{ _id: [1, 2] }');
INSERT INTO books(doc) VALUES ('{ _id: /re/ }');
INSERT INTO books(doc) VALUES ('{ _id: undefined }');
INSERT INTO books(doc) VALUES (42);
INSERT INTO books(doc) VALUES (NULL);
INSERT INTO books(_id, doc) VALUES (5, '{ a: 1 }');
INSERT INTO books(doc, bson) VALUES ('{ a: 1 }', doc_bson('{ a: 1 }'));
INSERT INTO books(filter) VALUES ('{}');
INSERT INTO books(rowid, doc) VALUES (500, '{ a: 1 }');
-- nesting: 100 levels below the root are allowed, 101 are not
INSERT INTO books(doc) VALUES ('{_id: "deep100", a: ' || replace(printf('%.100c', '['), '[', '[') || replace(printf('%.100c', ']'), ']', ']') || '}');
INSERT INTO books(doc) VALUES ('{_id: "deep101", a: ' || replace(printf('%.101c', '['), '[', '[') || replace(printf('%.101c', ']'), ']', ']') || '}');
-- 16 MiB: a document of 16 MiB + 1 byte is refused
INSERT INTO books(doc) VALUES (doc_bson('{_id: "big", s: "' || printf('%.16777200c', 'x') || '"}'));
SELECT count(*), sum(length(doc)) FROM books;

-- 9. Transactions and savepoints.
BEGIN;
INSERT INTO books(doc) VALUES ('{ _id: 20 }');
SAVEPOINT s1;
INSERT INTO books(doc) VALUES ('{ _id: 21 }');
ROLLBACK TO s1;
INSERT INTO books(doc) VALUES ('{ _id: 22 }');
COMMIT;
BEGIN;
INSERT INTO books(doc) VALUES ('{ _id: 23 }');
DELETE FROM books WHERE _id = 1;
ROLLBACK;
SELECT _id FROM books WHERE _id >= 1 ORDER BY _id;

-- 10. Shadow tables: listed, protected by SQLITE_DBCONFIG_DEFENSIVE, dropped.
SELECT name FROM sqlite_schema WHERE name LIKE 'books%' AND type = 'table' ORDER BY name;
.dbconfig defensive on
INSERT INTO books_docs(idkey, size) VALUES (x'00', 1);
.dbconfig defensive off
ALTER TABLE books RENAME TO novels;
SELECT name FROM sqlite_schema WHERE name LIKE 'novels%' AND type = 'table' ORDER BY name;
SELECT count(*) FROM novels;
DROP TABLE novels;
SELECT count(*) FROM sqlite_schema WHERE name LIKE 'novels%' OR name LIKE 'books%';

-- 11. Unknown arguments to CREATE VIRTUAL TABLE are refused.
CREATE VIRTUAL TABLE bad USING docext(pagesize=10);

-- 12. Loading docext again (as the README's tour does) keeps the tables it
-- connected before: the commands of the new load find them, and closing
-- the connection lets go of everything once (test_readme runs the tour
-- under ASan; so does this script).
CREATE VIRTUAL TABLE early USING docext;
INSERT INTO early(doc) VALUES ('{_id: 1}');
.load ./docext
SELECT doc_count('early'), doc_update_one('early', '{_id: 1}', '{$set: {a: 1}}');
CREATE VIRTUAL TABLE late USING docext;
INSERT INTO late(doc) VALUES ('{_id: 2}');
.load ./docext
SELECT doc_create_index('early', '{a: 1}'), doc_count('late');
SELECT doc FROM early('{a: 1}') UNION ALL SELECT doc FROM late;
DROP TABLE early;
SELECT doc_count('early');
SELECT doc_check('late');
