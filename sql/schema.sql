-- $jsonSchema: documents that a JSON Schema accepts, with MongoDB's rules
-- (docext_schema.c): draft 4's keywords and bsonType; a keyword about one
-- type holds for values of other types and for missing ones; no implicit
-- array traversal; at the top the value is the whole document.
.load ./docext
.headers off
.mode list

CREATE VIRTUAL TABLE people USING docext;
INSERT INTO people(doc) VALUES
  ('{_id: 1, name: "Ann", age: 31, email: "ann@example.com", tags: ["a", "b"]}'),
  ('{_id: 2, name: "Bob", age: NumberLong(17), tags: ["a", "a"]}'),
  ('{_id: 3, name: "Cy", age: 45.5, email: "cy-at-example"}'),
  ('{_id: 4, name: 7, age: "old"}'),
  ('{_id: 5, name: "Dee", address: {city: "Oslo", zip: "0150"}}'),
  ('{_id: 6, name: "Eve", address: {city: "Rome"}, age: [30, 31]}');

-- 1. required, properties, bsonType, type, minimum, pattern, uniqueItems
SELECT _id FROM people('{$jsonSchema: {required: ["name", "age"]}}');
SELECT _id FROM people('{$jsonSchema: {properties: {name: {bsonType: "string"}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {age: {bsonType: "number", minimum: 18}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {age: {type: "number", minimum: 18, maximum: 45.5, exclusiveMaximum: true}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {age: {bsonType: ["int", "long"]}}, required: ["age"]}}');
SELECT _id FROM people('{$jsonSchema: {properties: {email: {pattern: "^[^@]+@[^@]+$"}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {tags: {uniqueItems: true, minItems: 2, items: {enum: ["a", "b"]}}}}}');
-- no implicit array traversal: age [30, 31] is an array, not a number
SELECT _id FROM people('{$jsonSchema: {properties: {age: {minimum: 31}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {age: {bsonType: "number"}}, required: ["age"]}}');
-- 2. nested objects, additionalProperties, patternProperties, dependencies
SELECT _id FROM people('{$jsonSchema: {properties: {address: {required: ["zip"], properties: {zip: {pattern: "^[0-9]{4}$"}}}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {address: {additionalProperties: false, properties: {city: {}}}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {address: {patternProperties: {"^c": {maxLength: 4}}}}}}');
SELECT _id FROM people('{$jsonSchema: {dependencies: {email: ["age"], address: {required: ["age"]}}}}');
SELECT _id FROM people('{$jsonSchema: {additionalProperties: false, properties: {_id: {}, name: {}, age: {}, email: {}}}}');
SELECT _id FROM people('{$jsonSchema: {minProperties: 5}}');
SELECT _id FROM people('{$jsonSchema: {maxProperties: 3}}');
-- 3. allOf, anyOf, oneOf, not, enum; at the top, enum compares whole
--    documents (fields in any order)
SELECT _id FROM people('{$jsonSchema: {anyOf: [{required: ["email"]}, {required: ["address"]}]}}');
SELECT _id FROM people('{$jsonSchema: {oneOf: [{required: ["email"]}, {properties: {age: {minimum: 40}}}]}}');
SELECT _id FROM people('{$jsonSchema: {not: {required: ["age"]}}}');
SELECT _id FROM people('{$jsonSchema: {allOf: [{required: ["name"]}, {properties: {name: {minLength: 3}}}]}}');
SELECT _id FROM people('{$jsonSchema: {enum: [{age: "old", name: 7, _id: 4}, 5]}}');
SELECT _id FROM people('{$jsonSchema: {properties: {age: {enum: [31, 17]}}}}');
-- a top-level type other than object matches nothing; scalar keywords
-- hold trivially at the top
SELECT count(*) FROM people('{$jsonSchema: {bsonType: "array"}}');
SELECT count(*) FROM people('{$jsonSchema: {type: "object", minimum: 5, maxLength: 0, items: {bsonType: "int"}}}');
-- 4. multipleOf divides as decimals (a double has 15 significant digits)
SELECT doc_match('{x: 0.3}', '{$jsonSchema: {properties: {x: {multipleOf: 0.1}}}}'),
       doc_match('{x: 0.35}', '{$jsonSchema: {properties: {x: {multipleOf: 0.1}}}}'),
       doc_match('{x: NumberLong(12)}', '{$jsonSchema: {properties: {x: {multipleOf: 4}}}}'),
       doc_match('{x: NumberDecimal("7.5")}', '{$jsonSchema: {properties: {x: {multipleOf: 2.5}}}}'),
       doc_match('{x: -6}', '{$jsonSchema: {properties: {x: {multipleOf: 3}}}}');
-- 5. items as an array, additionalItems; minLength counts code points
SELECT doc_match('{a: [1, "x", true]}', '{$jsonSchema: {properties: {a: {items: [{bsonType: "int"}, {bsonType: "string"}], additionalItems: false}}}}'),
       doc_match('{a: [1, "x"]}', '{$jsonSchema: {properties: {a: {items: [{bsonType: "int"}, {bsonType: "string"}], additionalItems: false}}}}'),
       doc_match('{a: [1, "x", 2, 3]}', '{$jsonSchema: {properties: {a: {items: [{}], additionalItems: {bsonType: "int"}}}}}'),
       doc_match('{s: "héé"}', '{$jsonSchema: {properties: {s: {minLength: 3, maxLength: 3}}}}');
-- 6. with other conditions, an index still serves them; under $elemMatch
--    the schema applies to each element document; inside $or and $nor
SELECT doc_create_index('people', '{name: 1}');
SELECT _id FROM people('{name: "Ann", $jsonSchema: {required: ["email"]}}');
SELECT json_extract(doc_explain('people', '{name: "Ann", $jsonSchema: {required: ["email"]}}'), '$.cursor', '$.n');
SELECT doc_match('{a: [{x: 1}, {x: "s"}]}', '{a: {$elemMatch: {$jsonSchema: {properties: {x: {bsonType: "string"}}, required: ["x"]}}}}');
SELECT _id FROM people('{$nor: [{$jsonSchema: {required: ["age"]}}, {_id: 1}]}');
SELECT doc_delete_many('people', '{$jsonSchema: {properties: {name: {bsonType: "int"}}}}');
SELECT count(*) FROM people;
-- 7. errors: MongoDB's, before any document is read
SELECT _id FROM people('{$jsonSchema: {foo: 1}}');
SELECT _id FROM people('{$jsonSchema: {format: "email"}}');
SELECT _id FROM people('{$jsonSchema: {type: "integer"}}');
SELECT _id FROM people('{$jsonSchema: {type: "string", bsonType: "string"}}');
SELECT _id FROM people('{$jsonSchema: {bsonType: "text"}}');
SELECT _id FROM people('{$jsonSchema: {bsonType: ["int", "int"]}}');
SELECT _id FROM people('{$jsonSchema: {required: []}}');
SELECT _id FROM people('{$jsonSchema: {required: ["a", "a"]}}');
SELECT _id FROM people('{$jsonSchema: {enum: [1, 1.0]}}');
SELECT _id FROM people('{$jsonSchema: {properties: {a: {exclusiveMinimum: true}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {a: {maxLength: -1}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {a: {multipleOf: 0}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {a: {pattern: "("}}}}');
SELECT _id FROM people('{$jsonSchema: {properties: {a: 1}}}');
SELECT _id FROM people('{$jsonSchema: {anyOf: []}}');
SELECT _id FROM people('{$jsonSchema: {items: 1}}');
SELECT _id FROM people('{$jsonSchema: {dependencies: {a: 1}}}');
SELECT _id FROM people('{$jsonSchema: {minimum: 1, minimum: 2}}');
SELECT _id FROM people('{$jsonSchema: 5}');
SELECT _id FROM people('{name: {$jsonSchema: {}}}');
-- not where MongoDB refuses whole-document operators
SELECT doc_create_index('people', '{age: 1}', '{partialFilterExpression: {$jsonSchema: {required: ["age"]}}}');
SELECT doc_update('{a: [{x: 1}]}', '{$pull: {a: {$jsonSchema: {}}}}');
SELECT doc_update('{a: [{x: 1}]}', '{$set: {"a.$[e].x": 2}}', '{arrayFilters: [{$jsonSchema: {}}]}');
SELECT doc_check('people');
-- 8. enum's and uniqueItems' duplicates are found through sorted hashes,
--    not by comparing every pair: long arrays cost n log n, as MongoDB's
--    set does. Equal numbers of any type and documents with their fields in
--    another order are duplicates.
SELECT doc_match('{a: ' || (SELECT json_group_array(value) FROM generate_series(1, 50000)) || '}',
                 '{$jsonSchema: {properties: {a: {uniqueItems: true}}}}'),
       doc_match('{a: ' || (SELECT json_group_array(json_object('x', value % 25000, 'y', 1)) FROM generate_series(1, 50000)) || '}',
                 '{$jsonSchema: {properties: {a: {uniqueItems: true}}}}'),
       doc_match('{a: 49999}', '{$jsonSchema: {properties: {a: {enum: ' || (SELECT json_group_array(value) FROM generate_series(1, 50000)) || '}}}}'),
       doc_match('{a: [{x: 1, y: 2}, {y: 2, x: 1.0}]}', '{$jsonSchema: {properties: {a: {uniqueItems: true}}}}'),
       doc_match('{a: ["1", 1, NumberLong(2), 2.5]}', '{$jsonSchema: {properties: {a: {uniqueItems: true}}}}');
SELECT doc_match('{}', '{$jsonSchema: {enum: [{a: [1, {b: 2, c: 3}]}, {a: [1.0, {c: 3, b: NumberDecimal("2")}]}]}}');
