/*
** docext_geo.c — the geospatial query operators $geoWithin (and its old
** name $within) and $geoIntersects, tested on each document as MongoDB
** tests them, and the cells of the geospatial indexes that narrow the
** documents tested.
**
** A query shape is parsed once (docextGeoQueryNew) and every candidate
** value of the filter's path is parsed as a geometry and tested against it
** (docextGeoMatch). The rules are MongoDB's (geoparser.cpp,
** geometry_container.cpp, expression_geo.cpp):
**
**   - GeoJSON (Point, LineString, Polygon, MultiPoint, MultiLineString,
**     MultiPolygon, GeometryCollection) lives on the sphere: positions are
**     [longitude, latitude] in degrees and edges are great-circle arcs, so
**     the edge from [0, 10] to [10, 10] bulges north of latitude 10. A ring
**     of a polygon bounds the smaller of the two regions it divides the
**     sphere into, whatever its orientation, unless the polygon names
**     MongoDB's strict-winding CRS (a "big polygon"), whose region is on the
**     left of its one ring. Later rings are holes of the first.
**   - The legacy shapes $box, $center and $polygon are flat: plain x/y
**     geometry on the numbers. They match documents that are one point: a
**     legacy point ([x, y], or a document that is no GeoJSON and whose
**     first two fields are numbers) or a GeoJSON Point (its longitude and
**     latitude as x and y).
**   - $centerSphere is a circle on the sphere, radius in radians, that
**     holds what lies wholly inside it (MongoDB's newest releases; older
**     ones took points alone). $geoIntersects with one matches nothing, as
**     in MongoDB, whose intersection tests take no circle.
**   - A legacy point takes part in spherical queries as the point at
**     longitude x, latitude y, when those are in range.
**   - A value that is not a valid geometry never matches; a bad query shape
**     is an error.
**
** The same geometry measures distances for the $geoNear stage and for
** $near and $nearSphere in filters (docextGeoNearNew, docextGeoNearOpNew,
** docextGeoDistance): metres or radians on the sphere from the nearest
** point of a shape (0 inside a polygon), or plane units between legacy
** points.
**
** It also gives the keys of 2dsphere and 2d indexes and the key ranges a
** query reads from them (the last two sections: cells of the sphere, as
** S2's, and squares of the plane, as MongoDB's geohash).
**
** MongoDB represents a point by its S2 leaf cell, about a centimetre wide,
** so a point on (or within a centimetre of) an edge counts as touching it.
** Here a point within GEO_TOUCH radians of an edge does.
**
** The geometry is done on unit vectors: a point is inside a ring when an
** arc from a point known to be inside it crosses the ring's edges an even
** number of times. Edges are kept sorted by the range they span along the
** axis (x, y or z) that separates them best, so that the tests between two
** sets of edges (crossings, self-crossings of a ring) compare only edges
** whose ranges overlap, and a point's or an arc's tests look only at the
** edges near it.
*/
#include "docextInt.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#define GEO_TOUCH 1e-9            /* radians, about 6 mm on the Earth */
#define GEO_PI 3.14159265358979323846

typedef struct GeoPt GeoPt;
typedef struct GeoEdge GeoEdge;
typedef struct GeoLoop GeoLoop;
typedef struct GeoPoly GeoPoly;
typedef struct GeoLine GeoLine;
typedef struct GeoParse GeoParse;
typedef struct GeoEdges GeoEdges;
typedef struct GeoAnchor GeoAnchor;

/* A point on the unit sphere. */
struct GeoPt { double x, y, z; };

/* An arc of a ring or a line, with the range of x, y and z it spans
** (widened by GEO_TOUCH), and lo, hi: the range along its set's axis. */
struct GeoEdge {
  GeoPt a, b;
  double aLo[3], aHi[3];
  double lo, hi;
  int iLoop;          /* the ring (or line) it belongs to */
  int i;              /* its position there */
};

/* The edges of a polygon or a line, sorted by lo along one axis, the one
** (x, y or z) along which their ranges overlap least: those whose range
** holds a given coordinate are found by a binary search, since none spans
** more than span. */
struct GeoEdges {
  GeoEdge *a;
  int n;
  int axis;           /* 0, 1, 2: x, y, z */
  double span;
};

/* A ring: its vertices once each, the region on their left, and a point
** strictly inside that region. */
struct GeoLoop {
  GeoPt *a;
  int n;
  GeoPt inside;
};

/* A polygon: aLoop[0] its shell, the others holes; E every ring's edges;
** inside a point strictly inside the polygon (in the shell, in no hole). */
struct GeoPoly {
  GeoLoop *aLoop;
  int nLoop;
  GeoEdges E;
  GeoPt inside;
};

struct GeoLine {
  GeoPt *a;
  int n;
  GeoEdges E;
};

/* A point known to be inside or outside a ring or polygon, from which the
** side of another point is found by counting the edges crossed on the way
** to it. Testing the vertices of a shape in turn, each from the last, keeps
** every way short. */
struct GeoAnchor {
  GeoPt p;
  int bIn;
};

#define GEO_SPHERE   1    /* GeoJSON, or a point on the sphere */
#define GEO_BOX      2    /* $box: x, y to x2, y2 */
#define GEO_CENTER   3    /* $center: x, y and r */
#define GEO_POLYGON  4    /* $polygon: aFlat */
#define GEO_CAP      5    /* $centerSphere: aPt[0] and r */
#define GEO_NEAR     6    /* $geoNear on the sphere: aPt[0]; bMeters */
#define GEO_NEARFLAT 7    /* $geoNear in the plane: x, y */

/* A parsed shape or geometry. A GeoJSON geometry is the union of its
** points, lines and polygons (Multi* types and collections add several). */
struct DocGeo {
  u8 eShape;          /* GEO_* */
  u8 bWithin;         /* a query: $geoWithin (else $geoIntersects) */
  u8 bOnePoint;       /* a Point or a legacy point, alone: x, y */
  u8 bFlat;           /* a legacy point, not yet on the sphere */
  u8 bStrict;         /* a polygon with the strict-winding CRS */
  u8 bMeters;         /* GEO_NEAR: distances in metres (else radians) */
  double x, y;        /* the one point; a box's low corner; a centre */
  double x2, y2;      /* a box's high corner */
  double r;           /* a radius */
  double *aFlat;      /* $polygon: x0, y0, x1, y1, ... */
  int nFlat;          /* its number of points */
  GeoPt *aPt;
  int nPt, nPtAlloc;
  GeoLine *aLine;
  int nLine, nLineAlloc;
  GeoPoly *aPoly;
  int nPoly, nPolyAlloc;
};

/* Parsing state: rc is SQLITE_ERROR with zWhy for a bad geometry. */
struct GeoParse {
  int rc;
  char zWhy[200];
};

static void geoFail(GeoParse *p, const char *zFmt, ...){
  va_list ap;
  if( p->rc ) return;
  p->rc = SQLITE_ERROR;
  va_start(ap, zFmt);
  vsnprintf(p->zWhy, sizeof(p->zWhy), zFmt, ap);
  va_end(ap);
}

/*------------------------------------------------------------------------
** Vectors and arcs
*/

static GeoPt geoCross(GeoPt a, GeoPt b){
  GeoPt c;
  c.x = a.y*b.z - a.z*b.y;
  c.y = a.z*b.x - a.x*b.z;
  c.z = a.x*b.y - a.y*b.x;
  return c;
}

static double geoDot(GeoPt a, GeoPt b){
  return a.x*b.x + a.y*b.y + a.z*b.z;
}

static GeoPt geoUnit(GeoPt a){
  double n = sqrt(geoDot(a, a));
  if( n>0 ){
    a.x /= n; a.y /= n; a.z /= n;
  }
  return a;
}

static GeoPt geoAdd(GeoPt a, double s, GeoPt b){
  a.x += s*b.x; a.y += s*b.y; a.z += s*b.z;
  return a;
}

static int geoSame(GeoPt a, GeoPt b){
  return a.x==b.x && a.y==b.y && a.z==b.z;
}

/* The angle between two points, in radians (atan2 keeps it exact for
** small and for nearly opposite angles). */
static double geoAngle(GeoPt a, GeoPt b){
  GeoPt c = geoCross(a, b);
  return atan2(sqrt(geoDot(c, c)), geoDot(a, b));
}

static int geoLngLatValid(double lng, double lat){
  return lng>=-180.0 && lng<=180.0 && lat>=-90.0 && lat<=90.0;
}

static GeoPt geoFromLngLat(double lng, double lat){
  GeoPt p;
  double phi = lat*GEO_PI/180.0, lambda = lng*GEO_PI/180.0;
  p.x = cos(phi)*cos(lambda);
  p.y = cos(phi)*sin(lambda);
  p.z = sin(phi);
  return p;
}

/* A unit vector at right angles to a. */
static GeoPt geoOrtho(GeoPt a){
  GeoPt axis = {0, 0, 0};
  double ax = fabs(a.x), ay = fabs(a.y), az = fabs(a.z);
  if( ax<=ay && ax<=az ) axis.x = 1;
  else if( ay<=az ) axis.y = 1;
  else axis.z = 1;
  return geoUnit(geoCross(a, axis));
}

/* Do the arcs ab and cd cross at a point inside both? (The four triangles
** ACB, CBD, BDA and DAC all turn the same way.) Arcs that share an end, or
** whose ends lie within rounding of the other's great circle, only touch:
** the callers that care test touching by distance. */
static int geoCrosses(GeoPt a, GeoPt b, GeoPt c, GeoPt d){
  GeoPt ab, cd;
  double acb, bda, cbd, dac;
  if( geoSame(a, c) || geoSame(a, d) || geoSame(b, c) || geoSame(b, d) ) return 0;
  ab = geoCross(a, b);
  acb = -geoDot(ab, c);
  bda = geoDot(ab, d);
  if( fabs(acb)<1e-15 || fabs(bda)<1e-15 || acb*bda<=0 ) return 0;
  cd = geoCross(c, d);
  cbd = -geoDot(cd, b);
  dac = geoDot(cd, a);
  if( fabs(cbd)<1e-15 || fabs(dac)<1e-15 ) return 0;
  return acb*cbd>0 && acb*dac>0;
}

/* The distance from p to the arc ab, in radians. The arc's normal is
** (a+b)x(b-a), twice axb, which keeps its precision for short arcs; the
** angle to its great circle is an atan2, precise near a right angle too. */
static double geoArcDistance(GeoPt p, GeoPt a, GeoPt b){
  GeoPt n = geoCross(geoAdd(a, 1.0, b), geoAdd(b, -1.0, a));
  if( geoDot(n, n)>1e-300 && geoDot(geoCross(a, p), n)>0 && geoDot(geoCross(p, b), n)>0 ){
    GeoPt c = geoCross(p, n);
    return atan2(fabs(geoDot(p, n)), sqrt(geoDot(c, c)));
  }
  return fmin(geoAngle(p, a), geoAngle(p, b));
}

/* Do arcs ab and cd cross or come within GEO_TOUCH of each other? */
static int geoArcsTouch(GeoPt a, GeoPt b, GeoPt c, GeoPt d){
  return geoCrosses(a, b, c, d)
      || geoArcDistance(a, c, d)<=GEO_TOUCH || geoArcDistance(b, c, d)<=GEO_TOUCH
      || geoArcDistance(c, a, b)<=GEO_TOUCH || geoArcDistance(d, a, b)<=GEO_TOUCH;
}

/*------------------------------------------------------------------------
** Sorted edges
*/

/* Coordinate k (0, 1, 2: x, y, z) of p. */
static double geoCoord(GeoPt p, int k){
  return k==0 ? p.x : k==1 ? p.y : p.z;
}

static void geoEdgeInit(GeoEdge *e, GeoPt a, GeoPt b, int iLoop, int i){
  /* An arc strays from its chord by at most 1 - cos(angle/2). */
  double s = 1.0 - cos(geoAngle(a, b)/2.0) + 2*GEO_TOUCH;
  int k;
  e->a = a;
  e->b = b;
  for(k=0; k<3; k++){
    e->aLo[k] = fmin(geoCoord(a, k), geoCoord(b, k)) - s;
    e->aHi[k] = fmax(geoCoord(a, k), geoCoord(b, k)) + s;
  }
  e->iLoop = iLoop;
  e->i = i;
}

/* The axis along which the edges' ranges, against the whole range, are
** shortest: a comb of north-south teeth overlaps little along x or y. */
static int geoBestAxis(const GeoEdge *a, int n){
  double rBest = 0;
  int k, i, iBest = 2;
  for(k=2; k>=0; k--){
    double sum = 0, lo = 2, hi = -2, r;
    for(i=0; i<n; i++){
      sum += a[i].aHi[k] - a[i].aLo[k];
      lo = fmin(lo, a[i].aLo[k]);
      hi = fmax(hi, a[i].aHi[k]);
    }
    r = sum/(hi - lo + 1e-300);
    if( k==2 || r<rBest ){
      rBest = r;
      iBest = k;
    }
  }
  return iBest;
}

static int geoEdgeCmp(const void *pA, const void *pB){
  double a = ((const GeoEdge*)pA)->lo, b = ((const GeoEdge*)pB)->lo;
  return a<b ? -1 : a>b;
}

/* The edges of the n rings aLoop[] (or of a line given as one, bClosed 0),
** sorted, into *pE. */
static void geoEdgesBuild(GeoParse *p, const GeoLoop *aLoop, int n, int bClosed, GeoEdges *pE){
  int i, j, nEdge = 0;
  GeoEdge *a;
  for(i=0; i<n; i++) nEdge += bClosed ? aLoop[i].n : aLoop[i].n-1;
  a = sqlite3_malloc64(sizeof(GeoEdge)*(sqlite3_uint64)(nEdge>0 ? nEdge : 1));
  if( a==0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  pE->a = a;
  pE->n = 0;
  pE->span = 0;
  for(i=0; i<n; i++){
    const GeoLoop *L = &aLoop[i];
    int m = bClosed ? L->n : L->n-1;
    for(j=0; j<m; j++) geoEdgeInit(&a[pE->n++], L->a[j], L->a[(j+1)%L->n], i, j);
  }
  pE->axis = geoBestAxis(a, pE->n);
  for(i=0; i<pE->n; i++){
    a[i].lo = a[i].aLo[pE->axis];
    a[i].hi = a[i].aHi[pE->axis];
    pE->span = fmax(pE->span, a[i].hi - a[i].lo);
  }
  qsort(a, (size_t)pE->n, sizeof(GeoEdge), geoEdgeCmp);
}

/* The first edge of E whose range may reach up to z (a coordinate along
** E's axis): the edges whose range holds z are from there on, up to the
** first with lo above z. */
static int geoEdgesFrom(const GeoEdges *E, double z){
  int lo = 0, hi = E->n;
  z -= E->span;
  while( lo<hi ){
    int mid = lo + (hi-lo)/2;
    if( E->a[mid].lo<z ) lo = mid+1; else hi = mid;
  }
  return lo;
}

/* Calls xPair for every pair of an edge of A and an edge of B whose ranges
** overlap (every pair of distinct edges of A when B is 0), until it returns
** non-zero; returns that value, or 0. For two sets, each edge of the
** smaller looks for its partners in the larger, along the larger's axis. */
static int geoSweep(const GeoEdges *A, const GeoEdges *B,
                    int (*xPair)(void*, const GeoEdge*, const GeoEdge*), void *pCtx){
  const GeoEdges *S, *L;
  int i, k, rc;
  if( B==0 ){
    for(i=0; i<A->n; i++){
      for(k=i+1; k<A->n && A->a[k].lo<=A->a[i].hi; k++){
        if( (rc = xPair(pCtx, &A->a[i], &A->a[k]))!=0 ) return rc;
      }
    }
    return 0;
  }
  S = A->n<=B->n ? A : B;
  L = S==A ? B : A;
  for(i=0; i<S->n; i++){
    const GeoEdge *e = &S->a[i];
    double lo = e->aLo[L->axis], hi = e->aHi[L->axis];
    for(k=geoEdgesFrom(L, lo); k<L->n && L->a[k].lo<=hi; k++){
      if( L->a[k].hi<lo ) continue;
      rc = S==A ? xPair(pCtx, e, &L->a[k]) : xPair(pCtx, &L->a[k], e);
      if( rc ) return rc;
    }
  }
  return 0;
}

static int pairCrosses(void *pCtx, const GeoEdge *e, const GeoEdge *f){
  (void)pCtx;
  return geoCrosses(e->a, e->b, f->a, f->b);
}

static int pairTouches(void *pCtx, const GeoEdge *e, const GeoEdge *f){
  (void)pCtx;
  return geoArcsTouch(e->a, e->b, f->a, f->b);
}

/* Is p within GEO_TOUCH of an edge of E (of ring iLoop, or of any when
** iLoop is negative)? */
static int geoEdgesNear(const GeoEdges *E, int iLoop, GeoPt p){
  double c = geoCoord(p, E->axis);
  int i;
  for(i=geoEdgesFrom(E, c); i<E->n && E->a[i].lo<=c; i++){
    const GeoEdge *e = &E->a[i];
    if( c<=e->hi && (iLoop<0 || e->iLoop==iLoop)
     && geoArcDistance(p, e->a, e->b)<=GEO_TOUCH ){
      return 1;
    }
  }
  return 0;
}

/* How many edges of E (of ring iLoop, or all) the arc st crosses. Only
** edges whose range meets the arc's are looked at, and of those only the
** ones with ends on both sides of the arc's great circle are tested. */
static int geoArcCrossings(const GeoEdges *E, int iLoop, GeoPt s, GeoPt t){
  double sag = 1.0 - cos(geoAngle(s, t)/2.0) + 1e-12;
  double cs = geoCoord(s, E->axis), ct = geoCoord(t, E->axis);
  double lo = fmin(cs, ct) - sag, hi = fmax(cs, ct) + sag;
  GeoPt n = geoCross(s, t);
  int i, nCross = 0;
  for(i=geoEdgesFrom(E, lo); i<E->n && E->a[i].lo<=hi; i++){
    const GeoEdge *e = &E->a[i];
    double da, db;
    if( e->hi<lo || (iLoop>=0 && e->iLoop!=iLoop) ) continue;
    da = geoDot(n, e->a);
    db = geoDot(n, e->b);
    if( (da>0 && db>0) || (da<0 && db<0) ) continue;
    nCross += geoCrosses(s, t, e->a, e->b);
  }
  return nCross;
}

/* Is v (off the boundary) inside, judged from anchor *pA, which then moves
** to v? The way is one arc, or two by a point at right angles when the
** two are nearly opposite. */
static int geoSide(const GeoEdges *E, int iLoop, GeoAnchor *pA, GeoPt v){
  int n;
  if( geoDot(pA->p, v)>-0.5 ){
    n = geoArcCrossings(E, iLoop, pA->p, v);
  }else{
    GeoPt q = geoOrtho(pA->p);
    n = geoArcCrossings(E, iLoop, pA->p, q) + geoArcCrossings(E, iLoop, q, v);
  }
  pA->p = v;
  pA->bIn ^= n&1;
  return pA->bIn;
}

static GeoAnchor geoAnchor(GeoPt p){
  GeoAnchor a;
  a.p = p;
  a.bIn = 1;
  return a;
}

/*------------------------------------------------------------------------
** Rings, polygons and lines
*/

/* The area of the region on the left of ring L, in steradians: the signed
** areas of the triangles fanned from its first vertex, modulo 4 pi. */
static double geoLoopArea(const GeoLoop *L){
  double sum = 0;
  int i;
  GeoPt a = L->a[0];
  for(i=1; i+1<L->n; i++){
    GeoPt b = L->a[i], c = L->a[i+1];
    sum += 2*atan2(geoDot(a, geoCross(b, c)), 1 + geoDot(a, b) + geoDot(b, c) + geoDot(c, a));
  }
  sum = fmod(sum, 4*GEO_PI);
  return sum<0 ? sum + 4*GEO_PI : sum;
}

/* A point just to the left of the middle of arc ab, at distance d, which
** is less than a quarter of the arc. The callers take odd fractions of
** their distances (GEO_FRAC_*), so that the point falls on no round
** coordinate of the data. */
#define GEO_FRAC_ARC  0.2371     /* of the arc's length */
#define GEO_FRAC_GAP  0.4563     /* of the distance to the nearest other edge */
static GeoPt geoLeftOf(GeoPt a, GeoPt b, double d){
  GeoPt m = geoUnit(geoAdd(a, 1.0, b));
  GeoPt left = geoUnit(geoCross(a, b));
  GeoPt zero = {0, 0, 0};
  return geoUnit(geoAdd(geoAdd(zero, cos(d), m), sin(d), left));
}

/* Set L->inside: left of the middle of its first edge, by less than the
** way to the nearest other edge. */
static void geoLoopSetInside(GeoLoop *L){
  GeoPt a = L->a[0], b = L->a[1];
  GeoPt m = geoUnit(geoAdd(a, 1.0, b));
  double d = geoAngle(a, b)*GEO_FRAC_ARC;
  int i;
  for(i=1; i<L->n; i++){
    d = fmin(d, geoArcDistance(m, L->a[i], L->a[(i+1)%L->n])*GEO_FRAC_GAP);
  }
  L->inside = geoLeftOf(a, b, d);
}

/* Set P->inside as L->inside for the shell, keeping clear of the holes'
** edges as well, so that it lies in no hole. */
static void geoPolySetInside(GeoPoly *P){
  const GeoLoop *S = &P->aLoop[0];
  GeoPt m = geoUnit(geoAdd(S->a[0], 1.0, S->a[1]));
  double d = geoAngle(S->a[0], S->a[1])*GEO_FRAC_ARC;
  int i;
  for(i=0; i<P->E.n; i++){
    const GeoEdge *e = &P->E.a[i];
    if( e->iLoop!=0 || e->i!=0 ) d = fmin(d, geoArcDistance(m, e->a, e->b)*GEO_FRAC_GAP);
  }
  P->inside = geoLeftOf(S->a[0], S->a[1], d);
}

static int geoPtCmp(const void *pA, const void *pB){
  const GeoPt *a = (const GeoPt*)pA, *b = (const GeoPt*)pB;
  if( a->x!=b->x ) return a->x<b->x ? -1 : 1;
  if( a->y!=b->y ) return a->y<b->y ? -1 : 1;
  return a->z<b->z ? -1 : a->z>b->z;
}

/* Remove repeats of a vertex next to itself (MongoDB's eraseDuplicatePoints). */
static void geoDropRepeats(GeoPt *a, int *pn){
  int i, n = 0;
  for(i=0; i<*pn; i++){
    if( n==0 || !geoSame(a[n-1], a[i]) ) a[n++] = a[i];
  }
  *pn = n;
}

/* Check ring L (at least 3 vertices): no vertex twice, no edge between
** opposite points. Then orient it (unless bStrict) so that its region is
** the smaller one, and find its inside point. */
static void geoLoopFinish(GeoParse *p, GeoLoop *L, int bStrict){
  GeoPt *aSorted;
  int i;
  for(i=0; i<L->n; i++){
    if( geoAngle(L->a[i], L->a[(i+1)%L->n])>=GEO_PI - 1e-12 ){
      geoFail(p, "Loop is not valid: edge %d joins opposite points of the sphere", i);
      return;
    }
  }
  aSorted = sqlite3_malloc64(sizeof(GeoPt)*(sqlite3_uint64)L->n);
  if( aSorted==0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  memcpy(aSorted, L->a, sizeof(GeoPt)*(size_t)L->n);
  qsort(aSorted, (size_t)L->n, sizeof(GeoPt), geoPtCmp);
  for(i=1; i<L->n; i++){
    if( geoSame(aSorted[i-1], aSorted[i]) ){
      geoFail(p, "Loop is not valid: it has a duplicate vertex");
      break;
    }
  }
  sqlite3_free(aSorted);
  if( p->rc ) return;
  if( !bStrict && geoLoopArea(L)>2*GEO_PI ){
    for(i=0; i<L->n/2; i++){
      GeoPt t = L->a[i];
      L->a[i] = L->a[L->n-1-i];
      L->a[L->n-1-i] = t;
    }
  }
  geoLoopSetInside(L);
}

/* Does P contain p, a point on its boundary included? pA: an anchor for
** P, or 0 to start from P's inside point. */
static int geoPolyCovers(const GeoPoly *P, GeoAnchor *pA, GeoPt p){
  GeoAnchor a;
  if( geoEdgesNear(&P->E, -1, p) ) return 1;
  if( pA==0 ){
    a = geoAnchor(P->inside);
    pA = &a;
  }
  return geoSide(&P->E, -1, pA, p);
}

/* A crossing of two edges of one polygon: edges of one ring that are not
** neighbours, or edges of two rings. */
typedef struct GeoSelf GeoSelf;
struct GeoSelf {
  const GeoPoly *P;
  const GeoEdge *e, *f;
};

static int pairSelfCrosses(void *pCtx, const GeoEdge *e, const GeoEdge *f){
  GeoSelf *s = (GeoSelf*)pCtx;
  if( e->iLoop==f->iLoop ){
    int n = s->P->aLoop[e->iLoop].n;
    if( (e->i+1)%n==f->i || (f->i+1)%n==e->i ) return 0;
  }
  if( !geoCrosses(e->a, e->b, f->a, f->b) ) return 0;
  s->e = e;
  s->f = f;
  return 1;
}

/* Is ring iIn of P inside ring iOut, their edges known not to cross? Its
** first vertex off iOut's boundary says (judged from *pA, an anchor for
** ring iOut); a ring wholly on the boundary counts as inside. */
static int geoLoopInLoop(const GeoPoly *P, int iIn, int iOut, GeoAnchor *pA){
  const GeoLoop *L = &P->aLoop[iIn];
  int i;
  for(i=0; i<L->n; i++){
    if( !geoEdgesNear(&P->E, iOut, L->a[i]) ) return geoSide(&P->E, iOut, pA, L->a[i]);
  }
  return 1;
}

/* The holes of P (1 to nLoop-1) by the lowest coordinate of their edges
** along P's axis, with the range each spans, into a new array. */
typedef struct GeoRange GeoRange;
struct GeoRange {
  double lo, hi;
  int iLoop;
};

static int geoRangeCmp(const void *pA, const void *pB){
  double a = ((const GeoRange*)pA)->lo, b = ((const GeoRange*)pB)->lo;
  return a<b ? -1 : a>b;
}

static GeoRange *geoHoleRanges(GeoParse *p, const GeoPoly *P){
  GeoRange *a = sqlite3_malloc64(sizeof(GeoRange)*(sqlite3_uint64)P->nLoop);
  int i;
  if( a==0 ){
    p->rc = SQLITE_NOMEM;
    return 0;
  }
  for(i=0; i<P->nLoop; i++){
    a[i].lo = 2;
    a[i].hi = -2;
    a[i].iLoop = i;
  }
  for(i=0; i<P->E.n; i++){
    GeoRange *r = &a[P->E.a[i].iLoop];
    r->lo = fmin(r->lo, P->E.a[i].lo);
    r->hi = fmax(r->hi, P->E.a[i].hi);
  }
  qsort(&a[1], (size_t)(P->nLoop-1), sizeof(GeoRange), geoRangeCmp);
  return a;
}

/* Every hole in the shell, and none in another (only holes whose ranges
** overlap can be). The holes are visited in the order of their ranges,
** each judged from the last, so that the ways stay short. */
static void geoHolesCheck(GeoParse *p, const GeoPoly *P){
  GeoRange *a = geoHoleRanges(p, P);
  GeoAnchor shell;
  int i, j;
  if( a==0 ) return;
  shell = geoAnchor(P->inside);
  for(i=1; i<P->nLoop && p->rc==SQLITE_OK; i++){
    if( !geoLoopInLoop(P, a[i].iLoop, 0, &shell) ){
      geoFail(p, "Secondary loops not contained by first exterior loop - "
                 "secondary loops must be holes (loop %d)", a[i].iLoop);
    }
  }
  for(i=1; i<P->nLoop && p->rc==SQLITE_OK; i++){
    for(j=i+1; j<P->nLoop && a[j].lo<=a[i].hi; j++){
      GeoAnchor hi = geoAnchor(P->aLoop[a[i].iLoop].inside);
      GeoAnchor hj = geoAnchor(P->aLoop[a[j].iLoop].inside);
      if( geoLoopInLoop(P, a[i].iLoop, a[j].iLoop, &hj)
       || geoLoopInLoop(P, a[j].iLoop, a[i].iLoop, &hi) ){
        geoFail(p, "Polygon interior loops cannot be nested");
        break;
      }
    }
  }
  sqlite3_free(a);
}

/* The checks of a whole polygon, as S2 makes them for MongoDB: no edges
** crossing, every hole inside the shell, no hole inside another. Since no
** rings cross, one vertex of a ring tells on which side of another it
** lies. */
static void geoPolyCheck(GeoParse *p, GeoPoly *P){
  GeoSelf s;
  geoEdgesBuild(p, P->aLoop, P->nLoop, 1, &P->E);
  if( p->rc ) return;
  s.P = P;
  if( geoSweep(&P->E, 0, pairSelfCrosses, &s) ){
    int iA = s.e->iLoop<s.f->iLoop ? s.e->iLoop : s.f->iLoop;
    int iB = s.e->iLoop<s.f->iLoop ? s.f->iLoop : s.e->iLoop;
    if( iA==iB ){
      int a = s.e->i<s.f->i ? s.e->i : s.f->i, b = s.e->i<s.f->i ? s.f->i : s.e->i;
      geoFail(p, "Loop is not valid: Edges %d and %d cross", a, b);
    }else if( iA==0 ){
      geoFail(p, "Secondary loops not contained by first exterior loop - "
                 "secondary loops must be holes (loop %d)", iB);
    }else{
      geoFail(p, "Polygon isn't valid: loops %d and %d cross", iA, iB);
    }
    return;
  }
  geoPolySetInside(P);
  if( P->nLoop>1 ) geoHolesCheck(p, P);
}

/*------------------------------------------------------------------------
** Parsing
*/

static void *geoGrow(GeoParse *p, void *a, int n, int *pnAlloc, int nSize){
  int rc = p->rc==SQLITE_NOMEM ? SQLITE_NOMEM : SQLITE_OK;
  void *aNew = docextArrayGrow(&rc, a, n, pnAlloc, nSize);
  if( rc ) p->rc = rc;
  return aNew;
}

/* A point as MongoDB's parseFlatPoint reads it: an array or a document
** whose first two values are finite numbers; more only when bExtra. */
static void geoFlatPoint(GeoParse *p, const DocValue *v, int bExtra, double *px, double *py){
  DocIter it;
  if( v->type!=DOC_ARRAY && v->type!=DOC_DOCUMENT ){
    geoFail(p, "Point must be an array or object");
    return;
  }
  docextIterInitValue(&it, v);
  if( !docextIterNext(&it) || !docextValueIsNumber(&it.v) ){
    geoFail(p, "Point must only contain numeric elements");
    return;
  }
  *px = docextValueToDouble(&it.v);
  if( !docextIterNext(&it) || !docextValueIsNumber(&it.v) ){
    geoFail(p, "Point must only contain numeric elements");
    return;
  }
  *py = docextValueToDouble(&it.v);
  if( !bExtra && docextIterNext(&it) ){
    geoFail(p, "Point must only contain two numeric elements");
  }else if( !isfinite(*px) || !isfinite(*py) ){
    geoFail(p, "Point coordinates must be finite numbers");
  }
}

static GeoPt geoLngLatPoint(GeoParse *p, double lng, double lat){
  if( !geoLngLatValid(lng, lat) ){
    geoFail(p, "longitude/latitude is out of bounds, lng: %.15g lat: %.15g", lng, lat);
  }
  return geoFromLngLat(lng, lat);
}

/* A GeoJSON position: an array [lng, lat, ...]. */
static GeoPt geoPosition(GeoParse *p, const DocValue *v){
  double lng = 0, lat = 0;
  GeoPt none = {0, 0, 0};
  if( v->type!=DOC_ARRAY ){
    geoFail(p, "GeoJSON coordinates must be an array");
    return none;
  }
  geoFlatPoint(p, v, 1, &lng, &lat);
  if( p->rc ) return none;
  return geoLngLatPoint(p, lng, lat);
}

/* An array of positions into a new array *pa of *pn points. */
static void geoPositions(GeoParse *p, const DocValue *v, const char *zWhat, GeoPt **pa, int *pn){
  DocIter it;
  GeoPt *a = 0;
  int n = 0, nAlloc = 0;
  *pa = 0;
  *pn = 0;
  if( v->type!=DOC_ARRAY ){
    geoFail(p, "%s coordinates must be an array of coordinates", zWhat);
    return;
  }
  docextIterInitValue(&it, v);
  while( p->rc==SQLITE_OK && docextIterNext(&it) ){
    GeoPt pt = geoPosition(p, &it.v);
    a = geoGrow(p, a, n, &nAlloc, sizeof(GeoPt));
    if( p->rc==SQLITE_OK ) a[n++] = pt;
  }
  *pa = a;
  *pn = n;
}

static void geoAddPoint(GeoParse *p, DocGeo *g, GeoPt pt){
  g->aPt = geoGrow(p, g->aPt, g->nPt, &g->nPtAlloc, sizeof(GeoPt));
  if( p->rc==SQLITE_OK ) g->aPt[g->nPt++] = pt;
}

/* A LineString's coordinates. */
static void geoLineParse(GeoParse *p, const DocValue *v, DocGeo *g){
  GeoLine *L;
  int i;
  g->aLine = geoGrow(p, g->aLine, g->nLine, &g->nLineAlloc, sizeof(GeoLine));
  if( p->rc ) return;
  L = &g->aLine[g->nLine++];
  memset(L, 0, sizeof(*L));
  geoPositions(p, v, "LineString", &L->a, &L->n);
  if( p->rc ) return;
  geoDropRepeats(L->a, &L->n);
  if( L->n<2 ){
    geoFail(p, "GeoJSON LineString must have at least 2 vertices");
    return;
  }
  for(i=0; i+1<L->n; i++){
    if( geoAngle(L->a[i], L->a[i+1])>=GEO_PI - 1e-12 ){
      geoFail(p, "GeoJSON LineString is not valid: vertices %d and %d are antipodal", i, i+1);
      return;
    }
  }
  {
    GeoLoop path;
    memset(&path, 0, sizeof(path));
    path.a = L->a;
    path.n = L->n;
    geoEdgesBuild(p, &path, 1, 0, &L->E);
  }
}

/* A Polygon's coordinates: rings of positions, the first the shell. */
static void geoPolyParse(GeoParse *p, const DocValue *v, int bStrict, DocGeo *g){
  GeoPoly *P;
  DocIter it;
  int nAlloc = 0;
  if( v->type!=DOC_ARRAY ){
    geoFail(p, "Polygon coordinates must be an array");
    return;
  }
  g->aPoly = geoGrow(p, g->aPoly, g->nPoly, &g->nPolyAlloc, sizeof(GeoPoly));
  if( p->rc ) return;
  P = &g->aPoly[g->nPoly++];
  memset(P, 0, sizeof(*P));
  docextIterInitValue(&it, v);
  while( p->rc==SQLITE_OK && docextIterNext(&it) ){
    GeoLoop *L;
    P->aLoop = geoGrow(p, P->aLoop, P->nLoop, &nAlloc, sizeof(GeoLoop));
    if( p->rc ) return;
    L = &P->aLoop[P->nLoop++];
    memset(L, 0, sizeof(*L));
    geoPositions(p, &it.v, "Polygon", &L->a, &L->n);
    if( p->rc ) return;
    if( L->n==0 ){
      geoFail(p, "Loop has no vertices");
    }else if( !geoSame(L->a[0], L->a[L->n-1]) ){
      geoFail(p, "Loop is not closed, first vertex does not equal last vertex");
    }else if( bStrict && P->nLoop>1 ){
      geoFail(p, "Only one simple loop is allowed in a big polygon");
    }else{
      geoDropRepeats(L->a, &L->n);
      L->n--;
      if( L->n<3 ){
        geoFail(p, "Loop must have at least 3 different vertices");
      }else{
        geoLoopFinish(p, L, bStrict);
      }
    }
  }
  if( p->rc ) return;
  if( P->nLoop==0 ){
    geoFail(p, "Polygon has no loops");
    return;
  }
  geoPolyCheck(p, P);
}

/* The "crs" of a GeoJSON object: sets *pbStrict for MongoDB's
** strict-winding one, which only a Polygon may name. */
static void geoCrs(GeoParse *p, const u8 *aObj, int bPolygon, int *pbStrict){
  DocValue v, t, props, name;
  const char *z;
  int n;
  *pbStrict = 0;
  if( !docextBsonFind(aObj, "crs", 3, &v) ) return;
  if( v.type!=DOC_DOCUMENT ){
    geoFail(p, "GeoJSON CRS must be an object");
    return;
  }
  if( !docextBsonFind(v.p, "type", 4, &t) || t.type!=DOC_STRING
   || strcmp((const char*)t.p+4, "name")!=0 ){
    geoFail(p, "GeoJSON CRS must have field \"type\": \"name\"");
    return;
  }
  if( !docextBsonFind(v.p, "properties", 10, &props) || props.type!=DOC_DOCUMENT ){
    geoFail(p, "CRS must have field \"properties\" which is an object");
    return;
  }
  if( !docextBsonFind(props.p, "name", 4, &name) || name.type!=DOC_STRING ){
    geoFail(p, "In CRS, \"properties.name\" must be a string");
    return;
  }
  z = docextValueStr(&name, &n);
  if( strcmp(z, "urn:ogc:def:crs:OGC:1.3:CRS84")==0 || strcmp(z, "EPSG:4326")==0 ) return;
  if( strcmp(z, "urn:x-mongodb:crs:strictwinding:EPSG:4326")==0 ){
    if( !bPolygon ){
      geoFail(p, "Strict winding order is only supported by polygon");
    }else{
      *pbStrict = 1;
    }
    return;
  }
  geoFail(p, "Unknown CRS name: %.*s", n>100 ? 100 : n, z);
}

static const char *azGeoType[] = {
  "Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon",
  "GeometryCollection"
};

/* The index of the GeoJSON type of document aObj in azGeoType, or -1. */
static int geoType(const u8 *aObj){
  DocValue t;
  int i;
  if( !docextBsonFind(aObj, "type", 4, &t) || t.type!=DOC_STRING ) return -1;
  for(i=0; i<DOCEXT_COUNT(azGeoType); i++){
    if( strcmp((const char*)t.p+4, azGeoType[i])==0 ) return i;
  }
  return -1;
}

/* Each element of array v, parsed by xEach; "at least 1 element". */
static void geoEach(GeoParse *p, const DocValue *v, DocGeo *g, const char *zType,
                    void (*xEach)(GeoParse*, const DocValue*, DocGeo*)){
  DocIter it;
  int n = 0;
  if( v->type!=DOC_ARRAY ){
    geoFail(p, "%s coordinates must be an array", zType);
    return;
  }
  docextIterInitValue(&it, v);
  while( p->rc==SQLITE_OK && docextIterNext(&it) ){
    xEach(p, &it.v, g);
    n++;
  }
  if( p->rc==SQLITE_OK && n==0 ) geoFail(p, "%s coordinates must have at least 1 element", zType);
}

static void geoEachPoint(GeoParse *p, const DocValue *v, DocGeo *g){
  GeoPt pt = geoPosition(p, v);
  if( p->rc==SQLITE_OK ) geoAddPoint(p, g, pt);
}

static void geoEachPolygon(GeoParse *p, const DocValue *v, DocGeo *g){
  geoPolyParse(p, v, 0, g);
}

static void geoGeoJSON(GeoParse *p, const u8 *aObj, int bMember, DocGeo *g);

static void geoEachMember(GeoParse *p, const DocValue *v, DocGeo *g){
  if( v->type!=DOC_DOCUMENT ){
    geoFail(p, "Element of \"geometries\" is not an object");
  }else if( geoType(v->p)<0 ){
    geoFail(p, "Unknown GeoJSON type in \"geometries\"");
  }else if( geoType(v->p)==6 ){
    geoFail(p, "GeometryCollections cannot be nested");
  }else{
    geoGeoJSON(p, v->p, 1, g);
  }
}

/* A GeoJSON object aObj, added to g; bMember inside a collection. */
static void geoGeoJSON(GeoParse *p, const u8 *aObj, int bMember, DocGeo *g){
  DocValue coords;
  int eType = geoType(aObj), bStrict = 0;
  if( eType<0 ){
    geoFail(p, "unknown GeoJSON type");
    return;
  }
  geoCrs(p, aObj, eType==2 && !bMember, &bStrict);
  if( p->rc ) return;
  if( eType==6 ){
    if( !docextBsonFind(aObj, "geometries", 10, &coords) || coords.type!=DOC_ARRAY ){
      geoFail(p, "GeometryCollection geometries must be an array");
      return;
    }
    geoEach(p, &coords, g, "GeometryCollection", geoEachMember);
    return;
  }
  if( !docextBsonFind(aObj, "coordinates", 11, &coords) ) coords.type = 0;
  switch( eType ){
    case 0: {
      double lng = 0, lat = 0;
      geoFlatPoint(p, &coords, 1, &lng, &lat);
      if( p->rc ) return;
      geoAddPoint(p, g, geoLngLatPoint(p, lng, lat));
      if( !bMember ){
        g->bOnePoint = 1;
        g->x = lng;
        g->y = lat;
      }
      break;
    }
    case 1: geoLineParse(p, &coords, g); break;
    case 2: geoPolyParse(p, &coords, bStrict, g); g->bStrict = (u8)bStrict; break;
    case 3: geoEach(p, &coords, g, "MultiPoint", geoEachPoint); break;
    case 4: geoEach(p, &coords, g, "MultiLineString", geoLineParse); break;
    case 5: geoEach(p, &coords, g, "MultiPolygon", geoEachPolygon); break;
  }
}

static void geoClear(DocGeo *g);

/* A stored value as MongoDB's parseFromStorage reads it: an array is a
** legacy point (more values allowed); a document is GeoJSON or, failing
** that, a legacy point ({x: 1, y: 2}, even {x: 1, y: 2, type: "Point"}). */
static void geoStored(GeoParse *p, const DocValue *v, DocGeo *g){
  g->eShape = GEO_SPHERE;
  if( v->type==DOC_DOCUMENT ){
    geoGeoJSON(p, v->p, 0, g);
    if( p->rc!=SQLITE_ERROR ) return;
    geoClear(g);
    memset(g, 0, sizeof(*g));
    g->eShape = GEO_SPHERE;
    p->rc = SQLITE_OK;
  }
  geoFlatPoint(p, v, 1, &g->x, &g->y);
  g->bOnePoint = 1;
  g->bFlat = 1;
}

static void geoClear(DocGeo *g){
  int i, j;
  for(i=0; i<g->nLine; i++){
    sqlite3_free(g->aLine[i].a);
    sqlite3_free(g->aLine[i].E.a);
  }
  for(i=0; i<g->nPoly; i++){
    for(j=0; j<g->aPoly[i].nLoop; j++) sqlite3_free(g->aPoly[i].aLoop[j].a);
    sqlite3_free(g->aPoly[i].aLoop);
    sqlite3_free(g->aPoly[i].E.a);
  }
  sqlite3_free(g->aLine);
  sqlite3_free(g->aPoly);
  sqlite3_free(g->aPt);
  sqlite3_free(g->aFlat);
}

/* The legacy shapes: $box, $center, $centerSphere, $polygon. */
static void geoLegacyShape(GeoParse *p, const char *zKey, const DocValue *v, DocGeo *g){
  DocIter it;
  docextIterInitValue(&it, v);
  if( strcmp(zKey, "$polygon")==0 ){
    int nAlloc = 0;
    g->eShape = GEO_POLYGON;
    while( p->rc==SQLITE_OK && docextIterNext(&it) ){
      double x = 0, y = 0;
      geoFlatPoint(p, &it.v, 0, &x, &y);
      g->aFlat = geoGrow(p, g->aFlat, 2*g->nFlat, &nAlloc, sizeof(double));
      g->aFlat = geoGrow(p, g->aFlat, 2*g->nFlat+1, &nAlloc, sizeof(double));
      if( p->rc ) return;
      g->aFlat[2*g->nFlat] = x;
      g->aFlat[2*g->nFlat+1] = y;
      g->nFlat++;
    }
    if( p->rc==SQLITE_OK && g->nFlat<3 ) geoFail(p, "Polygon must have at least 3 points");
    return;
  }
  if( !docextIterNext(&it) ){
    geoFail(p, "Point must be an array or object");
    return;
  }
  geoFlatPoint(p, &it.v, 0, &g->x, &g->y);
  if( p->rc ) return;
  if( strcmp(zKey, "$box")==0 ){
    double x = 0, y = 0;
    g->eShape = GEO_BOX;
    if( !docextIterNext(&it) ){
      geoFail(p, "Point must be an array or object");
      return;
    }
    geoFlatPoint(p, &it.v, 0, &x, &y);
    g->x2 = fmax(g->x, x);
    g->y2 = fmax(g->y, y);
    g->x = fmin(g->x, x);
    g->y = fmin(g->y, y);
    return;
  }
  g->eShape = strcmp(zKey, "$center")==0 ? GEO_CENTER : GEO_CAP;
  if( !docextIterNext(&it) || !docextValueIsNumber(&it.v)
   || !(docextValueToDouble(&it.v)>=0) ){
    geoFail(p, "radius must be a non-negative number");
    return;
  }
  g->r = docextValueToDouble(&it.v);
  if( docextIterNext(&it) ){
    geoFail(p, "Only 2 fields allowed for circular region");
    return;
  }
  if( g->eShape==GEO_CAP ) geoAddPoint(p, g, geoLngLatPoint(p, g->x, g->y));
}

/* The shape of {$geometry | $box | $center | $centerSphere | $polygon: v}. */
static void geoQueryShape(GeoParse *p, const char *zKey, const DocValue *v, DocGeo *g){
  if( v->type!=DOC_DOCUMENT && v->type!=DOC_ARRAY ){
    geoFail(p, "unknown geo specifier: %s", zKey);
  }else if( strcmp(zKey, "$geometry")==0 ){
    DocIter it;
    docextIterInitValue(&it, v);
    g->eShape = GEO_SPHERE;
    if( v->type==DOC_ARRAY || (docextIterNext(&it) && docextValueIsNumber(&it.v)) ){
      geoFlatPoint(p, v, 0, &g->x, &g->y);
      g->bOnePoint = 1;
      g->bFlat = 1;
    }else{
      geoGeoJSON(p, v->p, 0, g);
    }
  }else if( strcmp(zKey, "$box")==0 || strcmp(zKey, "$center")==0
         || strcmp(zKey, "$centerSphere")==0 || strcmp(zKey, "$polygon")==0 ){
    geoLegacyShape(p, zKey, v, g);
  }else{
    geoFail(p, "unknown geo specifier: %s", zKey);
  }
}

/* Put a legacy point on the sphere: 0 when its numbers are no longitude
** and latitude. */
static int geoProject(GeoParse *p, DocGeo *g){
  if( g->bFlat ){
    if( !geoLngLatValid(g->x, g->y) ) return 0;
    geoAddPoint(p, g, geoFromLngLat(g->x, g->y));
    g->bFlat = 0;
  }
  return 1;
}

/* The end of a parse of g: *ppOut = g, or g freed and the error made. */
static int geoParseDone(GeoParse *p, DocGeo *g, DocGeo **ppOut, char **pzWhy){
  if( p->rc==SQLITE_OK ){
    *ppOut = g;
    return SQLITE_OK;
  }
  docextGeoFree(g);
  if( p->rc==SQLITE_NOMEM ) return SQLITE_NOMEM;
  return docextError(pzWhy, "%s", p->zWhy);
}

int docextGeoQueryNew(int bWithin, const DocValue *pArg, DocGeo **ppOut, char **pzWhy){
  GeoParse sParse;
  DocGeo *g;
  DocIter it;
  int nShape = 0;
  *ppOut = 0;
  if( pArg->type!=DOC_DOCUMENT ){
    return docextError(pzWhy, "geometry must be an object");
  }
  g = docextMallocZero(sizeof(*g));
  if( g==0 ) return SQLITE_NOMEM;
  g->bWithin = (u8)bWithin;
  memset(&sParse, 0, sizeof(sParse));
  docextIterInitValue(&it, pArg);
  while( sParse.rc==SQLITE_OK && docextIterNext(&it) ){
    if( strcmp(it.zKey, "$uniqueDocs")==0 ) continue;
    if( nShape && bWithin ){
      geoFail(&sParse, "$geoWithin doesn't accept multiple shapes");
      break;
    }
    if( nShape ){
      geoClear(g);
      memset(g, 0, sizeof(*g));
    }
    nShape++;
    geoQueryShape(&sParse, it.zKey, &it.v, g);
  }
  if( sParse.rc==SQLITE_OK && nShape==0 ){
    geoFail(&sParse, "geo query doesn't have any geometry");
  }
  if( sParse.rc==SQLITE_OK && bWithin && g->eShape==GEO_SPHERE && g->nPoly==0 ){
    geoFail(&sParse, "$within not supported with provided geometry");
  }
  if( sParse.rc==SQLITE_OK && !bWithin
   && (g->eShape!=GEO_SPHERE && g->eShape!=GEO_CAP) ){
    geoFail(&sParse, "$geoIntersect not supported with provided geometry");
  }
  if( sParse.rc==SQLITE_OK && !bWithin && !geoProject(&sParse, g) ){
    geoFail(&sParse, "$geoIntersect not supported with provided geometry");
  }
  g->bWithin = (u8)bWithin;
  return geoParseDone(&sParse, g, ppOut, pzWhy);
}

void docextGeoFree(DocGeo *g){
  if( g ){
    geoClear(g);
    sqlite3_free(g);
  }
}

/*------------------------------------------------------------------------
** The predicates
*/

/* Are the points of a path (a line's, or a ring's closed, bClosed) and
** the middles of its edges in polygon P? Each is judged from the last. */
static int geoPolyHasPath(const GeoPoly *P, const GeoPt *a, int n, int bClosed){
  GeoAnchor anchor = geoAnchor(P->inside);
  int i;
  for(i=0; i<n; i++){
    if( !geoPolyCovers(P, &anchor, a[i]) ) return 0;
    if( (bClosed || i+1<n)
     && !geoPolyCovers(P, &anchor, geoUnit(geoAdd(a[i], 1.0, a[(i+1)%n]))) ){
      return 0;
    }
  }
  return 1;
}

/* Does line L lie in polygon P? Its vertices and the middles of its
** edges are in P, and none of its edges crosses P's boundary. */
static int geoPolyHasLine(const GeoPoly *P, const GeoLine *L){
  return geoPolyHasPath(P, L->a, L->n, 0) && !geoSweep(&P->E, &L->E, pairCrosses, 0);
}

/* Does polygon A hold polygon B? As for a line, for B's shell; and no hole
** of A is inside B: none of its vertices, nor its inside point. */
static int geoPolyHasPoly(const GeoPoly *A, const GeoPoly *B){
  GeoAnchor anchor = geoAnchor(B->inside);
  int i;
  if( !geoPolyHasPath(A, B->aLoop[0].a, B->aLoop[0].n, 1) ) return 0;
  for(i=1; i<A->nLoop; i++){
    const GeoLoop *H = &A->aLoop[i];
    int j;
    for(j=0; j<=H->n; j++){
      GeoPt v = j<H->n ? H->a[j] : H->inside;
      if( !geoEdgesNear(&B->E, -1, v) && geoSide(&B->E, -1, &anchor, v) ) return 0;
    }
  }
  return !geoSweep(&A->E, &B->E, pairCrosses, 0);
}

/* Is one of the n points a[] in polygon P? */
static int geoPolyHasAny(const GeoPoly *P, const GeoPt *a, int n){
  GeoAnchor anchor = geoAnchor(P->inside);
  int i;
  for(i=0; i<n; i++){
    if( geoPolyCovers(P, &anchor, a[i]) ) return 1;
  }
  return 0;
}

/* Do polygons A and B share a point? */
static int geoPolysMeet(const GeoPoly *A, const GeoPoly *B){
  return geoPolyHasAny(A, B->aLoop[0].a, B->aLoop[0].n)
      || geoPolyHasAny(B, A->aLoop[0].a, A->aLoop[0].n)
      || geoSweep(&A->E, &B->E, pairTouches, 0);
}

static int geoPolyMeetsLine(const GeoPoly *P, const GeoLine *L){
  return geoPolyHasAny(P, L->a, L->n) || geoSweep(&P->E, &L->E, pairTouches, 0);
}

/* The least angle from p to an edge of E. */
static double geoEdgesMinAngle(GeoPt p, const GeoEdges *E){
  double r = 4;
  int i;
  for(i=0; i<E->n; i++) r = fmin(r, geoArcDistance(p, E->a[i].a, E->a[i].b));
  return r;
}

/* The least angle from p to polygon P: 0 inside it. */
static double geoPolyMinAngle(GeoPt p, const GeoPoly *P){
  return geoPolyCovers(P, 0, p) ? 0 : geoEdgesMinAngle(p, &P->E);
}

/* The least angle from p to a point of geometry d. */
static double geoMinAngle(GeoPt p, const DocGeo *d){
  double r = 4;
  int i;
  for(i=0; i<d->nPt; i++) r = fmin(r, geoAngle(p, d->aPt[i]));
  for(i=0; i<d->nLine; i++) r = fmin(r, geoEdgesMinAngle(p, &d->aLine[i].E));
  for(i=0; i<d->nPoly && r>0; i++) r = fmin(r, geoPolyMinAngle(p, &d->aPoly[i]));
  return r;
}

/* $geoWithin of a spherical query q: is every part of geometry d inside
** one of q's polygons (or inside q's circle)? */
static int geoContains(const DocGeo *q, const DocGeo *d){
  int i, j;
  for(i=0; i<d->nPt; i++){
    int b = 0;
    if( q->eShape==GEO_CAP ){
      b = geoAngle(q->aPt[0], d->aPt[i])<=q->r + GEO_TOUCH;
    }
    for(j=0; j<q->nPoly && !b; j++) b = geoPolyCovers(&q->aPoly[j], 0, d->aPt[i]);
    if( !b ) return 0;
  }
  if( q->eShape==GEO_CAP ){
    /* MongoDB's test: no point of a line or polygon nearer to the circle's
    ** opposite point than the rest of the sphere's circumference */
    GeoPt anti = {-q->aPt[0].x, -q->aPt[0].y, -q->aPt[0].z};
    double rOut = GEO_PI - q->r;
    for(i=0; i<d->nLine; i++){
      if( geoEdgesMinAngle(anti, &d->aLine[i].E)<rOut ) return 0;
    }
    for(i=0; i<d->nPoly; i++){
      if( geoPolyMinAngle(anti, &d->aPoly[i])<rOut ) return 0;
    }
    return 1;
  }
  for(i=0; i<d->nLine; i++){
    int b = 0;
    for(j=0; j<q->nPoly && !b; j++) b = geoPolyHasLine(&q->aPoly[j], &d->aLine[i]);
    if( !b ) return 0;
  }
  for(i=0; i<d->nPoly; i++){
    int b = 0;
    for(j=0; j<q->nPoly && !b; j++) b = geoPolyHasPoly(&q->aPoly[j], &d->aPoly[i]);
    if( !b ) return 0;
  }
  return 1;
}

/* Does point p meet any part of geometry g? */
static int geoMeetsPoint(const DocGeo *g, GeoPt p){
  int i;
  for(i=0; i<g->nPt; i++){
    if( geoAngle(g->aPt[i], p)<=GEO_TOUCH ) return 1;
  }
  for(i=0; i<g->nLine; i++){
    if( geoEdgesNear(&g->aLine[i].E, -1, p) ) return 1;
  }
  for(i=0; i<g->nPoly; i++){
    if( geoPolyCovers(&g->aPoly[i], 0, p) ) return 1;
  }
  return 0;
}

static int geoMeetsLine(const DocGeo *g, const GeoLine *L){
  int i;
  for(i=0; i<g->nPt; i++){
    if( geoEdgesNear(&L->E, -1, g->aPt[i]) ) return 1;
  }
  for(i=0; i<g->nLine; i++){
    if( geoSweep(&g->aLine[i].E, &L->E, pairTouches, 0) ){
      return 1;
    }
  }
  for(i=0; i<g->nPoly; i++){
    if( geoPolyMeetsLine(&g->aPoly[i], L) ) return 1;
  }
  return 0;
}

static int geoMeetsPoly(const DocGeo *g, const GeoPoly *P){
  int i;
  if( geoPolyHasAny(P, g->aPt, g->nPt) ) return 1;
  for(i=0; i<g->nLine; i++){
    if( geoPolyMeetsLine(P, &g->aLine[i]) ) return 1;
  }
  for(i=0; i<g->nPoly; i++){
    if( geoPolysMeet(&g->aPoly[i], P) ) return 1;
  }
  return 0;
}

/* $geoIntersects: do the query q and the geometry d share a point? */
static int geoIntersects(const DocGeo *q, const DocGeo *d){
  int i;
  if( q->eShape==GEO_CAP ) return 0;
  for(i=0; i<d->nPt; i++){
    if( geoMeetsPoint(q, d->aPt[i]) ) return 1;
  }
  for(i=0; i<d->nLine; i++){
    if( geoMeetsLine(q, &d->aLine[i]) ) return 1;
  }
  for(i=0; i<d->nPoly; i++){
    if( geoMeetsPoly(q, &d->aPoly[i]) ) return 1;
  }
  return 0;
}

/* MongoDB's distanceCompare: exact along an axis, where sqrt would round
** a point at exactly the radius outside. */
static int geoFlatWithin(double cx, double cy, double x, double y, double r){
  double a = x - cx, b = y - cy;
  if( a==0 ) return (y>cy ? y - (cy + r) : cy - (y + r))<=0;
  if( b==0 ) return (x>cx ? x - (cx + r) : cx - (x + r))<=0;
  return sqrt(a*a + b*b) - r<=0;
}

/* Is (x, y) inside the flat polygon (its boundary included)? A ray to the
** right crosses its edges an odd number of times. */
static int geoFlatPolygonHas(const double *a, int n, double x, double y){
  int i, nCross = 0;
  for(i=0; i<n; i++){
    double x1 = a[2*i], y1 = a[2*i+1];
    double x2 = a[2*((i+1)%n)], y2 = a[2*((i+1)%n)+1];
    if( (x==x1 && y==y1) || (x==x2 && y==y2) ) return 1;
    if( y1==y2 && y==y1 && x>=fmin(x1, x2) && x<=fmax(x1, x2) ) return 1;
    if( y>fmin(y1, y2) && y<=fmax(y1, y2) && x<=fmax(x1, x2) && y1!=y2 ){
      if( x1==x2 ){
        if( x==x1 ) return 1;
        nCross++;
      }else if( x<=(y - y1)*(x2 - x1)/(y2 - y1) + x1 ){
        nCross++;
      }
    }
  }
  return nCross&1;
}

static int geoFlatMatch(const DocGeo *q, const DocGeo *d){
  if( !d->bOnePoint ) return 0;
  switch( q->eShape ){
    case GEO_BOX:
      return d->x>=q->x && d->x<=q->x2 && d->y>=q->y && d->y<=q->y2;
    case GEO_CENTER:
      return geoFlatWithin(q->x, q->y, d->x, d->y, q->r);
    default:
      return geoFlatPolygonHas(q->aFlat, q->nFlat, d->x, d->y);
  }
}

/* Does query q take its measures in the plane (else on the sphere)? */
static int geoIsFlat(const DocGeo *q){
  return q->eShape==GEO_BOX || q->eShape==GEO_CENTER || q->eShape==GEO_POLYGON
      || q->eShape==GEO_NEARFLAT;
}

/* Read the stored value v into *pD for query q: 1 when it is a geometry q
** can test (on the sphere, a legacy point put there), else 0 (*pRc set on
** out-of-memory). *pD is to be cleared by the caller either way. */
static int geoStoredFor(const DocGeo *q, const DocValue *v, DocGeo *pD, int *pRc){
  GeoParse sParse;
  int bOk;
  memset(pD, 0, sizeof(*pD));
  if( v==0 || (v->type!=DOC_DOCUMENT && v->type!=DOC_ARRAY) ) return 0;
  memset(&sParse, 0, sizeof(sParse));
  geoStored(&sParse, v, pD);
  bOk = sParse.rc==SQLITE_OK && !pD->bStrict && (geoIsFlat(q) || geoProject(&sParse, pD));
  if( sParse.rc==SQLITE_NOMEM ) *pRc = SQLITE_NOMEM;
  return bOk && sParse.rc==SQLITE_OK;
}

int docextGeoMatch(const DocGeo *q, const DocValue *v, int *pbMatch){
  DocGeo d;
  int rc = SQLITE_OK;
  *pbMatch = 0;
  if( geoStoredFor(q, v, &d, &rc) ){
    if( geoIsFlat(q) ){
      *pbMatch = geoFlatMatch(q, &d);
    }else{
      *pbMatch = q->bWithin ? geoContains(q, &d) : geoIntersects(q, &d);
    }
  }
  geoClear(&d);
  return rc;
}

/*------------------------------------------------------------------------
** Distances, for $geoNear
*/

#define GEO_EARTH_RADIUS 6378100.0   /* metres, as MongoDB's kRadiusOfEarthInMeters */

/* g->x, g->y as a $geoNear's or $near's legacy point: on the sphere
** (distances in radians) when bSpherical, else in the plane. */
static void geoNearLegacy(GeoParse *p, DocGeo *g, int bSpherical){
  g->bFlat = 1;
  g->eShape = bSpherical ? GEO_NEAR : GEO_NEARFLAT;
  if( p->rc==SQLITE_OK && bSpherical && !geoProject(p, g) ){
    geoFail(p, "legacy point is out of bounds for spherical query");
  }
}

int docextGeoNearNew(const DocValue *pNear, int bSpherical, DocGeo **ppOut, char **pzWhy){
  GeoParse sParse;
  DocGeo *g;
  DocIter it;
  *ppOut = 0;
  if( pNear->type!=DOC_DOCUMENT && pNear->type!=DOC_ARRAY ){
    return docextError(pzWhy, "near must be a GeoJSON point or a legacy coordinate pair");
  }
  g = docextMallocZero(sizeof(*g));
  if( g==0 ) return SQLITE_NOMEM;
  memset(&sParse, 0, sizeof(sParse));
  docextIterInitValue(&it, pNear);
  if( pNear->type==DOC_ARRAY || (docextIterNext(&it) && docextValueIsNumber(&it.v)) ){
    geoFlatPoint(&sParse, pNear, 0, &g->x, &g->y);
    geoNearLegacy(&sParse, g, bSpherical);
  }else if( geoType(pNear->p)!=0 ){
    geoFail(&sParse, "near must be a GeoJSON point or a legacy coordinate pair");
  }else{
    geoGeoJSON(&sParse, pNear->p, 0, g);
    g->eShape = GEO_NEAR;
    g->bMeters = 1;
  }
  return geoParseDone(&sParse, g, ppOut, pzWhy);
}

int docextGeoNearIsSphere(const DocGeo *pNear, int *pbMeters){
  *pbMeters = pNear->bMeters;
  return pNear->eShape==GEO_NEAR;
}

double docextGeoNearPerRadian(const DocGeo *pNear){
  return pNear->bMeters ? GEO_EARTH_RADIUS : 1.0;
}

void docextGeoNearCenter(const DocGeo *pNear, double *pLng, double *pLat){
  GeoPt c;
  if( pNear->eShape==GEO_NEARFLAT ){
    *pLng = pNear->x;
    *pLat = pNear->y;
    return;
  }
  c = pNear->aPt[0];
  *pLng = atan2(c.y, c.x)*180.0/GEO_PI;
  *pLat = atan2(c.z, sqrt(c.x*c.x + c.y*c.y))*180.0/GEO_PI;
}

int docextGeoDistance(const DocGeo *q, const DocValue *v, double *pr){
  DocGeo d;
  int rc = SQLITE_OK;
  *pr = -1;
  if( geoStoredFor(q, v, &d, &rc) ){
    if( !geoIsFlat(q) ){
      *pr = geoMinAngle(q->aPt[0], &d)*(q->bMeters ? GEO_EARTH_RADIUS : 1.0);
    }else if( d.bOnePoint ){
      double a = d.x - q->x, b = d.y - q->y;
      *pr = sqrt(a*a + b*b);
    }
  }
  geoClear(&d);
  return rc;
}

/*------------------------------------------------------------------------
** $near and $nearSphere in a filter
*/

/* Is v a point as a $near takes it (MongoDB's parseQueryPoint): a legacy
** point of two numbers, in an array or a document, or a GeoJSON Point?
** Anything else ({$geometry: …, $maxDistance: …}) is for the other form. */
static int geoIsNearPoint(const DocValue *v){
  GeoParse sParse;
  DocIter it;
  double x, y;
  if( v->type!=DOC_ARRAY && v->type!=DOC_DOCUMENT ) return 0;
  docextIterInitValue(&it, v);
  if( v->type==DOC_DOCUMENT && !(docextIterNext(&it) && docextValueIsNumber(&it.v)) ){
    return geoType(v->p)==0;
  }
  memset(&sParse, 0, sizeof(sParse));
  geoFlatPoint(&sParse, v, 0, &x, &y);
  return sParse.rc==SQLITE_OK;
}

/* A distance option's value: a number, not negative (and finite, bFinite). */
static void geoNearDistance(GeoParse *p, const DocIter *pIt, int bFinite, double *pr){
  double r = docextValueToDouble(&pIt->v);
  if( !docextValueIsNumber(&pIt->v) ){
    geoFail(p, "%s must be a number", pIt->zKey);
  }else if( !(r>=0) || (bFinite && !isfinite(r)) ){
    geoFail(p, "%s must be non-negative", pIt->zKey);
  }else{
    *pr = r;
  }
}

int docextGeoNearOpNew(const DocValue *pOps, DocGeo **ppOut, double *prMin, double *prMax,
                       char **pzWhy){
  GeoParse sParse;
  DocIter it;
  DocValue point;
  int bSphere = 0, bFound = 0, bTriple = 0;
  *ppOut = 0;
  *prMin = 0;
  *prMax = INFINITY;
  memset(&sParse, 0, sizeof(sParse));
  memset(&point, 0, sizeof(point));
  /* The legacy form, as MongoDB's GeoNearExpression::parseLegacyQuery:
  ** {$near | $nearSphere: point, $minDistance, $maxDistance}, or a point and
  ** its maximum distance, [x, y, d]. */
  docextIterInitValue(&it, pOps);
  while( sParse.rc==SQLITE_OK && docextIterNext(&it) ){
    if( strcmp(it.zKey, "$near")==0 || strcmp(it.zKey, "$nearSphere")==0
     || strcmp(it.zKey, "$geoNear")==0 ){
      if( geoIsNearPoint(&it.v) ){
        point = it.v;
        bTriple = 0;
      }else if( it.v.type==DOC_ARRAY && docextIterCount(&it.v)==3 ){
        /* [x, y, d]: its d is the $maxDistance (a later one wins) */
        DocIter e;
        docextIterInitValue(&e, &it.v);
        docextIterNext(&e);
        docextIterNext(&e);
        docextIterNext(&e);
        if( !docextValueIsNumber(&e.v) ) continue;
        point = it.v;
        bTriple = 1;
        *prMax = docextValueToDouble(&e.v);
        if( !(*prMax>=0) ) geoFail(&sParse, "max distance must be non-negative");
      }else{
        continue;
      }
      bFound = 1;
      bSphere = it.zKey[5]=='S';
    }else if( strcmp(it.zKey, "$minDistance")==0 ){
      geoNearDistance(&sParse, &it, 0, prMin);
    }else if( strcmp(it.zKey, "$maxDistance")==0 ){
      geoNearDistance(&sParse, &it, 0, prMax);
    }else if( strcmp(it.zKey, "$uniqueDocs")!=0 ){
      geoFail(&sParse, "invalid argument in geo near query: %s", it.zKey);
    }
  }
  if( sParse.rc==SQLITE_OK && !bFound ){
    /* The GeoJSON form: {$near | $nearSphere: {$geometry: Point,
    ** $minDistance, $maxDistance}} alone; distances in metres. */
    *prMin = 0;
    *prMax = INFINITY;
    docextIterInitValue(&it, pOps);
    docextIterNext(&it);
    if( docextIterCount(pOps)!=1 ){
      geoFail(&sParse, "geo near accepts just one argument when querying for a GeoJSON point");
    }else if( it.v.type!=DOC_DOCUMENT ){
      geoFail(&sParse, "geo near query argument is not an object");
    }else{
      DocIter a;
      docextIterInitValue(&a, &it.v);
      while( sParse.rc==SQLITE_OK && docextIterNext(&a) ){
        if( strcmp(a.zKey, "$geometry")==0 ){
          if( a.v.type!=DOC_DOCUMENT || geoType(a.v.p)!=0 ){
            geoFail(&sParse, "$near requires geojson point");
          }
          point = a.v;
          bFound = 1;
        }else if( strcmp(a.zKey, "$minDistance")==0 ){
          geoNearDistance(&sParse, &a, 1, prMin);
        }else if( strcmp(a.zKey, "$maxDistance")==0 ){
          geoNearDistance(&sParse, &a, 1, prMax);
        }else{
          geoFail(&sParse, "invalid argument in geo near query: %s", a.zKey);
        }
      }
      if( sParse.rc==SQLITE_OK && !bFound ){
        geoFail(&sParse, "$geometry is required for geo near query");
      }
    }
  }
  if( sParse.rc ){
    if( sParse.rc==SQLITE_NOMEM ) return SQLITE_NOMEM;
    return docextError(pzWhy, "%s", sParse.zWhy);
  }
  if( bTriple ){
    /* [x, y, d]: the point's first two numbers, then its distance */
    DocGeo *g = docextMallocZero(sizeof(*g));
    DocIter e;
    if( g==0 ) return SQLITE_NOMEM;
    docextIterInitValue(&e, &point);
    docextIterNext(&e);
    g->x = docextValueToDouble(&e.v);
    docextIterNext(&e);
    g->y = docextValueToDouble(&e.v);
    if( !isfinite(g->x) || !isfinite(g->y) || !docextValueIsNumber(&e.v) ){
      geoFail(&sParse, "Point coordinates must be finite numbers");
    }
    geoNearLegacy(&sParse, g, bSphere);
    return geoParseDone(&sParse, g, ppOut, pzWhy);
  }
  return docextGeoNearNew(&point, bSphere, ppOut, pzWhy);
}

/*------------------------------------------------------------------------
** Cells, for 2dsphere indexes
**
** As in S2, the sphere is projected from its centre onto the six faces of
** a cube (so a cell's edges are great circles), and each face is cut into
** quarters, GEO_LEVELS times over. A cell's id is a u64: the face in the
** top 3 bits, two bits per level for the quarter (the i and j bits
** interleaved, in Z order), a 1, then zeros. The ids of a cell's
** descendants therefore fill id-(lsb-1) .. id+(lsb-1) (lsb: the id's
** lowest set bit), a range that holds no id of its ancestors.
**
** An index stores the cells that cover each geometry: a point's leaf cell,
** or the covering of a line, a polygon or many points by at most
** GEO_CELLS_MAX cells (geoCover). A query covers its region alike, and
** reads each of its cells' ranges and each of their ancestors: when a
** geometry meets the region, one of its cells lies inside a query cell or
** contains one. Coverings test each cell grown by GEO_CELL_PAD, far more
** than GEO_TOUCH and rounding, so they never miss a point that the
** predicates count as touching. The index only filters: the matcher
** decides.
*/
#define GEO_LEVELS     30
#define GEO_CELLS_MAX  16
#define GEO_CELL_PAD   4e-8     /* in face coordinates (-1 to 1) */

/* The face of p and its coordinates there, each in [-1, 1]. */
static int geoFaceUV(GeoPt p, double *pu, double *pv){
  double a[3];
  int ax = 0;
  a[0] = p.x; a[1] = p.y; a[2] = p.z;
  if( fabs(a[1])>fabs(a[ax]) ) ax = 1;
  if( fabs(a[2])>fabs(a[ax]) ) ax = 2;
  *pu = a[(ax+1)%3]/fabs(a[ax]);
  *pv = a[(ax+2)%3]/fabs(a[ax]);
  return ax + (a[ax]<0 ? 3 : 0);
}

/* The point of face f at coordinates (u, v). */
static GeoPt geoFacePoint(int f, double u, double v){
  double a[3];
  GeoPt p;
  int ax = f%3;
  a[ax] = f<3 ? 1.0 : -1.0;
  a[(ax+1)%3] = u;
  a[(ax+2)%3] = v;
  p.x = a[0]; p.y = a[1]; p.z = a[2];
  return geoUnit(p);
}

/* The bits of x at the even positions of a u64, and back. */
static u64 geoSpread(u64 x){
  x &= 0xFFFFFFFFULL;
  x = (x | (x<<16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x<<8))  & 0x00FF00FF00FF00FFULL;
  x = (x | (x<<4))  & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x<<2))  & 0x3333333333333333ULL;
  x = (x | (x<<1))  & 0x5555555555555555ULL;
  return x;
}
static u64 geoSqueeze(u64 x){
  x &= 0x5555555555555555ULL;
  x = (x | (x>>1))  & 0x3333333333333333ULL;
  x = (x | (x>>2))  & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x>>4))  & 0x00FF00FF00FF00FFULL;
  x = (x | (x>>8))  & 0x0000FFFF0000FFFFULL;
  x = (x | (x>>16)) & 0x00000000FFFFFFFFULL;
  return x;
}

static u64 geoCellLsb(u64 id){
  return id & (~id + 1);
}
static int geoCellLevel(u64 id){
  u64 lsb = geoCellLsb(id);
  int n = 0;
  while( lsb>1 ){ lsb >>= 2; n++; }
  return GEO_LEVELS - n;
}

/* The leaf cell of p. */
static u64 geoLeafCell(GeoPt p){
  double u, v;
  int f = geoFaceUV(p, &u, &v);
  double nSide = (double)((u64)1<<GEO_LEVELS);
  double di = floor((u + 1.0)*0.5*nSide), dj = floor((v + 1.0)*0.5*nSide);
  u64 i = di<0 ? 0 : di>=nSide ? ((u64)1<<GEO_LEVELS) - 1 : (u64)di;
  u64 j = dj<0 ? 0 : dj>=nSide ? ((u64)1<<GEO_LEVELS) - 1 : (u64)dj;
  return ((u64)f<<61) | (((geoSpread(i)<<1) | geoSpread(j))<<1) | 1;
}

/* The corners of cell id, grown by GEO_CELL_PAD, anticlockwise seen from
** outside the sphere (the cell on the left of each edge). */
static void geoCellCorners(u64 id, GeoPt *a){
  u64 lsb = geoCellLsb(id), m = ((id - lsb + 1)>>1) & (((u64)1<<60) - 1);
  int f = (int)(id>>61);
  double nSide = (double)((u64)1<<GEO_LEVELS);
  double size = (double)((u64)1<<(GEO_LEVELS - geoCellLevel(id)));
  double i0 = (double)geoSqueeze(m>>1), j0 = (double)geoSqueeze(m);
  double u0 = i0/nSide*2.0 - 1.0 - GEO_CELL_PAD, u1 = (i0 + size)/nSide*2.0 - 1.0 + GEO_CELL_PAD;
  double v0 = j0/nSide*2.0 - 1.0 - GEO_CELL_PAD, v1 = (j0 + size)/nSide*2.0 - 1.0 + GEO_CELL_PAD;
  a[0] = geoFacePoint(f, u0, v0);
  a[1] = geoFacePoint(f, u1, v0);
  a[2] = geoFacePoint(f, u1, v1);
  a[3] = geoFacePoint(f, u0, v1);
  /* (u, v, axis) is right-handed on faces 0-2, left-handed on 3-5 */
  if( f>=3 ){
    GeoPt t = a[1];
    a[1] = a[3];
    a[3] = t;
  }
}

/* Cell id as a polygon (grown as geoCellCorners) into *g (to be cleared). */
static void geoCellShape(GeoParse *p, u64 id, DocGeo *g){
  GeoPoly *P;
  GeoLoop *L;
  memset(g, 0, sizeof(*g));
  g->eShape = GEO_SPHERE;
  g->aPoly = geoGrow(p, 0, 0, &g->nPolyAlloc, sizeof(GeoPoly));
  if( p->rc ) return;
  P = &g->aPoly[g->nPoly++];
  memset(P, 0, sizeof(*P));
  P->aLoop = sqlite3_malloc64(sizeof(GeoLoop));
  if( P->aLoop==0 ){ p->rc = SQLITE_NOMEM; return; }
  L = &P->aLoop[P->nLoop++];
  memset(L, 0, sizeof(*L));
  L->a = sqlite3_malloc64(sizeof(GeoPt)*4);
  if( L->a==0 ){ p->rc = SQLITE_NOMEM; return; }
  L->n = 4;
  geoCellCorners(id, L->a);
  /* a convex quadrilateral, valid by construction: none of geoLoopFinish's
  ** and geoPolyCheck's tests */
  geoLoopSetInside(L);
  geoEdgesBuild(p, P->aLoop, 1, 1, &P->E);
  if( p->rc==SQLITE_OK ) geoPolySetInside(P);
}

/* Is the least angle from p to cell id (grown as geoCellCorners) at most
** r? (0 inside it.) */
static int geoCellWithin(GeoPt p, u64 id, double r){
  GeoPt a[4];
  int i, bIn = 1;
  geoCellCorners(id, a);
  for(i=0; i<4 && bIn; i++) bIn = geoDot(geoCross(a[i], a[(i+1)%4]), p)>=0;
  if( bIn && geoDot(geoAdd(a[0], 1.0, a[2]), p)>0 ) return 1;
  for(i=0; i<4; i++){
    if( geoArcDistance(p, a[i], a[(i+1)%4])<=r ) return 1;
  }
  return 0;
}

/* A region to cover: a geometry, or a circle (GEO_CAP), and a circle
** around it (bBound) that spares the exact test of the cells outside it. */
typedef struct GeoRegion GeoRegion;
struct GeoRegion {
  const DocGeo *r;
  int bBound;
  GeoPt c;            /* the bounding circle's centre */
  double rBound;      /* and radius */
};

/* The circle about the vertices of geometry r, when there is one of less
** than a quarter turn: it then holds r's edges (minor arcs) and the
** polygons' regions (each the smaller side of its ring), but not a big
** polygon's. */
static void geoRegionInit(GeoRegion *pR, const DocGeo *r){
  GeoPt sum = {0, 0, 0};
  int i, j, k;
  memset(pR, 0, sizeof(*pR));
  pR->r = r;
  if( r->eShape!=GEO_SPHERE ) return;
  for(i=0; i<r->nPt; i++) sum = geoAdd(sum, 1.0, r->aPt[i]);
  for(i=0; i<r->nLine; i++){
    for(j=0; j<r->aLine[i].n; j++) sum = geoAdd(sum, 1.0, r->aLine[i].a[j]);
  }
  for(i=0; i<r->nPoly; i++){
    if( r->bStrict ) return;
    for(k=0; k<r->aPoly[i].nLoop; k++){
      const GeoLoop *L = &r->aPoly[i].aLoop[k];
      for(j=0; j<L->n; j++) sum = geoAdd(sum, 1.0, L->a[j]);
    }
  }
  if( geoDot(sum, sum)<1e-20 ) return;
  pR->c = geoUnit(sum);
  for(i=0; i<r->nPt; i++) pR->rBound = fmax(pR->rBound, geoAngle(pR->c, r->aPt[i]));
  for(i=0; i<r->nLine; i++){
    for(j=0; j<r->aLine[i].n; j++) pR->rBound = fmax(pR->rBound, geoAngle(pR->c, r->aLine[i].a[j]));
  }
  for(i=0; i<r->nPoly; i++){
    const GeoLoop *L = &r->aPoly[i].aLoop[0];
    for(j=0; j<L->n; j++) pR->rBound = fmax(pR->rBound, geoAngle(pR->c, L->a[j]));
  }
  pR->bBound = pR->rBound<GEO_PI/2 - 1e-6;
}

/* May the region meet cell id? */
static int geoCellMeets(GeoParse *p, const GeoRegion *pR, u64 id){
  const DocGeo *r = pR->r;
  DocGeo c;
  int b = 0;
  if( r->eShape==GEO_CAP ) return geoCellWithin(r->aPt[0], id, r->r + GEO_TOUCH);
  if( pR->bBound && !geoCellWithin(pR->c, id, pR->rBound + GEO_TOUCH) ) return 0;
  geoCellShape(p, id, &c);
  if( p->rc==SQLITE_OK ) b = geoIntersects(r, &c);
  geoClear(&c);
  return b;
}

/* Cover region r with at most GEO_CELLS_MAX cells, into a[] (that many
** entries): from the faces it meets, split the largest cell into the
** children that meet r while the count allows. Returns the count. */
static int geoCover(GeoParse *p, const DocGeo *r, u64 *a){
  u8 aFinal[GEO_CELLS_MAX];
  GeoRegion reg;
  int n = 0, f;
  geoRegionInit(&reg, r);
  for(f=0; f<6 && p->rc==SQLITE_OK; f++){
    u64 id = ((u64)f<<61) | ((u64)1<<60);
    if( geoCellMeets(p, &reg, id) ){ aFinal[n] = 0; a[n++] = id; }
  }
  while( p->rc==SQLITE_OK ){
    u64 aChild[4], lsb, c;
    int iBest = -1, k, nChild = 0;
    for(k=0; k<n; k++){
      if( aFinal[k] || geoCellLevel(a[k])>=GEO_LEVELS ) continue;
      if( iBest<0 || geoCellLevel(a[k])<geoCellLevel(a[iBest]) ) iBest = k;
    }
    if( iBest<0 ) break;
    lsb = geoCellLsb(a[iBest]);
    c = a[iBest] - lsb + (lsb>>2);
    for(k=0; k<4 && p->rc==SQLITE_OK; k++, c += lsb>>1){
      if( geoCellMeets(p, &reg, c) ) aChild[nChild++] = c;
    }
    if( nChild==0 ){ aFinal[iBest] = 1; continue; }
    if( n - 1 + nChild > GEO_CELLS_MAX ) break;
    a[iBest] = aChild[0];
    for(k=1; k<nChild; k++){ aFinal[n] = 0; a[n++] = aChild[k]; }
  }
  return n;
}

/* A cell id as an index key's int64: ordered as the ids are unsigned. */
static i64 geoCellKey(u64 id){
  return (i64)(id ^ ((u64)1<<63));
}

/* For qsort of (lo, hi) pairs of int64. */
static int geoKeyRangeCmp(const void *pA, const void *pB){
  const i64 *a = (const i64*)pA, *b = (const i64*)pB;
  if( a[0]!=b[0] ) return a[0]<b[0] ? -1 : 1;
  return a[1]<b[1] ? -1 : a[1]>b[1];
}

static int geoI64Cmp(const void *pA, const void *pB){
  i64 a = *(const i64*)pA, b = *(const i64*)pB;
  return a<b ? -1 : a>b;
}

/* Sort keys a[0..n) and keep each once: the count kept. */
static int geoKeysDistinct(i64 *a, int n){
  int i, nOut = 0;
  qsort(a, (size_t)n, sizeof(i64), geoI64Cmp);
  for(i=0; i<n; i++){
    if( i==0 || a[i]!=a[i-1] ) a[nOut++] = a[i];
  }
  return nOut;
}

int docextGeoCells(const DocValue *v, i64 **paKey, int *pnKey, char **pzWhy){
  GeoParse sParse;
  DocGeo d;
  DocValue t;
  u64 a[GEO_CELLS_MAX];
  i64 *aKey;
  int n = 0, i;
  *paKey = 0;
  *pnKey = 0;
  memset(&sParse, 0, sizeof(sParse));
  memset(&d, 0, sizeof(d));
  if( v->type!=DOC_DOCUMENT && v->type!=DOC_ARRAY ){
    return docextError(pzWhy, "geometry must be an object or an array");
  }
  geoStored(&sParse, v, &d);
  if( sParse.rc==SQLITE_ERROR && v->type==DOC_DOCUMENT
   && docextBsonFind(v->p, "type", 4, &t) ){
    /* meant as GeoJSON (it failed as a legacy point too): say why it failed */
    GeoParse sJson;
    DocGeo g;
    memset(&g, 0, sizeof(g));
    memset(&sJson, 0, sizeof(sJson));
    geoGeoJSON(&sJson, v->p, 0, &g);
    geoClear(&g);
    if( sJson.rc==SQLITE_ERROR ) memcpy(sParse.zWhy, sJson.zWhy, sizeof(sParse.zWhy));
  }
  if( sParse.rc==SQLITE_OK && d.bStrict ){
    geoFail(&sParse, "a big polygon (strict winding order) cannot be stored");
  }
  if( sParse.rc==SQLITE_OK && !geoProject(&sParse, &d) ){
    geoFail(&sParse, "longitude/latitude is out of bounds, lng: %.15g lat: %.15g", d.x, d.y);
  }
  if( sParse.rc==SQLITE_OK ){
    if( d.nLine==0 && d.nPoly==0 && d.nPt<=GEO_CELLS_MAX ){
      for(i=0; i<d.nPt; i++) a[n++] = geoLeafCell(d.aPt[i]);
    }else{
      n = geoCover(&sParse, &d, a);
    }
  }
  geoClear(&d);
  if( sParse.rc ){
    if( sParse.rc==SQLITE_NOMEM ) return SQLITE_NOMEM;
    return docextError(pzWhy, "%s", sParse.zWhy);
  }
  aKey = sqlite3_malloc64(sizeof(i64)*(size_t)(n>0 ? n : 1));
  if( aKey==0 ) return SQLITE_NOMEM;
  for(i=0; i<n; i++) aKey[i] = geoCellKey(a[i]);
  *paKey = aKey;
  *pnKey = geoKeysDistinct(aKey, n);
  return SQLITE_OK;
}

/* The region a query operator confines its matches to, for its covering:
** 1 with *pR set (q, or the circle of a $near's maximum distance, built in
** *pCap), or 0 when no region bounds it (flat shapes, no maximum). */
static int geoQueryRegion(int eOp, DocGeo *q, double rMax, DocGeo *pCap, const DocGeo **pR){
  if( geoIsFlat(q) ) return 0;
  if( eOp!=DOCEXT_GEO_NEAR ){
    *pR = q;
    return 1;
  }
  if( q->nPt==0 || !(rMax<INFINITY) ) return 0;
  memset(pCap, 0, sizeof(*pCap));
  pCap->eShape = GEO_CAP;
  pCap->aPt = q->aPt;
  pCap->nPt = 1;
  pCap->r = q->bMeters ? rMax/GEO_EARTH_RADIUS : rMax;
  if( pCap->r>=GEO_PI ) return 0;
  *pR = pCap;
  return 1;
}

int docextGeoKeyRanges(int eOp, const DocValue *v, i64 **paRange, int *pnRange){
  GeoParse sParse;
  DocGeo *q = 0, cap;
  const DocGeo *r = 0;
  char *zWhy = 0;
  double rMin, rMax = INFINITY;
  u64 a[GEO_CELLS_MAX];
  i64 *aRange;
  int rc, n = 0, i, k, nOut = 0;
  *paRange = 0;
  *pnRange = 0;
  if( eOp==DOCEXT_GEO_NEAR ){
    rc = docextGeoNearOpNew(v, &q, &rMin, &rMax, &zWhy);
  }else{
    rc = docextGeoQueryNew(eOp==DOCEXT_GEO_WITHIN, v, &q, &zWhy);
  }
  sqlite3_free(zWhy);
  if( rc!=SQLITE_OK ) return rc==SQLITE_NOMEM ? rc : SQLITE_OK;   /* (the matcher reports it) */
  memset(&sParse, 0, sizeof(sParse));
  if( geoQueryRegion(eOp, q, rMax, &cap, &r) ) n = geoCover(&sParse, r, a);
  docextGeoFree(q);
  if( sParse.rc ) return sParse.rc==SQLITE_NOMEM ? SQLITE_NOMEM : SQLITE_OK;
  if( n==0 ) return SQLITE_OK;
  /* each cell's range, and each of its ancestors as a point */
  aRange = sqlite3_malloc64(sizeof(i64)*2*(size_t)n*(GEO_LEVELS + 1));
  if( aRange==0 ) return SQLITE_NOMEM;
  for(i=0; i<n; i++){
    u64 lsb = geoCellLsb(a[i]);
    int level = geoCellLevel(a[i]);
    aRange[2*nOut] = geoCellKey(a[i] - lsb + 1);
    aRange[2*nOut+1] = geoCellKey(a[i] + lsb - 1);
    nOut++;
    for(k=0; k<level; k++){
      u64 lsbK = (u64)1 << (2*(GEO_LEVELS - k));
      u64 anc = (a[i] & ~(2*lsbK - 1)) | lsbK;
      aRange[2*nOut] = aRange[2*nOut+1] = geoCellKey(anc);
      nOut++;
    }
  }
  /* the cells' ancestors repeat: keep each range once, so that the
  ** planner's own sort of the ranges (by key bytes) has fewer to sort */
  qsort(aRange, (size_t)nOut, 2*sizeof(i64), geoKeyRangeCmp);
  for(i=k=0; i<nOut; i++){
    if( k>0 && aRange[2*i]==aRange[2*(k-1)] && aRange[2*i+1]==aRange[2*(k-1)+1] ) continue;
    aRange[2*k] = aRange[2*i];
    aRange[2*k+1] = aRange[2*i+1];
    k++;
  }
  *paRange = aRange;
  *pnRange = k;
  return SQLITE_OK;
}

/*------------------------------------------------------------------------
** Cells, for 2d indexes
**
** A 2d index cuts the square [rMin, rMax) x [rMin, rMax) of the plane
** into quarters nBits times over, as MongoDB's geohash does; a point's key
** is its leaf cell: the i and j bits interleaved, as an int64 ordered as
** geoCellKey orders them. A query covers its flat region by at most
** GEO_CELLS_MAX cells of any size (a polygon by its bounding box), each
** the range of its leaves. As for 2dsphere, the index only filters.
*/

/* The bounds of a flat region, or its kind. */
typedef struct GeoFlatRegion GeoFlatRegion;
struct GeoFlatRegion {
  int eShape;         /* GEO_BOX (a polygon's bounding box too), GEO_CENTER */
  double x, y, x2, y2, r;
  int bBox2;          /* GEO_BOX: a second box too (a circle on the sphere
                      ** across the antimeridian) */
  double bx, by, bx2, by2;
};

/* May the region meet the rectangle [x0, x1] x [y0, y1], grown by pad? */
static int geoFlatMeets(const GeoFlatRegion *g, double x0, double y0, double x1,
                        double y1, double pad){
  double dx, dy;
  x0 -= pad; y0 -= pad; x1 += pad; y1 += pad;
  if( g->eShape==GEO_BOX ){
    return (g->x<=x1 && g->x2>=x0 && g->y<=y1 && g->y2>=y0)
        || (g->bBox2 && g->bx<=x1 && g->bx2>=x0 && g->by<=y1 && g->by2>=y0);
  }
  dx = g->x<x0 ? x0 - g->x : g->x>x1 ? g->x - x1 : 0;
  dy = g->y<y0 ? y0 - g->y : g->y>y1 ? g->y - y1 : 0;
  return sqrt(dx*dx + dy*dy)<=g->r*(1 + 1e-12);
}

/* The leaf of coordinate x: its index among the 2^nBits. */
static u64 geoFlatLeaf(double x, double rMin, double rMax, int nBits){
  double nSide = (double)((u64)1<<nBits);
  double d = floor((x - rMin)/(rMax - rMin)*nSide);
  return d<0 ? 0 : d>=nSide ? ((u64)1<<nBits) - 1 : (u64)d;
}

int docextGeo2dCells(const DocValue *v, double rMin, double rMax, int nBits,
                     i64 **paKey, int *pnKey, char **pzWhy){
  GeoParse sParse;
  DocIter it;
  i64 *aKey;
  int n = 0, nAlloc, bMany;
  *paKey = 0;
  *pnKey = 0;
  if( v->type!=DOC_DOCUMENT && v->type!=DOC_ARRAY ){
    return docextError(pzWhy, "location object expected, location array not in correct format");
  }
  /* one point, or (its first value being no number) an array of points */
  docextIterInitValue(&it, v);
  bMany = docextIterNext(&it) && (it.v.type==DOC_ARRAY || it.v.type==DOC_DOCUMENT);
  nAlloc = bMany ? docextIterCount(v) : 1;
  aKey = sqlite3_malloc64(sizeof(i64)*(size_t)(nAlloc>0 ? nAlloc : 1));
  if( aKey==0 ) return SQLITE_NOMEM;
  memset(&sParse, 0, sizeof(sParse));
  docextIterInitValue(&it, v);
  while( sParse.rc==SQLITE_OK && (bMany ? docextIterNext(&it) : n==0) ){
    const DocValue *pPt = bMany ? &it.v : v;
    double x = 0, y = 0;
    geoFlatPoint(&sParse, pPt, 1, &x, &y);
    if( sParse.rc ) break;
    if( !(x>=rMin && x<rMax && y>=rMin && y<rMax) ){
      geoFail(&sParse, "point not in interval of [ %.15g, %.15g ) (x: %.15g, y: %.15g)",
              rMin, rMax, x, y);
      break;
    }
    aKey[n++] = geoCellKey((((geoSpread(geoFlatLeaf(x, rMin, rMax, nBits))<<1)
                            | geoSpread(geoFlatLeaf(y, rMin, rMax, nBits)))));
  }
  if( sParse.rc ){
    sqlite3_free(aKey);
    if( sParse.rc==SQLITE_NOMEM ) return SQLITE_NOMEM;
    return docextError(pzWhy, "%s", sParse.zWhy);
  }
  *paKey = aKey;
  *pnKey = geoKeysDistinct(aKey, n);
  return SQLITE_OK;
}

/* The longitudes and latitudes (degrees) within r radians of p, as one or
** two boxes into g: the latitudes within r of p's, and the longitudes
** within asin(sin r / cos lat) of p's (all of them about a pole), split at
** the antimeridian. Grown a little for rounding. */
static void geoCapBoxes(GeoPt p, double r, GeoFlatRegion *g){
  double lat = atan2(p.z, sqrt(p.x*p.x + p.y*p.y))*180.0/GEO_PI;
  double lng = atan2(p.y, p.x)*180.0/GEO_PI;
  double rDeg = r*180.0/GEO_PI*(1 + 1e-9) + 1e-9, dLng = 360;
  g->eShape = GEO_BOX;
  g->y = lat - rDeg;
  g->y2 = lat + rDeg;
  if( g->y>-90 && g->y2<90 && sin(r)<cos(lat*GEO_PI/180.0) ){
    dLng = asin(sin(r)/cos(lat*GEO_PI/180.0))*180.0/GEO_PI*(1 + 1e-9) + 1e-9;
  }
  if( dLng>=180 ){
    g->x = -180;
    g->x2 = 180;
    return;
  }
  g->x = lng - dLng;
  g->x2 = lng + dLng;
  if( g->x< -180 || g->x2>180 ){
    g->bBox2 = 1;
    g->by = g->y;
    g->by2 = g->y2;
    g->bx = g->x< -180 ? g->x + 360 : -180;
    g->bx2 = g->x< -180 ? 180 : g->x2 - 360;
  }
}

/* The flat region of a query operator, or 0 when it has none: in the
** plane, or (bSphere, a 2d index over longitudes and latitudes) on the
** sphere, a circle's boxes. */
static int geoFlatRegionOf(int eOp, const DocValue *v, int bSphere, GeoFlatRegion *g){
  DocGeo *q = 0;
  char *zWhy = 0;
  double rMin, rMax = INFINITY;
  int rc, i, bOk = 1;
  memset(g, 0, sizeof(*g));
  if( eOp==DOCEXT_GEO_NEAR ){
    rc = docextGeoNearOpNew(v, &q, &rMin, &rMax, &zWhy);
  }else{
    rc = docextGeoQueryNew(eOp==DOCEXT_GEO_WITHIN, v, &q, &zWhy);
  }
  sqlite3_free(zWhy);
  if( rc!=SQLITE_OK ) return rc==SQLITE_NOMEM ? -1 : 0;
  switch( q->eShape ){
    case GEO_BOX:
      g->eShape = GEO_BOX;
      g->x = q->x; g->y = q->y; g->x2 = q->x2; g->y2 = q->y2;
      break;
    case GEO_POLYGON:
      g->eShape = GEO_BOX;
      g->x = g->x2 = q->aFlat[0];
      g->y = g->y2 = q->aFlat[1];
      for(i=1; i<q->nFlat; i++){
        g->x = fmin(g->x, q->aFlat[2*i]);
        g->x2 = fmax(g->x2, q->aFlat[2*i]);
        g->y = fmin(g->y, q->aFlat[2*i+1]);
        g->y2 = fmax(g->y2, q->aFlat[2*i+1]);
      }
      break;
    case GEO_CENTER:
      g->eShape = GEO_CENTER;
      g->x = q->x; g->y = q->y; g->r = q->r;
      break;
    case GEO_NEARFLAT:
      g->eShape = GEO_CENTER;
      g->x = q->x; g->y = q->y; g->r = rMax;
      bOk = rMax<INFINITY;
      break;
    case GEO_CAP:
      bOk = bSphere;
      if( bOk ) geoCapBoxes(q->aPt[0], q->r, g);
      break;
    case GEO_NEAR:
      bOk = bSphere && rMax<INFINITY && q->nPt>0;
      if( bOk ) geoCapBoxes(q->aPt[0], q->bMeters ? rMax/GEO_EARTH_RADIUS : rMax, g);
      break;
    default:
      bOk = 0;
      break;
  }
  docextGeoFree(q);
  return bOk;
}

int docextGeo2dKeyRanges(int eOp, const DocValue *v, double rMin, double rMax, int nBits,
                         i64 **paRange, int *pnRange){
  GeoFlatRegion g;
  u64 a[GEO_CELLS_MAX];               /* cells: morton prefix, level in low bits */
  int aLevel[GEO_CELLS_MAX], n = 1, i, bOk;
  double span = rMax - rMin, pad = span*1e-12;
  i64 *aRange;
  *paRange = 0;
  *pnRange = 0;
  bOk = geoFlatRegionOf(eOp, v, rMin==-180.0 && rMax==180.0, &g);
  if( bOk<0 ) return SQLITE_NOMEM;
  if( bOk==0 ) return SQLITE_OK;
  a[0] = 0;
  aLevel[0] = 0;
  for(;;){
    u64 aChild[4];
    int iBest = -1, k, nChild = 0;
    for(k=0; k<n; k++){
      if( aLevel[k]<nBits && (iBest<0 || aLevel[k]<aLevel[iBest]) ) iBest = k;
    }
    if( iBest<0 ) break;
    for(k=0; k<4; k++){
      u64 m = (a[iBest]<<2) | (u64)k;
      double size = span/(double)((u64)1<<(aLevel[iBest]+1));
      double x0 = rMin + (double)geoSqueeze(m>>1)*size, y0 = rMin + (double)geoSqueeze(m)*size;
      if( geoFlatMeets(&g, x0, y0, x0 + size, y0 + size, pad) ) aChild[nChild++] = m;
    }
    if( nChild==0 ){
      n--;                            /* (meets nothing: no range) */
      a[iBest] = a[n];
      aLevel[iBest] = aLevel[n];
      if( n==0 ) return SQLITE_OK;
      continue;
    }
    if( n - 1 + nChild > GEO_CELLS_MAX ) break;
    a[iBest] = aChild[0];
    aLevel[iBest]++;
    for(k=1; k<nChild; k++){
      a[n] = aChild[k];
      aLevel[n++] = aLevel[iBest];
    }
  }
  aRange = sqlite3_malloc64(sizeof(i64)*2*(size_t)n);
  if( aRange==0 ) return SQLITE_NOMEM;
  for(i=0; i<n; i++){
    int nShift = 2*(nBits - aLevel[i]);
    u64 lo = nShift<64 ? a[i]<<nShift : 0;
    u64 hi = nShift<64 ? ((a[i] + 1)<<nShift) - 1 : ~(u64)0;
    aRange[2*i] = geoCellKey(lo);
    aRange[2*i+1] = geoCellKey(hi);
  }
  *paRange = aRange;
  *pnRange = n;
  return SQLITE_OK;
}
