-- examples/library.sql — docext on a library web application (the books,
-- authors and reviews of ../shared/SCENARIOS.md A), in the sqlite3 shell.
--
--   make demo                                  (builds docext.so first)
--   sqlite3 :memory: < examples/library.sql    (from the repository root)
--
-- One statement that fails on purpose (a duplicate _id) shows docext's
-- duplicate-key error; everything else succeeds.

.load ./docext
.headers on
.echo on

-- ---------------------------------------------------------------------------
-- Collections are virtual tables. Each keeps its documents as BSON in its own
-- shadow tables, in this database file, with a unique index on _id.
CREATE VIRTUAL TABLE authors USING docext;
CREATE VIRTUAL TABLE books USING docext;

-- Documents go in as text: strict JSON, Extended JSON, or pasted straight from
-- the mongo shell with unquoted keys, single quotes (doubled inside an SQL
-- string), comments and trailing commas.
INSERT INTO authors(doc) VALUES
  ('{ _id: 1, first_name: "F. Scott", last_name: "Fitzgerald" }'),
  ('{ "_id": 2, "first_name": "Ernest", "last_name": "Hemingway" }'),
  ('{ first_name: ''Virginia'', last_name: ''Woolf'', }');     -- no _id

-- A document without _id gets a new ObjectId, stored as its first field.
SELECT _id, doc FROM authors;

-- A book, linked to its author by _id (author: 1).
INSERT INTO books(doc) VALUES ('{
  _id: 1,
  title: "The Great Gatsby",
  slug: "9781857150193-the-great-gatsby",
  author: 1,                           // authors._id
  available: true,
  isbn: "9781857150193",
  pages: 176,
  publisher: {
    name: "Everyman''s Library",
    date: ISODate("1991-09-19T00:00:00Z"),
    city: "London"
  },
  subjects: ["Love stories", "1920s", "Jazz Age"],
  language: "English",
  reviews: [
    { user: 1, text: "One of the best…" },
    { user: 2, text: "It''s hard to…" }
  ]
}');

-- Another, with the author embedded ("cached") instead of linked, and typed
-- values as the shell writes them: NumberLong, ObjectId, NumberDecimal.
INSERT INTO books(doc) VALUES ('{
  _id: 2,
  title: "The Sun Also Rises",
  slug: "9780743297332-the-sun-also-rises",
  author: { first_name: "Ernest", last_name: "Hemingway" },
  available: false,
  isbn: "9780743297332",
  pages: NumberLong(251),
  price: NumberDecimal("17.00"),
  publisher: { name: "Scribner", date: ISODate("1926-10-22T00:00:00Z"), city: "New York" },
  subjects: ["1920s", "Lost Generation"],
  language: "English",
  reviews: [
    { _id: ObjectId("507f1f77bcf86cd799439011"), user: 1, text: "Bulls and bars." }
  ]
}');

-- ---------------------------------------------------------------------------
-- Reading. The doc column is relaxed Extended JSON, in document order.
SELECT doc FROM books;

-- By _id, through the _id index.
SELECT doc FROM books WHERE _id = 1;

-- doc_get reads a dotted path: numbers and strings as SQL values, dates as
-- ISO-8601 text, documents and arrays as JSON.
.mode box
SELECT _id,
       doc_get(doc, 'title')          AS title,
       doc_get(doc, 'publisher.name') AS publisher,
       doc_get(doc, 'publisher.date') AS published,
       doc_get(doc, 'reviews.0.user') AS first_reviewer,
       doc_get(doc, 'subjects')       AS subjects
FROM books;

-- doc_type names the BSON type as MongoDB's $type does. The hidden bson
-- column is lossless: pages is still a 64-bit integer ("long") there, while
-- the JSON text of doc cannot tell it from a 32-bit one ("int").
SELECT doc_type(bson, 'pages')          AS "pages in bson",
       doc_type(doc, 'pages')           AS "pages in doc",
       doc_type(bson, 'price')          AS price,
       doc_type(bson, 'publisher.date') AS "publisher.date",
       doc_type(bson, 'reviews.0._id')  AS "review _id",
       doc_type(bson, 'no.such.field')  AS missing
FROM books WHERE _id = 2;
.mode list

-- The same document as the mongo shell would print it.
SELECT doc_json(bson, 'shell') FROM books WHERE _id = 2;

-- doc is JSON text, so SQLite's own JSON functions work on it.
SELECT doc ->> '$.title' AS title, json_array_length(doc, '$.reviews') AS reviews
FROM books;

-- Embed or link: an application-level join on the linked author. The book
-- with the embedded author already carries the name.
.mode box
SELECT doc_get(b.doc, 'title') AS title,
       coalesce(doc_get(a.doc, 'last_name'),
                doc_get(b.doc, 'author.last_name')) AS author
FROM books AS b LEFT JOIN authors AS a ON a._id = doc_get(b.doc, 'author');
.mode list

-- MongoDB's aggregation pipeline: the subjects of the books, with how many
-- books each, most first; and each user's reviews, with the books' titles.
SELECT doc FROM doc_aggregate('books', '[
  { $unwind: "$subjects" },
  { $sortByCount: "$subjects" }
]');
SELECT doc FROM doc_aggregate('books', '[
  { $unwind: "$reviews" },
  { $group: { _id: "$reviews.user", reviews: { $sum: 1 }, books: { $push: "$title" } } }
]');
-- The longest book in each language, and each book's first two reviewers
-- ($top and $firstN: the accumulators of n values).
SELECT doc FROM doc_aggregate('books', '[
  { $group: { _id: "$language", longest: { $top: { sortBy: { pages: -1 }, output: "$title" } } } }
]');
SELECT doc FROM doc_aggregate('books', '[
  { $unwind: "$reviews" },
  { $group: { _id: "$title", first: { $firstN: { n: 2, input: "$reviews.user" } } } }
]');

-- ---------------------------------------------------------------------------
-- Writing. An UPDATE that sets doc replaces the whole document; one that
-- leaves out _id keeps the old _id.
UPDATE books SET doc = '{ title: "The Great Gatsby", author: 1, pages: 180, available: false }'
WHERE _id = 1;
SELECT doc FROM books WHERE _id = 1;

-- A duplicate _id fails the statement, in MongoDB's words, and changes
-- nothing.
INSERT INTO books(doc) VALUES ('{ _id: 1, title: "Another Gatsby" }');
SELECT count(*) AS books FROM books;

-- INSERT OR IGNORE skips the duplicate; INSERT OR REPLACE replaces the
-- document with that _id.
INSERT OR IGNORE INTO books(doc) VALUES ('{ _id: 1, title: "Ignored" }');
INSERT OR REPLACE INTO books(doc) VALUES ('{ _id: 2, title: "The Sun Also Rises", author: 2, pages: 251 }');
SELECT doc FROM books;

DELETE FROM books WHERE _id = 1;
SELECT _id FROM books;

-- ---------------------------------------------------------------------------
-- doc_each turns a JSON array (or JSON Lines, or a mongodump .bson file) into
-- one BSON document per row; doc_json shows them as text.
SELECT doc_json(doc) FROM doc_each('[
  { _id: 3, title: "Mrs Dalloway", published: ISODate("1925-05-14T00:00:00Z") },
  { _id: 4, title: "Tender Is the Night", author: 1, pages: NumberInt(317) }
]');

-- ... which makes a bulk import one statement.
INSERT INTO books(doc)
  SELECT doc FROM doc_each('[ { _id: 3, title: "Mrs Dalloway" },
                              { _id: 4, title: "Tender Is the Night", author: 1 } ]');
SELECT doc FROM books;
