/*
** fuzz.h — what the libFuzzer targets in test/fuzz/ share. They are built
** by `make fuzz` with clang's -fsanitize=fuzzer,address,undefined and call
** docext's internal functions directly (see test/fuzz/README.md).
*/
#ifndef DOCEXT_FUZZ_H
#define DOCEXT_FUZZ_H
#include "docextInt.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A broken property is a crash, so libFuzzer keeps the input. */
#define FUZZ_ASSERT(bOk, zWhat) \
  do{ if( !(bOk) ){ fprintf(stderr, "fuzz: %s\n", zWhat); abort(); } }while(0)

/* Is a[0..n) valid BSON, by docext's own validator? */
static inline int fuzzValid(const u8 *a, i64 n){
  int iOff = 0;
  const char *zWhy = 0;
  return docextBsonValidate(a, n, &iOff, &zWhy)==SQLITE_OK;
}

/* doc_check of collection c on db says 'ok'. */
static inline void fuzzCheckCollection(sqlite3 *db){
  sqlite3_stmt *pStmt = 0;
  FUZZ_ASSERT(sqlite3_prepare_v2(db, "SELECT doc_check('c')", -1, &pStmt, 0)==SQLITE_OK,
              sqlite3_errmsg(db));
  FUZZ_ASSERT(sqlite3_step(pStmt)==SQLITE_ROW
              && strcmp((const char*)sqlite3_column_text(pStmt, 0), "ok")==0,
              "doc_check finds damage");
  sqlite3_finalize(pStmt);
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData);

#endif
