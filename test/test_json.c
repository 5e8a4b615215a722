/*
** test_json.c — unit tests of the text parser (ext/docext_json.c).
**
** Every input is copied into a heap block of exactly its length before it is
** parsed, so an over-read past the text shows up under AddressSanitizer.
** Ends with "N passed, M failed"; the exit status is non-zero on failure.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "oomfail.h"

static int nPass = 0;
static int nFail = 0;

static void check(int bOk, const char *zWhat, const char *zText, const char *zDetail){
  if( bOk ){
    nPass++;
  }else{
    nFail++;
    printf("FAIL %s: %s%s%s\n", zWhat, zText ? zText : "",
           zDetail ? " -- " : "", zDetail ? zDetail : "");
  }
}

/* Parse n bytes of z (copied to an exact-size heap block). */
static int parseN(const char *z, int n, int bTop, int bValue, DocBuf *pOut,
                  int *pnUsed, char **pzErr){
  char *zCopy = malloc(n>0 ? n : 1);
  int rc;
  memcpy(zCopy, z, n);
  if( bValue ){
    rc = docextJsonParseValue(zCopy, n, pOut, pnUsed, pzErr);
  }else{
    rc = docextJsonParse(zCopy, n, bTop, pOut, pnUsed, pzErr);
  }
  free(zCopy);
  return rc;
}

static void toHex(const u8 *a, int n, char *zOut){
  int k;
  for(k=0; k<n; k++) sprintf(&zOut[2*k], "%02x", a[k]);
  zOut[2*n] = 0;
}

/* Expected hex without spaces, lower case. */
static void normHex(const char *z, char *zOut){
  int j = 0;
  for(; *z; z++){
    if( *z==' ' ) continue;
    zOut[j++] = (*z>='A' && *z<='F') ? (char)(*z - 'A' + 'a') : *z;
  }
  zOut[j] = 0;
}

/* Parse "{v: <zVal>}" and check the type and value bytes (hex) of v; also
** parse zVal alone with docextJsonParseValue and check the same. */
static void tVal(const char *zVal, int type, const char *zHex){
  char zText[4096];
  char zExp[4096], zGot[4096], zDetail[16384];
  int k;
  normHex(zHex, zExp);
  snprintf(zText, sizeof(zText), "{v: %s}", zVal);
  for(k=0; k<2; k++){
    DocBuf b;
    char *zErr = 0;
    int nUsed = 0;
    int rc;
    memset(&b, 0, sizeof(b));
    rc = k==0 ? parseN(zText, (int)strlen(zText), 1, 0, &b, &nUsed, &zErr)
              : parseN(zVal, (int)strlen(zVal), 0, 1, &b, &nUsed, &zErr);
    if( rc!=SQLITE_OK ){
      check(0, k ? "value" : "parse", zVal, zErr);
    }else if( docextBsonValidate(b.a, b.n, 0, 0)!=SQLITE_OK ){
      check(0, "valid BSON", zVal, 0);
    }else{
      DocIter it;
      docextIterInit(&it, b.a);
      if( !docextIterNext(&it) ){
        check(0, "has element", zVal, 0);
      }else{
        toHex(it.v.p, it.v.n, zGot);
        snprintf(zDetail, sizeof(zDetail), "type %02x value %s, expected type %02x value %s",
                 it.v.type, zGot, type, zExp);
        check(it.v.type==type && strcmp(zGot, zExp)==0
              && strcmp(it.zKey, k ? "" : "v")==0 && !docextIterNext(&it),
              k ? "value" : "parse", zVal, zDetail);
      }
    }
    sqlite3_free(zErr);
    docextBufFree(&b);
  }
}

/* Like tVal but compares an int64-sized value (date, timestamp, int64). */
static void tVal64(const char *zVal, int type, i64 v){
  u8 a[8];
  char zHex[20];
  int k;
  for(k=0; k<8; k++) a[k] = (u8)(((u64)v)>>(8*k));
  toHex(a, 8, zHex);
  tVal(zVal, type, zHex);
}

static void tValDouble(const char *zVal, double r){
  u8 a[8];
  char zHex[20];
  memcpy(a, &r, 8);   /* little-endian host assumed, as docext_buf.c checks */
  {
    DocBuf b; int rc = SQLITE_OK;
    memset(&b, 0, sizeof(b));
    docextBufAppendDouble(&rc, &b, r);
    memcpy(a, b.a, 8);
    docextBufFree(&b);
  }
  toHex(a, 8, zHex);
  tVal(zVal, DOC_DOUBLE, zHex);
}

static void tValDec(const char *zVal, const char *zDec){
  u8 a[16];
  char zHex[40];
  docextDec128FromString(zDec, (int)strlen(zDec), a);
  toHex(a, 16, zHex);
  tVal(zVal, DOC_DECIMAL128, zHex);
}

/* Parse a whole document and compare its BSON with zHex (whole document). */
static void tDoc(const char *zText, const char *zHex){
  DocBuf b;
  char *zErr = 0;
  char zExp[2048], zGot[4096], zDetail[8192];
  int rc;
  memset(&b, 0, sizeof(b));
  normHex(zHex, zExp);
  rc = parseN(zText, (int)strlen(zText), 1, 0, &b, 0, &zErr);
  if( rc!=SQLITE_OK ){
    check(0, "doc", zText, zErr);
  }else{
    toHex(b.a, (int)b.n, zGot);
    snprintf(zDetail, sizeof(zDetail), "got %s expected %s", zGot, zExp);
    check(strcmp(zGot, zExp)==0 && docextBsonValidate(b.a, b.n, 0, 0)==SQLITE_OK,
          "doc", zText, zDetail);
  }
  sqlite3_free(zErr);
  docextBufFree(&b);
}

/* The document must fail to parse with exactly message zMsg (or any
** message if zMsg is 0). */
static void tErrN(const char *zText, int n, int bValue, const char *zMsg){
  DocBuf b;
  char *zErr = 0;
  int rc;
  char zDetail[1024];
  memset(&b, 0, sizeof(b));
  b.n = 0;
  rc = parseN(zText, n, 1, bValue, &b, 0, &zErr);
  snprintf(zDetail, sizeof(zDetail), "rc=%d got \"%s\" expected \"%s\"", rc,
           zErr ? zErr : "(none)", zMsg ? zMsg : "(any)");
  check(rc!=SQLITE_OK && zErr!=0 && b.n==0
        && (zMsg==0 || strcmp(zErr, zMsg)==0), "error", zText, zDetail);
  sqlite3_free(zErr);
  docextBufFree(&b);
}
static void tErr(const char *zText, const char *zMsg){
  tErrN(zText, (int)strlen(zText), 0, zMsg);
}
/* The value {v: zVal} must fail (any message starting "docext: "). */
static void tBad(const char *zVal){
  char zText[4096];
  snprintf(zText, sizeof(zText), "{v: %s}", zVal);
  tErr(zText, 0);
}

/* Every proper prefix of zText (a complete document) must fail cleanly. */
static void tTruncations(const char *zText){
  int n = (int)strlen(zText);
  int k, nBad = 0;
  for(k=0; k<n; k++){
    DocBuf b;
    char *zErr = 0;
    int rc;
    memset(&b, 0, sizeof(b));
    rc = parseN(zText, k, 1, 0, &b, 0, &zErr);
    if( rc==SQLITE_OK || zErr==0 || strncmp(zErr, "docext: ", 8)!=0 || b.n!=0 ){
      nBad++;
      if( nBad<4 ) printf("  prefix %d of %s: rc=%d %s\n", k, zText, rc, zErr ? zErr : "");
    }
    sqlite3_free(zErr);
    docextBufFree(&b);
    /* and as a value */
    memset(&b, 0, sizeof(b));
    rc = parseN(zText, k, 0, 1, &b, 0, &zErr);
    if( rc==SQLITE_OK ) nBad++;
    sqlite3_free(zErr);
    zErr = 0;
    docextBufFree(&b);
  }
  check(nBad==0, "truncations", zText, 0);
  {
    DocBuf b;
    char *zErr = 0;
    memset(&b, 0, sizeof(b));
    check(parseN(zText, n, 1, 0, &b, 0, &zErr)==SQLITE_OK, "truncation base", zText, zErr);
    sqlite3_free(zErr);
    docextBufFree(&b);
  }
}

static void testNumbers(void){
  tVal("0", DOC_INT32, "00000000");
  tVal("-0", DOC_INT32, "00000000");
  tVal("1", DOC_INT32, "01000000");
  tVal("-1", DOC_INT32, "ffffffff");
  tVal("2147483647", DOC_INT32, "ffffff7f");
  tVal("-2147483648", DOC_INT32, "00000080");
  tVal("2147483648", DOC_INT64, "0000008000000000");
  tVal("-2147483649", DOC_INT64, "ffffff7fffffffff");
  tVal("9223372036854775807", DOC_INT64, "ffffffffffffff7f");
  tVal("-9223372036854775808", DOC_INT64, "0000000000000080");
  tValDouble("9223372036854775808", 9223372036854775808.0);
  tValDouble("-9223372036854775809", -9223372036854775809.0);
  tValDouble("123456789012345678901234567890", 123456789012345678901234567890.0);
  /* 19 digits are read without overflow checks, 20 with (jsonNumber) */
  tValDouble("9999999999999999999", 9999999999999999999.0);
  tValDouble("18446744073709551615", 18446744073709551615.0);
  tValDouble("18446744073709551616", 18446744073709551616.0);
  tValDouble("-18446744073709551617", -18446744073709551617.0);
  tValDouble("1.5", 1.5);
  tValDouble("-0.0", -0.0);
  tVal("-0.0", DOC_DOUBLE, "0000000000000080");
  tValDouble("1e2", 100.0);
  tValDouble("1E+2", 100.0);
  tValDouble("2.5e-3", 2.5e-3);
  tValDouble("1.0", 1.0);
  tValDouble("1.7976931348623157E+308", 1.7976931348623157E+308);
  tValDouble("4.9406564584124654E-324", 4.9406564584124654E-324);
  tValDouble("Infinity", INFINITY);
  tValDouble("-Infinity", -INFINITY);
  tVal("NaN", DOC_DOUBLE, "000000000000f87f");
  tValDouble("1e400", INFINITY);
  tBad("01");
  tBad("1.");
  tBad(".5");
  tBad("1e");
  tBad("1e+");
  tBad("-");
  tBad("- 1");
  tBad("+1");
  tBad("1x");
  tBad("1.2.3");
  tBad("0x10");
  tBad("-Inf");
  tBad("-NaN");
}

static void testStrings(void){
  tVal("\"\"", DOC_STRING, "01000000 00");
  tVal("\"abc\"", DOC_STRING, "04000000 616263 00");
  tVal("'abc'", DOC_STRING, "04000000 616263 00");
  tVal("'it\\'s'", DOC_STRING, "05000000 69742773 00");
  tVal("\"say \\\"hi\\\"\"", DOC_STRING, "09000000 7361792022686922 00");
  tVal("'a\"b'", DOC_STRING, "04000000 612262 00");
  tVal("\"a'b\"", DOC_STRING, "04000000 612762 00");
  tVal("\"\\\\\\/\\b\\f\\n\\r\\t\"", DOC_STRING, "08000000 5c2f080c0a0d09 00");
  tVal("\"\\u00e9\"", DOC_STRING, "03000000 c3a9 00");
  tVal("\"\\u00E9\"", DOC_STRING, "03000000 c3a9 00");
  tVal("\"\xc3\xa9\"", DOC_STRING, "03000000 c3a9 00");
  tVal("\"\\u2606\"", DOC_STRING, "04000000 e29886 00");
  tVal("\"\\ud83d\\ude00\"", DOC_STRING, "05000000 f09f9880 00");
  tVal("\"\xf0\x9f\x98\x80\"", DOC_STRING, "05000000 f09f9880 00");
  tVal("\"a\\u0000b\"", DOC_STRING, "04000000 610062 00");
  tBad("\"\\ud83d\"");
  tBad("\"\\ud83dx\"");
  tBad("\"\\ud83d\\u0041\"");
  tBad("\"\\ude00\"");
  tBad("\"\\u12\"");
  tBad("\"\\u12g4\"");
  tBad("\"\\x41\"");
  tBad("\"\\q\"");
  tBad("\"a\nb\"");
  tBad("\"a\tb\"");
  tBad("\"\xc3\"");
  tBad("\"\xc3\x28\"");
  tBad("\"\xc0\xaf\"");             /* overlong */
  tBad("\"\xe0\x80\xaf\"");         /* overlong */
  tBad("\"\xed\xa0\x80\"");         /* encoded surrogate */
  tBad("\"\xf4\x90\x80\x80\"");     /* above U+10FFFF */
  tBad("\"\xff\"");
  tBad("\"abc");
  tBad("'abc\"");
}

static void testShell(void){
  /* ObjectId */
  tVal("ObjectId(\"56e1fc72e0c917e9c4714161\")", DOC_OID, "56e1fc72e0c917e9c4714161");
  tVal("ObjectID('56E1FC72E0C917E9C4714161')", DOC_OID, "56e1fc72e0c917e9c4714161");
  tVal("new ObjectId( \"56e1fc72e0c917e9c4714161\" )", DOC_OID, "56e1fc72e0c917e9c4714161");
  tVal("{\"$oid\": \"56e1fc72e0c917e9c4714161\"}", DOC_OID, "56e1fc72e0c917e9c4714161");
  tVal("{$oid: '56e1fc72e0c917e9c4714161'}", DOC_OID, "56e1fc72e0c917e9c4714161");
  tBad("ObjectId(\"56e1fc72e0c917e9c471416\")");
  tBad("ObjectId(\"56e1fc72e0c917e9c471416g\")");
  tBad("ObjectId(42)");
  tBad("ObjectId(\"56e1fc72e0c917e9c4714161\", 1)");
  tBad("ObjectId(");
  tBad("ObjectId");
  {
    /* ObjectId() is a new id: time part from the (frozen) clock. */
    DocBuf b; char *zErr = 0; DocIter it;
    const char *z = "{_id: ObjectId(), t: new Date(), u: ISODate(), w: Date()}";
    memset(&b, 0, sizeof(b));
    docextClockSet(1, 1349903647096LL);
    if( parseN(z, (int)strlen(z), 1, 0, &b, 0, &zErr)==SQLITE_OK ){
      int bOk = 1, k = 0;
      docextIterInit(&it, b.a);
      while( docextIterNext(&it) ){
        if( k==0 ){
          bOk &= it.v.type==DOC_OID && it.v.p[0]==0x50 && it.v.p[1]==0x75
              && it.v.p[2]==0xe5 && it.v.p[3]==0x1f;   /* 1349903647 */
        }else{
          bOk &= it.v.type==DOC_DATE && docextValueI64(&it.v)==1349903647096LL;
        }
        k++;
      }
      check(bOk && k==4, "now", z, 0);
    }else{
      check(0, "now", z, zErr);
    }
    docextClockSet(0, 0);
    sqlite3_free(zErr);
    docextBufFree(&b);
  }

  /* Dates */
  tVal64("ISODate(\"2012-10-10T21:14:07.096Z\")", DOC_DATE, 1349903647096LL);
  tVal64("new Date(\"2012-10-10T21:14:07.096Z\")", DOC_DATE, 1349903647096LL);
  tVal64("new Date('1970-01-01')", DOC_DATE, 0);
  tVal64("new Date(1349903647096)", DOC_DATE, 1349903647096LL);
  tVal64("new Date(-1)", DOC_DATE, -1);
  tVal64("Date(0)", DOC_DATE, 0);
  tVal64("{\"$date\": \"2012-10-10T21:14:07.096Z\"}", DOC_DATE, 1349903647096LL);
  tVal64("{\"$date\": {\"$numberLong\": \"-284643869501\"}}", DOC_DATE, -284643869501LL);
  tVal64("{\"$date\": 1349903647096}", DOC_DATE, 1349903647096LL);
  tBad("ISODate(\"not a date\")");
  tBad("ISODate(\"2012-13-10\")");
  tBad("{\"$date\": \"yesterday\"}");
  tBad("{\"$date\": true}");
  tBad("{\"$date\": 1.5}");
  tBad("{\"$date\": {\"$numberLong\": \"1\"}, x: 1}");
  tBad("new Date(\"x\")");
  tBad("new Date");
  tBad("new");

  /* Integers and decimals */
  tVal("NumberInt(5)", DOC_INT32, "05000000");
  tVal("NumberInt(\"-5\")", DOC_INT32, "fbffffff");
  tVal("NumberInt(2147483647)", DOC_INT32, "ffffff7f");
  tBad("NumberInt(2147483648)");
  tBad("NumberInt(1.5)");
  tBad("NumberInt(\"x\")");
  tVal("NumberLong(5)", DOC_INT64, "0500000000000000");
  tVal("NumberLong(\"9223372036854775807\")", DOC_INT64, "ffffffffffffff7f");
  tVal("NumberLong('-9223372036854775808')", DOC_INT64, "0000000000000080");
  tVal("NumberLong(-9223372036854775808)", DOC_INT64, "0000000000000080");
  tBad("NumberLong(\"9223372036854775808\")");
  tBad("NumberLong(\"\")");
  tBad("NumberLong(\"1 \")");
  tVal("{\"$numberInt\": \"42\"}", DOC_INT32, "2a000000");
  tVal("{\"$numberInt\": \"-2147483648\"}", DOC_INT32, "00000080");
  tBad("{\"$numberInt\": \"2147483648\"}");
  tBad("{\"$numberInt\": \"4.2\"}");
  tBad("{\"$numberInt\": 42}");
  tVal("{\"$numberLong\": \"42\"}", DOC_INT64, "2a00000000000000");
  tBad("{\"$numberLong\": \"9223372036854775808\"}");
  tValDouble("{\"$numberDouble\": \"1.5\"}", 1.5);
  tValDouble("{\"$numberDouble\": \"-0.0\"}", -0.0);
  tValDouble("{\"$numberDouble\": \"1.2345678921232E+18\"}", 1.2345678921232E+18);
  tValDouble("{\"$numberDouble\": \"Infinity\"}", INFINITY);
  tValDouble("{\"$numberDouble\": \"-Infinity\"}", -INFINITY);
  tVal("{\"$numberDouble\": \"NaN\"}", DOC_DOUBLE, "000000000000f87f");
  tBad("{\"$numberDouble\": \"inf\"}");
  tBad("{\"$numberDouble\": \"0x10\"}");
  tBad("{\"$numberDouble\": \"\"}");
  tBad("{\"$numberDouble\": 1.5}");
  tValDec("NumberDecimal(\"1.5\")", "1.5");
  tValDec("NumberDecimal('-0.00')", "-0.00");
  tValDec("NumberDecimal(\"Infinity\")", "Infinity");
  tValDec("NumberDecimal(12.25)", "12.25");
  tValDec("{\"$numberDecimal\": \"1E+3\"}", "1E+3");
  tBad("NumberDecimal(\"abc\")");
  tBad("{\"$numberDecimal\": \"1.2.3\"}");
  tBad("{\"$numberDecimal\": 1}");

  /* Timestamps */
  tVal64("Timestamp(1, 2)", DOC_TIMESTAMP, (1LL<<32) | 2);
  tVal64("Timestamp(4294967295, 4294967295)", DOC_TIMESTAMP, -1);
  tVal64("{$timestamp: {t: 123456789, i: 42}}", DOC_TIMESTAMP, (123456789LL<<32) | 42);
  tVal64("{$timestamp: {i: 42, t: 123456789}}", DOC_TIMESTAMP, (123456789LL<<32) | 42);
  tBad("Timestamp(1)");
  tBad("Timestamp(-1, 0)");
  tBad("Timestamp(4294967296, 0)");
  tBad("Timestamp(1, 2, 3)");
  tBad("{$timestamp: {t: \"1\", i: 2}}");
  tBad("{$timestamp: {t: 1}}");
  tBad("{$timestamp: {t: 1, i: 2, x: 3}}");
  tBad("{$timestamp: 5}");

  /* Binary */
  tVal("BinData(0, \"//8=\")", DOC_BINARY, "02000000 00 ffff");
  tVal("BinData(128, '')", DOC_BINARY, "00000000 80");
  tVal("BinData(2, \"//8=\")", DOC_BINARY, "06000000 02 02000000 ffff");
  tVal("BinData(4, \"c//SZESzTGmQ6OfR38A11A==\")", DOC_BINARY,
       "10000000 04 73ffd26444b34c6990e8e7d1dfc035d4");
  tVal("UUID(\"73ffd264-44b3-4c69-90e8-e7d1dfc035d4\")", DOC_BINARY,
       "10000000 04 73ffd26444b34c6990e8e7d1dfc035d4");
  tVal("UUID('73FFD26444B34C6990E8E7D1DFC035D4')", DOC_BINARY,
       "10000000 04 73ffd26444b34c6990e8e7d1dfc035d4");
  tVal("{$uuid: \"73ffd264-44b3-4c69-90e8-e7d1dfc035d4\"}", DOC_BINARY,
       "10000000 04 73ffd26444b34c6990e8e7d1dfc035d4");
  tVal("{\"$binary\": {\"base64\": \"//8=\", \"subType\": \"80\"}}", DOC_BINARY, "02000000 80 ffff");
  tVal("{\"$binary\": {\"subType\": \"2\", \"base64\": \"AQID\"}}", DOC_BINARY,
       "07000000 02 03000000 010203");
  tVal("{\"$binary\": \"AQ==\", \"$type\": \"0\"}", DOC_BINARY, "01000000 00 01");
  tVal("{\"$type\": \"00\", \"$binary\": \"AQ==\"}", DOC_BINARY, "01000000 00 01");
  tBad("BinData(0, \"//8\")");
  tBad("BinData(0, \"/=8=\")");
  tBad("BinData(0, \"//8=AAAA\")");
  tBad("BinData(256, \"\")");
  tBad("BinData(\"0\", \"\")");
  tBad("UUID(\"73ffd264-44b3-4c69-90e8-e7d1dfc035d\")");
  tBad("UUID(\"73ff-d26444b-34c6-990e8e-7d1dfc035d4\")");
  tBad("{\"$binary\": {\"base64\": \"//8=\"}}");
  tBad("{\"$binary\": {\"base64\": \"//8=\", \"subType\": \"100\"}}");
  tBad("{\"$binary\": {\"base64\": \"//8=\", \"subType\": \"zz\"}}");
  tBad("{\"$binary\": \"//8=\"}");
  tBad("{\"$uuid\": 5}");

  /* mongosh's spellings */
  tVal("Int32(5)", DOC_INT32, "05000000");
  tVal("Long(\"5\")", DOC_INT64, "0500000000000000");
  tValDec("Decimal128(\"1.5\")", "1.5");
  tValDouble("Double(1)", 1.0);
  tValDouble("Double(\"2.5\")", 2.5);
  tValDouble("Double(-0.5)", -0.5);
  tVal64("Timestamp({ t: 1412180887, i: 1 })", DOC_TIMESTAMP, (1412180887LL<<32) | 1);
  tVal64("Timestamp({i: 2, t: 1,})", DOC_TIMESTAMP, (1LL<<32) | 2);
  tVal("Binary.createFromBase64(\"//8=\", 0)", DOC_BINARY, "02000000 00 ffff");
  tVal("Binary.createFromBase64('AQ==')", DOC_BINARY, "01000000 00 01");
  tVal("HexData(5, \"00ff\")", DOC_BINARY, "02000000 05 00ff");
  tBad("Timestamp({t: 1})");
  tBad("Timestamp({t: 1, i: 2}, 3)");
  tBad("Timestamp({t: -1, i: 2})");
  tBad("Double(\"x\")");
  tBad("Double()");
  tBad("HexData(0, \"0\")");
  tBad("HexData(0, \"zz\")");
  tBad("Binary.createFromBase64(\"//8\")");
  tBad("Binary.foo(\"//8=\")");
  tBad("Binary(\"//8=\")");
  {
    /* a payload larger than the scratch buffer's first allocation */
    char zB64[1200], zVal[1300], zExp[2400];
    int k;
    for(k=0; k<1000; k++) zB64[k] = 'A';
    zB64[1000] = 0;
    snprintf(zVal, sizeof(zVal), "BinData(0, \"%s\")", zB64);
    sprintf(zExp, "ee020000 00");
    for(k=0; k<750; k++) strcat(zExp, "00");
    tVal(zVal, DOC_BINARY, zExp);
    snprintf(zVal, sizeof(zVal), "Binary.createFromBase64(\"%s\")", zB64);
    tVal(zVal, DOC_BINARY, zExp);
    for(k=0; k<1000; k++) zB64[k] = '0';
    snprintf(zVal, sizeof(zVal), "HexData(0, \"%s\")", zB64);
    sprintf(zExp, "f4010000 00");
    for(k=0; k<500; k++) strcat(zExp, "00");
    tVal(zVal, DOC_BINARY, zExp);
  }

  /* MinKey, MaxKey and the literals */
  tVal("MinKey", DOC_MINKEY, "");
  tVal("MinKey()", DOC_MINKEY, "");
  tVal("MaxKey", DOC_MAXKEY, "");
  tVal("MaxKey ( )", DOC_MAXKEY, "");
  tVal("{\"$minKey\": 1}", DOC_MINKEY, "");
  tVal("{\"$maxKey\": 1}", DOC_MAXKEY, "");
  tBad("{\"$maxKey\": 0}");
  tBad("{\"$minKey\": true}");
  tVal("true", DOC_BOOL, "01");
  tVal("false", DOC_BOOL, "00");
  tVal("null", DOC_NULL, "");
  tVal("undefined", DOC_UNDEFINED, "");
  tVal("{\"$undefined\": true}", DOC_UNDEFINED, "");
  tBad("{\"$undefined\": false}");
  tBad("True");
  tBad("nul");
  tBad("Foo(1)");

  /* Regular expressions */
  tVal("/ab+c/", DOC_REGEX, "61622b6300 00");
  tVal("/ab+c/mi", DOC_REGEX, "61622b6300 696d00");
  tVal("/a\\/b[/]c/x", DOC_REGEX, "612f625b2f5d6300 7800");   /* \\/ reads as / */
  tVal("/a\\\\/", DOC_REGEX, "615c5c00 00");
  tVal("/\\d+/s", DOC_REGEX, "5c642b00 7300");
  tVal("{\"$regularExpression\": {\"pattern\": \"x\", \"options\": \"xi\"}}", DOC_REGEX, "7800 697800");
  tVal("{\"$regularExpression\": {\"options\": \"\", \"pattern\": \"\"}}", DOC_REGEX, "00 00");
  tVal("{$regex: \"^a\", $options: \"mi\"}", DOC_REGEX, "5e6100 696d00");
  tVal("{$options: \"i\", $regex: \"^a\"}", DOC_REGEX, "5e6100 6900");
  tVal("{$regex: \"^a\"}", DOC_REGEX, "5e6100 00");
  tBad("/abc");
  tBad("/abc\n/");
  tBad("/abc/g");
  tBad("/abc/i1");
  tBad("{\"$regularExpression\": {\"pattern\": \"b\\u0000\", \"options\": \"i\"}}");
  tBad("{\"$regularExpression\": {\"pattern\": \"b\", \"options\": \"i\\u0000\"}}");
  tBad("{\"$regex\": \"b\\u0000\"}");
  tBad("{\"$regularExpression\": {\"pattern\": \"b\"}}");

  /* Code, symbol, DBPointer */
  tVal("{\"$code\": \"x\"}", DOC_CODE, "02000000 7800");
  tVal("{\"$code\": \"x\", \"$scope\": {}}", DOC_CODEWSCOPE, "0f000000 02000000 7800 05000000 00");
  tVal("{\"$scope\": {\"a\": 1}, \"$code\": \"\"}", DOC_CODEWSCOPE,
       "15000000 01000000 00 0c000000 106100 01000000 00");
  tVal("{\"$symbol\": \"s\"}", DOC_SYMBOL, "02000000 7300");
  tVal("{\"$dbPointer\": {\"$ref\": \"c\", \"$id\": {\"$oid\": \"56e1fc72e0c917e9c4714161\"}}}",
       DOC_DBPOINTER, "02000000 6300 56e1fc72e0c917e9c4714161");
  tVal("DBPointer(\"c\", ObjectId(\"56e1fc72e0c917e9c4714161\"))", DOC_DBPOINTER,
       "02000000 6300 56e1fc72e0c917e9c4714161");
  tBad("DBPointer(\"c\")");
  tBad("DBPointer(\"c\", \"56e1fc72e0c917e9c4714161\")");
  tBad("DBPointer(\"c\", ObjectId(\"56e1fc72e0c917e9c4714161\"), 1)");
  tBad("DBPointer(1, ObjectId(\"56e1fc72e0c917e9c4714161\"))");
  /* DBRef(…): the document {$ref, $id[, $db]} */
  tVal("DBRef(\"c\", 1)", DOC_DOCUMENT,
       "1a000000 02 2472656600 02000000 6300 10 24696400 01000000 00");
  tVal("new DBRef('c', 'x', 'd',)", DOC_DOCUMENT,
       "27000000 02 2472656600 02000000 6300 02 24696400 02000000 7800"
       " 02 24646200 02000000 6400 00");
  tVal("DBRef(\"c\", {a: [true]})", DOC_DOCUMENT,
       "27000000 02 2472656600 02000000 6300 03 24696400"
       " 11000000 04 6100 09000000 08 3000 01 00 00 00");
  tBad("DBRef()");
  tBad("DBRef(\"c\")");
  tBad("DBRef(\"c\",)");
  tBad("DBRef(1, 2)");
  tBad("DBRef(\"c\", 1, 2)");
  tBad("DBRef(\"c\", 1, \"d\", 4)");
  tBad("DBRef(\"c\" 1)");
  tBad("DBRef(\"c\", 1");
  /* mongosh's Code(…), BSONSymbol(…), BSONRegExp(…) */
  tVal("Code(\"x\")", DOC_CODE, "02000000 7800");
  tVal("new Code('x', {a: 1},)", DOC_CODEWSCOPE, "16000000 02000000 7800 0c000000 1061000100000000");
  tVal("Code('', {})", DOC_CODEWSCOPE, "0e000000 01000000 00 05000000 00");
  tVal("BSONSymbol('s')", DOC_SYMBOL, "02000000 7300");
  tVal("BSONRegExp('a', 'xi')", DOC_REGEX, "6100 697800");
  tVal("new BSONRegExp('a')", DOC_REGEX, "6100 00");
  tBad("Code()");
  tBad("Code(1)");
  tBad("Code('x', 1)");
  tBad("Code('x', {$date: 1})");
  tBad("Code('x', {a: 1}, 2)");
  tBad("Code('x'");
  tBad("BSONSymbol()");
  tBad("BSONSymbol(1)");
  tBad("BSONRegExp()");
  tBad("BSONRegExp(1)");
  tBad("BSONRegExp('a', 1)");
  tBad("BSONRegExp('a\\u0000')");
  /* mongosh 1.x's Binary(Buffer.from(…)[, subtype]) */
  tVal("Binary(Buffer.from(\"01ff\", \"hex\"), 0)", DOC_BINARY, "02000000 00 01ff");
  tVal("new Binary(Buffer.from('AQID', 'base64'), 128,)", DOC_BINARY, "03000000 80 010203");
  tVal("Binary( Buffer.from( 'ab' ) )", DOC_BINARY, "02000000 00 6162");
  tVal("Binary(Buffer.from('ab', 'utf-8'), 2)", DOC_BINARY, "06000000 02 02000000 6162");
  tBad("Binary()");
  tBad("Binary('01')");
  tBad("Binary(Buffer.from())");
  tBad("Binary(Buffer.from(1))");
  tBad("Binary(Buffer.from('01', 'latin1'))");
  tBad("Binary(Buffer.from('01', 2))");
  tBad("Binary(Buffer.from('0', 'hex'))");
  tBad("Binary(Buffer.from('A', 'base64'))");
  tBad("Binary(Buffer.from('01', 'hex'), 256)");
  tBad("Binary(Buffer.from('01', 'hex'), -1)");
  tBad("Binary(Buffer.from('01', 'hex'), 1.5)");
  tBad("Binary(Buffer.from('01', 'hex'), 0, 1)");
  tBad("Binary(Buffer.from('01', 'hex')");
  tBad("Binary(Buffer.from");
  tBad("{\"$code\": 1}");
  tBad("{\"$code\": \"\", \"$scope\": 1}");
  tBad("{\"$code\": \"\", \"x\": 1}");
  tBad("{\"$symbol\": 1}");
  tBad("{\"$dbPointer\": {\"$ref\": \"c\", \"$id\": \"x\"}}");
  tBad("{\"$dbPointer\": {\"$ref\": \"c\", \"$id\": {\"$oid\": \"56e1fc72e0c917e9c4714161\"}, \"x\": 1}}");
  tBad("{\"$oid\": \"56e1fc72e0c917e9c4714161\", \"$symbol\": \"s\"}");
}

static void testDocuments(void){
  /* {a: 1} */
  tDoc("{a: 1}", "0c000000 106100 01000000 00");
  tDoc("{\"a\": 1}", "0c000000 106100 01000000 00");
  tDoc("{'a': 1}", "0c000000 106100 01000000 00");
  tDoc("  \n{a:1}\n  ", "0c000000 106100 01000000 00");
  tDoc("\xEF\xBB\xBF{a:1}", "0c000000 106100 01000000 00");
  tDoc("{a: 1,}", "0c000000 106100 01000000 00");
  tDoc("// c\n{ /* x */ a /* y */ : // z\n 1 /**/ , } // end", "0c000000 106100 01000000 00");
  tDoc("{}", "05000000 00");
  tDoc("{ }", "05000000 00");
  /* dotted and $ keys */
  tDoc("{author.first_name: 1}", "1c000000 10 617574686f722e66697273745f6e616d6500 01000000 00");
  tDoc("{$gt: 5}", "0e000000 10 24677400 05000000 00");
  tDoc("{\xc3\xa9t\xc3\xa9: 1}", "10000000 10 c3a974c3a900 01000000 00");
  /* arrays */
  tDoc("{a: [1, 'x', [],]}",
       "25000000 04 6100 1d000000 10 3000 01000000 02 3100 02000000 7800 04 3200 05000000 00 00 00");
  tDoc("{a: []}", "0d000000 04 6100 05000000 00 00");
  /* operator documents are documents, not wrappers */
  tDoc("{a: {$gt: 5}}", "16000000 03 6100 0e000000 10 24677400 05000000 00 00");
  tDoc("{a: {$in: [1]}}", "1e000000 03 6100 16000000 04 24696e00 0c000000 10 3000 01000000 00 00 00");
  tDoc("{a: {$type: \"string\"}}", "1f000000 03 6100 17000000 02 2474797065 00 07000000 737472696e6700 00 00");
  tDoc("{a: {$regex: /x/}}", "18000000 03 6100 10000000 0b 247265676578 00 7800 00 00 00");
  tDoc("{a: {$regex: 'x', $nin: [1]}}",
       "2d000000 03 6100 25000000 02 247265676578 00 02000000 7800 04 246e696e00 0c000000 10 3000 01000000 00 00 00");
  tDoc("{d: {$ref: \"c\", $id: 1}}",
       "22000000 03 6400 1a000000 02 2472656600 02000000 6300 10 24696400 01000000 00 00");
  /* the root is never a wrapper */
  tDoc("{$oid: 1}", "0f000000 10 246f696400 01000000 00");
  /* duplicate keys are kept */
  tDoc("{a: 1, a: 2}", "13000000 106100 01000000 106100 02000000 00");
}

static void testErrors(void){
  tErr("{\"ab\" 1}", "docext: expected ':' after key at line 1 column 7");
  tErr("{\n  a: Foo(1)}", "docext: unknown function Foo() at line 2 column 6");
  tErr("{a: {$oid: \"xyz\"}}", "docext: invalid $oid (need 24 hex digits) at line 1 column 12");
  tErr("{a: 1,, b: 2}", "docext: expected a key or '}' at line 1 column 7");
  tErr("{a: \"abc", "docext: unterminated string at line 1 column 5");
  tErr("{a: [1, 2}", "docext: expected ',' or ']' at line 1 column 10");
  tErr("{a: tru}", "docext: unexpected 'tru' at line 1 column 5");
  tErr("{\"a\\u0000\": 1}", "docext: NUL byte in key at line 1 column 2");
  tErrN("{\"a\0\": 1}", 9, 0, "docext: control character in string (use an escape) at line 1 column 4");
  tErr("{a: \"\\ud800\"}", "docext: invalid \\u escape (lone high surrogate) at line 1 column 6");
  tErr("{a: 1} x", "docext: unexpected text after the document at line 1 column 8");
  tErr("{a: 1} {}", "docext: unexpected text after the document at line 1 column 8");
  tErr("{a: /* x", "docext: unterminated comment at line 1 column 5");
  tErr("{a: 01}", "docext: invalid number (leading zero) at line 1 column 5");
  tErr("{a: {$numberInt: \"2147483648\"}}",
       "docext: invalid $numberInt (need a 32-bit integer as a string) at line 1 column 18");
  tErr("{a: {$oid: \"56e1fc72e0c917e9c4714161\", x: 1}}",
       "docext: unexpected field next to $oid at line 1 column 12");
  tErr("", "docext: expected a document, got empty text at line 1 column 1");
  tErr("  // only a comment\n", "docext: expected a document, got empty text at line 2 column 1");
  tErr("[1]", "docext: expected '{' to start a document at line 1 column 1");
  tErr("{a: 1", "docext: unterminated document at line 1 column 1");
  tErr("{a:\r\n\r\n  [1 2]}", "docext: expected ',' or ']' at line 3 column 6");
  tErr("{a: {b: ISODate(\"nope\")}}", "docext: invalid date (not an ISO-8601 date) at line 1 column 17");
  tErr("{a: NumberLong(1, 2)}", "docext: too many arguments to NumberLong() at line 1 column 19");
  tErr("{a: /x/q}", "docext: invalid regular expression flag 'q' at line 1 column 8");
  tErr("{a: \"x\xff\"}", "docext: invalid UTF-8 in string at line 1 column 7");
  tErr("{a\xff: 1}", "docext: invalid UTF-8 in key at line 1 column 3");
  tErr("{a: [1,,]}", "docext: unexpected ',' (expected a value) at line 1 column 8");
  tErr("{a: }", "docext: unexpected '}' (expected a value) at line 1 column 5");
  tErr("{a: #}", "docext: unexpected '#' (expected a value) at line 1 column 5");
  tErr("{,}", "docext: expected a key or '}' at line 1 column 2");
  tErr("{a: new Foo()}", "docext: unknown function Foo() at line 1 column 5");
  tErr("{a: {$date: 1.5}}",
       "docext: invalid $date (need an ISO-8601 string or {$numberLong: string}) at line 1 column 13");
  /* corpus top.json parseErrors, a few */
  tErr("{\"a\" : {\"$regularExpression\": {\"pattern\": \"abc\", \"options\": \"\", \"unrelated\": true}}}", 0);
  tErr("{\"x\" : {\"$binary\" : {\"base64\" : \"//8=\", \"subType\" : 0, \"unrelated\": true}}}", 0);
  tErr("{\"a\": {\"$dbPointer\": {\"a\": {\"$numberInt\": \"1\"}, \"$id\": {\"$oid\": \"56e1fc72e0c917e9c4714161\"}, \"c\": {\"$numberInt\": \"2\"}, \"$ref\": \"b\"}}}", 0);
  tErr("{\"a\" : {\"$timestamp\" : {\"t\" : \"123456789\", \"i\" : \"42\"}, \"unrelated\": true } }", 0);
  /* a value */
  tErrN("", 0, 1, "docext: expected a value at line 1 column 1");
  tErrN("[1, ", 4, 1, "docext: unterminated array at line 1 column 1");
}

/* bTop=0 stops after the document; ParseValue takes any value. */
static void testUsed(void){
  DocBuf b;
  char *zErr = 0;
  int nUsed = -1, rc;
  const char *z = " {a:1} \n{b:2}";
  memset(&b, 0, sizeof(b));
  rc = parseN(z, (int)strlen(z), 0, 0, &b, &nUsed, &zErr);
  check(rc==SQLITE_OK && nUsed==6 && b.n==12, "bTop=0 used", z, zErr);
  sqlite3_free(zErr); zErr = 0;
  docextBufReset(&b);
  rc = parseN(z+nUsed, (int)strlen(z+nUsed), 0, 0, &b, &nUsed, &zErr);
  check(rc==SQLITE_OK && nUsed==7 && b.n==12, "bTop=0 second", z, zErr);
  sqlite3_free(zErr); zErr = 0;
  docextBufReset(&b);
  z = "[1, 2] tail";
  rc = parseN(z, (int)strlen(z), 0, 1, &b, &nUsed, &zErr);
  check(rc==SQLITE_OK && nUsed==6, "value used", z, zErr);
  if( rc==SQLITE_OK ){
    DocIter it;
    docextIterInit(&it, b.a);
    check(docextIterNext(&it) && it.v.type==DOC_ARRAY && it.nKey==0, "value array", z, 0);
  }
  sqlite3_free(zErr); zErr = 0;
  /* appending: the parser adds to what the buffer holds, and an error
  ** leaves that intact */
  docextBufReset(&b);
  docextBufAppend(&rc, &b, "xyz", 3);
  rc = parseN("{a:1}", 5, 1, 0, &b, &nUsed, &zErr);
  check(rc==SQLITE_OK && b.n==15 && docextGetI32(b.a+3)==12, "append", "{a:1}", zErr);
  sqlite3_free(zErr); zErr = 0;
  rc = parseN("{a:", 3, 1, 0, &b, &nUsed, &zErr);
  check(rc!=SQLITE_OK && b.n==15, "append error", "{a:", zErr);
  sqlite3_free(zErr); zErr = 0;
  docextBufFree(&b);
}

/* Nesting: 100 levels below the root are fine, 101 are not. */
static void testDepth(void){
  char *z = malloc(2000);
  int k, n, e;
  for(e=0; e<4; e++){
    int nLevel = (e&1) ? 101 : 100;
    int bArr = e<2;
    n = 0;
    n += sprintf(&z[n], "{a:");
    for(k=0; k<nLevel; k++) n += sprintf(&z[n], bArr ? "[" : "{a:");
    n += sprintf(&z[n], "1");
    for(k=0; k<nLevel; k++) n += sprintf(&z[n], bArr ? "]" : "}");
    n += sprintf(&z[n], "}");
    {
      DocBuf b; char *zErr = 0;
      int rc;
      memset(&b, 0, sizeof(b));
      rc = parseN(z, n, 1, 0, &b, 0, &zErr);
      if( nLevel==100 ){
        check(rc==SQLITE_OK && docextBsonValidate(b.a, b.n, 0, 0)==SQLITE_OK,
              bArr ? "depth 100 arrays" : "depth 100 docs", 0, zErr);
      }else{
        check(rc!=SQLITE_OK && zErr && strstr(zErr, "nesting deeper than 100 levels"),
              bArr ? "depth 101 arrays" : "depth 101 docs", 0, zErr);
      }
      sqlite3_free(zErr);
      docextBufFree(&b);
    }
  }
  /* a type wrapper at the deepest level is not a level itself */
  n = sprintf(z, "{a:");
  for(k=0; k<100; k++) n += sprintf(&z[n], "[");
  n += sprintf(&z[n], "{$date: {$numberLong: \"5\"}}");
  for(k=0; k<100; k++) n += sprintf(&z[n], "]");
  n += sprintf(&z[n], "}");
  {
    DocBuf b; char *zErr = 0;
    memset(&b, 0, sizeof(b));
    check(parseN(z, n, 1, 0, &b, 0, &zErr)==SQLITE_OK, "depth 100 + wrapper", 0, zErr);
    sqlite3_free(zErr);
    docextBufFree(&b);
  }
  /* very deep input is rejected without exhausting the stack */
  free(z);
  z = malloc(200001);
  z[0] = '{'; z[1] = 'a'; z[2] = ':';
  for(k=3; k<200000; k++) z[k] = (k&1) ? '[' : '{';
  tErrN(z, 200000, 0, 0);
  memset(z, '[', 200000);
  tErrN(z, 200000, 1, 0);
  free(z);
}

static void testTruncations(void){
  tTruncations("{a: 1, b: [1.5, -2, 'x', \"y\\u00e9\\ud83d\\ude00\"], c: {d: null}}");
  tTruncations("{_id: ObjectId(\"56e1fc72e0c917e9c4714161\"), t: ISODate(\"2012-10-10T21:14:07.096Z\"),"
               " n: NumberLong(\"5\"), d: NumberDecimal('1.5'), ts: Timestamp(1, 2), b: BinData(0, \"//8=\"),"
               " u: UUID(\"73ffd264-44b3-4c69-90e8-e7d1dfc035d4\"), r: /a\\/b/i, k: MinKey, x: new Date(0)}");
  tTruncations("{\"a\": {\"$date\": {\"$numberLong\": \"1\"}}, \"b\": {\"$binary\": {\"base64\": \"//8=\", "
               "\"subType\": \"00\"}}, \"c\": {\"$regularExpression\": {\"pattern\": \"x\", \"options\": \"\"}},"
               " \"d\": {\"$code\": \"x\", \"$scope\": {\"y\": 1}}, \"e\": {\"$timestamp\": {\"t\": 1, \"i\": 2}}}");
  tTruncations("// lead\n{ /* c */ a.b: [ 1, ], $x: 'y', }");
  tTruncations("{a: Binary(Buffer.from('0a0B', 'hex'), 4), b: new Binary(Buffer.from(\"AQ==\", \"base64\"))}");
  tTruncations("{a: Code('f', {s: [1]}), b: new Code(\"g\"), c: BSONSymbol('s'), d: BSONRegExp('x', 'i')}");
  tTruncations("{a: DBRef(\"c\", {x: [1, 'y']}, 'd'), b: new DBRef('e', ObjectId(\"56e1fc72e0c917e9c4714161\"))}");
}

/* Random mutations of valid texts: any result, but never a crash, an
** invalid BSON result or a leak. */
/* The tests' pseudo-random numbers: 16 bits from a linear congruential
** generator whose state is *pSeed. */
static unsigned rnd16(unsigned int *pSeed){
  *pSeed = *pSeed*1103515245u + 12345u;
  return *pSeed>>16;
}

/* Make one to four random edits to the text z[0..n) (room for nMax
** bytes): overwrite a byte, delete one, or insert one of zInsert's.
** Returns the new length. */
static int mutate(char *z, int n, int nMax, unsigned int *pSeed, const char *zInsert){
  int m = 1 + (int)(rnd16(pSeed) % 4), j;
  for(j=0; j<m; j++){
    int pos = (int)(rnd16(pSeed) % (unsigned)n);
    int op = (int)(rnd16(pSeed) % 3);
    u8 c = (u8)rnd16(pSeed);
    if( op==0 ){
      z[pos] = (char)c;
    }else if( op==1 && n>1 ){
      memmove(&z[pos], &z[pos+1], n-pos-1); n--;
    }else if( n<nMax-1 ){
      memmove(&z[pos+1], &z[pos], n-pos); z[pos] = zInsert[c % strlen(zInsert)]; n++;
    }
  }
  return n;
}

static void testFuzz(void){
  static const char *azSeed[] = {
    "{a: 1, b: [1.5, -2, 'x', \"y\\u00e9\"], c: {d: null, $gt: 5}}",
    "{_id: ObjectId(\"56e1fc72e0c917e9c4714161\"), t: ISODate(\"2012-10-10T21:14:07Z\"), r: /a[/]b/i}",
    "{\"a\": {\"$date\": {\"$numberLong\": \"1\"}}, \"b\": {\"$binary\": {\"base64\": \"//8=\", \"subType\": \"02\"}}}",
    "{\"d\": {\"$code\": \"x\", \"$scope\": {\"y\": Timestamp(1,2)}}, u: UUID('73ffd26444b34c6990e8e7d1dfc035d4')}",
  };
  unsigned int seed = 12345;
  int k, iter, nBad = 0;
  char z[512];
  for(k=0; k<4; k++){
    int n0 = (int)strlen(azSeed[k]);
    for(iter=0; iter<3000; iter++){
      int n = n0;
      memcpy(z, azSeed[k], n0);
      n = mutate(z, n, (int)sizeof(z), &seed, "{}[]\"',:/\\$0");
      {
        DocBuf b; char *zErr = 0; int rc;
        memset(&b, 0, sizeof(b));
        rc = parseN(z, n, 1, 0, &b, 0, &zErr);
        if( rc==SQLITE_OK ){
          if( docextBsonValidate(b.a, b.n, 0, 0)!=SQLITE_OK || zErr ) nBad++;
        }else if( zErr==0 || strncmp(zErr, "docext: ", 8)!=0 ){
          nBad++;
        }
        sqlite3_free(zErr);
        docextBufFree(&b);
      }
    }
  }
  check(nBad==0, "fuzz", 0, 0);
}

/* A document over 16 MiB of BSON is an error. */
static void testTooBig(void){
  int n = 17*1024*1024;
  char *z = malloc(n);
  int k;
  DocBuf b; char *zErr = 0; int rc;
  memcpy(z, "{a: \"", 5);
  for(k=5; k<n-2; k++) z[k] = 'x';
  z[n-2] = '"'; z[n-1] = '}';
  memset(&b, 0, sizeof(b));
  rc = docextJsonParse(z, n, 1, &b, 0, &zErr);
  check(rc!=SQLITE_OK && zErr && strcmp(zErr, "docext: document larger than 16 MiB")==0
        && b.n==0, "too big", 0, zErr);
  sqlite3_free(zErr); zErr = 0;
  /* many small elements */
  z[0] = '[';
  for(k=1; k+2<n; k+=2){ z[k] = '1'; z[k+1] = ','; }
  z[k] = '1'; n = k+1;
  rc = docextJsonParseValue(z, n, &b, 0, &zErr);
  check(rc!=SQLITE_OK && zErr && strcmp(zErr, "docext: document larger than 16 MiB")==0,
        "too big array", 0, zErr);
  sqlite3_free(zErr);
  docextBufFree(&b);
  free(z);
}

/*
** Sequences of documents (doc_each's text): read every document of z and
** describe the outcome as "n=<documents> <hex of the last>" or
** "n=<documents read> error: <message>".
*/
static void seqRead(const char *z, int n, char *zOut, int nOut){
  char *zCopy = malloc(n>0 ? n : 1);
  DocJsonSeq q;
  DocBuf b;
  int nDoc = 0, bEof = 0, rc = SQLITE_OK;
  char *zErr = 0;
  memcpy(zCopy, z, n);
  memset(&b, 0, sizeof(b));
  docextJsonSeqInit(&q, zCopy, n);
  zOut[0] = 0;
  while( 1 ){
    rc = docextJsonSeqNext(&q, &b, &bEof, &zErr);
    if( rc!=SQLITE_OK || bEof ) break;
    if( docextBsonValidate(b.a, b.n, 0, 0)!=SQLITE_OK ){
      snprintf(zOut, nOut, "invalid BSON from document %d", nDoc+1);
      break;
    }
    nDoc++;
  }
  if( zOut[0]==0 ){
    if( rc!=SQLITE_OK ){
      snprintf(zOut, nOut, "n=%d error: %s", nDoc, zErr ? zErr : "(none)");
    }else{
      snprintf(zOut, nOut, "n=%d", nDoc);
    }
  }
  sqlite3_free(zErr);
  docextBufFree(&b);
  free(zCopy);
}

static void tSeq(const char *z, const char *zExpect){
  char zGot[300];
  seqRead(z, (int)strlen(z), zGot, sizeof(zGot));
  check(strcmp(zGot, zExpect)==0, "seq", z, zGot);
}

static void testSeq(void){
  static const char *azSeed[] = {
    "[ {a: 1}, /* c */ {b: [1, {c: 2}]}, {\"$date\": 1}, ]",
    "\xEF\xBB\xBF{a: 1}\n{b: {\"$timestamp\": {\"t\": 1, \"i\": 2}}}, {c: 'x'}\n// end\n",
  };
  unsigned int seed = 777;
  int k, iter, nBad = 0;
  char z[512], zGot[300];
  tSeq("", "n=0");
  tSeq("  \n ", "n=0");
  tSeq("[]", "n=0");
  tSeq("[ /* none */ ]  // done", "n=0");
  tSeq("[{a: 1}, {b: 2},]", "n=2");
  tSeq("{a: 1} {b: 2}, {c: 3}", "n=3");
  tSeq("\xEF\xBB\xBF[{a: 1}]", "n=1");
  tSeq("[{a: 1}, 2]", "n=1 error: docext: expected '{' to start a document at line 1 column 10");
  tSeq("[{a: 1}\n {b: 2}]", "n=1 error: docext: expected ',' or ']' at line 2 column 2");
  tSeq("[{a: 1},\n", "n=1 error: docext: unterminated array at line 1 column 1");
  tSeq("[{a: 1}] x", "n=1 error: docext: unexpected text after the array at line 1 column 10");
  tSeq("{a: 1}\n{b: 2}\n  {c: }", "n=2 error: docext: unexpected '}' (expected a value) at line 3 column 7");
  tSeq("{a: 1}\n/* open", "n=1 error: docext: unterminated comment at line 2 column 1");
  tSeq("[,]", "n=0 error: docext: expected '{' to start a document at line 1 column 2");
  for(k=0; k<2; k++){
    int n0 = (int)strlen(azSeed[k]);
    for(iter=0; iter<3000; iter++){
      int n = n0;
      memcpy(z, azSeed[k], n0);
      n = mutate(z, n, (int)sizeof(z), &seed, "{}[]\"',:/*\n\\$0");
      seqRead(z, n, zGot, sizeof(zGot));
      if( strncmp(zGot, "invalid", 7)==0
       || (strstr(zGot, "error")!=0 && strstr(zGot, "error: docext: ")==0) ){
        if( nBad<3 ) printf("  seq fuzz: %s\n", zGot);
        nBad++;
      }
    }
  }
  check(nBad==0, "seq fuzz", 0, 0);
}

/*
** Out-of-memory: fail allocation N (once) for N = 1, 2, … until a parse
** runs without reaching N. Each run must give the reference result or
** SQLITE_NOMEM (never another error, a crash or a leak).
*/

static void tOom(const char *zText, int bValue, int rcExpect){
  DocBuf ref, b;
  char *zErr = 0;
  int n = (int)strlen(zText), iFail, rc, nBad = 0;
  memset(&ref, 0, sizeof(ref));
  rc = parseN(zText, n, 1, bValue, &ref, 0, &zErr);
  sqlite3_free(zErr); zErr = 0;
  if( rc!=rcExpect ){
    check(0, "oom reference", zText, 0);
    docextBufFree(&ref);
    return;
  }
  for(iFail=1; iFail<10000; iFail++){
    memset(&b, 0, sizeof(b));
    bFailed = 0;
    nFailAt = iFail;
    rc = parseN(zText, n, 1, bValue, &b, 0, &zErr);
    nFailAt = 0;
    if( !bFailed ){
      if( rc!=rcExpect ) nBad++;
      sqlite3_free(zErr);
      docextBufFree(&b);
      break;
    }
    if( rc==rcExpect && rc==SQLITE_OK ){
      if( b.n!=ref.n || memcmp(b.a, ref.a, b.n) ) nBad++;
    }else if( rc!=SQLITE_NOMEM && rc!=rcExpect ){
      if( nBad<3 ) printf("  oom %d: rc=%d %s\n", iFail, rc, zErr ? zErr : "");
      nBad++;
    }
    if( rc==SQLITE_NOMEM && b.n!=0 ) nBad++;
    sqlite3_free(zErr); zErr = 0;
    docextBufFree(&b);
  }
  check(nBad==0 && iFail>1, "oom", zText, 0);
  docextBufFree(&ref);
}

static void testOom(void){
  tOom("{a: 1, b: [1.5, 'xyz', {c: null}], d: {$gt: 5}, e: {\"$date\": {\"$numberLong\": \"1\"}},"
       " f: BinData(0, \"//8=\"), g: 1e300, h: {\"$binary\": {\"base64\": \"AQID\", \"subType\": \"02\"}},"
       " i: {\"$code\": \"x\", \"$scope\": {y: 1}}, j: /x/i, k: NumberDecimal('1.5'),"
       " l: {$regex: 'a', $options: 'i'}, m: {\"$numberDouble\": \"1.5\"}}", 0, SQLITE_OK);
  tOom("[1, 2, {a: 'b'}]", 1, SQLITE_OK);
  tOom("{a: [1, 2, {b: Foo(1)}]}", 0, SQLITE_ERROR);
  tOom("{a: {$oid: 5}}", 0, SQLITE_ERROR);
}

/* The writer's string fast paths (16 and 8 bytes at a time, an
** overlapping last word) against a byte-at-a-time reference: strings of
** every length up to 40 with one byte to escape at every position, as a
** value and as a key. */
/* z[0..n) as a string literal quoted by q (the other quote stays as it is). */
static void refEscapeQ(const char *z, int n, char q, char *zOut){
  int i, k = 0;
  zOut[k++] = q;
  for(i=0; i<n; i++){
    unsigned char c = (unsigned char)z[i];
    if( c==(unsigned char)q || c=='\\' ){ zOut[k++] = '\\'; zOut[k++] = (char)c; }
    else if( c=='\n' ){ zOut[k++] = '\\'; zOut[k++] = 'n'; }
    else if( c<0x20 ){ k += sprintf(&zOut[k], "\\u%04x", c); }
    else zOut[k++] = (char)c;
  }
  zOut[k++] = q;
  zOut[k] = 0;
}

static void refEscape(const char *z, int n, char *zOut){
  refEscapeQ(z, n, '"', zOut);
}

static void testWriteEscapes(void){
  static const char aEsc[] = { '"', '\\', '\n', 0x01, 0x1F };
  char zStr[64], zEsc[512], zWant[1024];
  int n, iPos, e, bKey;
  for(bKey=0; bKey<2; bKey++){
    for(n=0; n<=40; n++){
      for(iPos=-1; iPos<n; iPos++){
        for(e=0; e<(int)sizeof(aEsc) && (e==0 || iPos>=0); e++){
          DocBuf doc, out;
          int rc = SQLITE_OK, i;
          i64 iStart;
          for(i=0; i<n; i++) zStr[i] = (char)('a' + i%26);
          if( iPos>=0 ) zStr[iPos] = aEsc[e];
          zStr[n] = 0;
          memset(&doc, 0, sizeof(doc));
          memset(&out, 0, sizeof(out));
          iStart = docextBsonStartDoc(&rc, &doc);
          if( bKey ) docextBsonAppendInt32(&rc, &doc, zStr, n, 1);
          else docextBsonAppendString(&rc, &doc, DOC_STRING, "s", 1, zStr, n);
          docextBsonEndDoc(&rc, &doc, iStart);
          docextJsonWriteDoc(&rc, &out, doc.a, DOCEXT_JSON_RELAXED);
          docextBufAppendByte(&rc, &out, 0);
          refEscape(zStr, n, zEsc);
          if( bKey ) snprintf(zWant, sizeof(zWant), "{%s:1}", zEsc);
          else snprintf(zWant, sizeof(zWant), "{\"s\":%s}", zEsc);
          check(rc==SQLITE_OK && strcmp((const char*)out.a, zWant)==0,
                bKey ? "escape in key" : "escape in string", zWant,
                rc==SQLITE_OK ? (const char*)out.a : "error");
          docextBufFree(&doc);
          docextBufFree(&out);
        }
      }
    }
  }
}

/* The parser's and the writer's string fast paths (sixteen bytes at a
** time, the 16-byte block for short strings) on random strings: ASCII,
** quotes of both kinds, backslashes, control characters and 2-, 3- and
** 4-byte UTF-8, of every length up to 70, as keys and as values, with
** other fields after them (so that the blocks are read in full). Each is
** written as JSON by a byte-at-a-time reference (refEscape, then UTF-8 as
** it is), parsed, and must give the same bytes; the document is then
** written by docext and parsed again, and must be the same BSON. */
static void testStringRoundTrip(void){
  static const char *azPiece[] = {
    "a", "b", "z", " ", "'", "\"", "\\", "\n", "\t", "\x01", "\x1f", "/",
    "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "0", "$", ".",
  };
  unsigned int seed = 777;
  int iter, nBad = 0;
  for(iter=0; iter<4000; iter++){
    char zStr[300], zEsc[2000], zText[4200];
    int n = 0, nWant = 1 + (int)(rnd16(&seed) % 70);
    int bKey = iter & 1;
    DocBuf b1, b2, out;
    DocValue v;
    char *zErr = 0;
    int rc = SQLITE_OK, rc2;
    while( n<nWant ){
      const char *zP = azPiece[rnd16(&seed)
                               % (sizeof(azPiece)/sizeof(azPiece[0]))];
      int nP = (int)strlen(zP);
      if( bKey && (zP[0]=='$' || zP[0]=='.' || zP[0]<0x20) ) continue;
      memcpy(&zStr[n], zP, nP);
      n += nP;
    }
    zStr[n] = 0;
    /* a quarter in single quotes, where '"' is an ordinary character */
    refEscapeQ(zStr, n, (iter & 2) && (iter & 4) ? '\'' : '"', zEsc);
    if( bKey ){
      snprintf(zText, sizeof(zText), "{%s: 1, \"after\": \"0123456789abcdef0123\"}", zEsc);
    }else{
      snprintf(zText, sizeof(zText), "{\"s\": %s, \"after\": \"0123456789abcdef0123\"}", zEsc);
    }
    memset(&b1, 0, sizeof(b1));
    memset(&b2, 0, sizeof(b2));
    memset(&out, 0, sizeof(out));
    rc = parseN(zText, (int)strlen(zText), 1, 0, &b1, 0, &zErr);
    if( rc==SQLITE_OK ){
      DocIter it;
      docextIterInit(&it, b1.a);
      if( !docextIterNext(&it) ){
        rc = SQLITE_ERROR;
      }else if( bKey ){
        if( it.nKey!=n || memcmp(it.zKey, zStr, n)!=0 ) rc = SQLITE_ERROR;
      }else{
        v = it.v;
        if( v.type!=DOC_STRING || v.n-5!=n || memcmp(v.p+4, zStr, n)!=0 ) rc = SQLITE_ERROR;
      }
    }
    if( rc==SQLITE_OK ){
      docextJsonWriteDoc(&rc, &out, b1.a, DOCEXT_JSON_RELAXED);
      sqlite3_free(zErr);
      zErr = 0;
      rc2 = parseN((const char*)out.a, (int)out.n, 1, 0, &b2, 0, &zErr);
      if( rc==SQLITE_OK && (rc2!=SQLITE_OK || b1.n!=b2.n || memcmp(b1.a, b2.a, b1.n)!=0) ){
        rc = SQLITE_ERROR;
      }
    }
    if( rc!=SQLITE_OK ){
      if( nBad++<3 ) check(0, "string round trip", zText, zErr ? zErr : "bytes differ");
    }
    sqlite3_free(zErr);
    docextBufFree(&b1);
    docextBufFree(&b2);
    docextBufFree(&out);
  }
  check(nBad==0, "string round trips", 0, 0);
}

/* Writing into a buffer that is nearly full: every text form, for keys
** and short string values of every length, from output space of every
** size (the writer reserves room per element and then writes up to 16
** bytes at a time; the sanitized build catches a write past the end).
** Each must equal the text written into ample space. */
static void testWriteBounds(void){
  int nKey, nVal, nSpace, eMode, nBad = 0;
  for(eMode=DOCEXT_JSON_RELAXED; eMode<=DOCEXT_JSON_SHELL; eMode++){
    for(nKey=0; nKey<=20; nKey++){
      for(nVal=0; nVal<=17; nVal++){
        char zKey[32], zVal[32];
        DocBuf doc, want;
        DocValue v;
        int rc = SQLITE_OK, i;
        i64 iStart;
        for(i=0; i<nKey; i++) zKey[i] = (char)('a' + i);
        for(i=0; i<nVal; i++) zVal[i] = (char)('A' + i);
        memset(&doc, 0, sizeof(doc));
        memset(&want, 0, sizeof(want));
        iStart = docextBsonStartDoc(&rc, &doc);
        docextBsonAppendString(&rc, &doc, DOC_STRING, "x", 1, zVal, nVal);
        docextBsonAppendString(&rc, &doc, DOC_STRING, zKey, nKey, zVal, nVal);
        docextBsonAppendString(&rc, &doc, DOC_STRING, zKey, nKey, zVal, nVal);
        docextBsonEndDoc(&rc, &doc, iStart);
        v.type = DOC_DOCUMENT;
        v.p = doc.a;
        v.n = (int)doc.n;
        docextJsonWriteValue(&rc, &want, &v, eMode);
        for(nSpace=1; nSpace<=(int)want.n+24; nSpace++){
          u8 *aSpace = malloc(nSpace);    /* exactly nSpace: ASan sees past it */
          DocBuf out;
          docextBufInit(&out, aSpace, nSpace);
          docextJsonWriteValue(&rc, &out, &v, eMode);
          if( rc!=SQLITE_OK || out.n!=want.n || memcmp(out.a, want.a, want.n)!=0 ) nBad++;
          docextBufFree(&out);
          free(aSpace);
        }
        docextBufFree(&doc);
        docextBufFree(&want);
      }
    }
  }
  check(nBad==0, "writing into nearly full buffers", 0, 0);
}

/* A document {r: regex} with the given pattern and options, stored as
** they are (options unsorted, any bytes), in a[] (room for 300 bytes). */
static int regexDoc(const char *zPat, const char *zOpt, u8 *a){
  int nPat = (int)strlen(zPat), nOpt = (int)strlen(zOpt);
  int n = 4 + 1 + 2 + nPat + 1 + nOpt + 1 + 1;
  a[0] = (u8)n; a[1] = a[2] = a[3] = 0;
  a[4] = DOC_REGEX; a[5] = 'r'; a[6] = 0;
  memcpy(&a[7], zPat, nPat + 1);
  memcpy(&a[8 + nPat], zOpt, nOpt + 1);
  a[n-1] = 0;
  return n;
}

/* Regexes written out. The shell writes a /pattern/flags literal only when
** it reads back as the same bytes, else the $regularExpression wrapper;
** canonical text sorts ASCII options and reads back as the sorted bytes. */
static void testRegexOut(void){
  static const struct { const char *zPat, *zOpt, *zShell, *zCanonical; } aCase[] = {
    { "a/b",    "i",   "{ \"r\" : /a\\/b/i }", 0 },
    { "a\\\\/", "",    "{ \"r\" : /a\\\\\\// }", 0 },            /* \\ then / */
    { "[/]",    "",    "{ \"r\" : /[\\/]/ }", 0 },
    { "a\\/",   "",    "{ \"r\" : {\"$regularExpression\":{\"pattern\":\"a\\\\/\",\"options\":\"\"}} }", 0 },
    { "",       "i",   "{ \"r\" : {\"$regularExpression\":{\"pattern\":\"\",\"options\":\"i\"}} }", 0 },
    { "*a",     "",    "{ \"r\" : {\"$regularExpression\":{\"pattern\":\"*a\",\"options\":\"\"}} }", 0 },
    { "a\nb",   "",    "{ \"r\" : {\"$regularExpression\":{\"pattern\":\"a\\nb\",\"options\":\"\"}} }", 0 },
    { "a\\",    "",    "{ \"r\" : {\"$regularExpression\":{\"pattern\":\"a\\\\\",\"options\":\"\"}} }", 0 },
    { "[b+c",   "",    "{ \"r\" : {\"$regularExpression\":{\"pattern\":\"[b+c\",\"options\":\"\"}} }", 0 },
    { "a",      "mi",  "{ \"r\" : /a/im }", "{\"r\":{\"$regularExpression\":{\"pattern\":\"a\",\"options\":\"im\"}}}" },
    { "a",      "q",   "{ \"r\" : {\"$regularExpression\":{\"pattern\":\"a\",\"options\":\"q\"}} }", 0 },
    { "a",      "ii",  "{ \"r\" : {\"$regularExpression\":{\"pattern\":\"a\",\"options\":\"ii\"}} }", 0 },
    { "a",      "\xc3\xa9x", 0, "{\"r\":{\"$regularExpression\":{\"pattern\":\"a\",\"options\":\"\xc3\xa9x\"}}}" },
    { "a",      "zyxwvutsrqponmlkjihgfedcbazyxwvutsrqponmlkjihgfedcbazyxwvutsrqponmlkjihgfedcba", 0,
      "{\"r\":{\"$regularExpression\":{\"pattern\":\"a\",\"options\":\"aaabbbcccdddeeefffggghhhiiijjjkkklllmmmnnnooopppqqqrrrssstttuuuvvvwwwxxxyyyzzz\"}}}" },
  };
  int i, eMode;
  for(i=0; i<(int)(sizeof(aCase)/sizeof(aCase[0])); i++){
    u8 aDoc[300];
    int nDoc = regexDoc(aCase[i].zPat, aCase[i].zOpt, aDoc);
    for(eMode=DOCEXT_JSON_CANONICAL; eMode<=DOCEXT_JSON_SHELL; eMode++){
      const char *zWant = eMode==DOCEXT_JSON_SHELL ? aCase[i].zShell : aCase[i].zCanonical;
      DocBuf out, back, again;
      char *zErr = 0;
      int rc = SQLITE_OK;
      memset(&out, 0, sizeof(out));
      memset(&back, 0, sizeof(back));
      memset(&again, 0, sizeof(again));
      docextJsonWriteDoc(&rc, &out, aDoc, eMode);
      docextBufAppendByte(&rc, &out, 0);
      if( zWant ){
        check(rc==SQLITE_OK && strcmp((const char*)out.a, zWant)==0,
              "regex written", zWant, (const char*)out.a);
      }
      rc = parseN((const char*)out.a, (int)out.n-1, 1, 0, &back, 0, &zErr);
      if( eMode==DOCEXT_JSON_SHELL ){
        /* options sorted by the parser; everything else the same bytes */
        u8 aSorted[300];
        memcpy(aSorted, aDoc, nDoc);
        docextRegexSortOptions(&aSorted[8 + strlen(aCase[i].zPat)], (i64)strlen(aCase[i].zOpt));
        check(rc==SQLITE_OK && back.n==nDoc && memcmp(back.a, aSorted, nDoc)==0,
              "shell regex reads back", (const char*)out.a, zErr);
      }else{
        docextJsonWriteDoc(&rc, &again, back.a, eMode);
        docextBufAppendByte(&rc, &again, 0);
        check(rc==SQLITE_OK && strcmp((const char*)again.a, (const char*)out.a)==0,
              "canonical regex is a fixed point", (const char*)out.a, zErr);
      }
      sqlite3_free(zErr);
      docextBufFree(&out);
      docextBufFree(&back);
      docextBufFree(&again);
    }
  }
}

int main(void){
  installOom();
  testWriteEscapes();
  testStringRoundTrip();
  testRegexOut();
  testWriteBounds();
  testNumbers();
  testStrings();
  testShell();
  testDocuments();
  testErrors();
  testUsed();
  testDepth();
  testTruncations();
  testFuzz();
  testSeq();
  testTooBig();
  testOom();
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
