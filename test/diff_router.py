#!/usr/bin/python3
"""test/diff_router.py — the router of sharded collections against an
unsharded twin, and the states a crash can leave a migration in.

RANDOM CASES. Each case shards a collection (a random key among ranged,
compound and hashed ones; one to three shards, main sometimes among them;
a small chunk size, so chunks split as documents arrive; sometimes after
documents are already there) and keeps an ordinary docext collection with
the same documents. Random operations follow: inserts, replacements,
deletes, splits, moves, balancing, new shards, transactions committed or
rolled back, and the collection commands (their results must be the
twin's), some changing the shard key. After each, random finds (filter,
sort, skip, limit) must return the same documents from both, and the sharded one must be whole:
every document on the shard owning its chunk once, doc_chunks counting them
all, doc_check clean on every partition.

CRASHES. SQLite in WAL mode commits the files of one transaction one after
another, so a process that dies can leave any of them committed alone. For
each such state of a move (main's metadata without the destination's copy,
the destination's copy without main's metadata, the source's cleanup lost)
the files are put back in that state from snapshots, reopened, and every
document must be there exactly once, before and after the next balancing.

  /usr/bin/python3 test/diff_router.py [cases] [seed]

DOCEXT_SO names the build (without .so). The last line is
"N passed, M failed"."""
import json, os, random, shutil, sqlite3, sys, tempfile

SO = os.environ.get("DOCEXT_SO", "./docext")
KEYS = ['{"_id": 1}', '{"k": 1}', '{"k": 1, "_id": 1}', '{"_id": "hashed"}',
        '{"k": "hashed"}']

passed = failed = 0


def connect(path=":memory:"):
    db = sqlite3.connect(path, isolation_level=None)
    db.enable_load_extension(True)
    db.load_extension(SO)
    return db


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        if failed <= 20:
            print("FAIL:", what)


def rows(db, sql, args=()):
    return db.execute(sql, args).fetchall()


def k_value(rnd):
    return rnd.choice([rnd.randint(0, 9), rnd.randint(0, 9), rnd.choice("abc"), 2.5, None])


def make_doc(rnd, i):
    return {"_id": i, "k": k_value(rnd), "v": rnd.randint(0, 100),
            "pad": "x" * rnd.randint(0, 120)}


def filter_of(rnd):
    x, y = rnd.randint(0, 9), rnd.randint(0, 60)
    return rnd.choice([
        {}, {"k": x}, {"k": {"$gt": x}}, {"k": {"$in": [x, "a", None]}}, {"_id": y},
        {"_id": {"$lte": y}}, {"v": {"$gte": rnd.randint(0, 100)}},
        {"$or": [{"k": x}, {"_id": y}]}, {"k": {"$type": "string"}}, {"k": None},
        {"k": x, "_id": {"$gt": y}}, {"_id": {"$in": [y, y + 1, y + 7]}},
    ])


def find(db, coll, flt, sort, opts):
    return [r[0] for r in rows(db, "SELECT doc FROM %s(?, NULL, ?, ?)" % coll,
                               (json.dumps(flt), json.dumps(sort) if sort else None,
                                json.dumps(opts) if opts else None))]


def command_of(rnd, next_id):
    """A collection command, with arguments after the collection's name
    that give one answer on both (doc_update_one and doc_find_and_modify
    sorted by a unique order, doc_delete_one by _id)."""
    flt = json.dumps(filter_of(rnd))
    sort = rnd.choice([{"_id": 1}, {"_id": -1}, {"v": -1, "_id": 1}])
    pad = "z" * rnd.randint(0, 150)
    c = rnd.randrange(7)
    if c == 0:
        return ("SELECT doc_update_many(?, ?, ?)",
                (flt, json.dumps({"$inc": {"v": 1}, "$set": {"pad": pad}})), next_id)
    if c == 6:
        return ("SELECT doc_update_many(?, ?, ?)",
                (flt, json.dumps({"$set": {"k": k_value(rnd)}})), next_id)
    if c == 1:
        return ("SELECT doc_update_one(?, ?, ?, ?)",
                (flt, json.dumps({"$set": {"v": rnd.randint(0, 100)}, "$push": {"t": 1}}),
                 json.dumps({"sort": sort})), next_id)
    if c == 2:
        return ("SELECT doc_update_one(?, ?, ?, ?)",
                (json.dumps({"_id": next_id, "k": k_value(rnd)}),
                 json.dumps({"$set": {"v": 7}, "$setOnInsert": {"pad": pad}}),
                 json.dumps({"upsert": True})), next_id + 1)
    if c == 3:
        return ("SELECT doc_delete_one(?, ?)",
                (json.dumps({"_id": rnd.randint(0, max(next_id, 1))}),), next_id)
    if c == 4:
        return "SELECT doc_delete_many(?, ?)", (flt,), next_id
    spec = {"query": json.loads(flt), "sort": sort}
    if rnd.random() < 0.3:
        spec["remove"] = True
    else:
        spec["update"] = {"$inc": {"v": 5}}
        spec["new"] = rnd.random() < 0.5
        spec["fields"] = {"pad": 0}
    return "SELECT doc_find_and_modify(?, ?)", (json.dumps(spec),), next_id


def compare_finds(db, rnd, label):
    for _ in range(4):
        flt = filter_of(rnd)
        sort = rnd.choice([None, {"_id": 1}, {"_id": -1}, {"k": 1, "_id": 1},
                           {"v": -1, "_id": 1}])
        opts = None
        if sort and rnd.random() < 0.5:
            opts = {"skip": rnd.randint(0, 5), "limit": rnd.randint(1, 8)}
        try:
            got = find(db, "coll", flt, sort, opts)
            want = find(db, "ref", flt, sort, opts)
        except sqlite3.Error as e:
            check(False, "%s: find %s sort %s: %s" % (label, flt, sort, e))
            continue
        if sort is None:
            got, want = sorted(got), sorted(want)
        check(got == want, "%s: find %s sort %s %s:\n  sharded %s\n  plain   %s"
              % (label, flt, sort, opts, got[:6], want[:6]))
        n = rows(db, "SELECT doc_count('coll', ?), doc_count('ref', ?)",
                 (json.dumps(flt), json.dumps(flt)))[0]
        check(n[0] == n[1], "%s: doc_count %s: %d, want %d" % (label, flt, n[0], n[1]))
        d = rows(db, "SELECT doc_distinct('coll', 'k', ?), doc_distinct('ref', 'k', ?)",
                 (json.dumps(flt), json.dumps(flt)))[0]
        check(d[0] == d[1], "%s: doc_distinct %s: %s, want %s" % (label, flt, d[0], d[1]))
        e = rows(db, "SELECT json_extract(doc_explain('coll', ?1, NULL, ?2, ?3), '$.n'),"
                 " json_extract(doc_explain('ref', ?1, NULL, ?2, ?3), '$.n')",
                 (json.dumps(flt), json.dumps(sort) if sort else None,
                  json.dumps(opts) if opts else None))[0]
        check(e[0] == e[1] == len(want), "%s: doc_explain %s: n %s, want %s"
              % (label, flt, e[0], e[1]))


def check_whole(db, label, shards):
    n = rows(db, "SELECT count(*) FROM coll")[0][0]
    want = rows(db, "SELECT count(*) FROM ref")[0][0]
    check(n == want, "%s: count %d, want %d" % (label, n, want))
    ids = [r[0] for r in rows(db, "SELECT _id FROM coll")]
    check(len(ids) == len(set(ids)), "%s: an _id twice: %s" % (label, sorted(ids)))
    total = rows(db, "SELECT total(docs) FROM doc_chunks('coll')")[0][0]
    check(int(total) == n, "%s: doc_chunks counts %d of %d" % (label, total, n))
    stored = 0 if "main" in shards else rows(db, "SELECT count(*) FROM main.coll_docs")[0][0]
    for s in shards:
        has = rows(db, "SELECT count(*) FROM \"%s\".sqlite_schema WHERE name='coll'" % s)[0][0]
        if has:
            ok = rows(db, "SELECT doc_check(?)", ('"%s".coll' % s,))[0][0]
            check(ok == "ok", "%s: doc_check %s: %s" % (label, s, ok))
            stored += rows(db, "SELECT count(*) FROM \"%s\".coll_docs" % s)[0][0]
    # (in memory a move commits atomically and leaves no orphan behind)
    check(stored == n, "%s: the partitions store %d documents, the router sees %d"
          % (label, stored, n))


def run_case(seed):
    rnd = random.Random(seed)
    db = connect()
    key = rnd.choice(KEYS)
    shards = []
    for i in range(rnd.randint(1, 3)):
        name = "s%d" % i
        db.execute("ATTACH ':memory:' AS %s" % name)
        shards.append(name)
    if rnd.random() < 0.3:
        shards.append("main")
    db.execute("CREATE VIRTUAL TABLE coll USING docext")
    db.execute("CREATE VIRTUAL TABLE ref USING docext")
    next_id = 0
    for _ in range(rnd.choice([0, 0, 10, 30])):
        d = make_doc(rnd, next_id)
        next_id += 1
        for c in ("coll", "ref"):
            db.execute("INSERT INTO %s(doc) VALUES (?)" % c, (json.dumps(d),))
    for s in shards:
        db.execute("SELECT doc_add_shard(?)", (s,))
    chunk = rnd.choice([300, 1000, 4000])
    db.execute("SELECT doc_shard_collection('coll', ?, ?)", (key, json.dumps({"chunkSize": chunk})))
    label = "seed %d key %s shards %s chunk %d" % (seed, key, shards, chunk)
    in_txn = False
    for step in range(40):
        op = rnd.random()
        try:
            if op < 0.45:
                d = make_doc(rnd, next_id)
                next_id += 1
                for c in ("coll", "ref"):
                    db.execute("INSERT INTO %s(doc) VALUES (?)" % c, (json.dumps(d),))
            elif op < 0.55 and next_id:
                i = rnd.randrange(next_id)
                old = rows(db, "SELECT doc FROM ref WHERE _id = ?", (i,))
                if old:
                    d = json.loads(old[0][0])
                    d["v"] = rnd.randint(0, 100)
                    d["pad"] = "y" * rnd.randint(0, 200)
                    if rnd.random() < 0.3:
                        d["k"] = k_value(rnd)      # (the key may change: a move)
                    for c in ("coll", "ref"):
                        db.execute("UPDATE %s SET doc = ? WHERE _id = ?" % c, (json.dumps(d), i))
            elif op < 0.62:
                flt = json.dumps(filter_of(rnd))
                for c in ("coll", "ref"):
                    db.execute("DELETE FROM %s WHERE doc_match(doc, ?)" % c, (flt,))
            elif op < 0.70:
                sql, args, next_id = command_of(rnd, next_id)
                got, want = [rows(db, sql, (c,) + args)[0][0] for c in ("coll", "ref")]
                check(got == want, "%s: %s %s: sharded %s, plain %s" % (label, sql, args, got, want))
            elif op < 0.72:
                db.execute("SELECT doc_balance('coll')")
            elif op < 0.80:
                s = rnd.choice(shards)
                if s != "main" or "main" in shards:
                    doc = {"_id": rnd.randint(0, 60), "k": k_value(rnd)}
                    try:
                        db.execute("SELECT doc_move_chunk('coll', ?, ?)", (json.dumps(doc), s))
                    except sqlite3.Error as e:
                        check("still moving" in str(e), "%s: move: %s" % (label, e))
            elif op < 0.86 and "hashed" not in key:
                mid = {}
                for f in json.loads(key):
                    mid[f] = rnd.randint(0, 60) if f == "_id" else k_value(rnd)
                try:
                    db.execute("SELECT doc_split_chunk('coll', ?)", (json.dumps(mid),))
                except sqlite3.Error as e:
                    check("begins at that key" in str(e), "%s: split: %s" % (label, e))
            elif op < 0.88:
                spec = rnd.choice(['{"v": 1}', '{"v": -1, "k": 1}', '{"pad": 1}', '{"k": 1, "v": 1}'])
                for c in ("coll", "ref"):
                    db.execute("SELECT doc_create_index(?, ?)", (c, spec))
            elif op < 0.90 and len(shards) < 5:
                name = "s%d" % len(shards)
                if not in_txn:
                    db.execute("ATTACH ':memory:' AS %s" % name)
                    shards.append(name)
                    db.execute("SELECT doc_add_shard(?)", (name,))
            elif op < 0.95:
                if in_txn:
                    db.execute(rnd.choice(["COMMIT", "COMMIT", "ROLLBACK"]))
                    in_txn = False
                else:
                    db.execute("BEGIN")
                    in_txn = True
        except sqlite3.Error as e:
            check(False, "%s: step %d: %s" % (label, step, e))
            break
        compare_finds(db, rnd, "%s step %d" % (label, step))
        check_whole(db, "%s step %d" % (label, step), shards)
    if in_txn:
        db.execute("COMMIT")
    db.close()


# ---------------------------------------------------------------- crashes

def crash_setup(d):
    db = connect(os.path.join(d, "main.db"))
    for s in ("s1", "s2"):
        db.execute("ATTACH ? AS %s" % s, (os.path.join(d, s + ".db"),))
    for s in ("main", "s1", "s2"):
        db.execute("PRAGMA %s.journal_mode=WAL" % s)
    db.execute("CREATE VIRTUAL TABLE coll USING docext")
    db.execute("SELECT doc_add_shard('s1')")
    db.execute("SELECT doc_add_shard('s2')")
    db.execute("SELECT doc_shard_collection('coll', '{_id: 1}')")
    for i in range(20):
        db.execute("INSERT INTO coll(doc) VALUES (?)", (json.dumps({"_id": i, "t": "doc %d" % i}),))
    db.execute("SELECT doc_split_chunk('coll', '{_id: 10}')")
    db.close()


def crash_open(d):
    db = connect(os.path.join(d, "main.db"))
    for s in ("s1", "s2"):
        db.execute("ATTACH ? AS %s" % s, (os.path.join(d, s + ".db"),))
    return db


def snapshot(d, tag):
    for f in ("main", "s1", "s2"):
        for ext in (".db", ".db-wal"):
            src = os.path.join(d, f + ext)
            if os.path.exists(src):
                shutil.copy(src, os.path.join(d, "%s.%s%s" % (f, tag, ext)))


def restore(d, tag, files):
    for f in files:
        for ext in (".db", ".db-wal", ".db-shm"):
            dst = os.path.join(d, f + ext)
            if os.path.exists(dst):
                os.remove(dst)
            src = os.path.join(d, "%s.%s%s" % (f, tag, ext))
            if os.path.exists(src):
                shutil.copy(src, dst)


def crash_verify(d, what):
    db = crash_open(d)
    for phase in ("as found", "after doc_balance"):
        ids = sorted(r[0] for r in rows(db, "SELECT _id FROM coll"))
        check(ids == list(range(20)), "crash %s, %s: documents %s" % (what, phase, ids))
        got = sorted(r[0] for r in rows(db, "SELECT _id FROM coll('{_id: {$gte: 10}}')"))
        check(got == list(range(10, 20)), "crash %s, %s: range read %s" % (what, phase, got))
        n = rows(db, "SELECT total(docs) FROM doc_chunks('coll')")[0][0]
        check(int(n) == 20, "crash %s, %s: doc_chunks counts %s" % (what, phase, n))
        if phase == "as found":
            db.execute("SELECT doc_balance('coll')")
    # after the cleanup no partition holds a document twice or one it does not own
    total = rows(db, "SELECT (SELECT count(*) FROM s1.coll) + (SELECT count(*) FROM s2.coll)")[0][0]
    db.execute("SELECT doc_balance('coll')")
    total2 = rows(db, "SELECT (SELECT count(*) FROM s1.coll) + (SELECT count(*) FROM s2.coll)")[0][0]
    check(total2 == 20 or total == 20 or what == "cleanup lost",
          "crash %s: partitions hold %d then %d documents" % (what, total, total2))
    db.close()


def run_crashes():
    for what, tag, files in (("main without the destination", "before", ["s2"]),
                             ("the destination without main", "before", ["main"])):
        d = tempfile.mkdtemp(prefix="docext_crash_")
        try:
            crash_setup(d)
            snapshot(d, "before")
            db = crash_open(d)
            db.execute("SELECT doc_move_chunk('coll', '{_id: 15}', 's2')")
            db.close()
            restore(d, tag, files)
            crash_verify(d, what)
        finally:
            shutil.rmtree(d)
    # the move committed everywhere; its cleanup committed in main but not
    # in the source: the source keeps copies it does not own
    d = tempfile.mkdtemp(prefix="docext_crash_")
    try:
        crash_setup(d)
        db = crash_open(d)
        db.execute("SELECT doc_move_chunk('coll', '{_id: 15}', 's2')")
        db.close()
        snapshot(d, "moved")
        db = crash_open(d)
        db.execute("SELECT doc_balance('coll')")
        db.close()
        restore(d, "moved", ["s1"])
        crash_verify(d, "cleanup lost")
    finally:
        shutil.rmtree(d)


def run_two_connections():
    """A router cached by one connection must follow chunks another one
    moved and splits this one rolled back."""
    d = tempfile.mkdtemp(prefix="docext_conns_")
    try:
        crash_setup(d)
        a, b = crash_open(d), crash_open(d)
        for db in (a, b):
            db.execute("PRAGMA busy_timeout=2000")
        want = set(range(20))
        n = 100
        for step in range(30):
            op = step % 5
            if op == 0:
                b.execute("SELECT doc_move_chunk('coll', ?, ?)",
                          (json.dumps({"_id": random.Random(step).randint(0, 120)}),
                           random.Random(step).choice(["s1", "s2"])))
            elif op == 1:
                try:
                    b.execute("SELECT doc_split_chunk('coll', ?)", (json.dumps({"_id": n - 3}),))
                except sqlite3.Error as e:
                    check("begins at that key" in str(e), "two connections: split: %s" % e)
            elif op == 2:
                a.execute("BEGIN")
                a.execute("SELECT doc_split_chunk('coll', ?)", (json.dumps({"_id": n + 50}),))
                a.execute("SELECT doc_balance('coll')")
                a.execute("INSERT INTO coll(doc) VALUES (?)", (json.dumps({"_id": 10000 + n}),))
                a.execute("ROLLBACK")
            for db in (a, b):
                db.execute("INSERT INTO coll(doc) VALUES (?)", (json.dumps({"_id": n}),))
                want.add(n)
                n += 1
            for name, db in (("a", a), ("b", b)):
                ids = set(r[0] for r in rows(db, "SELECT _id FROM coll"))
                check(ids == want, "two connections, step %d, %s reads %d of %d documents"
                      % (step, name, len(ids & want), len(want)))
                total = rows(db, "SELECT total(docs) FROM doc_chunks('coll')")[0][0]
                check(int(total) == len(want), "two connections, step %d, %s: doc_chunks %s"
                      % (step, name, total))
        a.close()
        b.close()
    finally:
        shutil.rmtree(d)


def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20261126
    run_crashes()
    run_two_connections()
    for i in range(cases):
        run_case(seed + i)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
