#!/usr/bin/python3
"""test_crud.py - MongoDB's data-driven CRUD tests, run against docext.

The tests are the driver specification's "unified test format" files in
../shared/crud-tests/unified/{core,extended}/*.json (see the README.md there
and ../shared/specs/unified-test-format.md, crud.md). Their licence is
non-commercial, so they are read from ../shared at run time and never copied
into this repository; when the folder is absent the runner says so and
reports 0 passed, 0 failed.

For each test: a fresh in-memory database gets one docext collection per
collection entity, loaded with initialData; each operation goes through
docext's SQL interface, the way a MongoDB user of SQLite would write it:

  find, findOne           SELECT ... FROM coll(filter, projection, sort,
                          '{"skip": n, "limit": n, "hint": h}')
  countDocuments          count(*) over the table-valued form (skip/limit in
                          its options); without skip/limit doc_count too,
                          and both must agree
  count                   count(*) over SQL LIMIT/OFFSET
  estimatedDocumentCount  doc_count(coll), checked against count(*)
  insertOne, insertMany   INSERT INTO coll(doc) VALUES (?), one row at a time
                          inside BEGIN ... COMMIT (ordered stops at the first
                          error, unordered goes on, as MongoDB does)
  updateOne, replaceOne   doc_update_one(coll, filter, update, options)
  updateMany              doc_update_many(...)
  deleteOne, deleteMany   doc_delete_one / doc_delete_many
  findOneAndUpdate,
  findOneAndReplace,
  findOneAndDelete        doc_find_and_modify(coll, spec)
  bulkWrite               its parts, one by one, inside BEGIN ... COMMIT

Results are matched as the spec's "Evaluating Matches" says: a result
document is a root-level document (extra fields allowed), int32, int64 and
double are equal when numerically equal, and $$unsetOrMatches, $$exists and
$$type are understood. Documents come back from docext as canonical Extended
JSON (doc_json(bson, 'canonical')), so their BSON types are exact. `outcome`
is compared with the collection read in _id order, exactly (no extra fields
at any level; key order free; numbers by value). After every test
doc_check(coll) must say 'ok'.

What is not run is listed in the skip list below, each with its reason; a test is
skipped as a whole when any of its operations is. Prints one line per file,
then the skip count, then "N passed, M failed" (N and M count tests).
CRUD_TESTS=dir reads the tests elsewhere; CRUD_VERBOSE=1 also lists every
skipped test; arguments select files whose path contains one of them.
"""

import datetime
import glob
import json
import math
import os
import sqlite3
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.environ.get("CRUD_TESTS",
                       os.path.join(REPO, "..", "shared", "crud-tests", "unified"))
EXTENSION = os.path.join(REPO, "docext")
VERBOSE = os.environ.get("CRUD_VERBOSE", "") not in ("", "0")

# The MongoDB version docext stands for when a test names one: docext
# follows current MongoDB (5.0's field order for updates, 8.0's `sort` for
# updateOne/replaceOne), so tests written for older servers only are skipped.
SERVER_VERSION = (8, 0, 0)

# --- the skip list --------------------------------------------------------
#
# Every skip has a reason here; nothing else is skipped. A reason must be a
# feature outside docext's contract (../shared/INTERFACE.md), never a failure.

SKIP_OPERATIONS = {
    # MongoDB 8.0's client-level bulk write across namespaces: a driver API
    # over several databases, nothing a docext collection offers.
    "clientBulkWrite": "clientBulkWrite: a MongoDB 8.0 client-level API",
}

# (`let`, the $$variables of $expr, is run: docext's options take it.)
# (aggregate is run through doc_aggregate, but not a pipeline that writes:)
SKIP_WRITING_STAGES = ("$out", "$merge")
SKIP_ARGUMENTS = {}

# (An update given as an array of aggregation stages, a pipeline update, is
# run: docext takes $set/$addFields, $project, $unset, $replaceRoot and
# $replaceWith stages.)

# Tests of checks that the CRUD spec puts in the driver, before anything is
# sent: MongoDB's update command, like doc_update_one (INTERFACE.md §5), takes
# either an operator document or a replacement, so below the driver nothing
# can tell "updateOne with a replacement" from "replaceOne", or "replaceOne
# whose replacement is {$set: ...}" from "updateOne". (The updateMany
# variants do run: doc_update_many itself refuses a replacement.)
SKIP_DRIVER_CHECK = ("driver-side check: doc_update_one takes operators or a "
                     "replacement, as MongoDB's update command does")
SKIP_TESTS = {
    ("updateOne-validation.json", "UpdateOne requires atomic modifiers"): SKIP_DRIVER_CHECK,
    ("replaceOne-validation.json", "ReplaceOne prohibits atomic modifiers"): SKIP_DRIVER_CHECK,
    ("bulkWrite-update-validation.json", "BulkWrite replaceOne prohibits atomic modifiers"): SKIP_DRIVER_CHECK,
    ("bulkWrite-update-validation.json", "BulkWrite updateOne requires atomic modifiers"): SKIP_DRIVER_CHECK,
}

# *-dots_and_dollars.json: MongoDB 5.0+ stores field names that start with
# '$' or contain '.'; INTERFACE.md §2 refuses them in a stored document ("a
# stored field name that starts with $ or contains ." is a limit: a clear
# SQL error and no change). These tests, whose insert, replacement or
# pipeline update ($setField) MongoDB accepts, are run with the opposite
# expectation: the write fails with
# docext's error naming the field, and the collection keeps its initial
# data. The DBRef-like {a: {$db: "foo"}} is refused too, as MongoDB before
# 5.0 refuses it: a DBRef's $db must follow its $id. (The tests that expect
# an error anyway run unchanged.)
DOTS_AND_DOLLARS_REFUSED = {
    # test description: what docext's error must say
    "Inserting document with top-level dollar-prefixed key on 5.0+ server": "field '$a'",
    "Inserting document with top-level dotted key": "field 'a.b'",
    "Inserting document with dollar-prefixed key in embedded doc": "field '$b'",
    "Inserting document with dotted key in embedded doc": "field 'b.c'",
    "Inserting document with dotted key in _id on 3.6+ server": "field 'a.b'",
    "Replacing document with top-level dotted key on 3.6+ server": "field 'a.b'",
    "Replacing document with dollar-prefixed key in embedded doc on 5.0+ server": "field '$b'",
    "Replacing document with dotted key in embedded doc on 3.6+ server": "field 'b.c'",
    "Inserting document with DBRef-like keys": "$db field must follow the $id field",
    "Updating document to set top-level dollar-prefixed key on 5.0+ server": "field '$a'",
    "Updating document to set top-level dotted key on 5.0+ server": "field 'a.b'",
    "Updating document to set dollar-prefixed key in embedded doc on 5.0+ server": "field '$a'",
    "Updating document to set dotted key in embedded doc on 5.0+ server": "field 'a.b'",
}


class DocextError(Exception):
    """docext (SQLite) raised an error; `result` is a partial bulk result."""

    def __init__(self, message, result=None):
        Exception.__init__(self, message)
        self.result = result


class Mismatch(Exception):
    """Two docext forms that must agree did not."""


# --- values: canonical Extended JSON to comparable Python -----------------

class Num(object):
    """A number with its BSON type ('int', 'long', 'double')."""
    __slots__ = ("v", "t")

    def __init__(self, v, t):
        self.v, self.t = v, t

    def __repr__(self):
        return "%s(%r)" % (self.t, self.v)


class Other(object):
    """Any other BSON value: its $type alias and a canonical key."""
    __slots__ = ("t", "key")

    def __init__(self, t, key):
        self.t, self.key = t, key

    def __repr__(self):
        return "%s(%s)" % (self.t, self.key)


WRAPPERS = {
    "$oid": "objectId", "$date": "date", "$binary": "binData",
    "$regularExpression": "regex", "$timestamp": "timestamp",
    "$minKey": "minKey", "$maxKey": "maxKey", "$symbol": "symbol",
    "$code": "javascript", "$dbPointer": "dbPointer",
    "$undefined": "undefined", "$numberDecimal": "decimal",
}


def date_millis(raw):
    """{"$date": ...} in canonical, relaxed or legacy form, as milliseconds."""
    if isinstance(raw, dict):
        return int(raw["$numberLong"])
    if isinstance(raw, (int, float)):
        return int(raw)
    t = datetime.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    return int(round(t.timestamp() * 1000))


def ejson(v):
    """Extended JSON (already json.loads'ed) as Num/Other/plain Python."""
    if isinstance(v, dict):
        keys = list(v)
        if len(keys) == 1:
            k = keys[0]
            if k == "$numberInt":
                return Num(int(v[k]), "int")
            if k == "$numberLong":
                return Num(int(v[k]), "long")
            if k == "$numberDouble":
                return Num(float(v[k]), "double")
            if k == "$date":
                return Other("date", str(date_millis(v[k])))
            if k in WRAPPERS:
                return Other(WRAPPERS[k], json.dumps(v[k], sort_keys=True))
        if sorted(keys) == ["$code", "$scope"]:
            return Other("javascriptWithScope", json.dumps(v, sort_keys=True))
        return {k: ejson(x) for k, x in v.items()}
    if isinstance(v, list):
        return [ejson(x) for x in v]
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return Num(v, "int" if -2**31 <= v < 2**31 else "long")
    if isinstance(v, float):
        return Num(v, "double")
    raise TypeError("unexpected JSON value %r" % (v,))


def plain(v):
    """A decoded value back as readable JSON-ish Python, for messages."""
    if isinstance(v, Num):
        return v.v
    if isinstance(v, Other):
        return "%s(%s)" % (v.t, v.key)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def show(v):
    return json.dumps(plain(v), default=str)


def type_alias(v):
    if isinstance(v, (Num, Other)):
        return v.t
    if isinstance(v, bool):
        return "bool"
    if v is None:
        return "null"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    raise TypeError(repr(v))


def scalar_equal(e, a, strict=False):
    if strict and type_alias(e) != type_alias(a):
        return False
    if isinstance(e, Num) and isinstance(a, Num):
        if isinstance(e.v, float) and isinstance(a.v, float) \
                and math.isnan(e.v) and math.isnan(a.v):
            return True
        return e.v == a.v
    if type(e) is not type(a):
        return False
    if isinstance(e, Other):
        return e.t == a.t and e.key == a.key
    return e == a


MISSING = object()


def special(d):
    """The operator of {$$op: arg}, or None."""
    if isinstance(d, dict) and len(d) == 1:
        k = next(iter(d))
        if k.startswith("$$"):
            return k
    return None


def match(exp, act, where, root, strict=False):
    """None if act matches exp (unified format rules), else a message.
    strict (for `outcome`): no special operators, no extra fields at any
    level, and numbers of the same BSON type."""
    op = special(exp)
    if op is not None and not strict:
        arg = exp[op]
        if op == "$$unsetOrMatches":
            return None if act is MISSING else match(arg, act, where, root)
        if op == "$$type":
            types = arg if isinstance(arg, list) else [arg]
            if act is MISSING:
                return "%s: missing, expected type %s" % (where, types)
            t = type_alias(act)
            if t in types or ("number" in types and t in ("int", "long", "double", "decimal")):
                return None
            return "%s: type %s, expected %s" % (where, t, types)
        raise ValueError("%s: unsupported match operator %s" % (where, op))
    if act is MISSING:
        return "%s: missing, expected %s" % (where, show(exp))
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            return "%s: %s is not a document, expected %s" % (where, show(act), show(exp))
        for k, ev in exp.items():
            av = act.get(k, MISSING)
            if special(ev) == "$$exists" and not strict:
                if bool(ev["$$exists"]) != (av is not MISSING):
                    return "%s.%s: expected %s" % (where, k, "present" if ev["$$exists"] else "absent")
                continue
            msg = match(ev, av, "%s.%s" % (where, k), False, strict)
            if msg:
                return msg
        if not root:
            extra = [k for k in act if k not in exp]
            if extra:
                return "%s: unexpected field(s) %s in %s" % (where, extra, show(act))
        return None
    if isinstance(exp, list):
        if not isinstance(act, list) or len(act) != len(exp):
            return "%s: %s, expected %s" % (where, show(act), show(exp))
        for i, (ev, av) in enumerate(zip(exp, act)):
            msg = match(ev, av, "%s[%d]" % (where, i), root, strict)
            if msg:
                return msg
        return None
    if not scalar_equal(exp, act, strict):
        return "%s: %s %s, expected %s %s" % (where, type_alias(act), show(act),
                                              type_alias(exp), show(exp))
    return None


# --- the runner -------------------------------------------------------------

def version(s):
    parts = [int(x) for x in s.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def requirements_met(reqs):
    """runOnRequirements: met when any one entry is (None), else a reason."""
    if not reqs:
        return None
    reasons = []
    for r in reqs:
        why = None
        for k, v in r.items():
            if k == "minServerVersion" and SERVER_VERSION < version(v):
                why = "needs MongoDB >= %s" % v
            elif k == "maxServerVersion" and SERVER_VERSION > version(v):
                why = "written for MongoDB before %d.%d only (docext follows current MongoDB)" \
                    % SERVER_VERSION[:2]
            elif k == "serverless" and v == "require":
                why = "needs a serverless deployment"
            elif k not in ("minServerVersion", "maxServerVersion", "serverless"):
                why = "requirement %s" % k
        if why is None:
            return None
        reasons.append(why)
    return "server version: " + reasons[0]


def qname(name):
    return '"' + name.replace('"', '""') + '"'


def arg(v):
    """A document argument: the test's own Extended JSON, as TEXT."""
    return None if v is None else json.dumps(v)


class TestRun(object):
    """One test on a fresh in-memory database."""

    def __init__(self, entities, initial):
        self.db = sqlite3.connect(":memory:", isolation_level=None)
        self.db.enable_load_extension(True)
        self.db.load_extension(EXTENSION)
        self.tables = {}          # entity id -> collection name
        self.databases = {}       # collection name -> database entity id
        for coll in entities:
            self.create(coll["collectionName"], coll["database"])
            self.tables[coll["id"]] = coll["collectionName"]
        for data in initial:
            self.create(data["collectionName"], None)
            for d in data["documents"]:
                self.sql("INSERT INTO %s(doc) VALUES (?)" % qname(data["collectionName"]),
                         (arg(d),))

    def create(self, name, database):
        # All collections live in `main`: the files use one database each.
        if database is not None and self.databases.setdefault(name, database) != database:
            raise ValueError("collection %s in two databases" % name)
        if not self.sql("SELECT 1 FROM sqlite_schema WHERE name = ?", (name,)):
            self.sql("CREATE VIRTUAL TABLE %s USING docext" % qname(name))

    def close(self):
        self.db.close()

    def sql(self, query, params=()):
        try:
            return self.db.execute(query, params).fetchall()
        except sqlite3.Error as e:
            raise DocextError(str(e))

    def value(self, query, params=()):
        rows = self.sql(query, params)
        return rows[0][0] if rows else None

    def docs(self, query, params=()):
        return [ejson(json.loads(r[0])) for r in self.sql(query, params)]

    # -- reads --

    def find(self, coll, a, single=False):
        known = ("filter", "sort", "projection", "skip", "limit", "hint", "let", "batchSize")
        opts = {}
        for k in a:
            if k not in known:
                raise ValueError("find: unsupported argument %s" % k)
        for k in ("skip", "limit", "hint", "let"):
            if k in a:
                opts[k] = a[k]
        if single:
            opts["limit"] = 1
        # batchSize only shapes the driver's getMore round trips.
        rows = self.docs("SELECT doc_json(bson, 'canonical') FROM %s(?, ?, ?, ?)" % qname(coll),
                         (arg(a.get("filter", {})), arg(a.get("projection")),
                          arg(a.get("sort")), arg(opts or None)))
        # The same query in the hidden-column form, skip and limit as SQL's
        # OFFSET and LIMIT (MongoDB: limit 0 is none, a negative one is its
        # absolute value), must give the same documents in the same order.
        where, params = ["filter = ?"], [arg(a.get("filter", {}))]
        for k in ("projection", "sort"):
            if a.get(k) is not None:
                where.append("%s = ?" % k)
                params.append(arg(a[k]))
        hidden = {k: a[k] for k in ("hint", "let") if k in a}
        if hidden:
            where.append("options = ?")
            params.append(arg(hidden))
        limit = abs(opts.get("limit", 0)) or -1
        again = self.docs("SELECT doc_json(bson, 'canonical') FROM %s WHERE %s LIMIT ? OFFSET ?"
                          % (qname(coll), " AND ".join(where)),
                          params + [limit, opts.get("skip", 0)])
        if match(rows, again, "hidden-column form", False, strict=True):
            raise Mismatch("%s(filter, projection, sort, options) gave %s; the hidden-column "
                           "form with LIMIT/OFFSET gave %s" % (coll, show(rows), show(again)))
        if single:
            return rows[0] if rows else None
        return rows

    def aggregate(self, coll, a):
        known = ("pipeline", "let", "hint", "comment", "batchSize", "allowDiskUse")
        for k in a:
            if k not in known:
                raise ValueError("aggregate: unsupported argument %s" % k)
        opts = {k: a[k] for k in known[1:] if k in a}
        return self.docs("SELECT doc_json(bson, 'canonical') FROM doc_aggregate(?, ?, ?)",
                         (coll, json.dumps(a["pipeline"]), arg(opts or None)))

    def count_documents(self, coll, a):
        opts = {k: a[k] for k in ("skip", "limit", "hint", "let") if k in a}
        n = self.value("SELECT count(*) FROM %s(?, NULL, NULL, ?)" % qname(coll),
                       (arg(a.get("filter", {})), arg(opts or None)))
        if "skip" not in a and "limit" not in a and "let" not in a:
            m = self.value("SELECT doc_count(?, ?)", (coll, arg(a.get("filter", {}))))
            if m != n:
                raise Mismatch("doc_count says %r, count(*) says %r" % (m, n))
        return Num(n, "long")

    def count(self, coll, a):
        n = self.value("SELECT count(*) FROM (SELECT 1 FROM %s(?) LIMIT ? OFFSET ?)" % qname(coll),
                       (arg(a.get("filter", {})), abs(a.get("limit", 0)) or -1, a.get("skip", 0)))
        return Num(n, "long")

    def distinct(self, coll, a):
        for k in a:
            if k not in ("fieldName", "filter", "hint", "let"):
                raise ValueError("distinct: unsupported argument %s" % k)
        opts = {k: a[k] for k in ("hint", "let") if k in a} or None
        text = self.value("SELECT doc_distinct(?, ?, ?, ?)",
                          (coll, a["fieldName"], arg(a.get("filter", {})), arg(opts)))
        return ejson(json.loads(text))

    def estimated_count(self, coll, a):
        n = self.value("SELECT doc_count(?)", (coll,))
        m = self.value("SELECT count(*) FROM %s" % qname(coll))
        if m != n:
            raise Mismatch("doc_count says %r, count(*) says %r" % (n, m))
        return Num(n, "long")

    # -- writes; each returns MongoDB's result fields --

    def insert(self, coll, doc):
        self.sql("INSERT INTO %s(doc) VALUES (?)" % qname(coll), (arg(doc),))
        if "_id" in doc:
            return ejson(doc["_id"])
        # docext gave it a new ObjectId: read it back by rowid.
        rowid = self.value("SELECT last_insert_rowid()")
        got = self.docs("SELECT doc_json(bson, 'canonical') FROM %s WHERE rowid = ?" % qname(coll),
                        (rowid,))
        return got[0]["_id"]

    def update(self, coll, a, many, replacement):
        options = {}
        for k in a:
            if k in ("upsert", "arrayFilters", "hint", "sort", "let"):
                options[k] = a[k]
            elif k not in ("filter", "update", "replacement"):
                raise ValueError("update: unsupported argument %s" % k)
        u = a["replacement"] if replacement else a["update"]
        fn = "doc_update_many" if many else "doc_update_one"
        text = self.value("SELECT %s(?, ?, ?, ?)" % fn,
                          (coll, arg(a["filter"]), arg(u), arg(options or None)))
        r = ejson(json.loads(text))
        res = {"matchedCount": r["matchedCount"], "modifiedCount": r["modifiedCount"]}
        # upsertedCount tells an upserted null _id from none
        upserted = r["upsertedCount"].v == 1
        res["upsertedCount"] = Num(1 if upserted else 0, "int")
        if upserted:
            res["upsertedId"] = r["upsertedId"]
        return res

    def delete(self, coll, a, many):
        for k in a:
            if k not in ("filter", "hint", "let"):
                raise ValueError("delete: unsupported argument %s" % k)
        fn = "doc_delete_many" if many else "doc_delete_one"
        opts = {k: a[k] for k in ("hint", "let") if k in a}
        if opts:
            n = self.value("SELECT %s(?, ?, ?)" % fn, (coll, arg(a["filter"]), arg(opts)))
        else:
            n = self.value("SELECT %s(?, ?)" % fn, (coll, arg(a["filter"])))
        return {"deletedCount": Num(n, "int")}

    def find_and_modify(self, coll, a, kind):
        spec = {"query": a.get("filter", {})}
        for k, v in a.items():
            if k == "sort":
                spec["sort"] = v
            elif k == "projection":
                spec["fields"] = v
            elif k in ("upsert", "arrayFilters", "hint", "let"):
                spec[k] = v
            elif k == "returnDocument":
                if v.lower() not in ("before", "after"):
                    raise ValueError("returnDocument %r" % v)
                spec["new"] = v.lower() == "after"
            elif k in ("update", "replacement"):
                spec["update"] = v
            elif k != "filter":
                raise ValueError("%s: unsupported argument %s" % (kind, k))
        if kind == "findOneAndDelete":
            spec["remove"] = True
        text = self.value("SELECT doc_json(doc_find_and_modify(?, ?), 'canonical')",
                          (coll, arg(spec)))
        return None if text is None else ejson(json.loads(text))

    def insert_many(self, coll, a):
        requests = [{"insertOne": {"document": d}} for d in a["documents"]]
        r = self.bulk(coll, requests, a.get("ordered", True))
        return {"insertedIds": r["insertedIds"]}

    def bulk(self, coll, requests, ordered):
        """The parts one by one in a transaction; stops at the first error
        when ordered. An error raises DocextError with the partial result."""
        res = {"insertedCount": 0, "matchedCount": 0, "modifiedCount": 0,
               "deletedCount": 0, "upsertedCount": 0, "insertedIds": {}, "upsertedIds": {}}
        errors = []
        self.sql("BEGIN")
        try:
            for i, req in enumerate(requests):
                (kind, a), = req.items()
                try:
                    if kind == "insertOne":
                        res["insertedIds"][str(i)] = self.insert(coll, a["document"])
                        res["insertedCount"] += 1
                    elif kind in ("updateOne", "updateMany", "replaceOne"):
                        r = self.update(coll, a, kind == "updateMany", kind == "replaceOne")
                        res["matchedCount"] += r["matchedCount"].v
                        res["modifiedCount"] += r["modifiedCount"].v
                        if r["upsertedCount"].v:
                            res["upsertedCount"] += 1
                            res["upsertedIds"][str(i)] = r["upsertedId"]
                    elif kind in ("deleteOne", "deleteMany"):
                        res["deletedCount"] += self.delete(coll, a, kind == "deleteMany")["deletedCount"].v
                    else:
                        raise ValueError("bulkWrite: unsupported request %s" % kind)
                except DocextError as e:
                    errors.append("request %d: %s" % (i, e))
                    if ordered:
                        break
        finally:
            self.sql("COMMIT")
        for k in ("insertedCount", "matchedCount", "modifiedCount", "deletedCount", "upsertedCount"):
            res[k] = Num(res[k], "int")
        if errors:
            raise DocextError("; ".join(errors), res)
        return res

    def operation(self, op):
        name, a = op["name"], op.get("arguments", {})
        coll = self.tables[op["object"]]
        if name == "find":
            return self.find(coll, a)
        if name == "findOne":
            return self.find(coll, a, single=True)
        if name == "aggregate":
            return self.aggregate(coll, a)
        if name == "countDocuments":
            return self.count_documents(coll, a)
        if name == "count":
            return self.count(coll, a)
        if name == "distinct":
            return self.distinct(coll, a)
        if name == "estimatedDocumentCount":
            return self.estimated_count(coll, a)
        if name == "insertOne":
            return {"insertedId": self.insert(coll, a["document"])}
        if name == "insertMany":
            return self.insert_many(coll, a)
        if name in ("updateOne", "updateMany", "replaceOne"):
            return self.update(coll, a, name == "updateMany", name == "replaceOne")
        if name in ("deleteOne", "deleteMany"):
            return self.delete(coll, a, name == "deleteMany")
        if name in ("findOneAndUpdate", "findOneAndReplace", "findOneAndDelete"):
            return self.find_and_modify(coll, a, name)
        if name == "bulkWrite":
            requests = a["requests"]
            if "let" in a:
                # bulkWrite's let applies to each of its writes
                requests = [{kind: dict(r, let=a["let"]) for kind, r in req.items()}
                            for req in requests]
            return self.bulk(coll, requests, a.get("ordered", True))
        raise ValueError("unsupported operation %s" % name)

    def contents(self, coll):
        return self.docs("SELECT doc_json(bson, 'canonical') FROM %s(NULL, NULL, '{\"_id\": 1}')"
                         % qname(coll))


def skip_reason(fname, test):
    """Why this test is not run, or None."""
    why = requirements_met(test.get("runOnRequirements"))
    if why:
        return why
    if (fname, test["description"]) in SKIP_TESTS:
        return SKIP_TESTS[(fname, test["description"])]
    for op in test["operations"]:
        if op["name"] in SKIP_OPERATIONS:
            return SKIP_OPERATIONS[op["name"]]
        for stage in op.get("arguments", {}).get("pipeline", []) if op["name"] == "aggregate" else []:
            for k in SKIP_WRITING_STAGES:
                if k in stage:
                    return "%s: doc_aggregate only reads" % k
        a = op.get("arguments", {})
        parts = [a] + [list(r.values())[0] for r in a.get("requests", [])]
        for p in parts:
            for k in SKIP_ARGUMENTS:
                if k in p:
                    return SKIP_ARGUMENTS[k]
    return None


def check_error(exp, err):
    """None if the docext error err satisfies expectError exp."""
    for k, v in exp.items():
        if k == "isError":
            pass
        elif k == "isClientError":
            # docext runs in-process: its argument validation (the client's
            # job in the spec) and its refusals (the server's) are one layer,
            # so either expectation accepts a docext error.
            pass
        elif k == "errorContains":
            if v.lower() not in str(err).lower():
                return "error %r does not contain %r" % (str(err), v)
        elif k == "expectResult":
            if err.result is None:
                return "error %r carries no result, expected %s" % (str(err), show(ejson(v)))
            msg = match(ejson(v), err.result, "error result", True)
            if msg:
                return msg
        else:
            raise ValueError("unsupported expectError field %s" % k)
    return None


def run_test(fname, doc, test):
    """None if the test passes, else a message."""
    entities = [e["collection"] for e in doc.get("createEntities", []) if "collection" in e]
    initial = doc.get("initialData", [])
    operations = test["operations"]
    outcome = test.get("outcome")
    refused = None
    if fname.endswith("-dots_and_dollars.json") and test["description"] in DOTS_AND_DOLLARS_REFUSED:
        # Expect docext's refusal instead, and nothing changed.
        refused = DOTS_AND_DOLLARS_REFUSED[test["description"]]
        assert len(operations) == 1
        operations = [dict(operations[0])]
        operations[0].pop("expectResult", None)
        operations[0]["expectError"] = {"errorContains": refused}
        outcome = [d for d in initial if d["collectionName"] in
                   {c["collectionName"] for c in outcome or []}]
    run = TestRun(entities, initial)
    try:
        for i, op in enumerate(operations):
            where = "operation %d (%s)" % (i, op["name"])
            try:
                result = run.operation(op)
            except DocextError as e:
                if "expectError" not in op:
                    return "%s: %s" % (where, e)
                msg = check_error(op["expectError"], e)
                if msg:
                    return "%s: %s" % (where, msg)
                continue
            except Mismatch as e:
                return "%s: %s" % (where, e)
            if "expectError" in op:
                return "%s: succeeded with %s, expected an error %s" % (
                    where, show(result), json.dumps(op["expectError"]))
            if "expectResult" in op:
                msg = match(ejson(op["expectResult"]), result, "result", True)
                if msg:
                    return "%s: %s" % (where, msg)
        for data in outcome or []:
            coll = data["collectionName"]
            got = run.contents(coll)
            want = ejson(data["documents"])
            msg = match(want, got, "outcome " + coll, False, strict=True)
            if msg:
                return msg
        for coll in set(run.tables.values()) | {d["collectionName"] for d in initial}:
            check = run.value("SELECT doc_check(?)", (coll,))
            if check != "ok":
                return "doc_check(%r): %s" % (coll, check)
        return None
    finally:
        run.close()


def main(argv):
    if not os.path.isdir(TESTS):
        print("skipped: %s is absent (MongoDB's CRUD spec tests are read from ../shared, "
              "never copied here)" % os.path.normpath(TESTS))
        print("0 passed, 0 failed")
        return 0
    files = sorted(glob.glob(os.path.join(TESTS, "core", "*.json"))) + \
        sorted(glob.glob(os.path.join(TESTS, "extended", "*.json")))
    if argv:
        files = [f for f in files if any(p in f for p in argv)]
    passed = failed = skipped = 0
    reasons = {}
    for path in files:
        rel = os.path.relpath(path, TESTS)
        fname = os.path.basename(path)
        with open(path) as f:
            doc = json.load(f)
        fp = ff = fs = 0
        lines = []
        file_skip = requirements_met(doc.get("runOnRequirements"))
        for test in doc["tests"]:
            why = file_skip or skip_reason(fname, test)
            if why:
                fs += 1
                reasons[why] = reasons.get(why, 0) + 1
                if VERBOSE:
                    lines.append("    skip %s: %s" % (test["description"], why))
                continue
            try:
                msg = run_test(fname, doc, test)
            except Exception as e:    # a runner bug: show it, count it
                msg = "runner error: %s: %s" % (type(e).__name__, e)
            if msg:
                ff += 1
                lines.append("    FAIL %s: %s" % (test["description"], msg))
            else:
                fp += 1
        passed, failed, skipped = passed + fp, failed + ff, skipped + fs
        print("%s %s (%d passed, %d failed, %d skipped)" % ("ok  " if ff == 0 else "FAIL", rel, fp, ff, fs))
        for line in lines:
            print(line)
    for why, n in sorted(reasons.items(), key=lambda x: (-x[1], x[0])):
        print("  %3d skipped: %s" % (n, why))
    print("%d skipped" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
