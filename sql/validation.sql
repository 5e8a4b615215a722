-- Collection validators (docext_validate.c), as MongoDB's: doc_coll_mod
-- sets validator, validationLevel and validationAction; every insert and
-- replacement (updates, upserts, INSERT OR REPLACE) is checked; a
-- validator does not check the documents already there; migrations do
-- not validate.
.load ./docext
.headers off
.mode list

CREATE VIRTUAL TABLE people USING docext;
INSERT INTO people(doc) VALUES ('{_id: 1, name: "Old", age: 5}');

-- 1. The settings: defaults, a validator, what doc_coll_mod returns
SELECT doc_coll_mod('people', '{}');
SELECT doc_coll_mod('people', '{validator: {$jsonSchema: {required: ["name"],
  properties: {age: {bsonType: "int", minimum: 18}}}, status: {$in: ["A", "B"]}}}');
SELECT doc_coll_mod('people', '{}');

-- 2. Inserts: valid ones go in, each invalid one fails naming the condition
INSERT INTO people(doc) VALUES ('{_id: 2, name: "Ann", age: 20, status: "A"}');
INSERT INTO people(doc) VALUES ('{_id: 3, name: "Bob", age: 10, status: "A"}');
INSERT INTO people(doc) VALUES ('{_id: 4, name: "Cy", age: 30, status: "C"}');
INSERT INTO people(doc) VALUES ('{_id: 5, age: 30, status: "B"}');
-- a statement of several rows is all or nothing
INSERT INTO people(doc) VALUES ('{_id: 6, name: "Dee", age: 40, status: "B"}'),
                               ('{_id: 7, name: "Eve", age: 4, status: "B"}');
-- INSERT OR IGNORE skips an invalid document, as SQL does with a CHECK
INSERT OR IGNORE INTO people(doc) VALUES ('{_id: 8, name: "Fay", age: 50, status: "A"}'),
                                         ('{_id: 9, name: "Gil", status: "Q"}');
-- the document that was there before the validator is untouched
SELECT doc FROM people;
SELECT _id FROM people('{$nor: [{$jsonSchema: {required: ["name"], properties: {age: {bsonType: "int", minimum: 18}}}}, {status: {$in: ["A", "B"]}}]}');

-- 3. Updates: SQL replacement, doc_update, the commands, upserts
UPDATE people SET doc = doc_update(doc, '{$set: {age: 3}}') WHERE _id = 2;
UPDATE people SET doc = '{_id: 2, name: "Ann"}' WHERE _id = 2;
SELECT doc_update_one('people', '{_id: 2}', '{$inc: {age: 1}}');
SELECT doc_update_one('people', '{_id: 2}', '{$set: {status: "Z"}}');
SELECT doc_update_many('people', '{status: "A"}', '{$inc: {age: -10}}');
SELECT doc_update_one('people', '{_id: 10}', '{$set: {name: "Hal", age: 70}}', '{upsert: true}');
SELECT doc_update_one('people', '{_id: 10}', '{$set: {name: "Hal", age: 70, status: "B"}}', '{upsert: true}');
SELECT doc_find_and_modify('people', '{query: {_id: 8}, update: {$unset: {name: 1}}}');
SELECT doc_find_and_modify('people', '{query: {_id: 8}, update: {$set: {age: 51}}, new: true}');
SELECT doc_find_and_modify('people', '{query: {_id: 30}, update: {$set: {age: 51}}, upsert: true, new: true}');
-- an update that changes nothing writes nothing, and checks nothing
SELECT doc_update_one('people', '{_id: 1}', '{$set: {age: 5}}');
-- strict: an update of a document that was invalid already is checked
SELECT doc_update_one('people', '{_id: 1}', '{$set: {age: 6}}');
INSERT OR REPLACE INTO people(doc) VALUES ('{_id: 1, name: "Old"}');
-- $push onto a large document: the validator reads the whole document
SELECT doc_update_one('people', '{_id: 2}', '{$push: {tags: "x"}}');
SELECT doc FROM people WHERE _id = 2;
-- bypassDocumentValidation, as MongoDB's commands take it
SELECT doc_update_one('people', '{_id: 2}', '{$set: {age: 1}}', '{bypassDocumentValidation: true}');
SELECT doc_find_and_modify('people', '{query: {_id: 2}, update: {$set: {age: 2}}, new: true, bypassDocumentValidation: true}');
SELECT doc_update_one('people', '{_id: 2}', '{$set: {age: 21}}');
SELECT doc FROM people;
SELECT doc_check('people');

-- 4. validationLevel moderate: documents invalid already may still change;
-- inserts and valid documents are checked
SELECT doc_coll_mod('people', '{validationLevel: "moderate"}');
SELECT doc_update_one('people', '{_id: 1}', '{$set: {age: 6}}');
INSERT OR REPLACE INTO people(doc) VALUES ('{_id: 1, name: "Old", age: 7}');
SELECT doc_update_one('people', '{_id: 2}', '{$set: {status: "Z"}}');
INSERT OR REPLACE INTO people(doc) VALUES ('{_id: 2, name: "Ann"}');
INSERT INTO people(doc) VALUES ('{_id: 11, name: "Ida"}');
SELECT doc FROM people WHERE _id IN (1, 2);

-- 5. validationLevel off, validationAction warn (the write goes through;
-- the message goes to sqlite3_log)
SELECT doc_coll_mod('people', '{validationLevel: "off"}');
INSERT INTO people(doc) VALUES ('{_id: 12, name: "Jo", age: 1}');
SELECT doc_coll_mod('people', '{validationLevel: "strict", validationAction: "warn"}');
INSERT INTO people(doc) VALUES ('{_id: 13, name: "Kim", age: 2}');
SELECT _id FROM people WHERE _id > 11;
-- errorAndLog (MongoDB 8.1): refused, and logged
SELECT doc_coll_mod('people', '{validationAction: "errorAndLog"}') IS NOT NULL;
INSERT INTO people(doc) VALUES ('{_id: 14, name: "Lu", age: 3}');

-- 6. Query operators of every kind: $expr, $or, $and (the condition named
-- is the first that fails), dotted paths, $exists, $type
SELECT doc_coll_mod('people', '{validator: {$and: [{name: {$type: "string"}}, {$or: [{age: {$gte: 18}}, {guardian: {$exists: true}}]}], $expr: {$lte: [{$strLenCP: "$name"}, 5]}}, validationAction: "error"}');
INSERT INTO people(doc) VALUES ('{_id: 14, name: "Lee", age: 9, guardian: "Mo"}');
INSERT INTO people(doc) VALUES ('{_id: 15, name: "Max", age: 9}');
INSERT INTO people(doc) VALUES ('{_id: 16, name: 7, age: 30}');
INSERT INTO people(doc) VALUES ('{_id: 17, name: "Nicholas", age: 30}');
INSERT INTO people(doc) VALUES ('{_id: 18, name: "Ola", age: 30}');
-- a long condition is cut in the message
SELECT doc_coll_mod('people', '{validator: {name: {$in: ["Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "Cccccccccccccccccccccccccccccccccccccccccccccccccccccccc", "Dddddddddddddddddddddddddddddddddddddddddddddddddddddddd", "Eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "Ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"]}}}');
INSERT INTO people(doc) VALUES ('{_id: "élan", name: "Zed"}');
-- a field's condition says what the field holds (a dotted path too), but
-- not when the path reaches values through an array
SELECT doc_coll_mod('people', '{validator: {"addr.city": {$in: ["Oslo", "Rome"]}, tags: "vip"}}') IS NOT NULL;
INSERT INTO people(doc) VALUES ('{_id: 40, addr: {city: "Bergen"}, tags: "vip"}');
INSERT INTO people(doc) VALUES ('{_id: 41, addr: {zip: 1}, tags: "vip"}');
INSERT INTO people(doc) VALUES ('{_id: 42, addr: {city: "Oslo"}, tags: ["a", "b"]}');
INSERT INTO people(doc) VALUES ('{_id: 43, addr: [{city: "Bergen"}], tags: "vip"}');
-- validator {} removes it; level and action stay as they were set
SELECT doc_coll_mod('people', '{validator: {}, validationLevel: "moderate"}');
INSERT INTO people(doc) VALUES ('{_id: 19}');
SELECT doc_coll_mod('people', '{validationLevel: "strict"}');

-- 7. Errors, each changing nothing
SELECT doc_coll_mod('people', '{validator: 3}');
SELECT doc_coll_mod('people', '{validator: {$foo: 1}}');
SELECT doc_coll_mod('people', '{validator: {$jsonSchema: {type: "integer"}}}');
SELECT doc_coll_mod('people', '{validator: {$where: "true"}}');
SELECT doc_coll_mod('people', '{validationLevel: "lax"}');
SELECT doc_coll_mod('people', '{validationLevel: 1}');
SELECT doc_coll_mod('people', '{validationAction: "ignore"}');
SELECT doc_coll_mod('people', '{capped: true}');
SELECT doc_coll_mod('people', NULL);
SELECT doc_coll_mod('people', '{validator: ');
SELECT doc_coll_mod('nobody', '{}');
SELECT doc_coll_mod('people', '{}');

-- 8. Transactions: a validator set in a rolled-back transaction is gone
BEGIN;
SELECT doc_coll_mod('people', '{validator: {name: {$exists: true}}}');
INSERT INTO people(doc) VALUES ('{_id: 20}');
ROLLBACK;
INSERT INTO people(doc) VALUES ('{_id: 20}');
SELECT doc_coll_mod('people', '{}');
SAVEPOINT s;
SELECT doc_coll_mod('people', '{validator: {name: {$exists: true}}}');
ROLLBACK TO s;
RELEASE s;
INSERT INTO people(doc) VALUES ('{_id: 21}');
SELECT count(*) FROM people;

-- 9. A sharded collection: every partition keeps the validator, so a
-- write to one shard's partition alone is checked too; migrations copy
-- documents as they are, valid or not
ATTACH ':memory:' AS s1;
ATTACH ':memory:' AS s2;
SELECT doc_add_shard('s1');
SELECT doc_add_shard('s2');
CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES ('{_id: 1, title: "A"}'), ('{_id: 50, title: "B"}'), ('{_id: 70}');
SELECT doc_coll_mod('books', '{validator: {title: {$type: "string"}}}');
SELECT doc_shard_collection('books', '{_id: 1}');
SELECT doc_split_chunk('books', '{_id: 40}');
SELECT doc_move_chunk('books', '{_id: 45}', 's2');
SELECT doc_coll_mod('s2.books', '{}');
INSERT INTO books(doc) VALUES ('{_id: 60}');
INSERT INTO books(doc) VALUES ('{_id: 60, title: "C"}');
INSERT INTO s2.books(doc) VALUES ('{_id: 61}');
SELECT doc_update_one('books', '{_id: 50}', '{$unset: {title: 1}}');
SELECT doc_update_many('books', '{}', '{$set: {title: 1}}', '{bypassDocumentValidation: true}');
SELECT doc_update_many('books', '{}', '{$set: {title: "T"}}');
SELECT doc_update_one('books', '{_id: 60}', '{$set: {title: 9}}');
SELECT doc_coll_mod('books', '{validator: {title: {$ne: "bad"}}}');
SELECT doc_coll_mod('s1.books', '{}');
SELECT doc_coll_mod('s2.books', '{}');
INSERT INTO s1.books(doc) VALUES ('{_id: 2, title: "bad"}');
SELECT doc_move_chunk('books', '{_id: 45}', 's1');
SELECT doc FROM books;
SELECT doc_check('books');
-- an update that changes the shard key moves the document to its new
-- chunk's shard: checked once, where it was replaced
CREATE VIRTUAL TABLE inbox USING docext;
SELECT doc_shard_collection('inbox', '{owner: 1}');
SELECT doc_coll_mod('inbox', '{validator: {text: {$type: "string"}}}');
SELECT doc_split_chunk('inbox', '{owner: 100}');
SELECT doc_move_chunk('inbox', '{owner: 100}', 's2');
INSERT INTO inbox(doc) VALUES ('{_id: 1, owner: 5, text: "hi"}');
SELECT doc_update_one('inbox', '{_id: 1}', '{$set: {owner: 500, text: 7}}');
SELECT doc_update_one('inbox', '{_id: 1}', '{$set: {owner: 500, text: "moved"}}');
SELECT doc FROM s2.inbox;
SELECT count(*) FROM s1.inbox;
SELECT doc_check('inbox');

-- 10. Why a $jsonSchema fails: where, which keyword, what was found (the
-- first failure; a branch of anyOf, oneOf or not is no reason alone)
CREATE VIRTUAL TABLE p USING docext;
SELECT doc_coll_mod('p', '{validator: {$jsonSchema: {required: ["name", "email"],
  additionalProperties: false, properties: {_id: {}, name: {bsonType: "string", maxLength: 5},
  email: {pattern: "@"}, age: {bsonType: "int", minimum: 18, maximum: 120, exclusiveMaximum: true},
  tags: {bsonType: "array", maxItems: 2, uniqueItems: true, items: {enum: ["a", "b", "c"]}},
  addr: {bsonType: "object", required: ["zip"], properties: {zip: {pattern: "^[0-9]+$"}}},
  kind: {anyOf: [{bsonType: "string"}, {bsonType: "int"}]}, n: {not: {bsonType: "double"}},
  m: {multipleOf: 3}, o: {oneOf: [{minimum: 0}, {maximum: 10}]}, v: {type: "string"},
  w: {items: [{}, {}], additionalItems: false}, x: {minProperties: 1, maxProperties: 1}},
  dependencies: {age: ["tags"]}}}}') IS NOT NULL;
INSERT INTO p(doc) VALUES ('{_id: 1, name: "Ann"}');
INSERT INTO p(doc) VALUES ('{_id: 2, name: "Ann", email: "x"}');
INSERT INTO p(doc) VALUES ('{_id: 3, name: "Annabelle", email: "a@b"}');
INSERT INTO p(doc) VALUES ('{_id: 4, name: "Ann", email: "a@b", age: 10}');
INSERT INTO p(doc) VALUES ('{_id: 5, name: "Ann", email: "a@b", age: 120, tags: []}');
INSERT INTO p(doc) VALUES ('{_id: 6, name: "Ann", email: "a@b", age: 20}');
INSERT INTO p(doc) VALUES ('{_id: 7, name: "Ann", email: "a@b", tags: ["a", "a"]}');
INSERT INTO p(doc) VALUES ('{_id: 8, name: "Ann", email: "a@b", tags: ["a", "z"]}');
INSERT INTO p(doc) VALUES ('{_id: 9, name: "Ann", email: "a@b", tags: ["a", "b", "c"]}');
INSERT INTO p(doc) VALUES ('{_id: 10, name: "Ann", email: "a@b", addr: {city: "x"}}');
INSERT INTO p(doc) VALUES ('{_id: 11, name: "Ann", email: "a@b", addr: {zip: "12a"}}');
INSERT INTO p(doc) VALUES ('{_id: 12, name: "Ann", email: "a@b", kind: 1.5}');
INSERT INTO p(doc) VALUES ('{_id: 13, name: "Ann", email: "a@b", n: 1.5}');
INSERT INTO p(doc) VALUES ('{_id: 14, name: "Ann", email: "a@b", m: 4}');
INSERT INTO p(doc) VALUES ('{_id: 15, name: "Ann", email: "a@b", o: 5}');
INSERT INTO p(doc) VALUES ('{_id: 16, name: "Ann", email: "a@b", zz: 5}');
INSERT INTO p(doc) VALUES ('{_id: 17, name: 5, email: "a@b"}');
INSERT INTO p(doc) VALUES ('{_id: 18, name: "Ann", email: "a@b", v: true}');
INSERT INTO p(doc) VALUES ('{_id: 19, name: "Ann", email: "a@b", w: [1, 2, 3]}');
INSERT INTO p(doc) VALUES ('{_id: 20, name: "Ann", email: "a@b", x: {}}');
INSERT INTO p(doc) VALUES ('{_id: 21, name: "Ann", email: "a@b", x: {a: 1, b: "' || printf('%.200c', 'b') || '"}}');
INSERT INTO p(doc) VALUES ('{_id: 22, name: "Ann", email: "a@b", age: 30, tags: ["a"], kind: "k",
  n: 1, m: 9, o: -5, addr: {zip: "123"}, v: "s", w: [1], x: {y: 1}}');
SELECT _id FROM p;
-- a top-level $and: its $jsonSchema element is explained too
SELECT doc_coll_mod('p', '{validator: {$and: [{name: {$exists: true}}, {$jsonSchema: {properties: {name: {minLength: 2}}}}]}}') IS NOT NULL;
INSERT INTO p(doc) VALUES ('{_id: 23, name: "A"}');
-- at the top, the value is the whole document
SELECT doc_coll_mod('p', '{validator: {$jsonSchema: {maxProperties: 2}}}') IS NOT NULL;
INSERT INTO p(doc) VALUES ('{_id: 24, a: 1, b: 2}');

-- 11. Damaged settings (someone wrote the shadow table), as a connection
-- that reads them afresh finds them: an error on every write, naming them;
-- doc_coll_mod over settings that do not read mends them; bytes that are
-- not BSON fail every statement, until the row is gone (later shells
-- make shadow tables read-only: defensive mode, turned off to damage them)
.connection 1
.open file:/validation_damaged?vfs=memdb
.dbconfig defensive off
.load ./docext
CREATE VIRTUAL TABLE d USING docext;
SELECT doc_coll_mod('d', '{validator: {a: 1}}');
UPDATE d_config SET v = doc_bson('{validator: 3}') WHERE k = 'validation';
.connection 2
.open file:/validation_damaged?vfs=memdb
.load ./docext
INSERT INTO d(doc) VALUES ('{_id: 1, a: 1}');
SELECT count(*) FROM d;
SELECT doc_coll_mod('d', '{validator: {a: 2}}');
INSERT INTO d(doc) VALUES ('{_id: 1, a: 1}');
INSERT INTO d(doc) VALUES ('{_id: 1, a: 2}');
.connection 1
UPDATE d_config SET v = doc_bson('{validator: {$bad: 1}, validationLevel: "moderate"}') WHERE k = 'validation';
.connection 3
.open file:/validation_damaged?vfs=memdb
.load ./docext
INSERT INTO d(doc) VALUES ('{_id: 2, a: 2}');
SELECT doc_coll_mod('d', '{validationAction: "warn"}');
.connection 1
UPDATE d_config SET v = x'0500' WHERE k = 'validation';
.connection 4
.open file:/validation_damaged?vfs=memdb
.dbconfig defensive off
.load ./docext
SELECT count(*) FROM d;
INSERT INTO d(doc) VALUES ('{_id: 2, a: 2}');
DELETE FROM d_config WHERE k = 'validation';
INSERT INTO d(doc) VALUES ('{_id: 2, a: 2}');
SELECT doc_coll_mod('d', '{}');
SELECT doc FROM d;
.connection 0
.connection close 1
.connection close 2
.connection close 3
.connection close 4

-- 12. The options of MongoDB's createCollection, as the module's argument
-- (a document in a string literal): read once, when the collection is
-- created, and kept with it; a later doc_coll_mod wins over the text of
-- the CREATE statement, which a new connection does not read again
.shell rm -f build/sqltest-validation.db build/sqltest-validation.db-journal
.open build/sqltest-validation.db
.load ./docext
CREATE VIRTUAL TABLE people USING docext('{validator: {$jsonSchema: {required: ["name"]}}, validationLevel: "moderate"}');
SELECT doc_coll_mod('people', '{}');
INSERT INTO people(doc) VALUES ('{_id: 1}');
INSERT INTO people(doc) VALUES ('{_id: 1, name: "it''s"}');
CREATE VIRTUAL TABLE quoted USING docext("{validator: {a: {$type: 'string'}}}");
INSERT INTO quoted(doc) VALUES ('{_id: 1, a: 1}');
CREATE VIRTUAL TABLE plain USING docext('{}');
SELECT doc_coll_mod('plain', '{}');
SELECT doc_coll_mod('quoted', '{validator: {}}');
.open build/sqltest-validation.db
.load ./docext
INSERT INTO people(doc) VALUES ('{_id: 2}');
INSERT INTO quoted(doc) VALUES ('{_id: 1, a: 1}');
SELECT doc_coll_mod('people', '{}');
ALTER TABLE people RENAME TO persons;
INSERT INTO persons(doc) VALUES ('{_id: 3}');
SELECT doc FROM persons;
-- errors, each creating nothing
CREATE VIRTUAL TABLE p2 USING docext('{capped: true, size: 4096}');
CREATE VIRTUAL TABLE p3 USING docext('{validator: {$foo: 1}}');
CREATE VIRTUAL TABLE p4 USING docext('{validator: ');
CREATE VIRTUAL TABLE p5 USING docext('{}', '{}');
CREATE VIRTUAL TABLE p6 USING docext(x);
CREATE VIRTUAL TABLE p7 USING docext('{validationAction: "drop"}');
SELECT count(*) FROM sqlite_schema WHERE name GLOB 'p[2-7]*';
.shell rm -f build/sqltest-validation.db build/sqltest-validation.db-journal
