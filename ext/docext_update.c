/*
** docext_update.c — MongoDB update operators and replacement documents,
** and the SQL function doc_update(d, update [, options]).
**
** COMPILING. docextUpdateNew() turns an operator document into a tree, as
** MongoDB 5.0 does (UpdateObjectNode / UpdateArrayNode / modifier leaves):
**
**   {$inc: {"a.b": 1}, $set: {c: 2, "d.$[x].e": 3}}
**
**        (root OBJECT) ── a (OBJECT) ── b  LEAF $inc
**                      ├─ c  LEAF $set
**                      └─ d (ARRAY) ── $[x] (OBJECT) ── e  LEAF $set
**
** An OBJECT node's children are named fields (or array indexes), kept in
** MongoDB's order: names that are all digits numerically, others bytewise
** (numeric names first when the two kinds meet — MongoDB's comparator is
** not a total order there); an OBJECT node may also have one positional
** child "$". An ARRAY node's children are "$[]" and "$[<id>]". A path that
** ends at, or passes through, another path's leaf, or that needs a node to
** be of the other kind, is a conflict ("Updating the path 'a.b' would
** create a conflict at 'a'"), detected while the tree is built. $rename puts
** a leaf at both its source and its destination, so both take part.
**
** APPLYING. docextUpdateApply() walks the tree and the document together
** and writes the new document in one pass:
**   - elements no node names are copied verbatim, in runs (one memcpy per
**     run of untouched elements), so a small update of a large document
**     keeps every unchanged byte as it was and where it was, except the
**     length prefixes of the documents that enclose a change — what the
**     paged storage needs to rewrite only the pages that changed;
**   - a node's children apply in the tree's order; fields that do not exist
**     yet are appended in that order (MongoDB 5.0: lexicographic order,
**     numeric names numerically), intermediate documents created on the
**     way; a numeric name indexes an array (padding with nulls beyond its
**     end) and names a field of a document;
**   - when two nodes meet at one place at apply time (the positional "$"
**     resolving to an index also named explicitly, "$[]" and "$[i]" on one
**     element) their children are merged; two leaves at one place are
**     "Update created a conflict at 'a.0'", as in MongoDB.
** Leaves that only remove ($unset, $pull, $pullAll, $pop, the source of a
** $rename, $setOnInsert when not inserting) do nothing where their path
** does not exist or cannot exist; every other leaf creates its path, and a
** scalar in the way is "Cannot create field 'x' in element {a: 1}".
**
** NUMBERS ($inc, $mul), as MongoDB's SafeNum: int32 with int32 gives int32,
** int64 when it overflows; with an int64, int64, and an int64 overflow is
** an error; with a double, double; with a decimal128, decimal128, computed
** exactly and rounded once to 34 digits (half to even), a double operand
** first converted to 15 significant digits as MongoDB's Decimal128(double)
** does.
**
** doc_update() reads the clock when the update uses $currentDate, so it is
** registered without SQLITE_DETERMINISTIC: SQLite may then neither factor a
** call out of a loop nor use it in an index expression, a CHECK constraint
** or a generated column, where a value that changes between calls would
** corrupt the index. Every call evaluates $currentDate afresh.
*/
#include "docextInt.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Operators. */
#define UOP_SET          1
#define UOP_UNSET        2
#define UOP_INC          3
#define UOP_MUL          4
#define UOP_MIN          5
#define UOP_MAX          6
#define UOP_RENAME       7
#define UOP_SETONINSERT  8
#define UOP_CURRENTDATE  9
#define UOP_PUSH         10
#define UOP_PUSHALL      11
#define UOP_ADDTOSET     12
#define UOP_POP          13
#define UOP_PULL         14
#define UOP_PULLALL      15
#define UOP_BIT          16

static const struct UpdOpName {
  const char *zName;
  int eOp;
} aUpdOp[] = {
  { "$set",         UOP_SET },
  { "$unset",       UOP_UNSET },
  { "$inc",         UOP_INC },
  { "$mul",         UOP_MUL },
  { "$min",         UOP_MIN },
  { "$max",         UOP_MAX },
  { "$rename",      UOP_RENAME },
  { "$setOnInsert", UOP_SETONINSERT },
  { "$currentDate", UOP_CURRENTDATE },
  { "$push",        UOP_PUSH },
  { "$pushAll",     UOP_PUSHALL },
  { "$addToSet",    UOP_ADDTOSET },
  { "$pop",         UOP_POP },
  { "$pull",        UOP_PULL },
  { "$pullAll",     UOP_PULLALL },
  { "$bit",         UOP_BIT },
};

/* Node kinds. */
#define UNODE_OBJECT 1
#define UNODE_ARRAY  2
#define UNODE_LEAF   3

/* How $pull recognises the elements to remove (MongoDB's PullNode). */
#define UPULL_EQUAL   0    /* equal to the operand */
#define UPULL_WRAPPED 1    /* {"": elem} matches {"": operand}: operators, regex */
#define UPULL_OBJECT  2    /* a document element matches the operand as a filter */

/* Path components. */
#define UCOMP_FIELD   0    /* a field name or array index */
#define UCOMP_POS     1    /* $ */
#define UCOMP_ALL     2    /* $[] */
#define UCOMP_ID      3    /* $[<identifier>] */

/* MongoDB will not pad an array by more than this many nulls. */
#define UPD_MAX_PAD  1500000

typedef struct UpdLeaf UpdLeaf;
typedef struct UpdNode UpdNode;
typedef struct UpdFilter UpdFilter;
typedef struct UpdSortField UpdSortField;
typedef struct UpdParse UpdParse;
typedef struct UpdApply UpdApply;
typedef struct UpdEntry UpdEntry;

struct UpdSortField {
  const char *zPath;        /* dotted path (inside the update copy) */
  int nPath;
  int iDir;                 /* 1 or -1 */
};

/* One operator applied to one path. */
struct UpdLeaf {
  int eOp;                  /* UOP_* */
  const char *zPath;        /* the path as written (inside the update copy) */
  int nPath;
  DocValue v;               /* the operand */
  UpdLeaf *pNext;           /* list of all leaves, for freeing */
  /* $push, $pushAll, $addToSet: the values to add */
  DocValue *aVal;
  int nVal;
  int bPosition;            /* $position given */
  i64 iPosition;
  int bSlice;               /* $slice given */
  i64 nSlice;
  int iSort;                /* 0: none, 1/-1: whole values, 2: by fields */
  UpdSortField *aSort;
  int nSort;
  /* $pull */
  int ePull;                /* PULL_* */
  DocMatcher *pMatch;
  /* $currentDate */
  int bTimestamp;
  /* $pop */
  int iPop;                 /* 1: last, -1: first */
  /* $rename */
  int bFrom;                /* this leaf is the source */
  int iRename;              /* index of the rename (shared by both leaves) */
  const char *zFrom;        /* the source path (for the destination leaf) */
  int nFrom;
  const char *zTo;          /* the destination path */
  int nTo;
  const DocCollator *pCollator;   /* the update's collation (NULL: simple):
                            ** how $addToSet, $pull, $pullAll, $min, $max and
                            ** $push's $sort compare strings */
};

struct UpdNode {
  int eKind;                /* UNODE_* */
  const char *zName;        /* component ("b", "0", "$[]", "$[x]") */
  int nName;
  int iFilter;              /* child of an ARRAY node: -1 for $[], else arrayFilters index */
  UpdNode **apChild;        /* OBJECT: sorted by name; ARRAY: in order added */
  int nChild;
  int nAlloc;
  UpdNode *pPositional;     /* OBJECT: the "$" child, or NULL */
  UpdLeaf *pLeaf;           /* LEAF */
};

/* One document of arrayFilters. */
struct UpdFilter {
  const char *zId;          /* its identifier (inside the options copy) */
  int nId;
  DocMatcher *pMatch;
  int bUsed;
};

struct DocUpdate {
  u8 *aUpdate;              /* private copy of the update document */
  u8 *aOptions;             /* private copy of the options, or NULL */
  int bReplace;             /* a replacement document, not operators */
  DocPipeline *pPipeline;   /* a pipeline update (docext_pipeline.c) */
  UpdNode *pRoot;           /* operator updates: the tree */
  UpdLeaf *pLeaves;         /* every leaf */
  UpdFilter *aFilter;       /* arrayFilters */
  int nFilter;
  int bPositional;          /* some path uses "$" */
  int nRename;              /* $rename entries */
  DocCollator *pCollator;   /* the options' collation, or NULL */
};

/*------------------------------------------------------------------------
** Small helpers
*/

/* Is z[0..n) a non-empty string of digits? */
static int updIsDigits(const char *z, int n){
  int i;
  if( n<=0 ) return 0;
  for(i=0; i<n; i++){
    if( z[i]<'0' || z[i]>'9' ) return 0;
  }
  return 1;
}

/* The array index a name stands for: digits without leading zeros, below
** 10^15; else -1 (the name can only be a field name). */
static i64 updIndex(const char *z, int n){
  i64 v = 0;
  int i;
  if( !updIsDigits(z, n) || n>15 || (n>1 && z[0]=='0') ) return -1;
  for(i=0; i<n; i++) v = v*10 + (z[i]-'0');
  return v;
}

/* MongoDB's order of field names in an update: numeric names by value
** (shorter first, then bytewise), other names bytewise; numeric names come
** first when the two kinds meet. Equal only for identical names. */
static int updNameCmp(const char *a, int na, const char *b, int nb){
  int bNumA = updIsDigits(a, na), bNumB = updIsDigits(b, nb);
  int c;
  int nMin = na<nb ? na : nb;
  if( bNumA!=bNumB ) return bNumA ? -1 : 1;
  if( bNumA && na!=nb ) return na<nb ? -1 : 1;
  c = nMin>0 ? memcmp(a, b, (size_t)nMin) : 0;
  if( c ) return c;
  return na<nb ? -1 : na>nb;
}

/* Values for messages, in the mongo shell's style: "1", "\"x\"", "[ 1 ]". */
static void updMsgValue(int *pRc, DocBuf *pMsg, const DocValue *v){
  docextJsonWriteValue(pRc, pMsg, v, DOCEXT_JSON_SHELL);
}

/* Detach a message buffer into *pzErr (nothing if one is already there). */
static int updMsgFinish(int rc, DocBuf *pMsg, char **pzErr){
  int rc2 = SQLITE_OK;
  char *z = docextBufDetachText(&rc2, pMsg);
  if( z==0 ) return SQLITE_NOMEM;
  if( *pzErr ){
    sqlite3_free(z);
  }else{
    *pzErr = z;
  }
  return rc;
}

/* An integer operand ($position, $slice): a number with an integral value
** representable as an int64. 1 on success. */
static int updIntegral(const DocValue *v, i64 *piOut){
  double d;
  switch( v->type ){
    case DOC_INT32: *piOut = docextValueI32(v); return 1;
    case DOC_INT64: *piOut = docextValueI64(v); return 1;
    case DOC_DOUBLE: case DOC_DECIMAL128:
      d = docextValueToDouble(v);
      if( !(d>=-9223372036854775808.0 && d<9223372036854775808.0) ) return 0;
      if( d!=floor(d) ) return 0;
      *piOut = (i64)d;
      return 1;
  }
  return 0;
}

/*------------------------------------------------------------------------
** Compiling
*/

struct UpdParse {
  int rc;
  char *zErr;
  DocUpdate *p;
};

static void updParseError(UpdParse *pP, const char *zFmt, ...){
  va_list ap;
  if( pP->rc!=SQLITE_OK ) return;
  va_start(ap, zFmt);
  pP->rc = docextErrorV(&pP->zErr, zFmt, ap);
  va_end(ap);
}

/* An error whose message shows a value: zPre, then "key: value" when zKey
** is given (else the value alone), then zPost. */
static void updParseErrorValue(UpdParse *pP, const char *zPre, const char *zKey,
                            const DocValue *v, const char *zPost){
  DocBuf msg;
  int rc = SQLITE_OK;
  if( pP->rc!=SQLITE_OK ) return;
  memset(&msg, 0, sizeof(msg));
  docextBufAppendStr(&rc, &msg, "docext: ");
  docextBufAppendStr(&rc, &msg, zPre);
  if( zKey ){
    docextBufAppendStr(&rc, &msg, zKey);
    docextBufAppendStr(&rc, &msg, ": ");
  }
  updMsgValue(&rc, &msg, v);
  docextBufAppendStr(&rc, &msg, zPost);
  pP->rc = updMsgFinish(rc==SQLITE_OK ? SQLITE_ERROR : rc, &msg, &pP->zErr);
}

static void updNodeFree(UpdNode *pNode){
  int i;
  if( pNode==0 ) return;
  for(i=0; i<pNode->nChild; i++) updNodeFree(pNode->apChild[i]);
  updNodeFree(pNode->pPositional);
  sqlite3_free(pNode->apChild);
  sqlite3_free(pNode);
}

/* n zeroed bytes for the parse, or 0 with pP->rc set (also when the parse
** has already failed, so callers need not check pP->rc first). */
static void *updParseAlloc(UpdParse *pP, i64 n){
  void *p;
  if( pP->rc!=SQLITE_OK ) return 0;
  p = docextMallocZero(n);
  if( p==0 ) pP->rc = SQLITE_NOMEM;
  return p;
}

static UpdNode *updNodeNew(UpdParse *pP, int eKind, const char *zName, int nName){
  UpdNode *pNode = updParseAlloc(pP, sizeof(*pNode));
  if( pNode==0 ) return 0;
  pNode->eKind = eKind;
  pNode->zName = zName;
  pNode->nName = nName;
  pNode->iFilter = -1;
  return pNode;
}

/* The child of pParent named z[0..n), and in *piAt where it is or would
** be inserted. ARRAY nodes keep their few children unsorted. */
static UpdNode *updNodeFind(UpdNode *pParent, const char *z, int n, int *piAt){
  int lo = 0, hi = pParent->nChild - 1;
  if( pParent->eKind==UNODE_ARRAY ){
    int i;
    for(i=0; i<pParent->nChild; i++){
      UpdNode *pC = pParent->apChild[i];
      if( pC->nName==n && memcmp(pC->zName, z, n)==0 ) return pC;
    }
    *piAt = pParent->nChild;
    return 0;
  }
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    UpdNode *pC = pParent->apChild[mid];
    int c = updNameCmp(pC->zName, pC->nName, z, n);
    if( c==0 ) return pC;
    if( c<0 ) lo = mid+1; else hi = mid-1;
  }
  *piAt = lo;
  return 0;
}

static void updNodeInsert(UpdParse *pP, UpdNode *pParent, int iAt, UpdNode *pChild){
  if( pP->rc!=SQLITE_OK ) return;
  pParent->apChild = docextArrayGrow(&pP->rc, pParent->apChild, pParent->nChild,
                                     &pParent->nAlloc, sizeof(UpdNode*));
  if( pP->rc!=SQLITE_OK ){
    updNodeFree(pChild);
    return;
  }
  memmove(&pParent->apChild[iAt+1], &pParent->apChild[iAt],
          sizeof(UpdNode*)*(pParent->nChild - iAt));
  pParent->apChild[iAt] = pChild;
  pParent->nChild++;
}

/* Classify one path component. */
static int updCompKind(const char *z, int n){
  if( n==1 && z[0]=='$' ) return UCOMP_POS;
  if( n>=3 && z[0]=='$' && z[1]=='[' && z[n-1]==']' ){
    return n==3 ? UCOMP_ALL : UCOMP_ID;
  }
  return UCOMP_FIELD;
}

/* Check the syntax of an update path: no empty path or component, "$"
** not first nor twice, "$[<id>]" naming an array filter (marked used), no
** other "$"-prefixed component unless bInsertOnly (a $setOnInsert path:
** such a field is refused by the insert's own check of its names, and when
** no insert happens nothing is written, as in MongoDB). Sets
** p->bPositional when "$" is used. */
static void updPathCheck(UpdParse *pP, const char *zPath, int nPath, int bInsertOnly){
  int i = 0, nPos = 0, iComp = 0;
  if( nPath==0 ){
    updParseError(pP, "docext: An empty update path is not valid.");
    return;
  }
  while( i<=nPath && pP->rc==SQLITE_OK ){
    const char *zDot = memchr(&zPath[i], '.', nPath-i);
    int n = zDot ? (int)(zDot - &zPath[i]) : nPath-i;
    const char *z = &zPath[i];
    int eComp;
    if( n==0 ){
      updParseError(pP, "docext: The update path '%.*s' contains an empty field "
                     "name, which is not allowed.", nPath, zPath);
      return;
    }
    if( iComp>=DOCEXT_MAX_PATH_PARTS ){
      /* (the walks of the update's tree go one call deeper a component) */
      updParseError(pP, "docext: The update path '%.*s...' has more than %d components.",
                    60, zPath, DOCEXT_MAX_PATH_PARTS);
      return;
    }
    eComp = updCompKind(z, n);
    if( eComp==UCOMP_POS ){
      if( iComp==0 ){
        updParseError(pP, "docext: Cannot have positional (i.e. '$') element in "
                       "the first position in path '%.*s'", nPath, zPath);
      }
      if( ++nPos>1 ){
        updParseError(pP, "docext: Too many positional (i.e. '$') elements found "
                       "in path '%.*s'", nPath, zPath);
      }
      pP->p->bPositional = 1;
    }else if( eComp==UCOMP_ALL || eComp==UCOMP_ID ){
      if( iComp==0 ){
        updParseError(pP, "docext: Cannot have array filter identifier (i.e. "
                       "'$[<id>]') element in the first position in path '%.*s'",
                       nPath, zPath);
      }
      if( eComp==UCOMP_ID ){
        int j;
        for(j=0; j<pP->p->nFilter; j++){
          UpdFilter *pF = &pP->p->aFilter[j];
          if( pF->nId==n-3 && memcmp(pF->zId, z+2, n-3)==0 ) break;
        }
        if( j==pP->p->nFilter ){
          updParseError(pP, "docext: No array filter found for identifier '%.*s' "
                         "in path '%.*s'", n-3, z+2, nPath, zPath);
        }else{
          pP->p->aFilter[j].bUsed = 1;
        }
      }
    }else if( z[0]=='$' && !bInsertOnly ){
      updParseError(pP, "docext: The dollar ($) prefixed field '%.*s' in '%.*s' "
                     "is not valid for storage.", n, z, nPath, zPath);
    }
    i += n+1;
    iComp++;
  }
}

/* Add the leaf pLeaf at path zPath to the tree. */
static void updTreeAdd(UpdParse *pP, const char *zPath, int nPath, UpdLeaf *pLeaf){
  UpdNode *pCur = pP->p->pRoot;
  int i = 0;
  while( pP->rc==SQLITE_OK ){
    const char *z = &zPath[i];
    const char *zDot = memchr(z, '.', nPath-i);
    int n = zDot ? (int)(zDot - z) : nPath-i;
    int bLast = zDot==0;
    int eComp = updCompKind(z, n);
    int iAt = 0;
    UpdNode *pChild;
    int eWant = (eComp==UCOMP_ALL || eComp==UCOMP_ID) ? UNODE_ARRAY : UNODE_OBJECT;

    if( pCur->eKind!=eWant ){
      /* pCur was made for the other kind of child */
      updParseError(pP, "docext: Updating the path '%.*s' would create a conflict "
                     "at '%.*s'", nPath, zPath, i>0 ? i-1 : 0, zPath);
      return;
    }
    if( eComp==UCOMP_POS ){
      pChild = pCur->pPositional;
    }else{
      pChild = updNodeFind(pCur, z, n, &iAt);
    }
    if( pChild ){
      if( bLast || pChild->eKind==UNODE_LEAF ){
        updParseError(pP, "docext: Updating the path '%.*s' would create a "
                       "conflict at '%.*s'", nPath, zPath, i+n, zPath);
        return;
      }
    }else{
      int eKind = UNODE_LEAF;
      if( !bLast ){
        const char *zNext = z+n+1;
        const char *zDot2 = memchr(zNext, '.', nPath-i-n-1);
        int nNext = zDot2 ? (int)(zDot2 - zNext) : nPath-i-n-1;
        int eNext = updCompKind(zNext, nNext);
        eKind = (eNext==UCOMP_ALL || eNext==UCOMP_ID) ? UNODE_ARRAY : UNODE_OBJECT;
      }
      pChild = updNodeNew(pP, eKind, z, n);
      if( pChild==0 ) return;
      if( eComp==UCOMP_ID ){
        int j;
        for(j=0; j<pP->p->nFilter; j++){
          UpdFilter *pF = &pP->p->aFilter[j];
          if( pF->nId==n-3 && memcmp(pF->zId, z+2, n-3)==0 ) pChild->iFilter = j;
        }
      }
      if( bLast ) pChild->pLeaf = pLeaf;
      if( eComp==UCOMP_POS ){
        pCur->pPositional = pChild;
      }else{
        updNodeInsert(pP, pCur, iAt, pChild);
      }
    }
    if( bLast ) return;
    pCur = pChild;
    i += n+1;
  }
}

static UpdLeaf *updLeafNew(UpdParse *pP, int eOp, const char *zPath, int nPath,
                        const DocValue *v){
  UpdLeaf *pLeaf = updParseAlloc(pP, sizeof(*pLeaf));
  if( pLeaf==0 ) return 0;
  pLeaf->eOp = eOp;
  pLeaf->zPath = zPath;
  pLeaf->nPath = nPath;
  pLeaf->v = *v;
  pLeaf->pCollator = pP->p->pCollator;
  pLeaf->pNext = pP->p->pLeaves;
  pP->p->pLeaves = pLeaf;
  return pLeaf;
}

/* The elements of an array value as a DocValue array in pLeaf->aVal. */
static void updLeafSetValues(UpdParse *pP, UpdLeaf *pLeaf, const DocValue *pArr){
  DocIter it;
  int n = 0;
  if( pP->rc!=SQLITE_OK ) return;
  if( pArr==0 ){
    pLeaf->aVal = updParseAlloc(pP, sizeof(DocValue));
    if( pLeaf->aVal==0 ) return;
    pLeaf->aVal[0] = pLeaf->v;
    pLeaf->nVal = 1;
    return;
  }
  docextIterInitValue(&it, pArr);
  while( docextIterNext(&it) ) n++;
  pLeaf->aVal = updParseAlloc(pP, sizeof(DocValue)*(i64)(n ? n : 1));
  if( pLeaf->aVal==0 ) return;
  docextIterInitValue(&it, pArr);
  while( docextIterNext(&it) ) pLeaf->aVal[pLeaf->nVal++] = it.v;
}

/* $push's $sort: 1/-1, or a document of fields with 1/-1. */
static void updParsePushSort(UpdParse *pP, UpdLeaf *pLeaf, const DocValue *v){
  double d;
  DocIter it;
  int n = 0;
  if( docextValueIsNumber(v) ){
    d = docextValueToDouble(v);
    if( d==1.0 || d==-1.0 ){
      pLeaf->iSort = d>0 ? 1 : -1;
      return;
    }
  }
  if( v->type!=DOC_DOCUMENT ){
    updParseError(pP, "docext: The $sort is invalid: use 1/-1 to sort the whole "
                   "element, or {field:1/-1} to sort embedded fields");
    return;
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ) n++;
  if( n==0 ){
    updParseError(pP, "docext: The $sort pattern is empty when it should be a set of fields.");
    return;
  }
  pLeaf->aSort = updParseAlloc(pP, sizeof(UpdSortField)*(i64)n);
  if( pLeaf->aSort==0 ) return;
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) && pP->rc==SQLITE_OK ){
    UpdSortField *pF = &pLeaf->aSort[pLeaf->nSort++];
    int i;
    pF->zPath = it.zKey;
    pF->nPath = it.nKey;
    pF->iDir = 0;
    if( docextValueIsNumber(&it.v) ){
      d = docextValueToDouble(&it.v);
      if( d==1.0 ) pF->iDir = 1;
      if( d==-1.0 ) pF->iDir = -1;
    }
    if( pF->iDir==0 ){
      updParseError(pP, "docext: The $sort element value must be either 1 or -1");
    }
    if( it.nKey==0 || it.zKey[0]=='.' || it.zKey[it.nKey-1]=='.' ){
      updParseError(pP, "docext: The $sort field is a dotted field but has an "
                     "empty part: %s", it.zKey);
    }
    for(i=0; i+1<it.nKey; i++){
      if( it.zKey[i]=='.' && it.zKey[i+1]=='.' ){
        updParseError(pP, "docext: The $sort field is a dotted field but has an "
                       "empty part: %s", it.zKey);
      }
    }
    if( it.nKey>0 && it.zKey[0]=='$' ){
      updParseError(pP, "docext: The $sort field cannot start with $: %s", it.zKey);
    }
  }
  pLeaf->iSort = 2;
}

/* $push: a value, or {$each: [...], $position, $sort, $slice}. */
static void updParsePush(UpdParse *pP, UpdLeaf *pLeaf){
  DocValue each, *v = &pLeaf->v;
  DocIter it;
  if( v->type!=DOC_DOCUMENT || !docextBsonFind(v->p, "$each", 5, &each) ){
    updLeafSetValues(pP, pLeaf, 0);
    return;
  }
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) && pP->rc==SQLITE_OK ){
    if( strcmp(it.zKey, "$each")==0 ){
      if( it.v.type!=DOC_ARRAY ){
        updParseError(pP, "docext: The argument to $each in $push must be an array "
                       "but it was of type: %s", docextTypeAlias(it.v.type));
      }
    }else if( strcmp(it.zKey, "$position")==0 ){
      pLeaf->bPosition = 1;
      if( !updIntegral(&it.v, &pLeaf->iPosition) ){
        updParseError(pP, "docext: The value for $position must be an integer "
                       "value, not of type: %s", docextTypeAlias(it.v.type));
      }
    }else if( strcmp(it.zKey, "$slice")==0 ){
      pLeaf->bSlice = 1;
      if( !updIntegral(&it.v, &pLeaf->nSlice) ){
        updParseError(pP, "docext: The value for $slice must be an integer value "
                       "but was given type: %s", docextTypeAlias(it.v.type));
      }
    }else if( strcmp(it.zKey, "$sort")==0 ){
      updParsePushSort(pP, pLeaf, &it.v);
    }else{
      updParseError(pP, "docext: Unrecognized clause in $push: %s", it.zKey);
    }
  }
  updLeafSetValues(pP, pLeaf, &each);
}

/* $addToSet: a value, or {$each: [...]} alone. */
static void updParseAddToSet(UpdParse *pP, UpdLeaf *pLeaf){
  DocValue *v = &pLeaf->v;
  DocIter it;
  if( v->type==DOC_DOCUMENT ){
    docextIterInitValue(&it, v);
    if( docextIterNext(&it) && strcmp(it.zKey, "$each")==0 ){
      DocValue each = it.v;
      if( each.type!=DOC_ARRAY ){
        updParseError(pP, "docext: The argument to $each in $addToSet must be an "
                       "array but it was of type %s", docextTypeAlias(each.type));
        return;
      }
      if( docextIterNext(&it) ){
        updParseErrorValue(pP, "Found unexpected fields after $each in $addToSet: ",
                        0, v, "");
        return;
      }
      updLeafSetValues(pP, pLeaf, &each);
      return;
    }
  }
  updLeafSetValues(pP, pLeaf, 0);
}

/* Is zName an operator that applies to a value ({$gt: 5}), so that $pull
** matches elements against it as a wrapped value rather than as a filter
** on document elements? (MongoDB's path-accepting keywords.) */
static int updIsValueOperator(const char *zName){
  static const char *azOp[] = {
    "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists",
    "$type", "$mod", "$regex", "$options", "$size", "$all", "$elemMatch",
    "$not", "$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear",
    "$near", "$nearSphere", "$geoWithin", "$geoIntersects", "$within",
    "$maxDistance", "$minDistance",
  };
  size_t i;
  for(i=0; i<sizeof(azOp)/sizeof(azOp[0]); i++){
    if( strcmp(zName, azOp[i])==0 ) return 1;
  }
  return 0;
}

/* $pull: compile the condition. */
static void updParsePull(UpdParse *pP, UpdLeaf *pLeaf){
  DocValue *v = &pLeaf->v;
  DocBuf filter;
  const u8 *aFilter = 0;
  DocIter it;
  int rc = SQLITE_OK;
  if( v->type==DOC_DOCUMENT ){
    docextIterInitValue(&it, v);
    if( docextIterNext(&it) && updIsValueOperator(it.zKey) ){
      pLeaf->ePull = UPULL_WRAPPED;
    }else{
      pLeaf->ePull = UPULL_OBJECT;
      aFilter = v->p;
    }
  }else if( v->type==DOC_REGEX ){
    pLeaf->ePull = UPULL_WRAPPED;
  }else{
    pLeaf->ePull = UPULL_EQUAL;
    return;
  }
  memset(&filter, 0, sizeof(filter));
  if( pLeaf->ePull==UPULL_WRAPPED ){
    i64 iStart = docextBsonStartDoc(&rc, &filter);
    docextBsonAppendValue(&rc, &filter, "", 0, v);
    docextBsonEndDoc(&rc, &filter, iStart);
    aFilter = filter.a;
  }
  if( rc==SQLITE_OK ){
    char *zErr = 0;
    rc = docextMatcherNewColl(aFilter, 0, 0, pLeaf->pCollator, &pLeaf->pMatch, &zErr);
    if( rc==SQLITE_OK && docextMatcherWholeOp(pLeaf->pMatch) ){
      rc = docextError(&zErr, "docext: %s can only be applied to the top-level document",
                       docextMatcherWholeOp(pLeaf->pMatch));
    }
    if( rc!=SQLITE_OK ){
      if( zErr ){
        updParseError(pP, "docext: $pull on '%.*s': %s", pLeaf->nPath, pLeaf->zPath, zErr+8);
        if( pP->rc==SQLITE_ERROR && rc!=SQLITE_ERROR ) pP->rc = rc;
      }else{
        pP->rc = rc;
      }
      sqlite3_free(zErr);
    }
  }else{
    pP->rc = rc;
  }
  docextBufFree(&filter);
}

/* $bit: {and: n, or: n, xor: n}, each an int32 or int64. */
static void updParseBit(UpdParse *pP, UpdLeaf *pLeaf){
  DocIter it;
  int n = 0;
  if( pLeaf->v.type!=DOC_DOCUMENT ){
    updParseError(pP, "docext: The $bit modifier is not compatible with a %s. You "
                   "must pass in an embedded document: {$bit: {field: {and/or/xor: #}}",
                   docextTypeAlias(pLeaf->v.type));
    return;
  }
  docextIterInitValue(&it, &pLeaf->v);
  while( docextIterNext(&it) && pP->rc==SQLITE_OK ){
    n++;
    if( strcmp(it.zKey, "and") && strcmp(it.zKey, "or") && strcmp(it.zKey, "xor") ){
      DocBuf msg;
      int rc = SQLITE_OK;
      memset(&msg, 0, sizeof(msg));
      docextBufAppendf(&rc, &msg, "docext: The $bit modifier only supports 'and', "
                       "'or', and 'xor', not '%s' which is an unknown operator: {%s: ",
                       it.zKey, it.zKey);
      updMsgValue(&rc, &msg, &it.v);
      docextBufAppendStr(&rc, &msg, "}");
      pP->rc = updMsgFinish(rc==SQLITE_OK ? SQLITE_ERROR : rc, &msg, &pP->zErr);
    }else if( it.v.type!=DOC_INT32 && it.v.type!=DOC_INT64 ){
      DocBuf msg;
      int rc = SQLITE_OK;
      memset(&msg, 0, sizeof(msg));
      docextBufAppendf(&rc, &msg, "docext: The $bit modifier field must be an "
                       "Integer(32/64 bit); a '%s' is not supported here: {%s: ",
                       docextTypeAlias(it.v.type), it.zKey);
      updMsgValue(&rc, &msg, &it.v);
      docextBufAppendStr(&rc, &msg, "}");
      pP->rc = updMsgFinish(rc==SQLITE_OK ? SQLITE_ERROR : rc, &msg, &pP->zErr);
    }
  }
  if( n==0 ){
    updParseError(pP, "docext: You must pass in at least one bitwise operation. "
                   "The format is: {$bit: {field: {and/or/xor: #}}");
  }
}

/* $currentDate: {field: true} or {field: {$type: "date" | "timestamp"}}. */
static void updParseCurrentDate(UpdParse *pP, const char *zPath, int nPath, const DocValue *v){
  static const char zNeedType[] = "docext: The '$type' string field is required to be "
      "'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}";
  UpdLeaf *pLeaf;
  int bType = 0;       /* 1: date, 2: timestamp */
  if( v->type==DOC_DOCUMENT ){
    DocIter it;
    docextIterInitValue(&it, v);
    while( docextIterNext(&it) && pP->rc==SQLITE_OK ){
      int n = 0;
      const char *z;
      if( strcmp(it.zKey, "$type")!=0 ){
        updParseError(pP, "docext: Unrecognized $currentDate option: %s", it.zKey);
        break;
      }
      z = it.v.type==DOC_STRING ? docextValueStr(&it.v, &n) : "";
      if( n==4 && memcmp(z, "date", 4)==0 ) bType = 1;
      else if( n==9 && memcmp(z, "timestamp", 9)==0 ) bType = 2;
      else updParseError(pP, "%s", zNeedType);
    }
    if( pP->rc==SQLITE_OK && !bType ) updParseError(pP, "%s", zNeedType);
  }else if( v->type!=DOC_BOOL ){
    updParseErrorValue(pP, "", zPath, v, " is not valid type for $currentDate. "
                    "Please use a boolean ('true') or a $type expression "
                    "({$type: 'timestamp/date'}).");
  }
  if( pP->rc!=SQLITE_OK ) return;
  pLeaf = updLeafNew(pP, UOP_CURRENTDATE, zPath, nPath, v);
  if( pLeaf ) pLeaf->bTimestamp = bType==2;
  updTreeAdd(pP, zPath, nPath, pLeaf);
}

/* Does the path have a '$' component ("a.$", "a.$[x]")? */
static int updPathDynamic(const char *z, int n){
  int i;
  for(i=0; i<n; i++){
    if( z[i]=='$' && (i==0 || z[i-1]=='.') ) return 1;
  }
  return 0;
}

/* $rename: {from: "to"}: two leaves, one at each end. */
static void updParseRename(UpdParse *pP, const char *zPath, int nPath, const DocValue *v){
  const char *zTo;
  int nTo, nMin;
  UpdLeaf *pFrom, *pTo;
  if( v->type!=DOC_STRING ){
    updParseErrorValue(pP, "The 'to' field for $rename must be a string: ", zPath, v, "");
    return;
  }
  zTo = docextValueStr(v, &nTo);
  if( (int)strlen(zTo)!=nTo ){
    updParseError(pP, "docext: The 'to' field for $rename contains a NUL byte");
    return;
  }
  updPathCheck(pP, zTo, nTo, 0);
  if( pP->rc!=SQLITE_OK ) return;
  if( updPathDynamic(zPath, nPath) ){
    updParseError(pP, "docext: The source field for $rename may not be "
                   "dynamic: %.*s", nPath, zPath);
    return;
  }
  if( updPathDynamic(zTo, nTo) ){
    updParseError(pP, "docext: The destination field for $rename may not "
                   "be dynamic: %.*s", nTo, zTo);
    return;
  }
  if( nPath==nTo && memcmp(zPath, zTo, nPath)==0 ){
    updParseError(pP, "docext: The source and target field for $rename must "
                   "differ: %.*s: \"%.*s\"", nPath, zPath, nTo, zTo);
    return;
  }
  nMin = nPath<nTo ? nPath : nTo;
  if( memcmp(zPath, zTo, nMin)==0
   && ((nPath>nTo && zPath[nTo]=='.') || (nTo>nPath && zTo[nPath]=='.')) ){
    updParseError(pP, "docext: The source and target field for $rename must "
                   "not be on the same path: %.*s: \"%.*s\"", nPath, zPath, nTo, zTo);
    return;
  }
  pFrom = updLeafNew(pP, UOP_RENAME, zPath, nPath, v);
  pTo = updLeafNew(pP, UOP_RENAME, zTo, nTo, v);
  if( pP->rc!=SQLITE_OK ) return;
  pFrom->bFrom = 1;
  pFrom->iRename = pTo->iRename = pP->p->nRename++;
  pFrom->zFrom = pTo->zFrom = zPath;
  pFrom->nFrom = pTo->nFrom = nPath;
  pFrom->zTo = pTo->zTo = zTo;
  pFrom->nTo = pTo->nTo = nTo;
  updTreeAdd(pP, zPath, nPath, pFrom);
  updTreeAdd(pP, zTo, nTo, pTo);
}

/* One (path, operand) of operator eOp. */
static void updParseEntry(UpdParse *pP, int eOp, const char *zOp, DocIter *pIt){
  const char *zPath = pIt->zKey;
  int nPath = pIt->nKey;
  const DocValue *v = &pIt->v;
  UpdLeaf *pLeaf;
  double d;

  updPathCheck(pP, zPath, nPath, eOp==UOP_SETONINSERT);
  if( pP->rc!=SQLITE_OK ) return;
  switch( eOp ){
    case UOP_INC: case UOP_MUL:
      if( !docextValueIsNumber(v) ){
        updParseErrorValue(pP, eOp==UOP_INC ? "Cannot increment with non-numeric argument: {"
                                         : "Cannot multiply with non-numeric argument: {",
                        zPath, v, "}");
        return;
      }
      break;
    case UOP_CURRENTDATE:
      updParseCurrentDate(pP, zPath, nPath, v);
      return;
    case UOP_POP:
      d = docextValueIsNumber(v) ? docextValueToDouble(v) : 0.0;
      if( d!=1.0 && d!=-1.0 ){
        updParseErrorValue(pP, "$pop expects 1 or -1, found: ", 0, v, "");
        return;
      }
      break;
    case UOP_PULLALL:
    case UOP_PUSHALL:
      if( v->type!=DOC_ARRAY ){
        updParseError(pP, "docext: %s requires an array argument but was given a %s",
                   zOp, docextTypeAlias(v->type));
        return;
      }
      break;
    case UOP_RENAME:
      updParseRename(pP, zPath, nPath, v);
      return;
    case UOP_BIT:
      break;
  }
  pLeaf = updLeafNew(pP, eOp, zPath, nPath, v);
  if( pLeaf==0 ) return;
  switch( eOp ){
    case UOP_PUSH:     updParsePush(pP, pLeaf); break;
    case UOP_PUSHALL:  updLeafSetValues(pP, pLeaf, v); break;
    case UOP_ADDTOSET: updParseAddToSet(pP, pLeaf); break;
    case UOP_PULLALL:  updLeafSetValues(pP, pLeaf, v); break;
    case UOP_PULL:     updParsePull(pP, pLeaf); break;
    case UOP_BIT:      updParseBit(pP, pLeaf); break;
    case UOP_POP:      pLeaf->iPop = docextValueToDouble(v)>0 ? 1 : -1; break;
  }
  updTreeAdd(pP, zPath, nPath, pLeaf);
}

/* The identifier of an array filter: the first component of its top-level
** field names (looking inside $and, $or and $nor), which must all agree. */
static void updFilterIdentifier(UpdParse *pP, const u8 *aFilter, const char **pzId, int *pnId){
  DocIter it;
  docextIterInit(&it, aFilter);
  while( docextIterNext(&it) && pP->rc==SQLITE_OK ){
    if( it.zKey[0]=='$' ){
      if( (strcmp(it.zKey, "$and")==0 || strcmp(it.zKey, "$or")==0
        || strcmp(it.zKey, "$nor")==0) && it.v.type==DOC_ARRAY ){
        DocIter sub;
        docextIterInitValue(&sub, &it.v);
        while( docextIterNext(&sub) ){
          if( sub.v.type==DOC_DOCUMENT ) updFilterIdentifier(pP, sub.v.p, pzId, pnId);
        }
      }
    }else{
      const char *zDot = memchr(it.zKey, '.', it.nKey);
      int n = zDot ? (int)(zDot - it.zKey) : it.nKey;
      if( *pzId==0 ){
        int i, bOk = n>0 && it.zKey[0]>='a' && it.zKey[0]<='z';
        for(i=1; bOk && i<n; i++){
          char c = it.zKey[i];
          bOk = (c>='a' && c<='z') || (c>='A' && c<='Z') || (c>='0' && c<='9');
        }
        if( !bOk ){
          updParseError(pP, "docext: Error parsing array filter :: caused by :: The "
                         "top-level field name must be an alphanumeric string "
                         "beginning with a lowercase letter, found '%.*s'", n, it.zKey);
          return;
        }
        *pzId = it.zKey;
        *pnId = n;
      }else if( *pnId!=n || memcmp(*pzId, it.zKey, n)!=0 ){
        updParseError(pP, "docext: Error parsing array filter :: caused by :: "
                       "Expected a single top-level field name, found '%.*s' "
                       "and '%.*s'", *pnId, *pzId, n, it.zKey);
        return;
      }
    }
  }
}

/* Compile the arrayFilters of the options. */
static void updParseFilters(UpdParse *pP, const u8 *aOptions){
  DocValue arr;
  DocIter it;
  int n = 0;
  DocUpdate *p = pP->p;
  if( aOptions==0 || !docextBsonFind(aOptions, "arrayFilters", 12, &arr) ) return;
  if( arr.type!=DOC_ARRAY ){
    updParseError(pP, "docext: arrayFilters must be an array of documents, not %s",
               docextTypeAlias(arr.type));
    return;
  }
  docextIterInitValue(&it, &arr);
  while( docextIterNext(&it) ) n++;
  if( n==0 ) return;
  p->aFilter = updParseAlloc(pP, sizeof(UpdFilter)*(i64)n);
  if( p->aFilter==0 ) return;
  docextIterInitValue(&it, &arr);
  while( docextIterNext(&it) && pP->rc==SQLITE_OK ){
    UpdFilter *pF;
    const char *zId = 0;
    int nId = 0, i;
    if( it.v.type!=DOC_DOCUMENT ){
      updParseError(pP, "docext: arrayFilters must be an array of documents, found %s",
                 docextTypeAlias(it.v.type));
      return;
    }
    updFilterIdentifier(pP, it.v.p, &zId, &nId);
    if( pP->rc!=SQLITE_OK ) return;
    if( zId==0 ){
      updParseError(pP, "docext: Cannot use an expression without a top-level field "
                     "name in arrayFilters");
      return;
    }
    for(i=0; i<p->nFilter; i++){
      if( p->aFilter[i].nId==nId && memcmp(p->aFilter[i].zId, zId, nId)==0 ){
        updParseError(pP, "docext: Found multiple array filters with the same "
                       "top-level field name %.*s", nId, zId);
        return;
      }
    }
    pF = &p->aFilter[p->nFilter++];
    pF->zId = zId;
    pF->nId = nId;
    {
      char *zErr = 0;
      int rc = docextMatcherNewColl(it.v.p, 0, 0, p->pCollator, &pF->pMatch, &zErr);
      if( rc==SQLITE_OK && docextMatcherWholeOp(pF->pMatch) ){
        rc = docextError(&zErr, "docext: %s is not allowed in the context of an array filter",
                         docextMatcherWholeOp(pF->pMatch));
      }
      if( rc!=SQLITE_OK ){
        if( zErr ){
          updParseError(pP, "docext: Error parsing array filter :: caused by :: %s", zErr+8);
        }else{
          pP->rc = rc;
        }
        sqlite3_free(zErr);
      }
    }
  }
}

void docextUpdateFree(DocUpdate *p){
  int i;
  if( p==0 ) return;
  updNodeFree(p->pRoot);
  while( p->pLeaves ){
    UpdLeaf *pLeaf = p->pLeaves;
    p->pLeaves = pLeaf->pNext;
    sqlite3_free(pLeaf->aVal);
    sqlite3_free(pLeaf->aSort);
    docextMatcherFree(pLeaf->pMatch);
    sqlite3_free(pLeaf);
  }
  for(i=0; i<p->nFilter; i++) docextMatcherFree(p->aFilter[i].pMatch);
  sqlite3_free(p->aFilter);
  sqlite3_free(p->aUpdate);
  sqlite3_free(p->aOptions);
  docextPipelineFree(p->pPipeline);
  docextCollatorFree(p->pCollator);
  sqlite3_free(p);
}

/* Operators or a replacement? Decided by the first field, as MongoDB does;
** the other fields must agree. A replacement has no $[<identifier>], so it
** takes no array filter. */
static void updParseKind(UpdParse *pP){
  DocUpdate *p = pP->p;
  const char *zFirstOp = 0, *zFirstField = 0;
  DocIter it;
  DocValue arr;
  docextIterInit(&it, p->aUpdate);
  while( docextIterNext(&it) ){
    if( it.zKey[0]=='$' ){
      if( zFirstOp==0 ) zFirstOp = it.zKey;
    }else{
      if( zFirstField==0 ) zFirstField = it.zKey;
    }
  }
  if( zFirstOp && zFirstField ){
    updParseError(pP, "docext: an update cannot mix operators and plain fields "
                      "('%s' and '%s'): use only operators, or a replacement "
                      "document without operators", zFirstOp, zFirstField);
  }
  p->bReplace = zFirstOp==0;
  if( p->bReplace && p->aOptions && pP->rc==SQLITE_OK
   && docextBsonFind(p->aOptions, "arrayFilters", 12, &arr) ){
    int bAny = arr.type!=DOC_ARRAY;
    if( !bAny ){
      docextIterInitValue(&it, &arr);
      bAny = docextIterNext(&it);
    }
    if( bAny ){
      updParseError(pP, "docext: arrayFilters cannot be used with a replacement "
                        "document (no $[<identifier>] to apply them to)");
    }
  }
}

/* One operator's document ({$set: {…}}) into the tree. */
static void updParseOperator(UpdParse *pP, const DocIter *pOp){
  DocIter sub;
  size_t i;
  int eOp = 0, n = 0;
  for(i=0; i<sizeof(aUpdOp)/sizeof(aUpdOp[0]); i++){
    if( strcmp(pOp->zKey, aUpdOp[i].zName)==0 ) eOp = aUpdOp[i].eOp;
  }
  if( eOp==0 ){
    updParseError(pP, "docext: Unknown modifier: %s. Expected a valid update "
                      "modifier", pOp->zKey);
    return;
  }
  if( pOp->v.type!=DOC_DOCUMENT ){
    DocBuf msg;
    int rc = SQLITE_OK;
    memset(&msg, 0, sizeof(msg));
    docextBufAppendf(&rc, &msg, "docext: Modifiers operate on fields but we "
                     "found type %s instead. For example: {$mod: {<field>: "
                     "...}} not {%s: ", docextTypeAlias(pOp->v.type), pOp->zKey);
    updMsgValue(&rc, &msg, &pOp->v);
    docextBufAppendStr(&rc, &msg, "}");
    pP->rc = updMsgFinish(rc==SQLITE_OK ? SQLITE_ERROR : rc, &msg, &pP->zErr);
    return;
  }
  docextIterInitValue(&sub, &pOp->v);
  while( pP->rc==SQLITE_OK && docextIterNext(&sub) ){
    n++;
    updParseEntry(pP, eOp, pOp->zKey, &sub);
  }
  if( n==0 ){
    updParseError(pP, "docext: '%s' is empty. You must specify a field like "
                      "so: {%s: {<field>: ...}}", pOp->zKey, pOp->zKey);
  }
}

/* An operator update: its array filters, then the tree of its operators;
** every array filter must be used. */
static void updParseOperators(UpdParse *pP){
  DocUpdate *p = pP->p;
  DocIter it;
  int i;
  updParseFilters(pP, p->aOptions);
  p->pRoot = updNodeNew(pP, UNODE_OBJECT, "", 0);
  docextIterInit(&it, p->aUpdate);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ) updParseOperator(pP, &it);
  for(i=0; pP->rc==SQLITE_OK && i<p->nFilter; i++){
    if( !p->aFilter[i].bUsed ){
      updParseError(pP, "docext: The array filter for identifier '%.*s' was "
                        "not used in the update", p->aFilter[i].nId, p->aFilter[i].zId);
    }
  }
}

int docextUpdateNew(const u8 *aUpdate, const u8 *aOptions, DocUpdate **ppOut, char **pzErr){
  UpdParse parse;
  DocUpdate *p;

  *ppOut = 0;
  memset(&parse, 0, sizeof(parse));
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  parse.p = p;
  /* (the tree points into its own copies of the arguments) */
  p->aUpdate = docextBsonCopy(aUpdate);
  if( aOptions ) p->aOptions = docextBsonCopy(aOptions);
  if( p->aUpdate==0 || (aOptions && p->aOptions==0) ){
    docextUpdateFree(p);
    return SQLITE_NOMEM;
  }
  parse.rc = docextCollatorOption(p->aOptions, &p->pCollator, &parse.zErr);
  if( parse.rc==SQLITE_OK ) updParseKind(&parse);
  if( !p->bReplace && parse.rc==SQLITE_OK ) updParseOperators(&parse);
  if( parse.rc!=SQLITE_OK ){
    docextUpdateFree(p);
    *pzErr = parse.zErr;
    return parse.rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

int docextUpdateNewPipeline(const u8 *aStages, const u8 *aOptions, i64 nowMs,
                            DocUpdate **ppOut, char **pzErr){
  DocUpdate *p;
  DocValue v;
  const u8 *aLet = 0;
  int rc;
  *ppOut = 0;
  if( aOptions && docextBsonFind(aOptions, "arrayFilters", 12, &v) ){
    return docextError(pzErr, "docext: arrayFilters may not be given with a pipeline update");
  }
  rc = docextExprLetOption(aOptions, &aLet, pzErr);
  if( rc ) return rc;
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  rc = docextCollatorOption(aOptions, &p->pCollator, pzErr);
  if( rc==SQLITE_OK ) rc = docextPipelineNew(aStages, aLet, nowMs, p->pCollator, &p->pPipeline, pzErr);
  if( rc ){
    docextUpdateFree(p);
    return rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

DocCollator *docextUpdateCollator(DocUpdate *p){
  return p->pCollator;
}

int docextUpdateIsReplacement(DocUpdate *p){
  return p->bReplace;
}

int docextUpdateIsPositional(DocUpdate *p){
  return p->bPositional;
}

int docextUpdateAppends(DocUpdate *p, DocAppend *aOut, int nMax){
  UpdLeaf *pLeaf;
  int n = 0;
  if( p->bReplace || p->bPositional || p->nFilter>0 ) return 0;
  for(pLeaf=p->pLeaves; pLeaf; pLeaf=pLeaf->pNext){
    int i;
    if( (pLeaf->eOp!=UOP_PUSH && pLeaf->eOp!=UOP_PUSHALL)
     || pLeaf->iSort || pLeaf->bSlice || pLeaf->bPosition || n>=nMax ){
      return 0;
    }
    for(i=0; i<pLeaf->nPath; i++){
      if( pLeaf->zPath[i]=='$' && (i==0 || pLeaf->zPath[i-1]=='.') ) return 0;
    }
    aOut[n].zPath = pLeaf->zPath;
    aOut[n].nPath = pLeaf->nPath;
    aOut[n].aVal = pLeaf->aVal;
    aOut[n].nVal = pLeaf->nVal;
    n++;
  }
  return n;
}


/*------------------------------------------------------------------------
** Applying
*/

/* A $rename's source, looked up in the original document. */
typedef struct UpdRename UpdRename;
struct UpdRename {
  int bFound;
  DocValue v;
};

struct UpdApply {
  DocUpdate *p;
  const u8 *aDoc;           /* the document being updated */
  int iPos;                 /* what "$" stands for */
  int bInsert;              /* upsert: $setOnInsert applies */
  DocBuf *pOut;             /* the new document */
  int rc;                   /* sticky */
  char *zErr;
  DocBuf path;              /* path of the current element, for messages */
  UpdRename *aRename;       /* p->nRename sources */
  DocBuf scratch;           /* {id: element} for filters */
  char zPos[16];            /* "$" as a name */
  int nPos;
};

/* One child of the nodes being applied at one place, under its name. */
struct UpdEntry {
  const char *z;            /* name ("$" resolved to the index) */
  int n;
  i64 iIdx;                 /* the name as an array index, or -1 */
  UpdNode *pNode;
};

static void updApplyNodes(UpdApply *pA, UpdNode **apNode, int nNode, const char *zKey,
                       int nKey, const DocValue *pOld, int bInArray, int iDepth);

static void updApplyError(UpdApply *pA, const char *zFmt, ...){
  va_list ap;
  if( pA->rc!=SQLITE_OK ) return;
  va_start(ap, zFmt);
  pA->rc = docextErrorV(&pA->zErr, zFmt, ap);
  va_end(ap);
}

static void updApplyErrorMsg(UpdApply *pA, int rc, DocBuf *pMsg){
  if( pA->rc!=SQLITE_OK ){
    docextBufFree(pMsg);
    return;
  }
  pA->rc = updMsgFinish(rc==SQLITE_OK ? SQLITE_ERROR : rc, pMsg, &pA->zErr);
}

/* "{_id: 1}" for messages, "{}" when the document has no _id. */
static void updMsgDocId(UpdApply *pA, int *pRc, DocBuf *pMsg){
  DocValue id;
  if( docextBsonFind(pA->aDoc, "_id", 3, &id) ){
    docextBufAppendStr(pRc, pMsg, "{_id: ");
    updMsgValue(pRc, pMsg, &id);
    docextBufAppendStr(pRc, pMsg, "}");
  }else{
    docextBufAppendStr(pRc, pMsg, "{}");
  }
}

/* The current path as a C string (valid until the path changes). */
static const char *updCurPath(UpdApply *pA){
  int rc = SQLITE_OK;
  docextBufAppendByte(&rc, &pA->path, 0);
  if( rc!=SQLITE_OK ){
    if( pA->rc==SQLITE_OK ) pA->rc = rc;
    return "";
  }
  pA->path.n--;
  return (const char*)pA->path.a;
}

static i64 updPathPush(UpdApply *pA, const char *z, int n){
  i64 nOld = pA->path.n;
  int rc = SQLITE_OK;
  if( nOld>0 ) docextBufAppendByte(&rc, &pA->path, '.');
  docextBufAppend(&rc, &pA->path, z, n);
  if( rc!=SQLITE_OK && pA->rc==SQLITE_OK ) pA->rc = rc;
  return nOld;
}

/* Does a value placed in a container at depth iDepth stay within the
** nesting limit? Sets the error if not. */
static int updDepthOk(UpdApply *pA, const DocValue *v, int iDepth){
  if( (v->type==DOC_DOCUMENT || v->type==DOC_ARRAY)
   && iDepth + docextValueDepth(v, DOCEXT_MAX_DEPTH) > DOCEXT_MAX_DEPTH ){
    updApplyError(pA, "docext: the update of '%s' would nest the document deeper "
                   "than %d levels", updCurPath(pA), DOCEXT_MAX_DEPTH);
    return 0;
  }
  return 1;
}

static void updPutValue(UpdApply *pA, const char *zKey, int nKey, const DocValue *v, int iDepth){
  if( updDepthOk(pA, v, iDepth) ){
    docextBsonAppendValue(&pA->rc, pA->pOut, zKey, nKey, v);
  }
}

static void updKeepValue(UpdApply *pA, const char *zKey, int nKey, const DocValue *pOld){
  if( pOld ) docextBsonAppendValue(&pA->rc, pA->pOut, zKey, nKey, pOld);
}

/* Would this leaf create its path where it is missing? (Those that only
** remove, and $setOnInsert outside an insert, do not.) */
static int updLeafCreates(UpdApply *pA, const UpdLeaf *pLeaf){
  switch( pLeaf->eOp ){
    case UOP_UNSET: case UOP_PULL: case UOP_PULLALL: case UOP_POP:
      return 0;
    case UOP_SETONINSERT:
      return pA->bInsert;
    case UOP_RENAME:
      return !pLeaf->bFrom && pA->aRename[pLeaf->iRename].bFound;
  }
  return 1;
}

static int updNodeCreates(UpdApply *pA, const UpdNode *pNode){
  int i;
  if( pNode->eKind==UNODE_LEAF ) return updLeafCreates(pA, pNode->pLeaf);
  if( pNode->pPositional && updNodeCreates(pA, pNode->pPositional) ) return 1;
  for(i=0; i<pNode->nChild; i++){
    if( updNodeCreates(pA, pNode->apChild[i]) ) return 1;
  }
  return 0;
}

static int updNodesCreate(UpdApply *pA, UpdNode **apNode, int nNode){
  int i;
  for(i=0; i<nNode; i++){
    if( updNodeCreates(pA, apNode[i]) ) return 1;
  }
  return 0;
}

/* The first $pop, $pull or $pullAll leaf under pNode, or NULL. They create
** nothing, but, unlike $unset, they need a path that could be created: a
** scalar in the way, or a name that is not an index on an array, is an
** error (MongoDB's checkViability). */
static const UpdLeaf *updNodeCullLeaf(const UpdNode *pNode){
  const UpdLeaf *pLeaf = 0;
  int i;
  if( pNode->eKind==UNODE_LEAF ){
    int e = pNode->pLeaf->eOp;
    return (e==UOP_POP || e==UOP_PULL || e==UOP_PULLALL) ? pNode->pLeaf : 0;
  }
  if( pNode->pPositional ) pLeaf = updNodeCullLeaf(pNode->pPositional);
  for(i=0; i<pNode->nChild && pLeaf==0; i++) pLeaf = updNodeCullLeaf(pNode->apChild[i]);
  return pLeaf;
}

/* "Cannot use the part (b) of (a.b) to traverse the element ({a: 5})" for
** the first of apNode[0..nNode) that holds a $pop, $pull or $pullAll
** leaf; nothing when none does. */
static void updErrorNotViable(UpdApply *pA, UpdNode **apNode, int nNode, const char *zName,
                              int nName, const char *zKey, int nKey, const DocValue *pOld){
  const UpdLeaf *pLeaf = 0;
  DocBuf msg;
  int rc = SQLITE_OK, k;
  for(k=0; k<nNode && pLeaf==0; k++) pLeaf = updNodeCullLeaf(apNode[k]);
  if( pLeaf==0 ) return;
  memset(&msg, 0, sizeof(msg));
  docextBufAppendf(&rc, &msg, "docext: Cannot use the part (%.*s) of (%.*s) to traverse "
                   "the element ({%.*s: ", nName, zName, pLeaf->nPath, pLeaf->zPath, nKey, zKey);
  updMsgValue(&rc, &msg, pOld);
  docextBufAppendStr(&rc, &msg, "})");
  updApplyErrorMsg(pA, rc, &msg);
}

/* "Cannot create field 'x' in element {a: 1}" */
static void updErrorCannotCreate(UpdApply *pA, const char *zName, int nName,
                              const char *zKey, int nKey, const DocValue *pOld){
  DocBuf msg;
  int rc = SQLITE_OK;
  memset(&msg, 0, sizeof(msg));
  docextBufAppendf(&rc, &msg, "docext: Cannot create field '%.*s' in element {%.*s: ",
                   nName, zName, nKey, zKey);
  updMsgValue(&rc, &msg, pOld);
  docextBufAppendStr(&rc, &msg, "}");
  updApplyErrorMsg(pA, rc, &msg);
}

/* For docextSort of entries, by name. */
static int updEntryCmp(void *pCtx, const void *x, const void *y){
  const UpdEntry *a = (const UpdEntry*)x, *b = (const UpdEntry*)y;
  (void)pCtx;
  return updNameCmp(a->z, a->n, b->z, b->n);
}

/* Sort entries by name (a few per node: no allocation for the sizes that
** occur). */
static int updEntrySort(UpdEntry *a, int n){
  UpdEntry aSpace[32], *t = aSpace;
  if( n<2 ) return SQLITE_OK;
  if( n>DOCEXT_COUNT(aSpace) ){
    t = sqlite3_malloc64(sizeof(UpdEntry)*(i64)n);
    if( t==0 ) return SQLITE_NOMEM;
  }
  docextSort(a, n, sizeof(UpdEntry), t, updEntryCmp, 0);
  if( t!=aSpace ) sqlite3_free(t);
  return SQLITE_OK;
}

/* The children of the OBJECT nodes applied to one container, sorted and
** grouped by name: group g is aEnt[aStart[g] .. aStart[g+1]), more than one
** entry when several nodes were merged (a positional "$" among them), and
** apNode[] holds the same entries' nodes, for updApplyNodes. Small sets
** live in the struct itself. */
typedef struct UpdGroups UpdGroups;
struct UpdGroups {
  UpdEntry *aEnt;
  UpdNode **apNode;
  int *aStart;              /* nGrp+1 */
  u8 *aMatched;             /* documents: group g's field was found */
  int nGrp;
  UpdEntry aEntSpace[16];
  UpdNode *apNodeSpace[16];
  int aStartSpace[17];
  u8 aMatchedSpace[16];
};

static int grpN(const UpdGroups *pG, int g){ return pG->aStart[g+1] - pG->aStart[g]; }
static UpdEntry *grpE(const UpdGroups *pG, int g){ return &pG->aEnt[pG->aStart[g]]; }
static UpdNode **grpNodes(const UpdGroups *pG, int g){ return &pG->apNode[pG->aStart[g]]; }

static void updGroupsFree(UpdGroups *pG){
  if( pG->aEnt!=pG->aEntSpace ) sqlite3_free(pG->aEnt);
}

/* Gather, sort and group the children of apNode[]; 0 (pA->rc set) when out
** of memory. */
static int updGroupsInit(UpdApply *pA, UpdGroups *pG, UpdNode **apNode, int nNode){
  int nEnt = 0, i, k;
  int bSorted = nNode==1;             /* one node's children are sorted */
  for(k=0; k<nNode; k++){
    nEnt += apNode[k]->nChild + (apNode[k]->pPositional!=0);
    if( apNode[k]->pPositional ) bSorted = 0;
  }
  if( nEnt>16 ){
    pG->aEnt = sqlite3_malloc64((sizeof(UpdEntry)+sizeof(UpdNode*)+sizeof(int)+1)*(i64)(nEnt+1));
    if( pG->aEnt==0 ){ pA->rc = SQLITE_NOMEM; return 0; }
    pG->apNode = (UpdNode**)&pG->aEnt[nEnt+1];
    pG->aStart = (int*)&pG->apNode[nEnt+1];
    pG->aMatched = (u8*)&pG->aStart[nEnt+1];
  }else{
    pG->aEnt = pG->aEntSpace;
    pG->apNode = pG->apNodeSpace;
    pG->aStart = pG->aStartSpace;
    pG->aMatched = pG->aMatchedSpace;
  }
  nEnt = 0;
  for(k=0; k<nNode; k++){
    UpdNode *pN = apNode[k];
    for(i=0; i<pN->nChild; i++){
      UpdEntry *pE = &pG->aEnt[nEnt++];
      pE->z = pN->apChild[i]->zName;
      pE->n = pN->apChild[i]->nName;
      pE->pNode = pN->apChild[i];
    }
    if( pN->pPositional ){
      UpdEntry *pE = &pG->aEnt[nEnt++];
      pE->z = pA->zPos;
      pE->n = pA->nPos;
      pE->pNode = pN->pPositional;
    }
  }
  if( !bSorted && updEntrySort(pG->aEnt, nEnt)!=SQLITE_OK ){
    pA->rc = SQLITE_NOMEM;
    updGroupsFree(pG);
    return 0;
  }
  pG->nGrp = 0;
  for(i=0; i<nEnt; i++){
    if( i==0 || updEntryCmp(0, &pG->aEnt[i-1], &pG->aEnt[i])!=0 ){
      pG->aStart[pG->nGrp++] = i;
    }
    pG->apNode[i] = pG->aEnt[i].pNode;
    pG->aEnt[i].iIdx = updIndex(pG->aEnt[i].z, pG->aEnt[i].n);
  }
  pG->aStart[pG->nGrp] = nEnt;
  memset(pG->aMatched, 0, pG->nGrp);
  return 1;
}

/* Apply group g to the element named zKey (its old value v, or 0 when it
** is to be created), with zPath on the path that messages show. */
static void updApplyGroup(UpdApply *pA, const UpdGroups *pG, int g, const char *zPath,
                          int nPath, const char *zKey, int nKey, const DocValue *v,
                          int bInArray, int iDepth){
  i64 nOld = updPathPush(pA, zPath, nPath);
  updApplyNodes(pA, grpNodes(pG, g), grpN(pG, g), zKey, nKey, v, bInArray, iDepth);
  pA->path.n = nOld;
}

/* A new document: every group, in name order. */
static void updApplyToNew(UpdApply *pA, const UpdGroups *pG, int iDepth){
  int g;
  for(g=0; g<pG->nGrp && pA->rc==SQLITE_OK; g++){
    UpdEntry *pE = grpE(pG, g);
    updApplyGroup(pA, pG, g, pE->z, pE->n, pE->z, pE->n, 0, 0, iDepth);
  }
}

/* An array pCont (named zKey): the groups name indexes; elements without
** a group are copied in runs; indexes past the end are created, padded
** with nulls as MongoDB does. */
static void updApplyToArray(UpdApply *pA, const UpdGroups *pG, const DocValue *pCont,
                          const char *zKey, int nKey, int iDepth){
  DocIter it;
  int iElem = 0, g = 0, iRun = 4;
  char zIdx[24];
  /* Names that are not indexes cannot exist in an array. */
  for(g=0; g<pG->nGrp && pA->rc==SQLITE_OK; g++){
    UpdEntry *pE = grpE(pG, g);
    if( pE->iIdx<0 && updNodesCreate(pA, grpNodes(pG, g), grpN(pG, g)) ){
      updErrorCannotCreate(pA, pE->z, pE->n, zKey, nKey, pCont);
    }else if( pE->iIdx<0 ){
      updErrorNotViable(pA, grpNodes(pG, g), grpN(pG, g), pE->z, pE->n, zKey, nKey, pCont);
    }
  }
  docextIterInitValue(&it, pCont);
  g = 0;
  while( g<pG->nGrp && grpE(pG, g)->iIdx<0 ) g++;
  while( pA->rc==SQLITE_OK && docextIterNext(&it) ){
    if( g<pG->nGrp && grpE(pG, g)->iIdx==iElem ){
      int n = docextBsonArrayKey(zIdx, iElem);
      docextBufAppend(&pA->rc, pA->pOut, pCont->p + iRun, it.iElem - iRun);
      updApplyGroup(pA, pG, g, zIdx, n, it.zKey, it.nKey, &it.v, 1, iDepth);
      iRun = it.iNext;
      g++;
      while( g<pG->nGrp && grpE(pG, g)->iIdx<0 ) g++;
    }
    iElem++;
  }
  docextBufAppend(&pA->rc, pA->pOut, pCont->p + iRun, (pCont->n - 1) - iRun);
  for(; g<pG->nGrp && pA->rc==SQLITE_OK; g++){
    UpdEntry *pE = grpE(pG, g);
    i64 nMark = pA->pOut->n, nAfterPad, j;
    int n;
    if( pE->iIdx<0 ) continue;
    if( !updNodesCreate(pA, grpNodes(pG, g), grpN(pG, g)) ) continue;
    if( pE->iIdx - iElem > UPD_MAX_PAD ){
      updApplyError(pA, "docext: can't backfill array '%s' to index %lld: more "
                     "than %d elements of padding", updCurPath(pA),
                     (long long)pE->iIdx, UPD_MAX_PAD);
      break;
    }
    for(j=iElem; j<pE->iIdx && pA->rc==SQLITE_OK; j++){
      n = docextBsonArrayKey(zIdx, (int)j);
      docextBsonAppendNull(&pA->rc, pA->pOut, zIdx, n);
      if( pA->pOut->n>DOCEXT_MAX_BSON ) pA->rc = SQLITE_TOOBIG;
    }
    nAfterPad = pA->pOut->n;
    n = docextBsonArrayKey(zIdx, (int)pE->iIdx);
    updApplyGroup(pA, pG, g, zIdx, n, zIdx, n, 0, 1, iDepth);
    if( pA->pOut->n==nAfterPad ){
      pA->pOut->n = nMark;              /* nothing created: no padding either */
    }else{
      iElem = (int)pE->iIdx + 1;
    }
  }
}

/* The group named z[0..n), or -1 (binary search: the groups are sorted). */
static int updGroupFind(const UpdGroups *pG, const char *z, int n){
  int lo = 0, hi = pG->nGrp-1;
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    UpdEntry *pE = grpE(pG, mid);
    int c = updNameCmp(pE->z, pE->n, z, n);
    if( c==0 ) return mid;
    if( c<0 ) lo = mid+1; else hi = mid-1;
  }
  return -1;
}

/* A document pCont: fields that have a group are applied where they stand
** (the first of duplicate names only), the others copied in runs; the
** groups whose fields were not found are created at the end, in name
** order. */
static void updApplyToDocument(UpdApply *pA, UpdGroups *pG, const DocValue *pCont, int iDepth){
  DocIter it;
  int iRun = 4, nMatched = 0, g;
  docextIterInitValue(&it, pCont);
  while( pA->rc==SQLITE_OK && nMatched<pG->nGrp && docextIterNext(&it) ){
    g = updGroupFind(pG, it.zKey, it.nKey);
    if( g>=0 && !pG->aMatched[g] ){
      pG->aMatched[g] = 1;
      nMatched++;
      docextBufAppend(&pA->rc, pA->pOut, pCont->p + iRun, it.iElem - iRun);
      updApplyGroup(pA, pG, g, it.zKey, it.nKey, it.zKey, it.nKey, &it.v, 0, iDepth);
      iRun = it.iNext;
    }
  }
  /* the rest of the container, untouched, in one piece */
  docextBufAppend(&pA->rc, pA->pOut, pCont->p + iRun, (pCont->n - 1) - iRun);
  for(g=0; g<pG->nGrp && pA->rc==SQLITE_OK; g++){
    UpdEntry *pE = grpE(pG, g);
    if( !pG->aMatched[g] ) updApplyGroup(pA, pG, g, pE->z, pE->n, pE->z, pE->n, 0, 0, iDepth);
  }
}

/* Apply the OBJECT nodes apNode[] to the elements of pCont (a document, an
** array when bArray, or NULL while creating a new document), writing the
** elements of the new container to pA->pOut. zKey names pCont in
** messages; iDepth is the depth of pCont's elements' container. */
static void updApplyObject(UpdApply *pA, UpdNode **apNode, int nNode, const DocValue *pCont,
                        const char *zKey, int nKey, int bArray, int iDepth){
  UpdGroups grp;
  if( pA->rc!=SQLITE_OK || !updGroupsInit(pA, &grp, apNode, nNode) ) return;
  if( pCont==0 ){
    updApplyToNew(pA, &grp, iDepth);
  }else if( bArray ){
    updApplyToArray(pA, &grp, pCont, zKey, nKey, iDepth);
  }else{
    updApplyToDocument(pA, &grp, pCont, iDepth);
  }
  if( pA->rc==SQLITE_OK && pA->pOut->n>DOCEXT_MAX_BSON ) pA->rc = SQLITE_TOOBIG;
  updGroupsFree(&grp);
}

/* Match aDoc against pMatch (when aDoc is 0: the document {zKey: v}, made
** in pA->scratch). An error is kept in pA, and is no match. */
static int updMatch(UpdApply *pA, DocMatcher *pMatch, const u8 *aDoc, const char *zKey,
                    int nKey, const DocValue *v){
  int bMatch = 0, rc = SQLITE_OK;
  char *zErr = 0;
  if( aDoc==0 ){
    i64 iStart;
    docextBufReset(&pA->scratch);
    iStart = docextBsonStartDoc(&rc, &pA->scratch);
    docextBsonAppendValue(&rc, &pA->scratch, zKey, nKey, v);
    docextBsonEndDoc(&rc, &pA->scratch, iStart);
    aDoc = pA->scratch.a;
  }
  if( rc==SQLITE_OK ) rc = docextMatcherMatch(pMatch, aDoc, &bMatch, 0, &zErr);
  if( rc!=SQLITE_OK ){
    if( pA->rc==SQLITE_OK ){
      pA->rc = rc;
      pA->zErr = zErr;
    }else{
      sqlite3_free(zErr);
    }
    return 0;
  }
  return bMatch;
}

/* Does element v (of an array) pass the array filter of child pChild? */
static int updFilterMatch(UpdApply *pA, const UpdNode *pChild, const DocValue *v){
  UpdFilter *pF;
  if( pChild->iFilter<0 ) return 1;
  pF = &pA->p->aFilter[pChild->iFilter];
  return updMatch(pA, pF->pMatch, 0, pF->zId, pF->nId, v);
}

/* Apply ARRAY nodes ($[] and $[<id>] children) to the elements of pArr. */
static void updApplyArray(UpdApply *pA, UpdNode **apNode, int nNode, const DocValue *pArr,
                       int iDepth){
  UpdNode *apSpace[16], **apAll = apSpace, **apHit;
  int nAll = 0, i, k, iElem = 0, iRun = 4;
  DocIter it;
  for(k=0; k<nNode; k++) nAll += apNode[k]->nChild;
  if( nAll>8 ){
    apAll = sqlite3_malloc64(sizeof(UpdNode*)*2*(i64)nAll);
    if( apAll==0 ){ pA->rc = SQLITE_NOMEM; return; }
  }
  apHit = &apAll[nAll];
  nAll = 0;
  for(k=0; k<nNode; k++){
    for(i=0; i<apNode[k]->nChild; i++) apAll[nAll++] = apNode[k]->apChild[i];
  }
  docextIterInitValue(&it, pArr);
  while( pA->rc==SQLITE_OK && docextIterNext(&it) ){
    int nHit = 0;
    for(i=0; i<nAll && pA->rc==SQLITE_OK; i++){
      if( updFilterMatch(pA, apAll[i], &it.v) ) apHit[nHit++] = apAll[i];
    }
    if( nHit>0 ){
      char zIdx[24];
      int n = docextBsonArrayKey(zIdx, iElem);
      i64 nOld;
      docextBufAppend(&pA->rc, pA->pOut, pArr->p + iRun, it.iElem - iRun);
      nOld = updPathPush(pA, zIdx, n);
      updApplyNodes(pA, apHit, nHit, it.zKey, it.nKey, &it.v, 1, iDepth);
      pA->path.n = nOld;
      iRun = it.iNext;
    }
    iElem++;
  }
  docextBufAppend(&pA->rc, pA->pOut, pArr->p + iRun, (pArr->n - 1) - iRun);
  if( apAll!=apSpace ) sqlite3_free(apAll);
}

/*------------------------------------------------------------------------
** Leaves
*/

/* The elements of an array value, in *paOut (sqlite3_free it). */
static int updArrayValues(UpdApply *pA, const DocValue *pArr, int nExtra, DocValue **paOut, int *pn){
  DocIter it;
  int n = 0;
  *paOut = 0;
  *pn = 0;
  if( pArr ){
    docextIterInitValue(&it, pArr);
    while( docextIterNext(&it) ) n++;
  }
  *paOut = sqlite3_malloc64(sizeof(DocValue)*((i64)n + nExtra + 1));
  if( *paOut==0 ){
    pA->rc = SQLITE_NOMEM;
    return 0;
  }
  if( pArr ){
    docextIterInitValue(&it, pArr);
    while( docextIterNext(&it) ) (*paOut)[(*pn)++] = it.v;
  }
  return 1;
}

/* Write an array of values under zKey, with canonical keys. */
static void updWriteArray(UpdApply *pA, const char *zKey, int nKey, const DocValue *a, int n){
  i64 iStart = docextBsonStartChild(&pA->rc, pA->pOut, DOC_ARRAY, zKey, nKey);
  int i;
  for(i=0; i<n && pA->rc==SQLITE_OK; i++){
    char zIdx[24];
    int nIdx = docextBsonArrayKey(zIdx, i);
    docextBsonAppendValue(&pA->rc, pA->pOut, zIdx, nIdx, &a[i]);
  }
  docextBsonEndDoc(&pA->rc, pA->pOut, iStart);
}

/* Write pOld (an array, or NULL for none) followed by the values a[0..n),
** copying pOld's elements verbatim. */
static void updWriteAppended(UpdApply *pA, const char *zKey, int nKey, const DocValue *pOld,
                          const DocValue *a, int n){
  i64 iStart = docextBsonStartChild(&pA->rc, pA->pOut, DOC_ARRAY, zKey, nKey);
  int i, nOld = 0;
  if( pOld ){
    DocIter it;
    docextIterInitValue(&it, pOld);
    while( docextIterNext(&it) ) nOld++;
    docextBufAppend(&pA->rc, pA->pOut, pOld->p + 4, pOld->n - 5);
  }
  for(i=0; i<n && pA->rc==SQLITE_OK; i++){
    char zIdx[24];
    int nIdx = docextBsonArrayKey(zIdx, nOld+i);
    docextBsonAppendValue(&pA->rc, pA->pOut, zIdx, nIdx, &a[i]);
    if( pA->pOut->n>DOCEXT_MAX_BSON ) pA->rc = SQLITE_TOOBIG;
  }
  docextBsonEndDoc(&pA->rc, pA->pOut, iStart);
}

/* $push's $sort comparator. */
static const u8 aUpdNothing[1] = {0};

static int updPushCmp(const UpdLeaf *pLeaf, const DocValue *a, const DocValue *b){
  int i, c;
  if( pLeaf->iSort!=2 ){
    c = docextValueCompareColl(a, b, pLeaf->pCollator);
    return pLeaf->iSort<0 ? -c : c;
  }
  /* By fields: each field's value (no traversal of arrays but by index;
  ** missing, or not a document, reads as null), compared in BSON order. */
  for(i=0; i<pLeaf->nSort; i++){
    const UpdSortField *pF = &pLeaf->aSort[i];
    DocValue va, vb;
    va.type = vb.type = DOC_NULL;
    va.p = vb.p = aUpdNothing;
    va.n = vb.n = 0;
    if( a->type==DOC_DOCUMENT ) docextPathGet(a->p, pF->zPath, pF->nPath, &va);
    if( b->type==DOC_DOCUMENT ) docextPathGet(b->p, pF->zPath, pF->nPath, &vb);
    c = docextValueCompareColl(&va, &vb, pLeaf->pCollator);
    if( c ) return pF->iDir<0 ? -c : c;
  }
  return 0;
}

/* For docextSort of values by updPushCmp. */
static int updPushCmpCb(void *pCtx, const void *x, const void *y){
  return updPushCmp((const UpdLeaf*)pCtx, (const DocValue*)x, (const DocValue*)y);
}

/* Sort the values of a $push by its $sort (stable, as MongoDB's). */
static int updPushSort(const UpdLeaf *pLeaf, DocValue *a, int n){
  DocValue *t;
  if( n<2 ) return SQLITE_OK;
  t = sqlite3_malloc64(sizeof(DocValue)*(i64)n);
  if( t==0 ) return SQLITE_NOMEM;
  docextSort(a, n, sizeof(DocValue), t, updPushCmpCb, (void*)pLeaf);
  sqlite3_free(t);
  return SQLITE_OK;
}

static void updLeafPush(UpdApply *pA, const UpdLeaf *pLeaf, const char *zKey, int nKey,
                     const DocValue *pOld, int iDepth){
  DocValue *a = 0;
  int n = 0, i;
  i64 iAt;
  if( pOld && pOld->type!=DOC_ARRAY ){
    DocBuf msg;
    int rc = SQLITE_OK;
    memset(&msg, 0, sizeof(msg));
    docextBufAppendf(&rc, &msg, "docext: The field '%s' must be an array but is of "
                     "type %s in document ", updCurPath(pA), docextTypeAlias(pOld->type));
    updMsgDocId(pA, &rc, &msg);
    updApplyErrorMsg(pA, rc, &msg);
    return;
  }
  for(i=0; i<pLeaf->nVal; i++){
    if( !updDepthOk(pA, &pLeaf->aVal[i], iDepth+1) ) return;
  }
  if( !pLeaf->iSort && !pLeaf->bSlice && !pLeaf->bPosition ){
    updWriteAppended(pA, zKey, nKey, pOld, pLeaf->aVal, pLeaf->nVal);
    return;
  }
  if( !updArrayValues(pA, pOld, pLeaf->nVal, &a, &n) ) return;
  iAt = n;
  if( pLeaf->bPosition ){
    iAt = pLeaf->iPosition;
    if( iAt<0 ){
      iAt = n + iAt;
      if( iAt<0 ) iAt = 0;
    }
    if( iAt>n ) iAt = n;
  }
  memmove(&a[iAt+pLeaf->nVal], &a[iAt], sizeof(DocValue)*(n-iAt));
  memcpy(&a[iAt], pLeaf->aVal, sizeof(DocValue)*pLeaf->nVal);
  n += pLeaf->nVal;
  if( pLeaf->iSort && updPushSort(pLeaf, a, n)!=SQLITE_OK ){
    pA->rc = SQLITE_NOMEM;
  }else{
    const DocValue *aOut = a;
    if( pLeaf->bSlice ){
      i64 s = pLeaf->nSlice;
      if( s>=0 ){
        if( s<n ) n = (int)s;
      }else if( -s<n ){
        aOut = &a[n + s];
        n = (int)-s;
      }
    }
    updWriteArray(pA, zKey, nKey, aOut, n);
  }
  sqlite3_free(a);
}

static void updLeafAddToSet(UpdApply *pA, const UpdLeaf *pLeaf, const char *zKey, int nKey,
                         const DocValue *pOld, int iDepth){
  DocValue *a = 0;
  int n = 0, n0, i, j;
  if( pOld && pOld->type!=DOC_ARRAY ){
    updApplyError(pA, "docext: Cannot apply $addToSet to non-array field. Field named "
                   "'%s' has non-array type %s", updCurPath(pA), docextTypeAlias(pOld->type));
    return;
  }
  if( !updArrayValues(pA, pOld, pLeaf->nVal, &a, &n) ) return;
  n0 = n;
  for(i=0; i<pLeaf->nVal && pA->rc==SQLITE_OK; i++){
    const DocValue *v = &pLeaf->aVal[i];
    for(j=0; j<n; j++){
      if( docextValueCompareColl(&a[j], v, pLeaf->pCollator)==0 ) break;
    }
    if( j==n && updDepthOk(pA, v, iDepth+1) ) a[n++] = *v;
  }
  if( pA->rc==SQLITE_OK ){
    if( pOld && n==n0 ){
      updKeepValue(pA, zKey, nKey, pOld);
    }else{
      updWriteAppended(pA, zKey, nKey, pOld, &a[n0], n-n0);
    }
  }
  sqlite3_free(a);
}

static void updLeafPop(UpdApply *pA, const UpdLeaf *pLeaf, const char *zKey, int nKey,
                    const DocValue *pOld){
  DocValue *a = 0;
  int n = 0;
  if( pOld==0 ) return;
  if( pOld->type!=DOC_ARRAY ){
    updApplyError(pA, "docext: Path '%s' contains an element of non-array type '%s'",
               updCurPath(pA), docextTypeAlias(pOld->type));
    return;
  }
  if( !updArrayValues(pA, pOld, 0, &a, &n) ) return;
  if( n==0 ){
    updKeepValue(pA, zKey, nKey, pOld);
  }else{
    updWriteArray(pA, zKey, nKey, pLeaf->iPop>0 ? a : a+1, n-1);
  }
  sqlite3_free(a);
}

/* Does $pull remove element v? A condition on the element itself
** ({$gte: 6}) is matched as the document {"": v}. */
static int updPullMatch(UpdApply *pA, const UpdLeaf *pLeaf, const DocValue *v){
  switch( pLeaf->ePull ){
    case UPULL_EQUAL:
      return docextValueCompareColl(v, &pLeaf->v, pLeaf->pCollator)==0;
    case UPULL_OBJECT:
      if( v->type!=DOC_DOCUMENT ) return 0;
      return updMatch(pA, pLeaf->pMatch, v->p, 0, 0, 0);
    default:
      return updMatch(pA, pLeaf->pMatch, 0, "", 0, v);
  }
}

static void updLeafPull(UpdApply *pA, const UpdLeaf *pLeaf, const char *zKey, int nKey,
                     const DocValue *pOld){
  DocValue *a = 0;
  int n = 0, nKeep = 0, i, j;
  if( pOld==0 ) return;
  if( pOld->type!=DOC_ARRAY ){
    updApplyError(pA, "docext: Cannot apply %s to a non-array value",
               pLeaf->eOp==UOP_PULL ? "$pull" : "$pullAll");
    return;
  }
  if( !updArrayValues(pA, pOld, 0, &a, &n) ) return;
  for(i=0; i<n && pA->rc==SQLITE_OK; i++){
    int bRemove = 0;
    if( pLeaf->eOp==UOP_PULL ){
      bRemove = updPullMatch(pA, pLeaf, &a[i]);
    }else{
      for(j=0; j<pLeaf->nVal && !bRemove; j++){
        bRemove = docextValueCompareColl(&a[i], &pLeaf->aVal[j], pLeaf->pCollator)==0;
      }
    }
    if( !bRemove ) a[nKeep++] = a[i];
  }
  if( pA->rc==SQLITE_OK ){
    if( nKeep==n ){
      updKeepValue(pA, zKey, nKey, pOld);
    }else{
      updWriteArray(pA, zKey, nKey, a, nKeep);
    }
  }
  sqlite3_free(a);
}

/* $inc and $mul */
static void updLeafArith(UpdApply *pA, const UpdLeaf *pLeaf, const char *zKey, int nKey,
                      const DocValue *pOld){
  int bMul = pLeaf->eOp==UOP_MUL;
  const char *zOp = bMul ? "$mul" : "$inc";
  DocNum a, b, r;
  int rc;
  if( pOld && !docextValueIsNumber(pOld) ){
    DocBuf msg;
    rc = SQLITE_OK;
    memset(&msg, 0, sizeof(msg));
    docextBufAppendf(&rc, &msg, "docext: Cannot apply %s to a value of non-numeric "
                     "type. ", zOp);
    updMsgDocId(pA, &rc, &msg);
    docextBufAppendf(&rc, &msg, " has the field '%s' of non-numeric type %s",
                     updCurPath(pA), docextTypeAlias(pOld->type));
    updApplyErrorMsg(pA, rc, &msg);
    return;
  }
  docextNumFrom(&pLeaf->v, &b);
  if( pOld==0 ){
    if( !bMul ){
      updKeepValue(pA, zKey, nKey, &pLeaf->v);
      return;
    }
    /* $mul of a missing field: zero of the multiplier's type */
    a.type = DOC_INT32;
    a.i = 0;
    rc = docextNumArith(1, &b, &a, &r);
  }else{
    docextNumFrom(pOld, &a);
    rc = docextNumArith(bMul, &a, &b, &r);
  }
  if( rc==SQLITE_RANGE ){
    DocBuf msg;
    rc = SQLITE_OK;
    memset(&msg, 0, sizeof(msg));
    docextBufAppendf(&rc, &msg, "docext: Failed to apply %s operations to current "
                     "value ((%s)%lld) for document ", zOp,
                     a.type==DOC_INT32 ? "NumberInt" : "NumberLong", (long long)a.i);
    updMsgDocId(pA, &rc, &msg);
    updApplyErrorMsg(pA, rc, &msg);
    return;
  }
  if( rc!=SQLITE_OK ){
    pA->rc = rc;
    return;
  }
  docextNumAppend(&pA->rc, pA->pOut, zKey, nKey, &r);
}

static void updLeafBit(UpdApply *pA, const UpdLeaf *pLeaf, const char *zKey, int nKey,
                    const DocValue *pOld){
  int type = DOC_INT32;
  i64 v = 0;
  DocIter it;
  if( pOld ){
    if( pOld->type!=DOC_INT32 && pOld->type!=DOC_INT64 ){
      DocBuf msg;
      int rc = SQLITE_OK;
      memset(&msg, 0, sizeof(msg));
      docextBufAppendStr(&rc, &msg, "docext: Cannot apply $bit to a value of "
                         "non-integral type. ");
      updMsgDocId(pA, &rc, &msg);
      docextBufAppendf(&rc, &msg, " has the field '%s' of non-integer type %s",
                       updCurPath(pA), docextTypeAlias(pOld->type));
      updApplyErrorMsg(pA, rc, &msg);
      return;
    }
    type = pOld->type;
    v = type==DOC_INT32 ? docextValueI32(pOld) : docextValueI64(pOld);
  }
  docextIterInitValue(&it, &pLeaf->v);
  while( docextIterNext(&it) ){
    i64 x = it.v.type==DOC_INT32 ? docextValueI32(&it.v) : docextValueI64(&it.v);
    if( it.v.type==DOC_INT64 ) type = DOC_INT64;
    if( it.zKey[0]=='a' ) v &= x;
    else if( it.zKey[0]=='o' ) v |= x;
    else v ^= x;
  }
  if( type==DOC_INT32 ){
    docextBsonAppendInt32(&pA->rc, pA->pOut, zKey, nKey, (int32_t)v);
  }else{
    docextBsonAppendInt64(&pA->rc, pA->pOut, zKey, nKey, v);
  }
}

/* Apply one leaf at one place: pOld is the element there, or NULL. */
static void updLeafApply(UpdApply *pA, const UpdLeaf *pLeaf, const char *zKey, int nKey,
                      const DocValue *pOld, int bInArray, int iDepth){
  int c;
  switch( pLeaf->eOp ){
    case UOP_SETONINSERT:
      if( !pA->bInsert ){
        updKeepValue(pA, zKey, nKey, pOld);
        break;
      }
      /* fall through */
    case UOP_SET:
      updPutValue(pA, zKey, nKey, &pLeaf->v, iDepth);
      break;
    case UOP_UNSET:
      /* an array element is not removed but set to null */
      if( pOld && bInArray ) docextBsonAppendNull(&pA->rc, pA->pOut, zKey, nKey);
      break;
    case UOP_INC: case UOP_MUL:
      updLeafArith(pA, pLeaf, zKey, nKey, pOld);
      break;
    case UOP_MIN: case UOP_MAX:
      if( pOld==0 ){
        updPutValue(pA, zKey, nKey, &pLeaf->v, iDepth);
        break;
      }
      c = docextValueCompareColl(&pLeaf->v, pOld, pLeaf->pCollator);
      if( pLeaf->eOp==UOP_MIN ? c<0 : c>0 ){
        updPutValue(pA, zKey, nKey, &pLeaf->v, iDepth);
      }else{
        updKeepValue(pA, zKey, nKey, pOld);
      }
      break;
    case UOP_CURRENTDATE: {
      i64 ms = docextClockNowMs();
      if( pLeaf->bTimestamp ){
        i64 secs = ms>=0 ? ms/1000 : -((999-ms)/1000);
        docextBsonAppendKey(&pA->rc, pA->pOut, DOC_TIMESTAMP, zKey, nKey);
        docextBufAppendI64(&pA->rc, pA->pOut, (i64)(((u64)(uint32_t)secs << 32) | 1));
      }else{
        docextBsonAppendDate(&pA->rc, pA->pOut, zKey, nKey, ms);
      }
      break;
    }
    case UOP_RENAME: {
      UpdRename *pR = &pA->aRename[pLeaf->iRename];
      if( pLeaf->bFrom ){
        if( !pR->bFound ) updKeepValue(pA, zKey, nKey, pOld);
      }else if( pR->bFound ){
        updPutValue(pA, zKey, nKey, &pR->v, iDepth);
      }else{
        updKeepValue(pA, zKey, nKey, pOld);
      }
      break;
    }
    case UOP_PUSH: case UOP_PUSHALL:
      updLeafPush(pA, pLeaf, zKey, nKey, pOld, iDepth);
      break;
    case UOP_ADDTOSET:
      updLeafAddToSet(pA, pLeaf, zKey, nKey, pOld, iDepth);
      break;
    case UOP_POP:
      updLeafPop(pA, pLeaf, zKey, nKey, pOld);
      break;
    case UOP_PULL: case UOP_PULLALL:
      updLeafPull(pA, pLeaf, zKey, nKey, pOld);
      break;
    case UOP_BIT:
      updLeafBit(pA, pLeaf, zKey, nKey, pOld);
      break;
  }
}

/* Apply the nodes apNode[0..nNode) — one, or several that met at this
** place and merge — to the element zKey, whose value is pOld (NULL:
** missing). bInArray: the element is in an array. iDepth: depth of the
** container the element is in. */
static void updApplyNodes(UpdApply *pA, UpdNode **apNode, int nNode, const char *zKey,
                       int nKey, const DocValue *pOld, int bInArray, int iDepth){
  UpdNode *pNode = apNode[0];
  int k;
  if( pA->rc!=SQLITE_OK ) return;
  for(k=1; k<nNode; k++){
    if( apNode[k]->eKind!=pNode->eKind || pNode->eKind==UNODE_LEAF ){
      updApplyError(pA, "docext: Update created a conflict at '%s'", updCurPath(pA));
      return;
    }
  }
  switch( pNode->eKind ){
    case UNODE_LEAF:
      updLeafApply(pA, pNode->pLeaf, zKey, nKey, pOld, bInArray, iDepth);
      break;
    case UNODE_OBJECT:
      if( pOld==0 ){
        /* create the document, unless nothing would be in it */
        i64 nMark = pA->pOut->n, iStart, nEmpty;
        if( iDepth+1>DOCEXT_MAX_DEPTH && updNodesCreate(pA, apNode, nNode) ){
          updApplyError(pA, "docext: the update of '%s' would nest the document "
                         "deeper than %d levels", updCurPath(pA), DOCEXT_MAX_DEPTH);
          return;
        }
        iStart = docextBsonStartChild(&pA->rc, pA->pOut, DOC_DOCUMENT, zKey, nKey);
        nEmpty = pA->pOut->n;
        updApplyObject(pA, apNode, nNode, 0, zKey, nKey, 0, iDepth+1);
        if( pA->rc==SQLITE_OK && pA->pOut->n==nEmpty ){
          pA->pOut->n = nMark;
        }else{
          docextBsonEndDoc(&pA->rc, pA->pOut, iStart);
        }
      }else if( pOld->type==DOC_DOCUMENT || pOld->type==DOC_ARRAY ){
        i64 iStart = docextBsonStartChild(&pA->rc, pA->pOut, pOld->type, zKey, nKey);
        updApplyObject(pA, apNode, nNode, pOld, zKey, nKey, pOld->type==DOC_ARRAY, iDepth+1);
        docextBsonEndDoc(&pA->rc, pA->pOut, iStart);
      }else{
        /* a scalar in the way: only leaves that create nothing may pass */
        for(k=0; k<nNode && pA->rc==SQLITE_OK; k++){
          UpdNode *pN = apNode[k];
          int i;
          const UpdNode *pBad = 0;
          const char *zName = 0;
          int nName = 0;
          for(i=0; i<pN->nChild && pBad==0; i++){
            if( updNodeCreates(pA, pN->apChild[i]) ){
              pBad = pN->apChild[i];
              zName = pBad->zName;
              nName = pBad->nName;
            }
          }
          if( pBad==0 && pN->pPositional && updNodeCreates(pA, pN->pPositional) ){
            pBad = pN->pPositional;
            zName = pA->zPos;
            nName = pA->nPos;
          }
          if( pBad ) updErrorCannotCreate(pA, zName, nName, zKey, nKey, pOld);
        }
        for(k=0; k<nNode && pA->rc==SQLITE_OK; k++){
          UpdNode *pN = apNode[k];
          int i;
          for(i=0; i<pN->nChild && pA->rc==SQLITE_OK; i++){
            updErrorNotViable(pA, &pN->apChild[i], 1, pN->apChild[i]->zName,
                              pN->apChild[i]->nName, zKey, nKey, pOld);
          }
          if( pN->pPositional ){
            updErrorNotViable(pA, &pN->pPositional, 1, pA->zPos, pA->nPos, zKey, nKey, pOld);
          }
        }
        updKeepValue(pA, zKey, nKey, pOld);
      }
      break;
    case UNODE_ARRAY:
      if( pOld==0 ){
        updApplyError(pA, "docext: The path '%s' must exist in the document in order "
                       "to apply array updates.", updCurPath(pA));
      }else if( pOld->type!=DOC_ARRAY ){
        DocBuf msg;
        int rc = SQLITE_OK;
        memset(&msg, 0, sizeof(msg));
        docextBufAppendf(&rc, &msg, "docext: Cannot apply array updates to non-array "
                         "element %.*s: ", nKey, zKey);
        updMsgValue(&rc, &msg, pOld);
        updApplyErrorMsg(pA, rc, &msg);
      }else{
        i64 iStart = docextBsonStartChild(&pA->rc, pA->pOut, DOC_ARRAY, zKey, nKey);
        updApplyArray(pA, apNode, nNode, pOld, iDepth+1);
        docextBsonEndDoc(&pA->rc, pA->pOut, iStart);
      }
      break;
  }
}

/* Look up each $rename's source in the original document and check that
** neither the source nor the destination is inside an array (MongoDB's
** rules; checked only when the source exists, as MongoDB does). */
static void updResolveRenames(UpdApply *pA){
  UpdLeaf *pLeaf;
  for(pLeaf=pA->p->pLeaves; pLeaf && pA->rc==SQLITE_OK; pLeaf=pLeaf->pNext){
    UpdRename *pR;
    DocValue cur;
    int i = 0;
    const char *zArray = 0;
    int nArray = 0;
    if( pLeaf->eOp!=UOP_RENAME || !pLeaf->bFrom ) continue;
    pR = &pA->aRename[pLeaf->iRename];
    cur.type = DOC_DOCUMENT;
    cur.p = pA->aDoc;
    cur.n = docextGetI32(pA->aDoc);
    /* source */
    while( 1 ){
      const char *z = &pLeaf->zFrom[i];
      const char *zDot = memchr(z, '.', pLeaf->nFrom - i);
      int n = zDot ? (int)(zDot - z) : pLeaf->nFrom - i;
      DocIter it;
      int bFound = 0;
      if( cur.type==DOC_DOCUMENT ){
        bFound = docextBsonFind(cur.p, z, n, &cur);
      }else if( cur.type==DOC_ARRAY ){
        i64 iIdx = updIndex(z, n);
        docextIterInitValue(&it, &cur);
        while( iIdx>=0 && docextIterNext(&it) ){
          if( iIdx--==0 ){ cur = it.v; bFound = 1; }
        }
      }
      if( !bFound ) break;
      if( zDot==0 ){
        pR->bFound = 1;
        pR->v = cur;
        break;
      }
      if( cur.type==DOC_ARRAY && zArray==0 ){
        zArray = z;
        nArray = n;
      }
      i += n+1;
    }
    if( !pR->bFound ) continue;
    if( zArray ){
      DocBuf msg;
      int rc = SQLITE_OK;
      memset(&msg, 0, sizeof(msg));
      docextBufAppendf(&rc, &msg, "docext: The source field cannot be an array "
                       "element, '%.*s' in doc with ", pLeaf->nFrom, pLeaf->zFrom);
      updMsgDocId(pA, &rc, &msg);
      docextBufAppendf(&rc, &msg, " has an array field called '%.*s'", nArray, zArray);
      updApplyErrorMsg(pA, rc, &msg);
      return;
    }
    /* destination: no existing element along it may be an array */
    cur.type = DOC_DOCUMENT;
    cur.p = pA->aDoc;
    i = 0;
    while( 1 ){
      const char *z = &pLeaf->zTo[i];
      const char *zDot = memchr(z, '.', pLeaf->nTo - i);
      int n = zDot ? (int)(zDot - z) : pLeaf->nTo - i;
      if( cur.type!=DOC_DOCUMENT || !docextBsonFind(cur.p, z, n, &cur) ) break;
      if( cur.type==DOC_ARRAY ){
        DocBuf msg;
        int rc = SQLITE_OK;
        memset(&msg, 0, sizeof(msg));
        docextBufAppendf(&rc, &msg, "docext: The destination field cannot be an "
                         "array element, '%.*s' in doc with ", pLeaf->nTo, pLeaf->zTo);
        updMsgDocId(pA, &rc, &msg);
        docextBufAppendf(&rc, &msg, " has an array field called '%.*s'", n, z);
        updApplyErrorMsg(pA, rc, &msg);
        return;
      }
      if( zDot==0 ) break;
      i += n+1;
    }
  }
}

/* Replacement: the new document, _id first, keeping the old _id. */
static void updApplyReplace(UpdApply *pA, const u8 *aRep, const DocValue *pIdOld){
  DocValue idNew;
  int bIdNew = docextBsonFind(aRep, "_id", 3, &idNew);
  i64 iStart;
  DocIter it;
  iStart = docextBsonStartDoc(&pA->rc, pA->pOut);
  if( bIdNew ){
    docextBsonAppendValue(&pA->rc, pA->pOut, "_id", 3, &idNew);
  }else if( pIdOld ){
    docextBsonAppendValue(&pA->rc, pA->pOut, "_id", 3, pIdOld);
  }
  docextIterInit(&it, aRep);
  while( docextIterNext(&it) ){
    if( it.nKey==3 && memcmp(it.zKey, "_id", 3)==0 ) continue;
    docextBsonAppendValue(&pA->rc, pA->pOut, it.zKey, it.nKey, &it.v);
  }
  docextBsonEndDoc(&pA->rc, pA->pOut, iStart);
}

int docextUpdateApply(DocUpdate *p, const u8 *aDoc, int iPos, int bInsert,
                      DocBuf *pOut, int *pbChanged, char **pzErr){
  UpdApply a;
  DocValue idOld, idNew;
  int bIdOld, bIdNew;
  int nDoc = docextGetI32(aDoc);

  memset(&a, 0, sizeof(a));
  a.p = p;
  a.aDoc = aDoc;
  a.iPos = iPos;
  a.bInsert = bInsert;
  a.pOut = pOut;
  *pbChanged = 0;
  docextBufReset(pOut);
  bIdOld = docextBsonFind(aDoc, "_id", 3, &idOld);

  if( p->pPipeline ){
    /* the pipeline's document, as a replacement: _id first, kept if the
    ** pipeline left it out */
    DocBuf res;
    memset(&res, 0, sizeof(res));
    a.rc = docextPipelineApply(p->pPipeline, aDoc, &res, &a.zErr);
    if( a.rc==SQLITE_OK ) updApplyReplace(&a, res.a, bIdOld ? &idOld : 0);
    docextBufFree(&res);
  }else if( p->bReplace ){
    updApplyReplace(&a, p->aUpdate, bIdOld ? &idOld : 0);
  }else{
    UpdNode *pRoot = p->pRoot;
    DocValue root;
    i64 iStart;
    if( p->bPositional && (iPos<0 || bInsert) ){
      updApplyError(&a, "docext: The positional operator did not find the match "
                     "needed from the query.");
    }
    a.nPos = iPos>=0 ? docextBsonArrayKey(a.zPos, iPos) : 0;
    if( p->nRename ){
      a.aRename = docextMallocZero(sizeof(UpdRename)*(i64)p->nRename);
      if( a.aRename==0 ){
        a.rc = SQLITE_NOMEM;
      }else{
        updResolveRenames(&a);
      }
    }
    root.type = DOC_DOCUMENT;
    root.p = aDoc;
    root.n = nDoc;
    iStart = docextBsonStartDoc(&a.rc, pOut);
    updApplyObject(&a, &pRoot, 1, &root, "", 0, 0, 0);
    docextBsonEndDoc(&a.rc, pOut, iStart);
  }

  /* _id may not change (nor go away), and a new one may not be an array */
  if( a.rc==SQLITE_OK ){
    bIdNew = docextBsonFind(pOut->a, "_id", 3, &idNew);
    if( bIdOld && !bIdNew ){
      updApplyError(&a, "docext: Performing an update on the path '_id' would modify "
                     "the immutable field '_id'");
    }else if( bIdOld && (idOld.type!=idNew.type || idOld.n!=idNew.n
                         || memcmp(idOld.p, idNew.p, idNew.n)!=0) ){
      DocBuf msg;
      int rc = SQLITE_OK;
      memset(&msg, 0, sizeof(msg));
      docextBufAppendStr(&rc, &msg, "docext: after applying the update, the "
                         "(immutable) field '_id' was found to have been altered to _id: ");
      updMsgValue(&rc, &msg, &idNew);
      updApplyErrorMsg(&a, rc, &msg);
    }else if( !bIdOld && bIdNew && idNew.type==DOC_ARRAY ){
      updApplyError(&a, "docext: The '_id' value cannot be of type array");
    }
  }
  if( a.rc==SQLITE_TOOBIG ){
    sqlite3_free(a.zErr);
    a.zErr = sqlite3_mprintf("docext: Resulting document after update is larger "
                             "than %d", DOCEXT_MAX_BSON);
    if( a.zErr==0 ) a.rc = SQLITE_NOMEM;
  }
  if( a.rc==SQLITE_OK ){
    *pbChanged = pOut->n!=nDoc || memcmp(pOut->a, aDoc, nDoc)!=0;
  }else{
    *pzErr = a.zErr;
    a.zErr = 0;
  }
  sqlite3_free(a.zErr);
  sqlite3_free(a.aRename);
  docextBufFree(&a.path);
  docextBufFree(&a.scratch);
  return a.rc;
}

/*------------------------------------------------------------------------
** doc_update(d, update [, options])
**
** The compiled update is cached for the statement as the auxiliary data of
** argument 1, together with the options it was compiled with; the parsed
** options are cached on argument 2. SQLite keeps each only while its
** argument stays the same, and the options are compared by content, so a
** cached update is reused exactly when both arguments are unchanged.
*/

typedef struct UpdCache UpdCache;
struct UpdCache {
  DocUpdate *pUpdate;
  u8 *aOptions;             /* options compiled with (copy), or NULL */
  DocMatcher *pQuery;       /* options.query, or NULL */
};

static void updCacheFree(void *pArg){
  UpdCache *p = (UpdCache*)pArg;
  if( p ){
    docextUpdateFree(p->pUpdate);
    docextMatcherFree(p->pQuery);
    sqlite3_free(p->aOptions);
    sqlite3_free(p);
  }
}

static void updResultError(sqlite3_context *ctx, int rc, char *zErr){
  if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else if( zErr ){
    sqlite3_result_error(ctx, zErr, -1);
    if( rc!=SQLITE_ERROR ) sqlite3_result_error_code(ctx, rc);
  }else{
    sqlite3_result_error_code(ctx, rc);
  }
  sqlite3_free(zErr);
}

/* Check doc_update's options: query (a document), arrayFilters, let and
** collation. */
static int updCheckOptions(const u8 *aOpt, char **pzErr){
  DocIter it;
  docextIterInit(&it, aOpt);
  while( docextIterNext(&it) ){
    if( strcmp(it.zKey, "query")==0 ){
      if( it.v.type!=DOC_DOCUMENT ){
        return docextError(pzErr, "docext: doc_update: option 'query' must be a "
                                  "document, not %s", docextTypeAlias(it.v.type));
      }
    }else if( strcmp(it.zKey, "arrayFilters")==0 || strcmp(it.zKey, "let")==0
           || strcmp(it.zKey, "collation")==0 ){
      /* checked by docextUpdateNew (let: by a pipeline update's stages) */
    }else if( strcmp(it.zKey, "upsert")==0 ){
      return docextError(pzErr, "docext: doc_update: option 'upsert' needs a "
                                "collection: doc_update updates one given document");
    }else{
      return docextError(pzErr, "docext: doc_update: unknown option '%s' (known: "
                                "query, arrayFilters, let, collation)", it.zKey);
    }
  }
  return SQLITE_OK;
}

/* The parsed options of argument 2 (cached on it), or NULL for none.
** Returns an error code with *pzErr on failure. */
static int updArgOptions(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                         const u8 **paOpt, char **pzErr){
  u8 *aCopy;
  DocBuf buf;
  const u8 *aOpt;
  int rc;
  *paOpt = 0;
  if( argc<3 || sqlite3_value_type(argv[2])==SQLITE_NULL ) return SQLITE_OK;
  aCopy = sqlite3_get_auxdata(ctx, 2);
  if( aCopy ){
    *paOpt = aCopy;
    return SQLITE_OK;
  }
  memset(&buf, 0, sizeof(buf));
  rc = docextArgToBson(argv[2], &buf, &aOpt, pzErr);
  if( rc==SQLITE_OK ) rc = updCheckOptions(aOpt, pzErr);
  if( rc==SQLITE_OK ){
    aCopy = docextBsonCopy(aOpt);
    if( aCopy==0 ){
      rc = SQLITE_NOMEM;
    }else{
      sqlite3_set_auxdata(ctx, 2, aCopy, sqlite3_free);
      aCopy = sqlite3_get_auxdata(ctx, 2);
      if( aCopy==0 ) rc = SQLITE_NOMEM;
      *paOpt = aCopy;
    }
  }
  docextBufFree(&buf);
  return rc;
}

/* The compiled update for argument 1 with options aOpt, cached. */
static int updArgCompile(sqlite3_context *ctx, sqlite3_value **argv, const u8 *aOpt,
                         UpdCache **ppCache, char **pzErr){
  UpdCache *p = sqlite3_get_auxdata(ctx, 1);
  DocBuf buf;
  const u8 *aUpd;
  DocValue query;
  i64 nowMs = 0;            /* $$NOW, one for the pipeline and the query option */
  int rc, bPipeline = 0;
  if( p ){
    int nOld = p->aOptions ? docextGetI32(p->aOptions) : 0;
    int nNew = aOpt ? docextGetI32(aOpt) : 0;
    if( nOld==nNew && (nOld==0 || memcmp(p->aOptions, aOpt, nOld)==0) ){
      *ppCache = p;
      return SQLITE_OK;
    }
  }
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(&buf, 0, sizeof(buf));
  rc = docextArgToUpdate(argv[1], &buf, &aUpd, &bPipeline, pzErr);
  if( rc==SQLITE_OK && bPipeline ){
    nowMs = docextClockNowMs();
    rc = docextUpdateNewPipeline(aUpd, aOpt, nowMs, &p->pUpdate, pzErr);
  }else if( rc==SQLITE_OK ){
    rc = docextUpdateNew(aUpd, aOpt, &p->pUpdate, pzErr);
  }
  if( rc==SQLITE_OK && aOpt ){
    p->aOptions = docextBsonCopy(aOpt);
    if( p->aOptions==0 ) rc = SQLITE_NOMEM;
    if( rc==SQLITE_OK && docextBsonFind(aOpt, "query", 5, &query) ){
      rc = docextMatcherNewColl(query.p, 0, &nowMs, docextUpdateCollator(p->pUpdate),
                                &p->pQuery, pzErr);
    }
  }
  docextBufFree(&buf);
  if( rc!=SQLITE_OK ){
    updCacheFree(p);
    return rc;
  }
  sqlite3_set_auxdata(ctx, 1, p, updCacheFree);
  p = sqlite3_get_auxdata(ctx, 1);
  if( p==0 ) return SQLITE_NOMEM;
  *ppCache = p;
  return SQLITE_OK;
}

static void updDocUpdateFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocBuf in, out;
  const u8 *aDoc, *aOpt = 0;
  UpdCache *pCache = 0;
  char *zErr = 0;
  int rc, bChanged = 0, iPos = -1;

  if( sqlite3_value_type(argv[0])==SQLITE_NULL
   || sqlite3_value_type(argv[1])==SQLITE_NULL ){
    return;                           /* NULL in, NULL out */
  }
  memset(&in, 0, sizeof(in));
  memset(&out, 0, sizeof(out));
  rc = updArgOptions(ctx, argc, argv, &aOpt, &zErr);
  if( rc==SQLITE_OK ) rc = updArgCompile(ctx, argv, aOpt, &pCache, &zErr);
  if( rc==SQLITE_OK ) rc = docextArgToBson(argv[0], &in, &aDoc, &zErr);
  if( rc==SQLITE_OK && pCache->pQuery ){
    /* The query only locates the element "$" stands for; a document it
    ** does not match leaves "$" without one. */
    int bMatch = 0;
    rc = docextMatcherMatch(pCache->pQuery, aDoc, &bMatch, &iPos, &zErr);
    if( !bMatch ) iPos = -1;
  }
  if( rc==SQLITE_OK ){
    rc = docextUpdateApply(pCache->pUpdate, aDoc, iPos, 0, &out, &bChanged, &zErr);
  }
  if( rc!=SQLITE_OK ){
    updResultError(ctx, rc, zErr);
  }else{
    docextResultDoc(ctx, argv[0], &out);
  }
  docextBufFree(&in);
  docextBufFree(&out);
}

int docextRegisterUpdateFunctions(sqlite3 *db){
  /* Not SQLITE_DETERMINISTIC: $currentDate reads the clock (see the top of
  ** this file). Innocuous: it reads nothing but its arguments and the clock. */
  static const DocFuncDef aFunc[] = {
    { "doc_update", 2, SQLITE_UTF8|SQLITE_INNOCUOUS, updDocUpdateFunc },
    { "doc_update", 3, SQLITE_UTF8|SQLITE_INNOCUOUS, updDocUpdateFunc },
  };
  return docextCreateFunctions(db, 0, aFunc, DOCEXT_COUNT(aFunc));
}
