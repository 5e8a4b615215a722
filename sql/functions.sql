-- Functions on any document value (INTERFACE.md §4).
.load ./docext
.headers off
.mode list

-- 1. doc_json: relaxed (default), canonical, shell; TEXT in any syntax.
SELECT doc_json('{ _id: ObjectId("507f1f77bcf86cd799439011"), n: NumberLong(5), i: 5, d: 5.0, s: ''x'', // comment
  at: ISODate("2012-10-10T21:14:07.096Z"), dec: NumberDecimal("1.50"), t: Timestamp(1, 2), /* c */ r: /ab+c/mi,
  b: BinData(0, "AQID"), u: UUID("00112233-4455-6677-8899-aabbccddeeff"), mn: MinKey, mx: MaxKey, un: undefined,
  nan: NaN, inf: -Infinity, "dotted.key": 1, arr: [1, 2.5, "three",], }');
SELECT doc_json('{ n: NumberLong(5), i: 5, d: 5.0, at: ISODate("2012-10-10T21:14:07Z"), big: 1e20, small: 1e-7 }', 'canonical');
SELECT doc_json('{ _id: ObjectId("507f1f77bcf86cd799439011"), n: NumberLong(5), big: NumberLong("9007199254740993"), d: 2.5, at: ISODate("2012-10-10T21:14:07.096Z"), r: /a\/b/i, t: Timestamp(1, 2), a: [1, {x: 1}], e: {} }', 'shell');
-- DBRef("collection", id[, "database"]) is the document {$ref, $id, $db}
-- of MongoDB's DBRef convention; the shell style prints such a document
-- (those keys only, in that order) back as DBRef(…), as the mongo shells do.
SELECT doc_json('{a: DBRef("authors", ObjectId("507f1f77bcf86cd799439011")), b: new DBRef(''authors'', 7, ''library'',)}');
SELECT doc_json('{a: DBRef("authors", ObjectId("507f1f77bcf86cd799439011")), b: DBRef("authors", {k: [1]}, "library"), c: {$ref: "x", $id: 1, more: 1}, d: {$ref: 1, $id: 1}, e: {$id: 1, $ref: "x"}}', 'shell');
SELECT doc_bson(doc_json(d, 'shell')) = doc_bson(d) FROM (SELECT '{a: DBRef("c", 1), b: [DBRef("c", "x", "d")]}' AS d);
-- mongosh's forms of the types JavaScript has no literal for
SELECT doc_json('{c: Code("function () { return 1; }"), s: new Code(''f'', {n: 1}), y: BSONSymbol("sym"), r: BSONRegExp("a\nb", "si")}', 'canonical');
SELECT doc_json('{c: Code("x", 1)}');
SELECT doc_json('{h: Binary(Buffer.from("0102ff", "hex"), 0), b: new Binary(Buffer.from("AQID", "base64"), 5), u: Binary(Buffer.from("hé"))}');
SELECT doc_json('{h: Binary(Buffer.from("0102ff", "latin1"), 0)}');
SELECT doc_json('{a: DBRef("authors")}');
SELECT doc_json('{a: DBRef("authors", 1, 2)}');
SELECT doc_json('{a: DBRef("authors", 1 "db")}');
SELECT doc_json('{"$date": 1349903647096}');
SELECT doc_json('{"a": {"$date": 1349903647096}, "b": {"$regex": "^x", "$options": "i"}, "c": {"$numberLong": "-7"}}');
SELECT doc_json('{"d": {"$date": "1960-01-01T00:00:00Z"}}');
-- integers at each count of digits, and the ends of int32 and int64
SELECT doc_json('{a: [0, -1, 9, 10, 99, 100, -100, 999999999, 1000000000, 2147483647, -2147483648, NumberLong("4294967295"), NumberLong("4294967296"), NumberLong("-9223372036854775808"), NumberLong("9223372036854775807"), NumberLong("1000000000000000000"), NumberLong("999999999999999999")], d: {$date: {$numberLong: "-1"}}}');
SELECT doc_json('{}');
SELECT doc_json('[]');
SELECT doc_json('{a: 1}', 'pretty');
-- integer typing: int32, int64, double
SELECT doc_type(d, 'a'), doc_type(d, 'b'), doc_type(d, 'c'), doc_type(d, 'e') FROM (SELECT '{a: 2147483647, b: 2147483648, c: 9223372036854775808, e: 1.0}' AS d);

-- 2. doc_bson: TEXT to BLOB; BLOB stays BLOB; round trip keeps every type.
SELECT hex(doc_bson('{a: 1}'));
SELECT doc_json(doc_bson(doc_bson('{n: NumberLong(1), d: NumberDecimal("0.1")}')), 'canonical');
SELECT typeof(doc_bson('{}')), typeof(doc_json(doc_bson('{}')));

-- 3. doc_valid
SELECT doc_valid('{a: 1}'), doc_valid('{a: }'), doc_valid(x'0500000000'), doc_valid(x'0600000000'), doc_valid(NULL), doc_valid(3);

-- 4. doc_get: types, dotted paths, array indexes, arrays of values found
SELECT doc_get(d, 'title'), doc_get(d, 'pages'), doc_get(d, 'avail'), typeof(doc_get(d, 'avail')),
       doc_get(d, 'publisher.name'), doc_get(d, 'publisher.date'), doc_get(d, 'reviews.0.user'),
       doc_get(d, 'reviews.user'), doc_get(d, 'subjects'), doc_get(d, 'subjects.1'), doc_get(d, 'price'),
       doc_get(d, '_id'), doc_get(d, 'nothing'), doc_get(d, 'none'), doc_get(d, 'publisher')
FROM (SELECT '{ _id: ObjectId("507f1f77bcf86cd799439011"), title: "The Great Gatsby", pages: 176, avail: true,
  publisher: { name: "Everyman''s Library", date: ISODate("1991-09-19T00:00:00Z") },
  subjects: ["Love stories", "1920s"], price: 9.5, none: null,
  reviews: [ { user: 1, text: "a" }, { user: 2, text: "b" }, { text: "c" } ] }' AS d);

-- 5. doc_type: $type aliases
SELECT doc_type(d, 'a'), doc_type(d, 'b'), doc_type(d, 'c'), doc_type(d, 'd'), doc_type(d, 'e'),
       doc_type(d, 'f'), doc_type(d, 'g'), doc_type(d, 'h'), doc_type(d, 'i'), doc_type(d, 'j'),
       doc_type(d, 'k'), doc_type(d, 'l'), doc_type(d, 'm'), doc_type(d, 'n'), doc_type(d, 'o'),
       doc_type(d, 'p'), doc_type(d, 'missing'), doc_type(d, 'e.x')
FROM (SELECT '{a: 1.5, b: "s", c: {x: 1}, d: [1], e: BinData(0, ""), f: ObjectId("507f1f77bcf86cd799439011"), g: true,
  h: new Date(0), i: null, j: /x/, k: 1, l: Timestamp(0, 0), m: NumberLong(1), n: NumberDecimal("1"),
  o: MinKey, p: MaxKey}' AS d);

-- 6. doc_oid: 24 hex digits, distinct, time-ordered
SELECT length(doc_oid()), doc_oid() GLOB '[0-9a-f]*', doc_oid() <> doc_oid();

-- 7. doc_config('clock'): frozen time drives new Date(), ISODate() and
--    ObjectIds (in text a collection stores). A deterministic function's
--    document may not use them: the same text would give another document
--    at each reading (an index on doc_get(x, 't') would lose its entries);
--    doc_valid only says the text parses, doc_match's filter is read once.
SELECT doc_config('clock');
SELECT doc_config('clock', '2013-03-01T00:00:00Z');
CREATE VIRTUAL TABLE clocked USING docext;
INSERT INTO clocked(doc) VALUES ('{ t: new Date(), u: ISODate() }');
SELECT doc_get(doc, 't'), doc_get(doc, 'u'), substr(_id, 10, 8) FROM clocked;
SELECT substr(doc_oid(), 1, 8), printf('%x', strftime('%s', '2013-03-01T00:00:00Z'));
SELECT doc_get('{ t: new Date() }', 't');
SELECT doc_json('{ a: [1, {b: ISODate()}] }');
SELECT doc_bson('{ _id: ObjectId() }');
SELECT doc_valid('{ _id: ObjectId(), t: new Date() }');
SELECT doc_match('{ t: ISODate("2013-02-01") }', '{ t: {$lt: new Date()} }');
CREATE TABLE stored(x TEXT);
CREATE INDEX stored_a ON stored(doc_get(x, 'a'));
INSERT INTO stored VALUES ('{a: ObjectId("507f1f77bcf86cd799439011")}');
INSERT INTO stored VALUES ('{a: ObjectId()}');
SELECT count(*), (SELECT count(*) FROM stored WHERE doc_get(x, 'a') = '507f1f77bcf86cd799439011') FROM stored;
PRAGMA integrity_check;
SELECT doc_config('clock', NULL);
SELECT doc_config('clock', 'yesterday');
SELECT doc_config('colour');

-- 8. doc_each: mongodump BSON, JSON arrays, JSON Lines
-- (|| makes TEXT of BLOBs in SQLite: CAST it back)
SELECT doc_json(doc) FROM doc_each(CAST(doc_bson('{a: 1}') || doc_bson('{b: 2}') || doc_bson('{c: 3}') AS BLOB));
SELECT doc_json(doc) FROM doc_each('[ {a: 1}, {"b": 2}, { c: ObjectId("507f1f77bcf86cd799439011") }, ]');
SELECT doc_json(doc) FROM doc_each('{"a": 1}
{"b": 2}

{c: 3}');
SELECT count(*) FROM doc_each('[]');
SELECT count(*) FROM doc_each(NULL);
SELECT doc_json(doc) FROM doc_each(CAST(doc_bson('{a: 1}') || x'0a000000' AS BLOB));
SELECT doc_json(doc) FROM doc_each('[{a: 1}, 2]');
SELECT doc_json(doc) FROM doc_each('{a: 1}
{b: }');
CREATE VIRTUAL TABLE books USING docext;
INSERT INTO books(doc) SELECT doc FROM doc_each('[{_id: 1, t: "a"}, {_id: 2, t: "b"}]');
SELECT doc FROM books;

-- 9. Errors say what and where
SELECT doc_json('{a: 1');
SELECT doc_json('{a: 1}}');
SELECT doc_json('{
  a: 1,
  b: @
}');
SELECT doc_json(x'0c000000106100010000');
SELECT doc_json(x'0d0000000861000200000000');
SELECT doc_json(12);
SELECT doc_json(NULL) IS NULL;
SELECT doc_get('{a: [1, 2]', 'a');

-- 10. Dates at the edges: doc_get gives ISO-8601 text for every date, with
--     ISO's expanded years (a sign, at least six digits) outside 0000-9999
SELECT doc_get(d, 'a'), doc_get(d, 'b'), doc_get(d, 'c'), doc_get(d, 'e') FROM (SELECT
  '{a: ISODate("0000-01-01T00:00:00Z"), b: ISODate("9999-12-31T23:59:59.999Z"), c: new Date(-1), e: new Date(-86400001)}' AS d);
SELECT doc_get(d, 'a'), doc_get(d, 'b'), doc_get(d, 'c'), doc_get(d, 'e') FROM (SELECT
  '{a: new Date(-62167219200001), b: new Date(253402300800000), c: new Date(9223372036854775807), e: new Date(-9223372036854775808)}' AS d);
SELECT doc_json(d, 'shell') FROM (SELECT '{a: new Date(-62167219200001), b: new Date(9223372036854775807), c: new Date(-9223372036854775808)}' AS d);
SELECT doc_config('clock', -9223372036854775808), doc_config('clock', NULL);
-- offsets: +HH:MM, +HHMM, +HH; a colon needs its minutes
SELECT doc_get('{a: ISODate("2012-10-10T21:14:07+05:30")}', 'a'), doc_get('{a: ISODate("2012-10-10T21:14:07-0530")}', 'a'),
       doc_get('{a: ISODate("2012-10-10T21:14:07+05")}', 'a');
SELECT doc_get('{a: ISODate("2012-10-10T21:14:07+05:")}', 'a');

-- 11. doc_each reads text document by document: a JSON array may be larger
--     than one document may be, each element gets the full 100 levels, and
--     errors give the line and column in the whole text
SELECT count(*), sum(length(doc)) FROM doc_each('[' || (SELECT group_concat('{_id: ' || value || ', s: "' || printf('%.1000c', 'x') || '"}', ', ') FROM generate_series(1, 20000)) || ']');
SELECT length(doc) FROM doc_each('[{a: ' || printf('%.100c', '[') || printf('%.100c', ']') || '}]');
SELECT length(doc) FROM doc_each('{a: ' || printf('%.100c', '[') || printf('%.100c', ']') || '}');
SELECT length(doc) FROM doc_each('[{a: ' || printf('%.101c', '[') || printf('%.101c', ']') || '}]');
SELECT doc_json(doc) FROM doc_each(char(65279) || '[{a: 1}, /* two */ {b: 2}]');
SELECT doc_json(doc) FROM doc_each(char(65279) || '{a: 1}
{b: 2}');
SELECT doc_json(doc) FROM doc_each('{a: 1}
{b: 2}
{c: 3');
SELECT doc_json(doc) FROM doc_each('[
  {a: 1},
  2
]');
SELECT doc_json(doc) FROM doc_each('[
  {a: 1},
  {b: 2}
  {c: 3}
]');
SELECT doc_json(doc) FROM doc_each('[{a: 1}, {b: 2}');
SELECT doc_json(doc) FROM doc_each('[{a: 1}] // done
  x');
SELECT doc_json(doc) FROM doc_each('[{a: 1}, {b: 2},]');
SELECT doc_json(doc) FROM doc_each('[ /* nothing */ ]');
SELECT doc_json(doc) FROM doc_each('[,]');
SELECT doc_json(doc) FROM doc_each('  /* unterminated');

-- 12. Every mongo shell literal of INTERFACE.md §2, then each with bad
--     arguments: the error names the literal and points at the argument.
SELECT doc_config('clock', '2013-03-01T00:00:00Z');
SELECT doc_json('{ a: ObjectID(''507f1f77bcf86cd799439011''), b: ObjectId("507F1F77BCF86CD799439011"),
  c: new Date("2013-03-01"), d: new Date("2012-10-10"), e: ISODate("2013-03-01T00:00:00Z"), f: new Date(1349903647096), g: NumberInt(7),
  h: NumberInt("-8"), i: NumberLong("9223372036854775807"), j: NumberLong(-5), k: NumberDecimal("-0.00"),
  l: NumberDecimal(1.5), m: Timestamp(4294967295, 1), n: BinData(128, ""), o: UUID("00112233445566778899AABBCCDDEEFF"),
  p: /a\/b[/]c/imsx, q: undefined, r: NaN, s: -Infinity, t: Infinity, u: MinKey(), v: MaxKey,
  "w.x": true, y: false, z: null, $k: 1 }', 'canonical');
INSERT INTO clocked(doc) VALUES ('{ _id: 2, a: ObjectId(), c: new Date(), e: ISODate() }');
SELECT length(doc_get(doc, 'a')), substr(doc_get(doc, 'a'), 1, 8), doc_json(doc_project(bson, '{c: 1, e: 1, _id: 0}'), 'canonical')
  FROM clocked WHERE _id = 2;
SELECT doc_config('clock', NULL);
SELECT doc_json('{a: ObjectId(''xyz'')}');
SELECT doc_json('{a: ObjectId(''507f1f77bcf86cd79943901g'')}');
SELECT doc_json('{a: ObjectId(5)}');
SELECT doc_json('{
  a: ISODate("garbage")}');
SELECT doc_json('{a: ISODate("2012-02-30")}');
SELECT doc_json('{a: new Date(1e300)}');
SELECT doc_json('{a: NumberLong(''1e99'')}');
SELECT doc_json('{a: NumberLong("9223372036854775808")}');
SELECT doc_json('{a: NumberLong(1.5)}');
SELECT doc_json('{a: NumberInt(2147483648)}');
SELECT doc_json('{a: NumberDecimal("abc")}');
SELECT doc_json('{a: BinData(0, "AQI")}');
SELECT doc_json('{a: BinData(256, "AQID")}');
SELECT doc_json('{a: BinData(0)}');
SELECT doc_json('{a: UUID("0011")}');
SELECT doc_json('{a: Timestamp(4294967296, 0)}');
SELECT doc_json('{a: Timestamp(-1, 0)}');
SELECT doc_json('{a: Timestamp(1)}');
SELECT doc_json('{a: /x/g}');
SELECT doc_json('{a: /x}');
SELECT doc_json('{a: Foo(1)}');
SELECT doc_json('{a: new Date(}');
SELECT doc_json('{"a": {"$oid": 5}}');
SELECT doc_json('{"a": {"$date": "garbage"}}');
SELECT doc_json('{"a": {"$numberLong": "1e99"}}');
SELECT doc_json('{"a": {"$binary": {"base64": "AQ", "subType": "00"}}}');
SELECT doc_json('{"a": {"$timestamp": {"t": 4294967296, "i": 0}}}');
SELECT doc_json('{"a": {"$uuid": "0011"}}');
SELECT doc_json('{"a": {"$oid": "507f1f77bcf86cd799439011", "x": 1}}');

-- 13. doc_each of a BLOB that cannot be BSON and starts like JSON text
--     ('{' or '[', after white space or a BOM) reads it as text: readfile()
--     of a .json file gives a BLOB. Anything that could be BSON stays BSON.
SELECT doc_json(doc) FROM doc_each(CAST('[ {_id: 1, a: "x"}, {_id: 2, b: Long("5")} ]' AS BLOB));
SELECT doc_json(doc) FROM doc_each(CAST('  {_id: 1}
{_id: 2}' AS BLOB));
SELECT doc_json(doc) FROM doc_each(x'efbbbf' || CAST('{"a": 1}' AS BLOB));
SELECT doc_json(doc) FROM doc_each(CAST('{a: 1} {b:' AS BLOB));
SELECT doc_json(doc) FROM doc_each(x'7b613aff7d');
SELECT doc_json(doc) FROM doc_each(CAST('x: 1' AS BLOB));
SELECT doc_json(doc) FROM doc_each(x'0a0a');
-- a 123-byte BSON document begins with the byte '{' and is still BSON
SELECT length(doc), substr(hex(doc), 1, 2), doc_json(doc) = doc_json(doc_bson(doc)) FROM doc_each(doc_bson('{s: "' || printf('%.110c', 'x') || '"}'));
