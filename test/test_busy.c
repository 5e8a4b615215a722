/*
** test_busy.c — docext's writes meet other connections' locks and
** interrupts as an ordinary SQLite statement does.
**
** A write of docext (a command such as doc_update_many, an index command,
** an INSERT into a collection) runs statements of its own. On a file
** database, in rollback-journal and in WAL mode, with the collection in
** A's main database and again in a database attached to A, with a second
** connection B:
**   1. B holds the write lock: the write fails with SQLITE_BUSY, changes
**      nothing, and leaves no statement running and no transaction open;
**   2. the same with a busy handler that lets B finish: the handler is
**      called (so busy_timeout works) and the write succeeds;
**   3. (rollback journal) B is reading, so the write cannot commit: it
**      fails with SQLITE_BUSY, changes nothing, leaves nothing open;
**   4. a progress handler interrupts the write after 1, 2, 4, ... steps:
**      each time it succeeds or fails with SQLITE_INTERRUPT, leaving
**      nothing open and the write done wholly or not at all (SQLite itself
**      may report the interruption of a statement that completed) —
**      outside a transaction, and inside one (where, as SQLite does for its
**      own statements, the interruption may end the whole transaction);
**   5. a command is atomic: B, trying to change a document at every point
**      where one of A's statements starts, either changes it before A's
**      command reads it or after A's command committed, never in between;
**   6. a read (doc_count, doc_explain) sees one snapshot: B moving a
**      document between the branches of an $or at any of those points
**      does not change the count;
**   7. doc_drop_index drops the index it found: B dropping that index and
**      creating another (which takes its id) at any of those points makes
**      A's drop fail or wait, never drop B's new index.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "testdb.h"

/* Run zSql to the end; its result code (SQLITE_DONE when it worked). */
static int runStmt(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( rc!=SQLITE_OK ) return rc;
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
  sqlite3_finalize(pStmt);
  return rc;
}

/* The whole content of the collection and its indexes, as text. */
static char *content(sqlite3 *db){
  sqlite3_stmt *pStmt = 0;
  char *z = 0;
  if( sqlite3_prepare_v2(db, "SELECT (SELECT group_concat(doc, ',') FROM c) || '/' ||"
                             " (SELECT group_concat(name) FROM doc_indexes('c')) || '/' ||"
                             " (SELECT count(*) FROM c('{u: 2}')) || '/' || doc_check('c')",
                         -1, &pStmt, 0)==SQLITE_OK
   && sqlite3_step(pStmt)==SQLITE_ROW ){
    z = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, 0));
  }else{
    z = sqlite3_mprintf("error: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return z;
}

static const char *azWrite[] = {
  "SELECT doc_update_one('c', '{u: 2}', '{$set: {w: 0}}')",
  "SELECT doc_update_many('c', '{u: 2}', '{$inc: {w: 1}}')",
  "SELECT doc_update_many('c', '{_id: 77, u: 9}', '{$inc: {w: 1}}', '{upsert: true}')",
  "SELECT doc_delete_one('c', '{u: 3}')",
  "SELECT doc_delete_many('c', '{u: {$gt: 2}}')",
  "SELECT doc_find_and_modify('c', '{query: {u: 1}, update: {$set: {v: 1}}}')",
  "SELECT doc_create_index('c', '{w: 1}')",
  "SELECT doc_drop_index('c', 'u_1')",
  "INSERT INTO c(doc) VALUES ('{_id: 1000, u: 2}')",
  "UPDATE c SET doc = doc_update(bson, '{$set: {x: 1}}') WHERE _id < 5",
  "DELETE FROM c WHERE _id > 40",
};
#define N_WRITE (int)(sizeof(azWrite)/sizeof(azWrite[0]))

/* "aux." when A's collection lives in a database attached to it (A's main
** database is then another file, and A names the collection unqualified,
** as SQLite resolves such names through attached databases); else "". */
static const char *zSchema = "";

/* Put the collection back as it was (c, its u_1 index, 50 documents). */
static void refill(sqlite3 *db){
  char *zSql = sqlite3_mprintf(
      "DROP TABLE IF EXISTS %sc; CREATE VIRTUAL TABLE %sc USING docext;"
      " INSERT INTO c(doc) WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL"
      " SELECT x+1 FROM s WHERE x<50) SELECT json_object('_id', x, 'u', x%%5,"
      " 'w', x%%7) FROM s;"
      " SELECT doc_create_index('c', '{u: 1}')", zSchema, zSchema);
  exec(db, zSql);
  sqlite3_free(zSql);
}

typedef struct Busy Busy;
struct Busy {
  sqlite3 *dbB;
  int nCall;
};

/* A busy handler that lets B end its transaction, then has A retry. */
static int busyRelease(void *pArg, int nPrior){
  Busy *p = (Busy*)pArg;
  (void)nPrior;
  p->nCall++;
  if( !sqlite3_get_autocommit(p->dbB) ) exec(p->dbB, "ROLLBACK");
  return p->nCall<100;
}

static int nProgress, nProgressStop;
static int progressStop(void *pArg){
  (void)pArg;
  return ++nProgress>=nProgressStop;
}

/* 5: B moves document 1 out of {u: 2} when A starts its k-th statement. */
typedef struct Race Race;
struct Race {
  sqlite3 *dbB;
  int k, n;
  int bDone;                  /* B's change went through */
  int wBefore;                /* w of document 1 as B found it */
  const char *zSql;           /* B's change, if not the one of 5 */
};
static int raceTrace(unsigned eType, void *pArg, void *p, void *x){
  Race *r = (Race*)pArg;
  (void)p; (void)x;
  if( eType==SQLITE_TRACE_STMT && ++r->n==r->k && r->zSql ){
    r->bDone = runStmt(r->dbB, r->zSql)==SQLITE_DONE;
  }else if( eType==SQLITE_TRACE_STMT && r->n==r->k ){
    sqlite3_stmt *pStmt = 0;
    if( sqlite3_prepare_v2(r->dbB, "SELECT doc_find_and_modify('c', '{query: {_id: 1},"
                                   " update: {$set: {u: 3}}}')->>'w'", -1, &pStmt, 0)==SQLITE_OK
     && sqlite3_step(pStmt)==SQLITE_ROW ){
      r->bDone = 1;
      r->wBefore = sqlite3_column_int(pStmt, 0);
    }
    sqlite3_finalize(pStmt);
  }
  return 0;
}

/* 6: B moves document iDoc to u = iTo when A starts its k-th statement. */
typedef struct Move Move;
struct Move {
  sqlite3 *dbB;
  int k, n;
  int iDoc, iTo;
};
static int moveTrace(unsigned eType, void *pArg, void *p, void *x){
  Move *m = (Move*)pArg;
  (void)p; (void)x;
  if( eType==SQLITE_TRACE_STMT && ++m->n==m->k ){
    char *zSql = sqlite3_mprintf("SELECT doc_update_one('c', '{_id: %d}', '{$set: {u: %d}}')",
                                 m->iDoc, m->iTo);
    runStmt(m->dbB, zSql);   /* (BUSY when A holds its snapshot: fine) */
    sqlite3_free(zSql);
  }
  return 0;
}

static void testMode(int bWal, int bAttached){
  char zPath[] = "/tmp/docext-test-busy-XXXXXX";
  char zMain[] = "/tmp/docext-test-busy-main-XXXXXX";
  char zWhat[400];
  const char *zMode = bWal ? (bAttached ? "WAL, attached" : "WAL")
                           : (bAttached ? "rollback journal, attached" : "rollback journal");
  sqlite3 *dbA, *dbB;
  int i, k, rc;
  char *zSql;
  makeTempDb(zPath);
  zSchema = bAttached ? "aux." : "";
  if( bAttached ){
    makeTempDb(zMain);
    dbA = openDb(zMain, 1);
    zSql = sqlite3_mprintf("ATTACH %Q AS aux", zPath);
    exec(dbA, zSql);
    sqlite3_free(zSql);
  }else{
    dbA = openDb(zPath, 1);
  }
  zSql = sqlite3_mprintf("%s%sjournal_mode=%s; CREATE TABLE %sother(x);"
                         " INSERT INTO other VALUES (1), (2)",
                         "PRAGMA ", zSchema, bWal ? "WAL" : "DELETE", zSchema);
  exec(dbA, zSql);
  sqlite3_free(zSql);
  refill(dbA);
  dbB = openDb(zPath, 1);

  for(i=0; i<N_WRITE; i++){
    char *zBefore = content(dbA), *zAfter, *zDone;
    Busy busy;

    /* 1. B holds the write lock. */
    exec(dbB, "BEGIN IMMEDIATE; INSERT INTO other VALUES (3)");
    rc = runStmt(dbA, azWrite[i]);
    snprintf(zWhat, sizeof(zWhat), "%s while B writes (%s)", azWrite[i], zMode);
    check(rc==SQLITE_BUSY, zWhat, rc==SQLITE_DONE ? "it worked" : sqlite3_errmsg(dbA));
    checkIdle(dbA, zWhat);
    zAfter = content(dbA);
    check(strcmp(zBefore, zAfter)==0, zWhat, "it changed something");
    sqlite3_free(zAfter);

    /* 2. The same, with a busy handler that lets B finish. */
    memset(&busy, 0, sizeof(busy));
    busy.dbB = dbB;
    sqlite3_busy_handler(dbA, busyRelease, &busy);
    rc = runStmt(dbA, azWrite[i]);
    sqlite3_busy_handler(dbA, 0, 0);
    snprintf(zWhat, sizeof(zWhat), "%s while B writes, with a busy handler (%s)",
             azWrite[i], zMode);
    check(rc==SQLITE_DONE, zWhat, sqlite3_errmsg(dbA));
    check(busy.nCall>0, zWhat, "the busy handler was not called");
    checkIdle(dbA, zWhat);
    if( !sqlite3_get_autocommit(dbB) ) exec(dbB, "ROLLBACK");
    refill(dbA);

    /* 3. B reads: in rollback-journal mode A cannot commit. */
    if( !bWal ){
      sqlite3_stmt *pRead = 0;
      sqlite3_prepare_v2(dbB, "SELECT x FROM other", -1, &pRead, 0);
      sqlite3_step(pRead);
      rc = runStmt(dbA, azWrite[i]);
      snprintf(zWhat, sizeof(zWhat), "%s while B reads (%s)", azWrite[i], zMode);
      check(rc==SQLITE_BUSY, zWhat, rc==SQLITE_DONE ? "it worked" : sqlite3_errmsg(dbA));
      checkIdle(dbA, zWhat);
      sqlite3_finalize(pRead);
      zAfter = content(dbA);
      check(strcmp(zBefore, zAfter)==0, zWhat, "it changed something");
      sqlite3_free(zAfter);
    }

    /* 4. Interrupted after 1, 2, 4, ... steps, outside a transaction and
    ** inside one. */
    rc = runStmt(dbA, azWrite[i]);
    zDone = content(dbA);
    refill(dbA);
    for(k=0; k<2; k++){
      for(nProgressStop=1; nProgressStop<(1<<20); nProgressStop*=2){
        nProgress = 0;
        if( k ) exec(dbA, "BEGIN; INSERT INTO other VALUES (4)");
        sqlite3_progress_handler(dbA, 1, progressStop, 0);
        rc = runStmt(dbA, azWrite[i]);
        sqlite3_progress_handler(dbA, 0, 0, 0);
        snprintf(zWhat, sizeof(zWhat), "%s interrupted after %d steps%s (%s)", azWrite[i],
                 nProgressStop, k ? " in a transaction" : "", zMode);
        check(rc==SQLITE_DONE || rc==SQLITE_INTERRUPT, zWhat, sqlite3_errmsg(dbA));
        if( k && !sqlite3_get_autocommit(dbA) ) exec(dbA, "COMMIT");
        checkIdle(dbA, zWhat);
        zAfter = content(dbA);
        check(strcmp(zBefore, zAfter)==0 || strcmp(zDone, zAfter)==0, zWhat,
              "half done");
        if( strcmp(zBefore, zAfter)!=0 ) refill(dbA);
        sqlite3_free(zAfter);
        if( rc==SQLITE_DONE ) break;
      }
    }
    sqlite3_free(zBefore);
    sqlite3_free(zDone);
  }

  /* 5. Atomic commands: B tries its change at every statement A starts. */
  for(k=1; k<200; k++){
    static const char *azCmd[] = {
      "SELECT doc_update_many('c', '{u: 2}', '{$inc: {w: 100}}')",
      "SELECT doc_find_and_modify('c', '{query: {u: 2}, sort: {_id: 1},"
      " update: {$inc: {w: 100}}}')",
    };
    Race race;
    int j, w = -1, bReached = 0;
    for(j=0; j<2; j++){
      sqlite3_stmt *pStmt = 0;
      exec(dbA, "SELECT doc_update_one('c', '{_id: 1}', '{$set: {u: 2, w: 0}}')");
      memset(&race, 0, sizeof(race));
      race.dbB = dbB;
      race.k = k;
      sqlite3_trace_v2(dbA, SQLITE_TRACE_STMT, raceTrace, &race);
      rc = runStmt(dbA, azCmd[j]);
      sqlite3_trace_v2(dbA, 0, 0, 0);
      bReached |= race.n>=k;
      if( sqlite3_prepare_v2(dbA, "SELECT doc->>'w' FROM c WHERE _id = 1", -1, &pStmt, 0)
            ==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
        w = sqlite3_column_int(pStmt, 0);
      }
      sqlite3_finalize(pStmt);
      snprintf(zWhat, sizeof(zWhat), "%s with B's change at statement %d (%s)",
               azCmd[j], k, zMode);
      check(rc==SQLITE_DONE, zWhat, sqlite3_errmsg(dbA));
      /* B first: A must not touch the document B moved out of {u: 2};
      ** A first: B found it changed. */
      check(!race.bDone || (race.wBefore==0 ? w==0 : w==100), zWhat,
            "B changed the document between A's find and A's write");
      checkIdle(dbA, zWhat);
    }
    if( !bReached ) break;
  }

  /* 6. Reads in one snapshot: {u: 2} or {u: 3} counts 20 whichever
  ** branch document 3 (u 3) or 2 (u 2) is moved across, and whenever. */
  refill(dbA);
  for(k=1; k<100; k++){
    static const char *azRead[] = {
      "SELECT doc_count('c', '{$or: [{u: 2}, {u: 3}]}')",
      "SELECT doc_explain('c', '{$or: [{u: 2}, {u: 3}]}')->>'n'",
      "SELECT count(*) FROM c('{$or: [{u: 2}, {u: 3}]}')",
      "SELECT count(*) FROM c WHERE doc_match(doc, '{$or: [{u: 2}, {u: 3}]}')",
    };
    int j, d, bReached = 0;
    for(j=0; j<(int)(sizeof(azRead)/sizeof(azRead[0])); j++){
      for(d=0; d<2; d++){
        Move move;
        sqlite3_stmt *pStmt = 0;
        int n = -1;
        memset(&move, 0, sizeof(move));
        move.dbB = dbB;
        move.k = k;
        move.iDoc = d ? 3 : 2;           /* (u is _id % 5) */
        move.iTo = d ? 2 : 3;
        sqlite3_trace_v2(dbA, SQLITE_TRACE_STMT, moveTrace, &move);
        if( sqlite3_prepare_v2(dbA, azRead[j], -1, &pStmt, 0)==SQLITE_OK
         && sqlite3_step(pStmt)==SQLITE_ROW ){
          n = sqlite3_column_int(pStmt, 0);
        }
        snprintf(zWhat, sizeof(zWhat), "%s with B moving %d to u %d at statement %d (%s)",
                 azRead[j], move.iDoc, move.iTo, k, zMode);
        check(n==20, zWhat, n<0 ? sqlite3_errmsg(dbA) : "a count neither before nor after");
        sqlite3_finalize(pStmt);
        sqlite3_trace_v2(dbA, 0, 0, 0);
        bReached |= move.n>=k;
        checkIdle(dbA, zWhat);
        exec(dbA, "SELECT doc_update_one('c', '{_id: 2}', '{$set: {u: 2}}'),"
                  " doc_update_one('c', '{_id: 3}', '{$set: {u: 3}}')");
      }
    }
    if( !bReached ) break;
  }

  /* 7. doc_drop_index against B's drop-and-create at A's k-th statement. */
  for(k=1; k<100; k++){
    Race race;
    int rcA, bDropped = 0, bNew = 0;
    sqlite3_stmt *pStmt = 0;
    refill(dbA);
    exec(dbA, "SELECT doc_create_index('c', '{v: 1}')");
    memset(&race, 0, sizeof(race));
    race.dbB = dbB;
    race.k = k;
    race.zSql = "SELECT doc_drop_index('c', 'v_1'), doc_create_index('c', '{z: 1}')";
    sqlite3_trace_v2(dbA, SQLITE_TRACE_STMT, raceTrace, &race);
    rcA = runStmt(dbA, "SELECT doc_drop_index('c', 'v_1')");
    sqlite3_trace_v2(dbA, 0, 0, 0);
    if( sqlite3_prepare_v2(dbA, "SELECT sum(name = 'v_1'), sum(name = 'z_1') FROM doc_indexes('c')",
                           -1, &pStmt, 0)==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
      bDropped = sqlite3_column_int(pStmt, 0)==0;
      bNew = sqlite3_column_int(pStmt, 1)==1;
    }
    sqlite3_finalize(pStmt);
    snprintf(zWhat, sizeof(zWhat), "doc_drop_index with B's drop and create at statement %d (%s)",
             k, zMode);
    check(bDropped, zWhat, "v_1 is still there");
    check(race.bDone ? bNew && rcA!=SQLITE_DONE : rcA==SQLITE_DONE && !bNew, zWhat,
          race.bDone ? "A dropped B's new index" : sqlite3_errmsg(dbA));
    checkIdle(dbA, zWhat);
    if( race.n<k ) break;
  }

  sqlite3_close(dbB);
  sqlite3_close(dbA);
  removeDb(zPath);
  if( bAttached ) removeDb(zMain);
}

int main(void){
  testMode(0, 0);
  testMode(1, 0);
  testMode(0, 1);
  testMode(1, 1);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
