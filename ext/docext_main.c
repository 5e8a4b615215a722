/*
** docext_main.c — the extension's entry point.
**
** sqlite3_docext_init() is the only symbol docext exports. It registers, on
** one connection, the SQL functions (each file registers its own, through
** docextCreateFunctions) and the "docext" virtual-table module
** (docext_vtab.c).
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

int docextCreateFunctions(sqlite3 *db, void *pApp, const DocFuncDef *aDef, int nDef){
  int i, rc = SQLITE_OK;
  for(i=0; rc==SQLITE_OK && i<nDef; i++){
    rc = sqlite3_create_function(db, aDef[i].zName, aDef[i].nArg, aDef[i].eFlags,
                                 pApp, aDef[i].xFunc, 0, 0);
  }
  return rc;
}

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
  if( rc==SQLITE_OK ) rc = docextRegisterValidateFunctions(db, pConn);
  if( rc==SQLITE_OK ) rc = docextRegisterPlanFunctions(db, pConn);
  if( rc==SQLITE_OK ) rc = docextRegisterCommandFunctions(db, pConn);
  if( rc==SQLITE_OK ) rc = docextRegisterShardFunctions(db, pConn);
  if( rc==SQLITE_OK ) rc = docextRegisterRouterFunctions(db, pConn);
  if( rc==SQLITE_OK ) rc = docextRegisterAggregate(db, pConn);
  if( rc!=SQLITE_OK && pzErrMsg ){
    *pzErrMsg = sqlite3_mprintf("docext: cannot register: %s", sqlite3_errstr(rc));
  }
  return rc;
}
