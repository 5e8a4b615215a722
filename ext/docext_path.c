/*
** docext_path.c — the path walker: dotted paths like "publisher.name" or
** "reviews.0.user" over a validated document.
**
** docextPathWalk() visits every value a path reaches with MongoDB's rules
** for reading through arrays: a numeric component indexes an array; any
** other component applied to an array is applied to each of its elements
** that is a document. The visitor learns whether an array was crossed that
** way, which is what makes doc_get() return "the array of values found".
*/
#include "docextInt.h"

/* Is z[0..n) a non-negative decimal array index without leading zeros? */
static int pathIndex(const char *z, int n, int *piIdx){
  int i, v = 0;
  if( n==0 || n>9 || (n>1 && z[0]=='0') ) return 0;
  for(i=0; i<n; i++){
    if( z[i]<'0' || z[i]>'9' ) return 0;
    v = v*10 + (z[i]-'0');
  }
  *piIdx = v;
  return 1;
}

static int walk(const DocValue *pCur, const char *zPath, int nPath, int bFanned,
                int (*xVisit)(void*, const DocValue*, int), void *pCtx){
  const char *zDot;
  int nComp, iIdx, rc;
  DocIter it;
  if( nPath<0 ) return xVisit(pCtx, pCur, bFanned);
  zDot = memchr(zPath, '.', nPath);
  nComp = zDot ? (int)(zDot - zPath) : nPath;
  if( pCur->type==DOC_DOCUMENT ){
    docextIterInitValue(&it, pCur);
    while( docextIterNext(&it) ){
      if( it.nKey==nComp && memcmp(it.zKey, zPath, nComp)==0 ){
        return walk(&it.v, zPath+nComp+1, nPath-nComp-1, bFanned, xVisit, pCtx);
      }
    }
    return SQLITE_OK;
  }
  if( pCur->type!=DOC_ARRAY ) return SQLITE_OK;
  docextIterInitValue(&it, pCur);
  if( pathIndex(zPath, nComp, &iIdx) ){
    while( docextIterNext(&it) ){
      if( iIdx--==0 ){
        return walk(&it.v, zPath+nComp+1, nPath-nComp-1, bFanned, xVisit, pCtx);
      }
    }
    return SQLITE_OK;
  }
  while( docextIterNext(&it) ){
    if( it.v.type!=DOC_DOCUMENT ) continue;
    rc = walk(&it.v, zPath, nPath, 1, xVisit, pCtx);
    if( rc ) return rc;
  }
  return SQLITE_OK;
}

int docextPathWalk(const u8 *aDoc, const char *zPath, int nPath,
                   int (*xVisit)(void*, const DocValue*, int), void *pCtx){
  DocValue root;
  root.type = DOC_DOCUMENT;
  root.p = aDoc;
  root.n = docextGetI32(aDoc);
  return walk(&root, zPath, nPath, 0, xVisit, pCtx);
}

typedef struct FirstValue FirstValue;
struct FirstValue { int bFound; DocValue v; };

static int visitFirst(void *pCtx, const DocValue *v, int bFanned){
  FirstValue *p = (FirstValue*)pCtx;
  if( bFanned ) return SQLITE_OK;
  p->bFound = 1;
  p->v = *v;
  return SQLITE_DONE;     /* stop */
}

int docextPathGet(const u8 *aDoc, const char *zPath, int nPath, DocValue *pOut){
  FirstValue fv;
  fv.bFound = 0;
  docextPathWalk(aDoc, zPath, nPath, visitFirst, &fv);
  if( fv.bFound ) *pOut = fv.v;
  return fv.bFound;
}
