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
