-- The geospatial query operators: $geoWithin (and $within) and
-- $geoIntersects over GeoJSON on the sphere and legacy points, the flat
-- legacy shapes, $centerSphere; what they match in arrays, with other
-- operators, in updates and pipelines; and the errors of bad shapes.
-- Each line is a label and the _ids matched, in insertion order.
.load ./docext
.headers off
.mode list
.separator ' => '

CREATE VIRTUAL TABLE places USING docext;
INSERT INTO places(doc) VALUES
  ('{_id: 1, loc: {type: "Point", coordinates: [5, 5]}}'),
  ('{_id: 2, loc: [5, 5]}'),
  ('{_id: 3, loc: {lng: 5, lat: 5}}'),
  ('{_id: 4, loc: {type: "Point", coordinates: [15, 5]}}'),
  ('{_id: 5, loc: {type: "LineString", coordinates: [[1, 1], [2, 2]]}}'),
  ('{_id: 6, loc: {type: "LineString", coordinates: [[1, 1], [20, 2]]}}'),
  ('{_id: 7, loc: {type: "Polygon", coordinates: [[[1, 1], [2, 1], [2, 2], [1, 2], [1, 1]]]}}'),
  ('{_id: 8, loc: {type: "Polygon", coordinates: [[[8, 8], [12, 8], [12, 12], [8, 12], [8, 8]]]}}'),
  ('{_id: 9, loc: {type: "MultiPoint", coordinates: [[1, 1], [9, 9]]}}'),
  ('{_id: 10, loc: {type: "MultiPoint", coordinates: [[1, 1], [19, 9]]}}'),
  ('{_id: 11, loc: {type: "MultiLineString", coordinates: [[[1, 1], [2, 2]], [[3, 3], [4, 4]]]}}'),
  ('{_id: 12, loc: {type: "MultiPolygon", coordinates: [[[[1, 1], [2, 1], [2, 2], [1, 1]]], [[[30, 30], [31, 30], [31, 31], [30, 30]]]]}}'),
  ('{_id: 13, loc: {type: "GeometryCollection", geometries: [{type: "Point", coordinates: [3, 3]}, {type: "LineString", coordinates: [[4, 4], [6, 6]]}]}}'),
  ('{_id: 14, loc: [[50, 50], [5, 5]]}'),
  ('{_id: 15, loc: "nowhere"}'),
  ('{_id: 16, loc: {type: "Polygon", coordinates: [[[0, 0], [4, 4], [4, 0], [0, 4], [0, 0]]]}}'),
  ('{_id: 17, loc: [200, 5]}'),
  ('{_id: 18, loc: {type: "Point", coordinates: [5, 10.02]}}'),
  ('{_id: 19, loc: {type: "Point", coordinates: [2.5, 2.5]}}'),
  ('{_id: 20}'),
  ('{_id: 21, loc: {type: "Point", coordinates: [5, 5],
                    crs: {type: "name", properties: {name: "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}'),
  ('{_id: 22, loc: {type: "Point", coordinates: [10, 0]}}'),
  ('{_id: 23, loc: {type: "Point", coordinates: [5, 5, 120]}}'),
  ('{_id: 24, loc: {x: 5, y: 5, type: "Point"}}'),
  ('{_id: 25, loc: {name: "square", type: "Point", coordinates: [5, 5]}}');

-- 1. $geoWithin a GeoJSON polygon on the sphere. The edge from [10, 10] to
--    [0, 10] is a great-circle arc that bulges north of latitude 10, so
--    [5, 10.02] (18) is inside. [10, 0] (22) is a vertex: on the boundary,
--    inside. A bow-tie document (16) and an out-of-range point (17) are no
--    geometry and match nothing; nor does a string (15) or a missing field.
--    A document that is no GeoJSON but starts with two numbers is a legacy
--    point (24), as MongoDB's newest parseFromStorage reads it.
SELECT 'square', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$geometry:
  {type: "Polygon", coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}}}}');
SELECT 'square, clockwise', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$geometry:
  {type: "Polygon", coordinates: [[[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]]]}}}}');
SELECT 'old name $within', group_concat(_id, ' ') FROM places('{loc: {$within: {$geometry:
  {type: "Polygon", coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}, $uniqueDocs: true}}}');
SELECT 'with a hole', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$geometry:
  {type: "Polygon", coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
                                  [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]]]}}}}');
SELECT 'multipolygon', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$geometry:
  {type: "MultiPolygon", coordinates: [[[[0, 0], [3, 0], [3, 3], [0, 3], [0, 0]]],
                                       [[[18, 8], [20, 8], [20, 10], [18, 10], [18, 8]]]]}}}}');
SELECT 'collection', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$geometry:
  {type: "GeometryCollection", geometries: [{type: "Point", coordinates: [5, 5]},
     {type: "Polygon", coordinates: [[[0, 0], [3, 0], [3, 3], [0, 3], [0, 0]]]}]}}}}');

-- 2. Big polygons (MongoDB's strict-winding CRS): the region on the left of
--    the ring, which may be more than a hemisphere. Here: everything but
--    the square around [5, 5].
SELECT 'big polygon', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$geometry:
  {type: "Polygon", coordinates: [[[4, 4], [4, 6], [6, 6], [6, 4], [4, 4]]],
   crs: {type: "name", properties: {name: "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}}}');

-- 3. $geoIntersects: any shared point, with any GeoJSON shape.
SELECT 'meets line', group_concat(_id, ' ') FROM places('{loc: {$geoIntersects: {$geometry:
  {type: "LineString", coordinates: [[1.5, 0], [1.5, 3]]}}}}');
SELECT 'meets polygon', group_concat(_id, ' ') FROM places('{loc: {$geoIntersects: {$geometry:
  {type: "Polygon", coordinates: [[[9, 9], [11, 9], [11, 11], [9, 11], [9, 9]]]}}}}');
SELECT 'meets point', group_concat(_id, ' ') FROM places('{loc: {$geoIntersects: {$geometry:
  {type: "Point", coordinates: [5, 5]}}}}');
SELECT 'meets legacy point', group_concat(_id, ' ') FROM places('{loc: {$geoIntersects: {$geometry: [1.5, 1.5]}}}');
SELECT 'meets multipoint', group_concat(_id, ' ') FROM places('{loc: {$geoIntersects: {$geometry:
  {type: "MultiPoint", coordinates: [[31, 30.5], [3, 3]]}}}}');

-- 4. $centerSphere: what lies wholly within a radius in radians (here
--    200 km, the Earth's radius being 6378.1 km; then 127 km, which holds
--    the line 5 and the square 7 but not the point 19, 157 km away).
SELECT 'centerSphere', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$centerSphere: [[5, 5], 0.03136]}}}');
SELECT 'centerSphere lines', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$centerSphere: [[1.5, 1.5], 0.02]}}}');
SELECT 'centerSphere 0', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$centerSphere: [[15, 5], 0]}}}');
SELECT 'intersects a circle', group_concat(_id, ' ') FROM places('{loc: {$geoIntersects: {$centerSphere: [[5, 5], 1]}}}');

-- 5. The flat legacy shapes, on the numbers as they are: they take one
--    point, legacy or GeoJSON, and [200, 5] is a point here.
SELECT 'box', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$box: [[0, 0], [10, 10]]}}}');
SELECT 'box, corners swapped', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$box: [[10, 10], [0, 0]]}}}');
SELECT 'box far', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$box: [[190, 0], [210, 10]]}}}');
SELECT 'center', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$center: [[0, 5], 5]}}}');
SELECT 'polygon', group_concat(_id, ' ') FROM places('{loc: {$geoWithin: {$polygon: [[0, 0], [12, 0], [6, 12]]}}}');

-- 6. Across the antimeridian and around a pole, where longitude and
--    latitude as flat numbers would mislead. The arctic ring's edges join
--    points at latitude 80 a quarter turn apart: they rise to 82.9 at their
--    middles, 82.56 at Alert's longitude (so Alert, at 82.5, is outside)
--    and 81.9 at Ward Hunt's.
CREATE VIRTUAL TABLE world USING docext;
INSERT INTO world(doc) VALUES
  ('{_id: "fiji", loc: {type: "Point", coordinates: [178.4, -18.1]}}'),
  ('{_id: "samoa", loc: {type: "Point", coordinates: [-172.1, -13.8]}}'),
  ('{_id: "greenwich", loc: {type: "Point", coordinates: [0, 51.5]}}'),
  ('{_id: "pole", loc: {type: "Point", coordinates: [0, 90]}}'),
  ('{_id: "svalbard", loc: {type: "Point", coordinates: [15.6, 78.2]}}'),
  ('{_id: "alert", loc: {type: "Point", coordinates: [-62.3, 82.5]}}'),
  ('{_id: "ward hunt", loc: {type: "Point", coordinates: [-74.1, 83.1]}}');
SELECT 'pacific', group_concat(_id, ' ') FROM world('{loc: {$geoWithin: {$geometry:
  {type: "Polygon", coordinates: [[[170, -25], [-165, -25], [-165, -5], [170, -5], [170, -25]]]}}}}');
SELECT 'arctic', group_concat(_id, ' ') FROM world('{loc: {$geoWithin: {$geometry:
  {type: "Polygon", coordinates: [[[0, 80], [90, 80], [180, 80], [-90, 80], [0, 80]]]}}}}');
SELECT 'near london', group_concat(_id, ' ') FROM world('{loc: {$geoWithin: {$centerSphere: [[-0.13, 51.5], 0.002]}}}');

-- 7. Arrays, $elemMatch, $not, $or, other conditions, indexes, $pull,
--    pipelines and counts use the operators as any other.
CREATE VIRTUAL TABLE trips USING docext;
INSERT INTO trips(doc) VALUES
  ('{_id: 1, kind: "bus", stops: [[1, 1], [30, 30]]}'),
  ('{_id: 2, kind: "tram", stops: [{type: "Point", coordinates: [40, 40]}, [2, 2]]}'),
  ('{_id: 3, kind: "bus", stops: [[20, 20]]}');
SELECT doc_create_index('trips', '{kind: 1}');
SELECT 'any stop', group_concat(_id, ' ') FROM trips('{stops: {$geoWithin: {$box: [[0, 0], [10, 10]]}}}');
SELECT 'elemMatch', group_concat(_id, ' ') FROM trips('{stops: {$elemMatch: {$geoWithin: {$box: [[35, 35], [45, 45]]}}}}');
SELECT 'not', group_concat(_id, ' ') FROM trips('{stops: {$not: {$geoWithin: {$box: [[0, 0], [10, 10]]}}}}');
SELECT 'or', group_concat(_id, ' ') FROM trips('{$or: [{stops: {$geoWithin: {$box: [[0, 0], [10, 10]]}}}, {kind: "tram"}]}');
SELECT 'and', group_concat(_id, ' ') FROM trips('{kind: "bus", stops: {$geoWithin: {$box: [[0, 0], [10, 10]]}}}');
SELECT 'plan', json_extract(doc_json(doc_explain('trips', '{kind: "bus", stops: {$geoWithin: {$box: [[0, 0], [10, 10]]}}}')), '$.cursor');
SELECT 'count', doc_count('trips', '{stops: {$geoIntersects: {$geometry: {type: "Polygon",
  coordinates: [[[0, 0], [3, 0], [3, 3], [0, 3], [0, 0]]]}}}}');
SELECT 'pipeline', group_concat(json_extract(doc_json(doc), '$._id'), ' ') FROM doc_aggregate('trips',
  '[{$match: {stops: {$geoWithin: {$centerSphere: [[20, 20], 0.01]}}}}]');
SELECT 'pull', doc_json(doc_update_many('trips', '{}', '{$pull: {stops: {$geoWithin: {$box: [[0, 0], [10, 10]]}}}}'));
SELECT _id, doc_json(doc) FROM trips;
SELECT 'doc_match', doc_match('{p: [1, 2]}', '{p: {$geoWithin: {$center: [[0, 0], 3]}}}');

-- 8. A bad shape is an error that names the operator, the path and what
--    is wrong; a bad document geometry just does not match (section 1).
SELECT _id FROM places('{loc: {$geoWithin: {}}}');
SELECT _id FROM places('{loc: {$geoWithin: 5}}');
SELECT _id FROM places('{loc: {$geoWithin: {$square: [[0, 0], 1]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$box: [[0, 0], [1, 1]], $center: [[0, 0], 1]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Point", coordinates: [1, 2]}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]]}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]]}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: [[[0, 0], [4, 4], [4, 0], [0, 4], [0, 0]]]}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]], [[5, 5], [6, 5], [6, 6], [5, 5]]]}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: [[[0, 0], [9, 0], [9, 9], [0, 9], [0, 0]], [[1, 1], [5, 1], [5, 5], [1, 5], [1, 1]], [[2, 2], [3, 2], [3, 3], [2, 2]]]}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 95], [0, 0]]]}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: []}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: [[[0, 0], [1, "0"], [1, 1], [0, 0]]]}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Circle", coordinates: [0, 0]}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]], crs: {type: "name", properties: {name: "EPSG:3857"}}}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "MultiPolygon", coordinates: []}}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$geometry: {type: "GeometryCollection", geometries: [{type: "GeometryCollection", geometries: []}]}}}}');
SELECT _id FROM places('{loc: {$geoIntersects: {$geometry: {type: "LineString", coordinates: [[0, 0]]}}}}');
SELECT _id FROM places('{loc: {$geoIntersects: {$geometry: {type: "MultiPoint", coordinates: [[0, 0]], crs: {type: "name", properties: {name: "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}}}');
SELECT _id FROM places('{loc: {$geoIntersects: {$box: [[0, 0], [1, 1]]}}}');
SELECT _id FROM places('{loc: {$geoIntersects: {$geometry: [200, 0]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$box: [[0, 0], ["1", 1]]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$box: [[0, 0]]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$center: [[0, 0], -1]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$center: [[0, 0], 1, 2]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$centerSphere: [[0, 95], 1]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$polygon: [[0, 0], [1, 1]]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$box: [[0, 0, 0], [1, 1]]}}}');
SELECT _id FROM places('{loc: {$geoWithin: {$box: [[0, Infinity], [1, 1]]}}}');
SELECT _id FROM places('{loc: {$maxDistance: 5}}');

-- 9. The $geoNear stage: nearest first, with the distance (metres from a
--    GeoJSON point, radians from a legacy point with spherical: true, plane
--    units without), the nearest of a document's locations (includeLocs
--    shows which), 0 inside a polygon, after its query; documents with no
--    location that can be measured are left out.
CREATE VIRTUAL TABLE spots USING docext;
INSERT INTO spots(doc) VALUES
  ('{_id: 1, kind: "cafe", loc: {type: "Point", coordinates: [0, 1]}}'),
  ('{_id: 2, kind: "bar", loc: [[0, 3], [0, 0.5]]}'),
  ('{_id: 3, kind: "cafe", loc: {type: "Polygon", coordinates: [[[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]]}}'),
  ('{_id: 4, kind: "cafe", loc: {type: "LineString", coordinates: [[2, -5], [2, 5]]}}'),
  ('{_id: 5, kind: "bar"}'),
  ('{_id: 6, kind: "bar", loc: "here"}'),
  ('{_id: 7, kind: "cafe", loc: {x: 0, y: -1}}'),
  ('{_id: 8, kind: "bar", loc: [0, 1]}');
SELECT doc_create_index('spots', '{kind: 1}');
SELECT 'metres', group_concat(json_extract(doc, '$._id') || ':' || round(json_extract(doc, '$.d'), 3), ' ') FROM doc_aggregate('spots',
  '[{$geoNear: {near: {type: "Point", coordinates: [0, 0]}, distanceField: "d", key: "loc"}}]');
SELECT 'radians', group_concat(json_extract(doc, '$._id') || ':' || round(json_extract(doc, '$.d'), 6), ' ') FROM doc_aggregate('spots',
  '[{$geoNear: {near: [0, 0], spherical: true, distanceField: "d", key: "loc"}}]');
SELECT 'plane', group_concat(json_extract(doc, '$._id') || ':' || json_extract(doc, '$.d'), ' ') FROM doc_aggregate('spots',
  '[{$geoNear: {near: [0, 0], distanceField: "d", key: "loc"}}]');
SELECT 'options', doc FROM doc_aggregate('spots',
  '[{$geoNear: {near: {type: "Point", coordinates: [0, 0]}, distanceField: "at.km", key: "loc",
    minDistance: 1, maxDistance: 200000, query: {kind: "bar"}, distanceMultiplier: 0.001,
    includeLocs: "at.where"}}, {$project: {kind: 0}}]');
SELECT 'then', group_concat(json_extract(doc, '$._id'), ' ') FROM doc_aggregate('spots',
  '[{$geoNear: {near: [0, 0], distanceField: "d", key: "loc", spherical: 1}}, {$match: {kind: "cafe"}}, {$limit: 2}]');
SELECT 'lookup', doc FROM doc_aggregate('spots', '[{$match: {_id: 5}}, {$lookup: {from: "spots",
  pipeline: [{$geoNear: {near: [0, 0], distanceField: "d", key: "loc", maxDistance: 1}}, {$project: {_id: 1}}], as: "near"}},
  {$project: {near: 1}}]');
SELECT doc FROM doc_aggregate('spots', '[{$match: {}}, {$geoNear: {near: [0, 0], distanceField: "d", key: "loc"}}]');
SELECT doc FROM doc_aggregate('spots', '[{$facet: {a: [{$geoNear: {near: [0, 0], distanceField: "d", key: "loc"}}]}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: [0, 0], distanceField: "d"}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: [0, 0], key: "loc"}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {distanceField: "d", key: "loc"}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: "here", distanceField: "d", key: "loc"}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: {type: "LineString", coordinates: [[0, 0], [1, 1]]}, distanceField: "d", key: "loc"}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: [0, 95], spherical: true, distanceField: "d", key: "loc"}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: [0, 0], distanceField: "d", key: "loc", maxDistance: -1}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: [0, 0], distanceField: "d", key: "loc", num: 5}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: [0, 0], distanceField: "$d", key: "loc"}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: [0, 0], distanceField: "d", key: "loc", query: 5}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: {near: [0, 0], distanceField: "d", key: "loc", query: {kind: {$near: [0, 0]}}}}]');
SELECT doc FROM doc_aggregate('spots', '[{$geoNear: 5}]');

-- 10. $near and $nearSphere in a find: the documents within the distances,
--     nearest first when no sort is given (each at its nearest location),
--     as $geoNear measures them: a legacy point in plane units ($near) or
--     radians ($nearSphere), a GeoJSON point in metres. docext reads every
--     document the other conditions leave (there is no geospatial index).
SELECT 'near', group_concat(json_extract(doc, '$._id'), ' ') FROM spots('{loc: {$near: [0, 0]}}');
SELECT 'near, at most 1', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{loc: {$near: [0, 0], $maxDistance: 1}}');
SELECT 'near, [x, y, max]', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{loc: {$near: [0, 0, 0.6]}}');
SELECT 'nearSphere radians', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{loc: {$nearSphere: [0, 0], $minDistance: 0.01, $maxDistance: 0.03}}');
SELECT 'near GeoJSON metres', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{loc: {$near: {$geometry: {type: "Point", coordinates: [0, 0]}, $maxDistance: 120000}}}');
SELECT 'nearSphere GeoJSON', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{loc: {$nearSphere: {type: "Point", coordinates: [2.1, 0]}}}');
SELECT 'with a condition', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{kind: "cafe", loc: {$near: {$geometry: {type: "Point", coordinates: [2.1, 0]}}}}');
SELECT 'explain', json_extract(doc_explain('spots', '{kind: "cafe", loc: {$near: [0, 0]}}'), '$.cursor', '$.scanAndOrder');
SELECT 'a sort wins', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{loc: {$near: [0, 0]}}', NULL, '{_id: -1}');
SELECT 'limit', json_extract(doc, '$._id') FROM spots('{loc: {$near: [0, 0]}}') LIMIT 2;
SELECT 'skip', group_concat(json_extract(doc, '$._id'), ' ') FROM spots('{loc: {$near: [0, 0]}}', NULL, NULL, '{skip: 1, limit: 2}');
SELECT 'count', doc_count('spots', '{loc: {$near: [0, 0], $maxDistance: 1}}');
SELECT 'bounds first', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{loc: {$near: {$maxDistance: 120000, $geometry: {type: "Point", coordinates: [0, 0]}}}}');
SELECT 'in a $and', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{$and: [{kind: "cafe"}, {loc: {$near: [0, 0]}}]}');
SELECT 'a later max wins', group_concat(json_extract(doc, '$._id'), ' ')
  FROM spots('{loc: {$near: [0, 0, 0.6], $maxDistance: 1}}');
SELECT 'update', doc_json(doc_update_many('spots', '{loc: {$near: [0, 0], $maxDistance: 0.6}}', '{$set: {close: true}}'));
SELECT 'updated', group_concat(_id, ' ') FROM spots('{close: true}');
ATTACH ':memory:' AS geo1; ATTACH ':memory:' AS geo2;
SELECT doc_add_shard('geo1'), doc_add_shard('geo2');
CREATE VIRTUAL TABLE sspots USING docext;
SELECT doc_shard_collection('sspots', '{_id: 1}');
INSERT INTO sspots(doc) SELECT doc FROM spots;
SELECT doc_split_chunk('sspots', '{_id: 4}');
SELECT json_extract(doc_balance('sspots'), '$.chunksByShard');
SELECT 'sharded', group_concat(json_extract(doc, '$._id'), ' ') FROM sspots('{loc: {$near: [0, 0]}}');
SELECT 'sharded, limit', json_extract(doc, '$._id') FROM sspots('{loc: {$near: [0, 0]}}') LIMIT 2;
SELECT _id FROM spots('{loc: {$near: "here"}}');
SELECT _id FROM spots('{loc: {$near: [0, 0], $maxDistance: "far"}}');
SELECT _id FROM spots('{loc: {$near: [0, 0], $minDistance: -1}}');
SELECT _id FROM spots('{loc: {$near: [0, 0], $within: 5}}');
SELECT _id FROM spots('{loc: {$near: {$geometry: [0, 0]}}}');
SELECT _id FROM spots('{loc: {$near: {$geometry: {type: "Point", coordinates: [0, 0]}, $maxDistance: Infinity}}}');
SELECT _id FROM spots('{loc: {$near: {$geometry: {type: "Point", coordinates: [0, 0]}, $foo: 1}}}');
SELECT _id FROM spots('{loc: {$near: {$maxDistance: 1}}}');
SELECT _id FROM spots('{loc: {$nearSphere: [0, 95]}}');
SELECT _id FROM spots('{$or: [{loc: {$near: [0, 0]}}, {kind: "bar"}]}');
SELECT _id FROM spots('{loc: {$not: {$near: [0, 0]}}}');
SELECT _id FROM spots('{loc: {$elemMatch: {$near: [0, 0]}}}');
SELECT _id FROM spots('{loc: {$near: [0, 0]}, b: {$nearSphere: [0, 0]}}');
SELECT doc_create_index('spots', '{kind: 1}', '{name: "p", partialFilterExpression: {loc: {$near: [0, 0]}}}');
SELECT doc_update('{arr: [{loc: [1, 1]}]}', '{$pull: {arr: {loc: {$near: [0, 0]}}}}');
