/*
** docext_collation.c — MongoDB's collations: string comparison by the
** rules of a language, through ICU, as MongoDB itself does it.
**
** A collation document is MongoDB's: {locale, caseLevel, caseFirst,
** strength, numericOrdering, alternate, maxVariable, normalization,
** backwards, version}. Only locale is required; the other fields default to
** the locale's own values (French Canadian compares accents backwards, for
** one). {locale: "simple"} is the binary comparison of the bytes, which is
** what docext does without a collation: docextCollatorNew gives NULL for it,
** and every function that takes a DocCollator takes NULL as "simple".
**
** The checks and the messages follow MongoDB's CollatorFactoryICU: a field
** of the wrong type or value, an unknown field, and a locale ICU does not
** know by exactly that name ("en_US" is known; "en-US", "EN" and "xx" are
** not, and the message says which name ICU would have used).
**
** A collation changes how strings (and symbols) compare, also inside
** documents and arrays. docext_cmp.c compares them with
** docextCollatorCompare, and its keys (index entries, sort keys, $group's
** groups) hold a string's ICU sort key instead of its bytes, which
** memcmp() orders as the collation does (docextCollatorKey).
**
** A collator's version is ICU's (U_ICU_VERSION): an index's keys are made by
** one version, so a stored spec that names another one is refused
** ("IncompatibleCollationVersion" in MongoDB).
*/
#include "docextInt.h"
#include <unicode/ucol.h>
#include <unicode/uiter.h>
#include <unicode/uloc.h>
#include <unicode/uvernum.h>

struct DocCollator {
  int nRef;                 /* owners (docextCollatorRef): an index's collator
                            ** serves the queries and sorts that use it */
  UCollator *pIcu;
  u8 *aSpec;                /* the full spec (BSON), every field filled in */
};

/* The spec as shell-style JSON, for messages. */
static char *collSpecText(const u8 *aSpec){
  int rc = SQLITE_OK;
  DocBuf b;
  docextBufInit(&b, 0, 0);
  docextJsonWriteDoc(&rc, &b, aSpec, DOCEXT_JSON_SHELL);
  return docextBufDetachText(&rc, &b);
}

static int collSpecError(char **pzErr, const u8 *aSpec, const char *zWhat){
  char *zSpec = collSpecText(aSpec);
  docextError(pzErr, "docext: collation: %s in: %s", zWhat, zSpec ? zSpec : "{…}");
  sqlite3_free(zSpec);
  return SQLITE_ERROR;
}

/* One field of a collation document and how it maps onto ICU. */
typedef struct CollField CollField;
struct CollField {
  const char *zName;
  int eKind;                /* COLL_BOOL, COLL_STRENGTH, COLL_CHOICE */
  UColAttribute eAttr;      /* (maxVariable: not an attribute; see below) */
  const char *const *azChoice;   /* COLL_CHOICE: the accepted strings */
  const UColAttributeValue *aChoice;   /* and what each sets */
};
#define COLL_BOOL     1
#define COLL_STRENGTH 2
#define COLL_CHOICE   3
#define COLL_MAXVAR   4

static const char *const azCollCaseFirst[] = { "upper", "lower", "off", 0 };
static const UColAttributeValue aCollCaseFirst[] = { UCOL_UPPER_FIRST, UCOL_LOWER_FIRST, UCOL_OFF };
static const char *const azCollAlternate[] = { "non-ignorable", "shifted", 0 };
static const UColAttributeValue aCollAlternate[] = { UCOL_NON_IGNORABLE, UCOL_SHIFTED };
static const char *const azCollMaxVariable[] = { "punct", "space", 0 };

/* In the order MongoDB writes a spec. */
static const CollField aCollField[] = {
  { "caseLevel",       COLL_BOOL,     UCOL_CASE_LEVEL,         0, 0 },
  { "caseFirst",       COLL_CHOICE,   UCOL_CASE_FIRST,         azCollCaseFirst, aCollCaseFirst },
  { "strength",        COLL_STRENGTH, UCOL_STRENGTH,           0, 0 },
  { "numericOrdering", COLL_BOOL,     UCOL_NUMERIC_COLLATION,  0, 0 },
  { "alternate",       COLL_CHOICE,   UCOL_ALTERNATE_HANDLING, azCollAlternate, aCollAlternate },
  { "maxVariable",     COLL_MAXVAR,   UCOL_ATTRIBUTE_COUNT,    azCollMaxVariable, 0 },
  { "normalization",   COLL_BOOL,     UCOL_NORMALIZATION_MODE, 0, 0 },
  { "backwards",       COLL_BOOL,     UCOL_FRENCH_COLLATION,   0, 0 },
};
#define COLL_NFIELD ((int)(sizeof(aCollField)/sizeof(aCollField[0])))

static const UColAttributeValue aCollStrength[] = {
  UCOL_PRIMARY, UCOL_SECONDARY, UCOL_TERTIARY, UCOL_QUATERNARY, UCOL_IDENTICAL
};

static int collChoiceIndex(const char *const *az, const char *z, int n){
  int i;
  for(i=0; az[i]; i++){
    if( (int)strlen(az[i])==n && memcmp(az[i], z, n)==0 ) return i;
  }
  return -1;
}

/* Set field f from v on the collator. */
static int collFieldSet(UCollator *pIcu, const CollField *f, const DocValue *v,
                    const u8 *aSpec, char **pzErr){
  UErrorCode e = U_ZERO_ERROR;
  char zWhy[160];
  if( f->eKind==COLL_BOOL ){
    if( v->type!=DOC_BOOL ){
      sqlite3_snprintf(sizeof(zWhy), zWhy, "field '%s' must be of type bool", f->zName);
      return collSpecError(pzErr, aSpec, zWhy);
    }
    ucol_setAttribute(pIcu, f->eAttr, v->p[0] ? UCOL_ON : UCOL_OFF, &e);
  }else if( f->eKind==COLL_STRENGTH ){
    double d = docextValueIsNumber(v) ? docextValueToDouble(v) : 0;
    if( !docextValueIsNumber(v) ){
      return collSpecError(pzErr, aSpec, "field 'strength' must be a number");
    }
    if( d!=1 && d!=2 && d!=3 && d!=4 && d!=5 ){
      return collSpecError(pzErr, aSpec, "field 'strength' must be an integer 1 through 5");
    }
    ucol_setAttribute(pIcu, UCOL_STRENGTH, aCollStrength[(int)d-1], &e);
  }else{
    const char *z;
    int n, i;
    if( v->type!=DOC_STRING ){
      sqlite3_snprintf(sizeof(zWhy), zWhy, "field '%s' must be of type string", f->zName);
      return collSpecError(pzErr, aSpec, zWhy);
    }
    z = docextValueStr(v, &n);
    i = collChoiceIndex(f->azChoice, z, n);
    if( i<0 ){
      int k;
      sqlite3_str *pStr = sqlite3_str_new(0);
      sqlite3_str_appendf(pStr, "field '%s' must be", f->zName);
      for(k=0; f->azChoice[k]; k++){
        sqlite3_str_appendf(pStr, "%s'%s'", k==0 ? " " : f->azChoice[k+1] ? ", " : " or ",
                            f->azChoice[k]);
      }
      sqlite3_str_appendf(pStr, ", not '%.*s'", n, z);
      z = sqlite3_str_value(pStr);
      collSpecError(pzErr, aSpec, z ? z : "bad value");
      sqlite3_free(sqlite3_str_finish(pStr));
      return SQLITE_ERROR;
    }
    if( f->eKind==COLL_MAXVAR ){
      ucol_setMaxVariable(pIcu, i==0 ? UCOL_REORDER_CODE_PUNCTUATION : UCOL_REORDER_CODE_SPACE, &e);
    }else{
      ucol_setAttribute(pIcu, f->eAttr, f->aChoice[i], &e);
    }
  }
  if( U_FAILURE(e) ){
    sqlite3_snprintf(sizeof(zWhy), zWhy, "ICU could not set '%s': %s", f->zName, u_errorName(e));
    return collSpecError(pzErr, aSpec, zWhy);
  }
  return SQLITE_OK;
}

/* Field f's value as the collator has it, appended to the spec in pOut. */
static void collFieldWrite(int *pRc, DocBuf *pOut, const UCollator *pIcu, const CollField *f){
  UErrorCode e = U_ZERO_ERROR;
  int nName = (int)strlen(f->zName);
  if( f->eKind==COLL_MAXVAR ){
    const char *z = ucol_getMaxVariable(pIcu)==UCOL_REORDER_CODE_SPACE ? "space" : "punct";
    docextBsonAppendString(pRc, pOut, DOC_STRING, f->zName, nName, z, (int)strlen(z));
  }else{
    UColAttributeValue a = ucol_getAttribute(pIcu, f->eAttr, &e);
    if( f->eKind==COLL_BOOL ){
      docextBsonAppendBool(pRc, pOut, f->zName, nName, a==UCOL_ON);
    }else if( f->eKind==COLL_STRENGTH ){
      int i;
      for(i=0; i<5 && aCollStrength[i]!=a; i++){}
      docextBsonAppendInt32(pRc, pOut, f->zName, nName, i+1);
    }else{
      int i;
      for(i=0; f->azChoice[i] && f->aChoice[i]!=a; i++){}
      if( f->azChoice[i]==0 ) i = 0;
      docextBsonAppendString(pRc, pOut, DOC_STRING, f->zName, nName, f->azChoice[i],
                             (int)strlen(f->azChoice[i]));
    }
  }
}

/* Is zLocale a name ICU knows exactly (its collator's valid locale)?
** Otherwise an error that, as MongoDB's, suggests the name ICU used. */
static int collLocaleCheck(const UCollator *pIcu, const char *zLocale, const u8 *aSpec,
                       char **pzErr){
  UErrorCode e = U_ZERO_ERROR;
  const char *zValid = ucol_getLocaleByType(pIcu, ULOC_VALID_LOCALE, &e);
  char zWhy[200];
  if( U_FAILURE(e) || zValid==0 ) zValid = "";
  if( strcmp(zValid, zLocale)==0 ) return SQLITE_OK;
  if( zValid[0] && strcmp(zValid, "root")!=0 ){
    sqlite3_snprintf(sizeof(zWhy), zWhy, "field 'locale' is invalid (did you mean '%s'?)",
                     zValid);
  }else{
    sqlite3_snprintf(sizeof(zWhy), zWhy, "field 'locale' is invalid");
  }
  return collSpecError(pzErr, aSpec, zWhy);
}

int docextCollatorNew(const DocValue *v, DocCollator **ppOut, char **pzErr){
  const u8 *aSpec = v->p;
  DocValue aVal[COLL_NFIELD], locale, version;
  DocCollator *p;
  UErrorCode e = U_ZERO_ERROR;
  DocIter it;
  char zLocale[ULOC_FULLNAME_CAPACITY];
  const char *z;
  int i, n, nField = 0, rc = SQLITE_OK;
  *ppOut = 0;
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: collation must be a document");
  }
  memset(aVal, 0, sizeof(aVal));
  memset(&locale, 0, sizeof(locale));
  memset(&version, 0, sizeof(version));
  docextIterInit(&it, aSpec);
  while( docextIterNext(&it) ){
    nField++;
    if( docextIterKeyIs(&it, "locale") ){
      locale = it.v;
      continue;
    }
    if( docextIterKeyIs(&it, "version") ){
      version = it.v;
      continue;
    }
    for(i=0; i<COLL_NFIELD && !docextIterKeyIs(&it, aCollField[i].zName); i++){}
    if( i==COLL_NFIELD ){
      char zWhy[120];
      sqlite3_snprintf(sizeof(zWhy), zWhy, "unknown field '%.60s'", it.zKey);
      return collSpecError(pzErr, aSpec, zWhy);
    }
    aVal[i] = it.v;
  }
  if( locale.type==0 ) return collSpecError(pzErr, aSpec, "field 'locale' is required");
  if( locale.type!=DOC_STRING ){
    return collSpecError(pzErr, aSpec, "field 'locale' must be of type string");
  }
  z = docextValueStr(&locale, &n);
  if( n==6 && memcmp(z, "simple", 6)==0 ){
    /* (the binary comparison: no other field may come with it) */
    if( nField>1 ){
      return collSpecError(pzErr, aSpec, "if locale is \"simple\", no other field may be given");
    }
    return SQLITE_OK;
  }
  if( n==0 ) return collSpecError(pzErr, aSpec, "field 'locale' cannot be the empty string");
  if( n>=(int)sizeof(zLocale) || memchr(z, 0, n) ){
    return collSpecError(pzErr, aSpec, "field 'locale' is invalid");
  }
  memcpy(zLocale, z, n);
  zLocale[n] = 0;
  if( version.type && (version.type!=DOC_STRING
                       || strcmp(docextValueStr(&version, &n), U_ICU_VERSION)!=0) ){
    char zWhy[120];
    sqlite3_snprintf(sizeof(zWhy), zWhy, "version: the only collator version "
                     "available is %s (ICU's)", U_ICU_VERSION);
    return collSpecError(pzErr, aSpec, zWhy);
  }

  p = sqlite3_malloc(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->nRef = 1;
  p->pIcu = ucol_open(zLocale, &e);
  if( U_FAILURE(e) || p->pIcu==0 ){
    docextCollatorFree(p);
    return e==U_MEMORY_ALLOCATION_ERROR ? SQLITE_NOMEM
         : docextError(pzErr, "docext: collation: ICU could not open a collator for "
                       "locale '%s': %s", zLocale, u_errorName(e));
  }
  rc = collLocaleCheck(p->pIcu, zLocale, aSpec, pzErr);
  for(i=0; rc==SQLITE_OK && i<COLL_NFIELD; i++){
    if( aVal[i].type ) rc = collFieldSet(p->pIcu, &aCollField[i], &aVal[i], aSpec, pzErr);
  }
  if( rc==SQLITE_OK ){
    DocBuf b;
    i64 iDoc;
    docextBufInit(&b, 0, 0);
    iDoc = docextBsonStartDoc(&rc, &b);
    docextBsonAppendString(&rc, &b, DOC_STRING, "locale", 6, zLocale, (int)strlen(zLocale));
    for(i=0; i<COLL_NFIELD; i++) collFieldWrite(&rc, &b, p->pIcu, &aCollField[i]);
    docextBsonAppendString(&rc, &b, DOC_STRING, "version", 7, U_ICU_VERSION,
                           (int)strlen(U_ICU_VERSION));
    docextBsonEndDoc(&rc, &b, iDoc);
    if( rc==SQLITE_OK ){
      p->aSpec = docextBsonCopy(b.a);
      if( p->aSpec==0 ) rc = SQLITE_NOMEM;
    }
    docextBufFree(&b);
  }
  if( rc!=SQLITE_OK ){
    docextCollatorFree(p);
    return rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

int docextCollatorOption(const u8 *aOptions, DocCollator **ppOut, char **pzErr){
  DocValue v;
  *ppOut = 0;
  if( aOptions==0 || !docextBsonFind(aOptions, "collation", 9, &v) ) return SQLITE_OK;
  return docextCollatorNew(&v, ppOut, pzErr);
}

void docextCollatorFree(DocCollator *p){
  if( p==0 || --p->nRef>0 ) return;
  if( p->pIcu ) ucol_close(p->pIcu);
  sqlite3_free(p->aSpec);
  sqlite3_free(p);
}

DocCollator *docextCollatorRef(const DocCollator *pConst){
  /* (the count of owners is not part of what a collator compares: a
  ** reader of a const collator may become an owner) */
  DocCollator *p = (DocCollator*)pConst;
  if( p ) p->nRef++;
  return p;
}

const u8 *docextCollatorSpec(const DocCollator *p){
  return p ? p->aSpec : 0;
}

void docextCollatorAppendSpec(int *pRc, DocBuf *pOut, const char *zKey, int nKey,
                              const DocCollator *p){
  DocValue v;
  v.type = DOC_DOCUMENT;
  v.p = p->aSpec;
  v.n = docextGetI32(p->aSpec);
  docextBsonAppendValue(pRc, pOut, zKey, nKey, &v);
}

int docextCollatorSame(const DocCollator *a, const DocCollator *b){
  int n;
  if( a==0 || b==0 ) return a==b;
  n = docextGetI32(a->aSpec);
  return n==docextGetI32(b->aSpec) && memcmp(a->aSpec, b->aSpec, n)==0;
}

int docextCollatorCompare(const DocCollator *p, const char *a, int na, const char *b, int nb){
  UErrorCode e = U_ZERO_ERROR;
  UCollationResult r = ucol_strcollUTF8(p->pIcu, a, na, b, nb, &e);
  if( U_FAILURE(e) ){
    /* (not for valid UTF-8, which every stored string is; bytes then) */
    int c = memcmp(a, b, na<nb ? na : nb);
    return c ? (c<0 ? -1 : 1) : (na<nb ? -1 : na>nb);
  }
  return r==UCOL_LESS ? -1 : r==UCOL_GREATER;
}

void docextCollatorKey(int *pRc, DocBuf *pOut, const DocCollator *p, const char *z, int n){
  UCharIterator it;
  uint32_t aState[2] = {0, 0};
  UErrorCode e = U_ZERO_ERROR;
  int nGot;
  uiter_setUTF8(&it, z, n);
  do{
    /* ICU writes the key in parts, as long as asked, and resumes from its
    ** state: ask for 64 bytes at a time until a part comes back short. */
    if( !docextBufReserve(pRc, pOut, 64) ) return;
    nGot = ucol_nextSortKeyPart(p->pIcu, &it, aState, &pOut->a[pOut->n], 64, &e);
    if( U_FAILURE(e) ){
      *pRc = e==U_MEMORY_ALLOCATION_ERROR ? SQLITE_NOMEM : SQLITE_ERROR;
      return;
    }
    pOut->n += nGot;
  }while( nGot==64 );
}
