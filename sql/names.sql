-- Names as hostile input: collection, schema, index and field names with
-- quotes, brackets, printf specifiers, dots, unicode, case differences,
-- keywords; functions given something that is not a docext collection.
-- Every scenario ends with doc_check(...) = 'ok' where a collection changed.
.load ./docext
.headers off
.mode list

-- 1. Index names with odd characters: kept exactly, escaped in JSON, and a
--    '|' in a name does not confuse the plan string EXPLAIN QUERY PLAN shows.
CREATE VIRTUAL TABLE ix USING docext;
INSERT INTO ix(doc) VALUES ('{_id: 1, a: 1, b: 1}'), ('{_id: 2, a: 2, b: 2}');
SELECT doc_create_index('ix', '{a: 1}', '{name: "a|P"}');
EXPLAIN QUERY PLAN SELECT doc FROM ix('{a: 1}');
SELECT doc FROM ix('{a: 1}');
SELECT doc FROM ix('{a: 1}', '{_id: 0}');
SELECT doc FROM ix WHERE filter = '{a: 2}' AND projection = '{a: 1}';
SELECT doc FROM ix('{a: {$gte: 1}}', NULL, '{a: -1}', '{hint: "a|P"}');
SELECT doc_create_index('ix', '{b: 1}', '{name: "we\"ird\\ \n %s%w%q '' ] `x`"}');
SELECT json_valid(doc_explain('ix', '{b: 1}')), doc_explain('ix', '{b: 1}') ->> 'indexName';
SELECT doc_explain('ix', '{b: 1}') ->> 'cursor';
SELECT json_valid(doc_stats('ix')), json_extract(doc_stats('ix'), '$.nindexes');
SELECT name FROM doc_indexes('ix') ORDER BY name;
SELECT doc_check('ix');

-- 2. Collection names with quotes, brackets, backticks, spaces, printf
--    specifiers: every command reaches the collection, nothing else.
CREATE VIRTUAL TABLE "q""'] `x` 100% %s%w%q%z" USING docext;
INSERT INTO "q""'] `x` 100% %s%w%q%z"(doc) VALUES ('{_id: 1, a: 1}'), ('{_id: 2, a: 2}');
SELECT doc_count('q"''] `x` 100% %s%w%q%z'), doc_count('q"''] `x` 100% %s%w%q%z', '{a: 2}');
SELECT doc_count('"q""''] `x` 100% %s%w%q%z"'), doc_count('main."q""''] `x` 100% %s%w%q%z"');
SELECT doc_create_index('q"''] `x` 100% %s%w%q%z', '{a: 1}', '{unique: true}');
SELECT name, key, "unique", entries FROM doc_indexes('q"''] `x` 100% %s%w%q%z');
SELECT doc_explain('q"''] `x` 100% %s%w%q%z', '{a: 1}') ->> 'cursor';
SELECT doc_update_one('q"''] `x` 100% %s%w%q%z', '{a: 1}', '{$set: {b: 1}}');
SELECT doc_update_many('q"''] `x` 100% %s%w%q%z', '{}', '{$inc: {n: 1}}');
SELECT doc_find_and_modify('q"''] `x` 100% %s%w%q%z', '{query: {a: 2}, update: {$set: {c: 1}}, new: true}');
SELECT doc_delete_one('q"''] `x` 100% %s%w%q%z', '{a: 2}');
-- the E11000 message names the collection as it is
INSERT INTO "q""'] `x` 100% %s%w%q%z"(doc) VALUES ('{_id: 3, a: 1}');
SELECT json_extract(doc_stats('q"''] `x` 100% %s%w%q%z'), '$.count', '$.nindexes');
SELECT doc_ttl_sweep('q"''] `x` 100% %s%w%q%z'), doc_ttl_sweep();
SELECT doc_drop_index('q"''] `x` 100% %s%w%q%z', 'a_1');
SELECT doc_delete_many('q"''] `x` 100% %s%w%q%z', '{}');
SELECT doc_check('q"''] `x` 100% %s%w%q%z');
SELECT name FROM sqlite_schema WHERE name LIKE 'q%' ORDER BY name;
DROP TABLE "q""'] `x` 100% %s%w%q%z";
SELECT count(*) FROM sqlite_schema WHERE name LIKE 'q%';

-- 3. Unicode, keywords, a long name, and case: SQLite's identifiers ignore
--    ASCII case only, and so does every command.
CREATE VIRTUAL TABLE "bücher ☃" USING docext;
INSERT INTO "BÜCHER ☃"(doc) VALUES ('{_id: 1}');
INSERT INTO "Bücher ☃"(doc) VALUES ('{_id: 1}');
SELECT doc_count('bücher ☃'), doc_count('BüCHER ☃');
SELECT doc_count('BÜCHER ☃');
CREATE VIRTUAL TABLE "select" USING docext;
CREATE VIRTUAL TABLE "from.where" USING docext;
INSERT INTO "select"(doc) VALUES ('{_id: 1, "order": 1}');
SELECT doc_create_index('select', '{"order": 1}'), doc_count('SELECT', '{"order": 1}');
SELECT doc_count('from.where'), doc_count('"from.where"'), doc_count('main.from.where');
CREATE VIRTUAL TABLE Books USING docext;
INSERT INTO books(doc) VALUES ('{_id: 1, t: "a"}');
SELECT doc_count('books'), doc_count('BOOKS'), doc_count('MAIN.books'), doc_count('"bOOKS"');
SELECT doc_create_index('BOOKS', '{t: 1}'), doc_update_one('books', '{_id: 1}', '{$set: {u: 1}}');
SELECT name FROM doc_indexes('bOoKs');
SELECT doc_find_and_modify('Books', '{query: {}, update: {$inc: {u: 1}}, new: true}');
SELECT doc_delete_one('BOOKS', '{u: 2}'), doc_count('books'), doc_check('BoOkS');
CREATE VIRTUAL TABLE "BOOKS" USING docext;
CREATE TABLE plain(x);
INSERT INTO plain VALUES (1);
CREATE VIEW v AS SELECT 1 AS x;
CREATE VIRTUAL TABLE ft USING fts5(x);
CREATE VIRTUAL TABLE "books.v2" USING docext;

-- 4. A name that is not a docext collection: an ordinary table, a view,
--    another module's table, a shadow table, a missing table, NULL, a
--    number, a BLOB, a NUL inside: a docext: error and no change.
SELECT doc_count('plain');
SELECT doc_count('v');
SELECT doc_count('ft');
SELECT doc_count('ft_data');
SELECT doc_count('books_docs');
SELECT doc_count('books_idx');
SELECT doc_count('nope');
SELECT doc_count('nosuch.books');
SELECT doc_count(NULL);
SELECT doc_count('');
SELECT doc_count(42);
SELECT doc_count(x'626f6f6b73');
SELECT doc_count(CAST(x'626f6f6b7300' AS TEXT));
SELECT doc_count('"books');
SELECT doc_count('"books"x');
SELECT doc_update_one('plain', '{}', '{$set: {a: 1}}');
SELECT doc_update_many('v', '{}', '{$set: {a: 1}}');
SELECT doc_delete_one('ft', '{}');
SELECT doc_delete_many('books_docs', '{}');
SELECT doc_find_and_modify('plain', '{query: {}, remove: true}');
SELECT doc_explain('v', '{}');
SELECT doc_create_index('ft', '{a: 1}');
SELECT doc_drop_index('plain', 'a_1');
SELECT * FROM doc_indexes('v');
SELECT * FROM doc_indexes(x'626f6f6b73');
SELECT doc_stats('ft');
SELECT doc_check('books_pages');
SELECT doc_ttl_sweep('plain');
SELECT doc_ttl_sweep(NULL);
SELECT doc_update_one(NULL, '{}', '{$set: {a: 1}}');
SELECT doc_delete_many(1.5, '{}');
SELECT doc_find_and_modify(x'00', '{query: {}, remove: true}');
SELECT doc_config(NULL);
SELECT doc_config('books');
SELECT count(*) FROM plain;
SELECT count(*) FROM books;

-- 5. A collection whose name collides with another's shadow tables.
--    (Defensive mode off: the shells of SQLite 3.41 and later turn it on,
--    and SQLite itself then refuses the name as reserved for internal use.)
.dbconfig defensive off
CREATE VIRTUAL TABLE books_docs USING docext;
CREATE TABLE d_idx(x);
CREATE VIRTUAL TABLE d USING docext;
SELECT name FROM sqlite_schema WHERE name LIKE 'd%' ORDER BY name;
ALTER TABLE books RENAME TO d;
SELECT doc_count('books'), doc_check('books');
-- an empty name: MongoDB has none, and its shadow tables would be "_docs"…
CREATE VIRTUAL TABLE "" USING docext;
SELECT count(*) FROM sqlite_schema WHERE name LIKE '\_%' ESCAPE '\';

-- 6. Schemas: an unqualified name resolves as SQL resolves it (temp, then
--    main, then attached schemas in order); qualified and quoted forms.
ATTACH ':memory:' AS aux;
ATTACH ':memory:' AS "my.db";
CREATE VIRTUAL TABLE "my.db".c USING docext;
INSERT INTO "my.db".c(doc) VALUES ('{_id: 1}'), ('{_id: 2}'), ('{_id: 3}'), ('{_id: 4}');
CREATE VIRTUAL TABLE aux.c USING docext;
INSERT INTO aux.c(doc) VALUES ('{_id: 1}'), ('{_id: 2}'), ('{_id: 3}');
SELECT 'aux first', doc_count('c'), (SELECT count(*) FROM c);
CREATE VIRTUAL TABLE main.c USING docext;
INSERT INTO main.c(doc) VALUES ('{_id: 1}'), ('{_id: 2}');
SELECT 'main first', doc_count('c'), (SELECT count(*) FROM c);
CREATE VIRTUAL TABLE temp.c USING docext;
INSERT INTO temp.c(doc) VALUES ('{_id: 1}');
SELECT 'temp first', doc_count('c'), (SELECT count(*) FROM c);
SELECT doc_count('temp.c'), doc_count('main.c'), doc_count('aux.c'), doc_count('AUX.C'),
       doc_count('"aux"."c"'), doc_count('[aux].c'), doc_count('"my.db".c'), doc_count('"my.db"."c"');
SELECT doc_count('my.db.c');
SELECT doc_update_many('c', '{}', '{$set: {t: 1}}'), doc_update_many('"my.db".c', '{}', '{$set: {m: 1}}');
SELECT doc FROM temp.c;
SELECT count(*) FROM "my.db".c WHERE doc->>'m' = 1;
SELECT doc_create_index('aux.c', '{t: 1}', '{name: "aux t"}');
SELECT name FROM doc_indexes('c');
SELECT name FROM doc_indexes('aux.c');
-- a view (or an ordinary table) in an earlier schema hides the collection
CREATE TEMP VIEW cv AS SELECT 1;
CREATE VIRTUAL TABLE cv USING docext;
SELECT doc_count('cv');
SELECT doc_count('main.cv');
DROP VIEW temp.cv;
SELECT doc_count('cv');
DROP TABLE temp.c;
SELECT 'temp dropped', doc_count('c'), (SELECT count(*) FROM c);
SELECT doc_count('temp.c');
SELECT doc_ttl_sweep();
-- DETACH: the collection is gone; another attached under the same name
-- is a different one
DETACH aux;
SELECT doc_count('aux.c');
ATTACH ':memory:' AS aux;
CREATE TABLE aux.c(x);
SELECT doc_count('aux.c');
DETACH aux;
ATTACH ':memory:' AS aux;
CREATE VIRTUAL TABLE aux.c USING docext;
SELECT doc_count('aux.c'), (SELECT count(*) FROM doc_indexes('aux.c'));
DETACH aux;
SELECT doc_check('"my.db".c'), doc_check('c');
DETACH "my.db";

-- 7. ALTER TABLE … RENAME to odd names: every command follows the new
--    name; the old one is gone.
CREATE VIRTUAL TABLE r USING docext;
INSERT INTO r(doc) VALUES ('{_id: 1, a: 1}'), ('{_id: 2, a: 2}');
SELECT doc_create_index('r', '{a: 1}', '{unique: true}');
ALTER TABLE r RENAME TO "n""e w.%s'";
SELECT name FROM sqlite_schema WHERE name LIKE 'n%' AND type = 'table' ORDER BY name;
SELECT doc_count('r');
SELECT doc_update_one('r', '{}', '{$set: {b: 1}}');
SELECT doc_create_index('r', '{b: 1}');
SELECT * FROM doc_indexes('r');
SELECT doc_count('"n""e w.%s''"'), doc_count('n"e w.%s'''), doc_count('main.n"e w.%s''');
SELECT doc_update_one('n"e w.%s''', '{a: 1}', '{$set: {b: 1}}');
SELECT doc_delete_one('n"e w.%s''', '{a: 2}');
SELECT doc_find_and_modify('n"e w.%s''', '{query: {a: 1}, update: {$inc: {b: 1}}, new: true}');
SELECT doc_explain('n"e w.%s''', '{a: 1}') ->> 'cursor';
SELECT doc_create_index('n"e w.%s''', '{b: 1}'), doc_drop_index('n"e w.%s''', 'b_1');
SELECT name FROM doc_indexes('n"e w.%s''');
INSERT INTO "n""e w.%s'"(doc) VALUES ('{_id: 3, a: 1}');
SELECT doc FROM "n""e w.%s'"('{a: 1}');
SELECT doc_check('n"e w.%s'''), json_extract(doc_stats('n"e w.%s'''), '$.count');
-- renamed again, to a name with a dot
ALTER TABLE "n""e w.%s'" RENAME TO "x.y";
SELECT doc_count('x.y'), doc_count('"x.y"'), doc_count('main.x.y');
SELECT doc_count('n"e w.%s''');
SELECT doc_check('x.y');

-- 8. Field names: a stored name may not start with '$' or hold '.', also
--    when it comes as BSON through the bson column or from an update; an
--    empty name may be stored but is no path; a key pattern's components
--    may not start with '$'.
CREATE VIRTUAL TABLE fld USING docext;
INSERT INTO fld(doc) VALUES ('{_id: 1, "a.b": 1}');
INSERT INTO fld(doc) VALUES ('{_id: 1, x: [{"$a": 1}]}');
INSERT INTO fld(bson) VALUES (x'16000000105f69640001000000102461000100000000');
INSERT INTO fld(bson) VALUES (x'1f000000105f696400010000000378000e00000010612e6200010000000000');
INSERT INTO fld(bson) VALUES (x'17000000105f6964000100000010610062000100000000');
INSERT INTO fld(bson) VALUES (x'0c0000001061626364656667');
INSERT INTO fld(bson) VALUES (x'14000000105f6964000100000010000200000000');
INSERT INTO fld(doc) VALUES ('{_id: 2, a: {$oid: "507f1f77bcf86cd799439011"}, b: {$numberLong: "5"}}');
INSERT INTO fld(doc) VALUES ('{_id: 3, a: {$foo: 1}}');
SELECT doc FROM fld;
SELECT doc_update_one('fld', '{_id: 1}', '{$set: {"a.$x": 1}}');
SELECT doc_update_one('fld', '{_id: 1}', '{$set: {x: {"y.z": 1}}}');
SELECT doc_update_one('fld', '{_id: 1}', '{$push: {arr: {"$y": 1}}}');
SELECT doc_update_one('fld', '{_id: 1}', '{$rename: {"": "$y"}}');
SELECT doc_update_one('fld', '{_id: 1}', '{$set: {"a..b": 1}}');
SELECT doc_update_one('fld', '{_id: 1}', '{$set: {"": 1}}');
SELECT doc_update_one('fld', '{_id: 1}', '{"y.z": 1}');
SELECT doc_update_one('fld', '{_id: 4, "a.b": 1}', '{$set: {c: 1}}', '{upsert: true}');
SELECT doc_find_and_modify('fld', '{query: {_id: 5}, update: {x: {"$a": 1}}, upsert: true}');
UPDATE fld SET bson = x'16000000105f69640001000000102461000100000000' WHERE _id = 1;
UPDATE fld SET doc = doc_update(doc, '{$set: {"x.$a": 1}}') WHERE _id = 1;
SELECT doc FROM fld('{"": 2}');
SELECT doc FROM fld(NULL, '{"": 1}');
SELECT doc FROM fld(NULL, '{"$a": 1}');
SELECT doc FROM fld(NULL, NULL, '{"": 1}');
SELECT doc_create_index('fld', '{"": 1}');
SELECT doc_create_index('fld', '{"a..b": 1}');
SELECT doc_create_index('fld', '{"$a": 1}');
SELECT doc_create_index('fld', '{"a.$": 1}');
SELECT doc_create_index('fld', '{"a.$b.c": 1}');
SELECT doc_create_index('fld', '{"a.b": 1}');
SELECT doc FROM fld;
SELECT doc_check('fld');

-- 9. doc_drop_index: a name, a key pattern, '*', a missing name; an index
--    named like a key pattern can still be dropped by its name.
CREATE VIRTUAL TABLE dr USING docext;
INSERT INTO dr(doc) VALUES ('{_id: 1, a: 1, b: 1, c: 1}');
SELECT doc_create_index('dr', '{a: 1}', '{name: "{b: 1}"}');
SELECT doc_create_index('dr', '{b: 1}', '{name: " {a: 1}"}');
SELECT doc_create_index('dr', '{c: 1}', '{name: "*"}');
SELECT doc_create_index('dr', '{c: -1}', '{name: "C"}');
SELECT doc_create_index('dr', '{a: -1}', '{name: "c"}');
SELECT doc_create_index('dr', '{c: 1}', '{name: "c"}');
SELECT doc_drop_index('dr', '{b: 1}');
SELECT name, key FROM doc_indexes('dr');
SELECT doc_drop_index('dr', '{b: 1}');
SELECT doc_drop_index('dr', '{a: 1}');
SELECT doc_drop_index('dr', ' {a: 1}');
SELECT doc_drop_index('dr', '*');
SELECT doc_drop_index('dr', '*');
SELECT doc_drop_index('dr', 'C');
SELECT doc_drop_index('dr', 'C');
SELECT doc_drop_index('dr', 'nope');
SELECT doc_drop_index('dr', '{a: ');
SELECT doc_drop_index('dr', '{"a.$": 1}');
SELECT doc_drop_index('dr', NULL);
SELECT doc_drop_index('dr', '_id_');
SELECT name, key FROM doc_indexes('dr');
SELECT doc_check('dr');
