-- Variable attributes (SCENARIOS.md C): the same attributes kept as a
-- sub-document with an index per attribute, or as an array of one-key
-- documents with one multikey index for all of them.
-- Run: sqlite3 < examples/attributes.sql
.load ./docext
.headers off
.mode list
.echo on

-- 1. attributes as a sub-document: attr.type, attr.size, attr.created
CREATE VIRTUAL TABLE files USING docext;
INSERT INTO files(doc) VALUES
  ('{ _id: 1, name: "notes.txt",  attr: { type: "text",  size: 64,    created: ISODate("2013-01-05T10:00:00Z") } }'),
  ('{ _id: 2, name: "logo.png",   attr: { type: "image", size: 4096,  created: ISODate("2013-02-11T08:30:00Z") } }'),
  ('{ _id: 3, name: "intro.mp4",  attr: { type: "video", size: 65536, created: ISODate("2013-03-01T12:00:00Z") } }'),
  ('{ _id: 4, name: "readme.md",  attr: { type: "text",  size: 2048 } }');
-- an index for each attribute a query names
SELECT doc_create_index('files', '{ "attr.size": 1 }');
SELECT doc_create_index('files', '{ "attr.type": 1 }');
SELECT doc_create_index('files', '{ "attr.created": 1 }', '{ sparse: true }');
SELECT group_concat(doc_get(doc, 'name'), ' ')
  FROM files('{ "attr.size": { $gt: 64, $lte: 16384 } }', NULL, '{ "attr.size": 1 }');
SELECT json_extract(doc_explain('files', '{ "attr.size": { $gt: 64, $lte: 16384 } }'), '$.cursor', '$.n', '$.nscanned');
SELECT group_concat(doc_get(doc, 'name'), ' ') FROM files('{ "attr.type": "text" }');
SELECT group_concat(doc_get(doc, 'name'), ' ')
  FROM files('{ "attr.created": { $gte: ISODate("2013-02-01T00:00:00Z") } }');
-- a new attribute needs a new index before its queries are fast
UPDATE files SET doc = doc_update(doc, '{ $set: { "attr.codec": "h264" } }') WHERE _id = 3;
SELECT json_extract(doc_explain('files', '{ "attr.codec": "h264" }'), '$.cursor', '$.nscannedObjects');
SELECT doc_create_index('files', '{ "attr.codec": 1 }', '{ sparse: true }');
SELECT json_extract(doc_explain('files', '{ "attr.codec": "h264" }'), '$.cursor', '$.nscannedObjects');
SELECT name, key, sparse, entries FROM doc_indexes('files');

-- 2. attributes as an array of one-key documents: one multikey index serves
-- every attribute, present and future
CREATE VIRTUAL TABLE files_kv USING docext;
INSERT INTO files_kv(doc) VALUES
  ('{ _id: 1, name: "notes.txt", attr: [ { type: "text" },  { size: 64 },    { created: ISODate("2013-01-05T10:00:00Z") } ] }'),
  ('{ _id: 2, name: "logo.png",  attr: [ { type: "image" }, { size: 4096 },  { created: ISODate("2013-02-11T08:30:00Z") } ] }'),
  ('{ _id: 3, name: "intro.mp4", attr: [ { type: "video" }, { size: 65536 }, { created: ISODate("2013-03-01T12:00:00Z") }, { codec: "h264" } ] }'),
  ('{ _id: 4, name: "readme.md", attr: [ { type: "text" },  { size: 2048 } ] }');
SELECT doc_create_index('files_kv', '{ attr: 1 }');
-- equality on a whole element: the index answers it directly
SELECT group_concat(doc_get(doc, 'name'), ' ') FROM files_kv('{ attr: { size: 64 } }');
SELECT json_extract(doc_explain('files_kv', '{ attr: { size: 64 } }'), '$.cursor', '$.n', '$.nscanned');
SELECT group_concat(doc_get(doc, 'name'), ' ') FROM files_kv('{ attr: { codec: "h264" } }');
SELECT group_concat(doc_get(doc, 'name'), ' ') FROM files_kv('{ attr: { $all: [ { type: "text" }, { size: 2048 } ] } }');
-- a range needs $elemMatch on the element's one key; the { attr: 1 } index
-- cannot bound it (its keys are whole documents), so every document is read
SELECT group_concat(doc_get(doc, 'name'), ' ') FROM files_kv('{ attr: { $elemMatch: { size: { $gt: 64, $lte: 16384 } } } }');
SELECT json_extract(doc_explain('files_kv', '{ attr: { $elemMatch: { size: { $gt: 64, $lte: 16384 } } } }'),
                    '$.cursor', '$.nscannedObjects');
-- an index on attr.size bounds the range: the index is multikey through
-- attr, but no size has been an array, so inside one element both bounds
-- hold and the scan reads only the two sizes in range (multiKeyPaths)
SELECT doc_create_index('files_kv', '{ "attr.size": 1 }');
SELECT json_extract(doc_explain('files_kv', '{ attr: { $elemMatch: { size: { $gt: 64, $lte: 16384 } } } }'),
                    '$.cursor', '$.n', '$.nscanned', '$.multiKeyPaths');
-- a document equal in value but written with another key order is another
-- element: { size: 64, type: "text" } matches nothing
SELECT count(*) FROM files_kv('{ attr: { size: 64, type: "text" } }');
SELECT name, multikey, entries FROM doc_indexes('files_kv');
SELECT doc_check('files');
SELECT doc_check('files_kv');
