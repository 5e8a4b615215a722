/*
** docext_aggregate.c — MongoDB's aggregation pipeline, as the table-valued
** function doc_aggregate(coll, pipeline):
**
**   SELECT doc FROM doc_aggregate('books',
**     '[{$match: {pages: {$gt: 100}}},
**       {$group: {_id: "$author", n: {$sum: 1}}},
**       {$sort: {n: -1}}]');
**
** One row per document the last stage gives, in its order: doc (relaxed
** Extended JSON) and the hidden column bson.
**
** THE STAGES. $match, $project, $addFields/$set, $unset, $replaceRoot,
** $replaceWith, $sort, $skip, $limit, $count, $unwind, $group,
** $sortByCount, $bucket, $bucketAuto, $sample, $facet, $unionWith, $lookup
** (the equality of two fields, or a pipeline with let variables, or both),
** $graphLookup, $redact, $documents (a pipeline's documents made by
** itself, in the place of a collection), $setWindowFields and $fill
** (docext_window.c's) and $densify (docext_densify.c's). The shaping
** stages are docext_pipeline.c's (those of pipeline updates); filters,
** sorts and expressions are the ones finds and updates use; the
** accumulators are docext_expr.c's DocAccum ($median and $percentile: a
** $push finished by the expression; $firstN ... $bottomN with an n worked
** out for each group, over {_id: <its _id>}). $facet and $unionWith hold pipelines
** of their own (an Agg each), and $lookup compiles its pipeline for each
** document, with the document's values as its let variables. Any other
** stage is an error that names it.
**
** HOW IT RUNS. The stages at the head that a find can do — $match stages,
** then a $sort, then a $limit — become one query of the collection,
** through SQL ("db"."coll"(filter, NULL, sort) LIMIT n), so that indexes
** serve them and a sharded collection is read through its router. The rest
** run in memory, stage by stage, each over the whole output of the one
** before (an AggSet), as MongoDB's blocking stages do. There is no 100 MB
** limit per stage; every document made must fit in 16 MiB.
**
** ORDER where MongoDB leaves it open: $group gives its groups in the BSON
** order of their _id; $sort is stable; $densify's fills at the ends come
** partition by partition, in the order the partitions first came.
*/
#include "docextInt.h"
#include <limits.h>
#include <math.h>

#define AGG_MAX_STAGES 1000       /* MongoDB's limit of a pipeline's length */

/* Stage kinds. */
enum {
  AG_MATCH = 1, AG_SHAPE, AG_SORT, AG_SKIP, AG_LIMIT, AG_COUNT, AG_UNWIND,
  AG_GROUP, AG_LOOKUP, AG_SAMPLE, AG_FACET, AG_UNION, AG_GRAPH, AG_WINDOW, AG_AUTO,
  AG_DOCS, AG_DENSIFY, AG_REDACT, AG_GEONEAR
};   /* (AG_WINDOW: $setWindowFields, $fill; AG_AUTO: $bucketAuto; AG_DOCS:
     ** $documents) */

typedef struct Agg Agg;

/* An output field of $group: its name and accumulator. */
typedef struct AggField AggField;
struct AggField {
  const char *zName;        /* (in the pipeline's BSON) */
  int eAcc;                 /* DOCEXT_ACC_* */
  DocExpr *pExpr;           /* its operand */
  DocExpr *pFinish;         /* $median, $percentile: over the $push list */
  DocExpr *pN;              /* $firstN ... $bottomN: n */
  DocSort *pSort;           /* $top ...: the order of the items */
  DocBuf own;               /* (pFinish's or pExpr's BSON) */
};

typedef struct AggStage AggStage;
struct AggStage {
  int eStage;               /* AG_* */
  int iStage;               /* its position in the pipeline, from 1 */
  const char *zOp;          /* "$match", ... for messages */
  const u8 *aSpec;          /* its operand, when a document; AG_GRAPH:
                            ** restrictSearchWithMatch, or NULL */
  DocMatcher *pMatch;       /* AG_MATCH */
  DocPipeline *pShape;      /* AG_SHAPE */
  DocSort *pSort;           /* AG_SORT */
  DocWindow *pWindow;       /* AG_WINDOW (docext_window.c) */
  DocDensify *pDensify;     /* AG_DENSIFY (docext_densify.c) */
  i64 n;                    /* AG_SKIP, AG_LIMIT, AG_SAMPLE; AG_GRAPH:
                            ** maxDepth (-1: none); AG_AUTO: buckets */
  int iSeries;              /* AG_AUTO: its granularity, aSeries[iSeries-1],
                            ** or 0 */
  const char *zField;       /* AG_COUNT: the name; AG_UNWIND: the path;
                            ** AG_LOOKUP, AG_GRAPH: as */
  const char *zIndexField;  /* AG_UNWIND: includeArrayIndex; AG_GRAPH:
                            ** depthField; or NULL */
  int bPreserve;            /* AG_UNWIND: preserveNullAndEmptyArrays */
  DocExpr *pExpr;           /* AG_GROUP: _id; AG_GRAPH: startWith; AG_AUTO:
                            ** groupBy; AG_DOCS: the documents; AG_REDACT:
                            ** its expression */
  AggField *aField;         /* AG_GROUP, AG_AUTO; AG_LOOKUP: its let variables */
  int nField;
  DocColl *pFrom;           /* AG_LOOKUP, AG_UNION, AG_GRAPH: the other
                            ** collection, */
  char *zFrom;              /* ... and its quoted SQL name */
  const char *zLocal;       /* AG_LOOKUP: localField; AG_GRAPH:
                            ** connectFromField */
  const char *zForeign;     /* AG_LOOKUP: foreignField; AG_GRAPH:
                            ** connectToField */
  const u8 *aPipeline;      /* AG_LOOKUP: its pipeline (a BSON array), or NULL */
  Agg *aSub;                /* AG_FACET: its pipelines; AG_UNION: one */
  const char **azSub;       /* AG_FACET: their names */
  int nSub;
  DocBuf own;               /* AG_GROUP of a $bucket: its _id expression;
                            ** AG_WINDOW of a $fill: its $setWindowFields */
  int bNoDefault;           /* ... which has no default: MinKey, its value
                            ** for a value in no bucket, is an error */
  DocGeo *pNear;            /* AG_GEONEAR: near, and with it (zLocal) key,
                            ** (zField) distanceField, (zIndexField)
                            ** includeLocs or NULL, and these: */
  double rMinDist, rMaxDist, rMultiplier;
  const u8 *aNearQuery;     /* AG_GEONEAR: its query, or NULL */
  DocValue nearArg;         /* AG_GEONEAR: its near, as given */
  const DocCollator *pCollator;   /* the pipeline's collation (its Agg's),
                            ** or NULL: how the stage compares strings */
};

/* A compiled pipeline. */
struct Agg {
  DocConn *pConn;           /* the connection's collections (for the
                            ** pipelines $lookup compiles as it runs) */
  DocColl *pColl;           /* the collection read, or NULL ($geoNear
                            ** takes its key from its geospatial index) */
  DocBuf pipe;              /* the pipeline's BSON: stages point into it */
  DocBuf work;              /* scratch for documents a compile builds */
  DocBuf query;             /* the collection query's filter, sort, options */
  DocBuf opts;              /* the options given (aLet points into them) */
  const u8 *aLet;           /* the let variables, or NULL */
  AggStage *aStage;
  int nStage, nAlloc;
  int iFirst;               /* stages before it run as the collection's query */
  i64 iFilter, iSort;       /* the query's filter and sort in query, or -1 */
  i64 iQueryOpts;           /* its options (let, hint) in query, or -1 */
  i64 nLimit;               /* the query's LIMIT, or -1 */
  i64 nowMs;                /* $$NOW of every stage */
  int bExplain;             /* explain: true: say how, do not run */
  int bTextScore;           /* some stage reads {$meta: "textScore"}: the
                            ** query's documents carry their scores */
  DocCollator *pCollator;   /* the collation option (a reference), or NULL:
                            ** every stage's, the sub-pipelines' too */
};

/* The documents between two stages: their BSON end to end in b. */
typedef struct AggSet AggSet;
struct AggSet {
  DocBuf b;
  i64 *aOff;                /* where each starts in b */
  int n, nAlloc;
};

/*------------------------------------------------------------------------
** Sets of documents
*/

static void setFree(AggSet *p){
  docextBufFree(&p->b);
  sqlite3_free(p->aOff);
  memset(p, 0, sizeof(*p));
}

static const u8 *setDoc(const AggSet *p, int i){
  return p->b.a + p->aOff[i];
}

static void setAdd(int *pRc, AggSet *p, const u8 *aDoc, i64 nDoc){
  i64 *aNew;
  /* (more than a buffer holds is out of memory, not a document too big) */
  if( *pRc==SQLITE_OK && p->b.n + nDoc > 0x7fffff00 ) *pRc = SQLITE_NOMEM;
  aNew = docextArrayGrow(pRc, p->aOff, p->n, &p->nAlloc, sizeof(i64));
  if( *pRc ) return;
  p->aOff = aNew;
  p->aOff[p->n] = p->b.n;
  docextBufAppend(pRc, &p->b, aDoc, nDoc);
  if( *pRc==SQLITE_OK ) p->n++;
}

/* Add document i of pIn; every document of pIn. */
static void setAddFrom(int *pRc, AggSet *p, const AggSet *pIn, int i){
  setAdd(pRc, p, setDoc(pIn, i), docextGetI32(setDoc(pIn, i)));
}
static void setAddAll(int *pRc, AggSet *p, const AggSet *pIn){
  int i;
  for(i=0; *pRc==SQLITE_OK && i<pIn->n; i++) setAddFrom(pRc, p, pIn, i);
}

/* The documents of pSet as the elements of an array being written in pB
** (keys "0", "1", …). */
static void setArrayElements(int *pRc, DocBuf *pB, const AggSet *pSet){
  int k;
  for(k=0; *pRc==SQLITE_OK && k<pSet->n; k++){
    char zIdx[16];
    DocValue d;
    d.type = DOC_DOCUMENT;
    d.p = setDoc(pSet, k);
    d.n = docextGetI32(d.p);
    docextBsonAppendValue(pRc, pB, zIdx, docextBsonArrayKey(zIdx, k), &d);
  }
}

/* Add the document pDoc holds, which a stage made: an error past 16 MiB. */
static int setAddMade(AggSet *p, const DocBuf *pDoc, const AggStage *pS, char **pzErr){
  int rc = SQLITE_OK;
  if( pDoc->n>DOCEXT_MAX_BSON ){
    return docextError(pzErr, "docext: doc_aggregate: stage %d (%s) makes a document "
                       "of %lld bytes, over the 16 MiB limit", pS->iStage, pS->zOp,
                       (long long)pDoc->n);
  }
  setAdd(&rc, p, pDoc->a, pDoc->n);
  return rc;
}

/*------------------------------------------------------------------------
** Errors
*/

static int stageError(const AggStage *pS, char **pzErr, const char *zFmt, ...){
  va_list ap;
  char *zWhy;
  int rc;
  va_start(ap, zFmt);
  zWhy = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if( zWhy==0 ) return SQLITE_NOMEM;
  rc = pS->zOp
     ? docextError(pzErr, "docext: doc_aggregate: stage %d (%s): %s", pS->iStage, pS->zOp, zWhy)
     : docextError(pzErr, "docext: doc_aggregate: stage %d: %s", pS->iStage, zWhy);
  sqlite3_free(zWhy);
  return rc;
}

/* An error of a component ("docext: …") said again with the stage (once). */
static int stageWrap(const AggStage *pS, int rc, char **pzErr){
  if( rc!=SQLITE_NOMEM && *pzErr && strncmp(*pzErr, "docext: ", 8)==0
   && strncmp(*pzErr, "docext: doc_aggregate: ", 23)!=0 ){
    char *zWhy = *pzErr;
    *pzErr = 0;
    rc = stageError(pS, pzErr, "%s", zWhy+8);
    sqlite3_free(zWhy);
  }
  return rc;
}

/*------------------------------------------------------------------------
** Compiling
*/

static void aggFree(Agg *p){
  int i, j;
  for(i=0; i<p->nStage; i++){
    AggStage *pS = &p->aStage[i];
    docextMatcherFree(pS->pMatch);
    docextPipelineFree(pS->pShape);
    docextSortFree(pS->pSort);
    docextWindowFree(pS->pWindow);
    docextDensifyFree(pS->pDensify);
    docextGeoFree(pS->pNear);
    docextExprFree(pS->pExpr);
    for(j=0; j<pS->nField; j++){
      docextExprFree(pS->aField[j].pExpr);
      docextExprFree(pS->aField[j].pFinish);
      docextExprFree(pS->aField[j].pN);
      docextSortFree(pS->aField[j].pSort);
      docextBufFree(&pS->aField[j].own);
    }
    sqlite3_free(pS->aField);
    sqlite3_free(pS->zFrom);
    for(j=0; j<pS->nSub; j++) aggFree(&pS->aSub[j]);
    sqlite3_free(pS->aSub);
    sqlite3_free(pS->azSub);
    docextBufFree(&pS->own);
  }
  sqlite3_free(p->aStage);
  docextBufFree(&p->pipe);
  docextBufFree(&p->work);
  docextBufFree(&p->query);
  docextBufFree(&p->opts);
  docextCollatorFree(p->pCollator);
  memset(p, 0, sizeof(*p));
}

static AggStage *aggNewStage(Agg *p, int eStage, const char *zOp, int iStage, int *pRc){
  AggStage *aNew = docextArrayGrow(pRc, p->aStage, p->nStage, &p->nAlloc, sizeof(AggStage));
  AggStage *pS;
  if( *pRc ) return 0;
  p->aStage = aNew;
  pS = &p->aStage[p->nStage++];
  memset(pS, 0, sizeof(*pS));
  pS->eStage = eStage;
  pS->zOp = zOp;
  pS->iStage = iStage;
  pS->pCollator = p->pCollator;
  return pS;
}

/* An expression of a stage of p: its let variables, $$NOW and collation. */
static int aggExprNew(Agg *p, const DocValue *v, const char *zWhere, DocExpr **ppOut,
                      char **pzErr){
  int rc = docextExprNew(v, p->aLet, zWhere, p->nowMs, ppOut, pzErr);
  if( rc==SQLITE_OK ) docextExprSetCollator(*ppOut, p->pCollator);
  return rc;
}

/* A field name a stage creates: not empty, no '$' first, no '.'. */
static int checkNewField(const AggStage *pS, const char *zWhat, const char *z, char **pzErr){
  if( z[0]==0 ) return stageError(pS, pzErr, "%s cannot be empty", zWhat);
  if( z[0]=='$' ) return stageError(pS, pzErr, "%s '%s' cannot start with '$'", zWhat, z);
  if( strchr(z, '.') ) return stageError(pS, pzErr, "%s '%s' cannot contain '.'", zWhat, z);
  return SQLITE_OK;
}

/* The same for a path that may go into embedded documents ($lookup's and
** $graphLookup's as, as MongoDB takes them). */
static int checkNewPath(const AggStage *pS, const char *zWhat, const char *z, char **pzErr){
  const char *zWhy = docextPathProblem(z);
  return zWhy ? stageError(pS, pzErr, "%s '%s': %s", zWhat, z, zWhy) : SQLITE_OK;
}

/* The whole number of a $skip or $limit (MongoDB takes 5.0 too), or of
** an option zWhat (then named in the one message any bad value gets). */
static int stageCount(const AggStage *pS, const DocValue *v, int bPositive, const char *zWhat,
                      i64 *pn, char **pzErr){
  const char *zKind = bPositive ? "positive" : "non-negative";
  double d = docextValueIsNumber(v) ? docextValueToDouble(v) : -1.0;
  if( zWhat && (!docextValueIsNumber(v) || d!=d || d<0 || d>9.2e18 || d!=(double)(i64)d
                || (bPositive && d==0)) ){
    return stageError(pS, pzErr, "%s must be a %s whole number", zWhat, zKind);
  }
  if( !docextValueIsNumber(v) ){
    return stageError(pS, pzErr, "needs a number, not %s", docextTypeAlias(v->type));
  }
  if( d!=d || d<0 || d>9.2e18 || d!=(double)(i64)d || (bPositive && d==0) ){
    return stageError(pS, pzErr, "needs a %s whole number", zKind);
  }
  *pn = (i64)d;
  return SQLITE_OK;
}

/* The one-stage array [{zOp: v}] in work (reset), for docextPipelineNew. */
static void workStageArray(Agg *p, const char *zOp, const DocValue *v, int *pRc){
  i64 iArr;
  docextBufReset(&p->work);
  iArr = docextBsonStartDoc(pRc, &p->work);
  i64 iStage = docextBsonStartChild(pRc, &p->work, DOC_DOCUMENT, "0", 1);
  docextBsonAppendValue(pRc, &p->work, zOp, (int)strlen(zOp), v);
  docextBsonEndDoc(pRc, &p->work, iStage);
  docextBsonEndDoc(pRc, &p->work, iArr);
}

/* The constant 1, the operand of {$count: {}} and of the counts of
** $sortByCount and $bucket. */
static const u8 aOne[4] = {1, 0, 0, 0};
static const DocValue constOne = { DOC_INT32, aOne, 4 };

/* A field of $group (or of $bucket's output): {name: {$acc: expression}}. */
static int compileAccField(Agg *p, AggStage *pS, const DocIter *pIt, char **pzErr){
  AggField *pF;
  DocIter acc;
  int rc = checkNewField(pS, "the field", pIt->zKey, pzErr);
  if( rc ) return rc;
  if( pIt->v.type!=DOC_DOCUMENT || docextIterCount(&pIt->v)!=1 ){
    return stageError(pS, pzErr, "the field '%s' must be an accumulator object, "
                      "as {%s: {$sum: …}}", pIt->zKey, pIt->zKey);
  }
  pF = &pS->aField[pS->nField++];
  pF->zName = pIt->zKey;
  docextIterInitValue(&acc, &pIt->v);
  docextIterNext(&acc);
  pF->eAcc = docextAccumOp(acc.zKey, acc.nKey);
  if( docextAccumIsQuantile(acc.zKey) ){
    /* (a $push of its input, finished by the operator over the list) */
    DocValue input;
    pF->eAcc = DOCEXT_ACC_PUSH;
    rc = docextAccumQuantile(acc.zKey, &acc.v, p->aLet, p->nowMs, &pF->own, &pF->pFinish,
                             &input, pzErr);
    if( rc ) return rc;
    acc.v = input;
  }else if( docextAccumHasArgs(pF->eAcc) ){
    DocValue input, n;
    rc = docextAccumArgs(pF->eAcc, &acc.v, &pF->own, &input, &n, &pF->pSort, pzErr);
    if( rc==SQLITE_OK && pF->pSort ) docextSortSetCollator(pF->pSort, p->pCollator);
    if( rc==SQLITE_OK ) rc = aggExprNew(p, &n, acc.zKey, &pF->pN, pzErr);
    if( rc ) return rc;
    acc.v = input;
  }else if( docextIterKeyIs(&acc, "$count") ){
    /* {$count: {}} is {$sum: 1} */
    if( acc.v.type!=DOC_DOCUMENT || docextIterCount(&acc.v)!=0 ){
      return stageError(pS, pzErr, "$count of field '%s' takes no argument: {$count: {}}",
                        pIt->zKey);
    }
    pF->eAcc = DOCEXT_ACC_SUM;
    acc.v = constOne;
  }else if( pF->eAcc==0 ){
    return stageError(pS, pzErr, "unknown accumulator %s for field '%s'", acc.zKey, pIt->zKey);
  }else if( acc.v.type==DOC_ARRAY ){
    return stageError(pS, pzErr, "the accumulator %s of field '%s' is a unary operator",
                      acc.zKey, pIt->zKey);
  }
  return aggExprNew(p, &acc.v, pS->zOp, &pF->pExpr, pzErr);
}

/* A field "count" of {$sum: 1} ($sortByCount, $bucket without output). */
static int compileCountField(Agg *p, AggStage *pS, char **pzErr){
  AggField *pF = &pS->aField[pS->nField++];
  pF->zName = "count";
  pF->eAcc = DOCEXT_ACC_SUM;
  return aggExprNew(p, &constOne, pS->zOp, &pF->pExpr, pzErr);
}

static int compileGroup(Agg *p, AggStage *pS, const DocValue *v, char **pzErr){
  DocIter it;
  int rc = SQLITE_OK, bId = 0;
  if( v->type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "needs a document");
  pS->aField = docextMallocZero(sizeof(AggField)*(docextIterCount(v)+1));
  if( pS->aField==0 ) return SQLITE_NOMEM;
  docextIterInitValue(&it, v);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( docextIterKeyIs(&it, "_id") ){
      bId = 1;
      rc = aggExprNew(p, &it.v, "$group _id", &pS->pExpr, pzErr);
    }else{
      rc = compileAccField(p, pS, &it, pzErr);
    }
  }
  if( rc==SQLITE_OK && !bId ) return stageError(pS, pzErr, "a group specification must include an _id");
  return rc;
}

/* Is v "$path", or a document of an operator (an expression to group by)? */
static int isGroupingExpr(const DocValue *v){
  return v->type==DOC_STRING ? v->p[4]=='$'
       : v->type==DOC_DOCUMENT && v->p[4]!=0 && v->p[5]=='$';
}

/* Append {zOp: [x, y]} as element zKey. */
static void appendBinary(int *pRc, DocBuf *pB, const char *zKey, const char *zOp,
                         const DocValue *x, const DocValue *y){
  i64 iDoc = docextBsonStartChild(pRc, pB, DOC_DOCUMENT, zKey, (int)strlen(zKey));
  i64 iArr = docextBsonStartChild(pRc, pB, DOC_ARRAY, zOp, (int)strlen(zOp));
  docextBsonAppendValue(pRc, pB, "0", 1, x);
  docextBsonAppendValue(pRc, pB, "1", 1, y);
  docextBsonEndDoc(pRc, pB, iArr);
  docextBsonEndDoc(pRc, pB, iDoc);
}

/* Append {$literal: v} as element zKey. */
static void appendLiteral(int *pRc, DocBuf *pB, const char *zKey, const DocValue *v){
  i64 iDoc = docextBsonStartChild(pRc, pB, DOC_DOCUMENT, zKey, (int)strlen(zKey));
  docextBsonAppendValue(pRc, pB, "$literal", 8, v);
  docextBsonEndDoc(pRc, pB, iDoc);
}

/* The value of expression v, which must be constant (zWhat says what it
** is, for the error), appended to pOut as element zKey: $bucket's
** boundaries and default are expressions, {$literal: …} or {$add: [1, 2]}
** as well as 5, but never a field path. Missing is null. */
static int appendConstant(Agg *p, AggStage *pS, const DocValue *v, const char *zWhat,
                          DocBuf *pOut, const char *zKey, char **pzErr){
  static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
  DocExpr *pExpr = 0;
  int rc = aggExprNew(p, v, pS->zOp, &pExpr, pzErr), type = 0;
  if( rc==SQLITE_OK && !docextExprIsConstant(pExpr) ){
    rc = stageError(pS, pzErr, "%s must be constant, not read from a document", zWhat);
  }
  if( rc==SQLITE_OK ){
    rc = docextExprAppend(pExpr, aEmpty, pOut, zKey, (int)strlen(zKey), &type, pzErr);
  }
  if( rc==SQLITE_OK && type==0 ) docextBsonAppendNull(&rc, pOut, zKey, (int)strlen(zKey));
  docextExprFree(pExpr);
  return rc;
}

/* The boundaries of a $bucket (an array), checked, into *paB (sqlite3_free
** it) and *pnB. */
static int bucketBounds(AggStage *pS, const DocValue *pBounds, const DocValue *pDefault,
                        DocValue **paB, int *pnB, char **pzErr){
  DocValue *aB;
  DocIter it;
  int nB = 0, i;
  if( pBounds->type!=DOC_ARRAY || docextIterCount(pBounds)<2 ){
    return stageError(pS, pzErr, "boundaries must be an array of at least 2 values");
  }
  *paB = aB = sqlite3_malloc64(sizeof(DocValue)*docextIterCount(pBounds));
  if( aB==0 ) return SQLITE_NOMEM;
  docextIterInitValue(&it, pBounds);
  while( docextIterNext(&it) ) aB[nB++] = it.v;
  *pnB = nB;
  for(i=0; i<nB-1; i++){
    if( docextTypeClass(aB[i].type)!=docextTypeClass(aB[i+1].type) ){
      return stageError(pS, pzErr, "the boundaries must all be of one type");
    }
    if( docextValueCompareColl(&aB[i], &aB[i+1], pS->pCollator)>=0 ){
      return stageError(pS, pzErr, "the boundaries must be in ascending order, each once");
    }
  }
  if( pDefault->type!=0 && docextTypeClass(pDefault->type)==docextTypeClass(aB[0].type)
   && docextValueCompareColl(pDefault, &aB[0], pS->pCollator)>=0
   && docextValueCompareColl(pDefault, &aB[nB-1], pS->pCollator)<0 ){
    return stageError(pS, pzErr, "default must be below the lowest boundary or at least "
                      "the highest, or of another type");
  }
  return SQLITE_OK;
}

/* The output of $bucket and $bucketAuto (pOut, type 0 when none): its
** accumulator fields, or a count when there is none (and, with bEmptyCount,
** when it is {}). */
static int compileBucketOutput(Agg *p, AggStage *pS, const DocValue *pOut, int bEmptyCount,
                               char **pzErr){
  DocIter it;
  int rc = SQLITE_OK;
  pS->aField = docextMallocZero(sizeof(AggField)*(pOut->type ? docextIterCount(pOut)+1 : 1));
  if( pS->aField==0 ) return SQLITE_NOMEM;
  if( pOut->type==0 || (bEmptyCount && docextIterCount(pOut)==0) ){
    return compileCountField(p, pS, pzErr);
  }
  docextIterInitValue(&it, pOut);
  while( rc==SQLITE_OK && docextIterNext(&it) ) rc = compileAccField(p, pS, &it, pzErr);
  return rc;
}

/* $bucket is MongoDB's $group on a $switch over the boundaries (whose
** message, when a value is in no bucket and there is no default, is also
** $bucket's), written into pS->own:
**   {$switch: {branches: [{case: {$and: [{$gte: [groupBy, b0]},
**     {$lt: [groupBy, b1]}]}, then: {$literal: b0}}, …],
**     default: {$literal: default}}}
** Its groups come in the order of their _id, as $bucket's $sort gives them.
** Without a default, the default is MinKey, which runGroup refuses. */
static int compileBucket(Agg *p, AggStage *pS, const DocValue *v, char **pzErr){
  static const char *const azArg[] = {"groupBy", "boundaries", "default", "output"};
  DocValue a[4], groupBy, bounds, dflt, output, *aB = 0, sw;
  DocIter it;
  int rc = SQLITE_OK, nB = 0, i;
  i64 iSwitch, iBody, iBranches;
  const char *zOther;
  if( v->type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "needs a document");
  if( (zOther = docextBsonFields(v, azArg, 4, a))!=0 ){
    return stageError(pS, pzErr, "unknown option '%s'", zOther);
  }
  groupBy = a[0];
  bounds = a[1];
  dflt = a[2];
  output = a[3];
  if( !isGroupingExpr(&groupBy) ){
    return stageError(pS, pzErr, "groupBy must be a $-prefixed path or an expression document");
  }
  if( output.type!=0 && output.type!=DOC_DOCUMENT ){
    return stageError(pS, pzErr, "output must be a document of accumulators");
  }
  if( bounds.type!=DOC_ARRAY ){
    return stageError(pS, pzErr, "boundaries must be an array of at least 2 values");
  }
  /* the values of the boundaries and default, in work: {b: […], d: …} */
  docextBufReset(&p->work);
  {
    i64 iDoc = docextBsonStartDoc(&rc, &p->work), iArr;
    int k = 0;
    iArr = docextBsonStartChild(&rc, &p->work, DOC_ARRAY, "b", 1);
    docextIterInitValue(&it, &bounds);
    while( rc==SQLITE_OK && docextIterNext(&it) ){
      char zIdx[16];
      docextBsonArrayKey(zIdx, k++);
      rc = appendConstant(p, pS, &it.v, "a boundary", &p->work, zIdx, pzErr);
    }
    docextBsonEndDoc(&rc, &p->work, iArr);
    if( rc==SQLITE_OK && dflt.type ){
      rc = appendConstant(p, pS, &dflt, "default", &p->work, "d", pzErr);
    }
    docextBsonEndDoc(&rc, &p->work, iDoc);
    if( rc ) return rc;
    docextBsonFind(p->work.a, "b", 1, &bounds);
    if( dflt.type ) docextBsonFind(p->work.a, "d", 1, &dflt);
  }
  rc = bucketBounds(pS, &bounds, &dflt, &aB, &nB, pzErr);
  iSwitch = docextBsonStartDoc(&rc, &pS->own);
  iBody = docextBsonStartChild(&rc, &pS->own, DOC_DOCUMENT, "$switch", 7);
  iBranches = docextBsonStartChild(&rc, &pS->own, DOC_ARRAY, "branches", 8);
  for(i=0; rc==SQLITE_OK && i<nB-1; i++){
    char zIdx[16];
    i64 iBranch = docextBsonStartChild(&rc, &pS->own, DOC_DOCUMENT, zIdx,
                                       docextBsonArrayKey(zIdx, i));
    i64 iCase = docextBsonStartChild(&rc, &pS->own, DOC_DOCUMENT, "case", 4);
    i64 iAnd = docextBsonStartChild(&rc, &pS->own, DOC_ARRAY, "$and", 4);
    appendBinary(&rc, &pS->own, "0", "$gte", &groupBy, &aB[i]);
    appendBinary(&rc, &pS->own, "1", "$lt", &groupBy, &aB[i+1]);
    docextBsonEndDoc(&rc, &pS->own, iAnd);
    docextBsonEndDoc(&rc, &pS->own, iCase);
    appendLiteral(&rc, &pS->own, "then", &aB[i]);
    docextBsonEndDoc(&rc, &pS->own, iBranch);
  }
  docextBsonEndDoc(&rc, &pS->own, iBranches);
  if( dflt.type==0 ){
    /* (MinKey, which no bucket can be: the boundaries are of one type) */
    static const u8 aNothing[1] = {0};
    dflt.type = DOC_MINKEY;
    dflt.p = aNothing;
    dflt.n = 0;
    pS->bNoDefault = 1;
  }
  appendLiteral(&rc, &pS->own, "default", &dflt);
  docextBsonEndDoc(&rc, &pS->own, iBody);
  docextBsonEndDoc(&rc, &pS->own, iSwitch);
  sqlite3_free(aB);
  if( rc ) return rc;
  /* (the expression is that document: an operator's, {$switch: …}) */
  sw.type = DOC_DOCUMENT;
  sw.p = pS->own.a;
  sw.n = (int)pS->own.n;
  rc = aggExprNew(p, &sw, "$bucket", &pS->pExpr, pzErr);
  if( rc ) return rc;
  return compileBucketOutput(p, pS, &output, 0, pzErr);
}

/* $bucketAuto's granularities: series of preferred numbers (one decade
** of each, scaled by powers of ten), and powers of two (no series). */
static const double aR5[] = {10, 16, 25, 40, 63};
static const double aR10[] = {100, 125, 160, 200, 250, 315, 400, 500, 630, 800};
static const double aR20[] = {100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355,
  400, 450, 500, 560, 630, 710, 800, 900};
static const double aR40[] = {100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190,
  200, 212, 224, 236, 250, 265, 280, 300, 315, 355, 375, 400, 425, 450, 475, 500, 530, 560,
  600, 630, 670, 710, 750, 800, 850, 900, 950};
static const double aR80[] = {103, 109, 115, 122, 128, 136, 145, 155, 165, 175, 185, 195,
  206, 218, 230, 243, 258, 272, 290, 307, 325, 345, 365, 387, 412, 437, 462, 487, 515, 545,
  575, 615, 650, 690, 730, 775, 825, 875, 925, 975};
static const double a125[] = {10, 20, 50};
static const double aE6[] = {10, 15, 22, 33, 47, 68};
static const double aE12[] = {10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82};
static const double aE24[] = {10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43,
  47, 51, 56, 62, 68, 75, 82, 91};
static const double aE48[] = {100, 105, 110, 115, 121, 127, 133, 140, 147, 154, 162, 169, 178,
  187, 196, 205, 215, 226, 237, 249, 261, 274, 287, 301, 316, 332, 348, 365, 383, 402, 422,
  442, 464, 487, 511, 536, 562, 590, 619, 649, 681, 715, 750, 787, 825, 866, 909, 953};
static const double aE96[] = {100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133,
  137, 140, 143, 147, 150, 154, 158, 162, 165, 169, 174, 178, 182, 187, 191, 196, 200, 205,
  210, 215, 221, 226, 232, 237, 243, 249, 255, 261, 267, 274, 280, 287, 294, 301, 309, 316,
  324, 332, 340, 348, 357, 365, 374, 383, 392, 402, 412, 422, 432, 442, 453, 464, 475, 487,
  499, 511, 523, 536, 549, 562, 576, 590, 604, 619, 634, 649, 665, 681, 698, 715, 732, 750,
  768, 787, 806, 825, 845, 866, 887, 909, 931, 953, 976};
static const double aE192[] = {100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115,
  117, 118, 120, 121, 123, 124, 126, 127, 129, 130, 132, 133, 135, 137, 138, 140, 142, 143,
  145, 147, 149, 150, 152, 154, 156, 158, 160, 162, 164, 165, 167, 169, 172, 174, 176, 178,
  180, 182, 184, 187, 189, 191, 193, 196, 198, 200, 203, 205, 208, 210, 213, 215, 218, 221,
  223, 226, 229, 232, 234, 237, 240, 243, 246, 249, 252, 255, 258, 261, 264, 267, 271, 274,
  277, 280, 284, 287, 291, 294, 298, 301, 305, 309, 312, 316, 320, 324, 328, 332, 336, 340,
  344, 348, 352, 357, 361, 365, 370, 374, 379, 383, 388, 392, 397, 402, 407, 412, 417, 422,
  427, 432, 437, 442, 448, 453, 459, 464, 470, 475, 481, 487, 493, 499, 505, 511, 517, 523,
  530, 536, 542, 549, 556, 562, 569, 576, 583, 590, 597, 604, 612, 619, 626, 634, 642, 649,
  657, 665, 673, 681, 690, 698, 706, 715, 723, 732, 741, 750, 759, 768, 777, 787, 796, 806,
  816, 825, 835, 845, 856, 866, 876, 887, 898, 909, 920, 931, 942, 953, 965, 976, 988};
static const struct AggSeries {
  const char *zName;
  const double *a;
  int n;
} aSeries[] = {
  {"R5", aR5, DOCEXT_COUNT(aR5)}, {"R10", aR10, DOCEXT_COUNT(aR10)},
  {"R20", aR20, DOCEXT_COUNT(aR20)}, {"R40", aR40, DOCEXT_COUNT(aR40)},
  {"R80", aR80, DOCEXT_COUNT(aR80)}, {"1-2-5", a125, DOCEXT_COUNT(a125)},
  {"E6", aE6, DOCEXT_COUNT(aE6)}, {"E12", aE12, DOCEXT_COUNT(aE12)},
  {"E24", aE24, DOCEXT_COUNT(aE24)}, {"E48", aE48, DOCEXT_COUNT(aE48)},
  {"E96", aE96, DOCEXT_COUNT(aE96)}, {"E192", aE192, DOCEXT_COUNT(aE192)},
  {"POWERSOF2", 0, 0},
};

/* A number made by rounding, and the bytes it keeps. */
typedef struct AggRounded AggRounded;
struct AggRounded { DocValue v; u8 a[16]; };

static void roundedDouble(AggRounded *r, double d, int bDec){
  if( bDec ){
    DocNum x;
    x.type = DOC_DOUBLE;
    x.d = d;
    docextNumToDec(&x, r->a);
    r->v.type = DOC_DECIMAL128;
    r->v.n = 16;
  }else{
    memcpy(r->a, &d, 8);
    r->v.type = DOC_DOUBLE;
    r->v.n = 8;
  }
  r->v.p = r->a;
}

/* 2 to the power e, as $pow gives it for an integer 2 and e: an int or a
** long while it fits, else a double (as a decimal for a decimal's). */
static void roundedPow2(AggRounded *r, int e, int bDec){
  if( !bDec && e>=0 && e<63 ){
    i64 x = (i64)1 << e;
    int k;
    r->v.type = e<31 ? DOC_INT32 : DOC_INT64;
    r->v.n = e<31 ? 4 : 8;
    for(k=0; k<r->v.n; k++) r->a[k] = (u8)((u64)x >> (8*k));
    r->v.p = r->a;
  }else{
    roundedDouble(r, ldexp(1.0, e), bDec);
  }
}

/* Decimal128 comparison of a and b (< 0, 0, > 0). */
static int decCmp(const u8 *a, const u8 *b){
  DocValue x, y;
  x.type = y.type = DOC_DECIMAL128;
  x.n = y.n = 16;
  x.p = a;
  y.p = b;
  return docextValueCompare(&x, &y);
}

/* *pOut = a * m; decStep: the multiplier m times 10, or (bDiv) over 10. */
static int decScaled(const u8 *a, const u8 *m, u8 *pOut){
  return docextDec128Mul(a, m, pOut);
}
static int decStep(u8 *m, int bDiv){
  u8 ten[16], r[16];
  int rc;
  docextDec128FromInt64(10, ten);
  rc = bDiv ? docextDec128Div(m, ten, r) : docextDec128Mul(m, ten, r);
  if( rc==SQLITE_OK ) memcpy(m, r, 16);
  return rc;
}

/* roundGranular() of a decimal128 x to a series, in decimal128 as
** MongoDB's GranularityRounderPreferredNumbers has it: each number of the
** series the Decimal128 of its double (15 digits), scaled by a multiplier
** multiplied or divided by 10, so the bound keeps those digits. */
static int roundGranularDec(const struct AggSeries *pSeries, const u8 *x, int bUp,
                            AggRounded *r){
  u8 aSer[200][16], m[16], s[16], prev[16];   /* (the longest series, E192, has 192) */
  int n = pSeries->n, i, rc;

  for(i=0; i<n; i++){
    DocNum d;
    memset(&d, 0, sizeof(d));
    d.type = DOC_DOUBLE;
    d.d = pSeries->a[i];
    docextNumToDec(&d, aSer[i]);
  }
  docextDec128FromInt64(1, m);
  if( bUp ){
    for(;;){                      /* up: while x >= last*m, m *= 10 */
      if( (rc = decScaled(aSer[n-1], m, s))!=SQLITE_OK ) return rc;
      if( decCmp(x, s)<0 ) break;
      if( (rc = decStep(m, 0))!=SQLITE_OK ) return rc;
    }
    for(;;){                      /* while x < first*m, m /= 10 ... */
      if( (rc = decScaled(aSer[0], m, prev))!=SQLITE_OK ) return rc;
      if( decCmp(x, prev)>=0 ) break;
      if( (rc = decStep(m, 1))!=SQLITE_OK ) return rc;
      if( (rc = decScaled(aSer[n-1], m, s))!=SQLITE_OK ) return rc;
      if( decCmp(x, s)>=0 ){      /* ... between two decades: first*m */
        memcpy(s, prev, 16);
        goto found;
      }
    }
    for(i=0; i<n; i++){           /* the least scaled number above x */
      if( (rc = decScaled(aSer[i], m, s))!=SQLITE_OK ) return rc;
      if( decCmp(x, s)<0 ) break;
    }
  }else{
    for(;;){                      /* down: while x <= first*m, m /= 10 */
      if( (rc = decScaled(aSer[0], m, s))!=SQLITE_OK ) return rc;
      if( decCmp(x, s)>0 ) break;
      if( (rc = decStep(m, 1))!=SQLITE_OK ) return rc;
    }
    for(;;){                      /* while x > last*m, m *= 10 ... */
      if( (rc = decScaled(aSer[n-1], m, prev))!=SQLITE_OK ) return rc;
      if( decCmp(x, prev)<=0 ) break;
      if( (rc = decStep(m, 0))!=SQLITE_OK ) return rc;
      if( (rc = decScaled(aSer[0], m, s))!=SQLITE_OK ) return rc;
      if( decCmp(x, s)<=0 ){      /* ... between two decades: last*m */
        memcpy(s, prev, 16);
        goto found;
      }
    }
    for(i=1; i<n; i++){           /* the one before the least >= x */
      if( (rc = decScaled(aSer[i], m, s))!=SQLITE_OK ) return rc;
      if( decCmp(s, x)>=0 ) break;
    }
    if( (rc = decScaled(aSer[i-1], m, s))!=SQLITE_OK ) return rc;
  }
found:
  memcpy(r->a, s, 16);
  r->v.type = DOC_DECIMAL128;
  r->v.n = 16;
  r->v.p = r->a;
  return SQLITE_OK;
}

/* Round v (a number >= 0, finite: checked) up (bUp) or down to the
** granularity pSeries, as MongoDB's rounders do: up to the least number of
** the series greater than v, down to the greatest one less than it; 0
** stays itself. A decimal128 to a series is rounded in decimal128
** (roundGranularDec); to POWERSOF2, as a double. */
static int roundGranular(const struct AggSeries *pSeries, const DocValue *v, int bUp,
                         AggRounded *r){
  double d = docextValueToDouble(v), m = 1.0;
  int bDec = v->type==DOC_DECIMAL128, i;
  if( d==0.0 ){
    r->v = *v;
    return SQLITE_OK;
  }
  if( bDec && pSeries->a ) return roundGranularDec(pSeries, v->p, bUp, r);
  if( pSeries->a==0 ){
    int e;
    if( v->type==DOC_DOUBLE || bDec ){
      e = bUp ? (int)(floor(log2(d)) + 1.0) : (int)(ceil(log2(d)) - 1.0);
    }else{
      u64 x = (u64)(v->type==DOC_INT32 ? docextValueI32(v) : docextValueI64(v));
      int nLead = __builtin_clzll(x), nTrail = __builtin_ctzll(x);
      e = bUp ? 64 - nLead : (nLead + nTrail==63 ? 62 - nLead : 63 - nLead);
    }
    roundedPow2(r, e, bDec);
    return SQLITE_OK;
  }
  if( bUp ){
    while( d >= pSeries->a[pSeries->n-1]*m ) m *= 10.0;
    while( d < pSeries->a[0]*m ){
      double prevMin = pSeries->a[0]*m;
      m /= 10.0;
      if( d >= pSeries->a[pSeries->n-1]*m ){
        roundedDouble(r, prevMin, 0);
        return SQLITE_OK;
      }
    }
    for(i=0; i<pSeries->n && !(d < pSeries->a[i]*m); i++){}
    roundedDouble(r, pSeries->a[i<pSeries->n ? i : pSeries->n-1]*m, 0);
  }else{
    while( d <= pSeries->a[0]*m ) m /= 10.0;
    while( d > pSeries->a[pSeries->n-1]*m ){
      double prevMax = pSeries->a[pSeries->n-1]*m;
      m *= 10.0;
      if( d <= pSeries->a[0]*m ){
        roundedDouble(r, prevMax, 0);
        return SQLITE_OK;
      }
    }
    for(i=0; i<pSeries->n && pSeries->a[i]*m < d; i++){}
    roundedDouble(r, pSeries->a[i>0 ? i-1 : 0]*m, 0);
  }
  return SQLITE_OK;
}

/* $bucketAuto: {groupBy, buckets, output, granularity}. */
static int compileBucketAuto(Agg *p, AggStage *pS, const DocValue *v, char **pzErr){
  static const char *const azArg[] = {"groupBy", "buckets", "output", "granularity"};
  DocValue a[4], groupBy, buckets, output, gran;
  int rc = SQLITE_OK;
  const char *zOther;
  if( v->type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "needs a document");
  if( (zOther = docextBsonFields(v, azArg, 4, a))!=0 ){
    return stageError(pS, pzErr, "unknown option '%s'", zOther);
  }
  groupBy = a[0];
  buckets = a[1];
  output = a[2];
  gran = a[3];
  if( !isGroupingExpr(&groupBy) ){
    return stageError(pS, pzErr, "groupBy must be a $-prefixed path or an expression document");
  }
  if( buckets.type==0 ) return stageError(pS, pzErr, "needs buckets, a number above 0");
  rc = stageCount(pS, &buckets, 1, "buckets", &pS->n, pzErr);
  if( rc ) return rc;
  if( pS->n>0x7fffffff ) return stageError(pS, pzErr, "buckets must fit in an int32");
  if( output.type!=0 && output.type!=DOC_DOCUMENT ){
    return stageError(pS, pzErr, "output must be a document of accumulators");
  }
  if( gran.type ){
    int n, i = -1;
    const char *z = gran.type==DOC_STRING ? docextValueStr(&gran, &n) : 0;
    for(i=0; z && i<DOCEXT_COUNT(aSeries); i++){
      if( (int)strlen(aSeries[i].zName)==n && memcmp(aSeries[i].zName, z, n)==0 ) break;
    }
    if( z==0 || i>=DOCEXT_COUNT(aSeries) ){
      return stageError(pS, pzErr, "unknown granularity (it takes R5, R10, R20, R40, R80, "
                        "1-2-5, E6, E12, E24, E48, E96, E192 or POWERSOF2)");
    }
    pS->iSeries = i+1;
  }
  rc = aggExprNew(p, &groupBy, "$bucketAuto", &pS->pExpr, pzErr);
  if( rc ) return rc;
  /* (no accumulator, output {} too, is MongoDB's count) */
  return compileBucketOutput(p, pS, &output, 1, pzErr);
}

static int compileUnwind(AggStage *pS, const DocValue *v, char **pzErr){
  DocValue path;
  DocIter it;
  path = *v;
  if( v->type==DOC_DOCUMENT ){
    int rc = SQLITE_OK;
    path.type = 0;
    docextIterInitValue(&it, v);
    while( rc==SQLITE_OK && docextIterNext(&it) ){
      if( docextIterKeyIs(&it, "path") ){
        path = it.v;
      }else if( docextIterKeyIs(&it, "includeArrayIndex") ){
        if( it.v.type!=DOC_STRING ){
          return stageError(pS, pzErr, "includeArrayIndex must be a string");
        }
        pS->zIndexField = (const char*)it.v.p+4;
        rc = checkNewField(pS, "includeArrayIndex", pS->zIndexField, pzErr);
      }else if( docextIterKeyIs(&it, "preserveNullAndEmptyArrays") ){
        if( it.v.type!=DOC_BOOL ){
          return stageError(pS, pzErr, "preserveNullAndEmptyArrays must be a boolean");
        }
        pS->bPreserve = it.v.p[0]!=0;
      }else{
        return stageError(pS, pzErr, "unknown option '%s'", it.zKey);
      }
    }
    if( rc ) return rc;
    if( path.type==0 ) return stageError(pS, pzErr, "no path given");
  }
  if( path.type!=DOC_STRING ){
    return stageError(pS, pzErr, "needs a field path string or a document, not %s",
                      docextTypeAlias(path.type));
  }
  pS->zField = (const char*)path.p+4;
  if( pS->zField[0]!='$' || pS->zField[1]==0 || pS->zField[1]=='$' ){
    return stageError(pS, pzErr, "the path '%s' must be a field path, prefixed by '$'",
                      pS->zField);
  }
  pS->zField++;
  return SQLITE_OK;
}

/* The SQL name of a collection, "schema"."table", quoted (sqlite3_malloc'd). */
static char *quotedCollName(DocColl *pColl){
  return sqlite3_mprintf("\"%w\".\"%w\"", docextStorageSchema(docextCollStore(pColl)),
                         docextStorageName(docextCollStore(pColl)));
}

/* pS->zFrom: the quoted SQL name of the docext collection zName names. */
static int collSqlName(DocConn *pConn, AggStage *pS, const char *zName, char **pzErr){
  DocColl *pColl = 0;
  int rc = docextCollFind(pConn, zName, &pColl, pzErr);
  if( rc ) return stageWrap(pS, rc, pzErr);
  pS->pFrom = pColl;
  pS->zFrom = quotedCollName(pColl);
  return pS->zFrom ? SQLITE_OK : SQLITE_NOMEM;
}

static int compileStages(DocConn *pConn, Agg *p, int bHead, char **pzErr);

/* $graphLookup: {from, startWith, connectFromField, connectToField, as,
** maxDepth, depthField, restrictSearchWithMatch}. */
static int compileGraphLookup(DocConn *pConn, Agg *p, AggStage *pS, const DocValue *v,
                              char **pzErr){
  static const char *const azKey[] = {
    "from", "connectFromField", "connectToField", "as", "depthField", "startWith",
    "maxDepth", "restrictSearchWithMatch",
  };
  const char *az[5] = {0, 0, 0, 0, 0};
  DocValue start;
  DocIter it;
  int rc = SQLITE_OK, i;
  memset(&start, 0, sizeof(start));
  pS->n = -1;
  pS->aSpec = 0;              /* (restrictSearchWithMatch, if given) */
  if( v->type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "needs a document");
  docextIterInitValue(&it, v);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    i = docextNameIndex(it.zKey, it.nKey, azKey, DOCEXT_COUNT(azKey));
    if( i<0 ) return stageError(pS, pzErr, "unknown option '%s'", it.zKey);
    if( i<5 ){
      if( it.v.type!=DOC_STRING ) return stageError(pS, pzErr, "%s must be a string", azKey[i]);
      az[i] = (const char*)it.v.p+4;
    }else if( i==5 ){
      start = it.v;
    }else if( i==6 ){
      rc = stageCount(pS, &it.v, 0, "maxDepth", &pS->n, pzErr);
    }else{
      DocMatcher *pM = 0;
      if( it.v.type!=DOC_DOCUMENT ){
        return stageError(pS, pzErr, "restrictSearchWithMatch must be a filter document");
      }
      rc = docextMatcherNewColl(it.v.p, p->aLet, &p->nowMs, p->pCollator, &pM, pzErr);   /* (checked) */
      docextMatcherFree(pM);
      pS->aSpec = it.v.p;
    }
  }
  if( rc ) return rc;
  for(i=0; i<4; i++){
    if( az[i]==0 ) return stageError(pS, pzErr, "%s is required", azKey[i]);
  }
  if( start.type==0 ) return stageError(pS, pzErr, "startWith is required");
  if( az[1][0]==0 || az[1][0]=='$' || az[2][0]==0 || az[2][0]=='$' ){
    return stageError(pS, pzErr, "connectFromField and connectToField are field names, "
                      "without '$'");
  }
  rc = checkNewPath(pS, "as", az[3], pzErr);
  if( rc==SQLITE_OK && az[4] ) rc = checkNewField(pS, "depthField", az[4], pzErr);
  if( rc==SQLITE_OK ) rc = collSqlName(pConn, pS, az[0], pzErr);
  if( rc ) return rc;
  pS->zLocal = az[1];
  pS->zForeign = az[2];
  pS->zField = az[3];
  pS->zIndexField = az[4];
  return aggExprNew(p, &start, "$graphLookup startWith", &pS->pExpr, pzErr);
}


static int aggHasMeta(const DocValue *v);

/* A pipeline inside a stage (the array pArr), into pSub: with $$NOW nowMs
** and the let variables aLet. bHead: it reads a collection ($unionWith,
** $lookup: pSub->pColl, set by the caller), so its head is that
** collection's query, which gets the let too and carries text scores when
** a stage reads them; else it runs on the stage's input ($facet). */
static int compileSubLet(DocConn *pConn, i64 nowMs, const u8 *aLet,
                         const DocCollator *pCollator, Agg *pSub,
                         const DocValue *pArr, int bHead, char **pzErr){
  int rc = SQLITE_OK;
  pSub->pConn = pConn;
  pSub->bTextScore = bHead && aggHasMeta(pArr);
  pSub->nowMs = nowMs;
  pSub->aLet = aLet;
  pSub->pCollator = docextCollatorRef(pCollator);
  pSub->iQueryOpts = -1;
  docextBufAppend(&rc, &pSub->pipe, pArr->p, pArr->n);
  if( rc==SQLITE_OK && bHead && (aLet || pCollator) ){
    pSub->iQueryOpts = docextBsonStartDoc(&rc, &pSub->query);
    if( aLet ){
      DocValue let;
      let.type = DOC_DOCUMENT;
      let.p = aLet;
      let.n = docextGetI32(aLet);
      docextBsonAppendValue(&rc, &pSub->query, "let", 3, &let);
    }
    if( pCollator ) docextCollatorAppendSpec(&rc, &pSub->query, "collation", 9, pCollator);
    docextBsonEndDoc(&rc, &pSub->query, pSub->iQueryOpts);
  }
  if( rc ) return rc;
  return compileStages(pConn, pSub, bHead, pzErr);
}
static int compileSub(DocConn *pConn, const Agg *p, Agg *pSub, const DocValue *pArr,
                      int bHead, char **pzErr){
  return compileSubLet(pConn, p->nowMs, p->aLet, p->pCollator, pSub, pArr, bHead, pzErr);
}

/* An error of a pipeline inside stage pS, said again with its place. */
static int subWrap(const AggStage *pS, const char *zWhere, int rc, char **pzErr){
  static const char zPre[] = "docext: doc_aggregate: ";
  if( rc!=SQLITE_NOMEM && *pzErr && strncmp(*pzErr, zPre, sizeof(zPre)-1)==0 ){
    char *zWhy = *pzErr;
    *pzErr = 0;
    rc = stageError(pS, pzErr, "in %s: %s", zWhere, zWhy + sizeof(zPre)-1);
    sqlite3_free(zWhy);
  }
  return rc;
}

/* The let document of a $lookup's pipeline for input document aDoc
** (NULL: for checking the pipeline, every variable null), into pLet
** (reset): p's let, and each variable of the stage as {$literal: value}
** ("$$REMOVE" when its value is missing). */
static int lookupLet(const Agg *p, const AggStage *pS, const u8 *aDoc, DocBuf *pTmp,
                     DocBuf *pLet, char **pzErr){
  static const u8 aNull[1] = {0};
  DocValue null = { DOC_NULL, aNull, 0 }, v;
  DocIter it;
  int rc = SQLITE_OK, j;
  i64 iLet;
  docextBufReset(pLet);
  iLet = docextBsonStartDoc(&rc, pLet);
  if( p->aLet ){
    docextIterInit(&it, p->aLet);
    while( docextIterNext(&it) ){
      for(j=0; j<pS->nField && strcmp(pS->aField[j].zName, it.zKey)!=0; j++){}
      if( j==pS->nField ) docextBsonAppendValue(&rc, pLet, it.zKey, it.nKey, &it.v);
    }
  }
  for(j=0; rc==SQLITE_OK && j<pS->nField; j++){
    const char *zName = pS->aField[j].zName;
    if( aDoc ){
      rc = docextExprValue(pS->aField[j].pExpr, aDoc, pTmp, &v, pzErr);
      if( rc ) break;
    }else{
      v = null;
    }
    if( v.type==0 ){
      docextBsonAppendString(&rc, pLet, DOC_STRING, zName, (int)strlen(zName), "$$REMOVE", 8);
    }else{
      appendLiteral(&rc, pLet, zName, &v);
    }
  }
  docextBsonEndDoc(&rc, pLet, iLet);
  return rc;
}

/* Does the pipeline (a BSON array) start with $documents, which takes the
** place of a collection? */
static int startsWithDocuments(const DocValue *pPipe){
  DocIter it, st;
  if( pPipe->type!=DOC_ARRAY ) return 0;
  docextIterInitValue(&it, pPipe);
  if( docextIterNext(&it)<=0 || it.v.type!=DOC_DOCUMENT ) return 0;
  docextIterInitValue(&st, &it.v);
  return docextIterNext(&st)>0 && docextIterKeyIs(&st, "$documents");
}

/* The pipeline a $lookup runs for one document, into pOut (reset): a
** $match of pFilter (the equality of localField and foreignField, when
** the stage has them, or NULL), then the stage's pipeline. */
static void lookupPipeline(int *pRc, const AggStage *pS, const DocBuf *pFilter, DocBuf *pOut){
  DocIter it;
  int n = 0;
  i64 iArr;
  char zIdx[16];
  docextBufReset(pOut);
  iArr = docextBsonStartDoc(pRc, pOut);
  docextIterInit(&it, pS->aPipeline);
  if( pS->zFrom==0 && docextIterNext(&it)>0 ){
    /* (its $documents first: the equality filters what it makes) */
    docextBsonAppendValue(pRc, pOut, zIdx, docextBsonArrayKey(zIdx, n++), &it.v);
  }
  if( pFilter ){
    DocValue f;
    i64 iStage = docextBsonStartChild(pRc, pOut, DOC_DOCUMENT, zIdx, docextBsonArrayKey(zIdx, n++));
    f.type = DOC_DOCUMENT;
    f.p = pFilter->a;
    f.n = (int)pFilter->n;
    docextBsonAppendValue(pRc, pOut, "$match", 6, &f);
    docextBsonEndDoc(pRc, pOut, iStage);
  }
  if( pS->zFrom ) docextIterInit(&it, pS->aPipeline);
  while( docextIterNext(&it) ){
    docextBsonAppendValue(pRc, pOut, zIdx, docextBsonArrayKey(zIdx, n++), &it.v);
  }
  docextBsonEndDoc(pRc, pOut, iArr);
}

/* Compile, once, the pipeline a $lookup would run (its variables null), to
** report its errors before any document is read. */
static int lookupCheck(DocConn *pConn, const Agg *p, const AggStage *pS, char **pzErr){
  DocBuf let, arr, tmp;
  Agg sub;
  DocValue a;
  int rc = SQLITE_OK;
  memset(&let, 0, sizeof(let));
  memset(&arr, 0, sizeof(arr));
  memset(&tmp, 0, sizeof(tmp));
  memset(&sub, 0, sizeof(sub));
  sub.pColl = pS->pFrom;
  rc = lookupLet(p, pS, 0, &tmp, &let, pzErr);
  lookupPipeline(&rc, pS, 0, &arr);
  a.type = DOC_ARRAY;
  a.p = arr.a;
  a.n = (int)arr.n;
  if( rc==SQLITE_OK ) rc = compileSubLet(pConn, p->nowMs, let.a, p->pCollator, &sub, &a, 1,
                                         pzErr);
  aggFree(&sub);
  docextBufFree(&let);
  docextBufFree(&arr);
  docextBufFree(&tmp);
  return rc ? subWrap(pS, "its pipeline", rc, pzErr) : SQLITE_OK;
}

/* $lookup: {from, localField, foreignField, as}, and with a pipeline (which
** may stand in for the two fields, or add to them) its let variables. */
static int compileLookup(DocConn *pConn, Agg *p, AggStage *pS, const DocValue *v,
                         char **pzErr){
  static const char *const azKey[] = {
    "from", "localField", "foreignField", "as", "let", "pipeline",
  };
  const char *az[4] = {0, 0, 0, 0};
  DocValue let;
  DocIter it;
  int rc, i, bDocuments = 0;
  memset(&let, 0, sizeof(let));
  if( v->type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "needs a document");
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    i = docextNameIndex(it.zKey, it.nKey, azKey, DOCEXT_COUNT(azKey));
    if( i<0 ) return stageError(pS, pzErr, "unknown option '%s'", it.zKey);
    if( i==4 ){
      if( it.v.type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "let must be a document");
      let = it.v;
    }else if( i==5 ){
      if( it.v.type!=DOC_ARRAY ) return stageError(pS, pzErr, "pipeline must be an array");
      pS->aPipeline = it.v.p;
      bDocuments = startsWithDocuments(&it.v);
    }else{
      if( it.v.type!=DOC_STRING ) return stageError(pS, pzErr, "%s must be a string", azKey[i]);
      az[i] = (const char*)it.v.p+4;
    }
  }
  if( az[0]==0 && !bDocuments ){
    return stageError(pS, pzErr, "from is required, unless the pipeline starts with $documents");
  }
  if( az[0] && bDocuments ){
    return stageError(pS, pzErr, "a pipeline that starts with $documents takes no from");
  }
  if( az[3]==0 ) return stageError(pS, pzErr, "as is required");
  if( (az[1]==0)!=(az[2]==0) ){
    return stageError(pS, pzErr, "localField and foreignField go together");
  }
  if( az[1]==0 && pS->aPipeline==0 ){
    return stageError(pS, pzErr, "needs localField and foreignField, or a pipeline");
  }
  if( let.type && pS->aPipeline==0 ) return stageError(pS, pzErr, "let needs a pipeline");
  if( az[1] && (az[1][0]==0 || az[1][0]=='$' || az[2][0]==0 || az[2][0]=='$') ){
    return stageError(pS, pzErr, "localField and foreignField are field names, without '$'");
  }
  rc = checkNewPath(pS, "as", az[3], pzErr);
  if( rc==SQLITE_OK && az[0] ) rc = collSqlName(pConn, pS, az[0], pzErr);
  if( rc ) return rc;
  pS->zLocal = az[1];
  pS->zForeign = az[2];
  pS->zField = az[3];
  if( pS->aPipeline==0 ) return SQLITE_OK;
  /* the variables, each an expression of the input document */
  pS->aField = docextMallocZero(sizeof(AggField)*(let.type ? docextIterCount(&let)+1 : 1));
  if( pS->aField==0 ) return SQLITE_NOMEM;
  if( let.type ) docextIterInitValue(&it, &let);
  while( rc==SQLITE_OK && let.type && docextIterNext(&it) ){
    AggField *pF = &pS->aField[pS->nField++];
    if( !docextExprVarNameOk(it.zKey, it.nKey) ){
      return stageError(pS, pzErr, "let: '%s' is not a valid variable name (a lower-case "
                        "letter first, then letters, digits or _)", it.zKey);
    }
    pF->zName = it.zKey;
    rc = aggExprNew(p, &it.v, "$lookup let", &pF->pExpr, pzErr);
  }
  if( rc==SQLITE_OK ) rc = lookupCheck(pConn, p, pS, pzErr);
  return rc;
}


/* $facet: {name: [stages], …}, each pipeline run on the stage's input. */
static int compileFacet(DocConn *pConn, Agg *p, AggStage *pS, const DocValue *v,
                        char **pzErr){
  DocIter it;
  int rc = SQLITE_OK, n, j;
  if( v->type!=DOC_DOCUMENT || (n = docextIterCount(v))==0 ){
    return stageError(pS, pzErr, "needs a document of pipelines, as {name: [stages]}");
  }
  pS->aSub = docextMallocZero(sizeof(Agg)*n);
  pS->azSub = docextMallocZero(sizeof(char*)*n);
  if( pS->aSub==0 || pS->azSub==0 ) return SQLITE_NOMEM;
  docextIterInitValue(&it, v);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    Agg *pSub = &pS->aSub[pS->nSub];
    rc = checkNewField(pS, "the facet", it.zKey, pzErr);
    if( rc ) break;
    if( it.v.type!=DOC_ARRAY || docextIterCount(&it.v)==0 ){
      return stageError(pS, pzErr, "the facet '%s' must be a non-empty array of stages",
                        it.zKey);
    }
    pS->azSub[pS->nSub++] = it.zKey;
    rc = compileSub(pConn, p, pSub, &it.v, 0, pzErr);
    if( rc ){
      char *zWhere = sqlite3_mprintf("facet '%s'", it.zKey);
      rc = zWhere ? subWrap(pS, zWhere, rc, pzErr) : SQLITE_NOMEM;
      sqlite3_free(zWhere);
    }
    for(j=0; rc==SQLITE_OK && j<pSub->nStage; j++){
      if( pSub->aStage[j].eStage==AG_FACET ){
        rc = stageError(pS, pzErr, "the facet '%s' holds a $facet, which MongoDB does "
                        "not allow", it.zKey);
      }
    }
  }
  return rc;
}

/* $unionWith: "coll", or {coll: "coll", pipeline: [stages]}. */
static int compileUnion(DocConn *pConn, Agg *p, AggStage *pS, const DocValue *v,
                        char **pzErr){
  static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
  DocValue pipe = { DOC_ARRAY, aEmpty, 5 };
  const char *zColl = 0;
  DocIter it;
  int rc;
  if( v->type==DOC_STRING ){
    zColl = (const char*)v->p+4;
  }else if( v->type==DOC_DOCUMENT ){
    docextIterInitValue(&it, v);
    while( docextIterNext(&it) ){
      if( docextIterKeyIs(&it, "coll") && it.v.type==DOC_STRING ){
        zColl = (const char*)it.v.p+4;
      }else if( docextIterKeyIs(&it, "pipeline") && it.v.type==DOC_ARRAY ){
        pipe = it.v;
      }else{
        return stageError(pS, pzErr, "takes coll, a string, and pipeline, an array, "
                          "not '%s' of type %s", it.zKey, docextTypeAlias(it.v.type));
      }
    }
  }
  if( zColl==0 && !startsWithDocuments(&pipe) ){
    return stageError(pS, pzErr, "needs a collection name, or {coll: name, pipeline: "
                      "[stages]}, or a pipeline that starts with $documents");
  }
  if( zColl ){
    rc = collSqlName(pConn, pS, zColl, pzErr);
    if( rc ) return rc;
  }
  pS->aSub = docextMallocZero(sizeof(Agg));
  if( pS->aSub==0 ) return SQLITE_NOMEM;
  pS->nSub = 1;
  pS->aSub->pColl = pS->pFrom;
  rc = compileSub(pConn, p, pS->aSub, &pipe, 1, pzErr);
  return rc ? subWrap(pS, "its pipeline", rc, pzErr) : SQLITE_OK;
}

/* $fill: MongoDB's rewrite, {$setWindowFields: {partitionBy, sortBy,
** output: {f: {$locf: "$f"} or {$linearFill: "$f"}}}} for the fields
** filled by a method, then {$addFields: {f: {$ifNull: ["$f", value]}}} for
** those filled with a value. partitionByFields [a, b] partitions by
** {a: "$a", b: "$b"}. */
static int compileFill(Agg *p, AggStage *pS, const DocValue *v, char **pzErr){
  static const char *const azArg[] = {"partitionBy", "partitionByFields", "sortBy", "output"};
  DocValue a[4], partition, fields, sortBy, output;
  DocIter it, f;
  DocBuf *pW = &pS->own;
  int rc = SQLITE_OK, nMethod = 0, nValue = 0;
  i64 iDoc, iOut;
  const char *zOther;
  if( v->type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "needs a document");
  if( (zOther = docextBsonFields(v, azArg, 4, a))!=0 ){
    return stageError(pS, pzErr, "unknown field '%s' (it takes partitionBy, "
                      "partitionByFields, sortBy and output)", zOther);
  }
  partition = a[0];
  fields = a[1];
  sortBy = a[2];
  output = a[3];
  if( partition.type && fields.type ){
    return stageError(pS, pzErr, "takes partitionBy or partitionByFields, not both");
  }
  if( output.type!=DOC_DOCUMENT || docextIterCount(&output)==0 ){
    return stageError(pS, pzErr, "needs an output document, as "
                      "{output: {x: {method: \"locf\"}}}");
  }
  /* the $setWindowFields of the fields filled by a method */
  iDoc = docextBsonStartDoc(&rc, pW);
  if( partition.type ) docextBsonAppendValue(&rc, pW, "partitionBy", 11, &partition);
  if( fields.type ){
    i64 iPart;
    if( fields.type!=DOC_ARRAY ){
      return stageError(pS, pzErr, "partitionByFields must be an array of field names");
    }
    iPart = docextBsonStartChild(&rc, pW, DOC_DOCUMENT, "partitionBy", 11);
    docextIterInitValue(&f, &fields);
    while( rc==SQLITE_OK && docextIterNext(&f) ){
      int n;
      const char *z = f.v.type==DOC_STRING ? docextValueStr(&f.v, &n) : 0;
      if( z==0 || n==0 || z[0]=='$' || (int)strlen(z)!=n ){
        return stageError(pS, pzErr, "partitionByFields must be an array of field names");
      }
      docextBsonAppendFieldRef(&rc, pW, z, n, z, n);
    }
    docextBsonEndDoc(&rc, pW, iPart);
  }
  if( sortBy.type ) docextBsonAppendValue(&rc, pW, "sortBy", 6, &sortBy);
  iOut = docextBsonStartChild(&rc, pW, DOC_DOCUMENT, "output", 6);
  docextIterInitValue(&it, &output);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    DocValue method, value;
    memset(&method, 0, sizeof(method));
    memset(&value, 0, sizeof(value));
    if( it.v.type==DOC_DOCUMENT && docextIterCount(&it.v)==1 ){
      docextIterInitValue(&f, &it.v);
      docextIterNext(&f);
      if( docextIterKeyIs(&f, "method") ) method = f.v;
      if( docextIterKeyIs(&f, "value") ) value = f.v;
    }
    if( method.type==0 && value.type==0 ){
      return stageError(pS, pzErr, "output field '%s' must be {value: expression} or "
                        "{method: \"locf\" or \"linear\"}", it.zKey);
    }
    if( method.type ){
      int n;
      const char *z = method.type==DOC_STRING ? docextValueStr(&method, &n) : "";
      int bLocf = strcmp(z, "locf")==0;
      i64 iF;
      if( !bLocf && strcmp(z, "linear")!=0 ){
        return stageError(pS, pzErr, "output field '%s': the method is \"locf\" or "
                          "\"linear\"", it.zKey);
      }
      iF = docextBsonStartChild(&rc, pW, DOC_DOCUMENT, it.zKey, it.nKey);
      docextBsonAppendFieldRef(&rc, pW, bLocf ? "$locf" : "$linearFill", bLocf ? 5 : 11,
                               it.zKey, it.nKey);
      docextBsonEndDoc(&rc, pW, iF);
      nMethod++;
    }else{
      nValue++;
    }
  }
  docextBsonEndDoc(&rc, pW, iOut);
  docextBsonEndDoc(&rc, pW, iDoc);
  if( rc==SQLITE_OK && nMethod ){
    DocValue w;
    w.type = DOC_DOCUMENT;
    w.p = pW->a;
    w.n = (int)pW->n;
    rc = docextWindowNew(&w, p->aLet, p->nowMs, &pS->pWindow, pzErr);
    if( rc==SQLITE_OK ) docextWindowSetCollator(pS->pWindow, p->pCollator);
  }
  /* then the $addFields of the fields filled with a value */
  if( rc==SQLITE_OK && nValue ){
    i64 iArr, iStage, iSet;
    if( nMethod ){
      pS = aggNewStage(p, AG_SHAPE, pS->zOp, pS->iStage, &rc);
      if( pS==0 ) return rc;
    }else{
      pS->eStage = AG_SHAPE;
    }
    docextBufReset(&p->work);
    iArr = docextBsonStartDoc(&rc, &p->work);
    iStage = docextBsonStartChild(&rc, &p->work, DOC_DOCUMENT, "0", 1);
    iSet = docextBsonStartChild(&rc, &p->work, DOC_DOCUMENT, "$addFields", 10);
    docextIterInitValue(&it, &output);
    while( rc==SQLITE_OK && docextIterNext(&it) ){
      i64 iF, iNull;
      docextIterInitValue(&f, &it.v);
      docextIterNext(&f);
      if( !docextIterKeyIs(&f, "value") ) continue;
      iF = docextBsonStartChild(&rc, &p->work, DOC_DOCUMENT, it.zKey, it.nKey);
      iNull = docextBsonStartChild(&rc, &p->work, DOC_ARRAY, "$ifNull", 7);
      docextBsonAppendFieldRef(&rc, &p->work, "0", 1, it.zKey, it.nKey);
      docextBsonAppendValue(&rc, &p->work, "1", 1, &f.v);
      docextBsonEndDoc(&rc, &p->work, iNull);
      docextBsonEndDoc(&rc, &p->work, iF);
    }
    docextBsonEndDoc(&rc, &p->work, iSet);
    docextBsonEndDoc(&rc, &p->work, iStage);
    docextBsonEndDoc(&rc, &p->work, iArr);
    if( rc==SQLITE_OK ) rc = docextPipelineNew(p->work.a, p->aLet, p->nowMs, p->pCollator,
                                                 &pS->pShape, pzErr);
  }
  return rc;
}

/* $sample: {size: n}, a number, not negative; as MongoDB, a fraction is
** cut to a whole number. */
static int compileSample(AggStage *pS, const DocValue *v, char **pzErr){
  DocIter it;
  double d;
  if( v->type!=DOC_DOCUMENT || docextIterCount(v)!=1 ){
    return stageError(pS, pzErr, "needs a document {size: n}");
  }
  docextIterInitValue(&it, v);
  docextIterNext(&it);
  if( !docextIterKeyIs(&it, "size") ){
    return stageError(pS, pzErr, "unknown option '%s': it takes {size: n}", it.zKey);
  }
  d = docextValueIsNumber(&it.v) ? docextValueToDouble(&it.v) : -1.0;
  if( !docextValueIsNumber(&it.v) || !(d>=0) ){
    return stageError(pS, pzErr, "size must be a number, not negative");
  }
  pS->n = d>9.2e18 ? (i64)9.2e18 : (i64)d;
  return SQLITE_OK;
}

/* $geoNear: {near, distanceField, key, spherical, minDistance, maxDistance,
** distanceMultiplier, includeLocs, query}. Without key, the collection's
** one geospatial index gives it (geoNearKey). */
enum {
  GN_NEAR, GN_DISTANCE_FIELD, GN_KEY, GN_SPHERICAL, GN_MIN, GN_MAX, GN_MULTIPLIER,
  GN_INCLUDE_LOCS, GN_QUERY, GN_UNIQUE_DOCS
};
static int compileGeoNear(AggStage *pS, const DocValue *v, char **pzErr){
  static const char *const azOpt[] = {   /* (in GN_* order; uniqueDocs is ignored) */
    "near", "distanceField", "key", "spherical", "minDistance", "maxDistance",
    "distanceMultiplier", "includeLocs", "query", "uniqueDocs"
  };
  DocValue aOpt[DOCEXT_COUNT(azOpt)];
  double *aBound[] = { &pS->rMinDist, &pS->rMaxDist, &pS->rMultiplier };
  DocIter it;
  char *zWhy = 0;
  int rc, i;
  if( v->type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "needs a document of options");
  memset(aOpt, 0, sizeof(aOpt));
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    i = docextNameIndex(it.zKey, it.nKey, azOpt, DOCEXT_COUNT(azOpt));
    if( i<0 ) return stageError(pS, pzErr, "unknown option '%s'", it.zKey);
    aOpt[i] = it.v;
  }
  for(i=GN_DISTANCE_FIELD; i<=GN_KEY; i++){
    if( i==GN_KEY && aOpt[i].type==0 ) continue;
    if( aOpt[i].type!=DOC_STRING ){
      return stageError(pS, pzErr, i==GN_DISTANCE_FIELD ? "needs distanceField, a string"
                        : "key must be the path of the locations, a string");
    }
    rc = checkNewPath(pS, azOpt[i], (const char*)aOpt[i].p+4, pzErr);
    if( rc ) return rc;
  }
  pS->zField = (const char*)aOpt[GN_DISTANCE_FIELD].p+4;
  pS->zLocal = aOpt[GN_KEY].type ? (const char*)aOpt[GN_KEY].p+4 : 0;
  if( aOpt[GN_INCLUDE_LOCS].type ){
    if( aOpt[GN_INCLUDE_LOCS].type!=DOC_STRING ){
      return stageError(pS, pzErr, "includeLocs must be a string");
    }
    pS->zIndexField = (const char*)aOpt[GN_INCLUDE_LOCS].p+4;
    rc = checkNewPath(pS, "includeLocs", pS->zIndexField, pzErr);
    if( rc ) return rc;
  }
  pS->rMinDist = 0;
  pS->rMaxDist = INFINITY;
  pS->rMultiplier = 1;
  for(i=GN_MIN; i<=GN_MULTIPLIER; i++){
    double r = docextValueToDouble(&aOpt[i]);
    if( aOpt[i].type==0 ) continue;
    if( !docextValueIsNumber(&aOpt[i]) || !(r>=0) ){
      return stageError(pS, pzErr, "%s must be a number, not negative", azOpt[i]);
    }
    *aBound[i-GN_MIN] = r;
  }
  if( aOpt[GN_QUERY].type ){
    if( aOpt[GN_QUERY].type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "query must be a document");
    pS->aNearQuery = aOpt[GN_QUERY].p;
  }
  if( aOpt[GN_NEAR].type==0 ) return stageError(pS, pzErr, "needs near, a point");
  pS->nearArg = aOpt[GN_NEAR];
  rc = docextGeoNearNew(&aOpt[GN_NEAR], docextValueTruth(&aOpt[GN_SPHERICAL]), &pS->pNear, &zWhy);
  if( rc==SQLITE_ERROR ) rc = stageError(pS, pzErr, "%s", zWhy);
  sqlite3_free(zWhy);
  return rc;
}

/* Compile stage number iStage, the one element of document v. */
static int compileStage(DocConn *pConn, Agg *p, int iStage, const DocValue *pStage,
                        char **pzErr){
  static const char *const azStage[] = {
    "$match", "$project", "$addFields", "$set", "$unset", "$replaceRoot",
    "$replaceWith", "$sort", "$skip", "$limit", "$count", "$unwind", "$group",
    "$sortByCount", "$lookup", "$bucket", "$sample", "$facet", "$unionWith",
    "$graphLookup", "$setWindowFields", "$fill", "$bucketAuto", "$documents", "$densify",
    "$redact", "$geoNear",
  };
  static const int aKind[] = {
    AG_MATCH, AG_SHAPE, AG_SHAPE, AG_SHAPE, AG_SHAPE, AG_SHAPE,
    AG_SHAPE, AG_SORT, AG_SKIP, AG_LIMIT, AG_COUNT, AG_UNWIND, AG_GROUP,
    AG_GROUP, AG_LOOKUP, AG_GROUP, AG_SAMPLE, AG_FACET, AG_UNION,
    AG_GRAPH, AG_WINDOW, AG_WINDOW, AG_AUTO, AG_DOCS, AG_DENSIFY,
    AG_REDACT, AG_GEONEAR,
  };
  DocIter it;
  AggStage *pS, tmp;
  int rc = SQLITE_OK, i;
  memset(&tmp, 0, sizeof(tmp));
  tmp.iStage = iStage;
  if( pStage->type!=DOC_DOCUMENT || docextIterCount(pStage)!=1 ){
    return stageError(&tmp, pzErr, "a stage is a document of one field, as {$match: {…}}");
  }
  docextIterInitValue(&it, pStage);
  docextIterNext(&it);
  i = docextNameIndex(it.zKey, it.nKey, azStage, DOCEXT_COUNT(azStage));
  if( i<0 ){
    tmp.zOp = it.zKey;
    return stageError(&tmp, pzErr, it.zKey[0]=='$'
                      ? "no such stage in docext (it takes $match, $project, $addFields, "
                        "$set, $unset, $replaceRoot, $replaceWith, $sort, $skip, $limit, "
                        "$count, $unwind, $group, $sortByCount, $bucket, $bucketAuto, $sample, $facet, "
                        "$unionWith, $lookup, $graphLookup, $setWindowFields, $fill, $densify, "
                        "$redact, $geoNear and $documents)"
                      : "a stage's name starts with '$'");
  }
  pS = aggNewStage(p, aKind[i], azStage[i], iStage, &rc);
  if( pS==0 ) return rc;
  if( it.v.type==DOC_DOCUMENT ) pS->aSpec = it.v.p;
  switch( pS->eStage ){
    case AG_MATCH:
      if( it.v.type!=DOC_DOCUMENT ) return stageError(pS, pzErr, "needs a filter document");
      rc = docextMatcherNewColl(it.v.p, p->aLet, &p->nowMs, p->pCollator, &pS->pMatch, pzErr);
      if( rc==SQLITE_OK && iStage>1 && docextMatcherText(pS->pMatch) ){
        rc = stageError(pS, pzErr, "$match with $text is only allowed as the first "
                                   "pipeline stage");
      }
      break;
    case AG_SHAPE:
      workStageArray(p, pS->zOp, &it.v, &rc);
      if( rc==SQLITE_OK ) rc = docextPipelineNew(p->work.a, p->aLet, p->nowMs, p->pCollator,
                                                 &pS->pShape, pzErr);
      break;
    case AG_SORT:
      if( it.v.type!=DOC_DOCUMENT || docextIterCount(&it.v)==0 ){
        return stageError(pS, pzErr, "needs a non-empty sort document");
      }
      rc = docextSortNew(it.v.p, &pS->pSort, pzErr);
      if( rc==SQLITE_OK ) docextSortSetCollator(pS->pSort, p->pCollator);
      break;
    case AG_SKIP: case AG_LIMIT:
      rc = stageCount(pS, &it.v, pS->eStage==AG_LIMIT, 0, &pS->n, pzErr);
      break;
    case AG_COUNT:
      if( it.v.type!=DOC_STRING ) return stageError(pS, pzErr, "needs a field name string");
      pS->zField = (const char*)it.v.p+4;
      rc = checkNewField(pS, "the field name", pS->zField, pzErr);
      break;
    case AG_UNWIND:
      rc = compileUnwind(pS, &it.v, pzErr);
      break;
    case AG_GROUP:
      if( strcmp(azStage[i], "$sortByCount")==0 ){
        /* $sortByCount: x is {$group: {_id: x, count: {$sum: 1}}}, {$sort: {count: -1}} */
        if( !isGroupingExpr(&it.v) ){
          return stageError(pS, pzErr, "needs a $-prefixed field path or an expression "
                            "document, as {$sortByCount: \"$tags\"}");
        }
        rc = aggExprNew(p, &it.v, "$sortByCount", &pS->pExpr, pzErr);
        if( rc ) break;
        pS->aField = docextMallocZero(sizeof(AggField));
        if( pS->aField==0 ) return SQLITE_NOMEM;
        rc = compileCountField(p, pS, pzErr);
        if( rc ) break;
        docextBufReset(&p->work);
        {
          i64 iSort = docextBsonStartDoc(&rc, &p->work);
          docextBsonAppendInt32(&rc, &p->work, "count", 5, -1);
          docextBsonEndDoc(&rc, &p->work, iSort);
        }
        pS = aggNewStage(p, AG_SORT, "$sortByCount", iStage, &rc);
        if( pS ) rc = docextSortNew(p->work.a, &pS->pSort, pzErr);
        if( rc==SQLITE_OK && pS ) docextSortSetCollator(pS->pSort, p->pCollator);
        break;
      }
      rc = strcmp(azStage[i], "$bucket")==0 ? compileBucket(p, pS, &it.v, pzErr)
                                             : compileGroup(p, pS, &it.v, pzErr);
      break;
    case AG_SAMPLE:
      rc = compileSample(pS, &it.v, pzErr);
      break;
    case AG_FACET:
      rc = compileFacet(pConn, p, pS, &it.v, pzErr);
      break;
    case AG_UNION:
      rc = compileUnion(pConn, p, pS, &it.v, pzErr);
      break;
    case AG_GRAPH:
      rc = compileGraphLookup(pConn, p, pS, &it.v, pzErr);
      break;
    case AG_LOOKUP:
      rc = compileLookup(pConn, p, pS, &it.v, pzErr);
      break;
    case AG_AUTO:
      rc = compileBucketAuto(p, pS, &it.v, pzErr);
      break;
    case AG_DENSIFY:
      rc = docextDensifyNew(&it.v, p->aLet, p->nowMs, &pS->pDensify, pzErr);
      if( rc==SQLITE_OK ) docextDensifySetCollator(pS->pDensify, p->pCollator);
      break;
    case AG_REDACT:
      rc = aggExprNew(p, &it.v, "$redact", &pS->pExpr, pzErr);
      break;
    case AG_GEONEAR:
      if( iStage!=1 ){
        return stageError(pS, pzErr, "is only valid as the first stage of a pipeline");
      }
      rc = compileGeoNear(pS, &it.v, pzErr);
      break;
    case AG_DOCS:
      /* (its value is made once, before any document: it reads none) */
      if( iStage!=1 ){
        return stageError(pS, pzErr, "must be the first stage of a pipeline");
      }
      rc = aggExprNew(p, &it.v, "$documents", &pS->pExpr, pzErr);
      if( rc==SQLITE_OK && !docextExprIsConstant(pS->pExpr) ){
        return stageError(pS, pzErr, "takes an array of documents, or an expression "
                          "that reads no document");
      }
      break;
    case AG_WINDOW:
      rc = strcmp(azStage[i], "$fill")==0 ? compileFill(p, pS, &it.v, pzErr)
         : docextWindowNew(&it.v, p->aLet, p->nowMs, &pS->pWindow, pzErr);
      if( rc==SQLITE_OK && pS->pWindow ) docextWindowSetCollator(pS->pWindow, p->pCollator);
      break;
  }
  return rc ? stageWrap(&p->aStage[p->nStage-1], rc, pzErr) : SQLITE_OK;
}

/* Which stages at the head the collection's query does: $match stages
** (their filters ANDed), then a $sort, then a $limit. */
/* A $geoNear without key takes the path of the collection's geospatial
** index, as MongoDB does: its one 2d index, else its one 2dsphere index;
** with none, or with two of the kind that decides, key is needed. */
static int geoNearKey(Agg *p, AggStage *pS, char **pzErr){
  DocIndex *aIdx = 0;
  const char *aPath[2] = {0, 0};      /* 2d, 2dsphere */
  int aCount[2] = {0, 0}, nIdx = 0, i, j, k, rc;
  if( p->pColl==0 ) return stageError(pS, pzErr, "needs key, the path of the locations");
  rc = docextCollIndexes(p->pColl, &aIdx, &nIdx, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  for(i=0; i<nIdx; i++){
    for(j=0; j<aIdx[i].nField; j++){
      if( !docextDirIsGeo(aIdx[i].aDir[j]) ) continue;
      k = aIdx[i].aDir[j]==DOCEXT_DIR_2D ? 0 : 1;
      aCount[k]++;
      aPath[k] = aIdx[i].azPath[j];
    }
  }
  k = aCount[0] ? 0 : 1;
  if( aCount[k]!=1 ){
    return stageError(pS, pzErr, aCount[k]==0
        ? "needs key: the collection has no 2d or 2dsphere index to take it from"
        : "needs key: the collection has more than one %s index", k==0 ? "2d" : "2dsphere");
  }
  /* (the index may go before the pipeline ends: keep a copy) */
  docextBufReset(&pS->own);
  docextBufAppend(&rc, &pS->own, aPath[k], (i64)strlen(aPath[k])+1);
  pS->zLocal = (const char*)pS->own.a;
  return rc;
}

/* The collection's filter for a first stage $geoNear: its query and a
** $nearSphere (in the plane, a $near) that a 2dsphere (2d) index on its
** key can answer (unless the query has a $near of its own: a filter has
** one at most):
** with a maximum distance, the same maximum, which keeps the documents
** the stage keeps; without one, when a $limit of n follows (and no
** minimum: the stage measures a document at its nearest location, while
** $nearSphere's minimum takes any), the query's n nearest, which are the
** stage's n first. */
static int pushGeoNear(Agg *p, const AggStage *pS){
  DocMatcher *pM = 0;
  const char *zPath;
  int rc = SQLITE_OK, bMeters, bNear = 0, bLimit, bSphere, nPath;
  i64 iStart, iAnd = 0, iOps, iGeo;
  char *zErr = 0;
  if( pS->aNearQuery ){
    rc = docextMatcherNew(pS->aNearQuery, 0, 0, &pM, &zErr);
    bNear = rc==SQLITE_OK && docextMatcherNear(pM, &zPath, &nPath)!=0;
    docextMatcherFree(pM);
    sqlite3_free(zErr);
    if( rc==SQLITE_NOMEM ) return rc;
    rc = SQLITE_OK;                 /* (a bad query fails when it runs) */
  }
  bLimit = !(pS->rMaxDist<INFINITY) && pS->rMinDist==0 && p->nStage>1
        && p->aStage[1].eStage==AG_LIMIT;
  bSphere = docextGeoNearIsSphere(pS->pNear, &bMeters);
  if( bNear || !(pS->rMaxDist<INFINITY || bLimit) ){
    if( pS->aNearQuery ){
      p->iFilter = p->query.n;
      docextBufAppend(&rc, &p->query, pS->aNearQuery, docextGetI32(pS->aNearQuery));
    }
    return rc;
  }
  p->iFilter = p->query.n;
  iStart = docextBsonStartDoc(&rc, &p->query);
  if( pS->aNearQuery ){
    DocValue q;
    q.type = DOC_DOCUMENT;
    q.p = pS->aNearQuery;
    q.n = docextGetI32(pS->aNearQuery);
    iAnd = docextBsonStartChild(&rc, &p->query, DOC_ARRAY, "$and", 4);
    docextBsonAppendValue(&rc, &p->query, "0", 1, &q);
    iGeo = docextBsonStartChild(&rc, &p->query, DOC_DOCUMENT, "1", 1);
  }else{
    iGeo = -1;
  }
  iOps = docextBsonStartChild(&rc, &p->query, DOC_DOCUMENT, pS->zLocal, (int)strlen(pS->zLocal));
  if( bMeters ){
    i64 iPt = docextBsonStartChild(&rc, &p->query, DOC_DOCUMENT, "$nearSphere", 11);
    docextBsonAppendValue(&rc, &p->query, "$geometry", 9, &pS->nearArg);
    if( !bLimit ) docextBsonAppendDouble(&rc, &p->query, "$maxDistance", 12, pS->rMaxDist);
    docextBsonEndDoc(&rc, &p->query, iPt);
  }else{
    docextBsonAppendValue(&rc, &p->query, bSphere ? "$nearSphere" : "$near", bSphere ? 11 : 5,
                          &pS->nearArg);
    if( !bLimit ) docextBsonAppendDouble(&rc, &p->query, "$maxDistance", 12, pS->rMaxDist);
  }
  if( bLimit ) p->nLimit = p->aStage[1].n;
  docextBsonEndDoc(&rc, &p->query, iOps);
  if( iGeo>=0 ){
    docextBsonEndDoc(&rc, &p->query, iGeo);
    docextBsonEndDoc(&rc, &p->query, iAnd);
  }
  docextBsonEndDoc(&rc, &p->query, iStart);
  return rc;
}

static int planPushDown(Agg *p){
  int rc = SQLITE_OK, i = 0, nMatch = 0;
  p->iFilter = p->iSort = -1;
  p->nLimit = -1;
  if( p->nStage>0 && p->aStage[0].eStage==AG_DOCS ){
    p->iFirst = 1;                      /* (aggRun runs it: no query) */
    return SQLITE_OK;
  }
  if( p->nStage>0 && p->aStage[0].eStage==AG_GEONEAR ){
    /* its query is the collection's; the stage runs over what it finds */
    p->iFirst = 0;
    return pushGeoNear(p, &p->aStage[0]);
  }
  while( i<p->nStage && p->aStage[i].eStage==AG_MATCH ) i++;
  nMatch = i;
  if( nMatch==1 ){
    p->iFilter = p->query.n;
    docextBufAppend(&rc, &p->query, p->aStage[0].aSpec, docextGetI32(p->aStage[0].aSpec));
  }else if( nMatch>1 ){
    i64 iAnd;
    int k;
    p->iFilter = docextBsonStartDoc(&rc, &p->query);
    iAnd = docextBsonStartChild(&rc, &p->query, DOC_ARRAY, "$and", 4);
    for(k=0; k<nMatch; k++){
      char zIdx[16];
      DocValue v;
      v.type = DOC_DOCUMENT;
      v.p = p->aStage[k].aSpec;
      v.n = docextGetI32(v.p);
      docextBsonAppendValue(&rc, &p->query, zIdx, docextBsonArrayKey(zIdx, k), &v);
    }
    docextBsonEndDoc(&rc, &p->query, iAnd);
    docextBsonEndDoc(&rc, &p->query, p->iFilter);
  }
  /* (a $sortByCount's $sort is its own second half, not a head stage) */
  if( i<p->nStage && p->aStage[i].eStage==AG_SORT && p->aStage[i].aSpec
   && strcmp(p->aStage[i].zOp, "$sort")==0 ){
    p->iSort = p->query.n;
    docextBufAppend(&rc, &p->query, p->aStage[i].aSpec, docextGetI32(p->aStage[i].aSpec));
    i++;
  }
  if( i<p->nStage && p->aStage[i].eStage==AG_LIMIT ){
    p->nLimit = p->aStage[i].n;
    i++;
  }
  p->iFirst = i;
  return rc;
}

/* The options (a document, or NULL): let, the variables of every stage's
** expressions; hint, for the collection's query; collation, of every
** stage and the query; explain (aggExplain); comment, batchSize and
** allowDiskUse, which change nothing here. The query's options document,
** {let, hint, collation}, goes to query. */
static int compileOptions(Agg *p, const u8 *aOptions, char **pzErr){
  static const char *const azOpt[] = {
    "let", "hint", "collation", "explain", "comment", "batchSize", "allowDiskUse",
  };
  DocIter it;
  int rc = SQLITE_OK;
  i64 iDoc;
  p->iQueryOpts = -1;
  if( aOptions==0 ) return SQLITE_OK;
  docextBufAppend(&rc, &p->opts, aOptions, docextGetI32(aOptions));
  if( rc ) return rc;
  rc = docextExprLetOption(p->opts.a, &p->aLet, pzErr);
  if( rc==SQLITE_OK && p->aLet ){
    /* (compiled once here, so that its values are checked whatever the
    ** stages: none may read a field) */
    DocExpr *pCheck = 0;
    rc = docextExprNew(&constOne, p->aLet, "doc_aggregate", docextClockNowMs(), &pCheck, pzErr);
    docextExprFree(pCheck);
  }
  if( rc ) return rc;
  iDoc = docextBsonStartDoc(&rc, &p->query);
  docextIterInit(&it, p->opts.a);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    int i = docextNameIndex(it.zKey, it.nKey, azOpt, DOCEXT_COUNT(azOpt));
    if( i<0 ){
      return docextError(pzErr, "docext: doc_aggregate: unknown option '%s' (it takes "
                         "let, hint, collation, explain, comment, batchSize and allowDiskUse)",
                         it.zKey);
    }
    if( i<=2 ) docextBsonAppendValue(&rc, &p->query, it.zKey, it.nKey, &it.v);
    if( i==2 && p->pCollator==0 ) rc = docextCollatorNew(&it.v, &p->pCollator, pzErr);
    if( i==3 ){
      if( it.v.type!=DOC_BOOL ){
        return docextError(pzErr, "docext: doc_aggregate: option explain must be a boolean");
      }
      p->bExplain = it.v.p[0]!=0;
    }
  }
  docextBsonEndDoc(&rc, &p->query, iDoc);
  if( rc==SQLITE_OK ) p->iQueryOpts = iDoc;
  return rc;
}

/* Compile the stages of p->pipe. bHead: the pipeline reads a collection,
** and the stages a find can do become its query (planPushDown). */
static int compileStages(DocConn *pConn, Agg *p, int bHead, char **pzErr){
  DocIter it;
  DocValue arr;
  int rc = SQLITE_OK, iStage = 0;
  arr.type = DOC_ARRAY;
  arr.p = p->pipe.a;
  arr.n = (int)p->pipe.n;
  if( docextIterCount(&arr)>AGG_MAX_STAGES ){
    return docextError(pzErr, "docext: doc_aggregate: a pipeline has at most %d stages, "
                       "not %d", AGG_MAX_STAGES, docextIterCount(&arr));
  }
  docextIterInitValue(&it, &arr);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    rc = compileStage(pConn, p, ++iStage, &it.v, pzErr);
  }
  if( rc==SQLITE_OK && !bHead && p->nStage>0 && p->aStage[0].eStage==AG_GEONEAR ){
    rc = stageError(&p->aStage[0], pzErr, "needs a collection to read: it cannot be in a $facet");
  }
  if( rc==SQLITE_OK && bHead && p->nStage>0 && p->aStage[0].eStage==AG_GEONEAR
   && p->aStage[0].zLocal==0 ){
    rc = geoNearKey(p, &p->aStage[0], pzErr);
  }
  if( rc==SQLITE_OK && bHead ) rc = planPushDown(p);
  return rc;
}

/* Compile the pipeline (BSON array aPipe) with its options (NULL: none). */

static int aggCompile(DocConn *pConn, Agg *p, const u8 *aPipe, const u8 *aOptions,
                      char **pzErr){
  int rc = SQLITE_OK;
  DocValue pipe;
  docextBufAppend(&rc, &p->pipe, aPipe, docextGetI32(aPipe));
  if( rc==SQLITE_OK ) rc = compileOptions(p, aOptions, pzErr);
  if( rc==SQLITE_OK && p->pColl
   && !(aOptions && docextBsonFind(aOptions, "collation", 9, &pipe)) ){
    /* (none given: the collection's default, for every stage) */
    DocCollator *pDefault = 0;
    rc = docextCollCollation(p->pColl, &pDefault, pzErr);
    p->pCollator = docextCollatorRef(pDefault);
  }
  if( rc ) return rc;
  p->nowMs = docextClockNowMs();
  p->pConn = pConn;
  pipe.type = DOC_ARRAY;
  pipe.p = p->pipe.a;
  pipe.n = (int)p->pipe.n;
  p->bTextScore = aggHasMeta(&pipe);
  return compileStages(pConn, p, 1, pzErr);
}

/*------------------------------------------------------------------------
** Running
*/

static int aggRun(sqlite3 *db, Agg *p, const char *zColl, AggSet *pOut, char **pzErr);
static void appendSetArray(int *pRc, DocBuf *pDoc, const char *zKey, const AggSet *pSet);

/* Step a statement that returns documents (column 0, BSON) into pOut. */
static int readDocs(sqlite3 *db, sqlite3_stmt *pStmt, AggSet *pOut, char **pzErr){
  int rc = SQLITE_OK;
  while( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    setAdd(&rc, pOut, sqlite3_column_blob(pStmt, 0), sqlite3_column_bytes(pStmt, 0));
  }
  if( rc==SQLITE_OK ) rc = sqlite3_reset(pStmt);
  else sqlite3_reset(pStmt);
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){
    rc = docextError(pzErr, "%s", sqlite3_errmsg(db));
  }
  return rc;
}

/* The head of the pipeline: the collection's query. */
static int runQuery(sqlite3 *db, Agg *p, const char *zColl, AggSet *pOut, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_mprintf("SELECT bson FROM %s(?1, NULL, ?2, ?4) LIMIT ?3", zColl);
  int rc;
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ) return docextError(pzErr, "%s", sqlite3_errmsg(db));
  if( p->iFilter>=0 ){
    sqlite3_bind_blob(pStmt, 1, p->query.a + p->iFilter,
                      docextGetI32(p->query.a + p->iFilter), SQLITE_STATIC);
  }
  if( p->iSort>=0 ){
    sqlite3_bind_blob(pStmt, 2, p->query.a + p->iSort,
                      docextGetI32(p->query.a + p->iSort), SQLITE_STATIC);
  }
  sqlite3_bind_int64(pStmt, 3, p->nLimit);
  if( p->iQueryOpts>=0 ){
    sqlite3_bind_blob(pStmt, 4, p->query.a + p->iQueryOpts,
                      docextGetI32(p->query.a + p->iQueryOpts), SQLITE_STATIC);
  }
  rc = readDocs(db, pStmt, pOut, pzErr);
  sqlite3_finalize(pStmt);
  return rc;
}

static int runMatch(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  int rc = SQLITE_OK, i;
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    int bMatch = 0;
    rc = docextMatcherMatch(pS->pMatch, setDoc(pIn, i), &bMatch, 0, pzErr);
    if( rc==SQLITE_OK && bMatch ){
      setAddFrom(&rc, pOut, pIn, i);
    }
  }
  return rc;
}

static int runShape(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  DocBuf doc;
  int rc = SQLITE_OK, i;
  memset(&doc, 0, sizeof(doc));
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    rc = docextPipelineApply(pS->pShape, setDoc(pIn, i), &doc, pzErr);
    if( rc==SQLITE_OK ) rc = setAddMade(pOut, &doc, pS, pzErr);
  }
  docextBufFree(&doc);
  return rc;
}

static int runSort(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  DocKeyItem *aKey = sqlite3_malloc64(sizeof(DocKeyItem)*(pIn->n>0 ? pIn->n : 1));
  DocBuf keys;
  int rc = aKey ? SQLITE_OK : SQLITE_NOMEM, i;
  memset(&keys, 0, sizeof(keys));
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    aKey[i].iKey = keys.n;
    aKey[i].iItem = i;
    rc = docextSortKey(pS->pSort, setDoc(pIn, i), &keys, pzErr);
    aKey[i].nKey = (int)(keys.n - aKey[i].iKey);
  }
  if( rc==SQLITE_OK ) rc = docextSortByKey(aKey, pIn->n, keys.a);
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++) setAddFrom(&rc, pOut, pIn, aKey[i].iItem);
  sqlite3_free(aKey);
  docextBufFree(&keys);
  return rc;
}

static int runSlice(const AggStage *pS, const AggSet *pIn, AggSet *pOut){
  int rc = SQLITE_OK, i;
  i64 iFrom = pS->eStage==AG_SKIP ? pS->n : 0;
  i64 iTo = pS->eStage==AG_LIMIT && pS->n<pIn->n ? pS->n : pIn->n;
  for(i=(int)(iFrom<pIn->n ? iFrom : pIn->n); rc==SQLITE_OK && i<iTo; i++){
    setAddFrom(&rc, pOut, pIn, i);
  }
  return rc;
}

static int runCount(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  DocBuf doc;
  int rc = SQLITE_OK;
  i64 iDoc;
  if( pIn->n==0 ) return SQLITE_OK;          /* (no input, no document) */
  memset(&doc, 0, sizeof(doc));
  iDoc = docextBsonStartDoc(&rc, &doc);
  docextBsonAppendInt32(&rc, &doc, pS->zField, (int)strlen(pS->zField), pIn->n);
  docextBsonEndDoc(&rc, &doc, iDoc);
  if( rc==SQLITE_OK ) rc = setAddMade(pOut, &doc, pS, pzErr);
  docextBufFree(&doc);
  return rc;
}

/* One output of $unwind: aDoc with pElem (NULL: the field removed, or
** aDoc as it is when bAsIs) and the index (-1: null). */
static int unwindOne(const AggStage *pS, const u8 *aDoc, const DocValue *pElem, int bAsIs,
                     i64 iIdx, DocBuf *pTmp, DocBuf *pDoc, AggSet *pOut, char **pzErr){
  int rc = SQLITE_OK;
  const u8 *a = aDoc;
  if( !bAsIs ){
    docextBufReset(pTmp);
    docextBsonSetPath(&rc, pTmp, aDoc, pS->zField, pElem);
    a = pTmp->a;
  }
  if( pS->zIndexField && rc==SQLITE_OK ){
    u8 aI64[8];
    static const u8 aNull[1] = {0};
    DocValue idx = { DOC_NULL, aNull, 0 };
    if( iIdx>=0 ){
      docextPutI32(aI64, (int32_t)(u64)iIdx);
      docextPutI32(aI64+4, (int32_t)((u64)iIdx>>32));
      idx.type = DOC_INT64;
      idx.p = aI64;
      idx.n = 8;
    }
    docextBufReset(pDoc);
    docextBsonSetPath(&rc, pDoc, a, pS->zIndexField, &idx);
    a = pDoc->a;
  }
  if( rc ) return rc;
  if( a==aDoc ){
    setAdd(&rc, pOut, aDoc, docextGetI32(aDoc));
    return rc;
  }
  return setAddMade(pOut, a==pTmp->a ? pTmp : pDoc, pS, pzErr);
}

static int runUnwind(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  DocBuf tmp, doc;
  int rc = SQLITE_OK, i;
  memset(&tmp, 0, sizeof(tmp));
  memset(&doc, 0, sizeof(doc));
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    const u8 *aDoc = setDoc(pIn, i);
    DocValue v;
    if( !docextPathGet(aDoc, pS->zField, (int)strlen(pS->zField), &v) ) v.type = 0;
    if( v.type==DOC_ARRAY && docextIterCount(&v)>0 ){
      DocIter it;
      i64 k = 0;
      docextIterInitValue(&it, &v);
      while( rc==SQLITE_OK && docextIterNext(&it) ){
        rc = unwindOne(pS, aDoc, &it.v, 0, k++, &tmp, &doc, pOut, pzErr);
      }
    }else if( v.type==DOC_ARRAY ){
      /* an empty array: with preserve, the document without the field */
      if( pS->bPreserve ) rc = unwindOne(pS, aDoc, 0, 0, -1, &tmp, &doc, pOut, pzErr);
    }else if( v.type!=0 && v.type!=DOC_NULL && v.type!=DOC_UNDEFINED ){
      /* a value that is not an array is an array of itself, at no index */
      rc = unwindOne(pS, aDoc, 0, 1, -1, &tmp, &doc, pOut, pzErr);
    }else if( pS->bPreserve ){
      rc = unwindOne(pS, aDoc, 0, 1, -1, &tmp, &doc, pOut, pzErr);
    }
  }
  docextBufFree(&tmp);
  docextBufFree(&doc);
  return rc;
}

/* Start field pF's accumulator of a group, pId its _id (NULL: a bucket of
** $bucketAuto, which has none). For $firstN ... $bottomN, n is its
** expression's value over the group's _id when that is a document, else
** over an empty one, as MongoDB evaluates it once for each group
** (GroupProcessorBase::findOrCreateGroup): {_id: {g: "$g"}} lets n read
** "$g". */
static int accumStart(const AggField *pF, DocAccum *pAcc, const DocValue *pId, char **pzErr){
  static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
  return docextAccumStart(pAcc, pF->eAcc, pF->pN, pF->pSort,
                          pId && pId->type==DOC_DOCUMENT ? pId->p : aEmpty, pzErr);
}

/* Append the result of field pF's accumulator (finished, for $median and
** $percentile) to the document being written. */
static int accumWrite(const AggField *pF, DocAccum *pAcc, DocBuf *pDoc, char **pzErr){
  int rc = SQLITE_OK;
  if( pF->pFinish ){
    return docextAccumFinish(pF->pFinish, pAcc, pDoc, pF->zName, (int)strlen(pF->zName), pzErr);
  }
  docextAccumResult(&rc, pAcc, pDoc, pF->zName, (int)strlen(pF->zName));
  return rc;
}

/* $group's groups: found by the key docextKeyAppend gives their _id (so
** 1, 1.0 and NumberLong(1) are one group), group i being entry i of set. */
typedef struct AggGroup AggGroup;
struct AggGroup {
  i64 iId;                  /* the _id, its type byte and bytes, in ids */
  DocAccum *aAcc;           /* one per field */
};
typedef struct AggGroups AggGroups;
struct AggGroups {
  DocKeySet set;
  AggGroup *a;
  int nAlloc;
  DocBuf ids;
};

static void groupsFree(AggGroups *p, int nField){
  int i, j;
  for(i=0; i<p->set.n; i++){
    for(j=0; j<nField; j++) docextAccumFree(&p->a[i].aAcc[j]);
    sqlite3_free(p->a[i].aAcc);
  }
  sqlite3_free(p->a);
  docextKeySetFree(&p->set);
  docextBufFree(&p->ids);
}

/* The group of _id value pId (missing: null), made if new (*pbNew, if not
** NULL, says which). */
static int groupFind(AggGroups *p, const AggStage *pS, const DocValue *pId, AggGroup **ppG,
                     int *pbNew){
  static const u8 aNull[1] = {0};
  DocValue null = { DOC_NULL, aNull, 0 };
  i64 iKey = p->set.keys.n;
  int rc = SQLITE_OK, i, j, bNew;
  AggGroup *aNew, *pG;
  if( pId->type==0 ) pId = &null;
  docextKeyAppendColl(&rc, &p->set.keys, pId, 0, pS->pCollator);
  if( rc==SQLITE_OK ) rc = docextKeySetAdd(&p->set, iKey, &i, &bNew);
  if( rc ) return rc;
  if( pbNew ) *pbNew = bNew;
  if( !bNew ){
    *ppG = &p->a[i];
    return SQLITE_OK;
  }
  aNew = docextArrayGrow(&rc, p->a, i, &p->nAlloc, sizeof(AggGroup));
  if( rc==SQLITE_OK ){
    p->a = aNew;
    pG = &p->a[i];
    memset(pG, 0, sizeof(*pG));
    pG->iId = p->ids.n;
    docextBufAppendByte(&rc, &p->ids, pId->type);
    docextBufAppend(&rc, &p->ids, pId->p, pId->n);
    if( rc==SQLITE_OK ){
      pG->aAcc = sqlite3_malloc64(sizeof(DocAccum)*(pS->nField>0 ? pS->nField : 1));
      if( pG->aAcc==0 ) rc = SQLITE_NOMEM;
    }
  }
  if( rc ){
    /* (not a group after all; the run ends with the error) */
    p->set.n--;
    return rc;
  }
  for(j=0; j<pS->nField; j++){
    docextAccumInit(&pG->aAcc[j], pS->aField[j].eAcc);
    pG->aAcc[j].pCollator = pS->pCollator;
  }
  *ppG = pG;
  return SQLITE_OK;
}

/* The groups' documents, in the order of their keys. */
static int groupsWrite(AggGroups *p, const AggStage *pS, AggSet *pOut, char **pzErr){
  int n = p->set.n;
  DocKeyItem *aKey = sqlite3_malloc64(sizeof(DocKeyItem)*(n>0 ? n : 1));
  DocBuf doc;
  int rc = aKey ? SQLITE_OK : SQLITE_NOMEM, i, j;
  memset(&doc, 0, sizeof(doc));
  if( rc==SQLITE_OK && n>0 ){
    memcpy(aKey, p->set.a, sizeof(DocKeyItem)*n);
    rc = docextSortByKey(aKey, n, p->set.keys.a);
  }
  for(i=0; rc==SQLITE_OK && i<n; i++){
    AggGroup *pG = &p->a[aKey[i].iItem];
    const u8 *aId = p->ids.a + pG->iId;
    DocValue id;
    i64 iDoc;
    id.type = aId[0];
    id.p = aId+1;
    id.n = docextBsonValueSize(aId[0], aId+1, p->ids.a + p->ids.n - (aId+1));
    docextBufReset(&doc);
    iDoc = docextBsonStartDoc(&rc, &doc);
    docextBsonAppendValue(&rc, &doc, "_id", 3, &id);
    for(j=0; rc==SQLITE_OK && j<pS->nField; j++){
      rc = accumWrite(&pS->aField[j], &pG->aAcc[j], &doc, pzErr);
    }
    docextBsonEndDoc(&rc, &doc, iDoc);
    if( rc==SQLITE_OK ) rc = setAddMade(pOut, &doc, pS, pzErr);
  }
  sqlite3_free(aKey);
  docextBufFree(&doc);
  return rc;
}

static int runGroup(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  AggGroups g;
  DocBuf tmp;
  int rc = SQLITE_OK, i, j;
  memset(&g, 0, sizeof(g));
  memset(&tmp, 0, sizeof(tmp));
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    const u8 *aDoc = setDoc(pIn, i);
    AggGroup *pG = 0;
    DocValue v;
    int bNew = 0;
    rc = docextExprValue(pS->pExpr, aDoc, &tmp, &v, pzErr);
    if( rc==SQLITE_OK && pS->bNoDefault && v.type==DOC_MINKEY ){
      rc = stageError(pS, pzErr, "a document's groupBy value is in no bucket, "
                      "and there is no default");
    }
    if( rc==SQLITE_OK ) rc = groupFind(&g, pS, &v, &pG, &bNew);
    for(j=0; rc==SQLITE_OK && bNew && j<pS->nField; j++){
      if( pS->aField[j].pN ) rc = accumStart(&pS->aField[j], &pG->aAcc[j], &v, pzErr);
    }
    for(j=0; rc==SQLITE_OK && j<pS->nField; j++){
      rc = docextExprValue(pS->aField[j].pExpr, aDoc, &tmp, &v, pzErr);
      if( rc==SQLITE_OK ) docextAccumAdd(&rc, &pG->aAcc[j], &v, pzErr);
    }
  }
  if( rc==SQLITE_TOOBIG && *pzErr==0 ){
    rc = stageError(pS, pzErr, "an accumulator's list passes the 16 MiB limit "
                    "of a document");
  }
  if( rc==SQLITE_OK ) rc = groupsWrite(&g, pS, pOut, pzErr);
  groupsFree(&g, pS->nField);
  docextBufFree(&tmp);
  return rc;
}

/* The values of localField, as MongoDB's $lookup reads them: every value
** the path reaches, an array's elements instead of the array; none (a
** missing field, an empty array) is null. Appended to an array being
** written. Undefined, which a filter may not hold, is null too for
** $lookup, and nothing for $graphLookup (bGraph), whose missing values
** find nothing. */
typedef struct LookupValues LookupValues;
struct LookupValues { int rc; DocBuf *pOut; int n; int bGraph; };
static void lookupAdd(LookupValues *p, const DocValue *v){
  static const u8 aNull[1] = {0};
  DocValue null = { DOC_NULL, aNull, 0 };
  char zIdx[16];
  if( v->type==DOC_UNDEFINED ){
    if( p->bGraph ) return;
    v = &null;
  }
  docextBsonAppendValue(&p->rc, p->pOut, zIdx, docextBsonArrayKey(zIdx, p->n++), v);
}
static int lookupVisit(void *pCtx, const DocValue *v, int bFanned){
  LookupValues *p = (LookupValues*)pCtx;
  (void)bFanned;
  if( v->type==DOC_ARRAY ){
    DocIter it;
    docextIterInitValue(&it, v);
    while( docextIterNext(&it) ) lookupAdd(p, &it.v);
  }else{
    lookupAdd(p, v);
  }
  return p->rc;
}

/* The statement that reads stage pS's other collection with the filter
** bound to ?1: SELECT bson FROM from(?1, NULL, NULL, options), the options
** carrying the pipeline's collation, if it has one. */
static int prepareFrom(sqlite3 *db, const AggStage *pS, sqlite3_stmt **ppStmt, char **pzErr){
  char *zSql = sqlite3_mprintf("SELECT bson FROM %s(?1, NULL, NULL, ?2)", pS->zFrom);
  int rc = zSql ? SQLITE_OK : SQLITE_NOMEM;
  *ppStmt = 0;
  if( rc==SQLITE_OK && sqlite3_prepare_v2(db, zSql, -1, ppStmt, 0)!=SQLITE_OK ){
    rc = docextError(pzErr, "%s", sqlite3_errmsg(db));
  }
  sqlite3_free(zSql);
  if( rc==SQLITE_OK && pS->pCollator ){
    DocBuf opt;
    i64 iDoc;
    memset(&opt, 0, sizeof(opt));
    iDoc = docextBsonStartDoc(&rc, &opt);
    docextCollatorAppendSpec(&rc, &opt, "collation", 9, pS->pCollator);
    docextBsonEndDoc(&rc, &opt, iDoc);
    if( rc==SQLITE_OK ) rc = sqlite3_bind_blob(*ppStmt, 2, opt.a, (int)opt.n, SQLITE_TRANSIENT);
    docextBufFree(&opt);
  }
  return rc;
}

/* $lookup: each document gets field `as`, an array of the documents of
** the other collection whose foreignField equals one of its localField
** values, through a query {foreignField: {$in: [values]}}, which indexes
** serve (and in which null also finds a missing field, as in MongoDB). With
** a pipeline, that filter is its first $match (when the stage has the two
** fields), and the pipeline is compiled for each document, whose let
** variables it reads. */
static int runLookup(sqlite3 *db, const Agg *p, const AggStage *pS, const AggSet *pIn,
                     AggSet *pOut, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  DocBuf filter, doc, arr, let, tmp;
  AggSet found;
  int rc = SQLITE_OK, i;
  memset(&filter, 0, sizeof(filter));
  memset(&doc, 0, sizeof(doc));
  memset(&arr, 0, sizeof(arr));
  memset(&let, 0, sizeof(let));
  memset(&tmp, 0, sizeof(tmp));
  memset(&found, 0, sizeof(found));
  if( pS->aPipeline==0 ) rc = prepareFrom(db, pS, &pStmt, pzErr);
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    const u8 *aDoc = setDoc(pIn, i);
    static const u8 aNull[1] = {0};
    DocValue null = { DOC_NULL, aNull, 0 }, arrV;
    found.n = 0;
    docextBufReset(&found.b);
    if( pS->zLocal ){
      LookupValues lv;
      i64 iF, iC, iIn;
      docextBufReset(&filter);
      iF = docextBsonStartDoc(&rc, &filter);
      iC = docextBsonStartChild(&rc, &filter, DOC_DOCUMENT, pS->zForeign,
                                (int)strlen(pS->zForeign));
      iIn = docextBsonStartChild(&rc, &filter, DOC_ARRAY, "$in", 3);
      lv.rc = rc;
      lv.pOut = &filter;
      lv.n = 0;
      lv.bGraph = 0;
      if( rc==SQLITE_OK ){
        docextPathWalk(aDoc, pS->zLocal, (int)strlen(pS->zLocal), lookupVisit, &lv);
        if( lv.n==0 ) lookupAdd(&lv, &null);
        rc = lv.rc;
      }
      docextBsonEndDoc(&rc, &filter, iIn);
      docextBsonEndDoc(&rc, &filter, iC);
      docextBsonEndDoc(&rc, &filter, iF);
      if( rc ) break;
    }
    if( pS->aPipeline ){
      Agg sub;
      DocValue a;
      memset(&sub, 0, sizeof(sub));
      sub.pColl = pS->pFrom;
      rc = lookupLet(p, pS, aDoc, &tmp, &let, pzErr);
      lookupPipeline(&rc, pS, pS->zLocal ? &filter : 0, &arr);
      a.type = DOC_ARRAY;
      a.p = arr.a;
      a.n = (int)arr.n;
      if( rc==SQLITE_OK ){
        rc = compileSubLet(p->pConn, p->nowMs, let.a, p->pCollator, &sub, &a, 1, pzErr);
      }
      if( rc==SQLITE_OK ) rc = aggRun(db, &sub, pS->zFrom, &found, pzErr);
      aggFree(&sub);
      if( rc ) rc = subWrap(pS, "its pipeline", rc, pzErr);
    }else{
      sqlite3_bind_blob(pStmt, 1, filter.a, (int)filter.n, SQLITE_STATIC);
      rc = readDocs(db, pStmt, &found, pzErr);
    }
    if( rc ) break;
    docextBufReset(&arr);
    {
      i64 iArr = docextBsonStartDoc(&rc, &arr);
      setArrayElements(&rc, &arr, &found);
      docextBsonEndDoc(&rc, &arr, iArr);
    }
    arrV.type = DOC_ARRAY;
    arrV.p = arr.a;
    arrV.n = (int)arr.n;
    docextBufReset(&doc);
    docextBsonSetPath(&rc, &doc, aDoc, pS->zField, &arrV);
    if( rc==SQLITE_OK ) rc = setAddMade(pOut, &doc, pS, pzErr);
  }
  sqlite3_finalize(pStmt);
  docextBufFree(&filter);
  docextBufFree(&doc);
  docextBufFree(&arr);
  docextBufFree(&let);
  docextBufFree(&tmp);
  setFree(&found);
  return rc;
}

/* $sample: size documents taken at random, in a random order (the first
** steps of a Fisher-Yates shuffle). */
/* $bucketAuto: the documents in the order of their groupBy values (missing
** is null), cut into buckets of about the same number of documents, equal
** values never cut apart; each bucket's _id is {min, max}, max being the
** next bucket's min (the last one's: its greatest value), or, with a
** granularity, values of its series. MongoDB's algorithm. */
typedef struct AutoBucket AutoBucket;
struct AutoBucket {
  const AggStage *pS;
  DocAccum *aAcc;
  int *aOrder;              /* a bucket's documents in input order (and room
                            ** to sort them) */
  AggRounded min, max;      /* (v, or its bytes in a) */
  DocBuf tmp;
};

static void autoKeep(AggRounded *r, const DocValue *v){
  r->v = *v;
}

/* *pTo = *pFrom, its value in pTo's own bytes when pFrom's was in its own. */
static void roundedCopy(AggRounded *pTo, const AggRounded *pFrom){
  *pTo = *pFrom;
  if( pFrom->v.p==pFrom->a ) pTo->v.p = pTo->a;
}

static int intCmp(void *pCtx, const void *x, const void *y){
  (void)pCtx;
  return *(const int*)x - *(const int*)y;
}

/* Is eAcc one of $bucketAuto's positional accumulators, which take a
** bucket's documents in the order they came in? (The others take them in
** groupBy order, as they leave MongoDB's sorter: accumulator_for_bucket_
** auto.cpp has $first, $firstN, $last and $lastN.) */
static int autoPositional(int eAcc){
  return eAcc==DOCEXT_ACC_FIRST || eAcc==DOCEXT_ACC_LAST
      || eAcc==DOCEXT_ACC_FIRSTN || eAcc==DOCEXT_ACC_LASTN;
}

/* Feed the accumulators the documents of a bucket, aKey[0..n) in groupBy
** order: the positional ones in the order the documents came in, the
** others in groupBy order. */
static int autoFeed(AutoBucket *b, const AggSet *pIn, const DocKeyItem *aKey, int n,
                    char **pzErr){
  int rc = SQLITE_OK, i, j, bInput;
  for(j=0; rc==SQLITE_OK && j<b->pS->nField; j++){
    docextAccumFree(&b->aAcc[j]);
    rc = accumStart(&b->pS->aField[j], &b->aAcc[j], 0, pzErr);
  }
  for(i=0; i<n; i++) b->aOrder[i] = aKey[i].iItem;
  docextSort(b->aOrder, n, sizeof(int), &b->aOrder[n], intCmp, 0);
  for(bInput=0; bInput<2; bInput++){
    for(i=0; rc==SQLITE_OK && i<n; i++){
      const u8 *aDoc = setDoc(pIn, bInput ? b->aOrder[i] : aKey[i].iItem);
      for(j=0; rc==SQLITE_OK && j<b->pS->nField; j++){
        DocValue v;
        if( autoPositional(b->pS->aField[j].eAcc)!=bInput ) continue;
        rc = docextExprValue(b->pS->aField[j].pExpr, aDoc, &b->tmp, &v, pzErr);
        if( rc==SQLITE_OK ) docextAccumAdd(&rc, &b->aAcc[j], &v, pzErr);
      }
    }
  }
  return rc;
}

static int autoWrite(AutoBucket *b, AggSet *pOut, char **pzErr){
  DocBuf doc;
  int rc = SQLITE_OK, j;
  i64 iDoc, iId;
  memset(&doc, 0, sizeof(doc));
  iDoc = docextBsonStartDoc(&rc, &doc);
  iId = docextBsonStartChild(&rc, &doc, DOC_DOCUMENT, "_id", 3);
  docextBsonAppendValue(&rc, &doc, "min", 3, &b->min.v);
  docextBsonAppendValue(&rc, &doc, "max", 3, &b->max.v);
  docextBsonEndDoc(&rc, &doc, iId);
  for(j=0; rc==SQLITE_OK && j<b->pS->nField; j++){
    rc = accumWrite(&b->pS->aField[j], &b->aAcc[j], &doc, pzErr);
  }
  docextBsonEndDoc(&rc, &doc, iDoc);
  if( rc==SQLITE_OK ) rc = setAddMade(pOut, &doc, b->pS, pzErr);
  docextBufFree(&doc);
  return rc;
}

/* The groupBy value of every document, checked for a granularity. */
static int autoValues(const AggStage *pS, const AggSet *pIn, DocKeyItem *aKey, DocBuf *pKeys,
                      DocBuf *pVals, i64 *aVal, char **pzErr){
  static const u8 aNull[1] = {0};
  DocBuf tmp;
  int rc = SQLITE_OK, i;
  memset(&tmp, 0, sizeof(tmp));
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    DocValue v;
    rc = docextExprValue(pS->pExpr, setDoc(pIn, i), &tmp, &v, pzErr);
    if( rc ) break;
    if( v.type==0 ){ v.type = DOC_NULL; v.p = aNull; v.n = 0; }
    if( pS->iSeries ){
      double d = docextValueIsNumber(&v) ? docextValueToDouble(&v) : 0.0;
      if( !docextValueIsNumber(&v) || isnan(d) || isinf(d) || d<0.0 ){
        rc = stageError(pS, pzErr, "with a granularity, groupBy values must be numbers "
                        "0 or above (not NaN or infinite), not %s",
                        docextValueIsNumber(&v) ? (isnan(d) ? "NaN" : isinf(d) ? "infinity"
                                                   : "a negative number")
                                                : docextTypeAlias(v.type));
        break;
      }
    }
    aKey[i].iKey = pKeys->n;
    aKey[i].iItem = i;
    docextKeyAppendColl(&rc, pKeys, &v, 0, pS->pCollator);
    aKey[i].nKey = (int)(pKeys->n - aKey[i].iKey);
    aVal[i] = pVals->n;
    docextBufAppendByte(&rc, pVals, v.type);
    docextBufAppend(&rc, pVals, v.p, v.n);
  }
  docextBufFree(&tmp);
  return rc;
}

static void autoValue(const DocBuf *pVals, const i64 *aVal, const DocKeyItem *pK, DocValue *pV){
  const u8 *a = pVals->a + aVal[pK->iItem];
  pV->type = a[0];
  pV->p = a+1;
  pV->n = docextBsonValueSize(a[0], a+1, pVals->a + pVals->n - (a+1));
}

static int runBucketAuto(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  const struct AggSeries *pSeries = pS->iSeries ? &aSeries[pS->iSeries-1] : 0;
  int n = pIn->n, i = 0, j, rc, bHavePrev = 0;
  DocKeyItem *aKey = sqlite3_malloc64(sizeof(DocKeyItem)*(n>0 ? n : 1));
  i64 *aVal = sqlite3_malloc64(sizeof(i64)*(n>0 ? n : 1)), nApprox, iBucket;
  DocBuf keys, vals;
  AutoBucket b;
  AggRounded prevMax;
  memset(&keys, 0, sizeof(keys));
  memset(&vals, 0, sizeof(vals));
  memset(&b, 0, sizeof(b));
  b.pS = pS;
  rc = aKey && aVal ? SQLITE_OK : SQLITE_NOMEM;
  if( rc==SQLITE_OK ) rc = autoValues(pS, pIn, aKey, &keys, &vals, aVal, pzErr);
  if( rc==SQLITE_OK ) rc = docextSortByKey(aKey, n, keys.a);
  if( rc==SQLITE_OK ){
    b.aAcc = sqlite3_malloc64(sizeof(DocAccum)*(pS->nField>0 ? pS->nField : 1));
    b.aOrder = sqlite3_malloc64(sizeof(int)*2*(n>0 ? n : 1));
    if( b.aAcc==0 || b.aOrder==0 ) rc = SQLITE_NOMEM;
    for(j=0; b.aAcc && j<pS->nField; j++){
      docextAccumInit(&b.aAcc[j], pS->aField[j].eAcc);
      b.aAcc[j].pCollator = pS->pCollator;
    }
  }
  nApprox = (i64)llround((double)n / (double)pS->n);
  if( nApprox<1 ) nApprox = 1;
  for(iBucket=1; rc==SQLITE_OK && i<n && iBucket<=pS->n; iBucket++){
    DocValue v, next;
    i64 nIn = 0;
    int iStart = i;
    autoValue(&vals, aVal, &aKey[i], &v);
    autoKeep(&b.min, &v);
    if( pSeries ){
      if( bHavePrev ) roundedCopy(&b.min, &prevMax);
      else rc = roundGranular(pSeries, &v, 0, &b.min);
    }
    /* about nApprox documents; the last bucket takes the rest */
    while( rc==SQLITE_OK && i<n && (nIn<nApprox || iBucket==pS->n) ){
      autoValue(&vals, aVal, &aKey[i], &v);
      autoKeep(&b.max, &v);
      i++;
      nIn++;
    }
    if( rc ) break;
    if( pSeries ){
      /* the bound rounded up; what it covers, and equal values, join */
      AggRounded bound;
      rc = roundGranular(pSeries, &b.max.v, 1, &bound);
      while( rc==SQLITE_OK && i<n ){
        autoValue(&vals, aVal, &aKey[i], &next);
        if( docextValueCompareColl(&bound.v, &next, pS->pCollator)<=0
         && docextValueCompareColl(&b.max.v, &next, pS->pCollator)!=0 ) break;
        autoKeep(&b.max, &next);
        i++;
      }
      if( rc ) break;
      if( docextValueToDouble(&bound.v)==0.0 && i<n ){
        autoValue(&vals, aVal, &aKey[i], &next);
        rc = roundGranular(pSeries, &next, 0, &b.max);
      }else{
        roundedCopy(&b.max, &bound);
      }
      roundedCopy(&prevMax, &b.max);
      bHavePrev = 1;
    }else{
      /* equal values stay together; max is the next bucket's min */
      while( rc==SQLITE_OK && i<n ){
        autoValue(&vals, aVal, &aKey[i], &next);
        if( docextValueCompareColl(&b.max.v, &next, pS->pCollator)!=0 ) break;
        i++;
      }
      if( i<n ){
        autoValue(&vals, aVal, &aKey[i], &next);
        autoKeep(&b.max, &next);
      }
    }
    if( rc==SQLITE_OK ) rc = autoFeed(&b, pIn, &aKey[iStart], i - iStart, pzErr);
    if( rc==SQLITE_OK ) rc = autoWrite(&b, pOut, pzErr);
  }
  for(j=0; b.aAcc && j<pS->nField; j++) docextAccumFree(&b.aAcc[j]);
  sqlite3_free(b.aAcc);
  sqlite3_free(b.aOrder);
  docextBufFree(&b.tmp);
  docextBufFree(&keys);
  docextBufFree(&vals);
  sqlite3_free(aKey);
  sqlite3_free(aVal);
  return rc;
}

/* $redact: its expression, for the document and (where it gives
** $$DESCEND) each embedded document, keeps it whole ($$KEEP), drops it
** ($$PRUNE), or keeps its fields, embedded documents redacted in turn
** ($$DESCEND); those in arrays too, arrays in arrays as well. */
static int redactValue(const AggStage *pS, const DocValue *v, DocBuf *pOut, const char *zKey,
                       int nKey, DocBuf *pTmp, char **pzErr);

/* Write the redacted document aDoc as element zKey of pOut (zKey NULL: as
** a whole document); nothing when it is pruned. */
static int redactDoc(const AggStage *pS, const u8 *aDoc, DocBuf *pOut, const char *zKey,
                     int nKey, DocBuf *pTmp, char **pzErr){
  DocValue v;
  DocIter it;
  int rc = docextExprValue(pS->pExpr, aDoc, pTmp, &v, pzErr), n;
  const char *z = rc==SQLITE_OK && v.type==DOC_STRING ? docextValueStr(&v, &n) : 0;
  i64 iDoc;
  if( rc ) return rc;
  if( z && n==5 && memcmp(z, "prune", 5)==0 ) return SQLITE_OK;
  if( z && n==4 && memcmp(z, "keep", 4)==0 ){
    DocValue d;
    if( zKey==0 ){
      docextBufAppend(&rc, pOut, aDoc, docextGetI32(aDoc));
      return rc;
    }
    d.type = DOC_DOCUMENT;
    d.p = aDoc;
    d.n = docextGetI32(aDoc);
    docextBsonAppendValue(&rc, pOut, zKey, nKey, &d);
    return rc;
  }
  if( z==0 || n!=7 || memcmp(z, "descend", 7)!=0 ){
    return stageError(pS, pzErr, "the expression must give $$DESCEND, $$PRUNE or $$KEEP, "
                      "not %s", v.type ? docextTypeAlias(v.type) : "missing");
  }
  iDoc = zKey ? docextBsonStartChild(&rc, pOut, DOC_DOCUMENT, zKey, nKey)
              : docextBsonStartDoc(&rc, pOut);
  docextIterInit(&it, aDoc);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    rc = redactValue(pS, &it.v, pOut, it.zKey, it.nKey, pTmp, pzErr);
  }
  docextBsonEndDoc(&rc, pOut, iDoc);
  return rc;
}

static int redactValue(const AggStage *pS, const DocValue *v, DocBuf *pOut, const char *zKey,
                       int nKey, DocBuf *pTmp, char **pzErr){
  int rc = SQLITE_OK;
  if( v->type==DOC_DOCUMENT ){
    return redactDoc(pS, v->p, pOut, zKey, nKey, pTmp, pzErr);
  }
  if( v->type==DOC_ARRAY ){
    DocIter it;
    i64 iArr = docextBsonStartChild(&rc, pOut, DOC_ARRAY, zKey, nKey);
    int k = 0;
    docextIterInitValue(&it, v);
    while( rc==SQLITE_OK && docextIterNext(&it) ){
      /* (a pruned element leaves no gap: the keys are counted again) */
      char zIdx[16];
      int nIdx = docextBsonArrayKey(zIdx, k);
      i64 nBefore = pOut->n;
      rc = redactValue(pS, &it.v, pOut, zIdx, nIdx, pTmp, pzErr);
      if( pOut->n>nBefore ) k++;
    }
    docextBsonEndDoc(&rc, pOut, iArr);
    return rc;
  }
  docextBsonAppendValue(&rc, pOut, zKey, nKey, v);
  return rc;
}

static int runRedact(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  DocBuf doc, tmp;
  int rc = SQLITE_OK, i;
  memset(&doc, 0, sizeof(doc));
  memset(&tmp, 0, sizeof(tmp));
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    docextBufReset(&doc);
    rc = redactDoc(pS, setDoc(pIn, i), &doc, 0, 0, &tmp, pzErr);
    if( rc==SQLITE_OK && doc.n>0 ) rc = setAddMade(pOut, &doc, pS, pzErr);
  }
  docextBufFree(&doc);
  docextBufFree(&tmp);
  return rc;
}

/* $setWindowFields (and $fill) and $densify: docext_window.c's and
** docext_densify.c's, over the documents of pIn. */
typedef struct StageSink StageSink;
struct StageSink { AggSet *pOut; const AggStage *pS; char **pzErr; };
static int stageSink(void *pCtx, const u8 *aDoc, i64 nDoc){
  StageSink *w = (StageSink*)pCtx;
  int rc = SQLITE_OK;
  if( nDoc>DOCEXT_MAX_BSON ){
    return stageError(w->pS, w->pzErr, "makes a document of %lld bytes, over the 16 MiB "
                      "limit", (long long)nDoc);
  }
  setAdd(&rc, w->pOut, aDoc, nDoc);
  return rc;
}
static int runElsewhere(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  const u8 **aDoc = sqlite3_malloc64(sizeof(u8*)*(pIn->n>0 ? pIn->n : 1));
  StageSink w;
  int rc, i;
  if( aDoc==0 ) return SQLITE_NOMEM;
  for(i=0; i<pIn->n; i++) aDoc[i] = setDoc(pIn, i);
  w.pOut = pOut;
  w.pS = pS;
  w.pzErr = pzErr;
  rc = pS->eStage==AG_DENSIFY
     ? docextDensifyRun(pS->pDensify, pIn->n, aDoc, stageSink, &w, pzErr)
     : docextWindowRun(pS->pWindow, pIn->n, aDoc, stageSink, &w, pzErr);
  sqlite3_free(aDoc);
  return rc;
}

/* The nearest location of one document, for $geoNear. */
typedef struct GeoNearVisit GeoNearVisit;
struct GeoNearVisit {
  const DocGeo *pNear;
  double r;                 /* the least distance so far, or -1 */
  DocValue loc;             /* the location at that distance */
  int rc;
};

static int geoNearVisit(void *pCtx, const DocValue *v, int iPos){
  GeoNearVisit *p = (GeoNearVisit*)pCtx;
  double r;
  (void)iPos;
  p->rc = docextGeoDistance(p->pNear, v, &r);
  if( p->rc ) return p->rc;
  if( r>=0 && (p->r<0 || r<p->r) ){
    p->r = r;
    p->loc = *v;
  }
  return SQLITE_OK;
}

/* One document of $geoNear's input, at distance r from its location loc. */
typedef struct GeoNearItem GeoNearItem;
struct GeoNearItem {
  double r;
  int i;
  DocValue loc;             /* (in the input's buffer) */
};

static int geoNearCmp(const void *pA, const void *pB){
  const GeoNearItem *a = (const GeoNearItem*)pA, *b = (const GeoNearItem*)pB;
  if( a->r!=b->r ) return a->r<b->r ? -1 : 1;
  return a->i - b->i;
}

/* $geoNear: the documents whose key holds a location within the distances,
** nearest first (the nearest of a document's locations counts), each with
** its distance (times distanceMultiplier) and, with includeLocs, that
** location. */
static int runGeoNear(const AggStage *pS, const AggSet *pIn, AggSet *pOut, char **pzErr){
  GeoNearItem *a = sqlite3_malloc64(sizeof(GeoNearItem)*(pIn->n>0 ? pIn->n : 1));
  DocBuf tmp, doc;
  int rc = a ? SQLITE_OK : SQLITE_NOMEM, i, n = 0;
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    GeoNearVisit w;
    w.pNear = pS->pNear;
    w.r = -1;
    w.rc = SQLITE_OK;
    docextPathWalkMatch(setDoc(pIn, i), pS->zLocal, (int)strlen(pS->zLocal), 0, geoNearVisit, &w);
    rc = w.rc;
    if( rc==SQLITE_OK && w.r>=0 && w.r>=pS->rMinDist && w.r<=pS->rMaxDist ){
      a[n].r = w.r;
      a[n].i = i;
      a[n].loc = w.loc;
      n++;
    }
  }
  if( rc==SQLITE_OK ) qsort(a, (size_t)n, sizeof(GeoNearItem), geoNearCmp);
  memset(&tmp, 0, sizeof(tmp));
  memset(&doc, 0, sizeof(doc));
  for(i=0; rc==SQLITE_OK && i<n; i++){
    const u8 *aDoc = setDoc(pIn, a[i].i);
    AggRounded dist;
    roundedDouble(&dist, a[i].r*pS->rMultiplier, 0);
    docextBufReset(&doc);
    docextBsonSetPath(&rc, &doc, aDoc, pS->zField, &dist.v);
    if( rc==SQLITE_OK && pS->zIndexField ){
      docextBufReset(&tmp);
      docextBufAppend(&rc, &tmp, doc.a, doc.n);
      docextBufReset(&doc);
      if( rc==SQLITE_OK ) docextBsonSetPath(&rc, &doc, tmp.a, pS->zIndexField, &a[i].loc);
    }
    if( rc==SQLITE_OK ) rc = setAddMade(pOut, &doc, pS, pzErr);
  }
  docextBufFree(&tmp);
  docextBufFree(&doc);
  sqlite3_free(a);
  return rc;
}

static int runSample(const AggStage *pS, const AggSet *pIn, AggSet *pOut){
  int *aIdx = sqlite3_malloc64(sizeof(int)*(pIn->n>0 ? pIn->n : 1));
  int rc = aIdx ? SQLITE_OK : SQLITE_NOMEM, i;
  i64 nTake = pS->n<pIn->n ? pS->n : pIn->n;
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++) aIdx[i] = i;
  for(i=0; rc==SQLITE_OK && i<nTake; i++){
    int j = i + (int)(docextRandomUnit() * (pIn->n - i)), t;
    if( j>=pIn->n ) j = pIn->n-1;
    t = aIdx[i];
    aIdx[i] = aIdx[j];
    aIdx[j] = t;
    setAddFrom(&rc, pOut, pIn, aIdx[i]);
  }
  sqlite3_free(aIdx);
  return rc;
}

static int runStages(sqlite3 *db, Agg *p, int iFrom, AggSet *pSet, char **pzErr);

/* Append the documents of pSet to the array being written in pDoc. */
static void appendSetArray(int *pRc, DocBuf *pDoc, const char *zKey, const AggSet *pSet){
  i64 iArr = docextBsonStartChild(pRc, pDoc, DOC_ARRAY, zKey, (int)strlen(zKey));
  setArrayElements(pRc, pDoc, pSet);
  docextBsonEndDoc(pRc, pDoc, iArr);
}

/* $facet: one document, each facet's name holding the documents its
** pipeline gives from a copy of the input. */
static int runFacet(sqlite3 *db, const AggStage *pS, const AggSet *pIn, AggSet *pOut,
                    char **pzErr){
  AggSet set;
  DocBuf doc;
  int rc = SQLITE_OK, i;
  i64 iDoc;
  memset(&set, 0, sizeof(set));
  memset(&doc, 0, sizeof(doc));
  iDoc = docextBsonStartDoc(&rc, &doc);
  for(i=0; rc==SQLITE_OK && i<pS->nSub; i++){
    set.n = 0;
    docextBufReset(&set.b);
    setAddAll(&rc, &set, pIn);
    if( rc==SQLITE_OK ) rc = runStages(db, &pS->aSub[i], 0, &set, pzErr);
    appendSetArray(&rc, &doc, pS->azSub[i], &set);
    if( rc==SQLITE_OK && doc.n>DOCEXT_MAX_BSON ) rc = SQLITE_TOOBIG;
  }
  docextBsonEndDoc(&rc, &doc, iDoc);
  if( rc==SQLITE_OK ) rc = setAddMade(pOut, &doc, pS, pzErr);
  setFree(&set);
  docextBufFree(&doc);
  return rc;
}

/* $unionWith: the input, then what the other collection's pipeline gives. */
static int runUnion(sqlite3 *db, const AggStage *pS, const AggSet *pIn, AggSet *pOut,
                    char **pzErr){
  AggSet other;
  int rc = SQLITE_OK;
  memset(&other, 0, sizeof(other));
  setAddAll(&rc, pOut, pIn);
  if( rc==SQLITE_OK ) rc = aggRun(db, pS->aSub, pS->zFrom, &other, pzErr);
  setAddAll(&rc, pOut, &other);
  setFree(&other);
  return rc;
}

/* Does aDoc hold a value at zPath other than undefined? ($graphLookup does
** not connect a document whose connectToField is missing, even to null.) */
static int visitPresent(void *pCtx, const DocValue *v, int bFanned){
  (void)bFanned;
  if( v->type==DOC_UNDEFINED ) return SQLITE_OK;
  *(int*)pCtx = 1;
  return SQLITE_DONE;
}
static int hasValueAt(const u8 *aDoc, const char *zPath){
  int bFound = 0;
  docextPathWalk(aDoc, zPath, (int)strlen(zPath), visitPresent, &bFound);
  return bFound;
}

/* The filter of one step of a $graphLookup: {connectToField: {$in:
** frontier}}, within {$and: [restrictSearchWithMatch, …]} when there is
** one; written into pOut (reset). */
static void graphFilter(int *pRc, const AggStage *pS, const DocBuf *pFrontier, DocBuf *pOut){
  DocValue in;
  i64 iDoc, iAnd = -1, iC;
  in.type = DOC_ARRAY;
  in.p = pFrontier->a;
  in.n = (int)pFrontier->n;
  docextBufReset(pOut);
  iDoc = docextBsonStartDoc(pRc, pOut);
  if( pS->aSpec ){
    DocValue r;
    r.type = DOC_DOCUMENT;
    r.p = pS->aSpec;
    r.n = docextGetI32(r.p);
    iAnd = docextBsonStartChild(pRc, pOut, DOC_ARRAY, "$and", 4);
    docextBsonAppendValue(pRc, pOut, "0", 1, &r);
    iC = docextBsonStartChild(pRc, pOut, DOC_DOCUMENT, "1", 1);
  }else{
    iC = iDoc;
  }
  {
    i64 iF = docextBsonStartChild(pRc, pOut, DOC_DOCUMENT, pS->zForeign,
                                  (int)strlen(pS->zForeign));
    docextBsonAppendValue(pRc, pOut, "$in", 3, &in);
    docextBsonEndDoc(pRc, pOut, iF);
  }
  if( iAnd>=0 ){
    docextBsonEndDoc(pRc, pOut, iC);
    docextBsonEndDoc(pRc, pOut, iAnd);
  }
  docextBsonEndDoc(pRc, pOut, iDoc);
}

/* The documents one input document reaches, breadth first, into the array
** being written in pAs: each once (by _id), at the depth it was first
** found. */
typedef struct GraphWalk GraphWalk;
struct GraphWalk {
  sqlite3 *db;
  sqlite3_stmt *pStmt;      /* SELECT bson FROM from(?1) */
  DocBuf frontier, next;    /* the values to look for (BSON arrays) */
  DocBuf filter, tmp, doc;
  AggSet found;
};

static int graphWalk(GraphWalk *w, const AggStage *pS, const u8 *aDoc, DocBuf *pAs,
                     char **pzErr){
  AggGroups seen;
  LookupValues lv;
  DocValue v;
  i64 depth, iArr, nOut = 0;
  int rc, k;
  memset(&seen, 0, sizeof(seen));
  docextBufReset(pAs);
  rc = docextExprValue(pS->pExpr, aDoc, &w->tmp, &v, pzErr);
  iArr = docextBsonStartDoc(&rc, pAs);
  /* the first frontier: startWith's value, or its elements; none if missing */
  docextBufReset(&w->frontier);
  lv.rc = rc;
  lv.pOut = &w->frontier;
  lv.n = 0;
  lv.bGraph = 1;
  {
    i64 iF = docextBsonStartDoc(&lv.rc, &w->frontier);
    if( v.type ) lookupVisit(&lv, &v, 0);
    docextBsonEndDoc(&lv.rc, &w->frontier, iF);
  }
  rc = lv.rc;
  for(depth=0; rc==SQLITE_OK && lv.n>0 && (pS->n<0 || depth<=pS->n); depth++){
    i64 iN;
    graphFilter(&rc, pS, &w->frontier, &w->filter);
    if( rc ) break;
    sqlite3_bind_blob(w->pStmt, 1, w->filter.a, (int)w->filter.n, SQLITE_STATIC);
    w->found.n = 0;
    docextBufReset(&w->found.b);
    rc = readDocs(w->db, w->pStmt, &w->found, pzErr);
    docextBufReset(&w->next);
    lv.pOut = &w->next;
    lv.n = 0;
    lv.rc = rc;
    iN = docextBsonStartDoc(&lv.rc, &w->next);
    for(k=0; lv.rc==SQLITE_OK && k<w->found.n; k++){
      const u8 *aFound = setDoc(&w->found, k);
      AggGroup *pG = 0;
      DocValue id, d;
      int bNew = 0;
      char zIdx[24];
      if( !hasValueAt(aFound, pS->zForeign) ) continue;
      if( !docextBsonFind(aFound, "_id", 3, &id) ) id.type = 0;
      lv.rc = groupFind(&seen, pS, &id, &pG, &bNew);
      if( lv.rc || !bNew ) continue;
      d.type = DOC_DOCUMENT;
      d.p = aFound;
      d.n = docextGetI32(aFound);
      if( pS->zIndexField ){
        u8 aI64[8];
        DocValue dv;
        docextPutI32(aI64, (int32_t)(u64)depth);
        docextPutI32(aI64+4, (int32_t)((u64)depth>>32));
        dv.type = DOC_INT64;
        dv.p = aI64;
        dv.n = 8;
        docextBufReset(&w->doc);
        docextBsonSetPath(&lv.rc, &w->doc, aFound, pS->zIndexField, &dv);
        d.p = w->doc.a;
        d.n = (int)w->doc.n;
      }
      docextBsonAppendValue(&lv.rc, pAs, zIdx, docextBsonArrayKey(zIdx, (int)nOut++), &d);
      if( lv.rc==SQLITE_OK && pAs->n>DOCEXT_MAX_BSON ) lv.rc = SQLITE_TOOBIG;
      /* the values it connects from are the next step's */
      docextPathWalk(aFound, pS->zLocal, (int)strlen(pS->zLocal), lookupVisit, &lv);
    }
    docextBsonEndDoc(&lv.rc, &w->next, iN);
    rc = lv.rc;
    if( rc==SQLITE_OK ){
      DocBuf t = w->frontier;       /* the next values become the frontier */
      w->frontier = w->next;
      w->next = t;
    }
  }
  docextBsonEndDoc(&rc, pAs, iArr);
  groupsFree(&seen, 0);
  return rc;
}

/* $graphLookup: each document gets field `as`, the documents of the other
** collection reached from startWith's values by following connectFromField
** values to connectToField ones, each step a query {connectToField: {$in:
** values}}, which indexes serve; to maxDepth steps after the first, if
** given, with depthField holding each one's step (a long). */
static int runGraphLookup(sqlite3 *db, const AggStage *pS, const AggSet *pIn, AggSet *pOut,
                          char **pzErr){
  GraphWalk w;
  DocBuf as, doc;
  int rc, i;
  memset(&w, 0, sizeof(w));
  memset(&as, 0, sizeof(as));
  memset(&doc, 0, sizeof(doc));
  w.db = db;
  rc = prepareFrom(db, pS, &w.pStmt, pzErr);
  for(i=0; rc==SQLITE_OK && i<pIn->n; i++){
    DocValue asV;
    rc = graphWalk(&w, pS, setDoc(pIn, i), &as, pzErr);
    asV.type = DOC_ARRAY;
    asV.p = as.a;
    asV.n = (int)as.n;
    docextBufReset(&doc);
    if( rc==SQLITE_OK ) docextBsonSetPath(&rc, &doc, setDoc(pIn, i), pS->zField, &asV);
    if( rc==SQLITE_OK ) rc = setAddMade(pOut, &doc, pS, pzErr);
  }
  sqlite3_finalize(w.pStmt);
  docextBufFree(&w.frontier);
  docextBufFree(&w.next);
  docextBufFree(&w.filter);
  docextBufFree(&w.tmp);
  docextBufFree(&w.doc);
  setFree(&w.found);
  docextBufFree(&as);
  docextBufFree(&doc);
  return rc;
}

static int runStage(sqlite3 *db, const Agg *p, const AggStage *pS, const AggSet *pIn,
                    AggSet *pOut, char **pzErr){
  int rc = SQLITE_OK;
  switch( pS->eStage ){
    case AG_MATCH:  rc = runMatch(pS, pIn, pOut, pzErr); break;
    case AG_SHAPE:  rc = runShape(pS, pIn, pOut, pzErr); break;
    case AG_SORT:   rc = runSort(pS, pIn, pOut, pzErr); break;
    case AG_SKIP: case AG_LIMIT: rc = runSlice(pS, pIn, pOut); break;
    case AG_COUNT:  rc = runCount(pS, pIn, pOut, pzErr); break;
    case AG_UNWIND: rc = runUnwind(pS, pIn, pOut, pzErr); break;
    case AG_GROUP:  rc = runGroup(pS, pIn, pOut, pzErr); break;
    case AG_LOOKUP: rc = runLookup(db, p, pS, pIn, pOut, pzErr); break;
    case AG_SAMPLE: rc = runSample(pS, pIn, pOut); break;
    case AG_FACET:  rc = runFacet(db, pS, pIn, pOut, pzErr); break;
    case AG_UNION:  rc = runUnion(db, pS, pIn, pOut, pzErr); break;
    case AG_GRAPH:  rc = runGraphLookup(db, pS, pIn, pOut, pzErr); break;
    case AG_WINDOW: case AG_DENSIFY: rc = runElsewhere(pS, pIn, pOut, pzErr); break;
    case AG_REDACT: rc = runRedact(pS, pIn, pOut, pzErr); break;
    case AG_AUTO:   rc = runBucketAuto(pS, pIn, pOut, pzErr); break;
    case AG_GEONEAR: rc = runGeoNear(pS, pIn, pOut, pzErr); break;
    case AG_DOCS:
      rc = stageError(pS, pzErr, "must be the first stage of a pipeline without a "
                      "collection (not of a $facet's)");
      break;
  }
  if( rc==SQLITE_TOOBIG && *pzErr==0 ){
    return stageError(pS, pzErr, "makes a document over the 16 MiB limit");
  }
  return rc ? stageWrap(pS, rc, pzErr) : SQLITE_OK;
}

/* Run stages iFrom.. of p over *pSet, which becomes their output. */
static int runStages(sqlite3 *db, Agg *p, int iFrom, AggSet *pSet, char **pzErr){
  AggSet other;
  int rc = SQLITE_OK, i;
  memset(&other, 0, sizeof(other));
  for(i=iFrom; rc==SQLITE_OK && i<p->nStage; i++){
    AggSet t;
    rc = runStage(db, p, &p->aStage[i], pSet, &other, pzErr);
    t = *pSet;                          /* the output becomes the input */
    *pSet = other;
    other = t;
    other.n = 0;
    docextBufReset(&other.b);
  }
  setFree(&other);
  return rc;
}

/* Run the compiled pipeline over collection zColl (a quoted SQL name);
** the result is left in *pOut. */
/* $documents: the array its expression gives, each element a document. */
static int runDocuments(const AggStage *pS, AggSet *pOut, char **pzErr){
  static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
  DocBuf tmp;
  DocValue v;
  DocIter it;
  int rc;
  memset(&tmp, 0, sizeof(tmp));
  rc = docextExprValue(pS->pExpr, aEmpty, &tmp, &v, pzErr);
  if( rc==SQLITE_OK && v.type!=DOC_ARRAY ){
    rc = stageError(pS, pzErr, "needs an array of documents, not %s",
                    v.type ? docextTypeAlias(v.type) : "missing");
  }
  if( rc==SQLITE_OK ) docextIterInitValue(&it, &v);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( it.v.type!=DOC_DOCUMENT ){
      rc = stageError(pS, pzErr, "needs an array of documents, and element %s is %s",
                      it.zKey, docextTypeAlias(it.v.type));
    }else{
      setAdd(&rc, pOut, it.v.p, it.v.n);
    }
  }
  docextBufFree(&tmp);
  return rc;
}

/*------------------------------------------------------------------------
** Text scores. MongoDB's documents carry metadata from stage to stage; the
** one docext has, a $text's score, travels as a field of the document
** (DOCEXT_TEXT_SCORE_FIELD), added to the query's documents when a stage
** reads it, kept by $project, and taken out of the results.
*/

/* Does the value hold a key "$meta" (an expression, a sort)? */
static int aggHasMeta(const DocValue *v){
  DocIter it;
  if( v->type!=DOC_DOCUMENT && v->type!=DOC_ARRAY ) return 0;
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( strcmp(it.zKey, "$meta")==0 || aggHasMeta(&it.v) ) return 1;
  }
  return 0;
}

/* Add each document's score for the query's $text (if it has one). */
static int aggScoreQueryDocs(Agg *p, AggSet *pSet, char **pzErr){
  DocMatcher *pM = 0;
  DocText *pText;
  AggSet scored;
  DocBuf doc;
  int rc = SQLITE_OK, i;
  if( p->iFilter<0 || p->pColl==0 ) return SQLITE_OK;
  rc = docextCollTextScorer(p->pColl, p->query.a + p->iFilter, p->aLet, &p->nowMs,
                            &pM, pzErr);
  pText = rc==SQLITE_OK ? docextMatcherText(pM) : 0;
  memset(&scored, 0, sizeof(scored));
  memset(&doc, 0, sizeof(doc));
  for(i=0; rc==SQLITE_OK && pText && i<pSet->n; i++){
    const u8 *aDoc = setDoc(pSet, i);
    double r = 0.0;
    rc = docextTextScore(pText, aDoc, &r, pzErr);
    docextBufReset(&doc);
    docextBufAppend(&rc, &doc, aDoc, docextGetI32(aDoc));
    docextTextScoreFieldAdd(&rc, &doc, r);
    setAdd(&rc, &scored, doc.a, doc.n);
  }
  if( rc==SQLITE_OK && pText ){
    setFree(pSet);
    *pSet = scored;
  }else{
    setFree(&scored);
  }
  docextBufFree(&doc);
  docextMatcherFree(pM);
  return rc;
}

/* Take the scores out of the results. */
static int aggStripScores(AggSet *pSet){
  AggSet out;
  DocBuf doc;
  int rc = SQLITE_OK, i;
  memset(&out, 0, sizeof(out));
  memset(&doc, 0, sizeof(doc));
  for(i=0; rc==SQLITE_OK && i<pSet->n; i++){
    const u8 *aDoc = setDoc(pSet, i);
    if( docextTextScoreStrip(aDoc, &doc, &rc) ){
      setAdd(&rc, &out, doc.a, doc.n);
    }else{
      setAdd(&rc, &out, aDoc, docextGetI32(aDoc));
    }
  }
  if( rc==SQLITE_OK ){
    setFree(pSet);
    *pSet = out;
  }else{
    setFree(&out);
  }
  docextBufFree(&doc);
  return rc;
}

/* Run the pipeline over collection zColl (a quoted SQL name), or over the
** documents of its first stage, $documents, when zColl is NULL. */
/* explain: true: instead of the results, one document that says how the
** pipeline would run, as MongoDB's explain of an aggregate does:
** {stages: [{$cursor: Q}, S...]}: Q the collection's query that the
** leading stages became ({query: filter, sort, limit}, those it has) and
** what doc_explain says of it (none with $documents); S each stage that
** runs after it, as given. The query runs, as doc_explain's does, to count
** what it reads. */
/* The query part of $cursor: query (the filter, {} when none), sort, limit. */
static void aggExplainQuery(int *pRc, const Agg *p, DocBuf *pDoc){
  DocValue v;
  v.type = DOC_DOCUMENT;
  if( p->iFilter>=0 ){
    v.p = p->query.a + p->iFilter;
    v.n = docextGetI32(v.p);
    docextBsonAppendValue(pRc, pDoc, "query", 5, &v);
  }else{
    docextBsonEndDoc(pRc, pDoc, docextBsonStartChild(pRc, pDoc, DOC_DOCUMENT, "query", 5));
  }
  if( p->iSort>=0 ){
    v.p = p->query.a + p->iSort;
    v.n = docextGetI32(v.p);
    docextBsonAppendValue(pRc, pDoc, "sort", 4, &v);
  }
  if( p->nLimit>=0 ) docextBsonAppendInt64(pRc, pDoc, "limit", 5, p->nLimit);
}

static int aggExplain(Agg *p, AggSet *pOut, char **pzErr){
  DocBuf doc, json, cursor;
  DocIter it;
  DocValue pipe;
  char zIdx[24];
  int rc = SQLITE_OK, k = 0, iStage = 0;
  int bDocs = p->nStage>0 && p->aStage[0].eStage==AG_DOCS;
  int iRest = bDocs ? 1 : p->iFirst<p->nStage ? p->aStage[p->iFirst].iStage : INT_MAX;
  i64 iDoc, iArr, n = 0;
  memset(&doc, 0, sizeof(doc));
  memset(&json, 0, sizeof(json));
  memset(&cursor, 0, sizeof(cursor));
  iDoc = docextBsonStartDoc(&rc, &doc);
  iArr = docextBsonStartChild(&rc, &doc, DOC_ARRAY, "stages", 6);
  if( rc==SQLITE_OK && !bDocs ){
    DocQuerySpec spec;
    DocIter itPlan;
    i64 iCursor, iQ;
    docextQuerySpecInit(&spec);
    if( p->iFilter>=0 ){
      spec.aaFilter[0] = p->query.a + p->iFilter;
      spec.nFilter = 1;
    }
    if( p->iSort>=0 ) spec.aSort = p->query.a + p->iSort;
    if( p->iQueryOpts>=0 ) spec.aOptions = p->query.a + p->iQueryOpts;
    spec.nLimit = p->nLimit;
    spec.bExplain = 1;
    rc = docextPlanRun(p->pConn, p->pColl, &spec, 1, 0, 0, &n, &json, pzErr);
    if( rc==SQLITE_OK ) rc = docextJsonParse((const char*)json.a, (int)json.n, 1, &cursor, 0, pzErr);
    iCursor = docextBsonStartChild(&rc, &doc, DOC_DOCUMENT, zIdx, docextBsonArrayKey(zIdx, k++));
    iQ = docextBsonStartChild(&rc, &doc, DOC_DOCUMENT, "$cursor", 7);
    aggExplainQuery(&rc, p, &doc);
    if( rc==SQLITE_OK ){
      docextIterInit(&itPlan, cursor.a);
      while( docextIterNext(&itPlan) ){
        docextBsonAppendValue(&rc, &doc, itPlan.zKey, itPlan.nKey, &itPlan.v);
      }
    }
    docextBsonEndDoc(&rc, &doc, iQ);
    docextBsonEndDoc(&rc, &doc, iCursor);
  }
  pipe.type = DOC_ARRAY;
  pipe.p = p->pipe.a;
  pipe.n = (int)p->pipe.n;
  docextIterInitValue(&it, &pipe);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( ++iStage<iRest ) continue;
    docextBsonAppendValue(&rc, &doc, zIdx, docextBsonArrayKey(zIdx, k++), &it.v);
  }
  docextBsonEndDoc(&rc, &doc, iArr);
  docextBsonEndDoc(&rc, &doc, iDoc);
  if( rc==SQLITE_OK ) setAdd(&rc, pOut, doc.a, doc.n);
  docextBufFree(&doc);
  docextBufFree(&json);
  docextBufFree(&cursor);
  return rc;
}

static int aggRun(sqlite3 *db, Agg *p, const char *zColl, AggSet *pOut, char **pzErr){
  int rc;
  if( p->bExplain && (zColl || (p->nStage>0 && p->aStage[0].eStage==AG_DOCS)) ){
    return aggExplain(p, pOut, pzErr);
  }
  if( p->nStage>0 && p->aStage[0].eStage==AG_DOCS ){
    if( zColl ){
      return stageError(&p->aStage[0], pzErr, "takes the place of a collection: "
                        "give none (NULL) with it");
    }
    rc = runDocuments(&p->aStage[0], pOut, pzErr);
  }else if( zColl==0 ){
    return docextError(pzErr, "docext: doc_aggregate: without a collection, the "
                       "pipeline starts with $documents");
  }else{
    rc = runQuery(db, p, zColl, pOut, pzErr);
    if( rc==SQLITE_OK && p->bTextScore ) rc = aggScoreQueryDocs(p, pOut, pzErr);
  }
  if( rc==SQLITE_OK ) rc = runStages(db, p, p->iFirst, pOut, pzErr);
  if( rc==SQLITE_OK && p->bTextScore ) rc = aggStripScores(pOut);
  return rc;
}

/*------------------------------------------------------------------------
** The table-valued function
*/

/* Columns: the arguments are the first hidden ones, as a table-valued
** function's must be. */
#define AGV_DOC       0
#define AGV_COLL      1
#define AGV_PIPELINE  2
#define AGV_OPTIONS   3
#define AGV_BSON      4

typedef struct AggCursor AggCursor;
struct AggCursor {
  sqlite3_vtab_cursor base;
  AggSet out;
  int iRow;
  DocBuf json;
};

static int agvConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  /* It reads as a SELECT of the collection does, no more. */
  return docextTvfConnect(db, "CREATE TABLE x(doc, coll HIDDEN, pipeline HIDDEN, "
                          "options HIDDEN, bson HIDDEN)", 0, pAux, ppVtab);
}

/* The arguments, as equalities: argv[0] the collection, argv[1] the
** pipeline (idxNum 1), argv[2] the options if given; without the first
** two, no plan that runs (idxNum 0, an error). */
static int agvBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  int i, aArg[3] = {-1, -1, -1};
  (void)pVtab;
  for(i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int iArg = pC->iColumn - AGV_COLL;
    if( iArg<0 || iArg>2 || pC->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( !pC->usable ) return SQLITE_CONSTRAINT;
    aArg[iArg] = i;
  }
  if( aArg[0]<0 || aArg[1]<0 ){
    pInfo->idxNum = 0;
    pInfo->estimatedCost = 1e12;
    return SQLITE_OK;
  }
  for(i=0; i<3 && aArg[i]>=0; i++){
    pInfo->aConstraintUsage[aArg[i]].argvIndex = i+1;
    pInfo->aConstraintUsage[aArg[i]].omit = 1;
  }
  pInfo->idxNum = 1;
  pInfo->estimatedCost = 1e6;
  return SQLITE_OK;
}

static int agvOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  AggCursor *p = docextMallocZero(sizeof(*p));
  (void)pVtab;
  if( p==0 ) return SQLITE_NOMEM;
  *ppCur = &p->base;
  return SQLITE_OK;
}

static int agvClose(sqlite3_vtab_cursor *pCur){
  AggCursor *p = (AggCursor*)pCur;
  setFree(&p->out);
  docextBufFree(&p->json);
  sqlite3_free(p);
  return SQLITE_OK;
}

/* The pipeline argument: TEXT, a JSON array of stages. */
static int pipelineArg(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paPipe, char **pzErr){
  int bArray = 0, rc;
  if( sqlite3_value_type(pArg)!=SQLITE_TEXT ){
    return docextError(pzErr, "docext: doc_aggregate: the pipeline is TEXT, a JSON array "
                       "of stages");
  }
  rc = docextArgToUpdate(pArg, pBuf, paPipe, &bArray, pzErr);
  if( rc==SQLITE_OK && !bArray ){
    return docextError(pzErr, "docext: doc_aggregate: the pipeline is an array of stages, "
                       "as '[{$match: {…}}]'");
  }
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM && *pzErr ){
    char *z = *pzErr;
    *pzErr = 0;
    rc = docextError(pzErr, "docext: doc_aggregate: in the pipeline: %s", z+8);
    sqlite3_free(z);
  }
  return rc;
}

/* The options argument: a document (TEXT or BSON). */
static int optionsArg(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paOptions, char **pzErr){
  int rc = docextArgToBson(pArg, pBuf, paOptions, pzErr);
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM && *pzErr ){
    char *z = *pzErr;
    *pzErr = 0;
    rc = docextError(pzErr, "docext: doc_aggregate: in the options: %s", z+8);
    sqlite3_free(z);
  }
  return rc;
}

static int agvFilter(sqlite3_vtab_cursor *pCur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  AggCursor *pC = (AggCursor*)pCur;
  DocConn *pConn = (DocConn*)docextTvfAux(pCur->pVtab);
  DocColl *pColl = 0;
  DocBuf arg, opts;
  const u8 *aPipe = 0, *aOptions = 0;
  char *zErr = 0, *zColl = 0;
  Agg agg;
  int rc;
  (void)idxStr;
  setFree(&pC->out);
  pC->iRow = 0;
  if( idxNum==0 || argc<2 ){
    return docextVtabError(pCur->pVtab, SQLITE_ERROR, sqlite3_mprintf(
        "docext: doc_aggregate needs a collection name and a pipeline"));
  }
  memset(&arg, 0, sizeof(arg));
  memset(&opts, 0, sizeof(opts));
  memset(&agg, 0, sizeof(agg));
  if( sqlite3_value_type(argv[0])==SQLITE_NULL ){
    rc = SQLITE_OK;                     /* (the pipeline's $documents, then) */
  }else{
    rc = docextCollFindArg(pConn, 0, 0, argv[0], &pColl, &zErr);
    if( rc==SQLITE_OK ){
      zColl = quotedCollName(pColl);
      if( zColl==0 ) rc = SQLITE_NOMEM;
    }
  }
  if( rc==SQLITE_OK ) rc = pipelineArg(argv[1], &arg, &aPipe, &zErr);
  if( rc==SQLITE_OK && argc>2 && sqlite3_value_type(argv[2])!=SQLITE_NULL ){
    rc = optionsArg(argv[2], &opts, &aOptions, &zErr);
  }
  agg.pColl = pColl;
  if( rc==SQLITE_OK ) rc = aggCompile(pConn, &agg, aPipe, aOptions, &zErr);
  if( rc==SQLITE_OK ){
    rc = aggRun(pColl ? docextStorageDb(docextCollStore(pColl)) : docextConnDb(pConn), &agg,
                zColl, &pC->out, &zErr);
  }
  aggFree(&agg);
  docextBufFree(&arg);
  docextBufFree(&opts);
  sqlite3_free(zColl);
  if( rc!=SQLITE_OK ){
    setFree(&pC->out);
    return docextVtabError(pCur->pVtab, rc, zErr);
  }
  return SQLITE_OK;
}

static int agvNext(sqlite3_vtab_cursor *pCur){
  ((AggCursor*)pCur)->iRow++;
  return SQLITE_OK;
}

static int agvEof(sqlite3_vtab_cursor *pCur){
  AggCursor *p = (AggCursor*)pCur;
  return p->iRow>=p->out.n;
}

static int agvColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int iCol){
  AggCursor *p = (AggCursor*)pCur;
  const u8 *aDoc = setDoc(&p->out, p->iRow);
  int rc = SQLITE_OK;
  if( iCol==AGV_DOC ){
    docextBufReset(&p->json);
    docextJsonWriteDoc(&rc, &p->json, aDoc, DOCEXT_JSON_RELAXED);
    if( rc ) return rc;
    docextBufResultTextCopy(ctx, &p->json);
  }else if( iCol==AGV_BSON ){
    sqlite3_result_blob(ctx, aDoc, docextGetI32(aDoc), SQLITE_TRANSIENT);
  }
  return SQLITE_OK;
}

static int agvRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid){
  *pRowid = ((AggCursor*)pCur)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module agvModule = {
  0, 0, agvConnect, agvBestIndex, docextTvfDisconnect, 0,
  agvOpen, agvClose, agvFilter, agvNext, agvEof, agvColumn, agvRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
#if SQLITE_VERSION_NUMBER>=3044000
  0,
#endif
};

int docextRegisterAggregate(sqlite3 *db, DocConn *pConn){
  return sqlite3_create_module(db, "doc_aggregate", &agvModule, pConn);
}
