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

int docextPathIndex(const char *z, int n, int *piIdx){
  int i, v = 0;
  if( n==0 || n>9 || (n>1 && z[0]=='0') ) return 0;
  for(i=0; i<n; i++){
    if( z[i]<'0' || z[i]>'9' ) return 0;
    v = v*10 + (z[i]-'0');
  }
  *piIdx = v;
  return 1;
}

int docextPathComponents(const char *z, int n){
  int i, nComp = 1;
  for(i=0; i<n; i++) if( z[i]=='.' ) nComp++;
  return nComp;
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
  if( docextPathIndex(zPath, nComp, &iIdx) ){
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

/*------------------------------------------------------------------------
** The matching walker. MongoDB's query matcher reads a path differently
** from docextPathWalk():
**   - a missing field is reported (v==0), since {a: null} and $exists
**     must see it; so is a path that runs into a scalar before its end;
**   - an array met before the last component is crossed element by
**     element: a document element gets the rest of the path, and when the
**     next component is a number equal to the element's index the element
**     itself is also taken (a.0 is both "element 0" and "field 0 of each
**     document in a"); a non-document element only through its index;
**   - an array at the end of the path is visited element by element
**     (unless bNoLeafElems) and then as a whole, so {a: 1} and {a: [1]}
**     both match a: [1].
** iPos is the index of the element of the first array crossed element by
** element (MongoDB's elemMatchKey, for the positional $), or -1.
*/
typedef struct MatchWalk MatchWalk;
struct MatchWalk {
  int bNoLeafElems;                                  /* see above */
  int (*xVisit)(void*, const DocValue*, int);        /* the visitor */
  void *pCtx;                                        /* its context */
};

static int mwDoc(MatchWalk *p, const u8 *aDoc, const char *z, int n, int iPos);

/* Length of the first component of z[0..n). */
static int mwComp(const char *z, int n){
  const char *zDot = memchr(z, '.', n);
  return zDot ? (int)(zDot - z) : n;
}

static int mwAllDigits(const char *z, int n){
  int i;
  if( n==0 ) return 0;
  for(i=0; i<n; i++){
    if( z[i]<'0' || z[i]>'9' ) return 0;
  }
  return 1;
}

/* pArr is an array reached by the path; z[0..n) is what follows it (when
** bRest) or nothing. */
static int mwArray(MatchWalk *p, const DocValue *pArr, const char *z, int n,
                   int bRest, int iPos){
  DocIter it;
  int j = 0, rc = SQLITE_OK;
  docextIterInitValue(&it, pArr);
  if( !bRest ){
    if( !p->bNoLeafElems ){
      while( docextIterNext(&it) ){
        rc = p->xVisit(p->pCtx, &it.v, iPos>=0 ? iPos : j);
        if( rc ) return rc;
        j++;
      }
    }
    return p->xVisit(p->pCtx, pArr, iPos);
  }else{
    int nComp = mwComp(z, n);
    int bLastNext = nComp==n;
    int bNum = mwAllDigits(z, nComp);
    while( rc==SQLITE_OK && docextIterNext(&it) ){
      int bOff = bNum && it.nKey==nComp && memcmp(it.zKey, z, nComp)==0;
      if( it.v.type==DOC_DOCUMENT ){
        rc = mwDoc(p, it.v.p, z, n, iPos>=0 ? iPos : j);
        if( rc==SQLITE_OK && bOff ){
          if( bLastNext ){
            rc = p->xVisit(p->pCtx, &it.v, iPos);
          }else{
            rc = mwDoc(p, it.v.p, z+nComp+1, n-nComp-1, iPos);
          }
        }
      }else if( bOff ){
        if( bLastNext ){
          rc = p->xVisit(p->pCtx, &it.v, iPos);
        }else if( it.v.type==DOC_ARRAY ){
          rc = mwArray(p, &it.v, z+nComp+1, n-nComp-1, 1, iPos);
        }
      }
      j++;
    }
  }
  return rc;
}

/* Follow z[0..n) from the document (or array read as a document) aDoc. */
static int mwDoc(MatchWalk *p, const u8 *aDoc, const char *z, int n, int iPos){
  for(;;){
    int nComp = mwComp(z, n);
    int bLast = nComp==n;
    DocValue v;
    if( !docextBsonFind(aDoc, z, nComp, &v) ){
      return p->xVisit(p->pCtx, 0, iPos);
    }
    if( v.type==DOC_ARRAY ){
      if( bLast ) return mwArray(p, &v, 0, 0, 0, iPos);
      return mwArray(p, &v, z+nComp+1, n-nComp-1, 1, iPos);
    }
    if( bLast ) return p->xVisit(p->pCtx, &v, iPos);
    if( v.type!=DOC_DOCUMENT ) return p->xVisit(p->pCtx, 0, iPos);
    aDoc = v.p;
    z += nComp+1;
    n -= nComp+1;
  }
}

int docextPathWalkMatch(const u8 *aDoc, const char *zPath, int nPath, int bNoLeafElems,
                        int (*xVisit)(void *pCtx, const DocValue *v, int iPos), void *pCtx){
  MatchWalk w;
  w.bNoLeafElems = bNoLeafElems;
  w.xVisit = xVisit;
  w.pCtx = pCtx;
  return mwDoc(&w, aDoc, zPath, nPath, -1);
}

const char *docextPathProblem(const char *z){
  const char *zPart = z;
  for(;;){
    const char *zDot = strchr(zPart, '.');
    size_t n = zDot ? (size_t)(zDot-zPart) : strlen(zPart);
    if( n==0 ) return "a field name may not be empty";
    if( zPart[0]=='$' ) return "a field name may not start with '$'";
    if( !zDot ) return 0;
    zPart = zDot+1;
  }
}

int docextPathsOverlap(const char *zA, const char *zB){
  size_t na = strlen(zA), nb = strlen(zB), n = na<nb ? na : nb;
  if( memcmp(zA, zB, n)!=0 ) return 0;
  return na==nb || (na<nb ? zB[na]=='.' : zA[nb]=='.');
}
