/*
** docext_jsonout.c — BSON to text: Extended JSON v2 (relaxed, canonical)
** and the mongo shell's style. The parser for the same syntaxes is in
** docext_json.c.
**
** RELAXED (the default everywhere, INTERFACE.md §2): compact, keys in
** document order, int32/int64 as JSON numbers, finite doubles as JSON
** numbers in their shortest round-trip form (an integral double keeps
** ".0"; exponents as "1.0E+20"), dates in years 1970-9999 as
** {"$date":"2012-10-10T21:14:07.096Z"} (no fraction when the milliseconds
** are zero, as the BSON corpus writes them), everything else as in
** canonical.
** CANONICAL: the Extended JSON v2 canonical form, compact.
** SHELL: the legacy mongo shell's printing: { "a" : 1, "b" : [ 1, 2 ] },
** ObjectId("…"), ISODate("…"), NumberLong(…), NumberDecimal("…"),
** Timestamp(t, i), BinData(sub, "…"), UUID("…"), /re/flags, MinKey,
** MaxKey, undefined; doubles print without a forced ".0", as the shell does.
*/
#include "docextInt.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
# include <emmintrin.h>
#endif

static const char aHex[] = "0123456789abcdef";

static void writeDocBody(int *pRc, DocBuf *p, const u8 *aDoc, const u8 *aEnd,
                         int bArray, int eMode, DocCheck *pCk, int iDepth);

/* Bytes a JSON string must escape: control characters, '"' and '\\'. */
static const u8 aNeedsEscape[256] = {
  1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,
  0,0,1,0,0,0,0,0, 0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,
  0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0, 0,0,0,0,1,0,0,0,
};

/* Is there a byte < 0x20, '"' or '\\' among the eight in w? (The classic
** "has a zero byte" bit trick, applied three times.) */
static int wordNeedsEscape(u64 w){
  u64 q = w ^ 0x2222222222222222ULL;          /* '"' bytes become 0 */
  u64 b = w ^ 0x5C5C5C5C5C5C5C5CULL;          /* '\\' bytes become 0 */
  return ((((w - 0x2020202020202020ULL) | (q - 0x0101010101010101ULL)
            | (b - 0x0101010101010101ULL)) & ~w & ~q & ~b
           & 0x8080808080808080ULL))!=0;
}

/* The slow path of writeString: escape z[i..n). */
static void writeStringEscaped(int *pRc, DocBuf *p, const u8 *a, int i, int n){
  int iRun = i;
  while( i<n ){
    char zEsc[8];
    int nEsc = 2;
    u8 c;
    while( i<n && !aNeedsEscape[a[i]] ) i++;
    if( i>=n ) break;
    c = a[i];
    docextBufAppend(pRc, p, a+iRun, i-iRun);
    iRun = ++i;
    zEsc[0] = '\\';
    switch( c ){
      case '"':  zEsc[1] = '"'; break;
      case '\\': zEsc[1] = '\\'; break;
      case '\b': zEsc[1] = 'b'; break;
      case '\f': zEsc[1] = 'f'; break;
      case '\n': zEsc[1] = 'n'; break;
      case '\r': zEsc[1] = 'r'; break;
      case '\t': zEsc[1] = 't'; break;
      default:
        zEsc[1] = 'u'; zEsc[2] = '0'; zEsc[3] = '0';
        zEsc[4] = aHex[c>>4]; zEsc[5] = aHex[c&15];
        nEsc = 6;
        break;
    }
    docextBufAppend(pRc, p, zEsc, nEsc);
  }
  docextBufAppend(pRc, p, a+iRun, n-iRun);
}

#if defined(__SSE2__)
/* Bit i set: byte i of x needs escaping ('"', '\\' or <= 0x1F). */
static int escapeMask16(__m128i x){
  const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), c = _mm_set1_epi8(0x1F);
  return _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, b)),
                                        _mm_cmpeq_epi8(_mm_max_epu8(x, c), c)));
}
#endif

/* Copy a[*pi..n) to pOut[*pi..) while no byte needs escaping, eight or
** sixteen bytes at a time; *pi stops at the first byte to escape, or n. */
static void copyUnescaped(const u8 *a, int n, u8 *pOut, int *pi){
  int i = *pi;
#if defined(__SSE2__)
  while( i+16<=n ){
    __m128i x = _mm_loadu_si128((const __m128i*)(a+i));
    if( escapeMask16(x) ) break;
    _mm_storeu_si128((__m128i*)(pOut+i), x);
    i += 16;
  }
#endif
  while( i+8<=n ){
    u64 w;
    memcpy(&w, a+i, 8);
    if( wordNeedsEscape(w) ) break;
    memcpy(pOut+i, &w, 8);
    i += 8;
  }
  if( i<n && n-i<8 && n>=8 ){
    /* The tail as the last eight bytes, overlapping ones already done. */
    u64 w;
    memcpy(&w, a+n-8, 8);
    if( !wordNeedsEscape(w) ){
      memcpy(pOut+n-8, &w, 8);
      i = n;
    }
  }
  while( i<n && !aNeedsEscape[a[i]] ){
    pOut[i] = a[i];
    i++;
  }
  *pi = i;
}

/* A JSON string: quotes, \" \\ and control characters escaped; other
** bytes (UTF-8) as they are. cAfter, if not 0, is appended after the
** closing quote (the ':' after a key). Short strings (most keys) are
** copied byte by byte; the rest go through copyUnescaped. */
static void writeStringThen(int *pRc, DocBuf *p, const char *z, int n, char cAfter){
  const u8 *a = (const u8*)z;
  int i = 0;
  u8 *pOut;
  if( !docextBufReserve(pRc, p, (i64)n+3) ) return;
  pOut = &p->a[p->n];
  *pOut++ = '"';
  if( n<8 ){
    while( i<n && !aNeedsEscape[a[i]] ){
      pOut[i] = a[i];
      i++;
    }
  }else{
    copyUnescaped(a, n, pOut, &i);
  }
  p->n += i+1;
  if( i<n ){
    writeStringEscaped(pRc, p, a, i, n);
    if( !docextBufReserve(pRc, p, 2) ) return;
  }
  p->a[p->n++] = '"';
  if( cAfter ) p->a[p->n++] = (u8)cAfter;
}

static void writeString(int *pRc, DocBuf *p, const char *z, int n){
  writeStringThen(pRc, p, z, n, 0);
}

void docextJsonWriteString(int *pRc, DocBuf *p, const char *z, int n){
  writeString(pRc, p, z, n);
}

/* The fast path of writeStringThen: a string a[0..n) inside a document that
** ends at aEnd (bytes up to there may be read) of at most 16 bytes with
** nothing to escape, the common case (keys, names), checked and copied as
** one 16-byte block, then cAfter (if not 0). The caller has reserved 20
** bytes. 0 (nothing written) when the string does not qualify. */
static inline int putShortString(DocBuf *p, const u8 *a, int n, const u8 *aEnd,
                                 char cAfter){
#if defined(__SSE2__)
  if( n<=16 && aEnd-a>=16 ){
    __m128i x = _mm_loadu_si128((const __m128i*)a);
    if( (escapeMask16(x) & ((1<<n)-1))==0 ){
      u8 *pOut = &p->a[p->n];
      pOut[0] = '"';
      _mm_storeu_si128((__m128i*)(pOut+1), x);   /* (past n: overwritten) */
      pOut[n+1] = '"';
      pOut[n+2] = (u8)cAfter;
      p->n += n + 2 + (cAfter!=0);
      return 1;
    }
  }
#else
  (void)p; (void)a; (void)n; (void)aEnd; (void)cAfter;
#endif
  return 0;
}

/* Decimal digits, two at a time. */
static const char aDigitPairs[] =
  "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
  "8081828384858687888990919293949596979899";

/* The number of decimal digits of u (1 to 20). */
static int decimalDigits(u64 u){
  static const u64 aPow10[] = {
    10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
    100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
    1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
    1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, 10000000000000000000ULL,
  };
  int n = 1;
  while( n<20 && u>=aPow10[n-1] ) n++;
  return n;
}

/* v in decimal, its digits made right to left, two at a time, straight
** into the buffer. (Not in a scratch array copied over afterwards: a wide
** load of bytes just stored one by one stalls the processor.) */
static void writeInt(int *pRc, DocBuf *p, i64 v){
  u64 u = v<0 ? (u64)0 - (u64)v : (u64)v;
  int n = decimalDigits(u) + (v<0);
  u8 *z;
  if( !docextBufReserve(pRc, p, n) ) return;
  z = &p->a[p->n];
  p->n += n;
  if( v<0 ) z[0] = '-';
  z += n;
  if( u<=0xFFFFFFFFULL ){
    uint32_t w = (uint32_t)u;               /* (32-bit arithmetic is cheaper) */
    while( w>=100 ){
      uint32_t d = (w%100)*2;
      w /= 100;
      *--z = (u8)aDigitPairs[d+1];
      *--z = (u8)aDigitPairs[d];
    }
    u = w;
  }else{
    while( u>=100 ){
      int d = (int)(u%100)*2;
      u /= 100;
      *--z = (u8)aDigitPairs[d+1];
      *--z = (u8)aDigitPairs[d];
    }
  }
  if( u>=10 ){
    *--z = (u8)aDigitPairs[u*2+1];
    *--z = (u8)aDigitPairs[u*2];
  }else{
    *--z = (u8)('0' + u);
  }
}

/* The shortest decimal form of a finite double that reads back exactly,
** written as a JSON number: "1.0", "-0.0", "0.1", "1.2345678921232E+18",
** "1.0E-7". bForceFraction: keep ".0" on integral values. */
static void writeDouble(int *pRc, DocBuf *p, double d, int bForceFraction){
  char z[40], zOut[48];
  int prec, n, i, iE;
  if( d==floor(d) && fabs(d)<1e15 ){
    /* Integral and small: plain digits (and -0). */
    if( d==0.0 && signbit(d) ) docextBufAppendByte(pRc, p, '-');
    writeInt(pRc, p, (i64)d);
    if( bForceFraction ) docextBufAppendStr(pRc, p, ".0");
    return;
  }
  for(prec=15; prec<17; prec++){
    snprintf(z, sizeof(z), "%.*g", prec, d);
    if( strtod(z, 0)==d ) break;
  }
  if( prec==17 ) snprintf(z, sizeof(z), "%.17g", d);
  /* Trim %g's form into ours: mantissa with a '.', "E+18" / "E-7". */
  n = 0;
  iE = -1;
  for(i=0; z[i]; i++) if( z[i]=='e' ){ iE = i; break; }
  if( iE<0 ){
    docextBufAppendStr(pRc, p, z);
    if( bForceFraction && strchr(z, '.')==0 ) docextBufAppendStr(pRc, p, ".0");
    return;
  }
  memcpy(zOut, z, iE);
  n = iE;
  if( memchr(zOut, '.', n)==0 ){ zOut[n++] = '.'; zOut[n++] = '0'; }
  zOut[n++] = 'E';
  i = iE+1;
  zOut[n++] = z[i]=='-' ? '-' : '+';
  if( z[i]=='-' || z[i]=='+' ) i++;
  while( z[i]=='0' && z[i+1] ) i++;
  while( z[i] ) zOut[n++] = z[i++];
  docextBufAppend(pRc, p, zOut, n);
}

static void writeHex(int *pRc, DocBuf *p, const u8 *a, int n){
  int i;
  if( docextBufGrow(pRc, p, n*2) ){
    for(i=0; i<n; i++){
      p->a[p->n++] = (u8)aHex[a[i]>>4];
      p->a[p->n++] = (u8)aHex[a[i]&15];
    }
  }
}

static void writeBase64(int *pRc, DocBuf *p, const u8 *a, int n){
  static const char aB64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  int i;
  if( !docextBufGrow(pRc, p, ((i64)n+2)/3*4) ) return;
  for(i=0; i+2<n; i+=3){
    uint32_t v = ((uint32_t)a[i]<<16) | ((uint32_t)a[i+1]<<8) | a[i+2];
    p->a[p->n++] = (u8)aB64[v>>18];
    p->a[p->n++] = (u8)aB64[(v>>12)&63];
    p->a[p->n++] = (u8)aB64[(v>>6)&63];
    p->a[p->n++] = (u8)aB64[v&63];
  }
  if( i<n ){
    uint32_t v = (uint32_t)a[i]<<16;
    if( i+1<n ) v |= (uint32_t)a[i+1]<<8;
    p->a[p->n++] = (u8)aB64[v>>18];
    p->a[p->n++] = (u8)aB64[(v>>12)&63];
    p->a[p->n++] = i+1<n ? (u8)aB64[(v>>6)&63] : '=';
    p->a[p->n++] = '=';
  }
}

/* Regex options, sorted as the spec requires of encoders. */
static void writeRegexOptions(int *pRc, DocBuf *p, const char *zOpt, int bQuote){
  u8 aSpace[16];
  DocBuf sorted;
  docextBufInit(&sorted, aSpace, sizeof(aSpace));
  docextBufAppendStr(pRc, &sorted, zOpt);
  if( *pRc==SQLITE_OK ) docextRegexSortOptions(sorted.a, sorted.n);
  if( bQuote ) writeString(pRc, p, (const char*)sorted.a, (int)sorted.n);
  else docextBufAppend(pRc, p, sorted.a, sorted.n);
  docextBufFree(&sorted);
}

static void writeDate(int *pRc, DocBuf *p, i64 ms, int eMode){
  char z[48];
  int n;
  if( eMode==DOCEXT_JSON_SHELL ){
    if( ms>=-62167219200000LL && ms<=253402300799999LL ){
      n = docextIsoDateFormat(ms, z);
      docextBufAppendStr(pRc, p, "ISODate(\"");
      docextBufAppend(pRc, p, z, n);
      docextBufAppendStr(pRc, p, "\")");
    }else{
      docextBufAppendStr(pRc, p, "new Date(");
      writeInt(pRc, p, ms);
      docextBufAppendByte(pRc, p, ')');
    }
    return;
  }
  if( eMode==DOCEXT_JSON_RELAXED && ms>=0 && ms<=253402300799999LL ){
    /* (formatted in place: a copy of bytes just stored one by one stalls) */
    static const char zOpen[] = "{\"$date\":\"";
    u8 *pOut;
    if( !docextBufReserve(pRc, p, sizeof(zOpen) + 48) ) return;
    pOut = &p->a[p->n];
    memcpy(pOut, zOpen, sizeof(zOpen)-1);
    pOut += sizeof(zOpen)-1;
    n = docextIsoDateFormat(ms, (char*)pOut);
    if( ms%1000==0 ){ pOut[n-5] = 'Z'; n -= 4; }   /* ".000Z" -> "Z" */
    pOut[n] = '"';
    pOut[n+1] = '}';
    p->n += (i64)(sizeof(zOpen)-1) + n + 2;
    return;
  }
  docextBufAppendStr(pRc, p, "{\"$date\":{\"$numberLong\":\"");
  writeInt(pRc, p, ms);
  docextBufAppendStr(pRc, p, "\"}}");
}

static void writeOid(int *pRc, DocBuf *p, const u8 *a, int eMode){
  docextBufAppendStr(pRc, p, eMode==DOCEXT_JSON_SHELL ? "ObjectId(\"" : "{\"$oid\":\"");
  writeHex(pRc, p, a, 12);
  docextBufAppendStr(pRc, p, eMode==DOCEXT_JSON_SHELL ? "\")" : "\"}");
}

static void writeBinary(int *pRc, DocBuf *p, const DocValue *v, int eMode){
  int n = docextGetI32(v->p);
  int sub = v->p[4];
  const u8 *a = v->p + 5;
  char z[8];
  if( sub==0x02 ){
    /* Old binary repeats its length inside the payload; the text forms
    ** carry only the bytes after it. */
    a += 4;
    n -= 4;
  }
  if( eMode==DOCEXT_JSON_SHELL ){
    if( sub==4 && n==16 ){
      static const int aDash[] = {4, 6, 8, 10};
      int i, k = 0;
      docextBufAppendStr(pRc, p, "UUID(\"");
      for(i=0; i<16; i++){
        if( k<4 && i==aDash[k] ){ docextBufAppendByte(pRc, p, '-'); k++; }
        writeHex(pRc, p, &a[i], 1);
      }
      docextBufAppendStr(pRc, p, "\")");
    }else{
      sqlite3_snprintf(sizeof(z), z, "%d", sub);
      docextBufAppendStr(pRc, p, "BinData(");
      docextBufAppendStr(pRc, p, z);
      docextBufAppendStr(pRc, p, ",\"");
      writeBase64(pRc, p, a, n);
      docextBufAppendStr(pRc, p, "\")");
    }
    return;
  }
  docextBufAppendStr(pRc, p, "{\"$binary\":{\"base64\":\"");
  writeBase64(pRc, p, a, n);
  docextBufAppendStr(pRc, p, "\",\"subType\":\"");
  writeHex(pRc, p, &v->p[4], 1);
  docextBufAppendStr(pRc, p, "\"}}");
}

/* Can a regex be written as a /pattern/flags literal that the parser
** (jsonRegexLiteral) reads back as the same bytes? Not when the pattern is
** empty or starts with '*' (the text would start a comment), holds a line
** break (which ends a literal), holds the escape "\/" (read as '/'), ends
** in a lone backslash (it would escape the closing '/') or leaves a '['
** class open (the closing '/' would be in it); nor when the options are
** not a set of the flags a literal takes (ilmsux). Such regexes are
** written as {"$regularExpression": …} instead. */
static int isShellRegexLiteral(const char *zPat, const char *zOpt){
  int i, bClass = 0;
  if( zPat[0]==0 || zPat[0]=='*' ) return 0;
  for(i=0; zOpt[i]; i++){
    if( strchr("ilmsux", zOpt[i])==0 || strchr(&zOpt[i+1], zOpt[i]) ) return 0;
  }
  for(i=0; zPat[i]; i++){
    if( zPat[i]=='\n' || zPat[i]=='\r' ) return 0;
    if( zPat[i]=='\\' ){
      if( zPat[i+1]=='/' || zPat[i+1]==0 ) return 0;
      i++;                         /* the escaped character is not looked at */
    }else if( zPat[i]=='[' ){
      bClass = 1;
    }else if( zPat[i]==']' ){
      bClass = 0;
    }
  }
  return !bClass;
}

/* The shell's form of a DBRef: a trusted document of exactly $ref (a
** string), $id and optionally $db (a string), in that order, printed as
** DBRef("collection", id[, "database"]), as both mongo shells print it.
** 0 (nothing written) for any other document. */
static int writeShellDBRef(int *pRc, DocBuf *p, const DocValue *pDoc){
  static const char *const azKey[] = { "$ref", "$id", "$db" };
  DocValue aV[3];
  DocIter it;
  int n = 0, i;
  docextIterInit(&it, pDoc->p);
  while( docextIterNext(&it)>0 ){
    if( n==3 || !docextIterKeyIs(&it, azKey[n]) ) return 0;
    aV[n++] = it.v;
  }
  if( n<2 || aV[0].type!=DOC_STRING || (n==3 && aV[2].type!=DOC_STRING) ) return 0;
  docextBufAppendStr(pRc, p, "DBRef(");
  for(i=0; i<n; i++){
    if( i ) docextBufAppendStr(pRc, p, ", ");
    docextJsonWriteValue(pRc, p, &aV[i], DOCEXT_JSON_SHELL);
  }
  docextBufAppendByte(pRc, p, ')');
  return 1;
}

/* zPat as a /pattern/ literal (isShellRegexLiteral): each '/' that is not
** escaped gets a backslash, which the parser drops again. */
static void writeShellRegex(int *pRc, DocBuf *p, const char *zPat){
  int i;
  docextBufAppendByte(pRc, p, '/');
  for(i=0; zPat[i]; i++){
    if( zPat[i]=='\\' && zPat[i+1] ){
      docextBufAppend(pRc, p, &zPat[i], 2);
      i++;
      continue;
    }
    if( zPat[i]=='/' ) docextBufAppendByte(pRc, p, '\\');
    docextBufAppendByte(pRc, p, (u8)zPat[i]);
  }
  docextBufAppendByte(pRc, p, '/');
}

void docextJsonWriteValue(int *pRc, DocBuf *p, const DocValue *v, int eMode){
  int bShell = eMode==DOCEXT_JSON_SHELL;
  int n;
  const char *z;
  char zBuf[48];
  if( *pRc!=SQLITE_OK ) return;
  switch( v->type ){
    case DOC_DOUBLE: {
      double d = docextValueDouble(v);
      if( isnan(d) || isinf(d) ){
        const char *zSpecial = isnan(d) ? "NaN" : d<0 ? "-Infinity" : "Infinity";
        if( bShell ){
          docextBufAppendStr(pRc, p, zSpecial);
        }else{
          docextBufAppendStr(pRc, p, "{\"$numberDouble\":\"");
          docextBufAppendStr(pRc, p, zSpecial);
          docextBufAppendStr(pRc, p, "\"}");
        }
      }else if( eMode==DOCEXT_JSON_CANONICAL ){
        docextBufAppendStr(pRc, p, "{\"$numberDouble\":\"");
        writeDouble(pRc, p, d, 1);
        docextBufAppendStr(pRc, p, "\"}");
      }else{
        writeDouble(pRc, p, d, !bShell);
      }
      break;
    }
    case DOC_STRING:
      z = docextValueStr(v, &n);
      writeString(pRc, p, z, n);
      break;
    case DOC_DOCUMENT:
      if( bShell && writeShellDBRef(pRc, p, v) ) break;
      writeDocBody(pRc, p, v->p, v->p + v->n, 0, eMode, 0, 0);
      break;
    case DOC_ARRAY:
      writeDocBody(pRc, p, v->p, v->p + v->n, 1, eMode, 0, 0);
      break;
    case DOC_BINARY:
      writeBinary(pRc, p, v, eMode);
      break;
    case DOC_UNDEFINED:
      docextBufAppendStr(pRc, p, bShell ? "undefined" : "{\"$undefined\":true}");
      break;
    case DOC_OID:
      writeOid(pRc, p, v->p, eMode);
      break;
    case DOC_BOOL:
      docextBufAppendStr(pRc, p, v->p[0] ? "true" : "false");
      break;
    case DOC_DATE:
      writeDate(pRc, p, docextValueI64(v), eMode);
      break;
    case DOC_NULL:
      docextBufAppendStr(pRc, p, "null");
      break;
    case DOC_REGEX: {
      const char *zPat = (const char*)v->p;
      const char *zOpt = zPat + strlen(zPat) + 1;
      if( bShell && isShellRegexLiteral(zPat, zOpt) ){
        writeShellRegex(pRc, p, zPat);
        writeRegexOptions(pRc, p, zOpt, 0);
      }else{
        docextBufAppendStr(pRc, p, "{\"$regularExpression\":{\"pattern\":");
        writeString(pRc, p, zPat, (int)strlen(zPat));
        docextBufAppendStr(pRc, p, ",\"options\":");
        writeRegexOptions(pRc, p, zOpt, 1);
        docextBufAppendStr(pRc, p, "}}");
      }
      break;
    }
    case DOC_DBPOINTER:
      z = docextValueStr(v, &n);
      if( bShell ){
        docextBufAppendStr(pRc, p, "DBPointer(");
        writeString(pRc, p, z, n);
        docextBufAppendStr(pRc, p, ", ");
        writeOid(pRc, p, v->p + 4 + n + 1, eMode);
        docextBufAppendByte(pRc, p, ')');
      }else{
        docextBufAppendStr(pRc, p, "{\"$dbPointer\":{\"$ref\":");
        writeString(pRc, p, z, n);
        docextBufAppendStr(pRc, p, ",\"$id\":");
        writeOid(pRc, p, v->p + 4 + n + 1, eMode);
        docextBufAppendStr(pRc, p, "}}");
      }
      break;
    case DOC_CODE:
    case DOC_SYMBOL:
      z = docextValueStr(v, &n);
      docextBufAppendStr(pRc, p, v->type==DOC_CODE
          ? (bShell ? "{ \"$code\" : " : "{\"$code\":")
          : (bShell ? "{ \"$symbol\" : " : "{\"$symbol\":"));
      writeString(pRc, p, z, n);
      docextBufAppendStr(pRc, p, bShell ? " }" : "}");
      break;
    case DOC_CODEWSCOPE:
      z = docextValueStr(v, &n);
      docextBufAppendStr(pRc, p, bShell ? "{ \"$code\" : " : "{\"$code\":");
      writeString(pRc, p, z, n);
      docextBufAppendStr(pRc, p, bShell ? ", \"$scope\" : " : ",\"$scope\":");
      writeDocBody(pRc, p, v->p + 8 + n + 1, v->p + v->n, 0, eMode, 0, 0);
      docextBufAppendStr(pRc, p, bShell ? " }" : "}");
      break;
    case DOC_INT32:
      if( eMode==DOCEXT_JSON_CANONICAL ){
        docextBufAppendStr(pRc, p, "{\"$numberInt\":\"");
        writeInt(pRc, p, docextValueI32(v));
        docextBufAppendStr(pRc, p, "\"}");
      }else{
        writeInt(pRc, p, docextValueI32(v));
      }
      break;
    case DOC_INT64: {
      i64 x = docextValueI64(v);
      if( eMode==DOCEXT_JSON_CANONICAL ){
        docextBufAppendStr(pRc, p, "{\"$numberLong\":\"");
        writeInt(pRc, p, x);
        docextBufAppendStr(pRc, p, "\"}");
      }else if( bShell ){
        /* The shell quotes a long that a JavaScript number cannot hold. */
        int bQuote = x>9007199254740991LL || x<-9007199254740991LL;
        docextBufAppendStr(pRc, p, bQuote ? "NumberLong(\"" : "NumberLong(");
        writeInt(pRc, p, x);
        docextBufAppendStr(pRc, p, bQuote ? "\")" : ")");
      }else{
        writeInt(pRc, p, x);
      }
      break;
    }
    case DOC_TIMESTAMP: {
      u64 u = (u64)docextValueI64(v);
      docextBufAppendStr(pRc, p, bShell ? "Timestamp(" : "{\"$timestamp\":{\"t\":");
      writeInt(pRc, p, (i64)(u>>32));
      docextBufAppendStr(pRc, p, bShell ? ", " : ",\"i\":");
      writeInt(pRc, p, (i64)(u & 0xFFFFFFFF));
      docextBufAppendStr(pRc, p, bShell ? ")" : "}}");
      break;
    }
    case DOC_DECIMAL128:
      n = docextDec128ToString(v->p, zBuf);
      docextBufAppendStr(pRc, p, bShell ? "NumberDecimal(\"" : "{\"$numberDecimal\":\"");
      docextBufAppend(pRc, p, zBuf, n);
      docextBufAppendStr(pRc, p, bShell ? "\")" : "\"}");
      break;
    case DOC_MINKEY:
      docextBufAppendStr(pRc, p, bShell ? "MinKey" : "{\"$minKey\":1}");
      break;
    case DOC_MAXKEY:
      docextBufAppendStr(pRc, p, bShell ? "MaxKey" : "{\"$maxKey\":1}");
      break;
  }
}

/* The elements of a document ({…}) or array ([…]). This loop is every
** read's hot path (SELECT doc FROM c), so it writes the commonest values
** itself and leaves the rest to docextJsonWriteValue.
** pCk: the document is not yet checked; check it (at nesting iDepth) while
** writing, setting *pRc to SQLITE_CORRUPT at the first problem (pCk says
** what and where). Else it is trusted. aEnd is the end of the outermost
** document (short strings are loaded in 16-byte blocks up to there). */
static void writeDocBody(int *pRc, DocBuf *p, const u8 *aDoc, const u8 *aEnd,
                         int bArray, int eMode, DocCheck *pCk, int iDepth){
  DocIter it;
  int bShell = eMode==DOCEXT_JSON_SHELL;
  int bFirst = 1;
  docextBufAppendByte(pRc, p, bArray ? '[' : '{');
  if( pCk==0 ){
    docextIterInit(&it, aDoc);
  }else{
    /* (the outermost document's size is the caller's; an embedded one's
    ** was checked against the room it has by the step that found it) */
    i64 nAvail = aDoc==pCk->aBase ? aEnd-aDoc : docextGetI32(aDoc);
    memset(&it, 0, sizeof(it));
    if( docextCheckStart(pCk, &it, aDoc, nAvail) ){
      *pRc = SQLITE_CORRUPT;
      return;
    }
  }
  while( *pRc==SQLITE_OK ){
    int r = pCk ? docextCheckNext(pCk, &it, iDepth) : docextIterNext(&it);
    if( r<=0 ){
      if( r<0 ) *pRc = SQLITE_CORRUPT;
      break;
    }
    /* One reservation per element: the separator, a short key, and a short
    ** string value (putShortString: 20 bytes each). */
    if( !docextBufReserve(pRc, p, 42) ) break;
    if( !bFirst ) p->a[p->n++] = ',';
    if( bShell ) p->a[p->n++] = ' ';
    bFirst = 0;
    if( !bArray ){
      if( bShell ){
        writeString(pRc, p, it.zKey, it.nKey);
        docextBufAppend(pRc, p, " : ", 3);
        if( !docextBufReserve(pRc, p, 20) ) break;   /* (a short value's) */
      }else if( !putShortString(p, (const u8*)it.zKey, it.nKey, aEnd, ':') ){
        writeStringThen(pRc, p, it.zKey, it.nKey, ':');
        if( !docextBufReserve(pRc, p, 20) ) break;
      }
    }
    switch( it.v.type ){
      case DOC_STRING:
        if( !putShortString(p, it.v.p+4, it.v.n-5, aEnd, 0) ){
          writeStringThen(pRc, p, (const char*)it.v.p+4, it.v.n-5, 0);
        }
        break;
      case DOC_DOCUMENT:
        /* (a document not yet checked is written as it is) */
        if( bShell && pCk==0 && writeShellDBRef(pRc, p, &it.v) ) break;
        /* fall through */
      case DOC_ARRAY:
        writeDocBody(pRc, p, it.v.p, aEnd, it.v.type==DOC_ARRAY, eMode, pCk, iDepth+1);
        break;
      case DOC_INT32:
        if( eMode!=DOCEXT_JSON_CANONICAL ){
          writeInt(pRc, p, docextGetI32(it.v.p));
          break;
        }
        {
          DocValue v = it.v;
          docextJsonWriteValue(pRc, p, &v, eMode);
        }
        break;
      case DOC_BOOL:
        if( it.v.p[0] ) docextBufAppend(pRc, p, "true", 4);
        else docextBufAppend(pRc, p, "false", 5);
        break;
      default: {
        /* (a copy: the iterator's address is never taken, so the compiler
        ** can keep it in registers) */
        DocValue v = it.v;
        docextJsonWriteValue(pRc, p, &v, eMode);
        break;
      }
    }
  }
  if( bShell ) docextBufAppendByte(pRc, p, ' ');
  docextBufAppendByte(pRc, p, bArray ? ']' : '}');
}

/* Text is usually a little longer than its BSON (n bytes): grow p once,
** up front, for a whole document's text. */
static void growForText(int *pRc, DocBuf *p, i64 n){
  docextBufGrow(pRc, p, n + n/4 + 16);
}

void docextJsonWriteDoc(int *pRc, DocBuf *p, const u8 *aDoc, int eMode){
  growForText(pRc, p, docextGetI32(aDoc));
  writeDocBody(pRc, p, aDoc, aDoc + docextGetI32(aDoc), 0, eMode, 0, 0);
}

int docextJsonWriteDocChecked(int *pRc, DocBuf *p, const u8 *aDoc, i64 n, int eMode,
                              DocCheck *pCk){
  if( *pRc!=SQLITE_OK ) return SQLITE_OK;
  if( docextCheckInit(pCk, aDoc, n, 0)!=SQLITE_OK ) return SQLITE_CORRUPT;
  growForText(pRc, p, n);
  writeDocBody(pRc, p, aDoc, aDoc + n, 0, eMode, pCk, 0);
  if( *pRc==SQLITE_CORRUPT && pCk->zWhy ){
    *pRc = SQLITE_OK;
    return SQLITE_CORRUPT;
  }
  return SQLITE_OK;
}
