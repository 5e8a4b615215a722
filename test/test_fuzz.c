/*
** test_fuzz.c — seeded mutation fuzzing of every input surface.
**
** For each surface, valid seeds are mutated (bit flips, byte changes,
** truncations, splices, length-field edits) and fed in; the contract is a
** clean result or a clean error — never a crash, a hang, an out-of-bounds
** access or a leak (the sanitized build checks those). Surfaces:
**   1. BSON blobs: validate; when valid, iterate, write JSON in all three
**      modes, and encode keys.
**   2. Filters, projections, sorts and updates (as BSON documents, valid or
**      not): compile, and when they compile, run against a set of documents.
**   3. Shadow tables: a collection whose X_docs/X_pages rows are corrupted
**      by hand must answer every read with a result or an error.
**
**   build/plain/test_fuzz [iterations]     (default 3000 per surface)
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>

int sqlite3_docext_init(sqlite3*, char**, const sqlite3_api_routines*);

static int nPass = 0, nFail = 0;
static u64 rngState = 0x243F6A8885A308D3ULL;

static u64 rnd(u64 n){
  rngState ^= rngState << 13;
  rngState ^= rngState >> 7;
  rngState ^= rngState << 17;
  return n ? rngState % n : 0;
}

static void check(int bOk, const char *zWhat, int iCase){
  if( bOk ){ nPass++; return; }
  nFail++;
  if( nFail<20 ) printf("FAIL: %s (case %d)\n", zWhat, iCase);
}

/* Parse shell text into a heap copy of its BSON (caller frees). */
static u8 *bsonOf(const char *z){
  DocBuf b;
  char *zErr = 0;
  int n = 0;
  u8 *a;
  memset(&b, 0, sizeof(b));
  if( docextJsonParse(z, (int)strlen(z), 1, &b, &n, &zErr) ){
    printf("bad seed %s: %s\n", z, zErr);
    exit(1);
  }
  a = malloc(b.n);
  memcpy(a, b.a, b.n);
  docextBufFree(&b);
  return a;
}

/* Mutate a[0..n) into out (capacity nMax); returns the new length. */
static int mutate(const u8 *a, int n, u8 *out, int nMax){
  int m = n < nMax ? n : nMax, k, nOps = 1 + (int)rnd(4);
  memcpy(out, a, m);
  for(k=0; k<nOps && m>0; k++){
    int i = (int)rnd(m);
    switch( rnd(7) ){
      case 0: out[i] ^= (u8)(1 << rnd(8)); break;
      case 1: out[i] = (u8)rnd(256); break;
      case 2: m = (int)rnd(m) + 1; break;                       /* truncate */
      case 3: if( m+4<=nMax ){                                   /* insert */
                memmove(&out[i+4], &out[i], m-i);
                docextPutI32(&out[i], (int32_t)rnd(64) - 8);
                m += 4;
              } break;
      case 4: if( i+4<=m ) docextPutI32(&out[i], (int32_t)rnd(2000) - 5); break;
      case 5: out[i] = (u8)"\x00\x01\x02\x03\x04\x05\x07\x0a\x10\x12\x13\x7f\xff"[rnd(13)]; break;
      default: if( m>8 ){ int j = (int)rnd(m-4); memmove(&out[j], &out[i], m-i<4 ? m-i : 4); } break;
    }
  }
  return m;
}

static const char *azDocSeed[] = {
  "{_id: 1, a: [1, 2, {b: \"x\"}], c: {d: 1.5, e: NumberLong(7)}, s: 'str'}",
  "{a: NumberDecimal(\"1.5E+3\"), b: ISODate(\"2012-10-10T21:14:07.096Z\"), c: /re+/i,"
  " d: BinData(4, \"AAECAwQFBgcICQoLDA0ODw==\"), e: Timestamp(1, 2), f: MinKey, g: MaxKey}",
  "{x: {$oid: \"507f1f77bcf86cd799439011\"}, y: [[1], [[2]], {z: [3]}], n: null, u: undefined}",
  "{code: {$code: \"f()\", $scope: {a: 1}}, sym: {$symbol: \"s\"}, p: {$dbPointer: {$ref: \"c\","
  " $id: {$oid: \"507f1f77bcf86cd799439011\"}}}, b: true}",
};

static const char *azFilterSeed[] = {
  "{a: {$gt: 1, $lt: [5]}, $or: [{c: /x/}, {d: {$elemMatch: {e: 1}}}]}",
  "{a: {$in: [1, \"x\", null]}, b: {$exists: false}, c: {$type: [\"string\", 16]}}",
  "{a: {$all: [1, {$elemMatch: {b: 2}}]}, c: {$size: 2}, d: {$mod: [3, 1]}}",
  "{a: {$not: {$regex: \"^a\", $options: \"im\"}}, b: {$bitsAllSet: [1, 5]}, $nor: [{x: 1}]}",
};

static const char *azUpdateSeed[] = {
  "{$set: {\"a.0.b\": 1}, $inc: {c: 2}, $push: {d: {$each: [1, 2], $sort: -1, $slice: 3}}}",
  "{$pull: {a: {b: {$gt: 1}}}, $addToSet: {c: {$each: [1]}}, $unset: {x: 1}, $rename: {y: \"z\"}}",
  "{$set: {\"a.$[e].b\": 1}, $min: {m: 1}, $mul: {n: 2}, $bit: {f: {and: 5}}, $pop: {g: -1}}",
  "{$currentDate: {t: true}, $setOnInsert: {i: 1}, $max: {m: 9}, $pullAll: {a: [1]}}",
};

static const char *azProjSeed[] = {
  "{a: 1, \"c.d\": 1, _id: 0}", "{a: {$slice: [1, 2]}, c: 0}", "{a: {$elemMatch: {b: \"x\"}}}",
  "{\"a.$\": 1}",
};

/* 1. BSON blobs through validate, iterate, write, keys, round trip. */
static void fuzzBson(int nIter){
  u8 *aSeed[4], out[4096];
  int i, k;
  for(k=0; k<4; k++) aSeed[k] = bsonOf(azDocSeed[k]);
  for(i=0; i<nIter; i++){
    const u8 *a = aSeed[rnd(4)];
    int n = mutate(a, docextGetI32(a), out, sizeof(out));
    int iOff;
    const char *zWhy;
    int rc = docextBsonValidate(out, n, &iOff, &zWhy);
    check(rc==SQLITE_OK || (zWhy && iOff>=0 && iOff<=n), "validate reports where", i);
    if( rc==SQLITE_OK ){
      DocBuf t, key;
      int m;
      DocIter it;
      memset(&t, 0, sizeof(t));
      memset(&key, 0, sizeof(key));
      for(m=0; m<3; m++){
        rc = SQLITE_OK;
        docextBufReset(&t);
        docextJsonWriteDoc(&rc, &t, out, m);
        check(rc==SQLITE_OK, "write JSON", i);
      }
      docextIterInit(&it, out);
      while( docextIterNext(&it) ) docextKeyAppend(&rc, &key, &it.v, (int)(it.nKey & 1));
      check(rc==SQLITE_OK, "encode keys", i);
      docextBufFree(&t);
      docextBufFree(&key);
    }
  }
  for(k=0; k<4; k++) free(aSeed[k]);
}

/* 2. Filters, projections, sorts and updates: compile, then run. */
static void fuzzQueryAndUpdate(int nIter){
  u8 *aDoc[4], *aFilter[4], *aUpd[4], *aProj[4], out[4096];
  int i, k;
  for(k=0; k<4; k++){
    aDoc[k] = bsonOf(azDocSeed[k]);
    aFilter[k] = bsonOf(azFilterSeed[k]);
    aUpd[k] = bsonOf(azUpdateSeed[k]);
    aProj[k] = bsonOf(azProjSeed[k]);
  }
  for(i=0; i<nIter; i++){
    int eKind = (int)rnd(4), n, rc;
    const u8 *aSeed = eKind==0 ? aFilter[rnd(4)] : eKind==1 ? aUpd[rnd(4)]
                    : eKind==2 ? aProj[rnd(4)] : aFilter[rnd(4)];
    char *zErr = 0;
    n = mutate(aSeed, docextGetI32(aSeed), out, sizeof(out));
    if( docextBsonValidate(out, n, 0, 0)!=SQLITE_OK ){ nPass++; continue; }
    if( eKind==0 ){
      DocMatcher *pM = 0;
      rc = docextMatcherNew(out, 0, 0, &pM, &zErr);
      for(k=0; rc==SQLITE_OK && k<4; k++){
        int bMatch = 0, iPos = -1;
        char *zE2 = 0;
        docextMatcherMatch(pM, aDoc[k], &bMatch, &iPos, &zE2);
        sqlite3_free(zE2);
      }
      check(rc==SQLITE_OK || (zErr && strncmp(zErr, "docext: ", 8)==0), "filter error says docext:", i);
      docextMatcherFree(pM);
    }else if( eKind==1 ){
      DocUpdate *pU = 0;
      rc = docextUpdateNew(out, 0, &pU, &zErr);
      for(k=0; rc==SQLITE_OK && k<4; k++){
        DocBuf res;
        int bChanged = 0;
        char *zE2 = 0;
        memset(&res, 0, sizeof(res));
        if( docextUpdateApply(pU, aDoc[k], (int)rnd(3) - 1, (int)rnd(2), &res, &bChanged, &zE2)==SQLITE_OK ){
          check(docextBsonValidate(res.a, res.n, 0, 0)==SQLITE_OK, "update result is valid BSON", i);
        }
        sqlite3_free(zE2);
        docextBufFree(&res);
      }
      check(rc==SQLITE_OK || (zErr && strncmp(zErr, "docext: ", 8)==0), "update error says docext:", i);
      docextUpdateFree(pU);
    }else if( eKind==2 ){
      DocProjection *pP = 0;
      rc = docextProjectionNew(out, &pP, &zErr);
      for(k=0; rc==SQLITE_OK && k<4; k++){
        DocBuf res;
        char *zE2 = 0;
        memset(&res, 0, sizeof(res));
        if( docextProjectionApply(pP, aDoc[k], (int)rnd(3) - 1, &res, &zE2)==SQLITE_OK ){
          check(docextBsonValidate(res.a, res.n, 0, 0)==SQLITE_OK, "projection result is valid BSON", i);
        }
        sqlite3_free(zE2);
        docextBufFree(&res);
      }
      docextProjectionFree(pP);
    }else{
      DocSort *pS = 0;
      rc = docextSortNew(out, &pS, &zErr);
      for(k=0; rc==SQLITE_OK && k<4; k++){
        DocBuf key;
        char *zE2 = 0;
        memset(&key, 0, sizeof(key));
        if( docextSortKey(pS, aDoc[k], &key, &zE2)==SQLITE_ERROR ){
          check(zE2!=0, "a sort key error has a message", i);
        }
        sqlite3_free(zE2);
        docextBufFree(&key);
      }
      docextSortFree(pS);
      nPass++;
    }
    sqlite3_free(zErr);
  }
  for(k=0; k<4; k++){ free(aDoc[k]); free(aFilter[k]); free(aUpd[k]); free(aProj[k]); }
}

static int execCount(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), n = 0;
  while( rc==SQLITE_OK && (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    int i;
    for(i=0; i<sqlite3_column_count(pStmt); i++) sqlite3_column_text(pStmt, i);
    n++;
    rc = SQLITE_OK;
  }
  sqlite3_finalize(pStmt);
  return rc==SQLITE_DONE || rc==SQLITE_OK ? n : -1;
}

/* 3. Corrupted shadow tables: reads give a result or an error. */
static void fuzzShadow(int nIter){
  sqlite3 *db = 0;
  int i, rc;
  sqlite3_open(":memory:", &db);
  rc = sqlite3_docext_init(db, 0, 0);
  check(rc==SQLITE_OK, "init", 0);
  rc = sqlite3_exec(db,
    "CREATE VIRTUAL TABLE c USING docext;"
    "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM n WHERE value<40)"
    " INSERT INTO c(doc) SELECT json_object('_id', value, 'a', value % 7, 'b', json_array(value, 'x'),"
    " 's', printf('%.*c', value * 397 % 9000, 'y')) FROM n;"
    "SELECT doc_create_index('c', '{a: 1}');", 0, 0, 0);
  check(rc==SQLITE_OK && execCount(db, "SELECT 1 FROM c")==40
        && execCount(db, "SELECT 1 FROM c_pages")>10, "fuzz collection set up", 0);
  for(i=0; i<nIter; i++){
    char zSql[512];
    sqlite3_exec(db, "SAVEPOINT f", 0, 0, 0);
    switch( rnd(4) ){
      case 0:   /* damage an inline body */
        snprintf(zSql, sizeof(zSql), "UPDATE c_docs SET body = CASE WHEN body IS NULL THEN NULL ELSE "
                 "substr(body, 1, %d) || x'%02x' || substr(body, %d) END WHERE id = %d",
                 (int)rnd(40), (unsigned)rnd(256), (int)rnd(40) + 2, 1 + (int)rnd(40));
        break;
      case 1:   /* damage a page */
        snprintf(zSql, sizeof(zSql), "UPDATE c_pages SET data = substr(data, 1, %d) || x'%02x%02x'"
                 " || substr(data, %d) WHERE pgno = (SELECT pgno FROM c_pages LIMIT 1 OFFSET %d)",
                 (int)rnd(3000), (unsigned)rnd(256), (unsigned)rnd(256), (int)rnd(3000), (int)rnd(20));
        break;
      case 2:   /* damage a page list or a size */
        snprintf(zSql, sizeof(zSql), "UPDATE c_docs SET pages = CASE WHEN pages IS NULL THEN NULL ELSE "
                 "substr(pages, 1, %d) || x'%02x' || substr(pages, %d) END, size = size + %d WHERE id = %d",
                 (int)rnd(8), (unsigned)rnd(256), (int)rnd(8) + 2, (int)rnd(3) - 1, 1 + (int)rnd(40));
        break;
      default:  /* damage an index entry */
        snprintf(zSql, sizeof(zSql), "UPDATE c_idx SET key = substr(key, 1, %d) || x'%02x' WHERE docid = %d",
                 (int)rnd(6), (unsigned)rnd(256), 1 + (int)rnd(40));
        break;
    }
    sqlite3_exec(db, zSql, 0, 0, 0);
    execCount(db, "SELECT _id, doc, bson FROM c");
    execCount(db, "SELECT doc FROM c('{a: 3}')");
    execCount(db, "SELECT doc FROM c('{}', '{s: 0}', '{a: -1}')");
    execCount(db, "SELECT doc_check('c')");
    execCount(db, "SELECT doc_update_many('c', '{a: 1}', '{$inc: {a: 7}}')");
    sqlite3_exec(db, "ROLLBACK TO f; RELEASE f", 0, 0, 0);
    nPass++;
  }
  check(execCount(db, "SELECT doc_check('c')")==1, "intact after rollbacks", 0);
  sqlite3_close(db);
}

int main(int argc, char **argv){
  int nIter = argc>1 ? atoi(argv[1]) : 3000;
  fuzzBson(nIter);
  fuzzQueryAndUpdate(nIter);
  fuzzShadow(nIter/10 + 1);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail>0;
}
