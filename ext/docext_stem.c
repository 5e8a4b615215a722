/*
** docext_stem.c — the stemmers of text indexes: Snowball's English stemmer
** ("Porter2") written here, as MongoDB's text indexes apply it to each term
** of a text index or a $text search whose language is English, and
** Snowball's others through libstemmer (DocStemmer, at the end).
**
** The algorithm is the one published at snowballstem.org (English stemmer,
** "Porter2"); each function below says which of its rules it is. MongoDB
** runs the C code that Snowball generated in 2011 (its vendored
** libstemmer_c). The English rules did not change from then to Snowball 2.2
** (2021), which test/diff_stem.sh compares with; Snowball 3.0 (2025)
** changed them, after MongoDB's copy was made.
**
** POSITIONS are byte offsets into the UTF-8 word, and the word is rewritten
** in place: no rule makes a word longer than it was (Step 1b adds an "e"
** only where it removed "ed" or "ing"), so no buffer is needed. The rules
** ask three kinds of question of the text, and libstemmer answers each in
** its own way, which we copy, since an index key must be the very stem
** MongoDB makes:
**   - "does the word end with this suffix?": bytes are compared (every
**     suffix is ASCII, and no byte of a multibyte character is ASCII);
**   - "how many characters?" (hop, next: "a word of two letters or less",
**     "preceded by more than one letter"): a character is a byte, with the
**     continuation bytes (10xxxxxx) after it when it is a lead byte;
**   - "is this a vowel?" (the letter classes v, v_WXY, valid_LI): one
**     "unit" is decoded, and the decoder knows sequences of at most three
**     bytes. For any character below U+10000 that is the character, never a
**     vowel unless it is ASCII. A four-byte character (emoji, historic
**     scripts) reads forwards as two non-vowels, and backwards its lead byte
**     is read together with up to two bytes before it (a vowel there is not
**     seen). Snowball 2.2 reads it as one character, so for words with such
**     characters MongoDB's stems, and ours, can differ from Snowball 2.2's
**     (test/test_stem.c shows examples).
** Malformed UTF-8 is read in the same ways, so it stems as MongoDB stems it.
**
** Uppercase letters (a case-sensitive index keeps case) are non-vowels like
** any character outside a-z; "Y" is also what the algorithm writes for a
** consonant y, and an original "Y" is treated the same way.
*/
#include "docextInt.h"
#include <libstemmer.h>
#include <limits.h>
#include <string.h>

/* The word being stemmed. */
typedef struct StemWord StemWord;
struct StemWord {
  u8 *z;          /* the word, rewritten in place */
  int n;          /* its length now, in bytes */
  int p1, p2;     /* byte offsets where R1 and R2 start (the original
                  ** length when a region is empty) */
};

/* A suffix of Steps 2 to 4, what replaces it, and a further condition. */
typedef struct StemRule StemRule;
struct StemRule {
  const char *zSuffix;
  const char *zTo;
  u8 eCond;       /* STEM_*; 0 (STEM_ANY) in most rules */
};
#define STEM_ANY      0   /* no further condition */
#define STEM_AFTER_L  1   /* preceded by "l" (ogi) */
#define STEM_AFTER_LI 2   /* preceded by a valid li-ending: c d e g h k m n r t */
#define STEM_AFTER_ST 3   /* preceded by "s" or "t" (ion) */
#define STEM_IN_R2    4   /* in R2 as well as R1 (ative) */

/**************************************************************************
** Reading the bytes as libstemmer's runtime reads them.
*/

static int stemIsVowel(int c){
  return c=='a' || c=='e' || c=='i' || c=='o' || c=='u' || c=='y';
}

/* The class v_WXY: shortv's last letter may not be one of these. */
static int stemIsVowelWXY(int c){
  return stemIsVowel(c) || c=='w' || c=='x' || c=='Y';
}

static int stemIsValidLi(int c){
  return c=='c' || c=='d' || c=='e' || c=='g' || c=='h'
      || c=='k' || c=='m' || c=='n' || c=='r' || c=='t';
}

/* The unit at z[i] (i<n) as the letter classes read it forwards: its width
** in bytes, its value in *pC. A sequence cut short by the end is shorter. */
static int stemUnitAfter(const u8 *z, int i, int n, int *pC){
  int b0 = z[i];
  if( b0<0xC0 || i+1==n ){
    *pC = b0;
    return 1;
  }
  if( b0<0xE0 || i+2==n ){
    *pC = (b0&0x1F)<<6 | (z[i+1]&0x3F);
    return 2;
  }
  *pC = (b0&0x0F)<<12 | (z[i+1]&0x3F)<<6 | (z[i+2]&0x3F);
  return 3;            /* also for a four-byte lead: its last byte is a unit */
}

/* The unit that ends at z[i] (i>0) as the letter classes read it
** backwards: its width, its value in *pC. Only the last two bytes are
** looked at: when the one before the last is not a lead byte the unit is
** three bytes wide, whatever the third is. */
static int stemUnitBefore(const u8 *z, int i, int *pC){
  int b0 = z[i-1], b1;
  if( b0<0x80 || i==1 ){
    *pC = b0;
    return 1;
  }
  b1 = z[i-2];
  if( b1>=0xC0 || i==2 ){
    *pC = (b1&0x1F)<<6 | (b0&0x3F);
    return 2;
  }
  /* libstemmer reads b1 twice here (not the byte before it); the value
  ** is never that of a letter of any class, but it is kept as it is */
  *pC = (b1&0x0F)<<12 | (b1&0x3F)<<6 | (b0&0x3F);
  return 3;
}

/* One character after i (hop, next), or -1 at the end n. */
static int stemCharAfter(const u8 *z, int i, int n){
  if( i>=n ) return -1;
  if( z[i++]>=0xC0 ){
    while( i<n && (z[i]&0xC0)==0x80 ) i++;
  }
  return i;
}

/* Does z[0..n) hold at least nChar characters? */
static int stemHasChars(const u8 *z, int n, int nChar){
  int i = 0;
  while( nChar-- > 0 ){
    i = stemCharAfter(z, i, n);
    if( i<0 ) return 0;
  }
  return 1;
}

/* One character before i, or -1 at the start. From a byte above 0x7F it
** goes back to a lead byte (or the start), over any other byte. */
static int stemCharBefore(const u8 *z, int i){
  if( i<=0 ) return -1;
  if( z[--i]>=0x80 ){
    while( i>0 && z[i]<0xC0 ) i--;
  }
  return i;
}

/* Snowball's "gopast v" (bVowel) or "gopast non-v" from i: the offset
** just past the first unit that is (is not) a vowel, or -1. */
static int stemGopast(const u8 *z, int i, int n, int bVowel){
  while( i<n ){
    int c;
    i += stemUnitAfter(z, i, n, &c);
    if( stemIsVowel(c)==bVowel ) return i;
  }
  return -1;
}

/* Is there a vowel before i? (Snowball's backward "gopast v" as a test.) */
static int stemVowelBefore(const u8 *z, int i){
  while( i>0 ){
    int c;
    i -= stemUnitBefore(z, i, &c);
    if( stemIsVowel(c) ) return 1;
  }
  return 0;
}

/* Does the text up to i end in a short syllable? That is a vowel followed
** by a non-vowel other than w, x or Y and preceded by a non-vowel, or a
** vowel at the beginning of the word followed by a non-vowel. */
static int stemShortSyllable(const u8 *z, int i){
  int cLast, c;
  if( i<=0 ) return 0;
  i -= stemUnitBefore(z, i, &cLast);
  if( stemIsVowel(cLast) || i<=0 ) return 0;
  i -= stemUnitBefore(z, i, &c);
  if( !stemIsVowel(c) ) return 0;
  if( i==0 ) return 1;
  if( stemIsVowelWXY(cLast) ) return 0;
  stemUnitBefore(z, i, &c);
  return !stemIsVowel(c);
}

/**************************************************************************
** The word and its suffixes.
*/

static int stemEndsWith(const StemWord *w, const char *zSuffix){
  int nSuffix = (int)strlen(zSuffix);
  return w->n>=nSuffix && memcmp(&w->z[w->n-nSuffix], zSuffix, nSuffix)==0;
}

static int stemIs(const u8 *z, int n, const char *zWord){
  return (int)strlen(zWord)==n && memcmp(z, zWord, n)==0;
}

/* Replace the last nOld bytes by zNew (no longer than nOld). */
static void stemReplace(StemWord *w, int nOld, const char *zNew){
  int nNew = (int)strlen(zNew);
  memcpy(&w->z[w->n-nOld], zNew, nNew);
  w->n += nNew - nOld;
}

/* The longest suffix of a[0..nRule) the word ends with: a rule of a step
** applies to it alone (if its condition fails, no shorter suffix is tried).
** -1 when none. */
static int stemLongest(const StemWord *w, const StemRule *a, int nRule){
  int iBest = -1, nBest = 0;
  for(int i=0; i<nRule; i++){
    int nSuffix = (int)strlen(a[i].zSuffix);
    if( nSuffix>nBest && stemEndsWith(w, a[i].zSuffix) ){
      iBest = i;
      nBest = nSuffix;
    }
  }
  return iBest;
}

/* Steps 2, 3 and 4: replace the longest suffix of a[] the word ends with,
** if it starts at or after iRegion (the start of R1 or R2) and its
** condition holds. */
static void stemApplyRules(StemWord *w, const StemRule *a, int nRule, int iRegion){
  int iRule = stemLongest(w, a, nRule);
  int nSuffix, iStart, ok;
  if( iRule<0 ) return;
  nSuffix = (int)strlen(a[iRule].zSuffix);
  iStart = w->n - nSuffix;
  if( iStart<iRegion ) return;
  switch( a[iRule].eCond ){
    case STEM_AFTER_L:
      ok = iStart>0 && w->z[iStart-1]=='l';
      break;
    case STEM_AFTER_LI: {
      int c = 0;
      if( iStart>0 ) stemUnitBefore(w->z, iStart, &c);
      ok = stemIsValidLi(c);
      break;
    }
    case STEM_AFTER_ST:
      ok = iStart>0 && (w->z[iStart-1]=='s' || w->z[iStart-1]=='t');
      break;
    case STEM_IN_R2:
      ok = iStart>=w->p2;
      break;
    default:
      ok = 1;
      break;
  }
  if( ok ) stemReplace(w, nSuffix, a[iRule].zTo);
}

/**************************************************************************
** The algorithm.
*/

/* Exceptional forms: a whole word with a stem of its own (or none). Returns
** 1 and sets *pn to the stem's length if z[0..*pn) is one. */
static int stemException1(u8 *z, int *pn){
  static const char *const azForm[] = {
    "skis", "ski",      "skies", "sky",     "dying", "die",
    "lying", "lie",     "tying", "tie",
    "idly", "idl",      "gently", "gentl",  "ugly", "ugli",
    "early", "earli",   "only", "onli",     "singly", "singl",
    /* invariant forms */
    "sky", "sky",       "news", "news",     "howe", "howe",
    "atlas", "atlas",   "cosmos", "cosmos", "bias", "bias",
    "andes", "andes",
  };
  for(int i=0; i<DOCEXT_COUNT(azForm); i+=2){
    if( stemIs(z, *pn, azForm[i]) ){
      *pn = (int)strlen(azForm[i+1]);
      memcpy(z, azForm[i+1], *pn);
      return 1;
    }
  }
  return 0;
}

/* Words that Step 1a leaves alone and that keep what it made of them. */
static int stemException2(const StemWord *w){
  static const char *const azWord[] = {
    "inning", "outing", "canning", "herring", "earring",
    "proceed", "exceed", "succeed",
  };
  for(int i=0; i<DOCEXT_COUNT(azWord); i++){
    if( stemIs(w->z, w->n, azWord[i]) ) return 1;
  }
  return 0;
}

/* Remove an initial apostrophe; write Y for an initial y and for a y after
** a vowel (consonant y's). Returns 1 if a Y was written. */
static int stemPrelude(StemWord *w){
  u8 *z = w->z;
  int bY = 0;
  if( w->n>0 && z[0]=='\'' ){
    memmove(z, z+1, (size_t)(w->n-1));
    w->n--;
  }
  if( w->n>0 && z[0]=='y' ){
    z[0] = 'Y';
    bY = 1;
  }
  /* Snowball visits the offsets a character apart; visiting every offset
  ** finds the same vowels, since a unit read from inside a character is a
  ** single continuation byte, which is no vowel. */
  for(int i=0; i<w->n; i++){
    int c, nUnit = stemUnitAfter(z, i, w->n, &c);
    if( stemIsVowel(c) && i+nUnit<w->n && z[i+nUnit]=='y' ){
      z[i+nUnit] = 'Y';
      bY = 1;
    }
  }
  return bY;
}

/* R1 is the region after the first non-vowel following a vowel, or after
** gener, commun or arsen at the start; R2 the region after the first
** non-vowel following a vowel in R1. */
static void stemMarkRegions(StemWord *w){
  static const char *const azPrefix[] = { "gener", "commun", "arsen" };
  int i = -1;
  w->p1 = w->p2 = w->n;
  for(int k=0; k<DOCEXT_COUNT(azPrefix); k++){
    int nPrefix = (int)strlen(azPrefix[k]);
    if( w->n>=nPrefix && memcmp(w->z, azPrefix[k], nPrefix)==0 ) i = nPrefix;
  }
  if( i<0 ){
    i = stemGopast(w->z, 0, w->n, 1);
    if( i>=0 ) i = stemGopast(w->z, i, w->n, 0);
    if( i<0 ) return;
  }
  w->p1 = i;
  i = stemGopast(w->z, i, w->n, 1);
  if( i>=0 ) i = stemGopast(w->z, i, w->n, 0);
  if( i>=0 ) w->p2 = i;
}

/* Step 0 (the longest of ' 's 's' is removed) and Step 1a: sses -> ss;
** ied, ies -> i after more than one letter, else ie; s is removed if a
** vowel comes before the letter before it; us and ss stay. */
static void stemStep1a(StemWord *w){
  if( stemEndsWith(w, "'s'") ){
    w->n -= 3;
  }else if( stemEndsWith(w, "'s") ){
    w->n -= 2;
  }else if( stemEndsWith(w, "'") ){
    w->n -= 1;
  }
  if( stemEndsWith(w, "sses") ){
    w->n -= 2;
  }else if( stemEndsWith(w, "ied") || stemEndsWith(w, "ies") ){
    int i = w->n - 3;
    int j = stemCharBefore(w->z, i);    /* two characters back, if there */
    if( j>=0 ) j = stemCharBefore(w->z, j);
    w->n = j>=0 ? i+1 : i+2;            /* "i" or "ie", already there */
  }else if( stemEndsWith(w, "us") || stemEndsWith(w, "ss") ){
    /* stays */
  }else if( stemEndsWith(w, "s") ){
    int i = stemCharBefore(w->z, w->n-1);
    if( i>=0 && stemVowelBefore(w->z, i) ) w->n--;
  }
}

/* Step 1b: eed, eedly -> ee in R1. ed, edly, ing, ingly are removed after a
** vowel, and then: at, bl, iz get an e; a double bb dd ff gg mm nn pp rr tt
** loses its last letter; a short word (R1 empty, a short syllable at the
** end) gets an e. */
static void stemStep1b(StemWord *w){
  static const char *const azSuffix[] = {   /* longest first */
    "eedly", "ingly", "edly", "eed", "ing", "ed"
  };
  static const char *const azDouble[] = {
    "bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"
  };
  const char *zSuffix = 0;
  int i;
  for(int k=0; k<DOCEXT_COUNT(azSuffix) && zSuffix==0; k++){
    if( stemEndsWith(w, azSuffix[k]) ) zSuffix = azSuffix[k];
  }
  if( zSuffix==0 ) return;
  i = w->n - (int)strlen(zSuffix);
  if( zSuffix[0]=='e' && zSuffix[1]=='e' ){
    if( i>=w->p1 ) w->n = i+2;          /* "ee", already there */
    return;
  }
  if( !stemVowelBefore(w->z, i) ) return;
  w->n = i;
  if( stemEndsWith(w, "at") || stemEndsWith(w, "bl") || stemEndsWith(w, "iz") ){
    w->z[w->n++] = 'e';
    return;
  }
  for(int k=0; k<DOCEXT_COUNT(azDouble); k++){
    if( stemEndsWith(w, azDouble[k]) ){
      w->n--;
      return;
    }
  }
  if( w->n==w->p1 && stemShortSyllable(w->z, w->n) ) w->z[w->n++] = 'e';
}

/* Step 1c: a final y or Y after a non-vowel that is not the first letter
** becomes i. */
static void stemStep1c(StemWord *w){
  int i = w->n - 1, c, nUnit;
  if( i<=0 || (w->z[i]!='y' && w->z[i]!='Y') ) return;
  nUnit = stemUnitBefore(w->z, i, &c);
  if( !stemIsVowel(c) && i-nUnit>0 ) w->z[i] = 'i';
}

/* Step 2: in R1, the longest of these suffixes is replaced (ogi only after
** l, li only after a valid li-ending). */
static void stemStep2(StemWord *w){
  static const StemRule aRule[] = {
    { "tional", "tion", 0 },   { "enci", "ence", 0 },     { "anci", "ance", 0 },
    { "abli", "able", 0 },     { "entli", "ent", 0 },
    { "izer", "ize", 0 },      { "ization", "ize", 0 },
    { "ational", "ate", 0 },   { "ation", "ate", 0 },     { "ator", "ate", 0 },
    { "alism", "al", 0 },      { "aliti", "al", 0 },      { "alli", "al", 0 },
    { "fulness", "ful", 0 },
    { "ousli", "ous", 0 },     { "ousness", "ous", 0 },
    { "iveness", "ive", 0 },   { "iviti", "ive", 0 },
    { "biliti", "ble", 0 },    { "bli", "ble", 0 },
    { "ogi", "og", STEM_AFTER_L },
    { "fulli", "ful", 0 },     { "lessli", "less", 0 },
    { "li", "", STEM_AFTER_LI },
  };
  stemApplyRules(w, aRule, DOCEXT_COUNT(aRule), w->p1);
}

/* Step 3: in R1, the longest of these suffixes is replaced (ative only in
** R2). */
static void stemStep3(StemWord *w){
  static const StemRule aRule[] = {
    { "tional", "tion", 0 },   { "ational", "ate", 0 },   { "alize", "al", 0 },
    { "icate", "ic", 0 },      { "iciti", "ic", 0 },      { "ical", "ic", 0 },
    { "ful", "", 0 },          { "ness", "", 0 },
    { "ative", "", STEM_IN_R2 },
  };
  stemApplyRules(w, aRule, DOCEXT_COUNT(aRule), w->p1);
}

/* Step 4: in R2, the longest of these suffixes is removed (ion only after s
** or t). */
static void stemStep4(StemWord *w){
  static const StemRule aRule[] = {
    { "al", "", 0 },   { "ance", "", 0 }, { "ence", "", 0 },  { "er", "", 0 },
    { "ic", "", 0 },   { "able", "", 0 }, { "ible", "", 0 },  { "ant", "", 0 },
    { "ement", "", 0 },{ "ment", "", 0 }, { "ent", "", 0 },   { "ism", "", 0 },
    { "ate", "", 0 },  { "iti", "", 0 },  { "ous", "", 0 },   { "ive", "", 0 },
    { "ize", "", 0 },
    { "ion", "", STEM_AFTER_ST },
  };
  stemApplyRules(w, aRule, DOCEXT_COUNT(aRule), w->p2);
}

/* Step 5: a final e goes in R2, or in R1 unless a short syllable precedes
** it; a final l goes in R2 after another l. */
static void stemStep5(StemWord *w){
  int i = w->n - 1;
  if( i<0 ) return;
  if( w->z[i]=='e' ){
    if( i>=w->p2 || (i>=w->p1 && !stemShortSyllable(w->z, i)) ) w->n = i;
  }else if( w->z[i]=='l' ){
    if( i>=w->p2 && i>0 && w->z[i-1]=='l' ) w->n = i;
  }
}

/* The word's stem, in place (see the interface above). The exceptional
** forms are looked up as the word is written, before anything else. */
int docextStemEnglish(char *z, int n){
  StemWord w;
  int bY;
  if( stemException1((u8*)z, &n) ) return n;
  if( !stemHasChars((const u8*)z, n, 3) ) return n;   /* two letters or less */
  w.z = (u8*)z;
  w.n = n;
  bY = stemPrelude(&w);
  stemMarkRegions(&w);
  stemStep1a(&w);
  if( !stemException2(&w) ){
    stemStep1b(&w);
    stemStep1c(&w);
    stemStep2(&w);
    stemStep3(&w);
    stemStep4(&w);
    stemStep5(&w);
  }
  if( bY ){                    /* postlude: every Y (an original one too) is y */
    for(int i=0; i<w.n; i++){
      if( w.z[i]=='Y' ) w.z[i] = 'y';
    }
  }
  return w.n;
}

/*------------------------------------------------------------------------
** DocStemmer: one language's stemmer. English is the code above (its stems
** must be MongoDB's, which Snowball's later English stemmer does not always
** make); the other languages are Snowball 2.2's, by Debian's libstemmer.
** MongoDB runs Snowball's C of 2011 for those too: where their rules
** changed since, and for words with four-byte characters (see the top of
** this file), a stem can differ from MongoDB's. A stemmer is not
** thread-safe; each tokenizer makes its own.
*/
struct DocStemmer {
  struct sb_stemmer *pSnowball;   /* NULL: English, by docextStemEnglish */
};

int docextStemmerNew(const char *zLanguage, DocStemmer **pp){
  DocStemmer *p;
  *pp = 0;
  if( strcmp(zLanguage, "none")==0 ) return SQLITE_OK;
  p = sqlite3_malloc(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  p->pSnowball = 0;
  if( strcmp(zLanguage, "english")!=0 ){
    /* (NULL also for an unknown language, which the callers never ask for) */
    p->pSnowball = sb_stemmer_new(zLanguage, "UTF_8");
    if( p->pSnowball==0 ){
      sqlite3_free(p);
      return SQLITE_NOMEM;
    }
  }
  *pp = p;
  return SQLITE_OK;
}

int docextStemmerStem(DocStemmer *p, DocBuf *pWord){
  const sb_symbol *zStem;
  int rc = SQLITE_OK;
  if( p==0 ) return SQLITE_OK;
  if( p->pSnowball==0 ){
    pWord->n = docextStemEnglish((char*)pWord->a, (int)pWord->n);
    return SQLITE_OK;
  }
  if( pWord->n>INT_MAX ) return SQLITE_TOOBIG;
  zStem = sb_stemmer_stem(p->pSnowball, (const sb_symbol*)pWord->a, (int)pWord->n);
  if( zStem==0 ) return SQLITE_NOMEM;
  /* (the stem is in the stemmer's memory, not in pWord's) */
  docextBufReset(pWord);
  docextBufAppend(&rc, pWord, zStem, sb_stemmer_length(p->pSnowball));
  return rc;
}

void docextStemmerFree(DocStemmer *p){
  if( p ){
    if( p->pSnowball ) sb_stemmer_delete(p->pSnowball);
    sqlite3_free(p);
  }
}
