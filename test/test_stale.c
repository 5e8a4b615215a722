/*
** test_stale.c — a connection's caches follow changes it did not make.
**
** docext keeps, per connection, prepared statements, each collection's
** index list (with multikey and TTL flags) and a spare cursor. Another
** connection may change any of it between two statements (create or drop
** an index, insert a multikey document, drop and recreate or rename the
** collection), and a transaction of this connection may be rolled back
** after changing it. After each such change, on a file database in
** rollback-journal and in WAL mode, every query of a fixed list must give
** on the long-lived connection A exactly what it gives on a connection
** opened afresh (which has no cache to be stale): the same rows, the same
** errors. The queries reach the collection every way docext offers: the
** table with a filter (literal, and bound when the statement runs), sort
** and projection, _id lookups, count(*), and the functions that take the
** collection's name, qualified or not, called from statements that read no
** table (so no transaction is open when they plan). All of it twice more
** with the collection in a database attached as "aux" to connections whose
** main databases are another file.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "testdb.h"

/* Where the collection is: "main", or "aux" (attached). SQL below writes
** "@S" for it. */
static const char *zSchema = "main";
static const char *zMainPath = 0;     /* aux mode: the main database file */

/* zSql with every "@S" replaced by zSchema; sqlite3_malloc'd. */
static char *sub(const char *zSql){
  DocBuf out;
  int rc = SQLITE_OK;
  memset(&out, 0, sizeof(out));
  while( *zSql ){
    if( zSql[0]=='@' && zSql[1]=='S' ){
      docextBufAppendStr(&rc, &out, zSchema);
      zSql += 2;
    }else{
      docextBufAppendByte(&rc, &out, (u8)*zSql++);
    }
  }
  docextBufAppendByte(&rc, &out, 0);
  if( rc!=SQLITE_OK ){
    printf("out of memory\n");
    exit(1);
  }
  return (char*)out.a;
}

/* exec() of sub(zSql). */
static void execS(sqlite3 *db, const char *zSql){
  char *z = sub(zSql);
  exec(db, z);
  sqlite3_free(z);
}

/* A connection to the collection's database: the file itself, or (aux
** mode) the main database file with it attached as "aux". */
static sqlite3 *openConn(const char *zPath){
  sqlite3 *db;
  if( zMainPath ){
    char *zAttach = sqlite3_mprintf("ATTACH %Q AS aux", zPath);
    db = openDb(zMainPath, 1);
    exec(db, zAttach);
    sqlite3_free(zAttach);
  }else{
    db = openDb(zPath, 1);
  }
  return db;
}

/* Every row of zSql (one parameter, bound to zArg when it has one) as
** text, or its error; sqlite3_malloc'd. */
static char *run(sqlite3 *db, const char *zSqlS, const char *zArg){
  sqlite3_stmt *pStmt = 0;
  DocBuf out;
  int rc = SQLITE_OK, i;
  char *zSql = sub(zSqlS);
  memset(&out, 0, sizeof(out));
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    docextBufAppendf(&rc, &out, "error: %s", sqlite3_errmsg(db));
  }else{
    int rcStep;
    if( sqlite3_bind_parameter_count(pStmt)>0 ){
      sqlite3_bind_text(pStmt, 1, zArg, -1, SQLITE_STATIC);
    }
    while( (rcStep = sqlite3_step(pStmt))==SQLITE_ROW ){
      for(i=0; i<sqlite3_column_count(pStmt); i++){
        const char *z = (const char*)sqlite3_column_text(pStmt, i);
        docextBufAppendf(&rc, &out, "%s%s", i ? "|" : "", z ? z : "NULL");
      }
      docextBufAppendByte(&rc, &out, '\n');
    }
    if( rcStep!=SQLITE_DONE ) docextBufAppendf(&rc, &out, "error: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  docextBufAppendByte(&rc, &out, 0);
  if( rc!=SQLITE_OK ){
    printf("out of memory\n");
    exit(1);
  }
  return (char*)out.a;
}

/* The queries, each with the text bound to its parameter (if any). */
static const char *azQuery[][2] = {
  /* first, while A has no transaction that could have seen the change */
  { "SELECT doc_count('@S.c', '{u: 2}')", 0 },
  { "SELECT doc_count('@S.c', '{w: 3}')", 0 },
  { "SELECT doc_count('@S.c', '{u: 7}')", 0 },
  { "SELECT doc_distinct('@S.c', 'u', '{u: {$lt: 4}}')", 0 },
  { "SELECT doc_explain('@S.c', '{u: 2}')->>'indexName'", 0 },
  { "SELECT doc_explain('@S.c', '{w: 3}')->>'indexName'", 0 },
  { "SELECT doc_count('@S.d', '{u: 2}')", 0 },
  { "SELECT _id FROM c('{u: 2}')", 0 },
  { "SELECT count(*) FROM c('{u: 2}')", 0 },
  { "SELECT count(*) FROM c WHERE filter = ?", "{u: 2}" },
  { "SELECT doc FROM c('{u: {$gte: 2}}', '{u: 1, _id: 0}')", 0 },
  { "SELECT doc FROM c('{u: 7}', '{u: 1, _id: 0}')", 0 },
  { "SELECT _id FROM c('{w: 3}')", 0 },
  { "SELECT _id FROM c('{}', NULL, '{u: -1, _id: 1}') LIMIT 5", 0 },
  { "SELECT _id FROM c('{}', NULL, NULL, '{hint: \"u_1\"}') LIMIT 3", 0 },
  { "SELECT _id FROM c WHERE _id > 45", 0 },
  { "SELECT count(*) FROM c", 0 },
  { "SELECT doc_count('c', '{u: 2}')", 0 },
  { "SELECT name, multikey FROM doc_indexes('@S.c')", 0 },
  { "SELECT _id FROM d('{u: 2}')", 0 },
};
#define N_QUERY (int)(sizeof(azQuery)/sizeof(azQuery[0]))

/* Each query on A (whose caches may be stale) and on a new connection. */
static void compare(sqlite3 *dbA, const char *zDb, const char *zAfter){
  sqlite3 *dbNew = openConn(zDb);
  int i;
  for(i=0; i<N_QUERY; i++){
    char *zA = run(dbA, azQuery[i][0], azQuery[i][1]);
    char *zNew = run(dbNew, azQuery[i][0], azQuery[i][1]);
    char zWhat[300];
    snprintf(zWhat, sizeof(zWhat), "%s, after %s (in %s)", azQuery[i][0], zAfter, zSchema);
    check(strcmp(zA, zNew)==0, zWhat, 0);
    if( strcmp(zA, zNew)!=0 ) printf("  stale connection:\n%s  new connection:\n%s", zA, zNew);
    sqlite3_free(zA);
    sqlite3_free(zNew);
  }
  sqlite3_close(dbNew);
}

static void fill(sqlite3 *db){
  execS(db, "CREATE VIRTUAL TABLE @S.c USING docext");
  exec(db, "INSERT INTO c(doc) WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x+1"
           " FROM s WHERE x<50) SELECT json_object('_id', x, 'u', x%5, 'w', x%7) FROM s");
  exec(db, "SELECT doc_create_index('c', '{u: 1}')");
}

/* A statement prepared before a change, stepped after it. */
static void testPrepared(sqlite3 *dbA, sqlite3 *dbB, const char *zChange,
                         const char *zSql, const char *zAfter){
  sqlite3_stmt *pStmt = 0;
  sqlite3 *dbNew;
  char *zNew;
  DocBuf got;
  int rc = SQLITE_OK, rcStep;
  char zWhat[300];
  memset(&got, 0, sizeof(got));
  if( sqlite3_prepare_v2(dbA, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    check(0, zSql, sqlite3_errmsg(dbA));
    return;
  }
  execS(dbB, zChange);
  while( (rcStep = sqlite3_step(pStmt))==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pStmt, 0);
    docextBufAppendf(&rc, &got, "%s\n", z ? z : "NULL");
  }
  if( rcStep!=SQLITE_DONE ) docextBufAppendf(&rc, &got, "error: %s", sqlite3_errmsg(dbA));
  docextBufAppendByte(&rc, &got, 0);
  sqlite3_finalize(pStmt);
  dbNew = openConn(sqlite3_db_filename(dbA, zSchema));
  zNew = run(dbNew, zSql, 0);
  sqlite3_close(dbNew);
  snprintf(zWhat, sizeof(zWhat), "%s prepared before %s (in %s)", zSql, zAfter, zSchema);
  check(rc==SQLITE_OK && strcmp((char*)got.a, zNew)==0, zWhat, 0);
  if( rc==SQLITE_OK && strcmp((char*)got.a, zNew)!=0 ){
    printf("  prepared before:\n%s  new connection:\n%s", (char*)got.a, zNew);
  }
  docextBufFree(&got);
  sqlite3_free(zNew);
}

static void testMode(int bWal, int bAttached){
  char zPath[] = "/tmp/docext-test-stale-XXXXXX";
  char zMain[] = "/tmp/docext-test-stale-main-XXXXXX";
  sqlite3 *dbA, *dbB;
  const char *zMode = bWal ? "WAL" : "rollback journal";
  char zAfter[200];
  makeTempDb(zPath);
  zSchema = "main";
  zMainPath = 0;
  if( bAttached ){
    makeTempDb(zMain);
    zSchema = "aux";
    zMainPath = zMain;
  }
  dbA = openConn(zPath);
  if( bWal ) execS(dbA, "PRAGMA @S.journal_mode=WAL");
  fill(dbA);
  dbB = openConn(zPath);

#define STEP(zChangeB, zWhy) do{ \
    compare(dbA, zPath, "nothing (warming the caches)"); \
    execS(dbB, zChangeB); \
    snprintf(zAfter, sizeof(zAfter), "%s (%s)", zWhy, zMode); \
    compare(dbA, zPath, zAfter); }while(0)

  /* Another connection changes the indexes and the documents. */
  STEP("SELECT doc_drop_index('c', 'u_1')", "B dropped u_1");
  STEP("SELECT doc_create_index('c', '{u: 1}')", "B created u_1");
  STEP("INSERT INTO c(doc) VALUES ('{_id: 100, u: 2, w: 3}')", "B inserted a document");
  STEP("SELECT doc_create_index('c', '{w: 1}')", "B created w_1");
  STEP("INSERT INTO c(doc) VALUES ('{_id: 101, u: [2, 7], w: 3}')", "B inserted a multikey document");
  STEP("SELECT doc_drop_index('c', 'w_1'); SELECT doc_update_many('c', '{w: 3}', '{$inc: {w: 1}}')",
       "B dropped w_1 and updated");
  STEP("DROP TABLE c; CREATE VIRTUAL TABLE @S.c USING docext;"
       " INSERT INTO c(doc) VALUES ('{_id: 1, u: 2, w: 3}'), ('{_id: 2, u: [7, 2]}');"
       " SELECT doc_create_index('c', '{w: 1}')",
       "B dropped and recreated c");
  STEP("ALTER TABLE c RENAME TO d", "B renamed c to d");
  STEP("ALTER TABLE d RENAME TO c; SELECT doc_create_index('c', '{u: 1}')",
       "B renamed d back to c");

  /* Statements prepared (with their plans) before the change. */
  testPrepared(dbA, dbB, "SELECT doc_drop_index('c', 'u_1')",
               "SELECT _id FROM c('{u: 2}')", "B dropped u_1");
  testPrepared(dbA, dbB, "SELECT doc_create_index('c', '{u: 1}');"
               " INSERT INTO c(doc) VALUES ('{_id: 3, u: 2}')",
               "SELECT _id FROM c('{u: 2}')", "B created u_1 and inserted");
  testPrepared(dbA, dbB, "DROP TABLE c; CREATE VIRTUAL TABLE @S.c USING docext;"
               " INSERT INTO c(doc) VALUES ('{_id: 9, u: 2}')",
               "SELECT _id FROM c('{u: 2}')", "B dropped and recreated c");
  testPrepared(dbA, dbA, "DROP TABLE c",
               "SELECT _id FROM c('{u: 2}')", "A dropped c");
  fill(dbA);

  /* A's own work, rolled back. */
  snprintf(zAfter, sizeof(zAfter), "A's rolled-back index (%s)", zMode);
  compare(dbA, zPath, "nothing (warming the caches)");
  execS(dbA, "BEGIN; SELECT doc_create_index('c', '{w: 1}'); SELECT doc_count('c', '{w: 3}');"
            " ROLLBACK");
  compare(dbA, zPath, zAfter);
  snprintf(zAfter, sizeof(zAfter), "A's rolled-back multikey insert (%s)", zMode);
  execS(dbA, "BEGIN; INSERT INTO c(doc) VALUES ('{_id: 200, u: [2, 7]}');"
            " SELECT doc_count('c', '{u: 7}'); ROLLBACK");
  compare(dbA, zPath, zAfter);
  snprintf(zAfter, sizeof(zAfter), "A's rolled-back savepoint (%s)", zMode);
  execS(dbA, "BEGIN; SAVEPOINT s; SELECT doc_drop_index('c', 'u_1');"
            " INSERT INTO c(doc) VALUES ('{_id: 201, u: [2, 7]}'); ROLLBACK TO s;"
            " SELECT doc_count('c', '{u: 2}'); COMMIT");
  compare(dbA, zPath, zAfter);
  snprintf(zAfter, sizeof(zAfter), "A's rolled-back rename (%s)", zMode);
  execS(dbA, "BEGIN; ALTER TABLE c RENAME TO d; SELECT doc_count('d', '{u: 2}'); ROLLBACK");
  compare(dbA, zPath, zAfter);
#undef STEP

  sqlite3_close(dbB);
  sqlite3_close(dbA);
  removeDb(zPath);
  if( bAttached ) removeDb(zMain);
}

/* A statement prepared before its collection was sharded, by this
** connection or another. Its plan may be a one-pass UPDATE by _id, which
** has no statement journal to undo a routed write that fails halfway (a
** move between shards), so it must not run: SQLite prepares it again
** (once) and the new plan routes it; a statement of the legacy
** sqlite3_prepare() fails with SQLITE_SCHEMA and changes nothing. */
static void testShardedSince(int bByOther){
  char zMain[] = "/tmp/docext-test-stale-sh-XXXXXX";
  char zS1[] = "/tmp/docext-test-stale-s1-XXXXXX";
  char zS2[] = "/tmp/docext-test-stale-s2-XXXXXX";
  const char *zWho = bByOther ? "B" : "A";
  sqlite3 *dbA, *dbB;
  sqlite3_stmt *pUpd = 0, *pLegacy = 0, *pRead = 0, *pDel = 0;
  char zWhat[200], *zAttach;
  int rc;
  makeTempDb(zMain);
  makeTempDb(zS1);
  makeTempDb(zS2);
  zAttach = sqlite3_mprintf("ATTACH %Q AS s1; ATTACH %Q AS s2", zS1, zS2);
  dbA = openDb(zMain, 1);
  dbB = openDb(zMain, 1);
  exec(dbA, zAttach);
  exec(dbB, zAttach);
  /* (docext's shard catalog exists before: making it changes the schema,
  ** which alone would make SQLite prepare every statement again) */
  exec(dbA, "SELECT doc_add_shard('s1'), doc_add_shard('s2')");
  exec(dbA, "CREATE VIRTUAL TABLE c USING docext");
  exec(dbA, "INSERT INTO c(doc) WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x+1"
            " FROM s WHERE x<40) SELECT json_object('_id', x, 'k', x) FROM s");
  rc = sqlite3_prepare_v2(dbA, "UPDATE c SET doc = ?1 WHERE _id = ?2", -1, &pUpd, 0);
  if( rc==SQLITE_OK ){
    rc = sqlite3_prepare(dbA, "UPDATE c SET doc = ?1 WHERE _id = ?2", -1, &pLegacy, 0);
  }
  if( rc==SQLITE_OK ){
    rc = sqlite3_prepare_v2(dbA, "SELECT doc FROM c WHERE _id = ?1", -1, &pRead, 0);
  }
  if( rc==SQLITE_OK ){
    rc = sqlite3_prepare_v2(dbA, "DELETE FROM c WHERE _id = ?1", -1, &pDel, 0);
  }
  if( rc!=SQLITE_OK ){
    printf("cannot prepare: %s\n", sqlite3_errmsg(dbA));
    exit(1);
  }
  /* Two chunks, one per shard: k < 20 on s1, the rest on s2. */
  exec(bByOther ? dbB : dbA,
       "SELECT doc_shard_collection('c', '{k: 1}');"
       " SELECT doc_split_chunk('c', '{k: 20}');"
       " SELECT doc_move_chunk('c', '{k: 20}', 's2')");

  /* Moves document 5 from s1 to s2, through a new plan. */
  sqlite3_bind_text(pUpd, 1, "{k: 25, moved: 1}", -1, SQLITE_STATIC);
  sqlite3_bind_int(pUpd, 2, 5);
  rc = sqlite3_step(pUpd);
  snprintf(zWhat, sizeof(zWhat), "an UPDATE prepared before %s sharded c", zWho);
  check(rc==SQLITE_DONE, zWhat, sqlite3_errmsg(dbA));
  check(sqlite3_stmt_status(pUpd, SQLITE_STMTSTATUS_REPREPARE, 0)==1, zWhat,
        "not prepared again");
  check(sqlite3_changes(dbA)==1, zWhat, "not one change");
  check(sqlite3_reset(pUpd)==SQLITE_OK, zWhat, sqlite3_errmsg(dbA));
  sqlite3_bind_int(pRead, 1, 5);
  rc = sqlite3_step(pRead);
  check(rc==SQLITE_ROW && strcmp((const char*)sqlite3_column_text(pRead, 0),
                                 "{\"_id\":5,\"k\":25,\"moved\":1}")==0,
        zWhat, "document 5 not as updated");
  check(sqlite3_stmt_status(pRead, SQLITE_STMTSTATUS_REPREPARE, 0)==1, zWhat,
        "the SELECT not prepared again");
  sqlite3_reset(pRead);

  /* A DELETE by _id, from s2 now. */
  sqlite3_bind_int(pDel, 1, 30);
  rc = sqlite3_step(pDel);
  check(rc==SQLITE_DONE && sqlite3_changes(dbA)==1, zWhat, sqlite3_errmsg(dbA));
  check(sqlite3_stmt_status(pDel, SQLITE_STMTSTATUS_REPREPARE, 0)==1, zWhat,
        "the DELETE not prepared again");
  sqlite3_reset(pDel);
  {
    /* k 1-19 were on s1, 20-40 on s2: the move left no copy behind, and
    ** the DELETE took 30 from s2 */
    char *zDocs = run(dbA, "SELECT (SELECT count(*) FROM s1.c_docs),"
                           " (SELECT count(*) FROM s2.c_docs)", 0);
    check(strcmp(zDocs, "18|21\n")==0, zWhat, zDocs);
    sqlite3_free(zDocs);
  }

  /* The legacy interface does not prepare again. */
  sqlite3_bind_text(pLegacy, 1, "{k: 3}", -1, SQLITE_STATIC);
  sqlite3_bind_int(pLegacy, 2, 6);
  rc = sqlite3_step(pLegacy);
  if( rc!=SQLITE_DONE ) rc = sqlite3_reset(pLegacy);
  snprintf(zWhat, sizeof(zWhat), "a legacy UPDATE prepared before %s sharded c", zWho);
  check(rc==SQLITE_SCHEMA, zWhat, sqlite3_errmsg(dbA));
  {
    char *z = run(dbA, "SELECT doc FROM c WHERE _id = 6", 0);
    check(strcmp(z, "{\"_id\":6,\"k\":6}\n")==0, zWhat, z);
    sqlite3_free(z);
  }
  sqlite3_finalize(pUpd);
  sqlite3_finalize(pLegacy);
  sqlite3_finalize(pRead);
  sqlite3_finalize(pDel);
  checkIdle(dbA, zWhat);
  sqlite3_close(dbB);
  sqlite3_close(dbA);
  sqlite3_free(zAttach);
  removeDb(zMain);
  removeDb(zS1);
  removeDb(zS2);
}

int main(void){
  testShardedSince(0);
  testShardedSince(1);
  testMode(0, 0);
  testMode(1, 0);
  testMode(0, 1);
  testMode(1, 1);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
