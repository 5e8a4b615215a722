/*
** test_corpus.c — the BSON corpus (the *.json files in ../shared/bson-corpus, relative to
** the repository root, where tests run) against docext's codec.
**
** The corpus may not be copied into the repository (its licence), so when
** the directory is missing this prints "skipped: …" and "0 passed, 0 failed".
**
** Each corpus file is plain JSON, read with docextJsonParse() itself. For
** every case the assertions of SPEC.md for a codec without an intermediate
** representation are checked, each counted as one test:
**
**   valid:   W(cB, canonical) = cEJ          W(cB, relaxed) = rEJ
**            P(cEJ) = cB  (unless lossy)     W(dB, canonical) = cEJ
**            W(dB, relaxed) = rEJ            P(dEJ) = cB (unless lossy)
**            W(P(rEJ), relaxed) = rEJ
**            and, for deprecated types, W(convB, canonical) = convEJ and
**            P(convEJ) = convB
**   decodeErrors: docextBsonValidate() rejects the bytes
**   parseErrors:  0x00, 0x05 the text as a document is rejected by the
**                 parser; 0x13 docextDec128FromString() rejects the string
**
** where W is docextJsonWriteDoc() and P is docextJsonParse().
**
** Text comparisons go through norm(): JSON tokens with white space outside
** strings dropped and every string decoded and re-escaped one way (so
** "\u00e9" and a raw "é" compare equal). Numbers are compared by value
** where SPEC.md allows it ("string representation of doubles is fairly
** unportable"): a number token with a fraction or exponent, and the string
** value of a "$numberDouble" key that is a decimal number, become the
** shortest round-trip form of their double ("1.2345678921232E+18" =
** "1.2345678921232e+18"). Integer tokens stay as written, so an integral
** double written without ".0" in relaxed mode still differs from an int.
**
** One deliberate deviation, printed as "note:" and not counted: INTERFACE.md
** §2 makes docext accept the legacy {"$date": <integer ms>}, which the
** corpus lists as a parse error ({"$date": 42}).
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <math.h>

#define CORPUS_DIR "../shared/bson-corpus"

static int nPass = 0;
static int nFail = 0;
static int nNote = 0;
static const char *zFile = "";     /* current corpus file, for messages */

static void fail(const char *zDesc, const char *zWhat, const char *zExp, const char *zGot){
  nFail++;
  printf("FAIL %s: %s: %s\n", zFile, zDesc, zWhat);
  if( zExp ) printf("    expected: %s\n", zExp);
  if( zGot ) printf("    got:      %s\n", zGot);
}

/*------------------------------------------------------------------------
** Hex, text normalisation
*/

static int hexv(int c){
  if( c>='0' && c<='9' ) return c - '0';
  if( c>='a' && c<='f' ) return c - 'a' + 10;
  if( c>='A' && c<='F' ) return c - 'A' + 10;
  return -1;
}

/* Decode hex text into a DocBuf; 0 if it is not hex. */
static int fromHex(const char *z, int n, DocBuf *pOut){
  int rc = SQLITE_OK, k;
  if( n%2 ) return 0;
  for(k=0; k<n; k+=2){
    int a = hexv((u8)z[k]), b = hexv((u8)z[k+1]);
    if( a<0 || b<0 ) return 0;
    docextBufAppendByte(&rc, pOut, (u8)(a*16+b));
  }
  return rc==SQLITE_OK;
}

static char *toHex(const u8 *a, i64 n){
  char *z = malloc(2*n+1);
  i64 k;
  for(k=0; k<n; k++) sprintf(&z[2*k], "%02X", a[k]);
  z[2*n] = 0;
  return z;
}

static void putUtf8(int *pRc, DocBuf *p, unsigned c){
  if( c<0x80 ){
    docextBufAppendByte(pRc, p, (u8)c);
  }else if( c<0x800 ){
    docextBufAppendByte(pRc, p, (u8)(0xC0|(c>>6)));
    docextBufAppendByte(pRc, p, (u8)(0x80|(c&0x3F)));
  }else if( c<0x10000 ){
    docextBufAppendByte(pRc, p, (u8)(0xE0|(c>>12)));
    docextBufAppendByte(pRc, p, (u8)(0x80|((c>>6)&0x3F)));
    docextBufAppendByte(pRc, p, (u8)(0x80|(c&0x3F)));
  }else{
    docextBufAppendByte(pRc, p, (u8)(0xF0|(c>>18)));
    docextBufAppendByte(pRc, p, (u8)(0x80|((c>>12)&0x3F)));
    docextBufAppendByte(pRc, p, (u8)(0x80|((c>>6)&0x3F)));
    docextBufAppendByte(pRc, p, (u8)(0x80|(c&0x3F)));
  }
}

static unsigned hex4(const char *z){
  unsigned v = 0;
  int k;
  for(k=0; k<4; k++){
    int h = hexv((u8)z[k]);
    v = v*16 + (unsigned)(h<0 ? 0 : h);
  }
  return v;
}

/* 1 if z[0..n) is a decimal number (sign, digits, fraction, exponent). */
static int isDecimal(const char *z, int n){
  int i = 0, nDigit = 0;
  if( i<n && (z[i]=='-' || z[i]=='+') ) i++;
  while( i<n && z[i]>='0' && z[i]<='9' ){ i++; nDigit++; }
  if( i<n && z[i]=='.' ){ i++; while( i<n && z[i]>='0' && z[i]<='9' ){ i++; nDigit++; } }
  if( nDigit==0 ) return 0;
  if( i<n && (z[i]=='e' || z[i]=='E') ){
    i++;
    if( i<n && (z[i]=='-' || z[i]=='+') ) i++;
    if( i>=n || z[i]<'0' || z[i]>'9' ) return 0;
    while( i<n && z[i]>='0' && z[i]<='9' ) i++;
  }
  return i==n;
}

/* The shortest "%.*g" form that reads back as the same double. */
static void putDouble(int *pRc, DocBuf *p, const char *z, int n){
  char zBuf[64], zNum[400];
  double r;
  int k;
  if( n>=(int)sizeof(zNum) ) n = (int)sizeof(zNum)-1;
  memcpy(zNum, z, n);
  zNum[n] = 0;
  r = strtod(zNum, 0);
  for(k=1; k<=17; k++){
    snprintf(zBuf, sizeof(zBuf), "%.*g", k, r);
    if( strtod(zBuf, 0)==r ) break;
  }
  docextBufAppendStr(pRc, p, "D:");
  docextBufAppendStr(pRc, p, zBuf);
}

/* Normalise JSON text (see the comment at the top). Returns a malloc'd
** NUL-terminated string. Not a validator: it trusts the text is JSON. */
static char *norm(const char *z, int n){
  DocBuf out, str;
  int rc = SQLITE_OK, i = 0;
  int bNumDouble = 0;       /* the last token was the key "$numberDouble" */
  int bAfterColon = 0;
  char *zRet;
  memset(&out, 0, sizeof(out));
  memset(&str, 0, sizeof(str));
  while( i<n ){
    char c = z[i];
    if( c==' ' || c=='\t' || c=='\n' || c=='\r' ){ i++; continue; }
    if( c=='"' ){
      int k;
      docextBufReset(&str);
      i++;
      while( i<n && z[i]!='"' ){
        if( z[i]=='\\' && i+1<n ){
          char e = z[i+1];
          i += 2;
          switch( e ){
            case 'b': docextBufAppendByte(&rc, &str, '\b'); break;
            case 'f': docextBufAppendByte(&rc, &str, '\f'); break;
            case 'n': docextBufAppendByte(&rc, &str, '\n'); break;
            case 'r': docextBufAppendByte(&rc, &str, '\r'); break;
            case 't': docextBufAppendByte(&rc, &str, '\t'); break;
            case 'u': {
              unsigned v = i+4<=n ? hex4(&z[i]) : 0;
              i += 4;
              if( v>=0xD800 && v<=0xDBFF && i+6<=n && z[i]=='\\' && z[i+1]=='u' ){
                unsigned v2 = hex4(&z[i+2]);
                v = 0x10000 + ((v-0xD800)<<10) + (v2-0xDC00);
                i += 6;
              }
              putUtf8(&rc, &str, v);
              break;
            }
            default: docextBufAppendByte(&rc, &str, (u8)e); break;
          }
        }else{
          docextBufAppendByte(&rc, &str, (u8)z[i++]);
        }
      }
      i++;
      if( bNumDouble && bAfterColon && isDecimal((const char*)str.a, (int)str.n) ){
        putDouble(&rc, &out, (const char*)str.a, (int)str.n);
        bNumDouble = 0;
        continue;
      }
      bNumDouble = str.n==13 && memcmp(str.a, "$numberDouble", 13)==0;
      bAfterColon = 0;
      docextBufAppendByte(&rc, &out, '"');
      for(k=0; k<str.n; k++){
        u8 b = str.a[k];
        if( b=='"' || b=='\\' ){
          docextBufAppendByte(&rc, &out, '\\');
          docextBufAppendByte(&rc, &out, b);
        }else if( b<0x20 ){
          docextBufAppendf(&rc, &out, "\\u%04x", b);
        }else{
          docextBufAppendByte(&rc, &out, b);
        }
      }
      docextBufAppendByte(&rc, &out, '"');
      continue;
    }
    if( c=='-' || (c>='0' && c<='9') ){
      int j = i, bDouble = 0;
      while( j<n && (z[j]=='-' || z[j]=='+' || z[j]=='.' || z[j]=='e' || z[j]=='E'
                     || (z[j]>='0' && z[j]<='9')) ){
        if( z[j]=='.' || z[j]=='e' || z[j]=='E' ) bDouble = 1;
        j++;
      }
      if( bDouble ) putDouble(&rc, &out, &z[i], j-i);
      else docextBufAppend(&rc, &out, &z[i], j-i);
      i = j;
      bNumDouble = 0;
      continue;
    }
    if( c==':' ){
      bAfterColon = bNumDouble;
    }else{
      bNumDouble = 0;
      bAfterColon = 0;
    }
    docextBufAppendByte(&rc, &out, (u8)c);
    i++;
  }
  docextBufFree(&str);
  zRet = malloc(out.n+1);
  if( out.n ) memcpy(zRet, out.a, out.n);
  zRet[out.n] = 0;
  docextBufFree(&out);
  return zRet;
}

/*------------------------------------------------------------------------
** The assertions
*/

/* The string value of key zKey in document aDoc, or 0. */
static const char *getStr(const u8 *aDoc, const char *zKey, int *pn){
  DocValue v;
  if( !docextBsonFind(aDoc, zKey, (int)strlen(zKey), &v) || v.type!=DOC_STRING ) return 0;
  return docextValueStr(&v, pn);
}
static int getBool(const u8 *aDoc, const char *zKey){
  DocValue v;
  if( !docextBsonFind(aDoc, zKey, (int)strlen(zKey), &v) || v.type!=DOC_BOOL ) return 0;
  return v.p[0];
}

/* W(aDoc, eMode) compared with the text zExp. */
static void checkWrite(const char *zDesc, const char *zWhat, const u8 *aDoc, i64 nDoc,
                       int eMode, const char *zExp, int nExp){
  DocBuf out;
  int rc = SQLITE_OK;
  const char *zWhy = 0;
  int iOff = 0;
  if( docextBsonValidate(aDoc, nDoc, &iOff, &zWhy)!=SQLITE_OK ){
    char zMsg[200];
    snprintf(zMsg, sizeof(zMsg), "%s: input BSON rejected at byte %d: %s", zWhat, iOff, zWhy);
    fail(zDesc, zMsg, 0, 0);
    return;
  }
  memset(&out, 0, sizeof(out));
  docextJsonWriteDoc(&rc, &out, aDoc, eMode);
  if( rc!=SQLITE_OK ){
    fail(zDesc, zWhat, 0, "writer returned an error");
  }else{
    char *zA = norm(zExp, nExp);
    char *zB = norm((const char*)out.a, (int)out.n);
    if( strcmp(zA, zB)==0 ){
      nPass++;
    }else{
      char *zRaw = malloc(out.n+1);
      memcpy(zRaw, out.a, out.n);
      zRaw[out.n] = 0;
      fail(zDesc, zWhat, zA, zB);
      printf("    raw:      %s\n", zRaw);
      free(zRaw);
    }
    free(zA);
    free(zB);
  }
  docextBufFree(&out);
}

/* P(zText) compared with the bytes aExp. If pOut is given the BSON is
** left there (for a following W). Returns 1 if it parsed. */
static int checkParse(const char *zDesc, const char *zWhat, const char *zText, int nText,
                      const u8 *aExp, i64 nExp, DocBuf *pOut){
  DocBuf b;
  char *zErr = 0;
  int rc, bOk = 0;
  memset(&b, 0, sizeof(b));
  rc = docextJsonParse(zText, nText, 1, &b, 0, &zErr);
  if( rc!=SQLITE_OK ){
    fail(zDesc, zWhat, 0, zErr ? zErr : "parse error");
  }else{
    bOk = 1;
    if( aExp ){
      if( b.n==nExp && memcmp(b.a, aExp, nExp)==0 ){
        nPass++;
      }else{
        char *zA = toHex(aExp, nExp), *zB = toHex(b.a, b.n);
        fail(zDesc, zWhat, zA, zB);
        free(zA);
        free(zB);
      }
    }
  }
  sqlite3_free(zErr);
  if( pOut && bOk ){
    *pOut = b;
  }else{
    docextBufFree(&b);
  }
  return bOk;
}

static void runValid(const u8 *aCase){
  const char *zDesc = "?", *z;
  int n, nCEJ = 0, nREJ = 0;
  const char *zCEJ, *zREJ;
  DocBuf cB, dB;
  int bLossy = getBool(aCase, "lossy");
  memset(&cB, 0, sizeof(cB));
  memset(&dB, 0, sizeof(dB));
  if( (z = getStr(aCase, "description", &n))!=0 ) zDesc = z;
  zCEJ = getStr(aCase, "canonical_extjson", &nCEJ);
  zREJ = getStr(aCase, "relaxed_extjson", &nREJ);
  z = getStr(aCase, "canonical_bson", &n);
  if( z==0 || !fromHex(z, n, &cB) || zCEJ==0 ){
    fail(zDesc, "case lacks canonical_bson or canonical_extjson", 0, 0);
    docextBufFree(&cB);
    return;
  }
  checkWrite(zDesc, "cB -> canonical", cB.a, cB.n, DOCEXT_JSON_CANONICAL, zCEJ, nCEJ);
  if( zREJ ){
    checkWrite(zDesc, "cB -> relaxed", cB.a, cB.n, DOCEXT_JSON_RELAXED, zREJ, nREJ);
  }
  if( !bLossy ){
    checkParse(zDesc, "cEJ -> bson", zCEJ, nCEJ, cB.a, cB.n, 0);
  }
  if( (z = getStr(aCase, "degenerate_bson", &n))!=0 ){
    if( !fromHex(z, n, &dB) ){
      fail(zDesc, "bad degenerate_bson hex", 0, 0);
    }else{
      checkWrite(zDesc, "dB -> canonical", dB.a, dB.n, DOCEXT_JSON_CANONICAL, zCEJ, nCEJ);
      if( zREJ ){
        checkWrite(zDesc, "dB -> relaxed", dB.a, dB.n, DOCEXT_JSON_RELAXED, zREJ, nREJ);
      }
    }
  }
  if( (z = getStr(aCase, "degenerate_extjson", &n))!=0 && !bLossy ){
    checkParse(zDesc, "dEJ -> bson", z, n, cB.a, cB.n, 0);
  }
  if( zREJ ){
    DocBuf r;
    memset(&r, 0, sizeof(r));
    if( checkParse(zDesc, "rEJ -> bson", zREJ, nREJ, 0, 0, &r) ){
      checkWrite(zDesc, "rEJ -> bson -> relaxed", r.a, r.n, DOCEXT_JSON_RELAXED, zREJ, nREJ);
    }
    docextBufFree(&r);
  }
  {
    const char *zCvB, *zCvEJ;
    int nCvB, nCvEJ;
    zCvB = getStr(aCase, "converted_bson", &nCvB);
    zCvEJ = getStr(aCase, "converted_extjson", &nCvEJ);
    if( zCvB && zCvEJ ){
      DocBuf cv;
      memset(&cv, 0, sizeof(cv));
      if( fromHex(zCvB, nCvB, &cv) ){
        checkWrite(zDesc, "convB -> canonical", cv.a, cv.n, DOCEXT_JSON_CANONICAL, zCvEJ, nCvEJ);
        checkParse(zDesc, "convEJ -> bson", zCvEJ, nCvEJ, cv.a, cv.n, 0);
      }else{
        fail(zDesc, "bad converted_bson hex", 0, 0);
      }
      docextBufFree(&cv);
    }
  }
  docextBufFree(&cB);
  docextBufFree(&dB);
}

static void runDecodeError(const u8 *aCase){
  const char *zDesc = "?", *z;
  int n;
  DocBuf b;
  memset(&b, 0, sizeof(b));
  if( (z = getStr(aCase, "description", &n))!=0 ) zDesc = z;
  z = getStr(aCase, "bson", &n);
  if( z==0 || !fromHex(z, n, &b) ){
    fail(zDesc, "decodeErrors case without bson hex", 0, 0);
  }else if( docextBsonValidate(b.a, b.n, 0, 0)==SQLITE_OK ){
    char *zHex = toHex(b.a, b.n);
    fail(zDesc, "decodeErrors: invalid BSON accepted by docextBsonValidate", 0, zHex);
    free(zHex);
  }else{
    nPass++;
  }
  docextBufFree(&b);
}

static void runParseError(const u8 *aCase, const char *zType){
  const char *zDesc = "?", *z;
  int n;
  if( (z = getStr(aCase, "description", &n))!=0 ) zDesc = z;
  z = getStr(aCase, "string", &n);
  if( z==0 ){
    fail(zDesc, "parseErrors case without string", 0, 0);
    return;
  }
  if( strcmp(zType, "0x13")==0 ){
    u8 a[16];
    if( docextDec128FromString(z, n, a)==SQLITE_OK ){
      fail(zDesc, "parseErrors: docextDec128FromString accepted", 0, z);
    }else{
      nPass++;
    }
  }else if( strcmp(zType, "0x00")==0 || strcmp(zType, "0x05")==0 ){
    DocBuf b;
    char *zErr = 0;
    int rc;
    memset(&b, 0, sizeof(b));
    rc = docextJsonParse(z, n, 1, &b, 0, &zErr);
    if( rc==SQLITE_OK ){
      if( strcmp(zDesc, "Bad $date (number, not string or hash)")==0 ){
        nNote++;
        printf("note: %s: %s: accepted as the legacy {\"$date\": <ms>} "
               "(INTERFACE.md §2), not counted\n", zFile, zDesc);
      }else{
        fail(zDesc, "parseErrors: text accepted", 0, z);
      }
    }else{
      nPass++;
    }
    sqlite3_free(zErr);
    docextBufFree(&b);
  }else{
    fail(zDesc, "parseErrors for a bson_type SPEC.md does not define", 0, zType);
  }
}

/* Run one corpus file. */
static void runFile(const char *zPath){
  FILE *f = fopen(zPath, "rb");
  char *zText;
  long nText;
  DocBuf doc;
  char *zErr = 0;
  DocValue v;
  char zType[16] = "";
  const char *z;
  int n;
  if( f==0 ){
    fail("(file)", "cannot open", 0, zPath);
    return;
  }
  fseek(f, 0, SEEK_END);
  nText = ftell(f);
  fseek(f, 0, SEEK_SET);
  zText = malloc(nText>0 ? nText : 1);
  if( fread(zText, 1, nText, f)!=(size_t)nText ){
    fclose(f);
    free(zText);
    fail("(file)", "cannot read", 0, zPath);
    return;
  }
  fclose(f);
  memset(&doc, 0, sizeof(doc));
  if( docextJsonParse(zText, (int)nText, 1, &doc, 0, &zErr)!=SQLITE_OK ){
    fail("(file)", "the corpus file does not parse", 0, zErr);
    sqlite3_free(zErr);
    free(zText);
    docextBufFree(&doc);
    return;
  }
  free(zText);
  if( (z = getStr(doc.a, "bson_type", &n))!=0 && n<(int)sizeof(zType) ){
    memcpy(zType, z, n);
    zType[n] = 0;
  }
  if( docextBsonFind(doc.a, "valid", 5, &v) && v.type==DOC_ARRAY ){
    DocIter it;
    docextIterInitValue(&it, &v);
    while( docextIterNext(&it) ){
      if( it.v.type==DOC_DOCUMENT ) runValid(it.v.p);
    }
  }
  if( docextBsonFind(doc.a, "decodeErrors", 12, &v) && v.type==DOC_ARRAY ){
    DocIter it;
    docextIterInitValue(&it, &v);
    while( docextIterNext(&it) ){
      if( it.v.type==DOC_DOCUMENT ) runDecodeError(it.v.p);
    }
  }
  if( docextBsonFind(doc.a, "parseErrors", 11, &v) && v.type==DOC_ARRAY ){
    DocIter it;
    docextIterInitValue(&it, &v);
    while( docextIterNext(&it) ){
      if( it.v.type==DOC_DOCUMENT ) runParseError(it.v.p, zType);
    }
  }
  docextBufFree(&doc);
}

static int cmpName(const void *a, const void *b){
  return strcmp(*(char*const*)a, *(char*const*)b);
}

int main(void){
  DIR *d = opendir(CORPUS_DIR);
  struct dirent *e;
  char **azName = 0;
  int nName = 0, k;
  if( d==0 ){
    printf("skipped: " CORPUS_DIR " not found\n");
    printf("0 passed, 0 failed\n");
    return 0;
  }
  while( (e = readdir(d))!=0 ){
    size_t n = strlen(e->d_name);
    if( n>5 && strcmp(&e->d_name[n-5], ".json")==0 ){
      azName = realloc(azName, sizeof(char*)*(nName+1));
      azName[nName++] = strdup(e->d_name);
    }
  }
  closedir(d);
  qsort(azName, nName, sizeof(char*), cmpName);
  for(k=0; k<nName; k++){
    char zPath[512];
    snprintf(zPath, sizeof(zPath), CORPUS_DIR "/%s", azName[k]);
    zFile = azName[k];
    runFile(zPath);
    free(azName[k]);
  }
  free(azName);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
