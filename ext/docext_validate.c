/*
** docext_validate.c — schema validation, as MongoDB's collection
** validators: doc_coll_mod(coll, options) gives a collection a validator
** (a query filter: $jsonSchema, query operators, $expr), a
** validationLevel and a validationAction, and every insert and
** replacement of one of its documents (updates, upserts, INSERT OR REPLACE
** included) is checked against it (docextValidateWrite, called by
** docext_coll.c).
**
** MongoDB's rules:
**   - validationLevel "strict" (the default) checks every insert and
**     update; "moderate" checks inserts, and updates of documents that
**     satisfied the validator before the update (a document that was
**     already invalid may still be changed); "off" checks nothing;
**   - validationAction "error" (the default) refuses the write: "Document
**     failed validation" (here SQLITE_CONSTRAINT, so an INSERT OR IGNORE
**     skips the document, as SQL does with a CHECK constraint); "warn" lets
**     it through and logs the message (sqlite3_log, SQLITE_WARNING);
**     "errorAndLog" (MongoDB 8.1) refuses it and logs the message;
**   - setting a validator does not check the documents already there
**     (find them with {$nor: [validator]}); a validator of {} removes it;
**   - moving chunks between shards does not validate (the documents are
**     not being written by anyone; docextCollBypassValidation).
**
** The settings are one document in the collection's X_config, cached with
** its index definitions (docextCollValidation). On a sharded collection
** each partition keeps a copy, so that a write to one shard's partition
** alone is checked too.
*/
#include "docextInt.h"

enum { LEVEL_OFF, LEVEL_STRICT, LEVEL_MODERATE };
enum { ACTION_ERROR, ACTION_WARN, ACTION_ERROR_AND_LOG };

static const char *const azLevel[] = { "off", "strict", "moderate" };
static const char *const azAction[] = { "error", "warn", "errorAndLog" };

/* A collection's settings, read from a document (validationRead). */
typedef struct Validation Validation;
struct Validation {
  const u8 *aFilter;        /* the validator, or NULL for none ({}) */
  int eLevel;
  int eAction;
};

/* The compiled settings, kept in a DocColl (docextCollValidatorSlot). */
struct DocValidator {
  i64 iTag;                 /* docextCollValidation's tag they are of */
  u8 *aSpec;                /* a copy of the settings document */
  Validation v;             /* read from aSpec */
  DocMatcher *pMatch;       /* v.aFilter compiled, or NULL */
  i64 nowMs;                /* $$NOW of one check (0: not read yet) */
};

void docextValidatorFree(DocValidator *p){
  if( p==0 ) return;
  docextMatcherFree(p->pMatch);
  sqlite3_free(p->aSpec);
  sqlite3_free(p);
}

/* The index of string value pV in azName[0..n), or -1. */
static int nameIndex(const DocValue *pV, const char *const *azName, int n){
  const char *z;
  int nz;
  if( pV->type!=DOC_STRING ) return -1;
  z = docextValueStr(pV, &nz);
  return docextNameIndex(z, nz, azName, n);
}

/* Read the settings in aDoc (a validated document) over *pV: only those
** aDoc names change. zWhere ends each error's message. */
static int validationRead(const u8 *aDoc, Validation *pV, const char *zWhere, char **pzErr){
  DocIter it;
  docextIterInit(&it, aDoc);
  while( docextIterNext(&it)>0 ){
    if( docextIterKeyIs(&it, "validator") ){
      if( it.v.type!=DOC_DOCUMENT ){
        return docextError(pzErr, "docext: validator must be a document %s", zWhere);
      }
      pV->aFilter = docextGetI32(it.v.p)>5 ? it.v.p : 0;
    }else if( docextIterKeyIs(&it, "validationLevel") ){
      pV->eLevel = nameIndex(&it.v, azLevel, DOCEXT_COUNT(azLevel));
      if( pV->eLevel<0 ){
        return docextError(pzErr, "docext: validationLevel must be \"off\", \"strict\" or "
                           "\"moderate\" %s", zWhere);
      }
    }else if( docextIterKeyIs(&it, "validationAction") ){
      pV->eAction = nameIndex(&it.v, azAction, DOCEXT_COUNT(azAction));
      if( pV->eAction<0 ){
        return docextError(pzErr, "docext: validationAction must be \"error\", \"warn\" or "
                           "\"errorAndLog\" %s", zWhere);
      }
    }else{
      return docextError(pzErr, "docext: unknown option '%s' %s (known: validator, "
                         "validationLevel, validationAction%s)", it.zKey, zWhere,
                         strstr(zWhere, "CREATE") ? ", collation" : "");
    }
  }
  return SQLITE_OK;
}

/* The settings as a document: {validator, validationLevel, validationAction}. */
static void validationWrite(int *pRc, const Validation *pV, DocBuf *pOut){
  static const u8 aEmpty[5] = { 5, 0, 0, 0, 0 };
  DocValue filter;
  const char *zLevel = azLevel[pV->eLevel], *zAction = azAction[pV->eAction];
  i64 iStart = docextBsonStartDoc(pRc, pOut);
  filter.type = DOC_DOCUMENT;
  filter.p = pV->aFilter ? pV->aFilter : aEmpty;
  filter.n = docextGetI32(filter.p);
  docextBsonAppendValue(pRc, pOut, "validator", 9, &filter);
  docextBsonAppendString(pRc, pOut, DOC_STRING, "validationLevel", 15,
                         zLevel, (int)strlen(zLevel));
  docextBsonAppendString(pRc, pOut, DOC_STRING, "validationAction", 16,
                         zAction, (int)strlen(zAction));
  docextBsonEndDoc(pRc, pOut, iStart);
}

static void validationDefaults(Validation *pV){
  pV->aFilter = 0;
  pV->eLevel = LEVEL_STRICT;
  pV->eAction = ACTION_ERROR;
}

/* Put zWhat before the reason the error *pzErr gives: "docext: <zWhat>:
** <reason>". */
static void errorPrefix(int rc, char **pzErr, const char *zWhat){
  char *z = *pzErr;
  const char *zWhy = z ? z : sqlite3_errstr(rc);
  if( strncmp(zWhy, "docext: ", 8)==0 ) zWhy += 8;
  *pzErr = sqlite3_mprintf("docext: %s: %s", zWhat, zWhy);
  sqlite3_free(z);
}

/* Stored settings that do not read back (someone edited X_config). */
static int settingsCorrupt(DocColl *p, int rc, char **pzErr){
  char *zWhat;
  if( rc==SQLITE_NOMEM ) return rc;
  zWhat = sqlite3_mprintf("corrupt validation settings in %s", docextCollName(p));
  if( zWhat==0 ) return SQLITE_NOMEM;
  errorPrefix(rc, pzErr, zWhat);
  sqlite3_free(zWhat);
  return SQLITE_CORRUPT_VTAB;
}

/* The collection's settings, compiled: *ppV NULL when it has none. */
static int validatorGet(DocColl *p, DocValidator **ppV, char **pzErr){
  DocValidator **pp = docextCollValidatorSlot(p);
  DocValidator *pNew;
  const u8 *aSpec = 0;
  i64 iTag = 0;
  int n, rc = docextCollValidation(p, &aSpec, &iTag, pzErr);
  *ppV = 0;
  if( rc!=SQLITE_OK || aSpec==0 ) return rc;
  if( *pp && (*pp)->iTag==iTag ){
    *ppV = *pp;
    return SQLITE_OK;
  }
  docextValidatorFree(*pp);
  *pp = 0;
  n = docextGetI32(aSpec);
  pNew = docextMallocZero(sizeof(*pNew));
  if( pNew==0 ) return SQLITE_NOMEM;
  pNew->aSpec = sqlite3_malloc(n);
  if( pNew->aSpec==0 ){
    docextValidatorFree(pNew);
    return SQLITE_NOMEM;
  }
  memcpy(pNew->aSpec, aSpec, n);
  pNew->iTag = iTag;
  validationDefaults(&pNew->v);
  rc = validationRead(pNew->aSpec, &pNew->v, "in the stored validation settings", pzErr);
  if( rc==SQLITE_OK && pNew->v.aFilter ){
    rc = docextMatcherNew(pNew->v.aFilter, 0, &pNew->nowMs, &pNew->pMatch, pzErr);
  }
  if( rc!=SQLITE_OK ){
    docextValidatorFree(pNew);
    return settingsCorrupt(p, rc, pzErr);
  }
  *pp = *ppV = pNew;
  return SQLITE_OK;
}

int docextValidateActive(DocColl *p, int *pbActive, char **pzErr){
  DocValidator *pV = 0;
  int rc = validatorGet(p, &pV, pzErr);
  *pbActive = pV && pV->pMatch && pV->v.eLevel!=LEVEL_OFF;
  return rc;
}

/* Does aDoc satisfy the compiled filter pMatch? (now: a fresh $$NOW) */
static int satisfies(DocValidator *pV, DocMatcher *pMatch, const u8 *aDoc, int *pbOk,
                     char **pzErr){
  pV->nowMs = 0;
  return docextMatcherMatch(pMatch, aDoc, pbOk, 0, pzErr);
}

/* When the condition aCond (a document) is {$jsonSchema: schema}: why aDoc
** fails the schema, into pWhy. */
static int schemaReason(const u8 *aCond, const u8 *aDoc, DocBuf *pWhy, char **pzErr){
  DocIter it;
  DocSchema *pSchema = 0;
  int rc;
  docextIterInit(&it, aCond);
  if( docextIterNext(&it)<=0 || !docextIterKeyIs(&it, "$jsonSchema") ) return SQLITE_OK;
  rc = docextSchemaNew(&it.v, &pSchema, pzErr);
  if( rc==SQLITE_OK ) rc = docextSchemaExplain(pSchema, aDoc, pWhy, pzErr);
  docextSchemaFree(pSchema);
  return rc;
}

/* The values a path reaches (fieldReason). */
typedef struct FieldFound FieldFound;
struct FieldFound {
  int n;                    /* how many */
  int bFanned;              /* some through an array */
  DocValue v;               /* the first */
};
static int fieldVisit(void *pCtx, const DocValue *v, int bFanned){
  FieldFound *p = (FieldFound*)pCtx;
  if( p->n++==0 ) p->v = *v;
  p->bFanned |= bFanned;
  return p->n>1 ? SQLITE_DONE : SQLITE_OK;
}

/* When the condition aCond is on one field ({status: {$in: […]}}): what
** the document holds there, into pWhy ("found "Z"", "found nothing
** (missing)"); nothing when the path reaches values through an array. */
static void fieldReason(int *pRc, const u8 *aCond, const u8 *aDoc, DocBuf *pWhy){
  enum { FOUND_MAX = 100 };
  FieldFound f;
  DocIter it;
  i64 iFound;
  docextIterInit(&it, aCond);
  if( docextIterNext(&it)<=0 || it.zKey[0]=='$' ) return;
  memset(&f, 0, sizeof(f));
  docextPathWalk(aDoc, it.zKey, it.nKey, fieldVisit, &f);
  if( f.n>1 || f.bFanned ) return;
  docextBufAppendStr(pRc, pWhy, "found ");
  iFound = pWhy->n;
  if( f.n ) docextValueToString(pRc, pWhy, &f.v);
  else docextBufAppendStr(pRc, pWhy, "nothing (missing)");
  docextBufCutText(pRc, pWhy, iFound, FOUND_MAX);
}

/* The first condition of the validator aDoc fails: one of its top-level
** fields, or of the documents in a top-level $and, as {field: value},
** appended to pOut as relaxed JSON, and why, into pWhy: for a $jsonSchema
** where and which keyword, for a field's condition what the field holds.
** The whole validator if none fails alone. */
static int failedCondition(DocValidator *pV, const u8 *aDoc, DocBuf *pOut, DocBuf *pWhy,
                           char **pzErr){
  DocBuf one;
  DocIter it;
  int rc = SQLITE_OK, bFound = 0;
  memset(&one, 0, sizeof(one));
  docextIterInit(&it, pV->v.aFilter);
  while( rc==SQLITE_OK && !bFound && docextIterNext(&it)>0 ){
    DocIter sub;
    int bAnd = docextIterKeyIs(&it, "$and") && it.v.type==DOC_ARRAY;
    if( bAnd ) docextIterInit(&sub, it.v.p);
    while( rc==SQLITE_OK && !bFound ){
      DocMatcher *pMatch = 0;
      int bOk = 1;
      docextBufReset(&one);
      if( bAnd ){
        if( docextIterNext(&sub)<=0 ) break;
        if( sub.v.type!=DOC_DOCUMENT ) continue;
        docextBufAppend(&rc, &one, sub.v.p, sub.v.n);
      }else{
        i64 iStart = docextBsonStartDoc(&rc, &one);
        docextBsonAppendValue(&rc, &one, it.zKey, it.nKey, &it.v);
        docextBsonEndDoc(&rc, &one, iStart);
      }
      if( rc==SQLITE_OK ) rc = docextMatcherNew(one.a, 0, &pV->nowMs, &pMatch, pzErr);
      if( rc==SQLITE_OK ) rc = satisfies(pV, pMatch, aDoc, &bOk, pzErr);
      docextMatcherFree(pMatch);
      if( rc==SQLITE_OK && !bOk ){
        docextJsonWriteDoc(&rc, pOut, one.a, DOCEXT_JSON_RELAXED);
        if( rc==SQLITE_OK ) rc = schemaReason(one.a, aDoc, pWhy, pzErr);
        fieldReason(&rc, one.a, aDoc, pWhy);
        bFound = 1;
      }
      if( !bAnd ) break;
    }
  }
  if( rc==SQLITE_OK && !bFound ) docextJsonWriteDoc(&rc, pOut, pV->v.aFilter, DOCEXT_JSON_RELAXED);
  docextBufFree(&one);
  return rc;
}

/* The longest a condition is quoted in a message: shorter when the
** message also says why (a $jsonSchema's reason). */
#define VALIDATE_QUOTE_MAX 300
#define VALIDATE_QUOTE_WHY 100

/* "docext: Document failed validation: { _id: 1 } in books does not
** satisfy {"age":{"$gte":18}}: found 10", in *pzMsg (for a $jsonSchema,
** why: ": at 'age': minimum: 18, found 10"). */
static int failMessage(DocColl *p, DocValidator *pV, const u8 *aDoc, char **pzMsg,
                       char **pzErr){
  DocBuf msg, cond, why;
  DocIter it;
  int rc = SQLITE_OK;
  memset(&msg, 0, sizeof(msg));
  memset(&cond, 0, sizeof(cond));
  memset(&why, 0, sizeof(why));
  docextBufAppendStr(&rc, &msg, "docext: Document failed validation: { _id: ");
  docextIterInit(&it, aDoc);
  if( docextIterNext(&it)>0 ) docextValueToString(&rc, &msg, &it.v);   /* (_id is first) */
  docextBufAppendStr(&rc, &msg, " } in ");
  docextBufAppendStr(&rc, &msg, docextCollName(p));
  docextBufAppendStr(&rc, &msg, " does not satisfy ");
  if( rc==SQLITE_OK ) rc = failedCondition(pV, aDoc, &cond, &why, pzErr);
  docextBufCutText(&rc, &cond, 0, why.n ? VALIDATE_QUOTE_WHY : VALIDATE_QUOTE_MAX);
  docextBufAppend(&rc, &msg, cond.a, cond.n);
  if( why.n ){
    docextBufAppendStr(&rc, &msg, ": ");
    docextBufAppend(&rc, &msg, why.a, why.n);
  }
  *pzMsg = docextBufDetachText(&rc, &msg);
  docextBufFree(&msg);
  docextBufFree(&cond);
  docextBufFree(&why);
  return rc;
}

int docextValidateWrite(DocColl *p, const u8 *aOld, const u8 *aNew, char **pzErr){
  DocValidator *pV = 0;
  char *zMsg = 0;
  int bOk = 1;
  int rc = validatorGet(p, &pV, pzErr);
  if( rc!=SQLITE_OK || pV==0 || pV->pMatch==0 || pV->v.eLevel==LEVEL_OFF ) return rc;
  if( aOld && pV->v.eLevel==LEVEL_MODERATE ){
    /* an update of a document that was invalid already: not checked */
    rc = satisfies(pV, pV->pMatch, aOld, &bOk, pzErr);
    if( rc!=SQLITE_OK || !bOk ) return rc;
  }
  rc = satisfies(pV, pV->pMatch, aNew, &bOk, pzErr);
  if( rc!=SQLITE_OK || bOk ) return rc;
  rc = failMessage(p, pV, aNew, &zMsg, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  if( pV->v.eAction!=ACTION_ERROR ) sqlite3_log(SQLITE_WARNING, "%s", zMsg);
  if( pV->v.eAction==ACTION_WARN ){
    sqlite3_free(zMsg);
    return SQLITE_OK;
  }
  *pzErr = zMsg;
  return SQLITE_CONSTRAINT;
}

/*------------------------------------------------------------------------
** doc_coll_mod(coll, options)
*/

/* The options aOpt (zWhere says whose, for errors) applied over *pV, as
** a document in pSpec; *pbStore: 0 when they leave the defaults (nothing
** to store). The validator is compiled, to give its errors now rather than
** at the next write. */
static int settingsApply(Validation *pV, const u8 *aOpt, const char *zWhere, DocBuf *pSpec,
                         int *pbStore, char **pzErr){
  int rc = validationRead(aOpt, pV, zWhere, pzErr);
  if( rc==SQLITE_OK && pV->aFilter ){
    DocMatcher *pMatch = 0;
    i64 nowMs = 0;
    rc = docextMatcherNew(pV->aFilter, 0, &nowMs, &pMatch, pzErr);
    docextMatcherFree(pMatch);
    if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ) errorPrefix(rc, pzErr, "bad validator");
  }
  docextBufReset(pSpec);
  if( rc==SQLITE_OK ) validationWrite(&rc, pV, pSpec);
  *pbStore = pV->aFilter || pV->eLevel!=LEVEL_STRICT || pV->eAction!=ACTION_ERROR;
  return rc;
}

/* The settings of p with aOpt (doc_coll_mod's options) applied. */
static int collModSettings(DocColl *p, const u8 *aOpt, DocBuf *pSpec, int *pbStore,
                           char **pzErr){
  const u8 *aOld = 0;
  i64 iTag = 0;
  Validation v;
  int rc = docextCollValidation(p, &aOld, &iTag, pzErr);
  validationDefaults(&v);
  if( rc==SQLITE_OK && aOld
   && validationRead(aOld, &v, "in the stored validation settings", pzErr)!=SQLITE_OK ){
    /* Settings that do not read (someone wrote X_config): the ones given
    ** now replace them, which is how they are mended. */
    sqlite3_free(*pzErr);
    *pzErr = 0;
    validationDefaults(&v);
  }
  if( rc==SQLITE_OK ) rc = settingsApply(&v, aOpt, "in doc_coll_mod", pSpec, pbStore, pzErr);
  return rc;
}

/* Store the settings aSpec (NULL: none) in p and, when it is sharded, in
** each partition. */
static int collModStore(DocColl *p, DocRouter *pR, const u8 *aSpec, char **pzErr){
  DocPartition *aPart = 0;
  int nPart = 0, k;
  int rc = docextCollSetValidation(p, aSpec, pzErr);
  if( rc==SQLITE_OK && pR ) rc = docextRouterPartitions(pR, &aPart, &nPart, pzErr);
  for(k=0; rc==SQLITE_OK && k<nPart; k++){
    if( aPart[k].pColl!=p ) rc = docextCollSetValidation(aPart[k].pColl, aSpec, pzErr);
  }
  sqlite3_free(aPart);
  return rc;
}

static void collModFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  DocColl *p = 0;
  DocRouter *pR = 0;
  DocBuf opt, spec, out;
  const u8 *aOpt = 0;
  char *zErr = 0;
  int rc, bSave = 0, bStore = 0;
  (void)argc;
  memset(&opt, 0, sizeof(opt));
  memset(&spec, 0, sizeof(spec));
  memset(&out, 0, sizeof(out));
  rc = docextCollFindArg(pConn, ctx, 0, argv[0], &p, &zErr);
  if( rc==SQLITE_OK ) rc = docextRouterOpen(pConn, p, &pR, &zErr);
  if( rc==SQLITE_OK && sqlite3_value_type(argv[1])==SQLITE_NULL ){
    rc = docextError(&zErr, "docext: doc_coll_mod needs options (validator, "
                     "validationLevel, validationAction; '{}' changes nothing)");
  }
  if( rc==SQLITE_OK ) rc = docextArgToBson(argv[1], &opt, &aOpt, &zErr);
  if( rc==SQLITE_OK ){
    /* (one savepoint over every partition, as SQLite's cover every
    ** attached database) */
    DocStore *pStore = docextCollStore(p);
    bSave = docextStorageSavepoint(pStore, DOCEXT_SP_OPEN)==SQLITE_OK;
    if( bSave ) rc = docextStorageSavepoint(pStore, DOCEXT_SP_LOCK);
    if( rc==SQLITE_OK ) rc = collModSettings(p, aOpt, &spec, &bStore, &zErr);
    if( rc==SQLITE_OK ) rc = collModStore(p, pR, bStore ? spec.a : 0, &zErr);
    if( bSave ) rc = docextStorageSavepointEnd(pStore, rc);
  }
  /* (the result: the settings now, the defaults included) */
  if( rc==SQLITE_OK ) docextJsonWriteDoc(&rc, &out, spec.a, DOCEXT_JSON_RELAXED);
  docextRouterFree(pR);
  if( rc==SQLITE_OK ){
    sqlite3_result_text64(ctx, (const char*)out.a, (sqlite3_uint64)out.n, SQLITE_TRANSIENT,
                          SQLITE_UTF8);
    sqlite3_free(zErr);
  }else{
    docextResultError(ctx, rc, zErr);
  }
  docextBufFree(&opt);
  docextBufFree(&spec);
  docextBufFree(&out);
}

/*------------------------------------------------------------------------
** CREATE VIRTUAL TABLE x USING docext('{validator: …, …}')
*/

/* The argument as SQL wrote it, a string literal ('{…}', with '' for a
** quote), parsed into pOpt. */
static int createArgParse(const char *zArg, DocBuf *pOpt, char **pzErr){
  DocBuf text;
  int rc = SQLITE_OK, nUsed = 0;
  size_t n = strlen(zArg), i;
  memset(&text, 0, sizeof(text));
  if( n<2 || (zArg[0]!='\'' && zArg[0]!='"') || zArg[n-1]!=zArg[0] ){
    return docextError(pzErr, "docext: unexpected argument %s in CREATE VIRTUAL TABLE … "
                       "USING docext(…): it takes a document of options in a string "
                       "literal, docext('{validator: …}')", zArg);
  }
  for(i=1; i+1<n; i++){
    docextBufAppendByte(&rc, &text, (u8)zArg[i]);
    if( zArg[i]==zArg[0] ) i++;                  /* (a doubled quote) */
  }
  if( rc==SQLITE_OK ){
    rc = docextJsonParse((const char*)text.a, (int)text.n, 1, pOpt, &nUsed, pzErr);
    if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){
      errorPrefix(rc, pzErr, "the options of CREATE VIRTUAL TABLE … USING docext(…) are a "
                             "document in a string literal");
    }
  }
  docextBufFree(&text);
  return rc;
}

/* The options of CREATE VIRTUAL TABLE without their collation, into pOut;
** the collation's full spec into pCollation (left empty for none or
** "simple"). */
static int createCollation(const u8 *aOpt, DocBuf *pOut, DocBuf *pCollation, char **pzErr){
  DocIter it;
  int rc = SQLITE_OK;
  i64 iStart = docextBsonStartDoc(&rc, pOut);
  docextIterInit(&it, aOpt);
  while( rc==SQLITE_OK && docextIterNext(&it)>0 ){
    if( docextIterKeyIs(&it, "collation") ){
      DocCollator *pColl = 0;
      rc = docextCollatorNew(&it.v, &pColl, pzErr);
      docextBufReset(pCollation);
      if( rc==SQLITE_OK && pColl ){
        const u8 *aSpec = docextCollatorSpec(pColl);
        docextBufAppend(&rc, pCollation, aSpec, docextGetI32(aSpec));
      }
      docextCollatorFree(pColl);
    }else{
      docextBsonAppendValue(&rc, pOut, it.zKey, it.nKey, &it.v);
    }
  }
  docextBsonEndDoc(&rc, pOut, iStart);
  return rc;
}

int docextValidateCreateSettings(const char *zArg, DocBuf *pSpec, DocBuf *pCollation,
                                 char **pzErr){
  DocBuf opt, rest;
  Validation v;
  int rc, bStore = 0;
  memset(&opt, 0, sizeof(opt));
  memset(&rest, 0, sizeof(rest));
  validationDefaults(&v);
  rc = createArgParse(zArg, &opt, pzErr);
  if( rc==SQLITE_OK ) rc = createCollation(opt.a, &rest, pCollation, pzErr);
  if( rc==SQLITE_OK ){
    rc = settingsApply(&v, rest.a, "in CREATE VIRTUAL TABLE … USING docext(…)", pSpec,
                       &bStore, pzErr);
  }
  if( !bStore ) docextBufReset(pSpec);
  docextBufFree(&opt);
  docextBufFree(&rest);
  return rc;
}

/* SQLITE_DIRECTONLY: it writes to the database (as doc_create_index). */
int docextRegisterValidateFunctions(sqlite3 *db, DocConn *pConn){
  static const DocFuncDef aFunc[] = {
    { "doc_coll_mod", 2, SQLITE_UTF8|SQLITE_DIRECTONLY, collModFunc },
  };
  return docextCreateFunctions(db, pConn, aFunc, DOCEXT_COUNT(aFunc));
}
