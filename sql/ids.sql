-- The _id column: its value for every type, and reads through the _id index
-- with =, IN, <, <=, >, >=, BETWEEN.
.load ./docext
.headers off
.mode list

-- 1. The column's own value finds its document, for every type; NaN, which
--    SQL has no REAL for, shows as Extended JSON.
CREATE VIRTUAL TABLE ids USING docext;
INSERT INTO ids(doc) VALUES ('{_id: NumberDecimal("3")}'), ('{_id: NaN}'), ('{_id: -Infinity}'), ('{_id: 1}'),
  ('{_id: ObjectId("507f1f77bcf86cd799439011")}'), ('{_id: {a: 1}}'), ('{_id: NumberLong(7)}'), ('{_id: "s"}'), ('{_id: null}'),
  ('{_id: 2.5}'), ('{_id: true}'), ('{_id: ISODate("2020-01-01T00:00:00Z")}'), ('{_id: MinKey}'), ('{_id: MaxKey}'),
  ('{_id: BinData(0, "AQ==")}'), ('{_id: Timestamp(1, 1)}');
SELECT _id, typeof(_id), (SELECT count(*) FROM ids AS j WHERE j._id = i._id) FROM ids AS i;
SELECT doc FROM ids WHERE _id = '{"$numberDecimal":"3.0"}';
SELECT doc FROM ids WHERE _id = '{"$numberDouble":"NaN"}';
SELECT doc FROM ids WHERE _id IN ('{"$numberLong":"7"}', 1.0, NULL, x'01', 's');
SELECT doc FROM ids WHERE _id = 3;
SELECT doc FROM ids WHERE _id = '3';
SELECT doc FROM ids WHERE _id = NULL;
SELECT doc FROM ids WHERE _id = 'null';

-- 2. Ranges stay within the type of the bound; no range of numbers holds
--    NaN (as in MongoDB, and as NULL compares in SQL).
SELECT _id FROM ids WHERE _id < 1e999;
SELECT _id FROM ids WHERE _id <= 3;
SELECT _id FROM ids WHERE _id >= -1e999 AND _id < 2;
SELECT _id FROM ids WHERE _id > -1e999;
SELECT _id FROM ids WHERE _id BETWEEN 2 AND 7;
SELECT _id FROM ids WHERE _id > 'a';
SELECT _id FROM ids WHERE _id > 1 AND _id < 'z';
SELECT _id FROM ids WHERE _id > NULL;
EXPLAIN QUERY PLAN SELECT _id FROM ids WHERE _id BETWEEN 2 AND 7;
EXPLAIN QUERY PLAN SELECT _id FROM ids WHERE _id IN (1, 2);
SELECT doc_check('ids');

-- 3. E11000 names the duplicate as MongoDB's BSONObj::toString() does:
--    ObjectId('…'), new Date(ms), doubles by %.16g with ".0", strings
--    quoted as they are, objects { a: 1 }, UUID("…"), BinData(0, HEX).
INSERT INTO ids(doc) VALUES ('{_id: ObjectId("507f1f77bcf86cd799439011")}');
INSERT INTO ids(doc) VALUES ('{_id: ISODate("2020-01-01T00:00:00Z")}');
INSERT INTO ids(doc) VALUES ('{_id: 2.5}');
INSERT INTO ids(doc) VALUES ('{_id: 3.0}');
INSERT INTO ids(doc) VALUES ('{_id: NumberLong(7)}');
INSERT INTO ids(doc) VALUES ('{_id: {a: 1}}');
INSERT INTO ids(doc) VALUES ('{_id: Timestamp(1, 1)}');
INSERT INTO ids(doc) VALUES ('{_id: BinData(0, "AQ==")}');
INSERT INTO ids(doc) VALUES ('{_id: MinKey}'), ('{_id: MaxKey}');
INSERT INTO ids(doc) VALUES ('{_id: true}');
INSERT INTO ids(doc) VALUES ('{_id: null}');
INSERT INTO ids(doc) VALUES ('{_id: NaN}');
INSERT INTO ids(doc) VALUES ('{_id: -Infinity}');
INSERT INTO ids(doc) VALUES ('{_id: NumberDecimal("3.00")}');
INSERT INTO ids(doc) VALUES ('{_id: "s"}');
INSERT INTO ids(doc) VALUES ('{_id: {x: "q\"uote", y: [1, 2.0, {}], z: [], w: ISODate("1960-01-01T00:00:00Z")}}'), ('{_id: {x: "q\"uote", y: [1, 2.0, {}], z: [], w: ISODate("1960-01-01T00:00:00Z")}}');
INSERT INTO ids(doc) VALUES ('{_id: UUID("00112233-4455-6677-8899-aabbccddeeff")}'), ('{_id: UUID("00112233-4455-6677-8899-aabbccddeeff")}');
INSERT INTO ids(doc) VALUES ('{_id: 1e20}'), ('{_id: 1e20}');
INSERT INTO ids(doc) VALUES ('{_id: "' || printf('%.170c', 'x') || '"}'), ('{_id: "' || printf('%.170c', 'x') || '"}');
INSERT INTO ids(doc) VALUES ('{_id: BinData(5, "' || replace(printf('%.40c', 'A'), 'A', 'AQID') || '")}'), ('{_id: BinData(5, "' || replace(printf('%.40c', 'A'), 'A', 'AQID') || '")}');
UPDATE ids SET doc = '{_id: ObjectId("507f1f77bcf86cd799439012")}' WHERE _id = '{"$oid":"507f1f77bcf86cd799439011"}';
SELECT count(*), doc_check('ids') FROM ids;

-- 4. A replacement needs a document: NULL is refused, not ignored.
UPDATE ids SET doc = NULL WHERE _id = 1;
UPDATE ids SET bson = NULL WHERE _id = 1;
UPDATE ids SET doc = NULL, bson = NULL WHERE _id = 1;
UPDATE ids SET doc = NULL, bson = doc_bson('{_id: 1, via: "bson"}') WHERE _id = 1;
SELECT doc FROM ids WHERE _id = 1;

-- Two bounds on one side: the tighter one counts, whichever comes first.
CREATE VIRTUAL TABLE twob USING docext;
INSERT INTO twob(doc) VALUES ('{_id: 1}'), ('{_id: 2}'), ('{_id: 3}'), ('{_id: 4}'), ('{_id: 5}'), ('{_id: 6}');
SELECT group_concat(_id) FROM twob WHERE _id > 4 AND _id >= 2;
SELECT group_concat(_id) FROM twob WHERE _id >= 2 AND _id > 4;
SELECT group_concat(_id) FROM twob WHERE _id <= 5 AND _id < 3;
SELECT group_concat(_id) FROM twob WHERE _id < 3 AND _id <= 5;
SELECT group_concat(_id) FROM twob WHERE _id >= 4 AND _id > 4 AND _id <= 6 AND _id < 6;
SELECT group_concat(_id) FROM twob WHERE _id > 4 AND _id >= 4 AND _id < 6 AND _id <= 6;
SELECT group_concat(_id) FROM (SELECT _id FROM twob WHERE _id >= 4 AND _id >= 2 LIMIT 1);
SELECT group_concat(_id) FROM (SELECT _id FROM twob WHERE _id >= 2 AND _id >= 4 AND _id < 6 AND _id <= 5 AND _id > 3);
SELECT group_concat(_id) FROM (SELECT _id FROM twob WHERE _id = 4 AND _id = 2 LIMIT 1);
