/*
** docext_densify.c — MongoDB's $densify stage (doc_aggregate): documents
** made to fill the gaps of a sequence of numbers or dates.
**
**   {$densify: {field: "t", partitionByFields: ["sensor"],
**               range: {step: 1, unit: "hour", bounds: "partition"}}}
**
** As MongoDB does it: the documents are sorted by their partition (the
** values of partitionByFields; missing is null) and field ("full" sorts by
** field alone); within each partition, a grid of values runs from its
** start by step, and every value of the grid that no document has becomes
** a new document holding only the partition's fields and field. A document
** off the grid passes as it is and does not move the grid; one whose field
** is missing or null passes as it is (first, as null sorts). The grid:
**   "partition": from each partition's least value to its greatest;
**   "full":      from the least value of all documents to the greatest, in
**                every partition;
**   [lo, hi]:    from lo up to, not including, hi; documents outside pass
**                as they are.
** Values are added as $add adds them (an int grid stays int, widening on
** overflow; the type follows the last value on the grid) and dates as
** $dateAdd does, in UTC. The fills at the end of a partition ("full" and
** [lo, hi]) come after every input document, as MongoDB's do.
*/
#include "docextInt.h"
#include <math.h>

/* MongoDB's internalQueryMaxAllowedDensifyDocs, the most documents one
** $densify may make. */
#define DENSIFY_MAX_MADE 500000

enum { DB_FULL = 1, DB_PARTITION, DB_RANGE };

struct DocDensify {
  const char *zField;       /* (in the stage's BSON) */
  int nPart;                /* partitionByFields */
  const char **azPart;
  DocExpr **apPart;         /* "$<partition field>", each */
  DocBuf partRefs;          /* (their BSON) */
  int eBounds;              /* DB_* */
  DocValue lo, hi;          /* DB_RANGE: the bounds */
  DocValue step;            /* a positive number */
  DocExpr *pDateAdd;        /* with a unit: {$dateAdd: {startDate: "$d",
                            ** unit, amount: step}} */
  DocBuf dateAdd;           /* (its BSON) */
  const DocCollator *pCollator;   /* the pipeline's collation (borrowed), or
                            ** NULL: which partition values are one */
};

void docextDensifyFree(DocDensify *p){
  int i;
  if( p==0 ) return;
  for(i=0; i<p->nPart; i++) docextExprFree(p->apPart[i]);
  sqlite3_free(p->apPart);
  sqlite3_free((void*)p->azPart);
  docextBufFree(&p->partRefs);
  docextExprFree(p->pDateAdd);
  docextBufFree(&p->dateAdd);
  sqlite3_free(p);
}

/*------------------------------------------------------------------------
** Compiling
*/

static int compilePartitions(DocDensify *p, const DocValue *v, const u8 *aLet, i64 nowMs,
                             char **pzErr){
  DocIter it;
  int rc = SQLITE_OK, i;
  i64 *aOff;
  if( v->type!=DOC_ARRAY ){
    return docextError(pzErr, "docext: partitionByFields must be an array of field names");
  }
  p->nPart = docextIterCount(v);
  p->azPart = sqlite3_malloc64(sizeof(char*)*(p->nPart+1));
  p->apPart = docextMallocZero(sizeof(DocExpr*)*(p->nPart+1));
  aOff = sqlite3_malloc64(sizeof(i64)*(p->nPart+1));
  if( p->azPart==0 || p->apPart==0 || aOff==0 ){
    sqlite3_free(aOff);
    p->nPart = 0;
    return SQLITE_NOMEM;
  }
  /* each field as the expression "$name", in a document of its own */
  docextIterInitValue(&it, v);
  for(i=0; rc==SQLITE_OK && docextIterNext(&it); i++){
    const char *zWhy;
    int n;
    if( it.v.type!=DOC_STRING ){
      rc = docextError(pzErr, "docext: partitionByFields must be an array of field names");
      break;
    }
    p->azPart[i] = docextValueStr(&it.v, &n);
    if( (int)strlen(p->azPart[i])!=n || (zWhy = docextPathProblem(p->azPart[i]))!=0 ){
      rc = docextError(pzErr, "docext: partitionByFields: '%s': %s", p->azPart[i],
                       (int)strlen(p->azPart[i])!=n ? "a name holds no NUL byte" : zWhy);
      break;
    }
    if( docextPathsOverlap(p->azPart[i], p->zField) ){
      rc = docextError(pzErr, "docext: partitionByFields: '%s' and the field densified, "
                       "'%s', may not be one within the other", p->azPart[i], p->zField);
      break;
    }
    aOff[i] = p->partRefs.n;
    {
      i64 iDoc = docextBsonStartDoc(&rc, &p->partRefs);
      docextBsonAppendFieldRef(&rc, &p->partRefs, "", 0, p->azPart[i], n);
      docextBsonEndDoc(&rc, &p->partRefs, iDoc);
    }
  }
  for(i=0; rc==SQLITE_OK && i<p->nPart; i++){
    DocIter e;
    docextIterInit(&e, p->partRefs.a + aOff[i]);
    docextIterNext(&e);
    rc = docextExprNew(&e.v, aLet, "$densify", nowMs, &p->apPart[i], pzErr);
  }
  sqlite3_free(aOff);
  return rc;
}

/* range: {step, unit, bounds}. */
static int compileRange(DocDensify *p, const DocValue *v, const u8 *aLet, i64 nowMs,
                        char **pzErr){
  static const char *const azUnit[] = {
    "millisecond", "second", "minute", "hour", "day", "week", "month", "quarter", "year"
  };
  static const char *const azArg[] = {"step", "unit", "bounds"};
  DocValue a[3], unit, bounds;
  DocIter it;
  const char *zOther;
  int rc = SQLITE_OK;
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: range must be a document, as "
                       "{step: 1, bounds: \"full\"}");
  }
  if( (zOther = docextBsonFields(v, azArg, 3, a))!=0 ){
    return docextError(pzErr, "docext: range: unknown field '%s' (it takes step, "
                       "unit and bounds)", zOther);
  }
  p->step = a[0];
  unit = a[1];
  bounds = a[2];
  if( p->step.type==0 || bounds.type==0 ){
    return docextError(pzErr, "docext: range needs step and bounds");
  }
  if( !docextValueIsNumber(&p->step) || !(docextValueToDouble(&p->step)>0.0) ){
    return docextError(pzErr, "docext: range: step must be a number above 0");
  }
  if( unit.type ){
    int n;
    const char *z = unit.type==DOC_STRING ? docextValueStr(&unit, &n) : 0;
    double d = docextValueToDouble(&p->step);
    i64 iDoc, iOp, iArgs;
    if( z==0 || docextNameIndex(z, n, azUnit, DOCEXT_COUNT(azUnit))<0 ){
      return docextError(pzErr, "docext: range: unknown unit (it takes millisecond, "
                         "second, minute, hour, day, week, month, quarter or year)");
    }
    if( d!=floor(d) || d>9.2e18 ){
      return docextError(pzErr, "docext: range: with a unit, step must be a whole number");
    }
    iDoc = docextBsonStartDoc(&rc, &p->dateAdd);
    iOp = docextBsonStartChild(&rc, &p->dateAdd, DOC_DOCUMENT, "", 0);
    iArgs = docextBsonStartChild(&rc, &p->dateAdd, DOC_DOCUMENT, "$dateAdd", 8);
    docextBsonAppendFieldRef(&rc, &p->dateAdd, "startDate", 9, "d", 1);
    docextBsonAppendString(&rc, &p->dateAdd, DOC_STRING, "unit", 4, z, n);
    docextBsonAppendInt64(&rc, &p->dateAdd, "amount", 6, (i64)d);
    docextBsonEndDoc(&rc, &p->dateAdd, iArgs);
    docextBsonEndDoc(&rc, &p->dateAdd, iOp);
    docextBsonEndDoc(&rc, &p->dateAdd, iDoc);
    if( rc==SQLITE_OK ){
      DocIter e;
      docextIterInit(&e, p->dateAdd.a);
      docextIterNext(&e);
      rc = docextExprNew(&e.v, aLet, "$densify", nowMs, &p->pDateAdd, pzErr);
    }
    if( rc ) return rc;
  }
  if( bounds.type==DOC_STRING ){
    int n;
    const char *z = docextValueStr(&bounds, &n);
    if( n==4 && memcmp(z, "full", 4)==0 ) p->eBounds = DB_FULL;
    else if( n==9 && memcmp(z, "partition", 9)==0 ) p->eBounds = DB_PARTITION;
    else return docextError(pzErr, "docext: range: bounds is \"full\", \"partition\" or "
                            "[lower, upper]");
    if( p->eBounds==DB_PARTITION && p->nPart==0 ){
      return docextError(pzErr, "docext: range: bounds \"partition\" needs "
                         "partitionByFields (for one partition, \"full\")");
    }
    return SQLITE_OK;
  }
  if( bounds.type!=DOC_ARRAY || docextIterCount(&bounds)!=2 ){
    return docextError(pzErr, "docext: range: bounds is \"full\", \"partition\" or "
                       "[lower, upper]");
  }
  p->eBounds = DB_RANGE;
  docextIterInitValue(&it, &bounds);
  docextIterNext(&it);
  p->lo = it.v;
  docextIterNext(&it);
  p->hi = it.v;
  if( unit.type ){
    if( p->lo.type!=DOC_DATE || p->hi.type!=DOC_DATE ){
      return docextError(pzErr, "docext: range: with a unit, the bounds are two dates");
    }
  }else if( p->lo.type==DOC_DATE || p->hi.type==DOC_DATE ){
    return docextError(pzErr, "docext: range: bounds that are dates need a unit");
  }else if( !docextValueIsNumber(&p->lo) || p->lo.type!=p->hi.type
         || p->lo.type!=p->step.type ){
    return docextError(pzErr, "docext: range: the bounds and step must be numbers of "
                       "one type");
  }
  if( docextValueCompare(&p->lo, &p->hi)>0 ){
    return docextError(pzErr, "docext: range: the lower bound must not pass the upper");
  }
  return SQLITE_OK;
}

void docextDensifySetCollator(DocDensify *p, const DocCollator *pCollator){
  p->pCollator = pCollator;
}

int docextDensifyNew(const DocValue *v, const u8 *aLet, i64 nowMs, DocDensify **ppOut,
                     char **pzErr){
  static const char *const azArg[] = {"field", "partitionByFields", "range"};
  DocDensify *p;
  DocValue a[3], field, parts, range;
  const char *zOther;
  int rc = SQLITE_OK;
  *ppOut = 0;
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: $densify needs a document, as "
                       "{field: \"t\", range: {step: 1, bounds: \"full\"}}");
  }
  if( (zOther = docextBsonFields(v, azArg, 3, a))!=0 ){
    return docextError(pzErr, "docext: unknown field '%s' (it takes field, "
                       "partitionByFields and range)", zOther);
  }
  field = a[0];
  parts = a[1];
  range = a[2];
  if( field.type!=DOC_STRING ){
    return docextError(pzErr, "docext: needs field, the name of the field to densify");
  }
  if( range.type==0 ) return docextError(pzErr, "docext: needs range, as {step: 1, bounds: \"full\"}");
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  {
    int n;
    const char *zWhy;
    p->zField = docextValueStr(&field, &n);
    if( (int)strlen(p->zField)!=n ){
      rc = docextError(pzErr, "docext: field: a name holds no NUL byte");
    }else if( (zWhy = docextPathProblem(p->zField))!=0 ){
      rc = docextError(pzErr, "docext: field '%s': %s", p->zField, zWhy);
    }
  }
  if( rc==SQLITE_OK && parts.type ) rc = compilePartitions(p, &parts, aLet, nowMs, pzErr);
  if( rc==SQLITE_OK ) rc = compileRange(p, &range, aLet, nowMs, pzErr);
  if( rc ){
    docextDensifyFree(p);
    return rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Running
*/

/* A value of the grid: a number or a date, with its bytes. */
typedef struct DenPoint DenPoint;
struct DenPoint { DocValue v; u8 a[16]; };

static void pointSet(DenPoint *pP, const DocValue *v){
  pP->v = *v;
  memcpy(pP->a, v->p, v->n<=16 ? v->n : 16);
  pP->v.p = pP->a;
}

static void pointSetNum(DenPoint *pP, const DocNum *x){
  DocBuf b;
  DocIter it;
  int rc = SQLITE_OK;
  u8 aSpace[48];
  docextBufInit(&b, aSpace, sizeof(aSpace));
  i64 iDoc = docextBsonStartDoc(&rc, &b);
  docextNumAppend(&rc, &b, "", 0, x);
  docextBsonEndDoc(&rc, &b, iDoc);
  docextIterInit(&it, b.a);
  docextIterNext(&it);
  pointSet(pP, &it.v);
  docextBufFree(&b);
}

/* The next value of the grid after *pP: + step, as $add, or $dateAdd. */
static int pointStep(DocDensify *p, DenPoint *pP, DocBuf *pTmp, char **pzErr){
  if( p->pDateAdd ){
    DocBuf doc;
    DocValue v;
    u8 aSpace[32];
    int rc = SQLITE_OK;
    i64 iDoc;
    docextBufInit(&doc, aSpace, sizeof(aSpace));
    iDoc = docextBsonStartDoc(&rc, &doc);
    docextBsonAppendValue(&rc, &doc, "d", 1, &pP->v);
    docextBsonEndDoc(&rc, &doc, iDoc);
    if( rc==SQLITE_OK ) rc = docextExprValue(p->pDateAdd, doc.a, pTmp, &v, pzErr);
    if( rc==SQLITE_OK ) pointSet(pP, &v);
    docextBufFree(&doc);
    return rc;
  }else{
    DocNum a, b, r;
    docextNumFrom(&pP->v, &a);
    docextNumFrom(&p->step, &b);
    if( docextNumArith(0, &a, &b, &r)==SQLITE_RANGE ){
      /* (a long that overflows goes on as a double, as $add does) */
      r.type = DOC_DOUBLE;
      r.d = (double)a.i + (double)b.i;
    }
    pointSetNum(pP, &r);
    return SQLITE_OK;
  }
}

/* One partition's state (partition i: entry i of the run's key set). */
typedef struct DenPart DenPart;
struct DenPart {
  const u8 *aFirst;         /* its first document (the partition's values) */
  DocBuf tmpl;              /* the fields a made document starts with, or
                            ** empty until the first is made */
  DenPoint next;            /* the next value of the grid to make */
  int bStarted;             /* next is set */
};

typedef struct DenRun DenRun;
struct DenRun {
  DocDensify *p;
  int (*xOut)(void*, const u8*, i64);
  void *pCtx;
  DocBuf tmp, doc;
  i64 nMade;
};

/* The partition's fields as a made document holds them (built once, from
** its first document): a missing one is left out, but for the documents
** above it, as in MongoDB's partition document ("e.x" missing: e: {}). */
static int partTemplate(DenRun *r, DenPart *pPart, char **pzErr){
  static const u8 aEmptyDoc[5] = {5, 0, 0, 0, 0};
  const DocValue empty = { DOC_DOCUMENT, aEmptyDoc, 5 };
  DocDensify *p = r->p;
  int rc = SQLITE_OK, i;
  docextBufAppend(&rc, &pPart->tmpl, aEmptyDoc, 5);
  for(i=0; rc==SQLITE_OK && i<p->nPart; i++){
    const char *zPath = p->azPart[i];
    DocValue v, had;
    char *zParent = 0;
    rc = docextExprValue(p->apPart[i], pPart->aFirst, &r->tmp, &v, pzErr);
    if( rc ) break;
    if( v.type==0 ){
      const char *zDot = strrchr(zPath, '.');
      if( zDot==0 ) continue;
      zParent = sqlite3_mprintf("%.*s", (int)(zDot - zPath), zPath);
      if( zParent==0 ){ rc = SQLITE_NOMEM; break; }
      if( docextPathGet(pPart->tmpl.a, zParent, (int)strlen(zParent), &had) ){
        sqlite3_free(zParent);
        continue;
      }
      zPath = zParent;
      v = empty;
    }
    docextBufReset(&r->doc);
    docextBsonSetPath(&rc, &r->doc, pPart->tmpl.a, zPath, &v);
    docextBufReset(&pPart->tmpl);
    docextBufAppend(&rc, &pPart->tmpl, r->doc.a, r->doc.n);
    sqlite3_free(zParent);
  }
  return rc;
}

/* Hand on a new document: the partition's fields, and field = pV. */
static int makeDoc(DenRun *r, DenPart *pPart, const DocValue *pV, char **pzErr){
  int rc = SQLITE_OK;
  if( ++r->nMade>DENSIFY_MAX_MADE ){
    return docextError(pzErr, "docext: it would make more than %d documents (the most "
                       "one $densify makes, as MongoDB's default)", DENSIFY_MAX_MADE);
  }
  if( pPart->tmpl.n==0 && (rc = partTemplate(r, pPart, pzErr))!=SQLITE_OK ) return rc;
  docextBufReset(&r->doc);
  docextBsonSetPath(&rc, &r->doc, pPart->tmpl.a, r->p->zField, pV);
  if( rc==SQLITE_OK ) rc = r->xOut(r->pCtx, r->doc.a, r->doc.n);
  return rc;
}

/* Make the partition's grid values below pTo (up to it, with bIncl). */
static int fillUpTo(DenRun *r, DenPart *pPart, const DocValue *pTo, int bIncl, char **pzErr){
  int rc = SQLITE_OK;
  for(;;){
    int c = docextValueCompare(&pPart->next.v, pTo);
    if( c>0 || (c==0 && !bIncl) ) break;
    rc = makeDoc(r, pPart, &pPart->next.v, pzErr);
    if( rc==SQLITE_OK ) rc = pointStep(r->p, &pPart->next, &r->tmp, pzErr);
    if( rc ) break;
  }
  return rc;
}

/* The value of field in aDoc (type 0: missing or null), checked. */
static int fieldValue(DocDensify *p, const u8 *aDoc, DocValue *pV, char **pzErr){
  if( !docextPathGet(aDoc, p->zField, (int)strlen(p->zField), pV) || pV->type==DOC_NULL
   || pV->type==DOC_UNDEFINED ){
    memset(pV, 0, sizeof(*pV));
    return SQLITE_OK;
  }
  if( p->pDateAdd ? pV->type!=DOC_DATE : !docextValueIsNumber(pV) ){
    return docextError(pzErr, "docext: the field '%s' holds %s, where the range is of %s",
                       p->zField, docextTypeAlias(pV->type),
                       p->pDateAdd ? "dates (it has a unit)" : "numbers (it has no unit)");
  }
  if( pV->type==DOC_DOUBLE && isnan(docextValueDouble(pV)) ){
    return docextError(pzErr, "docext: the field '%s' holds NaN", p->zField);
  }
  return SQLITE_OK;
}

/* Take one document, in the stage's order: fill its partition's gap below
** it, and hand it on. */
static int takeDoc(DenRun *r, DenPart *pPart, const u8 *aDoc, const DocValue *pV,
                   const DocValue *pMin, char **pzErr){
  DocDensify *p = r->p;
  int rc = SQLITE_OK;
  if( !pPart->bStarted ){
    pPart->bStarted = 1;
    pointSet(&pPart->next, p->eBounds==DB_RANGE ? &p->lo
                         : p->eBounds==DB_FULL ? pMin : pV);
  }
  if( p->eBounds!=DB_RANGE
   || (docextValueCompare(pV, &p->lo)>=0 && docextValueCompare(pV, &p->hi)<0) ){
    rc = fillUpTo(r, pPart, pV, 0, pzErr);
    if( rc==SQLITE_OK && docextValueCompare(&pPart->next.v, pV)==0 ){
      /* on the grid: the grid goes on from it (in its type) */
      pointSet(&pPart->next, pV);
      rc = pointStep(p, &pPart->next, &r->tmp, pzErr);
    }
  }
  if( rc==SQLITE_OK ) rc = r->xOut(r->pCtx, aDoc, docextGetI32(aDoc));
  return rc;
}

int docextDensifyRun(DocDensify *p, int nDoc, const u8 *const *aDoc,
                     int (*xOut)(void*, const u8*, i64), void *pCtx, char **pzErr){
  DocKeyItem *aItem = sqlite3_malloc64(sizeof(DocKeyItem)*(nDoc>0 ? nDoc : 1));
  int *aPart = sqlite3_malloc64(sizeof(int)*(nDoc>0 ? nDoc : 1));
  DocValue *aVal = sqlite3_malloc64(sizeof(DocValue)*(nDoc>0 ? nDoc : 1));   /* field's */
  DenPart *aP = 0;
  int nP = 0, nPAlloc = 0, rc = aItem && aPart && aVal ? SQLITE_OK : SQLITE_NOMEM, i, k, bNew;
  DocKeySet parts;
  DocBuf keys;
  DenRun r;
  DocValue vMin, vMax, v;
  memset(&keys, 0, sizeof(keys));
  memset(&parts, 0, sizeof(parts));
  memset(&r, 0, sizeof(r));
  memset(&vMin, 0, sizeof(vMin));
  memset(&vMax, 0, sizeof(vMax));
  r.p = p;
  r.xOut = xOut;
  r.pCtx = pCtx;
  /* each document's partition (found by its key: a missing value is not
  ** null there, as in MongoDB's partition document) and sort key; a
  ** document without the field passes before its partition is looked at,
  ** so a partition of such documents alone is none */
  for(i=0; rc==SQLITE_OK && i<nDoc; i++){
    static const u8 aNull[1] = {0};
    DocValue nullV = { DOC_NULL, aNull, 0 };
    i64 iKey = parts.keys.n;
    for(k=0; rc==SQLITE_OK && k<p->nPart; k++){
      rc = docextExprValue(p->apPart[k], aDoc[i], &r.tmp, &v, pzErr);
      docextBufAppendByte(&rc, &parts.keys, v.type ? 1 : 0);
      if( v.type ) docextKeyAppendColl(&rc, &parts.keys, &v, 0, p->pCollator);
    }
    if( rc==SQLITE_OK ) rc = fieldValue(p, aDoc[i], &v, pzErr);
    if( rc ) break;
    aVal[i] = v;
    aItem[i].iKey = keys.n;
    aItem[i].iItem = i;
    if( p->eBounds!=DB_FULL && parts.keys.n>iKey ){
      docextBufAppend(&rc, &keys, parts.keys.a + iKey, parts.keys.n - iKey);
    }
    docextKeyAppend(&rc, &keys, v.type ? &v : &nullV, 0);
    aItem[i].nKey = (int)(keys.n - aItem[i].iKey);
    aPart[i] = -1;
    if( v.type==0 ){
      parts.keys.n = iKey;
      continue;
    }
    if( rc==SQLITE_OK ) rc = docextKeySetAdd(&parts, iKey, &k, &bNew);
    if( rc==SQLITE_OK && bNew ){
      DenPart *aNew = docextArrayGrow(&rc, aP, nP, &nPAlloc, sizeof(DenPart));
      if( rc ) break;
      aP = aNew;
      memset(&aP[nP], 0, sizeof(DenPart));
      aP[nP++].aFirst = aDoc[i];
    }
    aPart[i] = k;
    if( vMin.type==0 || docextValueCompare(&v, &vMin)<0 ) vMin = v;
    if( vMax.type==0 || docextValueCompare(&v, &vMax)>0 ) vMax = v;
  }
  if( rc==SQLITE_OK ) rc = docextSortByKey(aItem, nDoc, keys.a);
  /* the documents in order, each gap filled before the document after it */
  for(i=0; rc==SQLITE_OK && i<nDoc; i++){
    int iDoc = aItem[i].iItem;
    const u8 *a = aDoc[iDoc];
    if( aVal[iDoc].type==0 ){
      rc = xOut(pCtx, a, docextGetI32(a));
    }else{
      rc = takeDoc(&r, &aP[aPart[iDoc]], a, &aVal[iDoc], &vMin, pzErr);
    }
  }
  /* the ends: "full" to the greatest value of all, [lo, hi] to hi; with
  ** no document that has the field and no partitionByFields, [lo, hi] is
  ** made whole (one partition, of no fields) */
  if( rc==SQLITE_OK && nP==0 && p->eBounds==DB_RANGE && p->nPart==0 ){
    static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
    aP = docextArrayGrow(&rc, aP, nP, &nPAlloc, sizeof(DenPart));
    if( rc==SQLITE_OK ){
      memset(&aP[0], 0, sizeof(DenPart));
      aP[0].aFirst = aEmpty;
      nP = 1;
    }
  }
  for(k=0; rc==SQLITE_OK && k<nP && p->eBounds!=DB_PARTITION; k++){
    DenPart *pPart = &aP[k];
    if( p->eBounds==DB_FULL ){
      if( pPart->bStarted ) rc = fillUpTo(&r, pPart, &vMax, 1, pzErr);
    }else{
      if( !pPart->bStarted || docextValueCompare(&pPart->next.v, &p->lo)<0 ){
        pointSet(&pPart->next, &p->lo);
        pPart->bStarted = 1;
      }
      rc = fillUpTo(&r, pPart, &p->hi, 0, pzErr);
    }
  }
  docextBufFree(&r.tmp);
  docextBufFree(&r.doc);
  docextBufFree(&keys);
  docextKeySetFree(&parts);
  for(k=0; k<nP; k++) docextBufFree(&aP[k].tmpl);
  sqlite3_free(aP);
  sqlite3_free(aItem);
  sqlite3_free(aPart);
  sqlite3_free(aVal);
  return rc;
}
