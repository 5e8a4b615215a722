/*
** docext_window.c — MongoDB's $setWindowFields stage (doc_aggregate):
**
**   {$setWindowFields: {
**     partitionBy: "$station",                 (an expression; optional)
**     sortBy: {t: 1},                          (a sort; optional)
**     output: {
**       running: {$sum: "$v", window: {documents: ["unbounded", "current"]}},
**       avg3h:   {$avg: "$v", window: {range: [-3, 0], unit: "hour"}},
**       rank:    {$rank: {}},
**       prev:    {$shift: {output: "$v", by: -1, default: 0}}}}}
**
** As MongoDB runs it: the documents are sorted by their partition's value
** (missing is null; an array is an error) and then by sortBy, stably; each
** partition is then a run of documents, and each output field is set in
** every document to its window function's value over the documents of its
** window, within the partition.
**
** WINDOWS. documents: [lower, upper], positions relative to the current
** document (0 or "current" is itself), or "unbounded". range: [lower,
** upper], values added to the current document's sortBy value (which must
** be a number, or a date when a unit is given), "current" being the
** current document itself. No window is the whole partition.
**
** FUNCTIONS. The accumulators of $group ($sum, $avg, $min, $max, $count,
** $first, $last, $push, $addToSet, $stdDevPop, $stdDevSamp, $median,
** $percentile, $mergeObjects over a window without a lower bound (as MongoDB's
** newest releases take it), and with a constant n $firstN, $lastN, $minN, $maxN, $top,
** $bottom, $topN, $bottomN, which keep the whole window and take n at the
** end, unless the window has no lower bound: then, as in MongoDB, they are
** $group's) over the window;
** $covariancePop and $covarianceSamp over two expressions; $rank,
** $denseRank and $documentNumber; $shift; $locf and $linearFill (gaps
** filled); $derivative and $integral (over the sortBy value); $expMovingAvg.
**
** COST. Each document's input values are computed once. A window that
** keeps its lower end (running totals) grows one accumulator; one that
** keeps its upper end grows one backwards when the function does not care
** about order; any other window is recomputed for each document.
*/
#include "docextInt.h"
#include <math.h>

/* Window functions. */
enum {
  WF_ACC = 1, WF_COVAR, WF_RANK, WF_DENSE_RANK, WF_DOC_NUMBER, WF_SHIFT, WF_LOCF,
  WF_LINEAR_FILL, WF_DERIVATIVE, WF_INTEGRAL, WF_EMA
};

/* One end of a window. */
enum { WB_UNBOUNDED = 0, WB_CURRENT, WB_AT };
typedef struct WinBound WinBound;
struct WinBound {
  int eKind;                /* WB_* */
  DocValue at;              /* the number given (in the stage's BSON) */
  i64 iAt;                  /* documents: the offset from the current one */
  DocNum delta;             /* range without a unit: at, as a decimal */
  DocExpr *pAt;             /* range: the threshold, from the current document */
  DocBuf own;               /* (pAt's BSON) */
};

/* An output field. */
typedef struct WinOut WinOut;
struct WinOut {
  const char *zPath;        /* where it goes (in the stage's BSON) */
  const char *zFn;          /* "$sum", … for messages */
  int eFn;                  /* WF_* */
  int eAcc;                 /* WF_ACC: DOCEXT_ACC_*; WF_COVAR: 1 sample, 0 population */
  DocExpr *pInput;          /* its operand (WF_SHIFT: output) */
  DocExpr *pFinish;         /* $median, $percentile: over the $push list */
  DocBuf own;               /* (pFinish's or pInput's BSON) */
  i64 nLimit;               /* $firstN ... $bottomN: n */
  DocSort *pSort;           /* $top ...: the order of the items */
  int bRange;               /* the window is range-based */
  int bDateRange;           /* ... with a unit */
  WinBound lo, hi;
  i64 nUnitMs;              /* $derivative, $integral: the unit, or 0 */
  i64 nBy;                  /* $shift */
  DocBuf dflt;              /* $shift: its default (a type byte and the
                            ** value; empty: null) */
  DocNum alpha;             /* $expMovingAvg: alpha, a decimal128 */
  const DocCollator *pCollator;   /* the stage's collation (accumulators'), or NULL */
};

struct DocWindow {
  DocExpr *pPartition;      /* partitionBy, or NULL */
  DocSort *pSort;           /* sortBy, or NULL */
  int nSortField;
  int bSortAsc;             /* the first sortBy field is ascending */
  DocExpr *pSortValue;      /* "$<the first sortBy field>", or NULL */
  int bSortValues;          /* an output reads the sortBy values (a range
                            ** window, $derivative, $integral, $linearFill) */
  DocBuf sortPath;          /* (its BSON) */
  WinOut *aOut;
  int nOut;
  const DocCollator *pCollator;   /* the pipeline's collation (borrowed), or
                            ** NULL: partitions, sorts, expressions */
};

static const u8 aNullBytes[1] = {0};
static const DocValue nullValue = { DOC_NULL, aNullBytes, 0 };

/*------------------------------------------------------------------------
** Compiling
*/

static void winBoundFree(WinBound *b){
  docextExprFree(b->pAt);
  docextBufFree(&b->own);
}

void docextWindowFree(DocWindow *p){
  int i;
  if( p==0 ) return;
  for(i=0; i<p->nOut; i++){
    WinOut *pO = &p->aOut[i];
    docextExprFree(pO->pInput);
    docextExprFree(pO->pFinish);
    docextSortFree(pO->pSort);
    docextBufFree(&pO->own);
    winBoundFree(&pO->lo);
    winBoundFree(&pO->hi);
    docextBufFree(&pO->dflt);
  }
  sqlite3_free(p->aOut);
  docextExprFree(p->pPartition);
  docextSortFree(p->pSort);
  docextExprFree(p->pSortValue);
  docextBufFree(&p->sortPath);
  sqlite3_free(p);
}

/* An expression given as the BSON of a one-field document {"": value},
** built in pOwn (which it points into, and so must outlive it). */
static int compileBuilt(DocBuf *pOwn, const char *zWhere, const u8 *aLet, i64 nowMs,
                        DocExpr **ppOut, char **pzErr){
  DocIter it;
  docextIterInit(&it, pOwn->a);
  docextIterNext(&it);
  return docextExprNew(&it.v, aLet, zWhere, nowMs, ppOut, pzErr);
}

/* The time units $derivative and $integral take (fixed lengths), and the
** range windows with a unit (any). */
static const char *const azUnit[] = {
  "week", "day", "hour", "minute", "second", "millisecond", "month", "quarter", "year"
};
static const i64 aUnitMs[] = { 604800000, 86400000, 3600000, 60000, 1000, 1, 0, 0, 0 };

static int unitIndex(const DocValue *v){
  int n;
  const char *z;
  if( v->type!=DOC_STRING ) return -1;
  z = docextValueStr(v, &n);
  return docextNameIndex(z, n, azUnit, DOCEXT_COUNT(azUnit));
}

/* A whole number (of any numeric type) into *pn; 0 if v is not one. */
static int wholeNumber(const DocValue *v, i64 *pn){
  double d;
  if( !docextValueIsNumber(v) ) return 0;
  d = docextValueToDouble(v);
  if( d!=floor(d) || d<-2147483648.0 || d>2147483647.0 ) return 0;
  *pn = (i64)d;
  return 1;
}

/* "$<the first sortBy field>", in sortPath. */
static const char *sortFieldPath(const DocWindow *p){
  return (const char*)p->sortPath.a + 10;     /* (length, type, key "", length) */
}

/* The lower bound must not pass the upper ("current" counting as 0). */
static int boundsForward(const WinOut *pO){
  static const u8 aZero[4] = {0, 0, 0, 0};
  const DocValue zero = { DOC_INT32, aZero, 4 };
  const DocValue *x = pO->lo.eKind==WB_AT ? &pO->lo.at : &zero;
  const DocValue *y = pO->hi.eKind==WB_AT ? &pO->hi.at : &zero;
  if( pO->lo.eKind==WB_UNBOUNDED || pO->hi.eKind==WB_UNBOUNDED ) return 1;
  return docextValueCompare(x, y)<=0;
}

/* One end of a window (v, the bounds array's element i) into *pB. A
** date range's end is an expression of the current document: $dateAdd of
** its sortBy value (calendar units as $dateAdd counts them). */
static int compileBound(DocWindow *p, WinOut *pO, const DocValue *v, const char *zUnit,
                        const u8 *aLet, i64 nowMs, WinBound *pB, char **pzErr){
  int rc = SQLITE_OK;
  if( v->type==DOC_STRING ){
    int n;
    const char *z = docextValueStr(v, &n);
    if( n==9 && memcmp(z, "unbounded", 9)==0 ){ pB->eKind = WB_UNBOUNDED; return SQLITE_OK; }
    if( n==7 && memcmp(z, "current", 7)==0 ){ pB->eKind = WB_CURRENT; return SQLITE_OK; }
  }
  if( !docextValueIsNumber(v) ){
    return docextError(pzErr, "docext: output field '%s': window bounds must be "
                       "'unbounded', 'current', or a number", pO->zPath);
  }
  pB->eKind = WB_AT;
  pB->at = *v;
  if( !pO->bRange || zUnit ){
    if( !wholeNumber(v, &pB->iAt) ){
      return docextError(pzErr, pO->bRange
          ? "docext: output field '%s': with a unit, range-based bounds must be integers"
          : "docext: output field '%s': document-based bounds must be integers", pO->zPath);
    }
  }
  if( !pO->bRange ) return SQLITE_OK;
  if( !zUnit ){
    DocNum x;
    docextNumFrom(v, &x);
    pB->delta.type = DOC_DECIMAL128;
    docextNumToDec(&x, pB->delta.aDec);
    return SQLITE_OK;
  }
  {
    const char *zPath = sortFieldPath(p);
    DocBuf *pOwn = &pB->own;
    i64 iDoc = docextBsonStartDoc(&rc, pOwn);
    i64 iOp = docextBsonStartChild(&rc, pOwn, DOC_DOCUMENT, "", 0);
    i64 iArgs = docextBsonStartChild(&rc, pOwn, DOC_DOCUMENT, "$dateAdd", 8);
    docextBsonAppendString(&rc, pOwn, DOC_STRING, "startDate", 9, zPath, (int)strlen(zPath));
    docextBsonAppendString(&rc, pOwn, DOC_STRING, "unit", 4, zUnit, (int)strlen(zUnit));
    docextBsonAppendInt64(&rc, pOwn, "amount", 6, pB->iAt);
    docextBsonEndDoc(&rc, pOwn, iArgs);
    docextBsonEndDoc(&rc, pOwn, iOp);
    docextBsonEndDoc(&rc, pOwn, iDoc);
    if( rc ) return rc;
    return compileBuilt(pOwn, "$setWindowFields", aLet, nowMs, &pB->pAt, pzErr);
  }
}

/* The window of an output field: {documents: [lower, upper]} or {range:
** [lower, upper], unit: "…"}, with MongoDB's rules. */
static int compileWindow(DocWindow *p, WinOut *pO, const DocValue *v, const u8 *aLet,
                         i64 nowMs, char **pzErr){
  DocValue docs, range, unit, *pArr;
  DocValue aEnd[2];
  const char *zUnit = 0;
  DocIter it;
  int rc, n = 0, nField = 0;
  memset(&docs, 0, sizeof(docs));
  memset(&range, 0, sizeof(range));
  memset(&unit, 0, sizeof(unit));
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: output field '%s': 'window' must be a document",
                       pO->zPath);
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    nField++;
    if( docextIterKeyIs(&it, "documents") ) docs = it.v;
    else if( docextIterKeyIs(&it, "range") ) range = it.v;
    else if( docextIterKeyIs(&it, "unit") ) unit = it.v;
    else{
      return docextError(pzErr, "docext: output field '%s': a window holds 'documents', "
                         "or 'range' and 'unit', not '%s'", pO->zPath, it.zKey);
    }
  }
  if( docs.type && range.type ){
    return docextError(pzErr, "docext: output field '%s': a window is either "
                       "'documents' or 'range', not both", pO->zPath);
  }
  if( unit.type && !range.type ){
    return docextError(pzErr, "docext: output field '%s': a window's 'unit' goes with "
                       "'range'", pO->zPath);
  }
  if( nField==0 ) return SQLITE_OK;           /* {}: the whole partition */
  pO->bRange = range.type!=0;
  pArr = pO->bRange ? &range : &docs;
  if( pArr->type!=DOC_ARRAY || docextIterCount(pArr)!=2 ){
    return docextError(pzErr, "docext: output field '%s': window bounds are an array "
                       "of 2 elements, as [\"unbounded\", \"current\"]", pO->zPath);
  }
  if( unit.type ){
    int i = unitIndex(&unit);
    if( i<0 ){
      return docextError(pzErr, "docext: output field '%s': unknown time unit for the "
                         "window (it takes week, day, hour, minute, second, millisecond, "
                         "month, quarter or year)", pO->zPath);
    }
    zUnit = azUnit[i];
    pO->bDateRange = 1;
  }
  if( pO->bRange ){
    if( p->nSortField!=1 ){
      return docextError(pzErr, "docext: output field '%s': range-based bounds need a "
                         "sortBy of one field", pO->zPath);
    }
    if( !p->bSortAsc ){
      return docextError(pzErr, "docext: output field '%s': range-based bounds need an "
                         "ascending sortBy", pO->zPath);
    }
  }
  docextIterInitValue(&it, pArr);
  while( docextIterNext(&it) ) aEnd[n++] = it.v;
  rc = compileBound(p, pO, &aEnd[0], zUnit, aLet, nowMs, &pO->lo, pzErr);
  if( rc==SQLITE_OK ) rc = compileBound(p, pO, &aEnd[1], zUnit, aLet, nowMs, &pO->hi, pzErr);
  if( rc ) return rc;
  if( !boundsForward(pO) ){
    return docextError(pzErr, "docext: output field '%s': the lower bound of a window "
                       "must not exceed its upper bound", pO->zPath);
  }
  if( !pO->bRange && p->pSort==0
   && (pO->lo.eKind!=WB_UNBOUNDED || pO->hi.eKind!=WB_UNBOUNDED) ){
    return docextError(pzErr, "docext: output field '%s': document-based bounds need "
                       "a sortBy", pO->zPath);
  }
  return SQLITE_OK;
}

/* v, a number, as a decimal128 (a double rounded to 15 digits, as MongoDB's
** Decimal128 of it). */
static void numDecimal(const DocValue *v, DocNum *p){
  DocNum n;
  docextNumFrom(v, &n);
  memset(p, 0, sizeof(*p));
  p->type = DOC_DECIMAL128;
  docextNumToDec(&n, p->aDec);
}

/* {input: …, unit: …} of $derivative and $integral; {input: …, N: …} or
** {input: …, alpha: …} of $expMovingAvg. */
static int compileInputArgs(WinOut *pO, const DocValue *v, const u8 *aLet, i64 nowMs,
                            char **pzErr){
  DocIter it;
  DocValue input;
  int bEma = pO->eFn==WF_EMA, rc, bRate = 0;
  memset(&input, 0, sizeof(input));
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: output field '%s': %s takes a document, as "
                       "{input: …, %s}", pO->zPath, pO->zFn, bEma ? "N: …" : "unit: …");
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( docextIterKeyIs(&it, "input") ){
      input = it.v;
    }else if( !bEma && docextIterKeyIs(&it, "unit") ){
      int i = unitIndex(&it.v);
      if( i<0 || aUnitMs[i]==0 ){
        return docextError(pzErr, "docext: output field '%s': %s's unit must be week, "
                           "day, hour, minute, second or millisecond", pO->zPath, pO->zFn);
      }
      pO->nUnitMs = aUnitMs[i];
    }else if( bEma && docextIterKeyIs(&it, "N") && !bRate ){
      i64 nN;
      bRate = 1;
      if( !docextValueIsNumber(&it.v) || !wholeNumber(&it.v, &nN) || nN<=0 ){
        return docextError(pzErr, "docext: output field '%s': $expMovingAvg's N must be "
                           "a whole number above 0 (for another rate, use alpha)", pO->zPath);
      }
      {
        /* (2 / (N + 1), as MongoDB's Decimal128 works it out) */
        DocNum two, n, one;
        memset(&two, 0, sizeof(two));
        two.type = DOC_DECIMAL128;
        n = one = two;
        docextDec128FromInt64(2, two.aDec);
        docextDec128FromInt64(nN, n.aDec);
        docextDec128FromInt64(1, one.aDec);
        rc = docextNumOp('+', &n, &one, &n);
        if( rc==SQLITE_OK ) rc = docextNumOp('/', &two, &n, &pO->alpha);
        if( rc ) return rc;
      }
    }else if( bEma && docextIterKeyIs(&it, "alpha") && !bRate ){
      double a = docextValueIsNumber(&it.v) ? docextValueToDouble(&it.v) : 0.0;
      bRate = 1;
      if( !(a>0.0 && a<1.0) ){
        return docextError(pzErr, "docext: output field '%s': $expMovingAvg's alpha must "
                           "be a number between 0 and 1 (exclusive)", pO->zPath);
      }
      numDecimal(&it.v, &pO->alpha);
    }else{
      return docextError(pzErr, "docext: output field '%s': %s got unexpected argument "
                         "'%s'", pO->zPath, pO->zFn, it.zKey);
    }
  }
  if( input.type==0 ){
    return docextError(pzErr, "docext: output field '%s': %s needs an 'input' expression",
                       pO->zPath, pO->zFn);
  }
  if( bEma && !bRate ){
    return docextError(pzErr, "docext: output field '%s': $expMovingAvg needs either N "
                       "or alpha", pO->zPath);
  }
  rc = docextExprNew(&input, aLet, pO->zFn, nowMs, &pO->pInput, pzErr);
  return rc;
}

/* {output: …, by: n, default: constant} of $shift. */
static int compileShift(WinOut *pO, const DocValue *v, const u8 *aLet, i64 nowMs,
                        char **pzErr){
  DocIter it;
  DocValue output, dflt;
  int bBy = 0, rc = SQLITE_OK;
  memset(&output, 0, sizeof(output));
  memset(&dflt, 0, sizeof(dflt));
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: output field '%s': $shift takes a document, as "
                       "{output: …, by: -1, default: …}", pO->zPath);
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( docextIterKeyIs(&it, "output") ) output = it.v;
    else if( docextIterKeyIs(&it, "default") ) dflt = it.v;
    else if( docextIterKeyIs(&it, "by") ){
      if( !wholeNumber(&it.v, &pO->nBy) ){
        return docextError(pzErr, "docext: output field '%s': $shift's by must be an "
                           "integer", pO->zPath);
      }
      bBy = 1;
    }else{
      return docextError(pzErr, "docext: output field '%s': $shift got unexpected "
                         "argument '%s'", pO->zPath, it.zKey);
    }
  }
  if( output.type==0 ){
    return docextError(pzErr, "docext: output field '%s': $shift needs an 'output' "
                       "expression", pO->zPath);
  }
  if( !bBy ){
    return docextError(pzErr, "docext: output field '%s': $shift needs 'by', an integer",
                       pO->zPath);
  }
  if( dflt.type ){
    DocExpr *pD = 0;
    DocBuf tmp;
    DocValue d;
    memset(&tmp, 0, sizeof(tmp));
    rc = docextExprNew(&dflt, aLet, "$shift", nowMs, &pD, pzErr);
    if( rc==SQLITE_OK && !docextExprIsConstant(pD) ){
      rc = docextError(pzErr, "docext: output field '%s': $shift's default must be a "
                       "constant", pO->zPath);
    }
    if( rc==SQLITE_OK ){
      static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
      rc = docextExprValue(pD, aEmpty, &tmp, &d, pzErr);
    }
    if( rc==SQLITE_OK && d.type ){
      docextBufAppendByte(&rc, &pO->dflt, d.type);
      docextBufAppend(&rc, &pO->dflt, d.p, d.n);
    }
    docextExprFree(pD);
    docextBufFree(&tmp);
    if( rc ) return rc;
  }
  return docextExprNew(&output, aLet, "$shift", nowMs, &pO->pInput, pzErr);
}

/* Is v the empty document {}? */
static int isEmptyDoc(const DocValue *v){
  return v->type==DOC_DOCUMENT && docextIterCount(v)==0;
}

/* The sortBy an output field's function needs: any (bAny), or one field
** (else). */
static int needSort(DocWindow *p, WinOut *pO, int bAny, char **pzErr){
  if( p->pSort==0 ){
    return docextError(pzErr, "docext: output field '%s': %s needs a sortBy",
                       pO->zPath, pO->zFn);
  }
  if( !bAny && p->nSortField!=1 ){
    return docextError(pzErr, "docext: output field '%s': %s needs a sortBy of one "
                       "field", pO->zPath, pO->zFn);
  }
  return SQLITE_OK;
}

/* One field of output: {name: {$function: operand, window: {…}}}. */
/* $firstN ... $bottomN: *pFn becomes the input, and n, which must not read
** a document, is worked out once. */
static int compileAccumArgs(WinOut *pO, DocValue *pFn, const u8 *aLet, i64 nowMs,
                            char **pzErr){
  static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
  DocValue input, n;
  DocExpr *pN = 0;
  DocAccum acc;
  int rc = docextAccumArgs(pO->eAcc, pFn, &pO->own, &input, &n, &pO->pSort, pzErr);
  if( rc ) return rc;
  rc = docextExprNew(&n, aLet, pO->zFn, nowMs, &pN, pzErr);
  if( rc==SQLITE_OK && !docextExprIsConstant(pN) ){
    rc = docextError(pzErr, "docext: output field '%s': %s's n must be a constant",
                     pO->zPath, pO->zFn);
  }
  if( rc==SQLITE_OK ) rc = docextAccumStart(&acc, pO->eAcc, pN, pO->pSort, aEmpty, pzErr);
  if( rc==SQLITE_OK ) pO->nLimit = acc.nLimit;
  *pFn = input;
  docextExprFree(pN);
  return rc;
}

static int compileOutput(DocWindow *p, WinOut *pO, const DocIter *pField, const u8 *aLet,
                         i64 nowMs, char **pzErr){
  static const char *const azFn[] = {
    "$covariancePop", "$covarianceSamp", "$rank", "$denseRank", "$documentNumber",
    "$shift", "$locf", "$linearFill", "$derivative", "$integral", "$expMovingAvg",
  };
  static const int aFn[] = {
    WF_COVAR, WF_COVAR, WF_RANK, WF_DENSE_RANK, WF_DOC_NUMBER,
    WF_SHIFT, WF_LOCF, WF_LINEAR_FILL, WF_DERIVATIVE, WF_INTEGRAL, WF_EMA,
  };
  DocIter it;
  DocValue fn, window;
  int rc = SQLITE_OK, nFn = 0, i;
  memset(&fn, 0, sizeof(fn));
  memset(&window, 0, sizeof(window));
  pO->zPath = pField->zKey;
  if( pField->v.type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: output field '%s' must be a document, as "
                       "{%s: {$sum: …}}", pO->zPath, pO->zPath);
  }
  docextIterInitValue(&it, &pField->v);
  while( docextIterNext(&it) ){
    if( docextIterKeyIs(&it, "window") ){
      if( window.type ){
        return docextError(pzErr, "docext: output field '%s' has two windows", pO->zPath);
      }
      window = it.v;
    }else if( it.zKey[0]=='$' ){
      if( nFn++ ){
        return docextError(pzErr, "docext: output field '%s' has two window functions",
                           pO->zPath);
      }
      pO->zFn = it.zKey;
      fn = it.v;
    }else{
      return docextError(pzErr, "docext: output field '%s': unknown argument '%s' of a "
                         "window function", pO->zPath, it.zKey);
    }
  }
  if( nFn==0 ){
    return docextError(pzErr, "docext: output field '%s' needs a window function, as "
                       "{$sum: \"$x\"}", pO->zPath);
  }
  i = docextNameIndex(pO->zFn, (int)strlen(pO->zFn), azFn, DOCEXT_COUNT(azFn));
  if( i>=0 ){
    pO->eFn = aFn[i];
    pO->eAcc = i==1;                          /* $covarianceSamp */
  }else if( strcmp(pO->zFn, "$count")==0 ){
    if( !isEmptyDoc(&fn) ){
      return docextError(pzErr, "docext: output field '%s': $count takes no argument: "
                         "{$count: {}}", pO->zPath);
    }
    pO->eFn = WF_ACC;
    pO->eAcc = DOCEXT_ACC_SUM;
    {
      static const u8 aOne[4] = {1, 0, 0, 0};
      DocValue one = { DOC_INT32, aOne, 4 };
      fn = one;
    }
  }else if( docextAccumIsQuantile(pO->zFn) ){
    /* (a $push of its input, finished by the operator over the list) */
    DocValue input;
    pO->eFn = WF_ACC;
    pO->eAcc = DOCEXT_ACC_PUSH;
    rc = docextAccumQuantile(pO->zFn, &fn, aLet, nowMs, &pO->own, &pO->pFinish, &input, pzErr);
    if( rc ) return rc;
    fn = input;
  }else if( (pO->eAcc = docextAccumOp(pO->zFn, (int)strlen(pO->zFn)))!=0 ){
    pO->eFn = WF_ACC;
    if( docextAccumHasArgs(pO->eAcc) ){
      rc = compileAccumArgs(pO, &fn, aLet, nowMs, pzErr);
      if( rc ) return rc;
    }
  }else{
    return docextError(pzErr, "docext: output field '%s': unknown window function %s",
                       pO->zPath, pO->zFn);
  }
  /* which take a window */
  switch( pO->eFn ){
    case WF_ACC: case WF_COVAR: case WF_DERIVATIVE: case WF_INTEGRAL:
      if( window.type ) rc = compileWindow(p, pO, &window, aLet, nowMs, pzErr);
      else if( pO->eFn==WF_DERIVATIVE ){
        return docextError(pzErr, "docext: output field '%s': $derivative needs a window",
                           pO->zPath);
      }
      if( rc==SQLITE_OK && pO->eFn==WF_ACC && pO->eAcc==DOCEXT_ACC_MERGEOBJECTS
       && pO->lo.eKind!=WB_UNBOUNDED ){
        /* (MongoDB runs it only as an accumulator, which nothing leaves) */
        return docextError(pzErr, "docext: output field '%s': $mergeObjects takes a window "
                           "without a lower bound, as [\"unbounded\", \"current\"]", pO->zPath);
      }
      break;
    default:
      if( window.type ){
        return docextError(pzErr, "docext: output field '%s': %s takes no window",
                           pO->zPath, pO->zFn);
      }
      break;
  }
  if( rc ) return rc;
  switch( pO->eFn ){
    case WF_ACC: case WF_COVAR: case WF_LOCF:
      return docextExprNew(&fn, aLet, pO->zFn, nowMs, &pO->pInput, pzErr);
    case WF_RANK: case WF_DENSE_RANK: case WF_DOC_NUMBER:
      if( !isEmptyDoc(&fn) ){
        return docextError(pzErr, "docext: output field '%s': %s takes no argument: "
                           "{%s: {}}", pO->zPath, pO->zFn, pO->zFn);
      }
      return needSort(p, pO, 0, pzErr);
    case WF_SHIFT:
      if( (rc = needSort(p, pO, 1, pzErr))!=SQLITE_OK ) return rc;
      return compileShift(pO, &fn, aLet, nowMs, pzErr);
    case WF_LINEAR_FILL:
      if( (rc = needSort(p, pO, 0, pzErr))!=SQLITE_OK ) return rc;
      return docextExprNew(&fn, aLet, pO->zFn, nowMs, &pO->pInput, pzErr);
    case WF_EMA:
      if( (rc = needSort(p, pO, 1, pzErr))!=SQLITE_OK ) return rc;
      return compileInputArgs(pO, &fn, aLet, nowMs, pzErr);
    default:                                  /* $derivative, $integral */
      if( (rc = needSort(p, pO, 0, pzErr))!=SQLITE_OK ) return rc;
      if( !p->bSortAsc && pO->bRange ) return SQLITE_OK;   /* (reported) */
      return compileInputArgs(pO, &fn, aLet, nowMs, pzErr);
  }
}

static int checkOutputPath(const char *z, char **pzErr){
  const char *zWhy = docextPathProblem(z);
  return zWhy ? docextError(pzErr, "docext: output field '%s': %s", z, zWhy) : SQLITE_OK;
}

/* sortBy: its compiled sort, the number of fields, the direction of the
** first, and the expression of its value. */
static int compileSortBy(DocWindow *p, const DocValue *v, const u8 *aLet, i64 nowMs,
                         char **pzErr){
  DocIter it;
  int rc = SQLITE_OK;
  if( v->type!=DOC_DOCUMENT || docextIterCount(v)==0 ){
    return docextError(pzErr, "docext: sortBy must be a non-empty sort document");
  }
  rc = docextSortNew(v->p, &p->pSort, pzErr);
  if( rc ) return rc;
  p->nSortField = docextIterCount(v);
  docextIterInitValue(&it, v);
  docextIterNext(&it);
  p->bSortAsc = docextValueToDouble(&it.v)>0;
  /* sortPath: {"": "$<field>"}, the expression of the first field's value */
  {
    i64 iDoc = docextBsonStartDoc(&rc, &p->sortPath);
    docextBsonAppendFieldRef(&rc, &p->sortPath, "", 0, it.zKey, it.nKey);
    docextBsonEndDoc(&rc, &p->sortPath, iDoc);
  }
  if( rc ) return rc;
  return compileBuilt(&p->sortPath, "$setWindowFields sortBy", aLet, nowMs, &p->pSortValue,
                      pzErr);
}

void docextWindowSetCollator(DocWindow *p, const DocCollator *pCollator){
  int i;
  p->pCollator = pCollator;
  if( p->pPartition ) docextExprSetCollator(p->pPartition, pCollator);
  if( p->pSortValue ) docextExprSetCollator(p->pSortValue, pCollator);
  if( p->pSort ) docextSortSetCollator(p->pSort, pCollator);
  for(i=0; i<p->nOut; i++){
    WinOut *pO = &p->aOut[i];
    pO->pCollator = pCollator;
    if( pO->pInput ) docextExprSetCollator(pO->pInput, pCollator);
    if( pO->pFinish ) docextExprSetCollator(pO->pFinish, pCollator);
    if( pO->pSort ) docextSortSetCollator(pO->pSort, pCollator);
    if( pO->lo.pAt ) docextExprSetCollator(pO->lo.pAt, pCollator);
    if( pO->hi.pAt ) docextExprSetCollator(pO->hi.pAt, pCollator);
  }
}

int docextWindowNew(const DocValue *v, const u8 *aLet, i64 nowMs, DocWindow **ppOut,
                    char **pzErr){
  static const char *const azArg[] = {"partitionBy", "sortBy", "output"};
  DocWindow *p;
  DocValue a[3], partition, sortBy, output;
  DocIter it;
  const char *zOther;
  int rc = SQLITE_OK, j;
  *ppOut = 0;
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: $setWindowFields needs a document, as "
                       "{partitionBy: …, sortBy: {…}, output: {…}}");
  }
  if( (zOther = docextBsonFields(v, azArg, 3, a))!=0 ){
    return docextError(pzErr, "docext: unknown field '%s' (it takes partitionBy, "
                       "sortBy and output)", zOther);
  }
  partition = a[0];
  sortBy = a[1];
  output = a[2];
  if( output.type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: needs an output document, as "
                       "{output: {total: {$sum: \"$x\"}}}");
  }
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  p->aOut = docextMallocZero(sizeof(WinOut)*(docextIterCount(&output)+1));
  if( p->aOut==0 ) rc = SQLITE_NOMEM;
  if( rc==SQLITE_OK && partition.type ){
    rc = docextExprNew(&partition, aLet, "$setWindowFields partitionBy", nowMs,
                       &p->pPartition, pzErr);
  }
  if( rc==SQLITE_OK && sortBy.type ) rc = compileSortBy(p, &sortBy, aLet, nowMs, pzErr);
  docextIterInitValue(&it, &output);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    rc = checkOutputPath(it.zKey, pzErr);
    for(j=0; rc==SQLITE_OK && j<p->nOut; j++){
      if( docextPathsOverlap(p->aOut[j].zPath, it.zKey) ){
        rc = docextError(pzErr, "docext: the output fields '%s' and '%s' conflict",
                         p->aOut[j].zPath, it.zKey);
      }
    }
    if( rc==SQLITE_OK ){
      WinOut *pO = &p->aOut[p->nOut++];
      rc = compileOutput(p, pO, &it, aLet, nowMs, pzErr);
      if( pO->bRange || pO->eFn==WF_DERIVATIVE || pO->eFn==WF_INTEGRAL
       || pO->eFn==WF_LINEAR_FILL ){
        p->bSortValues = 1;
      }
    }
  }
  if( rc ){
    docextWindowFree(p);
    return rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Running
*/

/* Values, one for each document of a partition: a type (0: missing) and
** bytes in b. */
typedef struct WinVal WinVal;
struct WinVal { i64 iOff; int n; int type; };
typedef struct WinVals WinVals;
struct WinVals { DocBuf b; WinVal *a; };

static int valsInit(WinVals *p, int n){
  memset(p, 0, sizeof(*p));
  p->a = sqlite3_malloc64(sizeof(WinVal)*(n>0 ? n : 1));
  return p->a ? SQLITE_OK : SQLITE_NOMEM;
}
static void valsFree(WinVals *p){
  docextBufFree(&p->b);
  sqlite3_free(p->a);
  memset(p, 0, sizeof(*p));
}
/* Value i is v (NULL or type 0: missing). */
static void valsPut(int *pRc, WinVals *p, int i, const DocValue *v){
  p->a[i].type = v ? v->type : 0;
  p->a[i].iOff = p->b.n;
  p->a[i].n = v && v->type ? v->n : 0;
  if( v && v->type ) docextBufAppend(pRc, &p->b, v->p, v->n);
}
static void valsGet(const WinVals *p, int i, DocValue *pV){
  pV->type = (u8)p->a[i].type;
  pV->p = p->a[i].n ? p->b.a + p->a[i].iOff : aNullBytes;   /* (b may be empty) */
  pV->n = p->a[i].n;
}
/* Value i, missing read as null (for comparisons). */
static void valsGetOrNull(const WinVals *p, int i, DocValue *pV){
  valsGet(p, i, pV);
  if( pV->type==0 ) *pV = nullValue;
}

/* One partition being computed. */
typedef struct WinPart WinPart;
struct WinPart {
  DocWindow *pW;
  const u8 **aDoc;          /* its documents, in order */
  const DocKeyItem *aItem;  /* their sort keys, in aKeys */
  const u8 *aKeys;
  int n;
  WinVals x;                /* their sortBy values (the first field's) */
  DocBuf tmp;
  int hintLo, hintHi;       /* a range window's last ends, or -1 */
};

static int valsEval(WinPart *pP, DocExpr *pE, WinVals *pOut, char **pzErr){
  int rc = valsInit(pOut, pP->n), i;
  for(i=0; rc==SQLITE_OK && i<pP->n; i++){
    DocValue v;
    rc = docextExprValue(pE, pP->aDoc[i], &pP->tmp, &v, pzErr);
    valsPut(&rc, pOut, i, &v);
  }
  return rc;
}

static int isNullish(const DocValue *v){
  return v->type==0 || v->type==DOC_NULL || v->type==DOC_UNDEFINED;
}

static int lessThan(const DocValue *a, const DocValue *b){
  return docextValueCompare(a, b)<0;
}

/* The sortBy value of document j as a range's base: a number, or a date
** with a unit. */
static int rangeBase(WinPart *pP, const WinOut *pO, int j, DocValue *pBase, char **pzErr){
  valsGetOrNull(&pP->x, j, pBase);
  if( pO->bDateRange ){
    if( pBase->type!=DOC_DATE ){
      return docextError(pzErr, "docext: output field '%s': a range with a unit needs "
                         "sortBy values that are dates, not %s", pO->zPath,
                         docextTypeAlias(pBase->type));
    }
  }else if( pBase->type==DOC_DATE ){
    return docextError(pzErr, "docext: output field '%s': a range over dates needs a "
                       "unit", pO->zPath);
  }else if( !docextValueIsNumber(pBase) ){
    return docextError(pzErr, "docext: output field '%s': a range needs sortBy values "
                       "that are numbers, not %s", pO->zPath, docextTypeAlias(pBase->type));
  }
  return SQLITE_OK;
}

/* Is v of the type a range's documents must have? */
static int rangeTyped(const WinOut *pO, const DocValue *v){
  return pO->bDateRange ? v->type==DOC_DATE : docextValueIsNumber(v);
}

/* The threshold of bound pB for document j (base its sortBy value): *pV,
** pointing into *pNum or pP->tmp. */
static int rangeThreshold(WinPart *pP, const WinBound *pB, int j, const DocValue *pBase,
                          DocNum *pNum, DocValue *pV, char **pzErr){
  if( pB->pAt ){
    int rc = docextExprValue(pB->pAt, pP->aDoc[j], &pP->tmp, pV, pzErr);
    if( rc==SQLITE_OK && pV->type!=DOC_DATE ) *pV = nullValue;
    return rc;
  }else{
    DocNum b, d;
    docextNumFrom(pBase, &b);
    d.type = DOC_DECIMAL128;
    docextNumToDec(&b, d.aDec);
    int rc = docextNumArith(0, &d, &pB->delta, pNum);
    if( rc ) return rc;
    pV->type = DOC_DECIMAL128;
    pV->p = pNum->aDec;
    pV->n = 16;
    return SQLITE_OK;
  }
}

/* The rows [*pLo, *pHi] of a range window of document j, as MongoDB finds
** them; *pbHas = 0 when it is empty. Both ends only move forward from one
** document to the next, so each scan starts where the last one ended. */
static int rangeWindow(WinPart *pP, const WinOut *pO, int j, int *pLo, int *pHi,
                       int *pbHas, char **pzErr){
  DocValue base, thr, v;
  DocNum num;
  int rc, i, lo = -1, hi = -1, n = pP->n;
  *pbHas = 0;
  if( (rc = rangeBase(pP, pO, j, &base, pzErr))!=SQLITE_OK ) return rc;
  switch( pO->lo.eKind ){
    case WB_CURRENT: lo = j; break;
    case WB_UNBOUNDED:
      for(i=pP->hintLo>0 ? pP->hintLo : 0; i<n; i++){
        valsGetOrNull(&pP->x, i, &v);
        if( rangeTyped(pO, &v) ){ lo = i; break; }
      }
      break;
    default:
      rc = rangeThreshold(pP, &pO->lo, j, &base, &num, &thr, pzErr);
      if( rc ) return rc;
      for(i=pP->hintLo>0 ? pP->hintLo : 0; i<n; i++){
        valsGetOrNull(&pP->x, i, &v);
        if( !lessThan(&v, &thr) ){
          if( rangeTyped(pO, &v) ) lo = i;
          break;
        }
      }
      break;
  }
  if( lo<0 ) return SQLITE_OK;
  switch( pO->hi.eKind ){
    case WB_CURRENT: hi = j; break;
    case WB_UNBOUNDED: {
      int iStart = lo>j ? lo : j;
      if( pP->hintHi>iStart ) iStart = pP->hintHi;
      hi = n-1;
      for(i=iStart; i<n; i++){
        valsGetOrNull(&pP->x, i, &v);
        if( !rangeTyped(pO, &v) ){ hi = i-1; break; }
      }
      break;
    }
    default: {
      int iStart = pP->hintHi>lo ? pP->hintHi : lo;
      rc = rangeThreshold(pP, &pO->hi, j, &base, &num, &thr, pzErr);
      if( rc ) return rc;
      hi = n-1;
      for(i=iStart; i<n; i++){
        valsGetOrNull(&pP->x, i, &v);
        if( lessThan(&thr, &v) ){ hi = i-1; break; }
      }
      if( i==iStart && iStart<n ) return SQLITE_OK;
      break;
    }
  }
  if( hi<lo ) return SQLITE_OK;
  *pLo = pP->hintLo = lo;
  *pHi = pP->hintHi = hi;
  *pbHas = 1;
  return SQLITE_OK;
}

/* The rows [*pLo, *pHi] of the window of document j; *pbHas = 0 when it
** is empty. */
static int windowOf(WinPart *pP, const WinOut *pO, int j, int *pLo, int *pHi, int *pbHas,
                    char **pzErr){
  i64 lo, hi, n = pP->n;
  if( pO->bRange ) return rangeWindow(pP, pO, j, pLo, pHi, pbHas, pzErr);
  lo = pO->lo.eKind==WB_UNBOUNDED ? 0 : j + (pO->lo.eKind==WB_AT ? pO->lo.iAt : 0);
  hi = pO->hi.eKind==WB_UNBOUNDED ? n-1 : j + (pO->hi.eKind==WB_AT ? pO->hi.iAt : 0);
  if( lo<0 ) lo = 0;
  if( hi>n-1 ) hi = n-1;
  *pbHas = lo<=hi;
  *pLo = (int)lo;
  *pHi = (int)hi;
  return SQLITE_OK;
}

/* The sortBy value of row i as a number for $derivative, $integral and
** $linearFill: dates in milliseconds. */
static int xNumber(WinPart *pP, const WinOut *pO, int i, double *pX, char **pzErr){
  DocValue v;
  valsGetOrNull(&pP->x, i, &v);
  if( pO->nUnitMs ){
    if( v.type!=DOC_DATE ){
      return docextError(pzErr, "docext: output field '%s': %s with a unit needs sortBy "
                         "values that are dates, not %s", pO->zPath, pO->zFn,
                         docextTypeAlias(v.type));
    }
    *pX = (double)docextValueI64(&v);
  }else if( v.type==DOC_DATE ){
    return docextError(pzErr, "docext: output field '%s': %s over dates needs a unit",
                       pO->zPath, pO->zFn);
  }else if( !docextValueIsNumber(&v) ){
    return docextError(pzErr, "docext: output field '%s': %s needs sortBy values that "
                       "are numbers, not %s", pO->zPath, pO->zFn, docextTypeAlias(v.type));
  }else{
    *pX = docextValueToDouble(&v);
  }
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Numbers for the functions MongoDB writes with $add, $subtract,
** $multiply and $divide ($derivative, $integral, $linearFill), which
** docextNumOp computes as aggregation does.
*/

/* The number v holds; a date, its milliseconds. */
static void numOf(const DocValue *v, DocNum *p){
  if( v->type==DOC_DATE ){
    memset(p, 0, sizeof(*p));
    p->type = DOC_INT64;
    p->i = docextValueI64(v);
  }else{
    docextNumFrom(v, p);
  }
}

static void numSetDouble(DocNum *p, double d){
  memset(p, 0, sizeof(*p));
  p->type = DOC_DOUBLE;
  p->d = d;
}

/* What a window has taken in so far: rows [lo, hi] (none when lo>hi). */
typedef struct WinAgg WinAgg;
struct WinAgg {
  DocAccum acc;             /* WF_ACC */
  i64 nPair;                /* WF_COVAR: pairs taken, the sums of their x and */
  DocSum sx, sy, cxy;       /* y, and of the products of their deviations */
  int nPt;                  /* WF_INTEGRAL: points, and the area so far */
  DocSum area;              /* (summed as MongoDB's $sum sums) */
  int lo, hi;
};

static void aggReset(WinAgg *g, const WinOut *pO){
  docextAccumFree(&g->acc);
  memset(g, 0, sizeof(*g));
  docextAccumInit(&g->acc, pO->eFn==WF_ACC ? pO->eAcc : DOCEXT_ACC_SUM);
  g->acc.pCollator = pO->pCollator;
  docextSumInit(&g->area);
  docextSumInit(&g->sx);
  docextSumInit(&g->sy);
  docextSumInit(&g->cxy);
  if( pO->eFn==WF_ACC && docextAccumHasArgs(pO->eAcc) ){
    /* A window with a lower bound is one MongoDB takes documents out of:
    ** its function keeps every item and chooses n at the end. Without
    ** one, it runs $group's accumulator, which keeps n all along. */
    g->acc.nLimit = pO->nLimit;
    g->acc.pSort = pO->pSort;
    g->acc.bKeepAll = pO->lo.eKind!=WB_UNBOUNDED;
  }
  g->lo = 0;
  g->hi = -1;
}

/* Check the point (x, y) of row i for $integral. */
static int integralPoint(WinPart *pP, const WinOut *pO, const WinVals *pY, int i,
                         char **pzErr){
  DocValue y;
  double x;
  int rc = xNumber(pP, pO, i, &x, pzErr);
  if( rc ) return rc;
  valsGet(pY, i, &y);
  if( !docextValueIsNumber(&y) ){
    return docextError(pzErr, "docext: output field '%s': $integral's input must be a "
                       "number, not %s", pO->zPath,
                       y.type ? docextTypeAlias(y.type) : "missing");
  }
  return SQLITE_OK;
}

/* Add $integral's trapezoid between rows i < k to g, as MongoDB computes
** it: (y_k + y_i) * (x_k - x_i) / 2.0. */
static int integralAdd(WinPart *pP, const WinVals *pY, int i, int k, WinAgg *g){
  DocValue v;
  DocNum x0, x1, y0, y1, dx, sy, t, two;
  int rc;
  valsGetOrNull(&pP->x, i, &v);  numOf(&v, &x0);
  valsGetOrNull(&pP->x, k, &v);  numOf(&v, &x1);
  valsGet(pY, i, &v);            numOf(&v, &y0);
  valsGet(pY, k, &v);            numOf(&v, &y1);
  numSetDouble(&two, 2.0);
  rc = docextNumOp('-', &x1, &x0, &dx);
  if( rc==SQLITE_OK ) rc = docextNumOp('+', &y1, &y0, &sy);
  if( rc==SQLITE_OK ) rc = docextNumOp('*', &sy, &dx, &t);
  if( rc==SQLITE_OK ) rc = docextNumOp('/', &t, &two, &t);
  if( rc ) return rc;
  return docextSumAdd(&g->area, &t);
}

/* Is n a NaN or an infinity? */
static int numNonFinite(const DocNum *n){
  char zDigits[40];
  int bNeg, iExp;
  if( n->type==DOC_DOUBLE ) return !isfinite(n->d);
  if( n->type!=DOC_DECIMAL128 ) return 0;
  return docextDec128Parts(n->aDec, &bNeg, zDigits, &iExp)!=DOCEXT_DEC_FINITE;
}

/* Take the pair (x, y), numbers, into a covariance, as MongoDB's
** WindowFunctionCovariance::add does: dx = x - mean(x before), dy = y -
** mean(y after), the products summed; the means sums over counts, all of
** it with MongoDB's types (decimal128 kept). A pair with a NaN or an
** infinity adds only that to the sum: NaN where there is a NaN or both
** infinities, else the infinity. */
static int covarAdd(WinAgg *g, const DocValue *a){
  DocNum x, y, mean, dx, dy, t;
  int rc = SQLITE_OK, bHas = g->nPair>0;
  docextNumFrom(&a[0], &x);
  docextNumFrom(&a[1], &y);
  if( numNonFinite(&x) || numNonFinite(&y) ){
    double dX = docextNumDouble(&x), dY = docextNumDouble(&y), r;
    int bPos = dX==INFINITY || dY==INFINITY, bNeg = dX==-INFINITY || dY==-INFINITY;
    r = isnan(dX) || isnan(dY) || (bPos && bNeg) ? NAN : bPos ? INFINITY : -INFINITY;
    numSetDouble(&t, r);
    if( x.type==DOC_DECIMAL128 || y.type==DOC_DECIMAL128 ){
      DocNum d = t;
      memset(&t, 0, sizeof(t));
      t.type = DOC_DECIMAL128;
      docextNumToDec(&d, t.aDec);
    }
    return docextSumAdd(&g->cxy, &t);
  }
  if( bHas ){
    rc = docextSumAvg(&g->sx, g->nPair, &mean);
    if( rc==SQLITE_OK ) rc = docextNumOp('-', &x, &mean, &dx);
  }
  g->nPair++;
  if( rc==SQLITE_OK ) rc = docextSumAdd(&g->sx, &x);
  if( rc==SQLITE_OK ) rc = docextSumAdd(&g->sy, &y);
  if( rc==SQLITE_OK ) rc = docextSumAvg(&g->sy, g->nPair, &mean);
  if( rc==SQLITE_OK ) rc = docextNumOp('-', &y, &mean, &dy);
  if( rc==SQLITE_OK && bHas ) rc = docextNumOp('*', &dx, &dy, &t);
  if( rc==SQLITE_OK && bHas ) rc = docextSumAdd(&g->cxy, &t);
  return rc;
}

/* Take row i into g, after its rows (bFront 0) or before them. */
static int aggAdd(WinPart *pP, const WinOut *pO, const WinVals *pIn, WinAgg *g, int i,
                  int bFront, char **pzErr){
  DocValue v;
  int rc = SQLITE_OK;
  valsGet(pIn, i, &v);
  if( pO->eFn==WF_ACC ){
    docextAccumAdd(&rc, &g->acc, &v, pzErr);
  }else if( pO->eFn==WF_COVAR ){
    DocValue a[2];
    DocIter it;
    int n = 0;
    if( v.type==DOC_ARRAY && docextIterCount(&v)==2 ){
      docextIterInitValue(&it, &v);
      while( docextIterNext(&it) ) a[n++] = it.v;
      if( docextValueIsNumber(&a[0]) && docextValueIsNumber(&a[1]) ) rc = covarAdd(g, a);
    }
  }else{                                      /* WF_INTEGRAL */
    rc = integralPoint(pP, pO, pIn, i, pzErr);
    if( rc==SQLITE_OK && g->nPt>0 ){
      int k = bFront ? g->lo : g->hi;
      rc = bFront ? integralAdd(pP, pIn, i, k, g) : integralAdd(pP, pIn, k, i, g);
    }
    g->nPt++;
  }
  if( bFront ) g->lo = i;
  else{
    if( g->hi<g->lo ) g->lo = i;
    g->hi = i;
  }
  return rc;
}

/* The value g gives, into *pV (pointing into pP->tmp). */
static int aggResult(WinPart *pP, const WinOut *pO, WinAgg *g, DocValue *pV, char **pzErr){
  int rc = SQLITE_OK;
  DocIter it;
  i64 iDoc;
  docextBufReset(&pP->tmp);
  iDoc = docextBsonStartDoc(&rc, &pP->tmp);
  if( pO->eFn==WF_ACC && pO->pFinish ){
    if( rc==SQLITE_OK ) rc = docextAccumFinish(pO->pFinish, &g->acc, &pP->tmp, "", 0, pzErr);
  }else if( pO->eFn==WF_ACC ){
    docextAccumResult(&rc, &g->acc, &pP->tmp, "", 0);
  }else if( pO->eFn==WF_COVAR ){
    i64 nDiv = pO->eAcc ? g->nPair-1 : g->nPair;
    DocNum c, d;
    if( g->nPair==1 && !pO->eAcc ){
      docextBsonAppendDouble(&rc, &pP->tmp, "", 0, 0.0);
    }else if( nDiv<=0 ){
      docextBsonAppendNull(&rc, &pP->tmp, "", 0);
    }else{
      /* (divided by the count as a double, as MongoDB's getValue does) */
      numSetDouble(&d, (double)nDiv);
      rc = docextSumResult(&g->cxy, &c);
      if( rc==SQLITE_OK && c.type==DOC_DECIMAL128 ) rc = docextNumOp('/', &c, &d, &c);
      else if( rc==SQLITE_OK ) numSetDouble(&c, docextNumDouble(&c) / (double)nDiv);
      if( rc==SQLITE_OK ) docextNumAppend(&rc, &pP->tmp, "", 0, &c);
    }
  }else if( g->nPt==0 ){
    docextBsonAppendNull(&rc, &pP->tmp, "", 0);
  }else{
    /* (one point: the int 0 of a sum of nothing) */
    DocNum a, unit;
    rc = docextSumResult(&g->area, &a);
    if( rc==SQLITE_OK && pO->nUnitMs ){
      memset(&unit, 0, sizeof(unit));
      unit.type = DOC_INT64;
      unit.i = pO->nUnitMs;
      rc = docextNumOp('/', &a, &unit, &a);
    }
    if( rc==SQLITE_OK ) docextNumAppend(&rc, &pP->tmp, "", 0, &a);
  }
  docextBsonEndDoc(&rc, &pP->tmp, iDoc);
  if( rc ) return rc;
  docextIterInit(&it, pP->tmp.a);
  docextIterNext(&it);
  *pV = it.v;
  return SQLITE_OK;
}

/* Does the function's value not depend on the order of its inputs (so
** that a window can grow at its front)? */
static int orderFree(const WinOut *pO){
  if( pO->eFn==WF_COVAR ) return 0;     /* (a pair's deviations are from the means before) */
  if( pO->eFn!=WF_ACC ) return 1;
  return pO->eAcc!=DOCEXT_ACC_FIRST && pO->eAcc!=DOCEXT_ACC_LAST
      && pO->eAcc!=DOCEXT_ACC_PUSH && pO->eAcc!=DOCEXT_ACC_MERGEOBJECTS
      && !docextAccumHasArgs(pO->eAcc);
}

/* Functions over a window: the accumulators, the covariances, $integral. */
static int runWindowed(WinPart *pP, const WinOut *pO, const WinVals *pIn, WinVals *pRes,
                       char **pzErr){
  WinAgg g;
  int rc = SQLITE_OK, k, j, n = pP->n;
  int bBack = pO->hi.eKind==WB_UNBOUNDED && pO->lo.eKind!=WB_UNBOUNDED && orderFree(pO);
  int *aLo = sqlite3_malloc64(sizeof(int)*2*(n>0 ? n : 1)), *aHi = aLo + n;
  if( aLo==0 ) return SQLITE_NOMEM;
  memset(&g, 0, sizeof(g));
  aggReset(&g, pO);
  /* the windows first, in order (a range's ends are found moving forward) */
  pP->hintLo = pP->hintHi = -1;
  for(j=0; rc==SQLITE_OK && j<n; j++){
    int bHas = 0;
    rc = windowOf(pP, pO, j, &aLo[j], &aHi[j], &bHas, pzErr);
    if( !bHas ){ aLo[j] = 0; aHi[j] = -1; }
  }
  for(k=0; rc==SQLITE_OK && k<n; k++){
    int lo, hi, i;
    DocValue v;
    j = bBack ? n-1-k : k;
    lo = aLo[j];
    hi = aHi[j];
    memset(&v, 0, sizeof(v));
    if( lo<=hi && pO->eFn==WF_ACC
     && (pO->eAcc==DOCEXT_ACC_FIRST || pO->eAcc==DOCEXT_ACC_LAST) ){
      /* the value at an end of the window, missing as it is */
      valsGet(pIn, pO->eAcc==DOCEXT_ACC_FIRST ? lo : hi, &v);
      valsPut(&rc, pRes, j, &v);
      continue;
    }
    if( lo>hi ){
      aggReset(&g, pO);
    }else if( g.lo<=g.hi && lo==g.lo && hi>=g.hi ){
      for(i=g.hi+1; rc==SQLITE_OK && i<=hi; i++) rc = aggAdd(pP, pO, pIn, &g, i, 0, pzErr);
    }else if( g.lo<=g.hi && hi==g.hi && lo<=g.lo && orderFree(pO) ){
      for(i=g.lo-1; rc==SQLITE_OK && i>=lo; i--) rc = aggAdd(pP, pO, pIn, &g, i, 1, pzErr);
    }else{
      aggReset(&g, pO);
      for(i=lo; rc==SQLITE_OK && i<=hi; i++) rc = aggAdd(pP, pO, pIn, &g, i, 0, pzErr);
    }
    if( rc==SQLITE_OK ) rc = aggResult(pP, pO, &g, &v, pzErr);
    valsPut(&rc, pRes, j, &v);
  }
  docextAccumFree(&g.acc);
  sqlite3_free(aLo);
  if( rc==SQLITE_TOOBIG && *pzErr==0 ){
    rc = docextError(pzErr, "docext: output field '%s': a list of %s passes the 16 MiB "
                     "limit of a document", pO->zPath, pO->zFn);
  }
  return rc;
}

/* Put the number d (a double) as value j. */
static void putDouble(int *pRc, WinVals *pRes, int j, double d){
  DocValue v;
  u8 a[8];
  memcpy(a, &d, 8);
  v.type = DOC_DOUBLE;
  v.p = a;
  v.n = 8;
  valsPut(pRc, pRes, j, &v);
}

static void putNum(int *pRc, WinVals *pRes, int j, const DocNum *p){
  DocBuf b;
  u8 aSpace[32];
  DocIter it;
  i64 iDoc;
  docextBufInit(&b, aSpace, sizeof(aSpace));
  iDoc = docextBsonStartDoc(pRc, &b);
  docextNumAppend(pRc, &b, "", 0, p);
  docextBsonEndDoc(pRc, &b, iDoc);
  if( *pRc==SQLITE_OK ){
    docextIterInit(&it, b.a);
    docextIterNext(&it);
    valsPut(pRc, pRes, j, &it.v);
  }
  docextBufFree(&b);
}


static void putInt(int *pRc, WinVals *pRes, int j, i64 x){
  DocValue v;
  u8 a[8];
  if( x<=0x7fffffff ){
    docextPutI32(a, (int32_t)x);
    v.type = DOC_INT32;
    v.n = 4;
  }else{
    int k;
    for(k=0; k<8; k++) a[k] = (u8)((u64)x >> (8*k));
    v.type = DOC_INT64;
    v.n = 8;
  }
  v.p = a;
  valsPut(pRc, pRes, j, &v);
}

/* $rank, $denseRank, $documentNumber: by the sortBy keys of the rows
** (equal keys tie: null and missing alike, arrays by their sort value). */
static int runRank(WinPart *pP, const WinOut *pO, WinVals *pRes){
  int rc = SQLITE_OK, j;
  i64 iRank = 0, iDense = 0;
  for(j=0; j<pP->n; j++){
    const DocKeyItem *a = &pP->aItem[j];
    int bTie = j>0 && docextKeyCmp(pP->aKeys + a[-1].iKey, a[-1].nKey,
                                   pP->aKeys + a->iKey, a->nKey)==0;
    if( !bTie ){
      iRank = j+1;
      iDense++;
    }
    putInt(&rc, pRes, j, pO->eFn==WF_RANK ? iRank : pO->eFn==WF_DENSE_RANK ? iDense : j+1);
  }
  return rc;
}

static int runShift(WinPart *pP, const WinOut *pO, WinVals *pRes, char **pzErr){
  int rc = SQLITE_OK, j;
  for(j=0; rc==SQLITE_OK && j<pP->n; j++){
    i64 k = j + pO->nBy;
    DocValue v;
    if( k>=0 && k<pP->n ){
      rc = docextExprValue(pO->pInput, pP->aDoc[k], &pP->tmp, &v, pzErr);
    }else if( pO->dflt.n ){
      v.type = pO->dflt.a[0];
      v.p = pO->dflt.a + 1;
      v.n = (int)pO->dflt.n - 1;
    }else{
      v = nullValue;
    }
    valsPut(&rc, pRes, j, &v);
  }
  return rc;
}

static int runLocf(WinPart *pP, const WinVals *pIn, WinVals *pRes){
  int rc = SQLITE_OK, j, iLast = -1;
  for(j=0; j<pP->n; j++){
    DocValue v;
    valsGet(pIn, j, &v);
    if( !isNullish(&v) ) iLast = j;
    if( iLast>=0 ) valsGet(pIn, iLast, &v);
    else v = nullValue;
    valsPut(&rc, pRes, j, &v);
  }
  return rc;
}

/* $linearFill: a null (or missing) value between two numbers is the point
** on the line between them, over the sortBy values. */
static int runLinearFill(WinPart *pP, const WinOut *pO, const WinVals *pIn, WinVals *pRes,
                         char **pzErr){
  int rc = SQLITE_OK, j, iPrev = -1, iNext = -1, xType = 0;
  for(j=0; j<pP->n; j++){
    DocValue y, x, xPrev;
    valsGet(pIn, j, &y);
    if( !isNullish(&y) && !docextValueIsNumber(&y) ){
      return docextError(pzErr, "docext: output field '%s': $linearFill fills numbers, "
                         "not %s", pO->zPath, docextTypeAlias(y.type));
    }
    valsGetOrNull(&pP->x, j, &x);
    if( x.type!=DOC_DATE && !docextValueIsNumber(&x) ){
      return docextError(pzErr, "docext: output field '%s': $linearFill needs sortBy "
                         "values that are numbers or dates, not %s", pO->zPath,
                         docextTypeAlias(x.type));
    }
    if( j>0 ){
      if( (x.type==DOC_DATE)!=(xType==DOC_DATE) ){
        return docextError(pzErr, "docext: output field '%s': $linearFill's sortBy values "
                           "mix dates and numbers", pO->zPath);
      }
      valsGetOrNull(&pP->x, j-1, &xPrev);
      if( docextValueCompare(&x, &xPrev)==0 ){
        return docextError(pzErr, "docext: output field '%s': $linearFill needs sortBy "
                           "values that do not repeat", pO->zPath);
      }
    }
    xType = x.type;
  }
  for(j=0; rc==SQLITE_OK && j<pP->n; j++){
    DocValue y;
    valsGet(pIn, j, &y);
    if( !isNullish(&y) ){
      iPrev = j;
      valsPut(&rc, pRes, j, &y);
      continue;
    }
    if( iNext<=j ){
      for(iNext=j+1; iNext<pP->n; iNext++){
        valsGet(pIn, iNext, &y);
        if( !isNullish(&y) ) break;
      }
    }
    if( iPrev<0 || iNext>=pP->n ){
      valsPut(&rc, pRes, j, &nullValue);
    }else{
      /* y1 + (x - x1) * ((y2 - y1) / (x2 - x1)), as MongoDB computes it */
      DocValue v;
      DocNum x, x1, x2, y1, y2, a, b;
      valsGet(pIn, iPrev, &v);          numOf(&v, &y1);
      valsGet(pIn, iNext, &v);          numOf(&v, &y2);
      valsGetOrNull(&pP->x, j, &v);     numOf(&v, &x);
      valsGetOrNull(&pP->x, iPrev, &v); numOf(&v, &x1);
      valsGetOrNull(&pP->x, iNext, &v); numOf(&v, &x2);
      rc = docextNumOp('-', &y2, &y1, &a);
      if( rc==SQLITE_OK ) rc = docextNumOp('-', &x2, &x1, &b);
      if( rc==SQLITE_OK ) rc = docextNumOp('/', &a, &b, &a);
      if( rc==SQLITE_OK ) rc = docextNumOp('-', &x, &x1, &b);
      if( rc==SQLITE_OK ) rc = docextNumOp('*', &b, &a, &a);
      if( rc==SQLITE_OK ) rc = docextNumOp('+', &y1, &a, &a);
      if( rc==SQLITE_OK ) putNum(&rc, pRes, j, &a);
    }
  }
  return rc;
}

/* $derivative: the rise over the run between the ends of the window,
** (y1 - y0) / ((x1 - x0) / unit) as MongoDB computes it; null where the
** run is zero. */
static int runDerivative(WinPart *pP, const WinOut *pO, const WinVals *pIn, WinVals *pRes,
                         char **pzErr){
  int rc = SQLITE_OK, j;
  pP->hintLo = pP->hintHi = -1;
  for(j=0; rc==SQLITE_OK && j<pP->n; j++){
    int lo, hi, bHas, k;
    DocNum x[2], y[2], rise, run;
    rc = windowOf(pP, pO, j, &lo, &hi, &bHas, pzErr);
    if( rc ) break;
    if( !bHas ){
      valsPut(&rc, pRes, j, &nullValue);
      continue;
    }
    for(k=0; rc==SQLITE_OK && k<2; k++){
      DocValue v;
      double d;
      int i = k ? hi : lo;
      rc = xNumber(pP, pO, i, &d, pzErr);           /* (checks it) */
      valsGet(pIn, i, &v);
      if( rc==SQLITE_OK && !docextValueIsNumber(&v) ){
        rc = docextError(pzErr, "docext: output field '%s': $derivative's input must be "
                         "a number, not %s", pO->zPath,
                         v.type ? docextTypeAlias(v.type) : "missing");
      }
      numOf(&v, &y[k]);
      valsGetOrNull(&pP->x, i, &v);
      numOf(&v, &x[k]);
    }
    if( rc==SQLITE_OK ) rc = docextNumOp('-', &y[1], &y[0], &rise);
    if( rc==SQLITE_OK ) rc = docextNumOp('-', &x[1], &x[0], &run);
    if( rc==SQLITE_OK && pO->nUnitMs ){
      DocNum unit;
      memset(&unit, 0, sizeof(unit));
      unit.type = DOC_INT64;
      unit.i = pO->nUnitMs;
      rc = docextNumOp('/', &run, &unit, &run);
    }
    if( rc ) break;
    if( docextNumIsZero(&run) ){
      valsPut(&rc, pRes, j, &nullValue);
    }else{
      rc = docextNumOp('/', &rise, &run, &rise);
      if( rc==SQLITE_OK ) putNum(&rc, pRes, j, &rise);
    }
  }
  return rc;
}

/* $expMovingAvg: each number moves the average alpha of the way to it;
** other values leave it (null before the first number). As MongoDB's
** accumulator, in decimal128 whatever the input (a double rounded to 15
** digits), giving a double until a decimal128 has come in. */
static int runEma(WinPart *pP, const WinOut *pO, const WinVals *pIn, WinVals *pRes){
  int rc = SQLITE_OK, j, bHas = 0, bDec = 0;
  DocNum avg, rest, one;
  memset(&avg, 0, sizeof(avg));
  one = pO->alpha;
  docextDec128FromInt64(1, one.aDec);
  rc = docextNumOp('-', &one, &pO->alpha, &rest);
  for(j=0; rc==SQLITE_OK && j<pP->n; j++){
    DocValue v;
    valsGet(pIn, j, &v);
    if( docextValueIsNumber(&v) ){
      DocNum x, a;
      numDecimal(&v, &x);
      if( v.type==DOC_DECIMAL128 ) bDec = 1;
      if( !bHas ){
        avg = x;
      }else{
        rc = docextNumOp('*', &x, &pO->alpha, &a);
        if( rc==SQLITE_OK ) rc = docextNumOp('*', &avg, &rest, &avg);
        if( rc==SQLITE_OK ) rc = docextNumOp('+', &a, &avg, &avg);
      }
      bHas = 1;
    }
    if( !bHas ) valsPut(&rc, pRes, j, &nullValue);
    else if( bDec ) putNum(&rc, pRes, j, &avg);
    else putDouble(&rc, pRes, j, docextNumDouble(&avg));
  }
  return rc;
}

/* The values of output field pO for every document of the partition. */
static int runOutput(WinPart *pP, const WinOut *pO, WinVals *pRes, char **pzErr){
  WinVals in;
  int rc = valsInit(pRes, pP->n);
  memset(&in, 0, sizeof(in));
  if( rc==SQLITE_OK && pO->pInput && pO->eFn!=WF_SHIFT ){
    rc = valsEval(pP, pO->pInput, &in, pzErr);
  }
  if( rc ){
    valsFree(&in);
    return rc;
  }
  switch( pO->eFn ){
    case WF_ACC: case WF_COVAR: case WF_INTEGRAL:
      rc = runWindowed(pP, pO, &in, pRes, pzErr);
      break;
    case WF_RANK: case WF_DENSE_RANK: case WF_DOC_NUMBER:
      rc = runRank(pP, pO, pRes);
      break;
    case WF_SHIFT:       rc = runShift(pP, pO, pRes, pzErr); break;
    case WF_LOCF:        rc = runLocf(pP, &in, pRes); break;
    case WF_LINEAR_FILL: rc = runLinearFill(pP, pO, &in, pRes, pzErr); break;
    case WF_DERIVATIVE:  rc = runDerivative(pP, pO, &in, pRes, pzErr); break;
    case WF_EMA:         rc = runEma(pP, pO, &in, pRes); break;
  }
  valsFree(&in);
  return rc;
}

/* Compute one partition and hand its documents, with their output fields,
** to xOut. */
static int runPartition(WinPart *pP, int (*xOut)(void*, const u8*, i64), void *pCtx,
                        char **pzErr){
  DocWindow *p = pP->pW;
  WinVals *aRes = docextMallocZero(sizeof(WinVals)*(p->nOut>0 ? p->nOut : 1));
  DocBuf a, b;
  int rc = aRes ? SQLITE_OK : SQLITE_NOMEM, i, j;
  memset(&a, 0, sizeof(a));
  memset(&b, 0, sizeof(b));
  if( rc==SQLITE_OK && p->bSortValues ) rc = valsEval(pP, p->pSortValue, &pP->x, pzErr);
  for(i=0; rc==SQLITE_OK && i<p->nOut; i++) rc = runOutput(pP, &p->aOut[i], &aRes[i], pzErr);
  for(j=0; rc==SQLITE_OK && j<pP->n; j++){
    const u8 *aDoc = pP->aDoc[j];
    for(i=0; rc==SQLITE_OK && i<p->nOut; i++){
      DocBuf t;
      DocValue v;
      valsGet(&aRes[i], j, &v);
      docextBufReset(&b);
      docextBsonSetPath(&rc, &b, aDoc, p->aOut[i].zPath, v.type ? &v : 0);
      t = a; a = b; b = t;                    /* (a now holds the document) */
      aDoc = a.a;
    }
    if( rc==SQLITE_OK ) rc = xOut(pCtx, aDoc, docextGetI32(aDoc));
  }
  for(i=0; aRes && i<p->nOut; i++) valsFree(&aRes[i]);
  sqlite3_free(aRes);
  valsFree(&pP->x);
  docextBufFree(&a);
  docextBufFree(&b);
  return rc;
}

/* The order of the documents: by partition, then sortBy (stably). */
static int windowOrder(DocWindow *p, int nDoc, const u8 *const *aDoc, DocKeyItem *aItem,
                       int *anPart, DocBuf *pKeys, DocBuf *pTmp, char **pzErr){
  int rc = SQLITE_OK, i;
  for(i=0; rc==SQLITE_OK && i<nDoc; i++){
    aItem[i].iKey = pKeys->n;
    aItem[i].iItem = i;
    if( p->pPartition ){
      DocValue v;
      rc = docextExprValue(p->pPartition, aDoc[i], pTmp, &v, pzErr);
      if( rc ) break;
      if( v.type==DOC_ARRAY ){
        return docextError(pzErr, "docext: a partitionBy value cannot be an array");
      }
      docextKeyAppendColl(&rc, pKeys, v.type ? &v : &nullValue, 0, p->pCollator);
    }
    anPart[i] = (int)(pKeys->n - aItem[i].iKey);
    if( rc==SQLITE_OK && p->pSort ) rc = docextSortKey(p->pSort, aDoc[i], pKeys, pzErr);
    aItem[i].nKey = (int)(pKeys->n - aItem[i].iKey);
  }
  if( rc==SQLITE_OK && (p->pPartition || p->pSort) ){
    rc = docextSortByKey(aItem, nDoc, pKeys->a);
  }
  return rc;
}

int docextWindowRun(DocWindow *p, int nDoc, const u8 *const *aDoc,
                    int (*xOut)(void*, const u8*, i64), void *pCtx, char **pzErr){
  DocKeyItem *aItem = sqlite3_malloc64(sizeof(DocKeyItem)*(nDoc>0 ? nDoc : 1));
  int *anPart = sqlite3_malloc64(sizeof(int)*(nDoc>0 ? nDoc : 1));
  const u8 **aOrd = sqlite3_malloc64(sizeof(u8*)*(nDoc>0 ? nDoc : 1));
  DocBuf keys;
  WinPart part;
  int rc = aItem && anPart && aOrd ? SQLITE_OK : SQLITE_NOMEM, i, iStart;
  memset(&keys, 0, sizeof(keys));
  memset(&part, 0, sizeof(part));
  if( rc==SQLITE_OK ) rc = windowOrder(p, nDoc, aDoc, aItem, anPart, &keys, &part.tmp, pzErr);
  for(i=0; rc==SQLITE_OK && i<nDoc; i++) aOrd[i] = aDoc[aItem[i].iItem];
  for(iStart=0; rc==SQLITE_OK && iStart<nDoc; iStart=i){
    const DocKeyItem *pFirst = &aItem[iStart];
    int nPart = anPart[pFirst->iItem];
    for(i=iStart+1; i<nDoc; i++){
      const DocKeyItem *pI = &aItem[i];
      if( anPart[pI->iItem]!=nPart
       || (nPart>0 && memcmp(keys.a + pI->iKey, keys.a + pFirst->iKey, nPart)!=0) ) break;
    }
    part.pW = p;
    part.aDoc = &aOrd[iStart];
    part.aItem = pFirst;
    part.aKeys = keys.a;
    part.n = i - iStart;
    rc = runPartition(&part, xOut, pCtx, pzErr);
  }
  docextBufFree(&part.tmp);
  docextBufFree(&keys);
  sqlite3_free(aItem);
  sqlite3_free(anPart);
  sqlite3_free(aOrd);
  return rc;
}
