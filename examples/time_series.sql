-- Time series: the library's daily counters (SCENARIOS.md A.10 keeps one
-- document per book per day), read back with window functions: running
-- totals, moving averages over the calendar, day-over-day changes, ranks,
-- gaps filled, rates. Run: sqlite3 < examples/time_series.sql
.load ./docext
.headers off
.mode list
.echo on

-- One document per book and day: the day's recommendations. Day 4 of book
-- 1 is missing (no one came), and day 3's count of book 2 was lost (null).
CREATE VIRTUAL TABLE rec_daily USING docext;
SELECT doc_create_index('rec_daily', '{ book: 1, day: 1 }');
INSERT INTO rec_daily(doc) VALUES
  ('{ _id: "1-03-01", book: 1, day: ISODate("2013-03-01"), total: 4 }'),
  ('{ _id: "1-03-02", book: 1, day: ISODate("2013-03-02"), total: 6 }'),
  ('{ _id: "1-03-03", book: 1, day: ISODate("2013-03-03"), total: 5 }'),
  ('{ _id: "1-03-05", book: 1, day: ISODate("2013-03-05"), total: 9 }'),
  ('{ _id: "2-03-01", book: 2, day: ISODate("2013-03-01"), total: 1 }'),
  ('{ _id: "2-03-02", book: 2, day: ISODate("2013-03-02"), total: 3 }'),
  ('{ _id: "2-03-03", book: 2, day: ISODate("2013-03-03"), total: null }'),
  ('{ _id: "2-03-04", book: 2, day: ISODate("2013-03-04"), total: 7 }');

-- Per book, in day order: the running total, the average of the last three
-- calendar days (a range window over dates: day 5's is days 3 to 5, since
-- day 4 has no document), and the change from the day before ($shift).
SELECT doc FROM doc_aggregate('rec_daily', '[
  { $setWindowFields: { partitionBy: "$book", sortBy: { day: 1 }, output: {
      running: { $sum: "$total", window: { documents: ["unbounded", "current"] } },
      avg3d: { $avg: "$total", window: { range: [-2, 0], unit: "day" } },
      before: { $shift: { output: "$total", by: -1 } } } } },
  { $project: { _id: 1, running: 1, avg3d: 1,
      change: { $subtract: ["$total", "$before"] } } } ]');

-- Each book's best days: rank by total, highest first ($denseRank: ties
-- share a rank, the next rank follows).
SELECT doc FROM doc_aggregate('rec_daily', '[
  { $setWindowFields: { partitionBy: "$book", sortBy: { total: -1 },
      output: { place: { $denseRank: {} } } } },
  { $match: { place: { $lte: 2 } } },
  { $project: { _id: 1, total: 1, place: 1 } } ]');

-- The lost count filled: on the line between its neighbours in time
-- ($fill, method linear), or carried forward (locf).
SELECT doc FROM doc_aggregate('rec_daily', '[ { $match: { book: 2 } },
  { $fill: { sortBy: { day: 1 }, output: { total: { method: "linear" } } } },
  { $project: { total: 1 } } ]');
SELECT doc FROM doc_aggregate('rec_daily', '[ { $match: { book: 2 } },
  { $fill: { sortBy: { day: 1 }, output: { total: { method: "locf" } } } },
  { $project: { total: 1 } } ]');

-- Growth per day between neighbouring documents ($derivative over dates,
-- per day), and the area under the curve so far ($integral): recommendations
-- counted over days.
SELECT doc FROM doc_aggregate('rec_daily', '[ { $match: { book: 1 } },
  { $setWindowFields: { sortBy: { day: 1 }, output: {
      perDay: { $derivative: { input: "$total", unit: "day" }, window: { documents: [-1, 0] } },
      area: { $integral: { input: "$total", unit: "day" }, window: { documents: ["unbounded", "current"] } } } } },
  { $project: { perDay: 1, area: 1 } } ]');

-- Each book's share of its own total, through SQL: the window's result is a
-- table like any other.
SELECT doc_get(bson, 'book') AS book, doc_get(bson, 'day') AS day,
       round(100.0 * doc_get(bson, 'total') / doc_get(bson, 'all'), 1) AS pct
  FROM doc_aggregate('rec_daily', '[ { $setWindowFields: { partitionBy: "$book",
      output: { all: { $sum: "$total" } } } } ]')
 WHERE doc_get(bson, 'total') IS NOT NULL
 ORDER BY pct DESC LIMIT 3;
SELECT doc_check('rec_daily');
