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
