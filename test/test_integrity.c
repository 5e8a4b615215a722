/*
** test_integrity.c — PRAGMA integrity_check and quick_check on databases
** that hold collections.
**
** With every SQLite: both say "ok" for sound collections (in main and in
** an attached database), and a collection's shadow tables are ordinary
** tables that SQLite's own check reads.
**
** With SQLite 3.44 and later at run time (xIntegrity; `make NEWSQLITE=1
** test` links 3.52, while this and docext are compiled with the system's
** 3.40 header): a damaged collection is reported by both pragmas, as one
** row naming the schema and the collection and holding what doc_check
** reports; the row of integrity_check(c) names c only; a collection that
** cannot even be opened is reported too; a sound collection beside the
** damaged one is not. With older libraries those cases print a "skipped:"
** line: their pragma does not call extensions.
*/
#define _POSIX_C_SOURCE 200809L      /* mkstemp (testdb.h) under -std=c11 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testdb.h"

/* The rows of zSql, joined by '\n'; sqlite3_malloc'd ("" for none). */
static char *rows(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  sqlite3_str *pOut = sqlite3_str_new(db);
  int nRow = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    sqlite3_str_appendf(pOut, "error: %s", sqlite3_errmsg(db));
  }else{
    int rc;
    while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
      const char *z = (const char*)sqlite3_column_text(pStmt, 0);
      sqlite3_str_appendf(pOut, "%s%s", nRow++ ? "\n" : "", z ? z : "NULL");
    }
    if( rc!=SQLITE_DONE ) sqlite3_str_appendf(pOut, "error: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return sqlite3_str_finish(pOut);
}

/* zSql's rows are exactly zWant. */
static void checkRows(sqlite3 *db, const char *zSql, const char *zWant){
  char *zGot = rows(db, zSql);
  int bOk = zGot && strcmp(zGot, zWant)==0;
  check(bOk, zSql, 0);
  if( !bOk ) printf("  want: %s\n  got:  %s\n", zWant, zGot ? zGot : "(no memory)");
  sqlite3_free(zGot);
}

/* zSql's rows, joined, hold zPart (and, if zNot, not zNot). */
static void checkRowsHold(sqlite3 *db, const char *zSql, const char *zPart, const char *zNot){
  char *zGot = rows(db, zSql);
  int bOk = zGot && strstr(zGot, zPart)!=0 && (zNot==0 || strstr(zGot, zNot)==0);
  check(bOk, zSql, 0);
  if( !bOk ) printf("  want: %s%s%s\n  got:  %s\n", zPart, zNot ? " and not " : "",
                    zNot ? zNot : "", zGot ? zGot : "(no memory)");
  sqlite3_free(zGot);
}

/* Two collections with documents and indexes, in main and in aux. */
static void fill(sqlite3 *db){
  static const char *azSchema[] = { "main", "aux" };
  int i;
  for(i=0; i<2; i++){
    char *zSql = sqlite3_mprintf(
      "CREATE VIRTUAL TABLE %s.c USING docext;"
      "CREATE VIRTUAL TABLE %s.other USING docext;"
      "SELECT doc_create_index('%s.c', '{tags: 1}');"
      "SELECT doc_create_index('%s.c', '{n: -1, \"a.b\": 1}', '{unique: true}');"
      "WITH RECURSIVE k(v) AS (SELECT 1 UNION ALL SELECT v+1 FROM k WHERE v<40)"
      " INSERT INTO %s.c(doc) SELECT json_object('_id', v, 'n', v,"
      "  'tags', json_array('t' || (v %% 3), 'u'), 'a', json_object('b', v * 2),"
      "  'big', printf('%%.5000c', 'x')) FROM k;"
      "INSERT INTO %s.other(doc) VALUES ('{_id: 1, x: 1}');",
      azSchema[i], azSchema[i], azSchema[i], azSchema[i], azSchema[i], azSchema[i]);
    exec(db, zSql);
    sqlite3_free(zSql);
  }
}

static void testSound(sqlite3 *db){
  checkRows(db, "PRAGMA integrity_check", "ok");
  checkRows(db, "PRAGMA quick_check", "ok");
  checkRows(db, "PRAGMA aux.integrity_check", "ok");
  checkRows(db, "SELECT doc_check('c'), doc_check('aux.c')", "ok");
}

static void testDamaged(sqlite3 *db){
  /* an index entry gone from main.c, a page gone from aux.c */
  exec(db, "DELETE FROM c_idx WHERE docid = (SELECT rowid FROM c WHERE _id = 7)"
           " AND key = (SELECT min(key) FROM c_idx WHERE docid ="
           " (SELECT rowid FROM c WHERE _id = 7))");
  exec(db, "DELETE FROM aux.c_pages WHERE pgno = (SELECT min(pgno) FROM aux.c_pages)");

  /* every schema, or one */
  checkRowsHold(db, "PRAGMA integrity_check", "docext collection main.c: index ", 0);
  checkRowsHold(db, "PRAGMA integrity_check", "docext collection aux.c: ", 0);
  checkRowsHold(db, "PRAGMA main.integrity_check", "docext collection main.c: index ",
                "aux.c");
  checkRowsHold(db, "PRAGMA quick_check", "docext collection main.c: index ", 0);
  checkRowsHold(db, "PRAGMA integrity_check", "document 7", "collection main.other");
  checkRowsHold(db, "PRAGMA aux.integrity_check", "docext collection aux.c: document ",
                "main.c");
  checkRowsHold(db, "PRAGMA aux.integrity_check", "page", 0);
  /* one table only: the other collection of the same schema is sound */
  checkRows(db, "PRAGMA integrity_check(other)", "ok");
  checkRowsHold(db, "PRAGMA integrity_check(c)", "docext collection main.c: ", 0);
  {
    /* the row holds exactly what doc_check reports */
    char *zCheck = rows(db, "SELECT 'docext collection main.c: ' || doc_check('c')");
    checkRows(db, "PRAGMA integrity_check(c)", zCheck);
    sqlite3_free(zCheck);
  }

  /* A collection whose configuration is gone cannot be opened by a new
  ** connection; the pragma reports it instead of failing. */
  exec(db, "DELETE FROM other_config");
}

static void testUnopenable(const char *zPath){
  sqlite3 *db = openDb(zPath, 1);
  checkRowsHold(db, "PRAGMA integrity_check(other)", "docext collection main.other: ", 0);
  sqlite3_close(db);
}

int main(void){
  char zMain[] = "/tmp/docext-integrity-XXXXXX";
  char zAux[] = "/tmp/docext-integrity-aux-XXXXXX";
  sqlite3 *db;
  char *zAttach;

  makeTempDb(zMain);
  makeTempDb(zAux);
  db = openDb(zMain, 1);
  zAttach = sqlite3_mprintf("ATTACH %Q AS aux", zAux);
  exec(db, zAttach);
  sqlite3_free(zAttach);
  fill(db);
  testSound(db);
  /* (the library this runs with, not the header it was compiled with:
  ** docext offers xIntegrity to any SQLite that asks) */
  if( sqlite3_libversion_number()>=3044000 ){
    testDamaged(db);
    sqlite3_close(db);
    testUnopenable(zMain);
  }else{
    sqlite3_close(db);
    printf("skipped: damage reported by PRAGMA integrity_check needs SQLite 3.44 "
           "(xIntegrity); this is %s (make NEWSQLITE=1 test)\n", sqlite3_libversion());
  }
  removeDb(zMain);
  removeDb(zAux);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail!=0;
}
