/*
** docext_vtab.c — the "docext" virtual-table module: a collection.
**
**   CREATE VIRTUAL TABLE books USING docext;
**
** The module only translates between SQLite and the collection engine
** (docext_coll.c) and storage readers (docext_storage.c): xBestIndex turns
** constraints into a plan, xFilter into a DocScan, xUpdate into
** docextCollInsert/Replace/Delete.
**
** COLUMNS:  _id, doc, filter HIDDEN, projection HIDDEN, sort HIDDEN,
**           options HIDDEN, bson HIDDEN.
**
** PLAN ENCODING. idxStr is "<how>|<codes>", for example "COLLSCAN|",
** "IXSCAN _id_|=", "IXSCAN _id_|G<", "IXSCAN slug_1|F" or
** "OR(IXSCAN a_1, IXSCAN b_1)|F". EXPLAIN QUERY PLAN shows it. <how> is
**     IXSCAN _id_          _id constraints (codes R = I > G < L) choose the
**                          rows; any filter is checked on each of them
**     COLLSCAN             every document: no _id constraint, and either no
**                          index fits the filter or the filter (or a
**                          doc_match, sort or options argument) is not
**                          known when the statement is prepared (a bound
**                          parameter, a column of another table): the
**                          planner (docext_plan.c) then runs at xFilter,
**                          which may still choose an index
**     IXSCAN <index>       the index the planner chose for the literal
**                          filter, sort and options; xFilter uses it again
**                          (when it still fits) so that the plan shown is
**                          the plan run
**     OR(IXSCAN <a>, ...)  a union for a top-level $or, planned at xFilter
**     ROUTED <how>         a sharded collection: <how> is its own storage's
**                          plan; each shard plans its part at xFilter
** Each character of <codes> says what the xFilter argument at that
** position is:
**     R   rowid = ?
**     =   _id = ?          (I: the same, with the whole IN list at once)
**     >   _id > ?          G   _id >= ?
**     <   _id < ?          L   _id <= ?
**     F   filter = ?       M   doc_match(doc, ?)
**     P   projection = ?   S   sort = ?        O   options = ?
**     N   LIMIT ?          K   OFFSET ?
** idxNum: bit 0 (1) set when the statement reads no document column (_id,
** doc, bson: e.g. count(*)), so a count over an exact index plan reads only
** index entries. Bit 1 (2) set when the plan was made for a sharded
** collection (or one whose definitions could not be read): it is never a
** one-pass write. A plan without it may be one, so if the collection has
** been sharded since, xFilter makes SQLite prepare the statement again
** (SQLITE_SCHEMA) rather than run it.
**
** _id COMPARISONS follow what the _id column shows: an INTEGER or REAL
** compares with numeric _ids by value (int32, int64, double, decimal), a
** TEXT with string _ids, and a TEXT that reads as an Extended JSON value
** (such as '{"$oid":"…"}', the column's form for an ObjectId, or
** '{"$numberDouble":"NaN"}') also equals the _id it denotes. Ranges stay
** within one type, as in MongoDB: _id > 5 never matches a string, and no
** range of numbers holds NaN.
*/
#include "docextInt.h"
#include <math.h>
#include <stdlib.h>

/* Column numbers. */
#define COL_ID          0
#define COL_DOC         1
#define COL_FILTER      2
#define COL_PROJECTION  3
#define COL_SORT        4
#define COL_OPTIONS     5
#define COL_BSON        6
#define COL_COUNT       7

typedef struct DocCursor DocCursor;
typedef struct DocVtab DocVtab;
typedef struct NameStmt NameStmt;

/* A schema's statement of schemaHasTable. */
struct NameStmt {
  char *zDb;
  sqlite3_stmt *pStmt;
};
struct DocVtab {
  sqlite3_vtab base;
  sqlite3 *db;
  DocColl *pColl;           /* 0 while it cannot be opened (vtabColl) */
  DocConn *pConn;           /* the connection's registry */
  char *zDb, *zName;        /* schema and collection name */
  DocVtab *pNext;           /* next in pConn's list */
  DocCursor *pSpare;        /* a closed cursor kept for the next xOpen */
  DocRouter *pRouter;       /* a sharded collection's router, cached */
};

/* The connection's open collections: one registry per connection, however
** often docext is loaded into it. Each load registers the module and the
** functions again, and the functions of a later load must find the tables
** connected before it, so a load finds the registry its connection has in
** the process's list of them (connAcquire). A registry lives while
** anything holds it: each registration of the module, which SQLite lets go
** of when the module is replaced or the connection closes (not always
** after the tables that module connected have disconnected), and each
** table. */
struct DocConn {
  sqlite3 *db;
  DocVtab *pList;
  int nRef;                 /* registrations and tables holding it */
  DocConn *pNextConn;       /* in the process's list */
  /* The statements that resolve a collection's name (docextCollFind), one
  ** per schema (has it a table or view ?1), kept from call to call while a
  ** table is open, and finalized with the last one (sqlite3_close() fails
  ** while a statement is left, and it disconnects the tables first). */
  NameStmt *aHas;
  int nHas;
  int nResolving;           /* resolutions running: keep the statements */
};

/* Every connection's registry; connMutex() guards the list and nRef. */
static DocConn *pAllConns = 0;

static sqlite3_mutex *connMutex(void){
  return sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP2);
}

/* db's registry, made if it has none, held once more; 0 if out of memory. */
static DocConn *connAcquire(sqlite3 *db){
  sqlite3_mutex *pMutex = connMutex();
  DocConn *p;
  sqlite3_mutex_enter(pMutex);
  for(p=pAllConns; p && p->db!=db; p=p->pNextConn){}
  if( p==0 && (p = docextMallocZero(sizeof(*p)))!=0 ){
    p->db = db;
    p->pNextConn = pAllConns;
    pAllConns = p;
  }
  if( p ) p->nRef++;
  sqlite3_mutex_leave(pMutex);
  return p;
}

static void connHold(DocConn *p){
  sqlite3_mutex *pMutex = connMutex();
  sqlite3_mutex_enter(pMutex);
  p->nRef++;
  sqlite3_mutex_leave(pMutex);
}

/* Let go of a registry (the module's destructor too): freed with the last. */
static void connRelease(void *pArg){
  DocConn *p = (DocConn*)pArg;
  sqlite3_mutex *pMutex = connMutex();
  sqlite3_mutex_enter(pMutex);
  if( --p->nRef==0 ){
    DocConn **pp;
    for(pp=&pAllConns; *pp!=p; pp=&(*pp)->pNextConn){}
    *pp = p->pNextConn;
    sqlite3_free(p);
  }
  sqlite3_mutex_leave(pMutex);
}

/* Finalize the name statements, unless a table is still open or a
** resolution is running (a table it disconnects by bringing a schema up to
** date must not take the statement it steps). */
static void nameStmtsRelease(DocConn *p){
  int i;
  if( p->pList || p->nResolving ) return;
  for(i=0; i<p->nHas; i++){
    sqlite3_finalize(p->aHas[i].pStmt);
    sqlite3_free(p->aHas[i].zDb);
  }
  sqlite3_free(p->aHas);
  p->aHas = 0;
  p->nHas = 0;
}

struct DocCursor {
  sqlite3_vtab_cursor base;
  DocQuery *pQuery;         /* the running find() */
  DocRouted *pRouted;       /* or, on a sharded collection, the router's */
  DocBuf spec;              /* the query arguments as BSON, back to back */
  DocBuf json;              /* the doc column's text */
};

/*------------------------------------------------------------------------
** Errors
*/

int docextVtabError(sqlite3_vtab *pVtab, int rc, char *zMsg){
  sqlite3_free(pVtab->zErrMsg);
  pVtab->zErrMsg = zMsg;
  if( zMsg==0 && rc!=SQLITE_NOMEM ){
    pVtab->zErrMsg = sqlite3_mprintf("docext: %s", sqlite3_errstr(rc));
  }
  return rc;
}

/*------------------------------------------------------------------------
** Create, connect, destroy, rename
*/

static const char zSchema[] =
  "CREATE TABLE x(_id, doc, filter HIDDEN, projection HIDDEN, sort HIDDEN,"
  " options HIDDEN, bson HIDDEN)";

/* The module's one argument, the options of MongoDB's createCollection
** that docext keeps (validator, validationLevel, validationAction), is
** read when the collection is created; they are stored with it, so a
** later connection does not read it again. */
static int vtabInit(sqlite3 *db, DocConn *pConn, int argc, const char *const *argv,
                    sqlite3_vtab **ppVtab, char **pzErr, int bCreate){
  DocVtab *p;
  DocBuf settings, collation;
  int rc;
  *ppVtab = 0;
  if( argc>4 ){
    return docextError(pzErr, "docext: unexpected argument in CREATE VIRTUAL "
                              "TABLE %s USING docext(%s, %s): it takes one, a document of "
                              "options", argv[2], argv[3], argv[4]);
  }
  if( bCreate && argv[2][0]==0 ){
    /* As in MongoDB; its shadow tables would be "_docs", "_pages", ... */
    return docextError(pzErr, "docext: a collection name cannot be empty");
  }
  memset(&settings, 0, sizeof(settings));
  memset(&collation, 0, sizeof(collation));
  if( bCreate && argc==4 ){
    /* (checked before anything is created) */
    rc = docextValidateCreateSettings(argv[3], &settings, &collation, pzErr);
    if( rc!=SQLITE_OK ){
      docextBufFree(&settings);
      docextBufFree(&collation);
      return rc;
    }
  }
  rc = sqlite3_declare_vtab(db, zSchema);
  if( rc!=SQLITE_OK ){
    docextBufFree(&settings);
    docextBufFree(&collation);
    return rc;
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
  p = docextMallocZero(sizeof(*p));
  if( p==0 ){
    docextBufFree(&settings);
    return SQLITE_NOMEM;
  }
  p->db = db;
  p->pConn = pConn;
  p->zDb = sqlite3_mprintf("%s", argv[1]);
  p->zName = sqlite3_mprintf("%s", argv[2]);
  if( p->zDb==0 || p->zName==0 ) rc = SQLITE_NOMEM;
  /* (the copies, not argv: creating the shadow tables may, out of memory,
  ** make SQLite reset the schema that argv's strings belong to) */
  if( rc==SQLITE_OK && bCreate ) rc = docextCollCreate(db, p->zDb, p->zName, pzErr);
  if( rc==SQLITE_OK ) rc = docextCollOpen(db, p->zDb, p->zName, &p->pColl, pzErr);
  if( rc==SQLITE_OK && settings.n ) rc = docextCollSetValidation(p->pColl, settings.a, pzErr);
  if( rc==SQLITE_OK && collation.n ) rc = docextCollSetCollation(p->pColl, collation.a, pzErr);
  docextBufFree(&settings);
  docextBufFree(&collation);
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM && !bCreate ){
    /* A collection whose shadow tables cannot be opened (a damaged or
    ** missing X_config, a lock) still connects, so that DROP TABLE can
    ** remove it; every other use tries again and reports why it cannot
    ** (vtabColl). */
    sqlite3_free(*pzErr);
    *pzErr = 0;
    rc = SQLITE_OK;
  }
  if( rc!=SQLITE_OK ){
    docextCollClose(p->pColl);
    sqlite3_free(p->zDb);
    sqlite3_free(p->zName);
    sqlite3_free(p);
    return rc;
  }
  p->pNext = pConn->pList;
  pConn->pList = p;
  connHold(pConn);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

/* The vtab's collection, opened now if it could not be when the table
** connected; else the reason in *pzErr. */
static int vtabCollOpen(DocVtab *p, DocColl **ppColl, char **pzErr){
  int rc = SQLITE_OK;
  if( p->pColl==0 ) rc = docextCollOpen(p->db, p->zDb, p->zName, &p->pColl, pzErr);
  *ppColl = p->pColl;
  return rc;
}

/* The same, the reason as the vtab's error. */
static int vtabColl(DocVtab *p, DocColl **ppColl){
  char *zErr = 0;
  int rc = vtabCollOpen(p, ppColl, &zErr);
  return rc==SQLITE_OK ? rc : docextVtabError(&p->base, rc, zErr);
}

static int xCreate(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                   sqlite3_vtab **ppVtab, char **pzErr){
  return vtabInit(db, (DocConn*)pAux, argc, argv, ppVtab, pzErr, 1);
}

static int xConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                    sqlite3_vtab **ppVtab, char **pzErr){
  return vtabInit(db, (DocConn*)pAux, argc, argv, ppVtab, pzErr, 0);
}

static void cursorFree(DocCursor *pCur);

/* Free the spare cursor (before the storage changes under it). */
static void vtabDropSpare(DocVtab *p){
  cursorFree(p->pSpare);
  p->pSpare = 0;
}

static int xDisconnect(sqlite3_vtab *pVtab){
  DocVtab *p = (DocVtab*)pVtab;
  DocVtab **pp;
  vtabDropSpare(p);
  for(pp=&p->pConn->pList; *pp; pp=&(*pp)->pNext){
    if( *pp==p ){ *pp = p->pNext; break; }
  }
  nameStmtsRelease(p->pConn);
  docextRouterFree(p->pRouter);
  docextCollClose(p->pColl);
  connRelease(p->pConn);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zName);
  sqlite3_free(p);
  return SQLITE_OK;
}

static int xDestroy(sqlite3_vtab *pVtab){
  DocVtab *p = (DocVtab*)pVtab;
  const u8 *aKey = 0;
  char *zErr = 0;
  int rc;
  vtabDropSpare(p);
  if( p->pColl && docextCollShardKey(p->pColl, &aKey, 0, 0, &zErr)==SQLITE_OK && aKey ){
    /* A sharded collection's chunks go with it. (Its partitions stay, each
    ** a collection of its shard: DROP TABLE shard1.books drops one.) */
    rc = docextExecf(p->db, 0, "DELETE FROM main.docext_chunks WHERE coll=%Q", p->zName);
    if( rc!=SQLITE_OK ) return docextVtabError(pVtab, rc, 0);
  }
  sqlite3_free(zErr);
  rc = p->pColl ? docextCollDestroy(p->pColl) : docextCollDrop(p->db, p->zDb, p->zName);
  if( rc!=SQLITE_OK ) return rc;
  return xDisconnect(pVtab);
}

static int xRename(sqlite3_vtab *pVtab, const char *zNew){
  DocVtab *p = (DocVtab*)pVtab;
  DocColl *pColl;
  const u8 *aKey = 0;
  char *zErr = 0;
  int rc = vtabColl(p, &pColl);
  if( rc!=SQLITE_OK ) return rc;
  rc = docextCollShardKey(pColl, &aKey, 0, 0, &zErr);
  if( rc==SQLITE_OK && aKey ){
    /* its partitions and chunks go by its name */
    rc = docextError(&zErr, "docext: %s is sharded: a sharded collection cannot be "
                     "renamed", p->zName);
  }
  if( rc!=SQLITE_OK ) return docextVtabError(pVtab, rc, zErr);
  vtabDropSpare(p);
  rc = docextCollRename(pColl, zNew);
  if( rc==SQLITE_OK ){
    char *z = sqlite3_mprintf("%s", zNew);
    if( z==0 ) return SQLITE_NOMEM;
    sqlite3_free(p->zName);
    p->zName = z;
  }
  if( rc!=SQLITE_OK ){
    return docextVtabError(pVtab, rc, sqlite3_mprintf("docext: cannot rename to %s: %s",
                                                zNew, sqlite3_errmsg(p->db)));
  }
  return rc;
}

static int xShadowName(const char *zSuffix){
  return docextStorageIsShadow(zSuffix);
}

/*------------------------------------------------------------------------
** Planning
*/

/* Is this (usable or not) constraint one on a hidden query column? */
static int isQueryColumn(int iCol){
  return iCol>=COL_FILTER && iCol<=COL_OPTIONS;
}

/* Plan while the statement is prepared, when the filter, the doc_match
** terms, the sort and the options are all known (literals). Returns the
** plan's label (sqlite3_malloc'd) and its estimated entries in *pnEst, or
** NULL when something is unknown or invalid (xFilter then plans, and
** reports any error). Only running out of memory is an error here (*pRc):
** SQLite must hear of it, not go on preparing as if it had not happened. */
static char *planAtPrepare(DocVtab *p, sqlite3_index_info *pInfo, const int *aQuery,
                           const int *aMatch, int nMatch, double *pnEst, int *pRc){
#if SQLITE_VERSION_NUMBER>=3038000
  DocBuf aBuf[DOCEXT_MAX_FILTERS+2];
  const u8 *aaFilter[DOCEXT_MAX_FILTERS], *aSort = 0, *aOpt = 0;
  int aiCons[DOCEXT_MAX_FILTERS+2], anKind[DOCEXT_MAX_FILTERS+2];
  int nCons = 0, nFilter = 0, i, bOk = 1;
  DocValue hint;
  DocPlan *pPlan = 0;
  char *zLabel = 0;
  int rc;

  if( aQuery[COL_FILTER]>=0 ){ aiCons[nCons] = aQuery[COL_FILTER]; anKind[nCons++] = 'F'; }
  for(i=0; i<nMatch; i++){ aiCons[nCons] = aMatch[i]; anKind[nCons++] = 'F'; }
  if( aQuery[COL_SORT]>=0 ){ aiCons[nCons] = aQuery[COL_SORT]; anKind[nCons++] = 'S'; }
  if( aQuery[COL_OPTIONS]>=0 ){ aiCons[nCons] = aQuery[COL_OPTIONS]; anKind[nCons++] = 'O'; }
  memset(aBuf, 0, sizeof(aBuf));
  for(i=0; bOk && i<nCons; i++){
    sqlite3_value *pVal = 0;
    const u8 *aDoc = 0;
    char *zErr = 0;
    rc = sqlite3_vtab_rhs_value(pInfo, aiCons[i], &pVal);
    if( rc!=SQLITE_OK || pVal==0 ){
      if( rc==SQLITE_NOMEM ) *pRc = rc;
      bOk = 0;
      break;
    }
    if( sqlite3_value_type(pVal)==SQLITE_NULL ) continue;
    rc = docextArgToBson(pVal, &aBuf[i], &aDoc, &zErr);
    if( rc!=SQLITE_OK ){
      if( rc==SQLITE_NOMEM ) *pRc = rc;
      sqlite3_free(zErr);
      bOk = 0;
      break;
    }
    if( anKind[i]=='F' && nFilter<DOCEXT_MAX_FILTERS ) aaFilter[nFilter++] = aDoc;
    if( anKind[i]=='S' ) aSort = aDoc;
    if( anKind[i]=='O' ) aOpt = aDoc;
  }
  if( bOk && p->pColl ){
    char *zErr = 0;
    int bHint = aOpt && docextBsonFind(aOpt, "hint", 4, &hint);
    DocCollator *pCollator = 0;
    rc = docextCollatorOption(aOpt, &pCollator, &zErr);
    if( rc==SQLITE_OK ){
      rc = docextPlanNew(p->pColl, aaFilter, nFilter, aSort, bHint ? &hint : 0, pCollator,
                         0, -1, 0, &pPlan, &zErr);
    }
    docextCollatorFree(pCollator);
    if( rc==SQLITE_OK ) rc = docextPlanEstimate(p->pColl, pPlan);
    if( rc==SQLITE_OK ){
      zLabel = docextPlanLabel(pPlan);
      if( zLabel==0 ) rc = SQLITE_NOMEM;
      *pnEst = pPlan->ePlan==DOCEXT_PLAN_COLLSCAN ? -1.0 : pPlan->nEst;
    }
    if( (rc & 0xff)==SQLITE_NOMEM ) *pRc = SQLITE_NOMEM;
    docextPlanFree(pPlan);
    sqlite3_free(zErr);
  }
  for(i=0; i<nCons; i++) docextBufFree(&aBuf[i]);
  return zLabel;
#else
  (void)p; (void)pInfo; (void)aQuery; (void)aMatch; (void)nMatch; (void)pnEst; (void)pRc;
  return 0;
#endif
}

/* The constraints xBestIndex can use, by kind: indexes into
** pInfo->aConstraint, -1 where there is none. */
typedef struct BestTerms BestTerms;
struct BestTerms {
  int iRowid, iEq, iLimit, iOffset;
  int aQuery[COL_OPTIONS+1];          /* hidden column -> constraint */
  int aRange[8];                      /* >, >=, <, <= on _id: constraints */
  char aRangeCode[8];                 /* ... and their codes, '>' 'G' '<' 'L' */
  int nRange;
  int aMatch[DOCEXT_MAX_FILTERS-1];   /* doc_match(doc, …) terms, and
                                      ** filter = … terms after the first */
  char aMatchCode[DOCEXT_MAX_FILTERS-1];   /* 'M' or 'F' for each */
  int nMatch;
  int bAllUsed;                       /* every usable constraint is ours */
  int bIdCollated;                    /* the _id index has a collation (the
                                      ** collection's default): see bestTerms */
};

static int bestError(sqlite3_vtab *pVtab, char *zMsg){
  sqlite3_free(pVtab->zErrMsg);
  pVtab->zErrMsg = zMsg;
  return zMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* The xFilter code of an _id range operator: '>', 'G' (>=), '<', 'L' (<=);
** 0 for any other operator. */
static char bestRangeCode(int op){
  switch( op ){
    case SQLITE_INDEX_CONSTRAINT_GT: return '>';
    case SQLITE_INDEX_CONSTRAINT_GE: return 'G';
    case SQLITE_INDEX_CONSTRAINT_LT: return '<';
    case SQLITE_INDEX_CONSTRAINT_LE: return 'L';
  }
  return 0;
}

/* Sort pInfo's constraints into *pT. SQLITE_CONSTRAINT: a query argument
** this plan cannot see yet (SQLite then tries another plan). */
static int bestTerms(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo, BestTerms *pT){
  DocColl *pColl = 0;
  DocCollator *pIdColl = 0;
  char *zIgnore = 0;
  int i;
  memset(pT, 0, sizeof(*pT));
  /* SQL compares the _id column as SQL does, in bytes (and folds constants
  ** by that rule), while the _id index of a collection with a default
  ** collation holds collated keys. So there an _id = (or IN) reads the
  ** index for the ids equal under the collation, and SQLite keeps only
  ** those equal in bytes; a range cannot be read from it and is SQLite's. */
  {
    int rc = vtabCollOpen((DocVtab*)pVtab, &pColl, &zIgnore);
    if( rc==SQLITE_OK ) rc = docextCollCollation(pColl, &pIdColl, &zIgnore);
    sqlite3_free(zIgnore);
    if( (rc & 0xff)==SQLITE_NOMEM ) return SQLITE_NOMEM;
    pT->bIdCollated = pIdColl!=0;
  }
  pT->iRowid = pT->iEq = pT->iLimit = pT->iOffset = -1;
  for(i=0; i<=COL_OPTIONS; i++) pT->aQuery[i] = -1;
  pT->bAllUsed = 1;
  for(i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int bRoom = pT->nMatch<DOCEXT_COUNT(pT->aMatch);
    if( pC->op==SQLITE_INDEX_CONSTRAINT_LIMIT || pC->op==SQLITE_INDEX_CONSTRAINT_OFFSET ){
      if( pC->usable ){
        if( pC->op==SQLITE_INDEX_CONSTRAINT_LIMIT ) pT->iLimit = i; else pT->iOffset = i;
      }
      continue;
    }
    if( isQueryColumn(pC->iColumn) ){
      if( !pC->usable ) return SQLITE_CONSTRAINT;
      if( pC->op!=SQLITE_INDEX_CONSTRAINT_EQ ){
        return bestError(pVtab, sqlite3_mprintf("docext: the filter, projection, "
                                                "sort and options columns only take ="));
      }
      if( pT->aQuery[pC->iColumn]<0 ){
        pT->aQuery[pC->iColumn] = i;
      }else if( pC->iColumn==COL_FILTER && bRoom ){
        /* filter = A AND filter = B: both filters, ANDed */
        pT->aMatchCode[pT->nMatch] = 'F';
        pT->aMatch[pT->nMatch++] = i;
      }else if( pC->iColumn==COL_FILTER ){
        return bestError(pVtab, sqlite3_mprintf("docext: more than %d filters in one "
                                                "query", DOCEXT_MAX_FILTERS));
      }else{
        return bestError(pVtab, sqlite3_mprintf("docext: more than one %s in one query",
                         pC->iColumn==COL_PROJECTION ? "projection" :
                         pC->iColumn==COL_SORT ? "sort" : "options"));
      }
      continue;
    }
    if( !pC->usable ){ pT->bAllUsed = 0; continue; }
    if( pC->iColumn==COL_DOC && pC->op==SQLITE_INDEX_CONSTRAINT_FUNCTION && bRoom ){
      pT->aMatchCode[pT->nMatch] = 'M';
      pT->aMatch[pT->nMatch++] = i;
    }else if( pC->iColumn==-1 && pC->op==SQLITE_INDEX_CONSTRAINT_EQ ){
      pT->iRowid = i;
    }else if( pC->iColumn==COL_ID && pC->op==SQLITE_INDEX_CONSTRAINT_EQ ){
      if( pT->iEq>=0 ) pT->bAllUsed = 0;    /* (a second: SQLite checks it) */
      pT->iEq = i;
    }else if( pC->iColumn==COL_ID && bestRangeCode(pC->op) && !pT->bIdCollated
           && pT->nRange<DOCEXT_COUNT(pT->aRange) ){
      /* every bound is taken: xFilter keeps the tightest of each side */
      pT->aRangeCode[pT->nRange] = bestRangeCode(pC->op);
      pT->aRange[pT->nRange++] = i;
    }else{
      pT->bAllUsed = 0;       /* SQLite checks this one itself */
    }
  }
  return SQLITE_OK;
}

static int bestHasRange(const BestTerms *pT){
  return pT->nRange>0;
}

/* Constraint iCons becomes the next argument of xFilter, of kind c: one
** letter of the code in idxStr that tells xFilter what each argument is. */
static void bestUse(sqlite3_index_info *pInfo, int iCons, char c, char *aCode, int *pnCode){
  aCode[(*pnCode)++] = c;
  pInfo->aConstraintUsage[iCons].argvIndex = *pnCode;
  pInfo->aConstraintUsage[iCons].omit = 1;
}

/* Give xFilter its arguments (aCode: their kinds, NUL-terminated); the
** rows expected. *pbIn: the _id = term is an IN list, taken whole. */
static double bestArguments(sqlite3_index_info *pInfo, BestTerms *pT, char *aCode, int *pbIn){
  double nRow = 1e6;
  int nCode = 0, i;
  *pbIn = 0;
  if( pT->iRowid>=0 ){
    bestUse(pInfo, pT->iRowid, 'R', aCode, &nCode);
    nRow = 1;
    /* Other _id constraints become SQLite's to check. */
    if( pT->iEq>=0 || bestHasRange(pT) ) pT->bAllUsed = 0;
  }else{
    if( pT->iEq>=0 ){
      *pbIn = !pT->bIdCollated && sqlite3_vtab_in(pInfo, pT->iEq, -1);
      if( *pbIn ) sqlite3_vtab_in(pInfo, pT->iEq, 1);
      bestUse(pInfo, pT->iEq, *pbIn ? 'I' : '=', aCode, &nCode);
      if( pT->bIdCollated ){
        pInfo->aConstraintUsage[pT->iEq].omit = 0;    /* (SQLite checks the bytes) */
        pT->bAllUsed = 0;
      }
      nRow = *pbIn ? 10 : 1;
    }
    for(i=0; i<pT->nRange; i++){
      bestUse(pInfo, pT->aRange[i], pT->aRangeCode[i], aCode, &nCode);
      if( pT->iEq<0 ) nRow /= 4;
    }
  }
  for(i=COL_FILTER; i<=COL_OPTIONS; i++){
    if( pT->aQuery[i]>=0 ) bestUse(pInfo, pT->aQuery[i], "FPSO"[i-COL_FILTER], aCode, &nCode);
  }
  for(i=0; i<pT->nMatch; i++) bestUse(pInfo, pT->aMatch[i], pT->aMatchCode[i], aCode, &nCode);
  if( pT->aQuery[COL_FILTER]>=0 || pT->nMatch>0 ) nRow = nRow/2 + 1;

  /* SQL LIMIT/OFFSET apply to our rows only when SQLite has nothing left
  ** to filter or sort. */
  if( pT->bAllUsed && pInfo->nOrderBy==0 ){
    if( pT->iLimit>=0 ) bestUse(pInfo, pT->iLimit, 'N', aCode, &nCode);
    if( pT->iOffset>=0 ) bestUse(pInfo, pT->iOffset, 'K', aCode, &nCode);
  }
  aCode[nCode] = 0;
  return nRow;
}

/* Is the collection sharded? *peSharded: 1 yes, 0 no, -1 unknown (its
** definitions cannot be read: xFilter will say why). Only running out of
** memory is an error here. */
static int vtabIsSharded(DocVtab *p, int *peSharded){
  DocColl *pColl = 0;
  const u8 *aKey = 0;
  char *zErr = 0;
  int rc = vtabColl(p, &pColl);
  if( rc==SQLITE_OK ) rc = docextCollShardKey(pColl, &aKey, 0, 0, &zErr);
  sqlite3_free(zErr);
  *peSharded = rc!=SQLITE_OK ? -1 : aKey!=0;
  return (rc & 0xff)==SQLITE_NOMEM ? SQLITE_NOMEM : SQLITE_OK;
}

static int xBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  BestTerms t;
  char aCode[32];
  int bIn, bIdScan, eSharded, rc;
  double nRow;
  char *zHow = 0;

  rc = bestTerms(pVtab, pInfo, &t);
  if( rc!=SQLITE_OK ) return rc;
  nRow = bestArguments(pInfo, &t, aCode, &bIn);
  bIdScan = t.iRowid>=0 || t.iEq>=0 || bestHasRange(&t);
  if( !bIdScan ){
    double nEst = -1.0;
    zHow = planAtPrepare((DocVtab*)pVtab, pInfo, t.aQuery, t.aMatch, t.nMatch, &nEst, &rc);
    if( rc!=SQLITE_OK ){
      sqlite3_free(zHow);
      return rc;
    }
    if( nEst>=0.0 ) nRow = nEst<1.0 ? 1.0 : nEst;
  }
  /* At most one row only by rowid or _id: SQLite then runs an UPDATE or
  ** DELETE in one pass, writing while this cursor reads, which only a
  ** single row allows (an index scan would meet rows it moved ahead). Not
  ** on a sharded collection: _id is unique only within a shard, and a
  ** routed write may take several steps (a move between shards) that only
  ** the statement journal of a statement of several rows undoes. */
  rc = vtabIsSharded((DocVtab*)pVtab, &eSharded);
  if( rc!=SQLITE_OK ){
    sqlite3_free(zHow);
    return rc;
  }
  if( (t.iRowid>=0 || (t.iEq>=0 && !bIn)) && eSharded==0 ){
    pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }
  pInfo->estimatedRows = (sqlite3_int64)nRow;
  pInfo->estimatedCost = nRow<1e6 ? 10.0 + nRow*2 : 2e6;
  /* (a sharded collection's label is its own storage's plan: each shard
  ** plans its part when the query runs, and doc_explain shows them) */
  pInfo->idxStr = sqlite3_mprintf("%s%s|%s", eSharded==1 ? "ROUTED " : "",
      bIdScan ? "IXSCAN _id_" : zHow ? zHow : "COLLSCAN", aCode);
  sqlite3_free(zHow);
  pInfo->needToFreeIdxStr = 1;
  if( pInfo->idxStr==0 ) return SQLITE_NOMEM;
  /* No document column read (count(*), a DELETE by filter): bit 0. */
  if( (pInfo->colUsed & (((sqlite3_uint64)1<<COL_ID) | ((sqlite3_uint64)1<<COL_DOC)
                         | ((sqlite3_uint64)1<<COL_BSON)))==0 ){
    pInfo->idxNum |= 1;
  }
  if( eSharded!=0 ) pInfo->idxNum |= 2;
  /* An unsorted collection scan yields rows in rowid (insertion) order;
  ** a filter, doc_match term or hint may make it an index scan, in key
  ** order. */
  if( t.aQuery[COL_SORT]<0 && t.aQuery[COL_FILTER]<0 && t.aQuery[COL_OPTIONS]<0
   && t.nMatch==0 && !bIdScan
   && pInfo->nOrderBy==1 && pInfo->aOrderBy[0].iColumn==-1 && !pInfo->aOrderBy[0].desc ){
    pInfo->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Cursors
*/

/* A statement's cursors close when it is reset, so a prepared lookup opens
** one per execution: the last one closed is kept, with its query's reader,
** index cursor and buffers, for the next. */
static int xOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor){
  DocVtab *p = (DocVtab*)pVtab;
  DocCursor *pCur = p->pSpare;
  *ppCursor = 0;
  if( pCur ){
    p->pSpare = 0;
  }else{
    pCur = docextMallocZero(sizeof(*pCur));
    if( pCur==0 ) return SQLITE_NOMEM;
  }
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

static void cursorFree(DocCursor *pCur){
  if( pCur ){
    docextRoutedFree(pCur->pRouted);
    docextQueryFree(pCur->pQuery);
    docextBufFree(&pCur->json);
    docextBufFree(&pCur->spec);
    sqlite3_free(pCur);
  }
}

static int xClose(sqlite3_vtab_cursor *pCursor){
  DocCursor *pCur = (DocCursor*)pCursor;
  DocVtab *p = (DocVtab*)pCursor->pVtab;
  docextRoutedFree(pCur->pRouted);
  pCur->pRouted = 0;
  if( p->pSpare==0 && pCur->pQuery ){
    docextQueryIdle(pCur->pQuery);
    memset(&pCur->base, 0, sizeof(pCur->base));
    p->pSpare = pCur;
  }else{
    cursorFree(pCur);
  }
  return SQLITE_OK;
}

/* Write the key of an SQL value taken as a BSON value of its own type
** (INTEGER: int64, REAL: double, TEXT: string), under the _id index's
** collation pColl (NULL: none). 0 if it has none (NULL, BLOB). */
static int sqlValueKey(int *pRc, DocBuf *pOut, sqlite3_value *pVal, const DocCollator *pColl){
  u8 a[16];
  DocBuf b;
  DocValue v;
  docextBufInit(&b, a, sizeof(a));
  switch( sqlite3_value_type(pVal) ){
    case SQLITE_INTEGER:
      docextBufAppendI64(pRc, &b, sqlite3_value_int64(pVal));
      v.type = DOC_INT64; v.p = a; v.n = 8;
      docextKeyAppend(pRc, pOut, &v, 0);
      return 1;
    case SQLITE_FLOAT:
      docextBufAppendDouble(pRc, &b, sqlite3_value_double(pVal));
      v.type = DOC_DOUBLE; v.p = a; v.n = 8;
      docextKeyAppend(pRc, pOut, &v, 0);
      return 1;
    case SQLITE_TEXT: {
      int n = sqlite3_value_bytes(pVal);
      const char *z = (const char*)sqlite3_value_text(pVal);
      if( z==0 ){ *pRc = SQLITE_NOMEM; return 0; }
      v = docextValueString(pRc, &b, z, n);
      if( *pRc==SQLITE_OK ) docextKeyAppendColl(pRc, pOut, &v, 0, pColl);
      docextBufFree(&b);
      return *pRc==SQLITE_OK;
    }
  }
  return 0;
}

/* The key of the value a TEXT denotes when read as Extended JSON (the _id
** column's form for ObjectIds, dates, documents, booleans, decimals, NaN
** ...). 0 if it denotes none. Only text that starts like such a form is
** tried: a number or a string shows as itself. */
static int sqlTextValueKey(int *pRc, DocBuf *pOut, sqlite3_value *pVal,
                           const DocCollator *pColl){
  const char *z = (const char*)sqlite3_value_text(pVal);
  int n = sqlite3_value_bytes(pVal);
  DocBuf b;
  char *zErr = 0;
  int nUsed = 0, bOk = 0;
  if( z==0 || sqlite3_value_type(pVal)!=SQLITE_TEXT ) return 0;
  while( n>0 && (z[0]==' ' || z[0]=='\t' || z[0]=='\n' || z[0]=='\r') ){ z++; n--; }
  if( n==0 || (z[0]!='{' && z[0]!='t' && z[0]!='f' && z[0]!='n') ) return 0;
  memset(&b, 0, sizeof(b));
  if( docextJsonParseValue(z, n, &b, &nUsed, &zErr)==SQLITE_OK && nUsed==n ){
    DocIter it;
    docextIterInit(&it, b.a);
    if( docextIterNext(&it) && it.v.type!=DOC_STRING ){
      docextKeyAppendColl(pRc, pOut, &it.v, 0, pColl);
      bOk = 1;
    }
  }
  sqlite3_free(zErr);
  docextBufFree(&b);
  return bOk;
}

/* Add the candidate keys of one "_id = value" (pColl: the _id index's
** collation, the collection's default; then _id = 'ann' finds "Ann" too,
** as a find of {_id: "ann"} does). */
static int addEqKeys(DocAccess *pA, sqlite3_value *pVal, const DocCollator *pColl){
  int rc = SQLITE_OK, i;
  for(i=0; i<2; i++){
    i64 iStart = pA->keys.n;
    int bAdded = i==0 ? sqlValueKey(&rc, &pA->keys, pVal, pColl)
                      : sqlTextValueKey(&rc, &pA->keys, pVal, pColl);
    if( rc==SQLITE_OK && bAdded ) rc = docextAccessAddKey(pA, iStart);
    if( rc!=SQLITE_OK ) return rc;
  }
  if( pA->nKey==0 ) pA->eAccess = DOCEXT_ACCESS_KEYS;   /* an empty set */
  return SQLITE_OK;
}

/* An _id range bound. Ranges stay within the type of the SQL value; a
** NULL or BLOB bound, or bounds of two types, match nothing. Of two bounds
** on one side (_id > 4 AND _id >= 2) the tighter counts. */
static int addBound(DocAccess *pA, int cCode, sqlite3_value *pVal, const DocCollator *pColl){
  int bUpper = cCode=='<' || cCode=='L';
  int bIncl = cCode=='G' || cCode=='L';
  int bHave = bUpper ? pA->bHi : pA->bLo;
  DocBuf *pB = bUpper ? &pA->hi : &pA->lo;
  DocBuf key;
  u8 aSpace[64];
  int rc = SQLITE_OK;
  docextBufInit(&key, aSpace, sizeof(aSpace));
  if( !sqlValueKey(&rc, &key, pVal, pColl) || rc!=SQLITE_OK ){
    if( rc==SQLITE_OK ) pA->eAccess = DOCEXT_ACCESS_NONE;
    docextBufFree(&key);
    return rc;
  }
  if( bHave ){
    int c = docextKeyCmp(key.a, (int)key.n, pB->a, (int)pB->n);
    if( key.a[0]!=pB->a[0] ){
      pA->eAccess = DOCEXT_ACCESS_NONE;      /* (two types) */
      docextBufFree(&key);
      return SQLITE_OK;
    }
    if( bUpper ? !(c<0 || (c==0 && !bIncl)) : !(c>0 || (c==0 && !bIncl)) ){
      docextBufFree(&key);
      return SQLITE_OK;                       /* the bound there is tighter */
    }
  }
  docextBufReset(pB);
  docextBufAppend(&rc, pB, key.a, key.n);
  docextBufFree(&key);
  if( rc!=SQLITE_OK ) return rc;
  if( bUpper ){ pA->bHi = 1; pA->bHiIncl = bIncl; }
  else        { pA->bLo = 1; pA->bLoIncl = bIncl; }
  if( pA->bLo && pA->bHi && pA->lo.a[0]!=pA->hi.a[0] ) pA->eAccess = DOCEXT_ACCESS_NONE;
  if( pA->eAccess==DOCEXT_ACCESS_ALL ) pA->eAccess = DOCEXT_ACCESS_RANGE;
  return SQLITE_OK;
}

/* A query argument as BSON, appended to pSpec's arena; *piOff is where it
** starts, or -1 for NULL (none). */
static int queryArg(DocCursor *pCur, sqlite3_value *pVal, const char *zWhat, i64 *piOff){
  DocBuf tmp;
  u8 aSpace[512];           /* (most filters fit: no allocation) */
  const u8 *aDoc;
  char *zErr = 0;
  int rc;
  *piOff = -1;
  if( sqlite3_value_type(pVal)==SQLITE_NULL ) return SQLITE_OK;
  docextBufInit(&tmp, aSpace, sizeof(aSpace));
  rc = docextArgToBson(pVal, &tmp, &aDoc, &zErr);
  if( rc==SQLITE_OK ){
    *piOff = pCur->spec.n;
    docextBufAppend(&rc, &pCur->spec, aDoc, docextGetI32(aDoc));
  }else if( zErr ){
    char *z = sqlite3_mprintf("docext: in %s: %s", zWhat, zErr+8);
    sqlite3_free(zErr);
    zErr = z;
  }
  docextBufFree(&tmp);
  if( rc!=SQLITE_OK ) return docextVtabError(pCur->base.pVtab, rc, zErr);
  return SQLITE_OK;
}

/* Where xFilter's query arguments are in pCur->spec (an arena that may
** move while it grows: offsets until every argument is in). */
typedef struct FilterArgs FilterArgs;
struct FilterArgs {
  i64 aOff[3];                            /* P S O, -1 when absent */
  i64 aFilterOff[DOCEXT_MAX_FILTERS];     /* F and M arguments */
  int nFilter;
};

/* Read xFilter's arguments, each as its letter in zCodes says (see
** bestArguments): _id access into *pAccess, query arguments into
** pCur->spec (offsets in *pArgs), LIMIT and OFFSET into *pSpec. pColl is
** the _id index's collation. */
static int filterReadArgs(DocCursor *pCur, const char *zCodes, int argc, sqlite3_value **argv,
                          const DocCollator *pColl, DocAccess *pAccess, DocQuerySpec *pSpec,
                          FilterArgs *pArgs){
  int i, rc = SQLITE_OK;
  for(i=0; i<3; i++) pArgs->aOff[i] = -1;
  pArgs->nFilter = 0;
  for(i=0; rc==SQLITE_OK && i<argc && zCodes[i]; i++){
    sqlite3_value *pVal = argv[i];
    switch( zCodes[i] ){
      case 'R':
        pAccess->eAccess = sqlite3_value_type(pVal)==SQLITE_INTEGER
                         ? DOCEXT_ACCESS_DOCID : DOCEXT_ACCESS_NONE;
        pAccess->iDoc = sqlite3_value_int64(pVal);
        break;
      case '=':
        rc = addEqKeys(pAccess, pVal, pColl);
        break;
      case 'I': {
        sqlite3_value *pElem = 0;
        for(rc = sqlite3_vtab_in_first(pVal, &pElem);
            rc==SQLITE_OK && pElem;
            rc = sqlite3_vtab_in_next(pVal, &pElem)){
          rc = addEqKeys(pAccess, pElem, pColl);
          if( rc!=SQLITE_OK ) break;
        }
        if( rc==SQLITE_DONE ) rc = SQLITE_OK;
        if( pAccess->nKey==0 ) pAccess->eAccess = DOCEXT_ACCESS_NONE;
        break;
      }
      case '>': case 'G': case '<': case 'L':
        rc = addBound(pAccess, zCodes[i], pVal, pColl);
        break;
      case 'F': case 'M': {
        i64 iOff;
        rc = queryArg(pCur, pVal, zCodes[i]=='F' ? "filter" : "doc_match filter", &iOff);
        if( rc==SQLITE_OK && iOff>=0 && pArgs->nFilter<DOCEXT_MAX_FILTERS ){
          pArgs->aFilterOff[pArgs->nFilter++] = iOff;
        }
        break;
      }
      case 'P': rc = queryArg(pCur, pVal, "projection", &pArgs->aOff[0]); break;
      case 'S': rc = queryArg(pCur, pVal, "sort", &pArgs->aOff[1]); break;
      case 'O': rc = queryArg(pCur, pVal, "options", &pArgs->aOff[2]); break;
      case 'N':
        pSpec->nLimit = sqlite3_value_int64(pVal);
        if( pSpec->nLimit<0 ) pSpec->nLimit = -1;
        break;
      case 'K':
        pSpec->nOffset = sqlite3_value_int64(pVal);
        break;
    }
  }
  return rc;
}

/* An _id range with only an upper bound: when the bound is a number, the
** range starts at -Infinity. NaN keys sort below every number, but no
** range of numbers holds NaN (as in MongoDB, and as NULL compares in SQL). */
static int accessNumbersFromMinusInfinity(DocAccess *pAccess){
  int rc = SQLITE_OK;
  u8 aInf[16];
  DocBuf inf;
  DocValue v;
  if( pAccess->eAccess!=DOCEXT_ACCESS_RANGE || pAccess->bLo ) return SQLITE_OK;
  docextBufInit(&inf, aInf, sizeof(aInf));
  docextBufAppendDouble(&rc, &inf, -INFINITY);
  v.type = DOC_DOUBLE; v.p = inf.a; v.n = 8;
  docextBufReset(&pAccess->lo);
  docextKeyAppend(&rc, &pAccess->lo, &v, 0);
  if( rc==SQLITE_OK && pAccess->lo.a[0]==pAccess->hi.a[0] ){
    pAccess->bLo = 1;
    pAccess->bLoIncl = 1;
  }
  return rc;
}

/* The index EXPLAIN QUERY PLAN named in idxStr ("IXSCAN name|codes"; not
** for _id_, whose constraints choose the rows themselves), in zSpace when
** it fits, else in *pzAlloc (sqlite3_free it); 0 if none. */
static int filterPlanIndex(const char *idxStr, const char *zBar, char *zSpace, int nSpace,
                           char **pzAlloc, const char **pzName){
  int nName;
  *pzAlloc = 0;
  *pzName = 0;
  if( idxStr==0 || strncmp(idxStr, "IXSCAN ", 7)!=0 || zBar==0 ) return SQLITE_OK;
  nName = (int)(zBar-(idxStr+7));
  if( nName<nSpace ){
    memcpy(zSpace, idxStr+7, nName);
    zSpace[nName] = 0;
    *pzName = zSpace;
  }else{
    *pzAlloc = sqlite3_mprintf("%.*s", nName, idxStr+7);
    if( *pzAlloc==0 ) return SQLITE_NOMEM;
    *pzName = *pzAlloc;
  }
  return SQLITE_OK;
}

/* Give the cursor's query (made now, or the last one reused) its
** arguments, and start it. */
static int filterStart(DocCursor *pCur, DocQuerySpec *pSpec, const FilterArgs *pArgs,
                       int idxNum, DocAccess *pAccess){
  DocVtab *pTab = (DocVtab*)pCur->base.pVtab;
  DocColl *pColl;
  DocRouter *pR = 0;
  char *zErr = 0;
  int i, rc;
  /* The arena has stopped moving: pointers only now. */
  for(i=0; i<pArgs->nFilter; i++) pSpec->aaFilter[i] = pCur->spec.a + pArgs->aFilterOff[i];
  pSpec->nFilter = pArgs->nFilter;
  if( pArgs->aOff[0]>=0 ) pSpec->aProjection = pCur->spec.a + pArgs->aOff[0];
  if( pArgs->aOff[1]>=0 ) pSpec->aSort = pCur->spec.a + pArgs->aOff[1];
  if( pArgs->aOff[2]>=0 ) pSpec->aOptions = pCur->spec.a + pArgs->aOff[2];
  pSpec->bCountOnly = (idxNum & 1)!=0;
  docextRoutedFree(pCur->pRouted);
  pCur->pRouted = 0;
  rc = vtabColl(pTab, &pColl);
  if( rc!=SQLITE_OK ) return rc;          /* (vtabColl set the message) */
  rc = docextRouterGet(pTab->pConn, pColl, &pTab->pRouter, &pR, &zErr);
  if( rc==SQLITE_OK && pR && (idxNum & 2)==0 ){
    /* Planned before the collection was sharded: perhaps as a one-pass
    ** UPDATE or DELETE, which has no statement journal to undo a routed
    ** write that fails halfway (and such a statement has written nothing
    ** before its scan starts). SQLite ends the statement as for any error,
    ** prepares it again and runs the new plan. */
    docextRouterFree(pR);                 /* (the reference taken above) */
    rc = SQLITE_SCHEMA;
    zErr = sqlite3_mprintf("docext: %s was sharded after this statement was "
                           "prepared; prepare it again", pTab->zName);
  }else if( rc==SQLITE_OK && pR ){
    /* a sharded collection: a find on each shard it must ask */
    rc = docextRoutedNew(pR, pSpec, pAccess, &pCur->pRouted, &zErr);
  }else if( rc==SQLITE_OK && pCur->pQuery ){
    rc = docextQueryReuse(pCur->pQuery, pSpec, &zErr);
    if( rc==SQLITE_OK ) rc = docextQueryStart(pCur->pQuery, pAccess, &zErr);
  }else if( rc==SQLITE_OK ){
    rc = docextQueryNew(pColl, pSpec, &pCur->pQuery, &zErr);
    if( rc==SQLITE_OK ) rc = docextQueryStart(pCur->pQuery, pAccess, &zErr);
  }
  if( rc!=SQLITE_OK ) return docextVtabError(&pTab->base, rc, zErr);
  return SQLITE_OK;
}

static int xFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr,
                   int argc, sqlite3_value **argv){
  DocCursor *pCur = (DocCursor*)pCursor;
  /* the last '|': an index name may hold one, the codes never do */
  const char *zBar = idxStr ? strrchr(idxStr, '|') : 0;
  FilterArgs args;
  DocQuerySpec spec;
  DocAccess access;
  char *zPlanIndex = 0;
  char zPlanIndexSpace[64];
  int rc;

  DocCollator *pIdColl = 0;
  DocColl *pColl = 0;
  char *zIgnore = 0;

  docextBufReset(&pCur->spec);
  docextQuerySpecInit(&spec);
  docextAccessInit(&access);
  /* The _id index's collation, for constraints on _id (a collection that
  ** cannot be read says why when its query starts). */
  if( zBar && strpbrk(zBar+1, "=I><GL") ){
    rc = vtabCollOpen((DocVtab*)pCursor->pVtab, &pColl, &zIgnore);
    if( rc==SQLITE_OK ) rc = docextCollCollation(pColl, &pIdColl, &zIgnore);
    sqlite3_free(zIgnore);
    if( (rc & 0xff)==SQLITE_NOMEM ) return SQLITE_NOMEM;
    if( rc!=SQLITE_OK ) pIdColl = 0;
  }
  rc = filterReadArgs(pCur, zBar ? zBar+1 : "", argc, argv, pIdColl, &access, &spec, &args);
  if( rc==SQLITE_OK ) rc = accessNumbersFromMinusInfinity(&access);
  if( rc==SQLITE_OK ){
    rc = filterPlanIndex(idxStr, zBar, zPlanIndexSpace, (int)sizeof(zPlanIndexSpace),
                         &zPlanIndex, &spec.zPlanIndex);
  }
  if( rc==SQLITE_OK ) rc = filterStart(pCur, &spec, &args, idxNum, &access);
  sqlite3_free(zPlanIndex);
  docextAccessClear(&access);
  return rc;
}

static int xNext(sqlite3_vtab_cursor *pCursor){
  DocCursor *pCur = (DocCursor*)pCursor;
  char *zErr = 0;
  int rc = pCur->pRouted ? docextRoutedNext(pCur->pRouted, &zErr)
                         : docextQueryNext(pCur->pQuery, &zErr);
  if( rc!=SQLITE_OK ) return docextVtabError(pCursor->pVtab, rc, zErr);
  return SQLITE_OK;
}

static int xEof(sqlite3_vtab_cursor *pCursor){
  DocCursor *pCur = (DocCursor*)pCursor;
  if( pCur->pRouted ) return docextRoutedEof(pCur->pRouted);
  return pCur->pQuery==0 || docextQueryEof(pCur->pQuery);
}

static int xRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *pRowid){
  DocCursor *pCur = (DocCursor*)pCursor;
  if( pCur->pRouted ) return docextRoutedRowid(pCur->pRouted, pRowid);
  return docextQueryDocid(pCur->pQuery, pRowid);
}

/* The _id column: INTEGER, REAL, TEXT, or relaxed Extended JSON TEXT. */
static void resultId(sqlite3_context *ctx, const u8 *aDoc, DocBuf *pTmp){
  DocValue id;
  int rc = SQLITE_OK;
  if( !docextBsonFind(aDoc, "_id", 3, &id) ) return;
  switch( id.type ){
    case DOC_INT32:  sqlite3_result_int64(ctx, docextValueI32(&id)); return;
    case DOC_INT64:  sqlite3_result_int64(ctx, docextValueI64(&id)); return;
    case DOC_DOUBLE:
      /* NaN has no SQL REAL (SQLite would make it NULL): it shows as
      ** {"$numberDouble":"NaN"}, which finds it again. */
      if( isnan(docextValueDouble(&id)) ) break;
      sqlite3_result_double(ctx, docextValueDouble(&id));
      return;
    case DOC_STRING: {
      int n;
      const char *z = docextValueStr(&id, &n);
      sqlite3_result_text(ctx, z, n, SQLITE_TRANSIENT);
      return;
    }
  }
  docextBufReset(pTmp);
  docextJsonWriteValue(&rc, pTmp, &id, DOCEXT_JSON_RELAXED);
  if( rc==SQLITE_OK ){
    docextBufResultTextCopy(ctx, pTmp);
  }else{
    sqlite3_result_error_code(ctx, rc);
  }
}

static int xColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol){
  DocCursor *pCur = (DocCursor*)pCursor;
  DocQuery *pQuery = pCur->pRouted ? docextRoutedQuery(pCur->pRouted) : pCur->pQuery;
  const u8 *aDoc = 0;
  char *zErr = 0;
  int rc;
  if( iCol!=COL_ID && iCol!=COL_DOC && iCol!=COL_BSON ) return SQLITE_OK;
  /* In an UPDATE, columns not being changed need not be computed. */
  if( sqlite3_vtab_nochange(ctx) ) return SQLITE_OK;
  switch( iCol ){
    case COL_DOC:
      docextBufReset(&pCur->json);
      rc = docextQueryResultJson(pQuery, &pCur->json, DOCEXT_JSON_RELAXED, &zErr);
      if( rc==SQLITE_OK ) docextBufResultTextCopy(ctx, &pCur->json);
      break;
    case COL_ID:
      rc = docextQueryStored(pQuery, &aDoc, &zErr);
      if( rc==SQLITE_OK ) resultId(ctx, aDoc, &pCur->json);
      break;
    default:  /* COL_BSON */
      rc = docextQueryResult(pQuery, &aDoc, &zErr);
      if( rc==SQLITE_OK ) sqlite3_result_blob(ctx, aDoc, docextGetI32(aDoc), SQLITE_TRANSIENT);
      break;
  }
  return rc==SQLITE_OK ? SQLITE_OK : docextVtabError(pCursor->pVtab, rc, zErr);
}

/* doc_match(doc, filter) in a WHERE reaches xBestIndex as a constraint. */
static int xFindFunction(sqlite3_vtab *pVtab, int nArg, const char *zName,
                         void (**pxFunc)(sqlite3_context*, int, sqlite3_value**),
                         void **ppArg){
  (void)pVtab;
  if( nArg==2 && sqlite3_stricmp(zName, "doc_match")==0 ){
    *pxFunc = docextDocMatchFunc;
    *ppArg = 0;
    return SQLITE_INDEX_CONSTRAINT_FUNCTION;
  }
  return 0;
}

/*------------------------------------------------------------------------
** Writing
*/

/* The new document of an INSERT or UPDATE: from the doc column or the bson
** column (whichever was given), validated, in pBuf or the argument. */
static int newDocument(DocVtab *p, sqlite3_value **argv, int bUpdate,
                       DocBuf *pBuf, const u8 **paDoc, int *pbNamesChecked){
  sqlite3_value *pDoc = argv[2+COL_DOC];
  sqlite3_value *pBson = argv[2+COL_BSON];
  int bDoc = !(bUpdate && sqlite3_value_nochange(pDoc))
          && sqlite3_value_type(pDoc)!=SQLITE_NULL;
  int bBson = !(bUpdate && sqlite3_value_nochange(pBson))
           && sqlite3_value_type(pBson)!=SQLITE_NULL;
  char *zErr = 0;
  int rc;
  int i;

  for(i=COL_FILTER; i<=COL_OPTIONS; i++){
    sqlite3_value *pV = argv[2+i];
    if( !(bUpdate && sqlite3_value_nochange(pV)) && sqlite3_value_type(pV)!=SQLITE_NULL ){
      return docextVtabError(&p->base, SQLITE_ERROR, sqlite3_mprintf(
          "docext: column %s cannot be written", i==COL_FILTER ? "filter" :
          i==COL_PROJECTION ? "projection" : i==COL_SORT ? "sort" : "options"));
    }
  }
  if( !(bUpdate && sqlite3_value_nochange(argv[2+COL_ID]))
   && sqlite3_value_type(argv[2+COL_ID])!=SQLITE_NULL ){
    return docextVtabError(&p->base, SQLITE_ERROR, sqlite3_mprintf(
        "docext: the _id column is read-only: put _id in the document"));
  }
  if( bDoc && bBson ){
    return docextVtabError(&p->base, SQLITE_ERROR, sqlite3_mprintf(
        "docext: give the document in doc or in bson, not both"));
  }
  if( !bDoc && !bBson ){
    /* An UPDATE that sets neither column keeps the document; one that sets
    ** them to NULL is as wrong as an INSERT without a document. */
    if( bUpdate && sqlite3_value_nochange(pDoc) && sqlite3_value_nochange(pBson) ){
      *paDoc = 0;
      return SQLITE_OK;
    }
    return docextVtabError(&p->base, SQLITE_CONSTRAINT, sqlite3_mprintf(bUpdate
        ? "docext: the new document is NULL: UPDATE %s SET doc = … needs a "
          "document (DELETE removes one)"
        : "docext: a document is required: INSERT INTO %s(doc) VALUES (…)",
        docextCollName(p->pColl)));
  }
  rc = docextArgToBsonStored(bDoc ? pDoc : pBson, pBuf, paDoc, pbNamesChecked, &zErr);
  if( rc!=SQLITE_OK ) return docextVtabError(&p->base, rc, zErr);
  return SQLITE_OK;
}

static int xUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                   sqlite3_int64 *pRowid){
  DocVtab *p = (DocVtab*)pVtab;
  DocBuf buf;
  const u8 *aDoc = 0;
  char *zErr = 0;
  DocColl *pColl;
  DocRouter *pR = 0;
  int rc = vtabColl(p, &pColl), bNamesChecked = 0;

  if( rc!=SQLITE_OK ) return rc;
  rc = docextRouterGet(p->pConn, pColl, &p->pRouter, &pR, &zErr);
  if( rc!=SQLITE_OK ) return docextVtabError(pVtab, rc, zErr);
  if( argc==1 ){
    rc = pR ? docextRouterDelete(pR, sqlite3_value_int64(argv[0]), &zErr)
            : docextCollDelete(pColl, sqlite3_value_int64(argv[0]), &zErr);
    docextRouterFree(pR);
    return rc==SQLITE_OK ? rc : docextVtabError(pVtab, rc, zErr);
  }
  memset(&buf, 0, sizeof(buf));
  if( sqlite3_value_type(argv[0])==SQLITE_NULL ){
    if( sqlite3_value_type(argv[1])!=SQLITE_NULL ){
      docextRouterFree(pR);
      return docextVtabError(pVtab, SQLITE_ERROR,
                       sqlite3_mprintf("docext: rowid cannot be set: it is assigned"));
    }
    rc = newDocument(p, argv, 0, &buf, &aDoc, &bNamesChecked);
    if( rc==SQLITE_OK ){
      int eConflict = sqlite3_vtab_on_conflict(p->db);
      rc = pR ? docextRouterInsert(pR, aDoc, bNamesChecked, eConflict, pRowid, &zErr)
              : docextCollInsert(pColl, aDoc, bNamesChecked, eConflict, 0, pRowid, &zErr);
      if( rc!=SQLITE_OK ) docextVtabError(pVtab, rc, zErr);
    }
  }else{
    i64 iOld = sqlite3_value_int64(argv[0]);
    if( sqlite3_value_type(argv[1])!=SQLITE_INTEGER
     || sqlite3_value_int64(argv[1])!=iOld ){
      docextRouterFree(pR);
      return docextVtabError(pVtab, SQLITE_ERROR,
                       sqlite3_mprintf("docext: rowid cannot be changed"));
    }
    rc = newDocument(p, argv, 1, &buf, &aDoc, &bNamesChecked);
    if( rc==SQLITE_OK && aDoc ){
      i64 iNew = iOld;    /* (a document that moves to another shard: its new rowid) */
      rc = pR ? docextRouterReplace(pR, iOld, aDoc, bNamesChecked, &iNew, &zErr)
              : docextCollReplace(pColl, iOld, aDoc, bNamesChecked, &zErr);
      if( rc!=SQLITE_OK ) docextVtabError(pVtab, rc, zErr);
    }
  }
  docextBufFree(&buf);
  docextRouterFree(pR);
  return rc;
}

/* PRAGMA integrity_check (and quick_check) on a collection, in SQLite 3.44
** and later: doc_check's findings, as one message that names the
** collection. A quick check is as thorough: doc_check reads every document
** and index entry once, as integrity_check reads every B-tree. A
** collection that cannot even be opened (its configuration damaged) is a
** finding too; only a check that could not run (out of memory, say) is an
** error. */
static int xIntegrity(sqlite3_vtab *pVtab, const char *zSchema, const char *zTabName,
                      int mFlags, char **pzErr){
  DocVtab *p = (DocVtab*)pVtab;
  DocColl *pColl = 0;
  char *zErr = 0, *zReport = 0;
  int rc = vtabCollOpen(p, &pColl, &zErr);
  (void)mFlags;
  if( rc==SQLITE_OK ){
    rc = docextCollCheck(pColl, &zReport, &zErr);
  }else if( (rc & 0xff)==SQLITE_CORRUPT || rc==SQLITE_ERROR ){
    zReport = zErr;
    zErr = 0;
    rc = SQLITE_OK;
  }
  sqlite3_free(zErr);
  if( rc==SQLITE_OK && zReport ){
    *pzErr = sqlite3_mprintf("docext collection %s.%s: %s", zSchema, zTabName,
                             strncmp(zReport, "docext: ", 8)==0 ? zReport+8 : zReport);
    if( *pzErr==0 ) rc = SQLITE_NOMEM;
  }
  sqlite3_free(zReport);
  return rc;
}

/*------------------------------------------------------------------------
** Registration
**
** The module is version 4, with xIntegrity, whatever sqlite3.h docext was
** built with: a library older than 3.44 reads no further than xShadowName
** (version 3), and one that is newer uses xIntegrity, so that a docext
** built against Debian's 3.40 still answers PRAGMA integrity_check when it
** is loaded into a newer SQLite. Older headers lack the field, so then it
** is added after the struct, where SQLite 3.44 puts it.
*/

#define DOCEXT_MODULE_METHODS \
  4,                /* iVersion: xShadowName, xIntegrity */ \
  xCreate, xConnect, xBestIndex, xDisconnect, xDestroy, \
  xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid, \
  xUpdate, \
  0, 0, 0, 0,       /* xBegin, xSync, xCommit, xRollback */ \
  xFindFunction, \
  xRename, \
  0, 0, 0,          /* xSavepoint, xRelease, xRollbackTo */ \
  xShadowName

#if SQLITE_VERSION_NUMBER>=3044000
static sqlite3_module docextModule = { DOCEXT_MODULE_METHODS, xIntegrity };
#define DOCEXT_MODULE (&docextModule)
#else
static struct {
  sqlite3_module base;
  int (*xIntegrity)(sqlite3_vtab*, const char*, const char*, int, char**);
} docextModule = { { DOCEXT_MODULE_METHODS }, xIntegrity };
#define DOCEXT_MODULE (&docextModule.base)
#endif

/*------------------------------------------------------------------------
** The registry
*/

static DocVtab *registryLookup(DocConn *pConn, const char *zDb, const char *zName){
  DocVtab *p;
  for(p=pConn->pList; p; p=p->pNext){
    if( sqlite3_stricmp(p->zName, zName)==0
     && (zDb==0 || sqlite3_stricmp(p->zDb, zDb)==0) ){
      return p;
    }
  }
  return 0;
}

/* Does schema zDb have a table or view zName (*pbHas)? Reading its schema table
** also brings the connection's copy of that schema up to date: when
** another connection changed it (dropped and recreated the collection, say),
** the old virtual tables are disconnected here, before the registry is
** searched, and not later while a statement of theirs runs. */
static int schemaHasTable(DocConn *pConn, const char *zDb, const char *zName, int *pbHas){
  NameStmt *pN = 0;
  int rc = SQLITE_OK, rcStep, i;
  *pbHas = 0;
  for(i=0; i<pConn->nHas && sqlite3_stricmp(pConn->aHas[i].zDb, zDb)!=0; i++){}
  if( i<pConn->nHas ){
    pN = &pConn->aHas[i];
  }else{
    int nAlloc = pConn->nHas;
    char *zSql = sqlite3_mprintf("SELECT 1 FROM \"%w\".sqlite_schema"
                                 " WHERE type IN ('table','view') AND name=?1 COLLATE NOCASE", zDb);
    NameStmt n;
    memset(&n, 0, sizeof(n));
    n.zDb = sqlite3_mprintf("%s", zDb);
    if( zSql==0 || n.zDb==0 ) rc = SQLITE_NOMEM;
    if( rc==SQLITE_OK ){
      rc = sqlite3_prepare_v3(pConn->db, zSql, -1, SQLITE_PREPARE_PERSISTENT, &n.pStmt, 0);
    }
    if( rc==SQLITE_OK ){
      pConn->aHas = docextArrayGrow(&rc, pConn->aHas, pConn->nHas, &nAlloc, sizeof(NameStmt));
    }
    sqlite3_free(zSql);
    if( rc!=SQLITE_OK ){
      sqlite3_finalize(n.pStmt);
      sqlite3_free(n.zDb);
      return rc;
    }
    pN = &pConn->aHas[pConn->nHas++];
    *pN = n;
  }
  sqlite3_bind_text(pN->pStmt, 1, zName, -1, SQLITE_STATIC);
  rcStep = sqlite3_step(pN->pStmt);
  if( rcStep==SQLITE_ROW ){
    *pbHas = 1;
  }else if( rcStep!=SQLITE_DONE ){
    rc = rcStep;
  }
  rcStep = sqlite3_reset(pN->pStmt);
  if( rc==SQLITE_OK ) rc = rcStep;
  sqlite3_clear_bindings(pN->pStmt);
  if( rc!=SQLITE_OK ){
    /* (a schema detached since, say: prepared again when next asked) */
    sqlite3_finalize(pN->pStmt);
    sqlite3_free(pN->zDb);
    *pN = pConn->aHas[--pConn->nHas];
  }
  return rc;
}

/* The schema an unqualified table name resolves to, as SQLite resolves it:
** temp, then main, then attached databases in the order attached. NULL
** (and SQLITE_OK in *pRc) if no schema has such a table. A view counts:
** it hides a collection of the same name in a later schema, as in SQL. */
static char *resolveSchema(DocConn *pConn, const char *zName, int *pRc){
  sqlite3 *db = pConn->db;
  char *zFound = 0;
  int rc = SQLITE_OK, k;
  /* sqlite3_db_name: 0 is main, 1 temp, 2 on the attached ones. temp is
  ** asked only once it is open (it has a file name then, "" in memory):
  ** reading its schema would open it, and PRAGMA database_list would show
  ** it from then on. */
  for(k=0; rc==SQLITE_OK && zFound==0; k++){
    int iDb = k==0 ? 1 : k==1 ? 0 : k, bHas = 0;
    const char *zDb = sqlite3_db_name(db, iDb);
    if( zDb==0 ) break;
    if( iDb==1 && sqlite3_db_filename(db, zDb)==0 ) continue;
    rc = schemaHasTable(pConn, zDb, zName, &bHas);
    if( rc==SQLITE_OK && bHas ){
      zFound = sqlite3_mprintf("%s", zDb);
      if( zFound==0 ) rc = SQLITE_NOMEM;
    }
  }
  *pRc = rc;
  return zFound;
}

/* 1 if zDb[0..nDb) names a schema of the connection ("main" and "temp"
** always do), else 0. */
int docextIsSchema(sqlite3 *db, const char *zDb, int nDb){
  const char *z;
  int i;
  for(i=0; (z = sqlite3_db_name(db, i))!=0; i++){
    if( sqlite3_strnicmp(z, zDb, nDb)==0 && z[nDb]==0 ) return 1;
  }
  return 0;
}

/* If z starts with an identifier quoted as SQL quotes them ("a""b",
** `a``b`, [a b]), its unquoted text (sqlite3_malloc'd) and *pzEnd just past
** it; else NULL, *pzEnd = z. *pRc = SQLITE_NOMEM on OOM. */
static char *quotedIdent(const char *z, const char **pzEnd, int *pRc){
  char cEnd = z[0]=='"' ? '"' : z[0]=='`' ? '`' : z[0]=='[' ? ']' : 0;
  DocBuf b;
  int i;
  *pzEnd = z;
  if( cEnd==0 ) return 0;
  memset(&b, 0, sizeof(b));
  for(i=1; z[i]; i++){
    if( z[i]==cEnd ){
      if( cEnd!=']' && z[i+1]==cEnd ){ i++; }else break;
    }
    docextBufAppendByte(pRc, &b, (u8)z[i]);
  }
  if( z[i]!=cEnd ){ docextBufFree(&b); return 0; }
  *pzEnd = &z[i+1];
  return docextBufDetachText(pRc, &b);
}

/* Split a collection name as the collection commands take it into its
** schema (*pzDb, NULL when unqualified) and name (*pzName), both
** sqlite3_malloc'd. The forms, as SQL writes them:
**   books  "books"  aux.books  "aux".books  aux."x.y"  "my db"."x.y"
** An unquoted prefix before the first '.' is a schema only if the
** connection has one of that name: 'x.y' is the collection named "x.y"
** unless a schema x is attached. Text that is not a quoted identifier,
** alone or followed by '.', is a name as it stands. */
static int splitCollName(sqlite3 *db, const char *zSpec, char **pzDb, char **pzName){
  const char *zEnd = 0, *zRest = 0;
  int rc = SQLITE_OK;
  char *zFirst = quotedIdent(zSpec, &zEnd, &rc);
  *pzDb = *pzName = 0;
  if( zFirst && zEnd[0]==0 ){
    *pzName = zFirst;                     /* "name" */
    return SQLITE_OK;
  }
  if( zFirst && zEnd[0]=='.' ){
    *pzDb = zFirst;                       /* "schema".rest */
    zRest = zEnd+1;
  }else{
    const char *zDot = strchr(zSpec, '.');
    sqlite3_free(zFirst);
    if( rc!=SQLITE_OK ) return rc;
    if( zDot && docextIsSchema(db, zSpec, (int)(zDot-zSpec)) ){
      *pzDb = sqlite3_mprintf("%.*s", (int)(zDot-zSpec), zSpec);   /* schema.rest */
      if( *pzDb==0 ) return SQLITE_NOMEM;
      zRest = zDot+1;
    }else{
      *pzName = sqlite3_mprintf("%s", zSpec);                       /* name */
      return *pzName ? SQLITE_OK : SQLITE_NOMEM;
    }
  }
  *pzName = quotedIdent(zRest, &zEnd, &rc);
  if( *pzName && zEnd[0]!=0 ){ sqlite3_free(*pzName); *pzName = 0; }
  if( *pzName==0 && rc==SQLITE_OK ) *pzName = sqlite3_mprintf("%s", zRest);
  if( *pzName==0 ){
    sqlite3_free(*pzDb);
    *pzDb = 0;
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

int docextCollFind(DocConn *pConn, const char *zSpec, DocColl **ppColl, char **pzErr){
  char *zDb = 0, *zName = 0, *zSql;
  DocVtab *p = 0;
  sqlite3_stmt *pStmt = 0;
  int rc = SQLITE_OK;
  *ppColl = 0;
  if( zSpec==0 || zSpec[0]==0 ){
    return docextError(pzErr, "docext: a collection name is required");
  }
  rc = splitCollName(pConn->db, zSpec, &zDb, &zName);
  pConn->nResolving++;
  if( rc==SQLITE_OK && zDb ){
    int bHas = 0;
    /* (as resolveSchema does for each schema it tries; an unknown schema
    ** is "no collection named", below) */
    rc = schemaHasTable(pConn, zDb, zName, &bHas);
    if( (rc & 0xff)==SQLITE_ERROR ) rc = SQLITE_OK;
  }else if( rc==SQLITE_OK ){
    zDb = resolveSchema(pConn, zName, &rc);
  }
  pConn->nResolving--;
  nameStmtsRelease(pConn);
  if( rc!=SQLITE_OK ){
    sqlite3_free(zDb);
    sqlite3_free(zName);
    return rc;
  }
  if( zDb ) p = registryLookup(pConn, zDb, zName);
  if( zDb && p==0 ){
    /* Preparing a statement that names the table connects it. */
    zSql = sqlite3_mprintf("SELECT rowid FROM \"%w\".\"%w\" LIMIT 0", zDb, zName);
    if( zSql==0 ) rc = SQLITE_NOMEM;
    if( rc==SQLITE_OK ) rc = sqlite3_prepare_v2(pConn->db, zSql, -1, &pStmt, 0);
    sqlite3_free(zSql);
    sqlite3_finalize(pStmt);
    if( rc==SQLITE_OK ) p = registryLookup(pConn, zDb, zName);
  }
  sqlite3_free(zDb);
  sqlite3_free(zName);
  if( (rc & 0xff)==SQLITE_NOMEM ) return SQLITE_NOMEM;
  if( p==0 ){
    return docextError(pzErr, "docext: no collection named %s", zSpec);
  }
  return vtabCollOpen(p, ppColl, pzErr);
}

/* The destructor of the auxiliary data that holds a collection. */
static void collRelease(void *p){
  docextCollRelease((DocColl*)p);
}

sqlite3 *docextConnDb(DocConn *pConn){ return pConn->db; }

int docextCollFindArg(DocConn *pConn, sqlite3_context *ctx, int iArg, sqlite3_value *pArg,
                      DocColl **ppColl, char **pzErr){
  const char *z;
  int rc;
  *ppColl = 0;
  if( sqlite3_value_type(pArg)==SQLITE_BLOB ){   /* (before it reads as TEXT) */
    return docextError(pzErr, "docext: a collection name is TEXT, not a BLOB");
  }
  z = (const char*)sqlite3_value_text(pArg);
  if( z==0 && sqlite3_value_type(pArg)!=SQLITE_NULL ) return SQLITE_NOMEM;
  if( z && (int)strlen(z)!=sqlite3_value_bytes(pArg) ){
    return docextError(pzErr, "docext: a collection name cannot hold a NUL character");
  }
  rc = docextCollFind(pConn, z, ppColl, pzErr);
  if( rc==SQLITE_OK && ctx && sqlite3_get_auxdata(ctx, iArg)!=(void*)*ppColl ){
    /* (a collection held already, by an earlier row, is let go of here) */
    docextCollHold(*ppColl);
    sqlite3_set_auxdata(ctx, iArg, *ppColl, collRelease);
    if( sqlite3_get_auxdata(ctx, iArg)!=(void*)*ppColl ){
      *ppColl = 0;                /* out of memory: released already */
      return SQLITE_NOMEM;
    }
  }
  return rc;
}

int docextRegisterVtab(sqlite3 *db, DocConn **ppConn){
  DocConn *pConn = connAcquire(db);
  *ppConn = pConn;
  if( pConn==0 ) return SQLITE_NOMEM;
  /* The module holds the registry: SQLite lets go of it (connRelease) when
  ** the connection closes or the module is replaced, and when this call
  ** fails. */
  return sqlite3_create_module_v2(db, "docext", DOCEXT_MODULE, pConn, connRelease);
}
