-- Text indexes and $text: MongoDB's documented examples (terms, phrases,
-- negations, case and diacritic sensitivity, languages, text scores in
-- projections and sorts), the definitions and their errors, the strings an
-- index reads (weights, wildcards, embedded fields, arrays, per-document
-- languages), compound text indexes, bad queries, updates and deletes,
-- and doc_check after each step. Each answer through the index is checked
-- against the same query read by a collection scan ({$natural: 1}).
.load ./docext
.headers off
.mode list
.separator ' => '

CREATE VIRTUAL TABLE articles USING docext;
INSERT INTO articles(doc) VALUES
  ('{_id: 1, subject: "coffee", author: "xyz", views: 50}'),
  ('{_id: 2, subject: "Coffee Shopping", author: "efg", views: 5}'),
  ('{_id: 3, subject: "Baking a cake", author: "abc", views: 90}'),
  ('{_id: 4, subject: "baking", author: "xyz", views: 100}'),
  ('{_id: 5, subject: "Café Con Leche", author: "abc", views: 200}'),
  ('{_id: 6, subject: "Сырники", author: "jkl", views: 80}'),
  ('{_id: 7, subject: "coffee and cream", author: "efg", views: 10}'),
  ('{_id: 8, subject: "Cafe con Leche", author: "xyz", views: 10}');

.print -- a $text needs a text index
SELECT _id FROM articles WHERE filter = '{$text: {$search: "coffee"}}';
SELECT doc_match('{subject: "coffee"}', '{$text: {$search: "coffee"}}');

.print -- the index: MongoDB's key pattern, one entry per term of each document
SELECT doc_create_index('articles', '{subject: "text"}');
SELECT name, key, multikey, entries FROM doc_indexes('articles');
SELECT doc_create_index('articles', '{subject: "text"}');
SELECT doc_check('articles');

.print -- terms: any of them (stemmed, lower-cased, without diacritics)
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "coffee"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "bake coffee cake"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "bake coffee cake"}}' AND options = '{hint: {$natural: 1}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "CAFE"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "сырники"}}';
.print -- stop words are no terms
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "and a the"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: ""}}';
.print -- phrases, negations
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "\"coffee shop\""}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "\"coffee shop\""}}' AND options = '{hint: {$natural: 1}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "coffee -shop"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "coffee - shop"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "coffee -\"and cream\""}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "leche \"con leche\" -\"café\""}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "-coffee"}}';
.print -- case and diacritic sensitivity
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "Coffee", $caseSensitive: true}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "\"Café Con\"", $caseSensitive: true}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "CAFÉ", $diacriticSensitive: true}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "café", $diacriticSensitive: true}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "café", $diacriticSensitive: true}}' AND options = '{hint: {$natural: 1}}';
.print -- languages: "none" neither stems nor drops stop words
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "baking", $language: "none"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "baking", $language: "en"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "leche", $language: "spanish"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "leche", $language: "klingon"}}';

.print -- text scores: in the projection and the sort (the highest first)
SELECT doc FROM articles WHERE filter = '{$text: {$search: "coffee"}}'
  AND projection = '{_id: 1, score: {$meta: "textScore"}}' AND sort = '{score: {$meta: "textScore"}, _id: 1}';
SELECT doc FROM articles WHERE filter = '{$text: {$search: "cake baking coffee"}}'
  AND projection = '{score: {$meta: "textScore"}, author: 0, views: 0}' AND sort = '{score: {$meta: "textScore"}, _id: -1}' LIMIT 3;
SELECT doc FROM articles WHERE filter = '{$text: {$search: "coffee"}}'
  AND projection = '{views: 1, score: {$meta: "textScore"}}' AND sort = '{views: -1, score: {$meta: "textScore"}}';
SELECT doc FROM articles WHERE filter = '{$text: {$search: "coffee"}}' AND projection = '{subject: {$meta: "textScore"}}' AND sort = '{_id: 1}';
SELECT doc FROM articles WHERE filter = '{views: 10}' AND projection = '{score: {$meta: "textScore"}}';
SELECT doc FROM articles WHERE filter = '{views: 10}' AND sort = '{score: {$meta: "textScore"}}';
SELECT doc FROM articles WHERE filter = '{$text: {$search: "coffee"}}' AND projection = '{score: {$meta: "searchScore"}}';
SELECT doc FROM articles WHERE filter = '{$text: {$search: "coffee"}}' AND projection = '{"a.b": {$meta: "textScore"}}';
SELECT doc FROM articles WHERE filter = '{$text: {$search: "coffee"}}' AND sort = '{a: {$meta: "textScore"}, b: {$meta: "textScore"}}';
SELECT doc_project('{a: 1}', '{score: {$meta: "textScore"}}');

.print -- counts, explain, $or
SELECT doc_count('articles', '{$text: {$search: "coffee cake"}}');
SELECT doc_count('articles', '{$text: {$search: "coffee"}, views: {$gt: 5}}');
SELECT json_extract(doc_explain('articles', '{$text: {$search: "coffee cake"}}'), '$.cursor', '$.n', '$.nscanned', '$.indexBounds');
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$or: [{$text: {$search: "leche"}}, {views: 100}]}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$and: [{$text: {$search: "coffee"}}, {author: "efg"}]}';
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee"}}}, {$group: {_id: "$author", n: {$sum: 1}}}, {$sort: {_id: 1}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee cake"}}}, {$sort: {s: {$meta: "textScore"}, _id: 1}}, {$project: {subject: 1}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee"}}}, {$project: {subject: 1}}, {$sort: {s: {$meta: "textScore"}}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {views: {$gt: 1}}}, {$match: {$text: {$search: "coffee"}}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee"}}}, {$project: {s: {$meta: "textScore"}}}, {$sort: {s: -1, _id: 1}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee cake"}}}, {$addFields: {s: {$meta: "textScore"}}}, {$match: {s: {$gte: 1}}}, {$project: {author: 0, views: 0}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee"}}}, {$project: {subject: 1}}, {$sort: {s: {$meta: "textScore"}, _id: -1}}, {$limit: 2}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee"}}}, {$group: {_id: "$author", s: {$sum: {$meta: "textScore"}}, d: {$push: "$$ROOT"}}}, {$sort: {_id: 1}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee"}}}, {$facet: {best: [{$sort: {s: {$meta: "textScore"}}}, {$limit: 1}, {$project: {_id: 1}}]}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee"}}}, {$replaceRoot: {newRoot: {a: "$author"}}}, {$sort: {s: {$meta: "textScore"}, a: 1}}, {$addFields: {s: {$meta: "textScore"}}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee"}}}, {$group: {_id: "$author"}}, {$project: {s: {$meta: "textScore"}}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {views: 10}}, {$project: {s: {$meta: "textScore"}}}]');
SELECT doc FROM doc_aggregate('articles', '[{$match: {$text: {$search: "coffee"}}}, {$project: {s: {$meta: "indexKey"}}}]');
SELECT doc_update('{a: 1}', '[{$set: {s: {$meta: "textScore"}}}]');

.print -- bad $text
SELECT _id FROM articles WHERE filter = '{$text: "coffee"}';
SELECT _id FROM articles WHERE filter = '{$text: {}}';
SELECT _id FROM articles WHERE filter = '{$text: {$search: 5}}';
SELECT _id FROM articles WHERE filter = '{$text: {$search: "a", $caseSensitive: 1}}';
SELECT _id FROM articles WHERE filter = '{$text: {$search: "a", $diacriticSensitive: "yes"}}';
SELECT _id FROM articles WHERE filter = '{$text: {$search: "a", $fuzzy: true}}';
SELECT _id FROM articles WHERE filter = '{$text: {$search: "a", $language: 3}}';
SELECT _id FROM articles WHERE filter = '{$nor: [{$text: {$search: "coffee"}}]}';
SELECT _id FROM articles WHERE filter = '{tags: {$elemMatch: {$text: {$search: "coffee"}}}}';
SELECT _id FROM articles WHERE filter = '{$and: [{$text: {$search: "a"}}, {$text: {$search: "b"}}]}';
SELECT _id FROM articles WHERE filter = '{subject: {$text: {$search: "coffee"}}}';

.print -- definitions and their errors
SELECT doc_create_index('articles', '{author: "text"}');
SELECT doc_create_index('articles', '{subject: "text"}', '{weights: {subject: 2}}');
SELECT doc_create_index('articles', '{subject: "text"}', '{name: "other"}');
CREATE VIRTUAL TABLE defs USING docext;
SELECT doc_create_index('defs', '{a: "text"}', '{unique: true}');
SELECT doc_create_index('defs', '{a: "text"}', '{expireAfterSeconds: 10}');
SELECT doc_create_index('defs', '{a: "text", b: "hashed"}');
SELECT doc_create_index('defs', '{a: "text", b: "2dsphere"}');
SELECT doc_create_index('defs', '{a: "text", b: 1, c: "text"}');
SELECT doc_create_index('defs', '{a: "text", a: "text"}');
SELECT doc_create_index('defs', '{a: "text"}', '{weights: {a: 0}}');
SELECT doc_create_index('defs', '{a: "text"}', '{weights: {a: 100000}}');
SELECT doc_create_index('defs', '{a: "text"}', '{weights: {a: 0.5}}');
SELECT doc_create_index('defs', '{a: "text"}', '{weights: {a: "high"}}');
SELECT doc_create_index('defs', '{a: "text"}', '{weights: "all"}');
SELECT doc_create_index('defs', '{a: "text"}', '{weights: {"$b": 2}}');
SELECT doc_create_index('defs', '{a: "text"}', '{default_language: "fr-FR"}');
SELECT doc_create_index('defs', '{a: "text"}', '{default_language: "klingon"}');
SELECT doc_create_index('defs', '{a: "text"}', '{default_language: 1}');
SELECT doc_create_index('defs', '{a: "text"}', '{language_override: "$lang"}');
SELECT doc_create_index('defs', '{a: "text"}', '{language_override: "a.b"}');
SELECT doc_create_index('defs', '{a: "text"}', '{textIndexVersion: 2}');
SELECT doc_create_index('defs', '{a: 1}', '{weights: {a: 2}}');
SELECT doc_create_index('defs', '{a: 1}', '{default_language: "none"}');
SELECT * FROM doc_indexes('defs');
SELECT doc_create_index('defs', '{a: "text"}', '{weights: {b: 3, "c.d": 2.5}, default_language: "none", language_override: "lang", textIndexVersion: 3, name: "t"}');
SELECT name, key, entries FROM doc_indexes('defs');
SELECT doc_drop_index('defs', 't');
SELECT doc_create_index('defs', '{"$**": "text"}');
SELECT name, key FROM doc_indexes('defs');

.print -- which strings: weights, embedded fields, arrays, per-document languages
CREATE VIRTUAL TABLE notes USING docext;
SELECT doc_create_index('notes', '{title: "text", "meta.tags": "text"}', '{weights: {title: 10.9}}');
INSERT INTO notes(doc) VALUES
  ('{_id: 1, title: "Rivers", meta: {tags: ["water", "nature"]}}'),
  ('{_id: 2, title: "water", body: "rivers and lakes"}'),
  ('{_id: 3, title: ["lakes", ["rivers"]], meta: [{tags: "rivers"}, {tags: ["water"]}]}'),
  ('{_id: 4, title: "Los ríos", language: "none", meta: {tags: "agua", language: "english"}}'),
  ('{_id: 5, title: "the and of"}'),
  ('{_id: 6, title: 42, meta: {tags: {nested: "water"}}}'),
  ('{_id: 7, title: "running runners run"}');
SELECT doc_check('notes');
SELECT name, entries FROM doc_indexes('notes');
SELECT doc FROM notes WHERE filter = '{$text: {$search: "water"}}' AND projection = '{_id: 1, score: {$meta: "textScore"}}' AND sort = '{score: {$meta: "textScore"}}';
SELECT doc FROM notes WHERE filter = '{$text: {$search: "rivers"}}' AND projection = '{_id: 1, score: {$meta: "textScore"}}' AND sort = '{score: {$meta: "textScore"}}';
SELECT doc FROM notes WHERE filter = '{$text: {$search: "run"}}' AND projection = '{_id: 1, score: {$meta: "textScore"}}';
SELECT group_concat(_id, ',') FROM notes WHERE filter = '{$text: {$search: "ríos"}}';
SELECT group_concat(_id, ',') FROM notes WHERE filter = '{$text: {$search: "rios", $language: "none"}}';
SELECT group_concat(_id, ',') FROM notes WHERE filter = '{$text: {$search: "agua"}}';
.print -- a bad language override changes nothing
INSERT INTO notes(doc) VALUES ('{_id: 8, title: "x", language: "klingon"}');
INSERT INTO notes(doc) VALUES ('{_id: 8, title: "x", language: 7}');
INSERT INTO notes(doc) VALUES ('{_id: 8, title: "x", meta: {language: "elvish", tags: "y"}}');
SELECT count(*) FROM notes;
SELECT doc_check('notes');

.print -- wildcard: every string; the override field is no text
CREATE VIRTUAL TABLE everything USING docext;
INSERT INTO everything(doc) VALUES
  ('{_id: 1, a: "alpha", b: {c: ["beta", ["gamma"]]}, language: "english"}'),
  ('{_id: 2, x: [{y: "delta"}], z: 5}'),
  ('{_id: 3, q: "english"}');
SELECT doc_create_index('everything', '{"$**": "text"}', '{weights: {a: 5}}');
SELECT doc FROM everything WHERE filter = '{$text: {$search: "alpha beta gamma delta english"}}' AND projection = '{_id: 1, s: {$meta: "textScore"}}' AND sort = '{_id: 1}';
SELECT doc_check('everything');

.print -- compound: fields before and after the text
CREATE VIRTUAL TABLE posts USING docext;
SELECT doc_create_index('posts', '{lang: 1, body: "text", year: -1}');
INSERT INTO posts(doc) VALUES
  ('{_id: 1, lang: "en", body: "fast cars", year: 2020}'),
  ('{_id: 2, lang: "fr", body: "fast trains", year: 2021}'),
  ('{_id: 3, body: "fast boats", year: 2022}'),
  ('{_id: 4, lang: "en", body: "slow cars"}');
SELECT name, key, entries FROM doc_indexes('posts');
SELECT group_concat(_id, ',') FROM posts WHERE filter = '{lang: "en", $text: {$search: "fast"}}';
SELECT json_extract(doc_explain('posts', '{lang: "en", $text: {$search: "fast cars"}}'), '$.cursor', '$.nscanned', '$.indexBounds');
SELECT group_concat(_id, ',') FROM posts WHERE filter = '{lang: null, $text: {$search: "fast"}}';
SELECT group_concat(_id, ',') FROM posts WHERE filter = '{$text: {$search: "fast"}}';
INSERT INTO posts(doc) VALUES ('{_id: 5, lang: ["en", "fr"], body: "x"}');
INSERT INTO posts(doc) VALUES ('{_id: 5, lang: "en", body: "x", year: [1, 2]}');
SELECT doc_update_many('posts', '{}', '{$inc: {views: 1}}');
SELECT doc_update_one('posts', '{_id: 4}', '{$set: {year: 2019}}');
SELECT doc_update_one('posts', '{_id: 2}', '{$set: {lang: "en"}}');
SELECT doc_update_one('posts', '{_id: 1}', '{$set: {year: [2020]}}');
SELECT json_extract(doc_explain('posts', '{lang: "en", $text: {$search: "fast"}}'), '$.n');
SELECT group_concat(_id, ',') FROM posts('{lang: "en", $text: {$search: "fast"}}', NULL, '{year: -1}');
SELECT doc_check('posts');

.print -- a partial text index finds the documents its filter takes, by the index or a scan
CREATE VIRTUAL TABLE part USING docext;
INSERT INTO part(doc) VALUES ('{_id: 1, t: "coffee", ok: true}'), ('{_id: 2, t: "coffee", ok: false}'), ('{_id: 3, t: "coffee"}');
SELECT doc_create_index('part', '{t: "text"}', '{partialFilterExpression: {ok: true}}');
SELECT group_concat(_id, ',') FROM part WHERE filter = '{$text: {$search: "coffee"}}';
SELECT group_concat(_id, ',') FROM part WHERE filter = '{$text: {$search: "coffee"}}' AND options = '{hint: {$natural: 1}}';
SELECT json_extract(doc_explain('part', '{$text: {$search: "coffee"}, ok: true}'), '$.cursor');
SELECT doc_count('part', '{$text: {$search: "coffee"}}');
.print -- updates that leave the strings alone keep the entries; the filter's answer still counts
SELECT doc_update_many('part', '{}', '{$inc: {n: 1}}');
SELECT doc_update_one('part', '{_id: 2}', '{$set: {ok: true}}');
SELECT doc_update_one('part', '{_id: 1}', '{$set: {ok: false}}');
SELECT doc_update_one('part', '{_id: 3}', '{$set: {language: "french", "x.language": "english"}}');
SELECT group_concat(_id, ',') FROM part WHERE filter = '{$text: {$search: "coffee"}}';
SELECT entries FROM doc_indexes('part') WHERE name = 't_text';
SELECT doc_update_one('part', '{_id: 2}', '{$set: {language: "klingon"}}');
SELECT doc_update_one('part', '{_id: 2}', '{$set: {language: "fr"}}');
SELECT doc_update_one('part', '{_id: 2}', '{$set: {t: "café noir"}}');
SELECT group_concat(_id, ',') FROM part WHERE filter = '{$text: {$search: "noir", $language: "fr"}}';
SELECT doc_check('part');

.print -- writes keep the index current
UPDATE articles SET doc = doc_update(bson, '{$set: {subject: "Tea Shopping"}}') WHERE _id = 2;
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "coffee"}}';
SELECT group_concat(_id, ',') FROM articles WHERE filter = '{$text: {$search: "tea shop"}}';
SELECT doc_update_many('articles', '{$text: {$search: "leche"}}', '{$inc: {views: 1}}');
SELECT doc_delete_many('articles', '{$text: {$search: "bake"}}');
SELECT group_concat(_id, ',') FROM articles;
SELECT doc_check('articles');
SELECT doc_drop_index('articles', 'subject_text');
SELECT _id FROM articles WHERE filter = '{$text: {$search: "coffee"}}';

.print -- commands: a sort by score, and the score in find_and_modify's fields
CREATE VIRTUAL TABLE cmds USING docext;
INSERT INTO cmds(doc) VALUES ('{_id: 1, t: "coffee"}'), ('{_id: 2, t: "coffee coffee tea"}'), ('{_id: 3, t: "tea"}');
SELECT doc_create_index('cmds', '{t: "text"}');
SELECT doc_update_one('cmds', '{$text: {$search: "coffee"}}', '{$set: {best: true}}', '{sort: {s: {$meta: "textScore"}}}');
SELECT group_concat(_id, ',') FROM cmds('{best: true}');
SELECT doc_find_and_modify('cmds', '{query: {$text: {$search: "tea coffee"}}, sort: {s: {$meta: "textScore"}}, update: {$inc: {n: 1}}, new: true, fields: {t: 1, s: {$meta: "textScore"}}}');
SELECT doc_find_and_modify('cmds', '{update: {$inc: {n: 1}}, fields: {s: {$meta: "textScore"}}}');
SELECT doc_delete_one('cmds', '{$text: {$search: "tea -coffee"}}');
SELECT group_concat(_id, ',') FROM cmds;
SELECT doc_check('cmds');

.print -- a text field cannot be in a shard key
SELECT doc_analyze_shard_key('articles', '{subject: "text"}');

.print -- a sharded collection: each partition has the text index; the router merges by score
ATTACH ':memory:' AS s1;
ATTACH ':memory:' AS s2;
CREATE VIRTUAL TABLE arts USING docext;
SELECT doc_add_shard('s1'), doc_add_shard('s2');
SELECT doc_create_index('arts', '{subject: "text"}');
SELECT doc_shard_collection('arts', '{_id: "hashed"}');
WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v+1 FROM n WHERE v<40)
INSERT INTO arts(doc) SELECT json_object('_id', v, 'subject',
  CASE v%4 WHEN 0 THEN 'coffee coffee' WHEN 1 THEN 'coffee and tea' WHEN 2 THEN 'tea time' ELSE 'cake' END) FROM n;
SELECT count(*) FROM arts WHERE filter = '{$text: {$search: "coffee"}}';
SELECT doc FROM arts WHERE filter = '{$text: {$search: "coffee tea"}}'
  AND projection = '{_id: 1, s: {$meta: "textScore"}}' AND sort = '{s: {$meta: "textScore"}, _id: -1}' LIMIT 4;
SELECT doc FROM arts WHERE filter = '{$text: {$search: "time"}}'
  AND projection = '{_id: 1, s: {$meta: "textScore"}}' AND sort = '{_id: 1}' LIMIT 3;
SELECT doc_count('arts', '{$text: {$search: "cake"}}');
SELECT (SELECT count(*) FROM s1.arts('{$text: {$search: "cake"}}')) + (SELECT count(*) FROM s2.arts('{$text: {$search: "cake"}}'));
SELECT doc_check('arts');
.print -- MongoDB's 15 languages: Snowball's stemmers and stop words
CREATE VIRTUAL TABLE langs USING docext;
SELECT doc_create_index('langs', '{t: "text"}', '{default_language: "french"}');
INSERT INTO langs(doc) VALUES
  ('{_id: 1, t: "Les chevaux mangent des pommes dans l''écurie"}'),
  ('{_id: 2, t: "Die Häuser sind groß und alt", language: "german"}'),
  ('{_id: 3, t: "Los niños corrían por las calles", language: "es"}'),
  ('{_id: 4, t: "Это были интересные книги", language: "russian"}'),
  ('{_id: 5, t: "İstanbul ILIK bir şehir", language: "turkish"}'),
  ('{_id: 6, t: "Copiii citesc cărțile și", language: "romanian"}'),
  ('{_id: 7, t: "Bøgerne ligger på bordet", language: "danish"}'),
  ('{_id: 8, t: "Kirjat ovat pöydällä", language: "fi"}'),
  ('{_id: 9, t: "I libri sono sul tavolo", language: "italian"}'),
  ('{_id: 10, t: "De boeken liggen op de tafels", language: "dutch"}'),
  ('{_id: 11, t: "A könyvek az asztalon vannak", language: "hungarian"}'),
  ('{_id: 12, t: "Bøkene ligger på bordene", language: "norwegian"}'),
  ('{_id: 13, t: "Os livros estão nas mesas", language: "portuguese"}'),
  ('{_id: 14, t: "Böckerna ligger på borden", language: "swedish"}'),
  ('{_id: 15, t: "The horses were eating apples", language: "english"}'),
  ('{_id: 16, t: "les chevaux", language: "none"}');
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "cheval"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "écuries"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "Haus", $language: "de"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "niño calle", $language: "spanish"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "книга", $language: "russian"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "istanbul", $language: "turkish"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "ılık", $language: "turkish"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "ilik", $language: "turkish"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "\"ılık bir\"", $language: "turkish", $caseSensitive: true}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "și", $language: "romanian"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "bøger", $language: "danish"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "kirja", $language: "finnish"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "libro", $language: "it"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "tafel", $language: "nl"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "könyv", $language: "hu"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "bord", $language: "nb"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "mesa", $language: "pt"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "böcker", $language: "sv"}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "horse apple", $language: "english"}}';
.print -- a phrase compares in each string's language; an empty $language is the index's
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "\"ılık bir\"", $language: "english"}}';
INSERT INTO langs(doc) VALUES ('{_id: 17, t: "ILIK su", language: "english"}'), ('{_id: 18, t: "ILIK su", language: "turkish"}');
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "su \"ılık\"", $language: "turkish", $caseSensitive: true}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "su \"ılık\"", $language: "turkish", $caseSensitive: true}}' AND options = '{hint: {$natural: 1}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "chevaux", $language: ""}}';
DELETE FROM langs WHERE _id IN (17, 18);
.print -- stop words: none in a search of them alone, in each language
SELECT count(*) FROM langs WHERE filter = '{$text: {$search: "des dans"}}';
SELECT count(*) FROM langs WHERE filter = '{$text: {$search: "und sind", $language: "german"}}';
SELECT count(*) FROM langs WHERE filter = '{$text: {$search: "los por las", $language: "spanish"}}';
SELECT count(*) FROM langs WHERE filter = '{$text: {$search: "были", $language: "russian"}}';
SELECT count(*) FROM langs WHERE filter = '{$text: {$search: "the were", $language: "english"}}';
.print -- the same answers by a scan; the terms of each document
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "cheval écurie"}}' AND options = '{hint: {$natural: 1}}';
SELECT group_concat(_id, ',') FROM langs WHERE filter = '{$text: {$search: "книга", $language: "russian"}}' AND options = '{hint: {$natural: 1}}';
SELECT _id, doc FROM langs('{$text: {$search: "ligger"}}', '{_id: 1, s: {$meta: "textScore"}}') ORDER BY _id;
SELECT doc_check('langs');
.print -- $lookup and $unionWith pipelines that read a collection with a text index: $text first, scores after
CREATE VIRTUAL TABLE one USING docext;
INSERT INTO one(doc) VALUES ('{_id: 1}');
SELECT doc FROM doc_aggregate('one', '[{$lookup: {from: "cmds", pipeline: [{$match: {$text: {$search: "coffee tea"}}},
  {$project: {s: {$meta: "textScore"}}}, {$sort: {s: -1, _id: 1}}], as: "found"}}]');
SELECT doc FROM doc_aggregate('one', '[{$unionWith: {coll: "langs", pipeline: [{$match: {$text: {$search: "ligger"}}},
  {$sort: {s: {$meta: "textScore"}, _id: 1}}, {$project: {_id: 1}}]}}]');
SELECT doc FROM doc_aggregate('one', '[{$unionWith: {coll: "langs", pipeline: [{$match: {_id: 1}}, {$project: {s: {$meta: "textScore"}}}]}}]');
.print -- explain shows the terms and phrases a search became
SELECT json_extract(doc_explain('langs', '{$text: {$search: "Les chevaux -pommes \"L''Écurie\" -\"des arbres\""}}'), '$.parsedTextQuery');
SELECT json_extract(doc_explain('langs', '{$text: {$search: "ILIK \"ILIK\"", $language: "tr", $caseSensitive: true}}'), '$.parsedTextQuery');
SELECT json_extract(doc_explain('langs', '{_id: 1}'), '$.parsedTextQuery');
SELECT json_extract(doc_explain('arts', '{$text: {$search: "coffee -cake"}}'), '$.clusteredType', '$.parsedTextQuery');
