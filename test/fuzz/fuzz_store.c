/*
** fuzz_store.c — libFuzzer target for a collection as a whole: storage
** (paged documents, the in-place $push), indexes, the planner and
** savepoints, against a model.
**
** Input: a program, a few bytes per operation (inserts, replacements by
** INSERT OR REPLACE and by UPDATE, deletes, doc_update_one and
** doc_update_many, index creation and removal, validators, savepoints), run on a
** collection in a fresh in-memory database with 512-byte pages (so documents of a few
** hundred bytes are already split into pages). The model is the set of
** documents the collection must hold: eight _id slots, and the validator
** it has. A statement that works is applied to the model too (updates
** with docext's own pure docextUpdateApply, which the in-place $push must
** agree with byte for byte); one that fails must have changed nothing. A
** write works exactly when the model's validator (checked by docext's
** matcher) takes the document, or is refused for a duplicate key. After every operation:
** each document reads back as the model's bytes, the count agrees, a
** filter gives through the planner (and whatever index it picks) as many
** documents as the matcher finds in the model, and at the end doc_check
** says 'ok'.
*/
#include "fuzz.h"

int sqlite3_docext_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

#define N_SLOT 8

typedef struct Model Model;
struct Model {
  DocBuf aDoc[N_SLOT];      /* slot i: the document with _id i, or n==0 */
  int iValidator;           /* azValidator[i]: the collection's, 0 none */
  int bModerate;            /* its validationLevel is "moderate" */
};

/* The validators a program may set (0: none). */
static const char *azValidator[] = {
  0,
  "{a: {$lte: 2}}",
  "{$jsonSchema: {properties: {tags: {maxItems: 3}, s: {maxLength: 600}}}}",
  "{$expr: {$lt: [\"$a\", 4]}, tags: {$ne: 5}}",
};

typedef struct Prog Prog;
struct Prog {
  const uint8_t *a;
  size_t n, i;
};

static int progByte(Prog *p){
  return p->i<p->n ? p->a[p->i++] : 0;
}

static void modelCopy(Model *pTo, const Model *pFrom){
  int i, rc = SQLITE_OK;
  for(i=0; i<N_SLOT; i++){
    docextBufReset(&pTo->aDoc[i]);
    docextBufAppend(&rc, &pTo->aDoc[i], pFrom->aDoc[i].a, pFrom->aDoc[i].n);
  }
  pTo->iValidator = pFrom->iValidator;
  pTo->bModerate = pFrom->bModerate;
  FUZZ_ASSERT(rc==SQLITE_OK, "out of memory");
}

static void modelFree(Model *p){
  int i;
  for(i=0; i<N_SLOT; i++) docextBufFree(&p->aDoc[i]);
}

/* A string of n letters made from seed c (no quotes: it goes into text). */
static char *letters(int n, int c){
  char *z = sqlite3_malloc(n+1);
  int i;
  FUZZ_ASSERT(z!=0, "out of memory");
  for(i=0; i<n; i++) z[i] = (char)('a' + (c+i*7)%26);
  z[n] = 0;
  return z;
}

/* Run zSql (sqlite3_free'd here) with an optional BLOB ?1. 1 if it
** worked, 0 for a duplicate key (E11000), -1 for another docext: error;
** any other failure breaks the target. */
#define RUN_OK   1
#define RUN_DUP  0
#define RUN_ERR -1
static int run(sqlite3 *db, char *zSql, const DocBuf *pBlob){
  sqlite3_stmt *pStmt = 0;
  int rc;
  FUZZ_ASSERT(zSql!=0, "out of memory");
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( rc!=SQLITE_OK ){
    fprintf(stderr, "cannot prepare %s: %s\n", zSql, sqlite3_errmsg(db));
    abort();
  }
  if( pBlob ) sqlite3_bind_blob(pStmt, 1, pBlob->a, (int)pBlob->n, SQLITE_STATIC);
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
  sqlite3_finalize(pStmt);
  if( rc==SQLITE_DONE ){
    rc = RUN_OK;
  }else if( strncmp(sqlite3_errmsg(db), "E11000 ", 7)==0 ){
    rc = RUN_DUP;
  }else if( strncmp(sqlite3_errmsg(db), "docext: ", 8)==0 ){
    rc = RUN_ERR;
  }else{
    fprintf(stderr, "%s failed without a docext message: %s\n", zSql, sqlite3_errmsg(db));
    abort();
  }
  if( getenv("FUZZ_VERBOSE") ){         /* to read a replayed program */
    fprintf(stderr, "%s -> %s\n", zSql, rc==RUN_OK ? "ok" : sqlite3_errmsg(db));
  }
  sqlite3_free(zSql);
  return rc;
}

/* The text of a document for slot iSlot, as the program says. */
static char *newDocText(Prog *p, int iSlot){
  int nTag = progByte(p)%4, nStr = progByte(p)*4, i;
  char *zS = letters(nStr, progByte(p));
  sqlite3_str *pStr = sqlite3_str_new(0);
  sqlite3_str_appendf(pStr, "{_id: %d, a: %d, tags: [", iSlot, progByte(p)%5);
  for(i=0; i<nTag; i++) sqlite3_str_appendf(pStr, "%s%d", i ? ", " : "", progByte(p)%6);
  sqlite3_str_appendf(pStr, "], s: \"%s\"}", zS);
  sqlite3_free(zS);
  return sqlite3_str_finish(pStr);
}

/* Parse text the program made (always valid) into pOut. */
static void parseText(const char *z, DocBuf *pOut){
  int nUsed = 0;
  char *zErr = 0;
  docextBufReset(pOut);
  if( docextJsonParse(z, (int)strlen(z), 1, pOut, &nUsed, &zErr) ){
    fprintf(stderr, "bad program text %s: %s\n", z, zErr);
    abort();
  }
}

/* An update the program chooses, as text. */
static char *newUpdateText(Prog *p){
  int k = progByte(p), v = progByte(p);
  switch( k%6 ){
    case 0: {
      /* a $push of strings: the in-place path on a paged document */
      char *zS = letters(v, k);
      char *z = sqlite3_mprintf("{$push: {tags: {$each: [\"%s\", %d]}}}", zS, v%6);
      sqlite3_free(zS);
      return z;
    }
    case 1: return sqlite3_mprintf("{$push: {tags: %d}}", v%6);
    case 2: return sqlite3_mprintf("{$set: {a: %d}}", v%5);
    case 3: return sqlite3_mprintf("{$pull: {tags: %d}}", v%6);
    case 4: {
      char *zS = letters(v*4, k);
      char *z = sqlite3_mprintf("{$set: {s: \"%s\"}, $inc: {n: 1}}", zS);
      sqlite3_free(zS);
      return z;
    }
    default: return sqlite3_mprintf("{$pop: {tags: %d}}", v&1 ? 1 : -1);
  }
}

/* What the update zUpdate makes of the model's document pDoc, into pOut
** (*pbChanged: it changed); 0 if it fails. */
static int modelUpdate(const DocBuf *pDoc, const char *zUpdate, DocBuf *pOut, int *pbChanged){
  DocBuf upd;
  DocUpdate *pUp = 0;
  char *zErr = 0;
  int bChanged = 0, rc;
  memset(&upd, 0, sizeof(upd));
  parseText(zUpdate, &upd);
  rc = docextUpdateNew(upd.a, 0, &pUp, &zErr);
  if( rc==SQLITE_OK ) rc = docextUpdateApply(pUp, pDoc->a, -1, 0, pOut, &bChanged, &zErr);
  sqlite3_free(zErr);
  docextUpdateFree(pUp);
  docextBufFree(&upd);
  if( pbChanged ) *pbChanged = bChanged;
  return rc==SQLITE_OK;
}

/* Set the model's slot iSlot to the document p[0..n). */
static void modelSet(Model *pM, int iSlot, const u8 *a, i64 n){
  int rc = SQLITE_OK;
  docextBufReset(&pM->aDoc[iSlot]);
  docextBufAppend(&rc, &pM->aDoc[iSlot], a, n);
  FUZZ_ASSERT(rc==SQLITE_OK, "out of memory");
}

/* Does the model's document match the filter text? */
static int modelMatches(const DocBuf *pDoc, const char *zFilter){
  DocBuf f;
  DocMatcher *pM = 0;
  char *zErr = 0;
  int bMatch = 0;
  memset(&f, 0, sizeof(f));
  parseText(zFilter, &f);
  FUZZ_ASSERT(docextMatcherNew(f.a, 0, 0, &pM, &zErr)==SQLITE_OK, "bad model filter");
  FUZZ_ASSERT(docextMatcherMatch(pM, pDoc->a, &bMatch, 0, &zErr)==SQLITE_OK, "model match failed");
  docextMatcherFree(pM);
  docextBufFree(&f);
  return bMatch;
}

/* Does the model's validator take the write of aNew over aOld (NULL: an
** insert)? */
static int modelValid(const Model *pM, const DocBuf *pOld, const DocBuf *pNew){
  const char *zV = azValidator[pM->iValidator];
  if( zV==0 ) return 1;
  if( pOld && pM->bModerate && !modelMatches(pOld, zV) ) return 1;
  return modelMatches(pNew, zV);
}

static i64 queryInt(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  i64 v = -1;
  FUZZ_ASSERT(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)==SQLITE_OK, sqlite3_errmsg(db));
  if( sqlite3_step(pStmt)==SQLITE_ROW ) v = sqlite3_column_int64(pStmt, 0);
  sqlite3_finalize(pStmt);
  return v;
}

/* The collection holds exactly the model's documents, and a filter finds
** as many through the planner as the matcher does in the model. */
static void checkAgainstModel(sqlite3 *db, const Model *pM, Prog *p){
  sqlite3_stmt *pStmt = 0;
  char *zFilter, *zSql;
  int i, nModel = 0, nMatch = 0, k = progByte(p);
  FUZZ_ASSERT(sqlite3_prepare_v2(db, "SELECT bson FROM c WHERE _id = ?1", -1, &pStmt, 0)==SQLITE_OK,
              sqlite3_errmsg(db));
  for(i=0; i<N_SLOT; i++){
    const DocBuf *pDoc = &pM->aDoc[i];
    int rc;
    sqlite3_bind_int(pStmt, 1, i);
    rc = sqlite3_step(pStmt);
    if( pDoc->n==0 ){
      FUZZ_ASSERT(rc==SQLITE_DONE, "a document the model does not have");
    }else{
      FUZZ_ASSERT(rc==SQLITE_ROW, "a document of the model is missing");
      FUZZ_ASSERT(sqlite3_column_bytes(pStmt, 0)==pDoc->n
                  && memcmp(sqlite3_column_blob(pStmt, 0), pDoc->a, (size_t)pDoc->n)==0,
                  "a document differs from the model's");
      nModel++;
    }
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  FUZZ_ASSERT(queryInt(db, "SELECT count(*) FROM c")==nModel, "the count differs");

  switch( k%4 ){
    case 0:  zFilter = sqlite3_mprintf("{a: %d}", (k/4)%5); break;
    case 1:  zFilter = sqlite3_mprintf("{tags: %d}", (k/4)%6); break;
    case 2:  zFilter = sqlite3_mprintf("{a: {$gte: %d}, tags: {$size: %d}}", (k/4)%5, (k/16)%4); break;
    default: zFilter = sqlite3_mprintf("{tags: {$elemMatch: {$gt: %d}}}", (k/4)%6); break;
  }
  for(i=0; i<N_SLOT; i++){
    if( pM->aDoc[i].n && modelMatches(&pM->aDoc[i], zFilter) ) nMatch++;
  }
  zSql = sqlite3_mprintf("SELECT count(*) FROM c('%s')", zFilter);
  FUZZ_ASSERT(queryInt(db, zSql)==nMatch, "a filter finds other documents than the model's");
  sqlite3_free(zSql);
  sqlite3_free(zFilter);
}

static const char *azIndex[] = {
  "{a: 1}", "{tags: 1}", "{a: 1, tags: -1}", "{s: 1}", "{a: \"hashed\"}",
};

/* One operation of the program. pSaved/bInSavepoint: the model as of the
** open savepoint. */
static void step(sqlite3 *db, Model *pM, Model *pSaved, int *pbInSavepoint, Prog *p){
  int op = progByte(p), iSlot = progByte(p)%N_SLOT;
  switch( op%11 ){
    case 0: case 1: {                              /* insert or replace */
      char *zText = newDocText(p, iSlot);
      DocBuf doc;
      int bReplace = op%11==1;
      int bOld, bValid, eRun;
      memset(&doc, 0, sizeof(doc));
      parseText(zText, &doc);
      bOld = pM->aDoc[iSlot].n>0;
      bValid = modelValid(pM, bReplace && bOld ? &pM->aDoc[iSlot] : 0, &doc);
      eRun = run(db, sqlite3_mprintf("INSERT %s INTO c(doc) VALUES (?1)",
                                     bReplace ? "OR REPLACE" : ""), &doc);
      if( eRun==RUN_OK ){
        FUZZ_ASSERT(bReplace || !bOld, "a duplicate _id was inserted");
        FUZZ_ASSERT(bValid, "a document the validator refuses was inserted");
        modelSet(pM, iSlot, doc.a, doc.n);
      }
      FUZZ_ASSERT(eRun!=RUN_ERR || !bValid, "an insert the validator takes failed");
      sqlite3_free(zText);
      docextBufFree(&doc);
      break;
    }
    case 2:
      if( run(db, sqlite3_mprintf("DELETE FROM c WHERE _id = %d", iSlot), 0)==RUN_OK ){
        docextBufReset(&pM->aDoc[iSlot]);
      }
      break;
    case 3: case 4: {                               /* an update */
      char *zUpdate = newUpdateText(p);
      DocBuf out;
      int bModel, eRun, bChanged = 0;
      memset(&out, 0, sizeof(out));
      bModel = pM->aDoc[iSlot].n && modelUpdate(&pM->aDoc[iSlot], zUpdate, &out, &bChanged);
      /* (an update that changes nothing writes nothing, and checks nothing) */
      if( bModel && bChanged && !modelValid(pM, &pM->aDoc[iSlot], &out) ) bModel = 0;
      eRun = run(db, sqlite3_mprintf("SELECT doc_update_one('c', '{_id: %d}', '%s')",
                                     iSlot, zUpdate), 0);
      if( eRun==RUN_OK && pM->aDoc[iSlot].n ){
        FUZZ_ASSERT(bModel, "the collection took an update the model refuses");
        modelSet(pM, iSlot, out.a, out.n);
      }
      FUZZ_ASSERT(eRun!=RUN_ERR || (pM->aDoc[iSlot].n && !bModel),
                  "the collection refused an update the model takes");
      sqlite3_free(zUpdate);
      docextBufFree(&out);
      break;
    }
    case 5: {
      int k = progByte(p);
      run(db, sqlite3_mprintf("SELECT doc_create_index('c', '%s', '{unique: %s, sparse: %s}')",
                              azIndex[k%5], (k/5)%3==0 ? "true" : "false",
                              (k/15)%2 ? "true" : "false"), 0);
      break;
    }
    case 6:
      run(db, sqlite3_mprintf("SELECT doc_drop_index('c', '%s')", azIndex[progByte(p)%5]), 0);
      break;
    case 7: {                                       /* replacement by UPDATE */
      char *zText = newDocText(p, iSlot);
      DocBuf doc;
      int bValid, eRun;
      memset(&doc, 0, sizeof(doc));
      parseText(zText, &doc);
      bValid = pM->aDoc[iSlot].n==0 || modelValid(pM, &pM->aDoc[iSlot], &doc);
      eRun = run(db, sqlite3_mprintf("UPDATE c SET doc = ?1 WHERE _id = %d", iSlot), &doc);
      if( eRun==RUN_OK && pM->aDoc[iSlot].n ){
        FUZZ_ASSERT(bValid, "a replacement the validator refuses was made");
        modelSet(pM, iSlot, doc.a, doc.n);
      }
      FUZZ_ASSERT(eRun!=RUN_ERR || !bValid, "a replacement the validator takes failed");
      sqlite3_free(zText);
      docextBufFree(&doc);
      break;
    }
    case 8: {                                       /* doc_update_many */
      char *zUpdate = newUpdateText(p);
      char *zFilter = sqlite3_mprintf("{a: %d}", progByte(p)%5);
      DocBuf aOut[N_SLOT];
      int i, bAll = 1, eRun;
      memset(aOut, 0, sizeof(aOut));
      for(i=0; i<N_SLOT; i++){
        int bChanged = 0;
        if( pM->aDoc[i].n && modelMatches(&pM->aDoc[i], zFilter)
            && (!modelUpdate(&pM->aDoc[i], zUpdate, &aOut[i], &bChanged)
                || (bChanged && !modelValid(pM, &pM->aDoc[i], &aOut[i]))) ){
          bAll = 0;
        }
      }
      eRun = run(db, sqlite3_mprintf("SELECT doc_update_many('c', '%s', '%s')", zFilter, zUpdate), 0);
      if( eRun==RUN_OK ){
        FUZZ_ASSERT(bAll, "the collection took an update the model refuses");
        for(i=0; i<N_SLOT; i++){
          if( aOut[i].n ) modelSet(pM, i, aOut[i].a, aOut[i].n);
        }
      }
      FUZZ_ASSERT(eRun!=RUN_ERR || !bAll, "the collection refused an update the model takes");
      for(i=0; i<N_SLOT; i++) docextBufFree(&aOut[i]);
      sqlite3_free(zFilter);
      sqlite3_free(zUpdate);
      break;
    }
    case 9: {                                       /* a validator */
      int k = progByte(p), iV = k%DOCEXT_COUNT(azValidator), bModerate = (k/4)%2;
      const char *zV = azValidator[iV];
      FUZZ_ASSERT(run(db, sqlite3_mprintf("SELECT doc_coll_mod('c', '{validator: %s, "
                                          "validationLevel: \"%s\"}')", zV ? zV : "{}",
                                          bModerate ? "moderate" : "strict"), 0)==RUN_OK,
                  "doc_coll_mod failed");
      pM->iValidator = iV;
      pM->bModerate = bModerate;
      break;
    }
    default:
      if( !*pbInSavepoint ){
        run(db, sqlite3_mprintf("SAVEPOINT s"), 0);
        modelCopy(pSaved, pM);
        *pbInSavepoint = 1;
      }else if( iSlot&1 ){
        run(db, sqlite3_mprintf("ROLLBACK TO s"), 0);
        run(db, sqlite3_mprintf("RELEASE s"), 0);
        modelCopy(pM, pSaved);
        *pbInSavepoint = 0;
      }else{
        run(db, sqlite3_mprintf("RELEASE s"), 0);
        *pbInSavepoint = 0;
      }
      break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData){
  sqlite3 *db = 0;
  Model m, saved;
  Prog prog;
  int bInSavepoint = 0, nStep = 0;
  if( nData>4096 ) return 0;
  memset(&m, 0, sizeof(m));
  memset(&saved, 0, sizeof(saved));
  prog.a = aData;  prog.n = nData;  prog.i = 0;
  FUZZ_ASSERT(sqlite3_open(":memory:", &db)==SQLITE_OK, "cannot open");
  FUZZ_ASSERT(sqlite3_docext_init(db, 0, 0)==SQLITE_OK, "cannot load docext");
  FUZZ_ASSERT(sqlite3_exec(db, "PRAGMA page_size=512; CREATE VIRTUAL TABLE c USING docext",
                           0, 0, 0)==SQLITE_OK, sqlite3_errmsg(db));
  while( prog.i<prog.n && nStep++<64 ){
    step(db, &m, &saved, &bInSavepoint, &prog);
    checkAgainstModel(db, &m, &prog);
  }
  if( bInSavepoint ) run(db, sqlite3_mprintf("RELEASE s"), 0);
  fuzzCheckCollection(db);
  sqlite3_close(db);
  modelFree(&m);
  modelFree(&saved);
  return 0;
}
