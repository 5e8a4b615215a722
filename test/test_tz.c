/*
** test_tz.c — unit tests for ext/docext_tz.c: zone files read through
** TZDIR, built here byte by byte, so that the tests do not depend on the
** machine's tzdata: offsets before, between and after the transitions
** (the footer's rule, both hemispheres), and every kind of damaged file
** and hostile name refused with SQLITE_ERROR, never read past its end.
** Finishes with "N passed, M failed".
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testdb.h"

static char zDir[64];

/* A TZif file under construction. */
typedef struct File File;
struct File {
  u8 a[4096];
  int n;
};

static void put8(File *f, int v){ f->a[f->n++] = (u8)v; }
static void put32(File *f, uint32_t v){
  put8(f, (int)(v>>24)); put8(f, (int)(v>>16)); put8(f, (int)(v>>8)); put8(f, (int)v);
}
static void put64(File *f, i64 v){ put32(f, (uint32_t)((u64)v>>32)); put32(f, (uint32_t)v); }
static void putStr(File *f, const char *z){ while( *z ) put8(f, *z++); }

/* Counts of one header: isut, isstd, leap, time, type, char. */
static void header(File *f, int version, int nLeap, int nTime, int nType, int nChar){
  putStr(f, "TZif");
  put8(f, version);
  for(int i=0; i<15; i++) put8(f, 0);
  put32(f, 0); put32(f, 0); put32(f, (uint32_t)nLeap);
  put32(f, (uint32_t)nTime); put32(f, (uint32_t)nType); put32(f, (uint32_t)nChar);
}

/* A version 2 zone: nTime transitions at aT to types aIdx, types aOff
** (isdst 0), an empty version 1 block, and the footer zFooter (NULL: none). */
static void zoneFile(File *f, int nTime, const i64 *aT, const u8 *aIdx, int nType,
                     const int *aOff, const char *zFooter, int nLeap){
  f->n = 0;
  header(f, '2', 0, 0, 1, 1);                   /* version 1 block: one type */
  put32(f, 0); put8(f, 0); put8(f, 0); put8(f, 0);
  header(f, '2', nLeap, nTime, nType, 4);
  for(int i=0; i<nTime; i++) put64(f, aT[i]);
  for(int i=0; i<nTime; i++) put8(f, aIdx[i]);
  for(int i=0; i<nType; i++){ put32(f, (uint32_t)aOff[i]); put8(f, 0); put8(f, 0); }
  putStr(f, "LMT"); put8(f, 0);
  for(int i=0; i<nLeap; i++){ put64(f, 78796800); put32(f, 1); }
  if( zFooter ){ put8(f, '\n'); putStr(f, zFooter); put8(f, '\n'); }
}

static void writeZone(const char *zName, const u8 *a, int n){
  char zPath[256];
  FILE *fp;
  snprintf(zPath, sizeof(zPath), "%s/%s", zDir, zName);
  fp = fopen(zPath, "wb");
  if( fp==0 ){ perror(zPath); exit(1); }
  if( n>0 ) fwrite(a, 1, (size_t)n, fp);
  fclose(fp);
}

/* Find zone zName; its rc, and *ppTz. */
static int find(const char *zName, const DocTz **ppTz){
  char *zWhy = 0;
  int rc = docextTzFind(zName, (int)strlen(zName), ppTz, &zWhy);
  sqlite3_free(zWhy);
  return rc;
}

static void checkOffset(const DocTz *p, i64 t, int want, const char *zWhat){
  char z[160];
  int got = docextTzOffset(p, t);
  snprintf(z, sizeof(z), "at %lld: %d, want %d", (long long)t, got, want);
  check(got==want, zWhat, z);
}

static void checkRefused(const char *zName, const char *zWhat){
  const DocTz *p = 0;
  int rc = find(zName, &p);
  check(rc==SQLITE_ERROR && p==0, zWhat, zName);
}

/* Write f as zone zName, which must be refused. */
static void checkFileRefused(const char *zName, const File *f, const char *zWhat){
  writeZone(zName, f->a, f->n);
  checkRefused(zName, zWhat);
}

/* 2022-03-13T07:00Z and 2022-11-06T06:00Z: New York's changes that year. */
#define SPRING 1647154800LL
#define AUTUMN 1667714400LL

static void testOffsets(void){
  static const i64 aT[] = {-2717650800LL, SPRING, AUTUMN};
  static const u8 aIdx[] = {1, 2, 1};
  static const int aOff[] = {-17762, -18000, -14400};
  File f;
  const DocTz *p = 0;
  zoneFile(&f, 3, aT, aIdx, 3, aOff, "EST5EDT,M3.2.0,M11.1.0", 0);
  writeZone("NY", f.a, f.n);
  check(find("NY", &p)==SQLITE_OK && p!=0, "a valid zone is read", "NY");
  if( p==0 ) return;
  checkOffset(p, -3000000000LL, -17762, "before the first transition: type 0");
  checkOffset(p, SPRING-1, -18000, "before the spring change");
  checkOffset(p, SPRING, -14400, "at the spring change");
  checkOffset(p, AUTUMN-1, -14400, "before the autumn change");
  checkOffset(p, AUTUMN, -18000, "after the last transition: the rule");
  /* 2030: DST from March 10 07:00Z to November 3 06:00Z, by the rule */
  checkOffset(p, 1899356400LL-1, -18000, "rule: before the 2030 spring change");
  checkOffset(p, 1899356400LL, -14400, "rule: the 2030 spring change");
  checkOffset(p, 1919916000LL-1, -14400, "rule: before the 2030 autumn change");
  checkOffset(p, 1919916000LL, -18000, "rule: the 2030 autumn change");
  checkOffset(p, (i64)1e15, docextTzOffset(p, (i64)1e15), "a far date gives an offset");
  {
    const DocTz *p2 = 0;
    check(find("NY", &p2)==SQLITE_OK && p2==p, "a zone is read once", "NY");
  }
}

/* A southern zone from its rule alone (no transitions): daylight time from
** the first Sunday of October to the first Sunday of April, 03:00. */
static void testSouthern(void){
  static const int aOff[] = {36000};
  File f;
  const DocTz *p = 0;
  zoneFile(&f, 0, 0, 0, 1, aOff, "AEST-10AEDT,M10.1.0,M4.1.0/3", 0);
  writeZone("Syd", f.a, f.n);
  check(find("Syd", &p)==SQLITE_OK && p!=0, "a zone of a rule alone", "Syd");
  if( p==0 ) return;
  /* 2024-04-07 03:00 AEDT = 2024-04-06T16:00Z; 2024-10-06 02:00 AEST = 2024-10-05T16:00Z */
  checkOffset(p, 1712419200LL-1, 39600, "southern: summer, before April");
  checkOffset(p, 1712419200LL, 36000, "southern: winter from April");
  checkOffset(p, 1728144000LL-1, 36000, "southern: before October");
  checkOffset(p, 1728144000LL, 39600, "southern: summer from October");
  /* Jn and n dates, and a <+03>-style name without daylight time */
  zoneFile(&f, 0, 0, 0, 1, aOff, "<+03>-3", 0);
  writeZone("Plus3", f.a, f.n);
  check(find("Plus3", &p)==SQLITE_OK && p && docextTzOffset(p, 0)==10800,
        "a quoted name, standard time only", "<+03>-3");
  zoneFile(&f, 0, 0, 0, 1, aOff, "XST5XDT,J60/0,300/0", 0);
  writeZone("Julian", f.a, f.n);
  if( find("Julian", &p)==SQLITE_OK && p ){
    /* 2023: J60 is March 1; day 300 (from 0) is October 28 */
    checkOffset(p, 1677646800LL-1, -18000, "J60: before March 1");
    checkOffset(p, 1677646800LL, -14400, "J60: March 1, 05:00Z");
    checkOffset(p, 1698465600LL-1, -14400, "day 300: before");
    checkOffset(p, 1698465600LL, -18000, "day 300: October 28 04:00Z");
  }else{
    check(0, "a rule of Jn and n dates", "XST5XDT,J60/0,300/0");
  }
}

static void testDamaged(void){
  static const i64 aT[] = {100, 200};
  static const i64 aTBack[] = {200, 100};
  static const u8 aIdx[] = {0, 1};
  static const u8 aIdxBad[] = {0, 2};
  static const int aOff[] = {3600, 7200};
  static const int aOffBad[] = {3600, 100000};
  static const char *azFooter[] = {
    "EST", "EST5EDT", "EST5EDT,M3.2.0", "EST5EDT,M13.2.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0",
    "EST5EDT,M3.2.7,M11.1.0", "EST5EDT,J0,J365", "EST5EDT,366,1", "EST99", "<+3>-3",
    "EST5EDT,M3.2.0/168,M11.1.0", "EST5 EDT", "ES5",
  };
  File f, g;
  char zName[64];
  const DocTz *p;
  int i, n;

  /* every prefix of a valid file is refused */
  zoneFile(&f, 2, aT, aIdx, 2, aOff, "CET-1", 0);
  for(n=0; n<f.n; n++){
    snprintf(zName, sizeof(zName), "cut%d", n);
    writeZone(zName, f.a, n);
    p = 0;
    if( find(zName, &p)!=SQLITE_ERROR ){
      check(0, "a truncated file is refused", zName);
      break;
    }
  }
  check(n==f.n, "every truncation refused", "");
  writeZone("whole", f.a, f.n);
  check(find("whole", &p)==SQLITE_OK, "the whole file is read", "whole");

  zoneFile(&g, 2, aTBack, aIdx, 2, aOff, "CET-1", 0);
  checkFileRefused("backward", &g, "transitions out of order");
  zoneFile(&g, 2, aT, aIdxBad, 2, aOff, "CET-1", 0);
  checkFileRefused("badidx", &g, "a type index past the types");
  zoneFile(&g, 2, aT, aIdx, 2, aOffBad, "CET-1", 0);
  checkFileRefused("badoff", &g, "an offset beyond RFC 8536's range");
  zoneFile(&g, 2, aT, aIdx, 2, aOff, "CET-1", 1);
  checkFileRefused("leap", &g, "leap seconds");
  zoneFile(&g, 2, aT, aIdx, 2, aOff, 0, 0);
  checkFileRefused("nofooter", &g, "a version 2 file without its footer");
  for(i=0; i<(int)(sizeof(azFooter)/sizeof(azFooter[0])); i++){
    snprintf(zName, sizeof(zName), "footer%d", i);
    zoneFile(&g, 2, aT, aIdx, 2, aOff, azFooter[i], 0);
    checkFileRefused(zName, &g, azFooter[i]);
  }
  /* an empty footer: the last transition's type holds after it */
  zoneFile(&g, 2, aT, aIdx, 2, aOff, "", 0);
  writeZone("emptyfooter", g.a, g.n);
  check(find("emptyfooter", &p)==SQLITE_OK && p && docextTzOffset(p, 1000)==7200,
        "an empty footer", "");
  /* counts far larger than the file */
  g.n = 0;
  header(&g, '2', 0, 0x7fffffff, 1, 1);
  writeZone("huge", g.a, g.n);
  checkRefused("huge", "huge counts");
  memcpy(g.a, "TZjf", 4);
  writeZone("magic", g.a, 44);
  checkRefused("magic", "not TZif");
  writeZone("empty", g.a, 0);
  checkRefused("empty", "an empty file");
  mkdir(strcat(strcpy(zName, zDir), "/Sub"), 0700);
  checkRefused("Sub", "a directory");
  checkRefused("nosuchzone", "no such file");
}

static void testNames(void){
  char zLong[300];
  checkRefused("", "an empty name");
  checkRefused("/etc/passwd", "an absolute path");
  checkRefused("../whole", "a parent directory");
  checkRefused("Sub/../whole", "a parent directory inside");
  checkRefused("Sub//whole", "an empty component");
  checkRefused(".whole", "a hidden name");
  checkRefused("whole/", "a trailing slash");
  checkRefused("who le", "a space");
  memset(zLong, 'a', sizeof(zLong)-1);
  zLong[sizeof(zLong)-1] = 0;
  checkRefused(zLong, "a name past 255 bytes");
}

int main(void){
  char zCmd[128];
  strcpy(zDir, "/tmp/docext-tz-XXXXXX");
  if( mkdtemp(zDir)==0 ){ perror("mkdtemp"); return 1; }
  setenv("TZDIR", zDir, 1);
  testOffsets();
  testSouthern();
  testDamaged();
  testNames();
  snprintf(zCmd, sizeof(zCmd), "rm -rf '%s'", zDir);
  if( system(zCmd)!=0 ) printf("note: could not remove %s\n", zDir);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
