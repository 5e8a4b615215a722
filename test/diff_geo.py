#!/usr/bin/python3
"""test/diff_geo.py — differential test of $geoWithin and $geoIntersects.

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
    Multi* or GeometryCollection when every member is; $centerSphere only
    points (and MultiPoints and collections of points, every member).
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
(no match expected). A list of fixed cases, checked by hand (and against
the model), runs first. The last line is "N passed, M failed"."""
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
    t = g[0]
    if t == "pt":
        return g[1] is not None and angle(g[1], c) <= r
    if t == "all":
        return all(within_cap(m, c, r) for m in g[1])
    if t == "any":
        return any(within_cap(m, c, r) for m in g[1])
    return False


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
        try:
            P = SPoly(rings_v, c)
        except Degenerate:
            continue
        if valid_spoly(P):
            return {"type": "Polygon", "coordinates": [rc + [rc[0]] for rc in rings_c]}, P
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
    if bad[0] == j[0]:
        bad[1] = j[1] + (180 if j[1] <= 0 else -180)
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
            # a small line or polygon wholly inside the cap: still no match
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
    ("$centerSphere: no lines", {"$geoWithin": {"$centerSphere": [[0, 0], 0.5]}},
     {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}, False),
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
    for i in range(len(fixed) + cases):
        if i < len(fixed):
            cat, op, dj, want = fixed[i]
        else:
            cat, op, dj, want = make_case(rng)
        flt = json.dumps({"loc": op})
        doc = {"_id": i} if dj == "MISSING" else {"_id": i, "loc": dj}
        doc = json.dumps(doc)
        try:
            got = con.execute("SELECT doc_match(?, ?)", (doc, flt)).fetchone()[0]
            if want != "error":
                got = bool(got) if got in (0, 1) else got
        except sqlite3.Error as e:
            got = "error" if str(e).startswith("docext:") else "error: " + str(e)
            msg = str(e)
        key = cat.split(" / ")[0] if cat.startswith(("invalid", "malformed")) else cat
        counts.setdefault(key, [0, 0])
        if got == want:
            passed += 1
            counts[key][0] += 1
        else:
            failed += 1
            counts[key][1] += 1
            classes.setdefault((cat, want), 0)
            classes[(cat, want)] += 1
            if failed <= 10:
                print("FAIL case %d [%s]\n  filter   %s\n  document %s\n  expected %s, docext %s%s"
                      % (i, cat, flt, doc, want, got,
                         (" (" + msg + ")") if isinstance(got, str) and got.startswith("error") else ""))
    if failed:
        print("failures by class (category, expected): count")
        for (cat, want), n in sorted(classes.items(), key=lambda x: -x[1]):
            print("  %-60s expected %-5s %d" % (cat, want, n))
    if os.environ.get("DIFF_GEO_STATS"):
        for k in sorted(counts):
            print("  %-60s %d passed %d failed" % (k, counts[k][0], counts[k][1]), file=sys.stderr)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
