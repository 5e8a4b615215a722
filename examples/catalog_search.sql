-- Catalog search: the library's search box. One text index reads each
-- book's title, subjects and reviews, the title weighing most; a search
-- finds the books with any of its words (stemmed: "gardens" finds
-- "garden"), a "quoted phrase" must appear as it is, a -word must not, and
-- the best matches come first by their text score. Each book's words are
-- read in the language its "language" field names (English unless it
-- names another), as in MongoDB.
-- Run: sqlite3 < examples/catalog_search.sql
.load ./docext
.headers off
.mode list
.echo on

CREATE VIRTUAL TABLE catalog USING docext;
INSERT INTO catalog(doc) VALUES
  ('{ _id: 1, title: "The Great Gatsby", language: "English",
      subjects: ["Jazz Age", "Long Island", "Wealth"],
      reviews: [{ user: 1, text: "The parties and the green light across the bay." },
                { user: 2, text: "A tragedy of wealth and dreams." }] }'),
  ('{ _id: 2, title: "The Secret Garden", language: "English",
      subjects: ["Gardens", "Orphans", "Yorkshire"],
      reviews: [{ user: 3, text: "A locked garden, a robin and a key." }] }'),
  ('{ _id: 3, title: "Gardening for Beginners", language: "English",
      subjects: ["Gardening", "Vegetables"],
      reviews: [{ user: 1, text: "Practical: soil, seeds and a lot of patience." }] }'),
  ('{ _id: 4, title: "Le Petit Prince", language: "French",
      subjects: ["Fables", "Roses"],
      reviews: [{ user: 4, text: "On ne voit bien qu''avec le cœur." },
                { user: 5, text: "Des moutons, des roses, pas de chevaux." }] }'),
  ('{ _id: 5, title: "Tender Is the Night", language: "English",
      subjects: ["Jazz Age", "Riviera"],
      reviews: [{ user: 2, text: "Wealth, parties and a slow fall." }] }');

SELECT doc_create_index('catalog', '{ title: "text", subjects: "text", "reviews.text": "text" }',
                        '{ weights: { title: 10, subjects: 5 }, name: "catalog_search" }');

-- Any of the words, best first.
SELECT doc FROM catalog WHERE filter = '{ $text: { $search: "gardens party" } }'
  AND projection = '{ title: 1, score: { $meta: "textScore" } }'
  AND sort = '{ score: { $meta: "textScore" } }';

-- A phrase, and a word left out.
SELECT _id, doc_get(doc, 'title') FROM catalog('{ $text: { $search: "\"jazz age\" -tender" } }');

-- The search box with a filter beside it, and the top 2.
SELECT doc FROM catalog WHERE filter = '{ $text: { $search: "wealth garden" }, _id: { $lt: 5 } }'
  AND projection = '{ title: 1, score: { $meta: "textScore" } }'
  AND sort = '{ score: { $meta: "textScore" } }' LIMIT 2;

-- Le Petit Prince is read in French: its review's "chevaux" is the French
-- term "cheval", which a French search for "chevaux" finds; an English
-- search (the index's language) looks for "chevaux" and does not.
SELECT _id FROM catalog('{ $text: { $search: "chevaux", $language: "french" } }');
SELECT _id FROM catalog('{ $text: { $search: "chevaux" } }');

-- How many books mention wealth, read from the index alone.
SELECT doc_count('catalog', '{ $text: { $search: "wealth" } }');
SELECT json_extract(doc_explain('catalog', '{ $text: { $search: "wealth" } }'), '$.cursor');
SELECT doc_check('catalog');
