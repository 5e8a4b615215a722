-- Trees: the four ways MongoDB's documentation models a tree of categories,
-- each with the queries it makes cheap (SCENARIOS.md A.7 is the third).
-- Run: sqlite3 < examples/trees.sql
.load ./docext
.headers off
.mode list
.echo on

-- 1. Parent references: each node names its parent. Children are an index
-- lookup; ancestors and descendants, any number of levels away, are one
-- $graphLookup each, one indexed query per level.
CREATE VIRTUAL TABLE cats USING docext;
SELECT doc_create_index('cats', '{ parent: 1 }');
INSERT INTO cats(doc) VALUES
  ('{ _id: "Books", parent: null }'),
  ('{ _id: "Programming", parent: "Books" }'),
  ('{ _id: "Languages", parent: "Programming" }'),
  ('{ _id: "Databases", parent: "Programming" }'),
  ('{ _id: "MongoDB", parent: "Databases" }'),
  ('{ _id: "dbm", parent: "Databases" }');
SELECT _id FROM cats('{ parent: "Databases" }');
SELECT json_extract(doc_explain('cats', '{ parent: "Databases" }'), '$.cursor');
-- the breadcrumbs of MongoDB, from the root down
SELECT doc FROM doc_aggregate('cats', '[
  { $match: { _id: "MongoDB" } },
  { $graphLookup: { from: "cats", startWith: "$parent", connectFromField: "parent",
                    connectToField: "_id", as: "up", depthField: "depth" } },
  { $unwind: "$up" },
  { $sort: { "up.depth": -1 } },
  { $group: { _id: "$_id", path: { $push: "$up._id" } } }
]');
-- how many categories lie below each one
SELECT doc FROM doc_aggregate('cats', '[
  { $graphLookup: { from: "cats", startWith: "$_id", connectFromField: "_id",
                    connectToField: "parent", as: "below" } },
  { $project: { n: { $size: "$below" } } },
  { $sort: { n: -1, _id: 1 } }
]');

-- 2. Child references: each node lists its children. The parent of a node
-- is a lookup through a multikey index on children.
CREATE VIRTUAL TABLE cats_c USING docext;
SELECT doc_create_index('cats_c', '{ children: 1 }');
INSERT INTO cats_c(doc) VALUES
  ('{ _id: "Books", children: ["Programming"] }'),
  ('{ _id: "Programming", children: ["Languages", "Databases"] }'),
  ('{ _id: "Languages", children: [] }'),
  ('{ _id: "Databases", children: ["MongoDB", "dbm"] }'),
  ('{ _id: "MongoDB", children: [] }'),
  ('{ _id: "dbm", children: [] }');
SELECT _id FROM cats_c('{ children: "MongoDB" }');
SELECT doc FROM doc_aggregate('cats_c', '[
  { $match: { _id: "Programming" } },
  { $graphLookup: { from: "cats_c", startWith: "$children", connectFromField: "children",
                    connectToField: "_id", as: "below", maxDepth: 1 } },
  { $project: { below: "$below._id" } }
]');

-- 3. An array of ancestors (A.7): every descendant of a node is one lookup
-- through a multikey index, and a node carries its own breadcrumbs.
CREATE VIRTUAL TABLE subjects USING docext;
SELECT doc_create_index('subjects', '{ ancestors: 1 }');
INSERT INTO subjects(doc) VALUES
  ('{ _id: "American Literature", ancestors: [], parent: null }'),
  ('{ _id: "1920s", ancestors: ["American Literature"], parent: "American Literature" }'),
  ('{ _id: "Jazz Age", ancestors: ["American Literature", "1920s"], parent: "1920s" }'),
  ('{ _id: "Lost Generation", ancestors: ["American Literature", "1920s"], parent: "1920s" }');
SELECT _id FROM subjects('{ ancestors: "1920s" }');
SELECT json_extract(doc_explain('subjects', '{ ancestors: "1920s" }'), '$.cursor');
SELECT doc_get(doc, 'ancestors') FROM subjects WHERE _id = 'Jazz Age';

-- 4. Materialized paths: a node's path is a string, and its descendants are
-- those whose path starts with it: a prefix regex, which an index bounds.
CREATE VIRTUAL TABLE cats_p USING docext;
SELECT doc_create_index('cats_p', '{ path: 1 }');
INSERT INTO cats_p(doc) VALUES
  ('{ _id: "Books", path: null }'),
  ('{ _id: "Programming", path: ",Books," }'),
  ('{ _id: "Databases", path: ",Books,Programming," }'),
  ('{ _id: "Languages", path: ",Books,Programming," }'),
  ('{ _id: "MongoDB", path: ",Books,Programming,Databases," }'),
  ('{ _id: "dbm", path: ",Books,Programming,Databases," }');
SELECT _id FROM cats_p('{ path: /^,Books,Programming,/ }', NULL, '{ path: 1, _id: 1 }');
SELECT json_extract(doc_explain('cats_p', '{ path: /^,Books,Programming,/ }'), '$.cursor');
