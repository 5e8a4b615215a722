/*
** docext_json.c — text in: strict JSON, MongoDB Extended JSON v2
** (canonical, relaxed and the legacy v1 forms) and mongo shell literals,
** mixed freely, parsed by one recursive-descent pass straight into BSON.
** (Text out lives in docext_jsonout.c.)
**
** Grammar accepted. White space is ' ', \t, \r, \n; a "// …" line comment
** or a "/" "* … *" "/" block comment counts as white space anywhere white
** space may appear. A UTF-8 byte order mark may start the text.
**
**   document := '{' [ member { ',' member } [ ',' ] ] '}'
**   member   := key ':' value
**   key      := string | word      word: one or more of A-Z a-z 0-9 _ $ .
**                                  and UTF-8 sequences (so author.first_name
**                                  and $gt need no quotes)
**   array    := '[' [ value { ',' value } [ ',' ] ] ']'
**   value    := document | array | string | number | regex | literal | call
**   string   := '"' chars '"' | "'" chars "'"
**               escapes \" \' \\ \/ \b \f \n \r \t \uXXXX (a surrogate pair
**               of \u escapes makes one code point; a lone surrogate is an
**               error); raw bytes must be valid UTF-8 and not below 0x20
**   number   := [ '-' ] ( '0' | [1-9][0-9]* ) [ '.' [0-9]+ ]
**               [ ( 'e' | 'E' ) [ '+' | '-' ] [0-9]+ ]
**             | [ '-' ] 'Infinity' | 'NaN'
**   regex    := '/' pattern '/' [ flags ]   pattern: any bytes but a newline,
**               '\' escapes the next byte (kept as written), a '/' inside
**               [...] does not end it; flags from "ilmsux", stored sorted
**   literal  := true | false | null | undefined | MinKey | MaxKey
**               (MinKey and MaxKey may be followed by "()")
**   call     := [ 'new' ] name '(' [ arg [ ',' arg ] ] ')'
**               arg is a string or a number; the calls are (the legacy
**               shell's spellings, then mongosh's):
**                 ObjectId() ObjectId(hex24) ObjectID(…)        ObjectId
**                 ISODate() ISODate(iso) Date() Date(iso) Date(ms)  date
**                   (no argument: now, from docextClockNowMs())
**                 NumberInt(n|"n")  Int32(…)                    int32
**                 NumberLong(n|"n")  Long(…)                    int64
**                 NumberDecimal("d"|d)  Decimal128(…)           decimal128
**                 Double(n|"n")                                 double
**                 Timestamp(t, i)  Timestamp({t: t, i: i})      timestamp
**                 BinData(subtype, "base64")  HexData(subtype, "hex")
**                 Binary.createFromBase64("base64"[, subtype])
**                 UUID("hex")                                   binary 4
**                 DBPointer("ns", ObjectId("hex24"))            DBPointer
**
** Number typing: an integer becomes int32 when it fits, else int64 when it
** fits, else double; a number with a fraction or exponent is a double.
**
** Type wrappers. A document that is not the root and has a key starting
** with '$' may be an Extended JSON type wrapper. Once it has been parsed
** (into the output, as a document) its keys are examined, in any order:
**
**   {$oid: hex24}  {$symbol: s}  {$numberInt: s}  {$numberLong: s}
**   {$numberDouble: s}  {$numberDecimal: s}  {$uuid: s}
**   {$binary: {base64: s, subType: hex}}  {$binary: s, $type: hex}
**   {$code: s}  {$code: s, $scope: document}
**   {$timestamp: {t: uint32, i: uint32}}
**   {$regularExpression: {pattern: s, options: s}}
**   {$regex: s [, $options: s]}          (legacy; only if both are strings)
**   {$dbPointer: {$ref: s, $id: ObjectId}}
**   {$date: iso-string | {$numberLong: s} | integer}
**   {$minKey: 1}  {$maxKey: 1}  {$undefined: true}
**
** If one of the keys above other than $regex/$options/$type/$scope is
** present, the document must be exactly that wrapper: a wrong value or an
** extra key is an error (the Extended JSON spec's rule). A document whose
** '$' keys name no wrapper ({$gt: 5}, {$type: "string"}, a DBRef) stays a
** document, so filters and updates parse as documents. The wrapper's value
** then replaces the document in the output.
**
** Limits: at most DOCEXT_MAX_DEPTH documents/arrays below the root, at most
** DOCEXT_MAX_BSON bytes of BSON. Levels are counted in the BSON written, as
** the BSON validator counts them: a type wrapper and the documents it holds
** ({"$binary": {"base64": …}}) are a value, not levels; a $scope is one.
** A document is known to be a wrapper once it has a wrapper's key, so the
** documents parsed inside it afterwards do not count; one that turns out a
** plain document is checked against the limit when it closes.
** Errors are "docext: <what> at line L column C", 1-based, columns in bytes.
*/
#include "docextInt.h"
#if defined(__SSE2__)
# include <emmintrin.h>
#endif
#include <stdarg.h>
#include <stdlib.h>
#include <math.h>

typedef struct JsonParse JsonParse;
struct JsonParse {
  const char *z;      /* the text, z[0..n): not NUL-terminated */
  int n;              /* its length in bytes */
  int i;              /* cursor */
  int rc;             /* sticky result code */
  int iErr;           /* text offset an error is reported at */
  char *zMsg;         /* what went wrong, without the position */
  int nDepth;         /* documents/arrays open below the root (recursion) */
  int nLevel;         /* those of them that are levels of the BSON: not
                      ** type wrappers nor the documents inside one */
  int bInWrapper;     /* the value about to be parsed is inside a document
                      ** that names a type wrapper ({"$binary": {…}}) */
  i64 iRoot;          /* offset of the root document in pOut */
  int bFixed;         /* refuse literals that make a new value at each
                      ** reading: ObjectId(), new Date(), ISODate() */
  DocBuf *pOut;       /* the BSON being written */
  DocBuf tmp;         /* scratch: call arguments, rebuilt wrapper values */
  int bOddName;       /* a field name starts with '$' (not a type
                      ** wrapper's) or has a '.' (docextJsonParseStored) */
  int nNulEscape;     /* \u0000 escapes decoded so far (the only way a
                      ** NUL byte gets into a string: keys must not have
                      ** one) */
};

/* One argument of a shell call such as NumberLong(…). */
typedef struct JsonArg JsonArg;
struct JsonArg {
  int eKind;          /* JARG_STRING, JARG_INT, JARG_DOUBLE */
  int iText, nText;   /* its text, as written */
  i64 iVal;           /* JARG_INT */
  double rVal;        /* JARG_DOUBLE */
  i64 iStr; int nStr; /* JARG_STRING: decoded bytes at tmp.a[iStr] */
};
#define JARG_STRING 1
#define JARG_INT    2
#define JARG_DOUBLE 3

/* Result of scanning a number. */
#define JNUM_ERROR  0
#define JNUM_INT    1
#define JNUM_DOUBLE 2

/* Record the first error: its message and where it is. */
static void jsonErr(JsonParse *p, int iOff, const char *zFmt, ...){
  if( p->rc==SQLITE_OK ){
    va_list ap;
    va_start(ap, zFmt);
    p->rc = docextErrorV(&p->zMsg, zFmt, ap);
    va_end(ap);
    p->iErr = iOff;
  }
}

static int jsonIsDigit(int c){ return c>='0' && c<='9'; }
static int jsonIsHex(int c){
  return (c>='0' && c<='9') || (c>='a' && c<='f') || (c>='A' && c<='F');
}
static int jsonHexVal(int c){
  if( c<='9' ) return c - '0';
  if( c>='a' ) return c - 'a' + 10;
  return c - 'A' + 10;
}
/* A byte of a bare word in value position (ObjectId, true, …). */
static int jsonIsWordChar(int c){
  return (c>='a' && c<='z') || (c>='A' && c<='Z') || jsonIsDigit(c) || c=='_' || c=='$';
}
/* A byte of an unquoted key: also '.', and the bytes of UTF-8 sequences. */
static int jsonIsKeyChar(int c){
  return jsonIsWordChar(c) || c=='.' || c>=0x80;
}

/* Length of the valid UTF-8 sequence at z (n bytes available), or 0. */
static int jsonUtf8Len(const u8 *z, int n){
  u8 c = z[0];
  if( c<0x80 ) return 1;
  if( c<0xC2 ) return 0;
  if( c<0xE0 ){
    if( n<2 || (z[1]&0xC0)!=0x80 ) return 0;
    return 2;
  }
  if( c<0xF0 ){
    if( n<3 || (z[1]&0xC0)!=0x80 || (z[2]&0xC0)!=0x80 ) return 0;
    if( c==0xE0 && z[1]<0xA0 ) return 0;    /* overlong */
    if( c==0xED && z[1]>=0xA0 ) return 0;   /* surrogate */
    return 3;
  }
  if( c<0xF5 ){
    if( n<4 || (z[1]&0xC0)!=0x80 || (z[2]&0xC0)!=0x80 || (z[3]&0xC0)!=0x80 ) return 0;
    if( c==0xF0 && z[1]<0x90 ) return 0;    /* overlong */
    if( c==0xF4 && z[1]>=0x90 ) return 0;   /* above U+10FFFF */
    return 4;
  }
  return 0;
}

static void jsonPutUtf8(int *pRc, DocBuf *pBuf, uint32_t c){
  u8 a[4];
  int n;
  if( c<0x80 ){
    a[0] = (u8)c; n = 1;
  }else if( c<0x800 ){
    a[0] = (u8)(0xC0 | (c>>6)); a[1] = (u8)(0x80 | (c&0x3F)); n = 2;
  }else if( c<0x10000 ){
    a[0] = (u8)(0xE0 | (c>>12)); a[1] = (u8)(0x80 | ((c>>6)&0x3F));
    a[2] = (u8)(0x80 | (c&0x3F)); n = 3;
  }else{
    a[0] = (u8)(0xF0 | (c>>18)); a[1] = (u8)(0x80 | ((c>>12)&0x3F));
    a[2] = (u8)(0x80 | ((c>>6)&0x3F)); a[3] = (u8)(0x80 | (c&0x3F)); n = 4;
  }
  docextBufAppend(pRc, pBuf, a, n);
}

static int jsonPeek(JsonParse *p){
  return p->i<p->n ? (u8)p->z[p->i] : -1;
}

/* Skip white space and comments. */
static void jsonWsSlow(JsonParse *p){
  const char *z = p->z;
  while( p->i<p->n ){
    char c = z[p->i];
    if( c==' ' || c=='\t' || c=='\n' || c=='\r' ){
      p->i++;
    }else if( c=='/' && p->i+1<p->n && z[p->i+1]=='/' ){
      while( p->i<p->n && z[p->i]!='\n' ) p->i++;
    }else if( c=='/' && p->i+1<p->n && z[p->i+1]=='*' ){
      int iStart = p->i;
      p->i += 2;
      while( p->i+1<p->n && (z[p->i]!='*' || z[p->i+1]!='/') ) p->i++;
      if( p->i+1>=p->n ){
        p->i = p->n;
        jsonErr(p, iStart, "unterminated comment");
        return;
      }
      p->i += 2;
    }else{
      break;
    }
  }
}

/* Skip whitespace and comments. Text without them (the usual case) takes
** one test per token here, not a call. */
static inline void jsonWs(JsonParse *p){
  if( p->i<p->n ){
    u8 c = (u8)p->z[p->i];
    if( c>' ' && c!='/' ) return;
  }
  jsonWsSlow(p);
}

/* Four hex digits at z[i..) as a number, or -1. */
static int jsonHex4(JsonParse *p, int i){
  int k, v = 0;
  if( i+4>p->n ) return -1;
  for(k=0; k<4; k++){
    int c = (u8)p->z[i+k];
    if( !jsonIsHex(c) ) return -1;
    v = v*16 + jsonHexVal(c);
  }
  return v;
}

/* Decode the string literal at the cursor (opened by " or ') onto the end
** of pBuf; the cursor ends past the closing quote. */
static void jsonString(JsonParse *p, DocBuf *pBuf){
  const char *z = p->z;
  char q = z[p->i];
  int iStart = p->i;
  p->i++;
  while( p->rc==SQLITE_OK ){
    int i = p->i;
    int c;
    /* Sixteen plain bytes at a time (then eight): none a quote, a
    ** backslash, a control character or non-ASCII. Each block is stored
    ** as it is checked; the output keeps only its plain bytes. */
#if defined(__SSE2__)
    {
      const __m128i vq = _mm_set1_epi8('"'), vs = _mm_set1_epi8('\''),
                    vb = _mm_set1_epi8('\\'), vc = _mm_set1_epi8(0x1F);
      while( i+16<=p->n && docextBufReserve(&p->rc, pBuf, 16) ){
        __m128i x = _mm_loadu_si128((const __m128i*)&z[i]);
        __m128i bad = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(x, vq), _mm_cmpeq_epi8(x, vs)),
            _mm_or_si128(_mm_cmpeq_epi8(x, vb), _mm_cmpeq_epi8(_mm_max_epu8(x, vc), vc)));
        /* (bytes >= 0x80 have their top bit set: movemask finds them too) */
        int m = _mm_movemask_epi8(_mm_or_si128(bad, x));
        _mm_storeu_si128((__m128i*)&pBuf->a[pBuf->n], x);
        if( m ){
          /* z[i+k] needs a look: the scans below would only find it again */
          int k = __builtin_ctz((unsigned)m);
          pBuf->n += k;
          p->i = i + k;
          goto special_byte;
        }
        pBuf->n += 16;
        i += 16;
      }
      p->i = i;
    }
#endif
    while( i+8<=p->n ){
      u64 w, d, s1, b;
      memcpy(&w, &z[i], 8);
      d = w ^ 0x2222222222222222ULL;            /* '"'  -> 0 */
      s1 = w ^ 0x2727272727272727ULL;           /* '\'' -> 0 */
      b = w ^ 0x5C5C5C5C5C5C5C5CULL;            /* '\\' -> 0 */
      if( ((((w - 0x2020202020202020ULL) & ~w)
          | ((d - 0x0101010101010101ULL) & ~d)
          | ((s1 - 0x0101010101010101ULL) & ~s1)
          | ((b - 0x0101010101010101ULL) & ~b)
          | w) & 0x8080808080808080ULL) ) break;
      i += 8;
    }
    while( i<p->n && (c = (u8)z[i])!=q && c!='\\' && c>=0x20 && c<0x80 ) i++;
    docextBufAppend(&p->rc, pBuf, &z[p->i], i - p->i);
    p->i = i;
#if defined(__SSE2__)
 special_byte:
    i = p->i;
#endif
    if( i>=p->n ){
      jsonErr(p, iStart, "unterminated string");
      return;
    }
    c = (u8)z[i];
    if( c==q ){
      p->i++;
      return;
    }
    if( c=='"' || c=='\'' ){
      /* the other quote: an ordinary character here */
      docextBufAppendByte(&p->rc, pBuf, (u8)c);
      p->i++;
      continue;
    }
    if( c<0x20 ){
      jsonErr(p, i, "control character in string (use an escape)");
      return;
    }
    if( c>=0x80 ){
      int nc = jsonUtf8Len((const u8*)&z[i], p->n - i);
      if( nc==0 ){
        jsonErr(p, i, "invalid UTF-8 in string");
        return;
      }
      docextBufAppend(&p->rc, pBuf, &z[i], nc);
      p->i += nc;
      continue;
    }
    /* A backslash escape. */
    if( i+1>=p->n ){
      jsonErr(p, iStart, "unterminated string");
      return;
    }
    c = (u8)z[i+1];
    switch( c ){
      case '"': case '\'': case '\\': case '/':
        docextBufAppendByte(&p->rc, pBuf, (u8)c); break;
      case 'b': docextBufAppendByte(&p->rc, pBuf, '\b'); break;
      case 'f': docextBufAppendByte(&p->rc, pBuf, '\f'); break;
      case 'n': docextBufAppendByte(&p->rc, pBuf, '\n'); break;
      case 'r': docextBufAppendByte(&p->rc, pBuf, '\r'); break;
      case 't': docextBufAppendByte(&p->rc, pBuf, '\t'); break;
      case 'u': {
        int v = jsonHex4(p, i+2);
        if( v<0 ){
          jsonErr(p, i, "invalid \\u escape (need 4 hex digits)");
          return;
        }
        if( v>=0xDC00 && v<=0xDFFF ){
          jsonErr(p, i, "invalid \\u escape (lone low surrogate)");
          return;
        }
        if( v>=0xD800 && v<=0xDBFF ){
          int v2 = -1;
          if( i+7<p->n && z[i+6]=='\\' && z[i+7]=='u' ) v2 = jsonHex4(p, i+8);
          if( v2<0xDC00 || v2>0xDFFF ){
            jsonErr(p, i, "invalid \\u escape (lone high surrogate)");
            return;
          }
          jsonPutUtf8(&p->rc, pBuf, 0x10000 + (((uint32_t)v-0xD800)<<10) + ((uint32_t)v2-0xDC00));
          p->i += 6;
        }else{
          if( v==0 ) p->nNulEscape++;
          jsonPutUtf8(&p->rc, pBuf, (uint32_t)v);
        }
        p->i += 4;
        break;
      }
      default:
        if( c>=0x20 && c<0x7F ){
          jsonErr(p, i, "invalid escape \\%c in string", c);
        }else{
          jsonErr(p, i, "invalid escape in string");
        }
        return;
    }
    p->i += 2;
  }
}

/* Scan the number at the cursor. JNUM_INT sets *piVal (it fits an i64),
** JNUM_DOUBLE sets *prVal; JNUM_ERROR on a syntax error. */
static int jsonNumber(JsonParse *p, i64 *piVal, double *prVal){
  const char *z = p->z;
  int n = p->n;
  int iStart = p->i;
  int i = iStart;
  int bNeg = 0, bInt = 1, bOver = 0;
  u64 u = 0;
  if( i<n && z[i]=='-' ){ bNeg = 1; i++; }
  if( i+8<=n && memcmp(&z[i], "Infinity", 8)==0
   && !(i+8<n && jsonIsWordChar((u8)z[i+8])) ){
    *prVal = bNeg ? -INFINITY : INFINITY;
    p->i = i+8;
    return JNUM_DOUBLE;
  }
  if( i>=n || !jsonIsDigit((u8)z[i]) ){
    jsonErr(p, iStart, "invalid number");
    return JNUM_ERROR;
  }
  if( z[i]=='0' && i+1<n && jsonIsDigit((u8)z[i+1]) ){
    jsonErr(p, iStart, "invalid number (leading zero)");
    return JNUM_ERROR;
  }
  {
    /* Up to 19 digits cannot overflow a u64; more are scanned again with
    ** a check on each step. */
    int iDigit = i;
    while( i<n && jsonIsDigit((u8)z[i]) ){
      u = u*10 + (u64)(z[i] - '0');
      i++;
    }
    if( i-iDigit>19 ){
      u = 0;
      for(i=iDigit; i<n && jsonIsDigit((u8)z[i]); i++){
        int d = z[i] - '0';
        if( u > (UINT64_MAX - (u64)d)/10 ) bOver = 1;
        else u = u*10 + (u64)d;
      }
    }
  }
  if( i<n && z[i]=='.' ){
    bInt = 0;
    i++;
    if( i>=n || !jsonIsDigit((u8)z[i]) ){
      jsonErr(p, iStart, "invalid number (need a digit after '.')");
      return JNUM_ERROR;
    }
    while( i<n && jsonIsDigit((u8)z[i]) ) i++;
  }
  if( i<n && (z[i]=='e' || z[i]=='E') ){
    bInt = 0;
    i++;
    if( i<n && (z[i]=='+' || z[i]=='-') ) i++;
    if( i>=n || !jsonIsDigit((u8)z[i]) ){
      jsonErr(p, iStart, "invalid number (need a digit in the exponent)");
      return JNUM_ERROR;
    }
    while( i<n && jsonIsDigit((u8)z[i]) ) i++;
  }
  if( i<n && (jsonIsWordChar((u8)z[i]) || z[i]=='.') ){
    jsonErr(p, iStart, "invalid number");
    return JNUM_ERROR;
  }
  p->i = i;
  if( bInt && !bOver ){
    if( !bNeg && u<=(u64)INT64_MAX ){
      *piVal = (i64)u;
      return JNUM_INT;
    }
    if( bNeg && u<=(u64)INT64_MAX+1 ){
      *piVal = u==(u64)INT64_MAX+1 ? INT64_MIN : -(i64)u;
      return JNUM_INT;
    }
  }
  /* strtod() needs a terminated copy; the grammar above already excluded
  ** everything but digits, sign, '.', and an exponent. */
  docextBufReset(&p->tmp);
  docextBufAppend(&p->rc, &p->tmp, &z[iStart], i - iStart);
  docextBufAppendByte(&p->rc, &p->tmp, 0);
  if( p->rc ) return JNUM_ERROR;
  *prVal = strtod((const char*)p->tmp.a, 0);
  return JNUM_DOUBLE;
}

/* Append the value bytes of an integer, returning its type. */
static int jsonPutInt(JsonParse *p, i64 v){
  if( v>=INT32_MIN && v<=INT32_MAX ){
    docextBufAppendI32(&p->rc, p->pOut, (int32_t)v);
    return DOC_INT32;
  }
  docextBufAppendI64(&p->rc, p->pOut, v);
  return DOC_INT64;
}

/* Parse a decimal integer "-?[0-9]+" of n bytes; 1 if it fits an i64. */
static int jsonParseI64(const char *z, int n, i64 *pv){
  int i = 0, bNeg = 0;
  u64 u = 0;
  if( n>0 && z[0]=='-' ){ bNeg = 1; i++; }
  if( i>=n ) return 0;
  for(; i<n; i++){
    int d;
    if( !jsonIsDigit((u8)z[i]) ) return 0;
    d = z[i] - '0';
    if( u > ((u64)INT64_MAX + 1 - (u64)d)/10 ) return 0;
    u = u*10 + (u64)d;
  }
  if( !bNeg && u>(u64)INT64_MAX ) return 0;
  *pv = bNeg ? (u==(u64)INT64_MAX+1 ? INT64_MIN : -(i64)u) : (i64)u;
  return 1;
}

/* Parse the string form of a double: "Infinity", "-Infinity", "NaN" or a
** decimal number with optional sign, fraction and exponent. 1 if valid. */
static int jsonParseDouble(JsonParse *p, const char *z, int n, double *pr){
  int i = 0, nDigit = 0;
  if( n==3 && memcmp(z, "NaN", 3)==0 ){ *pr = NAN; return 1; }
  if( n==8 && memcmp(z, "Infinity", 8)==0 ){ *pr = INFINITY; return 1; }
  if( n==9 && memcmp(z, "-Infinity", 9)==0 ){ *pr = -INFINITY; return 1; }
  if( i<n && (z[i]=='-' || z[i]=='+') ) i++;
  while( i<n && jsonIsDigit((u8)z[i]) ){ i++; nDigit++; }
  if( i<n && z[i]=='.' ){
    i++;
    while( i<n && jsonIsDigit((u8)z[i]) ){ i++; nDigit++; }
  }
  if( nDigit==0 ) return 0;
  if( i<n && (z[i]=='e' || z[i]=='E') ){
    i++;
    if( i<n && (z[i]=='-' || z[i]=='+') ) i++;
    if( i>=n || !jsonIsDigit((u8)z[i]) ) return 0;
    while( i<n && jsonIsDigit((u8)z[i]) ) i++;
  }
  if( i!=n ) return 0;
  docextBufReset(&p->tmp);
  docextBufAppend(&p->rc, &p->tmp, z, n);
  docextBufAppendByte(&p->rc, &p->tmp, 0);
  if( p->rc ) return 0;
  *pr = strtod((const char*)p->tmp.a, 0);
  return 1;
}

/* 24 hex digits into 12 bytes; 1 on success. */
static int jsonParseOid(const char *z, int n, u8 *aOid){
  int k;
  if( n!=24 ) return 0;
  for(k=0; k<24; k++) if( !jsonIsHex((u8)z[k]) ) return 0;
  for(k=0; k<12; k++) aOid[k] = (u8)(jsonHexVal((u8)z[2*k])*16 + jsonHexVal((u8)z[2*k+1]));
  return 1;
}

/* A UUID, 32 hex digits, bare or as 8-4-4-4-12 with hyphens; 1 on success. */
static int jsonParseUuid(const char *z, int n, u8 *a){
  int k, j = 0;
  if( n==36 ){
    if( z[8]!='-' || z[13]!='-' || z[18]!='-' || z[23]!='-' ) return 0;
  }else if( n!=32 ){
    return 0;
  }
  for(k=0; k<n; k++){
    if( n==36 && (k==8 || k==13 || k==18 || k==23) ) continue;
    if( !jsonIsHex((u8)z[k]) ) return 0;
    if( j&1 ) a[j/2] = (u8)(a[j/2]*16 + jsonHexVal((u8)z[k]));
    else a[j/2] = (u8)jsonHexVal((u8)z[k]);
    j++;
  }
  return 1;
}

static int jsonB64Val(int c){
  if( c>='A' && c<='Z' ) return c - 'A';
  if( c>='a' && c<='z' ) return c - 'a' + 26;
  if( c>='0' && c<='9' ) return c - '0' + 52;
  if( c=='+' ) return 62;
  if( c=='/' ) return 63;
  return -1;
}

/* Append the bytes of padded base64 text to pBuf; 1 if the text is valid
** (or on OOM, left in *pRc). z may lie in pBuf only if the caller made room
** for n/4*3 more bytes first, so that pBuf does not move. */
static int jsonBase64Decode(int *pRc, DocBuf *pBuf, const char *z, int n){
  int i;
  if( n%4 ) return 0;
  if( !docextBufGrow(pRc, pBuf, n/4*3) ) return 1;
  for(i=0; i<n; i+=4){
    int a = jsonB64Val((u8)z[i]), b = jsonB64Val((u8)z[i+1]);
    int c = jsonB64Val((u8)z[i+2]), d = jsonB64Val((u8)z[i+3]);
    int bLast = i+4==n;
    if( a<0 || b<0 ) return 0;
    pBuf->a[pBuf->n++] = (u8)((a<<2) | (b>>4));
    if( c<0 ){
      if( !bLast || z[i+2]!='=' || z[i+3]!='=' ) return 0;
      break;
    }
    pBuf->a[pBuf->n++] = (u8)(((b&0xF)<<4) | (c>>2));
    if( d<0 ){
      if( !bLast || z[i+3]!='=' ) return 0;
      break;
    }
    pBuf->a[pBuf->n++] = (u8)(((c&0x3)<<6) | d);
  }
  return 1;
}

/* Binary value bytes: int32 length, subtype, payload (subtype 2 repeats
** the length inside the payload). The payload is at pData. */
static void jsonPutBinary(int *pRc, DocBuf *pBuf, int iSub, const u8 *aData, int nData){
  if( iSub==0x02 ){
    docextBufAppendI32(pRc, pBuf, nData+4);
    docextBufAppendByte(pRc, pBuf, (u8)iSub);
    docextBufAppendI32(pRc, pBuf, nData);
  }else{
    docextBufAppendI32(pRc, pBuf, nData);
    docextBufAppendByte(pRc, pBuf, (u8)iSub);
  }
  docextBufAppend(pRc, pBuf, aData, nData);
}

/* Append regex options as a cstring, sorted (BSON wants them in order). */
static void jsonPutOptions(int *pRc, DocBuf *pBuf, const char *zOpt, int nOpt){
  i64 iOpt = pBuf->n;
  docextBufAppend(pRc, pBuf, zOpt, nOpt);
  docextBufAppendByte(pRc, pBuf, 0);
  if( *pRc==SQLITE_OK ) docextRegexSortOptions(&pBuf->a[iOpt], nOpt);
}

/* Regex value bytes: pattern cstring, options cstring with the options
** sorted. 1 on success, 0 if either holds a NUL byte. */
static int jsonPutRegex(int *pRc, DocBuf *pBuf, const char *zPat, int nPat,
                    const char *zOpt, int nOpt){
  if( memchr(zPat, 0, nPat) || memchr(zOpt, 0, nOpt) ) return 0;
  docextBufAppend(pRc, pBuf, zPat, nPat);
  docextBufAppendByte(pRc, pBuf, 0);
  jsonPutOptions(pRc, pBuf, zOpt, nOpt);
  return 1;
}

/* A string at the cursor (quoted either way) as a BSON string value: its
** length, its bytes, a NUL. DOC_STRING, or 0 on an error. */
static int jsonStringValue(JsonParse *p){
  i64 iLen = p->pOut->n;
  docextBufAppendI32(&p->rc, p->pOut, 0);
  jsonString(p, p->pOut);
  docextBufAppendByte(&p->rc, p->pOut, 0);
  if( p->rc ) return 0;
  docextPutI32(&p->pOut->a[iLen], (int32_t)(p->pOut->n - iLen - 4));
  return DOC_STRING;
}

/*------------------------------------------------------------------------
** Type wrappers
*/
#define JW_OID        1
#define JW_SYMBOL     2
#define JW_NUMINT     3
#define JW_NUMLONG    4
#define JW_NUMDOUBLE  5
#define JW_NUMDECIMAL 6
#define JW_BINARY     7
#define JW_CODE       8
#define JW_TIMESTAMP  9
#define JW_REGEXP     10
#define JW_DBPOINTER  11
#define JW_DATE       12
#define JW_MINKEY     13
#define JW_MAXKEY     14
#define JW_UNDEFINED  15
#define JW_UUID       16
#define JW_LAST_MAIN  16   /* keys above name a wrapper; below, companions */
#define JW_REGEX      17
#define JW_OPTIONS    18
#define JW_TYPE       19
#define JW_SCOPE      20

static const struct { const char *zKey; int eKey; } aWrapKey[] = {
  { "$oid", JW_OID },                 { "$symbol", JW_SYMBOL },
  { "$numberInt", JW_NUMINT },        { "$numberLong", JW_NUMLONG },
  { "$numberDouble", JW_NUMDOUBLE },  { "$numberDecimal", JW_NUMDECIMAL },
  { "$binary", JW_BINARY },           { "$code", JW_CODE },
  { "$timestamp", JW_TIMESTAMP },     { "$regularExpression", JW_REGEXP },
  { "$dbPointer", JW_DBPOINTER },     { "$date", JW_DATE },
  { "$minKey", JW_MINKEY },           { "$maxKey", JW_MAXKEY },
  { "$undefined", JW_UNDEFINED },     { "$uuid", JW_UUID },
  { "$regex", JW_REGEX },             { "$options", JW_OPTIONS },
  { "$type", JW_TYPE },               { "$scope", JW_SCOPE },
};

static int jsonWrapKey(const char *z, int n){
  int k;
  if( n<2 || z[0]!='$' ) return 0;
  for(k=0; k<DOCEXT_COUNT(aWrapKey); k++){
    /* (the letter after '$' first: most keys are told apart by it) */
    if( aWrapKey[k].zKey[1]==z[1] && (int)strlen(aWrapKey[k].zKey)==n
     && memcmp(aWrapKey[k].zKey, z, n)==0 ){
      return aWrapKey[k].eKey;
    }
  }
  return 0;
}

/* The string of a value, or 0 if it is not a DOC_STRING. */
static const char *jsonStrOf(const DocValue *v, int *pn){
  if( v->type!=DOC_STRING ) return 0;
  return docextValueStr(v, pn);
}

/* An unsigned 32-bit integer value (int32 or int64 in range); 1 if so. */
static int jsonU32Of(const DocValue *v, i64 *pv){
  i64 x;
  if( v->type==DOC_INT32 ) x = docextValueI32(v);
  else if( v->type==DOC_INT64 ) x = docextValueI64(v);
  else return 0;
  if( x<0 || x>0xFFFFFFFFLL ) return 0;
  *pv = x;
  return 1;
}

/* Find the values of exactly the two keys zA and zB in the embedded
** document v (and nothing else); 1 if so. */
static int jsonTwoKeys(const DocValue *v, const char *zA, DocValue *pA,
                   const char *zB, DocValue *pB){
  DocIter it;
  int bA = 0, bB = 0, nElem = 0;
  if( v->type!=DOC_DOCUMENT ) return 0;
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    nElem++;
    if( docextIterKeyIs(&it, zA) ){
      *pA = it.v; bA = 1;
    }else if( docextIterKeyIs(&it, zB) ){
      *pB = it.v; bB = 1;
    }
  }
  return bA && bB && nElem==2;
}

/*
** Extended JSON type wrappers: {"$oid": "…"}, {"$date": …}, … One function
** per wrapper key, indexed by its JW_ code in axWrap[] below. Each writes
** the wrapped value's bytes to p->tmp (empty on entry) and returns its BSON
** type, or 0 on an error.
*/
typedef struct JsonWrapped JsonWrapped;
struct JsonWrapped {
  DocValue aV[JW_SCOPE+1];  /* the value of each wrapper key, where seen */
  u8 abSeen[JW_SCOPE+1];
  const char *zName;        /* the main key, as written */
  int iAt;                  /* where errors point */
};

static int wrapOid(JsonParse *p, const JsonWrapped *w){
  u8 aOid[12];
  int n;
  const char *z = jsonStrOf(&w->aV[JW_OID], &n);
  if( z==0 || !jsonParseOid(z, n, aOid) ){
    jsonErr(p, w->iAt, "invalid $oid (need 24 hex digits)");
    return 0;
  }
  docextBufAppend(&p->rc, &p->tmp, aOid, 12);
  return DOC_OID;
}

static int wrapSymbol(JsonParse *p, const JsonWrapped *w){
  const DocValue *v = &w->aV[JW_SYMBOL];
  if( v->type!=DOC_STRING ){
    jsonErr(p, w->iAt, "invalid $symbol (need a string)");
    return 0;
  }
  docextBufAppend(&p->rc, &p->tmp, v->p, v->n);
  return DOC_SYMBOL;
}

static int wrapInt32(JsonParse *p, const JsonWrapped *w){
  i64 v;
  int n;
  const char *z = jsonStrOf(&w->aV[JW_NUMINT], &n);
  if( z==0 || !jsonParseI64(z, n, &v) || v<INT32_MIN || v>INT32_MAX ){
    jsonErr(p, w->iAt, "invalid $numberInt (need a 32-bit integer as a string)");
    return 0;
  }
  docextBufAppendI32(&p->rc, &p->tmp, (int32_t)v);
  return DOC_INT32;
}

static int wrapInt64(JsonParse *p, const JsonWrapped *w){
  i64 v;
  int n;
  const char *z = jsonStrOf(&w->aV[JW_NUMLONG], &n);
  if( z==0 || !jsonParseI64(z, n, &v) ){
    jsonErr(p, w->iAt, "invalid $numberLong (need a 64-bit integer as a string)");
    return 0;
  }
  docextBufAppendI64(&p->rc, &p->tmp, v);
  return DOC_INT64;
}

static int wrapDouble(JsonParse *p, const JsonWrapped *w){
  double r;
  int n;
  const char *z = jsonStrOf(&w->aV[JW_NUMDOUBLE], &n);
  if( z==0 || !jsonParseDouble(p, z, n, &r) ){
    if( p->rc ) return 0;
    jsonErr(p, w->iAt, "invalid $numberDouble (need a number as a string)");
    return 0;
  }
  docextBufReset(&p->tmp);     /* (jsonParseDouble may have used it) */
  docextBufAppendDouble(&p->rc, &p->tmp, r);
  return DOC_DOUBLE;
}

static int wrapDecimal(JsonParse *p, const JsonWrapped *w){
  u8 aDec[16];
  int n;
  const char *z = jsonStrOf(&w->aV[JW_NUMDECIMAL], &n);
  if( z==0 || docextDec128FromString(z, n, aDec)!=SQLITE_OK ){
    jsonErr(p, w->iAt, "invalid $numberDecimal");
    return 0;
  }
  docextBufAppend(&p->rc, &p->tmp, aDec, 16);
  return DOC_DECIMAL128;
}

/* {$binary: {base64, subType}}, or legacy {$binary: base64, $type: hex}. */
static int wrapBinary(JsonParse *p, const JsonWrapped *w){
  DocBuf *pT = &p->tmp;
  DocValue vData, vSub;
  const char *z, *zSub;
  int n, nSub, iSub = 0, k;
  if( w->abSeen[JW_TYPE] ){
    vData = w->aV[JW_BINARY];
    vSub = w->aV[JW_TYPE];
  }else if( !jsonTwoKeys(&w->aV[JW_BINARY], "base64", &vData, "subType", &vSub) ){
    jsonErr(p, w->iAt, "invalid $binary (need {base64: string, subType: hex})");
    return 0;
  }
  z = jsonStrOf(&vData, &n);
  zSub = jsonStrOf(&vSub, &nSub);
  if( z==0 || zSub==0 || nSub<1 || nSub>2 ){
    jsonErr(p, w->iAt, "invalid $binary (need {base64: string, subType: hex})");
    return 0;
  }
  for(k=0; k<nSub; k++){
    if( !jsonIsHex((u8)zSub[k]) ){
      jsonErr(p, w->iAt, "invalid $binary subType (need 1 or 2 hex digits)");
      return 0;
    }
    iSub = iSub*16 + jsonHexVal((u8)zSub[k]);
  }
  /* Decode after the header, then fill the header's lengths in. */
  docextBufAppendI32(&p->rc, pT, 0);
  docextBufAppendByte(&p->rc, pT, (u8)iSub);
  if( iSub==0x02 ) docextBufAppendI32(&p->rc, pT, 0);
  if( !jsonBase64Decode(&p->rc, pT, z, n) ){
    jsonErr(p, w->iAt, "invalid base64 in $binary");
    return 0;
  }
  if( p->rc==SQLITE_OK ){
    int nData = (int)pT->n - (iSub==0x02 ? 9 : 5);
    if( iSub==0x02 ){
      docextPutI32(pT->a, nData+4);
      docextPutI32(pT->a+5, nData);
    }else{
      docextPutI32(pT->a, nData);
    }
  }
  return DOC_BINARY;
}

static int wrapUuid(JsonParse *p, const JsonWrapped *w){
  u8 a[16];
  int n;
  const char *z = jsonStrOf(&w->aV[JW_UUID], &n);
  if( z==0 || !jsonParseUuid(z, n, a) ){
    jsonErr(p, w->iAt, "invalid $uuid (need 32 hex digits, optionally 8-4-4-4-12)");
    return 0;
  }
  jsonPutBinary(&p->rc, &p->tmp, 4, a, 16);
  return DOC_BINARY;
}

/* {$code: s}, or {$code: s, $scope: {…}}. */
static int wrapCode(JsonParse *p, const JsonWrapped *w){
  const DocValue *pCode = &w->aV[JW_CODE], *pScope = &w->aV[JW_SCOPE];
  if( pCode->type!=DOC_STRING ){
    jsonErr(p, w->iAt, "invalid $code (need a string)");
    return 0;
  }
  if( !w->abSeen[JW_SCOPE] ){
    docextBufAppend(&p->rc, &p->tmp, pCode->p, pCode->n);
    return DOC_CODE;
  }
  if( pScope->type!=DOC_DOCUMENT ){
    jsonErr(p, w->iAt, "invalid $scope (need a document)");
    return 0;
  }
  docextBufAppendI32(&p->rc, &p->tmp, 4 + pCode->n + pScope->n);
  docextBufAppend(&p->rc, &p->tmp, pCode->p, pCode->n);
  docextBufAppend(&p->rc, &p->tmp, pScope->p, pScope->n);
  return DOC_CODEWSCOPE;
}

static int wrapTimestamp(JsonParse *p, const JsonWrapped *w){
  DocValue vT, vI;
  i64 t, iInc;
  if( !jsonTwoKeys(&w->aV[JW_TIMESTAMP], "t", &vT, "i", &vI)
   || !jsonU32Of(&vT, &t) || !jsonU32Of(&vI, &iInc)
  ){
    jsonErr(p, w->iAt, "invalid $timestamp (need {t: uint32, i: uint32})");
    return 0;
  }
  docextBufAppendI64(&p->rc, &p->tmp, (i64)(((u64)t<<32) | (u64)iInc));
  return DOC_TIMESTAMP;
}

static int wrapRegularExpression(JsonParse *p, const JsonWrapped *w){
  DocValue vPat, vOpt;
  const char *z = 0, *zOpt = 0;
  int n = 0, nOpt = 0;
  if( !jsonTwoKeys(&w->aV[JW_REGEXP], "pattern", &vPat, "options", &vOpt)
   || (z = jsonStrOf(&vPat, &n))==0 || (zOpt = jsonStrOf(&vOpt, &nOpt))==0
  ){
    jsonErr(p, w->iAt, "invalid $regularExpression (need {pattern: string, options: string})");
    return 0;
  }
  if( !jsonPutRegex(&p->rc, &p->tmp, z, n, zOpt, nOpt) ){
    jsonErr(p, w->iAt, "NUL byte in $regularExpression");
    return 0;
  }
  return DOC_REGEX;
}

static int wrapDBPointer(JsonParse *p, const JsonWrapped *w){
  DocValue vRef, vId;
  if( !jsonTwoKeys(&w->aV[JW_DBPOINTER], "$ref", &vRef, "$id", &vId)
   || vRef.type!=DOC_STRING || vId.type!=DOC_OID
  ){
    jsonErr(p, w->iAt, "invalid $dbPointer (need {$ref: string, $id: ObjectId})");
    return 0;
  }
  docextBufAppend(&p->rc, &p->tmp, vRef.p, vRef.n);
  docextBufAppend(&p->rc, &p->tmp, vId.p, 12);
  return DOC_DBPOINTER;
}

/* {$date: "ISO-8601"}, {$date: {$numberLong: "ms"}} (already read as an
** int64) or legacy {$date: ms}. */
static int wrapDate(JsonParse *p, const JsonWrapped *w){
  const DocValue *v = &w->aV[JW_DATE];
  const char *z;
  int n;
  i64 ms;
  if( v->type==DOC_INT64 ){
    ms = docextValueI64(v);
  }else if( v->type==DOC_INT32 ){
    ms = docextValueI32(v);
  }else if( (z = jsonStrOf(v, &n))!=0 ){
    if( docextIsoDateParse(z, n, &ms)!=SQLITE_OK ){
      jsonErr(p, w->iAt, "invalid $date (not an ISO-8601 date)");
      return 0;
    }
  }else{
    jsonErr(p, w->iAt, "invalid $date (need an ISO-8601 string or {$numberLong: string})");
    return 0;
  }
  docextBufAppendI64(&p->rc, &p->tmp, ms);
  return DOC_DATE;
}

static int wrapMinMaxKey(JsonParse *p, const JsonWrapped *w){
  int bMin = w->abSeen[JW_MINKEY];
  const DocValue *v = &w->aV[bMin ? JW_MINKEY : JW_MAXKEY];
  if( !((v->type==DOC_INT32 && docextValueI32(v)==1)
     || (v->type==DOC_INT64 && docextValueI64(v)==1)) ){
    jsonErr(p, w->iAt, "invalid %s (need 1)", w->zName);
    return 0;
  }
  return bMin ? DOC_MINKEY : DOC_MAXKEY;
}

static int wrapUndefined(JsonParse *p, const JsonWrapped *w){
  const DocValue *v = &w->aV[JW_UNDEFINED];
  if( v->type!=DOC_BOOL || v->p[0]!=1 ){
    jsonErr(p, w->iAt, "invalid $undefined (need true)");
    return 0;
  }
  return DOC_UNDEFINED;
}

/* Legacy {$regex: s [, $options: s]}: a regex, though not named by a main
** key; 0 (and no error) if the document is not one. */
static int wrapLegacyRegex(JsonParse *p, const JsonWrapped *w, int nElem){
  const char *z = 0, *zOpt = 0;
  int n = 0, nOpt = 0;
  if( !w->abSeen[JW_REGEX] || (z = jsonStrOf(&w->aV[JW_REGEX], &n))==0
   || nElem!=1+w->abSeen[JW_OPTIONS]
   || (w->abSeen[JW_OPTIONS] && (zOpt = jsonStrOf(&w->aV[JW_OPTIONS], &nOpt))==0)
  ){
    return 0;
  }
  if( !jsonPutRegex(&p->rc, &p->tmp, z, n, zOpt ? zOpt : "", nOpt) ){
    jsonErr(p, w->iAt, "NUL byte in $regex");
    return 0;
  }
  return DOC_REGEX;
}

static int (*const axWrap[JW_LAST_MAIN+1])(JsonParse*, const JsonWrapped*) = {
  [JW_OID] = wrapOid,                [JW_SYMBOL] = wrapSymbol,
  [JW_NUMINT] = wrapInt32,           [JW_NUMLONG] = wrapInt64,
  [JW_NUMDOUBLE] = wrapDouble,       [JW_NUMDECIMAL] = wrapDecimal,
  [JW_BINARY] = wrapBinary,          [JW_CODE] = wrapCode,
  [JW_TIMESTAMP] = wrapTimestamp,    [JW_REGEXP] = wrapRegularExpression,
  [JW_DBPOINTER] = wrapDBPointer,    [JW_DATE] = wrapDate,
  [JW_MINKEY] = wrapMinMaxKey,       [JW_MAXKEY] = wrapMinMaxKey,
  [JW_UNDEFINED] = wrapUndefined,    [JW_UUID] = wrapUuid,
};

/* The document just written at pOut->a[iDoc] has '$' keys. If it is a type
** wrapper, replace it by the wrapped value and return that value's type;
** otherwise return DOC_DOCUMENT and leave it. iAt: where errors point. */
static int jsonWrap(JsonParse *p, i64 iDoc, int iAt){
  JsonWrapped w;
  DocIter it;
  int eMain = 0, nElem = 0, nExpect = 1, eType;

  memset(w.abSeen, 0, sizeof(w.abSeen));
  w.zName = 0;
  w.iAt = iAt;
  docextIterInit(&it, &p->pOut->a[iDoc]);
  while( docextIterNext(&it) ){
    int e = jsonWrapKey(it.zKey, it.nKey);
    nElem++;
    if( e && !w.abSeen[e] ){
      w.abSeen[e] = 1;
      w.aV[e] = it.v;
      if( e<=JW_LAST_MAIN ){
        if( eMain==0 ){ eMain = e; w.zName = it.zKey; }
        else nExpect = 0;   /* two wrapper keys: never valid */
      }
    }
  }

  docextBufReset(&p->tmp);
  if( eMain==0 ){
    eType = wrapLegacyRegex(p, &w, nElem);
    if( eType==0 ) return p->rc ? 0 : DOC_DOCUMENT;
  }else{
    if( eMain==JW_BINARY && w.abSeen[JW_TYPE] ) nExpect = nExpect ? 2 : 0;
    if( eMain==JW_CODE && w.abSeen[JW_SCOPE] ) nExpect = nExpect ? 2 : 0;
    if( nElem!=nExpect ){
      jsonErr(p, iAt, "unexpected field next to %s", w.zName);
      return 0;
    }
    eType = axWrap[eMain](p, &w);
  }
  if( eType==0 || p->rc ) return 0;
  p->pOut->n = iDoc;
  docextBufAppend(&p->rc, p->pOut, p->tmp.a, p->tmp.n);
  return eType;
}

/*------------------------------------------------------------------------
** Values
*/
static int jsonValue(JsonParse *p);

/* Check the size limit of the document being built. */
static void jsonCheckSize(JsonParse *p){
  if( p->rc==SQLITE_OK && p->pOut->n - p->iRoot > DOCEXT_MAX_BSON ){
    p->rc = SQLITE_TOOBIG;
  }
}

/* After a member of the document or array opened at iOpen: ',' and the
** next member, or cClose. A ',' right before cClose (a trailing comma) is
** allowed. 1 when the container has ended (or on an error), 0 when another
** member follows. */
static inline int jsonAfterMember(JsonParse *p, int iOpen, char cClose){
  int c;
  jsonWs(p);
  c = jsonPeek(p);
  if( c==',' ){
    p->i++;
    jsonWs(p);
    if( jsonPeek(p)!=cClose ) return 0;
  }else if( c<0 ){
    jsonErr(p, iOpen, cClose=='}' ? "unterminated document" : "unterminated array");
    return 1;
  }else if( c!=cClose ){
    jsonErr(p, p->i, "expected ',' or '%c'", cClose);
    return 1;
  }
  p->i++;
  return 1;
}

/* Parse a document at the cursor ('{') into pOut. bRoot: the top-level
** document (never a type wrapper). Returns the type written. */
static int jsonObject(JsonParse *p, int bRoot){
  int iOpen = p->i;
  int iWrapAt = -1;
  int bDollar = 0;
  int bWrapper = 0;           /* a wrapper's key was seen */
  int bLevel = 0;             /* counted in p->nLevel */
  int eType = DOC_DOCUMENT;
  i64 iDoc;
  if( !bRoot ){
    p->nDepth++;
    /* Valid text has at most two documents that are not levels for each
    ** level (a $code wrapper above its $scope) and three at the bottom
    ** ({"$dbPointer": {"$id": {"$oid": …}}}): deeper is too deep. */
    if( p->nDepth>2*DOCEXT_MAX_DEPTH+3 ){
      jsonErr(p, iOpen, "nesting deeper than %d levels", DOCEXT_MAX_DEPTH);
      return 0;
    }
    if( !p->bInWrapper ){
      bLevel = 1;
      p->nLevel++;
    }
  }
  iDoc = docextBsonStartDoc(&p->rc, p->pOut);
  p->i++;
  jsonWs(p);
  if( jsonPeek(p)=='}' ){
    p->i++;
  }else{
    while( p->rc==SQLITE_OK ){
      int c = jsonPeek(p);
      int iKeyText = p->i;
      int nNulBefore = p->nNulEscape;
      i64 iType, iKey;
      int eVal, eKey;
      iType = p->pOut->n;
      docextBufAppendByte(&p->rc, p->pOut, 0);
      iKey = p->pOut->n;
      if( c=='"' || c=='\'' ){
        jsonString(p, p->pOut);
      }else if( c>=0 && jsonIsKeyChar(c) ){
        int i = p->i;
        while( i<p->n && jsonIsKeyChar((u8)p->z[i]) ){
          if( (u8)p->z[i]>=0x80 ){
            int nc = jsonUtf8Len((const u8*)&p->z[i], p->n - i);
            if( nc==0 ){
              jsonErr(p, i, "invalid UTF-8 in key");
              break;
            }
            i += nc;
          }else{
            i++;
          }
        }
        docextBufAppend(&p->rc, p->pOut, &p->z[p->i], i - p->i);
        p->i = i;
      }else if( c<0 ){
        jsonErr(p, iOpen, "unterminated document");
        break;
      }else{
        jsonErr(p, p->i, "expected a key or '}'");
        break;
      }
      if( p->rc ) break;
      if( !p->bOddName ){
        i64 k;
        for(k=iKey; k<p->pOut->n && p->pOut->a[k]!='.'; k++){}
        if( k<p->pOut->n ) p->bOddName = 1;
      }
      if( p->nNulEscape!=nNulBefore ){
        jsonErr(p, iKeyText, "NUL byte in key");
        break;
      }
      eKey = 0;
      if( p->pOut->n>iKey && p->pOut->a[iKey]=='$' ){
        bDollar = 1;
        eKey = jsonWrapKey((const char*)&p->pOut->a[iKey], (int)(p->pOut->n - iKey));
        if( iWrapAt<0 && eKey && (eKey<=JW_LAST_MAIN || eKey==JW_REGEX) ) iWrapAt = -2;
        if( !bRoot && eKey && eKey<=JW_LAST_MAIN && !bWrapper ){
          /* A wrapper or an error (jsonWrap): not a level. */
          bWrapper = 1;
          if( bLevel ){ bLevel = 0; p->nLevel--; }
        }
      }
      docextBufAppendByte(&p->rc, p->pOut, 0);
      jsonWs(p);
      if( jsonPeek(p)!=':' ){
        if( p->i>=p->n ) jsonErr(p, iOpen, "unterminated document");
        else jsonErr(p, p->i, "expected ':' after key");
        break;
      }
      p->i++;
      jsonWs(p);
      if( iWrapAt==-2 ) iWrapAt = p->i;
      p->bInWrapper = bWrapper && eKey!=JW_SCOPE;
      eVal = jsonValue(p);
      if( p->rc ) break;
      p->pOut->a[iType] = (u8)eVal;
      jsonCheckSize(p);
      if( jsonAfterMember(p, iOpen, '}') ) break;
    }
  }
  docextBsonEndDoc(&p->rc, p->pOut, iDoc);
  if( p->rc ) return 0;
  if( bRoot && bDollar ) p->bOddName = 1;
  if( !bRoot ){
    if( bDollar ){
      eType = jsonWrap(p, iDoc, iWrapAt>=0 ? iWrapAt : iOpen);
      if( eType==DOC_DOCUMENT ) p->bOddName = 1;   /* '$' keys, not a wrapper */
    }
    if( eType==DOC_DOCUMENT && bLevel && p->nLevel>DOCEXT_MAX_DEPTH ){
      jsonErr(p, iOpen, "nesting deeper than %d levels", DOCEXT_MAX_DEPTH);
    }
    if( bLevel ) p->nLevel--;
    p->nDepth--;
  }
  return p->rc ? 0 : eType;
}

/* Parse an array at the cursor ('[') into pOut. */
static int jsonArray(JsonParse *p){
  int iOpen = p->i;
  int iElem = 0;
  i64 iDoc;
  p->nDepth++;
  p->nLevel++;
  if( p->nLevel>DOCEXT_MAX_DEPTH ){
    jsonErr(p, iOpen, "nesting deeper than %d levels", DOCEXT_MAX_DEPTH);
    return 0;
  }
  iDoc = docextBsonStartDoc(&p->rc, p->pOut);
  p->i++;
  jsonWs(p);
  if( jsonPeek(p)==']' ){
    p->i++;
  }else{
    while( p->rc==SQLITE_OK ){
      char zKey[16];
      int nKey = docextBsonArrayKey(zKey, iElem++);
      i64 iType = p->pOut->n;
      int eVal;
      if( p->i>=p->n ){
        jsonErr(p, iOpen, "unterminated array");
        break;
      }
      docextBsonAppendKey(&p->rc, p->pOut, 0, zKey, nKey);
      p->bInWrapper = 0;
      eVal = jsonValue(p);
      if( p->rc ) break;
      p->pOut->a[iType] = (u8)eVal;
      jsonCheckSize(p);
      if( jsonAfterMember(p, iOpen, ']') ) break;
    }
  }
  docextBsonEndDoc(&p->rc, p->pOut, iDoc);
  p->nLevel--;
  p->nDepth--;
  return p->rc ? 0 : DOC_ARRAY;
}

/* A /pattern/flags literal at the cursor. */
static int jsonRegexLiteral(JsonParse *p){
  const char *z = p->z;
  int iStart = p->i;
  int i = iStart + 1;
  int bClass = 0;
  int iFlag, iEnd, k;
  char aFlag[8];
  int nFlag = 0;
  while( 1 ){
    int c;
    if( i>=p->n || z[i]=='\n' || z[i]=='\r' ){
      jsonErr(p, iStart, "unterminated regular expression");
      return 0;
    }
    c = (u8)z[i];
    if( c==0 ){
      jsonErr(p, i, "NUL byte in regular expression");
      return 0;
    }
    if( c>=0x80 ){
      int nc = jsonUtf8Len((const u8*)&z[i], p->n - i);
      if( nc==0 ){
        jsonErr(p, i, "invalid UTF-8 in regular expression");
        return 0;
      }
      i += nc;
      continue;
    }
    if( c=='\\' ){
      if( i+1<p->n && (z[i+1]==0 || (u8)z[i+1]>=0x80) ){
        i++;               /* the next byte is checked as itself */
      }else{
        i += 2;
      }
      continue;
    }
    if( c=='[' ) bClass = 1;
    else if( c==']' ) bClass = 0;
    else if( c=='/' && !bClass ) break;
    i++;
  }
  iFlag = i+1;
  iEnd = i;
  for(i=iFlag; i<p->n && jsonIsWordChar((u8)z[i]); i++){
    if( strchr("ilmsux", z[i])==0 ){
      jsonErr(p, i, "invalid regular expression flag '%c'", z[i]);
      return 0;
    }
    if( memchr(aFlag, z[i], nFlag)==0 ){
      if( nFlag<(int)sizeof(aFlag) ) aFlag[nFlag++] = z[i];
    }
  }
  /* The pattern as written, but "\/" (needed only to get a '/' past the
  ** literal's end) becomes '/', so what the shell writer escapes reads back
  ** the same; PCRE treats the two alike. */
  for(k=iStart+1; k<iEnd; k++){
    if( z[k]=='\\' && z[k+1]=='/' ) k++;
    else if( z[k]=='\\' ) docextBufAppendByte(&p->rc, p->pOut, (u8)z[k++]);
    docextBufAppendByte(&p->rc, p->pOut, (u8)z[k]);
  }
  docextBufAppendByte(&p->rc, p->pOut, 0);
  jsonPutOptions(&p->rc, p->pOut, aFlag, nFlag);
  p->i = i;
  return DOC_REGEX;
}

/* Compare the word z[0..n) with zWord. */
static int jsonWordIs(const char *z, int n, const char *zWord){
  return (int)strlen(zWord)==n && memcmp(z, zWord, n)==0;
}

/* Parse the arguments of a shell call: the cursor is at '('. At most
** nMax arguments, each a string or a number. Returns the count, or -1. */
static int jsonArgs(JsonParse *p, const char *zName, int nName,
                    JsonArg *aArg, int nMax){
  int nArg = 0;
  int iOpen = p->i;
  docextBufReset(&p->tmp);
  p->i++;
  jsonWs(p);
  if( jsonPeek(p)==')' ){
    p->i++;
    return 0;
  }
  while( p->rc==SQLITE_OK ){
    int c = jsonPeek(p);
    JsonArg *pA = &aArg[nArg];
    if( nArg>=nMax ){
      jsonErr(p, p->i, "too many arguments to %.*s()", nName, zName);
      return -1;
    }
    pA->iText = p->i;
    if( c=='"' || c=='\'' ){
      pA->eKind = JARG_STRING;
      pA->iStr = p->tmp.n;
      jsonString(p, &p->tmp);
      pA->nStr = (int)(p->tmp.n - pA->iStr);
    }else if( c=='-' || (c>=0 && jsonIsDigit(c)) || c=='I' || c=='N' ){
      if( c=='N' ){
        if( p->i+3<=p->n && memcmp(&p->z[p->i], "NaN", 3)==0 ){
          p->i += 3;
          pA->eKind = JARG_DOUBLE;
          pA->rVal = NAN;
        }else{
          jsonErr(p, p->i, "expected a string or a number as argument to %.*s()",
                  nName, zName);
          return -1;
        }
      }else{
        /* jsonNumber() uses tmp for doubles: keep strings safe. */
        DocBuf save = p->tmp;
        int e;
        memset(&p->tmp, 0, sizeof(p->tmp));
        e = jsonNumber(p, &pA->iVal, &pA->rVal);
        docextBufFree(&p->tmp);
        p->tmp = save;
        if( e==JNUM_ERROR ) return -1;
        pA->eKind = e==JNUM_INT ? JARG_INT : JARG_DOUBLE;
      }
    }else if( c<0 ){
      jsonErr(p, iOpen, "unterminated call to %.*s()", nName, zName);
      return -1;
    }else{
      jsonErr(p, p->i, "expected a string or a number as argument to %.*s()",
              nName, zName);
      return -1;
    }
    if( p->rc ) return -1;
    pA->nText = p->i - pA->iText;
    nArg++;
    jsonWs(p);
    c = jsonPeek(p);
    if( c==',' ){
      p->i++;
      jsonWs(p);
      if( jsonPeek(p)==')' ){ p->i++; break; }
    }else if( c==')' ){
      p->i++;
      break;
    }else if( c<0 ){
      jsonErr(p, iOpen, "unterminated call to %.*s()", nName, zName);
      return -1;
    }else{
      jsonErr(p, p->i, "expected ',' or ')' in %.*s()", nName, zName);
      return -1;
    }
  }
  return p->rc ? -1 : nArg;
}

/* The decoded string of a string argument. (An empty one may have left
** p->tmp without memory.) */
static const char *jsonArgStr(JsonParse *p, const JsonArg *pA){
  if( pA->nStr==0 ) return "";
  return (const char*)&p->tmp.a[pA->iStr];
}

/* An integer argument, or a string holding one; 1 if so. */
static int jsonArgInt(JsonParse *p, const JsonArg *pA, i64 *pv){
  if( pA->eKind==JARG_INT ){ *pv = pA->iVal; return 1; }
  if( pA->eKind==JARG_STRING ) return jsonParseI64(jsonArgStr(p, pA), pA->nStr, pv);
  return 0;
}

/* A literal that makes a new value at each reading, where the text must
** always give the same document: a deterministic SQL function (doc_get(x,
** 'a') in an index over stored text '{a: ObjectId()}' would find a new id
** each time, and SQLite may evaluate such a function once per statement). */
static void jsonNotFixed(JsonParse *p, int iAt, const char *zName, int nName, int bNew){
  jsonErr(p, iAt, "%s%.*s() gives a new value each time it is read, which a "
          "deterministic function cannot use: write the value itself (or insert "
          "the text into a collection)", bNew ? "new " : "", nName, zName);
}

/*
** Shell calls: ObjectId("…"), ISODate("…"), NumberLong(1), … One function
** per constructor, found by name in aShellCall[] below. Each is called with
** the cursor at '(' and returns the BSON type it wrote, or 0 on an error.
*/
typedef struct JsonCall JsonCall;
struct JsonCall {
  const char *zName;  /* the constructor's name, as written */
  int nName;
  int iStart;         /* offset of the call (of "new", if there) */
  int bNew;           /* written as "new Name(…)" */
  JsonArg aArg[2];    /* its arguments, read by jsonWord() (see aShellCall) */
  int nArg;
};

static int shellObjectId(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  int nArg = pC->nArg;
  u8 aOid[12];
  if( nArg==0 ){
    if( p->bFixed ){ jsonNotFixed(p, pC->iStart, pC->zName, pC->nName, pC->bNew); return 0; }
    docextOidNew(aOid);
  }else if( aArg[0].eKind!=JARG_STRING
         || !jsonParseOid(jsonArgStr(p, &aArg[0]), aArg[0].nStr, aOid) ){
    jsonErr(p, aArg[0].iText, "invalid ObjectId (need 24 hex digits)");
    return 0;
  }
  docextBufAppend(&p->rc, p->pOut, aOid, 12);
  return DOC_OID;
}

/* ISODate("…") and Date(…): an ISO-8601 string, or milliseconds since
** the epoch; no argument: now. */
static int shellDate(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  int nArg = pC->nArg;
  i64 ms = 0;
  if( nArg==0 ){
    if( p->bFixed ){ jsonNotFixed(p, pC->iStart, pC->zName, pC->nName, pC->bNew); return 0; }
    ms = docextClockNowMs();
  }else if( aArg[0].eKind==JARG_STRING ){
    if( docextIsoDateParse(jsonArgStr(p, &aArg[0]), aArg[0].nStr, &ms)!=SQLITE_OK ){
      jsonErr(p, aArg[0].iText, "invalid date (not an ISO-8601 date)");
      return 0;
    }
  }else if( aArg[0].eKind==JARG_INT ){
    ms = aArg[0].iVal;
  }else if( aArg[0].eKind==JARG_DOUBLE && aArg[0].rVal>=-9.2e18 && aArg[0].rVal<=9.2e18 ){
    ms = (i64)aArg[0].rVal;
  }else{
    jsonErr(p, aArg[0].iText, "invalid date");
    return 0;
  }
  docextBufAppendI64(&p->rc, p->pOut, ms);
  return DOC_DATE;
}

static int shellInt32(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  int nArg = pC->nArg;
  i64 v = 0;
  if( nArg==1 && (!jsonArgInt(p, &aArg[0], &v) || v<INT32_MIN || v>INT32_MAX) ){
    jsonErr(p, aArg[0].iText, "invalid %.*s (need a 32-bit integer)", pC->nName, pC->zName);
    return 0;
  }
  docextBufAppendI32(&p->rc, p->pOut, (int32_t)v);
  return DOC_INT32;
}

static int shellInt64(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  int nArg = pC->nArg;
  i64 v = 0;
  if( nArg==1 && !jsonArgInt(p, &aArg[0], &v) ){
    jsonErr(p, aArg[0].iText, "invalid %.*s (need a 64-bit integer)", pC->nName, pC->zName);
    return 0;
  }
  docextBufAppendI64(&p->rc, p->pOut, v);
  return DOC_INT64;
}

/* NumberDecimal("1.5") or Decimal128(1.5): the digits as written. */
static int shellDecimal(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  int nArg = pC->nArg;
  u8 aDec[16];
  int rc;
  if( nArg==0 ){
    rc = docextDec128FromString("0", 1, aDec);
  }else if( aArg[0].eKind==JARG_STRING ){
    rc = docextDec128FromString(jsonArgStr(p, &aArg[0]), aArg[0].nStr, aDec);
  }else{
    rc = docextDec128FromString(&p->z[aArg[0].iText], aArg[0].nText, aDec);
  }
  if( rc!=SQLITE_OK ){
    jsonErr(p, nArg ? aArg[0].iText : pC->iStart, "invalid %.*s", pC->nName, pC->zName);
    return 0;
  }
  docextBufAppend(&p->rc, p->pOut, aDec, 16);
  return DOC_DECIMAL128;
}

/* Timestamp({t: 1412180887, i: 1}), as mongosh prints one; the cursor is
** at '{'. */
static int shellTimestampDoc(JsonParse *p, int iOpen){
  DocBuf *pOut = p->pOut;
  i64 iDoc = pOut->n, t = 0, iInc = 0;
  int iArg = p->i;
  DocValue v, vT, vI;
  p->bInWrapper = 1;      /* {t, i} becomes the value: not a level */
  if( jsonObject(p, 0)!=DOC_DOCUMENT ){
    if( p->rc==SQLITE_OK ) jsonErr(p, iArg, "invalid Timestamp (need {t: uint32, i: uint32})");
    return 0;
  }
  v.type = DOC_DOCUMENT;
  v.p = &pOut->a[iDoc];
  v.n = (int)(pOut->n - iDoc);
  if( !jsonTwoKeys(&v, "t", &vT, "i", &vI) || !jsonU32Of(&vT, &t) || !jsonU32Of(&vI, &iInc) ){
    jsonErr(p, iArg, "invalid Timestamp (need {t: uint32, i: uint32})");
    return 0;
  }
  pOut->n = iDoc;
  jsonWs(p);
  if( jsonPeek(p)!=')' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "expected ')' to end Timestamp()");
    return 0;
  }
  p->i++;
  docextBufAppendI64(&p->rc, pOut, (i64)(((u64)t<<32) | (u64)iInc));
  return DOC_TIMESTAMP;
}

/* Timestamp(t, i), Timestamp({t, i}) or Timestamp() (zero). */
static int shellTimestamp(JsonParse *p, const JsonCall *pC){
  JsonArg aArg[2];       /* (read here: the argument may be a document) */
  i64 t = 0, iInc = 0;
  int iOpen = p->i, nArg;
  p->i++;
  jsonWs(p);
  if( jsonPeek(p)=='{' ) return shellTimestampDoc(p, iOpen);
  p->i = iOpen;
  nArg = jsonArgs(p, pC->zName, pC->nName, aArg, 2);
  if( nArg<0 ) return 0;
  if( nArg==1 || (nArg==2 && (aArg[0].eKind!=JARG_INT || aArg[1].eKind!=JARG_INT
      || aArg[0].iVal<0 || aArg[0].iVal>0xFFFFFFFFLL
      || aArg[1].iVal<0 || aArg[1].iVal>0xFFFFFFFFLL)) ){
    jsonErr(p, aArg[0].iText, "invalid Timestamp (need two unsigned 32-bit integers)");
    return 0;
  }
  if( nArg==2 ){ t = aArg[0].iVal; iInc = aArg[1].iVal; }
  docextBufAppendI64(&p->rc, p->pOut, (i64)(((u64)t<<32) | (u64)iInc));
  return DOC_TIMESTAMP;
}

/* Decode the base64 or hex string argument pData into tmp, after the
** argument text, and write it as binary of subtype iSub; zBad is the error
** for a string that does not decode. The room is made first: the argument
** is in tmp too and must not move while it is read. */
static int shellPutBinary(JsonParse *p, const JsonArg *pData, int bHex, int iSub,
                          const char *zBad){
  i64 iBin = p->tmp.n;
  if( !docextBufGrow(&p->rc, &p->tmp, pData->nStr + 1) ) return 0;
  if( bHex ){
    const char *zHex = jsonArgStr(p, pData);
    int k;
    for(k=0; k<pData->nStr; k+=2){
      if( k+1>=pData->nStr || !jsonIsHex((u8)zHex[k]) || !jsonIsHex((u8)zHex[k+1]) ){
        jsonErr(p, pData->iText, "%s", zBad);
        return 0;
      }
      docextBufAppendByte(&p->rc, &p->tmp,
                          (u8)(jsonHexVal((u8)zHex[k])*16 + jsonHexVal((u8)zHex[k+1])));
    }
  }else if( !jsonBase64Decode(&p->rc, &p->tmp, jsonArgStr(p, pData), pData->nStr) ){
    jsonErr(p, pData->iText, "%s", zBad);
    return 0;
  }
  if( p->rc ) return 0;
  jsonPutBinary(&p->rc, p->pOut, iSub, &p->tmp.a[iBin], (int)(p->tmp.n - iBin));
  return DOC_BINARY;
}

static int shellBinData(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  int nArg = pC->nArg;
  if( nArg!=2 || aArg[0].eKind!=JARG_INT || aArg[0].iVal<0 || aArg[0].iVal>255
   || aArg[1].eKind!=JARG_STRING ){
    jsonErr(p, nArg ? aArg[0].iText : pC->iStart,
            "invalid BinData (need a subtype 0-255 and a base64 string)");
    return 0;
  }
  return shellPutBinary(p, &aArg[1], 0, (int)aArg[0].iVal, "invalid base64 in BinData");
}

/* Binary.createFromBase64("base64"[, subtype]) and HexData(subtype, "hex") */
static int shellBinaryOrHex(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg, *pData, *pSub;
  int nArg = pC->nArg;
  int bHex = pC->zName[0]=='H';
  pData = bHex ? &aArg[1] : &aArg[0];
  pSub = bHex ? &aArg[0] : &aArg[1];
  if( nArg<(bHex ? 2 : 1) || pData->eKind!=JARG_STRING
   || (nArg==2 && (pSub->eKind!=JARG_INT || pSub->iVal<0 || pSub->iVal>255)) ){
    jsonErr(p, nArg ? aArg[0].iText : pC->iStart,
            bHex ? "invalid HexData (need a subtype 0-255 and a hex string)"
                 : "invalid Binary.createFromBase64 (need a base64 string and a subtype 0-255)");
    return 0;
  }
  return shellPutBinary(p, pData, bHex, nArg==2 ? (int)pSub->iVal : 0,
                        bHex ? "invalid hex string in HexData"
                             : "invalid base64 in Binary.createFromBase64()");
}

/* Binary(Buffer.from("data", "hex" | "base64" | "utf8")[, subtype]), as
** mongosh 1.x printed binary data (also after "new"); the encoding is
** Node's, utf8 when it is left out. The cursor is at '('. */
static int shellBinaryBuffer(JsonParse *p, const JsonCall *pC){
  static const char zBad[] =
      "invalid Binary (need Buffer.from(string[, \"hex\" or \"base64\"]) and optionally a subtype 0-255)";
  JsonArg aArg[2];
  int iOpen = p->i, nArg, iSub = 0;
  int eEnc = 0;                 /* 0 utf8, 1 hex, 2 base64, -1 another */
  (void)pC;
  p->i++;
  jsonWs(p);
  if( p->n - p->i<11 || memcmp(&p->z[p->i], "Buffer.from", 11)!=0 ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "%s", zBad);
    return 0;
  }
  p->i += 11;
  jsonWs(p);
  if( jsonPeek(p)!='(' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "%s", zBad);
    return 0;
  }
  nArg = jsonArgs(p, "Buffer.from", 11, aArg, 2);
  if( nArg<0 ) return 0;
  if( nArg==2 && aArg[1].eKind==JARG_STRING ){
    const char *zEnc = jsonArgStr(p, &aArg[1]);
    int nEnc = aArg[1].nStr;
    if( nEnc==3 && memcmp(zEnc, "hex", 3)==0 ) eEnc = 1;
    else if( nEnc==6 && memcmp(zEnc, "base64", 6)==0 ) eEnc = 2;
    else if( !(nEnc==4 && memcmp(zEnc, "utf8", 4)==0)
          && !(nEnc==5 && memcmp(zEnc, "utf-8", 5)==0) ) eEnc = -1;
  }
  if( nArg<1 || aArg[0].eKind!=JARG_STRING || (nArg==2 && aArg[1].eKind!=JARG_STRING)
   || eEnc<0 ){
    jsonErr(p, nArg>0 ? aArg[eEnc<0].iText : iOpen, "%s", zBad);
    return 0;
  }
  jsonWs(p);
  if( jsonPeek(p)==',' ){
    int iNum = -1;
    p->i++;
    jsonWs(p);
    if( jsonPeek(p)>=0 && jsonIsDigit(jsonPeek(p)) ){
      iNum = 0;
      while( p->i<p->n && jsonIsDigit((u8)p->z[p->i]) && iNum<=255 ){
        iNum = iNum*10 + (p->z[p->i++] - '0');
      }
      jsonWs(p);
      if( jsonPeek(p)==',' ){
        p->i++;
        jsonWs(p);
      }
    }
    if( iNum>255 || (iNum<0 && jsonPeek(p)!=')') ){
      jsonErr(p, p->i<p->n ? p->i : iOpen, "%s", zBad);
      return 0;
    }
    if( iNum>=0 ) iSub = iNum;
  }
  if( jsonPeek(p)!=')' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "expected ')' to end Binary()");
    return 0;
  }
  p->i++;
  if( eEnc==0 ){
    jsonPutBinary(&p->rc, p->pOut, iSub, (const u8*)jsonArgStr(p, &aArg[0]), aArg[0].nStr);
    return p->rc ? 0 : DOC_BINARY;
  }
  return shellPutBinary(p, &aArg[0], eEnc==1, iSub,
                        eEnc==1 ? "invalid hex string in Buffer.from()"
                                : "invalid base64 in Buffer.from()");
}

static int shellDouble(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  int nArg = pC->nArg;
  double r = 0.0;
  if( nArg==1 && aArg[0].eKind==JARG_INT ){
    r = (double)aArg[0].iVal;
  }else if( nArg==1 && aArg[0].eKind==JARG_DOUBLE ){
    r = aArg[0].rVal;
  }else if( nArg==1 && aArg[0].eKind==JARG_STRING ){
    /* copy the string: jsonParseDouble() reuses tmp */
    char zNum[64];
    int nNum = aArg[0].nStr;
    if( nNum>=(int)sizeof(zNum) ) nNum = 0;
    memcpy(zNum, jsonArgStr(p, &aArg[0]), nNum);
    if( nNum==0 || !jsonParseDouble(p, zNum, nNum, &r) ){
      if( p->rc==SQLITE_OK ) jsonErr(p, aArg[0].iText, "invalid Double (need a number)");
      return 0;
    }
  }else{
    jsonErr(p, nArg ? aArg[0].iText : pC->iStart, "invalid Double (need a number)");
    return 0;
  }
  docextBufAppendDouble(&p->rc, p->pOut, r);
  return DOC_DOUBLE;
}

static int shellUuid(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  int nArg = pC->nArg;
  u8 a[16];
  if( nArg!=1 || aArg[0].eKind!=JARG_STRING
   || !jsonParseUuid(jsonArgStr(p, &aArg[0]), aArg[0].nStr, a) ){
    jsonErr(p, nArg ? aArg[0].iText : pC->iStart,
            "invalid UUID (need 32 hex digits, optionally 8-4-4-4-12)");
    return 0;
  }
  jsonPutBinary(&p->rc, p->pOut, 4, a, 16);
  return DOC_BINARY;
}

static int jsonWord(JsonParse *p);

/* DBPointer("ns", ObjectId("…")), as the shell prints one: the value bytes
** are the namespace string then the ObjectId's 12 bytes. */
static int shellDBPointer(JsonParse *p, const JsonCall *pC){
  int iOpen = p->i;
  (void)pC;
  p->i++;
  jsonWs(p);
  if( jsonPeek(p)!='"' && jsonPeek(p)!='\'' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "invalid DBPointer (need a string and an ObjectId)");
    return 0;
  }
  if( !jsonStringValue(p) ) return 0;
  jsonWs(p);
  if( jsonPeek(p)==',' ){
    p->i++;
    jsonWs(p);
  }
  if( jsonPeek(p)<0 || !jsonIsWordChar(jsonPeek(p)) || jsonWord(p)!=DOC_OID ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "invalid DBPointer (need a string and an ObjectId)");
    return 0;
  }
  jsonWs(p);
  if( jsonPeek(p)!=')' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "expected ')' to end DBPointer()");
    return 0;
  }
  p->i++;
  return DOC_DBPOINTER;
}

/* One member of a DBRef(): the key zKey, then the value at the cursor,
** which must be a string when bString. The error is reported at iOpen when
** the text has ended. */
static void shellDBRefMember(JsonParse *p, int iOpen, const char *zKey, int bString){
  i64 iType = p->pOut->n;
  int eVal;
  if( bString && jsonPeek(p)!='"' && jsonPeek(p)!='\'' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen,
            "invalid DBRef (need a collection name, an id and optionally a database name)");
    return;
  }
  docextBsonAppendKey(&p->rc, p->pOut, 0, zKey, (int)strlen(zKey));
  p->bInWrapper = 0;
  eVal = jsonValue(p);
  if( p->rc ) return;
  p->pOut->a[iType] = (u8)eVal;
  jsonCheckSize(p);
  jsonWs(p);
}

/* DBRef("collection", id[, "database"]), as both shells print one: the
** document {$ref: "collection", $id: id, $db: "database"} of MongoDB's
** DBRef convention (a level of nesting, like any document). */
static int shellDBRef(JsonParse *p, const JsonCall *pC){
  int iOpen = p->i;
  i64 iDoc;
  (void)pC;
  p->nDepth++;
  if( ++p->nLevel>DOCEXT_MAX_DEPTH ){
    jsonErr(p, iOpen, "nesting deeper than %d levels", DOCEXT_MAX_DEPTH);
    return 0;
  }
  p->bOddName = 1;        /* '$' names: the stored form's check decides */
  iDoc = docextBsonStartDoc(&p->rc, p->pOut);
  p->i++;
  jsonWs(p);
  shellDBRefMember(p, iOpen, "$ref", 1);
  if( p->rc==SQLITE_OK && jsonPeek(p)!=',' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "invalid DBRef (need an id after the collection name)");
  }
  if( p->rc==SQLITE_OK ){
    p->i++;
    jsonWs(p);
    shellDBRefMember(p, iOpen, "$id", 0);
  }
  if( p->rc==SQLITE_OK && jsonPeek(p)==',' ){
    p->i++;
    jsonWs(p);
    if( jsonPeek(p)!=')' ) shellDBRefMember(p, iOpen, "$db", 1);
    if( p->rc==SQLITE_OK && jsonPeek(p)==',' ){    /* (a trailing comma) */
      p->i++;
      jsonWs(p);
    }
  }
  if( p->rc==SQLITE_OK && jsonPeek(p)!=')' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "expected ')' to end DBRef()");
  }
  if( p->rc ) return 0;
  p->i++;
  docextBsonEndDoc(&p->rc, p->pOut, iDoc);
  p->nLevel--;
  p->nDepth--;
  return p->rc ? 0 : DOC_DOCUMENT;
}

/* Code("source") and Code("source", {scope}), as mongosh prints JavaScript
** code (also after "new"). The scope is a level of nesting of its own, as
** a $scope is. */
static int shellCode(JsonParse *p, const JsonCall *pC){
  static const char zBad[] = "invalid Code (need a string of code and optionally a scope document)";
  DocBuf *pOut = p->pOut;
  int iOpen = p->i;
  i64 iStart = pOut->n;
  int bScope = 0;
  (void)pC;
  p->i++;
  jsonWs(p);
  if( jsonPeek(p)!='"' && jsonPeek(p)!='\'' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "%s", zBad);
    return 0;
  }
  docextBufAppendI32(&p->rc, pOut, 0);   /* code with scope's whole size */
  if( !jsonStringValue(p) ) return 0;
  jsonWs(p);
  if( jsonPeek(p)==',' ){
    p->i++;
    jsonWs(p);
    if( jsonPeek(p)=='{' ){
      int iScope = p->i;
      p->bInWrapper = 0;
      if( jsonObject(p, 0)!=DOC_DOCUMENT ){
        if( p->rc==SQLITE_OK ) jsonErr(p, iScope, "%s", zBad);
        return 0;
      }
      bScope = 1;
      jsonWs(p);
      if( jsonPeek(p)==',' ){              /* (a trailing comma) */
        p->i++;
        jsonWs(p);
      }
    }else if( jsonPeek(p)!=')' ){
      jsonErr(p, p->i<p->n ? p->i : iOpen, "%s", zBad);
      return 0;
    }
  }
  if( jsonPeek(p)!=')' ){
    jsonErr(p, p->i<p->n ? p->i : iOpen, "expected ')' to end Code()");
    return 0;
  }
  p->i++;
  if( !bScope ){
    /* plain code is the string alone: drop the size made room for */
    memmove(&pOut->a[iStart], &pOut->a[iStart+4], (size_t)(pOut->n - iStart - 4));
    pOut->n -= 4;
    return DOC_CODE;
  }
  docextPutI32(&pOut->a[iStart], (int32_t)(pOut->n - iStart));
  jsonCheckSize(p);
  return p->rc ? 0 : DOC_CODEWSCOPE;
}

/* BSONSymbol("s"), as mongosh prints a symbol. */
static int shellSymbol(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  if( pC->nArg!=1 || aArg[0].eKind!=JARG_STRING ){
    jsonErr(p, pC->nArg ? aArg[0].iText : pC->iStart, "invalid BSONSymbol (need a string)");
    return 0;
  }
  docextBufAppendI32(&p->rc, p->pOut, aArg[0].nStr + 1);
  docextBufAppend(&p->rc, p->pOut, jsonArgStr(p, &aArg[0]), aArg[0].nStr);
  docextBufAppendByte(&p->rc, p->pOut, 0);
  return DOC_SYMBOL;
}

/* BSONRegExp("pattern"[, "options"]), as mongosh prints a regex that no
** JavaScript literal can carry. The options are kept as they are (sorted),
** as {$regularExpression: …} keeps them. */
static int shellRegExp(JsonParse *p, const JsonCall *pC){
  const JsonArg *aArg = pC->aArg;
  int nArg = pC->nArg;
  if( nArg<1 || aArg[0].eKind!=JARG_STRING || (nArg==2 && aArg[1].eKind!=JARG_STRING) ){
    jsonErr(p, nArg ? aArg[0].iText : pC->iStart,
            "invalid BSONRegExp (need a pattern and optionally options, strings)");
    return 0;
  }
  if( !jsonPutRegex(&p->rc, p->pOut, jsonArgStr(p, &aArg[0]), aArg[0].nStr,
                    nArg==2 ? jsonArgStr(p, &aArg[1]) : "", nArg==2 ? aArg[1].nStr : 0) ){
    jsonErr(p, aArg[0].iText, "NUL byte in BSONRegExp");
    return 0;
  }
  return DOC_REGEX;
}

/* nArg: at most so many arguments, strings or numbers, which jsonWord()
** reads before the call; -1: the function reads its own (the cursor is then
** at '('). */
static const struct {
  const char *zName;
  int nArg;
  int (*xCall)(JsonParse*, const JsonCall*);
} aShellCall[] = {
  { "ObjectId", 1, shellObjectId },      { "ObjectID", 1, shellObjectId },
  { "ISODate", 1, shellDate },           { "Date", 1, shellDate },
  { "NumberInt", 1, shellInt32 },        { "Int32", 1, shellInt32 },
  { "NumberLong", 1, shellInt64 },       { "Long", 1, shellInt64 },
  { "NumberDecimal", 1, shellDecimal },  { "Decimal128", 1, shellDecimal },
  { "Timestamp", -1, shellTimestamp },
  { "BinData", 2, shellBinData },
  { "Binary.createFromBase64", 2, shellBinaryOrHex },
  { "Binary", -1, shellBinaryBuffer },
  { "HexData", 2, shellBinaryOrHex },
  { "Double", 1, shellDouble },
  { "UUID", 1, shellUuid },
  { "DBPointer", -1, shellDBPointer },
  { "DBRef", -1, shellDBRef },
  { "Code", -1, shellCode },
  { "BSONSymbol", 1, shellSymbol },
  { "BSONRegExp", 2, shellRegExp },
};

/* The literal words that stand for a value: true, false, null, undefined,
** NaN, Infinity, MinKey and MaxKey (the last two also as calls: MinKey()).
** Returns the type written, or -1 if the word is none of them. */
static int jsonLiteral(JsonParse *p, const char *zName, int nName){
  if( jsonWordIs(zName, nName, "true") || jsonWordIs(zName, nName, "false") ){
    docextBufAppendByte(&p->rc, p->pOut, zName[0]=='t');
    return DOC_BOOL;
  }
  if( jsonWordIs(zName, nName, "null") ) return DOC_NULL;
  if( jsonWordIs(zName, nName, "undefined") ) return DOC_UNDEFINED;
  if( jsonWordIs(zName, nName, "NaN") || jsonWordIs(zName, nName, "Infinity") ){
    docextBufAppendDouble(&p->rc, p->pOut, zName[0]=='N' ? NAN : INFINITY);
    return DOC_DOUBLE;
  }
  if( jsonWordIs(zName, nName, "MinKey") || jsonWordIs(zName, nName, "MaxKey") ){
    int iSave = p->i;
    jsonWs(p);
    if( jsonPeek(p)=='(' ){
      p->i++;
      jsonWs(p);
      if( jsonPeek(p)!=')' ){
        jsonErr(p, p->i, "expected ')' after %.*s(", nName, zName);
        return 0;
      }
      p->i++;
    }else{
      p->i = iSave;
    }
    return zName[1]=='i' ? DOC_MINKEY : DOC_MAXKEY;
  }
  return -1;
}

/* The end of the word that starts at z[i]: word characters, and for
** mongosh's Binary.createFromBase64(…) one '.' after "Binary". */
static int jsonWordEnd(JsonParse *p, int i){
  int iStart = i;
  while( i<p->n && jsonIsWordChar((u8)p->z[i]) ) i++;
  if( i-iStart==6 && memcmp(&p->z[iStart], "Binary", 6)==0 && i<p->n && p->z[i]=='.' ){
    i++;
    while( i<p->n && jsonIsWordChar((u8)p->z[i]) ) i++;
  }
  return i;
}

/* A bare word in value position: a literal or a shell call. */
static int jsonWord(JsonParse *p){
  JsonCall call;
  int eType, i;
  call.iStart = p->i;
  call.bNew = 0;
  call.zName = &p->z[p->i];
  p->i = jsonWordEnd(p, p->i);
  call.nName = p->i - call.iStart;
  eType = jsonLiteral(p, call.zName, call.nName);
  if( eType>=0 ) return eType;
  if( jsonWordIs(call.zName, call.nName, "new") ){
    call.bNew = 1;
    jsonWs(p);
    call.zName = &p->z[p->i];
    i = p->i;
    while( i<p->n && jsonIsWordChar((u8)p->z[i]) ) i++;
    call.nName = i - p->i;
    if( call.nName==0 ){
      jsonErr(p, p->i, "expected a name after 'new'");
      return 0;
    }
    p->i = i;
  }
  jsonWs(p);
  if( p->rc ) return 0;
  if( jsonPeek(p)!='(' ){
    if( call.bNew ){
      jsonErr(p, p->i, "expected '(' after new %.*s", call.nName, call.zName);
    }else{
      jsonErr(p, call.iStart, "unexpected '%.*s'", call.nName, call.zName);
    }
    return 0;
  }
  for(i=0; i<DOCEXT_COUNT(aShellCall); i++){
    if( jsonWordIs(call.zName, call.nName, aShellCall[i].zName) ){
      call.nArg = 0;
      if( aShellCall[i].nArg>=0 ){
        call.nArg = jsonArgs(p, call.zName, call.nName, call.aArg, aShellCall[i].nArg);
        if( call.nArg<0 ) return 0;
      }
      return aShellCall[i].xCall(p, &call);
    }
  }
  jsonErr(p, call.iStart, "unknown function %.*s()", call.nName, call.zName);
  return 0;
}

/* Parse any value at the cursor (white space already skipped), append its
** value bytes to pOut and return its BSON type (0 on error). */
static int jsonValue(JsonParse *p){
  int c = jsonPeek(p);
  if( p->rc ) return 0;
  switch( c ){
    case '{':
      return jsonObject(p, 0);
    case '[':
      return jsonArray(p);
    case '"': case '\'':
      return jsonStringValue(p);
    case '/':
      return jsonRegexLiteral(p);
    case -1:
      jsonErr(p, p->i, "expected a value");
      return 0;
    default:
      if( c=='-' || jsonIsDigit(c) ){
        i64 iVal;
        double rVal;
        int e = jsonNumber(p, &iVal, &rVal);
        if( e==JNUM_INT ) return jsonPutInt(p, iVal);
        if( e==JNUM_DOUBLE ){
          docextBufAppendDouble(&p->rc, p->pOut, rVal);
          return DOC_DOUBLE;
        }
        return 0;
      }
      if( jsonIsWordChar(c) ){
        return jsonWord(p);
      }
      if( c>=0x20 && c<0x7F ){
        jsonErr(p, p->i, "unexpected '%c' (expected a value)", c);
      }else{
        jsonErr(p, p->i, "unexpected byte 0x%02x (expected a value)", c);
      }
      return 0;
  }
}

/*------------------------------------------------------------------------
** Entry points
*/

static void jsonInit(JsonParse *p, const char *z, int n, DocBuf *pOut){
  memset(p, 0, sizeof(*p));
  p->z = z;
  p->n = n<0 ? 0 : n;
  p->pOut = pOut;
  p->iRoot = pOut->n;
  /* A UTF-8 byte order mark. */
  if( p->n>=3 && memcmp(z, "\xEF\xBB\xBF", 3)==0 ) p->i = 3;
}

/* Finish: on error turn the message into "docext: … at line L column C"
** and drop what was written. Returns the result code. */
static int jsonFinish(JsonParse *p, int *pnUsed, char **pzErr){
  int rc = p->rc;
  docextBufFree(&p->tmp);
  if( rc==SQLITE_OK ){
    if( pnUsed ) *pnUsed = p->i;
    return SQLITE_OK;
  }
  p->pOut->n = p->iRoot;
  if( pnUsed ) *pnUsed = 0;
  if( pzErr ){
    if( rc==SQLITE_TOOBIG ){
      *pzErr = sqlite3_mprintf("docext: document larger than 16 MiB");
    }else if( rc==SQLITE_ERROR ){
      int iLine = 1, iCol = 1, k;
      int iEnd = p->iErr<p->n ? p->iErr : p->n;
      for(k=0; k<iEnd; k++){
        if( p->z[k]=='\n' ){ iLine++; iCol = 1; }
        else iCol++;
      }
      *pzErr = sqlite3_mprintf("docext: %s at line %d column %d", p->zMsg, iLine, iCol);
      if( *pzErr==0 ) rc = SQLITE_NOMEM;
    }else{
      *pzErr = 0;
    }
  }
  sqlite3_free(p->zMsg);
  return rc;
}

/* The document at the cursor (white space and comments first) as a root
** document; bTop: nothing but white space may follow it. */
static void jsonDocument(JsonParse *p, int bTop){
  jsonWs(p);
  if( p->rc ) return;
  if( jsonPeek(p)!='{' ){
    jsonErr(p, p->i, p->i>=p->n ? "expected a document, got empty text"
                                : "expected '{' to start a document");
    return;
  }
  jsonObject(p, 1);
  if( bTop ){
    jsonWs(p);
    if( p->rc==SQLITE_OK && p->i<p->n ){
      jsonErr(p, p->i, "unexpected text after the document");
    }
  }
}

/* Parse z[0..n) as one whole document (bTop) or the document it starts
** with. bFixed: refuse literals that make a new value at each reading.
** pbNamesChecked, if not NULL: set as docextJsonParseStored says. */
static int jsonParseDoc(const char *z, int n, int bTop, int bFixed, DocBuf *pOut,
                        int *pnUsed, int *pbNamesChecked, char **pzErr){
  JsonParse s;
  jsonInit(&s, z, n, pOut);
  s.bFixed = bFixed;
  if( pzErr ) *pzErr = 0;
  /* A whole text that is one document: its BSON is about as long as the
  ** text, so make room once rather than in a series of doublings. */
  if( bTop ) docextBufReserve(&s.rc, pOut, (i64)s.n + s.n/8 + 64);
  jsonDocument(&s, bTop);
  if( pbNamesChecked ) *pbNamesChecked = s.rc==SQLITE_OK && !s.bOddName;
  return jsonFinish(&s, pnUsed, pzErr);
}

int docextJsonParse(const char *z, int n, int bTop, DocBuf *pOut, int *pnUsed, char **pzErr){
  return jsonParseDoc(z, n, bTop, 0, pOut, pnUsed, 0, pzErr);
}

int docextJsonParseUpdate(const char *z, int n, DocBuf *pOut, int *pbArray, char **pzErr){
  JsonParse s;
  jsonInit(&s, z, n, pOut);
  if( pzErr ) *pzErr = 0;
  *pbArray = 0;
  jsonWs(&s);
  if( s.rc==SQLITE_OK && jsonPeek(&s)=='[' ){
    *pbArray = 1;
    jsonArray(&s);
    jsonWs(&s);
    if( s.rc==SQLITE_OK && s.i<s.n ) jsonErr(&s, s.i, "unexpected text after the array");
  }else{
    jsonDocument(&s, 1);
  }
  return jsonFinish(&s, 0, pzErr);
}

int docextJsonParseFixed(const char *z, int n, DocBuf *pOut, char **pzErr){
  return jsonParseDoc(z, n, 1, 1, pOut, 0, 0, pzErr);
}

int docextJsonParseStored(const char *z, int n, DocBuf *pOut, int *pbNamesChecked,
                          char **pzErr){
  return jsonParseDoc(z, n, 1, 0, pOut, 0, pbNamesChecked, pzErr);
}

void docextJsonSeqInit(DocJsonSeq *q, const char *z, int n){
  JsonParse s;
  DocBuf unused;
  memset(q, 0, sizeof(*q));
  memset(&unused, 0, sizeof(unused));
  q->z = z;
  q->n = n<0 ? 0 : n;
  jsonInit(&s, z, n, &unused);
  q->i = s.i;                 /* past a byte order mark */
  jsonWs(&s);                 /* an unterminated comment: left to SeqNext */
  if( s.rc==SQLITE_OK && jsonPeek(&s)=='[' ){
    q->bArray = 1;
    q->iOpen = s.i;
    q->i = s.i+1;
  }
  sqlite3_free(s.zMsg);
  docextBufFree(&s.tmp);
}

int docextJsonSeqNext(DocJsonSeq *q, DocBuf *pOut, int *pbEof, char **pzErr){
  JsonParse s;
  *pbEof = 0;
  *pzErr = 0;
  q->bInDoc = 0;
  docextBufReset(pOut);
  jsonInit(&s, q->z, q->n, pOut);
  s.i = q->i;
  jsonWs(&s);
  if( q->bArray ){
    int c = jsonPeek(&s);
    if( s.rc==SQLITE_OK && q->nDoc>0 ){
      /* after an element: ',' (perhaps trailing) or ']' */
      if( c==',' ){
        s.i++;
        jsonWs(&s);
        c = jsonPeek(&s);
      }else if( c!=']' && c>=0 ){
        jsonErr(&s, s.i, "expected ',' or ']'");
      }
    }
    if( s.rc==SQLITE_OK && c==']' ){
      s.i++;
      jsonWs(&s);
      if( s.rc==SQLITE_OK && s.i<s.n ){
        jsonErr(&s, s.i, "unexpected text after the array");
      }
      *pbEof = 1;
    }else if( s.rc==SQLITE_OK && c<0 ){
      jsonErr(&s, q->iOpen, "unterminated array");
    }
  }else{
    /* JSON Lines: documents separated by white space, comments, commas */
    while( s.rc==SQLITE_OK && jsonPeek(&s)==',' ){
      s.i++;
      jsonWs(&s);
    }
    if( s.rc==SQLITE_OK && s.i>=s.n ) *pbEof = 1;
  }
  if( s.rc==SQLITE_OK && !*pbEof ){
    q->bInDoc = 1;
    q->nDoc++;
    jsonDocument(&s, 0);
  }
  q->i = s.i;
  return jsonFinish(&s, 0, pzErr);
}

int docextJsonParseValue(const char *z, int n, DocBuf *pOut, int *pnUsed, char **pzErr){
  JsonParse s;
  i64 iDoc, iType;
  int eType;
  jsonInit(&s, z, n, pOut);
  if( pzErr ) *pzErr = 0;
  iDoc = docextBsonStartDoc(&s.rc, pOut);
  iType = pOut->n;
  docextBsonAppendKey(&s.rc, pOut, 0, "", 0);
  jsonWs(&s);
  eType = jsonValue(&s);
  if( s.rc==SQLITE_OK ) pOut->a[iType] = (u8)eType;
  docextBsonEndDoc(&s.rc, pOut, iDoc);
  return jsonFinish(&s, pnUsed, pzErr);
}
