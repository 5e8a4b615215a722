-- The aggregation pipeline (docext_aggregate.c): doc_aggregate(coll,
-- pipeline), a table-valued function with MongoDB's stages, over plain and
-- sharded collections.
.load ./docext
.headers off
.mode list

CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) VALUES
  ('{_id: 1, title: "Gatsby", author: "fitz", pages: 180, year: 1925, tags: ["novel", "jazz"]}'),
  ('{_id: 2, title: "Tender", author: "fitz", pages: 320, year: 1934, tags: ["novel"]}'),
  ('{_id: 3, title: "Sun", author: "hem", pages: 251.5, year: 1926, tags: []}'),
  ('{_id: 4, title: "Farewell", author: "hem", pages: NumberLong(355), year: 1929, tags: "war"}'),
  ('{_id: 5, title: "Ulysses", author: "joyce", pages: 730, year: 1922, tags: null}'),
  ('{_id: 6, title: "Notes", pages: 12}');

-- 1. No stages: the collection, in its order; doc and the hidden bson
SELECT doc FROM doc_aggregate('books', '[]');
SELECT doc_json(bson) FROM doc_aggregate('books', '[{$match: {_id: 6}}]');
SELECT count(*) FROM doc_aggregate('books', '[]');

-- 2. $match (several are ANDed), $sort, $skip, $limit, $count
SELECT doc FROM doc_aggregate('books', '[{$match: {pages: {$gt: 200}}}, {$match: {author: "hem"}}]');
SELECT doc->>'title' FROM doc_aggregate('books', '[{$sort: {pages: -1}}, {$skip: 1}, {$limit: 3}]');
SELECT doc->>'title' FROM doc_aggregate('books', '[{$sort: {author: 1, pages: -1}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {pages: {$gt: 100}}}, {$count: "long"}]');
SELECT count(*) FROM doc_aggregate('books', '[{$match: {pages: {$gt: 10000}}}, {$count: "n"}]');
-- a $match after other stages sees what they made
SELECT doc FROM doc_aggregate('books', '[{$set: {thick: {$gt: ["$pages", 300]}}}, {$match: {thick: true}}, {$project: {title: 1, _id: 0}}]');
SELECT doc FROM doc_aggregate('books', '[{$limit: 2}, {$sort: {_id: -1}}]');

-- 3. The shaping stages of pipeline updates
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: {$lte: 2}}}, {$project: {title: 1, n: {$size: "$tags"}}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 1}}, {$addFields: {decade: {$subtract: ["$year", {$mod: ["$year", 10]}]}}}, {$unset: ["tags", "pages"]}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 3}}, {$replaceRoot: {newRoot: {t: "$title", a: "$author"}}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 3}}, {$replaceWith: {$mergeObjects: [{x: 1}, {t: "$title"}]}}]');

-- 4. $group: every accumulator; groups come in the BSON order of _id
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: "$author", n: {$sum: 1},
  pages: {$sum: "$pages"}, avg: {$avg: "$pages"}, min: {$min: "$year"}, max: {$max: "$year"},
  first: {$first: "$title"}, last: {$last: "$title"}, titles: {$push: "$title"},
  c: {$count: {}}, sd: {$stdDevPop: "$year"}, sds: {$stdDevSamp: "$year"}}}]');
-- $median and $percentile: of the numbers of each group (exactly, as MongoDB
-- computes them; "continuous" interpolates), null without any
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: "$author", med: {$median: {input: "$pages",
  method: "approximate"}}, pc: {$percentile: {input: "$year", p: [0.25, 0.75], method: "continuous"}}}}]');
-- one group of everything; a compound _id; an _id computed
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: null, total: {$sum: "$pages"}, tags: {$addToSet: "$tags"}}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {author: {$exists: true}}}, {$group: {_id: {a: "$author", old: {$lt: ["$year", 1926]}}, n: {$sum: 1}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: {$gt: ["$pages", 300]}, titles: {$push: "$title"}}}]');
-- equal numbers are one group (1, 1.0 and NumberLong(1)), as are their set members
CREATE VIRTUAL TABLE nums USING docext;
INSERT INTO nums(doc) VALUES ('{_id: 1, k: 1, v: 2}'), ('{_id: 2, k: 1.0, v: 2.0}'),
  ('{_id: 3, k: NumberLong(1), v: NumberLong(2)}'), ('{_id: 4, k: "1", v: "x"}'),
  ('{_id: 5, v: 2147483647}'), ('{_id: 6, k: null, v: 1}'),
  ('{_id: 7, k: 2, v: NumberDecimal("0.1")}'), ('{_id: 8, k: 2, v: 0.2}');
SELECT doc FROM doc_aggregate('nums', '[{$group: {_id: "$k", n: {$sum: 1}, s: {$sum: "$v"}, set: {$addToSet: "$v"}, avg: {$avg: "$v"}}}]');
-- doubles are summed as MongoDB's $sum and $avg sum them, in a
-- double-double: 0.02 + 0.2 + 0.2 + 0.2 is 0.62, not 0.6200000000000001
SELECT doc FROM doc_aggregate(NULL, '[{$documents: [{v: 0.02}, {v: 0.2}, {v: 0.2}, {v: 0.2}]},
  {$group: {_id: null, s: {$sum: "$v"}, a: {$avg: "$v"}}}, {$set: {e: {$sum: [0.1, 0.2, 0.3]}}}]');
-- int32 sums widen to int64, then to double, as MongoDB's do
SELECT doc_json(bson, 'canonical') FROM doc_aggregate('nums', '[{$match: {_id: {$in: [1, 5]}}}, {$group: {_id: 0, s: {$sum: "$v"}, big: {$sum: 2147483647}}}]');
-- $first and $last keep null for a missing value; $push and $addToSet skip it
SELECT doc FROM doc_aggregate('books', '[{$sort: {_id: -1}}, {$group: {_id: 0, first: {$first: "$author"}, last: {$last: "$author"}, all: {$push: "$author"}}}]');

-- 4b. The accumulators of n values: $firstN and $lastN (arrival order,
-- missing as null), $minN and $maxN (BSON order, null and missing left
-- out, $maxN's largest first), $topN and $bottomN (output of the documents
-- ranked by sortBy), $top and $bottom (the one value)
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: "$author",
  f: {$firstN: {n: 2, input: "$title"}}, l: {$lastN: {n: 2, input: "$year"}},
  mn: {$minN: {n: 2, input: "$pages"}}, mx: {$maxN: {n: 2, input: "$pages"}},
  t: {$top: {sortBy: {pages: -1}, output: "$title"}}, b: {$bottom: {sortBy: {pages: -1}, output: ["$title", "$pages"]}},
  tn: {$topN: {n: 2, sortBy: {year: 1}, output: {t: "$title", y: "$year"}}},
  bn: {$bottomN: {n: 2, sortBy: {year: 1}, output: "$year"}}}}]');
-- the latest book of each author, a common use; missing output is null
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: "$author", latest: {$top: {sortBy: {year: -1}, output: "$year"}}, tags: {$topN: {n: 1, sortBy: {_id: 1}, output: "$tags"}}}}]');
-- $maxN over numbers of every type: equal values each kept, compared by value
SELECT doc_json(bson, 'canonical') FROM doc_aggregate('nums', '[{$group: {_id: null, mx: {$maxN: {n: 3, input: "$v"}}, mn: {$minN: {n: 3, input: "$v"}}}}]');
-- ties keep the document that came first; $bottomN keeps, once full, only
-- what is strictly above the lowest it holds (as MongoDB's multiset does)
CREATE VIRTUAL TABLE ties USING docext;
INSERT INTO ties(doc) VALUES ('{_id: 1, s: 1}'), ('{_id: 2, s: 1}'), ('{_id: 3, s: 2}'), ('{_id: 4, s: 2}'), ('{_id: 5, s: 0}');
SELECT doc FROM doc_aggregate('ties', '[{$group: {_id: null, t1: {$top: {sortBy: {s: -1}, output: "$_id"}},
  b1: {$bottom: {sortBy: {s: -1}, output: "$_id"}}, t3: {$topN: {n: 3, sortBy: {s: 1}, output: "$_id"}},
  b3: {$bottomN: {n: 3, sortBy: {s: 1}, output: "$_id"}}, b2: {$bottomN: {n: 2, sortBy: {s: 1, _id: -1}, output: "$_id"}}}}]');
-- sortBy through arrays: the least element ascending, the greatest descending
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: null, asc: {$topN: {n: 6, sortBy: {tags: 1, _id: 1}, output: "$_id"}},
  desc: {$topN: {n: 6, sortBy: {tags: -1, _id: 1}, output: "$_id"}}}}]');
-- n may read the group's _id when that is a document (worked out for each
-- group); with any other _id it reads an empty document, as MongoDB's
SELECT doc FROM doc_aggregate('books', '[{$match: {author: {$exists: true}}}, {$group: {_id: {a: "$author"},
  titles: {$firstN: {n: {$cond: [{$eq: ["$a", "hem"]}, 1, 5]}, input: "$title"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {author: {$exists: true}}}, {$group: {_id: "$author",
  titles: {$firstN: {n: {$cond: [{$eq: ["$_id", "hem"]}, 1, 5]}, input: "$title"}}}}]');
-- $mergeObjects: later fields win, in the place the field first had;
-- null and missing add nothing; no documents at all make {}
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: "$author", m: {$mergeObjects: {$cond: [{$gt: ["$year", 1925]}, {y: "$year", t: "$title"}, {t: "$title", first: true}]}},
  none: {$mergeObjects: "$nothing"}}}]');
-- in $bucket and $bucketAuto output (the documents in arrival order)
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$year", boundaries: [1900, 1926, 2000], default: "none", output: {f: {$lastN: {n: 2, input: "$_id"}}, t: {$topN: {n: 2, sortBy: {pages: 1}, output: "$_id"}}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucketAuto: {groupBy: "$_id", buckets: 2, output: {f: {$firstN: {n: 2, input: "$title"}}, m: {$mergeObjects: {a: "$author"}}}}}]');

-- 5. $sortByCount
SELECT doc FROM doc_aggregate('books', '[{$unwind: "$tags"}, {$sortByCount: "$tags"}]');
SELECT doc FROM doc_aggregate('books', '[{$sortByCount: {$gt: ["$pages", 300]}}]');

-- 6. $unwind: arrays, a value alone, null, missing and empty arrays
SELECT doc FROM doc_aggregate('books', '[{$unwind: "$tags"}, {$project: {tags: 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$unwind: {path: "$tags", includeArrayIndex: "i", preserveNullAndEmptyArrays: true}}, {$project: {tags: 1, i: 1}}]');
SELECT doc_json(bson, 'canonical') FROM doc_aggregate('books', '[{$match: {_id: 1}}, {$unwind: {path: "$tags", includeArrayIndex: "i"}}, {$project: {i: 1}}]');
CREATE VIRTUAL TABLE deep USING docext;
INSERT INTO deep(doc) VALUES ('{_id: 1, a: {b: [1, 2], c: 3}}'), ('{_id: 2, a: [{b: [5]}]}');
SELECT doc FROM doc_aggregate('deep', '[{$unwind: "$a.b"}]');

-- 6b. $bucket: MongoDB's $group over boundaries, groups in _id order,
-- the default bucket where its _id sorts; $facet: pipelines over one input;
-- $unionWith: another collection's documents after these; $sample
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [0, 200, 400], default: "long"}}]');
-- (boundaries and default are constant expressions)
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [0, {$multiply: [2, 100]}],
  default: {$literal: "$long"}}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$year", boundaries: [1900, 1925, 1930],
  default: 0, output: {titles: {$push: "$title"}, pages: {$max: "$pages"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {pages: {$lt: 400}}}, {$bucket: {groupBy: {$mod: ["$_id", 2]}, boundaries: [0, 1, 2]}}]');
SELECT doc FROM doc_aggregate('books', '[{$facet: {byAuthor: [{$sortByCount: "$author"}, {$limit: 2}],
  long: [{$match: {pages: {$gt: 300}}}, {$project: {title: 1}}], n: [{$count: "books"}]}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 0}}, {$facet: {n: [{$count: "books"}], all: [{$sort: {_id: 1}}]}}]');
SELECT doc->>'title' FROM doc_aggregate('books', '[{$match: {_id: {$lte: 2}}}, {$unionWith: {coll: "books", pipeline: [{$match: {_id: 5}}]}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 1}}, {$project: {title: 1}}, {$unionWith: "deep"}, {$unionWith: {coll: "nums", pipeline: [{$count: "nums"}]}}]');
SELECT count(*), count(DISTINCT doc) FROM doc_aggregate('books', '[{$sample: {size: 4}}]');
SELECT count(*) FROM doc_aggregate('books', '[{$sample: {size: 100}}]');
SELECT count(*) FROM doc_aggregate('books', '[{$sample: {size: 0}}]');
SELECT count(*) FROM doc_aggregate('books', '[{$sample: {size: 2.9}}]');

-- 6c. $bucketAuto: buckets of about the same size, in groupBy order; equal
-- values are never cut apart; max is the next bucket's min; with a
-- granularity, bounds of a series of preferred numbers, or powers of two
CREATE VIRTUAL TABLE prices USING docext;
INSERT INTO prices(doc) SELECT json_object('_id', value, 'p', (value * 37) % 100, 'q', value % 3)
  FROM generate_series(1, 20);
INSERT INTO prices(doc) VALUES ('{_id: 21, p: 0.5}'), ('{_id: 22}');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$p", buckets: 4}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$q", buckets: 5,
  output: {n: {$sum: 1}, ids: {$push: "$_id"}, top: {$max: "$p"}, first: {$first: "$_id"}}}}]');
SELECT doc FROM doc_aggregate('prices', '[{$match: {_id: {$lte: 3}}}, {$bucketAuto: {groupBy: "$p", buckets: 10}}]');
-- a bucket's $first and $last (and $firstN, $lastN) take its documents in
-- input order, the others ($push) in groupBy order, as MongoDB's do;
-- output {} is the default count, as no output
SELECT doc FROM doc_aggregate('prices', '[{$match: {_id: {$lte: 5}}}, {$bucketAuto: {groupBy: "$p", buckets: 2,
  output: {ids: {$push: "$_id"}, f: {$first: "$p"}, l: {$last: "$p"}}}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$q", buckets: 2, output: {}}}]');
SELECT doc FROM doc_aggregate('prices', '[{$match: {p: {$exists: true}}},
  {$bucketAuto: {groupBy: "$p", buckets: 4, granularity: "R5"}}]');
SELECT doc FROM doc_aggregate('prices', '[{$match: {p: {$exists: true}}},
  {$bucketAuto: {groupBy: "$p", buckets: 3, granularity: "E6"}}]');
SELECT doc FROM doc_aggregate('prices', '[{$match: {p: {$exists: true}}},
  {$bucketAuto: {groupBy: "$p", buckets: 3, granularity: "1-2-5"}}]');
SELECT doc FROM doc_aggregate('prices', '[{$match: {p: {$exists: true}}},
  {$bucketAuto: {groupBy: "$p", buckets: 3, granularity: "POWERSOF2"}}]');
SELECT doc FROM doc_aggregate('prices', '[{$match: {_id: {$lte: 20}}},
  {$bucketAuto: {groupBy: {$multiply: ["$p", 1000]}, buckets: 2, granularity: "E192"}}]');
-- decimal128 values are rounded in decimal128, as MongoDB's rounder does
-- (the series' numbers to 15 digits, scaled by powers of ten)
SELECT doc_json(bson, 'canonical') FROM doc_aggregate(NULL, '[{$documents: [{v: NumberDecimal("0.8")}, {v: NumberDecimal("1.5")},
  {v: NumberDecimal("3.2")}, {v: NumberDecimal("47")}, {v: NumberDecimal("1234")}]},
  {$bucketAuto: {groupBy: "$v", buckets: 3, granularity: "E6"}}]');
-- a zero, rounded: the first bucket's max is the next value rounded down
SELECT doc FROM doc_aggregate('prices', '[{$match: {_id: {$in: [20, 21]}}},
  {$bucketAuto: {groupBy: {$floor: "$p"}, buckets: 2, granularity: "R10"}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$p", buckets: 2, granularity: "R5"}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: {$subtract: [0, "$q"]}, buckets: 2, granularity: "R5"}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$p", buckets: 0}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$p", buckets: 1.5}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$p"}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "p", buckets: 2}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$p", buckets: 2, granularity: "R7"}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$p", buckets: 2, x: 1}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$p", buckets: 2, output: {n: {$accumulator: {}}}}}]');
SELECT doc FROM doc_aggregate('prices', '[{$bucketAuto: {groupBy: "$p", buckets: 2, output: {n: {$median: {input: "$p", method: "discrete"}}}}}]');

-- 6d. $documents: a pipeline over documents it makes, without a collection
-- (NULL in its place), or as the other side of $unionWith and $lookup
SELECT doc FROM doc_aggregate(NULL, '[{$documents: [{x: 1}, {x: 2, y: "a"}, {x: 3}]},
  {$match: {x: {$gte: 2}}}, {$set: {z: {$multiply: ["$x", 10]}}}]');
SELECT doc FROM doc_aggregate(NULL, '[{$documents: {$map: {input: {$range: [0, 4]}, in: {n: "$$this"}}}},
  {$group: {_id: null, s: {$sum: "$n"}, v: {$push: "$$v"}}}]', '{let: {v: "let"}}');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: {$lte: 2}}}, {$project: {title: 1}},
  {$unionWith: {pipeline: [{$documents: [{_id: 99, title: "Extra"}]}]}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: {$lte: 3}}}, {$lookup: {localField: "author",
  foreignField: "key", pipeline: [{$documents: [{key: "fitz", born: 1896}, {key: "hem", born: 1899}]},
  {$project: {_id: 0, born: 1}}], as: "who"}}, {$project: {who: 1}}]');
SELECT count(*) FROM doc_aggregate(NULL, '[{$documents: []}]');
SELECT doc FROM doc_aggregate('books', '[{$documents: [{x: 1}]}]');
SELECT doc FROM doc_aggregate(NULL, '[{$match: {}}]');
SELECT doc FROM doc_aggregate(NULL, '[{$documents: 5}]');
SELECT doc FROM doc_aggregate(NULL, '[{$documents: [{a: 1}, 2]}]');
SELECT doc FROM doc_aggregate(NULL, '[{$documents: "$x"}]');
SELECT doc FROM doc_aggregate(NULL, '[{$match: {}}, {$documents: []}]');
SELECT doc FROM doc_aggregate('books', '[{$facet: {a: [{$documents: []}]}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "books", pipeline: [{$documents: []}], as: "m"}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {pipeline: [{$match: {}}], as: "m"}}]');
SELECT doc FROM doc_aggregate('books', '[{$unionWith: {pipeline: [{$match: {}}]}}]');

-- 6e. $redact: $$KEEP, $$PRUNE or $$DESCEND for each level of a document
-- (documents in arrays, and arrays in arrays, too)
CREATE VIRTUAL TABLE files USING docext;
INSERT INTO files(doc) VALUES
  ('{_id: 1, level: 1, title: "plan", notes: {level: 3, text: "secret"},
     parts: [{level: 1, a: 1}, {level: 5, b: 2}, 7, [{level: 9}, {level: 0}]], open: {level: 2, c: 3}}'),
  ('{_id: 2, level: 4, title: "hidden"}'),
  ('{_id: 3, title: "no level", body: {level: 1, x: 1}}');
SELECT doc FROM doc_aggregate('files', '[{$redact: {$cond: {if: {$lte: [{$ifNull: ["$level", 0]}, 2]},
  then: "$$DESCEND", else: "$$PRUNE"}}}]');
SELECT doc FROM doc_aggregate('files', '[{$redact: {$cond: [{$eq: ["$level", 3]}, "$$PRUNE",
  {$cond: [{$eq: ["$level", 1]}, "$$KEEP", "$$DESCEND"]}]}}]');
SELECT doc FROM doc_aggregate('files', '[{$match: {_id: 1}}, {$project: {k: "$$KEEP", p: "$$PRUNE", d: "$$DESCEND"}}]');
SELECT doc FROM doc_aggregate('files', '[{$redact: "$level"}]');
SELECT doc FROM doc_aggregate('files', '[{$redact: {$bogus: 1}}]');

-- 6f. every stage over no documents
CREATE VIRTUAL TABLE no_docs USING docext;
SELECT count(*) FROM doc_aggregate('no_docs', '[{$group: {_id: null, n: {$sum: 1}}}]');
SELECT count(*) FROM doc_aggregate('no_docs', '[{$bucketAuto: {groupBy: "$a", buckets: 3, granularity: "R5"}}]');
SELECT count(*) FROM doc_aggregate('no_docs', '[{$setWindowFields: {partitionBy: "$a", sortBy: {b: 1},
  output: {r: {$rank: {}}, s: {$sum: 1, window: {range: [-1, 1]}}}}}, {$fill: {output: {c: {value: 1}}}}]');
SELECT count(*) FROM doc_aggregate('no_docs', '[{$densify: {field: "a", partitionByFields: ["p"], range: {step: 1, bounds: [0, 3]}}}]');
SELECT count(*) FROM doc_aggregate('no_docs', '[{$densify: {field: "a", range: {step: 1, bounds: [0, 3]}}}]');
SELECT count(*) FROM doc_aggregate('no_docs', '[{$redact: "$$KEEP"}, {$sortByCount: "$a"}, {$facet: {x: [{$count: "n"}]}}]');
SELECT count(*) FROM doc_aggregate(NULL, '[{$documents: []}, {$group: {_id: null}}, {$bucket: {groupBy: "$a", boundaries: [0, 1], default: 2}}]');

-- 7. $lookup: equality, an array of local values, a missing one (null)
CREATE VIRTUAL TABLE authors USING docext;
INSERT INTO authors(doc) VALUES ('{_id: "fitz", name: "F. Scott Fitzgerald"}'),
  ('{_id: "hem", name: "Ernest Hemingway"}'), ('{_id: 9, name: "nobody", born: null}');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: {$in: [1, 3, 6]}}}, {$lookup: {from: "authors", localField: "author", foreignField: "_id", as: "who"}}, {$project: {title: 1, "who.name": 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 6}}, {$lookup: {from: "authors", localField: "author", foreignField: "born", as: "who"}}, {$project: {"who._id": 1}}]');
-- as a dotted path: into an embedded document, made when missing
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: {$in: [1, 3]}}}, {$lookup: {from: "authors", localField: "author", foreignField: "_id", as: "meta.by"}}, {$project: {"meta.by.name": 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "authors", localField: "author", foreignField: "_id", as: "meta.$by"}}]');
CREATE VIRTUAL TABLE shelves USING docext;
INSERT INTO shelves(doc) VALUES ('{_id: "s1", books: [1, 5, 42]}');
SELECT doc FROM doc_aggregate('shelves', '[{$lookup: {from: "books", localField: "books", foreignField: "_id", as: "on"}}, {$project: {"on.title": 1}}]');
-- the foreign side through an index of it
SELECT doc_create_index('books', '{author: 1}');
SELECT doc FROM doc_aggregate('authors', '[{$lookup: {from: "books", localField: "_id", foreignField: "author", as: "wrote"}}, {$project: {n: {$size: "$wrote"}}}]');

-- $lookup with a pipeline: let variables of each document, with or
-- without localField/foreignField (then the pipeline's first $match)
CREATE VIRTUAL TABLE stock USING docext;
INSERT INTO stock(doc) VALUES ('{_id: 1, item: "fitz", shelf: "A", n: 3}'), ('{_id: 2, item: "hem", shelf: "A", n: 1}'),
  ('{_id: 3, item: "fitz", shelf: "B", n: 0}'), ('{_id: 4, item: "joyce", shelf: "C", n: 9}');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: {$in: [1, 3, 5]}}}, {$lookup: {from: "stock",
  let: {who: "$author", want: {$cond: [{$gt: ["$pages", 300]}, 5, 1]}},
  pipeline: [{$match: {$expr: {$and: [{$eq: ["$item", "$$who"]}, {$gte: ["$n", "$$want"]}]}}}, {$project: {_id: 0, shelf: 1}}],
  as: "on"}}, {$project: {on: 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: {$lte: 2}}}, {$lookup: {from: "stock", localField: "author",
  foreignField: "item", let: {p: "$pages"}, pipeline: [{$set: {pp: "$$p"}}, {$sort: {n: -1}}, {$limit: 1},
  {$project: {_id: 0, shelf: 1, pp: 1}}], as: "best"}}, {$project: {best: 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 6}}, {$lookup: {from: "stock", let: {a: "$author"},
  pipeline: [{$group: {_id: null, n: {$sum: "$n"}, a: {$first: {$ifNull: ["$$a", "none"]}}}}], as: "all"}},
  {$project: {all: 1}}]');

-- 7b. $graphLookup: a tree of parent references, walked up and down
CREATE VIRTUAL TABLE cats USING docext;
INSERT INTO cats(doc) VALUES ('{_id: "Books"}'), ('{_id: "Programming", parent: "Books"}'),
  ('{_id: "Languages", parent: "Programming"}'), ('{_id: "Databases", parent: "Programming"}'),
  ('{_id: "MongoDB", parent: "Databases"}'), ('{_id: "dbm", parent: "Databases"}'),
  ('{_id: "Poetry", parent: "Books", tags: ["old"]}');
SELECT doc_create_index('cats', '{parent: 1}');
-- ancestors, with their depth (a long)
SELECT doc FROM doc_aggregate('cats', '[{$match: {_id: "MongoDB"}}, {$graphLookup: {from: "cats",
  startWith: "$parent", connectFromField: "parent", connectToField: "_id", as: "up", depthField: "d"}},
  {$project: {"up._id": 1, "up.d": 1}}]');
SELECT doc_json(bson, 'canonical') FROM doc_aggregate('cats', '[{$match: {_id: "dbm"}},
  {$graphLookup: {from: "cats", startWith: "$parent", connectFromField: "parent", connectToField: "_id",
  as: "up", depthField: "d", maxDepth: 0}}, {$project: {"up.d": 1}}]');
-- descendants (through the index on parent), to a depth, restricted
SELECT doc FROM doc_aggregate('cats', '[{$match: {parent: {$exists: false}}}, {$graphLookup: {from: "cats",
  startWith: "$_id", connectFromField: "_id", connectToField: "parent", as: "down"}},
  {$project: {n: {$size: "$down"}}}]');
SELECT doc FROM doc_aggregate('cats', '[{$match: {_id: "Books"}}, {$graphLookup: {from: "cats",
  startWith: "$_id", connectFromField: "_id", connectToField: "parent", as: "down", maxDepth: 1,
  restrictSearchWithMatch: {tags: {$ne: "old"}}}}, {$unwind: "$down"}, {$sort: {"down._id": 1}},
  {$project: {_id: "$down._id"}}]');
-- startWith an array; a cycle ends; null finds null, never missing
CREATE VIRTUAL TABLE ring USING docext;
INSERT INTO ring(doc) VALUES ('{_id: 1, next: 2}'), ('{_id: 2, next: 3}'), ('{_id: 3, next: 1}'),
  ('{_id: 4, next: null}'), ('{_id: 5}');
SELECT doc FROM doc_aggregate('ring', '[{$match: {_id: 1}}, {$graphLookup: {from: "ring", startWith: [2, 4],
  connectFromField: "next", connectToField: "_id", as: "all"}}, {$project: {ids: "$all._id"}}]');
SELECT doc FROM doc_aggregate('ring', '[{$match: {_id: {$in: [4, 5]}}}, {$graphLookup: {from: "ring",
  startWith: "$next", connectFromField: "_id", connectToField: "next", as: "all"}}, {$project: {ids: "$all._id"}}]');

-- 8. Through SQL: joins, views, parameters, the same transaction
SELECT a.doc->>'_id', count(*) FROM doc_aggregate('books', '[{$unwind: "$tags"}]') AS a GROUP BY 1;
-- (a view may use it where SQLite trusts the schema: newer shells turn
-- trusted_schema off, and a virtual table that is not innocuous, as a
-- reader of any collection is not, is then refused in views)
PRAGMA trusted_schema = ON;
CREATE VIEW by_author AS
  SELECT doc->>'_id' AS author, doc->>'n' AS n
  FROM doc_aggregate('books', '[{$group: {_id: "$author", n: {$sum: 1}}}]');
SELECT * FROM by_author WHERE n > 1;
SELECT doc FROM doc_aggregate('books', ?1);
SELECT doc FROM doc_aggregate('books', '[{$match: ' || '{_id: 2}' || '}, {$project: {title: 1}}]');
BEGIN;
INSERT INTO books(doc) VALUES ('{_id: 7, title: "New", author: "fitz", pages: 1}');
SELECT doc FROM doc_aggregate('books', '[{$match: {author: "fitz"}}, {$count: "n"}]');
ROLLBACK;
SELECT doc FROM doc_aggregate('books', '[{$match: {author: "fitz"}}, {$count: "n"}]');
SELECT doc FROM doc_aggregate('main.books', '[{$count: "n"}]');
-- the result is made when the statement starts: writing what it reads into
-- the same collection does not read the writes again
CREATE VIRTUAL TABLE copies USING docext;
INSERT INTO copies(doc) VALUES ('{x: 1}'), ('{x: 2}');
INSERT INTO copies(doc) SELECT json_object('x', doc->>'x') FROM doc_aggregate('copies', '[{$project: {_id: 0}}]');
SELECT count(*) FROM copies;

-- options: let (every stage reads the variables), hint (the head query's
-- index), and MongoDB's comment, batchSize and allowDiskUse
SELECT doc FROM doc_aggregate('books', '[{$match: {$expr: {$eq: ["$author", "$$who"]}}},
  {$project: {_id: 0, t: {$concat: ["$title", "$$sep", "$$who"]}}}]', '{let: {who: "hem", sep: " by "}}');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: null, s: {$sum: {$multiply: ["$pages", "$$k"]}}}}]',
  '{let: {k: 2}, comment: "doubled", batchSize: 1, allowDiskUse: true}');
SELECT doc->>'title' FROM doc_aggregate('books', '[{$match: {author: {$gte: "h"}}}]', '{hint: "author_1"}');
SELECT doc FROM doc_aggregate('books', '[]', NULL) LIMIT 1;

-- 9. Errors: each says what and which stage
SELECT doc FROM doc_aggregate('books', '[{$foo: 1}]');
SELECT doc FROM doc_aggregate('books', '[{match: {}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {}, $limit: 1}]');
SELECT doc FROM doc_aggregate('books', '[5]');
SELECT doc FROM doc_aggregate('books', '[{$match: 1}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {$where: "1"}}]');
SELECT doc FROM doc_aggregate('books', '[{$sort: {}}]');
SELECT doc FROM doc_aggregate('books', '[{$sort: {a: 2}}]');
SELECT doc FROM doc_aggregate('books', '[{$limit: 0}]');
SELECT doc FROM doc_aggregate('books', '[{$limit: 1.5}]');
SELECT doc FROM doc_aggregate('books', '[{$skip: -1}]');
SELECT doc FROM doc_aggregate('books', '[{$skip: "1"}]');
SELECT doc FROM doc_aggregate('books', '[{$count: ""}]');
SELECT doc FROM doc_aggregate('books', '[{$count: "$n"}]');
SELECT doc FROM doc_aggregate('books', '[{$count: "a.b"}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {n: {$sum: 1}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$sum: 1, $avg: 1}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$accumulator: {}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$median: "$x"}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$percentile: {input: "$x", p: [2], method: "approximate"}}}}]');
-- the accumulators of n values: their arguments, and n (a positive whole
-- number, for each group); $mergeObjects of what is not a document
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$firstN: "$x"}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$firstN: {input: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$maxN: {n: 2}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$lastN: {n: 2, input: "$x", sortBy: {x: 1}}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$topN: {n: 2, output: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$topN: {n: 2, sortBy: {}, output: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$topN: {n: 2, sortBy: 1, output: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$topN: {n: 2, sortBy: {x: 2}, output: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$bottomN: {n: 2, sortBy: {x: 1}}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$top: {n: 2, sortBy: {x: 1}, output: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$firstN: {n: 0, input: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$firstN: {n: 1.5, input: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$firstN: {n: "2", input: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$firstN: {n: "$pages", input: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: {a: "$author"}, n: {$firstN: {n: {$cond: [{$eq: ["$a", "hem"]}, -1, 5]}, input: "$x"}}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$mergeObjects: "$title"}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$mergeObjects: ["$a", "$b"]}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, "a.b": {$sum: 1}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$sum: [1, 2]}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: 1, n: {$count: 1}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: {$foo: 1}}}]');
SELECT doc FROM doc_aggregate('books', '[{$group: {_id: {$divide: ["$pages", 0]}}}]');
SELECT doc FROM doc_aggregate('books', '[{$unwind: "tags"}]');
SELECT doc FROM doc_aggregate('books', '[{$unwind: {path: "$tags", x: 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$unwind: {includeArrayIndex: "i"}}]');
SELECT doc FROM doc_aggregate('books', '[{$unwind: {path: "$tags", includeArrayIndex: "$i"}}]');
SELECT doc FROM doc_aggregate('books', '[{$unwind: {path: "$tags", preserveNullAndEmptyArrays: 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$sortByCount: "tags"}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "nope", localField: "a", foreignField: "b", as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "authors", localField: "a", foreignField: "b"}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "authors", localField: "$a", foreignField: "b", as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "stock", let: {x: "$a"}, localField: "a", foreignField: "b", as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "stock", localField: "a", pipeline: [], as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "stock", let: {X: 1}, pipeline: [], as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "stock", pipeline: [{$match: {$expr: "$$nope"}}], as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "stock", pipeline: {}, as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$lookup: {from: "stock", pipeline: [{$limit: 0}], as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 1}}, {$lookup: {from: "stock", let: {d: 0}, pipeline: [{$project: {x: {$divide: [1, "$$d"]}}}], as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$project: {a: 1, b: 0}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [0, 100]}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [0]}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [5, 1]}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [1, "a"]}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [1, 9], default: 2}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "pages", boundaries: [1, 9]}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [1, 9], x: 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [0, "$year"]}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [0, 9], default: "$title"}}]');
SELECT doc FROM doc_aggregate('books', '[{$bucket: {groupBy: "$pages", boundaries: [1, 9], output: {n: 1}}}]');
SELECT doc FROM doc_aggregate('books', '[{$facet: {}}]');
SELECT doc FROM doc_aggregate('books', '[{$facet: {a: []}}]');
SELECT doc FROM doc_aggregate('books', '[{$facet: {"$a": [{$count: "n"}]}}]');
SELECT doc FROM doc_aggregate('books', '[{$facet: {a: [{$facet: {b: [{$count: "n"}]}}]}}]');
SELECT doc FROM doc_aggregate('books', '[{$facet: {a: [{$limit: -1}]}}]');
SELECT doc FROM doc_aggregate('books', '[{$unionWith: {coll: "nope"}}]');
SELECT doc FROM doc_aggregate('books', '[{$unionWith: {pipeline: []}}]');
SELECT doc FROM doc_aggregate('books', '[{$unionWith: {coll: "authors", pipeline: [{$group: {}}]}}]');
SELECT doc FROM doc_aggregate('books', '[{$sample: {size: -1}}]');
SELECT doc FROM doc_aggregate('books', '[{$graphLookup: {from: "books", startWith: "$a", connectFromField: "a", connectToField: "b"}}]');
SELECT doc FROM doc_aggregate('books', '[{$graphLookup: {from: "books", connectFromField: "a", connectToField: "b", as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$graphLookup: {from: "books", startWith: "$a", connectFromField: "$a", connectToField: "b", as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$graphLookup: {from: "books", startWith: "$a", connectFromField: "a", connectToField: "b", as: "c", maxDepth: -1}}]');
SELECT doc FROM doc_aggregate('books', '[{$graphLookup: {from: "books", startWith: "$a", connectFromField: "a", connectToField: "b", as: "c", depthField: "a.b"}}]');
SELECT doc FROM doc_aggregate('books', '[{$graphLookup: {from: "books", startWith: "$a", connectFromField: "a", connectToField: "b", as: "c", restrictSearchWithMatch: {$foo: 1}}}]');
SELECT doc FROM doc_aggregate('books', '[{$graphLookup: {from: "nope", startWith: "$a", connectFromField: "a", connectToField: "b", as: "c"}}]');
SELECT doc FROM doc_aggregate('books', '[{$graphLookup: {from: "books", startWith: "$a", connectFromField: "a", connectToField: "b", as: "c", x: 1}}]');
SELECT doc FROM doc_aggregate('books', '[{$sample: 3}]');
SELECT doc FROM doc_aggregate('books', '[{$addFields: {x: {$bogus: 1}}}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 1}}, {$project: {x: {$divide: [1, 0]}}}]');
SELECT doc FROM doc_aggregate('books', '[{$replaceWith: "$title"}]');
SELECT doc FROM doc_aggregate('nope', '[]');
SELECT doc FROM doc_aggregate('books', '{$match: {}}');
SELECT doc FROM doc_aggregate('books', '[{$match: {}}');
SELECT doc FROM doc_aggregate('books', x'00');
SELECT doc FROM doc_aggregate('books', NULL);
SELECT doc FROM doc_aggregate('books');
SELECT doc FROM doc_aggregate();
SELECT doc FROM doc_aggregate(x'00', '[]');
SELECT doc FROM doc_aggregate('books', '[]', '{maxTimeMS: 5}');
SELECT doc FROM doc_aggregate('books', '[]', '{let: 1}');
SELECT doc FROM doc_aggregate('books', '[]', '{let: ');
SELECT doc FROM doc_aggregate('books', '[{$match: {a: 1}}]', '{hint: "nope"}');
SELECT doc FROM doc_aggregate('books', '[{$project: {a: "$$nope"}}]');
-- a document made past 16 MiB
CREATE VIRTUAL TABLE big USING docext;
INSERT INTO big(doc) SELECT '{"s": "' || hex(zeroblob(1000000)) || '"}' FROM generate_series(1, 9);
SELECT doc FROM doc_aggregate('big', '[{$group: {_id: 0, all: {$push: "$s"}}}]');
SELECT length(doc) FROM doc_aggregate('big', '[{$group: {_id: 0, n: {$sum: 1}}}]');
SELECT doc FROM doc_aggregate('big', '[{$facet: {all: [{$match: {}}]}}]');
SELECT doc FROM doc_aggregate('big', '[{$limit: 1}, {$lookup: {from: "big", pipeline: [], as: "all"}}]');
SELECT doc_check('books');

-- 10. A sharded collection is read through its router
ATTACH ':memory:' AS s1;
ATTACH ':memory:' AS s2;
SELECT doc_add_shard('s1');
SELECT doc_add_shard('s2');
CREATE VIRTUAL TABLE orders USING docext;
INSERT INTO orders(doc) SELECT json_object('_id', value, 'cust', value % 3, 'amount', value * 10)
  FROM generate_series(1, 30);
SELECT doc_shard_collection('orders', '{_id: 1}');
SELECT doc_split_chunk('orders', '{_id: 15}');
SELECT doc_move_chunk('orders', '{_id: 20}', 's2');
SELECT doc FROM doc_aggregate('orders', '[{$group: {_id: "$cust", total: {$sum: "$amount"}, n: {$sum: 1}}}, {$sort: {total: -1}}]');
SELECT doc FROM doc_aggregate('orders', '[{$match: {_id: {$gt: 12, $lt: 18}}}, {$sort: {_id: -1}}, {$limit: 3}]');
SELECT doc FROM doc_aggregate('books', '[{$match: {_id: 1}}, {$project: {_id: 1}}, {$unionWith: {coll: "orders", pipeline: [{$match: {_id: {$gte: 29}}}]}}]');

-- explain: how the head query runs (it became {query, sort, limit}), then
-- the stages after it; $documents has no query; explain: false runs
SELECT json_remove(doc, '$.stages[0].$cursor.millis') FROM doc_aggregate('books',
  '[{$match: {author: "hem"}}, {$sort: {pages: -1}}, {$limit: 2}, {$project: {title: 1}}]', '{explain: true}');
SELECT json_extract(doc, '$.stages[0].$cursor.cursor', '$.stages[0].$cursor.query', '$.stages[0].$cursor.n')
  FROM doc_aggregate('books', '[{$match: {author: {$gte: "h"}}}, {$count: "n"}]', '{hint: "author_1", explain: true}');
SELECT json_remove(doc, '$.stages[0].$cursor.millis') FROM doc_aggregate('books', '[{$group: {_id: null, n: {$sum: 1}}}]', '{explain: true}');
SELECT json_extract(doc, '$.stages[0].$cursor.query', '$.stages[0].$cursor.n', '$.stages[1]')
  FROM doc_aggregate('orders', '[{$match: {_id: {$gt: 12}}}, {$group: {_id: "$cust"}}]', '{explain: true}');
SELECT doc FROM doc_aggregate(NULL, '[{$documents: [{a: 1}]}, {$set: {b: 2}}]', '{explain: true}');
SELECT doc FROM doc_aggregate('books', '[{$count: "n"}]', '{explain: false}');
SELECT doc FROM doc_aggregate('books', '[{$count: "n"}]', '{explain: 1}');
SELECT doc FROM doc_aggregate('books', '[{$match: {x: {$bad: 1}}}]', '{explain: true}');
