-- Collations: MongoDB's collation documents (through ICU) in a find's
-- options, doc_count, doc_distinct, doc_explain, the update and delete
-- commands, doc_find_and_modify and doc_update; indexes with a collation
-- (their keys are ICU sort keys), which serve only queries of the same
-- collation for strings; sharded collections; and the errors. Each answer
-- through an index is checked against a collection scan ({$natural: 1}).
.load ./docext
.headers off
.mode list
.separator ' => '

CREATE VIRTUAL TABLE fruit USING docext;
INSERT INTO fruit(doc) VALUES
  ('{_id: 1, name: "apple", n: 1}'),
  ('{_id: 2, name: "Apple", n: 2}'),
  ('{_id: 3, name: "äpple", n: 3}'),
  ('{_id: 4, name: "banana", n: 4}'),
  ('{_id: 5, name: "B", n: 5}'),
  ('{_id: 6, name: 10, n: 6}'),
  ('{_id: 7, name: "a10", n: 7}'),
  ('{_id: 8, name: "a9", n: 8}'),
  ('{_id: 9, name: ["APPLE", "cherry"], n: 9}'),
  ('{_id: 10, name: {first: "Apple"}, n: 10}'),
  ('{_id: 11, name: "pêche", n: 11}'),
  ('{_id: 12, name: "peché", n: 12}'),
  ('{_id: 13, n: 13}');

-- Sorts: bytes, then English, numeric ordering, upper case first, French
-- Canadian (accents compared from the end of the word).
SELECT 'simple', group_concat(_id, ' ') FROM fruit('{}', NULL, '{name: 1, _id: 1}');
SELECT 'en', group_concat(_id, ' ') FROM fruit('{}', NULL, '{name: 1, _id: 1}', '{collation: {locale: "en"}}');
SELECT 'en desc', group_concat(_id, ' ') FROM fruit('{}', NULL, '{name: -1, _id: 1}', '{collation: {locale: "en"}}');
SELECT 'numeric', group_concat(_id, ' ') FROM fruit('{name: /^a/}', NULL, '{name: 1}', '{collation: {locale: "en", numericOrdering: true}}');
SELECT 'upper first', group_concat(_id, ' ') FROM fruit('{name: {$in: ["apple", "Apple"]}}', NULL, '{name: 1}', '{collation: {locale: "en", caseFirst: "upper"}}');
SELECT 'fr', group_concat(_id, ' ') FROM fruit('{name: /^p/}', NULL, '{name: 1}', '{collation: {locale: "fr"}}');
SELECT 'fr_CA', group_concat(_id, ' ') FROM fruit('{name: /^p/}', NULL, '{name: 1}', '{collation: {locale: "fr_CA"}}');

-- Matching: strength 3 (case matters), 2 (accents matter), 1 (neither);
-- in arrays, in documents compared whole, $in, $nin, ranges, $ne, and
-- $regex, which a collation never changes.
SELECT 'eq 3', group_concat(_id, ' ') FROM fruit('{name: "apple"}', NULL, NULL, '{collation: {locale: "en"}}');
SELECT 'eq 2', group_concat(_id, ' ') FROM fruit('{name: "apple"}', NULL, NULL, '{collation: {locale: "en", strength: 2}}');
SELECT 'eq 1', group_concat(_id, ' ') FROM fruit('{name: "apple"}', NULL, NULL, '{collation: {locale: "en", strength: 1}}');
SELECT 'doc 2', group_concat(_id, ' ') FROM fruit('{name: {first: "APPLE"}}', NULL, NULL, '{collation: {locale: "en", strength: 2}}');
SELECT 'in 1', group_concat(_id, ' ') FROM fruit('{name: {$in: ["APPLE", "b"]}}', NULL, NULL, '{collation: {locale: "en", strength: 1}}');
SELECT 'nin 2', group_concat(_id, ' ') FROM fruit('{name: {$nin: ["APPLE", "b"]}}', NULL, NULL, '{collation: {locale: "en", strength: 2}}');
SELECT 'ne 2', group_concat(_id, ' ') FROM fruit('{name: {$ne: "APPLE"}}', NULL, NULL, '{collation: {locale: "en", strength: 2}}');
SELECT 'gt 2', group_concat(_id, ' ') FROM fruit('{name: {$gt: "apple", $lt: "c"}}', NULL, NULL, '{collation: {locale: "en", strength: 2}}');
SELECT 'gt bytes', group_concat(_id, ' ') FROM fruit('{name: {$gt: "apple", $lt: "c"}}');
SELECT 'regex', group_concat(_id, ' ') FROM fruit('{name: /^A/}', NULL, NULL, '{collation: {locale: "en", strength: 1}}');
SELECT 'elemMatch', group_concat(_id, ' ') FROM fruit('{name: {$elemMatch: {$eq: "apple"}}}', NULL, NULL, '{collation: {locale: "en", strength: 2}}');
SELECT 'expr', group_concat(_id, ' ') FROM fruit('{$expr: {$eq: ["$name", "apple"]}}', NULL, NULL, '{collation: {locale: "en", strength: 2}}');
SELECT 'simple', group_concat(_id, ' ') FROM fruit('{name: "apple"}', NULL, NULL, '{collation: {locale: "simple"}}');

-- doc_count (with skip and limit), doc_distinct, doc_explain.
SELECT doc_count('fruit', '{name: "APPLE"}', '{collation: {locale: "en", strength: 2}}');
SELECT doc_count('fruit', '{name: "APPLE"}', '{collation: {locale: "en", strength: 1}, skip: 1, limit: 2}');
SELECT doc_count('fruit', '{}', '{skip: 10}');
SELECT doc_distinct('fruit', 'name', '{n: {$lt: 6}}', '{collation: {locale: "en", strength: 1}}');
SELECT doc_distinct('fruit', 'name', '{n: {$lt: 6}}', '{collation: {locale: "en", strength: 2}}');
SELECT doc_distinct('fruit', 'name', '{n: {$lt: 6}}');

-- Indexes. A simple index serves a collated query only for what is not a
-- string; a collated one serves queries of its collation, its sort too.
SELECT doc_create_index('fruit', '{name: 1}');
SELECT doc_create_index('fruit', '{name: 1}', '{name: "name_en2", collation: {locale: "en", strength: 2}}');
SELECT doc_create_index('fruit', '{name: 1}', '{name: "name_en2", collation: {locale: "en", strength: 2}}');
SELECT doc_create_index('fruit', '{name: 1}', '{name: "other", collation: {locale: "en", strength: 2}}');
SELECT doc_create_index('fruit', '{name: 1}', '{name: "name_en2", collation: {locale: "en", strength: 1}}');
SELECT doc_create_index('fruit', '{name: 1}', '{name: "name_fr", collation: {locale: "fr", strength: 1, caseLevel: true}}');
SELECT name, key, collation FROM doc_indexes('fruit');
SELECT doc_check('fruit');
SELECT json_extract(doc_explain('fruit', '{name: "APPLE"}', NULL, NULL, '{collation: {locale: "en", strength: 2}}'), '$.cursor', '$.n', '$.indexBounds');
SELECT json_extract(doc_explain('fruit', '{name: "APPLE"}', NULL, NULL, '{collation: {locale: "en", strength: 3}}'), '$.cursor', '$.n');
SELECT json_extract(doc_explain('fruit', '{name: "APPLE"}'), '$.cursor', '$.n');
SELECT json_extract(doc_explain('fruit', '{name: 10}', NULL, NULL, '{collation: {locale: "de"}}'), '$.cursor', '$.n');
SELECT json_extract(doc_explain('fruit', '{}', NULL, '{name: 1}', '{collation: {locale: "en", strength: 2}, limit: 3}'), '$.cursor', '$.scanAndOrder', '$.nscanned');
SELECT json_extract(doc_explain('fruit', '{}', NULL, '{name: 1}', '{collation: {locale: "en"}, limit: 3}'), '$.cursor', '$.scanAndOrder');
SELECT json_extract(doc_explain('fruit', '{name: /^a/}', NULL, NULL, '{hint: "name_en2"}'), '$.cursor', '$.n', '$.indexBounds');
SELECT json_extract(doc_explain('fruit', '{name: {$in: ["apple", 10]}}', NULL, NULL, '{collation: {locale: "en", strength: 2}, hint: "name_fr"}'), '$.cursor', '$.n', '$.indexBounds');
SELECT doc_count('fruit', '{name: "APPLE"}', '{collation: {locale: "en", strength: 2}}');
SELECT doc_count('fruit', '{name: "APPLE"}', '{collation: {locale: "en", strength: 2}, hint: {$natural: 1}}');
SELECT 'covered', group_concat(doc, ' ') FROM fruit('{name: {$gte: "a", $lt: "b"}}', '{name: 1, _id: 0}', '{name: 1}', '{collation: {locale: "en", strength: 2}}');
SELECT 'scan', group_concat(doc, ' ') FROM fruit('{name: {$gte: "a", $lt: "b"}}', '{name: 1, _id: 0}', '{name: 1}', '{collation: {locale: "en", strength: 2}, hint: {$natural: 1}}');
SELECT 'sort', group_concat(_id, ' ') FROM fruit('{}', NULL, '{name: 1}', '{collation: {locale: "en", strength: 2}, limit: 6}');
SELECT 'sort', group_concat(_id, ' ') FROM fruit('{}', NULL, '{name: 1}', '{collation: {locale: "en", strength: 2}, limit: 6, hint: {$natural: 1}}');
EXPLAIN QUERY PLAN SELECT doc FROM fruit('{name: "apple"}', NULL, NULL, '{collation: {locale: "fr", strength: 1, caseLevel: true}}');

-- Unique, partial, sparse, compound, multikey and hashed indexes with a
-- collation, kept as documents change.
CREATE VIRTUAL TABLE users USING docext;
SELECT doc_create_index('users', '{email: 1}', '{unique: true, collation: {locale: "en", strength: 2}}');
INSERT INTO users(doc) VALUES ('{_id: 1, email: "Ann@Example.com", tags: ["Red", "blue"], city: "Zürich"}');
INSERT INTO users(doc) VALUES ('{_id: 2, email: "ann@example.com"}');
INSERT INTO users(doc) VALUES ('{_id: 2, email: "bob@example.com", tags: ["RED"], city: "zurich"}');
UPDATE users SET doc = '{_id: 2, email: "ANN@EXAMPLE.COM"}' WHERE _id = 2;
SELECT doc_update_one('users', '{_id: 2}', '{$set: {email: "Bob@Example.com"}}');
SELECT doc_create_index('users', '{tags: 1, city: 1}', '{collation: {locale: "de", strength: 1}}');
SELECT doc_create_index('users', '{city: "hashed"}', '{collation: {locale: "de", strength: 1}}');
SELECT doc_create_index('users', '{city: 1}', '{partialFilterExpression: {city: {$gt: "Y"}}, collation: {locale: "de", strength: 1}}');
SELECT 'tags', group_concat(_id, ' ') FROM users('{tags: "red", city: "ZURICH"}', NULL, NULL, '{collation: {locale: "de", strength: 1}}');
SELECT json_extract(doc_explain('users', '{tags: "red", city: "ZURICH"}', NULL, NULL, '{collation: {locale: "de", strength: 1}}'), '$.cursor', '$.n');
SELECT 'hashed', group_concat(_id, ' ') FROM users('{city: "ZURICH"}', NULL, NULL, '{collation: {locale: "de", strength: 1}, hint: "city_hashed"}');
SELECT 'partial', group_concat(_id, ' ') FROM users('{city: "ZURICH"}', NULL, NULL, '{collation: {locale: "de", strength: 1}, hint: "city_1"}');
SELECT 'email', group_concat(_id, ' ') FROM users('{email: "BOB@example.COM"}', NULL, NULL, '{collation: {locale: "en", strength: 2}}');
DELETE FROM users WHERE _id = 1;
INSERT INTO users(doc) VALUES ('{_id: 3, email: "ANN@example.com", city: "Zurich"}');
SELECT doc_check('users');

-- The commands: the filter, the sort and the update's comparisons
-- ($addToSet, $pull, $pullAll, $min, $max, $push's $sort) follow the
-- collation; an upsert's equality becomes the new document as written.
SELECT doc_update_many('fruit', '{name: "APPLE"}', '{$set: {seen: true}}', '{collation: {locale: "en", strength: 1}}');
SELECT doc_update_one('fruit', '{_id: 14, name: "zz"}', '{$set: {k: 1}}', '{upsert: true, collation: {locale: "en", strength: 1}}');
SELECT doc_update_one('fruit', '{_id: 9}', '{$addToSet: {name: "Cherry"}, $min: {n: 0}}', '{collation: {locale: "en", strength: 2}}');
SELECT doc_update_one('fruit', '{_id: 9}', '{$pull: {name: "apple"}}', '{collation: {locale: "en", strength: 2}}');
SELECT doc FROM fruit WHERE _id = 9;
SELECT doc_find_and_modify('fruit', '{query: {name: "BANANA"}, update: {$set: {f: 1}}, new: true, collation: {locale: "en", strength: 2}}');
SELECT doc_find_and_modify('fruit', '{query: {name: /^[aAä]/}, sort: {name: -1}, remove: true, collation: {locale: "en"}}');
SELECT doc_delete_many('fruit', '{name: "b"}', '{collation: {locale: "en", strength: 1}}');
SELECT doc_delete_one('fruit', '{name: "PECHE"}', '{collation: {locale: "fr", strength: 1}}');
SELECT group_concat(_id, ' ') FROM fruit;
SELECT doc_check('fruit');
SELECT doc_update('{a: "x", l: ["A", "b"]}', '{$pullAll: {l: ["a"]}, $max: {a: "X"}}', '{collation: {locale: "en", strength: 2}}');
SELECT doc_update('{l: ["b", "a10", "a9", "B"]}', '{$push: {l: {$each: [], $sort: 1}}}', '{collation: {locale: "en", numericOrdering: true}}');
SELECT doc_update('{l: [{k: "b"}, {k: "A"}]}', '{$push: {l: {$each: [], $sort: {k: 1}}}}', '{collation: {locale: "en"}}');
SELECT doc_update('{l: ["x", "Y"]}', '{$set: {"l.$[e]": 0}}', '{arrayFilters: [{e: "y"}], collation: {locale: "en", strength: 2}}');

-- A sharded collection: a collated query is sent to every shard that may
-- hold a match, and the merge sorts by the collation.
ATTACH ':memory:' AS shard1;
ATTACH ':memory:' AS shard2;
SELECT doc_add_shard('shard1');
SELECT doc_add_shard('shard2');
CREATE VIRTUAL TABLE cities USING docext;
INSERT INTO cities(doc) VALUES ('{_id: 1, name: "zürich"}'), ('{_id: 2, name: "Aachen"}'), ('{_id: 3, name: "Zurich"}'), ('{_id: 4, name: "aalen"}');
SELECT doc_shard_collection('cities', '{name: 1}');
SELECT doc_split_chunk('cities', '{name: "b"}');
SELECT doc_move_chunk('cities', '{name: "c"}', 'shard2');
SELECT 'routed', group_concat(_id, ' ') FROM cities('{name: "ZURICH"}', NULL, NULL, '{collation: {locale: "de", strength: 1}}');
SELECT 'routed', group_concat(_id, ' ') FROM cities('{}', NULL, '{name: 1}', '{collation: {locale: "de", strength: 1}}');
SELECT 'routed', group_concat(_id, ' ') FROM cities('{}', NULL, '{name: 1}');
SELECT doc_count('cities', '{name: {$lt: "B"}}', '{collation: {locale: "de", strength: 1}}');

-- doc_aggregate: the collation of every stage ($match, $sort, $group's
-- groups and accumulators, expressions, $lookup, $facet, $setWindowFields,
-- $bucket, $sortByCount), and of the collection query the first stages
-- become.
CREATE VIRTUAL TABLE colors USING docext;
INSERT INTO colors(doc) VALUES ('{_id: 1, c: "red", s: "apple"}'), ('{_id: 2, c: "Red", s: "Apple"}'),
  ('{_id: 3, c: "blue", s: "äpple"}'), ('{_id: 4, c: "BLUE", s: "banana"}'), ('{_id: 5, c: "red", s: "B"}');
CREATE VIRTUAL TABLE names USING docext;
INSERT INTO names(doc) VALUES ('{_id: 1, k: "APPLE"}'), ('{_id: 2, k: "b"}');
SELECT doc FROM doc_aggregate('colors', '[{$match: {c: "RED"}}, {$sort: {s: 1, _id: 1}}]', '{collation: {locale: "en", strength: 2}}');
SELECT doc FROM doc_aggregate('colors', '[{$group: {_id: "$c", n: {$sum: 1}, top: {$max: "$s"}, cs: {$addToSet: "$c"}}}, {$sort: {_id: 1}}]', '{collation: {locale: "en", strength: 2}}');
SELECT doc FROM doc_aggregate('colors', '[{$group: {_id: "$c", n: {$sum: 1}}}, {$sort: {_id: 1}}]');
SELECT doc FROM doc_aggregate('colors', '[{$sort: {s: 1, _id: 1}}, {$project: {s: 1, eq: {$eq: ["$s", "APPLE"]}, cmp: {$cmp: ["$s", "b"]}, in: {$in: ["$s", ["APPLE"]]}, set: {$setUnion: [["$c"], ["RED"]]}}}]', '{collation: {locale: "en", strength: 2}}');
SELECT doc FROM doc_aggregate('colors', '[{$lookup: {from: "names", localField: "s", foreignField: "k", as: "m"}}, {$project: {n: {$size: "$m"}}}]', '{collation: {locale: "en", strength: 1}}');
SELECT doc FROM doc_aggregate('colors', '[{$lookup: {from: "names", let: {x: "$s"}, pipeline: [{$match: {$expr: {$eq: ["$k", "$$x"]}}}], as: "m"}}, {$project: {n: {$size: "$m"}}}]', '{collation: {locale: "en", strength: 1}}');
SELECT doc FROM doc_aggregate('colors', '[{$setWindowFields: {partitionBy: "$c", sortBy: {s: 1}, output: {r: {$rank: {}}}}}, {$project: {c: 1, r: 1}}]', '{collation: {locale: "en", strength: 2}}');
SELECT doc FROM doc_aggregate('colors', '[{$sortByCount: "$c"}]', '{collation: {locale: "en", strength: 2}}');
SELECT doc FROM doc_aggregate('colors', '[{$bucket: {groupBy: "$s", boundaries: ["a", "b", "c"], default: "other"}}]', '{collation: {locale: "en", strength: 2}}');
SELECT doc FROM doc_aggregate('colors', '[{$facet: {reds: [{$match: {c: "RED"}}, {$count: "n"}]}}]', '{collation: {locale: "en", strength: 2}}');
SELECT doc FROM doc_aggregate('colors', '[{$unionWith: {coll: "names", pipeline: [{$match: {k: "apple"}}]}}, {$match: {$or: [{s: "apple"}, {k: {$exists: true}}]}}, {$project: {_id: 1}}]', '{collation: {locale: "en", strength: 2}}');
SELECT json_remove(doc, '$.stages[0].$cursor.millis') FROM doc_aggregate('colors', '[{$match: {s: "APPLE"}}]', '{collation: {locale: "en", strength: 2}, explain: true}');

-- Errors: each says what and where, and changes nothing.
SELECT * FROM fruit('{}', NULL, NULL, '{collation: "en"}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: 1}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: ""}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "xx"}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "en-US"}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "EN"}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "simple", strength: 1}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "en", strength: 0}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "en", strength: "1"}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "en", caseLevel: 1}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "en", caseFirst: "UPPER"}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "en", alternate: "ignore"}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "en", maxVariable: "all"}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "en", version: "1.0"}}');
SELECT * FROM fruit('{}', NULL, NULL, '{collation: {locale: "en", colour: "red"}}');
SELECT doc_create_index('fruit', '{name: "text"}', '{collation: {locale: "en"}}');
SELECT doc_create_index('fruit', '{loc: "2d"}', '{collation: {locale: "en"}}');
SELECT doc_create_index('fruit', '{_id: 1}', '{collation: {locale: "en"}}');
SELECT doc_create_index('fruit', '{x: 1}', '{collation: {locale: "xx"}}');
SELECT doc_update_one('fruit', '{}', '{$set: {a: 1}}', '{collation: {locale: "xx"}}');
SELECT doc_delete_many('fruit', '{}', '{collation: {strength: 2}}');
SELECT doc_distinct('fruit', 'name', NULL, '{collation: 1}');
SELECT doc_count('fruit', '{}', '{collation: {locale: "en", numericOrdering: "yes"}}');
SELECT doc_update('{a: 1}', '{$set: {b: 1}}', '{collation: {locale: "en", backwards: 0}}');
SELECT doc FROM doc_aggregate('colors', '[]', '{collation: {locale: "qq"}}');
SELECT count(*) FROM fruit;
SELECT doc_check('fruit');

-- An index whose collation another ICU version made (its keys would
-- differ): the collection refuses to use it and says how to get out;
-- doc_drop_index drops it by name.
.dbconfig defensive off
UPDATE fruit_idxdef SET spec = doc_update(spec, '{$set: {"collation.version": "1.0"}}') WHERE name = 'name_fr';
UPDATE fruit_config SET v = v + 1 WHERE k = 'idxtag';          -- (as another connection's change would)
SELECT count(*) FROM fruit('{name: "x"}');
SELECT doc_drop_index('fruit', 'nothing');
SELECT doc_drop_index('fruit', 'name_fr');
SELECT name FROM doc_indexes('fruit');
SELECT count(*) FROM fruit('{name: "APPLE"}', NULL, NULL, '{collation: {locale: "en", strength: 2}}');
SELECT doc_check('fruit');

-- A hint by key pattern that two indexes have (under two collations) is
-- ambiguous, as in MongoDB; by name it is not.
SELECT count(*) FROM fruit('{}', NULL, NULL, '{hint: {name: 1}}');
SELECT count(*) FROM fruit('{}', NULL, NULL, '{hint: "name_en2"}');

-- A partial filter holds under its index's collation: "Äpple" is not at
-- least "b" in English (in bytes it is), so the index cannot answer.
CREATE VIRTUAL TABLE pf USING docext;
SELECT doc_create_index('pf', '{x: 1}', '{partialFilterExpression: {x: {$gte: "b"}}, collation: {locale: "en", strength: 2}}');
INSERT INTO pf(doc) VALUES ('{_id: 1, x: "Äpple"}'), ('{_id: 2, x: "banana"}');
SELECT json_extract(doc_explain('pf', '{x: "äpple"}', NULL, NULL, '{collation: {locale: "en", strength: 2}}'), '$.cursor', '$.n');
SELECT json_extract(doc_explain('pf', '{x: "BANANA"}', NULL, NULL, '{collation: {locale: "en", strength: 2}}'), '$.cursor', '$.n');
SELECT doc_check('pf');

-- A collection's default collation (MongoDB's createCollection option):
-- its _id index, the queries, updates, counts, distinct values and
-- pipelines that name no collation, and the indexes made without one, all
-- compare under it. {locale: "simple"} in a query or an index asks for the
-- bytes. _id keeps its bytes: an update may not change its case. SQL's
-- own conditions on the _id column compare in bytes, as on any column
-- (SQLite folds constants so); the collated _id index still finds them.
CREATE VIRTUAL TABLE members USING docext('{collation: {locale: "en", strength: 2}}');
INSERT INTO members(doc) VALUES ('{_id: "ann", city: "Zürich", tags: ["Red"]}'), ('{_id: "bob", city: "zurich"}');
INSERT INTO members(doc) VALUES ('{_id: "ANN"}');
INSERT OR IGNORE INTO members(doc) VALUES ('{_id: "Bob"}');
SELECT group_concat(_id, ' ') FROM members WHERE _id = 'BOB';
SELECT group_concat(_id, ' ') FROM members WHERE _id = 'bob';
SELECT group_concat(_id, ' ') FROM members WHERE _id IN ('ANN', 'ann', 'x') OR _id > 'B';
SELECT group_concat(_id, ' ') FROM members WHERE _id = 'ANN' AND _id >= 'Ann';
SELECT group_concat(_id, ' ') FROM members WHERE _id > 'Z';
EXPLAIN QUERY PLAN SELECT _id FROM members WHERE _id = 'bob';
SELECT group_concat(_id, ' ') FROM members('{_id: "Ann"}');
SELECT json_extract(doc_explain('members', '{_id: "Ann"}'), '$.cursor', '$.n');
SELECT group_concat(_id, ' ') FROM members('{_id: "Ann"}', NULL, NULL, '{collation: {locale: "simple"}}');
SELECT json_extract(doc_explain('members', '{_id: "ann"}', NULL, NULL, '{collation: {locale: "simple"}}'), '$.cursor', '$.n');
SELECT doc_create_index('members', '{city: 1}');
SELECT doc_create_index('members', '{tags: 1}', '{collation: {locale: "simple"}}');
SELECT doc_create_index('members', '{city: "text"}');
SELECT name, json_extract(collation, '$.locale', '$.strength') FROM doc_indexes('members');
SELECT group_concat(_id, ' ') FROM members('{city: "ZURICH"}');
SELECT group_concat(_id, ' ') FROM members('{city: "ZÜRICH"}');
SELECT doc_count('members', '{tags: "red"}'), doc_count('members', '{tags: "RED"}', '{collation: {locale: "en", strength: 1}}');
SELECT doc_distinct('members', 'city');
SELECT doc_update_one('members', '{_id: "ANN"}', '{$addToSet: {tags: "red"}}');
SELECT doc FROM members WHERE _id = 'ann';
SELECT doc_update_one('members', '{_id: "ann"}', '{$set: {_id: "Ann"}}');
UPDATE members SET doc = '{_id: "Ann"}' WHERE _id = 'ann';
SELECT doc FROM doc_aggregate('members', '[{$match: {_id: "BOB"}}, {$project: {_id: 1, same: {$eq: ["$city", "ZURICH"]}}}]');
SELECT doc_shard_collection('members', '{_id: 1}');
SELECT doc_check('members');
CREATE VIRTUAL TABLE members2 USING docext('{collation: {locale: "xx"}}');
CREATE VIRTUAL TABLE members3 USING docext('{collation: {locale: "simple"}, validator: {a: {$gt: 0}}}');
SELECT name, collation FROM doc_indexes('members3');
SELECT doc_coll_mod('members', '{collation: {locale: "fr"}}');
