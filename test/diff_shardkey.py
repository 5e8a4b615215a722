#!/usr/bin/python3
"""test/diff_shardkey.py — checks doc_analyze_shard_key against the
collection it analyzes: the routing it simulates must never lose a
document, and its counts must be the collection's.

    make && /usr/bin/python3 test/diff_shardkey.py [CASES] [SEED] [-v]
    (test/diff_shardkey.sh runs it; test/run.sh runs test/diff_*.sh)

Loads ./docext.so (or $DOCEXT_SO without the suffix). One collection of
random documents from test/diff_index.py's generator (mixed types, missing
fields, documents), with some replaced and deleted so document ids are not
dense. Each case picks a shard key over fields that never hold an array
(ranged, compound, hashed, compound with a hashed field), a shard count
and a chunk size, and random filters from the same generator (the ones
doc_count accepts), each asked as {filter, limit} with a limit above the
collection's size so its locality run returns every match. Then:
  - targeting is sound: every shard holding a matching document is among
    the shards the query is routed to (resultShards within targetedShards),
    and docsReturned is doc_count's count;
  - the kinds agree with the shard lists: singleShard at most one shard,
    multiShard more, scatterGather every shard; an equality to a scalar
    other than null (which asks for undefined too) on every key field is
    singleShard;
  - readsByShard counts the queries routed to each shard; the percentages
    add up to 100;
  - numDocs is the collection's count, numDistinctValues at most that
    (isUnique when equal), each mostCommonValues frequency is the count of
    documents equal to that value on every key field (doc_count, when the
    values can be asked for by equality; at least that many for a key with
    a hashed field, whose numbers hash as int64s), in descending order;
  - chunk counts are consistent (jumbo chunks no more than chunks; the
    inserts replayed are the later half of the documents);
  - a key over a path that meets an array in some document (the value, or
    a value on the way to it) is refused with a message naming the field,
    and accepted otherwise.
The last line is "N passed, M failed"; the exit status is non-zero if M > 0.
"""
import json
import os
import random
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diff_index  # noqa: E402  (the document and filter generators)

SO = os.environ.get("DOCEXT_SO", "./docext")

# Fields of diff_index.document() that never hold an array.
KEYS = [
    {"a": 1}, {"s": 1}, {"n": 1}, {"u": 1}, {"_id": 1}, {"h.q": 1},
    {"s": 1, "n": 1}, {"a": 1, "_id": 1}, {"h.q": 1, "a": 1, "s": 1},
    {"_id": "hashed"}, {"n": "hashed"}, {"s": "hashed"},
    {"s": 1, "a": "hashed"}, {"a": "hashed", "n": 1},
]


def plain_value(v):
    """Can {path: v} ask for exactly the documents whose value equals v?"""
    if isinstance(v, dict):
        if any(k in v for k in ("$regularExpression", "$undefined")):
            return False
        return all(plain_value(x) for x in v.values())
    if isinstance(v, list):
        return False
    return True


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    ncases = int(args[0]) if args else int(os.environ.get("DIFF_CASES", "300"))
    seed = int(args[1]) if len(args) > 1 else int(os.environ.get("DIFF_SEED", "20261126"))
    rnd = random.Random(seed)
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(SO)
    db.execute("CREATE VIRTUAL TABLE c USING docext")
    ndoc = 300
    for i in range(1, ndoc + 1):
        db.execute("INSERT INTO c(doc) VALUES (?)", (json.dumps(diff_index.document(rnd, i)),))
    for i in rnd.sample(range(1, ndoc + 1), 40):
        db.execute("DELETE FROM c WHERE rowid = (SELECT rowid FROM c LIMIT 1 OFFSET ?)",
                   (rnd.randrange(ndoc - 40),))
    count = db.execute("SELECT count(*) FROM c").fetchone()[0]
    passed = failed = 0

    def fail(case, what):
        nonlocal failed
        failed += 1
        if failed <= 20:
            print(f"FAIL {case}: {what}")

    for case in range(ncases):
        key = rnd.choice(KEYS)
        shards = rnd.choice([1, 2, 3, 4, 7])
        chunk = rnd.choice([None, 1, 300, 2000, 10000])
        queries = []
        while len(queries) < 12:
            f = diff_index.filt(rnd)
            if rnd.random() < 0.3:
                # an equality on every key field (hashed ones too)
                f = {k: diff_index.scalar(rnd) for k in key}
            try:
                n = db.execute("SELECT doc_count('c', ?)", (json.dumps(f),)).fetchone()[0]
            except sqlite3.Error:
                continue
            queries.append((f, n))
        opts = {"shards": shards, "queries": [{"filter": f, "limit": 1000000} for f, _ in queries]}
        if chunk:
            opts["chunkSize"] = chunk
        label = f"case {case} key {json.dumps(key)} opts {json.dumps({k: v for k, v in opts.items() if k != 'queries'})}"
        try:
            rep = json.loads(db.execute("SELECT doc_analyze_shard_key('c', ?, ?)",
                                        (json.dumps(key), json.dumps(opts))).fetchone()[0])
        except sqlite3.Error as e:
            fail(label, f"error {e}")
            continue
        ok = True

        def check(cond, what):
            nonlocal ok
            if not cond:
                ok = False
                fail(label, what)

        kc = rep["keyCharacteristics"]
        check(kc["numDocs"] == count, f"numDocs {kc['numDocs']} != {count}")
        check(kc["numDistinctValues"] <= count, "more distinct values than documents")
        check(kc["isUnique"] == (count > 0 and kc["numDistinctValues"] == count), "isUnique")
        freqs = [m["frequency"] for m in kc["mostCommonValues"]]
        check(freqs == sorted(freqs, reverse=True), f"mostCommonValues not descending: {freqs}")
        hashed = "hashed" in key.values()
        for m in kc["mostCommonValues"]:
            v = m["value"]
            if all(plain_value(x) for x in v.values()):
                # null as a key is null or missing, not undefined (which
                # {f: null} matches too)
                f = {k: ({"$in": [None], "$not": {"$type": 6}} if x is None else x) for k, x in v.items()}
                n = db.execute("SELECT doc_count('c', ?)", (json.dumps(f),)).fetchone()[0]
                # a hashed field's numbers hash as int64s: 0, 0.5 and NaN share a key
                check(n <= m["frequency"] if hashed else n == m["frequency"],
                      f"value {json.dumps(v)}: frequency {m['frequency']}, doc_count {n}")
        j = kc["jumbo"]
        check(j["numJumboChunks"] <= j["numChunks"], "more jumbo chunks than chunks")
        wd = rep["writeDistribution"]
        check(wd["sampleSize"] == count - count // 2 and sum(wd["insertsByShard"]) == wd["sampleSize"],
              f"writeDistribution {wd}")
        check(len(wd["insertsByShard"]) == shards, "insertsByShard length")
        reads = [0] * shards
        kinds = {"singleShard": 0, "multiShard": 0, "scatterGather": 0}
        for q, (f, n) in zip(rep["queries"], queries):
            t, r = q["targetedShards"], q["resultShards"]
            kinds[q["targeting"]] += 1
            for s in t:
                reads[s] += 1
            check(set(r) <= set(t), f"filter {json.dumps(f)}: results on shards {r}, routed to {t}")
            check(q["docsReturned"] == n, f"filter {json.dumps(f)}: {q['docsReturned']} returned, doc_count {n}")
            if q["targeting"] == "singleShard":
                check(len(t) <= 1, f"filter {json.dumps(f)}: singleShard to {t}")
            elif q["targeting"] == "multiShard":
                check(len(t) > 1, f"filter {json.dumps(f)}: multiShard to {t}")
            else:
                check(t == list(range(shards)), f"filter {json.dumps(f)}: scatterGather to {t}")
            # (not null: {f: null} asks for undefined too, a key of its own)
            if set(f) == set(key) and all(plain_value(x) and not isinstance(x, dict) and x is not None
                                          for x in f.values()):
                check(q["targeting"] == "singleShard", f"filter {json.dumps(f)}: full key equality is {q['targeting']}")
        rd = rep["readDistribution"]
        check(rd["readsByShard"] == reads, f"readsByShard {rd['readsByShard']} != {reads}")
        tot = (rd["percentageOfSingleShardReads"] + rd["percentageOfMultiShardReads"]
               + rd["percentageOfScatterGatherReads"])
        check(abs(tot - 100.0) < 0.05, f"read percentages add up to {tot}")
        check(round(100.0 * kinds["scatterGather"] / len(queries), 2) == rd["percentageOfScatterGatherReads"],
              "percentageOfScatterGatherReads")
        if ok:
            passed += 1
        elif verbose:
            print(json.dumps(rep)[:2000])

    # A field that holds an array somewhere cannot be a shard key.
    stored = [json.loads(d) for (d,) in db.execute("SELECT doc FROM c")]

    def meets_array(doc, path):
        v = doc
        for part in path.split("."):
            if not isinstance(v, dict) or part not in v:
                return False
            v = v[part]
            if isinstance(v, list):
                return True
        return False

    for field in ("b", "arr", "arr.x", "c.d", "h.p", "a", "g.p"):
        holds = any(meets_array(d, field) for d in stored)
        try:
            db.execute("SELECT doc_analyze_shard_key('c', ?)", (json.dumps({field: 1}),))
            if holds:
                fail(f"key {field}", "an array field was accepted")
            else:
                passed += 1
        except sqlite3.Error as e:
            if holds and f"shard key field '{field}' holds an array" in str(e):
                passed += 1
            else:
                fail(f"key {field}", f"error {e}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
