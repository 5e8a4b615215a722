/*
** docext_index.c — secondary indexes: definitions, keys, maintenance, TTL,
** and the index commands (doc_create_index, doc_drop_index, doc_indexes,
** doc_check, doc_stats, doc_ttl_sweep).
**
** ENTRIES. X_idx(ix, key, docid, vals) WITHOUT ROWID holds every secondary
** index: ix is X_idxdef.id, key the concatenation, field by field, of
** docextKeyAppend() of the value (bDesc for a -1 field), docid the
** document's X_docs.id, vals the document projected onto the index's
** fields or NULL (see idxValsCompute: covered queries read it). The _id
** index is X_docs.idkey (docext_storage.c);
** it is described by a DocIndex too (iId 0, "_id_") but never written here.
**
** DEFINITIONS. X_idxdef(id, name, spec): spec is a BSON document
**     { v: 1,                          format version (int32)
**       name: "slug_1",                the same as the name column
**       key: { slug: 1 },              normalized pattern: int32 1 / -1,
**                                      or the string "hashed",
**                                      "2dsphere" or "2d"
**       unique: true,                  present only when true
**       sparse: true,                  present only when true
**       expireAfterSeconds: NumberLong(3600),      TTL indexes only
**       partialFilterExpression: { … },            partial indexes only
**       multikey: false,               set once some document put an array
**                                      on an indexed path (never cleared)
**       multikeyPaths: [ NumberLong(1) ],  multikey indexes: per field, a
**                                      bit for each component of its path
**                                      where some document had an array
**                                      (bit 0: the first; never cleared);
**                                      absent or malformed: every bit set
**       multikeyVals: true,            multikey indexes whose entries' vals
**                                      are kept while multikey (every
**                                      index docext creates now); absent:
**                                      written by an older docext, whose
**                                      vals may be stale, so never read
**       hashMix: true }                hashed indexes whose hashes go
**                                      through MurmurHash3's finalizer
**                                      (every one docext creates now, so
**                                      that a partition's index on a hashed
**                                      shard key orders its entries as the
**                                      router's chunks); absent: FNV-1a
**                                      alone, as an older docext wrote it
** X_config row ('idxtag', n) is a random 64-bit tag rewritten by every
** change to X_idxdef (create, drop, multikey flag or paths): see "The
** cache" below.
**
** KEYS follow MongoDB's key generator: per field, the value at the dotted
** path; a missing value is null; an array met on the path is expanded, one
** key per element (its elements that are arrays are indexed whole; an
** empty array at the end of a path is undefined, one before its end gives
** null); fields whose paths cross the same array take their values from the
** same element, and two different arrays in one document are "parallel
** arrays", an error; a numeric path component indexes an array (no
** expansion). A sparse index drops the keys whose fields are all missing;
** a partial index has no keys for documents its filter rejects. Keys of one
** document are distinct and sorted (memcmp order).
**
** 2DSPHERE fields store, instead of the value, the cells that cover the
** geometry there (docextGeoCells: int64 cell ids), one entry per cell; 2D
** fields the square of each legacy point there (docextGeo2dCells, within
** the index's min, max and bits, kept in its spec). A trailing array is
** one value there ([x, y] is a point), and a document with null, an empty
** array or nothing there has no entries at all, as MongoDB's geospatial
** indexes are sparse on their geometry. A value that is no valid geometry
** is an error, as in MongoDB.
**
** HASHED fields store, instead of the value, the int64 FNV-1a-64 hash of
** docextKeyAppend() of the value normalized so that numerically equal
** values hash equal: every number (int32, int64, double, decimal128)
** becomes an int64 first — doubles and decimals truncated toward zero as
** MongoDB does, NaN 0, out of range the nearest int64 bound (an integral
** decimal within the int64 range is taken exactly, not through a double,
** so that it hashes as the equal int64 does). FNV-1a-64:
** h = 0xcbf29ce484222325, then per byte h ^= b, h *= 0x100000001b3.
** The hash is part of the stored format: never change it.
**
** TTL. A document whose TTL field holds a date (an array of dates: the
** earliest) expires once date + expireAfterSeconds < docextClockNowMs().
** Expired documents have all their date keys below a cut-off, so a sweep is
** one range scan of the TTL index.
*/
#include "docextInt.h"
#include <math.h>
#include <stdarg.h>

#define IDX_MAX_FIELDS  32          /* fields in one key pattern, as MongoDB */
#define IDX_SPEC_VERSION 1
#define IDX_MAX_PROBLEMS 100        /* doc_check reports at most this many */
#define IDX_MAX_VALS    1024        /* larger vals are not stored (NULL) */

static const u8 idxNoBytes[8] = {0};
static const DocValue idxNullValue = { DOC_NULL, idxNoBytes, 0 };
static const DocValue idxUndefinedValue = { DOC_UNDEFINED, idxNoBytes, 0 };

/*------------------------------------------------------------------------
** Key sets: the keys of one document for one index.
*/
typedef struct KeySet KeySet;
struct KeySet {
  DocBuf buf;               /* keys back to back */
  int *aOff;                /* key i is buf.a[aOff[i]] .. + aLen[i] */
  int *aLen;
  DocValue *aVal;           /* nField values per key (for E11000 messages) */
  int nKey;
  int nAlloc;
  int nField;
  int bMultikey;            /* an array was met on an indexed path */
  u64 aMk[IDX_MAX_FIELDS];  /* where, per field (as DocIndex.aMultikeyPaths) */
  DocProjection *pVals;     /* the index's vals projection (idxValsCompute) */
  int bValsTried;           /* pVals was compiled (or could not be) ... */
  uint32_t valsMask;        /* ... for these fields (bit j: field j) */
  DocBuf vals;              /* the document's vals, when computed */
};

static void ksReset(KeySet *p, int nField){
  docextBufReset(&p->buf);
  p->nKey = 0;
  p->bMultikey = 0;
  memset(p->aMk, 0, sizeof(p->aMk));
  if( p->nField!=nField ){
    sqlite3_free(p->aVal);
    p->aVal = 0;
    sqlite3_free(p->aOff);
    sqlite3_free(p->aLen);
    p->aOff = p->aLen = 0;
    p->nAlloc = 0;
    p->nField = nField;
  }
}

static void ksFree(KeySet *p){
  docextBufFree(&p->buf);
  docextBufFree(&p->vals);
  docextProjectionFree(p->pVals);
  sqlite3_free(p->aOff);
  sqlite3_free(p->aLen);
  sqlite3_free(p->aVal);
  memset(p, 0, sizeof(*p));
}

static const u8 *ksKey(const KeySet *p, int i, int *pn){
  *pn = p->aLen[i];
  return &p->buf.a[p->aOff[i]];
}

static int ksCompare(const KeySet *p, int i, const KeySet *q, int j){
  return docextKeyCmp(&p->buf.a[p->aOff[i]], p->aLen[i], &q->buf.a[q->aOff[j]], q->aLen[j]);
}

/* For docextSort of key numbers. */
static int ksCmpCb(void *pCtx, const void *x, const void *y){
  KeySet *p = (KeySet*)pCtx;
  return ksCompare(p, *(const int*)x, p, *(const int*)y);
}

/* Register the key that occupies buf.a[iStart..buf.n) with its values. */
static int ksAdd(KeySet *p, i64 iStart, const DocValue *aVal){
  if( p->nKey==p->nAlloc ){
    int nNew = p->nAlloc ? p->nAlloc*2 : 4;
    int *aOff = sqlite3_realloc64(p->aOff, sizeof(int)*nNew);
    int *aLen = aOff ? sqlite3_realloc64(p->aLen, sizeof(int)*nNew) : 0;
    DocValue *aV;
    if( aOff ) p->aOff = aOff;
    if( aLen ) p->aLen = aLen;
    if( aLen==0 ) return SQLITE_NOMEM;
    aV = sqlite3_realloc64(p->aVal, sizeof(DocValue)*nNew*(p->nField ? p->nField : 1));
    if( aV==0 ) return SQLITE_NOMEM;
    p->aVal = aV;
    p->nAlloc = nNew;
  }
  p->aOff[p->nKey] = (int)iStart;
  p->aLen[p->nKey] = (int)(p->buf.n - iStart);
  memcpy(&p->aVal[p->nKey*p->nField], aVal, sizeof(DocValue)*p->nField);
  p->nKey++;
  return SQLITE_OK;
}

/* Sort the keys and drop duplicates. */
static int ksSortDistinct(KeySet *p){
  int *aPerm, *aOff, *aLen, i, n = 0;
  DocValue *aVal;
  if( p->nKey<2 ) return SQLITE_OK;
  aPerm = sqlite3_malloc64(sizeof(int)*p->nKey*4);
  aVal = sqlite3_malloc64(sizeof(DocValue)*p->nKey*p->nField);
  if( aPerm==0 || aVal==0 ){
    sqlite3_free(aPerm);
    sqlite3_free(aVal);
    return SQLITE_NOMEM;
  }
  aOff = &aPerm[p->nKey*2];
  aLen = &aPerm[p->nKey*3];
  for(i=0; i<p->nKey; i++) aPerm[i] = i;
  docextSort(aPerm, p->nKey, sizeof(int), &aPerm[p->nKey], ksCmpCb, p);
  for(i=0; i<p->nKey; i++){
    int k = aPerm[i];
    if( n>0 && docextKeyCmp(&p->buf.a[aOff[n-1]], aLen[n-1],
                           &p->buf.a[p->aOff[k]], p->aLen[k])==0 ) continue;
    aOff[n] = p->aOff[k];
    aLen[n] = p->aLen[k];
    memcpy(&aVal[n*p->nField], &p->aVal[k*p->nField], sizeof(DocValue)*p->nField);
    n++;
  }
  memcpy(p->aOff, aOff, sizeof(int)*n);
  memcpy(p->aLen, aLen, sizeof(int)*n);
  memcpy(p->aVal, aVal, sizeof(DocValue)*n*p->nField);
  p->nKey = n;
  sqlite3_free(aPerm);
  sqlite3_free(aVal);
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Hashed fields
*/

/* An integral decimal128 within the int64 range: 1 and its value in *pv.
** (Through a double, NumberDecimal("9007199254740993") would hash apart
** from the equal NumberLong.) */
static int idxDecimalInt64(const u8 *a, i64 *pv){
  char zDigits[40];
  int bNeg, iExp, n, i;
  u64 u = 0;
  if( docextDec128Parts(a, &bNeg, zDigits, &iExp)!=DOCEXT_DEC_FINITE ) return 0;
  n = (int)strlen(zDigits);
  while( n>1 && iExp<0 && zDigits[n-1]=='0' ){ n--; iExp++; }
  if( iExp<0 && !(n==1 && zDigits[0]=='0') ) return 0;     /* a fraction */
  if( zDigits[0]=='0' ){ *pv = 0; return 1; }
  if( n+iExp>19 ) return 0;
  for(i=0; i<n+iExp; i++){
    u = u*10 + (u64)(i<n ? zDigits[i]-'0' : 0);
  }
  if( bNeg ){
    if( u>(u64)1<<63 ) return 0;
    *pv = (i64)(0 - u);
  }else{
    if( u>(u64)0x7fffffffffffffffLL ) return 0;
    *pv = (i64)u;
  }
  return 1;
}

/* A number as MongoDB's hasher sees it: an int64, truncated toward zero. */
static i64 idxHashNumber(const DocValue *v){
  double d;
  i64 iDec;
  switch( v->type ){
    case DOC_INT32: return docextValueI32(v);
    case DOC_INT64: return docextValueI64(v);
    case DOC_DOUBLE: d = docextValueDouble(v); break;
    default:
      if( idxDecimalInt64(v->p, &iDec) ) return iDec;
      d = docextDec128ToDouble(v->p);
      break;
  }
  if( isnan(d) ) return 0;
  if( d>=9223372036854775807.0 ) return (i64)0x7fffffffffffffffLL;
  if( d<-9223372036854775808.0 ) return (i64)(-0x7fffffffffffffffLL - 1);
  return (i64)d;
}

i64 docextIndexHashValue(const DocIndex *pIdx, int *pRc, const DocValue *v){
  u8 aSpace[128], a8[8];
  DocBuf b;
  DocValue norm = *v;
  u64 x;
  if( docextValueIsNumber(v) ) norm = docextValue64(DOC_INT64, idxHashNumber(v), a8);
  docextBufInit(&b, aSpace, sizeof(aSpace));
  docextKeyAppendColl(pRc, &b, &norm, 0, pIdx->pCollator);
  x = *pRc==SQLITE_OK ? docextHashBytes(b.a, b.n) : 0;
  docextBufFree(&b);
  if( pIdx->bHashMix ){
    /* MurmurHash3's finalizer, a bijection: FNV-1a leaves the top bits of
    ** values that differ in their last bytes (consecutive ObjectIds) alike,
    ** and the top bits pick a shard key's chunk. */
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
  }
  return (i64)x;
}

/* Append the key of the hash of v. */
static void idxHashAppend(const DocIndex *pIdx, int *pRc, DocBuf *pKey, const DocValue *v){
  u8 a8[8];
  DocValue h = docextValue64(DOC_INT64, docextIndexHashValue(pIdx, pRc, v), a8);
  docextKeyAppend(pRc, pKey, &h, 0);
}

/*------------------------------------------------------------------------
** Key generation
*/
#define KF_WALK     0   /* following the path from v */
#define KF_VALUE    1   /* v is the value */
#define KF_MISSING  2   /* nothing there: null */
#define KF_LEAFARR  3   /* v is an array at the end of the path */
#define KF_STUCK    4   /* v is an array before the end of the path */

typedef struct KField KField;
struct KField {
  DocValue v;               /* see eState */
  const char *z; int n;     /* path still to follow from v; n<0: none */
  const char *zName;        /* the key v was found under (messages) */
  int nName;
  int eState;               /* KF_* */
};

typedef struct KGen KGen;
struct KGen {
  const DocIndex *pIdx;
  KeySet *pSet;
  char **pzErr;
  const u8 *aDoc;           /* the document (a text index reads all of it) */
  DocValue *aVal;           /* text terms: the values of the other fields */
  int jText;                /* and the position of _fts */
  DocBuf term;              /* the current term as a BSON string value */
};


/* Follow f's path through documents (and numbered array elements) until
** it ends, goes missing, or meets an array to expand. */
static void kfDescend(KField *f){
  while( f->eState==KF_WALK ){
    const char *zDot;
    int nComp, iIdx;
    DocValue v;
    if( f->n<0 ){
      f->eState = f->v.type==DOC_ARRAY ? KF_LEAFARR : KF_VALUE;
      return;
    }
    zDot = memchr(f->z, '.', f->n);
    nComp = zDot ? (int)(zDot - f->z) : f->n;
    if( f->v.type==DOC_DOCUMENT ){
      if( !docextBsonFind(f->v.p, f->z, nComp, &v) ){
        f->eState = KF_MISSING;
        return;
      }
    }else if( f->v.type==DOC_ARRAY ){
      DocIter it;
      int bFound = 0;
      if( !docextPathIndex(f->z, nComp, &iIdx) ){
        f->eState = KF_STUCK;
        return;
      }
      docextIterInitValue(&it, &f->v);
      while( docextIterNext(&it) ){
        if( iIdx--==0 ){ v = it.v; bFound = 1; break; }
      }
      if( !bFound ){
        f->eState = KF_MISSING;
        return;
      }
      if( nComp==f->n ){
        /* An element named by position is the value, arrays included. */
        f->v = v;
        f->zName = f->z;
        f->nName = nComp;
        f->n = -1;
        f->eState = KF_VALUE;
        return;
      }
    }else{
      f->eState = KF_MISSING;
      return;
    }
    f->v = v;
    f->zName = f->z;
    f->nName = nComp;
    if( nComp==f->n ){
      f->n = -1;
    }else{
      f->z += nComp+1;
      f->n -= nComp+1;
    }
  }
}

u64 docextIndexMultikeyPath(const DocIndex *pIdx, int j){
  if( !pIdx->bMultikey ) return 0;
  return pIdx->aMultikeyPaths ? pIdx->aMultikeyPaths[j] : ~(u64)0;
}

/* The multikey path bit of the array field f stopped at (KF_LEAFARR or
** KF_STUCK) on path zPath: bit c for component c (from 0), bit 63 for any
** component from 63 on. f->z holds the components left after the array. */
static u64 kfArrayBit(const char *zPath, const KField *f){
  int nLeft = f->n>=0 ? docextPathComponents(f->z, f->n) : 0;
  int c = docextPathComponents(zPath, (int)strlen(zPath)) - nLeft - 1;
  if( c<0 ) c = 0;
  return (u64)1 << (c<63 ? c : 63);
}

/* The key of one combination of field values aVal (iCell: the cell of the
** 2dsphere field, if any) into pSet. */
static int kgEmitKey(KGen *g, DocValue *aVal, i64 iCell){
  const DocIndex *pIdx = g->pIdx;
  KeySet *pSet = g->pSet;
  i64 iStart = pSet->buf.n;
  int i, rc = SQLITE_OK;
  for(i=0; i<pIdx->nField; i++){
    if( pIdx->aDir[i]==0 ){
      idxHashAppend(pIdx, &rc, &pSet->buf, &aVal[i]);
    }else if( docextDirIsGeo(pIdx->aDir[i]) ){
      u8 a8[8];
      DocValue c = docextValue64(DOC_INT64, iCell, a8);
      docextKeyAppend(&rc, &pSet->buf, &c, 0);
    }else{
      docextKeyAppendColl(&rc, &pSet->buf, &aVal[i], pIdx->aDir[i]<0, pIdx->pCollator);
    }
  }
  if( rc==SQLITE_OK ) rc = ksAdd(pSet, iStart, aVal);
  return rc;
}

/* The keys of a combination whose geospatial field (j) holds v: one per
** cell covering it (2dsphere), or per point (2d). Null (or nothing) there:
** none, as such an index is sparse on its geometry; a value that is no
** geometry: MongoDB's error 16755. */
static int kgEmitCells(KGen *g, DocValue *aVal, int j, int bMissing){
  const DocIndex *pIdx = g->pIdx;
  const DocValue *v = &aVal[j];
  i64 *aCell = 0;
  int nCell = 0, k, rc;
  char *zWhy = 0;
  if( bMissing || v->type==DOC_NULL || v->type==DOC_UNDEFINED
   || (v->type==DOC_ARRAY && docextIterCount(v)==0) ){
    return SQLITE_OK;
  }
  if( pIdx->aDir[j]==DOCEXT_DIR_2D ){
    rc = docextGeo2dCells(v, pIdx->r2dMin, pIdx->r2dMax, pIdx->n2dBits, &aCell, &nCell, &zWhy);
  }else{
    rc = docextGeoCells(v, &aCell, &nCell, &zWhy);
  }
  if( rc==SQLITE_ERROR ){
    *g->pzErr = sqlite3_mprintf("docext: Can't extract geo keys for index %s "
                                "from field %s: %s", pIdx->zName ? pIdx->zName : "",
                                pIdx->azPath[j], zWhy);
    sqlite3_free(zWhy);
    return SQLITE_ERROR;
  }
  sqlite3_free(zWhy);
  if( nCell>1 ){
    g->pSet->bMultikey = 1;
    g->pSet->aMk[j] |= 1;
  }
  for(k=0; k<nCell && rc==SQLITE_OK; k++) rc = kgEmitKey(g, aVal, aCell[k]);
  sqlite3_free(aCell);
  return rc;
}

/* One text term's key (docextTextTerms' callback): its values in fields
** _fts and _ftsx, the other fields' as they are. */
static int kgEmitTerm(void *pCtx, const char *z, int n, double r){
  KGen *g = (KGen*)pCtx;
  int j = g->jText, rc = SQLITE_OK;
  u8 a8[8];
  DocValue aVal[IDX_MAX_FIELDS];
  memcpy(aVal, g->aVal, sizeof(DocValue)*g->pIdx->nField);
  aVal[j] = docextValueString(&rc, &g->term, z, docextTextKeyLength(z, n));
  if( rc ) return rc;
  memcpy(a8, &r, 8);
  aVal[j+1].type = DOC_DOUBLE;
  aVal[j+1].p = a8;
  aVal[j+1].n = 8;
  rc = kgEmitKey(g, aVal, 0);
  if( rc==SQLITE_OK ){
    /* (the values kept with a key are for E11000 messages: none here) */
    KeySet *pSet = g->pSet;
    pSet->aVal[(pSet->nKey-1)*pSet->nField + j] = idxNullValue;
    pSet->aVal[(pSet->nKey-1)*pSet->nField + j+1] = idxNullValue;
  }
  return rc;
}

/* The keys of a text index: one per term of the document. */
static int kgEmitTerms(KGen *g, DocValue *aVal){
  const DocIndex *pIdx = g->pIdx;
  int j, rc, nKey0 = g->pSet->nKey;
  for(j=0; pIdx->aDir[j]!=DOCEXT_DIR_TEXT; j++){}
  g->aVal = aVal;
  g->jText = j;
  rc = docextTextTerms(pIdx->pText, g->aDoc, kgEmitTerm, g, g->pzErr);
  if( rc==SQLITE_OK && g->pSet->nKey - nKey0 > 1 ){
    g->pSet->bMultikey = 1;
    g->pSet->aMk[j] |= 1;
  }
  return rc;
}

static int kgEmit(KGen *g, const KField *aF){
  const DocIndex *pIdx = g->pIdx;
  DocValue aVal[IDX_MAX_FIELDS];
  int i, nMissing = 0, jGeo = -1, bGeoMissing = 0;
  for(i=0; i<pIdx->nField; i++){
    if( aF[i].eState==KF_VALUE ){
      aVal[i] = aF[i].v;
    }else{
      aVal[i] = idxNullValue;
      nMissing++;
    }
    if( docextDirIsGeo(pIdx->aDir[i]) ){
      jGeo = i;
      bGeoMissing = aF[i].eState!=KF_VALUE;
    }
    if( pIdx->aDir[i]==0 && aVal[i].type==DOC_ARRAY ){
      *g->pzErr = sqlite3_mprintf("docext: hashed indexes do not support array "
                                  "values (field %s)", pIdx->azPath[i]);
      return SQLITE_ERROR;
    }
  }
  if( jGeo>=0 ) return kgEmitCells(g, aVal, jGeo, bGeoMissing);
  if( pIdx->pText ) return kgEmitTerms(g, aVal);
  if( pIdx->bSparse && nMissing==pIdx->nField ) return SQLITE_OK;
  return kgEmitKey(g, aVal, 0);
}

/* Generate the keys of the field states aF (modified). */
static int kgRun(KGen *g, KField *aF){
  const DocIndex *pIdx = g->pIdx;
  int nField = pIdx->nField;
  KField aSub[IDX_MAX_FIELDS];
  const u8 *pArr = 0;
  int i, iArr = -1, bAny = 0, rc = SQLITE_OK;
  DocIter it;

  for(i=0; i<nField; i++){
    kfDescend(&aF[i]);
    if( aF[i].eState==KF_LEAFARR && docextDirIsGeo(pIdx->aDir[i]) ){
      aF[i].eState = KF_VALUE;      /* [x, y] is a point, not two values */
    }
    if( aF[i].eState==KF_LEAFARR || aF[i].eState==KF_STUCK ){
      if( pIdx->aDir[i]==0 ){
        *g->pzErr = sqlite3_mprintf("docext: hashed indexes do not support array "
                                    "values (field %s)", pIdx->azPath[i]);
        return SQLITE_ERROR;
      }
      if( pIdx->pText ){
        *g->pzErr = sqlite3_mprintf("docext: cannot have a multi-key as a prefix or "
                                    "suffix to text index %s (field %s holds an array)",
                                    pIdx->zName ? pIdx->zName : "", pIdx->azPath[i]);
        return SQLITE_ERROR;
      }
      if( pArr==0 ){
        pArr = aF[i].v.p;
        iArr = i;
      }else if( aF[i].v.p!=pArr ){
        *g->pzErr = sqlite3_mprintf("docext: cannot %s parallel arrays [%.*s] [%.*s]",
                                    pIdx->iId<0 ? "sort with keys that are" : "index",
                                    aF[iArr].nName, aF[iArr].zName,
                                    aF[i].nName, aF[i].zName);
        return SQLITE_ERROR;
      }
    }
  }
  if( pArr==0 ) return kgEmit(g, aF);

  /* Expand the one array: every field that reached it takes its values
  ** from the same element. */
  g->pSet->bMultikey = 1;
  for(i=0; i<nField; i++){
    if( (aF[i].eState==KF_LEAFARR || aF[i].eState==KF_STUCK) && aF[i].v.p==pArr ){
      g->pSet->aMk[i] |= kfArrayBit(pIdx->azPath[i], &aF[i]);
    }
  }
  docextIterInitValue(&it, &aF[iArr].v);
  for(;;){
    int bElem = docextIterNext(&it);
    if( !bElem && bAny ) break;
    memcpy(aSub, aF, sizeof(KField)*nField);
    for(i=0; i<nField; i++){
      if( (aF[i].eState!=KF_LEAFARR && aF[i].eState!=KF_STUCK) || aF[i].v.p!=pArr ) continue;
      if( !bElem ){
        /* An empty array: undefined at the end of a path, else missing. */
        if( aF[i].eState==KF_LEAFARR ){
          aSub[i].v = idxUndefinedValue;
          aSub[i].eState = KF_VALUE;
        }else{
          aSub[i].eState = KF_MISSING;
        }
      }else if( aF[i].eState==KF_LEAFARR ){
        aSub[i].v = it.v;
        aSub[i].eState = KF_VALUE;
      }else if( it.v.type==DOC_DOCUMENT ){
        aSub[i].v = it.v;
        aSub[i].eState = KF_WALK;
      }else{
        aSub[i].eState = KF_MISSING;
      }
    }
    rc = kgRun(g, aSub);
    if( rc!=SQLITE_OK || !bElem ) break;
    bAny = 1;
  }
  return rc;
}

/* The keys of aDoc for pIdx into pSet (reset first): sorted, distinct. */
/* The keys of aDoc for pIdx into pSet: sorted and distinct when bSort,
** else in the order they were made. */
/* Is field j of pIdx one of a text index's _fts, _ftsx (the terms, made
** apart from the other fields' values)? */
static int idxIsTextField(const DocIndex *pIdx, int j){
  return pIdx->aDir[j]==DOCEXT_DIR_TEXT || (j>0 && pIdx->aDir[j-1]==DOCEXT_DIR_TEXT);
}

static int idxKeysGenerate(const DocIndex *pIdx, const u8 *aDoc, KeySet *pSet,
                           int bSort, char **pzErr){
  KField aF[IDX_MAX_FIELDS];
  KGen g;
  int i, rc;
  ksReset(pSet, pIdx->nField);
  if( pIdx->pPartial ){
    int bMatch = 0;
    rc = docextMatcherMatch(pIdx->pPartial, aDoc, &bMatch, 0, pzErr);
    if( rc!=SQLITE_OK || !bMatch ) return rc;
  }
  for(i=0; i<pIdx->nField; i++){
    aF[i].v.type = DOC_DOCUMENT;
    aF[i].v.p = aDoc;
    aF[i].v.n = docextGetI32(aDoc);
    aF[i].z = pIdx->azPath[i];
    aF[i].n = (int)strlen(pIdx->azPath[i]);
    aF[i].zName = aF[i].z;
    aF[i].nName = 0;
    aF[i].eState = KF_WALK;
    if( idxIsTextField(pIdx, i) ){
      aF[i].v = idxNullValue;
      aF[i].eState = KF_VALUE;
    }
  }
  memset(&g, 0, sizeof(g));
  g.pIdx = pIdx;
  g.pSet = pSet;
  g.pzErr = pzErr;
  g.aDoc = aDoc;
  rc = kgRun(&g, aF);
  docextBufFree(&g.term);
  if( rc==SQLITE_OK && bSort ) rc = ksSortDistinct(pSet);
  return rc;
}

static int idxKeysCompute(const DocIndex *pIdx, const u8 *aDoc, KeySet *pSet, char **pzErr){
  return idxKeysGenerate(pIdx, aDoc, pSet, 1, pzErr);
}

/* VALS. An entry of an index that is not hashed stores, in X_idx.vals,
** the document projected onto those of the index's fields on whose path
** the document has no array: the inclusion projection {path0: 1, ...,
** _id: 0} (no _id: 0 when _id is one of the paths) applied with
** docextProjectionApply. A find() whose projection includes only index
** fields on which no document has an array (MongoDB's rule for covering
** with a multikey index: the index's multikeyPaths show none) gets the
** same result from vals as from the document (projecting a projection
** onto fewer fields changes nothing), so a covered query reads no
** document (docext_query.c). Every entry of one document holds the same
** vals. There are none (NULL) when every field meets an array, when the
** fields' paths collide ({a: 1, "a.b": 1}), over IDX_MAX_VALS bytes (they
** would bloat the index; such entries read their document), and in a
** multikey index an older docext wrote (!bMultikeyVals: it let them go
** stale). vals change with the document even when the key does not (1 and
** 1.0): docextIndexUpdate rewrites them.
**
** Does the index keep vals that a covered query may read? */
int docextIndexKeepsVals(const DocIndex *pIdx){
  return !pIdx->bHashed && !pIdx->eGeo && !pIdx->pText && pIdx->iId>0
      && (!pIdx->bMultikey || pIdx->bMultikeyVals);
}

/* The vals projection of the fields in mask (bit j: field j) into
** pOwner->pVals, unless it is there already; NULL when the paths collide. */
static int idxValsProjection(const DocIndex *pIdx, KeySet *pOwner, uint32_t mask){
  DocBuf spec;
  char *zErr = 0;
  int j, bId = 0, rc = SQLITE_OK;
  i64 iStart;
  if( pOwner->bValsTried && pOwner->valsMask==mask ) return SQLITE_OK;
  docextProjectionFree(pOwner->pVals);
  pOwner->pVals = 0;
  pOwner->bValsTried = 0;
  memset(&spec, 0, sizeof(spec));
  iStart = docextBsonStartDoc(&rc, &spec);
  for(j=0; j<pIdx->nField; j++){
    const char *z = pIdx->azPath[j];
    if( (mask & ((uint32_t)1<<j))==0 ) continue;
    if( strcmp(z, "_id")==0 ) bId = 1;
    docextBsonAppendInt32(&rc, &spec, z, (int)strlen(z), 1);
  }
  if( !bId ) docextBsonAppendInt32(&rc, &spec, "_id", 3, 0);
  docextBsonEndDoc(&rc, &spec, iStart);
  if( rc==SQLITE_OK ){
    rc = docextProjectionNew(spec.a, &pOwner->pVals, &zErr);
    if( rc!=SQLITE_OK ){
      pOwner->pVals = 0;
      if( rc!=SQLITE_NOMEM ) rc = SQLITE_OK;   /* colliding paths: no vals */
    }
  }
  sqlite3_free(zErr);
  docextBufFree(&spec);
  if( rc==SQLITE_OK ){
    pOwner->bValsTried = 1;
    pOwner->valsMask = mask;
  }
  return rc;
}

/* Computes the vals of aDoc, whose keys are in pSet, into pSet->vals,
** compiling the projection into pOwner (the KeySet that keeps it).
** *pbHave = 0 when there are none. */
static int idxValsCompute(const DocIndex *pIdx, KeySet *pOwner, KeySet *pSet,
                          const u8 *aDoc, int *pbHave){
  int j, rc;
  uint32_t mask = 0;
  char *zErr = 0;
  *pbHave = 0;
  if( !docextIndexKeepsVals(pIdx) || pSet->nKey==0 ) return SQLITE_OK;
  for(j=0; j<pIdx->nField; j++){
    if( pSet->aMk[j]==0 ) mask |= (uint32_t)1<<j;
  }
  if( mask==0 ) return SQLITE_OK;
  rc = idxValsProjection(pIdx, pOwner, mask);
  if( rc!=SQLITE_OK || pOwner->pVals==0 ) return rc;
  docextBufReset(&pSet->vals);
  rc = docextProjectionApply(pOwner->pVals, aDoc, -1, &pSet->vals, &zErr);
  sqlite3_free(zErr);
  if( rc==SQLITE_OK ) *pbHave = pSet->vals.n<=IDX_MAX_VALS;
  else if( rc!=SQLITE_NOMEM ) rc = SQLITE_OK;     /* cannot happen: no vals */
  return rc;
}

/* The keys are appended to pKeys in memcmp order, distinct; *paOff gets
** nKey+1 offsets into pKeys->a, so key i is [aOff[i], aOff[i+1]). Errors:
** parallel arrays, arrays in a hashed field (SQLITE_ERROR, *pzErr set). */
int docextIndexKeys(const DocIndex *pIdx, const u8 *aDoc, DocBuf *pKeys,
                    int **paOff, int *pnKey, char **pzErr){
  KeySet ks;
  int rc, i, *aOff = 0;
  memset(&ks, 0, sizeof(ks));
  *paOff = 0;
  *pnKey = 0;
  rc = idxKeysCompute(pIdx, aDoc, &ks, pzErr);
  if( rc==SQLITE_OK ){
    aOff = sqlite3_malloc64(sizeof(int)*(ks.nKey+1));
    if( aOff==0 ) rc = SQLITE_NOMEM;
  }
  if( rc==SQLITE_OK ){
    for(i=0; i<ks.nKey; i++){
      aOff[i] = (int)pKeys->n;
      docextBufAppend(&rc, pKeys, &ks.buf.a[ks.aOff[i]], ks.aLen[i]);
    }
    aOff[ks.nKey] = (int)pKeys->n;
  }
  if( rc==SQLITE_OK ){
    *paOff = aOff;
    *pnKey = ks.nKey;
  }else{
    sqlite3_free(aOff);
  }
  ksFree(&ks);
  return rc;
}

struct DocIndexScratch {
  KeySet ks;                /* reused by every call */
};

int docextIndexFirstKey(const DocIndex *pIdx, const u8 *aDoc, DocBuf *pKey,
                        DocIndexScratch **ppScratch, char **pzErr){
  DocIndexScratch *p = *ppScratch;
  int rc, i, iMin = 0;
  if( p==0 ){
    p = docextMallocZero(sizeof(*p));
    if( p==0 ) return SQLITE_NOMEM;
    *ppScratch = p;
  }
  rc = idxKeysGenerate(pIdx, aDoc, &p->ks, 0, pzErr);
  if( rc!=SQLITE_OK || p->ks.nKey==0 ) return rc;
  for(i=1; i<p->ks.nKey; i++){
    if( ksCompare(&p->ks, i, &p->ks, iMin)<0 ) iMin = i;
  }
  docextBufAppend(&rc, pKey, &p->ks.buf.a[p->ks.aOff[iMin]], p->ks.aLen[iMin]);
  return rc;
}

void docextIndexScratchFree(DocIndexScratch *p){
  if( p ){
    ksFree(&p->ks);
    sqlite3_free(p);
  }
}

/*------------------------------------------------------------------------
** Index definitions: key patterns, options, specs
*/

static void idxClear(DocIndex *p){
  docextTextSpecFree(p->pText);
  sqlite3_free(p->zName);
  sqlite3_free(p->aKeys);
  sqlite3_free(p->azPath);
  sqlite3_free(p->aDir);
  sqlite3_free(p->aMultikeyPaths);
  sqlite3_free(p->aPartial);
  docextMatcherFree(p->pPartial);
  docextCollatorFree(p->pCollator);
  memset(p, 0, sizeof(*p));
  p->nExpireAfter = -1;
}

static void idxFreeAll(DocIndex *a, int n){
  int i;
  for(i=0; i<n; i++) idxClear(&a[i]);
  sqlite3_free(a);
}

/* Is z a usable indexed path: non-empty components, the first not
** starting with '$'; with bNew none starting with '$' (as in MongoDB: "a.$"
** and "a.$b" name no stored field). Definitions stored by versions that
** checked only the first are read with bNew 0, so they can be dropped. */
static int idxPathOk(const char *z, int n, int bNew){
  int i, iStart = 0;
  if( n==0 || z[0]=='$' ) return 0;
  for(i=0; i<=n; i++){
    if( i==n || z[i]=='.' ){
      if( i==iStart || (bNew && z[iStart]=='$') ) return 0;
      iStart = i+1;
    }
  }
  return 1;
}

/* The index types a key pattern names by a string, by their aDir values. */
static const char *const azIdxType[] = {
  "hashed",                   /* 0 */
  0,                          /* 1: ascending */
  "2dsphere",                 /* DOCEXT_DIR_2DSPHERE */
  "2d",                       /* DOCEXT_DIR_2D */
  "text",                     /* DOCEXT_DIR_TEXT */
};

int docextIndexTypeDir(const char *z, int n){
  int i;
  for(i=0; i<DOCEXT_COUNT(azIdxType); i++){
    const char *zName = azIdxType[i];
    if( zName && (int)strlen(zName)==n && memcmp(zName, z, n)==0 ) return i;
  }
  return DOCEXT_DIR_NONE;
}

/* Append field z (NUL-terminated, n bytes) with direction iDir to pIdx's
** paths (zPaths: where the next path's bytes go) and to the normalized
** pattern. */
static void idxPatternAdd(DocIndex *pIdx, char **pzPaths, DocBuf *pNorm, int *pRc,
                          const char *z, int n, int iDir){
  memcpy(*pzPaths, z, n+1);
  pIdx->azPath[pIdx->nField] = *pzPaths;
  *pzPaths += n+1;
  pIdx->aDir[pIdx->nField] = iDir;
  pIdx->nField++;
  if( iDir==1 || iDir==-1 ){
    docextBsonAppendInt32(pRc, pNorm, z, n, iDir);
  }else{
    const char *zType = azIdxType[iDir];
    docextBsonAppendString(pRc, pNorm, DOC_STRING, z, n, zType, (int)strlen(zType));
  }
}

/* A "text" field of a key pattern ({title: "text"}, or MongoDB's stored
** {_fts: "text", _ftsx: 1}): a field of pIdx->pText (made at the first);
** the first adds the fields _fts and _ftsx, which hold the terms. */
static int idxPatternText(DocIndex *pIdx, char **pzPaths, DocBuf *pNorm, const DocIter *pIt,
                          int bTextDone, char **pzErr){
  int rc = SQLITE_OK;
  if( bTextDone ){
    return docextError(pzErr, "docext: 'text' fields in index must all be adjacent");
  }
  if( pIdx->pText==0 ){
    rc = docextTextSpecNew(&pIdx->pText);
    if( rc ) return rc;
    idxPatternAdd(pIdx, pzPaths, pNorm, &rc, "_fts", 4, DOCEXT_DIR_TEXT);
    idxPatternAdd(pIdx, pzPaths, pNorm, &rc, "_ftsx", 5, 1);
  }
  if( rc==SQLITE_OK && strcmp(pIt->zKey, "_fts")!=0 ){
    rc = docextTextSpecField(pIdx->pText, pIt->zKey, pIt->nKey, pzErr);
  }
  return rc;
}

/* Check a key pattern and fill pIdx's nField, azPath, aDir, bHashed and
** aKeys (the normalized pattern). When pName is not NULL (a new index) the
** default name (slug_1, book_1_user_1, _id_hashed) is appended to it. */
static int idxPatternParse(const u8 *aKeys, DocIndex *pIdx, DocBuf *pName, char **pzErr){
  DocIter it;
  DocBuf norm;
  int rc = SQLITE_OK, nField = 0, nHashed = 0, nGeo = 0, eGeo = 0, i;
  int bTextDone = 0;          /* a field after the text fields was met */
  i64 nPath = 0, iStart;
  char *zPaths;

  docextIterInit(&it, aKeys);
  while( docextIterNext(&it) ){
    nField++;
    nPath += it.nKey + 1;
    if( !idxPathOk(it.zKey, it.nKey, pName!=0)
     && !(strcmp(it.zKey, "$**")==0 && it.v.type==DOC_STRING
          && docextIndexTypeDir((const char*)it.v.p+4, it.v.n-5)==DOCEXT_DIR_TEXT) ){
      return docextError(pzErr, "docext: bad field name '%s' in an index key pattern", it.zKey);
    }
  }
  if( nField==0 ){
    return docextError(pzErr, "docext: the index key pattern is empty");
  }
  if( nField>IDX_MAX_FIELDS ){
    return docextError(pzErr, "docext: an index may have at most %d fields", IDX_MAX_FIELDS);
  }
  nField += 2;                          /* (room for _fts and _ftsx) */
  nPath += 11;
  pIdx->azPath = sqlite3_malloc64(sizeof(char*)*nField + nPath);
  pIdx->aDir = sqlite3_malloc64(sizeof(int)*nField);
  pIdx->aMultikeyPaths = sqlite3_malloc64(sizeof(u64)*nField);
  if( pIdx->azPath==0 || pIdx->aDir==0 || pIdx->aMultikeyPaths==0 ) return SQLITE_NOMEM;
  memset(pIdx->aMultikeyPaths, 0, sizeof(u64)*nField);
  zPaths = (char*)&pIdx->azPath[nField];
  memset(&norm, 0, sizeof(norm));
  iStart = docextBsonStartDoc(&rc, &norm);
  pIdx->nField = 0;
  docextIterInit(&it, aKeys);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    int iDir = 0, n = pIdx->nField;
    if( docextValueIsNumber(&it.v) ){
      double d = docextValueToDouble(&it.v);
      if( d>0 ) iDir = 1;
      else if( d<0 ) iDir = -1;
    }else if( it.v.type==DOC_STRING ){
      int nStr;
      const char *zStr = docextValueStr(&it.v, &nStr);
      iDir = docextIndexTypeDir(zStr, nStr);
      if( iDir==DOCEXT_DIR_NONE ){
        *pzErr = sqlite3_mprintf("docext: index type '%s' is not supported (field %s)",
                                 zStr, it.zKey);
        rc = SQLITE_ERROR;
        break;
      }
      if( iDir==0 ) nHashed++;
      if( docextDirIsGeo(iDir) ){
        eGeo = iDir;
        nGeo++;
      }
      if( iDir==DOCEXT_DIR_2D && pIdx->nField>0 ){
        *pzErr = sqlite3_mprintf("docext: 2d has to be first in index (field %s)", it.zKey);
        rc = SQLITE_ERROR;
        break;
      }
      if( iDir==DOCEXT_DIR_TEXT ){
        rc = idxPatternText(pIdx, &zPaths, &norm, &it, bTextDone, pzErr);
        if( rc ) break;
        if( pName ){
          if( pName->n>0 ) docextBufAppendByte(&rc, pName, '_');
          docextBufAppendf(&rc, pName, "%s_text", it.zKey);
        }
        continue;
      }
    }
    if( pIdx->pText ){
      if( strcmp(it.zKey, "_ftsx")==0 && strcmp(pIdx->azPath[n-1], "_ftsx")==0 ){
        continue;                       /* (MongoDB's stored form: added) */
      }
      bTextDone = 1;
    }
    if( iDir==0 && it.v.type!=DOC_STRING ){
      *pzErr = sqlite3_mprintf("docext: bad value for field %s in an index key pattern: "
                               "use 1, -1, \"hashed\", \"2dsphere\", \"2d\" or \"text\"", it.zKey);
      rc = SQLITE_ERROR;
      break;
    }
    for(i=0; i<n; i++){
      if( strcmp(pIdx->azPath[i], it.zKey)==0 ){
        *pzErr = sqlite3_mprintf("docext: field %s appears twice in an index key pattern",
                                 it.zKey);
        rc = SQLITE_ERROR;
        break;
      }
    }
    if( rc!=SQLITE_OK ) break;
    idxPatternAdd(pIdx, &zPaths, &norm, &rc, it.zKey, it.nKey, iDir);
    if( pName ){
      if( pName->n>0 ) docextBufAppendByte(&rc, pName, '_');
      docextBufAppendf(&rc, pName, "%s_%s", it.zKey,
                       iDir==1 ? "1" : iDir==-1 ? "-1" : azIdxType[iDir]);
    }
  }
  if( rc==SQLITE_OK && nHashed>1 ){
    *pzErr = sqlite3_mprintf("docext: an index may have at most one hashed field");
    rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK && nGeo>1 ){
    *pzErr = sqlite3_mprintf("docext: an index may have at most one geospatial "
                             "(2dsphere or 2d) field");
    rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK && nGeo && nHashed ){
    *pzErr = sqlite3_mprintf("docext: an index cannot have both a hashed and a "
                             "geospatial field");
    rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK && pIdx->pText && (nGeo || nHashed) ){
    *pzErr = sqlite3_mprintf("docext: a text index cannot have a %s field",
                             nGeo ? "geospatial" : "hashed");
    rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK && pIdx->nField>IDX_MAX_FIELDS ){
    *pzErr = sqlite3_mprintf("docext: an index may have at most %d fields", IDX_MAX_FIELDS);
    rc = SQLITE_ERROR;
  }
  docextBsonEndDoc(&rc, &norm, iStart);
  if( rc==SQLITE_OK ){
    pIdx->bHashed = nHashed>0;
    pIdx->eGeo = eGeo;
    if( eGeo==DOCEXT_DIR_2D && pIdx->n2dBits==0 ){
      pIdx->r2dMin = -180.0;          /* MongoDB's defaults */
      pIdx->r2dMax = 180.0;
      pIdx->n2dBits = 26;
    }
    pIdx->aKeys = docextBsonCopy(norm.a);
    if( pIdx->aKeys==0 ) rc = SQLITE_NOMEM;
  }
  docextBufFree(&norm);
  return rc;
}

int docextIndexPattern(const u8 *aKeys, DocIndex *pIdx, char **pzErr){
  DocBuf name;
  int rc;
  memset(pIdx, 0, sizeof(*pIdx));
  memset(&name, 0, sizeof(name));
  pIdx->iId = -1;
  pIdx->nExpireAfter = -1;
  pIdx->bHashMix = 1;
  rc = idxPatternParse(aKeys, pIdx, &name, pzErr);     /* (checked as new) */
  if( rc==SQLITE_OK ) pIdx->zName = docextBufDetachText(&rc, &name);
  docextBufFree(&name);
  if( rc!=SQLITE_OK ) idxClear(pIdx);
  return rc;
}

void docextIndexClear(DocIndex *p){
  idxClear(p);
}

/* Options {name, unique, sparse, expireAfterSeconds,
** partialFilterExpression, collation, …} into pIdx (zName only if given). */
static int idxOptionsParse(const u8 *aOpt, DocIndex *pIdx, char **pzErr){
  DocIter it;
  int rc = SQLITE_OK;
  docextIterInit(&it, aOpt);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( strcmp(it.zKey, "name")==0 ){
      int n;
      const char *z = docextValueStr(&it.v, &n);
      if( it.v.type!=DOC_STRING || n==0 || memchr(z, 0, n) ){
        return docextError(pzErr, "docext: the index option name must be a non-empty string");
      }
      sqlite3_free(pIdx->zName);
      pIdx->zName = sqlite3_mprintf("%.*s", n, z);
      if( pIdx->zName==0 ) return SQLITE_NOMEM;
    }else if( strcmp(it.zKey, "unique")==0 ){
      pIdx->bUnique = docextValueTruth(&it.v);
    }else if( strcmp(it.zKey, "sparse")==0 ){
      pIdx->bSparse = docextValueTruth(&it.v);
    }else if( strcmp(it.zKey, "expireAfterSeconds")==0 ){
      double d = docextValueIsNumber(&it.v) ? docextValueToDouble(&it.v) : -1.0;
      if( !docextValueIsNumber(&it.v) || isnan(d) || d<0 || d>2147483647.0 ){
        return docextError(pzErr, "docext: expireAfterSeconds must be a number "
                                  "between 0 and 2147483647");
      }
      pIdx->nExpireAfter = (i64)d;
    }else if( strcmp(it.zKey, "partialFilterExpression")==0 ){
      if( it.v.type!=DOC_DOCUMENT ){
        return docextError(pzErr, "docext: partialFilterExpression must be a document");
      }
      sqlite3_free(pIdx->aPartial);
      pIdx->aPartial = docextBsonCopy(it.v.p);
      if( pIdx->aPartial==0 ) return SQLITE_NOMEM;
    }else if( strcmp(it.zKey, "collation")==0 ){
      docextCollatorFree(pIdx->pCollator);
      pIdx->pCollator = 0;
      rc = docextCollatorNew(&it.v, &pIdx->pCollator, pzErr);
    }else if( strcmp(it.zKey, "background")==0 ){
      /* accepted and ignored, as MongoDB does since 4.2 */
    }else if( strcmp(it.zKey, "min")==0 || strcmp(it.zKey, "max")==0
           || strcmp(it.zKey, "bits")==0 ){
      double d = docextValueToDouble(&it.v);
      if( pIdx->eGeo!=DOCEXT_DIR_2D || !docextValueIsNumber(&it.v) || !isfinite(d) ){
        return docextError(pzErr, "docext: %s is a number, for an index with a 2d field",
                           it.zKey);
      }
      if( it.zKey[0]=='b' ){
        if( d<1 || d>32 || d!=floor(d) ){
          return docextError(pzErr, "docext: bits for a 2d index must be between 1 and 32");
        }
        pIdx->n2dBits = (int)d;
      }else if( it.zKey[1]=='i' ){
        pIdx->r2dMin = d;
      }else{
        pIdx->r2dMax = d;
      }
    }else if( strcmp(it.zKey, "2dsphereIndexVersion")==0 ){
      /* docext has one version of 2dsphere keys (MongoDB's 2 and 3 index
      ** the same geometries); accepted for scripts written for MongoDB */
      if( !docextValueIsNumber(&it.v) || pIdx->eGeo!=DOCEXT_DIR_2DSPHERE ){
        return docextError(pzErr, "docext: 2dsphereIndexVersion is a number, "
                                  "for an index with a 2dsphere field");
      }
    }else if( pIdx->pText ){
      rc = docextTextSpecOption(pIdx->pText, it.zKey, &it.v, pzErr);
      if( rc==SQLITE_NOTFOUND ){
        return docextError(pzErr, "docext: unknown index option '%s'", it.zKey);
      }
    }else if( strcmp(it.zKey, "weights")==0 || strcmp(it.zKey, "default_language")==0
           || strcmp(it.zKey, "language_override")==0
           || strcmp(it.zKey, "textIndexVersion")==0 ){
      return docextError(pzErr, "docext: %s is an option of text indexes", it.zKey);
    }else{
      return docextError(pzErr, "docext: unknown index option '%s'", it.zKey);
    }
  }
  return rc;
}

/* The rules between pattern and options, and the partial filter compiled. */
static int idxFinish(DocIndex *pIdx, char **pzErr){
  if( pIdx->bHashed && pIdx->bUnique ){
    return docextError(pzErr, "docext: a hashed index cannot be unique");
  }
  if( pIdx->eGeo && pIdx->bUnique ){
    return docextError(pzErr, "docext: a %s index cannot be unique",
                       pIdx->eGeo==DOCEXT_DIR_2D ? "2d" : "2dsphere");
  }
  if( pIdx->pText && pIdx->bUnique ){
    return docextError(pzErr, "docext: a text index cannot be unique");
  }
  if( pIdx->pCollator && (pIdx->pText || pIdx->eGeo==DOCEXT_DIR_2D) ){
    /* (as MongoDB: their keys are not the values' own) */
    return docextError(pzErr, "docext: index type '%s' does not support collation",
                       pIdx->pText ? "text" : "2d");
  }
  if( pIdx->eGeo==DOCEXT_DIR_2D && !(pIdx->r2dMin<pIdx->r2dMax) ){
    return docextError(pzErr, "docext: a 2d index's min must be below its max");
  }
  if( pIdx->nExpireAfter>=0 ){
    if( pIdx->nField>1 ){
      return docextError(pzErr, "docext: TTL indexes are single-field indexes, "
                                "compound indexes do not support TTL");
    }
    if( pIdx->bHashed || pIdx->eGeo || pIdx->pText ){
      return docextError(pzErr, "docext: a TTL index cannot be %s",
                         pIdx->bHashed ? "hashed" : pIdx->eGeo==DOCEXT_DIR_2D ? "2d"
                         : pIdx->eGeo ? "2dsphere" : "a text index");
    }
    if( strcmp(pIdx->azPath[0], "_id")==0 ){
      return docextError(pzErr, "docext: the _id field does not support TTL indexes");
    }
  }
  if( pIdx->aPartial ){
    if( pIdx->bSparse ){
      return docextError(pzErr, "docext: cannot mix \"partialFilterExpression\" "
                                "and \"sparse\" options");
    }
    if( pIdx->pPartial==0 ){
      char *zWhy = 0;
      int rc = docextMatcherNewColl(pIdx->aPartial, 0, 0, pIdx->pCollator,
                                    &pIdx->pPartial, &zWhy);
      if( rc==SQLITE_OK && docextMatcherWholeOp(pIdx->pPartial) ){
        rc = docextError(&zWhy, "docext: %s is not supported in a partial index",
                         docextMatcherWholeOp(pIdx->pPartial));
      }
      if( rc!=SQLITE_OK ){
        *pzErr = sqlite3_mprintf("docext: bad partialFilterExpression: %s",
                                 zWhy ? zWhy+8 : sqlite3_errstr(rc));
        sqlite3_free(zWhy);
        return rc;
      }
    }
  }
  return SQLITE_OK;
}

/* The spec BLOB of an index (format at the top of the file). */
static int idxSpecEncode(const DocIndex *p, DocBuf *pOut){
  int rc = SQLITE_OK;
  i64 iStart;
  DocValue v;
  docextBufReset(pOut);
  iStart = docextBsonStartDoc(&rc, pOut);
  docextBsonAppendInt32(&rc, pOut, "v", 1, IDX_SPEC_VERSION);
  docextBsonAppendString(&rc, pOut, DOC_STRING, "name", 4, p->zName, (int)strlen(p->zName));
  v.type = DOC_DOCUMENT;
  v.p = p->aKeys;
  v.n = docextGetI32(p->aKeys);
  docextBsonAppendValue(&rc, pOut, "key", 3, &v);
  if( p->bUnique ) docextBsonAppendBool(&rc, pOut, "unique", 6, 1);
  if( p->bSparse ) docextBsonAppendBool(&rc, pOut, "sparse", 6, 1);
  if( p->nExpireAfter>=0 ){
    docextBsonAppendInt64(&rc, pOut, "expireAfterSeconds", 18, p->nExpireAfter);
  }
  if( p->aPartial ){
    v.p = p->aPartial;
    v.n = docextGetI32(p->aPartial);
    docextBsonAppendValue(&rc, pOut, "partialFilterExpression", 23, &v);
  }
  docextBsonAppendBool(&rc, pOut, "multikey", 8, p->bMultikey);
  if( p->bMultikey && p->aMultikeyPaths ){
    i64 iArr = docextBsonStartChild(&rc, pOut, DOC_ARRAY, "multikeyPaths", 13);
    int j;
    for(j=0; j<p->nField; j++){
      char zIdx[16];
      int n = docextBsonArrayKey(zIdx, j);
      docextBsonAppendInt64(&rc, pOut, zIdx, n, (i64)p->aMultikeyPaths[j]);
    }
    docextBsonEndDoc(&rc, pOut, iArr);
  }
  if( p->bMultikey && p->bMultikeyVals ){
    docextBsonAppendBool(&rc, pOut, "multikeyVals", 12, 1);
  }
  if( p->bHashed && p->bHashMix ) docextBsonAppendBool(&rc, pOut, "hashMix", 7, 1);
  if( p->eGeo==DOCEXT_DIR_2D ){
    docextBsonAppendDouble(&rc, pOut, "min", 3, p->r2dMin);
    docextBsonAppendDouble(&rc, pOut, "max", 3, p->r2dMax);
    docextBsonAppendInt32(&rc, pOut, "bits", 4, p->n2dBits);
  }
  if( p->pText ) docextTextSpecWrite(p->pText, &rc, pOut);
  if( p->pCollator ) docextCollatorAppendSpec(&rc, pOut, "collation", 9, p->pCollator);
  docextBsonEndDoc(&rc, pOut, iStart);
  return rc;
}

/* The stored multikeyPaths (pPaths, DOC_EOO when absent) into pIdx, a
** multikey index: one integer per field. When they are absent (a spec
** written before docext kept them) or malformed, every component of every
** field counts as multikey, which only ever costs the planner bounds. */
static void idxMultikeyPathsDecode(DocIndex *pIdx, const DocValue *pPaths){
  int j = 0, bOk = pPaths->type==DOC_ARRAY;
  if( !pIdx->bMultikey ) return;
  if( bOk ){
    DocIter it;
    docextIterInitValue(&it, pPaths);
    while( docextIterNext(&it) ){
      if( j>=pIdx->nField || (it.v.type!=DOC_INT64 && it.v.type!=DOC_INT32) ){ bOk = 0; break; }
      pIdx->aMultikeyPaths[j++] = it.v.type==DOC_INT64 ? (u64)docextValueI64(&it.v)
                                                       : (u64)(uint32_t)docextValueI32(&it.v);
    }
  }
  if( !bOk || j!=pIdx->nField ){
    for(j=0; j<pIdx->nField; j++) pIdx->aMultikeyPaths[j] = ~(u64)0;
  }
}

/* Read a stored spec (untrusted: from a shadow table) into pIdx. */
static int idxSpecDecode(const u8 *a, int n, const char *zColl, DocIndex *pIdx, char **pzErr){
  DocIter it;
  DocValue paths;
  DocBuf opt;
  int rc, bKey = 0;
  i64 iStart;
  char *zWhy = 0;
  if( a==0 || docextBsonCheck(a, n, &zWhy)!=SQLITE_OK ){
    sqlite3_free(zWhy);
    *pzErr = sqlite3_mprintf("docext: corrupt index definition %lld in %s",
                             pIdx->iId, zColl);
    return SQLITE_CORRUPT_VTAB;
  }
  /* The stored options are those idxOptionsParse() reads, minus v, key,
  ** multikey, multikeyPaths and multikeyVals, so the same checks apply. */
  memset(&paths, 0, sizeof(paths));
  memset(&opt, 0, sizeof(opt));
  rc = SQLITE_OK;
  iStart = docextBsonStartDoc(&rc, &opt);
  docextIterInit(&it, a);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( strcmp(it.zKey, "key")==0 && it.v.type==DOC_DOCUMENT ){
      if( bKey ){ rc = SQLITE_CORRUPT_VTAB; break; }
      rc = idxPatternParse(it.v.p, pIdx, 0, pzErr);
      bKey = 1;
    }else if( strcmp(it.zKey, "multikey")==0 ){
      pIdx->bMultikey = docextValueTruth(&it.v);
    }else if( strcmp(it.zKey, "multikeyPaths")==0 ){
      paths = it.v;
    }else if( strcmp(it.zKey, "multikeyVals")==0 ){
      pIdx->bMultikeyVals = docextValueTruth(&it.v);
    }else if( strcmp(it.zKey, "hashMix")==0 ){
      pIdx->bHashMix = docextValueTruth(&it.v);
    }else if( strcmp(it.zKey, "v")!=0 ){
      docextBsonAppendValue(&rc, &opt, it.zKey, it.nKey, &it.v);
    }
  }
  docextBsonEndDoc(&rc, &opt, iStart);
  if( rc==SQLITE_OK ){
    char *zName = pIdx->zName;
    pIdx->zName = 0;
    rc = idxOptionsParse(opt.a, pIdx, pzErr);
    if( rc==SQLITE_OK && (pIdx->zName==0 || strcmp(pIdx->zName, zName)!=0) ) rc = SQLITE_CORRUPT_VTAB;
    sqlite3_free(pIdx->zName);
    pIdx->zName = zName;
  }
  if( rc==SQLITE_OK && !bKey ) rc = SQLITE_CORRUPT_VTAB;
  if( rc==SQLITE_OK ) idxMultikeyPathsDecode(pIdx, &paths);
  /* Every docext keeps the vals of an index that is not multikey. */
  if( !pIdx->bMultikey ) pIdx->bMultikeyVals = 1;
  if( rc==SQLITE_OK ) rc = idxFinish(pIdx, pzErr);
  docextBufFree(&opt);
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM && *pzErr
   && strncmp(*pzErr, "docext: collation: ", 19)==0 ){
    /* (a collation this ICU cannot give, such as another version's: say so) */
    char *z = sqlite3_mprintf("docext: index %s of %s: %s (doc_drop_index drops it by "
                              "name; then create it again)", pIdx->zName ? pIdx->zName : "?",
                              zColl, *pzErr + 8);
    sqlite3_free(*pzErr);
    *pzErr = z;
    rc = z ? SQLITE_ERROR : SQLITE_NOMEM;
  }else if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){
    sqlite3_free(*pzErr);
    *pzErr = sqlite3_mprintf("docext: corrupt index definition %lld (%s) in %s",
                             pIdx->iId, pIdx->zName ? pIdx->zName : "?", zColl);
    rc = SQLITE_CORRUPT_VTAB;
  }
  return rc;
}

/* DocIndex 0: _id_. */
static int idxIdInit(DocIndex *p){
  static const u8 aIdKeys[] = {
    14,0,0,0, DOC_INT32, '_','i','d',0, 1,0,0,0, 0
  };
  memset(p, 0, sizeof(*p));
  p->nExpireAfter = -1;
  p->zName = sqlite3_mprintf("_id_");
  p->aKeys = docextBsonCopy(aIdKeys);
  p->azPath = sqlite3_malloc64(sizeof(char*) + 4);
  p->aDir = sqlite3_malloc64(sizeof(int));
  if( p->zName==0 || p->aKeys==0 || p->azPath==0 || p->aDir==0 ) return SQLITE_NOMEM;
  p->azPath[0] = (char*)&p->azPath[1];
  memcpy(p->azPath[0], "_id", 4);
  p->aDir[0] = 1;
  p->nField = 1;
  p->bUnique = 1;
  return SQLITE_OK;
}

/* Same key pattern (after normalization)? */
static int idxPatternSame(const DocIndex *a, const DocIndex *b){
  int n = docextGetI32(a->aKeys);
  return n==docextGetI32(b->aKeys) && memcmp(a->aKeys, b->aKeys, n)==0;
}

static int idxPartialSame(const DocIndex *a, const DocIndex *b){
  int n;
  if( a->aPartial==0 || b->aPartial==0 ) return a->aPartial==b->aPartial;
  n = docextGetI32(a->aPartial);
  return n==docextGetI32(b->aPartial) && memcmp(a->aPartial, b->aPartial, n)==0;
}

static int idxOptionsSame(const DocIndex *a, const DocIndex *b){
  return a->bUnique==b->bUnique && a->bSparse==b->bSparse
      && a->nExpireAfter==b->nExpireAfter && idxPartialSame(a, b)
      && (a->pText==0 ? b->pText==0 : b->pText && docextTextSpecSame(a->pText, b->pText))
      && docextCollatorSame(a->pCollator, b->pCollator);
}

/*------------------------------------------------------------------------
** The cache: a collection's index definitions, loaded once.
**
** docextCollIndexes() runs on every write, so it must cost next to
** nothing when nothing changed. The definitions can change underneath in
** three ways, each caught as follows:
**   - another connection commits: SQLITE_FCNTL_DATA_VERSION of the schema
**     changes (the pager bumps it when it sees another connection's
**     commit, and on every commit of this one);
**   - this connection changes them (create, drop, multikey flag): the
**     cache is updated or dropped on the spot;
**   - this connection rolls back a transaction, a savepoint or a failed
**     statement that changed them: the data version does NOT change then.
**     So while a change of ours may still be undone (bPending: until the
**     data version moves or no write transaction is open), every call
**     re-reads the tag below.
** Whenever one of these may have happened, X_config's 'idxtag' (a random
** 64-bit value rewritten with every definition change) is compared with
** the tag the cache was loaded at: one primary-key lookup, and a reload
** only when it differs. Random rather than a counter, so that a rolled-back
** change and someone else's later change cannot produce the same value.
*/
enum {
  IS_TAG_GET,           /* SELECT v FROM config WHERE k='idxtag' */
  IS_TAG_SET,           /* INSERT OR REPLACE INTO config ('idxtag', ?1) */
  IS_DEF_LIST,          /* SELECT id, name, spec FROM idxdef ORDER BY id */
  IS_DEF_SPEC,          /* UPDATE idxdef SET spec=?2 WHERE id=?1 */
  IS_ENTRY_INS,         /* INSERT INTO idx(ix,key,docid,vals) */
  IS_ENTRY_INS0,        /* the same without vals (no such column) */
  IS_ENTRY_VALS,        /* UPDATE idx SET vals WHERE ix,key,docid */
  IS_ENTRY_DEL,         /* DELETE FROM idx WHERE ix,key,docid */
  IS_ENTRY_DUP,         /* another docid with this key? */
  IS_TTL_ASC,           /* docids of keys in [?2, ?3) */
  IS_TTL_DESC,          /* docids of keys in (?2, ?3] */
  IS_CONFIG_GET,        /* the shard key and chunk size (docext_router.c),
                        ** the validation settings (docext_validate.c) */
  IS_CONFIG_SET,        /* INSERT OR REPLACE one of them */
  IS_CONFIG_DEL,        /* DELETE one of them */
  IS_COUNT
};

static const char *const azIdxStmt[IS_COUNT] = {
  "SELECT v FROM \"%w\".\"%w_config\" WHERE k='idxtag'",
  "INSERT OR REPLACE INTO \"%w\".\"%w_config\"(k,v) VALUES('idxtag',?1)",
  "SELECT id, name, spec FROM \"%w\".\"%w_idxdef\" ORDER BY id",
  "UPDATE \"%w\".\"%w_idxdef\" SET spec=?2 WHERE id=?1",
  "INSERT INTO \"%w\".\"%w_idx\"(ix,key,docid,vals) VALUES(?1,?2,?3,?4)",
  "INSERT INTO \"%w\".\"%w_idx\"(ix,key,docid) VALUES(?1,?2,?3)",
  "UPDATE \"%w\".\"%w_idx\" SET vals=?4 WHERE ix=?1 AND key=?2 AND docid=?3",
  "DELETE FROM \"%w\".\"%w_idx\" WHERE ix=?1 AND key=?2 AND docid=?3",
  "SELECT docid FROM \"%w\".\"%w_idx\" WHERE ix=?1 AND key=?2 AND docid<>?3 LIMIT 1",
  "SELECT docid FROM \"%w\".\"%w_idx\" WHERE ix=?1 AND key>=?2 AND key<?3",
  "SELECT docid FROM \"%w\".\"%w_idx\" WHERE ix=?1 AND key>?2 AND key<=?3",
  "SELECT k, v FROM \"%w\".\"%w_config\" WHERE k IN ('shardkey','chunksize','validation',"
  "'collation')",
  "INSERT OR REPLACE INTO \"%w\".\"%w_config\"(k,v) VALUES(?1,?2)",
  "DELETE FROM \"%w\".\"%w_config\" WHERE k=?1",
};

struct DocIndexCache {
  DocIndex *aIdx;           /* the indexes; aIdx[0] is _id_ */
  int nIdx;
  KeySet *aOldKeys;         /* per index: keys of the old document (scratch) */
  KeySet *aNewKeys;         /* per index: keys of the new document (scratch) */
  int bLoaded;              /* aIdx is usable (else reload first) */
  i64 iTag;                 /* X_config 'idxtag' aIdx was loaded at */
  unsigned int iVersion;    /* data version when last validated */
  int bPending;             /* a change of ours may still be rolled back */
  unsigned int iPendingVersion;   /* data version when it was made */
  int bTtl;                 /* some index has expireAfterSeconds */
  int bSweeping;            /* a TTL sweep is running (no recursion) */
  KeySet ttlKeys;           /* scratch for docextCollExpired */
  u8 *aShardKey;            /* X_config 'shardkey': the collection is
                            ** sharded by this pattern (BSON), or NULL */
  i64 nChunkSize;           /* X_config 'chunksize', with it */
  u8 *aValidation;          /* X_config 'validation' (BSON, checked as BSON
                            ** only: docext_validate.c reads it), or NULL */
  u8 *aCollation;           /* X_config 'collation': the default collation's
                            ** spec (BSON), or NULL; aIdx[0] (_id_) has it */
  sqlite3_stmt *aStmt[IS_COUNT];
};

static void idxCacheDrop(DocIndexCache *c){
  int i;
  for(i=0; i<c->nIdx; i++){
    if( c->aOldKeys ) ksFree(&c->aOldKeys[i]);
    if( c->aNewKeys ) ksFree(&c->aNewKeys[i]);
  }
  sqlite3_free(c->aOldKeys);
  sqlite3_free(c->aNewKeys);
  c->aOldKeys = c->aNewKeys = 0;
  idxFreeAll(c->aIdx, c->nIdx);
  c->aIdx = 0;
  c->nIdx = 0;
  c->bLoaded = 0;
  c->bTtl = 0;
  sqlite3_free(c->aShardKey);
  c->aShardKey = 0;
  c->nChunkSize = 0;
  sqlite3_free(c->aValidation);
  c->aValidation = 0;
  sqlite3_free(c->aCollation);
  c->aCollation = 0;
}

void docextIndexCacheFree(DocIndexCache *c){
  int i;
  if( c==0 ) return;
  idxCacheDrop(c);
  ksFree(&c->ttlKeys);
  for(i=0; i<IS_COUNT; i++) sqlite3_finalize(c->aStmt[i]);
  sqlite3_free(c);
}

static sqlite3 *idxDb(DocColl *p){ return docextStorageDb(docextCollStore(p)); }
static const char *idxSchema(DocColl *p){ return docextStorageSchema(docextCollStore(p)); }
static const char *idxTable(DocColl *p){ return docextStorageName(docextCollStore(p)); }

static int idxSqlError(DocColl *p, int rc, char **pzErr){
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM && pzErr && *pzErr==0 ){
    sqlite3 *db = idxDb(p);
    /* the connection may have moved on ("not an error"): then the code */
    *pzErr = sqlite3_mprintf("docext: %s", sqlite3_errcode(db)!=SQLITE_OK
                             ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  }
  return rc;
}

/* Cached statement i of the collection, prepared on first use. */
static int idxStmt(DocColl *p, DocIndexCache *c, int i, sqlite3_stmt **ppStmt){
  if( c->aStmt[i]==0 ){
    char *zSql = sqlite3_mprintf(azIdxStmt[i], idxSchema(p), idxTable(p));
    int rc;
    if( zSql==0 ) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v3(idxDb(p), zSql, -1, SQLITE_PREPARE_PERSISTENT,
                            &c->aStmt[i], 0);
    sqlite3_free(zSql);
    if( rc!=SQLITE_OK ) return rc;
  }
  *ppStmt = c->aStmt[i];
  return SQLITE_OK;
}


static int idxTagRead(DocColl *p, DocIndexCache *c, i64 *piTag){
  sqlite3_stmt *pStmt = 0;
  int rc = idxStmt(p, c, IS_TAG_GET, &pStmt);
  if( rc!=SQLITE_OK ) return rc;
  *piTag = 0;
  if( sqlite3_step(pStmt)==SQLITE_ROW ) *piTag = sqlite3_column_int64(pStmt, 0);
  return sqlite3_reset(pStmt);
}

/* A definition changed (by this connection): write a new tag. bKeep: the
** cache already holds the change, else it is reloaded on next use. */
static int idxTagBump(DocColl *p, DocIndexCache *c, int bKeep){
  sqlite3_stmt *pStmt = 0;
  unsigned int v = 0;
  i64 iTag;
  int rc = idxStmt(p, c, IS_TAG_SET, &pStmt);
  if( rc!=SQLITE_OK ) return rc;
  do{ sqlite3_randomness(sizeof(iTag), &iTag); }while( iTag==0 );
  sqlite3_bind_int64(pStmt, 1, iTag);
  rc = docextStmtRun(pStmt);
  if( rc==SQLITE_OK && bKeep ){
    c->iTag = iTag;
  }else{
    c->bLoaded = 0;
  }
  sqlite3_file_control(idxDb(p), idxSchema(p), SQLITE_FCNTL_DATA_VERSION, &v);
  c->bPending = 1;
  c->iPendingVersion = v;
  return rc;
}

/* A BSON value of X_config (untrusted: checked), copied into *paOut. */
static int idxConfigBson(sqlite3_stmt *pStmt, int iCol, u8 **paOut){
  const void *a = sqlite3_column_blob(pStmt, iCol);
  int n = sqlite3_column_bytes(pStmt, iCol);
  char *zWhy = 0;
  if( a==0 || docextBsonCheck(a, n, &zWhy)!=SQLITE_OK ){
    sqlite3_free(zWhy);
    return SQLITE_CORRUPT_VTAB;
  }
  sqlite3_free(*paOut);
  *paOut = sqlite3_malloc(n);
  if( *paOut==0 ) return SQLITE_NOMEM;
  memcpy(*paOut, a, n);
  return SQLITE_OK;
}

/* Read X_config's shard key and chunk size, written by docext_router.c,
** and the validation settings, written by docext_validate.c (a damaged
** one is reported, not used). */
static int idxConfigLoad(DocColl *p, DocIndexCache *c, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  const char *zBad = 0;
  int rc = idxStmt(p, c, IS_CONFIG_GET, &pStmt), rc2;
  if( rc!=SQLITE_OK ) return idxSqlError(p, rc, pzErr);
  while( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *zK = (const char*)sqlite3_column_text(pStmt, 0);
    if( zK && strcmp(zK, "chunksize")==0 ){
      c->nChunkSize = sqlite3_column_int64(pStmt, 1);
    }else if( zK && strcmp(zK, "validation")==0 ){
      rc = idxConfigBson(pStmt, 1, &c->aValidation);
      zBad = "validation settings";
    }else if( zK && strcmp(zK, "collation")==0 ){
      rc = idxConfigBson(pStmt, 1, &c->aCollation);
      zBad = "default collation";
    }else{
      rc = idxConfigBson(pStmt, 1, &c->aShardKey);
      zBad = "shard key";
    }
  }
  rc2 = sqlite3_reset(pStmt);
  if( rc==SQLITE_OK ) rc = idxSqlError(p, rc2, pzErr);
  if( rc==SQLITE_CORRUPT_VTAB ){
    *pzErr = sqlite3_mprintf("docext: corrupt %s in %s", zBad, docextCollName(p));
  }
  if( rc==SQLITE_OK && c->aShardKey && c->nChunkSize<=0 ){
    *pzErr = sqlite3_mprintf("docext: corrupt chunk size in %s", docextCollName(p));
    rc = SQLITE_CORRUPT_VTAB;
  }
  if( rc==SQLITE_OK && c->aCollation && c->nIdx>0 ){
    /* the _id index's collation: its keys (X_docs.idkey) are made under it */
    DocValue v;
    v.type = DOC_DOCUMENT;
    v.p = c->aCollation;
    v.n = docextGetI32(c->aCollation);
    docextCollatorFree(c->aIdx[0].pCollator);
    c->aIdx[0].pCollator = 0;
    rc = docextCollatorNew(&v, &c->aIdx[0].pCollator, pzErr);
    if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){
      char *z = sqlite3_mprintf("docext: the default collation of %s: %s", docextCollName(p),
                                *pzErr ? *pzErr+8 : "?");
      sqlite3_free(*pzErr);
      *pzErr = z;
      rc = z ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  }
  if( rc!=SQLITE_OK ) c->bLoaded = 0;
  return rc;
}

/* Read every definition from X_idxdef. */
static int idxCacheLoad(DocColl *p, DocIndexCache *c, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  DocIndex *aIdx = 0;
  int nIdx = 0, nAlloc = 0, rc, rc2, i;

  idxCacheDrop(c);
  rc = idxStmt(p, c, IS_DEF_LIST, &pStmt);
  if( rc!=SQLITE_OK ) return idxSqlError(p, rc, pzErr);
  while( rc==SQLITE_OK ){
    aIdx = docextArrayGrow(&rc, aIdx, nIdx, &nAlloc, sizeof(DocIndex));
    if( rc!=SQLITE_OK ) break;
    memset(&aIdx[nIdx], 0, sizeof(DocIndex));
    aIdx[nIdx].nExpireAfter = -1;
    if( nIdx==0 ){
      rc = idxIdInit(&aIdx[nIdx++]);
      continue;
    }
    if( sqlite3_step(pStmt)!=SQLITE_ROW ) break;
    nIdx++;
    aIdx[nIdx-1].iId = sqlite3_column_int64(pStmt, 0);
    aIdx[nIdx-1].zName = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, 1));
    if( aIdx[nIdx-1].zName==0 ){ rc = SQLITE_NOMEM; break; }
    if( aIdx[nIdx-1].iId<=0 ){
      /* SQLite never gives one; 0 would be taken for _id_, -1 for a sort */
      *pzErr = sqlite3_mprintf("docext: corrupt index definition %lld (%s) in %s: "
                               "its id is not positive", aIdx[nIdx-1].iId,
                               aIdx[nIdx-1].zName, docextCollName(p));
      rc = SQLITE_CORRUPT_VTAB;
      break;
    }
    rc = idxSpecDecode(sqlite3_column_blob(pStmt, 2), sqlite3_column_bytes(pStmt, 2),
                    docextCollName(p), &aIdx[nIdx-1], pzErr);
  }
  rc2 = sqlite3_reset(pStmt);
  if( rc==SQLITE_OK ) rc = idxSqlError(p, rc2, pzErr);
  if( rc==SQLITE_OK ){
    c->aOldKeys = sqlite3_malloc64(sizeof(KeySet)*nIdx);
    c->aNewKeys = sqlite3_malloc64(sizeof(KeySet)*nIdx);
    if( c->aOldKeys==0 || c->aNewKeys==0 ) rc = SQLITE_NOMEM;
  }
  if( rc!=SQLITE_OK ){
    sqlite3_free(c->aOldKeys);
    sqlite3_free(c->aNewKeys);
    c->aOldKeys = c->aNewKeys = 0;
    idxFreeAll(aIdx, nIdx);
    return rc;
  }
  memset(c->aOldKeys, 0, sizeof(KeySet)*nIdx);
  memset(c->aNewKeys, 0, sizeof(KeySet)*nIdx);
  c->aIdx = aIdx;
  c->nIdx = nIdx;
  for(i=0; i<nIdx; i++){
    if( aIdx[i].nExpireAfter>=0 ) c->bTtl = 1;
  }
  c->bLoaded = 1;
  return idxConfigLoad(p, c, pzErr);
}

/* Is a write transaction open on schema zDb (so that changes made in it
** can still be rolled back)? */
static int idxWriteTxn(sqlite3 *db, const char *zDb){
#if SQLITE_VERSION_NUMBER>=3034000
  return sqlite3_txn_state(db, zDb)==SQLITE_TXN_WRITE;
#else
  (void)zDb;
  return 1;     /* cannot tell: stay pending until the data version moves */
#endif
}

/* The collection's cache, current. bForce: check the tag even when the
** data version says nothing changed (commands, which may run outside any
** transaction, where the data version can be stale). */
static int idxCacheGet(DocColl *p, int bForce, DocIndexCache **ppC, char **pzErr){
  DocIndexCache **pp = docextCollIndexCache(p);
  DocIndexCache *c = *pp;
  sqlite3 *db = idxDb(p);
  const char *zDb = idxSchema(p);
  unsigned int v = 0;
  int bVersion, rc = SQLITE_OK;
  i64 iTag = 0;

  if( c==0 ){
    c = docextMallocZero(sizeof(*c));
    if( c==0 ) return SQLITE_NOMEM;
    *pp = c;
  }
  bVersion = sqlite3_file_control(db, zDb, SQLITE_FCNTL_DATA_VERSION, &v)==SQLITE_OK;
  if( c->bLoaded && !bForce && !c->bPending && bVersion && v==c->iVersion ){
    *ppC = c;
    return SQLITE_OK;
  }
  rc = idxTagRead(p, c, &iTag);
  if( rc!=SQLITE_OK ) return idxSqlError(p, rc, pzErr);
  if( !c->bLoaded || iTag!=c->iTag ){
    rc = idxCacheLoad(p, c, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    c->iTag = iTag;
  }
  c->iVersion = v;
  if( c->bPending && bVersion && (v!=c->iPendingVersion || !idxWriteTxn(db, zDb)) ){
    c->bPending = 0;
  }
  *ppC = c;
  return SQLITE_OK;
}

int docextCollShardKey(DocColl *pColl, const u8 **paKey, i64 *pnChunkSize, i64 *piTag,
                       char **pzErr){
  DocIndexCache *c = 0;
  int rc = idxCacheGet(pColl, 0, &c, pzErr);
  *paKey = rc==SQLITE_OK ? c->aShardKey : 0;
  if( pnChunkSize ) *pnChunkSize = rc==SQLITE_OK ? c->nChunkSize : 0;
  if( piTag ) *piTag = rc==SQLITE_OK ? c->iTag : 0;
  return rc;
}

int docextCollTagBump(DocColl *pColl, char **pzErr){
  DocIndexCache *c = 0;
  int rc = idxCacheGet(pColl, 1, &c, pzErr);
  if( rc==SQLITE_OK ) rc = idxTagBump(pColl, c, 1);
  if( rc!=SQLITE_OK ) rc = idxSqlError(pColl, rc, pzErr);
  return rc;
}

int docextCollSetShardKey(DocColl *pColl, const u8 *aKey, i64 nChunkSize, char **pzErr){
  DocIndexCache *c = 0;
  sqlite3_stmt *pStmt = 0;
  int rc = idxCacheGet(pColl, 1, &c, pzErr);
  if( rc==SQLITE_OK ) rc = idxStmt(pColl, c, IS_CONFIG_SET, &pStmt);
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(pStmt, 1, "shardkey", -1, SQLITE_STATIC);
    sqlite3_bind_blob(pStmt, 2, aKey, docextGetI32(aKey), SQLITE_STATIC);
    rc = docextStmtRun(pStmt);
  }
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(pStmt, 1, "chunksize", -1, SQLITE_STATIC);
    sqlite3_bind_int64(pStmt, 2, nChunkSize);
    rc = docextStmtRun(pStmt);
  }
  if( pStmt ) sqlite3_clear_bindings(pStmt);
  if( rc==SQLITE_OK ) rc = idxTagBump(pColl, c, 0);
  if( rc!=SQLITE_OK && *pzErr==0 ) rc = idxSqlError(pColl, rc, pzErr);
  return rc;
}

int docextCollValidation(DocColl *pColl, const u8 **paSpec, i64 *piTag, char **pzErr){
  DocIndexCache *c = 0;
  int rc = idxCacheGet(pColl, 0, &c, pzErr);
  *paSpec = rc==SQLITE_OK ? c->aValidation : 0;
  *piTag = rc==SQLITE_OK ? c->iTag : 0;
  return rc;
}

/* X_config's zKey ("validation" or "collation") set to the BSON aSpec
** (NULL: removed), unless it holds those bytes already. */
static int idxConfigWrite(DocColl *pColl, const char *zKey, const u8 *aSpec, char **pzErr){
  DocIndexCache *c = 0;
  sqlite3_stmt *pStmt = 0;
  const u8 *aOld;
  int rc = idxCacheGet(pColl, 1, &c, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  aOld = strcmp(zKey, "validation")==0 ? c->aValidation : c->aCollation;
  if( aSpec==0 ? aOld==0
      : aOld && docextGetI32(aOld)==docextGetI32(aSpec)
        && memcmp(aOld, aSpec, docextGetI32(aSpec))==0 ){
    return SQLITE_OK;                      /* (the same: nothing to write) */
  }
  rc = idxStmt(pColl, c, aSpec ? IS_CONFIG_SET : IS_CONFIG_DEL, &pStmt);
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(pStmt, 1, zKey, -1, SQLITE_STATIC);
    if( aSpec ) sqlite3_bind_blob(pStmt, 2, aSpec, docextGetI32(aSpec), SQLITE_STATIC);
    rc = docextStmtRun(pStmt);
    sqlite3_clear_bindings(pStmt);
  }
  if( rc==SQLITE_OK ) rc = idxTagBump(pColl, c, 0);
  if( rc!=SQLITE_OK && *pzErr==0 ) rc = idxSqlError(pColl, rc, pzErr);
  return rc;
}

int docextCollSetValidation(DocColl *pColl, const u8 *aSpec, char **pzErr){
  return idxConfigWrite(pColl, "validation", aSpec, pzErr);
}

int docextCollSetCollation(DocColl *pColl, const u8 *aSpec, char **pzErr){
  return idxConfigWrite(pColl, "collation", aSpec, pzErr);
}

int docextCollCollation(DocColl *pColl, DocCollator **ppOut, char **pzErr){
  DocIndexCache *c = 0;
  int rc = idxCacheGet(pColl, 0, &c, pzErr);
  *ppOut = rc==SQLITE_OK ? c->aIdx[0].pCollator : 0;
  return rc;
}

int docextCollIndexes(DocColl *pColl, DocIndex **paIdx, int *pnIdx, char **pzErr){
  DocIndexCache *c = 0;
  int rc = idxCacheGet(pColl, 0, &c, pzErr);
  if( rc!=SQLITE_OK ){
    *paIdx = 0;
    *pnIdx = 0;
    return rc;
  }
  *paIdx = c->aIdx;
  *pnIdx = c->nIdx;
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Maintenance
*/

/* Write pIdx's spec (as it is now in memory) over the stored one. */
static int idxSpecSave(DocColl *p, DocIndexCache *c, const DocIndex *pIdx){
  sqlite3_stmt *pStmt = 0;
  DocBuf spec;
  int rc;
  memset(&spec, 0, sizeof(spec));
  rc = idxSpecEncode(pIdx, &spec);
  if( rc==SQLITE_OK ) rc = idxStmt(p, c, IS_DEF_SPEC, &pStmt);
  if( rc==SQLITE_OK ){
    sqlite3_bind_int64(pStmt, 1, pIdx->iId);
    sqlite3_bind_blob(pStmt, 2, spec.a, (int)spec.n, SQLITE_STATIC);
    rc = docextStmtRun(pStmt);
    sqlite3_clear_bindings(pStmt);
  }
  docextBufFree(&spec);
  return rc;
}

/* Does key set pSet (of a document, for pIdx) have an array where pIdx's
** multikey paths have none? */
static int idxMultikeyGrows(const DocIndex *pIdx, const KeySet *pSet){
  int j;
  if( !pSet->bMultikey ) return 0;
  if( !pIdx->bMultikey ) return 1;
  if( pIdx->aMultikeyPaths==0 ) return 0;
  for(j=0; j<pIdx->nField; j++){
    if( pSet->aMk[j] & ~pIdx->aMultikeyPaths[j] ) return 1;
  }
  return 0;
}

/* Add what pSet has to pIdx's multikey flag and paths (in memory). */
static void idxMultikeyMerge(DocIndex *pIdx, const KeySet *pSet){
  int j;
  if( !pSet->bMultikey ) return;
  pIdx->bMultikey = 1;
  if( pIdx->aMultikeyPaths ){
    for(j=0; j<pIdx->nField; j++) pIdx->aMultikeyPaths[j] |= pSet->aMk[j];
  }
}

/* Mark index i multikey where pSet has arrays, in memory and in its spec. */
static int idxSetMultikey(DocColl *p, DocIndexCache *c, int i, const KeySet *pSet){
  int rc;
  idxMultikeyMerge(&c->aIdx[i], pSet);
  rc = idxSpecSave(p, c, &c->aIdx[i]);
  if( rc==SQLITE_OK ) rc = idxTagBump(p, c, 1);
  if( rc!=SQLITE_OK ) c->bLoaded = 0;
  return rc;
}

/* Is key k of pSet (index ix) held by a document other than iDoc? */
static int idxEntryTaken(DocColl *p, DocIndexCache *c, i64 ix, const u8 *aKey, int nKey,
                      i64 iDoc, int *pbTaken){
  sqlite3_stmt *pStmt = 0;
  int rc = idxStmt(p, c, IS_ENTRY_DUP, &pStmt);
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_bind_int64(pStmt, 1, ix);
  sqlite3_bind_blob(pStmt, 2, aKey, nKey, SQLITE_STATIC);
  sqlite3_bind_int64(pStmt, 3, iDoc);
  *pbTaken = sqlite3_step(pStmt)==SQLITE_ROW;
  rc = sqlite3_reset(pStmt);
  sqlite3_clear_bindings(pStmt);
  return rc;
}

/* Insert, delete, or set the vals of an entry. aVals (NULL: none) is the
** entry's vals for IS_ENTRY_INS and IS_ENTRY_VALS. */
static int idxEntryWrite(DocColl *p, DocIndexCache *c, int eStmt, i64 ix,
                      const u8 *aKey, int nKey, i64 iDoc, const u8 *aVals, int nVals){
  sqlite3_stmt *pStmt = 0;
  int rc;
  int bVals = docextStorageHasVals(docextCollStore(p));
  if( eStmt==IS_ENTRY_INS && !bVals ) eStmt = IS_ENTRY_INS0;
  if( eStmt==IS_ENTRY_VALS && !bVals ) return SQLITE_OK;
  rc = idxStmt(p, c, eStmt, &pStmt);
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_bind_int64(pStmt, 1, ix);
  sqlite3_bind_blob(pStmt, 2, aKey, nKey, SQLITE_STATIC);
  sqlite3_bind_int64(pStmt, 3, iDoc);
  if( (eStmt==IS_ENTRY_INS || eStmt==IS_ENTRY_VALS) && aVals ){
    sqlite3_bind_blob(pStmt, 4, aVals, nVals, SQLITE_STATIC);
  }
  rc = docextStmtRun(pStmt);
  sqlite3_clear_bindings(pStmt);
  return rc;
}

static char *idxDupMessage(DocColl *p, const DocIndex *pIdx, const KeySet *pSet, int k){
  return docextDupKeyMessage(p, pIdx->zName, pIdx->nField, pIdx->azPath,
                             &pSet->aVal[k*pSet->nField]);
}

/* Do aOld and aNew hold the same top-level field for the first name of
** each path of pIdx other than the text fields' (_fts, _ftsx)? Then the
** values of those paths are the same. */
static int idxSameOtherFields(const DocIndex *pIdx, const u8 *aOld, const u8 *aNew){
  int j;
  for(j=0; j<pIdx->nField; j++){
    const char *z = pIdx->azPath[j];
    int n = 0, bOld, bNew;
    DocValue vOld, vNew;
    if( idxIsTextField(pIdx, j) ) continue;
    while( z[n] && z[n]!='.' ) n++;
    bOld = docextBsonFind(aOld, z, n, &vOld);
    bNew = docextBsonFind(aNew, z, n, &vNew);
    if( bOld!=bNew ) return 0;
    if( bOld && (vOld.type!=vNew.type || vOld.n!=vNew.n
                 || memcmp(vOld.p, vNew.p, (size_t)vOld.n)!=0) ){
      return 0;
    }
  }
  return 1;
}

/* *pbSame: pIdx is a text index and aOld and aNew have the same entries in
** it: the same strings (docextTextSameStrings), the same values of its
** other fields, the same answer from its partial filter. Making a text
** index's keys means cutting, folding and stemming every string, for both
** documents, on every update; this is cheaper. */
static int idxTextUnchanged(const DocIndex *pIdx, const u8 *aOld, const u8 *aNew,
                            int *pbSame, char **pzErr){
  int rc = SQLITE_OK;
  *pbSame = 0;
  if( pIdx->pText==0 || !idxSameOtherFields(pIdx, aOld, aNew) ) return SQLITE_OK;
  if( pIdx->pPartial ){
    int bOld = 0, bNew = 0;
    rc = docextMatcherMatch(pIdx->pPartial, aOld, &bOld, 0, pzErr);
    if( rc==SQLITE_OK ) rc = docextMatcherMatch(pIdx->pPartial, aNew, &bNew, 0, pzErr);
    if( rc!=SQLITE_OK || bOld!=bNew ) return rc;
    if( !bOld ){
      *pbSame = 1;                      /* (in neither) */
      return SQLITE_OK;
    }
  }
  return docextTextSameStrings(pIdx->pText, aOld, aNew, pbSame);
}

int docextIndexUpdate(DocColl *pColl, i64 iDoc, const u8 *aOld, const u8 *aNew, char **pzErr){
  DocIndexCache *c = 0;
  int rc, i, nIdx;
  rc = idxCacheGet(pColl, 0, &c, pzErr);
  if( rc!=SQLITE_OK || c->nIdx<=1 ) return rc;
  nIdx = c->nIdx;

  /* 1. Every key, old and new: errors (parallel arrays, hashed arrays)
  ** come out here, before anything is written. A text index whose strings
  ** did not change keeps its entries: no keys, no writes. */
  for(i=1; rc==SQLITE_OK && i<nIdx; i++){
    KeySet *pOld = &c->aOldKeys[i], *pNew = &c->aNewKeys[i];
    int bSame = 0;
    ksReset(pOld, c->aIdx[i].nField);
    ksReset(pNew, c->aIdx[i].nField);
    if( aOld && aNew ) rc = idxTextUnchanged(&c->aIdx[i], aOld, aNew, &bSame, pzErr);
    if( rc!=SQLITE_OK || bSame ) continue;
    if( aOld ) rc = idxKeysCompute(&c->aIdx[i], aOld, pOld, pzErr);
    if( rc==SQLITE_OK && aNew ) rc = idxKeysCompute(&c->aIdx[i], aNew, pNew, pzErr);
  }

  /* 2. Unique indexes: a key this document gains must not belong to
  ** another document. */
  for(i=1; rc==SQLITE_OK && i<nIdx; i++){
    KeySet *pOld = &c->aOldKeys[i], *pNew = &c->aNewKeys[i];
    int j = 0, k;
    if( !c->aIdx[i].bUnique ) continue;
    for(k=0; rc==SQLITE_OK && k<pNew->nKey; k++){
      int cmp = -1, nKey, bTaken = 0;
      const u8 *aKey;
      while( j<pOld->nKey && (cmp = ksCompare(pOld, j, pNew, k))<0 ) j++;
      if( j<pOld->nKey && cmp==0 ) continue;      /* kept, not gained */
      aKey = ksKey(pNew, k, &nKey);
      rc = idxEntryTaken(pColl, c, c->aIdx[i].iId, aKey, nKey, iDoc, &bTaken);
      if( rc==SQLITE_OK && bTaken ){
        *pzErr = idxDupMessage(pColl, &c->aIdx[i], pNew, k);
        rc = *pzErr ? SQLITE_CONSTRAINT : SQLITE_NOMEM;
      }
    }
  }

  /* 3. Write the differences (and the vals that changed). */
  for(i=1; rc==SQLITE_OK && i<nIdx; i++){
    KeySet *pOld = &c->aOldKeys[i], *pNew = &c->aNewKeys[i];
    i64 ix = c->aIdx[i].iId;
    int j = 0, k = 0, nKey, bNewVals = 0, bOldVals = -1;
    const u8 *aKey;
    rc = idxValsCompute(&c->aIdx[i], pNew, pNew, aNew, &bNewVals);
    while( rc==SQLITE_OK && (j<pOld->nKey || k<pNew->nKey) ){
      int cmp;
      if( j>=pOld->nKey ) cmp = 1;
      else if( k>=pNew->nKey ) cmp = -1;
      else cmp = ksCompare(pOld, j, pNew, k);
      if( cmp<0 ){
        aKey = ksKey(pOld, j++, &nKey);
        rc = idxEntryWrite(pColl, c, IS_ENTRY_DEL, ix, aKey, nKey, iDoc, 0, 0);
      }else if( cmp>0 ){
        aKey = ksKey(pNew, k++, &nKey);
        rc = idxEntryWrite(pColl, c, IS_ENTRY_INS, ix, aKey, nKey, iDoc,
                           bNewVals ? pNew->vals.a : 0, (int)pNew->vals.n);
      }else{
        /* the same key: its vals may still differ (1 and 1.0); the old
        ** document's are computed once, at its first kept key */
        if( bOldVals<0 ) rc = idxValsCompute(&c->aIdx[i], pNew, pOld, aOld, &bOldVals);
        if( rc==SQLITE_OK && (bNewVals || bOldVals)
         && (bNewVals!=bOldVals || pOld->vals.n!=pNew->vals.n
             || memcmp(pOld->vals.a, pNew->vals.a, (size_t)pNew->vals.n)!=0) ){
          /* new vals, or NULL when the new document has none */
          aKey = ksKey(pNew, k, &nKey);
          rc = idxEntryWrite(pColl, c, IS_ENTRY_VALS, ix, aKey, nKey, iDoc,
                             bNewVals ? pNew->vals.a : 0, (int)pNew->vals.n);
        }
        j++;
        k++;
      }
    }
    if( rc==SQLITE_OK && idxMultikeyGrows(&c->aIdx[i], pNew) ){
      rc = idxSetMultikey(pColl, c, i, pNew);
    }
  }
  return idxSqlError(pColl, rc, pzErr);
}

/*------------------------------------------------------------------------
** TTL
*/

/* Documents expire when date < now - expireAfterSeconds. */
static i64 idxTtlCutoff(const DocIndex *pIdx, i64 nowMs){
  i64 nMs = pIdx->nExpireAfter*1000;
  const i64 iMin = (i64)(-0x7fffffffffffffffLL - 1);
  return nowMs < iMin + nMs ? iMin : nowMs - nMs;
}

static void idxDateKey(int *pRc, DocBuf *p, i64 ms, int bDesc){
  u8 a8[8];
  DocValue v = docextValue64(DOC_DATE, ms, a8);
  docextKeyAppend(pRc, p, &v, bDesc);
}

int docextCollExpired(DocColl *pColl, const u8 *aDoc, int *pbExpired){
  DocIndexCache *c = 0;
  char *zErr = 0;
  int rc, i, k;
  i64 nowMs;
  *pbExpired = 0;
  rc = idxCacheGet(pColl, 0, &c, &zErr);
  sqlite3_free(zErr);
  if( rc!=SQLITE_OK || !c->bTtl ) return rc;
  nowMs = docextClockNowMs();
  for(i=1; i<c->nIdx && !*pbExpired; i++){
    const DocIndex *pIdx = &c->aIdx[i];
    i64 iCut;
    if( pIdx->nExpireAfter<0 ) continue;
    iCut = idxTtlCutoff(pIdx, nowMs);
    zErr = 0;
    rc = idxKeysCompute(pIdx, aDoc, &c->ttlKeys, &zErr);
    sqlite3_free(zErr);
    if( rc==SQLITE_NOMEM ) return rc;
    if( rc!=SQLITE_OK ){ rc = SQLITE_OK; continue; }    /* not indexable: never expires */
    for(k=0; k<c->ttlKeys.nKey; k++){
      const DocValue *v = &c->ttlKeys.aVal[k];
      if( v->type==DOC_DATE && docextValueI64(v)<iCut ){
        *pbExpired = 1;
        break;
      }
    }
  }
  return SQLITE_OK;
}

/* For docextSort of positions in the i64 array pCtx, by value. */
static int idxCmpI64(void *pCtx, const void *x, const void *y){
  const i64 *aVal = (const i64*)pCtx;
  int a = *(const int*)x, b = *(const int*)y;
  return aVal[a]<aVal[b] ? -1 : aVal[a]>aVal[b];
}

int docextCollTtlSweep(DocColl *pColl, i64 *pnRemoved, char **pzErr){
  DocIndexCache *c = 0;
  i64 *aDoc = 0, nowMs;
  int *aPerm = 0;
  int nDoc = 0, nAlloc = 0, rc, i;
  DocBuf lo, hi;
  u8 aLo[32], aHi[32];

  if( pnRemoved ) *pnRemoved = 0;
  rc = idxCacheGet(pColl, 0, &c, pzErr);
  if( rc!=SQLITE_OK || !c->bTtl || c->bSweeping ) return rc;
  docextBufInit(&lo, aLo, sizeof(aLo));
  docextBufInit(&hi, aHi, sizeof(aHi));
  nowMs = docextClockNowMs();

  /* The documents whose TTL keys hold a date below the cut-off. */
  for(i=1; rc==SQLITE_OK && i<c->nIdx; i++){
    const DocIndex *pIdx = &c->aIdx[i];
    sqlite3_stmt *pStmt = 0;
    int bDesc;
    if( pIdx->nExpireAfter<0 ) continue;
    bDesc = pIdx->aDir[0]<0;
    docextBufReset(&lo);
    docextBufReset(&hi);
    if( bDesc ){
      idxDateKey(&rc, &lo, idxTtlCutoff(pIdx, nowMs), 1);
      idxDateKey(&rc, &hi, (i64)(-0x7fffffffffffffffLL - 1), 1);
    }else{
      idxDateKey(&rc, &lo, (i64)(-0x7fffffffffffffffLL - 1), 0);
      idxDateKey(&rc, &hi, idxTtlCutoff(pIdx, nowMs), 0);
    }
    if( rc==SQLITE_OK ) rc = idxStmt(pColl, c, bDesc ? IS_TTL_DESC : IS_TTL_ASC, &pStmt);
    if( rc!=SQLITE_OK ) break;
    sqlite3_bind_int64(pStmt, 1, pIdx->iId);
    sqlite3_bind_blob(pStmt, 2, lo.a, (int)lo.n, SQLITE_STATIC);
    sqlite3_bind_blob(pStmt, 3, hi.a, (int)hi.n, SQLITE_STATIC);
    while( sqlite3_step(pStmt)==SQLITE_ROW ){
      aDoc = docextArrayGrow(&rc, aDoc, nDoc, &nAlloc, sizeof(i64));
      if( rc!=SQLITE_OK ) break;
      aDoc[nDoc++] = sqlite3_column_int64(pStmt, 0);
    }
    if( sqlite3_reset(pStmt)!=SQLITE_OK && rc==SQLITE_OK ) rc = sqlite3_errcode(idxDb(pColl));
    sqlite3_clear_bindings(pStmt);
  }
  docextBufFree(&lo);
  docextBufFree(&hi);

  /* Remove each once (an array of dates gives several keys). */
  if( rc==SQLITE_OK && nDoc>0 ){
    aPerm = sqlite3_malloc64(sizeof(int)*nDoc*2);
    if( aPerm==0 ) rc = SQLITE_NOMEM;
  }
  if( rc==SQLITE_OK && nDoc>0 ){
    for(i=0; i<nDoc; i++) aPerm[i] = i;
    docextSort(aPerm, nDoc, sizeof(int), &aPerm[nDoc], idxCmpI64, aDoc);
    c->bSweeping = 1;
    for(i=0; rc==SQLITE_OK && i<nDoc; i++){
      if( i>0 && aDoc[aPerm[i]]==aDoc[aPerm[i-1]] ) continue;
      rc = docextCollDelete(pColl, aDoc[aPerm[i]], pzErr);
      if( rc==SQLITE_OK && pnRemoved ) (*pnRemoved)++;
    }
    c->bSweeping = 0;
  }
  sqlite3_free(aPerm);
  sqlite3_free(aDoc);
  return idxSqlError(pColl, rc, pzErr);
}

/*------------------------------------------------------------------------
** Commands: shared helpers
*/

/* Report an error from an SQL function (takes zErr). */
static void idxResultError(sqlite3_context *ctx, int rc, char *zErr){
  if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else{
    if( zErr==0 ) zErr = sqlite3_mprintf("docext: %s", sqlite3_errstr(rc));
    sqlite3_result_error(ctx, zErr ? zErr : sqlite3_errstr(rc), -1);
    if( rc!=SQLITE_ERROR ) sqlite3_result_error_code(ctx, rc);
  }
  sqlite3_free(zErr);
}

/* The collection named by argument 0 of the function of ctx (which
** holds it for the call), and its router when it is sharded (*ppR, to be
** freed; else NULL). */
static int idxCollArg(DocConn *pConn, sqlite3_context *ctx, sqlite3_value *pArg,
                      DocColl **ppColl, DocRouter **ppR, char **pzErr){
  int rc = docextCollFindArg(pConn, ctx, 0, pArg, ppColl, pzErr);
  *ppR = 0;
  if( rc==SQLITE_OK ) rc = docextRouterOpen(pConn, *ppColl, ppR, pzErr);
  return rc;
}

/* Run SQL on the collection's shadow tables: %w arguments are the schema
** and the collection's table name, in that order, every time. */
static int idxExec(DocColl *p, char **pzErr, const char *zFmt, i64 iArg){
  char *zSql = sqlite3_mprintf(zFmt, idxSchema(p), idxTable(p), iArg);
  int rc;
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_exec(idxDb(p), zSql, 0, 0, 0);
  sqlite3_free(zSql);
  return idxSqlError(p, rc, pzErr);
}

int docextIndexRemoveDoc(DocColl *p, i64 iDoc, char **pzErr){
  return idxExec(p, pzErr, "DELETE FROM \"%w\".\"%w_idx\" WHERE docid=%lld", iDoc);
}

static int idxPrepare(DocColl *p, sqlite3_stmt **ppStmt, char **pzErr, const char *zFmt){
  char *zSql = sqlite3_mprintf(zFmt, idxSchema(p), idxTable(p));
  int rc;
  *ppStmt = 0;
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(idxDb(p), zSql, -1, ppStmt, 0);
  sqlite3_free(zSql);
  return idxSqlError(p, rc, pzErr);
}

/* A command runs in a savepoint when it can, so that it is atomic and one
** transaction (in autocommit mode each nested statement would otherwise
** commit alone). SQLite refuses SAVEPOINT while a write statement runs
** (the command was called from an INSERT, say): then the command runs in
** that statement's transaction and undoes its own writes on error. */
/* The savepoint of an index command (docextStorageSavepoint): 1 if it is
** open. None opens inside a statement that writes; then the command works
** unguarded (and cleans up after itself where it can). */
static int idxCmdBegin(DocColl *p){
  return docextStorageSavepoint(docextCollStore(p), DOCEXT_SP_OPEN)==SQLITE_OK;
}
/* An index command that writes takes the write lock before it reads
** (DOCEXT_SP_LOCK), as an UPDATE statement would. */
static int idxCmdLock(DocColl *p, int bSavepoint){
  if( !bSavepoint ) return SQLITE_OK;
  return docextStorageSavepoint(docextCollStore(p), DOCEXT_SP_LOCK);
}
static int idxCmdEnd(DocColl *p, int bSavepoint, int rc){
  if( !bSavepoint ) return rc;
  return docextStorageSavepointEnd(docextCollStore(p), rc);
}

/*------------------------------------------------------------------------
** doc_create_index(coll, keys [, options])
*/

/* Write pIdx's definition and an entry for every document. On error the
** caller undoes (savepoint or cleanup) everything. */
static int idxBuild(DocColl *p, DocIndexCache *c, DocIndex *pIdx, char **pzErr){
  sqlite3_stmt *pIns = 0;
  DocReader *pReader = 0;
  DocScan scan;
  DocBuf spec;
  KeySet ks;
  int rc;

  memset(&spec, 0, sizeof(spec));
  memset(&ks, 0, sizeof(ks));
  rc = idxSpecEncode(pIdx, &spec);
  if( rc==SQLITE_OK ){
    rc = idxPrepare(p, &pIns, pzErr,
                     "INSERT INTO \"%w\".\"%w_idxdef\"(name, spec) VALUES(?1, ?2)");
  }
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(pIns, 1, pIdx->zName, -1, SQLITE_STATIC);
    sqlite3_bind_blob(pIns, 2, spec.a, (int)spec.n, SQLITE_STATIC);
    rc = idxSqlError(p, docextStmtRun(pIns), pzErr);
    if( rc==SQLITE_OK ) pIdx->iId = sqlite3_last_insert_rowid(idxDb(p));
  }
  sqlite3_finalize(pIns);
  docextBufFree(&spec);

  if( rc==SQLITE_OK ) rc = docextReaderNew(docextCollStore(p), &pReader);
  memset(&scan, 0, sizeof(scan));
  scan.eScan = DOCEXT_SCAN_ALL;
  if( rc==SQLITE_OK ) rc = docextReaderStart(pReader, &scan);
  while( rc==SQLITE_OK ){
    const u8 *aDoc = 0;
    i64 iDoc;
    int k, bVals;
    rc = docextReaderStep(pReader);
    if( rc!=SQLITE_ROW ){
      if( rc==SQLITE_DONE ) rc = SQLITE_OK;
      break;
    }
    iDoc = docextReaderDocid(pReader);
    rc = docextReaderDoc(pReader, &aDoc, pzErr);
    if( rc==SQLITE_OK ) rc = idxKeysCompute(pIdx, aDoc, &ks, pzErr);
    if( rc==SQLITE_OK ) idxMultikeyMerge(pIdx, &ks);
    bVals = 0;
    if( rc==SQLITE_OK ) rc = idxValsCompute(pIdx, &ks, &ks, aDoc, &bVals);
    for(k=0; rc==SQLITE_OK && k<ks.nKey; k++){
      int nKey, bTaken = 0;
      const u8 *aKey = ksKey(&ks, k, &nKey);
      if( pIdx->bUnique ){
        rc = idxEntryTaken(p, c, pIdx->iId, aKey, nKey, iDoc, &bTaken);
        if( rc==SQLITE_OK && bTaken ){
          *pzErr = idxDupMessage(p, pIdx, &ks, k);
          rc = *pzErr ? SQLITE_CONSTRAINT : SQLITE_NOMEM;
        }
      }
      if( rc==SQLITE_OK ){
        rc = idxEntryWrite(p, c, IS_ENTRY_INS, pIdx->iId, aKey, nKey, iDoc,
                           bVals ? ks.vals.a : 0, (int)ks.vals.n);
      }
    }
  }
  docextReaderFree(pReader);
  ksFree(&ks);

  if( rc==SQLITE_OK && pIdx->bMultikey ) rc = idxSpecSave(p, c, pIdx);
  if( rc==SQLITE_OK ) rc = idxTagBump(p, c, 0);
  return idxSqlError(p, rc, pzErr);
}

/* An index with this name or this key pattern already there: SQLITE_DONE
** if it is the same index (*pzName: its name), an error if it conflicts,
** SQLITE_OK if there is none. */
static int idxConflict(DocIndexCache *c, const DocIndex *pNew, const char **pzName,
                         char **pzErr){
  int i;
  for(i=0; i<c->nIdx; i++){
    const DocIndex *pOld = &c->aIdx[i];
    if( strcmp(pOld->zName, pNew->zName)==0 ){
      if( !idxPatternSame(pOld, pNew) ){
        return docextError(pzErr, "docext: an index named %s already exists with a "
                                  "different key pattern", pOld->zName);
      }
      if( !idxOptionsSame(pOld, pNew) ){
        return docextError(pzErr, "docext: index %s already exists with different "
                                  "options", pOld->zName);
      }
      *pzName = pOld->zName;
      return SQLITE_DONE;
    }
  }
  for(i=1; i<c->nIdx; i++){
    const DocIndex *pOld = &c->aIdx[i];
    if( pOld->pText && pNew->pText
     && !(idxPatternSame(pOld, pNew) && idxOptionsSame(pOld, pNew)
          && idxPartialSame(pOld, pNew)) ){
      return docextError(pzErr, "docext: only one text index per collection allowed, "
                                "found existing text index \"%s\"", pOld->zName);
    }
    if( idxPatternSame(pOld, pNew) && idxPartialSame(pOld, pNew)
     && docextCollatorSame(pOld->pCollator, pNew->pCollator) ){
      /* (as in MongoDB, one key pattern may be indexed under several
      ** collations) */
      *pzErr = idxOptionsSame(pOld, pNew)
        ? sqlite3_mprintf("docext: index already exists with a different name: %s",
                          pOld->zName)
        : sqlite3_mprintf("docext: an index with the same key pattern already exists "
                          "with different options: %s", pOld->zName);
      return SQLITE_ERROR;
    }
  }
  return SQLITE_OK;
}

int docextIndexCreate(DocColl *p, const u8 *aKeys, const u8 *aOpt, char **pzName,
                      char **pzErr){
  DocIndexCache *c = 0;
  DocBuf name;
  DocIndex cand;
  DocValue vColl;
  const char *zExisting = 0;
  int rc, bSave = 0, bNamed = 0;

  *pzName = 0;
  memset(&name, 0, sizeof(name));
  memset(&cand, 0, sizeof(cand));
  cand.nExpireAfter = -1;
  cand.bMultikeyVals = 1;
  cand.bHashMix = 1;
  rc = idxPatternParse(aKeys, &cand, &name, pzErr);
  if( rc==SQLITE_OK && aOpt ) rc = idxOptionsParse(aOpt, &cand, pzErr);
  if( rc==SQLITE_OK ){
    bNamed = cand.zName!=0;
    if( !bNamed ) cand.zName = docextBufDetachText(&rc, &name);
  }
  if( rc==SQLITE_OK && cand.nField==1 && cand.aDir[0]==1 && strcmp(cand.azPath[0], "_id")==0 ){
    /* The _id index always exists and takes no options. */
    if( (bNamed && strcmp(cand.zName, "_id_")!=0)
     || cand.bSparse || cand.nExpireAfter>=0 || cand.aPartial || cand.pCollator ){
      *pzErr = sqlite3_mprintf("docext: the _id index exists already and cannot be changed");
      rc = SQLITE_ERROR;
    }else{
      zExisting = "_id_";
      rc = SQLITE_DONE;
    }
  }else if( rc==SQLITE_OK && strcmp(cand.zName, "_id_")==0 ){
    *pzErr = sqlite3_mprintf("docext: the name _id_ is reserved for the _id index");
    rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK ) rc = idxFinish(&cand, pzErr);
  if( rc==SQLITE_OK ){
    bSave = idxCmdBegin(p);
    rc = idxCmdLock(p, bSave);
    if( rc==SQLITE_OK ) rc = idxCacheGet(p, 1, &c, pzErr);
    if( rc==SQLITE_OK && c->aIdx[0].pCollator && !cand.pText && cand.eGeo!=DOCEXT_DIR_2D
     && !(aOpt && docextBsonFind(aOpt, "collation", 9, &vColl)) ){
      /* an index made without a collation takes the collection's default
      ** (as in MongoDB; text and 2d indexes have none) */
      cand.pCollator = docextCollatorRef(c->aIdx[0].pCollator);
      if( cand.aPartial ){
        docextMatcherFree(cand.pPartial);
        cand.pPartial = 0;
        rc = idxFinish(&cand, pzErr);
      }
    }
    if( rc==SQLITE_OK ) rc = idxConflict(c, &cand, &zExisting, pzErr);
    if( rc==SQLITE_OK ){
      rc = idxBuild(p, c, &cand, pzErr);
      if( rc!=SQLITE_OK && !bSave && cand.iId>0 ){
        /* No savepoint to roll back: remove what was written. */
        idxExec(p, 0, "DELETE FROM \"%w\".\"%w_idx\" WHERE ix=%lld", cand.iId);
        idxExec(p, 0, "DELETE FROM \"%w\".\"%w_idxdef\" WHERE id=%lld", cand.iId);
      }
    }
    {
      int rcEnd = idxCmdEnd(p, bSave, rc==SQLITE_DONE ? SQLITE_OK : rc);
      if( rc!=SQLITE_DONE || rcEnd!=SQLITE_OK ) rc = rcEnd;
    }
    if( rc!=SQLITE_OK && rc!=SQLITE_DONE && c ) c->bLoaded = 0;
  }
  if( rc==SQLITE_DONE || rc==SQLITE_OK ){
    /* (an existing index: its name; zExisting lives in the cache) */
    *pzName = sqlite3_mprintf("%s", rc==SQLITE_DONE ? zExisting : cand.zName);
    rc = *pzName ? SQLITE_OK : SQLITE_NOMEM;
  }
  idxClear(&cand);
  docextBufFree(&name);
  return rc;
}

void docextIndexOptions(const DocIndex *pIdx, int *pRc, DocBuf *pOut){
  i64 iStart = docextBsonStartDoc(pRc, pOut);
  docextBsonAppendString(pRc, pOut, DOC_STRING, "name", 4, pIdx->zName,
                         (int)strlen(pIdx->zName));
  if( pIdx->bUnique ) docextBsonAppendBool(pRc, pOut, "unique", 6, 1);
  if( pIdx->bSparse ) docextBsonAppendBool(pRc, pOut, "sparse", 6, 1);
  if( pIdx->nExpireAfter>=0 ){
    docextBsonAppendInt64(pRc, pOut, "expireAfterSeconds", 18, pIdx->nExpireAfter);
  }
  if( pIdx->aPartial ){
    DocValue v;
    v.type = DOC_DOCUMENT;
    v.p = pIdx->aPartial;
    v.n = docextGetI32(pIdx->aPartial);
    docextBsonAppendValue(pRc, pOut, "partialFilterExpression", 23, &v);
  }
  if( pIdx->pText ) docextTextSpecWrite(pIdx->pText, pRc, pOut);
  if( pIdx->pCollator ) docextCollatorAppendSpec(pRc, pOut, "collation", 9, pIdx->pCollator);
  docextBsonEndDoc(pRc, pOut, iStart);
}

static void createIndexFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocColl *p = 0;
  DocRouter *pR = 0;
  DocBuf bufKeys, bufOpt;
  const u8 *aKeys = 0, *aOpt = 0;
  char *zErr = 0, *zName = 0;
  int rc;

  memset(&bufKeys, 0, sizeof(bufKeys));
  memset(&bufOpt, 0, sizeof(bufOpt));
  /* (a sharded collection too: the index goes to every partition) */
  rc = idxCollArg(pConn, ctx, argv[0], &p, &pR, &zErr);
  if( rc==SQLITE_OK ) rc = docextArgToBson(argv[1], &bufKeys, &aKeys, &zErr);
  if( rc==SQLITE_OK && argc>2 && sqlite3_value_type(argv[2])!=SQLITE_NULL ){
    rc = docextArgToBson(argv[2], &bufOpt, &aOpt, &zErr);
  }
  if( rc==SQLITE_OK ){
    rc = pR ? docextRouterCreateIndex(pR, aKeys, aOpt, &zName, &zErr)
            : docextIndexCreate(p, aKeys, aOpt, &zName, &zErr);
  }
  docextRouterFree(pR);
  if( rc==SQLITE_OK ){
    sqlite3_result_text(ctx, zName, -1, sqlite3_free);
    sqlite3_free(zErr);
  }else{
    idxResultError(ctx, rc, zErr);
  }
  docextBufFree(&bufKeys);
  docextBufFree(&bufOpt);
}

/*------------------------------------------------------------------------
** doc_drop_index(coll, name_or_keys)
*/

/* Drop index i of p (whose definitions c holds). */
static int idxDropAt(DocColl *p, DocIndexCache *c, int i, char **pzErr){
  i64 iId = c->aIdx[i].iId;
  int rc = idxExec(p, pzErr, "DELETE FROM \"%w\".\"%w_idx\" WHERE ix=%lld", iId);
  if( rc==SQLITE_OK ) rc = idxExec(p, pzErr, "DELETE FROM \"%w\".\"%w_idxdef\" WHERE id=%lld", iId);
  if( rc==SQLITE_OK ) rc = idxTagBump(p, c, 0);
  c->bLoaded = 0;
  return rc;
}

/* doc_drop_index on a sharded collection, before the router's own storage
** drops pIdx: the index of that name in every partition, unless it is
** the shard key's, which every shard needs. */
static int idxDropSharded(DocRouter *pR, const DocIndex *pIdx, char **pzErr){
  DocPartition *aPart = 0;
  int nPart = 0, rc, k, i;
  if( docextRouterIsKeyIndex(pR, pIdx) ){
    return docextError(pzErr, "docext: cannot drop index %s: the collection is sharded on "
                       "its key, and every shard needs an index on the shard key", pIdx->zName);
  }
  rc = docextRouterPartitions(pR, &aPart, &nPart, pzErr);
  for(k=1; rc==SQLITE_OK && k<nPart; k++){
    DocColl *p = aPart[k].pColl;
    DocIndexCache *c = 0;
    rc = idxCacheGet(p, 1, &c, pzErr);
    for(i=1; rc==SQLITE_OK && i<c->nIdx; i++){
      if( strcmp(c->aIdx[i].zName, pIdx->zName)==0 ){
        if( !docextRouterIsKeyIndex(pR, &c->aIdx[i]) ) rc = idxDropAt(p, c, i, pzErr);
        break;
      }
    }
  }
  sqlite3_free(aPart);
  return rc;
}

/* doc_drop_index by name when the definitions cannot be loaded: one is
** damaged, or names a collation that another ICU version made (whose keys
** this one cannot make again). The index of that name goes, definition and
** entries, so that the collection can be used again. SQLITE_NOTFOUND when
** no definition has the name. */
static int idxDropUnloadable(DocColl *p, const char *zName, char **pzErr){
  DocIndexCache *c = *docextCollIndexCache(p);
  sqlite3_stmt *pStmt = 0;
  i64 iId = 0;
  int rc = idxPrepare(p, &pStmt, pzErr, "SELECT id FROM \"%w\".\"%w_idxdef\" WHERE name=?1");
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_bind_text(pStmt, 1, zName, -1, SQLITE_STATIC);
  if( sqlite3_step(pStmt)==SQLITE_ROW ) iId = sqlite3_column_int64(pStmt, 0);
  rc = idxSqlError(p, sqlite3_finalize(pStmt), pzErr);
  if( rc==SQLITE_OK && iId==0 ) return SQLITE_NOTFOUND;
  if( rc==SQLITE_OK ) rc = idxExec(p, pzErr, "DELETE FROM \"%w\".\"%w_idx\" WHERE ix=%lld", iId);
  if( rc==SQLITE_OK ) rc = idxExec(p, pzErr, "DELETE FROM \"%w\".\"%w_idxdef\" WHERE id=%lld", iId);
  if( rc==SQLITE_OK && c ) rc = idxTagBump(p, c, 0);
  return rc;
}

static void dropIndexFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocColl *p = 0;
  DocRouter *pR = 0;
  DocIndexCache *c = 0;
  DocIndex pat;
  DocBuf buf;
  const u8 *aKeys = 0;
  const char *zName = 0;
  char *zErr = 0;
  int rc, i, iFound = -1, nFound = 0, bSave = 0;
  (void)argc;

  memset(&pat, 0, sizeof(pat));
  memset(&buf, 0, sizeof(buf));
  rc = idxCollArg(pConn, ctx, argv[0], &p, &pR, &zErr);
  /* The lock before the lookup: another connection must not drop the index
  ** found, and create one that takes its id, before this one deletes it. */
  if( rc==SQLITE_OK ){
    bSave = idxCmdBegin(p);
    rc = idxCmdLock(p, bSave);
  }
  if( rc==SQLITE_OK ) rc = idxCacheGet(p, 1, &c, &zErr);
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM && p && pR==0 && c==0
   && sqlite3_value_type(argv[1])==SQLITE_TEXT ){
    char *zErr2 = 0;
    int rc2 = idxDropUnloadable(p, (const char*)sqlite3_value_text(argv[1]), &zErr2);
    if( rc2!=SQLITE_NOTFOUND ){
      sqlite3_free(zErr);
      zErr = zErr2;
      rc = rc2==SQLITE_OK ? SQLITE_DONE : rc2;
    }else{
      sqlite3_free(zErr2);
    }
  }
  if( rc==SQLITE_OK ){
    /* TEXT is a name unless it reads as a document: '{a: 1}' is a key
    ** pattern, except when an index is named exactly that. */
    if( sqlite3_value_type(argv[1])==SQLITE_TEXT ){
      const char *z = (const char*)sqlite3_value_text(argv[1]);
      zName = z;
      while( z && (*z==' ' || *z=='\t' || *z=='\n' || *z=='\r') ) z++;
      if( z && *z=='{' ){
        for(i=0; i<c->nIdx && strcmp(c->aIdx[i].zName, zName)!=0; i++){}
        if( i==c->nIdx ) zName = 0;
      }
    }
    if( zName==0 ){
      rc = docextArgToBson(argv[1], &buf, &aKeys, &zErr);
      if( rc==SQLITE_OK ) rc = idxPatternParse(aKeys, &pat, 0, &zErr);
    }
  }
  for(i=0; rc==SQLITE_OK && i<c->nIdx; i++){
    if( zName ? strcmp(c->aIdx[i].zName, zName)==0 : idxPatternSame(&c->aIdx[i], &pat) ){
      if( iFound>=0 ) nFound++; else{ iFound = i; nFound = 1; }
    }
  }
  if( rc==SQLITE_OK && nFound>1 ){
    /* several indexes share the pattern (their partial filters differ):
    ** MongoDB's AmbiguousIndexKeyPattern */
    DocBuf msg;
    memset(&msg, 0, sizeof(msg));
    docextBufAppendf(&rc, &msg, "docext: %d indexes found for key: ", nFound);
    docextJsonWriteDoc(&rc, &msg, pat.aKeys, DOCEXT_JSON_SHELL);
    docextBufAppendStr(&rc, &msg, ", identify by name instead:");
    for(i=iFound; rc==SQLITE_OK && i<c->nIdx; i++){
      if( idxPatternSame(&c->aIdx[i], &pat) ) docextBufAppendf(&rc, &msg, " %s", c->aIdx[i].zName);
    }
    zErr = docextBufDetachText(&rc, &msg);
    if( rc==SQLITE_OK ) rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK && iFound<0 ){
    if( zName ){
      zErr = sqlite3_mprintf(strcmp(zName, "*")==0
          ? "docext: index not found with name [%s] (doc_drop_index drops one index)"
          : "docext: index not found with name [%s]", zName);
    }else{
      DocBuf msg;
      memset(&msg, 0, sizeof(msg));
      docextBufAppendStr(&rc, &msg, "docext: can't find index with key: ");
      docextJsonWriteDoc(&rc, &msg, pat.aKeys, DOCEXT_JSON_SHELL);
      zErr = docextBufDetachText(&rc, &msg);
    }
    if( rc==SQLITE_OK ) rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK && iFound==0 ){
    zErr = sqlite3_mprintf("docext: cannot drop _id index");
    rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK && pR ) rc = idxDropSharded(pR, &c->aIdx[iFound], &zErr);
  if( rc==SQLITE_OK ) rc = idxDropAt(p, c, iFound, &zErr);
  if( rc==SQLITE_DONE ) rc = SQLITE_OK;         /* (idxDropUnloadable's) */
  if( p ) rc = idxCmdEnd(p, bSave, rc);
  docextRouterFree(pR);
  if( rc==SQLITE_OK ){
    sqlite3_result_int(ctx, 1);
    sqlite3_free(zErr);
  }else{
    idxResultError(ctx, rc, zErr);
  }
  idxClear(&pat);
  docextBufFree(&buf);
}

/*------------------------------------------------------------------------
** doc_ttl_sweep([coll])
*/

/* Does CREATE VIRTUAL TABLE text z use the docext module? */
static int idxUsesDocext(const char *z){
  const char *zUsing;
  for(zUsing=z; zUsing && *zUsing; zUsing++){
    if( sqlite3_strnicmp(zUsing, "using", 5)==0 ){
      const char *zMod = zUsing+5;
      while( *zMod==' ' || *zMod=='\t' || *zMod=='\n' || *zMod=='\r' ) zMod++;
      if( sqlite3_strnicmp(zMod, "docext", 6)==0 ){
        char x = zMod[6];
        if( !((x>='a' && x<='z') || (x>='A' && x<='Z') || (x>='0' && x<='9') || x=='_') ){
          return 1;
        }
      }
    }
  }
  return 0;
}

/* Every docext collection of the connection, as '"schema"."name"'
** strings (quoted: either may hold a '.') separated by NULs in *pList. */
static int idxListCollections(sqlite3 *db, DocBuf *pList){
  sqlite3_stmt *pDbs = 0;
  int rc = sqlite3_prepare_v2(db, "PRAGMA database_list", -1, &pDbs, 0);
  while( rc==SQLITE_OK && sqlite3_step(pDbs)==SQLITE_ROW ){
    const char *zDb = (const char*)sqlite3_column_text(pDbs, 1);
    sqlite3_stmt *pTab = 0;
    char *zSql = sqlite3_mprintf("SELECT name, sql FROM \"%w\".sqlite_schema "
                                 "WHERE type='table' AND sql LIKE 'create virtual%%'", zDb);
    if( zSql==0 ){ rc = SQLITE_NOMEM; break; }
    rc = sqlite3_prepare_v2(db, zSql, -1, &pTab, 0);
    sqlite3_free(zSql);
    while( rc==SQLITE_OK && sqlite3_step(pTab)==SQLITE_ROW ){
      if( idxUsesDocext((const char*)sqlite3_column_text(pTab, 1)) ){
        docextBufAppendf(&rc, pList, "\"%w\".\"%w\"", zDb,
                         (const char*)sqlite3_column_text(pTab, 0));
        docextBufAppendByte(&rc, pList, 0);
      }
    }
    if( rc==SQLITE_OK ) rc = sqlite3_finalize(pTab); else sqlite3_finalize(pTab);
  }
  if( rc==SQLITE_OK ) rc = sqlite3_finalize(pDbs); else sqlite3_finalize(pDbs);
  return rc;
}

/* doc_ttl_sweep(coll) on a sharded collection: its own storage and every
** partition. */
static int idxTtlSweepSharded(DocRouter *pR, i64 *pnRemoved, char **pzErr){
  DocPartition *aPart = 0;
  int nPart = 0, k;
  int rc = docextRouterPartitions(pR, &aPart, &nPart, pzErr);
  for(k=0; rc==SQLITE_OK && k<nPart; k++){
    i64 n = 0;
    rc = docextCollTtlSweep(aPart[k].pColl, &n, pzErr);
    *pnRemoved += n;
  }
  sqlite3_free(aPart);
  return rc;
}

static void ttlSweepFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  DocRouter *pR = 0;
  DocColl *p = 0;
  DocBuf list;
  char *zErr = 0;
  i64 nTotal = 0;
  int rc = SQLITE_OK, bSave;

  memset(&list, 0, sizeof(list));
  if( argc>0 ){
    rc = idxCollArg(pConn, ctx, argv[0], &p, &pR, &zErr);
  }else{
    rc = idxListCollections(db, &list);
    if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){
      zErr = sqlite3_mprintf("docext: %s", sqlite3_errmsg(db));
    }
  }
  if( rc!=SQLITE_OK ){
    idxResultError(ctx, rc, zErr);
    docextBufFree(&list);
    return;
  }
  if( p ){
    bSave = idxCmdBegin(p);
    rc = idxCmdLock(p, bSave);
    if( rc==SQLITE_OK ){
      rc = pR ? idxTtlSweepSharded(pR, &nTotal, &zErr) : docextCollTtlSweep(p, &nTotal, &zErr);
    }
    rc = idxCmdEnd(p, bSave, rc);
    docextRouterFree(pR);
  }else{
    /* each collection in its own savepoint (a sweep can be repeated) */
    i64 i = 0;
    while( rc==SQLITE_OK && i<list.n ){
      const char *zSpec = (const char*)&list.a[i];
      i64 n = 0;
      i += (i64)strlen(zSpec) + 1;
      rc = docextCollFind(pConn, zSpec, &p, &zErr);
      if( rc==SQLITE_OK ){
        docextCollHold(p);
        bSave = idxCmdBegin(p);
        rc = idxCmdLock(p, bSave);
        if( rc==SQLITE_OK ) rc = docextCollTtlSweep(p, &n, &zErr);
        rc = idxCmdEnd(p, bSave, rc);
        docextCollRelease(p);
      }
      nTotal += n;
    }
  }
  if( rc==SQLITE_OK ){
    sqlite3_result_int64(ctx, nTotal);
    sqlite3_free(zErr);
  }else{
    idxResultError(ctx, rc, zErr);
  }
  docextBufFree(&list);
}

/*------------------------------------------------------------------------
** doc_indexes(coll): name, key, "unique", sparse, multikey,
** expire_after_seconds, entries, collation — an eponymous table-valued
** function.
*/
typedef struct IdxvRow IdxvRow;
struct IdxvRow {
  char *zName;
  char *zKey;               /* the key pattern, relaxed Extended JSON */
  int bUnique, bSparse, bMultikey;
  i64 nExpire;              /* -1: not TTL */
  i64 nEntries;
  char *zCollation;         /* its collation's full spec (JSON), or NULL */
};

typedef struct IdxvCursor IdxvCursor;
struct IdxvCursor {
  sqlite3_vtab_cursor base;
  IdxvRow *aRow;
  int nRow;
  int iRow;
};

#define IDXV_COLL 8         /* the hidden argument column */

static int idxvConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                       sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  /* It reads any collection it is named: see the function flags below. */
  return docextTvfConnect(db, "CREATE TABLE x(name, key, \"unique\", sparse, "
                          "multikey, expire_after_seconds, entries, collation, "
                          "coll HIDDEN)",
                          DOCEXT_VTAB_DIRECTONLY, pAux, ppVtab);
}

static int idxvBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  return docextTvfBestIndex(pInfo, IDXV_COLL, 10);
}

static int idxvOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  IdxvCursor *p = docextMallocZero(sizeof(*p));
  (void)pVtab;
  if( p==0 ) return SQLITE_NOMEM;
  *ppCur = &p->base;
  return SQLITE_OK;
}

static void idxvReset(IdxvCursor *p){
  int i;
  for(i=0; i<p->nRow; i++){
    sqlite3_free(p->aRow[i].zName);
    sqlite3_free(p->aRow[i].zKey);
    sqlite3_free(p->aRow[i].zCollation);
  }
  sqlite3_free(p->aRow);
  p->aRow = 0;
  p->nRow = p->iRow = 0;
}

static int idxvClose(sqlite3_vtab_cursor *pCur){
  idxvReset((IdxvCursor*)pCur);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* Number of entries of index i. */
static int idxEntries(DocColl *p, const DocIndex *pIdx, i64 *pn, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int rc = idxPrepare(p, &pStmt, pzErr, pIdx->iId==0
      ? "SELECT count(*) FROM \"%w\".\"%w_docs\""
      : "SELECT count(*) FROM \"%w\".\"%w_idx\" WHERE ix=?1");
  if( rc!=SQLITE_OK ) return rc;
  if( pIdx->iId ) sqlite3_bind_int64(pStmt, 1, pIdx->iId);
  *pn = sqlite3_step(pStmt)==SQLITE_ROW ? sqlite3_column_int64(pStmt, 0) : 0;
  return idxSqlError(p, sqlite3_finalize(pStmt), pzErr);
}

static int idxvFilter(sqlite3_vtab_cursor *pCur, int idxNum, const char *idxStr,
                      int argc, sqlite3_value **argv){
  IdxvCursor *pC = (IdxvCursor*)pCur;
  DocConn *pConn = (DocConn*)docextTvfAux(pCur->pVtab);
  DocColl *p = 0;
  DocIndexCache *c = 0;
  char *zErr = 0;
  int rc, i;
  (void)idxStr;
  idxvReset(pC);
  if( idxNum==0 || argc<1 ){
    return docextVtabError(pCur->pVtab, SQLITE_ERROR,
                     sqlite3_mprintf("docext: doc_indexes needs a collection name"));
  }
  /* (a sharded collection's indexes are its router's: doc_create_index
  ** makes them there and on every partition) */
  rc = docextCollFindArg(pConn, 0, 0, argv[0], &p, &zErr);
  if( rc==SQLITE_OK ) rc = idxCacheGet(p, 1, &c, &zErr);
  if( rc==SQLITE_OK ){
    pC->aRow = docextMallocZero(sizeof(IdxvRow)*c->nIdx);
    if( pC->aRow==0 ) rc = SQLITE_NOMEM;
  }
  for(i=0; rc==SQLITE_OK && i<c->nIdx; i++){
    const DocIndex *pIdx = &c->aIdx[i];
    IdxvRow *pRow = &pC->aRow[i];
    DocBuf key;
    memset(&key, 0, sizeof(key));
    pC->nRow++;
    pRow->zName = sqlite3_mprintf("%s", pIdx->zName);
    docextJsonWriteDoc(&rc, &key, pIdx->aKeys, DOCEXT_JSON_RELAXED);
    pRow->zKey = docextBufDetachText(&rc, &key);
    if( pIdx->pCollator ){
      docextJsonWriteDoc(&rc, &key, docextCollatorSpec(pIdx->pCollator), DOCEXT_JSON_RELAXED);
      pRow->zCollation = docextBufDetachText(&rc, &key);
    }
    if( pRow->zName==0 && rc==SQLITE_OK ) rc = SQLITE_NOMEM;
    pRow->bUnique = pIdx->bUnique;
    pRow->bSparse = pIdx->bSparse;
    pRow->bMultikey = pIdx->bMultikey;
    pRow->nExpire = pIdx->nExpireAfter;
    if( rc==SQLITE_OK ) rc = idxEntries(p, pIdx, &pRow->nEntries, &zErr);
  }
  if( rc!=SQLITE_OK ) return docextVtabError(pCur->pVtab, rc, zErr);
  return SQLITE_OK;
}

static int idxvNext(sqlite3_vtab_cursor *pCur){
  ((IdxvCursor*)pCur)->iRow++;
  return SQLITE_OK;
}

static int idxvEof(sqlite3_vtab_cursor *pCur){
  IdxvCursor *p = (IdxvCursor*)pCur;
  return p->iRow>=p->nRow;
}

static int idxvColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int iCol){
  IdxvCursor *p = (IdxvCursor*)pCur;
  const IdxvRow *pRow = &p->aRow[p->iRow];
  switch( iCol ){
    case 0: sqlite3_result_text(ctx, pRow->zName, -1, SQLITE_TRANSIENT); break;
    case 1: sqlite3_result_text(ctx, pRow->zKey, -1, SQLITE_TRANSIENT); break;
    case 2: sqlite3_result_int(ctx, pRow->bUnique); break;
    case 3: sqlite3_result_int(ctx, pRow->bSparse); break;
    case 4: sqlite3_result_int(ctx, pRow->bMultikey); break;
    case 5:
      if( pRow->nExpire>=0 ) sqlite3_result_int64(ctx, pRow->nExpire);
      break;
    case 6: sqlite3_result_int64(ctx, pRow->nEntries); break;
    case 7:
      if( pRow->zCollation ) sqlite3_result_text(ctx, pRow->zCollation, -1, SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

static int idxvRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid){
  *pRowid = ((IdxvCursor*)pCur)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module idxvModule = {
  0, 0, idxvConnect, idxvBestIndex, docextTvfDisconnect, 0,
  idxvOpen, idxvClose, idxvFilter, idxvNext, idxvEof, idxvColumn, idxvRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
#if SQLITE_VERSION_NUMBER>=3044000
  0,
#endif
};

/*------------------------------------------------------------------------
** doc_check(coll): 'ok', or one line per inconsistency (at most
** IDX_MAX_PROBLEMS, then a count). It reads the shadow tables itself, all
** in one snapshot: every X_docs row has a body or a page list (not both)
** holding exactly `size` bytes of valid BSON with _id first and idkey its
** key; every page of a list exists with the length the list gives, and
** every X_pages row belongs to exactly one document; every document has
** exactly the entries its keys give in every index (and sets the multikey
** flag if it needs it), every entry belongs to an existing document that
** produces it, no two documents share a key of a unique index, and no
** entry names an undefined index. Keys, bodies and document ids must have
** the storage class every lookup uses (BLOB, BLOB, INTEGER): the same
** bytes as TEXT are never found; and so must what docext writes as BLOBs
** or integers and reads back leniently (sizes, page lists, pages, vals,
** specs; names are TEXT). The definitions are read again from X_idxdef,
** not taken from the cache, and must be ones doc_create_index could have
** made: no second _id_, no two with the same key pattern and partial
** filter. "document N" is the document's id in X_docs (the collection's
** rowid).
*/
typedef struct CheckEntry CheckEntry;
struct CheckEntry {
  int iIdx;                 /* index in the cache's aIdx */
  int iOff, nKey;           /* key bytes in CheckCtx.keys */
  i64 iDoc;
  int iValOff, nVal;        /* expected vals in CheckCtx.keys; nVal -1: the
                            ** entry must have none (NULL), -2: unchecked */
};

typedef struct CheckCtx CheckCtx;
struct CheckCtx {
  DocBuf out;               /* the report */
  int nProblem;
  int rc;                   /* sticky */
  DocBuf keys;              /* expected keys, back to back */
  CheckEntry *aEntry;       /* expected entries */
  int nEntry, nEntryAlloc;
  i64 *aDocid;              /* every document id, ascending */
  int nDocid, nDocidAlloc;
  i64 *aBad;                /* ids of documents that could not be read */
  int nBad, nBadAlloc;
  i64 *aPage;               /* pages referenced, as (pgno, docid) pairs */
  int nPage, nPageAlloc;
};

static void checkProblem(CheckCtx *pC, const char *zFmt, ...){
  va_list ap;
  char *z;
  pC->nProblem++;
  if( pC->nProblem>IDX_MAX_PROBLEMS || pC->rc!=SQLITE_OK ) return;
  va_start(ap, zFmt);
  z = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if( z==0 ){ pC->rc = SQLITE_NOMEM; return; }
  if( pC->out.n ) docextBufAppendByte(&pC->rc, &pC->out, '\n');
  docextBufAppendStr(&pC->rc, &pC->out, z);
  sqlite3_free(z);
}

/* Assemble document iDoc from its page list into pDoc; report problems. */
static void idxCheckPages(CheckCtx *pC, sqlite3_stmt *pRead, i64 iDoc, const u8 *aList,
                       int nList, i64 nSize, DocBuf *pDoc, int *pbOk){
  DocPage *aPage = 0;
  int nPage = 0, i;
  i64 nTotal = 0;
  int rc = docextPageListDecode(aList, nList, &aPage, &nPage, &nTotal);
  if( rc==SQLITE_NOMEM ){
    pC->rc = rc;
    return;
  }
  if( rc!=SQLITE_OK ){
    checkProblem(pC, "document %lld: malformed page list", iDoc);
    *pbOk = 0;
    return;
  }
  for(i=0; i<nPage && pC->rc==SQLITE_OK; i++){
    i64 pgno = aPage[i].pgno;
    pC->aPage = docextArrayGrow(&pC->rc, pC->aPage, pC->nPage*2+1, &pC->nPageAlloc, sizeof(i64));
    if( pC->rc!=SQLITE_OK ) break;
    pC->aPage[pC->nPage*2] = pgno;
    pC->aPage[pC->nPage*2+1] = iDoc;
    pC->nPage++;
    sqlite3_bind_int64(pRead, 1, pgno);
    if( sqlite3_step(pRead)==SQLITE_ROW ){
      int n = sqlite3_column_bytes(pRead, 0);
      if( sqlite3_column_type(pRead, 0)!=SQLITE_BLOB ){
        checkProblem(pC, "document %lld: page %lld is not a BLOB", iDoc, pgno);
      }
      if( n!=aPage[i].n ){
        checkProblem(pC, "document %lld: page %lld holds %d bytes, its page list says %d",
                iDoc, pgno, n, aPage[i].n);
        *pbOk = 0;
      }else{
        docextBufAppend(&pC->rc, pDoc, sqlite3_column_blob(pRead, 0), n);
      }
    }else{
      checkProblem(pC, "document %lld: page %lld is missing", iDoc, pgno);
      *pbOk = 0;
    }
    if( sqlite3_reset(pRead)!=SQLITE_OK && pC->rc==SQLITE_OK ) pC->rc = SQLITE_ERROR;
  }
  sqlite3_free(aPage);
  if( *pbOk && pDoc->n!=nSize ){
    checkProblem(pC, "document %lld: size is %lld but its pages hold %lld bytes",
            iDoc, nSize, pDoc->n);
    *pbOk = 0;
  }
}

static int idxCmpEntry(void *pCtx, const void *pA, const void *pB){
  CheckCtx *pC = (CheckCtx*)pCtx;
  const CheckEntry *x = &pC->aEntry[*(const int*)pA], *y = &pC->aEntry[*(const int*)pB];
  int c;
  if( x->iIdx!=y->iIdx ) return x->iIdx - y->iIdx;
  c = docextKeyCmp(&pC->keys.a[x->iOff], x->nKey, &pC->keys.a[y->iOff], y->nKey);
  if( c ) return c;
  return x->iDoc<y->iDoc ? -1 : x->iDoc>y->iDoc;
}

static int idxCmpPage(void *pCtx, const void *x, const void *y){
  const i64 *aPage = (const i64*)pCtx;
  int a = *(const int*)x, b = *(const int*)y;
  if( aPage[a*2]!=aPage[b*2] ) return aPage[a*2]<aPage[b*2] ? -1 : 1;
  return aPage[a*2+1]<aPage[b*2+1] ? -1 : aPage[a*2+1]>aPage[b*2+1];
}

static int idxInSorted(const i64 *a, int n, i64 iDoc){
  int lo = 0, hi = n-1;
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    if( a[mid]==iDoc ) return 1;
    if( a[mid]<iDoc ) lo = mid+1; else hi = mid-1;
  }
  return 0;
}

/* Document iDoc is reported unreadable: its entries are not judged. */
static void idxCheckBad(CheckCtx *pC, i64 iDoc){
  pC->aBad = docextArrayGrow(&pC->rc, pC->aBad, pC->nBad, &pC->nBadAlloc, sizeof(i64));
  if( pC->rc==SQLITE_OK ) pC->aBad[pC->nBad++] = iDoc;
}

/* The bytes of the document of row pRow into pDoc (its body, or its pages
** read with pRead); 0 when they cannot be had, the problem reported. */
static int idxCheckBytes(CheckCtx *pC, sqlite3_stmt *pRow, sqlite3_stmt *pRead, i64 iDoc,
                         DocBuf *pDoc){
  i64 nSize = sqlite3_column_int64(pRow, 2);
  int bBody = sqlite3_column_type(pRow, 3)!=SQLITE_NULL;
  int bPages = sqlite3_column_type(pRow, 4)!=SQLITE_NULL;
  int bOk = 1;
  docextBufReset(pDoc);
  if( sqlite3_column_type(pRow, 2)!=SQLITE_INTEGER ){
    checkProblem(pC, "document %lld: its size is not an integer", iDoc);
  }
  if( bBody && bPages ){
    checkProblem(pC, "document %lld has both a body and a page list", iDoc);
    bOk = 0;
  }else if( bBody && sqlite3_column_type(pRow, 3)!=SQLITE_BLOB ){
    checkProblem(pC, "document %lld: its body is not a BLOB", iDoc);
    bOk = 0;
  }else if( bPages && sqlite3_column_type(pRow, 4)!=SQLITE_BLOB ){
    checkProblem(pC, "document %lld: its page list is not a BLOB", iDoc);
    bOk = 0;
  }else if( bBody ){
    int n = sqlite3_column_bytes(pRow, 3);
    if( n!=nSize ){
      checkProblem(pC, "document %lld: size is %lld but its body holds %d bytes", iDoc, nSize, n);
      bOk = 0;
    }else{
      docextBufAppend(&pC->rc, pDoc, sqlite3_column_blob(pRow, 3), n);
    }
  }else if( bPages ){
    idxCheckPages(pC, pRead, iDoc, sqlite3_column_blob(pRow, 4), sqlite3_column_bytes(pRow, 4),
               nSize, pDoc, &bOk);
  }else{
    checkProblem(pC, "document %lld has neither a body nor a page list", iDoc);
    bOk = 0;
  }
  return bOk;
}

/* _id comes first in document aDoc, and the row's idkey is its key. */
static void idxCheckId(CheckCtx *pC, sqlite3_stmt *pRow, i64 iDoc, const u8 *aDoc,
                       const DocCollator *pColl){
  DocIter it;
  DocBuf key;
  u8 aSpace[64];
  const void *aIdKey = sqlite3_column_blob(pRow, 1);
  int nIdKey = sqlite3_column_bytes(pRow, 1);
  docextIterInit(&it, aDoc);
  if( !docextIterNext(&it) || strcmp(it.zKey, "_id")!=0 ){
    checkProblem(pC, "document %lld: _id is not its first field", iDoc);
  }else if( sqlite3_column_type(pRow, 1)!=SQLITE_BLOB ){
    checkProblem(pC, "document %lld: its _id index key is not a BLOB", iDoc);
  }else{
    docextBufInit(&key, aSpace, sizeof(aSpace));
    docextKeyAppendColl(&pC->rc, &key, &it.v, 0, pColl);
    if( pC->rc==SQLITE_OK && (key.n!=nIdKey || memcmp(key.a, aIdKey, nIdKey)) ){
      checkProblem(pC, "document %lld: its _id index key does not match its _id", iDoc);
    }
    docextBufFree(&key);
  }
}

/* The entries document aDoc should have in index i, gathered in pC. */
static void idxCheckExpect(CheckCtx *pC, DocIndexCache *c, int i, i64 iDoc, const u8 *aDoc,
                           KeySet *pKs){
  const DocIndex *pIdx = &c->aIdx[i];
  char *zErr = 0;
  int iValOff = 0, nVal = -2, k;
  int rc = idxKeysCompute(pIdx, aDoc, pKs, &zErr);
  if( rc==SQLITE_NOMEM ){ pC->rc = rc; return; }
  if( rc!=SQLITE_OK ){
    checkProblem(pC, "index %s: document %lld cannot be indexed: %s", pIdx->zName, iDoc,
            zErr ? zErr+8 : sqlite3_errstr(rc));
    sqlite3_free(zErr);
    idxCheckBad(pC, iDoc);
    return;
  }
  if( pKs->bMultikey && !pIdx->bMultikey ){
    checkProblem(pC, "index %s is not marked multikey but document %lld puts an array "
            "on its path", pIdx->zName, iDoc);
  }else if( idxMultikeyGrows(pIdx, pKs) ){
    checkProblem(pC, "index %s: document %lld puts an array where its multikeyPaths "
            "have none", pIdx->zName, iDoc);
  }
  /* the vals its entries may hold (unchecked where they are never read) */
  if( docextIndexKeepsVals(pIdx) && pKs->nKey>0 ){
    int bHave = 0;
    rc = idxValsCompute(pIdx, &c->aNewKeys[i], pKs, aDoc, &bHave);
    if( rc!=SQLITE_OK ){ pC->rc = rc; return; }
    nVal = -1;
    if( bHave ){
      iValOff = (int)pC->keys.n;
      nVal = (int)pKs->vals.n;
      docextBufAppend(&pC->rc, &pC->keys, pKs->vals.a, pKs->vals.n);
    }
  }
  for(k=0; k<pKs->nKey && pC->rc==SQLITE_OK; k++){
    int nKey;
    const u8 *aKey = ksKey(pKs, k, &nKey);
    CheckEntry *pE;
    pC->aEntry = docextArrayGrow(&pC->rc, pC->aEntry, pC->nEntry, &pC->nEntryAlloc, sizeof(CheckEntry));
    if( pC->rc!=SQLITE_OK ) return;
    pE = &pC->aEntry[pC->nEntry++];
    pE->iIdx = i;
    pE->iOff = (int)pC->keys.n;
    pE->nKey = nKey;
    pE->iDoc = iDoc;
    pE->iValOff = iValOff;
    pE->nVal = nVal;
    docextBufAppend(&pC->rc, &pC->keys, aKey, nKey);
  }
}

/* One document: its storage, its _id key, and the entries it should have. */
static void idxCheckDocument(CheckCtx *pC, DocIndexCache *c, sqlite3_stmt *pRow,
                          sqlite3_stmt *pRead, DocBuf *pDoc, KeySet *pKs){
  i64 iDoc = sqlite3_column_int64(pRow, 0);
  char *zWhy = 0;
  int i;

  pC->aDocid = docextArrayGrow(&pC->rc, pC->aDocid, pC->nDocid, &pC->nDocidAlloc, sizeof(i64));
  if( pC->rc!=SQLITE_OK ) return;
  pC->aDocid[pC->nDocid++] = iDoc;
  if( !idxCheckBytes(pC, pRow, pRead, iDoc, pDoc) ){
    idxCheckBad(pC, iDoc);
    return;
  }
  if( pC->rc!=SQLITE_OK ) return;
  if( docextBsonCheck(pDoc->a, pDoc->n, &zWhy)!=SQLITE_OK ){
    checkProblem(pC, "document %lld: %s", iDoc, zWhy ? zWhy+8 : "invalid BSON");
    sqlite3_free(zWhy);
    idxCheckBad(pC, iDoc);
    return;
  }
  idxCheckId(pC, pRow, iDoc, pDoc->a, c ? c->aIdx[0].pCollator : 0);
  for(i=1; c && i<c->nIdx && pC->rc==SQLITE_OK; i++){
    idxCheckExpect(pC, c, i, iDoc, pDoc->a, pKs);
  }
}

/* Compare the entries of index i with the expected ones aPerm[*pj..]. */
static void idxCheckEntries(CheckCtx *pC, DocColl *p, const DocIndex *pIdx, int i,
                         const int *aPerm, int *pj, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int j = *pj, bRow;
  const u8 *aPrev = 0;
  int nPrev = 0;
  i64 iPrevDoc = 0;
  DocBuf prev;
  memset(&prev, 0, sizeof(prev));
  pC->rc = idxPrepare(p, &pStmt, pzErr,
      docextStorageHasVals(docextCollStore(p))
      ? "SELECT key, docid, vals FROM \"%w\".\"%w_idx\" WHERE ix=?1 ORDER BY key, docid"
      : "SELECT key, docid, NULL FROM \"%w\".\"%w_idx\" WHERE ix=?1 ORDER BY key, docid");
  if( pC->rc!=SQLITE_OK ) return;
  sqlite3_bind_int64(pStmt, 1, pIdx->iId);
  bRow = sqlite3_step(pStmt)==SQLITE_ROW;
  while( pC->rc==SQLITE_OK && (bRow || (j<pC->nEntry && pC->aEntry[aPerm[j]].iIdx==i)) ){
    const CheckEntry *pE = (j<pC->nEntry && pC->aEntry[aPerm[j]].iIdx==i) ? &pC->aEntry[aPerm[j]] : 0;
    const u8 *aKey = 0;
    int nKey = 0, cmp;
    i64 iDoc = 0;
    if( bRow && (sqlite3_column_type(pStmt, 0)!=SQLITE_BLOB
              || sqlite3_column_type(pStmt, 1)!=SQLITE_INTEGER) ){
      /* SQLite orders these apart from the BLOB keys of every lookup
      ** (they sort first): reported on their own, never matched */
      if( sqlite3_column_type(pStmt, 1)!=SQLITE_INTEGER ){
        checkProblem(pC, "index %s: an entry's document id is not an integer",
                     pIdx->zName);
      }else{
        checkProblem(pC, "index %s: an entry of document %lld has a key that is not a BLOB",
                     pIdx->zName, sqlite3_column_int64(pStmt, 1));
      }
      bRow = sqlite3_step(pStmt)==SQLITE_ROW;
      continue;
    }
    if( bRow ){
      aKey = sqlite3_column_blob(pStmt, 0);
      nKey = sqlite3_column_bytes(pStmt, 0);
      iDoc = sqlite3_column_int64(pStmt, 1);
      if( aKey==0 ) aKey = idxNoBytes;
    }
    if( !bRow ) cmp = -1;
    else if( pE==0 ) cmp = 1;
    else{
      cmp = docextKeyCmp(&pC->keys.a[pE->iOff], pE->nKey, aKey, nKey);
      if( cmp==0 ) cmp = pE->iDoc<iDoc ? -1 : pE->iDoc>iDoc;
    }
    if( cmp<0 ){
      checkProblem(pC, "index %s: document %lld lacks one of its entries", pIdx->zName, pE->iDoc);
      j++;
      continue;
    }
    if( cmp>0 ){
      if( idxInSorted(pC->aBad, pC->nBad, iDoc) ){
        /* already reported: the document could not be read or indexed */
      }else if( idxInSorted(pC->aDocid, pC->nDocid, iDoc) ){
        checkProblem(pC, "index %s: document %lld has an entry it does not produce",
                pIdx->zName, iDoc);
      }else{
        checkProblem(pC, "index %s: an entry points at document %lld, which does not exist",
                pIdx->zName, iDoc);
      }
    }else{
      /* stored vals (NULL is always allowed) must be the document's */
      int eVals = sqlite3_column_type(pStmt, 2);
      if( eVals!=SQLITE_NULL && eVals!=SQLITE_BLOB ){
        checkProblem(pC, "index %s: the entry of document %lld holds values that are "
                "not a BLOB", pIdx->zName, iDoc);
      }else if( pE->nVal>=-1 && eVals!=SQLITE_NULL ){
        int nV = sqlite3_column_bytes(pStmt, 2);
        const u8 *aV = sqlite3_column_blob(pStmt, 2);
        if( pE->nVal<0 || nV!=pE->nVal
         || (nV>0 && memcmp(aV, &pC->keys.a[pE->iValOff], nV)!=0) ){
          checkProblem(pC, "index %s: the entry of document %lld holds values that are "
                  "not the document's", pIdx->zName, iDoc);
        }
      }
      j++;
    }
    if( pIdx->bUnique && aPrev && nPrev==nKey && memcmp(aPrev, aKey, nKey)==0 && iPrevDoc!=iDoc ){
      checkProblem(pC, "index %s: documents %lld and %lld have the same key in this unique index",
              pIdx->zName, iPrevDoc, iDoc);
    }
    docextBufReset(&prev);
    docextBufAppend(&pC->rc, &prev, aKey, nKey);
    aPrev = prev.a ? prev.a : idxNoBytes;
    nPrev = nKey;
    iPrevDoc = iDoc;
    bRow = sqlite3_step(pStmt)==SQLITE_ROW;
  }
  if( sqlite3_finalize(pStmt)!=SQLITE_OK && pC->rc==SQLITE_OK ) pC->rc = idxSqlError(p, SQLITE_ERROR, pzErr);
  docextBufFree(&prev);
  while( j<pC->nEntry && pC->aEntry[aPerm[j]].iIdx==i ) j++;
  *pj = j;
}

/* doc_check, definitions: the storage classes every reader expects, no
** second _id_, no two alike (doc_create_index refuses both). */
static void checkDefinitions(CheckCtx *pCk, DocColl *p, DocIndexCache *c, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int i, j;
  pCk->rc = idxPrepare(p, &pStmt, pzErr, "SELECT id, typeof(name)<>'text' FROM"
                       " \"%w\".\"%w_idxdef\" WHERE typeof(name)<>'text' OR typeof(spec)<>'blob'");
  while( pCk->rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    checkProblem(pCk, "index definition %lld: its %s", sqlite3_column_int64(pStmt, 0),
                 sqlite3_column_int(pStmt, 1) ? "name is not TEXT" : "spec is not a BLOB");
  }
  sqlite3_finalize(pStmt);
  for(i=1; i<c->nIdx; i++){
    if( strcmp(c->aIdx[i].zName, "_id_")==0 ){
      checkProblem(pCk, "index definition %lld has the name of the _id index, _id_",
                   c->aIdx[i].iId);
    }
    for(j=1; j<i; j++){
      if( idxPatternSame(&c->aIdx[j], &c->aIdx[i]) && idxPartialSame(&c->aIdx[j], &c->aIdx[i])
       && docextCollatorSame(c->aIdx[j].pCollator, c->aIdx[i].pCollator) ){
        checkProblem(pCk, "indexes %s and %s have the same key pattern",
                     c->aIdx[j].zName, c->aIdx[i].zName);
      }
    }
  }
}

/* doc_check, documents: each readable, with its pages, and the index
** entries it should have gathered in pCk (c: the definitions, if sound). */
static void checkDocuments(CheckCtx *pCk, DocColl *p, DocIndexCache *c, char **pzErr){
  sqlite3_stmt *pRow = 0, *pRead = 0;
  DocBuf doc;
  KeySet ks;
  memset(&doc, 0, sizeof(doc));
  memset(&ks, 0, sizeof(ks));
  pCk->rc = idxPrepare(p, &pRow, pzErr,
      "SELECT id, idkey, size, body, pages FROM \"%w\".\"%w_docs\" ORDER BY id");
  if( pCk->rc==SQLITE_OK ){
    pCk->rc = idxPrepare(p, &pRead, pzErr, "SELECT data FROM \"%w\".\"%w_pages\" WHERE pgno=?1");
  }
  while( pCk->rc==SQLITE_OK && sqlite3_step(pRow)==SQLITE_ROW ){
    idxCheckDocument(pCk, c, pRow, pRead, &doc, &ks);
  }
  if( pCk->rc==SQLITE_OK ) pCk->rc = idxSqlError(p, sqlite3_reset(pRow), pzErr);
  sqlite3_finalize(pRow);
  sqlite3_finalize(pRead);
  docextBufFree(&doc);
  ksFree(&ks);
}

/* doc_check, pages: each used by exactly one document (the documents'
** page lists were gathered in pCk->aPage; missing pages were reported with
** their documents). */
static void checkPages(CheckCtx *pCk, DocColl *p, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int *aPerm, i, j = 0, bRow;
  pCk->rc = idxPrepare(p, &pStmt, pzErr, "SELECT pgno FROM \"%w\".\"%w_pages\" ORDER BY pgno");
  aPerm = sqlite3_malloc64(sizeof(int)*(pCk->nPage*2+1));
  if( pCk->rc==SQLITE_OK && aPerm==0 ) pCk->rc = SQLITE_NOMEM;
  if( pCk->rc==SQLITE_OK ){
    for(i=0; i<pCk->nPage; i++) aPerm[i] = i;
    docextSort(aPerm, pCk->nPage, sizeof(int), &aPerm[pCk->nPage], idxCmpPage, pCk->aPage);
  }
  bRow = pCk->rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW;
  while( pCk->rc==SQLITE_OK && (bRow || j<pCk->nPage) ){
    i64 iPg = bRow ? sqlite3_column_int64(pStmt, 0) : 0;
    i64 iRef = j<pCk->nPage ? pCk->aPage[aPerm[j]*2] : 0;
    if( bRow && (j>=pCk->nPage || iPg<iRef) ){
      checkProblem(pCk, "page %lld belongs to no document", iPg);
      bRow = sqlite3_step(pStmt)==SQLITE_ROW;
    }else if( !bRow || iRef<iPg ){
      j++;                    /* missing: reported with its document */
    }else{
      int j0 = j++;
      while( j<pCk->nPage && pCk->aPage[aPerm[j]*2]==iPg ){
        checkProblem(pCk, "page %lld is used by documents %lld and %lld", iPg,
                     pCk->aPage[aPerm[j0]*2+1], pCk->aPage[aPerm[j]*2+1]);
        j++;
      }
      bRow = sqlite3_step(pStmt)==SQLITE_ROW;
    }
  }
  sqlite3_free(aPerm);
  sqlite3_finalize(pStmt);
}

/* doc_check, index entries: exactly the expected ones. */
static void checkEntries(CheckCtx *pCk, DocColl *p, DocIndexCache *c, char **pzErr){
  int *aPerm, i, j = 0;
  aPerm = sqlite3_malloc64(sizeof(int)*(pCk->nEntry*2+1));
  if( aPerm==0 ){
    pCk->rc = SQLITE_NOMEM;
    return;
  }
  for(i=0; i<pCk->nEntry; i++) aPerm[i] = i;
  docextSort(aPerm, pCk->nEntry, sizeof(int), &aPerm[pCk->nEntry], idxCmpEntry, pCk);
  for(i=1; pCk->rc==SQLITE_OK && i<c->nIdx; i++){
    idxCheckEntries(pCk, p, &c->aIdx[i], i, aPerm, &j, pzErr);
  }
  sqlite3_free(aPerm);
}

/* doc_check: no entries for an index that is not defined. */
static void checkUndefinedEntries(CheckCtx *pCk, DocColl *p, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_mprintf("SELECT DISTINCT ix FROM \"%w\".\"%w_idx\" WHERE ix NOT IN "
                               "(SELECT id FROM \"%w\".\"%w_idxdef\")",
                               idxSchema(p), idxTable(p), idxSchema(p), idxTable(p));
  pCk->rc = zSql ? sqlite3_prepare_v2(idxDb(p), zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  pCk->rc = idxSqlError(p, pCk->rc, pzErr);
  while( pCk->rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    checkProblem(pCk, "entries for index id %lld, which is not defined",
                 sqlite3_column_int64(pStmt, 0));
  }
  sqlite3_finalize(pStmt);
}

/* Check collection p (see above): *pzReport is 0 when all is well, else
** the problems, a line each. An error (rc) only when the check itself
** could not run: damage is reported, not an error. Used by doc_check and
** by PRAGMA integrity_check (xIntegrity, SQLite 3.44 and later). */
int docextCollCheck(DocColl *p, char **pzReport, char **pzErr){
  DocIndexCache *c = 0;
  CheckCtx ck;
  int rc, bSave;

  *pzReport = 0;
  memset(&ck, 0, sizeof(ck));
  bSave = idxCmdBegin(p);         /* one snapshot for every read */
  /* the definitions too are read again: a damaged one must show even
  ** when nothing told the cache that X_idxdef changed */
  if( *docextCollIndexCache(p) ) (*docextCollIndexCache(p))->bLoaded = 0;
  rc = idxCacheGet(p, 1, &c, pzErr);
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){
    checkProblem(&ck, "index definitions: %s", *pzErr ? *pzErr+8 : sqlite3_errstr(rc));
    sqlite3_free(*pzErr);
    *pzErr = 0;
    c = 0;
    rc = SQLITE_OK;
  }
  if( rc==SQLITE_OK ){
    if( c ) checkDefinitions(&ck, p, c, pzErr);
    if( ck.rc==SQLITE_OK ) checkDocuments(&ck, p, c, pzErr);
    if( ck.rc==SQLITE_OK ) checkPages(&ck, p, pzErr);
    if( ck.rc==SQLITE_OK && c ) checkEntries(&ck, p, c, pzErr);
    if( ck.rc==SQLITE_OK ) checkUndefinedEntries(&ck, p, pzErr);
    rc = ck.rc;
  }
  rc = idxCmdEnd(p, bSave, rc);
  if( rc==SQLITE_OK && ck.nProblem>0 ){
    if( ck.nProblem>IDX_MAX_PROBLEMS ){
      docextBufAppendf(&ck.rc, &ck.out, "\n... and %d more", ck.nProblem-IDX_MAX_PROBLEMS);
    }
    *pzReport = docextBufDetachText(&ck.rc, &ck.out);
    rc = ck.rc;
  }
  docextBufFree(&ck.out);
  docextBufFree(&ck.keys);
  sqlite3_free(ck.aEntry);
  sqlite3_free(ck.aDocid);
  sqlite3_free(ck.aBad);
  sqlite3_free(ck.aPage);
  return rc;
}

/* docextCollCheck over a sharded collection's storages: its own and each
** partition's, each problem line led by the shard's name. */
static int checkSharded(DocRouter *pR, char **pzReport, char **pzErr){
  DocPartition *aPart = 0;
  DocBuf out;
  int nPart = 0, k;
  int rc = docextRouterPartitions(pR, &aPart, &nPart, pzErr);
  memset(&out, 0, sizeof(out));
  for(k=0; rc==SQLITE_OK && k<nPart; k++){
    char *zReport = 0;
    const char *z;
    rc = docextCollCheck(aPart[k].pColl, &zReport, pzErr);
    for(z=zReport; rc==SQLITE_OK && z && *z; ){
      const char *zEnd = strchr(z, '\n');
      int n = zEnd ? (int)(zEnd - z) : (int)strlen(z);
      docextBufAppendf(&rc, &out, "%sshard %s: %.*s", out.n ? "\n" : "", aPart[k].zShard, n, z);
      z += n + (zEnd!=0);
    }
    sqlite3_free(zReport);
  }
  sqlite3_free(aPart);
  *pzReport = out.n ? docextBufDetachText(&rc, &out) : 0;
  docextBufFree(&out);
  return rc;
}

/* doc_check(coll): 'ok', or a line per problem found. */
static void checkFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocColl *p = 0;
  DocRouter *pR = 0;
  char *zErr = 0, *zReport = 0;
  int rc;
  (void)argc;

  rc = idxCollArg(pConn, ctx, argv[0], &p, &pR, &zErr);
  if( rc==SQLITE_OK ){
    rc = pR ? checkSharded(pR, &zReport, &zErr) : docextCollCheck(p, &zReport, &zErr);
  }
  docextRouterFree(pR);
  if( rc!=SQLITE_OK ){
    idxResultError(ctx, rc, zErr);
  }else if( zReport==0 ){
    sqlite3_result_text(ctx, "ok", 2, SQLITE_STATIC);
  }else{
    sqlite3_result_text(ctx, zReport, -1, sqlite3_free);
  }
}

/*------------------------------------------------------------------------
** doc_stats(coll)
**
** Sizes come from the dbstat virtual table when SQLite has it (pages
** really used, pgsize summed per B-tree): storageSize is X_docs plus
** X_pages, _id_ is X_docs's index on idkey. Every secondary index shares
** the one X_idx B-tree, whose size is split among them in proportion to
** their entries' bytes. Without dbstat the sizes are estimates from the
** bytes stored (payload plus a small per-row overhead), not pages.
*/

/* Bytes of B-tree zName in schema zDb (dbstat); *pn = -1 when SQLite was
** built without dbstat. zName NULL is out of memory. */
static int idxBtreeSize(sqlite3 *db, const char *zDb, const char *zName, i64 *pn){
  sqlite3_stmt *pStmt = 0;
  int rc;
  *pn = -1;
  if( zName==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, "SELECT sum(pgsize) FROM dbstat(?1) WHERE name=?2",
                          -1, &pStmt, 0);
  if( rc==SQLITE_ERROR ) return SQLITE_OK;          /* no dbstat */
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_bind_text(pStmt, 1, zDb, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, zName, -1, SQLITE_STATIC);
  if( sqlite3_step(pStmt)==SQLITE_ROW ) *pn = sqlite3_column_int64(pStmt, 0);
  rc = sqlite3_finalize(pStmt);
  return rc;
}

/* Bytes of the collection's B-tree named zFmt with the table's name for
** its %s (see idxBtreeSize). */
static int statsBtreeOf(DocColl *p, const char *zFmt, i64 *pn){
  char *zName = sqlite3_mprintf(zFmt, idxTable(p));
  int rc = idxBtreeSize(idxDb(p), idxSchema(p), zName, pn);
  sqlite3_free(zName);
  return rc;
}

/* What doc_stats reports, gathered. */
typedef struct StatsSizes StatsSizes;
struct StatsSizes {
  i64 nCount, nSize;        /* documents, and their BSON bytes */
  i64 nStorage;             /* X_docs and X_pages */
  i64 nIdSize;              /* the _id index */
  i64 nIdxTree;             /* X_idx, which the other indexes share */
  i64 *aBytes;              /* per index: bytes of its entries, estimated */
  i64 nBytesAll;            /* the same, summed over the indexes after _id_ */
};

/* Documents, and the bytes of documents and index entries, from the shadow
** tables. */
static int statsBytes(DocColl *p, DocIndexCache *c, StatsSizes *pS, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int rc, i;
  rc = idxPrepare(p, &pStmt, pzErr, "SELECT count(*), total(size), "
                  "total(length(idkey)+9) FROM \"%w\".\"%w_docs\"");
  if( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    pS->nCount = sqlite3_column_int64(pStmt, 0);
    pS->nSize = sqlite3_column_int64(pStmt, 1);
    pS->aBytes[0] = sqlite3_column_int64(pStmt, 2);
  }
  if( pStmt ) rc = idxSqlError(p, sqlite3_finalize(pStmt), pzErr);
  pStmt = 0;
  if( rc==SQLITE_OK ){
    rc = idxPrepare(p, &pStmt, pzErr, "SELECT ix, total(length(key)+12) "
                    "FROM \"%w\".\"%w_idx\" GROUP BY ix");
  }
  while( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    i64 ix = sqlite3_column_int64(pStmt, 0);
    for(i=1; i<c->nIdx; i++){
      if( c->aIdx[i].iId==ix ){
        pS->aBytes[i] = sqlite3_column_int64(pStmt, 1);
        pS->nBytesAll += pS->aBytes[i];
      }
    }
  }
  if( pStmt ) rc = idxSqlError(p, sqlite3_finalize(pStmt), pzErr);
  return rc;
}

/* The sizes of the B-trees, in pages, from dbstat; without dbstat,
** estimates from the bytes statsBytes found. */
static int statsBtrees(DocColl *p, StatsSizes *pS){
  i64 nDocs = -1, nPages = 0;
  int rc = statsBtreeOf(p, "%s_docs", &nDocs);
  if( rc!=SQLITE_OK ) return rc;
  if( nDocs<0 ){
    pS->nStorage = pS->nSize + pS->nCount*16;
    pS->nIdSize = pS->aBytes[0];
    pS->nIdxTree = pS->nBytesAll;
    return SQLITE_OK;
  }
  rc = statsBtreeOf(p, "%s_pages", &nPages);
  pS->nStorage = nDocs + (nPages>0 ? nPages : 0);
  /* X_docs's only index is the UNIQUE one on idkey. */
  if( rc==SQLITE_OK ) rc = statsBtreeOf(p, "sqlite_autoindex_%s_docs_1", &pS->nIdSize);
  if( rc==SQLITE_OK ) rc = statsBtreeOf(p, "%s_idx", &pS->nIdxTree);
  if( pS->nIdSize<0 ) pS->nIdSize = 0;
  if( pS->nIdxTree<0 ) pS->nIdxTree = 0;
  return rc;
}

/* Each index's size in pS->aBytes, in place of its entries' bytes: _id_'s
** B-tree, and X_idx shared among the others in proportion to their
** entries' bytes (rounded cumulatively, so that the shares add up). */
static void statsShare(const DocIndexCache *c, StatsSizes *pS){
  i64 nCum = 0, nPrev = 0;
  int i;
  pS->aBytes[0] = pS->nIdSize;
  for(i=1; i<c->nIdx; i++){
    i64 nEnd;
    nCum += pS->aBytes[i];
    nEnd = pS->nBytesAll>0 ? (i64)((double)pS->nIdxTree*nCum/pS->nBytesAll + 0.5) : 0;
    pS->aBytes[i] = nEnd - nPrev;
    nPrev = nEnd;
  }
}

/* *pc the indexes of p, and pS zeroed, with an aBytes (the caller frees
** it) of one slot per index. */
static int statsStart(DocColl *p, DocIndexCache **pc, StatsSizes *pS, char **pzErr){
  int rc = idxCacheGet(p, 1, pc, pzErr);
  memset(pS, 0, sizeof(*pS));
  if( rc==SQLITE_OK ){
    pS->aBytes = docextMallocZero(sizeof(i64)*(*pc)->nIdx);
    if( pS->aBytes==0 ) rc = SQLITE_NOMEM;
  }
  return rc;
}

/* Gather doc_stats's figures of p: *pc its indexes, pS (whose aBytes the
** caller frees) the sizes, each index's in aBytes. */
static int statsGather(DocColl *p, DocIndexCache **pc, StatsSizes *pS, char **pzErr){
  int rc = statsStart(p, pc, pS, pzErr);
  if( rc==SQLITE_OK ) rc = statsBytes(p, *pc, pS, pzErr);
  if( rc==SQLITE_OK ) rc = statsBtrees(p, pS);
  if( rc==SQLITE_OK ) statsShare(*pc, pS);
  return rc;
}

/* doc_stats's JSON, of indexes c with sizes pS; zTail (members with their
** commas, or NULL) goes last inside it. */
static void statsJson(int *pRc, DocBuf *pOut, const DocIndexCache *c, const StatsSizes *pS,
                      const char *zHead, const char *zTail){
  i64 nTotalIdx = 0;
  int i;
  docextBufAppendf(pRc, pOut, "{%s\"count\":%lld,\"size\":%lld,\"avgObjSize\":%lld,"
                   "\"storageSize\":%lld,\"nindexes\":%d,\"indexSizes\":{", zHead ? zHead : "",
                   pS->nCount, pS->nSize, pS->nCount ? pS->nSize/pS->nCount : 0,
                   pS->nStorage, c->nIdx);
  for(i=0; i<c->nIdx; i++){
    if( i ) docextBufAppendByte(pRc, pOut, ',');
    docextJsonWriteString(pRc, pOut, c->aIdx[i].zName, (int)strlen(c->aIdx[i].zName));
    docextBufAppendf(pRc, pOut, ":%lld", pS->aBytes[i]);
    nTotalIdx += pS->aBytes[i];
  }
  docextBufAppendf(pRc, pOut, "},\"totalIndexSize\":%lld%s}", nTotalIdx, zTail ? zTail : "");
}

/* doc_stats on a sharded collection, as MongoDB's collStats through mongos:
** the sums (of the indexes the router lists: each partition's index of the
** same name), "sharded", "nchunks", and each shard's own under "shards". */
static int statsSharded(DocRouter *pR, DocIndexCache *cHome, StatsSizes *pSum, DocBuf *pOut,
                        char **pzErr){
  DocPartition *aPart = 0;
  DocBuf shards;
  int nPart = 0, k, i, j, n = 0;
  int rc = docextRouterPartitions(pR, &aPart, &nPart, pzErr);
  memset(&shards, 0, sizeof(shards));
  docextBufAppendStr(&rc, &shards, ",\"shards\":{");
  for(k=0; rc==SQLITE_OK && k<nPart; k++){
    DocIndexCache *c = 0;
    StatsSizes st;
    rc = statsGather(aPart[k].pColl, &c, &st, pzErr);
    if( rc==SQLITE_OK && (aPart[k].bShard || st.nCount>0) ){
      pSum->nCount += st.nCount;
      pSum->nSize += st.nSize;
      pSum->nStorage += st.nStorage;
      for(i=0; i<cHome->nIdx; i++){
        for(j=0; j<c->nIdx && strcmp(c->aIdx[j].zName, cHome->aIdx[i].zName)!=0; j++){}
        if( j<c->nIdx ) pSum->aBytes[i] += st.aBytes[j];
      }
      if( n++ ) docextBufAppendByte(&rc, &shards, ',');
      docextJsonWriteString(&rc, &shards, aPart[k].zShard, (int)strlen(aPart[k].zShard));
      docextBufAppendByte(&rc, &shards, ':');
      statsJson(&rc, &shards, c, &st, 0, 0);
    }
    sqlite3_free(st.aBytes);
  }
  docextBufAppendStr(&rc, &shards, "}");
  docextBufAppendByte(&rc, &shards, 0);
  if( rc==SQLITE_OK ){
    char zHead[64];
    sqlite3_snprintf(sizeof(zHead), zHead, "\"sharded\":true,\"nchunks\":%d,",
                     docextRouterChunkCount(pR));
    statsJson(&rc, pOut, cHome, pSum, zHead, (const char*)shards.a);
  }
  docextBufFree(&shards);
  sqlite3_free(aPart);
  return rc;
}

static void statsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocColl *p = 0;
  DocRouter *pR = 0;
  DocIndexCache *c = 0;
  StatsSizes sizes;
  DocBuf out;
  char *zErr = 0;
  int rc, bSave;
  (void)argc;

  memset(&out, 0, sizeof(out));
  memset(&sizes, 0, sizeof(sizes));
  rc = idxCollArg(pConn, ctx, argv[0], &p, &pR, &zErr);
  if( rc!=SQLITE_OK ){
    idxResultError(ctx, rc, zErr);
    return;
  }
  bSave = idxCmdBegin(p);           /* (one snapshot) */
  if( pR ){
    rc = statsStart(p, &c, &sizes, &zErr);     /* (the sums start at 0) */
    if( rc==SQLITE_OK ) rc = statsSharded(pR, c, &sizes, &out, &zErr);
  }else{
    rc = statsGather(p, &c, &sizes, &zErr);
    if( rc==SQLITE_OK ) statsJson(&rc, &out, c, &sizes, 0, 0);
  }
  rc = idxCmdEnd(p, bSave, rc);
  if( rc==SQLITE_OK ){
    docextBufResultText(ctx, &out);
    sqlite3_free(zErr);
  }else{
    idxResultError(ctx, rc, zErr);
  }
  docextRouterFree(pR);
  sqlite3_free(sizes.aBytes);
  docextBufFree(&out);
}

/*------------------------------------------------------------------------
** Registration
**
** Every function here is SQLITE_DIRECTONLY, none deterministic. Creating
** and dropping indexes and sweeping write to the database; doc_ttl_sweep
** also reads the clock. doc_indexes, doc_check and doc_stats only read,
** but they read any collection (in any attached schema) whose name they
** are given: SQLite's documentation asks for SQLITE_DIRECTONLY on
** functions "that could potentially leak sensitive information", so that
** a view or trigger planted in an untrusted database file cannot run them
** behind the application's back. (They are not innocuous, nor
** deterministic: their result changes with the data.)
*/
int docextRegisterIndexFunctions(sqlite3 *db, DocConn *pConn){
  enum { F = SQLITE_UTF8|SQLITE_DIRECTONLY };
  static const DocFuncDef aFunc[] = {
    { "doc_create_index", 2, F, createIndexFunc },
    { "doc_create_index", 3, F, createIndexFunc },
    { "doc_drop_index",   2, F, dropIndexFunc },
    { "doc_check",        1, F, checkFunc },
    { "doc_stats",        1, F, statsFunc },
    { "doc_ttl_sweep",    0, F, ttlSweepFunc },
    { "doc_ttl_sweep",    1, F, ttlSweepFunc },
  };
  int rc = docextCreateFunctions(db, pConn, aFunc, DOCEXT_COUNT(aFunc));
  if( rc==SQLITE_OK ) rc = sqlite3_create_module(db, "doc_indexes", &idxvModule, pConn);
  return rc;
}
