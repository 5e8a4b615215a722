-- $setWindowFields (docext_window.c): window functions over partitions of
-- sorted documents, in doc_aggregate; $fill, and $densify (docext_densify.c),
-- the stages of time series' gaps.
.load ./docext
.headers off
.mode list

-- Readings of two sensors: a time series (SCENARIOS A.10's kind)
CREATE VIRTUAL TABLE readings USING docext;
INSERT INTO readings(doc) VALUES
  ('{_id: 1, sensor: "a", t: ISODate("2026-01-01T00:00:00Z"), n: 1, v: 10}'),
  ('{_id: 2, sensor: "a", t: ISODate("2026-01-01T01:00:00Z"), n: 2, v: null}'),
  ('{_id: 3, sensor: "a", t: ISODate("2026-01-01T02:30:00Z"), n: 3, v: 30}'),
  ('{_id: 4, sensor: "b", t: ISODate("2026-01-01T00:00:00Z"), n: 1, v: 5}'),
  ('{_id: 5, sensor: "b", t: ISODate("2026-01-02T00:00:00Z"), n: 2, v: 7.5}'),
  ('{_id: 6, sensor: "a", t: ISODate("2026-01-01T03:00:00Z"), n: 4, v: 20}'),
  ('{_id: 7, t: ISODate("2026-01-01T00:00:00Z"), n: 1, v: 1}'),
  ('{_id: 8, sensor: null, t: ISODate("2026-01-01T00:00:00Z"), n: 2, v: 2}');

-- 1. Output order: by partition (missing and null are one), then sortBy
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {partitionBy: "$sensor",
  sortBy: {t: 1}, output: {k: {$documentNumber: {}}}}}, {$project: {sensor: 1, k: 1}}]');
-- no partitionBy: one partition; no sortBy: the input's order
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {total: {$sum: "$v"},
  k: {$count: {}}}}}, {$project: {total: 1, k: 1}}, {$limit: 2}]');
-- partitionBy an expression
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {partitionBy: {$gt: ["$v", 6]},
  sortBy: {_id: 1}, output: {n: {$count: {}}}}}, {$project: {n: 1}}]');

-- 2. Accumulators over document windows: running totals, moving averages,
-- the rest of the partition, neighbours
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}},
  {$setWindowFields: {sortBy: {t: 1}, output: {
     running: {$sum: "$v", window: {documents: ["unbounded", "current"]}},
     avg3: {$avg: "$v", window: {documents: [-1, 1]}},
     rest: {$max: "$v", window: {documents: ["current", "unbounded"]}},
     seen: {$push: "$v", window: {documents: ["unbounded", -1]}},
     set: {$addToSet: "$n", window: {documents: [0, 1]}},
     next: {$first: "$v", window: {documents: [1, 1]}},
     prev: {$last: "$v", window: {documents: [-1, -1]}},
     sd: {$stdDevPop: "$v"}, sds: {$stdDevSamp: "$v", window: {documents: [0, 0]}},
     lo: {$min: "$v", window: {documents: [5, 9]}}}}},
  {$project: {sensor: 0, t: 0}}]');
-- a moving median and percentiles
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}},
  {$setWindowFields: {sortBy: {t: 1}, output: {med: {$median: {input: "$v", method: "approximate"},
   window: {documents: [-1, 1]}}, p90: {$percentile: {input: "$n", p: [0.9], method: "continuous"}}}}},
  {$project: {med: 1, p90: 1}}]');
-- $first and $last of a missing value: the field is not set (as MongoDB)
SELECT doc FROM doc_aggregate('readings', '[{$match: {_id: {$in: [1, 2]}}},
  {$setWindowFields: {sortBy: {_id: 1}, output: {x: {$first: "$nope"}, y: {$last: "$v"}}}},
  {$project: {x: 1, y: 1}}]');
-- the accumulators of n values over a window: each keeps the whole window
-- and takes n at the end (the first n; $lastN, $bottomN and $maxN the last)
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}},
  {$setWindowFields: {sortBy: {t: 1}, output: {last2: {$lastN: {n: 2, input: "$v"}, window: {documents: ["unbounded", "current"]}},
   hi: {$maxN: {n: 2, input: "$v"}, window: {documents: [-1, 1]}}, lo: {$minN: {n: 1, input: "$v"}, window: {documents: [-1, 1]}},
   best: {$top: {sortBy: {v: -1}, output: "$_id"}, window: {documents: [-1, 1]}},
   worst: {$bottomN: {n: 2, sortBy: {v: -1}, output: "$_id"}, window: {documents: [-1, 1]}},
   first2: {$firstN: {n: 2, input: "$_id"}, window: {range: [-2, 0], unit: "hour"}},
   top2: {$topN: {n: 2, sortBy: {v: 1}, output: "$v"}}}}},
  {$project: {last2: 1, hi: 1, lo: 1, best: 1, worst: 1, first2: 1, top2: 1}}]');
-- $mergeObjects, over windows without a lower bound (as MongoDB's newest
-- releases take it): later
-- fields win; an empty window gives {}
SELECT doc FROM doc_aggregate(NULL, '[{$documents: [{k: 1, o: {a: 1, b: 10}}, {k: 2, o: {a: 2, c: 20}}, {k: 3, o: null}, {k: 4, o: {a: 3, d: 30}}]},
  {$setWindowFields: {sortBy: {k: 1}, output: {all: {$mergeObjects: "$o"}, run: {$mergeObjects: "$o", window: {documents: ["unbounded", "current"]}},
   before: {$mergeObjects: "$o", window: {documents: ["unbounded", -1]}}}}}, {$project: {_id: 0, o: 0}}]');
-- a window without a lower bound runs $group's accumulator instead (as
-- MongoDB's does): missing is null there, and the window's function leaves
-- it out; its ties are $group's too
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}},
  {$setWindowFields: {sortBy: {t: 1}, output: {acc: {$firstN: {n: 2, input: "$nope"}},
   fn: {$firstN: {n: 2, input: "$nope"}, window: {documents: [-1, 1]}},
   b: {$bottomN: {n: 1, sortBy: {sensor: 1}, output: "$_id"}, window: {documents: ["unbounded", "current"]}},
   bw: {$bottomN: {n: 1, sortBy: {sensor: 1}, output: "$_id"}, window: {documents: [-3, 0]}}}}},
  {$project: {acc: 1, fn: 1, b: 1, bw: 1}}]');

-- 3. Range windows: over numbers (the sortBy value plus the bounds), and
-- over dates with a unit ("current" is the document itself)
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}},
  {$setWindowFields: {sortBy: {n: 1}, output: {
     near: {$push: "$n", window: {range: [-1, 1]}},
     half: {$push: "$n", window: {range: [-0.5, 1.5]}},
     back: {$sum: "$v", window: {range: ["unbounded", -1]}},
     ahead: {$sum: "$v", window: {range: [1, "unbounded"]}},
     least: {$min: "$n", window: {range: [-1, "unbounded"]}}}}},
  {$project: {near: 1, half: 1, back: 1, ahead: 1, least: 1}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {partitionBy: "$sensor",
  sortBy: {t: 1}, output: {
     last2h: {$avg: "$v", window: {range: [-2, 0], unit: "hour"}},
     day: {$count: {}, window: {range: ["current", 1], unit: "day"}}}}},
  {$project: {last2h: 1, day: 1}}]');
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}},
  {$setWindowFields: {sortBy: {t: 1}, output: {m: {$push: "$_id",
     window: {range: [-1, "current"], unit: "month"}}}}}, {$project: {m: 1}}]');

-- 4. Ranks: $rank leaves gaps after ties, $denseRank does not; null and
-- missing tie
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {sensor: -1},
  output: {r: {$rank: {}}, d: {$denseRank: {}}, k: {$documentNumber: {}}}}},
  {$project: {sensor: 1, r: 1, d: 1, k: 1}}]');

-- 5. $shift, $locf, $linearFill: neighbours and gaps
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}},
  {$setWindowFields: {sortBy: {n: 1}, output: {
     before: {$shift: {output: "$v", by: -1, default: "none"}},
     after: {$shift: {output: "$n", by: 2}},
     carried: {$locf: "$v"}, line: {$linearFill: "$v"}}}},
  {$project: {v: 1, before: 1, after: 1, carried: 1, line: 1}}]');
-- $linearFill over dates: a point on the line between its neighbours in time
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}},
  {$setWindowFields: {sortBy: {t: 1}, output: {line: {$linearFill: "$v"}}}},
  {$project: {line: 1}}]');

-- 6. $derivative and $integral over the sortBy value (per hour of dates);
-- $expMovingAvg; covariances
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a", v: {$ne: null}}},
  {$setWindowFields: {sortBy: {t: 1}, output: {
     rate: {$derivative: {input: "$v", unit: "hour"}, window: {documents: [-1, 0]}},
     area: {$integral: {input: "$v", unit: "hour"}, window: {documents: ["unbounded", "current"]}},
     ema: {$expMovingAvg: {input: "$v", N: 2}},
     ema2: {$expMovingAvg: {input: "$v", alpha: 0.5}},
     cov: {$covariancePop: ["$n", "$v"]}, covs: {$covarianceSamp: ["$n", "$v"]}}}},
  {$project: {rate: 1, area: 1, ema: 1, ema2: 1, cov: 1, covs: 1}}]');
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a", v: {$ne: null}}},
  {$setWindowFields: {sortBy: {n: 1}, output: {
     d: {$derivative: {input: "$v"}, window: {range: [-1, 0]}},
     i: {$integral: {input: "$v"}}}}},
  {$project: {d: 1, i: 1}}]');
-- decimal128 is kept, as MongoDB keeps it: $expMovingAvg computes in
-- decimal128 (a double rounded to 15 digits), a decimal once one comes in;
-- $derivative, $integral and $linearFill follow $subtract's, $multiply's
-- and $divide's types (a trapezoid of doubles is a double; the sum a
-- decimal; a filled value between integers a double)
SELECT doc_json(bson, 'canonical') FROM doc_aggregate(NULL, '[{$documents: [{t: 1, v: 10}, {t: 2, v: NumberDecimal("10.5")},
  {t: 4, v: 12.25}, {t: 7, v: 9}, {t: 9, v: NumberLong(8)}]},
  {$setWindowFields: {sortBy: {t: 1}, output: {ema: {$expMovingAvg: {input: "$v", N: 2}},
   d: {$derivative: {input: "$v"}, window: {documents: [-1, 0]}}, i: {$integral: {input: "$v"}, window: {documents: [-1, 0]}},
   all: {$integral: {input: "$v"}}}}}, {$project: {_id: 0}}]');
-- the covariances as MongoDB's WindowFunctionCovariance computes them (the
-- means sums over counts; decimal128 kept; an infinity carried)
SELECT doc_json(bson, 'canonical') FROM doc_aggregate(NULL, '[{$documents: [{x: 1, y: NumberDecimal("2")}, {x: 2, y: 4}, {x: 4, y: 5}]},
  {$setWindowFields: {sortBy: {x: 1}, output: {p: {$covariancePop: ["$x", "$y"]}, s: {$covarianceSamp: ["$x", "$y"], window: {documents: [-1, 0]}},
   i: {$covariancePop: ["$x", {$cond: [{$eq: ["$x", 2]}, {$literal: Infinity}, 1]}]}}}}, {$project: {_id: 0}}]');
SELECT doc_json(bson, 'canonical') FROM doc_aggregate(NULL, '[{$documents: [{t: 1, w: NumberDecimal("1.5")}, {t: 2, w: null},
  {t: 4, w: 3}, {t: 5}, {t: 6, w: 4}]}, {$setWindowFields: {sortBy: {t: 1}, output: {w: {$linearFill: "$w"}}}}, {$project: {_id: 0}}]');
SELECT doc_json(bson, 'canonical') FROM doc_aggregate(NULL, '[{$documents: [{t: ISODate("2026-01-01T00:00:00Z"), v: NumberDecimal("1")},
  {t: ISODate("2026-01-01T01:30:00Z"), v: NumberDecimal("4")}]},
  {$setWindowFields: {sortBy: {t: 1}, output: {d: {$derivative: {input: "$v", unit: "hour"}, window: {documents: [-1, 0]}},
   i: {$integral: {input: "$v", unit: "hour"}}}}}, {$project: {_id: 0, t: 0}}]');

-- 7. Output paths: dotted (documents made on the way), replacing a field
SELECT doc FROM doc_aggregate('readings', '[{$match: {_id: 1}},
  {$setWindowFields: {output: {"stats.total": {$sum: "$v"}, v: {$max: "$n"}, "n.x": {$count: {}}}}}]');

-- 8. Empty windows: $sum and $count 0, $avg, $min and $first null, $push []
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "b"}},
  {$setWindowFields: {sortBy: {t: 1}, output: {s: {$sum: "$v", window: {documents: [5, 6]}},
     c: {$count: {}, window: {documents: [5, 6]}}, a: {$avg: "$v", window: {documents: [5, 6]}},
     m: {$min: "$v", window: {range: [100, 200], unit: "day"}},
     f: {$first: "$v", window: {documents: [-9, -5]}}, p: {$push: "$v", window: {documents: [2, 3]}}}}},
  {$project: {s: 1, c: 1, a: 1, m: 1, f: 1, p: 1}}]');

-- 9. Through SQL: a view of a moving average, joined with SQL
CREATE TEMP VIEW smooth AS SELECT doc_get(bson, '_id') AS id,
  doc_get(bson, 'avg') AS avg FROM doc_aggregate('readings', '[{$match: {sensor: "a"}},
  {$setWindowFields: {sortBy: {t: 1}, output: {avg: {$avg: "$v", window: {documents: [-1, 0]}}}}}]');
SELECT id, avg FROM smooth ORDER BY avg DESC LIMIT 2;

-- 9b. $fill: MongoDB's rewrite into $setWindowFields ($locf, $linearFill)
-- and $addFields ($ifNull) for a value
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: {$in: ["a", "b"]}}},
  {$fill: {partitionByFields: ["sensor"], sortBy: {t: 1},
   output: {v: {method: "linear"}, last: {method: "locf"}, note: {value: "none"}}}},
  {$project: {t: 0, n: 0}}]');
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}}, {$fill: {output: {v: {value: {$multiply: [2, "$n"]}}}}},
  {$project: {v: 1}}]');
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: "a"}}, {$fill: {sortBy: {t: 1}, output: {v: {method: "locf"}}}},
  {$project: {v: 1}}]');
SELECT doc FROM doc_aggregate('readings', '[{$fill: {output: {v: {method: "linear"}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$fill: {sortBy: {t: 1}, output: {v: {method: "mean"}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$fill: {output: {v: 0}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$fill: {output: {}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$fill: {partitionBy: "$sensor", partitionByFields: ["sensor"], output: {v: {value: 0}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$fill: {partitionByFields: ["$sensor"], output: {v: {value: 0}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$fill: {output: {v: {value: 0}}, x: 1}}]');

-- 9c. $densify: the gaps of a sequence filled with documents of the
-- partition's fields and the field alone; off-grid values pass and do not
-- move the grid; missing and null pass first
CREATE VIRTUAL TABLE seq USING docext;
INSERT INTO seq(doc) VALUES ('{_id: 1, v: 0}'), ('{_id: 2, v: 4}'), ('{_id: 3, v: 5}'),
  ('{_id: 4, v: 10}'), ('{_id: 5}'), ('{_id: 6, v: null}');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 2, bounds: "full"}}}]');
-- [lo, hi): lo included, hi not; values outside pass as they are; the
-- rest of the range comes after every document
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 3, bounds: [2, 12]}}}]');
-- the grid's type follows its last value: an int grid, then doubles
SELECT doc FROM doc_aggregate(NULL, '[{$documents: [{n: 1}, {n: 2.0}, {n: 4}]},
  {$densify: {field: "n", range: {step: 1, bounds: "full"}}}]');
-- dates with a unit, per partition (each its own range) or "full" (every
-- partition over the range of all); months keep their day where they can
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: {$in: ["a", "b"]}}}, {$project: {sensor: 1, t: 1}},
  {$densify: {field: "t", partitionByFields: ["sensor"], range: {step: 1, unit: "hour", bounds: "partition"}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$match: {sensor: {$in: ["a", "b"]}, n: {$lte: 2}}}, {$project: {sensor: 1, t: 1}},
  {$densify: {field: "t", partitionByFields: ["sensor"], range: {step: 6, unit: "hour", bounds: "full"}}}]');
SELECT doc FROM doc_aggregate(NULL, '[{$documents: [{d: ISODate("2026-01-31T00:00:00Z"), k: {x: 1}}]},
  {$densify: {field: "d", partitionByFields: ["k.x"], range: {step: 1, unit: "month",
   bounds: [ISODate("2026-01-31T00:00:00Z"), ISODate("2026-05-01T00:00:00Z")]}}}]');
-- a partition field missing is not null (two partitions; a made document of
-- a missing dotted one holds the documents above it); a partition whose
-- documents all lack the field is none
SELECT doc FROM doc_aggregate(NULL, '[{$documents: [{p: null, t: 1}, {t: 3}, {e: {y: 1}, t: 5}, {e: {y: 1}, t: 7}]},
  {$densify: {field: "t", partitionByFields: ["p", "e.x"], range: {step: 1, bounds: "partition"}}}]');
SELECT doc FROM doc_aggregate(NULL, '[{$documents: [{p: "a", t: 1}, {p: "b", t: null}]},
  {$densify: {field: "t", partitionByFields: ["p"], range: {step: 1, bounds: [0, 3]}}}]');
-- with no document, [lo, hi) is made whole; "full" and "partition" make none
SELECT doc FROM doc_aggregate(NULL, '[{$documents: []}, {$densify: {field: "n", range: {step: 1, bounds: [0, 3]}}}]');
SELECT count(*) FROM doc_aggregate(NULL, '[{$documents: []}, {$densify: {field: "n", range: {step: 1, bounds: "full"}}}]');
-- $densify and $fill: a complete series, gaps carried forward
SELECT doc FROM doc_aggregate('seq', '[{$match: {v: {$type: "number"}}},
  {$densify: {field: "v", range: {step: 1, bounds: [0, 6]}}},
  {$fill: {sortBy: {v: 1}, output: {_id: {method: "locf"}}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 0.00001, bounds: "full"}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 1, bounds: "partition"}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 1, unit: "day", bounds: "full"}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$densify: {field: "t", range: {step: 1, bounds: "full"}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", partitionByFields: ["v.x"], range: {step: 1, bounds: "full"}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 1, bounds: [0, 5.5]}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 1, bounds: [5, 1]}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 0, bounds: "full"}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 1.5, unit: "day", bounds: "full"}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 1, unit: "fortnight", bounds: "full"}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 1, bounds: "all"}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v", range: {step: 1, bounds: "full", x: 1}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "$v", range: {step: 1, bounds: "full"}}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {field: "v"}}]');
SELECT doc FROM doc_aggregate('seq', '[{$densify: {range: {step: 1, bounds: "full"}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$densify: {field: "sensor", range: {step: 1, bounds: "full"}}}]');

-- 10. Errors: each says what, in which stage
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: 1}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {}, x: 1}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {}, output: {}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 2}, output: {}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: 1}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$accumulator: {}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$median: "$v"}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$firstN: {n: "$n", input: "$v"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$topN: {n: 0, sortBy: {v: 1}, output: "$v"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$mergeObjects: "$v"}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {n: 1}, output: {a: {$mergeObjects: {n: "$n"}, window: {documents: [-1, 0]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$sum: 1, $avg: 1}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$sum: 1, x: 1}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$sum: 1}, "a.b": {$sum: 1}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {"$a": {$sum: 1}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {"a..b": {$sum: 1}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$count: 1}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$sum: 1, window: {documents: [-1, 0]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$sum: 1, window: {documents: [1, 0]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$sum: 1, window: {documents: [0.5, 1]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$sum: 1, window: {documents: ["now", 1]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$sum: 1, window: {documents: [1]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$sum: 1, window: {documents: [0, 1], range: [0, 1]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$sum: 1, window: {documents: [0, 1], unit: "day"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$sum: 1, window: {range: [0, 1], unit: "fortnight"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$sum: 1, window: {range: [0.5, 1], unit: "day"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1, n: 1}, output: {a: {$sum: 1, window: {range: [0, 1]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: -1}, output: {a: {$sum: 1, window: {range: [0, 1]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$sum: 1, window: {range: [0, 1]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {n: 1}, output: {a: {$sum: 1, window: {range: [0, 1], unit: "day"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {sensor: 1}, output: {a: {$sum: 1, window: {range: [0, 1]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$rank: {}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1, n: 1}, output: {a: {$denseRank: {}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$rank: 1}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$rank: {}, window: {}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$shift: {output: "$v", by: 1}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$shift: {output: "$v"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$shift: {by: 1}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$shift: {output: "$v", by: 1.5}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$shift: {output: "$v", by: 1, default: "$v"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$shift: {output: "$v", by: 1, x: 1}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$locf: "$v", window: {}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$linearFill: "$v"}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {n: 1}, output: {a: {$linearFill: "$v"}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {sensor: 1}, output: {a: {$linearFill: "$n"}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {n: 1}, output: {a: {$linearFill: "$sensor"}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$derivative: {input: "$v"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$derivative: {input: "$v"}, window: {documents: [-1, 0]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {n: 1}, output: {a: {$derivative: {input: "$v", unit: "hour"}, window: {documents: [-1, 0]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$derivative: {input: "$v", unit: "month"}, window: {documents: [-1, 0]}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$integral: {unit: "hour"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$integral: "$v"}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$integral: {input: "$sensor", unit: "hour"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$expMovingAvg: {input: "$v"}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$expMovingAvg: {input: "$v", N: 0}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {sortBy: {t: 1}, output: {a: {$expMovingAvg: {input: "$v", alpha: 1}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {output: {a: {$expMovingAvg: {input: "$v", N: 2}}}}}]');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {partitionBy: "$n", output: {a: {$sum: {$divide: [1, 0]}}}}}]');
INSERT INTO readings(doc) VALUES ('{_id: 9, sensor: ["a"], t: 1}');
SELECT doc FROM doc_aggregate('readings', '[{$setWindowFields: {partitionBy: "$sensor", output: {a: {$count: {}}}}}]');
SELECT doc_check('readings');
