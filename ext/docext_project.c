/*
** docext_project.c — find() projections and sort keys, with MongoDB 4.4+
** rules.
**
** PROJECTIONS. A projection document is compiled into a tree with one node
** per path component: {"a.b": 1, "a.c": 0} and the nested form
** {a: {b: 1}} give the same tree. Leaves say what happens to the value at
** their path:
**
**   PROJ_INCLUDE     field: 1 / true / any non-zero number
**   PROJ_EXCLUDE     field: 0 / false
**   PROJ_SLICE       field: {$slice: n} or {$slice: [skip, n]}
**   PROJ_ELEMMATCH   field: {$elemMatch: cond} (top-level fields only)
**   PROJ_POSITIONAL  "field.$": 1
**
** and inner nodes (PROJ_INNER) hold children. The projection as a whole is
** an inclusion projection (only the named fields, plus _id) or an exclusion
** projection (every field but the named ones); mixing the two is an error,
** except for the top-level "_id", which may be named either way in both.
** $slice decides neither: with only $slice fields every field is returned.
** $elemMatch and the positional "$" make it an inclusion projection.
**
** Applying walks the document and the tree together. A value under an
** inner node is projected by the children when it is a document and, when
** it is an array, element by element (documents projected, nested arrays
** recursed into, other elements dropped by an inclusion and kept by an
** exclusion; inside a nested array $slice keeps values whole, as MongoDB's
** applyFindSliceProjectionToArray); fields appear in the document's
** order, except that $elemMatch fields come after the other fields, as in
** MongoDB 4.4+.
**
** The positional "a.b.$" keeps, in the first array met along a.b, only the
** element at the index the filter matched (docextMatcherMatch's *piPos);
** it is an error if the filter recorded no index. When no array lies on
** the path, the field is kept as the inclusion of a.b gives it (MongoDB's
** applyFindPositionalProjection).
**
** SORT KEYS, as MongoDB makes them: the sort pattern is used as an index
** key pattern, and of the keys it gives a document, the first in the
** pattern's order (memcmp order: descending fields are inverted) represents
** the document. The keys are docext_index.c's (docextIndexFirstKey): one
** per array element, a missing value null, an empty array undefined (below
** null); fields that cross the same array take their values from the same
** element; two different arrays in one document are an error. For one
** field that is the smallest value ascending and the largest descending.
** A document with no array on the sort's paths has a single key, which
** docextSortKey() makes itself, without allocating.
*/
#include "docextInt.h"
#include <math.h>

/* Node kinds. */
#define PROJ_INNER      0
#define PROJ_INCLUDE    1
#define PROJ_EXCLUDE    2
#define PROJ_SLICE      3
#define PROJ_ELEMMATCH  4
#define PROJ_POSITIONAL 5
#define PROJ_META       6     /* {score: {$meta: "textScore"}}: at the top */

/* Overall modes. */
#define PROJ_MODE_UNKNOWN    0
#define PROJ_MODE_INCLUDE    1
#define PROJ_MODE_EXCLUDE    2

typedef struct DocProjNode DocProjNode;
struct DocProjNode {
  const char *zName;      /* path component (points into DocProjection.aCopy) */
  int nName;              /* its length */
  int eKind;              /* PROJ_* */
  int bPosPath;           /* on the path of the positional projection */
  i64 iSkip;              /* $slice: elements to skip (<0: from the end) */
  i64 nLimit;             /* $slice: elements to return (<0: the last ones) */
  int bSkipForm;          /* $slice was [skip, limit] */
  DocMatcher *pElem;      /* $elemMatch: {name: {$elemMatch: cond}} */
  DocProjNode *pChild;       /* first child (PROJ_INNER) */
  DocProjNode *pNext;        /* next sibling, in projection order */
};

struct DocProjection {
  u8 *aCopy;              /* private copy of the projection document */
  int eMode;              /* PROJ_MODE_INCLUDE or PROJ_MODE_EXCLUDE */
  DocProjNode root;          /* PROJ_INNER; children are the top-level fields */
  int bElemMatch;         /* some top-level field uses $elemMatch */
  char *zPositional;      /* "reviews.$" when there is a positional field */
  int bMeta;              /* some field is a $meta */
  DocText *pText;         /* the query's $text, which scores (not owned) */
  DocBuf wrap;            /* scratch: {name: [element]} for $elemMatch */
};

/* State of the compiler. */
typedef struct DocProjParse DocProjParse;
struct DocProjParse {
  DocProjection *p;
  int rc;
  char **pzErr;
  int eMode;              /* PROJ_MODE_* decided so far by non-_id fields */
  int bIdInclude;         /* "_id": 1 seen */
  int bHasSlice;          /* some $slice */
  DocBuf path;            /* full dotted path of the field being compiled */
};

/*------------------------------------------------------------------------
** Compiling projections
*/

/* Record the first error (zMsg==0: out of memory); later ones are dropped. */
static int projError(DocProjParse *pP, int rc, char *zMsg){
  if( pP->rc==SQLITE_OK ){
    pP->rc = zMsg ? rc : SQLITE_NOMEM;
    *pP->pzErr = zMsg;
  }else{
    sqlite3_free(zMsg);
  }
  return pP->rc;
}

/* The full path of the current field, NUL-terminated for printf. */
static const char *projPath(DocProjParse *pP){
  docextBufAppendByte(&pP->rc, &pP->path, 0);
  if( pP->rc!=SQLITE_OK ) return "";
  pP->path.n--;
  return (const char*)pP->path.a;
}

static void projNodeFree(DocProjNode *pNode){
  while( pNode ){
    DocProjNode *pNext = pNode->pNext;
    projNodeFree(pNode->pChild);
    docextMatcherFree(pNode->pElem);
    sqlite3_free(pNode);
    pNode = pNext;
  }
}

static DocProjNode *projNodeFind(DocProjNode *pParent, const char *zName, int nName){
  DocProjNode *pNode;
  for(pNode=pParent->pChild; pNode; pNode=pNode->pNext){
    if( pNode->nName==nName && memcmp(pNode->zName, zName, nName)==0 ) break;
  }
  return pNode;
}

static DocProjNode *projNodeAdd(DocProjParse *pP, DocProjNode *pParent,
                                const char *zName, int nName){
  DocProjNode *pNew, **pp;
  pNew = docextMallocZero(sizeof(*pNew));
  if( pNew==0 ){
    projError(pP, SQLITE_NOMEM, 0);
    return 0;
  }
  pNew->zName = zName;
  pNew->nName = nName;
  for(pp=&pParent->pChild; *pp; pp=&(*pp)->pNext);
  *pp = pNew;
  return pNew;
}

/* Update the overall mode for a field of kind eKind at the current path;
** the top-level "_id" (bId) does not decide it. */
static int projSetMode(DocProjParse *pP, int eKind, int bId){
  int eWant;
  if( bId ){
    if( eKind==PROJ_INCLUDE ) pP->bIdInclude = 1;
    return pP->rc;
  }
  switch( eKind ){
    case PROJ_INCLUDE: case PROJ_ELEMMATCH: case PROJ_POSITIONAL:
      eWant = PROJ_MODE_INCLUDE;
      break;
    case PROJ_EXCLUDE:
      eWant = PROJ_MODE_EXCLUDE;
      break;
    default:
      return pP->rc;
  }
  if( pP->eMode!=PROJ_MODE_UNKNOWN && pP->eMode!=eWant ){
    return projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: cannot mix inclusion and exclusion in projection at '%s'",
        projPath(pP)));
  }
  pP->eMode = eWant;
  return pP->rc;
}

/* Add the leaf for the dotted path z[0..n) (relative to pParent, whose
** full path is already in pP->path before the n bytes of z) and return
** it, or 0 after an error. */
static DocProjNode *projAddPath(DocProjParse *pP, DocProjNode *pParent,
                                const char *z, int n, int eKind){
  int nComp = 0;
  DocProjNode *pNode = pParent;
  for(;;){
    const char *zDot = memchr(z, '.', n);
    int nPart = zDot ? (int)(zDot - z) : n;
    DocProjNode *pChild;
    if( nPart==0 ){
      projError(pP, SQLITE_ERROR, sqlite3_mprintf(
          "docext: empty field name in projection at '%s'", projPath(pP)));
      return 0;
    }
    if( z[0]=='$' ){
      projError(pP, SQLITE_ERROR, sqlite3_mprintf(
          "docext: field names in projection cannot start with '$' at '%s'",
          projPath(pP)));
      return 0;
    }
    if( ++nComp>DOCEXT_MAX_PATH_PARTS ){
      projError(pP, SQLITE_ERROR, sqlite3_mprintf(
          "docext: path with more than %d components in projection at '%.*s...'",
          DOCEXT_MAX_PATH_PARTS, 60, projPath(pP)));
      return 0;
    }
    pChild = projNodeFind(pNode, z, nPart);
    /* An inner node may be reached again ({"a.b": 1, a: {c: 1}}). */
    if( pChild && (pChild->eKind!=PROJ_INNER || (zDot==0 && eKind!=PROJ_INNER)) ){
      projError(pP, SQLITE_ERROR, sqlite3_mprintf(
          "docext: path collision at '%s' in projection", projPath(pP)));
      return 0;
    }
    if( pChild==0 ){
      pChild = projNodeAdd(pP, pNode, z, nPart);
      if( pChild==0 ) return 0;
      pChild->eKind = zDot ? PROJ_INNER : eKind;
    }
    pNode = pChild;
    if( zDot==0 ) return pNode;
    z += nPart+1;
    n -= nPart+1;
  }
}

/* A number operand of $slice as an int, saturating as MongoDB does. */
static i64 projSliceInt(const DocValue *v){
  double d;
  switch( v->type ){
    case DOC_INT32: return docextValueI32(v);
    case DOC_INT64: d = (double)docextValueI64(v); break;
    default:        d = docextValueToDouble(v); break;
  }
  if( isnan(d) ) return 0;
  if( d>=2147483647.0 ) return 2147483647;
  if( d<=-2147483648.0 ) return -2147483647-1;
  return (i64)d;
}

static void projParseSlice(DocProjParse *pP, DocProjNode *pNode, const DocValue *v){
  if( docextValueIsNumber(v) ){
    pNode->nLimit = projSliceInt(v);
    return;
  }
  if( v->type==DOC_ARRAY ){
    DocIter it;
    DocValue a[2];
    int n = 0;
    docextIterInitValue(&it, v);
    while( docextIterNext(&it) && n<3 ){
      if( n<2 ) a[n] = it.v;
      n++;
    }
    if( n==2 && docextValueIsNumber(&a[0]) && docextValueIsNumber(&a[1]) ){
      pNode->bSkipForm = 1;
      pNode->iSkip = projSliceInt(&a[0]);
      pNode->nLimit = projSliceInt(&a[1]);
      if( pNode->nLimit<=0 ){
        projError(pP, SQLITE_ERROR, sqlite3_mprintf(
            "docext: $slice limit must be positive in projection at '%s'",
            projPath(pP)));
      }
      return;
    }
  }
  projError(pP, SQLITE_ERROR, sqlite3_mprintf(
      "docext: $slice needs a number or an array [skip, limit] in projection at '%s'",
      projPath(pP)));
}

/* Compile {f: {$elemMatch: cond}} for matching one-element arrays {f: [e]}
** (f the field's name, so that the matcher's errors name it):
** the matcher's own $elemMatch gives MongoDB's semantics for documents and
** scalars alike. */
static void projParseElemMatch(DocProjParse *pP, DocProjNode *pNode, const DocValue *v){
  u8 aSpace[256];
  DocBuf b;
  int rc = SQLITE_OK;
  i64 iDoc, iSub;
  char *zErr = 0;
  if( v->type!=DOC_DOCUMENT ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: $elemMatch needs a document in projection at '%s'", projPath(pP)));
    return;
  }
  docextBufInit(&b, aSpace, sizeof(aSpace));
  iDoc = docextBsonStartDoc(&rc, &b);
  iSub = docextBsonStartChild(&rc, &b, DOC_DOCUMENT, pNode->zName, pNode->nName);
  docextBsonAppendValue(&rc, &b, "$elemMatch", 10, v);
  docextBsonEndDoc(&rc, &b, iSub);
  docextBsonEndDoc(&rc, &b, iDoc);
  if( rc==SQLITE_OK ) rc = docextMatcherNew(b.a, 0, 0, &pNode->pElem, &zErr);
  if( rc==SQLITE_NOMEM || (rc!=SQLITE_OK && zErr==0) ){
    sqlite3_free(zErr);
    projError(pP, rc, 0);
  }else if( rc!=SQLITE_OK ){
    projError(pP, rc, zErr);
  }
  docextBufFree(&b);
}

/* Flag the nodes on the positional path ("a.b" of "a.b.$"): the element
** selection happens at the first array met along it. */
static void projMarkPositional(DocProjection *p){
  const char *z = p->zPositional;
  int n = (int)strlen(z) - 2;
  DocProjNode *pNode = &p->root;
  while( pNode ){
    const char *zDot;
    int nPart;
    pNode->bPosPath = 1;
    if( n<=0 ) break;
    zDot = memchr(z, '.', n);
    nPart = zDot ? (int)(zDot - z) : n;
    pNode = projNodeFind(pNode, z, nPart);
    z += nPart+1;
    n -= nPart+1;
  }
}

static void projParseDoc(DocProjParse *pP, DocProjNode *pParent,
                         const u8 *aDoc, int bTop);

/* {z: {$meta: "textScore"}}: the document's text score, at the top. It
** chooses no mode: alone, the document comes with it. */
static void projParseMeta(DocProjParse *pP, DocProjNode *pParent, const char *z, int n,
                          DocIter *pIt, int bTop){
  if( !docextTextMetaIsScore(&pIt->v) ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: $meta takes \"textScore\" (the one docext has) in projection at '%s'",
        projPath(pP)));
    return;
  }
  if( docextIterNext(pIt) ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: $meta must be the only key of its document in projection at '%s'",
        projPath(pP)));
    return;
  }
  if( !bTop || memchr(z, '.', n) ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: $meta cannot be used on a nested field in projection at '%s'",
        projPath(pP)));
    return;
  }
  if( projAddPath(pP, pParent, z, n, PROJ_META) ) pP->p->bMeta = 1;
}

/* {z: {$slice: …}} or {z: {$elemMatch: …}}: pIt is at the operator, the
** first key of the field's document. */
static void projParseOperator(DocProjParse *pP, DocProjNode *pParent, const char *z, int n,
                              DocIter *pIt, int bTop){
  int bSlice = strcmp(pIt->zKey, "$slice")==0;
  int bElem = strcmp(pIt->zKey, "$elemMatch")==0;
  int eKind = bSlice ? PROJ_SLICE : PROJ_ELEMMATCH;
  DocValue arg = pIt->v;
  DocProjNode *pNode;
  if( strcmp(pIt->zKey, "$meta")==0 ){
    projParseMeta(pP, pParent, z, n, pIt, bTop);
    return;
  }
  if( !bSlice && !bElem ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: unknown operator %s in projection at '%s'", pIt->zKey, projPath(pP)));
    return;
  }
  if( docextIterNext(pIt) ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: %s must be the only key of its document in projection at '%s'",
        bSlice ? "$slice" : "$elemMatch", projPath(pP)));
    return;
  }
  if( bElem && (!bTop || memchr(z, '.', n)) ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: $elemMatch cannot be used on a nested field in projection at '%s'",
        projPath(pP)));
    return;
  }
  if( bElem && pP->p->zPositional ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: cannot combine positional projection '%s' with $elemMatch at '%s'",
        pP->p->zPositional, projPath(pP)));
    return;
  }
  if( projSetMode(pP, eKind, 0) ) return;
  pNode = projAddPath(pP, pParent, z, n, eKind);
  if( pNode==0 ) return;
  if( bSlice ){
    pP->bHasSlice = 1;
    projParseSlice(pP, pNode, &arg);
  }else{
    pP->p->bElemMatch = 1;
    projParseElemMatch(pP, pNode, &arg);
  }
}

/* {z: 1}, {z: 0}, {z: true}, … and the positional {"z.$": 1}
** (bPositional, z without its ".$"). bId: the top-level _id. */
static void projParseFlag(DocProjParse *pP, DocProjNode *pParent, const char *z, int n,
                          const DocValue *v, int bPositional, int bId){
  int eKind, bTrue;
  DocProjNode *pNode;
  if( v->type==DOC_BOOL ){
    bTrue = v->p[0]!=0;
  }else if( docextValueIsNumber(v) ){
    bTrue = docextValueToDouble(v)!=0.0;
  }else if( bPositional && v->type==DOC_DOCUMENT ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: positional projection '%s' takes 1 or true, not an operator",
        projPath(pP)));
    return;
  }else{
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: bad projection value for '%s': use 1, 0, true, false, $slice or $elemMatch",
        projPath(pP)));
    return;
  }
  eKind = bTrue ? PROJ_INCLUDE : PROJ_EXCLUDE;
  if( bPositional ){
    if( !bTrue ){
      projError(pP, SQLITE_ERROR, sqlite3_mprintf(
          "docext: positional projection '%s' cannot be an exclusion",
          projPath(pP)));
      return;
    }
    if( pP->p->zPositional ){
      projError(pP, SQLITE_ERROR, sqlite3_mprintf(
          "docext: only one positional projection is allowed, found '%s' and '%s'",
          pP->p->zPositional, projPath(pP)));
      return;
    }
    if( pP->p->bElemMatch ){
      projError(pP, SQLITE_ERROR, sqlite3_mprintf(
          "docext: cannot combine positional projection '%s' with $elemMatch",
          projPath(pP)));
      return;
    }
    eKind = PROJ_POSITIONAL;
  }
  if( projSetMode(pP, eKind, bId && !bPositional) ) return;
  pNode = projAddPath(pP, pParent, z, n, eKind);
  if( pNode && bPositional ){
    pP->p->zPositional = sqlite3_mprintf("%s", projPath(pP));
    if( pP->p->zPositional==0 ){
      projError(pP, SQLITE_NOMEM, 0);
      return;
    }
    projMarkPositional(pP->p);
  }
}

/* Compile one field of a projection: key z[0..n) under pParent. */
static void projParseField(DocProjParse *pP, DocProjNode *pParent,
                           const char *z, int n, const DocValue *v, int bTop){
  i64 nPrefix = pP->path.n;
  int bPositional = 0;
  int bId = bTop && n==3 && memcmp(z, "_id", 3)==0;
  if( nPrefix>0 ) docextBufAppendByte(&pP->rc, &pP->path, '.');
  docextBufAppend(&pP->rc, &pP->path, z, n);
  if( pP->rc ) return;

  /* "a.b.$": positional; '$' anywhere else is caught by projAddPath(). */
  if( n>=2 && z[n-1]=='$' && z[n-2]=='.' ){
    bPositional = 1;
    n -= 2;
  }else if( n==1 && z[0]=='$' ){
    projError(pP, SQLITE_ERROR, sqlite3_mprintf(
        "docext: positional projection needs a field before '$' at '%s'",
        projPath(pP)));
    return;
  }

  if( v->type==DOC_DOCUMENT && !bPositional ){
    DocIter it;
    docextIterInitValue(&it, v);
    if( !docextIterNext(&it) ){
      projError(pP, SQLITE_ERROR, sqlite3_mprintf(
          "docext: empty sub-projection at '%s'", projPath(pP)));
      return;
    }
    if( it.zKey[0]=='$' ){
      projParseOperator(pP, pParent, z, n, &it, bTop);
    }else{
      /* Nested form {a: {b: 1}} == {"a.b": 1}. */
      DocProjNode *pNode = projAddPath(pP, pParent, z, n, PROJ_INNER);
      if( pNode ) projParseDoc(pP, pNode, v->p, 0);
    }
  }else{
    projParseFlag(pP, pParent, z, n, v, bPositional, bId);
  }
  pP->path.n = nPrefix;
}

static void projParseDoc(DocProjParse *pP, DocProjNode *pParent,
                         const u8 *aDoc, int bTop){
  DocIter it;
  docextIterInit(&it, aDoc);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    projParseField(pP, pParent, it.zKey, it.nKey, &it.v, bTop);
  }
}

void docextProjectionFree(DocProjection *p){
  if( p ){
    projNodeFree(p->root.pChild);
    docextBufFree(&p->wrap);
    sqlite3_free(p->zPositional);
    sqlite3_free(p->aCopy);
    sqlite3_free(p);
  }
}

int docextProjectionNew(const u8 *aProj, DocProjection **ppOut, char **pzErr){
  DocProjParse sP;
  DocProjection *p;
  *ppOut = 0;
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  p->aCopy = docextBsonCopy(aProj);
  if( p->aCopy==0 ){
    sqlite3_free(p);
    return SQLITE_NOMEM;
  }
  p->root.eKind = PROJ_INNER;

  memset(&sP, 0, sizeof(sP));
  sP.p = p;
  sP.pzErr = pzErr;
  projParseDoc(&sP, &p->root, p->aCopy, 1);
  docextBufFree(&sP.path);
  if( sP.rc!=SQLITE_OK ){
    docextProjectionFree(p);
    return sP.rc;
  }
  if( sP.eMode==PROJ_MODE_UNKNOWN ){
    /* Only _id and $slice fields: {_id: 1} alone returns just the _id;
    ** anything else returns every field. */
    sP.eMode = (sP.bIdInclude && !sP.bHasSlice) ? PROJ_MODE_INCLUDE : PROJ_MODE_EXCLUDE;
  }
  p->eMode = sP.eMode;
  *ppOut = p;
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Applying projections
*/

typedef struct DocProjApply DocProjApply;
struct DocProjApply {
  DocProjection *p;
  int iPos;               /* matched array index for the positional field */
  int rc;
  char **pzErr;
  DocBuf *pOut;
  int nNested;            /* > 0 inside an array nested directly in an
                          ** array on the way: $slice leaves values as
                          ** they are there */
};

static void projApplyDoc(DocProjApply *pA, DocProjNode *pParent,
                         const u8 *aDoc, int bTop, int bPos);

static void projApplyValue(DocProjApply *pA, DocProjNode *pNode,
                           const char *zKey, int nKey, const DocValue *v, int bPos);

/* Copy the slice of array v that pNode's $slice selects. */
static void projApplySlice(DocProjApply *pA, DocProjNode *pNode,
                           const char *zKey, int nKey, const DocValue *v){
  DocIter it;
  i64 nElem = 0, iStart, iEnd, i;
  int nOut = 0;
  i64 iSub;
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ) nElem++;
  if( pNode->bSkipForm ){
    iStart = pNode->iSkip>=0 ? pNode->iSkip : nElem + pNode->iSkip;
    if( iStart<0 ) iStart = 0;
    if( iStart>nElem ) iStart = nElem;
    iEnd = iStart + pNode->nLimit;
  }else if( pNode->nLimit>=0 ){
    iStart = 0;
    iEnd = pNode->nLimit;
  }else{
    iStart = nElem + pNode->nLimit;
    if( iStart<0 ) iStart = 0;
    iEnd = nElem;
  }
  if( iEnd>nElem ) iEnd = nElem;
  iSub = docextBsonStartChild(&pA->rc, pA->pOut, DOC_ARRAY, zKey, nKey);
  docextIterInitValue(&it, v);
  for(i=0; docextIterNext(&it) && i<iEnd; i++){
    if( i>=iStart ){
      char zIdx[16];
      int nIdx = docextBsonArrayKey(zIdx, nOut++);
      docextBsonAppendValue(&pA->rc, pA->pOut, zIdx, nIdx, &it.v);
    }
  }
  docextBsonEndDoc(&pA->rc, pA->pOut, iSub);
}

/* Project the elements of array v through inner node pNode. */
static void projApplyArray(DocProjApply *pA, DocProjNode *pNode,
                           const char *zKey, int nKey, const DocValue *v){
  DocIter it;
  int nOut = 0;
  i64 iSub = docextBsonStartChild(&pA->rc, pA->pOut, DOC_ARRAY, zKey, nKey);
  docextIterInitValue(&it, v);
  while( pA->rc==SQLITE_OK && docextIterNext(&it) ){
    char zIdx[16];
    int nIdx;
    if( it.v.type!=DOC_DOCUMENT && it.v.type!=DOC_ARRAY
     && pA->p->eMode==PROJ_MODE_INCLUDE ){
      continue;
    }
    nIdx = docextBsonArrayKey(zIdx, nOut++);
    if( it.v.type==DOC_ARRAY ) pA->nNested++;
    projApplyValue(pA, pNode, zIdx, nIdx, &it.v, 0);
    if( it.v.type==DOC_ARRAY ) pA->nNested--;
  }
  docextBsonEndDoc(&pA->rc, pA->pOut, iSub);
}

/* The positional projection: v is the first array on the positional path;
** keep only element iPos, projected by pNode. */
static void projApplyPositional(DocProjApply *pA, DocProjNode *pNode,
                                const char *zKey, int nKey, const DocValue *v){
  DocIter it;
  int i = 0, bFound = 0;
  i64 iSub;
  if( pA->iPos<0 ){
    /* An array on the path, but the filter recorded no position in it. */
    pA->rc = SQLITE_ERROR;
    *pA->pzErr = sqlite3_mprintf(
        "docext: positional projection '%s' but the filter matched no array element",
        pA->p->zPositional);
    if( *pA->pzErr==0 ) pA->rc = SQLITE_NOMEM;
    return;
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( i++==pA->iPos ){
      bFound = 1;
      break;
    }
  }
  if( !bFound ){
    pA->rc = SQLITE_ERROR;
    *pA->pzErr = sqlite3_mprintf(
        "docext: positional projection '%s' element mismatch: the array has no element %d",
        pA->p->zPositional, pA->iPos);
    if( *pA->pzErr==0 ) pA->rc = SQLITE_NOMEM;
    return;
  }
  iSub = docextBsonStartChild(&pA->rc, pA->pOut, DOC_ARRAY, zKey, nKey);
  if( pNode->eKind==PROJ_POSITIONAL || it.v.type==DOC_DOCUMENT || it.v.type==DOC_ARRAY ){
    projApplyValue(pA, pNode, "0", 1, &it.v, 0);
  }else if( pA->p->eMode==PROJ_MODE_EXCLUDE ){
    docextBsonAppendValue(&pA->rc, pA->pOut, "0", 1, &it.v);
  }
  docextBsonEndDoc(&pA->rc, pA->pOut, iSub);
}

/* Write value v under key zKey as node pNode projects it (pNode not 0).
** bPos: no array has been crossed yet on the positional path. */
static void projApplyValue(DocProjApply *pA, DocProjNode *pNode,
                           const char *zKey, int nKey, const DocValue *v, int bPos){
  if( bPos && pNode->bPosPath && v->type==DOC_ARRAY ){
    projApplyPositional(pA, pNode, zKey, nKey, v);
    return;
  }
  switch( pNode->eKind ){
    case PROJ_INCLUDE:
    case PROJ_POSITIONAL:
      docextBsonAppendValue(&pA->rc, pA->pOut, zKey, nKey, v);
      break;
    case PROJ_EXCLUDE:
    case PROJ_ELEMMATCH:   /* written after the other fields */
    case PROJ_META:
      break;
    case PROJ_SLICE:
      if( v->type==DOC_ARRAY && pA->nNested==0 ){
        projApplySlice(pA, pNode, zKey, nKey, v);
      }else{
        docextBsonAppendValue(&pA->rc, pA->pOut, zKey, nKey, v);
      }
      break;
    default:   /* PROJ_INNER */
      if( v->type==DOC_DOCUMENT ){
        i64 iSub = docextBsonStartChild(&pA->rc, pA->pOut, DOC_DOCUMENT, zKey, nKey);
        projApplyDoc(pA, pNode, v->p, 0, bPos);
        docextBsonEndDoc(&pA->rc, pA->pOut, iSub);
      }else if( v->type==DOC_ARRAY ){
        projApplyArray(pA, pNode, zKey, nKey, v);
      }else if( pA->p->eMode==PROJ_MODE_EXCLUDE ){
        docextBsonAppendValue(&pA->rc, pA->pOut, zKey, nKey, v);
      }
      break;
  }
}

/* Write the projected fields of document aDoc (not its header/trailer). */
static void projApplyDoc(DocProjApply *pA, DocProjNode *pParent,
                         const u8 *aDoc, int bTop, int bPos){
  DocIter it;
  docextIterInit(&it, aDoc);
  while( pA->rc==SQLITE_OK && docextIterNext(&it) ){
    DocProjNode *pNode = projNodeFind(pParent, it.zKey, it.nKey);
    if( pNode ){
      projApplyValue(pA, pNode, it.zKey, it.nKey, &it.v, bPos);
    }else if( pA->p->eMode==PROJ_MODE_EXCLUDE
           || (bTop && it.nKey==3 && memcmp(it.zKey, "_id", 3)==0) ){
      docextBsonAppendValue(&pA->rc, pA->pOut, it.zKey, it.nKey, &it.v);
    }
  }
}

/* $elemMatch fields: the first element of the array matching the
** condition, as a one-element array; nothing when none does. */
static void projApplyElemMatch(DocProjApply *pA, DocProjNode *pNode, const u8 *aDoc){
  DocValue v;
  DocIter it;
  DocBuf *pW = &pA->p->wrap;
  if( !docextBsonFind(aDoc, pNode->zName, pNode->nName, &v) ) return;
  if( v.type!=DOC_ARRAY ) return;
  docextIterInitValue(&it, &v);
  while( pA->rc==SQLITE_OK && docextIterNext(&it) ){
    i64 iDoc, iArr;
    int bMatch = 0;
    docextBufReset(pW);
    iDoc = docextBsonStartDoc(&pA->rc, pW);
    iArr = docextBsonStartChild(&pA->rc, pW, DOC_ARRAY, pNode->zName, pNode->nName);
    docextBsonAppendValue(&pA->rc, pW, "0", 1, &it.v);
    docextBsonEndDoc(&pA->rc, pW, iArr);
    docextBsonEndDoc(&pA->rc, pW, iDoc);
    if( pA->rc ) return;
    pA->rc = docextMatcherMatch(pNode->pElem, pW->a, &bMatch, 0, pA->pzErr);
    if( pA->rc==SQLITE_OK && bMatch ){
      i64 iSub = docextBsonStartChild(&pA->rc, pA->pOut, DOC_ARRAY,
                                      pNode->zName, pNode->nName);
      docextBsonAppendValue(&pA->rc, pA->pOut, "0", 1, &it.v);
      docextBsonEndDoc(&pA->rc, pA->pOut, iSub);
      return;
    }
  }
}

int docextProjectionApply(DocProjection *p, const u8 *aDoc, int iPos,
                          DocBuf *pOut, char **pzErr){
  DocProjApply sA;
  i64 iDoc;
  docextBufReset(pOut);
  sA.p = p;
  sA.iPos = iPos;
  sA.rc = SQLITE_OK;
  sA.pzErr = pzErr;
  sA.pOut = pOut;
  sA.nNested = 0;
  iDoc = docextBsonStartDoc(&sA.rc, pOut);
  projApplyDoc(&sA, &p->root, aDoc, 1, p->zPositional!=0);
  if( p->bElemMatch ){
    DocProjNode *pNode;
    for(pNode=p->root.pChild; pNode && sA.rc==SQLITE_OK; pNode=pNode->pNext){
      if( pNode->eKind==PROJ_ELEMMATCH ) projApplyElemMatch(&sA, pNode, aDoc);
    }
  }
  if( p->bMeta ){
    DocProjNode *pNode;
    for(pNode=p->root.pChild; pNode && sA.rc==SQLITE_OK; pNode=pNode->pNext){
      double r = 0.0;
      if( pNode->eKind!=PROJ_META ) continue;
      if( p->pText==0 ){
        sA.rc = docextTextNoScore(pzErr);
      }else{
        sA.rc = docextTextScore(p->pText, aDoc, &r, pzErr);
      }
      docextBsonAppendDouble(&sA.rc, pOut, pNode->zName, pNode->nName, r);
    }
  }
  docextBsonEndDoc(&sA.rc, pOut, iDoc);
  return sA.rc;
}

int docextProjectionWantsText(DocProjection *p){
  return p->bMeta;
}

void docextProjectionSetText(DocProjection *p, DocText *pText){
  p->pText = pText;
}

/*------------------------------------------------------------------------
** Sort keys
*/

#define SORT_MAX_FIELDS 32      /* as MongoDB's key generator */

struct DocSort {
  u8 *aCopy;              /* private copy of the sort document */
  DocIndex idx;           /* the sort pattern as a key pattern (iId -1) */
  char *azPath[SORT_MAX_FIELDS];   /* its paths (point into aCopy) */
  int aDir[SORT_MAX_FIELDS];       /* 1 or -1 */
  DocIndexScratch *pScratch;       /* the key generator's memory */
  const DocGeo *pNear;             /* a $near's order: its point (not owned) */
  char *zNearPath;                 /* and its path */
  int nNearPath;
  /* {score: {$meta: "textScore"}}: idx holds the fields before it, pAfter
  ** those after it; the text score, highest first, goes between them. */
  int bMeta;
  DocSort *pAfter;
  DocText *pText;                  /* the query's $text, which scores (not owned) */
};

/* Is v {$meta: "textScore"}? */
static int sortIsMeta(const DocValue *v){
  DocIter it;
  if( v->type!=DOC_DOCUMENT ) return 0;
  docextIterInitValue(&it, v);
  if( !docextIterNext(&it) || strcmp(it.zKey, "$meta")!=0 ) return 0;
  return docextTextMetaIsScore(&it.v) && !docextIterNext(&it);
}

/* The fields of aSort after its $meta, as a sort of their own. */
static int sortAfterMeta(DocSort *p, char **pzErr){
  DocBuf after;
  DocIter it;
  int rc = SQLITE_OK, bAfter = 0;
  i64 iStart;
  memset(&after, 0, sizeof(after));
  iStart = docextBsonStartDoc(&rc, &after);
  docextIterInit(&it, p->aCopy);
  while( docextIterNext(&it) ){
    if( bAfter ) docextBsonAppendValue(&rc, &after, it.zKey, it.nKey, &it.v);
    if( sortIsMeta(&it.v) ) bAfter = 1;
  }
  docextBsonEndDoc(&rc, &after, iStart);
  if( rc==SQLITE_OK && docextGetI32(after.a)>5 ){
    rc = docextSortNew(after.a, &p->pAfter, pzErr);
  }
  docextBufFree(&after);
  return rc;
}

static int sortKeyDirection(const DocValue *v){
  double d;
  if( !docextValueIsNumber(v) ) return 0;
  d = docextValueToDouble(v);
  if( d==1.0 ) return 1;
  if( d==-1.0 ) return -1;
  return 0;
}

int docextSortNew(const u8 *aSort, DocSort **ppOut, char **pzErr){
  DocSort *p;
  DocIter it;
  int nField = 0;
  *ppOut = 0;
  int nMeta = 0;
  docextIterInit(&it, aSort);
  while( docextIterNext(&it) ){
    int eDir = sortKeyDirection(&it.v);
    if( eDir==0 && sortIsMeta(&it.v) ){
      if( ++nMeta>1 ){
        return docextError(pzErr, "docext: a sort may have one {$meta: \"textScore\"}");
      }
      eDir = 1;
    }
    if( eDir==0 ){
      return docextError(pzErr, "docext: bad sort direction for '%s': must be 1, -1 "
                         "or {$meta: \"textScore\"}", it.zKey);
    }
    if( it.nKey==0 ){
      return docextError(pzErr, "docext: empty field name in sort");
    }
    if( ++nField>SORT_MAX_FIELDS ){
      return docextError(pzErr, "docext: a sort may have at most %d fields", SORT_MAX_FIELDS);
    }
  }
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  p->aCopy = docextBsonCopy(aSort);
  if( p->aCopy==0 ){
    sqlite3_free(p);
    return SQLITE_NOMEM;
  }
  p->idx.iId = -1;
  p->idx.zName = (char*)"sort";
  p->idx.aKeys = p->aCopy;
  p->idx.azPath = p->azPath;
  p->idx.aDir = p->aDir;
  p->idx.nExpireAfter = -1;
  docextIterInit(&it, p->aCopy);
  while( docextIterNext(&it) ){
    if( sortIsMeta(&it.v) ){
      int rc;
      p->bMeta = 1;
      rc = sortAfterMeta(p, pzErr);
      if( rc ){
        docextSortFree(p);
        return rc;
      }
      break;
    }
    p->azPath[p->idx.nField] = (char*)it.zKey;
    p->aDir[p->idx.nField] = sortKeyDirection(&it.v);
    p->idx.nField++;
  }
  *ppOut = p;
  return SQLITE_OK;
}

int docextSortWantsText(DocSort *p){
  return p->bMeta;
}

void docextSortSetText(DocSort *p, DocText *pText){
  p->pText = pText;
}

void docextSortSetCollator(DocSort *p, const DocCollator *pCollator){
  for(; p; p=p->pAfter){
    docextCollatorFree(p->idx.pCollator);
    p->idx.pCollator = docextCollatorRef(pCollator);
  }
}

static const u8 aSortNull[1] = {0};

/* The value at path z (NUL-terminated) when no array lies on it: 1 and
** *pOut (null when the path is missing or runs into a scalar); 0 when an
** array is met, which only the key generator reads right. */
static int sortPlainValue(const u8 *aDoc, const char *z, DocValue *pOut){
  DocValue v;
  v.type = DOC_DOCUMENT;
  v.p = aDoc;
  v.n = docextGetI32(aDoc);
  for(;;){
    const char *zDot = strchr(z, '.');
    int nComp = zDot ? (int)(zDot - z) : (int)strlen(z);
    if( v.type!=DOC_DOCUMENT || !docextBsonFind(v.p, z, nComp, &v) ){
      pOut->type = DOC_NULL;
      pOut->p = aSortNull;
      pOut->n = 0;
      return 1;
    }
    if( v.type==DOC_ARRAY ) return 0;
    if( zDot==0 ){
      *pOut = v;
      return 1;
    }
    z = zDot+1;
  }
}

int docextSortNewNear(const char *zPath, int nPath, const DocGeo *pNear, DocSort **ppOut){
  DocSort *p = docextMallocZero(sizeof(*p));
  *ppOut = 0;
  if( p==0 ) return SQLITE_NOMEM;
  p->zNearPath = sqlite3_mprintf("%.*s", nPath, zPath);
  if( p->zNearPath==0 ){
    sqlite3_free(p);
    return SQLITE_NOMEM;
  }
  p->pNear = pNear;
  p->nNearPath = nPath;
  *ppOut = p;
  return SQLITE_OK;
}

/* The least distance from a $near's point to a location on the path. */
typedef struct SortNear SortNear;
struct SortNear {
  const DocGeo *pNear;
  double r;                 /* the least so far, or -1 */
};

static int sortNearVisit(void *pCtx, const DocValue *v, int iPos){
  SortNear *p = (SortNear*)pCtx;
  double r;
  int rc = docextGeoDistance(p->pNear, v, &r);
  (void)iPos;
  if( rc==SQLITE_OK && r>=0 && (p->r<0 || r<p->r) ) p->r = r;
  return rc;
}

void docextSortDistanceKey(int *pRc, DocBuf *pKey, double r){
  u8 a8[8];
  DocValue v;
  memcpy(a8, &r, 8);
  v.type = DOC_DOUBLE;
  v.p = a8;
  v.n = 8;
  docextKeyAppend(pRc, pKey, &v, 0);
}

int docextSortKey(DocSort *p, const u8 *aDoc, DocBuf *pKey, char **pzErr){
  int rc = SQLITE_OK, i;
  i64 nStart = pKey->n;
  if( p->pNear ){
    /* a $near's order: the distance, as a double's key (none: the end) */
    SortNear w;
    w.pNear = p->pNear;
    w.r = -1;
    rc = docextPathWalkMatch(aDoc, p->zNearPath, p->nNearPath, 0, sortNearVisit, &w);
    if( rc==SQLITE_OK ) docextSortDistanceKey(&rc, pKey, w.r<0 ? INFINITY : w.r);
    return rc;
  }
  /* Without arrays on the paths there is one key: the values themselves. */
  for(i=0; i<p->idx.nField; i++){
    DocValue v;
    if( !sortPlainValue(aDoc, p->azPath[i], &v) ) break;
    docextKeyAppendColl(&rc, pKey, &v, p->aDir[i]<0, p->idx.pCollator);
  }
  if( rc==SQLITE_OK && i<p->idx.nField ){
    pKey->n = nStart;
    rc = docextIndexFirstKey(&p->idx, aDoc, pKey, &p->pScratch, pzErr);
  }
  if( rc==SQLITE_OK && p->bMeta ){
    double r = 0.0;
    if( p->pText ){
      rc = docextTextScore(p->pText, aDoc, &r, pzErr);
    }else if( docextTextScoreField(aDoc, &r) ){
      /* (in doc_aggregate) */
    }else{
      rc = docextTextNoScore(pzErr);
    }
    docextSortDistanceKey(&rc, pKey, -r);           /* (the highest first) */
    if( rc==SQLITE_OK && p->pAfter ) rc = docextSortKey(p->pAfter, aDoc, pKey, pzErr);
  }
  return rc;
}

int docextSortFieldCount(DocSort *p){
  if( p->pNear ) return 1;
  return p->idx.nField + p->bMeta + (p->pAfter ? docextSortFieldCount(p->pAfter) : 0);
}

void docextSortFree(DocSort *p){
  if( p ){
    docextIndexScratchFree(p->pScratch);
    docextCollatorFree(p->idx.pCollator);
    docextSortFree(p->pAfter);
    sqlite3_free(p->aCopy);
    sqlite3_free(p->zNearPath);
    sqlite3_free(p);
  }
}
