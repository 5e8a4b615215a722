-- Places: the library's branches and the city's districts as GeoJSON, and
-- the geospatial questions a library app asks: which branches lie in a
-- district, which deliver to an address, which is nearest, which districts
-- a bus line crosses. 2dsphere indexes on the branches' locations and on
-- the districts' areas narrow each search to the places near its region;
-- the documents found are then tested as without them. Run:
-- sqlite3 < examples/places.sql
.load ./docext
.headers off
.mode list
.echo on

-- Branches: a point each, and the area each delivers to (a polygon).
CREATE VIRTUAL TABLE branches USING docext;
SELECT doc_create_index('branches', '{ open: 1 }');
SELECT doc_create_index('branches', '{ loc: "2dsphere" }');
SELECT doc_create_index('branches', '{ open: 1, delivers: "2dsphere" }');
INSERT INTO branches(doc) VALUES
  ('{ _id: "central", open: true, loc: { type: "Point", coordinates: [-73.9857, 40.7484] },
      delivers: { type: "Polygon", coordinates: [[[-74.00, 40.74], [-73.97, 40.74],
                                                  [-73.97, 40.76], [-74.00, 40.76], [-74.00, 40.74]]] } }'),
  ('{ _id: "riverside", open: true, loc: { type: "Point", coordinates: [-73.9712, 40.7831] },
      delivers: { type: "Polygon", coordinates: [[[-73.99, 40.77], [-73.96, 40.77],
                                                  [-73.96, 40.80], [-73.99, 40.80], [-73.99, 40.77]]] } }'),
  ('{ _id: "harbor", open: false, loc: { type: "Point", coordinates: [-74.0134, 40.7033] } }'),
  ('{ _id: "bridge", open: true, loc: [-73.9442, 40.6782] }');

-- Districts, one with a park cut out of it (a hole).
CREATE VIRTUAL TABLE districts USING docext;
SELECT doc_create_index('districts', '{ area: "2dsphere" }');
INSERT INTO districts(doc) VALUES
  ('{ _id: "midtown", area: { type: "Polygon", coordinates: [[[-74.01, 40.74], [-73.96, 40.74],
                                                              [-73.96, 40.77], [-74.01, 40.77], [-74.01, 40.74]]] } }'),
  ('{ _id: "uptown", area: { type: "Polygon", coordinates: [
      [[-74.00, 40.77], [-73.93, 40.77], [-73.93, 40.82], [-74.00, 40.82], [-74.00, 40.77]],
      [[-73.98, 40.78], [-73.97, 40.78], [-73.97, 40.79], [-73.98, 40.79], [-73.98, 40.78]]] } }'),
  ('{ _id: "downtown", area: { type: "Polygon", coordinates: [[[-74.03, 40.69], [-73.97, 40.69],
                                                               [-73.97, 40.72], [-74.03, 40.72], [-74.03, 40.69]]] } }');

-- The branches in midtown. Riverside lies in uptown's park, its hole.
SELECT _id FROM branches('{ loc: { $geoWithin: { $geometry: { type: "Polygon",
  coordinates: [[[-74.01, 40.74], [-73.96, 40.74], [-73.96, 40.77], [-74.01, 40.77], [-74.01, 40.74]]] } } } }');
SELECT d._id, group_concat(b._id) FROM districts d LEFT JOIN branches b
  ON doc_match(b.bson, json_object('loc', json_object('$geoWithin', json_object('$geometry',
       json_extract(d.doc, '$.area')))))
  GROUP BY d._id ORDER BY d._id;

-- Who delivers to an address: the open branches whose area holds it.
SELECT _id FROM branches('{ open: true, delivers: { $geoIntersects: { $geometry:
  { type: "Point", coordinates: [-73.98, 40.75] } } } }');
SELECT json_extract(doc_explain('branches', '{ open: true, delivers: { $geoIntersects: { $geometry:
  { type: "Point", coordinates: [-73.98, 40.75] } } } }'), '$.cursor');

-- The nearest open branches to a reader, in kilometres, with where each is.
SELECT doc FROM doc_aggregate('branches', '[
  { $geoNear: { near: { type: "Point", coordinates: [-73.99, 40.73] }, key: "loc",
                distanceField: "km", distanceMultiplier: 0.001, query: { open: true } } },
  { $project: { km: { $round: ["$km", 2] } } } ]');

-- The nearest open branch, as a find: $near orders the results by distance.
SELECT _id FROM branches('{ open: true, loc: { $near: { $geometry: { type: "Point",
  coordinates: [-73.99, 40.73] }, $maxDistance: 10000 } } }') LIMIT 1;

-- Branches within 3 km of a reader ($centerSphere takes radians: km / 6378.1),
-- through the index on loc.
SELECT _id FROM branches('{ loc: { $geoWithin: { $centerSphere: [[-73.99, 40.73], 0.00047036] } } }');
SELECT json_extract(doc_explain('branches', '{ loc: { $geoWithin: { $centerSphere:
  [[-73.99, 40.73], 0.00047036] } } }'), '$.cursor', '$.n');

-- The districts a bus line crosses, and how many districts each branch's
-- delivery area reaches into.
SELECT _id FROM districts('{ area: { $geoIntersects: { $geometry: { type: "LineString",
  coordinates: [[-74.02, 40.70], [-73.99, 40.75], [-73.95, 40.80]] } } } }');
SELECT b._id, count(d._id) FROM branches('{ delivers: { $exists: true } }') b JOIN districts d
  ON doc_match(d.bson, json_object('area', json_object('$geoIntersects', json_object('$geometry',
       json_extract(b.doc, '$.delivers')))))
  GROUP BY b._id ORDER BY b._id;
