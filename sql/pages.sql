-- Page-level writes: an update rewrites only the pages whose bytes changed.
-- Every step applies the same update to a large document stored in a
-- collection (page diffs) and to a BLOB copy in an ordinary table (the pure
-- doc_update function); the bytes must stay identical throughout.
.load ./docext
.headers off
.mode list
CREATE VIRTUAL TABLE big USING docext;
CREATE TABLE ref(b BLOB);
CREATE TABLE steps(i INTEGER PRIMARY KEY, u TEXT);
INSERT INTO big(doc) VALUES (json_object('_id', 1, 'head', 'h', 'reviews', json_array(),
                                         'mid', printf('%.3000c', 'm'), 'tail', printf('%.1000c', 't')));
INSERT INTO ref SELECT bson FROM big;
-- a deterministic mix: appends, inserts at the front, growing and shrinking
-- a middle field, removals, an unset and a re-set of the tail
INSERT INTO steps(u) SELECT CASE value % 7
  WHEN 0 THEN json_object('$push', json_object('reviews', json_object('user', value, 'text', printf('r%d %.180c', value, 'x'))))
  WHEN 1 THEN json_object('$push', json_object('reviews', json_object('$each', json_array(json_object('user', value)), '$position', 0)))
  WHEN 2 THEN json_object('$set', json_object('mid', printf('%.*c', 100 + (value * 37) % 6000, 'n')))
  WHEN 3 THEN json_object('$pull', json_object('reviews', json_object('user', json_object('$lt', value - 400))))
  WHEN 4 THEN json_object('$set', json_object('head', printf('%.*c', (value * 13) % 300, 'h')))
  WHEN 5 THEN json_object('$unset', json_object('tail', 1))
  ELSE json_object('$set', json_object('tail', printf('%.*c', 500 + value % 1500, 't')))
  END FROM generate_series(1, 700);
-- apply them one by one, to both
WITH RECURSIVE run(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM run WHERE i < 700)
SELECT count(*) FROM run
 WHERE doc_update_one('big', '{_id: 1}', (SELECT u FROM steps WHERE steps.i = run.i)) IS NOT NULL
   AND (SELECT count(*) FROM (SELECT 1 FROM ref WHERE 0)) = 0;
UPDATE ref SET b = (WITH RECURSIVE apply(i, d) AS (
    SELECT 0, (SELECT b FROM ref)
    UNION ALL
    SELECT i + 1, doc_update(d, (SELECT u FROM steps WHERE steps.i = apply.i + 1)) FROM apply WHERE i < 700)
  SELECT d FROM apply WHERE i = 700);
SELECT 'identical after 700 edits', (SELECT bson FROM big) = (SELECT b FROM ref);
SELECT 'document check', doc_check('big');
-- a large document is paged; a $push into it changes two pages (the one
-- holding the length fields and the one the element lands in)
SELECT 'paged into more than 4 pages', count(*) > 4 FROM big_pages;
CREATE TEMP TABLE before AS SELECT pgno, data FROM big_pages;
SELECT doc_update_one('big', '{_id: 1}', '{$push: {reviews: {user: 9999, text: "one more"}}}');
SELECT 'pages rewritten by one $push', count(*) FROM big_pages p LEFT JOIN temp.before b USING (pgno)
 WHERE b.data IS NOT p.data;
-- shrinking to a small document makes it inline again, growing pages it
SELECT doc_update_one('big', '{_id: 1}', '{$set: {reviews: [], mid: "", tail: ""}}');
SELECT 'inline again', count(*) FROM big_pages;
SELECT doc_update_one('big', '{_id: 1}', json_object('$set', json_object('mid', printf('%.20000c', 'z'))));
SELECT 'paged again', count(*) > 3, doc_check('big') FROM big_pages;
SELECT length(doc_get(doc, 'mid')), doc_get(doc, 'head') IS NOT NULL FROM big;

-- Appends in place. A plain $push onto an array of a paged document is
-- applied to the pages it touches (the array's last page, the pages holding
-- the length fields around it), with a hint in the page list that finds the
-- array's end without reading it. Each step is also applied to a BLOB copy
-- by the pure doc_update(); the bytes must stay identical.
CREATE VIRTUAL TABLE deep USING docext;
CREATE TABLE deepref(b BLOB);
INSERT INTO deep(doc) VALUES (json_object('_id', 1, 'a', json_object('b', json_object('log', json_array(), 'n', 1)),
                                          'list', json_array(1, 2, 3), 'mid', printf('%.5000c', 'm'), 'z', 'end'));
INSERT INTO deepref SELECT bson FROM deep;
CREATE TABLE pushes(i INTEGER PRIMARY KEY, u TEXT);
INSERT INTO pushes(u) SELECT CASE value % 6
  WHEN 0 THEN json_object('$push', json_object('a.b.log', json_object('i', value, 't', printf('%.150c', 'x'))))
  WHEN 1 THEN json_object('$push', json_object('list', json_object('$each', json_array(value, 'v' || value, json_array(value)))))
  WHEN 2 THEN json_object('$push', json_object('a.b.log', value, 'list', json_object('k', value)))
  WHEN 3 THEN json_object('$pushAll', json_object('list', json_array(value, value + 1)))
  WHEN 4 THEN json_object('$set', json_object('a.b.n', value))
  ELSE json_object('$push', json_object('a.b.log', json_object('$each', json_array())))
  END FROM generate_series(1, 600);
WITH RECURSIVE run(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM run WHERE i < 600)
SELECT count(*) FROM run
 WHERE doc_update_one('deep', '{_id: 1}', (SELECT u FROM pushes WHERE pushes.i = run.i)) IS NOT NULL;
UPDATE deepref SET b = (WITH RECURSIVE apply(i, d) AS (
    SELECT 0, (SELECT b FROM deepref)
    UNION ALL
    SELECT i + 1, doc_update(d, (SELECT u FROM pushes WHERE pushes.i = apply.i + 1)) FROM apply WHERE i < 600)
  SELECT d FROM apply WHERE i = 600);
SELECT 'appends identical', (SELECT bson FROM deep) = (SELECT b FROM deepref), doc_check('deep');
SELECT json_array_length(doc, '$.a.b.log'), json_array_length(doc, '$.list'), doc_get(doc, 'z') FROM deep;
-- one append rewrites the array's last page and the page of the lengths
CREATE TEMP TABLE deepbefore AS SELECT pgno, data FROM deep_pages;
SELECT doc_update_one('deep', '{_id: 1}', '{$push: {"a.b.log": "one"}}');
SELECT 'pages rewritten by one append', count(*) FROM deep_pages p LEFT JOIN temp.deepbefore b USING (pgno)
 WHERE b.data IS NOT p.data;
-- (defensive mode off, so that the shadow tables can be damaged by hand:
-- the shells of SQLite 3.41 and later turn it on)
.dbconfig defensive off
-- a wrong hint is caught and the array walked instead: here the last hint
-- (the array appended to last) is made to say five elements (its last
-- element is not named "4"); and a page list that is not a BLOB is
-- corruption to readers and writers alike
UPDATE deep_docs SET pages = CAST(substr(pages, 1, length(CAST(pages AS BLOB)) - 16)
                                   || x'0500000000000000' || substr(pages, -8) AS BLOB)
 WHERE id = 1;
SELECT hex(substr(pages, -16, 8)), typeof(pages) FROM deep_docs;
SELECT doc_update_one('deep', '{_id: 1}', '{$push: {"a.b.log": "after a bad hint"}}');
SELECT json_extract(doc, '$.a.b.log[#-1]'), doc_get(doc, 'a.b.log.' || (json_array_length(doc, '$.a.b.log') - 1)),
       doc_check('deep') FROM deep;
SELECT 'identical after a bad hint', (SELECT bson FROM deep) =
       doc_update(doc_update((SELECT b FROM deepref), '{$push: {"a.b.log": "one"}}'),
                  '{$push: {"a.b.log": "after a bad hint"}}');
CREATE TEMP TABLE savedlist AS SELECT pages FROM deep_docs;
UPDATE deep_docs SET pages = CAST(pages AS TEXT);
SELECT doc_update_one('deep', '{_id: 1}', '{$push: {"a.b.log": "x"}}');
SELECT count(*) FROM deep;
SELECT doc FROM deep;
UPDATE deep_docs SET pages = (SELECT pages FROM temp.savedlist);
-- what cannot go in place goes the ordinary way, with its errors: a missing
-- array is created, a non-array is an error, a stored-name rule applies,
-- _id cannot change, and an index on the path is kept right
SELECT doc_update_one('deep', '{_id: 1}', '{$push: {"a.new": 1}}');
SELECT doc_get(doc, 'a.new') FROM deep;
SELECT doc_update_one('deep', '{_id: 1}', '{$push: {z: 1}}');
SELECT doc_update_one('deep', '{_id: 1}', '{$push: {list: {"$bad": 1}}}');
SELECT doc_update_one('deep', '{_id: 1}', '{$push: {"_id.x": 1}}');
SELECT doc_create_index('deep', '{"a.b.log.i": 1}');
SELECT doc_update_one('deep', '{_id: 1}', '{$push: {"a.b.log": {i: -5}}}');
SELECT doc_update_one('deep', '{_id: 1}', '{$push: {list: -6}}');
SELECT _id FROM deep('{"a.b.log.i": -5}');
SELECT doc_check('deep');
