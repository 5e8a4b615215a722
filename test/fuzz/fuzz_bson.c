/*
** fuzz_bson.c — libFuzzer target for BSON from outside: the validator and
** everything that reads a document it accepts.
**
** Input: any bytes, read as a BSON document. The validator must accept or
** reject them without reading out of bounds. When it accepts them, every
** text form must be text the parser reads back, and the canonical form
** must be a fixed point: the document read back writes the same text (BSON
** has bytes the text cannot carry, such as a NaN's payload or unsorted
** regex options, so the bytes themselves may differ). The order-preserving
** key of the document must order it as a value equal to itself. (Names
** that start with '$' are the exception: see hasDollarName.) Valid or not,
** the writer that checks as it writes must agree with the check.
*/
#include "fuzz.h"

/* Does the document hold a name that starts with '$' at any depth? Extended
** JSON cannot carry those: it reads them as type wrappers, or rejects them
** (the spec's "Restrictions and limitations"). Code with scope's scope is
** not looked into: its text form is written and read as a document. */
static int hasDollarName(const u8 *aDoc){
  DocIter it;
  docextIterInit(&it, aDoc);
  while( docextIterNext(&it) ){
    if( it.zKey[0]=='$' ) return 1;
    if( (it.v.type==DOC_DOCUMENT || it.v.type==DOC_ARRAY) && hasDollarName(it.v.p) ) return 1;
  }
  return 0;
}

/* Write aDoc as text in mode eMode into pText. */
static void writeText(const u8 *aDoc, int eMode, DocBuf *pText){
  int rc = SQLITE_OK;
  docextBufReset(pText);
  docextJsonWriteDoc(&rc, pText, aDoc, eMode);
  FUZZ_ASSERT(rc==SQLITE_OK, "writing JSON failed");
}

/* Parse pText into pBack; the text must read. */
static void readText(int eMode, const DocBuf *pText, DocBuf *pBack){
  int nUsed = 0;
  char *zErr = 0;
  docextBufReset(pBack);
  if( docextJsonParse((const char*)pText->a, (int)pText->n, 1, pBack, &nUsed, &zErr) ){
    fprintf(stderr, "mode %d text does not read back: %s\n%.*s\n",
            eMode, zErr, (int)pText->n, (const char*)pText->a);
    abort();
  }
  FUZZ_ASSERT(fuzzValid(pBack->a, pBack->n), "the parser made invalid BSON");
}

/* The key of the document as one value, twice: the same bytes. */
static void checkKey(const u8 *aDoc, i64 nDoc){
  DocValue v;
  DocBuf k1, k2;
  int rc = SQLITE_OK;
  memset(&v, 0, sizeof(v));
  memset(&k1, 0, sizeof(k1));
  memset(&k2, 0, sizeof(k2));
  v.type = DOC_DOCUMENT;
  v.p = aDoc;
  v.n = (int)nDoc;
  docextKeyAppend(&rc, &k1, &v, 0);
  docextKeyAppend(&rc, &k2, &v, 1);
  FUZZ_ASSERT(rc==SQLITE_OK, "key encoding failed");
  FUZZ_ASSERT(docextValueCompare(&v, &v)==0, "a document is not equal to itself");
  docextBufFree(&k1);
  docextBufFree(&k2);
}

/* SELECT doc checks a stored document while writing it as text
** (docextJsonWriteDocChecked). It must find what the structural check
** finds, at the same byte and in the same words, and where that finds
** nothing, write what the writer of checked documents writes. */
static void checkWhileWriting(const u8 *aData, i64 nData){
  DocCheck ckApart, ckWriting;
  DocBuf fused, apart;
  int rc = SQLITE_OK;
  int bBad, bBadWriting;
  memset(&fused, 0, sizeof(fused));
  memset(&apart, 0, sizeof(apart));
  bBad = docextCheckDoc(&ckApart, aData, nData, 0)!=SQLITE_OK;
  bBadWriting = docextJsonWriteDocChecked(&rc, &fused, aData, nData, DOCEXT_JSON_RELAXED,
                                          &ckWriting)!=SQLITE_OK;
  FUZZ_ASSERT(rc==SQLITE_OK, "writing JSON while checking failed");
  FUZZ_ASSERT(bBad==bBadWriting, "checking while writing disagrees with the check");
  if( bBad ){
    FUZZ_ASSERT(ckApart.iOff==ckWriting.iOff && strcmp(ckApart.zWhy, ckWriting.zWhy)==0,
                "checking while writing finds another problem than the check");
  }else{
    docextJsonWriteDoc(&rc, &apart, aData, DOCEXT_JSON_RELAXED);
    FUZZ_ASSERT(rc==SQLITE_OK, "writing JSON failed");
    FUZZ_ASSERT(apart.n==fused.n && memcmp(apart.a, fused.a, (size_t)fused.n)==0,
                "checking while writing writes other text");
  }
  docextBufFree(&fused);
  docextBufFree(&apart);
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData){
  DocBuf text, back, again;
  int eMode;
  if( nData>1000000 ) return 0;
  checkWhileWriting(aData, (i64)nData);
  if( !fuzzValid(aData, (i64)nData) ) return 0;
  memset(&text, 0, sizeof(text));
  memset(&back, 0, sizeof(back));
  memset(&again, 0, sizeof(again));
  for(eMode=DOCEXT_JSON_RELAXED; eMode<=DOCEXT_JSON_SHELL; eMode++){
    writeText(aData, eMode, &text);
    if( hasDollarName(aData) ) continue;
    readText(eMode, &text, &back);
    if( eMode==DOCEXT_JSON_CANONICAL ){
      writeText(back.a, eMode, &again);
      FUZZ_ASSERT(again.n==text.n && memcmp(again.a, text.a, (size_t)text.n)==0,
                  "canonical text is not a fixed point");
    }
  }
  checkKey(aData, (i64)nData);
  docextBufFree(&text);
  docextBufFree(&back);
  docextBufFree(&again);
  return 0;
}
