/*
** docext_func.c — SQL functions on any document value (INTERFACE.md §4)
** and the doc_each table-valued function.
**
** A document argument is a BLOB of BSON (validated here, at the trust
** boundary) or TEXT in any accepted syntax (docext_json.c). TEXT in gives
** TEXT out and BLOB in gives BLOB out, unless the function says otherwise.
**
** Flags: functions whose result depends only on their arguments are
** SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS, so they can serve in expression
** indexes, generated columns and views of untrusted schemas. So their
** document argument, as text, may not use ObjectId(), new Date() or
** ISODate() without an argument (docextArgToBsonFixed): the same text
** would give another document at each reading, and an index on
** doc_get(x, 'a') would no longer find its own entries. (Filters and
** projections may: doc_match() parses its filter once per statement.)
** doc_valid() only says whether text parses. doc_oid() reads the clock and
** randomness: innocuous but not deterministic. doc_config() changes the
** process's clock: SQLITE_DIRECTONLY.
*/
#include "docextInt.h"

/* An argument as a validated document; bFixed: text must give the same
** document at every reading (docextJsonParseFixed). pbPipeline, if not
** NULL: text may also be an array (an update's pipeline), said there. */
static int argToBson(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paDoc, int bFixed,
                     int *pbNamesChecked, int *pbPipeline, char **pzErr){
  int nUsed = 0;
  if( pbNamesChecked ) *pbNamesChecked = 0;
  if( pbPipeline ) *pbPipeline = 0;
  switch( sqlite3_value_type(pArg) ){
    case SQLITE_BLOB: {
      const u8 *a = sqlite3_value_blob(pArg);
      int n = sqlite3_value_bytes(pArg);
      if( a==0 && n>0 ) return SQLITE_NOMEM;
      if( n==0 ){
        return docextError(pzErr, "docext: malformed BSON at byte 0: empty BLOB");
      }
      if( docextBsonCheck(a, n, pzErr) ) return SQLITE_ERROR;
      *paDoc = a;
      return SQLITE_OK;
    }
    case SQLITE_TEXT: {
      const char *z = (const char*)sqlite3_value_text(pArg);
      int n = sqlite3_value_bytes(pArg);
      int rc;
      if( z==0 ) return SQLITE_NOMEM;
      docextBufReset(pBuf);
      if( pbPipeline ){
        rc = docextJsonParseUpdate(z, n, pBuf, pbPipeline, pzErr);
      }else if( bFixed ){
        rc = docextJsonParseFixed(z, n, pBuf, pzErr);
      }else if( pbNamesChecked ){
        rc = docextJsonParseStored(z, n, pBuf, pbNamesChecked, pzErr);
      }else{
        rc = docextJsonParse(z, n, 1, pBuf, &nUsed, pzErr);
      }
      if( rc==SQLITE_OK ) *paDoc = pBuf->a;
      return rc;
    }
    case SQLITE_NULL:
      *pzErr = sqlite3_mprintf("docext: expected a document, got NULL");
      return SQLITE_MISMATCH;
    default:
      *pzErr = sqlite3_mprintf("docext: expected a document (BSON BLOB or "
                               "JSON TEXT), got a number");
      return SQLITE_MISMATCH;
  }
}

int docextArgToBson(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paDoc, char **pzErr){
  return argToBson(pArg, pBuf, paDoc, 0, 0, 0, pzErr);
}

int docextArgToUpdate(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paDoc, int *pbPipeline,
                      char **pzErr){
  return argToBson(pArg, pBuf, paDoc, 0, 0, pbPipeline, pzErr);
}

int docextArgToBsonFixed(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paDoc, char **pzErr){
  return argToBson(pArg, pBuf, paDoc, 1, 0, 0, pzErr);
}

int docextArgToBsonStored(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paDoc,
                          int *pbNamesChecked, char **pzErr){
  return argToBson(pArg, pBuf, paDoc, 0, pbNamesChecked, 0, pzErr);
}

/* An error without a message (from SQLite, under a damaged collection)
** still gets one, "docext: " and what the connection says. */
void docextResultError(sqlite3_context *ctx, int rc, char *zErr){
  if( rc==SQLITE_NOMEM ){
    /* (a message some step made of SQLite's "out of memory" would turn
    ** the failure into an ordinary error) */
    sqlite3_free(zErr);
    sqlite3_result_error_nomem(ctx);
  }else if( zErr ){
    sqlite3_result_error(ctx, zErr, -1);
    sqlite3_free(zErr);
  }else if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else{
    sqlite3 *db = sqlite3_context_db_handle(ctx);
    char *z = sqlite3_mprintf("docext: %s", sqlite3_errcode(db)!=SQLITE_OK
                              ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_result_error(ctx, z ? z : sqlite3_errstr(rc), -1);
    sqlite3_free(z);
    if( (rc & 0xff)!=SQLITE_ERROR ) sqlite3_result_error_code(ctx, rc);
  }
}

void docextResultDoc(sqlite3_context *ctx, sqlite3_value *pArg, DocBuf *pDoc){
  if( sqlite3_value_type(pArg)==SQLITE_BLOB ){
    docextBufResultBlob(ctx, pDoc);
  }else{
    DocBuf txt;
    int rc = SQLITE_OK;
    memset(&txt, 0, sizeof(txt));
    docextJsonWriteDoc(&rc, &txt, pDoc->a, DOCEXT_JSON_RELAXED);
    if( rc==SQLITE_OK ) docextBufResultText(ctx, &txt);
    else if( rc==SQLITE_NOMEM ) sqlite3_result_error_nomem(ctx);
    else sqlite3_result_error_code(ctx, rc);
    docextBufFree(&txt);
  }
}

/* Report an error from a function: message (owned) or just the code. */
static void resultError(sqlite3_context *ctx, int rc, char *zErr){
  if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else if( zErr ){
    sqlite3_result_error(ctx, zErr, -1);
    if( rc!=SQLITE_ERROR ) sqlite3_result_error_code(ctx, rc);
  }else if( rc==SQLITE_TOOBIG ){
    sqlite3_result_error(ctx, "docext: document larger than 16 MiB", -1);
  }else{
    sqlite3_result_error_code(ctx, rc);
  }
  sqlite3_free(zErr);
}

/* Read argument i as a document. 1 on success; on failure the error is
** already the function's result. NULL arguments give a NULL result. */
static int argDoc(sqlite3_context *ctx, sqlite3_value **argv, int i,
                  DocBuf *pBuf, const u8 **paDoc){
  char *zErr = 0;
  int rc;
  if( sqlite3_value_type(argv[i])==SQLITE_NULL ) return 0;
  rc = docextArgToBsonFixed(argv[i], pBuf, paDoc, &zErr);
  if( rc!=SQLITE_OK ){
    resultError(ctx, rc, zErr);
    return 0;
  }
  return 1;
}

/* doc_json(d [, mode]) */
static void docJsonFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocBuf in, out;
  const u8 *aDoc;
  int eMode = DOCEXT_JSON_RELAXED, rc = SQLITE_OK;
  if( argc>1 && sqlite3_value_type(argv[1])!=SQLITE_NULL ){
    const char *zMode = (const char*)sqlite3_value_text(argv[1]);
    if( zMode && sqlite3_stricmp(zMode, "relaxed")==0 ) eMode = DOCEXT_JSON_RELAXED;
    else if( zMode && sqlite3_stricmp(zMode, "canonical")==0 ) eMode = DOCEXT_JSON_CANONICAL;
    else if( zMode && sqlite3_stricmp(zMode, "shell")==0 ) eMode = DOCEXT_JSON_SHELL;
    else{
      char *z = sqlite3_mprintf("docext: unknown doc_json mode '%s' "
                                "(relaxed, canonical or shell)", zMode ? zMode : "");
      resultError(ctx, SQLITE_ERROR, z);
      return;
    }
  }
  memset(&in, 0, sizeof(in));
  memset(&out, 0, sizeof(out));
  if( argDoc(ctx, argv, 0, &in, &aDoc) ){
    docextJsonWriteDoc(&rc, &out, aDoc, eMode);
    if( rc==SQLITE_OK ) docextBufResultText(ctx, &out);
    else resultError(ctx, rc, 0);
  }
  docextBufFree(&in);
  docextBufFree(&out);
}

/* doc_bson(d) */
static void docBsonFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocBuf in;
  const u8 *aDoc;
  (void)argc;
  memset(&in, 0, sizeof(in));
  if( argDoc(ctx, argv, 0, &in, &aDoc) ){
    if( aDoc==in.a ){
      docextBufResultBlob(ctx, &in);
    }else{
      sqlite3_result_blob(ctx, aDoc, docextGetI32(aDoc), SQLITE_TRANSIENT);
    }
  }
  docextBufFree(&in);
}

/* doc_valid(d) */
static void docValidFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocBuf in;
  const u8 *aDoc;
  char *zErr = 0;
  int rc;
  (void)argc;
  memset(&in, 0, sizeof(in));
  rc = docextArgToBson(argv[0], &in, &aDoc, &zErr);
  sqlite3_free(zErr);
  docextBufFree(&in);
  if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else{
    sqlite3_result_int(ctx, rc==SQLITE_OK);
  }
}

/* What a path reaches, for doc_get and doc_type: the one value found, or
** (crossing an array) every value found gathered into an array. */
typedef struct PathResult PathResult;
struct PathResult {
  int nFound;
  int bFanned;
  DocValue one;             /* the value, when one and not fanned */
  DocBuf arr;               /* {"": [values...]} when fanned */
  i64 iArr;                 /* offset of the array being built */
  int rc;
};

static int visitCollect(void *pCtx, const DocValue *v, int bFanned){
  PathResult *p = (PathResult*)pCtx;
  char zKey[16];
  int nKey;
  if( !bFanned ){
    p->one = *v;
    p->nFound = 1;
    return SQLITE_DONE;
  }
  p->bFanned = 1;
  nKey = docextBsonArrayKey(zKey, p->nFound++);
  docextBsonAppendValue(&p->rc, &p->arr, zKey, nKey, v);
  return p->rc;
}

/* Resolve path argv[1] in the document argv[0]; 1 if pR holds a result. */
static int pathResolve(sqlite3_context *ctx, sqlite3_value **argv, DocBuf *pIn,
                       PathResult *pR, DocValue *pOut){
  const u8 *aDoc;
  const char *zPath;
  i64 iOuter;
  memset(pR, 0, sizeof(*pR));
  if( !argDoc(ctx, argv, 0, pIn, &aDoc) ) return 0;
  zPath = (const char*)sqlite3_value_text(argv[1]);
  if( zPath==0 ) return 0;
  iOuter = docextBsonStartDoc(&pR->rc, &pR->arr);
  pR->iArr = docextBsonStartChild(&pR->rc, &pR->arr, DOC_ARRAY, "", 0);
  docextPathWalk(aDoc, zPath, sqlite3_value_bytes(argv[1]), visitCollect, pR);
  docextBsonEndDoc(&pR->rc, &pR->arr, pR->iArr);
  docextBsonEndDoc(&pR->rc, &pR->arr, iOuter);
  if( pR->rc!=SQLITE_OK ){
    resultError(ctx, pR->rc, 0);
    return 0;
  }
  if( pR->bFanned ){
    pOut->type = DOC_ARRAY;
    pOut->p = pR->arr.a + pR->iArr;
    pOut->n = docextGetI32(pOut->p);
    return 1;
  }
  if( pR->nFound ){
    *pOut = pR->one;
    return 1;
  }
  return 0;
}

/* A BSON value as the SQL value doc_get promises. */
static void resultValue(sqlite3_context *ctx, const DocValue *v){
  DocBuf b;
  int rc = SQLITE_OK, n;
  const char *z;
  char zBuf[48];
  switch( v->type ){
    case DOC_INT32:  sqlite3_result_int(ctx, docextValueI32(v)); return;
    case DOC_INT64:  sqlite3_result_int64(ctx, docextValueI64(v)); return;
    case DOC_DOUBLE: sqlite3_result_double(ctx, docextValueDouble(v)); return;
    case DOC_BOOL:   sqlite3_result_int(ctx, v->p[0]!=0); return;
    case DOC_NULL: case DOC_UNDEFINED:
      sqlite3_result_null(ctx);
      return;
    case DOC_STRING: case DOC_SYMBOL: case DOC_CODE:
      z = docextValueStr(v, &n);
      sqlite3_result_text(ctx, z, n, SQLITE_TRANSIENT);
      return;
    case DOC_DATE:
      n = docextIsoDateFormat(docextValueI64(v), zBuf);
      sqlite3_result_text(ctx, zBuf, n, SQLITE_TRANSIENT);
      return;
    case DOC_OID: {
      int i;
      for(i=0; i<12; i++) sqlite3_snprintf(3, &zBuf[i*2], "%02x", v->p[i]);
      sqlite3_result_text(ctx, zBuf, 24, SQLITE_TRANSIENT);
      return;
    }
  }
  memset(&b, 0, sizeof(b));
  docextJsonWriteValue(&rc, &b, v, DOCEXT_JSON_RELAXED);
  if( rc==SQLITE_OK ) docextBufResultText(ctx, &b);
  else resultError(ctx, rc, 0);
  docextBufFree(&b);
}

/* doc_get(d, path) */
static void docGetFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocBuf in;
  PathResult r;
  DocValue v;
  (void)argc;
  memset(&in, 0, sizeof(in));
  if( pathResolve(ctx, argv, &in, &r, &v) ) resultValue(ctx, &v);
  docextBufFree(&r.arr);
  docextBufFree(&in);
}

/* The alias MongoDB's $type uses for a BSON type. */
const char *docextTypeAlias(int type){
  switch( type ){
    case DOC_DOUBLE:     return "double";
    case DOC_STRING:     return "string";
    case DOC_DOCUMENT:   return "object";
    case DOC_ARRAY:      return "array";
    case DOC_BINARY:     return "binData";
    case DOC_UNDEFINED:  return "undefined";
    case DOC_OID:        return "objectId";
    case DOC_BOOL:       return "bool";
    case DOC_DATE:       return "date";
    case DOC_NULL:       return "null";
    case DOC_REGEX:      return "regex";
    case DOC_DBPOINTER:  return "dbPointer";
    case DOC_CODE:       return "javascript";
    case DOC_SYMBOL:     return "symbol";
    case DOC_CODEWSCOPE: return "javascriptWithScope";
    case DOC_INT32:      return "int";
    case DOC_TIMESTAMP:  return "timestamp";
    case DOC_INT64:      return "long";
    case DOC_DECIMAL128: return "decimal";
    case DOC_MINKEY:     return "minKey";
    case DOC_MAXKEY:     return "maxKey";
  }
  return 0;
}

/* doc_type(d, path) */
static void docTypeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocBuf in;
  PathResult r;
  DocValue v;
  (void)argc;
  memset(&in, 0, sizeof(in));
  if( pathResolve(ctx, argv, &in, &r, &v) ){
    sqlite3_result_text(ctx, docextTypeAlias(v.type), -1, SQLITE_STATIC);
  }
  docextBufFree(&r.arr);
  docextBufFree(&in);
}

/* doc_oid() */
static void docOidFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  u8 aOid[12];
  char zHex[25];
  int i;
  (void)argc; (void)argv;
  docextOidNew(aOid);
  for(i=0; i<12; i++) sqlite3_snprintf(3, &zHex[i*2], "%02x", aOid[i]);
  sqlite3_result_text(ctx, zHex, 24, SQLITE_TRANSIENT);
}

/* doc_config(name [, value]): 'clock' reads the frozen time (NULL when the
** clock runs) or, with a value, freezes it ('2013-03-01T00:00:00Z', or an
** integer of milliseconds) or unfreezes it (NULL). Returns the setting. */
static void docConfigFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const char *zName = (const char*)sqlite3_value_text(argv[0]);
  char zBuf[48];
  if( sqlite3_value_type(argv[0])==SQLITE_NULL ){
    resultError(ctx, SQLITE_ERROR,
                sqlite3_mprintf("docext: doc_config needs a setting name (known: clock)"));
    return;
  }
  if( zName==0 || sqlite3_stricmp(zName, "clock")!=0 ){
    char *z = sqlite3_mprintf("docext: unknown setting '%s' in doc_config "
                              "(known: clock)", zName ? zName : "");
    resultError(ctx, SQLITE_ERROR, z);
    return;
  }
  if( argc>1 ){
    sqlite3_value *pV = argv[1];
    i64 ms = 0;
    switch( sqlite3_value_type(pV) ){
      case SQLITE_NULL:
        docextClockSet(0, 0);
        break;
      case SQLITE_INTEGER:
        docextClockSet(1, sqlite3_value_int64(pV));
        break;
      default: {
        const char *z = (const char*)sqlite3_value_text(pV);
        if( z==0 || docextIsoDateParse(z, sqlite3_value_bytes(pV), &ms) ){
          char *zErr = sqlite3_mprintf("docext: doc_config('clock', …) wants an "
              "ISO-8601 date like '2013-03-01T00:00:00Z', got '%s'", z ? z : "");
          resultError(ctx, SQLITE_ERROR, zErr);
          return;
        }
        docextClockSet(1, ms);
        break;
      }
    }
  }
  if( docextClockIsFrozen() ){
    int n = docextIsoDateFormat(docextClockNowMs(), zBuf);
    sqlite3_result_text(ctx, zBuf, n, SQLITE_TRANSIENT);
  }else{
    sqlite3_result_null(ctx);
  }
}

/* The compiled filter of argument iArg, cached for the statement with
** sqlite3_set_auxdata so a constant filter is compiled once, not per row.
** NULL with the error already set on failure. */
static DocMatcher *argMatcher(sqlite3_context *ctx, sqlite3_value **argv, int iArg){
  DocMatcher *pM = sqlite3_get_auxdata(ctx, iArg);
  if( pM==0 ){
    DocBuf buf;
    const u8 *aFilter;
    char *zErr = 0;
    int rc;
    memset(&buf, 0, sizeof(buf));
    if( sqlite3_value_type(argv[iArg])==SQLITE_NULL ){
      rc = docextJsonParse("{}", 2, 1, &buf, 0, &zErr);
      aFilter = buf.a;
    }else{
      rc = docextArgToBson(argv[iArg], &buf, &aFilter, &zErr);
    }
    if( rc==SQLITE_OK ) rc = docextMatcherNew(aFilter, 0, 0, &pM, &zErr);
    docextBufFree(&buf);
    if( rc!=SQLITE_OK ){
      resultError(ctx, rc, zErr);
      return 0;
    }
    sqlite3_set_auxdata(ctx, iArg, pM, (void(*)(void*))docextMatcherFree);
    pM = sqlite3_get_auxdata(ctx, iArg);
    if( pM==0 ) sqlite3_result_error_nomem(ctx);
  }
  return pM;
}

/* doc_match(d, filter) */
void docextDocMatchFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocBuf in;
  const u8 *aDoc;
  DocMatcher *pM;
  (void)argc;
  memset(&in, 0, sizeof(in));
  if( sqlite3_value_type(argv[0])==SQLITE_NULL ){
    sqlite3_result_int(ctx, 0);
    return;
  }
  pM = argMatcher(ctx, argv, 1);
  if( pM && argDoc(ctx, argv, 0, &in, &aDoc) ){
    int bMatch = 0;
    char *zErr = 0;
    int rc = docextMatcherMatch(pM, aDoc, &bMatch, 0, &zErr);
    if( rc==SQLITE_OK ) sqlite3_result_int(ctx, bMatch);
    else resultError(ctx, rc, zErr);
  }
  docextBufFree(&in);
}

/* doc_project(d, projection) */
static void docProjectFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  DocBuf in, out;
  const u8 *aDoc;
  DocProjection *pP = sqlite3_get_auxdata(ctx, 1);
  (void)argc;
  memset(&in, 0, sizeof(in));
  memset(&out, 0, sizeof(out));
  if( pP==0 && sqlite3_value_type(argv[1])!=SQLITE_NULL ){
    const u8 *aProj;
    char *zErr = 0;
    int rc = docextArgToBson(argv[1], &in, &aProj, &zErr);
    if( rc==SQLITE_OK ) rc = docextProjectionNew(aProj, &pP, &zErr);
    if( rc!=SQLITE_OK ){
      resultError(ctx, rc, zErr);
      docextBufFree(&in);
      return;
    }
    sqlite3_set_auxdata(ctx, 1, pP, (void(*)(void*))docextProjectionFree);
    pP = sqlite3_get_auxdata(ctx, 1);
    if( pP==0 ){ sqlite3_result_error_nomem(ctx); docextBufFree(&in); return; }
  }
  if( argDoc(ctx, argv, 0, &in, &aDoc) ){
    char *zErr = 0;
    int rc = SQLITE_OK;
    if( pP ) rc = docextProjectionApply(pP, aDoc, -1, &out, &zErr);
    else docextBufAppend(&rc, &out, aDoc, docextGetI32(aDoc));
    if( rc!=SQLITE_OK ){
      resultError(ctx, rc, zErr);
    }else{
      docextResultDoc(ctx, argv[0], &out);
    }
  }
  docextBufFree(&in);
  docextBufFree(&out);
}

/*------------------------------------------------------------------------
** doc_each(x): one row per document of a mongodump .bson file
** (concatenated BSON), a JSON array, or JSON Lines. A BLOB that cannot be
** BSON and starts like JSON ('{' or '[') is read as text: readfile() of a
** .json file gives a BLOB.
*/

typedef struct EachCursor EachCursor;
struct EachCursor {
  sqlite3_vtab_cursor base;
  sqlite3_value *pInput;    /* copy of the argument */
  int bText;                /* TEXT (seq), else concatenated BSON */
  int iOff;                 /* BSON: where the next document starts */
  i64 iRow;                 /* 1-based row number */
  int bEof;
  DocBuf doc;               /* current document (TEXT) */
  const u8 *aDoc;           /* current document */
  DocJsonSeq seq;           /* TEXT: a JSON array or JSON Lines */
};

/*------------------------------------------------------------------------
** Table-valued functions (doc_each, doc_indexes, doc_chunks): a table whose
** HIDDEN argument column takes the function's argument.
*/

int docextTvfConnect(sqlite3 *db, const char *zSchema, int eConfig, void *pAux,
                     sqlite3_vtab **ppVtab){
  sqlite3_vtab *p;
  int rc = sqlite3_declare_vtab(db, zSchema);
  if( rc!=SQLITE_OK ) return rc;
  if( eConfig ) sqlite3_vtab_config(db, eConfig);
  p = docextMallocZero(sizeof(*p) + sizeof(void*));
  if( p==0 ) return SQLITE_NOMEM;
  *(void**)&p[1] = pAux;
  *ppVtab = p;
  return SQLITE_OK;
}

void *docextTvfAux(sqlite3_vtab *pVtab){
  return *(void**)&pVtab[1];
}

int docextTvfDisconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

int docextTvfBestIndex(sqlite3_index_info *pInfo, int iArgCol, double rCost){
  int i;
  for(i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( pC->iColumn==iArgCol && pC->op==SQLITE_INDEX_CONSTRAINT_EQ ){
      if( !pC->usable ) return SQLITE_CONSTRAINT;
      pInfo->aConstraintUsage[i].argvIndex = 1;
      pInfo->aConstraintUsage[i].omit = 1;
      pInfo->idxNum = 1;
      pInfo->estimatedCost = rCost;
      return SQLITE_OK;
    }
  }
  pInfo->idxNum = 0;      /* no argument: no rows (or an error) */
  pInfo->estimatedCost = 1e12;
  return SQLITE_OK;
}

static int eachConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                       sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return docextTvfConnect(db, "CREATE TABLE x(doc, x HIDDEN)", SQLITE_VTAB_INNOCUOUS,
                          pAux, ppVtab);
}

static int eachBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  return docextTvfBestIndex(pInfo, 1, 1000);
}

static int eachOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  EachCursor *p = docextMallocZero(sizeof(*p));
  (void)pVtab;
  if( p==0 ) return SQLITE_NOMEM;
  *ppCur = &p->base;
  return SQLITE_OK;
}

static void eachReset(EachCursor *p){
  sqlite3_value_free(p->pInput);
  p->pInput = 0;
  docextBufFree(&p->doc);
  p->aDoc = 0;
  p->iOff = 0;
  p->iRow = 0;
  p->bEof = 1;
}

static int eachClose(sqlite3_vtab_cursor *pCur){
  EachCursor *p = (EachCursor*)pCur;
  eachReset(p);
  sqlite3_free(p);
  return SQLITE_OK;
}

/* Move to the next document, or set bEof. */
static int eachNext(sqlite3_vtab_cursor *pCur){
  EachCursor *p = (EachCursor*)pCur;
  char *zErr = 0;
  int rc = SQLITE_OK;
  p->iRow++;
  if( !p->bText ){
    const u8 *a = sqlite3_value_blob(p->pInput);
    int n = sqlite3_value_bytes(p->pInput);
    int nDoc;
    if( p->iOff>=n ){ p->bEof = 1; return SQLITE_OK; }
    if( n-p->iOff<5 || (nDoc = docextGetI32(a+p->iOff))<5 || nDoc>n-p->iOff ){
      return docextVtabError(p->base.pVtab, SQLITE_ERROR, sqlite3_mprintf(
          "docext: doc_each: malformed BSON at byte %d: document %lld is truncated",
          p->iOff, p->iRow));
    }
    if( docextBsonCheck(a+p->iOff, nDoc, &zErr) ){
      char *z = sqlite3_mprintf("docext: doc_each: document %lld at byte %d: %s",
                                p->iRow, p->iOff, zErr+8);
      sqlite3_free(zErr);
      return docextVtabError(p->base.pVtab, SQLITE_ERROR, z);
    }
    p->aDoc = a + p->iOff;
    p->iOff += nDoc;
    return SQLITE_OK;
  }
  rc = docextJsonSeqNext(&p->seq, &p->doc, &p->bEof, &zErr);
  if( rc!=SQLITE_OK ){
    char *zMsg = 0;
    if( zErr ){
      zMsg = p->seq.bInDoc
           ? sqlite3_mprintf("docext: doc_each: document %d: %s", p->seq.nDoc, zErr+8)
           : sqlite3_mprintf("docext: doc_each: %s", zErr+8);
      sqlite3_free(zErr);
    }
    return docextVtabError(p->base.pVtab, rc, zMsg);
  }
  p->aDoc = p->doc.a;
  return SQLITE_OK;
}

/* Is the BLOB a[0..n) JSON text rather than BSON, as readfile('x.json')
** gives? Its first document's length must fail to fit (text's first four
** bytes make a length of hundreds of megabytes) and its first byte that is
** not white space must open a document or an array. Anything that could be
** BSON stays BSON. */
static int eachBlobIsText(const u8 *a, int n){
  int i = 0, nDoc;
  if( n>=5 && (nDoc = docextGetI32(a))>=5 && nDoc<=n ) return 0;
  if( n>=3 && a[0]==0xEF && a[1]==0xBB && a[2]==0xBF ) i = 3;    /* a BOM */
  while( i<n && (a[i]==' ' || a[i]=='\t' || a[i]=='\n' || a[i]=='\r') ) i++;
  return i<n && (a[i]=='{' || a[i]=='[');
}

static int eachFilter(sqlite3_vtab_cursor *pCur, int idxNum, const char *idxStr,
                      int argc, sqlite3_value **argv){
  EachCursor *p = (EachCursor*)pCur;
  (void)idxStr;
  eachReset(p);
  if( idxNum==0 || argc<1 || sqlite3_value_type(argv[0])==SQLITE_NULL ) return SQLITE_OK;
  p->pInput = sqlite3_value_dup(argv[0]);
  if( p->pInput==0 ) return SQLITE_NOMEM;
  p->bEof = 0;
  if( sqlite3_value_type(p->pInput)==SQLITE_BLOB ){
    const u8 *a = sqlite3_value_blob(p->pInput);
    int n = sqlite3_value_bytes(p->pInput);
    p->bText = 0;
    if( a && eachBlobIsText(a, n) ){
      p->bText = 1;
      docextJsonSeqInit(&p->seq, (const char*)a, n);
    }
  }else{
    const char *z = (const char*)sqlite3_value_text(p->pInput);
    if( z==0 ) return SQLITE_NOMEM;
    p->bText = 1;
    docextJsonSeqInit(&p->seq, z, sqlite3_value_bytes(p->pInput));
  }
  return eachNext(pCur);
}

static int eachEof(sqlite3_vtab_cursor *pCur){
  return ((EachCursor*)pCur)->bEof;
}

static int eachColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int iCol){
  EachCursor *p = (EachCursor*)pCur;
  if( iCol==0 ){
    sqlite3_result_blob(ctx, p->aDoc, docextGetI32(p->aDoc), SQLITE_TRANSIENT);
  }
  return SQLITE_OK;
}

static int eachRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid){
  *pRowid = ((EachCursor*)pCur)->iRow;
  return SQLITE_OK;
}

static sqlite3_module eachModule = {
  0, 0, eachConnect, eachBestIndex, docextTvfDisconnect, 0,
  eachOpen, eachClose, eachFilter, eachNext, eachEof, eachColumn, eachRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
#if SQLITE_VERSION_NUMBER>=3044000
  0,
#endif
};

/*------------------------------------------------------------------------
** Registration
*/

#define PURE (SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS)

int docextRegisterFunctions(sqlite3 *db){
  static const DocFuncDef aFunc[] = {
    { "doc_json",   1, PURE, docJsonFunc },
    { "doc_json",   2, PURE, docJsonFunc },
    { "doc_bson",   1, PURE, docBsonFunc },
    { "doc_valid",  1, PURE, docValidFunc },
    { "doc_get",    2, PURE, docGetFunc },
    { "doc_type",   2, PURE, docTypeFunc },
    { "doc_match",  2, PURE, docextDocMatchFunc },
    { "doc_project",2, PURE, docProjectFunc },
    { "doc_oid",    0, SQLITE_UTF8|SQLITE_INNOCUOUS, docOidFunc },
    { "doc_config", 1, SQLITE_UTF8|SQLITE_DIRECTONLY, docConfigFunc },
    { "doc_config", 2, SQLITE_UTF8|SQLITE_DIRECTONLY, docConfigFunc },
  };
  int rc = docextCreateFunctions(db, 0, aFunc, DOCEXT_COUNT(aFunc));
  if( rc==SQLITE_OK ) rc = sqlite3_create_module(db, "doc_each", &eachModule, 0);
  return rc;
}
