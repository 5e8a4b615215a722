-- Several identities (SCENARIOS.md D): a user who signs in by email,
-- Facebook or LinkedIn. Either one document per user with an index per
-- identity, or one document per identity pointing at its user.
-- (Sharding either layout waits for INTERFACE.md §6.) Last, emails compared
-- without case, through an index with a collation.
-- Run: sqlite3 < examples/identities.sql
.load ./docext
.headers off
.mode list
.echo on

-- 1. one document per user, a unique sparse index on each identity (a user
-- may lack one; sparse keeps those users out of the index, so they do not
-- collide as nulls)
CREATE VIRTUAL TABLE users USING docext;
SELECT doc_create_index('users', '{ email: 1 }', '{ unique: true, sparse: true }');
SELECT doc_create_index('users', '{ fb: 1 }', '{ unique: true, sparse: true }');
SELECT doc_create_index('users', '{ li: 1 }', '{ unique: true, sparse: true }');
INSERT INTO users(doc) VALUES
  ('{ _id: "1200-42", name: "Joe", email: "joe@abc.com", fb: "joe.abc", li: "joeabc" }'),
  ('{ _id: "1200-43", name: "Ann", email: "ann@abc.com", li: "annabc" }'),
  ('{ _id: "1200-44", name: "Bob", fb: "bob.b" }');
-- a lookup by any identity is one indexed read
SELECT doc_get(doc, 'name') FROM users('{ email: "joe@abc.com" }');
SELECT doc_get(doc, 'name') FROM users('{ fb: "bob.b" }');
SELECT json_extract(doc_explain('users', '{ li: "annabc" }'), '$.cursor', '$.n', '$.nscanned');
-- signing in with "any of them": $or becomes a union of index scans
SELECT group_concat(_id, ' ') FROM users('{ $or: [ { email: "bob@abc.com" }, { fb: "bob.b" } ] }');
SELECT json_extract(doc_explain('users', '{ $or: [ { email: "bob@abc.com" }, { fb: "bob.b" } ] }'),
                    '$.clauses[0].cursor', '$.clauses[1].cursor', '$.n');
-- an identity already taken: the unique index refuses it and nothing changes
INSERT INTO users(doc) VALUES ('{ _id: "1200-45", name: "Eve", email: "joe@abc.com" }');
UPDATE users SET doc = doc_update(doc, '{ $set: { li: "joeabc" } }') WHERE _id = '1200-43';
SELECT count(*), doc_get(doc, 'li') FROM users('{ _id: "1200-43" }');
-- linking a new identity to an existing user
SELECT doc_update_one('users', '{ _id: "1200-43" }', '{ $set: { fb: "ann.abc" } }');
SELECT doc_get(doc, 'name') FROM users('{ fb: "ann.abc" }');

-- 2. one document per identity: { identifier: { email: ... }, user: ... },
-- with a unique index on the whole identifier sub-document; a new kind of
-- identity needs no new index
CREATE VIRTUAL TABLE identities USING docext;
SELECT doc_create_index('identities', '{ identifier: 1 }', '{ unique: true }');
INSERT INTO identities(doc) VALUES
  ('{ identifier: { email: "joe@abc.com" }, user: "1200-42" }'),
  ('{ identifier: { fb: "joe.abc" },        user: "1200-42" }'),
  ('{ identifier: { li: "joeabc" },         user: "1200-42" }'),
  ('{ identifier: { email: "ann@abc.com" }, user: "1200-43" }'),
  ('{ identifier: { li: "annabc" },         user: "1200-43" }'),
  ('{ identifier: { fb: "bob.b" },          user: "1200-44" }'),
  ('{ identifier: { gh: "bobby" },          user: "1200-44" }');
-- a lookup is two targeted reads: the identity, then its user
SELECT doc_get(i.doc, 'user'), doc_get(u.doc, 'name')
  FROM identities('{ identifier: { li: "annabc" } }') AS i
  JOIN users AS u ON u._id = doc_get(i.doc, 'user');
EXPLAIN QUERY PLAN SELECT doc_get(i.doc, 'user'), doc_get(u.doc, 'name')
  FROM identities('{ identifier: { li: "annabc" } }') AS i
  JOIN users AS u ON u._id = doc_get(i.doc, 'user');
SELECT json_extract(doc_explain('identities', '{ identifier: { li: "annabc" } }'), '$.cursor', '$.n', '$.nscanned');
-- the same identity twice is refused
INSERT INTO identities(doc) VALUES ('{ identifier: { fb: "bob.b" }, user: "1200-45" }');
-- every identity of a user, and the user of a kind of identity
SELECT doc_json(doc_get(doc, 'identifier')) FROM identities('{ user: "1200-42" }');
SELECT group_concat(doc_get(doc, 'user'), ' ') FROM identities('{ "identifier.fb": { $exists: true } }');
SELECT doc_check('users');
SELECT doc_check('identities');

-- 3. an email is the same whatever its case: the identity index under a
-- collation that ignores case (English, strength 2) refuses "JOE@abc.com"
-- once "joe@abc.com" is taken, and a sign-in typed in capitals finds the
-- user through that index (the query names the same collation)
CREATE VIRTUAL TABLE logins USING docext;
SELECT doc_create_index('logins', '{ email: 1 }',
                        '{ unique: true, collation: { locale: "en", strength: 2 } }');
INSERT INTO logins(doc) VALUES ('{ email: "joe@abc.com", user: "1200-42" }'),
                               ('{ email: "Ann@ABC.com", user: "1200-43" }');
INSERT INTO logins(doc) VALUES ('{ email: "JOE@abc.com", user: "1200-99" }');
SELECT doc_get(doc, 'user') FROM logins('{ email: "ANN@abc.COM" }', NULL, NULL,
                                        '{ collation: { locale: "en", strength: 2 } }');
SELECT json_extract(doc_explain('logins', '{ email: "ANN@abc.COM" }', NULL, NULL,
                                '{ collation: { locale: "en", strength: 2 } }'), '$.cursor', '$.n');
SELECT doc_check('logins');
