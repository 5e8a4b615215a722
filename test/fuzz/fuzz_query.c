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
** A fifth line, when it is a collation document docext accepts, runs the
** filter, the sort and the update again under that collation; and for
** each two values of the document, their keys under it must order as the
** collation compares them (docext_cmp.c's promise).
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

/* The sign of x. */
static int sign(int x){
  return x<0 ? -1 : x>0;
}

/* Keys of the document's top-level values (at most 8) under pColl order as
** docextValueCompareColl orders the values. */
static void checkKeyOrder(const u8 *aDoc, const DocCollator *pColl){
  DocValue aV[8];
  DocBuf aKey[8];
  DocIter it;
  int n = 0, i, j, rc = SQLITE_OK;
  docextIterInit(&it, aDoc);
  while( n<8 && docextIterNext(&it)>0 ) aV[n++] = it.v;
  for(i=0; i<n; i++){
    memset(&aKey[i], 0, sizeof(aKey[i]));
    docextKeyAppendColl(&rc, &aKey[i], &aV[i], 0, pColl);
  }
  for(i=0; rc==SQLITE_OK && i<n; i++){
    for(j=0; j<n; j++){
      int cKey = docextKeyCmp(aKey[i].a, (int)aKey[i].n, aKey[j].a, (int)aKey[j].n);
      FUZZ_ASSERT(sign(cKey)==sign(docextValueCompareColl(&aV[i], &aV[j], pColl)),
                  "keys under a collation order values unlike the comparison");
    }
  }
  for(i=0; i<n; i++) docextBufFree(&aKey[i]);
}

/* The filter, the sort and the update under the collation of line 4. */
static void runCollation(const u8 *aFilter, const u8 *aDoc, const u8 *aProj,
                         const u8 *aUpdate, int bPipeline, const u8 *aColl){
  DocCollator *pColl = 0;
  DocMatcher *pMatch = 0;
  DocSort *pSort = 0;
  DocUpdate *pUp = 0;
  DocBuf opt, out;
  DocValue v;
  char *zErr = 0;
  int rc, bMatch = 0, iPos = -1, bChanged = 0;
  v.type = DOC_DOCUMENT;
  v.p = aColl;
  v.n = docextGetI32(aColl);
  rc = docextCollatorNew(&v, &pColl, &zErr);
  checkError(rc, zErr);
  if( rc!=SQLITE_OK || pColl==0 ) return;
  checkKeyOrder(aDoc, pColl);
  zErr = 0;
  rc = docextMatcherNewColl(aFilter, aProj, 0, pColl, &pMatch, &zErr);
  checkError(rc, zErr);
  if( rc==SQLITE_OK ){
    zErr = 0;
    rc = docextMatcherMatch(pMatch, aDoc, &bMatch, &iPos, &zErr);
    checkError(rc, zErr);
    docextMatcherFree(pMatch);
  }
  memset(&out, 0, sizeof(out));
  zErr = 0;
  if( docextSortNew(aProj, &pSort, &zErr)==SQLITE_OK ){
    docextSortSetCollator(pSort, pColl);
    zErr = 0;
    rc = docextSortKey(pSort, aDoc, &out, &zErr);
    checkError(rc, zErr);
    docextSortFree(pSort);
  }else{
    sqlite3_free(zErr);
  }
  /* the update with options {collation: <line 4>} */
  memset(&opt, 0, sizeof(opt));
  rc = SQLITE_OK;
  {
    i64 iStart = docextBsonStartDoc(&rc, &opt);
    docextBsonAppendValue(&rc, &opt, "collation", 9, &v);
    docextBsonEndDoc(&rc, &opt, iStart);
  }
  FUZZ_ASSERT(rc==SQLITE_OK, "out of memory");
  zErr = 0;
  rc = bPipeline ? docextUpdateNewPipeline(aUpdate, opt.a, 0, &pUp, &zErr)
                 : docextUpdateNew(aUpdate, opt.a, &pUp, &zErr);
  checkError(rc, zErr);
  if( rc==SQLITE_OK ){
    docextBufReset(&out);
    zErr = 0;
    rc = docextUpdateApply(pUp, aDoc, bMatch ? iPos : -1, 0, &out, &bChanged, &zErr);
    checkError(rc, zErr);
    if( rc==SQLITE_OK ) FUZZ_ASSERT(fuzzValid(out.a, out.n), "an update made invalid BSON");
    docextUpdateFree(pUp);
  }
  docextBufFree(&out);
  docextBufFree(&opt);
  docextCollatorFree(pColl);
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData){
  DocBuf filter, doc, proj, update, coll;
  DocMatcher *pMatch = 0;
  char *zErr = 0;
  int rc, bMatch = 0, iPos = -1, bPipeline = 0;
  if( nData>100000 ) return 0;
  memset(&filter, 0, sizeof(filter));
  memset(&doc, 0, sizeof(doc));
  memset(&proj, 0, sizeof(proj));
  memset(&update, 0, sizeof(update));
  memset(&coll, 0, sizeof(coll));
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
  checkKeyOrder(doc.a, 0);
  parseLine(aData, nData, 4, &coll, 0);
  if( coll.n>5 ) runCollation(filter.a, doc.a, proj.a, update.a, bPipeline, coll.a);

  docextBufFree(&filter);
  docextBufFree(&coll);
  docextBufFree(&doc);
  docextBufFree(&proj);
  docextBufFree(&update);
  return 0;
}
