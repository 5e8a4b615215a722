/*
** docext_query.c — running a find().
**
** A DocQuery is compiled once (filters, projection, sort, options) and
** then run over the candidates of an access path (DocAccess: every
** document, one document id, a set of _id keys, or a range of them).
** Results come out in MongoDB's order of operations: filter, sort, skip,
** limit, then SQL's OFFSET and LIMIT on top, then the projection.
**
** When the caller leaves the access path open (DOCEXT_ACCESS_ALL), the
** query plans itself (docext_plan.c): a collection scan, or index scans
** whose entries give document ids, read in key order range by range
** (de-duplicated through a hash set when an index is multikey or a $or
** union reads several), each document then fetched by id. Every fetched
** document is checked against the whole filter again: an index only ever
** narrows the candidates. The exceptions are a count over an exact plan
** (bCountOnly): the entries alone are the answer and no document is read;
** and a covered find (MongoDB's indexOnly): an exact plan over one index
** that is not hashed, no TTL index, no sort or the index's own order, and
** a projection that includes only fields of the index ({a: 1, "b.c": 1},
** with _id: 0 unless _id is one of them) on which no document has an
** array. Its results are the projection applied to the entries' vals (the
** document projected onto the index's fields, docext_index.c), which gives
** what the document would; an entry without vals has its document read
** instead.
** A plan that yields the sort's order streams, so sort+limit reads only
** what it returns. Documents a TTL index has expired are never returned.
**
** Without a sort, documents stream: nothing is read ahead, and a document
** is only loaded when a filter or a caller needs it (so count(*) over an
** unfiltered collection never decodes one). With a sort, the matching
** documents' sort keys (docextSortKey) and ids are gathered first; when
** skip+limit bounds the result to N rows, a heap keeps only the best N, so
** a top-N never sorts everything. The rows are then read back by id.
*/
#include "docextInt.h"
#include <math.h>
#include <stdlib.h>

/*------------------------------------------------------------------------
** Access paths
*/

void docextAccessInit(DocAccess *p){
  memset(p, 0, sizeof(*p));
  p->eAccess = DOCEXT_ACCESS_ALL;
}

int docextAccessCopy(DocAccess *pTo, const DocAccess *pFrom){
  int rc = SQLITE_OK;
  docextAccessInit(pTo);
  pTo->eAccess = pFrom->eAccess;
  pTo->iDoc = pFrom->iDoc;
  pTo->nKey = pFrom->nKey;
  pTo->bLo = pFrom->bLo;
  pTo->bHi = pFrom->bHi;
  pTo->bLoIncl = pFrom->bLoIncl;
  pTo->bHiIncl = pFrom->bHiIncl;
  docextBufAppend(&rc, &pTo->keys, pFrom->keys.a, pFrom->keys.n);
  docextBufAppend(&rc, &pTo->lo, pFrom->lo.a, pFrom->lo.n);
  docextBufAppend(&rc, &pTo->hi, pFrom->hi.a, pFrom->hi.n);
  if( rc==SQLITE_OK && pFrom->aKeyOff ){
    pTo->aKeyOff = sqlite3_malloc64(sizeof(int)*((u64)pFrom->nKey+1));
    if( pTo->aKeyOff==0 ) rc = SQLITE_NOMEM;
    else memcpy(pTo->aKeyOff, pFrom->aKeyOff, sizeof(int)*((u64)pFrom->nKey+1));
  }
  return rc;
}

void docextAccessClear(DocAccess *p){
  docextBufFree(&p->keys);
  docextBufFree(&p->lo);
  docextBufFree(&p->hi);
  sqlite3_free(p->aKeyOff);
  docextAccessInit(p);
}

int docextAccessAddKey(DocAccess *p, i64 iStart){
  int *aNew = sqlite3_realloc64(p->aKeyOff, sizeof(int)*(p->nKey+2));
  if( aNew==0 ) return SQLITE_NOMEM;
  p->aKeyOff = aNew;
  aNew[p->nKey] = (int)iStart;
  aNew[p->nKey+1] = (int)p->keys.n;
  p->nKey++;
  p->eAccess = DOCEXT_ACCESS_KEYS;
  return SQLITE_OK;
}

static int keyCmp(const u8 *a, int na, const u8 *b, int nb){
  int c = memcmp(a, b, na<nb ? na : nb);
  return c ? c : na-nb;
}

/* Key i of a KEYS access. */
static const u8 *accessKey(const DocAccess *p, int i, int *pn){
  *pn = p->aKeyOff[i+1] - p->aKeyOff[i];
  return &p->keys.a[p->aKeyOff[i]];
}

/* Does key k lie within the access's bounds (which stay within the type
** class of the bound)? */
static int accessInRange(const DocAccess *p, const u8 *k, int nk){
  if( p->bLo ){
    int c = keyCmp(k, nk, p->lo.a, (int)p->lo.n);
    if( c<0 || (c==0 && !p->bLoIncl) || k[0]!=p->lo.a[0] ) return 0;
  }
  if( p->bHi ){
    int c = keyCmp(k, nk, p->hi.a, (int)p->hi.n);
    if( c>0 || (c==0 && !p->bHiIncl) || k[0]!=p->hi.a[0] ) return 0;
  }
  return 1;
}

/* Sort the KEYS and drop duplicates (1 and 1.0 are one _id) and keys
** outside the bounds. */
static int accessNormalizeKeys(DocAccess *p){
  DocBuf sorted;
  int *aOrder, *aOff, i, j, n = 0, rc = SQLITE_OK;
  if( p->nKey==0 ){ p->eAccess = DOCEXT_ACCESS_NONE; return SQLITE_OK; }
  aOrder = sqlite3_malloc64(sizeof(int)*p->nKey);
  aOff = sqlite3_malloc64(sizeof(int)*(p->nKey+1));
  if( aOrder==0 || aOff==0 ){
    sqlite3_free(aOrder);
    sqlite3_free(aOff);
    return SQLITE_NOMEM;
  }
  /* Insertion sort: key lists are short (an IN list). */
  for(i=0; i<p->nKey; i++){
    int na, nb;
    const u8 *a = accessKey(p, i, &na);
    for(j=i-1; j>=0; j--){
      const u8 *b = accessKey(p, aOrder[j], &nb);
      if( keyCmp(b, nb, a, na)<=0 ) break;
      aOrder[j+1] = aOrder[j];
    }
    aOrder[j+1] = i;
  }
  memset(&sorted, 0, sizeof(sorted));
  aOff[0] = 0;
  for(i=0; rc==SQLITE_OK && i<p->nKey; i++){
    int nk;
    const u8 *k = accessKey(p, aOrder[i], &nk);
    if( !accessInRange(p, k, nk) ) continue;
    if( n>0 && keyCmp(&sorted.a[aOff[n-1]], aOff[n]-aOff[n-1], k, nk)==0 ) continue;
    docextBufAppend(&rc, &sorted, k, nk);
    aOff[++n] = (int)sorted.n;
  }
  sqlite3_free(aOrder);
  if( rc!=SQLITE_OK ){
    docextBufFree(&sorted);
    sqlite3_free(aOff);
    return rc;
  }
  docextBufFree(&p->keys);
  p->keys = sorted;
  sqlite3_free(p->aKeyOff);
  p->aKeyOff = aOff;
  p->nKey = n;
  if( n==0 ) p->eAccess = DOCEXT_ACCESS_NONE;
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Queries
*/

typedef struct SortEntry SortEntry;
struct SortEntry {
  int iKey, nKey;           /* sort key in p->sortKeys */
  i64 iDoc;                 /* document id; breaks ties (insertion order) */
  int iPos;                 /* matched array position, for projections */
};

/* A set of document ids (open addressing, 0 an empty slot: SQLite gives
** positive ids, but a damaged X_docs may hold 0, kept apart). */
typedef struct DocIdSet DocIdSet;
struct DocIdSet {
  i64 *a;
  int nSlot;                /* a power of two, or 0 */
  int nUsed;
  int bZero;                /* id 0 is in the set */
};

struct DocQuery {
  DocColl *pColl;
  DocReader *pReader;
  DocMatcher *apFilter[DOCEXT_MAX_FILTERS];   /* ANDed */
  int nFilter;
  DocProjection *pProj;     /* may be NULL */
  DocSort *pSort;           /* NULL when no (or an empty) sort */
  DocCollator *pCollator;   /* the options' collation, or NULL (simple) */
  DocBuf collation;         /* the collation document it was made from, kept
                            ** with it from one execution to the next */
  DocCollator *pDefault;    /* the collection's default collation, once
                            ** read (bDefault): it is set when the collection
                            ** is made and never changes */
  int bDefault;
  i64 nSkip;                /* results to skip (options.skip + OFFSET) */
  i64 nRouterSkip, nRouterMax;    /* a routed part's: the router's (the
                                  ** part's own take skip+limit from 0) */
  i64 nMax;                 /* results to return, or -1 for all */

  DocAccess access;
  int iKey;                 /* KEYS: next key to read */
  int bEof;
  i64 nSkipped, nReturned;
  int iPos;                 /* matched array position of the current row */

  DocBuf result;            /* projected current row */
  int bResult;              /* result holds the current row */

  SortEntry *aEntry;        /* sorted results (a heap while gathering) */
  int nEntry, nEntryAlloc;
  DocBuf sortKeys;
  int iEntry;               /* next entry to return */
  int bSorted;              /* results come from aEntry */

  /* Planning inputs: copies of the filters, sort and options. */
  DocBuf specCopy;
  int aFilterOff[DOCEXT_MAX_FILTERS];
  int iSortOff, iOptOff;    /* offsets in specCopy, or -1 */
  int iProjOff;             /* offset of the projection in specCopy, or -1 */
  int iPlanIndexOff;        /* offset in specCopy of the name of the index
                            ** xBestIndex named (NUL-terminated), or -1 */
  int bCountOnly;           /* the caller reads no document */
  int bProjectIfCovered;    /* DocQuerySpec's: see queryDropUncovered */
  int bExplain;             /* the plan describes its bounds */

  /* The plan and its state. */
  DocPlan *pPlan;           /* when access is DOCEXT_ACCESS_PLAN */
  int bTtl;                 /* the collection has a TTL index */
  int bSkipFilter;          /* exact plan: the filter need not be checked */
  int bIndexOrder;          /* the plan yields the sort's order */
  DocText *pText;           /* a filter's $text (owned by the filter) */
  int bNearSort;            /* pSort is a $near's order (no sort given) */
  const DocGeo *pNearGeo;   /* then the $near's point (apFilter[iNearFilter]'s) */
  const char *zNearPath;    /* and its path */
  int nNearPath, iNearFilter;
  double rRing;             /* the radius of this round of a search by rings
                            ** (queryRingFirst), in radians (in the plane:
                            ** its units), or -1 */
  double rRingLast;         /* the greatest ring's radius */
  int bRingFlat;            /* the rings are in the plane, for a 2d index */
  int bNaturalDesc;         /* collection scan newest first */
  DocIdxCursor *pIdxCur;    /* entries of the current range */
  int iScan, iRange;        /* current scan of the plan, next range */
  int bRangeOpen;           /* pIdxCur (or pReader) is reading a range */
  int bWithDocs;            /* ranges are read with their documents, by
                            ** pReader in one statement, not by pIdxCur */
  DocIdSet seen;            /* ids returned so far, when de-duplicating */
  int bPrecount;            /* count over an exact single-index plan: the
                            ** rows were counted (docextStorageCountRange)
                            ** and are yielded without reading entries,
                            ** until a caller asks which document one is
                            ** (queryReplay) */
  i64 nPrecount;            /* rows still to yield in that mode */
  int bCovered;             /* results come from the entries' vals */
  DocBuf vals;              /* covered: the current entry's vals */
  int bVals;                /* vals holds them (else read the document) */

  /* The current row. */
  i64 iCur;                 /* its document id */
  int bOnRow;               /* pReader is positioned on it */
  int bCounted;             /* its document was counted in nDocs */

  i64 nKeys, nDocs;         /* explain: keys (or rows) examined, docs read */
};

void docextQuerySpecInit(DocQuerySpec *p){
  memset(p, 0, sizeof(*p));
  p->nLimit = -1;
}

/* An integral, non-negative number from an options document. */
static int optionCount(const DocValue *v, const char *zName, i64 *pN, char **pzErr){
  double d;
  if( !docextValueIsNumber(v) ){
    return docextError(pzErr, "docext: option %s must be a number", zName);
  }
  d = docextValueToDouble(v);
  if( d!=d || d<-9.2e18 || d>9.2e18 || d!=(double)(i64)d ){
    return docextError(pzErr, "docext: option %s must be an integer", zName);
  }
  *pN = (i64)d;
  return SQLITE_OK;
}

/* Read {hint, skip, limit, let, collation}. */
static int parseOptions(DocQuery *p, const u8 *aOpt, i64 *pSkip, i64 *pLimit, char **pzErr){
  DocIter it;
  int rc = SQLITE_OK;
  docextIterInit(&it, aOpt);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( strcmp(it.zKey, "skip")==0 ){
      rc = optionCount(&it.v, "skip", pSkip, pzErr);
      if( rc==SQLITE_OK && *pSkip<0 ){
        *pzErr = sqlite3_mprintf("docext: option skip must not be negative");
        rc = SQLITE_ERROR;
      }
    }else if( strcmp(it.zKey, "limit")==0 ){
      rc = optionCount(&it.v, "limit", pLimit, pzErr);
      if( *pLimit<0 ) *pLimit = -*pLimit;     /* MongoDB: a negative limit is a limit */
    }else if( strcmp(it.zKey, "hint")==0 ){
      rc = docextQueryCheckHint(p->pColl, &it.v, pzErr);
    }else if( strcmp(it.zKey, "let")==0 || strcmp(it.zKey, "collation")==0 ){
      /* (read by docextExprLetOption, docextCollatorOption) */
    }else{
      *pzErr = sqlite3_mprintf("docext: unknown option '%s' in options "
                               "(known: hint, skip, limit, let, collation)", it.zKey);
      rc = SQLITE_ERROR;
    }
  }
  return rc;
}

/* A hint names an index by name or key pattern, or is {$natural: 1|-1}. */
int docextQueryCheckHint(DocColl *pColl, const DocValue *v, char **pzErr){
  int iIdx, bDesc;
  return docextPlanResolveHint(pColl, v, &iIdx, &bDesc, pzErr);
}

/* Copy a document into p->specCopy; its offset. */
static int specKeep(int *pRc, DocQuery *p, const u8 *aDoc){
  int iOff = (int)p->specCopy.n;
  docextBufAppend(pRc, &p->specCopy, aDoc, docextGetI32(aDoc));
  return iOff;
}

static void queryReset(DocQuery *p);

int docextCollBindText(DocColl *pColl, DocText *pText, char **pzErr){
  DocIndex *aIdx;
  int nIdx, i, rc = docextCollIndexes(pColl, &aIdx, &nIdx, pzErr);
  for(i=0; rc==SQLITE_OK && i<nIdx; i++){
    if( aIdx[i].pText ){
      return docextTextBind(pText, aIdx[i].pText, aIdx[i].aPartial, pzErr);
    }
  }
  if( rc==SQLITE_OK ){
    rc = docextError(pzErr, "docext: text index required for $text query "
                            "(the collection has none)");
  }
  return rc;
}

int docextCollTextScorer(DocColl *pColl, const u8 *aFilter, const u8 *aLet, i64 *pNowMs,
                         DocMatcher **ppOut, char **pzErr){
  int rc = docextMatcherNew(aFilter, aLet, pNowMs, ppOut, pzErr);
  if( rc==SQLITE_OK && docextMatcherText(*ppOut) ){
    rc = docextCollBindText(pColl, docextMatcherText(*ppOut), pzErr);
  }
  return rc;
}

/* p->pCollator for the options' collation, or the collection's default
** when they name none. A prepared statement runs its query again and again
** with the same options: the collator made for the last run serves when
** the collation document is the same bytes (ICU takes microseconds to make
** one). */
static int queryCollator(DocQuery *p, const u8 *aOptions, char **pzErr){
  DocValue v;
  int rc = SQLITE_OK;
  if( aOptions==0 || !docextBsonFind(aOptions, "collation", 9, &v) ) v.type = 0;
  if( p->pCollator && v.type==DOC_DOCUMENT && p->collation.n==v.n
   && memcmp(p->collation.a, v.p, v.n)==0 ){
    return SQLITE_OK;
  }
  docextCollatorFree(p->pCollator);
  p->pCollator = 0;
  docextBufReset(&p->collation);
  if( v.type==0 ){
    if( !p->bDefault ){
      DocCollator *pDefault = 0;
      rc = docextCollCollation(p->pColl, &pDefault, pzErr);
      p->pDefault = docextCollatorRef(pDefault);
      p->bDefault = rc==SQLITE_OK;
    }
    p->pCollator = docextCollatorRef(p->pDefault);
    return rc;
  }
  rc = docextCollatorNew(&v, &p->pCollator, pzErr);
  if( rc==SQLITE_OK && p->pCollator ) docextBufAppend(&rc, &p->collation, v.p, v.n);
  return rc;
}

/* Compile the spec into p (whose compiled parts are empty). */
static int queryCompile(DocQuery *p, const DocQuerySpec *pSpec, char **pzErr){
  i64 nSkip = 0, nLimit = 0;
  i64 nowMs = pSpec->nowMs;             /* (one $$NOW for all the filters) */
  int rc = SQLITE_OK, i;
  const u8 *aLet = 0;
  p->iSortOff = p->iOptOff = p->iProjOff = p->iPlanIndexOff = -1;
  p->bCountOnly = pSpec->bCountOnly;
  p->bExplain = pSpec->bExplain;
  p->bProjectIfCovered = pSpec->bProjectIfCovered;
  rc = docextExprLetOption(pSpec->aOptions, &aLet, pzErr);
  if( rc==SQLITE_OK ) rc = queryCollator(p, pSpec->aOptions, pzErr);
  for(i=0; rc==SQLITE_OK && i<pSpec->nFilter; i++){
    rc = docextMatcherNewColl(pSpec->aaFilter[i], aLet, &nowMs, p->pCollator,
                              &p->apFilter[i], pzErr);
    if( rc==SQLITE_OK ){
      p->aFilterOff[i] = specKeep(&rc, p, pSpec->aaFilter[i]);
      p->nFilter++;
    }
    if( rc==SQLITE_OK && docextMatcherText(p->apFilter[i]) ){
      if( p->pText ){
        rc = docextError(pzErr, "docext: a query may have one $text");
      }else{
        p->pText = docextMatcherText(p->apFilter[i]);
        rc = docextCollBindText(p->pColl, p->pText, pzErr);
      }
    }
  }
  if( rc==SQLITE_OK && pSpec->aProjection ){
    rc = docextProjectionNew(pSpec->aProjection, &p->pProj, pzErr);
    if( rc==SQLITE_OK ) p->iProjOff = specKeep(&rc, p, pSpec->aProjection);
    if( rc==SQLITE_OK && docextProjectionWantsText(p->pProj) ){
      if( p->pText==0 ) rc = docextTextNoScore(pzErr);
      docextProjectionSetText(p->pProj, p->pText);
    }
  }
  if( rc==SQLITE_OK && pSpec->aSort ){
    rc = docextSortNew(pSpec->aSort, &p->pSort, pzErr);
    if( rc==SQLITE_OK && docextSortFieldCount(p->pSort)==0 ){
      docextSortFree(p->pSort);
      p->pSort = 0;
    }
    if( rc==SQLITE_OK && p->pSort ) docextSortSetCollator(p->pSort, p->pCollator);
    if( rc==SQLITE_OK && p->pSort ) p->iSortOff = specKeep(&rc, p, pSpec->aSort);
    if( rc==SQLITE_OK && p->pSort && docextSortWantsText(p->pSort) ){
      if( p->pText==0 ) rc = docextTextNoScore(pzErr);
      docextSortSetText(p->pSort, p->pText);
    }
  }
  for(i=0; rc==SQLITE_OK && p->pSort==0 && i<p->nFilter; i++){
    /* a $near orders the results by distance when no sort is given */
    const char *zPath;
    int nPath;
    const DocGeo *pNear = docextMatcherNear(p->apFilter[i], &zPath, &nPath);
    if( pNear ){
      rc = docextSortNewNear(zPath, nPath, pNear, &p->pSort);
      p->bNearSort = rc==SQLITE_OK;
      p->pNearGeo = pNear;
      p->zNearPath = zPath;
      p->nNearPath = nPath;
      p->iNearFilter = i;
    }
  }
  if( rc==SQLITE_OK && pSpec->aOptions ){
    rc = parseOptions(p, pSpec->aOptions, &nSkip, &nLimit, pzErr);
    if( rc==SQLITE_OK ) p->iOptOff = specKeep(&rc, p, pSpec->aOptions);
  }
  if( rc==SQLITE_OK && pSpec->zPlanIndex ){
    p->iPlanIndexOff = (int)p->specCopy.n;
    docextBufAppend(&rc, &p->specCopy, pSpec->zPlanIndex, (i64)strlen(pSpec->zPlanIndex)+1);
  }
  /* MongoDB's skip/limit first, then SQL's OFFSET/LIMIT over that. */
  p->nSkip = nSkip + (pSpec->nOffset>0 ? pSpec->nOffset : 0);
  p->nMax = nLimit>0 ? nLimit - (pSpec->nOffset>0 ? pSpec->nOffset : 0) : -1;
  if( nLimit>0 && p->nMax<0 ) p->nMax = 0;
  if( pSpec->nLimit>=0 && (p->nMax<0 || pSpec->nLimit<p->nMax) ) p->nMax = pSpec->nLimit;
  p->nRouterSkip = 0;
  p->nRouterMax = -1;
  if( pSpec->bRouted ){
    /* No limit of its own: the router drops documents a shard holds but
    ** does not own (orphans), which a limit here would have counted. It
    ** pulls no more than it needs from a plan that streams. */
    p->nRouterSkip = p->nSkip;
    p->nRouterMax = p->nMax;
    p->nMax = -1;
    p->nSkip = 0;
  }
  return rc;
}

void docextQueryLimits(DocQuery *p, i64 *pnSkip, i64 *pnMax){
  *pnSkip = p->nRouterSkip;
  *pnMax = p->nRouterMax;
}

/* Free what queryCompile made. */
static void queryUncompile(DocQuery *p){
  int i;
  for(i=0; i<p->nFilter; i++) docextMatcherFree(p->apFilter[i]);
  p->nFilter = 0;
  docextProjectionFree(p->pProj);
  p->pProj = 0;
  docextSortFree(p->pSort);
  p->pSort = 0;
  p->bNearSort = 0;
  p->pNearGeo = 0;
  p->pText = 0;
  docextBufReset(&p->specCopy);
}

int docextQueryNew(DocColl *pColl, const DocQuerySpec *pSpec, DocQuery **ppQuery, char **pzErr){
  DocQuery *p = docextMallocZero(sizeof(*p));
  int rc;
  *ppQuery = 0;
  if( p==0 ) return SQLITE_NOMEM;
  p->pColl = pColl;
  p->rRing = -1;
  docextAccessInit(&p->access);
  rc = docextReaderNew(docextCollStore(pColl), &p->pReader);
  if( rc==SQLITE_OK ) rc = docextIdxCursorNew(docextCollStore(pColl), &p->pIdxCur);
  if( rc==SQLITE_OK ) rc = queryCompile(p, pSpec, pzErr);
  if( rc!=SQLITE_OK ){
    docextQueryFree(p);
    return rc;
  }
  *ppQuery = p;
  return SQLITE_OK;
}

void docextQueryIdle(DocQuery *p){
  queryReset(p);
  queryUncompile(p);
  p->bEof = 1;
}

int docextQueryReuse(DocQuery *p, const DocQuerySpec *pSpec, char **pzErr){
  int rc;
  queryReset(p);
  queryUncompile(p);
  rc = queryCompile(p, pSpec, pzErr);
  if( rc!=SQLITE_OK ){
    queryUncompile(p);
    p->bEof = 1;
  }
  return rc;
}

static void idsetClear(DocIdSet *p){
  sqlite3_free(p->a);
  memset(p, 0, sizeof(*p));
}

/* Add id to the set; *pbNew = 0 if it was there already. */
static int idsetAdd(DocIdSet *p, i64 id, int *pbNew){
  unsigned h;
  if( id==0 ){
    *pbNew = !p->bZero;
    p->bZero = 1;
    return SQLITE_OK;
  }
  if( p->nUsed*2 >= p->nSlot ){
    int nNew = p->nSlot ? p->nSlot*2 : 256, i;
    i64 *aNew = docextMallocZero(sizeof(i64)*nNew);
    if( aNew==0 ) return SQLITE_NOMEM;
    for(i=0; i<p->nSlot; i++){
      if( p->a[i] ){
        h = (unsigned)((u64)p->a[i] * 0x9E3779B97F4A7C15ULL >> 32) & (nNew-1);
        while( aNew[h] ) h = (h+1) & (nNew-1);
        aNew[h] = p->a[i];
      }
    }
    sqlite3_free(p->a);
    p->a = aNew;
    p->nSlot = nNew;
  }
  h = (unsigned)((u64)id * 0x9E3779B97F4A7C15ULL >> 32) & (p->nSlot-1);
  while( p->a[h] ){
    if( p->a[h]==id ){ *pbNew = 0; return SQLITE_OK; }
    h = (h+1) & (p->nSlot-1);
  }
  p->a[h] = id;
  p->nUsed++;
  *pbNew = 1;
  return SQLITE_OK;
}

static void queryReset(DocQuery *p){
  docextAccessClear(&p->access);
  sqlite3_free(p->aEntry);
  p->aEntry = 0;
  p->nEntry = p->nEntryAlloc = p->iEntry = 0;
  docextBufReset(&p->sortKeys);
  p->bSorted = 0;
  p->iKey = 0;
  p->bEof = 0;
  p->nSkipped = p->nReturned = 0;
  p->bResult = 0;
  p->iPos = -1;
  docextPlanFree(p->pPlan);
  p->pPlan = 0;
  p->bTtl = p->bSkipFilter = p->bIndexOrder = p->bNaturalDesc = 0;
  p->bPrecount = 0;
  p->nPrecount = 0;
  p->iScan = p->iRange = p->bRangeOpen = p->bWithDocs = 0;
  idsetClear(&p->seen);
  p->bCovered = p->bVals = 0;
  p->iCur = 0;
  p->bOnRow = p->bCounted = 0;
  p->nKeys = p->nDocs = 0;
  if( p->pReader ) docextReaderReset(p->pReader);
  /* A scan stopped early (LIMIT) must not leave its statement running: it
  ** would hold the read transaction open after the user's statement. */
  if( p->pIdxCur ) docextIdxCursorStop(p->pIdxCur);
}

void docextQueryFree(DocQuery *p){
  if( p ){
    queryReset(p);
    queryUncompile(p);
    docextReaderFree(p->pReader);
    docextIdxCursorFree(p->pIdxCur);
    docextBufFree(&p->result);
    docextBufFree(&p->vals);
    docextBufFree(&p->sortKeys);
    docextBufFree(&p->specCopy);
    docextAccessClear(&p->access);
    docextCollatorFree(p->pCollator);
    docextCollatorFree(p->pDefault);
    docextBufFree(&p->collation);
    sqlite3_free(p);
  }
}

static int planNext(DocQuery *p);

/* Leave the precounted mode: read the plan's entries from the start up to
** the current row, so that its document id is known and later rows come
** from the entries (a DELETE over an exact plan wants the ids that
** count(*) does not). */
static int queryReplay(DocQuery *p){
  i64 nSeen = p->nSkipped + p->nReturned, i;
  int rc = SQLITE_ROW;
  p->bPrecount = 0;
  p->nKeys = 0;
  for(i=0; i<nSeen && rc==SQLITE_ROW; i++) rc = planNext(p);
  if( rc==SQLITE_DONE ) rc = SQLITE_CORRUPT_VTAB;   /* the count said more */
  return rc==SQLITE_ROW ? SQLITE_OK : rc;
}

/* Put the reader on the current result's document, fetching it by id if
** the reader is not on it, and count it read. */
static int queryOnDoc(DocQuery *p, char **pzErr){
  if( p->bPrecount ){
    int rc = queryReplay(p);
    if( rc!=SQLITE_OK ) return rc;
  }
  if( !p->bOnRow ){
    int rc = docextReaderSeek(p->pReader, p->iCur);
    if( rc==SQLITE_DONE ){
      *pzErr = sqlite3_mprintf("docext: an index of %s names document %lld, "
                               "which does not exist (see doc_check)",
                               docextCollName(p->pColl), p->iCur);
      return SQLITE_CORRUPT_VTAB;
    }
    if( rc!=SQLITE_ROW ) return rc;
    p->bOnRow = 1;
  }
  if( !p->bCounted ){
    p->bCounted = 1;
    p->nDocs++;
  }
  return SQLITE_OK;
}

/* The current result's document, validated. */
static int queryDoc(DocQuery *p, const u8 **paDoc, char **pzErr){
  int rc = queryOnDoc(p, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  return docextReaderDoc(p->pReader, paDoc, pzErr);
}

/* Open range aR (lo offset and length, hi offset and length in the plan's
** keys) of pScan: through pIdxCur for the entries alone, or through
** pReader with their documents. */
static int planStartRange(DocQuery *p, const DocPlanScan *pScan, const int *aR){
  const u8 *aKeys = p->pPlan->keys.a;
  DocScan scan;
  if( !p->bWithDocs ){
    return docextIdxCursorStart(p->pIdxCur, pScan->iIx, &aKeys[aR[0]], aR[1],
                                &aKeys[aR[2]], aR[3], pScan->bDesc);
  }
  memset(&scan, 0, sizeof(scan));
  scan.eScan = pScan->iIx ? DOCEXT_SCAN_INDEX : DOCEXT_SCAN_RANGE;
  scan.iIx = pScan->iIx;
  scan.bDesc = pScan->bDesc;
  scan.aLo = &aKeys[aR[0]]; scan.nLo = aR[1];
  scan.aHi = &aKeys[aR[2]]; scan.nHi = aR[3];
  scan.bLoIncl = 1;          /* the plan's ranges are [lo, hi) */
  return docextReaderStart(p->pReader, &scan);
}

/* The next entry of the open range: SQLITE_ROW with *piDoc set. */
static int planStepRange(DocQuery *p, i64 *piDoc){
  int rc;
  if( p->bWithDocs ){
    rc = docextReaderStep(p->pReader);
    if( rc==SQLITE_ROW ) *piDoc = docextReaderDocid(p->pReader);
  }else{
    rc = docextIdxCursorStep(p->pIdxCur);
    if( rc==SQLITE_ROW ) *piDoc = docextIdxCursorDocid(p->pIdxCur);
  }
  return rc;
}

/* The next entry of the plan's index scans: SQLITE_ROW with p->iCur set
** (and the document at hand when bWithDocs), SQLITE_DONE, or an error. */
static int planNext(DocQuery *p){
  const DocPlan *pPlan = p->pPlan;
  for(;;){
    const DocPlanScan *pScan;
    const int *aR;
    int rc, iR;
    if( p->bRangeOpen ){
      i64 iDoc = 0;
      rc = planStepRange(p, &iDoc);
      if( rc==SQLITE_ROW ){
        p->nKeys++;
        if( pPlan->bDedup ){
          int bNew = 0;
          rc = idsetAdd(&p->seen, iDoc, &bNew);
          if( rc!=SQLITE_OK ) return rc;
          if( !bNew ) continue;
        }
        p->iCur = iDoc;
        p->bOnRow = p->bWithDocs;
        p->bCounted = 0;
        p->bVals = 0;
        if( p->bCovered ){
          int nVals = 0;
          const u8 *aVals = docextIdxCursorVals(p->pIdxCur, &nVals);
          char *zErr = 0;
          int rc2 = SQLITE_OK;
          /* untrusted bytes: an entry whose vals do not hold together
          ** has its document read instead */
          if( aVals && nVals>=5 && docextBsonCheckEx(aVals, nVals, 0, &zErr)==SQLITE_OK ){
            docextBufReset(&p->vals);
            docextBufAppend(&rc2, &p->vals, aVals, nVals);
            if( rc2!=SQLITE_OK ){ sqlite3_free(zErr); return rc2; }
            p->bVals = 1;
          }
          sqlite3_free(zErr);
        }
        return SQLITE_ROW;
      }
      if( rc!=SQLITE_DONE ) return rc;
      p->bRangeOpen = 0;
    }
    if( p->iScan>=pPlan->nScan ) return SQLITE_DONE;
    pScan = &pPlan->aScan[p->iScan];
    if( p->iRange>=pScan->nRange ){
      p->iScan++;
      p->iRange = 0;
      continue;
    }
    iR = pScan->bDesc ? pScan->nRange-1-p->iRange : p->iRange;
    aR = &pScan->aRange[4*iR];
    p->iRange++;
    rc = planStartRange(p, pScan, aR);
    if( rc!=SQLITE_OK ) return rc;
    p->bRangeOpen = 1;
  }
}

/* Step to the next candidate row: SQLITE_ROW or SQLITE_DONE. */
static int nextCandidate(DocQuery *p){
  int rc;
  if( p->access.eAccess==DOCEXT_ACCESS_PLAN ) return planNext(p);
  rc = docextReaderStep(p->pReader);
  while( rc==SQLITE_DONE && p->access.eAccess==DOCEXT_ACCESS_KEYS
      && p->iKey<p->access.nKey ){
    DocScan scan;
    memset(&scan, 0, sizeof(scan));
    scan.eScan = DOCEXT_SCAN_KEY;
    scan.aLo = accessKey(&p->access, p->iKey++, &scan.nLo);
    rc = docextReaderStart(p->pReader, &scan);
    if( rc==SQLITE_OK ) rc = docextReaderStep(p->pReader);
  }
  if( rc==SQLITE_ROW ){
    p->iCur = docextReaderDocid(p->pReader);
    p->bOnRow = 1;
    p->bCounted = 0;
    p->nKeys++;
  }
  return rc;
}

/* Does the current candidate pass the filters (and is it not expired)?
** Loads it only if needed. */
static int candidateMatches(DocQuery *p, int *pbMatch, char **pzErr){
  const u8 *aDoc;
  int rc = SQLITE_OK, i;
  *pbMatch = 1;
  p->iPos = -1;
  if( p->bTtl ){
    int bExpired = 0;
    rc = queryDoc(p, &aDoc, pzErr);
    if( (rc & 0xff)==SQLITE_CORRUPT && p->nFilter==0 ){
      /* A document too damaged to read cannot be known expired: it is a
      ** row, as it would be without a TTL index, so count(*) counts it
      ** and a DELETE by rowid or _id removes it; reading it fails. */
      sqlite3_free(*pzErr);
      *pzErr = 0;
      return SQLITE_OK;
    }
    if( rc==SQLITE_OK ) rc = docextCollExpired(p->pColl, aDoc, &bExpired);
    if( rc!=SQLITE_OK ) return rc;
    if( bExpired ){ *pbMatch = 0; return SQLITE_OK; }
  }
  if( p->nFilter==0 || p->bSkipFilter ) return SQLITE_OK;
  rc = queryDoc(p, &aDoc, pzErr);
  for(i=0; rc==SQLITE_OK && *pbMatch && i<p->nFilter; i++){
    int iPos = -1;
    rc = docextMatcherMatch(p->apFilter[i], aDoc, pbMatch, &iPos, pzErr);
    if( p->iPos<0 ) p->iPos = iPos;
  }
  return rc;
}

/* Streaming: advance to the next result that passes filters and skip. */
static int streamNext(DocQuery *p, char **pzErr){
  if( p->bPrecount ){
    if( p->nPrecount<=0 || (p->nMax>=0 && p->nReturned>=p->nMax) ){
      p->bEof = 1;
    }else{
      p->nPrecount--;
      p->nReturned++;
    }
    return SQLITE_OK;
  }
  for(;;){
    int bMatch, rc;
    if( p->nMax>=0 && p->nReturned>=p->nMax ){ p->bEof = 1; return SQLITE_OK; }
    rc = nextCandidate(p);
    if( rc==SQLITE_DONE ){ p->bEof = 1; return SQLITE_OK; }
    if( rc!=SQLITE_ROW ) return rc;
    rc = candidateMatches(p, &bMatch, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    if( !bMatch ) continue;
    if( p->nSkipped<p->nSkip ){ p->nSkipped++; continue; }
    p->nReturned++;
    return SQLITE_OK;
  }
}

/* Order of sort entries: key, then document id. */
static int sortEntryCmp(DocQuery *p, const SortEntry *a, const SortEntry *b){
  int c = keyCmp(&p->sortKeys.a[a->iKey], a->nKey, &p->sortKeys.a[b->iKey], b->nKey);
  if( c ) return c;
  return a->iDoc<b->iDoc ? -1 : a->iDoc>b->iDoc;
}

/* Max-heap sift-down over aEntry[0..n). */
static void heapDown(DocQuery *p, int i, int n){
  for(;;){
    int l = 2*i+1, r = l+1, m = i;
    if( l<n && sortEntryCmp(p, &p->aEntry[l], &p->aEntry[m])>0 ) m = l;
    if( r<n && sortEntryCmp(p, &p->aEntry[r], &p->aEntry[m])>0 ) m = r;
    if( m==i ) return;
    { SortEntry t = p->aEntry[i]; p->aEntry[i] = p->aEntry[m]; p->aEntry[m] = t; }
    i = m;
  }
}

static void heapUp(DocQuery *p, int i){
  while( i>0 ){
    int parent = (i-1)/2;
    if( sortEntryCmp(p, &p->aEntry[i], &p->aEntry[parent])<=0 ) return;
    { SortEntry t = p->aEntry[i]; p->aEntry[i] = p->aEntry[parent]; p->aEntry[parent] = t; }
    i = parent;
  }
}

/* For docextSort of the entries. */
static int sortEntryCmpCb(void *pCtx, const void *x, const void *y){
  return sortEntryCmp((DocQuery*)pCtx, (const SortEntry*)x, (const SortEntry*)y);
}

/* Sort aEntry[0..nEntry). */
static int sortEntries(DocQuery *p){
  SortEntry *aTmp;
  if( p->nEntry<2 ) return SQLITE_OK;
  aTmp = sqlite3_malloc64(sizeof(SortEntry)*p->nEntry);
  if( aTmp==0 ) return SQLITE_NOMEM;
  docextSort(p->aEntry, p->nEntry, sizeof(SortEntry), aTmp, sortEntryCmpCb, p);
  sqlite3_free(aTmp);
  return SQLITE_OK;
}

/* Gather every matching document's sort key, keeping only the best
** skip+limit when that is bounded, then sort them. */
static int sortGather(DocQuery *p, char **pzErr){
  i64 nKeep = p->nMax>=0 ? p->nSkip + p->nMax : -1;
  int rc;
  for(;;){
    const u8 *aDoc;
    SortEntry e;
    int bMatch;
    rc = nextCandidate(p);
    if( rc==SQLITE_DONE ) break;
    if( rc!=SQLITE_ROW ) return rc;
    rc = candidateMatches(p, &bMatch, pzErr);
    if( rc==SQLITE_OK && bMatch ) rc = queryDoc(p, &aDoc, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    if( !bMatch ) continue;
    e.iKey = (int)p->sortKeys.n;
    rc = docextSortKey(p->pSort, aDoc, &p->sortKeys, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    e.nKey = (int)p->sortKeys.n - e.iKey;
    e.iDoc = p->iCur;
    e.iPos = p->iPos;
    if( nKeep>=0 && p->nEntry>=nKeep ){
      /* Bounded: replace the worst kept entry if this one is better. */
      if( nKeep>0 && sortEntryCmp(p, &e, &p->aEntry[0])<0 ){
        p->aEntry[0] = e;
        heapDown(p, 0, p->nEntry);
      }
      continue;
    }
    p->aEntry = docextArrayGrow(&rc, p->aEntry, p->nEntry, &p->nEntryAlloc, sizeof(SortEntry));
    if( rc!=SQLITE_OK ) return rc;
    p->aEntry[p->nEntry++] = e;
    if( nKeep>=0 ) heapUp(p, p->nEntry-1);
  }
  rc = sortEntries(p);
  if( rc!=SQLITE_OK ) return rc;
  p->bSorted = 1;
  p->iEntry = (int)(p->nSkip<p->nEntry ? p->nSkip : p->nEntry);
  return SQLITE_OK;
}

/* Sorted: move to the next gathered entry (its document is read when
** needed). */
static int sortedNext(DocQuery *p){
  if( p->iEntry>=p->nEntry || (p->nMax>=0 && p->nReturned>=p->nMax) ){
    p->bEof = 1;
    return SQLITE_OK;
  }
  p->iCur = p->aEntry[p->iEntry].iDoc;
  p->iPos = p->aEntry[p->iEntry].iPos;
  p->bOnRow = 0;
  p->bCounted = 1;            /* counted when it was gathered */
  p->iEntry++;
  p->nReturned++;
  return SQLITE_OK;
}

/* Is the projection answered by the fields of index pIdx alone: an
** inclusion projection of top-level dotted paths each equal to one of its
** fields, with _id excluded unless _id is one of them? A multikey index
** answers only for fields on whose paths no document has an array (its
** multikeyPaths), as in MongoDB: the entries' vals hold just those. */
static int queryProjCovered(const u8 *aProj, const DocIndex *pIdx){
  DocIter it;
  int nIncl = 0, bIdOut = 0, bIdField = 0, j;
  for(j=0; j<pIdx->nField; j++){
    if( strcmp(pIdx->azPath[j], "_id")==0 ) bIdField = 1;
  }
  docextIterInit(&it, aProj);
  while( docextIterNext(&it) ){
    int bTrue;
    if( it.v.type==DOC_BOOL ){
      bTrue = it.v.p[0]!=0;
    }else if( it.v.type==DOC_INT32 || it.v.type==DOC_INT64 || it.v.type==DOC_DOUBLE ){
      bTrue = docextValueToDouble(&it.v)!=0.0;
    }else{
      return 0;               /* $slice, $elemMatch, nested forms, ... */
    }
    if( strcmp(it.zKey, "_id")==0 ){
      if( !bTrue ){ bIdOut = 1; continue; }
      if( !bIdField ) return 0;
      nIncl++;
      continue;
    }
    if( !bTrue ) return 0;    /* an exclusion projection */
    for(j=0; j<pIdx->nField; j++){
      if( strcmp(pIdx->azPath[j], it.zKey)==0 ) break;
    }
    if( j>=pIdx->nField || docextIndexMultikeyPath(pIdx, j)!=0 ) return 0;
    nIncl++;
  }
  return nIncl>0 && (bIdOut || bIdField);
}

/* Count the entries of the plan's one scan: the rows of a count over an
** exact plan, yielded by streamNext without stepping through them. */
static int queryPrecount(DocQuery *p){
  const DocPlanScan *pScan = &p->pPlan->aScan[0];
  i64 nTotal = 0;
  int i, rc = SQLITE_OK;
  for(i=0; i<pScan->nRange && rc==SQLITE_OK; i++){
    const int *aR = &pScan->aRange[4*i];
    i64 n = 0;
    rc = docextStorageCountRange(docextCollStore(p->pColl), pScan->iIx,
                                 &p->pPlan->keys.a[aR[0]], aR[1],
                                 &p->pPlan->keys.a[aR[2]], aR[3], -1, &n);
    nTotal += n;
  }
  if( rc!=SQLITE_OK ) return rc;
  p->bPrecount = 1;
  p->nKeys = nTotal;
  p->nSkipped = p->nSkip<nTotal ? p->nSkip : nTotal;
  p->nPrecount = nTotal - p->nSkipped;
  return SQLITE_OK;
}

/* A projection wanted only when an index covers it (bProjectIfCovered)
** goes when none does: the whole documents then cost less than projecting
** them. */
static void queryDropUncovered(DocQuery *p){
  if( !p->bProjectIfCovered || p->bCovered ) return;
  docextProjectionFree(p->pProj);
  p->pProj = 0;
}

/*------------------------------------------------------------------------
** A search by rings. A query ordered by a $near (no sort of its own) that
** wants at most N = skip+limit rows, over a collection with a geospatial
** index on the $near's path (2dsphere for a $near on the sphere, 2d for
** one in the plane), first reads only what lies within a radius r of the
** point: it is planned with one more filter, for planning only, {path:
** {$geoWithin: {$centerSphere: [point, r]}}} (in the plane, $center),
** which holds for every document within r of it (r grown by a hair for
** the rounding of the point's longitude and latitude), so the index reads
** the cells near the point. When N documents lie within r, they are the
** N nearest: the answer. Otherwise r grows eightfold, and beyond the last
** ring (a radian; in the plane, past the index's bounds) the query reads
** as without rings.
*/
#define QUERY_RING_FIRST 1e-4      /* radians: 640 m; in the plane, of the
                                   ** span of a 2d index's bounds */
#define QUERY_RING_LAST  1.0

/* The first radius for the query's search by rings, or -1 when it is not
** one to search so (see above): a $near without a maximum (one with a
** maximum bounds the index by itself), no hint, no _id constraint. */
static double queryRingFirst(DocQuery *p, const DocAccess *pAccess){
  DocIndex *aIdx = 0;
  DocValue hint;
  char *zErr = 0;
  int nIdx = 0, i, j, bMeters;
  if( !p->bNearSort || p->nMax<0 || p->nFilter>=DOCEXT_MAX_FILTERS
   || pAccess->eAccess!=DOCEXT_ACCESS_ALL || p->iPlanIndexOff>=0
   || (p->iOptOff>=0 && docextBsonFind(p->specCopy.a + p->iOptOff, "hint", 4, &hint))
   || docextMatcherNearMax(p->apFilter[p->iNearFilter])<INFINITY ){
    return -1;
  }
  p->bRingFlat = !docextGeoNearIsSphere(p->pNearGeo, &bMeters);
  if( docextCollIndexes(p->pColl, &aIdx, &nIdx, &zErr)!=SQLITE_OK ){
    sqlite3_free(zErr);
    return -1;                      /* (planning will say why) */
  }
  for(i=0; i<nIdx; i++){
    const DocIndex *pIdx = &aIdx[i];
    /* in the plane a 2d index; on the sphere a 2dsphere index, or a 2d
    ** index of longitudes and latitudes (its default bounds) */
    int bFits = p->bRingFlat ? pIdx->eGeo==DOCEXT_DIR_2D
              : pIdx->eGeo==DOCEXT_DIR_2DSPHERE
                || (pIdx->eGeo==DOCEXT_DIR_2D && pIdx->r2dMin==-180.0 && pIdx->r2dMax==180.0);
    if( !bFits || pIdx->aPartial ) continue;
    for(j=0; j<pIdx->nField; j++){
      const char *z = pIdx->azPath[j];
      if( docextDirIsGeo(pIdx->aDir[j]) && (int)strlen(z)==p->nNearPath
       && memcmp(z, p->zNearPath, p->nNearPath)==0 ){
        double rSpan = pIdx->r2dMax - pIdx->r2dMin;
        p->rRingLast = p->bRingFlat ? 2*rSpan : QUERY_RING_LAST;
        return p->bRingFlat ? QUERY_RING_FIRST*rSpan : QUERY_RING_FIRST;
      }
    }
  }
  return -1;
}

/* The planning filter of this round's ring into pOut. */
static int queryRingFilter(DocQuery *p, DocBuf *pOut){
  double lng, lat;
  int rc = SQLITE_OK;
  i64 iDoc, iPath, iOp, iArgs, iPt;
  docextGeoNearCenter(p->pNearGeo, &lng, &lat);
  iDoc = docextBsonStartDoc(&rc, pOut);
  iPath = docextBsonStartChild(&rc, pOut, DOC_DOCUMENT, p->zNearPath, p->nNearPath);
  iOp = docextBsonStartChild(&rc, pOut, DOC_DOCUMENT, "$geoWithin", 10);
  iArgs = p->bRingFlat ? docextBsonStartChild(&rc, pOut, DOC_ARRAY, "$center", 7)
                       : docextBsonStartChild(&rc, pOut, DOC_ARRAY, "$centerSphere", 13);
  iPt = docextBsonStartChild(&rc, pOut, DOC_ARRAY, "0", 1);
  docextBsonAppendDouble(&rc, pOut, "0", 1, lng);
  docextBsonAppendDouble(&rc, pOut, "1", 1, lat);
  docextBsonEndDoc(&rc, pOut, iPt);
  docextBsonAppendDouble(&rc, pOut, "1", 1, p->rRing*(1 + 1e-9) + 1e-12);
  docextBsonEndDoc(&rc, pOut, iArgs);
  docextBsonEndDoc(&rc, pOut, iOp);
  docextBsonEndDoc(&rc, pOut, iPath);
  docextBsonEndDoc(&rc, pOut, iDoc);
  return rc;
}

/* After a round's gathering: do skip+limit documents lie within the ring? */
static int queryRingEnough(DocQuery *p){
  i64 nKeep = p->nSkip + p->nMax;
  u8 aSpace[16];
  DocBuf key;
  int rc = SQLITE_OK, bEnough;
  const SortEntry *e;
  if( nKeep<=0 ) return 1;
  if( p->nEntry<nKeep ) return 0;
  e = &p->aEntry[nKeep-1];
  docextBufInit(&key, aSpace, sizeof(aSpace));
  docextSortDistanceKey(&rc, &key, p->rRing*docextGeoNearPerRadian(p->pNearGeo));
  bEnough = rc==SQLITE_OK
         && keyCmp(&p->sortKeys.a[e->iKey], e->nKey, key.a, (int)key.n)<=0;
  docextBufFree(&key);
  return bEnough;
}

/* Plan a query whose caller left the access path open. */
static int queryPlan(DocQuery *p, char **pzErr){
  const u8 *aaFilter[DOCEXT_MAX_FILTERS];
  const u8 *aSort = p->iSortOff>=0 ? p->specCopy.a + p->iSortOff : 0;
  DocValue hint, *pHint = 0;
  DocBuf ring;
  int nFilter = p->nFilter;
  /* (a routed part: what the router wants, not counting orphans) */
  i64 nWant = p->bNearSort ? -1            /* (the plan knows no distance) */
            : p->nMax>=0 ? p->nSkip + p->nMax
            : p->nRouterMax>=0 ? p->nRouterSkip + p->nRouterMax : -1;
  int i, rc;
  for(i=0; i<p->nFilter; i++) aaFilter[i] = p->specCopy.a + p->aFilterOff[i];
  if( p->iOptOff>=0 && docextBsonFind(p->specCopy.a + p->iOptOff, "hint", 4, &hint) ){
    pHint = &hint;
  }
  memset(&ring, 0, sizeof(ring));
  if( p->rRing>=0 ){
    rc = queryRingFilter(p, &ring);
    if( rc!=SQLITE_OK ) return rc;
    aaFilter[nFilter++] = ring.a;
  }
  rc = docextPlanNew(p->pColl, aaFilter, nFilter, aSort, pHint, p->pCollator,
                     p->iPlanIndexOff>=0 ? (const char*)p->specCopy.a + p->iPlanIndexOff : 0,
                     nWant, p->bExplain, &p->pPlan, pzErr);
  docextBufFree(&ring);
  if( rc!=SQLITE_OK ) return rc;
  if( p->pPlan->ePlan!=DOCEXT_PLAN_COLLSCAN ){
    p->access.eAccess = DOCEXT_ACCESS_PLAN;
    p->bIndexOrder = p->pPlan->bSorted && !p->bNearSort;
    if( !p->bCountOnly && p->pProj && p->pPlan->bExact && !p->bTtl
     && p->pPlan->ePlan==DOCEXT_PLAN_INDEX && p->pPlan->aScan[0].iIx!=0
     && (p->pSort==0 || p->bIndexOrder) ){
      DocIndex *aIdx = 0;
      int nIdx = 0;
      rc = docextCollIndexes(p->pColl, &aIdx, &nIdx, pzErr);
      if( rc!=SQLITE_OK ) return rc;
      for(i=0; i<nIdx; i++){
        const DocIndex *pIdx = &aIdx[i];
        if( pIdx->iId!=p->pPlan->aScan[0].iIx ) continue;
        p->bCovered = docextIndexKeepsVals(pIdx)
                   && !docextProjectionWantsText(p->pProj)
                   && queryProjCovered(p->specCopy.a + p->iProjOff, pIdx);
        break;
      }
    }
    queryDropUncovered(p);
    /* An exact plan's entries are the matches: no filter to check again,
    ** unless a projection wants the matched array position ("$"), which
    ** a covered one never does. */
    p->bSkipFilter = p->bCovered
        || (p->pPlan->bExact && !p->bTtl && (p->bCountOnly || p->pProj==0));
    if( p->bSkipFilter && p->bCountOnly && p->pPlan->ePlan==DOCEXT_PLAN_INDEX && !p->pPlan->bDedup ){
      rc = queryPrecount(p);
      if( rc!=SQLITE_OK ) return rc;
    }
    /* Whoever reads the rows will want their documents, unless the
    ** entries alone are the answer: read both in one statement. */
    p->bWithDocs = !p->bCovered && !(p->bCountOnly && p->bSkipFilter);
  }else{
    p->bNaturalDesc = p->pPlan->bNaturalDesc;
    queryDropUncovered(p);
  }
  return SQLITE_OK;
}

static int queryStartOnce(DocQuery *p, DocAccess *pAccess, char **pzErr);

int docextQueryStart(DocQuery *p, DocAccess *pAccess, char **pzErr){
  double r = queryRingFirst(p, pAccess);
  while( r>=0 ){
    DocAccess all;
    int rc;
    docextAccessInit(&all);
    p->rRing = r;
    rc = queryStartOnce(p, &all, pzErr);
    if( rc!=SQLITE_OK || queryRingEnough(p) ){
      p->rRing = -1;
      docextAccessClear(pAccess);
      return rc;
    }
    r = r*8<=p->rRingLast ? r*8 : -1;
  }
  p->rRing = -1;
  return queryStartOnce(p, pAccess, pzErr);
}

/* Start the query once (docextQueryStart: a search by rings may start it
** again). */
static int queryStartOnce(DocQuery *p, DocAccess *pAccess, char **pzErr){
  DocScan scan;
  int rc = SQLITE_OK;
  u8 aClassLo[1], aClassHi[1];
  DocIndex *aIdx = 0;
  int nIdx = 0, i;
  queryReset(p);
  p->access = *pAccess;
  docextAccessInit(pAccess);
  memset(&scan, 0, sizeof(scan));
  if( p->nMax==0 ){ p->bEof = 1; return SQLITE_OK; }
  rc = docextCollIndexes(p->pColl, &aIdx, &nIdx, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  for(i=0; i<nIdx; i++){
    if( aIdx[i].nExpireAfter>=0 ) p->bTtl = 1;
  }
  if( p->access.eAccess==DOCEXT_ACCESS_ALL ){
    rc = queryPlan(p, pzErr);
    if( rc!=SQLITE_OK ) return rc;
  }
  switch( p->access.eAccess ){
    case DOCEXT_ACCESS_PLAN:
      break;
    case DOCEXT_ACCESS_NONE:
      p->bEof = 1;
      return SQLITE_OK;
    case DOCEXT_ACCESS_DOCID:
      scan.eScan = DOCEXT_SCAN_DOCID;
      scan.iDoc = p->access.iDoc;
      rc = docextReaderStart(p->pReader, &scan);
      break;
    case DOCEXT_ACCESS_KEYS:
      rc = accessNormalizeKeys(&p->access);
      if( rc!=SQLITE_OK ) return rc;
      if( p->access.eAccess==DOCEXT_ACCESS_NONE ){ p->bEof = 1; return SQLITE_OK; }
      break;
    case DOCEXT_ACCESS_RANGE: {
      /* Within one type class: [lo or class start, hi or class end). */
      u8 c = p->access.bLo ? p->access.lo.a[0] : p->access.hi.a[0];
      aClassLo[0] = c;
      aClassHi[0] = (u8)(c+1);
      scan.eScan = DOCEXT_SCAN_RANGE;
      if( p->access.bLo ){
        scan.aLo = p->access.lo.a; scan.nLo = (int)p->access.lo.n;
        scan.bLoIncl = p->access.bLoIncl;
      }else{
        scan.aLo = aClassLo; scan.nLo = 1; scan.bLoIncl = 1;
      }
      if( p->access.bHi ){
        scan.aHi = p->access.hi.a; scan.nHi = (int)p->access.hi.n;
        scan.bHiIncl = p->access.bHiIncl;
      }else{
        scan.aHi = aClassHi; scan.nHi = 1; scan.bHiIncl = 0;
      }
      rc = docextReaderStart(p->pReader, &scan);
      break;
    }
    default:
      scan.eScan = DOCEXT_SCAN_ALL;
      scan.bDesc = p->bNaturalDesc;
      rc = docextReaderStart(p->pReader, &scan);
      break;
  }
  if( rc!=SQLITE_OK ) return rc;
  if( p->access.eAccess==DOCEXT_ACCESS_KEYS ){
    /* The first key (normalized: there is one); nextCandidate() moves on
    ** to the others. (No "empty" scan of an id no document has: a damaged
    ** X_docs may hold any id.) */
    scan.eScan = DOCEXT_SCAN_KEY;
    scan.aLo = accessKey(&p->access, p->iKey++, &scan.nLo);
    rc = docextReaderStart(p->pReader, &scan);
    if( rc!=SQLITE_OK ) return rc;
  }
  if( p->pSort && !p->bIndexOrder ){
    rc = sortGather(p, pzErr);
    if( rc==SQLITE_OK ) rc = sortedNext(p);
    return rc;
  }
  return streamNext(p, pzErr);
}

int docextQueryNext(DocQuery *p, char **pzErr){
  p->bResult = 0;
  if( p->bEof ) return SQLITE_OK;
  if( p->bSorted ) return sortedNext(p);
  return streamNext(p, pzErr);
}

int docextQueryEof(DocQuery *p){
  return p->bEof;
}

int docextQueryDocid(DocQuery *p, i64 *piDoc){
  int rc = p->bPrecount ? queryReplay(p) : SQLITE_OK;
  *piDoc = p->iCur;
  return rc;
}

int docextQueryPosition(DocQuery *p){
  return p->iPos;
}

int docextQueryStored(DocQuery *p, const u8 **paDoc, char **pzErr){
  return queryDoc(p, paDoc, pzErr);
}

void docextQueryStats(DocQuery *p, DocQueryStats *pStats){
  pStats->nKeys = p->nKeys;
  pStats->nDocs = p->nDocs;
  pStats->nReturned = p->nReturned;
  pStats->bSortInMemory = p->pSort!=0 && !p->bIndexOrder;
  pStats->bIndexOnly = p->bSkipFilter && (p->bCountOnly || p->bCovered) && p->nDocs==0;
}

const DocPlan *docextQueryPlan(DocQuery *p){
  return p->pPlan;
}

DocText *docextQueryText(DocQuery *p){
  return p->pText;
}

int docextQueryResultJson(DocQuery *p, DocBuf *pOut, int eMode, char **pzErr){
  const u8 *aDoc = 0;
  int rc;
  if( p->pProj==0 ){
    /* the stored document itself: the reader checks it while writing it */
    rc = queryOnDoc(p, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    return docextReaderDocJson(p->pReader, pOut, eMode, pzErr);
  }
  rc = docextQueryResult(p, &aDoc, pzErr);
  if( rc==SQLITE_OK ) docextJsonWriteDoc(&rc, pOut, aDoc, eMode);
  return rc;
}

int docextQueryResult(DocQuery *p, const u8 **paDoc, char **pzErr){
  const u8 *aDoc = 0;
  int rc;
  if( p->bCovered && p->bVals && !p->bSorted ){
    /* covered: the projection of the entry's vals, no document read */
    if( !p->bResult ){
      rc = docextProjectionApply(p->pProj, p->vals.a, -1, &p->result, pzErr);
      if( rc!=SQLITE_OK ) return rc;
      p->bResult = 1;
    }
    *paDoc = p->result.a;
    return SQLITE_OK;
  }
  rc = queryDoc(p, &aDoc, pzErr);
  if( rc!=SQLITE_OK || p->pProj==0 ){
    *paDoc = aDoc;
    return rc;
  }
  if( !p->bResult ){
    rc = docextProjectionApply(p->pProj, aDoc, p->iPos, &p->result, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    p->bResult = 1;
  }
  *paDoc = p->result.a;
  return SQLITE_OK;
}
