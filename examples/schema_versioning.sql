-- The schema versioning pattern, with a validator: the documents of a
-- collection change shape over time (a contact's phone and email become
-- a list of contact methods), old and new shapes live side by side while
-- the application migrates them, and a validator keeps new writes in the
-- new shape without blocking changes to documents not migrated yet.
-- Run: sqlite3 < examples/schema_versioning.sql
.load ./docext
.headers off
.mode list
.echo on

-- 1. Version 1: phone and email as fields of their own
CREATE VIRTUAL TABLE customers USING docext;
INSERT INTO customers(doc) VALUES
  ('{ _id: 1, name: "Anya Park",  phone: "555-0101", email: "anya@example.com" }'),
  ('{ _id: 2, name: "Bruno Diaz", phone: "555-0102" }'),
  ('{ _id: 3, name: "Chen Wei",   email: "chen@example.com" }');

-- 2. Version 2: schema_version 2 and a list of contact methods. From now
--    on every new document must have that shape; "moderate" still lets the
--    application change version-1 documents it has not migrated yet.
SELECT doc_coll_mod('customers', '{
  validator: { $jsonSchema: {
    required: ["name", "schema_version", "contacts"],
    properties: {
      name: { bsonType: "string" },
      schema_version: { enum: [2] },
      contacts: { bsonType: "array", minItems: 1, items: {
        bsonType: "object", required: ["kind", "value"],
        properties: { kind: { enum: ["phone", "email", "mobile"] }, value: { bsonType: "string" } } } } } } },
  validationLevel: "moderate" }');
INSERT INTO customers(doc) VALUES
  ('{ _id: 4, name: "Dana Ito", schema_version: 2,
      contacts: [ { kind: "mobile", value: "555-0104" }, { kind: "email", value: "dana@example.com" } ] }');
-- a version-1 document is no longer accepted: INSERT OR IGNORE skips it
-- (a plain INSERT fails with "Document failed validation: ... at
-- 'schema_version': required, but missing")
INSERT OR IGNORE INTO customers(doc) VALUES ('{ _id: 5, name: "Eve Stone", phone: "555-0105" }');
SELECT count(*) FROM customers;
-- a version-1 document may still change ("moderate": it was invalid already)
SELECT doc_update_one('customers', '{ _id: 2 }', '{ $set: { phone: "555-0199" } }');

-- 3. The documents not migrated yet (the version-1 ones)
SELECT _id FROM customers('{ $nor: [{ schema_version: 2 }] }');

-- 4. The application reads both shapes while they coexist
SELECT _id, coalesce(doc_get(doc, 'schema_version'), 1),
       coalesce(doc_get(doc, 'phone'),
                (SELECT json_extract(c.value, '$.value') FROM json_each(doc_get(doc, 'contacts')) AS c
                  WHERE json_extract(c.value, '$.kind') IN ('phone', 'mobile')))
  FROM customers ORDER BY _id;

-- 5. Migrate in one command: a pipeline update builds the list from the
--    old fields; each new document is checked against the validator
SELECT doc_update_many('customers', '{ schema_version: { $exists: false } }', '[
  { $set: { schema_version: 2, contacts: { $concatArrays: [
      { $cond: [{ $ifNull: ["$phone", false] }, [{ kind: "phone", value: "$phone" }], []] },
      { $cond: [{ $ifNull: ["$email", false] }, [{ kind: "email", value: "$email" }], []] } ] } } },
  { $unset: ["phone", "email"] } ]');
SELECT doc FROM customers ORDER BY _id;
SELECT _id FROM customers('{ $nor: [{ schema_version: 2 }] }');

-- 6. Every document has the new shape: check every write from now on
SELECT doc_coll_mod('customers', '{ validationLevel: "strict" }');
SELECT doc_check('customers');
