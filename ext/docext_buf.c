/*
** docext_buf.c — the one growable byte buffer, zeroed allocations, and
** little-endian helpers.
**
** Every builder in docext (BSON writer, JSON writer, key encoder, page
** assembler) appends to a DocBuf. Calls take a sticky return code: once
** *pRc is not SQLITE_OK they do nothing, so a long sequence of appends is
** checked once at its end.
*/
#include "docextInt.h"
#include <stdarg.h>

int docextErrorV(char **pzErr, const char *zFmt, va_list ap){
  *pzErr = sqlite3_vmprintf(zFmt, ap);
  return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
}

int docextError(char **pzErr, const char *zFmt, ...){
  va_list ap;
  int rc;
  va_start(ap, zFmt);
  rc = docextErrorV(pzErr, zFmt, ap);
  va_end(ap);
  return rc;
}

void *docextArrayGrow(int *pRc, void *a, int n, int *pnAlloc, int nSize){
  if( *pRc!=SQLITE_OK ) return a;
  if( n>=*pnAlloc ){
    int nNew = *pnAlloc ? *pnAlloc*2 : 16;
    void *aNew = sqlite3_realloc64(a, (sqlite3_uint64)nSize*nNew);
    if( aNew==0 ){ *pRc = SQLITE_NOMEM; return a; }
    *pnAlloc = nNew;
    return aNew;
  }
  return a;
}

/* sqlite3_malloc64() of n bytes, all zero; NULL when out of memory. */
void *docextMallocZero(i64 n){
  void *p = sqlite3_malloc64((sqlite3_uint64)n);
  if( p ) memset(p, 0, (size_t)n);
  return p;
}

void docextBufInit(DocBuf *p, u8 *aSpace, int nSpace){
  p->a = aSpace;
  p->n = 0;
  p->nAlloc = aSpace ? nSpace : 0;
  p->bHeap = 0;
}

void docextBufFree(DocBuf *p){
  if( p->bHeap ) sqlite3_free(p->a);
  memset(p, 0, sizeof(*p));
}

void docextBufReset(DocBuf *p){
  p->n = 0;
}

int docextBufGrow(int *pRc, DocBuf *p, i64 nExtra){
  i64 nNew;
  u8 *aNew;
  if( *pRc!=SQLITE_OK ) return 0;
  if( p->n + nExtra <= p->nAlloc ) return 1;
  if( nExtra<0 || p->n + nExtra > 0x7fffff00 ){
    *pRc = SQLITE_TOOBIG;
    return 0;
  }
  nNew = p->nAlloc ? p->nAlloc*2 : 128;
  while( nNew < p->n + nExtra ) nNew *= 2;
  if( p->bHeap ){
    aNew = sqlite3_realloc64(p->a, nNew);
  }else{
    aNew = sqlite3_malloc64(nNew);
    if( aNew && p->n ) memcpy(aNew, p->a, p->n);
  }
  if( aNew==0 ){
    *pRc = SQLITE_NOMEM;
    return 0;
  }
  p->a = aNew;
  p->nAlloc = nNew;
  p->bHeap = 1;
  return 1;
}

void docextBufAppendSlow(int *pRc, DocBuf *p, const void *a, i64 n){
  if( n>0 && docextBufGrow(pRc, p, n) ){
    memcpy(&p->a[p->n], a, n);
    p->n += n;
  }
}

void docextBufAppendf(int *pRc, DocBuf *p, const char *zFmt, ...){
  char *z;
  va_list ap;
  if( *pRc!=SQLITE_OK ) return;
  va_start(ap, zFmt);
  z = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if( z==0 ){
    *pRc = SQLITE_NOMEM;
    return;
  }
  docextBufAppendStr(pRc, p, z);
  sqlite3_free(z);
}

void docextBufAppendI64(int *pRc, DocBuf *p, i64 v){
  if( docextBufReserve(pRc, p, 8) ){
    u64 u = (u64)v;
    int i;
    for(i=0; i<8; i++){ p->a[p->n++] = (u8)u; u >>= 8; }
  }
}

void docextBufAppendDouble(int *pRc, DocBuf *p, double v){
  i64 bits;
  memcpy(&bits, &v, 8);
  docextBufAppendI64(pRc, p, bits);
}

/* Give the buffer's memory to SQLite when it is on the heap, so the result
** is not copied; stack space has to be copied. */
void docextBufResultBlob(sqlite3_context *ctx, DocBuf *p){
  if( p->bHeap ){
    sqlite3_result_blob64(ctx, p->a, p->n, sqlite3_free);
    memset(p, 0, sizeof(*p));
  }else{
    sqlite3_result_blob64(ctx, p->n ? p->a : (const u8*)"", p->n, SQLITE_TRANSIENT);
    p->n = 0;
  }
}

/* Set the result to p's text, xDel as for sqlite3_result_text(). The text
** holds no NUL byte (JSON escapes it; docext's messages have none), so it
** goes with a terminator after it and length -1: SQLite then marks it
** NUL-terminated, and sqlite3_column_text() does not copy it once more to
** add one. */
static void resultText(sqlite3_context *ctx, DocBuf *p, void (*xDel)(void*)){
  int rc = SQLITE_OK;
  if( p->n==0 ){
    sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
  }else if( p->n < 0x7fffffff && docextBufReserve(&rc, p, 1) ){
    p->a[p->n] = 0;
    sqlite3_result_text(ctx, (const char*)p->a, -1, xDel);
  }else{
    sqlite3_result_text64(ctx, (const char*)p->a, (sqlite3_uint64)p->n, xDel, SQLITE_UTF8);
  }
}

/* Give the buffer's memory to SQLite when it is on the heap, as
** docextBufResultBlob does; p is left empty either way. */
void docextBufResultText(sqlite3_context *ctx, DocBuf *p){
  if( p->bHeap && p->n>0 ){
    resultText(ctx, p, sqlite3_free);
    memset(p, 0, sizeof(*p));
  }else{
    docextBufResultTextCopy(ctx, p);
    docextBufFree(p);
  }
}

void docextBufResultTextCopy(sqlite3_context *ctx, DocBuf *p){
  resultText(ctx, p, SQLITE_TRANSIENT);
  p->n = 0;
}

char *docextBufDetachText(int *pRc, DocBuf *p){
  char *z;
  docextBufAppendByte(pRc, p, 0);
  if( *pRc!=SQLITE_OK ){
    docextBufFree(p);
    return 0;
  }
  if( p->bHeap ){
    z = (char*)p->a;
    memset(p, 0, sizeof(*p));
    return z;
  }
  z = sqlite3_malloc64(p->n);
  if( z==0 ){
    *pRc = SQLITE_NOMEM;
  }else{
    memcpy(z, p->a, p->n);
  }
  p->n = 0;
  return z;
}

void docextBufCutText(int *pRc, DocBuf *p, i64 iFrom, i64 nMax){
  i64 n = iFrom + nMax;
  if( p->n<=n ) return;
  while( n>iFrom && (p->a[n] & 0xC0)==0x80 ) n--;      /* not inside a character */
  p->n = n;
  docextBufAppend(pRc, p, "...", 3);
}
