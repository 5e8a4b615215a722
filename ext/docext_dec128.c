/*
** docext_dec128.c — IEEE 754-2008 decimal128, BID encoding, as BSON
** stores it (type 0x13) and as the BSON Decimal128 spec converts it to and
** from strings.
**
** Layout: 16 bytes, little-endian. Call the upper 64 bits "hi":
**
**   bit  127         sign
**   bits 126..122    11111 -> NaN (bit 121 set: signalling; payload ignored)
**                    11110 -> Infinity
**   bits 126..125    11    -> "large coefficient" form: exponent in bits
**                             124..111, coefficient 0b100 followed by bits
**                             110..0. That is >= 2^113 > 10^34-1, so these
**                             encodings are non-canonical and read as 0.
**   otherwise              exponent in bits 126..113, coefficient in 112..0;
**                             a coefficient above 10^34-1 also reads as 0.
**
** The exponent is stored biased by 6176, so it ranges over -6176..6111, and
** the value is coefficient x 10^exponent. Values are never normalised:
** "2.00" is 200 x 10^-2 and prints back as "2.00".
**
** Strings that would need inexact rounding, or whose exponent cannot be
** reached even by clamping, are rejected rather than rounded (the spec's
** Overflow, Underflow and Inexact rules).
*/
#include "docextInt.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__extension__ typedef unsigned __int128 u128;

#define DEC_DIGITS   34       /* digits of precision */
#define DEC_EXP_MIN  (-6176)  /* smallest exponent */
#define DEC_EXP_MAX  6111     /* largest exponent */
#define DEC_BIAS     6176     /* stored exponent = exponent + DEC_BIAS */

#define DEC_HI_SIGN  0x8000000000000000ULL
#define DEC_HI_INF   0x7800000000000000ULL
#define DEC_HI_NAN   0x7C00000000000000ULL

/* 10^34, the first coefficient too large to be canonical. */
#define DEC_COEFF_END (((u128)0x1ED09BEAD87C0ULL << 64) | 0x378D8E6400000000ULL)

/* Exponents in strings saturate here; far beyond anything representable,
** far below i64 overflow even after adding a 2^31-digit string's offsets. */
#define DEC_EXP_SAT  1000000000000000LL

static u128 decPow10(int n){
  u128 r = 1;
  while( n-- > 0 ) r *= 10;
  return r;
}

static void decPut(u8 *aOut, u64 hi, u64 lo){
  int i;
  for(i=0; i<8; i++){
    aOut[i] = (u8)(lo >> (8*i));
    aOut[8+i] = (u8)(hi >> (8*i));
  }
}

/* Store a finite value. The caller guarantees iExp is in range and
** coefficient < 10^34. */
static void decPackFinite(u8 *aOut, int bNeg, int iExp, u128 coeff){
  u64 hi = (u64)(coeff >> 64);
  hi |= (u64)(iExp + DEC_BIAS) << 49;
  if( bNeg ) hi |= DEC_HI_SIGN;
  decPut(aOut, hi, (u64)coeff);
}

static void decPackSpecial(u8 *aOut, int bNeg, u64 hi){
  decPut(aOut, bNeg ? (hi | DEC_HI_SIGN) : hi, 0);
}

/* Decode 16 bytes into sign, coefficient and exponent; returns
** DOCEXT_DEC_FINITE, DOCEXT_DEC_INF or DOCEXT_DEC_NAN. */
static int decUnpack(const u8 *a, int *pbNeg, u128 *pCoeff, int *piExp){
  u64 hi = 0, lo = 0;
  u128 coeff;
  int i;
  for(i=7; i>=0; i--){
    lo = (lo << 8) | a[i];
    hi = (hi << 8) | a[8+i];
  }
  *pbNeg = (hi & DEC_HI_SIGN)!=0;
  *pCoeff = 0;
  *piExp = 0;
  if( ((hi >> 58) & 0x1F)==0x1F ) return DOCEXT_DEC_NAN;
  if( ((hi >> 58) & 0x1F)==0x1E ) return DOCEXT_DEC_INF;
  if( ((hi >> 61) & 0x3)==0x3 ){
    *piExp = (int)((hi >> 47) & 0x3FFF) - DEC_BIAS;
    return DOCEXT_DEC_FINITE;
  }
  *piExp = (int)((hi >> 49) & 0x3FFF) - DEC_BIAS;
  coeff = ((u128)(hi & 0x1FFFFFFFFFFFFULL) << 64) | lo;
  if( coeff<DEC_COEFF_END ) *pCoeff = coeff;
  return DOCEXT_DEC_FINITE;
}

/* True if z[0..n) is zWord (lower case) in any ASCII case. */
static int decIsWord(const char *z, int n, const char *zWord){
  int i;
  for(i=0; i<n && zWord[i]; i++){
    char c = z[i];
    if( c>='A' && c<='Z' ) c += 'a' - 'A';
    if( c!=zWord[i] ) return 0;
  }
  return i==n && zWord[i]==0;
}

/*
** The grammar is the spec's: [sign] (digits['.'[digits]] | '.'digits)
** [('e'|'E') [sign] digits], or [sign] "inf" / "infinity" / "nan" in any
** case. Nothing else, not even white space, is allowed. A negative n means
** z is NUL-terminated. "-NaN" gives the canonical (positive) NaN: the sign
** of a NaN cannot survive the trip back to a string anyway, and one NaN
** encoding keeps equal values byte-equal.
**
** The written value is C x 10^E, with C all the digits and E the exponent
** less the number of digits after the point. When that cannot be stored
** as is, the closest exponent that keeps the value exact is used instead:
** trailing zeros of C are dropped (E grows) when C has too many digits or
** E is too small, and zeros are appended (E shrinks: "clamping") when E is
** too large. A zero takes any exponent, so it is simply clamped.
*/
int docextDec128FromString(const char *z, int n, u8 *aOut){
  int i = 0;
  int bNeg = 0;
  int bPoint = 0;
  i64 nDig = 0;        /* digits seen, leading zeros included */
  i64 nFrac = 0;       /* digits seen after the point */
  i64 iLast = -1;      /* index among the digits of the last non-zero one */
  int izFirst = -1;    /* offset in z of the first non-zero digit */
  int izLast = -1;     /* offset in z of the last non-zero digit */
  i64 iExp = 0;        /* the exponent as written */
  i64 e, e0, eLo, eHi;
  int nSig;
  u128 coeff = 0;

  if( n<0 ) n = (int)strlen(z);
  if( i<n && (z[i]=='+' || z[i]=='-') ){
    bNeg = z[i]=='-';
    i++;
  }
  if( decIsWord(&z[i], n-i, "inf") || decIsWord(&z[i], n-i, "infinity") ){
    decPackSpecial(aOut, bNeg, DEC_HI_INF);
    return SQLITE_OK;
  }
  if( decIsWord(&z[i], n-i, "nan") ){
    decPackSpecial(aOut, 0, DEC_HI_NAN);
    return SQLITE_OK;
  }

  for(; i<n; i++){
    char c = z[i];
    if( c>='0' && c<='9' ){
      if( c!='0' ){
        if( izFirst<0 ) izFirst = i;
        izLast = i;
        iLast = nDig;
      }
      nDig++;
      if( bPoint ) nFrac++;
    }else if( c=='.' && !bPoint ){
      bPoint = 1;
    }else{
      break;
    }
  }
  if( nDig==0 ) return SQLITE_ERROR;

  if( i<n && (z[i]=='e' || z[i]=='E') ){
    int bExpNeg = 0;
    int nExpDig = 0;
    i++;
    if( i<n && (z[i]=='+' || z[i]=='-') ){
      bExpNeg = z[i]=='-';
      i++;
    }
    for(; i<n && z[i]>='0' && z[i]<='9'; i++, nExpDig++){
      if( iExp<DEC_EXP_SAT ) iExp = iExp*10 + (z[i]-'0');
    }
    if( nExpDig==0 ) return SQLITE_ERROR;
    if( bExpNeg ) iExp = -iExp;
  }
  if( i!=n ) return SQLITE_ERROR;

  e = iExp - nFrac;
  if( izFirst<0 ){
    if( e<DEC_EXP_MIN ) e = DEC_EXP_MIN;
    if( e>DEC_EXP_MAX ) e = DEC_EXP_MAX;
    decPackFinite(aOut, bNeg, (int)e, 0);
    return SQLITE_OK;
  }

  /* C without its trailing zeros has nSig digits and exponent e0. Any
  ** exponent in [eLo, eHi] represents the value exactly; take the one
  ** nearest the written e. */
  for(nSig=0, i=izFirst; i<=izLast; i++){
    if( z[i]=='.' ) continue;
    if( ++nSig>DEC_DIGITS ) return SQLITE_ERROR;   /* would round */
    coeff = coeff*10 + (u128)(z[i]-'0');
  }
  e0 = e + (nDig - 1 - iLast);
  eLo = e0 + nSig - DEC_DIGITS;
  if( eLo<DEC_EXP_MIN ) eLo = DEC_EXP_MIN;
  eHi = e0<DEC_EXP_MAX ? e0 : DEC_EXP_MAX;
  if( eLo>eHi ) return SQLITE_ERROR;               /* overflow/underflow */
  if( e<eLo ) e = eLo;
  if( e>eHi ) e = eHi;
  coeff *= decPow10((int)(e0 - e));
  decPackFinite(aOut, bNeg, (int)e, coeff);
  return SQLITE_OK;
}

/* Write the decimal digits of coeff (< 10^38), no leading zeros,
** NUL-terminated; returns their number. The coefficient is split into
** 19-digit halves so that the digit loop divides 64-bit integers rather
** than calling the 128-bit division helper for every digit. */
static int decDigits(u128 coeff, char *zOut){
  const u64 p19 = 10000000000000000000ULL;
  char zTmp[40];
  int n = 0, i;
  u64 hi = (u64)(coeff / p19);
  u64 lo = (u64)(coeff % p19);
  if( hi>0 ){
    for(i=0; i<19; i++, lo /= 10) zTmp[n++] = (char)('0' + (int)(lo % 10));
    lo = hi;
  }
  do{
    zTmp[n++] = (char)('0' + (int)(lo % 10));
    lo /= 10;
  }while( lo>0 );
  for(i=0; i<n; i++) zOut[i] = zTmp[n-1-i];
  zOut[n] = 0;
  return n;
}

int docextDec128Parts(const u8 *a, int *pbNeg, char *zDigits, int *piExp){
  u128 coeff;
  int eType = decUnpack(a, pbNeg, &coeff, piExp);
  if( eType==DOCEXT_DEC_FINITE ){
    decDigits(coeff, zDigits);
  }else{
    zDigits[0] = 0;
  }
  return eType;
}

/*
** The spec's to-string rule: plain notation when the exponent is <= 0 and
** the adjusted exponent (that of the first digit) is >= -6, otherwise one
** digit, the rest after a point, and "E" with a signed adjusted exponent.
** The longest results ("-1.234...E-6176", "-0.00000123...") are 42 bytes.
*/
int docextDec128ToString(const u8 *a, char *zOut){
  char zDig[40];
  int bNeg, iExp, nDig, iAdj;
  char *p = zOut;
  int eType = docextDec128Parts(a, &bNeg, zDig, &iExp);

  if( eType==DOCEXT_DEC_NAN ){
    memcpy(zOut, "NaN", 4);
    return 3;
  }
  if( bNeg ) *p++ = '-';
  if( eType==DOCEXT_DEC_INF ){
    memcpy(p, "Infinity", 9);
    return (int)(p - zOut) + 8;
  }

  nDig = (int)strlen(zDig);
  iAdj = iExp + nDig - 1;
  if( iExp>0 || iAdj<-6 ){
    *p++ = zDig[0];
    if( nDig>1 ){
      *p++ = '.';
      memcpy(p, &zDig[1], nDig-1);
      p += nDig-1;
    }
    p += snprintf(p, 8, "E%+d", iAdj);
  }else if( iExp==0 ){
    memcpy(p, zDig, nDig);
    p += nDig;
  }else{
    int nInt = nDig + iExp;   /* digits before the point, may be <= 0 */
    if( nInt>0 ){
      memcpy(p, zDig, nInt);
      p += nInt;
      *p++ = '.';
      memcpy(p, &zDig[nInt], nDig-nInt);
      p += nDig-nInt;
    }else{
      *p++ = '0';
      *p++ = '.';
      memset(p, '0', -nInt);
      p += -nInt;
      memcpy(p, zDig, nDig);
      p += nDig;
    }
  }
  *p = 0;
  return (int)(p - zOut);
}

/*
** Correctly rounded. Small cases take Clinger's fast path: a coefficient
** below 2^53 and a power of ten up to 10^22 are both exact doubles, so one
** IEEE multiplication or division rounds once. Everything else goes to
** strtod() (correctly rounded in glibc) through a string without a decimal
** point, so the locale cannot interfere.
*/
double docextDec128ToDouble(const u8 *a){
  static const double aPow[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
  };
  int bNeg, iExp, eType, errnoSave;
  u128 coeff;
  double r;
  char zBuf[64];

  eType = decUnpack(a, &bNeg, &coeff, &iExp);
  if( eType==DOCEXT_DEC_NAN ) return NAN;
  if( eType==DOCEXT_DEC_INF ) return bNeg ? -HUGE_VAL : HUGE_VAL;
  if( coeff < ((u128)1 << 53) && iExp>=-22 && iExp<=22 ){
    r = (double)(u64)coeff;
    r = iExp<0 ? r / aPow[-iExp] : r * aPow[iExp];
    return bNeg ? -r : r;
  }
  zBuf[0] = '-';
  decDigits(coeff, &zBuf[1]);
  snprintf(&zBuf[strlen(zBuf)], 16, "E%d", iExp);
  errnoSave = errno;
  r = strtod(bNeg ? zBuf : &zBuf[1], 0);
  errno = errnoSave;
  return r;
}

void docextDec128FromInt64(i64 v, u8 *aOut){
  u64 m = v<0 ? (u64)0 - (u64)v : (u64)v;
  decPackFinite(aOut, v<0, 0, (u128)m);
}

/*
** The double's shortest decimal form that reads back as the same double:
** 15 significant digits suffice for every normal double whose shortest form
** has at most 15 (DBL_DIG); otherwise try 16, then 17, which always works.
** Subnormals have less precision, so for them start at 1 digit.
**
** The exponent follows the way the mongo shell (JavaScript's Number to
** string conversion) writes the double and NumberDecimal() then parses it:
** an integer below 10^21 is written out in full ("100", exponent 0), any
** other value as its significant digits ("1E+21", "0.1", "5E-324").
*/
void docextDec128FromDouble(double v, u8 *aOut){
  char zBuf[48];         /* "%.*e" output */
  char zDig[24];         /* its significant digits */
  char zTry[48];         /* digits + "E" + exponent, for the round-trip test */
  int nDig = 0, iExp10 = 0, iExp, nPrec, i, errnoSave;
  u128 coeff = 0;

  if( isnan(v) ){
    decPackSpecial(aOut, 0, DEC_HI_NAN);
    return;
  }
  if( isinf(v) ){
    decPackSpecial(aOut, v<0, DEC_HI_INF);
    return;
  }
  if( v==0.0 ){
    decPackFinite(aOut, signbit(v)!=0, 0, 0);
    return;
  }

  errnoSave = errno;
  for(nPrec = fabs(v)<DBL_MIN ? 1 : 15; nPrec<=17; nPrec++){
    char *zE;
    snprintf(zBuf, sizeof(zBuf), "%.*e", nPrec-1, fabs(v));
    zE = strchr(zBuf, 'e');
    if( zE==0 ) break;                   /* cannot happen for finite v */
    for(nDig=0, i=0; &zBuf[i]<zE; i++){
      /* skip the point, whatever character the locale makes it */
      if( zBuf[i]>='0' && zBuf[i]<='9' ) zDig[nDig++] = zBuf[i];
    }
    zDig[nDig] = 0;
    iExp10 = atoi(zE+1);
    snprintf(zTry, sizeof(zTry), "%sE%d", zDig, iExp10 - (nDig-1));
    if( strtod(zTry, 0)==fabs(v) ) break;
  }
  errno = errnoSave;
  while( nDig>1 && zDig[nDig-1]=='0' ) nDig--;
  for(i=0; i<nDig; i++) coeff = coeff*10 + (u128)(zDig[i]-'0');

  iExp = iExp10 - (nDig-1);
  if( iExp>0 && iExp10<21 ){
    coeff *= decPow10(iExp);
    iExp = 0;
  }
  decPackFinite(aOut, v<0, iExp, coeff);
}

/*------------------------------------------------------------------------
** Decimal128 arithmetic ($inc, $mul, $expr): exact on digit strings, then
** rounded once to 34 digits, half to even, as IEEE 754-2008 (and MongoDB,
** through the Intel library) does.
*/

/* The results that need no digits: NaN, and an infinity of a sign. */
static void numDecNaN(u8 *aOut){
  decPackSpecial(aOut, 0, DEC_HI_NAN);
}
static void numDecInf(int bNeg, u8 *aOut){
  decPackSpecial(aOut, bNeg, DEC_HI_INF);
}

/* Round and pack (-1)^bNeg x aDig[0..nDig) x 10^iExp, where aDig holds
** digit values (0..9), most significant first, and can be written. */
static int numDecRound(int bNeg, u8 *aDig, int nDig, i64 iExp, u8 *aOut){
  char zBuf[96];
  int n = 0, i, nKeep;
  i64 drop = 0;
  while( nDig>1 && aDig[0]==0 ){ aDig++; nDig--; }
  if( nDig==1 && aDig[0]==0 ) nDig = 0;
  if( nDig>DEC_DIGITS ) drop = nDig - DEC_DIGITS;
  if( nDig>0 && iExp+drop<DEC_EXP_MIN ) drop = DEC_EXP_MIN - iExp;
  if( drop>0 ){
    int bUp = 0;
    if( drop>nDig ){
      nKeep = 0;                       /* below half a unit: rounds to 0 */
    }else{
      int first, bSticky = 0;
      nKeep = nDig - (int)drop;
      first = aDig[nKeep];
      for(i=nKeep+1; i<nDig && !bSticky; i++) bSticky = aDig[i]!=0;
      if( first>5 || (first==5 && bSticky) ) bUp = 1;
      else if( first==5 ) bUp = nKeep>0 ? (aDig[nKeep-1] & 1) : 0;
    }
    iExp += drop;
    if( bUp ){
      i = nKeep-1;
      while( i>=0 && aDig[i]==9 ){ aDig[i] = 0; i--; }
      if( i>=0 ){
        aDig[i]++;
      }else{
        /* 99...9 + 1: 1 followed by nKeep zeros (the room is there, since
        ** at least one digit was dropped) */
        aDig[0] = 1;
        for(i=1; i<=nKeep; i++) aDig[i] = 0;
        nKeep++;
        if( nKeep>DEC_DIGITS ){ nKeep--; iExp++; }
      }
    }
    nDig = nKeep;
    while( nDig>1 && aDig[0]==0 ){ aDig++; nDig--; }
    if( nDig==1 && aDig[0]==0 ) nDig = 0;
  }
  if( bNeg ) zBuf[n++] = '-';
  if( nDig==0 ){
    if( iExp<DEC_EXP_MIN ) iExp = DEC_EXP_MIN;
    if( iExp>DEC_EXP_MAX ) iExp = DEC_EXP_MAX;
    zBuf[n++] = '0';
  }else{
    int nPad = 0;
    if( iExp>DEC_EXP_MAX ){
      if( nDig + (iExp-DEC_EXP_MAX) > DEC_DIGITS ){
        numDecInf(bNeg, aOut);
        return SQLITE_OK;
      }
      nPad = (int)(iExp - DEC_EXP_MAX);
      iExp = DEC_EXP_MAX;
    }
    for(i=0; i<nDig; i++) zBuf[n++] = (char)('0' + aDig[i]);
    for(i=0; i<nPad; i++) zBuf[n++] = '0';
  }
  n += snprintf(&zBuf[n], sizeof(zBuf)-n, "E%lld", (long long)iExp);
  return docextDec128FromString(zBuf, n, aOut);
}

/* Digits of a finite decimal as values 0..9. */
static int numDecDigits(const u8 *a, int *pbNeg, u8 *aDig, int *piExp, int *peKind){
  char z[48];
  int n, i;
  *peKind = docextDec128Parts(a, pbNeg, z, piExp);
  n = (int)strlen(z);
  for(i=0; i<n; i++) aDig[i] = (u8)(z[i]-'0');
  return n;
}

int docextDec128Add(const u8 *a, const u8 *b, u8 *aOut){
  u8 dA[40], dB[40];
  int bNegA, bNegB, eA, eB, kA, kB, nA, nB, rc;
  i64 e, lenA, lenB, len, i;
  u8 *x;
  nA = numDecDigits(a, &bNegA, dA, &eA, &kA);
  nB = numDecDigits(b, &bNegB, dB, &eB, &kB);
  if( kA==DOCEXT_DEC_NAN || kB==DOCEXT_DEC_NAN ){ numDecNaN(aOut); return SQLITE_OK; }
  if( kA==DOCEXT_DEC_INF || kB==DOCEXT_DEC_INF ){
    if( kA==DOCEXT_DEC_INF && kB==DOCEXT_DEC_INF && bNegA!=bNegB ){
      numDecNaN(aOut);
    }else{
      numDecInf(kA==DOCEXT_DEC_INF ? bNegA : bNegB, aOut);
    }
    return SQLITE_OK;
  }
  /* Align on the smaller exponent: at most 34 + 12287 digits. */
  e = eA<eB ? eA : eB;
  lenA = nA + (eA - e);
  lenB = nB + (eB - e);
  len = (lenA>lenB ? lenA : lenB) + 1;
  x = docextMallocZero(len*3);
  if( x==0 ) return SQLITE_NOMEM;
  {
    u8 *X = x, *Y = x+len, *R = x+2*len;
    int bNeg;
    memcpy(&X[len-lenA], dA, nA);
    memcpy(&Y[len-lenB], dB, nB);
    if( bNegA==bNegB ){
      int carry = 0;
      for(i=len-1; i>=0; i--){
        int s = X[i] + Y[i] + carry;
        R[i] = (u8)(s%10);
        carry = s/10;
      }
      bNeg = bNegA;
    }else{
      int c = memcmp(X, Y, len), borrow = 0;
      u8 *P = c>=0 ? X : Y, *Q = c>=0 ? Y : X;
      for(i=len-1; i>=0; i--){
        int s = P[i] - Q[i] - borrow;
        borrow = s<0;
        R[i] = (u8)(s<0 ? s+10 : s);
      }
      bNeg = c==0 ? 0 : (c>0 ? bNegA : bNegB);
    }
    rc = numDecRound(bNeg, R, (int)len, e, aOut);
  }
  sqlite3_free(x);
  return rc;
}

int docextDec128Mul(const u8 *a, const u8 *b, u8 *aOut){
  u8 dA[40], dB[40], R[80];
  int acc[80];
  int bNegA, bNegB, eA, eB, kA, kB, nA, nB, i, j;
  nA = numDecDigits(a, &bNegA, dA, &eA, &kA);
  nB = numDecDigits(b, &bNegB, dB, &eB, &kB);
  if( kA==DOCEXT_DEC_NAN || kB==DOCEXT_DEC_NAN ){ numDecNaN(aOut); return SQLITE_OK; }
  if( kA==DOCEXT_DEC_INF || kB==DOCEXT_DEC_INF ){
    int bZero = (kA==DOCEXT_DEC_FINITE && nA==1 && dA[0]==0)
             || (kB==DOCEXT_DEC_FINITE && nB==1 && dB[0]==0);
    if( bZero ) numDecNaN(aOut);
    else numDecInf(bNegA!=bNegB, aOut);
    return SQLITE_OK;
  }
  memset(acc, 0, sizeof(acc));
  for(i=0; i<nA; i++){
    for(j=0; j<nB; j++) acc[i+j+1] += dA[i]*dB[j];
  }
  for(i=nA+nB-1; i>0; i--){
    acc[i-1] += acc[i]/10;
    acc[i] %= 10;
  }
  for(i=0; i<nA+nB; i++) R[i] = (u8)acc[i];
  return numDecRound(bNegA!=bNegB, R, nA+nB, (i64)eA+eB, aOut);
}

int docextDec128IsZero(const u8 *a){
  char z[48];
  int bNeg, iExp;
  return docextDec128Parts(a, &bNeg, z, &iExp)==DOCEXT_DEC_FINITE && z[0]=='0';
}

/* a/b: long division of the coefficients, one digit at a time with a
** remainder below b's coefficient (< 10^34, so remainder*10 + 9 fits a
** u128), to 36 significant digits and a sticky digit for whatever remains;
** then one rounding. An exact quotient keeps the exponent nearest to a's
** minus b's (IEEE's preferred exponent: 6/2 is 3, 1.0/4 is 0.25). */
int docextDec128Div(const u8 *a, const u8 *b, u8 *aOut){
  u8 dA[40], dB[40], Q[128];
  int bNegA, bNegB, eA, eB, kA, kB, nA, nB, nQ = 0, i, nLead = 0;
  i64 e;
  u128 cB = 0, r = 0;
  nA = numDecDigits(a, &bNegA, dA, &eA, &kA);
  nB = numDecDigits(b, &bNegB, dB, &eB, &kB);
  if( kA==DOCEXT_DEC_NAN || kB==DOCEXT_DEC_NAN ){ numDecNaN(aOut); return SQLITE_OK; }
  if( kA==DOCEXT_DEC_INF ){
    if( kB==DOCEXT_DEC_INF ) numDecNaN(aOut);
    else numDecInf(bNegA!=bNegB, aOut);
    return SQLITE_OK;
  }
  if( kB==DOCEXT_DEC_INF ){
    decPackFinite(aOut, bNegA!=bNegB, DEC_EXP_MIN, 0);
    return SQLITE_OK;
  }
  if( nB==1 && dB[0]==0 ){
    if( nA==1 && dA[0]==0 ) numDecNaN(aOut);
    else numDecInf(bNegA!=bNegB, aOut);
    return SQLITE_OK;
  }
  for(i=0; i<nB; i++) cB = cB*10 + dB[i];
  e = (i64)eA - eB;
  /* Every digit of a, then zeros until the quotient has 36 significant
  ** digits or nothing remains. */
  for(i=0; i<nA || nLead<36; i++){
    u8 q;
    if( i>=nA ){
      if( r==0 ) break;                       /* exact */
      e--;
    }
    r = r*10 + (i<nA ? dA[i] : 0);
    q = (u8)(r / cB);
    r %= cB;
    if( q || nLead ) nLead++;
    Q[nQ++] = q;
  }
  if( r!=0 ){
    Q[nQ++] = 1;                              /* sticky: more, below */
    e--;
  }
  return numDecRound(bNegA!=bNegB, Q, nQ, e, aOut);
}

/* A double as MongoDB's Decimal128(double) makes it: rounded to 15
** significant digits, trailing zeros kept (0.1 -> 0.100000000000000). */
static void numDecFromDouble15(double d, u8 *aOut){
  char zBuf[48], zNum[64];
  char *zE;
  int n = 0, i;
  if( isnan(d) ){ numDecNaN(aOut); return; }
  if( isinf(d) ){ numDecInf(d<0, aOut); return; }
  if( d==0.0 ){ decPackFinite(aOut, signbit(d)!=0, 0, 0); return; }
  snprintf(zBuf, sizeof(zBuf), "%.14e", fabs(d));
  zE = strchr(zBuf, 'e');
  if( d<0 ) zNum[n++] = '-';
  for(i=0; &zBuf[i]<zE; i++){
    if( zBuf[i]>='0' && zBuf[i]<='9' ) zNum[n++] = zBuf[i];
  }
  n += snprintf(&zNum[n], sizeof(zNum)-n, "E%d", atoi(zE+1) - 14);
  docextDec128FromString(zNum, n, aOut);
}

/*------------------------------------------------------------------------
** BSON numbers in arithmetic
*/

void docextNumFrom(const DocValue *v, DocNum *p){
  p->type = v->type;
  switch( v->type ){
    case DOC_INT32:      p->i = docextValueI32(v); break;
    case DOC_INT64:      p->i = docextValueI64(v); break;
    case DOC_DOUBLE:     p->d = docextValueDouble(v); break;
    case DOC_DECIMAL128: memcpy(p->aDec, v->p, 16); break;
  }
}

void docextNumToDec(const DocNum *p, u8 *aOut){
  switch( p->type ){
    case DOC_INT32: case DOC_INT64: docextDec128FromInt64(p->i, aOut); break;
    case DOC_DOUBLE:                numDecFromDouble15(p->d, aOut); break;
    default:                        memcpy(aOut, p->aDec, 16); break;
  }
}

/* a+b or a*b with MongoDB's type rules. SQLITE_RANGE on int64 overflow. */
int docextNumArith(int bMul, const DocNum *a, const DocNum *b, DocNum *r){
  if( a->type==DOC_DECIMAL128 || b->type==DOC_DECIMAL128 ){
    u8 x[16], y[16];
    docextNumToDec(a, x);
    docextNumToDec(b, y);
    r->type = DOC_DECIMAL128;
    return bMul ? docextDec128Mul(x, y, r->aDec) : docextDec128Add(x, y, r->aDec);
  }
  if( a->type==DOC_DOUBLE || b->type==DOC_DOUBLE ){
    double x = a->type==DOC_DOUBLE ? a->d : (double)a->i;
    double y = b->type==DOC_DOUBLE ? b->d : (double)b->i;
    r->type = DOC_DOUBLE;
    r->d = bMul ? x*y : x+y;
    return SQLITE_OK;
  }
  if( a->type==DOC_INT32 && b->type==DOC_INT32 ){
    i64 v = bMul ? a->i * b->i : a->i + b->i;
    r->type = (v>=-2147483647-1 && v<=2147483647) ? DOC_INT32 : DOC_INT64;
    r->i = v;
    return SQLITE_OK;
  }
  r->type = DOC_INT64;
  if( bMul ? __builtin_mul_overflow(a->i, b->i, &r->i)
           : __builtin_add_overflow(a->i, b->i, &r->i) ){
    return SQLITE_RANGE;
  }
  return SQLITE_OK;
}

double docextNumDouble(const DocNum *p){
  switch( p->type ){
    case DOC_DOUBLE:     return p->d;
    case DOC_DECIMAL128: return docextDec128ToDouble(p->aDec);
  }
  return (double)p->i;
}

int docextNumIsZero(const DocNum *p){
  switch( p->type ){
    case DOC_DOUBLE:     return p->d==0.0;
    case DOC_DECIMAL128: return docextDec128IsZero(p->aDec);
  }
  return p->i==0;
}

void docextNumNegate(DocNum *p){
  switch( p->type ){
    case DOC_INT32: case DOC_INT64:
      if( p->i==INT64_MIN ){
        p->type = DOC_DOUBLE;
        p->d = 9223372036854775808.0;
      }else{
        p->i = -p->i;
        if( p->type==DOC_INT32 && p->i>INT32_MAX ) p->type = DOC_INT64;
      }
      break;
    case DOC_DOUBLE:
      p->d = -p->d;
      break;
    default:
      p->aDec[15] ^= 0x80;                /* (the sign bit) */
      break;
  }
}

int docextNumOp(char op, const DocNum *a, const DocNum *b, DocNum *pR){
  DocNum y = *b, r;
  int rc = SQLITE_OK;
  memset(&r, 0, sizeof(r));
  if( op=='/' ){
    if( a->type==DOC_DECIMAL128 || y.type==DOC_DECIMAL128 ){
      u8 x[16], z[16];
      docextNumToDec(a, x);
      docextNumToDec(&y, z);
      r.type = DOC_DECIMAL128;
      rc = docextDec128Div(x, z, r.aDec);
    }else{
      r.type = DOC_DOUBLE;
      r.d = docextNumDouble(a) / docextNumDouble(&y);
    }
  }else{
    if( op=='-' ) docextNumNegate(&y);
    rc = docextNumArith(op=='*', a, &y, &r);
    if( rc==SQLITE_RANGE ){
      double x = docextNumDouble(a), z = docextNumDouble(&y);
      memset(&r, 0, sizeof(r));
      r.type = DOC_DOUBLE;
      r.d = op=='*' ? x*z : x+z;
      rc = SQLITE_OK;
    }
  }
  if( rc==SQLITE_OK ) *pR = r;
  return rc;
}

/*------------------------------------------------------------------------
** Sums as MongoDB's $sum and $avg accumulate them (DoubleDoubleSummation,
** src/mongo/util/summation.h): integers and doubles in an unevaluated sum
** of two doubles kept by the 2Sum and Fast2Sum formulas (exact for
** integers, about 106 bits for doubles, so 0.1 + 0.2 + 0.3 is 0.6), and
** decimal128 values in a sum of their own.
*/

void docextSumInit(DocSum *p){
  memset(p, 0, sizeof(*p));
  p->type = DOC_INT32;
}

static void sumAddDouble(DocSum *p, double x){
  double s, z, t, aPrime, bPrime;
  p->special += x;                  /* (a plain sum, for NaN and infinities) */
  s = x + p->addend;                /* Fast2Sum(x, addend) */
  z = s - x;
  t = p->addend - z;
  x = s;
  p->addend = t;
  s = p->sum + x;                   /* 2Sum(sum, x) */
  aPrime = s - x;
  bPrime = s - aPrime;
  t = (p->sum - aPrime) + (x - bPrime);
  p->sum = s;
  p->addend += t;
}

int docextSumAdd(DocSum *p, const DocNum *x){
  if( x->type==DOC_DECIMAL128 ){
    u8 a[16];
    int rc;
    p->type = DOC_DECIMAL128;
    if( !p->bDec ){
      memcpy(p->aDec, x->aDec, 16);
      p->bDec = 1;
      return SQLITE_OK;
    }
    rc = docextDec128Add(p->aDec, x->aDec, a);
    if( rc==SQLITE_OK ) memcpy(p->aDec, a, 16);
    return rc;
  }
  if( x->type==DOC_DOUBLE ){
    sumAddDouble(p, x->d);
    if( p->type!=DOC_DECIMAL128 ) p->type = DOC_DOUBLE;
  }else{
    /* (in two halves, each exact as a double) */
    i64 hi = x->i / ((i64)1 << 32) * ((i64)1 << 32);
    sumAddDouble(p, (double)(x->i - hi));
    sumAddDouble(p, (double)hi);
    if( x->type==DOC_INT64 && p->type==DOC_INT32 ) p->type = DOC_INT64;
  }
  return SQLITE_OK;
}

static double sumDouble(const DocSum *p){
  return isnan(p->sum) ? p->special : p->sum;
}

/* Does the sum round to an int64? Then *pi is it (halves away from 0). */
static int sumLong(const DocSum *p, i64 *pi){
  const double dMax = 9223372036854775808.0;      /* 2^63 */
  i64 i;
  if( p->sum > -dMax && p->sum < dMax ){
    i = llround(p->sum);
    return !__builtin_add_overflow(i, llround((p->sum - (double)i) + p->addend), pi);
  }
  if( p->sum==dMax && p->addend < -0.5 ){       /* (2^63 less a little) */
    *pi = llround(p->addend) - INT64_MIN;
    return 1;
  }
  if( p->sum==-dMax && p->addend > -0.5 ){      /* (-2^63 and a little) */
    *pi = INT64_MIN + llround(p->addend);
    return 1;
  }
  return 0;
}

/* A double as MongoDB's Decimal128(d, kRoundTo34Digits): its value to 34
** significant digits (exact ones as few as they need). */
static void decFromDouble34(double d, u8 *aOut){
  char zBuf[64];
  int n;
  if( isnan(d) ){ numDecNaN(aOut); return; }
  if( isinf(d) ){ numDecInf(d<0, aOut); return; }
  if( d==0.0 ){ decPackFinite(aOut, signbit(d)!=0, 0, 0); return; }
  n = snprintf(zBuf, sizeof(zBuf), "%.33e", d);
  {
    /* drop the mantissa's trailing zeros: "1.500…0e+00" is 1.5 */
    char *zE = strchr(zBuf, 'e'), *z = zE;
    while( z[-1]=='0' ) z--;
    if( z[-1]=='.' ) z--;
    memmove(z, zE, strlen(zE)+1);
    n = (int)strlen(zBuf);
  }
  if( docextDec128FromString(zBuf, n, aOut) ) docextDec128FromDouble(d, aOut);
}

int docextSumResult(const DocSum *p, DocNum *pOut){
  i64 i;
  memset(pOut, 0, sizeof(*pOut));
  switch( p->type ){
    case DOC_DECIMAL128: {
      u8 a[16], b[16];
      int rc;
      if( !isfinite(p->sum) ){
        decFromDouble34(p->special, a);
      }else{
        u8 c[16];
        decFromDouble34(p->sum, b);
        decFromDouble34(p->addend, c);
        rc = docextDec128Add(b, c, a);
        if( rc ) return rc;
      }
      pOut->type = DOC_DECIMAL128;
      if( !p->bDec ){
        memcpy(pOut->aDec, a, 16);
        return SQLITE_OK;
      }
      rc = docextDec128Add(p->aDec, a, b);
      memcpy(pOut->aDec, b, 16);
      return rc;
    }
    case DOC_INT32: case DOC_INT64:
      if( sumLong(p, &i) ){
        pOut->type = p->type==DOC_INT32 && i>=INT32_MIN && i<=INT32_MAX ? DOC_INT32 : DOC_INT64;
        pOut->i = i;
        return SQLITE_OK;
      }
      /* (past an int64, a double) */
      /* fall through */
    default:
      pOut->type = DOC_DOUBLE;
      pOut->d = sumDouble(p);
      return SQLITE_OK;
  }
}

int docextSumAvg(const DocSum *p, i64 n, DocNum *pOut){
  int rc;
  if( p->type!=DOC_DECIMAL128 ){
    memset(pOut, 0, sizeof(*pOut));
    pOut->type = DOC_DOUBLE;
    pOut->d = sumDouble(p) / (double)n;
    return SQLITE_OK;
  }
  rc = docextSumResult(p, pOut);
  if( rc==SQLITE_OK ){
    u8 aCount[16], a[16];
    docextDec128FromInt64(n, aCount);
    rc = docextDec128Div(pOut->aDec, aCount, a);
    memcpy(pOut->aDec, a, 16);
  }
  return rc;
}

void docextNumAppend(int *pRc, DocBuf *pOut, const char *zKey, int nKey, const DocNum *p){
  switch( p->type ){
    case DOC_INT32:  docextBsonAppendInt32(pRc, pOut, zKey, nKey, (int32_t)p->i); break;
    case DOC_INT64:  docextBsonAppendInt64(pRc, pOut, zKey, nKey, p->i); break;
    case DOC_DOUBLE: docextBsonAppendDouble(pRc, pOut, zKey, nKey, p->d); break;
    default:
      docextBsonAppendKey(pRc, pOut, DOC_DECIMAL128, zKey, nKey);
      docextBufAppend(pRc, pOut, p->aDec, 16);
      break;
  }
}
