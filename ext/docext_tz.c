/*
** docext_tz.c — time zones by name ("America/New_York") for the date
** expressions, read from the system's time zone database.
**
** docext carries no copy of the database: like mongod started with
** --timeZoneInfo, it reads the compiled zone files (TZif, RFC 8536) that
** Debian's tzdata package installs in /usr/share/zoneinfo, or in the
** directory the environment variable TZDIR names. A zone is read the first
** time a name is asked for and kept for the life of the process: zones are
** immutable, and there are only a few hundred names, each a few kilobytes.
**
** A file is untrusted input like any other: every count and index is
** checked against the bytes there are, transition times must increase, and
** offsets must lie within RFC 8536's range. Files with leap-second records
** (the "right/" zones) are refused: their times are not POSIX times.
**
** OFFSETS. The offset of a UTC instant is that of the last transition at
** or before it; before the first, the zone's first local time type (RFC
** 8536 3.2); after the last, the footer's POSIX TZ rule when the file has
** one ("EST5EDT,M3.2.0,M11.1.0"), else the last transition's type.
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>

#define TZ_MAX_FILE   (1<<20)       /* no zone file is near this size */
#define TZ_MAX_NAME   255
#define TZ_MIN_OFFSET (-89999)      /* RFC 8536's range of utoff */
#define TZ_MAX_OFFSET 93599
#define TZ_FAR_SECONDS 10000000000000LL   /* about 317,000 years */

/* A POSIX TZ rule's date: Jn (day n of 365, February 29 never counted),
** n (day n from 0, leap days counted) or Mm.w.d (weekday d of week w of
** month m, week 5 meaning the last). */
typedef struct TzDate TzDate;
struct TzDate {
  char eKind;               /* 'J', 'N' or 'M' */
  int n, m, w, d;
  int secs;                 /* local time of day of the change (may be
                            ** negative or past 24 hours, RFC 8536 3.3.1) */
};

/* A zone's footer rule: standard time, and daylight time between two
** dates of each year when bDst. */
typedef struct TzRule TzRule;
struct TzRule {
  int stdOff, dstOff;       /* seconds east of UTC */
  int bDst;
  TzDate start, end;
};

struct DocTz {
  char *zName;
  int nTrans;
  i64 *aTransAt;            /* UTC seconds, increasing */
  int *aTransOff;           /* the offset from that transition on */
  int firstOff;             /* the offset before the first transition */
  int bRule;                /* rule holds after the last transition */
  TzRule rule;
  DocTz *pNext;             /* the process's list of zones read */
};

static struct {
  DocTz *pList;
} tzState;

static sqlite3_mutex *tzMutex(void){
  return sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
}

/*------------------------------------------------------------------------
** The footer: a POSIX TZ string (RFC 8536 3.3). Each reader advances *pz
** and returns 0 when the text is not what it expects.
*/
static int tzReadNum(const char **pz, int nMax, int *pv){
  const char *z = *pz;
  int v = 0, n = 0;
  while( *z>='0' && *z<='9' && n<4 ){ v = v*10 + (*z - '0'); z++; n++; }
  if( n==0 || v>nMax ) return 0;
  *pz = z;
  *pv = v;
  return 1;
}

/* [+-]hh[:mm[:ss]], hours at most nMaxHour; seconds into *pSecs. */
static int tzReadTime(const char **pz, int nMaxHour, int *pSecs){
  const char *z = *pz;
  int sign = 1, h = 0, m = 0, s = 0;
  if( *z=='+' || *z=='-' ){ if( *z=='-' ) sign = -1; z++; }
  if( !tzReadNum(&z, nMaxHour, &h) ) return 0;
  if( *z==':' ){
    z++;
    if( !tzReadNum(&z, 59, &m) ) return 0;
    if( *z==':' ){
      z++;
      if( !tzReadNum(&z, 59, &s) ) return 0;
    }
  }
  *pz = z;
  *pSecs = sign*(h*3600 + m*60 + s);
  return 1;
}

/* A zone abbreviation: three or more letters, or <...> of letters, digits,
** '+' and '-'. */
static int tzReadAbbrev(const char **pz){
  const char *z = *pz;
  int n = 0;
  if( *z=='<' ){
    z++;
    while( (*z>='A' && *z<='Z') || (*z>='a' && *z<='z') || (*z>='0' && *z<='9')
        || *z=='+' || *z=='-' ){ z++; n++; }
    if( *z!='>' || n<3 ) return 0;
    z++;
  }else{
    while( (*z>='A' && *z<='Z') || (*z>='a' && *z<='z') ){ z++; n++; }
    if( n<3 ) return 0;
  }
  *pz = z;
  return 1;
}

/* ,date[/time] */
static int tzReadDate(const char **pz, TzDate *p){
  const char *z = *pz;
  if( *z!=',' ) return 0;
  z++;
  if( *z=='J' ){
    z++;
    p->eKind = 'J';
    if( !tzReadNum(&z, 365, &p->n) || p->n<1 ) return 0;
  }else if( *z=='M' ){
    z++;
    p->eKind = 'M';
    if( !tzReadNum(&z, 12, &p->m) || p->m<1 || *z++!='.' ) return 0;
    if( !tzReadNum(&z, 5, &p->w) || p->w<1 || *z++!='.' ) return 0;
    if( !tzReadNum(&z, 6, &p->d) ) return 0;
  }else{
    p->eKind = 'N';
    if( !tzReadNum(&z, 365, &p->n) ) return 0;
  }
  p->secs = 2*3600;
  if( *z=='/' ){
    z++;
    if( !tzReadTime(&z, 167, &p->secs) ) return 0;
  }
  *pz = z;
  return 1;
}

/* The whole footer text z (NUL-terminated); 0 when it is not a rule. */
static int tzParseRule(const char *z, TzRule *p){
  int secs;
  memset(p, 0, sizeof(*p));
  if( !tzReadAbbrev(&z) || !tzReadTime(&z, 24, &secs) ) return 0;
  p->stdOff = -secs;                  /* POSIX counts west of UTC */
  if( *z==0 ) return 1;
  if( !tzReadAbbrev(&z) ) return 0;
  p->bDst = 1;
  p->dstOff = p->stdOff + 3600;
  if( *z && *z!=',' ){
    if( !tzReadTime(&z, 24, &secs) ) return 0;
    p->dstOff = -secs;
  }
  /* RFC 8536 requires the dates when there is daylight time */
  if( !tzReadDate(&z, &p->start) || !tzReadDate(&z, &p->end) ) return 0;
  return *z==0;
}

static int tzIsLeap(i64 y){
  return (y%4==0 && y%100!=0) || y%400==0;
}

/* Days since 1970-01-01 of a rule date in year y. */
static i64 tzDateDay(const TzDate *p, i64 y){
  static const int aMonthDays[] = {31,28,31,30,31,30,31,31,30,31,30,31};
  i64 jan1 = docextDaysFromCivil(y, 1, 1);
  if( p->eKind=='J' ){
    /* day n of 365: February 29 is never counted */
    return jan1 + p->n - 1 + (tzIsLeap(y) && p->n>59);
  }
  if( p->eKind=='N' ) return jan1 + p->n;
  {
    i64 first = docextDaysFromCivil(y, p->m, 1);
    int nDays = aMonthDays[p->m-1] + (p->m==2 && tzIsLeap(y));
    int dow = (int)(((first + 4) % 7 + 7) % 7);      /* 1970-01-01 was a Thursday */
    int day = 1 + (p->d - dow + 7) % 7 + (p->w - 1)*7;
    while( day>nDays ) day -= 7;
    return first + day - 1;
  }
}

/* The offset a rule gives UTC second t. */
static int tzRuleOffset(const TzRule *p, i64 t){
  DocCivil c;
  i64 start, end;
  if( !p->bDst ) return p->stdOff;
  /* (the rule repeats every year: far dates need not be exact, only
  ** computed without overflow) */
  if( t>TZ_FAR_SECONDS ) t = TZ_FAR_SECONDS;
  if( t<-TZ_FAR_SECONDS ) t = -TZ_FAR_SECONDS;
  docextCivilFromMs((t + p->stdOff)*1000, &c);
  /* the changes of that local year, as UTC: daylight time starts at a
  ** standard-time wall clock and ends at a daylight-time one */
  start = tzDateDay(&p->start, c.year)*86400 + p->start.secs - p->stdOff;
  end = tzDateDay(&p->end, c.year)*86400 + p->end.secs - p->dstOff;
  if( start<end ) return (t>=start && t<end) ? p->dstOff : p->stdOff;
  return (t>=end && t<start) ? p->stdOff : p->dstOff;       /* southern */
}

/*------------------------------------------------------------------------
** TZif files.
*/
static uint32_t tzGet32(const u8 *a){
  return ((uint32_t)a[0]<<24) | ((uint32_t)a[1]<<16) | ((uint32_t)a[2]<<8) | a[3];
}
static i64 tzGet64(const u8 *a){
  return (i64)(((u64)tzGet32(a)<<32) | tzGet32(a+4));
}

/* The six counts of a TZif header at a[0..44). */
typedef struct TzHeader TzHeader;
struct TzHeader {
  int version;              /* 1, 2, 3, 4 */
  i64 isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
};

static int tzHeader(const u8 *a, i64 n, TzHeader *h){
  if( n<44 || memcmp(a, "TZif", 4)!=0 ) return 0;
  h->version = a[4]==0 ? 1 : (a[4]>='2' && a[4]<='4') ? a[4]-'0' : 0;
  h->isutcnt = tzGet32(a+20);
  h->isstdcnt = tzGet32(a+24);
  h->leapcnt = tzGet32(a+28);
  h->timecnt = tzGet32(a+32);
  h->typecnt = tzGet32(a+36);
  h->charcnt = tzGet32(a+40);
  return h->version>0 && h->typecnt>=1 && h->typecnt<=256 && h->charcnt>=1
      && (h->isutcnt==0 || h->isutcnt==h->typecnt)
      && (h->isstdcnt==0 || h->isstdcnt==h->typecnt)
      && h->timecnt<=TZ_MAX_FILE && h->leapcnt<=TZ_MAX_FILE && h->charcnt<=TZ_MAX_FILE;
}

/* Bytes of the data block that follows a header, with nTime-byte times. */
static i64 tzDataSize(const TzHeader *h, int nTime){
  return h->timecnt*nTime + h->timecnt + h->typecnt*6 + h->charcnt
       + h->leapcnt*(nTime+4) + h->isstdcnt + h->isutcnt;
}

/* Read the zone from the n bytes of a TZif file into p. Returns "" when
** it is read, the reason when the file does not hold together, and NULL
** when memory ran out. */
static const char *tzParse(const u8 *a, i64 n, DocTz *p){
  TzHeader h;
  const u8 *aData, *aIdx, *aType;
  int nTime = 4;
  i64 i, iEnd;
  if( !tzHeader(a, n, &h) ) return "not a TZif zone file";
  aData = a + 44;
  if( h.version>=2 ){
    /* skip the version 1 block: the 64-bit block after it is complete */
    i64 nSkip = 44 + tzDataSize(&h, 4);
    if( nSkip>n || !tzHeader(a+nSkip, n-nSkip, &h) ) return "a truncated zone file";
    aData = a + nSkip + 44;
    nTime = 8;
  }
  iEnd = (aData - a) + tzDataSize(&h, nTime);
  if( iEnd>n ) return "a truncated zone file";
  if( h.leapcnt>0 ) return "a zone with leap seconds";
  aIdx = aData + h.timecnt*nTime;
  aType = aIdx + h.timecnt;
  for(i=0; i<h.typecnt; i++){
    i64 off = (int32_t)tzGet32(aType + i*6);
    if( off<TZ_MIN_OFFSET || off>TZ_MAX_OFFSET || aType[i*6+4]>1 ) return "a bad local time type";
  }
  p->nTrans = (int)h.timecnt;
  p->aTransAt = sqlite3_malloc64(sizeof(i64)*(h.timecnt+1));
  p->aTransOff = sqlite3_malloc64(sizeof(int)*(h.timecnt+1));
  if( p->aTransAt==0 || p->aTransOff==0 ) return 0;
  for(i=0; i<h.timecnt; i++){
    i64 t = nTime==8 ? tzGet64(aData + i*8) : (int32_t)tzGet32(aData + i*4);
    if( aIdx[i]>=h.typecnt ) return "a bad local time type";
    if( i>0 && t<=p->aTransAt[i-1] ) return "transitions out of order";
    p->aTransAt[i] = t;
    p->aTransOff[i] = (int32_t)tzGet32(aType + aIdx[i]*6);
  }
  p->firstOff = (int32_t)tzGet32(aType);
  if( h.version>=2 ){
    /* the footer: "\n<TZ string>\n" */
    const u8 *z = a + iEnd, *zEnd;
    char zRule[128];
    if( iEnd>=n || *z!='\n' ) return "no footer";
    zEnd = memchr(z+1, '\n', (size_t)(n - iEnd - 1));
    if( zEnd==0 ) return "no footer";
    if( zEnd - (z+1) >= (i64)sizeof(zRule) ) return "a bad TZ rule in its footer";
    memcpy(zRule, z+1, (size_t)(zEnd - (z+1)));
    zRule[zEnd - (z+1)] = 0;
    if( zRule[0] ){
      if( !tzParseRule(zRule, &p->rule) ) return "a bad TZ rule in its footer";
      p->bRule = 1;
    }
  }
  return "";
}

void docextTzFree(DocTz *p){
  if( p ){
    sqlite3_free(p->zName);
    sqlite3_free(p->aTransAt);
    sqlite3_free(p->aTransOff);
    sqlite3_free(p);
  }
}

int docextTzRead(const u8 *a, i64 n, DocTz **ppTz, const char **pzBad){
  DocTz *p = docextMallocZero(sizeof(*p));
  const char *zBad;
  *ppTz = 0;
  *pzBad = 0;
  if( p==0 ) return SQLITE_NOMEM;
  zBad = tzParse(a, n, p);
  if( zBad==0 || zBad[0] ){
    docextTzFree(p);
    *pzBad = zBad;
    return zBad ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  *ppTz = p;
  return SQLITE_OK;
}

/* A name may only name a file below the database's directory: letters,
** digits, '_', '-', '+', and '/' between components that do not start
** with '.'. */
static int tzNameOk(const char *z, int n){
  int i;
  if( n<1 || n>TZ_MAX_NAME || z[0]=='/' || z[n-1]=='/' ) return 0;
  for(i=0; i<n; i++){
    char c = z[i];
    if( c=='/' ){
      if( i+1<n && z[i+1]=='/' ) return 0;
    }else if( !((c>='A' && c<='Z') || (c>='a' && c<='z') || (c>='0' && c<='9')
               || c=='_' || c=='-' || c=='+' || (c=='.' && i>0 && z[i-1]!='/')) ){
      return 0;
    }
  }
  return 1;
}

/* The whole file at zPath into a heap buffer; 0 if it cannot be read. */
static u8 *tzReadFile(const char *zPath, i64 *pn, int *pbNoMem){
  FILE *f = fopen(zPath, "rb");
  u8 *a = 0;
  size_t n = 0;
  *pbNoMem = 0;
  if( f==0 ) return 0;
  a = sqlite3_malloc64(TZ_MAX_FILE + 1);
  if( a==0 ){
    *pbNoMem = 1;
  }else{
    n = fread(a, 1, TZ_MAX_FILE + 1, f);
    if( n==0 || n>TZ_MAX_FILE ){
      sqlite3_free(a);
      a = 0;
    }
  }
  fclose(f);
  *pn = (i64)n;
  return a;
}

/* Read zone z[0..n) from the database; SQLITE_ERROR with a reason in
** *pzWhy (sqlite3_free it) when there is no such zone. */
static int tzLoad(const char *z, int n, DocTz **ppTz, char **pzWhy){
  const char *zDir = getenv("TZDIR");
  char *zPath;
  DocTz *p = 0;
  u8 *a;
  i64 nFile = 0;
  int bNoMem = 0, rc;
  const char *zBad = 0;
  *ppTz = 0;
  if( zDir==0 || zDir[0]==0 ) zDir = "/usr/share/zoneinfo";
  zPath = sqlite3_mprintf("%s/%.*s", zDir, n, z);
  if( zPath==0 ) return SQLITE_NOMEM;
  a = tzReadFile(zPath, &nFile, &bNoMem);
  if( a==0 ){
    *pzWhy = bNoMem ? 0 : sqlite3_mprintf("no such zone in %s", zDir);
    sqlite3_free(zPath);
    return bNoMem ? SQLITE_NOMEM : SQLITE_ERROR;
  }
  rc = docextTzRead(a, nFile, &p, &zBad);
  sqlite3_free(a);
  if( rc==SQLITE_OK && (p->zName = sqlite3_mprintf("%.*s", n, z))==0 ) rc = SQLITE_NOMEM;
  if( rc!=SQLITE_OK ){
    if( zBad ) *pzWhy = sqlite3_mprintf("%s: %s", zPath, zBad);
    docextTzFree(p);
    sqlite3_free(zPath);
    return rc;
  }
  sqlite3_free(zPath);
  *ppTz = p;
  return SQLITE_OK;
}

int docextTzFind(const char *z, int n, const DocTz **ppTz, char **pzWhy){
  DocTz *p, *pNew = 0;
  int rc;
  *ppTz = 0;
  *pzWhy = 0;
  if( !tzNameOk(z, n) ) return SQLITE_ERROR;
  sqlite3_mutex_enter(tzMutex());
  for(p=tzState.pList; p; p=p->pNext){
    if( (int)strlen(p->zName)==n && memcmp(p->zName, z, n)==0 ) break;
  }
  sqlite3_mutex_leave(tzMutex());
  if( p ){
    *ppTz = p;
    return SQLITE_OK;
  }
  /* read outside the mutex; another thread may add the same zone first */
  rc = tzLoad(z, n, &pNew, pzWhy);
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_mutex_enter(tzMutex());
  for(p=tzState.pList; p; p=p->pNext){
    if( strcmp(p->zName, pNew->zName)==0 ) break;
  }
  if( p==0 ){
    pNew->pNext = tzState.pList;
    tzState.pList = p = pNew;
    pNew = 0;
  }
  sqlite3_mutex_leave(tzMutex());
  docextTzFree(pNew);
  *ppTz = p;
  return SQLITE_OK;
}

int docextTzOffset(const DocTz *p, i64 t){
  int lo = 0, hi = p->nTrans;
  if( p->nTrans==0 || t<p->aTransAt[0] ){
    if( p->nTrans==0 && p->bRule ) return tzRuleOffset(&p->rule, t);
    return p->firstOff;
  }
  if( t>=p->aTransAt[p->nTrans-1] ){
    return p->bRule ? tzRuleOffset(&p->rule, t) : p->aTransOff[p->nTrans-1];
  }
  /* the last transition at or before t: aTransAt[lo] <= t < aTransAt[hi] */
  while( hi-lo>1 ){
    int mid = lo + (hi-lo)/2;
    if( p->aTransAt[mid]<=t ) lo = mid; else hi = mid;
  }
  return p->aTransOff[lo];
}

void docextTzForget(void){
  DocTz *p, *pNext;
  sqlite3_mutex_enter(tzMutex());
  p = tzState.pList;
  tzState.pList = 0;
  sqlite3_mutex_leave(tzMutex());
  for(; p; p=pNext){
    pNext = p->pNext;
    docextTzFree(p);
  }
}
