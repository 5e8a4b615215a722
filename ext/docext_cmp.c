/*
** docext_cmp.c — BSON comparison order and order-preserving index keys.
**
** Order (MongoDB's): MinKey < undefined < null < numbers < string/symbol <
** object < array < binary < ObjectId < bool < date < timestamp < regex <
** DBPointer < code < code-with-scope < MaxKey. Numbers compare by value
** across int32, int64, double and decimal128.
**
** KEY FORMAT. docextKeyAppend() writes a byte string whose memcmp() order is
** the order above and in which equal values give equal bytes (in the spirit
** of MongoDB's KeyString). Every value's encoding is prefix-free, so the
** keys of a compound index are simply concatenated.
**
**   value      := class-byte payload
**   MinKey/MaxKey/null/undefined: no payload
**   number     := 0x00                       NaN (below every number)
**               | 0x01 D8 tail               D8: see below
**   D8         := the largest double <= the value, as 8 big-endian bytes
**                 with the sign bit flipped (negative: all bits flipped),
**                 so memcmp orders doubles; -0.0 is written as 0.0
**   tail       := 0x00                       the value is exactly D
**               | 0x01 exp2 nibbles          it is not: its exact decimal
**                 digits (trailing zeros stripped), exp2 = 0x8000 + adjusted
**                 exponent (big-endian), one nibble per digit (digit+1),
**                 ended by a 0 nibble; all bytes after the 0x01 inverted
**                 for negative values. Values that share D order by it.
**   string     := bytes with 0x00->01 01 and 0x01->01 02, then 0x00
**                 (also symbol, code, regex pattern and flags)
**   object     := { element-class-byte escaped-name payload } 0x00
**   array      := { element-class-byte payload } 0x00
**                 (an element's class byte is by type only: a bool element
**                 is class 0x6E with a payload byte 0 or 1, so that the
**                 name decides before the value, as MongoDB orders them)
**   binary     := 4-byte big-endian length, subtype, bytes
**   ObjectId   := 12 bytes;  bool := class 0x6E (false) or 0x6F (true)
**   date       := int64 big-endian with the sign bit flipped
**   timestamp  := uint64 big-endian
**   DBPointer  := 4-byte big-endian value size, raw value bytes
**   code w/ s. := code string, scope object
** A descending field inverts every byte of its value's encoding.
*/
#include "docextInt.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Key class bytes, spaced so that later formats can add between them. */
#define KEY_MINKEY     0x0A
#define KEY_UNDEFINED  0x0F
#define KEY_NULL       0x14
#define KEY_NUMBER     0x1E
#define KEY_STRING     0x3C
#define KEY_OBJECT     0x46
#define KEY_ARRAY      0x50
#define KEY_BINARY     0x5A
#define KEY_OID        0x64
#define KEY_FALSE      0x6E
#define KEY_TRUE       0x6F
#define KEY_DATE       0x78
#define KEY_TIMESTAMP  0x82
#define KEY_REGEX      0x8C
#define KEY_DBPOINTER  0x96
#define KEY_CODE       0xA0
#define KEY_CODEWSCOPE 0xAA
#define KEY_MAXKEY     0xF0

int docextTypeClass(int type){
  switch( type ){
    case DOC_MINKEY:     return 1;
    case DOC_UNDEFINED:  return 2;
    case DOC_NULL:       return 3;
    case DOC_DOUBLE: case DOC_INT32: case DOC_INT64: case DOC_DECIMAL128:
                         return 4;
    case DOC_STRING: case DOC_SYMBOL:
                         return 5;
    case DOC_DOCUMENT:   return 6;
    case DOC_ARRAY:      return 7;
    case DOC_BINARY:     return 8;
    case DOC_OID:        return 9;
    case DOC_BOOL:       return 10;
    case DOC_DATE:       return 11;
    case DOC_TIMESTAMP:  return 12;
    case DOC_REGEX:      return 13;
    case DOC_DBPOINTER:  return 14;
    case DOC_CODE:       return 15;
    case DOC_CODEWSCOPE: return 16;
    case DOC_MAXKEY:     return 17;
  }
  return 0;
}

/*------------------------------------------------------------------------
** Numbers
*/

/* An exact decimal: value = (bNeg ? -1 : 1) * 0.d1d2d3... * 10^(iAdj+1),
** i.e. iAdj is the exponent of the first digit. zDigits has no leading or
** trailing zeros; zero is the empty string. */
typedef struct DocDecimal DocDecimal;
struct DocDecimal {
  int bNeg;
  int iAdj;
  char zDigits[800];    /* a double's exact expansion has <= 767 digits */
};

static void decimalNormalize(DocDecimal *p, const char *zDigits, int iExp){
  int n, i = 0;
  while( zDigits[i]=='0' ) i++;
  n = (int)strlen(zDigits+i);
  while( n>0 && zDigits[i+n-1]=='0' ){ n--; iExp++; }
  if( n>(int)sizeof(p->zDigits)-1 ) n = (int)sizeof(p->zDigits)-1;
  memcpy(p->zDigits, zDigits+i, n);
  p->zDigits[n] = 0;
  p->iAdj = n ? iExp + n - 1 : 0;
}

/* The exact decimal expansion of a finite double. */
static void decimalFromDouble(DocDecimal *p, double d){
  char zBuf[1100];
  char zDigits[800];
  int n = 0, i, iExp;
  char *zE;
  p->bNeg = d<0.0;
  if( d==0.0 ){ decimalNormalize(p, "", 0); return; }
  snprintf(zBuf, sizeof(zBuf), "%.780e", fabs(d));
  zE = strchr(zBuf, 'e');
  iExp = atoi(zE+1);
  for(i=0; zBuf+i<zE && n<(int)sizeof(zDigits)-1; i++){
    if( zBuf[i]>='0' && zBuf[i]<='9' ) zDigits[n++] = zBuf[i];
  }
  zDigits[n] = 0;
  /* digits d0.d1d2... x 10^iExp  ==  integer(d0d1...dn-1) x 10^(iExp-n+1) */
  decimalNormalize(p, zDigits, iExp - n + 1);
}

static void decimalFromInt64(DocDecimal *p, i64 v){
  char zBuf[24];
  u64 u = v<0 ? (u64)0 - (u64)v : (u64)v;
  snprintf(zBuf, sizeof(zBuf), "%llu", (unsigned long long)u);
  p->bNeg = v<0;
  decimalNormalize(p, zBuf, 0);
}

/* Compare magnitudes of two normalized decimals. */
static int decimalCompareAbs(const DocDecimal *a, const DocDecimal *b){
  int c;
  if( a->zDigits[0]==0 || b->zDigits[0]==0 ){
    return (a->zDigits[0]!=0) - (b->zDigits[0]!=0);
  }
  if( a->iAdj!=b->iAdj ) return a->iAdj < b->iAdj ? -1 : 1;
  c = strcmp(a->zDigits, b->zDigits);
  return c<0 ? -1 : c>0;
}

/* How a number is keyed: NaN, or D plus an exact remainder. */
typedef struct DocNumKey DocNumKey;
struct DocNumKey {
  int bNaN;
  double d;             /* largest double <= value */
  int bExact;           /* value == d */
  DocDecimal dec;       /* the exact value when !bExact */
};

/* Largest double <= the int64 v, and whether it is exact. */
static void numKeyFromInt64(DocNumKey *p, i64 v){
  double d = (double)v;
  int c;        /* compare d with v */
  if( d>=9223372036854775808.0 ){
    c = 1;
  }else{
    i64 di = (i64)d;
    c = di<v ? -1 : di>v;
  }
  if( c>0 ) d = nextafter(d, -INFINITY);
  p->bNaN = 0;
  p->d = d;
  p->bExact = c==0;
  if( !p->bExact ) decimalFromInt64(&p->dec, v);
}

static void numKeyFromDecimal128(DocNumKey *p, const u8 *a){
  char zDigits[40];
  char zNum[64];
  int bNeg, iExp, c;
  int e = docextDec128Parts(a, &bNeg, zDigits, &iExp);
  DocDecimal dd;
  p->bNaN = 0;
  p->bExact = 1;
  if( e==DOCEXT_DEC_NAN ){ p->bNaN = 1; return; }
  if( e==DOCEXT_DEC_INF ){ p->d = bNeg ? -INFINITY : INFINITY; return; }
  decimalNormalize(&p->dec, zDigits, iExp);
  p->dec.bNeg = bNeg;
  if( p->dec.zDigits[0]==0 ){ p->d = 0.0; return; }
  snprintf(zNum, sizeof(zNum), "%s%se%d", bNeg ? "-" : "", zDigits, iExp);
  p->d = strtod(zNum, 0);
  /* Compare the exact value with d to decide whether d is below it. */
  if( isinf(p->d) ){
    c = bNeg ? -1 : 1;             /* beyond the double range */
    p->d = bNeg ? -INFINITY : DBL_MAX;
  }else{
    decimalFromDouble(&dd, p->d);
    if( p->d==0.0 ){
      c = bNeg ? -1 : 1;
    }else{
      c = decimalCompareAbs(&p->dec, &dd);
      if( bNeg ) c = -c;
    }
  }
  if( c<0 ){
    p->d = nextafter(p->d, -INFINITY);
  }
  p->bExact = c==0;
}

static void numKeyFromValue(DocNumKey *p, const DocValue *v){
  switch( v->type ){
    case DOC_INT32:
      numKeyFromInt64(p, docextValueI32(v));
      break;
    case DOC_INT64:
      numKeyFromInt64(p, docextValueI64(v));
      break;
    case DOC_DECIMAL128:
      numKeyFromDecimal128(p, v->p);
      break;
    default: {
      double d = docextValueDouble(v);
      p->bNaN = isnan(d);
      p->d = d;
      p->bExact = 1;
      break;
    }
  }
}

/* Append the 8 order-preserving bytes of a double. */
static void appendOrderedDouble(int *pRc, DocBuf *pBuf, double d){
  u64 u;
  u8 a[8];
  int i;
  if( d==0.0 ) d = 0.0;          /* -0.0 keys as 0.0 */
  memcpy(&u, &d, 8);
  if( u>>63 ) u = ~u; else u |= (u64)1<<63;
  for(i=7; i>=0; i--){ a[i] = (u8)u; u >>= 8; }
  docextBufAppend(pRc, pBuf, a, 8);
}

static void appendNumber(int *pRc, DocBuf *pBuf, const DocValue *v){
  DocNumKey nk;
  numKeyFromValue(&nk, v);
  if( nk.bNaN ){
    docextBufAppendByte(pRc, pBuf, 0x00);
    return;
  }
  docextBufAppendByte(pRc, pBuf, 0x01);
  appendOrderedDouble(pRc, pBuf, nk.d);
  if( nk.bExact ){
    docextBufAppendByte(pRc, pBuf, 0x00);
  }else{
    i64 iStart;
    int e = nk.dec.iAdj + 0x8000;
    const char *z = nk.dec.zDigits;
    docextBufAppendByte(pRc, pBuf, 0x01);
    iStart = pBuf->n;
    docextBufAppendByte(pRc, pBuf, (u8)(e>>8));
    docextBufAppendByte(pRc, pBuf, (u8)e);
    for(;;){
      u8 hi = *z ? (u8)(*z++ - '0' + 1) : 0;
      u8 lo = (hi && *z) ? (u8)(*z++ - '0' + 1) : 0;
      docextBufAppendByte(pRc, pBuf, (u8)((hi<<4) | lo));
      if( lo==0 ) break;
    }
    if( nk.dec.bNeg && *pRc==SQLITE_OK ){
      i64 i;
      for(i=iStart; i<pBuf->n; i++) pBuf->a[i] = ~pBuf->a[i];
    }
  }
}

/*------------------------------------------------------------------------
** Key encoding
*/

static void appendEscaped(int *pRc, DocBuf *pBuf, const u8 *z, i64 n){
  i64 i, iStart = 0;
  for(i=0; i<n; i++){
    if( z[i]<=0x01 ){
      docextBufAppend(pRc, pBuf, &z[iStart], i-iStart);
      docextBufAppendByte(pRc, pBuf, 0x01);
      docextBufAppendByte(pRc, pBuf, z[i]+1);
      iStart = i+1;
    }
  }
  docextBufAppend(pRc, pBuf, &z[iStart], n-iStart);
  docextBufAppendByte(pRc, pBuf, 0x00);
}

/* A string's key under a collation: its ICU sort key, escaped and ended as
** any string's bytes are (a sort key has no 0 byte, but 1s). */
static void appendCollated(int *pRc, DocBuf *pBuf, const DocCollator *pCollator,
                           const char *z, int n){
  u8 aSpace[128];
  DocBuf key;
  docextBufInit(&key, aSpace, sizeof(aSpace));
  docextCollatorKey(pRc, &key, pCollator, z, n);
  if( *pRc==SQLITE_OK ) appendEscaped(pRc, pBuf, key.a, key.n);
  docextBufFree(&key);
}

static void appendBigEndian(int *pRc, DocBuf *pBuf, u64 u, int nByte){
  u8 a[8];
  int i;
  for(i=nByte-1; i>=0; i--){ a[i] = (u8)u; u >>= 8; }
  docextBufAppend(pRc, pBuf, a, nByte);
}

static u8 keyClass(const DocValue *v){
  switch( v->type ){
    case DOC_MINKEY:     return KEY_MINKEY;
    case DOC_UNDEFINED:  return KEY_UNDEFINED;
    case DOC_NULL:       return KEY_NULL;
    case DOC_DOUBLE: case DOC_INT32: case DOC_INT64: case DOC_DECIMAL128:
                         return KEY_NUMBER;
    case DOC_STRING: case DOC_SYMBOL:
                         return KEY_STRING;
    case DOC_DOCUMENT:   return KEY_OBJECT;
    case DOC_ARRAY:      return KEY_ARRAY;
    case DOC_BINARY:     return KEY_BINARY;
    case DOC_OID:        return KEY_OID;
    case DOC_BOOL:       return v->p[0] ? KEY_TRUE : KEY_FALSE;
    case DOC_DATE:       return KEY_DATE;
    case DOC_TIMESTAMP:  return KEY_TIMESTAMP;
    case DOC_REGEX:      return KEY_REGEX;
    case DOC_DBPOINTER:  return KEY_DBPOINTER;
    case DOC_CODE:       return KEY_CODE;
    case DOC_CODEWSCOPE: return KEY_CODEWSCOPE;
  }
  return KEY_MAXKEY;
}

static void appendPayload(int *pRc, DocBuf *pBuf, const DocValue *v, const DocCollator *pCollator);

/* Elements order by (type, name, value), as MongoDB compares them: false
** and true are one type, so an element's class byte is KEY_FALSE for both
** and its value byte (0 or 1) follows the name ({b: false} > {a: true}). */
static void appendElements(int *pRc, DocBuf *pBuf, const u8 *aDoc, int bNames,
                           const DocCollator *pCollator){
  DocIter it;
  docextIterInit(&it, aDoc);
  while( docextIterNext(&it) && *pRc==SQLITE_OK ){
    int bBool = it.v.type==DOC_BOOL;
    docextBufAppendByte(pRc, pBuf, bBool ? KEY_FALSE : keyClass(&it.v));
    if( bNames ) appendEscaped(pRc, pBuf, (const u8*)it.zKey, it.nKey);
    if( bBool ){
      docextBufAppendByte(pRc, pBuf, it.v.p[0] ? 0x01 : 0x00);
    }else{
      appendPayload(pRc, pBuf, &it.v, pCollator);
    }
  }
  docextBufAppendByte(pRc, pBuf, 0x00);
}

static void appendPayload(int *pRc, DocBuf *pBuf, const DocValue *v, const DocCollator *pCollator){
  int n;
  const char *z;
  switch( v->type ){
    case DOC_DOUBLE: case DOC_INT32: case DOC_INT64: case DOC_DECIMAL128:
      appendNumber(pRc, pBuf, v);
      break;
    case DOC_STRING: case DOC_SYMBOL: case DOC_CODE:
      z = docextValueStr(v, &n);
      if( pCollator && v->type!=DOC_CODE ){
        appendCollated(pRc, pBuf, pCollator, z, n);
      }else{
        appendEscaped(pRc, pBuf, (const u8*)z, n);
      }
      break;
    case DOC_DOCUMENT:
      appendElements(pRc, pBuf, v->p, 1, pCollator);
      break;
    case DOC_ARRAY:
      appendElements(pRc, pBuf, v->p, 0, pCollator);
      break;
    case DOC_BINARY:
      appendBigEndian(pRc, pBuf, (uint32_t)docextGetI32(v->p), 4);
      docextBufAppend(pRc, pBuf, v->p+4, v->n-4);
      break;
    case DOC_OID:
      docextBufAppend(pRc, pBuf, v->p, 12);
      break;
    case DOC_DATE:
      appendBigEndian(pRc, pBuf, (u64)docextGetI64(v->p) ^ ((u64)1<<63), 8);
      break;
    case DOC_TIMESTAMP:
      appendBigEndian(pRc, pBuf, (u64)docextGetI64(v->p), 8);
      break;
    case DOC_REGEX: {
      int n1 = (int)strlen((const char*)v->p);
      appendEscaped(pRc, pBuf, v->p, n1);
      appendEscaped(pRc, pBuf, v->p+n1+1, v->n-n1-2);
      break;
    }
    case DOC_DBPOINTER:
      appendBigEndian(pRc, pBuf, (u64)v->n, 4);
      docextBufAppend(pRc, pBuf, v->p, v->n);
      break;
    case DOC_CODEWSCOPE: {
      z = docextValueStr(v, &n);
      appendEscaped(pRc, pBuf, (const u8*)z, n);
      appendElements(pRc, pBuf, v->p + 8 + n + 1, 1, 0);
      break;
    }
    default:   /* MinKey, MaxKey, null, undefined, bool: the class says it */
      break;
  }
}

u64 docextHashBytes(const u8 *a, i64 n){
  u64 x = 0xcbf29ce484222325ULL;
  i64 i;
  for(i=0; i<n; i++){
    x ^= a[i];
    x *= 0x100000001b3ULL;
  }
  return x;
}

int docextKeyCmp(const u8 *a, int na, const u8 *b, int nb){
  int c = memcmp(a, b, na<nb ? na : nb);
  return c ? c : na - nb;
}

void docextKeyAppend(int *pRc, DocBuf *pBuf, const DocValue *v, int bDesc){
  docextKeyAppendColl(pRc, pBuf, v, bDesc, 0);
}

void docextKeyAppendColl(int *pRc, DocBuf *pBuf, const DocValue *v, int bDesc,
                         const DocCollator *pCollator){
  i64 iStart = pBuf->n;
  docextBufAppendByte(pRc, pBuf, keyClass(v));
  appendPayload(pRc, pBuf, v, pCollator);
  if( bDesc && *pRc==SQLITE_OK ){
    i64 i;
    for(i=iStart; i<pBuf->n; i++) pBuf->a[i] = ~pBuf->a[i];
  }
}

/*------------------------------------------------------------------------
** Comparison
*/

/* Exact comparison of an int64 with a double (not NaN). */
static int compareInt64Double(i64 a, double b){
  if( b>=9223372036854775808.0 ) return -1;
  if( b<-9223372036854775808.0 ) return 1;
  {
    double fa = (double)a;
    if( fa<b ) return -1;
    if( fa>b ) return 1;
    /* Equal as doubles: decide exactly with integers (b is integral or
    ** a was rounded onto it; |b| < 2^63 here). */
    {
      i64 bi = (i64)b;
      double frac = b - (double)bi;
      if( a<bi ) return -1;
      if( a>bi ) return 1;
      return frac>0.0 ? -1 : frac<0.0;
    }
  }
}

static int compareNumbers(const DocValue *a, const DocValue *b){
  int ta = a->type, tb = b->type;
  if( ta==DOC_DECIMAL128 || tb==DOC_DECIMAL128 ){
    /* Rare: compare the exact keys. */
    u8 aSpaceA[64], aSpaceB[64];
    DocBuf ka, kb;
    int rc = SQLITE_OK, c;
    docextBufInit(&ka, aSpaceA, sizeof(aSpaceA));
    docextBufInit(&kb, aSpaceB, sizeof(aSpaceB));
    appendNumber(&rc, &ka, a);
    appendNumber(&rc, &kb, b);
    if( rc==SQLITE_OK ){
      i64 n = ka.n<kb.n ? ka.n : kb.n;
      c = memcmp(ka.a, kb.a, n);
      if( c==0 ) c = ka.n<kb.n ? -1 : ka.n>kb.n;
    }else{
      double da = docextValueToDouble(a), db = docextValueToDouble(b);
      c = da<db ? -1 : da>db;
    }
    docextBufFree(&ka);
    docextBufFree(&kb);
    return c<0 ? -1 : c>0;
  }
  if( ta!=DOC_DOUBLE && tb!=DOC_DOUBLE ){
    i64 ia = ta==DOC_INT32 ? docextValueI32(a) : docextValueI64(a);
    i64 ib = tb==DOC_INT32 ? docextValueI32(b) : docextValueI64(b);
    return ia<ib ? -1 : ia>ib;
  }
  if( ta==DOC_DOUBLE && tb==DOC_DOUBLE ){
    double da = docextValueDouble(a), db = docextValueDouble(b);
    if( isnan(da) || isnan(db) ) return isnan(db) - isnan(da);
    return da<db ? -1 : da>db;
  }
  if( ta==DOC_DOUBLE ){
    double da = docextValueDouble(a);
    i64 ib = tb==DOC_INT32 ? docextValueI32(b) : docextValueI64(b);
    return isnan(da) ? -1 : -compareInt64Double(ib, da);
  }else{
    double db = docextValueDouble(b);
    i64 ia = ta==DOC_INT32 ? docextValueI32(a) : docextValueI64(a);
    return isnan(db) ? 1 : compareInt64Double(ia, db);
  }
}

static int compareBytes(const u8 *a, int na, const u8 *b, int nb){
  int c = memcmp(a, b, na<nb ? na : nb);
  if( c==0 ) return na<nb ? -1 : na>nb;
  return c<0 ? -1 : 1;
}

static int compareDocs(const u8 *aDocA, const u8 *aDocB, const DocCollator *pCollator){
  DocIter ia, ib;
  docextIterInit(&ia, aDocA);
  docextIterInit(&ib, aDocB);
  for(;;){
    int bA = docextIterNext(&ia);
    int bB = docextIterNext(&ib);
    int c;
    if( !bA || !bB ) return bA - bB;
    c = docextTypeClass(ia.v.type) - docextTypeClass(ib.v.type);
    if( c ) return c<0 ? -1 : 1;
    c = compareBytes((const u8*)ia.zKey, ia.nKey, (const u8*)ib.zKey, ib.nKey);
    if( c ) return c;
    c = docextValueCompareColl(&ia.v, &ib.v, pCollator);
    if( c ) return c;
  }
}

int docextValueCompare(const DocValue *a, const DocValue *b){
  return docextValueCompareColl(a, b, 0);
}

int docextValueCompareColl(const DocValue *a, const DocValue *b, const DocCollator *pCollator){
  int ca = docextTypeClass(a->type), cb = docextTypeClass(b->type);
  const char *za, *zb;
  int na, nb, c;
  if( ca!=cb ) return ca<cb ? -1 : 1;
  switch( a->type ){
    case DOC_DOUBLE: case DOC_INT32: case DOC_INT64: case DOC_DECIMAL128:
      return compareNumbers(a, b);
    case DOC_STRING: case DOC_SYMBOL: case DOC_CODE:
      za = docextValueStr(a, &na);
      zb = docextValueStr(b, &nb);
      if( pCollator && a->type!=DOC_CODE ) return docextCollatorCompare(pCollator, za, na, zb, nb);
      return compareBytes((const u8*)za, na, (const u8*)zb, nb);
    case DOC_DOCUMENT: case DOC_ARRAY:
      return compareDocs(a->p, b->p, pCollator);
    case DOC_BINARY:
      na = docextGetI32(a->p);
      nb = docextGetI32(b->p);
      if( na!=nb ) return na<nb ? -1 : 1;
      return compareBytes(a->p+4, a->n-4, b->p+4, b->n-4);
    case DOC_OID:
      return compareBytes(a->p, 12, b->p, 12);
    case DOC_BOOL:
      return (a->p[0]!=0) - (b->p[0]!=0);
    case DOC_DATE: {
      i64 x = docextGetI64(a->p), y = docextGetI64(b->p);
      return x<y ? -1 : x>y;
    }
    case DOC_TIMESTAMP: {
      u64 x = (u64)docextGetI64(a->p), y = (u64)docextGetI64(b->p);
      return x<y ? -1 : x>y;
    }
    case DOC_REGEX: {
      c = strcmp((const char*)a->p, (const char*)b->p);
      if( c==0 ){
        c = strcmp((const char*)a->p + strlen((const char*)a->p) + 1,
                   (const char*)b->p + strlen((const char*)b->p) + 1);
      }
      return c<0 ? -1 : c>0;
    }
    case DOC_DBPOINTER:
      if( a->n!=b->n ) return a->n<b->n ? -1 : 1;
      return compareBytes(a->p, a->n, b->p, b->n);
    case DOC_CODEWSCOPE:
      za = docextValueStr(a, &na);
      zb = docextValueStr(b, &nb);
      c = compareBytes((const u8*)za, na, (const u8*)zb, nb);
      if( c ) return c;
      return compareDocs(a->p + 8 + na + 1, b->p + 8 + nb + 1, 0);
  }
  return 0;   /* MinKey, MaxKey, null, undefined */
}

/*------------------------------------------------------------------------
** The one sort
**
** Stable, and with a context argument for the comparison: qsort() is
** neither (and qsort_r() is not portable), and a global for the context
** would be shared by connections in different threads.
*/

/* Sort a[0..n) (elements of sz bytes); aTmp has room for n of them. Top
** down: halves sorted, then merged through aTmp; short runs by insertion,
** with aTmp (unused at that point) holding the element being placed. */
void docextSort(void *a, int n, int sz, void *aTmp, DocSortCmp xCmp, void *pCtx){
  u8 *p = (u8*)a, *t = (u8*)aTmp;
  int i, j, k, h;
  if( n<2 ) return;
  if( n<8 ){
    for(i=1; i<n; i++){
      memcpy(t, p + (size_t)i*sz, sz);
      for(j=i; j>0 && xCmp(pCtx, p + (size_t)(j-1)*sz, t)>0; j--){
        memcpy(p + (size_t)j*sz, p + (size_t)(j-1)*sz, sz);
      }
      memcpy(p + (size_t)j*sz, t, sz);
    }
    return;
  }
  h = n/2;
  docextSort(p, h, sz, aTmp, xCmp, pCtx);
  docextSort(p + (size_t)h*sz, n-h, sz, aTmp, xCmp, pCtx);
  for(i=0, j=h, k=0; i<h || j<n; k++){
    /* (<= takes the left one first on a tie: stable) */
    if( j>=n || (i<h && xCmp(pCtx, p + (size_t)i*sz, p + (size_t)j*sz)<=0) ){
      memcpy(t + (size_t)k*sz, p + (size_t)(i++)*sz, sz);
    }else{
      memcpy(t + (size_t)k*sz, p + (size_t)(j++)*sz, sz);
    }
  }
  memcpy(p, t, (size_t)n*sz);
}

static int keyItemCmp(void *pCtx, const void *x, const void *y){
  const DocKeyItem *a = (const DocKeyItem*)x, *b = (const DocKeyItem*)y;
  const u8 *aKeys = (const u8*)pCtx;
  return docextKeyCmp(aKeys + a->iKey, a->nKey, aKeys + b->iKey, b->nKey);
}

int docextSortByKey(DocKeyItem *a, int n, const u8 *aKeys){
  DocKeyItem *aTmp = sqlite3_malloc64(sizeof(DocKeyItem)*(n>0 ? n : 1));
  if( aTmp==0 ) return SQLITE_NOMEM;
  docextSort(a, n, sizeof(DocKeyItem), aTmp, keyItemCmp, (void*)aKeys);
  sqlite3_free(aTmp);
  return SQLITE_OK;
}

/* The bytes of a key of the set (an empty key's, when keys is empty, not
** a pointer made from NULL). */
static const u8 *keySetBytes(const DocKeySet *p, i64 iKey, int nKey){
  return nKey>0 ? p->keys.a + iKey : (const u8*)"";
}

/* Double the slots of a key set, placing its entries again. */
static int keySetGrow(DocKeySet *p){
  int nSlot = p->nSlot ? p->nSlot*2 : 64, i;
  int *aSlot = sqlite3_malloc64(sizeof(int)*nSlot);
  if( aSlot==0 ) return SQLITE_NOMEM;
  memset(aSlot, 0xff, sizeof(int)*nSlot);
  for(i=0; i<p->n; i++){
    int k = (int)(docextHashBytes(keySetBytes(p, p->a[i].iKey, p->a[i].nKey), p->a[i].nKey)
                  & (u64)(nSlot-1));
    while( aSlot[k]>=0 ) k = (k+1) & (nSlot-1);
    aSlot[k] = i;
  }
  sqlite3_free(p->aSlot);
  p->aSlot = aSlot;
  p->nSlot = nSlot;
  return SQLITE_OK;
}

int docextKeySetAdd(DocKeySet *p, i64 iKey, int *piEntry, int *pbNew){
  int nKey = (int)(p->keys.n - iKey), k, rc = SQLITE_OK;
  DocKeyItem *aNew;
  const u8 *aKey;
  if( p->n*2>=p->nSlot && (rc = keySetGrow(p))!=SQLITE_OK ) return rc;
  aKey = keySetBytes(p, iKey, nKey);
  for(k=(int)(docextHashBytes(aKey, nKey) & (u64)(p->nSlot-1)); p->aSlot[k]>=0;
      k=(k+1) & (p->nSlot-1)){
    const DocKeyItem *pE = &p->a[p->aSlot[k]];
    if( pE->nKey==nKey && memcmp(keySetBytes(p, pE->iKey, nKey), aKey, nKey)==0 ){
      p->keys.n = iKey;                 /* (known: its key is there already) */
      *piEntry = p->aSlot[k];
      *pbNew = 0;
      return SQLITE_OK;
    }
  }
  aNew = docextArrayGrow(&rc, p->a, p->n, &p->nAlloc, sizeof(DocKeyItem));
  if( rc ) return rc;
  p->a = aNew;
  p->a[p->n].iKey = iKey;
  p->a[p->n].nKey = nKey;
  p->a[p->n].iItem = p->n;
  p->aSlot[k] = *piEntry = p->n++;
  *pbNew = 1;
  return SQLITE_OK;
}

void docextKeySetFree(DocKeySet *p){
  docextBufFree(&p->keys);
  sqlite3_free(p->a);
  sqlite3_free(p->aSlot);
  memset(p, 0, sizeof(*p));
}
