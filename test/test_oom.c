/*
** test_oom.c — every SQL surface of docext under out-of-memory.
**
** For each statement: run it once to learn its result and the collection's
** state after it; then again with allocation N failing, for N = 1, 2, ...
** until a run no longer reaches N. Each run must give either that same
** result and state, or SQLITE_NOMEM with the collection exactly as before
** (and doc_check 'ok'); never another error, a crash or (under ASan) a
** leak. Each run happens inside a transaction that is then rolled back, so
** all start from the same data.
**
** The statements cover inserts (inline and paged documents), finds through
** every kind of plan, counts, updates in place and the ordinary way, the
** collection commands, index creation, explain and doc_check.
**
** The commands are called from a statement that reads a table ("FROM
** one"). A command writes inside a savepoint and rolls back to it on any
** error; but once an allocation fails inside SQLite itself, SQLite refuses
** every further statement until the outermost one ends (its mallocFailed
** flag), the rollback included. SQLite then rolls back the transaction
** when that outer statement ends, but only if it read the database: a bare
** "SELECT doc_update_one(…)" reads nothing, and SQLite leaves the half-made
** command in the transaction (README, "Limits").
*/
#include "docextInt.h"
#include <stdio.h>
#include <stdlib.h>
#include "oomfail.h"
#include "testdb.h"

/*------------------------------------------------------------------------
** Running SQL
*/

/* Set when the statement ran but reading a row's column as text ran out
** of memory (SQLite copying the value to add its terminator): the
** statement's writes then stand, as they would for any function. */
static int bReadOom = 0;

/* Run zSql, every statement in it, appending each row's columns (as text)
** to pOut. Returns the first error code. */
static int run(sqlite3 *db, const char *zSql, DocBuf *pOut){
  int rc = SQLITE_OK;
  while( rc==SQLITE_OK && zSql && zSql[0] ){
    sqlite3_stmt *pStmt = 0;
    const char *zTail = 0;
    rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, &zTail);
    if( rc!=SQLITE_OK ) break;
    while( pStmt && (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
      int i, rc2 = SQLITE_OK;
      for(i=0; i<sqlite3_column_count(pStmt); i++){
        const char *z = (const char*)sqlite3_column_text(pStmt, i);
        if( z==0 && sqlite3_errcode(db)==SQLITE_NOMEM ){ rc2 = SQLITE_NOMEM; bReadOom = 1; break; }
        if( pOut ){
          docextBufAppendStr(&rc2, pOut, z ? z : "NULL");
          docextBufAppendByte(&rc2, pOut, '|');
        }
      }
      if( pOut ) docextBufAppendByte(&rc2, pOut, '\n');
      /* (this test's own buffer may be what ran out: the row was read) */
      if( rc2!=SQLITE_OK ){ rc = rc2; bReadOom = 1; break; }
    }
    if( rc==SQLITE_DONE ) rc = SQLITE_OK;
    if( sqlite3_finalize(pStmt)!=SQLITE_OK && rc==SQLITE_OK ) rc = sqlite3_errcode(db);
    zSql = zTail;
  }
  return rc;
}

/* The collections' contents, for comparing states. */
static const char zState[] =
  "SELECT 'c', _id, hex(bson) FROM c ORDER BY rowid;"
  "SELECT 'big', _id, hex(bson) FROM big ORDER BY rowid;"
  "SELECT name, key, entries FROM doc_indexes('c');"
  "SELECT doc_check('c'), doc_check('big');"
  "SELECT 'sh', _id, hex(bson) FROM sh ORDER BY _id;"
  "SELECT 's1', _id FROM s1.sh ORDER BY _id;"
  "SELECT 's2', _id FROM s2.sh ORDER BY _id;"
  "SELECT hex(lo), hex(min), shard, prev, jumbo FROM docext_chunks ORDER BY coll, lo;"
  "SELECT name FROM sqlite_schema UNION ALL SELECT name FROM s1.sqlite_schema"
  " UNION ALL SELECT name FROM s2.sqlite_schema ORDER BY 1;"
  "SELECT _id FROM c2 ORDER BY _id;";

static void state(sqlite3 *db, DocBuf *pOut){
  docextBufReset(pOut);
  if( run(db, zState, pOut)!=SQLITE_OK ){
    check(0, "reading the state", sqlite3_errmsg(db));
  }
}

static int sameBuf(const DocBuf *a, const DocBuf *b){
  return a->n==b->n && (a->n==0 || memcmp(a->a, b->a, a->n)==0);
}

/* The OOM loop for one statement. */
static void tOom(sqlite3 *db, const char *zSql){
  DocBuf before, refOut, refState, out, after;
  int iFail, nRuns = 0, nBad = 0, rc;
  char zMsg[160];
  memset(&before, 0, sizeof(before));
  memset(&refOut, 0, sizeof(refOut));
  memset(&refState, 0, sizeof(refState));
  memset(&out, 0, sizeof(out));
  memset(&after, 0, sizeof(after));

  state(db, &before);
  run(db, "BEGIN", 0);
  rc = run(db, zSql, &refOut);
  if( rc!=SQLITE_OK ) check(0, zSql, sqlite3_errmsg(db));
  state(db, &refState);
  run(db, "ROLLBACK", 0);

  /* DOCEXT_OOM_AT=N starts at N (for a debugger: break on oomHit) */
  for(iFail=getenv("DOCEXT_OOM_AT") ? atoi(getenv("DOCEXT_OOM_AT")) : 1;
      rc==SQLITE_OK && iFail<100000; iFail++){
    int rc2;
    docextBufReset(&out);
    run(db, "BEGIN", 0);
    bFailed = 0;
    docextTzForget();             /* (zones are read again: their reading fails too) */
    nFailAt = iFail;
    bReadOom = 0;
    rc2 = run(db, zSql, &out);
    nFailAt = 0;
    nRuns++;
    if( bReadOom ){
      /* the statement's work stands, or SQLite, meeting the failure as
      ** the statement ended, rolled back the whole transaction */
      int bRolledBack = sqlite3_get_autocommit(db);
      state(db, &after);
      if( !sameBuf(&after, bRolledBack ? &before : &refState) ){
        if( nBad++==0 ) printf("  %s: run %d: reading the result failed, but not after the change\n", zSql, iFail);
      }
    }else if( rc2==SQLITE_OK ){
      state(db, &after);
      if( !sameBuf(&out, &refOut) || !sameBuf(&after, &refState) ){
        if( nBad++==0 ) printf("  %s: run %d gave another result\n", zSql, iFail);
      }
    }else if( (rc2 & 0xff)!=SQLITE_NOMEM || !bFailed ){
      if( nBad++==0 ) printf("  %s: run %d: error %d %s\n", zSql, iFail, rc2, sqlite3_errmsg(db));
    }else{
      /* The failed statement changed nothing (SQLite undoes a statement
      ** that fails; docext must not have written around it). */
      if( getenv("DOCEXT_OOM_AC") ) printf("run %d rc %d (%s) autocommit %d\n", iFail, rc2, sqlite3_errmsg(db), sqlite3_get_autocommit(db));
      sqlite3_exec(db, "SELECT 1", 0, 0, 0);   /* clear the error */

      state(db, &after);
      if( !sameBuf(&after, &before) ){
        if( nBad++==0 ){
          printf("  %s: run %d: NOMEM left changes\n", zSql, iFail);
          if( getenv("DOCEXT_OOM_SHOW") ){
            FILE *f1 = fopen("/tmp/oom_before", "w"), *f2 = fopen("/tmp/oom_after", "w");
            if( f1 ){ fwrite(before.a, 1, (size_t)before.n, f1); fclose(f1); }
            if( f2 ){ fwrite(after.a, 1, (size_t)after.n, f2); fclose(f2); }
            exit(1);
          }
        }
      }
    }
    run(db, "ROLLBACK", 0);
    if( !bFailed ) break;
  }
  snprintf(zMsg, sizeof(zMsg), "%d bad of %d runs", nBad, nRuns);
  check(nBad==0 && nRuns>1, zSql, nBad ? zMsg : 0);
  docextBufFree(&before);
  docextBufFree(&refOut);
  docextBufFree(&refState);
  docextBufFree(&out);
  docextBufFree(&after);
}

int main(void){
  sqlite3 *db = 0;
  char *zErr = 0;
  static const char *azSql[] = {
    /* writes */
    "INSERT INTO c(doc) VALUES ('{_id: 100, a: 5, tags: [\"x\", \"y\"], s: \"hello\"}')",
    "INSERT INTO big(doc) VALUES (json_object('_id', 2, 'list', json_array(1, 2), 'pad', printf('%.9000c', 'p')))",
    "UPDATE c SET doc = doc_update(bson, '{$inc: {a: 1}, $push: {tags: \"z\"}}') WHERE _id = 3",
    "DELETE FROM c WHERE filter = '{a: {$gt: 7}}'",
    "INSERT OR REPLACE INTO c(doc) VALUES ('{_id: 1, a: 99}')",
    /* finds */
    "SELECT doc FROM c('{a: 4}')",
    "SELECT doc FROM c('{tags: \"t3\"}', '{a: 1, _id: 0}')",
    "SELECT doc FROM c('{a: {$gte: 2, $lt: 9}}', NULL, '{a: -1}') LIMIT 3",
    "SELECT doc FROM c('{$or: [{a: 1}, {tags: \"t5\"}]}', NULL, '{s: 1}')",
    "SELECT count(*) FROM c('{a: {$gt: 3}}')",
    "SELECT count(*) FROM c('{tags: \"t2\"}')",
    "SELECT count(*) FROM c('{$expr: {$or: [{$gt: [{$add: [\"$a\", 1.5]}, 6]}, "
    "{$in: [\"t3\", {$ifNull: [\"$tags\", []]}]}, {$eq: [{a: \"$a\", t: [\"$s\", \"$tags.x\"]}, 1]}]}}')",
    "SELECT count(*) FROM c('{$jsonSchema: {required: [\"a\"], properties: {a: {bsonType: \"int\", "
    "minimum: 2, multipleOf: 1}, s: {pattern: \"^str\", maxLength: 9}, tags: {items: {enum: [\"t1\", \"t2\"]}, "
    "uniqueItems: true}}, patternProperties: {\"^t\": {}}, anyOf: [{required: [\"s\"]}, {not: {}}]}}')",
    "SELECT count(*) FROM c('{$sampleRate: 1, $expr: {$lt: [{$rand: {}}, 2]}}')",
    "SELECT doc_match('{g: {type: \"GeometryCollection\", geometries: [{type: \"Point\", "
    "coordinates: [1, 1]}, {type: \"LineString\", coordinates: [[0.5, 0.5], [1, 2]]}, "
    "{type: \"Polygon\", coordinates: [[[0, 0], [3, 0], [3, 3], [0, 3], [0, 0]], "
    "[[1, 1.5], [2, 1.5], [2, 2], [1, 1.5]]]}]}}', '{g: {$geoIntersects: {$geometry: "
    "{type: \"MultiPolygon\", coordinates: [[[[0, 0], [4, 0], [4, 4], [0, 0]]]]}}}, "
    "p: {$not: {$geoWithin: {$polygon: [[0, 0], [1, 0], [1, 1]]}}}}')",
    "SELECT _id FROM g('{loc: {$nearSphere: {$geometry: {type: \"Point\", coordinates: [0, 0]}, "
    "$maxDistance: 1000000}}}') LIMIT 2",
    "SELECT doc FROM doc_aggregate('g', '[{$geoNear: {near: {type: \"Point\", coordinates: [0, 0]}, "
    "distanceField: \"x.d\", key: \"loc\", includeLocs: \"x.at\", query: {_id: {$gte: 0}}}}]')",
    "INSERT INTO gi(doc) VALUES ('{_id: 10, loc: {type: \"LineString\", coordinates: [[0, 0], [2, 3]]}}')",
    "SELECT _id FROM gi('{loc: {$geoIntersects: {$geometry: {type: \"Polygon\", coordinates: "
    "[[[0, 0], [3, 0], [3, 3], [0, 0]]]}}}}')",
    "SELECT doc FROM doc_aggregate('gi', '[{$geoNear: {near: [0, 0], spherical: true, distanceField: \"d\", "
    "key: \"loc\", maxDistance: 0.1, query: {_id: {$gt: 0}}}}]')",
    "SELECT doc_create_index('gj', '{_id: 1, loc: \"2dsphere\"}') FROM one",
    "INSERT INTO gf(doc) VALUES ('{_id: 10, pos: [[1, 1], [-1, -1]], k: 2}')",
    "SELECT _id FROM gf('{pos: {$near: [0, 0]}}') LIMIT 2",
    "SELECT doc FROM doc_aggregate('gf', '[{$geoNear: {near: [0, 0], distanceField: \"d\", key: \"pos\"}}, "
    "{$limit: 2}]')",
    "SELECT _id FROM gf('{pos: {$geoWithin: {$polygon: [[0, 0], [4, 0], [4, 4]]}}}')",
    "INSERT INTO tx(doc) VALUES ('{_id: 10, title: \"Cafés and running\", tags: [\"espresso\", "
    "\"dogs\"], language: \"none\", m: {n: \"Öl\", language: \"english\"}}')",
    "SELECT doc FROM tx WHERE filter = '{$text: {$search: \"running -dog \\\"cafe\\\"\"}}' "
    "AND projection = '{_id: 1, s: {$meta: \"textScore\"}}' AND sort = '{s: {$meta: \"textScore\"}}'",
    "SELECT doc_count('tx', '{$text: {$search: \"COFFEE\", $caseSensitive: true, "
    "$diacriticSensitive: true}}')",
    "SELECT doc_create_index('ty', '{\"$**\": \"text\"}', '{weights: {b: 3}, default_language: \"none\"}') "
    "FROM one",
    "SELECT doc FROM doc_aggregate('tx', '[{$match: {$text: {$search: \"coffee\"}}}, {$project: {title: 1, "
    "s: {$meta: \"textScore\"}}}, {$group: {_id: null, d: {$push: \"$$ROOT\"}}}]')",
    "SELECT doc_find_and_modify('tx', '{query: {$text: {$search: \"coffee\"}}, sort: {s: {$meta: "
    "\"textScore\"}}, update: {$inc: {n: 1}}, fields: {s: {$meta: \"textScore\"}}}')",
    "INSERT INTO tx(doc) VALUES ('{_id: 11, title: \"Les chevaux mangent\", language: \"fr\", "
    "m: {n: \"İstanbul ILIK\", language: \"turkish\"}}')",
    "SELECT _id FROM tx('{$text: {$search: \"cheval \\\"ılık\\\"\", $language: \"tr\"}}')",
    "SELECT json_remove(doc_explain('tx', '{$text: {$search: \"coffee -tea \\\"a b\\\" -\\\"c\\\"\"}}'), "
    "'$.millis')",
    "SELECT json_remove(doc, '$.stages[0].$cursor.millis') FROM doc_aggregate('tx', "
    "'[{$match: {$text: {$search: \"coffee\"}}}, {$sort: {_id: 1}}, {$limit: 1}, {$project: {title: 1}}]', "
    "'{explain: true}')",
    "SELECT _id FROM c WHERE _id IN (1, 4, 7)",
    "SELECT doc FROM big",
    "SELECT doc_count('c', '{a: {$lt: 5}}'), doc_count('c')",
    "SELECT doc_distinct('c', 'tags', '{a: {$gte: 2}}'), doc_distinct('c', 's')",
    "SELECT doc_explain('c', '{a: 3}') IS NOT NULL",
    "SELECT doc_update('{s: \"a,b é c\", d: ISODate(\"2020-01-31T10:00:00Z\"), t: [3, 1, 2]}', "
    "'[{$set: {f: {$regexFindAll: {input: \"$s\", regex: \"(\\\\w)\"}}, u: {$setUnion: [\"$t\", [9]]}, "
    "m: {$dateTrunc: {date: \"$d\", unit: \"week\", binSize: 2}}, p: {$dateToParts: {date: \"$d\", iso8601: true}}, "
    "c: {$convert: {input: \"$s\", to: \"int\", onError: {$split: [\"$s\", \",\"]}}}, "
    "z: {$zip: {inputs: [\"$t\", [1]], useLongestLength: true}}, o: {$sortArray: {input: \"$t\", sortBy: -1}}, "
    "k: {$objectToArray: {$arrayToObject: [[[\"x\", 1]]]}}, r: {$replaceAll: {input: \"$s\", find: \",\", replacement: \";\"}}}}]')",
    "SELECT doc_update('{s: \" x-1 \", n: 2.5, a: [5, null, 1]}', '[{$set: {t: {$trim: {input: \"$s\"}}, "
    "f: {$regexFind: {input: \"$s\", regex: {$concat: [\"(\", \"\\\\d)\"]}}}, x: {$toString: \"$n\"}, "
    "d: {$dateFromString: {dateString: \"05/06/2020\", format: \"%d/%m/%Y\"}}, s2: {$dateToString: {date: \"$nope\", onNull: \"-\"}}, "
    "m: {$maxN: {n: 2, input: \"$a\"}}, i: {$indexOfCP: [\"$s\", \"1\"]}, g: {$getField: \"s\"}, "
    "r: {$round: [\"$n\", 0]}, b: {$range: [0, 5]}, q: {$strcasecmp: [\"$s\", \"X\"]}}}]')",
    /* (a zone of the time zone database, read again in each run, so that
    ** every allocation of the reading fails once) */
    "SELECT doc_update('{d: ISODate(\"2024-03-10T06:30:00Z\"), a: [3, 1, 2, 5]}', '[{$set: {"
    "h: {$hour: {date: \"$d\", timezone: \"America/Los_Angeles\"}}, "
    "t: {$dateTrunc: {date: \"$d\", unit: \"day\", timezone: \"America/Los_Angeles\"}}, "
    "p: {$percentile: {input: \"$a\", p: [0.5, 0.9], method: \"continuous\"}}, "
    "m: {$median: {input: \"$a\", method: \"approximate\"}}, s: {$stdDevPop: \"$a\"}, "
    "u: {$unsetField: {field: \"x\", input: {x: 1, y: 2}}}}}]')",
    "SELECT doc_analyze_shard_key('c', '{a: 1, s: 1}', '{shards: 3, chunkSize: 200, queries: "
    "[{a: 2}, {$or: [{a: 1}, {a: {$gt: 6}}]}, {tags: \"t1\"}, {filter: {a: 3}, sort: {s: -1}, limit: 2}]}'), "
    "doc_analyze_shard_key('c', '{s: \"hashed\"}', '{queries: [{s: {$in: [\"str1\", \"str2\"]}}]}')",
    /* commands */
    "SELECT doc_update_one('big', '{_id: 1}', '{$push: {list: {$each: [7, 8]}}}') FROM one",
    "SELECT doc_update_one('big', '{_id: 1}', '{$set: {n: 1}, $push: {list: 9}}') FROM one",
    "SELECT doc_update_many('c', '{a: {$lt: 4}}', '{$set: {low: true}}') FROM one",
    "SELECT doc_update_many('c', '{$expr: {$lt: [\"$a\", \"$$n\"]}}', '[{$set: {\"t.z\": {$mergeObjects: "
    "[{k: \"$s\"}, {m: \"$$n\"}]}, q: 1}}, {$project: {a: 1, t: 1, q: 1}}, {$unset: \"q\"}]', "
    "'{let: {n: 5}}') FROM one",
    "SELECT doc_update_one('c', '{_id: 50}', '{$set: {a: 1}}', '{upsert: true}') FROM one",
    "SELECT doc_delete_many('c', '{tags: \"t1\"}') FROM one",
    "SELECT doc_find_and_modify('c', '{query: {a: {$gt: 1}}, sort: {a: -1}, update: {$inc: {a: 10}}, new: true}') FROM one",
    "SELECT doc_create_index('c', '{s: 1, a: -1}') FROM one",
    "SELECT doc_check('c'), doc_check('big')",
    /* functions on any value */
    "SELECT doc_json(doc, 'shell'), doc_json(bson, 'canonical'), doc_get(doc, 'tags'), doc_type(doc, 's') FROM c WHERE _id < 4",
    "SELECT doc_match(doc, '{a: {$in: [1, 2]}, s: /^str/}'), doc_project(doc, '{tags: {$slice: 1}}') FROM c WHERE _id < 4",
    "SELECT doc_update('{a: [1, 2, 3], b: {c: 1}}', '{$push: {a: {$each: [4], $sort: -1, $slice: 2}}, $inc: {\"b.c\": 2}}')",
    "SELECT count(*), sum(length(doc)) FROM doc_each('[{a: 1}, {b: [2, 3]}, {c: ISODate(\"2012-10-10\")}]')",
    "SELECT doc_json('{r: DBRef(\"c\", {k: [1, 2]}, \"d\"), c: Code(\"f\", {s: [1]}), y: BSONSymbol(\"s\"), "
    "x: BSONRegExp(\"a\", \"i\"), b: Binary(Buffer.from(\"0a0b\", \"hex\"), 4)}', 'shell')",
    "SELECT count(*) FROM doc_each(CAST('[{a: 1}, {b: 2}]' AS BLOB))",
    "SELECT _id FROM c('{s: {$regex: \"^str1\"}}')",
    "SELECT doc_drop_index('c', 'a_1') FROM one",
    "SELECT doc_stats('c') IS NOT NULL FROM one",
    "SELECT doc_ttl_sweep() FROM one",
    /* aggregation: the query at its head, every kind of stage after it */
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c', '[{$match: {a: {$gte: 2}}}, {$sort: {a: -1}}, "
    "{$limit: 30}, {$unwind: {path: \"$tags\", includeArrayIndex: \"i\"}}, {$group: {_id: {t: \"$tags\"}, "
    "n: {$sum: 1}, av: {$avg: \"$a\"}, mn: {$min: \"$s\"}, f: {$first: \"$a\"}, p: {$push: \"$i\"}, "
    "u: {$addToSet: \"$a\"}, sd: {$stdDevSamp: \"$a\"}, md: {$median: {input: \"$a\", method: "
    "\"approximate\"}}}}, {$set: {k: {$size: \"$u\"}}}, "
    "{$match: {n: {$gt: 1}}}, {$sort: {n: 1, _id: 1}}, {$skip: 1}, {$project: {p: 0}}]')",
    /* $bucketAuto's granularity over decimal128 */
    "SELECT group_concat(doc, ';') FROM doc_aggregate(NULL, '[{$documents: [{v: NumberDecimal(\"0.8\")}, "
    "{v: NumberDecimal(\"31\")}, {v: NumberDecimal(\"4700\")}]}, {$bucketAuto: {groupBy: \"$v\", "
    "buckets: 2, granularity: \"E12\"}}]')",
    /* window functions over decimal128 */
    "SELECT group_concat(doc, ';') FROM doc_aggregate(NULL, '[{$documents: [{t: 1, v: NumberDecimal(\"1.5\")}, "
    "{t: 2, v: 2.25}, {t: 4, v: 3}]}, {$setWindowFields: {sortBy: {t: 1}, output: {e: {$expMovingAvg: "
    "{input: \"$v\", N: 2}}, d: {$derivative: {input: \"$v\"}, window: {documents: [-1, 0]}}, "
    "i: {$integral: {input: \"$v\"}}, s: {$sum: \"$v\"}, a: {$avg: \"$v\", window: {documents: [-1, 0]}}}}}]')",
    /* the accumulators of n values, and $mergeObjects, in $group and a window */
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c', '[{$group: {_id: {m: {$mod: [\"$a\", 3]}}, "
    "f: {$firstN: {n: {$add: [\"$m\", 1]}, input: \"$s\"}}, l: {$lastN: {n: 2, input: \"$tags\"}}, "
    "mn: {$minN: {n: 2, input: \"$a\"}}, mx: {$maxN: {n: 3, input: \"$s\"}}, "
    "t: {$top: {sortBy: {s: -1}, output: \"$a\"}}, tn: {$topN: {n: 2, sortBy: {tags: 1, a: -1}, output: [\"$a\", \"$s\"]}}, "
    "bn: {$bottomN: {n: 2, sortBy: {a: 1}, output: \"$s\"}}, m: {$mergeObjects: {k: \"$s\", a: \"$a\"}}}}, "
    "{$setWindowFields: {sortBy: {_id: 1}, output: {w: {$bottomN: {n: 2, sortBy: {_id: 1}, output: \"$t\"}, "
    "window: {documents: [-1, 1]}}, x: {$maxN: {n: 2, input: \"$_id\"}, window: {documents: [\"unbounded\", \"current\"]}}}}}]')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c', '[{$sortByCount: \"$a\"}, {$count: \"n\"}]')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c', '[{$match: {$expr: {$lt: [\"$a\", \"$$m\"]}}}, "
    "{$project: {v: {$add: [\"$a\", \"$$m\"]}}}]', '{let: {m: 3}, hint: \"a_1\", comment: \"x\"}')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c', '[{$facet: {b: [{$bucket: {groupBy: \"$a\", "
    "boundaries: [0, 3, 6], default: \"x\", output: {t: {$addToSet: \"$tags\"}}}}], "
    "u: [{$limit: 2}, {$unionWith: {coll: \"c2\", pipeline: [{$match: {k: 1}}]}}], "
    "s: [{$sample: {size: 3}}, {$count: \"n\"}]}}]')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c2', '[{$match: {_id: {$lt: 4}}}, {$graphLookup: "
    "{from: \"c2\", startWith: \"$k\", connectFromField: \"_id\", connectToField: \"k\", as: \"g\", "
    "depthField: \"d\", maxDepth: 3, restrictSearchWithMatch: {_id: {$gt: 1}}}}]')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c2', '[{$match: {_id: {$lt: 5}}}, {$lookup: {from: \"c\", "
    "localField: \"k\", foreignField: \"a\", let: {kk: \"$k\", t: {$concat: [\"t\", {$toString: \"$k\"}]}}, "
    "pipeline: [{$match: {$expr: {$in: [\"$$t\", \"$tags\"]}}}, {$project: {a: 1, kk: \"$$kk\"}}], as: \"m\"}}]', "
    "'{let: {z: 1}}')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c2', '[{$lookup: {from: \"c\", localField: \"k\", "
    "foreignField: \"a\", as: \"m\"}}, {$replaceWith: {k: \"$k\", n: {$size: \"$m\"}}}]')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate('sh', '[{$match: {k: {$lt: 5}}}, "
    "{$group: {_id: \"$k\", ids: {$push: \"$_id\"}}}]')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c', '[{$bucketAuto: {groupBy: \"$a\", "
    "buckets: 3, output: {n: {$sum: 1}, s: {$addToSet: \"$s\"}}}}, {$unionWith: {coll: \"c\", "
    "pipeline: [{$bucketAuto: {groupBy: {$abs: \"$a\"}, buckets: 2, granularity: \"E12\"}}]}}]')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate(NULL, '[{$documents: {$map: {input: "
    "{$range: [0, 5]}, in: {n: \"$$this\", s: {$toString: \"$$this\"}}}}}, {$unionWith: {pipeline: "
    "[{$documents: [{n: 9}]}]}}, {$lookup: {localField: \"n\", foreignField: \"a\", from: \"c\", "
    "as: \"m\"}}]')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c', '[{$set: {t: {$toDate: {$toLong: {$multiply: "
    "[\"$a\", 3600000]}}}}}, {$densify: {field: \"t\", partitionByFields: [\"s\"], range: {step: 1, "
    "unit: \"hour\", bounds: \"full\"}}}, {$densify: {field: \"a\", range: {step: 2, "
    "bounds: [0, 9]}}}]')",
    "SELECT group_concat(doc, ';') FROM doc_aggregate(NULL, '[{$documents: [{l: 1, s: {l: 3}, "
    "a: [{l: 1, x: 1}, {l: 4}, 5, [{l: 2}]]}]}, {$redact: {$cond: [{$lte: [{$ifNull: [\"$l\", 0]}, 2]}, "
    "\"$$DESCEND\", \"$$PRUNE\"]}}]')",
    /* window functions of every kind, and $fill */
    "SELECT group_concat(doc, ';') FROM doc_aggregate('c', '[{$setWindowFields: {partitionBy: "
    "{$mod: [\"$a\", 2]}, sortBy: {_id: 1}, output: {r: {$sum: \"$a\", window: {documents: "
    "[\"unbounded\", \"current\"]}}, m: {$avg: \"$a\", window: {range: [-2, 1]}}, "
    "u: {$addToSet: \"$s\", window: {documents: [0, \"unbounded\"]}}, p: {$push: \"$a\", "
    "window: {documents: [-1, 1]}}, \"x.k\": {$rank: {}}, d: {$denseRank: {}}, f: {$first: \"$a\"}, "
    "h: {$shift: {output: \"$s\", by: 1, default: \"-\"}}, l: {$locf: \"$s\"}, "
    "lf: {$linearFill: \"$a\"}, dv: {$derivative: {input: \"$a\"}, window: {documents: [-1, 0]}}, "
    "i: {$integral: {input: \"$a\"}}, e: {$expMovingAvg: {input: \"$a\", N: 3}}, "
    "c: {$covarianceSamp: [\"$a\", \"$a\"]}, md: {$percentile: {input: \"$a\", p: [0.5, 0.9], "
    "method: \"continuous\"}, window: {documents: [-1, 1]}}}}}, {$fill: {sortBy: {a: 1}, "
    "output: {s: {method: \"locf\"}, z: {value: 0}}}}]')",
    /* a sharded collection: routed writes (splits), reads, migrations */
    "INSERT INTO sh(doc) VALUES ('{_id: 500, k: 4, pad: \"a longer document, to split its chunk\"}')",
    "UPDATE sh SET doc = '{_id: 7, k: 7, v: \"new\"}' WHERE _id = 7",
    "DELETE FROM sh WHERE doc_match(doc, '{k: {$in: [2, 3]}}')",
    "SELECT doc FROM sh('{k: {$gte: 3}}', NULL, '{_id: -1}', '{skip: 1}') LIMIT 5",
    "SELECT count(*) FROM sh('{v: {$exists: false}}')",
    "SELECT doc_route('sh', '{k: {$in: [1, 7]}}'), (SELECT count(*) FROM doc_chunks('sh'))",
    "SELECT doc_split_chunk('sh', '{k: 5}') FROM one",
    "SELECT doc_move_chunk('sh', '{k: 1}', 's2') FROM one",
    "SELECT doc_balance('sh') FROM one",
    "SELECT doc_shard_collection('c2', '{k: 1}', '{chunkSize: 200}') FROM one",
    "SELECT doc_update_many('sh', '{k: {$in: [1, 6]}}', '{$set: {u: 1}}') FROM one",
    "SELECT doc_update_one('sh', '{_id: 900, k: 2}', '{$set: {u: 2}}', '{upsert: true}') FROM one",
    "SELECT doc_delete_many('sh', '{k: {$gte: 6}}') FROM one",
    "SELECT doc_find_and_modify('sh', '{query: {k: 3}, sort: {_id: -1}, update: {$inc: {n: 1}}, new: true}') FROM one",
    "SELECT doc_explain('sh', '{k: {$lte: 2}}', NULL, '{k: 1, _id: 1}', '{limit: 4}') IS NOT NULL,"
    " doc_distinct('sh', 'k', '{_id: {$gt: 3}}') FROM one",
    "SELECT json_extract(doc_stats('sh'), '$.count'), doc_check('sh') FROM one",
    "SELECT doc_create_index('sh', '{v: 1}'), doc_drop_index('sh', 'v_1') FROM one",
    "SELECT group_concat(_id) FROM sh('{}', NULL, '{k: 1}', '{limit: 9}')",
    "SELECT doc_update_many('sh', '{k: 1}', '{$set: {k: 7}}') FROM one",     /* key changes: moves */
    "UPDATE sh SET doc = json_object('_id', _id, 'k', 0) WHERE _id IN (6, 7, 8)",
    "UPDATE sh SET doc = '{_id: 9, k: 6, v: \"moved\"}' WHERE _id = 9",
    /* validators: setting one (on every partition of sh), writes checked,
    ** one refused (and skipped: its message is built), one bypassed */
    "SELECT doc_coll_mod('c', '{validator: {$jsonSchema: {required: [\"a\"]}, s: {$type: \"string\"}}, "
    "validationLevel: \"moderate\"}') FROM one",
    "SELECT doc_coll_mod('sh', '{validator: {k: {$type: \"number\"}}, validationAction: \"warn\"}') FROM one",
    "CREATE VIRTUAL TABLE vnew USING docext('{validator: {a: {$gt: 0}}, validationAction: \"warn\"}')",
    "INSERT INTO v(doc) VALUES ('{_id: 10, a: 5}')",
    "UPDATE v SET doc = doc_update(bson, '{$inc: {a: 1}}') WHERE _id = 1",
    "INSERT OR IGNORE INTO v(doc) VALUES ('{_id: 11, a: -5}'), ('{_id: 12, a: 3}'), "
    "('{_id: 13, a: 4, s: [\"long\", {t: 1}]}')",
    "SELECT doc_update_one('v', '{_id: 1}', '{$set: {a: -1}}', '{bypassDocumentValidation: true}') FROM one",
    /* collations */
    "SELECT _id FROM c('{s: {$in: [\"STR1\", \"Str12\"]}}', NULL, '{s: -1}', "
    "'{collation: {locale: \"en\", strength: 2}}')",
    "SELECT doc_create_index('c', '{s: 1, a: 1}', '{collation: {locale: \"fr\", strength: 1}}') FROM one",
    "INSERT INTO cl(doc) VALUES ('{_id: 10, s: \"ÉTÉ\", t: [\"B\", \"b\"]}')",
    "SELECT _id FROM cl('{s: \"ete\"}', NULL, '{s: 1}', '{collation: {locale: \"fr\", strength: 1}}')",
    "SELECT doc_update_many('cl', '{s: \"ETE\"}', '{$addToSet: {t: \"B\"}, $max: {s: \"ete\"}}', "
    "'{collation: {locale: \"fr\", strength: 1}}') FROM one",
    "SELECT doc_distinct('cl', 't', NULL, '{collation: {locale: \"fr\", strength: 1}}')",
    "SELECT doc FROM doc_aggregate('cl', '[{$group: {_id: \"$s\", n: {$sum: 1}, t: {$addToSet: \"$t\"}}}, "
    "{$sort: {_id: 1}}]', '{collation: {locale: \"fr\", strength: 1}}')",
    "CREATE VIRTUAL TABLE cnew USING docext('{collation: {locale: \"de\", strength: 1}}')",
    "INSERT INTO cd(doc) VALUES ('{_id: \"Zeta\", k: \"Ä\"}'), ('{_id: \"x\"}')",
    "SELECT _id FROM cd WHERE _id IN ('ANN', 'b') OR _id > 'Z'",
    "SELECT doc_update_many('cd', '{k: \"a\"}', '{$addToSet: {t: \"A\"}}') FROM one",
  };
  size_t i;

  installOom();
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK
   || sqlite3_docext_init(db, &zErr, 0)!=SQLITE_OK ){
    printf("FAIL cannot open: %s\n", zErr ? zErr : "?");
    return 1;
  }
  /* c: small documents with two indexes (one multikey); big: one paged
  ** document with an array appended to in place. */
  if( run(db,
      "CREATE TABLE one(x); INSERT INTO one VALUES (1);"
      "CREATE VIRTUAL TABLE c USING docext;"
      "CREATE VIRTUAL TABLE big USING docext;"
      "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM n WHERE value<40)"
      " INSERT INTO c(doc) SELECT json_object('_id', value, 'a', value % 9,"
      "  'tags', json_array('t' || (value % 7), 't' || (value % 5)), 's', 'str' || value)"
      "  FROM n;"
      "SELECT doc_create_index('c', '{a: 1}');"
      "SELECT doc_create_index('c', '{tags: 1}');"
      "INSERT INTO big(doc) VALUES (json_object('_id', 1, 'list', json_array(),"
      "  'pad', printf('%.9000c', 'p')));"
      "SELECT doc_update_one('big', '{_id: 1}', '{$push: {list: 1}}');"
      /* sh: sharded by k over two shards, in small chunks; c2: to shard */
      "ATTACH ':memory:' AS s1; ATTACH ':memory:' AS s2;"
      "SELECT doc_add_shard('s1'), doc_add_shard('s2');"
      "CREATE VIRTUAL TABLE sh USING docext;"
      "SELECT doc_shard_collection('sh', '{k: 1}', '{chunkSize: 300}');"
      "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM n WHERE value<30)"
      " INSERT INTO sh(doc) SELECT json_object('_id', value, 'k', value % 8) FROM n;"
      "SELECT doc_balance('sh');"
      "CREATE VIRTUAL TABLE c2 USING docext;"
      "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM n WHERE value<12)"
      " INSERT INTO c2(doc) SELECT json_object('_id', value, 'k', value % 5) FROM n;"
      /* g: locations */
      "CREATE VIRTUAL TABLE g USING docext;"
      "INSERT INTO g(doc) VALUES ('{_id: 1, loc: [0, 1]}'), ('{_id: 2, loc: {type: \"Polygon\","
      "  coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]]}}'), ('{_id: 3, loc: [[5, 5], [0, 2]]}');"
      /* gi: places under a 2dsphere index; gj: places without one yet */
      "CREATE VIRTUAL TABLE gi USING docext;"
      "SELECT doc_create_index('gi', '{loc: \"2dsphere\"}');"
      "INSERT INTO gi(doc) VALUES ('{_id: 1, loc: [0, 1]}'), ('{_id: 2, loc: {type: \"Polygon\","
      "  coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]]}}'), ('{_id: 3, loc: {type: \"MultiPoint\","
      "  coordinates: [[5, 5], [0, 2]]}}');"
      "CREATE VIRTUAL TABLE gj USING docext;"
      "INSERT INTO gj(doc) SELECT doc FROM gi;"
      /* gf: points in the plane under a 2d index */
      "CREATE VIRTUAL TABLE gf USING docext;"
      "SELECT doc_create_index('gf', '{pos: \"2d\", k: 1}', '{min: -10, max: 10}');"
      "INSERT INTO gf(doc) VALUES ('{_id: 1, pos: [0, 1], k: 1}'), ('{_id: 2, pos: [[2, 2], [3, 3]]}'),"
      "  ('{_id: 3, pos: {x: -5, y: 5}}');"
      /* tx: articles under a text index; ty: strings without one yet */
      "CREATE VIRTUAL TABLE tx USING docext;"
      "SELECT doc_create_index('tx', '{title: \"text\", tags: \"text\", \"m.n\": \"text\"}',"
      "  '{weights: {title: 5}}');"
      "INSERT INTO tx(doc) VALUES ('{_id: 1, title: \"Coffee shops\", tags: [\"cafe\", \"dog\"]}'),"
      "  ('{_id: 2, title: \"Running with coffee\", m: {n: \"Café crème\"}}');"
      "CREATE VIRTUAL TABLE ty USING docext;"
      "INSERT INTO ty(doc) VALUES ('{_id: 1, a: \"x y\", b: [\"z\", {c: \"w\"}]}');"
      /* cl: strings under an index with a collation */
      "CREATE VIRTUAL TABLE cl USING docext;"
      "SELECT doc_create_index('cl', '{s: 1}', '{collation: {locale: \"fr\", strength: 1}}');"
      "INSERT INTO cl(doc) VALUES ('{_id: 1, s: \"été\", t: [\"a\"]}'), ('{_id: 2, s: \"Ete\"}'),"
      "  ('{_id: 3, s: \"hiver\"}');"
      /* cd: a collection with a default collation */
      "CREATE VIRTUAL TABLE cd USING docext('{collation: {locale: \"de\", strength: 1}}');"
      "SELECT doc_create_index('cd', '{k: 1}');"
      "INSERT INTO cd(doc) VALUES ('{_id: \"ann\", k: \"a\", t: [\"a\"]}'), ('{_id: \"straße\"}');"
      /* v: a collection with a validator */
      "CREATE VIRTUAL TABLE v USING docext;"
      "INSERT INTO v(doc) VALUES ('{_id: 1, a: 1}'), ('{_id: 2, a: 2}');"
      "SELECT doc_coll_mod('v', '{validator: {a: {$gte: 0}, $and: [{$expr: {$lt: [\"$a\", 100]}}, "
      "{$jsonSchema: {properties: {s: {items: {anyOf: [{maxLength: 3}, {bsonType: \"object\"}]}}}}}]}}');",
      0)!=SQLITE_OK ){
    printf("FAIL setup: %s\n", sqlite3_errmsg(db));
    return 1;
  }
  for(i=0; i<sizeof(azSql)/sizeof(azSql[0]); i++){
    /* DOCEXT_OOM_ONLY=text: only the statements that contain it */
    const char *zOnly = getenv("DOCEXT_OOM_ONLY");
    if( zOnly==0 || strstr(azSql[i], zOnly) ) tOom(db, azSql[i]);
  }
  sqlite3_close(db);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
