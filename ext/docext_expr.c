/*
** docext_expr.c — aggregation expressions, for the $expr query operator.
**
** {$expr: <expression>} matches a document when the expression's value is
** true by MongoDB's rules (docextValueTruth). docextExprNew() compiles the
** expression once into a tree of ExprNode; docextExprTruth() evaluates the
** tree against one document.
**
** VALUES. Evaluation yields DocValues. Type 0 is "missing" (a field path
** that reaches nothing), which aggregation keeps apart from null: it sorts
** below null and equals only missing and undefined. A value points into the
** document, into the expression, or into a block of the evaluation's arena;
** blocks never move, so a value stays valid while others are made, and all
** of them go when the evaluation ends.
**
** FIELD PATHS read as aggregation reads them, not as the query matcher
** does: a component applied to an array applies to each of its elements
** (an array inside the array gives a nested array of what its elements
** give), and a numeric component is a field name, never an array index.
**
** VARIABLES. $let and the query's let option bind names to slots at
** compile time (the innermost binding wins); "$$name" reads its slot. A
** query's let is an EX_LET around the whole expression whose values are
** evaluated with an empty document, as MongoDB evaluates them before any.
**
** "$$NOW" is the date and time the expression was compiled at (the caller
** says when: a filter's or a pipeline's every expression gets one time),
** by docext's clock, so doc_config('clock', …) freezes it.
**
** WHAT IS SUPPORTED: literals, "$field.path", "$$ROOT", "$$CURRENT" (and
** paths under them), "$$REMOVE", "$$NOW", "$$variable", {$literal: v}, documents and
** arrays of expressions, $let, $cond, $switch, $setField and the operators
** in aOp[] below. Any other operator is an error that names it.
*/
#include "docextInt.h"
#include <math.h>

typedef struct ExprNode ExprNode;
typedef struct ExprParse ExprParse;
typedef struct ExprCtx ExprCtx;
typedef struct ExprBlock ExprBlock;

/* Node kinds. */
enum {
  EX_CONST = 1, EX_PATH, EX_OBJECT, EX_ARRAY, EX_NOW,
  EX_EQ, EX_NE, EX_GT, EX_GTE, EX_LT, EX_LTE, EX_CMP,
  EX_AND, EX_OR, EX_NOT,
  EX_COND, EX_IFNULL, EX_SWITCH,
  EX_ADD, EX_SUBTRACT, EX_MULTIPLY, EX_DIVIDE, EX_MOD,
  EX_ABS, EX_CEIL, EX_FLOOR, EX_TRUNC,
  EX_SIZE, EX_IN, EX_ARRAYELEMAT, EX_ISARRAY,
  EX_CONCAT, EX_STRLENBYTES, EX_STRLENCP, EX_TYPE,
  EX_VAR, EX_LET, EX_SETFIELD, EX_MERGEOBJECTS,
  EX_MAP, EX_FILTER, EX_REDUCE,
  EX_CONCATARRAYS, EX_REVERSEARRAY, EX_FIRST, EX_LAST, EX_SLICE,
  EX_SUM, EX_AVG, EX_MIN, EX_MAX, EX_STDDEVPOP, EX_STDDEVSAMP, EX_MEDIAN, EX_PERCENTILE,
  EX_TOLOWER, EX_TOUPPER, EX_SUBSTRCP,
  EX_POW, EX_SQRT, EX_EXP, EX_LN, EX_LOG, EX_LOG10, EX_ROUND,
  EX_SETUNION, EX_SETINTERSECTION, EX_SETDIFFERENCE, EX_SETEQUALS, EX_SETISSUBSET,
  EX_ANYTRUE, EX_ALLTRUE,
  EX_DATEPART, EX_DATETOSTRING, EX_CONVERT, EX_ISNUMBER,
  EX_TRIM, EX_SPLIT, EX_INDEXOFBYTES, EX_INDEXOFCP, EX_STRCASECMP,
  EX_REPLACEONE, EX_REPLACEALL, EX_SUBSTRBYTES,
  EX_INDEXOFARRAY, EX_RANGE, EX_OBJECTTOARRAY, EX_ARRAYTOOBJECT,
  EX_DATEADD, EX_DATESUBTRACT, EX_DATEDIFF, EX_DATETRUNC, EX_DATEFROMPARTS,
  EX_DATETOPARTS, EX_DATEFROMSTRING,
  EX_REGEXMATCH, EX_REGEXFIND, EX_REGEXFINDALL, EX_TRIG, EX_ATAN2, EX_DEG2RAD, EX_RAD2DEG,
  EX_BITAND, EX_BITOR, EX_BITXOR, EX_BITNOT, EX_ZIP, EX_SORTARRAY,
  EX_FIRSTN, EX_LASTN, EX_MAXN, EX_MINN, EX_GETFIELD, EX_BSONSIZE, EX_BINARYSIZE,
  EX_TSSECOND, EX_TSINCREMENT, EX_RAND, EX_META
};

/* The operators written {$op: [args]} (or {$op: arg} for one argument),
** with how many arguments each takes (nMax -1: any number). $cond and
** $switch also have a document form, read by their own parsers. */
static const struct ExprOp {
  const char *zName;
  u8 eOp;
  signed char nMin, nMax;
} aOp[] = {
  {"$eq", EX_EQ, 2, 2},        {"$ne", EX_NE, 2, 2},
  {"$gt", EX_GT, 2, 2},        {"$gte", EX_GTE, 2, 2},
  {"$lt", EX_LT, 2, 2},        {"$lte", EX_LTE, 2, 2},
  {"$cmp", EX_CMP, 2, 2},
  {"$and", EX_AND, 0, -1},     {"$or", EX_OR, 0, -1},
  {"$not", EX_NOT, 1, 1},
  {"$cond", EX_COND, 3, 3},    {"$ifNull", EX_IFNULL, 2, -1},
  {"$add", EX_ADD, 0, -1},     {"$subtract", EX_SUBTRACT, 2, 2},
  {"$multiply", EX_MULTIPLY, 0, -1},
  {"$divide", EX_DIVIDE, 2, 2}, {"$mod", EX_MOD, 2, 2},
  {"$abs", EX_ABS, 1, 1},      {"$ceil", EX_CEIL, 1, 1},
  {"$floor", EX_FLOOR, 1, 1},  {"$trunc", EX_TRUNC, 1, 2},
  {"$size", EX_SIZE, 1, 1},    {"$in", EX_IN, 2, 2},
  {"$arrayElemAt", EX_ARRAYELEMAT, 2, 2},
  {"$isArray", EX_ISARRAY, 1, 1},
  {"$concat", EX_CONCAT, 0, -1},
  {"$strLenBytes", EX_STRLENBYTES, 1, 1},
  {"$strLenCP", EX_STRLENCP, 1, 1},
  {"$type", EX_TYPE, 1, 1},
  {"$mergeObjects", EX_MERGEOBJECTS, 0, -1},
  {"$concatArrays", EX_CONCATARRAYS, 0, -1},
  {"$reverseArray", EX_REVERSEARRAY, 1, 1},
  {"$first", EX_FIRST, 1, 1},  {"$last", EX_LAST, 1, 1},
  {"$slice", EX_SLICE, 2, 3},
  {"$sum", EX_SUM, 0, -1},     {"$avg", EX_AVG, 0, -1},
  {"$min", EX_MIN, 0, -1},     {"$max", EX_MAX, 0, -1},
  {"$stdDevPop", EX_STDDEVPOP, 0, -1}, {"$stdDevSamp", EX_STDDEVSAMP, 0, -1},
  {"$toLower", EX_TOLOWER, 1, 1}, {"$toUpper", EX_TOUPPER, 1, 1},
  {"$substrCP", EX_SUBSTRCP, 3, 3},
  {"$pow", EX_POW, 2, 2},      {"$sqrt", EX_SQRT, 1, 1},
  {"$exp", EX_EXP, 1, 1},      {"$ln", EX_LN, 1, 1},
  {"$log", EX_LOG, 2, 2},      {"$log10", EX_LOG10, 1, 1},
  {"$round", EX_ROUND, 1, 2},
  {"$setUnion", EX_SETUNION, 1, -1},
  {"$setIntersection", EX_SETINTERSECTION, 1, -1},
  {"$setDifference", EX_SETDIFFERENCE, 2, 2},
  {"$setEquals", EX_SETEQUALS, 2, -1},
  {"$setIsSubset", EX_SETISSUBSET, 2, 2},
  {"$anyElementTrue", EX_ANYTRUE, 1, 1},
  {"$allElementsTrue", EX_ALLTRUE, 1, 1},
  {"$isNumber", EX_ISNUMBER, 1, 1},
  {"$split", EX_SPLIT, 2, 2},
  {"$indexOfBytes", EX_INDEXOFBYTES, 2, 4},
  {"$indexOfCP", EX_INDEXOFCP, 2, 4},
  {"$strcasecmp", EX_STRCASECMP, 2, 2},
  {"$substrBytes", EX_SUBSTRBYTES, 3, 3},
  {"$substr", EX_SUBSTRBYTES, 3, 3},
  {"$indexOfArray", EX_INDEXOFARRAY, 2, 4},
  {"$range", EX_RANGE, 2, 3},
  {"$objectToArray", EX_OBJECTTOARRAY, 1, 1},
  {"$arrayToObject", EX_ARRAYTOOBJECT, 1, 1},
  {"$atan2", EX_ATAN2, 2, 2},
  {"$degreesToRadians", EX_DEG2RAD, 1, 1}, {"$radiansToDegrees", EX_RAD2DEG, 1, 1},
  {"$bitAnd", EX_BITAND, 0, -1}, {"$bitOr", EX_BITOR, 0, -1}, {"$bitXor", EX_BITXOR, 0, -1},
  {"$bitNot", EX_BITNOT, 1, 1},
  {"$bsonSize", EX_BSONSIZE, 1, 1}, {"$binarySize", EX_BINARYSIZE, 1, 1},
  {"$tsSecond", EX_TSSECOND, 1, 1}, {"$tsIncrement", EX_TSINCREMENT, 1, 1},
};

/* Operators of one kind that differ by ExprNode.eSub: the date parts, each
** of a date or {date, timezone}, the conversions $toX of one value, and the
** trigonometric functions (eSub: their place in aExprTrig). */
static const struct ExprSubOp {
  const char *zName;
  u8 eOp, eSub;
} aSubOp[] = {
  {"$year", EX_DATEPART, 1},        {"$month", EX_DATEPART, 2},
  {"$dayOfMonth", EX_DATEPART, 3},  {"$hour", EX_DATEPART, 4},
  {"$minute", EX_DATEPART, 5},      {"$second", EX_DATEPART, 6},
  {"$millisecond", EX_DATEPART, 7}, {"$dayOfWeek", EX_DATEPART, 8},
  {"$dayOfYear", EX_DATEPART, 9},   {"$week", EX_DATEPART, 10},
  {"$isoWeek", EX_DATEPART, 11},    {"$isoWeekYear", EX_DATEPART, 12},
  {"$isoDayOfWeek", EX_DATEPART, 13},
  {"$toDouble", EX_CONVERT, DOC_DOUBLE},   {"$toString", EX_CONVERT, DOC_STRING},
  {"$toObjectId", EX_CONVERT, DOC_OID},    {"$toBool", EX_CONVERT, DOC_BOOL},
  {"$toDate", EX_CONVERT, DOC_DATE},       {"$toInt", EX_CONVERT, DOC_INT32},
  {"$toLong", EX_CONVERT, DOC_INT64},      {"$toDecimal", EX_CONVERT, DOC_DECIMAL128},
  {"$sin", EX_TRIG, 0},   {"$cos", EX_TRIG, 1},   {"$tan", EX_TRIG, 2},
  {"$asin", EX_TRIG, 3},  {"$acos", EX_TRIG, 4},  {"$atan", EX_TRIG, 5},
  {"$sinh", EX_TRIG, 6},  {"$cosh", EX_TRIG, 7},  {"$tanh", EX_TRIG, 8},
  {"$asinh", EX_TRIG, 9}, {"$acosh", EX_TRIG, 10}, {"$atanh", EX_TRIG, 11},
};

struct ExprNode {
  u8 eOp;                 /* EX_* */
  u8 eSub;                /* EX_DATEPART: DP_*; EX_CONVERT: the target type
                          ** (0 for $convert, whose "to" says) */
  u8 mArg;                /* operators of named parameters: bit i set when
                          ** parameter i was given (absent ones are
                          ** missing constants) */
  DocRegex *pRe;          /* $regex*: the regex, when it is a constant */
  const DocTz *pTz;       /* EX_CONST as a date operator's timezone: the
                          ** zone of the database it names (exprParseZone) */
  u8 bDefault;            /* EX_SWITCH: the last argument is the default */
  u8 bNoDoc;              /* EX_LET: the variables see no document (a
                          ** query's let, evaluated before any document) */
  int iSlot;              /* EX_VAR: its slot; EX_LET: the first of the
                          ** slots of its nArg-1 variables */
  const char *zOp;        /* the operator's name, for messages */
  DocValue v;             /* EX_CONST: the value; EX_OBJECT: the document
                          ** written (its keys name the fields) */
  const char *zPath;      /* EX_PATH, EX_VAR: the path below the root or
                          ** the variable ("" for none) */
  int nPath;
  ExprNode **apArg;       /* arguments, or EX_OBJECT/EX_ARRAY members */
  int nArg;
};

struct DocExpr {
  ExprNode *pRoot;
  int nSlot;              /* variables ($let, the query's let) */
  char *zWhere;           /* where it stands, for messages (in this
                          ** allocation): "$expr", "$set 'a.b'" */
  i64 nowMs;              /* $$NOW */
  const DocCollator *pCollator;  /* how strings compare (borrowed), or NULL */
};

/* A variable in scope while parsing: $$zName reads slot iSlot. */
typedef struct ExprVar ExprVar;
struct ExprVar {
  const char *zName;
  int nName;
  int iSlot;
};

struct ExprParse {
  int rc;
  char *zErr;
  ExprVar *aVar;          /* in scope, innermost last */
  int nVar, nVarAlloc;
  int nSlot;              /* slots allocated so far */
};

/* A block of the evaluation arena. */
struct ExprBlock {
  ExprBlock *pNext;
  i64 nUsed, nAlloc;
  u8 a[];
};

/* Evaluation state: the document, the arena, a sticky error. */
struct ExprCtx {
  DocValue root;          /* the document, as a value */
  DocValue *aSlot;        /* variables' values */
  ExprBlock *pBlock;      /* newest block first */
  i64 nArena;             /* bytes taken from the arena so far */
  i64 nowMs;              /* $$NOW */
  const DocCollator *pCollator;  /* the expression's collation, or NULL */
  int rc;
  char *zErr;
};

static const u8 aExprTrue[1] = {1};
static const u8 aExprFalse[1] = {0};

/*------------------------------------------------------------------------
** Compiling
*/

static int exprNullish(const DocValue *v){
  return v->type==0 || v->type==DOC_NULL || v->type==DOC_UNDEFINED;
}

/* "missing" for type 0, else the $type alias. */
static const char *exprTypeName(const DocValue *v){
  return v->type==0 ? "missing" : docextTypeAlias(v->type);
}

static void exprParseError(ExprParse *pP, const char *zFmt, ...){
  if( pP->rc==SQLITE_OK ){
    va_list ap;
    va_start(ap, zFmt);
    pP->rc = docextErrorV(&pP->zErr, zFmt, ap);
    va_end(ap);
  }
}

static void exprNodeFree(ExprNode *p){
  if( p ){
    int i;
    for(i=0; i<p->nArg; i++) exprNodeFree(p->apArg[i]);
    sqlite3_free(p->apArg);
    docextRegexFree(p->pRe);
    sqlite3_free(p);
  }
}

static ExprNode *exprNodeNew(ExprParse *pP, int eOp, int nArg){
  ExprNode *p;
  if( pP->rc ) return 0;
  p = docextMallocZero(sizeof(*p));
  if( p && nArg>0 ){
    p->apArg = docextMallocZero((i64)nArg*sizeof(ExprNode*));
    if( p->apArg==0 ){
      sqlite3_free(p);
      p = 0;
    }
  }
  if( p==0 ){
    pP->rc = SQLITE_NOMEM;
    return 0;
  }
  p->eOp = (u8)eOp;
  return p;
}

static ExprNode *exprParse(ExprParse *pP, const DocValue *v);

/* Parse v as p's next argument (p->apArg has room). */
static void exprAddArg(ExprParse *pP, ExprNode *p, const DocValue *v){
  p->apArg[p->nArg] = exprParse(pP, v);
  if( p->apArg[p->nArg] ) p->nArg++;
}

/* p, or 0 (and p freed) when parsing it failed. */
static ExprNode *exprDone(ExprParse *pP, ExprNode *p){
  if( pP->rc ){
    exprNodeFree(p);
    return 0;
  }
  return p;
}


/* Parse the members of v (an array or document) into p->apArg. */
static void exprParseMembers(ExprParse *pP, ExprNode *p, const DocValue *v){
  DocIter it;
  docextIterInitValue(&it, v);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    exprAddArg(pP, p, &it.v);
  }
}

/* A field path or variable: the text after the first '$'. */
static ExprNode *exprParsePath(ExprParse *pP, const char *z, int n){
  ExprNode *p;
  int i, iStart, iSlot = -1;
  if( n>0 && z[0]=='$' ){
    /* $$ROOT, $$CURRENT (the same, outside $map and $filter), $$REMOVE,
    ** $$KEEP, $$PRUNE and $$DESCEND, and the variables of $let and of the
    ** query's let */
    int nVar = 1;
    while( nVar<n && z[nVar]!='.' ) nVar++;
    if( nVar==7 && memcmp(z, "$REMOVE", 7)==0 && n==7 ){
      return exprNodeNew(pP, EX_CONST, 0);         /* v.type 0: missing */
    }
    if( n==nVar && ((nVar==5 && memcmp(z, "$KEEP", 5)==0) || (nVar==6 && memcmp(z, "$PRUNE", 6)==0)
                  || (nVar==8 && memcmp(z, "$DESCEND", 8)==0)) ){
      /* $redact's answers: the strings MongoDB gives them ("keep", …) */
      static const u8 aKeep[] = {5, 0, 0, 0, 'k', 'e', 'e', 'p', 0};
      static const u8 aPrune[] = {6, 0, 0, 0, 'p', 'r', 'u', 'n', 'e', 0};
      static const u8 aDescend[] = {8, 0, 0, 0, 'd', 'e', 's', 'c', 'e', 'n', 'd', 0};
      p = exprNodeNew(pP, EX_CONST, 0);
      if( p ){
        p->v.type = DOC_STRING;
        p->v.p = nVar==5 ? aKeep : nVar==6 ? aPrune : aDescend;
        p->v.n = nVar==5 ? (int)sizeof(aKeep) : nVar==6 ? (int)sizeof(aPrune) : (int)sizeof(aDescend);
      }
      return p;
    }
    if( nVar==4 && memcmp(z, "$NOW", 4)==0 ){
      /* (a path below a date reaches nothing) */
      return exprNodeNew(pP, n==4 ? EX_NOW : EX_CONST, 0);
    }
    if( nVar==13 && memcmp(z, "$CLUSTER_TIME", 13)==0 ){
      exprParseError(pP, "$$CLUSTER_TIME is not available: docext is not a replica set");
      return 0;
    }
    if( !(nVar==5 && memcmp(z, "$ROOT", 5)==0) && !(nVar==8 && memcmp(z, "$CURRENT", 8)==0) ){
      for(i=pP->nVar-1; i>=0; i--){
        ExprVar *pV = &pP->aVar[i];
        if( pV->nName==nVar-1 && memcmp(pV->zName, z+1, nVar-1)==0 ) break;
      }
      if( i<0 ){
        exprParseError(pP, "use of undefined variable: %.*s", nVar-1, z+1);
        return 0;
      }
      iSlot = pP->aVar[i].iSlot;
    }
    z += nVar;
    n -= nVar;
    if( n>0 ){ z++; n--; }                        /* the '.' */
    else z = "";
  }else if( n==0 ){
    exprParseError(pP, "'$' by itself is not a valid field path");
    return 0;
  }
  for(i=iStart=0; i<=n; i++){
    if( i==n || z[i]=='.' ){
      if( i==iStart && !(n==0 && i==0) ){
        exprParseError(pP, "empty field name in path '$%.*s'", n, z);
        return 0;
      }
      if( i>iStart && z[iStart]=='$' ){
        exprParseError(pP, "field name may not start with '$' in path '$%.*s'", n, z);
        return 0;
      }
      iStart = i+1;
    }
  }
  p = exprNodeNew(pP, iSlot>=0 ? EX_VAR : EX_PATH, 0);
  if( p ){
    p->iSlot = iSlot;
    p->zPath = z;
    p->nPath = n;
  }
  return p;
}

/* {$cond: {if, then, else}}: the three as arguments, in that order. */
static ExprNode *exprParseCondDoc(ExprParse *pP, const DocValue *v){
  static const char *azPart[] = {"if", "then", "else"};
  ExprNode *p = exprNodeNew(pP, EX_COND, 3);
  DocIter it;
  int i;
  if( p==0 ) return 0;
  p->zOp = "$cond";
  p->nArg = 3;
  docextIterInitValue(&it, v);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    for(i=0; i<3 && !docextIterKeyIs(&it, azPart[i]); i++){}
    if( i==3 ){
      exprParseError(pP, "unrecognized parameter to $cond: %s", it.zKey);
    }else if( p->apArg[i]==0 ){
      p->apArg[i] = exprParse(pP, &it.v);
    }
  }
  for(i=0; i<3 && pP->rc==SQLITE_OK; i++){
    if( p->apArg[i]==0 ) exprParseError(pP, "missing '%s' parameter to $cond", azPart[i]);
  }
  return exprDone(pP, p);
}

/* {$switch: {branches: [{case, then}, ...], default}}: arguments case,
** then, case, then, ..., and the default last (bDefault). */
static ExprNode *exprParseSwitch(ExprParse *pP, const DocValue *v){
  DocValue branches, dflt;
  DocIter it, br;
  ExprNode *p;
  int nBranch = 0;
  memset(&branches, 0, sizeof(branches));
  memset(&dflt, 0, sizeof(dflt));
  if( v->type!=DOC_DOCUMENT ){
    exprParseError(pP, "$switch needs a document");
    return 0;
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( docextIterKeyIs(&it, "branches") ) branches = it.v;
    else if( docextIterKeyIs(&it, "default") ) dflt = it.v;
    else{
      exprParseError(pP, "$switch found an unknown argument: %s", it.zKey);
      return 0;
    }
  }
  if( branches.type!=DOC_ARRAY ){
    exprParseError(pP, "$switch needs a 'branches' array");
    return 0;
  }
  nBranch = docextIterCount(&branches);
  if( nBranch==0 ){
    exprParseError(pP, "$switch needs at least one branch");
    return 0;
  }
  p = exprNodeNew(pP, EX_SWITCH, nBranch*2 + 1);
  if( p==0 ) return 0;
  p->zOp = "$switch";
  docextIterInitValue(&br, &branches);
  while( pP->rc==SQLITE_OK && docextIterNext(&br) ){
    DocValue vCase, vThen;
    if( br.v.type!=DOC_DOCUMENT || docextIterCount(&br.v)!=2
     || !docextBsonFind(br.v.p, "case", 4, &vCase) || !docextBsonFind(br.v.p, "then", 4, &vThen) ){
      exprParseError(pP, "each $switch branch must be a document "
                         "{case: …, then: …}");
      break;
    }
    exprAddArg(pP, p, &vCase);
    exprAddArg(pP, p, &vThen);
  }
  if( pP->rc==SQLITE_OK && dflt.type!=0 ){
    exprAddArg(pP, p, &dflt);
    p->bDefault = 1;
  }
  return exprDone(pP, p);
}

/* Is z[0..n) a name a user variable may have? As MongoDB: it starts with
** a lower-case letter or a byte >= 0x80, then letters, digits, '_' or
** bytes >= 0x80. */
int docextExprVarNameOk(const char *z, int n){
  int i;
  if( n==0 || !((z[0]>='a' && z[0]<='z') || (u8)z[0]>=0x80) ) return 0;
  for(i=1; i<n; i++){
    u8 c = (u8)z[i];
    if( !((c>='a' && c<='z') || (c>='A' && c<='Z') || (c>='0' && c<='9') || c=='_' || c>=0x80) ){
      return 0;
    }
  }
  return 1;
}

/* Bring variable $$z[0..n) into scope, reading slot iSlot (until the
** caller puts pP->nVar back). */
static void exprBind(ExprParse *pP, const char *z, int n, int iSlot){
  pP->aVar = docextArrayGrow(&pP->rc, pP->aVar, pP->nVar, &pP->nVarAlloc, sizeof(ExprVar));
  if( pP->rc ) return;
  pP->aVar[pP->nVar].zName = z;
  pP->aVar[pP->nVar].nName = n;
  pP->aVar[pP->nVar].iSlot = iSlot;
  pP->nVar++;
}

/* Does the parsed expression read the document: a field path, $$ROOT,
** $$CURRENT, or a $getField with no input (which reads $$CURRENT)? */
static int exprReadsDoc(const ExprNode *p){
  int i;
  if( p->eOp==EX_PATH || p->eOp==EX_META || (p->eOp==EX_GETFIELD && p->nArg==0) ) return 1;
  for(i=0; i<p->nArg; i++){
    if( p->apArg[i] && exprReadsDoc(p->apArg[i]) ) return 1;
  }
  return 0;
}

/* Variables (the fields of pVars) and then the expression pIn, parsed
** with the variables in scope for pIn only: an EX_LET node. bNoDoc: the
** variables' expressions see no document (a query's let), so one that
** reads a field is an error, as in MongoDB. */
static ExprNode *exprParseLet(ExprParse *pP, const DocValue *pVars, const DocValue *pIn,
                              int bNoDoc){
  int nVars = docextIterCount(pVars), nVarSaved = pP->nVar, i = 0;
  ExprNode *p = exprNodeNew(pP, EX_LET, nVars+1);
  DocIter it;
  if( p==0 ) return 0;
  p->bNoDoc = (u8)bNoDoc;
  p->iSlot = pP->nSlot;
  pP->nSlot += nVars;
  /* the values first, each in the scope outside this $let */
  docextIterInitValue(&it, pVars);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    if( !docextExprVarNameOk(it.zKey, it.nKey) ){
      exprParseError(pP, "'%s' is not a valid variable name "
                         "(a lower-case letter first, then letters, digits or _)", it.zKey);
      break;
    }
    exprAddArg(pP, p, &it.v);
    if( bNoDoc && pP->rc==SQLITE_OK && exprReadsDoc(p->apArg[p->nArg-1]) ){
      exprParseError(pP, "let: the value of '%s' reads a field, but a command's let "
                         "is evaluated before any document", it.zKey);
    }
  }
  /* then the names, for pIn */
  docextIterInitValue(&it, pVars);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    exprBind(pP, it.zKey, it.nKey, p->iSlot + i++);
  }
  if( pP->rc==SQLITE_OK ){
    exprAddArg(pP, p, pIn);
  }
  pP->nVar = nVarSaved;
  return exprDone(pP, p);
}

/* The field name of $setField, $unsetField and $getField: a constant
** string, or a {$literal: string}, into *pField. A plain string that
** starts with '$' is a field path, not a constant, as in MongoDB: such a
** name must come in a $literal. */
static int exprConstField(ExprParse *pP, const char *zOp, DocValue *pField){
  int bLiteral = 0;
  if( pField->type==DOC_DOCUMENT && docextIterCount(pField)==1 ){
    DocValue lit;
    if( docextBsonFind(pField->p, "$literal", 8, &lit) ){
      *pField = lit;
      bLiteral = 1;
    }
  }
  if( pField->type!=DOC_STRING ){
    exprParseError(pP, "%s's field must be a constant string", zOp);
    return 0;
  }
  if( !bLiteral && pField->n>5 && pField->p[4]=='$' ){
    exprParseError(pP, "%s's field must be a constant string, not the path %s "
                       "(a name that starts with '$' goes in $literal)", zOp, pField->p+4);
    return 0;
  }
  return 1;
}

/* {$setField: {field: "name", input: expr, value: expr}}: arguments input
** and value; the name (a constant string, or a $literal one) in v.
** {$unsetField: {field: "name", input: expr}} (bUnset) is the same with
** the value $$REMOVE. */
static ExprNode *exprParseSetField(ExprParse *pP, const DocValue *v, int bUnset){
  static const u8 aRemove[] = {9, 0, 0, 0, '$', '$', 'R', 'E', 'M', 'O', 'V', 'E', 0};
  const char *zOp = bUnset ? "$unsetField" : "$setField";
  DocValue field, input, value;
  ExprNode *p;
  value.type = DOC_STRING;
  value.p = aRemove;
  value.n = (int)sizeof(aRemove);
  if( v->type!=DOC_DOCUMENT || docextIterCount(v)!=3-bUnset || !docextBsonFind(v->p, "field", 5, &field)
   || !docextBsonFind(v->p, "input", 5, &input)
   || (!bUnset && !docextBsonFind(v->p, "value", 5, &value)) ){
    exprParseError(pP, bUnset ? "$unsetField needs a document {field: …, input: …}"
                              : "$setField needs a document {field: …, input: …, value: …}");
    return 0;
  }
  if( !exprConstField(pP, zOp, &field) ) return 0;
  p = exprNodeNew(pP, EX_SETFIELD, 2);
  if( p==0 ) return 0;
  p->zOp = zOp;
  p->v = field;
  exprAddArg(pP, p, &input);
  exprAddArg(pP, p, &value);
  return exprDone(pP, p);
}

/* {$let: {vars: {…}, in: expr}} */
static ExprNode *exprParseLetOp(ExprParse *pP, const DocValue *v){
  DocValue vars, in;
  if( v->type!=DOC_DOCUMENT || docextIterCount(v)!=2
   || !docextBsonFind(v->p, "vars", 4, &vars) || !docextBsonFind(v->p, "in", 2, &in) ){
    exprParseError(pP, "$let needs a document {vars: {…}, in: …}");
    return 0;
  }
  if( vars.type!=DOC_DOCUMENT ){
    exprParseError(pP, "$let's vars must be a document");
    return 0;
  }
  return exprParseLet(pP, &vars, &in, 0);
}

/* The named parameters of {$op: {name: value, ...}}: aVal[i] gets the
** value of azName[i] (type 0 when absent); those before nRequired must be
** there, and no other name may be. */
static int exprParams(ExprParse *pP, const char *zOp, const DocValue *v,
                      const char *const *azName, DocValue *aVal, int nName, int nRequired){
  DocIter it;
  int i;
  if( v->type!=DOC_DOCUMENT ){
    exprParseError(pP, "%s needs a document of parameters", zOp);
    return 0;
  }
  for(i=0; i<nName; i++) memset(&aVal[i], 0, sizeof(DocValue));
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    for(i=0; i<nName && !docextIterKeyIs(&it, azName[i]); i++){}
    if( i==nName ){
      exprParseError(pP, "unknown parameter '%s' of %s", it.zKey, zOp);
      return 0;
    }
    aVal[i] = it.v;
  }
  for(i=0; i<nRequired; i++){
    if( aVal[i].type==0 ){
      exprParseError(pP, "%s needs '%s'", zOp, azName[i]);
      return 0;
    }
  }
  return 1;
}

/* {$map: {input, as, in}}, {$filter: {input, as, cond, limit}}: arguments
** input, in (cond), [limit]; the element is variable "as" ("this" when not
** given) in slot iSlot. {$reduce: {input, initialValue, in}}: arguments
** input, initialValue, in; $$value is slot iSlot, $$this iSlot+1. */
static ExprNode *exprParseIterate(ExprParse *pP, int eOp, const char *zOp, const DocValue *v){
  static const char *azMap[] = {"input", "in", "as"};
  static const char *azFilter[] = {"input", "cond", "as", "limit"};
  static const char *azReduce[] = {"input", "initialValue", "in"};
  DocValue a[4];
  ExprNode *p;
  int nVarSaved = pP->nVar;
  const char *zAs = "this";
  int nAs = 4;
  if( eOp==EX_REDUCE ){
    if( !exprParams(pP, zOp, v, azReduce, a, 3, 3) ) return 0;
  }else if( !exprParams(pP, zOp, v, eOp==EX_MAP ? azMap : azFilter, a, eOp==EX_MAP ? 3 : 4, 2) ){
    return 0;
  }
  if( eOp!=EX_REDUCE && a[2].type!=0 ){
    if( a[2].type!=DOC_STRING || !docextExprVarNameOk((const char*)a[2].p+4, a[2].n-5) ){
      exprParseError(pP, "%s's 'as' must be a valid variable name", zOp);
      return 0;
    }
    zAs = (const char*)a[2].p+4;
    nAs = a[2].n-5;
  }
  p = exprNodeNew(pP, eOp, 3);
  if( p==0 ) return 0;
  p->zOp = zOp;
  p->iSlot = pP->nSlot;
  pP->nSlot += eOp==EX_REDUCE ? 2 : 1;
  exprAddArg(pP, p, &a[0]);                        /* input: outer scope */
  if( eOp==EX_REDUCE ){
    exprAddArg(pP, p, &a[1]);                      /* initialValue too */
    exprBind(pP, "value", 5, p->iSlot);
    exprBind(pP, "this", 4, p->iSlot+1);
    exprAddArg(pP, p, &a[2]);
  }else{
    exprBind(pP, zAs, nAs, p->iSlot);
    exprAddArg(pP, p, &a[1]);
    pP->nVar = nVarSaved;
    if( eOp==EX_FILTER && a[3].type!=0 ) exprAddArg(pP, p, &a[3]);
  }
  pP->nVar = nVarSaved;
  return exprDone(pP, p);
}

/* {$op: {name: expr, ...}}: a node of nName arguments, parameter i's
** expression (a missing constant when absent, with bit i of mArg clear). */
static void exprParseZone(ExprParse *pP, ExprNode *pArg);

static ExprNode *exprParseNamed(ExprParse *pP, int eOp, int eSub, const char *zOp,
                                const DocValue *v, const char *const *azName, int nName,
                                int nRequired){
  DocValue a[8];
  ExprNode *p;
  int i;
  if( !exprParams(pP, zOp, v, azName, a, nName, nRequired) ) return 0;
  p = exprNodeNew(pP, eOp, nName);
  if( p==0 ) return 0;
  p->zOp = zOp;
  p->eSub = (u8)eSub;
  for(i=0; i<nName; i++){
    if( a[i].type ) p->mArg |= (u8)(1<<i);
    exprAddArg(pP, p, &a[i]);
    if( pP->rc==SQLITE_OK && strcmp(azName[i], "timezone")==0 ) exprParseZone(pP, p->apArg[i]);
  }
  return exprDone(pP, p);
}

/* The pattern and options of a $regex* operator: from its regex value (a
** string, or a BSON regex) and its options value when bOpt (given, not
** null), whose options may not be given twice. zOptBuf has room for 16
** bytes. SQLITE_OK, or an error with *pzErr. */
static int exprRegexParts(const char *zOp, const DocValue *pRegex, const DocValue *pOpt,
                          int bOpt, const char **pzPat, int *pnPat, char *zOptBuf,
                          char **pzErr){
  const char *zOpt = "";
  int nOpt;
  if( pRegex->type==DOC_REGEX ){
    *pzPat = (const char*)pRegex->p;
    *pnPat = (int)strlen(*pzPat);
    zOpt = *pzPat + *pnPat + 1;
    if( zOpt[0] && bOpt ){
      return docextError(pzErr, "%s: options given both in the regex and as "
                                "options", zOp);
    }
  }else if( pRegex->type==DOC_STRING ){
    *pzPat = docextValueStr(pRegex, pnPat);
  }else{
    return docextError(pzErr, "%s's regex must be a string or a regex, not %s",
                       zOp, exprTypeName(pRegex));
  }
  if( bOpt ){
    if( pOpt->type!=DOC_STRING ){
      return docextError(pzErr, "%s's options must be a string, not %s",
                         zOp, exprTypeName(pOpt));
    }
    zOpt = docextValueStr(pOpt, &nOpt);
  }
  nOpt = (int)strlen(zOpt);
  if( nOpt>=16 || memchr(*pzPat, 0, *pnPat) ){
    return docextError(pzErr, "%s: a bad regex or options", zOp);
  }
  memcpy(zOptBuf, zOpt, nOpt+1);
  return SQLITE_OK;
}

/* Compile what exprRegexParts gave: SQLITE_OK, SQLITE_ERROR with *pzErr
** for a bad pattern, or SQLITE_NOMEM. */
static int exprRegexBuild(const char *zOp, const char *zPat, int nPat, const char *zOpt,
                          DocRegex **ppRe, char **pzErr){
  char *zWhy = 0;
  int rc = docextRegexCompile(zPat, nPat, zOpt, ppRe, &zWhy);
  if( rc && zWhy ){
    rc = docextError(pzErr, "%s: %s", zOp,
                     strncmp(zWhy, "docext: ", 8)==0 ? zWhy+8 : zWhy);
    sqlite3_free(zWhy);
  }
  return rc;
}

/* A $regex* node whose regex and options are constants: compile it once
** (a bad pattern is then an error before any document is read; other
** faults stay the evaluation's, as they would be for computed values). */
static void exprParseRegex(ExprParse *pP, ExprNode *p){
  const ExprNode *pRegex = p->apArg[1], *pOpt = p->apArg[2];
  const char *zPat;
  char zOpt[16];
  char *zErr = 0;
  int nPat, rc;
  if( pP->rc || pRegex->eOp!=EX_CONST || pOpt->eOp!=EX_CONST || exprNullish(&pRegex->v) ){
    return;
  }
  rc = exprRegexParts(p->zOp, &pRegex->v, &pOpt->v, !exprNullish(&pOpt->v),
                      &zPat, &nPat, zOpt, &zErr);
  sqlite3_free(zErr);
  zErr = 0;
  if( rc==SQLITE_NOMEM ) pP->rc = rc;
  if( rc ) return;
  rc = exprRegexBuild(p->zOp, zPat, nPat, zOpt, &p->pRe, &zErr);
  if( rc && zErr ){
    exprParseError(pP, "%s", zErr);
    sqlite3_free(zErr);
  }else if( rc ){
    pP->rc = rc;
  }
}

/* The method of $median or $percentile into p->eSub (1: "continuous",
** else 0: "approximate", which an expression computes exactly, as MongoDB
** does, and "discrete"); $percentile's p must be a constant array. */
static void exprParseQuantile(ExprParse *pP, ExprNode *p){
  const ExprNode *pMethod = p->apArg[p->nArg-1];
  const char *z = "";
  int n = 0, i;
  if( pP->rc ) return;
  if( pMethod->eOp==EX_CONST && pMethod->v.type==DOC_STRING ) z = docextValueStr(&pMethod->v, &n);
  if( n==10 && memcmp(z, "continuous", 10)==0 ){
    p->eSub = 1;
  }else if( !(n==11 && memcmp(z, "approximate", 11)==0) && !(n==8 && memcmp(z, "discrete", 8)==0) ){
    exprParseError(pP, "%s's method must be \"approximate\", \"discrete\" or \"continuous\"",
                   p->zOp);
    return;
  }
  if( p->eOp==EX_PERCENTILE ){
    const ExprNode *pP2 = p->apArg[1];
    int bConst = pP2->eOp==EX_CONST || pP2->eOp==EX_ARRAY;
    for(i=0; bConst && pP2->eOp==EX_ARRAY && i<pP2->nArg; i++){
      bConst = pP2->apArg[i]->eOp==EX_CONST;
    }
    if( !bConst ) exprParseError(pP, "$percentile's p must be a constant array of numbers");
  }
}

/* The operators of aSubOp[], $convert and $dateToString. 0 (and no error)
** when zOp is none of them. */
static ExprNode *exprParseSubOp(ExprParse *pP, const DocIter *pIt){
  static const char *azDate[] = {"date", "timezone"};
  static const char *azConvert[] = {"input", "to", "onError", "onNull"};
  static const char *azToString[] = {"date", "format", "timezone", "onNull"};
  const DocValue *v = &pIt->v;
  ExprNode *p;
  int i;
  if( docextIterKeyIs(pIt, "$convert") ){
    return exprParseNamed(pP, EX_CONVERT, 0, "$convert", v, azConvert, 4, 2);
  }
  if( docextIterKeyIs(pIt, "$dateToString") ){
    return exprParseNamed(pP, EX_DATETOSTRING, 0, "$dateToString", v, azToString, 4, 1);
  }
  for(i=0; i<3; i++){
    static const char *azTrimOp[] = {"$trim", "$ltrim", "$rtrim"};
    static const char *azTrim[] = {"input", "chars"};
    if( docextIterKeyIs(pIt, azTrimOp[i]) ){
      return exprParseNamed(pP, EX_TRIM, i, azTrimOp[i], v, azTrim, 2, 1);
    }
  }
  {
    static const struct {
      const char *zOp;
      u8 eOp, nName, nRequired;
      const char *azName[8];
    } aNamed[] = {
      {"$dateAdd", EX_DATEADD, 4, 3, {"startDate", "unit", "amount", "timezone"}},
      {"$dateSubtract", EX_DATESUBTRACT, 4, 3, {"startDate", "unit", "amount", "timezone"}},
      {"$dateDiff", EX_DATEDIFF, 5, 3, {"startDate", "endDate", "unit", "timezone", "startOfWeek"}},
      {"$dateTrunc", EX_DATETRUNC, 5, 2, {"date", "unit", "binSize", "timezone", "startOfWeek"}},
      {"$dateToParts", EX_DATETOPARTS, 3, 1, {"date", "timezone", "iso8601"}},
      {"$dateFromString", EX_DATEFROMSTRING, 5, 1,
       {"dateString", "format", "timezone", "onError", "onNull"}},
      {"$regexMatch", EX_REGEXMATCH, 3, 2, {"input", "regex", "options"}},
      {"$regexFind", EX_REGEXFIND, 3, 2, {"input", "regex", "options"}},
      {"$regexFindAll", EX_REGEXFINDALL, 3, 2, {"input", "regex", "options"}},
      {"$zip", EX_ZIP, 3, 1, {"inputs", "useLongestLength", "defaults"}},
      {"$sortArray", EX_SORTARRAY, 2, 2, {"input", "sortBy"}},
      {"$firstN", EX_FIRSTN, 2, 2, {"n", "input"}},
      {"$lastN", EX_LASTN, 2, 2, {"n", "input"}},
      {"$maxN", EX_MAXN, 2, 2, {"n", "input"}},
      {"$minN", EX_MINN, 2, 2, {"n", "input"}},
      {"$median", EX_MEDIAN, 2, 2, {"input", "method"}},
      {"$percentile", EX_PERCENTILE, 3, 3, {"input", "p", "method"}},
    };
    static const char *azParts[] = {"year", "month", "day", "hour", "minute", "second",
                                    "millisecond", "timezone"};
    static const char *azIsoParts[] = {"isoWeekYear", "isoWeek", "isoDayOfWeek", "hour",
                                       "minute", "second", "millisecond", "timezone"};
    for(i=0; i<DOCEXT_COUNT(aNamed); i++){
      if( docextIterKeyIs(pIt, aNamed[i].zOp) ){
        p = exprParseNamed(pP, aNamed[i].eOp, 0, aNamed[i].zOp, v, aNamed[i].azName,
                           aNamed[i].nName, aNamed[i].nRequired);
        if( p && (p->eOp==EX_REGEXMATCH || p->eOp==EX_REGEXFIND || p->eOp==EX_REGEXFINDALL) ){
          exprParseRegex(pP, p);
          p = exprDone(pP, p);
        }
        if( p && (p->eOp==EX_MEDIAN || p->eOp==EX_PERCENTILE) ){
          exprParseQuantile(pP, p);
          p = exprDone(pP, p);
        }
        return p;
      }
    }
    if( docextIterKeyIs(pIt, "$getField") ){
      /* {$getField: "name"} or {$getField: {field: "name", input: e}} */
      static const char *azGet[] = {"field", "input"};
      DocValue field = *v, in;
      memset(&in, 0, sizeof(in));
      if( v->type==DOC_DOCUMENT ){
        DocValue a[2];
        if( !exprParams(pP, "$getField", v, azGet, a, 2, 1) ) return 0;
        field = a[0];
        in = a[1];
      }
      if( !exprConstField(pP, "$getField", &field) ) return 0;
      p = exprNodeNew(pP, EX_GETFIELD, 1);
      if( p==0 ) return 0;
      p->zOp = "$getField";
      p->v = field;
      if( in.type ) exprAddArg(pP, p, &in);
      return exprDone(pP, p);
    }
    if( docextIterKeyIs(pIt, "$dateFromParts") ){
      DocValue iso;
      int bIso = v->type==DOC_DOCUMENT && docextBsonFind(v->p, "isoWeekYear", 11, &iso);
      return exprParseNamed(pP, EX_DATEFROMPARTS, bIso, "$dateFromParts", v,
                            bIso ? azIsoParts : azParts, 8, 1);
    }
  }
  if( docextIterKeyIs(pIt, "$replaceOne") || docextIterKeyIs(pIt, "$replaceAll") ){
    static const char *azReplace[] = {"input", "find", "replacement"};
    int bAll = docextIterKeyIs(pIt, "$replaceAll");
    return exprParseNamed(pP, bAll ? EX_REPLACEALL : EX_REPLACEONE, 0,
                          bAll ? "$replaceAll" : "$replaceOne", v, azReplace, 3, 3);
  }
  for(i=0; i<DOCEXT_COUNT(aSubOp) && !docextIterKeyIs(pIt, aSubOp[i].zName); i++){}
  if( i==DOCEXT_COUNT(aSubOp) ) return 0;
  if( aSubOp[i].eOp==EX_DATEPART && v->type==DOC_DOCUMENT && docextIterCount(v)>0 ){
    DocIter it;
    docextIterInitValue(&it, v);
    docextIterNext(&it);
    if( it.zKey[0]!='$' ){
      return exprParseNamed(pP, EX_DATEPART, aSubOp[i].eSub, aSubOp[i].zName, v, azDate, 2, 1);
    }
  }
  if( v->type==DOC_ARRAY && docextIterCount(v)!=1 ){
    exprParseError(pP, "%s takes exactly 1 argument, not %d",
                   aSubOp[i].zName, docextIterCount(v));
    return 0;
  }
  p = exprNodeNew(pP, aSubOp[i].eOp, 1);
  if( p==0 ) return 0;
  p->zOp = aSubOp[i].zName;
  p->eSub = aSubOp[i].eSub;
  p->mArg = 1;
  if( v->type==DOC_ARRAY ) exprParseMembers(pP, p, v);
  else exprAddArg(pP, p, v);
  return exprDone(pP, p);
}

/* {$op: args}: the document's only field is the operator. */
static ExprNode *exprParseOperator(ExprParse *pP, const DocValue *v){
  DocIter it;
  ExprNode *p;
  int i, nArg;
  docextIterInitValue(&it, v);
  docextIterNext(&it);
  if( docextIterCount(v)!=1 ){
    exprParseError(pP, "an expression operator must be alone in its "
                       "document ({%s: …, …})", it.zKey);
    return 0;
  }
  if( docextIterKeyIs(&it, "$literal") ){
    p = exprNodeNew(pP, EX_CONST, 0);
    if( p ) p->v = it.v;
    return p;
  }
  if( docextIterKeyIs(&it, "$cond") && it.v.type==DOC_DOCUMENT ) return exprParseCondDoc(pP, &it.v);
  if( docextIterKeyIs(&it, "$switch") ) return exprParseSwitch(pP, &it.v);
  if( docextIterKeyIs(&it, "$let") ) return exprParseLetOp(pP, &it.v);
  if( docextIterKeyIs(&it, "$setField") ) return exprParseSetField(pP, &it.v, 0);
  if( docextIterKeyIs(&it, "$unsetField") ) return exprParseSetField(pP, &it.v, 1);
  if( docextIterKeyIs(&it, "$map") ) return exprParseIterate(pP, EX_MAP, "$map", &it.v);
  if( docextIterKeyIs(&it, "$filter") ) return exprParseIterate(pP, EX_FILTER, "$filter", &it.v);
  if( docextIterKeyIs(&it, "$reduce") ) return exprParseIterate(pP, EX_REDUCE, "$reduce", &it.v);
  if( docextIterKeyIs(&it, "$meta") ){
    /* {$meta: "textScore"}: the score doc_aggregate's $text gave the
    ** document (DOCEXT_TEXT_SCORE_FIELD) */
    if( !docextTextMetaIsScore(&it.v) ){
      exprParseError(pP, "$meta takes \"textScore\" (the one docext has)");
      return 0;
    }
    p = exprNodeNew(pP, EX_META, 0);
    if( p ) p->zOp = "$meta";
    return exprDone(pP, p);
  }
  if( docextIterKeyIs(&it, "$rand") ){
    /* {$rand: {}}: a random double in [0, 1), another at each evaluation */
    if( it.v.type!=DOC_DOCUMENT || docextIterCount(&it.v)!=0 ){
      exprParseError(pP, "$rand does not currently accept arguments");
      return 0;
    }
    p = exprNodeNew(pP, EX_RAND, 0);
    if( p ) p->zOp = "$rand";
    return exprDone(pP, p);
  }
  p = exprParseSubOp(pP, &it);
  if( p || pP->rc ) return p;
  for(i=0; i<DOCEXT_COUNT(aOp) && !docextIterKeyIs(&it, aOp[i].zName); i++){}
  if( i==DOCEXT_COUNT(aOp) ){
    exprParseError(pP, "unknown or unsupported expression operator %s", it.zKey);
    return 0;
  }
  nArg = it.v.type==DOC_ARRAY ? docextIterCount(&it.v) : 1;
  if( nArg<aOp[i].nMin || (aOp[i].nMax>=0 && nArg>aOp[i].nMax) ){
    if( aOp[i].nMin==aOp[i].nMax ){
      exprParseError(pP, "%s takes exactly %d argument%s, not %d",
                     aOp[i].zName, aOp[i].nMin, aOp[i].nMin==1 ? "" : "s", nArg);
    }else{
      exprParseError(pP, "%s takes at least %d arguments, not %d",
                     aOp[i].zName, aOp[i].nMin, nArg);
    }
    return 0;
  }
  p = exprNodeNew(pP, aOp[i].eOp, nArg);
  if( p==0 ) return 0;
  p->zOp = aOp[i].zName;
  if( it.v.type==DOC_ARRAY ){
    exprParseMembers(pP, p, &it.v);
  }else{
    exprAddArg(pP, p, &it.v);
  }
  return exprDone(pP, p);
}

/* Field names in name order, to find a repeated one. */
typedef struct ExprName ExprName;
struct ExprName {
  const char *z;
  int n;
};

static int exprNameCmp(void *pCtx, const void *x, const void *y){
  const ExprName *a = (const ExprName*)x, *b = (const ExprName*)y;
  int c = memcmp(a->z, b->z, a->n<b->n ? a->n : b->n);
  (void)pCtx;
  return c ? c : a->n - b->n;
}

/* Does document v name a field twice? (Set and reported as an error: a
** document of expressions must say each field once, as MongoDB says.) */
static int exprHasDuplicate(ExprParse *pP, const DocValue *v){
  int n = docextIterCount(v), i = 0;
  ExprName *a = sqlite3_malloc64(sizeof(ExprName)*2*(n>0 ? n : 1));
  DocIter it;
  if( a==0 ){
    pP->rc = SQLITE_NOMEM;
    return 1;
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    a[i].z = it.zKey;
    a[i].n = it.nKey;
    i++;
  }
  docextSort(a, n, sizeof(ExprName), &a[n], exprNameCmp, 0);
  for(i=1; i<n && exprNameCmp(0, &a[i-1], &a[i])!=0; i++){}
  if( i<n ){
    exprParseError(pP, "field '%s' is given twice in a document of "
                       "expressions", a[i].z);
  }
  sqlite3_free(a);
  return i<n;
}

/* A document whose fields are expressions: {total: {$add: [...]}, ...}. */
static ExprNode *exprParseObject(ExprParse *pP, const DocValue *v){
  DocIter it;
  ExprNode *p;
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( it.nKey>0 && it.zKey[0]=='$' ){
      exprParseError(pP, "field name '%s' may not start with '$' "
                         "in a document of expressions", it.zKey);
      return 0;
    }
    if( memchr(it.zKey, '.', it.nKey) ){
      exprParseError(pP, "field name '%s' may not contain '.' "
                         "in a document of expressions", it.zKey);
      return 0;
    }
  }
  if( exprHasDuplicate(pP, v) ) return 0;
  p = exprNodeNew(pP, EX_OBJECT, docextIterCount(v));
  if( p==0 ) return 0;
  p->v = *v;
  exprParseMembers(pP, p, v);
  return exprDone(pP, p);
}

static ExprNode *exprParse(ExprParse *pP, const DocValue *v){
  ExprNode *p;
  if( pP->rc ) return 0;
  if( v->type==DOC_STRING && v->n>5 && v->p[4]=='$' ){
    return exprParsePath(pP, (const char*)v->p+5, v->n-6);
  }
  if( v->type==DOC_DOCUMENT && docextIterCount(v)>0 ){
    DocIter it;
    docextIterInitValue(&it, v);
    docextIterNext(&it);
    if( it.nKey>0 && it.zKey[0]=='$' ) return exprParseOperator(pP, v);
    return exprParseObject(pP, v);
  }
  if( v->type==DOC_ARRAY ){
    p = exprNodeNew(pP, EX_ARRAY, docextIterCount(v));
    if( p ) exprParseMembers(pP, p, v);
    return exprDone(pP, p);
  }
  p = exprNodeNew(pP, EX_CONST, 0);
  if( p ) p->v = *v;
  return p;
}

/*------------------------------------------------------------------------
** Values made during an evaluation
*/

static int exprError(ExprCtx *p, const char *zFmt, ...){
  if( p->rc==SQLITE_OK ){
    va_list ap;
    va_start(ap, zFmt);
    p->rc = docextErrorV(&p->zErr, zFmt, ap);
    va_end(ap);
  }
  return p->rc;
}

/* What one evaluation may build in all (values copied into documents and
** arrays of expressions, paths over arrays, $concat): a filter of many
** copies of a large field fails rather than take the machine's memory. */
#define EXPR_MAX_ARENA (64*1024*1024)

/* n bytes that stay put until the evaluation ends; 0 on error. */
static u8 *exprAlloc(ExprCtx *p, i64 n){
  ExprBlock *pB = p->pBlock;
  u8 *a;
  if( p->rc ) return 0;
  if( n>DOCEXT_MAX_BSON ){
    exprError(p, "a value larger than 16 MiB");
    return 0;
  }
  p->nArena += n;
  if( p->nArena>EXPR_MAX_ARENA ){
    exprError(p, "evaluating it needs more than 64 MiB");
    return 0;
  }
  if( pB==0 || pB->nAlloc - pB->nUsed < n ){
    i64 nAlloc = n>4000 ? n : 4000;
    pB = sqlite3_malloc64(sizeof(ExprBlock) + nAlloc);
    if( pB==0 ){
      p->rc = SQLITE_NOMEM;
      return 0;
    }
    pB->nUsed = 0;
    pB->nAlloc = nAlloc;
    pB->pNext = p->pBlock;
    p->pBlock = pB;
  }
  a = &pB->a[pB->nUsed];
  pB->nUsed += n;
  return a;
}

static void exprSetBool(DocValue *pOut, int b){
  pOut->type = DOC_BOOL;
  pOut->p = b ? aExprTrue : aExprFalse;
  pOut->n = 1;
}

/* (SQLITE_OK, so an evaluator can end with "return exprSetNull(pOut)") */
static int exprSetNull(DocValue *pOut){
  pOut->type = DOC_NULL;
  pOut->p = aExprFalse;
  pOut->n = 0;
  return SQLITE_OK;
}

static void exprSetMissing(DocValue *pOut){
  pOut->type = 0;
  pOut->p = aExprFalse;
  pOut->n = 0;
}

/* A value of type `type` whose bytes are a[0..n), copied to the arena. */
static int exprSetBytes(ExprCtx *p, int type, const void *a, i64 n, DocValue *pOut){
  u8 *aNew = exprAlloc(p, n>0 ? n : 1);
  if( aNew==0 ) return p->rc;
  if( n>0 ) memcpy(aNew, a, (size_t)n);
  pOut->type = (u8)type;
  pOut->p = aNew;
  pOut->n = (int)n;
  return SQLITE_OK;
}

static int exprSetNum(ExprCtx *p, const DocNum *pNum, DocValue *pOut){
  u8 a[16];
  switch( pNum->type ){
    case DOC_INT32:
      docextPutI32(a, (int32_t)pNum->i);
      return exprSetBytes(p, DOC_INT32, a, 4, pOut);
    case DOC_INT64: case DOC_DATE:
      docextPutI32(a, (int32_t)(u64)pNum->i);
      docextPutI32(a+4, (int32_t)((u64)pNum->i>>32));
      return exprSetBytes(p, pNum->type, a, 8, pOut);
    case DOC_DOUBLE: {
      i64 v;
      memcpy(&v, &pNum->d, 8);
      docextPutI32(a, (int32_t)(u64)v);
      docextPutI32(a+4, (int32_t)((u64)v>>32));
      return exprSetBytes(p, DOC_DOUBLE, a, 8, pOut);
    }
  }
  return exprSetBytes(p, DOC_DECIMAL128, pNum->aDec, 16, pOut);
}

static int exprSetInt(ExprCtx *p, i64 v, DocValue *pOut){
  DocNum n;
  n.type = (v>=INT32_MIN && v<=INT32_MAX) ? DOC_INT32 : DOC_INT64;
  n.i = v;
  return exprSetNum(p, &n, pOut);
}

/* A string value: int32 length, bytes, NUL. */
static int exprSetString(ExprCtx *p, DocBuf *pText, DocValue *pOut){
  u8 *a = exprAlloc(p, pText->n + 5);
  if( a==0 ) return p->rc;
  docextPutI32(a, (int32_t)(pText->n + 1));
  if( pText->n ) memcpy(a+4, pText->a, (size_t)pText->n);
  a[4+pText->n] = 0;
  pOut->type = DOC_STRING;
  pOut->p = a;
  pOut->n = (int)(pText->n + 5);
  return SQLITE_OK;
}

/* A document or array built in pDoc (rc: how that went), moved to the
** arena; pDoc is freed. Nothing when the evaluation already failed. */
static int exprSetDoc(ExprCtx *p, int type, int rc, DocBuf *pDoc, DocValue *pOut){
  if( p->rc ){
    /* (its error stands) */
  }else if( rc==SQLITE_TOOBIG || pDoc->n>DOCEXT_MAX_BSON ){
    exprError(p, "a value larger than 16 MiB");
  }else if( rc==SQLITE_OK ){
    exprSetBytes(p, type, pDoc->a, pDoc->n, pOut);
  }else{
    p->rc = rc;
  }
  docextBufFree(pDoc);
  return p->rc;
}

/* An array being built: exprArrayStart, exprArrayAdd for each element,
** exprArrayEnd (which moves it to the arena, or frees it on an error). */
typedef struct ExprArray ExprArray;
struct ExprArray {
  DocBuf b;
  i64 iStart;
  int n;                  /* elements so far */
  int rc;
};

static void exprArrayStart(ExprArray *pA){
  memset(pA, 0, sizeof(*pA));
  pA->iStart = docextBsonStartDoc(&pA->rc, &pA->b);
}

/* Append v (a missing value as null). 0 when the array has outgrown a
** document: stop adding. */
static int exprArrayAdd(ExprArray *pA, const DocValue *v){
  char zKey[16];
  int nKey = docextBsonArrayKey(zKey, pA->n++);
  if( v->type==0 ) docextBsonAppendNull(&pA->rc, &pA->b, zKey, nKey);
  else docextBsonAppendValue(&pA->rc, &pA->b, zKey, nKey, v);
  return pA->rc==SQLITE_OK && pA->b.n<=DOCEXT_MAX_BSON;
}

static int exprArrayEnd(ExprCtx *p, ExprArray *pA, DocValue *pOut){
  docextBsonEndDoc(&pA->rc, &pA->b, pA->iStart);
  return exprSetDoc(p, DOC_ARRAY, pA->rc, &pA->b, pOut);
}

/*------------------------------------------------------------------------
** Evaluation
*/

static int exprEval(ExprCtx *p, const ExprNode *pN, DocValue *pOut);

/* Aggregation's order: missing and undefined are equal to each other and
** below every other value but MinKey; the rest is BSON's order. */
static int exprCompare(const DocCollator *pColl, const DocValue *a, const DocValue *b){
  int ma = a->type==0 || a->type==DOC_UNDEFINED;
  int mb = b->type==0 || b->type==DOC_UNDEFINED;
  if( ma || mb ){
    if( ma && mb ) return 0;
    if( ma ) return b->type==DOC_MINKEY ? 1 : -1;
    return a->type==DOC_MINKEY ? -1 : 1;
  }
  return docextValueCompareColl(a, b, pColl);
}

/* The value a path reaches from pCur (see the top of the file). */
static int exprWalk(ExprCtx *p, const DocValue *pCur, const char *zPath, int nPath,
                    DocValue *pOut){
  if( pCur->type==DOC_ARRAY ){
    ExprArray a;
    DocIter it;
    exprArrayStart(&a);
    docextIterInitValue(&it, pCur);
    while( p->rc==SQLITE_OK && docextIterNext(&it) ){
      DocValue v;
      if( it.v.type!=DOC_DOCUMENT && it.v.type!=DOC_ARRAY ) continue;
      if( exprWalk(p, &it.v, zPath, nPath, &v) ) break;
      if( v.type!=0 && !exprArrayAdd(&a, &v) ) break;
    }
    return exprArrayEnd(p, &a, pOut);
  }
  if( pCur->type==DOC_DOCUMENT ){
    const char *zDot = memchr(zPath, '.', nPath);
    int nHead = zDot ? (int)(zDot - zPath) : nPath;
    DocValue v;
    if( !docextBsonFind(pCur->p, zPath, nHead, &v) ){
      exprSetMissing(pOut);
      return SQLITE_OK;
    }
    if( zDot==0 ){
      *pOut = v;
      return SQLITE_OK;
    }
    return exprWalk(p, &v, zDot+1, nPath-nHead-1, pOut);
  }
  exprSetMissing(pOut);
  return SQLITE_OK;
}

/* Evaluate every argument into aVal (room for pN->nArg). */
static int exprEvalArgs(ExprCtx *p, const ExprNode *pN, DocValue *aVal){
  int i;
  for(i=0; i<pN->nArg && p->rc==SQLITE_OK; i++) exprEval(p, pN->apArg[i], &aVal[i]);
  return p->rc;
}

/* {k: expr, ...}: the fields whose value is not missing. */
static int exprEvalObject(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocBuf b;
  DocIter it;
  int rc = SQLITE_OK, i = 0;
  i64 iStart;
  memset(&b, 0, sizeof(b));
  iStart = docextBsonStartDoc(&rc, &b);
  docextIterInitValue(&it, &pN->v);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    DocValue v;
    if( exprEval(p, pN->apArg[i++], &v) ) break;
    if( v.type!=0 ) docextBsonAppendValue(&rc, &b, it.zKey, it.nKey, &v);
    if( b.n>DOCEXT_MAX_BSON ) break;
  }
  docextBsonEndDoc(&rc, &b, iStart);
  return exprSetDoc(p, DOC_DOCUMENT, rc, &b, pOut);
}

/* $setField: a copy of the input document with the field set to the
** value (or removed, when the value is missing), in place if it was there. */
static int exprEvalSetField(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  DocBuf b;
  DocIter it;
  const char *zField;
  int nField, rc = SQLITE_OK, bDone = 0;
  i64 iStart;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprNullish(&a[0]) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( a[0].type!=DOC_DOCUMENT ){
    return exprError(p, "%s needs a document as input, not %s",
                     pN->zOp, exprTypeName(&a[0]));
  }
  zField = docextValueStr(&pN->v, &nField);
  memset(&b, 0, sizeof(b));
  iStart = docextBsonStartDoc(&rc, &b);
  docextIterInitValue(&it, &a[0]);
  while( docextIterNext(&it) ){
    if( it.nKey==nField && memcmp(it.zKey, zField, nField)==0 ){
      if( a[1].type!=0 ) docextBsonAppendValue(&rc, &b, it.zKey, it.nKey, &a[1]);
      bDone = 1;
    }else{
      docextBsonAppendValue(&rc, &b, it.zKey, it.nKey, &it.v);
    }
  }
  if( !bDone && a[1].type!=0 ) docextBsonAppendValue(&rc, &b, zField, nField, &a[1]);
  docextBsonEndDoc(&rc, &b, iStart);
  return exprSetDoc(p, DOC_DOCUMENT, rc, &b, pOut);
}

/* $mergeObjects: the fields of each document in turn, a later value
** replacing an earlier one in its place; null and missing add nothing.
** The fields are found again through a hash of their names, so merging
** large documents stays linear. */
typedef struct ExprField ExprField;
struct ExprField {
  const char *zKey;
  int nKey;
  DocValue v;
};

/* The documents among aVal[0..n) merged into one, written to pOut (other
** values add nothing). */
static int mergeDocs(const DocValue *aVal, int n, DocBuf *pOut){
  ExprField *aField = 0;
  int *aHash = 0;
  int i, nField = 0, nTotal = 0, nHash = 16, rc = SQLITE_OK;
  i64 iStart;
  for(i=0; i<n; i++){
    if( aVal[i].type==DOC_DOCUMENT ) nTotal += docextIterCount(&aVal[i]);
  }
  while( nHash<2*nTotal ) nHash *= 2;
  aField = sqlite3_malloc64(sizeof(ExprField)*(nTotal+1));
  aHash = sqlite3_malloc64(sizeof(int)*nHash);
  if( aField==0 || aHash==0 ) rc = SQLITE_NOMEM;
  else memset(aHash, 0xff, sizeof(int)*nHash);     /* -1: empty */
  for(i=0; i<n && rc==SQLITE_OK; i++){
    DocIter it;
    if( aVal[i].type!=DOC_DOCUMENT ) continue;
    docextIterInitValue(&it, &aVal[i]);
    while( docextIterNext(&it) ){
      int h = (int)(docextHashBytes((const u8*)it.zKey, it.nKey) & (u64)(nHash-1));
      while( aHash[h]>=0 && (aField[aHash[h]].nKey!=it.nKey
                             || memcmp(aField[aHash[h]].zKey, it.zKey, it.nKey)!=0) ){
        h = (h+1) & (nHash-1);
      }
      if( aHash[h]<0 ){
        aHash[h] = nField;
        aField[nField].zKey = it.zKey;
        aField[nField].nKey = it.nKey;
        nField++;
      }
      aField[aHash[h]].v = it.v;
    }
  }
  iStart = docextBsonStartDoc(&rc, pOut);
  for(i=0; i<nField && rc==SQLITE_OK; i++){
    docextBsonAppendValue(&rc, pOut, aField[i].zKey, aField[i].nKey, &aField[i].v);
  }
  docextBsonEndDoc(&rc, pOut, iStart);
  sqlite3_free(aField);
  sqlite3_free(aHash);
  return rc;
}

static int exprEvalMerge(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue *aVal, aSpace[8];
  int i, rc = SQLITE_OK;
  DocBuf b;
  aVal = pN->nArg<=DOCEXT_COUNT(aSpace) ? aSpace : sqlite3_malloc64(sizeof(DocValue)*pN->nArg);
  if( aVal==0 ) return p->rc = SQLITE_NOMEM;
  memset(&b, 0, sizeof(b));
  if( exprEvalArgs(p, pN, aVal)==SQLITE_OK ){
    for(i=0; i<pN->nArg; i++){
      if( aVal[i].type!=DOC_DOCUMENT && !exprNullish(&aVal[i]) ){
        exprError(p, "$mergeObjects needs documents, not %s",
                  exprTypeName(&aVal[i]));
        break;
      }
    }
  }
  if( p->rc==SQLITE_OK ) rc = mergeDocs(aVal, pN->nArg, &b);
  if( aVal!=aSpace ) sqlite3_free(aVal);
  return exprSetDoc(p, DOC_DOCUMENT, rc, &b, pOut);
}

/* [expr, ...]: a missing member becomes null. */
static int exprEvalArray(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  ExprArray a;
  int i;
  exprArrayStart(&a);
  for(i=0; i<pN->nArg; i++){
    DocValue v;
    if( exprEval(p, pN->apArg[i], &v) || !exprArrayAdd(&a, &v) ) break;
  }
  return exprArrayEnd(p, &a, pOut);
}

/* *pAcc = *pAcc + or * *pX as aggregation does it (docextNumOp). */
static void exprArith(int bMul, DocNum *pAcc, const DocNum *pX, int *pRc){
  int rc = docextNumOp(bMul ? '*' : '+', pAcc, pX, pAcc);
  if( rc ) *pRc = rc;
}

/* A number of milliseconds to add to a date: doubles and decimals are
** rounded to the nearest, half away from zero. 0 if out of range. */
static int exprMillis(const DocNum *pX, i64 *pMs){
  double d;
  if( pX->type==DOC_INT32 || pX->type==DOC_INT64 ){
    *pMs = pX->i;
    return 1;
  }
  d = round(docextNumDouble(pX));
  if( !(d>=-9223372036854775808.0 && d<9223372036854775808.0) ) return 0;
  *pMs = (i64)d;
  return 1;
}

/* $add and $multiply: numbers, and for $add at most one date. */
static int exprEvalSum(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  int bMul = pN->eOp==EX_MULTIPLY, i, rc = SQLITE_OK;
  DocNum acc;
  DocValue date;
  memset(&acc, 0, sizeof(acc));
  acc.type = DOC_INT32;
  acc.i = bMul;
  date.type = 0;
  for(i=0; i<pN->nArg; i++){
    DocValue v;
    DocNum x;
    if( exprEval(p, pN->apArg[i], &v) ) return p->rc;
    if( exprNullish(&v) ){
      exprSetNull(pOut);
      return SQLITE_OK;
    }
    if( v.type==DOC_DATE && !bMul ){
      if( date.type ) return exprError(p, "only one date allowed in an $add expression");
      date = v;
      continue;
    }
    if( !docextValueIsNumber(&v) ){
      return exprError(p, "%s only supports numeric%s types, not %s",
                       pN->zOp, bMul ? "" : " or date", exprTypeName(&v));
    }
    docextNumFrom(&v, &x);
    exprArith(bMul, &acc, &x, &rc);
    if( rc ){
      p->rc = rc;
      return rc;
    }
  }
  if( date.type ){
    i64 ms;
    if( !exprMillis(&acc, &ms) || __builtin_add_overflow(docextGetI64(date.p), ms, &acc.i) ){
      return exprError(p, "date overflow in $add");
    }
    acc.type = DOC_DATE;
  }
  return exprSetNum(p, &acc, pOut);
}

/* $subtract: numbers, a date minus a number (a date), or two dates (the
** milliseconds between them, an int64). */
static int exprEvalSubtract(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  DocNum x, y;
  int rc = SQLITE_OK;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprNullish(&a[0]) || exprNullish(&a[1]) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( a[0].type==DOC_DATE ){
    i64 ms;
    if( a[1].type==DOC_DATE ){
      x.type = DOC_INT64;
      if( __builtin_sub_overflow(docextGetI64(a[0].p), docextGetI64(a[1].p), &x.i) ){
        return exprError(p, "date overflow in $subtract");
      }
      return exprSetNum(p, &x, pOut);
    }
    if( docextValueIsNumber(&a[1]) ){
      docextNumFrom(&a[1], &y);
      if( !exprMillis(&y, &ms) || __builtin_sub_overflow(docextGetI64(a[0].p), ms, &x.i) ){
        return exprError(p, "date overflow in $subtract");
      }
      x.type = DOC_DATE;
      return exprSetNum(p, &x, pOut);
    }
  }else if( docextValueIsNumber(&a[0]) && docextValueIsNumber(&a[1]) ){
    docextNumFrom(&a[0], &x);
    docextNumFrom(&a[1], &y);
    docextNumNegate(&y);
    exprArith(0, &x, &y, &rc);
    if( rc ) return p->rc = rc;
    return exprSetNum(p, &x, pOut);
  }
  return exprError(p, "can't $subtract %s from %s",
                   exprTypeName(&a[1]), exprTypeName(&a[0]));
}

/* Both arguments as numbers, or null (1 returned) when one is nullish. */
static int exprTwoNumbers(ExprCtx *p, const ExprNode *pN, DocValue *pOut, DocNum *pX, DocNum *pY){
  DocValue a[2];
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprNullish(&a[0]) || exprNullish(&a[1]) ){
    exprSetNull(pOut);
    return 1;
  }
  if( !docextValueIsNumber(&a[0]) || !docextValueIsNumber(&a[1]) ){
    return exprError(p, "%s only supports numeric types, not %s and %s",
                     pN->zOp, exprTypeName(&a[0]), exprTypeName(&a[1]));
  }
  docextNumFrom(&a[0], pX);
  docextNumFrom(&a[1], pY);
  return SQLITE_OK;
}


/* $divide: a double, or a decimal when either is one. */
static int exprEvalDivide(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocNum x, y, r;
  int rc = exprTwoNumbers(p, pN, pOut, &x, &y);
  if( rc ) return rc==1 ? SQLITE_OK : rc;
  if( docextNumIsZero(&y) ) return exprError(p, "can't $divide by zero");
  rc = docextNumOp('/', &x, &y, &r);
  if( rc ) return p->rc = rc;
  return exprSetNum(p, &r, pOut);
}

/* $mod: the remainder with the dividend's sign, in the wider type. */
static int exprEvalMod(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocNum x, y, r;
  int rc = exprTwoNumbers(p, pN, pOut, &x, &y);
  if( rc ) return rc==1 ? SQLITE_OK : rc;
  if( docextNumIsZero(&y) ) return exprError(p, "can't $mod by zero");
  if( x.type==DOC_DECIMAL128 || y.type==DOC_DECIMAL128 ){
    return exprError(p, "$mod of decimal values is not supported");
  }
  if( x.type==DOC_DOUBLE || y.type==DOC_DOUBLE ){
    r.type = DOC_DOUBLE;
    r.d = fmod(docextNumDouble(&x), docextNumDouble(&y));
  }else{
    r.type = (x.type==DOC_INT32 && y.type==DOC_INT32) ? DOC_INT32 : DOC_INT64;
    r.i = y.i==-1 ? 0 : x.i % y.i;          /* (INT64_MIN % -1 traps) */
  }
  return exprSetNum(p, &r, pOut);
}

/* A decimal rounded to an integer: eMode is EX_CEIL, EX_FLOOR or EX_TRUNC. */
static int exprDecIntegral(const u8 *a, int eMode, u8 *aOut){
  char zDig[48], zOut[64];
  int bNeg, iExp, nDig, nInt, i, n = 0, bFrac = 0;
  if( docextDec128Parts(a, &bNeg, zDig, &iExp)!=DOCEXT_DEC_FINITE || iExp>=0 ){
    memcpy(aOut, a, 16);
    return SQLITE_OK;
  }
  nDig = (int)strlen(zDig);
  nInt = nDig + iExp;                           /* digits before the point */
  for(i=nInt<0 ? 0 : nInt; i<nDig; i++) bFrac |= zDig[i]!='0';
  if( bNeg ) zOut[n++] = '-';
  zOut[n++] = '0';                              /* room for a carry */
  for(i=0; i<nInt; i++) zOut[n++] = zDig[i];
  if( bFrac && ((eMode==EX_CEIL && !bNeg) || (eMode==EX_FLOOR && bNeg)) ){
    for(i=n-1; zOut[i]=='9'; i--) zOut[i] = '0';
    zOut[i]++;
  }
  return docextDec128FromString(zOut, n, aOut);
}

/* $abs, $ceil, $floor, $trunc. */
static int exprEvalRound(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue v;
  DocNum x;
  if( exprEval(p, pN->apArg[0], &v) ) return p->rc;
  if( exprNullish(&v) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( !docextValueIsNumber(&v) ){
    return exprError(p, "%s only supports numeric types, not %s",
                     pN->zOp, exprTypeName(&v));
  }
  docextNumFrom(&v, &x);
  if( pN->eOp==EX_ABS ){
    if( x.type==DOC_DECIMAL128 ){
      x.aDec[15] &= 0x7F;
    }else if( x.type==DOC_DOUBLE ){
      x.d = fabs(x.d);
    }else if( x.i<0 ){
      if( x.i==INT64_MIN ) return exprError(p, "can't take $abs of the smallest long");
      docextNumNegate(&x);
    }
  }else if( x.type==DOC_DOUBLE ){
    x.d = pN->eOp==EX_CEIL ? ceil(x.d) : pN->eOp==EX_FLOOR ? floor(x.d) : trunc(x.d);
  }else if( x.type==DOC_DECIMAL128 ){
    u8 a[16];
    if( exprDecIntegral(x.aDec, pN->eOp, a) ) return exprError(p, "%s overflow", pN->zOp);
    memcpy(x.aDec, a, 16);
  }
  return exprSetNum(p, &x, pOut);
}

/* Is v a whole number that an int32 holds? Its value goes to *pN. */
static int exprWholeInt(const DocValue *v, int *pN){
  double d;
  if( !docextValueIsNumber(v) ) return 0;
  d = docextValueToDouble(v);
  if( d!=floor(d) || d<INT32_MIN || d>INT32_MAX ) return 0;     /* (NaN too) */
  *pN = (int)d;
  return 1;
}

/* $arrayElemAt: [array, index]; a negative index counts from the end. */
static int exprEvalElemAt(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  DocIter it;
  int n, i;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprNullish(&a[0]) || exprNullish(&a[1]) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( a[0].type!=DOC_ARRAY ){
    return exprError(p, "$arrayElemAt's first argument must be an array, not %s",
                     exprTypeName(&a[0]));
  }
  if( !docextValueIsNumber(&a[1]) ){
    return exprError(p, "$arrayElemAt's second argument must be a number, not %s",
                     exprTypeName(&a[1]));
  }
  if( !exprWholeInt(&a[1], &i) ){
    return exprError(p, "$arrayElemAt's second argument must be "
                        "representable as a 32-bit integer");
  }
  n = docextIterCount(&a[0]);
  if( i<0 ) i += n;
  exprSetMissing(pOut);
  if( i<0 || i>=n ) return SQLITE_OK;
  docextIterInitValue(&it, &a[0]);
  while( docextIterNext(&it) && i-- > 0 ){}
  *pOut = it.v;
  return SQLITE_OK;
}

/* $concat: strings, or null when one is nullish. */
static int exprEvalConcat(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocBuf b;
  int i, rc = SQLITE_OK;
  memset(&b, 0, sizeof(b));
  for(i=0; i<pN->nArg; i++){
    DocValue v;
    const char *z;
    int n;
    if( exprEval(p, pN->apArg[i], &v) ) break;
    if( exprNullish(&v) ){
      docextBufFree(&b);
      exprSetNull(pOut);
      return SQLITE_OK;
    }
    if( v.type!=DOC_STRING ){
      exprError(p, "$concat only supports strings, not %s", exprTypeName(&v));
      break;
    }
    z = docextValueStr(&v, &n);
    docextBufAppend(&rc, &b, z, n);
    if( b.n>DOCEXT_MAX_BSON ){
      exprError(p, "$concat makes a string larger than 16 MiB");
      break;
    }
  }
  if( p->rc==SQLITE_OK && rc ) p->rc = rc;
  if( p->rc==SQLITE_OK ) exprSetString(p, &b, pOut);
  docextBufFree(&b);
  return p->rc;
}

/* $strLenBytes, $strLenCP. */
static int exprEvalStrLen(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue v;
  const char *z;
  int n, i, nCP = 0;
  if( exprEval(p, pN->apArg[0], &v) ) return p->rc;
  if( v.type!=DOC_STRING ){
    return exprError(p, "%s needs a string, not %s", pN->zOp, exprTypeName(&v));
  }
  z = docextValueStr(&v, &n);
  if( pN->eOp==EX_STRLENBYTES ) return exprSetInt(p, n, pOut);
  for(i=0; i<n; i++) nCP += ((u8)z[i] & 0xC0)!=0x80;    /* not a continuation */
  return exprSetInt(p, nCP, pOut);
}

/* $size, $in, $isArray. */
static int exprEvalArrayOp(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( pN->eOp==EX_ISARRAY ){
    exprSetBool(pOut, a[0].type==DOC_ARRAY);
    return SQLITE_OK;
  }
  if( pN->eOp==EX_SIZE ){
    if( a[0].type!=DOC_ARRAY ){
      return exprError(p, "$size needs an array, not %s", exprTypeName(&a[0]));
    }
    return exprSetInt(p, docextIterCount(&a[0]), pOut);
  }
  if( a[1].type!=DOC_ARRAY ){
    return exprError(p, "$in needs an array as its second argument, not %s",
                     exprTypeName(&a[1]));
  }
  {
    DocIter it;
    int bFound = 0;
    docextIterInitValue(&it, &a[1]);
    while( !bFound && docextIterNext(&it) ) bFound = exprCompare(p->pCollator, &a[0], &it.v)==0;
    exprSetBool(pOut, bFound);
  }
  return SQLITE_OK;
}

/* $cond, $ifNull, $switch: only the arguments that decide are evaluated. */
static int exprEvalChoice(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue v;
  int i;
  switch( pN->eOp ){
    case EX_COND:
      if( exprEval(p, pN->apArg[0], &v) ) return p->rc;
      return exprEval(p, pN->apArg[docextValueTruth(&v) ? 1 : 2], pOut);
    case EX_IFNULL:
      for(i=0; i<pN->nArg-1; i++){
        if( exprEval(p, pN->apArg[i], pOut) ) return p->rc;
        if( !exprNullish(pOut) ) return SQLITE_OK;
      }
      return exprEval(p, pN->apArg[pN->nArg-1], pOut);
    default: {                                          /* EX_SWITCH */
      int nBranch = (pN->nArg - pN->bDefault)/2;
      for(i=0; i<nBranch; i++){
        if( exprEval(p, pN->apArg[2*i], &v) ) return p->rc;
        if( docextValueTruth(&v) ) return exprEval(p, pN->apArg[2*i+1], pOut);
      }
      if( pN->bDefault ) return exprEval(p, pN->apArg[pN->nArg-1], pOut);
      return exprError(p, "$switch found no branch for a document, "
                          "and has no default");
    }
  }
  return SQLITE_OK;
}

/* $and, $or (stopping at the first that decides), $not. */
static int exprEvalLogic(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue v;
  int i, bOr = pN->eOp==EX_OR;
  if( pN->eOp==EX_NOT ){
    if( exprEval(p, pN->apArg[0], &v) ) return p->rc;
    exprSetBool(pOut, !docextValueTruth(&v));
    return SQLITE_OK;
  }
  for(i=0; i<pN->nArg; i++){
    if( exprEval(p, pN->apArg[i], &v) ) return p->rc;
    if( docextValueTruth(&v)==bOr ){
      exprSetBool(pOut, bOr);
      return SQLITE_OK;
    }
  }
  exprSetBool(pOut, !bOr);
  return SQLITE_OK;
}

/* $eq ... $lte, $cmp. */
static int exprEvalCompare(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  int c;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  c = exprCompare(p->pCollator, &a[0], &a[1]);
  switch( pN->eOp ){
    case EX_EQ:  exprSetBool(pOut, c==0); break;
    case EX_NE:  exprSetBool(pOut, c!=0); break;
    case EX_GT:  exprSetBool(pOut, c>0); break;
    case EX_GTE: exprSetBool(pOut, c>=0); break;
    case EX_LT:  exprSetBool(pOut, c<0); break;
    case EX_LTE: exprSetBool(pOut, c<=0); break;
    default:     return exprSetInt(p, c<0 ? -1 : c>0, pOut);
  }
  return SQLITE_OK;
}

/* An array argument v of pN: SQLITE_OK and *pbNull when it is null or
** missing (the result is then null); an error when it is not an array. */
static int exprArrayArg(ExprCtx *p, const ExprNode *pN, const DocValue *v, int *pbNull){
  *pbNull = exprNullish(v);
  if( !*pbNull && v->type!=DOC_ARRAY ){
    return exprError(p, "%s needs an array, not %s", pN->zOp, exprTypeName(v));
  }
  return SQLITE_OK;
}

/* $map, $filter, $reduce: an expression per element, the element in a
** variable's slot. */
static int exprEvalIterate(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue input, acc;
  ExprArray a;
  DocIter it;
  int bNull;
  i64 nLimit = -1;
  if( exprEval(p, pN->apArg[0], &input) || exprArrayArg(p, pN, &input, &bNull) ) return p->rc;
  if( pN->eOp==EX_FILTER && pN->nArg>2 ){
    DocValue lim;
    int k;
    if( exprEval(p, pN->apArg[2], &lim) ) return p->rc;
    if( !exprNullish(&lim) ){
      if( !exprWholeInt(&lim, &k) || k<1 ){
        return exprError(p, "$filter's limit must be a positive whole number");
      }
      nLimit = k;
    }
  }
  if( bNull ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  docextIterInitValue(&it, &input);
  if( pN->eOp==EX_REDUCE ){
    if( exprEval(p, pN->apArg[1], &acc) ) return p->rc;
    while( docextIterNext(&it) ){
      p->aSlot[pN->iSlot] = acc;
      p->aSlot[pN->iSlot+1] = it.v;
      if( exprEval(p, pN->apArg[2], &acc) ) return p->rc;
    }
    *pOut = acc;
    return SQLITE_OK;
  }
  exprArrayStart(&a);
  while( nLimit!=0 && docextIterNext(&it) ){
    DocValue v;
    p->aSlot[pN->iSlot] = it.v;
    if( exprEval(p, pN->apArg[1], &v) ) break;
    if( pN->eOp==EX_MAP ){
      if( !exprArrayAdd(&a, &v) ) break;
    }else if( docextValueTruth(&v) ){
      if( !exprArrayAdd(&a, &it.v) ) break;
      if( nLimit>0 ) nLimit--;
    }
  }
  return exprArrayEnd(p, &a, pOut);
}

/* $concatArrays, $reverseArray, $first, $last, $slice. */
static int exprEvalArrays(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue aVal[3], v;
  ExprArray a;
  DocIter it;
  int bNull, n, i, iFrom, nTake;
  if( pN->eOp==EX_CONCATARRAYS ){
    exprArrayStart(&a);
    for(i=0; i<pN->nArg; i++){
      if( exprEval(p, pN->apArg[i], &v) || exprArrayArg(p, pN, &v, &bNull) ) break;
      if( bNull ){
        docextBufFree(&a.b);
        exprSetNull(pOut);
        return SQLITE_OK;
      }
      docextIterInitValue(&it, &v);
      while( docextIterNext(&it) && exprArrayAdd(&a, &it.v) ){}
    }
    return exprArrayEnd(p, &a, pOut);
  }
  if( exprEvalArgs(p, pN, aVal) || exprArrayArg(p, pN, &aVal[0], &bNull) ) return p->rc;
  if( bNull ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  n = docextIterCount(&aVal[0]);
  iFrom = 0;
  nTake = n;
  if( pN->eOp==EX_FIRST || pN->eOp==EX_LAST ){
    iFrom = pN->eOp==EX_FIRST ? 0 : n-1;
    nTake = 1;
    exprSetMissing(pOut);                    /* (of an empty array) */
  }else if( pN->eOp==EX_SLICE ){
    int k[2];
    i64 x;
    for(i=1; i<pN->nArg; i++){
      if( !exprWholeInt(&aVal[i], &k[i-1]) ){
        return exprError(p, "$slice's position and count must be whole "
                            "numbers, not %s", exprTypeName(&aVal[i]));
      }
    }
    if( pN->nArg==2 ){
      x = k[0]<0 ? -(i64)k[0] : k[0];                /* how many */
      nTake = x<n ? (int)x : n;
      iFrom = k[0]<0 ? n - nTake : 0;
    }else{
      if( k[1]<=0 ) return exprError(p, "$slice's count must be positive");
      x = k[0]<0 ? (i64)n + k[0] : k[0];             /* where from */
      iFrom = x<0 ? 0 : (x>n ? n : (int)x);
      nTake = k[1] < n - iFrom ? k[1] : n - iFrom;
    }
  }
  if( pN->eOp==EX_FIRST || pN->eOp==EX_LAST ){
    docextIterInitValue(&it, &aVal[0]);
    for(i=0; i<n && docextIterNext(&it); i++){
      if( i==iFrom ) *pOut = it.v;
    }
    return SQLITE_OK;
  }
  exprArrayStart(&a);
  if( pN->eOp==EX_REVERSEARRAY ){
    /* the elements' values, then added from the last */
    DocValue *aEl = sqlite3_malloc64(sizeof(DocValue)*(n>0 ? n : 1));
    if( aEl==0 ){
      docextBufFree(&a.b);
      return p->rc = SQLITE_NOMEM;
    }
    docextIterInitValue(&it, &aVal[0]);
    for(i=0; docextIterNext(&it); i++) aEl[i] = it.v;
    for(i=n-1; i>=0 && exprArrayAdd(&a, &aEl[i]); i--){}
    sqlite3_free(aEl);
  }else{
    docextIterInitValue(&it, &aVal[0]);
    for(i=0; docextIterNext(&it) && i<iFrom+nTake; i++){
      if( i>=iFrom && !exprArrayAdd(&a, &it.v) ) break;
    }
  }
  return exprArrayEnd(p, &a, pOut);
}

/*------------------------------------------------------------------------
** Accumulators: $group's ($sum, $avg, $min, $max, $first, $last, $push,
** $addToSet, $stdDevPop, $stdDevSamp, $firstN, $lastN, $minN, $maxN, $top,
** $bottom, $topN, $bottomN, $mergeObjects), which the expressions $sum,
** $avg, $min, $max and the standard deviations also use over an array.
**
** $sum, $avg and the standard deviations take the numbers and ignore the
** rest; $min and $max ignore null and missing; $first and $last take null
** for missing; $push and $addToSet skip missing. A standard deviation is
** computed in doubles by Welford's online algorithm, as MongoDB's
** accumulator does: null without numbers ($stdDevSamp: fewer than two).
** A value kept (a best, a first, a list) is stored as its type byte and
** its BSON bytes, so it outlives the document it came from.
**
** $firstN ... $bottomN keep items, each a sort key and a value, in key
** order, as MongoDB's accumulator_multi.cpp keeps them in a multiset: a
** new item goes after those with an equal key, and once there are n, it
** goes in only when its key is strictly better than the worst one's,
** which leaves. So a tie keeps the item that came first. $minN and $maxN
** rank values by BSON's comparison (docextKeyAppend), skipping null and
** missing; $top ... rank by sortBy; $firstN and $lastN keep arrival order
** and take missing as null.
*/

static int exprWholeI64(const DocValue *v, i64 *pn);

static const char *const azAccumOp[] = {
  "$sum", "$avg", "$min", "$max", "$first", "$last", "$push", "$addToSet",
  "$stdDevPop", "$stdDevSamp", "$firstN", "$lastN", "$minN", "$maxN", "$top",
  "$bottom", "$topN", "$bottomN", "$mergeObjects",
};

int docextAccumOp(const char *z, int n){
  int i = docextNameIndex(z, n, azAccumOp, DOCEXT_COUNT(azAccumOp));
  return i<0 ? 0 : DOCEXT_ACC_SUM + i;
}

static const char *accumName(int eOp){
  return azAccumOp[eOp - DOCEXT_ACC_SUM];
}

/* Does eOp take sortBy and output ($top ...), rather than input? */
static int accumHasSortBy(int eOp){
  return eOp>=DOCEXT_ACC_TOP && eOp<=DOCEXT_ACC_BOTTOMN;
}

int docextAccumArgs(int eOp, const DocValue *v, DocBuf *pOwn, DocValue *pInput,
                    DocValue *pN, DocSort **ppSort, char **pzErr){
  static const u8 aOne[4] = {1, 0, 0, 0};
  const char *zOp = accumName(eOp);
  int bSortBy = accumHasSortBy(eOp);
  int bN = eOp!=DOCEXT_ACC_TOP && eOp!=DOCEXT_ACC_BOTTOM;
  const char *zShape = !bSortBy ? "{n: ..., input: ...}"
                     : bN ? "{n: ..., sortBy: {...}, output: ...}" : "{sortBy: {...}, output: ...}";
  DocValue input, output, sortBy, n;
  DocIter it;
  DocSort *pCheck = 0;
  i64 iDoc, iArg, iSort;
  int rc = SQLITE_OK, i;
  memset(&input, 0, sizeof(input));
  memset(&output, 0, sizeof(output));
  memset(&sortBy, 0, sizeof(sortBy));
  memset(&n, 0, sizeof(n));
  *ppSort = 0;
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: %s takes a document, as %s", zOp, zShape);
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( bN && docextIterKeyIs(&it, "n") ) n = it.v;
    else if( !bSortBy && docextIterKeyIs(&it, "input") ) input = it.v;
    else if( bSortBy && docextIterKeyIs(&it, "output") ) output = it.v;
    else if( bSortBy && docextIterKeyIs(&it, "sortBy") ) sortBy = it.v;
    else return docextError(pzErr, "docext: unknown argument '%s' of %s, which takes %s",
                            it.zKey, zOp, zShape);
  }
  if( bN && n.type==0 ) return docextError(pzErr, "docext: %s needs n", zOp);
  if( !bN ){
    n.type = DOC_INT32;
    n.p = aOne;
    n.n = 4;
  }
  *pN = n;
  if( !bSortBy ){
    if( input.type==0 ) return docextError(pzErr, "docext: %s needs an input", zOp);
    *pInput = input;
    return SQLITE_OK;
  }
  if( output.type==0 ) return docextError(pzErr, "docext: %s needs an output", zOp);
  if( sortBy.type!=DOC_DOCUMENT || docextIterCount(&sortBy)==0 ){
    return docextError(pzErr, "docext: %s needs a sortBy document, as {score: -1}", zOp);
  }
  /* (the user's sortBy first, so that its errors name its fields) */
  rc = docextSortNew(sortBy.p, &pCheck, pzErr);
  docextSortFree(pCheck);
  if( rc ) return rc;
  /* {i: {output: <output>, sortFields0: "$<path 0>", ...},
  **  s: {sortFields0: <direction 0>, ...}} */
  docextBufReset(pOwn);
  iDoc = docextBsonStartDoc(&rc, pOwn);
  iArg = docextBsonStartChild(&rc, pOwn, DOC_DOCUMENT, "i", 1);
  docextBsonAppendValue(&rc, pOwn, "output", 6, &output);
  docextIterInitValue(&it, &sortBy);
  for(i=0; docextIterNext(&it); i++){
    char zName[32];
    int nName = (int)strlen(sqlite3_snprintf(sizeof(zName), zName, "sortFields%d", i));
    docextBsonAppendFieldRef(&rc, pOwn, zName, nName, it.zKey, it.nKey);
  }
  docextBsonEndDoc(&rc, pOwn, iArg);
  iSort = docextBsonStartChild(&rc, pOwn, DOC_DOCUMENT, "s", 1);
  docextIterInitValue(&it, &sortBy);
  for(i=0; docextIterNext(&it); i++){
    char zName[32];
    int nName = (int)strlen(sqlite3_snprintf(sizeof(zName), zName, "sortFields%d", i));
    docextBsonAppendValue(&rc, pOwn, zName, nName, &it.v);
  }
  docextBsonEndDoc(&rc, pOwn, iSort);
  docextBsonEndDoc(&rc, pOwn, iDoc);
  if( rc ) return rc;
  docextIterInit(&it, pOwn->a);
  docextIterNext(&it);
  *pInput = it.v;
  docextIterNext(&it);
  return docextSortNew(it.v.p, ppSort, pzErr);
}

/* Give accumulator p its n, the value v (a positive whole number, else
** SQLITE_ERROR), and its order (pSort). */
static int accumSetN(DocAccum *p, const DocValue *v, DocSort *pSort, char **pzErr){
  i64 n;
  if( !exprWholeI64(v, &n) || n<1 ){
    if( docextValueIsNumber(v) ){
      return docextError(pzErr, "docext: %s's n must be a positive whole number",
                         accumName(p->eOp));
    }
    return docextError(pzErr, "docext: %s's n must be a positive whole number, not %s",
                       accumName(p->eOp), exprTypeName(v));
  }
  p->nLimit = n;
  p->pSort = pSort;
  return SQLITE_OK;
}

int docextAccumStart(DocAccum *p, int eOp, DocExpr *pN, DocSort *pSort, const u8 *aDoc,
                     char **pzErr){
  DocBuf tmp;
  DocValue n;
  int rc;
  docextAccumInit(p, eOp);
  if( pN==0 ) return SQLITE_OK;
  memset(&tmp, 0, sizeof(tmp));
  rc = docextExprValue(pN, aDoc, &tmp, &n, pzErr);
  if( rc==SQLITE_OK ) rc = accumSetN(p, &n, pSort, pzErr);
  docextBufFree(&tmp);
  return rc;
}

void docextAccumInit(DocAccum *p, int eOp){
  memset(p, 0, sizeof(*p));
  p->eOp = eOp;
  docextSumInit(&p->sum);
}

int docextAccumQuantile(const char *zOp, const DocValue *v, const u8 *aLet, i64 nowMs,
                        DocBuf *pOwn, DocExpr **ppFinish, DocValue *pInput, char **pzErr){
  DocIter it;
  int rc = SQLITE_OK, bInput = 0;
  i64 iDoc, iOp, iArgs;
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: %s takes a document, as {input: …, %smethod: "
                       "\"approximate\"}", zOp, zOp[1]=='p' ? "p: [0.5], " : "");
  }
  /* {"": {$median: {input: "$v", …the rest as given}}} */
  docextBufReset(pOwn);
  iDoc = docextBsonStartDoc(&rc, pOwn);
  iOp = docextBsonStartChild(&rc, pOwn, DOC_DOCUMENT, "", 0);
  iArgs = docextBsonStartChild(&rc, pOwn, DOC_DOCUMENT, zOp, (int)strlen(zOp));
  docextIterInitValue(&it, v);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( docextIterKeyIs(&it, "input") ){
      *pInput = it.v;
      bInput = 1;
      docextBsonAppendFieldRef(&rc, pOwn, "input", 5, "v", 1);
    }else{
      docextBsonAppendValue(&rc, pOwn, it.zKey, it.nKey, &it.v);
    }
  }
  docextBsonEndDoc(&rc, pOwn, iArgs);
  docextBsonEndDoc(&rc, pOwn, iOp);
  docextBsonEndDoc(&rc, pOwn, iDoc);
  if( rc ) return rc;
  if( !bInput ) return docextError(pzErr, "docext: %s needs an input", zOp);
  docextIterInit(&it, pOwn->a);
  docextIterNext(&it);
  return docextExprNew(&it.v, aLet, zOp, nowMs, ppFinish, pzErr);
}

int docextAccumFinish(DocExpr *pFinish, DocAccum *pAcc, DocBuf *pOut, const char *zKey,
                      int nKey, char **pzErr){
  DocBuf doc, tmp;
  DocValue v;
  int rc = SQLITE_OK;
  i64 iDoc;
  memset(&doc, 0, sizeof(doc));
  memset(&tmp, 0, sizeof(tmp));
  /* {v: [the values]}, and the operator over $v */
  iDoc = docextBsonStartDoc(&rc, &doc);
  docextAccumResult(&rc, pAcc, &doc, "v", 1);
  docextBsonEndDoc(&rc, &doc, iDoc);
  if( rc==SQLITE_OK ) rc = docextExprValue(pFinish, doc.a, &tmp, &v, pzErr);
  if( rc==SQLITE_OK ){
    if( v.type ) docextBsonAppendValue(&rc, pOut, zKey, nKey, &v);
    else docextBsonAppendNull(&rc, pOut, zKey, nKey);
  }
  docextBufFree(&doc);
  docextBufFree(&tmp);
  return rc;
}

void docextAccumFree(DocAccum *p){
  int i;
  docextBufFree(&p->val);
  for(i=0; i<p->nItem; i++) sqlite3_free(p->aItem[i]);
  sqlite3_free(p->aItem);
  p->aItem = 0;
  p->nItem = p->nItemAlloc = 0;
  p->nItemBytes = 0;
}

/* The value stored at a (its type byte, then its bytes). */
static const u8 *accumLoad(const u8 *a, const u8 *aEnd, DocValue *pOut){
  pOut->type = a[0];
  pOut->p = a+1;
  pOut->n = docextBsonValueSize(a[0], a+1, aEnd-(a+1));
  return pOut->p + pOut->n;
}

static void accumStore(int *pRc, DocBuf *pBuf, const DocValue *v){
  docextBufAppendByte(pRc, pBuf, v->type);
  docextBufAppend(pRc, pBuf, v->p, v->n);
}

/* An item of $firstN ... $bottomN, in one block: the lengths of its key
** and of its value (4 bytes each), the value's type, the key, the value. */
static u8 *itemNew(const u8 *aKey, int nKey, const DocValue *v){
  u8 *a = sqlite3_malloc64(9 + (i64)nKey + v->n);
  if( a ){
    memcpy(a, &nKey, 4);
    memcpy(a+4, &v->n, 4);
    a[8] = v->type;
    if( nKey ) memcpy(a+9, aKey, nKey);
    if( v->n ) memcpy(a+9+nKey, v->p, v->n);
  }
  return a;
}
static const u8 *itemKey(const u8 *a, int *pnKey){
  memcpy(pnKey, a, 4);
  return a+9;
}
static void itemValue(const u8 *a, DocValue *pV){
  int nKey;
  memcpy(&nKey, a, 4);
  memcpy(&pV->n, a+4, 4);
  pV->type = a[8];
  pV->p = a+9+nKey;
}
static i64 itemSize(const u8 *a){
  int nKey, nVal;
  memcpy(&nKey, a, 4);
  memcpy(&nVal, a+4, 4);
  return 9 + (i64)nKey + nVal;
}

static void itemDrop(DocAccum *p, int i){
  p->nItemBytes -= itemSize(p->aItem[i]);
  sqlite3_free(p->aItem[i]);
  memmove(&p->aItem[i], &p->aItem[i+1], sizeof(u8*)*(size_t)(p->nItem-i-1));
  p->nItem--;
}

/* Put item (aKey, v) in place i. */
static int itemInsert(DocAccum *p, int i, const u8 *aKey, int nKey, const DocValue *v){
  u8 *a;
  if( p->nItemBytes + nKey + v->n > DOCEXT_MAX_BSON ) return SQLITE_TOOBIG;
  if( p->nItem>=p->nItemAlloc ){
    int nNew = p->nItemAlloc ? p->nItemAlloc*2 : 8;
    u8 **aNew = sqlite3_realloc64(p->aItem, sizeof(u8*)*(size_t)nNew);
    if( aNew==0 ) return SQLITE_NOMEM;
    p->aItem = aNew;
    p->nItemAlloc = nNew;
  }
  a = itemNew(aKey, nKey, v);
  if( a==0 ) return SQLITE_NOMEM;
  memmove(&p->aItem[i+1], &p->aItem[i], sizeof(u8*)*(size_t)(p->nItem-i));
  p->aItem[i] = a;
  p->nItem++;
  p->nItemBytes += itemSize(a);
  return SQLITE_OK;
}

/* Rank item (aKey, v) among p's: bLow keeps the n lowest keys ($top,
** $topN, $minN), else the n highest. */
static int itemRank(DocAccum *p, const u8 *aKey, int nKey, const DocValue *v, int bLow){
  int lo = 0, hi, nK;
  if( !p->bKeepAll && p->nItem>=p->nLimit ){
    int iWorst = bLow ? p->nItem-1 : 0;
    const u8 *aW = itemKey(p->aItem[iWorst], &nK);
    int c = docextKeyCmp(aW, nK, aKey, nKey);
    if( bLow ? c<=0 : c>=0 ) return SQLITE_OK;
    itemDrop(p, iWorst);
  }
  hi = p->nItem;
  while( lo<hi ){                   /* after the items with equal keys */
    int mid = (lo+hi)/2;
    const u8 *a = itemKey(p->aItem[mid], &nK);
    if( docextKeyCmp(a, nK, aKey, nKey)<=0 ) lo = mid+1;
    else hi = mid;
  }
  return itemInsert(p, lo, aKey, nKey, v);
}

/* Take v into $firstN ... $bottomN. */
static int accumAddItem(DocAccum *p, const DocValue *v, char **pzErr){
  static const u8 aNull[1] = {0};
  DocValue null = { DOC_NULL, aNull, 0 }, out;
  DocBuf key;
  u8 aSpace[128];
  int rc = SQLITE_OK;
  switch( p->eOp ){
    /* (missing is null, but a window's keeps it, to be left out of the
    ** array: MongoDB's window function keeps the value as it is) */
    case DOCEXT_ACC_FIRSTN:
      if( p->nItem>=p->nLimit ) return SQLITE_OK;
      return itemInsert(p, p->nItem, 0, 0, v->type || p->bKeepAll ? v : &null);
    case DOCEXT_ACC_LASTN:
      if( !p->bKeepAll && p->nItem>=p->nLimit ) itemDrop(p, 0);
      return itemInsert(p, p->nItem, 0, 0, v->type || p->bKeepAll ? v : &null);
    default:
      break;
  }
  docextBufInit(&key, aSpace, sizeof(aSpace));
  if( p->eOp==DOCEXT_ACC_MINN || p->eOp==DOCEXT_ACC_MAXN ){
    if( exprNullish(v) ) return SQLITE_OK;
    docextKeyAppendColl(&rc, &key, v, 0, p->pCollator);
    out = *v;
  }else{
    /* v is {output, sortFields0, ...} (docextAccumArgs) */
    if( v->type!=DOC_DOCUMENT || !docextBsonFind(v->p, "output", 6, &out) ) out = null;
    if( v->type==DOC_DOCUMENT ) rc = docextSortKey(p->pSort, v->p, &key, pzErr);
  }
  if( rc==SQLITE_OK ){
    rc = itemRank(p, key.a, (int)key.n, &out,
                  p->eOp==DOCEXT_ACC_MINN || p->eOp==DOCEXT_ACC_TOP || p->eOp==DOCEXT_ACC_TOPN);
  }
  docextBufFree(&key);
  return rc;
}

void docextAccumAdd(int *pRc, DocAccum *p, const DocValue *v, char **pzErr){
  static const u8 aNull[1] = {0};
  DocValue null = { DOC_NULL, aNull, 0 }, best;
  DocNum x;
  if( *pRc ) return;
  if( docextAccumHasArgs(p->eOp) ){
    *pRc = accumAddItem(p, v, pzErr);
    return;
  }
  switch( p->eOp ){
    case DOCEXT_ACC_SUM: case DOCEXT_ACC_AVG:
      if( !docextValueIsNumber(v) ) return;
      docextNumFrom(v, &x);
      *pRc = docextSumAdd(&p->sum, &x);
      p->nNum++;
      return;
    case DOCEXT_ACC_STDDEVPOP: case DOCEXT_ACC_STDDEVSAMP: {
      double d, delta;
      if( !docextValueIsNumber(v) ) return;
      docextNumFrom(v, &x);
      d = docextNumDouble(&x);
      p->nNum++;
      delta = d - p->mean;
      p->mean += delta / p->nNum;
      p->m2 += delta * (d - p->mean);
      return;
    }
    case DOCEXT_ACC_MIN: case DOCEXT_ACC_MAX:
      if( exprNullish(v) ) return;
      if( p->val.n>0 ){
        int c;
        accumLoad(p->val.a, p->val.a + p->val.n, &best);
        c = exprCompare(p->pCollator, v, &best);
        if( p->eOp==DOCEXT_ACC_MIN ? c>=0 : c<=0 ) return;
      }
      docextBufReset(&p->val);
      accumStore(pRc, &p->val, v);
      return;
    case DOCEXT_ACC_FIRST: case DOCEXT_ACC_LAST:
      if( p->eOp==DOCEXT_ACC_FIRST && p->nVal>0 ) return;
      docextBufReset(&p->val);
      accumStore(pRc, &p->val, v->type ? v : &null);
      p->nVal = 1;
      return;
    case DOCEXT_ACC_MERGEOBJECTS:
      if( exprNullish(v) ) return;
      if( v->type!=DOC_DOCUMENT ){
        *pRc = docextError(pzErr, "docext: $mergeObjects needs documents, not %s",
                           exprTypeName(v));
        return;
      }
      /* (kept as $push keeps them, merged at the end) */
      /* fall through */
    default:                  /* $push, $addToSet */
      if( v->type==0 ) return;
      /* (a list past 16 MiB can never be written: stop it growing) */
      if( p->val.n + v->n > DOCEXT_MAX_BSON ){
        *pRc = SQLITE_TOOBIG;
        return;
      }
      accumStore(pRc, &p->val, v);
      p->nVal++;
      return;
  }
}

/* The keys ($addToSet) of the stored values, compared by docextSort. */
typedef struct AccumKey AccumKey;
struct AccumKey { i64 iKey; int nKey; int iVal; };
static int accumKeyCmp(void *pCtx, const void *x, const void *y){
  const u8 *aKeys = (const u8*)pCtx;
  const AccumKey *a = (const AccumKey*)x, *b = (const AccumKey*)y;
  return docextKeyCmp(aKeys + a->iKey, a->nKey, aKeys + b->iKey, b->nKey);
}

/* $push and $addToSet: the stored values as an array element zKey; for
** $addToSet each value once (equal by BSON's comparison, 1 and 1.0 alike),
** in BSON order. */
static void accumArray(int *pRc, DocAccum *p, DocBuf *pOut, const char *zKey, int nKey){
  const u8 *a = p->val.a, *aEnd = p->nVal>0 ? p->val.a + p->val.n : 0;
  DocValue *aVal = 0;
  AccumKey *aKey = 0;
  DocBuf keys;
  i64 iArr;
  int i, nOut = 0;
  memset(&keys, 0, sizeof(keys));
  if( p->nVal>0 ){
    aVal = sqlite3_malloc64(sizeof(DocValue)*p->nVal);
    aKey = sqlite3_malloc64(sizeof(AccumKey)*p->nVal*2);
    if( aVal==0 || aKey==0 ) *pRc = SQLITE_NOMEM;
  }
  for(i=0; *pRc==SQLITE_OK && i<p->nVal; i++){
    a = accumLoad(a, aEnd, &aVal[i]);
    aKey[i].iKey = keys.n;
    aKey[i].iVal = i;
    if( p->eOp==DOCEXT_ACC_ADDTOSET ) docextKeyAppendColl(pRc, &keys, &aVal[i], 0, p->pCollator);
    aKey[i].nKey = (int)(keys.n - aKey[i].iKey);
  }
  if( *pRc==SQLITE_OK && p->eOp==DOCEXT_ACC_ADDTOSET && p->nVal>1 ){
    docextSort(aKey, p->nVal, sizeof(AccumKey), &aKey[p->nVal], accumKeyCmp, keys.a);
  }
  iArr = docextBsonStartChild(pRc, pOut, DOC_ARRAY, zKey, nKey);
  for(i=0; *pRc==SQLITE_OK && i<p->nVal; i++){
    char zIdx[16];
    if( p->eOp==DOCEXT_ACC_ADDTOSET && i>0
     && accumKeyCmp(keys.a, &aKey[i-1], &aKey[i])==0 ) continue;
    docextBsonAppendValue(pRc, pOut, zIdx, docextBsonArrayKey(zIdx, nOut++),
                          &aVal[aKey[i].iVal]);
  }
  docextBsonEndDoc(pRc, pOut, iArr);
  sqlite3_free(aVal);
  sqlite3_free(aKey);
  docextBufFree(&keys);
}

/* $firstN ... $bottomN: the items' values, as an array element zKey ($top
** and $bottom: the value itself, or null). Items kept beyond n (bKeepAll)
** give way as MongoDB's window functions choose: the first n, or for
** $lastN, $bottom ... and $maxN the last n; $maxN's run backwards. */
static void accumItems(int *pRc, DocAccum *p, DocBuf *pOut, const char *zKey, int nKey){
  int bTail = p->eOp==DOCEXT_ACC_LASTN || p->eOp==DOCEXT_ACC_MAXN
           || p->eOp==DOCEXT_ACC_BOTTOM || p->eOp==DOCEXT_ACC_BOTTOMN;
  int nTake = p->nItem<p->nLimit ? p->nItem : (int)p->nLimit;
  int iFrom = bTail ? p->nItem - nTake : 0, i, nOut = 0;
  i64 iArr;
  DocValue v;
  if( p->eOp==DOCEXT_ACC_TOP || p->eOp==DOCEXT_ACC_BOTTOM ){
    if( nTake==0 ){
      docextBsonAppendNull(pRc, pOut, zKey, nKey);
    }else{
      itemValue(p->aItem[iFrom], &v);
      docextBsonAppendValue(pRc, pOut, zKey, nKey, &v);
    }
    return;
  }
  iArr = docextBsonStartChild(pRc, pOut, DOC_ARRAY, zKey, nKey);
  for(i=0; i<nTake; i++){
    char zIdx[16];
    int iItem = p->eOp==DOCEXT_ACC_MAXN ? p->nItem-1-i : iFrom+i;
    itemValue(p->aItem[iItem], &v);
    if( v.type==0 ) continue;                 /* (a window's missing value) */
    docextBsonAppendValue(pRc, pOut, zIdx, docextBsonArrayKey(zIdx, nOut++), &v);
  }
  docextBsonEndDoc(pRc, pOut, iArr);
}

/* $mergeObjects: the documents kept, merged, as element zKey. */
static void accumMerge(int *pRc, DocAccum *p, DocBuf *pOut, const char *zKey, int nKey){
  const u8 *a = p->val.a, *aEnd = p->val.a + p->val.n;
  DocValue *aVal = sqlite3_malloc64(sizeof(DocValue)*(size_t)(p->nVal>0 ? p->nVal : 1));
  DocBuf doc;
  DocValue v;
  int i;
  memset(&doc, 0, sizeof(doc));
  if( aVal==0 ){
    *pRc = SQLITE_NOMEM;
    return;
  }
  for(i=0; i<p->nVal; i++) a = accumLoad(a, aEnd, &aVal[i]);
  *pRc = mergeDocs(aVal, p->nVal, &doc);
  if( *pRc==SQLITE_OK && doc.n>DOCEXT_MAX_BSON ) *pRc = SQLITE_TOOBIG;
  if( *pRc==SQLITE_OK ){
    v.type = DOC_DOCUMENT;
    v.p = doc.a;
    v.n = (int)doc.n;
    docextBsonAppendValue(pRc, pOut, zKey, nKey, &v);
  }
  sqlite3_free(aVal);
  docextBufFree(&doc);
}

void docextAccumResult(int *pRc, DocAccum *p, DocBuf *pOut, const char *zKey, int nKey){
  DocNum r;
  DocValue v;
  if( *pRc ) return;
  if( docextAccumHasArgs(p->eOp) ){
    accumItems(pRc, p, pOut, zKey, nKey);
    return;
  }
  switch( p->eOp ){
    case DOCEXT_ACC_MERGEOBJECTS:
      accumMerge(pRc, p, pOut, zKey, nKey);
      return;
    case DOCEXT_ACC_SUM:
      *pRc = docextSumResult(&p->sum, &r);
      docextNumAppend(pRc, pOut, zKey, nKey, &r);
      return;
    case DOCEXT_ACC_AVG:
      if( p->nNum==0 ) break;
      *pRc = docextSumAvg(&p->sum, p->nNum, &r);
      docextNumAppend(pRc, pOut, zKey, nKey, &r);
      return;
    case DOCEXT_ACC_STDDEVPOP: case DOCEXT_ACC_STDDEVSAMP: {
      i64 nDiv = p->nNum - (p->eOp==DOCEXT_ACC_STDDEVSAMP);
      if( nDiv<=0 ) break;
      docextBsonAppendDouble(pRc, pOut, zKey, nKey, sqrt(p->m2 / (double)nDiv));
      return;
    }
    case DOCEXT_ACC_PUSH: case DOCEXT_ACC_ADDTOSET:
      accumArray(pRc, p, pOut, zKey, nKey);
      return;
    default:                  /* $min, $max, $first, $last */
      if( p->val.n==0 ) break;
      accumLoad(p->val.a, p->val.a + p->val.n, &v);
      docextBsonAppendValue(pRc, pOut, zKey, nKey, &v);
      return;
  }
  docextBsonAppendNull(pRc, pOut, zKey, nKey);
}

/* The result of accumulator pAcc (rc: its adding's) as the expression's
** value. */
static int exprAccumValue(ExprCtx *p, DocAccum *pAcc, int rc, DocValue *pOut){
  DocBuf out;
  u8 aOut[64];
  docextBufInit(&out, aOut, sizeof(aOut));
  /* (the result as one element, "" of type t: t, 0, the value's bytes) */
  docextAccumResult(&rc, pAcc, &out, "", 0);
  if( rc==SQLITE_OK ) exprSetBytes(p, out.a[0], out.a+2, out.n-2, pOut);
  if( rc ) p->rc = rc;
  docextBufFree(&out);
  return p->rc;
}

/* The expressions $sum, $avg, $min, $max, $stdDevPop, $stdDevSamp: the
** accumulator over the elements of a single array argument, else over the
** arguments. */
static int exprEvalAccumulate(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  static const u8 aAcc[] = {
    [EX_SUM] = DOCEXT_ACC_SUM, [EX_AVG] = DOCEXT_ACC_AVG,
    [EX_MIN] = DOCEXT_ACC_MIN, [EX_MAX] = DOCEXT_ACC_MAX,
    [EX_STDDEVPOP] = DOCEXT_ACC_STDDEVPOP, [EX_STDDEVSAMP] = DOCEXT_ACC_STDDEVSAMP,
  };
  DocValue *aVal, aSpace[8];
  DocAccum acc;
  DocIter it;
  int i, bOne, rc = SQLITE_OK;
  aVal = pN->nArg<=DOCEXT_COUNT(aSpace) ? aSpace : sqlite3_malloc64(sizeof(DocValue)*pN->nArg);
  if( aVal==0 ) return p->rc = SQLITE_NOMEM;
  docextAccumInit(&acc, aAcc[pN->eOp]);
  acc.pCollator = p->pCollator;
  if( exprEvalArgs(p, pN, aVal)==SQLITE_OK ){
    bOne = pN->nArg==1 && aVal[0].type==DOC_ARRAY;
    if( bOne ){
      docextIterInitValue(&it, &aVal[0]);
      while( rc==SQLITE_OK && docextIterNext(&it) ) docextAccumAdd(&rc, &acc, &it.v, 0);
    }else{
      for(i=0; i<pN->nArg; i++) docextAccumAdd(&rc, &acc, &aVal[i], 0);
    }
    exprAccumValue(p, &acc, rc, pOut);
  }
  if( aVal!=aSpace ) sqlite3_free(aVal);
  docextAccumFree(&acc);
  return p->rc;
}

static int exprDoubleCmp(void *pCtx, const void *x, const void *y){
  double a = *(const double*)x, b = *(const double*)y;
  (void)pCtx;
  return a<b ? -1 : a>b;
}

/* Percentile q (0 to 1) of the n sorted doubles a (infinities included):
** discrete, the value of 0-based rank ceil(n*q) - 1 (the lower one where
** it is ambiguous), or continuous, interpolated at rank q*(n-1), as
** MongoDB's percentile_algo_discrete and _continuous compute them. */
static double exprQuantile(const double *a, int n, double q, int bContinuous){
  double rank, lo, hi;
  int iLo, iHi;
  if( !bContinuous ){
    if( q>=1.0 ) return a[n-1];
    iLo = (int)ceil(n*q) - 1;
    return a[iLo<0 ? 0 : iLo];
  }
  rank = q*(n-1);
  iLo = (int)floor(rank);
  iHi = (int)ceil(rank);
  lo = a[iLo];
  hi = a[iHi];
  if( isinf(lo) && lo<0 ) return lo;
  if( isinf(hi) && hi>0 ) return hi;
  if( iLo==iHi ) return lo;
  return (iHi - rank)*lo + (rank - iLo)*hi;
}

/* $median: {input, method}, $percentile: {input, p, method}. The numbers
** of an array input (NaN left out), or a number input alone, as doubles;
** without any, null (each of $percentile's is null). */
static int exprEvalQuantile(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[3];
  DocIter it;
  ExprArray arr;
  double *aX = 0, x;
  int n = 0, nAlloc = 0, bMedian = pN->eOp==EX_MEDIAN, rc = SQLITE_OK;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( !bMedian ){
    int bOk = a[1].type==DOC_ARRAY && docextIterCount(&a[1])>0;
    docextIterInitValue(&it, &a[1]);
    while( bOk && docextIterNext(&it) ){
      bOk = docextValueIsNumber(&it.v) && (x = docextValueToDouble(&it.v))>=0.0 && x<=1.0;
    }
    if( !bOk ) return exprError(p, "$percentile's p must be an array of numbers from 0.0 to 1.0");
  }
  /* (each value has room for its copy in docextSort's scratch, the
  ** second half of aX) */
  if( docextValueIsNumber(&a[0]) ){
    /* (a number alone is every percentile, NaN included, as in MongoDB) */
    aX = docextArrayGrow(&rc, aX, n, &nAlloc, 2*sizeof(double));
    if( rc==SQLITE_OK ) aX[n++] = docextValueToDouble(&a[0]);
  }else if( a[0].type==DOC_ARRAY ){
    docextIterInitValue(&it, &a[0]);
    while( rc==SQLITE_OK && docextIterNext(&it) ){
      if( !docextValueIsNumber(&it.v) || isnan(x = docextValueToDouble(&it.v)) ) continue;
      aX = docextArrayGrow(&rc, aX, n, &nAlloc, 2*sizeof(double));
      if( rc==SQLITE_OK ) aX[n++] = x;
    }
  }
  if( rc ){
    sqlite3_free(aX);
    return p->rc = rc;
  }
  if( n>1 ) docextSort(aX, n, sizeof(double), (u8*)aX + n*sizeof(double), exprDoubleCmp, 0);
  if( bMedian ){
    DocNum r;
    if( n==0 ){
      exprSetNull(pOut);
    }else{
      r.type = DOC_DOUBLE;
      r.d = exprQuantile(aX, n, 0.5, pN->eSub);
      exprSetNum(p, &r, pOut);
    }
    sqlite3_free(aX);
    return p->rc;
  }
  exprArrayStart(&arr);
  docextIterInitValue(&it, &a[1]);
  while( arr.rc==SQLITE_OK && docextIterNext(&it) ){
    char zKey[16];
    int nKey = docextBsonArrayKey(zKey, arr.n++);
    if( n==0 ){
      docextBsonAppendNull(&arr.rc, &arr.b, zKey, nKey);
    }else{
      x = exprQuantile(aX, n, docextValueToDouble(&it.v), pN->eSub);
      docextBsonAppendDouble(&arr.rc, &arr.b, zKey, nKey, x);
    }
  }
  sqlite3_free(aX);
  return exprArrayEnd(p, &arr, pOut);
}

/* $toLower, $toUpper (ASCII letters, as MongoDB), $substrCP. Null or
** missing is the empty string. */
static int exprEvalString(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue aVal[3];
  DocBuf b;
  const char *z = "";
  int n = 0, i;
  if( exprEvalArgs(p, pN, aVal) ) return p->rc;
  if( aVal[0].type==DOC_STRING || aVal[0].type==DOC_SYMBOL ){
    z = docextValueStr(&aVal[0], &n);
  }else if( !exprNullish(&aVal[0]) ){
    return exprError(p, "%s needs a string, not %s", pN->zOp, exprTypeName(&aVal[0]));
  }
  memset(&b, 0, sizeof(b));
  if( pN->eOp==EX_SUBSTRCP ){
    int d[2];
    int iStart = 0, iEnd, k;
    for(i=0; i<2; i++){
      if( !exprWholeInt(&aVal[i+1], &d[i]) || d[i]<0 ){
        return exprError(p, "$substrCP's %s must be a non-negative whole number",
                         i==0 ? "index" : "count");
      }
    }
    /* byte offsets of code points d[0] and d[0]+d[1] */
    for(k=0; iStart<n && k<d[0]; k++){
      iStart++;
      while( iStart<n && ((u8)z[iStart] & 0xC0)==0x80 ) iStart++;
    }
    iEnd = iStart;
    for(k=0; iEnd<n && k<d[1]; k++){
      iEnd++;
      while( iEnd<n && ((u8)z[iEnd] & 0xC0)==0x80 ) iEnd++;
    }
    b.a = (u8*)z + iStart;                    /* (read only: copied below) */
    b.n = iEnd - iStart;
    return exprSetString(p, &b, pOut);
  }
  {
    int rc = SQLITE_OK;
    docextBufAppend(&rc, &b, z, n);
    for(i=0; rc==SQLITE_OK && i<n; i++){
      u8 c = b.a[i];
      if( pN->eOp==EX_TOLOWER && c>='A' && c<='Z' ) b.a[i] = (u8)(c + 32);
      if( pN->eOp==EX_TOUPPER && c>='a' && c<='z' ) b.a[i] = (u8)(c - 32);
    }
    if( rc ) p->rc = rc;
    else exprSetString(p, &b, pOut);
    docextBufFree(&b);
    return p->rc;
  }
}

/*------------------------------------------------------------------------
** Math: $pow, $sqrt, $exp, $ln, $log, $log10, and $round/$trunc to a place
*/

/* The numbers of a math operator's arguments into ax[]: 1 when one is null
** or missing (the result is null), 0 when all are numbers, or the error. */
static int exprMathArgs(ExprCtx *p, const ExprNode *pN, DocNum *ax, int *pbNull){
  DocValue a[2];
  int i;
  *pbNull = 0;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  /* (a null anywhere gives null before any type is checked, as in MongoDB) */
  for(i=0; i<pN->nArg; i++) *pbNull |= exprNullish(&a[i]);
  for(i=0; i<pN->nArg && !*pbNull; i++){
    if( !docextValueIsNumber(&a[i]) ){
      return exprError(p, "%s only supports numeric types, not %s",
                       pN->zOp, exprTypeName(&a[i]));
    }
    docextNumFrom(&a[i], &ax[i]);
  }
  return SQLITE_OK;
}

/* A double result, or a decimal128 one when an argument was decimal
** (computed in double precision: see the README). */
static int exprSetReal(ExprCtx *p, double d, int bDecimal, DocValue *pOut){
  DocNum r;
  memset(&r, 0, sizeof(r));
  if( bDecimal ){
    r.type = DOC_DECIMAL128;
    docextDec128FromDouble(d, r.aDec);
  }else{
    r.type = DOC_DOUBLE;
    r.d = d;
  }
  return exprSetNum(p, &r, pOut);
}

/* b^e for integers, exactly: 0 when it overflows an int64. */
static int exprIntPow(i64 b, i64 e, i64 *pOut){
  i64 r = 1;
  while( e>0 ){
    if( e & 1 ){
      if( __builtin_mul_overflow(r, b, &r) ) return 0;
    }
    e >>= 1;
    if( e>0 && __builtin_mul_overflow(b, b, &b) ) return 0;
  }
  *pOut = r;
  return 1;
}

/* The trigonometric functions: ExprNode.eSub is the place in this table,
** in the order of aSubOp's EX_TRIG entries. */
static const struct ExprTrig {
  double (*x)(double);
  double lo, hi;          /* the domain, closed (infinities: below) */
} aExprTrig[] = {
  {sin, -INFINITY, INFINITY}, {cos, -INFINITY, INFINITY}, {tan, -INFINITY, INFINITY},
  {asin, -1, 1}, {acos, -1, 1}, {atan, -INFINITY, INFINITY},
  {sinh, -INFINITY, INFINITY}, {cosh, -INFINITY, INFINITY}, {tanh, -INFINITY, INFINITY},
  {asinh, -INFINITY, INFINITY}, {acosh, 1, INFINITY}, {atanh, -1, 1},
};

/* $pow, $sqrt, $exp, $ln, $log, $log10, the trigonometric functions,
** $atan2, $degreesToRadians, $radiansToDegrees: doubles (decimal128 in,
** decimal128 out, computed in double precision). */
static int exprEvalMath(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocNum ax[2];
  int bNull, bDec, i;
  double x, y = 0.0;
  if( exprMathArgs(p, pN, ax, &bNull) ) return p->rc;
  if( bNull ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  bDec = ax[0].type==DOC_DECIMAL128 || (pN->nArg>1 && ax[1].type==DOC_DECIMAL128);
  x = docextNumDouble(&ax[0]);
  if( pN->nArg>1 ) y = docextNumDouble(&ax[1]);
  switch( pN->eOp ){
    case EX_TRIG: {
      const struct ExprTrig *pT = &aExprTrig[pN->eSub];
      /* sin, cos and tan (the first three) have no value at infinity */
      if( !isnan(x) && (x<pT->lo || x>pT->hi || (isinf(x) && pN->eSub<3)) ){
        return exprError(p, "cannot apply %s to %g: outside its domain",
                         pN->zOp, x);
      }
      return exprSetReal(p, pT->x(x), bDec, pOut);
    }
    case EX_ATAN2:   return exprSetReal(p, atan2(x, y), bDec, pOut);
    case EX_DEG2RAD: return exprSetReal(p, x * (3.14159265358979323846 / 180.0), bDec, pOut);
    case EX_RAD2DEG: return exprSetReal(p, x * (180.0 / 3.14159265358979323846), bDec, pOut);
    case EX_SQRT:
      if( x<0 ){
        return exprError(p, "$sqrt's argument must be greater than or equal to 0");
      }
      return exprSetReal(p, sqrt(x), bDec, pOut);
    case EX_EXP:
      return exprSetReal(p, exp(x), bDec, pOut);
    case EX_LN: case EX_LOG10: case EX_LOG:
      if( x<=0 ){
        return exprError(p, "%s's argument must be a positive number, but is %g",
                         pN->zOp, x);
      }
      if( pN->eOp==EX_LOG && (y<=0 || y==1) ){
        return exprError(p, "$log's base must be a positive number not equal "
                            "to 1, but is %g", y);
      }
      return exprSetReal(p, pN->eOp==EX_LN ? log(x) : pN->eOp==EX_LOG10 ? log10(x)
                            : log(x)/log(y), bDec, pOut);
    case EX_POW: {
      int bInt = 1;
      for(i=0; i<2; i++) bInt &= ax[i].type==DOC_INT32 || ax[i].type==DOC_INT64;
      if( x==0 && y<0 ){
        return exprError(p, "$pow cannot take a base of 0 and a negative exponent");
      }
      if( bInt && (ax[1].i>=0 || ax[0].i==1 || ax[0].i==-1) ){
        /* int^int stays an integer while it fits (1 and -1 to any power) */
        i64 r;
        i64 e = ax[1].i>=0 ? ax[1].i : -ax[1].i;
        if( exprIntPow(ax[0].i, e, &r) ){
          DocNum n;
          n.type = (ax[0].type==DOC_INT32 && ax[1].type==DOC_INT32
                    && r>=INT32_MIN && r<=INT32_MAX) ? DOC_INT32 : DOC_INT64;
          n.i = r;
          return exprSetNum(p, &n, pOut);
        }
      }
      return exprSetReal(p, pow(x, y), bDec, pOut);
    }
  }
  return SQLITE_OK;
}

/* A decimal rounded half to even (bTrunc: toward zero) at `place` digits
** after the point (before it, when negative). */
static int exprDecRoundPlace(const u8 *a, int place, int bTrunc, u8 *aOut){
  char zDig[48], zKeep[64];
  int bNeg, iExp, nDig, nDrop, nKeep, i, n = 0, bUp = 0;
  if( docextDec128Parts(a, &bNeg, zDig, &iExp)!=DOCEXT_DEC_FINITE || iExp>=-place ){
    memcpy(aOut, a, 16);
    return SQLITE_OK;
  }
  nDig = (int)strlen(zDig);
  nDrop = -place - iExp;                      /* digits that go, >= 1 */
  nKeep = nDig - nDrop;
  if( !bTrunc ){
    /* the first dropped digit against 5, then the rest against zeros */
    int c = nKeep>=0 ? zDig[nKeep] : '0';
    int bRest = 0;
    for(i=(nKeep>=0 ? nKeep+1 : 0); i<nDig; i++) bRest |= zDig[i]!='0';
    if( nKeep<0 ) bRest |= c!='0', c = '0';   /* below the rounding digit */
    bUp = c>'5' || (c=='5' && (bRest || (nKeep>0 && (zDig[nKeep-1]-'0')%2)));
  }
  if( bNeg ) zKeep[n++] = '-';
  zKeep[n++] = '0';                           /* room for a carry */
  for(i=0; i<nKeep; i++) zKeep[n++] = zDig[i];
  if( bUp ){
    for(i=n-1; zKeep[i]=='9'; i--) zKeep[i] = '0';
    zKeep[i]++;
  }
  sqlite3_snprintf(16, &zKeep[n], "E%d", -place);
  n += (int)strlen(&zKeep[n]);
  return docextDec128FromString(zKeep, n, aOut);
}

/* $round: [number, place]; $trunc: [number, place] (place 0 when not
** given; a whole number from -20 to 100). */
static int exprEvalRoundPlace(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  DocNum x;
  int place = 0, bTrunc = pN->eOp==EX_TRUNC;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  /* (the number first, then the place, as MongoDB checks them) */
  if( exprNullish(&a[0]) || (pN->nArg>1 && docextValueIsNumber(&a[0]) && exprNullish(&a[1])) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( !docextValueIsNumber(&a[0]) ){
    return exprError(p, "%s only supports numeric types, not %s",
                     pN->zOp, exprTypeName(&a[0]));
  }
  if( pN->nArg>1 && (!exprWholeInt(&a[1], &place) || place<-20 || place>100) ){
    return exprError(p, "%s's place must be a whole number from -20 to 100",
                     pN->zOp);
  }
  docextNumFrom(&a[0], &x);
  if( x.type==DOC_DOUBLE ){
    double s = pow(10.0, place), y = x.d * s;
    if( isfinite(y) && isfinite(x.d) ){
      y = bTrunc ? trunc(y) : nearbyint(y);   /* (to nearest, ties to even) */
      x.d = y / s;
    }
  }else if( x.type==DOC_DECIMAL128 ){
    u8 aNew[16];
    if( exprDecRoundPlace(x.aDec, place, bTrunc, aNew) ){
      return exprError(p, "%s overflow", pN->zOp);
    }
    memcpy(x.aDec, aNew, 16);
  }else if( place<0 ){
    /* an integer to tens, hundreds, …: exactly, on its magnitude */
    int bNeg = x.i<0, k;
    u64 u = bNeg ? (u64)0 - (u64)x.i : (u64)x.i, m = 1, q = 0, r;
    for(k=0; k<-place && k<20; k++) m *= 10;    /* (10^19 fits; 10^20 not) */
    if( -place<20 ){
      q = u / m;
      r = u % m;
      if( !bTrunc && (r>m-r || (r==m-r && (q & 1))) ) q++;
      if( __builtin_mul_overflow(q, m, &u) || u>(u64)INT64_MAX + bNeg ){
        return exprError(p, "%s overflow", pN->zOp);
      }
    }else{
      u = 0;                                    /* |x| < 10^20 / 2 */
    }
    x.i = bNeg ? (i64)((u64)0 - u) : (i64)u;
    if( x.i<INT32_MIN || x.i>INT32_MAX ) x.type = DOC_INT64;
  }
  return exprSetNum(p, &x, pOut);
}

/*------------------------------------------------------------------------
** Sets: $setUnion, $setIntersection, $setDifference, $setEquals,
** $setIsSubset, $anyElementTrue, $allElementsTrue. Arrays are read as sets
** of distinct values (aggregation equality: 1 and 1.0 are one); results
** come in aggregation order.
*/

/* (pCtx: the collator, or NULL) */
static int exprValueCmp(void *pCtx, const void *x, const void *y){
  return exprCompare((const DocCollator*)pCtx, (const DocValue*)x, (const DocValue*)y);
}

/* The distinct elements of array v, sorted, in *pa (sqlite3_free). */
static int exprSetOf(ExprCtx *p, const DocValue *v, DocValue **pa, int *pn){
  int n = docextIterCount(v), i = 0, k;
  DocValue *a = sqlite3_malloc64(sizeof(DocValue)*2*((u64)n+1));
  DocIter it;
  *pa = a;
  *pn = 0;
  if( a==0 ) return p->rc = SQLITE_NOMEM;
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ) a[i++] = it.v;
  docextSort(a, n, sizeof(DocValue), &a[n], exprValueCmp, (void*)p->pCollator);
  for(i=k=0; i<n; i++){
    if( k==0 || exprCompare(p->pCollator, &a[k-1], &a[i])!=0 ) a[k++] = a[i];
  }
  *pn = k;
  return SQLITE_OK;
}

/* Is sorted set a[0..na) within b[0..nb)? */
static int exprSubset(const DocCollator *pColl, const DocValue *a, int na, const DocValue *b,
                      int nb){
  int i, j = 0;
  for(i=0; i<na; i++){
    while( j<nb && exprCompare(pColl, &b[j], &a[i])<0 ) j++;
    if( j==nb || exprCompare(pColl, &b[j], &a[i])!=0 ) return 0;
  }
  return 1;
}

/* Keep in a[0..*pn) the elements also in b[0..nb) (both sorted sets). */
static void exprIntersect(const DocCollator *pColl, DocValue *a, int *pn, const DocValue *b,
                          int nb){
  int i, j = 0, k = 0;
  for(i=0; i<*pn; i++){
    while( j<nb && exprCompare(pColl, &b[j], &a[i])<0 ) j++;
    if( j<nb && exprCompare(pColl, &b[j], &a[i])==0 ) a[k++] = a[i];
  }
  *pn = k;
}

static int exprEvalSet(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue *aVal, aSpace[4], *aAll = 0, **aaSet = 0;
  int *anSet = 0, nAll = 0, i, j, bNull = 0, rc;
  int bNullable = pN->eOp==EX_SETUNION || pN->eOp==EX_SETINTERSECTION
               || pN->eOp==EX_SETDIFFERENCE;
  aVal = pN->nArg<=DOCEXT_COUNT(aSpace) ? aSpace : sqlite3_malloc64(sizeof(DocValue)*pN->nArg);
  if( aVal==0 ) return p->rc = SQLITE_NOMEM;
  if( exprEvalArgs(p, pN, aVal) ) goto done;
  for(i=0; i<pN->nArg; i++){
    if( bNullable && exprNullish(&aVal[i]) ){
      bNull = 1;
    }else if( aVal[i].type!=DOC_ARRAY ){
      exprError(p, "%s's arguments must be arrays, not %s",
                pN->zOp, exprTypeName(&aVal[i]));
      goto done;
    }
  }
  if( bNull ){
    exprSetNull(pOut);
    goto done;
  }
  if( pN->eOp==EX_ANYTRUE || pN->eOp==EX_ALLTRUE ){
    DocIter it;
    int bAny = 0, bAll = 1;
    docextIterInitValue(&it, &aVal[0]);
    while( docextIterNext(&it) ){
      if( docextValueTruth(&it.v) ) bAny = 1; else bAll = 0;
    }
    exprSetBool(pOut, pN->eOp==EX_ANYTRUE ? bAny : bAll);
    goto done;
  }
  aaSet = docextMallocZero(sizeof(DocValue*)*pN->nArg);
  anSet = docextMallocZero(sizeof(int)*pN->nArg);
  if( aaSet==0 || anSet==0 ){
    p->rc = SQLITE_NOMEM;
    goto done;
  }
  for(i=0; i<pN->nArg; i++){
    if( exprSetOf(p, &aVal[i], &aaSet[i], &anSet[i]) ) goto done;
    nAll += anSet[i];
  }
  switch( pN->eOp ){
    case EX_SETEQUALS:
      for(i=1, rc=1; i<pN->nArg && rc; i++){
        rc = anSet[i]==anSet[0] && exprSubset(p->pCollator, aaSet[0], anSet[0], aaSet[i], anSet[i]);
      }
      exprSetBool(pOut, rc);
      goto done;
    case EX_SETISSUBSET:
      exprSetBool(pOut, exprSubset(p->pCollator, aaSet[0], anSet[0], aaSet[1], anSet[1]));
      goto done;
    case EX_SETUNION: {
      /* every set's elements, sorted again, the repeats dropped */
      aAll = sqlite3_malloc64(sizeof(DocValue)*2*((u64)nAll+1));
      if( aAll==0 ){
        p->rc = SQLITE_NOMEM;
        goto done;
      }
      for(i=nAll=0; i<pN->nArg; i++){
        for(j=0; j<anSet[i]; j++) aAll[nAll++] = aaSet[i][j];
      }
      docextSort(aAll, nAll, sizeof(DocValue), &aAll[nAll], exprValueCmp, (void*)p->pCollator);
      for(i=j=0; i<nAll; i++){
        if( j==0 || exprCompare(p->pCollator, &aAll[j-1], &aAll[i])!=0 ) aAll[j++] = aAll[i];
      }
      nAll = j;
      break;
    }
    case EX_SETINTERSECTION:
      for(i=1; i<pN->nArg; i++) exprIntersect(p->pCollator, aaSet[0], &anSet[0], aaSet[i], anSet[i]);
      break;
    case EX_SETDIFFERENCE: {
      int k = 0;
      for(i=0; i<anSet[0]; i++){
        if( !exprSubset(p->pCollator, &aaSet[0][i], 1, aaSet[1], anSet[1]) ) aaSet[0][k++] = aaSet[0][i];
      }
      anSet[0] = k;
      break;
    }
  }
  {
    ExprArray arr;
    const DocValue *a = aAll ? aAll : aaSet[0];
    int n = aAll ? nAll : anSet[0];
    exprArrayStart(&arr);
    for(i=0; i<n && exprArrayAdd(&arr, &a[i]); i++){}
    exprArrayEnd(p, &arr, pOut);
  }
done:
  for(i=0; aaSet && i<pN->nArg; i++) sqlite3_free(aaSet[i]);
  sqlite3_free(aaSet);
  sqlite3_free(anSet);
  sqlite3_free(aAll);
  if( aVal!=aSpace ) sqlite3_free(aVal);
  return p->rc;
}

/*------------------------------------------------------------------------
** Dates: $year, $month, $dayOfMonth, $hour, $minute, $second,
** $millisecond, $dayOfWeek, $dayOfYear, $week, $isoWeek, $isoWeekYear,
** $isoDayOfWeek, each of a date or {date, timezone}; $dateToString.
** A timezone is "UTC" (or "GMT", "Z", "Etc/UTC"), an offset "+05:30",
** "+0530", "-08", or a zone of the time zone database ("Europe/Paris",
** docext_tz.c), whose offset depends on the instant (ExprZone).
*/

/* Date parts (ExprNode.eSub). */
enum {
  DP_YEAR = 1, DP_MONTH, DP_DAY, DP_HOUR, DP_MINUTE, DP_SECOND, DP_MILLI,
  DP_DOW, DP_DOY, DP_WEEK, DP_ISOWEEK, DP_ISOYEAR, DP_ISODOW
};

/* A date operand as milliseconds: a date, a timestamp (its seconds) or an
** ObjectId (its creation second). 1 when it is null or missing. */
static int exprDateMs(ExprCtx *p, const char *zOp, const DocValue *v, i64 *pMs, int *pbNull){
  *pbNull = 0;
  switch( v->type ){
    case DOC_DATE:
      *pMs = docextValueI64(v);
      return SQLITE_OK;
    case DOC_TIMESTAMP:
      *pMs = (i64)((u64)docextValueI64(v) >> 32) * 1000;
      return SQLITE_OK;
    case DOC_OID:
      *pMs = (i64)(((u64)v->p[0]<<24) | ((u64)v->p[1]<<16) | ((u64)v->p[2]<<8) | v->p[3]) * 1000;
      return SQLITE_OK;
  }
  if( exprNullish(v) ){
    *pbNull = 1;
    return SQLITE_OK;
  }
  return exprError(p, "%s can't convert from BSON type %s to Date",
                   zOp, exprTypeName(v));
}

/* A timezone argument: a fixed offset, or a zone of the time zone
** database (docext_tz.c), whose offset depends on the instant. */
typedef struct ExprZone ExprZone;
struct ExprZone {
  int nFixedSec;            /* seconds east of UTC, when pTz is NULL */
  const DocTz *pTz;
  int bUtc;                 /* UTC itself: none given, "UTC", "Z", or an
                            ** offset of zero ("GMT" and "Etc/UTC" are
                            ** zones of the database to MongoDB) */
};

static i64 exprFloorDiv(i64 a, i64 b);

/* The zone's offset at UTC instant ms, in milliseconds. */
static i64 exprZoneOffsetMs(const ExprZone *z, i64 ms){
  if( z->pTz==0 ) return z->nFixedSec*1000LL;
  return docextTzOffset(z->pTz, exprFloorDiv(ms, 1000))*1000LL;
}

/* The wall clock time of UTC instant ms, as milliseconds since a local
** 1970-01-01. */
static i64 exprZoneLocalMs(const ExprZone *z, i64 ms){
  return ms + exprZoneOffsetMs(z, ms);
}

/* The UTC instant of wall clock time local. A time the clocks skipped (a
** spring gap) is read with the offset before the change, and a time they
** repeat (an autumn overlap) is its first occurrence, as Python's
** zoneinfo does for fold=0. The instant lies within 26 hours of local (no
** offset is larger), so the offsets 27 hours either side are those before
** and after any change that matters; no zone of the database changes
** twice within 54 hours (the closest two changes of any are 3.99 days
** apart: Africa/Freetown, 1939). */
static i64 exprZoneUtcMs(const ExprZone *z, i64 local){
  const i64 nSide = 27*3600000LL;
  i64 oBefore, oAfter;
  if( z->pTz==0 ) return local - z->nFixedSec*1000LL;
  oBefore = exprZoneOffsetMs(z, local - nSide);
  oAfter = exprZoneOffsetMs(z, local + nSide);
  if( oBefore==oAfter ) return local - exprZoneOffsetMs(z, local - oBefore);
  /* one change at T, oBefore until T: local is before its wall time
  ** T + max(oBefore, oAfter) exactly when local - max is before T */
  if( exprZoneOffsetMs(z, local - (oBefore>oAfter ? oBefore : oAfter))==oBefore ){
    return local - oBefore;
  }
  return local - oAfter;
}

/* The timezones that need no database, into *pZone: 1 for UTC itself
** ("UTC", "Z"), "GMT" and "Etc/UTC" (offset 0), and offsets ("+hh",
** "+hhmm", "+hh:mm"); -1 for a malformed offset; 0 for a name of the
** database ("America/New_York"). */
static int exprZoneFixed(const char *z, int n, ExprZone *pZone){
  int i, h = 0, m = 0;
  memset(pZone, 0, sizeof(*pZone));
  if( (n==3 && memcmp(z, "UTC", 3)==0) || (n==1 && z[0]=='Z') ){
    pZone->bUtc = 1;
    return 1;
  }
  if( (n==3 && memcmp(z, "GMT", 3)==0) || (n==7 && (memcmp(z, "Etc/UTC", 7)==0
                                                   || memcmp(z, "Etc/GMT", 7)==0)) ){
    return 1;                         /* (always offset 0: not read) */
  }
  if( (n==3 || n==5 || n==6) && (z[0]=='+' || z[0]=='-') ){
    int aDig[4], nDig = 0;
    for(i=1; i<n; i++){
      if( z[i]>='0' && z[i]<='9' && nDig<4 ) aDig[nDig++] = z[i]-'0';
      else if( !(z[i]==':' && i==3 && n==6) ) nDig = 9;
    }
    if( nDig==2 || nDig==4 ){
      h = aDig[0]*10 + aDig[1];
      if( nDig==4 ) m = aDig[2]*10 + aDig[3];
      if( h<=23 && m<=59 ){
        pZone->nFixedSec = (z[0]=='-' ? -1 : 1) * (h*3600 + m*60);
        pZone->bUtc = pZone->nFixedSec==0;
        return 1;
      }
    }
    return -1;
  }
  return 0;
}

/* A constant timezone argument that names a zone of the database: the
** zone, found once when the expression is compiled rather than for every
** document (ExprNode.pTz; a name the database lacks is left for the
** evaluation to report). */
static void exprParseZone(ExprParse *pP, ExprNode *pArg){
  ExprZone zone;
  const char *z;
  char *zWhy = 0;
  int n;
  if( pArg->eOp!=EX_CONST || pArg->v.type!=DOC_STRING ) return;
  z = docextValueStr(&pArg->v, &n);
  if( exprZoneFixed(z, n, &zone)!=0 ) return;
  if( docextTzFind(z, n, &pArg->pTz, &zWhy)==SQLITE_NOMEM ) pP->rc = SQLITE_NOMEM;
  sqlite3_free(zWhy);
}

/* Timezone argument k of pN, whose value is v, into *pZone (UTC when not
** given); *pbNull when it is null or missing. */
static int exprTimezone(ExprCtx *p, const ExprNode *pN, int k, const DocValue *v, int bGiven,
                        ExprZone *pZone, int *pbNull){
  const char *z;
  char *zWhy = 0;
  int n, rc;
  memset(pZone, 0, sizeof(*pZone));
  pZone->bUtc = 1;
  *pbNull = 0;
  if( !bGiven ) return SQLITE_OK;
  if( pN->apArg[k]->pTz ){
    pZone->bUtc = 0;
    pZone->pTz = pN->apArg[k]->pTz;
    return SQLITE_OK;
  }
  if( exprNullish(v) ){
    *pbNull = 1;
    return SQLITE_OK;
  }
  if( v->type!=DOC_STRING ){
    return exprError(p, "timezone must be a string, not %s", exprTypeName(v));
  }
  z = docextValueStr(v, &n);
  rc = exprZoneFixed(z, n, pZone);
  if( rc>0 ) return SQLITE_OK;
  if( rc<0 ) return exprError(p, "unrecognized time zone identifier: \"%.*s\"", n, z);
  /* a name of the time zone database: "America/New_York" */
  rc = docextTzFind(z, n, &pZone->pTz, &zWhy);
  if( rc==SQLITE_NOMEM ){
    if( p->rc==SQLITE_OK ) p->rc = SQLITE_NOMEM;
    return p->rc;
  }
  if( rc!=SQLITE_OK ){
    exprError(p, "unrecognized time zone identifier: \"%.*s\"%s%s%s", n, z,
              zWhy ? " (" : "", zWhy ? zWhy : "", zWhy ? ")" : "");
    sqlite3_free(zWhy);
    return p->rc;
  }
  return SQLITE_OK;
}

/* ISO 8601 weeks: weeks in year y (52 or 53). */
static int exprIsoWeeksIn(i64 y){
  i64 pY = (y + y/4 - y/100 + y/400) % 7, pPrev = ((y-1) + (y-1)/4 - (y-1)/100 + (y-1)/400) % 7;
  if( pY<0 ) pY += 7;
  if( pPrev<0 ) pPrev += 7;
  return 52 + (pY==4 || pPrev==3);
}

/* Days since 1970-01-01 of day dow (1 Monday … 7 Sunday) of ISO week
** week of year y: week 1's Monday is the Monday on or before January 4
** (weeks and days past their range carry over). */
static i64 exprIsoWeekDate(i64 y, i64 week, i64 dow){
  i64 jan4 = docextDaysFromCivil(y, 1, 4);
  i64 iDow = ((jan4 % 7) + 7 + 3) % 7;              /* 0 Monday */
  return jan4 - iDow + (week - 1)*7 + (dow - 1);
}

/* The ISO week and week-numbering year of a civil date. */
static void exprIsoWeek(const DocCivil *c, int *pWeek, i64 *pYear){
  int isoDow = (c->dayOfWeek + 5) % 7 + 1;         /* Monday 1 … Sunday 7 */
  int w = (c->dayOfYear - isoDow + 10) / 7;
  *pYear = c->year;
  if( w<1 ){
    *pYear = c->year - 1;
    w = exprIsoWeeksIn(c->year - 1);
  }else if( w>exprIsoWeeksIn(c->year) ){
    *pYear = c->year + 1;
    w = 1;
  }
  *pWeek = w;
}

static i64 exprDatePart(const DocCivil *c, int ePart){
  int w;
  i64 y;
  switch( ePart ){
    case DP_YEAR:   return c->year;
    case DP_MONTH:  return c->month;
    case DP_DAY:    return c->day;
    case DP_HOUR:   return c->hour;
    case DP_MINUTE: return c->minute;
    case DP_SECOND: return c->second;
    case DP_MILLI:  return c->millis;
    case DP_DOW:    return c->dayOfWeek;
    case DP_DOY:    return c->dayOfYear;
    case DP_WEEK:   return (c->dayOfYear - 1 + 7 - (c->dayOfWeek - 1)) / 7;   /* %U */
    case DP_ISODOW: return (c->dayOfWeek + 5) % 7 + 1;
  }
  exprIsoWeek(c, &w, &y);
  return ePart==DP_ISOWEEK ? w : y;
}

/* The civil time of a date argument in a timezone argument; *pbNull (and
** a null result) when either is null or missing. The order is MongoDB's,
** which decides what a null hides: the date parts ($year …) look at the
** date first, and a null date leaves the zone unread; $dateToString and
** $dateToParts (bZoneFirst) read the zone first, so a bad one is an error
** even for a null date, and a null zone hides a date that is not one. */
static int exprCivil(ExprCtx *p, const ExprNode *pN, const DocValue *a, int iZone,
                     int bZone, int bZoneFirst, DocCivil *pC, i64 *pnOffMs, int *pbUtc,
                     int *pbNull){
  ExprZone zone;
  i64 ms;
  int bNull2 = 0;
  *pnOffMs = 0;
  *pbNull = 0;
  if( bZoneFirst ){
    if( exprTimezone(p, pN, iZone, &a[iZone], bZone, &zone, &bNull2) ) return p->rc;
    if( exprNullish(&a[0]) || bNull2 ){
      *pbNull = 1;
      return SQLITE_OK;
    }
  }
  if( exprDateMs(p, pN->zOp, &a[0], &ms, pbNull) || *pbNull ) return p->rc;
  if( !bZoneFirst ){
    if( exprTimezone(p, pN, iZone, &a[iZone], bZone, &zone, &bNull2) ) return p->rc;
    if( bNull2 ){
      *pbNull = 1;
      return SQLITE_OK;
    }
  }
  if( pbUtc ) *pbUtc = zone.bUtc;
  *pnOffMs = exprZoneOffsetMs(&zone, ms);
  if( __builtin_add_overflow(ms, *pnOffMs, &ms) ){
    return exprError(p, "%s: a date too far from 1970 for its time zone", pN->zOp);
  }
  docextCivilFromMs(ms, pC);
  return SQLITE_OK;
}

/* $year and the other parts: arguments date and timezone. */
static int exprEvalDatePart(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  DocCivil c;
  i64 nOffMs;
  int bNull;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprCivil(p, pN, a, 1, pN->nArg>1 && (pN->mArg & 2), 0, &c, &nOffMs, 0, &bNull) ){
    return p->rc;
  }
  if( bNull ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  return exprSetInt(p, exprDatePart(&c, pN->eSub), pOut);
}

/* Month names of %b (their first three letters) and %B. */
static const char *const azExprMonth[12] = {
  "January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"
};

/* Append v as at least nWidth digits (a minus sign first when negative). */
static void exprAppendDigits(int *pRc, DocBuf *pB, i64 v, int nWidth){
  char z[32];
  sqlite3_snprintf(sizeof(z), z, "%0*lld", nWidth, v);
  docextBufAppendStr(pRc, pB, z);
}

/* The specifiers each format takes (besides %%). */
#define EXPR_TO_STRING_SPECIFIERS   "YmbBdHMSLjwuUVGzZ"
#define EXPR_FROM_STRING_SPECIFIERS "YmbBdjGVuHMSLzZ"

/* "$dateToString: invalid format character '%q' in the format (it takes
** %Y %m … %%)". */
static int exprBadSpecifier(ExprCtx *p, const char *zOp, u8 c, const char *zAllowed){
  char zList[80], zChar[8];
  int i, n = 0;
  for(i=0; zAllowed[i] && n+4<(int)sizeof(zList); i++){
    zList[n++] = '%';
    zList[n++] = zAllowed[i];
    zList[n++] = ' ';
  }
  zList[n] = 0;
  if( c>=0x20 && c<0x7F ) sqlite3_snprintf(sizeof(zChar), zChar, "%c", c);
  else sqlite3_snprintf(sizeof(zChar), zChar, "\\x%02x", c);
  return exprError(p, "%s: invalid format character '%%%s' in the format (it takes %s%%%%)",
                   zOp, zChar, zList);
}

/* A format argument is checked before anything else is looked at, as
** MongoDB checks it: so a bad format is an error even for a null date, and
** onError does not catch it. A nullish format is no error here. */
static int exprCheckFormat(ExprCtx *p, const char *zOp, const DocValue *pFmt,
                           const char *zAllowed){
  const char *z;
  int n, i;
  if( exprNullish(pFmt) ) return SQLITE_OK;
  if( pFmt->type!=DOC_STRING ){
    return exprError(p, "%s's format must be a string, not %s", zOp, exprTypeName(pFmt));
  }
  z = docextValueStr(pFmt, &n);
  for(i=0; i<n; i++){
    u8 c;
    if( z[i]!='%' ) continue;
    if( ++i>=n ) return exprError(p, "%s's format ends with a lone '%%'", zOp);
    c = (u8)z[i];
    if( c=='%' || (c!=0 && strchr(zAllowed, c)!=0) ) continue;
    return exprBadSpecifier(p, zOp, c, zAllowed);
  }
  return SQLITE_OK;
}

/* $dateToString: arguments date, format, timezone, onNull. */
static int exprEvalDateToString(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[4];
  DocCivil c;
  DocBuf b;
  const char *zFmt;
  int nFmt, bNull, nMin, i, bUtc = 1, rc = SQLITE_OK;
  i64 nOffMs = 0;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( a[1].type!=0 && exprCheckFormat(p, "$dateToString", &a[1], EXPR_TO_STRING_SPECIFIERS) ){
    return p->rc;
  }
  if( exprCivil(p, pN, a, 2, pN->mArg & 4, 1, &c, &nOffMs, &bUtc, &bNull) ) return p->rc;
  nMin = (int)(nOffMs/60000);         /* (%z and %Z show whole minutes) */
  if( bNull ){
    /* onNull for a null date; null for a null format or timezone */
    if( exprNullish(&a[0]) && (pN->mArg & 8) ) *pOut = a[3];
    else exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( exprNullish(&a[1]) && (pN->mArg & 2) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( a[1].type==DOC_STRING ){
    zFmt = docextValueStr(&a[1], &nFmt);
  }else{
    /* (MongoDB's default: a Z only for UTC itself) */
    zFmt = bUtc ? "%Y-%m-%dT%H:%M:%S.%LZ" : "%Y-%m-%dT%H:%M:%S.%L";
    nFmt = (int)strlen(zFmt);
  }
  memset(&b, 0, sizeof(b));
  for(i=0; i<nFmt && rc==SQLITE_OK; i++){
    int w;
    i64 y;
    if( zFmt[i]!='%' ){
      docextBufAppendByte(&rc, &b, (u8)zFmt[i]);
      continue;
    }
    if( ++i>=nFmt ) break;                /* (exprCheckFormat refused it) */
    switch( zFmt[i] ){
      case 'Y':
        if( c.year<0 || c.year>9999 ){
          docextBufFree(&b);
          return exprError(p, "$dateToString's %%Y is only defined on years "
                              "0 to 9999, not %lld", c.year);
        }
        exprAppendDigits(&rc, &b, c.year, 4);
        break;
      case 'm': exprAppendDigits(&rc, &b, c.month, 2); break;
      case 'b': docextBufAppend(&rc, &b, azExprMonth[c.month-1], 3); break;
      case 'B': docextBufAppendStr(&rc, &b, azExprMonth[c.month-1]); break;
      case 'd': exprAppendDigits(&rc, &b, c.day, 2); break;
      case 'H': exprAppendDigits(&rc, &b, c.hour, 2); break;
      case 'M': exprAppendDigits(&rc, &b, c.minute, 2); break;
      case 'S': exprAppendDigits(&rc, &b, c.second, 2); break;
      case 'L': exprAppendDigits(&rc, &b, c.millis, 3); break;
      case 'j': exprAppendDigits(&rc, &b, c.dayOfYear, 3); break;
      case 'w': exprAppendDigits(&rc, &b, c.dayOfWeek, 1); break;
      case 'u': exprAppendDigits(&rc, &b, exprDatePart(&c, DP_ISODOW), 1); break;
      case 'U': exprAppendDigits(&rc, &b, exprDatePart(&c, DP_WEEK), 2); break;
      case 'V':
        exprIsoWeek(&c, &w, &y);
        exprAppendDigits(&rc, &b, w, 2);
        break;
      case 'G':
        exprIsoWeek(&c, &w, &y);
        exprAppendDigits(&rc, &b, y, 4);
        break;
      case 'z':
        docextBufAppendByte(&rc, &b, nMin<0 ? '-' : '+');
        exprAppendDigits(&rc, &b, (nMin<0 ? -nMin : nMin)/60, 2);
        exprAppendDigits(&rc, &b, (nMin<0 ? -nMin : nMin)%60, 2);
        break;
      case 'Z':
        docextBufAppendByte(&rc, &b, nMin<0 ? '-' : '+');
        exprAppendDigits(&rc, &b, nMin<0 ? -nMin : nMin, 1);
        break;
      case '%': docextBufAppendByte(&rc, &b, '%'); break;
      default: break;                     /* (exprCheckFormat refused it) */
    }
  }
  if( rc ) p->rc = rc;
  else exprSetString(p, &b, pOut);
  docextBufFree(&b);
  return p->rc;
}

/*------------------------------------------------------------------------
** Conversions: $convert {input, to, onError, onNull} and $toBool, $toInt,
** $toLong, $toDouble, $toDecimal, $toString, $toObjectId, $toDate;
** $isNumber. MongoDB's table of what converts to what; the rest is an
** error, or onError's value when it is given.
*/

/* The targets (ExprNode.eSub, or from $convert's "to"): BSON type codes. */
static const struct ExprTarget {
  const char *zName;
  u8 type;
} aExprTarget[] = {
  {"double", DOC_DOUBLE}, {"string", DOC_STRING}, {"objectId", DOC_OID},
  {"bool", DOC_BOOL}, {"date", DOC_DATE}, {"int", DOC_INT32},
  {"long", DOC_INT64}, {"decimal", DOC_DECIMAL128},
};

/* $convert's "to": a type name or code; 0 (and the error) if it is none. */
static int exprTarget(ExprCtx *p, const DocValue *v){
  int i, n, code;
  const char *z;
  if( v->type==DOC_STRING ){
    z = docextValueStr(v, &n);
    for(i=0; i<DOCEXT_COUNT(aExprTarget); i++){
      if( (int)strlen(aExprTarget[i].zName)==n && memcmp(aExprTarget[i].zName, z, n)==0 ){
        return aExprTarget[i].type;
      }
    }
    exprError(p, "$convert: unknown type name '%.*s'", n, z);
    return 0;
  }
  if( exprWholeInt(v, &code) ){
    for(i=0; i<DOCEXT_COUNT(aExprTarget); i++){
      if( aExprTarget[i].type==code ) return code;
    }
  }
  exprError(p, "$convert's 'to' must name a type (\"int\", \"string\", …) "
               "or give its number, not %s", exprTypeName(v));
  return 0;
}

static const char *exprTargetName(int type){
  int i;
  for(i=0; i<DOCEXT_COUNT(aExprTarget) && aExprTarget[i].type!=type; i++){}
  return i<DOCEXT_COUNT(aExprTarget) ? aExprTarget[i].zName : "?";
}

/* Is z[0..n) a decimal number as MongoDB parses one from a string: a sign,
** digits with at most one point, an exponent; or Infinity, -Infinity, NaN.
** bInt: digits only, after an optional sign. */
static int exprNumberText(const char *z, int n, int bInt){
  int i = 0, nDig = 0;
  if( !bInt && ((n==3 && memcmp(z, "NaN", 3)==0) || (n==8 && memcmp(z, "Infinity", 8)==0)
   || (n==9 && (memcmp(z, "-Infinity", 9)==0 || memcmp(z, "+Infinity", 9)==0))) ){
    return 1;
  }
  if( i<n && (z[i]=='-' || z[i]=='+') ) i++;
  while( i<n && z[i]>='0' && z[i]<='9' ){ i++; nDig++; }
  if( bInt ) return nDig>0 && i==n;
  if( i<n && z[i]=='.' ){
    i++;
    while( i<n && z[i]>='0' && z[i]<='9' ){ i++; nDig++; }
  }
  if( nDig==0 ) return 0;
  if( i<n && (z[i]=='e' || z[i]=='E') ){
    int nExp = 0;
    i++;
    if( i<n && (z[i]=='-' || z[i]=='+') ) i++;
    while( i<n && z[i]>='0' && z[i]<='9' ){ i++; nExp++; }
    if( nExp==0 ) return 0;
  }
  return i==n;
}

/* The whole number a double holds, truncated toward zero, within
** [lo, hi]: 0, or the reason it is not. */
static const char *exprDoubleToInt(double d, double lo, double hi, i64 *pOut){
  if( isnan(d) ) return "attempt to convert NaN value to integer type";
  if( isinf(d) ) return "attempt to convert infinity value to integer type";
  d = trunc(d);
  if( d<lo || d>hi ) return "conversion would overflow target type";
  *pOut = (i64)d;
  return 0;
}

/* A decimal truncated to an int64 exactly: 0, or the reason it is not. */
static const char *exprDecToInt(const u8 *aDec, i64 lo, i64 hi, i64 *pOut){
  char zDig[48];
  int bNeg, iExp, nDig, i, e = docextDec128Parts(aDec, &bNeg, zDig, &iExp);
  u64 u = 0;
  if( e==DOCEXT_DEC_NAN ) return "attempt to convert NaN value to integer type";
  if( e==DOCEXT_DEC_INF ) return "attempt to convert infinity value to integer type";
  nDig = (int)strlen(zDig) + iExp;                /* digits before the point */
  if( nDig>19 && !(zDig[0]=='0' && zDig[1]==0) ) return "conversion would overflow target type";
  for(i=0; i<nDig; i++){
    int d = i<(int)strlen(zDig) ? zDig[i]-'0' : 0;
    if( u>(UINT64_MAX - d)/10 ) return "conversion would overflow target type";
    u = u*10 + d;
  }
  if( bNeg ? u>(u64)0 - (u64)lo : u>(u64)hi ) return "conversion would overflow target type";
  *pOut = bNeg ? (i64)((u64)0 - u) : (i64)u;
  return 0;
}

/* Convert v (not null, not missing) to type eTo into *pOut: SQLITE_OK;
** SQLITE_ERROR with *pzWhy (a static reason, or NULL for "unsupported") when
** it does not convert; another code on a real error. */
static int exprConvertValue(ExprCtx *p, const DocValue *v, int eTo, DocValue *pOut,
                            const char **pzWhy){
  DocNum r;
  char zBuf[64];
  const char *z;
  int n;
  i64 ms;
  *pzWhy = 0;
  memset(&r, 0, sizeof(r));
  if( v->type==eTo && eTo!=DOC_STRING ){
    *pOut = *v;
    return SQLITE_OK;
  }
  switch( eTo ){
    case DOC_BOOL:
      switch( v->type ){
        case DOC_INT32: case DOC_INT64: case DOC_DOUBLE: case DOC_DECIMAL128:
          exprSetBool(pOut, docextValueTruth(v));
          return SQLITE_OK;
        case DOC_STRING: case DOC_OID: case DOC_DATE: case DOC_TIMESTAMP:
          exprSetBool(pOut, 1);
          return SQLITE_OK;
      }
      return SQLITE_ERROR;
    case DOC_INT32: case DOC_INT64: {
      double lo = eTo==DOC_INT32 ? (double)INT32_MIN : -9223372036854775808.0;
      double hi = eTo==DOC_INT32 ? (double)INT32_MAX : 9223372036854775807.0;
      r.type = eTo;
      switch( v->type ){
        case DOC_BOOL:  r.i = v->p[0]!=0; break;
        case DOC_INT32: r.i = docextValueI32(v); break;
        case DOC_INT64:
          r.i = docextValueI64(v);
          if( r.i<lo || r.i>hi ) *pzWhy = "conversion would overflow target type";
          break;
        case DOC_DOUBLE:
          *pzWhy = exprDoubleToInt(docextValueDouble(v), lo, eTo==DOC_INT32 ? hi
                                   : 9223372036854774784.0, &r.i);
          break;
        case DOC_DECIMAL128:
          *pzWhy = exprDecToInt(v->p, eTo==DOC_INT32 ? INT32_MIN : INT64_MIN,
                                eTo==DOC_INT32 ? INT32_MAX : INT64_MAX, &r.i);
          break;
        case DOC_DATE:
          if( eTo==DOC_INT32 ) return SQLITE_ERROR;
          r.i = docextValueI64(v);
          break;
        case DOC_STRING:
          z = docextValueStr(v, &n);
          if( !exprNumberText(z, n, 1) ){
            *pzWhy = "failed to parse number";
          }else{
            u8 aDec[16];
            if( n>24 || docextDec128FromString(z, n, aDec) ){
              *pzWhy = "conversion would overflow target type";
            }else{
              *pzWhy = exprDecToInt(aDec, eTo==DOC_INT32 ? INT32_MIN : INT64_MIN,
                                    eTo==DOC_INT32 ? INT32_MAX : INT64_MAX, &r.i);
            }
          }
          break;
        default:
          return SQLITE_ERROR;
      }
      if( *pzWhy ) return SQLITE_ERROR;
      return exprSetNum(p, &r, pOut);
    }
    case DOC_DOUBLE: case DOC_DECIMAL128:
      switch( v->type ){
        case DOC_BOOL:  r.type = DOC_INT32; r.i = v->p[0]!=0; break;
        case DOC_DATE:  r.type = DOC_INT64; r.i = docextValueI64(v); break;
        case DOC_INT32: case DOC_INT64: case DOC_DOUBLE: case DOC_DECIMAL128:
          docextNumFrom(v, &r);
          break;
        case DOC_STRING:
          z = docextValueStr(v, &n);
          if( !exprNumberText(z, n, 0) || n>=(int)sizeof(zBuf) ){
            *pzWhy = "failed to parse number";
            return SQLITE_ERROR;
          }
          memcpy(zBuf, z, n);
          zBuf[n] = 0;
          if( eTo==DOC_DOUBLE ){
            r.type = DOC_DOUBLE;
            r.d = zBuf[0]=='N' ? NAN : strtod(zBuf, 0);
          }else{
            r.type = DOC_DECIMAL128;
            if( docextDec128FromString(zBuf, n, r.aDec) ){
              *pzWhy = "failed to parse number";
              return SQLITE_ERROR;
            }
          }
          break;
        default:
          return SQLITE_ERROR;
      }
      if( eTo==DOC_DOUBLE && r.type!=DOC_DOUBLE ){
        double d = docextNumDouble(&r);
        if( r.type==DOC_DECIMAL128 && isinf(d)
         && docextDec128Parts(r.aDec, &n, zBuf, &n)==DOCEXT_DEC_FINITE ){
          *pzWhy = "conversion would overflow target type";
          return SQLITE_ERROR;
        }
        r.type = DOC_DOUBLE;
        r.d = d;
      }else if( eTo==DOC_DECIMAL128 && r.type!=DOC_DECIMAL128 ){
        docextNumToDec(&r, r.aDec);
        r.type = DOC_DECIMAL128;
      }
      return exprSetNum(p, &r, pOut);
    case DOC_STRING: {
      DocBuf b;
      memset(&b, 0, sizeof(b));
      switch( v->type ){
        case DOC_STRING: *pOut = *v; return SQLITE_OK;
        case DOC_BOOL:
          n = (int)strlen(strcpy(zBuf, v->p[0] ? "true" : "false"));
          break;
        case DOC_INT32:
          n = (int)strlen(sqlite3_snprintf(sizeof(zBuf), zBuf, "%d", docextValueI32(v)));
          break;
        case DOC_INT64:
          n = (int)strlen(sqlite3_snprintf(sizeof(zBuf), zBuf, "%lld", docextValueI64(v)));
          break;
        case DOC_DOUBLE: {
          /* as the shell prints it: 1, 0.1, 1.0E+22, NaN */
          int rc = SQLITE_OK;
          docextJsonWriteValue(&rc, &b, v, DOCEXT_JSON_SHELL);
          if( rc==SQLITE_OK ) exprSetString(p, &b, pOut);
          else p->rc = rc;
          docextBufFree(&b);
          return p->rc;
        }
        case DOC_DECIMAL128: n = docextDec128ToString(v->p, zBuf); break;
        case DOC_DATE:   n = docextIsoDateFormat(docextValueI64(v), zBuf); break;
        case DOC_OID: {
          static const char aHex[] = "0123456789abcdef";
          for(n=0; n<12; n++){
            zBuf[2*n] = aHex[v->p[n]>>4];
            zBuf[2*n+1] = aHex[v->p[n]&15];
          }
          n = 24;
          break;
        }
        default:
          return SQLITE_ERROR;
      }
      b.a = (u8*)zBuf;                        /* (read only: copied) */
      b.n = n;
      return exprSetString(p, &b, pOut);
    }
    case DOC_OID: {
      u8 aOid[12];
      int i;
      if( v->type!=DOC_STRING ) return SQLITE_ERROR;
      z = docextValueStr(v, &n);
      for(i=0; n==24 && i<24; i++){
        int c = z[i], h = c>='0' && c<='9' ? c-'0' : c>='a' && c<='f' ? c-'a'+10
                        : c>='A' && c<='F' ? c-'A'+10 : -1;
        if( h<0 ) break;
        if( i%2==0 ) aOid[i/2] = (u8)(h<<4); else aOid[i/2] |= (u8)h;
      }
      if( n!=24 || i<24 ){
        *pzWhy = "failed to parse objectId: 24 hexadecimal digits needed";
        return SQLITE_ERROR;
      }
      return exprSetBytes(p, DOC_OID, aOid, 12, pOut);
    }
    case DOC_DATE:
      switch( v->type ){
        case DOC_INT64: ms = docextValueI64(v); break;
        case DOC_DOUBLE:
          *pzWhy = exprDoubleToInt(docextValueDouble(v), -9223372036854775808.0,
                                   9223372036854774784.0, &ms);
          break;
        case DOC_DECIMAL128:
          *pzWhy = exprDecToInt(v->p, INT64_MIN, INT64_MAX, &ms);
          break;
        case DOC_STRING:
          z = docextValueStr(v, &n);
          if( docextIsoDateParse(z, n, &ms) ) *pzWhy = "error parsing date string";
          break;
        case DOC_OID: case DOC_TIMESTAMP: {
          int bNull;
          exprDateMs(p, "$convert", v, &ms, &bNull);
          break;
        }
        default:
          return SQLITE_ERROR;
      }
      if( *pzWhy ) return SQLITE_ERROR;
      r.type = DOC_DATE;
      r.i = ms;
      return exprSetNum(p, &r, pOut);
  }
  return SQLITE_ERROR;
}

/* $convert and $toX: arguments input, to ($convert only), onError, onNull
** (present as ExprNode.mArg says). */
static int exprEvalConvert(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[4], v;
  const char *zWhy = 0;
  int eTo = pN->eSub, rc;
  if( exprEval(p, pN->apArg[0], &v) ) return p->rc;
  if( pN->eOp==EX_ISNUMBER ){
    exprSetBool(pOut, docextValueIsNumber(&v));
    return SQLITE_OK;
  }
  if( pN->nArg>1 ){
    if( exprEval(p, pN->apArg[1], &a[1]) ) return p->rc;
    if( exprNullish(&a[1]) ){
      exprSetNull(pOut);
      return SQLITE_OK;
    }
    eTo = exprTarget(p, &a[1]);
    if( eTo==0 ) return p->rc;
  }
  if( exprNullish(&v) ){
    if( pN->mArg & 8 ) return exprEval(p, pN->apArg[3], pOut);
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  rc = exprConvertValue(p, &v, eTo, pOut, &zWhy);
  if( rc==SQLITE_OK || p->rc ) return p->rc ? p->rc : rc;
  if( rc==SQLITE_ERROR && (pN->mArg & 4) ) return exprEval(p, pN->apArg[2], pOut);
  if( rc!=SQLITE_ERROR ) return p->rc = rc;
  if( zWhy ){
    return exprError(p, "%s (%s to %s) in %s with no onError value",
                     zWhy, exprTypeName(&v), exprTargetName(eTo), pN->zOp);
  }
  return exprError(p, "unsupported conversion from %s to %s in %s with no "
                      "onError value", exprTypeName(&v), exprTargetName(eTo), pN->zOp);
}

/*------------------------------------------------------------------------
** More strings: $split, $trim, $ltrim, $rtrim, $indexOfBytes, $indexOfCP,
** $strcasecmp, $replaceOne, $replaceAll, $substrBytes ($substr). Offsets
** are bytes, or code points for the CP forms, as in MongoDB.
*/

/* String argument i of pN's evaluated a[], or an error naming it; *pbNull
** when it is null or missing. */
static int exprStrArg(ExprCtx *p, const ExprNode *pN, const DocValue *v, const char *zWhat,
                      const char **pz, int *pn, int *pbNull){
  if( exprNullish(v) ){
    *pbNull = 1;
    *pz = "";
    *pn = 0;
    return SQLITE_OK;
  }
  if( v->type!=DOC_STRING ){
    return exprError(p, "%s's %s must be a string, not %s",
                     pN->zOp, zWhat, exprTypeName(v));
  }
  *pz = docextValueStr(v, pn);
  return SQLITE_OK;
}

/* The length of the UTF-8 character that starts with byte c (1 for a
** stray continuation byte). */
static int exprUtf8Len(u8 c){
  return c<0xC0 ? 1 : c<0xE0 ? 2 : c<0xF0 ? 3 : 4;
}

/* Is z[0..n) the UTF-8 of a character in zSet[0..nSet) (NULL: MongoDB's
** default, the whitespace characters and NUL)? */
static int exprTrimChar(const char *z, int n, const char *zSet, int nSet){
  static const char *azSpace[] = {
    "\x00", " ", "\t", "\n", "\v", "\f", "\r", "\xC2\xA0", "\xE1\x9A\x80",
    "\xE2\x80\x80", "\xE2\x80\x81", "\xE2\x80\x82", "\xE2\x80\x83", "\xE2\x80\x84",
    "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87", "\xE2\x80\x88", "\xE2\x80\x89",
    "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F",
    "\xE3\x80\x80",
  };
  int i;
  if( zSet==0 ){
    for(i=0; i<DOCEXT_COUNT(azSpace); i++){
      int nS = i==0 ? 1 : (int)strlen(azSpace[i]);
      if( nS==n && memcmp(azSpace[i], z, n)==0 ) return 1;
    }
    return 0;
  }
  for(i=0; i<nSet; i+=exprUtf8Len((u8)zSet[i])){
    if( exprUtf8Len((u8)zSet[i])==n && memcmp(&zSet[i], z, n)==0 ) return 1;
  }
  return 0;
}

/* $trim, $ltrim, $rtrim: arguments input, chars. */
static int exprEvalTrim(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  DocBuf b;
  const char *z, *zSet = 0;
  int n, nSet = 0, bNull = 0, iStart = 0, iEnd;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprStrArg(p, pN, &a[0], "input", &z, &n, &bNull) ) return p->rc;
  if( (pN->mArg & 2) && exprStrArg(p, pN, &a[1], "chars", &zSet, &nSet, &bNull) ) return p->rc;
  if( bNull ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  iEnd = n;
  if( pN->eSub!=2 ){                              /* not $rtrim: the front */
    while( iStart<n ){
      int k = exprUtf8Len((u8)z[iStart]);
      if( iStart+k>n || !exprTrimChar(&z[iStart], k, zSet, nSet) ) break;
      iStart += k;
    }
  }
  if( pN->eSub!=1 ){                              /* not $ltrim: the back */
    while( iEnd>iStart ){
      int j = iEnd-1;
      while( j>iStart && ((u8)z[j] & 0xC0)==0x80 ) j--;
      if( !exprTrimChar(&z[j], iEnd-j, zSet, nSet) ) break;
      iEnd = j;
    }
  }
  memset(&b, 0, sizeof(b));
  b.a = (u8*)z + iStart;                          /* (read only: copied) */
  b.n = iEnd - iStart;
  return exprSetString(p, &b, pOut);
}

/* $split: [string, delimiter]. */
static int exprEvalSplit(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2], v;
  const char *z, *zDelim;
  int n, nDelim, bNull = 0, i, iStart = 0;
  ExprArray arr;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprStrArg(p, pN, &a[0], "first argument", &z, &n, &bNull) ) return p->rc;
  if( exprStrArg(p, pN, &a[1], "delimiter", &zDelim, &nDelim, &bNull) ) return p->rc;
  if( bNull ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( nDelim==0 ) return exprError(p, "$split's delimiter must not be empty");
  exprArrayStart(&arr);
  for(i=0; i<=n; i++){
    if( i==n || (i+nDelim<=n && memcmp(&z[i], zDelim, nDelim)==0) ){
      DocBuf b;
      memset(&b, 0, sizeof(b));
      b.a = (u8*)z + iStart;
      b.n = i - iStart;
      if( exprSetString(p, &b, &v) || !exprArrayAdd(&arr, &v) ) break;
      iStart = i + nDelim;
      i = iStart - 1;
    }
  }
  return exprArrayEnd(p, &arr, pOut);
}

/* The byte offset of code point k of z[0..n) (n past the end). */
static int exprCpOffset(const char *z, int n, i64 k){
  int i = 0;
  while( i<n && k>0 ){
    i += exprUtf8Len((u8)z[i]);
    k--;
  }
  return i<n ? i : n;
}

/* The optional third and fourth arguments of $indexOfBytes, $indexOfCP
** and $indexOfArray, a[2] and a[3]: non-negative whole numbers, into
** aLim[0] and aLim[1] (left as they are when not given). */
static int exprIndexLimits(ExprCtx *p, const ExprNode *pN, const DocValue *a, int *aLim){
  int i;
  for(i=2; i<pN->nArg; i++){
    if( !exprWholeInt(&a[i], &aLim[i-2]) || aLim[i-2]<0 ){
      return exprError(p, "%s's %s index must be a non-negative whole number",
                       pN->zOp, i==2 ? "starting" : "ending");
    }
  }
  return SQLITE_OK;
}

/* $indexOfBytes, $indexOfCP: [string, substring, start, end]: the first
** place of substring at or after start and ending by end, or -1. */
static int exprEvalIndexOf(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[4];
  const char *z, *zSub;
  int n, nSub, bNull = 0, i, iStart, iEnd, aLim[2] = {0, -1}, bCP = pN->eOp==EX_INDEXOFCP;
  i64 nUnits = 0, k;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprStrArg(p, pN, &a[0], "first argument", &z, &n, &bNull) ) return p->rc;
  if( bNull ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( exprStrArg(p, pN, &a[1], "second argument", &zSub, &nSub, &bNull) ) return p->rc;
  if( bNull ){
    return exprError(p, "%s's second argument must be a string, not null",
                     pN->zOp);
  }
  if( exprIndexLimits(p, pN, a, aLim) ) return p->rc;
  for(i=0; i<n; i+=bCP ? exprUtf8Len((u8)z[i]) : 1) nUnits++;    /* bytes or CPs */
  if( aLim[0]>nUnits || (aLim[1]>=0 && aLim[0]>aLim[1]) ) return exprSetInt(p, -1, pOut);
  iStart = bCP ? exprCpOffset(z, n, aLim[0]) : aLim[0];
  iEnd = aLim[1]<0 ? n : bCP ? exprCpOffset(z, n, aLim[1]) : (aLim[1]<n ? aLim[1] : n);
  for(i=iStart, k=aLim[0]; i+nSub<=iEnd; k++){
    if( memcmp(&z[i], zSub, nSub)==0 ) return exprSetInt(p, k, pOut);
    if( i>=iEnd ) break;
    i += bCP ? exprUtf8Len((u8)z[i]) : 1;
  }
  return exprSetInt(p, -1, pOut);
}

/* $strcasecmp: [a, b], ASCII letters folded; null is the empty string. */
static int exprEvalStrcasecmp(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  const char *z[2];
  int n[2], bNull = 0, i, c = 0;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  for(i=0; i<2; i++){
    if( exprStrArg(p, pN, &a[i], i ? "second argument" : "first argument", &z[i], &n[i], &bNull) ){
      return p->rc;
    }
  }
  for(i=0; c==0 && i<n[0] && i<n[1]; i++){
    int x = (u8)z[0][i], y = (u8)z[1][i];
    if( x>='A' && x<='Z' ) x += 32;
    if( y>='A' && y<='Z' ) y += 32;
    c = x - y;
  }
  if( c==0 ) c = n[0] - n[1];
  return exprSetInt(p, c<0 ? -1 : c>0, pOut);
}

/* $replaceOne, $replaceAll: arguments input, find, replacement. An empty
** find matches before each character and at the end, as in JavaScript. */
static int exprEvalReplace(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[3];
  const char *z, *zFind, *zRepl;
  int n, nFind, nRepl, bNull = 0, i = 0, iRun = 0, rc = SQLITE_OK, bAll = pN->eOp==EX_REPLACEALL;
  DocBuf b;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprStrArg(p, pN, &a[0], "input", &z, &n, &bNull)
   || exprStrArg(p, pN, &a[1], "find", &zFind, &nFind, &bNull)
   || exprStrArg(p, pN, &a[2], "replacement", &zRepl, &nRepl, &bNull) ){
    return p->rc;
  }
  if( bNull ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  memset(&b, 0, sizeof(b));
  while( i<=n && rc==SQLITE_OK ){
    if( i+nFind<=n && memcmp(&z[i], zFind, nFind)==0 ){
      docextBufAppend(&rc, &b, &z[iRun], i - iRun);
      docextBufAppend(&rc, &b, zRepl, nRepl);
      if( b.n>DOCEXT_MAX_BSON ) rc = SQLITE_TOOBIG;
      iRun = i + nFind;
      if( !bAll ) break;
      if( nFind>0 ){
        i += nFind;
        continue;
      }
    }
    if( i==n ) break;
    i += nFind>0 ? 1 : exprUtf8Len((u8)z[i]);
    if( nFind==0 ){
      docextBufAppend(&rc, &b, &z[iRun], i - iRun);
      iRun = i;
    }
  }
  docextBufAppend(&rc, &b, &z[iRun], n - iRun);
  if( rc==SQLITE_TOOBIG ){
    exprError(p, "%s makes a string larger than 16 MiB", pN->zOp);
  }else if( rc ){
    p->rc = rc;
  }else{
    exprSetString(p, &b, pOut);
  }
  docextBufFree(&b);
  return p->rc;
}

/* $substrBytes ($substr): [string, start, length]; a negative length
** takes the rest. Neither end may cut a character in two. */
static int exprEvalSubstrBytes(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[3];
  DocBuf b;
  const char *z;
  int n, bNull = 0, iStart, nLen;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprStrArg(p, pN, &a[0], "first argument", &z, &n, &bNull) ) return p->rc;
  if( !exprWholeInt(&a[1], &iStart) || iStart<0 ){
    return exprError(p, "%s's starting index must be a non-negative whole number",
                     pN->zOp);
  }
  if( !exprWholeInt(&a[2], &nLen) ){
    return exprError(p, "%s's length must be a whole number", pN->zOp);
  }
  if( iStart>n ) iStart = n;
  if( nLen<0 || nLen>n-iStart ) nLen = n - iStart;
  if( (iStart<n && ((u8)z[iStart] & 0xC0)==0x80)
   || (iStart+nLen<n && ((u8)z[iStart+nLen] & 0xC0)==0x80) ){
    return exprError(p, "%s: a range that cuts a UTF-8 character in two",
                     pN->zOp);
  }
  memset(&b, 0, sizeof(b));
  b.a = (u8*)z + iStart;
  b.n = nLen;
  return exprSetString(p, &b, pOut);
}

/*------------------------------------------------------------------------
** More arrays and documents: $indexOfArray, $range, $objectToArray,
** $arrayToObject.
*/

/* $indexOfArray: [array, value, start, end]. */
static int exprEvalIndexOfArray(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[4];
  DocIter it;
  int aLim[2] = {0, -1}, k = 0;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprNullish(&a[0]) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( a[0].type!=DOC_ARRAY ){
    return exprError(p, "$indexOfArray's first argument must be an array, not %s",
                     exprTypeName(&a[0]));
  }
  if( exprIndexLimits(p, pN, a, aLim) ) return p->rc;
  docextIterInitValue(&it, &a[0]);
  while( docextIterNext(&it) && (aLim[1]<0 || k<aLim[1]) ){
    if( k>=aLim[0] && exprCompare(p->pCollator, &it.v, &a[1])==0 ) return exprSetInt(p, k, pOut);
    k++;
  }
  return exprSetInt(p, -1, pOut);
}

/* $range: [start, end, step]: int32s from start toward end (not reached). */
static int exprEvalRange(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[3], v;
  int d[3] = {0, 0, 1}, i;
  i64 x;
  ExprArray arr;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  for(i=0; i<pN->nArg; i++){
    if( !exprWholeInt(&a[i], &d[i]) ){
      return exprError(p, "$range's %s must be a whole number an int32 holds, "
                          "not %s", i==0 ? "start" : i==1 ? "end" : "step", exprTypeName(&a[i]));
    }
  }
  if( d[2]==0 ) return exprError(p, "$range's step must not be 0");
  exprArrayStart(&arr);
  for(x=d[0]; d[2]>0 ? x<d[1] : x>d[1]; x+=d[2]){
    if( exprSetInt(p, x, &v) || !exprArrayAdd(&arr, &v) ) break;
  }
  return exprArrayEnd(p, &arr, pOut);
}

/* $objectToArray: a document as [{k, v}, …]. */
static int exprEvalObjectToArray(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue v;
  DocIter it;
  ExprArray arr;
  char zIdx[16];
  if( exprEval(p, pN->apArg[0], &v) ) return p->rc;
  if( exprNullish(&v) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( v.type!=DOC_DOCUMENT ){
    return exprError(p, "$objectToArray needs a document, not %s", exprTypeName(&v));
  }
  exprArrayStart(&arr);
  docextIterInitValue(&it, &v);
  while( arr.rc==SQLITE_OK && docextIterNext(&it) ){
    int nIdx = docextBsonArrayKey(zIdx, arr.n++);
    i64 iElem = docextBsonStartChild(&arr.rc, &arr.b, DOC_DOCUMENT, zIdx, nIdx);
    docextBsonAppendString(&arr.rc, &arr.b, DOC_STRING, "k", 1, it.zKey, it.nKey);
    docextBsonAppendValue(&arr.rc, &arr.b, "v", 1, &it.v);
    docextBsonEndDoc(&arr.rc, &arr.b, iElem);
    if( arr.b.n>DOCEXT_MAX_BSON ) arr.rc = SQLITE_TOOBIG;
  }
  return exprArrayEnd(p, &arr, pOut);
}

/* $arrayToObject: [[k, v], …] or [{k, v}, …] as a document; a name met
** again takes the later value, in the earlier place. */
static int exprEvalArrayToObject(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue v, *aK = 0, *aV = 0;
  DocIter it;
  DocBuf b;
  int n, j, k = 0, rc = SQLITE_OK;
  i64 iDoc;
  if( exprEval(p, pN->apArg[0], &v) ) return p->rc;
  if( exprNullish(&v) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( v.type!=DOC_ARRAY ){
    return exprError(p, "$arrayToObject needs an array, not %s", exprTypeName(&v));
  }
  n = docextIterCount(&v);
  aK = sqlite3_malloc64(sizeof(DocValue)*2*((u64)n+1));
  if( aK==0 ) return p->rc = SQLITE_NOMEM;
  aV = &aK[n+1];
  docextIterInitValue(&it, &v);
  while( docextIterNext(&it) ){
    DocValue key, val;
    int bOk = 0;
    if( it.v.type==DOC_ARRAY && docextIterCount(&it.v)==2 ){
      DocIter e;
      docextIterInitValue(&e, &it.v);
      docextIterNext(&e);
      key = e.v;
      docextIterNext(&e);
      val = e.v;
      bOk = 1;
    }else if( it.v.type==DOC_DOCUMENT && docextIterCount(&it.v)==2
           && docextBsonFind(it.v.p, "k", 1, &key) && docextBsonFind(it.v.p, "v", 1, &val) ){
      bOk = 1;
    }
    if( !bOk ){
      sqlite3_free(aK);
      return exprError(p, "$arrayToObject needs [name, value] pairs or "
                          "{k: name, v: value} documents");
    }
    if( key.type!=DOC_STRING || memchr(key.p+4, 0, key.n-5) ){
      sqlite3_free(aK);
      return exprError(p, "$arrayToObject's names must be strings without "
                          "a NUL, not %s", exprTypeName(&key));
    }
    for(j=0; j<k && !(aK[j].n==key.n && memcmp(aK[j].p, key.p, key.n)==0); j++){}
    aK[j] = key;
    aV[j] = val;
    if( j==k ) k++;
  }
  memset(&b, 0, sizeof(b));
  iDoc = docextBsonStartDoc(&rc, &b);
  for(j=0; j<k; j++){
    docextBsonAppendValue(&rc, &b, (const char*)aK[j].p+4, aK[j].n-5, &aV[j]);
  }
  docextBsonEndDoc(&rc, &b, iDoc);
  sqlite3_free(aK);
  return exprSetDoc(p, DOC_DOCUMENT, rc, &b, pOut);
}

/*------------------------------------------------------------------------
** Date arithmetic: $dateAdd, $dateSubtract, $dateDiff, $dateTrunc,
** $dateFromParts, $dateToParts, $dateFromString. Calendar units (month,
** quarter, year) move in the local calendar of the timezone and keep the
** day where the month has it (January 31 plus a month is February's
** last day); the others are fixed lengths of time. Bins of $dateTrunc
** count from 2000-01-01 (weeks: from the start of the week holding it).
*/

enum { TU_MS = 1, TU_SECOND, TU_MINUTE, TU_HOUR, TU_DAY, TU_WEEK, TU_MONTH, TU_QUARTER, TU_YEAR };

static const struct ExprUnit {
  const char *zName;
  u8 eUnit;
  i64 nMs;                  /* the unit's length; 0 for calendar units */
} aExprUnit[] = {
  {"millisecond", TU_MS, 1}, {"second", TU_SECOND, 1000}, {"minute", TU_MINUTE, 60000},
  {"hour", TU_HOUR, 3600000}, {"day", TU_DAY, 86400000}, {"week", TU_WEEK, 604800000},
  {"month", TU_MONTH, 0}, {"quarter", TU_QUARTER, 0}, {"year", TU_YEAR, 0},
};

/* A unit argument: its index in aExprUnit, or -1 (and the error). */
static int exprUnit(ExprCtx *p, const ExprNode *pN, const DocValue *v){
  const char *z;
  int n, i;
  if( v->type==DOC_STRING ){
    z = docextValueStr(v, &n);
    for(i=0; i<DOCEXT_COUNT(aExprUnit); i++){
      if( (int)strlen(aExprUnit[i].zName)==n && memcmp(aExprUnit[i].zName, z, n)==0 ) return i;
    }
    exprError(p, "%s: unknown time unit '%.*s'", pN->zOp, n, z);
    return -1;
  }
  exprError(p, "%s's unit must be a string, not %s", pN->zOp, exprTypeName(v));
  return -1;
}

/* A startOfWeek argument ("monday", "mon", …, any case): 0 for Sunday to 6
** for Saturday, or -1 (and the error). */
static int exprStartOfWeek(ExprCtx *p, const ExprNode *pN, const DocValue *v){
  static const char *azDay[] = {"sunday", "monday", "tuesday", "wednesday", "thursday",
                                "friday", "saturday"};
  const char *z;
  int n, i, k;
  if( v->type==DOC_STRING ){
    z = docextValueStr(v, &n);
    for(i=0; i<7; i++){
      int nDay = (int)strlen(azDay[i]);
      if( n!=3 && n!=nDay ) continue;
      for(k=0; k<n && (z[k]|0x20)==azDay[i][k]; k++){}
      if( k==n ) return i;
    }
  }
  exprError(p, "%s: startOfWeek must be a day of the week, such as "
               "\"monday\" or \"sun\"", pN->zOp);
  return -1;
}

static i64 exprFloorDiv(i64 a, i64 b){
  i64 q = a / b;
  return (a % b != 0 && ((a<0) != (b<0))) ? q - 1 : q;
}

/* Days in month m of year y. */
static int exprMonthDays(i64 y, int m){
  static const int aDays[] = {31,28,31,30,31,30,31,31,30,31,30,31};
  int bLeap = (y%4==0 && y%100!=0) || y%400==0;
  return m==2 && bLeap ? 29 : aDays[m-1];
}

/* Local milliseconds of a civil time. */
static i64 exprCivilMs(const DocCivil *c){
  return docextDaysFromCivil(c->year, c->month, c->day)*86400000 + c->hour*3600000LL
       + c->minute*60000LL + c->second*1000LL + c->millis;
}

/* The year and month nMonths months from (y, m), months counted from 0. */
static void exprAddMonths(DocCivil *c, i64 nMonths){
  i64 t = c->year*12 + (c->month - 1) + nMonths;
  c->year = exprFloorDiv(t, 12);
  c->month = (int)(t - c->year*12) + 1;
  if( c->day>exprMonthDays(c->year, c->month) ) c->day = exprMonthDays(c->year, c->month);
}

/* A whole number argument (any numeric type) into *pn: 0 if it is not. */
static int exprWholeI64(const DocValue *v, i64 *pn){
  double d;
  if( !docextValueIsNumber(v) ) return 0;
  if( v->type==DOC_INT32 || v->type==DOC_INT64 ){
    *pn = v->type==DOC_INT32 ? docextValueI32(v) : docextValueI64(v);
    return 1;
  }
  d = docextValueToDouble(v);
  if( d!=floor(d) || d<-9.2e18 || d>9.2e18 ) return 0;          /* (NaN too) */
  *pn = (i64)d;
  return 1;
}

/* The dates the arithmetic takes: about 158,000 years either side of
** 1970, so that no step of it can overflow. */
#define EXPR_DATE_LIMIT 5000000000000000LL

static int exprDateInRange(ExprCtx *p, const ExprNode *pN, i64 ms){
  if( ms<-EXPR_DATE_LIMIT || ms>EXPR_DATE_LIMIT ){
    return exprError(p, "%s: a date too far from 1970 (more than 158,000 "
                        "years)", pN->zOp);
  }
  return SQLITE_OK;
}

/* $dateAdd, $dateSubtract: startDate, unit, amount, timezone. */
static int exprEvalDateAdd(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[4];
  DocCivil c;
  DocNum r;
  ExprZone zone;
  i64 ms, nAmount, nDelta;
  int bNull, iUnit, eUnit, bZoneNull;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  /* MongoDB's order: a null startDate, unit or amount leaves the rest
  ** unread; the unit is checked before the amount and the zone */
  if( exprNullish(&a[0]) || exprNullish(&a[1]) ) return exprSetNull(pOut);
  if( (iUnit = exprUnit(p, pN, &a[1]))<0 ) return p->rc;
  if( exprNullish(&a[2]) ) return exprSetNull(pOut);
  if( exprTimezone(p, pN, 3, &a[3], pN->mArg & 8, &zone, &bZoneNull) ) return p->rc;
  if( bZoneNull ) return exprSetNull(pOut);
  if( exprDateMs(p, pN->zOp, &a[0], &ms, &bNull) || exprDateInRange(p, pN, ms) ) return p->rc;
  if( !exprWholeI64(&a[2], &nAmount) ){
    return exprError(p, "%s's amount must be a whole number, not %s",
                     pN->zOp, exprTypeName(&a[2]));
  }
  if( pN->eOp==EX_DATESUBTRACT ){
    if( nAmount==INT64_MIN ) return exprError(p, "%s overflowed", pN->zOp);
    nAmount = -nAmount;
  }
  eUnit = aExprUnit[iUnit].eUnit;
  if( zone.pTz && (eUnit==TU_DAY || eUnit==TU_WEEK) ){
    /* days in a zone of the database are days of its calendar: a day
    ** across a change of offset is 23 or 25 hours, as in MongoDB */
    i64 local = exprZoneLocalMs(&zone, ms);
    if( __builtin_mul_overflow(nAmount, aExprUnit[iUnit].nMs, &nDelta)
     || __builtin_add_overflow(local, nDelta, &local) ){
      return exprError(p, "%s overflowed", pN->zOp);
    }
    if( exprDateInRange(p, pN, local) ) return p->rc;
    ms = exprZoneUtcMs(&zone, local);
  }else if( aExprUnit[iUnit].nMs ){
    if( __builtin_mul_overflow(nAmount, aExprUnit[iUnit].nMs, &nDelta)
     || __builtin_add_overflow(ms, nDelta, &ms) ){
      return exprError(p, "%s overflowed", pN->zOp);
    }
  }else{
    int k = eUnit==TU_MONTH ? 1 : eUnit==TU_QUARTER ? 3 : 12;
    if( nAmount>1200000 || nAmount<-1200000 ){
      return exprError(p, "%s overflowed", pN->zOp);
    }
    docextCivilFromMs(exprZoneLocalMs(&zone, ms), &c);
    exprAddMonths(&c, nAmount*k);
    ms = exprZoneUtcMs(&zone, exprCivilMs(&c));
  }
  r.type = DOC_DATE;
  r.i = ms;
  return exprSetNum(p, &r, pOut);
}

/* The number of the week (starting on day iStart, 0 Sunday) that holds
** local day dn (days since 1970-01-01, a Thursday). */
static i64 exprWeekOf(i64 dn, int iStart){
  i64 iDow = ((dn % 7) + 7 + 4) % 7;                    /* 0 Sunday */
  return exprFloorDiv(dn - ((iDow - iStart + 7) % 7), 7);
}

/* $dateDiff: startDate, endDate, unit, timezone, startOfWeek. Counts the
** unit's boundaries crossed between the two, in local time. */
static int exprEvalDateDiff(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[5];
  DocCivil c0, c1;
  ExprZone zone;
  i64 m0, m1, n;
  int b0, b1, bZoneNull, iUnit, iStart = 0;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  /* MongoDB's order: the dates' and the unit's nulls, the unit, the start
  ** of the week, the zone, and only then the dates' types */
  if( exprNullish(&a[0]) || exprNullish(&a[1]) || exprNullish(&a[2]) ){
    return exprSetNull(pOut);
  }
  if( (iUnit = exprUnit(p, pN, &a[2]))<0 ) return p->rc;
  if( aExprUnit[iUnit].eUnit==TU_WEEK && (pN->mArg & 16) ){
    if( exprNullish(&a[4]) ) return exprSetNull(pOut);
    if( (iStart = exprStartOfWeek(p, pN, &a[4]))<0 ) return p->rc;
  }
  if( exprTimezone(p, pN, 3, &a[3], pN->mArg & 8, &zone, &bZoneNull) ) return p->rc;
  if( bZoneNull ) return exprSetNull(pOut);
  if( exprDateMs(p, pN->zOp, &a[0], &m0, &b0) || exprDateMs(p, pN->zOp, &a[1], &m1, &b1)
   || exprDateInRange(p, pN, m0) || exprDateInRange(p, pN, m1) ){
    return p->rc;
  }
  if( aExprUnit[iUnit].eUnit<=TU_HOUR ){
    /* elapsed time: only the part of each offset below the unit moves
    ** its boundaries (an hour in "+05:30" starts at :30), so a change of
    ** offset by whole hours counts no unit twice (MongoDB's rule) */
    i64 u = aExprUnit[iUnit].nMs;
    m0 += exprZoneOffsetMs(&zone, m0) - exprFloorDiv(exprZoneOffsetMs(&zone, m0), u)*u;
    m1 += exprZoneOffsetMs(&zone, m1) - exprFloorDiv(exprZoneOffsetMs(&zone, m1), u)*u;
  }else{
    m0 = exprZoneLocalMs(&zone, m0);
    m1 = exprZoneLocalMs(&zone, m1);
  }
  switch( aExprUnit[iUnit].eUnit ){
    case TU_WEEK:
      n = exprWeekOf(exprFloorDiv(m1, 86400000), iStart)
        - exprWeekOf(exprFloorDiv(m0, 86400000), iStart);
      break;
    case TU_MONTH: case TU_QUARTER: case TU_YEAR: {
      int k = aExprUnit[iUnit].eUnit==TU_MONTH ? 1 : aExprUnit[iUnit].eUnit==TU_QUARTER ? 3 : 12;
      docextCivilFromMs(m0, &c0);
      docextCivilFromMs(m1, &c1);
      n = exprFloorDiv(c1.year*12 + c1.month - 1, k) - exprFloorDiv(c0.year*12 + c0.month - 1, k);
      break;
    }
    default:
      n = exprFloorDiv(m1, aExprUnit[iUnit].nMs) - exprFloorDiv(m0, aExprUnit[iUnit].nMs);
      break;
  }
  {
    DocNum r;
    r.type = DOC_INT64;
    r.i = n;
    return exprSetNum(p, &r, pOut);
  }
}

/* $dateTrunc: date, unit, binSize, timezone, startOfWeek. */
static int exprEvalDateTrunc(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  static const i64 iRefMs = 946684800000LL;           /* 2000-01-01 */
  DocValue a[5];
  DocCivil c;
  DocNum r;
  ExprZone zone;
  i64 ms, nBin = 1, nOffMs;
  int bNull, bZoneNull, iUnit, iStart = 0;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  /* MongoDB's order: the date's null, the binSize, the unit, the start of
  ** the week, the zone, and only then the date's type */
  if( exprNullish(&a[0]) ) return exprSetNull(pOut);
  if( pN->mArg & 4 ){
    if( exprNullish(&a[2]) ) return exprSetNull(pOut);
    if( !exprWholeI64(&a[2], &nBin) || nBin<1 || nBin>100000000000LL ){
      return exprError(p, "$dateTrunc's binSize must be a positive whole number");
    }
  }
  if( exprNullish(&a[1]) ) return exprSetNull(pOut);
  if( (iUnit = exprUnit(p, pN, &a[1]))<0 ) return p->rc;
  if( aExprUnit[iUnit].eUnit==TU_WEEK && (pN->mArg & 16) ){
    if( exprNullish(&a[4]) ) return exprSetNull(pOut);
    if( (iStart = exprStartOfWeek(p, pN, &a[4]))<0 ) return p->rc;
  }
  if( exprTimezone(p, pN, 3, &a[3], pN->mArg & 8, &zone, &bZoneNull) ) return p->rc;
  if( bZoneNull ) return exprSetNull(pOut);
  if( exprDateMs(p, pN->zOp, &a[0], &ms, &bNull) || exprDateInRange(p, pN, ms) ) return p->rc;
  nOffMs = exprZoneOffsetMs(&zone, ms);
  ms += nOffMs;
  switch( aExprUnit[iUnit].eUnit ){
    case TU_WEEK: {
      i64 dRef = 10957, dn = exprFloorDiv(ms, 86400000);    /* 2000-01-01: a Saturday */
      dRef -= (6 - iStart + 7) % 7;                    /* the week's first day */
      dn = dRef + exprFloorDiv(dn - dRef, 7*nBin)*7*nBin;
      ms = dn*86400000;
      break;
    }
    case TU_MONTH: case TU_QUARTER: case TU_YEAR: {
      int eUnit = aExprUnit[iUnit].eUnit;
      i64 k = (eUnit==TU_MONTH ? 1 : eUnit==TU_QUARTER ? 3 : 12)*nBin;
      i64 t;
      docextCivilFromMs(ms, &c);
      t = 2000*12 + exprFloorDiv(c.year*12 + c.month - 1 - 2000*12, k)*k;
      c.year = exprFloorDiv(t, 12);
      c.month = (int)(t - c.year*12) + 1;
      c.day = 1;
      c.hour = c.minute = c.second = c.millis = 0;
      ms = exprCivilMs(&c);
      break;
    }
    default: {
      i64 nSize;
      if( __builtin_mul_overflow(aExprUnit[iUnit].nMs, nBin, &nSize) ){
        return exprError(p, "$dateTrunc's binSize is too large");
      }
      ms = iRefMs + exprFloorDiv(ms - iRefMs, nSize)*nSize;
      break;
    }
  }
  r.type = DOC_DATE;
  /* a unit of a day or more starts at a local midnight, found again in
  ** the zone; a shorter one keeps the date's own offset, so that the
  ** hours an autumn change repeats truncate to themselves, in order */
  r.i = aExprUnit[iUnit].eUnit>=TU_DAY ? exprZoneUtcMs(&zone, ms) : ms - nOffMs;
  return exprSetNum(p, &r, pOut);
}

/* Part i (0 year … 6 millisecond) of a $dateFromParts: *pv, or 1 when it
** is null or missing, or -1 (an error) when it is not a whole number or,
** for month, day, hour and minute (and the ISO week and day), is outside
** MongoDB's -32768..32767. The year's own range is checked by the caller,
** after the month and day, as MongoDB checks it. */
static int exprFromPartsArg(ExprCtx *p, const ExprNode *pN, const DocValue *a, int i,
                            i64 *pv){
  static const char *azPart[] = {"year", "month", "day", "hour", "minute", "second",
                                 "millisecond"};
  static const char *azIso[] = {"isoWeekYear", "isoWeek", "isoDayOfWeek"};
  const char *zPart = pN->eSub && i<3 ? azIso[i] : azPart[i];
  if( !(pN->mArg & (1<<i)) ) return 0;           /* the default */
  if( exprNullish(&a[i]) ) return 1;
  if( !exprWholeI64(&a[i], pv) ){
    exprError(p, "$dateFromParts' %s must be a whole number, not %s", zPart,
              exprTypeName(&a[i]));
    return -1;
  }
  if( i>=1 && i<=4 && (*pv<-32768 || *pv>32767) ){
    exprError(p, "$dateFromParts' %s is out of range: %lld", zPart, *pv);
    return -1;
  }
  return 0;
}

/* $dateFromParts: year, month, day, hour, minute, second, millisecond,
** timezone (or isoWeekYear, isoWeek, isoDayOfWeek for the first three).
** Parts past their range carry into the next larger one, as in MongoDB.
** MongoDB's order decides what a null hides: the time's parts, then the
** zone, then the date's parts. */
static int exprEvalDateFromParts(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  static const int aOrder[] = {3, 4, 5, 6, -1, 0, 1, 2};    /* -1: the zone */
  DocValue a[8];
  i64 aPart[7] = {1970, 1, 1, 0, 0, 0, 0}, ms = 0, days, aMs[4];
  ExprZone zone;
  int k, bZoneNull, bIso = pN->eSub;
  DocNum r;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  for(k=0; k<(int)DOCEXT_COUNT(aOrder); k++){
    int i = aOrder[k], e;
    if( i<0 ){
      if( exprTimezone(p, pN, 7, &a[7], pN->mArg & 128, &zone, &bZoneNull) ) return p->rc;
      if( bZoneNull ) return exprSetNull(pOut);
      continue;
    }
    e = exprFromPartsArg(p, pN, a, i, &aPart[i]);
    if( e<0 ) return p->rc;
    if( e>0 ) return exprSetNull(pOut);
  }
  if( aPart[0]<1 || aPart[0]>9999 ){
    return exprError(p, "$dateFromParts' %s is out of range: %lld",
                     bIso ? "isoWeekYear" : "year", aPart[0]);
  }
  if( bIso ){
    if( !(pN->mArg & 2) ) aPart[1] = 1;
    if( !(pN->mArg & 4) ) aPart[2] = 1;
    days = exprIsoWeekDate(aPart[0], aPart[1], aPart[2]);
  }else{
    DocCivil c;
    memset(&c, 0, sizeof(c));
    c.year = aPart[0];
    c.month = 1;
    c.day = 1;
    exprAddMonths(&c, aPart[1] - 1);
    days = docextDaysFromCivil(c.year, c.month, 1) + aPart[2] - 1;
  }
  /* seconds and milliseconds have no range of their own (MongoDB's):
  ** the sum may overflow */
  aMs[0] = days*86400000 + aPart[3]*3600000 + aPart[4]*60000;
  if( __builtin_mul_overflow(aPart[5], 1000, &aMs[1])
   || __builtin_add_overflow(aMs[0], aMs[1], &ms)
   || __builtin_add_overflow(ms, aPart[6], &ms)
   || exprDateInRange(p, pN, ms) ){
    return p->rc ? p->rc : exprError(p, "$dateFromParts overflowed");
  }
  ms = exprZoneUtcMs(&zone, ms);
  r.type = DOC_DATE;
  r.i = ms;
  return exprSetNum(p, &r, pOut);
}

/* $dateToParts: date, timezone, iso8601. */
static int exprEvalDateToParts(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  static const char *azPart[] = {"year", "month", "day", "hour", "minute", "second",
                                 "millisecond"};
  static const char *azIso[] = {"isoWeekYear", "isoWeek", "isoDayOfWeek"};
  DocValue a[3];
  DocCivil c;
  DocBuf b;
  i64 aPart[7], iDoc, nOffMs;
  int bNull, i, bIso = 0, rc = SQLITE_OK;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( exprCivil(p, pN, a, 1, pN->mArg & 2, 1, &c, &nOffMs, 0, &bNull) ) return p->rc;
  if( (pN->mArg & 4) && !exprNullish(&a[2]) ){
    if( a[2].type!=DOC_BOOL ){
      return exprError(p, "$dateToParts' iso8601 must be a boolean, not %s",
                       exprTypeName(&a[2]));
    }
    bIso = a[2].p[0]!=0;
  }
  if( bNull || ((pN->mArg & 4) && exprNullish(&a[2])) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  aPart[0] = c.year; aPart[1] = c.month; aPart[2] = c.day;
  if( bIso ){
    int w;
    exprIsoWeek(&c, &w, &aPart[0]);
    aPart[1] = w;
    aPart[2] = exprDatePart(&c, DP_ISODOW);
  }
  aPart[3] = c.hour; aPart[4] = c.minute; aPart[5] = c.second; aPart[6] = c.millis;
  memset(&b, 0, sizeof(b));
  iDoc = docextBsonStartDoc(&rc, &b);
  for(i=0; i<7; i++){
    const char *z = bIso && i<3 ? azIso[i] : azPart[i];
    docextBsonAppendInt32(&rc, &b, z, (int)strlen(z), (int32_t)aPart[i]);
  }
  docextBsonEndDoc(&rc, &b, iDoc);
  return exprSetDoc(p, DOC_DOCUMENT, rc, &b, pOut);
}

/* Read exactly nMin..nMax digits at z[*pi] into *pv (a sign first when
** bSign). 0 when there are not enough. */
static int exprReadNum(const char *z, int n, int *pi, int nMin, int nMax, int bSign, i64 *pv){
  int i = *pi, k = 0, bNeg = 0;
  i64 v = 0;
  if( bSign && i<n && (z[i]=='+' || z[i]=='-') ){
    bNeg = z[i]=='-';
    i++;
  }
  while( i<n && k<nMax && z[i]>='0' && z[i]<='9' ){
    v = v*10 + (z[i++] - '0');
    k++;
  }
  if( k<nMin ) return 0;
  *pv = bNeg ? -v : v;
  *pi = i;
  return 1;
}

/* Parse z[0..n) with a $dateToString format: the local civil time into
** *pC and the zone's offset, if the text gives one, into *pnMin (*pbZone
** set). 0 when the text does not fit the format. A date is given by its
** year, month and day (%Y %m or %b/%B, %d), by its year and day of the
** year (%j), or by its ISO week date (%G %V, and %u, Monday when absent),
** not by two of these at once. */
static int exprParseFormatted(const char *z, int n, const char *zFmt, int nFmt,
                              DocCivil *pC, int *pnMin, int *pbZone){
  int i = 0, k;
  i64 v, yday = 0, isoYear = 0, isoWeek = 0, isoDow = 0;
  int mGiven = 0;                   /* 1: month or day, 2: %j, 4: ISO parts */
  memset(pC, 0, sizeof(*pC));
  pC->year = 1970;
  pC->month = pC->day = 1;
  *pbZone = 0;
  for(k=0; k<nFmt; k++){
    if( zFmt[k]!='%' ){
      if( i>=n || z[i]!=zFmt[k] ) return 0;
      i++;
      continue;
    }
    if( ++k>=nFmt ) return 0;
    switch( zFmt[k] ){
      case 'Y': if( !exprReadNum(z, n, &i, 4, 4, 0, &v) ) return 0; pC->year = v; break;
      case 'm':
        if( !exprReadNum(z, n, &i, 1, 2, 0, &v) ) return 0;
        pC->month = (int)v;
        mGiven |= 1;
        break;
      case 'j': if( !exprReadNum(z, n, &i, 1, 3, 0, &yday) ) return 0; mGiven |= 2; break;
      case 'G': if( !exprReadNum(z, n, &i, 4, 4, 0, &isoYear) ) return 0; mGiven |= 4; break;
      case 'V': if( !exprReadNum(z, n, &i, 1, 2, 0, &isoWeek) ) return 0; mGiven |= 4; break;
      case 'u': if( !exprReadNum(z, n, &i, 1, 1, 0, &isoDow) ) return 0; mGiven |= 4; break;
      case 'b': case 'B': {
        /* a month's name, whole or its first three letters, in any case */
        int m, nName = 0;
        for(m=0; m<12; m++){
          int nFull = (int)strlen(azExprMonth[m]);
          if( n-i>=nFull && sqlite3_strnicmp(z+i, azExprMonth[m], nFull)==0 ){ nName = nFull; break; }
          if( n-i>=3 && sqlite3_strnicmp(z+i, azExprMonth[m], 3)==0 ){ nName = 3; break; }
        }
        if( nName==0 ) return 0;
        pC->month = m + 1;
        i += nName;
        mGiven |= 1;
        break;
      }
      case 'd':
        if( !exprReadNum(z, n, &i, 1, 2, 0, &v) ) return 0;
        pC->day = (int)v;
        mGiven |= 1;
        break;
      case 'H': if( !exprReadNum(z, n, &i, 1, 2, 0, &v) ) return 0; pC->hour = (int)v; break;
      case 'M': if( !exprReadNum(z, n, &i, 1, 2, 0, &v) ) return 0; pC->minute = (int)v; break;
      case 'S': if( !exprReadNum(z, n, &i, 1, 2, 0, &v) ) return 0; pC->second = (int)v; break;
      case 'L': if( !exprReadNum(z, n, &i, 1, 3, 0, &v) ) return 0; pC->millis = (int)v; break;
      case 'z':
        if( i<n && z[i]=='Z' ){
          i++;
          v = 0;
        }else{
          i64 h, m = 0;
          int bNeg = i<n && z[i]=='-';
          if( i>=n || (z[i]!='+' && z[i]!='-') ) return 0;
          i++;
          if( !exprReadNum(z, n, &i, 2, 2, 0, &h) ) return 0;
          if( i<n && z[i]==':' ) i++;
          if( !exprReadNum(z, n, &i, 2, 2, 0, &m) || h>23 || m>59 ) return 0;
          v = (bNeg ? -1 : 1)*(h*60 + m);
        }
        *pnMin = (int)v;
        *pbZone = 1;
        break;
      case 'Z':
        if( !exprReadNum(z, n, &i, 1, 4, 1, &v) || v<-1439 || v>1439 ) return 0;
        *pnMin = (int)v;
        *pbZone = 1;
        break;
      case '%': if( i>=n || z[i]!='%' ) return 0; i++; break;
      default: return -1;                         /* a specifier we lack */
    }
  }
  if( i!=n || (mGiven!=0 && mGiven!=1 && mGiven!=2 && mGiven!=4) ) return 0;
  if( mGiven==2 || mGiven==4 ){
    /* the date from the day of the year, or from the ISO week date */
    i64 days;
    DocCivil c;
    if( mGiven==2 ){
      if( yday<1 || yday>365+(exprMonthDays(pC->year, 2)==29) ) return 0;
      days = docextDaysFromCivil(pC->year, 1, 1) + yday - 1;
    }else{
      if( isoDow==0 ) isoDow = 1;
      if( isoYear==0 || isoWeek<1 || isoWeek>exprIsoWeeksIn(isoYear) || isoDow>7 ) return 0;
      days = exprIsoWeekDate(isoYear, isoWeek, isoDow);
    }
    docextCivilFromMs(days*86400000, &c);
    pC->year = c.year;
    pC->month = c.month;
    pC->day = c.day;
  }
  if( pC->month<1 || pC->month>12 || pC->day<1 || pC->day>exprMonthDays(pC->year, pC->month)
   || pC->hour>23 || pC->minute>59 || pC->second>59 ){
    return 0;
  }
  return 1;
}

/* $dateFromString: dateString, format, timezone, onError, onNull. */
static int exprEvalDateFromString(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[5];
  DocNum r;
  const char *z, *zWhy = 0;
  ExprZone zone;
  int n, bZoneNull, nGiven = 0, bZone = 0;
  i64 ms = 0;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( (pN->mArg & 2)
   && exprCheckFormat(p, "$dateFromString", &a[1], EXPR_FROM_STRING_SPECIFIERS) ){
    return p->rc;
  }
  if( exprTimezone(p, pN, 2, &a[2], pN->mArg & 4, &zone, &bZoneNull) ) return p->rc;
  if( exprNullish(&a[0]) ){
    if( pN->mArg & 16 ) *pOut = a[4];
    else exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( bZoneNull || ((pN->mArg & 2) && exprNullish(&a[1])) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( a[0].type!=DOC_STRING ){
    zWhy = "dateString is not a string";
  }else{
    z = docextValueStr(&a[0], &n);
    if( a[1].type==DOC_STRING ){
      DocCivil c;
      const char *zFmt;
      int nFmt, e;
      zFmt = docextValueStr(&a[1], &nFmt);
      e = exprParseFormatted(z, n, zFmt, nFmt, &c, &nGiven, &bZone);
      /* (e<0, a specifier the parser lacks: exprCheckFormat refused it) */
      if( e<=0 ) zWhy = "the string does not match the format";
      else ms = exprCivilMs(&c) - (bZone ? nGiven : 0)*60000LL;
    }else if( docextIsoDateParseZone(z, n, &ms, &bZone) ){
      zWhy = "not an ISO 8601 date";
    }
    /* a time without a zone is local to the timezone argument */
    if( !zWhy && bZone && (pN->mArg & 4) ){
      return exprError(p, "$dateFromString: a string that gives its own "
                          "time zone cannot be read with the timezone argument too");
    }
    if( !zWhy && !bZone ) ms = exprZoneUtcMs(&zone, ms);
  }
  if( zWhy ){
    if( pN->mArg & 8 ){
      *pOut = a[3];
      return SQLITE_OK;
    }
    return exprError(p, "$dateFromString: %s", zWhy);
  }
  r.type = DOC_DATE;
  r.i = ms;
  return exprSetNum(p, &r, pOut);
}

/*------------------------------------------------------------------------
** Regular expressions ($regexMatch, $regexFind, $regexFindAll: input,
** regex, options), trigonometry, bits, and the rest: $zip, $sortArray,
** $firstN, $lastN, $maxN, $minN, $getField, $bsonSize, $binarySize,
** $tsSecond, $tsIncrement.
*/

/* The regex of a $regex* node: its pattern and options, from a string
** and an options string, or a BSON regex (whose options may not be given
** twice). SQLITE_OK with *ppRe (free it unless it is pN->pRe) or *pbNull
** when the regex is null. */
static int exprRegexOf(ExprCtx *p, const ExprNode *pN, const DocValue *pRegex,
                       const DocValue *pOpt, DocRegex **ppRe, int *pbNull){
  const char *zPat;
  char zOpt[16];
  int nPat, rc;
  *ppRe = 0;
  *pbNull = 0;
  if( pN->pRe ){
    *ppRe = pN->pRe;
    return SQLITE_OK;
  }
  if( exprNullish(pRegex) ){
    *pbNull = 1;
    return SQLITE_OK;
  }
  rc = exprRegexParts(pN->zOp, pRegex, pOpt, (pN->mArg & 4) && !exprNullish(pOpt),
                      &zPat, &nPat, zOpt, &p->zErr);
  if( rc==SQLITE_OK ) rc = exprRegexBuild(pN->zOp, zPat, nPat, zOpt, ppRe, &p->zErr);
  return p->rc = rc;
}

/* The {match, idx, captures} document of one match at aOff (byte offsets;
** idx counts code points). */
static int exprMatchDoc(ExprCtx *p, const char *z, const int *aOff, int nGroup, DocValue *pOut){
  DocBuf b;
  i64 iDoc, iArr;
  int rc = SQLITE_OK, i, nCP = 0;
  char zIdx[16];
  for(i=0; i<aOff[0]; i+=exprUtf8Len((u8)z[i])) nCP++;
  memset(&b, 0, sizeof(b));
  iDoc = docextBsonStartDoc(&rc, &b);
  docextBsonAppendString(&rc, &b, DOC_STRING, "match", 5, &z[aOff[0]], aOff[1]-aOff[0]);
  docextBsonAppendInt32(&rc, &b, "idx", 3, nCP);
  iArr = docextBsonStartChild(&rc, &b, DOC_ARRAY, "captures", 8);
  for(i=1; i<=nGroup; i++){
    int nIdx = docextBsonArrayKey(zIdx, i-1);
    if( aOff[2*i]<0 ) docextBsonAppendNull(&rc, &b, zIdx, nIdx);
    else docextBsonAppendString(&rc, &b, DOC_STRING, zIdx, nIdx, &z[aOff[2*i]],
                                aOff[2*i+1]-aOff[2*i]);
  }
  docextBsonEndDoc(&rc, &b, iArr);
  docextBsonEndDoc(&rc, &b, iDoc);
  return exprSetDoc(p, DOC_DOCUMENT, rc, &b, pOut);
}

#define EXPR_MAX_GROUPS 32        /* capture groups $regexFind reports */

static int exprEvalRegex(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[3], v;
  DocRegex *pRe = 0;
  const char *z;
  char *zErr = 0;
  int n, bNull, nGroup, aOff[2*(EXPR_MAX_GROUPS+1)], bMatch = 0, iStart = 0, rc;
  ExprArray arr;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( !exprNullish(&a[0]) && a[0].type!=DOC_STRING ){
    return exprError(p, "%s needs a string as input, not %s",
                     pN->zOp, exprTypeName(&a[0]));
  }
  if( exprRegexOf(p, pN, &a[1], &a[2], &pRe, &bNull) ) return p->rc;
  if( exprNullish(&a[0]) || bNull ){
    if( pN->eOp==EX_REGEXMATCH ) exprSetBool(pOut, 0);
    else if( pN->eOp==EX_REGEXFIND ) exprSetNull(pOut);
    else{ exprArrayStart(&arr); exprArrayEnd(p, &arr, pOut); }
    if( pRe!=pN->pRe ) docextRegexFree(pRe);
    return p->rc;
  }
  z = docextValueStr(&a[0], &n);
  nGroup = docextRegexGroups(pRe);
  if( nGroup>EXPR_MAX_GROUPS ) nGroup = EXPR_MAX_GROUPS;
  if( pN->eOp==EX_REGEXFINDALL ) exprArrayStart(&arr);
  for(;;){
    rc = docextRegexExec(pRe, z, n, iStart, aOff, nGroup+1, &bMatch, &zErr);
    if( rc ){
      if( zErr ){
        exprError(p, "%s", zErr);
        sqlite3_free(zErr);
      }else{
        p->rc = rc;
      }
      break;
    }
    if( pN->eOp==EX_REGEXMATCH ){
      exprSetBool(pOut, bMatch);
      break;
    }
    if( !bMatch ){
      if( pN->eOp==EX_REGEXFIND ) exprSetNull(pOut);
      break;
    }
    if( pN->eOp==EX_REGEXFIND ){
      exprMatchDoc(p, z, aOff, nGroup, pOut);
      break;
    }
    if( exprMatchDoc(p, z, aOff, nGroup, &v) || !exprArrayAdd(&arr, &v) ) break;
    /* the next match starts after this one, a character later if it was empty */
    iStart = aOff[1]>aOff[0] ? aOff[1] : aOff[1] + (aOff[1]<n ? exprUtf8Len((u8)z[aOff[1]]) : 1);
    if( iStart>n ) break;
  }
  if( pN->eOp==EX_REGEXFINDALL ){
    if( p->rc==SQLITE_OK ) exprArrayEnd(p, &arr, pOut);
    else docextBufFree(&arr.b);
  }
  if( pRe!=pN->pRe ) docextRegexFree(pRe);
  return p->rc;
}

/* $bitAnd, $bitOr, $bitXor (of ints and longs), $bitNot. */
static int exprEvalBits(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue v;
  DocNum r;
  int i;
  r.type = DOC_INT32;
  r.i = pN->eOp==EX_BITAND ? -1 : 0;
  for(i=0; i<pN->nArg; i++){
    i64 x;
    if( exprEval(p, pN->apArg[i], &v) ) return p->rc;
    if( exprNullish(&v) ){
      exprSetNull(pOut);
      return SQLITE_OK;
    }
    if( v.type!=DOC_INT32 && v.type!=DOC_INT64 ){
      return exprError(p, "%s only supports int and long, not %s",
                       pN->zOp, exprTypeName(&v));
    }
    if( v.type==DOC_INT64 ) r.type = DOC_INT64;
    x = v.type==DOC_INT32 ? docextValueI32(&v) : docextValueI64(&v);
    switch( pN->eOp ){
      case EX_BITAND: r.i &= x; break;
      case EX_BITOR:  r.i |= x; break;
      case EX_BITXOR: r.i ^= x; break;
      default:        r.i = ~x; break;
    }
  }
  return exprSetNum(p, &r, pOut);
}

/* $zip: inputs, useLongestLength, defaults. */
static int exprEvalZip(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[3], *aIn = 0, *aDef = 0;
  DocIter *aIt = 0, it;
  int nIn, i, k, nLen = -1, bLongest = 0;
  ExprArray arr;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  if( a[0].type!=DOC_ARRAY && !exprNullish(&a[0]) ){
    return exprError(p, "$zip's inputs must be an array, not %s",
                     exprTypeName(&a[0]));
  }
  if( (pN->mArg & 2) ){
    if( a[1].type!=DOC_BOOL ){
      return exprError(p, "$zip's useLongestLength must be a boolean");
    }
    bLongest = a[1].p[0]!=0;
  }
  if( (pN->mArg & 4) && (!bLongest || a[2].type!=DOC_ARRAY) ){
    return exprError(p, "$zip's defaults must be an array, and needs "
                        "useLongestLength");
  }
  if( exprNullish(&a[0]) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  nIn = docextIterCount(&a[0]);
  if( (pN->mArg & 4) && docextIterCount(&a[2])!=nIn ){
    return exprError(p, "$zip's defaults must be as long as its inputs");
  }
  aIn = sqlite3_malloc64((sizeof(DocValue)*2 + sizeof(DocIter))*((u64)nIn+1));
  if( aIn==0 ) return p->rc = SQLITE_NOMEM;
  aDef = &aIn[nIn+1];
  aIt = (DocIter*)&aDef[nIn+1];
  docextIterInitValue(&it, &a[0]);
  for(i=0; docextIterNext(&it); i++){
    aIn[i] = it.v;
    if( exprNullish(&aIn[i]) ){
      sqlite3_free(aIn);
      exprSetNull(pOut);
      return SQLITE_OK;
    }
    if( aIn[i].type!=DOC_ARRAY ){
      sqlite3_free(aIn);
      return exprError(p, "$zip's inputs must be arrays, not %s",
                       exprTypeName(&it.v));
    }
    k = docextIterCount(&aIn[i]);
    if( nLen<0 || (bLongest ? k>nLen : k<nLen) ) nLen = k;
    docextIterInitValue(&aIt[i], &aIn[i]);
  }
  for(i=0; i<nIn; i++) exprSetNull(&aDef[i]);
  if( pN->mArg & 4 ){
    docextIterInitValue(&it, &a[2]);
    for(i=0; docextIterNext(&it); i++) aDef[i] = it.v;
  }
  exprArrayStart(&arr);
  for(k=0; k<nLen && arr.rc==SQLITE_OK; k++){
    ExprArray row;
    DocValue vRow;
    exprArrayStart(&row);
    for(i=0; i<nIn; i++){
      exprArrayAdd(&row, docextIterNext(&aIt[i]) ? &aIt[i].v : &aDef[i]);
    }
    if( exprArrayEnd(p, &row, &vRow) || !exprArrayAdd(&arr, &vRow) ) break;
  }
  sqlite3_free(aIn);
  return exprArrayEnd(p, &arr, pOut);
}

/* For $sortArray's documents sorted by fields: a sort pattern compiled
** once per call, and for each element its sort key. */
typedef struct ExprSortKey ExprSortKey;
struct ExprSortKey {
  DocValue v;
  i64 iKey;               /* key bytes in ExprSortCtx.keys */
  int nKey;
};
typedef struct ExprSortCtx ExprSortCtx;
struct ExprSortCtx {
  DocBuf keys;
  int bDesc;              /* sortBy -1 */
  int bFields;            /* sortBy is a document of fields */
  const DocCollator *pCollator;
};

static int exprSortKeyCmp(void *pCtx, const void *x, const void *y){
  ExprSortCtx *c = (ExprSortCtx*)pCtx;
  const ExprSortKey *a = (const ExprSortKey*)x, *b = (const ExprSortKey*)y;
  int r;
  if( c->bFields ) return docextKeyCmp(&c->keys.a[a->iKey], a->nKey, &c->keys.a[b->iKey], b->nKey);
  r = exprCompare(c->pCollator, &a->v, &b->v);
  return c->bDesc ? -r : r;
}

/* $sortArray: input, sortBy (1, -1, or a document of fields as a sort). */
static int exprEvalSortArray(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  DocIter it;
  ExprSortKey *aK;
  ExprSortCtx c;
  DocSort *pSort = 0;
  ExprArray arr;
  char *zErr = 0;
  int n, i, rc = SQLITE_OK;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  memset(&c, 0, sizeof(c));
  c.pCollator = p->pCollator;
  if( a[1].type==DOC_DOCUMENT ){
    if( docextSortNew(a[1].p, &pSort, &zErr) ){
      exprError(p, "$sortArray: %s",
                zErr && strncmp(zErr, "docext: ", 8)==0 ? zErr+8 : "bad sortBy");
      sqlite3_free(zErr);
      return p->rc;
    }
    c.bFields = 1;
    docextSortSetCollator(pSort, p->pCollator);
  }else{
    int d;
    if( !exprWholeInt(&a[1], &d) || (d!=1 && d!=-1) ){
      return exprError(p, "$sortArray's sortBy must be 1, -1 or a document "
                          "of fields");
    }
    c.bDesc = d<0;
  }
  if( exprNullish(&a[0]) ){
    docextSortFree(pSort);
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( a[0].type!=DOC_ARRAY ){
    docextSortFree(pSort);
    return exprError(p, "$sortArray's input must be an array, not %s",
                     exprTypeName(&a[0]));
  }
  n = docextIterCount(&a[0]);
  aK = sqlite3_malloc64(sizeof(ExprSortKey)*2*((u64)n+1));
  if( aK==0 ){
    docextSortFree(pSort);
    return p->rc = SQLITE_NOMEM;
  }
  docextIterInitValue(&it, &a[0]);
  for(i=0; rc==SQLITE_OK && docextIterNext(&it); i++){
    aK[i].v = it.v;
    aK[i].iKey = (i64)c.keys.n;
    if( c.bFields ){
      /* a non-document sorts as an empty document would */
      static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
      rc = docextSortKey(pSort, it.v.type==DOC_DOCUMENT ? it.v.p : aEmpty, &c.keys, &zErr);
    }
    aK[i].nKey = (int)(c.keys.n - aK[i].iKey);
  }
  if( rc==SQLITE_OK ) docextSort(aK, n, sizeof(ExprSortKey), &aK[n], exprSortKeyCmp, &c);
  exprArrayStart(&arr);
  for(i=0; rc==SQLITE_OK && i<n && exprArrayAdd(&arr, &aK[i].v); i++){}
  if( rc ){
    docextBufFree(&arr.b);
    if( zErr ){ exprError(p, "%s", zErr); sqlite3_free(zErr); }
    else p->rc = rc;
  }else{
    exprArrayEnd(p, &arr, pOut);
  }
  sqlite3_free(aK);
  docextBufFree(&c.keys);
  docextSortFree(pSort);
  return p->rc;
}

/* $firstN, $lastN, $maxN, $minN: n, input (an array), by the accumulator
** of the same name over its elements, as MongoDB's evaluateAccumulatorN
** has it (so equal values of $maxN come as its multiset gives them); any
** input but an array, null too, is an error. */
static int exprEvalTopN(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue a[2];
  DocAccum acc;
  DocIter it;
  char *zErr = 0;
  int rc = SQLITE_OK;
  if( exprEvalArgs(p, pN, a) ) return p->rc;
  docextAccumInit(&acc, docextAccumOp(pN->zOp, (int)strlen(pN->zOp)));
  acc.pCollator = p->pCollator;
  if( accumSetN(&acc, &a[0], 0, &zErr) ){
    sqlite3_free(zErr);
    return exprError(p, "%s's n must be a positive whole number", pN->zOp);
  }
  if( a[1].type!=DOC_ARRAY ){
    return exprError(p, "%s's input must be an array, not %s", pN->zOp, exprTypeName(&a[1]));
  }
  docextIterInitValue(&it, &a[1]);
  while( rc==SQLITE_OK && docextIterNext(&it) ) docextAccumAdd(&rc, &acc, &it.v, 0);
  exprAccumValue(p, &acc, rc, pOut);
  docextAccumFree(&acc);
  return p->rc;
}

/* $getField: field (a constant string), input (default $$CURRENT); the
** field's value even when its name has a '.' or starts with '$'. */
static int exprEvalGetField(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue in;
  const char *z;
  int n;
  if( pN->nArg>0 ){
    if( exprEval(p, pN->apArg[0], &in) ) return p->rc;
  }else{
    in = p->root;
  }
  if( exprNullish(&in) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  if( in.type!=DOC_DOCUMENT ){
    return exprError(p, "$getField's input must be a document, not %s",
                     exprTypeName(&in));
  }
  z = docextValueStr(&pN->v, &n);
  if( !docextBsonFind(in.p, z, n, pOut) ) exprSetMissing(pOut);
  return SQLITE_OK;
}

/* $bsonSize, $binarySize, $tsSecond, $tsIncrement. */
static int exprEvalSizes(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  DocValue v;
  if( exprEval(p, pN->apArg[0], &v) ) return p->rc;
  if( exprNullish(&v) ){
    exprSetNull(pOut);
    return SQLITE_OK;
  }
  switch( pN->eOp ){
    case EX_BSONSIZE:
      if( v.type!=DOC_DOCUMENT ) break;
      return exprSetInt(p, docextGetI32(v.p), pOut);
    case EX_BINARYSIZE:
      if( v.type==DOC_STRING ) return exprSetInt(p, v.n-5, pOut);
      if( v.type==DOC_BINARY ){
        int nBin = docextGetI32(v.p);
        return exprSetInt(p, v.p[4]==0x02 ? nBin-4 : nBin, pOut);
      }
      break;
    default: {
      DocNum r;
      u64 u;
      if( v.type!=DOC_TIMESTAMP ) break;
      u = (u64)docextValueI64(&v);
      r.type = DOC_INT64;
      r.i = pN->eOp==EX_TSSECOND ? (i64)(u>>32) : (i64)(u & 0xFFFFFFFF);
      return exprSetNum(p, &r, pOut);
    }
  }
  return exprError(p, "%s needs %s, not %s", pN->zOp,
                   pN->eOp==EX_BSONSIZE ? "a document" : pN->eOp==EX_BINARYSIZE
                   ? "a string or binary data" : "a timestamp", exprTypeName(&v));
}

static int exprEval(ExprCtx *p, const ExprNode *pN, DocValue *pOut){
  exprSetMissing(pOut);
  if( p->rc ) return p->rc;
  switch( pN->eOp ){
    case EX_CONST:  *pOut = pN->v; return SQLITE_OK;
    case EX_NOW: {
      DocNum r;
      r.type = DOC_DATE;
      r.i = p->nowMs;
      return exprSetNum(p, &r, pOut);
    }
    case EX_PATH:
      if( pN->nPath==0 ){
        *pOut = p->root;
        return SQLITE_OK;
      }
      return exprWalk(p, &p->root, pN->zPath, pN->nPath, pOut);
    case EX_OBJECT: return exprEvalObject(p, pN, pOut);
    case EX_ARRAY:  return exprEvalArray(p, pN, pOut);
    case EX_EQ: case EX_NE: case EX_GT: case EX_GTE: case EX_LT: case EX_LTE: case EX_CMP:
      return exprEvalCompare(p, pN, pOut);
    case EX_AND: case EX_OR: case EX_NOT:
      return exprEvalLogic(p, pN, pOut);
    case EX_COND: case EX_IFNULL: case EX_SWITCH:
      return exprEvalChoice(p, pN, pOut);
    case EX_ADD: case EX_MULTIPLY:
      return exprEvalSum(p, pN, pOut);
    case EX_SUBTRACT: return exprEvalSubtract(p, pN, pOut);
    case EX_DIVIDE:   return exprEvalDivide(p, pN, pOut);
    case EX_MOD:      return exprEvalMod(p, pN, pOut);
    case EX_ABS: case EX_CEIL: case EX_FLOOR: case EX_TRUNC:
      if( pN->nArg>1 ) return exprEvalRoundPlace(p, pN, pOut);
      return exprEvalRound(p, pN, pOut);
    case EX_ROUND:
      return exprEvalRoundPlace(p, pN, pOut);
    case EX_POW: case EX_SQRT: case EX_EXP: case EX_LN: case EX_LOG: case EX_LOG10:
      return exprEvalMath(p, pN, pOut);
    case EX_SETUNION: case EX_SETINTERSECTION: case EX_SETDIFFERENCE: case EX_SETEQUALS:
    case EX_SETISSUBSET: case EX_ANYTRUE: case EX_ALLTRUE:
      return exprEvalSet(p, pN, pOut);
    case EX_DATEPART:     return exprEvalDatePart(p, pN, pOut);
    case EX_DATETOSTRING: return exprEvalDateToString(p, pN, pOut);
    case EX_CONVERT: case EX_ISNUMBER:
      return exprEvalConvert(p, pN, pOut);
    case EX_TRIM:         return exprEvalTrim(p, pN, pOut);
    case EX_SPLIT:        return exprEvalSplit(p, pN, pOut);
    case EX_INDEXOFBYTES: case EX_INDEXOFCP:
      return exprEvalIndexOf(p, pN, pOut);
    case EX_STRCASECMP:   return exprEvalStrcasecmp(p, pN, pOut);
    case EX_REPLACEONE: case EX_REPLACEALL:
      return exprEvalReplace(p, pN, pOut);
    case EX_SUBSTRBYTES:  return exprEvalSubstrBytes(p, pN, pOut);
    case EX_INDEXOFARRAY: return exprEvalIndexOfArray(p, pN, pOut);
    case EX_RANGE:        return exprEvalRange(p, pN, pOut);
    case EX_OBJECTTOARRAY: return exprEvalObjectToArray(p, pN, pOut);
    case EX_ARRAYTOOBJECT: return exprEvalArrayToObject(p, pN, pOut);
    case EX_DATEADD: case EX_DATESUBTRACT:
      return exprEvalDateAdd(p, pN, pOut);
    case EX_DATEDIFF:        return exprEvalDateDiff(p, pN, pOut);
    case EX_DATETRUNC:       return exprEvalDateTrunc(p, pN, pOut);
    case EX_DATEFROMPARTS:   return exprEvalDateFromParts(p, pN, pOut);
    case EX_DATETOPARTS:     return exprEvalDateToParts(p, pN, pOut);
    case EX_DATEFROMSTRING:  return exprEvalDateFromString(p, pN, pOut);
    case EX_REGEXMATCH: case EX_REGEXFIND: case EX_REGEXFINDALL:
      return exprEvalRegex(p, pN, pOut);
    case EX_TRIG: case EX_ATAN2: case EX_DEG2RAD: case EX_RAD2DEG:
      return exprEvalMath(p, pN, pOut);
    case EX_BITAND: case EX_BITOR: case EX_BITXOR: case EX_BITNOT:
      return exprEvalBits(p, pN, pOut);
    case EX_ZIP:       return exprEvalZip(p, pN, pOut);
    case EX_SORTARRAY: return exprEvalSortArray(p, pN, pOut);
    case EX_FIRSTN: case EX_LASTN: case EX_MAXN: case EX_MINN:
      return exprEvalTopN(p, pN, pOut);
    case EX_GETFIELD:  return exprEvalGetField(p, pN, pOut);
    case EX_RAND:      return exprSetReal(p, docextRandomUnit(), 0, pOut);
    case EX_META: {
      double r;
      if( p->root.type!=DOC_DOCUMENT || !docextTextScoreField(p->root.p, &r) ){
        return exprError(p, "query requires text score metadata, but it is not available");
      }
      return exprSetReal(p, r, 0, pOut);
    }
    case EX_BSONSIZE: case EX_BINARYSIZE: case EX_TSSECOND: case EX_TSINCREMENT:
      return exprEvalSizes(p, pN, pOut);
    case EX_SIZE: case EX_IN: case EX_ISARRAY:
      return exprEvalArrayOp(p, pN, pOut);
    case EX_ARRAYELEMAT: return exprEvalElemAt(p, pN, pOut);
    case EX_CONCAT:      return exprEvalConcat(p, pN, pOut);
    case EX_SETFIELD:    return exprEvalSetField(p, pN, pOut);
    case EX_MERGEOBJECTS: return exprEvalMerge(p, pN, pOut);
    case EX_MAP: case EX_FILTER: case EX_REDUCE:
      return exprEvalIterate(p, pN, pOut);
    case EX_CONCATARRAYS: case EX_REVERSEARRAY: case EX_FIRST: case EX_LAST: case EX_SLICE:
      return exprEvalArrays(p, pN, pOut);
    case EX_SUM: case EX_AVG: case EX_MIN: case EX_MAX: case EX_STDDEVPOP: case EX_STDDEVSAMP:
      return exprEvalAccumulate(p, pN, pOut);
    case EX_MEDIAN: case EX_PERCENTILE:
      return exprEvalQuantile(p, pN, pOut);
    case EX_TOLOWER: case EX_TOUPPER: case EX_SUBSTRCP:
      return exprEvalString(p, pN, pOut);
    case EX_STRLENBYTES: case EX_STRLENCP:
      return exprEvalStrLen(p, pN, pOut);
    case EX_VAR:
      if( pN->nPath==0 ){
        *pOut = p->aSlot[pN->iSlot];
        return SQLITE_OK;
      }
      return exprWalk(p, &p->aSlot[pN->iSlot], pN->zPath, pN->nPath, pOut);
    case EX_LET: {
      int i;
      DocValue root = p->root;
      static const u8 aEmpty[5] = {5, 0, 0, 0, 0};
      if( pN->bNoDoc ){
        p->root.p = aEmpty;
        p->root.n = 5;
      }
      for(i=0; i<pN->nArg-1 && p->rc==SQLITE_OK; i++){
        exprEval(p, pN->apArg[i], &p->aSlot[pN->iSlot+i]);
      }
      p->root = root;
      if( p->rc ) return p->rc;
      return exprEval(p, pN->apArg[pN->nArg-1], pOut);
    }
    case EX_TYPE: {
      DocValue v;
      DocBuf b;
      const char *z;
      if( exprEval(p, pN->apArg[0], &v) ) return p->rc;
      z = exprTypeName(&v);
      memset(&b, 0, sizeof(b));
      b.a = (u8*)z;                       /* (read only: exprSetString copies) */
      b.n = (i64)strlen(z);
      return exprSetString(p, &b, pOut);
    }
  }
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** The interface
*/

/* The message of a failed compile or evaluation: zMsg (this module's
** words, or another module's, whose "docext: " goes) after where the
** expression stands. Takes zMsg (and gives it back as it is when there
** is no memory for more). */
static char *exprMessage(const char *zWhere, char *zMsg){
  char *z;
  if( zMsg==0 ) return 0;
  z = sqlite3_mprintf("docext: %s: %s", zWhere,
                      strncmp(zMsg, "docext: ", 8)==0 ? zMsg+8 : zMsg);
  if( z==0 ) return zMsg;
  sqlite3_free(zMsg);
  return z;
}

int docextExprNew(const DocValue *v, const u8 *aLet, const char *zWhere, i64 nowMs,
                  DocExpr **ppOut, char **pzErr){
  ExprParse sParse;
  DocExpr *p;
  size_t nWhere = strlen(zWhere) + 1;
  *ppOut = 0;
  memset(&sParse, 0, sizeof(sParse));
  p = docextMallocZero(sizeof(*p) + nWhere);
  if( p==0 ) return SQLITE_NOMEM;
  p->zWhere = (char*)&p[1];
  memcpy(p->zWhere, zWhere, nWhere);
  p->nowMs = nowMs;
  if( aLet ){
    DocValue vars;
    vars.type = DOC_DOCUMENT;
    vars.p = aLet;
    vars.n = docextGetI32(aLet);
    p->pRoot = exprParseLet(&sParse, &vars, v, 1);
  }else{
    p->pRoot = exprParse(&sParse, v);
  }
  p->nSlot = sParse.nSlot;
  sqlite3_free(sParse.aVar);
  if( sParse.rc ){
    *pzErr = exprMessage(p->zWhere, sParse.zErr);
    docextExprFree(p);
    return sParse.rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

/* Evaluate p for aDoc and hand the value to xUse before the arena goes. */
static int exprRun(DocExpr *p, const u8 *aDoc, char **pzErr,
                   void (*xUse)(ExprCtx*, const DocValue*, void*), void *pArg){
  ExprCtx ctx;
  DocValue v;
  DocValue aSlot[8];
  memset(&ctx, 0, sizeof(ctx));
  ctx.root.type = DOC_DOCUMENT;
  ctx.root.p = aDoc;
  ctx.root.n = docextGetI32(aDoc);
  ctx.aSlot = aSlot;
  ctx.nowMs = p->nowMs;
  ctx.pCollator = p->pCollator;
  if( p->nSlot>DOCEXT_COUNT(aSlot) ){
    ctx.aSlot = sqlite3_malloc64(sizeof(DocValue)*p->nSlot);
    if( ctx.aSlot==0 ) return SQLITE_NOMEM;
  }
  exprEval(&ctx, p->pRoot, &v);
  if( ctx.rc==SQLITE_OK ) xUse(&ctx, &v, pArg);
  while( ctx.pBlock ){
    ExprBlock *pNext = ctx.pBlock->pNext;
    sqlite3_free(ctx.pBlock);
    ctx.pBlock = pNext;
  }
  if( ctx.aSlot!=aSlot ) sqlite3_free(ctx.aSlot);
  if( ctx.rc && ctx.zErr ) *pzErr = exprMessage(p->zWhere, ctx.zErr);
  return ctx.rc;
}

static void exprUseTruth(ExprCtx *p, const DocValue *v, void *pArg){
  (void)p;
  *(int*)pArg = docextValueTruth(v);
}

int docextExprLetOption(const u8 *aOptions, const u8 **paLet, char **pzErr){
  DocValue v;
  *paLet = 0;
  if( aOptions==0 || !docextBsonFind(aOptions, "let", 3, &v) ) return SQLITE_OK;
  if( v.type!=DOC_DOCUMENT ) return docextError(pzErr, "docext: option let must be a document");
  {
    DocIter it;
    docextIterInitValue(&it, &v);
    while( docextIterNext(&it) ){
      if( !docextExprVarNameOk(it.zKey, it.nKey) ){
        return docextError(pzErr, "docext: option let: '%s' is not a valid variable name "
                           "(a lower-case letter first, then letters, digits or _)", it.zKey);
      }
    }
  }
  *paLet = v.p;
  return SQLITE_OK;
}

void docextExprSetCollator(DocExpr *p, const DocCollator *pCollator){
  p->pCollator = pCollator;
}

int docextExprIsConstant(DocExpr *p){
  return !exprReadsDoc(p->pRoot);
}

int docextExprTruth(DocExpr *p, const u8 *aDoc, int *pbTrue, char **pzErr){
  *pbTrue = 0;
  return exprRun(p, aDoc, pzErr, exprUseTruth, pbTrue);
}

/* Where docextExprAppend puts the value. */
typedef struct ExprAppend ExprAppend;
struct ExprAppend {
  DocBuf *pOut;
  const char *zKey;
  int nKey;
  int *pType;
};

static void exprUseAppend(ExprCtx *p, const DocValue *v, void *pArg){
  ExprAppend *pA = (ExprAppend*)pArg;
  *pA->pType = v->type;
  if( v->type!=0 ) docextBsonAppendValue(&p->rc, pA->pOut, pA->zKey, pA->nKey, v);
}

int docextExprAppend(DocExpr *p, const u8 *aDoc, DocBuf *pOut, const char *zKey, int nKey,
                     int *pType, char **pzErr){
  ExprAppend a;
  a.pOut = pOut;
  a.zKey = zKey;
  a.nKey = nKey;
  a.pType = pType;
  *pType = 0;
  return exprRun(p, aDoc, pzErr, exprUseAppend, &a);
}

int docextExprValue(DocExpr *p, const u8 *aDoc, DocBuf *pTmp, DocValue *pV, char **pzErr){
  int type = 0, rc;
  docextBufReset(pTmp);
  rc = docextExprAppend(p, aDoc, pTmp, "", 0, &type, pzErr);
  memset(pV, 0, sizeof(*pV));
  if( rc==SQLITE_OK && type ){
    pV->type = (u8)type;
    pV->p = pTmp->a + 2;                 /* (after the type byte and key "") */
    pV->n = (int)(pTmp->n - 2);
  }
  return rc;
}

void docextExprFree(DocExpr *p){
  if( p ){
    exprNodeFree(p->pRoot);
    sqlite3_free(p);
  }
}
