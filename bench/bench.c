/*
** bench.c — docext against SQLite's own JSON functions, same process, same run.
**
**   make bench                 100,000 documents
**   make bench N=10000         fewer (or: build/plain/bench 10000,
**                              or DOCEXT_BENCH_N=10000)
**
** Two file databases in a fresh temporary directory, default journal mode:
**   docext.db   CREATE VIRTUAL TABLE books USING docext
**   json.db     CREATE TABLE books_json(doc TEXT) with a unique index on
**               json_extract(doc, '$._id'), the usual way to keep JSON with
**               a primary key in plain SQLite
** Both receive the same JSON text: book documents of about 1 KB shaped as in
** SCENARIOS.md A, generated from a fixed seed.
**
** Each workload is a pair of functions, one per side, and a line in
** aWorkload[] at the bottom; the runner times both sides and prints
**   W1 insert 100000 docs: docext 1.23 s, json 1.01 s, ratio 1.22 (target <= 1.3)
** Workloads run in table order and may rely on the ones before them (W1
** loads the data that the read workloads read).
**
** This is an ordinary SQLite application: it links libsqlite3 and loads
** ./docext.so (DOCEXT_SO overrides the path) with sqlite3_load_extension.
*/
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct Bench Bench;
struct Bench {
  int nDoc;             /* documents per workload */
  sqlite3 *dbDoc;       /* docext.db: the collection "books" */
  sqlite3 *dbJson;      /* json.db: the table "books_json" */
  char zDir[64];        /* the temporary directory */
  unsigned long long sink;  /* results folded in, so no read is optimised away */
};

/* ---- helpers ----------------------------------------------------------- */

static void die(const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  fprintf(stderr, "bench: ");
  vfprintf(stderr, zFmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static double now(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec*1e-9;
}

static void exec(sqlite3 *db, const char *zSql){
  char *zErr = 0;
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    die("%s: %s", zSql, zErr ? zErr : sqlite3_errmsg(db));
  }
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    die("%s: %s", zSql, sqlite3_errmsg(db));
  }
  return pStmt;
}

static sqlite3_int64 queryInt(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = prepare(db, zSql);
  sqlite3_int64 v = -1;
  if( sqlite3_step(pStmt)==SQLITE_ROW ) v = sqlite3_column_int64(pStmt, 0);
  sqlite3_finalize(pStmt);
  return v;
}

/* ---- the documents ----------------------------------------------------- */

/* xorshift64*: deterministic across runs and machines. */
static unsigned long long rngState;
static unsigned int rnd(unsigned int n){
  rngState ^= rngState >> 12;
  rngState ^= rngState << 25;
  rngState ^= rngState >> 27;
  return (unsigned int)((rngState * 2685821657736338717ULL) >> 33) % n;
}

static const char *azWord[] = {
  "great", "gatsby", "jazz", "age", "love", "story", "river", "night",
  "summer", "green", "light", "house", "island", "dream", "money", "party",
  "old", "sport", "valley", "ashes", "eyes", "doctor", "yellow", "car",
  "garden", "city", "west", "east", "egg", "shirt", "letter", "boat",
};
#define NWORD (int)(sizeof(azWord)/sizeof(azWord[0]))
static const char *azSubject[] = {
  "Love stories", "1920s", "Jazz Age", "American Literature", "Classics",
  "Long Island", "Wealth", "Tragedy", "Modernism", "New York",
};
static const char *azPublisher[] = {
  "Everyman's Library", "Penguin Classics", "Scribner", "Vintage",
  "Oxford World's Classics",
};
static const char *azCity[] = { "London", "New York", "Oxford", "Boston" };
static const char *azLang[] = { "English", "French", "German", "Spanish" };

/* Append printf-style text to z (size nz) at *pn. */
static void put(char *z, int nz, int *pn, const char *zFmt, ...){
  va_list ap;
  int n;
  va_start(ap, zFmt);
  n = vsnprintf(z + *pn, (size_t)(nz - *pn), zFmt, ap);
  va_end(ap);
  if( n<0 || *pn + n >= nz ) die("document buffer too small");
  *pn += n;
}

static void words(char *z, int nz, int *pn, int nWord){
  int i;
  for(i=0; i<nWord; i++){
    put(z, nz, pn, "%s%s", i ? " " : "", azWord[rnd(NWORD)]);
  }
}

/* The JSON text of book number i (1-based _id), about 1 KB. Each call with
** the same i gives the same text. */
static int bookJson(int i, char *z, int nz){
  int n = 0, k, nSubj, nRev;
  char zTitle[128];
  int nTitle = 0;
  rngState = 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)i * 0x100000001B3ULL);
  rnd(2);
  words(zTitle, sizeof(zTitle), &nTitle, 2 + (int)rnd(4));
  put(z, nz, &n, "{\"_id\":%d,\"title\":\"%s\",\"slug\":\"978%010d-", i, zTitle, i);
  for(k=0; zTitle[k]; k++) put(z, nz, &n, "%c", zTitle[k]==' ' ? '-' : zTitle[k]);
  put(z, nz, &n, "\",\"author\":%u,\"available\":%s,\"isbn\":\"978%010d\","
      "\"pages\":%u,", 1 + rnd(5000), rnd(4) ? "true" : "false", i, 50 + rnd(900));
  put(z, nz, &n, "\"publisher\":{\"name\":\"%s\",\"date\":{\"$date\":"
      "\"%04u-%02u-%02uT00:00:00Z\"},\"city\":\"%s\"},",
      azPublisher[rnd(5)], 1900 + rnd(120), 1 + rnd(12), 1 + rnd(28), azCity[rnd(4)]);
  put(z, nz, &n, "\"subjects\":[");
  nSubj = 1 + (int)rnd(4);
  for(k=0; k<nSubj; k++){
    put(z, nz, &n, "%s\"%s\"", k ? "," : "", azSubject[rnd(10)]);
  }
  put(z, nz, &n, "],\"language\":\"%s\",\"reviews\":[", azLang[rnd(4)]);
  nRev = 5 + (int)rnd(3);
  for(k=0; k<nRev; k++){
    put(z, nz, &n, "%s{\"user\":%u,\"text\":\"", k ? "," : "", 1 + rnd(100000));
    words(z, nz, &n, 14 + (int)rnd(6));
    put(z, nz, &n, "\"}");
  }
  put(z, nz, &n, "]}");
  return n;
}

/* ---- workloads --------------------------------------------------------- */

/* Insert all documents in one transaction through one prepared statement. */
static void insertAll(Bench *p, sqlite3 *db, const char *zInsert){
  char zDoc[4096];
  sqlite3_stmt *pStmt;
  int i;
  exec(db, "BEGIN");
  pStmt = prepare(db, zInsert);
  for(i=1; i<=p->nDoc; i++){
    int n = bookJson(i, zDoc, sizeof(zDoc));
    sqlite3_bind_text(pStmt, 1, zDoc, n, SQLITE_STATIC);
    if( sqlite3_step(pStmt)!=SQLITE_DONE ) die("%s: %s", zInsert, sqlite3_errmsg(db));
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  exec(db, "COMMIT");
}
static void w1Docext(Bench *p){
  insertAll(p, p->dbDoc, "INSERT INTO books(doc) VALUES (?)");
}
static void w1Json(Bench *p){
  insertAll(p, p->dbJson, "INSERT INTO books_json(doc) VALUES (?)");
}

/* Step through every row and touch its text. */
static void readAll(Bench *p, sqlite3 *db, const char *zSelect){
  sqlite3_stmt *pStmt = prepare(db, zSelect);
  int nRow = 0;
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    const unsigned char *z = sqlite3_column_text(pStmt, 0);
    int n = sqlite3_column_bytes(pStmt, 0);
    if( z==0 || n<2 ) die("%s: empty document", zSelect);
    p->sink += (unsigned long long)n + z[0] + z[n/2] + z[n-1];
    nRow++;
  }
  sqlite3_finalize(pStmt);
  if( nRow!=p->nDoc ) die("%s: %d rows, expected %d", zSelect, nRow, p->nDoc);
}
static void wReadDocext(Bench *p){ readAll(p, p->dbDoc, "SELECT doc FROM books"); }
static void wReadJson(Bench *p){ readAll(p, p->dbJson, "SELECT doc FROM books_json"); }

/* W7: a filtered full scan, with the same filter written for each side;
** the counts must agree, so both really did the same work. */
static long long countOf(sqlite3 *db, const char *zSql){
  return queryInt(db, zSql);
}
static long long nW7a, nW7b;
static void w7aDocext(Bench *p){
  nW7a = countOf(p->dbDoc,
      "SELECT count(*) FROM books('{pages: {$gt: 300}, language: \"English\"}')");
}
static void w7aJson(Bench *p){
  long long n = countOf(p->dbJson,
      "SELECT count(*) FROM books_json WHERE json_extract(doc, '$.pages') > 300"
      " AND json_extract(doc, '$.language') = 'English'");
  if( n!=nW7a ) die("W7: docext counted %lld, json %lld", nW7a, n);
}
static void w7bDocext(Bench *p){
  nW7b = countOf(p->dbDoc,
      "SELECT count(*) FROM books('{\"publisher.name\": \"Scribner\"}')");
}
static void w7bJson(Bench *p){
  long long n = countOf(p->dbJson,
      "SELECT count(*) FROM books_json"
      " WHERE json_extract(doc, '$.publisher.name') = 'Scribner'");
  if( n!=nW7b ) die("W7 dotted: docext counted %lld, json %lld", nW7b, n);
}

typedef struct Workload Workload;
struct Workload {
  const char *zName;        /* "W1" */
  const char *zWhat;        /* printf format, %d is the document count */
  void (*xDocext)(Bench*);
  void (*xJson)(Bench*);
  double target;            /* upper bound for docext/json, 0 if none */
};

static const Workload aWorkload[] = {
  { "W1",     "insert %d docs", w1Docext,    w1Json,    1.3 },
  { "W-read", "read %d docs",   wReadDocext, wReadJson, 2.0 },
  { "W7",     "filtered scan of %d docs {pages: {$gt: 300}, language: \"English\"}",
                                w7aDocext,   w7aJson,   1.0 },
  { "W7",     "filtered scan of %d docs {\"publisher.name\": \"Scribner\"}",
                                w7bDocext,   w7bJson,   1.0 },
};

/* ---- main -------------------------------------------------------------- */

static sqlite3 *openDb(Bench *p, const char *zFile){
  char zPath[128];
  sqlite3 *db = 0;
  snprintf(zPath, sizeof(zPath), "%s/%s", p->zDir, zFile);
  if( sqlite3_open(zPath, &db)!=SQLITE_OK ) die("cannot open %s", zPath);
  return db;
}

int main(int argc, char **argv){
  Bench b;
  const char *zN = argc>1 ? argv[1] : getenv("DOCEXT_BENCH_N");
  const char *zSo = getenv("DOCEXT_SO");
  char *zErr = 0;
  char zPath[128];
  size_t i;

  memset(&b, 0, sizeof(b));
  b.nDoc = (zN && zN[0]) ? atoi(zN) : 100000;
  if( b.nDoc<=0 ) die("usage: bench [N]  (N > 0 documents)");

  strcpy(b.zDir, "/tmp/docext-bench-XXXXXX");
  if( mkdtemp(b.zDir)==0 ) die("cannot create a temporary directory");
  b.dbDoc = openDb(&b, "docext.db");
  b.dbJson = openDb(&b, "json.db");

  sqlite3_enable_load_extension(b.dbDoc, 1);
  if( sqlite3_load_extension(b.dbDoc, zSo ? zSo : "./docext", 0, &zErr)!=SQLITE_OK ){
    die("cannot load %s: %s", zSo ? zSo : "./docext", zErr ? zErr : "?");
  }
  exec(b.dbDoc, "CREATE VIRTUAL TABLE books USING docext");
  exec(b.dbJson, "CREATE TABLE books_json(doc TEXT)");
  exec(b.dbJson, "CREATE UNIQUE INDEX books_json_id"
                 " ON books_json(json_extract(doc, '$._id'))");

  printf("docext bench: %d documents, SQLite %s, databases in %s\n",
         b.nDoc, sqlite3_libversion(), b.zDir);
  for(i=0; i<sizeof(aWorkload)/sizeof(aWorkload[0]); i++){
    const Workload *w = &aWorkload[i];
    char zWhat[160];
    double t0, tDoc, tJson, ratio;
    t0 = now(); w->xDocext(&b); tDoc = now() - t0;
    t0 = now(); w->xJson(&b);   tJson = now() - t0;
    ratio = tDoc / (tJson > 0 ? tJson : 1e-9);
    snprintf(zWhat, sizeof(zWhat), w->zWhat, b.nDoc);
    printf("%s %s: docext %.2f s, json %.2f s, ratio %.2f", w->zName, zWhat,
           tDoc, tJson, ratio);
    if( w->target>0 ){
      printf(" (target <= %.1f%s)", w->target, ratio<=w->target ? "" : ", MISSED");
    }
    printf("\n");
    fflush(stdout);
  }

  if( queryInt(b.dbDoc, "SELECT count(*) FROM books")!=b.nDoc
   || queryInt(b.dbJson, "SELECT count(*) FROM books_json")!=b.nDoc ){
    die("document counts differ from %d", b.nDoc);
  }
  sqlite3_close(b.dbDoc);
  sqlite3_close(b.dbJson);
  snprintf(zPath, sizeof(zPath), "%s/docext.db", b.zDir); unlink(zPath);
  snprintf(zPath, sizeof(zPath), "%s/json.db", b.zDir);   unlink(zPath);
  rmdir(b.zDir);
  return b.sink==0;  /* never true; keeps the reads observable */
}
