#!/usr/bin/python3
"""test_crud.py - MongoDB's CRUD specification tests for the write commands.

Runs the write tests of ../shared/crud-tests/unified (the drivers' "unified
test format" files for updateOne, updateMany, replaceOne, deleteOne,
deleteMany, findOneAndUpdate, findOneAndReplace, findOneAndDelete,
insertOne, insertMany and bulkWrite, with the finds some of them use to
look) through docext's commands
(INTERFACE.md section 5), one fresh collection per test:

  updateOne / replaceOne    doc_update_one(coll, filter, update, options)
  updateMany                doc_update_many(coll, filter, update, options)
  deleteOne / deleteMany    doc_delete_one / doc_delete_many(coll, filter)
  findOneAnd{Update,Replace,Delete}
                            doc_find_and_modify(coll, {query, sort, update |
                            remove, new, fields, upsert, arrayFilters})
  insertOne / insertMany    INSERT INTO coll(doc) VALUES (...)
  bulkWrite                 its requests one by one (ordered: the first
                            error stops it, earlier writes stay)
  find / findOne            SELECT ... FROM coll(filter, projection, sort,
                            {skip, limit, hint})

and checks each operation's expectResult (a root-level match: extra fields
allowed at the top, numbers equal across int32, int64 and double, the
$$unsetOrMatches, $$exists and $$type operators), expectError (an error
must happen; messages are docext's own), and the outcome (the collection's
documents, sorted by _id, exactly).

A test is skipped, with its reason counted, when it needs what docext does
not take or INTERFACE.md rules out: pipeline updates, let, collation,
comment, reads other than find, hint on a delete or on findOneAnd* (those commands take no hint),
$-prefixed or dotted stored field names (INTERFACE.md section 2 forbids
them; MongoDB 5.0 allows some), a bulkWrite's verbose results, and the
client-side argument checks a driver does before sending (an update without
operators for updateOne: docext's doc_update_one accepts a replacement, as
MongoDB's legacy update() did), and how servers older than a feature
behave (tests with a maxServerVersion).

Run by test/run.sh with /usr/bin/python3 from the repository root; prints
one line per failure and ends with "N passed, M failed". Without
../shared/crud-tests it says so and reports nothing run.
"""

import glob
import json
import os
import sqlite3
import sys

try:
    from bson import json_util
    from bson.int64 import Int64
    from bson.decimal128 import Decimal128
    from bson.objectid import ObjectId
except ImportError as e:
    print("skip: python-bson is not importable (%s); tools/deps.sh installs "
          "python3-bson" % e)
    print("0 passed, 0 failed")
    sys.exit(0)

CRUD_DIR = os.environ.get("CRUD_DIR", "../shared/crud-tests/unified")
WRITE_OPS = {"updateOne", "updateMany", "replaceOne", "deleteOne", "deleteMany",
             "findOneAndUpdate", "findOneAndReplace", "findOneAndDelete",
             "insertOne", "insertMany", "bulkWrite"}
READ_OPS = {"countDocuments", "count", "distinct", "aggregate",
            "estimatedDocumentCount"}


class Skip(Exception):
    pass


def ejson(v):
    """A value as Extended JSON text docext reads."""
    return json.dumps(v)


def load(v):
    """Extended JSON (a parsed JSON value) as python-bson values."""
    return json_util.loads(json.dumps(v))


def is_num(v):
    return isinstance(v, (int, float, Decimal128)) and not isinstance(v, bool)


def num(v):
    return float(v.to_decimal()) if isinstance(v, Decimal128) else v


def match(exp, act, root=False, present=True):
    """Does the actual value act (present=False: missing) match the expected
    value exp under the unified format's rules?"""
    if isinstance(exp, dict) and len(exp) == 1 and next(iter(exp)).startswith("$$"):
        op, arg = next(iter(exp.items()))
        if op == "$$unsetOrMatches":
            return not present or match(arg, act, root)
        if op == "$$exists":
            return present == bool(arg)
        if op == "$$type":
            types = arg if isinstance(arg, list) else [arg]
            want = {"int": int, "long": int, "double": float, "string": str,
                    "object": dict, "array": list, "bool": bool, "objectId": ObjectId}
            return present and any(isinstance(act, want.get(t, ())) for t in types)
        raise Skip("matcher " + op)
    if not present:
        return False
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            return False
        for k, v in exp.items():
            if not match(v, act.get(k), False, k in act):
                return False
        return root or set(act) <= set(exp)
    if isinstance(exp, list):
        return isinstance(act, list) and len(exp) == len(act) and all(
            match(e, a) for e, a in zip(exp, act))
    if is_num(exp) and is_num(act):
        return num(exp) == num(act)
    if isinstance(exp, bool) or isinstance(act, bool):
        return type(exp) == type(act) and exp == act
    return exp == act


class Runner:
    def __init__(self, so):
        self.so = so

    def open(self, initial):
        self.db = sqlite3.connect(":memory:", isolation_level=None)
        self.db.enable_load_extension(True)
        self.db.load_extension(self.so)
        self.colls = set()
        for data in initial:
            self.create(data["collectionName"])
            for d in data.get("documents", []):
                self.db.execute("INSERT INTO %s(doc) VALUES (?)" % data["collectionName"],
                                (ejson(d),))

    def create(self, name):
        if name not in self.colls:
            self.db.execute("CREATE VIRTUAL TABLE %s USING docext" % name)
            self.colls.add(name)

    def call(self, sql, args):
        return self.db.execute(sql, args).fetchone()[0]

    def docs(self, name):
        rows = self.db.execute("SELECT doc_json(bson, 'canonical') FROM %s" % name).fetchall()
        out = [json_util.loads(r[0]) for r in rows]
        return sorted(out, key=lambda d: json.dumps(json_util.dumps(d.get("_id"))))

    # --- operations: each returns the result to check against expectResult

    def update(self, coll, a, many, replace):
        opts = {}
        for k in ("upsert", "arrayFilters", "hint", "sort"):
            if k in a:
                opts[k] = a[k]
        upd = a["replacement"] if replace else a["update"]
        if isinstance(upd, list):
            raise Skip("pipeline update")
        if not replace and not any(k.startswith("$") for k in upd):
            raise Skip("client-side check: update without operators")
        if replace and any(k.startswith("$") for k in upd):
            raise Skip("client-side check: replacement with operators")
        r = json.loads(self.call("SELECT doc_update_%s(?, ?, ?, ?)" % ("many" if many else "one"),
                                 (coll, ejson(a["filter"]), ejson(upd),
                                  ejson(opts) if opts else None)))
        up = r["upsertedId"]
        res = {"matchedCount": r["matchedCount"], "modifiedCount": r["modifiedCount"],
               "upsertedCount": 0 if up is None else 1}
        if up is not None:
            res["upsertedId"] = load(up)
        return res

    def delete(self, coll, a, many):
        if "hint" in a:
            raise Skip("hint on a delete")
        n = self.call("SELECT doc_delete_%s(?, ?)" % ("many" if many else "one"),
                      (coll, ejson(a["filter"])))
        return {"deletedCount": n}

    def find_and_modify(self, coll, a, kind):
        if "hint" in a:
            raise Skip("hint on findOneAnd*")
        spec = {"query": a.get("filter", {})}
        for src, dst in (("sort", "sort"), ("projection", "fields"), ("upsert", "upsert"),
                         ("arrayFilters", "arrayFilters")):
            if src in a:
                spec[dst] = a[src]
        if kind == "delete":
            spec["remove"] = True
        else:
            upd = a["update"] if kind == "update" else a["replacement"]
            if isinstance(upd, list):
                raise Skip("pipeline update")
            if kind == "update" and not any(k.startswith("$") for k in upd):
                raise Skip("client-side check: update without operators")
            spec["update"] = upd
            spec["new"] = a.get("returnDocument", "Before") == "After"
        r = self.call("SELECT doc_json(doc_bson(doc_find_and_modify(?, ?)), 'canonical')",
                      (coll, ejson(spec)))
        return None if r is None else json_util.loads(r)

    def insert(self, coll, docs, ordered=True):
        ids, err = {}, None
        for i, d in enumerate(docs):
            try:
                self.db.execute("INSERT INTO %s(doc) VALUES (?)" % coll, (ejson(d),))
            except sqlite3.Error as e:
                if ordered:
                    raise
                err = err or e
                continue
            if "_id" in d:
                ids[str(i)] = load(d["_id"])
        if err:
            raise err
        return ids

    def bulk(self, coll, a):
        if a.get("verboseResults"):
            raise Skip("verbose bulkWrite results")
        res = {"insertedCount": 0, "matchedCount": 0, "modifiedCount": 0,
               "deletedCount": 0, "upsertedCount": 0, "upsertedIds": {}}
        ordered = a.get("ordered", True)
        err = None
        for i, req in enumerate(a["requests"]):
            try:
                self.bulk_one(coll, i, req, res)
            except sqlite3.Error as e:
                if ordered:
                    raise
                err = err or e
        if err:
            raise err
        return res

    def bulk_one(self, coll, i, req, res):
        (kind, r), = req.items()
        if kind == "insertOne":
            self.insert(coll, [r["document"]])
            res["insertedCount"] += 1
        elif kind in ("updateOne", "updateMany", "replaceOne"):
            x = self.update(coll, r, kind == "updateMany", kind == "replaceOne")
            res["matchedCount"] += x["matchedCount"]
            res["modifiedCount"] += x["modifiedCount"]
            res["upsertedCount"] += x["upsertedCount"]
            if "upsertedId" in x:
                res["upsertedIds"][str(i)] = x["upsertedId"]
        elif kind in ("deleteOne", "deleteMany"):
            res["deletedCount"] += self.delete(coll, r, kind == "deleteMany")["deletedCount"]
        else:
            raise Skip("bulkWrite request " + kind)

    def find(self, coll, a, one):
        opts = {k: a[k] for k in ("skip", "limit", "hint") if k in a}
        if one:
            opts["limit"] = 1
        rows = self.db.execute(
            "SELECT doc_json(bson, 'canonical') FROM %s(?, ?, ?, ?)" % coll,
            (ejson(a.get("filter", {})), ejson(a["projection"]) if "projection" in a else None,
             ejson(a["sort"]) if "sort" in a else None, ejson(opts) if opts else None)).fetchall()
        docs = [json_util.loads(r[0]) for r in rows]
        return (docs[0] if docs else None) if one else docs

    def run_op(self, coll, op):
        name, a = op["name"], op.get("arguments", {})
        for k in ("let", "collation", "comment", "bypassDocumentValidation"):
            if k in a:
                raise Skip(k)
        if name in ("updateOne", "updateMany", "replaceOne"):
            return self.update(coll, a, name == "updateMany", name == "replaceOne")
        if name in ("deleteOne", "deleteMany"):
            return self.delete(coll, a, name == "deleteMany")
        if name.startswith("findOneAnd"):
            return self.find_and_modify(coll, a, name[len("findOneAnd"):].lower())
        if name == "insertOne":
            self.insert(coll, [a["document"]])
            return {"insertedId": load(a["document"].get("_id"))}
        if name == "insertMany":
            return {"insertedIds": self.insert(coll, a["documents"], a.get("ordered", True))}
        if name == "bulkWrite":
            return self.bulk(coll, a)
        if name in ("find", "findOne"):
            for k in a:
                if k not in ("filter", "projection", "sort", "skip", "limit", "hint", "batchSize"):
                    raise Skip("find option " + k)
            return self.find(coll, a, name == "findOne")
        raise Skip("operation " + name)


def main():
    if not os.path.isdir(CRUD_DIR):
        print("skip: %s is absent (the CRUD specification tests live in ../shared)" % CRUD_DIR)
        print("0 passed, 0 failed")
        return 0
    so = os.environ.get("DOCEXT_SO", "./docext")
    verbose = "-v" in sys.argv
    passed = failed = 0
    skipped = {}
    for path in sorted(glob.glob(os.path.join(CRUD_DIR, "*", "*.json"))):
        spec = json.load(open(path))
        colls = {e["collection"]["id"]: e["collection"]["collectionName"]
                 for e in spec.get("createEntities", []) if "collection" in e}
        for test in spec["tests"]:
            where = "%s: %s" % (os.path.relpath(path, CRUD_DIR), test["description"])
            ops = test["operations"]
            names = {o["name"] for o in ops}
            if not names & WRITE_OPS:
                continue
            try:
                if "dots_and_dollars" in path:
                    raise Skip("$-prefixed or dotted field names (INTERFACE.md section 2)")
                if names & READ_OPS or names - WRITE_OPS - {"find", "findOne"}:
                    raise Skip("a read operation other than find in a write test")
                reqs = test.get("runOnRequirements", []) + spec.get("runOnRequirements", [])
                if any("maxServerVersion" in q for q in reqs):
                    raise Skip("how older servers behave")
                r = Runner(so)
                r.open(spec.get("initialData", []))
                problems = []
                for op in ops:
                    coll = colls.get(op["object"])
                    if coll is None:
                        raise Skip("operation on " + op["object"])
                    r.create(coll)
                    try:
                        got = r.run_op(coll, op)
                        err = None
                    except sqlite3.Error as e:
                        got, err = None, str(e)
                    if "expectError" in op:
                        if err is None:
                            problems.append("%s: expected an error, got %r" % (op["name"], got))
                    elif err is not None:
                        problems.append("%s: error %s" % (op["name"], err))
                    elif "expectResult" in op:
                        exp = load(op["expectResult"])
                        if not match(exp, got, root=True):
                            problems.append("%s: result %r, expected %r" % (op["name"], got, exp))
                for oc in test.get("outcome", []):
                    exp = [load(d) for d in oc["documents"]]
                    got = r.docs(oc["collectionName"]) if oc["collectionName"] in r.colls else []
                    if len(exp) != len(got) or not all(match(e, g) for e, g in zip(exp, got)):
                        problems.append("outcome %r, expected %r" % (got, exp))
            except Skip as s:
                skipped[str(s)] = skipped.get(str(s), 0) + 1
                if verbose:
                    print("skip %s (%s)" % (where, s))
                continue
            if problems:
                failed += 1
                print("FAIL %s" % where)
                for p in problems:
                    print("    " + p)
            else:
                passed += 1
    for why, n in sorted(skipped.items()):
        print("skipped %d: %s" % (n, why))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
