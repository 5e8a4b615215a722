/*
** docext_coll.c — the collection engine: MongoDB's rules for writing
** documents, on top of the storage layer.
**
** The virtual table (docext_vtab.c) and the collection commands call these;
** they never touch storage directly for writes. Here live: the stored-
** document limits of INTERFACE.md §2 (field names, _id type), putting _id
** first (generating an ObjectId when missing), the _id index's uniqueness
** with MongoDB's E11000 message, and the conflict modes of INSERT OR
** IGNORE / OR REPLACE. Every write also keeps the secondary indexes
** (docextIndexUpdate, docext_index.c) and first sweeps expired documents
** when the collection has a TTL index (docextCollTtlSweep).
*/
#include "docextInt.h"
#include <stdio.h>

struct DocColl {
  DocStore *pStore;
  char *zDisplay;           /* "books", or "aux.books" outside main */
  DocReader *pOld;          /* reads a document before it is replaced */
  DocIndexCache *pIdxCache; /* index definitions etc. (docext_index.c) */
};

int docextCollCreate(sqlite3 *db, const char *zDb, const char *zName, char **pzErr){
  return docextStorageCreate(db, zDb, zName, pzErr);
}

int docextCollOpen(sqlite3 *db, const char *zDb, const char *zName,
                   DocColl **ppColl, char **pzErr){
  DocColl *p = sqlite3_malloc64(sizeof(*p));
  int rc;
  *ppColl = 0;
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  rc = docextStorageOpen(db, zDb, zName, &p->pStore, pzErr);
  if( rc==SQLITE_OK ){
    p->zDisplay = sqlite3_stricmp(zDb, "main")==0
                ? sqlite3_mprintf("%s", zName)
                : sqlite3_mprintf("%s.%s", zDb, zName);
    if( p->zDisplay==0 ) rc = SQLITE_NOMEM;
  }
  if( rc==SQLITE_OK ) rc = docextReaderNew(p->pStore, &p->pOld);
  if( rc!=SQLITE_OK ){
    docextCollClose(p);
    return rc;
  }
  *ppColl = p;
  return SQLITE_OK;
}

void docextCollClose(DocColl *p){
  if( p ){
    docextIndexCacheFree(p->pIdxCache);
    docextReaderFree(p->pOld);
    docextStorageClose(p->pStore);
    sqlite3_free(p->zDisplay);
    sqlite3_free(p);
  }
}

int docextCollDestroy(DocColl *p){
  docextIndexCacheFree(p->pIdxCache);
  p->pIdxCache = 0;
  docextReaderFree(p->pOld);
  p->pOld = 0;
  return docextStorageDestroy(p->pStore);
}

int docextCollRename(DocColl *p, const char *zNew){
  int rc;
  docextIndexCacheFree(p->pIdxCache);   /* its statements name the old tables */
  p->pIdxCache = 0;
  docextReaderFree(p->pOld);
  p->pOld = 0;
  rc = docextStorageRename(p->pStore, zNew);
  if( rc==SQLITE_OK ) rc = docextReaderNew(p->pStore, &p->pOld);
  if( rc==SQLITE_OK ){
    const char *zDb = docextStorageSchema(p->pStore);
    char *z = sqlite3_stricmp(zDb, "main")==0
            ? sqlite3_mprintf("%s", zNew) : sqlite3_mprintf("%s.%s", zDb, zNew);
    if( z==0 ) return SQLITE_NOMEM;
    sqlite3_free(p->zDisplay);
    p->zDisplay = z;
  }
  return rc;
}

DocStore *docextCollStore(DocColl *p){ return p->pStore; }
DocIndexCache **docextCollIndexCache(DocColl *p){ return &p->pIdxCache; }
const char *docextCollName(DocColl *p){ return p->zDisplay; }

/*------------------------------------------------------------------------
** Stored-document rules
*/

/* The dotted path of field zKey under the fields azPath[0..nPath), for
** messages (sqlite3_malloc'd; NULL on OOM). */
static char *namePath(const char *const *azPath, int nPath, const char *zKey){
  DocBuf b;
  int rc = SQLITE_OK, i;
  memset(&b, 0, sizeof(b));
  for(i=0; i<nPath; i++){
    docextBufAppendStr(&rc, &b, azPath[i]);
    docextBufAppendByte(&rc, &b, '.');
  }
  docextBufAppendStr(&rc, &b, zKey);
  return docextBufDetachText(&rc, &b);
}

/* Field names of stored documents may not start with '$' nor contain '.',
** at any depth, in MongoDB's words ("The dollar ($) prefixed field '$x' in
** 'a.0.$x' is not valid for storage."). A DBRef's $ref, $id and $db are
** allowed as MongoDB allows them: $id right after $ref, $db right after
** $id. azPath[0..nPath) are the names above aDoc (room for
** DOCEXT_MAX_DEPTH+1), kept for the messages only. */
static int checkNames(const u8 *aDoc, int bArray, const char **azPath, int nPath,
                      char **pzErr){
  DocIter it;
  const char *zPrev = "";     /* the previous field name */
  docextIterInit(&it, aDoc);
  while( docextIterNext(&it) ){
    const char *zWhy = 0;
    if( !bArray && it.nKey>0 && it.zKey[0]=='$' ){
      DocIter next = it;
      if( strcmp(it.zKey, "$ref")==0 ){
        if( !docextIterNext(&next) || strcmp(next.zKey, "$id")!=0 ){
          zWhy = "The DBRef $ref field must be followed by a $id field";
        }
      }else if( strcmp(it.zKey, "$id")==0 ){
        if( strcmp(zPrev, "$ref")!=0 ) zWhy = "The DBRef $id field must follow the $ref field";
      }else if( strcmp(it.zKey, "$db")==0 ){
        if( strcmp(zPrev, "$id")!=0 ) zWhy = "The DBRef $db field must follow the $id field";
      }else{
        zWhy = "";
      }
    }else if( !bArray && memchr(it.zKey, '.', it.nKey) ){
      zWhy = ".";
    }
    if( zWhy ){
      char *zPath = namePath(azPath, nPath, it.zKey);
      if( zPath==0 ) return SQLITE_NOMEM;
      if( zWhy[0]==0 ){
        *pzErr = sqlite3_mprintf("docext: The dollar ($) prefixed field '%s' in '%s' "
                                 "is not valid for storage.", it.zKey, zPath);
      }else if( zWhy[0]=='.' ){
        *pzErr = sqlite3_mprintf("docext: The dotted field '%s' in '%s' "
                                 "is not valid for storage.", it.zKey, zPath);
      }else{
        *pzErr = sqlite3_mprintf("docext: %s (in '%s')", zWhy, zPath);
      }
      sqlite3_free(zPath);
      return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    if( it.v.type==DOC_DOCUMENT || it.v.type==DOC_ARRAY ){
      int rc;
      if( nPath>=DOCEXT_MAX_DEPTH ){   /* validated documents never are */
        *pzErr = sqlite3_mprintf("docext: nesting deeper than %d levels", DOCEXT_MAX_DEPTH);
        return SQLITE_ERROR;
      }
      azPath[nPath] = it.zKey;
      rc = checkNames(it.v.p, it.v.type==DOC_ARRAY, azPath, nPath+1, pzErr);
      if( rc ) return rc;
    }
    zPrev = it.zKey;
  }
  return SQLITE_OK;
}

static const char *typeName(int type){
  switch( type ){
    case DOC_ARRAY:     return "an array";
    case DOC_REGEX:     return "a regex";
    case DOC_UNDEFINED: return "undefined";
  }
  return "this type";
}

/* Make aDoc storable: check the limits, and make _id the first field,
** generating an ObjectId when there is none. The result is *paOut: aDoc
** itself when nothing moved, else a document built in pOut. */
int docextCollPrepare(const u8 *aDoc, DocBuf *pOut, const u8 **paOut, char **pzErr){
  DocIter it;
  DocValue id;
  int rc = SQLITE_OK;
  int bFirst = 0, bHasId;

  {
    const char *azPath[DOCEXT_MAX_DEPTH+1];
    rc = checkNames(aDoc, 0, azPath, 0, pzErr);
    if( rc ) return rc;
  }
  docextIterInit(&it, aDoc);
  bHasId = 0;
  while( docextIterNext(&it) ){
    if( it.nKey==3 && memcmp(it.zKey, "_id", 3)==0 ){
      if( bHasId ){
        *pzErr = sqlite3_mprintf("docext: can't have multiple _id fields in one document");
        return SQLITE_ERROR;
      }
      bHasId = 1;
      bFirst = it.iElem==4;
      id = it.v;
    }
  }
  if( bHasId && (id.type==DOC_ARRAY || id.type==DOC_REGEX || id.type==DOC_UNDEFINED) ){
    *pzErr = sqlite3_mprintf("docext: _id may not be %s", typeName(id.type));
    return SQLITE_ERROR;
  }
  if( bFirst ){
    *paOut = aDoc;
    return SQLITE_OK;
  }

  /* Rebuild: _id first (the existing one, or a new ObjectId), the rest in
  ** their order. */
  {
    i64 iStart;
    docextBufReset(pOut);
    iStart = docextBsonStartDoc(&rc, pOut);
    if( bHasId ){
      docextBsonAppendValue(&rc, pOut, "_id", 3, &id);
    }else{
      u8 aOid[12];
      docextOidNew(aOid);
      docextBsonAppendOid(&rc, pOut, "_id", 3, aOid);
    }
    docextIterInit(&it, aDoc);
    while( docextIterNext(&it) ){
      if( it.nKey==3 && memcmp(it.zKey, "_id", 3)==0 ) continue;
      docextBsonAppendValue(&rc, pOut, it.zKey, it.nKey, &it.v);
    }
    docextBsonEndDoc(&rc, pOut, iStart);
  }
  if( rc==SQLITE_TOOBIG ){
    *pzErr = sqlite3_mprintf("docext: document larger than 16 MiB");
    return SQLITE_TOOBIG;
  }
  if( rc==SQLITE_OK ) *paOut = pOut->a;
  return rc;
}

/* The _id of a prepared document (always its first field). */
static void firstValue(const u8 *aDoc, DocValue *pId){
  DocIter it;
  docextIterInit(&it, aDoc);
  docextIterNext(&it);
  *pId = it.v;
}

/* Append the hex digits of a[0..n), upper case or lower case. */
static void appendHex(int *pRc, DocBuf *p, const u8 *a, int n, int bUpper){
  const char *zDigit = bUpper ? "0123456789ABCDEF" : "0123456789abcdef";
  int i;
  for(i=0; i<n; i++){
    docextBufAppendByte(pRc, p, (u8)zDigit[a[i]>>4]);
    docextBufAppendByte(pRc, p, (u8)zDigit[a[i]&15]);
  }
}

static void appendToStringDoc(int *pRc, DocBuf *p, const u8 *aDoc, int bArray);

void docextValueToString(int *pRc, DocBuf *p, const DocValue *v){
  const char *z;
  int n;
  char zBuf[48];
  switch( v->type ){
    case DOC_DOCUMENT: case DOC_ARRAY:
      appendToStringDoc(pRc, p, v->p, v->type==DOC_ARRAY);
      break;
    case DOC_DATE:
      docextBufAppendf(pRc, p, "new Date(%lld)", docextValueI64(v));
      break;
    case DOC_REGEX:
      z = (const char*)v->p;
      docextBufAppendf(pRc, p, "/%s/%s", z, z+strlen(z)+1);
      break;
    case DOC_DOUBLE:
      /* StringBuilder::appendDoubleNice() */
      snprintf(zBuf, sizeof(zBuf), "%.16g", docextValueDouble(v));
      docextBufAppendStr(pRc, p, zBuf);
      if( !strchr(zBuf, '.') && !strchr(zBuf, 'E') && !strchr(zBuf, 'N') ){
        docextBufAppendStr(pRc, p, ".0");
      }
      break;
    case DOC_INT64:
      docextBufAppendf(pRc, p, "%lld", docextValueI64(v));
      break;
    case DOC_INT32:
      docextBufAppendf(pRc, p, "%d", docextValueI32(v));
      break;
    case DOC_DECIMAL128:
      n = docextDec128ToString(v->p, zBuf);
      docextBufAppend(pRc, p, zBuf, n);
      break;
    case DOC_BOOL:      docextBufAppendStr(pRc, p, v->p[0] ? "true" : "false"); break;
    case DOC_UNDEFINED: docextBufAppendStr(pRc, p, "undefined"); break;
    case DOC_NULL:      docextBufAppendStr(pRc, p, "null"); break;
    case DOC_MAXKEY:    docextBufAppendStr(pRc, p, "MaxKey"); break;
    case DOC_MINKEY:    docextBufAppendStr(pRc, p, "MinKey"); break;
    case DOC_CODEWSCOPE:
      z = docextValueStr(v, &n);
      docextBufAppendStr(pRc, p, "CodeWScope( ");
      docextBufAppend(pRc, p, z, n);
      docextBufAppendStr(pRc, p, ", ");
      appendToStringDoc(pRc, p, v->p + 8 + n + 1, 0);
      docextBufAppendByte(pRc, p, ')');
      break;
    case DOC_CODE:
      z = docextValueStr(v, &n);
      if( n+1>80 ){
        docextBufAppend(pRc, p, z, 70);
        docextBufAppendStr(pRc, p, "...");
      }else{
        docextBufAppend(pRc, p, z, n);
      }
      break;
    case DOC_SYMBOL: case DOC_STRING:
      z = docextValueStr(v, &n);
      docextBufAppendByte(pRc, p, '"');
      if( n+1>160 ){
        docextBufAppend(pRc, p, z, 150);
        docextBufAppendStr(pRc, p, "...\"");
      }else{
        docextBufAppend(pRc, p, z, n);
        docextBufAppendByte(pRc, p, '"');
      }
      break;
    case DOC_DBPOINTER:
      z = docextValueStr(v, &n);
      docextBufAppendStr(pRc, p, "DBRef('");
      docextBufAppend(pRc, p, z, n);
      docextBufAppendStr(pRc, p, "',");
      appendHex(pRc, p, v->p + 4 + n + 1, 12, 0);
      docextBufAppendByte(pRc, p, ')');
      break;
    case DOC_OID:
      docextBufAppendStr(pRc, p, "ObjectId('");
      appendHex(pRc, p, v->p, 12, 0);
      docextBufAppendStr(pRc, p, "')");
      break;
    case DOC_BINARY: {
      int iSub = v->p[4];
      const u8 *a = v->p + 5;
      n = docextGetI32(v->p);
      if( iSub==0x02 ){ a += 4; n -= 4; }   /* binDataClean() */
      if( iSub==0x04 && n==16 ){
        docextBufAppendStr(pRc, p, "UUID(\"");
        appendHex(pRc, p, a, 4, 0);     docextBufAppendByte(pRc, p, '-');
        appendHex(pRc, p, a+4, 2, 0);   docextBufAppendByte(pRc, p, '-');
        appendHex(pRc, p, a+6, 2, 0);   docextBufAppendByte(pRc, p, '-');
        appendHex(pRc, p, a+8, 2, 0);   docextBufAppendByte(pRc, p, '-');
        appendHex(pRc, p, a+10, 6, 0);
        docextBufAppendStr(pRc, p, "\")");
      }else{
        docextBufAppendf(pRc, p, "BinData(%d, ", iSub);
        appendHex(pRc, p, a, n>80 ? 70 : n, 1);
        docextBufAppendStr(pRc, p, n>80 ? "...)" : ")");
      }
      break;
    }
    case DOC_TIMESTAMP: {
      u64 u = (u64)docextValueI64(v);
      docextBufAppendf(pRc, p, "Timestamp(%lld, %lld)", (i64)(u>>32), (i64)(u & 0xFFFFFFFF));
      break;
    }
  }
}

/* BSONObj::toString(): "{ a: 1, b: "x" }", "[ 1, 2 ]", "{}", "[]". */
static void appendToStringDoc(int *pRc, DocBuf *p, const u8 *aDoc, int bArray){
  DocIter it;
  int bFirst = 1;
  docextIterInit(&it, aDoc);
  while( docextIterNext(&it) ){
    docextBufAppendStr(pRc, p, bFirst ? (bArray ? "[ " : "{ ") : ", ");
    bFirst = 0;
    if( !bArray ){
      docextBufAppend(pRc, p, it.zKey, it.nKey);
      docextBufAppendStr(pRc, p, ": ");
    }
    docextValueToString(pRc, p, &it.v);
  }
  if( bFirst ) docextBufAppendStr(pRc, p, bArray ? "[]" : "{}");
  else docextBufAppendStr(pRc, p, bArray ? " ]" : " }");
}

/* "E11000 duplicate key error collection: books index: _id_ dup key:
** { _id: 1 }", as MongoDB words it; a compound index lists every field:
** "{ book: 1, user: 2 }". Used by the _id index here and by every unique
** secondary index (docext_index.c). */
char *docextDupKeyMessage(DocColl *p, const char *zIndex, int nField,
                          char *const *azField, const DocValue *aVal){
  DocBuf b;
  int rc = SQLITE_OK, i;
  memset(&b, 0, sizeof(b));
  docextBufAppendf(&rc, &b, "E11000 duplicate key error collection: %s index: %s "
                   "dup key: { ", p->zDisplay, zIndex);
  for(i=0; i<nField; i++){
    docextBufAppendf(&rc, &b, "%s%s: ", i ? ", " : "", azField[i]);
    docextValueToString(&rc, &b, &aVal[i]);
  }
  docextBufAppendStr(&rc, &b, " }");
  return docextBufDetachText(&rc, &b);
}

static char *idDupMessage(DocColl *p, const DocValue *pId){
  static char zId[] = "_id";
  char *azField[1];
  azField[0] = zId;
  return docextDupKeyMessage(p, "_id_", 1, azField, pId);
}

/* 1 if the collection has secondary indexes (so a write must read the
** document it changes); 0 with *pRc set on error. */
static int hasIndexes(DocColl *p, int *pRc, char **pzErr){
  DocIndex *aIdx = 0;
  int nIdx = 0;
  *pRc = docextCollIndexes(p, &aIdx, &nIdx, pzErr);
  return *pRc==SQLITE_OK && nIdx>1;
}

/* Encode the _id key of a prepared document into pKey. */
static int idKey(const u8 *aDoc, DocBuf *pKey, DocValue *pId){
  int rc = SQLITE_OK;
  firstValue(aDoc, pId);
  docextBufReset(pKey);
  docextKeyAppend(&rc, pKey, pId, 0);
  return rc;
}

/* Load document iDoc through the collection's own reader. */
static int readDoc(DocColl *p, i64 iDoc, const u8 **paDoc, char **pzErr){
  DocScan scan;
  int rc;
  memset(&scan, 0, sizeof(scan));
  scan.eScan = DOCEXT_SCAN_DOCID;
  scan.iDoc = iDoc;
  rc = docextReaderStart(p->pOld, &scan);
  if( rc==SQLITE_OK ) rc = docextReaderStep(p->pOld);
  if( rc==SQLITE_ROW ) return docextReaderDoc(p->pOld, paDoc, pzErr);
  if( rc==SQLITE_DONE ){
    *pzErr = sqlite3_mprintf("docext: no document %lld in %s", iDoc, p->zDisplay);
    return SQLITE_ERROR;
  }
  return rc;
}

int docextCollInsert(DocColl *p, const u8 *aDoc, int eConflict, i64 *piDoc, char **pzErr){
  DocBuf doc, key;
  u8 aKeySpace[128];
  const u8 *aStore = 0;
  DocValue id;
  i64 iOld = 0;
  int rc;

  memset(&doc, 0, sizeof(doc));
  docextBufInit(&key, aKeySpace, sizeof(aKeySpace));
  rc = docextCollTtlSweep(p, 0, pzErr);
  if( rc==SQLITE_OK ) rc = docextCollPrepare(aDoc, &doc, &aStore, pzErr);
  if( rc==SQLITE_OK ) rc = idKey(aStore, &key, &id);
  if( rc==SQLITE_OK ){
    rc = docextStorageFindKey(p->pStore, key.a, (int)key.n, &iOld);
    if( rc==SQLITE_DONE ){
      rc = docextStorageInsert(p->pStore, key.a, (int)key.n,
                               aStore, docextGetI32(aStore), piDoc);
      if( rc==SQLITE_OK ){
        rc = docextIndexUpdate(p, *piDoc, 0, aStore, pzErr);
        if( rc!=SQLITE_OK ){
          /* The index checks failed and wrote nothing: take the document
          ** out again, so that nothing of this insert stays (an E11000 is
          ** SQLITE_CONSTRAINT, which SQLite skips under INSERT OR IGNORE). */
          docextStorageDelete(p->pStore, *piDoc);
        }
      }
    }else if( rc==SQLITE_ROW ){
      if( eConflict==SQLITE_IGNORE ){
        *piDoc = iOld;
        rc = SQLITE_OK;
      }else if( eConflict==SQLITE_REPLACE ){
        *piDoc = iOld;
        rc = SQLITE_OK;
        if( hasIndexes(p, &rc, pzErr) ){
          const u8 *aOld = 0;
          rc = readDoc(p, iOld, &aOld, pzErr);
          if( rc==SQLITE_OK ) rc = docextIndexUpdate(p, iOld, aOld, aStore, pzErr);
          docextReaderReset(p->pOld);
        }
        if( rc==SQLITE_OK ){
          rc = docextStorageReplace(p->pStore, iOld, key.a, (int)key.n, 0, 0,
                                    aStore, docextGetI32(aStore));
        }
      }else{
        *pzErr = idDupMessage(p, &id);
        rc = SQLITE_CONSTRAINT;
      }
    }
  }
  docextBufFree(&doc);
  docextBufFree(&key);
  return rc;
}

int docextCollReplace(DocColl *p, i64 iDoc, const u8 *aNew, char **pzErr){
  DocBuf doc, keyOld, keyNew;
  const u8 *aOld = 0, *aStore = 0;
  DocValue idOld, idNew;
  i64 nSwept = 0;
  int rc;

  memset(&doc, 0, sizeof(doc));
  memset(&keyOld, 0, sizeof(keyOld));
  memset(&keyNew, 0, sizeof(keyNew));
  rc = docextCollTtlSweep(p, &nSwept, pzErr);
  if( rc==SQLITE_OK ) rc = readDoc(p, iDoc, &aOld, pzErr);
  if( rc==SQLITE_ERROR && nSwept>0 ){
    /* The document expired and the sweep just removed it: nothing to do. */
    sqlite3_free(*pzErr);
    *pzErr = 0;
    return SQLITE_OK;
  }
  if( rc==SQLITE_OK ) rc = idKey(aOld, &keyOld, &idOld);
  if( rc==SQLITE_OK && !docextBsonFind(aNew, "_id", 3, &idNew) ){
    /* A replacement without _id keeps the old one: build {_id, ...aNew}. */
    DocIter it;
    i64 iStart;
    iStart = docextBsonStartDoc(&rc, &doc);
    docextBsonAppendValue(&rc, &doc, "_id", 3, &idOld);
    docextIterInit(&it, aNew);
    while( docextIterNext(&it) ) docextBsonAppendValue(&rc, &doc, it.zKey, it.nKey, &it.v);
    docextBsonEndDoc(&rc, &doc, iStart);
    if( rc==SQLITE_TOOBIG ){
      *pzErr = sqlite3_mprintf("docext: document larger than 16 MiB");
    }
    if( rc==SQLITE_OK ) aNew = doc.a;
  }
  if( rc==SQLITE_OK ){
    DocBuf prepared;
    memset(&prepared, 0, sizeof(prepared));
    rc = docextCollPrepare(aNew, &prepared, &aStore, pzErr);
    if( rc==SQLITE_OK ) rc = idKey(aStore, &keyNew, &idNew);
    if( rc==SQLITE_OK && (keyNew.n!=keyOld.n || memcmp(keyNew.a, keyOld.a, keyNew.n)) ){
      DocBuf msg;
      memset(&msg, 0, sizeof(msg));
      docextBufAppendStr(&rc, &msg, "docext: after applying the update, the (immutable) "
                                    "field '_id' was found to have been altered to _id: ");
      docextValueToString(&rc, &msg, &idNew);
      *pzErr = docextBufDetachText(&rc, &msg);
      if( rc==SQLITE_OK ) rc = SQLITE_CONSTRAINT;
    }
    if( rc==SQLITE_OK ) rc = docextIndexUpdate(p, iDoc, aOld, aStore, pzErr);
    if( rc==SQLITE_OK ){
      /* aOld still holds the old bytes: a paged document's are in the
      ** reader's own buffer, which the write does not touch (storage only
      ** diffs paged documents). */
      rc = docextStorageReplace(p->pStore, iDoc, keyNew.a, (int)keyNew.n,
                                aOld, docextGetI32(aOld), aStore, docextGetI32(aStore));
    }
    docextReaderReset(p->pOld);
    docextBufFree(&prepared);
  }
  docextBufFree(&doc);
  docextBufFree(&keyOld);
  docextBufFree(&keyNew);
  return rc;
}

int docextCollDelete(DocColl *p, i64 iDoc, char **pzErr){
  int rc = docextCollTtlSweep(p, 0, pzErr);
  if( rc==SQLITE_OK && hasIndexes(p, &rc, pzErr) ){
    DocScan scan;
    memset(&scan, 0, sizeof(scan));
    scan.eScan = DOCEXT_SCAN_DOCID;
    scan.iDoc = iDoc;
    rc = docextReaderStart(p->pOld, &scan);
    if( rc==SQLITE_OK ) rc = docextReaderStep(p->pOld);
    if( rc==SQLITE_DONE ) return SQLITE_OK;   /* gone already (a TTL sweep) */
    if( rc==SQLITE_ROW ){
      const u8 *aOld = 0;
      rc = docextReaderDoc(p->pOld, &aOld, pzErr);
      if( rc==SQLITE_OK ) rc = docextIndexUpdate(p, iDoc, aOld, 0, pzErr);
    }
    docextReaderReset(p->pOld);
  }
  if( rc==SQLITE_OK ) rc = docextStorageDelete(p->pStore, iDoc);
  return rc;
}
