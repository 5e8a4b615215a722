/*
** testdb.h — what the C tests that drive docext through SQL connections
** share (test_locks, test_busy, test_stale; test_oom uses its counts):
** the pass/fail count, running SQL that must work, opening a connection
** with docext, the check that a connection has nothing running and no
** transaction open, making and removing a database's files. Included by
** each such program (all of it static: one copy per program; inline, so
** that a program may leave one unused).
*/
#ifndef DOCEXT_TESTDB_H
#define DOCEXT_TESTDB_H
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int sqlite3_docext_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

static int nPass = 0;
static int nFail = 0;

static inline void check(int bOk, const char *zWhat, const char *zDetail){
  if( bOk ){
    nPass++;
  }else{
    nFail++;
    printf("FAIL %s%s%s\n", zWhat, zDetail ? ": " : "", zDetail ? zDetail : "");
  }
}

/* Run zSql, which must work: the test cannot go on otherwise. */
static inline void exec(sqlite3 *db, const char *zSql){
  char *zErr = 0;
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    printf("cannot run %s: %s\n", zSql, zErr);
    exit(1);
  }
}

/* A connection to zPath, with docext when bDocext. */
static inline sqlite3 *openDb(const char *zPath, int bDocext){
  sqlite3 *db = 0;
  char *zErr = 0;
  if( sqlite3_open(zPath, &db)!=SQLITE_OK ){
    printf("cannot open %s\n", zPath);
    exit(1);
  }
  if( bDocext && sqlite3_docext_init(db, &zErr, 0)!=SQLITE_OK ){
    printf("cannot load docext: %s\n", zErr);
    exit(1);
  }
  return db;
}

/* Nothing of db runs (none of its statements, docext's own included, is
** busy) and no transaction is open. */
static inline void checkIdle(sqlite3 *db, const char *zWhat){
  sqlite3_stmt *p;
  for(p=sqlite3_next_stmt(db, 0); p; p=sqlite3_next_stmt(db, p)){
    if( sqlite3_stmt_busy(p) ) break;
  }
  check(p==0, zWhat, p ? sqlite3_sql(p) : 0);
  check(sqlite3_get_autocommit(db), zWhat, "a transaction is still open");
}

/* Make zTemplate ("/tmp/NAME-XXXXXX") the name of a new, empty file: a
** database of this test's own. */
static inline void makeTempDb(char *zTemplate){
  int fd = mkstemp(zTemplate);
  if( fd<0 ){
    printf("cannot create a temporary file\n");
    exit(1);
  }
  close(fd);
}

/* Remove the database zPath and its journal, WAL and shared-memory files. */
static inline void removeDb(const char *zPath){
  static const char *azSuffix[] = { "", "-journal", "-wal", "-shm" };
  char zFile[512];
  size_t i;
  for(i=0; i<sizeof(azSuffix)/sizeof(azSuffix[0]); i++){
    snprintf(zFile, sizeof(zFile), "%s%s", zPath, azSuffix[i]);
    unlink(zFile);
  }
}

#endif
