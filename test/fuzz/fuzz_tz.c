/*
** fuzz_tz.c — libFuzzer target for zone files (TZif, RFC 8536), as
** docext_tz.c reads them from the time zone database.
**
** Input: any bytes, read as a zone file. The reader must accept or refuse
** them without reading out of bounds, and say why it refuses; a zone it
** accepts gives an offset within RFC 8536's range at every instant: far in
** the past and the future (where the footer's POSIX TZ rule holds), and at
** instants spread over the years of the transitions.
*/
#include "fuzz.h"

static void checkAt(const DocTz *p, i64 t){
  int off = docextTzOffset(p, t);
  FUZZ_ASSERT(off>=-89999 && off<=93599, "an offset outside RFC 8536's range");
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData){
  static const i64 aFar[] = {
    INT64_MIN/1000, -10000000000000LL, -4000000000LL, -1, 0, 1,
    4000000000LL, 10000000000000LL, INT64_MAX/1000
  };
  DocTz *p = 0;
  const char *zBad = 0;
  i64 t;
  size_t i;
  int rc;
  if( nData>(1<<20) ) return 0;
  rc = docextTzRead(aData, (i64)nData, &p, &zBad);
  if( rc!=SQLITE_OK ){
    FUZZ_ASSERT(p==0 && (rc==SQLITE_NOMEM || (rc==SQLITE_ERROR && zBad && zBad[0])),
                "a refused zone file without a reason");
    return 0;
  }
  FUZZ_ASSERT(p!=0, "no zone");
  for(i=0; i<sizeof(aFar)/sizeof(aFar[0]); i++) checkAt(p, aFar[i]);
  /* 1901 to 2038, every 40 days and a few hours */
  for(t=-2147483648LL; t<2147483648LL; t+=3467000) checkAt(p, t);
  docextTzFree(p);
  return 0;
}
