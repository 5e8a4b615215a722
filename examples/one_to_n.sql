-- One-to-N, from few to squillions (SCENARIOS.md E.1-E.5).
-- Run: sqlite3 < examples/one_to_n.sql
.load ./docext
.headers off
.mode list
.echo on
-- E.1 one-to-few, embedded
CREATE VIRTUAL TABLE people USING docext;
INSERT INTO people(doc) VALUES ('{ _id: 1, name: "Kate Monster", addresses: [
  { street: "123 Sesame St", city: "Anytown", cc: "USA" }, { street: "123 Avenue Q", city: "New York", cc: "USA" } ] }');
SELECT doc_get(doc, 'addresses.city') FROM people('{ "addresses.city": "New York" }');
-- E.2 one-to-many, child references
CREATE VIRTUAL TABLE parts USING docext;
CREATE VIRTUAL TABLE products USING docext;
INSERT INTO parts(doc) VALUES ('{ _id: ObjectId("AAAAAAAAAAAAAAAAAAAAAAAA"), partno: "123-aff-456", name: "#4 grommet", qty: 94, cost: 0.94 }'),
                              ('{ _id: ObjectId("F17C1A5D2F2E4D5E6A7B8C9D"), partno: "123-afe-456", name: "#4 washer", qty: 12, cost: 0.12 }');
INSERT INTO products(doc) VALUES ('{ name: "left-handed smoke shifter", manufacturer: "Acme Corp", catalog_number: 1234,
  parts: [ ObjectId("AAAAAAAAAAAAAAAAAAAAAAAA"), ObjectId("F17C1A5D2F2E4D5E6A7B8C9D") ] }');
SELECT doc_get(p.doc, 'name') FROM products pr, parts p
 WHERE pr.filter = '{ catalog_number: 1234 }'
   AND p.filter = json_object('_id', json_object('$in', json(doc_get(pr.doc, 'parts'))));
-- E.3 one-to-squillions, parent references
CREATE VIRTUAL TABLE hosts USING docext;
CREATE VIRTUAL TABLE logmsgs USING docext;
SELECT doc_create_index('logmsgs', '{ host: 1, time: -1 }');
INSERT INTO hosts(doc) VALUES ('{ _id: ObjectId("507f1f77bcf86cd799439011"), name: "goofy.example.com", ipaddr: "127.66.66.66" }');
INSERT INTO logmsgs(doc) SELECT json_object('time', json_object('$date', 1362096000000 + value * 1000),
  'message', 'cpu is on fire ' || value, 'host', json_object('$oid', '507f1f77bcf86cd799439011')) FROM generate_series(1, 20);
SELECT doc_get(doc, 'message') FROM logmsgs('{ host: ObjectId("507f1f77bcf86cd799439011") }', NULL, '{ time: -1 }') LIMIT 3;
SELECT doc_explain('logmsgs', '{ host: ObjectId("507f1f77bcf86cd799439011") }', NULL, '{ time: -1 }', '{ limit: 5 }');
-- E.4 two-way references: reassigning a task is two updates
CREATE VIRTUAL TABLE tasks USING docext;
INSERT INTO tasks(doc) VALUES ('{ _id: 10, description: "Write lesson plan", owner: 1 }');
UPDATE people SET doc = doc_update(doc, '{ $push: { tasks: 10 } }') WHERE _id = 1;
INSERT INTO people(doc) VALUES ('{ _id: 2, name: "Bob", tasks: [] }');
BEGIN;
SELECT doc_update_one('tasks', '{ _id: 10 }', '{ $set: { owner: 2 } }');
SELECT doc_update_many('people', '{ tasks: 10 }', '{ $pull: { tasks: 10 } }');
SELECT doc_update_one('people', '{ _id: 2 }', '{ $push: { tasks: 10 } }');
COMMIT;
SELECT doc_get(doc, 'name'), doc_get(doc, 'tasks') FROM people;
-- E.5 denormalization: the part name copied into the product, renamed in
-- every product with one positional multi-document update
UPDATE products SET doc = doc_update(doc, '{ $set: { parts: [
  { id: ObjectId("AAAAAAAAAAAAAAAAAAAAAAAA"), name: "#4 grommet" },
  { id: ObjectId("F17C1A5D2F2E4D5E6A7B8C9D"), name: "#4 washer" } ] } }') WHERE filter = '{ catalog_number: 1234 }';
SELECT doc_update_many('products', '{ "parts.id": ObjectId("F17C1A5D2F2E4D5E6A7B8C9D") }',
  '{ $set: { "parts.$.name": "#4 steel washer" } }');
SELECT doc_get(doc, 'parts.name') FROM products;
-- ... and the last 1000 messages kept in the host
UPDATE hosts SET doc = doc_update(doc, '{ $push: { logmsgs: { $each: [ { time: new Date(0), msg: "boot" } ],
  $sort: { time: 1 }, $slice: -1000 } } }') WHERE _id = '{"$oid":"507f1f77bcf86cd799439011"}';
SELECT doc FROM hosts('{ name: "goofy.example.com" }', '{ _id: 1 }');
SELECT doc_check('logmsgs'), doc_check('people');
