/*
** docext_shard.c — sharding (INTERFACE.md §6). So far its analyzer:
**
**   doc_analyze_shard_key(coll, key [, options])
**
** How a candidate shard key would serve a collection as it is now, by the
** five criteria of a good shard key (cardinality, write distribution, read
** distribution, read targeting, read locality), with the names MongoDB
** 7.0's analyzeShardKey reports. The key is a pattern of fields, each 1 or
** "hashed" (at most one); options are {shards: n (default 2), chunkSize:
** bytes, queries: [...]}, a query being a filter or {filter, sort, limit}.
**
** The analysis simulates the collection sharded by the key:
**   KEYS        each document's shard key is encoded as an index key
**               (docext_index.c: a missing field is null, a hashed field
**               its 64-bit hash), so keys sort in MongoDB's order; a shard
**               key field may not hold an array, as in MongoDB.
**   CHUNKS      the documents in key order are cut into chunks of at most
**               chunkSize bytes (default: the collection's size over sixteen
**               chunks per shard) at boundaries between key values, so a
**               chunk never splits one value: a value whose documents
**               alone exceed chunkSize gets a chunk of its own, which can
**               never split (jumbo). Chunks go to shards in contiguous
**               runs holding equal shares of the data, as a balancer
**               would leave them.
**   WRITES      the collection's inserts replayed: chunks are cut from the
**               documents inserted first (the earlier half, by document
**               id), and the later half's keys routed to those chunks; the
**               share of the hottest shard shows a monotonic key (all to
**               the last chunk) against a spread one.
**   READS       each query's filter is turned into shard-key ranges by the
**               planner (docextPlanKeyRanges, as an index on the key would
**               be bounded): no bound on the key's leading field sends it
**               to every shard (scatter/gather), else to the shards owning
**               the chunks its ranges meet (one: single shard; more: multi
**               shard).
**   LOCALITY    a query with a limit is run, and the shards holding the
**               documents it returns counted (the latest 10 posts of a
**               user on one shard or two).
** Everything is read in one snapshot; the router that will act on these
** chunks is still to come.
*/
#include "docextInt.h"
#include <math.h>
#include <string.h>

#define SK_DEFAULT_SHARDS     2
#define SK_MAX_SHARDS         1024
#define SK_MAX_QUERIES        100000
#define SK_CHUNKS_PER_SHARD   16    /* default chunk size: size / (shards * this) */
#define SK_COMMON_VALUES      5     /* mostCommonValues, as MongoDB's default */
#define SK_MONOTONIC          0.7   /* |correlation| from which a key is monotonic */

/* One document of the collection, in scan (document id, insertion) order. */
typedef struct SkDoc SkDoc;
struct SkDoc {
  i64 iKey;                 /* its shard key, in Analysis.keys */
  int nKey;
  i64 iVal;                 /* its shard-key values as a document, in
                            ** Analysis.vals (for mostCommonValues) */
  i64 nBytes;               /* its size as BSON */
};

/* A chunk of a simulated layout: keys from its lower bound up to the next
** chunk's. The first chunk's bound is MinKey (nLo 0: below every key). */
typedef struct SkChunk SkChunk;
struct SkChunk {
  DocChunkBound lo;         /* lower bound, in Analysis.keys */
  i64 nDocs, nBytes;
  int bJumbo;               /* one key value, over chunkSize: cannot split */
  int iShard;
};

typedef struct SkLayout SkLayout;
struct SkLayout {
  SkChunk *a;
  int n, nAlloc;
};

/* A set of small integers (shards, chunks) cleared in the time it took
** to fill it. */
typedef struct SkMarks SkMarks;
struct SkMarks {
  u8 *aOn;                  /* per member: in the set */
  int *aList;               /* the members, in the order added */
  int n;
};

typedef struct Analysis Analysis;
struct Analysis {
  DocConn *pConn;           /* (a sharded collection is read through its router) */
  DocIndex key;             /* the shard key as an index key pattern */
  int nShard;
  i64 nChunkSize;           /* 0 until known: the default is derived */
  DocValue queries;         /* the queries option (an array), or type 0 */
  DocBuf keys;              /* every document's key, back to back */
  DocBuf vals;              /* every document's shard-key values */
  SkDoc *aDoc;
  int nDoc, nDocAlloc;
  i64 nBytes;               /* the documents' total size */
  int *aSorted;             /* aDoc indexes in key order (ties: insertion) */
  SkLayout layout;          /* chunks of every document */
  SkMarks shards;           /* scratch: shards a query reaches */
  SkMarks chunks;           /* scratch: chunks a query reaches */
  DocIndexScratch *pKeyGen; /* the key generator's memory, kept from
                            ** document to document */
};

static int skKeyCmp(const Analysis *p, i64 iA, int nA, i64 iB, int nB){
  return docextKeyCmp(&p->keys.a[iA], nA, &p->keys.a[iB], nB);
}

static int skDocCmp(void *pCtx, const void *x, const void *y){
  Analysis *p = (Analysis*)pCtx;
  const SkDoc *a = &p->aDoc[*(const int*)x], *b = &p->aDoc[*(const int*)y];
  return skKeyCmp(p, a->iKey, a->nKey, b->iKey, b->nKey);
}

/* The end of the run of equal keys that starts at aIdx[i] (aDoc indexes
** in key order, n of them). */
static int skGroupEnd(const Analysis *p, const int *aIdx, int n, int i){
  const SkDoc *d = &p->aDoc[aIdx[i]];
  int j = i+1;
  while( j<n && skKeyCmp(p, p->aDoc[aIdx[j]].iKey, p->aDoc[aIdx[j]].nKey,
                         d->iKey, d->nKey)==0 ) j++;
  return j;
}

/*------------------------------------------------------------------------
** Reading the collection
*/

/* Append one document: its key, its key values and its size. */
static int skAddDoc(void *pCtx, const u8 *aDoc, char **pzErr){
  Analysis *p = (Analysis*)pCtx;
  SkDoc *d;
  int rc, j;
  i64 iStart;
  rc = docextShardKeyCheck(&p->key, aDoc, 0, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  if( p->nDoc>=p->nDocAlloc ){
    int nNew = p->nDocAlloc ? p->nDocAlloc*2 : 256;
    SkDoc *aNew = sqlite3_realloc64(p->aDoc, sizeof(SkDoc)*(u64)nNew);
    if( aNew==0 ) return SQLITE_NOMEM;
    p->aDoc = aNew;
    p->nDocAlloc = nNew;
  }
  d = &p->aDoc[p->nDoc];
  d->iKey = (i64)p->keys.n;
  /* (no array on the key's paths: exactly one key) */
  rc = docextIndexFirstKey(&p->key, aDoc, &p->keys, &p->pKeyGen, pzErr);
  if( rc==SQLITE_OK ){
    d->nKey = (int)(p->keys.n - d->iKey);
    d->nBytes = docextGetI32(aDoc);
    d->iVal = (i64)p->vals.n;
    iStart = docextBsonStartDoc(&rc, &p->vals);
    for(j=0; j<p->key.nField; j++){
      const char *z = p->key.azPath[j];
      DocValue v;
      if( docextPathGet(aDoc, z, (int)strlen(z), &v) ){
        docextBsonAppendValue(&rc, &p->vals, z, (int)strlen(z), &v);
      }else{
        docextBsonAppendNull(&rc, &p->vals, z, (int)strlen(z));
      }
    }
    docextBsonEndDoc(&rc, &p->vals, iStart);
  }
  if( rc==SQLITE_OK ){
    p->nBytes += d->nBytes;
    p->nDoc++;
  }
  return rc;
}

/* Read every document, then sort them by key. */
static int skLoad(Analysis *p, DocColl *pColl, char **pzErr){
  DocQuerySpec spec;
  void *aTmp;
  i64 n = 0;
  int rc, i;
  docextQuerySpecInit(&spec);
  rc = docextPlanRun(p->pConn, pColl, &spec, 1, skAddDoc, p, &n, 0, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  p->aSorted = sqlite3_malloc64(sizeof(int)*((u64)p->nDoc+1));
  aTmp = sqlite3_malloc64(sizeof(int)*((u64)p->nDoc+1));
  if( p->aSorted==0 || aTmp==0 ){
    sqlite3_free(aTmp);
    return SQLITE_NOMEM;
  }
  for(i=0; i<p->nDoc; i++) p->aSorted[i] = i;
  docextSort(p->aSorted, p->nDoc, sizeof(int), aTmp, skDocCmp, p);   /* stable */
  sqlite3_free(aTmp);
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Chunks
*/

static SkChunk *skChunkNew(SkLayout *pL, i64 iLo, int nLo){
  SkChunk *c;
  if( pL->n>=pL->nAlloc ){
    int nNew = pL->nAlloc ? pL->nAlloc*2 : 16;
    SkChunk *aNew = sqlite3_realloc64(pL->a, sizeof(SkChunk)*(u64)nNew);
    if( aNew==0 ) return 0;
    pL->a = aNew;
    pL->nAlloc = nNew;
  }
  c = &pL->a[pL->n++];
  memset(c, 0, sizeof(*c));
  c->lo.iLo = iLo;
  c->lo.nLo = nLo;
  return c;
}

/* Cut documents aIdx[0..n) (aDoc indexes in key order) into chunks of at
** most chunkSize bytes, never between two documents of one key value, and
** hand them to the shards in contiguous runs. */
static int skSplit(Analysis *p, const int *aIdx, int n, SkLayout *pL){
  SkChunk *c = skChunkNew(pL, 0, 0);
  int i = 0, k;
  if( c==0 ) return SQLITE_NOMEM;
  while( i<n ){
    const SkDoc *d = &p->aDoc[aIdx[i]];
    int j = skGroupEnd(p, aIdx, n, i), nGroupDocs = j - i;
    i64 nGroupBytes = 0;
    for(k=i; k<j; k++) nGroupBytes += p->aDoc[aIdx[k]].nBytes;
    if( c->nDocs>0 && (c->nBytes + nGroupBytes > p->nChunkSize || c->bJumbo) ){
      c = skChunkNew(pL, d->iKey, d->nKey);
      if( c==0 ) return SQLITE_NOMEM;
    }
    c->nBytes += nGroupBytes;
    c->nDocs += nGroupDocs;
    /* (a chunk holds one value when it was empty before this group) */
    if( nGroupBytes>p->nChunkSize && c->nDocs==nGroupDocs ) c->bJumbo = 1;
    i = j;
  }
  /* Shard s takes the chunks whose middle byte lies in the s-th of nShard
  ** equal shares of the data: contiguous runs, balanced by size as
  ** MongoDB's balancer balances them (by count when there is no data). */
  {
    i64 nTotal = 0, nBefore = 0;
    for(k=0; k<pL->n; k++) nTotal += pL->a[k].nBytes;
    for(k=0; k<pL->n; k++){
      SkChunk *pC = &pL->a[k];
      double f = nTotal>0 ? (nBefore + pC->nBytes/2.0) / (double)nTotal
                          : (k + 0.5) / pL->n;
      pC->iShard = (int)(f * p->nShard);
      if( pC->iShard>=p->nShard ) pC->iShard = p->nShard - 1;
      nBefore += pC->nBytes;
    }
  }
  return SQLITE_OK;
}

/* The chunk of pL that holds key aKey[0..nKey): the last whose lower bound
** is not above it. */
static int skChunkOf(const Analysis *p, const SkLayout *pL, const u8 *aKey, int nKey){
  return docextChunkOf(p->keys.a, pL->a, pL->n, sizeof(SkChunk), aKey, nKey);
}

static int skMarksInit(SkMarks *pM, int nMax){
  pM->aOn = sqlite3_malloc64((u64)nMax + 1);
  pM->aList = sqlite3_malloc64(sizeof(int)*((u64)nMax + 1));
  if( pM->aOn==0 || pM->aList==0 ) return SQLITE_NOMEM;
  memset(pM->aOn, 0, (size_t)nMax + 1);
  pM->n = 0;
  return SQLITE_OK;
}

static void skMarksFree(SkMarks *pM){
  sqlite3_free(pM->aOn);
  sqlite3_free(pM->aList);
}

static void skMarksClear(SkMarks *pM){
  int i;
  for(i=0; i<pM->n; i++) pM->aOn[pM->aList[i]] = 0;
  pM->n = 0;
}

static void skMark(SkMarks *pM, int i){
  if( !pM->aOn[i] ){
    pM->aOn[i] = 1;
    pM->aList[pM->n++] = i;
  }
}

/*------------------------------------------------------------------------
** The report, as BSON, rendered as relaxed Extended JSON at the end
*/

static double skPercent(i64 n, i64 nAll){
  return nAll>0 ? floor(10000.0 * (double)n / (double)nAll + 0.5) / 100.0 : 0.0;
}

static void skAppendStr(int *pRc, DocBuf *pOut, const char *zKey, const char *z){
  docextBsonAppendString(pRc, pOut, DOC_STRING, zKey, (int)strlen(zKey), z, (int)strlen(z));
}

static void skAppendI64(int *pRc, DocBuf *pOut, const char *zKey, i64 v){
  docextBsonAppendInt64(pRc, pOut, zKey, (int)strlen(zKey), v);
}

static void skAppendDouble(int *pRc, DocBuf *pOut, const char *zKey, double v){
  docextBsonAppendDouble(pRc, pOut, zKey, (int)strlen(zKey), v);
}

/* An array of the counts a[0..n). */
static void skAppendCounts(int *pRc, DocBuf *pOut, const char *zKey, const i64 *a, int n){
  i64 iArr = docextBsonStartChild(pRc, pOut, DOC_ARRAY, zKey, (int)strlen(zKey));
  char zIdx[16];
  int i;
  for(i=0; i<n; i++){
    int nIdx = docextBsonArrayKey(zIdx, i);
    docextBsonAppendInt64(pRc, pOut, zIdx, nIdx, a[i]);
  }
  docextBsonEndDoc(pRc, pOut, iArr);
}

/* The shards marked, ascending, as an array. */
static void skAppendMarked(int *pRc, Analysis *p, DocBuf *pOut, const char *zKey){
  i64 iArr = docextBsonStartChild(pRc, pOut, DOC_ARRAY, zKey, (int)strlen(zKey));
  char zIdx[16];
  int i, k = 0;
  for(i=0; i<p->nShard; i++){
    if( p->shards.aOn[i] ){
      int nIdx = docextBsonArrayKey(zIdx, k++);
      docextBsonAppendInt32(pRc, pOut, zIdx, nIdx, i);
    }
  }
  docextBsonEndDoc(pRc, pOut, iArr);
}

static i64 skDistinctCount(const Analysis *p){
  i64 nDistinct = 0;
  int i;
  for(i=0; i<p->nDoc; i=skGroupEnd(p, p->aSorted, p->nDoc, i)) nDistinct++;
  return nDistinct;
}

/* The values most documents share: the first SK_COMMON_VALUES runs of
** equal keys by length (ties: key order). */
static void skCommonValues(int *pRc, Analysis *p, DocBuf *pOut){
  int aTop[SK_COMMON_VALUES];          /* where each run starts in aSorted */
  i64 anTop[SK_COMMON_VALUES];
  int nTop = 0, i, j, k;
  i64 iArr;
  char zIdx[16];
  for(i=0; i<p->nDoc; i=j){
    j = skGroupEnd(p, p->aSorted, p->nDoc, i);
    for(k=nTop; k>0 && anTop[k-1]<(i64)(j-i); k--){
      if( k<SK_COMMON_VALUES ){ aTop[k] = aTop[k-1]; anTop[k] = anTop[k-1]; }
    }
    if( k<SK_COMMON_VALUES ){
      aTop[k] = i;
      anTop[k] = j-i;
      if( nTop<SK_COMMON_VALUES ) nTop++;
    }
  }
  iArr = docextBsonStartChild(pRc, pOut, DOC_ARRAY, "mostCommonValues", 16);
  for(k=0; k<nTop && *pRc==SQLITE_OK; k++){
    const SkDoc *d = &p->aDoc[p->aSorted[aTop[k]]];
    int nIdx = docextBsonArrayKey(zIdx, k);
    i64 iElem = docextBsonStartChild(pRc, pOut, DOC_DOCUMENT, zIdx, nIdx);
    docextBsonAppendKey(pRc, pOut, DOC_DOCUMENT, "value", 5);
    docextBufAppend(pRc, pOut, &p->vals.a[d->iVal], docextGetI32(&p->vals.a[d->iVal]));
    skAppendI64(pRc, pOut, "frequency", anTop[k]);
    docextBsonEndDoc(pRc, pOut, iElem);
  }
  docextBsonEndDoc(pRc, pOut, iArr);
}

/* Monotonicity: the correlation of insertion order with key order (ranks,
** ties sharing their mean rank): near 1 or -1 when every new document's
** key is above (below) the ones before it. */
static void skMonotonicity(int *pRc, Analysis *p, DocBuf *pOut){
  double *aRank, mx, my, sxy = 0.0, sxx = 0.0, syy = 0.0;
  i64 iSub = docextBsonStartChild(pRc, pOut, DOC_DOCUMENT, "monotonicity", 12);
  int i = 0;
  aRank = p->nDoc>=2 ? sqlite3_malloc64(sizeof(double)*(u64)p->nDoc) : 0;
  if( p->nDoc>=2 && aRank==0 ){
    *pRc = SQLITE_NOMEM;
    return;
  }
  while( i<p->nDoc ){
    int j = skGroupEnd(p, p->aSorted, p->nDoc, i), k;
    for(k=i; k<j; k++) aRank[p->aSorted[k]] = (i + j - 1) / 2.0;
    i = j;
  }
  mx = my = (p->nDoc - 1) / 2.0;
  for(i=0; i<p->nDoc; i++){
    double dx = i - mx, dy = aRank[i] - my;
    sxy += dx*dy;
    sxx += dx*dx;
    syy += dy*dy;
  }
  if( p->nDoc<2 || syy==0.0 ){
    skAppendStr(pRc, pOut, "type", "unknown");
  }else{
    double r = sxy / sqrt(sxx*syy);
    r = floor(r*10000.0 + 0.5) / 10000.0;
    skAppendStr(pRc, pOut, "type", fabs(r)>=SK_MONOTONIC ? "monotonic" : "not monotonic");
    skAppendDouble(pRc, pOut, "recordIdCorrelationCoefficient", r);
  }
  docextBsonEndDoc(pRc, pOut, iSub);
  sqlite3_free(aRank);
}

static int skKeyCharacteristics(Analysis *p, DocBuf *pOut){
  i64 nDistinct = 0, iSub, nJumbo = 0, nJumboDocs = 0;
  int rc = SQLITE_OK, k;
  iSub = docextBsonStartChild(&rc, pOut, DOC_DOCUMENT, "keyCharacteristics", 18);
  nDistinct = skDistinctCount(p);
  skAppendI64(&rc, pOut, "numDocs", p->nDoc);
  skAppendI64(&rc, pOut, "numDistinctValues", nDistinct);
  docextBsonAppendBool(&rc, pOut, "isUnique", 8, p->nDoc>0 && nDistinct==p->nDoc);
  skCommonValues(&rc, p, pOut);
  skMonotonicity(&rc, p, pOut);
  skAppendI64(&rc, pOut, "avgDocSizeBytes", p->nDoc ? (p->nBytes + p->nDoc/2) / p->nDoc : 0);
  for(k=0; k<p->layout.n; k++){
    if( p->layout.a[k].bJumbo ){
      nJumbo++;
      nJumboDocs += p->layout.a[k].nDocs;
    }
  }
  {
    i64 iJ = docextBsonStartChild(&rc, pOut, DOC_DOCUMENT, "jumbo", 5);
    skAppendI64(&rc, pOut, "chunkSize", p->nChunkSize);
    skAppendI64(&rc, pOut, "numChunks", p->layout.n);
    skAppendI64(&rc, pOut, "numJumboChunks", nJumbo);
    skAppendDouble(&rc, pOut, "percentageOfDocsInJumboChunks", skPercent(nJumboDocs, p->nDoc));
    docextBsonEndDoc(&rc, pOut, iJ);
  }
  docextBsonEndDoc(&rc, pOut, iSub);
  return rc;
}

/* Replay the inserts: chunks from the earlier half, the later half routed. */
static int skWriteDistribution(Analysis *p, DocBuf *pOut){
  SkLayout first;
  i64 *aCount, nMax = 0, iSub;
  int nFirst = p->nDoc/2, *aIdx, n = 0, i, rc = SQLITE_OK;
  memset(&first, 0, sizeof(first));
  aCount = sqlite3_malloc64(sizeof(i64)*(u64)p->nShard);
  aIdx = sqlite3_malloc64(sizeof(int)*((u64)nFirst+1));
  if( aCount==0 || aIdx==0 ) rc = SQLITE_NOMEM;
  if( rc==SQLITE_OK ){
    memset(aCount, 0, sizeof(i64)*p->nShard);
    for(i=0; i<p->nDoc; i++){
      if( p->aSorted[i]<nFirst ) aIdx[n++] = p->aSorted[i];
    }
    rc = skSplit(p, aIdx, n, &first);
  }
  for(i=nFirst; rc==SQLITE_OK && i<p->nDoc; i++){
    const SkDoc *d = &p->aDoc[i];
    int c = skChunkOf(p, &first, &p->keys.a[d->iKey], d->nKey);
    aCount[first.a[c].iShard]++;
  }
  if( rc==SQLITE_OK ){
    for(i=0; i<p->nShard; i++) if( aCount[i]>nMax ) nMax = aCount[i];
    iSub = docextBsonStartChild(&rc, pOut, DOC_DOCUMENT, "writeDistribution", 17);
    skAppendI64(&rc, pOut, "sampleSize", p->nDoc - nFirst);
    skAppendCounts(&rc, pOut, "insertsByShard", aCount, p->nShard);
    skAppendDouble(&rc, pOut, "percentageOfInsertsToHottestShard",
                   skPercent(nMax, p->nDoc - nFirst));
    docextBsonEndDoc(&rc, pOut, iSub);
  }
  sqlite3_free(first.a);
  sqlite3_free(aCount);
  sqlite3_free(aIdx);
  return rc;
}

/*------------------------------------------------------------------------
** Queries: targeting and locality
*/

typedef struct SkQuery SkQuery;
struct SkQuery {
  const u8 *aFilter;        /* (an empty document when none is given) */
  const u8 *aSort;          /* or NULL */
  i64 nLimit;               /* or -1 */
};

static const u8 aSkEmptyDoc[5] = {5, 0, 0, 0, 0};

/* A whole number in [lo, hi], or -1. */
static i64 skWholeNumber(const DocValue *v, double lo, double hi){
  double d = docextValueIsNumber(v) ? docextValueToDouble(v) : -1.0;
  return (d>=lo && d<=hi && d==floor(d)) ? (i64)d : -1;
}

/* A query of the option: a filter, or {filter, sort, limit}. */
static int skQueryParse(const DocValue *v, SkQuery *pQ, char **pzErr){
  DocIter it;
  DocValue f;
  memset(pQ, 0, sizeof(*pQ));
  pQ->nLimit = -1;
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: not a document");
  }
  if( !docextBsonFind(v->p, "filter", 6, &f) ){
    pQ->aFilter = v->p;
    return SQLITE_OK;
  }
  pQ->aFilter = aSkEmptyDoc;
  docextIterInit(&it, v->p);
  while( docextIterNext(&it) ){
    if( strcmp(it.zKey, "filter")==0 || strcmp(it.zKey, "sort")==0 ){
      if( it.v.type!=DOC_DOCUMENT ){
        return docextError(pzErr, "docext: %s must be a document", it.zKey);
      }
      if( it.zKey[0]=='f' ) pQ->aFilter = it.v.p; else pQ->aSort = it.v.p;
    }else if( strcmp(it.zKey, "limit")==0 ){
      pQ->nLimit = skWholeNumber(&it.v, 0, 9.0e15);
      if( pQ->nLimit<0 ){
        return docextError(pzErr, "docext: limit must be a non-negative whole number");
      }
    }else{
      return docextError(pzErr, "docext: unknown field '%s' (a query is a filter, or "
                         "{filter, sort, limit})", it.zKey);
    }
  }
  return SQLITE_OK;
}

/* Mark the chunks the plan's ranges meet, and their shards. */
static void skTargetMark(void *pCtx, int c){
  Analysis *p = (Analysis*)pCtx;
  skMark(&p->shards, p->layout.a[c].iShard);
  skMark(&p->chunks, c);
}

static void skTarget(Analysis *p, const DocPlan *pPlan){
  docextChunksMet(pPlan, p->keys.a, p->layout.a, p->layout.n, sizeof(SkChunk), skTargetMark, p);
}

typedef struct SkLocality SkLocality;
struct SkLocality {
  Analysis *p;
  i64 nDocs;
  DocBuf key;
};

static int skLocalityVisit(void *pCtx, const u8 *aDoc, char **pzErr){
  SkLocality *pL = (SkLocality*)pCtx;
  Analysis *p = pL->p;
  int rc;
  docextBufReset(&pL->key);
  rc = docextIndexFirstKey(&p->key, aDoc, &pL->key, &p->pKeyGen, pzErr);
  if( rc==SQLITE_OK && pL->key.n>0 ){
    skMark(&p->shards, p->layout.a[skChunkOf(p, &p->layout, pL->key.a, (int)pL->key.n)].iShard);
  }
  pL->nDocs++;
  return rc;
}

/* Run query pQ (it has a limit); mark the shards of what it returns. */
static int skLocality(Analysis *p, DocColl *pColl, const SkQuery *pQ, i64 *pnDocs,
                      char **pzErr){
  DocQuerySpec spec;
  SkLocality loc;
  i64 n = 0;
  int rc;
  memset(&loc, 0, sizeof(loc));
  loc.p = p;
  docextQuerySpecInit(&spec);
  spec.aaFilter[0] = pQ->aFilter;
  spec.nFilter = 1;
  spec.aSort = pQ->aSort;
  spec.nLimit = pQ->nLimit;
  rc = docextPlanRun(p->pConn, pColl, &spec, 1, skLocalityVisit, &loc, &n, 0, pzErr);
  docextBufFree(&loc.key);
  *pnDocs = loc.nDocs;
  return rc;
}

/* Say which query an error came from. */
static int skQueryError(int iQ, int rc, char **pzErr){
  if( rc!=SQLITE_OK && *pzErr ){
    char *z = *pzErr;
    *pzErr = 0;
    docextError(pzErr, "docext: doc_analyze_shard_key: query %d: %s", iQ,
                strncmp(z, "docext: ", 8)==0 ? z+8 : z);
    sqlite3_free(z);
  }
  return rc;
}

static int skReads(Analysis *p, DocColl *pColl, DocBuf *pOut, char **pzErr){
  i64 nSingle = 0, nMulti = 0, nScatter = 0, nLocal = 0, nLocalShards = 0;
  i64 nLocalDocs = 0, nMaxShards = 0, *aReads, nMax = 0, iArr = 0, iSub;
  int nQuery = 0, i, rc = SQLITE_OK;
  char zIdx[16];
  DocIter it;

  aReads = sqlite3_malloc64(sizeof(i64)*(u64)p->nShard);
  if( aReads==0 ) return SQLITE_NOMEM;
  memset(aReads, 0, sizeof(i64)*p->nShard);
  if( p->queries.type ){
    iArr = docextBsonStartChild(&rc, pOut, DOC_ARRAY, "queries", 7);
    docextIterInitValue(&it, &p->queries);
  }
  while( rc==SQLITE_OK && p->queries.type && docextIterNext(&it) ){
    SkQuery q;
    DocMatcher *pCheck = 0;
    DocPlan *pPlan = 0;
    const char *zTarget;
    int nChunk, nIdx = docextBsonArrayKey(zIdx, nQuery);
    i64 iElem;
    rc = skQueryParse(&it.v, &q, pzErr);
    /* the filter must be one: a find would refuse it */
    if( rc==SQLITE_OK ) rc = docextMatcherNew(q.aFilter, 0, 0, &pCheck, pzErr);
    docextMatcherFree(pCheck);
    if( rc==SQLITE_OK ) rc = docextPlanKeyRanges(&p->key, q.aFilter, 0, &pPlan, pzErr);
    rc = skQueryError(nQuery, rc, pzErr);
    if( rc!=SQLITE_OK ) break;
    skMarksClear(&p->shards);
    skMarksClear(&p->chunks);
    if( pPlan->ePlan==DOCEXT_PLAN_COLLSCAN ){
      for(i=0; i<p->nShard; i++) skMark(&p->shards, i);
      nChunk = p->layout.n;
      zTarget = "scatterGather";
      nScatter++;
    }else{
      skTarget(p, pPlan);
      nChunk = p->chunks.n;
      zTarget = p->shards.n<=1 ? "singleShard" : "multiShard";
      if( p->shards.n<=1 ) nSingle++; else nMulti++;
    }
    docextPlanFree(pPlan);
    for(i=0; i<p->nShard; i++) aReads[i] += p->shards.aOn[i];
    iElem = docextBsonStartChild(&rc, pOut, DOC_DOCUMENT, zIdx, nIdx);
    docextBsonAppendKey(&rc, pOut, DOC_DOCUMENT, "filter", 6);
    docextBufAppend(&rc, pOut, q.aFilter, docextGetI32(q.aFilter));
    if( q.aSort ){
      docextBsonAppendKey(&rc, pOut, DOC_DOCUMENT, "sort", 4);
      docextBufAppend(&rc, pOut, q.aSort, docextGetI32(q.aSort));
    }
    if( q.nLimit>=0 ) skAppendI64(&rc, pOut, "limit", q.nLimit);
    skAppendStr(&rc, pOut, "targeting", zTarget);
    skAppendMarked(&rc, p, pOut, "targetedShards");
    skAppendI64(&rc, pOut, "chunks", nChunk);
    if( rc==SQLITE_OK && q.nLimit>=0 ){
      i64 nDocs = 0;
      skMarksClear(&p->shards);
      rc = skQueryError(nQuery, skLocality(p, pColl, &q, &nDocs, pzErr), pzErr);
      skAppendMarked(&rc, p, pOut, "resultShards");
      skAppendI64(&rc, pOut, "docsReturned", nDocs);
      nLocal++;
      nLocalShards += p->shards.n;
      nLocalDocs += nDocs;
      if( p->shards.n>nMaxShards ) nMaxShards = p->shards.n;
    }
    docextBsonEndDoc(&rc, pOut, iElem);
    nQuery++;
  }
  if( p->queries.type ) docextBsonEndDoc(&rc, pOut, iArr);

  for(i=0; i<p->nShard; i++) if( aReads[i]>nMax ) nMax = aReads[i];
  iSub = docextBsonStartChild(&rc, pOut, DOC_DOCUMENT, "readDistribution", 16);
  skAppendI64(&rc, pOut, "sampleSize", nQuery);
  skAppendDouble(&rc, pOut, "percentageOfSingleShardReads", skPercent(nSingle, nQuery));
  skAppendDouble(&rc, pOut, "percentageOfMultiShardReads", skPercent(nMulti, nQuery));
  skAppendDouble(&rc, pOut, "percentageOfScatterGatherReads", skPercent(nScatter, nQuery));
  skAppendCounts(&rc, pOut, "readsByShard", aReads, p->nShard);
  skAppendDouble(&rc, pOut, "percentageOfReadsToHottestShard", skPercent(nMax, nQuery));
  docextBsonEndDoc(&rc, pOut, iSub);
  iSub = docextBsonStartChild(&rc, pOut, DOC_DOCUMENT, "readLocality", 12);
  skAppendI64(&rc, pOut, "sampleSize", nLocal);
  skAppendDouble(&rc, pOut, "avgShardsPerQuery",
                 nLocal ? floor(100.0*nLocalShards/nLocal + 0.5)/100.0 : 0.0);
  skAppendI64(&rc, pOut, "maxShardsPerQuery", nMaxShards);
  skAppendDouble(&rc, pOut, "avgDocsPerQuery",
                 nLocal ? floor(100.0*nLocalDocs/nLocal + 0.5)/100.0 : 0.0);
  docextBsonEndDoc(&rc, pOut, iSub);
  sqlite3_free(aReads);
  return rc;
}

/*------------------------------------------------------------------------
** doc_analyze_shard_key(coll, key [, options])
*/

static int skOptionsParse(Analysis *p, const u8 *aOpt, char **pzErr){
  DocIter it;
  p->nShard = SK_DEFAULT_SHARDS;
  if( aOpt==0 ) return SQLITE_OK;
  docextIterInit(&it, aOpt);
  while( docextIterNext(&it) ){
    if( strcmp(it.zKey, "shards")==0 ){
      i64 n = skWholeNumber(&it.v, 1, SK_MAX_SHARDS);
      if( n<0 ){
        return docextError(pzErr, "docext: doc_analyze_shard_key: shards must be a whole "
                           "number from 1 to %d", SK_MAX_SHARDS);
      }
      p->nShard = (int)n;
    }else if( strcmp(it.zKey, "chunkSize")==0 ){
      i64 n = skWholeNumber(&it.v, 1, 1099511627776.0);
      if( n<0 ){
        return docextError(pzErr, "docext: doc_analyze_shard_key: chunkSize must be a "
                           "whole number of bytes from 1 to 2^40");
      }
      p->nChunkSize = n;
    }else if( strcmp(it.zKey, "queries")==0 ){
      DocIter q;
      int n = 0;
      if( it.v.type!=DOC_ARRAY ){
        return docextError(pzErr, "docext: doc_analyze_shard_key: queries must be an array");
      }
      docextIterInitValue(&q, &it.v);
      while( docextIterNext(&q) ) n++;
      if( n>SK_MAX_QUERIES ){
        return docextError(pzErr, "docext: doc_analyze_shard_key: at most %d queries",
                           SK_MAX_QUERIES);
      }
      p->queries = it.v;
    }else{
      return docextError(pzErr, "docext: doc_analyze_shard_key: unknown option '%s' "
                         "(options are shards, chunkSize and queries)", it.zKey);
    }
  }
  return SQLITE_OK;
}

static void skFree(Analysis *p){
  docextIndexClear(&p->key);
  docextBufFree(&p->keys);
  docextBufFree(&p->vals);
  sqlite3_free(p->aDoc);
  sqlite3_free(p->aSorted);
  sqlite3_free(p->layout.a);
  skMarksFree(&p->shards);
  skMarksFree(&p->chunks);
  docextIndexScratchFree(p->pKeyGen);
}

static int skAnalyze(Analysis *p, DocColl *pColl, DocBuf *pOut, char **pzErr){
  int rc;
  i64 iDoc;
  rc = skMarksInit(&p->shards, p->nShard);
  if( rc==SQLITE_OK ) rc = skLoad(p, pColl, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  if( p->nChunkSize==0 ){
    p->nChunkSize = p->nBytes / ((i64)p->nShard * SK_CHUNKS_PER_SHARD);
    if( p->nChunkSize<1 ) p->nChunkSize = 1;
  }
  rc = skSplit(p, p->aSorted, p->nDoc, &p->layout);
  if( rc==SQLITE_OK ) rc = skMarksInit(&p->chunks, p->layout.n);
  if( rc!=SQLITE_OK ) return rc;

  iDoc = docextBsonStartDoc(&rc, pOut);
  docextBsonAppendKey(&rc, pOut, DOC_DOCUMENT, "key", 3);
  docextBufAppend(&rc, pOut, p->key.aKeys, docextGetI32(p->key.aKeys));
  skAppendI64(&rc, pOut, "shards", p->nShard);
  if( rc==SQLITE_OK ) rc = skKeyCharacteristics(p, pOut);
  if( rc==SQLITE_OK ) rc = skWriteDistribution(p, pOut);
  if( rc==SQLITE_OK ) rc = skReads(p, pColl, pOut, pzErr);
  docextBsonEndDoc(&rc, pOut, iDoc);
  return rc;
}

static void skAnalyzeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocColl *pColl = 0;
  Analysis a;
  DocBuf keyArg, optArg, out, text;
  const u8 *aKey = 0, *aOpt = 0;
  char *zErr = 0;
  int rc, bSave = 0;
  DocStore *pStore;

  memset(&a, 0, sizeof(a));
  memset(&keyArg, 0, sizeof(keyArg));
  memset(&optArg, 0, sizeof(optArg));
  memset(&out, 0, sizeof(out));
  memset(&text, 0, sizeof(text));
  a.pConn = pConn;
  /* (a sharded collection too: analyzing a new key for it, as MongoDB's
  ** analyzeShardKey does) */
  rc = docextCollFindArg(pConn, ctx, 0, argv[0], &pColl, &zErr);
  if( rc==SQLITE_OK ) rc = docextArgToBson(argv[1], &keyArg, &aKey, &zErr);
  if( rc==SQLITE_OK ) rc = docextShardKeyParse(aKey, &a.key, &zErr);
  if( rc==SQLITE_OK && argc>2 && sqlite3_value_type(argv[2])!=SQLITE_NULL ){
    rc = docextArgToBson(argv[2], &optArg, &aOpt, &zErr);
  }
  if( rc==SQLITE_OK ) rc = skOptionsParse(&a, aOpt, &zErr);
  if( rc==SQLITE_OK ){
    pStore = docextCollStore(pColl);
    rc = docextStorageSnapshot(pStore, &bSave);      /* one snapshot for every read */
    if( rc==SQLITE_OK ) rc = skAnalyze(&a, pColl, &out, &zErr);
    if( bSave ) rc = docextStorageSavepointEnd(pStore, rc);
  }
  if( rc==SQLITE_OK ){
    docextJsonWriteDoc(&rc, &text, out.a, DOCEXT_JSON_RELAXED);
  }
  if( rc==SQLITE_OK ){
    docextBufResultText(ctx, &text);
  }else{
    docextResultError(ctx, rc, zErr);
  }
  skFree(&a);
  docextBufFree(&keyArg);
  docextBufFree(&optArg);
  docextBufFree(&out);
  docextBufFree(&text);
}

int docextRegisterShardFunctions(sqlite3 *db, DocConn *pConn){
  enum { F = SQLITE_UTF8|SQLITE_DIRECTONLY };
  static const DocFuncDef aFunc[] = {
    { "doc_analyze_shard_key", 2, F, skAnalyzeFunc },
    { "doc_analyze_shard_key", 3, F, skAnalyzeFunc },
  };
  return docextCreateFunctions(db, pConn, aFunc, DOCEXT_COUNT(aFunc));
}
