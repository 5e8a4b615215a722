/*
** docext_query.c — running a find().
**
** A DocQuery is compiled once (filters, projection, sort, options) and
** then run over the candidates of an access path (DocAccess: every
** document, one document id, a set of _id keys, or a range of them).
** Results come out in MongoDB's order of operations: filter, sort, skip,
** limit, then SQL's OFFSET and LIMIT on top, then the projection.
**
** Without a sort, documents stream: nothing is read ahead, and a document
** is only loaded when a filter or a caller needs it (so count(*) over an
** unfiltered collection never decodes one). With a sort, the matching
** documents' sort keys (docextSortKey) and ids are gathered first; when
** skip+limit bounds the result to N rows, a heap keeps only the best N, so
** a top-N never sorts everything. The rows are then read back by id.
*/
#include "docextInt.h"
#include <stdlib.h>

/*------------------------------------------------------------------------
** Access paths
*/

void docextAccessInit(DocAccess *p){
  memset(p, 0, sizeof(*p));
  p->eAccess = DOCEXT_ACCESS_ALL;
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
  for(i=0; i<p->nKey; i++){
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

struct DocQuery {
  DocColl *pColl;
  DocReader *pReader;
  DocMatcher *apFilter[DOCEXT_MAX_FILTERS];   /* ANDed */
  int nFilter;
  DocProjection *pProj;     /* may be NULL */
  DocSort *pSort;           /* NULL when no (or an empty) sort */
  i64 nSkip;                /* results to skip (options.skip + OFFSET) */
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
};

void docextQuerySpecInit(DocQuerySpec *p){
  memset(p, 0, sizeof(*p));
  p->nLimit = -1;
}

/* An integral, non-negative number from an options document. */
static int optionCount(const DocValue *v, const char *zName, i64 *pN, char **pzErr){
  double d;
  if( !docextValueIsNumber(v) ){
    *pzErr = sqlite3_mprintf("docext: option %s must be a number", zName);
    return SQLITE_ERROR;
  }
  d = docextValueToDouble(v);
  if( d!=d || d<-9.2e18 || d>9.2e18 || d!=(double)(i64)d ){
    *pzErr = sqlite3_mprintf("docext: option %s must be an integer", zName);
    return SQLITE_ERROR;
  }
  *pN = (i64)d;
  return SQLITE_OK;
}

/* Read {hint, skip, limit}. */
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
    }else{
      *pzErr = sqlite3_mprintf("docext: unknown option '%s' in options "
                               "(known: hint, skip, limit)", it.zKey);
      rc = SQLITE_ERROR;
    }
  }
  return rc;
}

/* A hint names an index by name or key pattern. Only the _id index exists
** until secondary indexes do. */
int docextQueryCheckHint(DocColl *pColl, const DocValue *v, char **pzErr){
  if( v->type==DOC_STRING ){
    int n;
    const char *z = docextValueStr(v, &n);
    if( n==4 && memcmp(z, "_id_", 4)==0 ) return SQLITE_OK;
    *pzErr = sqlite3_mprintf("docext: hint: no index named '%s' on %s",
                             z, docextCollName(pColl));
    return SQLITE_ERROR;
  }
  if( v->type==DOC_DOCUMENT ){
    DocIter it;
    docextIterInitValue(&it, v);
    if( docextIterNext(&it) && strcmp(it.zKey, "_id")==0
     && docextValueIsNumber(&it.v) && docextValueToDouble(&it.v)==1.0
     && !docextIterNext(&it) ){
      return SQLITE_OK;
    }
    *pzErr = sqlite3_mprintf("docext: hint: no index with that key pattern on %s",
                             docextCollName(pColl));
    return SQLITE_ERROR;
  }
  *pzErr = sqlite3_mprintf("docext: hint must be an index name or a key pattern");
  return SQLITE_ERROR;
}

int docextQueryNew(DocColl *pColl, const DocQuerySpec *pSpec, DocQuery **ppQuery, char **pzErr){
  DocQuery *p = sqlite3_malloc64(sizeof(*p));
  i64 nSkip = 0, nLimit = 0;
  int rc, i;
  *ppQuery = 0;
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->pColl = pColl;
  docextAccessInit(&p->access);
  rc = docextReaderNew(docextCollStore(pColl), &p->pReader);
  for(i=0; rc==SQLITE_OK && i<pSpec->nFilter; i++){
    rc = docextMatcherNew(pSpec->aaFilter[i], &p->apFilter[i], pzErr);
    if( rc==SQLITE_OK ) p->nFilter++;
  }
  if( rc==SQLITE_OK && pSpec->aProjection ){
    rc = docextProjectionNew(pSpec->aProjection, &p->pProj, pzErr);
  }
  if( rc==SQLITE_OK && pSpec->aSort ){
    rc = docextSortNew(pSpec->aSort, &p->pSort, pzErr);
    if( rc==SQLITE_OK && docextSortFieldCount(p->pSort)==0 ){
      docextSortFree(p->pSort);
      p->pSort = 0;
    }
  }
  if( rc==SQLITE_OK && pSpec->aOptions ){
    rc = parseOptions(p, pSpec->aOptions, &nSkip, &nLimit, pzErr);
  }
  if( rc!=SQLITE_OK ){
    docextQueryFree(p);
    return rc;
  }
  /* MongoDB's skip/limit first, then SQL's OFFSET/LIMIT over that. */
  p->nSkip = nSkip + (pSpec->nOffset>0 ? pSpec->nOffset : 0);
  p->nMax = nLimit>0 ? nLimit - (pSpec->nOffset>0 ? pSpec->nOffset : 0) : -1;
  if( nLimit>0 && p->nMax<0 ) p->nMax = 0;
  if( pSpec->nLimit>=0 && (p->nMax<0 || pSpec->nLimit<p->nMax) ) p->nMax = pSpec->nLimit;
  *ppQuery = p;
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
}

void docextQueryFree(DocQuery *p){
  if( p ){
    queryReset(p);
    docextReaderFree(p->pReader);
    int i;
    for(i=0; i<p->nFilter; i++) docextMatcherFree(p->apFilter[i]);
    docextProjectionFree(p->pProj);
    docextSortFree(p->pSort);
    docextBufFree(&p->result);
    docextBufFree(&p->sortKeys);
    sqlite3_free(p);
  }
}

/* Step the reader to the next candidate row: SQLITE_ROW or SQLITE_DONE. */
static int nextCandidate(DocQuery *p){
  int rc = docextReaderStep(p->pReader);
  while( rc==SQLITE_DONE && p->access.eAccess==DOCEXT_ACCESS_KEYS
      && p->iKey<p->access.nKey ){
    DocScan scan;
    memset(&scan, 0, sizeof(scan));
    scan.eScan = DOCEXT_SCAN_KEY;
    scan.aLo = accessKey(&p->access, p->iKey++, &scan.nLo);
    rc = docextReaderStart(p->pReader, &scan);
    if( rc==SQLITE_OK ) rc = docextReaderStep(p->pReader);
  }
  return rc;
}

/* Does the current candidate pass the filters? Loads it only if needed. */
static int candidateMatches(DocQuery *p, int *pbMatch, char **pzErr){
  const u8 *aDoc;
  int rc = SQLITE_OK, i;
  *pbMatch = 1;
  p->iPos = -1;
  if( p->nFilter==0 ) return SQLITE_OK;
  rc = docextReaderDoc(p->pReader, &aDoc, pzErr);
  for(i=0; rc==SQLITE_OK && *pbMatch && i<p->nFilter; i++){
    int iPos = -1;
    rc = docextMatcherMatch(p->apFilter[i], aDoc, pbMatch, &iPos, pzErr);
    if( p->iPos<0 ) p->iPos = iPos;
  }
  return rc;
}

/* Streaming: advance to the next result that passes filters and skip. */
static int streamNext(DocQuery *p, char **pzErr){
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
static int entryCmp(DocQuery *p, const SortEntry *a, const SortEntry *b){
  int c = keyCmp(&p->sortKeys.a[a->iKey], a->nKey, &p->sortKeys.a[b->iKey], b->nKey);
  if( c ) return c;
  return a->iDoc<b->iDoc ? -1 : a->iDoc>b->iDoc;
}

/* Max-heap sift-down over aEntry[0..n). */
static void heapDown(DocQuery *p, int i, int n){
  for(;;){
    int l = 2*i+1, r = l+1, m = i;
    if( l<n && entryCmp(p, &p->aEntry[l], &p->aEntry[m])>0 ) m = l;
    if( r<n && entryCmp(p, &p->aEntry[r], &p->aEntry[m])>0 ) m = r;
    if( m==i ) return;
    { SortEntry t = p->aEntry[i]; p->aEntry[i] = p->aEntry[m]; p->aEntry[m] = t; }
    i = m;
  }
}

static void heapUp(DocQuery *p, int i){
  while( i>0 ){
    int parent = (i-1)/2;
    if( entryCmp(p, &p->aEntry[i], &p->aEntry[parent])<=0 ) return;
    { SortEntry t = p->aEntry[i]; p->aEntry[i] = p->aEntry[parent]; p->aEntry[parent] = t; }
    i = parent;
  }
}

static DocQuery *gSortQuery;    /* qsort() takes no context */
static int entryQsortCmp(const void *a, const void *b){
  return entryCmp(gSortQuery, (const SortEntry*)a, (const SortEntry*)b);
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
    if( rc==SQLITE_OK && bMatch ) rc = docextReaderDoc(p->pReader, &aDoc, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    if( !bMatch ) continue;
    e.iKey = (int)p->sortKeys.n;
    docextSortKey(&rc, p->pSort, aDoc, &p->sortKeys);
    if( rc!=SQLITE_OK ) return rc;
    e.nKey = (int)p->sortKeys.n - e.iKey;
    e.iDoc = docextReaderDocid(p->pReader);
    e.iPos = p->iPos;
    if( nKeep>=0 && p->nEntry>=nKeep ){
      /* Bounded: replace the worst kept entry if this one is better. */
      if( nKeep>0 && entryCmp(p, &e, &p->aEntry[0])<0 ){
        p->aEntry[0] = e;
        heapDown(p, 0, p->nEntry);
      }
      continue;
    }
    if( p->nEntry==p->nEntryAlloc ){
      int nNew = p->nEntryAlloc ? p->nEntryAlloc*2 : 64;
      SortEntry *aNew = sqlite3_realloc64(p->aEntry, sizeof(SortEntry)*nNew);
      if( aNew==0 ) return SQLITE_NOMEM;
      p->aEntry = aNew;
      p->nEntryAlloc = nNew;
    }
    p->aEntry[p->nEntry++] = e;
    if( nKeep>=0 ) heapUp(p, p->nEntry-1);
  }
  gSortQuery = p;
  qsort(p->aEntry, p->nEntry, sizeof(SortEntry), entryQsortCmp);
  gSortQuery = 0;
  p->bSorted = 1;
  p->iEntry = (int)(p->nSkip<p->nEntry ? p->nSkip : p->nEntry);
  return SQLITE_OK;
}

/* Sorted: move to the next gathered entry and read its document. */
static int sortedNext(DocQuery *p){
  DocScan scan;
  int rc;
  if( p->iEntry>=p->nEntry || (p->nMax>=0 && p->nReturned>=p->nMax) ){
    p->bEof = 1;
    return SQLITE_OK;
  }
  memset(&scan, 0, sizeof(scan));
  scan.eScan = DOCEXT_SCAN_DOCID;
  scan.iDoc = p->aEntry[p->iEntry].iDoc;
  p->iPos = p->aEntry[p->iEntry].iPos;
  p->iEntry++;
  p->nReturned++;
  rc = docextReaderStart(p->pReader, &scan);
  if( rc==SQLITE_OK ) rc = docextReaderStep(p->pReader);
  if( rc==SQLITE_ROW ) return SQLITE_OK;
  return rc==SQLITE_DONE ? SQLITE_CORRUPT_VTAB : rc;
}

int docextQueryStart(DocQuery *p, DocAccess *pAccess, char **pzErr){
  DocScan scan;
  int rc = SQLITE_OK;
  u8 aClassLo[1], aClassHi[1];
  queryReset(p);
  p->access = *pAccess;
  docextAccessInit(pAccess);
  memset(&scan, 0, sizeof(scan));
  if( p->nMax==0 ){ p->bEof = 1; return SQLITE_OK; }
  switch( p->access.eAccess ){
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
      rc = docextReaderStart(p->pReader, &scan);
      break;
  }
  if( rc!=SQLITE_OK ) return rc;
  if( p->access.eAccess==DOCEXT_ACCESS_KEYS ){
    /* An empty reader: the first nextCandidate() moves to key 0. */
    DocScan none;
    memset(&none, 0, sizeof(none));
    none.eScan = DOCEXT_SCAN_DOCID;
    none.iDoc = -1;   /* no document has id -1: docids are positive */
    rc = docextReaderStart(p->pReader, &none);
    if( rc!=SQLITE_OK ) return rc;
  }
  if( p->pSort ){
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

i64 docextQueryDocid(DocQuery *p){
  return docextReaderDocid(p->pReader);
}

int docextQueryStored(DocQuery *p, const u8 **paDoc, char **pzErr){
  return docextReaderDoc(p->pReader, paDoc, pzErr);
}

int docextQueryResult(DocQuery *p, const u8 **paDoc, char **pzErr){
  const u8 *aDoc;
  int rc = docextReaderDoc(p->pReader, &aDoc, pzErr);
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
