/*
** docext_storage.c — a collection's shadow tables and its paged blobs.
**
** SHADOW TABLES of collection X in schema S (all in S, so they share the
** database file, its transactions and its journal with the collection):
**
**   CREATE TABLE S."X_config"(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
**       ('version', 1), ('pagesize', N): the largest page, in bytes
**       (64 to 16 MiB; anything else is a damaged collection).
**   CREATE TABLE S."X_docs"(
**       id INTEGER PRIMARY KEY,        -- document id; insertion order
**       idkey BLOB NOT NULL UNIQUE,    -- the _id index: docextKeyAppend(_id)
**       size INTEGER NOT NULL,         -- BSON size of the document
**       body BLOB,                     -- the whole document, if it is small
**       pages BLOB                     -- else its page list (below)
**   );
**   CREATE TABLE S."X_pages"(pgno INTEGER PRIMARY KEY, data BLOB NOT NULL);
**   CREATE TABLE S."X_idxdef"(id INTEGER PRIMARY KEY, name TEXT NOT NULL
**       UNIQUE, spec BLOB NOT NULL);   -- secondary index definitions
**   CREATE TABLE S."X_idx"(ix INTEGER NOT NULL, key BLOB NOT NULL,
**       docid INTEGER NOT NULL, vals BLOB, PRIMARY KEY(ix, key, docid))
**       WITHOUT ROWID;             -- vals: see docext_index.c (covering)
**   A collection made before vals existed is used as it is: its entries
**   are written and read without vals. (It does not gain the column when
**   opened: a schema change while a statement connects the table makes
**   SQLite disconnect and free the collection in use.)
**
** PAGED BLOBS. A document that fits in one page is stored inline in
** X_docs.body. A larger one is the concatenation of the data of the pages
** in its page list, a sequence of (pgno, nbytes) pairs, each a varint (7
** bits a byte, least significant first, high bit = more). Pages hold at
** most `pagesize` bytes, chosen when the collection is created so that a
** page row fits in one SQLite page without spilling into overflow pages
** (usable size - 35 bytes of payload for a table B-tree leaf, less the
** record header). Pages need not be full: because every page's length is
** in the list, bytes can be inserted into one page (splitting it when it
** outgrows the limit) without touching the pages after it, and an update
** rewrites only the pages whose bytes changed plus the list.
** The list may end with a 0 varint (no page has number 0) followed by
** "aux" bytes that belong to docext_coll.c: hints that let a $push find the
** end of a large array without reading it (DocPaged, below). Any write of a
** whole document writes a list without them.
**
** Every document read back is validated before anyone trusts it: its
** structure (lengths, terminators, types) and _id first, which is all the
** readers and writers rely on (text was checked when it was stored).
*/
#include "docextInt.h"
#include <stdarg.h>

#define DOCEXT_STORAGE_VERSION 1

/* Statements a DocStore prepares lazily and keeps. Those from STMT_ROWS_ALL
** on stay open while a reader or index cursor walks their rows, so they
** are borrowed (storeBorrow) rather than shared. */
enum {
  STMT_FIND_KEY,        /* SELECT id FROM docs WHERE idkey=? */
  STMT_INSERT_DOC,      /* INSERT INTO docs(idkey,size,body,pages) */
  STMT_UPDATE_DOC,      /* UPDATE docs SET idkey,size,body,pages WHERE id */
  STMT_DELETE_DOC,      /* DELETE FROM docs WHERE id=? */
  STMT_DOC_PAGES,       /* SELECT pages FROM docs WHERE id=? */
  STMT_INSERT_PAGE,     /* INSERT INTO pages(data) */
  STMT_UPDATE_PAGE,     /* UPDATE pages SET data=? WHERE pgno=? */
  STMT_DELETE_PAGE,     /* DELETE FROM pages WHERE pgno=? */
  STMT_READ_PAGE,       /* SELECT data FROM pages WHERE pgno=? */
  STMT_COUNT_IDX,       /* entries of index ?1 with keys in [?2, ?3), at most ?4 */
  STMT_COUNT_ID,        /* documents with _id keys in [?1, ?2), at most ?3 */
  STMT_UPDATE_LIST,     /* UPDATE docs SET size=?, pages=? WHERE id=? */
  STMT_SP_OPEN,         /* SAVEPOINT docext_command (docextStorageSavepoint) */
  STMT_SP_RELEASE,      /* RELEASE docext_command */
  STMT_SP_ROLLBACK,     /* ROLLBACK TO docext_command */
  STMT_SP_LOCK,         /* takes the write lock, changing nothing */
  STMT_SP_ABORT,        /* ROLLBACK (the transaction the savepoint began) */
  STMT_ROWS_ALL,        /* readers: every document by id ... */
  STMT_ROWS_ALL_DESC,   /*   ... newest first */
  STMT_ROWS_DOCID,      /*   the document with id ?1 */
  STMT_ROWS_KEY,        /*   the document with _id key ?1 */
  STMT_ROWS_RANGE,      /*   _id keys in [?1, ?2), in key order ... */
  STMT_ROWS_RANGE_DESC, /*   ... backward */
  STMT_ROWS_INDEX,      /*   entries of index ?1 in [?2, ?3), key order ... */
  STMT_ROWS_INDEX_DESC, /*   ... backward */
  STMT_ID_RANGE,        /* index cursors: ids of _id keys in [?1, ?2) ... */
  STMT_ID_RANGE_DESC,   /*   ... backward */
  STMT_IDX_RANGE,       /*   entries of index ?1 with keys in [?2, ?3) ... */
  STMT_IDX_RANGE_DESC,  /*   ... backward */
  STMT_COUNT
};

#define ROWS "SELECT id,size,body,pages FROM \"%w\".\"%w_docs\""
/* An index's entries with their documents, in one statement: the seek by
** document id happens inside SQLite, not as a statement per entry. LEFT
** JOIN, so that an entry without its document shows (size NULL) rather
** than vanishing. */
#define ROWS_OF_INDEX "SELECT i.docid,d.size,d.body,d.pages FROM \"%w\".\"%w_idx\" AS i" \
  " LEFT JOIN \"%w\".\"%w_docs\" AS d ON d.id=i.docid" \
  " WHERE i.ix=?1 AND i.key>=?2 AND i.key<?3"
static const char *const azStmt[STMT_COUNT] = {
  "SELECT id FROM \"%w\".\"%w_docs\" WHERE idkey=?1",
  "INSERT INTO \"%w\".\"%w_docs\"(idkey,size,body,pages) VALUES(?1,?2,?3,?4)",
  "UPDATE \"%w\".\"%w_docs\" SET idkey=?1,size=?2,body=?3,pages=?4 WHERE id=?5",
  "DELETE FROM \"%w\".\"%w_docs\" WHERE id=?1",
  "SELECT pages FROM \"%w\".\"%w_docs\" WHERE id=?1",
  "INSERT INTO \"%w\".\"%w_pages\"(data) VALUES(?1)",
  "UPDATE \"%w\".\"%w_pages\" SET data=?1 WHERE pgno=?2",
  "DELETE FROM \"%w\".\"%w_pages\" WHERE pgno=?1",
  "SELECT data FROM \"%w\".\"%w_pages\" WHERE pgno=?1",
  "SELECT count(*) FROM (SELECT 1 FROM \"%w\".\"%w_idx\""
    " WHERE ix=?1 AND key>=?2 AND key<?3 LIMIT ?4)",
  "SELECT count(*) FROM (SELECT 1 FROM \"%w\".\"%w_docs\""
    " WHERE idkey>=?1 AND idkey<?2 LIMIT ?3)",
  "UPDATE \"%w\".\"%w_docs\" SET size=?1, pages=?2 WHERE id=?3",
  "SAVEPOINT docext_command",
  "RELEASE docext_command",
  "ROLLBACK TO docext_command",
  "DELETE FROM \"%w\".\"%w_config\" WHERE 0",
  "ROLLBACK",
  ROWS " ORDER BY id ASC",
  ROWS " ORDER BY id DESC",
  ROWS " WHERE id=?1",
  ROWS " WHERE idkey=?1",
  ROWS " WHERE idkey>=?1 AND idkey<?2 ORDER BY idkey ASC",
  ROWS " WHERE idkey>=?1 AND idkey<?2 ORDER BY idkey DESC",
  ROWS_OF_INDEX " ORDER BY i.key ASC, i.docid ASC",
  ROWS_OF_INDEX " ORDER BY i.key DESC, i.docid DESC",
  "SELECT id, NULL FROM \"%w\".\"%w_docs\" WHERE idkey>=?1 AND idkey<?2"
    " ORDER BY idkey ASC",
  "SELECT id, NULL FROM \"%w\".\"%w_docs\" WHERE idkey>=?1 AND idkey<?2"
    " ORDER BY idkey DESC",
  "SELECT docid, vals FROM \"%w\".\"%w_idx\" WHERE ix=?1 AND key>=?2 AND key<?3"
    " ORDER BY key ASC, docid ASC",
  "SELECT docid, vals FROM \"%w\".\"%w_idx\" WHERE ix=?1 AND key>=?2 AND key<?3"
    " ORDER BY key DESC, docid DESC",
};
#undef ROWS
#undef ROWS_OF_INDEX

struct DocStore {
  sqlite3 *db;
  char *zDb;                      /* schema name */
  char *zName;                    /* collection name */
  int nPageMax;                   /* largest page, bytes */
  int bNoVals;                    /* X_idx lacks the vals column */
  sqlite3_stmt *aStmt[STMT_COUNT];
  u64 mBorrowed;                  /* bit i: aStmt[i] is lent out */
  int bTxn;                       /* the open savepoint began the transaction */
};

/* Names of the shadow tables, for xShadowName and DROP/RENAME. */
static const char *const azShadow[] = { "config", "docs", "pages", "idxdef", "idx" };

int docextStorageIsShadow(const char *zSuffix){
  size_t i;
  for(i=0; i<sizeof(azShadow)/sizeof(azShadow[0]); i++){
    if( sqlite3_stricmp(zSuffix, azShadow[i])==0 ) return 1;
  }
  return 0;
}

int docextPreparef(sqlite3 *db, sqlite3_stmt **ppStmt, const char *zFmt, ...){
  va_list ap;
  char *zSql;
  int rc;
  va_start(ap, zFmt);
  zSql = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  *ppStmt = 0;
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, ppStmt, 0);
  sqlite3_free(zSql);
  return rc;
}

/* Run SQL built from a format with %w/%Q arguments. */
int docextExecf(sqlite3 *db, char **pzErr, const char *zFmt, ...){
  va_list ap;
  char *zSql;
  int rc;
  va_start(ap, zFmt);
  zSql = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_exec(db, zSql, 0, 0, 0);
  if( rc!=SQLITE_OK && pzErr && *pzErr==0 ){
    *pzErr = sqlite3_mprintf("docext: %s", sqlite3_errmsg(db));
  }
  sqlite3_free(zSql);
  return rc;
}

/* Largest page such that a page row never spills to overflow pages. */
static int pageMaxFor(sqlite3 *db, const char *zDb){
  sqlite3_stmt *pStmt = 0;
  int nPage = 4096;
  char *zSql = sqlite3_mprintf("PRAGMA \"%w\".page_size", zDb);
  if( zSql && sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)==SQLITE_OK
   && sqlite3_step(pStmt)==SQLITE_ROW ){
    nPage = sqlite3_column_int(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  if( nPage<512 ) nPage = 512;
  /* 35: SQLite's leaf payload limit is usable-35; 13 more for the record
  ** header and a few reserved bytes per page some builds configure. */
  return nPage - 35 - 13;
}

int docextStorageCreate(sqlite3 *db, const char *zDb, const char *zName, char **pzErr){
  int rc;
  rc = docextExecf(db, pzErr,
    "CREATE TABLE \"%w\".\"%w_config\"(k TEXT PRIMARY KEY, v) WITHOUT ROWID;"
    "CREATE TABLE \"%w\".\"%w_docs\"(id INTEGER PRIMARY KEY,"
      " idkey BLOB NOT NULL UNIQUE, size INTEGER NOT NULL, body BLOB, pages BLOB);"
    "CREATE TABLE \"%w\".\"%w_pages\"(pgno INTEGER PRIMARY KEY, data BLOB NOT NULL);"
    "CREATE TABLE \"%w\".\"%w_idxdef\"(id INTEGER PRIMARY KEY,"
      " name TEXT NOT NULL UNIQUE, spec BLOB NOT NULL);"
    "CREATE TABLE \"%w\".\"%w_idx\"(ix INTEGER NOT NULL, key BLOB NOT NULL,"
      " docid INTEGER NOT NULL, vals BLOB, PRIMARY KEY(ix, key, docid)) WITHOUT ROWID;"
    "INSERT INTO \"%w\".\"%w_config\"(k,v) VALUES('version',%d),('pagesize',%d);",
    zDb, zName, zDb, zName, zDb, zName, zDb, zName, zDb, zName,
    zDb, zName, DOCEXT_STORAGE_VERSION, pageMaxFor(db, zDb));
  return rc;
}

/* Does X_idx have its vals column? A collection made before it existed
** works without it: no ALTER TABLE here, as a schema change while the
** table connects makes SQLite free it under the statement that uses it. */
static void storeCheckVals(DocStore *p){
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_mprintf("SELECT vals FROM \"%w\".\"%w_idx\" LIMIT 0",
                               p->zDb, p->zName);
  if( zSql==0 || sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    p->bNoVals = 1;
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
}

int docextStorageOpen(sqlite3 *db, const char *zDb, const char *zName,
                      DocStore **ppStore, char **pzErr){
  DocStore *p;
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int rc;
  i64 nVersion = 0, nPageMax = 0;

  *ppStore = 0;
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  p->db = db;
  p->zDb = sqlite3_mprintf("%s", zDb);
  p->zName = sqlite3_mprintf("%s", zName);
  if( p->zDb==0 || p->zName==0 ){
    docextStorageClose(p);
    return SQLITE_NOMEM;
  }
  zSql = sqlite3_mprintf("SELECT k, v FROM \"%w\".\"%w_config\"", zDb, zName);
  rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  while( rc==SQLITE_OK && sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *zKey = (const char*)sqlite3_column_text(pStmt, 0);
    if( zKey && strcmp(zKey, "version")==0 ) nVersion = sqlite3_column_int64(pStmt, 1);
    if( zKey && strcmp(zKey, "pagesize")==0 ) nPageMax = sqlite3_column_int64(pStmt, 1);
  }
  if( rc==SQLITE_OK ) rc = sqlite3_finalize(pStmt);
  /* (no page is larger than a document may be; nor is the sum of a page
  ** and the page size, in an int) */
  if( rc==SQLITE_OK && (nVersion!=DOCEXT_STORAGE_VERSION || nPageMax<64
                        || nPageMax>DOCEXT_MAX_BSON) ){
    *pzErr = sqlite3_mprintf("docext: collection %s has an unknown storage "
                             "version or a damaged %s_config table", zName, zName);
    rc = SQLITE_CORRUPT_VTAB;
  }else if( rc!=SQLITE_OK && *pzErr==0 ){
    *pzErr = sqlite3_mprintf("docext: cannot open collection %s: %s",
                             zName, sqlite3_errmsg(db));
  }
  if( rc==SQLITE_OK ){
    p->nPageMax = (int)nPageMax;
    storeCheckVals(p);
  }
  if( rc!=SQLITE_OK ){
    docextStorageClose(p);
    return rc;
  }
  *ppStore = p;
  return SQLITE_OK;
}

int docextStorageHasVals(DocStore *p){
  return !p->bNoVals;
}

/* Finalize the cached statements (a lent one is finalized when it is given
** back). */
static void finalizeAll(DocStore *p){
  int i;
  for(i=0; i<STMT_COUNT; i++){
    if( (p->mBorrowed & ((u64)1<<i))==0 ) sqlite3_finalize(p->aStmt[i]);
    p->aStmt[i] = 0;
  }
  p->mBorrowed = 0;
}

void docextStorageClose(DocStore *p){
  if( p ){
    finalizeAll(p);
    sqlite3_free(p->zDb);
    sqlite3_free(p->zName);
    sqlite3_free(p);
  }
}

int docextStorageDrop(sqlite3 *db, const char *zDb, const char *zName){
  size_t i;
  int rc = SQLITE_OK;
  for(i=0; rc==SQLITE_OK && i<sizeof(azShadow)/sizeof(azShadow[0]); i++){
    rc = docextExecf(db, 0, "DROP TABLE IF EXISTS \"%w\".\"%w_%s\"",
               zDb, zName, azShadow[i]);
  }
  return rc;
}

int docextStorageDestroy(DocStore *p){
  finalizeAll(p);
  return docextStorageDrop(p->db, p->zDb, p->zName);
}

int docextStorageRename(DocStore *p, const char *zNew){
  size_t i;
  int rc = SQLITE_OK;
  char *zCopy;
  finalizeAll(p);
  for(i=0; rc==SQLITE_OK && i<sizeof(azShadow)/sizeof(azShadow[0]); i++){
    rc = docextExecf(p->db, 0, "ALTER TABLE \"%w\".\"%w_%s\" RENAME TO \"%w_%s\"",
               p->zDb, p->zName, azShadow[i], zNew, azShadow[i]);
  }
  if( rc==SQLITE_OK ){
    zCopy = sqlite3_mprintf("%s", zNew);
    if( zCopy==0 ) return SQLITE_NOMEM;
    sqlite3_free(p->zName);
    p->zName = zCopy;
  }
  return rc;
}

const char *docextStorageName(DocStore *p){ return p->zName; }
const char *docextStorageSchema(DocStore *p){ return p->zDb; }
sqlite3 *docextStorageDb(DocStore *p){ return p->db; }

/* A new statement i. Without the vals column (storeCheckVals), index
** cursors read NULL in its place. */
static int storePrepare(DocStore *p, int i, sqlite3_stmt **ppStmt){
  const char *zFmt = azStmt[i];
  char *zSql;
  int rc;
  if( p->bNoVals && (i==STMT_IDX_RANGE || i==STMT_IDX_RANGE_DESC) ){
    zFmt = i==STMT_IDX_RANGE
      ? "SELECT docid, NULL FROM \"%w\".\"%w_idx\" WHERE ix=?1 AND key>=?2"
        " AND key<?3 ORDER BY key ASC, docid ASC"
      : "SELECT docid, NULL FROM \"%w\".\"%w_idx\" WHERE ix=?1 AND key>=?2"
        " AND key<?3 ORDER BY key DESC, docid DESC";
  }
  /* (a statement over two tables names the schema and collection twice) */
  zSql = sqlite3_mprintf(zFmt, p->zDb, p->zName, p->zDb, p->zName);
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v3(p->db, zSql, -1, SQLITE_PREPARE_PERSISTENT, ppStmt, 0);
  sqlite3_free(zSql);
  return rc;
}

/* The cached statement i, prepared on first use and reset for reuse. */
static int storeStmt(DocStore *p, int i, sqlite3_stmt **ppStmt){
  if( p->aStmt[i]==0 ){
    int rc = storePrepare(p, i, &p->aStmt[i]);
    if( rc!=SQLITE_OK ) return rc;
  }
  *ppStmt = p->aStmt[i];
  return SQLITE_OK;
}

/* Lend statement i to a reader or index cursor for as long as it walks its
** rows: the cached one when it is free, else a fresh one (two walks of one
** collection at once, as in a self-join). Preparing per query would cost
** more than a point lookup itself. */
static int storeBorrow(DocStore *p, int i, sqlite3_stmt **ppStmt){
  int rc;
  if( p->mBorrowed & ((u64)1<<i) ) return storePrepare(p, i, ppStmt);
  rc = storeStmt(p, i, ppStmt);
  if( rc==SQLITE_OK ) p->mBorrowed |= (u64)1<<i;
  return rc;
}

/* Take a borrowed statement back (NULL: nothing was borrowed). */
static void storeGiveBack(DocStore *p, int i, sqlite3_stmt *pStmt){
  if( pStmt==0 ) return;
  if( pStmt==p->aStmt[i] && (p->mBorrowed & ((u64)1<<i)) ){
    sqlite3_reset(pStmt);
    sqlite3_clear_bindings(pStmt);
    p->mBorrowed &= ~((u64)1<<i);
  }else{
    sqlite3_finalize(pStmt);
  }
}

int docextStorageSavepoint(DocStore *p, int eOp){
  sqlite3_stmt *pStmt = 0;
  int rc = SQLITE_OK, i, bAuto;
  /* All are prepared before the savepoint opens: one that had to be
  ** prepared after a change could fail to, out of memory, and leave the
  ** change in place. */
  for(i=STMT_SP_OPEN; rc==SQLITE_OK && i<=STMT_SP_ABORT; i++){
    rc = storeStmt(p, i, &pStmt);
  }
  if( rc!=SQLITE_OK ) return rc;
  switch( eOp ){
    case DOCEXT_SP_OPEN:
      bAuto = sqlite3_get_autocommit(p->db);
      rc = docextStmtRun(p->aStmt[STMT_SP_OPEN]);
      if( rc==SQLITE_OK ) p->bTxn = bAuto;
      return rc;
    case DOCEXT_SP_LOCK:
      /* As an UPDATE outside a transaction takes the write lock before it
      ** reads (waiting for it through the busy handler, and never finding
      ** its snapshot stale when it comes to write). Inside the user's
      ** transaction the lock is taken on the first write, as SQLite does. */
      return p->bTxn ? docextStmtRun(p->aStmt[STMT_SP_LOCK]) : SQLITE_OK;
    case DOCEXT_SP_RELEASE:
      rc = docextStmtRun(p->aStmt[STMT_SP_RELEASE]);
      if( rc==SQLITE_OK ) p->bTxn = 0;
      return rc;
    default:
      return docextStmtRun(p->aStmt[STMT_SP_ROLLBACK]);
  }
}

int docextStorageSnapshot(DocStore *p, int *pbOpen){
  int rc = docextStorageSavepoint(p, DOCEXT_SP_OPEN);
  *pbOpen = rc==SQLITE_OK;
  return rc==SQLITE_BUSY ? SQLITE_OK : rc;
}

int docextStorageSavepointEnd(DocStore *p, int rc){
  int rcUndo;
  if( rc==SQLITE_OK ){
    rc = docextStorageSavepoint(p, DOCEXT_SP_RELEASE);
    if( rc==SQLITE_OK ) return SQLITE_OK;
  }
  /* An error, or a RELEASE that failed (out of memory, busy): undo, so that
  ** an error never leaves the changes made. */
  rcUndo = docextStorageSavepoint(p, DOCEXT_SP_ROLLBACK);
  if( rcUndo==SQLITE_OK ) rcUndo = docextStorageSavepoint(p, DOCEXT_SP_RELEASE);
  if( (rcUndo!=SQLITE_OK || p->bTxn) && !sqlite3_get_autocommit(p->db) ){
    /* Undoing failed (the connection was interrupted: every statement now
    ** fails), or the transaction this savepoint began could not end (its
    ** commit found the database busy). End the whole transaction, as SQLite
    ** does for a write statement that fails so: ROLLBACK, and if even that
    ** is interrupted, a write statement, whose interruption makes SQLite
    ** roll the transaction back itself (see sqlite3_interrupt()). */
    docextStmtRun(p->aStmt[STMT_SP_ABORT]);
    if( !sqlite3_get_autocommit(p->db) ) docextStmtRun(p->aStmt[STMT_SP_LOCK]);
  }
  p->bTxn = 0;
  return rc;
}

/* Step a write statement to completion and reset it. */
int docextStmtRun(sqlite3_stmt *pStmt){
  int rc = sqlite3_step(pStmt);
  int rc2 = sqlite3_reset(pStmt);
  sqlite3_clear_bindings(pStmt);
  if( rc==SQLITE_DONE || rc==SQLITE_ROW ) return rc2;
  return rc2!=SQLITE_OK ? rc2 : rc;
}

/*------------------------------------------------------------------------
** Page lists
*/

void docextPageListPutVarint(int *pRc, DocBuf *p, u64 v){
  do{
    u8 c = v & 0x7F;
    v >>= 7;
    docextBufAppendByte(pRc, p, v ? (c|0x80) : c);
  }while( v );
}

/* Read a varint from a[*pi..n); 0 on success, 1 if malformed. */
static int storeGetVarint(const u8 *a, int n, int *pi, u64 *pv){
  u64 v = 0;
  int s = 0;
  while( *pi<n && s<64 ){
    u8 c = a[(*pi)++];
    v |= (u64)(c & 0x7F) << s;
    if( (c & 0x80)==0 ){ *pv = v; return 0; }
    s += 7;
  }
  return 1;
}

/* Decode a page list into a heap array; total bytes in *pnTotal; *piAux
** (may be NULL) gets the offset of the aux bytes, or n when there are
** none. */
static int pageListDecodeAux(const u8 *a, int n, DocPage **paPage, int *pnPage,
                             i64 *pnTotal, int *piAux){
  int i = 0, nPage = 0, nAlloc = 0, rc = SQLITE_OK;
  DocPage *aPage = 0;
  i64 nTotal = 0;
  if( piAux ) *piAux = n;
  while( i<n ){
    u64 pgno, nb;
    if( storeGetVarint(a, n, &i, &pgno) ){
      sqlite3_free(aPage);
      return SQLITE_CORRUPT_VTAB;
    }
    if( pgno==0 ){
      if( piAux ) *piAux = i;
      break;
    }
    if( storeGetVarint(a, n, &i, &nb)
     || nb==0 || nb>DOCEXT_MAX_BSON || pgno>(u64)0x7fffffffffffffffLL
     || nTotal+(i64)nb>DOCEXT_MAX_BSON ){
      sqlite3_free(aPage);
      return SQLITE_CORRUPT_VTAB;
    }
    aPage = docextArrayGrow(&rc, aPage, nPage, &nAlloc, sizeof(DocPage));
    if( rc!=SQLITE_OK ){
      sqlite3_free(aPage);
      return rc;
    }
    aPage[nPage].pgno = (i64)pgno;
    aPage[nPage].n = (int)nb;
    nTotal += (i64)nb;
    nPage++;
  }
  *paPage = aPage;
  *pnPage = nPage;
  *pnTotal = nTotal;
  return SQLITE_OK;
}

int docextPageListDecode(const u8 *a, int n, DocPage **paPage, int *pnPage, i64 *pnTotal){
  return pageListDecodeAux(a, n, paPage, pnPage, pnTotal, 0);
}

/* Write aDoc[0..nDoc) as new pages; append their list to pList. */
static int pagesWrite(DocStore *p, const u8 *aDoc, int nDoc, DocBuf *pList){
  sqlite3_stmt *pIns = 0;
  int rc = storeStmt(p, STMT_INSERT_PAGE, &pIns);
  int i = 0;
  while( rc==SQLITE_OK && i<nDoc ){
    int n = nDoc-i < p->nPageMax ? nDoc-i : p->nPageMax;
    sqlite3_bind_blob(pIns, 1, &aDoc[i], n, SQLITE_STATIC);
    rc = docextStmtRun(pIns);
    if( rc==SQLITE_OK ){
      docextPageListPutVarint(&rc, pList, (u64)sqlite3_last_insert_rowid(p->db));
      docextPageListPutVarint(&rc, pList, (u64)n);
    }
    i += n;
  }
  return rc;
}

/* Delete the pages of document iDoc (nothing if it is inline). */
static int pagesDelete(DocStore *p, i64 iDoc){
  sqlite3_stmt *pSel = 0, *pDel = 0;
  DocPage *aPage = 0;
  int nPage = 0, i;
  i64 nTotal;
  int rc = storeStmt(p, STMT_DOC_PAGES, &pSel);
  if( rc==SQLITE_OK ) rc = storeStmt(p, STMT_DELETE_PAGE, &pDel);
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_bind_int64(pSel, 1, iDoc);
  if( sqlite3_step(pSel)==SQLITE_ROW && sqlite3_column_type(pSel, 0)==SQLITE_BLOB ){
    rc = docextPageListDecode(sqlite3_column_blob(pSel, 0), sqlite3_column_bytes(pSel, 0),
                        &aPage, &nPage, &nTotal);
  }
  rc = rc==SQLITE_OK ? sqlite3_reset(pSel) : (sqlite3_reset(pSel), rc);
  for(i=0; rc==SQLITE_OK && i<nPage; i++){
    sqlite3_bind_int64(pDel, 1, aPage[i].pgno);
    rc = docextStmtRun(pDel);
  }
  sqlite3_free(aPage);
  return rc;
}

/*------------------------------------------------------------------------
** Documents
*/

int docextStorageFindKey(DocStore *p, const u8 *aKey, int nKey, i64 *piDoc){
  sqlite3_stmt *pStmt = 0;
  int rc = storeStmt(p, STMT_FIND_KEY, &pStmt);
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_bind_blob(pStmt, 1, aKey, nKey, SQLITE_STATIC);
  rc = sqlite3_step(pStmt);
  if( rc==SQLITE_ROW ) *piDoc = sqlite3_column_int64(pStmt, 0);
  if( rc==SQLITE_ROW || rc==SQLITE_DONE ){
    int rc2 = sqlite3_reset(pStmt);
    if( rc2!=SQLITE_OK ) rc = rc2;
  }else{
    sqlite3_reset(pStmt);
  }
  return rc;
}

int docextStorageIsInline(DocStore *p, int nKey, int nDoc){
  return nDoc + nKey + 16 <= p->nPageMax;
}

/* Bind idkey, size, body, pages for an INSERT or UPDATE of docs, writing
** the pages first when the document does not fit inline. */
static int docBind(DocStore *p, sqlite3_stmt *pStmt, const u8 *aKey, int nKey,
                   const u8 *aDoc, int nDoc, DocBuf *pList){
  int rc = SQLITE_OK;
  sqlite3_bind_blob(pStmt, 1, aKey, nKey, SQLITE_STATIC);
  sqlite3_bind_int(pStmt, 2, nDoc);
  if( docextStorageIsInline(p, nKey, nDoc) ){
    sqlite3_bind_blob(pStmt, 3, aDoc, nDoc, SQLITE_STATIC);
    sqlite3_bind_null(pStmt, 4);
  }else{
    rc = pagesWrite(p, aDoc, nDoc, pList);
    sqlite3_bind_null(pStmt, 3);
    sqlite3_bind_blob(pStmt, 4, pList->a, (int)pList->n, SQLITE_STATIC);
  }
  return rc;
}

int docextStorageInsert(DocStore *p, const u8 *aKey, int nKey,
                        const u8 *aDoc, int nDoc, i64 *piDoc){
  sqlite3_stmt *pStmt = 0;
  DocBuf list;
  u8 aSpace[256];
  int rc = storeStmt(p, STMT_INSERT_DOC, &pStmt);
  docextBufInit(&list, aSpace, sizeof(aSpace));
  if( rc==SQLITE_OK ) rc = docBind(p, pStmt, aKey, nKey, aDoc, nDoc, &list);
  if( rc==SQLITE_OK ){
    rc = docextStmtRun(pStmt);
    *piDoc = sqlite3_last_insert_rowid(p->db);
  }else if( pStmt ){            /* (none when it could not be prepared) */
    sqlite3_reset(pStmt);
    sqlite3_clear_bindings(pStmt);
  }
  docextBufFree(&list);
  return rc;
}

/* Load the page list of document iDoc: 0 pages when it is inline. */
static int pageListLoad(DocStore *p, i64 iDoc, DocPage **paPage, int *pnPage, i64 *pnTotal){
  sqlite3_stmt *pSel = 0;
  int rc = storeStmt(p, STMT_DOC_PAGES, &pSel);
  *paPage = 0;
  *pnPage = 0;
  *pnTotal = 0;
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_bind_int64(pSel, 1, iDoc);
  if( sqlite3_step(pSel)==SQLITE_ROW && sqlite3_column_type(pSel, 0)==SQLITE_BLOB ){
    rc = docextPageListDecode(sqlite3_column_blob(pSel, 0), sqlite3_column_bytes(pSel, 0),
                        paPage, pnPage, pnTotal);
  }
  if( sqlite3_reset(pSel)!=SQLITE_OK && rc==SQLITE_OK ) rc = SQLITE_CORRUPT_VTAB;
  return rc;
}

/* Where old byte offset x lands in the new document, for an edit that
** keeps bytes [0, iEdit) at their offsets and shifts the common suffix by
** nDelta (bytes inserted at iEdit when nDelta > 0, removed after iEdit
** when nDelta < 0). An old page [o, e) becomes new bytes [map(o), map(e)):
** bytes inserted at iEdit join the page that ends there. */
static i64 editMap(i64 x, i64 iEdit, i64 nDelta){
  if( nDelta>=0 ) return x<iEdit ? x : x + nDelta;
  if( x<=iEdit ) return x;
  return x<iEdit-nDelta ? iEdit : x + nDelta;
}

/* Rewrite the pages of a paged document after an edit, writing only pages
** whose bytes changed (splitting one that outgrows the page size, dropping
** one left empty), and build the new page list in pList.
**
** The edit is found by comparison: the common suffix of old and new fixes
** where the size change happened; before it, bytes are compared page by
** page at equal offsets (so the document length and enclosing array length
** fields, which change in place, cost one page each). This is how a $push
** into a large document writes a few pages instead of the whole document,
** whatever operator produced the new bytes. */
static int pagesRewrite(DocStore *p, const DocPage *aPage, int nPage,
                        const u8 *aOld, i64 nOld, const u8 *aNew, i64 nNew,
                        DocBuf *pList){
  sqlite3_stmt *pUpd = 0, *pIns = 0, *pDel = 0;
  i64 nMin = nOld<nNew ? nOld : nNew, nSuffix = 0, nDelta = nNew - nOld, iEdit, o = 0;
  int i, rc;
  while( nSuffix<nMin && aOld[nOld-1-nSuffix]==aNew[nNew-1-nSuffix] ) nSuffix++;
  iEdit = (nDelta>=0 ? nOld : nNew) - nSuffix;
  rc = storeStmt(p, STMT_UPDATE_PAGE, &pUpd);
  if( rc==SQLITE_OK ) rc = storeStmt(p, STMT_INSERT_PAGE, &pIns);
  if( rc==SQLITE_OK ) rc = storeStmt(p, STMT_DELETE_PAGE, &pDel);
  for(i=0; rc==SQLITE_OK && i<nPage; i++){
    i64 e = o + aPage[i].n;
    i64 g = editMap(o, iEdit, nDelta), h = editMap(e, iEdit, nDelta);
    int n = (int)(h - g);
    if( n==0 ){
      sqlite3_bind_int64(pDel, 1, aPage[i].pgno);
      rc = docextStmtRun(pDel);
    }else if( n==aPage[i].n && memcmp(&aOld[o], &aNew[g], n)==0 ){
      docextPageListPutVarint(&rc, pList, (u64)aPage[i].pgno);    /* unchanged */
      docextPageListPutVarint(&rc, pList, (u64)n);
    }else{
      /* Rewrite in place; a page that grew past the limit becomes several
      ** pages of equal size, the first keeping its number. */
      int nPiece = (n + p->nPageMax - 1) / p->nPageMax, k;
      i64 iPos = g;
      for(k=0; rc==SQLITE_OK && k<nPiece; k++){
        int nThis = (int)((h - iPos) / (nPiece - k));
        i64 pgno;
        if( k==0 ){
          sqlite3_bind_blob(pUpd, 1, &aNew[iPos], nThis, SQLITE_STATIC);
          sqlite3_bind_int64(pUpd, 2, aPage[i].pgno);
          rc = docextStmtRun(pUpd);
          pgno = aPage[i].pgno;
        }else{
          sqlite3_bind_blob(pIns, 1, &aNew[iPos], nThis, SQLITE_STATIC);
          rc = docextStmtRun(pIns);
          pgno = sqlite3_last_insert_rowid(p->db);
        }
        docextPageListPutVarint(&rc, pList, (u64)pgno);
        docextPageListPutVarint(&rc, pList, (u64)nThis);
        iPos += nThis;
      }
    }
    o = e;
  }
  return rc;
}

/* Replace document iDoc. aOld (may be NULL) is its current content: when
** both the old and the new document are paged, only changed pages are
** written (pagesRewrite); otherwise the document is written afresh. */
int docextStorageReplace(DocStore *p, i64 iDoc, const u8 *aKey, int nKey,
                         const u8 *aOld, int nOld, const u8 *aDoc, int nDoc){
  sqlite3_stmt *pStmt = 0;
  DocBuf list;
  u8 aSpace[256];
  DocPage *aPage = 0;
  int nPage = 0;
  i64 nTotal = 0;
  int bInline = nDoc + nKey + 16 <= p->nPageMax;
  int rc = pageListLoad(p, iDoc, &aPage, &nPage, &nTotal);
  docextBufInit(&list, aSpace, sizeof(aSpace));
  if( rc==SQLITE_OK && nPage>0 && !bInline && aOld && nTotal==nOld ){
    rc = pagesRewrite(p, aPage, nPage, aOld, nOld, aDoc, nDoc, &list);
    if( rc==SQLITE_OK ) rc = storeStmt(p, STMT_UPDATE_DOC, &pStmt);
    if( rc==SQLITE_OK ){
      sqlite3_bind_blob(pStmt, 1, aKey, nKey, SQLITE_STATIC);
      sqlite3_bind_int(pStmt, 2, nDoc);
      sqlite3_bind_null(pStmt, 3);
      sqlite3_bind_blob(pStmt, 4, list.a, (int)list.n, SQLITE_STATIC);
      sqlite3_bind_int64(pStmt, 5, iDoc);
      rc = docextStmtRun(pStmt);
    }
  }else{
    if( rc==SQLITE_OK ) rc = pagesDelete(p, iDoc);
    if( rc==SQLITE_OK ) rc = storeStmt(p, STMT_UPDATE_DOC, &pStmt);
    if( rc==SQLITE_OK ){
      rc = docBind(p, pStmt, aKey, nKey, aDoc, nDoc, &list);
      sqlite3_bind_int64(pStmt, 5, iDoc);
      if( rc==SQLITE_OK ){
        rc = docextStmtRun(pStmt);
      }else{
        sqlite3_reset(pStmt);
        sqlite3_clear_bindings(pStmt);
      }
    }
  }
  sqlite3_free(aPage);
  docextBufFree(&list);
  return rc;
}

int docextStorageDelete(DocStore *p, i64 iDoc){
  sqlite3_stmt *pStmt = 0;
  int rc = pagesDelete(p, iDoc);
  if( rc==SQLITE_OK ) rc = storeStmt(p, STMT_DELETE_DOC, &pStmt);
  if( rc==SQLITE_OK ){
    sqlite3_bind_int64(pStmt, 1, iDoc);
    rc = docextStmtRun(pStmt);
  }
  return rc;
}

/* Read page pgno, which must hold exactly n bytes (as its page list says),
** into a. The statement is shared: it is stepped and reset here. */
static int storeReadPage(DocStore *p, i64 pgno, int n, u8 *a){
  sqlite3_stmt *pRead = 0;
  int rc = storeStmt(p, STMT_READ_PAGE, &pRead);
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_bind_int64(pRead, 1, pgno);
  if( sqlite3_step(pRead)==SQLITE_ROW && sqlite3_column_bytes(pRead, 0)==n ){
    memcpy(a, sqlite3_column_blob(pRead, 0), n);
  }else{
    rc = SQLITE_CORRUPT_VTAB;
  }
  if( sqlite3_reset(pRead)!=SQLITE_OK && rc==SQLITE_OK ) rc = SQLITE_CORRUPT_VTAB;
  return rc;
}

/*------------------------------------------------------------------------
** In-place edits of a paged document.
**
** A DocPaged reads a paged document through its page list, loading only
** the pages it touches, takes insertions and overwrites into those pages
** in memory, and on commit writes just the pages that changed (a page
** that grew past the page size is split, its first piece keeping its
** number) and the new list. Nothing is written before the commit, so an
** edit abandoned halfway changes nothing. Pages read are checked against
** the list (a length that differs is corruption); what the bytes mean is
** the caller's business.
*/
struct DocPaged {
  DocStore *pStore;
  i64 iDoc;
  int nPage;
  DocPage *aPage;           /* the list: page numbers and current sizes */
  i64 *aStart;              /* offset of each page's first byte */
  u8 **aData;               /* each page's bytes once loaded, else NULL */
  int *aAlloc;              /* bytes allocated at aData[i] */
  u8 *aDirty;               /* each page: changed since loaded */
  i64 nSize;                /* document size */
  DocBuf aux;               /* the list's aux bytes */
  int bChanged;             /* something to commit */
};

int docextPagedOpen(DocStore *pStore, i64 iDoc, DocPaged **ppDoc){
  sqlite3_stmt *pSel = 0;
  DocPaged *p;
  int rc, i, iAux = 0;
  *ppDoc = 0;
  p = docextMallocZero(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  p->pStore = pStore;
  p->iDoc = iDoc;
  rc = storeStmt(pStore, STMT_DOC_PAGES, &pSel);
  if( rc==SQLITE_OK ){
    sqlite3_bind_int64(pSel, 1, iDoc);
    if( sqlite3_step(pSel)==SQLITE_ROW && sqlite3_column_type(pSel, 0)==SQLITE_BLOB ){
      const u8 *a = sqlite3_column_blob(pSel, 0);
      int n = sqlite3_column_bytes(pSel, 0);
      rc = pageListDecodeAux(a, n, &p->aPage, &p->nPage, &p->nSize, &iAux);
      if( rc==SQLITE_OK ) docextBufAppend(&rc, &p->aux, a+iAux, n-iAux);
    }
    if( sqlite3_reset(pSel)!=SQLITE_OK && rc==SQLITE_OK ) rc = SQLITE_CORRUPT_VTAB;
  }
  if( rc==SQLITE_OK && p->nPage>0 ){
    p->aStart = sqlite3_malloc64(sizeof(i64)*p->nPage);
    p->aData = docextMallocZero(sizeof(u8*)*p->nPage);   /* (Close frees them) */
    p->aAlloc = sqlite3_malloc64(sizeof(int)*p->nPage);
    p->aDirty = sqlite3_malloc64(p->nPage);
    if( !p->aStart || !p->aData || !p->aAlloc || !p->aDirty ){
      rc = SQLITE_NOMEM;
    }else{
      i64 o = 0;
      for(i=0; i<p->nPage; i++){
        p->aStart[i] = o;
        o += p->aPage[i].n;
      }
      memset(p->aAlloc, 0, sizeof(int)*p->nPage);
      memset(p->aDirty, 0, p->nPage);
    }
  }
  if( rc!=SQLITE_OK || p->nPage==0 ){
    docextPagedClose(p);    /* an inline (or missing) document: no editor */
    return rc;
  }
  *ppDoc = p;
  return SQLITE_OK;
}

void docextPagedClose(DocPaged *p){
  if( p ){
    int i;
    for(i=0; p->aData && i<p->nPage; i++) sqlite3_free(p->aData[i]);
    sqlite3_free(p->aPage);
    sqlite3_free(p->aStart);
    sqlite3_free(p->aData);
    sqlite3_free(p->aAlloc);
    sqlite3_free(p->aDirty);
    docextBufFree(&p->aux);
    sqlite3_free(p);
  }
}

i64 docextPagedSize(DocPaged *p){ return p->nSize; }

/* The page holding byte iOff (0 <= iOff < nSize). */
static int pagedFind(DocPaged *p, i64 iOff){
  int lo = 0, hi = p->nPage-1;
  while( lo<hi ){
    int mid = (lo+hi+1)/2;
    if( p->aStart[mid]<=iOff ) lo = mid; else hi = mid-1;
  }
  return lo;
}

/* Load page i's bytes, checking them against the list. */
static int pagedLoad(DocPaged *p, int i){
  int n = p->aPage[i].n, rc;
  if( p->aData[i] ) return SQLITE_OK;
  p->aData[i] = sqlite3_malloc64(n);
  if( p->aData[i]==0 ) return SQLITE_NOMEM;
  p->aAlloc[i] = n;
  rc = storeReadPage(p->pStore, p->aPage[i].pgno, n, p->aData[i]);
  if( rc!=SQLITE_OK ){
    sqlite3_free(p->aData[i]);
    p->aData[i] = 0;
  }
  return rc;
}

/* Copy bytes [iOff, iOff+n) of the document out to a (bWrite 0), or in
** from a (bWrite 1: pages whose bytes change become dirty). */
static int pagedCopy(DocPaged *p, i64 iOff, int n, u8 *a, int bWrite){
  int rc = SQLITE_OK;
  if( iOff<0 || n<0 || iOff+n>p->nSize ) return SQLITE_CORRUPT_VTAB;
  while( n>0 && rc==SQLITE_OK ){
    int i = pagedFind(p, iOff);
    int k = (int)(iOff - p->aStart[i]);
    int nThis = p->aPage[i].n - k < n ? p->aPage[i].n - k : n;
    rc = pagedLoad(p, i);
    if( rc!=SQLITE_OK ) break;
    if( !bWrite ){
      memcpy(a, p->aData[i]+k, nThis);
    }else if( memcmp(p->aData[i]+k, a, nThis) ){
      memcpy(p->aData[i]+k, a, nThis);
      p->aDirty[i] = 1;
      p->bChanged = 1;
    }
    a += nThis;
    iOff += nThis;
    n -= nThis;
  }
  return rc;
}

int docextPagedRead(DocPaged *p, i64 iOff, int n, u8 *aOut){
  return pagedCopy(p, iOff, n, aOut, 0);
}

int docextPagedOverwrite(DocPaged *p, i64 iOff, const u8 *a, int n){
  return pagedCopy(p, iOff, n, (u8*)a, 1);
}

int docextPagedInsert(DocPaged *p, i64 iOff, const u8 *a, int n){
  int i, k, rc;
  if( iOff<=0 || iOff>p->nSize || n<0 ) return SQLITE_CORRUPT_VTAB;
  if( n==0 ) return SQLITE_OK;
  if( p->nSize+n>DOCEXT_MAX_BSON ) return SQLITE_TOOBIG;
  /* The page that ends at iOff or holds it: bytes inserted at a page
  ** boundary grow the page before it (an array's last page, for a $push). */
  i = pagedFind(p, iOff-1);
  k = (int)(iOff - p->aStart[i]);
  rc = pagedLoad(p, i);
  if( rc!=SQLITE_OK ) return rc;
  if( p->aPage[i].n + n > p->aAlloc[i] ){
    int nNew = p->aPage[i].n + n + p->aPage[i].n/2 + 64;
    u8 *aNew = sqlite3_realloc64(p->aData[i], nNew);
    if( aNew==0 ) return SQLITE_NOMEM;
    p->aData[i] = aNew;
    p->aAlloc[i] = nNew;
  }
  memmove(p->aData[i]+k+n, p->aData[i]+k, p->aPage[i].n - k);
  memcpy(p->aData[i]+k, a, n);
  p->aPage[i].n += n;
  p->aDirty[i] = 1;
  p->bChanged = 1;
  for(k=i+1; k<p->nPage; k++) p->aStart[k] += n;
  p->nSize += n;
  return SQLITE_OK;
}

const u8 *docextPagedAux(DocPaged *p, int *pn){
  *pn = (int)p->aux.n;
  return p->aux.a;
}

int docextPagedSetAux(DocPaged *p, const u8 *a, int n){
  int rc = SQLITE_OK;
  if( p->aux.n==n && (n==0 || memcmp(p->aux.a, a, n)==0) ) return SQLITE_OK;
  docextBufReset(&p->aux);
  docextBufAppend(&rc, &p->aux, a, n);
  p->bChanged = 1;
  return rc;
}

int docextPagedCommit(DocPaged *p){
  sqlite3_stmt *pUpd = 0, *pIns = 0, *pList = 0;
  DocBuf list;
  int i, rc;
  if( !p->bChanged ) return SQLITE_OK;
  memset(&list, 0, sizeof(list));
  rc = storeStmt(p->pStore, STMT_UPDATE_PAGE, &pUpd);
  if( rc==SQLITE_OK ) rc = storeStmt(p->pStore, STMT_INSERT_PAGE, &pIns);
  if( rc==SQLITE_OK ) rc = storeStmt(p->pStore, STMT_UPDATE_LIST, &pList);
  for(i=0; rc==SQLITE_OK && i<p->nPage; i++){
    int n = p->aPage[i].n;
    if( !p->aDirty[i] ){
      docextPageListPutVarint(&rc, &list, (u64)p->aPage[i].pgno);
      docextPageListPutVarint(&rc, &list, (u64)n);
    }else{
      /* A page past the limit becomes pieces of equal size. */
      int nPiece = (n + p->pStore->nPageMax - 1) / p->pStore->nPageMax, k, iPos = 0;
      for(k=0; rc==SQLITE_OK && k<nPiece; k++){
        int nThis = (n - iPos) / (nPiece - k);
        i64 pgno;
        if( k==0 ){
          sqlite3_bind_blob(pUpd, 1, p->aData[i]+iPos, nThis, SQLITE_STATIC);
          sqlite3_bind_int64(pUpd, 2, p->aPage[i].pgno);
          rc = docextStmtRun(pUpd);
          pgno = p->aPage[i].pgno;
        }else{
          sqlite3_bind_blob(pIns, 1, p->aData[i]+iPos, nThis, SQLITE_STATIC);
          rc = docextStmtRun(pIns);
          pgno = sqlite3_last_insert_rowid(p->pStore->db);
        }
        docextPageListPutVarint(&rc, &list, (u64)pgno);
        docextPageListPutVarint(&rc, &list, (u64)nThis);
        iPos += nThis;
      }
    }
  }
  if( p->aux.n>0 ){
    docextPageListPutVarint(&rc, &list, 0);
    docextBufAppend(&rc, &list, p->aux.a, p->aux.n);
  }
  if( rc==SQLITE_OK ){
    sqlite3_bind_int64(pList, 1, p->nSize);
    sqlite3_bind_blob(pList, 2, list.a, (int)list.n, SQLITE_STATIC);
    sqlite3_bind_int64(pList, 3, p->iDoc);
    rc = docextStmtRun(pList);
  }
  docextBufFree(&list);
  return rc;
}

/*------------------------------------------------------------------------
** Readers: a row source over X_docs plus the pages it needs.
*/

struct DocReader {
  DocStore *pStore;
  sqlite3_stmt *pRows;      /* yields id, size, body, pages (borrowed) */
  int iStmt;                /* which statement pRows is (STMT_ROWS_*) */
  DocBuf bounds;            /* RANGE: the bound keys pRows is bound to */
  DocBuf buf;               /* a multi-page document, assembled */
  const u8 *aDoc;           /* the current document, once loaded */
  int bLoaded;              /* aDoc is valid for the current row */
};

int docextReaderNew(DocStore *pStore, DocReader **ppReader){
  DocReader *p = docextMallocZero(sizeof(*p));
  *ppReader = p;
  if( p==0 ) return SQLITE_NOMEM;
  p->pStore = pStore;
  return SQLITE_OK;
}

void docextReaderFree(DocReader *p){
  if( p ){
    storeGiveBack(p->pStore, p->iStmt, p->pRows);
    docextBufFree(&p->bounds);
    docextBufFree(&p->buf);
    sqlite3_free(p);
  }
}

/* Start reading rows. eScan says which rows and in which order:
**   DOCEXT_SCAN_ALL     every document, by id (reverse if bDesc)
**   DOCEXT_SCAN_DOCID   the document with id iDoc
**   DOCEXT_SCAN_KEY     the document whose idkey is aLo
**   DOCEXT_SCAN_RANGE   idkey between aLo and aHi (bounds inclusive when
**                       bLoIncl / bHiIncl), in key order (reverse if bDesc)
**   DOCEXT_SCAN_INDEX   the documents of index iIx's entries with keys in
**                       [aLo, aHi), in key then id order (reverse if
**                       bDesc); a document with several entries (multikey)
**                       comes once for each
** A range is read as the half-open [lo, hi): the smallest key above a key
** K is K followed by a 0x00 byte, so "> K" is ">= K.00" and "<= K" is
** "< K.00".
*/
int docextReaderStart(DocReader *p, const DocScan *pScan){
  DocStore *pS = p->pStore;
  int iStmt, rc = SQLITE_OK;
  p->bLoaded = 0;
  switch( pScan->eScan ){
    case DOCEXT_SCAN_DOCID: iStmt = STMT_ROWS_DOCID; break;
    case DOCEXT_SCAN_KEY:   iStmt = STMT_ROWS_KEY; break;
    case DOCEXT_SCAN_RANGE: iStmt = pScan->bDesc ? STMT_ROWS_RANGE_DESC : STMT_ROWS_RANGE; break;
    case DOCEXT_SCAN_INDEX: iStmt = pScan->bDesc ? STMT_ROWS_INDEX_DESC : STMT_ROWS_INDEX; break;
    default:                iStmt = pScan->bDesc ? STMT_ROWS_ALL_DESC : STMT_ROWS_ALL; break;
  }
  if( p->pRows && p->iStmt==iStmt ){
    sqlite3_reset(p->pRows);
  }else{
    storeGiveBack(pS, p->iStmt, p->pRows);
    p->pRows = 0;
    rc = storeBorrow(pS, iStmt, &p->pRows);
    if( rc!=SQLITE_OK ){
      p->pRows = 0;
      return rc;
    }
    p->iStmt = iStmt;
  }
  switch( pScan->eScan ){
    case DOCEXT_SCAN_DOCID:
      sqlite3_bind_int64(p->pRows, 1, pScan->iDoc);
      break;
    case DOCEXT_SCAN_KEY:
      sqlite3_bind_blob(p->pRows, 1, pScan->aLo, pScan->nLo, SQLITE_TRANSIENT);
      break;
    case DOCEXT_SCAN_RANGE: {
      int nLo = pScan->nLo + !pScan->bLoIncl;
      docextBufReset(&p->bounds);
      docextBufAppend(&rc, &p->bounds, pScan->aLo, pScan->nLo);
      if( !pScan->bLoIncl ) docextBufAppendByte(&rc, &p->bounds, 0);
      docextBufAppend(&rc, &p->bounds, pScan->aHi, pScan->nHi);
      if( pScan->bHiIncl ) docextBufAppendByte(&rc, &p->bounds, 0);
      if( rc!=SQLITE_OK ) return rc;
      sqlite3_bind_blob(p->pRows, 1, p->bounds.a, nLo, SQLITE_STATIC);
      sqlite3_bind_blob(p->pRows, 2, p->bounds.a+nLo, (int)p->bounds.n-nLo, SQLITE_STATIC);
      break;
    }
    case DOCEXT_SCAN_INDEX:
      docextBufReset(&p->bounds);
      docextBufAppend(&rc, &p->bounds, pScan->aLo, pScan->nLo);
      docextBufAppend(&rc, &p->bounds, pScan->aHi, pScan->nHi);
      if( rc!=SQLITE_OK ) return rc;
      /* (an empty bound binds an empty blob: a NULL pointer would bind NULL) */
      sqlite3_bind_int64(p->pRows, 1, pScan->iIx);
      sqlite3_bind_blob(p->pRows, 2, pScan->nLo ? p->bounds.a : (const u8*)"",
                        pScan->nLo, SQLITE_STATIC);
      sqlite3_bind_blob(p->pRows, 3, pScan->nHi ? p->bounds.a+pScan->nLo : (const u8*)"",
                        pScan->nHi, SQLITE_STATIC);
      break;
  }
  return SQLITE_OK;
}

/* Release the current row. The store's own statement goes back to it, for
** another reader of the same rows: a collection's reader of old documents,
** reset after every use, would otherwise keep it from every other reader,
** each of which then prepared a statement of its own (the router's reads
** of single documents did, on every replacement). A statement prepared for
** this reader alone stays with it, for its next start. */
void docextReaderReset(DocReader *p){
  p->bLoaded = 0;
  if( p->pRows==0 ) return;
  if( p->pRows==p->pStore->aStmt[p->iStmt] ){
    storeGiveBack(p->pStore, p->iStmt, p->pRows);
    p->pRows = 0;
  }else{
    sqlite3_reset(p->pRows);
  }
}

/* Advance to the next row: SQLITE_ROW, SQLITE_DONE or an error. */
int docextReaderStep(DocReader *p){
  int rc;
  p->bLoaded = 0;
  if( p->pRows==0 ) return SQLITE_DONE;
  rc = sqlite3_step(p->pRows);
  if( rc!=SQLITE_ROW ){
    int rc2 = sqlite3_reset(p->pRows);
    if( rc==SQLITE_DONE && rc2!=SQLITE_OK ) rc = rc2;
  }
  return rc;
}

/* Start on the document with id iDoc: SQLITE_ROW when it is there (read it
** with docextReaderDoc), SQLITE_DONE when there is none. */
int docextReaderSeek(DocReader *p, i64 iDoc){
  DocScan scan;
  int rc;
  memset(&scan, 0, sizeof(scan));
  scan.eScan = DOCEXT_SCAN_DOCID;
  scan.iDoc = iDoc;
  rc = docextReaderStart(p, &scan);
  return rc==SQLITE_OK ? docextReaderStep(p) : rc;
}

i64 docextReaderDocid(DocReader *p){
  return sqlite3_column_int64(p->pRows, 0);
}

/* Assemble the current multi-page document into p->buf. */
static int readPages(DocReader *p, i64 nSize, char **pzErr){
  DocStore *pS = p->pStore;
  DocPage *aPage = 0;
  int nPage = 0, i, rc;
  i64 nTotal = 0;
  if( sqlite3_column_type(p->pRows, 3)!=SQLITE_BLOB ){
    rc = SQLITE_CORRUPT_VTAB;     /* as the writers see it: no page list */
  }else{
    rc = docextPageListDecode(sqlite3_column_blob(p->pRows, 3),
                        sqlite3_column_bytes(p->pRows, 3), &aPage, &nPage, &nTotal);
  }
  if( rc==SQLITE_OK && nTotal!=nSize ) rc = SQLITE_CORRUPT_VTAB;
  docextBufReset(&p->buf);
  if( rc==SQLITE_OK ) docextBufGrow(&rc, &p->buf, nTotal);
  for(i=0; rc==SQLITE_OK && i<nPage; i++){
    rc = storeReadPage(pS, aPage[i].pgno, aPage[i].n, p->buf.a + p->buf.n);
    if( rc==SQLITE_OK ) p->buf.n += aPage[i].n;
  }
  sqlite3_free(aPage);
  if( rc==SQLITE_CORRUPT_VTAB ){
    *pzErr = sqlite3_mprintf("docext: corrupt page list of document %lld in %s",
                             docextReaderDocid(p), pS->zName);
  }
  return rc;
}

/* The current document is damaged: "docext: corrupt document N in X: "
** and what zFmt says. */
static int readerCorrupt(DocReader *p, char **pzErr, const char *zFmt, ...){
  va_list ap;
  char *zWhat;
  va_start(ap, zFmt);
  zWhat = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  *pzErr = sqlite3_mprintf("docext: corrupt document %lld in %s: %z",
                           docextReaderDocid(p), p->pStore->zName, zWhat);
  return SQLITE_CORRUPT_VTAB;
}

/* The bytes of the current document, not yet checked: *pnDoc of them,
** at least 5, and as many as the row says. */
static int readerLocate(DocReader *p, const u8 **paDoc, i64 *pnDoc, char **pzErr){
  /* (sqlite3_column_value() once per column, then sqlite3_value_*(): a
  ** reader runs inside a statement of the same connection, which holds
  ** its mutex, so the values need no locking of their own) */
  sqlite3_value *pSize = sqlite3_column_value(p->pRows, 1);
  sqlite3_value *pBody = sqlite3_column_value(p->pRows, 2);
  i64 nSize = sqlite3_value_int64(pSize);
  const u8 *a;
  int rc;
  int eBody = sqlite3_value_type(pBody);
  /* size is NOT NULL: only an index entry's LEFT JOIN gives NULL */
  if( sqlite3_value_type(pSize)==SQLITE_NULL ){
    *pzErr = sqlite3_mprintf("docext: an index of %s names document %lld, "
                             "which does not exist (see doc_check)",
                             p->pStore->zName, docextReaderDocid(p));
    return SQLITE_CORRUPT_VTAB;
  }
  if( eBody==SQLITE_BLOB ){
    a = sqlite3_value_blob(pBody);
    /* (an empty BLOB reads as NULL: bad size, not out of memory) */
    if( sqlite3_value_bytes(pBody)!=nSize || nSize<5 ) nSize = -1;
    else if( a==0 ) return SQLITE_NOMEM;
  }else if( eBody!=SQLITE_NULL ){
    return readerCorrupt(p, pzErr, "its body is not a BLOB");
  }else{
    rc = readPages(p, nSize, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    a = p->buf.a;
  }
  if( nSize<5 ){
    return readerCorrupt(p, pzErr, "bad size");
  }
  *paDoc = a;
  *pnDoc = nSize;
  return SQLITE_OK;
}

/* The current document failed its check: what ck says, as an error. */
static int readerMalformed(DocReader *p, const DocCheck *pCk, char **pzErr){
  return readerCorrupt(p, pzErr, "malformed BSON at byte %d: %s", pCk->iOff, pCk->zWhy);
}

/* Take aDoc, whose structure is sound, as the current document, after the
** last check: writers rely on _id coming first (a document stored without
** it is not one docext wrote). One look at the first element. */
static int readerAccept(DocReader *p, const u8 *aDoc, char **pzErr){
  DocIter it;
  docextIterInit(&it, aDoc);
  if( !docextIterNext(&it) || it.nKey!=3 || memcmp(it.zKey, "_id", 3)!=0 ){
    return readerCorrupt(p, pzErr, "_id is not its first field");
  }
  p->aDoc = aDoc;
  p->bLoaded = 1;
  return SQLITE_OK;
}

/* The current document, validated. *paDoc stays valid until the reader
** moves. */
int docextReaderDoc(DocReader *p, const u8 **paDoc, char **pzErr){
  if( !p->bLoaded ){
    const u8 *a;
    i64 nSize;
    DocCheck ck;
    int rc = readerLocate(p, &a, &nSize, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    /* Structure only: text was checked when the document was stored. */
    if( docextCheckDoc(&ck, a, nSize, 0)!=SQLITE_OK ){
      return readerMalformed(p, &ck, pzErr);
    }
    rc = readerAccept(p, a, pzErr);
    if( rc!=SQLITE_OK ) return rc;
  }
  *paDoc = p->aDoc;
  return SQLITE_OK;
}

/* The current document as Extended JSON (eMode), appended to pOut. A
** document not yet read is checked while it is written: one walk of its
** bytes instead of two, on the path of every SELECT doc. */
int docextReaderDocJson(DocReader *p, DocBuf *pOut, int eMode, char **pzErr){
  const u8 *a;
  i64 nSize;
  DocCheck ck;
  int rc = SQLITE_OK;
  if( p->bLoaded ){
    docextJsonWriteDoc(&rc, pOut, p->aDoc, eMode);
    return rc;
  }
  rc = readerLocate(p, &a, &nSize, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  if( docextJsonWriteDocChecked(&rc, pOut, a, nSize, eMode, &ck)!=SQLITE_OK ){
    return readerMalformed(p, &ck, pzErr);
  }
  if( rc!=SQLITE_OK ) return rc;
  return readerAccept(p, a, pzErr);
}

/*------------------------------------------------------------------------
** Index entries: counting and reading key ranges.
**
** Index iIx 0 is the _id index, X_docs.idkey; any other is X_idx with
** ix = iIx. A range is half-open over key bytes: [aLo, aHi).
*/

int docextStorageCountRange(DocStore *p, i64 iIx, const u8 *aLo, int nLo,
                            const u8 *aHi, int nHi, i64 nMax, i64 *pnCount){
  sqlite3_stmt *pStmt = 0;
  int iArg = 1;
  int rc = storeStmt(p, iIx ? STMT_COUNT_IDX : STMT_COUNT_ID, &pStmt);
  *pnCount = 0;
  if( rc!=SQLITE_OK ) return rc;
  if( iIx ) sqlite3_bind_int64(pStmt, iArg++, iIx);
  /* (a NULL pointer would bind NULL, not an empty blob) */
  sqlite3_bind_blob(pStmt, iArg++, aLo ? aLo : (const u8*)"", nLo, SQLITE_STATIC);
  sqlite3_bind_blob(pStmt, iArg++, aHi ? aHi : (const u8*)"", nHi, SQLITE_STATIC);
  sqlite3_bind_int64(pStmt, iArg, nMax);
  if( sqlite3_step(pStmt)==SQLITE_ROW ) *pnCount = sqlite3_column_int64(pStmt, 0);
  rc = sqlite3_reset(pStmt);
  sqlite3_clear_bindings(pStmt);
  return rc;
}

struct DocIdxCursor {
  DocStore *pStore;
  sqlite3_stmt *pCur;       /* the one running (borrowed), or NULL */
  int iStmt;                /* which statement pCur is */
  DocBuf bound;             /* copies of the current bounds */
};

int docextIdxCursorNew(DocStore *pStore, DocIdxCursor **ppCur){
  DocIdxCursor *p = docextMallocZero(sizeof(*p));
  *ppCur = p;
  if( p==0 ) return SQLITE_NOMEM;
  p->pStore = pStore;
  return SQLITE_OK;
}

/* Give the running statement back to the store. */
void docextIdxCursorStop(DocIdxCursor *p){
  storeGiveBack(p->pStore, p->iStmt, p->pCur);
  p->pCur = 0;
}

void docextIdxCursorFree(DocIdxCursor *p){
  if( p ){
    docextIdxCursorStop(p);
    docextBufFree(&p->bound);
    sqlite3_free(p);
  }
}

int docextIdxCursorStart(DocIdxCursor *p, i64 iIx, const u8 *aLo, int nLo,
                         const u8 *aHi, int nHi, int bDesc){
  int iStmt = iIx==0 ? (bDesc ? STMT_ID_RANGE_DESC : STMT_ID_RANGE)
                     : (bDesc ? STMT_IDX_RANGE_DESC : STMT_IDX_RANGE);
  int iArg = 1, rc = SQLITE_OK;
  docextIdxCursorStop(p);
  docextBufReset(&p->bound);
  docextBufAppend(&rc, &p->bound, aLo, nLo);
  docextBufAppend(&rc, &p->bound, aHi, nHi);
  if( rc==SQLITE_OK ) rc = storeBorrow(p->pStore, iStmt, &p->pCur);
  if( rc!=SQLITE_OK ){
    p->pCur = 0;
    return rc;
  }
  p->iStmt = iStmt;
  /* (a NULL pointer would bind NULL, not an empty blob) */
  if( iIx ) sqlite3_bind_int64(p->pCur, iArg++, iIx);
  sqlite3_bind_blob(p->pCur, iArg++, nLo ? p->bound.a : (const u8*)"", nLo, SQLITE_STATIC);
  sqlite3_bind_blob(p->pCur, iArg, nHi ? p->bound.a+nLo : (const u8*)"", nHi, SQLITE_STATIC);
  return SQLITE_OK;
}

int docextIdxCursorStep(DocIdxCursor *p){
  int rc;
  if( p->pCur==0 ) return SQLITE_DONE;
  rc = sqlite3_step(p->pCur);
  if( rc!=SQLITE_ROW ){
    int rc2 = sqlite3_reset(p->pCur);
    docextIdxCursorStop(p);
    if( rc==SQLITE_DONE && rc2!=SQLITE_OK ) rc = rc2;
  }
  return rc;
}

i64 docextIdxCursorDocid(DocIdxCursor *p){
  return sqlite3_column_int64(p->pCur, 0);
}

const u8 *docextIdxCursorVals(DocIdxCursor *p, int *pn){
  const u8 *a = (const u8*)sqlite3_column_blob(p->pCur, 1);
  *pn = sqlite3_column_bytes(p->pCur, 1);
  return a;
}
