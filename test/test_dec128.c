/*
** test_dec128.c — unit tests for ext/docext_dec128.c.
**
** Runs every decimal128 case of the BSON corpus (read in place from
** ../shared/bson-corpus, relative to the repository root, which is where the
** tests run; its licence forbids copying it into this repository) plus a
** few hand-written checks. Prints one line per failure and finishes with
** "N passed, M failed"; exits non-zero if anything failed.
**
** Build and run from the repository root:
**   gcc -std=c11 -O2 -Wall -Wextra -Werror -I ext -DDOCEXT_TEST \
**       test/test_dec128.c ext/docext_dec128.c -lsqlite3 -o /tmp/test_dec128
**   /tmp/test_dec128
*/
#ifndef SQLITE_CORE
# define SQLITE_CORE 1     /* call the sqlite3 API directly, not via a vtable */
#endif
#include "docextInt.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define CORPUS_DIR "../shared/bson-corpus"

static int nPass = 0;
static int nFail = 0;

static void check(int bOk, const char *zFmt, ...){
  if( bOk ){
    nPass++;
  }else{
    va_list ap;
    nFail++;
    printf("FAIL: ");
    va_start(ap, zFmt);
    vprintf(zFmt, ap);
    va_end(ap);
    printf("\n");
  }
}

/**************************************************************************
** Just enough JSON to walk a corpus file: a top-level object whose "valid"
** and "parseErrors" members are arrays of flat objects with string and
** boolean members. Everything else is skipped.
*/
typedef struct Json Json;
struct Json {
  const char *z;     /* the text */
  int n;             /* its length */
  int i;             /* read position */
  int bErr;          /* set on the first syntax error */
};

static void jsWs(Json *p){
  while( p->i<p->n && (p->z[p->i]==' ' || p->z[p->i]=='\n'
                    || p->z[p->i]=='\r' || p->z[p->i]=='\t') ){
    p->i++;
  }
}

/* Consume character c (after white space), or flag an error. */
static int jsEat(Json *p, char c){
  jsWs(p);
  if( p->i<p->n && p->z[p->i]==c ){
    p->i++;
    return 1;
  }
  p->bErr = 1;
  return 0;
}

static int jsPeek(Json *p){
  jsWs(p);
  return p->i<p->n ? p->z[p->i] : 0;
}

/* Read a string into a malloc'd, unescaped buffer. \uXXXX beyond ASCII
** becomes '?': the decimal128 files only escape quotes. */
static char *jsString(Json *p){
  char *zOut;
  int nOut = 0;
  if( !jsEat(p, '"') ) return 0;
  zOut = malloc((size_t)(p->n - p->i) + 1);
  if( zOut==0 ){ p->bErr = 1; return 0; }
  while( p->i<p->n && p->z[p->i]!='"' ){
    char c = p->z[p->i++];
    if( c=='\\' && p->i<p->n ){
      c = p->z[p->i++];
      switch( c ){
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        case 'r': c = '\r'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'u': {
          unsigned v = 0;
          int k;
          for(k=0; k<4 && p->i<p->n; k++){
            char h = p->z[p->i++];
            v = v*16 + (unsigned)(h<='9' ? h-'0' : (h|0x20)-'a'+10);
          }
          c = v<0x80 ? (char)v : '?';
          break;
        }
        default: break;   /* \" \\ \/ */
      }
    }
    zOut[nOut++] = c;
  }
  zOut[nOut] = 0;
  if( !jsEat(p, '"') ){ free(zOut); return 0; }
  return zOut;
}

static void jsSkip(Json *p){
  int c = jsPeek(p);
  if( c=='"' ){
    free(jsString(p));
  }else if( c=='{' || c=='[' ){
    int cEnd = c=='{' ? '}' : ']';
    p->i++;
    if( jsPeek(p)==cEnd ){ p->i++; return; }
    while( !p->bErr ){
      if( c=='{' ){
        free(jsString(p));
        jsEat(p, ':');
      }
      jsSkip(p);
      if( jsPeek(p)==',' ){ p->i++; continue; }
      jsEat(p, (char)cEnd);
      break;
    }
  }else{
    /* number, true, false, null */
    int i0 = p->i;
    while( p->i<p->n && strchr(",]} \t\r\n", p->z[p->i])==0 ) p->i++;
    if( p->i==i0 ) p->bErr = 1;
  }
}

/* One test case: the members this test reads. */
typedef struct Case Case;
struct Case {
  char *zDesc;
  char *zBson;       /* canonical_bson, hex */
  char *zCanon;      /* canonical_extjson */
  char *zDegen;      /* degenerate_extjson */
  char *zString;     /* parseErrors string */
  int bLossy;
};

static void caseFree(Case *pCase){
  free(pCase->zDesc);
  free(pCase->zBson);
  free(pCase->zCanon);
  free(pCase->zDegen);
  free(pCase->zString);
  memset(pCase, 0, sizeof(*pCase));
}

static void jsCase(Json *p, Case *pCase){
  memset(pCase, 0, sizeof(*pCase));
  if( !jsEat(p, '{') ) return;
  if( jsPeek(p)=='}' ){ p->i++; return; }
  while( !p->bErr ){
    char *zKey = jsString(p);
    char **pz = 0;
    if( zKey==0 ) return;
    jsEat(p, ':');
    if( strcmp(zKey, "description")==0 ) pz = &pCase->zDesc;
    if( strcmp(zKey, "canonical_bson")==0 ) pz = &pCase->zBson;
    if( strcmp(zKey, "canonical_extjson")==0 ) pz = &pCase->zCanon;
    if( strcmp(zKey, "degenerate_extjson")==0 ) pz = &pCase->zDegen;
    if( strcmp(zKey, "string")==0 ) pz = &pCase->zString;
    if( pz ){
      free(*pz);
      *pz = jsString(p);
    }else if( strcmp(zKey, "lossy")==0 && jsPeek(p)=='t' ){
      pCase->bLossy = 1;
      jsSkip(p);
    }else{
      jsSkip(p);
    }
    free(zKey);
    if( jsPeek(p)==',' ){ p->i++; continue; }
    jsEat(p, '}');
    break;
  }
}

/**************************************************************************
** The corpus checks.
*/

/* The string inside {"d" : {"$numberDecimal" : "..."}}, copied to zOut
** (nOut bytes). 0 if there is none. */
static int extDecimal(const char *zExt, char *zOut, int nOut){
  const char *z = zExt ? strstr(zExt, "\"$numberDecimal\"") : 0;
  const char *zEnd;
  if( z==0 ) return 0;
  z = strchr(z + 16, '"');
  if( z==0 ) return 0;
  z++;
  zEnd = strchr(z, '"');
  if( zEnd==0 || zEnd-z>=nOut ) return 0;
  memcpy(zOut, z, (size_t)(zEnd-z));
  zOut[zEnd-z] = 0;
  return 1;
}

static int hexVal(char c){
  if( c>='0' && c<='9' ) return c-'0';
  if( c>='a' && c<='f' ) return c-'a'+10;
  if( c>='A' && c<='F' ) return c-'A'+10;
  return -1;
}

/* The 16 value bytes of the BSON document {"d": decimal} given as hex. */
static int bsonDecimal(const char *zHex, u8 *aOut){
  static const u8 aHead[] = { 0x18, 0, 0, 0, 0x13, 'd', 0 };
  u8 aDoc[24];
  int i;
  if( zHex==0 || strlen(zHex)!=48 ) return 0;
  for(i=0; i<24; i++){
    int h = hexVal(zHex[2*i]), l = hexVal(zHex[2*i+1]);
    if( h<0 || l<0 ) return 0;
    aDoc[i] = (u8)(h*16 + l);
  }
  if( memcmp(aDoc, aHead, sizeof(aHead))!=0 || aDoc[23]!=0 ) return 0;
  memcpy(aOut, &aDoc[7], 16);
  return 1;
}

static void hex16(const u8 *a, char *zOut){
  int i;
  for(i=0; i<16; i++) snprintf(&zOut[2*i], 3, "%02X", a[i]);
}

/* zStr must parse to exactly aWant. */
static void checkParse(const char *zFile, const Case *pCase, const char *zStr,
                       const u8 *aWant){
  u8 aGot[16];
  char zGot[33], zWant[33];
  int rc = docextDec128FromString(zStr, (int)strlen(zStr), aGot);
  hex16(aWant, zWant);
  if( rc!=SQLITE_OK ){
    check(0, "%s [%s]: \"%.60s\" rejected, want %s",
          zFile, pCase->zDesc, zStr, zWant);
    return;
  }
  hex16(aGot, zGot);
  check(memcmp(aGot, aWant, 16)==0, "%s [%s]: \"%.60s\" parsed to %s, want %s",
        zFile, pCase->zDesc, zStr, zGot, zWant);
}

static void runValid(const char *zFile, const Case *pCase){
  u8 aVal[16];
  char zCanon[200];
  char zOut[48];
  char zDegen[8000];
  int n;

  if( !bsonDecimal(pCase->zBson, aVal) || !extDecimal(pCase->zCanon, zCanon, sizeof(zCanon)) ){
    check(0, "%s [%s]: cannot read the case", zFile, pCase->zDesc);
    return;
  }

  /* bytes -> string */
  n = docextDec128ToString(aVal, zOut);
  check(n==(int)strlen(zOut) && strcmp(zOut, zCanon)==0,
        "%s [%s]: printed \"%s\", want \"%s\"", zFile, pCase->zDesc, zOut, zCanon);

  /* bytes -> double, against strtod of the expected string */
  {
    double rGot = docextDec128ToDouble(aVal);
    double rWant = strtod(zCanon, 0);
    int bOk = isnan(rWant) ? isnan(rGot)
            : (rGot==rWant && signbit(rGot)==signbit(rWant));
    check(bOk, "%s [%s]: ToDouble %.17g, want %.17g",
          zFile, pCase->zDesc, rGot, rWant);
  }

  /* strings -> bytes */
  if( !pCase->bLossy ){
    checkParse(zFile, pCase, zCanon, aVal);
    if( pCase->zDegen ){
      if( extDecimal(pCase->zDegen, zDegen, sizeof(zDegen)) ){
        checkParse(zFile, pCase, zDegen, aVal);
      }else{
        check(0, "%s [%s]: cannot read degenerate_extjson", zFile, pCase->zDesc);
      }
    }
  }
}

static void runParseError(const char *zFile, const Case *pCase){
  u8 aVal[16];
  int rc = docextDec128FromString(pCase->zString, (int)strlen(pCase->zString), aVal);
  check(rc==SQLITE_ERROR, "%s [%s]: \"%s\" accepted, want an error",
        zFile, pCase->zDesc, pCase->zString);
}

/* Run one corpus file; returns 0 if it cannot be read. */
static int runFile(const char *zPath, const char *zFile){
  FILE *f = fopen(zPath, "rb");
  char *z;
  long nFile;
  Json js;
  int nCase = 0;

  if( f==0 ) return 0;
  fseek(f, 0, SEEK_END);
  nFile = ftell(f);
  fseek(f, 0, SEEK_SET);
  z = malloc((size_t)nFile + 1);
  if( z==0 || fread(z, 1, (size_t)nFile, f)!=(size_t)nFile ){
    fclose(f);
    free(z);
    return 0;
  }
  fclose(f);
  z[nFile] = 0;

  memset(&js, 0, sizeof(js));
  js.z = z;
  js.n = (int)nFile;
  jsEat(&js, '{');
  while( !js.bErr && jsPeek(&js)!='}' ){
    char *zKey = jsString(&js);
    int bValid, bParseErr;
    if( zKey==0 ) break;
    jsEat(&js, ':');
    bValid = strcmp(zKey, "valid")==0;
    bParseErr = strcmp(zKey, "parseErrors")==0;
    free(zKey);
    if( (bValid || bParseErr) && jsPeek(&js)=='[' ){
      js.i++;
      while( !js.bErr && jsPeek(&js)!=']' ){
        Case c;
        jsCase(&js, &c);
        if( !js.bErr ){
          nCase++;
          if( bValid ) runValid(zFile, &c);
          else if( c.zString ) runParseError(zFile, &c);
          else check(0, "%s [%s]: parse error case without a string", zFile, c.zDesc);
        }
        caseFree(&c);
        if( jsPeek(&js)==',' ) js.i++;
      }
      jsEat(&js, ']');
    }else{
      jsSkip(&js);
    }
    if( jsPeek(&js)==',' ) js.i++;
  }
  check(!js.bErr && nCase>0, "%s: cannot walk the JSON (%d cases read)", zFile, nCase);
  free(z);
  return 1;
}

/**************************************************************************
** Hand-written checks.
*/

static void checkStr(const char *zIn, const char *zWant){
  u8 a[16];
  char zOut[48];
  int rc = docextDec128FromString(zIn, -1, a);
  if( rc!=SQLITE_OK ){
    check(zWant==0, "FromString(\"%s\") rejected, want \"%s\"", zIn, zWant);
    return;
  }
  docextDec128ToString(a, zOut);
  check(zWant && strcmp(zOut, zWant)==0,
        "FromString(\"%s\") gave \"%s\", want \"%s\"", zIn, zOut, zWant ? zWant : "(error)");
}

static void checkParts(const char *zIn, int eWant, int bNegWant,
                       const char *zDigWant, int iExpWant){
  u8 a[16];
  char zDig[40];
  int bNeg = -1, iExp = 12345, e;
  docextDec128FromString(zIn, -1, a);
  e = docextDec128Parts(a, &bNeg, zDig, &iExp);
  check(e==eWant && bNeg==bNegWant
        && (eWant!=DOCEXT_DEC_FINITE || (strcmp(zDig, zDigWant)==0 && iExp==iExpWant)),
        "Parts(\"%s\") = %d %d \"%s\" %d", zIn, e, bNeg, zDig, iExp);
}

static void checkInt64(i64 v, const char *zWant){
  u8 a[16];
  char zOut[48];
  docextDec128FromInt64(v, a);
  docextDec128ToString(a, zOut);
  check(strcmp(zOut, zWant)==0, "FromInt64(%lld) gave \"%s\", want \"%s\"",
        (long long)v, zOut, zWant);
}

static void checkFromDouble(double v, const char *zWant){
  u8 a[16];
  char zOut[48];
  docextDec128FromDouble(v, a);
  docextDec128ToString(a, zOut);
  check(strcmp(zOut, zWant)==0, "FromDouble(%.17g) gave \"%s\", want \"%s\"",
        v, zOut, zWant);
}

static void checkToDouble(const char *zIn, double rWant){
  u8 a[16];
  double r;
  docextDec128FromString(zIn, -1, a);
  r = docextDec128ToDouble(a);
  check(isnan(rWant) ? isnan(r) : (r==rWant && signbit(r)==signbit(rWant)),
        "ToDouble(\"%s\") = %.17g, want %.17g", zIn, r, rWant);
}

/* Doubles from random bit patterns survive FromDouble -> ToDouble, and the
** decimal has at most 17 significant digits. */
static void checkDoubleRoundTrip(void){
  u64 x = 0x9E3779B97F4A7C15ULL;
  int i, nBad = 0;
  for(i=0; i<200000; i++){
    double v, r;
    u8 a[16];
    char zDig[40];
    int bNeg, iExp;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    memcpy(&v, &x, 8);
    if( isnan(v) ) continue;
    docextDec128FromDouble(v, a);
    r = docextDec128ToDouble(a);
    docextDec128Parts(a, &bNeg, zDig, &iExp);
    if( r!=v || signbit(r)!=signbit(v) || (iExp!=0 && strlen(zDig)>17) ){
      if( nBad++<5 ) printf("FAIL: round trip of %.17g gave %.17g\n", v, r);
    }
  }
  check(nBad==0, "FromDouble/ToDouble round trip: %d failures", nBad);
}

/* docextDec128Div(x, y) gives zWant (IEEE 754-2008's results, as the
** Intel library that MongoDB uses computes them). */
static void checkDiv(const char *zX, const char *zY, const char *zWant){
  u8 x[16], y[16], r[16];
  char zOut[48];
  docextDec128FromString(zX, -1, x);
  docextDec128FromString(zY, -1, y);
  check(docextDec128Div(x, y, r)==SQLITE_OK, "Div(%s, %s) failed", zX, zY);
  docextDec128ToString(r, zOut);
  check(strcmp(zOut, zWant)==0, "Div(%s, %s) gave \"%s\", want \"%s\"", zX, zY, zOut, zWant);
}

static void runDivChecks(void){
  /* exact quotients keep the exponent nearest to x's minus y's */
  checkDiv("6", "2", "3");
  checkDiv("10", "4", "2.5");
  checkDiv("1.0", "4", "0.25");
  checkDiv("100", "10", "10");
  checkDiv("1.00", "1", "1.00");
  checkDiv("12E+2", "4E+1", "3E+1");
  checkDiv("0", "5", "0");
  checkDiv("0.00", "2", "0.00");
  checkDiv("-7", "2", "-3.5");
  checkDiv("7", "-0.5", "-14");
  checkDiv("-0", "3", "-0");
  /* inexact: 34 digits, rounded half to even */
  checkDiv("1", "3", "0.3333333333333333333333333333333333");
  checkDiv("2", "3", "0.6666666666666666666666666666666667");
  checkDiv("-1", "7", "-0.1428571428571428571428571428571429");
  checkDiv("9999999999999999999999999999999999", "0.3", "3.333333333333333333333333333333333E+34");
  checkDiv("1", "9999999999999999999999999999999999", "1.000000000000000000000000000000000E-34");
  /* limits and specials */
  checkDiv("1E-6176", "10", "0E-6176");
  checkDiv("5E-6176", "10", "0E-6176");
  checkDiv("15E-6176", "10", "2E-6176");
  checkDiv("1E+6111", "1E-10", "1.0000000000E+6121");
  checkDiv("1E+6144", "1E-10", "Infinity");
  checkDiv("1", "0", "Infinity");
  checkDiv("-1", "0", "-Infinity");
  checkDiv("0", "0", "NaN");
  checkDiv("NaN", "1", "NaN");
  checkDiv("Infinity", "-2", "-Infinity");
  checkDiv("Infinity", "Infinity", "NaN");
}

static void runHandChecks(void){
  u8 a[16], b[16];

  /* grammar, clamping and exactness */
  checkStr("0", "0");
  checkStr("-0", "-0");
  checkStr("1.50", "1.50");
  checkStr("+.5", "0.5");
  checkStr("5.", "5");
  checkStr("1e0", "1");
  checkStr("1E-7", "1E-7");
  checkStr("0.0000001", "1E-7");
  checkStr("0.000001", "0.000001");
  checkStr("12E+2", "1.2E+3");
  checkStr("INF", "Infinity");
  checkStr("-iNfInItY", "-Infinity");
  checkStr("NAN", "NaN");
  checkStr("1E6111", "1E+6111");
  checkStr("1E6144", "1.000000000000000000000000000000000E+6144");
  checkStr("1E6145", 0);
  checkStr("1E-6176", "1E-6176");
  checkStr("1E-6177", 0);
  checkStr("0E-9999999999999999999999", "0E-6176");
  checkStr("-0E+9999999999999999999999", "-0E+6111");
  checkStr("1E+9999999999999999999999", 0);
  checkStr("9999999999999999999999999999999999", "9999999999999999999999999999999999");
  checkStr("99999999999999999999999999999999999", 0);
  checkStr("99999999999999999999999999999999990", "9.999999999999999999999999999999999E+34");
  checkStr("1234567890123456789012345678901234.0", "1234567890123456789012345678901234");
  checkStr("1234567890123456789012345678901234.5", 0);
  checkStr("NaN1", 0);
  checkStr("sNaN", 0);
  checkStr("1 ", 0);
  checkStr("", 0);
  checkStr("-", 0);
  checkStr("1e", 0);

  /* n bounds the string; an embedded NUL is an error */
  check(docextDec128FromString("1.5xyz", 3, a)==SQLITE_OK
        && docextDec128FromString("1.5", -1, b)==SQLITE_OK
        && memcmp(a, b, 16)==0, "FromString with n=3");
  check(docextDec128FromString("1\0" "5", 3, a)==SQLITE_ERROR, "FromString with a NUL");

  /* one NaN encoding, whatever the sign written */
  check(docextDec128FromString("-nan", -1, a)==SQLITE_OK
        && docextDec128FromString("NaN", -1, b)==SQLITE_OK
        && memcmp(a, b, 16)==0 && b[15]==0x7C, "-NaN is the canonical NaN");

  /* Parts */
  checkParts("1.50", DOCEXT_DEC_FINITE, 0, "150", -2);
  checkParts("-0E+3", DOCEXT_DEC_FINITE, 1, "0", 3);
  checkParts("-123456789012345678901234567890.1234", DOCEXT_DEC_FINITE, 1,
             "1234567890123456789012345678901234", -4);
  checkParts("-Infinity", DOCEXT_DEC_INF, 1, "", 0);
  checkParts("NaN", DOCEXT_DEC_NAN, 0, "", 0);

  /* FromInt64 */
  checkInt64(0, "0");
  checkInt64(-1, "-1");
  checkInt64(1000, "1000");
  checkInt64(INT64_MAX, "9223372036854775807");
  checkInt64(INT64_MIN, "-9223372036854775808");

  /* FromDouble */
  checkFromDouble(0.0, "0");
  checkFromDouble(-0.0, "-0");
  checkFromDouble(1.0, "1");
  checkFromDouble(100.0, "100");
  checkFromDouble(-2.5, "-2.5");
  checkFromDouble(0.1, "0.1");
  checkFromDouble(123.456, "123.456");
  checkFromDouble(0.000001, "0.000001");
  checkFromDouble(1e-7, "1E-7");
  checkFromDouble(1.0/3.0, "0.3333333333333333");
  checkFromDouble(0.1+0.2, "0.30000000000000004");
  checkFromDouble(1e15, "1000000000000000");
  checkFromDouble(1e20, "100000000000000000000");
  checkFromDouble(1e21, "1E+21");
  checkFromDouble(9007199254740993.0, "9007199254740992");
  checkFromDouble(DBL_MAX, "1.7976931348623157E+308");
  checkFromDouble(DBL_MIN, "2.2250738585072014E-308");
  checkFromDouble(5e-324, "5E-324");
  checkFromDouble(HUGE_VAL, "Infinity");
  checkFromDouble(-HUGE_VAL, "-Infinity");
  checkFromDouble(NAN, "NaN");
  checkDoubleRoundTrip();

  /* ToDouble */
  checkToDouble("0.1", 0.1);
  checkToDouble("-0", -0.0);
  checkToDouble("1.50", 1.5);
  checkToDouble("1E23", 1e23);
  checkToDouble("9007199254740993", 9007199254740992.0);   /* tie to even */
  checkToDouble("9007199254740995", 9007199254740996.0);
  checkToDouble("123456789012345678901234567890", 1.2345678901234568e29);
  checkToDouble("2.2250738585072011E-308", 2.2250738585072011e-308);
  checkToDouble("1E-6176", 0.0);
  checkToDouble("-1E-6176", -0.0);
  checkToDouble("1E+6111", HUGE_VAL);
  checkToDouble("-9.999999999999999999999999999999999E+6144", -HUGE_VAL);
  checkToDouble("-Infinity", -HUGE_VAL);
  checkToDouble("NaN", NAN);
}

int main(void){
  static const char *azFile[] = {
    "decimal128-1.json", "decimal128-2.json", "decimal128-3.json",
    "decimal128-4.json", "decimal128-5.json", "decimal128-6.json",
    "decimal128-7.json",
  };
  char zPath[256];
  unsigned i;
  FILE *f;

  snprintf(zPath, sizeof(zPath), "%s/%s", CORPUS_DIR, azFile[0]);
  f = fopen(zPath, "rb");
  if( f==0 ){
    printf("skipped the BSON corpus: %s not found (run from the repository root)\n",
           CORPUS_DIR);
  }else{
    fclose(f);
    for(i=0; i<sizeof(azFile)/sizeof(azFile[0]); i++){
      snprintf(zPath, sizeof(zPath), "%s/%s", CORPUS_DIR, azFile[i]);
      check(runFile(zPath, azFile[i]), "%s: cannot read", zPath);
    }
  }
  runHandChecks();
  runDivChecks();
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
