/*
** docext_oid.c — ObjectIds and the clock.
**
** An ObjectId (see ../shared/specs/objectid.md) is 12 bytes:
**   4-byte big-endian seconds since the epoch,
**   5 random bytes chosen once per process (again after a fork),
**   3-byte big-endian counter, starting at a random value.
**
** The clock is the system clock unless doc_config('clock', …) froze it; the
** frozen time is process-wide, like the ObjectId counter, because ObjectIds
** and TTL must agree about "now" whatever connection asks.
*/
#include "docextInt.h"
#include <time.h>
#include <unistd.h>

static struct {
  int bInit;                /* random part and counter chosen */
  pid_t pid;                /* process that chose them */
  u8 aRandom[5];            /* per-process random bytes */
  uint32_t iCounter;        /* next counter value (24 bits used) */
  int bFrozen;              /* clock frozen by doc_config */
  i64 msFrozen;             /* the frozen time */
} oidState;

static sqlite3_mutex *oidMutex(void){
  return sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
}

i64 docextClockNowMs(void){
  struct timespec ts;
  i64 ms;
  sqlite3_mutex_enter(oidMutex());
  if( oidState.bFrozen ){
    ms = oidState.msFrozen;
  }else{
    clock_gettime(CLOCK_REALTIME, &ts);
    ms = (i64)ts.tv_sec*1000 + ts.tv_nsec/1000000;
  }
  sqlite3_mutex_leave(oidMutex());
  return ms;
}

void docextClockSet(int bFrozen, i64 ms){
  sqlite3_mutex_enter(oidMutex());
  oidState.bFrozen = bFrozen;
  oidState.msFrozen = ms;
  sqlite3_mutex_leave(oidMutex());
}

int docextClockIsFrozen(void){
  int b;
  sqlite3_mutex_enter(oidMutex());
  b = oidState.bFrozen;
  sqlite3_mutex_leave(oidMutex());
  return b;
}

void docextOidNew(u8 *aOut){
  i64 secs = docextClockNowMs() / 1000;
  uint32_t t = (uint32_t)secs;
  uint32_t c;
  sqlite3_mutex_enter(oidMutex());
  if( !oidState.bInit || oidState.pid!=getpid() ){
    u8 aSeed[3];
    sqlite3_randomness(5, oidState.aRandom);
    sqlite3_randomness(3, aSeed);
    oidState.iCounter = ((uint32_t)aSeed[0]<<16) | ((uint32_t)aSeed[1]<<8) | aSeed[2];
    oidState.pid = getpid();
    oidState.bInit = 1;
  }
  c = oidState.iCounter;
  oidState.iCounter = (c + 1) & 0xFFFFFF;
  memcpy(&aOut[4], oidState.aRandom, 5);
  sqlite3_mutex_leave(oidMutex());
  aOut[0] = (u8)(t>>24); aOut[1] = (u8)(t>>16); aOut[2] = (u8)(t>>8); aOut[3] = (u8)t;
  aOut[9] = (u8)(c>>16); aOut[10] = (u8)(c>>8); aOut[11] = (u8)c;
}

/*------------------------------------------------------------------------
** ISO-8601 dates (UTC milliseconds), shared by the JSON codec, doc_get and
** doc_config.
*/

/* (Howard Hinnant's days_from_civil.) */
i64 docextDaysFromCivil(i64 y, int m, int d){
  i64 era, yoe, doy, doe;
  y -= m<=2;
  era = (y>=0 ? y : y-399) / 400;
  yoe = y - era*400;
  doy = (153*(m + (m>2 ? -3 : 9)) + 2)/5 + d - 1;
  doe = yoe*365 + yoe/4 - yoe/100 + doy;
  return era*146097 + doe - 719468;
}

static void civilFromDays(i64 z, i64 *py, int *pm, int *pd){
  i64 era, doe, yoe, doy, mp;
  z += 719468;
  era = (z>=0 ? z : z-146096) / 146097;
  doe = z - era*146097;
  yoe = (doe - doe/1460 + doe/36524 - doe/146096) / 365;
  doy = doe - (365*yoe + yoe/4 - yoe/100);
  mp = (5*doy + 2)/153;
  *pd = (int)(doy - (153*mp+2)/5 + 1);
  *pm = (int)(mp<10 ? mp+3 : mp-9);
  *py = yoe + era*400 + (*pm<=2);
}

/* Write v as exactly nDigit decimal digits. */
static char *putDigits(char *z, i64 v, int nDigit){
  int i;
  for(i=nDigit-1; i>=0; i--){ z[i] = (char)('0' + v%10); v /= 10; }
  return z + nDigit;
}

void docextCivilFromMs(i64 ms, DocCivil *p){
  i64 days = ms/86400000;
  int msInDay = (int)(ms%86400000);   /* no negation: ms may be INT64_MIN */
  if( msInDay<0 ){ msInDay += 86400000; days--; }
  civilFromDays(days, &p->year, &p->month, &p->day);
  p->hour = msInDay/3600000;
  p->minute = (msInDay/60000)%60;
  p->second = (msInDay/1000)%60;
  p->millis = msInDay%1000;
  p->dayOfWeek = (int)((days%7 + 11)%7) + 1;   /* 1970-01-01: Thursday, 5 */
  p->dayOfYear = (int)(days - docextDaysFromCivil(p->year, 1, 1)) + 1;
}

int docextIsoDateFormat(i64 ms, char *zOut){
  i64 days = ms/86400000, y;
  int msInDay = (int)(ms%86400000);   /* no negation: ms may be INT64_MIN */
  int m, d;
  char *z = zOut;
  if( msInDay<0 ){ msInDay += 86400000; days--; }
  civilFromDays(days, &y, &m, &d);
  if( y<0 || y>9999 ){
    /* ISO 8601's expanded years, as JavaScript's toISOString() writes
    ** them: a sign and at least six digits. */
    int nDigit = 6;
    i64 t;
    *z++ = y<0 ? '-' : '+';
    if( y<0 ) y = -y;
    for(t=y/1000000; t>0; t/=10) nDigit++;
    z = putDigits(z, y, nDigit);
  }else{
    z = putDigits(z, y, 4);
  }
  *z++ = '-'; z = putDigits(z, m, 2);
  *z++ = '-'; z = putDigits(z, d, 2);
  *z++ = 'T'; z = putDigits(z, msInDay/3600000, 2);
  *z++ = ':'; z = putDigits(z, (msInDay/60000)%60, 2);
  *z++ = ':'; z = putDigits(z, (msInDay/1000)%60, 2);
  *z++ = '.'; z = putDigits(z, msInDay%1000, 3);
  *z++ = 'Z';
  *z = 0;
  return (int)(z - zOut);
}

/* Read exactly n digits at z[*pi] into *pv. */
static int readDigits(const char *z, int nz, int *pi, int n, int *pv){
  int v = 0, k;
  for(k=0; k<n; k++){
    if( *pi>=nz || z[*pi]<'0' || z[*pi]>'9' ) return 0;
    v = v*10 + (z[(*pi)++] - '0');
  }
  *pv = v;
  return 1;
}

int docextIsoDateParse(const char *z, int n, i64 *pMs){
  return docextIsoDateParseZone(z, n, pMs, 0);
}

int docextIsoDateParseZone(const char *z, int n, i64 *pMs, int *pbZone){
  int i = 0, y, mo, d, h = 0, mi = 0, s = 0, ms = 0, tzSign = 0, tzh = 0, tzm = 0;
  static const int aDays[] = {31,29,31,30,31,30,31,31,30,31,30,31};
  if( pbZone ) *pbZone = 0;
  if( !readDigits(z, n, &i, 4, &y) || i>=n || z[i++]!='-'
   || !readDigits(z, n, &i, 2, &mo) || i>=n || z[i++]!='-'
   || !readDigits(z, n, &i, 2, &d) ){
    return SQLITE_ERROR;
  }
  if( i<n && (z[i]=='T' || z[i]==' ') ){
    i++;
    if( !readDigits(z, n, &i, 2, &h) || i>=n || z[i++]!=':'
     || !readDigits(z, n, &i, 2, &mi) ){
      return SQLITE_ERROR;
    }
    if( i<n && z[i]==':' ){
      i++;
      if( !readDigits(z, n, &i, 2, &s) ) return SQLITE_ERROR;
      if( i<n && z[i]=='.' ){
        int nFrac = 0, scale = 100;
        i++;
        while( i<n && z[i]>='0' && z[i]<='9' ){
          if( nFrac<3 ){ ms += (z[i]-'0')*scale; scale /= 10; }
          nFrac++;
          i++;
        }
        if( nFrac==0 ) return SQLITE_ERROR;
      }
    }
    if( pbZone ) *pbZone = i<n && (z[i]=='Z' || z[i]=='+' || z[i]=='-');
    if( i<n && z[i]=='Z' ){
      i++;
    }else if( i<n && (z[i]=='+' || z[i]=='-') ){
      tzSign = z[i++]=='+' ? 1 : -1;
      if( !readDigits(z, n, &i, 2, &tzh) ) return SQLITE_ERROR;
      if( i<n && z[i]==':' ){
        i++;
        if( !readDigits(z, n, &i, 2, &tzm) ) return SQLITE_ERROR;
      }else if( i<n && !readDigits(z, n, &i, 2, &tzm) ){
        return SQLITE_ERROR;
      }
    }
  }
  if( i!=n || mo<1 || mo>12 || d<1 || d>aDays[mo-1] || h>23 || mi>59 || s>60
   || tzh>23 || tzm>59 ){
    return SQLITE_ERROR;
  }
  if( mo==2 && d==29 && !((y%4==0 && y%100!=0) || y%400==0) ) return SQLITE_ERROR;
  *pMs = (docextDaysFromCivil(y, mo, d)*86400 + h*3600 + mi*60 + s
          - tzSign*(tzh*3600 + tzm*60)) * 1000 + ms;
  return SQLITE_OK;
}

double docextRandomUnit(void){
  u64 u;
  sqlite3_randomness(sizeof(u), &u);
  return (double)(u >> 11) * (1.0/9007199254740992.0);     /* 53 bits / 2^53 */
}
