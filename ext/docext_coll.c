/*
** docext_coll.c — the collection engine: MongoDB's rules for writing
** documents, on top of the storage layer.
**
** The virtual table (docext_vtab.c) and the collection commands call these;
** they never touch storage directly for writes. Here live: the stored-
** document limits of INTERFACE.md §2 (field names, _id type), putting _id
** first (generating an ObjectId when missing), the _id index's uniqueness
** with MongoDB's E11000 message, and the conflict modes of INSERT OR
** IGNORE / OR REPLACE. Every insert and replacement is checked against
** the collection's validator (docextValidateWrite, docext_validate.c),
** every write also keeps the secondary indexes (docextIndexUpdate,
** docext_index.c) and first sweeps expired documents when the collection
** has a TTL index (docextCollTtlSweep).
*/
#include "docextInt.h"
#include <stdio.h>

struct DocColl {
  DocStore *pStore;
  char *zDisplay;           /* "books", or "aux.books" outside main */
  DocReader *pOld;          /* reads a document before it is replaced */
  DocIndexCache *pIdxCache; /* index definitions etc. (docext_index.c) */
  DocValidator *pValidator; /* the validator compiled (docext_validate.c) */
  int nBypass;              /* writes skip validation while > 0 */
  int nHold;                /* functions using it (docextCollHold) */
  int bClosed;              /* closed while held: free on the last release */
};

int docextCollCreate(sqlite3 *db, const char *zDb, const char *zName, char **pzErr){
  return docextStorageCreate(db, zDb, zName, pzErr);
}

int docextCollOpen(sqlite3 *db, const char *zDb, const char *zName,
                   DocColl **ppColl, char **pzErr){
  DocColl *p = docextMallocZero(sizeof(*p));
  int rc;
  *ppColl = 0;
  if( p==0 ) return SQLITE_NOMEM;
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
  if( p && p->nHold>0 ){
    p->bClosed = 1;
  }else if( p ){
    docextIndexCacheFree(p->pIdxCache);
    docextValidatorFree(p->pValidator);
    docextReaderFree(p->pOld);
    docextStorageClose(p->pStore);
    sqlite3_free(p->zDisplay);
    sqlite3_free(p);
  }
}

void docextCollHold(DocColl *p){
  p->nHold++;
}

void docextCollRelease(DocColl *p){
  if( --p->nHold==0 && p->bClosed ) docextCollClose(p);
}

int docextCollDestroy(DocColl *p){
  docextIndexCacheFree(p->pIdxCache);
  p->pIdxCache = 0;
  docextValidatorFree(p->pValidator);
  p->pValidator = 0;
  docextReaderFree(p->pOld);
  p->pOld = 0;
  return docextStorageDestroy(p->pStore);
}

int docextCollDrop(sqlite3 *db, const char *zDb, const char *zName){
  return docextStorageDrop(db, zDb, zName);
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
DocValidator **docextCollValidatorSlot(DocColl *p){ return &p->pValidator; }
void docextCollBypassValidation(DocColl *p, int bOn){ p->nBypass += bOn ? 1 : -1; }
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

/* Is there a '.' in the key? (Keys are short: a loop, not a memchr() call.) */
static int keyHasDot(const char *z, int n){
  int i;
  for(i=0; i<n; i++){
    if( z[i]=='.' ) return 1;
  }
  return 0;
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
    }else if( !bArray && keyHasDot(it.zKey, it.nKey) ){
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
        return docextError(pzErr, "docext: nesting deeper than %d levels", DOCEXT_MAX_DEPTH);
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
int docextCollPrepare(const u8 *aDoc, int bNamesChecked, DocBuf *pOut, const u8 **paOut,
                      char **pzErr){
  DocIter it;
  DocValue id;
  int rc = SQLITE_OK;
  int bFirst = 0, bHasId;

  if( !bNamesChecked ){
    const char *azPath[DOCEXT_MAX_DEPTH+1];
    rc = checkNames(aDoc, 0, azPath, 0, pzErr);
    if( rc ) return rc;
  }
  docextIterInit(&it, aDoc);
  bHasId = 0;
  while( docextIterNext(&it) ){
    if( it.nKey==3 && memcmp(it.zKey, "_id", 3)==0 ){
      if( bHasId ){
        return docextError(pzErr, "docext: can't have multiple _id fields in one document");
      }
      bHasId = 1;
      bFirst = it.iElem==4;
      id = it.v;
    }
  }
  if( bHasId && (id.type==DOC_ARRAY || id.type==DOC_REGEX || id.type==DOC_UNDEFINED) ){
    return docextError(pzErr, "docext: _id may not be %s", typeName(id.type));
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

/* The validator's check of a write (docext_validate.c), unless bypassed. */
static int collValidate(DocColl *p, const u8 *aOld, const u8 *aNew, char **pzErr){
  return p->nBypass>0 ? SQLITE_OK : docextValidateWrite(p, aOld, aNew, pzErr);
}

/* Encode the _id key of a prepared document into pKey, under the
** collection's default collation (pColl; NULL: none), which is its _id
** index's. */
static int idKey(const u8 *aDoc, const DocCollator *pColl, DocBuf *pKey, DocValue *pId){
  int rc = SQLITE_OK;
  firstValue(aDoc, pId);
  docextBufReset(pKey);
  docextKeyAppendColl(&rc, pKey, pId, 0, pColl);
  return rc;
}

/* Load document iDoc through the collection's own reader. */
static int readDoc(DocColl *p, i64 iDoc, const u8 **paDoc, char **pzErr){
  int rc = docextReaderSeek(p->pOld, iDoc);
  if( rc==SQLITE_ROW ) return docextReaderDoc(p->pOld, paDoc, pzErr);
  if( rc==SQLITE_DONE ){
    return docextError(pzErr, "docext: no document %lld in %s", iDoc, p->zDisplay);
  }
  return rc;
}

/* The error for a document id at or past iDocLimit (docextCollInsert). */
static int idTooLarge(DocColl *p, i64 iDoc, char **pzErr){
  return docextError(pzErr, "docext: document id %lld in %s is too large for a sharded "
                     "collection's rowid", iDoc, p->zDisplay);
}

/* Write a new document (_id pId, its key in pKey) and its index entries.
** The store's UNIQUE(idkey) finds a duplicate _id. If the id the document
** gets is too large or an index refuses it, take it out again: a
** statement changing one row has no statement journal to undo it. */
static int insertNew(DocColl *p, const DocValue *pId, const DocBuf *pKey, const u8 *aStore,
                     i64 iDocLimit, i64 *piDoc, char **pzErr){
  int rc = docextStorageInsert(p->pStore, pKey->a, (int)pKey->n,
                               aStore, docextGetI32(aStore), piDoc);
  if( rc==SQLITE_CONSTRAINT
   && sqlite3_extended_errcode(docextStorageDb(p->pStore))==SQLITE_CONSTRAINT_UNIQUE ){
    *pzErr = idDupMessage(p, pId);
  }
  if( rc!=SQLITE_OK ) return rc;
  if( iDocLimit>0 && *piDoc>=iDocLimit ){
    rc = idTooLarge(p, *piDoc, pzErr);
  }else{
    rc = docextIndexUpdate(p, *piDoc, 0, aStore, pzErr);
  }
  /* (the index checks that failed wrote nothing; an E11000 is
  ** SQLITE_CONSTRAINT, which SQLite skips under INSERT OR IGNORE) */
  if( rc!=SQLITE_OK ) docextStorageDelete(p->pStore, *piDoc);
  return rc;
}

int docextCollInsert(DocColl *p, const u8 *aDoc, int bNamesChecked, int eConflict,
                     i64 iDocLimit, i64 *piDoc, char **pzErr){
  DocBuf doc, key;
  u8 aKeySpace[128];
  const u8 *aStore = 0;
  DocCollator *pIdColl = 0;
  DocValue id;
  i64 iOld = 0;
  int rc;

  memset(&doc, 0, sizeof(doc));
  docextBufInit(&key, aKeySpace, sizeof(aKeySpace));
  rc = docextCollTtlSweep(p, 0, pzErr);
  if( rc==SQLITE_OK ) rc = docextCollPrepare(aDoc, bNamesChecked, &doc, &aStore, pzErr);
  if( rc==SQLITE_OK ) rc = docextCollCollation(p, &pIdColl, pzErr);
  if( rc==SQLITE_OK ) rc = idKey(aStore, pIdColl, &key, &id);
  if( rc==SQLITE_OK && eConflict!=SQLITE_IGNORE && eConflict!=SQLITE_REPLACE
   && docextStorageIsInline(p->pStore, (int)key.n, docextGetI32(aStore)) ){
    /* No look-up first: the INSERT's UNIQUE(idkey) finds a duplicate _id,
    ** and the failed statement leaves nothing behind. */
    rc = collValidate(p, 0, aStore, pzErr);
    if( rc==SQLITE_OK ) rc = insertNew(p, &id, &key, aStore, iDocLimit, piDoc, pzErr);
  }else if( rc==SQLITE_OK ){
    rc = docextStorageFindKey(p->pStore, key.a, (int)key.n, &iOld);
    if( rc==SQLITE_DONE ){
      rc = collValidate(p, 0, aStore, pzErr);
      if( rc==SQLITE_OK ) rc = insertNew(p, &id, &key, aStore, iDocLimit, piDoc, pzErr);
    }else if( rc==SQLITE_ROW && iDocLimit>0 && iOld>=iDocLimit ){
      rc = idTooLarge(p, iOld, pzErr);
    }else if( rc==SQLITE_ROW ){
      if( eConflict==SQLITE_IGNORE ){
        *piDoc = iOld;
        rc = SQLITE_OK;
      }else if( eConflict==SQLITE_REPLACE ){
        /* A replacement of the document with this _id: the old one is
        ** read when its index entries or the validator need it. */
        int bIndexes = 0, bValidate = 0;
        *piDoc = iOld;
        rc = SQLITE_OK;
        bIndexes = hasIndexes(p, &rc, pzErr);
        if( rc==SQLITE_OK && p->nBypass==0 ) rc = docextValidateActive(p, &bValidate, pzErr);
        if( rc==SQLITE_OK && (bIndexes || bValidate) ){
          const u8 *aOld = 0;
          rc = readDoc(p, iOld, &aOld, pzErr);
          if( rc==SQLITE_OK ) rc = collValidate(p, aOld, aStore, pzErr);
          if( rc==SQLITE_OK && bIndexes ) rc = docextIndexUpdate(p, iOld, aOld, aStore, pzErr);
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

int docextCollLoadOld(DocColl *p, i64 iDoc, const u8 **paOld, char **pzErr){
  i64 nSwept = 0;
  int rc = docextCollTtlSweep(p, &nSwept, pzErr);
  *paOld = 0;
  if( rc==SQLITE_OK ) rc = readDoc(p, iDoc, paOld, pzErr);
  if( rc!=SQLITE_OK ) docextCollLoadEnd(p);
  if( rc==SQLITE_ERROR && nSwept>0 ){
    /* The document expired and the sweep just removed it. */
    sqlite3_free(*pzErr);
    *pzErr = 0;
    *paOld = 0;
    return SQLITE_OK;
  }
  return rc;
}

void docextCollLoadEnd(DocColl *p){
  docextReaderReset(p->pOld);
}

int docextCollReplace(DocColl *p, i64 iDoc, const u8 *aNew, int bNamesChecked,
                      char **pzErr){
  const u8 *aOld = 0;
  int rc = docextCollLoadOld(p, iDoc, &aOld, pzErr);
  if( rc!=SQLITE_OK || aOld==0 ) return rc;    /* (expired and swept: nothing to do) */
  return docextCollReplaceLoaded(p, iDoc, aOld, aNew, bNamesChecked, pzErr);
}

int docextCollReplaceLoaded(DocColl *p, i64 iDoc, const u8 *aOld, const u8 *aNew,
                            int bNamesChecked, char **pzErr){
  DocBuf doc, keyNew;
  const u8 *aStore = 0;
  DocCollator *pIdColl = 0;
  DocValue idOld, idNew;
  int rc;

  memset(&doc, 0, sizeof(doc));
  memset(&keyNew, 0, sizeof(keyNew));
  firstValue(aOld, &idOld);
  rc = docextCollCollation(p, &pIdColl, pzErr);
  if( rc==SQLITE_OK && !docextBsonFind(aNew, "_id", 3, &idNew) ){
    /* A replacement without _id keeps the old one: build {_id, ...aNew}. */
    docextBsonWithId(&rc, &doc, &idOld, aNew);
    if( rc==SQLITE_TOOBIG ){
      *pzErr = sqlite3_mprintf("docext: document larger than 16 MiB");
    }
    if( rc==SQLITE_OK ) aNew = doc.a;
  }
  if( rc==SQLITE_OK ){
    DocBuf prepared;
    memset(&prepared, 0, sizeof(prepared));
    rc = docextCollPrepare(aNew, bNamesChecked, &prepared, &aStore, pzErr);
    if( rc==SQLITE_OK ) rc = idKey(aStore, pIdColl, &keyNew, &idNew);
    /* (compared without the collation, as MongoDB compares it: "ann" may
    ** not become "Ann" even where the two are one _id) */
    if( rc==SQLITE_OK && docextValueCompare(&idOld, &idNew)!=0 ){
      DocBuf msg;
      memset(&msg, 0, sizeof(msg));
      docextBufAppendStr(&rc, &msg, "docext: after applying the update, the (immutable) "
                                    "field '_id' was found to have been altered to _id: ");
      docextValueToString(&rc, &msg, &idNew);
      *pzErr = docextBufDetachText(&rc, &msg);
      if( rc==SQLITE_OK ) rc = SQLITE_CONSTRAINT;
    }
    if( rc==SQLITE_OK ) rc = collValidate(p, aOld, aStore, pzErr);
    if( rc==SQLITE_OK ) rc = docextIndexUpdate(p, iDoc, aOld, aStore, pzErr);
    if( rc==SQLITE_OK ){
      /* aOld still holds the old bytes: a paged document's are in the
      ** reader's own buffer, which the write does not touch (storage only
      ** diffs paged documents). */
      rc = docextStorageReplace(p->pStore, iDoc, keyNew.a, (int)keyNew.n,
                                aOld, docextGetI32(aOld), aStore, docextGetI32(aStore));
    }
    docextBufFree(&prepared);
  }
  /* (after an error too: the reader must not stay on its row, a statement
  ** running past the user's) */
  docextCollLoadEnd(p);
  docextBufFree(&doc);
  docextBufFree(&keyNew);
  return rc;
}

/*------------------------------------------------------------------------
** Appends in place.
**
** A $push onto an array of a large (paged) document is applied to the
** pages it touches instead of to a copy of the whole document: the path is
** followed element by element through the page list (reading a header and
** skipping the value), the new elements go in before the array's closing
** 0x00, and the length fields of the array and of every document around it
** are rewritten where they are. The new element's name is the array's
** length, which a walk over the array would cost as much as the copy; so
** the page list's aux bytes keep a hint per array appended to this way
** (PushHint: where the array is, its length, where its last element
** starts), checked before use and rebuilt by a walk when it does not hold.
** Only the fast path writes hints, and storage drops them whenever the
** document is written whole, so a hint can only be stale by corruption.
**
** Anything else falls back to the ordinary update (which also reports the
** errors): a path that is missing or crosses anything but documents, an
** index or partial filter on a path the append changes, a TTL index (its
** expiry reads the document), a validator (it reads the whole document),
** an inline document, a key this walk does not
** read (over 255 bytes, after a regex value), a value that breaks the
** stored-document rules.
*/

#define PUSH_MAX_HINT 4             /* arrays a document keeps hints for */

typedef struct PushHint PushHint;
struct PushHint {
  i64 iArr;                 /* offset of the array's length field */
  i64 nElem;                /* its elements */
  i64 iLast;                /* offset of its last element (if any) */
};

/* One element of a paged document, read through its page list. */
typedef struct PagedElem PagedElem;
struct PagedElem {
  int type;
  char zKey[256];           /* the name, NUL-terminated */
  int nKey;
  i64 iVal;                 /* offset of the value */
  i64 nVal;                 /* its size */
};

/* Read the element at iOff of a container whose closing 0x00 is at iEnd.
** SQLITE_OK; SQLITE_DONE at iEnd; SQLITE_CORRUPT_VTAB for bytes that are
** not BSON; SQLITE_MISMATCH for an element this reader leaves alone (a
** name of 256 bytes or more, a regex), which sends the caller to the
** ordinary update. */
static int pagedElem(DocPaged *pDoc, i64 iOff, i64 iEnd, PagedElem *pE){
  u8 a[262];
  i64 nRest;
  int nRead, i, rc;
  if( iOff==iEnd ) return SQLITE_DONE;
  if( iOff>iEnd ) return SQLITE_CORRUPT_VTAB;
  nRead = iEnd-iOff < (i64)sizeof(a) ? (int)(iEnd-iOff) : (int)sizeof(a);
  rc = docextPagedRead(pDoc, iOff, nRead, a);
  if( rc!=SQLITE_OK ) return rc;
  for(i=1; i<nRead && a[i]; i++){}
  if( i>=nRead ) return nRead==(int)sizeof(a) ? SQLITE_MISMATCH : SQLITE_CORRUPT_VTAB;
  if( i-1>=(int)sizeof(pE->zKey) ) return SQLITE_MISMATCH;
  pE->type = a[0];
  pE->nKey = i-1;
  memcpy(pE->zKey, a+1, pE->nKey+1);
  pE->iVal = iOff + i + 1;
  nRest = iEnd - pE->iVal;
  if( pE->type==DOC_REGEX ) return SQLITE_MISMATCH;   /* (two strings to scan) */
  {
    /* Every other size is fixed or in the value's first 4 bytes, which is
    ** all docextBsonValueSize reads of it: only those are fetched. */
    u8 aLen[4] = {0, 0, 0, 0};
    int nLen = nRest<4 ? (int)nRest : 4;
    rc = docextPagedRead(pDoc, pE->iVal, nLen, aLen);
    if( rc!=SQLITE_OK ) return rc;
    pE->nVal = docextBsonValueSize(pE->type, aLen, nRest);
  }
  return pE->nVal>=0 ? SQLITE_OK : SQLITE_CORRUPT_VTAB;
}

/* Follow a dotted path of document fields to an array. On SQLITE_OK,
** aiLen[0..*pnLen) are the offsets of the length fields of the documents
** on the way (the root's, 0, first) and *piArr that of the array. Any
** other outcome (SQLITE_MISMATCH: missing, not documents, not an array)
** means "not in place". */
static int pagedFindArray(DocPaged *pDoc, const char *zPath, int nPath,
                          i64 *aiLen, int *pnLen, i64 *piArr, i64 *pnArr){
  i64 iDoc = 0;                         /* the document being searched */
  u8 aLen[4];
  int nLen = 0, rc;
  rc = docextPagedRead(pDoc, 0, 4, aLen);
  if( rc==SQLITE_OK && docextGetI32(aLen)!=docextPagedSize(pDoc) ) rc = SQLITE_CORRUPT_VTAB;
  while( rc==SQLITE_OK ){
    const char *zDot = memchr(zPath, '.', nPath);
    int nComp = zDot ? (int)(zDot - zPath) : nPath;
    i64 iEnd, iOff;
    PagedElem e;
    rc = docextPagedRead(pDoc, iDoc, 4, aLen);
    if( rc!=SQLITE_OK ) break;
    if( nLen>=DOCEXT_MAX_DEPTH ) return SQLITE_MISMATCH;
    aiLen[nLen++] = iDoc;
    iEnd = iDoc + docextGetI32(aLen) - 1;
    for(iOff=iDoc+4; (rc = pagedElem(pDoc, iOff, iEnd, &e))==SQLITE_OK; iOff = e.iVal + e.nVal){
      if( e.nKey==nComp && memcmp(e.zKey, zPath, nComp)==0 ) break;
    }
    if( rc==SQLITE_DONE ) return SQLITE_MISMATCH;      /* missing */
    if( rc!=SQLITE_OK ) break;
    if( zDot==0 ){
      if( e.type!=DOC_ARRAY ) return SQLITE_MISMATCH;
      *pnLen = nLen;
      *piArr = e.iVal;
      *pnArr = e.nVal;
      return SQLITE_OK;
    }
    if( e.type!=DOC_DOCUMENT ) return SQLITE_MISMATCH;
    iDoc = e.iVal;
    zPath = zDot + 1;
    nPath -= nComp + 1;
  }
  return rc;
}

/* The hints of the aux bytes; those that cannot hold (offsets outside
** the document: damage) are dropped, so that offsets stay small. */
static void hintsRead(DocPaged *pDoc, PushHint *aHint, int *pnHint){
  int n = 0, i;
  const u8 *a = docextPagedAux(pDoc, &n);
  i64 nSize = docextPagedSize(pDoc);
  *pnHint = 0;
  for(i=0; i+24<=n && *pnHint<PUSH_MAX_HINT; i+=24){
    PushHint h;
    h.iArr = docextGetI64(a+i);
    h.nElem = docextGetI64(a+i+8);
    h.iLast = docextGetI64(a+i+16);
    if( h.iArr<0 || h.iArr>=nSize || h.iLast<0 || h.iLast>=nSize || h.nElem<0 ) continue;
    aHint[(*pnHint)++] = h;
  }
}

static int hintsWrite(DocPaged *pDoc, const PushHint *aHint, int nHint){
  u8 a[24*PUSH_MAX_HINT];
  DocBuf b;
  int rc = SQLITE_OK, i;
  docextBufInit(&b, a, sizeof(a));
  for(i=0; i<nHint; i++){
    docextBufAppendI64(&rc, &b, aHint[i].iArr);
    docextBufAppendI64(&rc, &b, aHint[i].nElem);
    docextBufAppendI64(&rc, &b, aHint[i].iLast);
  }
  if( rc==SQLITE_OK ) rc = docextPagedSetAux(pDoc, b.a, (int)b.n);
  docextBufFree(&b);
  return rc;
}

/* The number of elements of the array at iArr (length nArr) and the offset
** of the last one: from a hint when it checks out (its last element is
** named nElem-1 and ends where the array does), else by a walk. */
static int pagedArrayLength(DocPaged *pDoc, i64 iArr, i64 nArr, const PushHint *pHint,
                            i64 *pnElem, i64 *piLast){
  i64 iEnd = iArr + nArr - 1, iOff, n = 0, iLast = -1;
  PagedElem e;
  int rc;
  if( pHint && pHint->nElem>0 && pHint->iLast>iArr && pHint->iLast<iEnd
   && pagedElem(pDoc, pHint->iLast, iEnd, &e)==SQLITE_OK && e.iVal+e.nVal==iEnd ){
    char zName[24];
    int nName = docextBsonArrayKey(zName, (int)(pHint->nElem-1));
    if( pHint->nElem-1<=0x7fffffff && nName==e.nKey && memcmp(zName, e.zKey, nName)==0 ){
      *pnElem = pHint->nElem;
      *piLast = pHint->iLast;
      return SQLITE_OK;
    }
  }
  for(iOff=iArr+4; (rc = pagedElem(pDoc, iOff, iEnd, &e))==SQLITE_OK; iOff = e.iVal+e.nVal){
    iLast = iOff;
    n++;
  }
  if( rc!=SQLITE_DONE ) return rc;
  *pnElem = n;
  *piLast = iLast;
  return SQLITE_OK;
}

/* Does an index (or its partial filter) read a path an append to zPath
** changes: zPath itself, a path under it, or one of its prefixes? */
static int appendTouches(const char *zIdx, int nIdx, const char *zPath, int nPath){
  int n = nIdx<nPath ? nIdx : nPath;
  if( memcmp(zIdx, zPath, n)!=0 ) return 0;
  return nIdx==nPath || (nIdx<nPath ? zPath[nIdx]=='.' : zIdx[nPath]=='.');
}

/* Can the appends go in place as far as the indexes are concerned? */
static int appendIndexesOk(DocColl *p, const DocAppend *aApp, int nApp, int *pRc, char **pzErr){
  DocIndex *aIdx = 0;
  int nIdx = 0, i, j, k;
  *pRc = docextCollIndexes(p, &aIdx, &nIdx, pzErr);
  if( *pRc!=SQLITE_OK ) return 0;
  for(i=1; i<nIdx; i++){
    if( aIdx[i].nExpireAfter>=0 || aIdx[i].aPartial ) return 0;
    for(j=0; j<aIdx[i].nField; j++){
      const char *z = aIdx[i].azPath[j];
      for(k=0; k<nApp; k++){
        if( appendTouches(z, (int)strlen(z), aApp[k].zPath, aApp[k].nPath) ) return 0;
      }
    }
  }
  return 1;
}

/* Append aApp->aVal to the array it names, in pDoc, with its hints. */
static int pagedAppend(DocPaged *pDoc, const DocAppend *pApp, PushHint *aHint,
                       int *pnHint, char **pzErr){
  i64 aiLen[DOCEXT_MAX_DEPTH], iArr = 0, nArr = 0, nElem = 0, iLast = -1, iAt;
  PushHint *pHint = 0;
  const char *azPath[DOCEXT_MAX_DEPTH+1];
  DocBuf add;
  int nLen = 0, rc, i, nAdd;
  rc = pagedFindArray(pDoc, pApp->zPath, pApp->nPath, aiLen, &nLen, &iArr, &nArr);
  if( rc!=SQLITE_OK ) return rc;
  for(i=0; i<*pnHint; i++){
    if( aHint[i].iArr==iArr ) pHint = &aHint[i];
  }
  rc = pagedArrayLength(pDoc, iArr, nArr, pHint, &nElem, &iLast);
  if( rc!=SQLITE_OK ) return rc;

  /* The new elements, under the stored-document rules. */
  memset(&add, 0, sizeof(add));
  iAt = iArr + nArr - 1;
  for(i=0; rc==SQLITE_OK && i<pApp->nVal; i++){
    const DocValue *v = &pApp->aVal[i];
    char zName[24];
    int nName;
    if( nElem+i>0x7fffffff || nLen + docextValueDepth(v, DOCEXT_MAX_DEPTH) > DOCEXT_MAX_DEPTH ){
      rc = SQLITE_MISMATCH;
      break;
    }
    if( v->type==DOC_DOCUMENT || v->type==DOC_ARRAY ){
      rc = checkNames(v->p, v->type==DOC_ARRAY, azPath, 0, pzErr);
      if( rc!=SQLITE_OK ){
        sqlite3_free(*pzErr);        /* the ordinary update says it better */
        *pzErr = 0;
        rc = SQLITE_MISMATCH;
        break;
      }
    }
    iLast = iAt + add.n;
    nName = docextBsonArrayKey(zName, (int)(nElem+i));
    docextBsonAppendValue(&rc, &add, zName, nName, v);
  }
  nAdd = (int)add.n;
  if( rc==SQLITE_OK && docextPagedSize(pDoc)+nAdd>DOCEXT_MAX_BSON ) rc = SQLITE_MISMATCH;
  if( rc==SQLITE_OK ) rc = docextPagedInsert(pDoc, iAt, add.a, nAdd);
  docextBufFree(&add);

  /* Every length around the new bytes grows by nAdd. */
  aiLen[nLen++] = iArr;
  for(i=0; rc==SQLITE_OK && i<nLen; i++){
    u8 a[4];
    rc = docextPagedRead(pDoc, aiLen[i], 4, a);
    if( rc==SQLITE_OK ){
      docextPutI32(a, docextGetI32(a) + nAdd);
      rc = docextPagedOverwrite(pDoc, aiLen[i], a, 4);
    }
  }

  /* Hints after the insertion move; this array's is renewed (the oldest
  ** gives way when there are too many). */
  for(i=0; rc==SQLITE_OK && i<*pnHint; i++){
    if( aHint[i].iArr>iAt ){
      aHint[i].iArr += nAdd;
      aHint[i].iLast += nAdd;
    }
  }
  if( rc==SQLITE_OK ){
    if( pHint==0 ){
      if( *pnHint==PUSH_MAX_HINT ){
        memmove(aHint, aHint+1, sizeof(PushHint)*(PUSH_MAX_HINT-1));
        (*pnHint)--;
      }
      pHint = &aHint[(*pnHint)++];
      pHint->iArr = iArr;
    }
    pHint->nElem = nElem + pApp->nVal;
    pHint->iLast = iLast;
  }
  return rc;
}

int docextCollAppendInPlace(DocColl *p, i64 iDoc, DocUpdate *pUpdate, int *pbDone,
                            i64 *pnSize, char **pzErr){
  DocAppend aApp[8];
  PushHint aHint[PUSH_MAX_HINT];
  DocPaged *pDoc = 0;
  int nApp, nHint = 0, rc = SQLITE_OK, i;
  *pbDone = 0;
  nApp = docextUpdateAppends(pUpdate, aApp, DOCEXT_COUNT(aApp));
  if( nApp==0 ) return SQLITE_OK;
  for(i=0; i<nApp; i++){
    if( aApp[i].nPath>=3 && memcmp(aApp[i].zPath, "_id", 3)==0
     && (aApp[i].nPath==3 || aApp[i].zPath[3]=='.') ){
      return SQLITE_OK;                 /* _id: its error is the update's */
    }
  }
  if( !appendIndexesOk(p, aApp, nApp, &rc, pzErr) ) return rc;
  if( p->nBypass==0 ){
    /* (a validator reads the whole document: the ordinary update checks it) */
    int bValidate = 0;
    rc = docextValidateActive(p, &bValidate, pzErr);
    if( rc!=SQLITE_OK || bValidate ) return rc;
  }
  rc = docextPagedOpen(p->pStore, iDoc, &pDoc);
  if( rc!=SQLITE_OK || pDoc==0 ) return rc;
  hintsRead(pDoc, aHint, &nHint);
  for(i=0; rc==SQLITE_OK && i<nApp; i++){
    rc = pagedAppend(pDoc, &aApp[i], aHint, &nHint, pzErr);
  }
  if( rc==SQLITE_OK ) rc = hintsWrite(pDoc, aHint, nHint);
  if( rc==SQLITE_OK ) rc = docextPagedCommit(pDoc);
  if( rc==SQLITE_OK ){
    *pbDone = 1;
    if( pnSize ) *pnSize = docextPagedSize(pDoc);
  }else if( rc==SQLITE_MISMATCH || rc==SQLITE_CORRUPT_VTAB ){
    /* Not in place: the ordinary update reads the whole document (and
    ** reports corruption in its words). Nothing was written. */
    rc = SQLITE_OK;
  }
  docextPagedClose(pDoc);
  return rc;
}

/* Its index entries go first, found through the keys of the old document.
** A document too damaged to read can still be deleted (how a user gets rid
** of it): its entries are then found by document id, a scan of the index
** table, once the document is gone (which fails, changing nothing, when
** its page list is damaged too). */
int docextCollDelete(DocColl *p, i64 iDoc, char **pzErr){
  int rc = docextCollTtlSweep(p, 0, pzErr), bUnreadable = 0;
  if( rc==SQLITE_OK && hasIndexes(p, &rc, pzErr) ){
    rc = docextReaderSeek(p->pOld, iDoc);
    if( rc==SQLITE_DONE ) return SQLITE_OK;   /* gone already (a TTL sweep) */
    if( rc==SQLITE_ROW ){
      const u8 *aOld = 0;
      rc = docextReaderDoc(p->pOld, &aOld, pzErr);
      if( rc==SQLITE_OK ){
        rc = docextIndexUpdate(p, iDoc, aOld, 0, pzErr);
      }else if( (rc & 0xff)==SQLITE_CORRUPT ){
        sqlite3_free(*pzErr);
        *pzErr = 0;
        rc = SQLITE_OK;
        bUnreadable = 1;
      }
    }
    docextReaderReset(p->pOld);
  }
  if( rc==SQLITE_OK ) rc = docextStorageDelete(p->pStore, iDoc);
  if( rc==SQLITE_OK && bUnreadable ) rc = docextIndexRemoveDoc(p, iDoc, pzErr);
  return rc;
}
