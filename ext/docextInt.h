/*
** docextInt.h — the one internal header of docext.
**
** docext is a SQLite extension that stores MongoDB-style BSON documents in
** virtual tables ("collections"). This header is shared by every file in
** ext/; it is fenced into sections, one per file, each listing the
** functions that file offers to the others ("Interface to docext_X.c").
**
** Conventions (see ../shared/STYLE.md):
**   - cross-file functions are docext<Object><Verb>, file-local ones are
**     static and short; types are Doc<Thing>; constants DOCEXT_* / DOC_*.
**   - all memory comes from sqlite3_malloc64/sqlite3_realloc64/sqlite3_free.
**   - builders take a "sticky" int *pRc: once it is not SQLITE_OK every
**     later call does nothing, so a pipeline checks once at the end.
**   - every error message meant for a user starts with "docext: ", and is
**     made by docextError (SQLITE_ERROR, or SQLITE_NOMEM without one).
**   - one of each: DocBuf for bytes that grow, docextArrayGrow for arrays,
**     DocIter to read BSON, docextPathWalk for dotted paths,
**     docextValueCompare for order, docextKeyAppend for index keys.
*/
#ifndef DOCEXT_INT_H
#define DOCEXT_INT_H

/* POSIX (clock_gettime, getpid) under -std=c11; must precede any include. */
#ifndef _POSIX_C_SOURCE
# define _POSIX_C_SOURCE 200809L
#endif

#include "sqlite3ext.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
# include <emmintrin.h>
#endif

typedef sqlite3_int64 i64;
typedef struct DocConn DocConn;   /* a connection's open collections (docext_vtab.c) */
typedef sqlite3_uint64 u64;
typedef unsigned char u8;

/* Limits (INTERFACE.md §2). */
#define DOCEXT_MAX_BSON   (16*1024*1024)  /* largest document, bytes */
#define DOCEXT_MAX_DEPTH  100             /* nested documents/arrays below the root */
#define DOCEXT_MAX_PATH_PARTS 200         /* components of a field path (MongoDB's
                                          ** FieldPath limit): in a projection, an
                                          ** update, a pipeline stage */
#define DOCEXT_COUNT(a)   ((int)(sizeof(a)/sizeof((a)[0])))   /* elements of an array */

/* BSON element types (bsonspec.org 1.1). */
#define DOC_DOUBLE      0x01
#define DOC_STRING      0x02
#define DOC_DOCUMENT    0x03
#define DOC_ARRAY       0x04
#define DOC_BINARY      0x05
#define DOC_UNDEFINED   0x06
#define DOC_OID         0x07
#define DOC_BOOL        0x08
#define DOC_DATE        0x09
#define DOC_NULL        0x0A
#define DOC_REGEX       0x0B
#define DOC_DBPOINTER   0x0C
#define DOC_CODE        0x0D
#define DOC_SYMBOL      0x0E
#define DOC_CODEWSCOPE  0x0F
#define DOC_INT32       0x10
#define DOC_TIMESTAMP   0x11
#define DOC_INT64       0x12
#define DOC_DECIMAL128  0x13
#define DOC_MINKEY      0xFF
#define DOC_MAXKEY      0x7F

/**************************************************************************
** Interface to docext_buf.c — the one growable buffer type.
**
** A DocBuf may start in caller-supplied (stack) space and moves to the heap
** when it outgrows it. Zero-initialising a DocBuf is a valid empty buffer.
*/
typedef struct DocBuf DocBuf;
struct DocBuf {
  u8 *a;          /* content (not NUL-terminated unless you append one) */
  i64 n;          /* bytes used */
  i64 nAlloc;     /* bytes available at a */
  int bHeap;      /* 1 if a was allocated by sqlite3_malloc */
};

void *docextMallocZero(i64 n);        /* sqlite3_malloc64, zeroed */
/* Room for one more item in array a (items of nSize bytes, n in use,
** *pnAlloc allocated), which doubles when full: the array, moved or not.
** When *pRc is already an error, or becomes SQLITE_NOMEM here, a is
** returned unchanged and has no room. */
void *docextArrayGrow(int *pRc, void *a, int n, int *pnAlloc, int nSize);
/* The one way an error message is made: *pzErr = the formatted message
** (sqlite3_mprintf's format); returns SQLITE_ERROR, or SQLITE_NOMEM when
** the message cannot be allocated. */
int docextError(char **pzErr, const char *zFmt, ...);
int docextErrorV(char **pzErr, const char *zFmt, va_list ap);
void docextBufInit(DocBuf *p, u8 *aSpace, int nSpace);
void docextBufFree(DocBuf *p);        /* frees heap memory; leaves p empty */
void docextBufReset(DocBuf *p);       /* n = 0, keeps memory */
/* Make room for nExtra more bytes. Returns 0 (and sets *pRc) on failure. */
int docextBufGrow(int *pRc, DocBuf *p, i64 nExtra);
/* The same, inline when the room is already there. */
static inline int docextBufReserve(int *pRc, DocBuf *p, i64 nExtra){
  if( *pRc==SQLITE_OK && p->n+nExtra<=p->nAlloc ) return 1;
  return docextBufGrow(pRc, p, nExtra);
}
void docextBufAppendSlow(int *pRc, DocBuf *p, const void *a, i64 n);
/* Appends are inline when the bytes fit: they are on every hot path. */
static inline void docextBufAppend(int *pRc, DocBuf *p, const void *a, i64 n){
  if( *pRc==SQLITE_OK && n>0 && p->n+n<=p->nAlloc ){
    memcpy(&p->a[p->n], a, (size_t)n);
    p->n += n;
  }else{
    docextBufAppendSlow(pRc, p, a, n);
  }
}
static inline void docextBufAppendByte(int *pRc, DocBuf *p, u8 c){
  if( *pRc==SQLITE_OK && p->n<p->nAlloc ){
    p->a[p->n++] = c;
  }else{
    docextBufAppendSlow(pRc, p, &c, 1);
  }
}
/* Append a string without its NUL (inline, so a literal's length is known
** at compile time). */
static inline void docextBufAppendStr(int *pRc, DocBuf *p, const char *z){
  docextBufAppend(pRc, p, z, (i64)strlen(z));
}
void docextBufAppendf(int *pRc, DocBuf *p, const char *zFmt, ...);
void docextBufAppendI64(int *pRc, DocBuf *p, i64 v);       /* little-endian */
void docextBufAppendDouble(int *pRc, DocBuf *p, double v); /* little-endian */
/* Hand the content to SQLite as a result (the buffer is left empty). Text
** results must hold no NUL byte: JSON, or docext's own messages. */
void docextBufResultBlob(sqlite3_context *ctx, DocBuf *p);
void docextBufResultText(sqlite3_context *ctx, DocBuf *p);     /* p's memory goes */
void docextBufResultTextCopy(sqlite3_context *ctx, DocBuf *p); /* copied; p kept */
/* Detach the content as a NUL-terminated heap string owned by the caller
** (sqlite3_free it); NULL on OOM. The buffer is left empty. */
char *docextBufDetachText(int *pRc, DocBuf *p);
/* For messages: if the text from byte iFrom on is longer than nMax bytes,
** cut it there (back to the start of a UTF-8 character) and append "...". */
void docextBufCutText(int *pRc, DocBuf *p, i64 iFrom, i64 nMax);

/* Little-endian readers, for trusted (validated) bytes. Inline: they are
** in every inner loop (compilers turn each into one load). */
static inline int32_t docextGetI32(const u8 *p){
  uint32_t u = (uint32_t)p[0] | ((uint32_t)p[1]<<8)
             | ((uint32_t)p[2]<<16) | ((uint32_t)p[3]<<24);
  return (int32_t)u;
}
static inline i64 docextGetI64(const u8 *p){
  u64 u = (u64)(uint32_t)docextGetI32(p) | ((u64)(uint32_t)docextGetI32(p+4)<<32);
  return (i64)u;
}
static inline double docextGetDouble(const u8 *p){
  i64 v = docextGetI64(p);
  double d;
  memcpy(&d, &v, 8);
  return d;
}
/* Little-endian writers (inline: every document and string ends with one;
** compilers turn each into one store). */
static inline void docextPutI32(u8 *p, int32_t v){
  uint32_t u = (uint32_t)v;
  p[0] = (u8)u; p[1] = (u8)(u>>8); p[2] = (u8)(u>>16); p[3] = (u8)(u>>24);
}
static inline void docextBufAppendI32(int *pRc, DocBuf *p, int32_t v){
  if( docextBufReserve(pRc, p, 4) ){
    docextPutI32(&p->a[p->n], v);
    p->n += 4;
  }
}

/**************************************************************************
** Interface to docext_bson.c — validate, iterate, write.
*/

/* A BSON value: its type and the bytes of its value (after the key). For
** DOC_DOCUMENT and DOC_ARRAY, p points at the embedded document (its
** 4-byte length first) and n is that length. */
typedef struct DocValue DocValue;
struct DocValue {
  u8 type;
  const u8 *p;
  int n;
};

/* Zero-copy iterator over the elements of a validated document. */
typedef struct DocIter DocIter;
struct DocIter {
  const u8 *aDoc;     /* the document being iterated */
  int nDoc;           /* its size */
  int iNext;          /* offset of the next element */
  int iElem;          /* offset of the current element (its type byte) */
  const char *zKey;   /* current key (NUL-terminated, inside aDoc) */
  int nKey;           /* strlen(zKey) */
  DocValue v;         /* current value */
};

/* Size of the value bytes of a value of this type starting at p with nAvail
** bytes available, or -1 if they cannot hold one. Validates lengths only. */
int docextBsonValueSize(int type, const u8 *p, i64 nAvail);

/* Iterate a validated document (aDoc starts with its int32 length). */
static inline void docextIterInit(DocIter *pIter, const u8 *aDoc){
  pIter->aDoc = aDoc;
  pIter->nDoc = docextGetI32(aDoc);
  pIter->iNext = 4;
  pIter->iElem = 4;
  pIter->zKey = 0;
  pIter->nKey = 0;
  pIter->v.type = 0;
  pIter->v.p = 0;
  pIter->v.n = 0;
}
/* Iterate the document or array held by a value (type DOCUMENT/ARRAY). */
void docextIterInitValue(DocIter *pIter, const DocValue *pVal);
/* The number of elements of a validated document or array value. */
int docextIterCount(const DocValue *pVal);
/* The index of the name z[0..n) in azName[0..nName) (option values such
** as "moderate", type names), or -1. */
int docextNameIndex(const char *z, int n, const char *const *azName, int nName);
/* The length of the NUL-terminated key at z, nAvail bytes of which may be
** read (its document's last byte is a NUL, so the scan stops there at the
** latest). Keys are short and this is on every read: sixteen bytes are
** searched at once where sixteen may be read; else no strlen() call (the
** loop takes two bytes a step so that the compiler does not turn it back
** into one). */
static inline int docextKeyLen(const u8 *z, i64 nAvail){
  int n = 0;
#if defined(__SSE2__) && defined(__GNUC__)
  if( nAvail>=16 ){
    int m = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)z),
                                             _mm_setzero_si128()));
    if( m ) return __builtin_ctz((unsigned)m);
    n = 16;
  }
#else
  (void)nAvail;
#endif
  while( z[n] && z[n+1] ) n += 2;
  if( z[n] ) n++;
  return n;
}
/* Step to the next element; 1 if there is one, 0 at the end. Inline, with
** the common sizes worked out here: it is the inner loop of every read,
** match and write. (The document is validated, so lengths are sound.) */
static inline int docextIterNext(DocIter *pIter){
  const u8 *a = pIter->aDoc;
  int i = pIter->iNext, n = 0;
  if( i>=pIter->nDoc-1 ) return 0;
  pIter->iElem = i;
  pIter->v.type = a[i++];
  pIter->zKey = (const char*)&a[i];
  n = docextKeyLen(&a[i], pIter->nDoc - i);
  pIter->nKey = n;
  i += n + 1;
  pIter->v.p = &a[i];
  switch( pIter->v.type ){
    case DOC_STRING:   n = docextGetI32(&a[i]) + 4; break;
    case DOC_DOCUMENT:
    case DOC_ARRAY:    n = docextGetI32(&a[i]); break;
    case DOC_INT32:    n = 4; break;
    case DOC_DOUBLE: case DOC_INT64: case DOC_DATE: n = 8; break;
    case DOC_BOOL:     n = 1; break;
    case DOC_NULL:     n = 0; break;
    default:
      n = docextBsonValueSize(pIter->v.type, &a[i], pIter->nDoc - 1 - i);
      break;
  }
  pIter->v.n = n;
  pIter->iNext = i + n;
  return 1;
}

/* Is the iterator's current key z? */
static inline int docextIterKeyIs(const DocIter *pIt, const char *z){
  return pIt->nKey==(int)strlen(z) && memcmp(pIt->zKey, z, (size_t)pIt->nKey)==0;
}
/* The fields of document v named azName[0..nName), into aOut (type 0 where
** absent; the last of a name given twice): a stage's or operator's named
** arguments. Returns the name of the first other field, or NULL. */
const char *docextBsonFields(const DocValue *v, const char *const *azName, int nName,
                             DocValue *aOut);
/* Find key zKey (nKey bytes) in a validated document; 1 if found. */
int docextBsonFind(const u8 *aDoc, const char *zKey, int nKey, DocValue *pOut);
/* Append to pOut document aDoc (which has no _id) with _id *pId first: a
** replacement keeping the old _id, an upsert taking the filter's. */
void docextBsonWithId(int *pRc, DocBuf *pOut, const DocValue *pId, const u8 *aDoc);
/* Write aDoc to pOut with the value at dotted path zPath set to pNew, or
** removed when pNew is NULL. Setting goes through embedded documents and
** makes those missing on the way, replacing a value that is not a document
** (an array too); a field not there goes at the end of its document.
** Removing changes nothing when the path is not there. */
void docextBsonSetPath(int *pRc, DocBuf *pOut, const u8 *aDoc, const char *zPath,
                       const DocValue *pNew);
/* A copy of a validated document (sqlite3_free it), or 0: out of memory. */
u8 *docextBsonCopy(const u8 *aDoc);


/* Checking an untrusted document while reading it, element by element,
** for a reader that would otherwise walk it twice (check, then use). The
** problems found, and their order, are those of docextBsonCheckEx():
**   docextCheckInit(&ck, a, n, bText)   the whole document's size limits;
**   docextCheckStart(&ck, &it, a, n)    a (sub)document's frame, readying it;
**   docextCheckNext(&ck, &it, iDepth)   1: the next element, checked, in it;
**                                       0: the end; -1: a problem.
** An element that is a document or an array is sized, not walked: check
** it with docextCheckStart() on it.v (and step through it at iDepth+1)
** before stepping on. On a problem, ck.iOff and ck.zWhy say where and what. */
typedef struct DocCheck DocCheck;
struct DocCheck {
  const u8 *aBase;       /* start of the outermost document */
  int bText;             /* also check UTF-8 of keys and strings */
  int iOff;              /* offset of the first problem */
  const char *zWhy;      /* what it is */
};
int docextCheckInit(DocCheck *pCk, const u8 *a, i64 n, int bText);
/* The whole check in one call: docextBsonCheckEx(), reporting through pCk. */
int docextCheckDoc(DocCheck *pCk, const u8 *a, i64 n, int bText);
int docextCheckFailAt(DocCheck *pCk, const u8 *p, const char *zWhy);   /* -1 */
int docextCheckUtf8(DocCheck *pCk, const u8 *p, i64 n, const char *zWhy);
int docextCheckOther(DocCheck *pCk, int type, const u8 *pType, const u8 *p, i64 nRest,
                     int iDepth);
static inline int docextCheckStart(DocCheck *pCk, DocIter *pIt, const u8 *a, i64 nAvail){
  if( nAvail<5 ) return docextCheckFailAt(pCk, a, "document shorter than 5 bytes");
  if( docextGetI32(a)!=nAvail ) return docextCheckFailAt(pCk, a, "bad document length");
  if( a[nAvail-1]!=0 ) return docextCheckFailAt(pCk, a+nAvail-1, "document not terminated");
  docextIterInit(pIt, a);
  return SQLITE_OK;
}
/* Inline, as docextIterNext() is: every read of a stored document steps
** through it this way, and a call per element would cost the caller its
** iterator in registers. The common types are sized and checked here, in
** one switch; docextCheckOther() has the rest. */
static inline int docextCheckNext(DocCheck *pCk, DocIter *pIt, int iDepth){
  const u8 *a = pIt->aDoc;
  i64 nDoc = pIt->nDoc, i = pIt->iNext, j, nVal, nRest;
  int type;
  const u8 *pType;
  if( i>=nDoc-1 ){
    if( i!=nDoc-1 ) return docextCheckFailAt(pCk, a+i, "elements overrun the document");
    return 0;
  }
  pType = &a[i];
  type = a[i++];
  j = i + docextKeyLen(&a[i], nDoc-i);
  if( j>=nDoc-1 ) return docextCheckFailAt(pCk, pType, "key not terminated");
  if( pCk->bText && docextCheckUtf8(pCk, &a[i], j-i, "invalid UTF-8 in key") ) return -1;
  pIt->iElem = (int)(pType - a);
  pIt->zKey = (const char*)&a[i];
  pIt->nKey = (int)(j-i);
  i = j+1;
  nRest = nDoc-1-i;
  switch( type ){
    case DOC_STRING:
      nVal = nRest>=4 ? (i64)docextGetI32(&a[i]) + 4 : -1;
      if( nVal<5 || nVal>nRest ){ nVal = -1; break; }
      if( a[i+nVal-1]!=0 ) return docextCheckFailAt(pCk, &a[i+nVal-1], "string not terminated");
      if( pCk->bText && docextCheckUtf8(pCk, &a[i+4], nVal-5, "invalid UTF-8 in string") ){
        return -1;
      }
      break;
    case DOC_INT32:
      nVal = nRest>=4 ? 4 : -1;
      break;
    case DOC_DOUBLE: case DOC_INT64: case DOC_DATE:
      nVal = nRest>=8 ? 8 : -1;
      break;
    case DOC_NULL:
      nVal = 0;
      break;
    case DOC_BOOL:
      nVal = nRest>=1 ? 1 : -1;
      if( nVal>0 && a[i]>1 ) return docextCheckFailAt(pCk, &a[i], "bool byte is not 0 or 1");
      break;
    case DOC_DOCUMENT: case DOC_ARRAY:
      nVal = nRest>=4 ? (i64)docextGetI32(&a[i]) : -1;
      if( nVal<5 || nVal>nRest ) nVal = -1;
      else if( iDepth>=DOCEXT_MAX_DEPTH ){
        return docextCheckFailAt(pCk, &a[i], "nesting deeper than 100 levels");
      }
      break;
    default:
      nVal = docextCheckOther(pCk, type, pType, &a[i], nRest, iDepth);
      if( nVal<0 ) return -1;
      break;
  }
  if( nVal<0 || nVal>nRest ){
    return docextCheckFailAt(pCk, &a[i], "value runs past the end of its document");
  }
  pIt->v.type = (u8)type;
  pIt->v.p = &a[i];
  pIt->v.n = (int)nVal;
  pIt->iNext = (int)(i + nVal);
  return 1;
}

/* Validate an untrusted BSON document of n bytes. Returns SQLITE_OK, or
** SQLITE_ERROR with *piOff set to the byte offset of the first problem and
** *pzWhy to a static description ("bad string length", ...). Checks lengths,
** terminators, UTF-8 of keys and strings, bool bytes, nesting (at most
** DOCEXT_MAX_DEPTH below the root), total size <= DOCEXT_MAX_BSON. */
int docextBsonValidate(const u8 *a, i64 n, int *piOff, const char **pzWhy);
/* As above, formatting "docext: malformed BSON at byte N: why" into *pzErr
** (sqlite3_malloc'd) on failure. */
int docextBsonCheck(const u8 *a, i64 n, char **pzErr);
/* As docextBsonCheck; bText=0 checks the structure only (lengths,
** terminators, types, nesting) and not UTF-8: enough to read the bytes
** safely, for documents docext itself stored after a full check. */
int docextBsonCheckEx(const u8 *a, i64 n, int bText, char **pzErr);

/* Value accessors for trusted values. */
int32_t docextValueI32(const DocValue *v);
i64 docextValueI64(const DocValue *v);        /* DOC_INT64, DOC_DATE, TIMESTAMP bits */
/* A value of 8 bytes (DOC_INT64, DOC_DATE, DOC_TIMESTAMP): x, little-endian
** in a8, which the value points at. */
DocValue docextValue64(int type, i64 x, u8 *a8);
/* A string value (DOC_STRING) of z[0..n), written into p (reset first),
** which the value points at; valid while p is unchanged, if *pRc is
** SQLITE_OK (type 0 otherwise). */
DocValue docextValueString(int *pRc, DocBuf *p, const char *z, int n);
double docextValueDouble(const DocValue *v);  /* DOC_DOUBLE */
/* String payload of DOC_STRING, DOC_SYMBOL, DOC_CODE (and the code of
** DOC_CODEWSCOPE): pointer and length without the NUL. */
const char *docextValueStr(const DocValue *v, int *pn);
int docextValueIsNumber(const DocValue *v);
/* Is v a double or decimal128 NaN? */
int docextValueIsNaN(const DocValue *v);
/* Levels of documents and arrays a value holds: 0 for a scalar, 1 for a
** document of scalars, ...; past nMax levels it looks no deeper and
** returns nMax+1 (so a value built deeper than any stored one costs no
** more stack than a stored one). */
int docextValueDepth(const DocValue *v, int nMax);
/* A number as a double (decimal128 rounded); 0.0 for non-numbers. */
double docextValueToDouble(const DocValue *v);
/* MongoDB's truth of a value ($exists' operand, options such as upsert,
** $expr): false, null, undefined, a missing value (type 0) and every zero
** are false; everything else, NaN included, is true. */
int docextValueTruth(const DocValue *v);

/* Writer. A document under construction lives in a DocBuf: StartDoc writes
** a length placeholder and returns its offset, EndDoc appends the 0x00 and
** patches the length. Elements are a key (AppendKey) then value bytes. */
i64 docextBsonStartDoc(int *pRc, DocBuf *p);
void docextBsonEndDoc(int *pRc, DocBuf *p, i64 iStart);
void docextBsonAppendKey(int *pRc, DocBuf *p, int type, const char *zKey, int nKey);
/* AppendKey + StartDoc, for an embedded document or array. */
i64 docextBsonStartChild(int *pRc, DocBuf *p, int type, const char *zKey, int nKey);
/* Copy a whole value under a new key. */
void docextBsonAppendValue(int *pRc, DocBuf *p, const char *zKey, int nKey, const DocValue *v);
/* Append element zKey: the string "$zField", an expression's reference to
** field zField[0..nField). */
void docextBsonAppendFieldRef(int *pRc, DocBuf *p, const char *zKey, int nKey,
                              const char *zField, int nField);
void docextBsonAppendInt32(int *pRc, DocBuf *p, const char *zKey, int nKey, int32_t v);
void docextBsonAppendInt64(int *pRc, DocBuf *p, const char *zKey, int nKey, i64 v);
void docextBsonAppendDouble(int *pRc, DocBuf *p, const char *zKey, int nKey, double v);
void docextBsonAppendBool(int *pRc, DocBuf *p, const char *zKey, int nKey, int b);
void docextBsonAppendNull(int *pRc, DocBuf *p, const char *zKey, int nKey);
/* type is DOC_STRING, DOC_SYMBOL or DOC_CODE. */
void docextBsonAppendString(int *pRc, DocBuf *p, int type, const char *zKey, int nKey, const char *z, int n);
void docextBsonAppendOid(int *pRc, DocBuf *p, const char *zKey, int nKey, const u8 *aOid);
void docextBsonAppendDate(int *pRc, DocBuf *p, const char *zKey, int nKey, i64 ms);
/* Writes the decimal key of array element i into zBuf (>= 12 bytes);
** returns its length. */
int docextBsonArrayKey(char *zBuf, int i);

/**************************************************************************
** Interface to docext_dec128.c — IEEE 754-2008 decimal128 (BID encoding),
** exactly as the Decimal128 spec and the BSON corpus require, and the
** arithmetic of BSON numbers.
*/
#define DOCEXT_DEC_FINITE 0
#define DOCEXT_DEC_INF    1
#define DOCEXT_DEC_NAN    2

/* Parse a decimal string (the spec's grammar: "1.5E+3", "-Infinity", "NaN",
** ...) into 16 little-endian bytes. Returns SQLITE_OK or SQLITE_ERROR (the
** string is not a decimal128: syntax, or an exponent/precision that cannot
** be represented without rounding, per the spec). */
int docextDec128FromString(const char *z, int n, u8 *aOut);
/* Format 16 bytes as the spec's string form into zOut (>= 48 bytes);
** returns the length. */
int docextDec128ToString(const u8 *a, char *zOut);
/* Decompose: *pbNeg sign, returns DOCEXT_DEC_FINITE/INF/NAN. For finite
** values the coefficient's decimal digits (no leading zeros; "0" for zero)
** go to zDigits (>= 35 bytes, NUL-terminated) and the exponent to *piExp,
** so the value is digits x 10^exp. */
int docextDec128Parts(const u8 *a, int *pbNeg, char *zDigits, int *piExp);
/* Nearest double. */
double docextDec128ToDouble(const u8 *a);
/* The decimal128 for an int64 / a double (double: its shortest round-trip
** decimal form, as MongoDB's NumberDecimal(double) does). */
void docextDec128FromInt64(i64 v, u8 *aOut);
void docextDec128FromDouble(double v, u8 *aOut);

/* Exact arithmetic, rounded once to 34 digits, half to even (IEEE 754-2008,
** as MongoDB computes through the Intel library): *aOut = a+b, a*b, a/b.
** Division by zero gives an infinity (or NaN for 0/0); callers that must
** refuse it check first. SQLITE_OK or SQLITE_NOMEM. */
int docextDec128Add(const u8 *a, const u8 *b, u8 *aOut);
int docextDec128Mul(const u8 *a, const u8 *b, u8 *aOut);
int docextDec128Div(const u8 *a, const u8 *b, u8 *aOut);
/* Is the decimal a zero (of any sign and exponent)? */
int docextDec128IsZero(const u8 *a);

/* A BSON number being computed with ($inc, $mul, $expr's arithmetic). */
typedef struct DocNum DocNum;
struct DocNum {
  int type;                 /* DOC_INT32, DOC_INT64, DOC_DOUBLE, DOC_DECIMAL128 */
  i64 i;                    /* INT32, INT64 */
  double d;                 /* DOUBLE */
  u8 aDec[16];              /* DECIMAL128 */
};
/* The number a numeric value holds. */
void docextNumFrom(const DocValue *v, DocNum *p);
/* As a decimal128: integers exactly, a double rounded to 15 digits as
** MongoDB's Decimal128(double) does (0.1 -> 0.100000000000000). */
void docextNumToDec(const DocNum *p, u8 *aOut);
/* *r = a+b (bMul 0) or a*b (bMul 1) with MongoDB's type rules: the wider
** type wins (int32 < int64 < double < decimal128), int32 overflow widens
** to int64; SQLITE_RANGE on int64 overflow (r then unset). */
int docextNumArith(int bMul, const DocNum *a, const DocNum *b, DocNum *r);
/* A sum as MongoDB's $sum and $avg accumulate it: integers and doubles in
** a double-double (MongoDB's DoubleDoubleSummation), decimal128 apart, and
** the widest type added. docextSumResult is $sum's value (int32, int64
** while it fits, else double; decimal128 when one was added),
** docextSumAvg $avg's over n numbers. */
typedef struct DocSum DocSum;
struct DocSum {
  int type;                 /* the widest type added (DOC_INT32 at first) */
  double sum, addend;       /* the integers' and doubles': sum + addend */
  double special;           /* their plain sum (when sum is NaN) */
  int bDec;                 /* a decimal128 was added: */
  u8 aDec[16];              /* their sum */
};
void docextSumInit(DocSum *p);
int docextSumAdd(DocSum *p, const DocNum *x);
int docextSumResult(const DocSum *p, DocNum *pOut);
int docextSumAvg(const DocSum *p, i64 n, DocNum *pOut);
/* *pR = a op b, op one of '+', '-', '*', '/', as aggregation's $add,
** $subtract, $multiply and $divide compute it: as docextNumArith, but an
** int64 overflow gives a double; a quotient is a double unless a
** decimal128 is in it (b must not be zero for '/'). pR may be a or b. */
int docextNumOp(char op, const DocNum *a, const DocNum *b, DocNum *pR);
/* -p, exactly (the negation of the smallest integer widens to a double). */
void docextNumNegate(DocNum *p);
double docextNumDouble(const DocNum *p);
int docextNumIsZero(const DocNum *p);
/* Append the number as an element zKey of a document being written. */
void docextNumAppend(int *pRc, DocBuf *pOut, const char *zKey, int nKey, const DocNum *p);

/**************************************************************************
** Interface to docext_json.c — text in (strict JSON, Extended JSON v2
** canonical/relaxed/legacy, mongo shell literals) and text out.
*/

/* Parse one document from text z[0..n) (leading white space and comments
** skipped) and append its BSON to pOut. *pnUsed receives the offset just
** past the document. On error
** returns SQLITE_ERROR and *pzErr is "docext: <what> at line L column C".
** bTop: 1 if the text must hold exactly one document and nothing else. */
int docextJsonParse(const char *z, int n, int bTop, DocBuf *pOut, int *pnUsed, char **pzErr);
/* As docextJsonParse of one whole document, for the document arguments of
** deterministic functions: a literal that makes a new value at each
** reading (ObjectId(), new Date(), ISODate() with no argument) is an error,
** as the same text must always give the same document. */
int docextJsonParseFixed(const char *z, int n, DocBuf *pOut, char **pzErr);
/* As docextJsonParse of one whole document, or of one whole array: an
** update, which is a document or (*pbArray = 1) a pipeline's stages. The
** array's BSON (a document with keys "0", "1", ...) goes to pOut. */
int docextJsonParseUpdate(const char *z, int n, DocBuf *pOut, int *pbArray, char **pzErr);
/* As docextJsonParse of one whole document that is to be stored:
** *pbNamesChecked = 1 when no field name needs docextCollPrepare's check
** (none starts with '$' but a type wrapper's, none has a '.'). */
int docextJsonParseStored(const char *z, int n, DocBuf *pOut, int *pbNamesChecked,
                          char **pzErr);

/* A sequence of documents in text, read one at a time (doc_each): JSON
** Lines (documents one after another, separated by white space, comments
** or commas) or a JSON array of documents. Each document is parsed on its
** own, as a root, so the limits apply to each and not to the whole; errors
** give the line and column in the whole text. */
typedef struct DocJsonSeq DocJsonSeq;
struct DocJsonSeq {
  const char *z;      /* the text (the caller keeps it alive) */
  int n;              /* its length */
  int i;              /* where reading continues */
  int bArray;         /* a JSON array: z[iOpen] is its '[' */
  int iOpen;
  int nDoc;           /* documents begun so far */
  int bInDoc;         /* the last error was inside document nDoc */
};
void docextJsonSeqInit(DocJsonSeq *p, const char *z, int n);
/* The next document into pOut (reset first), or *pbEof at the end. On
** error returns non-zero and sets *pzErr ("docext: <what> at line L
** column C"). */
int docextJsonSeqNext(DocJsonSeq *p, DocBuf *pOut, int *pbEof, char **pzErr);

/* Parse a single value (any type, not only a document) from text into a
** one-element document {"": value}. Used for the _id column's text forms
** and for parsing option values. Same error conventions. */
int docextJsonParseValue(const char *z, int n, DocBuf *pOut, int *pnUsed, char **pzErr);

#define DOCEXT_JSON_RELAXED   0
#define DOCEXT_JSON_CANONICAL 1
#define DOCEXT_JSON_SHELL     2
/* Append the text form of a validated document (or of a single value) in
** the given mode. Relaxed/canonical: compact Extended JSON v2. Shell: the
** mongo shell's style (ObjectId("…"), ISODate("…"), NumberLong(…), …). */
void docextJsonWriteDoc(int *pRc, DocBuf *pOut, const u8 *aDoc, int eMode);
/* As docextJsonWriteDoc, for n bytes not yet checked: checks their
** structure (as docextBsonCheckEx() with bText=0) while writing them, in
** one walk instead of two. SQLITE_CORRUPT, with pCk saying what and
** where, at a problem (the text written so far is then meaningless). */
int docextJsonWriteDocChecked(int *pRc, DocBuf *pOut, const u8 *aDoc, i64 n, int eMode,
                              DocCheck *pCk);
void docextJsonWriteValue(int *pRc, DocBuf *pOut, const DocValue *v, int eMode);
/* Append z[0..n) as a JSON string: quoted, with '"', '\\' and control
** characters escaped (UTF-8 as it is). */
void docextJsonWriteString(int *pRc, DocBuf *pOut, const char *z, int n);

/* Time source for new Date(), ISODate(), ObjectId() (docext_oid.c). */

/**************************************************************************
** Interface to docext_oid.c — ObjectIds and the (freezable) clock.
*/
/* Fill aOut[12] with a new ObjectId: 4-byte big-endian seconds, 5 random
** bytes chosen once per process, 3-byte big-endian counter. */
void docextOidNew(u8 *aOut);
/* Current time in milliseconds since the epoch, or the frozen clock. */
i64 docextClockNowMs(void);
/* Freeze the clock at ms (bFrozen=1) or unfreeze it (bFrozen=0). */
void docextClockSet(int bFrozen, i64 ms);
int docextClockIsFrozen(void);
/* A random double in [0, 1), from SQLite's randomness ($rand, $sampleRate). */
double docextRandomUnit(void);
/* "2012-10-10T21:14:07.096Z" for ms since the epoch into zOut (>= 40
** bytes); returns the length. Years outside 0000-9999 are written as ISO
** 8601's expanded years, "+010000-01-01T…", "-000001-12-31T…". */
int docextIsoDateFormat(i64 ms, char *zOut);
/* A moment's calendar fields in UTC (proleptic Gregorian): dayOfWeek 1 for
** Sunday to 7 for Saturday, dayOfYear from 1, as MongoDB's $dayOfWeek and
** $dayOfYear count. */
typedef struct DocCivil DocCivil;
struct DocCivil {
  i64 year;
  int month, day, hour, minute, second, millis;
  int dayOfWeek, dayOfYear;
};
void docextCivilFromMs(i64 ms, DocCivil *p);
/* Parse ISO-8601: YYYY-MM-DD, optionally T or space HH:MM[:SS[.fff]] and
** Z, +HH:MM, +HHMM or +HH (UTC when absent). SQLITE_OK or SQLITE_ERROR. */
int docextIsoDateParse(const char *z, int n, i64 *pMs);
/* The same, and *pbZone: whether the text gave its zone (Z or an offset). */
int docextIsoDateParseZone(const char *z, int n, i64 *pMs, int *pbZone);
/* Days since 1970-01-01 of a proleptic Gregorian date (the month and day in
** range). */
i64 docextDaysFromCivil(i64 y, int m, int d);

/**************************************************************************
** Interface to docext_collation.c — MongoDB's collations, through ICU.
** A NULL DocCollator is the "simple" collation: bytes compared as they are.
*/
typedef struct DocCollator DocCollator;
/* A collator from a collation document v (MongoDB's fields and checks):
** *ppOut is NULL for {locale: "simple"}. Errors say what and where. */
int docextCollatorNew(const DocValue *v, DocCollator **ppOut, char **pzErr);
/* The collator of an options document's "collation" field (NULL when it
** has none, or aOptions is NULL). */
int docextCollatorOption(const u8 *aOptions, DocCollator **ppOut, char **pzErr);
/* p, with one more owner (NULL for NULL): each owner frees it once. A
** collator belongs to one connection, as everything of a collection does. */
DocCollator *docextCollatorRef(const DocCollator *p);
void docextCollatorFree(DocCollator *p);
/* The full spec, every field filled in (BSON owned by p; NULL for NULL). */
const u8 *docextCollatorSpec(const DocCollator *p);
/* Append p's full spec (not NULL) to the BSON document being written in
** pOut, as its field zKey ("collation"). */
void docextCollatorAppendSpec(int *pRc, DocBuf *pOut, const char *zKey, int nKey,
                              const DocCollator *p);
/* Do a and b compare alike (the same spec; NULL only with NULL)? */
int docextCollatorSame(const DocCollator *a, const DocCollator *b);
/* Compare UTF-8 strings a and b under p (not NULL): <0, 0, >0. */
int docextCollatorCompare(const DocCollator *p, const char *a, int na, const char *b, int nb);
/* Append z's ICU sort key under p (not NULL): memcmp() orders the keys as
** p orders the strings; no byte is 0. */
void docextCollatorKey(int *pRc, DocBuf *pOut, const DocCollator *p, const char *z, int n);

/**************************************************************************
** Interface to docext_cmp.c — BSON comparison order and index keys.
*/
/* The canonical type class that orders types (MinKey < null < numbers <
** string/symbol < object < array < binary < ObjectId < bool < date <
** timestamp < regex < DBPointer < code < code w/ scope < MaxKey). */
int docextTypeClass(int type);
/* Compare two values in BSON order: <0, 0, >0. Numbers by value across
** int32, int64, double and decimal128. */
int docextValueCompare(const DocValue *a, const DocValue *b);
/* The same under a collation (pCollator NULL: simple): strings and symbols, also
** inside documents and arrays, compare as pColl says. */
int docextValueCompareColl(const DocValue *a, const DocValue *b, const DocCollator *pCollator);
/* Append the order-preserving key of v (memcmp order == BSON order, equal
** values give equal keys). bDesc inverts it for descending index fields. */
void docextKeyAppend(int *pRc, DocBuf *p, const DocValue *v, int bDesc);
/* The same under a collation (NULL: simple): a string's bytes are its sort
** key under pColl, so that memcmp order is the collation's order. */
void docextKeyAppendColl(int *pRc, DocBuf *p, const DocValue *v, int bDesc,
                         const DocCollator *pCollator);
/* The order of keys: memcmp, shorter first on a tie (SQLite's order for
** BLOBs, so the order of the index B-trees). */
int docextKeyCmp(const u8 *a, int na, const u8 *b, int nb);
/* FNV-1a-64 of a[0..n): h = 0xcbf29ce484222325, then per byte h ^= b,
** h *= 0x100000001b3 (the hashed index's hash: never change it). */
u64 docextHashBytes(const u8 *a, i64 n);
/* The one sort: stable, a[0..n) of elements of sz bytes, in the order of
** xCmp(pCtx, x, y) (<0: x before y); aTmp has room for n elements. */
typedef int (*DocSortCmp)(void *pCtx, const void *x, const void *y);
void docextSort(void *a, int n, int sz, void *aTmp, DocSortCmp xCmp, void *pCtx);
/* Items ordered by keys held in one buffer: item iItem's key is the nKey
** bytes at aKeys + iKey. docextSortByKey sorts a[0..n) stably in
** docextKeyCmp order of their keys (SQLITE_NOMEM or SQLITE_OK). */
typedef struct DocKeyItem DocKeyItem;
struct DocKeyItem { i64 iKey; int nKey; int iItem; };
int docextSortByKey(DocKeyItem *a, int n, const u8 *aKeys);
/* A set of keys, each found again by its bytes ($group's groups, $densify's
** partitions): append a key to keys, then docextKeySetAdd(p, iKey, …) with
** iKey where it starts: *piEntry = the entry of an equal key added before
** (the new bytes are dropped again; *pbNew = 0), or of this one, added
** (*pbNew = 1). Entry i's key is a[i] (iItem = i). Zeroed is empty. */
typedef struct DocKeySet DocKeySet;
struct DocKeySet {
  DocBuf keys;              /* the keys, end to end */
  DocKeyItem *a;            /* the entries */
  int n, nAlloc;
  int *aSlot;               /* hash table: -1 empty, else an entry */
  int nSlot;
};
int docextKeySetAdd(DocKeySet *p, i64 iKey, int *piEntry, int *pbNew);
void docextKeySetFree(DocKeySet *p);

/**************************************************************************
** Interface to docext_path.c — the one path walker.
*/
/* Visit every value the dotted path reaches in a validated document:
** numeric components index arrays, other components applied to an array
** apply to each element that is a document (bFanned is then 1 for the
** values reached). A visitor returning non-zero stops the walk; that code
** is returned (SQLITE_DONE means "stopped early, not an error"). */
int docextPathWalk(const u8 *aDoc, const char *zPath, int nPath,
                   int (*xVisit)(void *pCtx, const DocValue *v, int bFanned), void *pCtx);
/* Is z[0..n) a non-negative decimal array index without leading zeros
** (at most 9 digits)? Sets *piIdx. The one parser of numeric path parts. */
int docextPathIndex(const char *z, int n, int *piIdx);
/* The number of components of dotted path z[0..n) ("a.b.c": 3). */
int docextPathComponents(const char *z, int n);
/* What is wrong with the dotted path z as the name of a field a stage
** makes ($lookup's as, $setWindowFields' output): "a field name may not be
** empty" or "… may not start with '$'"; NULL when nothing is. */
const char *docextPathProblem(const char *z);
/* Are dotted paths zA and zB the same, or one within the other ("a" and
** "a.b", not "a" and "ab")? */
int docextPathsOverlap(const char *zA, const char *zB);
/* The value at a path that crosses no array implicitly; 1 if found. */
int docextPathGet(const u8 *aDoc, const char *zPath, int nPath, DocValue *pOut);
/* Visit what a path reaches the way MongoDB's query matcher reads it
** (used by docext_match.c): a missing value is visited as v==0; an array
** before the last component is crossed element by element, a numeric
** component taking both the element at that index and field "N" of each
** document element; an array at the end is visited element by element
** (unless bNoLeafElems, for $size and $elemMatch) and then as a whole.
** iPos: index of the element of the first array crossed element by
** element, or -1. A non-zero return from xVisit stops the walk and is
** returned. */
int docextPathWalkMatch(const u8 *aDoc, const char *zPath, int nPath, int bNoLeafElems,
                        int (*xVisit)(void *pCtx, const DocValue *v, int iPos), void *pCtx);

/**************************************************************************
** Interface to docext_unicode.c — the Unicode facts MongoDB's text search
** reads (tables generated by tools/gen_unicode.py from Unicode 15.0).
*/
/* Decode one UTF-8 character of z[0..n) (n>0) into *pc; returns the bytes it
** took (1..4). Malformed input takes 1 byte and gives U+FFFD. */
int docextUtf8Decode(const unsigned char *z, int n, uint32_t *pc);
/* Encode c as UTF-8 into z (room for 4); returns the bytes written. */
int docextUtf8Encode(uint32_t c, unsigned char *z);
/* Is c a delimiter between words for MongoDB's text search? bEnglish: the
** apostrophe is part of words. */
int docextUnicodeIsDelimiter(uint32_t c, int bEnglish);
/* c lower-cased (folded) as MongoDB's tokenizer folds it. */
uint32_t docextUnicodeFold(uint32_t c);
/* c without its diacritics: the base character, 0 when c is itself a
** diacritic (dropped), c when it has none. */
uint32_t docextUnicodeStripDiacritics(uint32_t c);

/* docext_stem.c: stem the word z[0..n) (UTF-8, as the tokenizer made it)
** in place by Snowball's English stemmer; returns the stem's length (never
** more than n). */
int docextStemEnglish(char *z, int n);
/* A stemmer of the text index language zLanguage (MongoDB's name): *pp,
** NULL for "none" (no stemming). SQLITE_NOMEM when out of memory. */
typedef struct DocStemmer DocStemmer;
int docextStemmerNew(const char *zLanguage, DocStemmer **pp);
/* Replace the word in pWord (UTF-8, no NUL) by its stem. */
int docextStemmerStem(DocStemmer *p, DocBuf *pWord);
void docextStemmerFree(DocStemmer *p);

/* docext_stopwords.c (generated): the stop words of the language named
** zLanguage, sorted by their bytes, and their number in *pn; NULL and 0
** when it has none. */
const char *const *docextTextStopWords(const char *zLanguage, int *pn);

/**************************************************************************
** Interface to docext_text.c — MongoDB's text search: text indexes and
** the $text query operator.
*/
typedef struct DocTextSpec DocTextSpec;   /* a text index's fields and languages */
typedef struct DocText DocText;           /* one $text */
/* Bytes of a term an index key holds (longer terms are cut, at a
** character's start: the index only finds candidates, the matcher decides). */
#define DOCEXT_TEXT_KEY_MAX 256
int docextTextKeyLength(const char *z, int n);

/* A new spec: no fields yet, English, override field "language". */
int docextTextSpecNew(DocTextSpec **ppOut);
/* A text field of the key pattern (weight 1), or "$**": every string. */
int docextTextSpecField(DocTextSpec *p, const char *z, int n, char **pzErr);
/* An index option: weights, default_language, language_override,
** textIndexVersion. SQLITE_NOTFOUND when zKey is none of them. */
int docextTextSpecOption(DocTextSpec *p, const char *zKey, const DocValue *v, char **pzErr);
/* Append the options as a stored spec and doc_indexes show them. */
void docextTextSpecWrite(const DocTextSpec *p, int *pRc, DocBuf *pOut);
int docextTextSpecSame(const DocTextSpec *a, const DocTextSpec *b);
void docextTextSpecFree(DocTextSpec *p);
/* The terms of aDoc and their scores, as a text index stores them: xTerm
** is called once per distinct term, in byte order. Errors: a language
** override the document gives that is no string or no language. */
int docextTextTerms(const DocTextSpec *p, const u8 *aDoc,
                    int (*xTerm)(void*, const char*, int, double), void *pCtx,
                    char **pzErr);

/* *pbSame: aOld and aNew have the same strings for the index, in the same
** languages and at the same weights, so the same terms and scores. 0 when
** either cannot be read (a bad language). */
int docextTextSameStrings(const DocTextSpec *pSpec, const u8 *aOld, const u8 *aNew,
                          int *pbSame);

/* Compile {$search, $language, $caseSensitive, $diacriticSensitive}. */
int docextTextNew(const DocValue *v, DocText **ppOut, char **pzErr);
/* Read it with a collection's text index: its spec (copied) and its
** partialFilterExpression (aPartial, or NULL), which a document must match
** to be found. Until then docextTextMatch fails: $text needs the index. */
int docextTextBind(DocText *p, const DocTextSpec *pSpec, const u8 *aPartial,
                   char **pzErr);
int docextTextMatch(DocText *p, const u8 *aDoc, int *pbMatch, char **pzErr);
/* The error of a {$meta: "textScore"} without a $text to score. */
int docextTextNoScore(char **pzErr);
/* In doc_aggregate, a document's text score travels as this top-level
** field, which no stored document can have ($-prefixed): the pipeline's
** first $match with $text adds it, $meta (an expression, a $sort) reads it,
** $project keeps it, and it is taken out of the results
** (docextTextScoreStrip). */
#define DOCEXT_TEXT_SCORE_FIELD "$textScore"
/* The score field of aDoc (a double) into *pr: 1, or 0 when it has none. */
int docextTextScoreField(const u8 *aDoc, double *pr);
/* Append the score field, r, to the finished document pDoc holds. */
void docextTextScoreFieldAdd(int *pRc, DocBuf *pDoc, double r);
/* aDoc without any DOCEXT_TEXT_SCORE_FIELD field, at any depth, into pOut
** (reset); 0 (pOut untouched) when it has none. */
int docextTextScoreStrip(const u8 *aDoc, DocBuf *pOut, int *pRc);
/* Is v the string "textScore", the one $meta docext has? */
int docextTextMetaIsScore(const DocValue *v);
/* The document's text score (as MongoDB's {$meta: "textScore"}). */
int docextTextScore(DocText *p, const u8 *aDoc, double *pr, char **pzErr);
/* Append explain's ,"parsedTextQuery":{terms, negatedTerms, phrases,
** negatedPhrases} of a bound $text to pJson. */
void docextTextExplain(const DocText *p, int *pRc, DocBuf *pJson);
/* The terms a text index is read at for the $text operand v: NUL-terminated,
** one after another, in pOut; *pnTerm of them. *pbExact: the documents with
** entries for them are exactly its matches (it has neither negations nor
** phrases, nor case or diacritic sensitivity). SQLITE_ERROR for a bad
** operand. */
int docextTextIndexTerms(const DocValue *v, const DocTextSpec *pSpec, DocBuf *pOut,
                         int *pnTerm, int *pbExact);
void docextTextFree(DocText *p);

/**************************************************************************
** Interface to docext_geo.c — the geospatial query operators ($geoWithin,
** $within, $geoIntersects, $near, $nearSphere) and $geoNear's distances,
** tested on each value as MongoDB tests them, and the keys of 2dsphere and
** 2d indexes.
*/
typedef struct DocGeo DocGeo;
/* Parse the operand of $geoWithin (bWithin) or $geoIntersects: {$geometry:
** GeoJSON or a legacy point} or a legacy shape ({$box}, {$center},
** {$centerSphere}, {$polygon}). A bad shape: SQLITE_ERROR and *pzWhy (the
** reason alone, without "docext: "). */
int docextGeoQueryNew(int bWithin, const DocValue *pArg, DocGeo **ppOut, char **pzWhy);
/* *pbMatch = 1 if the value v (a stored legacy point or GeoJSON object)
** satisfies the query; a value that is no valid geometry does not. */
int docextGeoMatch(const DocGeo *pQuery, const DocValue *v, int *pbMatch);
void docextGeoFree(DocGeo *pGeo);
/* $geoNear's near: a GeoJSON Point (distances in metres on the sphere) or a
** legacy point (in radians on the sphere when bSpherical, else in the
** plane). Errors as docextGeoQueryNew's. */
int docextGeoNearNew(const DocValue *pNear, int bSpherical, DocGeo **ppOut, char **pzWhy);
/* *pr = the distance from a near point to the value v, a stored geometry
** (the nearest of its points; 0 inside a polygon), or -1 when v is no
** geometry that can be measured (in the plane: a single point). */
int docextGeoDistance(const DocGeo *pNear, const DocValue *v, double *pr);
/* The operators of {path: {$near | $nearSphere: …, $minDistance,
** $maxDistance}} (pOps, the whole operator document): the near point, as
** docextGeoNearNew makes it, and the distances (0 and infinity when not
** given), in the point's units. Errors as docextGeoQueryNew's. */
int docextGeoNearOpNew(const DocValue *pOps, DocGeo **ppOut, double *prMin, double *prMax,
                       char **pzWhy);
/* Does a $geoNear's near point (docextGeoNearNew) measure on the sphere
** (else in the plane)?
** *pbMeters: in metres (a GeoJSON point), else in radians. */
int docextGeoNearIsSphere(const DocGeo *pNear, int *pbMeters);
/* Its units per radian: the Earth's radius in metres, or 1. */
double docextGeoNearPerRadian(const DocGeo *pNear);
/* The longitude and latitude, in degrees, of a near point on the sphere;
** its x and y in the plane. */
void docextGeoNearCenter(const DocGeo *pNear, double *pLng, double *pLat);
/* 2d indexes: the keys of a stored value v (a legacy point, or an array
** of them) for an index with bounds [rMin, rMax) and nBits bits a
** coordinate, sorted and distinct; errors as docextGeoCells's. */
int docextGeo2dCells(const DocValue *v, double rMin, double rMax, int nBits,
                     i64 **paKey, int *pnKey, char **pzWhy);
/* The key ranges of such an index for a flat operator, as
** docextGeoKeyRanges gives them for a 2dsphere index. */
int docextGeo2dKeyRanges(int eOp, const DocValue *v, double rMin, double rMax, int nBits,
                         i64 **paRange, int *pnRange);
/* 2dsphere indexes. The keys of a stored geometry v: the cells that cover
** it, as int64 values, sorted and distinct (*paKey to be freed). A value
** that is no geometry: SQLITE_ERROR and *pzWhy (the reason alone). */
int docextGeoCells(const DocValue *v, i64 **paKey, int *pnKey, char **pzWhy);
/* The key ranges (*paRange: lo, hi, lo, hi, ..., inclusive; *pnRange of
** them; to be freed) that hold the keys of every geometry the operator can
** match: eOp is one of these, v the operator's argument (for
** DOCEXT_GEO_NEAR, the whole operator document). *pnRange 0: the operator
** bounds nothing (flat shapes, a $near without a maximum, a bad query). */
#define DOCEXT_GEO_WITHIN      1
#define DOCEXT_GEO_INTERSECTS  2
#define DOCEXT_GEO_NEAR        3
int docextGeoKeyRanges(int eOp, const DocValue *v, i64 **paRange, int *pnRange);

/**************************************************************************
** Interface to docext_regex.c — $regex through PCRE2 (the only file that
** includes pcre2.h). Allocation goes through SQLite's allocator; match and
** depth limits turn a pathological pattern into an error, not a hang.
*/
typedef struct DocRegex DocRegex;
/* Compile pattern z[0..n) with MongoDB options (i, m, s, x; u is accepted
** and ignored). Errors: "docext: invalid regex /…/: <why> at offset N". */
int docextRegexCompile(const char *z, int n, const char *zOptions,
                       DocRegex **ppRe, char **pzErr);
/* *pbMatch = 1 if the regex matches somewhere in s[0..n). SQLITE_ERROR
** with a message when a limit is hit. */
int docextRegexMatch(DocRegex *pRe, const char *s, int n, int *pbMatch, char **pzErr);
/* The same from byte iStart, and where: aOff[2*i], aOff[2*i+1] are the byte
** offsets of group i (0: the whole match) for the first nGroup groups, -1
** for a group that took no part. *pnMatch is 1 on a match, else 0. */
int docextRegexExec(DocRegex *pRe, const char *s, int n, int iStart, int *aOff, int nGroup,
                    int *pnMatch, char **pzErr);
/* The number of capturing groups of the pattern. */
int docextRegexGroups(DocRegex *pRe);
void docextRegexFree(DocRegex *pRe);
/* Put the options a[0..n) of a stored regex in alphabetical order, as BSON
** and Extended JSON want them, in linear time (options come from outside
** and may be long). Options with a byte >= 0x80 are left as they are:
** sorting bytes would break their UTF-8. */
void docextRegexSortOptions(u8 *a, i64 n);

/**************************************************************************
** Interface to docext_match.c — MongoDB query filters.
*/
typedef struct DocMatcher DocMatcher;
/*
** Interface to docext_schema.c — $jsonSchema, MongoDB's JSON Schema
** filter operator. docextSchemaNew() checks the schema v (a document) with
** MongoDB's errors and compiles its regexes; docextSchemaMatch() sets
** *pbMatch for the validated document aDoc (an error only when a regex
** hits a limit).
*/
typedef struct DocSchema DocSchema;
int docextSchemaNew(const DocValue *v, DocSchema **ppOut, char **pzErr);
int docextSchemaMatch(DocSchema *p, const u8 *aDoc, int *pbMatch, char **pzErr);
/* Why aDoc fails the schema, appended to pWhy: where and which keyword
** ("at 'age': minimum: 18, found 10"); nothing when it does not fail. */
int docextSchemaExplain(DocSchema *p, const u8 *aDoc, DocBuf *pWhy, char **pzErr);
void docextSchemaFree(DocSchema *p);

/* Compile a filter (a validated BSON document). Errors name the operator
** or path: "docext: unknown operator $foo in filter", "docext: $in needs an
** array in filter at 'tags'", "docext: $where is not supported". The
** matcher keeps its own copy of the filter. aLet, if not NULL, is the
** query's let option: variables for $expr ({name: expression};
** the caller checks it is a document). pNowMs, if not NULL, is the time
** $$NOW reads, shared by the filters of one query: 0 until the first
** $expr reads the clock into it. */
int docextMatcherNew(const u8 *aFilter, const u8 *aLet, i64 *pNowMs, DocMatcher **ppOut,
                     char **pzErr);
/* The same under a collation (borrowed: it must outlive the matcher; NULL
** is simple): comparisons of strings, also in documents and arrays, and
** $in, follow it; $regex does not (as in MongoDB). */
int docextMatcherNewColl(const u8 *aFilter, const u8 *aLet, i64 *pNowMs,
                         const DocCollator *pCollator, DocMatcher **ppOut, char **pzErr);
/* Is v a document of operators ({$gt: 1}) rather than a value to compare
** with: its first key starts with '$' and it is not a DBRef? */
int docextIsOperatorDoc(const DocValue *v);
/* Is zKey an operator that stands beside fields in a filter ($and, $or,
** $expr, $jsonSchema, $sampleRate, …), as opposed to one on a field's
** value ($gt)? (So {$elemMatch: {$and: …}} is a filter of documents.) */
int docextIsFilterOp(const DocIter *pIt);
/* Does the validated document match? *pbMatch = 1/0. *piPos (may be NULL)
** receives the index of the array element that satisfied the filter's
** condition on an array field (for the positional $ of projections and
** updates), or -1. Returns SQLITE_OK or an error (regex limits). */
int docextMatcherMatch(DocMatcher *p, const u8 *aDoc, int *pbMatch, int *piPos, char **pzErr);
/* 1 if the filter is empty ({}): every document matches. */
int docextMatcherIsEmpty(DocMatcher *p);
/* "$expr", "$jsonSchema", "$sampleRate" or "$text" if the filter uses one (the
** first), else "$near" if it has a $near or $nearSphere, else NULL: operators on whole
** documents (or, $near, on the order of a query's results), which MongoDB
** allows only in queries, not in partial indexes, array filters or $pull
** conditions. */
const char *docextMatcherWholeOp(DocMatcher *p);
/* The filter's $near or $nearSphere: its point (owned by the matcher) and
** its path; NULL when it has none. */
const DocGeo *docextMatcherNear(DocMatcher *p, const char **pzPath, int *pnPath);
/* The $near's $maxDistance (in its point's units), or infinity. */
double docextMatcherNearMax(DocMatcher *p);
/* The filter's $text (owned by the matcher), or NULL. Its matches fail
** until a query binds it to the collection's text index (docextCollBindText). */
DocText *docextMatcherText(DocMatcher *p);
void docextMatcherFree(DocMatcher *p);

/**************************************************************************
** Interface to docext_tz.c — zones of the system's time zone database.
*/
typedef struct DocTz DocTz;
/* The zone named z[0..n) ("Europe/Paris"), read from TZDIR or
** /usr/share/zoneinfo the first time it is asked for and kept for the
** life of the process (never free it). SQLITE_ERROR when there is no such
** zone, with *pzWhy a reason or NULL (sqlite3_free it); SQLITE_NOMEM. */
int docextTzFind(const char *z, int n, const DocTz **ppTz, char **pzWhy);
/* The zone's offset east of UTC, in seconds, at UTC second t. */
int docextTzOffset(const DocTz *p, i64 t);
/* A zone read from the n bytes of a TZif file, unnamed and not kept
** (docextTzFree it); SQLITE_ERROR with the reason in *pzBad (static text)
** when they do not hold together, or SQLITE_NOMEM. For tests and
** docextTzFind. */
int docextTzRead(const u8 *a, i64 n, DocTz **ppTz, const char **pzBad);
void docextTzFree(DocTz *p);
/* Free every zone read, so that the next use reads it again: for tests
** (test_oom fails each allocation of the reading), when no statement
** holds a zone (a compiled expression keeps the zones it names). */
void docextTzForget(void);

/**************************************************************************
** Interface to docext_expr.c — aggregation expressions ($expr, and the
** stages of pipeline updates).
*/
typedef struct DocExpr DocExpr;
/* Compile the expression v; aLet, if not NULL, is a document of variables
** ({name: expression}) that v reads as "$$name" (a query's let option).
** The bytes of both must outlive the DocExpr (the matcher's copies).
** zWhere says where the expression stands ("$expr", "$set 'a.b'"); every
** error of its compile and evaluations starts with it, then names the
** operator, path or variable: "docext: $expr: $size takes exactly 1
** argument, not 2". nowMs is $$NOW's value (docextClockNowMs() when the
** filter or pipeline holding the expression began to compile). */
int docextExprNew(const DocValue *v, const u8 *aLet, const char *zWhere, i64 nowMs,
                  DocExpr **ppOut, char **pzErr);
/* The let option of an options document (may be NULL): *paLet = the
** variables, or NULL when there is none; an error when it is not a
** document. */
int docextExprLetOption(const u8 *aOptions, const u8 **paLet, char **pzErr);
/* *pbTrue = the truth of the expression's value for the validated
** document aDoc. Errors (a $size of a string, a $divide by zero, ...)
** are SQLITE_ERROR with a message. */
int docextExprTruth(DocExpr *p, const u8 *aDoc, int *pbTrue, char **pzErr);
/* Evaluate for the validated document aDoc and append the value to pOut
** as element zKey; *pType = its type, or 0 (nothing appended) when the
** value is missing. Errors as docextExprTruth. */
int docextExprAppend(DocExpr *p, const u8 *aDoc, DocBuf *pOut, const char *zKey, int nKey,
                     int *pType, char **pzErr);
/* The value for aDoc as *pV, which points into pTmp (reset first); type 0
** when it is missing. Errors as docextExprTruth. */
int docextExprValue(DocExpr *p, const u8 *aDoc, DocBuf *pTmp, DocValue *pV, char **pzErr);
void docextExprFree(DocExpr *p);
/* Is z[0..n) a name a user variable may have ($let, let options)? As
** MongoDB: a lower-case letter (or a byte >= 0x80) first, then letters,
** digits, '_' or bytes >= 0x80. */
int docextExprVarNameOk(const char *z, int n);
/* 1 if the expression reads no document (no field path, $$ROOT or
** $$CURRENT): its value is the same for every document. */
/* Compare strings under pCollator (borrowed: it must outlive p; NULL is
** simple), as a query's or a pipeline's collation asks. */
void docextExprSetCollator(DocExpr *p, const DocCollator *pCollator);
int docextExprIsConstant(DocExpr *p);

/* $group's accumulators (the expressions $sum, $avg, $min, $max and the
** standard deviations use them over an array): one DocAccum per group and
** accumulator, zeroed by docextAccumInit, fed every document's value
** (type 0: missing) in order, then written as element zKey. */
#define DOCEXT_ACC_SUM        1
#define DOCEXT_ACC_AVG        2
#define DOCEXT_ACC_MIN        3
#define DOCEXT_ACC_MAX        4
#define DOCEXT_ACC_FIRST      5
#define DOCEXT_ACC_LAST       6
#define DOCEXT_ACC_PUSH       7
#define DOCEXT_ACC_ADDTOSET   8
#define DOCEXT_ACC_STDDEVPOP  9
#define DOCEXT_ACC_STDDEVSAMP 10
#define DOCEXT_ACC_FIRSTN     11    /* from here to BOTTOMN: docextAccumArgs */
#define DOCEXT_ACC_LASTN      12
#define DOCEXT_ACC_MINN       13
#define DOCEXT_ACC_MAXN       14
#define DOCEXT_ACC_TOP        15
#define DOCEXT_ACC_BOTTOM     16
#define DOCEXT_ACC_TOPN       17
#define DOCEXT_ACC_BOTTOMN    18
#define DOCEXT_ACC_MERGEOBJECTS 19
typedef struct DocSort DocSort;      /* (docext_project.c) */
typedef struct DocAccum DocAccum;
struct DocAccum {
  int eOp;                  /* DOCEXT_ACC_* */
  DocSum sum;               /* $sum, $avg */
  i64 nNum;                 /* numbers taken ($avg, standard deviations) */
  double mean, m2;          /* standard deviations (Welford) */
  DocBuf val;               /* values kept, each its type byte and bytes:
                            ** the best, first or last; $push's list */
  int nVal;                 /* values in val */
  /* $firstN ... $bottomN: their items, each a sort key and a value */
  i64 nLimit;               /* n (docextAccumStart) */
  DocSort *pSort;           /* $top ...: the items' order (borrowed) */
  int bKeepAll;             /* keep every item, choosing n at the end (a
                            ** window's, as MongoDB's removable ones do) */
  u8 **aItem;               /* in key order, ties in the order they came */
  int nItem, nItemAlloc;
  i64 nItemBytes;
  const DocCollator *pCollator;  /* how $min, $max, $minN, $maxN and $addToSet
                            ** compare strings (borrowed), or NULL */
};
/* The accumulator named z[0..n) ("$sum"): DOCEXT_ACC_*, or 0. */
int docextAccumOp(const char *z, int n);
void docextAccumInit(DocAccum *p, int eOp);
/* Take value v (type 0: missing). SQLITE_TOOBIG when a list would pass
** 16 MiB; SQLITE_ERROR with *pzErr for a value the accumulator refuses. */
void docextAccumAdd(int *pRc, DocAccum *p, const DocValue *v, char **pzErr);
/* $firstN, $lastN, $minN, $maxN ({n, input}), $top, $bottom ({sortBy,
** output}), $topN, $bottomN ({n, sortBy, output}), as eOp is. Checks the
** accumulator's operand v and gives the expression each document feeds it
** (*pInput; for $top ..., MongoDB's {output: <output>, sortFields0:
** "$<sortBy's first path>", ...}, written in pOwn, which must outlive it),
** the expression of n (*pN; the constant 1 for $top and $bottom), and for
** $top ... the order of the items (*ppSort, over sortFields0, ...). */
int docextAccumArgs(int eOp, const DocValue *v, DocBuf *pOwn, DocValue *pInput,
                    DocValue *pN, DocSort **ppSort, char **pzErr);
#define docextAccumHasArgs(eOp) ((eOp)>=DOCEXT_ACC_FIRSTN && (eOp)<=DOCEXT_ACC_BOTTOMN)
/* Initialize accumulator p for eOp; for $firstN ... $bottomN give it its
** n, the value of n's expression pN over the document aDoc, and the order
** docextAccumArgs compiled (pSort, borrowed). SQLITE_ERROR with *pzErr
** unless n is a positive whole number. */
int docextAccumStart(DocAccum *p, int eOp, DocExpr *pN, DocSort *pSort, const u8 *aDoc,
                     char **pzErr);
/* Append the result as element zKey of the document pOut is writing:
** $addToSet's values each once, in BSON order. */
void docextAccumResult(int *pRc, DocAccum *p, DocBuf *pOut, const char *zKey, int nKey);
void docextAccumFree(DocAccum *p);
/* $median and $percentile as accumulators ({$median: {input, method}},
** {$percentile: {input, p, method}}): a $push of input, finished by the
** expression of the same name over the list. For zOp either of them,
** (docextAccumIsQuantile), docextAccumQuantile sets *pInput to the input
** (in v) and compiles the finishing expression into *ppFinish (its BSON in
** pOwn, which must outlive it). */
int docextAccumQuantile(const char *zOp, const DocValue *v, const u8 *aLet, i64 nowMs,
                        DocBuf *pOwn, DocExpr **ppFinish, DocValue *pInput, char **pzErr);
/* Append the finished result of the $push accumulator pAcc as element zKey. */
int docextAccumFinish(DocExpr *pFinish, DocAccum *pAcc, DocBuf *pOut, const char *zKey,
                      int nKey, char **pzErr);
/* Is zOp an accumulator docextAccumQuantile makes? */
#define docextAccumIsQuantile(zOp) (strcmp((zOp), "$median")==0 || strcmp((zOp), "$percentile")==0)

/**************************************************************************
** Interface to docext_window.c — the $setWindowFields stage of
** doc_aggregate. docextWindowNew compiles its operand v (errors say what,
** as "docext: output field 'x': …"); docextWindowRun takes the stage's
** input documents aDoc[0..nDoc) (validated) and hands each output
** document, in the stage's order, to xOut (whose error code it returns).
*/
typedef struct DocWindow DocWindow;
int docextWindowNew(const DocValue *v, const u8 *aLet, i64 nowMs, DocWindow **ppOut,
                    char **pzErr);
/* Compare strings as pCollator says (borrowed: it must outlive p; NULL:
** simple): partitions, sortBy, and the outputs' expressions and
** accumulators. */
void docextWindowSetCollator(DocWindow *p, const DocCollator *pCollator);
int docextWindowRun(DocWindow *p, int nDoc, const u8 *const *aDoc,
                    int (*xOut)(void *pCtx, const u8 *aDoc, i64 nDoc), void *pCtx,
                    char **pzErr);
void docextWindowFree(DocWindow *p);

/**************************************************************************
** Interface to docext_densify.c — the $densify stage of doc_aggregate, as
** docext_window.c's: compile the operand v, then run it over the stage's
** input documents (validated), handing each output document to xOut.
*/
typedef struct DocDensify DocDensify;
int docextDensifyNew(const DocValue *v, const u8 *aLet, i64 nowMs, DocDensify **ppOut,
                     char **pzErr);
/* Tell partitions apart as pCollator says (borrowed; NULL: simple). */
void docextDensifySetCollator(DocDensify *p, const DocCollator *pCollator);
int docextDensifyRun(DocDensify *p, int nDoc, const u8 *const *aDoc,
                     int (*xOut)(void *pCtx, const u8 *aDoc, i64 nDoc), void *pCtx,
                     char **pzErr);
void docextDensifyFree(DocDensify *p);

/**************************************************************************
** Interface to docext_project.c — projections and sort keys.
*/
typedef struct DocProjection DocProjection;
/* Compile a projection (validated BSON; the projection keeps its own copy,
** as do matchers and sorts). Errors: mixing inclusion and exclusion (other
** than _id), bad $slice/$elemMatch operands, "$" used more than once, ... */
int docextProjectionNew(const u8 *aProj, DocProjection **ppOut, char **pzErr);
/* Write the projected document to pOut. iPos is the matched array index
** from docextMatcherMatch (for "field.$": 1), or -1. Errors (e.g. a
** positional projection with no matching element) are SQLITE_ERROR with a
** message. */
int docextProjectionApply(DocProjection *p, const u8 *aDoc, int iPos,
                          DocBuf *pOut, char **pzErr);
/* Has it a {$meta: "textScore"} field? Its scores are those of pText, a
** query's $text (the query keeps it alive); without one they are an error. */
int docextProjectionWantsText(DocProjection *p);
void docextProjectionSetText(DocProjection *p, DocText *pText);
void docextProjectionFree(DocProjection *p);

typedef struct DocSort DocSort;
/* Compile a sort document ({a: 1, "b.c": -1}); errors for bad directions
** and for more than 32 fields. */
int docextSortNew(const u8 *aSort, DocSort **ppOut, char **pzErr);
/* Append to pKey a key whose memcmp() order is the sort order of aDoc:
** MongoDB's sort key, the first of the keys the sort pattern gives as an
** index key pattern (docextIndexFirstKey): per field the value at the path
** (missing: null; an array: its smallest element ascending, its largest
** descending; an empty array sorts below null; fields through one array
** take one element's values), docextKeyAppend-encoded, inverted when
** descending. SQLITE_ERROR with *pzErr for parallel arrays. */
int docextSortKey(DocSort *p, const u8 *aDoc, DocBuf *pKey, char **pzErr);
/* The order of a $near or $nearSphere: by the distance from pNear (which
** the caller keeps alive) to the nearest location at path zPath[0..nPath),
** nearest first. */
int docextSortNewNear(const char *zPath, int nPath, const DocGeo *pNear, DocSort **ppOut);
/* Append the sort key of a $near's distance r (as docextSortKey makes it). */
void docextSortDistanceKey(int *pRc, DocBuf *pKey, double r);
int docextSortFieldCount(DocSort *p);
/* Has it a {$meta: "textScore"} field (the highest score first)? Its scores
** are those of pText, a query's $text; without one they are an error. */
int docextSortWantsText(DocSort *p);
void docextSortSetText(DocSort *p, DocText *pText);
/* Order strings as pCollator does (NULL: simple); the sort takes a
** reference (docextCollatorRef). */
void docextSortSetCollator(DocSort *p, const DocCollator *pCollator);
void docextSortFree(DocSort *p);

/**************************************************************************
** Interface to docext_storage.c — shadow tables and paged blobs.
*/
typedef struct DocStore DocStore;     /* one collection's storage */
typedef struct DocReader DocReader;   /* a row source over its documents */
typedef struct DocScan DocScan;       /* which rows a reader yields */

#define DOCEXT_SCAN_ALL    0   /* every document, in insertion order */
#define DOCEXT_SCAN_DOCID  1   /* the document with id iDoc */
#define DOCEXT_SCAN_KEY    2   /* the document whose _id key is aLo */
#define DOCEXT_SCAN_RANGE  3   /* _id keys between aLo and aHi */
#define DOCEXT_SCAN_INDEX  4   /* entries of index iIx in [aLo, aHi) */
struct DocScan {
  int eScan;                /* DOCEXT_SCAN_* */
  int bDesc;                /* reverse order */
  i64 iDoc;                 /* DOCID */
  i64 iIx;                  /* INDEX: the index's id (not 0, the _id index) */
  const u8 *aLo; int nLo;   /* KEY, RANGE, INDEX lower bound */
  const u8 *aHi; int nHi;   /* RANGE, INDEX upper bound */
  int bLoIncl, bHiIncl;     /* RANGE: bounds inclusive */
};

/* One entry of a paged document's page list. */
typedef struct DocPage DocPage;
struct DocPage {
  i64 pgno;                 /* X_pages row */
  int n;                    /* bytes it holds */
};
/* Decode a page list (X_docs.pages) into a heap array (sqlite3_free it);
** SQLITE_CORRUPT_VTAB if it is malformed. For doc_check. */
int docextPageListDecode(const u8 *a, int n, DocPage **paPage, int *pnPage, i64 *pnTotal);
/* Append v to a page list as a varint (7 bits a byte, low first). */
void docextPageListPutVarint(int *pRc, DocBuf *p, u64 v);

int docextStorageIsShadow(const char *zSuffix);
/* The savepoint a collection command writes in: open it, release it, or
** roll back to it (statements prepared once per collection, all before
** the savepoint opens). A command that writes takes the write lock
** (DOCEXT_SP_LOCK) right after opening it, before it reads: outside a
** transaction that makes it atomic, as one UPDATE statement is, and lets
** the busy handler wait for the lock (nothing when the user's transaction
** is open: SQLite takes the lock at the first write). */
#define DOCEXT_SP_OPEN     0
#define DOCEXT_SP_RELEASE  1
#define DOCEXT_SP_ROLLBACK 2
#define DOCEXT_SP_LOCK     3
int docextStorageSavepoint(DocStore *p, int eOp);
/* Close the savepoint: release it when rc is SQLITE_OK, else (or when the
** release fails) roll back to it and release it; a savepoint that began
** the transaction leaves none open, even when that fails (busy,
** interrupted). Returns rc, or the release's error. */
int docextStorageSavepointEnd(DocStore *p, int rc);
/* One snapshot for several reads (doc_count, doc_explain, the shard-key
** analyzer): outside a transaction each statement would otherwise see the
** database as it is at that moment. Opens the savepoint (*pbOpen: close it
** with docextStorageSavepointEnd), or opens none inside a statement that
** writes, which holds the transaction anyway (SQLITE_BUSY there). */
int docextStorageSnapshot(DocStore *p, int *pbOpen);
/* Step a write statement to completion (a row, if any, is ignored) and
** reset it; the first error code. */
int docextStmtRun(sqlite3_stmt *pStmt);
/* Run SQL made from a format with %w/%Q arguments; on an error, when pzErr
** is not NULL and holds nothing yet, "docext: " and SQLite's message. */
int docextExecf(sqlite3 *db, char **pzErr, const char *zFmt, ...);
/* Prepare SQL made from a format with %w/%Q arguments. */
int docextPreparef(sqlite3 *db, sqlite3_stmt **ppStmt, const char *zFmt, ...);
int docextStorageCreate(sqlite3 *db, const char *zDb, const char *zName, char **pzErr);
int docextStorageOpen(sqlite3 *db, const char *zDb, const char *zName,
                      DocStore **ppStore, char **pzErr);
void docextStorageClose(DocStore *p);
int docextStorageDestroy(DocStore *p);          /* drops the shadow tables */
/* The same for a collection that cannot be opened (a damaged X_config). */
int docextStorageDrop(sqlite3 *db, const char *zDb, const char *zName);
int docextStorageRename(DocStore *p, const char *zNew);
const char *docextStorageName(DocStore *p);
const char *docextStorageSchema(DocStore *p);
sqlite3 *docextStorageDb(DocStore *p);
/* SQLITE_ROW (and *piDoc) if a document has _id key aKey, SQLITE_DONE if
** none, else an error code. */
int docextStorageFindKey(DocStore *p, const u8 *aKey, int nKey, i64 *piDoc);
int docextStorageInsert(DocStore *p, const u8 *aKey, int nKey,
                        const u8 *aDoc, int nDoc, i64 *piDoc);
/* Whether a document of nDoc bytes with an _id key of nKey bytes is stored
** inline: then docextStorageInsert is one INSERT, which fails with
** SQLITE_CONSTRAINT_UNIQUE (and changes nothing) when the key exists. */
int docextStorageIsInline(DocStore *p, int nKey, int nDoc);
/* aOld/nOld: the document's current bytes, or NULL. With them, a paged
** document rewrites only the pages whose bytes changed. */
int docextStorageReplace(DocStore *p, i64 iDoc, const u8 *aKey, int nKey,
                         const u8 *aOld, int nOld, const u8 *aDoc, int nDoc);
int docextStorageDelete(DocStore *p, i64 iDoc);

/* In-place edits of a paged document (docext_storage.c): reads through
** the page list, insertions and overwrites in memory, then a commit that
** writes only the pages that changed and the list. Open gives *ppDoc NULL
** for an inline document (edit those whole). Offsets out of range are
** SQLITE_CORRUPT_VTAB; a result over 16 MiB is SQLITE_TOOBIG. The aux
** bytes travel with the page list (docext_coll.c keeps $push hints there)
** and vanish when the document is written whole. */
typedef struct DocPaged DocPaged;
int docextPagedOpen(DocStore *pStore, i64 iDoc, DocPaged **ppDoc);
void docextPagedClose(DocPaged *p);
i64 docextPagedSize(DocPaged *p);
int docextPagedRead(DocPaged *p, i64 iOff, int n, u8 *aOut);
int docextPagedOverwrite(DocPaged *p, i64 iOff, const u8 *a, int n);
int docextPagedInsert(DocPaged *p, i64 iOff, const u8 *a, int n);
const u8 *docextPagedAux(DocPaged *p, int *pn);
int docextPagedSetAux(DocPaged *p, const u8 *a, int n);
int docextPagedCommit(DocPaged *p);

int docextReaderNew(DocStore *pStore, DocReader **ppReader);
void docextReaderFree(DocReader *p);
int docextReaderStart(DocReader *p, const DocScan *pScan);
int docextReaderStep(DocReader *p);              /* SQLITE_ROW / SQLITE_DONE */
int docextReaderSeek(DocReader *p, i64 iDoc);    /* start on document iDoc, step */
void docextReaderReset(DocReader *p);            /* release the current row */
i64 docextReaderDocid(DocReader *p);
int docextReaderDoc(DocReader *p, const u8 **paDoc, char **pzErr);
/* The current document as Extended JSON (eMode), appended to pOut; checked
** as docextReaderDoc() checks it, while it is written if not yet read. */
int docextReaderDocJson(DocReader *p, DocBuf *pOut, int eMode, char **pzErr);

/* Index entries (index iIx: X_idx rows with ix = iIx, or for iIx 0 the _id
** index, X_docs.idkey), over a half-open range of key bytes [aLo, aHi). */
/* How many entries lie in the range, counting at most nMax. */
int docextStorageCountRange(DocStore *p, i64 iIx, const u8 *aLo, int nLo,
                            const u8 *aHi, int nHi, i64 nMax, i64 *pnCount);
/* A cursor yielding the document ids of a range's entries in key order
** (then document id), or in reverse order when bDesc. Start copies the
** bounds; Step returns SQLITE_ROW, SQLITE_DONE or an error. */
typedef struct DocIdxCursor DocIdxCursor;
int docextIdxCursorNew(DocStore *pStore, DocIdxCursor **ppCur);
void docextIdxCursorFree(DocIdxCursor *p);
int docextIdxCursorStart(DocIdxCursor *p, i64 iIx, const u8 *aLo, int nLo,
                         const u8 *aHi, int nHi, int bDesc);
int docextIdxCursorStep(DocIdxCursor *p);
/* Stop reading: the statement goes back to the store, reset, so no read
** outlives the user's statement. Start may follow. */
void docextIdxCursorStop(DocIdxCursor *p);
i64 docextIdxCursorDocid(DocIdxCursor *p);
/* The current entry's vals (docext_index.c: the document projected onto
** the index's fields), or NULL when the entry has none; valid until the
** cursor moves. Untrusted bytes: check them before use. */
const u8 *docextIdxCursorVals(DocIdxCursor *p, int *pn);
/* 0 if X_idx has no vals column (an old collection that could not be
** upgraded): entries are then written without vals. */
int docextStorageHasVals(DocStore *p);

/**************************************************************************
** Interface to docext_coll.c — the collection engine (MongoDB's write rules).
*/
typedef struct DocColl DocColl;
int docextCollCreate(sqlite3 *db, const char *zDb, const char *zName, char **pzErr);
int docextCollOpen(sqlite3 *db, const char *zDb, const char *zName,
                   DocColl **ppColl, char **pzErr);
/* Close, or when the collection is held, mark it to be closed on its last
** release. */
void docextCollClose(DocColl *p);
/* Hold a collection a function is using: SQLite may disconnect its table
** (a ROLLBACK TO over a schema change of the transaction resets every
** schema), and a held collection outlives that until released. */
void docextCollHold(DocColl *p);
void docextCollRelease(DocColl *p);
int docextCollDestroy(DocColl *p);
/* Drop the shadow tables of a collection that could not be opened. */
int docextCollDrop(sqlite3 *db, const char *zDb, const char *zName);
int docextCollRename(DocColl *p, const char *zNew);
DocStore *docextCollStore(DocColl *p);
const char *docextCollName(DocColl *p);   /* "books" or "aux.books" */
/* Check a document against the stored-document limits and put _id first
** (new ObjectId if missing); *paOut is aDoc or a copy built in pOut.
** bNamesChecked: the parser found no field name to check
** (docextJsonParseStored), so the walk over every name is skipped. */
int docextCollPrepare(const u8 *aDoc, int bNamesChecked, DocBuf *pOut, const u8 **paOut,
                      char **pzErr);
/* eConflict: SQLITE_ABORT (E11000 error), SQLITE_IGNORE or SQLITE_REPLACE.
** iDocLimit: if not 0, the document's id must be below it (a partition's
** ids must fit the router's rowid); else an error, and nothing written. */
int docextCollInsert(DocColl *p, const u8 *aDoc, int bNamesChecked, int eConflict,
                     i64 iDocLimit, i64 *piDoc, char **pzErr);
int docextCollReplace(DocColl *p, i64 iDoc, const u8 *aNew, int bNamesChecked,
                      char **pzErr);
/* The same replacement in two steps, for a caller that needs the old
** document first (the router, for its shard key). docextCollLoadOld sweeps
** expired documents and reads document iDoc (*paOld 0: it expired and the
** sweep just removed it, so there is nothing to replace). Its bytes stay
** valid until docextCollReplaceLoaded, which ends the load, or
** docextCollLoadEnd. */
int docextCollLoadOld(DocColl *p, i64 iDoc, const u8 **paOld, char **pzErr);
int docextCollReplaceLoaded(DocColl *p, i64 iDoc, const u8 *aOld, const u8 *aNew,
                            int bNamesChecked, char **pzErr);
void docextCollLoadEnd(DocColl *p);
int docextCollDelete(DocColl *p, i64 iDoc, char **pzErr);

/**************************************************************************
** Interface to docext_index.c — secondary indexes: definitions, keys,
** maintenance, and the index commands (doc_create_index, doc_drop_index,
** doc_indexes, doc_check, doc_stats, doc_ttl_sweep).
**
** Entries live in X_idx(ix, key, docid, vals): ix is X_idxdef.id, key is the
** concatenation of docextKeyAppend() of each indexed field's value (with
** bDesc for -1 fields; a hashed field's value is replaced by its 64-bit
** hash as an int64 before encoding); vals is the document projected onto
** the index's fields, or NULL (docext_index.c: covered queries). The _id
** index is X_docs.idkey and is described by a DocIndex too (iId 0, name
** "_id_"), so the planner treats all indexes alike.
*/
#define DOCEXT_DIR_2DSPHERE 2
#define DOCEXT_DIR_2D       3
#define DOCEXT_DIR_TEXT     4     /* _fts: the terms of a text index */
#define docextDirIsGeo(d) ((d)==DOCEXT_DIR_2DSPHERE || (d)==DOCEXT_DIR_2D)
#define DOCEXT_DIR_NONE     (-2)
/* The aDir value of an index type named z[0..n) ("hashed", "2dsphere",
** "2d"), or DOCEXT_DIR_NONE. */
int docextIndexTypeDir(const char *z, int n);
typedef struct DocIndex DocIndex;
struct DocIndex {
  i64 iId;                  /* X_idxdef.id; 0 for _id_; -1 for a sort
                            ** pattern (docext_project.c) */
  char *zName;              /* "slug_1" */
  u8 *aKeys;                /* key pattern as BSON ({slug: 1}) */
  int nField;               /* fields in the pattern */
  char **azPath;            /* their dotted paths */
  int *aDir;                /* per field: 1, -1, 0 for hashed, or
                            ** DOCEXT_DIR_2DSPHERE or DOCEXT_DIR_2D */
  int bUnique;
  int bSparse;
  int bHashed;              /* some field is hashed */
  int eGeo;                 /* 0, or the kind of its one geospatial field
                            ** (DOCEXT_DIR_2DSPHERE, DOCEXT_DIR_2D): its
                            ** keys are the cells of the geometry there;
                            ** documents without one have no entries */
  double r2dMin, r2dMax;    /* 2d: the bounds of both coordinates */
  DocTextSpec *pText;       /* a text index: its fields and languages. Its
                            ** pattern is MongoDB's {_fts: "text", _ftsx: 1}
                            ** with the other fields around: field _fts
                            ** (DOCEXT_DIR_TEXT) holds a term, _ftsx its
                            ** score; documents without a term have no
                            ** entries */
  int n2dBits;              /* 2d: the bits of precision of each */
  int bMultikey;            /* some document has an array on an indexed path */
  u64 *aMultikeyPaths;      /* per field, where: bit c set when some document
                            ** has an array at component c of the field's
                            ** path (bit 63: at component 63 or later);
                            ** read it with docextIndexMultikeyPath */
  int bMultikeyVals;        /* the entries' vals are kept up to date while the
                            ** index is multikey (so a covered query may use
                            ** it); 0 only for a multikey index written
                            ** before docext kept them */
  i64 nExpireAfter;         /* TTL seconds, or -1 */
  u8 *aPartial;             /* partialFilterExpression (BSON) or NULL */
  DocMatcher *pPartial;     /* compiled, or NULL */
  int bHashMix;             /* its hashes are mixed further
                            ** (docextIndexHashValue): every hashed index
                            ** created now, and a shard key; not an index
                            ** an older docext stored */
  DocCollator *pCollator;   /* its collation (owned), or NULL for simple: its
                            ** keys hold strings' sort keys under it */
};

/* The indexes of a collection, current as of this call: index 0 is _id_.
** Reloaded when the database changed underneath (another connection, a
** rollback). The array stays valid until the next docextCollIndexes call
** or any index change. */
int docextCollIndexes(DocColl *pColl, DocIndex **paIdx, int *pnIdx, char **pzErr);
/* The pattern a collection is sharded by (docext_router.c), kept in its
** X_config with its chunk size and cached with its index definitions;
** *paKey NULL when it is not sharded. Valid until the next call. */
int docextCollShardKey(DocColl *pColl, const u8 **paKey, i64 *pnChunkSize, i64 *piTag,
                       char **pzErr);
/* The tag (X_config 'idxtag', random) changes with every change to the
** definitions, and, through this, to a sharded collection's chunks: a
** router cached at one tag is current while the tag is the same. */
int docextCollTagBump(DocColl *pColl, char **pzErr);
int docextCollSetShardKey(DocColl *pColl, const u8 *aKey, i64 nChunkSize, char **pzErr);
/* A collection's validation settings (docext_validate.c), kept in its
** X_config and cached with its index definitions: a BSON document checked
** as BSON only, or NULL when it has none; *piTag the cache's tag (the
** settings are the same while it is). Valid until the next call. */
int docextCollValidation(DocColl *pColl, const u8 **paSpec, i64 *piTag, char **pzErr);
/* Store them (NULL: remove them); nothing is written when they are the
** ones stored already. */
int docextCollSetValidation(DocColl *pColl, const u8 *aSpec, char **pzErr);
/* Store the collection's default collation (a full spec; at its creation
** only, as MongoDB's createCollection). */
int docextCollSetCollation(DocColl *pColl, const u8 *aSpec, char **pzErr);
/* The collection's default collation (borrowed, valid until the next call
** that reloads its definitions), or NULL: the collation of its _id index,
** of queries that name none and of indexes made without one. */
int docextCollCollation(DocColl *pColl, DocCollator **ppOut, char **pzErr);

/**************************************************************************
** Interface to docext_validate.c — collection validators (doc_coll_mod).
*/
typedef struct DocValidator DocValidator;
/* Check a write of aNew (a prepared document, _id first) against the
** collection's validator: aOld is the document it replaces, NULL for an
** insert. SQLITE_CONSTRAINT and "docext: Document failed validation: …"
** when the validator refuses it (validationAction "error"). */
int docextValidateWrite(DocColl *pColl, const u8 *aOld, const u8 *aNew, char **pzErr);
/* *pbActive: would writes to the collection be checked? */
int docextValidateActive(DocColl *pColl, int *pbActive, char **pzErr);
void docextValidatorFree(DocValidator *p);
/* CREATE VIRTUAL TABLE x USING docext('{validator: …, collation: …}'):
** zArg, the module argument as SQL wrote it, read and checked (before
** anything is created) into the settings to store (docextCollSetValidation)
** in pSpec, left empty when they are the defaults, and the collection's
** default collation (its full spec, docextCollSetCollation) in pCollation,
** left empty for none. */
int docextValidateCreateSettings(const char *zArg, DocBuf *pSpec, DocBuf *pCollation,
                                 char **pzErr);
int docextRegisterValidateFunctions(sqlite3 *db, DocConn *pConn);
/* The compiled validator a DocColl keeps (docext_coll.c frees it). */
DocValidator **docextCollValidatorSlot(DocColl *pColl);
/* Writes to the collection skip validation while bypassed (a chunk's
** migration): docextCollBypassValidation(p, 1) … (p, 0), nesting. */
void docextCollBypassValidation(DocColl *pColl, int bOn);
/* Called by docext_coll.c for every write, after the _id rules. aOld is NULL
** for an insert, aNew NULL for a delete. Writes only the entries whose keys
** changed; checks unique indexes (E11000 in MongoDB's words) and parallel
** arrays before writing anything. */
int docextIndexUpdate(DocColl *pColl, i64 iDoc, const u8 *aOld, const u8 *aNew, char **pzErr);
/* Remove every entry of document iDoc, whatever its keys (a scan: for a
** document too damaged to read). */
int docextIndexRemoveDoc(DocColl *pColl, i64 iDoc, char **pzErr);
/* The keys one document produces for one index (one per distinct array
** element for a multikey path; none when sparse or partial exclude it).
** Appends them to pKeys back to back; offsets in *paOff (sqlite3_free),
** count in *pnKey. */
int docextIndexKeys(const DocIndex *pIdx, const u8 *aDoc, DocBuf *pKeys,
                    int **paOff, int *pnKey, char **pzErr);
/* Append only the smallest of those keys (memcmp order): the key a sort by
** pIdx's pattern sees (docext_project.c). *ppScratch (NULL at first) keeps
** the generator's memory from call to call; free it with
** docextIndexScratchFree. A document with no key appends nothing. */
typedef struct DocIndexScratch DocIndexScratch;
int docextIndexFirstKey(const DocIndex *pIdx, const u8 *aDoc, DocBuf *pKey,
                        DocIndexScratch **ppScratch, char **pzErr);
void docextIndexScratchFree(DocIndexScratch *p);
/* A key pattern ({a: 1, b: "hashed"}) checked as an index's is, into a
** DocIndex of no collection (iId -1, no name, no options): for a shard
** key. zName is the default index name (owner_1_sequence_1). Free it
** with docextIndexClear. */
/* doc_create_index(coll, keys, options) on a collection: the new index's
** name, or an existing one's with the same pattern and options, in *pzName
** (sqlite3_malloc'd). Atomic: on error nothing changed. */
int docextIndexCreate(DocColl *p, const u8 *aKeys, const u8 *aOpt, char **pzName,
                      char **pzErr);
/* The options doc_create_index would take to make pIdx again: {name,
** unique, sparse, expireAfterSeconds, partialFilterExpression}. */
void docextIndexOptions(const DocIndex *pIdx, int *pRc, DocBuf *pOut);
int docextIndexPattern(const u8 *aKeys, DocIndex *pIdx, char **pzErr);
void docextIndexClear(DocIndex *p);
int docextRegisterIndexFunctions(sqlite3 *db, DocConn *pConn);
/* The int64 a hashed index stores for v: FNV-1a-64 over docextKeyAppend of
** v, numbers first made an int64 (truncated toward zero, NaN 0, saturated),
** so numerically equal values hash equal; for a shard key (bHashMix) then
** mixed by MurmurHash3's finalizer. The planner hashes equality operands
** with it. */
i64 docextIndexHashValue(const DocIndex *pIdx, int *pRc, const DocValue *v);
/* Where field j of pIdx has met arrays: bit c set when some document had
** an array at component c of its path (bit 63: at 63 or later); 0 for an
** index that is not multikey. MongoDB's multiKeyPaths: the planner may
** intersect and compound bounds where no array was ever met. */
u64 docextIndexMultikeyPath(const DocIndex *pIdx, int j);
/* Do the entries of pIdx keep vals (the document projected onto the index
** fields where it has no array) that a covered query may read? Not for
** _id_, hashed indexes, or multikey ones an older docext wrote. */
int docextIndexKeepsVals(const DocIndex *pIdx);
/* TTL: is this stored document expired (a TTL index's field holds a date,
** or an array of dates whose earliest, plus expireAfterSeconds, is before
** docextClockNowMs())? Expired documents are never returned by reads. */
int docextCollExpired(DocColl *pColl, const u8 *aDoc, int *pbExpired);
/* Remove the expired documents of a collection that has a TTL index (one
** range scan per TTL index; next to nothing when there is none). *pnRemoved
** (may be NULL) receives the count. docext_coll.c calls it before every
** write, so that an expired document never blocks one. */
int docextCollTtlSweep(DocColl *pColl, i64 *pnRemoved, char **pzErr);
/* doc_check's work: *pzReport (sqlite3_free it) is 0 when the collection
** is sound, else one line per problem; an error only when the check could
** not run (docext_index.c; also PRAGMA integrity_check's xIntegrity). */
int docextCollCheck(DocColl *pColl, char **pzReport, char **pzErr);
/* A collection's index state (docext_index.c), kept in its DocColl by
** docext_coll.c, which frees it on close, rename and drop. */
typedef struct DocIndexCache DocIndexCache;
DocIndexCache **docextCollIndexCache(DocColl *pColl);      /* docext_coll.c */
void docextIndexCacheFree(DocIndexCache *p);
/* A value as MongoDB's BSONElement::toString() writes it in messages
** (docext_coll.c): numbers plain (a double by "%.16g", with ".0" unless
** that shows '.', 'E' or 'N'), strings quoted as they are (past 160 bytes
** cut to 150 and "..."), ObjectId('…'), new Date(ms), Timestamp(t, i),
** /re/flags, BinData(sub, HEX) or UUID("…"), { a: 1 }, [ 1, 2 ], {}, []. */
void docextValueToString(int *pRc, DocBuf *p, const DocValue *v);
/* MongoDB's duplicate-key message for index zIndex (docext_coll.c):
** "E11000 duplicate key error collection: books index: book_1_user_1 dup
** key: { book: 1, user: 2 }"; sqlite3_malloc'd, NULL on OOM. */
char *docextDupKeyMessage(DocColl *pColl, const char *zIndex, int nField,
                          char *const *azField, const DocValue *aVal);

/**************************************************************************
** Interface to docext_pipeline.c — the stages of pipeline updates.
*/
typedef struct DocPipeline DocPipeline;
/* Compile aStages, a BSON array of stages; aLet (may be NULL) is the let
** variables their expressions read; nowMs is $$NOW, the same for every
** stage (0: docextClockNowMs() now); pCollator (borrowed: it must outlive
** the pipeline; NULL: simple) how they compare strings. Errors name the
** stage. */
int docextPipelineNew(const u8 *aStages, const u8 *aLet, i64 nowMs,
                      const DocCollator *pCollator, DocPipeline **ppOut,
                      char **pzErr);
/* Run the stages on the validated document aDoc (not in pOut); the result
** document goes to pOut (reset first). */
int docextPipelineApply(DocPipeline *p, const u8 *aDoc, DocBuf *pOut, char **pzErr);
void docextPipelineFree(DocPipeline *p);

/**************************************************************************
** Interface to docext_update.c — update operators and replacements.
*/
typedef struct DocUpdate DocUpdate;
/* Compile an update: an operator document ({$set: …, $inc: …}) or a
** replacement document. aOptions (may be NULL) is {arrayFilters: […]}.
** Errors in MongoDB's terms: unknown or empty operators, conflicting paths,
** bad operands, "$" misuse. The update keeps its own copies. */
int docextUpdateNew(const u8 *aUpdate, const u8 *aOptions, DocUpdate **ppOut, char **pzErr);
/* Compile a pipeline update: aStages is a BSON array of stages ($set,
** $addFields, $project, $unset, $replaceRoot, $replaceWith); aOptions may
** hold let (arrayFilters are an error); nowMs is $$NOW (0: the clock now,
** as docextPipelineNew). Applied like any update; the result keeps the
** document's _id, which may not change. */
int docextUpdateNewPipeline(const u8 *aStages, const u8 *aOptions, i64 nowMs,
                            DocUpdate **ppOut, char **pzErr);
/* The update's collation (its options' "collation"; NULL: simple), which
** the caller's query of the same command should use too. */
DocCollator *docextUpdateCollator(DocUpdate *p);
int docextUpdateIsReplacement(DocUpdate *p);
/* Does the update use the positional "$" (so it needs the matched array
** position of each document)? */
int docextUpdateIsPositional(DocUpdate *p);
/* An update made only of plain appends ($push or $pushAll with no
** $position, $sort or $slice, on paths of field names) can be applied to a
** large document in place (docext_coll.c). If p is one, fill aOut[0..n)
** (pointing into p) and return n; else 0. */
typedef struct DocAppend DocAppend;
struct DocAppend {
  const char *zPath;        /* dotted path of the array */
  int nPath;
  const DocValue *aVal;     /* the values to append, in order */
  int nVal;
};
int docextUpdateAppends(DocUpdate *p, DocAppend *aOut, int nMax);
/* Apply an update made of plain appends to a large document in place
** (docext_coll.c), writing only the pages it changes. *pbDone = 0 when it
** cannot (the caller then updates the usual way; nothing was written).
** *pnSize (when not NULL): the document's size after it. */
int docextCollAppendInPlace(DocColl *p, i64 iDoc, DocUpdate *pUpdate, int *pbDone,
                            i64 *pnSize, char **pzErr);
/* Apply to a validated document. iPos resolves the positional "$" (from
** docextMatcherMatch; -1 if none: using "$" is then an error). bInsert: the
** document is being upserted, so $setOnInsert applies. Writes the new
** document to pOut (reset first) and *pbChanged. Errors ($inc on a
** non-number, changing _id, a result over 16 MiB, ...) leave pOut unusable
** and the caller changes nothing. */
int docextUpdateApply(DocUpdate *p, const u8 *aDoc, int iPos, int bInsert,
                      DocBuf *pOut, int *pbChanged, char **pzErr);
void docextUpdateFree(DocUpdate *p);
/* Registers doc_update(d, update [, options]). */
int docextRegisterUpdateFunctions(sqlite3 *db);

/**************************************************************************
** Interface to docext_query.c — running a find(): candidate rows from an
** access path, filters, sort, skip and limit, projection.
*/
typedef struct DocQuery DocQuery;
typedef struct DocAccess DocAccess;

#define DOCEXT_ACCESS_ALL    0   /* every document, insertion order */
#define DOCEXT_ACCESS_NONE   1   /* nothing can match */
#define DOCEXT_ACCESS_DOCID  2   /* one document id */
#define DOCEXT_ACCESS_KEYS   3   /* a set of _id keys */
#define DOCEXT_ACCESS_RANGE  4   /* a range of _id keys within one type */
#define DOCEXT_ACCESS_PLAN   5   /* the query's own plan (docext_plan.c):
                                 ** set by docextQueryStart, not by callers */
/* How candidate documents are found. Build with docextAccessInit, add keys
** with docextAccessAddKey, bounds with docextAccessSetBound. */
struct DocAccess {
  int eAccess;              /* DOCEXT_ACCESS_* */
  i64 iDoc;                 /* DOCID */
  DocBuf keys;              /* KEYS: the keys back to back */
  int *aKeyOff;             /* KEYS: key i is keys.a[aKeyOff[i]..aKeyOff[i+1]) */
  int nKey;
  DocBuf lo, hi;            /* range bounds (also restrict KEYS) */
  int bLo, bHi, bLoIncl, bHiIncl;
};
void docextAccessInit(DocAccess *p);
void docextAccessClear(DocAccess *p);
/* A copy of pFrom in pTo (empty before; clear it after), for a router that
** gives each shard's query the same candidates. */
int docextAccessCopy(DocAccess *pTo, const DocAccess *pFrom);
/* Append a candidate key: p->keys grows by the bytes the caller appended
** since iStart (the caller writes the key into p->keys first). */
int docextAccessAddKey(DocAccess *p, i64 iStart);

/* What a find() asks for; every pointer may be NULL. Documents are
** validated BSON; the query keeps its own copies. */
#define DOCEXT_MAX_FILTERS 8
typedef struct DocQuerySpec DocQuerySpec;
struct DocQuerySpec {
  const u8 *aaFilter[DOCEXT_MAX_FILTERS];  /* filters, ANDed: the filter
                            ** column and pushed-down doc_match() terms */
  int nFilter;
  const u8 *aProjection;
  const u8 *aSort;
  const u8 *aOptions;       /* {hint, skip, limit} */
  i64 nLimit;               /* SQL LIMIT, or -1 */
  i64 nOffset;              /* SQL OFFSET, or 0 */
  const char *zPlanIndex;   /* index EXPLAIN QUERY PLAN named (xBestIndex):
                            ** used when it still fits the filter, or NULL */
  int bCountOnly;           /* no document is read, only ids and counts: an
                            ** exact index plan need not fetch documents */
  int bExplain;             /* planned for doc_explain: describe the bounds */
  int bRouted;              /* one shard's part of a routed find: the
                            ** router applies skip and limit over the
                            ** merged parts (docextQueryLimits); the part
                            ** returns every result */
  int bProjectIfCovered;    /* aProjection only if an index covers it, else
                            ** the documents whole: for a caller to whom
                            ** both give the same answer (doc_distinct) */
  i64 nowMs;                /* $$NOW of the filters, or 0: the clock when the
                            ** first $expr compiles (a router sets it, so
                            ** that every shard's part reads one time) */
};
void docextQuerySpecInit(DocQuerySpec *p);
/* Bind a $text to the collection's text index, which it needs ("text index
** required for $text query" when there is none). */
int docextCollBindText(DocColl *pColl, DocText *pText, char **pzErr);
/* The filter aFilter compiled (*ppOut, for the caller to free), with its
** $text, if it has one, bound to the collection's text index: what scores
** a {$meta: "textScore"} outside the query that found the documents. */
int docextCollTextScorer(DocColl *pColl, const u8 *aFilter, const u8 *aLet, i64 *pNowMs,
                         DocMatcher **ppOut, char **pzErr);
/* Check that a hint names an index of the collection (name or keys). */
int docextQueryCheckHint(DocColl *pColl, const DocValue *v, char **pzErr);
int docextQueryNew(DocColl *pColl, const DocQuerySpec *pSpec, DocQuery **ppQuery, char **pzErr);
void docextQueryFree(DocQuery *p);
/* Recompile a query for another spec, keeping what it allocated (its
** reader, index cursor and buffers): a cursor's xFilter runs once per
** execution of a prepared statement. On error the query is at its end. */
int docextQueryReuse(DocQuery *p, const DocQuerySpec *pSpec, char **pzErr);
/* Let go of what a finished query holds (plan, compiled filters, the row
** it was on) but keep its allocations for docextQueryReuse. */
void docextQueryIdle(DocQuery *p);
/* Run the query over the candidates of pAccess (taken over by the query:
** pAccess is left empty). Positions on the first result. */
int docextQueryStart(DocQuery *p, DocAccess *pAccess, char **pzErr);
int docextQueryNext(DocQuery *p, char **pzErr);
int docextQueryEof(DocQuery *p);
/* The skip and the limit (-1: none) a routed part's spec asked for, which
** the router applies (options' skip/limit, then SQL OFFSET/LIMIT). */
void docextQueryLimits(DocQuery *p, i64 *pnSkip, i64 *pnMax);
/* The current result's document id (SQLITE_OK, or an error reading the
** entries that say which it is). */
int docextQueryDocid(DocQuery *p, i64 *piDoc);
/* The matched array position of the current result (for "$"), or -1. */
int docextQueryPosition(DocQuery *p);
/* The current result after projection (validated BSON), valid until the
** query moves. */
int docextQueryResult(DocQuery *p, const u8 **paDoc, char **pzErr);
/* The same as Extended JSON (eMode), appended to pOut. */
int docextQueryResultJson(DocQuery *p, DocBuf *pOut, int eMode, char **pzErr);
/* The stored document itself, before projection. */
int docextQueryStored(DocQuery *p, const u8 **paDoc, char **pzErr);
/* What the query did, for doc_explain: index keys (or, for a collection
** scan, documents) examined, documents read, results returned; the plan it
** ran (NULL when an _id constraint of the vtab or the caller chose the
** access path); whether it sorted in memory. */
typedef struct DocQueryStats DocQueryStats;
struct DocQueryStats {
  i64 nKeys;
  i64 nDocs;
  i64 nReturned;
  int bSortInMemory;
  int bIndexOnly;           /* answered from index entries (a count, or a
                            ** covered find), no document read */
};
void docextQueryStats(DocQuery *p, DocQueryStats *pStats);
const struct DocPlan *docextQueryPlan(DocQuery *p);
/* The query's $text, or NULL. */
DocText *docextQueryText(DocQuery *p);

/**************************************************************************
** Interface to docext_plan.c — the query planner, doc_explain, doc_count.
**
** A plan is a collection scan or index scans over ranges of key bytes.
** Ranges are half-open [lo, hi) over the concatenated keys of X_idx (or
** X_docs.idkey for _id_); they are built with the prefix trick, which the
** prefix-free key format of docext_cmp.c makes exact: every key that
** starts with bytes B lies in [B, succ(B)), succ(B) being B with trailing
** 0xFF bytes dropped and its last byte incremented.
*/
typedef struct DocPlan DocPlan;
typedef struct DocPlanScan DocPlanScan;

/* One index scan: sorted, disjoint ranges, read in order (all of them in
** reverse order, each backward, when bDesc). */
struct DocPlanScan {
  i64 iIx;                  /* X_idx ix, or 0 for _id_ (X_docs.idkey) */
  char *zIndex;             /* index name (in aRange's allocation) */
  int bMultikey;            /* the index is multikey */
  int bDesc;                /* read backward */
  int nRange;
  int *aRange;              /* per range 4 ints: lo offset, lo size, hi offset,
                            ** hi size, in DocPlan.keys */
  char *zBounds;            /* legacy explain indexBounds, relaxed JSON
                            ** (only when planned for explain) */
  char *zMultikeyPaths;     /* explain's multiKeyPaths, relaxed JSON (only
                            ** for a multikey index planned for explain) */
  double nEst;              /* estimated entries in the ranges, or -1 */
};

#define DOCEXT_PLAN_COLLSCAN 0   /* every document */
#define DOCEXT_PLAN_INDEX    1   /* one index scan, aScan[0] */
#define DOCEXT_PLAN_UNION    2   /* a top-level $or: each branch's scan in
                                 ** turn, document ids de-duplicated */
struct DocPlan {
  int ePlan;                /* DOCEXT_PLAN_* */
  int bNaturalDesc;         /* COLLSCAN newest first ({$natural: -1}) */
  int nScan;
  DocPlanScan *aScan;       /* nScan scans: &one when there is one */
  DocPlanScan one;
  int bDedup;               /* a document may be reached more than once */
  int bSorted;              /* documents come in the order of the sort */
  int bExact;               /* the entries alone answer the filters: every
                            ** condition became bounds, index not hashed
                            ** (for counts, and for finds whose projection
                            ** the index covers: docext_query.c; other finds
                            ** still check); with bDedup, once the repeats
                            ** are dropped */
  double nEst;              /* estimated entries examined, or -1 while
                            ** unknown (docextPlanEstimate) */
  DocBuf keys;              /* the bytes of every range bound */
};

/* Choose a plan for filters aaFilter[0..nFilter) (validated BSON, ANDed),
** a sort (or NULL), a hint (the options' hint value, or NULL) and the
** query's collation (NULL: simple; an index of another one gets no bounds
** from conditions on strings, and yields no order). zPrefer
** names an index to use if it fits (what EXPLAIN QUERY PLAN showed), and
** nWant is skip+limit (-1: all) for costing a plan that yields the sort's
** order. bBounds: also describe the bounds for explain (zBounds; else
** NULL). Errors: an unknown hint ("docext: hint: no index named 'x' on
** books"), storage errors. */
int docextPlanNew(DocColl *pColl, const u8 *const *aaFilter, int nFilter,
                  const u8 *aSort, const DocValue *pHint, const DocCollator *pCollator,
                  const char *zPrefer, i64 nWant, int bBounds, DocPlan **ppPlan,
                  char **pzErr);
void docextPlanFree(DocPlan *p);
/* The key ranges a filter allows under a key pattern no document holds an
** array for (a shard key: pKey from docextIndexPattern), for routing: a
** DOCEXT_PLAN_COLLSCAN plan when the filter does not bound the pattern's
** leading field, so any key may match; else an INDEX plan (bounds from the
** filter's conjunction) or a UNION (from a top-level $or whose branches
** all bound it) whose scans' ranges hold every key a matching document can
** have. */
int docextPlanKeyRanges(const DocIndex *pKey, const u8 *aFilter,
                        const DocCollator *pCollator, DocPlan **ppPlan, char **pzErr);
/* Run a find to its end (bRead: fetching each result as a reader would,
** and giving it to xDoc when that is not NULL); *pnCount gets the results
** returned. When pJson is not NULL, describe the run there as doc_explain
** does. One savepoint holds the run's snapshot. */
typedef int (*DocPlanVisitor)(void *pCtx, const u8 *aDoc, char **pzErr);
int docextPlanRunQuery(DocColl *pColl, const DocQuerySpec *pSpec, int bRead,
                       DocPlanVisitor xDoc, void *pDocCtx,
                       i64 *pnCount, DocBuf *pJson, char **pzErr);
/* The same on a collection that may be sharded: on its shards, through its
** router, when it is (pJson then holds the router's explain, with each
** shard's). */
int docextPlanRun(DocConn *pConn, DocColl *pColl, const DocQuerySpec *pSpec, int bRead,
                  DocPlanVisitor xDoc, void *pDocCtx, i64 *pnCount, DocBuf *pJson,
                  char **pzErr);
/* Append doc_explain's object for a run of plan pPlan (NULL: none was
** made, a scan) with counts pSt, which took nMillis; zHead and zTail (JSON
** members with their commas, or NULL) go first and last inside it. */
void docextPlanExplainWrite(int *pRc, DocBuf *pJson, const DocPlan *pPlan,
                            const DocQueryStats *pSt, i64 nMillis, const char *zHead,
                            const char *zTail);
/* A monotonic clock in milliseconds, for explain's millis. */
double docextPlanNowMs(void);
/* Fill in nEst (-1 while unknown: a plan with a single candidate index is
** chosen without probing it) by counting entries in the plan's ranges. */
int docextPlanEstimate(DocColl *pColl, DocPlan *p);
/* "COLLSCAN", "IXSCAN slug_1" or "OR(IXSCAN a_1, IXSCAN b_1)", for idxStr
** (sqlite3_malloc'd; NULL on OOM). */
char *docextPlanLabel(const DocPlan *p);
/* Check a hint: an index name, a key pattern, or {$natural: 1 | -1}. On
** success *piIdx is its position in docextCollIndexes' array, or -1 for
** $natural with *pbDesc set for -1. */
int docextPlanResolveHint(DocColl *pColl, const DocValue *pHint, int *piIdx,
                          int *pbDesc, char **pzErr);
/* Registers doc_explain and doc_count. */
int docextRegisterPlanFunctions(sqlite3 *db, DocConn *pConn);

/**************************************************************************
** Interface to docext_cmd.c — doc_update_one/many, doc_delete_one/many,
** doc_find_and_modify.
*/
int docextRegisterCommandFunctions(sqlite3 *db, DocConn *pConn);

/**************************************************************************
** Interface to docext_aggregate.c — doc_aggregate(coll, pipeline), the
** aggregation pipeline as a table-valued function.
*/
int docextRegisterAggregate(sqlite3 *db, DocConn *pConn);

/**************************************************************************
** Interface to docext_func.c — the scalar functions and doc_each.
*/
/* Turn an SQL argument (BLOB of BSON or TEXT in any accepted syntax) into a
** validated BSON document. On success *paDoc points either into the
** argument (BLOB) or into pBuf (TEXT). zWhat names the argument in errors
** ("document", "filter", ...). On error returns non-zero and sets *pzErr. */
int docextArgToBson(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paDoc, char **pzErr);
/* The same for a deterministic function's document argument: TEXT through
** docextJsonParseFixed. */
int docextArgToBsonFixed(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paDoc, char **pzErr);
/* The same for an update argument: a document, or as TEXT an array of
** pipeline stages (*pbPipeline = 1, *paDoc the array's BSON). */
int docextArgToUpdate(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paDoc, int *pbPipeline,
                      char **pzErr);
/* The same for a document to store: TEXT through docextJsonParseStored,
** which sets *pbNamesChecked (BLOB: 0). */
int docextArgToBsonStored(sqlite3_value *pArg, DocBuf *pBuf, const u8 **paDoc,
                          int *pbNamesChecked, char **pzErr);
/* Return the document in pDoc as the function's result in the form its
** document argument pArg had: BLOB in, BSON out; TEXT in, relaxed JSON. */
void docextResultDoc(sqlite3_context *ctx, sqlite3_value *pArg, DocBuf *pDoc);
/* A function's error: zErr (freed) as its message; without one (an error
** from SQLite, under a damaged collection) "docext: " and what the
** connection says; SQLITE_NOMEM as such. */
void docextResultError(sqlite3_context *ctx, int rc, char *zErr);
int docextRegisterFunctions(sqlite3 *db);
/* One row of a table of SQL functions, registered by docextCreateFunctions
** with pApp as their user data. */
typedef struct DocFuncDef DocFuncDef;
struct DocFuncDef {
  const char *zName;
  int nArg;
  int eFlags;             /* SQLITE_UTF8 | SQLITE_DETERMINISTIC | ... */
  void (*xFunc)(sqlite3_context*, int, sqlite3_value**);
};
int docextCreateFunctions(sqlite3 *db, void *pApp, const DocFuncDef *aDef, int nDef);
/* Table-valued functions: a table whose HIDDEN column iArgCol takes the
** argument. Connect declares zSchema (eConfig: an SQLITE_VTAB_* option, or
** 0) and keeps pAux for docextTvfAux; BestIndex uses an equality on the
** argument column (idxNum 1), or plans no rows without it (idxNum 0). */
#ifdef SQLITE_VTAB_DIRECTONLY
# define DOCEXT_VTAB_DIRECTONLY SQLITE_VTAB_DIRECTONLY
#else
# define DOCEXT_VTAB_DIRECTONLY 0
#endif
int docextTvfConnect(sqlite3 *db, const char *zSchema, int eConfig, void *pAux,
                     sqlite3_vtab **ppVtab);
void *docextTvfAux(sqlite3_vtab *pVtab);
int docextTvfDisconnect(sqlite3_vtab *pVtab);
int docextTvfBestIndex(sqlite3_index_info *pInfo, int iArgCol, double rCost);
/* The one way a virtual table reports an error: pVtab's message becomes
** zMsg (taken over), or "docext: <rc's text>" when zMsg is NULL (and rc
** not SQLITE_NOMEM); returns rc. */
int docextVtabError(sqlite3_vtab *pVtab, int rc, char *zMsg);
/* doc_match(d, filter), also handed to collections by xFindFunction. */
void docextDocMatchFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
/* The alias $type uses for a BSON type ("double", "objectId", ...). */
const char *docextTypeAlias(int type);

/**************************************************************************
** Interface to docext_shard.c — sharding: doc_analyze_shard_key.
*/
/**************************************************************************
** Interface to docext_router.c — sharded collections: the router.
*/
typedef struct DocRouter DocRouter;
typedef struct DocRouted DocRouted;
/* Chunks, as the router and the analyzer keep them: an array of structs
** sorted by lower bound, each starting with a DocChunkBound, the bounds'
** key bytes in a buffer aBytes. */
typedef struct DocChunkBound DocChunkBound;
struct DocChunkBound {
  i64 iLo;                  /* the chunk's lower bound: aBytes[iLo..iLo+nLo) */
  int nLo;                  /* (0 for the first: MinKey, below every key) */
};
/* The chunk holding a key: the last whose lower bound is not above it.
** aChunk holds nChunk structs of szChunk bytes. */
int docextChunkOf(const u8 *aBytes, const void *aChunk, int nChunk, size_t szChunk,
                  const u8 *aKey, int nKey);
/* Call xMark(pCtx, i) for every chunk i a range of pPlan's scans meets. */
void docextChunksMet(const DocPlan *pPlan, const u8 *aBytes, const void *aChunk, int nChunk,
                     size_t szChunk, void (*xMark)(void*, int), void *pCtx);
/* A shard key pattern ({a: 1, b: "hashed"}: no -1) as a DocIndex. */
int docextShardKeyParse(const u8 *aKey, DocIndex *pKey, char **pzErr);
/* Refuse a document whose shard key meets an array (MongoDB does), or,
** bRequire, lacks a key field, naming the field and the document. */
int docextShardKeyCheck(const DocIndex *pKey, const u8 *aDoc, int bRequire, char **pzErr);
/* The router of pHome when it is sharded (its chunks as the metadata says
** now), else *ppR NULL. docextRouterGet is the same through a cache (*ppCache,
** which holds a reference: free it with docextRouterFree), reloaded when
** the chunks changed. A router is counted: docextRouterFree lets go of one
** reference. */
int docextRouterOpen(DocConn *pConn, DocColl *pHome, DocRouter **ppR, char **pzErr);
int docextRouterGet(DocConn *pConn, DocColl *pHome, DocRouter **ppCache, DocRouter **ppR,
                    char **pzErr);
void docextRouterFree(DocRouter *pR);
/* Writes: to the shard owning the document's chunk; rowids are the
** router's (docid << 10 | the shard's number). A replacement that changes
** the shard key moves the document to the shard owning its new chunk
** (*piRowid: its rowid, new or not). */
int docextRouterInsert(DocRouter *pR, const u8 *aDoc, int bNamesChecked, int eConflict,
                       i64 *piRowid, char **pzErr);
int docextRouterDelete(DocRouter *pR, i64 iRowid, char **pzErr);
/* docextCollAppendInPlace on the document at router rowid iRowid, whose
** shard key (as docextRoutedKey gave it) is aKey[0..nKey). */
int docextRouterAppendInPlace(DocRouter *pR, i64 iRowid, const u8 *aKey, int nKey,
                              DocUpdate *pUpdate, int *pbDone, char **pzErr);
int docextRouterReplace(DocRouter *pR, i64 iRowid, const u8 *aNew, int bNamesChecked,
                        i64 *piRowid, char **pzErr);
/* One more reference to pR (for a call that takes one over). */
DocRouter *docextRouterRef(DocRouter *pR);
/* A copy of the document at router rowid iRowid, in pOut. */
int docextRouterRead(DocRouter *pR, i64 iRowid, DocBuf *pOut, char **pzErr);
/* Take the write lock of every shard that owns chunks (a command that
** reads, then writes, outside a transaction: as docextStorageSavepoint's
** DOCEXT_SP_LOCK does for one database). */
int docextRouterLock(DocRouter *pR, char **pzErr);
/* The storages of a sharded collection: the router's own first (zShard
** "main", bShard whether main is a shard), then the partition of each
** shard that has one. *paPart is sqlite3_malloc'd; the collections are
** the router's, held while it is. */
typedef struct DocPartition DocPartition;
struct DocPartition {
  DocColl *pColl;
  const char *zShard;
  int bShard;
};
int docextRouterPartitions(DocRouter *pR, DocPartition **paPart, int *pnPart, char **pzErr);
/* How many chunks the collection has. */
int docextRouterChunkCount(DocRouter *pR);
/* Is pIdx an index that serves as the shard key's (which every partition
** needs: the router lists chunks through it)? */
int docextRouterIsKeyIndex(DocRouter *pR, const DocIndex *pIdx);
/* A find over the shards (takes pR over, even on error). pAccess: the
** vtab's _id or rowid constraints, copied for each shard. */
int docextRoutedNew(DocRouter *pR, const DocQuerySpec *pSpec, DocAccess *pAccess,
                    DocRouted **ppOut, char **pzErr);
void docextRoutedFree(DocRouted *p);
int docextRoutedNext(DocRouted *p, char **pzErr);
int docextRoutedEof(DocRouted *p);
int docextRoutedRowid(DocRouted *p, i64 *piRowid);
/* Append the current result's shard key (its index key bytes) to pOut. */
int docextRoutedKey(DocRouted *p, DocBuf *pOut, char **pzErr);
/* The shard's query positioned on the current result (for its columns). */
DocQuery *docextRoutedQuery(DocRouted *p);
/* doc_create_index on a sharded collection: on the router's storage and
** on every shard's partition. */
int docextRouterCreateIndex(DocRouter *pR, const u8 *aKeys, const u8 *aOpt, char **pzName,
                            char **pzErr);
/* docextPlanRunQuery on a sharded collection: the find over its shards, in
** one snapshot (takes pR over). */
int docextRouterRun(DocRouter *pR, const DocQuerySpec *pSpec, int bRead,
                    DocPlanVisitor xDoc, void *pDocCtx, i64 *pnCount, DocBuf *pJson,
                    char **pzErr);
int docextRegisterRouterFunctions(sqlite3 *db, DocConn *pConn);

int docextRegisterShardFunctions(sqlite3 *db, DocConn *pConn);

/**************************************************************************
** Interface to docext_vtab.c — the collection module, and the registry of
** a connection's open collections (so that functions taking a collection's
** name, like doc_create_index('books', …), reach the same DocColl the
** virtual table uses).
*/
/* Create the connection's registry and register the "docext" module with
** it; *ppConn is owned by the module (freed when the connection closes). */
int docextRegisterVtab(sqlite3 *db, DocConn **ppConn);
/* The collection named zSpec ("books", "aux.books", or quoted as SQL
** quotes names: '"x.y"', 'aux."my books"'), connecting the
** virtual table if this connection has not used it yet. Error (with
** message) if there is no such docext collection. */
/* 1 if zDb[0..nDb) names a schema of the connection (main and temp
** always do), else 0. */
int docextIsSchema(sqlite3 *db, const char *zDb, int nDb);
/* The connection's database handle. */
sqlite3 *docextConnDb(DocConn *pConn);
int docextCollFind(DocConn *pConn, const char *zSpec, DocColl **ppColl, char **pzErr);
/* The same for a function's argument: TEXT only (a BLOB, or a name with a
** NUL inside, is an error). */
/* With ctx, the collection is also held (docextCollHold) as argument
** iArg's auxiliary data: until the call returns, or to the end of the
** statement when the argument is a constant. A sharded collection is its
** router's own storage: commands reach its shards through
** docextRouterOpen. */
int docextCollFindArg(DocConn *pConn, sqlite3_context *ctx, int iArg, sqlite3_value *pArg,
                      DocColl **ppColl, char **pzErr);

#endif /* DOCEXT_INT_H */
