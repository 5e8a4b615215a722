/*
** fuzz_sql.c — libFuzzer target for docext's SQL surface: every function,
** the collection's hidden arguments, its _id constraints and its writes,
** with arguments of any SQL type and content.
**
** Input: a byte choosing a statement from aStmt[], then its arguments,
** separated by the byte 0x01; the first byte of each argument chooses its
** type (text, blob, integer, real or NULL). The statement runs on a
** collection of a few documents with two indexes, inside a savepoint
** that is rolled back afterwards, so every input starts from the same
** database. The contract: a result or an error of docext's ("docext: …"
** or E11000; FUZZ_VERBOSE=1 prints them), and a statement that fails has
** changed nothing (every table's content is the same); after
** each statement doc_check says 'ok'.
*/
#include "fuzz.h"

int sqlite3_docext_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

static const char *aStmt[] = {
  "SELECT doc_json(?1)",
  "SELECT doc_json(?1, ?2)",
  "SELECT doc_bson(?1)",
  "SELECT doc_valid(?1)",
  "SELECT doc_get(?1, ?2)",
  "SELECT doc_type(?1, ?2)",
  "SELECT doc_match(?1, ?2)",
  "SELECT doc_project(?1, ?2)",
  "SELECT doc_update(?1, ?2)",
  "SELECT doc_update(?1, ?2, ?3)",
  "SELECT * FROM doc_each(?1)",
  "SELECT doc FROM c(?1)",
  "SELECT doc FROM c(?1, ?2)",
  "SELECT doc FROM c(?1, ?2, ?3)",
  "SELECT doc FROM c(?1, ?2, ?3, ?4)",
  "SELECT _id, bson FROM c(?1, ?2, ?3, ?4) LIMIT 2",
  "SELECT doc_update_one('c', ?1, ?2)",
  "SELECT doc_update_one('c', ?1, ?2, ?3)",
  "SELECT doc_update_many('c', ?1, ?2, ?3)",
  "SELECT doc_delete_one('c', ?1, ?2)",
  "SELECT doc_delete_many('c', ?1)",
  "SELECT doc_find_and_modify('c', ?1)",
  "SELECT doc_create_index('c', ?1, ?2)",
  "SELECT doc_drop_index('c', ?1)",
  "SELECT doc_explain('c', ?1, ?2, ?3, ?4)",
  "SELECT doc_count('c', ?1)",
  "SELECT doc_distinct('c', ?1, ?2, ?3)",
  "INSERT INTO c(doc) VALUES (?1)",
  "INSERT OR REPLACE INTO c(doc) VALUES (?1), (?2)",
  "INSERT OR IGNORE INTO c(bson) VALUES (?1)",
  "UPDATE c SET doc = ?2 WHERE _id = ?1",
  "DELETE FROM c WHERE _id = ?1",
  "SELECT doc FROM c WHERE _id = ?1",
  "SELECT doc FROM c WHERE _id > ?1 AND _id <= ?2",
  "SELECT doc FROM c WHERE _id IN (?1, ?2)",
  "SELECT doc_update_one(?1, '{}', '{$set: {a: 1}}')",
  "SELECT doc_check(?1)",
  "SELECT doc_stats(?1)",
  "SELECT * FROM doc_indexes(?1)",
  "SELECT doc_ttl_sweep(?1)",
  "SELECT doc_config(?1, ?2)",
  "SELECT doc_oid(), doc_config(?1)",
  "PRAGMA integrity_check",             /* xIntegrity, with SQLite 3.44+ */
  "PRAGMA quick_check(c)",
  "SELECT doc_analyze_shard_key('c', ?1, ?2)",
  /* the router (sh: sharded over main and s1) */
  "SELECT doc FROM sh(?1, ?2, ?3, ?4)",
  "INSERT INTO sh(doc) VALUES (?1)",
  "UPDATE sh SET doc = ?2 WHERE _id = ?1",
  "DELETE FROM sh WHERE doc_match(doc, ?1)",
  "SELECT doc_route(?1, ?2)",
  "SELECT doc_split_chunk('sh', ?1)",
  "SELECT doc_move_chunk('sh', ?1, ?2)",
  "SELECT doc_balance(?1)",
  "SELECT * FROM doc_chunks(?1)",
  "SELECT doc_shard_collection('c', ?1, ?2)",
  "SELECT doc_add_shard(?1)",
  /* the collection commands, through the router (first bytes 56-63: five
  ** saved inputs whose first byte picked aStmt[byte % 45] now run these) */
  "SELECT doc_update_many('sh', ?1, ?2, ?3)",
  "SELECT doc_update_one('sh', ?1, ?2, ?3)",
  "SELECT doc_delete_many('sh', ?1)",
  "SELECT doc_find_and_modify('sh', ?1)",
  "SELECT doc_explain('sh', ?1, ?2, ?3, ?4)",
  "SELECT doc_distinct('sh', ?1, ?2, ?3)",
  "SELECT doc_drop_index('sh', ?1), doc_create_index('sh', ?2, ?3)",
  "SELECT doc_stats('sh'), doc_check('sh'), doc_count('sh', ?1)",
  /* validators (v has one: {$jsonSchema…, $expr…}, level moderate) */
  "SELECT doc_coll_mod(?1, ?2)",
  "SELECT doc_coll_mod('v', ?1)",
  "INSERT OR IGNORE INTO v(doc) VALUES (?1), (?2)",
  "SELECT doc_update_many('v', ?1, ?2, ?3)",
  "SELECT doc_find_and_modify('v', ?1)",
  "UPDATE v SET doc = doc_update(bson, ?2) WHERE _id = ?1",
  /* aggregation, over a plain and a sharded collection */
  "SELECT doc FROM doc_aggregate(?1, ?2)",
  "SELECT doc, bson FROM doc_aggregate('c', ?1)",
  "SELECT doc FROM doc_aggregate('sh', ?1)",
  "SELECT doc FROM doc_aggregate('c', ?1, ?2)",
};

/* The statements before the router's: a first byte past the end of aStmt
** picks aStmt[byte % FUZZ_SQL_FIRST], as it did before the router's came
** (so the saved inputs keep their statements). */
#define FUZZ_SQL_FIRST 45

static sqlite3 *db = 0;

static void closeDb(void){
  sqlite3_close(db);
  db = 0;
}

/* Set up the database once: a collection c with documents and indexes.
** (Closed at exit, so that the leak checker sees a clean end.) */
static void openDb(void){
  if( db ) return;
  atexit(closeDb);
  FUZZ_ASSERT(sqlite3_open(":memory:", &db)==SQLITE_OK, "cannot open");
  FUZZ_ASSERT(sqlite3_docext_init(db, 0, 0)==SQLITE_OK, "cannot load docext");
  FUZZ_ASSERT(sqlite3_exec(db,
    "PRAGMA page_size=512;"
    "CREATE VIRTUAL TABLE c USING docext;"
    "INSERT INTO c(doc) VALUES ('{_id: 1, a: 1, tags: [\"x\", \"y\"], b: {c: 2}}'),"
    " ('{_id: 2, a: [1, 2], s: \"hello\", d: ISODate(\"2020-01-01T00:00:00Z\")}'),"
    " ('{_id: \"k\", a: null, n: NumberDecimal(\"1.5\"), r: /ab/i}'),"
    " ('{_id: 4, big: \"' || printf('%.900c', 'q') || '\", arr: [1, 2, 3]}');"
    "SELECT doc_create_index('c', '{a: 1}');"
    "SELECT doc_create_index('c', '{\"b.c\": 1, s: -1}', '{unique: true, sparse: true}');"
    "SELECT doc_create_index('c', '{\"$**\": \"text\"}', '{weights: {s: 3}}');"
    "ATTACH ':memory:' AS s1;"
    "SELECT doc_add_shard('main'), doc_add_shard('s1');"
    "CREATE VIRTUAL TABLE sh USING docext;"
    "SELECT doc_shard_collection('sh', '{k: 1}', '{chunkSize: 300}');"
    "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM n WHERE value<30)"
    " INSERT INTO sh(doc) SELECT json_object('_id', value, 'k', value % 5) FROM n;"
    "SELECT doc_balance('sh');"
    "CREATE VIRTUAL TABLE v USING docext;"
    "INSERT INTO v(doc) VALUES ('{_id: 1, a: 1, s: \"x\"}'), ('{_id: 2, a: -1}');"
    "SELECT doc_coll_mod('v', '{validator: {$jsonSchema: {required: [\"a\"], properties: "
    "{a: {bsonType: \"int\", minimum: 0}, s: {maxLength: 3}}}, $expr: {$lt: [\"$a\", 100]}}, "
    "validationLevel: \"moderate\"}');",
    0, 0, 0)==SQLITE_OK, sqlite3_errmsg(db));
}

/* A hash of every row of every table (the shadow tables included), in
** main and the shard s1. */
static u64 fingerprint(void){
  sqlite3_stmt *pTables = 0;
  u64 h = 14695981039346656037ULL;
  FUZZ_ASSERT(sqlite3_prepare_v2(db, "SELECT 'main', name FROM main.sqlite_schema"
                                     " WHERE type='table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
                                     " UNION ALL SELECT 's1', name FROM s1.sqlite_schema"
                                     " WHERE type='table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
                                     " ORDER BY 1, 2", -1, &pTables, 0)==SQLITE_OK,
              sqlite3_errmsg(db));
  while( sqlite3_step(pTables)==SQLITE_ROW ){
    sqlite3_stmt *pRows = 0;
    char *zSql = sqlite3_mprintf("SELECT * FROM \"%w\".\"%w\" ORDER BY 1, 2",
                                 (const char*)sqlite3_column_text(pTables, 0),
                                 (const char*)sqlite3_column_text(pTables, 1));
    int i;
    FUZZ_ASSERT(sqlite3_prepare_v2(db, zSql, -1, &pRows, 0)==SQLITE_OK, sqlite3_errmsg(db));
    while( sqlite3_step(pRows)==SQLITE_ROW ){
      for(i=0; i<sqlite3_column_count(pRows); i++){
        const u8 *a = sqlite3_column_blob(pRows, i);
        int n = sqlite3_column_bytes(pRows, i), k;
        h = (h ^ (u64)sqlite3_column_type(pRows, i)) * 1099511628211ULL;
        for(k=0; k<n; k++) h = (h ^ a[k]) * 1099511628211ULL;
      }
    }
    sqlite3_finalize(pRows);
    sqlite3_free(zSql);
  }
  sqlite3_finalize(pTables);
  return h;
}

/* Bind argument iArg from a[0..n): its first byte is its type. */
static void bindArg(sqlite3_stmt *pStmt, int iArg, const uint8_t *a, size_t n){
  int eType = n ? a[0]%5 : 4;
  const uint8_t *z = n ? a+1 : a;
  int nz = n ? (int)n-1 : 0;
  char zNum[32];
  switch( eType ){
    case 0: sqlite3_bind_text(pStmt, iArg, (const char*)z, nz, SQLITE_TRANSIENT); break;
    case 1: sqlite3_bind_blob(pStmt, iArg, z, nz, SQLITE_TRANSIENT); break;
    case 2:
    case 3:
      snprintf(zNum, sizeof(zNum), "%.*s", nz<31 ? nz : 31, (const char*)z);
      if( eType==2 ) sqlite3_bind_int64(pStmt, iArg, strtoll(zNum, 0, 10));
      else sqlite3_bind_double(pStmt, iArg, strtod(zNum, 0));
      break;
    default: sqlite3_bind_null(pStmt, iArg); break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData){
  sqlite3_stmt *pStmt = 0;
  size_t i, iArg;
  int iParam = 1, rc;
  u64 hBefore;
  if( nData<1 || nData>20000 ) return 0;
  openDb();
  FUZZ_ASSERT(sqlite3_exec(db, "SAVEPOINT f", 0, 0, 0)==SQLITE_OK, sqlite3_errmsg(db));
  rc = sqlite3_prepare_v2(db, aStmt[aData[0] < DOCEXT_COUNT(aStmt) ? aData[0]
                                    : aData[0] % FUZZ_SQL_FIRST], -1, &pStmt, 0);
  FUZZ_ASSERT(rc==SQLITE_OK, sqlite3_errmsg(db));
  for(i=iArg=1; i<=nData && iParam<=sqlite3_bind_parameter_count(pStmt); i++){
    if( i==nData || aData[i]==0x01 ){
      bindArg(pStmt, iParam++, &aData[iArg], i-iArg);
      iArg = i+1;
    }
  }
  hBefore = fingerprint();
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
  if( rc!=SQLITE_DONE ){
    const char *zErr = sqlite3_errmsg(db);
    if( getenv("FUZZ_VERBOSE") ) fprintf(stderr, "error: %s\n", zErr);
    FUZZ_ASSERT(strncmp(zErr, "docext: ", 8)==0 || strncmp(zErr, "E11000 ", 7)==0,
                "an error that is not docext's");
  }
  sqlite3_finalize(pStmt);
  if( rc!=SQLITE_DONE ){
    FUZZ_ASSERT(fingerprint()==hBefore, "a failed statement changed the database");
  }
  fuzzCheckCollection(db);
  FUZZ_ASSERT(sqlite3_exec(db, "ROLLBACK TO f; RELEASE f; SELECT doc_config('clock', NULL)",
                           0, 0, 0)==SQLITE_OK, sqlite3_errmsg(db));
  return 0;
}
