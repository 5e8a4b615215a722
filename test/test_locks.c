/*
** test_locks.c — no read or write of docext outlives the user's statement.
**
** docext runs statements of its own inside the user's (index ranges,
** document reads, commands). If one of them were left running after the
** user's statement is reset, the connection would keep its read
** transaction: in rollback-journal mode every other connection's writes
** would then fail with "database is locked", and in WAL mode checkpoints
** could not finish. For each statement below, on a file database:
**   1. step it once (a LIMIT or an application that stops reading) and
**      reset it; then step it to the end and reset it again;
**   2. after each, no statement of the connection may be busy, and a
**      second connection must be able to write at once (no busy timeout).
** In WAL mode (each test runs in both), the second connection's
** checkpoint must also complete, which no reader allows. Both modes run
** twice: with the collection in the main database, and in a database
** attached to a connection whose main database is another file.
** The statements cover every kind of plan (collection scan, _id point and
** range, index point, range, descending, multikey, $in, $or, sort from an
** index and in memory, covered counts), the functions that read
** collections and the commands.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "testdb.h"

static int bWal = 0;          /* the database is in WAL mode */

/* After zSql (on the first connection) was reset: nothing of it runs and
** the other connection can write. */
static void checkReleased(sqlite3 *db, sqlite3 *dbOther, const char *zSql,
                          const char *zWhen){
  char zWhat[600];
  char *zErr = 0;
  int rc;
  snprintf(zWhat, sizeof(zWhat), "%s (%s%s%s)", zSql, zWhen, bWal ? ", WAL" : "",
           sqlite3_db_filename(db, "aux") ? ", attached" : "");
  checkIdle(db, zWhat);
  rc = sqlite3_exec(dbOther, "BEGIN IMMEDIATE; INSERT INTO other VALUES (1); COMMIT",
                    0, 0, &zErr);
  check(rc==SQLITE_OK, zWhat, zErr);
  if( rc!=SQLITE_OK ) sqlite3_exec(dbOther, "ROLLBACK", 0, 0, 0);
  sqlite3_free(zErr);
  if( bWal ){
    /* no reader left: the other connection's checkpoint completes */
    sqlite3_stmt *pCkpt = 0;
    int bBusy = 1;
    if( sqlite3_prepare_v2(dbOther, "PRAGMA wal_checkpoint(TRUNCATE)", -1, &pCkpt, 0)==SQLITE_OK
     && sqlite3_step(pCkpt)==SQLITE_ROW ){
      bBusy = sqlite3_column_int(pCkpt, 0);
    }
    sqlite3_finalize(pCkpt);
    check(bBusy==0, zWhat, "a checkpoint could not complete");
  }
}

static void testStatement(sqlite3 *db, sqlite3 *dbOther, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( rc!=SQLITE_OK ){
    check(0, zSql, sqlite3_errmsg(db));
    return;
  }
  rc = sqlite3_step(pStmt);
  check(rc==SQLITE_ROW || rc==SQLITE_DONE, zSql, sqlite3_errmsg(db));
  sqlite3_reset(pStmt);
  checkReleased(db, dbOther, zSql, "after one row");
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
  check(rc==SQLITE_DONE, zSql, sqlite3_errmsg(db));
  sqlite3_reset(pStmt);
  checkReleased(db, dbOther, zSql, "after every row");
  sqlite3_finalize(pStmt);
}

/* Statements that read; each returns more than one row where it can, so
** stopping after the first leaves work undone. */
static const char *azRead[] = {
  "SELECT doc FROM c",
  "SELECT doc FROM c LIMIT 2",
  "SELECT doc FROM c WHERE _id = 3",
  "SELECT doc FROM c WHERE _id > 3",
  "SELECT doc FROM c WHERE _id BETWEEN 2 AND 30 ORDER BY _id DESC",
  "SELECT doc FROM c WHERE _id IN (1, 5, 9)",
  "SELECT doc FROM c('{u: 2}')",
  "SELECT doc FROM c('{u: 2}') LIMIT 2",
  "SELECT doc FROM c('{u: {$gt: 1}}')",
  "SELECT doc FROM c('{u: {$in: [1, 3]}}')",
  "SELECT doc FROM c('{$or: [{u: 1}, {tags: \"x\"}]}')",
  "SELECT doc FROM c('{tags: \"y\"}')",
  "SELECT doc FROM c('{u: 2}', NULL, '{w: -1}') LIMIT 3",
  "SELECT doc FROM c('{}', NULL, '{u: -1}') LIMIT 3",
  "SELECT doc FROM c('{}', NULL, '{w: 1}') LIMIT 3",
  "SELECT doc FROM c('{u: {$gte: 0}}', '{u: 1, _id: 0}')",
  "SELECT count(*) FROM c('{u: 2}')",
  "SELECT doc FROM c WHERE doc_match(doc, '{u: 3}')",
  "SELECT a.doc, b.doc FROM c a, c b WHERE b._id = a._id",
  "SELECT doc_count('c', '{u: 2}')",
  "SELECT doc_distinct('c', 'w', '{u: 2}')",
  "SELECT doc_explain('c', '{u: 2}')",
  "SELECT * FROM doc_indexes('c')",
  "SELECT doc_stats('c')",
  "SELECT doc_check('c')",
  "SELECT * FROM doc_each('[{\"a\": 1}, {\"a\": 2}]')",
  "SELECT (SELECT count(*) FROM c('{u: 2}') WHERE _id > o.x) FROM"
  " (SELECT 1 AS x UNION SELECT 30) AS o",
  "SELECT o.x, c.doc FROM (SELECT 2 AS x UNION SELECT 3) AS o, c"
  " WHERE c.filter = json_object('u', o.x)",
  "SELECT a.doc, b.doc FROM c('{u: 2}') a, c('{u: {$gte: 3}}') b",
};

/* Statements that write, each inside a transaction rolled back after it
** (so every one starts from the same data): what must be released here is
** docext's own statements once the user's has ended. */
static const char *azWrite[] = {
  "SELECT doc_update_one('c', '{u: 2}', '{$set: {w: 0}}')",
  "SELECT doc_update_many('c', '{u: 2}', '{$inc: {w: 1}}')",
  "SELECT doc_update_many('c', '{u: 2}', '{$push: {tags: \"z\"}}')",
  "SELECT doc_delete_one('c', '{u: 3}')",
  "SELECT doc_delete_many('c', '{u: {$gt: 2}}')",
  "SELECT doc_find_and_modify('c', '{query: {u: 1}, update: {$set: {v: 1}}, new: true}')",
  "SELECT doc_find_and_modify('c', '{query: {u: 1}, sort: {w: -1}, remove: true}')",
  "UPDATE c SET doc = doc_update(bson, '{$set: {x: 1}}') WHERE _id < 5",
  "DELETE FROM c WHERE _id > 40",
  "INSERT INTO c(doc) VALUES ('{_id: 1000, u: 9}')",
  "SELECT doc_create_index('c', '{v: 1}')",
  "SELECT doc_drop_index('c', 'w_1')",
  "SELECT doc_ttl_sweep('c')",
};

/* bAttached: the collection lives in a database attached as "aux" to a
** connection whose main database is another file; the statements name it
** unqualified, as SQLite resolves such names through attached databases. */
static void testMode(int bAttached){
  char zPath[] = "/tmp/docext-test-locks-XXXXXX";
  char zMain[] = "/tmp/docext-test-locks-main-XXXXXX";
  sqlite3 *db, *dbOther;
  size_t i;

  makeTempDb(zPath);
  if( bAttached ){
    char *zAttach;
    makeTempDb(zMain);
    db = openDb(zMain, 1);
    zAttach = sqlite3_mprintf("ATTACH %Q AS aux", zPath);
    exec(db, zAttach);
    sqlite3_free(zAttach);
    if( bWal ) exec(db, "PRAGMA aux.journal_mode=WAL");
    exec(db, "CREATE VIRTUAL TABLE aux.c USING docext");
    exec(db, "CREATE TABLE aux.other(x)");
  }else{
    db = openDb(zPath, 1);
    if( bWal ) exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "CREATE VIRTUAL TABLE c USING docext");
    exec(db, "CREATE TABLE other(x)");
  }
  exec(db, "BEGIN");
  for(i=1; i<=50; i++){
    char zIns[200];
    /* One document in ten is large enough to be stored in pages. */
    snprintf(zIns, sizeof(zIns), "INSERT INTO c(doc) VALUES ('{_id: %d, u: %d, w: %d,"
             " tags: [\"%s\", \"%s\"]%s}')", (int)i, (int)(i%5), (int)(i*7%11),
             i%2 ? "x" : "y", i%3 ? "y" : "z",
             i%10 ? "" : ", big: \"' || hex(zeroblob(6000)) || '\"");
    exec(db, zIns);
  }
  exec(db, "COMMIT");
  exec(db, "SELECT doc_create_index('c', '{u: 1, w: -1}')");
  exec(db, "SELECT doc_create_index('c', '{tags: 1}')");
  exec(db, "SELECT doc_create_index('c', '{w: 1}')");
  exec(db, "SELECT doc_create_index('c', '{t: 1}', '{expireAfterSeconds: 60}')");
  dbOther = openDb(zPath, 0);

  for(i=0; i<sizeof(azRead)/sizeof(azRead[0]); i++){
    testStatement(db, dbOther, azRead[i]);
  }
  for(i=0; i<sizeof(azWrite)/sizeof(azWrite[0]); i++){
    sqlite3_stmt *pStmt = 0;
    int rc;
    exec(db, "BEGIN");
    rc = sqlite3_prepare_v2(db, azWrite[i], -1, &pStmt, 0);
    if( rc==SQLITE_OK ){
      while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
    }
    check(rc==SQLITE_DONE, azWrite[i], sqlite3_errmsg(db));
    sqlite3_finalize(pStmt);
    exec(db, "ROLLBACK");
    checkReleased(db, dbOther, azWrite[i], "rolled back");
  }
  /* And once more every read, now that the connection has cached and
  ** borrowed statements of every kind. */
  for(i=0; i<sizeof(azRead)/sizeof(azRead[0]); i++){
    testStatement(db, dbOther, azRead[i]);
  }

  sqlite3_close(dbOther);
  sqlite3_close(db);
  removeDb(zPath);
  if( bAttached ) removeDb(zMain);
}

int main(void){
  int bAttached;
  for(bAttached=0; bAttached<2; bAttached++){
    bWal = 0;
    testMode(bAttached);
    bWal = 1;
    testMode(bAttached);
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
