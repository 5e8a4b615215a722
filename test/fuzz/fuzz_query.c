/*
** fuzz_query.c — libFuzzer target for filters, projections, sorts and
** updates applied to a document.
**
** Input: text in four lines: a filter, a document, a projection (also
** used as a sort pattern and as the let variables of the filter's $expr
** and of a pipeline update) and an update (a document, or an array: a
** pipeline); a line that does not parse is taken as {}. Each is compiled;
** what compiles runs on the document (the update as an update and as an
** upsert's insert, then once more on its own result). The contract: a
** result or a docext: error, and every document made is valid BSON.
*/
#include "fuzz.h"

/* Line iLine of the input (0-based) parsed into pOut, or {} if it does not
** parse. pbArray, if not NULL: the line may be an array (an update's
** pipeline), said there. */
static void parseLine(const uint8_t *a, size_t n, int iLine, DocBuf *pOut, int *pbArray){
  size_t i = 0, iEnd;
  int nUsed = 0, rc, bArray = 0;
  char *zErr = 0;
  while( iLine>0 && i<n ){
    if( a[i++]=='\n' ) iLine--;
  }
  for(iEnd=i; iEnd<n && a[iEnd]!='\n'; iEnd++){}
  if( pbArray ){
    rc = docextJsonParseUpdate((const char*)&a[i], (int)(iEnd-i), pOut, &bArray, &zErr);
    *pbArray = rc==SQLITE_OK && bArray;
  }else{
    rc = docextJsonParse((const char*)&a[i], (int)(iEnd-i), 1, pOut, &nUsed, &zErr);
  }
  sqlite3_free(zErr);
  if( rc!=SQLITE_OK ){
    docextBufReset(pOut);
    rc = SQLITE_OK;
    docextBsonEndDoc(&rc, pOut, docextBsonStartDoc(&rc, pOut));
    FUZZ_ASSERT(rc==SQLITE_OK, "out of memory");
  }
}

/* An error must be reported with a docext: message (or be out of memory). */
static void checkError(int rc, char *zErr){
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){
    if( zErr==0 || strncmp(zErr, "docext: ", 8)!=0 ){
      fprintf(stderr, "error %d without a docext: message: %s\n", rc, zErr ? zErr : "(none)");
      abort();
    }
  }
  sqlite3_free(zErr);
}

static void runProjection(const u8 *aProj, const u8 *aDoc, int iPos){
  DocProjection *pProj = 0;
  DocBuf out;
  char *zErr = 0;
  int rc = docextProjectionNew(aProj, &pProj, &zErr);
  checkError(rc, zErr);
  if( rc!=SQLITE_OK ) return;
  memset(&out, 0, sizeof(out));
  zErr = 0;
  rc = docextProjectionApply(pProj, aDoc, iPos, &out, &zErr);
  if( rc==SQLITE_OK ) FUZZ_ASSERT(fuzzValid(out.a, out.n), "a projection made invalid BSON");
  checkError(rc, zErr);
  docextBufFree(&out);
  docextProjectionFree(pProj);
}

static void runSort(const u8 *aSort, const u8 *aDoc){
  DocSort *pSort = 0;
  DocBuf key;
  char *zErr = 0;
  int rc = docextSortNew(aSort, &pSort, &zErr);
  checkError(rc, zErr);
  if( rc!=SQLITE_OK ) return;
  memset(&key, 0, sizeof(key));
  zErr = 0;
  rc = docextSortKey(pSort, aDoc, &key, &zErr);
  checkError(rc, zErr);
  docextBufFree(&key);
  docextSortFree(pSort);
}

static void runUpdate(const u8 *aUpdate, int bPipeline, const u8 *aLet, const u8 *aDoc,
                      int iPos){
  DocUpdate *pUp = 0;
  DocBuf out, out2, opt;
  char *zErr = 0;
  int rc = SQLITE_OK;
  memset(&opt, 0, sizeof(opt));
  if( bPipeline ){
    /* {let: <the projection line>} */
    DocValue let;
    i64 iStart = docextBsonStartDoc(&rc, &opt);
    let.type = DOC_DOCUMENT;
    let.p = aLet;
    let.n = docextGetI32(aLet);
    docextBsonAppendValue(&rc, &opt, "let", 3, &let);
    docextBsonEndDoc(&rc, &opt, iStart);
    FUZZ_ASSERT(rc==SQLITE_OK, "out of memory");
    rc = docextUpdateNewPipeline(aUpdate, opt.a, 0, &pUp, &zErr);
    docextBufFree(&opt);
  }else{
    rc = docextUpdateNew(aUpdate, 0, &pUp, &zErr);
  }
  int bChanged = 0, bInsert;
  checkError(rc, zErr);
  if( rc!=SQLITE_OK ) return;
  memset(&out, 0, sizeof(out));
  memset(&out2, 0, sizeof(out2));
  for(bInsert=0; bInsert<2; bInsert++){
    zErr = 0;
    rc = docextUpdateApply(pUp, aDoc, iPos, bInsert, &out, &bChanged, &zErr);
    checkError(rc, zErr);
    if( rc==SQLITE_OK ){
      FUZZ_ASSERT(fuzzValid(out.a, out.n), "an update made invalid BSON");
      /* and the result can be updated again */
      zErr = 0;
      rc = docextUpdateApply(pUp, out.a, -1, bInsert, &out2, &bChanged, &zErr);
      checkError(rc, zErr);
      if( rc==SQLITE_OK ) FUZZ_ASSERT(fuzzValid(out2.a, out2.n), "an update made invalid BSON");
    }
  }
  docextBufFree(&out);
  docextBufFree(&out2);
  docextUpdateFree(pUp);
}

/* A filter of one $jsonSchema: its explanation (why a document fails,
** as a validator's message gives it) is empty exactly when the document
** matches. */
static void runSchemaExplain(const u8 *aFilter, const u8 *aDoc, int bMatch){
  DocIter it;
  DocSchema *pSchema = 0;
  DocBuf why;
  char *zErr = 0;
  int rc;
  docextIterInit(&it, aFilter);
  if( docextIterNext(&it)<=0 || !docextIterKeyIs(&it, "$jsonSchema") ) return;
  if( docextIterNext(&it)>0 ) return;                    /* (other conditions too) */
  memset(&why, 0, sizeof(why));
  docextIterInit(&it, aFilter);
  docextIterNext(&it);
  rc = docextSchemaNew(&it.v, &pSchema, &zErr);
  if( rc==SQLITE_OK ) rc = docextSchemaExplain(pSchema, aDoc, &why, &zErr);
  checkError(rc, zErr);
  if( rc==SQLITE_OK ){
    FUZZ_ASSERT((why.n==0)==(bMatch!=0), "a $jsonSchema's explanation disagrees with its match");
  }
  docextSchemaFree(pSchema);
  docextBufFree(&why);
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData){
  DocBuf filter, doc, proj, update;
  DocMatcher *pMatch = 0;
  char *zErr = 0;
  int rc, bMatch = 0, iPos = -1, bPipeline = 0;
  if( nData>100000 ) return 0;
  memset(&filter, 0, sizeof(filter));
  memset(&doc, 0, sizeof(doc));
  memset(&proj, 0, sizeof(proj));
  memset(&update, 0, sizeof(update));
  parseLine(aData, nData, 0, &filter, 0);
  parseLine(aData, nData, 1, &doc, 0);
  parseLine(aData, nData, 2, &proj, 0);
  parseLine(aData, nData, 3, &update, &bPipeline);

  /* the projection line is also the let variables of the filter's $expr */
  rc = docextMatcherNew(filter.a, proj.a, 0, &pMatch, &zErr);
  checkError(rc, zErr);
  if( rc==SQLITE_OK ){
    zErr = 0;
    rc = docextMatcherMatch(pMatch, doc.a, &bMatch, &iPos, &zErr);
    checkError(rc, zErr);
    docextMatcherFree(pMatch);
    if( rc==SQLITE_OK ) runSchemaExplain(filter.a, doc.a, bMatch);
  }
  if( rc!=SQLITE_OK || !bMatch ) iPos = -1;
  runProjection(proj.a, doc.a, iPos);
  runSort(proj.a, doc.a);
  runUpdate(update.a, bPipeline, proj.a, doc.a, iPos);

  docextBufFree(&filter);
  docextBufFree(&doc);
  docextBufFree(&proj);
  docextBufFree(&update);
  return 0;
}
