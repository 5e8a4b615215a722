/*
** docext_router.c — sharded collections (INTERFACE.md §6): the shards, the
** chunks, the router, splits and migration.
**
**   SELECT doc_add_shard('shard1');
**   SELECT doc_shard_collection('books', '{_id: 1}' [, '{"chunkSize": 65536}']);
**   INSERT INTO books(doc) VALUES (…);    SELECT doc FROM books('{_id: 45}');
**   SELECT * FROM doc_chunks('books');    SELECT doc_route('books', '{_id: 45}');
**   SELECT doc_split_chunk('books', '{_id: 40}');
**   SELECT doc_move_chunk('books', '{_id: 45}', 'shard1');
**   SELECT doc_balance('books');
**
** SHARDS are schemas of the connection: attached databases, or main. A
** sharded collection is a docext collection of main, the router (the table
** the user names), and a partition in each shard that holds chunks of it:
** a docext collection of the same name in the shard's schema, with an
** index on the shard key, readable on its own. When main is a shard, its
** partition is the router's own storage.
**
** METADATA, in main:
**   docext_shards(name, num)   num (0 to 1022) is the low ten bits of the
**       rowid a sharded collection shows for a document: a row is
**       (docid << 10 | num) of the partition that holds it. 1023 is main's
**       while main is not a shard (it then holds documents only while a
**       collection sharded with documents has not moved them all out).
**   docext_chunks(coll, lo, min, shard, prev, mig, jumbo, written), key
**       (coll, lo): chunk [lo, the next chunk's lo) of coll. lo is the
**       shard key encoded as index keys are (docext_cmp.c), empty for
**       MinKey; min the same bound as a document, for people; written the
**       bytes inserted since its size was last measured; jumbo: its
**       documents share one key value and outgrow the chunk size.
**   the router's X_config: 'shardkey' (the pattern) and 'chunksize',
**       read with its index definitions (docextCollShardKey), so every
**       connection notices that a collection became sharded.
**
** KEYS. A document's shard key is its index key under the pattern
** (docextIndexFirstKey: a hashed field gives its 64-bit hash, mixed as
** every hashed index docext creates now mixes it), so chunk bounds, the
** partitions' shard-key indexes and the planner's bounds all order keys
** alike. A key field may not hold an array; an insert must give every
** key field.
**
** SPLITS. Each insert and replacement adds its size to its chunk's
** written; past a fifth of the chunk size (as MongoDB's auto-splitter) the
** chunk is measured through the owner's shard-key index and, if over the
** chunk size, split at its median key by bytes, again while a half is
** still over. A chunk of one key value cannot split: it is marked jumbo.
**
** MIGRATION must never lose a document nor show one twice, even when the
** process dies mid-way in WAL mode, where SQLite commits the files of one
** transaction one after another (main first). So a move is two steps:
**   1. in one transaction: copy the chunk's documents to the destination's
**      partition, with a marker in its X_config ('migrated:<mig>'), and
**      point the chunk at the destination with prev = the source and mig
**      = a random id. The source keeps its copies.
**   2. in a later transaction (the next migration command, once main has
**      no write transaction of ours open, so step 1 has committed or is
**      gone): if the marker is there, delete the source's copies, else
**      give the chunk back to prev; then clear prev and mig.
** While prev is set the marker says who owns the chunk: the destination if
** its commit happened, else still the source. And every read takes from
** a shard only the documents of the chunks it owns, so a copy on the
** other side (an orphan) is never seen.
*/
#include "docextInt.h"
#include <string.h>

#define RT_NUM_BITS       10
#define RT_HOME_NUM       1023          /* main while it is not a shard */
#define RT_MAX_SHARDS     1023
#define RT_MAX_DOCID      ((i64)1 << 52)
#define RT_DEFAULT_CHUNK  ((i64)128*1024*1024)    /* MongoDB's since 6.0 */
#define RT_MAX_CHUNK      ((i64)1 << 40)
#define RT_CHECK_EVERY    5             /* measure after chunkSize/5 written */
#define RT_COUNT_EVERY    40            /* add to written every chunkSize/40 */

static const char zMetaSchema[] =
  "CREATE TABLE IF NOT EXISTS main.docext_shards("
  "name TEXT PRIMARY KEY COLLATE NOCASE, num INTEGER NOT NULL UNIQUE);"
  "CREATE TABLE IF NOT EXISTS main.docext_chunks("
  "coll TEXT NOT NULL COLLATE NOCASE, lo BLOB NOT NULL, min BLOB NOT NULL,"
  " shard TEXT NOT NULL, prev TEXT, mig INTEGER, jumbo INTEGER NOT NULL DEFAULT 0,"
  " written INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(coll, lo)) WITHOUT ROWID;";

typedef struct RtShard RtShard;
struct RtShard {
  char *zName;              /* its schema */
  int iNum;                 /* the low bits of its rows' rowids */
  int bHome;                /* main: its partition is the router's storage */
  int bShard;               /* 0 only for main when it is not a shard */
  DocColl *pColl;           /* its partition (held), once opened */
  sqlite3_stmt *pBegin;     /* rtShardWriteBegin's, once prepared */
};

typedef struct RtChunk RtChunk;
struct RtChunk {
  DocChunkBound lo;         /* lower bound: a key in DocRouter.bytes */
  i64 iMin;                 /* the same bound as a document, in bytes */
  int iShard;               /* the shard the metadata names */
  int iPrev;                /* a pending move's source, else -1 */
  i64 iMig;                 /* the pending move's id */
  int iOwner;               /* who owns it now: iShard, or iPrev when the
                            ** move never reached iShard */
  int bJumbo;
  i64 nPending;             /* bytes this connection wrote into it and has
                            ** not yet added to its written (rtWritten) */
};

struct DocRouter {
  int nRef;                 /* references: a cache's, cursors', callers' */
  i64 iTag;                 /* the home's tag it was loaded at (0: stale) */
  DocConn *pConn;
  sqlite3 *db;
  DocColl *pHome;           /* the router's collection, in main */
  const char *zColl;        /* its name */
  DocIndex key;             /* the shard key pattern */
  i64 nChunkSize;
  RtShard *aShard;
  int nShard, nShardAlloc;
  RtChunk *aChunk;
  int nChunk, nChunkAlloc;
  DocBuf bytes;             /* the chunks' bounds */
  DocBuf docKey;            /* scratch: a document's key */
  DocIndexScratch *pKeyGen;
  sqlite3_stmt *apWritten[2];  /* rtWritten's, once prepared */
  int bCached;              /* kept by a table from statement to statement
                            ** (docextRouterGet), so rtWritten may add up
                            ** the bytes of many of them before it counts */
};

/*------------------------------------------------------------------------
** Keys
*/

/* Does path z meet an array in aDoc: is the value at z, or at a prefix of
** it, an array? (MongoDB refuses a shard key value there, even when the
** array's elements give nothing at the rest of the path.) */
static int rtPathHasArray(const u8 *aDoc, const char *z){
  int n = 0;
  for(;;){
    DocValue v;
    while( z[n] && z[n]!='.' ) n++;
    if( !docextPathGet(aDoc, z, n, &v) ) return 0;
    if( v.type==DOC_ARRAY ) return 1;
    if( z[n]==0 ) return 0;
    n++;
  }
}

/* "_id 35" of aDoc, for messages (sqlite3_malloc'd; NULL on OOM). */
static char *rtDocLabel(const u8 *aDoc){
  DocBuf id;
  DocValue v;
  int rc = SQLITE_OK;
  memset(&id, 0, sizeof(id));
  if( docextBsonFind(aDoc, "_id", 3, &v) ){
    docextBufAppendStr(&rc, &id, "_id ");
    docextValueToString(&rc, &id, &v);
  }else{
    docextBufAppendStr(&rc, &id, "no _id");
  }
  return docextBufDetachText(&rc, &id);
}

int docextShardKeyCheck(const DocIndex *pKey, const u8 *aDoc, int bRequire, char **pzErr){
  int j;
  for(j=0; j<pKey->nField; j++){
    const char *z = pKey->azPath[j];
    const char *zWhy = 0;
    DocValue v;
    if( rtPathHasArray(aDoc, z) ){
      zWhy = "holds an array in the document with %s: a shard key cannot be an array";
    }else if( bRequire && !docextPathGet(aDoc, z, (int)strlen(z), &v) ){
      zWhy = "is missing from the document with %s: a document of a sharded "
             "collection needs every field of its shard key";
    }
    if( zWhy ){
      char *zDoc = rtDocLabel(aDoc);
      char *zMsg = zDoc ? sqlite3_mprintf(zWhy, zDoc) : 0;
      int rc = zMsg ? docextError(pzErr, "docext: shard key field '%s' %s", z, zMsg)
                    : SQLITE_NOMEM;
      sqlite3_free(zDoc);
      sqlite3_free(zMsg);
      return rc;
    }
  }
  return SQLITE_OK;
}

int docextShardKeyParse(const u8 *aKey, DocIndex *pKey, char **pzErr){
  char *zWhy = 0;
  int rc = docextIndexPattern(aKey, pKey, &zWhy), j;
  if( rc!=SQLITE_OK ){
    if( zWhy ){
      rc = docextError(pzErr, "docext: in the shard key: %s",
                       strncmp(zWhy, "docext: ", 8)==0 ? zWhy+8 : zWhy);
      sqlite3_free(zWhy);
    }
    return rc;
  }
  for(j=0; j<pKey->nField; j++){
    if( pKey->pText ){
      return docextError(pzErr, "docext: in the shard key: a text field cannot be in "
                                "a shard key: a shard key field is 1 or \"hashed\"");
    }
    if( pKey->aDir[j]<0 || docextDirIsGeo(pKey->aDir[j]) ){
      return docextError(pzErr, "docext: in the shard key: field %s is %s: a shard key "
                         "field is 1 or \"hashed\"", pKey->azPath[j],
                         pKey->aDir[j]<0 ? "-1" : pKey->aDir[j]==DOCEXT_DIR_2D ? "\"2d\""
                         : "\"2dsphere\"");
    }
  }
  return SQLITE_OK;
}

/* aDoc's shard key into pR->docKey. bRequire: every field must be there
** (a new document); else a missing one counts as null. */
static int rtDocKey(DocRouter *pR, const u8 *aDoc, int bRequire, char **pzErr){
  int rc = docextShardKeyCheck(&pR->key, aDoc, bRequire, pzErr);
  docextBufReset(&pR->docKey);
  if( rc==SQLITE_OK ) rc = docextIndexFirstKey(&pR->key, aDoc, &pR->docKey, &pR->pKeyGen, pzErr);
  return rc;
}

/* A chunk bound as a document: aDoc's shard key values, field by field in
** the pattern's order, a hashed field as its hash (NumberLong), a missing
** one as null. */
static void rtBoundOf(int *pRc, const DocIndex *pKey, const u8 *aDoc, DocBuf *pOut){
  i64 iStart = docextBsonStartDoc(pRc, pOut);
  int j;
  for(j=0; j<pKey->nField; j++){
    const char *z = pKey->azPath[j];
    int n = (int)strlen(z);
    DocValue v;
    if( !docextPathGet(aDoc, z, n, &v) ){
      static const u8 aNull[1] = {0};
      v.type = DOC_NULL;
      v.p = aNull;
      v.n = 0;
    }
    if( pKey->aDir[j]==0 ){
      docextBsonAppendInt64(pRc, pOut, z, n, docextIndexHashValue(pKey, pRc, &v));
    }else{
      docextBsonAppendValue(pRc, pOut, z, n, &v);
    }
  }
  docextBsonEndDoc(pRc, pOut, iStart);
}

/* The key of a bound given by a person (doc_split_chunk's middle): every
** key field, a hashed one as its hash (an integer), as rtBoundOf writes
** them. Appends the bound document, normalized, to pDoc when not NULL. */
static int rtBoundKey(const DocIndex *pKey, const u8 *aBound, DocBuf *pKeyOut, DocBuf *pDoc,
                      char **pzErr){
  int rc = SQLITE_OK, j, nGiven = 0;
  i64 iStart = pDoc ? docextBsonStartDoc(&rc, pDoc) : 0;
  DocIter it;
  docextIterInit(&it, aBound);
  while( docextIterNext(&it) ) nGiven++;
  if( nGiven!=pKey->nField ){
    return docextError(pzErr, "docext: a chunk bound gives each field of the shard key "
                       "and nothing else");
  }
  for(j=0; rc==SQLITE_OK && j<pKey->nField; j++){
    const char *z = pKey->azPath[j];
    DocValue v;
    if( !docextBsonFind(aBound, z, (int)strlen(z), &v) ){
      return docextError(pzErr, "docext: the chunk bound lacks shard key field '%s'", z);
    }
    if( pKey->aDir[j]==0 ){
      double d = docextValueToDouble(&v);
      u8 a8[8];
      DocValue h;
      i64 x;
      if( !docextValueIsNumber(&v) || d!=d || d!=(double)(i64)d ){
        return docextError(pzErr, "docext: hashed shard key field '%s' of a chunk bound "
                           "is a hash: an integer", z);
      }
      x = v.type==DOC_INT64 ? docextValueI64(&v) : (i64)d;
      h = docextValue64(DOC_INT64, x, a8);
      docextKeyAppend(&rc, pKeyOut, &h, 0);
      if( pDoc ) docextBsonAppendInt64(&rc, pDoc, z, (int)strlen(z), x);
    }else{
      if( v.type==DOC_ARRAY ){
        return docextError(pzErr, "docext: shard key field '%s' of a chunk bound is an "
                           "array: a shard key cannot be an array", z);
      }
      docextKeyAppend(&rc, pKeyOut, &v, 0);
      if( pDoc ) docextBsonAppendValue(&rc, pDoc, z, (int)strlen(z), &v);
    }
  }
  if( pDoc ) docextBsonEndDoc(&rc, pDoc, iStart);
  return rc;
}

/*------------------------------------------------------------------------
** Loading a router
*/

/* Bind key a[0..n) as a BLOB: the empty key (MinKey's bound) too, which
** a NULL pointer would bind as NULL. */
static void rtBindKey(sqlite3_stmt *pStmt, int iParam, const u8 *a, int n){
  sqlite3_bind_blob(pStmt, iParam, n ? (const void*)a : (const void*)"", n, SQLITE_STATIC);
}

/* Bind chunk i's lower bound. */
static void rtBindLo(DocRouter *pR, sqlite3_stmt *pStmt, int iParam, int i){
  const RtChunk *c = &pR->aChunk[i];
  rtBindKey(pStmt, iParam, &pR->bytes.a[c->lo.iLo], c->lo.nLo);
}

static int rtSqlError(DocRouter *pR, int rc, char **pzErr){
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM && *pzErr==0 ){
    *pzErr = sqlite3_mprintf("docext: %s", sqlite3_errcode(pR->db)!=SQLITE_OK
                             ? sqlite3_errmsg(pR->db) : sqlite3_errstr(rc));
  }
  return rc;
}

static RtShard *rtShardAdd(DocRouter *pR, int *pRc, const char *zName, int iNum){
  RtShard *s;
  pR->aShard = docextArrayGrow(pRc, pR->aShard, pR->nShard, &pR->nShardAlloc, sizeof(RtShard));
  if( *pRc!=SQLITE_OK ) return 0;
  s = &pR->aShard[pR->nShard];
  memset(s, 0, sizeof(*s));
  s->zName = sqlite3_mprintf("%s", zName);
  if( s->zName==0 ){ *pRc = SQLITE_NOMEM; return 0; }
  s->iNum = iNum;
  s->bHome = sqlite3_stricmp(zName, "main")==0;
  s->bShard = 1;
  pR->nShard++;
  return s;
}

static int rtShardIndex(DocRouter *pR, const char *zName){
  int i;
  for(i=0; zName && i<pR->nShard; i++){
    if( sqlite3_stricmp(pR->aShard[i].zName, zName)==0 ) return i;
  }
  return -1;
}

static int rtLoadShards(DocRouter *pR, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int rc = docextPreparef(pR->db, &pStmt, "SELECT name, num FROM main.docext_shards ORDER BY num");
  while( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pStmt, 0);
    i64 iNum = sqlite3_column_int64(pStmt, 1);
    if( z==0 || iNum<0 || iNum>=RT_MAX_SHARDS ){
      rc = docextError(pzErr, "docext: corrupt main.docext_shards");
      if( rc==SQLITE_ERROR ) rc = SQLITE_CORRUPT;
      break;
    }
    rtShardAdd(pR, &rc, z, (int)iNum);
  }
  if( rc==SQLITE_OK ) rc = sqlite3_finalize(pStmt); else sqlite3_finalize(pStmt);
  if( rc==SQLITE_OK && rtShardIndex(pR, "main")<0 ){
    RtShard *s = rtShardAdd(pR, &rc, "main", RT_HOME_NUM);
    if( s ) s->bShard = 0;
  }
  return rtSqlError(pR, rc, pzErr);
}

/* The partition of shard i, opened (and held) on first use. */
static int rtShardColl(DocRouter *pR, int i, DocColl **ppColl, char **pzErr){
  RtShard *s = &pR->aShard[i];
  if( s->bHome ){
    *ppColl = pR->pHome;
    return SQLITE_OK;
  }
  if( s->pColl==0 ){
    char *zSpec = sqlite3_mprintf("\"%w\".\"%w\"", s->zName, pR->zColl);
    char *zErr = 0;
    int rc = zSpec ? docextCollFind(pR->pConn, zSpec, &s->pColl, &zErr) : SQLITE_NOMEM;
    sqlite3_free(zSpec);
    if( rc!=SQLITE_OK ){
      s->pColl = 0;
      sqlite3_free(zErr);
      if( rc==SQLITE_NOMEM ) return rc;
      return docextError(pzErr, "docext: shard %s has no partition of %s (is its "
                         "database attached?)", s->zName, pR->zColl);
    }
    docextCollHold(s->pColl);
  }
  *ppColl = s->pColl;
  return SQLITE_OK;
}

/* Is the marker of move iMig in shard i's partition? */
static int rtMarker(DocRouter *pR, int i, i64 iMig, int *pbHas, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int rc;
  *pbHas = 0;
  rc = docextPreparef(pR->db, &pStmt, "SELECT 1 FROM \"%w\".\"%w_config\" WHERE k='migrated:%lld'",
                 pR->aShard[i].zName, pR->zColl, iMig);
  if( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ) *pbHas = 1;
  if( rc==SQLITE_OK ) rc = sqlite3_finalize(pStmt); else sqlite3_finalize(pStmt);
  if( rc!=SQLITE_OK && !*pbHas ){
    /* no partition there at all: the move's copy never happened */
    if( (rc & 0xff)==SQLITE_ERROR ) rc = SQLITE_OK;
  }
  return rtSqlError(pR, rc, pzErr);
}

static int rtCorrupt(DocRouter *pR, char **pzErr, const char *zWhat){
  docextError(pzErr, "docext: corrupt chunk metadata of %s in main.docext_chunks: %s",
              pR->zColl, zWhat);
  return SQLITE_CORRUPT;
}

static int rtLoadChunks(DocRouter *pR, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int rc, i;
  pR->nChunk = 0;
  docextBufReset(&pR->bytes);
  rc = docextPreparef(pR->db, &pStmt, "SELECT lo, min, shard, prev, mig, jumbo"
                             " FROM main.docext_chunks WHERE coll=?1 ORDER BY lo");
  if( rc==SQLITE_OK ) sqlite3_bind_text(pStmt, 1, pR->zColl, -1, SQLITE_STATIC);
  while( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    RtChunk *c;
    const u8 *aMin = sqlite3_column_blob(pStmt, 1);
    int nLo = sqlite3_column_bytes(pStmt, 0), nMin = sqlite3_column_bytes(pStmt, 1);
    char *zWhy = 0;
    pR->aChunk = docextArrayGrow(&rc, pR->aChunk, pR->nChunk, &pR->nChunkAlloc, sizeof(RtChunk));
    if( rc!=SQLITE_OK ) break;
    c = &pR->aChunk[pR->nChunk];
    memset(c, 0, sizeof(*c));
    if( (pR->nChunk==0)!=(nLo==0) ){ rc = rtCorrupt(pR, pzErr, "bad lower bound"); break; }
    if( aMin==0 || docextBsonCheck(aMin, nMin, &zWhy)!=SQLITE_OK ){
      sqlite3_free(zWhy);
      rc = rtCorrupt(pR, pzErr, "bad min");
      break;
    }
    c->lo.iLo = pR->bytes.n;
    c->lo.nLo = nLo;
    docextBufAppend(&rc, &pR->bytes, sqlite3_column_blob(pStmt, 0), nLo);
    c->iMin = pR->bytes.n;
    docextBufAppend(&rc, &pR->bytes, aMin, nMin);
    c->iShard = rtShardIndex(pR, (const char*)sqlite3_column_text(pStmt, 2));
    c->iPrev = -1;
    if( sqlite3_column_type(pStmt, 3)!=SQLITE_NULL ){
      c->iPrev = rtShardIndex(pR, (const char*)sqlite3_column_text(pStmt, 3));
      if( c->iPrev<0 ){ rc = rtCorrupt(pR, pzErr, "unknown shard"); break; }
      c->iMig = sqlite3_column_int64(pStmt, 4);
    }
    if( c->iShard<0 || !pR->aShard[c->iShard].bShard ){
      rc = rtCorrupt(pR, pzErr, "unknown shard");
      break;
    }
    c->bJumbo = sqlite3_column_int(pStmt, 5)!=0;
    pR->nChunk++;
  }
  if( rc==SQLITE_OK ) rc = sqlite3_finalize(pStmt); else sqlite3_finalize(pStmt);
  if( rc==SQLITE_OK && pR->nChunk==0 ) rc = rtCorrupt(pR, pzErr, "no chunk");
  for(i=0; rc==SQLITE_OK && i<pR->nChunk; i++){
    RtChunk *c = &pR->aChunk[i];
    int bHas = 1;
    if( c->iPrev>=0 ) rc = rtMarker(pR, c->iShard, c->iMig, &bHas, pzErr);
    c->iOwner = bHas ? c->iShard : c->iPrev;
  }
  return rtSqlError(pR, rc, pzErr);
}

void docextRouterFree(DocRouter *pR){
  int i;
  if( pR==0 || --pR->nRef>0 ) return;
  for(i=0; i<pR->nShard; i++){
    if( pR->aShard[i].pColl ) docextCollRelease(pR->aShard[i].pColl);
    sqlite3_finalize(pR->aShard[i].pBegin);
    sqlite3_free(pR->aShard[i].zName);
  }
  sqlite3_free(pR->aShard);
  sqlite3_free(pR->aChunk);
  docextIndexClear(&pR->key);
  docextBufFree(&pR->bytes);
  docextBufFree(&pR->docKey);
  docextIndexScratchFree(pR->pKeyGen);
  sqlite3_finalize(pR->apWritten[0]);
  sqlite3_finalize(pR->apWritten[1]);
  docextCollRelease(pR->pHome);
  sqlite3_free(pR);
}

int docextRouterOpen(DocConn *pConn, DocColl *pHome, DocRouter **ppR, char **pzErr){
  const u8 *aKey = 0;
  i64 nChunkSize = 0;
  DocRouter *pR;
  i64 iTag = 0;
  int rc = docextCollShardKey(pHome, &aKey, &nChunkSize, &iTag, pzErr);
  *ppR = 0;
  if( rc!=SQLITE_OK || aKey==0 ) return rc;
  pR = docextMallocZero(sizeof(*pR));
  if( pR==0 ) return SQLITE_NOMEM;
  pR->nRef = 1;
  pR->iTag = iTag;
  docextCollHold(pHome);
  pR->pConn = pConn;
  pR->pHome = pHome;
  pR->db = docextStorageDb(docextCollStore(pHome));
  pR->zColl = docextStorageName(docextCollStore(pHome));
  pR->nChunkSize = nChunkSize;
  rc = docextShardKeyParse(aKey, &pR->key, pzErr);
  if( rc==SQLITE_OK ) rc = rtLoadShards(pR, pzErr);
  if( rc==SQLITE_OK ) rc = rtLoadChunks(pR, pzErr);
  if( rc!=SQLITE_OK ){
    docextRouterFree(pR);
    return rc;
  }
  *ppR = pR;
  return SQLITE_OK;
}

int docextRouterGet(DocConn *pConn, DocColl *pHome, DocRouter **ppCache, DocRouter **ppR,
                    char **pzErr){
  const u8 *aKey = 0;
  i64 iTag = 0;
  int rc = docextCollShardKey(pHome, &aKey, 0, &iTag, pzErr);
  DocRouter *pC = *ppCache;
  *ppR = 0;
  if( rc!=SQLITE_OK ) return rc;
  if( pC && aKey && pC->pHome==pHome && pC->iTag==iTag && iTag!=0 ){
    pC->nRef++;
    *ppR = pC;
    return SQLITE_OK;
  }
  docextRouterFree(pC);
  *ppCache = 0;
  if( aKey==0 ) return SQLITE_OK;
  rc = docextRouterOpen(pConn, pHome, ppR, pzErr);
  if( rc==SQLITE_OK ){
    (*ppR)->nRef++;
    (*ppR)->bCached = 1;
    *ppCache = *ppR;
  }
  return rc;
}

/*------------------------------------------------------------------------
** Routing
*/

int docextChunkOf(const u8 *aBytes, const void *aChunk, int nChunk, size_t szChunk,
                  const u8 *aKey, int nKey){
  int lo = 0, hi = nChunk - 1;
  while( lo<hi ){
    int mid = (lo + hi + 1)/2;
    const DocChunkBound *b = (const DocChunkBound*)((const u8*)aChunk + szChunk*(size_t)mid);
    if( docextKeyCmp(&aBytes[b->iLo], b->nLo, aKey, nKey)<=0 ) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

void docextChunksMet(const DocPlan *pPlan, const u8 *aBytes, const void *aChunk, int nChunk,
                     size_t szChunk, void (*xMark)(void*, int), void *pCtx){
  int i, j, c;
  for(i=0; i<pPlan->nScan; i++){
    const DocPlanScan *pScan = &pPlan->aScan[i];
    for(j=0; j<pScan->nRange; j++){
      const int *aR = &pScan->aRange[4*j];
      const u8 *aHi = &pPlan->keys.a[aR[2]];
      c = docextChunkOf(aBytes, aChunk, nChunk, szChunk, &pPlan->keys.a[aR[0]], aR[1]);
      for(; c<nChunk; c++){
        const DocChunkBound *b = (const DocChunkBound*)((const u8*)aChunk + szChunk*(size_t)c);
        if( c>0 && docextKeyCmp(&aBytes[b->iLo], b->nLo, aHi, aR[3])>=0 ) break;
        xMark(pCtx, c);             /* (the chunk starts below hi) */
      }
    }
  }
}

/* The chunk holding key aKey[0..nKey). */
static int rtChunkOf(const DocRouter *pR, const u8 *aKey, int nKey){
  return docextChunkOf(pR->bytes.a, pR->aChunk, pR->nChunk, sizeof(RtChunk), aKey, nKey);
}

/* The upper bound of chunk i: the next one's lower bound (*pn -1 for
** MaxKey). */
static const u8 *rtChunkHi(const DocRouter *pR, int i, int *pn){
  if( i+1>=pR->nChunk ){ *pn = -1; return 0; }
  *pn = pR->aChunk[i+1].lo.nLo;
  return &pR->bytes.a[pR->aChunk[i+1].lo.iLo];
}

static void rtMark(void *pCtx, int i){
  ((u8*)pCtx)[i] = 1;
}

/* Mark in aOn (one byte per chunk) the chunks whose keys a document
** matching aFilter may have. *pbBounded: the filter bounds the key. */
static int rtTargetFilter(DocRouter *pR, const u8 *aFilter, const DocCollator *pCollator,
                          u8 *aOn, int *pbBounded, char **pzErr){
  DocPlan *pPlan = 0;
  int rc = docextPlanKeyRanges(&pR->key, aFilter, pCollator, &pPlan, pzErr);
  *pbBounded = 0;
  if( rc!=SQLITE_OK ) return rc;
  if( pPlan->ePlan==DOCEXT_PLAN_COLLSCAN ){
    memset(aOn, 1, pR->nChunk);
  }else{
    *pbBounded = 1;
    docextChunksMet(pPlan, pR->bytes.a, pR->aChunk, pR->nChunk, sizeof(RtChunk), rtMark, aOn);
  }
  docextPlanFree(pPlan);
  return SQLITE_OK;
}

/* The chunks (aOn) that filters aaFilter[0..nFilter), ANDed, may touch;
** *pbTargeted when some filter bounds the shard key. */
static int rtTarget(DocRouter *pR, const u8 *const *aaFilter, int nFilter,
                    const u8 *aOptions, u8 *aOn, int *pbTargeted, char **pzErr){
  u8 *aOne = sqlite3_malloc64((u64)pR->nChunk + 1);
  DocCollator *pCollator = 0;
  int rc = aOne ? SQLITE_OK : SQLITE_NOMEM, f, c;
  memset(aOn, 1, pR->nChunk);
  *pbTargeted = 0;
  /* (strings compared under a collation bound no chunk: the keys are the
  ** bytes) */
  if( rc==SQLITE_OK ) rc = docextCollatorOption(aOptions, &pCollator, pzErr);
  for(f=0; rc==SQLITE_OK && f<nFilter; f++){
    int bBounded = 0;
    memset(aOne, 0, pR->nChunk);
    rc = rtTargetFilter(pR, aaFilter[f], pCollator, aOne, &bBounded, pzErr);
    if( bBounded ) *pbTargeted = 1;
    for(c=0; c<pR->nChunk; c++) aOn[c] &= aOne[c];
  }
  docextCollatorFree(pCollator);
  sqlite3_free(aOne);
  return rc;
}

static i64 rtRowid(const DocRouter *pR, int iShard, i64 iDoc){
  return (iDoc << RT_NUM_BITS) | pR->aShard[iShard].iNum;
}

/* The shard and document id of a rowid the router gave. */
static int rtFromRowid(DocRouter *pR, i64 iRowid, int *piShard, i64 *piDoc, char **pzErr){
  int iNum = (int)(iRowid & ((1<<RT_NUM_BITS)-1)), i;
  for(i=0; i<pR->nShard; i++){
    if( pR->aShard[i].iNum==iNum ){
      *piShard = i;
      *piDoc = iRowid >> RT_NUM_BITS;
      return SQLITE_OK;
    }
  }
  return docextError(pzErr, "docext: rowid %lld is no document of %s", iRowid, pR->zColl);
}

/*------------------------------------------------------------------------
** Chunk contents, through the owner's index on the shard key
*/

/* One document of a chunk: its key (in the listing's buffer), id, size. */
typedef struct RtEntry RtEntry;
struct RtEntry {
  i64 iKey;
  int nKey;
  i64 iDoc;
  i64 nBytes;
};

typedef struct RtList RtList;
struct RtList {
  RtEntry *a;
  int n, nAlloc;
  DocBuf keys;
  i64 nBytes;
};

static void rtListFree(RtList *p){
  sqlite3_free(p->a);
  docextBufFree(&p->keys);
  memset(p, 0, sizeof(*p));
}

/* The id of the index on the shard key in pColl (0: _id_) in *piIx, or
** an error if it has none. */
static int rtKeyIndex(DocRouter *pR, DocColl *pColl, i64 *piIx, char **pzErr){
  DocIndex *aIdx = 0;
  int nIdx = 0, i;
  int rc = docextCollIndexes(pColl, &aIdx, &nIdx, pzErr);
  for(i=0; rc==SQLITE_OK && i<nIdx; i++){
    if( docextRouterIsKeyIndex(pR, &aIdx[i]) ){
      *piIx = aIdx[i].iId;
      return SQLITE_OK;
    }
  }
  if( rc!=SQLITE_OK ) return rc;
  return docextError(pzErr, "docext: %s has no index on the shard key %s",
                     docextCollName(pColl), pR->key.zName);
}

/* The documents shard iShard holds with keys in chunk iChunk's range, in
** key order. */
static int rtList(DocRouter *pR, int iChunk, int iShard, RtList *pL, char **pzErr){
  DocColl *pColl = 0;
  sqlite3_stmt *pStmt = 0;
  const u8 *aHi;
  int nHi, rc;
  i64 iIx = 0;
  rtListFree(pL);
  rc = rtShardColl(pR, iShard, &pColl, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  rc = rtKeyIndex(pR, pColl, &iIx, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  if( iIx==0 ){
    rc = docextPreparef(pR->db, &pStmt, "SELECT idkey, id, size FROM \"%w\".\"%w_docs\""
                   " WHERE idkey>=?1 AND (?2 IS NULL OR idkey<?2) ORDER BY idkey",
                   pR->aShard[iShard].zName, pR->zColl);
  }else{
    rc = docextPreparef(pR->db, &pStmt, "SELECT i.key, i.docid, d.size FROM \"%w\".\"%w_idx\" AS i"
                   " JOIN \"%w\".\"%w_docs\" AS d ON d.id=i.docid WHERE i.ix=%lld"
                   " AND i.key>=?1 AND (?2 IS NULL OR i.key<?2) ORDER BY i.key",
                   pR->aShard[iShard].zName, pR->zColl, pR->aShard[iShard].zName,
                   pR->zColl, iIx);
  }
  if( rc==SQLITE_OK ){
    aHi = rtChunkHi(pR, iChunk, &nHi);
    rtBindLo(pR, pStmt, 1, iChunk);
    if( aHi ) rtBindKey(pStmt, 2, aHi, nHi);
  }
  while( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    RtEntry *e;
    pL->a = docextArrayGrow(&rc, pL->a, pL->n, &pL->nAlloc, sizeof(RtEntry));
    if( rc!=SQLITE_OK ) break;
    e = &pL->a[pL->n++];
    e->iKey = pL->keys.n;
    e->nKey = sqlite3_column_bytes(pStmt, 0);
    docextBufAppend(&rc, &pL->keys, sqlite3_column_blob(pStmt, 0), e->nKey);
    e->iDoc = sqlite3_column_int64(pStmt, 1);
    e->nBytes = sqlite3_column_int64(pStmt, 2);
    pL->nBytes += e->nBytes;
  }
  if( rc==SQLITE_OK ) rc = sqlite3_finalize(pStmt); else sqlite3_finalize(pStmt);
  return rtSqlError(pR, rc, pzErr);
}

/* Read document iDoc of pColl (valid until pRd moves). */
static int rtReadDoc(DocColl *pColl, DocReader *pRd, i64 iDoc, const u8 **paDoc, char **pzErr){
  int rc = docextReaderSeek(pRd, iDoc);
  (void)pColl;
  if( rc==SQLITE_ROW ) return docextReaderDoc(pRd, paDoc, pzErr);
  if( rc==SQLITE_DONE ) return docextError(pzErr, "docext: no document %lld in %s", iDoc,
                                           docextCollName(pColl));
  return rc;
}

/*------------------------------------------------------------------------
** Changing the metadata
*/

static int rtExec(DocRouter *pR, char **pzErr, sqlite3_stmt *pStmt){
  int rc = docextStmtRun(pStmt);
  sqlite3_finalize(pStmt);
  return rtSqlError(pR, rc, pzErr);
}

/* The chunks changed (a split, a move, a new owner): every cached router,
** this one too, reloads before its next use. */
static int rtChanged(DocRouter *pR, char **pzErr){
  pR->iTag = 0;
  return docextCollTagBump(pR->pHome, pzErr);
}

/* Insert chunk [aLo, …) with bound document aMin, owned as chunk iFrom
** is (a split). */
static int rtChunkInsert(DocRouter *pR, int iFrom, const u8 *aLo, int nLo, const u8 *aMin,
                         int bJumbo, char **pzErr){
  const RtChunk *c = &pR->aChunk[iFrom];
  sqlite3_stmt *pStmt = 0;
  int rc = docextPreparef(pR->db, &pStmt, "INSERT INTO main.docext_chunks(coll, lo, min, shard, prev,"
                     " mig, jumbo) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if( rc!=SQLITE_OK ) return rtSqlError(pR, rc, pzErr);
  sqlite3_bind_text(pStmt, 1, pR->zColl, -1, SQLITE_STATIC);
  rtBindKey(pStmt, 2, aLo, nLo);
  sqlite3_bind_blob(pStmt, 3, aMin, docextGetI32(aMin), SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 4, pR->aShard[c->iShard].zName, -1, SQLITE_STATIC);
  if( c->iPrev>=0 ){
    sqlite3_bind_text(pStmt, 5, pR->aShard[c->iPrev].zName, -1, SQLITE_STATIC);
    sqlite3_bind_int64(pStmt, 6, c->iMig);
  }
  sqlite3_bind_int(pStmt, 7, bJumbo);
  rc = rtExec(pR, pzErr, pStmt);
  return rc==SQLITE_OK ? rtChanged(pR, pzErr) : rc;
}

/* UPDATE main.docext_chunks SET <zSet> for chunk i; ?2 is the chunk's
** key, ?3, ?4 and ?5 the values given. bLayout: the change is one of the
** layout (owner, bounds, jumbo), which cached routers must see; what was
** written since the chunk was measured is not. */
static int rtChunkSet(DocRouter *pR, int i, const char *zSet, const char *z3, i64 i4,
                      const char *z5, int bLayout, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int rc = docextPreparef(pR->db, &pStmt, "UPDATE main.docext_chunks SET %s WHERE coll=?1 AND lo=?2",
                     zSet);
  if( rc!=SQLITE_OK ) return rtSqlError(pR, rc, pzErr);
  sqlite3_bind_text(pStmt, 1, pR->zColl, -1, SQLITE_STATIC);
  rtBindLo(pR, pStmt, 2, i);
  if( z3 ) sqlite3_bind_text(pStmt, 3, z3, -1, SQLITE_STATIC);
  sqlite3_bind_int64(pStmt, 4, i4);
  if( z5 ) sqlite3_bind_text(pStmt, 5, z5, -1, SQLITE_STATIC);
  rc = rtExec(pR, pzErr, pStmt);
  if( rc==SQLITE_OK && bLayout ) rc = rtChanged(pR, pzErr);
  return rc;
}

/* The bytes of entries [iFrom, iTo) of pL. */
static i64 rtListBytes(const RtList *pL, int iFrom, int iTo){
  i64 n = 0;
  for(; iFrom<iTo; iFrom++) n += pL->a[iFrom].nBytes;
  return n;
}

static int rtEntryCmp(const RtList *pL, int x, int y){
  return docextKeyCmp(&pL->keys.a[pL->a[x].iKey], pL->a[x].nKey,
                      &pL->keys.a[pL->a[y].iKey], pL->a[y].nKey);
}

/* Where entries [iFrom, iTo) of pL (in key order) split, while a part is
** over the chunk size: at the entry before which half the bytes lie,
** moved to the start of a key value (forward, else backward: a chunk
** never divides one value). Appends the split points in key order. */
static void rtSplitPoints(DocRouter *pR, const RtList *pL, int iFrom, int iTo, int nDepth,
                          int *pRc, int **paPt, int *pnPt, int *pnAlloc){
  i64 nBytes = rtListBytes(pL, iFrom, iTo), nHalf = 0;
  int m, k;
  if( nBytes<=pR->nChunkSize || iTo-iFrom<2 || nDepth>62 || *pRc!=SQLITE_OK ) return;
  for(m=iFrom; m<iTo-1 && nHalf + pL->a[m].nBytes <= nBytes/2; m++) nHalf += pL->a[m].nBytes;
  if( m==iFrom ) m = iFrom+1;
  for(k=m; k<iTo && rtEntryCmp(pL, k, k-1)==0; k++){}
  if( k>=iTo ){
    for(k=m; k>iFrom && rtEntryCmp(pL, k, k-1)==0; k--){}
  }
  if( k<=iFrom ) return;                    /* one key value: no split */
  rtSplitPoints(pR, pL, iFrom, k, nDepth+1, pRc, paPt, pnPt, pnAlloc);
  *paPt = docextArrayGrow(pRc, *paPt, *pnPt, pnAlloc, sizeof(int));
  if( *pRc!=SQLITE_OK ) return;
  (*paPt)[(*pnPt)++] = k;
  rtSplitPoints(pR, pL, k, iTo, nDepth+1, pRc, paPt, pnPt, pnAlloc);
}

/* A measurement of chunk i, taken by rtMeasure (which only reads) and
** recorded by rtMeasureApply (which only writes), so that a routed INSERT
** can read before it writes its document and write after (see
** docextRouterInsert). */
typedef struct RtMeasure RtMeasure;
struct RtMeasure {
  RtList list;              /* the chunk's documents, in key order */
  int *aPt, nPt, nAlloc;    /* where it splits (rtSplitPoints) */
  DocBuf bounds;            /* part k's bound (k >= 1) at aBound[k-1] */
  i64 *aBound;
};

static void rtMeasureFree(RtMeasure *p){
  rtListFree(&p->list);
  sqlite3_free(p->aPt);
  sqlite3_free(p->aBound);
  docextBufFree(&p->bounds);
  memset(p, 0, sizeof(*p));
}

/* The bounds of the parts after the first: each its first document's
** shard key values (rtBoundOf), read from shard iShard. */
static int rtSplitBounds(DocRouter *pR, int iShard, RtMeasure *pM, char **pzErr){
  DocColl *pColl = 0;
  DocReader *pRd = 0;
  int rc = rtShardColl(pR, iShard, &pColl, pzErr), k;
  if( rc==SQLITE_OK ) rc = docextReaderNew(docextCollStore(pColl), &pRd);
  if( rc==SQLITE_OK ){
    pM->aBound = docextMallocZero(sizeof(i64)*((i64)pM->nPt + 1));
    if( pM->aBound==0 ) rc = SQLITE_NOMEM;
  }
  for(k=0; rc==SQLITE_OK && k<pM->nPt; k++){
    const u8 *aDoc = 0;
    rc = rtReadDoc(pColl, pRd, pM->list.a[pM->aPt[k]].iDoc, &aDoc, pzErr);
    if( rc==SQLITE_OK ){
      pM->aBound[k] = pM->bounds.n;
      rtBoundOf(&rc, &pR->key, aDoc, &pM->bounds);
      docextReaderReset(pRd);
    }
  }
  docextReaderFree(pRd);
  return rc;
}

/* Measure chunk i: its documents, and when they are over the chunk size,
** where it splits and the parts' bounds. Reads only. */
static int rtMeasure(DocRouter *pR, int i, RtMeasure *pM, char **pzErr){
  int rc = rtList(pR, i, pR->aChunk[i].iOwner, &pM->list, pzErr);
  if( rc==SQLITE_OK && pM->list.nBytes>pR->nChunkSize ){
    rtSplitPoints(pR, &pM->list, 0, pM->list.n, 0, &rc, &pM->aPt, &pM->nPt, &pM->nAlloc);
    if( rc==SQLITE_OK && pM->nPt>0 ) rc = rtSplitBounds(pR, pR->aChunk[i].iOwner, pM, pzErr);
  }
  return rc;
}

/* Record measurement pM of chunk i: its count of bytes written restarts,
** and when it is over the size, a new chunk row at each split point,
** bounded by its part's first document's key; a part still over the size
** (one key value) is jumbo. Writes only. */
static int rtMeasureApply(DocRouter *pR, int i, const RtMeasure *pM, char **pzErr){
  const RtList *pL = &pM->list;
  int rc = rtChunkSet(pR, i, "written=0", 0, 0, 0, 0, pzErr), k;
  if( rc!=SQLITE_OK || pL->nBytes<=pR->nChunkSize ) return rc;
  for(k=0; rc==SQLITE_OK && k<=pM->nPt; k++){
    int iFrom = k ? pM->aPt[k-1] : 0, iTo = k<pM->nPt ? pM->aPt[k] : pL->n;
    int bJumbo = rtListBytes(pL, iFrom, iTo)>pR->nChunkSize;
    if( k==0 ){
      if( bJumbo ) rc = rtChunkSet(pR, i, "jumbo=1", 0, 0, 0, 1, pzErr);
      continue;
    }
    rc = rtChunkInsert(pR, i, &pL->keys.a[pL->a[iFrom].iKey], pL->a[iFrom].nKey,
                       pM->bounds.a + pM->aBound[k-1], bJumbo, pzErr);
  }
  if( rc==SQLITE_OK ) rc = rtLoadChunks(pR, pzErr);
  return rc;
}

/* Measure chunk i and split it if it is over the chunk size. */
static int rtSplitCheck(DocRouter *pR, int i, char **pzErr){
  RtMeasure m;
  int rc;
  memset(&m, 0, sizeof(m));
  rc = rtMeasure(pR, i, &m, pzErr);
  if( rc==SQLITE_OK ) rc = rtMeasureApply(pR, i, &m, pzErr);
  rtMeasureFree(&m);
  return rc;
}

/* Counting the bytes written into a chunk, and measuring it when enough
** were. A router a table keeps adds the bytes to the metadata's count in
** steps of chunkSize/40 (two statements a write cost a quarter of a
** routed insert); a command's, which lives for one command, on every
** write. The total is read back from there, so that the writes of every
** connection count. A step may hold writes a rolled-back statement undid,
** or be lost with the router: either only moves a measurement by a step.
** Two statements, not one UPDATE … RETURNING: SQLite gives a statement
** with RETURNING a statement journal, and inside the statement that
** writes the document, each write would make and free one (64 KiB, and
** system calls with it).
**
** rtCountPlan reads (the count, and the chunk when it is due to be
** measured) and rtCountApply writes what it found; rtWritten is the two
** in one. */
typedef struct RtCount RtCount;
struct RtCount {
  int iChunk;
  i64 nPending;             /* the chunk's bytes not yet counted, these too */
  int bRecord;              /* add them to the metadata's count */
  int bMeasure;             /* ... or rather restart it with measurement m */
  RtMeasure m;
};

/* Statement k of the count of chunk i (0: add ?3 to it, 1: read it),
** bound; prepared once, as it runs on every write. */
static sqlite3_stmt *rtCountStmt(DocRouter *pR, int k, int i, int *pRc){
  static const char *const azSql[2] = {
    "UPDATE main.docext_chunks SET written=written+?3 WHERE coll=?1 AND lo=?2",
    "SELECT written FROM main.docext_chunks WHERE coll=?1 AND lo=?2",
  };
  if( pR->apWritten[k]==0 ){
    *pRc = docextPreparef(pR->db, &pR->apWritten[k], "%s", azSql[k]);
    if( *pRc!=SQLITE_OK ) return 0;
  }
  sqlite3_bind_text(pR->apWritten[k], 1, pR->zColl, -1, SQLITE_STATIC);
  rtBindLo(pR, pR->apWritten[k], 2, i);
  return pR->apWritten[k];
}

static int rtCountPlan(DocRouter *pR, int i, i64 nBytes, RtCount *pC, char **pzErr){
  sqlite3_stmt *pStmt;
  i64 nWritten = 0;
  int rc = SQLITE_OK;
  memset(pC, 0, sizeof(*pC));
  pC->iChunk = i;
  pC->nPending = pR->aChunk[i].nPending + nBytes;
  if( pR->bCached && pC->nPending*RT_COUNT_EVERY < pR->nChunkSize ) return SQLITE_OK;
  pC->bRecord = 1;
  pStmt = rtCountStmt(pR, 1, i, &rc);
  if( pStmt ){
    if( sqlite3_step(pStmt)==SQLITE_ROW ) nWritten = sqlite3_column_int64(pStmt, 0);
    rc = sqlite3_reset(pStmt);
    sqlite3_clear_bindings(pStmt);
  }
  if( rc!=SQLITE_OK ) return rtSqlError(pR, rc, pzErr);
  if( pR->aChunk[i].bJumbo || (nWritten + pC->nPending)*RT_CHECK_EVERY < pR->nChunkSize ){
    return SQLITE_OK;
  }
  pC->bMeasure = 1;
  return rtMeasure(pR, i, &pC->m, pzErr);
}

static int rtCountApply(DocRouter *pR, const RtCount *pC, char **pzErr){
  sqlite3_stmt *pStmt;
  int i = pC->iChunk, rc = SQLITE_OK;
  if( !pC->bRecord ){
    pR->aChunk[i].nPending = pC->nPending;
    return SQLITE_OK;
  }
  pR->aChunk[i].nPending = 0;
  if( pC->bMeasure ) return rtMeasureApply(pR, i, &pC->m, pzErr);
  pStmt = rtCountStmt(pR, 0, i, &rc);
  if( pStmt ){
    sqlite3_bind_int64(pStmt, 3, pC->nPending);
    rc = docextStmtRun(pStmt);
    sqlite3_clear_bindings(pStmt);
  }
  return rc==SQLITE_OK ? SQLITE_OK : rtSqlError(pR, rc, pzErr);
}

/* Count nBytes written into chunk i; measure (and split) it when due. */
static int rtWritten(DocRouter *pR, int i, i64 nBytes, char **pzErr){
  RtCount c;
  int rc = rtCountPlan(pR, i, nBytes, &c, pzErr);
  if( rc==SQLITE_OK ) rc = rtCountApply(pR, &c, pzErr);
  rtMeasureFree(&c.m);
  return rc;
}

/*------------------------------------------------------------------------
** Writes through the router
*/

/* Before a routed write to shard i: let the statement that writes (an
** UPDATE of several rows, say) undo it if it fails later. SQLite undoes a
** failed statement through savepoints it opens in the files the
** statement writes, and the router's statement names only main; a shard
** is written by docext's own statements. An INSERT … SELECT that inserts
** nothing is a statement SQLite gives a statement journal (several rows,
** a constraint that may abort): running it in the shard opens the
** shard's savepoints up to the writing statement's, before any change of
** that statement reaches the shard. */
static int rtShardWriteBegin(DocRouter *pR, int i, char **pzErr){
  RtShard *s = &pR->aShard[i];
  int rc;
  if( s->bHome ) return SQLITE_OK;   /* (main: the statement's own) */
  if( s->pBegin==0 ){
    rc = docextPreparef(pR->db, &s->pBegin, "INSERT INTO \"%w\".\"%w_config\"(k, v)"
                        " SELECT 'version', 0 WHERE 0", s->zName, pR->zColl);
    if( rc!=SQLITE_OK ) return rtSqlError(pR, rc, pzErr);
  }
  return rtSqlError(pR, docextStmtRun(s->pBegin), pzErr);
}

/* The shard, document id and partition of a rowid the router gave. */
static int rtRowidColl(DocRouter *pR, i64 iRowid, int *piShard, i64 *piDoc, DocColl **ppColl,
                       char **pzErr){
  int rc = rtFromRowid(pR, iRowid, piShard, piDoc, pzErr);
  if( rc==SQLITE_OK ) rc = rtShardColl(pR, *piShard, ppColl, pzErr);
  return rc;
}

/* Insert aDoc into shard iShard's partition; *piRowid its router rowid. */
static int rtInsertInto(DocRouter *pR, int iShard, const u8 *aDoc, int bNamesChecked,
                        int eConflict, i64 *piRowid, char **pzErr){
  DocColl *pColl = 0;
  i64 iDoc = 0;
  int rc = rtShardColl(pR, iShard, &pColl, pzErr);
  if( rc==SQLITE_OK ) rc = rtShardWriteBegin(pR, iShard, pzErr);
  if( rc==SQLITE_OK ){
    rc = docextCollInsert(pColl, aDoc, bNamesChecked, eConflict, RT_MAX_DOCID, &iDoc, pzErr);
  }
  if( rc==SQLITE_OK ) *piRowid = rtRowid(pR, iShard, iDoc);
  return rc;
}

int docextRouterInsert(DocRouter *pR, const u8 *aDoc, int bNamesChecked, int eConflict,
                       i64 *piRowid, char **pzErr){
  DocBuf prepared;
  RtCount count;
  const u8 *aStore = 0;
  int rc, iChunk = 0;
  memset(&prepared, 0, sizeof(prepared));
  memset(&count, 0, sizeof(count));
  /* (_id first, made if missing: a shard key may be _id) */
  rc = docextCollPrepare(aDoc, bNamesChecked, &prepared, &aStore, pzErr);
  if( rc==SQLITE_OK ) rc = rtDocKey(pR, aStore, 1, pzErr);
  /* A one-row INSERT has no statement journal: SQLite undoes nothing of
  ** it when it fails. So every read that may fail (the chunk's count, and
  ** its measurement when due: a damaged document fails it) comes before
  ** the document is written, and every write of the chunk's metadata after
  ** it, once the document is in: an insert refused (a duplicate _id, a
  ** unique index) changes nothing. What may still fail after the write is
  ** SQLite's own writing of a row (out of memory, I/O, a full disk), and
  ** for those SQLite rolls back the whole transaction. A split does not
  ** move documents: the new one's shard is its chunk's before the split. */
  if( rc==SQLITE_OK ){
    iChunk = rtChunkOf(pR, pR->docKey.a, (int)pR->docKey.n);
    rc = rtCountPlan(pR, iChunk, docextGetI32(aStore), &count, pzErr);
  }
  if( rc==SQLITE_OK ){
    rc = rtInsertInto(pR, pR->aChunk[iChunk].iOwner, aStore, 1, eConflict, piRowid, pzErr);
  }
  if( rc==SQLITE_OK ) rc = rtCountApply(pR, &count, pzErr);
  rtMeasureFree(&count.m);
  docextBufFree(&prepared);
  return rc;
}

DocRouter *docextRouterRef(DocRouter *pR){
  pR->nRef++;
  return pR;
}

int docextRouterRead(DocRouter *pR, i64 iRowid, DocBuf *pOut, char **pzErr){
  DocColl *pColl = 0;
  DocReader *pRd = 0;
  const u8 *aDoc = 0;
  i64 iDoc = 0;
  int iShard = 0;
  int rc = rtRowidColl(pR, iRowid, &iShard, &iDoc, &pColl, pzErr);
  if( rc==SQLITE_OK ) rc = docextReaderNew(docextCollStore(pColl), &pRd);
  if( rc==SQLITE_OK ) rc = rtReadDoc(pColl, pRd, iDoc, &aDoc, pzErr);
  if( rc==SQLITE_OK ){
    docextBufReset(pOut);
    docextBufAppend(&rc, pOut, aDoc, docextGetI32(aDoc));
  }
  docextReaderFree(pRd);
  return rc;
}

int docextRouterLock(DocRouter *pR, char **pzErr){
  int rc = SQLITE_OK, i, c;
  for(i=0; rc==SQLITE_OK && i<pR->nShard; i++){
    for(c=0; c<pR->nChunk && pR->aChunk[c].iOwner!=i; c++){}
    if( c<pR->nChunk ) rc = rtShardWriteBegin(pR, i, pzErr);
  }
  return rc;
}

int docextRouterAppendInPlace(DocRouter *pR, i64 iRowid, const u8 *aKey, int nKey,
                              DocUpdate *pUpdate, int *pbDone, char **pzErr){
  DocColl *pColl = 0;
  i64 iDoc = 0, nSize = 0;
  int iShard = 0;
  int rc = rtRowidColl(pR, iRowid, &iShard, &iDoc, &pColl, pzErr);
  *pbDone = 0;
  if( rc==SQLITE_OK ) rc = rtShardWriteBegin(pR, iShard, pzErr);
  if( rc==SQLITE_OK ) rc = docextCollAppendInPlace(pColl, iDoc, pUpdate, pbDone, &nSize, pzErr);
  if( rc!=SQLITE_OK || !*pbDone ) return rc;
  /* Count what was written (its size, as for a replacement) into its
  ** chunk: the key the find read stays the key, as appends never touch it
  ** (no key field holds an array), so the document is not read again. */
  return rtWritten(pR, rtChunkOf(pR, aKey, nKey), nSize, pzErr);
}

int docextRouterDelete(DocRouter *pR, i64 iRowid, char **pzErr){
  DocColl *pColl = 0;
  i64 iDoc = 0;
  int iShard = 0;
  int rc = rtRowidColl(pR, iRowid, &iShard, &iDoc, &pColl, pzErr);
  if( rc==SQLITE_OK ) rc = rtShardWriteBegin(pR, iShard, pzErr);
  if( rc==SQLITE_OK ) rc = docextCollDelete(pColl, iDoc, pzErr);
  return rc;
}

/* Move document iDoc of shard iShard, replaced by aNew already, whose new
** key has it belong to chunk iChunk of another shard: delete it there and
** insert it into the owner's partition (as MongoDB 4.2 and later do when
** an update changes the shard key). *piRowid: its new rowid. */
static int rtMoveDoc(DocRouter *pR, int iShard, i64 iDoc, int iChunk, const u8 *aNew,
                     int bNamesChecked, i64 *piRowid, char **pzErr){
  DocColl *pFrom = 0, *pTo = 0;
  int iTo = pR->aChunk[iChunk].iOwner;
  int rc = rtShardColl(pR, iShard, &pFrom, pzErr);
  if( rc==SQLITE_OK ) rc = rtShardColl(pR, iTo, &pTo, pzErr);
  if( rc==SQLITE_OK ) rc = docextCollDelete(pFrom, iDoc, pzErr);
  if( rc==SQLITE_OK ){
    /* (the replacement was validated where it was made) */
    docextCollBypassValidation(pTo, 1);
    rc = rtInsertInto(pR, iTo, aNew, bNamesChecked, SQLITE_ABORT, piRowid, pzErr);
    docextCollBypassValidation(pTo, 0);
  }
  return rc;
}

int docextRouterReplace(DocRouter *pR, i64 iRowid, const u8 *aNew, int bNamesChecked,
                        i64 *piRowid, char **pzErr){
  DocColl *pColl = 0;
  DocBuf oldKey, withId;
  const u8 *aOld = 0;
  DocValue id;
  i64 iDoc = 0;
  int iShard = 0, iChunk = 0, rc;
  *piRowid = iRowid;
  rc = rtRowidColl(pR, iRowid, &iShard, &iDoc, &pColl, pzErr);
  /* (before the shard's first write: the sweep of expired documents) */
  if( rc==SQLITE_OK ) rc = rtShardWriteBegin(pR, iShard, pzErr);
  if( rc==SQLITE_OK ) rc = docextCollLoadOld(pColl, iDoc, &aOld, pzErr);
  if( rc!=SQLITE_OK || aOld==0 ) return rc;     /* (expired and swept: nothing to do) */
  memset(&oldKey, 0, sizeof(oldKey));
  memset(&withId, 0, sizeof(withId));
  rc = rtDocKey(pR, aOld, 0, pzErr);
  if( rc==SQLITE_OK ) docextBufAppend(&rc, &oldKey, pR->docKey.a, pR->docKey.n);
  if( rc==SQLITE_OK && !docextBsonFind(aNew, "_id", 3, &id) && docextBsonFind(aOld, "_id", 3, &id) ){
    /* (a replacement without _id keeps the old one: the key is the
    ** document's with it) */
    docextBsonWithId(&rc, &withId, &id, aNew);
    if( rc==SQLITE_OK ) aNew = withId.a;
  }
  /* Every check before the document is written */
  if( rc==SQLITE_OK ) rc = rtDocKey(pR, aNew, 1, pzErr);
  if( rc==SQLITE_OK ){
    iChunk = rtChunkOf(pR, pR->docKey.a, (int)pR->docKey.n);
    rc = docextCollReplaceLoaded(pColl, iDoc, aOld, aNew, bNamesChecked, pzErr);
  }else{
    docextCollLoadEnd(pColl);
  }
  if( rc==SQLITE_OK && pR->aChunk[iChunk].iOwner!=iShard
   && docextKeyCmp(oldKey.a, (int)oldKey.n, pR->docKey.a, (int)pR->docKey.n)!=0 ){
    rc = rtMoveDoc(pR, iShard, iDoc, iChunk, aNew, bNamesChecked, piRowid, pzErr);
  }
  if( rc==SQLITE_OK ) rc = rtWritten(pR, iChunk, docextGetI32(aNew), pzErr);
  docextBufFree(&oldKey);
  docextBufFree(&withId);
  return rc;
}

int docextRouterPartitions(DocRouter *pR, DocPartition **paPart, int *pnPart, char **pzErr){
  DocPartition *a = docextMallocZero(sizeof(DocPartition)*((i64)pR->nShard + 1));
  int rc = SQLITE_OK, n = 0, i;
  *paPart = 0;
  *pnPart = 0;
  if( a==0 ) return SQLITE_NOMEM;
  a[n].pColl = pR->pHome;
  a[n].zShard = "main";
  n++;
  for(i=0; rc==SQLITE_OK && i<pR->nShard; i++){
    RtShard *s = &pR->aShard[i];
    sqlite3_stmt *pStmt = 0;
    int bHas = 0;
    if( s->bHome ){
      a[0].bShard = s->bShard;
      continue;
    }
    /* (a shard gets its partition with its first chunk) */
    rc = docextPreparef(pR->db, &pStmt, "SELECT 1 FROM \"%w\".sqlite_schema"
                        " WHERE type='table' AND name=?1 COLLATE NOCASE", s->zName);
    if( rc==SQLITE_OK ){
      sqlite3_bind_text(pStmt, 1, pR->zColl, -1, SQLITE_STATIC);
      bHas = sqlite3_step(pStmt)==SQLITE_ROW;
      rc = sqlite3_finalize(pStmt);
    }
    if( rc!=SQLITE_OK ){
      if( rc!=SQLITE_NOMEM ){
        rc = docextError(pzErr, "docext: shard %s of %s is not attached", s->zName, pR->zColl);
      }
      break;
    }
    if( bHas ){
      rc = rtShardColl(pR, i, &a[n].pColl, pzErr);
      a[n].zShard = s->zName;
      a[n].bShard = 1;
      n++;
    }
  }
  if( rc!=SQLITE_OK ){
    sqlite3_free(a);
    a = 0;
    n = 0;
  }
  *paPart = a;
  *pnPart = n;
  return rc;
}

int docextRouterChunkCount(DocRouter *pR){
  return pR->nChunk;
}

int docextRouterIsKeyIndex(DocRouter *pR, const DocIndex *pIdx){
  int nKey = docextGetI32(pR->key.aKeys);
  return docextGetI32(pIdx->aKeys)==nKey && memcmp(pIdx->aKeys, pR->key.aKeys, nKey)==0
      && !pIdx->bSparse && pIdx->aPartial==0 && (!pIdx->bHashed || pIdx->bHashMix);
}

/* Mark in aShardOn (a byte per shard) the owners of the chunks that aOn
** marks; 1 if there is one. */
static int rtOwnersOf(const DocRouter *pR, const u8 *aOn, u8 *aShardOn){
  int i, bAny = 0;
  memset(aShardOn, 0, pR->nShard);
  for(i=0; i<pR->nChunk; i++){
    if( aOn[i] ){
      aShardOn[pR->aChunk[i].iOwner] = 1;
      bAny = 1;
    }
  }
  return bAny;
}

/* Does shard iShard hold no document in a chunk that aOn marks and another
** shard owns (an orphan, which a read must not show)? Asked of its index on
** the shard key, one probe for each run of such chunks, so no document is
** read. *pbNone is 0 when there is one, and when the shard has no index on
** the shard key to ask (or one made multikey by writes to the partition
** itself, whose keys are not the documents' shard keys). */
static int rtNoOrphans(DocRouter *pR, int iShard, const u8 *aOn, int *pbNone,
                       char **pzErr){
  static const u8 aAbove[] = { 0xFF };      /* above every shard key */
  DocColl *pColl = 0;
  DocIndex *aIdx = 0;
  i64 iIx = -1;
  int nIdx = 0, c = 0, i, rc;
  *pbNone = 0;
  rc = rtShardColl(pR, iShard, &pColl, pzErr);
  if( rc==SQLITE_OK ) rc = docextCollIndexes(pColl, &aIdx, &nIdx, pzErr);
  for(i=0; rc==SQLITE_OK && i<nIdx && iIx<0; i++){
    if( docextRouterIsKeyIndex(pR, &aIdx[i]) && !aIdx[i].bMultikey ) iIx = aIdx[i].iId;
  }
  if( rc!=SQLITE_OK || iIx<0 ) return rc;
  while( rc==SQLITE_OK && c<pR->nChunk ){
    const RtChunk *pLo = &pR->aChunk[c];
    const u8 *aHi;
    int nHi, cEnd = c;
    i64 n = 0;
    if( !aOn[c] || pLo->iOwner==iShard ){
      c++;
      continue;
    }
    while( cEnd+1<pR->nChunk && aOn[cEnd+1] && pR->aChunk[cEnd+1].iOwner!=iShard ) cEnd++;
    aHi = rtChunkHi(pR, cEnd, &nHi);
    rc = docextStorageCountRange(docextCollStore(pColl), iIx,
                                 &pR->bytes.a[pLo->lo.iLo], pLo->lo.nLo,
                                 aHi ? aHi : aAbove, aHi ? nHi : 1, 1, &n);
    if( n>0 ) return rc;
    c = cEnd + 1;
  }
  if( rc==SQLITE_OK ) *pbNone = 1;
  return rtSqlError(pR, rc, pzErr);
}

/*------------------------------------------------------------------------
** Reads through the router: a find on each shard the filter targets,
** each shard's documents limited to the chunks it owns, then skip and
** limit. A sort by the shard key reads chunk after chunk, in key order,
** each from its owner, starting a shard's find only when its first chunk
** comes (so sort + limit asks only the shards it needs); any other sort
** is a merge of the shards' sorted streams; no sort, one shard after
** another.
*/

typedef struct RtPart RtPart;
struct RtPart {
  int iShard;
  DocQuery *pQuery;         /* NULL until started */
  DocBuf sortKey;           /* the current result's, when merged */
  int iChunk;               /* the current result's chunk */
  int bEof;
  int bAllOwned;            /* the shard holds no orphan where the filter
                            ** reaches (rtNoOrphans): no key to check */
  i64 nOwned;               /* results it gave that the shard owns */
  i64 nOrphans;             /* results it skipped: another shard's */
  double rMillis;           /* time spent in it (when timed, to explain) */
};

struct DocRouted {
  DocRouter *pR;
  DocQuerySpec spec;        /* each part's (the caller's, bRouted) */
  DocBuf specCopy;          /* its documents and index name: parts may
                            ** start after the caller's copies are gone */
  DocAccess access;         /* the vtab's constraints, for each part */
  i64 iDoc;                 /* with iDocShard >= 0: rowid = ? there */
  int iDocShard;
  RtPart *aPart;
  int nPart;
  int iCur;                 /* the part of the current result; -1 at the end */
  DocSort *pSort;           /* a merge's sort */
  DocCollator *pCollator;   /* the options' collation, or NULL: the merge's */
  DocMatcher *pNear;        /* the filter with a $near, whose distance is the
                            ** merge's order when no sort is given */
  DocMatcher *pScorer;      /* the filter with the $text that scores a sort
                            ** by {$meta: "textScore"} */
  int *aSeq;                /* chunk order: the chunks to read, in order */
  int nSeq, iSeq;
  i64 nSkip, nMax, nSkipped, nReturned;
  int bTimed;               /* time each part (doc_explain) */
};

void docextRoutedFree(DocRouted *p){
  int i;
  if( p==0 ) return;
  for(i=0; i<p->nPart; i++){
    docextQueryFree(p->aPart[i].pQuery);
    docextBufFree(&p->aPart[i].sortKey);
  }
  sqlite3_free(p->aPart);
  sqlite3_free(p->aSeq);
  docextSortFree(p->pSort);
  docextCollatorFree(p->pCollator);
  docextMatcherFree(p->pNear);
  docextMatcherFree(p->pScorer);
  docextAccessClear(&p->access);
  docextBufFree(&p->specCopy);
  docextRouterFree(p->pR);
  sqlite3_free(p);
}

/* p->spec as pSpec, with its documents and index name in p->specCopy. */
static int rtSpecKeep(DocRouted *p, const DocQuerySpec *pSpec){
  const u8 **aaDoc[DOCEXT_MAX_FILTERS + 3];
  i64 aOff[DOCEXT_MAX_FILTERS + 4];
  int rc = SQLITE_OK, n = 0, i;
  p->spec = *pSpec;
  for(i=0; i<pSpec->nFilter; i++) aaDoc[n++] = &p->spec.aaFilter[i];
  aaDoc[n++] = &p->spec.aProjection;
  aaDoc[n++] = &p->spec.aSort;
  aaDoc[n++] = &p->spec.aOptions;
  for(i=0; i<n; i++){
    aOff[i] = p->specCopy.n;
    if( *aaDoc[i] ) docextBufAppend(&rc, &p->specCopy, *aaDoc[i], docextGetI32(*aaDoc[i]));
  }
  aOff[n] = p->specCopy.n;
  if( pSpec->zPlanIndex ){
    docextBufAppend(&rc, &p->specCopy, pSpec->zPlanIndex, (i64)strlen(pSpec->zPlanIndex)+1);
  }
  if( rc!=SQLITE_OK ) return rc;
  for(i=0; i<n; i++) if( *aaDoc[i] ) *aaDoc[i] = &p->specCopy.a[aOff[i]];
  if( pSpec->zPlanIndex ) p->spec.zPlanIndex = (const char*)&p->specCopy.a[aOff[n]];
  return SQLITE_OK;
}

/* Move part pP onto its next result the shard owns (from the current one). */
static int rtPartSettle(DocRouted *p, RtPart *pP, char **pzErr){
  DocRouter *pR = p->pR;
  int rc = SQLITE_OK;
  while( rc==SQLITE_OK && !docextQueryEof(pP->pQuery) ){
    const u8 *aDoc = 0;
    if( pP->bAllOwned ){
      pP->nOwned++;
      if( p->pSort ){
        rc = docextQueryStored(pP->pQuery, &aDoc, pzErr);
        docextBufReset(&pP->sortKey);
        if( rc==SQLITE_OK ) rc = docextSortKey(p->pSort, aDoc, &pP->sortKey, pzErr);
      }
      return rc;
    }
    rc = docextQueryStored(pP->pQuery, &aDoc, pzErr);
    if( rc==SQLITE_OK ) rc = rtDocKey(pR, aDoc, 0, pzErr);
    if( rc!=SQLITE_OK ) break;
    pP->iChunk = rtChunkOf(pR, pR->docKey.a, (int)pR->docKey.n);
    if( pR->aChunk[pP->iChunk].iOwner==pP->iShard ){
      pP->nOwned++;
      if( p->pSort ){
        docextBufReset(&pP->sortKey);
        rc = docextSortKey(p->pSort, aDoc, &pP->sortKey, pzErr);
      }
      return rc;
    }
    pP->nOrphans++;
    rc = docextQueryNext(pP->pQuery, pzErr);     /* an orphan: not this shard's */
  }
  pP->bEof = 1;
  return rc;
}

/* Start part pP's find on its shard, positioned on its first result. */
static int rtPartStart(DocRouted *p, RtPart *pP, char **pzErr){
  DocColl *pColl = 0;
  DocAccess access;
  double t0 = p->bTimed ? docextPlanNowMs() : 0;
  int rc = rtShardColl(p->pR, pP->iShard, &pColl, pzErr);
  if( rc==SQLITE_OK ) rc = docextQueryNew(pColl, &p->spec, &pP->pQuery, pzErr);
  if( rc==SQLITE_OK ){
    rc = docextAccessCopy(&access, &p->access);
    if( p->iDocShard>=0 ) access.iDoc = p->iDoc;
    if( rc==SQLITE_OK ) rc = docextQueryStart(pP->pQuery, &access, pzErr);
    docextAccessClear(&access);
  }
  if( rc==SQLITE_OK ) rc = rtPartSettle(p, pP, pzErr);
  if( p->bTimed ) pP->rMillis += docextPlanNowMs() - t0;
  return rc;
}

/* The part of shard iShard. */
static RtPart *rtPartOf(DocRouted *p, int iShard){
  int i;
  for(i=0; i<p->nPart && p->aPart[i].iShard!=iShard; i++){}
  return &p->aPart[i];
}

/* The part whose result comes next (p->iCur, -1 at the end): in chunk
** order, the owner of the current chunk while it has results there; in a
** merge, the smallest sort key (the first part on a tie); else the first
** part not at its end. */
static int rtPick(DocRouted *p, char **pzErr){
  int i, rc = SQLITE_OK;
  p->iCur = -1;
  if( p->aSeq ){
    while( p->iSeq<p->nSeq ){
      int iChunk = p->aSeq[p->iSeq];
      RtPart *pP = rtPartOf(p, p->pR->aChunk[iChunk].iOwner);
      if( pP->pQuery==0 && (rc = rtPartStart(p, pP, pzErr))!=SQLITE_OK ) return rc;
      if( !pP->bEof && pP->iChunk==iChunk ){
        p->iCur = (int)(pP - p->aPart);
        return SQLITE_OK;
      }
      p->iSeq++;
    }
    return SQLITE_OK;
  }
  for(i=0; i<p->nPart; i++){
    RtPart *pP = &p->aPart[i];
    if( pP->bEof ) continue;
    if( p->iCur<0 ){
      p->iCur = i;
      if( p->pSort==0 ) return SQLITE_OK;
    }else{
      RtPart *pBest = &p->aPart[p->iCur];
      if( docextKeyCmp(pP->sortKey.a, (int)pP->sortKey.n,
                       pBest->sortKey.a, (int)pBest->sortKey.n)<0 ) p->iCur = i;
    }
  }
  return SQLITE_OK;
}

/* Step to the next result to return, past those skipped. */
static int rtAdvance(DocRouted *p, int bFirst, char **pzErr){
  int rc = SQLITE_OK;
  for(;;){
    if( !bFirst ){
      RtPart *pP = &p->aPart[p->iCur];
      double t0 = p->bTimed ? docextPlanNowMs() : 0;
      rc = docextQueryNext(pP->pQuery, pzErr);
      if( rc==SQLITE_OK ) rc = rtPartSettle(p, pP, pzErr);
      if( p->bTimed ) pP->rMillis += docextPlanNowMs() - t0;
      if( rc!=SQLITE_OK ) return rc;
    }
    bFirst = 0;
    rc = rtPick(p, pzErr);
    if( rc!=SQLITE_OK || p->iCur<0 ) return rc;
    if( p->nMax>=0 && p->nReturned>=p->nMax ){
      p->iCur = -1;
      return SQLITE_OK;
    }
    if( p->nSkipped<p->nSkip ){
      p->nSkipped++;
      continue;
    }
    p->nReturned++;
    return SQLITE_OK;
  }
}

/* Does sort aSort order documents as the shard key does (*pbDesc: or the
** reverse)? Its fields must be the key's, in order, all ascending or all
** descending, and no key field hashed. Then the chunks, each sorted, in
** chunk order are the sorted whole: equal keys share a chunk. */
static int rtSortIsKeyOrder(const DocRouter *pR, const u8 *aSort, int *pbDesc){
  DocIter it;
  int i = 0, iDir = 0;
  if( pR->key.bHashed ) return 0;
  docextIterInit(&it, aSort);
  while( docextIterNext(&it) ){
    double r;
    if( i>=pR->key.nField || strcmp(it.zKey, pR->key.azPath[i])!=0 ) return 0;
    if( !docextValueIsNumber(&it.v) ) return 0;
    r = docextValueToDouble(&it.v);
    if( r!=1.0 && r!=-1.0 ) return 0;
    if( iDir && iDir!=(int)r ) return 0;
    iDir = (int)r;
    i++;
  }
  *pbDesc = iDir<0;
  return i==pR->key.nField;
}

/* A merge by text score scores each part's results again (from the
** stored documents), with the filter's $text bound to the collection's
** text index, which every shard has. */
static int rtTextSort(DocRouted *p, char **pzErr){
  const u8 *aLet = 0;
  i64 nowMs = p->spec.nowMs;
  int rc = docextExprLetOption(p->spec.aOptions, &aLet, pzErr), i;
  for(i=0; rc==SQLITE_OK && i<p->spec.nFilter && p->pScorer==0; i++){
    DocMatcher *pM = 0;
    rc = docextCollTextScorer(p->pR->pHome, p->spec.aaFilter[i], aLet, &nowMs, &pM, pzErr);
    if( rc==SQLITE_OK && docextMatcherText(pM) ){
      p->pScorer = pM;
      pM = 0;
      docextSortSetText(p->pSort, docextMatcherText(p->pScorer));
    }
    docextMatcherFree(pM);
  }
  if( rc==SQLITE_OK && p->pScorer==0 ) rc = docextTextNoScore(pzErr);
  return rc;
}

/* The sort: chunk order when it is the shard key's and several shards
** are asked, else a merge of the parts (none for an empty sort). */
static int rtRoutedSort(DocRouted *p, const u8 *aSort, const u8 *aOn, char **pzErr){
  DocRouter *pR = p->pR;
  int rc, bDesc = 0, i;
  /* (the chunks' order is the keys' bytes': not a collation's) */
  if( p->nPart>1 && p->pCollator==0 && rtSortIsKeyOrder(pR, aSort, &bDesc) ){
    p->aSeq = sqlite3_malloc64(sizeof(int)*((i64)pR->nChunk + 1));
    if( p->aSeq==0 ) return SQLITE_NOMEM;
    for(i=0; i<pR->nChunk; i++){
      int c = bDesc ? pR->nChunk-1-i : i;
      if( aOn[c] ) p->aSeq[p->nSeq++] = c;
    }
    return SQLITE_OK;
  }
  rc = docextSortNew(aSort, &p->pSort, pzErr);
  if( rc==SQLITE_OK && docextSortFieldCount(p->pSort)==0 ){
    docextSortFree(p->pSort);
    p->pSort = 0;
  }
  if( rc==SQLITE_OK && p->pSort ) docextSortSetCollator(p->pSort, p->pCollator);
  if( rc==SQLITE_OK && p->pSort && docextSortWantsText(p->pSort) ) rc = rtTextSort(p, pzErr);
  return rc;
}

/* Without a sort, a $near's distance orders the merge, as it orders each
** part's results. */
static int rtNearSort(DocRouted *p, char **pzErr){
  const u8 *aLet = 0;
  i64 nowMs = p->spec.nowMs;
  int rc = docextExprLetOption(p->spec.aOptions, &aLet, pzErr), i;
  for(i=0; rc==SQLITE_OK && i<p->spec.nFilter && p->pSort==0; i++){
    const char *zPath;
    int nPath;
    const DocGeo *pNear;
    rc = docextMatcherNew(p->spec.aaFilter[i], aLet, &nowMs, &p->pNear, pzErr);
    pNear = rc==SQLITE_OK ? docextMatcherNear(p->pNear, &zPath, &nPath) : 0;
    if( pNear ){
      rc = docextSortNewNear(zPath, nPath, pNear, &p->pSort);
    }else{
      docextMatcherFree(p->pNear);
      p->pNear = 0;
    }
  }
  return rc;
}

int docextRoutedNew(DocRouter *pR, const DocQuerySpec *pSpec, DocAccess *pAccess,
                    DocRouted **ppOut, char **pzErr){
  DocRouted *p = docextMallocZero(sizeof(*p));
  u8 *aOn = 0, *aShardOn = 0;
  int rc = p ? SQLITE_OK : SQLITE_NOMEM, bTargeted = 0, i;

  *ppOut = 0;
  if( p==0 ){ docextRouterFree(pR); return rc; }
  p->pR = pR;
  p->nMax = -1;
  p->iDocShard = -1;
  p->bTimed = pSpec->bExplain;
  docextAccessInit(&p->access);
  rc = rtSpecKeep(p, pSpec);
  p->spec.bRouted = 1;
  p->spec.bCountOnly = 0;       /* (orphans are told apart by their keys) */
  if( p->spec.nowMs==0 ) p->spec.nowMs = docextClockNowMs();   /* (every part's) */
  aOn = sqlite3_malloc64((u64)pR->nChunk + pR->nShard + 1);
  if( aOn==0 ) rc = SQLITE_NOMEM;
  if( rc==SQLITE_OK ){
    rc = rtTarget(pR, p->spec.aaFilter, p->spec.nFilter, p->spec.aOptions, aOn,
                  &bTargeted, pzErr);
  }
  if( rc==SQLITE_OK && pAccess->eAccess==DOCEXT_ACCESS_DOCID ){
    /* rowid = ?: one shard, one document */
    char *zIgnore = 0;
    if( rtFromRowid(pR, pAccess->iDoc, &p->iDocShard, &p->iDoc, &zIgnore)!=SQLITE_OK ){
      sqlite3_free(zIgnore);
      p->iDocShard = -1;
      pAccess->eAccess = DOCEXT_ACCESS_NONE;
    }
  }
  if( rc==SQLITE_OK ) rc = docextAccessCopy(&p->access, pAccess);
  if( rc==SQLITE_OK ){
    aShardOn = &aOn[pR->nChunk];
    rtOwnersOf(pR, aOn, aShardOn);
    if( p->iDocShard>=0 ){
      for(i=0; i<pR->nShard; i++) if( i!=p->iDocShard ) aShardOn[i] = 0;
    }
    /* with no shard to ask, one still compiles the query: its errors */
    for(i=0; i<pR->nShard && !aShardOn[i]; i++){}
    if( i==pR->nShard ) aShardOn[p->iDocShard>=0 ? p->iDocShard : pR->aChunk[0].iOwner] = 1;
    p->aPart = docextMallocZero(sizeof(RtPart)*((i64)pR->nShard+1));
    if( p->aPart==0 ) rc = SQLITE_NOMEM;
  }
  for(i=0; rc==SQLITE_OK && i<pR->nShard; i++){
    if( aShardOn[i] ) p->aPart[p->nPart++].iShard = i;
  }
  if( rc==SQLITE_OK ) rc = docextCollatorOption(p->spec.aOptions, &p->pCollator, pzErr);
  if( rc==SQLITE_OK && p->spec.aSort ) rc = rtRoutedSort(p, p->spec.aSort, aOn, pzErr);
  if( rc==SQLITE_OK && !p->spec.aSort ) rc = rtNearSort(p, pzErr);
  if( rc==SQLITE_OK && p->aSeq ){
    /* chunk order: only the first chunk's owner now (which also compiles
    ** the query), the others when their chunks come */
    RtPart *pFirst = p->nSeq ? rtPartOf(p, pR->aChunk[p->aSeq[0]].iOwner) : &p->aPart[0];
    rc = rtPartStart(p, pFirst, pzErr);
    if( rc==SQLITE_OK ) docextQueryLimits(pFirst->pQuery, &p->nSkip, &p->nMax);
  }else{
    for(i=0; rc==SQLITE_OK && i<p->nPart; i++){
      RtPart *pP = &p->aPart[i];
      rc = rtNoOrphans(pR, pP->iShard, aOn, &pP->bAllOwned, pzErr);
      if( rc==SQLITE_OK ) rc = rtPartStart(p, pP, pzErr);
    }
    if( rc==SQLITE_OK ) docextQueryLimits(p->aPart[0].pQuery, &p->nSkip, &p->nMax);
  }
  if( rc==SQLITE_OK ) rc = rtAdvance(p, 1, pzErr);
  sqlite3_free(aOn);
  if( rc!=SQLITE_OK ){
    docextRoutedFree(p);
    return rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

int docextRoutedNext(DocRouted *p, char **pzErr){
  if( p->iCur<0 ) return SQLITE_OK;
  return rtAdvance(p, 0, pzErr);
}

int docextRoutedEof(DocRouted *p){
  return p->iCur<0;
}

int docextRoutedRowid(DocRouted *p, i64 *piRowid){
  RtPart *pP = &p->aPart[p->iCur];
  i64 iDoc = 0;
  int rc = docextQueryDocid(pP->pQuery, &iDoc);
  *piRowid = rtRowid(p->pR, pP->iShard, iDoc);
  return rc;
}

DocQuery *docextRoutedQuery(DocRouted *p){
  return p->aPart[p->iCur].pQuery;
}

int docextRoutedKey(DocRouted *p, DocBuf *pOut, char **pzErr){
  const u8 *aDoc = 0;
  int rc = docextQueryStored(docextRoutedQuery(p), &aDoc, pzErr);
  if( rc==SQLITE_OK ) rc = rtDocKey(p->pR, aDoc, 0, pzErr);
  if( rc==SQLITE_OK ) docextBufAppend(&rc, pOut, p->pR->docKey.a, p->pR->docKey.n);
  return rc;
}

/*------------------------------------------------------------------------
** Partitions and migration
*/

/* Make sure shard i has a partition of the collection with an index on
** the shard key (what MongoDB requires of every shard), and every index
** the router's own storage has (those of doc_create_index). */
static int rtEnsurePartition(DocRouter *pR, int i, char **pzErr){
  DocColl *pColl = 0;
  DocIndex *aIdx = 0;
  DocBuf opt;
  char *zName = 0;
  int rc = SQLITE_OK, nIdx = 0, k;
  memset(&opt, 0, sizeof(opt));
  if( !pR->aShard[i].bHome ){
    rc = docextExecf(pR->db, pzErr, "CREATE VIRTUAL TABLE IF NOT EXISTS \"%w\".\"%w\""
                     " USING docext", pR->aShard[i].zName, pR->zColl);
  }
  if( rc==SQLITE_OK ) rc = rtShardColl(pR, i, &pColl, pzErr);
  if( rc==SQLITE_OK ) rc = docextIndexCreate(pColl, pR->key.aKeys, 0, &zName, pzErr);
  sqlite3_free(zName);
  if( rc==SQLITE_OK && pColl!=pR->pHome ){
    /* the validator, as doc_coll_mod set it on the router's storage */
    const u8 *aSpec = 0;
    i64 iTag = 0;
    rc = docextCollValidation(pR->pHome, &aSpec, &iTag, pzErr);
    if( rc==SQLITE_OK ) rc = docextCollSetValidation(pColl, aSpec, pzErr);
  }
  if( rc==SQLITE_OK && pColl!=pR->pHome ) rc = docextCollIndexes(pR->pHome, &aIdx, &nIdx, pzErr);
  for(k=1; rc==SQLITE_OK && k<nIdx; k++){
    docextBufReset(&opt);
    docextIndexOptions(&aIdx[k], &rc, &opt);
    zName = 0;
    if( rc==SQLITE_OK ) rc = docextIndexCreate(pColl, aIdx[k].aKeys, opt.a, &zName, pzErr);
    sqlite3_free(zName);
    /* (creating one in the partition leaves the router's list as it was) */
  }
  docextBufFree(&opt);
  return rc;
}

/* Refuse a unique index (other than _id_) not led by the shard key's
** fields, as MongoDB does: each shard checks uniqueness among its own
** documents only, which is uniqueness over all of them when documents
** equal in the index's leading fields share a chunk. (_id_ is unique per
** shard, as MongoDB's is, unless _id leads the shard key.) */
static int rtUniqueCheck(DocRouter *pR, const DocIndex *pIdx, char **pzErr){
  int i;
  if( !pIdx->bUnique || pIdx->iId==0 ) return SQLITE_OK;
  for(i=0; i<pR->key.nField && i<pIdx->nField
           && strcmp(pR->key.azPath[i], pIdx->azPath[i])==0; i++){}
  if( i==pR->key.nField ) return SQLITE_OK;
  {
    DocBuf key;
    int rc = SQLITE_OK;
    memset(&key, 0, sizeof(key));
    docextJsonWriteDoc(&rc, &key, pR->key.aKeys, DOCEXT_JSON_SHELL);
    docextBufAppendByte(&rc, &key, 0);
    if( rc==SQLITE_OK ){
      rc = docextError(pzErr, "docext: a unique index of a sharded collection must begin with "
                       "the shard key's fields (each shard checks uniqueness among its own "
                       "documents): %s does not begin with %s", pIdx->zName, (const char*)key.a);
    }
    docextBufFree(&key);
    return rc;
  }
}

/* rtUniqueCheck of the router's indexes: index zName, or every one. */
static int rtUniqueCheckAll(DocRouter *pR, const char *zName, char **pzErr){
  DocIndex *aIdx = 0;
  int nIdx = 0, i;
  int rc = docextCollIndexes(pR->pHome, &aIdx, &nIdx, pzErr);
  for(i=0; rc==SQLITE_OK && i<nIdx; i++){
    if( zName==0 || strcmp(aIdx[i].zName, zName)==0 ) rc = rtUniqueCheck(pR, &aIdx[i], pzErr);
  }
  return rc;
}

/* Delete what shard iShard holds in chunk i's range: copies it does not
** own (a move's source after the move, or a destination whose copy main
** never came to point at). */
static int rtDeleteRange(DocRouter *pR, int i, int iShard, char **pzErr){
  RtList list;
  DocColl *pColl = 0;
  int rc, k;
  memset(&list, 0, sizeof(list));
  rc = rtList(pR, i, iShard, &list, pzErr);
  if( rc==SQLITE_OK && list.n>0 ) rc = rtShardColl(pR, iShard, &pColl, pzErr);
  for(k=0; rc==SQLITE_OK && k<list.n; k++){
    rc = docextCollDelete(pColl, list.a[k].iDoc, pzErr);
  }
  rtListFree(&list);
  return rc;
}

/* Finish the pending move of chunk i: if it reached its destination,
** delete the source's copies and the marker, else give the chunk back. */
static int rtFinishMove(DocRouter *pR, int i, char **pzErr){
  RtChunk *c = &pR->aChunk[i];
  int rc;
  if( c->iOwner!=c->iShard ){
    rc = rtChunkSet(pR, i, "shard=prev, prev=NULL, mig=NULL", 0, 0, 0, 1, pzErr);
    if( rc==SQLITE_OK ) c->iShard = c->iPrev;
  }else{
    rc = rtDeleteRange(pR, i, c->iPrev, pzErr);
    if( rc==SQLITE_OK ){
      rc = docextExecf(pR->db, pzErr, "DELETE FROM \"%w\".\"%w_config\" WHERE k='migrated:%lld'",
                   pR->aShard[c->iShard].zName, pR->zColl, c->iMig);
    }
    if( rc==SQLITE_OK ) rc = rtChunkSet(pR, i, "prev=NULL, mig=NULL", 0, 0, 0, 1, pzErr);
  }
  if( rc==SQLITE_OK ){
    c->iPrev = -1;
    c->iMig = 0;
  }
  return rc;
}

/* Does SQLite commit main and shards iA and iB all or none? With main a
** file in a rollback journal mode and the shards too, one super-journal
** makes the commit atomic across the files (and databases in memory do
** not survive a crash at all). WAL mode commits file by file. */
static int rtCommitIsAtomic(DocRouter *pR, int iA, int iB){
  const char *azDb[3];
  int i, nFile = 0, bRollback = 1;
  azDb[0] = "main";
  azDb[1] = pR->aShard[iA].zName;
  azDb[2] = pR->aShard[iB].zName;
  for(i=0; i<3; i++){
    const char *zFile = sqlite3_db_filename(pR->db, azDb[i]);
    sqlite3_stmt *pStmt = 0;
    if( zFile && zFile[0] ) nFile++;
    if( docextPreparef(pR->db, &pStmt, "PRAGMA \"%w\".journal_mode", azDb[i])==SQLITE_OK
     && sqlite3_step(pStmt)==SQLITE_ROW ){
      const char *zMode = (const char*)sqlite3_column_text(pStmt, 0);
      if( zMode==0 || (sqlite3_stricmp(zMode, "delete") && sqlite3_stricmp(zMode, "truncate")
                       && sqlite3_stricmp(zMode, "persist")) ) bRollback = 0;
    }else{
      bRollback = 0;
    }
    sqlite3_finalize(pStmt);
  }
  if( nFile==0 ) return 1;
  return bRollback && sqlite3_db_filename(pR->db, "main")[0]!=0;
}

/* Copy chunk i from its owner to shard iTo, and point the chunk there
** as a pending move (the head of the file). *pnDocs: documents copied. */
static int rtMove(DocRouter *pR, int i, int iTo, i64 *pnDocs, char **pzErr){
  RtChunk *c = &pR->aChunk[i];
  int iFrom = c->iOwner;
  DocColl *pFrom = 0, *pTo = 0;
  DocReader *pRd = 0;
  RtList list;
  i64 iMig = 0;
  int rc, k;
  *pnDocs = 0;
  if( c->iPrev>=0 ){
    return docextError(pzErr, "docext: a chunk of %s is still moving from %s to %s: move "
                       "it again once that transaction has committed", pR->zColl,
                       pR->aShard[c->iPrev].zName, pR->aShard[c->iShard].zName);
  }
  if( iFrom==iTo ) return SQLITE_OK;
  memset(&list, 0, sizeof(list));
  rc = rtEnsurePartition(pR, iTo, pzErr);
  if( rc==SQLITE_OK ) rc = rtShardColl(pR, iFrom, &pFrom, pzErr);
  if( rc==SQLITE_OK ) rc = rtShardColl(pR, iTo, &pTo, pzErr);
  if( rc==SQLITE_OK ) rc = rtDeleteRange(pR, i, iTo, pzErr);
  if( rc==SQLITE_OK ) rc = rtList(pR, i, iFrom, &list, pzErr);
  if( rc==SQLITE_OK ) rc = docextReaderNew(docextCollStore(pFrom), &pRd);
  /* (a migration copies documents as they are: valid or not, as MongoDB's) */
  if( pTo ) docextCollBypassValidation(pTo, 1);
  for(k=0; rc==SQLITE_OK && k<list.n; k++){
    const u8 *aDoc = 0;
    i64 iNew = 0;
    rc = rtReadDoc(pFrom, pRd, list.a[k].iDoc, &aDoc, pzErr);
    if( rc==SQLITE_OK ) rc = docextCollInsert(pTo, aDoc, 1, SQLITE_ABORT, RT_MAX_DOCID, &iNew, pzErr);
    docextReaderReset(pRd);
  }
  if( pTo ) docextCollBypassValidation(pTo, 0);
  docextReaderFree(pRd);
  if( rc==SQLITE_OK ){
    do{ sqlite3_randomness(sizeof(iMig), &iMig); iMig &= 0x7fffffffffffffffLL; }while( iMig==0 );
    rc = docextExecf(pR->db, pzErr, "INSERT OR REPLACE INTO \"%w\".\"%w_config\"(k,v)"
                 " VALUES('migrated:%lld', 1)", pR->aShard[iTo].zName, pR->zColl, iMig);
  }
  if( rc==SQLITE_OK ){
    rc = rtChunkSet(pR, i, "shard=?3, prev=?5, mig=?4, written=0",
                    pR->aShard[iTo].zName, iMig, pR->aShard[iFrom].zName, 1, pzErr);
  }
  if( rc==SQLITE_OK ){
    c->iPrev = iFrom;
    c->iShard = c->iOwner = iTo;
    c->iMig = iMig;
    *pnDocs = list.n;
    /* the source's copies can go in this transaction when its commit
    ** takes every file or none */
    if( rtCommitIsAtomic(pR, iFrom, iTo) ) rc = rtFinishMove(pR, i, pzErr);
  }
  rtListFree(&list);
  return rc;
}

/* Finish the pending moves of earlier transactions: delete the source's
** copies of a move that reached its destination, give back a chunk whose
** move did not. Only when main had no write transaction of ours open as
** the command began (bClean; rtCanClean): then no move of this
** transaction is pending, and those found have committed (or are gone). */
static int rtCleanup(DocRouter *pR, int bClean, char **pzErr){
  int rc = SQLITE_OK, i, bChanged = 0;
  if( !bClean ) return SQLITE_OK;
  for(i=0; rc==SQLITE_OK && i<pR->nChunk; i++){
    if( pR->aChunk[i].iPrev<0 ) continue;
    bChanged = 1;
    rc = rtFinishMove(pR, i, pzErr);
  }
  if( rc==SQLITE_OK && bChanged ) rc = rtLoadChunks(pR, pzErr);
  return rc;
}

/*------------------------------------------------------------------------
** The SQL functions
*/

/* May this command clean up pending moves (rtCleanup)? Asked before its
** savepoint, whose lock opens a write transaction. */
static int rtCanClean(DocRouter *pR){
  return sqlite3_txn_state(pR->db, "main")!=SQLITE_TXN_WRITE;
}

/* Open the savepoint every command runs in (docextStorageSavepoint). */
static int rtBegin(DocRouter *pR, int *pbSave){
  DocStore *pStore = docextCollStore(pR->pHome);
  int rc = docextStorageSavepoint(pStore, DOCEXT_SP_OPEN);
  *pbSave = rc==SQLITE_OK;
  if( rc==SQLITE_OK ) rc = docextStorageSavepoint(pStore, DOCEXT_SP_LOCK);
  return rc;
}

static int rtEnd(DocRouter *pR, int bSave, int rc){
  return bSave ? docextStorageSavepointEnd(docextCollStore(pR->pHome), rc) : rc;
}

/* The collection named by a function's argument (TEXT only), sharded or
** not. */
static int rtCollArg(DocConn *pConn, sqlite3_value *pArg, DocColl **ppColl, char **pzErr){
  *ppColl = 0;
  if( sqlite3_value_type(pArg)!=SQLITE_TEXT ){
    return docextError(pzErr, "docext: a collection name is TEXT");
  }
  return docextCollFindArg(pConn, 0, 0, pArg, ppColl, pzErr);
}

/* Its router; an error if it is not sharded. */
static int rtOpenArg(DocConn *pConn, sqlite3_value *pArg, DocRouter **ppR, char **pzErr){
  DocColl *pColl = 0;
  int rc = rtCollArg(pConn, pArg, &pColl, pzErr);
  *ppR = 0;
  if( rc==SQLITE_OK ) rc = docextRouterOpen(pConn, pColl, ppR, pzErr);
  if( rc==SQLITE_OK && *ppR==0 ){
    rc = docextError(pzErr, "docext: %s is not sharded (doc_shard_collection shards it)",
                     docextCollName(pColl));
  }
  return rc;
}

/* A document argument (JSON text or BSON) into pBuf. */
static int rtDocArg(sqlite3_value *pArg, const char *zWhat, DocBuf *pBuf, const u8 **paDoc,
                    char **pzErr){
  if( sqlite3_value_type(pArg)==SQLITE_NULL ){
    return docextError(pzErr, "docext: %s is required", zWhat);
  }
  return docextArgToBson(pArg, pBuf, paDoc, pzErr);
}

/* Append the bound of chunk i (or, i==nChunk, MaxKey) as relaxed JSON
** under zKey. */
static void rtAppendBound(int *pRc, DocRouter *pR, int i, DocBuf *pOut, const char *zKey){
  DocValue v;
  DocBuf max;
  memset(&max, 0, sizeof(max));
  v.type = DOC_DOCUMENT;
  if( i<pR->nChunk ){
    v.p = &pR->bytes.a[pR->aChunk[i].iMin];
  }else{
    i64 iStart = docextBsonStartDoc(pRc, &max);
    int j;
    for(j=0; j<pR->key.nField; j++){
      docextBsonAppendKey(pRc, &max, DOC_MAXKEY, pR->key.azPath[j],
                          (int)strlen(pR->key.azPath[j]));
    }
    docextBsonEndDoc(pRc, &max, iStart);
    v.p = max.a;
  }
  if( *pRc==SQLITE_OK ){
    v.n = docextGetI32(v.p);
    docextBsonAppendValue(pRc, pOut, zKey, (int)strlen(zKey), &v);
  }
  docextBufFree(&max);
}

/* Return a BSON document built in pOut as relaxed JSON text. */
static void rtResultJson(sqlite3_context *ctx, int rc, DocBuf *pOut, char *zErr){
  DocBuf text;
  memset(&text, 0, sizeof(text));
  if( rc==SQLITE_OK ) docextJsonWriteDoc(&rc, &text, pOut->a, DOCEXT_JSON_RELAXED);
  if( rc==SQLITE_OK ){
    docextBufResultText(ctx, &text);
  }else{
    docextResultError(ctx, rc, zErr);
  }
  docextBufFree(&text);
}

/* doc_add_shard(schema) */
static void rtAddShardFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  sqlite3_stmt *pStmt = 0;
  const char *z = (const char*)sqlite3_value_text(argv[0]);
  char *zErr = 0;
  int rc;
  (void)argc;
  if( z==0 || sqlite3_value_type(argv[0])!=SQLITE_TEXT ){
    docextResultError(ctx, SQLITE_ERROR, sqlite3_mprintf("docext: doc_add_shard needs the "
                      "name of an attached database (or main)"));
    return;
  }
  if( sqlite3_stricmp(z, "temp")==0 || !docextIsSchema(db, z, (int)strlen(z)) ){
    docextResultError(ctx, SQLITE_ERROR, sqlite3_mprintf("docext: no database named %s: "
                      "a shard is main or an attached database (ATTACH 'f.db' AS %s)", z, z));
    return;
  }
  rc = sqlite3_exec(db, "SAVEPOINT docext_add_shard", 0, 0, 0);
  if( rc==SQLITE_OK ){
    rc = sqlite3_exec(db, zMetaSchema, 0, 0, 0);
    if( rc==SQLITE_OK ){
      rc = sqlite3_prepare_v2(db, "INSERT INTO main.docext_shards(name, num) SELECT ?1,"
                                  " CASE WHEN NOT EXISTS (SELECT 1 FROM main.docext_shards"
                                  " WHERE num=0) THEN 0 ELSE (SELECT min(num)+1 FROM"
                                  " main.docext_shards a WHERE NOT EXISTS (SELECT 1 FROM"
                                  " main.docext_shards b WHERE b.num=a.num+1)) END"
                                  " WHERE (SELECT count(*) FROM main.docext_shards)<1023", -1, &pStmt, 0);
    }
    if( rc==SQLITE_OK ){
      sqlite3_bind_text(pStmt, 1, z, -1, SQLITE_STATIC);
      rc = docextStmtRun(pStmt);
      if( rc==SQLITE_OK && sqlite3_changes(db)==0 ){
        zErr = sqlite3_mprintf("docext: at most %d shards", RT_MAX_SHARDS);
        rc = SQLITE_ERROR;
      }else if( (rc & 0xff)==SQLITE_CONSTRAINT ){
        zErr = sqlite3_mprintf("docext: %s is a shard already", z);
      }
    }
    sqlite3_finalize(pStmt);
    if( rc!=SQLITE_OK ){
      if( zErr==0 && rc!=SQLITE_NOMEM ) zErr = sqlite3_mprintf("docext: %s", sqlite3_errmsg(db));
      sqlite3_exec(db, "ROLLBACK TO docext_add_shard", 0, 0, 0);
    }
    sqlite3_exec(db, "RELEASE docext_add_shard", 0, 0, 0);
  }
  if( rc==SQLITE_OK ){
    sqlite3_result_text(ctx, z, -1, SQLITE_TRANSIENT);
  }else{
    if( zErr==0 && rc!=SQLITE_NOMEM ) zErr = sqlite3_mprintf("docext: %s", sqlite3_errmsg(db));
    docextResultError(ctx, rc, zErr);
  }
}

/* doc_shard_collection's options: {chunkSize}. */
static int rtShardOptions(const u8 *aOpt, i64 *pnChunkSize, char **pzErr){
  DocIter it;
  *pnChunkSize = RT_DEFAULT_CHUNK;
  if( aOpt==0 ) return SQLITE_OK;
  docextIterInit(&it, aOpt);
  while( docextIterNext(&it) ){
    if( strcmp(it.zKey, "chunkSize")==0 ){
      double d = docextValueToDouble(&it.v);
      if( !docextValueIsNumber(&it.v) || d!=d || d<1 || d>(double)RT_MAX_CHUNK
       || d!=(double)(i64)d ){
        return docextError(pzErr, "docext: doc_shard_collection: chunkSize must be a whole "
                           "number of bytes from 1 to 2^40");
      }
      *pnChunkSize = (i64)d;
    }else{
      return docextError(pzErr, "docext: doc_shard_collection: unknown option '%s' (the "
                         "option is chunkSize)", it.zKey);
    }
  }
  return SQLITE_OK;
}

/* A new sharded collection's first chunks: for a key led by a hashed
** field, on an empty collection, two per shard over the range of hashes
** (as MongoDB pre-splits); else one, [MinKey, MaxKey), on the primary
** shard (main if it is a shard, else the first). A collection that holds
** documents while main is not a shard moves them out as a pending move
** from main (see the head of the file). */
static int rtFirstChunks(DocRouter *pR, int bEmpty, char **pzErr){
  int nShard = 0, iPrimary = -1, i, j, rc = SQLITE_OK, nChunk;
  DocBuf bound, key;
  memset(&bound, 0, sizeof(bound));
  memset(&key, 0, sizeof(key));
  for(i=0; i<pR->nShard; i++){
    if( !pR->aShard[i].bShard ) continue;
    nShard++;
    if( iPrimary<0 || pR->aShard[i].bHome ) iPrimary = i;
  }
  nChunk = bEmpty && pR->key.aDir[0]==0 ? 2*nShard : 1;
  for(i=0; rc==SQLITE_OK && i<nChunk; i++){
    sqlite3_stmt *pStmt = 0;
    int iShard = iPrimary, n = -1;
    i64 iStart;
    docextBufReset(&bound);
    docextBufReset(&key);
    iStart = docextBsonStartDoc(&rc, &bound);
    for(j=0; j<pR->key.nField; j++){
      const char *z = pR->key.azPath[j];
      if( j==0 && i>0 ){
        /* hash bound i of nChunk equal ranges of the int64 hashes */
        u64 x = (~(u64)0 / (u64)nChunk) * (u64)i;
        docextBsonAppendInt64(&rc, &bound, z, (int)strlen(z), (i64)(x ^ ((u64)1<<63)));
      }else{
        docextBsonAppendKey(&rc, &bound, DOC_MINKEY, z, (int)strlen(z));
      }
    }
    docextBsonEndDoc(&rc, &bound, iStart);
    if( rc==SQLITE_OK && i>0 ) rc = rtBoundKey(&pR->key, bound.a, &key, 0, pzErr);
    if( nChunk>1 ){
      for(j=0; j<pR->nShard; j++){
        if( pR->aShard[j].bShard && ++n==i/2 ){ iShard = j; break; }
      }
    }
    if( rc==SQLITE_OK ){
      rc = docextPreparef(pR->db, &pStmt, "INSERT INTO main.docext_chunks(coll, lo, min, shard, prev,"
                     " mig) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    }
    if( rc==SQLITE_OK ){
      sqlite3_bind_text(pStmt, 1, pR->zColl, -1, SQLITE_STATIC);
      rtBindKey(pStmt, 2, key.a, (int)key.n);
      sqlite3_bind_blob(pStmt, 3, bound.a, (int)bound.n, SQLITE_STATIC);
      sqlite3_bind_text(pStmt, 4, pR->aShard[iShard].zName, -1, SQLITE_STATIC);
      rc = rtExec(pR, pzErr, pStmt);
    }
  }
  if( rc==SQLITE_OK ) rc = rtLoadChunks(pR, pzErr);
  if( rc==SQLITE_OK && !bEmpty && !pR->aShard[iPrimary].bHome ){
    /* the documents are main's, which is no shard: move them out */
    i64 nDocs = 0;
    int iHome = rtShardIndex(pR, "main");
    pR->aChunk[0].iOwner = iHome;
    rc = rtMove(pR, 0, iPrimary, &nDocs, pzErr);
  }
  docextBufFree(&bound);
  docextBufFree(&key);
  return rc;
}

/* Check every document's shard key (no arrays); *pbEmpty. */
static int rtCheckDocs(DocRouter *pR, int *pbEmpty, char **pzErr);

/* A shard's partition that holds documents already (left by a collection
** of the same name dropped while sharded, or made by hand) would have
** them show up as the new collection's: refused, as MongoDB refuses. */
static int rtCheckPartitions(DocRouter *pR, char **pzErr){
  int i, rc = SQLITE_OK;
  for(i=0; rc==SQLITE_OK && i<pR->nShard; i++){
    sqlite3_stmt *pStmt = 0;
    int bDocs = 0;
    if( pR->aShard[i].bHome || !pR->aShard[i].bShard ) continue;
    if( docextPreparef(pR->db, &pStmt, "SELECT 1 FROM \"%w\".\"%w_docs\" LIMIT 1",
                       pR->aShard[i].zName, pR->zColl)==SQLITE_OK ){
      bDocs = sqlite3_step(pStmt)==SQLITE_ROW;
    }
    sqlite3_finalize(pStmt);           /* (no such table: no partition yet) */
    if( bDocs ){
      rc = docextError(pzErr, "docext: %s.%s holds documents already: drop it, or move "
                       "them elsewhere, before sharding %s", pR->aShard[i].zName, pR->zColl,
                       pR->zColl);
    }
  }
  return rc;
}

/* doc_shard_collection(coll, key [, options]) */
static void rtShardCollectionFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocColl *pColl = 0;
  DocRouter *pR = 0;
  DocBuf keyArg, optArg, out;
  const u8 *aKey = 0, *aOpt = 0, *aOld = 0;
  i64 nChunkSize = 0;
  char *zErr = 0;
  int rc, bSave = 0, bEmpty = 1, i, nShard = 0;
  DocIndex key;

  memset(&keyArg, 0, sizeof(keyArg));
  memset(&optArg, 0, sizeof(optArg));
  memset(&out, 0, sizeof(out));
  memset(&key, 0, sizeof(key));
  /* (its shard key is checked below: sharded already is an error) */
  rc = rtCollArg(pConn, argv[0], &pColl, &zErr);
  if( rc==SQLITE_OK && sqlite3_stricmp(docextStorageSchema(docextCollStore(pColl)), "main") ){
    rc = docextError(&zErr, "docext: only a collection of main can be sharded (%s is "
                     "in %s)", docextCollName(pColl), docextStorageSchema(docextCollStore(pColl)));
  }
  if( rc==SQLITE_OK ) rc = rtDocArg(argv[1], "a shard key", &keyArg, &aKey, &zErr);
  if( rc==SQLITE_OK ) rc = docextShardKeyParse(aKey, &key, &zErr);
  if( rc==SQLITE_OK && argc>2 && sqlite3_value_type(argv[2])!=SQLITE_NULL ){
    rc = docextArgToBson(argv[2], &optArg, &aOpt, &zErr);
  }
  if( rc==SQLITE_OK ) rc = rtShardOptions(aOpt, &nChunkSize, &zErr);
  if( rc==SQLITE_OK ) rc = docextCollShardKey(pColl, &aOld, 0, 0, &zErr);
  if( rc==SQLITE_OK && aOld ){
    rc = docextError(&zErr, "docext: %s is sharded already", docextCollName(pColl));
  }
  if( rc==SQLITE_OK ){
    /* (chunks are ranges of the keys' bytes, and its partitions would need
    ** the collation too) */
    DocCollator *pDefault = 0;
    rc = docextCollCollation(pColl, &pDefault, &zErr);
    if( rc==SQLITE_OK && pDefault ){
      rc = docextError(&zErr, "docext: %s has a default collation: docext does not shard "
                       "such a collection", docextCollName(pColl));
    }
  }
  if( rc==SQLITE_OK ){
    pR = docextMallocZero(sizeof(*pR));
    if( pR==0 ) rc = SQLITE_NOMEM;
  }
  if( rc==SQLITE_OK ){
    /* a router of its own until the shard key is stored */
    docextCollHold(pColl);
    pR->pConn = pConn;
    pR->pHome = pColl;
    pR->db = docextStorageDb(docextCollStore(pColl));
    pR->zColl = docextStorageName(docextCollStore(pColl));
    pR->nChunkSize = nChunkSize;
    pR->key = key;
    memset(&key, 0, sizeof(key));
    rc = rtBegin(pR, &bSave);
    if( rc==SQLITE_OK ) rc = docextExecf(pR->db, &zErr, "%s", zMetaSchema);
    if( rc==SQLITE_OK ) rc = rtLoadShards(pR, &zErr);
  }
  for(i=0; rc==SQLITE_OK && i<pR->nShard; i++) nShard += pR->aShard[i].bShard;
  if( rc==SQLITE_OK && nShard==0 ){
    rc = docextError(&zErr, "docext: there is no shard: add one first (SELECT "
                     "doc_add_shard('main'), or an attached database)");
  }
  if( rc==SQLITE_OK ) rc = docextExecf(pR->db, &zErr, "DELETE FROM main.docext_chunks WHERE coll=%Q",
                                   pR->zColl);
  if( rc==SQLITE_OK ) rc = rtCheckPartitions(pR, &zErr);
  if( rc==SQLITE_OK ) rc = rtUniqueCheckAll(pR, 0, &zErr);
  if( rc==SQLITE_OK ) rc = rtCheckDocs(pR, &bEmpty, &zErr);
  for(i=0; rc==SQLITE_OK && i<pR->nShard; i++){
    /* (main too when it is no shard: its documents leave through the index) */
    if( pR->aShard[i].bShard || pR->aShard[i].bHome ) rc = rtEnsurePartition(pR, i, &zErr);
  }
  if( rc==SQLITE_OK ) rc = docextCollSetShardKey(pColl, pR->key.aKeys, nChunkSize, &zErr);
  if( rc==SQLITE_OK ) rc = rtFirstChunks(pR, bEmpty, &zErr);
  if( rc==SQLITE_OK && pR->nChunk==1 && !bEmpty ) rc = rtSplitCheck(pR, 0, &zErr);
  if( pR ) rc = rtEnd(pR, bSave, rc);
  if( rc==SQLITE_OK ){
    i64 iStart = docextBsonStartDoc(&rc, &out);
    DocValue v;
    docextBsonAppendString(&rc, &out, DOC_STRING, "collectionsharded", 17, pR->zColl,
                           (int)strlen(pR->zColl));
    v.type = DOC_DOCUMENT;
    v.p = pR->key.aKeys;
    v.n = docextGetI32(v.p);
    docextBsonAppendValue(&rc, &out, "key", 3, &v);
    docextBsonAppendInt64(&rc, &out, "chunks", 6, pR->nChunk);
    docextBsonEndDoc(&rc, &out, iStart);
  }
  rtResultJson(ctx, rc, &out, zErr);
  docextRouterFree(pR);
  docextIndexClear(&key);
  docextBufFree(&keyArg);
  docextBufFree(&optArg);
  docextBufFree(&out);
}

static int rtCheckVisit(void *pCtx, const u8 *aDoc, char **pzErr){
  return docextShardKeyCheck(&((DocRouter*)pCtx)->key, aDoc, 0, pzErr);
}

static int rtCheckDocs(DocRouter *pR, int *pbEmpty, char **pzErr){
  DocQuerySpec spec;
  i64 n = 0;
  int rc;
  docextQuerySpecInit(&spec);
  rc = docextPlanRunQuery(pR->pHome, &spec, 1, rtCheckVisit, pR, &n, 0, pzErr);
  *pbEmpty = n==0;
  return rc;
}

/* doc_route(coll, filter_or_doc): {shards, targeted, chunks} */
static void rtRouteFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocRouter *pR = 0;
  DocBuf arg, out;
  const u8 *aFilter = 0;
  u8 *aOn = 0;
  char *zErr = 0;
  int rc, bTargeted = 0, i, c, nChunk = 0, n = 0;
  (void)argc;
  memset(&arg, 0, sizeof(arg));
  memset(&out, 0, sizeof(out));
  rc = rtOpenArg(pConn, argv[0], &pR, &zErr);
  if( rc==SQLITE_OK ) rc = rtDocArg(argv[1], "a filter or a document", &arg, &aFilter, &zErr);
  if( rc==SQLITE_OK ){
    /* a filter the finds would refuse is refused here too */
    DocMatcher *pM = 0;
    rc = docextMatcherNew(aFilter, 0, 0, &pM, &zErr);
    docextMatcherFree(pM);
  }
  if( rc==SQLITE_OK ){
    aOn = sqlite3_malloc64((u64)pR->nChunk + 1);
    if( aOn==0 ) rc = SQLITE_NOMEM;
  }
  if( rc==SQLITE_OK ) rc = rtTarget(pR, &aFilter, 1, 0, aOn, &bTargeted, &zErr);
  if( rc==SQLITE_OK ){
    i64 iStart = docextBsonStartDoc(&rc, &out);
    i64 iArr = docextBsonStartChild(&rc, &out, DOC_ARRAY, "shards", 6);
    for(i=0; i<pR->nShard; i++){
      int bOn = 0;
      for(c=0; c<pR->nChunk; c++) if( aOn[c] && pR->aChunk[c].iOwner==i ) bOn = 1;
      if( bOn ){
        char zIdx[16];
        int nIdx = docextBsonArrayKey(zIdx, n++);
        docextBsonAppendString(&rc, &out, DOC_STRING, zIdx, nIdx, pR->aShard[i].zName,
                               (int)strlen(pR->aShard[i].zName));
      }
    }
    docextBsonEndDoc(&rc, &out, iArr);
    for(c=0; c<pR->nChunk; c++) nChunk += aOn[c];
    docextBsonAppendBool(&rc, &out, "targeted", 8, bTargeted);
    docextBsonAppendInt64(&rc, &out, "chunks", 6, nChunk);
    docextBsonEndDoc(&rc, &out, iStart);
  }
  rtResultJson(ctx, rc, &out, zErr);
  sqlite3_free(aOn);
  docextRouterFree(pR);
  docextBufFree(&arg);
  docextBufFree(&out);
}

/* doc_split_chunk(coll, middle): split the chunk holding the key middle
** gives (each shard key field; a hashed one as its hash) at it. */
static void rtSplitFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocRouter *pR = 0;
  DocBuf arg, key, bound, out;
  const u8 *aMiddle = 0;
  char *zErr = 0;
  int rc, bSave = 0, i = 0, j;
  (void)argc;
  memset(&arg, 0, sizeof(arg));
  memset(&key, 0, sizeof(key));
  memset(&bound, 0, sizeof(bound));
  memset(&out, 0, sizeof(out));
  rc = rtOpenArg(pConn, argv[0], &pR, &zErr);
  if( rc==SQLITE_OK ) rc = rtDocArg(argv[1], "the middle of the split", &arg, &aMiddle, &zErr);
  if( rc==SQLITE_OK ) rc = rtBoundKey(&pR->key, aMiddle, &key, &bound, &zErr);
  if( rc==SQLITE_OK ){
    DocIter it;
    docextIterInit(&it, bound.a);
    while( rc==SQLITE_OK && docextIterNext(&it) ){
      if( it.v.type==DOC_MINKEY || it.v.type==DOC_MAXKEY ){
        rc = docextError(&zErr, "docext: a chunk cannot split at MinKey or MaxKey");
      }
    }
  }
  if( rc==SQLITE_OK ){
    i = rtChunkOf(pR, key.a, (int)key.n);
    if( docextKeyCmp(&pR->bytes.a[pR->aChunk[i].lo.iLo], pR->aChunk[i].lo.nLo,
                     key.a, (int)key.n)==0 ){
      rc = docextError(&zErr, "docext: a chunk of %s begins at that key already", pR->zColl);
    }
  }
  if( rc==SQLITE_OK ) rc = rtBegin(pR, &bSave);
  if( rc==SQLITE_OK ) rc = rtChunkInsert(pR, i, key.a, (int)key.n, bound.a, 0, &zErr);
  if( rc==SQLITE_OK ) rc = rtChunkSet(pR, i, "jumbo=0, written=0", 0, 0, 0, 1, &zErr);
  if( rc==SQLITE_OK ) rc = rtLoadChunks(pR, &zErr);
  rc = pR ? rtEnd(pR, bSave, rc) : rc;
  if( rc==SQLITE_OK ){
    i64 iStart = docextBsonStartDoc(&rc, &out);
    for(j=i; j<=i+1; j++){
      i64 iChunk = docextBsonStartChild(&rc, &out, DOC_DOCUMENT, j==i ? "left" : "right", j==i ? 4 : 5);
      rtAppendBound(&rc, pR, j, &out, "min");
      rtAppendBound(&rc, pR, j+1, &out, "max");
      docextBsonEndDoc(&rc, &out, iChunk);
    }
    docextBsonEndDoc(&rc, &out, iStart);
  }
  rtResultJson(ctx, rc, &out, zErr);
  docextRouterFree(pR);
  docextBufFree(&arg);
  docextBufFree(&key);
  docextBufFree(&bound);
  docextBufFree(&out);
}

/* Append {min, max, from, to, docs} of a move of chunk i under zKey. */
static void rtAppendMove(int *pRc, DocRouter *pR, int i, int iFrom, i64 nDocs, DocBuf *pOut,
                         const char *zKey){
  i64 iStart = docextBsonStartChild(pRc, pOut, DOC_DOCUMENT, zKey, (int)strlen(zKey));
  const char *zFrom = pR->aShard[iFrom].zName, *zTo = pR->aShard[pR->aChunk[i].iShard].zName;
  rtAppendBound(pRc, pR, i, pOut, "min");
  rtAppendBound(pRc, pR, i+1, pOut, "max");
  docextBsonAppendString(pRc, pOut, DOC_STRING, "from", 4, zFrom, (int)strlen(zFrom));
  docextBsonAppendString(pRc, pOut, DOC_STRING, "to", 2, zTo, (int)strlen(zTo));
  docextBsonAppendInt64(pRc, pOut, "docs", 4, nDocs);
  docextBsonEndDoc(pRc, pOut, iStart);
}

/* doc_move_chunk(coll, find, shard): move the chunk holding find's key. */
static void rtMoveFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocRouter *pR = 0;
  DocBuf arg, out;
  const u8 *aFind = 0;
  const char *zTo = (const char*)sqlite3_value_text(argv[2]);
  char *zErr = 0;
  int rc, bSave = 0, i = 0, iTo = -1, iFrom = 0, bClean = 0;
  i64 nDocs = 0;
  (void)argc;
  memset(&arg, 0, sizeof(arg));
  memset(&out, 0, sizeof(out));
  rc = rtOpenArg(pConn, argv[0], &pR, &zErr);
  if( rc==SQLITE_OK ) rc = rtDocArg(argv[1], "a document of the chunk's range", &arg, &aFind,
                                    &zErr);
  if( rc==SQLITE_OK ){
    iTo = rtShardIndex(pR, zTo);
    if( iTo<0 || !pR->aShard[iTo].bShard ){
      rc = docextError(&zErr, "docext: no shard named %s", zTo ? zTo : "NULL");
    }
  }
  if( rc==SQLITE_OK ){
    bClean = rtCanClean(pR);
    rc = rtBegin(pR, &bSave);
  }
  if( rc==SQLITE_OK ) rc = rtCleanup(pR, bClean, &zErr);
  if( rc==SQLITE_OK ) rc = rtDocKey(pR, aFind, 0, &zErr);
  if( rc==SQLITE_OK ){
    i = rtChunkOf(pR, pR->docKey.a, (int)pR->docKey.n);
    iFrom = pR->aChunk[i].iOwner;
    rc = rtMove(pR, i, iTo, &nDocs, &zErr);
  }
  rc = pR ? rtEnd(pR, bSave, rc) : rc;
  if( rc==SQLITE_OK ){
    i64 iStart = docextBsonStartDoc(&rc, &out);
    rtAppendMove(&rc, pR, i, iFrom, nDocs, &out, "moved");
    docextBsonEndDoc(&rc, &out, iStart);
  }
  rtResultJson(ctx, rc, &out, zErr);
  docextRouterFree(pR);
  docextBufFree(&arg);
  docextBufFree(&out);
}

/* doc_balance(coll): move chunks from the shard with the most to the one
** with the fewest until their counts differ by at most one (chunks still
** moving stay where they are). */
static void rtBalanceFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocRouter *pR = 0;
  DocBuf out;
  int *anChunk = 0;
  char *zErr = 0;
  int rc, bSave = 0, nMove = 0, i, bClean = 0;
  i64 iArr = 0, iStart = 0;
  (void)argc;
  memset(&out, 0, sizeof(out));
  rc = rtOpenArg(pConn, argv[0], &pR, &zErr);
  if( rc==SQLITE_OK ){
    bClean = rtCanClean(pR);
    rc = rtBegin(pR, &bSave);
  }
  if( rc==SQLITE_OK ) rc = rtCleanup(pR, bClean, &zErr);
  if( rc==SQLITE_OK ){
    anChunk = sqlite3_malloc64(sizeof(int)*((u64)pR->nShard+1));
    if( anChunk==0 ) rc = SQLITE_NOMEM;
    iStart = docextBsonStartDoc(&rc, &out);
    iArr = docextBsonStartChild(&rc, &out, DOC_ARRAY, "migrations", 10);
  }
  while( rc==SQLITE_OK && nMove<=pR->nChunk ){
    int iMost = -1, iLeast = -1, iMove = -1, iFrom;
    i64 nDocs = 0;
    char zIdx[16];
    memset(anChunk, 0, sizeof(int)*pR->nShard);
    for(i=0; i<pR->nChunk; i++) anChunk[pR->aChunk[i].iOwner]++;
    for(i=0; i<pR->nShard; i++){
      if( !pR->aShard[i].bShard ) continue;
      if( iMost<0 || anChunk[i]>anChunk[iMost] ) iMost = i;
      if( iLeast<0 || anChunk[i]<anChunk[iLeast] ) iLeast = i;
    }
    if( iMost<0 || anChunk[iMost]-anChunk[iLeast]<2 ) break;
    /* the donor's last chunk that can move */
    for(i=pR->nChunk-1; i>=0 && iMove<0; i--){
      if( pR->aChunk[i].iOwner==iMost && pR->aChunk[i].iPrev<0 && !pR->aChunk[i].bJumbo ){
        iMove = i;
      }
    }
    if( iMove<0 ) break;
    iFrom = pR->aChunk[iMove].iOwner;
    rc = rtMove(pR, iMove, iLeast, &nDocs, &zErr);
    if( rc==SQLITE_OK ){
      docextBsonArrayKey(zIdx, nMove);
      rtAppendMove(&rc, pR, iMove, iFrom, nDocs, &out, zIdx);
      nMove++;
    }
  }
  rc = pR ? rtEnd(pR, bSave, rc) : rc;
  if( rc==SQLITE_OK ){
    i64 iBy;
    docextBsonEndDoc(&rc, &out, iArr);
    iBy = docextBsonStartChild(&rc, &out, DOC_DOCUMENT, "chunksByShard", 13);
    for(i=0; i<pR->nShard; i++){
      if( pR->aShard[i].bShard ){
        docextBsonAppendInt64(&rc, &out, pR->aShard[i].zName,
                              (int)strlen(pR->aShard[i].zName), anChunk[i]);
      }
    }
    docextBsonEndDoc(&rc, &out, iBy);
    docextBsonEndDoc(&rc, &out, iStart);
  }
  rtResultJson(ctx, rc, &out, zErr);
  sqlite3_free(anChunk);
  docextRouterFree(pR);
  docextBufFree(&out);
}

/*------------------------------------------------------------------------
** SELECT * FROM doc_chunks('books'): min, max, shard, docs, bytes, jumbo
** (docs and bytes measured in the owner's partition)
*/

typedef struct ChunksRow ChunksRow;
struct ChunksRow {
  char *zMin, *zMax;        /* the bounds, relaxed Extended JSON */
  const char *zShard;       /* (in the cursor's router) */
  i64 nDocs, nBytes;
  int bJumbo;
};

typedef struct ChunksCursor ChunksCursor;
struct ChunksCursor {
  sqlite3_vtab_cursor base;
  DocRouter *pR;
  ChunksRow *aRow;
  int nRow, iRow;
};

#define CHUNKS_COLL 6       /* the hidden argument column */

static int chunksConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                         sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return docextTvfConnect(db, "CREATE TABLE x(min, max, shard, docs, bytes, jumbo,"
                          " coll HIDDEN)", DOCEXT_VTAB_DIRECTONLY, pAux, ppVtab);
}

static int chunksBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  return docextTvfBestIndex(pInfo, CHUNKS_COLL, 10);
}

static int chunksOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  ChunksCursor *p = docextMallocZero(sizeof(*p));
  (void)pVtab;
  if( p==0 ) return SQLITE_NOMEM;
  *ppCur = &p->base;
  return SQLITE_OK;
}

static void chunksReset(ChunksCursor *p){
  int i;
  for(i=0; i<p->nRow; i++){
    sqlite3_free(p->aRow[i].zMin);
    sqlite3_free(p->aRow[i].zMax);
  }
  sqlite3_free(p->aRow);
  docextRouterFree(p->pR);
  p->pR = 0;
  p->aRow = 0;
  p->nRow = p->iRow = 0;
}

static int chunksClose(sqlite3_vtab_cursor *pCur){
  chunksReset((ChunksCursor*)pCur);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* Bound i of the router (i==nChunk: MaxKey) as relaxed JSON text. */
static char *chunksBound(int *pRc, DocRouter *pR, int i){
  DocBuf doc, text;
  DocValue v;
  char *z = 0;
  memset(&doc, 0, sizeof(doc));
  memset(&text, 0, sizeof(text));
  {
    i64 iStart = docextBsonStartDoc(pRc, &doc);
    rtAppendBound(pRc, pR, i, &doc, "b");
    docextBsonEndDoc(pRc, &doc, iStart);
  }
  if( *pRc==SQLITE_OK && docextBsonFind(doc.a, "b", 1, &v) ){
    docextJsonWriteDoc(pRc, &text, v.p, DOCEXT_JSON_RELAXED);
    z = docextBufDetachText(pRc, &text);
  }
  docextBufFree(&doc);
  docextBufFree(&text);
  return z;
}

static int chunksFilter(sqlite3_vtab_cursor *pCur, int idxNum, const char *idxStr,
                        int argc, sqlite3_value **argv){
  ChunksCursor *pC = (ChunksCursor*)pCur;
  DocConn *pConn = (DocConn*)docextTvfAux(pCur->pVtab);
  RtList list;
  char *zErr = 0;
  int rc, i;
  (void)idxStr;
  chunksReset(pC);
  memset(&list, 0, sizeof(list));
  if( idxNum==0 || argc<1 ){
    rc = docextError(&zErr, "docext: doc_chunks needs a collection name");
  }else{
    rc = rtOpenArg(pConn, argv[0], &pC->pR, &zErr);
  }
  if( rc==SQLITE_OK ){
    pC->aRow = docextMallocZero(sizeof(ChunksRow)*((i64)pC->pR->nChunk));
    if( pC->aRow==0 ) rc = SQLITE_NOMEM;
  }
  for(i=0; rc==SQLITE_OK && i<pC->pR->nChunk; i++){
    DocRouter *pR = pC->pR;
    ChunksRow *pRow = &pC->aRow[pC->nRow++];
    int iOwner = pR->aChunk[i].iOwner;
    pRow->zMin = chunksBound(&rc, pR, i);
    pRow->zMax = chunksBound(&rc, pR, i+1);
    pRow->zShard = pR->aShard[iOwner].zName;
    pRow->bJumbo = pR->aChunk[i].bJumbo;
    if( rc==SQLITE_OK ) rc = rtList(pR, i, iOwner, &list, &zErr);
    pRow->nDocs = list.n;
    pRow->nBytes = list.nBytes;
  }
  rtListFree(&list);
  if( rc!=SQLITE_OK ) docextVtabError(pCur->pVtab, rc, zErr);
  return rc;
}

static int chunksNext(sqlite3_vtab_cursor *pCur){
  ((ChunksCursor*)pCur)->iRow++;
  return SQLITE_OK;
}

static int chunksEof(sqlite3_vtab_cursor *pCur){
  ChunksCursor *p = (ChunksCursor*)pCur;
  return p->iRow>=p->nRow;
}

static int chunksColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int iCol){
  ChunksCursor *p = (ChunksCursor*)pCur;
  const ChunksRow *pRow = &p->aRow[p->iRow];
  switch( iCol ){
    case 0: sqlite3_result_text(ctx, pRow->zMin, -1, SQLITE_TRANSIENT); break;
    case 1: sqlite3_result_text(ctx, pRow->zMax, -1, SQLITE_TRANSIENT); break;
    case 2: sqlite3_result_text(ctx, pRow->zShard, -1, SQLITE_TRANSIENT); break;
    case 3: sqlite3_result_int64(ctx, pRow->nDocs); break;
    case 4: sqlite3_result_int64(ctx, pRow->nBytes); break;
    case 5: sqlite3_result_int(ctx, pRow->bJumbo); break;
  }
  return SQLITE_OK;
}

static int chunksRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid){
  *pRowid = ((ChunksCursor*)pCur)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module chunksModule = {
  0, 0, chunksConnect, chunksBestIndex, docextTvfDisconnect, 0,
  chunksOpen, chunksClose, chunksFilter, chunksNext, chunksEof, chunksColumn, chunksRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
#if SQLITE_VERSION_NUMBER>=3044000
  0,
#endif
};

int docextRouterCreateIndex(DocRouter *pR, const u8 *aKeys, const u8 *aOpt, char **pzName,
                            char **pzErr){
  int bSave = 0, i;
  int rc = rtBegin(pR, &bSave);
  if( rc==SQLITE_OK ) rc = docextIndexCreate(pR->pHome, aKeys, aOpt, pzName, pzErr);
  if( rc==SQLITE_OK ) rc = rtUniqueCheckAll(pR, *pzName, pzErr);
  for(i=0; rc==SQLITE_OK && i<pR->nShard; i++){
    if( pR->aShard[i].bShard && !pR->aShard[i].bHome ) rc = rtEnsurePartition(pR, i, pzErr);
  }
  rc = rtEnd(pR, bSave, rc);
  if( rc!=SQLITE_OK ){
    sqlite3_free(*pzName);
    *pzName = 0;
  }
  return rc;
}

/* doc_explain's object for a routed run: as MongoDB's mongos wrote it
** (version 2.x, whose explain format docext follows): each shard's own under
** "shards", then the first shard's plan with the counts of all of them. */
static void rtExplain(int *pRc, DocRouted *p, i64 nMillis, DocBuf *pJson){
  DocBuf head, tail;
  DocQueryStats sum, st;
  double rTotal = 0;
  i64 nOrphans = 0;
  int i, nRun = 0;
  DocQuery *pFirst = 0;
  memset(&head, 0, sizeof(head));
  memset(&tail, 0, sizeof(tail));
  memset(&sum, 0, sizeof(sum));
  sum.bIndexOnly = 1;
  for(i=0; i<p->nPart; i++) nRun += p->aPart[i].pQuery!=0;
  /* (chunk order reads the shards one after another) */
  docextBufAppendf(pRc, &head, "\"clusteredType\":\"%s\",\"shards\":{",
                   nRun>1 && p->aSeq==0 ? "ParallelSort" : "SerialServer");
  for(i=0; i<p->nPart; i++){
    RtPart *pP = &p->aPart[i];
    const char *zName = p->pR->aShard[pP->iShard].zName;
    if( pP->pQuery==0 ) continue;         /* (never reached) */
    docextQueryStats(pP->pQuery, &st);
    st.nReturned = pP->nOwned;
    if( pFirst ) docextBufAppendStr(pRc, &head, ",");
    else pFirst = pP->pQuery;
    docextJsonWriteString(pRc, &head, zName, (int)strlen(zName));
    docextBufAppendStr(pRc, &head, ":[");
    docextPlanExplainWrite(pRc, &head, docextQueryPlan(pP->pQuery), &st, (i64)pP->rMillis,
                           0, 0);
    docextBufAppendStr(pRc, &head, "]");
    sum.nKeys += st.nKeys;
    sum.nDocs += st.nDocs;
    sum.bSortInMemory |= st.bSortInMemory;
    sum.bIndexOnly &= st.bIndexOnly;
    nOrphans += pP->nOrphans;
    rTotal += pP->rMillis;
  }
  docextBufAppendStr(pRc, &head, "},");
  sum.nReturned = p->nReturned;
  docextBufAppendf(pRc, &tail, ",\"nChunkSkips\":%lld,\"millisShardTotal\":%lld"
                   ",\"millisShardAvg\":%lld,\"numQueries\":%d,\"numShards\":%d",
                   nOrphans, (i64)rTotal, (i64)(rTotal/nRun), nRun, p->nPart);
  if( pFirst && docextQueryText(pFirst) ) docextTextExplain(docextQueryText(pFirst), pRc, &tail);
  docextBufAppend(pRc, &head, "", 1);
  docextBufAppend(pRc, &tail, "", 1);
  if( *pRc==SQLITE_OK ){
    docextPlanExplainWrite(pRc, pJson, docextQueryPlan(pFirst), &sum, nMillis,
                           (const char*)head.a, (const char*)tail.a);
  }
  docextBufFree(&head);
  docextBufFree(&tail);
}

/* doc_count of a sharded collection without reading documents: the sum of
** each targeted shard's own count (index keys alone, where its plan
** allows), when no such shard holds an orphan in a targeted chunk, so
** that every document it counts is one of the chunks it owns (a document
** the filter matches has its key in a targeted chunk). *pbDone is 0 when
** it cannot tell, and the router then reads each candidate's key. */
static int rtCount(DocRouter *pR, const DocQuerySpec *pSpec, i64 *pnCount, int *pbDone,
                   char **pzErr){
  DocQuerySpec spec = *pSpec;
  u8 *aOn = sqlite3_malloc64((u64)pR->nChunk + pR->nShard + 1), *aShardOn;
  int rc = aOn ? SQLITE_OK : SQLITE_NOMEM, bTargeted = 0, bAny = 0, i;
  *pbDone = 0;
  if( rc==SQLITE_OK ){
    rc = rtTarget(pR, spec.aaFilter, spec.nFilter, spec.aOptions, aOn, &bTargeted, pzErr);
  }
  if( rc==SQLITE_OK ){
    aShardOn = &aOn[pR->nChunk];
    /* (none targeted: the router's own way, which reports the query's errors) */
    bAny = rtOwnersOf(pR, aOn, aShardOn);
    for(i=0; rc==SQLITE_OK && bAny && i<pR->nShard; i++){
      if( aShardOn[i] ) rc = rtNoOrphans(pR, i, aOn, &bAny, pzErr);
    }
    if( spec.nowMs==0 ) spec.nowMs = docextClockNowMs();     /* (every shard's) */
    for(i=0; rc==SQLITE_OK && bAny && i<pR->nShard; i++){
      DocColl *pColl = 0;
      i64 n = 0;
      if( !aShardOn[i] ) continue;
      rc = rtShardColl(pR, i, &pColl, pzErr);
      if( rc==SQLITE_OK ) rc = docextPlanRunQuery(pColl, &spec, 0, 0, 0, &n, 0, pzErr);
      *pnCount += n;
    }
    *pbDone = rc==SQLITE_OK && bAny;
  }
  sqlite3_free(aOn);
  return rc;
}

int docextRouterRun(DocRouter *pR, const DocQuerySpec *pSpec, int bRead,
                    DocPlanVisitor xDoc, void *pDocCtx, i64 *pnCount, DocBuf *pJson,
                    char **pzErr){
  DocStore *pStore = docextCollStore(pR->pHome);
  DocRouted *p = 0;
  DocAccess access;
  double t0 = docextPlanNowMs();
  int bSave = 0, rc;
  *pnCount = 0;
  docextAccessInit(&access);
  rc = docextStorageSnapshot(pStore, &bSave);      /* one snapshot for every shard */
  if( rc!=SQLITE_OK ){
    docextRouterFree(pR);
    return rc;
  }
  if( !bRead && pJson==0 && pSpec->bCountOnly && pSpec->aSort==0 && pSpec->aOptions==0
   && pSpec->nLimit<0 && pSpec->nOffset==0 ){
    /* a plain count (doc_count) */
    int bDone = 0;
    rc = rtCount(pR, pSpec, pnCount, &bDone, pzErr);
    if( rc!=SQLITE_OK || bDone ){
      docextRouterFree(pR);
      if( bSave ) rc = docextStorageSavepointEnd(pStore, rc);
      return rc;
    }
    *pnCount = 0;
  }
  rc = docextRoutedNew(pR, pSpec, &access, &p, pzErr);
  while( rc==SQLITE_OK && !docextRoutedEof(p) ){
    if( bRead ){
      const u8 *aDoc;
      rc = docextQueryResult(docextRoutedQuery(p), &aDoc, pzErr);
      if( rc==SQLITE_OK && xDoc ) rc = xDoc(pDocCtx, aDoc, pzErr);
      if( rc!=SQLITE_OK ) break;
    }
    (*pnCount)++;
    rc = docextRoutedNext(p, pzErr);
  }
  if( rc==SQLITE_OK && pJson ) rtExplain(&rc, p, (i64)(docextPlanNowMs() - t0), pJson);
  docextRoutedFree(p);
  docextAccessClear(&access);
  if( bSave ) rc = docextStorageSavepointEnd(pStore, rc);
  return rc;
}

int docextRegisterRouterFunctions(sqlite3 *db, DocConn *pConn){
  /* They read and write any collection they are named: never from a
  ** schema's triggers or views. */
  enum { F = SQLITE_UTF8|SQLITE_DIRECTONLY };
  static const DocFuncDef aFunc[] = {
    { "doc_add_shard",        1, F, rtAddShardFunc },
    { "doc_shard_collection", 2, F, rtShardCollectionFunc },
    { "doc_shard_collection", 3, F, rtShardCollectionFunc },
    { "doc_route",            2, F, rtRouteFunc },
    { "doc_split_chunk",      2, F, rtSplitFunc },
    { "doc_move_chunk",       3, F, rtMoveFunc },
    { "doc_balance",          1, F, rtBalanceFunc },
  };
  int rc = docextCreateFunctions(db, pConn, aFunc, DOCEXT_COUNT(aFunc));
  if( rc==SQLITE_OK ) rc = sqlite3_create_module(db, "doc_chunks", &chunksModule, pConn);
  return rc;
}
