/*
** bench.c — docext against SQLite's own JSON functions, same process, same run.
**
**   make bench                 100,000 books (about 9 minutes on 2 cores)
**   make bench N=2000          fewer (or: build/plain/bench 2000,
**                              or DOCEXT_BENCH_N=2000)
**   DOCEXT_BENCH_ONLY=W2,W5    only those workloads (and W1, which loads
**                              the books the others read)
**   DOCEXT_BENCH_KEEP=1        keep the databases for a look afterwards
**
** Databases, all files in a fresh temporary directory:
**   docext.db      default journal mode: the collections books and reviews
**   json.db        default journal mode: books_json(doc TEXT) with a unique
**                  index on json_extract(doc, '$._id'), the usual way to keep
**                  JSON with a primary key in plain SQLite; reviews_json
**   wal-docext.db  WAL mode, synchronous=NORMAL, for the workloads that
**   wal-json.db    update one document (W5, W6) one autocommit statement at
**                  a time
** Each side receives the same JSON text where it can (books: documents of
** about 1 KB shaped as in SCENARIOS.md A, generated from a fixed seed).
**
** Each workload is a line of aWorkload[] at the bottom: an untimed setup, one
** timed function per side, a target for the ratio of their times, and an
** untimed check that the two sides gave the same answers (counts, ids),
** which dies otherwise, so a broken workload cannot report a good number.
** A workload that only reads may run in several rounds, its two sides in
** turn; each side's median time counts (so does W6's comparison of two
** layouts: an $inc costs the same on a counter's later values). The runner
** prints
**   W2 100000 point lookups by slug (median of 3 rounds): docext 1.230 s, json 1.010 s, ratio 1.22 (target <= 1.2, MISSED)
** Workloads run in table order and may rely on the ones before them (W1
** loads the books that the later workloads read). The other counts are
** derived from N in main() and printed first.
**
** This is an ordinary SQLite application: it links libsqlite3 and loads
** ./docext.so (DOCEXT_SO overrides the path) with sqlite3_load_extension.
*/
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct Bench Bench;
struct Bench {
  int nDoc;             /* books (W1, W-read, W7, W2, W3, W8, W10, W-index) */
  int nLookup;          /* W2: point lookups by slug */
  int nSubjectQuery;    /* W3: multikey lookups */
  int nGeoQuery;        /* W14: queries near a point */
  int nTextQuery;       /* W16: text searches */
  int nReview;          /* W4: reviews, one document each */
  int nUser;            /* W4: distinct users among them */
  int nUserQuery;       /* W4: users whose latest reviews are read */
  int nAppend;          /* W5: $push appends, a multiple of 100 */
  int nInc;             /* W6: $inc per layout */
  sqlite3 *dbDoc;       /* docext.db */
  sqlite3 *dbJson;      /* json.db */
  sqlite3 *dbDocWal;    /* wal-docext.db */
  sqlite3 *dbJsonWal;   /* wal-json.db */
  double tUntimed;      /* seconds a side spent on work it does not measure
                        ** (checkpoints between batches); the runner
                        ** subtracts them from the side's time */
  double fScale;        /* a side that did only part of its work sets this
                        ** to whole/part; the runner scales its time and
                        ** marks it "~" (extrapolated) */
  unsigned long long sink;  /* results folded in, so no read is optimised away */
};

/* ---- helpers ----------------------------------------------------------- */

static char zBenchDir[64];    /* the temporary directory, once made */

/* Remove the databases and the directory, unless DOCEXT_BENCH_KEEP is set. */
static void removeDatabases(void){
  static const char *azFile[] = { "docext.db", "json.db", "wal-docext.db", "wal-json.db" };
  static const char *azSuffix[] = { "", "-wal", "-shm", "-journal" };
  char zPath[160];
  size_t i, j;
  if( zBenchDir[0]==0 ) return;
  if( getenv("DOCEXT_BENCH_KEEP") ){
    printf("databases kept in %s\n", zBenchDir);
    return;
  }
  for(i=0; i<sizeof(azFile)/sizeof(azFile[0]); i++){
    for(j=0; j<sizeof(azSuffix)/sizeof(azSuffix[0]); j++){
      snprintf(zPath, sizeof(zPath), "%s/%s%s", zBenchDir, azFile[i], azSuffix[j]);
      unlink(zPath);
    }
  }
  rmdir(zBenchDir);
}

static void die(const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  fprintf(stderr, "bench: ");
  vfprintf(stderr, zFmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  removeDatabases();
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

/* Step a write: an INSERT/UPDATE must change exactly one row, a collection
** command (SELECT doc_update_one(...)) must report one modified document. */
static void stepWrite(sqlite3 *db, sqlite3_stmt *pStmt){
  int rc = sqlite3_step(pStmt);
  if( rc==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pStmt, 0);
    if( z==0 || strstr(z, "\"modifiedCount\":1")==0 ){
      die("%s: %s", sqlite3_sql(pStmt), z ? z : "NULL");
    }
    rc = sqlite3_step(pStmt);
  }else if( rc==SQLITE_DONE && sqlite3_changes(db)!=1 ){
    die("%s: changed %d rows, expected 1", sqlite3_sql(pStmt), sqlite3_changes(db));
  }
  if( rc!=SQLITE_DONE ) die("%s: %s", sqlite3_sql(pStmt), sqlite3_errmsg(db));
  sqlite3_reset(pStmt);
}

/* Insert one document given as JSON text. */
static void insertOne(sqlite3 *db, const char *zInsert, const char *zDoc, int nDoc){
  sqlite3_stmt *pStmt = prepare(db, zInsert);
  sqlite3_bind_text(pStmt, 1, zDoc, nDoc, SQLITE_STATIC);
  stepWrite(db, pStmt);
  sqlite3_finalize(pStmt);
}

/* The integer _id of a document as either side prints it: both begin
** {"_id":N, (docext always writes _id first). */
static int docId(const unsigned char *z){
  if( z==0 || strncmp((const char*)z, "{\"_id\":", 7)!=0 ){
    die("document without a leading integer _id: %.60s", z ? (const char*)z : "NULL");
  }
  return atoi((const char*)z + 7);
}

/* Size of a file in bytes, 0 if it does not exist. */
static long long fileSize(const char *zPath){
  struct stat st;
  return stat(zPath, &st)==0 ? (long long)st.st_size : 0;
}

static void *xmalloc(size_t n){
  void *p = calloc(1, n ? n : 1);
  if( p==0 ) die("out of memory");
  return p;
}

/* ---- the documents ----------------------------------------------------- */

/* xorshift64*: deterministic across runs and machines. rnd() draws from the
** generator that bookJson() reseeds; workloads draw from their own state. */
static unsigned int rndFrom(unsigned long long *pState, unsigned int n){
  *pState ^= *pState >> 12;
  *pState ^= *pState << 25;
  *pState ^= *pState >> 27;
  return (unsigned int)((*pState * 2685821657736338717ULL) >> 33) % n;
}
static unsigned long long rngState;
static unsigned int rnd(unsigned int n){ return rndFrom(&rngState, n); }

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
#define NSUBJECT (int)(sizeof(azSubject)/sizeof(azSubject[0]))
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
    put(z, nz, &n, "%s\"%s\"", k ? "," : "", azSubject[rnd(NSUBJECT)]);
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

/* The slug of book i, as bookJson() writes it. */
static void bookSlug(int i, char *zSlug, int nSlug){
  char zDoc[4096];
  const char *zStart, *zEnd;
  bookJson(i, zDoc, sizeof(zDoc));
  zStart = strstr(zDoc, "\"slug\":\"");
  if( zStart==0 ) die("book %d has no slug", i);
  zStart += 8;
  zEnd = strchr(zStart, '"');
  if( zEnd==0 || zEnd - zStart >= nSlug ) die("book %d: slug too long", i);
  memcpy(zSlug, zStart, (size_t)(zEnd - zStart));
  zSlug[zEnd - zStart] = 0;
}

/* Review number i (1-based _id) of W4: {_id, user, book, rating, text,
** created_at}, about 200 bytes. created_at is distinct for every review (so
** "latest" has one answer) and unrelated to insertion order; docext gets it
** as a BSON date, the JSON table as the ISO-8601 text a SQLite application
** would store, which orders the same way. */
static int reviewJson(Bench *p, int i, int bDate, char *z, int nz){
  int n = 0;
  char zDate[32];
  time_t t = (time_t)1262304000                       /* 2010-01-01 */
           + (time_t)(((unsigned long long)i * 2654435761ULL) & 0xFFFFFFF);
  struct tm tm;
  rngState = 0xC2B2AE3D27D4EB4FULL ^ ((unsigned long long)i * 0x100000001B3ULL);
  rnd(2);
  gmtime_r(&t, &tm);
  strftime(zDate, sizeof(zDate), "%Y-%m-%dT%H:%M:%SZ", &tm);
  put(z, nz, &n, "{\"_id\":%d,\"user\":%u,\"book\":%u,\"rating\":%u,\"text\":\"",
      i, 1 + rnd((unsigned)p->nUser), 1 + rnd((unsigned)p->nDoc), 1 + rnd(5));
  words(z, nz, &n, 12 + (int)rnd(8));
  if( bDate ){
    put(z, nz, &n, "\",\"created_at\":{\"$date\":\"%s\"}}", zDate);
  }else{
    put(z, nz, &n, "\",\"created_at\":\"%s\"}", zDate);
  }
  return n;
}

/* ---- W1, W-read, W7: loading and scanning the books -------------------- */

/* W1's books, generated before either side is timed: making the text
** (printf-heavy) costs about as much as SQLite's insert itself, and timed
** on both sides it would hide how the inserts compare. */
static struct {
  char *z;                /* every book's text, one after another */
  size_t *aOff;           /* book i (1-based) is z[aOff[i-1] .. aOff[i]) */
} w1;
static void w1Setup(Bench *p){
  char zDoc[4096];
  size_t nAlloc = (size_t)p->nDoc * 1200, n = 0;
  int i;
  w1.z = xmalloc(nAlloc);
  w1.aOff = xmalloc(sizeof(size_t) * ((size_t)p->nDoc + 1));
  w1.aOff[0] = 0;
  for(i=1; i<=p->nDoc; i++){
    int nDoc = bookJson(i, zDoc, sizeof(zDoc));
    if( n + (size_t)nDoc > nAlloc ){
      nAlloc *= 2;
      w1.z = realloc(w1.z, nAlloc);
      if( w1.z==0 ) die("out of memory");
    }
    memcpy(w1.z + n, zDoc, (size_t)nDoc);
    n += (size_t)nDoc;
    w1.aOff[i] = n;
  }
}

/* W1: insert all books in one transaction through one prepared statement. */
static void insertAll(Bench *p, sqlite3 *db, const char *zInsert){
  sqlite3_stmt *pStmt;
  int i;
  exec(db, "BEGIN");
  pStmt = prepare(db, zInsert);
  for(i=1; i<=p->nDoc; i++){
    sqlite3_bind_text(pStmt, 1, w1.z + w1.aOff[i-1], (int)(w1.aOff[i] - w1.aOff[i-1]),
                      SQLITE_STATIC);
    if( sqlite3_step(pStmt)!=SQLITE_DONE ) die("%s: %s", zInsert, sqlite3_errmsg(db));
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  exec(db, "COMMIT");
}
/* Each round of W1 starts from an empty table in a file as small as a new
** one: the last round's table dropped, the file vacuumed (untimed). */
static void w1Fresh(Bench *p, sqlite3 *db, const char *zDrop, const char *zCreate){
  double t0 = now();
  exec(db, zDrop);
  exec(db, "VACUUM");
  exec(db, zCreate);
  p->tUntimed += now() - t0;
}
static void w1Docext(Bench *p){
  w1Fresh(p, p->dbDoc, "DROP TABLE IF EXISTS books",
          "CREATE VIRTUAL TABLE books USING docext");
  insertAll(p, p->dbDoc, "INSERT INTO books(doc) VALUES (?)");
}
static void w1Json(Bench *p){
  w1Fresh(p, p->dbJson, "DROP TABLE IF EXISTS books_json",
          "CREATE TABLE books_json(doc TEXT);"
          "CREATE UNIQUE INDEX books_json_id ON books_json(json_extract(doc, '$._id'))");
  insertAll(p, p->dbJson, "INSERT INTO books_json(doc) VALUES (?)");
}

/* W-read: step through every row and touch its text. */
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
static long long nW7a, nW7b;
static void w7aDocext(Bench *p){
  nW7a = queryInt(p->dbDoc,
      "SELECT count(*) FROM books('{pages: {$gt: 300}, language: \"English\"}')");
}
static void w7aJson(Bench *p){
  long long n = queryInt(p->dbJson,
      "SELECT count(*) FROM books_json WHERE json_extract(doc, '$.pages') > 300"
      " AND json_extract(doc, '$.language') = 'English'");
  if( n!=nW7a ) die("W7: docext counted %lld, json %lld", nW7a, n);
}
static void w7bDocext(Bench *p){
  nW7b = queryInt(p->dbDoc,
      "SELECT count(*) FROM books('{\"publisher.name\": \"Scribner\"}')");
}
static void w7bJson(Bench *p){
  long long n = queryInt(p->dbJson,
      "SELECT count(*) FROM books_json"
      " WHERE json_extract(doc, '$.publisher.name') = 'Scribner'");
  if( n!=nW7b ) die("W7 dotted: docext counted %lld, json %lld", nW7b, n);
}

/* ---- W2: point lookups by slug ------------------------------------------
** nLookup prepared lookups of random existing slugs through a secondary
** index: docext's {slug: 1} index against an expression index on
** json_extract(doc, '$.slug'). docext gets its filter as text built for each
** lookup and bound to books(?1). Each lookup must return exactly the book
** asked for. */
static struct {
  int *aId;               /* the book each lookup asks for */
  char (*azSlug)[96];     /* its slug */
} w2;

static void w2Setup(Bench *p){
  unsigned long long s = 0x2545F4914F6CDD1DULL;
  int k;
  w2.aId = xmalloc(sizeof(int)*(size_t)p->nLookup);
  w2.azSlug = xmalloc(sizeof(w2.azSlug[0])*(size_t)p->nLookup);
  for(k=0; k<p->nLookup; k++) w2.aId[k] = 1 + (int)rndFrom(&s, (unsigned)p->nDoc);
  for(k=0; k<p->nLookup; k++) bookSlug(w2.aId[k], w2.azSlug[k], sizeof(w2.azSlug[0]));
  exec(p->dbDoc, "SELECT doc_create_index('books', '{slug: 1}')");
  exec(p->dbJson, "CREATE INDEX books_json_slug ON books_json(json_extract(doc, '$.slug'))");
}

/* Run every lookup; bFilter: bind a filter document, else the bare slug. */
static void lookupAll(Bench *p, sqlite3 *db, const char *zSql, int bFilter){
  sqlite3_stmt *pStmt = prepare(db, zSql);
  char zFilter[128];
  int k;
  for(k=0; k<p->nLookup; k++){
    const unsigned char *z;
    if( bFilter ){
      int n = snprintf(zFilter, sizeof(zFilter), "{\"slug\":\"%s\"}", w2.azSlug[k]);
      sqlite3_bind_text(pStmt, 1, zFilter, n, SQLITE_STATIC);
    }else{
      sqlite3_bind_text(pStmt, 1, w2.azSlug[k], -1, SQLITE_STATIC);
    }
    if( sqlite3_step(pStmt)!=SQLITE_ROW ) die("%s: no book with slug %s", zSql, w2.azSlug[k]);
    z = sqlite3_column_text(pStmt, 0);
    if( docId(z)!=w2.aId[k] ) die("%s: slug %s gave book %d", zSql, w2.azSlug[k], docId(z));
    p->sink += (unsigned long long)sqlite3_column_bytes(pStmt, 0);
    if( sqlite3_step(pStmt)!=SQLITE_DONE ) die("%s: slug %s: more than one book", zSql, w2.azSlug[k]);
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
}
static void w2Docext(Bench *p){
  lookupAll(p, p->dbDoc, "SELECT doc FROM books(?1)", 1);
}
static void w2Json(Bench *p){
  lookupAll(p, p->dbJson,
      "SELECT doc FROM books_json WHERE json_extract(doc, '$.slug') = ?1", 0);
}

/* ---- W18: point lookups by slug, without case -----------------------------
** W2's lookups with each slug in capitals, under the collation {locale:
** "en", strength: 2} (case does not count), served by docext's {slug: 1}
** index of that collation, against SQLite's expression index on the slug
** with COLLATE NOCASE (the slugs are ASCII, where NOCASE and the collation
** agree). Each lookup must return exactly the book asked for. */
static void w18Setup(Bench *p){
  int k, i;
  for(k=0; k<p->nLookup; k++){
    for(i=0; w2.azSlug[k][i]; i++){
      if( w2.azSlug[k][i]>='a' && w2.azSlug[k][i]<='z' ) w2.azSlug[k][i] -= 'a' - 'A';
    }
  }
  exec(p->dbDoc, "SELECT doc_create_index('books', '{slug: 1}', "
                 "'{name: \"slug_ci\", collation: {locale: \"en\", strength: 2}}')");
  exec(p->dbJson, "CREATE INDEX books_json_slug_ci ON books_json(json_extract(doc, '$.slug')"
                  " COLLATE NOCASE)");
}
static void w18Docext(Bench *p){
  lookupAll(p, p->dbDoc, "SELECT doc FROM books(?1, NULL, NULL,"
            " '{\"collation\": {\"locale\": \"en\", \"strength\": 2}}')", 1);
}
static void w18Json(Bench *p){
  lookupAll(p, p->dbJson,
      "SELECT doc FROM books_json WHERE json_extract(doc, '$.slug') = ?1 COLLATE NOCASE", 0);
}

/* ---- W3: multikey lookups {subjects: S} ---------------------------------
** nSubjectQuery counts of the books having subject S: docext through its
** multikey {subjects: 1} index (a count reads only index entries), SQLite
** with no multikey index to use, so json_each over every row. A book may
** list a subject twice, so the JSON side counts books with EXISTS rather
** than joined (book, element) pairs, which would count such a book twice.
** Each JSON lookup scans every book, so with many books the JSON side runs
** only the first lookups (about 2 million books scanned in all) and its
** time is scaled to the whole workload. */
static struct {
  int *aSubject;          /* the subject of each lookup */
  long long *aCount;      /* docext's count for each lookup */
  int nJson;              /* lookups the JSON side runs (the first ones) */
} w3;

static void w3Setup(Bench *p){
  unsigned long long s = 0x9FB21C651E98DF25ULL;
  int k;
  w3.aSubject = xmalloc(sizeof(int)*(size_t)p->nSubjectQuery);
  w3.aCount = xmalloc(sizeof(long long)*(size_t)p->nSubjectQuery);
  for(k=0; k<p->nSubjectQuery; k++) w3.aSubject[k] = (int)rndFrom(&s, NSUBJECT);
  w3.nJson = 2000000/p->nDoc;
  if( w3.nJson<10 ) w3.nJson = 10;
  if( w3.nJson>p->nSubjectQuery ) w3.nJson = p->nSubjectQuery;
  exec(p->dbDoc, "SELECT doc_create_index('books', '{subjects: 1}')");
}
static void w3Docext(Bench *p){
  sqlite3_stmt *pStmt = prepare(p->dbDoc, "SELECT count(*) FROM books(?1)");
  char zFilter[128];
  int k;
  for(k=0; k<p->nSubjectQuery; k++){
    int n = snprintf(zFilter, sizeof(zFilter), "{\"subjects\":\"%s\"}",
                     azSubject[w3.aSubject[k]]);
    sqlite3_bind_text(pStmt, 1, zFilter, n, SQLITE_STATIC);
    if( sqlite3_step(pStmt)!=SQLITE_ROW ) die("W3: %s", sqlite3_errmsg(p->dbDoc));
    w3.aCount[k] = sqlite3_column_int64(pStmt, 0);
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
}
static void w3Json(Bench *p){
  sqlite3_stmt *pStmt = prepare(p->dbJson,
      "SELECT count(*) FROM books_json WHERE EXISTS (SELECT 1 FROM"
      " json_each(books_json.doc, '$.subjects') WHERE json_each.value = ?1)");
  int k;
  for(k=0; k<w3.nJson; k++){
    long long n;
    sqlite3_bind_text(pStmt, 1, azSubject[w3.aSubject[k]], -1, SQLITE_STATIC);
    if( sqlite3_step(pStmt)!=SQLITE_ROW ) die("W3: %s", sqlite3_errmsg(p->dbJson));
    n = sqlite3_column_int64(pStmt, 0);
    if( n!=w3.aCount[k] ){
      die("W3: {subjects: \"%s\"}: docext counted %lld, json %lld",
          azSubject[w3.aSubject[k]], w3.aCount[k], n);
    }
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  p->fScale = (double)p->nSubjectQuery / w3.nJson;
}
static void w3After(Bench *p){
  if( w3.nJson<p->nSubjectQuery ){
    printf("   json ran the first %d of the %d lookups (each scans all %d books);"
           " its time is scaled to %d\n", w3.nJson, p->nSubjectQuery, p->nDoc,
           p->nSubjectQuery);
  }
}

/* ---- W8: distinct subjects -----------------------------------------------
** MongoDB's distinct over every book: doc_distinct('books', 'subjects')
** against SQLite's DISTINCT over json_each of the same array, both giving a
** JSON array of the subjects in order (BSON orders strings as SQLite's
** BINARY collation does), run W8_RUNS times. The texts must be equal. No
** target: it shows what reading documents without parsing text is worth. */
#define W8_RUNS 5
static char *w8Text[2];
/* Run a statement that gives one text nRun times, keeping the last text in
** *pzOut (W8, W10). */
static void runTextTimes(sqlite3 *db, const char *zWhat, const char *zSql, int nRun,
                         char **pzOut){
  int k;
  for(k=0; k<nRun; k++){
    sqlite3_stmt *pStmt = prepare(db, zSql);
    const char *z;
    if( sqlite3_step(pStmt)!=SQLITE_ROW ) die("%s: %s", zWhat, sqlite3_errmsg(db));
    z = (const char*)sqlite3_column_text(pStmt, 0);
    free(*pzOut);
    *pzOut = strdup(z ? z : "(null)");
    if( *pzOut==0 ) die("%s: out of memory", zWhat);
    sqlite3_finalize(pStmt);
  }
}
static void w8Docext(Bench *p){
  runTextTimes(p->dbDoc, "W8", "SELECT doc_distinct('books', 'subjects')", W8_RUNS,
               &w8Text[0]);
}
static void w8Json(Bench *p){
  runTextTimes(p->dbJson, "W8", "SELECT json_group_array(value) FROM (SELECT DISTINCT"
               " j.value FROM books_json, json_each(books_json.doc, '$.subjects') AS j"
               " ORDER BY 1)", W8_RUNS, &w8Text[1]);
}
/* The two sides' texts (docext's, json's) must be equal; frees them. */
static void checkTexts(const char *zWhat, char **az){
  if( strcmp(az[0], az[1])!=0 ){
    die("%s: docext gave %.300s, json %.300s", zWhat, az[0], az[1]);
  }
  free(az[0]);
  free(az[1]);
  az[0] = az[1] = 0;
}
static void w8Check(Bench *p){
  (void)p;
  checkTexts("W8", w8Text);
}

/* ---- W10: a $group over every book ---------------------------------------
** MongoDB's aggregation doc_aggregate('books', [{$group: {_id:
** "$publisher.name", n: {$sum: 1}, pages: {$sum: "$pages"}}}]) against
** SQLite's GROUP BY over json_extract of the same fields, each giving its
** groups as text in the order of the publisher's name (docext's $group
** gives its groups in the BSON order of _id, which for strings is SQLite's
** BINARY order), run W10_RUNS times. The texts must be equal. No target. */
#define W10_RUNS 5
static char *w10Text[2];
static void w10Docext(Bench *p){
  runTextTimes(p->dbDoc, "W10", "SELECT group_concat(doc, ';') FROM doc_aggregate('books',"
               " '[{\"$group\": {\"_id\": \"$publisher.name\", \"n\": {\"$sum\": 1},"
               " \"pages\": {\"$sum\": \"$pages\"}}}]')", W10_RUNS, &w10Text[0]);
}
static void w10Json(Bench *p){
  runTextTimes(p->dbJson, "W10", "SELECT group_concat(json_object('_id', name, 'n', n,"
               " 'pages', pages), ';') FROM (SELECT json_extract(doc, '$.publisher.name') AS"
               " name, count(*) AS n, sum(json_extract(doc, '$.pages')) AS pages"
               " FROM books_json GROUP BY 1 ORDER BY 1)", W10_RUNS, &w10Text[1]);
}
static void w10Check(Bench *p){
  (void)p;
  checkTexts("W10", w10Text);
}

/* ---- W11: a window function: running totals by partition ---------------
** Each book's running total of pages within its publisher, in _id order:
** $setWindowFields against SQLite's own window function over json_extract,
** run W11_RUNS times; both give the number of rows and the sum of the
** running totals, which must be equal. No target. */
#define W11_RUNS 3
static char *w11Text[2];
static void w11Docext(Bench *p){
  runTextTimes(p->dbDoc, "W11", "SELECT count(*) || '|' || sum(doc_get(bson, 'run'))"
               " FROM doc_aggregate('books', '[{\"$setWindowFields\": {\"partitionBy\":"
               " \"$publisher.name\", \"sortBy\": {\"_id\": 1}, \"output\": {\"run\":"
               " {\"$sum\": \"$pages\", \"window\": {\"documents\": [\"unbounded\","
               " \"current\"]}}}}}, {\"$project\": {\"run\": 1}}]')", W11_RUNS, &w11Text[0]);
}
static void w11Json(Bench *p){
  runTextTimes(p->dbJson, "W11", "SELECT count(*) || '|' || sum(run) FROM (SELECT"
               " sum(json_extract(doc, '$.pages')) OVER (PARTITION BY"
               " json_extract(doc, '$.publisher.name') ORDER BY json_extract(doc, '$._id')"
               " ROWS UNBOUNDED PRECEDING) AS run FROM books_json)", W11_RUNS, &w11Text[1]);
}
static void w11Check(Bench *p){
  (void)p;
  checkTexts("W11", w11Text);
}

/* ---- W-index: building an index on an embedded field ------------------
** doc_create_index over every book against CREATE INDEX on the expression;
** afterwards both must count the same books through their new index. No
** target: index builds are rare, this only watches for a regression. */
static void wIndexDocext(Bench *p){
  exec(p->dbDoc, "SELECT doc_create_index('books', '{\"publisher.name\": 1}')");
}
static void wIndexJson(Bench *p){
  exec(p->dbJson, "CREATE INDEX books_json_publisher"
                  " ON books_json(json_extract(doc, '$.publisher.name'))");
}
static void wIndexCheck(Bench *p){
  long long nDoc = queryInt(p->dbDoc,
      "SELECT doc_count('books', '{\"publisher.name\": \"Vintage\"}')");
  long long nJson = queryInt(p->dbJson,
      "SELECT count(*) FROM books_json"
      " WHERE json_extract(doc, '$.publisher.name') = 'Vintage'");
  if( nDoc!=nJson || (nDoc<=0 && p->nDoc>=100) ){
    die("W-index: docext counted %lld Vintage books, json %lld", nDoc, nJson);
  }
}

/* ---- W4: the latest 10 reviews of a user --------------------------------
** A reviews collection, one document per review, with a compound index
** {user: 1, created_at: -1}, against reviews_json with an expression index
** on the same two fields. nUserQuery users are queried; both sides must
** return the same reviews in the same order. Loading is untimed. */
static struct {
  int *aUser;             /* the user of each query */
  int *aId;               /* docext's answer: 10 ids per query, 0 padded */
} w4;

static void w4Load(Bench *p, sqlite3 *db, const char *zInsert, int bDate){
  char zDoc[1024];
  sqlite3_stmt *pStmt;
  int i;
  exec(db, "BEGIN");
  pStmt = prepare(db, zInsert);
  for(i=1; i<=p->nReview; i++){
    int n = reviewJson(p, i, bDate, zDoc, sizeof(zDoc));
    sqlite3_bind_text(pStmt, 1, zDoc, n, SQLITE_STATIC);
    stepWrite(db, pStmt);
  }
  sqlite3_finalize(pStmt);
  exec(db, "COMMIT");
}
static void w4Setup(Bench *p){
  unsigned long long s = 0xD6E8FEB86659FD93ULL;
  sqlite3_stmt *pStmt;
  int k;
  exec(p->dbDoc, "CREATE VIRTUAL TABLE reviews USING docext");
  exec(p->dbDoc, "SELECT doc_create_index('reviews', '{user: 1, created_at: -1}')");
  w4Load(p, p->dbDoc, "INSERT INTO reviews(doc) VALUES (?1)", 1);
  exec(p->dbJson, "CREATE TABLE reviews_json(doc TEXT)");
  exec(p->dbJson, "CREATE INDEX reviews_json_user_created ON reviews_json("
                  "json_extract(doc, '$.user'), json_extract(doc, '$.created_at') DESC)");
  w4Load(p, p->dbJson, "INSERT INTO reviews_json(doc) VALUES (?1)", 0);

  /* The JSON side must read its index in order, not sort the matches. */
  pStmt = prepare(p->dbJson, "EXPLAIN QUERY PLAN SELECT doc FROM reviews_json"
      " WHERE json_extract(doc, '$.user') = ?1"
      " ORDER BY json_extract(doc, '$.created_at') DESC LIMIT 10");
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pStmt, 3);
    if( z && strstr(z, "TEMP B-TREE") ) die("W4: the JSON side sorts: %s", z);
  }
  sqlite3_finalize(pStmt);

  w4.aUser = xmalloc(sizeof(int)*(size_t)p->nUserQuery);
  w4.aId = xmalloc(sizeof(int)*10*(size_t)p->nUserQuery);
  for(k=0; k<p->nUserQuery; k++) w4.aUser[k] = 1 + (int)rndFrom(&s, (unsigned)p->nUser);
}

/* Run every query; bFilter: bind a filter document, else the bare user.
** bRecord: keep the ids in w4.aId, else check them against it. */
static void latestAll(Bench *p, sqlite3 *db, const char *zSql, int bFilter, int bRecord){
  sqlite3_stmt *pStmt = prepare(db, zSql);
  char zFilter[64];
  int k, j;
  for(k=0; k<p->nUserQuery; k++){
    int *aId = &w4.aId[k*10];
    if( bFilter ){
      int n = snprintf(zFilter, sizeof(zFilter), "{\"user\":%d}", w4.aUser[k]);
      sqlite3_bind_text(pStmt, 1, zFilter, n, SQLITE_STATIC);
    }else{
      sqlite3_bind_int(pStmt, 1, w4.aUser[k]);
    }
    for(j=0; sqlite3_step(pStmt)==SQLITE_ROW; j++){
      int id = docId(sqlite3_column_text(pStmt, 0));
      if( j>=10 ) die("%s: more than 10 rows", zSql);
      if( bRecord ) aId[j] = id;
      else if( aId[j]!=id ) die("W4: user %d, review %d: docext %d, json %d",
                                w4.aUser[k], j+1, aId[j], id);
    }
    if( bRecord ){
      for(; j<10; j++) aId[j] = 0;
    }else if( j<10 && aId[j]!=0 ){
      die("W4: user %d: json has %d reviews, docext more", w4.aUser[k], j);
    }
    p->sink += (unsigned long long)j;
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
}
static void w4Docext(Bench *p){
  latestAll(p, p->dbDoc,
      "SELECT doc FROM reviews(?1, NULL, '{\"created_at\": -1}') LIMIT 10", 1, 1);
}
static void w4Json(Bench *p){
  latestAll(p, p->dbJson,
      "SELECT doc FROM reviews_json WHERE json_extract(doc, '$.user') = ?1"
      " ORDER BY json_extract(doc, '$.created_at') DESC LIMIT 10", 0, 0);
}

/* ---- W5: $push onto one growing document --------------------------------
** nAppend reviews of about 200 bytes appended one statement (one WAL
** commit) at a time to the array "reviews" of ONE document that has a 1 KB
** field after it: docext's doc_update_one(... {$push: {reviews: R}}) against
** json_insert(doc, '$.reviews[#]', json(R)). After the check, 100 more
** appends through UPDATE big SET doc = doc_update(bson, ...) show the SQL
** form of the same update (not in the ratio).
** The appends run in batches of 100; between batches (untimed) the WAL is
** checkpointed and truncated, so no checkpoint ever runs during an append,
** the WAL never holds more than one batch, and its growth over the last
** batch is exactly what those 100 commits wrote. */
typedef struct W5Side W5Side;
struct W5Side {
  double tFirst, tLast;   /* seconds for the first and the last 100 appends */
  long long nWalLast;     /* -wal bytes written by the last 100 appends */
};
static W5Side w5StatDoc, w5StatJson, w5StatUpdate;

/* The initial document: title, the empty array, then 1 KB of tail. */
static int bigJson(char *z, int nz){
  int n = 0;
  rngState = 0x5851F42D4C957F2DULL;
  put(z, nz, &n, "{\"_id\":1,\"title\":\"The Great Gatsby\",\"reviews\":[],\"tail\":\"");
  while( n<1100 ) put(z, nz, &n, "%s ", azWord[rnd(NWORD)]);
  put(z, nz, &n, "end\"}");
  return n;
}

/* Review number k of W5, about 200 bytes. */
static int appendedReview(int k, char *z, int nz){
  int n = 0;
  rngState = 0x14057B7EF767814FULL ^ ((unsigned long long)k * 0x100000001B3ULL);
  put(z, nz, &n, "{\"user\":%d,\"rating\":%u,\"text\":\"", k, 1 + rnd(5));
  while( n<190 ) put(z, nz, &n, "%s ", azWord[rnd(NWORD)]);
  put(z, nz, &n, "end\"}");
  return n;
}

static void w5Setup(Bench *p){
  char zDoc[2048];
  int n = bigJson(zDoc, sizeof(zDoc));
  exec(p->dbDocWal, "CREATE VIRTUAL TABLE big USING docext");
  insertOne(p->dbDocWal, "INSERT INTO big(doc) VALUES (?1)", zDoc, n);
  exec(p->dbJsonWal, "CREATE TABLE big_json(id INTEGER PRIMARY KEY, doc TEXT)");
  insertOne(p->dbJsonWal, "INSERT INTO big_json(id, doc) VALUES (1, ?1)", zDoc, n);
}

/* Checkpoint and truncate the WAL, untimed. */
static void walReset(Bench *p, sqlite3 *db){
  double t0 = now();
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  p->tUntimed += now() - t0;
}

/* Append reviews iFirst .. iFirst+nAppend-1 through zSql (nAppend a multiple
** of 100); bPush: bind {$push: {reviews: R}}, else R itself. zFile is the
** database file; the times and the WAL growth go to *pSide. */
static void appendAll(Bench *p, sqlite3 *db, const char *zSql, int bPush,
                      const char *zFile, int iFirst, int nAppend, W5Side *pSide){
  sqlite3_stmt *pStmt = prepare(db, zSql);
  char zReview[512], zUpdate[600], zWal[160];
  int k;
  snprintf(zWal, sizeof(zWal), "%s/%s-wal", zBenchDir, zFile);
  for(k=0; k<nAppend; k++){
    int n = appendedReview(iFirst+k, zReview, sizeof(zReview));
    double t0;
    if( k%100==0 ){
      walReset(p, db);
      if( fileSize(zWal)!=0 ) die("W5: %s not truncated", zWal);
    }
    t0 = now();
    if( bPush ){
      n = snprintf(zUpdate, sizeof(zUpdate), "{\"$push\":{\"reviews\":%s}}", zReview);
      sqlite3_bind_text(pStmt, 1, zUpdate, n, SQLITE_STATIC);
    }else{
      sqlite3_bind_text(pStmt, 1, zReview, n, SQLITE_STATIC);
    }
    stepWrite(db, pStmt);
    if( k<100 ) pSide->tFirst += now() - t0;
    if( k>=nAppend-100 ) pSide->tLast += now() - t0;
  }
  pSide->nWalLast = fileSize(zWal);
  sqlite3_finalize(pStmt);
}
static void w5Docext(Bench *p){
  appendAll(p, p->dbDocWal, "SELECT doc_update_one('big', '{\"_id\": 1}', ?1)", 1,
            "wal-docext.db", 1, p->nAppend, &w5StatDoc);
}
static void w5Json(Bench *p){
  appendAll(p, p->dbJsonWal,
      "UPDATE big_json SET doc = json_insert(doc, '$.reviews[#]', json(?1))"
      " WHERE id = 1", 0, "wal-json.db", 1, p->nAppend, &w5StatJson);
}

/* Both documents hold every review, the same last one, and the tail; then
** the extra lines. */
static void w5After(Bench *p){
  char zSql[512];
  static const char *zProbe =
      "SELECT json_array_length(doc, '$.reviews') || '|'"
      " || json_extract(doc, '$.reviews[#-1].text') || '|'"
      " || substr(json_extract(doc, '$.tail'), -4) FROM %s";
  sqlite3_stmt *pDoc, *pJson;
  const char *zDoc, *zJson;
  int pgsz = (int)queryInt(p->dbDocWal, "PRAGMA page_size");
  snprintf(zSql, sizeof(zSql), zProbe, "big WHERE _id = 1");
  pDoc = prepare(p->dbDocWal, zSql);
  snprintf(zSql, sizeof(zSql), zProbe, "big_json WHERE id = 1");
  pJson = prepare(p->dbJsonWal, zSql);
  if( sqlite3_step(pDoc)!=SQLITE_ROW || sqlite3_step(pJson)!=SQLITE_ROW ) die("W5: document lost");
  zDoc = (const char*)sqlite3_column_text(pDoc, 0);
  zJson = (const char*)sqlite3_column_text(pJson, 0);
  if( zDoc==0 || zJson==0 || strcmp(zDoc, zJson)!=0 || atoi(zDoc)!=p->nAppend ){
    die("W5: docext has %s, json %s", zDoc ? zDoc : "NULL", zJson ? zJson : "NULL");
  }
  sqlite3_finalize(pDoc);
  sqlite3_finalize(pJson);

  printf("   per append, first 100: docext %.1f us, json %.1f us;"
         " last 100: docext %.1f us, json %.1f us\n",
         w5StatDoc.tFirst*1e4, w5StatJson.tFirst*1e4,
         w5StatDoc.tLast*1e4, w5StatJson.tLast*1e4);
  printf("   WAL per append, last 100: docext %lld bytes = %.2f pages of %d"
         " (target <= 4%s), json %lld bytes = %.1f pages\n",
         w5StatDoc.nWalLast/100, w5StatDoc.nWalLast/100.0/pgsz, pgsz,
         w5StatDoc.nWalLast/100.0/pgsz<=4.0 ? "" : ", MISSED",
         w5StatJson.nWalLast/100, w5StatJson.nWalLast/100.0/pgsz);

  appendAll(p, p->dbDocWal, "UPDATE big SET doc = doc_update(bson, ?1) WHERE _id = 1",
            1, "wal-docext.db", p->nAppend+1, 100, &w5StatUpdate);
  if( queryInt(p->dbDocWal, "SELECT json_array_length(doc, '$.reviews') FROM big")
      !=p->nAppend+100 ){
    die("W5: UPDATE ... doc_update did not append");
  }
  printf("   the same as UPDATE big SET doc = doc_update(bson, ...), 100 more"
         " appends: %.1f us, WAL %lld bytes = %.2f pages per append\n",
         w5StatUpdate.tLast*1e4, w5StatUpdate.nWalLast/100,
         w5StatUpdate.nWalLast/100.0/pgsz);
}

/* ---- W6: a time series document (SCENARIOS A.10) ------------------------
** nInc increments of the last minute of the day (minute 1439, hour 23) on
** one per-day document, one statement (one WAL commit) each:
**   flat    {total, hour: {"0".."23"}, minute: {"0".."1439"}}
**           $inc {total, "hour.23", "minute.1439"}
**   nested  {total, hour: {"0": {total, "0".."59"}, ..., "23": {total,
**           "1380".."1439"}}}   $inc {total, "hour.23.total", "hour.23.1439"}
** and the flat layout on the JSON table with json_set. Reaching minute 1439
** means walking past 1439 keys in the flat layout but only 23 sub-documents
** and 60 keys in the nested one, so nested should win. WAL checkpoints run
** automatically (SQLite's default, every 1000 pages) and are timed. */
static int w6nFlatRuns;   /* times the flat docext side ran (in both W6 lines) */
static int w6nNestedRuns; /* times the nested side ran */

static int tsFlatJson(char *z, int nz){
  int n = 0, h, m;
  put(z, nz, &n, "{\"_id\":1,\"total\":0,\"hour\":{");
  for(h=0; h<24; h++) put(z, nz, &n, "%s\"%d\":0", h ? "," : "", h);
  put(z, nz, &n, "},\"minute\":{");
  for(m=0; m<1440; m++) put(z, nz, &n, "%s\"%d\":0", m ? "," : "", m);
  put(z, nz, &n, "}}");
  return n;
}
static int tsNestedJson(char *z, int nz){
  int n = 0, h, m;
  put(z, nz, &n, "{\"_id\":1,\"total\":0,\"hour\":{");
  for(h=0; h<24; h++){
    put(z, nz, &n, "%s\"%d\":{\"total\":0", h ? "," : "", h);
    for(m=h*60; m<h*60+60; m++) put(z, nz, &n, ",\"%d\":0", m);
    put(z, nz, &n, "}");
  }
  put(z, nz, &n, "}}");
  return n;
}
static void w6Setup(Bench *p){
  char zDoc[32768];
  int n;
  /* start from an empty WAL: W5 leaves its last batch there */
  exec(p->dbDocWal, "PRAGMA wal_checkpoint(TRUNCATE)");
  exec(p->dbJsonWal, "PRAGMA wal_checkpoint(TRUNCATE)");
  exec(p->dbDocWal, "PRAGMA wal_autocheckpoint=1000");
  exec(p->dbJsonWal, "PRAGMA wal_autocheckpoint=1000");
  exec(p->dbDocWal, "CREATE VIRTUAL TABLE ts_flat USING docext");
  exec(p->dbDocWal, "CREATE VIRTUAL TABLE ts_nested USING docext");
  exec(p->dbJsonWal, "CREATE TABLE ts_json(id INTEGER PRIMARY KEY, doc TEXT)");
  n = tsFlatJson(zDoc, sizeof(zDoc));
  insertOne(p->dbDocWal, "INSERT INTO ts_flat(doc) VALUES (?1)", zDoc, n);
  insertOne(p->dbJsonWal, "INSERT INTO ts_json(id, doc) VALUES (1, ?1)", zDoc, n);
  n = tsNestedJson(zDoc, sizeof(zDoc));
  insertOne(p->dbDocWal, "INSERT INTO ts_nested(doc) VALUES (?1)", zDoc, n);
}

/* Run the same update nInc times. */
static void repeatUpdate(Bench *p, sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = prepare(db, zSql);
  int k;
  for(k=0; k<p->nInc; k++) stepWrite(db, pStmt);
  sqlite3_finalize(pStmt);
}
static void w6FlatDocext(Bench *p){
  repeatUpdate(p, p->dbDocWal, "UPDATE ts_flat SET doc = doc_update(bson,"
      " '{$inc: {total: 1, \"hour.23\": 1, \"minute.1439\": 1}}') WHERE _id = 1");
  w6nFlatRuns++;
}
static void w6NestedDocext(Bench *p){
  repeatUpdate(p, p->dbDocWal, "UPDATE ts_nested SET doc = doc_update(bson,"
      " '{$inc: {total: 1, \"hour.23.total\": 1, \"hour.23.1439\": 1}}') WHERE _id = 1");
  w6nNestedRuns++;
}
static void w6FlatJson(Bench *p){
  repeatUpdate(p, p->dbJsonWal, "UPDATE ts_json SET doc = json_set(doc,"
      " '$.total', json_extract(doc, '$.total') + 1,"
      " '$.hour.23', json_extract(doc, '$.hour.23') + 1,"
      " '$.minute.1439', json_extract(doc, '$.minute.1439') + 1) WHERE id = 1");
}

/* Every counter of every layout holds the number of increments it got. */
static void w6Expect(sqlite3 *db, const char *zSql, long long nWant){
  long long n = queryInt(db, zSql);
  if( n!=nWant ) die("W6: %s gives %lld, expected %lld", zSql, n, nWant);
}
static void w6Check(Bench *p){
  long long nFlat = (long long)p->nInc * w6nFlatRuns;
  w6Expect(p->dbDocWal, "SELECT doc ->> '$.total' FROM ts_flat", nFlat);
  w6Expect(p->dbDocWal, "SELECT doc ->> '$.hour.23' FROM ts_flat", nFlat);
  w6Expect(p->dbDocWal, "SELECT doc ->> '$.minute.1439' FROM ts_flat", nFlat);
  w6Expect(p->dbJsonWal, "SELECT doc ->> '$.total' FROM ts_json", p->nInc);
  w6Expect(p->dbJsonWal, "SELECT doc ->> '$.hour.23' FROM ts_json", p->nInc);
  w6Expect(p->dbJsonWal, "SELECT doc ->> '$.minute.1439' FROM ts_json", p->nInc);
}
static void w6CheckNested(Bench *p){
  long long nNested = (long long)p->nInc * w6nNestedRuns;
  w6Check(p);
  w6Expect(p->dbDocWal, "SELECT doc ->> '$.total' FROM ts_nested", nNested);
  w6Expect(p->dbDocWal, "SELECT doc ->> '$.hour.23.total' FROM ts_nested", nNested);
  w6Expect(p->dbDocWal, "SELECT doc ->> '$.hour.23.1439' FROM ts_nested", nNested);
  w6Expect(p->dbDocWal, "SELECT doc ->> '$.hour.22.1379' FROM ts_nested", 0);
}

/* ---- W9: one document at a time through a command ----------------------
** nLookup updates of random books by _id, in one transaction: docext's
** collection command doc_update_one('books', {_id: i}, {$inc: {pages: 1}})
** against an UPDATE that rewrites the JSON text with json_set, found through
** the unique index on json_extract(doc, '$._id'). What a command costs
** beyond its update: naming the collection, its savepoint, its answer. No
** target. Both sides must end with the same total of pages. */
static int *aW9Id;          /* the book each update changes */
static void w9Setup(Bench *p){
  unsigned long long s = 0x5851F42D4C957F2DULL;
  int k;
  aW9Id = xmalloc(sizeof(int)*(size_t)p->nLookup);
  for(k=0; k<p->nLookup; k++) aW9Id[k] = 1 + (int)rndFrom(&s, (unsigned)p->nDoc);
}
static void w9Run(Bench *p, sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt;
  int k;
  exec(db, "BEGIN");
  pStmt = prepare(db, zSql);
  for(k=0; k<p->nLookup; k++){
    sqlite3_bind_int(pStmt, 1, aW9Id[k]);
    if( sqlite3_step(pStmt)==SQLITE_ERROR ) die("W9: %s", sqlite3_errmsg(db));
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  exec(db, "COMMIT");
}
static void w9Docext(Bench *p){
  w9Run(p, p->dbDoc, "SELECT doc_update_one('books', json_object('_id', ?1),"
                     " '{\"$inc\": {\"pages\": 1}}')");
}
static void w9Json(Bench *p){
  w9Run(p, p->dbJson, "UPDATE books_json SET doc = json_set(doc, '$.pages',"
                      " json_extract(doc, '$.pages') + 1) WHERE json_extract(doc, '$._id') = ?1");
}
static void w9Check(Bench *p){
  long long nDoc = queryInt(p->dbDoc, "SELECT sum(doc ->> '$.pages') FROM books");
  long long nJson = queryInt(p->dbJson, "SELECT sum(doc ->> '$.pages') FROM books_json");
  if( nDoc!=nJson ) die("W9: pages add up to %lld in docext, %lld in json", nDoc, nJson);
}

/* ---- W12, W13: places on the sphere --------------------------------------
** nDoc places, each a GeoJSON point at a random longitude and latitude (in
** millionths of a degree), in a docext collection and in places_json.
** W12: the places in a quadrilateral (great-circle edges) by $geoWithin,
** against SQLite's math functions testing the same point on the inner side
** of each edge's plane (the quadrilateral is convex, listed anticlockwise,
** so inside is n.p >= 0 for each edge's normal n = a x b), 5 times; the
** counts must be equal. W13: the 10 places nearest a point by $geoNear,
** against ORDER BY the dot product with it (the greatest is the nearest)
** LIMIT 10, 5 times; the lists of ids must be equal. No targets: both
** sides read every place (W14, later, adds a 2dsphere index). */
#define W12_RUNS 5
static const double aW12Quad[4][2] = { {-10, -10}, {30, -10}, {30, 30}, {-10, 30} };
static const double aW13Near[2] = { 12.5, 41.9 };
static char *w12Text[2], *w13Text[2];

static void w12Point(double lng, double lat, double *a){
  double la = lat*3.14159265358979323846/180, lo = lng*3.14159265358979323846/180;
  a[0] = cos(la)*cos(lo);
  a[1] = cos(la)*sin(lo);
  a[2] = sin(la);
}
static void w12Setup(Bench *p){
  unsigned long long state = 0x67656f2d706c6163ULL;
  sqlite3_stmt *pDoc, *pJson;
  char zDoc[200];
  int i;
  exec(p->dbDoc, "CREATE VIRTUAL TABLE places USING docext; BEGIN");
  exec(p->dbJson, "CREATE TABLE places_json(doc TEXT); BEGIN");
  pDoc = prepare(p->dbDoc, "INSERT INTO places(doc) VALUES (?)");
  pJson = prepare(p->dbJson, "INSERT INTO places_json(doc) VALUES (?)");
  for(i=1; i<=p->nDoc; i++){
    double lng = rndFrom(&state, 360000001)/1e6 - 180, lat = rndFrom(&state, 180000001)/1e6 - 90;
    int n = snprintf(zDoc, sizeof(zDoc), "{\"_id\": %d, \"loc\": {\"type\": \"Point\","
                     " \"coordinates\": [%.6f, %.6f]}}", i, lng, lat);
    sqlite3_bind_text(pDoc, 1, zDoc, n, SQLITE_STATIC);
    sqlite3_bind_text(pJson, 1, zDoc, n, SQLITE_STATIC);
    if( sqlite3_step(pDoc)!=SQLITE_DONE ) die("W12: %s", sqlite3_errmsg(p->dbDoc));
    if( sqlite3_step(pJson)!=SQLITE_DONE ) die("W12: %s", sqlite3_errmsg(p->dbJson));
    sqlite3_reset(pDoc);
    sqlite3_reset(pJson);
  }
  sqlite3_finalize(pDoc);
  sqlite3_finalize(pJson);
  exec(p->dbDoc, "COMMIT");
  exec(p->dbJson, "COMMIT");
}
/* The unit vector (x, y, z) of each place of places_json, as a subquery. */
#define W12_XYZ "(SELECT json_extract(doc, '$._id') AS id, cos(la)*cos(lo) AS x," \
  " cos(la)*sin(lo) AS y, sin(la) AS z FROM (SELECT doc," \
  " radians(json_extract(doc, '$.loc.coordinates[1]')) AS la," \
  " radians(json_extract(doc, '$.loc.coordinates[0]')) AS lo FROM places_json))"
static void w12Docext(Bench *p){
  char zSql[600];
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM places('{\"loc\": {\"$geoWithin\":"
           " {\"$geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[%g, %g], [%g, %g],"
           " [%g, %g], [%g, %g], [%g, %g]]]}}}}')",
           aW12Quad[0][0], aW12Quad[0][1], aW12Quad[1][0], aW12Quad[1][1], aW12Quad[2][0],
           aW12Quad[2][1], aW12Quad[3][0], aW12Quad[3][1], aW12Quad[0][0], aW12Quad[0][1]);
  runTextTimes(p->dbDoc, "W12", zSql, W12_RUNS, &w12Text[0]);
}
static void w12Json(Bench *p){
  char zSql[2000], *z = zSql;
  int i;
  z += sprintf(z, "SELECT count(*) FROM " W12_XYZ " WHERE 1");
  for(i=0; i<4; i++){
    double a[3], b[3], n[3];
    w12Point(aW12Quad[i][0], aW12Quad[i][1], a);
    w12Point(aW12Quad[(i+1)%4][0], aW12Quad[(i+1)%4][1], b);
    n[0] = a[1]*b[2] - a[2]*b[1];
    n[1] = a[2]*b[0] - a[0]*b[2];
    n[2] = a[0]*b[1] - a[1]*b[0];
    z += sprintf(z, " AND x*%.17g + y*%.17g + z*%.17g >= 0", n[0], n[1], n[2]);
  }
  runTextTimes(p->dbJson, "W12", zSql, W12_RUNS, &w12Text[1]);
}
static void w12Check(Bench *p){
  (void)p;
  checkTexts("W12", w12Text);
}
static void w13Docext(Bench *p){
  char zSql[600];
  snprintf(zSql, sizeof(zSql), "SELECT group_concat(json_extract(doc, '$._id'))"
           " FROM doc_aggregate('places', '[{\"$geoNear\": {\"near\": {\"type\": \"Point\","
           " \"coordinates\": [%g, %g]}, \"distanceField\": \"d\", \"key\": \"loc\"}},"
           " {\"$limit\": 10}]')", aW13Near[0], aW13Near[1]);
  runTextTimes(p->dbDoc, "W13", zSql, W12_RUNS, &w13Text[0]);
}
static void w13Json(Bench *p){
  char zSql[1000];
  double c[3];
  w12Point(aW13Near[0], aW13Near[1], c);
  snprintf(zSql, sizeof(zSql), "SELECT group_concat(id) FROM (SELECT id FROM " W12_XYZ
           " ORDER BY x*%.17g + y*%.17g + z*%.17g DESC LIMIT 10)", c[0], c[1], c[2]);
  runTextTimes(p->dbJson, "W13", zSql, W12_RUNS, &w13Text[1]);
}
static void w13Check(Bench *p){
  (void)p;
  checkTexts("W13", w13Text);
}

/* ---- W14: places near points, through a 2dsphere index ----------------
** nGeoQuery counts of the places within W14_RADIUS radians of a random
** point ($geoWithin $centerSphere): docext through its {loc: "2dsphere"}
** index, against places_json through an expression index on the latitude
** (the band of latitudes the circle spans) and SQLite's math functions for
** the distance. docext counts a place within GEO_TOUCH (1e-9 radians) of
** the circle as inside, so the JSON side's circle is that much wider. The
** counts must be equal. The places are W12's; the indexes are made
** untimed. No target. */
#define W14_RADIUS 0.005                  /* about 32 km */
static int selected(const char *zOnly, const char *zName);
static struct {
  double (*aCenter)[2];                   /* lng, lat of each query */
  long long *aCount[2];                   /* each side's counts */
} w14;

static void w14Setup(Bench *p){
  unsigned long long state = 0x6e6561722d6d6521ULL;
  int k;
  if( !selected(getenv("DOCEXT_BENCH_ONLY"), "W12") ) w12Setup(p);
  exec(p->dbDoc, "SELECT doc_create_index('places', '{loc: \"2dsphere\"}')");
  exec(p->dbJson, "CREATE INDEX places_json_lat ON places_json("
                  "json_extract(doc, '$.loc.coordinates[1]'))");
  w14.aCenter = xmalloc(sizeof(w14.aCenter[0])*(size_t)p->nGeoQuery);
  w14.aCount[0] = xmalloc(sizeof(long long)*(size_t)p->nGeoQuery);
  w14.aCount[1] = xmalloc(sizeof(long long)*(size_t)p->nGeoQuery);
  for(k=0; k<p->nGeoQuery; k++){
    w14.aCenter[k][0] = rndFrom(&state, 360000001)/1e6 - 180;
    w14.aCenter[k][1] = rndFrom(&state, 180000001)/1e6 - 90;
  }
}
static void w14Docext(Bench *p){
  sqlite3_stmt *pStmt = prepare(p->dbDoc, "SELECT count(*) FROM places(?1)");
  char zFilter[200];
  int k;
  for(k=0; k<p->nGeoQuery; k++){
    int n = snprintf(zFilter, sizeof(zFilter), "{\"loc\": {\"$geoWithin\": {\"$centerSphere\":"
                     " [[%.6f, %.6f], %g]}}}", w14.aCenter[k][0], w14.aCenter[k][1], W14_RADIUS);
    sqlite3_bind_text(pStmt, 1, zFilter, n, SQLITE_STATIC);
    if( sqlite3_step(pStmt)!=SQLITE_ROW ) die("W14: %s", sqlite3_errmsg(p->dbDoc));
    w14.aCount[0][k] = sqlite3_column_int64(pStmt, 0);
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
}
static void w14Json(Bench *p){
  sqlite3_stmt *pStmt = prepare(p->dbJson, "SELECT count(*) FROM (SELECT"
      " radians(json_extract(doc, '$.loc.coordinates[1]')) AS la,"
      " radians(json_extract(doc, '$.loc.coordinates[0]')) AS lo FROM places_json"
      " WHERE json_extract(doc, '$.loc.coordinates[1]') BETWEEN ?1 AND ?2)"
      " WHERE cos(la)*cos(lo)*?3 + cos(la)*sin(lo)*?4 + sin(la)*?5 >= ?6");
  double r = W14_RADIUS + 1e-9, rDeg = r*180/3.14159265358979323846 + 1e-9;
  int k;
  for(k=0; k<p->nGeoQuery; k++){
    double c[3];
    w12Point(w14.aCenter[k][0], w14.aCenter[k][1], c);
    sqlite3_bind_double(pStmt, 1, w14.aCenter[k][1] - rDeg);
    sqlite3_bind_double(pStmt, 2, w14.aCenter[k][1] + rDeg);
    sqlite3_bind_double(pStmt, 3, c[0]);
    sqlite3_bind_double(pStmt, 4, c[1]);
    sqlite3_bind_double(pStmt, 5, c[2]);
    sqlite3_bind_double(pStmt, 6, cos(r));
    if( sqlite3_step(pStmt)!=SQLITE_ROW ) die("W14: %s", sqlite3_errmsg(p->dbJson));
    w14.aCount[1][k] = sqlite3_column_int64(pStmt, 0);
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
}
static void w14Check(Bench *p){
  long long nAll = 0;
  int k;
  for(k=0; k<p->nGeoQuery; k++){
    if( w14.aCount[0][k]!=w14.aCount[1][k] ){
      die("W14: query %d (%.6f, %.6f): docext counted %lld, json %lld", k,
          w14.aCenter[k][0], w14.aCenter[k][1], w14.aCount[0][k], w14.aCount[1][k]);
    }
    nAll += w14.aCount[0][k];
  }
  printf("  W14: %lld places found in all\n", nAll);
}

/* ---- W15: W13 again, through the 2dsphere index ----------------------------
** W13's $geoNear (followed by $limit 10) once W14 has made the index: the
** query reads the index's cells within a growing radius of the point
** until 10 places lie within it. The JSON side is W13's. No target. */
static void w15Setup(Bench *p){
  if( !selected(getenv("DOCEXT_BENCH_ONLY"), "W14") ) w14Setup(p);
}

/* ---- W16: text search {$text: {$search: W}} over the titles -----------------
** nTextQuery counts of the books whose title has the word W (a title is 2
** to 5 of 32 words; the words' English stems are all different, so a term
** is a word): docext through a text index on title, SQLite by looking for
** " W " in every title (json_extract and instr over every row, the best
** its JSON functions can do). The index names another language field than
** "language": the books' own says "French" or "German", which a text index
** would read as the language of each book, while the generated titles are
** English words. */
static struct {
  int *aWord;             /* the word of each query */
  long long *aCount;      /* docext's count for each */
} w16;

static void w16Setup(Bench *p){
  unsigned long long s = 0x5DEECE66DULL;
  double t = now();
  int k;
  w16.aWord = xmalloc(sizeof(int)*(size_t)p->nTextQuery);
  w16.aCount = xmalloc(sizeof(long long)*(size_t)p->nTextQuery);
  for(k=0; k<p->nTextQuery; k++) w16.aWord[k] = (int)rndFrom(&s, NWORD);
  exec(p->dbDoc, "SELECT doc_create_index('books', '{title: \"text\"}',"
                 " '{language_override: \"idx_language\"}')");
  printf("   the text index on title took %.3f s to build\n", now() - t);
}
static void w16Docext(Bench *p){
  sqlite3_stmt *pStmt = prepare(p->dbDoc, "SELECT count(*) FROM books(?1)");
  char zFilter[128];
  int k;
  for(k=0; k<p->nTextQuery; k++){
    int n = snprintf(zFilter, sizeof(zFilter), "{\"$text\":{\"$search\":\"%s\"}}",
                     azWord[w16.aWord[k]]);
    sqlite3_bind_text(pStmt, 1, zFilter, n, SQLITE_STATIC);
    if( sqlite3_step(pStmt)!=SQLITE_ROW ) die("W16: %s", sqlite3_errmsg(p->dbDoc));
    w16.aCount[k] = sqlite3_column_int64(pStmt, 0);
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
}
static void w16Json(Bench *p){
  sqlite3_stmt *pStmt = prepare(p->dbJson,
      "SELECT count(*) FROM books_json"
      " WHERE instr(' ' || json_extract(doc, '$.title') || ' ', ' ' || ?1 || ' ')>0");
  int k;
  for(k=0; k<p->nTextQuery; k++){
    long long n;
    sqlite3_bind_text(pStmt, 1, azWord[w16.aWord[k]], -1, SQLITE_STATIC);
    if( sqlite3_step(pStmt)!=SQLITE_ROW ) die("W16: %s", sqlite3_errmsg(p->dbJson));
    n = sqlite3_column_int64(pStmt, 0);
    if( n!=w16.aCount[k] ){
      die("W16: \"%s\": docext counted %lld, json %lld", azWord[w16.aWord[k]],
          w16.aCount[k], n);
    }
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
}

/* ---- W17: updates under a text index -------------------------------------
** W9's nLookup updates ($inc pages by _id, one transaction) again, now that
** W16 has put a text index on title: docext's doc_update_one against the
** same UPDATE of the JSON text with the titles in an FTS5 table (SQLite's
** own text index) kept by a trigger, which deletes the row's old title
** from it and inserts the new one on every update, as an external-content
** FTS5 table must be kept. The titles do not change; docext sees that and
** leaves the text index alone. Both sides must end with the same pages
** and the same count of titles with a word. */
static void w17Setup(Bench *p){
  double t = now();
  if( aW9Id==0 ) w9Setup(p);
  exec(p->dbJson,
       "CREATE VIEW books_title AS SELECT rowid, doc ->> '$.title' AS title FROM books_json;"
       "CREATE VIRTUAL TABLE books_fts USING fts5(title, content='books_title',"
       " content_rowid='rowid');"
       "INSERT INTO books_fts(books_fts) VALUES ('rebuild');"
       "CREATE TRIGGER books_fts_update AFTER UPDATE ON books_json BEGIN"
       "  INSERT INTO books_fts(books_fts, rowid, title)"
       "    VALUES ('delete', old.rowid, old.doc ->> '$.title');"
       "  INSERT INTO books_fts(rowid, title) VALUES (new.rowid, new.doc ->> '$.title');"
       " END;");
  printf("   the FTS5 index of the titles took %.3f s to build\n", now() - t);
}
static void w17Check(Bench *p){
  long long nDoc, nJson;
  w9Check(p);
  nDoc = queryInt(p->dbDoc,
      "SELECT doc_count('books', '{\"$text\": {\"$search\": \"gatsby\"}}')");
  nJson = queryInt(p->dbJson, "SELECT count(*) FROM books_fts WHERE books_fts MATCH 'gatsby'");
  if( nDoc!=nJson ) die("W17: %lld titles with gatsby in docext, %lld in json", nDoc, nJson);
}

/* ---- the workload table ------------------------------------------------ */

typedef struct Workload Workload;
struct Workload {
  const char *zName;        /* "W1" */
  const char *zWhat;        /* printf format; %d is the count below */
  size_t offCount;          /* offsetof(Bench, the count zWhat shows) */
  void (*xSetup)(Bench*);   /* untimed preparation, or 0 */
  const char *zA;           /* label of side A ("docext") */
  void (*xA)(Bench*);       /* side A, timed */
  const char *zB;           /* label of side B ("json") */
  void (*xB)(Bench*);       /* side B, timed */
  const char *zOp;          /* "<=" or "<": how ratio A/B compares to target */
  double target;            /* bound for the ratio A/B, 0 if none */
  void (*xAfter)(Bench*);   /* untimed: checks both sides agree, may print
                            ** more lines; or 0 */
  int nRound;               /* rounds: a read-only workload may run its
                            ** sides in turn, A B A B ..., and each side's
                            ** median time counts, so that a moment when
                            ** the machine is slow cannot decide a ratio */
};

#define COUNT(f) offsetof(Bench, f)
static const Workload aWorkload[] = {
  { "W1",     "insert %d docs", COUNT(nDoc), w1Setup,
      "docext", w1Docext,    "json", w1Json,    "<=", 1.3, 0, 3 },
  { "W-read", "read %d docs",   COUNT(nDoc), 0,
      "docext", wReadDocext, "json", wReadJson, "<=", 2.0, 0, 5 },
  { "W7",     "filtered scan of %d docs {pages: {$gt: 300}, language: \"English\"}",
      COUNT(nDoc), 0,
      "docext", w7aDocext,   "json", w7aJson,   "<=", 1.0, 0, 5 },
  { "W7",     "filtered scan of %d docs {\"publisher.name\": \"Scribner\"}",
      COUNT(nDoc), 0,
      "docext", w7bDocext,   "json", w7bJson,   "<=", 1.0, 0, 5 },
  { "W2",     "%d point lookups by slug", COUNT(nLookup), w2Setup,
      "docext", w2Docext,    "json", w2Json,    "<=", 1.2, 0, 3 },
  { "W3",     "%d multikey counts {subjects: S}", COUNT(nSubjectQuery), w3Setup,
      "docext", w3Docext,    "json", w3Json,    "<=", 0.02, w3After, 1 },
  { "W8",     "distinct subjects of %d docs, 5 times", COUNT(nDoc), 0,
      "docext", w8Docext,    "json", w8Json,    "<=", 0, w8Check, 1 },
  { "W10",    "$group of %d docs by publisher, 5 times", COUNT(nDoc), 0,
      "docext", w10Docext,   "json", w10Json,   "<=", 0, w10Check, 1 },
  { "W11",    "running totals of %d docs by publisher, 3 times", COUNT(nDoc), 0,
      "docext", w11Docext,   "json", w11Json,   "<=", 0, w11Check, 1 },
  { "W-index", "index {\"publisher.name\": 1} over %d docs", COUNT(nDoc), 0,
      "docext", wIndexDocext, "json", wIndexJson, "<=", 0, wIndexCheck, 1 },
  { "W4",     "latest 10 reviews of %d users", COUNT(nUserQuery), w4Setup,
      "docext", w4Docext,    "json", w4Json,    "<=", 1.2, 0, 9 },
  { "W5",     "%d $push appends to one document, WAL", COUNT(nAppend), w5Setup,
      "docext", w5Docext,    "json", w5Json,    "<=", 0.05, w5After, 1 },
  { "W6",     "%d $inc of minute 1439, flat layout", COUNT(nInc), w6Setup,
      "docext", w6FlatDocext, "json", w6FlatJson, "<=", 0, w6Check, 1 },
  { "W6",     "%d $inc of minute 1439, nested against flat", COUNT(nInc), 0,
      "docext nested", w6NestedDocext, "docext flat", w6FlatDocext, "<", 1.0,
      w6CheckNested, 3 },
  { "W9",     "%d updates by _id, one command each", COUNT(nLookup), w9Setup,
      "docext", w9Docext,    "json", w9Json,    "<=", 0, w9Check, 1 },
  { "W12",    "$geoWithin a quadrilateral over %d places, 5 times", COUNT(nDoc), w12Setup,
      "docext", w12Docext,   "json", w12Json,   "<=", 0, w12Check, 1 },
  { "W13",    "$geoNear: the 10 nearest of %d places, 5 times", COUNT(nDoc), 0,
      "docext", w13Docext,   "json", w13Json,   "<=", 0, w13Check, 1 },
  { "W14",    "%d counts of places within 32 km, 2dsphere index", COUNT(nGeoQuery), w14Setup,
      "docext", w14Docext,   "json", w14Json,   "<=", 0, w14Check, 3 },
  { "W15",    "$geoNear: the 10 nearest of %d places, 5 times, 2dsphere index", COUNT(nDoc),
      w15Setup, "docext", w13Docext, "json", w13Json,   "<=", 0, w13Check, 3 },
  { "W16",    "%d text searches {$text: {$search: W}} of the titles", COUNT(nTextQuery),
      w16Setup, "docext", w16Docext, "json", w16Json,   "<=", 0, 0, 3 },
  { "W17",    "%d updates by _id under a text index (json: FTS5)", COUNT(nLookup),
      w17Setup, "docext", w9Docext,  "json", w9Json,    "<=", 0, w17Check, 1 },
  { "W18",    "%d point lookups by slug without case (json: COLLATE NOCASE)", COUNT(nLookup),
      w18Setup, "docext", w18Docext, "json", w18Json,   "<=", 0, 0, 3 },
};

/* ---- main -------------------------------------------------------------- */

#define MAX_ROUND 9

static int cmpDouble(const void *pX, const void *pY){
  double x = *(const double*)pX, y = *(const double*)pY;
  return x<y ? -1 : x>y;
}

/* The median of a[0..n) (sorts a). */
static double median(double *a, int n){
  qsort(a, (size_t)n, sizeof(a[0]), cmpDouble);
  return n%2 ? a[n/2] : (a[n/2-1] + a[n/2]) / 2;
}

static sqlite3 *openDb(const char *zFile, int bDocext){
  char zPath[128];
  char *zErr = 0;
  const char *zSo = getenv("DOCEXT_SO");
  sqlite3 *db = 0;
  snprintf(zPath, sizeof(zPath), "%s/%s", zBenchDir, zFile);
  if( sqlite3_open(zPath, &db)!=SQLITE_OK ) die("cannot open %s", zPath);
  if( bDocext ){
    sqlite3_enable_load_extension(db, 1);
    if( sqlite3_load_extension(db, zSo ? zSo : "./docext", 0, &zErr)!=SQLITE_OK ){
      die("cannot load %s: %s", zSo ? zSo : "./docext", zErr ? zErr : "?");
    }
  }
  return db;
}

/* WAL mode for the single-document update workloads: synchronous=NORMAL
** (no fsync per commit, the usual setting with WAL) and no automatic
** checkpoint unless a workload asks for one. */
static void walMode(sqlite3 *db){
  sqlite3_stmt *pStmt = prepare(db, "PRAGMA journal_mode=WAL");
  if( sqlite3_step(pStmt)!=SQLITE_ROW
   || strcmp((const char*)sqlite3_column_text(pStmt, 0), "wal")!=0 ){
    die("cannot switch to WAL mode");
  }
  sqlite3_finalize(pStmt);
  exec(db, "PRAGMA synchronous=NORMAL");
  exec(db, "PRAGMA wal_autocheckpoint=0");
}

/* Whether workload zName runs: all do unless DOCEXT_BENCH_ONLY lists some
** (e.g. "W2,W6"); W1 always runs, as the others read its books. */
static int selected(const char *zOnly, const char *zName){
  size_t n = strlen(zName);
  const char *z = zOnly;
  if( zOnly==0 || zOnly[0]==0 || strcmp(zName, "W1")==0 ) return 1;
  while( (z = strstr(z, zName))!=0 ){
    if( (z==zOnly || z[-1]==',') && (z[n]==0 || z[n]==',') ) return 1;
    z += n;
  }
  return 0;
}

int main(int argc, char **argv){
  Bench b;
  const char *zN = argc>1 ? argv[1] : getenv("DOCEXT_BENCH_N");
  const char *zOnly = getenv("DOCEXT_BENCH_ONLY");
  size_t i;

  memset(&b, 0, sizeof(b));
  b.nDoc = (zN && zN[0]) ? atoi(zN) : 100000;
  if( b.nDoc<=0 ) die("usage: bench [N]  (N > 0 documents)");
  b.nLookup = b.nDoc;
  b.nSubjectQuery = 1000;
  b.nGeoQuery = 1000;
  b.nTextQuery = 100;
  b.nReview = b.nDoc;
  b.nUser = b.nReview/20 > 0 ? b.nReview/20 : 1;
  b.nUserQuery = 1000;
  b.nAppend = b.nDoc/10 < 200 ? 200 : b.nDoc/10/100*100;
  b.nInc = b.nDoc;

  {
    char zTemplate[] = "/tmp/docext-bench-XXXXXX";
    if( mkdtemp(zTemplate)==0 ) die("cannot create a temporary directory");
    memcpy(zBenchDir, zTemplate, sizeof(zTemplate));
  }
  b.dbDoc = openDb("docext.db", 1);
  b.dbJson = openDb("json.db", 0);
  b.dbDocWal = openDb("wal-docext.db", 1);
  b.dbJsonWal = openDb("wal-json.db", 0);
  walMode(b.dbDocWal);
  walMode(b.dbJsonWal);

  printf("docext bench: %d documents, SQLite %s, databases in %s\n",
         b.nDoc, sqlite3_libversion(), zBenchDir);
  printf("  W2 %d lookups; W3 %d lookups; W4 %d reviews by %d users, %d queried;"
         " W5 %d appends; W6 %d increments per layout\n",
         b.nLookup, b.nSubjectQuery, b.nReview, b.nUser, b.nUserQuery,
         b.nAppend, b.nInc);
  fflush(stdout);
  for(i=0; i<sizeof(aWorkload)/sizeof(aWorkload[0]); i++){
    const Workload *w = &aWorkload[i];
    int nRound = w->nRound, k;
    char zWhat[160], zRounds[40];
    double aA[MAX_ROUND], aB[MAX_ROUND], tA, tB, ratio;
    int bScaledA = 0, bScaledB = 0;
    if( !selected(zOnly, w->zName) ) continue;
    if( nRound>MAX_ROUND ) die("%s: more than %d rounds", w->zName, MAX_ROUND);
    if( w->xSetup ) w->xSetup(&b);
    for(k=0; k<nRound; k++){
      double t0;
      b.tUntimed = 0; b.fScale = 1; t0 = now(); w->xA(&b);
      aA[k] = (now() - t0 - b.tUntimed) * b.fScale; bScaledA = b.fScale!=1;
      b.tUntimed = 0; b.fScale = 1; t0 = now(); w->xB(&b);
      aB[k] = (now() - t0 - b.tUntimed) * b.fScale; bScaledB = b.fScale!=1;
    }
    tA = median(aA, nRound);
    tB = median(aB, nRound);
    ratio = tA / (tB > 0 ? tB : 1e-9);
    snprintf(zWhat, sizeof(zWhat), w->zWhat, *(const int*)((const char*)&b + w->offCount));
    zRounds[0] = 0;
    if( nRound>1 ) snprintf(zRounds, sizeof(zRounds), " (median of %d rounds)", nRound);
    printf("%s %s%s: %s %s%.3f s, %s %s%.3f s, ratio %.3g", w->zName, zWhat, zRounds,
           w->zA, bScaledA ? "~" : "", tA, w->zB, bScaledB ? "~" : "", tB, ratio);
    if( w->target>0 ){
      int bMet = w->zOp[1]=='=' ? ratio<=w->target : ratio<w->target;
      printf(" (target %s %g%s)", w->zOp, w->target, bMet ? "" : ", MISSED");
    }else{
      printf(" (no target)");
    }
    printf("\n");
    if( w->xAfter ) w->xAfter(&b);
    fflush(stdout);
  }

  if( queryInt(b.dbDoc, "SELECT count(*) FROM books")!=b.nDoc
   || queryInt(b.dbJson, "SELECT count(*) FROM books_json")!=b.nDoc ){
    die("document counts differ from %d", b.nDoc);
  }
  sqlite3_close(b.dbDoc);
  sqlite3_close(b.dbJson);
  sqlite3_close(b.dbDocWal);
  sqlite3_close(b.dbJsonWal);
  removeDatabases();
  free(w1.z); free(w1.aOff);
  free(w2.aId); free(w2.azSlug);
  free(w3.aSubject); free(w3.aCount);
  free(w4.aUser); free(w4.aId);
  return b.sink==0;  /* never true; keeps the reads observable */
}
