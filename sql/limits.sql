-- Limits of INTERFACE.md §2 and hostile input: every failure is a docext:
-- error that says what and where, and changes nothing.
.load ./docext
.headers off
.mode list

-- 1. Nesting: 100 levels below the root are allowed, 101 are not, counted
--    the same in text and in BSON. An Extended JSON type wrapper is a value,
--    not a level, whatever it holds ({"$binary": {…}}, {"$timestamp": {…}}),
--    so every document docext writes as text reads back.
CREATE TEMP TABLE deep(name, d);
INSERT INTO deep VALUES
  ('obj100', '{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || '{z: 1}' || printf('%.99c', '}') || '}'),
  ('obj101', '{x: ' || replace(printf('%.100c', '{'), '{', '{a: ') || '{z: 1}' || printf('%.100c', '}') || '}'),
  ('arr100', '{x: ' || printf('%.100c', '[') || printf('%.100c', ']') || '}'),
  ('arr101', '{x: ' || printf('%.101c', '[') || printf('%.101c', ']') || '}');
INSERT INTO deep SELECT 'ts100', '{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || '{z: {"$timestamp": {"t": 1, "i": 2}}}' || printf('%.99c', '}') || '}';
INSERT INTO deep SELECT 'bin100', '{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || '{z: {"$binary": {"base64": "AQ==", "subType": "00"}}}' || printf('%.99c', '}') || '}';
INSERT INTO deep SELECT 're100', '{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || '{z: {"$regularExpression": {"pattern": "x", "options": ""}}}' || printf('%.99c', '}') || '}';
INSERT INTO deep SELECT 'dbp100', '{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || '{z: {"$dbPointer": {"$ref": "c", "$id": {"$oid": "507f1f77bcf86cd799439011"}}}}' || printf('%.99c', '}') || '}';
INSERT INTO deep SELECT 'date100', '{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || '{z: {"$date": {"$numberLong": "1"}}}' || printf('%.99c', '}') || '}';
-- a DBRef(…) is a document: a level
INSERT INTO deep SELECT 'ref100', '{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || 'DBRef("c", 1)' || printf('%.99c', '}') || '}';
INSERT INTO deep SELECT 'ref101', '{x: ' || replace(printf('%.100c', '{'), '{', '{a: ') || 'DBRef("c", 1)' || printf('%.100c', '}') || '}';
-- a code-with-scope's scope is a level of its own
INSERT INTO deep SELECT 'scope100', '{x: ' || replace(printf('%.98c', '{'), '{', '{a: ') || '{z: {"$code": "f", "$scope": {s: 1}}}' || printf('%.98c', '}') || '}';
INSERT INTO deep SELECT 'scope101', '{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || '{z: {"$code": "f", "$scope": {s: 1}}}' || printf('%.99c', '}') || '}';
INSERT INTO deep SELECT 'code100', '{x: ' || replace(printf('%.98c', '{'), '{', '{a: ') || '{z: Code("f", {s: 1})}' || printf('%.98c', '}') || '}';
INSERT INTO deep SELECT 'code101', '{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || '{z: Code("f", {s: 1})}' || printf('%.99c', '}') || '}';
-- a wrapper nested in wrappers is not a way around the limit
INSERT INTO deep SELECT 'wrapwrap', '{x: ' || replace(printf('%.300c', '{'), '{', '{"$date": ') || '1' || printf('%.300c', '}') || '}';
SELECT name, length(doc_bson(d)) FROM deep WHERE name NOT LIKE '%101' AND name <> 'wrapwrap';
SELECT name, doc_valid(d) FROM deep;
-- what docext writes, in every mode, reads back as the same BSON
SELECT name, doc_bson(doc_json(d, 'canonical')) = doc_bson(d), doc_bson(doc_json(d)) = doc_bson(d),
       doc_bson(doc_json(d, 'shell')) = doc_bson(d) FROM deep WHERE name NOT LIKE '%101' AND name <> 'wrapwrap';
SELECT doc_bson(d) FROM deep WHERE name = 'obj101';
SELECT doc_bson(d) FROM deep WHERE name = 'arr101';
SELECT doc_bson(d) FROM deep WHERE name = 'scope101';
SELECT doc_bson(d) FROM deep WHERE name = 'wrapwrap';
SELECT length(doc_bson('{x: ' || replace(printf('%.99c', '{'), '{', '{a: ') || '{z: Timestamp({t: 1, i: 2})}' || printf('%.99c', '}') || '}'));
-- a $scope written before its $code is counted as if the wrapper were a
-- level (it cannot be known yet): valid, as long as it is not at the limit
SELECT doc_json('{c: {$scope: {a: [1]}, $code: "f"}}', 'canonical');

-- 2. Stored field names: no '$' first and no '.', at any depth, in arrays
--    too; a DBRef's $ref, $id, $db are allowed in that order, as MongoDB
--    allows them ($id right after $ref, $db right after $id).
CREATE VIRTUAL TABLE names USING docext;
INSERT INTO names(doc) VALUES ('{_id: 1, a: [{"$x": 1}]}');
INSERT INTO names(doc) VALUES ('{_id: 2, a: [[{"b.c": 1}]]}');
INSERT INTO names(doc) VALUES ('{_id: {"$x": 1}}');
INSERT INTO names(doc) VALUES ('{_id: 3, a: {$refx: 1}}');
INSERT INTO names(doc) VALUES ('{_id: 4, a: {$id: 1}}');
INSERT INTO names(doc) VALUES ('{_id: 5, a: {$ref: "c"}}');
INSERT INTO names(doc) VALUES ('{_id: 6, a: {$ref: "c", x: 1, $id: 1}}');
INSERT INTO names(doc) VALUES ('{_id: 7, a: {$ref: "c", $id: 1, x: 1, $db: "d"}}');
INSERT INTO names(doc) VALUES ('{_id: 8, a: {$id: 1, $ref: "c"}}');
INSERT INTO names(doc) VALUES ('{_id: 9, a: {$ref: "c", $id: 1}}'), ('{_id: 10, a: [{$ref: "c", $id: 2, $db: "d", extra: true}]}'), ('{_id: 11, "": {"": 1}}');
INSERT INTO names(doc) VALUES ('{_id: 14, a: DBRef("c", 3, "d"), b: [DBRef("c", {k: 1})]}');
INSERT INTO names(doc) VALUES ('{_id: 15, a: DBRef("c", {$x: 1})}');
INSERT INTO names(doc) VALUES (doc_bson('{_id: 12, a: {"$x": 1}}'));
INSERT INTO names(doc) VALUES (doc_bson('{_id: 13, "a.b": 1}'));
UPDATE names SET doc = '{x: {"y.z": 1}}' WHERE _id = 9;
UPDATE names SET doc = doc_update(doc, '{$set: {"a.$id": 5}}') WHERE _id = 9;
SELECT doc FROM names;
SELECT doc_check('names');

-- 3. One _id per document, as MongoDB ("can't have multiple _id fields");
--    other repeated names are kept as BSON allows.
INSERT INTO names(doc) VALUES ('{_id: 20, _id: 21}');
INSERT INTO names(doc) VALUES ('{x: 1, _id: 22, _id: 23}');
INSERT INTO names(doc) VALUES (doc_bson('{x: 1, _id: 24, y: {_id: 1}, _id: 25}'));
UPDATE names SET doc = '{_id: 9, _id: 9}' WHERE _id = 9;
UPDATE names SET doc = '{a: 1, _id: 9, _id: 9}' WHERE _id = 9;
INSERT INTO names(doc) VALUES ('{_id: 26, a: 1, a: 2, b: {_id: 1, _id: 2}}');
SELECT doc FROM names WHERE _id >= 9;
SELECT doc_check('names');

-- 4. A failure in the middle of a multi-row statement changes nothing, in
--    or out of a transaction; the statements before it stay.
CREATE VIRTUAL TABLE tx USING docext;
SELECT doc_create_index('tx', '{slug: 1}', '{unique: true, sparse: true}');
BEGIN;
INSERT INTO tx(doc) VALUES ('{_id: 1, slug: "a"}'), ('{_id: 2, slug: "b"}');
INSERT INTO tx(doc) SELECT column1 FROM (VALUES ('{_id: 3}'), ('{_id: 4}'), ('{_id: 5, x: '));
INSERT INTO tx(doc) SELECT column1 FROM (VALUES ('{_id: 3}'), ('{_id: 4}'), ('{_id: 5, x: ' || printf('%.101c', '[') || printf('%.101c', ']') || '}'));
INSERT INTO tx(doc) SELECT column1 FROM (VALUES ('{_id: 3}'), ('{_id: 4}'), ('{_id: 5, s: "' || printf('%.16777216c', 'x') || '"}'));
INSERT INTO tx(doc) SELECT column1 FROM (VALUES ('{_id: 3}'), ('{_id: 4}'), ('{_id: 5, a: {"$x": 1}}'));
INSERT INTO tx(doc) SELECT column1 FROM (VALUES ('{_id: 3}'), ('{_id: 4}'), ('{_id: 1}'));
INSERT INTO tx(doc) SELECT column1 FROM (VALUES ('{_id: 3, slug: "c"}'), ('{_id: 4, slug: "d"}'), ('{_id: 5, slug: "a"}'));
INSERT INTO tx(doc) SELECT column1 FROM (VALUES (x'0c0000001061000100000000'), (x'0c000000106100010000'));
INSERT INTO tx(doc) SELECT doc FROM doc_each('[{_id: 3}, {_id: 4}, {_id: [5]}]');
SELECT count(*), doc_check('tx') FROM tx;
UPDATE tx SET doc = doc_update(doc, '{$set: {s: "' || printf('%.16777200c', 'x') || '"}}') WHERE _id >= 1;
UPDATE tx SET doc = '{_id: 2, slug: "z"}' WHERE _id >= 1;
UPDATE tx SET doc = '{slug: "' || _id || '"}';
UPDATE tx SET doc = '{slug: "same"}';
DELETE FROM tx WHERE _id = 1;
COMMIT;
SELECT doc, doc_check('tx') FROM tx;

-- 5. Hostile bytes: truncated and garbage BSON (the message gives the byte
--    offset), bad UTF-8 in BSON and in text (line and column), NUL bytes.
CREATE VIRTUAL TABLE raw USING docext;
INSERT INTO raw(bson) VALUES (x'');
INSERT INTO raw(bson) VALUES (x'05000000');
INSERT INTO raw(bson) VALUES (x'ffffff7f00');
INSERT INTO raw(bson) VALUES (x'0c00000010610001000000');
INSERT INTO raw(bson) VALUES (x'0c0000001061000100000000ff');
INSERT INTO raw(bson) VALUES (x'0d000000026100ffffff7f0000');
INSERT INTO raw(bson) VALUES (x'0e00000002610002000000780100');
INSERT INTO raw(bson) VALUES (x'0e00000002610002000000ff0000');
INSERT INTO raw(bson) VALUES (x'0f00000002610003000000c0af0000');
INSERT INTO raw(bson) VALUES (x'0c00000010ff000100000000');
INSERT INTO raw(bson) VALUES (x'0c0000001461000100000000');
INSERT INTO raw(bson) VALUES (x'090000000861000200');
INSERT INTO raw(bson) VALUES (x'10000000036100040000000000000000');
INSERT INTO raw(bson) VALUES (x'0e0000000561000100000002ff00');
INSERT INTO raw(doc) VALUES (CAST(x'7b613a202278ff227d' AS TEXT));
INSERT INTO raw(doc) VALUES (CAST(x'7b0a20c3a93a20312c0a20ff3a20327d' AS TEXT));
INSERT INTO raw(doc) VALUES (CAST(x'7b613a202278007922207d' AS TEXT));
INSERT INTO raw(doc) VALUES ('{"a\u0000b": 1}');
INSERT INTO raw(doc) VALUES ('{a: "\ud800"}');
INSERT INTO raw(doc) VALUES ('{a: /x' || char(0) || '/}');
INSERT INTO raw(doc) VALUES ('{_id: 1, a: "x\u0000y", "é": "\ud83d\ude00"}');
SELECT doc, hex(bson), doc_check('raw') FROM raw;
SELECT doc_valid(x'0c0000001061000100000000ff'), doc_valid(CAST(x'7b613a202278ff227d' AS TEXT)), doc_valid('{a: "x\u0000y"}');
