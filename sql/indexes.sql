-- Secondary indexes: definitions, keys, unique/sparse/partial/TTL/hashed,
-- maintenance on every write, doc_indexes, doc_check, doc_stats, atomicity.
-- Every scenario ends with doc_check(...) = 'ok'.
.load ./docext
.headers off
.mode list

CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES
  ('{_id: 1, slug: "gatsby", title: "The Great Gatsby", pages: 180,
     publisher: {name: "Scribner"}, tags: ["novel", "jazz"],
     created_at: ISODate("2013-01-01T00:00:00Z")}'),
  ('{_id: 2, slug: "tender", title: "Tender Is the Night", pages: 320,
     publisher: {name: "Scribner"}, tags: ["novel"],
     created_at: ISODate("2013-01-02T00:00:00Z")}'),
  ('{_id: 3, slug: "paradise", title: "This Side of Paradise", pages: 305,
     publisher: {name: "Everyman''s Library"}, tags: [],
     created_at: ISODate("2013-01-03T00:00:00Z")}');

-- 1. Default names follow MongoDB; entries are built for existing documents.
SELECT doc_create_index('books', '{slug: 1}');
SELECT doc_create_index('books', '{"publisher.name": 1}');
SELECT doc_create_index('books', '{created_at: -1}');
SELECT doc_create_index('books', '{_id: "hashed"}');
SELECT doc_create_index('books', '{pages: 1, slug: -1}');
SELECT doc_create_index('books', '{tags: 1}', '{name: "by_tag"}');
SELECT * FROM doc_indexes('books');
SELECT doc_check('books');

-- 2. Creating an existing index again returns its name; conflicts are errors.
SELECT doc_create_index('books', '{slug: 1}');
SELECT doc_create_index('books', '{slug: 1.0}', '{name: "slug_1"}');
SELECT doc_create_index('books', '{tags: 1}', '{name: "by_tag"}');
SELECT doc_create_index('books', '{_id: 1}');
SELECT doc_create_index('books', '{_id: 1}', '{name: "_id_", unique: true}');
SELECT doc_create_index('books', '{title: 1}', '{name: "slug_1"}');
SELECT doc_create_index('books', '{slug: 1}', '{unique: true}');
SELECT doc_create_index('books', '{slug: 1}', '{name: "slug_again"}');
SELECT count(*) FROM doc_indexes('books');
SELECT doc_check('books');

-- 3. Bad key patterns and options.
SELECT doc_create_index('books', '{}');
SELECT doc_create_index('books', '{a: 0}');
SELECT doc_create_index('books', '{a: true}');
SELECT doc_create_index('books', '{a: "textual"}');
SELECT doc_create_index('books', '{a: "hashed", b: "hashed"}');
SELECT doc_create_index('books', '{a: 1, a: -1}');
SELECT doc_create_index('books', '{"a..b": 1}');
SELECT doc_create_index('books', '{"$a": 1}');
SELECT doc_create_index('books', '{a: "hashed"}', '{unique: true}');
SELECT doc_create_index('books', '{a: 1, b: 1}', '{expireAfterSeconds: 10}');
SELECT doc_create_index('books', '{_id: -1}', '{expireAfterSeconds: 10}');
SELECT doc_create_index('books', '{a: 1}', '{expireAfterSeconds: -1}');
SELECT doc_create_index('books', '{a: 1}', '{expireAfterSeconds: "soon"}');
SELECT doc_create_index('books', '{a: 1}', '{sparse: true, partialFilterExpression: {a: 1}}');
SELECT doc_create_index('books', '{a: 1}', '{partialFilterExpression: {a: {$bogus: 1}}}');
SELECT doc_create_index('books', '{a: 1}', '{partialFilterExpression: 5}');
SELECT doc_create_index('books', '{a: 1}', '{colour: "red"}');
SELECT doc_create_index('books', '{a: 1}', '{name: 7}');
SELECT doc_create_index('books', '{a: 1}', '{name: "_id_"}');
SELECT doc_create_index('books', '{_id: 1}', '{sparse: true}');
SELECT doc_create_index('books', '{_id: 1}', '{name: "id"}');
SELECT doc_create_index('books', 'not json');
SELECT doc_create_index('nosuch', '{a: 1}');
SELECT doc_create_index(NULL, '{a: 1}');
SELECT count(*) FROM doc_indexes('books');
SELECT doc_check('books');

-- 4. The spec BLOB of an index (X_idxdef), as stored.
SELECT name, doc_json(spec) FROM books_idxdef ORDER BY id;

-- 5. Unique: insert and replace of a duplicate fail with E11000 and change nothing.
CREATE VIRTUAL TABLE users USING docext;
SELECT doc_create_index('users', '{email: 1}', '{unique: true}');
INSERT INTO users(doc) VALUES ('{_id: 1, email: "ann@example.com"}'),
                              ('{_id: 2, email: "bob@example.com"}');
INSERT INTO users(doc) VALUES ('{_id: 3, email: "ann@example.com"}');
UPDATE users SET doc = '{email: "bob@example.com", v: 2}' WHERE _id = 1;
UPDATE users SET doc = '{email: "ann@example.com", v: 2}' WHERE _id = 1;
INSERT OR IGNORE INTO users(doc) VALUES ('{_id: 4, email: "bob@example.com"}');
INSERT OR REPLACE INTO users(doc) VALUES ('{_id: 2, email: "ann@example.com"}');
INSERT OR REPLACE INTO users(doc) VALUES ('{_id: 2, email: "bob@example.com", v: 3}');
SELECT doc FROM users ORDER BY _id;
-- changing the key frees the old one
UPDATE users SET doc = '{email: "ann@new.example.com"}' WHERE _id = 1;
INSERT INTO users(doc) VALUES ('{_id: 5, email: "ann@example.com"}');
SELECT _id, doc_get(doc, 'email') FROM users ORDER BY _id;
SELECT doc_check('users');

-- 6. Unique: a missing field is null, so only one document may lack it.
INSERT INTO users(doc) VALUES ('{_id: 6}');
INSERT INTO users(doc) VALUES ('{_id: 7, name: "no email either"}');
INSERT INTO users(doc) VALUES ('{_id: 8, email: null}');
SELECT count(*) FROM users;
SELECT doc_check('users');

-- 7. Unique and sparse: any number of documents may lack the field.
SELECT doc_create_index('users', '{nick: 1}', '{unique: true, sparse: true}');
INSERT INTO users(doc) VALUES ('{_id: 9, email: "c@x", nick: "cc"}');
INSERT INTO users(doc) VALUES ('{_id: 10, email: "d@x"}');
INSERT INTO users(doc) VALUES ('{_id: 11, email: "e@x", nick: "cc"}');
INSERT INTO users(doc) VALUES ('{_id: 12, email: "f@x", nick: null}');
INSERT INTO users(doc) VALUES ('{_id: 13, email: "g@x", nick: null}');
SELECT name, "unique", sparse, entries FROM doc_indexes('users');
SELECT doc_check('users');

-- 8. Unique over existing duplicates fails with E11000 and creates nothing.
SELECT doc_create_index('books', '{"publisher.name": -1}', '{unique: true}');
SELECT doc_create_index('users', '{x: 1}', '{unique: true}');
SELECT count(*) FROM doc_indexes('books');
SELECT count(*) FROM books_idx WHERE ix NOT IN (SELECT id FROM books_idxdef);
SELECT doc_check('books');

-- 9. Compound unique: the message lists every field.
CREATE VIRTUAL TABLE reviews USING docext;
SELECT doc_create_index('reviews', '{book: 1, user: 1}', '{unique: true}');
INSERT INTO reviews(doc) VALUES ('{_id: 1, book: 1, user: 2, stars: 5}'),
                                ('{_id: 2, book: 1, user: 3, stars: 4}'),
                                ('{_id: 3, book: 2, user: 2}');
INSERT INTO reviews(doc) VALUES ('{_id: 4, book: 1, user: 2, stars: 1}');
INSERT INTO reviews(doc) VALUES ('{_id: 5, book: 9}');
INSERT INTO reviews(doc) VALUES ('{_id: 6, book: 9, user: null}');
INSERT INTO reviews(doc) VALUES ('{_id: 7, book: "x", user: {name: "ann", ids: [1, 2]}}');
INSERT INTO reviews(doc) VALUES ('{_id: 8, book: "x", user: {name: "ann", ids: [1, 2]}}');
SELECT count(*) FROM reviews;
SELECT doc_check('reviews');

-- 10. Multikey: one entry per distinct element; unique ignores duplicates
--     within one document; the flag is set (and persisted) on first array.
CREATE VIRTUAL TABLE tagged USING docext;
SELECT doc_create_index('tagged', '{tags: 1}', '{unique: true}');
INSERT INTO tagged(doc) VALUES ('{_id: 1, tags: "solo"}');
SELECT name, multikey, entries FROM doc_indexes('tagged') WHERE name = 'tags_1';
INSERT INTO tagged(doc) VALUES ('{_id: 2, tags: ["a", "b", "a", "b"]}');
SELECT name, multikey, entries FROM doc_indexes('tagged') WHERE name = 'tags_1';
SELECT doc_json(spec) FROM tagged_idxdef;
INSERT INTO tagged(doc) VALUES ('{_id: 3, tags: ["c", "b"]}');
INSERT INTO tagged(doc) VALUES ('{_id: 4, tags: []}');
INSERT INTO tagged(doc) VALUES ('{_id: 5, tags: []}');
INSERT INTO tagged(doc) VALUES ('{_id: 6, tags: [[1, 2], 3]}');
SELECT _id FROM tagged ORDER BY _id;
SELECT entries FROM doc_indexes('tagged') WHERE name = 'tags_1';
UPDATE tagged SET doc = '{tags: ["a", "z"]}' WHERE _id = 2;
SELECT entries FROM doc_indexes('tagged') WHERE name = 'tags_1';
SELECT doc_check('tagged');

-- 11. Arrays of documents through a dotted path.
SELECT doc_create_index('reviews', '{"comments.user": 1}');
INSERT INTO reviews(doc) VALUES ('{_id: 10, comments: [{user: "ann", t: "fine"}, {user: "bob"}, {t: "anon"}]}');
SELECT name, multikey, entries FROM doc_indexes('reviews');
SELECT doc_check('reviews');

-- 12. Parallel arrays: refused at creation and at insert.
CREATE VIRTUAL TABLE par USING docext;
INSERT INTO par(doc) VALUES ('{_id: 1, a: [1, 2], b: [3, 4]}');
SELECT doc_create_index('par', '{a: 1, b: 1}');
SELECT count(*) FROM doc_indexes('par');
DELETE FROM par WHERE _id = 1;
INSERT INTO par(doc) VALUES ('{_id: 2, a: [1, 2], b: 3}');
SELECT doc_create_index('par', '{a: 1, b: 1}');
INSERT INTO par(doc) VALUES ('{_id: 3, a: 1, b: [1, 2]}');
INSERT INTO par(doc) VALUES ('{_id: 4, a: [1], b: [2]}');
UPDATE par SET doc = '{a: [1, 2], b: [5]}' WHERE _id = 2;
SELECT doc FROM par ORDER BY _id;
SELECT doc_check('par');

-- 13. Sparse compound: a document with at least one field is indexed.
SELECT doc_create_index('par', '{x: 1, y: 1}', '{sparse: true}');
INSERT INTO par(doc) VALUES ('{_id: 5, x: 1}'), ('{_id: 6, y: 2}'), ('{_id: 7, z: 3}');
SELECT name, sparse, entries FROM doc_indexes('par') WHERE name = 'x_1_y_1';
SELECT doc_check('par');

-- 14. Partial indexes: documents outside the filter have no entries, and
--     move in and out as they change.
SELECT doc_create_index('books', '{title: 1}', '{partialFilterExpression: {pages: {$gt: 200}}}');
SELECT entries FROM doc_indexes('books') WHERE name = 'title_1';
UPDATE books SET doc = doc_update(bson, '{$set: {pages: 400}}') WHERE _id = 1;
SELECT entries FROM doc_indexes('books') WHERE name = 'title_1';
UPDATE books SET doc = doc_update(bson, '{$set: {pages: 100}}') WHERE _id = 2;
SELECT entries FROM doc_indexes('books') WHERE name = 'title_1';
SELECT doc_json(spec) FROM books_idxdef WHERE name = 'title_1';
SELECT doc_check('books');

-- 15. Hashed: equal numbers of any type have one hash; arrays are refused.
CREATE VIRTUAL TABLE h USING docext;
INSERT INTO h(doc) VALUES ('{_id: 1, v: 1}'), ('{_id: 2, v: NumberLong(1)}'),
                          ('{_id: 3, v: 1.0}'), ('{_id: 4, v: 1.7}'), ('{_id: 5, v: 2}'),
                          ('{_id: 6}'), ('{_id: 7, v: null}');
SELECT doc_create_index('h', '{v: "hashed"}');
SELECT count(DISTINCT key), count(*) FROM h_idx;
SELECT group_concat(docid) FROM h_idx GROUP BY key HAVING count(*) > 1 ORDER BY 1;
INSERT INTO h(doc) VALUES ('{_id: 8, v: [1]}');
INSERT INTO h(doc) VALUES ('{_id: 9, w: [1, 2]}');
SELECT doc_create_index('h', '{w: "hashed"}');
SELECT name FROM doc_indexes('h');
DELETE FROM h WHERE _id = 9;
SELECT doc_create_index('h', '{w: "hashed"}');
INSERT INTO h(doc) VALUES ('{_id: 10, w: [1, 2]}');
SELECT count(*) FROM h;
SELECT doc_check('h');

-- 16. TTL with a frozen clock: expired documents are hidden, swept by
--     doc_ttl_sweep and by any write.
SELECT doc_config('clock', '2013-03-01T00:00:00Z');
CREATE VIRTUAL TABLE sessions USING docext;
INSERT INTO sessions(doc) VALUES
  ('{_id: 1, at: ISODate("2013-02-28T23:00:00Z")}'),
  ('{_id: 2, at: ISODate("2013-03-01T00:30:00Z")}'),
  ('{_id: 3, at: [ISODate("2013-03-05T00:00:00Z"), ISODate("2013-01-01T00:00:00Z")]}'),
  ('{_id: 4, at: "not a date"}'),
  ('{_id: 5}'),
  ('{_id: 6, at: ISODate("2013-02-28T23:30:00Z")}');
SELECT doc_create_index('sessions', '{at: 1}', '{expireAfterSeconds: 1800}');
SELECT name, expire_after_seconds, entries FROM doc_indexes('sessions');
SELECT _id FROM sessions ORDER BY _id;
SELECT count(*) FROM sessions;
SELECT count(*) FROM sessions_docs;
SELECT doc_ttl_sweep('sessions');
SELECT count(*) FROM sessions_docs;
SELECT doc_ttl_sweep('sessions');
SELECT doc_check('sessions');
-- time passes: document 2 expires; the next write removes it
SELECT doc_config('clock', '2013-03-01T01:00:01Z');
SELECT _id FROM sessions ORDER BY _id;
SELECT count(*) FROM sessions_docs;
INSERT INTO sessions(doc) VALUES ('{_id: 7, at: ISODate("2013-03-01T01:00:00Z")}');
SELECT count(*) FROM sessions_docs;
-- an expired _id no longer blocks an insert
SELECT doc_config('clock', '2013-03-01T02:00:00Z');
INSERT INTO sessions(doc) VALUES ('{_id: 7, at: ISODate("2013-03-01T02:00:00Z")}');
SELECT doc FROM sessions ORDER BY _id;
SELECT doc_check('sessions');

-- 17. A descending TTL index; doc_ttl_sweep() with no argument sweeps every
--     collection with a TTL index.
SELECT doc_config('clock', '2013-03-01T01:00:00Z');
CREATE VIRTUAL TABLE logs USING docext;
SELECT doc_create_index('logs', '{t: -1}', '{expireAfterSeconds: 60}');
INSERT INTO logs(doc) VALUES ('{_id: 1, t: ISODate("2013-03-01T01:58:00Z")}'),
                             ('{_id: 2, t: ISODate("2013-03-01T01:59:30Z")}'),
                             ('{_id: 3, t: ISODate("2013-03-01T01:58:59.999Z")}'),
                             ('{_id: 4, t: ISODate("2013-03-01T01:59:00Z")}');
-- expired as soon as it is written: stored, but never seen
INSERT INTO sessions(doc) VALUES ('{_id: 8, at: ISODate("2013-03-01T00:00:00Z")}');
SELECT count(*) FROM sessions WHERE _id = 8;
SELECT count(*) FROM logs_docs;
SELECT doc_config('clock', '2013-03-01T02:00:00Z');
SELECT doc_ttl_sweep();
SELECT _id FROM logs ORDER BY _id;
SELECT count(*) FROM sessions_docs;
SELECT doc_check('logs');
SELECT doc_check('sessions');
SELECT doc_config('clock', NULL) IS NULL;

-- 18. Drop by name or by key pattern; _id_ cannot be dropped.
SELECT doc_drop_index('books', 'by_tag');
SELECT doc_drop_index('books', '{pages: 1, slug: -1}');
SELECT doc_drop_index('books', '{"publisher.name": 1.0}');
SELECT doc_drop_index('books', '_id_');
SELECT doc_drop_index('books', '{_id: 1}');
SELECT doc_drop_index('books', 'by_tag');
SELECT doc_drop_index('books', '{nope: 1}');
SELECT name FROM doc_indexes('books');
SELECT count(*) FROM books_idx WHERE ix NOT IN (SELECT id FROM books_idxdef);
-- a dropped index can be created again
SELECT doc_create_index('books', '{tags: 1}', '{name: "by_tag"}');
SELECT name, multikey, entries FROM doc_indexes('books') WHERE name = 'by_tag';
SELECT doc_check('books');

-- 19. doc_stats.
SELECT group_concat(key, ',') FROM json_each(doc_stats('books'));
SELECT json_extract(doc_stats('books'), '$.count'), json_extract(doc_stats('books'), '$.size'),
       json_extract(doc_stats('books'), '$.avgObjSize'), json_extract(doc_stats('books'), '$.nindexes');
SELECT group_concat(key, ',') FROM json_each(doc_stats('books'), '$.indexSizes');
SELECT json_extract(doc_stats('books'), '$.storageSize') > 0,
       json_extract(doc_stats('books'), '$.totalIndexSize') =
       (SELECT sum(value) FROM json_each(doc_stats('books'), '$.indexSizes'));
CREATE VIRTUAL TABLE empty USING docext;
SELECT json_extract(doc_stats('empty'), '$.count'), json_extract(doc_stats('empty'), '$.avgObjSize');
SELECT doc_stats('nosuch');
SELECT * FROM doc_indexes;
SELECT * FROM doc_indexes('nosuch');

-- 20. Atomicity: a multi-row statement that fails changes nothing.
SELECT count(*) FROM users_idx;
INSERT INTO users(doc) VALUES ('{_id: 20, email: "new1@x"}'), ('{_id: 21, email: "new2@x"}'),
                              ('{_id: 22, email: "new1@x"}');
SELECT count(*) FROM users WHERE _id >= 20;
SELECT count(*) FROM users_idx;
UPDATE users SET doc = doc_update(bson, '{$set: {email: "same@x"}}') WHERE _id IN (2, 9);
SELECT doc_get(doc, 'email') FROM users WHERE _id IN (2, 9) ORDER BY _id;
INSERT INTO par(doc) VALUES ('{_id: 30, a: 1}'), ('{_id: 31, a: [1], b: [2]}');
SELECT count(*) FROM par WHERE _id >= 30;
SELECT doc_check('users');
SELECT doc_check('par');
-- deletes take their entries along
SELECT entries FROM doc_indexes('users') WHERE name = 'email_1';
DELETE FROM users WHERE _id IN (9, 10);
SELECT entries FROM doc_indexes('users') WHERE name = 'email_1';
SELECT doc_check('users');

-- 21. ROLLBACK undoes doc_create_index, doc_drop_index and the multikey
--     flag; the definitions this connection sees follow.
BEGIN;
SELECT doc_create_index('users', '{age: 1}');
INSERT INTO users(doc) VALUES ('{_id: 40, email: "r@x", age: [30, 31]}');
SELECT name, multikey, entries FROM doc_indexes('users') WHERE name = 'age_1';
ROLLBACK;
SELECT name FROM doc_indexes('users');
SELECT count(*) FROM users_idx WHERE ix NOT IN (SELECT id FROM users_idxdef);
INSERT INTO users(doc) VALUES ('{_id: 41, email: "r@x", age: 3}');
SELECT doc_check('users');
BEGIN;
SELECT doc_drop_index('users', 'email_1');
INSERT INTO users(doc) VALUES ('{_id: 42, email: "r@x"}');
ROLLBACK;
INSERT INTO users(doc) VALUES ('{_id: 43, email: "r@x"}');
SELECT name FROM doc_indexes('users');
BEGIN;
INSERT INTO tagged(doc) VALUES ('{_id: 50, tags: "t50", other: 1}');
SELECT doc_create_index('tagged', '{other: 1}');
SAVEPOINT sp;
INSERT INTO tagged(doc) VALUES ('{_id: 51, tags: "t51", other: [1, 2]}');
SELECT multikey FROM doc_indexes('tagged') WHERE name = 'other_1';
ROLLBACK TO sp;
SELECT multikey FROM doc_indexes('tagged') WHERE name = 'other_1';
INSERT INTO tagged(doc) VALUES ('{_id: 52, tags: "t52", other: 9}');
COMMIT;
SELECT name, multikey, entries FROM doc_indexes('tagged');
SELECT doc_check('tagged');

-- 22. Collections in an attached database.
ATTACH ':memory:' AS aux;
CREATE VIRTUAL TABLE aux.books USING docext;
INSERT INTO aux.books(doc) VALUES ('{_id: 1, slug: "x"}');
SELECT doc_create_index('aux.books', '{slug: 1}', '{unique: true}');
INSERT INTO aux.books(doc) VALUES ('{_id: 2, slug: "x"}');
SELECT * FROM doc_indexes('aux.books');
SELECT doc_check('aux.books');
DETACH aux;

-- 23. doc_check reports each inconsistency (defensive mode off, so that
--     the shadow tables can be damaged by hand), and 'ok' once repaired.
.dbconfig defensive off
SELECT doc_check('users');
CREATE TEMP TABLE saved AS SELECT * FROM users_idx WHERE docid = 2;
DELETE FROM users_idx WHERE docid = 2;
INSERT INTO users_idx(ix, key, docid) VALUES ((SELECT id FROM users_idxdef WHERE name = 'email_1'), x'3C7A7A00',
                              (SELECT id FROM users_docs WHERE size > 0 ORDER BY id LIMIT 1));
INSERT INTO users_idx(ix, key, docid) VALUES ((SELECT id FROM users_idxdef WHERE name = 'email_1'), x'3C7A7A00', 999);
INSERT INTO users_idx(ix, key, docid) VALUES (77, x'14', 1);
SELECT doc_check('users');
-- a find through the damaged index reports the missing document
SELECT _id FROM users('{email: "zz"}');
DELETE FROM users_idx WHERE key = x'3C7A7A00' OR ix = 77;
INSERT INTO users_idx SELECT * FROM saved;
SELECT doc_check('users');
UPDATE users_idxdef SET spec = doc_bson('{v: 1, name: "nick_1", key: {nick: 1}, unique: true, sparse: true, multikey: false}')
  WHERE name = 'nick_1';
UPDATE users_config SET v = v + 1 WHERE k = 'idxtag';
INSERT INTO users(doc) VALUES ('{_id: 60, email: "m@x", nick: ["p", "q"]}');
SELECT name, multikey FROM doc_indexes('users') WHERE name = 'nick_1';
DELETE FROM users WHERE _id = 60;
INSERT INTO books_pages(pgno, data) VALUES (9999, x'00');
UPDATE books_docs SET size = size + 1 WHERE id = 2;
SELECT doc_check('books');
DELETE FROM books_pages WHERE pgno = 9999;
UPDATE books_docs SET size = size - 1 WHERE id = 2;
SELECT doc_check('books');

-- 24. Renaming a collection keeps its indexes; dropping it drops them.
SELECT doc_create_index('par', '{z: 1}', '{unique: true, sparse: true}');
ALTER TABLE par RENAME TO par2;
INSERT INTO par2(doc) VALUES ('{_id: 100, z: 30}');
INSERT INTO par2(doc) VALUES ('{_id: 101, z: 30}');
SELECT name, entries FROM doc_indexes('par2');
SELECT doc_check('par2');
DROP TABLE par2;
SELECT count(*) FROM sqlite_schema WHERE name LIKE 'par2%';
SELECT doc_check('par2');

-- 25. Two connections on one database: each sees the other's index
--     changes at its next statement, and ROLLBACK on the other side too.
.connection 1
.open file:/indexes_shared?vfs=memdb
.load ./docext
CREATE VIRTUAL TABLE shared USING docext;
INSERT INTO shared(doc) VALUES ('{_id: 1, k: 1}'), ('{_id: 2, k: 2}');
.connection 2
.open file:/indexes_shared?vfs=memdb
.load ./docext
INSERT INTO shared(doc) VALUES ('{_id: 3, k: 3}');
.connection 1
SELECT doc_create_index('shared', '{k: 1}', '{unique: true}');
.connection 2
INSERT INTO shared(doc) VALUES ('{_id: 4, k: 1}');
INSERT INTO shared(doc) VALUES ('{_id: 5, k: 5}');
.connection 1
SELECT entries FROM doc_indexes('shared') WHERE name = 'k_1';
BEGIN;
SELECT doc_drop_index('shared', 'k_1');
ROLLBACK;
.connection 2
INSERT INTO shared(doc) VALUES ('{_id: 6, k: 5}');
.connection 1
SELECT doc_drop_index('shared', 'k_1');
.connection 2
INSERT INTO shared(doc) VALUES ('{_id: 7, k: 5}');
SELECT count(*) FROM shared;
SELECT doc_check('shared');
.connection 1
SELECT doc_check('shared');
.connection 0
SELECT doc_check('users');
