/*
** docext_bson.c — BSON 1.1: validate, iterate, write.
**
** A document is  int32 total-length, elements..., 0x00.
** An element is  type byte, key (cstring), value bytes (size by type).
**
** Untrusted bytes (SQL arguments, shadow-table pages) go through
** docextBsonValidate() once; everything after that (the iterator, the
** accessors) trusts them and does no bounds checking of its own. The one
** exception is a reader that walks the bytes once anyway, the JSON writer
** of SELECT doc: it steps with docextCheckNext() (docextInt.h), which
** checks each element as docextBsonValidate() would, in the same order,
** through the same code.
*/
#include "docextInt.h"
#include <math.h>

/* Length of the NUL-terminated string at p within nAvail bytes (excluding
** the NUL), or -1 if there is no NUL. */
static i64 cstrLen(const u8 *p, i64 nAvail){
  const u8 *pEnd = memchr(p, 0, (size_t)nAvail);
  return pEnd ? (i64)(pEnd - p) : -1;
}

int docextBsonValueSize(int type, const u8 *p, i64 nAvail){
  i64 n, n2;
  switch( type ){
    case DOC_DOUBLE: case DOC_DATE: case DOC_TIMESTAMP: case DOC_INT64:
      n = 8; break;
    case DOC_INT32:
      n = 4; break;
    case DOC_DECIMAL128:
      n = 16; break;
    case DOC_OID:
      n = 12; break;
    case DOC_BOOL:
      n = 1; break;
    case DOC_UNDEFINED: case DOC_NULL: case DOC_MINKEY: case DOC_MAXKEY:
      n = 0; break;
    case DOC_STRING: case DOC_CODE: case DOC_SYMBOL:
      if( nAvail<4 ) return -1;
      n = docextGetI32(p);
      if( n<1 ) return -1;
      n += 4;
      break;
    case DOC_DOCUMENT: case DOC_ARRAY: case DOC_CODEWSCOPE:
      if( nAvail<4 ) return -1;
      n = docextGetI32(p);
      if( n<5 ) return -1;
      break;
    case DOC_BINARY:
      if( nAvail<4 ) return -1;
      n = docextGetI32(p);
      if( n<0 ) return -1;
      n += 5;
      break;
    case DOC_REGEX:
      n = cstrLen(p, nAvail);
      if( n<0 ) return -1;
      n2 = cstrLen(p+n+1, nAvail-n-1);
      if( n2<0 ) return -1;
      n = n + n2 + 2;
      break;
    case DOC_DBPOINTER:
      if( nAvail<4 ) return -1;
      n = docextGetI32(p);
      if( n<1 ) return -1;
      n += 4 + 12;
      break;
    default:
      return -1;
  }
  return n>nAvail ? -1 : (int)n;
}

/*------------------------------------------------------------------------
** Validation
*/

/* Is z[0..n) well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF)? */
static int utf8Valid(const u8 *z, i64 n){
  i64 i = 0;
  while( i<n ){
    u8 c;
    int nTrail;
    uint32_t cp;
    /* ASCII, eight bytes at a time. */
    while( i+8<=n ){
      u64 w;
      memcpy(&w, z+i, 8);
      if( w & 0x8080808080808080ULL ) break;
      i += 8;
    }
    if( i>=n ) break;
    c = z[i];
    if( c<0x80 ){ i++; continue; }
    if( c>=0xC2 && c<=0xDF ){ nTrail = 1; cp = c & 0x1F; }
    else if( c>=0xE0 && c<=0xEF ){ nTrail = 2; cp = c & 0x0F; }
    else if( c>=0xF0 && c<=0xF4 ){ nTrail = 3; cp = c & 0x07; }
    else return 0;
    if( i+nTrail>=n ) return 0;
    for(int j=1; j<=nTrail; j++){
      if( (z[i+j] & 0xC0)!=0x80 ) return 0;
      cp = (cp<<6) | (z[i+j] & 0x3F);
    }
    if( (nTrail==2 && cp<0x800) || (nTrail==3 && cp<0x10000)
     || cp>0x10FFFF || (cp>=0xD800 && cp<=0xDFFF) ){
      return 0;
    }
    i += nTrail+1;
  }
  return 1;
}

static int typeKnown(int type){
  return (type>=DOC_DOUBLE && type<=DOC_DECIMAL128)
      || type==DOC_MINKEY || type==DOC_MAXKEY;
}

static int checkFail(DocCheck *pCk, const u8 *p, const char *zWhy){
  pCk->iOff = (int)(p - pCk->aBase);
  pCk->zWhy = zWhy;
  return SQLITE_ERROR;
}

static int checkDoc(DocCheck *pCk, const u8 *a, i64 nAvail, int iDepth);

/* A length-prefixed string: int32 n, n-1 bytes of UTF-8, NUL. */
static inline int checkString(DocCheck *pCk, const u8 *p, int nVal){
  i64 n = nVal - 4;   /* docextBsonValueSize() made nVal = 4 + length >= 5 */
  if( p[4+n-1]!=0 ) return checkFail(pCk, p+4+n-1, "string not terminated");
  if( pCk->bText && !utf8Valid(p+4, n-1) ){
    return checkFail(pCk, p+4, "invalid UTF-8 in string");
  }
  return SQLITE_OK;
}

/* The checks of the rarer types (checkDoc does strings, documents, arrays
** and bools itself). */
static int checkValue(DocCheck *pCk, int type, const u8 *p, int nVal, int iDepth){
  switch( type ){
    case DOC_CODE: case DOC_SYMBOL:
      return checkString(pCk, p, nVal);
    case DOC_BINARY:
      /* Subtype 2 (old binary) repeats the length inside the payload. */
      if( p[4]==0x02 ){
        if( nVal<9 || docextGetI32(p+5)!=nVal-9 ){
          return checkFail(pCk, p, "bad length in binary subtype 2");
        }
      }
      return SQLITE_OK;
    case DOC_REGEX: {
      i64 n1 = cstrLen(p, nVal);
      if( pCk->bText && (!utf8Valid(p, n1) || !utf8Valid(p+n1+1, nVal-n1-2)) ){
        return checkFail(pCk, p, "invalid UTF-8 in regex");
      }
      return SQLITE_OK;
    }
    case DOC_DBPOINTER:
      return checkString(pCk, p, nVal-12);
    case DOC_CODEWSCOPE: {
      i64 nStr;
      int rc;
      if( nVal<14 ) return checkFail(pCk, p, "bad code-with-scope length");
      nStr = docextGetI32(p+4);
      if( nStr<1 || 8+nStr+5>nVal ){
        return checkFail(pCk, p+4, "bad code-with-scope string length");
      }
      rc = checkString(pCk, p+4, (int)nStr+4);
      if( rc ) return rc;
      if( docextGetI32(p+8+nStr)!=nVal-8-nStr ){
        return checkFail(pCk, p+8+nStr, "bad code-with-scope scope length");
      }
      if( iDepth>=DOCEXT_MAX_DEPTH ){
        return checkFail(pCk, p, "nesting deeper than 100 levels");
      }
      return checkDoc(pCk, p+8+nStr, nVal-8-nStr, iDepth+1);
    }
    default:
      return SQLITE_OK;
  }
}

/* The slow paths of docextCheckNext() (docextInt.h), which reports a
** problem as -1. */
int docextCheckFailAt(DocCheck *pCk, const u8 *p, const char *zWhy){
  checkFail(pCk, p, zWhy);
  return -1;
}
int docextCheckUtf8(DocCheck *pCk, const u8 *p, i64 n, const char *zWhy){
  return utf8Valid(p, n) ? 0 : docextCheckFailAt(pCk, p, zWhy);
}
int docextCheckOther(DocCheck *pCk, int type, const u8 *pType, const u8 *p, i64 nRest,
                     int iDepth){
  int nVal = docextBsonValueSize(type, p, nRest);
  if( nVal<0 ){
    if( !typeKnown(type) ) return docextCheckFailAt(pCk, pType, "unknown element type");
    return docextCheckFailAt(pCk, p, "value runs past the end of its document");
  }
  if( checkValue(pCk, type, p, nVal, iDepth) ) return -1;
  return nVal;
}

/* Check the document at a, which must be exactly nAvail bytes long. */
static int checkDoc(DocCheck *pCk, const u8 *a, i64 nAvail, int iDepth){
  DocIter it;
  int r;
  if( docextCheckStart(pCk, &it, a, nAvail) ) return SQLITE_ERROR;
  while( (r = docextCheckNext(pCk, &it, iDepth))>0 ){
    if( (it.v.type==DOC_DOCUMENT || it.v.type==DOC_ARRAY)
     && checkDoc(pCk, it.v.p, it.v.n, iDepth+1) ){
      return SQLITE_ERROR;
    }
  }
  return r<0 ? SQLITE_ERROR : SQLITE_OK;
}

/* The checks of a whole document before its elements: its size limit and
** its length prefix. Readies pCk. */
int docextCheckInit(DocCheck *pCk, const u8 *a, i64 n, int bText){
  pCk->aBase = a;
  pCk->bText = bText;
  pCk->iOff = 0;
  pCk->zWhy = 0;
  if( n>DOCEXT_MAX_BSON ){
    pCk->zWhy = "document larger than 16 MiB";
    return SQLITE_ERROR;
  }
  if( n>=4 && docextGetI32(a)!=n ){
    pCk->zWhy = "document length does not match its size";
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* Validate; bText also checks UTF-8. */
int docextCheckDoc(DocCheck *pCk, const u8 *a, i64 n, int bText){
  int rc = docextCheckInit(pCk, a, n, bText);
  if( rc==SQLITE_OK ) rc = checkDoc(pCk, a, n, 0);
  return rc;
}

static int validate(const u8 *a, i64 n, int bText, int *piOff, const char **pzWhy){
  DocCheck ck;
  int rc = docextCheckDoc(&ck, a, n, bText);
  if( piOff ) *piOff = ck.iOff;
  if( pzWhy ) *pzWhy = ck.zWhy;
  return rc;
}

int docextBsonValidate(const u8 *a, i64 n, int *piOff, const char **pzWhy){
  return validate(a, n, 1, piOff, pzWhy);
}

int docextBsonCheck(const u8 *a, i64 n, char **pzErr){
  return docextBsonCheckEx(a, n, 1, pzErr);
}

int docextBsonCheckEx(const u8 *a, i64 n, int bText, char **pzErr){
  int iOff;
  const char *zWhy;
  int rc = validate(a, n, bText, &iOff, &zWhy);
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("docext: malformed BSON at byte %d: %s", iOff, zWhy);
  }
  return rc;
}

/*------------------------------------------------------------------------
** Iteration over validated documents
*/


int docextValueDepth(const DocValue *v, int nMax){
  DocIter it;
  int nDeepest = 0;
  if( v->type!=DOC_DOCUMENT && v->type!=DOC_ARRAY ) return 0;
  if( nMax<=0 ) return 1;                 /* (already more than nMax) */
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    if( it.v.type==DOC_DOCUMENT || it.v.type==DOC_ARRAY ){
      int d = docextValueDepth(&it.v, nMax-1);
      if( d>nDeepest ) nDeepest = d;
      if( nDeepest>=nMax ) break;         /* 1 + nDeepest is more than nMax */
    }
  }
  return 1 + nDeepest;
}

void docextIterInitValue(DocIter *pIter, const DocValue *pVal){
  docextIterInit(pIter, pVal->p);
}

int docextNameIndex(const char *z, int n, const char *const *azName, int nName){
  int i;
  for(i=0; i<nName; i++){
    if( (int)strlen(azName[i])==n && memcmp(azName[i], z, (size_t)n)==0 ) return i;
  }
  return -1;
}

int docextIterCount(const DocValue *pVal){
  DocIter it;
  int n = 0;
  docextIterInitValue(&it, pVal);
  while( docextIterNext(&it) ) n++;
  return n;
}


u8 *docextBsonCopy(const u8 *aDoc){
  int n = docextGetI32(aDoc);
  u8 *aCopy = sqlite3_malloc64(n);
  if( aCopy ) memcpy(aCopy, aDoc, n);
  return aCopy;
}

void docextBsonWithId(int *pRc, DocBuf *pOut, const DocValue *pId, const u8 *aDoc){
  DocIter it;
  i64 iStart = docextBsonStartDoc(pRc, pOut);
  docextBsonAppendValue(pRc, pOut, "_id", 3, pId);
  docextIterInit(&it, aDoc);
  while( docextIterNext(&it) ) docextBsonAppendValue(pRc, pOut, it.zKey, it.nKey, &it.v);
  docextBsonEndDoc(pRc, pOut, iStart);
}

/* Write as element zKey of pOut a document holding only the rest of a
** path: {b: {c: pNew}} for "b.c". */
static void bsonPathOnly(int *pRc, DocBuf *pOut, const char *zKey, int nKey,
                         const char *zRest, const DocValue *pNew){
  const char *zDot = strchr(zRest, '.');
  int nPart = zDot ? (int)(zDot-zRest) : (int)strlen(zRest);
  i64 iDoc = docextBsonStartChild(pRc, pOut, DOC_DOCUMENT, zKey, nKey);
  if( zDot ) bsonPathOnly(pRc, pOut, zRest, nPart, zDot+1, pNew);
  else docextBsonAppendValue(pRc, pOut, zRest, nPart, pNew);
  docextBsonEndDoc(pRc, pOut, iDoc);
}

void docextBsonSetPath(int *pRc, DocBuf *pOut, const u8 *aDoc, const char *zPath,
                       const DocValue *pNew){
  const char *zDot = strchr(zPath, '.');
  int nPart = zDot ? (int)(zDot-zPath) : (int)strlen(zPath), bDone = 0;
  i64 iDoc = docextBsonStartDoc(pRc, pOut);
  DocIter it;
  docextIterInit(&it, aDoc);
  while( *pRc==SQLITE_OK && docextIterNext(&it) ){
    if( !bDone && it.nKey==nPart && memcmp(it.zKey, zPath, nPart)==0 ){
      bDone = 1;
      if( zDot && it.v.type==DOC_DOCUMENT ){
        /* (the embedded document written in place, after its key) */
        docextBsonAppendKey(pRc, pOut, DOC_DOCUMENT, it.zKey, it.nKey);
        docextBsonSetPath(pRc, pOut, it.v.p, zDot+1, pNew);
        continue;
      }
      if( pNew==0 ) continue;                   /* removed */
      if( zDot ){
        bsonPathOnly(pRc, pOut, it.zKey, it.nKey, zDot+1, pNew);
      }else{
        docextBsonAppendValue(pRc, pOut, it.zKey, it.nKey, pNew);
      }
      continue;
    }
    docextBsonAppendValue(pRc, pOut, it.zKey, it.nKey, &it.v);
  }
  if( !bDone && pNew ){
    if( zDot ) bsonPathOnly(pRc, pOut, zPath, nPart, zDot+1, pNew);
    else docextBsonAppendValue(pRc, pOut, zPath, nPart, pNew);
  }
  docextBsonEndDoc(pRc, pOut, iDoc);
}

const char *docextBsonFields(const DocValue *v, const char *const *azName, int nName,
                             DocValue *aOut){
  DocIter it;
  memset(aOut, 0, sizeof(DocValue)*nName);
  docextIterInitValue(&it, v);
  while( docextIterNext(&it) ){
    int i = docextNameIndex(it.zKey, it.nKey, azName, nName);
    if( i<0 ) return it.zKey;
    aOut[i] = it.v;
  }
  return 0;
}

int docextBsonFind(const u8 *aDoc, const char *zKey, int nKey, DocValue *pOut){
  DocIter it;
  docextIterInit(&it, aDoc);
  while( docextIterNext(&it) ){
    if( it.nKey==nKey && memcmp(it.zKey, zKey, nKey)==0 ){
      *pOut = it.v;
      return 1;
    }
  }
  return 0;
}

/*------------------------------------------------------------------------
** Accessors for validated values
*/

int32_t docextValueI32(const DocValue *v){ return docextGetI32(v->p); }
i64 docextValueI64(const DocValue *v){ return docextGetI64(v->p); }
DocValue docextValue64(int type, i64 x, u8 *a8){
  DocValue v;
  int k;
  for(k=0; k<8; k++) a8[k] = (u8)((u64)x >> (8*k));
  v.type = type;
  v.p = a8;
  v.n = 8;
  return v;
}
DocValue docextValueString(int *pRc, DocBuf *p, const char *z, int n){
  DocValue v;
  docextBufReset(p);
  docextBufAppendI32(pRc, p, n+1);
  docextBufAppend(pRc, p, z, n);
  docextBufAppendByte(pRc, p, 0);
  v.type = *pRc==SQLITE_OK ? DOC_STRING : 0;
  v.p = p->a;
  v.n = (int)p->n;
  return v;
}
double docextValueDouble(const DocValue *v){ return docextGetDouble(v->p); }

const char *docextValueStr(const DocValue *v, int *pn){
  const u8 *p = v->type==DOC_CODEWSCOPE ? v->p+4 : v->p;
  *pn = docextGetI32(p) - 1;
  return (const char*)p + 4;
}

int docextValueIsNumber(const DocValue *v){
  switch( v->type ){
    case DOC_DOUBLE: case DOC_INT32: case DOC_INT64: case DOC_DECIMAL128:
      return 1;
  }
  return 0;
}

int docextValueIsNaN(const DocValue *v){
  if( v->type==DOC_DOUBLE ) return isnan(docextValueDouble(v));
  if( v->type==DOC_DECIMAL128 ){
    char zDigits[40];
    int bNeg, iExp;
    return docextDec128Parts(v->p, &bNeg, zDigits, &iExp)==DOCEXT_DEC_NAN;
  }
  return 0;
}

double docextValueToDouble(const DocValue *v){
  switch( v->type ){
    case DOC_DOUBLE:     return docextGetDouble(v->p);
    case DOC_INT32:      return (double)docextGetI32(v->p);
    case DOC_INT64:      return (double)docextGetI64(v->p);
    case DOC_DECIMAL128: return docextDec128ToDouble(v->p);
  }
  return 0.0;
}

int docextValueTruth(const DocValue *v){
  switch( v->type ){
    case 0: case DOC_NULL: case DOC_UNDEFINED: return 0;
    case DOC_BOOL:       return v->p[0]!=0;
    case DOC_INT32:      return docextGetI32(v->p)!=0;
    case DOC_INT64:      return docextGetI64(v->p)!=0;
    case DOC_DOUBLE:     return docextGetDouble(v->p)!=0.0;     /* NaN is true */
    case DOC_DECIMAL128: return !docextDec128IsZero(v->p);
  }
  return 1;
}

/*------------------------------------------------------------------------
** Writer
*/

i64 docextBsonStartDoc(int *pRc, DocBuf *p){
  i64 iStart = p->n;
  docextBufAppendI32(pRc, p, 0);
  return iStart;
}

void docextBsonEndDoc(int *pRc, DocBuf *p, i64 iStart){
  docextBufAppendByte(pRc, p, 0);
  if( *pRc==SQLITE_OK ){
    i64 n = p->n - iStart;
    if( n>DOCEXT_MAX_BSON ){
      *pRc = SQLITE_TOOBIG;
    }else{
      docextPutI32(&p->a[iStart], (int32_t)n);
    }
  }
}

void docextBsonAppendKey(int *pRc, DocBuf *p, int type, const char *zKey, int nKey){
  if( docextBufReserve(pRc, p, nKey+2) ){
    p->a[p->n++] = (u8)type;
    memcpy(&p->a[p->n], zKey, nKey);
    p->n += nKey;
    p->a[p->n++] = 0;
  }
}

void docextBsonAppendFieldRef(int *pRc, DocBuf *p, const char *zKey, int nKey,
                              const char *zField, int nField){
  docextBsonAppendKey(pRc, p, DOC_STRING, zKey, nKey);
  docextBufAppendI32(pRc, p, nField+2);
  docextBufAppendByte(pRc, p, '$');
  docextBufAppend(pRc, p, zField, nField);
  docextBufAppendByte(pRc, p, 0);
}

i64 docextBsonStartChild(int *pRc, DocBuf *p, int type, const char *zKey, int nKey){
  docextBsonAppendKey(pRc, p, type, zKey, nKey);
  return docextBsonStartDoc(pRc, p);
}

void docextBsonAppendValue(int *pRc, DocBuf *p, const char *zKey, int nKey, const DocValue *v){
  docextBsonAppendKey(pRc, p, v->type, zKey, nKey);
  docextBufAppend(pRc, p, v->p, v->n);
}

void docextBsonAppendInt32(int *pRc, DocBuf *p, const char *zKey, int nKey, int32_t v){
  docextBsonAppendKey(pRc, p, DOC_INT32, zKey, nKey);
  docextBufAppendI32(pRc, p, v);
}

void docextBsonAppendInt64(int *pRc, DocBuf *p, const char *zKey, int nKey, i64 v){
  docextBsonAppendKey(pRc, p, DOC_INT64, zKey, nKey);
  docextBufAppendI64(pRc, p, v);
}

void docextBsonAppendDouble(int *pRc, DocBuf *p, const char *zKey, int nKey, double v){
  docextBsonAppendKey(pRc, p, DOC_DOUBLE, zKey, nKey);
  docextBufAppendDouble(pRc, p, v);
}

void docextBsonAppendBool(int *pRc, DocBuf *p, const char *zKey, int nKey, int b){
  docextBsonAppendKey(pRc, p, DOC_BOOL, zKey, nKey);
  docextBufAppendByte(pRc, p, b ? 1 : 0);
}

void docextBsonAppendNull(int *pRc, DocBuf *p, const char *zKey, int nKey){
  docextBsonAppendKey(pRc, p, DOC_NULL, zKey, nKey);
}

void docextBsonAppendString(int *pRc, DocBuf *p, int type, const char *zKey, int nKey,
                            const char *z, int n){
  docextBsonAppendKey(pRc, p, type, zKey, nKey);
  docextBufAppendI32(pRc, p, n+1);
  docextBufAppend(pRc, p, z, n);
  docextBufAppendByte(pRc, p, 0);
}

void docextBsonAppendOid(int *pRc, DocBuf *p, const char *zKey, int nKey, const u8 *aOid){
  docextBsonAppendKey(pRc, p, DOC_OID, zKey, nKey);
  docextBufAppend(pRc, p, aOid, 12);
}

void docextBsonAppendDate(int *pRc, DocBuf *p, const char *zKey, int nKey, i64 ms){
  docextBsonAppendKey(pRc, p, DOC_DATE, zKey, nKey);
  docextBufAppendI64(pRc, p, ms);
}

int docextBsonArrayKey(char *zBuf, int i){
  char aTmp[12];
  int n = 0, j;
  do{ aTmp[n++] = (char)('0' + i%10); i /= 10; }while( i>0 );
  for(j=0; j<n; j++) zBuf[j] = aTmp[n-1-j];
  zBuf[n] = 0;
  return n;
}
