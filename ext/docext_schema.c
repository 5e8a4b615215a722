/*
** docext_schema.c — $jsonSchema: the filter operator that matches the
** documents a JSON Schema accepts, as MongoDB implements it (its
** json_schema_parser): draft 4's keywords less $ref, $schema, default,
** definitions, format and id, plus MongoDB's bsonType.
**
** docextSchemaNew() checks the schema once, with MongoDB's errors (an
** unknown or duplicate keyword, a keyword of the wrong type, "type" and
** "bsonType" together, …) and compiles its regexes; docextSchemaMatch()
** then walks the schema against each document.
**
** MongoDB's rules, which differ from a plain JSON Schema validator's:
**   - A keyword about one type (maximum about numbers, maxLength about
**     strings, items about arrays, properties about objects) holds for a
**     value of any other type, and for a missing one.
**   - A schema's value is never an array's elements: no implicit array
**     traversal, unlike the rest of the query language.
**   - At the top, the value is the whole document, an object: keywords
**     about scalars and arrays hold trivially, a type that is not "object"
**     matches nothing, and enum compares the document with the enum's
**     objects.
**   - enum and uniqueItems compare documents with their fields in any
**     order; numbers of any type compare by value.
**   - multipleOf divides as decimals, a double read with 15 significant
**     digits (MongoDB's Decimal128 of a double).
*/
#include "docextInt.h"
#include <math.h>
#include <stdio.h>

/* A compiled regex of the schema: a pattern's value, or a key of
** patternProperties, found by the address of its text in the copy. */
typedef struct SchemaRe SchemaRe;
struct SchemaRe {
  const char *z;
  DocRegex *pRe;
};


/* Evaluation state: a sticky error (a regex's limits). When explaining
** (pWhy: docextSchemaExplain), also where the value being checked is and
** the first reason found. */
typedef struct SchemaCtx SchemaCtx;
struct SchemaCtx {
  DocSchema *p;
  int rc;
  char *zErr;
  DocBuf *pWhy;             /* the reason, once found; NULL: not explaining */
  int nMute;                /* inside anyOf, oneOf, not: no reason there */
  DocBuf path;              /* explaining: the path of the value, "a.b.0" */
};

/* The keywords, in the order MongoDB's parser lists them. */
enum {
  SK_ADDITIONALITEMS, SK_ADDITIONALPROPERTIES, SK_ALLOF, SK_ANYOF, SK_BSONTYPE,
  SK_DEPENDENCIES, SK_DESCRIPTION, SK_ENUM, SK_EXCLUSIVEMAXIMUM, SK_EXCLUSIVEMINIMUM,
  SK_ITEMS, SK_MAXITEMS, SK_MAXLENGTH, SK_MAXPROPERTIES, SK_MAXIMUM, SK_MINITEMS,
  SK_MINLENGTH, SK_MINPROPERTIES, SK_MINIMUM, SK_MULTIPLEOF, SK_NOT, SK_ONEOF,
  SK_PATTERN, SK_PATTERNPROPERTIES, SK_PROPERTIES, SK_REQUIRED, SK_TITLE, SK_TYPE,
  SK_UNIQUEITEMS, SK_COUNT
};
static const char *const azKeyword[SK_COUNT] = {
  "additionalItems", "additionalProperties", "allOf", "anyOf", "bsonType",
  "dependencies", "description", "enum", "exclusiveMaximum", "exclusiveMinimum",
  "items", "maxItems", "maxLength", "maxProperties", "maximum", "minItems",
  "minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf",
  "pattern", "patternProperties", "properties", "required", "title", "type",
  "uniqueItems",
};

/* A schema document's keywords: aKw[SK_…].type is 0 when absent. */
typedef struct SchemaKeywords SchemaKeywords;
struct SchemaKeywords {
  DocValue aKw[SK_COUNT];
};

/* The keywords of one schema document (the whole schema, or one it holds),
** read once when the schema is checked, not for every document matched. */
typedef struct SchemaNode SchemaNode;
struct SchemaNode {
  const u8 *aS;           /* the schema document, in DocSchema.aSchema */
  SchemaKeywords kw;
};

struct DocSchema {
  u8 *aSchema;            /* private copy of the schema document */
  SchemaRe *aRe;
  int nRe, nReAlloc;
  SchemaNode *aNode;      /* every schema document, in address order */
  int nNode, nNodeAlloc;
};

static int schemaNodeCmp(void *pCtx, const void *x, const void *y){
  const u8 *a = ((const SchemaNode*)x)->aS, *b = ((const SchemaNode*)y)->aS;
  (void)pCtx;
  return a<b ? -1 : a>b;
}

/* The keywords of the checked schema document aS (binary search). */
static const SchemaKeywords *schemaKeywordsOf(const DocSchema *p, const u8 *aS){
  int lo = 0, hi = p->nNode - 1;
  while( lo<=hi ){
    int mid = (lo + hi)/2;
    if( p->aNode[mid].aS==aS ) return &p->aNode[mid].kw;
    if( p->aNode[mid].aS<aS ) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/*------------------------------------------------------------------------
** Equality with fields in any order (enum, uniqueItems)
*/

static int schemaEqual(const DocValue *a, const DocValue *b){
  DocIter it, it2;
  if( a->type==DOC_DOCUMENT && b->type==DOC_DOCUMENT ){
    if( docextIterCount(a)!=docextIterCount(b) ) return 0;
    docextIterInitValue(&it, a);
    while( docextIterNext(&it) ){
      DocValue f;
      if( !docextBsonFind(b->p, it.zKey, it.nKey, &f) || !schemaEqual(&it.v, &f) ) return 0;
    }
    return 1;
  }
  if( a->type==DOC_ARRAY && b->type==DOC_ARRAY ){
    int bA, bB;
    docextIterInitValue(&it, a);
    docextIterInitValue(&it2, b);
    for(;;){
      bA = docextIterNext(&it);
      bB = docextIterNext(&it2);
      if( !bA || !bB ) return bA==bB;
      if( !schemaEqual(&it.v, &it2.v) ) return 0;
    }
  }
  return docextTypeClass(a->type)==docextTypeClass(b->type) && docextValueCompare(a, b)==0;
}

/* A hash that equal values (schemaEqual) share: a document's is the same
** whatever the order of its fields; other values hash their index key,
** which is the same for equal numbers of any type. */
static u64 schemaHash(const DocValue *v, int *pRc){
  DocIter it;
  u64 h;
  if( v->type==DOC_DOCUMENT ){
    h = 0x9E3779B97F4A7C15ULL;
    docextIterInitValue(&it, v);
    while( docextIterNext(&it) ){
      u64 hField = docextHashBytes((const u8*)it.zKey, it.nKey) * 31 + schemaHash(&it.v, pRc);
      h += hField * 0xBF58476D1CE4E5B9ULL;            /* (a sum: any order) */
    }
    return h;
  }
  if( v->type==DOC_ARRAY ){
    h = 0x94D049BB133111EBULL;
    docextIterInitValue(&it, v);
    while( docextIterNext(&it) ) h = (h ^ schemaHash(&it.v, pRc)) * 0x100000001B3ULL;
    return h;
  }
  {
    u8 aSpace[64];
    DocBuf key;
    docextBufInit(&key, aSpace, sizeof(aSpace));
    docextKeyAppend(pRc, &key, v, 0);
    h = docextHashBytes(key.a, key.n);
    docextBufFree(&key);
    return h;
  }
}

typedef struct SchemaHashed SchemaHashed;
struct SchemaHashed {
  u64 h;
  DocValue v;
};
static int schemaHashCmp(void *pCtx, const void *x, const void *y){
  u64 a = ((const SchemaHashed*)x)->h, b = ((const SchemaHashed*)y)->h;
  (void)pCtx;
  return a<b ? -1 : a>b;
}

/* Are two elements of the array pArr equal (schemaEqual)? Sorted by their
** hashes, only those that share one are compared: n log n for a long array
** (of an enum, or a document's under uniqueItems), as MongoDB's set of
** values costs, not n². 1, 0, or -1 with *pRc set (out of memory). */
static int schemaHasDuplicate(const DocValue *pArr, int *pRc){
  DocIter it;
  SchemaHashed *a;
  int n = docextIterCount(pArr), i, j, bDup = 0;
  if( n<2 ) return 0;
  a = sqlite3_malloc64(sizeof(SchemaHashed)*2*(sqlite3_uint64)n);
  if( a==0 ){
    *pRc = SQLITE_NOMEM;
    return -1;
  }
  i = 0;
  docextIterInitValue(&it, pArr);
  while( docextIterNext(&it) ){
    a[i].v = it.v;
    a[i++].h = schemaHash(&it.v, pRc);
  }
  docextSort(a, n, (int)sizeof(SchemaHashed), &a[n], schemaHashCmp, 0);
  for(i=0; i<n && !bDup; i++){
    for(j=i+1; j<n && a[j].h==a[i].h && !bDup; j++){
      bDup = schemaEqual(&a[i].v, &a[j].v);
    }
  }
  sqlite3_free(a);
  return *pRc ? -1 : bDup;
}

/*------------------------------------------------------------------------
** Checking and compiling a schema
*/

typedef struct SchemaParse SchemaParse;
struct SchemaParse {
  DocSchema *p;
  int rc;
  char *zErr;
};

static int schemaError(SchemaParse *pP, const char *zFmt, ...){
  va_list ap;
  if( pP->rc==SQLITE_OK ){
    char *z;
    va_start(ap, zFmt);
    z = sqlite3_vmprintf(zFmt, ap);
    va_end(ap);
    pP->zErr = z ? sqlite3_mprintf("docext: %s", z) : 0;
    sqlite3_free(z);
    pP->rc = pP->zErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  return pP->rc;
}

/* Compile the regex z[0..n) (no options: JSON Schema has none) and keep it. */
static int schemaAddRegex(SchemaParse *pP, const char *z, int n){
  DocSchema *p = pP->p;
  DocRegex *pRe = 0;
  char *zErr = 0;
  p->aRe = docextArrayGrow(&pP->rc, p->aRe, p->nRe, &p->nReAlloc, (int)sizeof(SchemaRe));
  if( pP->rc ) return pP->rc;
  pP->rc = docextRegexCompile(z, n, "", &pRe, &zErr);
  if( pP->rc ){
    pP->zErr = zErr;
    return pP->rc;
  }
  p->aRe[p->nRe].z = z;
  p->aRe[p->nRe].pRe = pRe;
  p->nRe++;
  return SQLITE_OK;
}

static DocRegex *schemaRegexAt(DocSchema *p, const char *z){
  int i;
  for(i=0; i<p->nRe; i++){
    if( p->aRe[i].z==z ) return p->aRe[i].pRe;
  }
  return 0;
}

/* Is z[0..n) a type name of "type" (bJson) or of "bsonType"? */
static int schemaTypeKnown(const char *z, int n, int bJson){
  static const char *const azJson[] = { "array", "boolean", "null", "number", "object", "string" };
  int t;
  if( bJson ) return docextNameIndex(z, n, azJson, DOCEXT_COUNT(azJson))>=0;
  if( n==6 && memcmp(z, "number", 6)==0 ) return 1;
  for(t=1; t<=0xFF; t++){
    const char *zA = docextTypeAlias(t);
    if( zA && (int)strlen(zA)==n && memcmp(zA, z, n)==0 ) return 1;
  }
  return 0;
}

/* "type" or "bsonType": a type name or a non-empty array of distinct ones. */
static int schemaCheckType(SchemaParse *pP, const char *zKw, const DocValue *v){
  DocIter it;
  int bJson = zKw[0]=='t', nType = 0;
  if( v->type!=DOC_STRING && v->type!=DOC_ARRAY ){
    return schemaError(pP, "$jsonSchema keyword '%s' must be either a string or an array of "
                           "strings", zKw);
  }
  if( v->type==DOC_ARRAY ) docextIterInitValue(&it, v);
  for(;;){
    DocValue e;
    const char *z;
    int n;
    if( v->type==DOC_ARRAY ){
      if( !docextIterNext(&it) ) break;
      e = it.v;
    }else{
      if( nType ) break;
      e = *v;
    }
    if( e.type!=DOC_STRING ){
      return schemaError(pP, "$jsonSchema keyword '%s' array elements must be strings", zKw);
    }
    z = docextValueStr(&e, &n);
    if( n==7 && memcmp(z, "integer", 7)==0 ){
      return schemaError(pP, "$jsonSchema type 'integer' is not currently supported.");
    }
    if( !schemaTypeKnown(z, n, bJson) ){
      return schemaError(pP, "Unknown type name alias: %.*s", n, z);
    }
    if( v->type==DOC_ARRAY ){
      DocIter it2;
      int j = 0;
      docextIterInitValue(&it2, v);
      while( j<nType && docextIterNext(&it2) ){
        int n2;
        const char *z2 = it2.v.type==DOC_STRING ? docextValueStr(&it2.v, &n2) : 0;
        if( z2 && n2==n && memcmp(z2, z, n)==0 ){
          return schemaError(pP, "$jsonSchema keyword '%s' has duplicate value: %.*s", zKw, n, z);
        }
        j++;
      }
    }
    nType++;
  }
  if( nType==0 ) return schemaError(pP, "$jsonSchema keyword '%s' must name at least one type", zKw);
  return SQLITE_OK;
}

/* A whole number >= 0 (maxLength, minItems, …), as MongoDB's
** parseIntegerElementToNonNegativeLong reads one. */
static int schemaCheckCount(SchemaParse *pP, const char *zKw, const DocValue *v){
  double d;
  if( !docextValueIsNumber(v) ){
    return schemaError(pP, "$jsonSchema keyword '%s' must be a number", zKw);
  }
  d = docextValueToDouble(v);
  if( d!=floor(d) || d<0 || d>9.2e18 ){
    return schemaError(pP, "$jsonSchema keyword '%s' must be a non-negative whole number", zKw);
  }
  return SQLITE_OK;
}

static int schemaCheck(SchemaParse *pP, const u8 *aS);

/* A value that must be a schema (a document), checked. */
static int schemaCheckSub(SchemaParse *pP, const DocValue *v, const char *zWhat){
  if( v->type!=DOC_DOCUMENT ) return schemaError(pP, "%s must be an object", zWhat);
  return schemaCheck(pP, v->p);
}

/* allOf, anyOf, oneOf: a non-empty array of schemas. */
static int schemaCheckList(SchemaParse *pP, const char *zKw, const DocValue *v){
  DocIter it;
  if( v->type!=DOC_ARRAY ) return schemaError(pP, "$jsonSchema keyword '%s' must be an array", zKw);
  if( docextGetI32(v->p)==5 ){
    return schemaError(pP, "$jsonSchema keyword '%s' must be a non-empty array", zKw);
  }
  docextIterInitValue(&it, v);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    if( it.v.type!=DOC_DOCUMENT ){
      return schemaError(pP, "$jsonSchema keyword '%s' must be an array of objects, but found "
                             "an element of type %s", zKw, docextTypeAlias(it.v.type));
    }
    schemaCheck(pP, it.v.p);
  }
  return pP->rc;
}

/* enum: a non-empty array of distinct values; required and a property
** dependency: a non-empty array of distinct strings. */
static int schemaCheckValues(SchemaParse *pP, const char *zWhat, const DocValue *v, int bStrings){
  DocIter it;
  int bDup;
  if( v->type!=DOC_ARRAY ) return schemaError(pP, "%s must be an array", zWhat);
  if( docextGetI32(v->p)==5 ) return schemaError(pP, "%s cannot be an empty array", zWhat);
  docextIterInitValue(&it, v);
  while( bStrings && docextIterNext(&it) ){
    if( it.v.type!=DOC_STRING ){
      return schemaError(pP, "%s must be an array of strings, but found an element of type %s",
                         zWhat, docextTypeAlias(it.v.type));
    }
  }
  bDup = schemaHasDuplicate(v, &pP->rc);
  if( bDup>0 ) return schemaError(pP, "%s cannot contain duplicate values", zWhat);
  return pP->rc;
}

static int schemaCheckProperties(SchemaParse *pP, const char *zKw, const DocValue *v,
                                 int bPatterns){
  DocIter it;
  if( v->type!=DOC_DOCUMENT ) return schemaError(pP, "$jsonSchema keyword '%s' must be an object", zKw);
  docextIterInitValue(&it, v);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    if( it.v.type!=DOC_DOCUMENT ){
      return schemaError(pP, "Nested schema for $jsonSchema property '%s' must be an object",
                         it.zKey);
    }
    if( bPatterns && schemaAddRegex(pP, it.zKey, it.nKey) ) return pP->rc;
    schemaCheck(pP, it.v.p);
  }
  return pP->rc;
}

static int schemaCheckDependencies(SchemaParse *pP, const DocValue *v){
  DocIter it;
  if( v->type!=DOC_DOCUMENT ) return schemaError(pP, "$jsonSchema keyword 'dependencies' must be an object");
  docextIterInitValue(&it, v);
  while( pP->rc==SQLITE_OK && docextIterNext(&it) ){
    if( it.v.type==DOC_DOCUMENT ){
      schemaCheck(pP, it.v.p);
    }else if( it.v.type==DOC_ARRAY ){
      char *zWhat = sqlite3_mprintf("array '%s' in $jsonSchema keyword 'dependencies'", it.zKey);
      if( zWhat==0 ) return pP->rc = SQLITE_NOMEM;
      schemaCheckValues(pP, zWhat, &it.v, 1);
      sqlite3_free(zWhat);
    }else{
      return schemaError(pP, "property '%s' in $jsonSchema keyword 'dependencies' must be either "
                             "an object or an array", it.zKey);
    }
  }
  return pP->rc;
}

/* Keep the keywords of the schema document aS (schemaKeywordsOf). */
static int schemaAddNode(SchemaParse *pP, const u8 *aS, const SchemaKeywords *pKw){
  DocSchema *p = pP->p;
  p->aNode = docextArrayGrow(&pP->rc, p->aNode, p->nNode, &p->nNodeAlloc, (int)sizeof(SchemaNode));
  if( pP->rc ) return pP->rc;
  p->aNode[p->nNode].aS = aS;
  p->aNode[p->nNode++].kw = *pKw;
  return SQLITE_OK;
}

/* Check the keywords of one schema document (and those it holds). */
static int schemaCheck(SchemaParse *pP, const u8 *aS){
  static const char *const azUnsupported[] = { "$ref", "$schema", "default", "definitions",
                                               "format", "id" };
  SchemaKeywords kw;
  DocIter it;
  DocValue *a = kw.aKw;
  int k;
  memset(&kw, 0, sizeof(kw));
  docextIterInit(&it, aS);
  while( docextIterNext(&it) ){
    for(k=0; k<SK_COUNT && !docextIterKeyIs(&it, azKeyword[k]); k++){}
    if( k==SK_COUNT ){
      for(k=0; k<(int)DOCEXT_COUNT(azUnsupported); k++){
        if( docextIterKeyIs(&it, azUnsupported[k]) ){
          return schemaError(pP, "$jsonSchema keyword '%s' is not currently supported", it.zKey);
        }
      }
      return schemaError(pP, "Unknown $jsonSchema keyword: %s", it.zKey);
    }
    if( a[k].type ) return schemaError(pP, "Duplicate $jsonSchema keyword: %s", it.zKey);
    a[k] = it.v;
  }
  if( schemaAddNode(pP, aS, &kw) ) return pP->rc;
  for(k=0; k<SK_COUNT && pP->rc==SQLITE_OK; k++){
    const DocValue *v = &a[k];
    const char *zKw = azKeyword[k];
    if( v->type==0 ) continue;
    switch( k ){
      case SK_DESCRIPTION: case SK_TITLE:
        if( v->type!=DOC_STRING ) schemaError(pP, "$jsonSchema keyword '%s' must be of type string", zKw);
        break;
      case SK_TYPE: case SK_BSONTYPE:
        if( a[SK_TYPE].type && a[SK_BSONTYPE].type ){
          schemaError(pP, "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
        }else{
          schemaCheckType(pP, zKw, v);
        }
        break;
      case SK_MAXIMUM: case SK_MINIMUM:
        if( !docextValueIsNumber(v) ) schemaError(pP, "$jsonSchema keyword '%s' must be a number", zKw);
        break;
      case SK_EXCLUSIVEMAXIMUM: case SK_EXCLUSIVEMINIMUM:
        if( v->type!=DOC_BOOL ){
          schemaError(pP, "$jsonSchema keyword '%s' must be a boolean", zKw);
        }else if( a[k==SK_EXCLUSIVEMAXIMUM ? SK_MAXIMUM : SK_MINIMUM].type==0 ){
          schemaError(pP, "$jsonSchema keyword '%s' must be a present if %s is present",
                      k==SK_EXCLUSIVEMAXIMUM ? "maximum" : "minimum", zKw);
        }
        break;
      case SK_MULTIPLEOF:
        if( !docextValueIsNumber(v) ){
          schemaError(pP, "$jsonSchema keyword '%s' must be a number", zKw);
        }else if( !(docextValueToDouble(v)>0) && !isnan(docextValueToDouble(v)) ){
          schemaError(pP, "$jsonSchema keyword '%s' must have a positive value", zKw);
        }
        break;
      case SK_MAXLENGTH: case SK_MINLENGTH: case SK_MAXITEMS: case SK_MINITEMS:
      case SK_MAXPROPERTIES: case SK_MINPROPERTIES:
        schemaCheckCount(pP, zKw, v);
        break;
      case SK_PATTERN:
        if( v->type!=DOC_STRING ){
          schemaError(pP, "$jsonSchema keyword '%s' must be a string", zKw);
        }else{
          int n;
          const char *z = docextValueStr(v, &n);
          schemaAddRegex(pP, z, n);
        }
        break;
      case SK_ALLOF: case SK_ANYOF: case SK_ONEOF:
        schemaCheckList(pP, zKw, v);
        break;
      case SK_NOT:
        if( v->type!=DOC_DOCUMENT ){
          schemaError(pP, "$jsonSchema keyword 'not' must be an object, but found an element "
                          "of type %s", docextTypeAlias(v->type));
        }else{
          schemaCheck(pP, v->p);
        }
        break;
      case SK_ENUM:
        schemaCheckValues(pP, "$jsonSchema keyword 'enum'", v, 0);
        break;
      case SK_REQUIRED:
        schemaCheckValues(pP, "$jsonSchema keyword 'required'", v, 1);
        break;
      case SK_PROPERTIES: case SK_PATTERNPROPERTIES:
        schemaCheckProperties(pP, zKw, v, k==SK_PATTERNPROPERTIES);
        break;
      case SK_ADDITIONALPROPERTIES: case SK_ADDITIONALITEMS:
        if( v->type==DOC_DOCUMENT ){
          schemaCheck(pP, v->p);
        }else if( v->type!=DOC_BOOL ){
          schemaError(pP, "$jsonSchema keyword '%s' must be either an object or a boolean", zKw);
        }
        break;
      case SK_DEPENDENCIES:
        schemaCheckDependencies(pP, v);
        break;
      case SK_UNIQUEITEMS:
        if( v->type!=DOC_BOOL ) schemaError(pP, "$jsonSchema keyword '%s' must be a boolean", zKw);
        break;
      case SK_ITEMS:
        if( v->type==DOC_DOCUMENT ){
          schemaCheck(pP, v->p);
        }else if( v->type==DOC_ARRAY ){
          DocIter it2;
          docextIterInitValue(&it2, v);
          while( pP->rc==SQLITE_OK && docextIterNext(&it2) ){
            schemaCheckSub(pP, &it2.v, "each element of $jsonSchema keyword 'items'");
          }
        }else{
          schemaError(pP, "$jsonSchema keyword 'items' must be an array or an object, not %s",
                      docextTypeAlias(v->type));
        }
        break;
    }
  }
  return pP->rc;
}

/*------------------------------------------------------------------------
** Matching
*/

static int schemaValid(SchemaCtx *c, const u8 *aS, const DocValue *v, int bTop);

/* Explaining: v (0: missing) fails keyword zKw, whose value is pKw (or
** zNote says how); the first such failure is the reason: "at 'age':
** minimum: 18, found 10". Returns 0, for "return schemaFail(…)". */
#define SCHEMA_FOUND_MAX 100      /* longest a found value is quoted */
static int schemaFail(SchemaCtx *c, const DocValue *v, const char *zKw, const DocValue *pKw,
                      const char *zNote){
  DocBuf *p = c->pWhy;
  int rc = SQLITE_OK;
  if( p==0 || c->nMute || p->n>0 || c->rc ) return 0;
  if( c->path.n ){
    docextBufAppendStr(&rc, p, "at '");
    docextBufAppend(&rc, p, c->path.a, c->path.n);
    docextBufAppendStr(&rc, p, "': ");
  }else{
    docextBufAppendStr(&rc, p, "the document: ");
  }
  docextBufAppendStr(&rc, p, zKw);
  if( pKw ){
    docextBufAppendStr(&rc, p, ": ");
    docextValueToString(&rc, p, pKw);
  }
  if( zNote ){
    if( zNote[0] ) docextBufAppendStr(&rc, p, " ");
    docextBufAppendStr(&rc, p, zNote);
  }else{
    i64 iFound;
    docextBufAppendStr(&rc, p, ", found ");
    iFound = p->n;
    if( v ) docextValueToString(&rc, p, v);
    else docextBufAppendStr(&rc, p, "nothing (missing)");
    docextBufCutText(&rc, p, iFound, SCHEMA_FOUND_MAX);
  }
  if( rc!=SQLITE_OK ) c->rc = rc;
  return 0;
}

/* Explaining: field zField[0..nField) of the value being checked fails
** as zText says ("required, but missing"). Returns 0. */
static int schemaFailField(SchemaCtx *c, const char *zField, int nField, const char *zText){
  i64 nPath = c->path.n;
  int rc = SQLITE_OK;
  if( c->pWhy==0 || c->nMute || c->pWhy->n>0 ) return 0;
  if( nPath ) docextBufAppendByte(&rc, &c->path, '.');
  docextBufAppend(&rc, &c->path, zField, nField);
  if( rc!=SQLITE_OK ) c->rc = rc;
  schemaFail(c, 0, zText, 0, "");
  c->path.n = nPath;
  return 0;
}

/* schemaValid for v (0: missing) at field zKey (nKey>=0) or element iIdx
** of the value being checked: explaining, the path says so meanwhile. */
static int schemaValidAt(SchemaCtx *c, const u8 *aS, const DocValue *v, const char *zKey,
                         int nKey, int iIdx){
  i64 nPath = c->path.n;
  int bOk, rc = SQLITE_OK;
  if( c->pWhy ){
    if( nPath ) docextBufAppendByte(&rc, &c->path, '.');
    if( nKey>=0 ) docextBufAppend(&rc, &c->path, zKey, nKey);
    else docextBufAppendf(&rc, &c->path, "%d", iIdx);
    if( rc!=SQLITE_OK ) c->rc = rc;
  }
  bOk = schemaValid(c, aS, v, 0);
  c->path.n = nPath;
  return bOk;
}

/* Is v of a type that "type" (bJson) or "bsonType" names? */
static int schemaTypeHas(const DocValue *pType, int bJson, const DocValue *v){
  DocIter it;
  DocValue e;
  int bArray = pType->type==DOC_ARRAY, bDone = 0;
  if( bArray ) docextIterInitValue(&it, pType);
  while( !bDone ){
    const char *z, *zA;
    int n;
    if( bArray ){
      if( !docextIterNext(&it) ) break;
      e = it.v;
    }else{
      e = *pType;
      bDone = 1;
    }
    z = docextValueStr(&e, &n);
    if( n==6 && memcmp(z, "number", 6)==0 ){
      if( docextValueIsNumber(v) ) return 1;
      continue;
    }
    zA = bJson && v->type==DOC_BOOL ? "boolean" : docextTypeAlias(v->type);
    if( zA && (int)strlen(zA)==n && memcmp(zA, z, n)==0 ) return 1;
  }
  return 0;
}

/* Is v the boolean true (exclusiveMaximum and the like)? */
static int schemaIsTrue(const DocValue *v){
  return v->type==DOC_BOOL && v->p[0];
}

/* maximum / minimum on a number: MongoDB's $lte, $lt, $gte, $gt (a NaN
** is only equal to NaN). */
static int schemaBound(const DocValue *v, const DocValue *pBound, const DocValue *pExcl, int bMax){
  int bExcl = schemaIsTrue(pExcl);
  int c;
  double a = docextValueToDouble(v), b = docextValueToDouble(pBound);
  if( isnan(a) || isnan(b) ) return isnan(a) && isnan(b) && !bExcl;
  c = docextValueCompare(v, pBound);
  if( bMax ) return bExcl ? c<0 : c<=0;
  return bExcl ? c>0 : c>=0;
}

/* multipleOf: the remainder of v divided by m is exactly zero. */
static int schemaMultipleOf(const DocValue *v, const DocValue *m){
  u8 a[16], b[16], q[16], back[16];
  char zDigits[40];
  int bNeg, iExp, e;
  DocNum nv, nm;
  docextNumFrom(v, &nv);
  docextNumFrom(m, &nm);
  docextNumToDec(&nv, a);           /* (a double to 15 digits, as MongoDB's */
  docextNumToDec(&nm, b);           /* Decimal128 of it) */
  if( docextDec128Div(a, b, q) ) return 0;
  e = docextDec128Parts(q, &bNeg, zDigits, &iExp);
  if( e!=DOCEXT_DEC_FINITE ) return 0;
  /* a whole quotient: no digit after the point is other than 0 */
  if( iExp<0 ){
    int n = (int)strlen(zDigits), i;
    for(i=n+iExp<0 ? 0 : n+iExp; i<n; i++){
      if( zDigits[i]!='0' ) return 0;
    }
  }
  /* and exact: quotient times divisor gives the number back */
  if( docextDec128Mul(q, b, back) ) return 0;
  {
    DocValue x, y;
    x.type = y.type = DOC_DECIMAL128;
    x.p = back; y.p = a;
    x.n = y.n = 16;
    return docextValueCompare(&x, &y)==0;
  }
}

/* The restrictions on a string. */
static int schemaString(SchemaCtx *c, const SchemaKeywords *pK, const DocValue *v){
  const DocValue *a = pK->aKw;
  int n, i, nCP = 0;
  const char *z = docextValueStr(v, &n);
  if( a[SK_MAXLENGTH].type || a[SK_MINLENGTH].type ){
    for(i=0; i<n; i++) nCP += ((u8)z[i] & 0xC0)!=0x80;    /* code points */
    if( a[SK_MAXLENGTH].type && nCP>docextValueToDouble(&a[SK_MAXLENGTH]) ){
      return schemaFail(c, v, "maxLength", &a[SK_MAXLENGTH], 0);
    }
    if( a[SK_MINLENGTH].type && nCP<docextValueToDouble(&a[SK_MINLENGTH]) ){
      return schemaFail(c, v, "minLength", &a[SK_MINLENGTH], 0);
    }
  }
  if( a[SK_PATTERN].type ){
    int nPat, bMatch = 0;
    const char *zPat = docextValueStr(&a[SK_PATTERN], &nPat);
    DocRegex *pRe = schemaRegexAt(c->p, zPat);
    if( pRe && (c->rc = docextRegexMatch(pRe, z, n, &bMatch, &c->zErr))!=SQLITE_OK ) return 0;
    if( !bMatch ) return schemaFail(c, v, "pattern", &a[SK_PATTERN], 0);
  }
  return 1;
}

/* The restrictions on an array. */
static int schemaArray(SchemaCtx *c, const SchemaKeywords *pK, const DocValue *v){
  const DocValue *a = pK->aKw;
  DocIter it, it2;
  int n = docextIterCount(v), i = 0, nItems = -1;     /* nItems: "items" is an array of so many */
  if( a[SK_MAXITEMS].type && n>docextValueToDouble(&a[SK_MAXITEMS]) ){
    return schemaFail(c, v, "maxItems", &a[SK_MAXITEMS], 0);
  }
  if( a[SK_MINITEMS].type && n<docextValueToDouble(&a[SK_MINITEMS]) ){
    return schemaFail(c, v, "minItems", &a[SK_MINITEMS], 0);
  }
  if( a[SK_UNIQUEITEMS].type==DOC_BOOL && a[SK_UNIQUEITEMS].p[0]
   && schemaHasDuplicate(v, &c->rc) ){
    return schemaFail(c, v, "uniqueItems", &a[SK_UNIQUEITEMS], 0);
  }
  if( a[SK_ITEMS].type==DOC_ARRAY ){
    nItems = docextIterCount(&a[SK_ITEMS]);
    docextIterInitValue(&it, v);
    docextIterInitValue(&it2, &a[SK_ITEMS]);
    while( docextIterNext(&it) && docextIterNext(&it2) ){
      if( !schemaValidAt(c, it2.v.p, &it.v, 0, -1, i++) ) return 0;
    }
  }else if( a[SK_ITEMS].type==DOC_DOCUMENT ){
    docextIterInitValue(&it, v);
    while( docextIterNext(&it) ){
      if( !schemaValidAt(c, a[SK_ITEMS].p, &it.v, 0, -1, i++) ) return 0;
    }
  }
  if( nItems>=0 && a[SK_ADDITIONALITEMS].type ){
    /* only after an array of "items": the elements past them */
    const DocValue *pMore = &a[SK_ADDITIONALITEMS];
    i = 0;
    docextIterInitValue(&it, v);
    while( docextIterNext(&it) ){
      if( i++<nItems ) continue;
      if( pMore->type==DOC_BOOL ){
        if( !pMore->p[0] ) return schemaFail(c, v, "additionalItems", pMore, 0);
      }else if( !schemaValidAt(c, pMore->p, &it.v, 0, -1, i-1) ){
        return 0;
      }
    }
  }
  return 1;
}

/* Is zKey[0..nKey) a string of the array pList? */
static int schemaListHas(const DocValue *pList, const char *zKey, int nKey){
  DocIter it;
  docextIterInitValue(&it, pList);
  while( docextIterNext(&it) ){
    int n;
    const char *z = docextValueStr(&it.v, &n);
    if( n==nKey && memcmp(z, zKey, n)==0 ) return 1;
  }
  return 0;
}

/* patternProperties and additionalProperties: every field that a pattern
** names matches that pattern's schema; every other field not among
** "properties" matches additionalProperties. */
static int schemaAllowedProperties(SchemaCtx *c, const SchemaKeywords *pK, const DocValue *v){
  const DocValue *a = pK->aKw;
  DocIter it, itP;
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    int bNamed = 0;
    if( a[SK_PATTERNPROPERTIES].type ){
      docextIterInitValue(&itP, &a[SK_PATTERNPROPERTIES]);
      while( docextIterNext(&itP) ){
        DocRegex *pRe = schemaRegexAt(c->p, itP.zKey);
        int bMatch = 0;
        if( pRe && (c->rc = docextRegexMatch(pRe, it.zKey, it.nKey, &bMatch, &c->zErr)) ) return 0;
        if( bMatch ){
          bNamed = 1;
          if( !schemaValidAt(c, itP.v.p, &it.v, it.zKey, it.nKey, 0) ) return 0;
        }
      }
    }
    if( !bNamed && a[SK_PROPERTIES].type ){
      DocValue f;
      bNamed = docextBsonFind(a[SK_PROPERTIES].p, it.zKey, it.nKey, &f);
    }
    if( !bNamed && a[SK_ADDITIONALPROPERTIES].type ){
      const DocValue *pMore = &a[SK_ADDITIONALPROPERTIES];
      if( pMore->type==DOC_BOOL ){
        if( !pMore->p[0] ){
          return schemaFailField(c, it.zKey, it.nKey, "not allowed (additionalProperties: false)");
        }
      }else if( !schemaValidAt(c, pMore->p, &it.v, it.zKey, it.nKey, 0) ){
        return 0;
      }
    }
  }
  return 1;
}

/* The restrictions on an object (the whole document at the top). */
static int schemaObject(SchemaCtx *c, const SchemaKeywords *pK, const DocValue *v){
  const DocValue *a = pK->aKw;
  DocIter it;
  if( a[SK_PROPERTIES].type ){
    docextIterInitValue(&it, &a[SK_PROPERTIES]);
    while( docextIterNext(&it) ){
      DocValue f;
      int bThere = docextBsonFind(v->p, it.zKey, it.nKey, &f);
      int bRequired = a[SK_REQUIRED].type && schemaListHas(&a[SK_REQUIRED], it.zKey, it.nKey);
      if( (bThere || bRequired)
       && !schemaValidAt(c, it.v.p, bThere ? &f : 0, it.zKey, it.nKey, 0) ){
        return 0;
      }
    }
  }
  if( (a[SK_PATTERNPROPERTIES].type || a[SK_ADDITIONALPROPERTIES].type)
   && !schemaAllowedProperties(c, pK, v) ){
    return 0;
  }
  if( a[SK_REQUIRED].type ){
    docextIterInitValue(&it, &a[SK_REQUIRED]);
    while( docextIterNext(&it) ){
      DocValue f;
      int n;
      const char *z = docextValueStr(&it.v, &n);
      if( !docextBsonFind(v->p, z, n, &f) ){
        return schemaFailField(c, z, n, "required, but missing");
      }
    }
  }
  if( a[SK_MINPROPERTIES].type || a[SK_MAXPROPERTIES].type ){
    int n = docextIterCount(v);
    if( a[SK_MAXPROPERTIES].type && n>docextValueToDouble(&a[SK_MAXPROPERTIES]) ){
      return schemaFail(c, v, "maxProperties", &a[SK_MAXPROPERTIES], 0);
    }
    if( a[SK_MINPROPERTIES].type && n<docextValueToDouble(&a[SK_MINPROPERTIES]) ){
      return schemaFail(c, v, "minProperties", &a[SK_MINPROPERTIES], 0);
    }
  }
  return 1;
}

/* dependencies: for each field of the object that has one, its schema
** holds for the object, or its list of fields are all there. */
static int schemaDependencies(SchemaCtx *c, const DocValue *pDeps, const DocValue *v, int bTop){
  DocIter it, it2;
  if( v==0 || v->type!=DOC_DOCUMENT ) return 1;
  docextIterInitValue(&it, pDeps);
  while( docextIterNext(&it) ){
    DocValue f;
    if( !docextBsonFind(v->p, it.zKey, it.nKey, &f) ) continue;
    if( it.v.type==DOC_DOCUMENT ){
      if( !schemaValid(c, it.v.p, v, bTop) ) return 0;
    }else{
      docextIterInitValue(&it2, &it.v);
      while( docextIterNext(&it2) ){
        int n;
        const char *z = docextValueStr(&it2.v, &n);
        if( !docextBsonFind(v->p, z, n, &f) ){
          return schemaFailField(c, z, n, "required by dependencies, but missing");
        }
      }
    }
  }
  return 1;
}

/* enum: v is equal to one of the values. At the top, v is the document,
** which only the enum's objects can equal. */
static int schemaEnum(const DocValue *pEnum, const DocValue *v){
  DocIter it;
  if( v==0 ) return 0;
  docextIterInitValue(&it, pEnum);
  while( docextIterNext(&it) ){
    if( schemaEqual(v, &it.v) ) return 1;
  }
  return 0;
}

/* allOf, anyOf, oneOf: how many of the schemas hold, up to nStop. */
static int schemaCountValid(SchemaCtx *c, const DocValue *pList, const DocValue *v, int bTop,
                            int nStop){
  DocIter it;
  int n = 0;
  docextIterInitValue(&it, pList);
  while( docextIterNext(&it) && n<nStop && c->rc==SQLITE_OK ){
    n += schemaValid(c, it.v.p, v, bTop);
  }
  return n;
}

/* Does v (0: missing) satisfy the schema aS? bTop: v is the whole
** document. */
static int schemaValid(SchemaCtx *c, const u8 *aS, const DocValue *v, int bTop){
  const SchemaKeywords *pK = schemaKeywordsOf(c->p, aS);
  const DocValue *a = pK->aKw;
  const DocValue *pType;
  if( c->rc ) return 0;
  pType = a[SK_TYPE].type ? &a[SK_TYPE] : a[SK_BSONTYPE].type ? &a[SK_BSONTYPE] : 0;
  if( pType && (v==0 || !schemaTypeHas(pType, pType==&a[SK_TYPE], v)) ){
    return schemaFail(c, v, pType==&a[SK_TYPE] ? "type" : "bsonType", pType, 0);
  }
  if( v && !bTop ){
    if( docextValueIsNumber(v) ){
      if( a[SK_MAXIMUM].type && !schemaBound(v, &a[SK_MAXIMUM], &a[SK_EXCLUSIVEMAXIMUM], 1) ){
        return schemaFail(c, v, schemaIsTrue(&a[SK_EXCLUSIVEMAXIMUM]) ? "maximum (exclusive)"
                                : "maximum", &a[SK_MAXIMUM], 0);
      }
      if( a[SK_MINIMUM].type && !schemaBound(v, &a[SK_MINIMUM], &a[SK_EXCLUSIVEMINIMUM], 0) ){
        return schemaFail(c, v, schemaIsTrue(&a[SK_EXCLUSIVEMINIMUM]) ? "minimum (exclusive)"
                                : "minimum", &a[SK_MINIMUM], 0);
      }
      if( a[SK_MULTIPLEOF].type && !schemaMultipleOf(v, &a[SK_MULTIPLEOF]) ){
        return schemaFail(c, v, "multipleOf", &a[SK_MULTIPLEOF], 0);
      }
    }else if( v->type==DOC_STRING ){
      if( !schemaString(c, pK, v) ) return 0;
    }else if( v->type==DOC_ARRAY ){
      if( !schemaArray(c, pK, v) ) return 0;
    }
  }
  if( v && v->type==DOC_DOCUMENT && !schemaObject(c, pK, v) ) return 0;
  if( a[SK_DEPENDENCIES].type && !schemaDependencies(c, &a[SK_DEPENDENCIES], v, bTop) ) return 0;
  if( a[SK_ALLOF].type
   && schemaCountValid(c, &a[SK_ALLOF], v, bTop, 1<<30)!=docextIterCount(&a[SK_ALLOF]) ){
    return 0;
  }
  /* (a branch of anyOf or oneOf that fails, or not's schema, is no reason) */
  if( a[SK_ANYOF].type ){
    int n;
    c->nMute++;
    n = schemaCountValid(c, &a[SK_ANYOF], v, bTop, 1);
    c->nMute--;
    if( n==0 ) return schemaFail(c, v, "anyOf", 0, "(no schema holds)");
  }
  if( a[SK_ONEOF].type ){
    int n;
    c->nMute++;
    n = schemaCountValid(c, &a[SK_ONEOF], v, bTop, 2);
    c->nMute--;
    if( n!=1 ) return schemaFail(c, v, "oneOf", 0, n ? "(more than one schema holds)"
                                                      : "(no schema holds)");
  }
  if( a[SK_NOT].type ){
    int bHolds;
    c->nMute++;
    bHolds = schemaValid(c, a[SK_NOT].p, v, bTop);
    c->nMute--;
    if( bHolds ) return schemaFail(c, v, "not", 0, "(its schema holds)");
  }
  if( a[SK_ENUM].type && !schemaEnum(&a[SK_ENUM], v) ){
    return schemaFail(c, v, "enum", &a[SK_ENUM], 0);
  }
  return c->rc==SQLITE_OK;
}

/*------------------------------------------------------------------------
** The interface
*/

int docextSchemaNew(const DocValue *v, DocSchema **ppOut, char **pzErr){
  DocSchema *p;
  SchemaParse sParse;
  *ppOut = 0;
  if( v->type!=DOC_DOCUMENT ){
    *pzErr = sqlite3_mprintf("docext: $jsonSchema must be an object");
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  p = docextMallocZero(sizeof(*p) + (size_t)v->n);
  if( p==0 ) return SQLITE_NOMEM;
  p->aSchema = (u8*)&p[1];
  memcpy(p->aSchema, v->p, (size_t)v->n);
  memset(&sParse, 0, sizeof(sParse));
  sParse.p = p;
  if( schemaCheck(&sParse, p->aSchema)==SQLITE_OK ){
    /* (in address order, for schemaKeywordsOf's binary search) */
    SchemaNode *aTmp = sqlite3_malloc64(sizeof(SchemaNode)*(sqlite3_uint64)p->nNode);
    if( aTmp==0 ) sParse.rc = SQLITE_NOMEM;
    else docextSort(p->aNode, p->nNode, (int)sizeof(SchemaNode), aTmp, schemaNodeCmp, 0);
    sqlite3_free(aTmp);
  }
  if( sParse.rc ){
    docextSchemaFree(p);
    *pzErr = sParse.zErr;
    return sParse.rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

/* Check aDoc against p; explaining when pWhy is not NULL. */
static int schemaRun(DocSchema *p, const u8 *aDoc, int *pbMatch, DocBuf *pWhy, char **pzErr){
  SchemaCtx c;
  DocValue v;
  v.type = DOC_DOCUMENT;
  v.p = aDoc;
  v.n = docextGetI32(aDoc);
  memset(&c, 0, sizeof(c));
  c.p = p;
  c.pWhy = pWhy;
  *pbMatch = schemaValid(&c, p->aSchema, &v, 1);
  docextBufFree(&c.path);
  if( c.rc ){
    *pbMatch = 0;
    *pzErr = c.zErr;
  }
  return c.rc;
}

int docextSchemaMatch(DocSchema *p, const u8 *aDoc, int *pbMatch, char **pzErr){
  return schemaRun(p, aDoc, pbMatch, 0, pzErr);
}

int docextSchemaExplain(DocSchema *p, const u8 *aDoc, DocBuf *pWhy, char **pzErr){
  int bMatch = 0;
  return schemaRun(p, aDoc, &bMatch, pWhy, pzErr);
}

void docextSchemaFree(DocSchema *p){
  if( p ){
    int i;
    for(i=0; i<p->nRe; i++) docextRegexFree(p->aRe[i].pRe);
    sqlite3_free(p->aRe);
    sqlite3_free(p->aNode);
    sqlite3_free(p);
  }
}
