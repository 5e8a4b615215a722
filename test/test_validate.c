/*
** test_validate.c — collection validators across connections, and the
** warnings of validationAction "warn".
**
** A connection caches a collection's validator with its index definitions
** (docext_validate.c). Another connection may set, change or remove it
** between two statements, and a transaction of this connection that set
** one may be rolled back: every write must be checked against the
** validator the database holds at that moment. On a file database in
** rollback-journal and in WAL mode. validationAction "warn" lets a write
** through and logs its message through sqlite3_log (SQLITE_CONFIG_LOG),
** which is how an application sees it.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "testdb.h"

/* The last message sqlite3_log gave with SQLITE_WARNING. */
static char zLogged[1000];
static int nLogged = 0;

static void logCallback(void *pArg, int iCode, const char *zMsg){
  (void)pArg;
  if( iCode==SQLITE_WARNING ){
    snprintf(zLogged, sizeof(zLogged), "%s", zMsg);
    nLogged++;
  }
}

/* Run zSql on db: "ok", or its error message (static buffer). */
static const char *attempt(sqlite3 *db, const char *zSql){
  static char zOut[1000];
  char *zErr = 0;
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)==SQLITE_OK ) return "ok";
  snprintf(zOut, sizeof(zOut), "%s", zErr ? zErr : "?");
  sqlite3_free(zErr);
  return zOut;
}

/* zSql on db must work (bOk) or fail for validation. */
static void expect(sqlite3 *db, const char *zSql, int bOk, const char *zWhat){
  const char *z = attempt(db, zSql);
  if( bOk ){
    check(strcmp(z, "ok")==0, zWhat, z);
  }else{
    check(strstr(z, "Document failed validation")!=0, zWhat, z);
  }
}

/* Step a statement prepared before another connection changed the
** validator: it must see the change. */
static void expectPrepared(sqlite3 *dbA, sqlite3 *dbB, const char *zChange, const char *zDoc,
                           int bOk, const char *zWhat){
  sqlite3_stmt *pStmt = 0;
  int rc;
  if( sqlite3_prepare_v2(dbA, "INSERT INTO c(doc) VALUES (?1)", -1, &pStmt, 0)!=SQLITE_OK ){
    check(0, zWhat, sqlite3_errmsg(dbA));
    return;
  }
  exec(dbB, zChange);
  sqlite3_bind_text(pStmt, 1, zDoc, -1, SQLITE_STATIC);
  rc = sqlite3_step(pStmt);
  if( bOk ){
    check(rc==SQLITE_DONE, zWhat, sqlite3_errmsg(dbA));
  }else{
    check(rc!=SQLITE_DONE && strstr(sqlite3_errmsg(dbA), "Document failed validation")!=0,
          zWhat, sqlite3_errmsg(dbA));
  }
  sqlite3_finalize(pStmt);
}

static void testMode(int bWal){
  char zPath[] = "/tmp/docext-test-validate-XXXXXX";
  sqlite3 *dbA, *dbB;
  int nBefore;
  makeTempDb(zPath);
  dbA = openDb(zPath, 1);
  dbB = openDb(zPath, 1);
  if( bWal ) exec(dbA, "PRAGMA journal_mode=WAL");
  exec(dbA, "CREATE VIRTUAL TABLE c USING docext");
  exec(dbA, "INSERT INTO c(doc) VALUES ('{_id: 1, a: 1}')");
  /* B's cache is warm, without a validator */
  expect(dbB, "INSERT INTO c(doc) VALUES ('{_id: 2}')", 1, "insert before any validator");

  exec(dbA, "SELECT doc_coll_mod('c', '{validator: {a: {$exists: true}}}')");
  expect(dbB, "INSERT INTO c(doc) VALUES ('{_id: 3}')", 0, "another connection's validator");
  expect(dbB, "INSERT INTO c(doc) VALUES ('{_id: 3, a: 3}')", 1, "a valid insert");
  expect(dbB, "UPDATE c SET doc = '{_id: 3}' WHERE _id = 3", 0, "another connection's, update");

  /* A's change, rolled back: the validator it replaced holds again */
  exec(dbA, "BEGIN");
  exec(dbA, "SELECT doc_coll_mod('c', '{validator: {}}')");
  expect(dbA, "INSERT INTO c(doc) VALUES ('{_id: 4}')", 1, "inside the transaction that removed it");
  exec(dbA, "ROLLBACK");
  expect(dbA, "INSERT INTO c(doc) VALUES ('{_id: 4}')", 0, "after the rollback");
  exec(dbA, "SAVEPOINT s");
  exec(dbA, "SELECT doc_coll_mod('c', '{validator: {b: {$exists: true}}}')");
  expect(dbA, "INSERT INTO c(doc) VALUES ('{_id: 4, a: 4}')", 0, "inside the savepoint");
  exec(dbA, "ROLLBACK TO s");
  exec(dbA, "RELEASE s");
  expect(dbA, "INSERT INTO c(doc) VALUES ('{_id: 4, a: 4}')", 1, "after ROLLBACK TO");
  expect(dbB, "INSERT INTO c(doc) VALUES ('{_id: 5, b: 5}')", 0, "B after A's ROLLBACK TO");

  /* statements prepared before the change */
  expectPrepared(dbA, dbB, "SELECT doc_coll_mod('c', '{validator: {b: {$exists: true}}}')",
                 "{_id: 6, a: 6}", 0, "prepared before another connection's validator");
  expectPrepared(dbA, dbB, "SELECT doc_coll_mod('c', '{validator: {}}')",
                 "{_id: 6, a: 6}", 1, "prepared before another connection removed it");

  /* validationAction warn: through, and logged */
  exec(dbB, "SELECT doc_coll_mod('c', '{validator: {a: {$gt: 0}}, validationAction: \"warn\"}')");
  nBefore = nLogged;
  expect(dbA, "INSERT INTO c(doc) VALUES ('{_id: 7, a: -1}')", 1, "warn lets it through");
  check(nLogged==nBefore+1, "warn logs once", zLogged);
  check(strstr(zLogged, "Document failed validation: { _id: 7 } in c does not satisfy "
                        "{\"a\":{\"$gt\":0}}")!=0, "the warning's text", zLogged);
  nBefore = nLogged;
  expect(dbA, "INSERT INTO c(doc) VALUES ('{_id: 8, a: 1}')", 1, "a valid one under warn");
  check(nLogged==nBefore, "a valid document logs nothing", zLogged);
  exec(dbB, "SELECT doc_coll_mod('c', '{validationAction: \"errorAndLog\"}')");
  nBefore = nLogged;
  expect(dbA, "INSERT INTO c(doc) VALUES ('{_id: 9, a: -2}')", 0, "errorAndLog refuses it");
  check(nLogged==nBefore+1 && strstr(zLogged, "{ _id: 9 } in c does not satisfy")!=0,
        "errorAndLog logs it", zLogged);
  exec(dbB, "SELECT doc_coll_mod('c', '{validationAction: \"error\"}')");
  nBefore = nLogged;
  expect(dbA, "INSERT INTO c(doc) VALUES ('{_id: 9, a: -1}')", 0, "back to error");
  check(nLogged==nBefore, "error logs nothing", zLogged);
  {
    sqlite3_stmt *pStmt = 0;
    const char *z = 0;
    if( sqlite3_prepare_v2(dbA, "SELECT doc_check('c') || ' ' || count(*) FROM c", -1,
                           &pStmt, 0)==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
      z = (const char*)sqlite3_column_text(pStmt, 0);
    }
    /* 1, 2, 3, 4, 6 (once), 7, 8 */
    check(z && strcmp(z, "ok 7")==0, "doc_check and the documents written", z);
    sqlite3_finalize(pStmt);
  }

  checkIdle(dbA, "connection A at the end");
  checkIdle(dbB, "connection B at the end");
  sqlite3_close(dbA);
  sqlite3_close(dbB);
  removeDb(zPath);
}

int main(void){
  sqlite3_config(SQLITE_CONFIG_LOG, logCallback, (void*)0);
  testMode(0);
  testMode(1);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail!=0;
}
