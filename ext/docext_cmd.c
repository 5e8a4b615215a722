/*
** docext_cmd.c — collection commands that write many documents:
** doc_update_one, doc_update_many, doc_delete_one, doc_delete_many and
** doc_find_and_modify (INTERFACE.md §5).
**
** Every command is atomic: it opens a SAVEPOINT (outside a transaction
** also taking the write lock, so that no other connection can change the
** documents between the finding and the writing), finds the matching
** documents first (so a write never disturbs the scan that found it), then
** writes them; the savepoint is rolled back on any error — a unique violation
** on the 500th document leaves the first 499 as they were, index entries
** included. Inside an enclosing transaction the savepoint nests, so a later
** ROLLBACK undoes the command too.
**
** On a sharded collection the commands go through its router: the find
** to the shards the filter targets, each write to the document's shard
** (one whose shard key changes moves to its new chunk's shard; an upsert
** needs every shard-key field), and
** the savepoint covers every shard, as SQLite's savepoints cover every
** attached database.
**
** Upserts follow MongoDB: the new document starts from the filter's
** equality conditions (also $eq, a one-value $in or $all, inside $and or a
** one-clause $or; dotted paths building embedded documents, _id
** included), then the update applies with $setOnInsert; a replacement
** takes only the filter's _id, when it has none.
*/
#include "docextInt.h"

/* One matched document. */
typedef struct CmdMatch CmdMatch;
struct CmdMatch {
  i64 iDoc;
  int iPos;                 /* matched array position, for "$" */
  i64 iKey;                 /* sharded: its shard key, Cmd.keys[iKey..+nKey) */
  int nKey;
};

/* What a command is working on; freed by cmdClear. */
typedef struct Cmd Cmd;
struct Cmd {
  sqlite3 *db;
  DocColl *pColl;
  DocRouter *pR;            /* pColl's router when it is sharded, else NULL */
  DocBuf filter, update, options, sort, queryOpt, updateOpt, fields;
  DocBuf keys;              /* sharded: the matched documents' shard keys */
  int bFilter, bSort, bFields;
  int bPipeline;            /* update holds a pipeline's stages (an array) */
  i64 nowMs;                /* $$NOW of the whole command (filter, pipeline,
                            ** upsert): read at the first that needs it */
  DocUpdate *pUpdate;
  CmdMatch *aMatch;
  int nMatch, nMatchAlloc;
  char *zErr;
  int bSavepoint;
  int bBypass;              /* bypassDocumentValidation: true */
  int bBypassOn;            /* ... and set on the collections below */
  DocPartition *aBypass;    /* sharded: the partitions it is set on */
  int nBypass;
};

static void cmdClear(Cmd *p){
  docextBufFree(&p->filter);
  docextBufFree(&p->update);
  docextBufFree(&p->options);
  docextBufFree(&p->sort);
  docextBufFree(&p->queryOpt);
  docextBufFree(&p->updateOpt);
  docextBufFree(&p->fields);
  docextBufFree(&p->keys);
  docextUpdateFree(p->pUpdate);
  docextRouterFree(p->pR);
  sqlite3_free(p->aMatch);
  sqlite3_free(p->aBypass);
  sqlite3_free(p->zErr);
}

/* A document argument (BLOB or TEXT) copied into pBuf. pbPipeline, if not
** NULL: the update argument, which may also be a pipeline's stages. */
static int cmdArg(Cmd *p, sqlite3_value *pVal, const char *zWhat, DocBuf *pBuf,
                  int *pbPipeline){
  DocBuf tmp;
  const u8 *aDoc;
  char *zErr = 0;
  int rc;
  memset(&tmp, 0, sizeof(tmp));
  if( pbPipeline ) rc = docextArgToUpdate(pVal, &tmp, &aDoc, pbPipeline, &zErr);
  else rc = docextArgToBson(pVal, &tmp, &aDoc, &zErr);
  if( rc==SQLITE_OK ){
    docextBufReset(pBuf);
    docextBufAppend(&rc, pBuf, aDoc, docextGetI32(aDoc));
  }else{
    p->zErr = sqlite3_mprintf("docext: in %s: %s", zWhat, zErr ? zErr+8 : "bad document");
    sqlite3_free(zErr);
  }
  docextBufFree(&tmp);
  return rc;
}

static int cmdDocArg(Cmd *p, sqlite3_value *pVal, const char *zWhat, DocBuf *pBuf){
  return cmdArg(p, pVal, zWhat, pBuf, 0);
}

static int cmdOptSet(DocBuf *pBuf, const char *zKey, const DocValue *v);

/* Compile the update: operators, a replacement or a pipeline. Without a
** collation of its own it compares as the collection's default does (the
** query finds it there by itself). */
static int cmdCompileUpdate(Cmd *p){
  const u8 *aOpt;
  DocCollator *pDefault = 0;
  DocValue v;
  int rc = SQLITE_OK;
  if( !(p->updateOpt.n && docextBsonFind(p->updateOpt.a, "collation", 9, &v)) ){
    rc = docextCollCollation(p->pColl, &pDefault, &p->zErr);
    if( rc==SQLITE_OK && pDefault ){
      v.type = DOC_DOCUMENT;
      v.p = docextCollatorSpec(pDefault);
      v.n = docextGetI32(v.p);
      rc = cmdOptSet(&p->updateOpt, "collation", &v);
    }
    if( rc!=SQLITE_OK ) return rc;
  }
  aOpt = p->updateOpt.n ? p->updateOpt.a : 0;
  if( p->bPipeline ){
    if( p->nowMs==0 ) p->nowMs = docextClockNowMs();
    return docextUpdateNewPipeline(p->update.a, aOpt, p->nowMs, &p->pUpdate, &p->zErr);
  }
  return docextUpdateNew(p->update.a, aOpt, &p->pUpdate, &p->zErr);
}

/* Set field zKey of the options document in pBuf (empty: none yet) to v,
** replacing an earlier value. */
static int cmdOptSet(DocBuf *pBuf, const char *zKey, const DocValue *v){
  int rc = SQLITE_OK;
  int nKey = (int)strlen(zKey);
  DocBuf old;
  i64 iStart;
  old = *pBuf;
  memset(pBuf, 0, sizeof(*pBuf));
  iStart = docextBsonStartDoc(&rc, pBuf);
  if( old.n ){
    DocIter it;
    docextIterInit(&it, old.a);
    while( docextIterNext(&it) ){
      if( it.nKey!=nKey || memcmp(it.zKey, zKey, nKey)!=0 ){
        docextBsonAppendValue(&rc, pBuf, it.zKey, it.nKey, &it.v);
      }
    }
  }
  docextBsonAppendValue(&rc, pBuf, zKey, nKey, v);
  docextBsonEndDoc(&rc, pBuf, iStart);
  docextBufFree(&old);
  return rc;
}

/* Copy a document value into pBuf as a document. */
static int cmdCopyDoc(Cmd *p, const DocValue *v, const char *zWhat, DocBuf *pBuf){
  int rc = SQLITE_OK;
  if( v->type!=DOC_DOCUMENT ){
    p->zErr = sqlite3_mprintf("docext: %s must be a document", zWhat);
    return SQLITE_ERROR;
  }
  docextBufReset(pBuf);
  docextBufAppend(&rc, pBuf, v->p, v->n);
  return rc;
}

/* Start: find the collection (argument 0, held for the call) and, when
** it is sharded, its router; open the savepoint later. */
static int cmdInit(Cmd *p, sqlite3_context *ctx, sqlite3_value *pName){
  DocConn *pConn = (DocConn*)sqlite3_user_data(ctx);
  int rc;
  memset(p, 0, sizeof(*p));
  p->db = sqlite3_context_db_handle(ctx);
  rc = docextCollFindArg(pConn, ctx, 0, pName, &p->pColl, &p->zErr);
  if( rc==SQLITE_OK ) rc = docextRouterOpen(pConn, p->pColl, &p->pR, &p->zErr);
  return rc;
}

/* The writes, each to the collection or through its router (a matched
** document's id is then the router's rowid). */
static int cmdInsert(Cmd *p, const u8 *aDoc, i64 *piDoc){
  if( p->pR ) return docextRouterInsert(p->pR, aDoc, 0, SQLITE_ABORT, piDoc, &p->zErr);
  return docextCollInsert(p->pColl, aDoc, 0, SQLITE_ABORT, 0, piDoc, &p->zErr);
}
static int cmdReplace(Cmd *p, i64 *piDoc, const u8 *aNew){
  if( p->pR ) return docextRouterReplace(p->pR, *piDoc, aNew, 0, piDoc, &p->zErr);
  return docextCollReplace(p->pColl, *piDoc, aNew, 0, &p->zErr);
}
static int cmdDelete(Cmd *p, i64 iDoc){
  if( p->pR ) return docextRouterDelete(p->pR, iDoc, &p->zErr);
  return docextCollDelete(p->pColl, iDoc, &p->zErr);
}

/* Add a matched document (its shard key p->keys[iKey..+nKey), or none). */
static int cmdMatch(Cmd *p, i64 iDoc, int iPos, i64 iKey, int nKey){
  int rc = SQLITE_OK;
  p->aMatch = docextArrayGrow(&rc, p->aMatch, p->nMatch, &p->nMatchAlloc, sizeof(CmdMatch));
  if( rc==SQLITE_OK ){
    p->aMatch[p->nMatch].iDoc = iDoc;
    p->aMatch[p->nMatch].iPos = iPos;
    p->aMatch[p->nMatch].iKey = iKey;
    p->aMatch[p->nMatch].nKey = nKey;
    p->nMatch++;
  }
  return rc;
}

/* cmdFind on a sharded collection: through the shards its filter targets. */
static int cmdFindRouted(Cmd *p, const DocQuerySpec *pSpec, DocAccess *pAccess){
  DocRouted *pRouted = 0;
  int rc = docextRoutedNew(docextRouterRef(p->pR), pSpec, pAccess, &pRouted, &p->zErr);
  while( rc==SQLITE_OK && !docextRoutedEof(pRouted) ){
    i64 iRowid = 0, iKey = p->keys.n;
    rc = docextRoutedRowid(pRouted, &iRowid);
    /* (its key, for an in-place append, which then need not read it) */
    if( rc==SQLITE_OK ) rc = docextRoutedKey(pRouted, &p->keys, &p->zErr);
    if( rc==SQLITE_OK ){
      rc = cmdMatch(p, iRowid, docextQueryPosition(docextRoutedQuery(pRouted)),
                    iKey, (int)(p->keys.n - iKey));
    }
    if( rc==SQLITE_OK ) rc = docextRoutedNext(pRouted, &p->zErr);
  }
  docextRoutedFree(pRouted);
  docextAccessClear(pAccess);
  return rc;
}

/* Find the matching documents (at most nLimit, -1 for all), in sort order
** when there is a sort. bIdsOnly: only their ids are wanted, not the
** matched array positions, so an exact index plan need not read them. */
static int cmdFind(Cmd *p, i64 nLimit, int bIdsOnly){
  DocQuerySpec spec;
  DocQuery *pQuery = 0;
  DocAccess access;
  int rc;
  docextQuerySpecInit(&spec);
  if( p->bFilter ){
    spec.aaFilter[0] = p->filter.a;
    spec.nFilter = 1;
    if( p->nowMs==0 ) p->nowMs = docextClockNowMs();
    spec.nowMs = p->nowMs;
  }
  if( p->bSort ) spec.aSort = p->sort.a;
  if( p->queryOpt.n ) spec.aOptions = p->queryOpt.a;
  spec.nLimit = nLimit;
  spec.bCountOnly = bIdsOnly;
  docextAccessInit(&access);
  if( p->pR ){
    return cmdFindRouted(p, &spec, &access);
  }
  rc = docextQueryNew(p->pColl, &spec, &pQuery, &p->zErr);
  if( rc==SQLITE_OK ) rc = docextQueryStart(pQuery, &access, &p->zErr);
  while( rc==SQLITE_OK && !docextQueryEof(pQuery) ){
    i64 iDoc = 0;
    rc = docextQueryDocid(pQuery, &iDoc);
    if( rc==SQLITE_OK ) rc = cmdMatch(p, iDoc, docextQueryPosition(pQuery), 0, 0);
    if( rc==SQLITE_OK ) rc = docextQueryNext(pQuery, &p->zErr);
  }
  docextAccessClear(&access);
  docextQueryFree(pQuery);
  return rc;
}

/* Read document iDoc (into pOut, a copy). */
static int cmdRead(Cmd *p, i64 iDoc, DocBuf *pOut){
  DocQuerySpec spec;
  DocQuery *pQuery = 0;
  DocAccess access;
  const u8 *aDoc;
  int rc;
  if( p->pR ) return docextRouterRead(p->pR, iDoc, pOut, &p->zErr);
  docextQuerySpecInit(&spec);
  docextAccessInit(&access);
  access.eAccess = DOCEXT_ACCESS_DOCID;
  access.iDoc = iDoc;
  rc = docextQueryNew(p->pColl, &spec, &pQuery, &p->zErr);
  if( rc==SQLITE_OK ) rc = docextQueryStart(pQuery, &access, &p->zErr);
  if( rc==SQLITE_OK && docextQueryEof(pQuery) ) rc = SQLITE_CORRUPT_VTAB;
  if( rc==SQLITE_OK ) rc = docextQueryStored(pQuery, &aDoc, &p->zErr);
  if( rc==SQLITE_OK ){
    docextBufReset(pOut);
    docextBufAppend(&rc, pOut, aDoc, docextGetI32(aDoc));
  }
  docextAccessClear(&access);
  docextQueryFree(pQuery);
  return rc;
}

static int cmdSavepoint(Cmd *p){
  int bAuto = sqlite3_get_autocommit(p->db);
  int rc = docextStorageSavepoint(docextCollStore(p->pColl), DOCEXT_SP_OPEN);
  if( rc==SQLITE_OK ){
    p->bSavepoint = 1;
    rc = docextStorageSavepoint(docextCollStore(p->pColl), DOCEXT_SP_LOCK);
    if( rc==SQLITE_OK && p->pR && bAuto ) rc = docextRouterLock(p->pR, &p->zErr);
  }else if( rc==SQLITE_BUSY ){
    /* SQLite opens no savepoint while a statement that writes is running
    ** ("SQL statements in progress"): INSERT … SELECT doc_update_many(…) */
    rc = docextError(&p->zErr, "docext: a collection command cannot run inside a "
                              "statement that writes (INSERT, UPDATE, DELETE): call it "
                              "from a SELECT of its own");
  }
  return rc;
}

/* Release the savepoint, or roll it back when rc is an error. Whatever the
** command returns is built before this, so that once the changes are
** released nothing can fail; and a RELEASE that fails (out of memory)
** rolls them back, so an error never leaves them made. */
/* bypassDocumentValidation: the command's writes skip the validator, on
** every partition of a sharded collection (cmdFinish ends it). */
static int cmdBypassBegin(Cmd *p){
  int rc = SQLITE_OK, k;
  if( !p->bBypass ) return SQLITE_OK;
  if( p->pR ){
    rc = docextRouterPartitions(p->pR, &p->aBypass, &p->nBypass, &p->zErr);
    for(k=0; rc==SQLITE_OK && k<p->nBypass; k++){
      docextCollBypassValidation(p->aBypass[k].pColl, 1);
    }
  }else{
    docextCollBypassValidation(p->pColl, 1);
  }
  p->bBypassOn = rc==SQLITE_OK;
  return rc;
}

static int cmdFinish(Cmd *p, int rc){
  if( p->bBypassOn ){
    int k;
    for(k=0; k<p->nBypass; k++) docextCollBypassValidation(p->aBypass[k].pColl, 0);
    if( p->pR==0 ) docextCollBypassValidation(p->pColl, 0);
    p->bBypassOn = 0;
  }
  if( p->bSavepoint ){
    int rc2 = docextStorageSavepointEnd(docextCollStore(p->pColl), rc);
    if( rc==SQLITE_OK && rc2!=SQLITE_OK ){
      rc = rc2;
      if( p->zErr==0 && (rc & 0xff)!=SQLITE_NOMEM ){
        /* (the rollback may have cleared the connection's error) */
        p->zErr = sqlite3_mprintf("docext: %s", sqlite3_errcode(p->db)!=SQLITE_OK
                                  ? sqlite3_errmsg(p->db) : sqlite3_errstr(rc));
      }
    }
    p->bSavepoint = 0;
  }
  return rc;
}

static void cmdResultError(sqlite3_context *ctx, Cmd *p, int rc){
  if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else{
    char *z = p->zErr ? 0 : sqlite3_mprintf("docext: %s", sqlite3_errcode(p->db)!=SQLITE_OK
                                            ? sqlite3_errmsg(p->db) : sqlite3_errstr(rc));
    sqlite3_result_error(ctx, p->zErr ? p->zErr : z ? z : sqlite3_errstr(rc), -1);
    sqlite3_free(z);
    if( (rc & 0xff)!=SQLITE_ERROR ) sqlite3_result_error_code(ctx, rc);
  }
}

/* Is v an equality operand an upsert can copy (not a regex, which matches
** rather than equals, nor an {$elemMatch: …} element of $all)? */
static int upsertEqualValue(const DocValue *v){
  DocIter it;
  if( v->type==DOC_REGEX ) return 0;
  if( v->type==DOC_DOCUMENT ){
    docextIterInitValue(&it, v);
    if( docextIterNext(&it) && it.zKey[0]=='$' ) return 0;
  }
  return 1;
}

/* Add the filter's equality conditions to a {$set: {...}} under
** construction, as MongoDB's upsert takes them: {a: v} (not a regex),
** {a: {$eq: v}}, a one-value {$in: [v]}, each value of {$all: […]} (two
** values on one path then conflict, an error as in MongoDB), at the top
** level, inside $and and inside a one-clause $or. bIdOnly: only _id (a
** replacement takes nothing else from the filter); *pbDottedId is set when
** a path under _id is skipped for it. */
static void upsertEqualities(int *pRc, DocBuf *pSet, const u8 *aFilter, int bIdOnly,
                             int *pbDottedId){
  DocIter it;
  docextIterInit(&it, aFilter);
  while( docextIterNext(&it) ){
    if( it.zKey[0]=='$' ){
      if( it.v.type==DOC_ARRAY
       && (strcmp(it.zKey, "$and")==0 || strcmp(it.zKey, "$or")==0) ){
        DocIter el;
        int n = 0;
        docextIterInitValue(&el, &it.v);
        while( docextIterNext(&el) ) n++;
        if( it.zKey[1]=='o' && n!=1 ) continue;    /* $or of several: none */
        docextIterInitValue(&el, &it.v);
        while( docextIterNext(&el) ){
          if( el.v.type==DOC_DOCUMENT ){
            upsertEqualities(pRc, pSet, el.v.p, bIdOnly, pbDottedId);
          }
        }
      }
      continue;
    }
    if( bIdOnly && !(it.nKey==3 && memcmp(it.zKey, "_id", 3)==0) ){
      if( it.nKey>3 && memcmp(it.zKey, "_id.", 4)==0 ) *pbDottedId = 1;
      continue;
    }
    if( it.v.type==DOC_DOCUMENT ){
      DocIter op;
      docextIterInitValue(&op, &it.v);
      if( docextIterNext(&op) && op.zKey[0]=='$' ){
        /* operators: only $eq, a one-value $in and $all give values */
        docextIterInitValue(&op, &it.v);
        while( docextIterNext(&op) ){
          DocIter el;
          if( strcmp(op.zKey, "$eq")==0 ){
            docextBsonAppendValue(pRc, pSet, it.zKey, it.nKey, &op.v);
          }else if( op.v.type==DOC_ARRAY
                 && (strcmp(op.zKey, "$in")==0 || strcmp(op.zKey, "$all")==0) ){
            int n = 0;
            docextIterInitValue(&el, &op.v);
            while( docextIterNext(&el) ) n++;
            if( op.zKey[1]=='i' && n!=1 ) continue;
            docextIterInitValue(&el, &op.v);
            while( docextIterNext(&el) ){
              if( upsertEqualValue(&el.v) ){
                docextBsonAppendValue(pRc, pSet, it.zKey, it.nKey, &el.v);
              }
            }
          }
        }
        continue;
      }
    }
    if( it.v.type==DOC_REGEX ) continue;
    docextBsonAppendValue(pRc, pSet, it.zKey, it.nKey, &it.v);
  }
}

/* Build the document an upsert inserts into pOut. */
static int cmdUpsertDoc(Cmd *p, DocBuf *pOut){
  DocBuf set, seed;
  DocUpdate *pSeed = 0;
  int rc = SQLITE_OK, bChanged = 0, bDottedId = 0;
  i64 iOuter, iInner;
  static const u8 aEmpty[5] = {5,0,0,0,0};
  memset(&set, 0, sizeof(set));
  memset(&seed, 0, sizeof(seed));
  iOuter = docextBsonStartDoc(&rc, &set);
  iInner = docextBsonStartChild(&rc, &set, DOC_DOCUMENT, "$set", 4);
  if( p->bFilter ){
    upsertEqualities(&rc, &set, p->filter.a, docextUpdateIsReplacement(p->pUpdate),
                     &bDottedId);
  }
  docextBsonEndDoc(&rc, &set, iInner);
  docextBsonEndDoc(&rc, &set, iOuter);
  if( rc!=SQLITE_OK ) goto done;
  if( bDottedId ){
    p->zErr = sqlite3_mprintf("docext: an upsert with a replacement document takes "
                              "_id from the filter only as a whole ({_id: …}), not by "
                              "its fields ('_id.x')");
    rc = SQLITE_ERROR;
    goto done;
  }
  if( docextGetI32(set.a + iInner)>5 ){
    /* The equality fields, applied to {} so dotted paths nest. */
    rc = docextUpdateNew(set.a, 0, &pSeed, &p->zErr);
    if( rc==SQLITE_ERROR && p->zErr ){
      /* two equalities on one path, or on a path and a field under it */
      char *z = sqlite3_mprintf("docext: cannot infer the upserted document's "
                                "fields from the filter: %s", p->zErr+8);
      sqlite3_free(p->zErr);
      p->zErr = z;
      if( z==0 ) rc = SQLITE_NOMEM;
    }
    if( rc==SQLITE_OK ) rc = docextUpdateApply(pSeed, aEmpty, -1, 1, &seed, &bChanged, &p->zErr);
  }else{
    docextBufAppend(&rc, &seed, aEmpty, 5);
  }
  if( rc!=SQLITE_OK ) goto done;
  if( docextUpdateIsReplacement(p->pUpdate) ){
    /* The replacement, with the filter's _id when it has none. */
    DocValue id;
    rc = docextUpdateApply(p->pUpdate, seed.a, -1, 1, pOut, &bChanged, &p->zErr);
    if( rc==SQLITE_OK && !docextBsonFind(pOut->a, "_id", 3, &id)
     && docextBsonFind(seed.a, "_id", 3, &id) ){
      DocBuf withId;
      memset(&withId, 0, sizeof(withId));
      docextBsonWithId(&rc, &withId, &id, pOut->a);
      docextBufReset(pOut);
      if( rc==SQLITE_OK ) docextBufAppend(&rc, pOut, withId.a, withId.n);
      docextBufFree(&withId);
    }
  }else{
    rc = docextUpdateApply(p->pUpdate, seed.a, -1, 1, pOut, &bChanged, &p->zErr);
  }
done:
  docextUpdateFree(pSeed);
  docextBufFree(&set);
  docextBufFree(&seed);
  return rc;
}

/* Insert the upsert document; its _id, as relaxed JSON, into pId. */
static int cmdUpsert(Cmd *p, DocBuf *pNewDoc, DocBuf *pId){
  i64 iDoc = 0;
  DocBuf stored;
  int rc = cmdUpsertDoc(p, pNewDoc);
  memset(&stored, 0, sizeof(stored));
  if( rc==SQLITE_OK ) rc = cmdInsert(p, pNewDoc->a, &iDoc);
  if( rc==SQLITE_OK ) rc = cmdRead(p, iDoc, &stored);     /* _id first, maybe new */
  if( rc==SQLITE_OK ){
    DocValue id;
    docextBsonFind(stored.a, "_id", 3, &id);
    docextJsonWriteValue(&rc, pId, &id, DOCEXT_JSON_RELAXED);
    docextBufReset(pNewDoc);
    docextBufAppend(&rc, pNewDoc, stored.a, stored.n);
  }
  docextBufFree(&stored);
  return rc;
}

/* let (the variables of the filter's $expr and of a pipeline update) and
** collation (of the filter, the sort and the update's operators): options
** of both the query and the update. */
static int cmdOptBoth(Cmd *p, const char *zKey, const DocValue *v){
  int rc = cmdOptSet(&p->queryOpt, zKey, v);
  if( rc==SQLITE_OK ) rc = cmdOptSet(&p->updateOpt, zKey, v);
  return rc;
}

/* An option that doc_update_one/many and doc_find_and_modify share
** (upsert, arrayFilters, hint, sort, let, collation, bypassDocumentValidation): 1 when
** zKey is one (taken from v, *pRc set), else 0. */
static int cmdUpdateOption(Cmd *p, const char *zKey, const DocValue *v, int *pbUpsert,
                           int *pRc){
  if( strcmp(zKey, "upsert")==0 ){
    *pbUpsert = docextValueTruth(v);
  }else if( strcmp(zKey, "arrayFilters")==0 ){
    *pRc = cmdOptSet(&p->updateOpt, "arrayFilters", v);
  }else if( strcmp(zKey, "hint")==0 ){
    *pRc = cmdOptSet(&p->queryOpt, zKey, v);
  }else if( strcmp(zKey, "let")==0 || strcmp(zKey, "collation")==0 ){
    *pRc = cmdOptBoth(p, zKey, v);
  }else if( strcmp(zKey, "bypassDocumentValidation")==0 ){
    p->bBypass = docextValueTruth(v);
  }else if( strcmp(zKey, "sort")==0 ){
    *pRc = cmdCopyDoc(p, v, "sort", &p->sort);
    p->bSort = 1;
  }else{
    return 0;
  }
  return 1;
}

/* Options of doc_update_one/many: those of cmdUpdateOption. */
static int cmdUpdateOptions(Cmd *p, int *pbUpsert){
  DocIter it;
  int rc = SQLITE_OK;
  *pbUpsert = 0;
  if( p->options.n==0 ) return SQLITE_OK;
  docextIterInit(&it, p->options.a);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( !cmdUpdateOption(p, it.zKey, &it.v, pbUpsert, &rc) ){
      p->zErr = sqlite3_mprintf("docext: unknown option '%s' (known: upsert, "
                                "arrayFilters, hint, sort, let, collation, "
                                "bypassDocumentValidation)",
                                it.zKey);
      rc = SQLITE_ERROR;
    }
  }
  return rc;
}

/* Apply the update to every matched document. */
static int cmdApplyUpdates(Cmd *p, int *pnModified, DocBuf *pLast){
  DocBuf old, neu;
  int i, rc = SQLITE_OK;
  memset(&old, 0, sizeof(old));
  memset(&neu, 0, sizeof(neu));
  *pnModified = 0;
  for(i=0; rc==SQLITE_OK && i<p->nMatch; i++){
    int bChanged = 0;
    if( pLast==0 ){
      /* A $push onto a large document: only the pages it touches. */
      const CmdMatch *m = &p->aMatch[i];
      int bDone = 0;
      rc = p->pR ? docextRouterAppendInPlace(p->pR, m->iDoc, &p->keys.a[m->iKey], m->nKey,
                                             p->pUpdate, &bDone, &p->zErr)
                 : docextCollAppendInPlace(p->pColl, m->iDoc, p->pUpdate, &bDone, 0, &p->zErr);
      if( rc!=SQLITE_OK ) break;
      if( bDone ){
        (*pnModified)++;
        continue;
      }
    }
    rc = cmdRead(p, p->aMatch[i].iDoc, &old);
    if( rc==SQLITE_OK ){
      rc = docextUpdateApply(p->pUpdate, old.a, p->aMatch[i].iPos, 0, &neu, &bChanged, &p->zErr);
    }
    if( rc==SQLITE_OK && bChanged ){
      rc = cmdReplace(p, &p->aMatch[i].iDoc, neu.a);     /* (moved: a new id) */
      if( rc==SQLITE_OK ) (*pnModified)++;
    }
    if( rc==SQLITE_OK && pLast ){
      docextBufReset(pLast);
      if( bChanged ) rc = cmdRead(p, p->aMatch[i].iDoc, pLast);
      else docextBufAppend(&rc, pLast, old.a, old.n);
    }
  }
  docextBufFree(&old);
  docextBufFree(&neu);
  return rc;
}

/* doc_update_one(coll, filter, update [, options]) and doc_update_many. */
static void updateFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv, int bMany){
  Cmd c;
  DocBuf newDoc, id, out;
  int rc, bUpsert = 0, nModified = 0;
  memset(&newDoc, 0, sizeof(newDoc));
  memset(&id, 0, sizeof(id));
  memset(&out, 0, sizeof(out));
  rc = cmdInit(&c, ctx, argv[0]);
  if( rc==SQLITE_OK && sqlite3_value_type(argv[1])!=SQLITE_NULL ){
    rc = cmdDocArg(&c, argv[1], "filter", &c.filter);
    c.bFilter = 1;
  }
  if( rc==SQLITE_OK ) rc = cmdArg(&c, argv[2], "update", &c.update, &c.bPipeline);
  if( rc==SQLITE_OK && argc>3 && sqlite3_value_type(argv[3])!=SQLITE_NULL ){
    rc = cmdDocArg(&c, argv[3], "options", &c.options);
  }
  if( rc==SQLITE_OK ) rc = cmdUpdateOptions(&c, &bUpsert);
  if( rc==SQLITE_OK ) rc = cmdCompileUpdate(&c);
  if( rc==SQLITE_OK && bMany && docextUpdateIsReplacement(c.pUpdate) ){
    c.zErr = sqlite3_mprintf("docext: doc_update_many needs update operators, "
                             "not a replacement document (multi update only works with $ operators)");
    rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK ) rc = cmdSavepoint(&c);
  if( rc==SQLITE_OK ) rc = cmdFind(&c, bMany ? -1 : 1, !docextUpdateIsPositional(c.pUpdate));
  if( rc==SQLITE_OK ) rc = cmdBypassBegin(&c);
  if( rc==SQLITE_OK ){
    if( c.nMatch==0 && bUpsert ){
      rc = cmdUpsert(&c, &newDoc, &id);
    }else{
      rc = cmdApplyUpdates(&c, &nModified, 0);
    }
  }
  if( rc==SQLITE_OK ){
    docextBufAppendf(&rc, &out, "{\"matchedCount\":%d,\"modifiedCount\":%d,\"upsertedId\":",
                     c.nMatch, nModified);
    if( id.n ) docextBufAppend(&rc, &out, id.a, id.n);
    else docextBufAppendStr(&rc, &out, "null");
    /* (upsertedId alone cannot tell "none" from an upserted _id of null) */
    docextBufAppendf(&rc, &out, ",\"upsertedCount\":%d}", id.n ? 1 : 0);
  }
  rc = cmdFinish(&c, rc);
  if( rc==SQLITE_OK ) docextBufResultText(ctx, &out);
  else cmdResultError(ctx, &c, rc);
  docextBufFree(&newDoc);
  docextBufFree(&id);
  docextBufFree(&out);
  cmdClear(&c);
}

static void updateOneFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  updateFunc(ctx, argc, argv, 0);
}
static void updateManyFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  updateFunc(ctx, argc, argv, 1);
}

/* Options of doc_delete_one/many: hint, let, collation. */
static int cmdDeleteOptions(Cmd *p){
  DocIter it;
  int rc = SQLITE_OK;
  docextIterInit(&it, p->options.a);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( strcmp(it.zKey, "hint")==0 || strcmp(it.zKey, "let")==0
     || strcmp(it.zKey, "collation")==0 ){
      rc = cmdOptSet(&p->queryOpt, it.zKey, &it.v);
    }else{
      p->zErr = sqlite3_mprintf("docext: unknown option '%s' (known: hint, let, collation)",
                                it.zKey);
      rc = SQLITE_ERROR;
    }
  }
  return rc;
}

/* doc_delete_one(coll, filter [, options]) and doc_delete_many. */
static void deleteFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv, int bMany){
  Cmd c;
  int rc, i;
  rc = cmdInit(&c, ctx, argv[0]);
  if( rc==SQLITE_OK && sqlite3_value_type(argv[1])!=SQLITE_NULL ){
    rc = cmdDocArg(&c, argv[1], "filter", &c.filter);
    c.bFilter = 1;
  }
  if( rc==SQLITE_OK && argc>2 && sqlite3_value_type(argv[2])!=SQLITE_NULL ){
    rc = cmdDocArg(&c, argv[2], "options", &c.options);
    if( rc==SQLITE_OK ) rc = cmdDeleteOptions(&c);
  }
  if( rc==SQLITE_OK ) rc = cmdSavepoint(&c);
  if( rc==SQLITE_OK ) rc = cmdFind(&c, bMany ? -1 : 1, 1);
  for(i=0; rc==SQLITE_OK && i<c.nMatch; i++){
    rc = cmdDelete(&c, c.aMatch[i].iDoc);
  }
  rc = cmdFinish(&c, rc);
  if( rc==SQLITE_OK ) sqlite3_result_int(ctx, c.nMatch);
  else cmdResultError(ctx, &c, rc);
  cmdClear(&c);
}

static void deleteOneFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  deleteFunc(ctx, argc, argv, 0);
}
static void deleteManyFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  deleteFunc(ctx, argc, argv, 1);
}

/* Read doc_find_and_modify's spec. */
static int famSpec(Cmd *p, int *pbRemove, int *pbNew, int *pbUpsert, int *pbUpdate){
  DocIter it;
  DocValue v;
  int rc = SQLITE_OK;
  docextIterInit(&it, p->options.a);
  while( rc==SQLITE_OK && docextIterNext(&it) ){
    if( strcmp(it.zKey, "query")==0 ){
      rc = cmdCopyDoc(p, &it.v, "query", &p->filter);
      p->bFilter = 1;
    }else if( strcmp(it.zKey, "update")==0 ){
      /* a document, or an array (a pipeline's stages: the same layout) */
      DocValue u = it.v;
      p->bPipeline = u.type==DOC_ARRAY;
      if( p->bPipeline ) u.type = DOC_DOCUMENT;
      rc = cmdCopyDoc(p, &u, "update", &p->update);
      *pbUpdate = 1;
    }else if( strcmp(it.zKey, "fields")==0 ){
      rc = cmdCopyDoc(p, &it.v, "fields", &p->fields);
      p->bFields = 1;
    }else if( strcmp(it.zKey, "remove")==0 ){
      *pbRemove = docextValueTruth(&it.v);
    }else if( strcmp(it.zKey, "new")==0 ){
      *pbNew = docextValueTruth(&it.v);
    }else if( !cmdUpdateOption(p, it.zKey, &it.v, pbUpsert, &rc) ){
      p->zErr = sqlite3_mprintf("docext: unknown field '%s' in doc_find_and_modify "
          "(known: query, sort, update, remove, new, fields, upsert, arrayFilters, hint, let, "
          "collation, bypassDocumentValidation)", it.zKey);
      rc = SQLITE_ERROR;
    }
  }
  if( rc==SQLITE_OK && *pbRemove==*pbUpdate ){
    p->zErr = sqlite3_mprintf(*pbRemove
        ? "docext: doc_find_and_modify cannot combine remove: true with update"
        : "docext: doc_find_and_modify needs either update or remove: true");
    rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_OK && *pbRemove && (*pbUpsert || *pbNew
       || (p->updateOpt.n && docextBsonFind(p->updateOpt.a, "arrayFilters", 12, &v))) ){
    p->zErr = sqlite3_mprintf("docext: doc_find_and_modify cannot combine remove "
                              "with upsert, new or arrayFilters");
    rc = SQLITE_ERROR;
  }
  return rc;
}

/* The query's $text, bound to the collection's text index, which scores
** a {$meta: "textScore"} of fields (*ppOut: its matcher; without a $text,
** the projection's error). */
static int famScorer(Cmd *p, DocMatcher **ppOut){
  *ppOut = 0;
  if( !p->bFilter ) return SQLITE_OK;
  return docextCollTextScorer(p->pColl, p->filter.a, 0, &p->nowMs, ppOut, &p->zErr);
}

/* doc_find_and_modify(coll, spec) */
static void findAndModifyFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Cmd c;
  DocBuf before, after, id, proj, txt;
  int rc, bRemove = 0, bNew = 0, bUpsert = 0, bUpdate = 0, nModified = 0;
  const DocBuf *pResult = 0;
  (void)argc;
  memset(&before, 0, sizeof(before));
  memset(&after, 0, sizeof(after));
  memset(&id, 0, sizeof(id));
  memset(&proj, 0, sizeof(proj));
  memset(&txt, 0, sizeof(txt));
  rc = cmdInit(&c, ctx, argv[0]);
  if( rc==SQLITE_OK ) rc = cmdDocArg(&c, argv[1], "spec", &c.options);
  if( rc==SQLITE_OK ) rc = famSpec(&c, &bRemove, &bNew, &bUpsert, &bUpdate);
  if( rc==SQLITE_OK && bUpdate ) rc = cmdCompileUpdate(&c);
  if( rc==SQLITE_OK ) rc = cmdSavepoint(&c);
  if( rc==SQLITE_OK ) rc = cmdFind(&c, 1, 0);
  if( rc==SQLITE_OK ) rc = cmdBypassBegin(&c);
  if( rc==SQLITE_OK && c.nMatch==1 ){
    rc = cmdRead(&c, c.aMatch[0].iDoc, &before);
    if( rc==SQLITE_OK && bRemove ){
      rc = cmdDelete(&c, c.aMatch[0].iDoc);
    }else if( rc==SQLITE_OK ){
      rc = cmdApplyUpdates(&c, &nModified, &after);
    }
    pResult = bNew ? &after : &before;
  }else if( rc==SQLITE_OK && bUpsert ){
    rc = cmdUpsert(&c, &after, &id);
    pResult = bNew ? &after : 0;
  }
  if( rc==SQLITE_OK && pResult ){
    const u8 *aOut = pResult->a;
    if( c.bFields ){
      DocProjection *pProj = 0;
      DocMatcher *pScorer = 0;
      rc = docextProjectionNew(c.fields.a, &pProj, &c.zErr);
      if( rc==SQLITE_OK && docextProjectionWantsText(pProj) ){
        rc = famScorer(&c, &pScorer);
        if( rc==SQLITE_OK && pScorer ){
          docextProjectionSetText(pProj, docextMatcherText(pScorer));
        }
      }
      if( rc==SQLITE_OK ) rc = docextProjectionApply(pProj, aOut, c.nMatch ? c.aMatch[0].iPos : -1,
                                                     &proj, &c.zErr);
      docextProjectionFree(pProj);
      docextMatcherFree(pScorer);
      aOut = proj.a;
    }
    if( rc==SQLITE_OK ) docextJsonWriteDoc(&rc, &txt, aOut, DOCEXT_JSON_RELAXED);
  }
  rc = cmdFinish(&c, rc);
  if( rc==SQLITE_OK && pResult ){
    docextBufResultText(ctx, &txt);
  }else if( rc==SQLITE_OK ){
    sqlite3_result_null(ctx);
  }
  if( rc!=SQLITE_OK ) cmdResultError(ctx, &c, rc);
  docextBufFree(&before);
  docextBufFree(&after);
  docextBufFree(&id);
  docextBufFree(&proj);
  docextBufFree(&txt);
  cmdClear(&c);
}

int docextRegisterCommandFunctions(sqlite3 *db, DocConn *pConn){
  /* They write: never from triggers or views of an untrusted schema. */
  enum { F = SQLITE_UTF8|SQLITE_DIRECTONLY };
  static const DocFuncDef aFunc[] = {
    { "doc_update_one",      3, F, updateOneFunc },
    { "doc_update_one",      4, F, updateOneFunc },
    { "doc_update_many",     3, F, updateManyFunc },
    { "doc_update_many",     4, F, updateManyFunc },
    { "doc_delete_one",      2, F, deleteOneFunc },
    { "doc_delete_one",      3, F, deleteOneFunc },
    { "doc_delete_many",     2, F, deleteManyFunc },
    { "doc_delete_many",     3, F, deleteManyFunc },
    { "doc_find_and_modify", 2, F, findAndModifyFunc },
  };
  return docextCreateFunctions(db, pConn, aFunc, DOCEXT_COUNT(aFunc));
}
