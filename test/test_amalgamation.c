/*
** test_amalgamation.c — dist/docext.c compiled into an application.
**
** Built by the Makefile from dist/docext.c with -DSQLITE_CORE (not from
** ext/), linked against libsqlite3: the way INTERFACE.md §1 tells people to
** embed docext statically. The extension is registered for every new
** connection with sqlite3_auto_extension; the test opens :memory:, creates a
** collection, inserts a document and reads it back, and (with SQLite 3.44
** or later) sees PRAGMA integrity_check find a damaged _id key.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

int sqlite3_docext_init(sqlite3 *db, char **pzErrMsg,
                        const sqlite3_api_routines *pApi);

static int nPass = 0;
static int nFail = 0;

static void check(int bOk, const char *zWhat, const char *zGot){
  if( bOk ){
    nPass++;
  }else{
    nFail++;
    printf("FAIL %s%s%s\n", zWhat, zGot ? ": got " : "", zGot ? zGot : "");
  }
}

/* Run zSql, which must succeed. */
static void exec(sqlite3 *db, const char *zSql){
  char *zErr = 0;
  int rc = sqlite3_exec(db, zSql, 0, 0, &zErr);
  check(rc==SQLITE_OK, zSql, zErr);
  sqlite3_free(zErr);
}

/* Compare the single text value zSql returns with zWant. */
static void expectText(sqlite3 *db, const char *zSql, const char *zWant){
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( rc!=SQLITE_OK ){
    check(0, zSql, sqlite3_errmsg(db));
    return;
  }
  rc = sqlite3_step(pStmt);
  if( rc!=SQLITE_ROW ){
    check(0, zSql, rc==SQLITE_DONE ? "no row" : sqlite3_errmsg(db));
  }else{
    const char *zGot = (const char*)sqlite3_column_text(pStmt, 0);
    check(zGot && strcmp(zGot, zWant)==0, zSql, zGot ? zGot : "NULL");
  }
  sqlite3_finalize(pStmt);
}

int main(void){
  sqlite3 *db = 0;
  int rc;

  rc = sqlite3_auto_extension((void(*)(void))sqlite3_docext_init);
  check(rc==SQLITE_OK, "sqlite3_auto_extension", 0);

  rc = sqlite3_open(":memory:", &db);
  check(rc==SQLITE_OK, "sqlite3_open", 0);
  if( rc==SQLITE_OK ){
    exec(db, "CREATE VIRTUAL TABLE books USING docext");
    exec(db, "INSERT INTO books(doc) VALUES("
             "'{ _id: 1, title: \"The Great Gatsby\", pages: NumberLong(176),"
             "   subjects: [\"Love stories\", \"1920s\"] }')");
    expectText(db, "SELECT doc FROM books WHERE _id = 1",
        "{\"_id\":1,\"title\":\"The Great Gatsby\",\"pages\":176,"
        "\"subjects\":[\"Love stories\",\"1920s\"]}");
    expectText(db, "SELECT doc_type(bson, 'pages') FROM books", "long");
    expectText(db, "SELECT count(*) FROM books", "1");
    expectText(db, "SELECT doc_json('{a: 1}')", "{\"a\":1}");
    expectText(db, "PRAGMA integrity_check", "ok");
    if( sqlite3_libversion_number()>=3044000 ){
      /* xIntegrity: a lost _id entry is found (built with whichever
      ** sqlite3.h: make NEWSQLITE=1 test compiles this with 3.52's) */
      exec(db, "UPDATE books_docs SET idkey = x'00'");
      expectText(db, "SELECT count(*) FROM pragma_integrity_check"
                     " WHERE integrity_check LIKE 'docext collection main.books: %'", "1");
    }
  }
  sqlite3_close(db);
  sqlite3_reset_auto_extension();

  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
