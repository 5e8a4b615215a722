/*
** test_threads.c — docext used from several threads at once, each with
** its own connection (SQLite's multi-thread model, as its own tests use it).
**
** 1. ObjectIds: threads with connections of their own insert documents
**    without _id and call doc_oid(); every ObjectId made in the process
**    must differ (the counter and the random part are process-wide state,
**    behind a mutex).
** 2. One WAL database file: writer threads insert and update documents of
**    an indexed collection while reader threads query it through the index
**    and by scan. Every read must see a consistent snapshot: the count
**    through the index equals the count by scan, as both run in one read
**    transaction. At the end the collection holds every document written
**    and doc_check says 'ok'.
** 3. Time zones: threads read zones of the time zone database at once (the
**    first reads of each race to fill the process-wide cache) and every
**    thread must see every zone's offsets.
** Checks are made by the main thread, after the others have joined; no
** check depends on timing.
*/
#include "docextInt.h"
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "testdb.h"

#define N_THREAD 4
#define N_OID    3000          /* ObjectIds per thread, half each way */
#define N_WRITE  400           /* documents per writer thread */
#define N_READ   300           /* snapshot checks per reader thread, at least:
                               ** readers go on until the writers are done */

static atomic_int nWritersDone;

typedef struct OidJob OidJob;
struct OidJob {
  char (*azOid)[25];           /* N_OID ids, as hex */
  int nErr;
};

/* Step a statement to its end and reset it; 1 if it worked. */
static int stepAll(sqlite3_stmt *pStmt){
  int rc;
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
  return sqlite3_reset(pStmt)==SQLITE_OK && rc==SQLITE_DONE;
}

static void *oidThread(void *pArg){
  OidJob *pJob = (OidJob*)pArg;
  sqlite3 *db = openDb(":memory:", 1);
  sqlite3_stmt *pOid = 0, *pIns = 0, *pRead = 0;
  int i;
  if( sqlite3_exec(db, "CREATE VIRTUAL TABLE c USING docext", 0, 0, 0)
   || sqlite3_prepare_v2(db, "SELECT doc_oid()", -1, &pOid, 0)
   || sqlite3_prepare_v2(db, "INSERT INTO c(doc) VALUES ('{x: 1}')", -1, &pIns, 0)
   || sqlite3_prepare_v2(db, "SELECT doc_get(bson, '_id') FROM c WHERE rowid = ?1",
                         -1, &pRead, 0) ){
    pJob->nErr++;
  }else{
    for(i=0; i<N_OID; i++){
      const unsigned char *z = 0;
      if( i&1 ){
        if( !stepAll(pIns) ){ pJob->nErr++; continue; }
        sqlite3_bind_int64(pRead, 1, sqlite3_last_insert_rowid(db));
        if( sqlite3_step(pRead)==SQLITE_ROW ) z = sqlite3_column_text(pRead, 0);
      }else if( sqlite3_step(pOid)==SQLITE_ROW ){
        z = sqlite3_column_text(pOid, 0);
      }
      /* doc_get of an ObjectId gives {"$oid":"…"}: keep the 24 digits */
      if( z && strlen((const char*)z)>=24 ){
        const char *zHex = strstr((const char*)z, "\"$oid\":\"");
        memcpy(pJob->azOid[i], zHex ? zHex+8 : (const char*)z, 24);
        pJob->azOid[i][24] = 0;
      }else{
        pJob->nErr++;
        pJob->azOid[i][0] = 0;
      }
      sqlite3_reset(pOid);
      sqlite3_reset(pRead);
    }
  }
  sqlite3_finalize(pOid);
  sqlite3_finalize(pIns);
  sqlite3_finalize(pRead);
  sqlite3_close(db);
  return 0;
}

static int cmpOid(const void *a, const void *b){
  return strcmp((const char*)a, (const char*)b);
}

static void testObjectIds(void){
  static char aOid[N_THREAD*N_OID][25];
  OidJob aJob[N_THREAD];
  pthread_t aThread[N_THREAD];
  int i, nErr = 0, nDup = 0;
  for(i=0; i<N_THREAD; i++){
    aJob[i].azOid = &aOid[i*N_OID];
    aJob[i].nErr = 0;
    pthread_create(&aThread[i], 0, oidThread, &aJob[i]);
  }
  for(i=0; i<N_THREAD; i++){
    pthread_join(aThread[i], 0);
    nErr += aJob[i].nErr;
  }
  check(nErr==0, "ObjectIds made in threads", 0);
  qsort(aOid, N_THREAD*N_OID, sizeof(aOid[0]), cmpOid);
  for(i=1; i<N_THREAD*N_OID; i++){
    if( strcmp(aOid[i-1], aOid[i])==0 ) nDup++;
  }
  check(nDup==0, "every ObjectId made by concurrent threads differs", 0);
}

typedef struct FileJob FileJob;
struct FileJob {
  const char *zPath;
  int iThread;
  int nErr;                /* statements that failed */
  int nBad;                /* readers: snapshots that disagreed */
  int nRead;               /* readers: snapshots checked */
  char zErr[200];          /* the first error */
};

static void jobError(FileJob *p, sqlite3 *db){
  if( p->nErr++==0 ) snprintf(p->zErr, sizeof(p->zErr), "%s", sqlite3_errmsg(db));
}

static sqlite3 *openShared(FileJob *p){
  sqlite3 *db = openDb(p->zPath, 1);
  sqlite3_busy_timeout(db, 10000);
  return db;
}

/* Insert N_WRITE documents {_id: "t<thread>-<i>", k: i % 10}, each in a
** transaction of its own, and $inc every tenth. */
static void *writerThread(void *pArg){
  FileJob *p = (FileJob*)pArg;
  sqlite3 *db = openShared(p);
  sqlite3_stmt *pIns = 0, *pUpd = 0;
  int i;
  if( sqlite3_prepare_v2(db, "INSERT INTO c(doc) VALUES (?1)", -1, &pIns, 0)
   || sqlite3_prepare_v2(db, "SELECT doc_update_one('c', ?1, '{$inc: {n: 1}}')",
                         -1, &pUpd, 0) ){
    jobError(p, db);
  }else{
    for(i=0; i<N_WRITE; i++){
      char zDoc[100], zId[60];
      snprintf(zDoc, sizeof(zDoc), "{_id: \"t%d-%d\", k: %d, n: 0}", p->iThread, i, i%10);
      sqlite3_bind_text(pIns, 1, zDoc, -1, SQLITE_TRANSIENT);
      if( !stepAll(pIns) ) jobError(p, db);
      if( i%10==0 ){
        snprintf(zId, sizeof(zId), "{_id: \"t%d-%d\"}", p->iThread, i);
        sqlite3_bind_text(pUpd, 1, zId, -1, SQLITE_TRANSIENT);
        if( !stepAll(pUpd) ) jobError(p, db);
      }
    }
  }
  sqlite3_finalize(pIns);
  sqlite3_finalize(pUpd);
  sqlite3_close(db);
  atomic_fetch_add(&nWritersDone, 1);
  return 0;
}

/* In one read transaction, count {k: K} through the index and by a scan
** of every document; the two must agree. */
static void *readerThread(void *pArg){
  FileJob *p = (FileJob*)pArg;
  sqlite3 *db = openShared(p);
  sqlite3_stmt *pIdx = 0, *pScan = 0;
  int i;
  if( sqlite3_prepare_v2(db, "SELECT count(*) FROM c('{k: ' || ?1 || '}')", -1, &pIdx, 0)
   || sqlite3_prepare_v2(db, "SELECT count(*) FROM c WHERE doc_get(bson, 'k') = ?1",
                         -1, &pScan, 0) ){
    jobError(p, db);
  }else{
    for(i=0; i<N_READ || atomic_load(&nWritersDone)<N_THREAD/2; i++){
      i64 nIdx = -1, nScan = -2;
      if( sqlite3_exec(db, "BEGIN", 0, 0, 0) ){ jobError(p, db); continue; }
      sqlite3_bind_int(pIdx, 1, i%10);
      sqlite3_bind_int(pScan, 1, i%10);
      if( sqlite3_step(pIdx)==SQLITE_ROW ) nIdx = sqlite3_column_int64(pIdx, 0);
      else jobError(p, db);
      if( sqlite3_step(pScan)==SQLITE_ROW ) nScan = sqlite3_column_int64(pScan, 0);
      else jobError(p, db);
      sqlite3_reset(pIdx);
      sqlite3_reset(pScan);
      if( nIdx!=nScan ) p->nBad++;
      p->nRead++;
      sqlite3_exec(db, "COMMIT", 0, 0, 0);
    }
  }
  sqlite3_finalize(pIdx);
  sqlite3_finalize(pScan);
  sqlite3_close(db);
  return 0;
}

static i64 queryInt(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  i64 v = -1;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)==SQLITE_OK
   && sqlite3_step(pStmt)==SQLITE_ROW ){
    v = sqlite3_column_int64(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  return v;
}

static void testSharedFile(void){
  char zPath[] = "/tmp/docext-threads-XXXXXX";
  FileJob aJob[N_THREAD];
  pthread_t aThread[N_THREAD];
  sqlite3 *db;
  sqlite3_stmt *pStmt = 0;
  int i, nErr = 0, nBad = 0, nRead = 0;
  atomic_store(&nWritersDone, 0);
  makeTempDb(zPath);
  db = openDb(zPath, 1);
  exec(db, "PRAGMA journal_mode=WAL; CREATE VIRTUAL TABLE c USING docext;"
           "SELECT doc_create_index('c', '{k: 1}');");
  for(i=0; i<N_THREAD; i++){
    memset(&aJob[i], 0, sizeof(aJob[i]));
    aJob[i].zPath = zPath;
    aJob[i].iThread = i;
    pthread_create(&aThread[i], 0, i<N_THREAD/2 ? writerThread : readerThread, &aJob[i]);
  }
  for(i=0; i<N_THREAD; i++){
    pthread_join(aThread[i], 0);
    nErr += aJob[i].nErr;
    nBad += aJob[i].nBad;
    nRead += aJob[i].nRead;
    if( aJob[i].nErr ) printf("thread %d: %s\n", i, aJob[i].zErr);
  }
  check(nErr==0, "statements in concurrent threads on one file", 0);
  check(nBad==0, "index and scan agree in every snapshot", 0);
  printf("(%d snapshots read while the writers wrote)\n", nRead);
  check(queryInt(db, "SELECT count(*) FROM c")==(N_THREAD/2)*N_WRITE,
        "every document written by the threads is there", 0);
  check(queryInt(db, "SELECT count(*) FROM c('{n: 1}')")==(N_THREAD/2)*N_WRITE/10,
        "every update made by the threads is there", 0);
  check(queryInt(db, "SELECT count(*) FROM c('{k: 3}')")==(N_THREAD/2)*N_WRITE/10,
        "the index finds them", 0);
  sqlite3_prepare_v2(db, "SELECT doc_check('c')", -1, &pStmt, 0);
  check(sqlite3_step(pStmt)==SQLITE_ROW
        && strcmp((const char*)sqlite3_column_text(pStmt, 0), "ok")==0,
        "doc_check after concurrent writes", (const char*)sqlite3_column_text(pStmt, 0));
  sqlite3_finalize(pStmt);
  sqlite3_close(db);
  removeDb(zPath);
}

/* Zones not read before in this process, and the hour 2024-07-01T12:00Z
** is in each. */
static const struct { const char *zZone; int iHour; } aZoneHour[] = {
  {"Europe/Berlin", 14}, {"Asia/Tokyo", 21}, {"America/Chicago", 7},
  {"Australia/Perth", 20}, {"America/Denver", 6}, {"Asia/Dubai", 16},
  {"Pacific/Auckland", 0}, {"Asia/Kolkata", 17}, {"America/Halifax", 9},
};
#define N_ZONE_ROUND 50

static void *zoneThread(void *pArg){
  int *pnBad = (int*)pArg;
  sqlite3 *db = openDb(":memory:", 1);
  sqlite3_stmt *pStmt = 0;
  int r, k, n = (int)(sizeof(aZoneHour)/sizeof(aZoneHour[0]));
  if( sqlite3_prepare_v2(db, "SELECT doc_get(doc_update('{}', json_array(json_object('$set',"
                             " json_object('h', json_object('$hour', json_object('date',"
                             " json_object('$date', '2024-07-01T12:00:00Z'), 'timezone', ?1)))))),"
                             " 'h')", -1, &pStmt, 0) ){
    (*pnBad)++;
  }else{
    for(r=0; r<N_ZONE_ROUND; r++){
      for(k=0; k<n; k++){
        /* (every thread in the same order: first reads of a zone collide) */
        int j = (k + r) % n;
        sqlite3_bind_text(pStmt, 1, aZoneHour[j].zZone, -1, SQLITE_STATIC);
        if( sqlite3_step(pStmt)!=SQLITE_ROW
         || sqlite3_column_int(pStmt, 0)!=aZoneHour[j].iHour ){
          if( (*pnBad)++==0 ) printf("%s: %s\n", aZoneHour[j].zZone, sqlite3_errmsg(db));
        }
        sqlite3_reset(pStmt);
      }
    }
  }
  sqlite3_finalize(pStmt);
  sqlite3_close(db);
  return 0;
}

static void testZones(void){
  pthread_t aThread[N_THREAD];
  int aBad[N_THREAD], i, nBad = 0;
  for(i=0; i<N_THREAD; i++){
    aBad[i] = 0;
    pthread_create(&aThread[i], 0, zoneThread, &aBad[i]);
  }
  for(i=0; i<N_THREAD; i++){
    pthread_join(aThread[i], 0);
    nBad += aBad[i];
  }
  check(nBad==0, "zones read by concurrent threads give every offset", 0);
}

int main(void){
  if( !sqlite3_threadsafe() ){
    printf("skip: this SQLite is built without threads\n0 passed, 0 failed\n");
    return 0;
  }
  testObjectIds();
  testSharedFile();
  testZones();
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
