#!/usr/bin/python3
"""test/diff_geo.py — differential test of $geoWithin, $geoIntersects and
the aggregation stage $geoNear.

    make && /usr/bin/python3 test/diff_geo.py [CASES] [SEED]
    (test/diff_geo.sh runs it; test/run.sh runs test/diff_*.sh)

Loads ./docext.so (or $DOCEXT_SO without the suffix). Each case is a random
query geometry and a random document geometry near it, matched by docext's
doc_match(doc, filter) and by a model written here, from first principles,
of MongoDB's semantics without a geo index:

  * spherical ($geometry, $centerSphere): a [lng, lat] in degrees is the unit
    vector (cos lat cos lng, cos lat sin lng, sin lat); edges are minor
    great-circle arcs. A ring bounds the smaller of its two regions: the
    model finds a centre C with every vertex in C's open hemisphere (the
    ring then lies in that hemisphere, whose complement is in the other
    region, so the region in the hemisphere is the smaller one) and tests a
    point by ray casting in the gnomonic projection about C, which maps
    great circles to straight lines. Arcs cross when each one's endpoints
    are on opposite sides of the other's plane and the common point of the
    two great circles is on both arcs.
  * $geoWithin: a point inside (a shell, outside its holes) some polygon; a
    line or polygon inside one polygon (its vertices inside, no edge
    crossings, and, for a polygon, no hole of the container inside it); a
    Multi* or GeometryCollection when every member is; $centerSphere what
    lies wholly within its radius (as MongoDB's newest releases have it:
    older ones took points alone).
  * $geoIntersects: any member of one shares a point with any member of the
    other (point in polygon, crossing edges, a vertex of one inside the
    other, identical points).
  * flat legacy shapes ($box, $center, $polygon): x/y geometry on the raw
    numbers, matched by single points only (legacy [x, y], {x:, y:}, or a
    GeoJSON Point's [lng, lat]).
  * an array of legacy points matches when one of them does; anything that
    is not a valid geometry does not match; an invalid query is an error.

Cases where a point is within 1e-6 radians of an edge or vertex of the other
geometry (or of a $centerSphere's circle, or 1e-6 of a flat boundary) are
drawn again, so the answer never hangs on rounding. Shapes are generated
valid (star-shaped rings about a centre, holes in disjoint caps well inside
the shell) and the generator checks that with the model. Centres near the
poles and the antimeridian are frequent. About 5% of the cases are invalid
queries (an error "docext: ..." is expected) and 5% malformed documents
(no match expected).

About 15% of the cases are $geoNear stages run by doc_aggregate() over a
fresh collection of 1 to 10 documents (near a GeoJSON point: metres; a
legacy point with spherical: true: radians; a legacy point otherwise: the
plane), checked for the documents, their order, each distance and
includeLocs; see the "$geoNear" section for the model and its tolerances.
About 10% are finds with the filter operator $near or $nearSphere (legacy
point: plane units or radians; GeoJSON point: metres) over such a
collection, sometimes sharded, with other conditions, a sort, skip and
limit: checked for the documents and their order (nearest first); see the
"$near and $nearSphere" section.

No index may change an answer. Every INDEX_BATCH match cases, their
documents go into a collection with a 2dsphere index on loc and into one
without, and each case's filter must find the same documents in both (the
documents the index refuses, as MongoDB refuses them, "Can't extract geo
keys", go into neither; a refused document must be no geometry at all, or
an array of legacy points); and the same with a 2d index, which takes
legacy points only. Each $near case (2d for a $near in the plane) and each
$geoNear case runs on such a pair of collections too, and must give the
same documents (and distances) in the same order; a $geoNear also without
its key (which the index then gives) and followed by $limit 1 and 3.

Lists of fixed cases, checked by hand (and against the model), run first.
The last line is "N passed, M failed"."""
import json
import math
import os
import random
import sqlite3
import sys

SO = os.environ.get("DOCEXT_SO", "./docext")
EPS = 1e-6          # radians: the margin kept from every boundary
TAU = 2 * math.pi


# ---------------------------------------------------------------- vectors --

def vec(lng, lat):
    lo, la = math.radians(lng), math.radians(lat)
    c = math.cos(la)
    return (c * math.cos(lo), c * math.sin(lo), math.sin(la))


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a):
    return math.sqrt(dot(a, a))


def unit(a):
    n = norm(a)
    return (a[0] / n, a[1] / n, a[2] / n)


def neg(a):
    return (-a[0], -a[1], -a[2])


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def scale(a, k):
    return (a[0] * k, a[1] * k, a[2] * k)


def angle(a, b):
    return math.atan2(norm(cross(a, b)), dot(a, b))


def lnglat(v):
    return (math.degrees(math.atan2(v[1], v[0])),
            math.degrees(math.asin(max(-1.0, min(1.0, v[2])))))


def frame(c):
    """Two unit vectors orthogonal to c and to each other."""
    ref = (0.0, 0.0, 1.0) if abs(c[2]) < 0.9 else (1.0, 0.0, 0.0)
    e1 = unit(cross(ref, c))
    return e1, cross(c, e1)


def offset(c, d, theta):
    """The point at distance d (radians) from c in direction theta."""
    e1, e2 = frame(c)
    s = math.sin(d)
    return unit(add(scale(c, math.cos(d)),
                    add(scale(e1, s * math.cos(theta)), scale(e2, s * math.sin(theta)))))


def on_arc(x, a, b, n):
    return dot(cross(a, x), n) >= 0 and dot(cross(x, b), n) >= 0


def arcs_cross(a, b, c, d):
    """Do the minor arcs ab and cd cross (at a point inside both)?"""
    n1 = cross(a, b)
    n2 = cross(c, d)
    if dot(n1, c) * dot(n1, d) >= 0 or dot(n2, a) * dot(n2, b) >= 0:
        return False
    x = cross(n1, n2)
    if norm(x) == 0:
        return False
    x = unit(x)
    return any(on_arc(y, a, b, n1) and on_arc(y, c, d, n2) for y in (x, neg(x)))


def dist_arc(p, a, b):
    """Angular distance from p to the minor arc ab."""
    n = cross(a, b)
    if norm(n) < 1e-15:
        return angle(p, a)
    n = unit(n)
    if dot(cross(a, p), n) > 0 and dot(cross(p, b), n) > 0:
        return abs(math.asin(max(-1.0, min(1.0, dot(p, n)))))
    return min(angle(p, a), angle(p, b))


# ---------------------------------------------------- spherical polygons --

def ray_cast(q, ring):
    x, y = q
    inside = False
    j = len(ring) - 1
    for i in range(len(ring)):
        x1, y1 = ring[i]
        x2, y2 = ring[j]
        if (y1 > y) != (y2 > y):
            xi = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < xi:
                inside = not inside
        j = i
    return inside


class Degenerate(Exception):
    pass


class SPoly:
    """A polygon on the sphere: rings of unit vectors (open), shell first."""

    def __init__(self, rings, hint=None):
        self.rings = rings
        shell = rings[0]
        cands = [unit(sum_vecs(shell))] if norm(sum_vecs(shell)) > 1e-9 else []
        if hint is not None:
            cands.append(hint)
        for c in cands:
            if all(dot(c, v) > 0.02 for r in rings for v in r):
                self.c = c
                break
        else:
            raise Degenerate("ring not in a hemisphere")
        self.e1, self.e2 = frame(self.c)
        self.proj = [[self.project(v) for v in r] for r in rings]
        self.arcs = [(r[i - 1], r[i]) for r in rings for i in range(len(r))]
        self.verts = [v for r in rings for v in r]

    def project(self, v):
        d = dot(v, self.c)
        return (dot(v, self.e1) / d, dot(v, self.e2) / d)

    def in_ring(self, k, p):
        if dot(p, self.c) <= 1e-12:
            return False
        return ray_cast(self.project(p), self.proj[k])

    def contains(self, p):
        return self.in_ring(0, p) and not any(self.in_ring(k, p) for k in range(1, len(self.rings)))


def sum_vecs(vs):
    s = (0.0, 0.0, 0.0)
    for v in vs:
        s = add(s, v)
    return s


def valid_spoly(P):
    """Rings simple, no crossing between rings, holes inside the shell and
    outside each other, no two consecutive equal vertices."""
    for r in P.rings:
        if len(r) < 3:
            return False
        for i in range(len(r)):
            if angle(r[i - 1], r[i]) < 1e-7:
                return False
    arcs = [(k, i, r[i - 1], r[i]) for k, r in enumerate(P.rings) for i in range(len(r))]
    for x in range(len(arcs)):
        for y in range(x + 1, len(arcs)):
            k1, i1, a, b = arcs[x]
            k2, i2, c, d = arcs[y]
            if k1 == k2:
                n = len(P.rings[k1])
                if abs(i1 - i2) in (1, n - 1):
                    continue
            if arcs_cross(a, b, c, d):
                return False
            if k1 != k2 and min(dist_arc(a, c, d), dist_arc(c, a, b)) < 10 * EPS:
                return False
    for k in range(1, len(P.rings)):
        if not P.in_ring(0, P.rings[k][0]):
            return False
        for j in range(1, len(P.rings)):
            if j != k and P.in_ring(j, P.rings[k][0]):
                return False
    return True


# ------------------------------------------------------- model geometries --
# ('pt', v, (x, y))    v the unit vector or None (legacy point off the sphere)
# ('line', [v...])
# ('poly', SPoly)
# ('all', [geoms])      Multi* and GeometryCollection: every member / any member
# ('any', [pts])        array of legacy points: any element
# ('none',)             not a geometry

def prims(g):
    if g[0] in ("all", "any"):
        return [p for m in g[1] for p in prims(m)]
    if g[0] == "none" or (g[0] == "pt" and g[1] is None):
        return []
    return [g]


def poly_contains_line(P, vs):
    if not all(P.contains(v) for v in vs):
        return False
    for i in range(1, len(vs)):
        for a, b in P.arcs:
            if arcs_cross(vs[i - 1], vs[i], a, b):
                return False
    return True


def poly_contains_poly(P, D):
    if not all(P.contains(v) for v in D.verts):
        return False
    for a, b in D.arcs:
        for c, d in P.arcs:
            if arcs_cross(a, b, c, d):
                return False
    for hole in P.rings[1:]:
        if D.contains(hole[0]):
            return False
    return True


def within(g, Q):
    """$geoWithin $geometry: Q a list of SPoly (a Polygon or a MultiPolygon)."""
    t = g[0]
    if t == "pt":
        return g[1] is not None and any(P.contains(g[1]) for P in Q)
    if t == "line":
        return any(poly_contains_line(P, g[1]) for P in Q)
    if t == "poly":
        return any(poly_contains_poly(P, g[1]) for P in Q)
    if t == "all":
        return all(within(m, Q) for m in g[1])
    if t == "any":
        return any(within(m, Q) for m in g[1])
    return False


def within_cap(g, c, r):
    """MongoDB's newest GeometryContainer: a point within r of c; a line or
    polygon when no point of it is nearer than pi - r to c's opposite point
    (so every point of it is within r of c)."""
    t = g[0]
    if t == "pt":
        return g[1] is not None and angle(g[1], c) <= r
    if t in ("line", "poly"):
        return sph_dist(neg(c), g) >= math.pi - r
    if t == "all":
        return all(within_cap(m, c, r) for m in g[1])
    if t == "any":
        return any(within_cap(m, c, r) for m in g[1])
    return False


def cap_ambiguous(g, c, r):
    """Does the farthest point of a line or polygon of g lie within EPS of
    the circle?"""
    return any(p[0] in ("line", "poly") and abs(sph_dist(neg(c), p) - (math.pi - r)) < EPS
               for p in prims(g))


def line_arcs(vs):
    return [(vs[i - 1], vs[i]) for i in range(1, len(vs))]


def prim_intersects(a, b):
    if a[0] == "poly" and b[0] != "poly":
        a, b = b, a
    if a[0] == "line" and b[0] == "pt":
        a, b = b, a
    ta, tb = a[0], b[0]
    if ta == "pt" and tb == "pt":
        return angle(a[1], b[1]) < 1e-12
    if ta == "pt" and tb == "line":
        return False                    # kept EPS away
    if ta == "pt" and tb == "poly":
        return b[1].contains(a[1])
    if ta == "line" and tb == "line":
        return any(arcs_cross(p, q, r, s) for p, q in line_arcs(a[1]) for r, s in line_arcs(b[1]))
    if ta == "line" and tb == "poly":
        P = b[1]
        return (any(P.contains(v) for v in a[1]) or
                any(arcs_cross(p, q, r, s) for p, q in line_arcs(a[1]) for r, s in P.arcs))
    if ta == "poly" and tb == "poly":
        A, B = a[1], b[1]
        return (any(arcs_cross(p, q, r, s) for p, q in A.arcs for r, s in B.arcs) or
                any(B.contains(v) for v in A.verts) or any(A.contains(v) for v in B.verts))
    raise AssertionError((ta, tb))


def intersects(g, q):
    return any(prim_intersects(a, b) for a in prims(g) for b in prims(q))


def geo_parts(g):
    """(points, vertices, arcs) of a model geometry."""
    pts, verts, arcs = [], [], []
    for p in prims(g):
        if p[0] == "pt":
            pts.append(p[1])
            verts.append(p[1])
        elif p[0] == "line":
            verts += p[1]
            arcs += line_arcs(p[1])
        else:
            verts += p[1].verts
            arcs += p[1].arcs
    return pts, verts, arcs


def ambiguous(g, q):
    """Is some vertex of one within EPS of the other's edges (or points)?"""
    p1, v1, a1 = geo_parts(g)
    p2, v2, a2 = geo_parts(q)
    for v in v1:
        for a, b in a2:
            if dist_arc(v, a, b) < EPS:
                return True
    for v in v2:
        for a, b in a1:
            if dist_arc(v, a, b) < EPS:
                return True
    for x in p1:
        for y in p2:
            d = angle(x, y)
            if 0 < d < EPS or (d == 0 and x != y):
                return True
    return False


# ------------------------------------------------------------ generators --

def coord(v, rng=None):
    """A point as the JSON pair [lng, lat] (6 decimals) and the vector of
    exactly that pair."""
    lng, lat = lnglat(v)
    lng, lat = round(lng, 6), round(lat, 6)
    if lng == -180.0 or (rng is not None and lng == 180.0 and rng.random() < 0.5):
        lng = -lng                      # both spellings of the antimeridian
    if lng == 0.0:
        lng = 0.0
    if lat == 0.0:
        lat = 0.0
    return [lng, lat], vec(lng, lat)


def rand_center(rng):
    k = rng.random()
    if k < 0.15:                        # near a pole
        lat, lng = rng.choice([1, -1]) * rng.uniform(70, 90), rng.uniform(-180, 180)
    elif k < 0.3:                       # near the antimeridian
        lat, lng = rng.uniform(-60, 60), rng.choice([1, -1]) * rng.uniform(165, 180)
    elif k < 0.35:                      # near both
        lat, lng = rng.choice([1, -1]) * rng.uniform(60, 85), rng.choice([1, -1]) * rng.uniform(165, 180)
    else:
        lat, lng = math.degrees(math.asin(rng.uniform(-1, 1))), rng.uniform(-180, 180)
    return vec(lng, lat)


def rand_radius(rng):
    k = rng.random()
    if k < 0.1:
        return rng.uniform(0.001, 0.02)
    if k < 0.8:
        return rng.uniform(0.02, 0.5)
    return rng.uniform(0.5, 1.0)


def near(rng, c, r, k=1.5):
    return offset(c, r * k * math.sqrt(rng.random()), rng.uniform(0, TAU))


def gen_ring(rng, c, r, n=None):
    """A star-shaped (convex when its radii are equal) ring about c, every
    vertex within r of c, as ([[lng, lat]...], [v...]), open."""
    n = n or rng.randint(3, 12)
    convex = rng.random() < 0.4
    while True:
        thetas = sorted(rng.uniform(0, TAU) for _ in range(n))
        gaps = [thetas[i] - thetas[i - 1] for i in range(1, n)] + [thetas[0] + TAU - thetas[-1]]
        if max(gaps) < 0.9 * math.pi and min(gaps) > 0.05:
            break
    pts = [coord(offset(c, r if convex else r * rng.uniform(0.3, 1.0), t), rng) for t in thetas]
    if rng.random() < 0.5:
        pts.reverse()
    s = rng.randrange(n)
    pts = pts[s:] + pts[:s]
    return [p[0] for p in pts], [p[1] for p in pts]


def try_spoly(rings_v, c):
    """The model polygon of rings_v about centre c, or None when degenerate."""
    try:
        return SPoly(rings_v, c)
    except Degenerate:
        return None


def polygon_json(rings_c):
    """GeoJSON Polygon of rings given as [lng, lat] lists, each closed."""
    return {"type": "Polygon", "coordinates": [rc + rc[:1] for rc in rings_c]}


def gen_polygon(rng, c, r, holes=None):
    """(GeoJSON Polygon, SPoly) about c within r, with 0 to 2 holes."""
    for _ in range(50):
        shell_c, shell_v = gen_ring(rng, c, r)
        try:
            P = SPoly([shell_v], c)
        except Degenerate:
            continue
        rings_c, rings_v = [shell_c], [shell_v]
        k = holes if holes is not None else rng.choice([0, 0, 0, 1, 1, 2])
        caps = []
        for _ in range(20 * k):
            if len(caps) == k:
                break
            h = offset(c, r * rng.uniform(0, 0.6), rng.uniform(0, TAU))
            if not P.contains(h):
                continue
            d = min(dist_arc(h, a, b) for a, b in P.arcs)
            rh = d * rng.uniform(0.3, 0.7)
            if rh < 1e-4 or any(angle(h, h2) < (rh + rh2) * 1.1 for h2, rh2 in caps):
                continue
            caps.append((h, rh))
            hc, hv = gen_ring(rng, h, rh, rng.randint(3, 8))
            rings_c.append(hc)
            rings_v.append(hv)
        P = try_spoly(rings_v, c)
        if P is not None and valid_spoly(P):
            return polygon_json(rings_c), P
    raise AssertionError("no valid polygon")


def gen_line(rng, c, r, s=1.0):
    """A LineString of 2 to 6 vertices starting within 1.3 s r of c, steps of
    up to 0.8 s r."""
    p = near(rng, c, r, 1.3 * s)
    out = [coord(p, rng)]
    for _ in range(rng.randint(1, 5)):
        while True:
            q = offset(out[-1][1], max(0.001, r * s * rng.uniform(0.05, 0.8)), rng.uniform(0, TAU))
            cq = coord(q, rng)
            if angle(cq[1], out[-1][1]) > 1e-4:
                break
        out.append(cq)
    vs = [o[1] for o in out]
    return {"type": "LineString", "coordinates": [o[0] for o in out]}, ("line", vs)


def disjoint_centers(rng, c, r, k):
    """k (centre, radius) caps near c that do not overlap."""
    caps = []
    for _ in range(200):
        if len(caps) == k:
            break
        cc = c if not caps else offset(c, r * rng.uniform(0.5, 3.0), rng.uniform(0, TAU))
        rr = r if not caps else r * rng.uniform(0.2, 0.8)
        if all(angle(cc, c2) > (rr + r2) * 1.05 for c2, r2 in caps):
            caps.append((cc, rr))
    return caps


def gen_spoint(rng, c, r, legacy_ok=True, pole_ok=True):
    """A document point (GeoJSON or legacy) near c."""
    if pole_ok and abs(c[2]) > 0.93 and rng.random() < 0.1:
        j, v = [round(rng.uniform(-180, 180), 6), 90.0 if c[2] > 0 else -90.0], None
        v = vec(*j)
    else:
        j, v = coord(near(rng, c, r, rng.choice([0.7, 1.0, 1.5, 2.0])), rng)
    k = rng.random()
    if not legacy_ok or k < 0.6:
        return {"type": "Point", "coordinates": j}, ("pt", v, tuple(j))
    if k < 0.85:
        return j, ("pt", v, tuple(j))
    if k < 0.93:
        return {"lng": j[0], "lat": j[1]}, ("pt", v, tuple(j))
    # a legacy point off the sphere's range: no spherical match
    bad = [j[0] + (360 if j[0] <= 0 else -360) * rng.choice([1, 1, 0]), j[1]]
    if bad[0] == j[0]:                  # away from 0: [x, -90] must not become [x, 90]
        bad[1] = j[1] + (180 if j[1] >= 0 else -180)
    return bad, ("pt", None, tuple(bad))


def gen_doc_geom(rng, c, r, depth=0, s=None):
    """A random document geometry near c: (JSON, model). s (drawn when not
    given) scales how far from c it spreads."""
    if s is None:
        s = rng.choice([0.25, 0.5, 1.0, 1.0, 1.5])
    k = rng.random()
    if k < 0.28:
        return gen_spoint(rng, c, r * s)
    if k < 0.43:
        return gen_line(rng, c, r, s)
    if k < 0.63:
        dc = near(rng, c, r, s * rng.choice([0.3, 0.6, 1.0]))
        j, P = gen_polygon(rng, dc, r * rng.uniform(0.05, 0.7))
        return j, ("poly", P)
    if k < 0.72:
        pts = [gen_spoint(rng, c, r * s, legacy_ok=False) for _ in range(rng.randint(1, 4))]
        return ({"type": "MultiPoint", "coordinates": [p[0]["coordinates"] for p in pts]},
                ("all", [p[1] for p in pts]))
    if k < 0.79:
        ls = [gen_line(rng, c, r, s) for _ in range(rng.randint(1, 3))]
        return ({"type": "MultiLineString", "coordinates": [l[0]["coordinates"] for l in ls]},
                ("all", [l[1] for l in ls]))
    if k < 0.87:
        caps = disjoint_centers(rng, near(rng, c, r, 0.8 * s), r * rng.uniform(0.05, 0.5), rng.randint(1, 3))
        ps = [gen_polygon(rng, cc, rr * 0.95) for cc, rr in caps]
        return ({"type": "MultiPolygon", "coordinates": [p[0]["coordinates"] for p in ps]},
                ("all", [("poly", p[1]) for p in ps]))
    if k < 0.94 and depth == 0:
        ms = []
        for _ in range(rng.randint(1, 3)):
            while True:
                m = gen_doc_geom(rng, c, r, 1, s)
                if isinstance(m[0], dict) and m[0].get("type") in (
                        "Point", "LineString", "Polygon", "MultiPoint"):
                    break
            ms.append(m)
        return ({"type": "GeometryCollection", "geometries": [m[0] for m in ms]},
                ("all", [m[1] for m in ms]))
    # an array of legacy points
    ps = []
    for _ in range(rng.randint(1, 4)):
        j, v = coord(near(rng, c, r, 1.5 * s), rng)
        ps.append((j, ("pt", v, tuple(j))))
    return [p[0] for p in ps], ("any", [p[1] for p in ps])


def gen_query_polygons(rng, c, r):
    """(GeoJSON Polygon or MultiPolygon, [SPoly])."""
    if rng.random() < 0.7:
        j, P = gen_polygon(rng, c, r)
        return j, [P]
    caps = disjoint_centers(rng, c, r, rng.randint(2, 3))
    ps = [gen_polygon(rng, cc, rr * 0.95) for cc, rr in caps]
    return ({"type": "MultiPolygon", "coordinates": [p[0]["coordinates"] for p in ps]},
            [p[1] for p in ps])


def gen_query_geometry(rng, c, r):
    """Any GeoJSON geometry, for $geoIntersects."""
    k = rng.random()
    if k < 0.12:
        j, v = coord(near(rng, c, r, 0.8), rng)
        return {"type": "Point", "coordinates": j}, ("pt", v, tuple(j))
    if k < 0.3:
        return gen_line(rng, c, r)
    if k < 0.65:
        j, P = gen_polygon(rng, c, r)
        return j, ("poly", P)
    if k < 0.72:
        pts = [coord(near(rng, c, r), rng) for _ in range(rng.randint(1, 4))]
        return ({"type": "MultiPoint", "coordinates": [p[0] for p in pts]},
                ("all", [("pt", p[1], tuple(p[0])) for p in pts]))
    if k < 0.8:
        ls = [gen_line(rng, c, r) for _ in range(rng.randint(1, 3))]
        return ({"type": "MultiLineString", "coordinates": [l[0]["coordinates"] for l in ls]},
                ("all", [l[1] for l in ls]))
    if k < 0.9:
        j, Q = gen_query_polygons(rng, c, r)
        if j["type"] == "Polygon":
            return j, ("poly", Q[0])
        return j, ("all", [("poly", P) for P in Q])
    ms = []
    for _ in range(rng.randint(1, 3)):
        kk = rng.random()
        if kk < 0.3:
            j, v = coord(near(rng, c, r), rng)
            ms.append(({"type": "Point", "coordinates": j}, ("pt", v, tuple(j))))
        elif kk < 0.6:
            ms.append(gen_line(rng, c, r))
        else:
            j, P = gen_polygon(rng, near(rng, c, r, 0.8), r * rng.uniform(0.2, 0.7))
            ms.append((j, ("poly", P)))
    return ({"type": "GeometryCollection", "geometries": [m[0] for m in ms]},
            ("all", [m[1] for m in ms]))


NON_GEOMETRIES = ["abc", 5, 2.5, None, True, {}, [], {"a": "x", "b": 2}, {"type": "Point"},
                  [1], ["1", "2"], {"type": "Polygon", "coordinates": []}, [[]]]


def maybe_non_geometry(rng, doc_j, doc_m):
    if rng.random() < 0.03:
        return rng.choice(NON_GEOMETRIES + ["MISSING"]), ("none",)
    return doc_j, doc_m


# ---- flat (legacy) shapes --

def flat_num(rng, lo, hi):
    if rng.random() < 0.4:
        return rng.randint(int(lo), int(hi))
    return round(rng.uniform(lo, hi), rng.choice([1, 3, 6]))


def gen_flat_case(rng):
    """(filter op JSON, predicate on (x, y), margin function, near-sampler)."""
    k = rng.random()
    span = rng.choice([10, 100, 180, 1000])
    if k < 0.35:
        a = [flat_num(rng, -span, span), flat_num(rng, -span / 2, span / 2)]
        b = [flat_num(rng, -span, span), flat_num(rng, -span / 2, span / 2)]
        if a[0] == b[0] or a[1] == b[1]:
            b = [b[0] + 1, b[1] + 1]
        x0, x1 = sorted([a[0], b[0]])
        y0, y1 = sorted([a[1], b[1]])
        op = {"$box": [a, b]}
        pred = lambda x, y: x0 <= x <= x1 and y0 <= y <= y1

        def amb(x, y):
            dx = min(abs(x - x0), abs(x - x1))
            dy = min(abs(y - y0), abs(y - y1))
            on = (dx == 0 and y0 <= y <= y1) or (dy == 0 and x0 <= x <= x1)
            return not on and ((dx < EPS and y0 - EPS <= y <= y1 + EPS) or
                               (dy < EPS and x0 - EPS <= x <= x1 + EPS))

        def sample():
            if rng.random() < 0.1 and all(isinstance(t, int) for t in (x0, x1, y0, y1)):
                return rng.choice([x0, x1, rng.randint(x0, x1)]), rng.choice([y0, y1])
            w, h = x1 - x0, y1 - y0
            return (flat_num(rng, x0 - w / 2, x1 + w / 2), flat_num(rng, y0 - h / 2, y1 + h / 2))
        return op, pred, amb, sample
    if k < 0.65:
        cx, cy = flat_num(rng, -span, span), flat_num(rng, -span / 2, span / 2)
        rad = flat_num(rng, 0.5, span / 2)
        if rad == 0:
            rad = 1
        op = {"$center": [[cx, cy], rad]}
        pred = lambda x, y: math.hypot(x - cx, y - cy) <= rad
        amb = lambda x, y: abs(math.hypot(x - cx, y - cy) - rad) < EPS * (1 + rad)
        sample = lambda: (flat_num(rng, cx - 2 * rad, cx + 2 * rad), flat_num(rng, cy - 2 * rad, cy + 2 * rad))
        return op, pred, amb, sample
    cx, cy = flat_num(rng, -span, span), flat_num(rng, -span / 2, span / 2)
    rad = flat_num(rng, 1, span / 2) or 1
    n = rng.randint(3, 10)
    while True:
        thetas = sorted(rng.uniform(0, TAU) for _ in range(n))
        gaps = [thetas[i] - thetas[i - 1] for i in range(1, n)] + [thetas[0] + TAU - thetas[-1]]
        if max(gaps) < 0.9 * math.pi and min(gaps) > 0.05:
            break
    pts = [[round(cx + rad * rr * math.cos(t), 4), round(cy + rad * rr * math.sin(t), 4)]
           for t in thetas for rr in [rng.uniform(0.3, 1.0)]]
    if rng.random() < 0.5:
        pts.reverse()
    ring = [tuple(p) for p in pts]
    op = {"$polygon": pts}
    pred = lambda x, y: ray_cast((x, y), ring)

    def amb(x, y):
        for i in range(len(ring)):
            (x1, y1), (x2, y2) = ring[i - 1], ring[i]
            dx, dy = x2 - x1, y2 - y1
            t = max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)))
            if math.hypot(x - x1 - t * dx, y - y1 - t * dy) < EPS * (1 + rad):
                return True
        return False
    sample = lambda: (flat_num(rng, cx - rad, cx + rad), flat_num(rng, cy - rad, cy + rad))
    return op, pred, amb, sample


def flat_doc(rng, sample):
    """(doc loc JSON, [(x, y)] whose any match counts, or [] for no point)."""
    k = rng.random()
    x, y = sample()
    if k < 0.35:
        return [x, y], [(x, y)]
    if k < 0.5:
        return {"x": x, "y": y}, [(x, y)]
    if k < 0.55:
        return {"lon": x, "lat": y, "z": "more"}, [(x, y)]
    if k < 0.75:
        if -180 <= x <= 180 and -90 <= y <= 90:
            return {"type": "Point", "coordinates": [x, y]}, [(x, y)]
        return [x, y], [(x, y)]
    if k < 0.88:
        ps = [sample() for _ in range(rng.randint(1, 4))]
        return [list(p) for p in ps], ps
    # a geometry that is not a single point: never matches a flat shape
    kk = rng.random()
    x2, y2 = sample()
    cl = lambda v, m: max(-m, min(m, v))
    x, y, x2, y2 = cl(x, 180), cl(y, 90), cl(x2, 180), cl(y2, 90)
    if kk < 0.4 and (x, y) != (x2, y2):
        return {"type": "MultiPoint", "coordinates": [[x, y], [x2, y2]]}, []
    if kk < 0.7 and (x, y) != (x2, y2):
        return {"type": "LineString", "coordinates": [[x, y], [x2, y2]]}, []
    return rng.choice(NON_GEOMETRIES), []


# ---- invalid queries and malformed documents --

def rand_ll(rng):
    return [round(rng.uniform(-170, 170), 3), round(rng.uniform(-70, 70), 3)]


def invalid_query(rng):
    lng, lat = rand_ll(rng)
    d = rng.uniform(0.5, 5)
    op = rng.choice(["$geoWithin", "$geoIntersects"])
    k = rng.randrange(9)
    sq = [[lng, lat], [lng + d, lat], [lng + d, lat + d], [lng, lat + d]]
    if k == 0:      # unclosed ring
        return "unclosed ring", {op: {"$geometry": {"type": "Polygon", "coordinates": [sq]}}}
    if k == 1:      # fewer than 3 distinct vertices
        return "2 distinct vertices", {op: {"$geometry": {"type": "Polygon", "coordinates": [
            [[lng, lat], [lng + d, lat + d], [lng + d, lat + d], [lng, lat]]]}}}
    if k == 2:      # bow-tie
        return "bow-tie ring", {op: {"$geometry": {"type": rng.choice(["Polygon", "MultiPolygon"]),
                                                   "coordinates": None}}}
    if k == 3:
        bad = rng.choice([95, -95, 90.5, 200])
        if rng.random() < 0.5:
            return "latitude out of range", {op: {"$geometry": {"type": "Polygon", "coordinates": [
                [[lng, lat], [lng + d, lat], [lng, bad], [lng, lat]]]}}}
        return "latitude out of range", {"$geoIntersects": {"$geometry": {"type": "Point",
                                                                          "coordinates": [lng, bad]}}}
    if k == 4:
        return "negative $centerSphere radius", {"$geoWithin": {"$centerSphere": [[lng, lat], -rng.uniform(0.01, 1)]}}
    if k == 5:
        return "$box non-numeric point", {"$geoWithin": {"$box": [[lng, rng.choice(["a", None, [1]])], [lng + d, lat]]}}
    if k == 6:
        return "$geoIntersects with $box", {"$geoIntersects": {"$box": [[lng, lat], [lng + d, lat + d]]}}
    if k == 7:
        return "$geoWithin with Point", {"$geoWithin": {"$geometry": {"type": "Point", "coordinates": [lng, lat]}}}
    return "$polygon with 2 points", {"$geoWithin": {"$polygon": [[lng, lat], [lng + d, lat + d]]}}


def bowtie(lng, lat, d):
    return [[lng, lat], [lng + d, lat + d], [lng + d, lat], [lng, lat + d], [lng, lat]]


def fix_invalid_query(rng, name, q):
    (op, body), = q.items()
    if name == "bow-tie ring":
        lng, lat = rand_ll(rng)
        d = rng.uniform(0.5, 5)
        ring = bowtie(lng, lat, d)
        g = body["$geometry"]
        g["coordinates"] = [ring] if g["type"] == "Polygon" else [[ring]]
    return q


def malformed_doc(rng, lng, lat):
    """A document geometry near (lng, lat) that is not valid: (name, JSON)."""
    d = rng.uniform(0.01, 0.5)
    k = rng.randrange(8)
    if k == 0:
        return "bow-tie polygon", {"type": "Polygon", "coordinates": [bowtie(lng - d / 2, lat - d / 2, d)]}
    if k == 1:
        return "unclosed ring", {"type": "Polygon", "coordinates": [
            [[lng, lat], [lng + d, lat], [lng + d, lat + d], [lng, lat + d]]]}
    if k == 2:
        return "Point lat 200", {"type": "Point", "coordinates": [lng, rng.choice([200, -200, 90.5])]}
    if k == 3:
        return "Point lng 500", {"type": "Point", "coordinates": [rng.choice([500, -500, 180.5]), lat]}
    if k == 4:
        return "LineString of 1 point", {"type": "LineString", "coordinates": [[lng, lat]]}
    if k == 5:
        return "ring of 3 positions", {"type": "Polygon", "coordinates": [[[lng, lat], [lng + d, lat], [lng, lat]]]}
    if k == 6:
        return "unknown type", {"type": rng.choice(["Pointy", "point", "Circle"]), "coordinates": [lng, lat]}
    return "MultiPoint with a bad point", {"type": "MultiPoint", "coordinates": [[lng, lat], [lng, 100]]}


# ------------------------------------------------------------- the cases --

def spherical_case(rng, kind):
    """(category, filter op, doc loc JSON or "MISSING", expected) or None to redraw."""
    c = rand_center(rng)
    r = rand_radius(rng)
    if kind == "within":
        qj, Q = gen_query_polygons(rng, c, r)
        focus = rng.choice(Q)
        dj, dm = gen_doc_geom(rng, focus.c if rng.random() < 0.5 else c, r)
        dj, dm = maybe_non_geometry(rng, dj, dm)
        if len(Q) > 1 and rng.random() < 0.25:
            dj, dm = spread_doc(rng, Q)
        elif rng.random() < 0.4:
            dj, dm = hole_targeted_doc(rng, Q, dj, dm)
        qm = ("all", [("poly", P) for P in Q])
        if ambiguous(dm, qm):
            return None
        return ("$geoWithin " + qj["type"] + " / " + doc_kind(dj), {"$geoWithin": {"$geometry": qj}},
                dj, within(dm, Q))
    if kind == "intersects":
        qj, qm = gen_query_geometry(rng, c, r)
        dj, dm = gen_doc_geom(rng, c, r)
        if qm[0] == "pt" and rng.random() < 0.3:       # the same point
            j = qj["coordinates"]
            dj, dm = rng.choice([qj, j]), ("pt", qm[1], tuple(j))
        elif rng.random() < 0.35:
            dj, dm = targeted_doc(rng, qm, r)
        elif rng.random() < 0.15:
            dj, dm = hole_targeted_doc(rng, [p[1] for p in prims(qm) if p[0] == "poly"], dj, dm)
        dj, dm = maybe_non_geometry(rng, dj, dm)
        if ambiguous(dm, qm):
            return None
        return ("$geoIntersects " + qj["type"] + " / " + doc_kind(dj), {"$geoIntersects": {"$geometry": qj}},
                dj, intersects(dm, qm))
    # $centerSphere
    cj, cv = coord(c, rng)
    rad = r if rng.random() < 0.8 else rng.uniform(1.0, 2.5)
    rad = round(rad, rng.choice([3, 6, 9]))
    k = rng.random()
    if k < 0.4:
        dj, dm = gen_spoint(rng, cv, rad)
    elif k < 0.55:
        pts = [gen_spoint(rng, cv, rad, legacy_ok=False) for _ in range(rng.randint(1, 4))]
        dj, dm = ({"type": "MultiPoint", "coordinates": [p[0]["coordinates"] for p in pts]},
                  ("all", [p[1] for p in pts]))
    elif k < 0.62:
        pts = [gen_spoint(rng, cv, rad, legacy_ok=False) for _ in range(rng.randint(1, 3))]
        dj, dm = ({"type": "GeometryCollection", "geometries": [p[0] for p in pts]},
                  ("all", [p[1] for p in pts]))
    elif k < 0.75:
        ps = [coord(near(rng, cv, rad, 1.5), rng) for _ in range(rng.randint(1, 4))]
        dj, dm = [p[0] for p in ps], ("any", [("pt", p[1], tuple(p[0])) for p in ps])
    else:
        dj, dm = gen_doc_geom(rng, cv, min(rad, 1.0) * 0.5)
        if rng.random() < 0.6 and isinstance(dj, dict):
            # a small line or polygon wholly inside the cap: a match
            if rng.random() < 0.5:
                dj, dm = gen_line(rng, cv, min(rad, 1.0) * 0.1)
            else:
                dj, P = gen_polygon(rng, cv, min(rad, 1.0) * 0.2)
                dm = ("poly", P)
    dj, dm = maybe_non_geometry(rng, dj, dm)
    want = within_cap(dm, cv, rad)
    for p in prims(dm):
        if p[0] == "pt" and abs(angle(p[1], cv) - rad) < EPS:
            return None
    if cap_ambiguous(dm, cv, rad):
        return None
    return "$centerSphere / " + doc_kind(dj), {"$geoWithin": {"$centerSphere": [cj, rad]}}, dj, want


def targeted_doc(rng, qm, r):
    """A document geometry aimed at a member of the query geometry qm: a
    polygon about one of its points, a line across one of its arcs."""
    p = rng.choice(prims(qm))
    if p[0] == "pt":
        j, P = gen_polygon(rng, near(rng, p[1], r, 0.2), r * rng.uniform(0.05, 0.5))
        return j, ("poly", P)
    arcs = line_arcs(p[1]) if p[0] == "line" else p[1].arcs
    a, b = rng.choice(arcs)
    m = unit(add(a, b))
    d = angle(a, b) * rng.uniform(0.05, 1.0)
    th = rng.uniform(0, TAU)
    out = [coord(offset(m, d * rng.uniform(0.1, 1), th), rng), coord(offset(m, d * rng.uniform(0.1, 1), th + math.pi), rng)]
    if rng.random() < 0.3:
        out.append(coord(offset(out[-1][1], d, rng.uniform(0, TAU)), rng))
    line = {"type": "LineString", "coordinates": [o[0] for o in out]}
    if rng.random() < 0.3:
        return {"type": "MultiLineString", "coordinates": [line["coordinates"]]}, ("all", [("line", [o[1] for o in out])])
    return line, ("line", [o[1] for o in out])


def spread_doc(rng, Q):
    """A Multi* or GeometryCollection with a member near each of the
    MultiPolygon's polygons Q (within when each is inside its own polygon),
    or a line from one polygon to another (never within)."""
    k = rng.random()
    if k < 0.15:
        a, b = rng.sample(Q, 2)
        ja, va = coord(a.c)
        jb, vb = coord(b.c)
        return {"type": "LineString", "coordinates": [ja, jb]}, ("line", [va, vb])
    ms = []
    for P in Q:
        r = max(angle(P.c, v) for v in P.rings[0])
        if k < 0.5:
            j, v = coord(near(rng, P.c, r, 0.6), rng)
            ms.append(({"type": "Point", "coordinates": j}, ("pt", v, tuple(j))))
        elif k < 0.8:
            j, D = gen_polygon(rng, near(rng, P.c, r, 0.3), r * rng.uniform(0.05, 0.4), holes=0)
            ms.append((j, ("poly", D)))
        else:
            ms.append(gen_line(rng, P.c, r * 0.3, 1.0))
    if k < 0.5:
        return ({"type": "MultiPoint", "coordinates": [m[0]["coordinates"] for m in ms]},
                ("all", [m[1] for m in ms]))
    if k < 0.8 and rng.random() < 0.6:
        return ({"type": "MultiPolygon", "coordinates": [m[0]["coordinates"] for m in ms]},
                ("all", [m[1] for m in ms]))
    return ({"type": "GeometryCollection", "geometries": [m[0] for m in ms]}, ("all", [m[1] for m in ms]))


def hole_targeted_doc(rng, Q, dj, dm):
    """A document geometry in, or about, a hole of one of the polygons Q
    (dj, dm unchanged when none has a hole)."""
    holes = [(P, k) for P in Q for k in range(1, len(P.rings))]
    if not holes:
        return dj, dm
    P, k = rng.choice(holes)
    h = unit(sum_vecs(P.rings[k]))
    if not P.in_ring(k, h):
        return dj, dm
    d = min(dist_arc(h, a, b) for a, b in P.arcs)
    far = max(angle(h, v) for v in P.rings[k])
    t = rng.random()
    if t < 0.2:
        j, v = coord(near(rng, h, d, 0.9), rng)
        return rng.choice([{"type": "Point", "coordinates": j}, j]), ("pt", v, tuple(j))
    if t < 0.35:
        j, D = gen_polygon(rng, h, d * rng.uniform(0.3, 0.9), holes=0)
        return j, ("poly", D)
    if t < 0.45:
        return gen_line(rng, h, d * 0.5, 1.0)
    if t < 0.85:
        # a polygon about the hole with a hole of its own inside the
        # container's hole: it still covers the rest of that hole
        dh = min(dist_arc(h, a, b) for a, b in line_arcs(P.rings[k] + P.rings[k][:1]))
        hc = near(rng, h, dh, 0.2)
        for _ in range(10):
            sc, sv = gen_ring(rng, h, far * rng.uniform(1.1, 2.5))
            ic, iv = gen_ring(rng, hc, dh * rng.uniform(0.3, 0.75), rng.randint(3, 8))
            try:
                D = SPoly([sv, iv], h)
            except Degenerate:
                continue
            if valid_spoly(D):
                return {"type": "Polygon", "coordinates": [sc + sc[:1], ic + ic[:1]]}, ("poly", D)
    # a polygon about the hole: covers it (sometimes with a hole of its own)
    j, D = gen_polygon(rng, h, far * rng.uniform(1.1, 2.5), holes=rng.choice([0, 0, 1]))
    return j, ("poly", D)


def doc_kind(dj):
    if isinstance(dj, dict) and isinstance(dj.get("type"), str):
        return dj["type"]
    if isinstance(dj, list) and dj and all(isinstance(x, list) for x in dj):
        return "legacy array"
    if isinstance(dj, list) and len(dj) == 2 and all(isinstance(x, (int, float)) for x in dj):
        return "legacy [x,y]"
    if isinstance(dj, dict) and len(dj) >= 2 and all(isinstance(x, (int, float)) for x in list(dj.values())[:2]):
        return "legacy {x,y}"
    return "non-geometry"


def flat_case(rng):
    op, pred, amb, sample = gen_flat_case(rng)
    dj, pts = flat_doc(rng, sample)
    if rng.random() < 0.03:
        dj, pts = "MISSING", []
    if any(amb(x, y) for x, y in pts):
        return None
    name = list(op)[0]
    return name + " / " + doc_kind(dj), {"$geoWithin": op}, dj, any(pred(x, y) for x, y in pts)


def make_case(rng):
    while True:
        k = rng.random()
        if k < 0.05:
            name, q = invalid_query(rng)
            q = fix_invalid_query(rng, name, q)
            dj = {"type": "Point", "coordinates": rand_ll(rng)} if rng.random() < 0.5 else rand_ll(rng)
            return "invalid query: " + name, q, dj, "error"
        if k < 0.10:
            kind = rng.choice(["within", "intersects", "centerSphere"])
            lng, lat = rand_ll(rng)
            name, dj = malformed_doc(rng, lng, lat)
            if kind == "within":
                q = {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [
                    [[lng - 3, lat - 3], [lng + 3, lat - 3], [lng + 3, lat + 3], [lng - 3, lat + 3], [lng - 3, lat - 3]]]}}}
            elif kind == "intersects":
                q = {"$geoIntersects": {"$geometry": {"type": "Polygon", "coordinates": [
                    [[lng - 3, lat - 3], [lng + 3, lat - 3], [lng + 3, lat + 3], [lng - 3, lat + 3], [lng - 3, lat - 3]]]}}}
            else:
                q = {"$geoWithin": {"$centerSphere": [[lng, lat], 0.1]}}
            return "malformed doc: " + name, q, dj, False
        k = (k - 0.10) / 0.90
        if k < 0.40:
            c = spherical_case(rng, "within")
        elif k < 0.70:
            c = spherical_case(rng, "intersects")
        elif k < 0.85:
            c = spherical_case(rng, "centerSphere")
        else:
            c = flat_case(rng)
        if c is not None:
            return c


# ---------------------------------------------------------- fixed cases --
# Checked by hand (the comments give the arithmetic) and, in selftest(),
# against the model.

def _sq(x0, y0, x1, y1):
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]


def _within(*rings):
    return {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": list(rings)}}}


def _inter(geo):
    return {"$geoIntersects": {"$geometry": geo}}


def _pt(lng, lat):
    return {"type": "Point", "coordinates": [lng, lat]}


def _poly(*rings):
    return {"type": "Polygon", "coordinates": list(rings)}


_POLE = [[0, 80], [90, 80], [180, 80], [-90, 80], [0, 80]]
_AM = [[170, -10], [-170, -10], [-170, 10], [170, 10], [170, -10]]
FIXED = [
    # the edge [0,10]-[10,10] is a geodesic: at lng 5 it reaches
    # atan(tan 10 / cos 5) = 10.0382 degrees
    ("geodesic edge bulges north", _within(_sq(0, 0, 10, 10)), _pt(5, 10.03), True),
    ("geodesic edge bulges north", _within(_sq(0, 0, 10, 10)), [5, 10.05], False),
    ("clockwise ring, same region", _within(_sq(0, 0, 10, 10)[::-1]), _pt(5, 10.03), True),
    ("clockwise ring, same region", _within(_sq(0, 0, 10, 10)[::-1]), _pt(15, 5), False),
    # about the pole: the edge [0,80]-[90,80] reaches atan(tan 80 / cos 45) = 82.9 at lng 45
    ("ring about the pole", _within(_POLE), _pt(45, 83.5), True),
    ("ring about the pole", _within(_POLE), _pt(45, 82.5), False),
    ("ring about the pole", _within(_POLE), _pt(123, 90), True),
    ("ring about the pole", _within(_POLE), [0, 80.5], True),
    ("ring across the antimeridian", _within(_AM), _pt(180, 0), True),
    ("ring across the antimeridian", _within(_AM), _pt(-180, 3), True),
    ("ring across the antimeridian", _within(_AM), _pt(0, 0), False),
    ("ring across the antimeridian", _within(_AM), [175, -5], True),
    ("point in a hole", _within(_sq(0, 0, 10, 10), _sq(4, 4, 6, 6)), _pt(5, 5), False),
    ("point outside a hole", _within(_sq(0, 0, 10, 10), _sq(4, 4, 6, 6)), _pt(2, 5), True),
    # a document polygon about the container's hole, with its own hole inside
    # that hole: [4.2, 4.2] (and [5, 5] for the second) is in the document
    # and in the container's hole, so the document is not within
    ("doc hole inside container hole", _within(_sq(0, 0, 10, 10), _sq(4, 4, 6, 6)[::-1]),
     _poly(_sq(2, 2, 8, 8), _sq(4.5, 4.5, 5.5, 5.5)), False),
    ("doc hole inside container hole", _within(_sq(0, 0, 10, 10), _sq(4, 4, 6, 6)),
     _poly(_sq(2, 2, 8, 8), _sq(4.1, 4.1, 5.9, 4.5)), False),
    ("doc hole about container hole", _within(_sq(0, 0, 10, 10), _sq(4, 4, 6, 6)),
     _poly(_sq(2, 2, 8, 8), _sq(3, 3, 7, 7)), True),
    ("doc polygon covering a hole", _within(_sq(0, 0, 10, 10), _sq(4, 4, 6, 6)),
     _poly(_sq(2, 2, 8, 8)), False),
    # the geodesic [0,10]-[10,10] passes lng 5 at 10.0382
    ("lines: geodesic passes above", _inter({"type": "LineString", "coordinates": [[0, 10], [10, 10]]}),
     {"type": "LineString", "coordinates": [[5, 10], [5, 10.02]]}, False),
    ("lines: geodesic crosses", _inter({"type": "LineString", "coordinates": [[0, 10], [10, 10]]}),
     {"type": "LineString", "coordinates": [[5, 10], [5, 10.05]]}, True),
    ("lines across the antimeridian", _inter({"type": "LineString", "coordinates": [[179, 0], [-179, 0]]}),
     {"type": "LineString", "coordinates": [[180, -1], [180, 1]]}, True),
    ("lines: short way round", _inter({"type": "LineString", "coordinates": [[179, 0], [-179, 0]]}),
     {"type": "LineString", "coordinates": [[0, -1], [0, 1]]}, False),
    ("polygon in a hole does not intersect", _inter(_poly(_sq(0, 0, 10, 10), _sq(3, 3, 7, 7))),
     _poly(_sq(4, 4, 6, 6)), False),
    ("polygon inside polygon intersects", _inter(_poly(_sq(0, 0, 10, 10))), _poly(_sq(4, 4, 6, 6)), True),
    # from [0,89]: [180,89] is 2 degrees = 0.0349 rad; [90,89] is
    # acos(sin^2 89 + cos^2 89 cos 90) = 0.0247 rad; [0,86] is 3 degrees = 0.0524 rad
    ("$centerSphere over the pole", {"$geoWithin": {"$centerSphere": [[0, 89], 0.05]}}, _pt(180, 89), True),
    ("$centerSphere over the pole", {"$geoWithin": {"$centerSphere": [[0, 89], 0.05]}}, [90, 89], True),
    ("$centerSphere over the pole", {"$geoWithin": {"$centerSphere": [[0, 89], 0.05]}}, _pt(0, 86), False),
    # a line wholly inside (1.41 degrees = 0.0247 rad from the centre at most),
    # and one that leaves the circle ([0, 0] to [40, 0]: 40 degrees = 0.698 rad)
    ("$centerSphere holds lines", {"$geoWithin": {"$centerSphere": [[0, 0], 0.5]}},
     {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}, True),
    ("$centerSphere holds lines", {"$geoWithin": {"$centerSphere": [[0, 0], 0.5]}},
     {"type": "LineString", "coordinates": [[0, 0], [40, 0]]}, False),
    # flat shapes are plain x/y: this $box is -170 <= x <= 170
    ("flat $box is not spherical", {"$geoWithin": {"$box": [[170, -10], [-170, 10]]}}, _pt(180, 0), False),
    ("flat $box is not spherical", {"$geoWithin": {"$box": [[170, -10], [-170, 10]]}}, _pt(0, 0), True),
    ("$box boundary included", {"$geoWithin": {"$box": [[0, 0], [10, 10]]}}, [10, 5], True),
    ("$center", {"$geoWithin": {"$center": [[0, 0], 5.5]}}, {"x": 3, "y": 4}, True),
    ("$center off the sphere", {"$geoWithin": {"$center": [[500, 0], 10]}}, [505, 5], True),
    ("$polygon", {"$geoWithin": {"$polygon": [[0, 0], [10, 0], [0, 10]]}}, [2, 2], True),
    ("$polygon", {"$geoWithin": {"$polygon": [[0, 0], [10, 0], [0, 10]]}}, [6, 6], False),
    ("$polygon: not a line", {"$geoWithin": {"$polygon": [[0, 0], [10, 0], [0, 10]]}},
     {"type": "LineString", "coordinates": [[1, 1], [2, 2]]}, False),
    ("array of legacy points", _within(_sq(0, 0, 10, 10)), [[100, 50], [5, 5]], True),
    ("array of legacy points", _within(_sq(0, 0, 10, 10)), [[100, 50], [15, 5]], False),
    ("legacy point off the sphere", _within(_sq(0, 0, 10, 10)), [365, 5], False),
]


def parse_geo(j):
    """A model geometry from a document's JSON (valid input assumed)."""
    def rings(co):
        return SPoly([[vec(*p) for p in r[:-1]] for r in co])
    if isinstance(j, list):
        if j and all(isinstance(x, list) for x in j):
            return ("any", [parse_geo(x) for x in j])
        ok = -180 <= j[0] <= 180 and -90 <= j[1] <= 90
        return ("pt", vec(*j) if ok else None, tuple(j))
    t = j.get("type")
    if t == "Point":
        return ("pt", vec(*j["coordinates"]), tuple(j["coordinates"]))
    if t == "LineString":
        return ("line", [vec(*p) for p in j["coordinates"]])
    if t == "Polygon":
        return ("poly", rings(j["coordinates"]))
    x, y = list(j.values())[:2]
    return ("pt", vec(x, y) if -180 <= x <= 180 and -90 <= y <= 90 else None, (x, y))


def model_fixed(op, loc):
    (name, body), = op.items()
    g = parse_geo(loc)
    if "$geometry" in body:
        q = parse_geo(body["$geometry"])
        return within(g, [q[1]]) if name == "$geoWithin" else intersects(g, q)
    if "$centerSphere" in body:
        (c, r) = body["$centerSphere"]
        return within_cap(g, vec(*c), r)
    return None                         # flat: checked by hand only


# ------------------------------------------------------------- $geoNear --
# The aggregation stage $geoNear (docext has no geo index, so "key" names the
# locations and every document the "query" finds is measured). A case is a
# near point, a fresh collection of 1 to 10 documents and the stage's
# options; the model gives the documents in order, each with its distance
# and the location that gave it.
#
#   * near a GeoJSON Point: metres on the sphere, the great-circle angle in
#     radians times 6378100 (spherical true, false or absent alike);
#     a legacy [x, y] with spherical: true: radians on the sphere; a legacy
#     [x, y] otherwise: Euclidean distance on the raw numbers.
#   * on the sphere a location is any valid GeoJSON geometry (distance to its
#     nearest point: 0 inside a polygon, and a point in a hole is at the
#     distance of the hole's edge) or a legacy point in range; in the plane
#     only one point: a legacy point (any numbers) or a GeoJSON Point's
#     (lng, lat). An array of legacy (or GeoJSON) points, or the value at
#     a key that goes through an array of subdocuments, gives one candidate
#     per element: the document is at the least of its candidates' distances
#     and includeLocs gets that candidate. No measurable candidate: left out.
#   * minDistance <= d <= maxDistance (in the unit above) before
#     distanceMultiplier; ascending distance, ties in insertion order.
#
# Tolerances. The model computes angles as atan2(|a x b|, a . b) and the
# distance to an arc's great circle as atan2(|p . n|, |p x n|) with n from
# (a + b) x (b - a) (no cancellation in the product for short arcs), so its
# error is a few ulps: ~1e-16 rad, ~1e-9 m (a 38 m distance to a hole's edge
# agreed with a 60-digit computation to 1.4e-9 m). docext reads the same
# doubles; we allow 1e-9 relative plus 1e-6 m (1.6e-13 rad) for metres,
# 1e-12 rad for radians and 1e-12 for the plane (where both compute
# sqrt(dx^2 + dy^2) of the same dx, dy). That is loose against rounding but
# tight enough to catch an acos(a . b) formula (~1e-8 rad off near 0),
# haversine near antipodes, another Earth radius (6371 km is 1e-3 off),
# degrees for radians, or the multiplier applied before the min/max filter.
# One more allowance: an edge of length L (radians) between two points known
# to half an ulp each (the cos and sin of their coordinates) fixes its great
# circle only to ~2^-52 / L, whatever the formula (docext's plain n = a x b
# has an error of that order: 2.5e-13 rad, 1.6e-6 m, on an edge of 2.6e-5
# rad); so a document whose location has edges gets 2^-52 / (its shortest
# edge) radians more (at most ~0.3 mm here, 0 for points). The same
# tolerance decides when two documents may come out in either order. Exact
# ties (the same location in two documents, or distance 0) must keep
# insertion order, and with no distanceMultiplier docext's own distances
# must be in order (equal ones in insertion order).
# A case where the near point is within EPS of a polygon's edge (inside or
# outside hangs on rounding), or a min/max bound within 10 tolerances of a
# distance it does not equal exactly, is drawn again.

R_EARTH = 6378100.0
REL_TOL = 1e-9
ABS_TOL = {"m": 1e-6, "rad": 1e-12, "flat": 1e-12}
MISSING = "MISSING"


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def arc_dist(p, a, b):
    """Angular distance from p to the minor arc ab, accurate to ~1e-16."""
    n = cross(add(a, b), sub(b, a))               # 2 a x b, without cancellation
    nn = norm(n)
    if nn == 0:
        return angle(p, a)
    n = scale(n, 1 / nn)
    if dot(cross(a, p), n) > 0 and dot(cross(p, b), n) > 0:
        return math.atan2(abs(dot(p, n)), norm(cross(p, n)))
    return min(angle(p, a), angle(p, b))


def sph_dist(p, m):
    """Angle from p to a model geometry (None: not measurable)."""
    t = m[0]
    if t == "pt":
        return None if m[1] is None else angle(p, m[1])
    if t == "line":
        return min(arc_dist(p, a, b) for a, b in line_arcs(m[1]))
    if t == "poly":
        return 0.0 if m[1].contains(p) else min(arc_dist(p, a, b) for a, b in m[1].arcs)
    if t == "all":
        ds = [sph_dist(p, x) for x in m[1]]
        return None if not ds or None in ds else min(ds)
    return None


def sph_ambiguous(p, m):
    """Is p within EPS of an edge of a polygon of m (0 or not hangs on rounding)?"""
    if m[0] == "poly":
        return min(arc_dist(p, a, b) for a, b in m[1].arcs) < EPS
    if m[0] == "all":
        return any(sph_ambiguous(p, x) for x in m[1])
    return False


def edge_slack(m):
    """2^-52 / the shortest edge of m, radians (0 without edges)."""
    t = m[0]
    arcs = line_arcs(m[1]) if t == "line" else m[1].arcs if t == "poly" else []
    out = max([2.0 ** -52 / angle(a, b) for a, b in arcs] or [0.0])
    if t in ("all", "any"):
        out = max([out] + [edge_slack(x) for x in m[1]])
    return out


def flat_dist(q, m):
    if m[0] == "pt":
        return math.hypot(m[2][0] - q[0], m[2][1] - q[1])
    return None


def expand(j, m):
    """The candidates (JSON, model) of one value at the key."""
    if m[0] == "any":
        return list(zip(j, m[1]))
    return [(j, m)]


def gn_tol(d, unit):
    return REL_TOL * abs(d) + ABS_TOL[unit]


def gn_polygon_about(rng, nv, r, hole):
    """A polygon with the near point nv inside: in its shell (about a point
    near nv) or, with hole, in a small hole about nv."""
    for _ in range(30):
        sc, sv = gen_ring(rng, near(rng, nv, r, 0.2), r * rng.uniform(0.3, 1.0))
        rings_c, rings_v = [sc], [sv]
        if hole:
            rh = r * rng.uniform(0.005, 0.05)
            hc, hv = gen_ring(rng, offset(nv, rh * rng.uniform(0, 0.5), rng.uniform(0, TAU)), rh, rng.randint(3, 8))
            rings_c.append(hc)
            rings_v.append(hv)
        P = try_spoly(rings_v, nv)
        if P is not None and valid_spoly(P) and P.in_ring(0, nv) and P.in_ring(len(rings_v) - 1, nv) == hole:
            return polygon_json(rings_c), ("poly", P)
    return None


def gn_sphere_value(rng, c, r, nv, nj):
    """A random value at the key for a spherical $geoNear about c: (JSON, model)."""
    k = rng.random()
    if k < 0.06:                        # the near point itself: distance 0
        j = list(nj)
        return rng.choice([{"type": "Point", "coordinates": j}, j]), ("pt", nv, tuple(j))
    if k < 0.16:                        # a polygon about the near point (0) or with it in a hole
        g = gn_polygon_about(rng, nv, r, rng.random() < 0.4)
        if g is not None:
            return g
    if k < 0.22:                        # an array of GeoJSON points
        ps = [gen_spoint(rng, c, r, legacy_ok=False) for _ in range(rng.randint(1, 3))]
        return [p[0] for p in ps], ("any", [p[1] for p in ps])
    if k < 0.28:                        # an array of legacy points, some off the sphere
        ps = [gen_spoint(rng, c, r) for _ in range(rng.randint(1, 4))]
        ps = [p for p in ps if isinstance(p[0], list)] or [(list(nj), ("pt", nv, tuple(nj)))]
        return [p[0] for p in ps], ("any", [p[1] for p in ps])
    if k < 0.31:
        lng, lat = lnglat(c)
        return malformed_doc(rng, round(max(-170, min(170, lng)), 3), round(max(-80, min(80, lat)), 3))[1], ("none",)
    if k < 0.34:
        return rng.choice(NON_GEOMETRIES + [MISSING]), ("none",)
    return gen_doc_geom(rng, c, r)


def gn_flat_value(rng, sample, nq):
    """A random value at the key for a planar $geoNear: (JSON, model)."""
    k = rng.random()
    if k < 0.06:
        return list(nq), ("pt", None, tuple(nq))
    if k < 0.14:                        # integer offsets: exact distances (3-4-5 ...)
        dx, dy = rng.choice([(3, 4), (5, 12), (6, 8), (8, 15), (0, 7), (1, 0)])
        sx, sy = rng.choice([1, -1]), rng.choice([1, -1])
        if rng.random() < 0.5:
            dx, dy = dy, dx
        j = [nq[0] + sx * dx, nq[1] + sy * dy]
        return j, ("pt", None, tuple(j))
    j, pts = flat_doc(rng, sample)
    if isinstance(j, list) and pts and isinstance(j[0], list):
        return j, ("any", [("pt", None, tuple(p)) for p in pts])
    if pts:
        return j, ("pt", None, tuple(pts[0]))
    return j, ("none",)


def set_path(d, path, v):
    parts = path.split(".")
    for q in parts[:-1]:
        d = d.setdefault(q, {})
    d[parts[-1]] = v


def get_path(d, path):
    for q in path.split("."):
        if not isinstance(d, dict) or q not in d:
            return MISSING
        d = d[q]
    return d


GN_DIST_FIELDS = ["dist", "calc.dist", "m.d.x"]
GN_LOC_FIELDS = ["where", "calc.loc", "hit"]


def gen_located_doc(rng, i, key, rows, value, amb):
    """Document i of a $geoNear or $near case and its locations: one or two
    (at key, or in a geo.loc array), sometimes an earlier document's; None
    when no location clear of ambiguity could be drawn."""
    if rows and rng.random() < 0.12:        # the same location as an earlier document
        vals = list(rng.choice(rows)[1])
    else:
        vals = []
        for _ in range(2 if key == "geo.loc" and rng.random() < 0.15 else 1):
            for _ in range(20):
                j, m = value()
                if not amb(m):
                    break
            else:
                return None
            vals.append((j, m))
    doc = {"_id": i, "tag": rng.randrange(4)}
    if len(vals) == 2:
        doc["geo"] = [{"loc": j} if j != MISSING else {} for j, _ in vals]
    elif vals[0][0] != MISSING:
        set_path(doc, key, vals[0][0])
    return doc, vals


def geonear_case(rng):
    """(category, $geoNear spec, [doc], expected) where expected is "error" or
    (unit, multiplier, [(id, distance, [acceptable includeLocs], nearest
    location's JSON, edge allowance)])
    in the model's order; None to draw again."""
    if rng.random() < 0.06:
        return geonear_invalid(rng)
    mode = rng.choice(["geojson", "geojson", "geojson", "legacy", "flat", "flat"])
    spec = {}
    if mode == "flat":
        _, _, _, sample = gen_flat_case(rng)
        nq = list(sample())
        spec["near"] = nq
        if rng.random() < 0.3:
            spec["spherical"] = False
        unit = "flat"
        measure = lambda m: flat_dist(nq, m)
        slack = lambda m: 0.0
        amb = lambda m: False
        value = lambda: gn_flat_value(rng, sample, nq)
    else:
        c = rand_center(rng)
        r = rand_radius(rng)
        nj, nv = coord(near(rng, c, r, 0.6), rng)
        if mode == "geojson":
            spec["near"] = {"type": "Point", "coordinates": nj}
            if rng.random() < 0.4:
                spec["spherical"] = rng.choice([True, False])
            unit, k = "m", R_EARTH
        else:
            spec["near"] = list(nj)
            spec["spherical"] = True
            unit, k = "rad", 1.0
        measure = lambda m: (lambda d: None if d is None else d * k)(sph_dist(nv, m))
        slack = lambda m: edge_slack(m) * k
        amb = lambda m: sph_ambiguous(nv, m)
        value = lambda: gn_sphere_value(rng, c, r, nv, nj)
    dist_field = rng.choice(GN_DIST_FIELDS)
    key = rng.choice(["loc", "loc", "loc", "geo.loc"])
    spec["distanceField"] = dist_field
    spec["key"] = key
    if rng.random() < 0.5:
        spec["includeLocs"] = rng.choice([f for f in GN_LOC_FIELDS if f != dist_field])
    docs, rows = [], []
    for i in range(rng.randint(1, 10)):
        made = gen_located_doc(rng, i, key, rows, value, amb)
        if made is None:
            return None
        doc, vals = made
        if rng.random() < 0.1:
            doc["calc"] = {"other": i}
        cands = [(cj, measure(cm), slack(cm)) for j, m in vals if j != MISSING for cj, cm in expand(j, m)]
        cands = [c for c in cands if c[1] is not None]
        docs.append(doc)
        rows.append((doc, vals, cands))
    ds = sorted((min(c[1] for c in cands), max(c[2] for c in cands)) for _, _, cands in rows if cands)
    if rng.random() < 0.3:
        spec["query"] = rng.choice([{"tag": {"$in": sorted(rng.sample(range(4), 2))}},
                                    {"tag": {"$ne": rng.randrange(4)}}])
    lo, hi = 0.0, math.inf
    for opt in ("maxDistance", "minDistance"):
        if rng.random() < 0.25:
            if ds and rng.random() < 0.5:
                b = rng.choice(ds)[0]            # exact: 0, or an integer in the plane
                if not (b == 0 or (unit == "flat" and b == int(b))):
                    b = b * rng.uniform(0.5, 1.5)
            else:
                b = rng.choice([0, 0.5, 1.0, 2.0, 10.0]) * (ds[-1][0] if ds else 1.0)
            exact = b == 0 or (unit == "flat" and b == int(b))
            if any(not (exact and d == b) and abs(d - b) < 10 * (gn_tol(d, unit) + e) for d, e in ds):
                continue
            spec[opt] = b
            if opt == "maxDistance":
                hi = b
            else:
                lo = b
    mult = 1.0
    if rng.random() < 0.3:
        mult = rng.choice([0, 0.001, 1, 2.5, 6378.1, 1e-6])
        spec["distanceMultiplier"] = mult
    q = spec.get("query", {}).get("tag")
    want = []
    for ins, (doc, vals, cands) in enumerate(rows):
        if not cands:
            continue
        if q is not None and not (doc["tag"] in q["$in"] if "$in" in q else doc["tag"] != q["$ne"]):
            continue
        d = min(c[1] for c in cands)
        if not (lo <= d <= hi):
            continue
        e = max(c[2] for c in cands)
        locs = [cj for cj, x, _ in cands if x - d <= gn_tol(d, unit) + 2 * e]
        want.append((doc["_id"], d, locs, json.dumps(min(cands, key=lambda t: t[1])[0], sort_keys=True), e))
    want.sort(key=lambda w: w[1])            # stable: insertion order among ties
    if rng.random() < 0.5:
        keys = list(spec)
        rng.shuffle(keys)
        spec = {kk: spec[kk] for kk in keys}
    cat = "$geoNear " + {"geojson": "GeoJSON near (m)", "legacy": "legacy near, spherical (rad)",
                         "flat": "legacy near, plane"}[mode]
    return cat, spec, docs, (unit, mult, want)


def geonear_invalid(rng):
    nj = rand_ll(rng)
    base = {"near": {"type": "Point", "coordinates": nj}, "distanceField": "d", "key": "loc"}
    k = rng.randrange(10)
    spec = dict(base)
    if k == 0:
        name = "not the first stage"
    elif k in (1, 2, 3):
        name = "missing " + ["near", "distanceField", "key"][k - 1]
        del spec[["near", "distanceField", "key"][k - 1]]
    elif k == 4:
        name, spec["maxDistance"] = "negative maxDistance", -rng.uniform(0.1, 100)
    elif k == 5:
        name, spec["near"] = "near a string", rng.choice(["abc", "[1, 2]"])
    elif k == 6:
        name, spec["near"] = "near a LineString", {"type": "LineString", "coordinates": [nj, [nj[0] + 1, nj[1]]]}
    elif k == 7:
        name = "legacy near out of range, spherical"
        spec["near"] = rng.choice([[nj[0] + 360, nj[1]], [nj[0], rng.choice([95, -91])], [-200, 0]])
        spec["spherical"] = True
    elif k == 8:
        name, spec[rng.choice(["foo", "limit", "num", "distancefield"])] = "unknown option", 1
    else:
        name, spec["minDistance"] = "negative minDistance", -rng.uniform(0.1, 100)
    docs = [{"_id": i, "loc": {"type": "Point", "coordinates": rand_ll(rng)}} for i in range(rng.randint(0, 3))]
    return "$geoNear invalid: " + name, spec, docs, "error"


# Checked by hand: (name, spec, [locations, one a document, "MISSING" for
# none], [(_id, distance, includeLocs)] expected in order).
_G = lambda lng, lat: {"type": "Point", "coordinates": [lng, lat]}
_DEG = math.pi / 180
FIXED_GEONEAR = [
    # one degree of arc is pi/180 * 6378100 = 111318.84502145034 m; half the
    # circumference pi * 6378100 = 20037392.10386106 m
    ("metres", {"near": _G(0, 0), "distanceField": "d", "key": "loc", "includeLocs": "l"},
     [_G(180, 0), [0, 1], "MISSING", "junk", {"lng": 0, "lat": -1}],
     [(1, 111318.84502145034, [0, 1]), (4, 111318.84502145034, {"lng": 0, "lat": -1}),
      (0, 20037392.10386106, _G(180, 0))]),
    ("across the antimeridian", {"near": _G(179.5, 0), "distanceField": "d", "key": "loc"},
     [_G(170, 0), _G(-179.5, 0)], [(1, 111318.84502145034, None), (0, 9.5 * 111318.84502145034, None)]),
    # over the pole: [0, 89] to [180, 89] is 2 degrees = 0.03490658503988659 rad
    ("radians over the pole", {"near": [0, 89], "spherical": True, "distanceField": "d", "key": "loc"},
     [[180, 89], [365, 0], _G(90, 90)], [(2, 1 * _DEG, None), (0, 2 * _DEG, None)]),
    # inside the square: 0; in its hole [4,4]-[6,6] at [5,5]: the nearest edge
    # is a meridian at 1 degree of longitude, sin d = cos 5 sin 1 (its foot at
    # latitude atan(tan 5 / cos 1) = 5.0008, on the edge; the edges at
    # latitude 4 and 6 bulge poleward, to 4.0006 and 6.0009 at lng 5)
    ("in a polygon, in a hole", {"near": _G(5, 5), "distanceField": "d", "key": "loc", "includeLocs": "l"},
     [_poly(_sq(4, 4, 6, 6)), _poly(_sq(0, 0, 10, 10), _sq(4, 4, 6, 6)), [[20, 20], [5, 5]]],
     [(0, 0.0, _poly(_sq(4, 4, 6, 6))), (2, 0.0, [5, 5]),
      (1, math.asin(math.cos(5 * _DEG) * math.sin(_DEG)) * R_EARTH, _poly(_sq(0, 0, 10, 10), _sq(4, 4, 6, 6)))]),
    # the plane: [3, 4] is at 5, the Point at 10, [500, 0] at 500; lines are out
    ("plane", {"near": [0, 0], "distanceField": "a.b", "key": "loc", "maxDistance": 500, "minDistance": 5},
     [[500, 0], _G(6, 8), [3, 4], {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}, [501, 0], [1, 1]],
     [(2, 5.0, None), (1, 10.0, None), (0, 500.0, None)]),
    ("multiplier after the bounds", {"near": [0, 0], "distanceField": "d", "key": "loc", "maxDistance": 5,
                                     "distanceMultiplier": 0.5},
     [[3, 4], [0, 6], [4, 3]], [(0, 2.5, None), (2, 2.5, None)]),
]


def fixed_geonear_cases():
    out = []
    for name, spec, locs, exp in FIXED_GEONEAR:
        docs = [{"_id": i} if l == MISSING else {"_id": i, "loc": l} for i, l in enumerate(locs)]
        out.append(("fixed $geoNear: " + name, spec, docs, exp))
    return out


def run_geonear(con, spec, docs, pipeline=None):
    """docext's output documents, or "error" / "error: ..." (not docext's)."""
    con.execute("DROP TABLE IF EXISTS gn")
    con.execute("CREATE VIRTUAL TABLE gn USING docext")
    for d in docs:
        con.execute("INSERT INTO gn(doc) VALUES (?)", (json.dumps(d),))
    if pipeline is None:
        pipeline = [{"$geoNear": spec}]
    try:
        return [json.loads(r[0]) for r in
                con.execute("SELECT doc FROM doc_aggregate('gn', ?)", (json.dumps(pipeline),))]
    except sqlite3.Error as e:
        return "error" if str(e).startswith("docext:") else "error: " + str(e)


def check_geonear(got, spec, docs, want):
    """None when docext's output agrees with the model, else (class, detail)."""
    if want == "error":
        return None if got == "error" else ("no error", str(got)[:300])
    if isinstance(got, str):
        return ("error", got)
    unit, mult, rows = want
    df, il = spec["distanceField"], spec.get("includeLocs")
    by_id = {w[0]: w for w in rows}
    ins = {d["_id"]: i for i, d in enumerate(docs)}
    ids = [g.get("_id") for g in got]
    if sorted(ids, key=str) != sorted(by_id, key=str) or len(set(ids)) != len(ids):
        return ("documents", "got %s, want %s" % (ids, [w[0] for w in rows]))
    dd = {}
    for g in got:
        i = g["_id"]
        _, d, locs, _, e = by_id[i]
        x = get_path(g, df)
        if not isinstance(x, (int, float)) or isinstance(x, bool) or abs(x - d * mult) > (gn_tol(d, unit) + e) * mult:
            return ("distance", "_id %s: got %r, want %r (x %r)" % (i, x, d * mult, mult))
        dd[i] = x
        if il is not None:
            loc = get_path(g, il)
            if not any(loc == l for l in locs):
                return ("includeLocs", "_id %s: got %s, want %s" % (i, json.dumps(loc), " or ".join(map(json.dumps, locs))))
        expect = json.loads(json.dumps(docs[ins[i]]))
        set_path(expect, df, x)
        if il is not None:
            set_path(expect, il, loc)
        if g != expect:
            return ("document changed", "got %s, want %s" % (json.dumps(g), json.dumps(expect)))
    for a, b in zip(ids, ids[1:]):
        da, db = by_id[a][1], by_id[b][1]
        if da - db > gn_tol(db, unit) + by_id[a][4] + by_id[b][4]:
            return ("order", "_id %s (%r) before _id %s (%r)" % (a, da, b, db))
        if ins[a] > ins[b] and (da == db == 0 or (da == db and by_id[a][3] == by_id[b][3])):
            return ("tie order", "_id %s before _id %s, both at %r from the same location" % (a, b, da))
        if mult == 1 and (dd[a] > dd[b] or (dd[a] == dd[b] and ins[a] > ins[b])):
            return ("order", "not in the order of its own distances: _id %s (%r) before _id %s (%r)"
                    % (a, dd[a], b, dd[b]))
    return None


def model_fixed_geonear(spec, docs):
    """The model's answer for a fixed case, as [(id, distance, includeLocs)]."""
    nr = spec["near"]
    if isinstance(nr, dict):
        p, k, flat = vec(*nr["coordinates"]), R_EARTH, False
    else:
        p, k, flat = vec(*nr), 1.0, not spec.get("spherical")
    rows = []
    for d in docs:
        if "loc" not in d or not isinstance(d["loc"], (list, dict)):
            continue
        m = parse_geo(d["loc"])
        best = None
        for cj, cm in expand(d["loc"], m):
            x = flat_dist(nr, cm) if flat else (None if sph_dist(p, cm) is None else sph_dist(p, cm) * k)
            if x is not None and (best is None or x < best[0]):
                best = (x, cj)
        if best is not None and spec.get("minDistance", 0) <= best[0] <= spec.get("maxDistance", math.inf):
            rows.append((d["_id"], best[0] * spec.get("distanceMultiplier", 1), best[1]))
    rows.sort(key=lambda t: t[1])
    return rows


# --------------------------------------------------- $near and $nearSphere --
# The filter operators $near and $nearSphere in a find (coll(filter, NULL,
# sort, options)), over a fresh collection of 1 to 10 documents (sometimes
# sharded on _id over two shards, with one or two chunk splits and a
# balance: the order must be the one an unsharded collection gives). The
# forms and their units:
#
#   {key: {$near: [x, y], $minDistance: a, $maxDistance: b}}      the plane
#   {key: {$near: [x, y, b]}}                                       the plane
#   {key: {$nearSphere: [lng, lat], $minDistance: a, $maxDistance: b}}   radians
#   {key: {$near | $nearSphere: {$geometry: <Point>, $minDistance: a,
#                                $maxDistance: b}}}                 metres
#   {key: {$near | $nearSphere: <Point>, $minDistance: a, $maxDistance: b}}
#                                                                   metres
#
# measured as the $geoNear model above measures (the plane: single points
# only; the sphere: any valid geometry, legacy points in range). A document
# matches when ANY of its candidate locations (one per element of an array of
# points, one per subdocument the key goes through) is within
# a <= d <= b (both inclusive; 0 and infinity by default), and other
# top-level conditions (on "tag") hold. Without a sort of its own the find
# gives them by ascending distance to the document's NEAREST candidate (in
# or out of the bounds), ties in insertion order; with {_id: 1} or {_id: -1}
# that order. skip, then limit, apply to that order.
#
# Checks: the set of _ids; for a sort by _id, exactly the order; otherwise
# each neighbour pair in distance order up to the $geoNear tolerance
# (gn_tol plus the edge allowances), and exact ties (both at 0, or the same
# nearest location JSON in both) in insertion order. A bound is exactly a
# distance (0, or an integer in the plane), 10^-7.5 to 10^-3 of it to either
# side (so a wrong unit, Earth radius or formula shows), within a factor 1.5,
# or a multiple of the largest; one within 10 tolerances of any candidate's
# distance it does not equal exactly is not set. The keys of {$geometry,
# $minDistance, $maxDistance} and the legacy siblings come in any order (as
# MongoDB's GeoNearExpression reads them). A skip or limit whose boundary falls between two documents that may
# come in either order is dropped. About 8% are invalid filters, an error
# "docext: ..." expected: $near under $or, $not or $elemMatch, two $near in
# one filter, a negative or non-numeric $maxDistance / $minDistance,
# $geometry not a GeoJSON Point, a latitude out of range, an unknown option.

NEAR_SHARE = 0.10          # of the random cases
NEAR_SHARD_SHARE = 0.2     # of the $near cases


def flat_exact(nq, m):
    """Is the plane distance from nq to the point m exact in any formula
    (integer dx and dy, so sqrt(dx^2 + dy^2) of an integer square)?"""
    if m[0] != "pt":
        return False
    dx, dy = m[2][0] - nq[0], m[2][1] - nq[1]
    d = math.hypot(dx, dy)
    return dx == int(dx) and dy == int(dy) and abs(dx) < 1e6 and abs(dy) < 1e6 and d == int(d)


def near_exact_tie(a, b):
    """Must documents a and b (model rows) keep insertion order?"""
    return (a["d"] == 0 and b["d"] == 0) or a["tie"] == b["tie"]


def near_body(rng, unit, nq, lo, hi, op=None):
    """The value at the key: {$near...} with its options (None for unset)."""
    if unit == "flat":
        if hi is not None and lo is None and rng.random() < 0.3:
            return {"$near": list(nq) + [hi]}
        body = {"$near": list(nq)}
        opts = {}
    elif unit == "rad":
        body = {"$nearSphere": list(nq)}
        opts = {}
    else:
        op = op or rng.choice(["$near", "$nearSphere"])
        pt = {"type": "Point", "coordinates": list(nq)}
        if rng.random() < 0.3:                      # a GeoJSON point in the legacy form
            body = {op: pt}
            opts = {}
        else:
            inner = {"$geometry": pt}
            if lo is not None:
                inner["$minDistance"] = lo
            if hi is not None:
                inner["$maxDistance"] = hi
            if rng.random() < 0.5:                  # MongoDB reads these in any order
                ks = list(inner)
                rng.shuffle(ks)
                inner = {k: inner[k] for k in ks}
            return {op: inner}
    if lo is not None:
        opts["$minDistance"] = lo
    if hi is not None:
        opts["$maxDistance"] = hi
    items = list(body.items()) + list(opts.items())
    if rng.random() < 0.3:
        rng.shuffle(items)
    return dict(items)


def near_case(rng):
    """(category, filter, sort, options, sharded, docs, expected) where
    expected is "error" or (unit, [row] of the matching documents in the
    model's order); None to draw again."""
    if rng.random() < 0.08:
        return near_invalid(rng)
    mode = rng.choice(["flat", "flat", "rad", "m", "m", "m"])
    if mode == "flat":
        _, _, _, sample = gen_flat_case(rng)
        nq = list(sample())
        unit = "flat"
        measure = lambda m: flat_dist(nq, m)
        slack = lambda m: 0.0
        amb = lambda m: False
        exact = lambda m, d: d == 0 or flat_exact(nq, m)
        value = lambda: gn_flat_value(rng, sample, nq)
    else:
        c = rand_center(rng)
        r = rand_radius(rng)
        nj, nv = coord(near(rng, c, r, 0.6), rng)
        nq = nj
        unit, k = ("rad", 1.0) if mode == "rad" else ("m", R_EARTH)
        measure = lambda m: (lambda d: None if d is None else d * k)(sph_dist(nv, m))
        slack = lambda m: edge_slack(m) * k
        amb = lambda m: sph_ambiguous(nv, m)
        exact = lambda m, d: d == 0
        value = lambda: gn_sphere_value(rng, c, r, nv, nj)
    key = rng.choice(["loc", "loc", "loc", "geo.loc"])
    docs, rows = [], []
    for i in range(rng.randint(1, 10)):
        made = gen_located_doc(rng, i, key, rows, value, amb)
        if made is None:
            return None
        doc, vals = made
        # candidates: (JSON, distance, edge allowance, exact)
        cands = [(cj, measure(cm), slack(cm), cm) for j, m in vals if j != MISSING for cj, cm in expand(j, m)]
        cands = [(cj, x, e, exact(cm, x)) for cj, x, e, cm in cands if x is not None]
        docs.append(doc)
        rows.append((doc, vals, cands))
    alld = [(x, e, ex) for _, _, cands in rows for _, x, e, ex in cands]
    lo = hi = None
    for opt in ("hi", "lo"):
        if rng.random() < 0.35:
            if alld and rng.random() < 0.6:
                x, e, ex = rng.choice(alld)
                t = rng.random()
                if ex and t < 0.3:
                    b = x                           # exact: 0, or an integer in the plane
                elif t < 0.6:                       # just beside a distance: the unit and formula matter
                    b = x * (1 + rng.choice([-1, 1]) * 10 ** rng.uniform(-7.5, -3))
                else:
                    b = x * rng.uniform(0.5, 1.5)
            else:
                b = rng.choice([0, 0.5, 1.0, 2.0, 10.0]) * (max(x for x, _, _ in alld) if alld else 1.0)
            if any(not (ex and x == b) and abs(x - b) < 10 * (gn_tol(x, unit) + e) for x, e, ex in alld):
                continue
            if opt == "hi":
                hi = b
            elif hi is None or b <= hi:
                lo = b
    cond = None
    if rng.random() < 0.25:
        cond = rng.choice([{"$in": sorted(rng.sample(range(4), 2))}, {"$ne": rng.randrange(4)}])
    want = []
    for ins, (doc, vals, cands) in enumerate(rows):
        if not cands:
            continue
        if cond is not None and not (doc["tag"] in cond["$in"] if "$in" in cond else doc["tag"] != cond["$ne"]):
            continue
        if not any((lo is None or lo <= x) and (hi is None or x <= hi) for _, x, _, _ in cands):
            continue
        d = min(x for _, x, _, _ in cands)
        e = max(c[2] for c in cands)
        tie = sorted(json.dumps(cj, sort_keys=True) for cj, x, _, _ in cands if x - d <= gn_tol(d, unit) + 2 * e)
        want.append({"id": doc["_id"], "ins": ins, "d": d, "e": e, "tie": tie})
    want.sort(key=lambda w: w["d"])              # stable: insertion order among ties
    flt = {key: near_body(rng, unit, nq, lo, hi)}
    if cond is not None:
        flt["tag"] = cond
        if rng.random() < 0.5:
            flt = {"tag": cond, key: flt[key]}
    sort = None
    t = rng.random()
    if t < 0.12:
        sort = {"_id": -1}
    elif t < 0.18:
        sort = {"_id": 1}
    options = None
    if rng.random() < 0.3:
        options = {}
        if rng.random() < 0.6:
            options["skip"] = rng.randint(0, 3)
        if rng.random() < 0.7 or not options:
            options["limit"] = rng.randint(1, 5)
        if sort is None:
            s = options.get("skip", 0)
            bounds = [b for b in (s, s + options.get("limit", 1 << 30)) if 0 < b < len(want)]
            for b in bounds:
                for i in range(b):
                    for j in range(b, len(want)):
                        a, z = want[i], want[j]
                        if z["d"] - a["d"] <= gn_tol(z["d"], unit) + a["e"] + z["e"] and not near_exact_tie(a, z):
                            options = None
                if options is None:
                    break
    sharded = rng.random() < NEAR_SHARD_SHARE
    op = [k for k in (flt[key] if isinstance(flt[key], dict) else {}) if k in ("$near", "$nearSphere")]
    cat = "%s %s (%s)" % (op[0] if op else "?", {"flat": "legacy, plane", "rad": "legacy, radians",
                                                  "m": "GeoJSON, metres"}[mode], unit)
    if sharded:
        cat += ", sharded"
    return cat, flt, sort, options, sharded, docs, (unit, want)


def near_invalid(rng):
    nj = rand_ll(rng)
    k = rng.randrange(10)
    good = lambda: rng.choice([{"$near": list(nj)}, {"$nearSphere": list(nj)},
                               {rng.choice(["$near", "$nearSphere"]): {"$geometry": _G(*nj)}}])
    flt = None
    if k == 0:
        name, flt = "$near under $or", {"$or": [{"loc": good()}, {"tag": 1}]}
        if rng.random() < 0.3:
            flt = {"$nor": flt["$or"]}
            name = "$near under $nor"
    elif k == 1:
        name, flt = "$near under $not", {"loc": {"$not": good()}}
    elif k == 2:
        name, flt = "$near under $elemMatch", {"loc": {"$elemMatch": good()}}
    elif k == 3:
        name, flt = "two $near", {"loc": good(), rng.choice(["geo.loc", "other"]): good()}
    elif k in (4, 5, 6):
        opt = "$minDistance" if k == 6 else "$maxDistance"
        bad = -rng.uniform(0.1, 100) if k != 5 else rng.choice(["far", [5], True, None, {"a": 1}])
        name = ("negative " if k != 5 else "non-numeric ") + opt
        form = rng.randrange(3)
        if form == 0:
            flt = {"loc": {"$near": list(nj), opt: bad}}
        elif form == 1:
            flt = {"loc": {"$nearSphere": list(nj), opt: bad}}
        else:
            flt = {"loc": {rng.choice(["$near", "$nearSphere"]): {"$geometry": _G(*nj), opt: bad}}}
    elif k == 7:
        name = "$geometry not a GeoJSON Point"
        g = rng.choice([list(nj), {"type": "LineString", "coordinates": [nj, [nj[0] + 1, nj[1]]]}, "here",
                        {"type": "Point"}])
        flt = {"loc": {rng.choice(["$near", "$nearSphere"]): {"$geometry": g}}}
    elif k == 8:
        name = "latitude out of range"
        bad = [nj[0], rng.choice([95, -95, 90.5])]
        if rng.random() < 0.6:
            flt = {"loc": {"$nearSphere": bad}}
        else:
            flt = {"loc": {rng.choice(["$near", "$nearSphere"]): {"$geometry": _G(*bad)}}}
    else:
        name = "unknown option"
        o = rng.choice(["$foo", "$maxdistance", "$within", "$center"])
        if rng.random() < 0.5:
            flt = {"loc": {rng.choice(["$near", "$nearSphere"]): list(nj), o: 1}}
        else:
            flt = {"loc": {rng.choice(["$near", "$nearSphere"]): {"$geometry": _G(*nj), o: 1}}}
    docs = [{"_id": i, "tag": i % 2, "loc": {"type": "Point", "coordinates": rand_ll(rng)}}
            for i in range(rng.randint(0, 3))]
    return "$near invalid: " + name, flt, None, None, False, docs, "error"


def run_near(con, n, flt, sort, options, sharded, docs):
    """(docext's _ids in result order, or "error" / "error: ..." (not
    docext's), the error message)."""
    if sharded:
        name = "nsh%d" % n
        con.execute("CREATE VIRTUAL TABLE %s USING docext" % name)
        con.execute("SELECT doc_shard_collection(?, '{\"_id\": 1}')", (name,)).fetchall()
    else:
        name = "nr"
        con.execute("DROP TABLE IF EXISTS nr")
        con.execute("CREATE VIRTUAL TABLE nr USING docext")
    for d in docs:
        con.execute("INSERT INTO %s(doc) VALUES (?)" % name, (json.dumps(d),))
    try:
        if sharded:
            ids = sorted(d["_id"] for d in docs)
            for k in sorted(set(ids[1:]))[:2] if len(ids) > 2 else ids[1:]:
                con.execute("SELECT doc_split_chunk(?, ?)", (name, json.dumps({"_id": k}))).fetchall()
            con.execute("SELECT doc_balance(?)", (name,)).fetchall()
        args = (json.dumps(flt),)
        sql = "SELECT json_extract(doc, '$._id') FROM %s(?)" % name
        if sort is not None or options is not None:
            sql = "SELECT json_extract(doc, '$._id') FROM %s(?, NULL, ?, ?)" % name
            args += (None if sort is None else json.dumps(sort), None if options is None else json.dumps(options))
        try:
            return [r[0] for r in con.execute(sql, args)], ""
        except sqlite3.Error as e:
            return "error" if str(e).startswith("docext:") else "error: " + str(e), str(e)
    finally:
        if sharded:
            con.execute("DROP TABLE %s" % name)


def near_window(want, sort, options):
    """The model's documents (rows) after sort, skip and limit."""
    rows = list(want)
    if sort is not None:
        rows.sort(key=lambda w: w["id"], reverse=sort["_id"] < 0)
    options = options or {}
    s = options.get("skip", 0)
    rows = rows[s:]
    if "limit" in options:
        rows = rows[:options["limit"]]
    return rows


def check_near(got, sort, options, want):
    """None when docext's _ids agree with the model, else (class, detail)."""
    if want == "error":
        return None if got == "error" else ("no error", str(got)[:300])
    if isinstance(got, str):
        return ("error", got)
    unit, rows = want
    win = near_window(rows, sort, options)
    ids = [w["id"] for w in win]
    if sorted(got, key=str) != sorted(ids, key=str) or len(set(got)) != len(got):
        return ("documents", "got %s, want %s" % (got, ids))
    if sort is not None:
        return None if got == ids else ("sort order", "got %s, want %s" % (got, ids))
    by_id = {w["id"]: w for w in rows}
    for a, b in zip(got, got[1:]):
        wa, wb = by_id[a], by_id[b]
        if wa["d"] - wb["d"] > gn_tol(wb["d"], unit) + wa["e"] + wb["e"]:
            return ("order", "_id %s (%r) before _id %s (%r)" % (a, wa["d"], b, wb["d"]))
        if wa["ins"] > wb["ins"] and near_exact_tie(wa, wb):
            return ("tie order", "_id %s before _id %s, both at %r from the same location" % (a, b, wa["d"]))
    return None


# Checked by hand: (name, filter, [locations, "MISSING" for none; a dict with
# "_tag" gives that document a tag], sort, options, sharded, [_ids in order]).
# One degree of arc is 111318.84502145034 m (0.017453292519943295 rad).
_T = lambda loc, tag: {"_tag": tag, "loc": loc}
_PLANE = [[3, 4], {"x": 6, "y": 8}, [0, 1], _G(6, 8), {"type": "LineString", "coordinates": [[0, 0], [1, 1]]},
          [11, 0], "MISSING", [-0.5, 0]]
FIXED_NEAR = [
    # distances 5, 10, 1, 10 (a Point's lng, lat), -, 11, -, 0.5; ties (1, 3)
    # at exactly 10 in insertion order; a line is not a location in the plane
    ("plane", {"loc": {"$near": [0, 0]}}, _PLANE, None, None, False, [7, 2, 0, 1, 3, 5]),
    ("plane, $maxDistance inclusive", {"loc": {"$near": [0, 0], "$maxDistance": 10}}, _PLANE, None, None, False,
     [7, 2, 0, 1, 3]),
    ("plane, [x, y, max]", {"loc": {"$near": [0, 0, 5]}}, _PLANE, None, None, False, [7, 2, 0]),
    ("plane, $minDistance inclusive", {"loc": {"$minDistance": 5, "$near": [0, 0]}}, _PLANE, None, None, False,
     [0, 1, 3, 5]),
    ("plane, skip and limit", {"loc": {"$near": [0, 0]}}, _PLANE, None, {"skip": 1, "limit": 3}, False, [2, 0, 1]),
    ("plane, a sort wins", {"loc": {"$near": [0, 0], "$maxDistance": 10}}, _PLANE, {"_id": -1},
     {"limit": 3}, False, [7, 3, 2]),
    ("plane, sharded", {"loc": {"$near": [0, 0]}}, _PLANE, None, None, True, [7, 2, 0, 1, 3, 5]),
    ("plane, sharded, skip", {"loc": {"$near": [0, 0]}}, _PLANE, None, {"skip": 2, "limit": 2}, True, [0, 1]),
    # plane units are raw numbers, off the sphere too: from [504, 0], [500, 3]
    # is 5, [505, 0] 1, [0, 0] 504
    ("plane off the sphere", {"loc": {"$near": [504, 0], "$maxDistance": 5}}, [[500, 3], [0, 0], [505, 0]],
     None, None, False, [2, 0]),
    # [[0, 0], [10, 0]] matches $minDistance 5 by [10, 0] (10) and sorts at its
    # nearest point [0, 0] (0), before [7, 0] (7); [1, 1] (1.41) is too near
    ("array: any point in bounds, sorted at the nearest",
     {"loc": {"$near": [0, 0], "$minDistance": 5}}, [[7, 0], [[0, 0], [10, 0]], [1, 1]], None, None, False, [1, 0]),
    ("with another condition", {"tag": 1, "loc": {"$near": [0, 0]}},
     [_T([3, 4], 1), _T([0, 1], 0), _T([1, 0], 1), _T([0, 0.5], 1)], None, None, False, [3, 2, 0]),
    # over the pole from [0, 89]: [90, 90] is 1 degree, [180, 89] 2, [0, 85] 4
    # (0.0698 rad); [365, 0] is off the sphere
    ("radians over the pole", {"loc": {"$nearSphere": [0, 89], "$maxDistance": 0.05}},
     [[0, 85], [180, 89], _G(90, 90), [365, 0]], None, None, False, [2, 1]),
    # metres: [0, 1] 111318.8, [2, 0] 222637.7, [180, 0] 20037392.1 (half round)
    ("metres", {"loc": {"$near": {"$geometry": _G(0, 0), "$minDistance": 100000, "$maxDistance": 250000}}},
     [_G(180, 0), [2, 0], _G(0, 1), _G(0, 0.5)], None, None, False, [2, 1]),
    # one degree is 111318.845 m: 0.1 m either side (another Earth radius,
    # 6371 km, would make it 111194.9 m)
    ("metres, a bound just above", {"loc": {"$near": {"$geometry": _G(0, 0), "$maxDistance": 111318.9}}},
     [_G(180, 0), [2, 0], _G(0, 1), _G(0, 0.5)], None, None, False, [3, 2]),
    ("metres, a bound just below", {"loc": {"$near": {"$geometry": _G(0, 0), "$maxDistance": 111318.8}}},
     [_G(180, 0), [2, 0], _G(0, 1), _G(0, 0.5)], None, None, False, [3]),
    # from [0, 0]: [1, 0] is 1 degree, 0.017453292519943295 rad (1.2e-10 over
    # the min), [0, 2] 2 degrees (6e-11 under the max), [-1, -1]
    # acos(cos^2 1) = 1.41417 degrees; [0, 0.9999] and [0, -2.000001] are
    # 1.7e-6 and 1.7e-8 rad outside
    ("radians, bounds just beside", {"loc": {"$nearSphere": [0, 0], "$minDistance": 0.0174532924,
                                             "$maxDistance": 0.0349065851}},
     [[0, 2], [1, 0], [0, 0.9999], [-1, -1], [0, -2.000001]], None, None, False, [1, 3, 0]),
    ("metres, $nearSphere", {"loc": {"$nearSphere": {"$geometry": _G(0, 0)}}},
     [_G(180, 0), [2, 0], _G(0, 1), _G(0, 0.5)], None, None, False, [3, 2, 1, 0]),
    ("metres, GeoJSON in the legacy form", {"loc": {"$near": _G(0, 0), "$maxDistance": 150000}},
     [_G(180, 0), [2, 0], _G(0, 1), _G(0, 0.5)], None, None, False, [3, 2]),
    ("metres, GeoJSON in the legacy form, both bounds", {"loc": {"$minDistance": 100000, "$nearSphere": _G(0, 0),
                                                                 "$maxDistance": 250000}},
     [_G(180, 0), [2, 0], _G(0, 1), _G(0, 0.5)], None, None, False, [2, 1]),
    # MongoDB's parseNewQuery reads $geometry, $minDistance and $maxDistance in
    # any order
    ("metres, bounds before $geometry", {"loc": {"$near": {"$maxDistance": 150000, "$geometry": _G(0, 0)}}},
     [_G(180, 0), [2, 0], _G(0, 1), _G(0, 0.5)], None, None, False, [3, 2]),
    ("metres, bounds before $geometry", {"loc": {"$nearSphere": {"$minDistance": 100000, "$geometry": _G(0, 0),
                                                                 "$maxDistance": 250000}}},
     [_G(180, 0), [2, 0], _G(0, 1), _G(0, 0.5)], None, None, True, [2, 1]),
    # from [179.5, 0]: [-179.5, 0] is 1 degree across the antimeridian, [170, 0] 9.5
    ("metres across the antimeridian", {"loc": {"$nearSphere": {"$geometry": _G(179.5, 0),
                                                                "$maxDistance": 200000}}},
     [_G(170, 0), _G(-179.5, 0)], None, None, False, [1]),
    # a square about [2, 0] is at 0; [3, 0] is 1 degree; the meridian line
    # [-2, 0]-[-2, 10] is 4 degrees (the equator meets it at right angles, at
    # its end [-2, 0])
    ("metres: a polygon about the point is at 0", {"loc": {"$near": {"$geometry": _G(2, 0)}}},
     [{"type": "LineString", "coordinates": [[-2, 0], [-2, 10]]}, _G(3, 0), _poly(_sq(1, -1, 3, 1))],
     None, None, False, [2, 1, 0]),
]


def fixed_near_cases():
    out = []
    for name, flt, locs, sort, options, sharded, exp in FIXED_NEAR:
        docs = []
        for i, l in enumerate(locs):
            d = {"_id": i}
            if isinstance(l, dict) and "_tag" in l:
                d["tag"], l = l["_tag"], l["loc"]
            if l != MISSING:
                d["loc"] = l
            docs.append(d)
        out.append(("fixed $near: " + name, flt, sort, options, sharded, docs, exp))
    return out


def model_fixed_near(flt, docs, sort, options):
    """The model's _ids for a fixed case (key "loc", any condition on "tag"
    an equality)."""
    body = flt["loc"]
    op = "$near" if "$near" in body else "$nearSphere"
    nr = body[op]
    lo, hi = body.get("$minDistance", 0), body.get("$maxDistance", math.inf)
    if isinstance(nr, dict) and "$geometry" in nr:
        lo, hi = nr.get("$minDistance", 0), nr.get("$maxDistance", math.inf)
        nr = nr["$geometry"]
    if isinstance(nr, list) and len(nr) == 3:
        nr, hi = nr[:2], nr[2]
    if isinstance(nr, dict):
        p, k, flat = vec(*nr["coordinates"]), R_EARTH, False
    else:
        p, k, flat = vec(*nr), 1.0, op == "$near"
    rows = []
    for d in docs:
        if "loc" not in d or not isinstance(d["loc"], (list, dict)):
            continue
        if "tag" in flt and d.get("tag") != flt["tag"]:
            continue
        m = parse_geo(d["loc"])
        ds = []
        for cj, cm in expand(d["loc"], m):
            x = flat_dist(nr, cm) if flat else (None if sph_dist(p, cm) is None else sph_dist(p, cm) * k)
            if x is not None:
                ds.append(x)
        if ds and any(lo <= x <= hi for x in ds):
            rows.append({"id": d["_id"], "d": min(ds)})
    rows.sort(key=lambda w: w["d"])
    return [w["id"] for w in near_window(rows, sort, options)]


def check_fixed_near(got, exp):
    if isinstance(got, str):
        return ("error", got)
    return None if got == exp else ("documents", "got %s, want %s" % (got, exp))


# ------------------------------------------------------------ self-check --

def selftest():
    P = SPoly([[vec(0, 0), vec(10, 0), vec(10, 10), vec(0, 10)]])
    assert P.contains(vec(5, 5)) and not P.contains(vec(-175, -5))
    assert P.contains(vec(5, 10.03)) and not P.contains(vec(5, 10.05))      # geodesic bulges north
    assert P.contains(vec(5, 0.001)) and not P.contains(vec(5, -0.001))     # equator edge straight
    P = SPoly([[vec(0, 10), vec(10, 10), vec(10, 0), vec(0, 0)]])           # clockwise: same region
    assert P.contains(vec(5, 5)) and not P.contains(vec(20, 5))
    P = SPoly([[vec(170, -10), vec(-170, -10), vec(-170, 10), vec(170, 10)]])
    assert P.contains(vec(180, 0)) and P.contains(vec(-180, 3)) and P.contains(vec(175, -5))
    assert not P.contains(vec(0, 0)) and not P.contains(vec(160, 0))
    P = SPoly([[vec(0, 80), vec(90, 80), vec(180, 80), vec(-90, 80)]])
    assert P.contains(vec(123, 90)) and P.contains(vec(45, 83.5)) and not P.contains(vec(45, 82.5))
    assert P.contains(vec(0, 80.5)) and not P.contains(vec(0, 79.5))
    # hole
    P = SPoly([[vec(0, 0), vec(10, 0), vec(10, 10), vec(0, 10)], [vec(4, 4), vec(6, 4), vec(6, 6), vec(4, 6)]])
    assert valid_spoly(P)
    assert P.contains(vec(2, 2)) and not P.contains(vec(5, 5))
    assert not valid_spoly(SPoly([[vec(0, 0), vec(2, 2), vec(2, 0), vec(0, 2)]]))  # bow-tie
    # crossings
    assert arcs_cross(vec(0, -1), vec(0, 1), vec(-1, 0), vec(1, 0))
    assert not arcs_cross(vec(0, -1), vec(0, 1), vec(1, 0), vec(2, 0))
    assert not arcs_cross(vec(180, -1), vec(180, 1), vec(-1, 0), vec(1, 0))   # antipodal crossing only
    assert arcs_cross(vec(179, 0), vec(-179, 0), vec(180, -1), vec(180, 1))
    # line along latitude 10 from lng 0 to 10 passes north of (5, 10): crosses the meridian arc 10..10.1
    assert arcs_cross(vec(0, 10), vec(10, 10), vec(5, 10), vec(5, 10.1))
    assert abs(dist_arc(vec(5, 1), vec(0, 0), vec(10, 0)) - math.radians(1)) < 1e-12
    # random: gnomonic ray casting against crossing parity from the centre
    rng = random.Random(1)
    for _ in range(300):
        c = rand_center(rng)
        r = rand_radius(rng)
        j, P = gen_polygon(rng, c, r, holes=0)
        assert P.contains(c)
        anti = neg(P.c)
        assert not P.contains(anti)
        g = unit(sum_vecs(P.rings[0]))
        for _ in range(10):
            p = near(rng, c, r, 1.5)
            # the generation centre is inside a star-shaped ring about it
            n = sum(arcs_cross(c, p, a, b) for a, b in P.arcs)
            if min(dist_arc(p, a, b) for a, b in P.arcs) < 1e-9 or min(dist_arc(v, c, p) for v in P.verts) < 1e-9:
                continue
            assert P.contains(p) == (n % 2 == 0), (j, lnglat(p))
        # vertices moved towards / away from the centre of a star ring
        for v in P.rings[0]:
            d = angle(c, v)
            e = min(1e-4, d * 0.01)
            t = unit(add(scale(c, math.sin(e)), scale(v, math.sin(d - e))))  # slerp, slightly inside
            assert P.contains(t) or min(dist_arc(t, a, b) for a, b in P.arcs) < 1e-7
        # a polygon contains its own smaller copy, not a larger one
        j2, Q = gen_polygon(rng, c, r * 0.01, holes=0)
        assert poly_contains_poly(P, Q) or ambiguous(("poly", Q), ("poly", P)) or not P.contains(c)
        assert intersects(("poly", P), ("poly", Q))
    for name, op, loc, want in FIXED:
        m = model_fixed(op, loc)
        assert m is None or m == want, name
    assert abs(arc_dist(vec(5, 1), vec(0, 0), vec(10, 0)) - math.radians(1)) < 1e-16
    for name, spec, docs, exp in fixed_geonear_cases():
        got = model_fixed_geonear(spec, docs)
        assert [g[0] for g in got] == [e[0] for e in exp], name
        for g, e in zip(got, exp):
            assert abs(g[1] - e[1]) <= 1e-9 * e[1], (name, g, e)
            assert e[2] is None or g[2] == e[2], (name, g, e)
    for name, flt, sort, options, sharded, docs, exp in fixed_near_cases():
        assert model_fixed_near(flt, docs, sort, options) == exp, name


GEONEAR_SHARE = 0.15       # of the random cases


def check_fixed_geonear(got, spec, exp):
    """A fixed $geoNear case: exactly the hand-checked order, distances within
    the tolerance, includeLocs where given."""
    if isinstance(got, str):
        return ("error", got)
    nr = spec["near"]
    unit = "m" if isinstance(nr, dict) else "rad" if spec.get("spherical") else "flat"
    if [g.get("_id") for g in got] != [e[0] for e in exp]:
        return ("documents", "got %s, want %s" % ([g.get("_id") for g in got], [e[0] for e in exp]))
    for g, (i, d, loc) in zip(got, exp):
        x = get_path(g, spec["distanceField"])
        if not isinstance(x, (int, float)) or abs(x - d) > gn_tol(d, unit):
            return ("distance", "_id %s: got %r, want %r" % (i, x, d))
        if loc is not None and get_path(g, spec["includeLocs"]) != loc:
            return ("includeLocs", "_id %s: got %s, want %s" % (i, json.dumps(get_path(g, spec["includeLocs"])),
                                                                json.dumps(loc)))
    return None


# ------------------------------------------------- with a 2dsphere index --

INDEX_BATCH = 40
WHOLE_SPHERE = json.dumps({"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 3.2]}}})


def fill_pair(con, indexed, plain, paths, docs, kind="2dsphere"):
    """Create collections indexed (an index of kind, 2dsphere or 2d, on each
    of paths) and plain, and insert into both each document the index
    accepts. Returns (ids refused, failures)."""
    bad = []
    for t in (indexed, plain):
        con.execute("DROP TABLE IF EXISTS %s" % t)
        con.execute("CREATE VIRTUAL TABLE %s USING docext" % t)
    for p in paths:
        con.execute("SELECT doc_create_index(?, ?)", (indexed, json.dumps({p: kind}))).fetchall()
    refused = set()
    for d in docs:
        j = json.dumps(d)
        try:
            con.execute("INSERT INTO %s(doc) VALUES (?)" % indexed, (j,))
        except sqlite3.Error as e:
            if not str(e).startswith("docext: Can't extract geo keys"):
                bad.append("insert %s: %s" % (j, e))
            refused.add(d["_id"])
            continue
        con.execute("INSERT INTO %s(doc) VALUES (?)" % plain, (j,))
    check = con.execute("SELECT doc_check(?)", (indexed,)).fetchone()[0]
    if check != "ok":
        bad.append("doc_check: %s" % check)
    return refused, bad


def run_index_batch(con, batch, kind):
    """The batch's match cases (i, category, operator, loc) on collections
    with and without an index of kind (2dsphere, 2d): a list of failure
    descriptions."""
    docs = [{"_id": i} if dj == "MISSING" else {"_id": i, "loc": dj} for i, _, _, dj in batch]
    refused, bad = fill_pair(con, "gx", "gp", ["loc"], docs, kind)
    for i, cat, op, dj in batch:
        if kind == "2dsphere" and i in refused and isinstance(dj, (dict, list)):
            whole = con.execute("SELECT doc_match(?, ?)", (json.dumps({"loc": dj}), WHOLE_SPHERE)).fetchone()[0]
            if whole and doc_kind(dj) != "legacy array":
                bad.append("case %d [%s]: the index refused a geometry: %s" % (i, cat, json.dumps(dj)))
    for i, cat, op, dj in batch:
        flt = json.dumps({"loc": op})
        try:
            plain = sorted(r[0] for r in con.execute("SELECT _id FROM gp(?)", (flt,)))
            got = sorted(r[0] for r in con.execute("SELECT _id FROM gx(?)", (flt,)))
        except sqlite3.Error as e:
            bad.append("case %d [%s]: %s: %s" % (i, cat, flt, e))
            continue
        if got != plain:
            plan = con.execute("SELECT doc_explain('gx', ?)", (flt,)).fetchone()[0]
            bad.append("case %d [%s]: filter %s\n  with the index %s, without %s\n  documents %s\n  plan %s"
                       % (i, cat, flt, got, plain,
                          json.dumps([d for d in docs if d["_id"] in set(got) ^ set(plain)]), plan))
    return bad


def near_paths(flt):
    """The paths of the $near / $nearSphere operators in a filter (at its top
    or in a top $and)."""
    out = []
    if isinstance(flt, dict):
        for k, v in flt.items():
            if k == "$and" and isinstance(v, list):
                for f in v:
                    out += near_paths(f)
            elif isinstance(v, dict) and ("$near" in v or "$nearSphere" in v):
                out.append(k)
    return out


def run_near_indexed(con, flt, sort, options, docs):
    """A $near case on collections with and without a 2dsphere (for a $near
    in the plane, 2d) index on its path: None when they agree, else a
    failure description."""
    paths = near_paths(flt)
    op = flt[paths[0]] if paths[0] in flt else [f for f in flt["$and"] if paths[0] in f][0][paths[0]]
    v = op.get("$near", op.get("$nearSphere"))
    flat = "$near" in op and (isinstance(v, list) or (isinstance(v, dict) and "$geometry" not in v))
    refused, bad = fill_pair(con, "nx", "np", paths[:1], docs, "2d" if flat else "2dsphere")
    args = (json.dumps(flt), None if sort is None else json.dumps(sort),
            None if options is None else json.dumps(options))
    res = []
    for t in ("nx", "np"):
        try:
            res.append([r[0] for r in con.execute(
                "SELECT json_extract(doc, '$._id') FROM %s(?, NULL, ?, ?)" % t, args)])
        except sqlite3.Error as e:
            res.append("error" if str(e).startswith("docext:") else "error: %s" % e)
    if res[0] != res[1]:
        bad.append("with the index %s, without %s" % (res[0], res[1]))
    if bad:
        return ("$near with a 2dsphere index: filter %s sort %s options %s\n  documents %s\n  %s"
                % (args[0], args[1], args[2], json.dumps(docs), "\n  ".join(bad)))
    return None


def run_geonear_indexed(con, spec, docs, pipeline):
    """A $geoNear case on collections with and without a 2dsphere index on
    its key: None when they agree (the same documents, distances, order),
    else a failure description."""
    key = spec.get("key")
    if not isinstance(key, str) or not key or key.startswith("$"):
        return None
    try:
        refused, bad = fill_pair(con, "gnx", "gnp", [key], docs)
    except sqlite3.Error:
        return None                    # a key no index takes
    res = []
    for t in ("gnx", "gnp"):
        try:
            res.append([r[0] for r in con.execute(
                "SELECT doc FROM doc_aggregate(?, ?)", (t, json.dumps(pipeline)))])
        except sqlite3.Error as e:
            res.append("error" if str(e).startswith("docext:") else "error: %s" % e)
    if res[0] != res[1]:
        bad.append("with the index %s, without %s" % (res[0], res[1]))
    elif isinstance(res[1], list) and len(pipeline) == 1:
        # without key: the one 2dsphere index gives it
        nokey = [{"$geoNear": {k: v for k, v in spec.items() if k != "key"}}]
        try:
            got = [r[0] for r in con.execute("SELECT doc FROM doc_aggregate('gnx', ?)",
                                             (json.dumps(nokey),))]
        except sqlite3.Error as e:
            got = "error: %s" % e
        if got != res[1]:
            bad.append("without key: %s, not %s" % (got, res[1]))
        # followed by a $limit (which the query may take over): the first
        # rows of the whole answer
        for k in (1, 3):
            for t in ("gnx", "gnp"):
                try:
                    got = [r[0] for r in con.execute("SELECT doc FROM doc_aggregate(?, ?)",
                                                     (t, json.dumps(pipeline + [{"$limit": k}])))]
                except sqlite3.Error as e:
                    got = "error: %s" % e
                if got != res[1][:k]:
                    bad.append("%s with {$limit: %d}: %s, not %s" % (t, k, got, res[1][:k]))
    if bad:
        return ("$geoNear with a 2dsphere index: pipeline %s\n  documents %s\n  %s"
                % (json.dumps(pipeline), json.dumps(docs), "\n  ".join(bad)))
    return None


def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20261128
    selftest()
    rng = random.Random(seed)
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(SO)
    passed = failed = 0
    classes = {}
    counts = {}
    fixed = [("fixed: " + name, op, loc, want) for name, op, loc, want in FIXED]
    gfixed = fixed_geonear_cases()
    nfixed = fixed_near_cases()
    nf = len(fixed) + len(gfixed) + len(nfixed)
    sharded_ok = False
    batch, index_fails, index_runs = [], [], 0
    for i in range(nf + cases):
        if i < len(fixed):
            kind = "match"
        elif i < len(fixed) + len(gfixed):
            kind = "geonear"
        elif i < nf:
            kind = "near"
        else:
            u = rng.random()
            kind = "geonear" if u < GEONEAR_SHARE else "near" if u < GEONEAR_SHARE + NEAR_SHARE else "match"
        if kind == "near":
            # $near / $nearSphere in a find: (category, filter, sort, options,
            # sharded, documents, expected)
            if i < nf:
                cat, flt, sort, options, sharded, docs, want = nfixed[i - len(fixed) - len(gfixed)]
            else:
                c = None
                while c is None:
                    c = near_case(rng)
                cat, flt, sort, options, sharded, docs, want = c
            if sharded and not sharded_ok:
                con.execute("ATTACH ':memory:' AS near_s1")
                con.execute("ATTACH ':memory:' AS near_s2")
                con.execute("SELECT doc_add_shard('near_s1'), doc_add_shard('near_s2')").fetchall()
                sharded_ok = True
            got, msg = run_near(con, i, flt, sort, options, sharded, docs)
            if not sharded and got != "error" and near_paths(flt):
                why = run_near_indexed(con, flt, sort, options, docs)
                index_runs += 1
                if why is not None:
                    index_fails.append("case %d [%s]: %s" % (i, cat, why))
            if cat.startswith("fixed"):
                bad = check_fixed_near(got, want)
                shown = want
            else:
                bad = check_near(got, sort, options, want)
                shown = want if want == "error" else [(w["id"], w["d"]) for w in want[1]]
            key = cat.split(": ")[0] if cat.startswith("$near invalid") else cat
            wkey = bad[0] if bad else None
            detail = None
            if bad:
                detail = ("FAIL case %d [%s]: %s\n  filter    %s\n  sort      %s\n  options   %s\n"
                          "  documents %s\n  expected  %s (model order, with distances)\n  docext    %s\n  (%s)"
                          % (i, cat, bad[0], json.dumps(flt), json.dumps(sort), json.dumps(options),
                             json.dumps(docs), shown, got, msg or bad[1]))
        elif kind == "geonear":
            # $geoNear: (category, spec, documents, expected)
            if i < len(fixed) + len(gfixed):
                cat, spec, docs, want = gfixed[i - len(fixed)]
            else:
                c = None
                while c is None:
                    c = geonear_case(rng)
                cat, spec, docs, want = c
            pipeline = [{"$geoNear": spec}]
            if cat.endswith("not the first stage"):
                pipeline.insert(0, {"$match": {}})
            got = run_geonear(con, spec, docs, pipeline)
            if got != "error" and isinstance(spec, dict):
                why = run_geonear_indexed(con, spec, docs, pipeline)
                index_runs += 1
                if why is not None:
                    index_fails.append("case %d [%s]: %s" % (i, cat, why))
            if cat.startswith("fixed"):
                bad = check_fixed_geonear(got, spec, want)
            else:
                bad = check_geonear(got, spec, docs, want)
            key = cat
            wkey = bad[0] if bad else None
            detail = None
            if bad:
                if isinstance(want, tuple):
                    shown = [(w[0], w[1] * want[1]) for w in want[2]]
                else:
                    shown = want
                detail = ("FAIL case %d [%s]: %s\n  pipeline  %s\n  documents %s\n  expected  %s\n"
                          "  docext    %s\n  (%s)"
                          % (i, cat, bad[0], json.dumps(pipeline), json.dumps(docs), shown,
                             got if isinstance(got, str) else json.dumps(got), bad[1]))
        else:
            if i < len(fixed):
                cat, op, dj, want = fixed[i]
            else:
                cat, op, dj, want = make_case(rng)
            flt = json.dumps({"loc": op})
            doc = {"_id": i} if dj == "MISSING" else {"_id": i, "loc": dj}
            doc = json.dumps(doc)
            msg = ""
            try:
                got = con.execute("SELECT doc_match(?, ?)", (doc, flt)).fetchone()[0]
                if want != "error":
                    got = bool(got) if got in (0, 1) else got
            except sqlite3.Error as e:
                got = "error" if str(e).startswith("docext:") else "error: " + str(e)
                msg = str(e)
            key = cat.split(" / ")[0] if cat.startswith(("invalid", "malformed")) else cat
            bad = got != want
            if want != "error":
                batch.append((i, cat, op, dj))
            if len(batch) >= INDEX_BATCH or (batch and i == nf + cases - 1):
                for kind in ("2dsphere", "2d"):
                    index_fails += run_index_batch(con, batch, kind)
                    index_runs += 1
                batch = []
            wkey = want
            detail = ("FAIL case %d [%s]\n  filter   %s\n  document %s\n  expected %s, docext %s%s"
                      % (i, cat, flt, doc, want, got,
                         (" (" + msg + ")") if isinstance(got, str) and got.startswith("error") else ""))
        counts.setdefault(key, [0, 0])
        if not bad:
            passed += 1
            counts[key][0] += 1
        else:
            failed += 1
            counts[key][1] += 1
            classes.setdefault((cat, wkey), 0)
            classes[(cat, wkey)] += 1
            if failed <= 10:
                print(detail)
    if batch:
        for kind in ("2dsphere", "2d"):
            index_fails += run_index_batch(con, batch, kind)
            index_runs += 1
    # each batch and each indexed $near case is one test
    for f in index_fails[:10]:
        print("FAIL (2dsphere index) " + f)
    failed += len(index_fails)
    passed += index_runs - len(index_fails)
    if failed:
        print("failures by class (category, expected or failure): count")
        for (cat, want), n in sorted(classes.items(), key=lambda x: -x[1]):
            print("  %-60s %-16s %d" % (cat, want, n))
    if os.environ.get("DIFF_GEO_STATS"):
        for k in sorted(counts):
            print("  %-60s %d passed %d failed" % (k, counts[k][0], counts[k][1]), file=sys.stderr)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
