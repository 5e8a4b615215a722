/*
** test_stem.c — unit tests for ext/docext_stem.c, Snowball's English
** stemmer as MongoDB's text indexes use it: each step and exception of the
** algorithm, words with uppercase letters, digits and letters beyond ASCII,
** words past 100,000 bytes, empty and one- or two-letter words, the words
** with four-byte characters where MongoDB's libstemmer (and so docext)
** differs from Snowball 2.2, malformed UTF-8, and random bytes (each word
** stemmed in a buffer of exactly its size, so the sanitizers see any
** access past it). Expected stems are Snowball's (python3-snowballstemmer)
** and, where the two differ, those of the libstemmer code MongoDB compiles.
**
**   build/MODE/test_stem                  the tests
**   build/MODE/test_stem --pairs FILE [-v]
**       checks each line "word<TAB>stem" of FILE (test/diff_stem.sh makes
**       one), printing the first 20 failures (-v: all of them)
**
** Finishes with "N passed, M failed"; exits non-zero if anything failed.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nPass = 0;
static int nFail = 0;
static int nShown = 0;          /* failures printed */
static int nShowMax = 20;       /* ... at most; -1: all */

/* Stem a copy of z[0..n) held in a heap buffer of exactly n bytes; the stem
** is returned (sqlite3_malloc'd, NUL-terminated) and its length in *pnOut. */
static char *stemCopy(const char *z, int n, int *pnOut){
  char *zBuf = malloc(n>0 ? (size_t)n : 1);
  char *zOut;
  int nOut;
  if( zBuf==0 ){ printf("out of memory\n"); exit(1); }
  memcpy(zBuf, z, (size_t)n);
  nOut = docextStemEnglish(zBuf, n);
  if( nOut<0 || nOut>n ){
    printf("FAIL stem length %d of a %d-byte word\n", nOut, n);
    exit(1);
  }
  zOut = sqlite3_malloc(nOut+1);
  if( zOut==0 ){ printf("out of memory\n"); exit(1); }
  memcpy(zOut, zBuf, (size_t)nOut);
  zOut[nOut] = 0;
  free(zBuf);
  *pnOut = nOut;
  return zOut;
}

/* The stem of zWord must be zWant. Long words are shown by their length. */
static void checkStemN(const char *zWord, int nWord, const char *zWant, int nWant){
  int nGot;
  char *zGot = stemCopy(zWord, nWord, &nGot);
  if( nGot==nWant && memcmp(zGot, zWant, (size_t)nGot)==0 ){
    nPass++;
  }else{
    nFail++;
    if( nShowMax<0 || nShown++<nShowMax ){
      if( nWord<=200 ){
        printf("FAIL stem(%.*s) = %s, want %.*s\n", nWord, zWord, zGot, nWant, zWant);
      }else{
        printf("FAIL stem of a %d-byte word: %d bytes, want %d\n", nWord, nGot, nWant);
      }
    }
  }
  sqlite3_free(zGot);
}

static void checkStem(const char *zWord, const char *zWant){
  checkStemN(zWord, (int)strlen(zWord), zWant, (int)strlen(zWant));
}

/* Pairs of word and stem. */
static void checkAll(const char *const *az, int n){
  for(int i=0; i<n; i+=2) checkStem(az[i], az[i+1]);
}

/* Exceptional forms, R1 and R2, and one or more words for each rule of
** each step. */
static void testSteps(void){
  static const char *const az[] = {
    /* exception1: whole words */
    "skis", "ski",          "skies", "sky",         "dying", "die",
    "lying", "lie",         "tying", "tie",         "idly", "idl",
    "gently", "gentl",      "ugly", "ugli",         "early", "earli",
    "only", "onli",         "singly", "singl",      "sky", "sky",
    "news", "news",         "howe", "howe",         "atlas", "atlas",
    "cosmos", "cosmos",     "bias", "bias",         "andes", "andes",
    "news's", "new",        "sky's", "ski",         /* not exceptions */
    /* R1 after gener, commun, arsen */
    "generously", "generous",   "generate", "generat",   "general", "general",
    "communism", "communism",   "communication", "communic",
    "arsenal", "arsenal",       "arsenic", "arsenic",
    "consign", "consign",       "consigned", "consign",
    /* Step 0 and prelude: apostrophes */
    "boy's", "boy",         "boys'", "boy",         "'tis", "tis",
    /* Step 1a */
    "caresses", "caress",   "ponies", "poni",       "ties", "tie",
    "cries", "cri",         "cried", "cri",         "ies", "ie",
    "gas", "gas",           "gaps", "gap",          "kiwis", "kiwi",
    "class", "class",       "bus", "bus",           "says", "say",
    "yes", "yes",           "knees", "knee",
    /* exception2, after Step 1a */
    "inning", "inning",     "innings", "inning",    "outings", "outing",
    "canning", "canning",   "herring", "herring",   "earring", "earring",
    "proceed", "proceed",   "exceed", "exceed",     "succeed", "succeed",
    "proceeding", "proceed",
    /* Step 1b */
    "feed", "feed",         "agreed", "agre",       "agreedly", "agre",
    "bleed", "bleed",       "guaranteed", "guarante",
    "running", "run",       "hopping", "hop",       "fitted", "fit",
    "hoped", "hope",        "filing", "file",       "failing", "fail",
    "sized", "size",        "luxuriating", "luxuri", "kindly", "kind",
    "bed", "bed",
    /* Step 1c and y */
    "happy", "happi",       "dry", "dri",           "sly", "sli",
    "say", "say",           "toying", "toy",        "enjoyed", "enjoy",
    "crying", "cri",        "flying", "fli",        "yelling", "yell",
    "youth", "youth",       "abyss", "abyss",       "sayy", "sayi",
    "ayyy", "ayyy",         "ooy", "ooy",
    /* Step 2 */
    "relational", "relat",  "conditional", "condit", "rational", "ration",
    "valenci", "valenc",    "hesitanci", "hesit",   "digitizer", "digit",
    "conformabli", "conform", "radicalli", "radic", "differentli", "differ",
    "vileli", "vile",       "analogousli", "analog", "vietnamization", "vietnam",
    "predication", "predic", "operator", "oper",    "feudalism", "feudal",
    "decisiveness", "decis", "hopefulness", "hope", "callousness", "callous",
    "formaliti", "formal",  "sensitiviti", "sensit", "sensibiliti", "sensibl",
    "biology", "biolog",    "apologies", "apolog",  "fully", "fulli",
    "hopelessly", "hopeless", "lessli", "lessli",
    /* Step 3 */
    "triplicate", "triplic", "formative", "format", "formalize", "formal",
    "electriciti", "electr", "electrical", "electr", "goodness", "good",
    /* Step 4 */
    "revival", "reviv",     "allowance", "allow",   "inference", "infer",
    "airliner", "airlin",   "gyroscopic", "gyroscop", "adjustable", "adjust",
    "defensible", "defens", "irritant", "irrit",    "replacement", "replac",
    "adjustment", "adjust", "dependent", "depend",  "adoption", "adopt",
    "homologous", "homolog", "effective", "effect", "bowdlerize", "bowdler",
    /* Step 5 */
    "probate", "probat",    "rate", "rate",         "cease", "ceas",
    "controll", "control",  "roll", "roll",         "evening", "even",
  };
  checkAll(az, DOCEXT_COUNT(az));
}

/* Uppercase letters are non-vowels (a case-sensitive index stems the word
** as written); so are digits and letters beyond ASCII. */
static void testOtherCharacters(void){
  static const char *const az[] = {
    "RUNNING", "RUNNING",   "Running", "Run",       "SkiEs", "SkiE",
    "Yelling", "Yell",      "daYs", "daY",          "days", "day",
    "YOUTH", "YOUTH",       "sYstem", "sYstem",     "Yy", "Yy",
    "café", "café",         "naïvely", "naïv",      "résumés", "résumé",
    "straße", "straße",     "fiancée", "fiancé",    "übersized", "übersiz",
    "ÿes", "ÿes",           "αβγ", "αβγ",           "中文ing", "中文ing",
    "1990s", "1990s",       "mp3s", "mp3s",         "24hours", "24hour",
    "abc123ing", "abc123",  "x1y", "x1i",
  };
  checkAll(az, DOCEXT_COUNT(az));
}

/* Words of two letters (characters, not bytes) or less stay as they are. */
static void testShortWords(void){
  static const char *const az[] = {
    "", "",       "a", "a",     "s", "s",     "y", "y",     "'", "'",
    "is", "is",   "ys", "ys",   "'s", "'s",   "é", "é",     "ée", "ée",
    "中s", "中s", "😀😀", "😀😀", "by", "by",
  };
  checkAll(az, DOCEXT_COUNT(az));
}

/* Where MongoDB's libstemmer differs from Snowball 2.2 (whose stems are in
** the comments): a character beyond U+FFFF reads as two non-vowels, and
** reading backwards its lead byte goes with the bytes before it. */
static void testFourByteCharacters(void){
  static const char *const az[] = {
    "😀yed", "😀i",              /* 2.2: 😀y (😀 not seen as the first letter) */
    "ha😀ing", "ha😀ing",        /* 2.2: ha😀e (the a before 😀 not seen) */
    "ba😀king", "ba😀king",      /* 2.2: ba😀k */
    "char😀ged", "char😀ged",    /* 2.2: char😀g */
    "boy𐍈ingly", "boy𐍈ing",     /* 2.2: boy𐍈 */
    "ha😀e", "ha😀",              /* 2.2: ha😀e (no short syllable seen) */
    /* the same in both */
    "a😀y", "a😀i",   "😀ries", "😀ri",   "cat😀s", "cat😀",   "😀ing", "😀ing",
  };
  checkAll(az, DOCEXT_COUNT(az));
}

/* Malformed UTF-8 is read as MongoDB's libstemmer reads it (an overlong
** C1 A1 is an "a" to its letter classes). */
static void testMalformed(void){
  checkStem("\xc1\xa1yed", "\xc1\xa1ye");
  checkStem("b\xc1\xa1ying", "b\xc1\xa1y");
  checkStem("\xe0\x41\x61ing", "\xe0\x41\x61");
  checkStem("ab\xf0ing", "ab\xf0ing");
  checkStem("\x80\x80\x80s", "\x80\x80\x80s");
  checkStem("foo\xc3", "foo\xc3");
}

/* z filled with nRep copies of zRep then zTail; its length in *pn. */
static char *repeat(const char *zRep, int nRep, const char *zTail, int *pn){
  int nR = (int)strlen(zRep), nT = (int)strlen(zTail);
  char *z = malloc((size_t)(nR*nRep + nT + 1));
  if( z==0 ){ printf("out of memory\n"); exit(1); }
  for(int i=0; i<nRep; i++) memcpy(&z[i*nR], zRep, (size_t)nR);
  memcpy(&z[nR*nRep], zTail, (size_t)nT+1);
  *pn = nR*nRep + nT;
  return z;
}

/* Words of 100,000 bytes and more, stemmed in place like any other. */
static void testLongWords(void){
  struct { const char *zRep; int nRep; const char *zTail;
           const char *zWantRep; int nWantRep; const char *zWantTail; } a[] = {
    { "hope", 25000, "fulness",   "hope", 24999, "hop" },
    { "y", 100001, "",            "y", 100001, "" },
    { "ab", 50000, "ational",     "ab", 50000, "" },
    { "b", 100000, "ies",         "b", 100000, "i" },
    { "é", 50000, "sses",         "é", 50000, "ss" },
  };
  for(int i=0; i<DOCEXT_COUNT(a); i++){
    int n, nWant;
    char *z = repeat(a[i].zRep, a[i].nRep, a[i].zTail, &n);
    char *zWant = repeat(a[i].zWantRep, a[i].nWantRep, a[i].zWantTail, &nWant);
    checkStemN(z, n, zWant, nWant);
    free(z);
    free(zWant);
  }
}

/* Random bytes and random pieces of words: no access outside the word
** (the sanitizers watch), a stem no longer than the word, and the same stem
** twice. */
static void testRandom(void){
  static const char *const azPiece[] = {
    "a", "e", "i", "o", "u", "y", "Y", "b", "l", "s", "t", "'", "ing", "ed",
    "ies", "li", "ion", "al", "ational", "ness", "eed", "ly", "ss", "at",
    "gener", "é", "中", "😀", "\xc1\xa1", "\x80", "\xf0", "\xe4\xb8", "\xff",
  };
  unsigned int r = 20260101;
  char z[64];
  int bOk = 1;
  for(int iCase=0; iCase<200000 && bOk; iCase++){
    int n = 0, nA, nB;
    char *zA, *zB;
    r = r*1103515245u + 12345u;
    if( (r>>16)&1 ){
      int nPiece = (int)((r>>17)%8);
      for(int k=0; k<nPiece; k++){
        const char *zP;
        r = r*1103515245u + 12345u;
        zP = azPiece[(r>>16) % DOCEXT_COUNT(azPiece)];
        if( n+(int)strlen(zP)>(int)sizeof(z) ) break;
        memcpy(&z[n], zP, strlen(zP));
        n += (int)strlen(zP);
      }
    }else{
      n = (int)((r>>17)%12);
      for(int k=0; k<n; k++){
        r = r*1103515245u + 12345u;
        z[k] = (char)(r>>16);
      }
    }
    zA = stemCopy(z, n, &nA);
    zB = stemCopy(z, n, &nB);
    bOk = nA==nB && memcmp(zA, zB, (size_t)nA)==0;
    sqlite3_free(zA);
    sqlite3_free(zB);
  }
  if( bOk ) nPass++;
  else{ nFail++; printf("FAIL random words: two stems of one word differ\n"); }
}

/* --pairs FILE: each line "word<TAB>stem". */
static void testPairs(const char *zFile){
  FILE *f = fopen(zFile, "rb");
  char *zLine = 0;
  size_t nAlloc = 0;
  ssize_t nLine;
  if( f==0 ){
    printf("cannot open %s\n", zFile);
    nFail++;
    return;
  }
  while( (nLine = getline(&zLine, &nAlloc, f))>=0 ){
    char *zTab;
    if( nLine>0 && zLine[nLine-1]=='\n' ) zLine[--nLine] = 0;
    zTab = memchr(zLine, '\t', (size_t)nLine);
    if( zTab==0 ){
      nFail++;
      printf("FAIL %s: a line without a tab: %s\n", zFile, zLine);
      continue;
    }
    checkStemN(zLine, (int)(zTab-zLine), zTab+1, (int)(nLine-(zTab+1-zLine)));
  }
  free(zLine);
  fclose(f);
}

int main(int argc, char **argv){
  if( argc>=3 && strcmp(argv[1], "--pairs")==0 ){
    if( argc>=4 && strcmp(argv[3], "-v")==0 ) nShowMax = -1;
    testPairs(argv[2]);
  }else{
    testSteps();
    testOtherCharacters();
    testShortWords();
    testFourByteCharacters();
    testMalformed();
    testLongWords();
    testRandom();
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
