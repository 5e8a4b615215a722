/*
** docext_regex.c — $regex through PCRE2 (8-bit, UTF mode). This is the only
** file that includes pcre2.h.
**
** Every allocation PCRE2 makes (the compiled code, match data, the heap
** frames of a backtracking match) goes through a general context whose
** allocator is sqlite3_malloc64/sqlite3_free, so SQLite's memory accounting
** and out-of-memory injection reach it.
**
** A match context bounds each match: DOCREGEX_MATCH_LIMIT backtracking
** steps, DOCREGEX_DEPTH_LIMIT nested backtracking frames and
** DOCREGEX_HEAP_LIMIT KiB of frame memory. A pattern such as (a+)+$ against
** a long run of 'a' followed by '!' then fails at once with "exceeded its
** match limit" instead of running for hours. The interpreter is used, never
** the JIT: the JIT ignores the depth limit. A pattern can lower the limits
** itself with (*LIMIT_MATCH=n) but cannot raise them above ours.
*/
#define PCRE2_CODE_UNIT_WIDTH 8
#include "docextInt.h"
#include <pcre2.h>
#include <stdarg.h>

#define DOCREGEX_MAX_PATTERN 32764     /* MongoDB's cap, bytes */
#define DOCREGEX_MATCH_LIMIT 1000000
#define DOCREGEX_DEPTH_LIMIT 1000000
#define DOCREGEX_HEAP_LIMIT  65536     /* KiB */
#define DOCREGEX_SHOW_MAX    200       /* pattern bytes quoted in messages */

struct DocRegex {
  pcre2_general_context *pGen;    /* SQLite's allocator */
  pcre2_code *pCode;              /* the compiled pattern */
  pcre2_match_context *pMatchCtx; /* the limits */
  pcre2_match_data *pData;        /* reused by every match */
  char *zShow;                    /* "/pattern/" for messages */
};

static void *reMalloc(PCRE2_SIZE n, void *pUser){
  (void)pUser;
  return sqlite3_malloc64((sqlite3_uint64)n);
}

static void reFree(void *p, void *pUser){
  (void)pUser;
  sqlite3_free(p);
}

/* "/pattern/" (cut at DOCREGEX_SHOW_MAX bytes, on a character boundary),
** for error messages. NULL on OOM. */
static char *reShow(const char *z, int n){
  int nShow = n;
  if( nShow>DOCREGEX_SHOW_MAX ){
    nShow = DOCREGEX_SHOW_MAX;
    while( nShow>0 && (((u8)z[nShow])&0xC0)==0x80 ) nShow--;
    return sqlite3_mprintf("/%.*s.../", nShow, z);
  }
  return sqlite3_mprintf("/%.*s/", nShow, z);
}

/* Translate MongoDB's option letters into PCRE2 compile options. Returns
** the offending letter, or 0 if all are valid. */
static char reOptions(const char *zOptions, uint32_t *pFlags){
  uint32_t f = 0;
  const char *z;
  for(z=zOptions ? zOptions : ""; *z; z++){
    switch( *z ){
      case 'i': f |= PCRE2_CASELESS; break;
      case 'm': f |= PCRE2_MULTILINE; break;
      case 's': f |= PCRE2_DOTALL; break;
      case 'x': f |= PCRE2_EXTENDED; break;
      case 'u': break;                     /* UTF is always on */
      default: return *z;
    }
  }
  *pFlags = f;
  return 0;
}

void docextRegexFree(DocRegex *pRe){
  if( pRe ){
    pcre2_match_data_free(pRe->pData);
    pcre2_match_context_free(pRe->pMatchCtx);
    pcre2_code_free(pRe->pCode);
    pcre2_general_context_free(pRe->pGen);
    sqlite3_free(pRe->zShow);
    sqlite3_free(pRe);
  }
}

int docextRegexCompile(const char *z, int n, const char *zOptions,
                       DocRegex **ppRe, char **pzErr){
  DocRegex *pRe;
  uint32_t flags = 0;
  char cBad;
  int iErr = 0, rc = SQLITE_OK;
  PCRE2_SIZE iErrOff = 0;
  pcre2_compile_context *pCompCtx = 0;

  *ppRe = 0;
  pRe = docextMallocZero(sizeof(*pRe));
  if( pRe==0 ) return SQLITE_NOMEM;
  pRe->zShow = reShow(z, n);
  if( pRe->zShow==0 ) goto nomem;

  cBad = reOptions(zOptions, &flags);
  if( cBad ){
    rc = docextError(pzErr, "docext: invalid regex %s: unknown option '%c'", pRe->zShow, cBad);
  }else if( n>DOCREGEX_MAX_PATTERN ){
    rc = docextError(pzErr, "docext: invalid regex %s: pattern longer than %d bytes",
                     pRe->zShow, DOCREGEX_MAX_PATTERN);
  }else if( memchr(z, 0, n) ){
    rc = docextError(pzErr, "docext: invalid regex %s: embedded NUL byte", pRe->zShow);
  }
  if( rc ){
    docextRegexFree(pRe);
    return rc;
  }

  pRe->pGen = pcre2_general_context_create(reMalloc, reFree, 0);
  if( pRe->pGen==0 ) goto nomem;
  pCompCtx = pcre2_compile_context_create(pRe->pGen);
  if( pCompCtx==0 ) goto nomem;
  pRe->pCode = pcre2_compile((PCRE2_SPTR)z, (PCRE2_SIZE)n,
                             flags | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                             &iErr, &iErrOff, pCompCtx);
  pcre2_compile_context_free(pCompCtx);
  if( pRe->pCode==0 ){
    PCRE2_UCHAR zWhy[256];
    if( iErr==PCRE2_ERROR_NOMEMORY || iErr==PCRE2_ERROR_HEAP_FAILED ) goto nomem;
    if( pcre2_get_error_message(iErr, zWhy, sizeof(zWhy))<0 ) zWhy[0] = 0;
    rc = docextError(pzErr, "docext: invalid regex %s: %s at offset %d",
                     pRe->zShow, (const char*)zWhy, (int)iErrOff);
    docextRegexFree(pRe);
    return rc;
  }
  pRe->pMatchCtx = pcre2_match_context_create(pRe->pGen);
  if( pRe->pMatchCtx==0 ) goto nomem;
  pcre2_set_match_limit(pRe->pMatchCtx, DOCREGEX_MATCH_LIMIT);
  pcre2_set_depth_limit(pRe->pMatchCtx, DOCREGEX_DEPTH_LIMIT);
  pcre2_set_heap_limit(pRe->pMatchCtx, DOCREGEX_HEAP_LIMIT);
  pRe->pData = pcre2_match_data_create_from_pattern(pRe->pCode, pRe->pGen);
  if( pRe->pData==0 ) goto nomem;
  *ppRe = pRe;
  return SQLITE_OK;

nomem:
  docextRegexFree(pRe);
  return SQLITE_NOMEM;
}

int docextRegexMatch(DocRegex *pRe, const char *s, int n, int *pbMatch, char **pzErr){
  return docextRegexExec(pRe, s, n, 0, 0, 0, pbMatch, pzErr);
}

int docextRegexExec(DocRegex *pRe, const char *s, int n, int iStart, int *aOff, int nGroup,
                    int *pnMatch, char **pzErr){
  int rc = pcre2_match(pRe->pCode, (PCRE2_SPTR)s, (PCRE2_SIZE)n, (PCRE2_SIZE)iStart, 0,
                       pRe->pData, pRe->pMatchCtx);
  *pnMatch = 0;
  if( rc>=0 ){
    PCRE2_SIZE *aOv = pcre2_get_ovector_pointer(pRe->pData);
    int nPair = (int)pcre2_get_ovector_count(pRe->pData), i;
    for(i=0; i<nGroup; i++){
      int bSet = i<nPair && aOv[2*i]!=PCRE2_UNSET;
      aOff[2*i] = bSet ? (int)aOv[2*i] : -1;
      aOff[2*i+1] = bSet ? (int)aOv[2*i+1] : -1;
    }
    *pnMatch = 1;
    return SQLITE_OK;
  }
  switch( rc ){
    case PCRE2_ERROR_NOMATCH:
      return SQLITE_OK;
    case PCRE2_ERROR_NOMEMORY:
      return SQLITE_NOMEM;
    case PCRE2_ERROR_MATCHLIMIT:
      return docextError(pzErr, "docext: regex %s exceeded its match limit", pRe->zShow);
    case PCRE2_ERROR_DEPTHLIMIT:
      return docextError(pzErr, "docext: regex %s exceeded its depth limit", pRe->zShow);
    case PCRE2_ERROR_HEAPLIMIT:
      return docextError(pzErr, "docext: regex %s exceeded its heap limit", pRe->zShow);
    default: {
      PCRE2_UCHAR zWhy[256];
      if( pcre2_get_error_message(rc, zWhy, sizeof(zWhy))<0 ) zWhy[0] = 0;
      return docextError(pzErr, "docext: regex %s failed: %s", pRe->zShow, (const char*)zWhy);
    }
  }
}

void docextRegexSortOptions(u8 *a, i64 n){
  i64 aCount[128];
  i64 k, j = 0;
  int c;
  memset(aCount, 0, sizeof(aCount));
  for(k=0; k<n; k++){
    if( a[k]>=0x80 ) return;
    aCount[a[k]]++;
  }
  for(c=0; c<128; c++){
    for(k=0; k<aCount[c]; k++) a[j++] = (u8)c;
  }
}

int docextRegexGroups(DocRegex *pRe){
  uint32_t n = 0;
  pcre2_pattern_info(pRe->pCode, PCRE2_INFO_CAPTURECOUNT, &n);
  return (int)n;
}
