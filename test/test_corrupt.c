/*
** test_corrupt.c — hostile stored data: damaged shadow tables.
**
** A collection keeps everything in its shadow tables (X_config, X_docs,
** X_pages, X_idxdef, X_idx), which ordinary SQL may change unless
** SQLITE_DBCONFIG_DEFENSIVE is on, and which a damaged file may hold
** anything in. Whatever they hold, every surface must either work or fail
** with a clear error ("docext: ...", an E11000 in MongoDB's words, or
** SQLITE_CORRUPT): no crash, no hang, no out-of-bounds read, no leak (the
** sanitized build checks those), no statement left running, no
** transaction left open, and a write that fails changes nothing. doc_check
** must report the damage it can see.
**
** A collection with small and large (paged) documents and one index of
** each kind (single, multikey, unique, compound with a descending field,
** hashed, TTL, partial) is built once in a file database. Then:
**   1. Each damage of a fixed list (BSON bytes of bodies and pages, sizes,
**      page lists and their aux hints, index entries and their vals,
**      definitions, settings, whole tables, wrong storage classes, odd
**      document ids) is applied to a fresh copy of the file; doc_check must
**      report it when it can see it, a few must still answer a query
**      right; the reads run on one connection and each write on a fresh
**      copy of the damaged file (so each also reopens it).
**   2. Seeded random damage (bytes flipped, set, swapped, values truncated,
**      extended, length fields rewritten, values taken from another row,
**      retyped, rows deleted or duplicated) followed by a random mix of
**      surfaces on one connection, in autocommit mode.
** Besides the error's words, every surface is checked for statements left
** running and transactions left open; a write that fails must leave the
** shadow tables as they were (byte for byte); one that works must not
** damage a document that held together before it (this test's own reading
** of the tables, soundDocs).
**
**   build/plain/test_corrupt [random-cases [seed]]     (default 1200)
**   CORRUPT_TRACE=1 prints each surface and damage; CORRUPT_NOLIST=1 skips
**   the fixed list.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "testdb.h"

static char zPath[] = "/tmp/docext-test-corrupt-XXXXXX";
static u64 rngState = 0x9E3779B97F4A7C15ULL;

static u64 rnd(u64 n){
  rngState ^= rngState << 13;
  rngState ^= rngState >> 7;
  rngState ^= rngState << 17;
  return n ? rngState % n : 0;
}

/*------------------------------------------------------------------------
** Files
*/
static u8 *readFile(const char *z, long *pn){
  FILE *f = fopen(z, "rb");
  u8 *a;
  long n;
  if( f==0 ){ printf("cannot read %s\n", z); exit(1); }
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  a = malloc(n>0 ? n : 1);
  if( a==0 || fread(a, 1, n, f)!=(size_t)n ){ printf("cannot read %s\n", z); exit(1); }
  fclose(f);
  *pn = n;
  return a;
}

static void writeFile(const char *z, const u8 *a, long n){
  FILE *f;
  removeDb(z);
  f = fopen(z, "wb");
  if( f==0 || fwrite(a, 1, n, f)!=(size_t)n ){ printf("cannot write %s\n", z); exit(1); }
  fclose(f);
}

/*------------------------------------------------------------------------
** SQL helpers the damage uses
*/

/* t_list(pages, op, arg): a page list changed by op (see the switch). */
static void tListFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const u8 *a = sqlite3_value_blob(argv[0]);
  int n = sqlite3_value_bytes(argv[0]), op = sqlite3_value_int(argv[1]);
  i64 arg = sqlite3_value_int64(argv[2]), nTotal = 0;
  DocPage *aPage = 0;
  int nPage = 0, i, rc = SQLITE_OK;
  DocBuf out;
  (void)argc;
  memset(&out, 0, sizeof(out));
  if( a==0 || docextPageListDecode(a, n, &aPage, &nPage, &nTotal)!=SQLITE_OK || nPage<2 ){
    sqlite3_result_error(ctx, "t_list: not a page list of two pages or more", -1);
    sqlite3_free(aPage);
    return;
  }
  switch( op ){
    case 0: { DocPage t = aPage[0]; aPage[0] = aPage[1]; aPage[1] = t; break; }
    case 1: aPage[nPage-1] = aPage[0]; break;               /* a page twice */
    case 2: nPage--; break;                                 /* the last dropped */
    case 3: aPage[0].n += (int)arg; break;
    case 4: aPage[0].pgno = arg; break;
    case 8: aPage[0].n = 0; break;
    case 9: nPage = 0; break;
  }
  for(i=0; i<nPage; i++){
    docextPageListPutVarint(&rc, &out, op==7 && i==0 ? 0xFFFFFFFFFFFFFFF0ULL : (u64)aPage[i].pgno);
    docextPageListPutVarint(&rc, &out, (u64)aPage[i].n);
  }
  if( op==5 ) out.n--;                                      /* mid-varint */
  if( op==6 ){                                              /* aux bytes */
    docextPageListPutVarint(&rc, &out, 0);
    docextBufAppendI64(&rc, &out, arg);
    docextBufAppendI64(&rc, &out, arg*7+1);
    docextBufAppendI64(&rc, &out, arg*13+5);
  }
  if( op==11 ){                                             /* a hint at the end */
    docextPageListPutVarint(&rc, &out, 0);
    docextBufAppendI64(&rc, &out, 0x7fffffffffffffffLL);
    docextBufAppendI64(&rc, &out, 1);
    docextBufAppendI64(&rc, &out, 0x7fffffffffffffffLL - (arg & 0xff));
  }
  if( op==10 ){                                             /* a short hint */
    docextPageListPutVarint(&rc, &out, 0);
    docextBufAppendI64(&rc, &out, arg);
  }
  sqlite3_free(aPage);
  if( rc!=SQLITE_OK ){
    sqlite3_result_error_nomem(ctx);
    docextBufFree(&out);
    return;
  }
  sqlite3_result_blob(ctx, out.a ? (const void*)out.a : (const void*)"", (int)out.n,
                      SQLITE_TRANSIENT);
  docextBufFree(&out);
}

/* t_raw(kind, id): BSON no valid write would store (see the switch). */
static void tRawFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int eKind = sqlite3_value_int(argv[0]), id = sqlite3_value_int(argv[1]);
  DocBuf b;
  int rc = SQLITE_OK, i;
  i64 aStart[200], iStart;
  (void)argc;
  memset(&b, 0, sizeof(b));
  iStart = docextBsonStartDoc(&rc, &b);
  switch( eKind ){
    case 0:   /* two _id fields */
      docextBsonAppendInt32(&rc, &b, "_id", 3, id);
      docextBsonAppendInt32(&rc, &b, "_id", 3, id+1000);
      break;
    case 1:   /* a string that is not UTF-8 */
      docextBsonAppendInt32(&rc, &b, "_id", 3, id);
      docextBsonAppendString(&rc, &b, DOC_STRING, "s", 1, "\xff\xfe", 2);
      break;
    case 2:   /* names no write may store */
      docextBsonAppendInt32(&rc, &b, "_id", 3, id);
      docextBsonAppendInt32(&rc, &b, "$x", 2, 1);
      docextBsonAppendInt32(&rc, &b, "a.b", 3, 1);
      docextBsonAppendInt32(&rc, &b, "a", 1, 3);
      break;
    case 3:   /* nested deeper than 100 levels */
    case 4:   /* exactly 100 levels */
      docextBsonAppendInt32(&rc, &b, "_id", 3, id);
      for(i=0; i<(eKind==3 ? 150 : 100); i++) aStart[i] = docextBsonStartChild(&rc, &b, DOC_DOCUMENT, "a", 1);
      while( --i>=0 ) docextBsonEndDoc(&rc, &b, aStart[i]);
      break;
    case 5:   /* {} */
      break;
    case 6:   /* no _id */
      docextBsonAppendInt32(&rc, &b, "a", 1, 3);
      break;
    case 7:   /* an _id no write may store */
      iStart = docextBsonStartChild(&rc, &b, DOC_ARRAY, "_id", 3);
      docextBsonAppendInt32(&rc, &b, "0", 1, id);
      docextBsonEndDoc(&rc, &b, iStart);
      iStart = 0;
      docextBsonAppendInt32(&rc, &b, "a", 1, 3);
      break;
    case 8:   /* an unknown element type (structurally unreadable) */
      docextBsonAppendInt32(&rc, &b, "_id", 3, id);
      docextBsonAppendInt32(&rc, &b, "z", 1, 7);
      b.a[b.n-7] = 0x42;
      break;
    case 9:   /* an embedded document whose length runs past its parent */
      docextBsonAppendInt32(&rc, &b, "_id", 3, id);
      { i64 iChild = docextBsonStartChild(&rc, &b, DOC_DOCUMENT, "n", 1);
        docextBsonAppendInt32(&rc, &b, "m", 1, 1);
        docextBsonEndDoc(&rc, &b, iChild);
        if( rc==SQLITE_OK ) docextPutI32(b.a+iChild, 200); }
      break;
  }
  docextBsonEndDoc(&rc, &b, 0);
  if( rc!=SQLITE_OK ){
    sqlite3_result_error_nomem(ctx);
  }else{
    sqlite3_result_blob(ctx, b.a, (int)b.n, SQLITE_TRANSIENT);
  }
  docextBufFree(&b);
}

static sqlite3 *openWork(void){
  sqlite3 *db = openDb(zPath, 1);
  exec(db, "PRAGMA synchronous=OFF");
  sqlite3_create_function(db, "t_list", 3, SQLITE_UTF8, 0, tListFunc, 0, 0);
  sqlite3_create_function(db, "t_raw", 2, SQLITE_UTF8, 0, tRawFunc, 0, 0);
  return db;
}

/*------------------------------------------------------------------------
** The collection
*/

#define CLOCK_NOW "SELECT doc_config('clock', '2020-06-01T00:00:00Z')"

static void buildTemplate(void){
  sqlite3 *db;
  makeTempDb(zPath);
  removeDb(zPath);
  db = openWork();
  exec(db, CLOCK_NOW);
  exec(db, "PRAGMA page_size=1024; CREATE VIRTUAL TABLE c USING docext");
  exec(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<24)"
           " INSERT INTO c(doc) SELECT printf('{_id: %d, a: %d, b: [%d, %d], s: \"s%d\","
           " h: %d, n: {m: %d}, t: ISODate(\"%s\")}', i, i%5, i%3, i%4+3, i, i*7, i%6,"
           " CASE WHEN i<=2 THEN '2019-01-01T00:00:00Z' ELSE '2030-01-01T00:00:00Z' END)"
           " FROM n");
  exec(db, "WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j+1 FROM k WHERE j<90),"
           " x(x) AS (VALUES(1),(2),(3))"
           " INSERT INTO c(doc) SELECT printf('{_id: %d, a: 1, s: \"L%d\", n: {m: 1},"
           " log: [%s], big: {deep: {arr: [1, 2, 3]}}}', 100+x, x,"
           " (SELECT group_concat(printf('\"entry-%d-%d-xxxxxxxxxxxxxxxx\"', x, j)) FROM k))"
           " FROM x");
  exec(db, "INSERT INTO c(doc) VALUES ('{_id: \"str\", a: 3, s: \"sx\", b: 7}'),"
           " ('{_id: ObjectId(\"5f0000000000000000000001\"), a: 4, s: \"so\"}')");
  exec(db, "SELECT doc_create_index('c', '{a: 1}');"
           "SELECT doc_create_index('c', '{b: 1}');"
           "SELECT doc_create_index('c', '{s: 1}', '{unique: true}');"
           "SELECT doc_create_index('c', '{\"n.m\": -1, a: 1}');"
           "SELECT doc_create_index('c', '{h: \"hashed\"}');"
           "SELECT doc_create_index('c', '{s: 1, a: 1}',"
           "  '{partialFilterExpression: {a: {$gt: 2}}}');"
           "SELECT doc_create_index('c', '{t: 1}', '{expireAfterSeconds: 0}');");
  sqlite3_close(db);
}

/* Check the template: the pages exist, every index is there and sound. */
static void checkTemplate(void){
  sqlite3 *db = openWork();
  sqlite3_stmt *pStmt = 0;
  const char *zCheck = 0;
  int nPages = 0, nDocs = 0, nIdx = 0;
  if( sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM c_pages),"
        " (SELECT count(*) FROM c_docs WHERE pages IS NOT NULL),"
        " (SELECT count(*) FROM c_idxdef), doc_check('c')", -1, &pStmt, 0)==SQLITE_OK
   && sqlite3_step(pStmt)==SQLITE_ROW ){
    nPages = sqlite3_column_int(pStmt, 0);
    nDocs = sqlite3_column_int(pStmt, 1);
    nIdx = sqlite3_column_int(pStmt, 2);
    zCheck = (const char*)sqlite3_column_text(pStmt, 3);
  }
  check(nDocs==3 && nPages>=9 && nIdx==7, "the template has 3 paged documents and 7 indexes", 0);
  check(zCheck && strcmp(zCheck, "ok")==0, "the template passes doc_check", zCheck);
  sqlite3_finalize(pStmt);
  sqlite3_close(db);
}

/*------------------------------------------------------------------------
** Surfaces
*/

#define LARGE_DOC "'{_id: 1001, a: 3, s: \"big\", log: [' || (WITH RECURSIVE k(j) AS" \
  " (SELECT 0 UNION ALL SELECT j+1 FROM k WHERE j<80) SELECT group_concat(printf(" \
  "'\"new-%d-xxxxxxxxxxxxxxxxxxxxxx\"', j)) FROM k) || ']}'"

#define NO_TTL "SELECT doc_drop_index('c', 't_1'); SELECT doc_drop_index('c', 's_1_a_1'); "

typedef struct Surface Surface;
struct Surface {
  const char *zSql;         /* one or more statements */
  int bWrite;               /* 0: reads only; 1: writes, and on error
                            ** nothing may have changed; 2: the same, and on
                            ** success the collection may be gone; 3: writes
                            ** in several statements (no such check) */
};
static const Surface aSurface[] = {
  /* reads */
  { "SELECT _id, doc, bson FROM c", 0 },
  { "SELECT doc FROM c", 0 },
  { "SELECT _id, doc FROM c('{}', NULL, NULL, '{hint: {$natural: -1}}')", 0 },
  { "SELECT doc FROM c('{a: 3}')", 0 },
  { "SELECT doc FROM c('{a: {$gte: 2}}', '{a: 1, _id: 0}')", 0 },
  { "SELECT doc FROM c('{a: 1}', '{a: 1, _id: 0}', '{a: 1}')", 0 },
  { "SELECT doc FROM c('{b: 4}', '{s: 1}', '{s: -1}')", 0 },
  { "SELECT doc FROM c('{}', '{log: 0}', '{\"n.m\": -1, a: 1}') LIMIT 7", 0 },
  { "SELECT doc FROM c('{\"n.m\": {$lt: 3}}', '{\"n.m\": 1, a: 1, _id: 0}')", 0 },
  { "SELECT _id FROM c('{}', NULL, '{s: 1}')", 0 },
  { "SELECT _id FROM c('{}', NULL, '{x: 1}') LIMIT 3 OFFSET 2", 0 },
  { "SELECT doc FROM c('{h: 21}')", 0 },
  { "SELECT _id FROM c('{$or: [{a: 1}, {s: \"s7\"}]}')", 0 },
  { "SELECT _id FROM c('{s: {$gt: \"s1\"}, a: {$gt: 2}}')", 0 },
  { "SELECT _id FROM c('{t: {$gt: ISODate(\"2020-01-01T00:00:00Z\")}}', NULL, NULL,"
    " '{hint: \"t_1\"}')", 0 },
  { "SELECT _id, doc FROM c WHERE _id = 3", 0 },
  { "SELECT _id FROM c WHERE _id IN (1, 5, 101, 'str', 999)", 0 },
  { "SELECT _id FROM c WHERE _id > 10 AND _id <= 102", 0 },
  { "SELECT doc->>'s' FROM c WHERE rowid = 26", 0 },
  { "SELECT count(*) FROM c", 0 },
  { "SELECT count(*) FROM c('{a: 2}')", 0 },
  { "SELECT count(*) FROM c('{b: 3}')", 0 },
  { "SELECT doc_count('c'), doc_count('c', '{a: {$in: [1, 2]}}'), doc_count('c', '{s: \"s9\"}')", 0 },
  { "SELECT doc_explain('c', '{a: 3}'), doc_explain('c', '{a: {$gt: 1}}', '{a: 1, _id: 0}')", 0 },
  { "SELECT doc_explain('c', '{b: 4}', NULL, '{s: 1}')", 0 },
  { "SELECT doc_check('c')", 0 },
  { "SELECT doc_stats('c')", 0 },
  { "SELECT * FROM doc_indexes('c')", 0 },
  { "SELECT doc_match(doc, '{a: 3}') FROM c WHERE doc_match(doc, '{s: {$regex: \"^s1\"}}')", 0 },
  /* writes */
  { "SELECT doc_update_one('c', '{_id: 3}', '{$set: {x: 1}}')", 1 },
  { "SELECT doc_update_many('c', '{}', '{$inc: {a: 1}}')", 1 },
  { "SELECT doc_update_many('c', '{a: 3}', '{$set: {s: \"same\"}}')", 1 },
  { "SELECT doc_update_one('c', '{a: 4}', '{$set: {b: [8, 9]}}', '{sort: {s: -1}}')", 1 },
  { "SELECT doc_update_one('c', '{_id: 555}', '{$set: {a: 2}}', '{upsert: true}')", 1 },
  { "UPDATE c SET doc = doc_update(doc, '{$set: {y: 2}}') WHERE _id = 4", 1 },
  { "UPDATE c SET doc = doc_update(doc, '{$push: {log: \"u\"}}') WHERE _id = 102", 1 },
  { "UPDATE c SET doc = '{_id: 103, a: 2}' WHERE _id = 103", 1 },
  { "UPDATE c SET doc = '{_id: 101, a: 2, s: \"t101\"}' WHERE _id = 101", 1 },
  { "UPDATE c SET doc = '{_id: 3, a: 2, s: \"t3\"}' WHERE _id = 3", 1 },
  { "UPDATE c SET doc = '{_id: 3, a: 2, s: \"s4\"}' WHERE _id = 3", 1 },
  { "BEGIN; " NO_TTL "UPDATE c SET doc = '{_id: 3, a: 2, s: \"t3\"}' WHERE _id = 3; COMMIT", 1 },
  { "BEGIN; " NO_TTL "UPDATE c SET doc = '{_id: 101, a: 2}' WHERE _id = 101; COMMIT", 1 },
  { "UPDATE c SET doc = doc_update(doc, '{$set: {b: 1}}') WHERE filter = '{a: 2}'", 1 },
  /* appends in place: not with a TTL or a partial index */
  { "SELECT doc_update_one('c', '{_id: 101}', '{$push: {log: \"x\"}}')", 1 },
  { "BEGIN; " NO_TTL "SELECT doc_update_one('c', '{_id: 101}', '{$push: {log: \"x\"}}'); COMMIT", 1 },
  { "BEGIN; " NO_TTL "SELECT doc_update_one('c', '{_id: 101}', '{$push: {log: {$each: [1, 2, 3]}}}');"
    "SELECT doc_update_one('c', '{_id: 101}', '{$push: {log: 4}}'); COMMIT", 1 },
  { "BEGIN; " NO_TTL "SELECT doc_update_one('c', '{_id: 102}', '{$push: {\"big.deep.arr\": {$each: [1, 2]}}}');"
    "SELECT doc_update_one('c', '{_id: 102}', '{$push: {\"big.deep.arr\": 9, log: 5}}'); COMMIT", 1 },
  { "BEGIN; " NO_TTL "SELECT doc_update_many('c', '{_id: {$gt: 100}}', '{$push: {log: \"m\"}}'); COMMIT", 1 },
  { "SELECT doc_update_one('c', '{_id: 103}', '{$set: {\"log.5\": \"changed\"}}')", 1 },
  { "DELETE FROM c WHERE _id = 5", 1 },
  { "DELETE FROM c WHERE _id = 102", 1 },
  { "DELETE FROM c WHERE filter = '{a: 2}'", 1 },
  { "SELECT doc_delete_many('c', '{b: 3}')", 1 },
  { "SELECT doc_delete_one('c', '{_id: 103}')", 1 },
  { "DELETE FROM c", 1 },
  { "INSERT INTO c(doc) VALUES ('{_id: 1000, a: 3, b: [1], s: \"new\", h: 1, n: {m: 2}}')", 1 },
  { "INSERT INTO c(doc) VALUES (" LARGE_DOC ")", 1 },
  { "INSERT OR REPLACE INTO c(doc) VALUES ('{_id: 6, a: 4, s: \"r6\"}')", 1 },
  { "INSERT OR REPLACE INTO c(doc) VALUES ('{_id: 101, a: 4, s: \"r101\"}')", 1 },
  { "INSERT OR IGNORE INTO c(doc) VALUES ('{_id: 7}')", 1 },
  { "INSERT INTO c(doc) VALUES ('{_id: 8}')", 1 },
  { "INSERT INTO c(doc) VALUES ('{_id: 1002, s: \"s9\"}')", 1 },
  { "SELECT doc_find_and_modify('c', '{query: {a: 1}, sort: {s: 1}, update: {$inc: {a: 10}}, new: true}')", 1 },
  { "SELECT doc_find_and_modify('c', '{query: {_id: 101}, remove: true}')", 1 },
  { "SELECT doc_create_index('c', '{z: 1, a: -1}')", 1 },
  { "SELECT doc_create_index('c', '{log: 1}')", 1 },
  { "SELECT doc_create_index('c', '{a: 1, s: 1}', '{unique: true}')", 1 },
  { "SELECT doc_create_index('c', '{a: 1}')", 1 },
  { "SELECT doc_drop_index('c', 'a_1')", 1 },
  { "SELECT doc_drop_index('c', '{s: 1}')", 1 },
  { "SELECT doc_drop_index('c', 't_1')", 1 },
  { "SELECT doc_ttl_sweep('c')", 1 },
  { "SELECT doc_config('clock', '2031-01-01T00:00:00Z'), doc_ttl_sweep('c')", 1 },
  { "SELECT doc_config('clock', '2031-01-01T00:00:00Z'), doc_ttl_sweep()", 1 },
  { "BEGIN; SELECT doc_update_many('c', '{a: 1}', '{$set: {q: 1}}');"
    " INSERT INTO c(doc) VALUES ('{_id: 1003}'); SELECT count(*) FROM c('{q: 1}'); COMMIT", 3 },
  /* a command failing in a transaction that changed the schema */
  { "BEGIN; CREATE TABLE side(x); SELECT doc_update_one('c', '{_id: 3}', '{$inc: {s: 1}}'); ROLLBACK", 1 },
  { "BEGIN; CREATE TABLE side(x); SELECT doc_create_index('c', '{a: 1}', '{unique: true, name: \"au\"}');"
    " ROLLBACK", 1 },
  { "BEGIN; CREATE TABLE side(x); INSERT INTO c(doc) VALUES ('{_id: 8}'); ROLLBACK", 1 },
  { "BEGIN; CREATE TABLE side(x); UPDATE c SET doc = doc_update(doc, '{$inc: {s: 1}}') WHERE _id = 3;"
    " ROLLBACK", 1 },
  { "BEGIN; ALTER TABLE c RENAME TO c2; SELECT count(*), doc_check('c2') FROM c2;"
    " SELECT doc_update_one('c2', '{_id: 3}', '{$set: {x: 2}}'); ROLLBACK", 1 },
  { "ALTER TABLE c RENAME TO c2; ALTER TABLE c2 RENAME TO c;"
    " SELECT count(*), doc_check('c') FROM c", 2 },
  { "DROP TABLE c", 2 },
};
#define N_SURFACE (int)(sizeof(aSurface)/sizeof(aSurface[0]))

/* Run every statement of zSql, reading every column of every row; stop at
** the first error. Returns SQLITE_OK or the error (its message in
** *pzMsg, sqlite3_malloc'd). */
static int runSql(sqlite3 *db, const char *zSql, char **pzMsg){
  const char *zTail = zSql;
  int rc = SQLITE_OK;
  *pzMsg = 0;
  while( rc==SQLITE_OK && zTail && zTail[0] ){
    sqlite3_stmt *pStmt = 0;
    rc = sqlite3_prepare_v2(db, zTail, -1, &pStmt, &zTail);
    if( rc==SQLITE_OK && pStmt ){
      int i;
      while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
        for(i=0; i<sqlite3_column_count(pStmt); i++) sqlite3_column_blob(pStmt, i);
      }
      if( rc==SQLITE_DONE ) rc = SQLITE_OK;
      sqlite3_finalize(pStmt);
    }
    if( rc!=SQLITE_OK ){
      rc = sqlite3_extended_errcode(db);
      if( rc==SQLITE_OK ) rc = SQLITE_ERROR;
      *pzMsg = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    }
  }
  /* a multi-statement surface may stop inside its own transaction */
  if( !sqlite3_get_autocommit(db) ) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  return rc;
}

/* Is this error one a user can act on? */
static int cleanError(int rc, const char *zMsg){
  if( (rc & 0xff)==SQLITE_CORRUPT ) return 1;
  if( zMsg==0 ) return 0;
  return strncmp(zMsg, "docext: ", 8)==0 || strncmp(zMsg, "E11000 ", 7)==0;
}

/* A digest of every shadow table's rows (types and bytes). */
static u64 digest(sqlite3 *db){
  static const char *azTab[] = { "config", "docs", "pages", "idxdef", "idx" };
  u64 h = 0xcbf29ce484222325ULL;
  size_t t;
  for(t=0; t<sizeof(azTab)/sizeof(azTab[0]); t++){
    sqlite3_stmt *pStmt = 0;
    char *zSql = sqlite3_mprintf("SELECT * FROM \"c_%s\"", azTab[t]);
    if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)==SQLITE_OK ){
      while( sqlite3_step(pStmt)==SQLITE_ROW ){
        int i, k;
        for(i=0; i<sqlite3_column_count(pStmt); i++){
          const u8 *a = sqlite3_column_blob(pStmt, i);
          int n = sqlite3_column_bytes(pStmt, i);
          h = (h ^ (u64)sqlite3_column_type(pStmt, i)) * 0x100000001b3ULL;
          for(k=0; k<n; k++) h = (h ^ a[k]) * 0x100000001b3ULL;
          h = (h ^ 0xff) * 0x100000001b3ULL;
        }
      }
    }else{
      h = (h ^ (u64)(t+77)) * 0x100000001b3ULL;
    }
    sqlite3_finalize(pStmt);
    sqlite3_free(zSql);
  }
  return h;
}

/* The documents of c that hold together, by this test's own reading (not
** docext's): a BLOB body of exactly `size` bytes, or a page list of pages
** that exist as BLOBs with the lengths it gives, used by no other list nor
** twice, adding up to `size`; valid BSON (text included) with _id first.
** *paValid gets their ids, *paRead those of the documents whose bytes
** at least read as BSON (lengths, terminators, types), *paAll every id,
** each ascending (sqlite3_malloc'd). */
static void soundDocs(sqlite3 *db, i64 **paValid, int *pnValid, i64 **paRead, int *pnRead,
                      i64 **paAll, int *pnAll){
  sqlite3_stmt *pStmt = 0, *pPage = 0;
  DocBuf lists, doc;
  i64 *aPg = 0;
  int nPg = 0, nPgAlloc = 0, rc = SQLITE_OK, pass;
  *paValid = *paRead = *paAll = 0;
  *pnValid = *pnRead = *pnAll = 0;
  memset(&lists, 0, sizeof(lists));
  memset(&doc, 0, sizeof(doc));
  if( sqlite3_prepare_v2(db, "SELECT data FROM c_pages WHERE pgno=?1", -1, &pPage, 0)!=SQLITE_OK
   || sqlite3_prepare_v2(db, "SELECT id, size, body, pages, typeof(size), typeof(body),"
                             " typeof(pages) FROM c_docs ORDER BY id", -1, &pStmt, 0)!=SQLITE_OK ){
    sqlite3_finalize(pPage);
    return;
  }
  /* pass 0: every page number referenced; pass 1: judge each document */
  for(pass=0; pass<2; pass++){
    while( sqlite3_step(pStmt)==SQLITE_ROW ){
      i64 iDoc = sqlite3_column_int64(pStmt, 0), nSize = sqlite3_column_int64(pStmt, 1);
      const char *zSize = (const char*)sqlite3_column_text(pStmt, 4);
      const char *zBody = (const char*)sqlite3_column_text(pStmt, 5);
      const char *zPages = (const char*)sqlite3_column_text(pStmt, 6);
      DocPage *aPage = 0;
      int nPage = 0, i, bOk = 0;
      i64 nTotal = 0;
      if( strcmp(zPages, "blob")==0 ){
        docextPageListDecode(sqlite3_column_blob(pStmt, 3), sqlite3_column_bytes(pStmt, 3),
                             &aPage, &nPage, &nTotal);
      }
      if( pass==0 ){
        for(i=0; i<nPage; i++){
          if( nPg==nPgAlloc ){
            nPgAlloc = nPgAlloc ? nPgAlloc*2 : 64;
            aPg = sqlite3_realloc64(aPg, sizeof(i64)*nPgAlloc);
          }
          aPg[nPg++] = aPage[i].pgno;
        }
        sqlite3_free(aPage);
        continue;
      }
      *paAll = sqlite3_realloc64(*paAll, sizeof(i64)*(*pnAll+1));
      (*paAll)[(*pnAll)++] = iDoc;
      docextBufReset(&doc);
      if( strcmp(zSize, "integer")!=0 ){
        bOk = 0;
      }else if( strcmp(zBody, "blob")==0 && strcmp(zPages, "null")==0 ){
        docextBufAppend(&rc, &doc, sqlite3_column_blob(pStmt, 2), sqlite3_column_bytes(pStmt, 2));
        bOk = 1;
      }else if( strcmp(zBody, "null")==0 && nPage>0 ){
        bOk = 1;
        for(i=0; bOk && i<nPage; i++){
          int k, nUse = 0;
          for(k=0; k<nPg; k++) nUse += aPg[k]==aPage[i].pgno;
          sqlite3_bind_int64(pPage, 1, aPage[i].pgno);
          bOk = nUse==1 && sqlite3_step(pPage)==SQLITE_ROW
             && sqlite3_column_type(pPage, 0)==SQLITE_BLOB
             && sqlite3_column_bytes(pPage, 0)==aPage[i].n;
          if( bOk ) docextBufAppend(&rc, &doc, sqlite3_column_blob(pPage, 0), aPage[i].n);
          sqlite3_reset(pPage);
        }
      }
      sqlite3_free(aPage);
      if( bOk && doc.n==nSize && nSize>=5 ){
        char *zErr = 0;
        if( docextBsonCheckEx(doc.a, doc.n, 0, &zErr)==SQLITE_OK ){
          *paRead = sqlite3_realloc64(*paRead, sizeof(i64)*(*pnRead+1));
          (*paRead)[(*pnRead)++] = iDoc;
        }
        sqlite3_free(zErr);
      }
      if( bOk && doc.n==nSize && nSize>=5 && docextBsonValidate(doc.a, doc.n, 0, 0)==SQLITE_OK ){
        DocIter it;
        docextIterInit(&it, doc.a);
        if( docextIterNext(&it) && strcmp(it.zKey, "_id")==0 ){
          *paValid = sqlite3_realloc64(*paValid, sizeof(i64)*(*pnValid+1));
          (*paValid)[(*pnValid)++] = iDoc;
        }
      }
    }
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  sqlite3_finalize(pPage);
  sqlite3_free(aPg);
  docextBufFree(&lists);
  docextBufFree(&doc);
}

static int inIds(const i64 *a, int n, i64 iDoc){
  int i;
  for(i=0; i<n; i++) if( a[i]==iDoc ) return 1;
  return 0;
}

/* The state a write starts from: the shadow tables' digest and the
** documents that hold together (soundDocs). */
typedef struct Before Before;
struct Before {
  u64 hDigest;
  i64 *aValid, *aRead;
  int nValid, nRead;
};

static void beforeTake(sqlite3 *db, Before *p){
  i64 *aAll = 0;
  int nAll = 0;
  p->hDigest = digest(db);
  soundDocs(db, &p->aValid, &p->nValid, &p->aRead, &p->nRead, &aAll, &nAll);
  sqlite3_free(aAll);
}

static void beforeFree(Before *p){
  sqlite3_free(p->aValid);
  sqlite3_free(p->aRead);
  memset(p, 0, sizeof(*p));
}

/* Run surface iSurface on db and check the outcome. pBefore: db's state
** when the caller knows it (a fresh copy of a known file), else NULL. */
static void runSurface(sqlite3 *db, int iSurface, const char *zCase, const Before *pBefore){
  const Surface *pS = &aSurface[iSurface];
  int bAtomic = pS->bWrite==1 || pS->bWrite==2;
  Before mine;
  char *zMsg = 0;
  char zWhat[400];
  int rc, i;
  memset(&mine, 0, sizeof(mine));
  if( pS->bWrite && pBefore==0 ){
    beforeTake(db, &mine);
    pBefore = &mine;
  }
  rc = runSql(db, pS->zSql, &zMsg);
  snprintf(zWhat, sizeof(zWhat), "[%s] %.200s", zCase, pS->zSql);
  if( getenv("CORRUPT_TRACE") ) fprintf(stderr, "%s\n", zWhat);
  check(rc==SQLITE_OK || cleanError(rc, zMsg), zWhat, zMsg);
  if( rc!=SQLITE_OK && bAtomic ){
    check(digest(db)==pBefore->hDigest, zWhat, "a failed write changed the shadow tables");
  }
  if( rc==SQLITE_OK && pS->bWrite ){
    /* what held together before a write still does (or is gone) */
    i64 *aAfter = 0, *aRead = 0, *aAll = 0;
    int nAfter = 0, nRead = 0, nAll = 0;
    soundDocs(db, &aAfter, &nAfter, &aRead, &nRead, &aAll, &nAll);
    for(i=0; i<pBefore->nValid; i++){
      i64 iDoc = pBefore->aValid[i];
      if( inIds(aAll, nAll, iDoc) && !inIds(aAfter, nAfter, iDoc) ){
        char zDoc[64];
        snprintf(zDoc, sizeof(zDoc), "the write damaged document %lld", iDoc);
        check(0, zWhat, zDoc);
      }
    }
    for(i=0; i<pBefore->nRead; i++){
      i64 iDoc = pBefore->aRead[i];
      if( inIds(aAll, nAll, iDoc) && !inIds(aRead, nRead, iDoc) ){
        char zDoc[80];
        snprintf(zDoc, sizeof(zDoc), "the write made document %lld unreadable", iDoc);
        check(0, zWhat, zDoc);
      }
    }
    sqlite3_free(aAfter);
    sqlite3_free(aRead);
    sqlite3_free(aAll);
  }
  checkIdle(db, zWhat);
  sqlite3_free(zMsg);
  beforeFree(&mine);
  exec(db, CLOCK_NOW);
}

/*------------------------------------------------------------------------
** 1. Damage from a list
*/

#define L1 "(SELECT min(id) FROM c_docs WHERE pages IS NOT NULL)"
#define L2 "(SELECT min(id) FROM c_docs WHERE pages IS NOT NULL AND id>" L1 ")"
#define IX(zName) "(SELECT id FROM c_idxdef WHERE name='" zName "')"
#define PG1 "(SELECT min(pgno) FROM c_pages)"
#define PGLAST "(SELECT max(pgno) FROM c_pages)"

typedef struct Damage Damage;
struct Damage {
  const char *zName;
  const char *zSql;
  int bVisible;             /* doc_check must report it (or fail) */
  const char *zProbe;       /* a query that must still answer zExpect, or 0 */
  const char *zExpect;
};
static const Damage aDamage[] = {
  /* inline bodies */
  { "body truncated", "UPDATE c_docs SET body = substr(body, 1, length(body)-3) WHERE id = 3", 1, 0, 0 },
  { "body and size truncated",
    "UPDATE c_docs SET body = substr(body, 1, length(body)-3), size = size-3 WHERE id = 3", 1, 0, 0 },
  { "body extended", "UPDATE c_docs SET body = body || x'0000', size = size+2 WHERE id = 3", 1, 0, 0 },
  { "body length field garbage", "UPDATE c_docs SET body = x'ffffff7f' || substr(body, 5) WHERE id = 4", 1, 0, 0 },
  { "body empty", "UPDATE c_docs SET body = x'' WHERE id = 4", 1, 0, 0 },
  { "body and size empty", "UPDATE c_docs SET body = x'', size = 0 WHERE id = 4", 1, 0, 0 },
  { "body all garbage", "UPDATE c_docs SET body = CAST(printf('%.*c', size, 'A') AS BLOB) WHERE id = 4", 1, 0, 0 },
  { "body of zeros", "UPDATE c_docs SET body = zeroblob(size) WHERE id = 4", 1, 0, 0 },
  { "body TEXT", "UPDATE c_docs SET body = CAST(body AS TEXT) WHERE id = 6", 1, 0, 0 },
  { "body INTEGER", "UPDATE c_docs SET body = 12345 WHERE id = 6", 1, 0, 0 },
  { "body and pages NULL", "UPDATE c_docs SET body = NULL, pages = NULL WHERE id = 7", 1, 0, 0 },
  { "body and pages both", "UPDATE c_docs SET pages = (SELECT pages FROM c_docs WHERE id = " L1 ") WHERE id = 7", 1, 0, 0 },
  { "size 0", "UPDATE c_docs SET size = 0 WHERE id = 8", 1, 0, 0 },
  { "size -1", "UPDATE c_docs SET size = -1 WHERE id = 8", 1, 0, 0 },
  { "size huge", "UPDATE c_docs SET size = 1099511627776 WHERE id = 8", 1, 0, 0 },
  { "size INT64_MAX", "UPDATE c_docs SET size = 9223372036854775807 WHERE id = " L1, 1, 0, 0 },
  { "size TEXT", "UPDATE c_docs SET size = 'abc' WHERE id = 8", 1, 0, 0 },
  { "size REAL", "UPDATE c_docs SET size = size + 0.5 WHERE id = 8", 1, 0, 0 },
  { "body of another document",
    "UPDATE c_docs SET body = (SELECT body FROM c_docs WHERE id = 4),"
    " size = (SELECT size FROM c_docs WHERE id = 4) WHERE id = 3", 1, 0, 0 },
  { "two _id fields", "UPDATE c_docs SET body = t_raw(0, 3), size = length(t_raw(0, 3)) WHERE id = 3", 1, 0, 0 },
  { "string not UTF-8", "UPDATE c_docs SET body = t_raw(1, 3), size = length(t_raw(1, 3)) WHERE id = 3", 1, 0, 0 },
  { "names not storable", "UPDATE c_docs SET body = t_raw(2, 3), size = length(t_raw(2, 3)) WHERE id = 3", 1, 0, 0 },
  { "nested 150 levels", "UPDATE c_docs SET body = NULL, pages = NULL, size = 0 WHERE id = 3;"
    " UPDATE c_docs SET body = t_raw(3, 3), size = length(t_raw(3, 3)) WHERE id = 3", 1, 0, 0 },
  { "nested 100 levels", "UPDATE c_docs SET body = t_raw(4, 3), size = length(t_raw(4, 3)) WHERE id = 3", 1, 0, 0 },
  { "empty document", "UPDATE c_docs SET body = t_raw(5, 3), size = 5 WHERE id = 3", 1, 0, 0 },
  { "no _id", "UPDATE c_docs SET body = t_raw(6, 3), size = length(t_raw(6, 3)) WHERE id = 3", 1, 0, 0 },
  { "_id an array", "UPDATE c_docs SET body = t_raw(7, 3), size = length(t_raw(7, 3)) WHERE id = 3", 1, 0, 0 },
  { "unknown element type", "UPDATE c_docs SET body = t_raw(8, 3), size = length(t_raw(8, 3)) WHERE id = 3", 1, 0, 0 },
  { "embedded length past parent", "UPDATE c_docs SET body = t_raw(9, 3), size = length(t_raw(9, 3)) WHERE id = 3", 1, 0, 0 },
  { "_id not first",
    "UPDATE c_docs SET body = doc_bson('{a: 3, _id: 3}'), size = length(doc_bson('{a: 3, _id: 3}')) WHERE id = 3", 1, 0, 0 },
  { "idkey garbage", "UPDATE c_docs SET idkey = x'ff00ff' WHERE id = 9", 1, 0, 0 },
  { "idkey empty", "UPDATE c_docs SET idkey = x'' WHERE id = 9", 1, 0, 0 },
  { "idkey TEXT", "UPDATE c_docs SET idkey = CAST(idkey AS TEXT) WHERE id = 9", 1, 0, 0 },
  { "idkey of another _id", "UPDATE c_docs SET idkey = (SELECT idkey FROM c_docs WHERE id = 10) || x'00' WHERE id = 9", 1, 0, 0 },
  { "docid negative", "UPDATE c_docs SET id = -5 WHERE id = 5; UPDATE c_idx SET docid = -5 WHERE docid = 5", 0,
    "SELECT group_concat(_id) FROM c WHERE _id IN (3, 4, 5)", "3,4,5" },
  { "docid -1", "UPDATE c_docs SET id = -1 WHERE id = 9; UPDATE c_idx SET docid = -1 WHERE docid = 9", 0,
    "SELECT group_concat(_id) FROM c WHERE _id IN (3, 4)", "3,4" },
  { "docid 0", "UPDATE c_docs SET id = 0 WHERE id = 5; UPDATE c_idx SET docid = 0 WHERE docid = 5", 0,
    "SELECT group_concat(_id) FROM c('{$or: [{a: 0}, {s: \"s5\"}]}')", "5,10,15,20" },
  { "docid huge", "UPDATE c_docs SET id = 9223372036854775807 WHERE id = 5;"
    " UPDATE c_idx SET docid = 9223372036854775807 WHERE docid = 5", 0, 0, 0 },
  /* pages */
  { "page truncated", "UPDATE c_pages SET data = substr(data, 1, length(data)-1) WHERE pgno = " PG1, 1, 0, 0 },
  { "page extended", "UPDATE c_pages SET data = data || x'00' WHERE pgno = " PG1, 1, 0, 0 },
  { "page zeroed", "UPDATE c_pages SET data = zeroblob(length(data)) WHERE pgno = " PG1, 1, 0, 0 },
  { "page length field", "UPDATE c_pages SET data = x'10000000' || substr(data, 5) WHERE pgno = " PG1, 1, 0, 0 },
  { "page byte not UTF-8",
    "UPDATE c_pages SET data = substr(data, 1, 300) || x'ff' || substr(data, 302) WHERE pgno = " PG1 "+1", 1, 0, 0 },
  { "page TEXT", "UPDATE c_pages SET data = CAST(data AS TEXT) WHERE pgno = " PG1 "+1", 1, 0, 0 },
  { "page INTEGER", "UPDATE c_pages SET data = 7 WHERE pgno = " PG1 "+1", 1, 0, 0 },
  { "page missing", "DELETE FROM c_pages WHERE pgno = " PG1 "+1", 1, 0, 0 },
  { "page of no document", "INSERT INTO c_pages(data) VALUES (x'00112233')", 1, 0, 0 },
  { "pages swapped", "UPDATE c_docs SET pages = t_list(pages, 0, 0) WHERE id = " L1, 1, 0, 0 },
  { "page twice", "UPDATE c_docs SET pages = t_list(pages, 1, 0) WHERE id = " L1, 1, 0, 0 },
  { "last page dropped", "UPDATE c_docs SET pages = t_list(pages, 2, 0) WHERE id = " L1, 1, 0, 0 },
  { "last page dropped, size too",
    "UPDATE c_docs SET size = size - (SELECT length(data) FROM c_pages WHERE pgno = "
    " (SELECT max(pgno) FROM c_pages WHERE pgno < (SELECT min(pgno) FROM c_pages WHERE pgno > " PG1 "+5))),"
    " pages = t_list(pages, 2, 0) WHERE id = " L1, 1, 0, 0 },
  { "page size +1", "UPDATE c_docs SET pages = t_list(pages, 3, 1) WHERE id = " L1, 1, 0, 0 },
  { "page size +1, size too", "UPDATE c_docs SET pages = t_list(pages, 3, 1), size = size+1 WHERE id = " L1, 1, 0, 0 },
  { "page size -1, size too", "UPDATE c_docs SET pages = t_list(pages, 3, -1), size = size-1 WHERE id = " L1, 1, 0, 0 },
  { "page of another document", "UPDATE c_docs SET pages = t_list(pages, 4, " PGLAST ") WHERE id = " L1, 1, 0, 0 },
  { "page number missing", "UPDATE c_docs SET pages = t_list(pages, 4, 999999) WHERE id = " L1, 1, 0, 0 },
  { "page number negative", "UPDATE c_docs SET pages = t_list(pages, 4, -3) WHERE id = " L1, 1, 0, 0 },
  { "list cut mid-varint", "UPDATE c_docs SET pages = t_list(pages, 5, 0) WHERE id = " L1, 1, 0, 0 },
  { "aux garbage", "UPDATE c_docs SET pages = t_list(pages, 6, 3) WHERE id = " L1, 0, 0, 0 },
  { "aux pointing far", "UPDATE c_docs SET pages = t_list(pages, 6, 1234567890123) WHERE id = " L1, 0, 0, 0 },
  { "aux negative", "UPDATE c_docs SET pages = t_list(pages, 6, -9) WHERE id = " L1, 0, 0, 0 },
  { "aux at INT64_MAX", "UPDATE c_docs SET pages = t_list(pages, 11, 0) WHERE id = " L1, 0, 0, 0 },
  { "aux at INT64_MAX, 2nd", "UPDATE c_docs SET pages = t_list(pages, 11, 3) WHERE id = " L2, 0, 0, 0 },
  { "aux short", "UPDATE c_docs SET pages = t_list(pages, 10, 5) WHERE id = " L1, 0, 0, 0 },
  { "page number too large", "UPDATE c_docs SET pages = t_list(pages, 7, 0) WHERE id = " L1, 1, 0, 0 },
  { "page size 0", "UPDATE c_docs SET pages = t_list(pages, 8, 0) WHERE id = " L1, 1, 0, 0 },
  { "empty page list", "UPDATE c_docs SET pages = t_list(pages, 9, 0) WHERE id = " L1, 1, 0, 0 },
  { "page list TEXT", "UPDATE c_docs SET pages = CAST(pages AS TEXT) WHERE id = " L1, 1, 0, 0 },
  { "page list INTEGER", "UPDATE c_docs SET pages = 99 WHERE id = " L1, 1, 0, 0 },
  { "page list garbage", "UPDATE c_docs SET pages = x'ffffffffffffffffffffff' WHERE id = " L1, 1, 0, 0 },
  { "pages of another document",
    "UPDATE c_docs SET pages = (SELECT pages FROM c_docs WHERE id = " L2 "),"
    " size = (SELECT size FROM c_docs WHERE id = " L2 ") WHERE id = " L1, 1, 0, 0 },
  { "inline document given pages",
    "UPDATE c_docs SET body = NULL, pages = (SELECT pages FROM c_docs WHERE id = " L2 ") WHERE id = 11", 1, 0, 0 },
  { "paged document given a body",
    "UPDATE c_docs SET body = (SELECT body FROM c_docs WHERE id = 12), pages = NULL WHERE id = " L1, 1, 0, 0 },
  /* index entries */
  { "entry of a missing document", "UPDATE c_idx SET docid = 9999 WHERE ix = " IX("a_1") " AND docid = 3", 1, 0, 0 },
  { "entry of another document", "UPDATE c_idx SET docid = 4 WHERE ix = " IX("s_1") " AND docid = 3", 1, 0, 0 },
  { "entry key garbage", "UPDATE c_idx SET key = x'ff00' WHERE ix = " IX("a_1") " AND docid = 3", 1, 0, 0 },
  { "entry key empty", "UPDATE c_idx SET key = x'' WHERE ix = " IX("n.m_-1_a_1") " AND docid = 3", 1, 0, 0 },
  { "entry key TEXT", "UPDATE c_idx SET key = CAST(key AS TEXT) WHERE ix = " IX("a_1") " AND docid = 3", 1, 0, 0 },
  { "entry key INTEGER", "UPDATE c_idx SET key = 5 WHERE ix = " IX("s_1") " AND docid = 3", 1, 0, 0 },
  { "entry docid TEXT", "UPDATE c_idx SET docid = 'abc' WHERE ix = " IX("a_1") " AND docid = 3", 1, 0, 0 },
  { "entry docid REAL", "UPDATE c_idx SET docid = 3.5 WHERE ix = " IX("a_1") " AND docid = 3", 1, 0, 0 },
  { "entry docid NULL-ish", "UPDATE c_idx SET docid = x'00' WHERE ix = " IX("a_1") " AND docid = 3", 1, 0, 0 },
  { "vals garbage", "UPDATE c_idx SET vals = x'0b000000ff' WHERE ix = " IX("a_1") " AND docid = 3", 1, 0, 0 },
  { "vals length huge", "UPDATE c_idx SET vals = x'ffffff7f00' WHERE ix = " IX("a_1"), 1, 0, 0 },
  { "vals TEXT", "UPDATE c_idx SET vals = CAST(vals AS TEXT) WHERE ix = " IX("a_1"), 1, 0, 0 },
  { "vals INTEGER", "UPDATE c_idx SET vals = 1 WHERE ix = " IX("n.m_-1_a_1"), 1, 0, 0 },
  { "vals of other fields", "UPDATE c_idx SET vals = doc_bson('{z: 99, q: {r: 1}}') WHERE ix = " IX("a_1"), 1, 0, 0 },
  { "vals empty document", "UPDATE c_idx SET vals = doc_bson('{}') WHERE ix = " IX("n.m_-1_a_1"), 1, 0, 0 },
  { "vals deep", "UPDATE c_idx SET vals = t_raw(4, 1) WHERE ix = " IX("a_1"), 1, 0, 0 },
  { "vals not UTF-8", "UPDATE c_idx SET vals = t_raw(1, 1) WHERE ix = " IX("a_1"), 1, 0, 0 },
  { "entry missing", "DELETE FROM c_idx WHERE ix = " IX("a_1") " AND docid = 3", 1, 0, 0 },
  { "entries of the TTL index missing", "DELETE FROM c_idx WHERE ix = " IX("t_1"), 1, 0, 0 },
  { "unique key twice",
    "INSERT INTO c_idx SELECT ix, key, 4, vals FROM c_idx WHERE ix = " IX("s_1") " AND docid = 3", 1, 0, 0 },
  { "entries of an undefined index", "INSERT INTO c_idx SELECT 77, key, docid, vals FROM c_idx WHERE ix = " IX("a_1"), 1, 0, 0 },
  { "entry ix TEXT", "UPDATE c_idx SET ix = 'x' WHERE ix = " IX("a_1") " AND docid = 3", 1, 0, 0 },
  { "entries moved to another index", "UPDATE c_idx SET ix = " IX("s_1") " WHERE ix = " IX("a_1") " AND docid > 10", 1, 0, 0 },
  { "entries of the hashed index garbage", "UPDATE c_idx SET key = x'0102' || key WHERE ix = " IX("h_hashed"), 1, 0, 0 },
  { "every entry gone", "DELETE FROM c_idx", 1, 0, 0 },
  /* index definitions */
  { "spec garbage", "UPDATE c_idxdef SET spec = x'00' WHERE name = 'a_1'", 1, 0, 0 },
  { "spec TEXT", "UPDATE c_idxdef SET spec = CAST(spec AS TEXT) WHERE name = 'a_1'", 1, 0, 0 },
  { "spec INTEGER", "UPDATE c_idxdef SET spec = 4 WHERE name = 'b_1'", 1, 0, 0 },
  { "spec without key", "UPDATE c_idxdef SET spec = doc_update(spec, '{$unset: {key: 1}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec key empty", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {}}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec key not a document", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: 5}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec key text index", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {a: \"text\"}}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec key 0", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {a: 0}}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec key $-path", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {\"$a\": 1}}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec key another field", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {s: 1}}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec key 40 fields",
    "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {f1:1,f2:1,f3:1,f4:1,f5:1,f6:1,f7:1,f8:1,f9:1,"
    "f10:1,f11:1,f12:1,f13:1,f14:1,f15:1,f16:1,f17:1,f18:1,f19:1,f20:1,f21:1,f22:1,f23:1,f24:1,f25:1,"
    "f26:1,f27:1,f28:1,f29:1,f30:1,f31:1,f32:1,f33:1,f34:1}}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec key 32 fields",
    "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {a:1,f2:1,f3:1,f4:1,f5:1,f6:1,f7:1,f8:1,f9:1,"
    "f10:1,f11:1,f12:1,f13:1,f14:1,f15:1,f16:1,f17:1,f18:1,f19:1,f20:1,f21:1,f22:1,f23:1,f24:1,f25:1,"
    "f26:1,f27:1,f28:1,f29:1,f30:1,f31:1,f32:1}}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec two hashed", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {h: \"hashed\", a: \"hashed\"}}}')"
    " WHERE name = 'h_hashed'", 1, 0, 0 },
  { "spec hashed made ascending", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {h: 1}}}')"
    " WHERE name = 'h_hashed'", 1, 0, 0 },
  { "spec ascending made hashed", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {key: {a: \"hashed\"}}}')"
    " WHERE name = 'a_1'", 1, 0, 0 },
  { "spec name differs", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {name: \"zz\"}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "name INTEGER", "UPDATE c_idxdef SET name = 123 WHERE name = 'a_1'", 1, 0, 0 },
  { "name BLOB", "UPDATE c_idxdef SET name = CAST(name AS BLOB) WHERE name = 'a_1'", 1, 0, 0 },
  { "name _id_", "UPDATE c_idxdef SET name = '_id_', spec = doc_update(spec, '{$set: {name: \"_id_\"}}')"
    " WHERE name = 'a_1'", 1, 0, 0 },
  { "spec unknown option", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {weights: 1}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec bad partial filter", "UPDATE c_idxdef SET spec = doc_update(spec,"
    " '{$set: {partialFilterExpression: {a: {$bogus: 1}}}}') WHERE name = 's_1_a_1'", 1, 0, 0 },
  { "spec partial filter not a document", "UPDATE c_idxdef SET spec = doc_update(spec,"
    " '{$set: {partialFilterExpression: 3}}') WHERE name = 's_1_a_1'", 1, 0, 0 },
  { "spec partial filter changed", "UPDATE c_idxdef SET spec = doc_update(spec,"
    " '{$set: {partialFilterExpression: {a: {$lt: 2}}}}') WHERE name = 's_1_a_1'", 1, 0, 0 },
  { "spec expireAfterSeconds negative", "UPDATE c_idxdef SET spec = doc_update(spec,"
    " '{$set: {expireAfterSeconds: -5}}') WHERE name = 't_1'", 1, 0, 0 },
  { "spec expireAfterSeconds huge", "UPDATE c_idxdef SET spec = doc_update(spec,"
    " '{$set: {expireAfterSeconds: 1e300}}') WHERE name = 't_1'", 1, 0, 0 },
  { "spec expireAfterSeconds max", "UPDATE c_idxdef SET spec = doc_update(spec,"
    " '{$set: {expireAfterSeconds: 2147483647}}') WHERE name = 't_1'", 0, 0, 0 },
  { "spec expireAfterSeconds text", "UPDATE c_idxdef SET spec = doc_update(spec,"
    " '{$set: {expireAfterSeconds: \"x\"}}') WHERE name = 't_1'", 1, 0, 0 },
  { "spec TTL on a compound index", "UPDATE c_idxdef SET spec = doc_update(spec,"
    " '{$set: {expireAfterSeconds: 10}}') WHERE name = 'n.m_-1_a_1'", 1, 0, 0 },
  { "spec TTL on _id", "UPDATE c_idxdef SET spec = doc_update(spec,"
    " '{$set: {expireAfterSeconds: 10, key: {_id: 1}}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec unique hashed", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {unique: true}}') WHERE name = 'h_hashed'", 1, 0, 0 },
  { "spec unique dropped", "UPDATE c_idxdef SET spec = doc_update(spec, '{$unset: {unique: 1}}') WHERE name = 's_1'", 0, 0, 0 },
  { "spec made unique", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {unique: true}}') WHERE name = 'a_1'", 1, 0, 0 },
  { "spec made sparse", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {sparse: true}}') WHERE name = 'b_1'", 1, 0, 0 },
  { "spec multikey cleared", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {multikey: false}}') WHERE name = 'b_1'", 1, 0, 0 },
  { "spec multikey set", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {multikey: true}}') WHERE name = 'a_1'", 0, 0, 0 },
  { "spec version 2", "UPDATE c_idxdef SET spec = doc_update(spec, '{$set: {v: 2}}') WHERE name = 'a_1'", 0, 0, 0 },
  { "definition id 0", "UPDATE c_idx SET ix = 0 WHERE ix = " IX("a_1") "; UPDATE c_idxdef SET id = 0 WHERE name = 'a_1'", 1, 0, 0 },
  { "definition id -1", "UPDATE c_idx SET ix = -1 WHERE ix = " IX("a_1") "; UPDATE c_idxdef SET id = -1 WHERE name = 'a_1'", 1, 0, 0 },
  { "definition id huge", "UPDATE c_idxdef SET id = 9223372036854775807 WHERE name = 'a_1'", 1, 0, 0 },
  { "definition twice",
    "INSERT INTO c_idxdef(name, spec) SELECT 'a_1_dup', doc_update(spec, '{$set: {name: \"a_1_dup\"}}')"
    " FROM c_idxdef WHERE name = 'a_1'", 1, 0, 0 },
  { "definition gone", "DELETE FROM c_idxdef WHERE name = 'a_1'", 1, 0, 0 },
  { "every definition gone", "DELETE FROM c_idxdef", 1, 0, 0 },
  { "definitions table gone", "DROP TABLE c_idxdef", 1, 0, 0 },
  { "entries table gone", "DROP TABLE c_idx", 1, 0, 0 },
  { "entries table without vals", "ALTER TABLE c_idx DROP COLUMN vals", 0, 0, 0 },
  { "pages table gone", "DROP TABLE c_pages", 1, 0, 0 },
  { "docs table gone", "DROP TABLE c_docs", 1, 0, 0 },
  /* settings */
  { "version gone", "DELETE FROM c_config WHERE k = 'version'", 1, 0, 0 },
  { "version 2", "UPDATE c_config SET v = 2 WHERE k = 'version'", 1, 0, 0 },
  { "version TEXT", "UPDATE c_config SET v = 'one' WHERE k = 'version'", 1, 0, 0 },
  { "version NULL", "UPDATE c_config SET v = NULL WHERE k = 'version'", 1, 0, 0 },
  { "version huge", "UPDATE c_config SET v = 4294967297 WHERE k = 'version'", 1, 0, 0 },
  { "pagesize gone", "DELETE FROM c_config WHERE k = 'pagesize'", 1, 0, 0 },
  { "pagesize 0", "UPDATE c_config SET v = 0 WHERE k = 'pagesize'", 1, 0, 0 },
  { "pagesize 63", "UPDATE c_config SET v = 63 WHERE k = 'pagesize'", 1, 0, 0 },
  { "pagesize 64", "UPDATE c_config SET v = 64 WHERE k = 'pagesize'", 0, 0, 0 },
  { "pagesize 100", "UPDATE c_config SET v = 100 WHERE k = 'pagesize'", 0, 0, 0 },
  { "pagesize negative", "UPDATE c_config SET v = -4000 WHERE k = 'pagesize'", 1, 0, 0 },
  { "pagesize 2^31-1", "UPDATE c_config SET v = 2147483647 WHERE k = 'pagesize'", 1, 0, 0 },
  { "pagesize 2^32+100", "UPDATE c_config SET v = 4294967396 WHERE k = 'pagesize'", 1, 0, 0 },
  { "pagesize 16 MiB", "UPDATE c_config SET v = 16777216 WHERE k = 'pagesize'", 0, 0, 0 },
  { "pagesize over 16 MiB", "UPDATE c_config SET v = 16777217 WHERE k = 'pagesize'", 1, 0, 0 },
  { "pagesize 2^40", "UPDATE c_config SET v = 1099511627776 WHERE k = 'pagesize'", 1, 0, 0 },
  { "pagesize TEXT", "UPDATE c_config SET v = 'big' WHERE k = 'pagesize'", 1, 0, 0 },
  { "pagesize REAL", "UPDATE c_config SET v = 500.7 WHERE k = 'pagesize'", 0, 0, 0 },
  { "pagesize BLOB", "UPDATE c_config SET v = x'0004' WHERE k = 'pagesize'", 1, 0, 0 },
  { "idxtag TEXT", "UPDATE c_config SET v = 'tag' WHERE k = 'idxtag'", 0, 0, 0 },
  { "idxtag NULL", "UPDATE c_config SET v = NULL WHERE k = 'idxtag'", 0, 0, 0 },
  { "idxtag gone", "DELETE FROM c_config WHERE k = 'idxtag'", 0, 0, 0 },
  { "extra setting", "INSERT INTO c_config VALUES ('zzz', x'00'), (x'01', 2)", 0, 0, 0 },
  { "settings table gone", "DROP TABLE c_config", 1, 0, 0 },
};
#define N_DAMAGE (int)(sizeof(aDamage)/sizeof(aDamage[0]))

/* zSql's first row must hold zExpect as text in its first column (zExpect
** NULL: SQL NULL). */
static void checkAnswer(sqlite3 *db, const char *zSql, const char *zExpect,
                        const char *zWhat){
  sqlite3_stmt *pStmt = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)==SQLITE_OK
   && sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pStmt, 0);
    check(zExpect ? z && strcmp(z, zExpect)==0 : z==0, zWhat, z ? z : "NULL");
  }else{
    check(0, zWhat, sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
}

/* Whatever the damage, a new connection can DROP TABLE the collection,
** and that removes every shadow table. */
static void dropDamaged(const u8 *aDamaged, long nDamaged, const char *zCase){
  sqlite3 *db;
  char *zMsg = 0;
  char zWhat[200];
  int rc;
  writeFile(zPath, aDamaged, nDamaged);
  db = openWork();
  snprintf(zWhat, sizeof(zWhat), "[%s] DROP TABLE c on a new connection", zCase);
  rc = runSql(db, "DROP TABLE c", &zMsg);
  check(rc==SQLITE_OK, zWhat, zMsg);
  sqlite3_free(zMsg);
  checkAnswer(db, "SELECT group_concat(name) FROM sqlite_schema"
                  " WHERE name LIKE 'c!_%' ESCAPE '!'", 0, zWhat);
  checkIdle(db, zWhat);
  sqlite3_close(db);
}

/* A document whose bytes are damaged (its page list and row are sound) can
** be deleted, index entries and all: afterwards doc_check finds nothing. */
static void deleteDamaged(const u8 *aTemplate, long nTemplate){
  static const struct { const char *zDamage, *zDelete; } aCase[] = {
    { "UPDATE c_docs SET body = substr(body, 1, length(body)-3) WHERE id = 3",
      "DELETE FROM c WHERE _id = 3" },
    { "UPDATE c_docs SET body = t_raw(8, 3), size = length(t_raw(8, 3)) WHERE id = 3",
      "DELETE FROM c WHERE rowid = 3" },
    { "UPDATE c_docs SET body = zeroblob(size) WHERE id = 4",
      "DELETE FROM c WHERE _id IN (4, 5)" },
    { "UPDATE c_pages SET data = zeroblob(length(data)) WHERE pgno = " PG1,
      "DELETE FROM c WHERE rowid = " L1 },
    { "UPDATE c_pages SET data = substr(data, 1, 300) || x'ff' || substr(data, 302)"
      " WHERE pgno = " PG1 "+1", "DELETE FROM c WHERE rowid = " L1 },
  };
  int i;
  for(i=0; i<(int)(sizeof(aCase)/sizeof(aCase[0])); i++){
    sqlite3 *db;
    char *zMsg = 0;
    char zWhat[300];
    int rc;
    writeFile(zPath, aTemplate, nTemplate);
    db = openWork();
    exec(db, aCase[i].zDamage);
    sqlite3_close(db);
    db = openWork();
    snprintf(zWhat, sizeof(zWhat), "[%s] %s", aCase[i].zDamage, aCase[i].zDelete);
    rc = runSql(db, aCase[i].zDelete, &zMsg);
    check(rc==SQLITE_OK, zWhat, zMsg);
    sqlite3_free(zMsg);
    checkAnswer(db, "SELECT doc_check('c')", "ok", zWhat);
    checkIdle(db, zWhat);
    sqlite3_close(db);
  }
}

/* A collection that connected while its settings were damaged opens once
** they are repaired, on the same connection (each use tries again). */
static void repairedSettings(const u8 *aTemplate, long nTemplate){
  static const char *const azUse[] = { "SELECT count(*) FROM c", "SELECT doc_count('c')" };
  const char *zWhat = "[version 2, then repaired] the same connection reads again";
  sqlite3 *db;
  int i;
  writeFile(zPath, aTemplate, nTemplate);
  db = openWork();
  exec(db, "UPDATE c_config SET v = 2 WHERE k = 'version'");
  sqlite3_close(db);
  db = openWork();
  for(i=0; i<2; i++){
    char *zMsg = 0;
    int rc = runSql(db, azUse[i], &zMsg);
    check(rc!=SQLITE_OK && zMsg && strstr(zMsg, "c_config"), zWhat, zMsg);
    sqlite3_free(zMsg);
  }
  exec(db, "UPDATE c_config SET v = 1 WHERE k = 'version'");
  exec(db, CLOCK_NOW);                  /* (two documents have expired) */
  checkAnswer(db, "SELECT count(*) || ' ' || doc_count('c') || ' ' || doc_check('c') FROM c",
              "27 27 ok", zWhat);
  checkIdle(db, zWhat);
  sqlite3_close(db);
}

/* Every row of zSql's column iCol, then its error, if any, as one string. */
static char *allRows(sqlite3 *db, const char *zSql, int iCol){
  sqlite3_str *pOut = sqlite3_str_new(0);
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( rc==SQLITE_OK ){
    while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
      sqlite3_str_appendf(pOut, "%s\n", (const char*)sqlite3_column_text(pStmt, iCol));
    }
  }
  if( rc!=SQLITE_DONE ) sqlite3_str_appendf(pOut, "error: %s", sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
  return sqlite3_str_finish(pOut);
}

/* A document read only as text is checked while it is written
** (docextReaderDocJson); one whose _id is read first is checked on its
** own (docextReaderDoc), then written. Both must find the same damage,
** with the same words, and give the same text where there is none. */
static void checkJsonPaths(sqlite3 *db, const char *zCase){
  char *zFused = allRows(db, "SELECT doc FROM c", 0);
  char *zApart = allRows(db, "SELECT _id, doc FROM c", 1);
  char zWhat[128];
  snprintf(zWhat, sizeof(zWhat), "[%s] doc read alone = doc read after _id", zCase);
  check(zFused && zApart && strcmp(zFused, zApart)==0, zWhat, zFused);
  sqlite3_free(zFused);
  sqlite3_free(zApart);
}

static void damageList(const u8 *aTemplate, long nTemplate){
  int i, k;
  for(i=0; i<N_DAMAGE; i++){
    const Damage *pD = &aDamage[i];
    Before before;
    sqlite3 *db;
    u8 *aDamaged;
    long nDamaged;
    char *zMsg = 0;
    int rc;
    writeFile(zPath, aTemplate, nTemplate);
    db = openWork();
    rc = runSql(db, pD->zSql, &zMsg);
    check(rc==SQLITE_OK, pD->zName, zMsg);
    sqlite3_free(zMsg);
    if( pD->bVisible ){
      sqlite3_stmt *pStmt = 0;
      char zWhat[200];
      snprintf(zWhat, sizeof(zWhat), "[%s] doc_check reports it", pD->zName);
      rc = sqlite3_prepare_v2(db, "SELECT doc_check('c')", -1, &pStmt, 0);
      if( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
        const char *z = (const char*)sqlite3_column_text(pStmt, 0);
        check(z && strcmp(z, "ok")!=0, zWhat, z);
      }else{
        check(cleanError(sqlite3_extended_errcode(db), sqlite3_errmsg(db)), zWhat,
              sqlite3_errmsg(db));
      }
      sqlite3_finalize(pStmt);
    }
    if( pD->zProbe ){
      char zWhat[200];
      snprintf(zWhat, sizeof(zWhat), "[%s] %s", pD->zName, pD->zProbe);
      checkAnswer(db, pD->zProbe, pD->zExpect, zWhat);
    }
    sqlite3_close(db);
    aDamaged = readFile(zPath, &nDamaged);
    /* the reads on one connection, each write on a copy of its own */
    writeFile(zPath, aDamaged, nDamaged);
    db = openWork();
    beforeTake(db, &before);
    checkJsonPaths(db, pD->zName);
    for(k=0; k<N_SURFACE; k++){
      if( aSurface[k].bWrite==0 ) runSurface(db, k, pD->zName, 0);
    }
    sqlite3_close(db);
    for(k=0; k<N_SURFACE; k++){
      if( aSurface[k].bWrite==0 ) continue;
      writeFile(zPath, aDamaged, nDamaged);
      db = openWork();
      runSurface(db, k, pD->zName, &before);
      sqlite3_close(db);
    }
    dropDamaged(aDamaged, nDamaged, pD->zName);
    beforeFree(&before);
    free(aDamaged);
  }
}

/*------------------------------------------------------------------------
** 2. Random damage
*/

typedef struct ShadowTab ShadowTab;
struct ShadowTab {
  const char *zName;
  int nCol, nKey;           /* columns; the first nKey are the key */
  const char *azCol[5];
};
static const ShadowTab aTab[] = {
  { "docs",   5, 1, { "id", "idkey", "size", "body", "pages" } },
  { "pages",  2, 1, { "pgno", "data" } },
  { "idx",    4, 3, { "ix", "key", "docid", "vals" } },
  { "idxdef", 3, 1, { "id", "name", "spec" } },
  { "config", 2, 1, { "k", "v" } },
};

/* A random row of a table: its values (sqlite3_value_dup'd), or 0 rows. */
static int randomRow(sqlite3 *db, const ShadowTab *pT, sqlite3_value **apVal, int *pnRow){
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_mprintf("SELECT * FROM \"c_%s\" LIMIT 1 OFFSET"
                               " abs(?1) %% max(1, (SELECT count(*) FROM \"c_%s\"))",
                               pT->zName, pT->zName);
  int i, bRow = 0;
  *pnRow = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)==SQLITE_OK ){
    sqlite3_bind_int64(pStmt, 1, (i64)rnd(1000000));
    if( sqlite3_step(pStmt)==SQLITE_ROW && sqlite3_column_count(pStmt)>=pT->nCol ){
      for(i=0; i<pT->nCol; i++) apVal[i] = sqlite3_value_dup(sqlite3_column_value(pStmt, i));
      bRow = 1;
    }
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  *pnRow = bRow;
  return bRow;
}

/* A damaged copy of value v, bound to parameter iParam of pStmt. */
static void bindDamaged(sqlite3_stmt *pStmt, int iParam, sqlite3_value *v, sqlite3_value *vOther){
  static const i64 aInt[] = { 0, -1, 1, 5, 63, 64, 4096, 2147483647LL, 2147483648LL,
                              4294967296LL, 1099511627776LL, 9223372036854775807LL,
                              (i64)(-9223372036854775807LL - 1) };
  int eType = sqlite3_value_type(v);
  int eHow = (int)rnd(10);
  if( eHow==0 ){ sqlite3_bind_null(pStmt, iParam); return; }
  if( eHow==1 && vOther ){ sqlite3_bind_value(pStmt, iParam, vOther); return; }
  if( eType==SQLITE_BLOB || eType==SQLITE_TEXT ){
    int n = sqlite3_value_bytes(v), m, k, nOps;
    const u8 *a = eType==SQLITE_BLOB ? sqlite3_value_blob(v) : sqlite3_value_text(v);
    u8 *b = malloc(n + 64);
    memcpy(b, a, n);
    m = n;
    nOps = 1 + (int)rnd(3);
    for(k=0; k<nOps; k++){
      switch( rnd(7) ){
        case 0: if( m ) b[rnd(m)] ^= (u8)(1 << rnd(8)); break;
        case 1: if( m ) b[rnd(m)] = (u8)rnd(256); break;
        case 2: m = (int)rnd(m+1); break;
        case 3: if( m<n+56 ){ int j, e = 1+(int)rnd(8); for(j=0; j<e && m<n+64; j++) b[m++] = (u8)rnd(256); } break;
        case 4: if( m>=4 ){
                  static const int32_t aLen[] = { 0, -1, 4, 5, 0x7fffffff, 200, 1 };
                  int o = (int)rnd(m-3);
                  int32_t x = rnd(2) ? (int32_t)m - o + (int)rnd(5) - 2 : aLen[rnd(7)];
                  docextPutI32(b+o, x);
                } break;
        case 5: if( m ){ int o = (int)rnd(m); b[o] = (u8)(b[o]==0 ? 1 : 0); } break;
        default: if( m>1 ){ int o = (int)rnd(m-1); u8 t = b[o]; b[o] = b[o+1]; b[o+1] = t; } break;
      }
    }
    if( eType==SQLITE_TEXT || rnd(12)==0 ){
      sqlite3_bind_text(pStmt, iParam, (const char*)b, m, SQLITE_TRANSIENT);
    }else{
      sqlite3_bind_blob(pStmt, iParam, b, m, SQLITE_TRANSIENT);
    }
    free(b);
    return;
  }
  switch( rnd(5) ){
    case 0: sqlite3_bind_int64(pStmt, iParam, aInt[rnd(sizeof(aInt)/sizeof(aInt[0]))]); break;
    case 1: sqlite3_bind_int64(pStmt, iParam, (i64)((u64)sqlite3_value_int64(v) + rnd(5) - 2)); break;
    case 2: sqlite3_bind_text(pStmt, iParam, "12", 2, SQLITE_STATIC); break;
    case 3: sqlite3_bind_double(pStmt, iParam, sqlite3_value_double(v) + 0.5); break;
    default: sqlite3_bind_blob(pStmt, iParam, "\x01\x02", 2, SQLITE_STATIC); break;
  }
}

/* One random damage; returns 1 if a row changed. */
static int randomDamage(sqlite3 *db){
  static const int aWeight[] = { 4, 3, 4, 1, 1 };   /* docs, pages, idx, idxdef, config */
  const ShadowTab *pT;
  sqlite3_value *apVal[5], *apOther[5];
  sqlite3_stmt *pStmt = 0;
  DocBuf sql;
  int i, nRow = 0, nOther = 0, iCol, rc = SQLITE_OK, eOp, w = (int)rnd(13), bDone = 0;
  for(i=0; w>=aWeight[i]; i++) w -= aWeight[i];
  pT = &aTab[i];
  if( !randomRow(db, pT, apVal, &nRow) ) return 0;
  randomRow(db, pT, apOther, &nOther);
  memset(&sql, 0, sizeof(sql));
  iCol = (int)rnd(pT->nCol);
  eOp = (int)rnd(10);
  if( eOp==0 ){
    docextBufAppendf(&rc, &sql, "DELETE FROM \"c_%s\" WHERE ", pT->zName);
  }else if( eOp==1 ){
    docextBufAppendf(&rc, &sql, "INSERT INTO \"c_%s\" SELECT ", pT->zName);
    for(i=0; i<pT->nCol; i++){
      docextBufAppendf(&rc, &sql, "%s%s", i ? ", " : "", i==iCol ? "?1" : pT->azCol[i]);
    }
    docextBufAppendf(&rc, &sql, " FROM \"c_%s\" WHERE ", pT->zName);
  }else{
    docextBufAppendf(&rc, &sql, "UPDATE \"c_%s\" SET %s = ?1 WHERE ", pT->zName, pT->azCol[iCol]);
  }
  for(i=0; i<pT->nKey; i++){
    docextBufAppendf(&rc, &sql, "%s%s IS ?%d", i ? " AND " : "", pT->azCol[i], i+2);
  }
  docextBufAppendByte(&rc, &sql, 0);
  if( rc==SQLITE_OK && sqlite3_prepare_v2(db, (const char*)sql.a, -1, &pStmt, 0)==SQLITE_OK ){
    if( eOp!=0 ) bindDamaged(pStmt, 1, apVal[iCol], nOther ? apOther[iCol] : 0);
    for(i=0; i<pT->nKey; i++) sqlite3_bind_value(pStmt, i+2, apVal[i]);
    bDone = sqlite3_step(pStmt)==SQLITE_DONE && sqlite3_changes(db)>0;
    if( bDone && getenv("CORRUPT_TRACE") ){
      char *z = sqlite3_expanded_sql(pStmt);
      fprintf(stderr, "damage: %s\n", z);
      sqlite3_free(z);
    }
  }
  sqlite3_finalize(pStmt);
  docextBufFree(&sql);
  for(i=0; i<pT->nCol; i++){
    sqlite3_value_free(apVal[i]);
    if( nOther ) sqlite3_value_free(apOther[i]);
  }
  return bDone;
}

static void damageRandom(const u8 *aTemplate, long nTemplate, int nCase){
  int i, k;
  for(i=0; i<nCase; i++){
    sqlite3 *db;
    char zCase[64];
    int nDamage = 1 + (int)rnd(3), nDone = 0, nTry;
    writeFile(zPath, aTemplate, nTemplate);
    db = openWork();
    for(nTry=0; nDone<nDamage && nTry<20; nTry++) nDone += randomDamage(db);
    snprintf(zCase, sizeof(zCase), "random case %d", i);
    checkJsonPaths(db, zCase);
    for(k=0; k<6; k++){
      int iSurface = (int)rnd(N_SURFACE);
      runSurface(db, iSurface, zCase, 0);
      if( aSurface[iSurface].bWrite==2 ) break;   /* (the collection may be gone) */
    }
    if( k==6 && rnd(4)==0 ){
      /* and once more, reopened */
      sqlite3_close(db);
      db = openWork();
      runSurface(db, (int)rnd(N_SURFACE), zCase, 0);
    }
    sqlite3_close(db);
  }
}

int main(int argc, char **argv){
  int nCase = argc>1 ? atoi(argv[1]) : 1200;
  if( argc>2 ) rngState ^= (u64)strtoull(argv[2], 0, 0) * 0x2545F4914F6CDD1DULL;
  u8 *aTemplate;
  long nTemplate;
  buildTemplate();
  checkTemplate();
  aTemplate = readFile(zPath, &nTemplate);
  if( getenv("CORRUPT_NOLIST")==0 ){
    damageList(aTemplate, nTemplate);
    deleteDamaged(aTemplate, nTemplate);
    repairedSettings(aTemplate, nTemplate);
  }
  damageRandom(aTemplate, nTemplate, nCase);
  free(aTemplate);
  removeDb(zPath);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
