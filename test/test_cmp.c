/*
** test_cmp.c — BSON order and index keys.
**
** For a varied set of values (every type, numbers of all four numeric
** types near each other and at the edges, strings with 0x00/0x01 bytes,
** nested documents and arrays), every pair must satisfy
**     sign(docextValueCompare(a,b)) == sign(memcmp(key(a), key(b)))
** ascending, the reverse descending, and the same with a second value
** appended (compound keys). Then specific facts of MongoDB's order.
*/
#include "docextInt.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int nPass = 0, nFail = 0;

static void check(int bOk, const char *zWhat){
  if( bOk ){ nPass++; }
  else{ nFail++; printf("FAIL: %s\n", zWhat); }
}

/* Values are kept as one-element documents {"": v}. */
#define MAXV 400
static DocBuf aVal[MAXV];
static int nVal = 0;

static DocBuf *newVal(void){
  DocBuf *p = &aVal[nVal++];
  memset(p, 0, sizeof(*p));
  return p;
}

static void valueOf(int i, DocValue *pV){
  DocIter it;
  docextIterInit(&it, aVal[i].a);
  docextIterNext(&it);
  *pV = it.v;
}

static void addInt32(int32_t v){
  int rc = SQLITE_OK; DocBuf *p = newVal();
  i64 s = docextBsonStartDoc(&rc, p);
  docextBsonAppendInt32(&rc, p, "", 0, v);
  docextBsonEndDoc(&rc, p, s);
}
static void addInt64(i64 v){
  int rc = SQLITE_OK; DocBuf *p = newVal();
  i64 s = docextBsonStartDoc(&rc, p);
  docextBsonAppendInt64(&rc, p, "", 0, v);
  docextBsonEndDoc(&rc, p, s);
}
static void addDouble(double v){
  int rc = SQLITE_OK; DocBuf *p = newVal();
  i64 s = docextBsonStartDoc(&rc, p);
  docextBsonAppendDouble(&rc, p, "", 0, v);
  docextBsonEndDoc(&rc, p, s);
}
static void addDecimal(const char *z){
  int rc = SQLITE_OK; DocBuf *p = newVal();
  u8 a[16];
  i64 s = docextBsonStartDoc(&rc, p);
  if( docextDec128FromString(z, (int)strlen(z), a) ){ printf("bad decimal %s\n", z); exit(1); }
  docextBsonAppendKey(&rc, p, DOC_DECIMAL128, "", 0);
  docextBufAppend(&rc, p, a, 16);
  docextBsonEndDoc(&rc, p, s);
}
static void addString(int type, const char *z, int n){
  int rc = SQLITE_OK; DocBuf *p = newVal();
  i64 s = docextBsonStartDoc(&rc, p);
  docextBsonAppendString(&rc, p, type, "", 0, z, n);
  docextBsonEndDoc(&rc, p, s);
}
static void addRaw(int type, const void *a, int n){
  int rc = SQLITE_OK; DocBuf *p = newVal();
  i64 s = docextBsonStartDoc(&rc, p);
  docextBsonAppendKey(&rc, p, type, "", 0);
  docextBufAppend(&rc, p, a, n);
  docextBsonEndDoc(&rc, p, s);
}
/* A document or array whose elements are values iA.. (nElem of them),
** keyed by the given names (or array indexes). */
static void addContainer(int type, const char *const *azKey, const int *aiVal, int nElem){
  int rc = SQLITE_OK, i; DocBuf *p = newVal();
  i64 s = docextBsonStartDoc(&rc, p);
  i64 c = docextBsonStartChild(&rc, p, type, "", 0);
  for(i=0; i<nElem; i++){
    DocValue v; char zIdx[16];
    valueOf(aiVal[i], &v);
    if( type==DOC_ARRAY ){
      int n = docextBsonArrayKey(zIdx, i);
      docextBsonAppendValue(&rc, p, zIdx, n, &v);
    }else{
      docextBsonAppendValue(&rc, p, azKey[i], (int)strlen(azKey[i]), &v);
    }
  }
  docextBsonEndDoc(&rc, p, c);
  docextBsonEndDoc(&rc, p, s);
}

static int sgn(int x){ return x<0 ? -1 : x>0; }

static int keyCompare(const DocValue *a, const DocValue *b, int bDesc, const DocValue *pTail){
  DocBuf ka, kb; int rc = SQLITE_OK, c;
  memset(&ka, 0, sizeof(ka)); memset(&kb, 0, sizeof(kb));
  docextKeyAppend(&rc, &ka, a, bDesc);
  docextKeyAppend(&rc, &kb, b, bDesc);
  if( pTail ){
    docextKeyAppend(&rc, &ka, pTail, 0);
    docextKeyAppend(&rc, &kb, pTail+1, 0);
  }
  c = memcmp(ka.a, kb.a, ka.n<kb.n ? ka.n : kb.n);
  if( c==0 ) c = ka.n<kb.n ? -1 : ka.n>kb.n;
  docextBufFree(&ka); docextBufFree(&kb);
  return sgn(c);
}

static int cmpIdx(int i, int j){
  DocValue a, b;
  valueOf(i, &a); valueOf(j, &b);
  return docextValueCompare(&a, &b);
}

/* docextSort: random arrays of every length up to 300 (and one of 5000),
** few distinct keys so that ties are common; the result must be ordered,
** keep tied elements in their first order, and be a permutation. */
typedef struct SortItem { int key; int pos; double pad; } SortItem;
static int sortItemCmp(void *pCtx, const void *x, const void *y){
  int a = ((const SortItem*)x)->key, b = ((const SortItem*)y)->key;
  ++*(int*)pCtx;
  return a<b ? -1 : a>b;
}
static void testSort(void){
  static SortItem a[5000], aTmp[5000];
  static int aSeen[5000];
  unsigned s = 12345;
  int n;
  for(n=0; n<=301; n++){
    int len = n<=300 ? n : 5000, i, bOk = 1, nCmp = 0;
    for(i=0; i<len; i++){
      s = s*1103515245u + 12345u;
      a[i].key = (int)((s>>16) % (unsigned)(len/3 + 2));
      a[i].pos = i;
      a[i].pad = 0;
      aSeen[i] = 0;
    }
    docextSort(a, len, sizeof(SortItem), aTmp, sortItemCmp, &nCmp);
    for(i=0; i<len; i++){
      if( a[i].pos<0 || a[i].pos>=len || aSeen[a[i].pos]++ ) bOk = 0;
      if( i>0 && (a[i-1].key>a[i].key || (a[i-1].key==a[i].key && a[i-1].pos>a[i].pos)) ) bOk = 0;
    }
    check(bOk, "docextSort: ordered, stable, a permutation");
    check(len<2 || nCmp>0, "docextSort: compares through the callback");
  }
}

int main(void){
  int i, j, iBase, iFalse;
  u8 aOid1[12] = {0}, aOid2[12] = {0,0,0,0,0,0,0,0,0,0,0,1};
  u8 aTrue = 1, aFalse = 0;
  u8 aDate[8], aTs[8];
  char zMsg[200];

  /* MinKey, MaxKey, null, undefined */
  addRaw(DOC_MINKEY, "", 0);
  addRaw(DOC_MAXKEY, "", 0);
  addRaw(DOC_NULL, "", 0);
  addRaw(DOC_UNDEFINED, "", 0);
  /* Numbers: all four types, around each other */
  addInt32(0); addInt32(1); addInt32(-1); addInt32(2147483647); addInt32(-2147483647-1);
  addInt64(0); addInt64(1); addInt64(-1);
  addInt64((i64)1<<53); addInt64(((i64)1<<53)+1); addInt64(-((i64)1<<53)-1);
  addInt64(9223372036854775807LL); addInt64(-9223372036854775807LL-1);
  addInt64(9223372036854775807LL-1);
  addDouble(0.0); addDouble(-0.0); addDouble(1.0); addDouble(-1.0); addDouble(0.1);
  addDouble(1.5); addDouble(-1.5); addDouble(9007199254740992.0); addDouble(9223372036854775808.0);
  addDouble(-9223372036854775808.0); addDouble(1e300); addDouble(-1e300); addDouble(5e-324);
  addDouble(INFINITY); addDouble(-INFINITY); addDouble(NAN); addDouble(2147483647.5);
  addDecimal("0"); addDecimal("-0"); addDecimal("1"); addDecimal("1.0"); addDecimal("1.00000000000000000000000000000001");
  addDecimal("0.1"); addDecimal("0.10"); addDecimal("-0.1"); addDecimal("1.5"); addDecimal("9007199254740993");
  addDecimal("9223372036854775807"); addDecimal("9223372036854775808"); addDecimal("1E+400");
  addDecimal("-1E+400"); addDecimal("1E-400"); addDecimal("-1E-400"); addDecimal("Infinity");
  addDecimal("-Infinity"); addDecimal("NaN"); addDecimal("0.1000000000000000055511151231257827");
  addDecimal("0.1000000000000000055511151231257828"); addDecimal("-0.1000000000000000055511151231257827");
  /* Strings and symbols, with bytes 0x00 and 0x01 */
  addString(DOC_STRING, "", 0); addString(DOC_STRING, "a", 1); addString(DOC_STRING, "a\0", 2);
  addString(DOC_STRING, "a\0b", 3); addString(DOC_STRING, "a\1", 2); addString(DOC_STRING, "a\2", 2);
  addString(DOC_STRING, "ab", 2); addString(DOC_SYMBOL, "ab", 2); addString(DOC_STRING, "b", 1);
  addString(DOC_STRING, "\xc3\xa9", 2);
  addString(DOC_CODE, "x", 1); addString(DOC_CODE, "", 0);
  /* Binary, ObjectId, bool, date, timestamp, regex */
  { u8 b1[] = {1,0,0,0, 0, 7}; u8 b2[] = {1,0,0,0, 4, 7}; u8 b3[] = {2,0,0,0, 0, 0,0}; u8 b0[] = {0,0,0,0,0};
    addRaw(DOC_BINARY, b0, 5); addRaw(DOC_BINARY, b1, 6); addRaw(DOC_BINARY, b2, 6); addRaw(DOC_BINARY, b3, 7); }
  addRaw(DOC_OID, aOid1, 12); addRaw(DOC_OID, aOid2, 12);
  iFalse = nVal;
  addRaw(DOC_BOOL, &aFalse, 1); addRaw(DOC_BOOL, &aTrue, 1);
  { i64 v = -5; int k; for(k=0;k<8;k++) aDate[k] = (u8)((u64)v>>(8*k)); addRaw(DOC_DATE, aDate, 8);
    v = 5; for(k=0;k<8;k++) aDate[k] = (u8)((u64)v>>(8*k)); addRaw(DOC_DATE, aDate, 8);
    v = (i64)0xFFFFFFFF00000001LL; for(k=0;k<8;k++) aTs[k] = (u8)((u64)v>>(8*k)); addRaw(DOC_TIMESTAMP, aTs, 8);
    v = 7; for(k=0;k<8;k++) aTs[k] = (u8)((u64)v>>(8*k)); addRaw(DOC_TIMESTAMP, aTs, 8); }
  addRaw(DOC_REGEX, "a\0i", 4); addRaw(DOC_REGEX, "a\0", 3); addRaw(DOC_REGEX, "ab\0", 4);
  /* Documents and arrays built from earlier values */
  iBase = nVal;
  { const char *az1[] = {"a"}; const char *az2[] = {"a","b"}; const char *az3[] = {"b"};
    int one[] = {5}, two[] = {5, 6}, str[] = {60}, nul[] = {2};
    addContainer(DOC_DOCUMENT, 0, 0, 0);
    addContainer(DOC_DOCUMENT, az1, one, 1);
    addContainer(DOC_DOCUMENT, az2, two, 2);
    addContainer(DOC_DOCUMENT, az3, one, 1);
    addContainer(DOC_DOCUMENT, az1, str, 1);
    addContainer(DOC_DOCUMENT, az1, nul, 1);
    addContainer(DOC_ARRAY, 0, 0, 0);
    addContainer(DOC_ARRAY, 0, one, 1);
    addContainer(DOC_ARRAY, 0, two, 2);
    addContainer(DOC_ARRAY, 0, str, 1);
    { int nest[] = {iBase+2}; addContainer(DOC_ARRAY, 0, nest, 1); addContainer(DOC_DOCUMENT, az1, nest, 1); }
    /* Booleans inside: MongoDB orders elements by (type, name, value), and
    ** false and true are one type, so {b: false} > {a: true}. */
    { int f[] = {iFalse}, t[] = {iFalse+1}, ft[] = {iFalse, iFalse+1}, tf[] = {iFalse+1, iFalse};
      addContainer(DOC_DOCUMENT, az1, f, 1);
      addContainer(DOC_DOCUMENT, az1, t, 1);
      addContainer(DOC_DOCUMENT, az3, f, 1);
      addContainer(DOC_DOCUMENT, az3, t, 1);
      addContainer(DOC_DOCUMENT, az2, ft, 2);
      addContainer(DOC_DOCUMENT, az2, tf, 2);
      addContainer(DOC_ARRAY, 0, f, 1);
      addContainer(DOC_ARRAY, 0, t, 1);
      addContainer(DOC_ARRAY, 0, tf, 2);
      check(cmpIdx(nVal-7, nVal-8)>0, "{b: false} > {a: true}");
    }
  }

  /* Every pair: comparison and keys agree, ascending, descending, and as
  ** the first field of a compound key. */
  for(i=0; i<nVal; i++){
    for(j=0; j<nVal; j++){
      DocValue a, b, tail[2];
      int c, k;
      valueOf(i, &a); valueOf(j, &b);
      c = sgn(docextValueCompare(&a, &b));
      check(sgn(docextValueCompare(&b, &a))==-c, "compare is antisymmetric");
      k = keyCompare(&a, &b, 0, 0);
      if( k!=c ){
        snprintf(zMsg, sizeof(zMsg), "key order of values %d and %d: compare %d, keys %d", i, j, c, k);
      }
      check(k==c, zMsg);
      check(keyCompare(&a, &b, 1, 0)==-c, "descending keys invert");
      valueOf(j, &tail[0]); valueOf(i, &tail[1]);
      k = keyCompare(&a, &b, 0, tail);
      check(c!=0 ? k==c : k==sgn(docextValueCompare(&tail[0], &tail[1])),
            "compound key: first field decides, else second");
    }
  }

  /* Facts of MongoDB's order. Indexes refer to the order values were added. */
  check(cmpIdx(5, 10)==0, "int32 1 == int64 1");
  check(cmpIdx(5, 20)==0, "int32 1 == double 1.0");
  check(cmpIdx(5, 37)==0 && cmpIdx(5, 38)==0, "1 == decimal 1 == decimal 1.0");
  check(cmpIdx(4, 18)==0 && cmpIdx(18, 19)==0, "0 == -0.0 == 0.0");
  check(cmpIdx(13, 25)>0, "int64 2^53+1 > double 2^53");
  check(cmpIdx(22, 40)!=0, "double 0.1 != decimal 0.1");
  check(cmpIdx(40, 41)==0, "decimal 0.1 == 0.10");
  check(cmpIdx(54, 22)<0 && cmpIdx(55, 22)>0, "decimals just below and above double 0.1");
  check(cmpIdx(33, 32)<0 && cmpIdx(33, 53)==0, "NaN < -Infinity; double NaN == decimal NaN");
  check(cmpIdx(0, 2)<0 && cmpIdx(2, 4)<0 && cmpIdx(1, 4)>0, "MinKey < null < numbers < MaxKey");
  check(cmpIdx(3, 2)<0, "undefined < null");
  check(cmpIdx(63, 64)==0, "string ab == symbol ab");
  check(cmpIdx(47, 28)>0, "decimal 1E+400 > double 1e300");
  check(cmpIdx(48, 32)>0 && cmpIdx(48, 29)<0, "-Infinity < decimal -1E+400 < -1e300");
  check(cmpIdx(15, 45)==0 && cmpIdx(46, 15)>0 && cmpIdx(46, 26)==0,
        "int64 max == decimal; 2^63 decimal == double 2^63 > int64 max");

  testSort();
  for(i=0; i<nVal; i++) docextBufFree(&aVal[i]);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
