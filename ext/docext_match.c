/*
** docext_match.c — MongoDB query filters.
**
** docextMatcherNew() compiles a filter once into a tree of DocMatchNode;
** docextMatcherMatch() evaluates the tree against one document without
** allocating (regexes were compiled with the tree, their match data is
** cached in each DocRegex).
**
** THE TREE. A filter is an AND of its top-level conditions. Nodes are of
** two kinds, sharing one struct:
**   - logical nodes: MN_AND, MN_OR, MN_NOR, MN_NOT (= not AND of its
**     children), MN_TRUE, MN_FALSE;
**   - leaves: one operator and its operand (MN_EQ, MN_LT, MN_IN, MN_REGEX,
**     MN_SIZE, MN_ELEMVAL, ...). A leaf with bPath set reads its field with
**     docextPathWalkMatch() and matches if any value the walk visits passes
**     the leaf's test ("path leaves"). A leaf without bPath tests one value
**     it is handed: those live under $elemMatch with operators ("value
**     leaves"), where MN_AND and MN_NOT combine value leaves.
**   - MN_EXPR: {$expr: …}, an aggregation expression evaluated on the whole
**     document (docext_expr.c); only at the top, never under $elemMatch.
**   - MN_SCHEMA: {$jsonSchema: …}, a JSON Schema the whole document (or,
**     under $elemMatch, the element) must satisfy (docext_schema.c).
**   - MN_SAMPLE: {$sampleRate: r}, true for a random share r of the
**     documents (MongoDB's {$expr: {$lt: [{$rand: {}}, r]}}); at the top.
**   - MN_GEO: $geoWithin or $geoIntersects, whose shape docext_geo.c
**     parses and tests each value against (a whole array too, as a legacy
**     point [x, y], and then its elements).
**   - MN_NEAR: $near or $nearSphere, a value within its distances of its
**     point; at the top only. Its distance also orders a query's results
**     (docextMatcherNear, docext_query.c).
**   - MN_TEXT: $text (docext_text.c), on the strings a text index reads;
**     once per filter, not under $nor or $elemMatch. It needs the index:
**     a query binds it to the collection's (docextMatcherText).
** Each operator is its own leaf, as in MongoDB: {a: {$gt: 1, $lt: 5}} is
** AND(a>1, a<5), and over an array each may be satisfied by a different
** element. $ne, $nin, $exists: false and $not are MN_NOT over the positive
** leaf, so they are exact negations, arrays included.
**
** THE RULES (MongoDB's, see docextPathWalkMatch() for how paths read):
**   - a comparison only matches values of the same canonical type
**     (docextTypeClass; numbers by value across int32/int64/double/
**     decimal128), except that null, undefined and a missing value are
**     equal for $eq/$lte/$gte, {$lt/$lte: MaxKey} and {$gt/$gte: MinKey}
**     match every type, and NaN equals only NaN and is never < or >;
**   - a regex matches strings and symbols, and an identical stored regex;
**   - $size and $elemMatch look at an array at the end of the path itself,
**     not at its elements.
** *piPos is MongoDB's elemMatchKey: the index of the element, in the first
** array crossed element by element, that satisfied the last path condition
** of an AND (the first matching branch of an OR); -1 when none.
*/
#include "docextInt.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

/* Node types. */
#define MN_AND        1
#define MN_OR         2
#define MN_NOR        3
#define MN_NOT        4     /* not (AND of children) */
#define MN_TRUE       5
#define MN_FALSE      6
#define MN_EQ         10
#define MN_LT         11
#define MN_LTE        12
#define MN_GT         13
#define MN_GTE        14
#define MN_IN         15
#define MN_REGEX      16
#define MN_EXISTS     17
#define MN_TYPE       18
#define MN_MOD        19
#define MN_SIZE       20
#define MN_ALLSET     21
#define MN_ANYSET     22
#define MN_ALLCLEAR   23
#define MN_ANYCLEAR   24
#define MN_ELEMOBJ    25    /* $elemMatch with a filter: apChild[0] */
#define MN_ELEMVAL    26    /* $elemMatch with operators: value leaves */
#define MN_EXPR       27    /* $expr: pExpr (docext_expr.c) */
#define MN_SCHEMA     28    /* $jsonSchema: pSchema (docext_schema.c) */
#define MN_SAMPLE     29    /* $sampleRate: a document matches with chance rSample */
#define MN_GEO        30    /* $geoWithin, $geoIntersects: pGeo (docext_geo.c) */
#define MN_NEAR       31    /* $near, $nearSphere: pGeo, within rMin..rMax */
#define MN_TEXT       32    /* $text: pText */

/* Bit for a type in a $type mask. */
#define TYPEBIT_MINKEY 20
#define TYPEBIT_MAXKEY 21

typedef struct DocMatchNode DocMatchNode;
typedef struct DocMatchRe DocMatchRe;
typedef struct DocMatchCtx DocMatchCtx;
typedef struct DocMatchParse DocMatchParse;

/* A regex of the filter, with its source to compare stored regexes with. */
struct DocMatchRe {
  DocRegex *pRe;          /* compiled pattern */
  const char *zPat;       /* pattern (inside the matcher's filter copy) */
  int nPat;               /* its length */
  const char *zFlags;     /* options, NUL-terminated */
};

struct DocMatchNode {
  u8 eType;               /* MN_* */
  u8 bPath;               /* leaf that reads zPath from the document */
  u8 bNoLeafElems;        /* do not visit a final array's elements */
  u8 bInNull;             /* $in: null is among the values */
  const char *zPath;      /* dotted path (inside the filter copy) */
  int nPath;              /* its length */
  DocValue rhs;           /* comparison operand */
  DocMatchRe re;          /* MN_REGEX */
  DocValue *aVal;         /* MN_IN: values, in docextValueCompare order */
  int nVal;
  DocMatchRe *aRe;        /* MN_IN: regexes */
  int nRe;
  uint32_t mType;              /* MN_TYPE: bit per type (TYPEBIT_* for keys) */
  i64 iDiv, iRem;         /* MN_MOD */
  i64 nSize;              /* MN_SIZE */
  int *aBit;              /* MN_ALLSET..MN_ANYCLEAR: bit positions */
  int nBit;
  DocExpr *pExpr;         /* MN_EXPR */
  DocSchema *pSchema;     /* MN_SCHEMA */
  double rSample;         /* MN_SAMPLE */
  DocGeo *pGeo;           /* MN_GEO, MN_NEAR */
  double rMin, rMax;      /* MN_NEAR: the distances allowed */
  DocText *pText;         /* MN_TEXT */
  DocMatchNode **apChild; /* children: apInline while they fit */
  int nChild;
  int nChildAlloc;
  DocMatchNode *apInline[2];
};

struct DocMatcher {
  u8 *aFilter;            /* private copy of the filter (after the struct,
                          ** in the same allocation); nodes point in */
  DocMatchNode *pRoot;    /* an MN_AND: &root */
  DocMatchNode root;
  const char *zWholeOp;   /* the filter's first $expr, $jsonSchema or $sampleRate
                          ** (else "$near" for a $near or $nearSphere), or 0 */
  DocMatchNode *pNear;    /* its $near or $nearSphere, or 0 */
  DocMatchNode *pText;    /* its $text, or 0 */
  const DocCollator *pCollator;  /* how strings compare (borrowed), or NULL */
};

/* Evaluation state: a sticky error (regex limits, OOM), the collation. */
struct DocMatchCtx {
  int rc;
  char *zErr;
  const DocCollator *pCollator;
};

/* Compilation state. */
struct DocMatchParse {
  int rc;
  char *zErr;
  int nElemMatch;         /* inside this many $elemMatch filters */
  const u8 *aLet;         /* the query's let variables, or NULL */
  const char *zWholeOp;   /* the first $expr, $jsonSchema or $sampleRate met */
  DocMatchNode *pTop;     /* the filter's top AND, where alone $near may be */
  DocMatchNode *pNear;    /* the $near met, or 0 */
  DocMatchNode *pText;    /* the $text met, or 0 */
  int nNor;               /* inside this many $nor */
  i64 *pNowMs;            /* $$NOW of every $expr: the clock at the first,
                          ** unless the caller's time was set already */
  const DocCollator *pCollator;  /* the query's collation, or NULL */
};

/*------------------------------------------------------------------------
** Building the tree
*/

static void parseError(DocMatchParse *pParse, const char *zFmt, ...){
  if( pParse->rc==SQLITE_OK ){
    va_list ap;
    va_start(ap, zFmt);
    pParse->rc = docextErrorV(&pParse->zErr, zFmt, ap);
    va_end(ap);
  }
}

/* "docext: <what> in filter at 'path'" */
static void parsePathError(DocMatchParse *pParse, const char *zPath, int nPath,
                           const char *zWhat){
  parseError(pParse, "docext: %s in filter at '%.*s'", zWhat, nPath, zPath);
}

/* Free what node p holds, not p itself. */
static void nodeClear(DocMatchNode *p){
  int i;
  for(i=0; i<p->nChild; i++){
    nodeClear(p->apChild[i]);
    sqlite3_free(p->apChild[i]);
  }
  if( p->apChild!=p->apInline ) sqlite3_free(p->apChild);
  docextRegexFree(p->re.pRe);
  for(i=0; i<p->nRe; i++) docextRegexFree(p->aRe[i].pRe);
  sqlite3_free(p->aRe);
  sqlite3_free(p->aVal);
  sqlite3_free(p->aBit);
  docextExprFree(p->pExpr);
  docextSchemaFree(p->pSchema);
  docextGeoFree(p->pGeo);
  docextTextFree(p->pText);
}

static void nodeFree(DocMatchNode *p){
  if( p ){
    nodeClear(p);
    sqlite3_free(p);
  }
}

static DocMatchNode *nodeNew(DocMatchParse *pParse, int eType){
  DocMatchNode *p;
  if( pParse->rc ) return 0;
  p = docextMallocZero(sizeof(*p));
  if( p==0 ){
    pParse->rc = SQLITE_NOMEM;
    return 0;
  }
  p->eType = (u8)eType;
  return p;
}

/* A leaf for operator eType; a path leaf when bValue is 0. */
static DocMatchNode *leafNew(DocMatchParse *pParse, int eType,
                             const char *zPath, int nPath, int bValue){
  DocMatchNode *p = nodeNew(pParse, eType);
  if( p ){
    p->bPath = (u8)!bValue;
    p->zPath = zPath;
    p->nPath = nPath;
  }
  return p;
}

/* Append pChild to pParent (taking ownership; freed on failure). */
static void nodeAdd(DocMatchParse *pParse, DocMatchNode *pParent, DocMatchNode *pChild){
  if( pChild==0 ) return;
  if( pParse->rc==SQLITE_OK && pParent->nChildAlloc==0 ){
    pParent->apChild = pParent->apInline;
    pParent->nChildAlloc = (int)(sizeof(pParent->apInline)/sizeof(pParent->apInline[0]));
  }
  if( pParse->rc==SQLITE_OK && pParent->nChild==pParent->nChildAlloc ){
    int nNew = pParent->nChildAlloc*2;
    DocMatchNode **aNew = sqlite3_malloc64(nNew*sizeof(DocMatchNode*));
    if( aNew==0 ){
      pParse->rc = SQLITE_NOMEM;
    }else{
      memcpy(aNew, pParent->apChild, pParent->nChild*sizeof(DocMatchNode*));
      if( pParent->apChild!=pParent->apInline ) sqlite3_free(pParent->apChild);
      pParent->apChild = aNew;
      pParent->nChildAlloc = nNew;
    }
  }
  if( pParse->rc ){
    nodeFree(pChild);
    return;
  }
  pParent->apChild[pParent->nChild++] = pChild;
}

/* A node that negates pChild (MN_NOT: not AND of children). */
static DocMatchNode *notNew(DocMatchParse *pParse, DocMatchNode *pChild){
  DocMatchNode *p = nodeNew(pParse, MN_NOT);
  if( p==0 ){
    nodeFree(pChild);
    return 0;
  }
  nodeAdd(pParse, p, pChild);
  return p;
}

/* Is v a document of operators ({$gt: 1, ...}) rather than a value to
** compare with? As MongoDB: its first key starts with '$' and it is not a
** DBRef ({$ref: ..., $id: ...}). */
int docextIsOperatorDoc(const DocValue *v){
  DocIter it;
  if( v->type!=DOC_DOCUMENT ) return 0;
  docextIterInitValue(&it, v);
  if( !docextIterNext(&it) ) return 0;
  if( it.nKey==0 || it.zKey[0]!='$' ) return 0;
  if( docextIterKeyIs(&it, "$ref") || docextIterKeyIs(&it, "$id") || docextIterKeyIs(&it, "$db") ) return 0;
  return 1;
}

/* Compile a regex into pRe. zFlags is NUL-terminated. */
static void regexInit(DocMatchParse *pParse, DocMatchRe *pRe, const char *zPat, int nPat,
                      const char *zFlags){
  if( pParse->rc ) return;
  pRe->zPat = zPat;
  pRe->nPat = nPat;
  pRe->zFlags = zFlags;
  pParse->rc = docextRegexCompile(zPat, nPat, zFlags, &pRe->pRe, &pParse->zErr);
}

/* Pattern and flags of a BSON regex value. */
static void regexParts(const DocValue *v, const char **pzPat, int *pnPat, const char **pzFlags){
  const char *z = (const char*)v->p;
  int n = (int)strlen(z);
  *pzPat = z;
  *pnPat = n;
  *pzFlags = z + n + 1;
}

/* A leaf for a regex value (as in {a: /x/} or inside $in, $all, $not). */
static DocMatchNode *regexLeaf(DocMatchParse *pParse, const char *zPath, int nPath,
                               int bValue, const DocValue *v){
  DocMatchNode *p = leafNew(pParse, MN_REGEX, zPath, nPath, bValue);
  const char *zPat, *zFlags;
  int nPat;
  if( p==0 ) return 0;
  regexParts(v, &zPat, &nPat, &zFlags);
  regexInit(pParse, &p->re, zPat, nPat, zFlags);
  return p;
}

/* A leaf that tests equality with v (or matches v if it is a regex). */
static DocMatchNode *eqLeaf(DocMatchParse *pParse, const char *zPath, int nPath,
                            int bValue, const DocValue *v){
  DocMatchNode *p;
  if( v->type==DOC_REGEX ) return regexLeaf(pParse, zPath, nPath, bValue, v);
  if( v->type==DOC_UNDEFINED ){
    parsePathError(pParse, zPath, nPath, "cannot compare to undefined");
    return 0;
  }
  p = leafNew(pParse, MN_EQ, zPath, nPath, bValue);
  if( p ) p->rhs = *v;
  return p;
}

static void parseFilter(DocMatchParse *pParse, const u8 *aDoc, DocMatchNode *pAnd);
static void parseOps(DocMatchParse *pParse, const char *zPath, int nPath, int bValue,
                     const DocValue *pOps, DocMatchNode *pParent);

static int cmpValues(void *pCollator, const void *a, const void *b){
  return docextValueCompareColl((const DocValue*)a, (const DocValue*)b, (const DocCollator*)pCollator);
}

/* $in / $nin: an array of values and regexes. */
static DocMatchNode *parseIn(DocMatchParse *pParse, const char *zOp, const char *zPath,
                             int nPath, int bValue, const DocValue *v){
  DocMatchNode *p;
  DocIter it;
  int nVal = 0, nRe = 0;
  if( v->type!=DOC_ARRAY ){
    parseError(pParse, "docext: %s needs an array in filter at '%.*s'", zOp, nPath, zPath);
    return 0;
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( it.v.type==DOC_REGEX ) nRe++; else nVal++;
    if( it.v.type==DOC_UNDEFINED ){
      parseError(pParse, "docext: %s cannot contain undefined in filter at '%.*s'", zOp, nPath, zPath);
      return 0;
    }
    if( docextIsOperatorDoc(&it.v) ){
      parseError(pParse, "docext: cannot nest $ under %s in filter at '%.*s'", zOp, nPath, zPath);
      return 0;
    }
  }
  p = leafNew(pParse, MN_IN, zPath, nPath, bValue);
  if( p==0 ) return 0;
  if( nVal ) p->aVal = sqlite3_malloc64(nVal*sizeof(DocValue));
  if( nRe ){
    p->aRe = docextMallocZero(nRe*sizeof(DocMatchRe));
  }
  if( (nVal && p->aVal==0) || (nRe && p->aRe==0) ){
    pParse->rc = SQLITE_NOMEM;
    nodeFree(p);
    return 0;
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( it.v.type==DOC_REGEX ){
      const char *zPat, *zFlags;
      int nPat;
      regexParts(&it.v, &zPat, &nPat, &zFlags);
      regexInit(pParse, &p->aRe[p->nRe], zPat, nPat, zFlags);
      if( pParse->rc ) break;
      p->nRe++;
    }else{
      if( it.v.type==DOC_NULL ) p->bInNull = 1;
      p->aVal[p->nVal++] = it.v;
    }
  }
  if( p->nVal>1 ){
    /* (sorted as the collation orders them: inTest searches them so) */
    DocValue *aTmp = sqlite3_malloc64(p->nVal*sizeof(DocValue));
    if( aTmp==0 ){
      pParse->rc = SQLITE_NOMEM;
      nodeFree(p);
      return 0;
    }
    docextSort(p->aVal, p->nVal, sizeof(DocValue), aTmp, cmpValues, (void*)pParse->pCollator);
    sqlite3_free(aTmp);
  }
  return p;
}

/* The $type bit of a BSON type, or -1 for an unknown one. */
static int typeBit(int type){
  if( type>=DOC_DOUBLE && type<=DOC_DECIMAL128 ) return type;
  if( type==DOC_MINKEY ) return TYPEBIT_MINKEY;
  if( type==DOC_MAXKEY ) return TYPEBIT_MAXKEY;
  return -1;
}

#define TYPEMASK_NUMBER ((1u<<DOC_DOUBLE)|(1u<<DOC_INT32)|(1u<<DOC_INT64)|(1u<<DOC_DECIMAL128))

/* Add one $type operand (alias or code) to *pm. */
static void parseTypeOne(DocMatchParse *pParse, const char *zPath, int nPath,
                         const DocValue *v, uint32_t *pm){
  if( v->type==DOC_STRING ){
    int n, t;
    const char *z = docextValueStr(v, &n);
    if( n==6 && memcmp(z, "number", 6)==0 ){
      *pm |= TYPEMASK_NUMBER;
      return;
    }
    for(t=1; t<=0xFF; t++){
      const char *zA = typeBit(t)>=0 ? docextTypeAlias(t) : 0;
      if( zA && (int)strlen(zA)==n && memcmp(zA, z, n)==0 ){
        *pm |= 1u<<typeBit(t);
        return;
      }
    }
    parseError(pParse, "docext: $type: unknown type alias '%.*s' in filter at '%.*s'",
               n, z, nPath, zPath);
  }else if( docextValueIsNumber(v) ){
    double d = docextValueToDouble(v);
    int t = -2;                    /* no type (typeBit(-2) is -1) */
    /* (the range is checked before the conversion: NaN, infinities and
    ** large values have no int) */
    if( d==floor(d) && d>=-1.0 && d<=127.0 ){
      t = (d==-1.0) ? DOC_MINKEY : (d==127.0 ? DOC_MAXKEY : (int)d);
    }
    if( typeBit(t)<0 ){
      parseError(pParse, "docext: $type: invalid type code %g in filter at '%.*s'",
                 d, nPath, zPath);
      return;
    }
    *pm |= 1u<<typeBit(t);
  }else{
    parsePathError(pParse, zPath, nPath, "$type needs a type alias or code");
  }
}

static DocMatchNode *parseType(DocMatchParse *pParse, const char *zPath, int nPath,
                               int bValue, const DocValue *v){
  DocMatchNode *p;
  uint32_t m = 0;
  if( v->type==DOC_ARRAY ){
    DocIter it;
    docextIterInitValue(&it, v);
    if( docextGetI32(v->p)==5 ){
      parsePathError(pParse, zPath, nPath, "$type must match at least one type");
      return 0;
    }
    while( docextIterNext(&it) ) parseTypeOne(pParse, zPath, nPath, &it.v, &m);
  }else{
    parseTypeOne(pParse, zPath, nPath, v, &m);
  }
  p = leafNew(pParse, MN_TYPE, zPath, nPath, bValue);
  if( p ) p->mType = m;
  return p;
}

/* Coerce a $mod operand to an int64 (doubles truncated). 0 on success. */
static int modCoerce(const DocValue *v, i64 *piOut, const char **pzWhy){
  double d;
  switch( v->type ){
    case DOC_INT32: *piOut = docextValueI32(v); return 0;
    case DOC_INT64: *piOut = docextValueI64(v); return 0;
  }
  d = docextValueToDouble(v);
  if( isnan(d) || isinf(d) ){
    *pzWhy = "cannot coerce NaN/Infinity to an integer";
    return 1;
  }
  d = trunc(d);
  if( d>=9223372036854775808.0 || d<-9223372036854775808.0 ){
    *pzWhy = "out of bounds for a 64-bit integer";
    return 1;
  }
  *piOut = (i64)d;
  return 0;
}

static DocMatchNode *parseMod(DocMatchParse *pParse, const char *zPath, int nPath,
                              int bValue, const DocValue *v){
  DocIter it;
  DocValue aArg[2];
  int n = 0;
  i64 aInt[2];
  const char *zWhy = 0;
  DocMatchNode *p;
  if( v->type!=DOC_ARRAY ){
    parsePathError(pParse, zPath, nPath, "$mod needs an array [divisor, remainder]");
    return 0;
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( n==2 ){
      parsePathError(pParse, zPath, nPath, "$mod: too many elements");
      return 0;
    }
    aArg[n++] = it.v;
  }
  if( n<2 ){
    parsePathError(pParse, zPath, nPath, "$mod: not enough elements");
    return 0;
  }
  if( !docextValueIsNumber(&aArg[0]) ){
    parsePathError(pParse, zPath, nPath, "$mod: divisor not a number");
    return 0;
  }
  if( !docextValueIsNumber(&aArg[1]) ){
    parsePathError(pParse, zPath, nPath, "$mod: remainder not a number");
    return 0;
  }
  if( modCoerce(&aArg[0], &aInt[0], &zWhy) ){
    parseError(pParse, "docext: $mod: invalid divisor (%s) in filter at '%.*s'",
               zWhy, nPath, zPath);
    return 0;
  }
  if( modCoerce(&aArg[1], &aInt[1], &zWhy) ){
    parseError(pParse, "docext: $mod: invalid remainder (%s) in filter at '%.*s'",
               zWhy, nPath, zPath);
    return 0;
  }
  if( aInt[0]==0 ){
    parsePathError(pParse, zPath, nPath, "$mod: divisor cannot be 0");
    return 0;
  }
  p = leafNew(pParse, MN_MOD, zPath, nPath, bValue);
  if( p ){
    p->iDiv = aInt[0];
    p->iRem = aInt[1];
  }
  return p;
}

static DocMatchNode *parseSize(DocMatchParse *pParse, const char *zPath, int nPath,
                               int bValue, const DocValue *v){
  DocMatchNode *p;
  double d;
  if( !docextValueIsNumber(v) ){
    parsePathError(pParse, zPath, nPath, "$size needs a number");
    return 0;
  }
  d = v->type==DOC_INT64 ? (double)docextValueI64(v) : docextValueToDouble(v);
  if( isnan(d) || d!=floor(d) ){
    parsePathError(pParse, zPath, nPath, "$size must be a whole number");
    return 0;
  }
  if( d<0 ){
    parsePathError(pParse, zPath, nPath, "$size may not be negative");
    return 0;
  }
  if( d>2147483647.0 ){
    parsePathError(pParse, zPath, nPath, "$size must fit in a 32-bit integer");
    return 0;
  }
  p = leafNew(pParse, MN_SIZE, zPath, nPath, bValue);
  if( p ){
    p->nSize = (i64)d;
    p->bNoLeafElems = 1;
  }
  return p;
}

/* Add bit position i to p->aBit. */
static void bitAdd(DocMatchParse *pParse, DocMatchNode *p, int i, int *pnAlloc){
  p->aBit = docextArrayGrow(&pParse->rc, p->aBit, p->nBit, pnAlloc, sizeof(int));
  if( pParse->rc ) return;
  p->aBit[p->nBit++] = i;
}

/* A number that is a whole value representable as int64: 1 and *pi. */
static int wholeInt64(const DocValue *v, i64 *pi){
  double d;
  switch( v->type ){
    case DOC_INT32: *pi = docextValueI32(v); return 1;
    case DOC_INT64: *pi = docextValueI64(v); return 1;
    case DOC_DOUBLE: case DOC_DECIMAL128:
      d = docextValueToDouble(v);
      if( isnan(d) || d!=floor(d) ) return 0;
      if( d>=9223372036854775808.0 || d<-9223372036854775808.0 ) return 0;
      *pi = (i64)d;
      return 1;
  }
  return 0;
}

static DocMatchNode *parseBits(DocMatchParse *pParse, int eType, const char *zOp,
                               const char *zPath, int nPath, int bValue, const DocValue *v){
  DocMatchNode *p;
  int nAlloc = 0;
  i64 iv;
  if( v->type!=DOC_ARRAY && v->type!=DOC_BINARY && !docextValueIsNumber(v) ){
    parseError(pParse, "docext: %s needs an array of bit positions, a number or BinData"
               " in filter at '%.*s'", zOp, nPath, zPath);
    return 0;
  }
  p = leafNew(pParse, eType, zPath, nPath, bValue);
  if( p==0 ) return 0;
  if( docextValueIsNumber(v) ){
    int i;
    if( !wholeInt64(v, &iv) || iv<0 ){
      parseError(pParse, "docext: %s needs a non-negative whole number as bitmask"
                 " in filter at '%.*s'", zOp, nPath, zPath);
    }else{
      for(i=0; i<63; i++){
        if( (iv>>i)&1 ) bitAdd(pParse, p, i, &nAlloc);
      }
    }
  }else if( v->type==DOC_BINARY ){
    int nByte = docextGetI32(v->p), i;
    const u8 *a = v->p + 5;
    for(i=0; i<nByte*8; i++){
      if( (a[i/8]>>(i%8))&1 ) bitAdd(pParse, p, i, &nAlloc);
    }
  }else{
    DocIter it;
    docextIterInitValue(&it, v);
    while( pParse->rc==SQLITE_OK && docextIterNext(&it) ){
      if( !wholeInt64(&it.v, &iv) || iv<0 || iv>2147483647 ){
        parseError(pParse, "docext: %s: bit positions must be non-negative 32-bit integers"
                   " in filter at '%.*s'", zOp, nPath, zPath);
      }else{
        bitAdd(pParse, p, (int)iv, &nAlloc);
      }
    }
  }
  if( pParse->rc ){
    nodeFree(p);
    return 0;
  }
  return p;
}

/* $elemMatch: operators on each element, or a filter on each document. */
static DocMatchNode *parseElemMatch(DocMatchParse *pParse, const char *zPath, int nPath,
                                    int bValue, const DocValue *v){
  DocMatchNode *p;
  if( v->type==DOC_REGEX ){
    /* {$elemMatch: {$regex: "x"}}: shell text turns the operator document
    ** into a regex value before the matcher sees it. */
    p = leafNew(pParse, MN_ELEMVAL, zPath, nPath, bValue);
    if( p ){
      p->bNoLeafElems = 1;
      nodeAdd(pParse, p, regexLeaf(pParse, zPath, nPath, 1, v));
    }
    return p;
  }
  if( v->type!=DOC_DOCUMENT ){
    parsePathError(pParse, zPath, nPath, "$elemMatch needs a document");
    return 0;
  }
  if( docextIsOperatorDoc(v) ){
    DocIter it;
    docextIterInitValue(&it, v);
    docextIterNext(&it);
    if( !docextIsFilterOp(&it) ){
      p = leafNew(pParse, MN_ELEMVAL, zPath, nPath, bValue);
      if( p ){
        p->bNoLeafElems = 1;
        parseOps(pParse, zPath, nPath, 1, v, p);
      }
      return p;
    }
  }
  p = leafNew(pParse, MN_ELEMOBJ, zPath, nPath, bValue);
  if( p ){
    DocMatchNode *pAnd = nodeNew(pParse, MN_AND);
    p->bNoLeafElems = 1;
    nodeAdd(pParse, p, pAnd);
    pParse->nElemMatch++;
    if( pAnd ) parseFilter(pParse, v->p, pAnd);
    pParse->nElemMatch--;
  }
  return p;
}

/* $all: every value present (AND of equalities), or every $elemMatch. */
static void parseAll(DocMatchParse *pParse, const char *zPath, int nPath, int bValue,
                     const DocValue *v, DocMatchNode *pParent){
  DocIter it;
  int nElem = 0, nElemMatch = 0;
  DocMatchNode *pAnd;
  if( v->type!=DOC_ARRAY ){
    parsePathError(pParse, zPath, nPath, "$all needs an array");
    return;
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    nElem++;
    if( docextIsOperatorDoc(&it.v) ){
      DocIter it2;
      docextIterInitValue(&it2, &it.v);
      docextIterNext(&it2);
      if( !docextIterKeyIs(&it2, "$elemMatch") ){
        parsePathError(pParse, zPath, nPath, "no $ expressions in $all");
        return;
      }
      nElemMatch++;
    }
  }
  if( nElemMatch && nElemMatch!=nElem ){
    parsePathError(pParse, zPath, nPath, "$all/$elemMatch has to be consistent");
    return;
  }
  if( nElem==0 ){
    nodeAdd(pParse, pParent, leafNew(pParse, MN_FALSE, zPath, nPath, bValue));
    return;
  }
  pAnd = nodeNew(pParse, MN_AND);
  if( pAnd==0 ) return;
  docextIterInitValue(&it, v);
  while( pParse->rc==SQLITE_OK && docextIterNext(&it) ){
    if( nElemMatch ){
      DocIter it2;
      docextIterInitValue(&it2, &it.v);
      docextIterNext(&it2);
      nodeAdd(pParse, pAnd, parseElemMatch(pParse, zPath, nPath, bValue, &it2.v));
    }else{
      nodeAdd(pParse, pAnd, eqLeaf(pParse, zPath, nPath, bValue, &it.v));
    }
  }
  nodeAdd(pParse, pParent, pAnd);
}

/* $not: a regex or an operator document. */
static DocMatchNode *parseNot(DocMatchParse *pParse, const char *zPath, int nPath,
                              int bValue, const DocValue *v){
  DocMatchNode *p;
  if( v->type==DOC_REGEX ){
    return notNew(pParse, regexLeaf(pParse, zPath, nPath, bValue, v));
  }
  if( v->type!=DOC_DOCUMENT ){
    parsePathError(pParse, zPath, nPath, "$not needs a regex or a document");
    return 0;
  }
  if( docextGetI32(v->p)==5 ){
    parsePathError(pParse, zPath, nPath, "$not cannot be empty");
    return 0;
  }
  if( !docextIsOperatorDoc(v) ){
    parsePathError(pParse, zPath, nPath, "$not needs operators, not a document to compare with");
    return 0;
  }
  p = nodeNew(pParse, MN_NOT);
  if( p ) parseOps(pParse, zPath, nPath, bValue, v, p);
  return p;
}

/* $regex with its $options. */
static DocMatchNode *parseRegexOp(DocMatchParse *pParse, const char *zPath, int nPath,
                                  int bValue, const DocValue *pRegex, const DocValue *pOpts){
  DocMatchNode *p;
  const char *zPat, *zFlags = "";
  int nPat;
  if( pOpts && pOpts->type!=DOC_STRING ){
    parsePathError(pParse, zPath, nPath, "$options has to be a string");
    return 0;
  }
  if( pRegex->type==DOC_STRING ){
    zPat = docextValueStr(pRegex, &nPat);
    if( pOpts ) zFlags = (const char*)pOpts->p + 4;
  }else if( pRegex->type==DOC_REGEX ){
    regexParts(pRegex, &zPat, &nPat, &zFlags);
    if( pOpts ){
      if( zFlags[0] ){
        parsePathError(pParse, zPath, nPath, "options set in both $regex and $options");
        return 0;
      }
      zFlags = (const char*)pOpts->p + 4;
    }
  }else{
    parsePathError(pParse, zPath, nPath, "$regex has to be a string or a regex");
    return 0;
  }
  p = leafNew(pParse, MN_REGEX, zPath, nPath, bValue);
  if( p ) regexInit(pParse, &p->re, zPat, nPat, zFlags);
  return p;
}

/* $geoWithin (or $within) or $geoIntersects, zOp, with its shape v. */
static DocMatchNode *parseGeo(DocMatchParse *pParse, const char *zOp, const char *zPath,
                              int nPath, int bValue, const DocValue *v){
  DocMatchNode *p = leafNew(pParse, MN_GEO, zPath, nPath, bValue);
  char *zWhy = 0;
  int rc;
  if( p==0 ) return 0;
  rc = docextGeoQueryNew(strcmp(zOp, "$geoIntersects")!=0, v, &p->pGeo, &zWhy);
  if( rc==SQLITE_ERROR ){
    parseError(pParse, "docext: bad %s in filter at '%.*s': %s", zOp, nPath, zPath, zWhy);
  }else if( rc ){
    pParse->rc = rc;
  }
  sqlite3_free(zWhy);
  return p;
}

/* {path: {$near | $nearSphere: …, $minDistance, $maxDistance}}: the whole
** operator document pOps. Only at the top of a filter, and once, as in
** MongoDB, since its distance orders the results. */
static DocMatchNode *parseNear(DocMatchParse *pParse, const char *zPath, int nPath,
                               int bTop, const DocValue *pOps){
  DocMatchNode *p;
  char *zWhy = 0;
  int rc;
  if( !bTop ){
    parsePathError(pParse, zPath, nPath,
                   "$near and $nearSphere must be at the top of the filter (or in a "
                   "$and there), not under $or, $nor, $not or $elemMatch");
    return 0;
  }
  if( pParse->pNear ){
    parsePathError(pParse, zPath, nPath, "a filter may have one $near or $nearSphere");
    return 0;
  }
  p = leafNew(pParse, MN_NEAR, zPath, nPath, 0);
  if( p==0 ) return 0;
  rc = docextGeoNearOpNew(pOps, &p->pGeo, &p->rMin, &p->rMax, &zWhy);
  if( rc==SQLITE_ERROR ){
    parseError(pParse, "docext: bad $near in filter at '%.*s': %s", nPath, zPath, zWhy);
  }else if( rc ){
    pParse->rc = rc;
  }
  sqlite3_free(zWhy);
  pParse->pNear = p;
  return p;
}

/* Does the operator document hold $near or $nearSphere? */
static int hasNearOp(const DocValue *pOps){
  DocIter it;
  docextIterInitValue(&it, pOps);
  while( docextIterNext(&it) ){
    if( docextIterKeyIs(&it, "$near") || docextIterKeyIs(&it, "$nearSphere")
     || docextIterKeyIs(&it, "$geoNear") ){
      return 1;
    }
  }
  return 0;
}

/* Is the operator one of the unsupported geospatial ones? */
static int isGeoOp(const DocIter *pIt){
  static const char *azGeo[] = {
    "$maxDistance", "$minDistance", "$geometry", "$box", "$center",
    "$centerSphere", "$polygon", "$uniqueDocs"
  };
  int i;
  for(i=0; i<DOCEXT_COUNT(azGeo); i++){
    if( docextIterKeyIs(pIt, azGeo[i]) ) return 1;
  }
  return 0;
}

static int isUnsupportedTop(const DocIter *pIt){
  return docextIterKeyIs(pIt, "$where");
}

/* The operators of {path: {$op: operand, ...}}, appended to pParent as
** path leaves (bValue 0) or value leaves (bValue 1, under $elemMatch). */
static void parseOps(DocMatchParse *pParse, const char *zPath, int nPath, int bValue,
                     const DocValue *pOps, DocMatchNode *pParent){
  DocIter it;
  DocValue vRegex, vOpts;
  int bRegex = 0, bOpts = 0;
  if( hasNearOp(pOps) ){
    nodeAdd(pParse, pParent,
            parseNear(pParse, zPath, nPath, !bValue && pParent==pParse->pTop, pOps));
    return;
  }
  memset(&vRegex, 0, sizeof(vRegex));
  memset(&vOpts, 0, sizeof(vOpts));
  docextIterInitValue(&it, pOps);
  while( docextIterNext(&it) ){
    if( docextIterKeyIs(&it, "$regex") ){ vRegex = it.v; bRegex = 1; }
    if( docextIterKeyIs(&it, "$options") ){ vOpts = it.v; bOpts = 1; }
  }
  if( bOpts && !bRegex ){
    parsePathError(pParse, zPath, nPath, "$options needs a $regex");
    return;
  }
  if( bRegex ){
    nodeAdd(pParse, pParent,
            parseRegexOp(pParse, zPath, nPath, bValue, &vRegex, bOpts ? &vOpts : 0));
  }
  docextIterInitValue(&it, pOps);
  while( pParse->rc==SQLITE_OK && docextIterNext(&it) ){
    DocMatchNode *p = 0;
    int eCmp = 0;
    if( docextIterKeyIs(&it, "$regex") || docextIterKeyIs(&it, "$options") ) continue;
    if( it.v.type==DOC_UNDEFINED && (docextIterKeyIs(&it, "$eq") || docextIterKeyIs(&it, "$ne")
     || docextIterKeyIs(&it, "$lt") || docextIterKeyIs(&it, "$lte") || docextIterKeyIs(&it, "$gt") || docextIterKeyIs(&it, "$gte")) ){
      parsePathError(pParse, zPath, nPath, "cannot compare to undefined");
    }else if( docextIterKeyIs(&it, "$eq") ){
      p = leafNew(pParse, MN_EQ, zPath, nPath, bValue);
      if( p ) p->rhs = it.v;
    }else if( docextIterKeyIs(&it, "$ne") ){
      if( it.v.type==DOC_REGEX ){
        parsePathError(pParse, zPath, nPath, "$ne cannot take a regex");
      }else{
        p = leafNew(pParse, MN_EQ, zPath, nPath, bValue);
        if( p ) p->rhs = it.v;
        p = notNew(pParse, p);
      }
    }else if( (docextIterKeyIs(&it, "$lt") && (eCmp = MN_LT))
           || (docextIterKeyIs(&it, "$lte") && (eCmp = MN_LTE))
           || (docextIterKeyIs(&it, "$gt") && (eCmp = MN_GT))
           || (docextIterKeyIs(&it, "$gte") && (eCmp = MN_GTE)) ){
      if( it.v.type==DOC_REGEX ){
        parseError(pParse, "docext: %s cannot take a regex in filter at '%.*s'",
                   it.zKey, nPath, zPath);
      }else{
        p = leafNew(pParse, eCmp, zPath, nPath, bValue);
        if( p ) p->rhs = it.v;
      }
    }else if( docextIterKeyIs(&it, "$in") ){
      p = parseIn(pParse, "$in", zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$nin") ){
      p = notNew(pParse, parseIn(pParse, "$nin", zPath, nPath, bValue, &it.v));
    }else if( docextIterKeyIs(&it, "$exists") ){
      p = leafNew(pParse, MN_EXISTS, zPath, nPath, bValue);
      if( !docextValueTruth(&it.v) ) p = notNew(pParse, p);
    }else if( docextIterKeyIs(&it, "$type") ){
      p = parseType(pParse, zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$mod") ){
      p = parseMod(pParse, zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$size") ){
      p = parseSize(pParse, zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$all") ){
      parseAll(pParse, zPath, nPath, bValue, &it.v, pParent);
    }else if( docextIterKeyIs(&it, "$elemMatch") ){
      p = parseElemMatch(pParse, zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$not") ){
      p = parseNot(pParse, zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$bitsAllSet") ){
      p = parseBits(pParse, MN_ALLSET, it.zKey, zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$bitsAnySet") ){
      p = parseBits(pParse, MN_ANYSET, it.zKey, zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$bitsAllClear") ){
      p = parseBits(pParse, MN_ALLCLEAR, it.zKey, zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$bitsAnyClear") ){
      p = parseBits(pParse, MN_ANYCLEAR, it.zKey, zPath, nPath, bValue, &it.v);
    }else if( docextIterKeyIs(&it, "$geoWithin") || docextIterKeyIs(&it, "$within")
           || docextIterKeyIs(&it, "$geoIntersects") ){
      p = parseGeo(pParse, it.zKey, zPath, nPath, bValue, &it.v);
    }else if( isGeoOp(&it) || isUnsupportedTop(&it) ){
      parseError(pParse, "docext: %s is not supported", it.zKey);
    }else{
      parseError(pParse, "docext: unknown operator %s in filter at '%.*s'",
                 it.zKey, nPath, zPath);
    }
    nodeAdd(pParse, pParent, p);
  }
}

/* $and / $or / $nor: a non-empty array of filters. */
static void parseLogical(DocMatchParse *pParse, int eType, const DocIter *pIt,
                         DocMatchNode *pAnd){
  DocMatchNode *p;
  DocIter it;
  if( pIt->v.type!=DOC_ARRAY || docextGetI32(pIt->v.p)==5 ){
    parseError(pParse, "docext: %s needs a non-empty array in filter", pIt->zKey);
    return;
  }
  p = nodeNew(pParse, eType);
  if( p==0 ) return;
  docextIterInitValue(&it, &pIt->v);
  while( pParse->rc==SQLITE_OK && docextIterNext(&it) ){
    DocMatchNode *pSub;
    if( it.v.type!=DOC_DOCUMENT ){
      parseError(pParse, "docext: %s entries must be documents in filter", pIt->zKey);
      break;
    }
    pSub = nodeNew(pParse, MN_AND);
    nodeAdd(pParse, p, pSub);
    if( eType==MN_NOR ) pParse->nNor++;
    if( pSub && eType==MN_AND && pAnd==pParse->pTop ){
      /* MongoDB lifts a top $and's filters to the top: $near may be there */
      DocMatchNode *pTop = pParse->pTop;
      pParse->pTop = pSub;
      parseFilter(pParse, it.v.p, pSub);
      pParse->pTop = pTop;
    }else if( pSub ){
      parseFilter(pParse, it.v.p, pSub);
    }
    if( eType==MN_NOR ) pParse->nNor--;
  }
  nodeAdd(pParse, pAnd, p);
}

int docextIsFilterOp(const DocIter *pIt){
  static const char *const azOp[] = {
    "$and", "$or", "$nor", "$where", "$expr", "$text", "$comment", "$jsonSchema",
    "$alwaysTrue", "$alwaysFalse", "$sampleRate",
  };
  int i;
  for(i=0; i<DOCEXT_COUNT(azOp); i++){
    if( docextIterKeyIs(pIt, azOp[i]) ) return 1;
  }
  return 0;
}

/* {$sampleRate: r}, at the top only (it stands for an $expr). */
static DocMatchNode *sampleLeaf(DocMatchParse *pParse, const DocValue *v){
  DocMatchNode *p;
  double r;
  if( pParse->nElemMatch>0 ){
    parseError(pParse, "docext: $sampleRate can only be applied to the top-level document");
    return 0;
  }
  if( !docextValueIsNumber(v) ){
    parseError(pParse, "docext: $sampleRate takes a number, not %s", docextTypeAlias(v->type));
    return 0;
  }
  r = docextValueToDouble(v);
  if( !(r>=0.0 && r<=1.0) ){
    parseError(pParse, "docext: $sampleRate takes a number from 0 to 1");
    return 0;
  }
  p = nodeNew(pParse, MN_SAMPLE);
  if( p ){
    p->rSample = r;
    if( pParse->zWholeOp==0 ) pParse->zWholeOp = "$sampleRate";
  }
  return p;
}

/* {$expr: v}, allowed where a filter applies to whole documents. */
static DocMatchNode *exprLeaf(DocMatchParse *pParse, const DocValue *v){
  DocMatchNode *p;
  if( pParse->nElemMatch>0 ){
    parseError(pParse, "docext: $expr can only be applied to the top-level document");
    return 0;
  }
  p = nodeNew(pParse, MN_EXPR);
  if( p ){
    if( *pParse->pNowMs==0 ) *pParse->pNowMs = docextClockNowMs();
    if( pParse->zWholeOp==0 ) pParse->zWholeOp = "$expr";
    pParse->rc = docextExprNew(v, pParse->aLet, "$expr", *pParse->pNowMs, &p->pExpr,
                               &pParse->zErr);
    if( pParse->rc==SQLITE_OK ) docextExprSetCollator(p->pExpr, pParse->pCollator);
  }
  return p;
}

/* {$text: v}: once, where it can be read with the collection's text
** index (as MongoDB: not under $nor or $elemMatch). */
static DocMatchNode *textLeaf(DocMatchParse *pParse, const DocValue *v){
  DocMatchNode *p;
  if( pParse->nElemMatch>0 || pParse->nNor>0 ){
    parseError(pParse, "docext: $text is not allowed under $nor or $elemMatch");
    return 0;
  }
  if( pParse->pText ){
    parseError(pParse, "docext: a filter may have one $text");
    return 0;
  }
  p = nodeNew(pParse, MN_TEXT);
  if( p ){
    pParse->rc = docextTextNew(v, &p->pText, &pParse->zErr);
    pParse->pText = p;
    if( pParse->zWholeOp==0 ) pParse->zWholeOp = "$text";
  }
  return p;
}

/* A whole filter document: its conditions are appended to pAnd. */
static void parseFilter(DocMatchParse *pParse, const u8 *aDoc, DocMatchNode *pAnd){
  DocIter it;
  docextIterInit(&it, aDoc);
  while( pParse->rc==SQLITE_OK && docextIterNext(&it) ){
    if( it.nKey>0 && it.zKey[0]=='$' ){
      if( docextIterKeyIs(&it, "$and") ){
        parseLogical(pParse, MN_AND, &it, pAnd);
      }else if( docextIterKeyIs(&it, "$or") ){
        parseLogical(pParse, MN_OR, &it, pAnd);
      }else if( docextIterKeyIs(&it, "$nor") ){
        parseLogical(pParse, MN_NOR, &it, pAnd);
      }else if( docextIterKeyIs(&it, "$comment") ){
        /* ignored, as by MongoDB */
      }else if( docextIterKeyIs(&it, "$expr") ){
        nodeAdd(pParse, pAnd, exprLeaf(pParse, &it.v));
      }else if( docextIterKeyIs(&it, "$jsonSchema") ){
        DocMatchNode *p = nodeNew(pParse, MN_SCHEMA);
        if( pParse->zWholeOp==0 ) pParse->zWholeOp = "$jsonSchema";
        if( p ) pParse->rc = docextSchemaNew(&it.v, &p->pSchema, &pParse->zErr);
        nodeAdd(pParse, pAnd, p);
      }else if( docextIterKeyIs(&it, "$sampleRate") ){
        nodeAdd(pParse, pAnd, sampleLeaf(pParse, &it.v));
      }else if( docextIterKeyIs(&it, "$text") ){
        nodeAdd(pParse, pAnd, textLeaf(pParse, &it.v));
      }else if( docextIterKeyIs(&it, "$alwaysTrue") || docextIterKeyIs(&it, "$alwaysFalse") ){
        nodeAdd(pParse, pAnd, nodeNew(pParse, it.zKey[7]=='T' ? MN_TRUE : MN_FALSE));
      }else if( isUnsupportedTop(&it) || isGeoOp(&it) ){
        parseError(pParse, "docext: %s is not supported", it.zKey);
      }else{
        parseError(pParse, "docext: unknown operator %s in filter", it.zKey);
      }
    }else if( docextIsOperatorDoc(&it.v) ){
      parseOps(pParse, it.zKey, it.nKey, 0, &it.v, pAnd);
    }else{
      nodeAdd(pParse, pAnd, eqLeaf(pParse, it.zKey, it.nKey, 0, &it.v));
    }
  }
}

/*------------------------------------------------------------------------
** Evaluation
*/

static int leafTest(DocMatchCtx *pCtx, DocMatchNode *p, const DocValue *v, int *piInner);
static int nodeMatch(DocMatchCtx *pCtx, DocMatchNode *p, const u8 *aDoc, int *piPos);


/* MongoDB's comparison of a value (0: missing) with an operand. */
static int compareMatch(int eOp, const DocValue *v, const DocValue *pRhs,
                        const DocCollator *pCollator){
  int ca = v ? docextTypeClass(v->type) : docextTypeClass(DOC_UNDEFINED);
  int cb = docextTypeClass(pRhs->type);
  int c;
  if( ca!=cb ){
    int cu = docextTypeClass(DOC_UNDEFINED), cn = docextTypeClass(DOC_NULL);
    if( (ca==cu && cb==cn) || (ca==cn && cb==cu) ){
      return eOp==MN_EQ || eOp==MN_LTE || eOp==MN_GTE;
    }
    if( pRhs->type==DOC_MAXKEY ) return eOp==MN_LT || eOp==MN_LTE;
    if( pRhs->type==DOC_MINKEY ) return eOp==MN_GT || eOp==MN_GTE;
    return 0;
  }
  if( v==0 ){
    c = 0;                          /* missing against undefined */
  }else{
    if( ca==docextTypeClass(DOC_DOUBLE) ){
      int bA = docextValueIsNaN(v), bB = docextValueIsNaN(pRhs);
      if( bA || bB ){
        return (bA && bB) && (eOp==MN_EQ || eOp==MN_LTE || eOp==MN_GTE);
      }
    }
    c = docextValueCompareColl(v, pRhs, pCollator);
  }
  switch( eOp ){
    case MN_EQ:  return c==0;
    case MN_LT:  return c<0;
    case MN_LTE: return c<=0;
    case MN_GT:  return c>0;
    default:     return c>=0;
  }
}

/* Does the regex match v (a string or symbol, or the same stored regex)? */
static int regexTest(DocMatchCtx *pCtx, DocMatchRe *pRe, const DocValue *v){
  if( v==0 ) return 0;
  if( v->type==DOC_STRING || v->type==DOC_SYMBOL ){
    int n, bMatch = 0;
    const char *z = docextValueStr(v, &n);
    int rc = docextRegexMatch(pRe->pRe, z, n, &bMatch, &pCtx->zErr);
    if( rc ){
      pCtx->rc = rc;
      return 0;
    }
    return bMatch;
  }
  if( v->type==DOC_REGEX ){
    const char *zPat, *zFlags;
    int nPat;
    regexParts(v, &zPat, &nPat, &zFlags);
    return nPat==pRe->nPat && memcmp(zPat, pRe->zPat, nPat)==0 && strcmp(zFlags, pRe->zFlags)==0;
  }
  return 0;
}

static int inTest(DocMatchCtx *pCtx, DocMatchNode *p, const DocValue *v){
  int i;
  if( v==0 || v->type==DOC_UNDEFINED ){
    if( p->bInNull ) return 1;
    if( v==0 ) return 0;
  }
  if( p->nVal ){
    int lo = 0, hi = p->nVal-1;
    while( lo<=hi ){
      int mid = (lo+hi)/2;
      int c = docextValueCompareColl(v, &p->aVal[mid], pCtx->pCollator);
      if( c==0 ) return 1;
      if( c<0 ) hi = mid-1; else lo = mid+1;
    }
  }
  for(i=0; i<p->nRe; i++){
    if( regexTest(pCtx, &p->aRe[i], v) ) return 1;
  }
  return 0;
}

/* A decimal128 as an int64, truncated toward zero (bEven 0) or rounded to
** the nearest integer, ties to even (bEven 1); 0 if it is NaN, infinite
** or beyond int64 after that. */
static int decimalToInt64(const DocValue *v, int bEven, i64 *pi){
  char zDigits[40];
  int bNeg, iExp, nAll, n, nZero, i;
  u64 u = 0;
  if( docextDec128Parts(v->p, &bNeg, zDigits, &iExp)!=DOCEXT_DEC_FINITE ) return 0;
  /* value = digits x 10^iExp: the integer part is the first nAll+iExp
  ** digits, or all of them followed by iExp zeros */
  nAll = (int)strlen(zDigits);
  n = iExp<0 ? nAll+iExp : nAll;
  if( n<0 ) n = 0;
  nZero = iExp>0 ? iExp : 0;
  if( n+nZero>19 && !(n==1 && zDigits[0]=='0') ) return 0;
  for(i=0; i<n; i++) u = u*10 + (u64)(zDigits[i]-'0');
  for(i=0; i<nZero && u; i++){
    if( u>(u64)1844674407370955161 ) return 0;
    u *= 10;
  }
  if( bEven && iExp<0 && nAll+iExp>=0 ){
    /* the first fraction digit is zDigits[n] (when the value is below
    ** 0.1 it is an implied zero, and the value rounds down) */
    int c = zDigits[n]-'0', bUp = c>5;
    if( c==5 ){
      for(i=n+1; i<nAll && zDigits[i]=='0'; i++){}
      bUp = i<nAll || (u&1);
    }
    if( bUp ){
      if( u==~(u64)0 ) return 0;
      u++;
    }
  }
  if( bNeg ){
    if( u>(u64)9223372036854775807+1 ) return 0;
    *pi = (i64)(0 - u);
  }else{
    if( u>(u64)9223372036854775807 ) return 0;
    *pi = (i64)u;
  }
  return 1;
}

static int modTest(DocMatchNode *p, const DocValue *v){
  i64 x;
  if( v==0 ) return 0;
  switch( v->type ){
    case DOC_INT32: x = docextValueI32(v); break;
    case DOC_INT64: x = docextValueI64(v); break;
    case DOC_DOUBLE: {
      double d = docextValueDouble(v);
      if( !isfinite(d) ) return 0;
      d = trunc(d);
      if( d>=9223372036854775808.0 || d<-9223372036854775808.0 ) return 0;
      x = (i64)d;
      break;
    }
    case DOC_DECIMAL128:
      if( !decimalToInt64(v, 0, &x) ) return 0;
      break;
    default:
      return 0;
  }
  if( p->iDiv==-1 ) return p->iRem==0;     /* INT64_MIN % -1 overflows */
  return x % p->iDiv == p->iRem;
}

static int bitsTest(DocMatchNode *p, const DocValue *v){
  int i;
  i64 x = 0;
  const u8 *aBin = 0;
  int nBin = 0;
  if( v==0 ) return 0;
  if( v->type==DOC_BINARY ){
    nBin = docextGetI32(v->p);
    aBin = v->p + 5;
  }else if( v->type==DOC_INT32 || v->type==DOC_INT64 || v->type==DOC_DOUBLE ){
    if( !wholeInt64(v, &x) ) return 0;
  }else if( v->type==DOC_DECIMAL128 ){
    /* MongoDB reads it with numberLong(): Decimal128::toLong, rounding
    ** half to even, and INT64_MIN for NaN, infinities and overflow */
    if( !decimalToInt64(v, 1, &x) ) x = (i64)((u64)1<<63);
  }else{
    return 0;
  }
  for(i=0; i<p->nBit; i++){
    int iBit = p->aBit[i], b;
    if( aBin ){
      b = iBit/8<nBin ? (aBin[iBit/8]>>(iBit%8))&1 : 0;
    }else{
      b = iBit>=64 ? x<0 : (int)(((u64)x>>iBit)&1);
    }
    switch( p->eType ){
      case MN_ALLSET:   if( !b ) return 0; break;
      case MN_ANYSET:   if( b ) return 1; break;
      case MN_ALLCLEAR: if( b ) return 0; break;
      default:          if( !b ) return 1; break;
    }
  }
  return p->eType==MN_ALLSET || p->eType==MN_ALLCLEAR;
}

/* All value-leaf children of p pass on v? *piInner from the last that set one. */
static int childrenTest(DocMatchCtx *pCtx, DocMatchNode *p, const DocValue *v, int *piInner){
  int i;
  for(i=0; i<p->nChild; i++){
    int iIn = -1;
    if( !leafTest(pCtx, p->apChild[i], v, &iIn) ) return 0;
    if( iIn>=0 ) *piInner = iIn;
  }
  return 1;
}

/* $elemMatch on v: the index of the first element that passes, or -1. */
static int elemMatchTest(DocMatchCtx *pCtx, DocMatchNode *p, const DocValue *v){
  DocIter it;
  int j = 0;
  if( v==0 || v->type!=DOC_ARRAY ) return -1;
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) && pCtx->rc==SQLITE_OK ){
    if( p->eType==MN_ELEMOBJ ){
      int iPos = -1;
      if( (it.v.type==DOC_DOCUMENT || it.v.type==DOC_ARRAY)
       && nodeMatch(pCtx, p->apChild[0], it.v.p, &iPos) ){
        return j;
      }
    }else{
      int iIn = -1;
      if( childrenTest(pCtx, p, &it.v, &iIn) ) return j;
    }
    j++;
  }
  return -1;
}

/* Does the single value v (0: missing) pass leaf p? Value-level MN_AND and
** MN_NOT combine leaves. *piInner: for $elemMatch, the matching index. */
static int leafTest(DocMatchCtx *pCtx, DocMatchNode *p, const DocValue *v, int *piInner){
  if( pCtx->rc ) return 0;
  switch( p->eType ){
    case MN_EQ: case MN_LT: case MN_LTE: case MN_GT: case MN_GTE:
      return compareMatch(p->eType, v, &p->rhs, pCtx->pCollator);
    case MN_IN:
      return inTest(pCtx, p, v);
    case MN_REGEX:
      return regexTest(pCtx, &p->re, v);
    case MN_EXISTS:
      return v!=0;
    case MN_TYPE: {
      int b = v ? typeBit(v->type) : -1;
      return b>=0 && ((p->mType>>b)&1);
    }
    case MN_MOD:
      return modTest(p, v);
    case MN_SIZE: {
      DocIter it;
      i64 n = 0;
      if( v==0 || v->type!=DOC_ARRAY ) return 0;
      docextIterInitValue(&it, v);
      while( docextIterNext(&it) ) n++;
      return n==p->nSize;
    }
    case MN_ALLSET: case MN_ANYSET: case MN_ALLCLEAR: case MN_ANYCLEAR:
      return bitsTest(p, v);
    case MN_ELEMOBJ: case MN_ELEMVAL: {
      int j = elemMatchTest(pCtx, p, v);
      if( j<0 ) return 0;
      *piInner = j;
      return 1;
    }
    case MN_AND:
      return childrenTest(pCtx, p, v, piInner);
    case MN_NOT: {
      int iIgnore = -1;
      int b = childrenTest(pCtx, p, v, &iIgnore);
      return pCtx->rc ? 0 : !b;
    }
    case MN_GEO: {
      int b = 0;
      int rc = docextGeoMatch(p->pGeo, v, &b);
      if( rc ) pCtx->rc = rc;
      return b;
    }
    case MN_NEAR: {
      double r = -1;
      int rc = docextGeoDistance(p->pGeo, v, &r);
      if( rc ) pCtx->rc = rc;
      return r>=0 && r>=p->rMin && r<=p->rMax;
    }
    case MN_TRUE:
      return 1;
  }
  return 0;
}

/* State of one path leaf's walk. */
typedef struct DocMatchVisit DocMatchVisit;
struct DocMatchVisit {
  DocMatchCtx *pCtx;
  DocMatchNode *p;
  int iPos;             /* out: elemMatchKey of the match */
};

static int visitLeaf(void *pArg, const DocValue *v, int iPos){
  DocMatchVisit *pV = (DocMatchVisit*)pArg;
  int iInner = -1;
  if( leafTest(pV->pCtx, pV->p, v, &iInner) ){
    pV->iPos = iPos>=0 ? iPos : iInner;
    return SQLITE_DONE;
  }
  return pV->pCtx->rc;
}

/* Does the document aDoc match node p? */
static int nodeMatch(DocMatchCtx *pCtx, DocMatchNode *p, const u8 *aDoc, int *piPos){
  int i, iPos;
  *piPos = -1;
  if( pCtx->rc ) return 0;
  switch( p->eType ){
    case MN_AND:
      for(i=0; i<p->nChild; i++){
        if( !nodeMatch(pCtx, p->apChild[i], aDoc, &iPos) ) return 0;
        if( iPos>=0 ) *piPos = iPos;
      }
      return 1;
    case MN_OR:
      for(i=0; i<p->nChild; i++){
        if( nodeMatch(pCtx, p->apChild[i], aDoc, piPos) ) return 1;
      }
      return 0;
    case MN_NOR:
      for(i=0; i<p->nChild; i++){
        if( nodeMatch(pCtx, p->apChild[i], aDoc, &iPos) ) return 0;
      }
      return pCtx->rc==SQLITE_OK;
    case MN_NOT:
      for(i=0; i<p->nChild; i++){
        if( !nodeMatch(pCtx, p->apChild[i], aDoc, &iPos) ) return pCtx->rc==SQLITE_OK;
      }
      return 0;
    case MN_TRUE:
      return 1;
    case MN_FALSE:
      return 0;
    case MN_EXPR: {
      int b = 0;
      pCtx->rc = docextExprTruth(p->pExpr, aDoc, &b, &pCtx->zErr);
      return b;
    }
    case MN_SCHEMA: {
      int b = 0;
      pCtx->rc = docextSchemaMatch(p->pSchema, aDoc, &b, &pCtx->zErr);
      return b;
    }
    case MN_SAMPLE:
      return docextRandomUnit() < p->rSample;
    case MN_TEXT: {
      int b = 0;
      pCtx->rc = docextTextMatch(p->pText, aDoc, &b, &pCtx->zErr);
      return b;
    }
    default: {
      DocMatchVisit v;
      int rc;
      v.pCtx = pCtx;
      v.p = p;
      v.iPos = -1;
      rc = docextPathWalkMatch(aDoc, p->zPath, p->nPath, p->bNoLeafElems, visitLeaf, &v);
      if( rc==SQLITE_DONE ){
        *piPos = v.iPos;
        return 1;
      }
      return 0;
    }
  }
}

/*------------------------------------------------------------------------
** The interface
*/

int docextMatcherNew(const u8 *aFilter, const u8 *aLet, i64 *pNowMs, DocMatcher **ppOut,
                     char **pzErr){
  return docextMatcherNewColl(aFilter, aLet, pNowMs, 0, ppOut, pzErr);
}

int docextMatcherNewColl(const u8 *aFilter, const u8 *aLet, i64 *pNowMs,
                         const DocCollator *pCollator, DocMatcher **ppOut, char **pzErr){
  DocMatcher *p;
  DocMatchParse sParse;
  i64 nowMs = 0;
  int nFilter = docextGetI32(aFilter);
  int nLet = aLet ? docextGetI32(aLet) : 0;
  *ppOut = 0;
  /* the matcher, its root and its copies of the filter and of the let
  ** variables: one allocation */
  p = docextMallocZero(sizeof(*p) + nFilter + nLet);
  if( p==0 ) return SQLITE_NOMEM;
  p->aFilter = (u8*)&p[1];
  memcpy(p->aFilter, aFilter, nFilter);
  memset(&sParse, 0, sizeof(sParse));
  sParse.pNowMs = pNowMs ? pNowMs : &nowMs;
  sParse.pCollator = p->pCollator = pCollator;
  if( aLet ){
    memcpy(p->aFilter + nFilter, aLet, nLet);
    sParse.aLet = p->aFilter + nFilter;
  }
  p->pRoot = &p->root;
  p->root.eType = MN_AND;
  sParse.pTop = p->pRoot;
  parseFilter(&sParse, p->aFilter, p->pRoot);
  p->zWholeOp = sParse.zWholeOp;
  p->pNear = sParse.pNear;
  p->pText = sParse.pText;
  if( p->zWholeOp==0 && p->pNear ) p->zWholeOp = "$near";   /* (an order, too) */
  if( sParse.rc ){
    docextMatcherFree(p);
    if( sParse.zErr ){
      *pzErr = sParse.zErr;
    }
    return sParse.rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

int docextMatcherMatch(DocMatcher *p, const u8 *aDoc, int *pbMatch, int *piPos, char **pzErr){
  DocMatchCtx sCtx;
  int iPos = -1;
  sCtx.rc = SQLITE_OK;
  sCtx.zErr = 0;
  sCtx.pCollator = p->pCollator;
  *pbMatch = nodeMatch(&sCtx, p->pRoot, aDoc, &iPos);
  if( piPos ) *piPos = iPos;
  if( sCtx.rc ){
    *pbMatch = 0;
    if( sCtx.zErr ) *pzErr = sCtx.zErr;
    return sCtx.rc;
  }
  return SQLITE_OK;
}

const char *docextMatcherWholeOp(DocMatcher *p){
  return p->zWholeOp;
}

const DocGeo *docextMatcherNear(DocMatcher *p, const char **pzPath, int *pnPath){
  if( p->pNear==0 ) return 0;
  *pzPath = p->pNear->zPath;
  *pnPath = p->pNear->nPath;
  return p->pNear->pGeo;
}

DocText *docextMatcherText(DocMatcher *p){
  return p->pText ? p->pText->pText : 0;
}

double docextMatcherNearMax(DocMatcher *p){
  return p->pNear ? p->pNear->rMax : INFINITY;
}

int docextMatcherIsEmpty(DocMatcher *p){
  return p->pRoot->nChild==0;
}

void docextMatcherFree(DocMatcher *p){
  if( p ){
    nodeClear(p->pRoot);
    sqlite3_free(p);
  }
}
