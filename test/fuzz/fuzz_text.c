/*
** fuzz_text.c — libFuzzer target for the text parser and writer.
**
** Input: any bytes, read as document text (JSON, Extended JSON, shell
** syntax). When the parser accepts it, the BSON it made must be valid, and
** its text forms must read back (see checkTextForms). The same text is
** also read as a single value and as a sequence of documents (doc_each). A parser
** error must come with a message. Crashes, leaks and undefined behaviour
** are caught by the sanitizers (make fuzz).
*/
#include "fuzz.h"

/* Write aDoc in mode eMode into pText, and parse that text into pBack. */
static void writeAndParse(const u8 *aDoc, int eMode, DocBuf *pText, DocBuf *pBack){
  int rc = SQLITE_OK, nUsed = 0;
  char *zErr = 0;
  docextBufReset(pText);
  docextBufReset(pBack);
  docextJsonWriteDoc(&rc, pText, aDoc, eMode);
  FUZZ_ASSERT(rc==SQLITE_OK, "writing JSON failed");
  rc = docextJsonParse((const char*)pText->a, (int)pText->n, 1, pBack, &nUsed, &zErr);
  if( rc!=SQLITE_OK ){
    fprintf(stderr, "mode %d text does not parse back: %s\n%.*s\n",
            eMode, zErr, (int)pText->n, (const char*)pText->a);
    abort();
  }
  sqlite3_free(zErr);
}

/* Do two valid documents compare equal, by BSON's order? */
static int sameValue(const u8 *a, const u8 *b){
  DocValue x, y;
  memset(&x, 0, sizeof(x));
  memset(&y, 0, sizeof(y));
  x.type = y.type = DOC_DOCUMENT;
  x.p = a;  x.n = docextGetI32(a);
  y.p = b;  y.n = docextGetI32(b);
  return docextValueCompare(&x, &y)==0;
}

/* The three text forms of a valid document aDoc. Canonical Extended JSON is
** lossless: it parses back to the same bytes. Relaxed may lose an integer's
** width (int64 5 is 5), so what it parses back to must give the same text.
** The shell form loses number types as the mongo shell does (2.0 prints as
** 2, which reads back as an int32), so it must read back to an equal value. */
static void checkTextForms(const u8 *aDoc, i64 nDoc){
  DocBuf text, back, again;
  int rc = SQLITE_OK;
  memset(&text, 0, sizeof(text));
  memset(&back, 0, sizeof(back));
  memset(&again, 0, sizeof(again));

  writeAndParse(aDoc, DOCEXT_JSON_CANONICAL, &text, &back);
  FUZZ_ASSERT(back.n==nDoc && memcmp(back.a, aDoc, (size_t)nDoc)==0,
              "canonical Extended JSON did not round-trip");

  writeAndParse(aDoc, DOCEXT_JSON_RELAXED, &text, &back);
  docextJsonWriteDoc(&rc, &again, back.a, DOCEXT_JSON_RELAXED);
  FUZZ_ASSERT(rc==SQLITE_OK && again.n==text.n
              && memcmp(again.a, text.a, (size_t)text.n)==0,
              "relaxed Extended JSON is not the same text once parsed back");

  writeAndParse(aDoc, DOCEXT_JSON_SHELL, &text, &back);
  FUZZ_ASSERT(sameValue(aDoc, back.a), "shell text reads back as another value");

  docextBufFree(&text);
  docextBufFree(&back);
  docextBufFree(&again);
}

/* A parser's answer: valid BSON (pDoc, unless 0: nothing was read), or an
** error with a docext: message. */
static void checkParsed(int rc, char *zErr, const DocBuf *pDoc){
  if( rc!=SQLITE_OK ){
    FUZZ_ASSERT(rc==SQLITE_NOMEM || (zErr && strncmp(zErr, "docext: ", 8)==0),
                "a parse error without a docext: message");
  }else if( pDoc ){
    FUZZ_ASSERT(fuzzValid(pDoc->a, pDoc->n), "the parser made invalid BSON");
  }
  sqlite3_free(zErr);
}

/* The same text as a sequence of documents (doc_each: JSON Lines or an
** array): each document valid, and each step moves on (no endless loop). */
static void checkSequence(const char *z, int n){
  DocJsonSeq seq;
  DocBuf doc;
  int bEof = 0, nDoc = 0;
  memset(&doc, 0, sizeof(doc));
  docextJsonSeqInit(&seq, z, n);
  while( 1 ){
    char *zErr = 0;
    int rc = docextJsonSeqNext(&seq, &doc, &bEof, &zErr);
    checkParsed(rc, zErr, bEof ? 0 : &doc);
    if( rc!=SQLITE_OK || bEof ) break;
    FUZZ_ASSERT(++nDoc<=n, "the sequence reader does not move on");
  }
  docextBufFree(&doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData){
  const char *z = (const char*)aData;
  DocBuf doc;
  char *zErr = 0;
  int nUsed = 0, rc;
  if( nData>1000000 ) return 0;
  memset(&doc, 0, sizeof(doc));
  rc = docextJsonParse(z, (int)nData, 1, &doc, &nUsed, &zErr);
  checkParsed(rc, zErr, &doc);
  if( rc==SQLITE_OK ) checkTextForms(doc.a, doc.n);

  /* the same text as a single value ({"": value}), and as a sequence */
  docextBufReset(&doc);
  zErr = 0;
  rc = docextJsonParseValue(z, (int)nData, &doc, &nUsed, &zErr);
  checkParsed(rc, zErr, &doc);
  checkSequence(z, (int)nData);
  docextBufFree(&doc);
  return 0;
}
