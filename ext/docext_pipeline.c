/*
** docext_pipeline.c — updates written as aggregation pipelines (MongoDB
** 4.2+): doc_update_one(coll, filter, '[{$set: {…}}, {$unset: "x"}]').
**
** The stages a pipeline update may hold, each applied to the output of the
** one before:
**   $set / $addFields  {field: expression, "a.b": expression, a: {b: …}}
**   $project           inclusions (1/true), exclusions (0/false) and, with
**                      inclusions, computed fields
**   $unset             "field" or ["field", …]
**   $replaceRoot       {newRoot: expression};  $replaceWith: expression
** Expressions are docext_expr.c's, evaluated against the stage's whole
** input document ($$ROOT), with the update's let variables.
**
** THE SHAPE TREE. The fields of $set, $project and $unset compile into a
** tree of PipeField: one node per path component, a leaf holding what
** happens to that field (include, exclude, or a computed expression). How
** a tree meets a value is MongoDB's (ProjectionNode): a document is walked
** field by field; an array has each element treated as the value itself;
** for $set, a scalar or missing value under a node with computed fields
** becomes a new document of those fields; for inclusion, it is dropped.
** Fields keep their order; computed fields that are new come after the
** existing ones, in the order the stage wrote them.
*/
#include "docextInt.h"

typedef struct PipeField PipeField;
typedef struct PipeStage PipeStage;
typedef struct PipeParse PipeParse;

/* What a leaf does. */
#define PF_NESTED   0     /* not a leaf: apChild */
#define PF_INCLUDE  1
#define PF_EXCLUDE  2
#define PF_COMPUTE  3     /* pExpr */

struct PipeField {
  const char *zName;      /* the path component (in the stage's copy) */
  int nName;
  int eKind;              /* PF_* */
  int nPart;              /* path components from the stage's root to here */
  int bComputes;          /* this leaf, or a leaf below, is PF_COMPUTE */
  DocExpr *pExpr;         /* PF_COMPUTE */
  PipeField **apChild;    /* PF_NESTED: the fields below, in order */
  int nChild, nChildAlloc;
  int *aHash;             /* with many children: their indexes by a hash of
                          ** the name (-1 empty), nHash slots, or NULL */
  int nHash;
};

/* Stage kinds. */
#define PS_SET      1     /* $set, $addFields */
#define PS_INCLUDE  2     /* $project with inclusions (and computed fields) */
#define PS_EXCLUDE  3     /* $project with exclusions, $unset */
#define PS_ROOT     4     /* $replaceRoot, $replaceWith */

struct PipeStage {
  int eStage;             /* PS_* */
  const char *zName;      /* "$set", ... for messages */
  PipeField root;         /* PS_SET, PS_INCLUDE, PS_EXCLUDE */
  DocExpr *pRoot;         /* PS_ROOT: the new root */
};

struct DocPipeline {
  u8 *aCopy;              /* the stages and the let variables: the tree
                          ** points into this copy */
  PipeStage *aStage;
  int nStage;
};

struct PipeParse {
  int rc;
  char *zErr;
  const char *zStage;     /* the stage being parsed */
  const u8 *aLet;         /* the let variables, or NULL */
  DocBuf where;           /* "$set 'a.b." while {a: {b: {…}}}'s inner
                          ** fields are parsed: how messages name a field */
  i64 nowMs;              /* $$NOW, one time for every stage */
  const DocCollator *pCollator;  /* the expressions' collation, or NULL */
};

/*------------------------------------------------------------------------
** Compiling
*/

static void pipeError(PipeParse *pP, const char *zFmt, ...){
  if( pP->rc==SQLITE_OK ){
    va_list ap;
    va_start(ap, zFmt);
    pP->rc = docextErrorV(&pP->zErr, zFmt, ap);
    va_end(ap);
  }
}

static void pipeFieldClear(PipeField *p){
  int i;
  for(i=0; i<p->nChild; i++){
    pipeFieldClear(p->apChild[i]);
    sqlite3_free(p->apChild[i]);
  }
  sqlite3_free(p->apChild);
  sqlite3_free(p->aHash);
  docextExprFree(p->pExpr);
}

/* Where child name z[0..n) is or would go in p->aHash. */
static int pipeHashSlot(const PipeField *p, const char *z, int n){
  int h = (int)(docextHashBytes((const u8*)z, n) & (u64)(p->nHash-1));
  while( p->aHash[h]>=0 ){
    const PipeField *c = p->apChild[p->aHash[h]];
    if( c->nName==n && memcmp(c->zName, z, n)==0 ) break;
    h = (h+1) & (p->nHash-1);
  }
  return h;
}

/* Index child i of p in p->aHash, made (or doubled) when the children
** outgrow it: a stage or document with many fields is then matched in
** linear time, not quadratic. */
static int pipeHashAdd(PipeField *p, int i){
  if( p->nChild<16 ) return SQLITE_OK;
  if( p->nHash<2*p->nChild ){
    int k;
    sqlite3_free(p->aHash);
    p->nHash = 64;
    while( p->nHash<4*p->nChild ) p->nHash *= 2;
    p->aHash = sqlite3_malloc64(sizeof(int)*p->nHash);
    if( p->aHash==0 ){
      p->nHash = 0;
      return SQLITE_NOMEM;
    }
    memset(p->aHash, 0xff, sizeof(int)*p->nHash);
    for(k=0; k<p->nChild; k++){
      p->aHash[pipeHashSlot(p, p->apChild[k]->zName, p->apChild[k]->nName)] = k;
    }
    return SQLITE_OK;
  }
  p->aHash[pipeHashSlot(p, p->apChild[i]->zName, p->apChild[i]->nName)] = i;
  return SQLITE_OK;
}

/* The index of the child of p named z[0..n), or -1. */
static int pipeFind(const PipeField *p, const char *z, int n){
  int i;
  if( p->aHash ){
    int h = pipeHashSlot(p, z, n);
    return p->aHash[h];
  }
  for(i=0; i<p->nChild; i++){
    if( p->apChild[i]->nName==n && memcmp(p->apChild[i]->zName, z, n)==0 ) return i;
  }
  return -1;
}

/* The child of p named z[0..n), made (PF_NESTED) when bCreate. */
static PipeField *pipeChild(PipeParse *pP, PipeField *p, const char *z, int n, int bCreate){
  PipeField *pNew;
  int i = pipeFind(p, z, n);
  if( i>=0 ) return p->apChild[i];
  if( !bCreate || pP->rc ) return 0;
  p->apChild = docextArrayGrow(&pP->rc, p->apChild, p->nChild, &p->nChildAlloc, sizeof(PipeField*));
  pNew = pP->rc ? 0 : docextMallocZero(sizeof(PipeField));
  if( pNew==0 ){
    if( pP->rc==SQLITE_OK ) pP->rc = SQLITE_NOMEM;
    return 0;
  }
  pNew->zName = z;
  pNew->nName = n;
  pNew->nPart = p->nPart + 1;
  p->apChild[p->nChild++] = pNew;
  pP->rc = pipeHashAdd(p, p->nChild-1);
  return pP->rc ? 0 : pNew;
}

/* The node for dotted path z[0..n) below p, made (PF_NESTED) where it is
** missing. bLeaf: it is to be a leaf, so nothing may be there yet; else it
** is to hold more paths ({a: {b: …}}), so it may be there as a node. Either
** way no leaf may stand on the way: two paths of a stage may not meet. */
static PipeField *pipePath(PipeParse *pP, PipeField *p, const char *z, int n, int bLeaf){
  int i = 0;
  while( pP->rc==SQLITE_OK ){
    const char *zDot = memchr(z+i, '.', n-i);
    int nPart = zDot ? (int)(zDot - (z+i)) : n-i;
    PipeField *pChild;
    if( nPart==0 || z[i]=='$' ){
      pipeError(pP, "docext: %s: field path '%.*s' has an empty part or one that "
                    "starts with '$'", pP->zStage, n, z);
      return 0;
    }
    pChild = pipeChild(pP, p, z+i, nPart, 0);
    if( pChild && (pChild->eKind!=PF_NESTED || (zDot==0 && bLeaf)) ){
      pipeError(pP, "docext: %s: two paths meet at '%.*s'", pP->zStage, n, z);
      return 0;
    }
    if( pChild==0 && p->nPart>=DOCEXT_MAX_PATH_PARTS ){
      /* (every walk of the tree goes one call deeper a component) */
      pipeError(pP, "docext: %s: field path '%.*s%s' has more than %d components", pP->zStage,
                n<60 ? n : 60, z, n<60 ? "" : "...", DOCEXT_MAX_PATH_PARTS);
      return 0;
    }
    if( pChild==0 ) pChild = pipeChild(pP, p, z+i, nPart, 1);
    if( pChild==0 ) return 0;
    if( zDot==0 ) return pChild;
    p = pChild;
    i += nPart + 1;
  }
  return 0;
}

static void pipeParseFields(PipeParse *pP, PipeField *pRoot, const DocValue *v, int eStage,
                            int *pnInclude, int *pnExclude);

/* Close the quote of pP->where, the name of a computed field for its
** expression's messages. A long path is cut (at a character) and ended
** with "...": every field of a stage keeps a copy. */
static void pipeWhereEnd(PipeParse *pP){
  enum { MAX_WHERE = 100 };
  DocBuf *p = &pP->where;
  if( pP->rc ) return;
  docextBufCutText(&pP->rc, p, 0, MAX_WHERE);
  docextBufAppend(&pP->rc, p, "'", 2);            /* (and the 0) */
}

/* One field of $set or $project: value v for path z[0..n) below pRoot. */
static void pipeParseField(PipeParse *pP, PipeField *pRoot, const char *z, int n,
                           const DocValue *v, int eStage, int *pnInclude, int *pnExclude){
  int bSpec = v->type==DOC_DOCUMENT && !docextIsOperatorDoc(v) && docextGetI32(v->p)>5;
  PipeField *pLeaf = pipePath(pP, pRoot, z, n, !bSpec);
  i64 nWhere = pP->where.n;
  if( pLeaf==0 ) return;
  if( nWhere==0 ){
    docextBufAppend(&pP->rc, &pP->where, pP->zStage, (i64)strlen(pP->zStage));
    docextBufAppend(&pP->rc, &pP->where, " '", 2);
  }
  docextBufAppend(&pP->rc, &pP->where, z, n);
  if( bSpec ){
    /* {a: {b: …}}: the same as "a.b" */
    docextBufAppend(&pP->rc, &pP->where, ".", 1);
    if( pP->rc==SQLITE_OK ) pipeParseFields(pP, pLeaf, v, eStage, pnInclude, pnExclude);
  }else if( eStage!=PS_SET && (v->type==DOC_BOOL || docextValueIsNumber(v)) ){
    /* $project: 1/true includes, 0/false excludes */
    pLeaf->eKind = docextValueTruth(v) ? PF_INCLUDE : PF_EXCLUDE;
    if( pLeaf->eKind==PF_INCLUDE ) (*pnInclude)++;
    else if( !(pRoot->zName==0 && n==3 && memcmp(z, "_id", 3)==0) ) (*pnExclude)++;
  }else{
    pLeaf->eKind = PF_COMPUTE;
    pipeWhereEnd(pP);
    if( pP->rc==SQLITE_OK ){
      pP->rc = docextExprNew(v, pP->aLet, (const char*)pP->where.a, pP->nowMs,
                             &pLeaf->pExpr, &pP->zErr);
      if( pP->rc==SQLITE_OK ) docextExprSetCollator(pLeaf->pExpr, pP->pCollator);
    }
    if( eStage!=PS_SET ) (*pnInclude)++;        /* (computed: inclusion mode) */
  }
  pP->where.n = nWhere;
}

static void pipeParseFields(PipeParse *pP, PipeField *pRoot, const DocValue *v, int eStage,
                            int *pnInclude, int *pnExclude){
  DocIter it;
  docextIterInitValue(&it, v);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    pipeParseField(pP, pRoot, it.zKey, it.nKey, &it.v, eStage, pnInclude, pnExclude);
  }
}

/* $project: inclusion or exclusion, as its fields say. */
static void pipeParseProject(PipeParse *pP, PipeStage *pS, const DocValue *v){
  int nInclude = 0, nExclude = 0;
  pipeParseFields(pP, &pS->root, v, PS_INCLUDE, &nInclude, &nExclude);
  if( pP->rc ) return;
  if( nInclude && nExclude ){
    pipeError(pP, "docext: $project: cannot mix inclusion (or computed fields) and "
                  "exclusion, other than of _id");
    return;
  }
  if( nInclude==0 && (nExclude || pS->root.nChild) ){
    pS->eStage = PS_EXCLUDE;                   /* (also {_id: 0} alone) */
  }else if( nInclude==0 ){
    pipeError(pP, "docext: $project needs at least one field");
  }else{
    pS->eStage = PS_INCLUDE;
  }
}

/* $unset: a field path or an array of them. */
static void pipeParseUnset(PipeParse *pP, PipeStage *pS, const DocValue *v){
  DocIter it;
  pS->eStage = PS_EXCLUDE;
  if( v->type==DOC_STRING ){
    PipeField *p = pipePath(pP, &pS->root, (const char*)v->p+4, v->n-5, 1);
    if( p ) p->eKind = PF_EXCLUDE;
    return;
  }
  if( v->type!=DOC_ARRAY || docextGetI32(v->p)==5 ){
    pipeError(pP, "docext: $unset needs a field path or a non-empty array of them");
    return;
  }
  docextIterInitValue(&it, v);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    PipeField *p;
    if( it.v.type!=DOC_STRING ){
      pipeError(pP, "docext: $unset: each field must be a string, not %s",
                docextTypeAlias(it.v.type));
      return;
    }
    p = pipePath(pP, &pS->root, (const char*)it.v.p+4, it.v.n-5, 1);
    if( p ) p->eKind = PF_EXCLUDE;
  }
}

/* Set bComputes in the tree at p, once, for the walks that ask it of
** every node they meet in every document. */
static int pipeMarkComputes(PipeField *p){
  int i;
  p->bComputes = p->eKind==PF_COMPUTE;
  for(i=0; i<p->nChild; i++){
    if( pipeMarkComputes(p->apChild[i]) ) p->bComputes = 1;
  }
  return p->bComputes;
}


/* One stage {$name: spec}. */
static void pipeParseStage(PipeParse *pP, PipeStage *pS, const DocValue *pStage){
  DocIter it;
  if( pStage->type!=DOC_DOCUMENT || docextGetI32(pStage->p)==5 ){
    pipeError(pP, "docext: each stage of a pipeline update must be a document {$stage: …}");
    return;
  }
  docextIterInitValue(&it, pStage);
  docextIterNext(&it);
  pS->zName = it.zKey;
  pP->zStage = it.zKey;
  if( docextIterCount(pStage)!=1 ){
    pipeError(pP, "docext: a pipeline stage must have exactly one field, %s has more", it.zKey);
    return;
  }
  if( docextIterKeyIs(&it, "$set") || docextIterKeyIs(&it, "$addFields") ){
    int nInclude = 0, nExclude = 0;
    if( it.v.type!=DOC_DOCUMENT || docextGetI32(it.v.p)==5 ){
      pipeError(pP, "docext: %s needs a non-empty document of fields", it.zKey);
      return;
    }
    pS->eStage = PS_SET;
    pipeParseFields(pP, &pS->root, &it.v, PS_SET, &nInclude, &nExclude);
  }else if( docextIterKeyIs(&it, "$project") ){
    if( it.v.type!=DOC_DOCUMENT ){
      pipeError(pP, "docext: $project needs a document");
      return;
    }
    pipeParseProject(pP, pS, &it.v);
  }else if( docextIterKeyIs(&it, "$unset") ){
    pipeParseUnset(pP, pS, &it.v);
  }else if( docextIterKeyIs(&it, "$replaceRoot") || docextIterKeyIs(&it, "$replaceWith") ){
    DocValue root = it.v;
    if( docextIterKeyIs(&it, "$replaceRoot") ){
      if( it.v.type!=DOC_DOCUMENT || docextIterCount(&it.v)!=1
       || !docextBsonFind(it.v.p, "newRoot", 7, &root) ){
        pipeError(pP, "docext: $replaceRoot needs a document {newRoot: …}");
        return;
      }
    }
    pS->eStage = PS_ROOT;
    pP->rc = docextExprNew(&root, pP->aLet, it.zKey, pP->nowMs, &pS->pRoot, &pP->zErr);
    if( pP->rc==SQLITE_OK ) docextExprSetCollator(pS->pRoot, pP->pCollator);
  }else{
    pipeError(pP, "docext: %s is not allowed in a pipeline update (only $set, "
                  "$addFields, $project, $unset, $replaceRoot, $replaceWith)", it.zKey);
  }
}

/*------------------------------------------------------------------------
** Applying
*/

typedef struct PipeApply PipeApply;
struct PipeApply {
  const u8 *aRoot;        /* the stage's input: what expressions read */
  int rc;
  char *zErr;
};

static void pipeValue(PipeApply *pA, const PipeField *pNode, int eStage, DocBuf *pOut,
                      const char *zKey, int nKey, const DocValue *v);

/* Has the output outgrown a document? (Checked as it grows: a value
** computed into each element of a large array could otherwise take the
** machine's memory before the stage ends.) */
static int pipeTooBig(PipeApply *pA, const DocBuf *pOut){
  if( pA->rc==SQLITE_OK && pOut->n>DOCEXT_MAX_BSON ){
    pA->rc = docextError(&pA->zErr, "docext: the document would be larger than 16 MiB");
  }
  return pA->rc!=SQLITE_OK;
}

/* A stage's document nests no deeper than a stored one may: the next stage
** and the caller walk it, and a stage can nest its input deeper (a long
** path, or an expression such as {$reduce: …, in: ["$$value"]}, which
** may nest a value thousands of levels deep). */
static void pipeTooDeep(PipeApply *pA, const PipeStage *pS, const DocBuf *pOut){
  DocValue v;
  if( pA->rc!=SQLITE_OK ) return;
  v.type = DOC_DOCUMENT;
  v.p = pOut->a;
  v.n = (int)pOut->n;
  if( docextValueDepth(&v, DOCEXT_MAX_DEPTH+1)>DOCEXT_MAX_DEPTH+1 ){
    pA->rc = docextError(&pA->zErr, "docext: %s: the document would nest deeper "
                         "than %d levels", pS->zName, DOCEXT_MAX_DEPTH);
  }
}

/* Append computed leaf pLeaf's value as element zKey (nothing if missing). */
static void pipeCompute(PipeApply *pA, const PipeField *pLeaf, DocBuf *pOut,
                        const char *zKey, int nKey){
  int type;
  if( pA->rc ) return;
  pA->rc = docextExprAppend(pLeaf->pExpr, pA->aRoot, pOut, zKey, nKey, &type, &pA->zErr);
}

/* Document aDoc (NULL: none, as {}) through the fields of pNode, appended
** as element zKey. */
static void pipeDoc(PipeApply *pA, const PipeField *pNode, int eStage, DocBuf *pOut,
                    const char *zKey, int nKey, const u8 *aDoc){
  static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
  DocIter it;
  i64 iStart;
  u8 aDone[256];
  u8 *abDone = aDone;
  int i;
  if( pA->rc ) return;
  if( pNode->nChild>(int)sizeof(aDone) ){
    abDone = docextMallocZero(pNode->nChild);
    if( abDone==0 ){
      pA->rc = SQLITE_NOMEM;
      return;
    }
  }else{
    memset(aDone, 0, sizeof(aDone));
  }
  iStart = zKey ? docextBsonStartChild(&pA->rc, pOut, DOC_DOCUMENT, zKey, nKey)
                : docextBsonStartDoc(&pA->rc, pOut);
  docextIterInit(&it, aDoc ? aDoc : aEmpty);
  while( !pipeTooBig(pA, pOut) && docextIterNext(&it) ){
    i = pipeFind(pNode, it.zKey, it.nKey);
    if( i<0 ){
      /* not named: kept by $set and exclusion, dropped by inclusion (but
      ** for the top-level _id, included unless excluded) */
      if( eStage!=PS_INCLUDE
       || (zKey==0 && aDoc && (docextIterKeyIs(&it, "_id")
                               || docextIterKeyIs(&it, DOCEXT_TEXT_SCORE_FIELD))) ){
        docextBsonAppendValue(&pA->rc, pOut, it.zKey, it.nKey, &it.v);
      }
      continue;
    }
    if( eStage==PS_INCLUDE && pNode->apChild[i]->eKind==PF_COMPUTE ){
      continue;        /* $project puts computed fields after included ones */
    }
    abDone[i] = 1;
    pipeValue(pA, pNode->apChild[i], eStage, pOut, it.zKey, it.nKey, &it.v);
  }
  /* fields the document did not have: computed ones, in the stage's order */
  for(i=0; i<pNode->nChild && !pipeTooBig(pA, pOut); i++){
    const PipeField *c = pNode->apChild[i];
    if( abDone[i] || !c->bComputes ) continue;
    if( c->eKind==PF_COMPUTE ) pipeCompute(pA, c, pOut, c->zName, c->nName);
    else pipeDoc(pA, c, eStage, pOut, c->zName, c->nName, 0);
  }
  if( abDone!=aDone ) sqlite3_free(abDone);
  docextBsonEndDoc(&pA->rc, pOut, iStart);
}

/* Value v of field zKey, met by node pNode, appended (or dropped). */
static void pipeValue(PipeApply *pA, const PipeField *pNode, int eStage, DocBuf *pOut,
                      const char *zKey, int nKey, const DocValue *v){
  switch( pNode->eKind ){
    case PF_INCLUDE:
      docextBsonAppendValue(&pA->rc, pOut, zKey, nKey, v);
      return;
    case PF_EXCLUDE:
      return;
    case PF_COMPUTE:
      pipeCompute(pA, pNode, pOut, zKey, nKey);
      return;
  }
  if( v->type==DOC_DOCUMENT ){
    pipeDoc(pA, pNode, eStage, pOut, zKey, nKey, v->p);
  }else if( v->type==DOC_ARRAY ){
    DocIter it;
    int i = 0;
    i64 iStart = docextBsonStartChild(&pA->rc, pOut, DOC_ARRAY, zKey, nKey);
    docextIterInitValue(&it, v);
    while( !pipeTooBig(pA, pOut) && docextIterNext(&it) ){
      char zIdx[16];
      int nIdx = docextBsonArrayKey(zIdx, i);
      i64 nBefore = pOut->n;
      pipeValue(pA, pNode, eStage, pOut, zIdx, nIdx, &it.v);
      if( pOut->n>nBefore ) i++;             /* (an element dropped: keys close up) */
    }
    docextBsonEndDoc(&pA->rc, pOut, iStart);
  }else if( eStage==PS_EXCLUDE ){
    docextBsonAppendValue(&pA->rc, pOut, zKey, nKey, v);
  }else if( pNode->bComputes ){
    /* a scalar where computed fields go down: a new document of them */
    pipeDoc(pA, pNode, eStage, pOut, zKey, nKey, 0);
  }
  /* (else, inclusion: a scalar where documents were expected is dropped) */
}

/* A new root keeps the text score the input had (in doc_aggregate: MongoDB
** keeps a document's metadata), unless it has a field of that name. */
static void pipeKeepScore(PipeApply *pA, const u8 *aIn, DocBuf *pOut){
  double r, rOut;
  if( docextTextScoreField(aIn, &r) && !docextTextScoreField(pOut->a, &rOut) ){
    docextTextScoreFieldAdd(&pA->rc, pOut, r);
  }
}

/* Run stage pS on aIn, writing its output document to pOut. */
static int pipeRunStage(PipeApply *pA, const PipeStage *pS, const u8 *aIn, DocBuf *pOut){
  docextBufReset(pOut);
  pA->aRoot = aIn;
  if( pS->eStage==PS_ROOT ){
    int type = 0;
    i64 iStart = docextBsonStartDoc(&pA->rc, pOut);
    /* (not after a failed start, whose header the value would stand in for) */
    if( pA->rc==SQLITE_OK ){
      pA->rc = docextExprAppend(pS->pRoot, aIn, pOut, "", 0, &type, &pA->zErr);
    }
    docextBsonEndDoc(&pA->rc, pOut, iStart);
    if( pA->rc==SQLITE_OK && type!=DOC_DOCUMENT ){
      pA->rc = docextError(&pA->zErr, "docext: %s: the new root must be a document, "
                           "not %s", pS->zName, type ? docextTypeAlias(type) : "missing");
    }
    if( pA->rc==SQLITE_OK ){
      DocValue v;
      docextBsonFind(pOut->a, "", 0, &v);
      memmove(pOut->a, v.p, v.n);
      pOut->n = v.n;
      pipeKeepScore(pA, aIn, pOut);
    }
    pipeTooDeep(pA, pS, pOut);
    return pA->rc;
  }
  pipeDoc(pA, &pS->root, pS->eStage, pOut, 0, 0, aIn);
  pipeTooBig(pA, pOut);
  pipeTooDeep(pA, pS, pOut);
  return pA->rc;
}

/*------------------------------------------------------------------------
** The interface
*/

int docextPipelineNew(const u8 *aStages, const u8 *aLet, i64 nowMs,
                      const DocCollator *pCollator, DocPipeline **ppOut, char **pzErr){
  int nStages = docextGetI32(aStages), nLet = aLet ? docextGetI32(aLet) : 0, i = 0;
  DocPipeline *p;
  PipeParse sParse;
  DocValue stages;
  DocIter it;
  *ppOut = 0;
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(&sParse, 0, sizeof(sParse));
  sParse.nowMs = nowMs ? nowMs : docextClockNowMs();
  sParse.pCollator = pCollator;
  p->aCopy = sqlite3_malloc64(nStages + nLet);
  if( p->aCopy==0 ){
    sqlite3_free(p);
    return SQLITE_NOMEM;
  }
  memcpy(p->aCopy, aStages, nStages);
  if( aLet ){
    memcpy(p->aCopy + nStages, aLet, nLet);
    sParse.aLet = p->aCopy + nStages;
  }
  stages.type = DOC_ARRAY;
  stages.p = p->aCopy;
  stages.n = nStages;
  docextIterInitValue(&it, &stages);
  while( docextIterNext(&it) ) p->nStage++;
  if( p->nStage==0 ){
    docextPipelineFree(p);
    return docextError(pzErr, "docext: a pipeline update needs at least one stage");
  }
  p->aStage = docextMallocZero(sizeof(PipeStage)*p->nStage);
  if( p->aStage==0 ){
    docextPipelineFree(p);
    return SQLITE_NOMEM;
  }
  docextIterInitValue(&it, &stages);
  while( sParse.rc==SQLITE_OK && docextIterNext(&it) ){
    pipeParseStage(&sParse, &p->aStage[i], &it.v);
    pipeMarkComputes(&p->aStage[i++].root);
  }
  docextBufFree(&sParse.where);
  if( sParse.rc ){
    docextPipelineFree(p);
    *pzErr = sParse.zErr;
    return sParse.rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

int docextPipelineApply(DocPipeline *p, const u8 *aDoc, DocBuf *pOut, char **pzErr){
  PipeApply a;
  DocBuf tmp;
  int i;
  memset(&a, 0, sizeof(a));
  memset(&tmp, 0, sizeof(tmp));
  for(i=0; i<p->nStage && a.rc==SQLITE_OK; i++){
    /* the stages alternate between pOut and tmp; the last writes pOut */
    DocBuf *pDst = ((p->nStage-1-i)%2==0) ? pOut : &tmp;
    const u8 *aIn = i==0 ? aDoc : (pDst==pOut ? tmp.a : pOut->a);
    pipeRunStage(&a, &p->aStage[i], aIn, pDst);
  }
  docextBufFree(&tmp);
  if( a.rc && a.zErr ) *pzErr = a.zErr;
  return a.rc;
}

void docextPipelineFree(DocPipeline *p){
  if( p ){
    int i;
    for(i=0; i<p->nStage && p->aStage; i++){
      pipeFieldClear(&p->aStage[i].root);
      docextExprFree(p->aStage[i].pRoot);
    }
    sqlite3_free(p->aStage);
    sqlite3_free(p->aCopy);
    sqlite3_free(p);
  }
}
