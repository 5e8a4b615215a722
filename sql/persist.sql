-- Collections survive closing and reopening, in rollback-journal and WAL
-- mode, and live in attached databases.
.load ./docext
.headers off
.mode list
.shell rm -f build/sqltest-persist.db build/sqltest-persist.db-wal build/sqltest-aux.db
.open build/sqltest-persist.db
.load ./docext
CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES ('{ _id: 1, title: "The Great Gatsby" }');
-- a large document is split into pages
INSERT INTO books(doc) VALUES ('{ _id: 2, text: "' || printf('%.100000c', 'x') || '", tail: true }');
.open build/sqltest-persist.db
.load ./docext
SELECT _id, length(doc), doc_get(doc, 'tail') FROM books;
SELECT count(*) > 20 FROM books_pages;
PRAGMA journal_mode = WAL;
INSERT INTO books(doc) VALUES ('{ _id: 3, title: "in WAL mode" }');
UPDATE books SET doc = '{ _id: 2, text: "short now" }' WHERE _id = 2;
SELECT count(*) FROM books_pages;
.open build/sqltest-persist.db
.load ./docext
SELECT doc FROM books ORDER BY _id;
-- attached databases
ATTACH 'build/sqltest-aux.db' AS aux;
CREATE VIRTUAL TABLE aux.books USING docext;
INSERT INTO aux.books(doc) VALUES ('{ _id: 1, title: "aux copy" }');
INSERT INTO aux.books(doc) VALUES ('{ _id: 1 }');
SELECT doc FROM aux.books;
SELECT name FROM aux.sqlite_schema WHERE type = 'table' ORDER BY name;
DROP TABLE aux.books;
SELECT count(*) FROM aux.sqlite_schema;
SELECT count(*) FROM main.books;
-- a renamed collection keeps its pages and indexes across a reopen
CREATE VIRTUAL TABLE shelf USING docext;
INSERT INTO shelf(doc) VALUES ('{ _id: 1, text: "' || printf('%.50000c', 'y') || '", slug: "a" }');
SELECT doc_create_index('shelf', '{slug: 1}', '{unique: true}');
ALTER TABLE shelf RENAME TO cabinet;
.open build/sqltest-persist.db
.load ./docext
SELECT _id, length(doc), doc_check('cabinet') FROM cabinet;
SELECT name, entries FROM doc_indexes('cabinet');
INSERT INTO cabinet(doc) VALUES ('{ _id: 2, slug: "a" }');
SELECT count(*) FROM sqlite_schema WHERE name LIKE 'shelf%';
DROP TABLE cabinet;
SELECT count(*) FROM sqlite_schema WHERE name LIKE 'cabinet%';
.shell rm -f build/sqltest-persist.db build/sqltest-persist.db-wal build/sqltest-persist.db-shm build/sqltest-aux.db
