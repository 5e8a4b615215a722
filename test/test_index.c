/*
** test_index.c — docextIndexKeys(): the keys one document gives one index.
**
** Each case names a key pattern (with sparse / partialFilterExpression),
** a document, and the expected keys as a JSON array of arrays, one inner
** array per key holding each field's value (null for missing,
** {"$undefined": true} for an empty array). The expected keys are encoded
** here with docextKeyAppend (descending fields inverted) and compared, as
** a sorted set, with what docextIndexKeys produced. Cases follow MongoDB's
** key generator: multikey, arrays of documents through dotted paths,
** parallel arrays, sparse, partial. Then hashed fields: equal numbers hash
** equal across int32/int64/double/decimal128 (doubles truncated), the hash
** is FNV-1a-64 of the normalized value's key, arrays are refused.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include "oomfail.h"

static int nPass = 0, nFail = 0;

static void check(int bOk, const char *zWhat, const char *zDetail){
  if( bOk ){
    nPass++;
  }else{
    nFail++;
    printf("FAIL: %s%s%s\n", zWhat, zDetail ? ": " : "", zDetail ? zDetail : "");
  }
}

/* Parse text into a document held in p (which the caller frees). */
static const u8 *parseDoc(const char *z, DocBuf *p){
  int nUsed = 0;
  char *zErr = 0;
  memset(p, 0, sizeof(*p));
  if( docextJsonParse(z, (int)strlen(z), 1, p, &nUsed, &zErr)!=SQLITE_OK ){
    printf("cannot parse %s: %s\n", z, zErr);
    sqlite3_free(zErr);
    exit(1);
  }
  return p->a;
}

/* A DocIndex built by hand from a key pattern. */
typedef struct TestIndex TestIndex;
struct TestIndex {
  DocIndex idx;
  DocBuf pattern, partial;
  char *azPath[32];
  int aDir[32];
};

static void indexInit(TestIndex *t, const char *zPattern, int bSparse, const char *zPartial){
  DocIter it;
  memset(t, 0, sizeof(*t));
  parseDoc(zPattern, &t->pattern);
  t->idx.zName = (char*)"test";
  t->idx.aKeys = t->pattern.a;
  t->idx.azPath = t->azPath;
  t->idx.aDir = t->aDir;
  t->idx.bSparse = bSparse;
  t->idx.nExpireAfter = -1;
  docextIterInit(&it, t->pattern.a);
  while( docextIterNext(&it) ){
    int n = t->idx.nField++;
    t->azPath[n] = (char*)it.zKey;
    if( it.v.type==DOC_STRING ){
      t->aDir[n] = 0;
      t->idx.bHashed = 1;
    }else{
      t->aDir[n] = docextValueToDouble(&it.v)<0 ? -1 : 1;
    }
  }
  if( zPartial ){
    char *zErr = 0;
    t->idx.aPartial = (u8*)parseDoc(zPartial, &t->partial);
    if( docextMatcherNew(t->idx.aPartial, 0, 0, &t->idx.pPartial, &zErr)!=SQLITE_OK ){
      printf("bad partial filter %s: %s\n", zPartial, zErr);
      exit(1);
    }
  }
}

static void indexFree(TestIndex *t){
  docextMatcherFree(t->idx.pPartial);
  docextBufFree(&t->pattern);
  docextBufFree(&t->partial);
}

static int cmpBlob(const u8 *a, int na, const u8 *b, int nb){
  int c = memcmp(a, b, na<nb ? na : nb);
  return c ? c : na-nb;
}

/* The expected keys: zExpect is a JSON array of arrays of values. */
static int expectedKeys(TestIndex *t, const char *zExpect, DocBuf *pKeys, int *aOff, int nMax){
  DocBuf val;
  DocIter outer, inner, top;
  int nUsed = 0, n = 0, rc = SQLITE_OK;
  char *zErr = 0;
  memset(&val, 0, sizeof(val));
  if( docextJsonParseValue(zExpect, (int)strlen(zExpect), &val, &nUsed, &zErr) ){
    printf("cannot parse %s: %s\n", zExpect, zErr);
    exit(1);
  }
  docextIterInit(&top, val.a);
  docextIterNext(&top);
  docextIterInitValue(&outer, &top.v);
  while( docextIterNext(&outer) && n<nMax ){
    int i = 0;
    aOff[n++] = (int)pKeys->n;
    docextIterInitValue(&inner, &outer.v);
    while( docextIterNext(&inner) ){
      docextKeyAppend(&rc, pKeys, &inner.v, t->aDir[i]<0);
      i++;
    }
  }
  aOff[n] = (int)pKeys->n;
  /* sort (insertion sort by offsets: small) */
  {
    int i, j;
    for(i=1; i<n; i++){
      for(j=i; j>0; j--){
        int a0 = aOff[j-1], a1 = aOff[j], b1 = aOff[j+1];
        int na = a1-a0, nb = b1-a1;
        if( cmpBlob(&pKeys->a[a0], na, &pKeys->a[a1], nb)<=0 ) break;
        {
          /* swap the two adjacent keys in place */
          u8 tmp[512];
          memcpy(tmp, &pKeys->a[a0], na);
          memmove(&pKeys->a[a0], &pKeys->a[a1], nb);
          memcpy(&pKeys->a[a0+nb], tmp, na);
          aOff[j] = a0+nb;
        }
      }
    }
  }
  docextBufFree(&val);
  return n;
}

static char *hexOf(const u8 *a, int n){
  static char z[4096];
  int i;
  for(i=0; i<n && i<2000; i++) sprintf(&z[i*2], "%02X", a[i]);
  z[i*2] = 0;
  return z;
}

/* One case: zExpect is the keys, or "error:<part of the message>". */
static void tk(const char *zWhat, const char *zPattern, int bSparse, const char *zPartial,
               const char *zDoc, const char *zExpect){
  TestIndex t;
  DocBuf doc, got, exp;
  int *aOff = 0, nKey = 0, aExp[64], nExp, rc, i, bOk;
  char *zErr = 0;
  char zDetail[8192];
  indexInit(&t, zPattern, bSparse, zPartial);
  parseDoc(zDoc, &doc);
  memset(&got, 0, sizeof(got));
  memset(&exp, 0, sizeof(exp));
  rc = docextIndexKeys(&t.idx, doc.a, &got, &aOff, &nKey, &zErr);
  if( strncmp(zExpect, "error:", 6)==0 ){
    bOk = rc!=SQLITE_OK && zErr && strstr(zErr, zExpect+6)!=0;
    snprintf(zDetail, sizeof(zDetail), "rc=%d message=%s", rc, zErr ? zErr : "(none)");
    check(bOk, zWhat, bOk ? 0 : zDetail);
  }else if( rc!=SQLITE_OK ){
    snprintf(zDetail, sizeof(zDetail), "unexpected error %s", zErr ? zErr : "");
    check(0, zWhat, zDetail);
  }else{
    nExp = expectedKeys(&t, zExpect, &exp, aExp, 60);
    bOk = nExp==nKey && aOff[nKey]==got.n;
    for(i=0; bOk && i<nKey; i++){
      bOk = cmpBlob(&got.a[aOff[i]], aOff[i+1]-aOff[i],
                    &exp.a[aExp[i]], aExp[i+1]-aExp[i])==0;
    }
    snprintf(zDetail, sizeof(zDetail), "got %d keys %s", nKey, hexOf(got.a, (int)got.n));
    snprintf(zDetail+strlen(zDetail), sizeof(zDetail)-strlen(zDetail), ", expected %d keys %s",
             nExp, hexOf(exp.a, (int)exp.n));
    check(bOk, zWhat, bOk ? 0 : zDetail);
  }
  sqlite3_free(zErr);
  sqlite3_free(aOff);
  docextBufFree(&doc);
  docextBufFree(&got);
  docextBufFree(&exp);
  indexFree(&t);
}

/* The single key of a one-field hashed index for zDoc, into pKey. */
/* The key of a hashed index {a: 'hashed'}: hashed as an older docext
** stored it (FNV-1a alone), or, while hashedKeyMixed, as it stores it now. */
static int hashedKeyMixed = 0;
static int hashedKey(const char *zDoc, DocBuf *pKey){
  TestIndex t;
  DocBuf doc;
  int *aOff = 0, nKey = 0, rc;
  char *zErr = 0;
  indexInit(&t, "{a: 'hashed'}", 0, 0);
  t.idx.bHashMix = hashedKeyMixed;
  parseDoc(zDoc, &doc);
  docextBufReset(pKey);
  rc = docextIndexKeys(&t.idx, doc.a, pKey, &aOff, &nKey, &zErr);
  if( rc==SQLITE_OK && nKey!=1 ) rc = SQLITE_ERROR;
  sqlite3_free(zErr);
  sqlite3_free(aOff);
  docextBufFree(&doc);
  indexFree(&t);
  return rc;
}

static int sameHash(const char *zA, const char *zB){
  DocBuf a, b;
  int bSame;
  memset(&a, 0, sizeof(a));
  memset(&b, 0, sizeof(b));
  bSame = hashedKey(zA, &a)==SQLITE_OK && hashedKey(zB, &b)==SQLITE_OK
       && a.n==b.n && memcmp(a.a, b.a, a.n)==0;
  docextBufFree(&a);
  docextBufFree(&b);
  return bSame;
}

/* FNV-1a-64 of docextKeyAppend(v), as the key of an int64: computed here
** independently of docext_index.c. */
static void fnvKey(const DocValue *v, DocBuf *pOut){
  DocBuf k;
  u64 h = 0xcbf29ce484222325ULL;
  u8 a8[8];
  DocValue hv;
  int rc = SQLITE_OK, i;
  memset(&k, 0, sizeof(k));
  docextKeyAppend(&rc, &k, v, 0);
  for(i=0; i<k.n; i++){ h ^= k.a[i]; h *= 0x100000001b3ULL; }
  for(i=0; i<8; i++) a8[i] = (u8)(h >> (8*i));
  hv.type = DOC_INT64; hv.p = a8; hv.n = 8;
  docextBufReset(pOut);
  docextKeyAppend(&rc, pOut, &hv, 0);
  docextBufFree(&k);
}

static void testHashed(void){
  DocBuf got, want;
  u8 a8[8] = {1,0,0,0,0,0,0,0};
  DocValue one;
  static const char *azOne[] = {
    "{a: 1}", "{a: NumberLong(1)}", "{a: 1.0}", "{a: 1.9}", "{a: 1.0000001}",
    "{a: NumberDecimal('1')}", "{a: NumberDecimal('1.00')}", "{a: NumberDecimal('1.5')}",
  };
  size_t i;
  for(i=1; i<sizeof(azOne)/sizeof(azOne[0]); i++){
    char z[128];
    snprintf(z, sizeof(z), "hashed: %s hashes as {a: 1}", azOne[i]);
    check(sameHash(azOne[0], azOne[i]), z, 0);
  }
  check(sameHash("{a: -1.5}", "{a: -1}"), "hashed: -1.5 truncates to -1", 0);
  check(sameHash("{a: 0.5}", "{a: 0}"), "hashed: 0.5 truncates to 0", 0);
  check(sameHash("{a: -0.0}", "{a: 0}"), "hashed: -0.0 is 0", 0);
  check(sameHash("{a: NumberLong('9223372036854775807')}", "{a: 1e300}"),
        "hashed: huge doubles clamp to the largest int64", 0);
  check(!sameHash("{a: 1}", "{a: 2}"), "hashed: 1 and 2 differ", 0);
  check(!sameHash("{a: 1}", "{a: '1'}"), "hashed: 1 and '1' differ", 0);
  check(!sameHash("{a: NumberLong('9007199254740993')}", "{a: NumberLong('9007199254740992')}"),
        "hashed: int64 beyond 2^53 stay distinct", 0);
  check(sameHash("{b: 1}", "{a: null}"), "hashed: missing hashes as null", 0);
  check(sameHash("{a: {x: 1, y: [1, 2]}}", "{a: {x: 1.0, y: [NumberLong(1), 2]}}"),
        "hashed: equal documents hash equal", 0);

  memset(&got, 0, sizeof(got));
  memset(&want, 0, sizeof(want));
  one.type = DOC_INT64; one.p = a8; one.n = 8;
  fnvKey(&one, &want);
  check(hashedKey("{a: 1.25}", &got)==SQLITE_OK && got.n==want.n
        && memcmp(got.a, want.a, got.n)==0, "hashed: FNV-1a-64 of the int64 key", 0);
  /* The stored format: this exact value must never change. */
  {
    char zHex[64];
    DocValue s;
    u8 aStr[] = { 4,0,0,0, 'a','b','c',0 };
    s.type = DOC_STRING; s.p = aStr; s.n = 8;
    fnvKey(&s, &want);
    hashedKey("{a: 'abc'}", &got);
    snprintf(zHex, sizeof(zHex), "%s", hexOf(got.a, (int)got.n));
    check(got.n==want.n && memcmp(got.a, want.a, got.n)==0, "hashed: string key", zHex);
  }
  /* Pinned: the stored format must never change (a different hash would
  ** make every existing hashed index wrong). */
  hashedKey("{a: 1}", &got);
  check(strcmp(hexOf(got.a, (int)got.n),
               "1E01C392FDD549DFE1A70180114532321A4874A9494800")==0,
        "hashed: pinned key of 1", hexOf(got.a, (int)got.n));
  hashedKey("{a: 'abc'}", &got);
  check(strcmp(hexOf(got.a, (int)got.n),
               "1E013C2CB875ACCBAAD7017FED99985CAAEEDC6EE6E57F")==0,
        "hashed: pinned key of 'abc'", hexOf(got.a, (int)got.n));
  /* The same, as every hashed index docext creates now stores it: mixed
  ** by MurmurHash3's finalizer (hashMix in the spec). */
  hashedKeyMixed = 1;
  hashedKey("{a: 1}", &got);
  check(strcmp(hexOf(got.a, (int)got.n),
               "1E013C35674A344E2413017FEDB6BC58BE996C8CC5D55F")==0,
        "hashed: pinned mixed key of 1", hexOf(got.a, (int)got.n));
  hashedKey("{a: 'abc'}", &got);
  check(strcmp(hexOf(got.a, (int)got.n),
               "1E01C3DD13B5503253180180129491981541925A322A20")==0,
        "hashed: pinned mixed key of 'abc'", hexOf(got.a, (int)got.n));
  hashedKeyMixed = 0;
  docextBufFree(&got);
  docextBufFree(&want);

  tk("hashed: arrays refused", "{a: 'hashed'}", 0, 0, "{a: [1, 2]}",
     "error:hashed indexes do not support array values");
  tk("hashed: an empty array refused", "{a: 'hashed'}", 0, 0, "{a: []}",
     "error:hashed indexes do not support array values");
  tk("hashed: arrays through a path refused", "{'a.b': 'hashed'}", 0, 0, "{a: [{b: 1}]}",
     "error:hashed indexes do not support array values");
  tk("hashed: sparse skips missing", "{a: 'hashed'}", 1, 0, "{b: 1}", "[]");
}

/*
** Out-of-memory: fail allocation N (once) for N = 1, 2, ... until a call
** runs without reaching N. Each run gives the reference keys or
** SQLITE_NOMEM: never another error, a crash or (under ASan) a leak.
*/

static void tOom(const char *zWhat, const char *zPattern, const char *zPartial, const char *zDoc){
  TestIndex t;
  DocBuf doc, ref, got;
  int *aOff = 0, nKey = 0, nRef, iFail, rc, nBad = 0, nRuns = 0;
  char *zErr = 0;
  indexInit(&t, zPattern, 0, zPartial);
  parseDoc(zDoc, &doc);
  memset(&ref, 0, sizeof(ref));
  rc = docextIndexKeys(&t.idx, doc.a, &ref, &aOff, &nRef, &zErr);
  sqlite3_free(aOff);
  aOff = 0;
  if( rc!=SQLITE_OK ){
    check(0, zWhat, "reference failed");
  }
  for(iFail=1; rc==SQLITE_OK && iFail<10000; iFail++){
    int rc2;
    memset(&got, 0, sizeof(got));
    bFailed = 0;
    nFailAt = iFail;
    rc2 = docextIndexKeys(&t.idx, doc.a, &got, &aOff, &nKey, &zErr);
    nFailAt = 0;
    nRuns++;
    if( rc2==SQLITE_OK ){
      if( nKey!=nRef || got.n!=ref.n || memcmp(got.a, ref.a, got.n) ) nBad++;
    }else if( rc2!=SQLITE_NOMEM || !bFailed ){
      nBad++;
    }
    sqlite3_free(zErr);
    zErr = 0;
    sqlite3_free(aOff);
    aOff = 0;
    docextBufFree(&got);
    if( !bFailed ) break;
  }
  {
    char z[64];
    snprintf(z, sizeof(z), "%d bad of %d runs", nBad, nRuns);
    check(nBad==0 && nRuns>1, zWhat, nBad ? z : 0);
  }
  docextBufFree(&ref);
  docextBufFree(&doc);
  indexFree(&t);
}

int main(void){
  installOom();
  /* Plain and multikey. */
  tk("scalar", "{a: 1}", 0, 0, "{a: 5}", "[[5]]");
  tk("missing is null", "{a: 1}", 0, 0, "{b: 1}", "[[null]]");
  tk("explicit null", "{a: 1}", 0, 0, "{a: null}", "[[null]]");
  tk("array: one key per element", "{a: 1}", 0, 0, "{a: [1, 2, 3]}", "[[1],[2],[3]]");
  tk("array: distinct elements", "{a: 1}", 0, 0, "{a: [0, NumberInt(0), NumberLong(0), 0.0]}", "[[0]]");
  tk("array: duplicates", "{a: 1}", 0, 0, "{a: [3, 1, 3, 2, 1]}", "[[1],[2],[3]]");
  tk("empty array is undefined", "{a: 1}", 0, 0, "{a: []}", "[[{\"$undefined\": true}]]");
  tk("nested arrays are indexed whole", "{a: 1}", 0, 0, "{a: [[2], 3]}", "[[[2]],[3]]");
  tk("compound with array first", "{a: 1, b: 1}", 0, 0, "{a: [1, 2, 3], b: 2}", "[[1,2],[2,2],[3,2]]");
  tk("compound with array second", "{first: 1, a: 1}", 0, 0, "{first: 5, a: [1, 2]}", "[[5,1],[5,2]]");
  tk("compound missing", "{x: 1, y: 1}", 0, 0, "{x: 'a'}", "[['a',null]]");
  tk("descending", "{a: -1}", 0, 0, "{a: 5}", "[[5]]");
  tk("descending multikey", "{a: 1, b: -1}", 0, 0, "{a: 1, b: [7, 8]}", "[[1,7],[1,8]]");
  tk("second-level array", "{'a.b': 1}", 0, 0, "{a: {b: [1, 2, 3]}}", "[[1],[2],[3]]");
  tk("array of documents", "{'reviews.user': 1}", 0, 0,
     "{reviews: [{user: 'ann', s: 4}, {user: 'bob'}, {user: 'ann'}]}", "[['ann'],['bob']]");
  tk("array of documents, one missing", "{'a.b': 1}", 0, 0, "{a: [{foo: 41}, {b: 1}, {b: 2}]}",
     "[[null],[1],[2]]");
  tk("array of documents, all missing", "{'a.b': 1}", 0, 0, "{a: [{foo: 41}, {foo: 42}]}", "[[null]]");
  tk("scalars under a dotted path", "{'a.b': 1}", 0, 0, "{a: [1, 2]}", "[[null]]");
  tk("empty array under a dotted path", "{'a.b': 1}", 0, 0, "{a: []}", "[[null]]");
  tk("a and a.b on an empty array", "{a: 1, 'a.b': 1}", 0, 0, "{a: []}",
     "[[{\"$undefined\": true}, null]]");
  tk("a and a.b share the element", "{a: 1, 'a.b': 1}", 0, 0, "{a: [{b: 1}]}", "[[{b: 1}, 1]]");
  tk("a.b and a.c share the element", "{'a.b': 1, 'a.c': 1}", 0, 0, "{a: [{b: 1}, {c: 2}]}",
     "[[null,2],[1,null]]");
  tk("arrays inside array elements", "{'a.b': 1}", 0, 0, "{a: [{b: [1, 2]}, {b: [2, 3]}]}",
     "[[1],[2],[3]]");
  tk("arrays in sequence are not parallel", "{'a.b.c': 1}", 0, 0,
     "{a: [1, 2, {b: {c: [3, 4]}}]}", "[[null],[3],[4]]");
  tk("compound arrays in sequence", "{'a.b.c': 1, 'a.b.d': 1}", 0, 0,
     "{a: [1, 2, {b: {c: [3, 4], d: 5}}]}", "[[null,null],[3,5],[4,5]]");
  tk("array of arrays under a path", "{'a.b': 1}", 0, 0, "{a: [[1, 2, 5]]}", "[[null]]");
  tk("positional component", "{'a.0': 1}", 0, 0, "{a: [1, 9]}", "[[1]]");
  tk("positional component, nested array whole", "{'a.0': 1}", 0, 0, "{a: [[1]]}", "[[[1]]]");
  tk("positional then field", "{'a.0.b': 1}", 0, 0, "{a: [{b: [1]}]}", "[[1]]");
  tk("positional past the end", "{'a.2': 1}", 0, 0, "{a: [1]}", "[[null]]");
  tk("document value", "{a: 1}", 0, 0, "{a: {x: 1, y: [1]}}", "[[{x: 1, y: [1]}]]");

  /* Parallel arrays. */
  tk("parallel arrays", "{a: 1, b: 1}", 0, 0, "{a: [1, 2], b: [1, 2]}",
     "error:cannot index parallel arrays [a] [b]");
  tk("parallel arrays, one with one element", "{a: 1, b: 1}", 0, 0, "{a: [1, 2], b: [3]}",
     "error:cannot index parallel arrays [a] [b]");
  tk("parallel empty arrays", "{a: 1, b: 1}", 0, 0, "{a: [], b: []}",
     "error:cannot index parallel arrays [a] [b]");
  tk("parallel arrays under one element", "{'a.b': 1, 'a.c': 1}", 0, 0, "{a: [{b: [1], c: [2]}]}",
     "error:cannot index parallel arrays [b] [c]");
  tk("parallel arrays in nested objects", "{'a.a': 1, 'b.a': 1}", 0, 0, "{a: {a: [1]}, b: {a: [1]}}",
     "error:cannot index parallel arrays [a] [a]");
  tk("one array is fine", "{a: 1, b: 1}", 0, 0, "{a: [1, 2], b: 3}", "[[1,3],[2,3]]");

  /* Sparse. */
  tk("sparse: missing field, no key", "{a: 1}", 1, 0, "{b: 1}", "[]");
  tk("sparse: null is present", "{a: 1}", 1, 0, "{a: null}", "[[null]]");
  tk("sparse: empty array is present", "{a: 1}", 1, 0, "{a: []}", "[[{\"$undefined\": true}]]");
  tk("sparse compound: one field is enough", "{a: 1, b: 1}", 1, 0, "{a: 1}", "[[1,null]]");
  tk("sparse compound: second field is enough", "{a: 1, b: 1}", 1, 0, "{b: 2}", "[[null,2]]");
  tk("sparse compound: none", "{a: 1, b: 1}", 1, 0, "{c: 2}", "[]");
  tk("sparse: array elements without the field", "{'a.b': 1}", 1, 0, "{a: [1, {b: 1}]}", "[[1]]");
  tk("sparse: empty array under a path", "{'a.b': 1}", 1, 0, "{a: []}", "[]");
  tk("sparse: a.b and a on an empty array", "{'a.b': 1, a: 1}", 1, 0, "{a: []}",
     "[[null, {\"$undefined\": true}]]");

  /* Partial. */
  tk("partial: excluded", "{a: 1}", 0, "{a: {$gt: 5}}", "{a: 3}", "[]");
  tk("partial: included", "{a: 1}", 0, "{a: {$gt: 5}}", "{a: 7}", "[[7]]");
  tk("partial on another field", "{a: 1}", 0, "{live: true}", "{a: [1, 2], live: true}", "[[1],[2]]");
  tk("partial on another field, excluded", "{a: 1}", 0, "{live: true}", "{a: 1}", "[]");

  /* The multikey flag and the offsets contract. */
  {
    TestIndex t;
    DocBuf doc, keys;
    int *aOff = 0, nKey = 0;
    char *zErr = 0;
    indexInit(&t, "{a: 1}", 0, 0);
    memset(&keys, 0, sizeof(keys));
    docextBufAppend(&(int){SQLITE_OK}, &keys, "xyz", 3);
    parseDoc("{a: ['p', 'q']}", &doc);
    check(docextIndexKeys(&t.idx, doc.a, &keys, &aOff, &nKey, &zErr)==SQLITE_OK
          && nKey==2 && aOff[0]==3 && aOff[2]==keys.n, "keys are appended, offsets nKey+1", 0);
    sqlite3_free(aOff);
    docextBufFree(&doc);
    docextBufFree(&keys);
    indexFree(&t);
  }

  testHashed();
  {
    TestIndex t;
    DocBuf doc, keys;
    int *aOff = 0, nKey = 0;
    char *zErr = 0;
    indexInit(&t, "{a: 1, b: 'hashed'}", 0, 0);
    memset(&keys, 0, sizeof(keys));
    parseDoc("{a: [1, 2], b: 5}", &doc);
    check(docextIndexKeys(&t.idx, doc.a, &keys, &aOff, &nKey, &zErr)==SQLITE_OK && nKey==2,
          "hashed compound: the other field may be an array", 0);
    sqlite3_free(aOff);
    docextBufFree(&doc);
    docextBufFree(&keys);
    indexFree(&t);
  }
  tOom("oom: compound multikey with a partial filter", "{'a.b': 1, c: -1}",
       "{c: {$exists: true}}",
       "{a: [{b: 'x'}, {b: ['y', 'z', 'y']}, {c: 1}, 5], c: 'long string value here'}");
  tOom("oom: hashed", "{h: 'hashed', k: 1}", 0,
       "{h: {nested: ['a', 'b', {c: 1}]}, k: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}");
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail!=0;
}
