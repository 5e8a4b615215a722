/*
** docext_plan.c — the query planner: which index a find() reads, over
** which key ranges; and doc_explain, doc_count.
**
** CONDITIONS. The filters' top-level conjunction (top-level fields and the
** documents of $and arrays, recursively) is flattened into conditions
** (PlanCond): one per operator of {path: {$op: x, ...}}, or one equality
** for {path: value}. A top-level $or becomes one condition too, which a
** union plan expands.
**
** VALUE INTERVALS, per index field, from the conditions on its path:
**   equality, $eq        a point; null: points null and undefined; an array
**                        operand: no bounds
**   $in                  a point per value (no bounds if one is an array or
**                        a regex)
**   $gt $gte $lt $lte    a range within the operand's type class, as the
**                        matcher compares only within a class ({$gt: 5}:
**                        numbers above 5, not NaN); MinKey/MaxKey or array
**                        operands: no bounds; null: points or nothing; NaN:
**                        the NaN point or nothing
**   regex                the strings with its literal prefix (/^abc/, no i,
**                        m or x flag, no |) or all strings, plus the point
**                        of the regex value itself (a stored identical
**                        regex matches too)
**   $all                 its first value, as an equality
**   $elemMatch           value form ({a: {$elemMatch: {$gt: 1, $lt: 5}}}):
**                        its operators on path a, always intersected (one
**                        element satisfies them all); object form: bounds
**                        for the index paths a.x from its inner conditions
**   anything else        no bounds ($ne, $nin, $not, $exists, $type, ...)
** Several conditions on one path intersect, unless some document had an
** array on the path (the index's multikey paths, docext_index.c): then one
** of them is used (MongoDB's rule: {a: {$gt: 5, $lt: 3}} matches a: [1, 7]).
** Inside an object-form $elemMatch on P, only arrays below P count.
**
** KEY RANGES. An interval becomes half-open key bytes [lo, hi) with the
** prefix trick (see the header): a lower bound "≥ v" is key(v), "> v"
** succ(key(v)); an upper "≤ v" is succ(key(v)), "< v" key(v); the start of
** a type class is its one-byte prefix, its end succ of that prefix. A
** descending field swaps the ends and inverts the bytes (inverting keeps
** prefixes and reverses their order), so ">" becomes "<" there.
** A compound index: leading fields with only points multiply into key
** prefixes (at most PLAN_MAX_PREFIX); the first field with a range, or
** with no bounds, ends the bounds: ranges prefix+lo .. prefix+hi; later
** fields are unbounded. A later field is bounded only when no earlier one
** shares with it a path prefix where some document had an array (two paths
** under one array may take their values from different elements), or when
** one object-form $elemMatch on path P gives the bounds of it and of those
** earlier fields, all of the form P.x (one element holds them all:
** MongoDB's compound multikey bounds); a hashed field takes equality points
** only (hashed as docext_index.c does).
**
** A field with more than PLAN_MAX_RANGES ranges (prefixes times
** intervals) is left unbounded; a path with a numeric component ("a.0")
** gets no bounds, as index keys read it as an array position only while
** the matcher also reads it as a field name.
**
** CHOICE. Candidates are the indexes with a bounded leading field (a sparse
** one only when the bounds of one of its fields exclude null, or $exists:
** true is asked of one whose path has no numeric component: it lacks
** documents without its fields; a partial
** one only when the filter implies its expression), and, under a limit, an
** index that yields the sort's order. Each is costed by
** the entries in its ranges (a bounded count per range, LIMIT
** PLAN_PROBE_MAX); the cheapest wins, ties go to the one giving the sort.
** A hint forces its index (all of it when unbounded). A top-level $or,
** when every branch has a candidate, may become a union of one scan per
** branch. No candidate: a collection scan.
**
** The executor (docext_query.c) re-applies the whole filter to every
** document it fetches, so bounds only ever need to include every match:
** an index never changes a query's answer (but a hinted sparse or partial
** index gives what it holds, as in MongoDB). A plan is exact when every
** condition became bounds exactly (no null, NaN, regex, $elemMatch, $all;
** on a field where some document has an array, only points) on a
** non-hashed index: every document it meets matches. A multikey index may
** meet a document once per entry, unless each field with arrays is bound
** to a single point (its entries are unique per document and key): the
** executor then drops the repeats (bDedup). A count over an exact plan
** that meets each document once is the number of its entries; a find over
** an exact plan whose projection names only the index's fields where no
** array was met is answered from the entries' vals without reading a
** document (a covered query, docext_query.c).
**
** SORTS. An index yields the sort's order when the sort's fields follow
** its fields, skipping leading fields bound to a single value, all in the
** index's directions (read forward) or all reversed (read backward), the
** index is neither sparse nor partial, and no sort field's path has a
** numeric component or ever met an array (an array sorts by its least or
** greatest element, which the index may meet after others; the skipped
** single values may: a document has one entry per value).
** A multikey index yields a document once per entry: the executor keeps
** the first (bDedup), which keeps the order.
*/
#include "docextInt.h"
#include <math.h>
#include <stdlib.h>
#include <time.h>

#define PLAN_MAX_PREFIX  256    /* key prefixes from point fields */
#define PLAN_MAX_RANGES  8192   /* ranges: beyond, the last field is unbounded */
#define PLAN_PROBE_MAX   1000   /* entries a cost probe counts per range */
#define PLAN_PROBE_RANGES 64    /* ranges probed; the rest extrapolated */

/* Key class bytes (docext_cmp.c). */
#define KC_UNDEFINED 0x0F
#define KC_NULL      0x14
#define KC_NUMBER    0x1E
#define KC_STRING    0x3C
#define KC_FALSE     0x6E
#define KC_TRUE      0x6F

/* Condition kinds. */
#define PC_EQ        1
#define PC_GT        2
#define PC_GTE       3
#define PC_LT        4
#define PC_LTE       5
#define PC_IN        6
#define PC_REGEX     7      /* zPat/nPat, zFlags */
#define PC_ALL       8
#define PC_ELEMOBJ   9      /* v: the inner filter */
#define PC_ELEMVAL   10     /* v: the operator document */
#define PC_EXISTS    11     /* $exists: true */
#define PC_OR        12     /* a top-level $or: v is its array */
#define PC_OTHER     13     /* no bounds */
#define PC_GEO       14     /* a geospatial operator: eGeo says which; v its
                            ** argument (for $near, the operator document) */
#define PC_TEXT      15     /* $text: v its operand */

typedef struct PlanCond PlanCond;
struct PlanCond {
  const char *zPath;        /* dotted path (in the filter) */
  int nPath;
  int eOp;                  /* PC_* */
  DocValue v;               /* operand */
  const char *zPat;         /* PC_REGEX: pattern (not NUL-terminated) */
  int nPat;
  const char *zFlags;       /* PC_REGEX: options, NUL-terminated */
  int eGeo;                 /* PC_GEO: DOCEXT_GEO_* */
};

typedef struct PlanConds PlanConds;
struct PlanConds {
  PlanCond *a;
  int n, nAlloc;
};

/* A key interval of one field: [lo, hi) over bytes in the build arena. */
typedef struct PlanIv PlanIv;
struct PlanIv {
  int iLo, nLo;
  int iHi, nHi;
  int bPoint;               /* exactly the keys equal to lo (a whole key) */
  int iDLo, iDHi;           /* display values of the ends, in key order */
};

/* A set of intervals, sorted by lo, disjoint. */
typedef struct IvSet IvSet;
struct IvSet {
  int bFull;                /* no bounds */
  int bExact;               /* answers its condition(s) exactly */
  int n, nAlloc;
  PlanIv *a;
};

/* A heap block of scratch memory (see planAlloc). */
typedef struct PlanChunk PlanChunk;
struct PlanChunk {
  PlanChunk *pNext;
  i64 nPad;                 /* (what follows is 8-byte aligned, as the
                            ** allocation is) */
};

/* Build state. */
typedef struct PlanCtx PlanCtx;
struct PlanCtx {
  int rc;
  char *zErr;
  DocBuf a;                 /* interval bytes */
  DocBuf disp;              /* display values: type, int32 size, bytes */
  int bBounds;              /* describe bounds (zBounds) for explain */
  u8 *aScratch;             /* free scratch memory: nScratch bytes */
  i64 nScratch;
  PlanChunk *pChunk;        /* heap blocks of scratch memory */
  const DocCollator *pQueryColl;  /* the query's collation (NULL: simple) */
  const DocCollator *pKeyColl;    /* the collation of the index whose
                            ** bounds are being built: of its keys */
  int bCollMismatch;        /* the two differ: conditions on strings give
                            ** that index no bounds (and it no order) */
};

/*------------------------------------------------------------------------
** Scratch memory. Every temporary of one planning (conditions, interval
** sets, tries and their arrays) lives until the plan is built, so it is
** carved from a block on the stack, then from heap blocks, and given back
** all at once (planScratchEnd): a point lookup's planning otherwise spends
** much of its time in the allocator. Under AddressSanitizer each piece is
** a heap block of its own, so overruns are still caught.
*/

#define PLAN_CHUNK_MIN 8192

static void planScratchInit(PlanCtx *pCtx, u8 *aSpace, int nSpace){
  pCtx->aScratch = aSpace;
  pCtx->nScratch = nSpace;
  pCtx->pChunk = 0;
}

static void planScratchEnd(PlanCtx *pCtx){
  while( pCtx->pChunk ){
    PlanChunk *pNext = pCtx->pChunk->pNext;
    sqlite3_free(pCtx->pChunk);
    pCtx->pChunk = pNext;
  }
  pCtx->aScratch = 0;
  pCtx->nScratch = 0;
}

#if defined(__SANITIZE_ADDRESS__)
# define PLAN_SCRATCH_SEPARATE 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define PLAN_SCRATCH_SEPARATE 1
# endif
#endif

/* n bytes of scratch memory, 8-byte aligned (every block starts so and
** every size is rounded up to a multiple of 16); 0 (and pCtx->rc set) when
** out of memory. */
static void *planAlloc(PlanCtx *pCtx, i64 n){
  void *pRet;
  if( pCtx->rc ) return 0;
  n = (n + 15) & ~(i64)15;
#ifdef PLAN_SCRATCH_SEPARATE
  pCtx->nScratch = 0;
#endif
  if( n>pCtx->nScratch ){
    i64 nChunk = n;
    PlanChunk *pChunk;
#ifndef PLAN_SCRATCH_SEPARATE
    if( nChunk<PLAN_CHUNK_MIN ) nChunk = PLAN_CHUNK_MIN;
#endif
    pChunk = sqlite3_malloc64(sizeof(PlanChunk) + nChunk);
    if( pChunk==0 ){ pCtx->rc = SQLITE_NOMEM; return 0; }
    pChunk->pNext = pCtx->pChunk;
    pCtx->pChunk = pChunk;
    pCtx->aScratch = (u8*)&pChunk[1];
    pCtx->nScratch = nChunk;
  }
  pRet = pCtx->aScratch;
  pCtx->aScratch += n;
  pCtx->nScratch -= n;
  return pRet;
}

/* planAlloc for nNew bytes holding the first nOld bytes of pOld. */
static void *planGrow(PlanCtx *pCtx, const void *pOld, i64 nOld, i64 nNew){
  void *pNew = planAlloc(pCtx, nNew);
  if( pNew && nOld>0 ) memcpy(pNew, pOld, (size_t)nOld);
  return pNew;
}

/*------------------------------------------------------------------------
** Flattening filters into conditions
*/


static void condAdd(PlanCtx *pCtx, PlanConds *p, const char *zPath, int nPath,
                    int eOp, const DocValue *v){
  PlanCond *c;
  if( pCtx->rc ) return;
  if( p->n==p->nAlloc ){
    int nNew = p->nAlloc ? p->nAlloc*2 : 8;
    PlanCond *aNew = planGrow(pCtx, p->a, p->n*sizeof(PlanCond), nNew*sizeof(PlanCond));
    if( aNew==0 ) return;
    p->a = aNew;
    p->nAlloc = nNew;
  }
  c = &p->a[p->n++];
  memset(c, 0, sizeof(*c));
  c->zPath = zPath;
  c->nPath = nPath;
  c->eOp = eOp;
  if( v ) c->v = *v;
}

static void condAddGeo(PlanCtx *pCtx, PlanConds *p, const char *zPath, int nPath,
                       int eGeo, const DocValue *v){
  condAdd(pCtx, p, zPath, nPath, PC_GEO, v);
  if( pCtx->rc==SQLITE_OK ) p->a[p->n-1].eGeo = eGeo;
}

static void condAddRegex(PlanCtx *pCtx, PlanConds *p, const char *zPath, int nPath,
                         const char *zPat, int nPat, const char *zFlags){
  condAdd(pCtx, p, zPath, nPath, PC_REGEX, 0);
  if( pCtx->rc==SQLITE_OK ){
    PlanCond *c = &p->a[p->n-1];
    c->zPat = zPat;
    c->nPat = nPat;
    c->zFlags = zFlags;
  }
}

/* The operators of {path: {$op: x, ...}}. */
static void flattenOps(PlanCtx *pCtx, PlanConds *p, const char *zPath, int nPath,
                       const DocValue *pOps){
  DocIter it;
  DocValue vRegex, vOpts;
  int bRegex = 0, bOpts = 0;
  docextIterInitValue(&it, pOps);
  while( docextIterNext(&it) ){
    if( docextIterKeyIs(&it, "$regex") ){ vRegex = it.v; bRegex = 1; }
    if( docextIterKeyIs(&it, "$options") ){ vOpts = it.v; bOpts = 1; }
  }
  if( bRegex ){
    const char *zPat = 0, *zFlags = "";
    int nPat = 0;
    if( vRegex.type==DOC_STRING ){
      zPat = docextValueStr(&vRegex, &nPat);
    }else if( vRegex.type==DOC_REGEX ){
      zPat = (const char*)vRegex.p;
      nPat = (int)strlen(zPat);
      zFlags = zPat + nPat + 1;
    }
    if( bOpts && vOpts.type==DOC_STRING ) zFlags = (const char*)vOpts.p + 4;
    if( zPat ){
      condAddRegex(pCtx, p, zPath, nPath, zPat, nPat, zFlags);
    }else{
      condAdd(pCtx, p, zPath, nPath, PC_OTHER, 0);
    }
  }
  docextIterInitValue(&it, pOps);
  while( docextIterNext(&it) ){
    int eOp = PC_OTHER;
    if( docextIterKeyIs(&it, "$regex") || docextIterKeyIs(&it, "$options") ) continue;
    if( docextIterKeyIs(&it, "$eq") ) eOp = PC_EQ;
    else if( docextIterKeyIs(&it, "$gt") ) eOp = PC_GT;
    else if( docextIterKeyIs(&it, "$gte") ) eOp = PC_GTE;
    else if( docextIterKeyIs(&it, "$lt") ) eOp = PC_LT;
    else if( docextIterKeyIs(&it, "$lte") ) eOp = PC_LTE;
    else if( docextIterKeyIs(&it, "$in") ) eOp = PC_IN;
    else if( docextIterKeyIs(&it, "$all") ) eOp = PC_ALL;
    else if( docextIterKeyIs(&it, "$geoWithin") || docextIterKeyIs(&it, "$within") ){
      condAddGeo(pCtx, p, zPath, nPath, DOCEXT_GEO_WITHIN, &it.v);
      continue;
    }else if( docextIterKeyIs(&it, "$geoIntersects") ){
      condAddGeo(pCtx, p, zPath, nPath, DOCEXT_GEO_INTERSECTS, &it.v);
      continue;
    }else if( docextIterKeyIs(&it, "$near") || docextIterKeyIs(&it, "$nearSphere") ){
      condAddGeo(pCtx, p, zPath, nPath, DOCEXT_GEO_NEAR, pOps);
      continue;
    }
    else if( docextIterKeyIs(&it, "$exists") ){
      eOp = docextValueTruth(&it.v) ? PC_EXISTS : PC_OTHER;
    }else if( docextIterKeyIs(&it, "$elemMatch") ){
      if( it.v.type==DOC_DOCUMENT ){
        eOp = PC_ELEMOBJ;
        if( docextIsOperatorDoc(&it.v) ){
          DocIter it2;
          docextIterInitValue(&it2, &it.v);
          docextIterNext(&it2);
          if( !docextIsFilterOp(&it2) ) eOp = PC_ELEMVAL;
        }
      }
    }
    condAdd(pCtx, p, zPath, nPath, eOp, &it.v);
  }
}

/* Is v a constant whose query equality selects the same values as
** aggregation's $eq does (the scalars, compared by value in both)? */
static int exprEqConstant(const DocValue *v){
  switch( v->type ){
    case DOC_STRING:
      return !(v->n>5 && v->p[4]=='$');           /* (else a field path) */
    case DOC_DOUBLE: case DOC_INT32: case DOC_INT64: case DOC_DECIMAL128:
    case DOC_DATE: case DOC_OID: case DOC_BOOL: case DOC_TIMESTAMP:
      return 1;
  }
  return 0;
}

/* The $eq of a field path and a constant in $expr's expression v (alone,
** or in an $and at its top), added as query equalities, for bounds only.
** Every document such an $eq matches has that value at that path with no
** array on the way (a path over an array gives an array), so the index
** entries of the equality hold all of them; MongoDB 5.0 lets indexes serve
** $expr's $eq the same way. The caller's PC_OTHER keeps the plan inexact:
** the expression is still tested on each document. */
static void flattenExprEq(PlanCtx *pCtx, PlanConds *p, const DocValue *v){
  DocIter it;
  if( v->type!=DOC_DOCUMENT ) return;
  docextIterInitValue(&it, v);
  if( !docextIterNext(&it) || it.iNext!=it.nDoc-1 ) return;      /* one field */
  if( docextIterKeyIs(&it, "$and") && it.v.type==DOC_ARRAY ){
    DocIter el;
    docextIterInitValue(&el, &it.v);
    while( docextIterNext(&el) ) flattenExprEq(pCtx, p, &el.v);
  }else if( docextIterKeyIs(&it, "$eq") && it.v.type==DOC_ARRAY ){
    DocIter arg;
    DocValue a[2];
    int i;
    docextIterInitValue(&arg, &it.v);
    for(i=0; docextIterNext(&arg); i++){
      if( i==2 ) return;                          /* not two arguments */
      a[i] = arg.v;
    }
    if( i!=2 ) return;
    for(i=0; i<2; i++){
      const DocValue *pPath = &a[i], *pConst = &a[1-i];
      if( pPath->type==DOC_STRING && pPath->n>6 && pPath->p[4]=='$' && pPath->p[5]!='$'
       && exprEqConstant(pConst) ){
        condAdd(pCtx, p, (const char*)pPath->p+5, pPath->n-6, PC_EQ, pConst);
        return;
      }
    }
  }
}

/* The conditions of a filter document: appended to p. */
static void flattenFilter(PlanCtx *pCtx, PlanConds *p, const u8 *aDoc){
  DocIter it;
  docextIterInit(&it, aDoc);
  while( pCtx->rc==SQLITE_OK && docextIterNext(&it) ){
    if( it.nKey>0 && it.zKey[0]=='$' ){
      if( docextIterKeyIs(&it, "$and") && it.v.type==DOC_ARRAY ){
        DocIter it2;
        docextIterInitValue(&it2, &it.v);
        while( docextIterNext(&it2) ){
          if( it2.v.type==DOC_DOCUMENT ){
            flattenFilter(pCtx, p, it2.v.p);
          }else{
            condAdd(pCtx, p, "", 0, PC_OTHER, 0);
          }
        }
      }else if( docextIterKeyIs(&it, "$or") && it.v.type==DOC_ARRAY ){
        condAdd(pCtx, p, "", 0, PC_OR, &it.v);
      }else if( docextIterKeyIs(&it, "$text") ){
        condAdd(pCtx, p, "", 0, PC_TEXT, &it.v);
      }else if( docextIterKeyIs(&it, "$comment") || docextIterKeyIs(&it, "$alwaysTrue") ){
        /* no condition */
      }else if( docextIterKeyIs(&it, "$expr") ){
        condAdd(pCtx, p, "", 0, PC_OTHER, 0);
        flattenExprEq(pCtx, p, &it.v);
      }else{
        condAdd(pCtx, p, "", 0, PC_OTHER, 0);
      }
    }else if( docextIsOperatorDoc(&it.v) ){
      flattenOps(pCtx, p, it.zKey, it.nKey, &it.v);
    }else if( it.v.type==DOC_REGEX ){
      const char *zPat = (const char*)it.v.p;
      int nPat = (int)strlen(zPat);
      condAddRegex(pCtx, p, it.zKey, it.nKey, zPat, nPat, zPat+nPat+1);
    }else{
      condAdd(pCtx, p, it.zKey, it.nKey, PC_EQ, &it.v);
    }
  }
}

/*------------------------------------------------------------------------
** Display values (for indexBounds) and key bytes in the arena
*/

/* Append a display value; returns its offset in pCtx->disp. */
static int dispAdd(PlanCtx *pCtx, int type, const u8 *p, int n){
  int iOff = (int)pCtx->disp.n;
  docextBufAppendByte(&pCtx->rc, &pCtx->disp, (u8)type);
  docextBufAppendI32(&pCtx->rc, &pCtx->disp, n);
  docextBufAppend(&pCtx->rc, &pCtx->disp, p, n);
  return iOff;
}
static int dispValue(PlanCtx *pCtx, const DocValue *v){
  return dispAdd(pCtx, v->type, v->p, v->n);
}
static void dispGet(PlanCtx *pCtx, int iOff, DocValue *v){
  v->type = pCtx->disp.a[iOff];
  v->n = docextGetI32(&pCtx->disp.a[iOff+1]);
  v->p = &pCtx->disp.a[iOff+5];
}
static int dispType(PlanCtx *pCtx, int type){
  return dispAdd(pCtx, type, 0, 0);
}
static int dispDouble(PlanCtx *pCtx, double d){
  u8 a[8];
  DocBuf b;
  docextBufInit(&b, a, sizeof(a));
  docextBufAppendDouble(&pCtx->rc, &b, d);
  return dispAdd(pCtx, DOC_DOUBLE, a, 8);
}
static int dispString(PlanCtx *pCtx, const char *z, int n){
  DocBuf b;
  u8 aSpace[64];
  int iOff;
  docextBufInit(&b, aSpace, sizeof(aSpace));
  docextBufAppendI32(&pCtx->rc, &b, n+1);
  docextBufAppend(&pCtx->rc, &b, z, n);
  docextBufAppendByte(&pCtx->rc, &b, 0);
  iOff = dispAdd(pCtx, DOC_STRING, b.a, (int)b.n);
  docextBufFree(&b);
  return iOff;
}
static int dispEmptyDoc(PlanCtx *pCtx){
  static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
  return dispAdd(pCtx, DOC_DOCUMENT, aEmpty, 5);
}

/* The key of v appended to the arena: its offset; size in *pn. */
static int keyOf(PlanCtx *pCtx, const DocValue *v, int *pn){
  int iOff = (int)pCtx->a.n;
  docextKeyAppendColl(&pCtx->rc, &pCtx->a, v, 0, pCtx->pKeyColl);
  *pn = (int)pCtx->a.n - iOff;
  return iOff;
}

/* Append bytes [iOff, iOff+n) of the arena again, inverted if bInv, then
** made succ() if bSucc. Returns the new offset; *pn its size. An empty
** result of succ() (all 0xFF) becomes the single byte 0xFF, above every
** key (class bytes, inverted or not, stay below 0xF6). */
static int arenaCopy(PlanCtx *pCtx, int iOff, int n, int bInv, int bSucc, int *pn){
  int iNew = (int)pCtx->a.n, i;
  if( !docextBufReserve(&pCtx->rc, &pCtx->a, n+1) ){ *pn = 0; return 0; }
  memmove(&pCtx->a.a[iNew], &pCtx->a.a[iOff], n);
  pCtx->a.n += n;
  if( bInv ){
    for(i=0; i<n; i++) pCtx->a.a[iNew+i] = ~pCtx->a.a[iNew+i];
  }
  if( bSucc ){
    while( pCtx->a.n>iNew && pCtx->a.a[pCtx->a.n-1]==0xFF ) pCtx->a.n--;
    if( pCtx->a.n==iNew ){
      pCtx->a.a[pCtx->a.n++] = 0xFF;
    }else{
      pCtx->a.a[pCtx->a.n-1]++;
    }
  }
  *pn = (int)pCtx->a.n - iNew;
  return iNew;
}

/* Append arena bytes [iOff, iOff+n) again (the arena may move while it
** grows, so never pass a pointer into it to docextBufAppend). */
static void arenaRepeat(PlanCtx *pCtx, int iOff, int n){
  if( n>0 && docextBufReserve(&pCtx->rc, &pCtx->a, n) ){
    memmove(&pCtx->a.a[pCtx->a.n], &pCtx->a.a[iOff], n);
    pCtx->a.n += n;
  }
}

/* Append raw bytes; returns the offset. */
static int arenaBytes(PlanCtx *pCtx, const u8 *p, int n){
  int iOff = (int)pCtx->a.n;
  docextBufAppend(&pCtx->rc, &pCtx->a, p, n);
  return iOff;
}

/* For docextSort of intervals, by lo. */
static int ivCmpLo(void *pArg, const void *pX, const void *pY){
  const PlanCtx *pCtx = (const PlanCtx*)pArg;
  const PlanIv *x = (const PlanIv*)pX, *y = (const PlanIv*)pY;
  return docextKeyCmp(&pCtx->a.a[x->iLo], x->nLo, &pCtx->a.a[y->iLo], y->nLo);
}

/*------------------------------------------------------------------------
** Interval sets
*/

/* (Its array is scratch memory: forgetting it is enough.) */
static void ivsFree(IvSet *p){
  memset(p, 0, sizeof(*p));
}

static void ivsFull(IvSet *p){
  ivsFree(p);
  p->bFull = 1;
}

static PlanIv *ivsAppend(PlanCtx *pCtx, IvSet *p){
  if( pCtx->rc ) return 0;
  if( p->n==p->nAlloc ){
    int nNew = p->nAlloc ? p->nAlloc*2 : 4;
    PlanIv *aNew = planGrow(pCtx, p->a, p->n*sizeof(PlanIv), nNew*sizeof(PlanIv));
    if( aNew==0 ) return 0;
    p->a = aNew;
    p->nAlloc = nNew;
  }
  return &p->a[p->n++];
}

/* Add the value interval from lower end (X, sX) to upper end (Y, sY): an
** end (B, s) is the bytes B, or succ(B) when s. In ascending key space a
** lower end "≥ key k" is (k, 0), "> k" (k, 1), a class start (prefix, 0);
** an upper end "≤ k" is (k, 1), "< k" (k, 0), a class end (prefix, 1).
** For a descending field the ends swap and invert: [(~Y, !sY), (~X, !sX)).
** dLo/dHi display the value ends. bPoint: X==Y is a whole key, sX 0, sY 1. */
static void ivsAddRange(PlanCtx *pCtx, IvSet *p, int bDesc,
                        int iX, int nX, int sX, int iY, int nY, int sY,
                        int dLo, int dHi, int bPoint){
  int iLo, nLo, iHi, nHi;
  PlanIv *pIv;
  if( pCtx->rc ) return;
  if( bDesc ){
    iLo = arenaCopy(pCtx, iY, nY, 1, !sY, &nLo);
    iHi = arenaCopy(pCtx, iX, nX, 1, !sX, &nHi);
  }else{
    iLo = arenaCopy(pCtx, iX, nX, 0, sX, &nLo);
    iHi = arenaCopy(pCtx, iY, nY, 0, sY, &nHi);
  }
  if( pCtx->rc ) return;
  if( docextKeyCmp(&pCtx->a.a[iLo], nLo, &pCtx->a.a[iHi], nHi)>=0 ) return;
  pIv = ivsAppend(pCtx, p);
  if( pIv==0 ) return;
  pIv->iLo = iLo; pIv->nLo = nLo;
  pIv->iHi = iHi; pIv->nHi = nHi;
  pIv->bPoint = bPoint;
  pIv->iDLo = bDesc ? dHi : dLo;
  pIv->iDHi = bDesc ? dLo : dHi;
  p->bFull = 0;
}

/* Add the point v. */
static void ivsAddPoint(PlanCtx *pCtx, IvSet *p, int bDesc, const DocValue *v){
  int nK, iK = keyOf(pCtx, v, &nK);
  int d = dispValue(pCtx, v);
  ivsAddRange(pCtx, p, bDesc, iK, nK, 0, iK, nK, 1, d, d, 1);
}

static void ivsAddNull(PlanCtx *pCtx, IvSet *p, int bDesc){
  DocValue v;
  v.p = 0; v.n = 0;
  v.type = DOC_UNDEFINED;
  ivsAddPoint(pCtx, p, bDesc, &v);
  v.type = DOC_NULL;
  ivsAddPoint(pCtx, p, bDesc, &v);
}

/* Sort intervals by lo. */
static void ivsSort(PlanCtx *pCtx, PlanIv *a, int n){
  PlanIv *aTmp = planAlloc(pCtx, sizeof(PlanIv)*n);
  if( aTmp ) docextSort(a, n, sizeof(PlanIv), aTmp, ivCmpLo, pCtx);
}

/* Sort by lo and merge overlapping intervals (identical ones included;
** merely adjacent ones stay apart, so points stay points). */
static void ivsNormalize(PlanCtx *pCtx, IvSet *p){
  int i, n = 0;
  if( p->bFull || p->n<2 || pCtx->rc ) return;
  ivsSort(pCtx, p->a, p->n);
  if( pCtx->rc ) return;
  for(i=0; i<p->n; i++){
    PlanIv *pCur = &p->a[i];
    if( n>0 ){
      PlanIv *pPrev = &p->a[n-1];
      const u8 *a = pCtx->a.a;
      if( docextKeyCmp(&a[pCur->iLo], pCur->nLo, &a[pPrev->iHi], pPrev->nHi)<0 ){
        /* overlap: pPrev grows (a union inside pPrev changes nothing) */
        if( docextKeyCmp(&a[pCur->iHi], pCur->nHi, &a[pPrev->iHi], pPrev->nHi)>0 ){
          pPrev->iHi = pCur->iHi;
          pPrev->nHi = pCur->nHi;
          pPrev->iDHi = pCur->iDHi;
          pPrev->bPoint = 0;
        }
        continue;
      }
    }
    p->a[n++] = *pCur;
  }
  p->n = n;
}

/* Do two intervals have the same ends? */
static int ivSame(PlanCtx *pCtx, const PlanIv *x, const PlanIv *y){
  const u8 *A = pCtx->a.a;
  return docextKeyCmp(&A[x->iLo], x->nLo, &A[y->iLo], y->nLo)==0
      && docextKeyCmp(&A[x->iHi], x->nHi, &A[y->iHi], y->nHi)==0;
}

/* *pOut = a ∩ b (both normalized). */
static void ivsIntersect(PlanCtx *pCtx, const IvSet *a, const IvSet *b, IvSet *pOut){
  int i = 0, j = 0;
  memset(pOut, 0, sizeof(*pOut));
  pOut->bExact = a->bExact && b->bExact;
  if( a->bFull || b->bFull ){
    const IvSet *pSrc = a->bFull ? b : a;
    if( pSrc->bFull ){ pOut->bFull = 1; return; }
    for(i=0; i<pSrc->n; i++){
      PlanIv *pIv = ivsAppend(pCtx, pOut);
      if( pIv ) *pIv = pSrc->a[i];
    }
    return;
  }
  while( i<a->n && j<b->n && pCtx->rc==SQLITE_OK ){
    const PlanIv *x = &a->a[i], *y = &b->a[j];
    const u8 *A = pCtx->a.a;
    const PlanIv *pLo = docextKeyCmp(&A[x->iLo], x->nLo, &A[y->iLo], y->nLo)>=0 ? x : y;
    const PlanIv *pHi = docextKeyCmp(&A[x->iHi], x->nHi, &A[y->iHi], y->nHi)<=0 ? x : y;
    if( docextKeyCmp(&A[pLo->iLo], pLo->nLo, &A[pHi->iHi], pHi->nHi)<0 ){
      PlanIv *pIv = ivsAppend(pCtx, pOut);
      if( pIv ){
        pIv->iLo = pLo->iLo; pIv->nLo = pLo->nLo; pIv->iDLo = pLo->iDLo;
        pIv->iHi = pHi->iHi; pIv->nHi = pHi->nHi; pIv->iDHi = pHi->iDHi;
        pIv->bPoint = (x->bPoint && ivSame(pCtx, pIv, x))
                   || (y->bPoint && ivSame(pCtx, pIv, y));
      }
    }
    /* advance the one that ends first */
    if( docextKeyCmp(&A[x->iHi], x->nHi, &A[y->iHi], y->nHi)<=0 ) i++; else j++;
  }
}

/* Is the set all points? */
static int ivsAllPoints(const IvSet *p){
  int i;
  if( p->bFull ) return 0;
  for(i=0; i<p->n; i++) if( !p->a[i].bPoint ) return 0;
  return 1;
}

/* Does the set contain the one-byte key c (null or undefined)? */
static int ivsHasClassKey(PlanCtx *pCtx, const IvSet *p, int bDesc, u8 c){
  u8 k = bDesc ? (u8)~c : c;
  int i;
  if( p->bFull ) return 1;
  for(i=0; i<p->n; i++){
    const PlanIv *pIv = &p->a[i];
    if( docextKeyCmp(&pCtx->a.a[pIv->iLo], pIv->nLo, &k, 1)<=0
     && docextKeyCmp(&k, 1, &pCtx->a.a[pIv->iHi], pIv->nHi)<0 ) return 1;
  }
  return 0;
}

/*------------------------------------------------------------------------
** Conditions to interval sets
*/


/* The bounds of v's type class as key prefixes: the class starts at
** (*piLo, *pnLo) and ends after all keys with prefix (*piHi, *pnHi).
** Numbers start after NaN (which no range but NaN's own point matches).
** Display ends in *pdLo, *pdHi. */
static void classBounds(PlanCtx *pCtx, const DocValue *v, int iK,
                        int *piLo, int *pnLo, int *piHi, int *pnHi,
                        int *pdLo, int *pdHi){
  u8 c = pCtx->a.a[iK];
  u8 aLo[2];
  aLo[0] = c;
  aLo[1] = 0x01;
  if( c==KC_NUMBER ){
    *piLo = arenaBytes(pCtx, aLo, 2); *pnLo = 2;
    *piHi = arenaBytes(pCtx, aLo, 1); *pnHi = 1;
    *pdLo = dispDouble(pCtx, -INFINITY);
    *pdHi = dispDouble(pCtx, INFINITY);
    return;
  }
  if( c==KC_FALSE || c==KC_TRUE ){
    u8 f = KC_FALSE, t = KC_TRUE;
    static const u8 aFalse[1] = {0}, aTrue[1] = {1};
    *piLo = arenaBytes(pCtx, &f, 1); *pnLo = 1;
    *piHi = arenaBytes(pCtx, &t, 1); *pnHi = 1;
    *pdLo = dispAdd(pCtx, DOC_BOOL, aFalse, 1);
    *pdHi = dispAdd(pCtx, DOC_BOOL, aTrue, 1);
    return;
  }
  *piLo = arenaBytes(pCtx, aLo, 1); *pnLo = 1;
  *piHi = *piLo; *pnHi = 1;
  if( v->type==DOC_STRING || v->type==DOC_SYMBOL ){
    *pdLo = dispString(pCtx, "", 0);
    *pdHi = dispEmptyDoc(pCtx);
  }else{
    *pdLo = dispType(pCtx, DOC_MINKEY);
    *pdHi = dispType(pCtx, DOC_MAXKEY);
  }
}

/* The set of one equality value. */
static void eqSet(PlanCtx *pCtx, const DocValue *v, int bDesc, IvSet *p){
  if( v->type==DOC_ARRAY || v->type==DOC_UNDEFINED ){
    p->bFull = 1;
    p->bExact = 0;
  }else if( v->type==DOC_NULL ){
    ivsAddNull(pCtx, p, bDesc);
    p->bExact = 0;
  }else{
    if( docextValueIsNaN(v) ) p->bExact = 0;
    ivsAddPoint(pCtx, p, bDesc, v);
  }
}

/* The set of a comparison eOp (PC_GT..PC_LTE) with operand v. */
static void rangeSet(PlanCtx *pCtx, int eOp, const DocValue *v, int bDesc, IvSet *p){
  int iK, nK, iLo, nLo, iHi, nHi, dLo, dHi, dV;
  switch( v->type ){
    case DOC_MINKEY: case DOC_MAXKEY: case DOC_ARRAY: case DOC_REGEX: case DOC_UNDEFINED:
      p->bFull = 1;
      p->bExact = 0;
      return;
    case DOC_NULL:
      if( eOp==PC_GTE || eOp==PC_LTE ){
        ivsAddNull(pCtx, p, bDesc);
        p->bExact = 0;
      }
      return;
  }
  if( docextValueIsNaN(v) ){
    if( eOp==PC_GTE || eOp==PC_LTE ){
      ivsAddPoint(pCtx, p, bDesc, v);
      p->bExact = 0;
    }
    return;
  }
  iK = keyOf(pCtx, v, &nK);
  classBounds(pCtx, v, iK, &iLo, &nLo, &iHi, &nHi, &dLo, &dHi);
  dV = dispValue(pCtx, v);
  switch( eOp ){
    case PC_GT:  ivsAddRange(pCtx, p, bDesc, iK, nK, 1, iHi, nHi, 1, dV, dHi, 0); break;
    case PC_GTE: ivsAddRange(pCtx, p, bDesc, iK, nK, 0, iHi, nHi, 1, dV, dHi, 0); break;
    case PC_LT:  ivsAddRange(pCtx, p, bDesc, iLo, nLo, 0, iK, nK, 0, dLo, dV, 0); break;
    default:     ivsAddRange(pCtx, p, bDesc, iLo, nLo, 0, iK, nK, 1, dLo, dV, 0); break;
  }
}

/* The literal prefix of an anchored regex: 1 and *pnPrefix (bytes after
** the '^') when every match starts with it, else 0. Flags i (case), m ('^'
** after newlines) and x (spaces) make a pattern unusable, as does any '|'. */
static int regexPrefix(const char *zPat, int nPat, const char *zFlags, int *pnPrefix){
  int i;
  if( strchr(zFlags, 'i') || strchr(zFlags, 'm') || strchr(zFlags, 'x') ) return 0;
  if( nPat<1 || zPat[0]!='^' ) return 0;
  if( memchr(zPat, '|', nPat) ) return 0;
  for(i=1; i<nPat && !strchr("\\^$.|?*+()[]{}", zPat[i]); i++){}
  if( zPat[i]==0 && i<nPat ) return 0;        /* a NUL in the pattern */
  if( i<nPat && (zPat[i]=='?' || zPat[i]=='*' || zPat[i]=='{') ){
    /* the last character is optional: drop it (all its UTF-8 bytes) */
    if( i>1 ) i--;
    while( i>1 && (((u8)zPat[i])&0xC0)==0x80 ) i--;
  }
  *pnPrefix = i-1;
  return 1;
}

/* The set of a regex: strings with its literal prefix (or all strings),
** and the point of the regex value itself. Never exact. */
static void regexSet(PlanCtx *pCtx, const PlanCond *c, int bDesc, IvSet *p){
  int nPrefix = 0;
  const char *zPrefix = c->zPat+1;
  DocBuf b;
  u8 aSpace[128];
  DocValue v;
  int iK, nK, dLo, dHi = 0;
  p->bExact = 0;
  if( !regexPrefix(c->zPat, c->nPat, c->zFlags, &nPrefix) ) nPrefix = 0;
  docextBufInit(&b, aSpace, sizeof(aSpace));
  v = docextValueString(&pCtx->rc, &b, zPrefix, nPrefix);
  if( pCtx->rc==SQLITE_OK ){
    iK = keyOf(pCtx, &v, &nK);
    nK--;                                   /* drop the terminator */
    dLo = dispString(pCtx, zPrefix, nPrefix);
    if( nPrefix>0 && (u8)zPrefix[nPrefix-1]<0x7F ){
      char *z = planGrow(pCtx, zPrefix, nPrefix, nPrefix);
      if( z ){
        z[nPrefix-1]++;
        dHi = dispString(pCtx, z, nPrefix);
      }
    }else{
      dHi = dispEmptyDoc(pCtx);
    }
    if( pCtx->rc==SQLITE_OK ){
      ivsAddRange(pCtx, p, bDesc, iK, nK, 0, iK, nK, 1, dLo, dHi, 0);
    }
  }
  /* the stored regex equal to this one */
  docextBufReset(&b);
  if( !memchr(c->zPat, 0, c->nPat) ){
    docextBufAppend(&pCtx->rc, &b, c->zPat, c->nPat);
    docextBufAppendByte(&pCtx->rc, &b, 0);
    docextBufAppendStr(&pCtx->rc, &b, c->zFlags);
    docextBufAppendByte(&pCtx->rc, &b, 0);
    if( pCtx->rc==SQLITE_OK ){
      v.type = DOC_REGEX; v.p = b.a; v.n = (int)b.n;
      ivsAddPoint(pCtx, p, bDesc, &v);
    }
  }
  docextBufFree(&b);
  ivsNormalize(pCtx, p);
}

/* (Its array is scratch memory: forgetting it is enough.) */
static void condsFree(PlanConds *p){
  memset(p, 0, sizeof(*p));
}

static void condSet(PlanCtx *pCtx, const PlanCond *c, int bDesc, IvSet *p);

/* Value-form $elemMatch: its operators test one element, so their sets
** always intersect. Only operators that test the element's own value
** give bounds. */
static void elemValSet(PlanCtx *pCtx, const PlanCond *c, int bDesc, IvSet *p){
  PlanConds inner;
  int i;
  memset(&inner, 0, sizeof(inner));
  p->bFull = 1;
  flattenOps(pCtx, &inner, c->zPath, c->nPath, &c->v);
  for(i=0; i<inner.n && pCtx->rc==SQLITE_OK; i++){
    IvSet s, t;
    int e = inner.a[i].eOp;
    if( e!=PC_EQ && e!=PC_IN && e!=PC_GT && e!=PC_GTE && e!=PC_LT && e!=PC_LTE
     && e!=PC_REGEX ) continue;
    condSet(pCtx, &inner.a[i], bDesc, &s);
    if( s.bFull ){ ivsFree(&s); continue; }
    if( p->bFull ){
      ivsFree(p);
      *p = s;
    }else{
      ivsIntersect(pCtx, p, &s, &t);
      ivsFree(p);
      ivsFree(&s);
      *p = t;
    }
  }
  p->bExact = 0;
  condsFree(&inner);
}

/* Does v hold a string (or symbol), which a collation compares? */
static int valueCollatable(const DocValue *v){
  if( v->type==DOC_STRING || v->type==DOC_SYMBOL ) return 1;
  if( v->type==DOC_DOCUMENT || v->type==DOC_ARRAY ){
    DocIter it;
    docextIterInitValue(&it, v);
    while( docextIterNext(&it) ){
      if( valueCollatable(&it.v) ) return 1;
    }
  }
  return 0;
}

/* Can condition c bound the index of pCtx->pKeyColl? Not when the query
** compares strings under another collation than the index's keys hold,
** nor a regex over an index of sort keys (a regex reads the bytes). */
static int condFitsCollation(PlanCtx *pCtx, const PlanCond *c){
  if( c->eOp==PC_REGEX ) return pCtx->pKeyColl==0;
  if( !pCtx->bCollMismatch ) return 1;
  switch( c->eOp ){
    case PC_EQ: case PC_GT: case PC_GTE: case PC_LT: case PC_LTE:
    case PC_IN: case PC_ALL: case PC_ELEMVAL:
      return !valueCollatable(&c->v);
  }
  return 1;
}

/* The interval set of one condition on its own path (normalized). */
static void condSet(PlanCtx *pCtx, const PlanCond *c, int bDesc, IvSet *p){
  memset(p, 0, sizeof(*p));
  p->bExact = 1;
  if( !condFitsCollation(pCtx, c) ){
    p->bFull = 1;
    p->bExact = 0;
    return;
  }
  switch( c->eOp ){
    case PC_EQ:
      eqSet(pCtx, &c->v, bDesc, p);
      break;
    case PC_ALL: {
      DocIter it;
      p->bExact = 0;
      p->bFull = 1;
      if( c->v.type==DOC_ARRAY ){
        docextIterInitValue(&it, &c->v);
        if( docextIterNext(&it) && it.v.type!=DOC_REGEX && !docextIsOperatorDoc(&it.v) ){
          p->bFull = 0;
          eqSet(pCtx, &it.v, bDesc, p);
          p->bExact = 0;
        }
      }
      break;
    }
    case PC_IN: {
      DocIter it;
      if( c->v.type!=DOC_ARRAY ){ p->bFull = 1; p->bExact = 0; break; }
      docextIterInitValue(&it, &c->v);
      while( docextIterNext(&it) ){
        if( it.v.type==DOC_ARRAY || it.v.type==DOC_REGEX || it.v.type==DOC_UNDEFINED ){
          ivsFull(p);
          p->bExact = 0;
          break;
        }
        eqSet(pCtx, &it.v, bDesc, p);
      }
      break;
    }
    case PC_GT: case PC_GTE: case PC_LT: case PC_LTE:
      rangeSet(pCtx, c->eOp, &c->v, bDesc, p);
      break;
    case PC_REGEX:
      regexSet(pCtx, c, bDesc, p);
      break;
    case PC_ELEMVAL:
      elemValSet(pCtx, c, bDesc, p);
      break;
    default:
      p->bFull = 1;
      p->bExact = 0;
      break;
  }
  ivsNormalize(pCtx, p);
}

/* Does path z (n bytes) equal zField, or (bPrefix) is it a proper dotted
** prefix of it? */
static int planPathIs(const char *z, int n, const char *zField, int nField){
  return n==nField && memcmp(z, zField, n)==0;
}
static int planPathUnder(const char *zPre, int nPre, const char *zField, int nField){
  return nPre>0 && nPre<nField && zField[nPre]=='.' && memcmp(zPre, zField, nPre)==0;
}

/* Combine set s into *pAcc (taking s over): intersect, or when bMulti
** keep the better of the two (points over ranges, then fewer intervals). */
static void ivsCombine(PlanCtx *pCtx, IvSet *pAcc, IvSet *s, int bMulti){
  if( s->bFull ){ ivsFree(s); return; }
  if( pAcc->bFull ){
    ivsFree(pAcc);
    *pAcc = *s;
    memset(s, 0, sizeof(*s));
    return;
  }
  if( !bMulti ){
    IvSet t;
    ivsIntersect(pCtx, pAcc, s, &t);
    ivsFree(pAcc);
    ivsFree(s);
    *pAcc = t;
    return;
  }else{
    int sa = (ivsAllPoints(pAcc) ? 0 : 1000000) + pAcc->n;
    int sb = (ivsAllPoints(s) ? 0 : 1000000) + s->n;
    if( sb<sa ){
      ivsFree(pAcc);
      *pAcc = *s;
      memset(s, 0, sizeof(*s));
    }else{
      ivsFree(s);
    }
  }
}

/* The interval set of index path zField from the conditions: those on the
** path itself, and those inside an object-form $elemMatch on a prefix of
** it. mk: where the path has met arrays (docextIndexMultikeyPath, bit c for
** component c): several conditions intersect only where it has none.
** aExact (may be NULL) gets 1 for each condition answered exactly. */
static void fieldSet(PlanCtx *pCtx, const PlanConds *pConds, const char *zField,
                     int nField, int bDesc, u64 mk, u8 *aExact, IvSet *pOut){
  int bMulti = mk!=0;
  int i, nUsed = 0;
  memset(pOut, 0, sizeof(*pOut));
  pOut->bFull = 1;
  for(i=0; i<pConds->n && pCtx->rc==SQLITE_OK; i++){
    const PlanCond *c = &pConds->a[i];
    IvSet s;
    if( planPathIs(c->zPath, c->nPath, zField, nField) ){
      condSet(pCtx, c, bDesc, &s);
      /* On a multikey path only points are exact (a document has one
      ** entry per distinct element, so one entry per point it matches),
      ** and only when no other condition competes for the bounds. */
      if( !s.bFull ) nUsed++;
      if( aExact && !s.bFull && s.bExact && (!bMulti || ivsAllPoints(&s)) ) aExact[i] = 1;
      ivsCombine(pCtx, pOut, &s, bMulti);
    }else if( c->eOp==PC_ELEMOBJ && planPathUnder(c->zPath, c->nPath, zField, nField) ){
      /* one element: only arrays below it keep the inner conditions apart */
      int nPre = docextPathComponents(c->zPath, c->nPath);
      PlanConds inner;
      memset(&inner, 0, sizeof(inner));
      flattenFilter(pCtx, &inner, c->v.p);
      fieldSet(pCtx, &inner, zField+c->nPath+1, nField-c->nPath-1, bDesc,
               nPre<63 ? mk>>nPre : (mk>>63 ? ~(u64)0 : 0), 0, &s);
      condsFree(&inner);
      if( !s.bFull ) nUsed++;
      ivsCombine(pCtx, pOut, &s, bMulti);
    }
  }
  if( bMulti && nUsed>1 && aExact ){
    for(i=0; i<pConds->n; i++){
      if( planPathIs(pConds->a[i].zPath, pConds->a[i].nPath, zField, nField) ) aExact[i] = 0;
    }
  }
}

/*------------------------------------------------------------------------
** Hashed fields
*/

/* Add the point of hashed value v (displayed as its hash). */
static void hashedPoint(PlanCtx *pCtx, const DocIndex *pIdx, IvSet *p, const DocValue *v){
  u8 a8[8];
  DocValue h = docextValue64(DOC_INT64, docextIndexHashValue(pIdx, &pCtx->rc, v), a8);
  ivsAddPoint(pCtx, p, 0, &h);
}

/* The set of a hashed field: equality points only (first condition that
** gives them). Never exact. */
static void hashedSet(PlanCtx *pCtx, const DocIndex *pIdx, const PlanConds *pConds,
                      const char *zField, int nField, IvSet *pOut){
  int i;
  memset(pOut, 0, sizeof(*pOut));
  pOut->bFull = 1;
  for(i=0; i<pConds->n && pCtx->rc==SQLITE_OK; i++){
    const PlanCond *c = &pConds->a[i];
    static const u8 aZero[1] = {0};
    DocValue vNull, vUndef;
    if( !planPathIs(c->zPath, c->nPath, zField, nField) ) continue;
    if( !condFitsCollation(pCtx, c) ) continue;
    vNull.type = DOC_NULL; vNull.p = aZero; vNull.n = 0;
    vUndef.type = DOC_UNDEFINED; vUndef.p = aZero; vUndef.n = 0;
    if( c->eOp==PC_EQ && c->v.type!=DOC_ARRAY && c->v.type!=DOC_UNDEFINED ){
      pOut->bFull = 0;
      hashedPoint(pCtx, pIdx, pOut, &c->v);
      if( c->v.type==DOC_NULL ) hashedPoint(pCtx, pIdx, pOut, &vUndef);
    }else if( c->eOp==PC_IN && c->v.type==DOC_ARRAY ){
      DocIter it;
      int bOk = 1;
      docextIterInitValue(&it, &c->v);
      while( docextIterNext(&it) ){
        if( it.v.type==DOC_ARRAY || it.v.type==DOC_REGEX || it.v.type==DOC_UNDEFINED ) bOk = 0;
      }
      if( !bOk ) continue;
      pOut->bFull = 0;
      docextIterInitValue(&it, &c->v);
      while( docextIterNext(&it) ){
        hashedPoint(pCtx, pIdx, pOut, &it.v);
        if( it.v.type==DOC_NULL ){
          hashedPoint(pCtx, pIdx, pOut, &vNull);
          hashedPoint(pCtx, pIdx, pOut, &vUndef);
        }
      }
    }else{
      continue;
    }
    break;
  }
  pOut->bExact = 0;
  ivsNormalize(pCtx, pOut);
}

/*------------------------------------------------------------------------
** Geospatial fields (2dsphere, 2d)
*/

/* The set of geospatial field j of pIdx: the cell ranges of its first
** condition that bounds it (docextGeoKeyRanges, docextGeo2dKeyRanges),
** displayed as the int64 keys. Never exact: the matcher decides. */
static void geoSet(PlanCtx *pCtx, const DocIndex *pIdx, int j, const PlanConds *pConds,
                   IvSet *pOut){
  const char *zField = pIdx->azPath[j];
  int nField = (int)strlen(zField);
  int i;
  memset(pOut, 0, sizeof(*pOut));
  pOut->bFull = 1;
  for(i=0; i<pConds->n && pCtx->rc==SQLITE_OK && pOut->bFull; i++){
    const PlanCond *c = &pConds->a[i];
    i64 *aRange = 0;
    int nRange = 0, k;
    if( c->eOp!=PC_GEO || !planPathIs(c->zPath, c->nPath, zField, nField) ) continue;
    if( pIdx->aDir[j]==DOCEXT_DIR_2D ){
      pCtx->rc = docextGeo2dKeyRanges(c->eGeo, &c->v, pIdx->r2dMin, pIdx->r2dMax,
                                      pIdx->n2dBits, &aRange, &nRange);
    }else{
      pCtx->rc = docextGeoKeyRanges(c->eGeo, &c->v, &aRange, &nRange);
    }
    for(k=0; k<nRange && pCtx->rc==SQLITE_OK; k++){
      u8 aLo[8], aHi[8];
      DocValue lo = docextValue64(DOC_INT64, aRange[2*k], aLo);
      DocValue hi = docextValue64(DOC_INT64, aRange[2*k+1], aHi);
      int nLo, iLo = keyOf(pCtx, &lo, &nLo), dLo = dispValue(pCtx, &lo);
      int nHi, iHi = keyOf(pCtx, &hi, &nHi), dHi = dispValue(pCtx, &hi);
      ivsAddRange(pCtx, pOut, 0, iLo, nLo, 0, iHi, nHi, 1, dLo, dHi, aRange[2*k]==aRange[2*k+1]);
    }
    sqlite3_free(aRange);
  }
  pOut->bExact = 0;
  ivsNormalize(pCtx, pOut);
}

/* Does the query ask for a geometry in the geospatial field of pIdx? Only then
** may the index answer it: documents without one have no entries. */
static int geoAsked(const DocIndex *pIdx, const PlanConds *pConds){
  int j, k;
  for(j=0; j<pIdx->nField; j++){
    const char *zF = pIdx->azPath[j];
    if( !docextDirIsGeo(pIdx->aDir[j]) ) continue;
    for(k=0; k<pConds->n; k++){
      const PlanCond *c = &pConds->a[k];
      if( c->eOp==PC_GEO && planPathIs(c->zPath, c->nPath, zF, (int)strlen(zF)) ) return 1;
    }
  }
  return 0;
}

/*------------------------------------------------------------------------
** Text indexes
*/

/* The set of a text index's _fts field j: the terms of the query's $text
** (docextTextIndexTerms), each a point: the entries of every score. Exact
** (aExact) for a $text of terms alone, whose matches are the documents
** with entries; else the matcher decides. */
static void textSet(PlanCtx *pCtx, const DocIndex *pIdx, int j, const PlanConds *pConds,
                    u8 *aExact, IvSet *pOut){
  DocBuf terms, str;
  int i, k, nTerm = 0, bExact = 0, rc = SQLITE_ERROR;
  memset(pOut, 0, sizeof(*pOut));
  for(i=0; i<pConds->n && pConds->a[i].eOp!=PC_TEXT; i++){}
  memset(&terms, 0, sizeof(terms));
  memset(&str, 0, sizeof(str));
  if( i<pConds->n ){
    rc = docextTextIndexTerms(&pConds->a[i].v, pIdx->pText, &terms, &nTerm, &bExact);
    if( rc==SQLITE_NOMEM ) pCtx->rc = rc;
  }
  if( rc!=SQLITE_OK ){
    pOut->bFull = 1;                    /* (a bad $text: the matcher says why) */
  }else{
    if( bExact ) aExact[i] = (u8)(j+2);
    const char *z = (const char*)terms.a;
    for(k=0; k<nTerm && pCtx->rc==SQLITE_OK; k++){
      int n = (int)strlen(z);
      DocValue v = docextValueString(&pCtx->rc, &str, z, n);
      if( pCtx->rc ) break;
      ivsAddPoint(pCtx, pOut, 0, &v);
      z += n+1;
    }
  }
  docextBufFree(&terms);
  docextBufFree(&str);
  pOut->bExact = 0;
  ivsNormalize(pCtx, pOut);
}

/* Has the query a $text? Only then may a text index answer it. */
static int textAsked(const PlanConds *pConds){
  int k;
  for(k=0; k<pConds->n; k++){
    if( pConds->a[k].eOp==PC_TEXT ) return 1;
  }
  return 0;
}

/*------------------------------------------------------------------------
** One index's plan
*/

/* A sort field. */
typedef struct PlanSortField PlanSortField;
struct PlanSortField {
  const char *zPath;
  int nPath;
  int iDir;                 /* 1 or -1; 0: cannot come from an index */
};

/* What an index can do for a conjunction. */
typedef struct PlanTry PlanTry;
struct PlanTry {
  int iIdx;                 /* position in the index array */
  const DocIndex *pIdx;
  IvSet *aField;            /* per index field */
  int nPointField;          /* leading fields spent as key prefixes */
  int bRangeField;          /* field nPointField bounds the ranges too */
  int bBounded;             /* some bounds (leading field bounded) */
  int bSparseOk;            /* the bounds exclude documents it lacks */
  int bExists;              /* sparse, and $exists: true on one of its
                            ** fields: a candidate even without bounds */
  int bExact;               /* every document it meets matches */
  int bOnce;                /* it meets every document at most once */
  int bSorted, bDesc;       /* yields the sort's order, reading backward */
  IvSet ranges;             /* key ranges, in the arena */
  int bCosted;              /* nEst and cost are known (tryCost) */
  double nEst;              /* entries in the ranges (estimate) */
  double cost;
};

/* (Its arrays are scratch memory: forgetting them is enough.) */
static void tryFree(PlanTry *p){
  memset(p, 0, sizeof(*p));
}

/* First component of a dotted path: its length. */
static int planFirstComponent(const char *z){
  const char *zDot = strchr(z, '.');
  return zDot ? (int)(zDot - z) : (int)strlen(z);
}

/* Does a path have a numeric component? Index keys read "a.0" as array
** element 0 only, the matcher also as field "0": no bounds for those. */
static int planPathHasNumber(const char *z){
  while( *z ){
    int n = planFirstComponent(z), i;
    for(i=0; i<n && z[i]>='0' && z[i]<='9'; i++){}
    if( n>0 && i==n ) return 1;
    z += n;
    if( *z=='.' ) z++;
  }
  return 0;
}

/* Append key range [P+lo, P+hi) for prefix P = arena[iP..iP+nP) and
** interval pIv (NULL: the whole of P, [P, succ(P))). */
static void rangeAdd(PlanCtx *pCtx, IvSet *pOut, int iP, int nP, const PlanIv *pIv){
  PlanIv *pNew;
  int iLo, iHi, nHi;
  if( pCtx->rc ) return;
  if( pIv==0 ){
    iLo = iP;
    iHi = arenaCopy(pCtx, iP, nP, 0, 1, &nHi);
    pNew = ivsAppend(pCtx, pOut);
    if( pNew ){
      memset(pNew, 0, sizeof(*pNew));
      pNew->iLo = iLo; pNew->nLo = nP;
      pNew->iHi = iHi; pNew->nHi = nHi;
      pNew->bPoint = 1;
    }
    return;
  }
  iLo = (int)pCtx->a.n;
  arenaRepeat(pCtx, iP, nP);
  if( pCtx->rc ) return;
  arenaRepeat(pCtx, pIv->iLo, pIv->nLo);
  iHi = (int)pCtx->a.n;
  arenaRepeat(pCtx, iP, nP);
  if( pCtx->rc ) return;
  arenaRepeat(pCtx, pIv->iHi, pIv->nHi);
  pNew = ivsAppend(pCtx, pOut);
  if( pNew ){
    memset(pNew, 0, sizeof(*pNew));
    pNew->iLo = iLo; pNew->nLo = nP + pIv->nLo;
    pNew->iHi = iHi; pNew->nHi = nP + pIv->nHi;
    pNew->bPoint = 0;
  }
}

/* Could the try's index yield the sort's order? */
static void trySort(PlanTry *p, const PlanSortField *aSort, int nSort){
  const DocIndex *pIdx = p->pIdx;
  int i = 0, j = 0, iRel = 0;
  p->bSorted = 0;
  if( nSort==0 || pIdx->bSparse || pIdx->aPartial ) return;
  while( i<nSort ){
    const char *zF;
    if( j>=pIdx->nField ) return;
    zF = pIdx->azPath[j];
    if( planPathIs(aSort[i].zPath, aSort[i].nPath, zF, (int)strlen(zF)) ){
      int iThis;
      /* "a.0": the key is the element whole (an array stays one value),
      ** the sort reads the path as the matcher does */
      if( pIdx->aDir[j]==0 || docextDirIsGeo(pIdx->aDir[j])
       || aSort[i].iDir==0 || planPathHasNumber(zF) ) return;
      /* an array on its path: a document's entries hold each element, and
      ** the sort reads the array as a whole (its least or greatest) */
      if( docextIndexMultikeyPath(pIdx, j)!=0 ) return;
      iThis = pIdx->aDir[j]==aSort[i].iDir ? 1 : -1;
      if( iRel && iThis!=iRel ) return;
      iRel = iThis;
      i++;
      j++;
    }else if( j<p->nPointField && p->aField[j].n==1 ){
      j++;                              /* one value: no order to give */
    }else{
      return;
    }
  }
  p->bSorted = 1;
  p->bDesc = iRel<0;
}

/* How many leading components do two dotted paths share? */
static int planSharedComponents(const char *zA, const char *zB){
  int nShared = 0;
  for(;;){
    int nA = planFirstComponent(zA), nB = planFirstComponent(zB);
    if( nA!=nB || memcmp(zA, zB, nA)!=0 ) return nShared;
    nShared++;
    if( zA[nA]==0 || zB[nB]==0 ) return nShared;
    zA += nA+1;
    zB += nB+1;
  }
}

/* The multikey path bits of components iFrom..iTo-1 (bit 63 stands for
** 63 and every later one). */
static u64 planComponentBits(int iFrom, int iTo){
  u64 lo = iFrom>=63 ? ((u64)1<<63) - 1 : ((u64)1<<iFrom) - 1;
  u64 hi = iTo>=64 ? ~(u64)0 : ((u64)1<<iTo) - 1;
  return hi & ~lo;
}

/* Do fields k and j of pIdx share a path prefix where some document had an
** array (among its components from iFrom on)? Then their values may come
** from different elements of it, and their bounds cannot be compounded
** (MongoDB's rule for compound multikey bounds, with its multikey paths). */
static int tryFieldsShareArrayFrom(const DocIndex *pIdx, int k, int j, int iFrom){
  u64 mk = docextIndexMultikeyPath(pIdx, k) | docextIndexMultikeyPath(pIdx, j);
  if( mk==0 ) return 0;
  return (mk & planComponentBits(iFrom, planSharedComponents(pIdx->azPath[k], pIdx->azPath[j])))!=0;
}
static int tryFieldsShareArray(const DocIndex *pIdx, int k, int j){
  return tryFieldsShareArrayFrom(pIdx, k, j, 0);
}

/* Can field j of pIdx bound the keys? Not with a numeric component (see
** planPathHasNumber), nor when it shares an array with an earlier field
** (tryFieldsShareArray). */
static int tryFieldUsable(const DocIndex *pIdx, int j){
  int k;
  if( planPathHasNumber(pIdx->azPath[j]) ) return 0;
  for(k=0; k<j; k++){
    if( tryFieldsShareArray(pIdx, k, j) ) return 0;
  }
  return 1;
}

/* Do two interval sets hold the same intervals (their key bytes)? */
static int ivsSame(PlanCtx *pCtx, const IvSet *a, const IvSet *b){
  const u8 *z = pCtx->a.a;
  int i;
  if( a->bFull || b->bFull ) return a->bFull==b->bFull;
  if( a->n!=b->n ) return 0;
  for(i=0; i<a->n; i++){
    const PlanIv *x = &a->a[i], *y = &b->a[i];
    if( x->bPoint!=y->bPoint || x->nLo!=y->nLo || x->nHi!=y->nHi
     || memcmp(z+x->iLo, z+y->iLo, x->nLo)!=0
     || memcmp(z+x->iHi, z+y->iHi, x->nHi)!=0 ) return 0;
  }
  return 1;
}

/* Field j of a multikey index is not usable (tryFieldUsable) because it
** shares an array with earlier fields. MongoDB still compounds their bounds
** when one object-form $elemMatch on a path P above that array holds their
** conditions, and no array was met below P on their shared path: one
** element then satisfies every condition, and the index holds an entry
** made from that element's values. So: find such a condition c whose
** bounds for each of those earlier fields are the bounds already chosen
** (so the element's key lies in them), and give field j the bounds c alone
** gives it. 1 when found (*s set), else 0. */
static int tryElemMatchSet(PlanCtx *pCtx, const PlanConds *pConds, PlanTry *p,
                           int j, IvSet *s){
  const DocIndex *pIdx = p->pIdx;
  const char *zF = pIdx->azPath[j];
  int nF = (int)strlen(zF);
  int i, k;
  for(i=0; i<pConds->n && pCtx->rc==SQLITE_OK; i++){
    const PlanCond *c = &pConds->a[i];
    PlanConds one;
    int nPre, bOk = 1;
    if( c->eOp!=PC_ELEMOBJ || !planPathUnder(c->zPath, c->nPath, zF, nF) ) continue;
    nPre = docextPathComponents(c->zPath, c->nPath);
    one.a = (PlanCond*)c;
    one.n = one.nAlloc = 1;
    for(k=0; k<j && bOk; k++){
      const char *zE = pIdx->azPath[k];
      int nE = (int)strlen(zE);
      IvSet t;
      if( !tryFieldsShareArray(pIdx, k, j) ) continue;
      if( !planPathUnder(c->zPath, c->nPath, zE, nE) || pIdx->aDir[k]==0
       || docextDirIsGeo(pIdx->aDir[k]) || tryFieldsShareArrayFrom(pIdx, k, j, nPre) ){
        bOk = 0;
        break;
      }
      fieldSet(pCtx, &one, zE, nE, pIdx->aDir[k]<0, docextIndexMultikeyPath(pIdx, k), 0, &t);
      bOk = ivsSame(pCtx, &t, &p->aField[k]);
      ivsFree(&t);
    }
    if( !bOk ) continue;
    fieldSet(pCtx, &one, zF, nF, pIdx->aDir[j]<0, docextIndexMultikeyPath(pIdx, j), 0, s);
    if( !s->bFull ) return 1;
    ivsFree(s);
  }
  return 0;
}

/* Does set s (of a field, descending when bDesc) leave out null and
** undefined? Then a document without the field cannot match, and a
** sparse index, which lacks such documents, may answer. */
static int trySetExcludesMissing(PlanCtx *pCtx, const IvSet *s, int bDesc){
  return !s->bFull && !ivsHasClassKey(pCtx, s, bDesc, KC_NULL)
      && !ivsHasClassKey(pCtx, s, bDesc, KC_UNDEFINED);
}

/* A sparse index lacks documents without its fields: it may answer when
** field zF's conditions (bDesc and mk as for fieldSet) exclude null. */
static void tryLearnSparse(PlanCtx *pCtx, const PlanConds *pConds, const char *zF,
                           int nF, int bDesc, u64 mk, PlanTry *p){
  IvSet t;
  fieldSet(pCtx, pConds, zF, nF, bDesc, mk, 0, &t);
  if( trySetExcludesMissing(pCtx, &t, bDesc) ) p->bSparseOk = 1;
  ivsFree(&t);
}

/* The sets of the index's fields (p->aField), and which conditions they
** answer exactly: aExact[k] = j+2 for condition k answered by field j (the
** caller later keeps only the fields that made it into the bounds). */
static void tryFieldSets(PlanCtx *pCtx, const PlanConds *pConds, u8 *aExact, PlanTry *p){
  const DocIndex *pIdx = p->pIdx;
  int j, k, bStop = 0;
  for(j=0; j<pIdx->nField && pCtx->rc==SQLITE_OK; j++){
    const char *zF = pIdx->azPath[j];
    int nF = (int)strlen(zF);
    int bDesc = pIdx->aDir[j]<0;
    int bUsable = tryFieldUsable(pIdx, j);
    u64 mk = docextIndexMultikeyPath(pIdx, j);
    IvSet *s = &p->aField[j];
    if( !bUsable && !bStop && pIdx->aDir[j]!=0 && !docextDirIsGeo(pIdx->aDir[j])
     && !planPathHasNumber(zF)
     && tryElemMatchSet(pCtx, pConds, p, j, s) ){
      /* bounds from one $elemMatch, never exact (the filter checks it) */
      if( trySetExcludesMissing(pCtx, s, bDesc) ) p->bSparseOk = 1;
      else tryLearnSparse(pCtx, pConds, zF, nF, bDesc, mk, p);
      if( !ivsAllPoints(s) ) bStop = 1;
      continue;
    }
    if( !bUsable || bStop ){
      memset(s, 0, sizeof(*s));
      s->bFull = 1;
      if( !bUsable ){
        bStop = 1;
      }else{
        /* not in the bounds, but a sparse index may still learn from it */
        tryLearnSparse(pCtx, pConds, zF, nF, bDesc, mk, p);
      }
      continue;
    }
    if( pIdx->aDir[j]==DOCEXT_DIR_TEXT ){
      textSet(pCtx, pIdx, j, pConds, aExact, s);
    }else if( pIdx->pText && j>0 && pIdx->aDir[j-1]==DOCEXT_DIR_TEXT ){
      s->bFull = 1;                     /* (_ftsx: the scores) */
    }else if( docextDirIsGeo(pIdx->aDir[j]) ){
      geoSet(pCtx, pIdx, j, pConds, s);
    }else if( pIdx->aDir[j]==0 ){
      hashedSet(pCtx, pIdx, pConds, zF, nF, s);
      /* hashes hide null: ask the values whether they exclude it */
      tryLearnSparse(pCtx, pConds, zF, nF, 0, mk, p);
    }else{
      u8 *aTmp = planAlloc(pCtx, pConds->n+1);
      if( aTmp==0 ) return;
      memset(aTmp, 0, pConds->n+1);
      fieldSet(pCtx, pConds, zF, nF, bDesc, mk, aTmp, s);
      if( !s->bFull ){
        for(k=0; k<pConds->n; k++) if( aTmp[k] ) aExact[k] = (u8)(j+2);
      }
      if( trySetExcludesMissing(pCtx, s, bDesc) ) p->bSparseOk = 1;
    }
    /* the bounds end at the first field that is not all points */
    if( s->bFull || !ivsAllPoints(s) ) bStop = 1;
  }
}

/* $exists on a field of the index: what the index knows of it. */
static void tryExists(const PlanConds *pConds, u8 *aExact, PlanTry *p){
  const DocIndex *pIdx = p->pIdx;
  int j, k;
  for(k=0; k<pConds->n; k++){
    if( pConds->a[k].eOp!=PC_EXISTS ) continue;
    for(j=0; j<pIdx->nField; j++){
      const char *zF = pIdx->azPath[j];
      /* "a.0.b": the matcher also reads field "0" of every element, the
      ** key only element 0, so a sparse index may lack a match */
      if( planPathHasNumber(zF) ) continue;
      if( planPathIs(pConds->a[k].zPath, pConds->a[k].nPath, zF, (int)strlen(zF)) ){
        p->bSparseOk = 1;
        if( pIdx->bSparse ){
          p->bExists = 1;
          /* a single-field sparse index holds exactly the documents that
          ** have a plain (undotted) field: $exists is answered */
          if( pIdx->nField==1 && strchr(zF, '.')==0 ) aExact[k] = 1;
        }
      }
    }
  }
}

/* Key prefixes from the leading fields that are all points: every
** combination of their points (at most PLAN_MAX_PREFIX), as (offset, size)
** pairs of arena bytes in *paPre, *pnPrefix of them; p->nPointField counts
** the fields spent. One empty prefix when there are none. */
static void tryPrefixes(PlanCtx *pCtx, PlanTry *p, int **paPre, int *pnPrefix){
  int *aPre, nPrefix = 1, j;
  aPre = planAlloc(pCtx, sizeof(int)*2);
  if( aPre==0 ) return;
  aPre[0] = (int)pCtx->a.n;
  aPre[1] = 0;
  for(j=0; j<p->pIdx->nField; j++){
    IvSet *s = &p->aField[j];
    int *aPreNew, iP, iV, n = 0;
    if( s->bFull || !ivsAllPoints(s) ) break;
    if( (i64)nPrefix * s->n > PLAN_MAX_PREFIX ) break;
    aPreNew = planAlloc(pCtx, sizeof(int)*2*((i64)nPrefix*s->n + 1));
    if( aPreNew==0 ) break;
    for(iP=0; iP<nPrefix; iP++){
      for(iV=0; iV<s->n; iV++){
        int iNew = (int)pCtx->a.n;
        arenaRepeat(pCtx, aPre[2*iP], aPre[2*iP+1]);
        if( pCtx->rc ) break;
        arenaRepeat(pCtx, s->a[iV].iLo, s->a[iV].nLo);
        aPreNew[2*n] = iNew;
        aPreNew[2*n+1] = (int)pCtx->a.n - iNew;
        n++;
      }
    }
    aPre = aPreNew;
    nPrefix = n;
    p->nPointField++;
    if( pCtx->rc ) break;
  }
  *paPre = aPre;
  *pnPrefix = nPrefix;
}

/* The key ranges (p->ranges): each prefix alone, or followed by each
** interval of the field after the point fields when that field bounds the
** keys too (p->bRangeField). */
static void tryRanges(PlanCtx *pCtx, PlanTry *p, const int *aPre, int nPrefix){
  int j = p->nPointField, k;
  p->bRangeField = j<p->pIdx->nField && !p->aField[j].bFull
                && (i64)nPrefix * p->aField[j].n <= PLAN_MAX_RANGES;
  p->bBounded = p->nPointField>0 || p->bRangeField;
  for(k=0; k<nPrefix && pCtx->rc==SQLITE_OK; k++){
    if( p->bRangeField ){
      int iV;
      for(iV=0; iV<p->aField[j].n; iV++){
        rangeAdd(pCtx, &p->ranges, aPre[2*k], aPre[2*k+1], &p->aField[j].a[iV]);
      }
    }else if( aPre[2*k+1]==0 ){
      /* no bounds at all: every key */
      static const u8 aTop[1] = {0xFF};
      PlanIv *pIv = ivsAppend(pCtx, &p->ranges);
      if( pIv ){
        memset(pIv, 0, sizeof(*pIv));
        pIv->iLo = (int)pCtx->a.n; pIv->nLo = 0;
        pIv->iHi = arenaBytes(pCtx, aTop, 1); pIv->nHi = 1;
      }
    }else{
      rangeAdd(pCtx, &p->ranges, aPre[2*k], aPre[2*k+1], 0);
    }
  }
  ivsNormalize(pCtx, &p->ranges);
}

/* Does every document meet the try's bounds at most once? A document has
** one entry per distinct key, and one value in each field that never held
** an array: so yes when each field that did is bound to a single value,
** while two values, a range or no bounds there could meet it twice. */
static int tryMeetsOnce(const PlanTry *p){
  const DocIndex *pIdx = p->pIdx;
  int j;
  for(j=0; j<pIdx->nField; j++){
    if( docextIndexMultikeyPath(pIdx, j)==0 ) continue;
    if( j>=p->nPointField || p->aField[j].n!=1 ) return 0;
  }
  return 1;
}

/* Exact: every condition answered by a field inside the bounds. */
static void tryExactness(const PlanConds *pConds, const u8 *aExact, PlanTry *p){
  const DocIndex *pIdx = p->pIdx;
  int j = p->nPointField, k;
  p->bOnce = tryMeetsOnce(p);
  p->bExact = !pIdx->bHashed && (p->bBounded || p->bExists);
  for(k=0; k<pConds->n && p->bExact; k++){
    int jf = aExact[k] - 2;
    if( aExact[k]==1 ) continue;            /* answered by sparseness */
    if( aExact[k]==0 || jf>j || (jf==j && !p->bRangeField) ) p->bExact = 0;
  }
  /* A text index holds one entry per term of a document, but terms cut to
  ** the key's length may share one: only its exact plans meet a document
  ** once per term. */
  if( pIdx->pText && !p->bExact ) p->bOnce = 0;
}

/* Build the try for index iIdx over conditions pConds. aExact: scratch,
** one byte per condition. */
static void tryBuild(PlanCtx *pCtx, const DocIndex *aIdx, int iIdx,
                     const PlanConds *pConds, u8 *aExact,
                     const PlanSortField *aSort, int nSort, PlanTry *p){
  int *aPre = 0, nPrefix = 0;
  memset(p, 0, sizeof(*p));
  p->iIdx = iIdx;
  p->pIdx = &aIdx[iIdx];
  p->aField = planAlloc(pCtx, sizeof(IvSet)*p->pIdx->nField);
  if( p->aField==0 ) return;
  memset(p->aField, 0, sizeof(IvSet)*p->pIdx->nField);
  memset(aExact, 0, pConds->n);
  pCtx->pKeyColl = p->pIdx->pCollator;
  pCtx->bCollMismatch = !docextCollatorSame(p->pIdx->pCollator, pCtx->pQueryColl);

  tryFieldSets(pCtx, pConds, aExact, p);
  tryExists(pConds, aExact, p);
  if( pCtx->rc ) return;
  tryPrefixes(pCtx, p, &aPre, &nPrefix);
  if( pCtx->rc ) return;
  tryRanges(pCtx, p, aPre, nPrefix);
  tryExactness(pConds, aExact, p);
  trySort(p, aSort, nSort);
  if( pCtx->bCollMismatch ) p->bSorted = 0;     /* (strings in another order) */
}

/* Estimate the entries in the try's ranges and its cost. nWant: rows the
** query needs when the try yields the sort's order (-1: all). */
static void tryCost(PlanCtx *pCtx, DocColl *pColl, PlanTry *p, int bSortWanted, i64 nWant){
  const DocIndex *pIdx = p->pIdx;
  int i, nProbe = p->ranges.n<PLAN_PROBE_RANGES ? p->ranges.n : PLAN_PROBE_RANGES;
  double n = 0.0;
  if( p->bCosted ) return;
  p->bCosted = 1;
  if( pColl==0 || (pIdx->bUnique && p->nPointField==pIdx->nField) ){
    n = p->ranges.n;                    /* one document per key (or no
                                        ** collection to probe: a shard key) */
  }else{
    for(i=0; i<nProbe && pCtx->rc==SQLITE_OK; i++){
      const PlanIv *pIv = &p->ranges.a[i];
      i64 nCount = 0;
      pCtx->rc = docextStorageCountRange(docextCollStore(pColl), pIdx->iId,
                                         &pCtx->a.a[pIv->iLo], pIv->nLo,
                                         &pCtx->a.a[pIv->iHi], pIv->nHi,
                                         PLAN_PROBE_MAX, &nCount);
      n += (double)nCount;
    }
    if( nProbe<p->ranges.n ) n = n * p->ranges.n / nProbe;
  }
  p->nEst = n;
  p->cost = n + 0.5*p->ranges.n;
  if( bSortWanted && !p->bSorted ) p->cost += n*0.2 + 1;
  if( p->bSorted && nWant>=0 ){
    double nRead = (double)nWant * (p->bExact ? 1.0 : 2.0);
    if( nRead<p->cost ) p->cost = nRead;
  }
}

/* Is try a better than try b? */
static int tryBetter(const PlanTry *a, const PlanTry *b){
  if( a->cost < b->cost*0.999 ) return 1;
  if( b->cost < a->cost*0.999 ) return 0;
  if( a->bSorted!=b->bSorted ) return a->bSorted;
  if( a->bExact!=b->bExact ) return a->bExact;
  if( a->nPointField+a->bRangeField != b->nPointField+b->bRangeField ){
    return a->nPointField+a->bRangeField > b->nPointField+b->bRangeField;
  }
  return 0;
}

/*------------------------------------------------------------------------
** Partial indexes: does the query imply the filter?
*/

/* Does query condition q imply partial-filter condition c (same path)?
** Each holds of some value at the path; a value that satisfies q
** satisfies c. Strings compare under pColl, the index's collation (the
** query's too: an index of another one is never asked). */
static int condImplies(const PlanCond *q, const PlanCond *c, const DocCollator *pColl){
  int cmp;
  if( q->eOp==c->eOp && q->v.type==c->v.type && q->v.n==c->v.n
   && (q->v.n==0 || memcmp(q->v.p, c->v.p, q->v.n)==0)
   && q->eOp!=PC_OTHER && q->eOp!=PC_REGEX && q->eOp!=PC_OR ){
    return 1;
  }
  if( c->eOp==PC_EXISTS ){
    switch( q->eOp ){
      case PC_EQ:
        return q->v.type!=DOC_NULL && q->v.type!=DOC_ARRAY;
      case PC_GT: case PC_GTE: case PC_LT: case PC_LTE:
        return q->v.type!=DOC_NULL && q->v.type!=DOC_MINKEY && q->v.type!=DOC_MAXKEY
            && q->v.type!=DOC_ARRAY;
      case PC_REGEX: case PC_EXISTS:
        return 1;
    }
    return 0;
  }
  if( c->eOp<PC_EQ || c->eOp>PC_LTE ) return 0;
  if( q->eOp<PC_EQ || q->eOp>PC_LTE ) return 0;
  if( q->v.type==DOC_NULL || q->v.type==DOC_ARRAY || q->v.type==DOC_MINKEY
   || q->v.type==DOC_MAXKEY || c->v.type==DOC_NULL || c->v.type==DOC_ARRAY
   || c->v.type==DOC_MINKEY || c->v.type==DOC_MAXKEY ) return 0;
  if( docextValueIsNaN(&q->v) || docextValueIsNaN(&c->v) ) return 0;
  if( docextTypeClass(q->v.type)!=docextTypeClass(c->v.type) ) return 0;
  cmp = docextValueCompareColl(&q->v, &c->v, pColl);     /* q's operand vs c's */
  switch( c->eOp ){
    case PC_EQ:  return q->eOp==PC_EQ && cmp==0;
    case PC_GT:  return (q->eOp==PC_EQ || q->eOp==PC_GTE) ? cmp>0
                      : q->eOp==PC_GT ? cmp>=0 : 0;
    case PC_GTE: return (q->eOp==PC_EQ || q->eOp==PC_GTE || q->eOp==PC_GT) ? cmp>=0 : 0;
    case PC_LT:  return (q->eOp==PC_EQ || q->eOp==PC_LTE) ? cmp<0
                      : q->eOp==PC_LT ? cmp<=0 : 0;
    default:     return (q->eOp==PC_EQ || q->eOp==PC_LTE || q->eOp==PC_LT) ? cmp<=0 : 0;
  }
}

static int partialImplied(PlanCtx *pCtx, const DocIndex *pIdx, const PlanConds *pConds){
  PlanConds pc;
  int i, k, bOk = 1;
  memset(&pc, 0, sizeof(pc));
  flattenFilter(pCtx, &pc, pIdx->aPartial);
  for(i=0; i<pc.n && bOk && pCtx->rc==SQLITE_OK; i++){
    const PlanCond *c = &pc.a[i];
    int bFound = 0;
    for(k=0; k<pConds->n && !bFound; k++){
      const PlanCond *q = &pConds->a[k];
      if( planPathIs(q->zPath, q->nPath, c->zPath, c->nPath) && c->nPath>0 ){
        bFound = condImplies(q, c, pIdx->pCollator);
      }
    }
    if( !bFound ) bOk = 0;
  }
  condsFree(&pc);
  return bOk;
}

/* Could index pIdx be a candidate at all: a condition on its first field
** (or inside an $elemMatch above it), a sort it might give under a limit,
** or $exists on one of its fields? Saves building tries for the indexes a
** filter does not mention. */
static int tryWorthBuilding(const DocIndex *pIdx, const PlanConds *pConds, int nSort,
                            i64 nWant){
  const char *z0 = pIdx->azPath[0];
  int n0 = (int)strlen(z0), k, j;
  if( pIdx->pText ) return textAsked(pConds);
  if( nSort>0 && nWant>=0 ) return 1;
  for(k=0; k<pConds->n; k++){
    const PlanCond *c = &pConds->a[k];
    if( planPathIs(c->zPath, c->nPath, z0, n0) ) return 1;
    if( c->eOp==PC_ELEMOBJ && planPathUnder(c->zPath, c->nPath, z0, n0) ) return 1;
    if( c->eOp==PC_EXISTS ){
      for(j=0; j<pIdx->nField; j++){
        const char *zF = pIdx->azPath[j];
        if( planPathIs(c->zPath, c->nPath, zF, (int)strlen(zF)) ) return 1;
      }
    }
  }
  return 0;
}

/* Best try for a conjunction among the indexes (iOnly >= 0: that index
** only, as a hint). Returns 1 and fills *pBest if there is one. Tries are
** costed (probing the index, docextStorageCountRange) only when there is a
** choice to make: a lone candidate wins uncosted, which keeps a point
** lookup's planning to a few microseconds. */
static int chooseIndex(PlanCtx *pCtx, DocColl *pColl, const DocIndex *aIdx, int nIdx,
                       const PlanConds *pConds, const PlanSortField *aSort, int nSort,
                       int iOnly, const char *zPrefer, i64 nWant, PlanTry *pBest){
  u8 *aExact = planAlloc(pCtx, pConds->n + 1);
  PlanTry *aTry = planAlloc(pCtx, sizeof(PlanTry)*(nIdx+1));
  int i, nTry = 0, iBest = -1, bPreferred = 0;
  if( aExact==0 || aTry==0 ) return 0;
  for(i=0; i<nIdx && pCtx->rc==SQLITE_OK; i++){
    PlanTry *t = &aTry[nTry];
    if( iOnly>=0 && i!=iOnly ) continue;
    if( iOnly<0 && !tryWorthBuilding(&aIdx[i], pConds, nSort, nWant) ) continue;
    tryBuild(pCtx, aIdx, i, pConds, aExact, aSort, nSort, t);
    if( pCtx->rc ){ tryFree(t); break; }
    if( iOnly<0 ){
      int bOk = t->bBounded || (t->bSorted && nWant>=0) || t->bExists;
      if( bOk && aIdx[i].bSparse && !t->bSparseOk ) bOk = 0;
      if( bOk && aIdx[i].eGeo && !geoAsked(&aIdx[i], pConds) ) bOk = 0;
      if( bOk && aIdx[i].pText && !textAsked(pConds) ) bOk = 0;
      /* (a partial filter holds under the index's collation) */
      if( bOk && aIdx[i].aPartial
       && (!docextCollatorSame(aIdx[i].pCollator, pCtx->pQueryColl)
           || !partialImplied(pCtx, &aIdx[i], pConds)) ) bOk = 0;
      if( !bOk ){ tryFree(t); continue; }
    }
    nTry++;
  }
  for(i=0; i<nTry && pCtx->rc==SQLITE_OK; i++){
    PlanTry *t = &aTry[i];
    int bPrefer = zPrefer && strcmp(zPrefer, t->pIdx->zName)==0;
    if( nTry>1 ) tryCost(pCtx, pColl, t, nSort>0, nWant);
    if( iBest<0 || (!bPreferred && (bPrefer || tryBetter(t, &aTry[iBest]))) ){
      iBest = i;
      bPreferred = bPrefer;
    }
  }
  for(i=0; i<nTry; i++){
    if( i==iBest && pCtx->rc==SQLITE_OK ) *pBest = aTry[i];
    else tryFree(&aTry[i]);
  }
  return pCtx->rc==SQLITE_OK && iBest>=0;
}

/*------------------------------------------------------------------------
** Hints
*/

static int hintLookup(const DocIndex *aIdx, int nIdx, const char *zColl,
                      const DocValue *v, int *piIdx, int *pbDesc, char **pzErr){
  int i;
  *piIdx = -1;
  *pbDesc = 0;
  if( v->type==DOC_STRING ){
    int n;
    const char *z = docextValueStr(v, &n);
    for(i=0; i<nIdx; i++){
      if( (int)strlen(aIdx[i].zName)==n && memcmp(aIdx[i].zName, z, n)==0 ){
        *piIdx = i;
        return SQLITE_OK;
      }
    }
    return docextError(pzErr, "docext: hint: no index named '%.*s' on %s", n, z, zColl);
  }
  if( v->type==DOC_DOCUMENT ){
    DocIter it;
    docextIterInitValue(&it, v);
    if( docextIterNext(&it) && docextIterKeyIs(&it, "$natural") && docextValueIsNumber(&it.v) ){
      *pbDesc = docextValueToDouble(&it.v)<0;
      return SQLITE_OK;
    }
    for(i=0; i<nIdx; i++){
      int j = 0, bSame = 1;
      docextIterInitValue(&it, v);
      while( bSame && docextIterNext(&it) ){
        int iDir;
        if( j>=aIdx[i].nField || strcmp(it.zKey, aIdx[i].azPath[j])!=0 ){
          bSame = 0;
          break;
        }
        if( docextValueIsNumber(&it.v) ){
          double d = docextValueToDouble(&it.v);
          iDir = d>0 ? 1 : d<0 ? -1 : DOCEXT_DIR_NONE;
        }else if( it.v.type==DOC_STRING ){
          int nStr;
          const char *zStr = docextValueStr(&it.v, &nStr);
          iDir = docextIndexTypeDir(zStr, nStr);
        }else{
          iDir = DOCEXT_DIR_NONE;
        }
        if( iDir!=aIdx[i].aDir[j] ) bSame = 0;
        j++;
      }
      if( bSame && j==aIdx[i].nField ){
        if( *piIdx>=0 ){
          /* (one key pattern under two collations or partial filters) */
          return docextError(pzErr, "docext: hint matched multiple indexes, must hint by "
                             "index name: %s and %s", aIdx[*piIdx].zName, aIdx[i].zName);
        }
        *piIdx = i;
      }
    }
    if( *piIdx>=0 ) return SQLITE_OK;
    return docextError(pzErr, "docext: hint: no index with that key pattern on %s", zColl);
  }
  return docextError(pzErr, "docext: hint must be an index name or a key pattern");
}

int docextPlanResolveHint(DocColl *pColl, const DocValue *pHint, int *piIdx,
                          int *pbDesc, char **pzErr){
  DocIndex *aIdx = 0;
  int nIdx = 0;
  int rc = docextCollIndexes(pColl, &aIdx, &nIdx, pzErr);
  if( rc==SQLITE_OK ){
    rc = hintLookup(aIdx, nIdx, docextCollName(pColl), pHint, piIdx, pbDesc, pzErr);
  }
  return rc;
}

/*------------------------------------------------------------------------
** Building the plan
*/

void docextPlanFree(DocPlan *p){
  if( p ){
    int i;
    for(i=0; i<p->nScan; i++){
      sqlite3_free(p->aScan[i].aRange);
      sqlite3_free(p->aScan[i].zBounds);
      sqlite3_free(p->aScan[i].zMultikeyPaths);
    }
    if( p->aScan!=&p->one ) sqlite3_free(p->aScan);
    docextBufFree(&p->keys);
    sqlite3_free(p);
  }
}

/* The document in *pB as relaxed JSON text (explain's parts); frees *pB. */
static char *planJsonText(PlanCtx *pCtx, DocBuf *pB){
  DocBuf out;
  memset(&out, 0, sizeof(out));
  if( pCtx->rc==SQLITE_OK ) docextJsonWriteDoc(&pCtx->rc, &out, pB->a, DOCEXT_JSON_RELAXED);
  docextBufFree(pB);
  return docextBufDetachText(&pCtx->rc, &out);
}

/* Legacy indexBounds of a try: per field, its intervals as [lo, hi] pairs
** in index order; fields outside the bounds [MinKey, MaxKey]. */
static char *boundsJson(PlanCtx *pCtx, const PlanTry *t){
  const DocIndex *pIdx = t->pIdx;
  DocBuf b;
  i64 iDoc;
  int j;
  memset(&b, 0, sizeof(b));
  iDoc = docextBsonStartDoc(&pCtx->rc, &b);
  for(j=0; j<pIdx->nField && pCtx->rc==SQLITE_OK; j++){
    const char *zF = pIdx->azPath[j];
    i64 iArr = docextBsonStartChild(&pCtx->rc, &b, DOC_ARRAY, zF, (int)strlen(zF));
    int bIn = j<t->nPointField || (j==t->nPointField && t->bRangeField);
    char zKey[16];
    if( bIn ){
      int i;
      for(i=0; i<t->aField[j].n; i++){
        const PlanIv *pIv = &t->aField[j].a[i];
        DocValue v;
        i64 iPair;
        docextBsonArrayKey(zKey, i);
        iPair = docextBsonStartChild(&pCtx->rc, &b, DOC_ARRAY, zKey, (int)strlen(zKey));
        if( pCtx->rc ) break;
        dispGet(pCtx, pIv->iDLo, &v);
        docextBsonAppendValue(&pCtx->rc, &b, "0", 1, &v);
        dispGet(pCtx, pIv->iDHi, &v);
        docextBsonAppendValue(&pCtx->rc, &b, "1", 1, &v);
        docextBsonEndDoc(&pCtx->rc, &b, iPair);
      }
    }else{
      DocValue lo, hi;
      i64 iPair = docextBsonStartChild(&pCtx->rc, &b, DOC_ARRAY, "0", 1);
      memset(&lo, 0, sizeof(lo));
      memset(&hi, 0, sizeof(hi));
      lo.type = pIdx->aDir[j]<0 ? DOC_MAXKEY : DOC_MINKEY;
      hi.type = pIdx->aDir[j]<0 ? DOC_MINKEY : DOC_MAXKEY;
      lo.p = hi.p = (const u8*)"";
      docextBsonAppendValue(&pCtx->rc, &b, "0", 1, &lo);
      docextBsonAppendValue(&pCtx->rc, &b, "1", 1, &hi);
      docextBsonEndDoc(&pCtx->rc, &b, iPair);
    }
    docextBsonEndDoc(&pCtx->rc, &b, iArr);
  }
  docextBsonEndDoc(&pCtx->rc, &b, iDoc);
  return planJsonText(pCtx, &b);
}

/* Explain's multiKeyPaths of a multikey index, as MongoDB shows them: per
** field, the prefixes of its path where some document had an array
** ({"tags": ["tags"], "a.b": ["a"], "n": []}). */
static char *multikeyPathsJson(PlanCtx *pCtx, const DocIndex *pIdx){
  DocBuf b;
  i64 iDoc;
  int j;
  memset(&b, 0, sizeof(b));
  iDoc = docextBsonStartDoc(&pCtx->rc, &b);
  for(j=0; j<pIdx->nField && pCtx->rc==SQLITE_OK; j++){
    const char *zF = pIdx->azPath[j];
    u64 mk = docextIndexMultikeyPath(pIdx, j);
    i64 iArr = docextBsonStartChild(&pCtx->rc, &b, DOC_ARRAY, zF, (int)strlen(zF));
    int c = 0, n = 0, nElem = 0;
    for(;;){
      n += planFirstComponent(zF+n);
      /* bit 63 stands for component 63 and every one after it */
      if( (mk>>(c<63 ? c : 63)) & 1 ){
        char zKey[16];
        docextBsonArrayKey(zKey, nElem++);
        docextBsonAppendString(&pCtx->rc, &b, DOC_STRING, zKey, (int)strlen(zKey), zF, n);
      }
      if( zF[n]==0 ) break;
      n++;
      c++;
    }
    docextBsonEndDoc(&pCtx->rc, &b, iArr);
  }
  docextBsonEndDoc(&pCtx->rc, &b, iDoc);
  return planJsonText(pCtx, &b);
}

/* Fill scan pScan of pPlan from try t. */
static void scanFromTry(PlanCtx *pCtx, DocPlan *pPlan, DocPlanScan *pScan,
                        const PlanTry *t, int bUseSort){
  int i;
  pScan->iIx = t->pIdx->iId;
  i64 nRangeBytes = sizeof(int)*4*(t->ranges.n+1);
  i64 nName = (i64)strlen(t->pIdx->zName) + 1;
  pScan->bMultikey = t->pIdx->bMultikey;
  pScan->bDesc = bUseSort && t->bSorted && t->bDesc;
  pScan->nEst = t->bCosted ? t->nEst : -1.0;
  /* the ranges and the index name: one allocation */
  pScan->aRange = sqlite3_malloc64(nRangeBytes + nName);
  if( pScan->aRange==0 ){ pCtx->rc = SQLITE_NOMEM; return; }
  pScan->zIndex = (char*)pScan->aRange + nRangeBytes;
  memcpy(pScan->zIndex, t->pIdx->zName, nName);
  for(i=0; i<t->ranges.n; i++){
    const PlanIv *pIv = &t->ranges.a[i];
    pScan->aRange[4*i] = (int)pPlan->keys.n;
    pScan->aRange[4*i+1] = pIv->nLo;
    docextBufAppend(&pCtx->rc, &pPlan->keys, &pCtx->a.a[pIv->iLo], pIv->nLo);
    pScan->aRange[4*i+2] = (int)pPlan->keys.n;
    pScan->aRange[4*i+3] = pIv->nHi;
    docextBufAppend(&pCtx->rc, &pPlan->keys, &pCtx->a.a[pIv->iHi], pIv->nHi);
  }
  pScan->nRange = t->ranges.n;
  if( pCtx->bBounds ) pScan->zBounds = boundsJson(pCtx, t);
  if( pCtx->bBounds && t->pIdx->bMultikey ){
    pScan->zMultikeyPaths = multikeyPathsJson(pCtx, t->pIdx);
  }
}

/* Parse a sort document into fields (at most nMax). */
static int planSortFields(const u8 *aSort, PlanSortField *a, int nMax){
  DocIter it;
  int n = 0;
  if( aSort==0 ) return 0;
  docextIterInit(&it, aSort);
  while( n<nMax && docextIterNext(&it) ){
    a[n].zPath = it.zKey;
    a[n].nPath = it.nKey;
    a[n].iDir = 0;
    if( docextValueIsNumber(&it.v) ){
      double d = docextValueToDouble(&it.v);
      a[n].iDir = d>0 ? 1 : d<0 ? -1 : 0;
    }
    n++;
  }
  return n;
}

/* The branches of the $or condition pConds->a[iOr], each with the other
** conditions ANDed to it, and the index that answers it: their tries in
** *paBranch (scratch memory), *pnBranch of them, their costs summed in
** *pCost. 0 as soon as a branch has no index (the tries made so far are
** left for the caller to free). */
static int orBranches(PlanCtx *pCtx, DocColl *pColl, const DocIndex *aIdx, int nIdx,
                      const PlanConds *pConds, int iOr, PlanTry **paBranch, int *pnBranch,
                      double *pCost){
  const PlanCond *pOr = &pConds->a[iOr];
  PlanTry *aBranch;
  DocIter it;
  int nArr = 0, bAll = 1;
  docextIterInitValue(&it, &pOr->v);
  while( docextIterNext(&it) ) nArr++;
  aBranch = *paBranch = planAlloc(pCtx, sizeof(PlanTry)*(nArr+1));
  if( aBranch==0 ) return 0;
  docextIterInitValue(&it, &pOr->v);
  while( bAll && pCtx->rc==SQLITE_OK && docextIterNext(&it) ){
    PlanConds sub;
    int k;
    memset(&sub, 0, sizeof(sub));
    for(k=0; k<pConds->n; k++){
      if( k!=iOr ) condAdd(pCtx, &sub, pConds->a[k].zPath, pConds->a[k].nPath,
                           pConds->a[k].eOp, &pConds->a[k].v);
      if( k!=iOr && pCtx->rc==SQLITE_OK ) sub.a[sub.n-1] = pConds->a[k];
    }
    if( it.v.type==DOC_DOCUMENT ){
      flattenFilter(pCtx, &sub, it.v.p);
      if( pCtx->rc==SQLITE_OK
       && chooseIndex(pCtx, pColl, aIdx, nIdx, &sub, 0, 0, -1, 0, -1, &aBranch[*pnBranch]) ){
        tryCost(pCtx, pColl, &aBranch[*pnBranch], 0, -1);
        *pCost += aBranch[*pnBranch].cost;
        (*pnBranch)++;
      }else{
        bAll = 0;
      }
    }else{
      bAll = 0;
    }
    condsFree(&sub);
  }
  return bAll;
}

/* Fill pPlan from the chosen try pBest, or else from the union of the
** $or branches aBranch[]. */
static void planFromTries(PlanCtx *pCtx, DocPlan *pPlan, PlanTry *pBest,
                          PlanTry *aBranch, int nBranch, int bSort){
  int nScan = pBest ? 1 : nBranch, i;
  pPlan->aScan = nScan==1 ? &pPlan->one : docextMallocZero(sizeof(DocPlanScan)*nScan);
  if( pPlan->aScan==0 ){
    pCtx->rc = SQLITE_NOMEM;
    return;
  }
  pPlan->nScan = nScan;
  if( pBest ){
    pPlan->ePlan = DOCEXT_PLAN_INDEX;
    scanFromTry(pCtx, pPlan, &pPlan->aScan[0], pBest, bSort);
    pPlan->bDedup = pBest->pIdx->bMultikey && !pBest->bOnce;
    pPlan->bSorted = bSort && pBest->bSorted;
    pPlan->bExact = pBest->bExact;
    pPlan->nEst = pBest->bCosted ? pBest->nEst : -1.0;
  }else{
    pPlan->ePlan = DOCEXT_PLAN_UNION;
    pPlan->bDedup = 1;
    pPlan->bExact = 1;
    for(i=0; i<nBranch; i++){
      scanFromTry(pCtx, pPlan, &pPlan->aScan[i], &aBranch[i], 0);
      if( !aBranch[i].bExact ) pPlan->bExact = 0;
      pPlan->nEst += aBranch[i].nEst;
    }
  }
}

/* A planning's first memory, on its caller's stack: most plans' bytes fit
** there (allocations are a large share of a point lookup). */
typedef struct PlanStack PlanStack;
struct PlanStack {
  u8 aArena[1024];
  u8 aDisp[512];
  u64 aScratch[512];        /* (u64: 8-byte aligned) */
};

static void planStart(PlanCtx *pCtx, PlanStack *pStack, PlanConds *pConds, PlanTry *pBest){
  memset(pCtx, 0, sizeof(*pCtx));
  memset(pConds, 0, sizeof(*pConds));
  memset(pBest, 0, sizeof(*pBest));
  docextBufInit(&pCtx->a, pStack->aArena, sizeof(pStack->aArena));
  docextBufInit(&pCtx->disp, pStack->aDisp, sizeof(pStack->aDisp));
  planScratchInit(pCtx, (u8*)pStack->aScratch, sizeof(pStack->aScratch));
}

/* The end of a planning: pPlan from the chosen try pBest or the union of
** the branches (when either bounds the keys), then every temporary freed;
** *ppPlan gets pPlan, or pPlan is freed and the error returned. */
static int planFinish(PlanCtx *pCtx, PlanConds *pConds, DocPlan *pPlan, PlanTry *pBest,
                      PlanTry *aBranch, int nBranch, int bSort, DocPlan **ppPlan,
                      char **pzErr){
  int i;
  if( pCtx->rc==SQLITE_OK && (pBest || nBranch>0) ){
    planFromTries(pCtx, pPlan, pBest, aBranch, nBranch, bSort);
  }
  if( pBest ) tryFree(pBest);
  for(i=0; i<nBranch; i++) tryFree(&aBranch[i]);
  condsFree(pConds);
  docextBufFree(&pCtx->a);
  docextBufFree(&pCtx->disp);
  planScratchEnd(pCtx);
  if( pCtx->rc!=SQLITE_OK ){
    docextPlanFree(pPlan);
    if( pCtx->zErr ) *pzErr = pCtx->zErr;
    return pCtx->rc;
  }
  *ppPlan = pPlan;
  return SQLITE_OK;
}

int docextPlanNew(DocColl *pColl, const u8 *const *aaFilter, int nFilter,
                  const u8 *aSort, const DocValue *pHint, const DocCollator *pCollator,
                  const char *zPrefer, i64 nWant, int bBounds, DocPlan **ppPlan,
                  char **pzErr){
  DocPlan *pPlan;
  PlanCtx ctx;
  PlanConds conds;
  DocIndex *aIdx = 0;
  PlanSortField aSortF[32];
  PlanTry best, *aBranch = 0;
  PlanStack stack;
  int nIdx = 0, nSort, iHint = -1, bNatDesc = 0, bBest = 0, nBranch = 0, i, rc;

  *ppPlan = 0;
  pPlan = docextMallocZero(sizeof(*pPlan));
  if( pPlan==0 ) return SQLITE_NOMEM;
  planStart(&ctx, &stack, &conds, &best);
  ctx.bBounds = bBounds;
  ctx.pQueryColl = pCollator;

  rc = docextCollIndexes(pColl, &aIdx, &nIdx, pzErr);
  if( rc==SQLITE_OK && pHint ){
    rc = hintLookup(aIdx, nIdx, docextCollName(pColl), pHint, &iHint, &bNatDesc, pzErr);
    if( rc==SQLITE_OK && iHint<0 ){
      pPlan->bNaturalDesc = bNatDesc;
      *ppPlan = pPlan;
      return SQLITE_OK;
    }
  }
  if( rc!=SQLITE_OK ){
    docextPlanFree(pPlan);
    return rc;
  }
  nSort = planSortFields(aSort, aSortF, DOCEXT_COUNT(aSortF));
  for(i=0; i<nFilter && ctx.rc==SQLITE_OK; i++) flattenFilter(&ctx, &conds, aaFilter[i]);

  if( ctx.rc==SQLITE_OK ){
    bBest = chooseIndex(&ctx, pColl, aIdx, nIdx, &conds, aSortF, nSort, iHint,
                        zPrefer, nWant, &best);
  }

  /* A union for the first top-level $or, when every branch has an index
  ** and together they cost less than the best single index. */
  for(i=0; iHint<0 && ctx.rc==SQLITE_OK && i<conds.n; i++){
    double cost = 0.0;
    int bAll, k;
    if( conds.a[i].eOp!=PC_OR ) continue;
    bAll = orBranches(&ctx, pColl, aIdx, nIdx, &conds, i, &aBranch, &nBranch, &cost);
    if( bBest && bAll ) tryCost(&ctx, pColl, &best, nSort>0, nWant);
    if( ctx.rc==SQLITE_OK && bAll && nBranch>0 && (!bBest || cost<best.cost) ){
      if( bBest ) tryFree(&best);
      bBest = 0;
    }else{
      for(k=0; k<nBranch; k++) tryFree(&aBranch[k]);
      aBranch = 0;
      nBranch = 0;
    }
    break;
  }
  return planFinish(&ctx, &conds, pPlan, bBest ? &best : 0, aBranch, nBranch,
                    nSort>0, ppPlan, pzErr);
}

int docextPlanKeyRanges(const DocIndex *pKey, const u8 *aFilter,
                        const DocCollator *pCollator, DocPlan **ppPlan, char **pzErr){
  DocPlan *pPlan;
  PlanCtx ctx;
  PlanConds conds;
  PlanTry best, *aBranch = 0;
  PlanStack stack;
  int bBest = 0, nBranch = 0, i;

  *ppPlan = 0;
  pPlan = docextMallocZero(sizeof(*pPlan));
  if( pPlan==0 ) return SQLITE_NOMEM;
  planStart(&ctx, &stack, &conds, &best);
  ctx.pQueryColl = pCollator;

  flattenFilter(&ctx, &conds, aFilter);
  if( ctx.rc==SQLITE_OK ){
    bBest = chooseIndex(&ctx, 0, pKey, 1, &conds, 0, 0, -1, 0, -1, &best);
  }
  /* Not bounded by the conjunction: by a top-level $or whose every branch
  ** bounds the key, the union of the branches' ranges. */
  for(i=0; !bBest && ctx.rc==SQLITE_OK && i<conds.n; i++){
    double cost = 0.0;
    int k;
    if( conds.a[i].eOp!=PC_OR ) continue;
    if( !orBranches(&ctx, 0, pKey, 1, &conds, i, &aBranch, &nBranch, &cost) ){
      for(k=0; k<nBranch; k++) tryFree(&aBranch[k]);
      nBranch = 0;
    }
    break;
  }
  return planFinish(&ctx, &conds, pPlan, bBest ? &best : 0, aBranch, nBranch, 0,
                    ppPlan, pzErr);
}

int docextPlanEstimate(DocColl *pColl, DocPlan *p){
  int i, j, rc = SQLITE_OK;
  if( p->ePlan==DOCEXT_PLAN_COLLSCAN || p->nEst>=0.0 ) return SQLITE_OK;
  p->nEst = 0.0;
  for(i=0; i<p->nScan && rc==SQLITE_OK; i++){
    DocPlanScan *pScan = &p->aScan[i];
    int nProbe = pScan->nRange<PLAN_PROBE_RANGES ? pScan->nRange : PLAN_PROBE_RANGES;
    double n = 0.0;
    for(j=0; j<nProbe && rc==SQLITE_OK; j++){
      const int *aR = &pScan->aRange[4*j];
      i64 nCount = 0;
      rc = docextStorageCountRange(docextCollStore(pColl), pScan->iIx,
                                   &p->keys.a[aR[0]], aR[1], &p->keys.a[aR[2]], aR[3],
                                   PLAN_PROBE_MAX, &nCount);
      n += (double)nCount;
    }
    if( nProbe>0 && nProbe<pScan->nRange ) n = n * pScan->nRange / nProbe;
    pScan->nEst = n;
    p->nEst += n;
  }
  return rc;
}

char *docextPlanLabel(const DocPlan *p){
  DocBuf b;
  int rc = SQLITE_OK, i;
  memset(&b, 0, sizeof(b));
  switch( p->ePlan ){
    case DOCEXT_PLAN_INDEX:
      docextBufAppendf(&rc, &b, "IXSCAN %s", p->aScan[0].zIndex);
      break;
    case DOCEXT_PLAN_UNION:
      docextBufAppendStr(&rc, &b, "OR(");
      for(i=0; i<p->nScan; i++){
        docextBufAppendf(&rc, &b, "%sIXSCAN %s", i ? ", " : "", p->aScan[i].zIndex);
      }
      docextBufAppendStr(&rc, &b, ")");
      break;
    default:
      docextBufAppendStr(&rc, &b, "COLLSCAN");
      break;
  }
  return docextBufDetachText(&rc, &b);
}

/*------------------------------------------------------------------------
** doc_explain(coll, filter [, projection, sort, options]) and
** doc_count(coll [, filter])
*/

double docextPlanNowMs(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1000.0 + ts.tv_nsec/1e6;
}

/* An options document without its "count" member (doc_explain's own);
** *pbCount gets its truth. Returns aOpt itself when it has none. */
static const u8 *optionsWithoutCount(int *pRc, const u8 *aOpt, DocBuf *pOut, int *pbCount){
  DocIter it;
  DocValue v;
  i64 iDoc;
  *pbCount = 0;
  if( aOpt==0 || !docextBsonFind(aOpt, "count", 5, &v) ) return aOpt;
  *pbCount = v.type==DOC_BOOL ? v.p[0]!=0 : docextValueIsNumber(&v) && docextValueToDouble(&v)!=0.0;
  iDoc = docextBsonStartDoc(pRc, pOut);
  docextIterInit(&it, aOpt);
  while( docextIterNext(&it) ){
    if( strcmp(it.zKey, "count")==0 ) continue;
    docextBsonAppendValue(pRc, pOut, it.zKey, it.nKey, &it.v);
  }
  docextBsonEndDoc(pRc, pOut, iDoc);
  return *pRc==SQLITE_OK ? pOut->a : 0;
}

/* The scan-level explain fields of one index scan. */
static void explainScan(int *pRc, DocBuf *p, const DocPlanScan *pScan){
  docextBufAppendStr(pRc, p, "\"cursor\":\"BtreeCursor ");
  {
    /* an index name is a user's string: escape it as JSON */
    DocBuf t;
    memset(&t, 0, sizeof(t));
    docextJsonWriteString(pRc, &t, pScan->zIndex, (int)strlen(pScan->zIndex));
    if( *pRc==SQLITE_OK && t.n>=2 ){
      docextBufAppend(pRc, p, t.a+1, t.n-2);         /* without the quotes */
      docextBufAppendStr(pRc, p, "\",\"indexName\":");
      docextBufAppend(pRc, p, t.a, t.n);
    }
    docextBufFree(&t);
  }
  docextBufAppendf(pRc, p, ",\"isMultiKey\":%s", pScan->bMultikey ? "true" : "false");
  if( pScan->zMultikeyPaths ){
    docextBufAppendf(pRc, p, ",\"multiKeyPaths\":%s", pScan->zMultikeyPaths);
  }
}

void docextPlanExplainWrite(int *pRc, DocBuf *pJson, const DocPlan *pPlan,
                            const DocQueryStats *pSt, i64 nMillis, const char *zHead,
                            const char *zTail){
  int ePlan = pPlan ? pPlan->ePlan : DOCEXT_PLAN_COLLSCAN;
  int i;
  docextBufAppendStr(pRc, pJson, "{");
  if( zHead ) docextBufAppendStr(pRc, pJson, zHead);
  if( ePlan==DOCEXT_PLAN_INDEX ){
    explainScan(pRc, pJson, &pPlan->aScan[0]);
  }else{
    int bMulti = 0;
    for(i=0; pPlan && i<pPlan->nScan; i++) bMulti |= pPlan->aScan[i].bMultikey;
    docextBufAppendf(pRc, pJson, "\"cursor\":\"%s\",\"indexName\":null,\"isMultiKey\":%s",
                     ePlan==DOCEXT_PLAN_UNION ? "QueryOptimizerCursor" : "BasicCursor",
                     bMulti ? "true" : "false");
  }
  docextBufAppendf(pRc, pJson, ",\"n\":%lld,\"nscanned\":%lld,\"nscannedObjects\":%lld"
                   ",\"scanAndOrder\":%s,\"indexOnly\":%s",
                   pSt->nReturned, pSt->nKeys, pSt->nDocs,
                   pSt->bSortInMemory ? "true" : "false", pSt->bIndexOnly ? "true" : "false");
  if( ePlan==DOCEXT_PLAN_INDEX ){
    docextBufAppendf(pRc, pJson, ",\"direction\":\"%s\",\"indexBounds\":%s",
                     pPlan->aScan[0].bDesc ? "backward" : "forward", pPlan->aScan[0].zBounds);
  }else{
    docextBufAppendStr(pRc, pJson, ",\"indexBounds\":{}");
  }
  if( ePlan==DOCEXT_PLAN_UNION ){
    docextBufAppendStr(pRc, pJson, ",\"clauses\":[");
    for(i=0; i<pPlan->nScan; i++){
      docextBufAppendStr(pRc, pJson, i ? ",{" : "{");
      explainScan(pRc, pJson, &pPlan->aScan[i]);
      docextBufAppendf(pRc, pJson, ",\"indexBounds\":%s}", pPlan->aScan[i].zBounds);
    }
    docextBufAppendStr(pRc, pJson, "]");
  }
  docextBufAppendf(pRc, pJson, ",\"millis\":%lld", nMillis);
  if( zTail ) docextBufAppendStr(pRc, pJson, zTail);
  docextBufAppendStr(pRc, pJson, "}");
}

int docextPlanRunQuery(DocColl *pColl, const DocQuerySpec *pSpec, int bRead,
                       DocPlanVisitor xDoc, void *pDocCtx,
                       i64 *pnCount, DocBuf *pJson, char **pzErr){
  DocQuery *pQuery = 0;
  DocAccess access;
  DocQueryStats st;
  DocStore *pStore = docextCollStore(pColl);
  double t0 = docextPlanNowMs();
  int rc, bSave = 0;
  docextAccessInit(&access);
  /* One snapshot for the whole run. Called outside a transaction, from a
  ** statement that reads no table, each statement the query runs (the
  ** index list, then each range of an $or) would otherwise see the
  ** database as it is at that moment, and a change another connection
  ** commits in between could be counted half. (BUSY: no savepoint inside
  ** a statement that writes, which holds the transaction anyway.) */
  rc = docextStorageSnapshot(pStore, &bSave);
  if( rc==SQLITE_OK ) rc = docextQueryNew(pColl, pSpec, &pQuery, pzErr);
  if( rc==SQLITE_OK ) rc = docextQueryStart(pQuery, &access, pzErr);
  while( rc==SQLITE_OK && !docextQueryEof(pQuery) ){
    if( bRead ){
      const u8 *aDoc;
      rc = docextQueryResult(pQuery, &aDoc, pzErr);
      if( rc==SQLITE_OK && xDoc ) rc = xDoc(pDocCtx, aDoc, pzErr);
      if( rc!=SQLITE_OK ) break;
    }
    rc = docextQueryNext(pQuery, pzErr);
  }
  if( rc==SQLITE_OK ){
    docextQueryStats(pQuery, &st);
    *pnCount = st.nReturned;
  }
  if( rc==SQLITE_OK && pJson ){
    /* a $text's terms and phrases, as MongoDB's explain shows them */
    DocBuf tail;
    memset(&tail, 0, sizeof(tail));
    if( docextQueryText(pQuery) ){
      docextTextExplain(docextQueryText(pQuery), &rc, &tail);
      docextBufAppendByte(&rc, &tail, 0);
    }
    if( rc==SQLITE_OK ){
      docextPlanExplainWrite(&rc, pJson, docextQueryPlan(pQuery), &st,
                             (i64)(docextPlanNowMs()-t0), 0, tail.n ? (const char*)tail.a : 0);
    }
    docextBufFree(&tail);
  }
  docextQueryFree(pQuery);
  docextAccessClear(&access);
  if( bSave ) rc = docextStorageSavepointEnd(pStore, rc);
  return rc;
}

int docextPlanRun(DocConn *pConn, DocColl *pColl, const DocQuerySpec *pSpec, int bRead,
                  DocPlanVisitor xDoc, void *pDocCtx, i64 *pnCount, DocBuf *pJson,
                  char **pzErr){
  DocRouter *pR = 0;
  int rc = docextRouterOpen(pConn, pColl, &pR, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  if( pR ) return docextRouterRun(pR, pSpec, bRead, xDoc, pDocCtx, pnCount, pJson, pzErr);
  return docextPlanRunQuery(pColl, pSpec, bRead, xDoc, pDocCtx, pnCount, pJson, pzErr);
}

/* The collection named by argument 0 (sharded or not: docextPlanRun
** reaches the shards). */
static int planArgColl(sqlite3_context *ctx, sqlite3_value *pArg, DocColl **ppColl){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  char *zErr = 0;
  int rc = docextCollFindArg(pConn, ctx, 0, pArg, ppColl, &zErr);
  if( rc!=SQLITE_OK ){
    if( zErr ){
      sqlite3_result_error(ctx, zErr, -1);
      sqlite3_free(zErr);
    }else{
      sqlite3_result_error_code(ctx, rc);
    }
  }
  return rc;
}

/* Argument i as a query document (NULL: none), named zWhat in errors. */
static int planArgDoc(sqlite3_context *ctx, int argc, sqlite3_value **argv, int i,
                  const char *zWhat, DocBuf *pBuf, const u8 **paDoc){
  char *zErr = 0;
  int rc;
  *paDoc = 0;
  if( i>=argc || sqlite3_value_type(argv[i])==SQLITE_NULL ) return SQLITE_OK;
  rc = docextArgToBson(argv[i], pBuf, paDoc, &zErr);
  if( rc!=SQLITE_OK ){
    if( zErr ){
      char *z = sqlite3_mprintf("docext: in %s: %s", zWhat,
                                strncmp(zErr, "docext: ", 8)==0 ? zErr+8 : zErr);
      sqlite3_result_error(ctx, z ? z : zErr, -1);
      sqlite3_free(z);
      sqlite3_free(zErr);
    }else{
      sqlite3_result_error_code(ctx, rc);
    }
  }
  return rc;
}

static void planExplainFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocColl *pColl;
  DocBuf aBuf[5], out;
  const u8 *aFilter, *aProj, *aSort, *aOpt;
  DocQuerySpec spec;
  char *zErr = 0;
  int rc, bCount = 0, i;
  i64 n = 0;
  if( planArgColl(ctx, argv[0], &pColl) ) return;
  memset(aBuf, 0, sizeof(aBuf));
  memset(&out, 0, sizeof(out));
  rc = planArgDoc(ctx, argc, argv, 1, "filter", &aBuf[0], &aFilter);
  if( rc==SQLITE_OK ) rc = planArgDoc(ctx, argc, argv, 2, "projection", &aBuf[1], &aProj);
  if( rc==SQLITE_OK ) rc = planArgDoc(ctx, argc, argv, 3, "sort", &aBuf[2], &aSort);
  if( rc==SQLITE_OK ) rc = planArgDoc(ctx, argc, argv, 4, "options", &aBuf[3], &aOpt);
  if( rc==SQLITE_OK ){
    docextQuerySpecInit(&spec);
    if( aFilter ){ spec.aaFilter[0] = aFilter; spec.nFilter = 1; }
    spec.aProjection = aProj;
    spec.aSort = aSort;
    spec.aOptions = optionsWithoutCount(&rc, aOpt, &aBuf[4], &bCount);
    spec.bCountOnly = bCount;
    spec.bExplain = 1;
    if( rc==SQLITE_OK ){
      rc = docextPlanRun((DocConn*)sqlite3_user_data(ctx), pColl, &spec, !bCount, 0, 0, &n,
                         &out, &zErr);
    }
    if( rc==SQLITE_OK ){
      docextBufResultText(ctx, &out);
    }else{
      docextResultError(ctx, rc, zErr);
    }
  }
  for(i=0; i<5; i++) docextBufFree(&aBuf[i]);
  docextBufFree(&out);
}

/* doc_count(coll [, filter [, options]]): options as a find's (hint, skip,
** limit, let, collation). */
static void planCountFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocColl *pColl;
  DocBuf buf, bufOpt;
  const u8 *aFilter, *aOpt = 0;
  DocQuerySpec spec;
  char *zErr = 0;
  int rc;
  i64 n = 0;
  if( planArgColl(ctx, argv[0], &pColl) ) return;
  memset(&buf, 0, sizeof(buf));
  memset(&bufOpt, 0, sizeof(bufOpt));
  rc = planArgDoc(ctx, argc, argv, 1, "filter", &buf, &aFilter);
  if( rc==SQLITE_OK ) rc = planArgDoc(ctx, argc, argv, 2, "options", &bufOpt, &aOpt);
  if( rc==SQLITE_OK ){
    docextQuerySpecInit(&spec);
    if( aFilter ){ spec.aaFilter[0] = aFilter; spec.nFilter = 1; }
    spec.aOptions = aOpt;
    spec.bCountOnly = 1;
    rc = docextPlanRun((DocConn*)sqlite3_user_data(ctx), pColl, &spec, 0, 0, 0, &n, 0, &zErr);
    if( rc==SQLITE_OK ){
      sqlite3_result_int64(ctx, n);
    }else{
      docextResultError(ctx, rc, zErr);
    }
  }
  docextBufFree(&buf);
  docextBufFree(&bufOpt);
}

/*------------------------------------------------------------------------
** doc_distinct(coll, field [, filter [, options]]): MongoDB's distinct. The
** values at a dotted path in the documents that match (read as an index
** key is: an array at the end of the path counts as its elements, so
** {tags: ["a", ["b"]]} gives "a" and ["b"]; a missing value gives none),
** each once (1, 1.0 and NumberLong(1) are one value: the first met), as
** a JSON array in BSON order, as mongod's reply holds them. Like that
** reply it is capped at 16 MiB. options: {hint: name or key pattern, let,
** collation} (under a collation, values it finds equal are one, and the
** order is its).
*/
/* The distinct values met so far, each with its index key (equal values,
** 1 and 1.0 included, have equal keys, and keys sort in BSON order), found
** again through a hash table on the key. */
typedef struct DistinctEntry DistinctEntry;
struct DistinctEntry {
  i64 iKey;                 /* in DistinctSet.keys */
  int nKey;
  i64 iVal;                 /* in DistinctSet.vals: type byte, then value */
  u64 h;                    /* docextHashBytes of the key */
};
typedef struct DistinctSet DistinctSet;
struct DistinctSet {
  const char *zPath;
  int nPath;
  DocBuf keys, vals;
  DistinctEntry *aEnt;      /* in the order met */
  int nEnt, nEntAlloc;
  int *aSlot;               /* hash table: 1 + index into aEnt, 0 empty */
  int nSlot;                /* a power of two, more than twice nEnt */
  i64 nBson;                /* the values' size as a BSON array */
  DocBuf key;               /* scratch: the key of the value at hand */
  DocCollator *pCollator;   /* the options' collation (values equal under it
                            ** are one), or NULL */
  int rc;
};

static void distinctFree(DistinctSet *p){
  docextBufFree(&p->keys);
  docextBufFree(&p->vals);
  docextBufFree(&p->key);
  sqlite3_free(p->aEnt);
  sqlite3_free(p->aSlot);
  docextCollatorFree(p->pCollator);
}

static void distinctValue(const DistinctSet *p, const DistinctEntry *pE, DocValue *pOut){
  const u8 *a = &p->vals.a[pE->iVal];
  pOut->type = a[0];
  pOut->p = a+1;
  pOut->n = docextBsonValueSize(a[0], a+1, (i64)p->vals.n - pE->iVal - 1);
}

/* Double the hash table (or make the first one). */
static int distinctGrow(DistinctSet *p){
  int nNew = p->nSlot ? 2*p->nSlot : 256, i;
  int *aNew = sqlite3_malloc64(sizeof(int)*(size_t)nNew);
  if( aNew==0 ) return SQLITE_NOMEM;
  memset(aNew, 0, sizeof(int)*(size_t)nNew);
  for(i=0; i<p->nEnt; i++){
    int j = (int)(p->aEnt[i].h & (u64)(nNew-1));
    while( aNew[j] ) j = (j+1) & (nNew-1);
    aNew[j] = i+1;
  }
  sqlite3_free(p->aSlot);
  p->aSlot = aNew;
  p->nSlot = nNew;
  return SQLITE_OK;
}

/* Add v unless an equal value is there already. The values kept, as a
** BSON array, may not pass 16 MiB (mongod's cap on its reply). */
static int distinctAdd(DistinctSet *p, const DocValue *v){
  DistinctEntry *pE;
  char zIdx[16];
  u64 h;
  int j, rc = SQLITE_OK;
  u8 t = (u8)v->type;
  docextBufReset(&p->key);
  docextKeyAppendColl(&rc, &p->key, v, 0, p->pCollator);
  if( rc!=SQLITE_OK ) return rc;
  h = docextHashBytes(p->key.a, p->key.n);
  if( 2*(p->nEnt+1)>p->nSlot && (rc = distinctGrow(p))!=SQLITE_OK ) return rc;
  for(j = (int)(h & (u64)(p->nSlot-1)); p->aSlot[j]; j = (j+1) & (p->nSlot-1)){
    pE = &p->aEnt[p->aSlot[j]-1];
    if( pE->h==h && pE->nKey==(int)p->key.n
     && memcmp(&p->keys.a[pE->iKey], p->key.a, p->key.n)==0 ){
      return SQLITE_OK;                     /* met before */
    }
  }
  p->nBson += 2 + docextBsonArrayKey(zIdx, p->nEnt) + v->n;
  if( p->nBson>DOCEXT_MAX_BSON ) return SQLITE_TOOBIG;
  if( p->nEnt>=p->nEntAlloc ){
    int nNew = p->nEntAlloc ? 2*p->nEntAlloc : 64;
    DistinctEntry *aNew = sqlite3_realloc64(p->aEnt, sizeof(DistinctEntry)*(size_t)nNew);
    if( aNew==0 ) return SQLITE_NOMEM;
    p->aEnt = aNew;
    p->nEntAlloc = nNew;
  }
  pE = &p->aEnt[p->nEnt];
  pE->iKey = p->keys.n;
  pE->nKey = (int)p->key.n;
  pE->iVal = p->vals.n;
  pE->h = h;
  docextBufAppend(&rc, &p->keys, p->key.a, p->key.n);
  docextBufAppend(&rc, &p->vals, &t, 1);
  docextBufAppend(&rc, &p->vals, v->p, v->n);
  if( rc==SQLITE_OK ){
    p->aSlot[j] = ++p->nEnt;
  }
  return rc;
}

/* Order of two entries' keys: BSON order of their values. */
static int distinctCmp(void *pCtx, const void *x, const void *y){
  const DistinctSet *p = (const DistinctSet*)pCtx;
  const DistinctEntry *a = (const DistinctEntry*)x, *b = (const DistinctEntry*)y;
  int n = a->nKey<b->nKey ? a->nKey : b->nKey;
  int c = memcmp(&p->keys.a[a->iKey], &p->keys.a[b->iKey], (size_t)n);
  return c ? c : a->nKey - b->nKey;
}

/* docextPathWalk's visitor: a value, or the elements of an array. */
static int distinctVisit(void *pCtx, const DocValue *v, int bFanned){
  DistinctSet *p = (DistinctSet*)pCtx;
  (void)bFanned;
  if( v->type==DOC_ARRAY ){
    DocIter it;
    docextIterInitValue(&it, v);
    while( p->rc==SQLITE_OK && docextIterNext(&it) ) p->rc = distinctAdd(p, &it.v);
  }else{
    p->rc = distinctAdd(p, v);
  }
  return p->rc;
}

static int distinctDoc(void *pCtx, const u8 *aDoc, char **pzErr){
  DistinctSet *p = (DistinctSet*)pCtx;
  int rc = docextPathWalk(aDoc, p->zPath, p->nPath, distinctVisit, p);
  if( rc==SQLITE_TOOBIG ){
    *pzErr = sqlite3_mprintf("docext: distinct too big, 16mb cap");
    if( *pzErr==0 ) rc = SQLITE_NOMEM;
  }
  return rc;
}

/* The field argument: a dotted path of non-empty names. */
static int distinctPathArg(sqlite3_value *pArg, const char **pz, int *pn, char **pzErr){
  const char *z = (const char*)sqlite3_value_text(pArg);
  int n = sqlite3_value_bytes(pArg), i;
  if( sqlite3_value_type(pArg)!=SQLITE_TEXT ){
    *pzErr = sqlite3_mprintf("docext: doc_distinct needs a field name (TEXT) as argument 2");
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if( z==0 ) return SQLITE_NOMEM;
  for(i=0; i<=n; i++){
    if( i<n && z[i]==0 ) break;
    if( (i==n || z[i]=='.') && (i==0 || z[i-1]=='.') ) break;
  }
  if( n==0 || i<=n ){
    *pzErr = sqlite3_mprintf("docext: doc_distinct: bad field name '%s' (a dotted path "
                             "of non-empty names)", z);
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  *pz = z;
  *pn = n;
  return SQLITE_OK;
}

/* The projection {field: 1, _id: 0} (no _id: 0 when the field is in _id),
** which an index may cover, sparing the documents: distinct values read
** the same from the projected document as from the whole one, unless the
** path has a numeric component (a projection takes it as a field name,
** not an array position) or one a projection refuses. 0: none. */
static const u8 *distinctProjection(int *pRc, const DistinctSet *p, DocBuf *pOut){
  int i = 0, bId;
  i64 iDoc;
  while( i<p->nPath ){
    int n = 0, iIdx;
    while( i+n<p->nPath && p->zPath[i+n]!='.' ) n++;
    if( p->zPath[i]=='$' || docextPathIndex(&p->zPath[i], n, &iIdx) ) return 0;
    i += n+1;
  }
  bId = strncmp(p->zPath, "_id", 3)==0 && (p->nPath==3 || p->zPath[3]=='.');
  iDoc = docextBsonStartDoc(pRc, pOut);
  docextBsonAppendInt32(pRc, pOut, p->zPath, p->nPath, 1);
  if( !bId ) docextBsonAppendInt32(pRc, pOut, "_id", 3, 0);
  docextBsonEndDoc(pRc, pOut, iDoc);
  return *pRc==SQLITE_OK ? pOut->a : 0;
}

/* The options argument: hint, let and collation, which the query reads
** (and the collation, which values are one, *ppCollator). */
static int distinctOptions(const u8 *aOpt, DocCollator **ppCollator, char **pzErr){
  DocIter it;
  if( aOpt==0 ) return SQLITE_OK;
  docextIterInit(&it, aOpt);
  while( docextIterNext(&it) ){
    if( strcmp(it.zKey, "hint")!=0 && strcmp(it.zKey, "let")!=0
     && strcmp(it.zKey, "collation")!=0 ){
      *pzErr = sqlite3_mprintf("docext: unknown doc_distinct option '%s'", it.zKey);
      return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  }
  return docextCollatorOption(aOpt, ppCollator, pzErr);
}

static void planDistinctFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocColl *pColl;
  DocBuf aBuf[3], out;
  const u8 *aFilter = 0, *aOpt = 0;
  DocQuerySpec spec;
  DistinctSet set;
  DocValue v;
  char *zErr = 0;
  int rc, i;
  i64 n = 0;
  if( planArgColl(ctx, argv[0], &pColl) ) return;
  memset(aBuf, 0, sizeof(aBuf));
  memset(&out, 0, sizeof(out));
  memset(&set, 0, sizeof(set));
  rc = distinctPathArg(argv[1], &set.zPath, &set.nPath, &zErr);
  if( rc==SQLITE_OK ){
    rc = planArgDoc(ctx, argc, argv, 2, "filter", &aBuf[0], &aFilter);
    if( rc==SQLITE_OK ) rc = planArgDoc(ctx, argc, argv, 3, "options", &aBuf[1], &aOpt);
    if( rc!=SQLITE_OK ) goto done;        /* planArgDoc gave the error */
  }
  if( rc==SQLITE_OK ) rc = distinctOptions(aOpt, &set.pCollator, &zErr);
  if( rc==SQLITE_OK && !(aOpt && docextBsonFind(aOpt, "collation", 9, &v)) ){
    /* (none given: the collection's default) */
    DocCollator *pDefault = 0;
    rc = docextCollCollation(pColl, &pDefault, &zErr);
    set.pCollator = docextCollatorRef(pDefault);
  }
  if( rc==SQLITE_OK ){
    docextQuerySpecInit(&spec);
    if( aFilter ){ spec.aaFilter[0] = aFilter; spec.nFilter = 1; }
    spec.aOptions = aOpt;
    spec.aProjection = distinctProjection(&rc, &set, &aBuf[2]);
    spec.bProjectIfCovered = 1;
    if( rc==SQLITE_OK ){
      rc = docextPlanRun((DocConn*)sqlite3_user_data(ctx), pColl, &spec, 1, distinctDoc, &set,
                         &n, 0, &zErr);
    }
  }
  if( rc==SQLITE_OK && set.nEnt>1 ){
    DistinctEntry *aTmp = sqlite3_malloc64(sizeof(DistinctEntry)*(size_t)set.nEnt);
    if( aTmp==0 ) rc = SQLITE_NOMEM;
    else docextSort(set.aEnt, set.nEnt, (int)sizeof(DistinctEntry), aTmp, distinctCmp, &set);
    sqlite3_free(aTmp);
  }
  docextBufAppendStr(&rc, &out, "[");
  for(i=0; i<set.nEnt && rc==SQLITE_OK; i++){
    DocValue v;
    distinctValue(&set, &set.aEnt[i], &v);
    if( i ) docextBufAppendStr(&rc, &out, ",");
    docextJsonWriteValue(&rc, &out, &v, DOCEXT_JSON_RELAXED);
  }
  docextBufAppendStr(&rc, &out, "]");
  if( rc==SQLITE_OK ){
    docextBufResultText(ctx, &out);
  }else{
    docextResultError(ctx, rc, zErr);
    zErr = 0;
  }
done:
  sqlite3_free(zErr);
  for(i=0; i<3; i++) docextBufFree(&aBuf[i]);
  docextBufFree(&out);
  distinctFree(&set);
}

int docextRegisterPlanFunctions(sqlite3 *db, DocConn *pConn){
  enum { F = SQLITE_UTF8|SQLITE_DIRECTONLY };
  static const DocFuncDef aFunc[] = {
    { "doc_explain", 2, F, planExplainFunc },
    { "doc_explain", 3, F, planExplainFunc },
    { "doc_explain", 4, F, planExplainFunc },
    { "doc_explain", 5, F, planExplainFunc },
    { "doc_count",   1, F, planCountFunc },
    { "doc_count",   2, F, planCountFunc },
    { "doc_count",   3, F, planCountFunc },
    { "doc_distinct", 2, F, planDistinctFunc },
    { "doc_distinct", 3, F, planDistinctFunc },
    { "doc_distinct", 4, F, planDistinctFunc },
  };
  return docextCreateFunctions(db, pConn, aFunc, DOCEXT_COUNT(aFunc));
}
