/*
** docext_text.c — MongoDB's text search: text indexes and $text.
**
** WHICH STRINGS. A text index names string fields, each with a weight (1
** unless its weights option says otherwise), or "$**": every string of the
** document, weight 1 unless named. textWalk() finds them as MongoDB's
** FTSElementIterator does: a string at a named path, the strings of an
** array there (not of arrays within it), the named fields of embedded
** documents (arrays of them too). A document, or an embedded one, may name
** its own language in the override field ("language" unless the index
** says otherwise); its strings, and those below it, are read in it.
**
** TERMS. A string is cut into words at delimiters (Unicode's white space,
** dashes, hyphens, quotation marks, terminal punctuation and pattern
** syntax; the apostrophe belongs to English words), as text index version
** 3 does. Each word is lower-cased (Turkish has its own i's), dropped if it
** is a stop word (Snowball's lists, docext_stopwords.c), stemmed (Snowball's
** stemmers, docext_stem.c), and stripped of diacritics. The languages are
** MongoDB's 15 and "none" (no stop words, no stemming).
**
** SCORES. A term of one string scores weight * freq * coeff * adj, as in
** MongoDB: its n-th occurrence adds 1/2^(n-1) to freq; coeff = 0.5 *
** count / words + 0.5; adj = 1.1 when the string is the term itself. A
** document's term scores are the sums over its strings. A text index holds
** one entry per term of a document (the term and its score after the
** fields before it, before those after it), so documents without a term
** have none.
**
** $text. {$search, $language, $caseSensitive, $diacriticSensitive}: the
** search string's words are the positive terms, those right after a '-'
** are negated, "quoted words" are phrases as well as terms (-"a phrase" is
** a negated phrase). A document matches when it has a positive term, no
** negated term, every phrase and no negated phrase (phrases as substrings,
** case- and diacritic-insensitive unless asked). Its score is the sum of
** its scores for the search's terms. The index is read at the search's
** terms, lower-cased (docextTextIndexTerms).
*/
#include "docextInt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*------------------------------------------------------------------------
** Languages and stop words
*/
/* A language is its index in aTextLanguage. Every language but "none"
** drops stop words (where Snowball has a list) and stems: English with
** docext's own stemmer (docext_stem.c, as MongoDB's), the others with
** Snowball's (libstemmer). English words keep their apostrophes; Turkish
** folds I to dotless ı and İ to i. */
#define TEXT_LANG_NONE     0
#define TEXT_LANG_ENGLISH  1
#define TEXT_LANG_TURKISH  15        /* (their places in aTextLanguage) */

static const struct TextLanguage {
  const char *zName;        /* MongoDB's name, also libstemmer's */
  const char *zCode;        /* its ISO 639 code, also accepted */
} aTextLanguage[] = {
  { "none",       "none" },
  { "english",    "en" },
  { "danish",     "da" },
  { "dutch",      "nl" },
  { "finnish",    "fi" },
  { "french",     "fr" },
  { "german",     "de" },
  { "hungarian",  "hu" },
  { "italian",    "it" },
  { "norwegian",  "nb" },
  { "portuguese", "pt" },
  { "romanian",   "ro" },
  { "russian",    "ru" },
  { "spanish",    "es" },
  { "swedish",    "sv" },
  { "turkish",    "tr" },
};

static int textNameIs(const char *zName, const char *z, int n){
  return (int)strlen(zName)==n && sqlite3_strnicmp(zName, z, n)==0;
}

/* The language named z[0..n) (a name or code, any case): *peLang. zWhat
** says where it was named, for the error. */
static int textLanguage(const char *z, int n, const char *zWhat, int *peLang, char **pzErr){
  int i;
  for(i=0; i<DOCEXT_COUNT(aTextLanguage); i++){
    const struct TextLanguage *pL = &aTextLanguage[i];
    if( textNameIs(pL->zName, z, n) || textNameIs(pL->zCode, z, n) ){
      *peLang = i;
      return SQLITE_OK;
    }
  }
  return docextError(pzErr, "docext: %s: unsupported language: \"%.*s\"", zWhat, n, z);
}

static const char *textLanguageName(int eLang){
  return aTextLanguage[eLang].zName;
}

/* memcmp order of z[0..n) and the NUL-terminated zB. */
static int textCompare(const char *z, int n, const char *zB){
  int nB = (int)strlen(zB);
  int c = (n && nB) ? memcmp(z, zB, n<nB ? n : nB) : 0;
  return c ? c : n - nB;
}

/* Is z[0..n) one of the nStop words of azStop (sorted by bytes)? */
static int textIsStopWord(const char *const *azStop, int nStop, const char *z, int n){
  int lo = 0, hi = nStop - 1;
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    int c = textCompare(z, n, azStop[mid]);
    if( c==0 ) return 1;
    if( c<0 ) hi = mid-1; else lo = mid+1;
  }
  return 0;
}

/*------------------------------------------------------------------------
** The tokenizer
*/
#define TEXT_STOPWORDS  0x01      /* drop stop words */
#define TEXT_CASE       0x02      /* keep upper case (a case-sensitive $text) */
#define TEXT_DIACRITIC  0x04      /* keep diacritics */

typedef struct TextTok TextTok;
struct TextTok {
  const u8 *z;              /* the string */
  int n, i;                 /* its length, the position reached */
  int eLang, eFlags;        /* TEXT_LANG_*, TEXT_* */
  int rc;
  const char *const *azStop;  /* the language's stop words (sorted), */
  int nStop;                /* ... and their number */
  DocStemmer *pStemmer;     /* made for the first word, if any */
  int bStemmer;             /* pStemmer made (it is NULL for "none") */
  DocBuf lower;             /* scratch: the word lower-cased */
  DocBuf word;              /* the term (NUL-terminated) */
};

static void textTokInit(TextTok *t, const char *z, int n, int eLang, int eFlags){
  memset(t, 0, sizeof(*t));
  t->z = (const u8*)z;
  t->n = n;
  t->eLang = eLang;
  t->eFlags = eFlags;
  if( eFlags & TEXT_STOPWORDS ){
    t->azStop = docextTextStopWords(textLanguageName(eLang), &t->nStop);
  }
}

static void textTokFree(TextTok *t){
  docextStemmerFree(t->pStemmer);
  docextBufFree(&t->lower);
  docextBufFree(&t->word);
}

static int textIsDelimiterAt(const TextTok *t, int i, int *pnByte){
  uint32_t c;
  *pnByte = docextUtf8Decode(&t->z[i], t->n - i, &c);
  return docextUnicodeIsDelimiter(c, t->eLang==TEXT_LANG_ENGLISH);
}

#define TEXT_MAP_FOLD     0x01    /* lower-case */
#define TEXT_MAP_STRIP    0x02    /* without diacritics (those alone dropped) */
#define TEXT_MAP_TURKISH  0x04    /* lower-case, and I to ı, İ to i */

/* The fold of the language: Turkish has its own i's. */
static int textFoldMap(int eLang){
  return eLang==TEXT_LANG_TURKISH ? TEXT_MAP_TURKISH : TEXT_MAP_FOLD;
}

/* Append the characters of z[0..n) to p, mapped as eMap says. */
static void textMapAppend(int *pRc, DocBuf *p, const u8 *z, int n, int eMap){
  int i = 0;
  while( i<n ){
    uint32_t c;
    u8 a[4];
    i += docextUtf8Decode(&z[i], n-i, &c);
    if( (eMap & TEXT_MAP_TURKISH) && (c==0x49 || c==0x130) ){
      c = c==0x49 ? 0x131 : 0x69;
    }else if( eMap & (TEXT_MAP_FOLD|TEXT_MAP_TURKISH) ){
      c = docextUnicodeFold(c);
    }
    if( eMap & TEXT_MAP_STRIP ) c = docextUnicodeStripDiacritics(c);
    if( c ) docextBufAppend(pRc, p, a, docextUtf8Encode(c, a));
  }
}

/* Stem the word in t->lower. */
static void textTokStem(TextTok *t){
  if( !t->bStemmer ){
    t->rc = docextStemmerNew(textLanguageName(t->eLang), &t->pStemmer);
    if( t->rc ) return;
    t->bStemmer = 1;
  }
  t->rc = docextStemmerStem(t->pStemmer, &t->lower);
}

/* The next term into t->word: 1, or 0 at the end (or an error, t->rc). */
static int textTokNext(TextTok *t){
  while( t->rc==SQLITE_OK ){
    int iStart, nByte;
    while( t->i<t->n && textIsDelimiterAt(t, t->i, &nByte) ) t->i += nByte;
    if( t->i>=t->n ) return 0;
    iStart = t->i;
    while( t->i<t->n && !textIsDelimiterAt(t, t->i, &nByte) ) t->i += nByte;

    /* Stop words are lower case, with their diacritics. */
    docextBufReset(&t->lower);
    textMapAppend(&t->rc, &t->lower, &t->z[iStart], t->i - iStart, textFoldMap(t->eLang));
    if( t->rc ) return 0;
    if( t->azStop
     && textIsStopWord(t->azStop, t->nStop, (const char*)t->lower.a, (int)t->lower.n) ){
      continue;
    }
    /* The stemmer sees the diacritics; they go after it. */
    if( t->eFlags & TEXT_CASE ){
      docextBufReset(&t->lower);
      docextBufAppend(&t->rc, &t->lower, &t->z[iStart], t->i - iStart);
    }
    if( t->rc ) return 0;
    textTokStem(t);
    if( t->rc ) return 0;
    docextBufReset(&t->word);
    textMapAppend(&t->rc, &t->word, t->lower.a, (int)t->lower.n,
                  (t->eFlags & TEXT_DIACRITIC) ? 0 : TEXT_MAP_STRIP);
    docextBufAppendByte(&t->rc, &t->word, 0);
    if( t->rc ) return 0;
    t->word.n--;
    if( t->word.n>0 ) return 1;        /* (nothing left but diacritics: no term) */
  }
  return 0;
}

/*------------------------------------------------------------------------
** Term lists: terms with scores, sorted and merged
*/
typedef struct TextEntry TextEntry;
struct TextEntry {
  int iOff, nTerm;          /* the term, NUL-terminated in TextList.bytes */
  double r;                 /* its score (or count) */
};

typedef struct TextList TextList;
struct TextList {
  DocBuf bytes;
  TextEntry *a, *aTmp;      /* the entries; room for docextSort */
  int n, nAlloc;
  int rc;
};

static void textListReset(TextList *p){
  docextBufReset(&p->bytes);
  p->n = 0;
  p->rc = SQLITE_OK;
}

static void textListFree(TextList *p){
  docextBufFree(&p->bytes);
  sqlite3_free(p->a);
  sqlite3_free(p->aTmp);
  memset(p, 0, sizeof(*p));
}

static const char *textListTerm(const TextList *p, int i){
  return (const char*)&p->bytes.a[p->a[i].iOff];
}

static void textListAdd(TextList *p, const char *z, int n, double r){
  TextEntry *e;
  if( p->rc ) return;
  if( p->n==p->nAlloc ){
    int nNew = p->nAlloc ? p->nAlloc*2 : 32;
    TextEntry *aNew = sqlite3_realloc64(p->a, sizeof(TextEntry)*nNew);
    TextEntry *aTmp = aNew ? sqlite3_realloc64(p->aTmp, sizeof(TextEntry)*nNew) : 0;
    if( aNew ) p->a = aNew;
    if( aTmp==0 ){ p->rc = SQLITE_NOMEM; return; }
    p->aTmp = aTmp;
    p->nAlloc = nNew;
  }
  e = &p->a[p->n];
  e->iOff = (int)p->bytes.n;
  e->nTerm = n;
  e->r = r;
  docextBufAppend(&p->rc, &p->bytes, z, n);
  docextBufAppendByte(&p->rc, &p->bytes, 0);
  if( p->rc==SQLITE_OK ) p->n++;
}

static int textEntryCmp(void *pCtx, const void *x, const void *y){
  const TextList *p = (const TextList*)pCtx;
  const TextEntry *a = (const TextEntry*)x, *b = (const TextEntry*)y;
  int n = a->nTerm<b->nTerm ? a->nTerm : b->nTerm;
  int c = memcmp(&p->bytes.a[a->iOff], &p->bytes.a[b->iOff], n);
  return c ? c : a->nTerm - b->nTerm;
}

/* Sort by term (stably) and merge equal terms, adding up their scores in
** the order they came. */
static void textListMerge(TextList *p){
  int i, j = 0;
  if( p->rc || p->n==0 ) return;
  docextSort(p->a, p->n, sizeof(TextEntry), p->aTmp, textEntryCmp, p);
  for(i=1; i<p->n; i++){
    if( textEntryCmp(p, &p->a[i], &p->a[j])==0 ){
      p->a[j].r += p->a[i].r;
    }else{
      p->a[++j] = p->a[i];
    }
  }
  p->n = j+1;
}

/* The entry of term z[0..n) in a merged list, or -1. */
static int textListFind(const TextList *p, const char *z, int n){
  int lo = 0, hi = p->n-1;
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    int c = textCompare(z, n, textListTerm(p, mid));
    if( c==0 ) return mid;
    if( c<0 ) hi = mid-1; else lo = mid+1;
  }
  return -1;
}

/* Is the string z[0..n) the term (ASCII letters in any case)? */
static int textIsRawTerm(const char *z, int n, const char *zTerm, int nTerm){
  return n==nTerm && sqlite3_strnicmp(z, zTerm, n)==0;
}

/* The terms of the string z[0..n) in language eLang with their scores at
** weight rWeight, appended to pOut (unmerged). pScratch: a list to use. */
static void textScoreString(TextList *pOut, TextList *pScratch, const char *z, int n,
                            int eLang, double rWeight){
  TextTok t;
  int i, nWord = 0;
  textListReset(pScratch);
  textTokInit(&t, z, n, eLang, TEXT_STOPWORDS);
  while( textTokNext(&t) ){
    textListAdd(pScratch, (const char*)t.word.a, (int)t.word.n, 1.0);
    nWord++;
  }
  if( t.rc ) pOut->rc = t.rc;
  if( pScratch->rc ) pOut->rc = pScratch->rc;
  textTokFree(&t);
  textListMerge(pScratch);                  /* (r: the count of each term) */
  for(i=0; i<pScratch->n && pOut->rc==SQLITE_OK; i++){
    const TextEntry *e = &pScratch->a[i];
    const char *zTerm = textListTerm(pScratch, i);
    double rFreq = 0.0, rExp = 1.0, rCoeff, rAdj = 1.0;
    int k;
    for(k=0; k<(int)e->r; k++){
      rFreq += 1.0/rExp;
      rExp *= 2.0;
    }
    rCoeff = 0.5*e->r/nWord + 0.5;
    if( textIsRawTerm(z, n, zTerm, e->nTerm) ) rAdj += 0.1;
    textListAdd(pOut, zTerm, e->nTerm, rWeight*rFreq*rCoeff*rAdj);
  }
}

/*------------------------------------------------------------------------
** Specs
*/
typedef struct TextWeight TextWeight;
struct TextWeight {
  char *zPath;
  double r;
};

struct DocTextSpec {
  TextWeight *a;            /* the named fields, in byte order of paths */
  int n;
  int bWildcard;            /* "$**": every string */
  int eLang;                /* default_language */
  char *zOverride;          /* language_override */
};

#define TEXT_MAX_WEIGHT 100000.0

int docextTextSpecNew(DocTextSpec **ppOut){
  DocTextSpec *p = docextMallocZero(sizeof(*p));
  *ppOut = p;
  if( p==0 ) return SQLITE_NOMEM;
  p->eLang = TEXT_LANG_ENGLISH;
  p->zOverride = sqlite3_mprintf("language");
  if( p->zOverride==0 ){
    sqlite3_free(p);
    *ppOut = 0;
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

void docextTextSpecFree(DocTextSpec *p){
  if( p ){
    int i;
    for(i=0; i<p->n; i++) sqlite3_free(p->a[i].zPath);
    sqlite3_free(p->a);
    sqlite3_free(p->zOverride);
    sqlite3_free(p);
  }
}

/* The weight of path z[0..n): its entry, or -1. */
static int textWeightFind(const DocTextSpec *p, const char *z, int n){
  int i;
  for(i=0; i<p->n; i++){
    if( textCompare(z, n, p->a[i].zPath)==0 ) return i;
  }
  return -1;
}

/* Is some named path below z[0..n) (z.…)? */
static int textWeightBelow(const DocTextSpec *p, const char *z, int n){
  int i;
  for(i=0; i<p->n; i++){
    const char *zP = p->a[i].zPath;
    if( (int)strlen(zP)>n && zP[n]=='.' && (n==0 || memcmp(zP, z, n)==0) ) return 1;
  }
  return 0;
}

/* Set the weight of path z[0..n) (added in order when new). */
static int textWeightSet(DocTextSpec *p, const char *z, int n, double r){
  int i = textWeightFind(p, z, n), j;
  TextWeight *aNew;
  char *zPath;
  if( i>=0 ){
    p->a[i].r = r;
    return SQLITE_OK;
  }
  zPath = sqlite3_mprintf("%.*s", n, z);
  aNew = zPath ? sqlite3_realloc64(p->a, sizeof(TextWeight)*(p->n+1)) : 0;
  if( aNew==0 ){
    sqlite3_free(zPath);
    return SQLITE_NOMEM;
  }
  p->a = aNew;
  for(j=p->n; j>0 && strcmp(p->a[j-1].zPath, zPath)>0; j--) p->a[j] = p->a[j-1];
  p->a[j].zPath = zPath;
  p->a[j].r = r;
  p->n++;
  return SQLITE_OK;
}

static int textIsWildcard(const char *z, int n){
  return n==3 && memcmp(z, "$**", 3)==0;
}

int docextTextSpecField(DocTextSpec *p, const char *z, int n, char **pzErr){
  if( (textIsWildcard(z, n) && p->bWildcard) || textWeightFind(p, z, n)>=0 ){
    return docextError(pzErr, "docext: field %.*s appears twice in an index key pattern",
                       n, z);
  }
  if( textIsWildcard(z, n) ){
    p->bWildcard = 1;
    return SQLITE_OK;
  }
  return textWeightSet(p, z, n, 1.0);
}

/* The weights option: a document of {path: weight} or "$**". */
static int textWeightsOption(DocTextSpec *p, const DocValue *v, char **pzErr){
  DocIter it;
  int rc = SQLITE_OK;
  if( v->type==DOC_STRING ){
    int n;
    const char *z = docextValueStr(v, &n);
    if( textIsWildcard(z, n) ){
      p->bWildcard = 1;
      return SQLITE_OK;
    }
  }
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: text index option 'weights' must be a document "
                              "or \"$**\"");
  }
  docextIterInitValue(&it, v);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    double r;
    if( !docextValueIsNumber(&it.v) ){
      return docextError(pzErr, "docext: the weight of text index field %s must be "
                         "a number", it.zKey);
    }
    /* MongoDB keeps a weight's integer part */
    r = docextValueToDouble(&it.v);
    r = r<0.0 ? ceil(r) : floor(r);
    if( !(r>0.0 && r<TEXT_MAX_WEIGHT) ){
      return docextError(pzErr, "docext: text index weight must be in the exclusive "
                         "interval (0,100000) but found: %g (field %s)", r, it.zKey);
    }
    if( textIsWildcard(it.zKey, it.nKey) ){
      p->bWildcard = 1;
    }else if( it.nKey==0 || it.zKey[0]=='$' || it.zKey[0]=='.' || it.zKey[it.nKey-1]=='.'
           || strstr(it.zKey, "..") ){
      return docextError(pzErr, "docext: bad field name '%s' in text index weights",
                         it.zKey);
    }else{
      rc = textWeightSet(p, it.zKey, it.nKey, r);
    }
  }
  return rc;
}

int docextTextSpecOption(DocTextSpec *p, const char *zKey, const DocValue *v, char **pzErr){
  int n = 0;
  const char *z = v->type==DOC_STRING ? docextValueStr(v, &n) : "";
  if( strcmp(zKey, "weights")==0 ){
    return textWeightsOption(p, v, pzErr);
  }
  if( strcmp(zKey, "default_language")==0 ){
    if( v->type!=DOC_STRING ){
      return docextError(pzErr, "docext: default_language must be a string");
    }
    return textLanguage(z, n, "default_language", &p->eLang, pzErr);
  }
  if( strcmp(zKey, "language_override")==0 ){
    char *zNew;
    if( v->type!=DOC_STRING || n==0 || z[0]=='$' || memchr(z, '.', n) || memchr(z, 0, n) ){
      return docextError(pzErr, "docext: language_override must be a field name "
                                "(not empty, no '$' first, no '.')");
    }
    zNew = sqlite3_mprintf("%.*s", n, z);
    if( zNew==0 ) return SQLITE_NOMEM;
    sqlite3_free(p->zOverride);
    p->zOverride = zNew;
    return SQLITE_OK;
  }
  if( strcmp(zKey, "textIndexVersion")==0 ){
    if( !docextValueIsNumber(v) || docextValueToDouble(v)!=3.0 ){
      return docextError(pzErr, "docext: textIndexVersion must be 3, the version "
                                "docext has");
    }
    return SQLITE_OK;
  }
  return SQLITE_NOTFOUND;
}

void docextTextSpecWrite(const DocTextSpec *p, int *pRc, DocBuf *pOut){
  const char *zLang = textLanguageName(p->eLang);
  i64 iW = docextBsonStartChild(pRc, pOut, DOC_DOCUMENT, "weights", 7);
  int i;
  if( p->bWildcard ) docextBsonAppendInt32(pRc, pOut, "$**", 3, 1);
  for(i=0; i<p->n; i++){
    const char *zPath = p->a[i].zPath;
    double r = p->a[i].r;
    docextBsonAppendInt32(pRc, pOut, zPath, (int)strlen(zPath), (int)r);
  }
  docextBsonEndDoc(pRc, pOut, iW);
  docextBsonAppendString(pRc, pOut, DOC_STRING, "default_language", 16,
                         zLang, (int)strlen(zLang));
  docextBsonAppendString(pRc, pOut, DOC_STRING, "language_override", 17,
                         p->zOverride, (int)strlen(p->zOverride));
  docextBsonAppendInt32(pRc, pOut, "textIndexVersion", 16, 3);
}

int docextTextSpecSame(const DocTextSpec *a, const DocTextSpec *b){
  int i;
  if( a->n!=b->n || a->bWildcard!=b->bWildcard || a->eLang!=b->eLang
   || strcmp(a->zOverride, b->zOverride)!=0 ){
    return 0;
  }
  for(i=0; i<a->n; i++){
    if( strcmp(a->a[i].zPath, b->a[i].zPath)!=0 || a->a[i].r!=b->a[i].r ) return 0;
  }
  return 1;
}

static int textSpecCopy(const DocTextSpec *p, DocTextSpec **ppOut){
  DocTextSpec *pNew;
  int i, rc = docextTextSpecNew(&pNew);
  for(i=0; rc==SQLITE_OK && i<p->n; i++){
    rc = textWeightSet(pNew, p->a[i].zPath, (int)strlen(p->a[i].zPath), p->a[i].r);
  }
  if( rc==SQLITE_OK ){
    sqlite3_free(pNew->zOverride);
    pNew->zOverride = sqlite3_mprintf("%s", p->zOverride);
    if( pNew->zOverride==0 ) rc = SQLITE_NOMEM;
    pNew->bWildcard = p->bWildcard;
    pNew->eLang = p->eLang;
  }
  if( rc!=SQLITE_OK ){
    docextTextSpecFree(pNew);
    pNew = 0;
  }
  *ppOut = pNew;
  return rc;
}

/*------------------------------------------------------------------------
** The strings of a document (MongoDB's FTSElementIterator)
*/
typedef struct TextWalk TextWalk;
struct TextWalk {
  const DocTextSpec *pSpec;
  /* each string, its language and weight; returns 1 to stop the walk */
  int (*xString)(TextWalk*, const char *z, int n, int eLang, double rWeight);
  void *pCtx;
  DocBuf path;              /* the dotted path of the current field */
  int rc;
  char **pzErr;
  int bStop;
};

/* The language of document aDoc, whose parent's is eParent. */
static int textDocLanguage(TextWalk *w, const u8 *aDoc, int eParent){
  DocValue v;
  const char *zO = w->pSpec->zOverride;
  int n, eLang = eParent;
  const char *z;
  if( !docextBsonFind(aDoc, zO, (int)strlen(zO), &v) ) return eParent;
  if( v.type!=DOC_STRING ){
    w->rc = docextError(w->pzErr, "docext: found language override field %s in "
                        "document with non-string type", zO);
    return eParent;
  }
  z = docextValueStr(&v, &n);
  w->rc = textLanguage(z, n, "language override", &eLang, w->pzErr);
  if( w->rc==SQLITE_ERROR && *w->pzErr ){
    /* (a field that names a language for readers, not for the index) */
    char *zMore = sqlite3_mprintf("%s (the index reads a document's language from "
                                  "its field '%s'; the option language_override names "
                                  "another field)", *w->pzErr, zO);
    sqlite3_free(*w->pzErr);
    *w->pzErr = zMore;
    if( zMore==0 ) w->rc = SQLITE_NOMEM;
  }
  return eLang;
}

/* The strings of the document or array v (bArray), read in eLang. */
static void textWalkValue(TextWalk *w, const DocValue *v, int bArray, int eLang){
  const DocTextSpec *pS = w->pSpec;
  i64 nParent = w->path.n;
  DocIter it;
  if( !bArray ){
    eLang = textDocLanguage(w, v->p, eLang);
  }
  docextIterInitValue(&it, v);
  while( w->rc==SQLITE_OK && !w->bStop && docextIterNext(&it) ){
    int iW, bBelow;
    const char *zPath;
    int nPath;
    if( pS->bWildcard && strcmp(it.zKey, pS->zOverride)==0 ) continue;
    /* an element of an array has the array's path */
    w->path.n = nParent;
    if( !bArray ){
      if( nParent>0 ) docextBufAppendByte(&w->rc, &w->path, '.');
      docextBufAppend(&w->rc, &w->path, it.zKey, it.nKey);
    }
    if( w->rc ) break;
    zPath = (const char*)w->path.a;
    nPath = (int)w->path.n;
    iW = textWeightFind(pS, zPath, nPath);
    bBelow = textWeightBelow(pS, zPath, nPath);
    if( !pS->bWildcard && iW<0 && !bBelow ) continue;
    switch( it.v.type ){
      case DOC_STRING: {
        int n;
        const char *z = docextValueStr(&it.v, &n);
        if( iW>=0 || pS->bWildcard ){
          if( w->xString(w, z, n, eLang, iW>=0 ? pS->a[iW].r : 1.0) ) w->bStop = 1;
        }
        break;
      }
      case DOC_DOCUMENT:
        /* (only strings are read at a named path: a document there is
        ** read for the named paths below it) */
        if( bBelow || pS->bWildcard ) textWalkValue(w, &it.v, 0, eLang);
        break;
      case DOC_ARRAY:
        if( !bArray || pS->bWildcard ) textWalkValue(w, &it.v, 1, eLang);
        break;
    }
  }
  w->path.n = nParent;
}

/* Walk aDoc's strings with xString; returns the first error. */
static int textWalkDoc(TextWalk *w, const u8 *aDoc){
  DocValue v;
  v.type = DOC_DOCUMENT;
  v.p = aDoc;
  v.n = docextGetI32(aDoc);
  w->rc = SQLITE_OK;
  w->bStop = 0;
  docextBufReset(&w->path);
  textWalkValue(w, &v, 0, w->pSpec->eLang);
  docextBufFree(&w->path);
  return w->rc;
}

/* The scores of a document's terms. */
typedef struct TextScoring TextScoring;
struct TextScoring {
  TextList *pOut;
  TextList scratch;
};

static int textScoreVisit(TextWalk *w, const char *z, int n, int eLang, double rWeight){
  TextScoring *pS = (TextScoring*)w->pCtx;
  textScoreString(pS->pOut, &pS->scratch, z, n, eLang, rWeight);
  if( pS->pOut->rc ) w->rc = pS->pOut->rc;
  return 0;
}

/* A document's terms and scores into pOut (reset first), merged. */
static int textDocTerms(const DocTextSpec *pSpec, const u8 *aDoc, TextList *pOut,
                        char **pzErr){
  TextWalk w;
  TextScoring s;
  int rc;
  memset(&w, 0, sizeof(w));
  memset(&s, 0, sizeof(s));
  textListReset(pOut);
  s.pOut = pOut;
  w.pSpec = pSpec;
  w.xString = textScoreVisit;
  w.pCtx = &s;
  w.pzErr = pzErr;
  rc = textWalkDoc(&w, aDoc);
  textListFree(&s.scratch);
  if( rc==SQLITE_OK ) rc = pOut->rc;
  textListMerge(pOut);
  if( rc==SQLITE_OK ) rc = pOut->rc;
  return rc;
}

int docextTextKeyLength(const char *z, int n){
  if( n<=DOCEXT_TEXT_KEY_MAX ) return n;
  n = DOCEXT_TEXT_KEY_MAX;
  while( n>0 && (((u8)z[n]) & 0xC0)==0x80 ) n--;
  return n;
}

int docextTextTerms(const DocTextSpec *p, const u8 *aDoc,
                    int (*xTerm)(void*, const char*, int, double), void *pCtx,
                    char **pzErr){
  TextList list;
  int rc, i;
  memset(&list, 0, sizeof(list));
  rc = textDocTerms(p, aDoc, &list, pzErr);
  for(i=0; rc==SQLITE_OK && i<list.n; i++){
    rc = xTerm(pCtx, textListTerm(&list, i), list.a[i].nTerm, list.a[i].r);
  }
  textListFree(&list);
  return rc;
}

/* Append each string the walk visits to the DocBuf pCtx: its language,
** weight, length and bytes. */
static int textSignVisit(TextWalk *w, const char *z, int n, int eLang, double rWeight){
  DocBuf *pSig = (DocBuf*)w->pCtx;
  u8 aHead[1 + sizeof(double) + sizeof(int)];
  aHead[0] = (u8)eLang;
  memcpy(&aHead[1], &rWeight, sizeof(double));
  memcpy(&aHead[1+sizeof(double)], &n, sizeof(int));
  docextBufAppend(&w->rc, pSig, aHead, sizeof(aHead));
  docextBufAppend(&w->rc, pSig, z, n);
  return 0;
}

/* The strings aDoc has for the text index, with their languages and
** weights, into pSig (reset first). */
static int textSignature(const DocTextSpec *pSpec, const u8 *aDoc, DocBuf *pSig,
                         char **pzErr){
  TextWalk w;
  memset(&w, 0, sizeof(w));
  docextBufReset(pSig);
  w.pSpec = pSpec;
  w.xString = textSignVisit;
  w.pCtx = pSig;
  w.pzErr = pzErr;
  return textWalkDoc(&w, aDoc);
}

int docextTextSameStrings(const DocTextSpec *pSpec, const u8 *aOld, const u8 *aNew,
                          int *pbSame){
  DocBuf sigOld, sigNew;
  char *zErr = 0;
  int rc;
  memset(&sigOld, 0, sizeof(sigOld));
  memset(&sigNew, 0, sizeof(sigNew));
  *pbSame = 0;
  rc = textSignature(pSpec, aOld, &sigOld, &zErr);
  if( rc==SQLITE_OK ) rc = textSignature(pSpec, aNew, &sigNew, &zErr);
  if( rc==SQLITE_OK ){
    *pbSame = sigOld.n==sigNew.n
           && (sigOld.n==0 || memcmp(sigOld.a, sigNew.a, (size_t)sigOld.n)==0);
  }else if( rc!=SQLITE_NOMEM ){
    rc = SQLITE_OK;       /* (a bad language: making the keys will say so) */
  }
  sqlite3_free(zErr);
  docextBufFree(&sigOld);
  docextBufFree(&sigNew);
  return rc;
}

/*------------------------------------------------------------------------
** $text
*/
#define TEXT_LANG_INDEX (-2)      /* $language not given: the index's */

struct DocText {
  char *zSearch;            /* $search */
  int nSearch;
  int eLang;                /* $language, or TEXT_LANG_INDEX */
  int bCase, bDiacritic;    /* $caseSensitive, $diacriticSensitive */
  /* Bound (docextTextBind): */
  DocTextSpec *pSpec;       /* a copy of the index's spec */
  DocMatcher *pPartial;     /* its partialFilterExpression, or NULL */
  int eQueryLang;           /* the language of the search */
  TextList pos, neg;        /* positive and negated terms, as matched */
  TextList bounds;          /* the positive terms lower-cased: the index's */
  DocBuf phrases;           /* per phrase: 1 if negated, the phrase folded
                            ** as strings in most languages compare, NUL,
                            ** folded as Turkish strings compare, NUL */
  int nPhrase;
  /* Scratch and the last score: */
  TextList doc;
  DocBuf fold;
  DocBuf lastDoc;           /* the document last scored, and its score */
  double rLast;
};

void docextTextFree(DocText *p){
  if( p ){
    sqlite3_free(p->zSearch);
    docextTextSpecFree(p->pSpec);
    docextMatcherFree(p->pPartial);
    textListFree(&p->pos);
    textListFree(&p->neg);
    textListFree(&p->bounds);
    textListFree(&p->doc);
    docextBufFree(&p->phrases);
    docextBufFree(&p->fold);
    docextBufFree(&p->lastDoc);
    sqlite3_free(p);
  }
}

int docextTextNew(const DocValue *v, DocText **ppOut, char **pzErr){
  DocText *p;
  DocIter it;
  int rc = SQLITE_OK, bSearch = 0;
  *ppOut = 0;
  if( v->type!=DOC_DOCUMENT ){
    return docextError(pzErr, "docext: $text needs a document ({$search: \"...\"})");
  }
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  p->eLang = TEXT_LANG_INDEX;
  docextIterInitValue(&it, v);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    int n = 0;
    const char *z = it.v.type==DOC_STRING ? docextValueStr(&it.v, &n) : "";
    if( strcmp(it.zKey, "$search")==0 ){
      if( it.v.type!=DOC_STRING ){
        rc = docextError(pzErr, "docext: $text: $search must be a string");
      }else{
        sqlite3_free(p->zSearch);                   /* (a $search given twice) */
        p->zSearch = sqlite3_mprintf("%.*s", n, z);
        p->nSearch = n;
        if( p->zSearch==0 ) rc = SQLITE_NOMEM;
        bSearch = 1;
      }
    }else if( strcmp(it.zKey, "$language")==0 ){
      if( it.v.type!=DOC_STRING ){
        rc = docextError(pzErr, "docext: $text: $language must be a string");
      }else if( n>0 ){
        rc = textLanguage(z, n, "$text", &p->eLang, pzErr);
      }else{
        p->eLang = TEXT_LANG_INDEX;       /* (as MongoDB reads "") */
      }
    }else if( strcmp(it.zKey, "$caseSensitive")==0
           || strcmp(it.zKey, "$diacriticSensitive")==0 ){
      if( it.v.type!=DOC_BOOL ){
        rc = docextError(pzErr, "docext: $text: %s must be a boolean", it.zKey);
      }else if( it.zKey[1]=='c' ){
        p->bCase = it.v.p[0]!=0;
      }else{
        p->bDiacritic = it.v.p[0]!=0;
      }
    }else{
      rc = docextError(pzErr, "docext: unknown field '%s' in $text (known: $search, "
                       "$language, $caseSensitive, $diacriticSensitive)", it.zKey);
    }
  }
  if( rc==SQLITE_OK && !bSearch ){
    rc = docextError(pzErr, "docext: $text needs $search, a string");
  }
  if( rc!=SQLITE_OK ){
    docextTextFree(p);
    return rc;
  }
  *ppOut = p;
  return SQLITE_OK;
}

/* The tokenizer flags of the matcher's terms. */
static int textQueryFlags(const DocText *p){
  return (p->bCase ? TEXT_CASE : 0) | (p->bDiacritic ? TEXT_DIACRITIC : 0);
}

/* The terms of a sentence: into pTerms as the matcher compares them, and,
** unless NULL, into pBounds lower-cased. */
static void textSentenceTerms(DocText *p, const DocBuf *pSentence, TextList *pTerms,
                              TextList *pBounds){
  TextTok t;
  int eFlags = textQueryFlags(p);
  textTokInit(&t, (const char*)pSentence->a, (int)pSentence->n, p->eQueryLang,
              TEXT_STOPWORDS);
  while( textTokNext(&t) ){
    if( pBounds ) textListAdd(pBounds, (const char*)t.word.a, (int)t.word.n, 0.0);
    if( eFlags==0 ) textListAdd(pTerms, (const char*)t.word.a, (int)t.word.n, 0.0);
  }
  textTokFree(&t);
  if( eFlags ){
    textTokInit(&t, (const char*)pSentence->a, (int)pSentence->n, p->eQueryLang,
                TEXT_STOPWORDS | eFlags);
    while( textTokNext(&t) ){
      textListAdd(pTerms, (const char*)t.word.a, (int)t.word.n, 0.0);
    }
    textTokFree(&t);
  }
  if( t.rc ) pTerms->rc = t.rc;
}

/* Fold z[0..n) as phrases compare in a string of language eLang (lower
** case unless case-sensitive, without diacritics unless diacritic-
** sensitive) into pOut (reset). As MongoDB compares a phrase in the
** language of each string, and lower-cases a Turkish string and the phrase
** even when case-sensitive. */
static void textFold(const DocText *p, int eLang, const char *z, int n, DocBuf *pOut,
                     int *pRc){
  int eMap = p->bDiacritic ? 0 : TEXT_MAP_STRIP;
  if( eLang==TEXT_LANG_TURKISH ){
    eMap |= TEXT_MAP_TURKISH;
  }else if( !p->bCase ){
    eMap |= TEXT_MAP_FOLD;
  }
  docextBufReset(pOut);
  textMapAppend(pRc, pOut, (const u8*)z, n, eMap);
}

static void textAddPhrase(DocText *p, const char *z, int n, int bNegated, int *pRc){
  docextBufAppendByte(pRc, &p->phrases, (u8)bNegated);
  textFold(p, TEXT_LANG_NONE, z, n, &p->fold, pRc);
  docextBufAppend(pRc, &p->phrases, p->fold.a, p->fold.n);
  docextBufAppendByte(pRc, &p->phrases, 0);
  textFold(p, TEXT_LANG_TURKISH, z, n, &p->fold, pRc);
  docextBufAppend(pRc, &p->phrases, p->fold.a, p->fold.n);
  docextBufAppendByte(pRc, &p->phrases, 0);
  p->nPhrase++;
}

/* The phrase at *paP in DocText.phrases: whether negated, its two folds;
** *paP moves to the next. */
static int textPhraseNext(const u8 **paP, const char **pz, const char **pzTurkish){
  int bNegated = (*paP)[0];
  *pz = (const char*)&(*paP)[1];
  *pzTurkish = *pz + strlen(*pz) + 1;
  *paP = (const u8*)*pzTurkish + strlen(*pzTurkish) + 1;
  return bNegated;
}

/* White space between the words of $search, as MongoDB's query parser has
** it (not the tab). */
static int textIsQuerySpace(char c){
  return c==' ' || c=='\n' || c=='\r' || c=='\v' || c=='\f';
}

/* Split $search as MongoDB's query parser does: words (positive, or
** negated by a '-' right before them), and "phrases" (whose words are
** positive terms unless the phrase is negated). */
static int textParseSearch(DocText *p, DocBuf *pPos, DocBuf *pNeg){
  const char *z = p->zSearch;
  int n = p->nSearch, i = 0, rc = SQLITE_OK;
  int bNeg = 0, bPhrase = 0, bWhite = 1, iQuote = 0;
  while( i<n && textIsQuerySpace(z[i]) ) i++;
  while( i<n && rc==SQLITE_OK ){
    int iStart = i, bWhiteBefore = bWhite;
    char c = z[i];
    if( c=='-' || c=='"' ){
      i++;
      if( c=='-' ){
        if( !bPhrase && bWhiteBefore ) bNeg = 1;
      }else if( bPhrase ){
        textAddPhrase(p, &z[iQuote+1], iStart-iQuote-1, bNeg, &rc);
        bPhrase = 0;                  /* (a negation lasts to the next space) */
      }else{
        bPhrase = 1;
        if( bNeg && bWhiteBefore ) bNeg = 0;
        iQuote = iStart;
      }
    }else{
      while( i<n && !textIsQuerySpace(z[i]) && z[i]!='-' && z[i]!='"' ) i++;
      if( !(bPhrase && bNeg) ){
        if( bNeg && bWhiteBefore ) bNeg = 0;
        docextBufAppend(&rc, bNeg ? pNeg : pPos, &z[iStart], i-iStart);
        docextBufAppendByte(&rc, bNeg ? pNeg : pPos, ' ');
      }
    }
    bWhite = 0;
    while( i<n && textIsQuerySpace(z[i]) ){ i++; bWhite = 1; }
  }
  return rc;
}

int docextTextBind(DocText *p, const DocTextSpec *pSpec, const u8 *aPartial, char **pzErr){
  DocBuf pos, neg;
  int rc;
  docextTextSpecFree(p->pSpec);
  p->pSpec = 0;
  docextMatcherFree(p->pPartial);
  p->pPartial = 0;
  if( aPartial ){
    rc = docextMatcherNew(aPartial, 0, 0, &p->pPartial, pzErr);
    if( rc ) return rc;
  }
  textListReset(&p->pos);
  textListReset(&p->neg);
  textListReset(&p->bounds);
  docextBufReset(&p->phrases);
  docextBufReset(&p->lastDoc);
  p->nPhrase = 0;
  rc = textSpecCopy(pSpec, &p->pSpec);
  if( rc ) return rc;
  p->eQueryLang = p->eLang==TEXT_LANG_INDEX ? pSpec->eLang : p->eLang;
  memset(&pos, 0, sizeof(pos));
  memset(&neg, 0, sizeof(neg));
  rc = textParseSearch(p, &pos, &neg);
  if( rc==SQLITE_OK ){
    textSentenceTerms(p, &pos, &p->pos, &p->bounds);
    textSentenceTerms(p, &neg, &p->neg, 0);
    textListMerge(&p->pos);
    textListMerge(&p->neg);
    textListMerge(&p->bounds);
    rc = p->pos.rc ? p->pos.rc : p->neg.rc ? p->neg.rc : p->bounds.rc;
  }
  docextBufFree(&pos);
  docextBufFree(&neg);
  return rc;
}

/* Walk state of the matcher's checks. */
typedef struct TextCheck TextCheck;
struct TextCheck {
  DocText *p;
  const TextList *pTerms;   /* terms looked for (pos or neg), or NULL */
  const char *zPhrase;      /* or a phrase looked for (folded), */
  const char *zPhraseTurkish;   /* ... and as Turkish strings fold */
  int bFound;
};

/* Has the string a term of pTerms (tokenized as the query compares)? */
static int textCheckTerms(TextWalk *w, const char *z, int n, int eLang, double rWeight){
  TextCheck *pC = (TextCheck*)w->pCtx;
  TextTok t;
  (void)rWeight;
  textTokInit(&t, z, n, eLang, textQueryFlags(pC->p));
  while( !pC->bFound && textTokNext(&t) ){
    if( textListFind(pC->pTerms, (const char*)t.word.a, (int)t.word.n)>=0 ) pC->bFound = 1;
  }
  if( t.rc ) w->rc = t.rc;
  textTokFree(&t);
  return pC->bFound;
}

/* Does the string hold the phrase? */
static int textCheckPhrase(TextWalk *w, const char *z, int n, int eLang, double rWeight){
  TextCheck *pC = (TextCheck*)w->pCtx;
  DocBuf *pF = &pC->p->fold;
  const char *zPhrase = eLang==TEXT_LANG_TURKISH ? pC->zPhraseTurkish : pC->zPhrase;
  int nPhrase = (int)strlen(zPhrase);
  (void)rWeight;
  textFold(pC->p, eLang, z, n, pF, &w->rc);
  if( w->rc ) return 1;
  if( nPhrase==0 ){
    pC->bFound = 1;
  }else if( pF->n>=nPhrase ){
    i64 i;
    for(i=0; i+nPhrase<=pF->n && !pC->bFound; i++){
      if( memcmp(&pF->a[i], zPhrase, nPhrase)==0 ) pC->bFound = 1;
    }
  }
  return pC->bFound;
}

/* Walk aDoc with xString and check state c: found? */
static int textCheck(DocText *p, const u8 *aDoc, TextCheck *pC,
                     int (*xString)(TextWalk*, const char*, int, int, double),
                     int *pbFound, char **pzErr){
  TextWalk w;
  int rc;
  memset(&w, 0, sizeof(w));
  w.pSpec = p->pSpec;
  w.xString = xString;
  w.pCtx = pC;
  w.pzErr = pzErr;
  pC->p = p;
  pC->bFound = 0;
  rc = textWalkDoc(&w, aDoc);
  *pbFound = pC->bFound;
  return rc;
}

/* The score of aDoc's terms p->doc (merged) for the search: the sum over
** its terms, in order. */
static double textSumScore(const DocText *p){
  double r = 0.0;
  int i;
  for(i=0; i<p->bounds.n; i++){
    int k = textListFind(&p->doc, textListTerm(&p->bounds, i), p->bounds.a[i].nTerm);
    if( k>=0 ) r += p->doc.a[k].r;
  }
  return r;
}

/* Score aDoc into p->rLast (and p->doc), remembering it. */
static int textScoreDoc(DocText *p, const u8 *aDoc, char **pzErr){
  int n = docextGetI32(aDoc), rc;
  if( p->lastDoc.n==n && memcmp(p->lastDoc.a, aDoc, n)==0 ) return SQLITE_OK;
  docextBufReset(&p->lastDoc);
  rc = textDocTerms(p->pSpec, aDoc, &p->doc, pzErr);
  if( rc==SQLITE_OK ){
    p->rLast = textSumScore(p);
    docextBufAppend(&rc, &p->lastDoc, aDoc, n);
  }
  return rc;
}

static int textNotBound(char **pzErr){
  return docextError(pzErr, "docext: $text needs a text index: use it in a query of a "
                            "collection that has one (text index required for $text query)");
}

int docextTextNoScore(char **pzErr){
  return docextError(pzErr, "docext: query requires text score metadata, but it is "
                            "not available (no $text)");
}

/* Copy the document or array v's fields to pOut, without score fields. */
static void textStripValue(const DocValue *v, DocBuf *pOut, int *pRc){
  DocIter it;
  docextIterInitValue(&it, v);
  while( *pRc==SQLITE_OK && docextIterNext(&it) ){
    if( strcmp(it.zKey, DOCEXT_TEXT_SCORE_FIELD)==0 ) continue;
    if( it.v.type==DOC_DOCUMENT || it.v.type==DOC_ARRAY ){
      i64 iSub = docextBsonStartChild(pRc, pOut, it.v.type, it.zKey, it.nKey);
      textStripValue(&it.v, pOut, pRc);
      docextBsonEndDoc(pRc, pOut, iSub);
    }else{
      docextBsonAppendValue(pRc, pOut, it.zKey, it.nKey, &it.v);
    }
  }
}

#define TEXT_SCORE_FIELD_LEN ((int)sizeof(DOCEXT_TEXT_SCORE_FIELD) - 1)

int docextTextScoreField(const u8 *aDoc, double *pr){
  DocValue v;
  if( !docextBsonFind(aDoc, DOCEXT_TEXT_SCORE_FIELD, TEXT_SCORE_FIELD_LEN, &v)
   || v.type!=DOC_DOUBLE ){
    return 0;
  }
  *pr = docextValueDouble(&v);
  return 1;
}

void docextTextScoreFieldAdd(int *pRc, DocBuf *pDoc, double r){
  if( *pRc ) return;
  pDoc->n--;                                  /* (its terminator) */
  docextBsonAppendDouble(pRc, pDoc, DOCEXT_TEXT_SCORE_FIELD, TEXT_SCORE_FIELD_LEN, r);
  docextBufAppendByte(pRc, pDoc, 0);
  if( *pRc==SQLITE_OK ) docextPutI32(pDoc->a, (int32_t)pDoc->n);
}

int docextTextMetaIsScore(const DocValue *v){
  int n;
  const char *z;
  if( v->type!=DOC_STRING ) return 0;
  z = docextValueStr(v, &n);
  return n==9 && memcmp(z, "textScore", 9)==0;
}

int docextTextScoreStrip(const u8 *aDoc, DocBuf *pOut, int *pRc){
  static const char zField[] = DOCEXT_TEXT_SCORE_FIELD;
  int n = docextGetI32(aDoc), nField = (int)sizeof(zField);    /* (with its NUL) */
  int i, bFound = 0;
  DocValue v;
  i64 iStart;
  for(i=0; i+nField<=n && !bFound; i++){
    bFound = aDoc[i]=='$' && memcmp(&aDoc[i], zField, nField)==0;
  }
  if( !bFound ) return 0;
  docextBufReset(pOut);
  v.type = DOC_DOCUMENT;
  v.p = aDoc;
  v.n = n;
  iStart = docextBsonStartDoc(pRc, pOut);
  textStripValue(&v, pOut, pRc);
  docextBsonEndDoc(pRc, pOut, iStart);
  return 1;
}

int docextTextScore(DocText *p, const u8 *aDoc, double *pr, char **pzErr){
  int rc;
  *pr = 0.0;
  if( p->pSpec==0 ) return textNotBound(pzErr);
  rc = textScoreDoc(p, aDoc, pzErr);
  if( rc==SQLITE_OK ) *pr = p->rLast;
  return rc;
}

/* Has aDoc a positive term? It must have an index entry for one of the
** bounds (MongoDB reads only those documents: so a partial index's must
** match its filter), and, case- or diacritic-sensitive, one as the query
** compares. */
static int textHasPositive(DocText *p, const u8 *aDoc, int *pb, char **pzErr){
  int rc = SQLITE_OK, i;
  TextCheck c;
  *pb = 0;
  if( p->pPartial ){
    rc = docextMatcherMatch(p->pPartial, aDoc, pb, 0, pzErr);
    if( rc || !*pb ) return rc;
    *pb = 0;
  }
  rc = textScoreDoc(p, aDoc, pzErr);
  if( rc ) return rc;
  for(i=0; i<p->bounds.n && !*pb; i++){
    if( textListFind(&p->doc, textListTerm(&p->bounds, i), p->bounds.a[i].nTerm)>=0 ) *pb = 1;
  }
  if( *pb && textQueryFlags(p) ){
    memset(&c, 0, sizeof(c));
    c.pTerms = &p->pos;
    return textCheck(p, aDoc, &c, textCheckTerms, pb, pzErr);
  }
  return SQLITE_OK;
}

int docextTextMatch(DocText *p, const u8 *aDoc, int *pbMatch, char **pzErr){
  TextCheck c;
  const u8 *aP;
  int rc, b = 0, i;
  *pbMatch = 0;
  if( p->pSpec==0 ) return textNotBound(pzErr);
  rc = textHasPositive(p, aDoc, &b, pzErr);
  if( rc || !b ) return rc;
  memset(&c, 0, sizeof(c));
  if( p->neg.n>0 ){
    c.pTerms = &p->neg;
    rc = textCheck(p, aDoc, &c, textCheckTerms, &b, pzErr);
    if( rc || b ) return rc;
  }
  aP = p->phrases.a;
  for(i=0; i<p->nPhrase; i++){
    int bNegated = textPhraseNext(&aP, &c.zPhrase, &c.zPhraseTurkish);
    c.pTerms = 0;
    rc = textCheck(p, aDoc, &c, textCheckPhrase, &b, pzErr);
    if( rc || b==bNegated ) return rc;
  }
  *pbMatch = 1;
  return SQLITE_OK;
}

/* "zName":[the terms of pList] */
static void textExplainTerms(int *pRc, DocBuf *pJson, const char *zName, const TextList *pList){
  int i;
  docextBufAppendf(pRc, pJson, "\"%s\":[", zName);
  for(i=0; i<pList->n; i++){
    if( i ) docextBufAppendByte(pRc, pJson, ',');
    docextJsonWriteString(pRc, pJson, textListTerm(pList, i), pList->a[i].nTerm);
  }
  docextBufAppendByte(pRc, pJson, ']');
}

/* "zName":[the phrases negated (bNegated) or not, folded as they compare
** with strings in the search's language] */
static void textExplainPhrases(int *pRc, DocBuf *pJson, const char *zName, const DocText *p,
                               int bNegated){
  const u8 *aP = p->phrases.a;
  int i, bFirst = 1;
  docextBufAppendf(pRc, pJson, "\"%s\":[", zName);
  for(i=0; i<p->nPhrase; i++){
    const char *z, *zTurkish;
    if( textPhraseNext(&aP, &z, &zTurkish)==bNegated ){
      const char *zShown = p->eQueryLang==TEXT_LANG_TURKISH ? zTurkish : z;
      if( !bFirst ) docextBufAppendByte(pRc, pJson, ',');
      docextJsonWriteString(pRc, pJson, zShown, (int)strlen(zShown));
      bFirst = 0;
    }
  }
  docextBufAppendByte(pRc, pJson, ']');
}

void docextTextExplain(const DocText *p, int *pRc, DocBuf *pJson){
  docextBufAppendStr(pRc, pJson, ",\"parsedTextQuery\":{");
  textExplainTerms(pRc, pJson, "terms", &p->pos);
  docextBufAppendByte(pRc, pJson, ',');
  textExplainTerms(pRc, pJson, "negatedTerms", &p->neg);
  docextBufAppendByte(pRc, pJson, ',');
  textExplainPhrases(pRc, pJson, "phrases", p, 0);
  docextBufAppendByte(pRc, pJson, ',');
  textExplainPhrases(pRc, pJson, "negatedPhrases", p, 1);
  docextBufAppendByte(pRc, pJson, '}');
}

int docextTextIndexTerms(const DocValue *v, const DocTextSpec *pSpec, DocBuf *pOut,
                         int *pnTerm, int *pbExact){
  DocText *p = 0;
  char *zErr = 0;
  int rc = docextTextNew(v, &p, &zErr), i;
  *pnTerm = 0;
  *pbExact = 0;
  if( rc==SQLITE_OK ) rc = docextTextBind(p, pSpec, 0, &zErr);
  if( rc==SQLITE_OK ){
    /* With only terms to look for, as they are indexed, a document matches
    ** exactly when it has an entry for one (no term so long that its key
    ** could be a longer term's, cut). */
    *pbExact = p->neg.n==0 && p->nPhrase==0 && textQueryFlags(p)==0;
  }
  for(i=0; rc==SQLITE_OK && i<p->bounds.n; i++){
    const char *z = textListTerm(&p->bounds, i);
    int n = p->bounds.a[i].nTerm;
    if( n>=DOCEXT_TEXT_KEY_MAX-3 ) *pbExact = 0;
    docextBufAppend(&rc, pOut, z, docextTextKeyLength(z, n));
    docextBufAppendByte(&rc, pOut, 0);
    (*pnTerm)++;
  }
  sqlite3_free(zErr);
  docextTextFree(p);
  return rc;
}
