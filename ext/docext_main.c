/*
** docext_main.c — the extension's entry point.
**
** sqlite3_docext_init() is the only symbol docext exports. It registers the
** SQL functions (docext_func.c) and the "docext" virtual-table module
** (docext_vtab.c) on one connection.
*/
#include "docextInt.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT1
#endif

#if defined(__GNUC__) && !defined(SQLITE_CORE)
# define DOCEXT_EXPORT __attribute__((visibility("default")))
#else
# define DOCEXT_EXPORT
#endif

DOCEXT_EXPORT int sqlite3_docext_init(
  sqlite3 *db,
  char **pzErrMsg,
  const sqlite3_api_routines *pApi
){
  DocConn *pConn = 0;
  int rc;
#ifndef SQLITE_CORE
  SQLITE_EXTENSION_INIT2(pApi);
#else
  (void)pApi;
#endif
  rc = docextRegisterFunctions(db);
  if( rc==SQLITE_OK ) rc = docextRegisterUpdateFunctions(db);
  if( rc==SQLITE_OK ) rc = docextRegisterVtab(db, &pConn);
  if( rc==SQLITE_OK ) rc = docextRegisterIndexFunctions(db, pConn);
  if( rc==SQLITE_OK ) rc = docextRegisterPlanFunctions(db, pConn);
  if( rc==SQLITE_OK ) rc = docextRegisterCommandFunctions(db, pConn);
  if( rc!=SQLITE_OK && pzErrMsg ){
    *pzErrMsg = sqlite3_mprintf("docext: cannot register: %s", sqlite3_errstr(rc));
  }
  return rc;
}
