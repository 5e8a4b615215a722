/*
** test_unicode.c — unit tests for ext/docext_unicode.c, the Unicode facts
** of MongoDB's text tokenizer: UTF-8 decoding and encoding, delimiters,
** case folding and diacritic stripping.
**
** Hand-picked answers (MongoDB's codepoints_test.cpp among them) and, over
** every code point, the invariants MongoDB's tests state: folding and
** stripping are fixed points, ASCII changes only where MongoDB's ASCII
** fast paths say, English and other languages differ only at the
** apostrophe, and every code point survives a UTF-8 round trip. (The
** tables against the Unicode data, code point by code point, are checked
** by tools/gen_unicode.py --check.)
**
** Prints one line per failure and finishes with "N passed, M failed";
** exits non-zero if anything failed.
*/
#include "docextInt.h"
#include <stdarg.h>
#include <stdio.h>

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

/* c is (bWant) or is not a delimiter, in English and in other languages. */
static void delim(uint32_t c, int bWant){
  check(docextUnicodeIsDelimiter(c, 1)==bWant, "U+%04X delimiter (English) %d", c, !bWant);
  check(docextUnicodeIsDelimiter(c, 0)==bWant, "U+%04X delimiter %d", c, !bWant);
}

static void fold(uint32_t c, uint32_t want){
  uint32_t got = docextUnicodeFold(c);
  check(got==want, "fold U+%04X: U+%04X, want U+%04X", c, got, want);
}

static void strip(uint32_t c, uint32_t want){
  uint32_t got = docextUnicodeStripDiacritics(c);
  check(got==want, "strip U+%04X: U+%04X, want U+%04X", c, got, want);
}

static void testDelimiters(void){
  static const uint32_t aYes[] = {
    ' ', '\t', '\n', '\v', '\f', '\r', '!', '"', '#', '$', '%', '&', '(', ')',
    '*', '+', ',', '-', '.', '/', ':', ';', '<', '=', '>', '?', '@', '[',
    '\\', ']', '^', '`', '{', '|', '}', '~',
    0x0085, 0x00A0, 0x00A7, 0x00AB, 0x00AD, 0x00BB, 0x00BF, 0x00D7, 0x00F7,
    0x037E, 0x0387, 0x0589, 0x060C, 0x061F, 0x06D4, 0x0964, 0x1680,
    0x2000, 0x200A, 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015,
    0x2018, 0x2019, 0x201C, 0x201D, 0x2026, 0x2028, 0x2029, 0x202F, 0x203C,
    0x205F, 0x2212, 0x2190, 0x2E3A, 0x3000, 0x3001, 0x3002, 0x300C, 0x3030,
    0xFE50, 0xFF01, 0xFF07, 0xFF0C, 0xFF61, 0x1DA88,
  };
  static const uint32_t aNo[] = {
    0, 1, 0x1F, 0x7F, '_', '0', '9', 'A', 'Z', 'a', 'z',
    0x00AA, 0x00B2, 0x00B5, 0x00C0, 0x00E9, 0x00EA, 0x00E5, 0x0130, 0x03A9,
    0x03C0, 0x0416, 0x05D0, 0x0627, 0x0663, 0x0301, 0x200B, 0x200C, 0x200D,
    0x2060, 0x20AC, 0x3005, 0x3042, 0x4E2D, 0xAC00, 0xFEFF, 0xFFFD,
    0x1F600, 0x10FFFF,
  };
  int i;
  for(i=0; i<DOCEXT_COUNT(aYes); i++) delim(aYes[i], 1);
  for(i=0; i<DOCEXT_COUNT(aNo); i++) delim(aNo[i], 0);

  /* The apostrophe joins words in English only; U+2019 and the fullwidth
  ** apostrophe separate them everywhere. */
  check(docextUnicodeIsDelimiter('\'', 1)==0, "apostrophe, English");
  check(docextUnicodeIsDelimiter('\'', 0)==1, "apostrophe, other languages");

  /* Only the apostrophe differs between the two, over every code point. */
  {
    uint32_t c;
    int nDiff = 0;
    for(c=0; c<=0x10FFFF; c++){
      if( docextUnicodeIsDelimiter(c, 1)!=docextUnicodeIsDelimiter(c, 0) ){
        nDiff++;
        check(c=='\'', "U+%04X: English and other languages differ", c);
      }
    }
    check(nDiff==1, "%d code points differ between the languages", nDiff);
    check(docextUnicodeIsDelimiter(0x110000, 0)==0, "U+110000 is no delimiter");
  }
}

static void testFold(void){
  uint32_t c;
  for(c='A'; c<='Z'; c++) fold(c, c+32);
  for(c='a'; c<='z'; c++) fold(c, c);
  fold('0', '0');
  fold('@', '@');
  fold(0x00C0, 0x00E0);     /* À */
  fold(0x00DE, 0x00FE);     /* Þ */
  fold(0x00D7, 0x00D7);     /* × */
  fold(0x00B5, 0x03BC);     /* micro sign: Greek mu (C) */
  fold(0x017F, 's');        /* long s */
  fold(0x0178, 0x00FF);     /* Ÿ */
  fold(0x0100, 0x0101);     /* Ā */
  fold(0x0101, 0x0101);
  fold(0x012E, 0x012F);
  fold(0x01C4, 0x01C6);     /* Ǆ */
  fold(0x01C5, 0x01C6);     /* ǅ, titlecase */
  fold(0x0391, 0x03B1);     /* Α */
  fold(0x03A3, 0x03C3);     /* Σ */
  fold(0x03C2, 0x03C3);     /* final ς (C) */
  fold(0x03A9, 0x03C9);     /* Ω */
  fold(0x2126, 0x03C9);     /* ohm sign */
  fold(0x212A, 'k');        /* Kelvin sign */
  fold(0x212B, 0x00E5);     /* Angstrom sign */
  fold(0x0410, 0x0430);     /* А */
  fold(0x042F, 0x044F);     /* Я */
  fold(0x0401, 0x0451);     /* Ё */
  fold(0x0430, 0x0430);
  fold(0x0531, 0x0561);     /* Armenian Ա */
  fold(0x10A0, 0x2D00);     /* Georgian Ⴀ */
  fold(0x1C90, 0x10D0);     /* Georgian Mtavruli */
  fold(0x13A0, 0x13A0);     /* Cherokee folds to the capitals */
  fold(0xAB70, 0x13A0);
  fold(0x1E9E, 0x00DF);     /* ẞ: its simple folding (S) */
  fold(0x00DF, 0x00DF);     /* ß: only a full folding (F), so kept */
  fold(0x0130, 0x0130);     /* İ: only F and T, so kept */
  fold(0x0131, 0x0131);     /* ı */
  fold(0x1F88, 0x1F80);     /* ᾈ: its simple folding (S) */
  fold(0xFF21, 0xFF41);     /* fullwidth Ａ */
  fold(0x10400, 0x10428);   /* Deseret */
  fold(0x1E900, 0x1E922);   /* Adlam */
  fold(0x4E2D, 0x4E2D);
  fold(0xAC00, 0xAC00);
  fold(0x110000, 0x110000);

  /* MongoDB's invariants: a fixed point, and ASCII changes only at A-Z. */
  for(c=0; c<=0x10FFFF; c++){
    uint32_t f = docextUnicodeFold(c);
    if( docextUnicodeFold(f)!=f ) check(0, "fold U+%04X not a fixed point", c);
    if( f>0x10FFFF ) check(0, "fold U+%04X: U+%04X", c, f);
    if( c<0x80 && f!=((c>='A' && c<='Z') ? c+32 : c) ) check(0, "fold U+%04X", c);
  }
}

static void testStrip(void){
  uint32_t c;
  strip(0x00E9, 'e');       /* é */
  strip(0x00C9, 'E');
  strip(0x00F1, 'n');       /* ñ */
  strip(0x00C5, 'A');       /* Å */
  strip(0x00E5, 'a');
  strip(0x00E1, 'a');       /* MongoDB's codepoints_test cases */
  strip(0x00EA, 'e');
  strip(0x00E7, 'c');
  strip(0x01D6, 'u');       /* ǖ, two diacritics */
  strip(0x01D5, 'U');
  strip(0x1EC7, 'e');       /* ệ */
  strip(0x0130, 'I');       /* İ */
  strip(0x01E2, 0x00C6);    /* Ǣ: Æ */
  strip(0x0419, 0x0418);    /* Й */
  strip(0x0401, 0x0415);    /* Ё */
  strip(0x03AC, 0x03B1);    /* ά */
  strip(0x0390, 0x03B9);    /* ΐ */
  strip(0x1F7D, 0x03C9);    /* ώ */
  strip(0x212B, 'A');       /* Angstrom sign */
  strip(0x2126, 0x03A9);    /* ohm sign, a singleton decomposition */
  strip(0x037E, ';');       /* Greek question mark */
  strip(0x1E9B, 0x017F);    /* ẛ */
  strip(0x00F8, 0x00F8);    /* ø, ł, đ have no decomposition */
  strip(0x0142, 0x0142);
  strip(0x0111, 0x0111);
  strip(0x00C6, 0x00C6);
  strip(0x00DF, 0x00DF);
  strip(0xF900, 0x8C48);    /* CJK compatibility ideographs */
  strip(0x2F800, 0x4E3D);
  strip(0xAC00, 0xAC00);    /* Hangul: NFD then NFC gives it back */
  strip(0xD7A3, 0xD7A3);
  strip(0x4E2D, 0x4E2D);
  strip(0x3042, 0x3042);
  strip(0x304C, 0x304B);    /* が: the voiced sound mark is a diacritic */

  strip(0x0301, 0);         /* combining marks and other diacritics */
  strip(0x0300, 0);
  strip(0x0308, 0);
  strip(0x0339, 0);
  strip(0x1AB4, 0);
  strip(0x1DC5, 0);
  strip(0xA69D, 0);
  strip(0x064E, 0);         /* Arabic fatha */
  strip(0x05B0, 0);         /* Hebrew sheva */
  strip(0x3099, 0);
  strip(0x00B4, 0);         /* ´ */
  strip(0x00A8, 0);         /* ¨ */
  strip('^', 0);
  strip('`', 0);
  strip('-', '-');          /* ... and some that are not */
  strip('.', '.');
  strip('\'', '\'');
  strip('*', '*');
  strip('m', 'm');
  strip(0, 0);
  strip(0x110000, 0x110000);

  /* MongoDB's invariants: a fixed point, never a diacritic as a result,
  ** and ASCII changes only at ^ and `. */
  for(c=0; c<=0x10FFFF; c++){
    uint32_t s = docextUnicodeStripDiacritics(c);
    if( docextUnicodeStripDiacritics(s)!=s ) check(0, "strip U+%04X not a fixed point", c);
    if( s>0x10FFFF ) check(0, "strip U+%04X: U+%04X", c, s);
    if( c<0x80 && s!=((c=='^' || c=='`') ? 0 : c) ) check(0, "strip U+%04X", c);
  }
}

/* z[0..n) decodes to want in nWant bytes. */
static void decode(const char *z, int n, uint32_t want, int nWant){
  uint32_t c = 0x12345678;
  int got = docextUtf8Decode((const unsigned char*)z, n, &c);
  check(got==nWant && c==want, "decode %02X..(%d): U+%04X in %d, want U+%04X in %d",
        (unsigned char)z[0], n, c, got, want, nWant);
}

/* z[0..n) is malformed: U+FFFD, one byte. */
static void malformed(const char *z, int n){
  decode(z, n, 0xFFFD, 1);
}

static void testUtf8(void){
  unsigned char a[4];
  uint32_t c;
  int n;

  decode("A", 1, 'A', 1);
  decode("\0", 1, 0, 1);
  decode("\x7F", 1, 0x7F, 1);
  decode("\xC2\x80", 2, 0x80, 2);
  decode("\xC3\xA9", 2, 0xE9, 2);
  decode("\xDF\xBF", 2, 0x7FF, 2);
  decode("\xE0\xA0\x80", 3, 0x800, 3);
  decode("\xE2\x82\xAC", 3, 0x20AC, 3);
  decode("\xED\x9F\xBF", 3, 0xD7FF, 3);
  decode("\xEE\x80\x80", 3, 0xE000, 3);
  decode("\xEF\xBB\xBF", 3, 0xFEFF, 3);
  decode("\xEF\xBF\xBF", 3, 0xFFFF, 3);
  decode("\xF0\x90\x80\x80", 4, 0x10000, 4);
  decode("\xF0\x9F\x98\x80", 4, 0x1F600, 4);
  decode("\xF4\x8F\xBF\xBF", 4, 0x10FFFF, 4);
  decode("\xC3\xA9xyz", 5, 0xE9, 2);          /* stops after one character */

  malformed("\x80", 1);                       /* stray continuation bytes */
  malformed("\xBF\x80", 2);
  malformed("\xC0\x80", 2);                   /* overlong */
  malformed("\xC1\xBF", 2);
  malformed("\xE0\x80\x80", 3);
  malformed("\xE0\x9F\xBF", 3);
  malformed("\xF0\x80\x80\x80", 4);
  malformed("\xF0\x8F\xBF\xBF", 4);
  malformed("\xED\xA0\x80", 3);               /* surrogates */
  malformed("\xED\xBF\xBF", 3);
  malformed("\xF4\x90\x80\x80", 4);           /* above U+10FFFF */
  malformed("\xF5\x80\x80\x80", 4);
  malformed("\xF7\xBF\xBF\xBF", 4);
  malformed("\xF8\x88\x80\x80\x80", 5);
  malformed("\xFE", 1);
  malformed("\xFF", 1);
  malformed("\xC3", 1);                       /* cut short by n */
  malformed("\xC3\xA9", 1);
  malformed("\xE2\x82\xAC", 2);
  malformed("\xF0\x9F\x98\x80", 3);
  malformed("\xC3" "A", 2);                   /* cut short by a non-continuation */
  malformed("\xE2\x82" "A", 3);
  malformed("\xE2" "A\x82", 3);
  malformed("\xF0\x9F\x98" "A", 4);
  malformed("\xC3\xC3\xA9", 3);

  /* A walk over a string, resynchronising after a bad byte. */
  {
    static const char z[] = "a\xC3\xA9\x80\xE2\x82\xAC\xF0\x9F\x98\x80\xE2\x82";
    static const uint32_t aWant[] = { 'a', 0xE9, 0xFFFD, 0x20AC, 0x1F600, 0xFFFD, 0xFFFD };
    int i = 0, k = 0, nz = (int)sizeof(z)-1;
    while( i<nz && k<DOCEXT_COUNT(aWant) ){
      i += docextUtf8Decode((const unsigned char*)z+i, nz-i, &c);
      check(c==aWant[k], "walk: character %d is U+%04X, want U+%04X", k, c, aWant[k]);
      k++;
    }
    check(i==nz && k==DOCEXT_COUNT(aWant), "walk: %d characters in %d bytes", k, i);
  }

  /* Encoding: exact bytes at the boundaries, U+FFFD beyond U+10FFFF. */
  n = docextUtf8Encode(0x7F, a);
  check(n==1 && a[0]==0x7F, "encode U+007F");
  n = docextUtf8Encode(0x80, a);
  check(n==2 && a[0]==0xC2 && a[1]==0x80, "encode U+0080");
  n = docextUtf8Encode(0x20AC, a);
  check(n==3 && a[0]==0xE2 && a[1]==0x82 && a[2]==0xAC, "encode U+20AC");
  n = docextUtf8Encode(0x1F600, a);
  check(n==4 && a[0]==0xF0 && a[1]==0x9F && a[2]==0x98 && a[3]==0x80, "encode U+1F600");
  n = docextUtf8Encode(0x110000, a);
  check(n==3 && a[0]==0xEF && a[1]==0xBF && a[2]==0xBD, "encode U+110000 as U+FFFD");

  /* Every code point but the surrogates survives the round trip, in the
  ** shortest form. */
  for(c=0; c<=0x10FFFF; c++){
    uint32_t d = 0;
    int nWant = c<0x80 ? 1 : c<0x800 ? 2 : c<0x10000 ? 3 : 4;
    if( c>=0xD800 && c<=0xDFFF ) continue;
    n = docextUtf8Encode(c, a);
    if( n!=nWant || docextUtf8Decode(a, n, &d)!=n || d!=c ){
      check(0, "round trip of U+%04X", c);
    }
  }
  check(1, "round trips");
}

int main(void){
  testDelimiters();
  testFold();
  testStrip();
  testUtf8();
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
