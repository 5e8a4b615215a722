#!/usr/bin/python3
"""test/diff_dates.py — differential test of the date expressions.

    make && /usr/bin/python3 test/diff_dates.py [CASES] [SEED] [-v]
    (test/diff_dates.sh runs it; test/run.sh runs test/diff_*.sh)

Loads ./docext.so (or $DOCEXT_SO without the suffix). Each case takes a
random date (years 1 to 9999, to the millisecond), a timezone (none, a
fixed offset, or a zone of the system's time zone database, whose offsets
Python's zoneinfo reads from the same files) and random units, amounts, bin sizes and week starts, and
compares what docext's doc_update(doc, [{$set: …}]) computes for $year …
$isoDayOfWeek, $dateToString (every specifier), $dateAdd, $dateSubtract,
$dateDiff, $dateTrunc, $dateFromParts (both forms, parts past their
range), $dateToParts (both forms) and $dateFromString (ISO text and
formats, month names in any case, ISO week dates, days of the year) with a model written here on Python's datetime, from MongoDB's
documentation of each operator: calendar units move in the local calendar
and keep the day where the month has it; $dateDiff counts the unit's
boundaries crossed; $dateTrunc's bins count from 2000-01-01 (weeks: from
the week that holds it). In a zone of the database: days and longer units
are days of its calendar; a wall clock time that does not exist or exists
twice is read as Python reads fold=0; $dateDiff of a unit up to an hour
counts elapsed time (only the part of each offset below the unit moves
its boundaries, so a change by whole hours counts nothing twice, as
MongoDB's jstests/aggregation/expressions/date_expressions_monotonic
expects); $dateTrunc below a day keeps the date's own offset. The last
line is "N passed, M failed".
"""
import datetime as dt
import json
import os
import random
import sqlite3
import sys
from zoneinfo import ZoneInfo

SO = os.environ.get("DOCEXT_SO", "./docext")
EPOCH = dt.datetime(1970, 1, 1)
UNITS = {"millisecond": 1, "second": 1000, "minute": 60000, "hour": 3600000,
         "day": 86400000, "week": 604800000}
# zones with daylight time in either hemisphere, half-hour and 45-minute
# offsets, a 30-minute daylight saving (Lord Howe), a negative one (Dublin),
# a skipped day (Apia, 2011-12-30) and the two closest changes (Freetown, 1939)
ZONES = ["America/New_York", "Europe/London", "Australia/Sydney", "Asia/Kolkata",
         "Pacific/Apia", "America/Sao_Paulo", "Australia/Lord_Howe", "Asia/Kathmandu",
         "America/St_Johns", "Europe/Dublin", "Africa/Freetown"]
UTC = dt.timezone.utc
DAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]


def ms_of(t):
    d = t - EPOCH
    return (d.days * 86400 + d.seconds) * 1000 + d.microseconds // 1000


def date_of(ms):
    return EPOCH + dt.timedelta(milliseconds=ms)


def ext(ms):
    return {"$date": {"$numberLong": str(ms)}}


def tz_text(zone):
    if isinstance(zone, str):
        return zone
    sign = "-" if zone < 0 else "+"
    return "%s%02d:%02d" % (sign, abs(zone) // 60, abs(zone) % 60)


def off_ms(zone, ms):
    """The offset of zone (minutes east, or a name) at UTC instant ms."""
    if isinstance(zone, int):
        return zone * 60000
    o = (dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(milliseconds=ms)).astimezone(ZoneInfo(zone)).utcoffset()
    return (o.days * 86400 + o.seconds) * 1000


def to_local(zone, ms):
    return date_of(ms + off_ms(zone, ms))


def from_local(zone, t):
    """The UTC instant of wall clock time t (naive) in zone, fold=0."""
    if isinstance(zone, int):
        return ms_of(t) - zone * 60000
    return ms_of(t.replace(tzinfo=ZoneInfo(zone), fold=0).astimezone(UTC).replace(tzinfo=None))


def near_change(rnd, zone):
    """An instant within three hours of a change of zone's offset in a
    random year (None if that year has none), so that the cases meet
    gaps, overlaps and the days around them."""
    year = rnd.randrange(1900, 2100)
    t0 = ms_of(dt.datetime(year, 1, 1))
    prev = off_ms(zone, t0)
    for day in range(1, 367):
        t = t0 + day * 86400000
        if off_ms(zone, t) != prev:
            lo, hi = t - 86400000, t        # the change is in (lo, hi]
            while hi - lo > 1000:
                mid = (lo + hi) // 2
                if off_ms(zone, mid) == prev:
                    lo = mid
                else:
                    hi = mid
            return hi + rnd.randrange(-3 * 3600000, 3 * 3600000)
    return None


def sub_unit(o, u):
    """The part of offset o below unit u (floored)."""
    return o - (o // u) * u


def add_months(t, n):
    m = t.year * 12 + t.month - 1 + n
    y, mo = divmod(m, 12)
    if not 1 <= y <= 9999:
        raise OverflowError
    day = min(t.day, [31, 29 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 28,
                      31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo])
    return t.replace(year=y, month=mo + 1, day=day)


def week_start(t, start):
    """The first day of t's week (a week starting on DAYS[start])."""
    dow = (t.isoweekday() % 7)              # 0 Sunday
    return (t - dt.timedelta(days=(dow - start) % 7)).replace(hour=0, minute=0, second=0, microsecond=0)


def model_parts(t):
    iy, iw, idow = t.isocalendar()
    return {"y": t.year, "mo": t.month, "dm": t.day, "h": t.hour, "mi": t.minute, "s": t.second,
            "ms": t.microsecond // 1000, "dw": t.isoweekday() % 7 + 1, "dy": t.timetuple().tm_yday,
            "w": int(t.strftime("%U")), "iw": iw, "iy": iy, "id": idow}


def model_to_string(t, tzmin):
    iy, iw, idow = t.isocalendar()
    sign = "-" if tzmin < 0 else "+"
    return "%04d-%02d-%02d %02d:%02d:%02d.%03d %03d %d %d %02d %02d %04d %s%02d%02d %s%d %% %s %s" % (
        t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond // 1000,
        t.timetuple().tm_yday, t.isoweekday() % 7 + 1, idow, int(t.strftime("%U")), iw, iy,
        sign, abs(tzmin) // 60, abs(tzmin) % 60, sign, abs(tzmin),
        MONTHS[t.month - 1][:3], MONTHS[t.month - 1])


FMT = "%Y-%m-%d %H:%M:%S.%L %j %w %u %U %V %G %z %Z %% %b %B"
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def model_trunc(t, unit, bins, start):
    """t local, naive."""
    if unit in ("month", "quarter", "year"):
        k = {"month": 1, "quarter": 3, "year": 12}[unit] * bins
        m = t.year * 12 + t.month - 1 - 2000 * 12
        m = 2000 * 12 + (m // k) * k
        return dt.datetime(m // 12, m % 12 + 1, 1)
    if unit == "week":
        ref = week_start(dt.datetime(2000, 1, 1), start)
        days = (t - ref).days
        return ref + dt.timedelta(days=(days // (7 * bins)) * 7 * bins)
    ref = dt.datetime(2000, 1, 1)
    size = UNITS[unit] * bins
    return ref + dt.timedelta(milliseconds=((ms_of(t) - ms_of(ref)) // size) * size)


def model_diff(a, b, unit, start):
    if unit in ("month", "quarter", "year"):
        k = {"month": 1, "quarter": 3, "year": 12}[unit]
        return (b.year * 12 + b.month - 1) // k - (a.year * 12 + a.month - 1) // k
    if unit == "week":
        return (week_start(b, start) - week_start(a, start)).days // 7
    return ms_of(b) // UNITS[unit] - ms_of(a) // UNITS[unit]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    ncases = int(args[0]) if args else int(os.environ.get("DIFF_CASES", "1000"))
    seed = int(args[1]) if len(args) > 1 else int(os.environ.get("DIFF_SEED", "20261127"))
    rnd = random.Random(seed)
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(SO)
    lo, hi = ms_of(dt.datetime(1, 1, 3)), ms_of(dt.datetime(9999, 12, 29))
    passed = failed = 0
    for case in range(ncases):
        # mostly recent dates, some anywhere in years 1-9999
        ms = rnd.randrange(lo, hi) if rnd.random() < 0.3 else \
            rnd.randrange(ms_of(dt.datetime(1990, 1, 1)), ms_of(dt.datetime(2040, 1, 1)))
        ms2 = ms + rnd.choice([1, -1]) * rnd.randrange(0, 86400000 * rnd.choice([1, 40, 800, 20000]))
        ms2 = min(max(ms2, lo), hi)
        zone = rnd.choice([0, 0, 60, -300, 330, 840, -720, 45] + ZONES)
        if isinstance(zone, str) and rnd.random() < 0.4:
            ms = near_change(rnd, zone) or ms
            ms2 = ms + rnd.randrange(-2 * 86400000, 2 * 86400000)
        given = zone != 0 or rnd.random() < 0.5
        tzarg = {"timezone": tz_text(zone)} if given else {}
        try:
            local = to_local(zone, ms)
            local2 = to_local(zone, ms2)
        except (OverflowError, ValueError):
            continue                        # a zone's offset near year 1 or 9999
        o = off_ms(zone, ms)
        tzmin = o // 60000 if o >= 0 else -(-o // 60000)    # %z: whole minutes
        unit = rnd.choice(list(UNITS) + ["month", "quarter", "year"])
        amount = rnd.choice([0, 1, -1, 2, 13, -25, 100, rnd.randrange(-5000, 5000)])
        if unit in ("millisecond", "second", "minute"):
            amount *= rnd.choice([1, 997, 100003])
        bins = rnd.choice([1, 1, 2, 3, 7, 10])
        start = rnd.randrange(7)
        startarg = {"startOfWeek": rnd.choice([DAYS[start], DAYS[start][:3].upper()])} if unit == "week" else {}
        if unit == "week" and rnd.random() < 0.3:
            startarg, start = {}, 0
        parts = [rnd.randrange(1, 9999), rnd.randrange(-30, 40), rnd.randrange(-40, 70), rnd.randrange(-30, 50),
                 rnd.randrange(-100, 100), rnd.randrange(-100, 100), rnd.randrange(-2000, 2000)]
        iso = [rnd.randrange(1, 9999), rnd.randrange(-5, 60), rnd.randrange(-5, 12)]
        # (strftime's %Y does not pad years below 1000)
        text = "%04d-%s.%03d" % (local.year, local.strftime("%m-%dT%H:%M:%S"), local.microsecond // 1000)
        fmt_text = "%s/%04d %s" % (local.strftime("%d/%m"), local.year, local.strftime("%H.%M.%S"))
        # a month's name, whole or abbreviated, in any case
        month = rnd.choice([MONTHS[local.month - 1], MONTHS[local.month - 1][:3]])
        month = rnd.choice([month, month.upper(), month.lower()])
        name_text = "%02d %s %04d" % (local.day, month, local.year)
        liy, liw, lid = local.isocalendar()
        week_text = "%04d-W%02d-%d %02d:%02d" % (liy, liw, lid, local.hour, local.minute)
        yday_text = "%04d-%03d %02d:%02d" % (local.year, local.timetuple().tm_yday, local.hour, local.minute)
        spec = {
            "parts": {k: {v: "$d"} if not given else {v: {"date": "$d", **tzarg}} for k, v in
                      [("y", "$year"), ("mo", "$month"), ("dm", "$dayOfMonth"), ("h", "$hour"),
                       ("mi", "$minute"), ("s", "$second"), ("ms", "$millisecond"), ("dw", "$dayOfWeek"),
                       ("dy", "$dayOfYear"), ("w", "$week"), ("iw", "$isoWeek"), ("iy", "$isoWeekYear"),
                       ("id", "$isoDayOfWeek")]},
            "str": {"$dateToString": {"date": "$d", "format": FMT, **tzarg}},
            "add": {"$dateAdd": {"startDate": "$d", "unit": unit, "amount": amount, **tzarg}},
            "sub": {"$dateSubtract": {"startDate": "$d", "unit": unit, "amount": amount, **tzarg}},
            "diff": {"$dateDiff": {"startDate": "$d", "endDate": "$e", "unit": unit, **tzarg, **startarg}},
            "trunc": {"$dateTrunc": {"date": "$d", "unit": unit, "binSize": bins, **tzarg, **startarg}},
            "from": {"$dateFromParts": dict(zip(["year", "month", "day", "hour", "minute", "second",
                                                 "millisecond"], parts), **tzarg)},
            "fromIso": {"$dateFromParts": dict(zip(["isoWeekYear", "isoWeek", "isoDayOfWeek"], iso), **tzarg)},
            "toParts": {"$dateToParts": {"date": "$d", **tzarg}},
            "toIso": {"$dateToParts": {"date": "$d", "iso8601": True, **tzarg}},
            "fromStr": {"$dateFromString": {"dateString": text, **tzarg}},
            "fromFmt": {"$dateFromString": {"dateString": fmt_text, "format": "%d/%m/%Y %H.%M.%S", **tzarg}},
            "fromName": {"$dateFromString": {"dateString": name_text, "format": rnd.choice(["%d %b %Y", "%d %B %Y"]),
                                             **tzarg}},
            "fromWeek": {"$dateFromString": {"dateString": week_text, "format": "%G-W%V-%u %H:%M", **tzarg}},
            "fromYday": {"$dateFromString": {"dateString": yday_text, "format": "%Y-%j %H:%M", **tzarg}},
        }
        want = {}
        want["parts"] = model_parts(local)
        want["str"] = model_to_string(local, tzmin)
        for k, n in (("add", amount), ("sub", -amount)):
            try:
                if unit in ("day", "week") and isinstance(zone, str):
                    want[k] = from_local(zone, local + dt.timedelta(milliseconds=n * UNITS[unit]))
                elif unit in UNITS:
                    want[k] = ms_of(date_of(ms + n * UNITS[unit]))
                else:
                    want[k] = from_local(zone, add_months(local, n * {"month": 1, "quarter": 3, "year": 12}[unit]))
            except (OverflowError, ValueError):
                want[k] = None              # out of Python's range: not compared
        if unit in ("millisecond", "second", "minute", "hour"):
            u = UNITS[unit]
            want["diff"] = (ms2 + sub_unit(off_ms(zone, ms2), u)) // u - (ms + sub_unit(o, u)) // u
        else:
            try:
                want["diff"] = model_diff(local, local2, unit, start)
            except (OverflowError, ValueError):
                want["diff"] = None         # a week starting before year 1
        try:
            t = model_trunc(local, unit, bins, start)
            if unit in ("millisecond", "second", "minute", "hour"):
                want["trunc"] = ms - (ms_of(local) - ms_of(t))
            else:
                want["trunc"] = from_local(zone, t)
        except (OverflowError, ValueError):
            want["trunc"] = None
        y, mo, d, h, mi, s, msp = parts
        try:
            base = add_months(dt.datetime(y, 1, 1), mo - 1)
            want["from"] = from_local(zone, base + dt.timedelta(days=d - 1, hours=h, minutes=mi, seconds=s,
                                                                milliseconds=msp))
        except (OverflowError, ValueError, TypeError):
            want["from"] = None
        try:
            jan4 = dt.datetime(iso[0], 1, 4)
            want["fromIso"] = from_local(zone, jan4 - dt.timedelta(days=jan4.isoweekday() - 1)
                                         + dt.timedelta(days=(iso[1] - 1) * 7 + iso[2] - 1))
        except (OverflowError, ValueError):
            want["fromIso"] = None
        want["toParts"] = {"year": local.year, "month": local.month, "day": local.day, "hour": local.hour,
                           "minute": local.minute, "second": local.second,
                           "millisecond": local.microsecond // 1000}
        iy, iw, idow = local.isocalendar()
        want["toIso"] = {"isoWeekYear": iy, "isoWeek": iw, "isoDayOfWeek": idow, "hour": local.hour,
                         "minute": local.minute, "second": local.second,
                         "millisecond": local.microsecond // 1000}
        # (the local text of a time an autumn change repeats reads back as
        # its first occurrence)
        for key, t in (("fromStr", local), ("fromFmt", local.replace(microsecond=0)),
                       ("fromName", local.replace(hour=0, minute=0, second=0, microsecond=0)),
                       ("fromWeek", local.replace(second=0, microsecond=0)),
                       ("fromYday", local.replace(second=0, microsecond=0))):
            try:
                want[key] = from_local(zone, t)
            except (OverflowError, ValueError):
                want[key] = None            # before year 1 in UTC
        if not 1 <= liy <= 9999:
            want["fromWeek"] = None         # (an ISO year %G cannot write)
        doc = {"d": ext(ms), "e": ext(ms2)}
        ok = True
        got = {}
        for key, e in spec.items():
            try:
                r = db.execute("SELECT doc_update(?, ?)",
                               (json.dumps(doc), json.dumps([{"$set": {"r": e}}]))).fetchone()[0]
                v = json.loads(db.execute("SELECT doc_json(?, 'canonical')", (r,)).fetchone()[0])["r"]
                if isinstance(v, dict) and "$date" in v:
                    v = int(v["$date"]["$numberLong"])
                elif isinstance(v, dict) and all(isinstance(x, dict) and ("$numberInt" in x or "$numberLong" in x)
                                                  for x in v.values()):
                    v = {k: int(list(x.values())[0]) for k, x in v.items()}
                elif isinstance(v, dict) and "$numberLong" in v:
                    v = int(v["$numberLong"])
                elif isinstance(v, dict) and "$numberInt" in v:
                    v = int(v["$numberInt"])
                got[key] = v
            except sqlite3.Error as err:
                got[key] = "error: %s" % err
            if want[key] is None:
                continue                    # beyond the model's calendar
            if got[key] != want[key]:
                ok = False
                failed += 1
                if failed <= 20 or verbose:
                    print("FAIL case %d %s: %s\n     docext %s\n     model  %s"
                          % (case, key, json.dumps(e), got[key], want[key]))
        if ok:
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
