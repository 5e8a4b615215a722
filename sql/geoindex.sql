-- 2dsphere indexes: their definitions and options, the documents they
-- take and refuse (a refused write changes nothing), the queries they
-- answer ($geoWithin, $geoIntersects, $near and $nearSphere with a maximum
-- distance, $geoNear with maxDistance) and those they leave to a scan,
-- compound 2dsphere indexes, hints, updates, and doc_check after each step;
-- then 2d indexes of legacy points in the plane. Each answer is checked
-- against the same query without the index.
.load ./docext
.headers off
.mode list
.separator ' => '

CREATE VIRTUAL TABLE places USING docext;
INSERT INTO places(doc) VALUES
  ('{_id: 1, kind: "cafe", loc: {type: "Point", coordinates: [2.35, 48.85]}}'),
  ('{_id: 2, kind: "cafe", loc: [2.36, 48.85]}'),
  ('{_id: 3, kind: "shop", loc: {lng: 2.37, lat: 48.86}}'),
  ('{_id: 4, kind: "shop"}'),
  ('{_id: 5, kind: "road", loc: {type: "LineString", coordinates: [[2.3, 48.8], [2.4, 48.9]]}}'),
  ('{_id: 6, kind: "park", loc: {type: "Polygon", coordinates: [[[2.33, 48.84], [2.34, 48.84], [2.34, 48.85], [2.33, 48.85], [2.33, 48.84]]]}}'),
  ('{_id: 7, kind: "cafe", loc: null}'),
  ('{_id: 8, kind: "cafe", loc: []}'),
  ('{_id: 9, kind: "shop", loc: {type: "MultiPoint", coordinates: [[13.4, 52.5], [2.352, 48.851]]}}'),
  ('{_id: 10, kind: "cafe", loc: {type: "Point", coordinates: [-73.98, 40.75]}}'),
  ('{_id: 11, kind: "shop", loc: {type: "GeometryCollection", geometries: [{type: "Point", coordinates: [151.2, -33.9]}]}}'),
  ('{_id: 12, kind: "cafe", stops: [{at: [2.35, 48.85]}, {at: {type: "Point", coordinates: [13.4, 52.5]}}, {name: "none"}]}');
CREATE VIRTUAL TABLE plain USING docext;
INSERT INTO plain(doc) SELECT doc FROM places;

.print -- definitions and their errors
SELECT 'create', doc_create_index('places', '{loc: "2dsphere"}');
SELECT 'again', doc_create_index('places', '{loc: "2dsphere"}', '{2dsphereIndexVersion: 3}');
SELECT 'compound', doc_create_index('places', '{kind: 1, loc: "2dsphere"}');
SELECT 'embedded', doc_create_index('places', '{"stops.at": "2dsphere"}');
SELECT 'indexes', group_concat(name, ' ') FROM doc_indexes('places');
SELECT 'unique', doc_create_index('places', '{loc: "2dsphere"}', '{unique: true, name: "u"}');
SELECT 'ttl', doc_create_index('places', '{loc: "2dsphere"}', '{expireAfterSeconds: 60, name: "t"}');
SELECT 'two', doc_create_index('places', '{loc: "2dsphere", at: "2dsphere"}');
SELECT 'hashed', doc_create_index('places', '{loc: "2dsphere", kind: "hashed"}');
SELECT '2d of GeoJSON', doc_create_index('places', '{loc: "2d"}');
SELECT 'version', doc_create_index('places', '{kind: 1}', '{2dsphereIndexVersion: 3}');
SELECT 'not geometry', doc_create_index('places', '{kind: "2dsphere"}');
SELECT 'indexes', group_concat(name, ' ') FROM doc_indexes('places');
SELECT 'check', doc_check('places');

.print -- documents the index refuses, and nothing changes
INSERT INTO places(doc) VALUES ('{_id: 20, loc: {type: "Point", coordinates: [200, 0]}}');
INSERT INTO places(doc) VALUES ('{_id: 20, loc: [200, 0]}');
INSERT INTO places(doc) VALUES ('{_id: 20, loc: "Paris"}');
INSERT INTO places(doc) VALUES ('{_id: 20, loc: 5}');
INSERT INTO places(doc) VALUES ('{_id: 20, loc: [[2, 48], [3, 49]]}');
INSERT INTO places(doc) VALUES ('{_id: 20, loc: {type: "Polygon", coordinates: [[[0, 0], [4, 4], [4, 0], [0, 4], [0, 0]]]}}');
INSERT INTO places(doc) VALUES ('{_id: 20, loc: {type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]], crs: {type: "name", properties: {name: "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}');
INSERT INTO places(doc) VALUES ('{_id: 20, loc: {type: "Point", coordinates: [1, 2]}}'), ('{_id: 21, loc: {type: "Pointy"}}');
SELECT 'count', count(*) FROM places;
SELECT 'check', doc_check('places');
SELECT 'update', doc_update_one('places', '{_id: 1}', '{$set: {loc: "nowhere"}}');
SELECT 'unchanged', json_extract(doc, '$.loc.coordinates') FROM places WHERE _id = 1;
SELECT 'update', doc_update_many('places', '{kind: "cafe"}', '{$set: {"loc.type": "Square"}}');
SELECT 'unchanged', group_concat(_id, ' ') FROM places('{"loc.type": "Square"}');
BEGIN;
INSERT INTO places(doc) VALUES ('{_id: 22, loc: [1, 1]}');
INSERT INTO places(doc) VALUES ('{_id: 23, loc: [1, 100]}');
SELECT 'in the transaction', group_concat(_id, ' ') FROM places WHERE _id > 20;
ROLLBACK;
INSERT INTO plain(doc) VALUES ('{_id: 30, loc: "nowhere"}');
SELECT 'building over a bad document', doc_create_index('plain', '{loc: "2dsphere"}');
SELECT 'no index made', group_concat(name, ' ') FROM doc_indexes('plain');
DELETE FROM plain WHERE _id = 30;

.print -- queries: the same answer as without the index, and the plan
CREATE TEMP TABLE queries(label, f);
INSERT INTO queries VALUES
  ('within a polygon', '{loc: {$geoWithin: {$geometry: {type: "Polygon", coordinates: [[[2.3, 48.8], [2.4, 48.8], [2.4, 48.9], [2.3, 48.9], [2.3, 48.8]]]}}}}'),
  ('within a circle', '{loc: {$geoWithin: {$centerSphere: [[2.35, 48.85], 0.0005]}}}'),
  ('within a far circle', '{loc: {$geoWithin: {$centerSphere: [[-73.98, 40.75], 0.01]}}}'),
  ('intersects a point', '{loc: {$geoIntersects: {$geometry: {type: "Point", coordinates: [2.35, 48.85]}}}}'),
  ('intersects a line', '{loc: {$geoIntersects: {$geometry: {type: "LineString", coordinates: [[2.335, 48.8], [2.335, 48.9]]}}}}'),
  ('intersects a big polygon', '{loc: {$geoIntersects: {$geometry: {type: "Polygon", coordinates: [[[-10, -10], [-10, 10], [10, 10], [10, -10], [-10, -10]]], crs: {type: "name", properties: {name: "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}}}'),
  ('$near in metres', '{loc: {$near: {$geometry: {type: "Point", coordinates: [2.36, 48.85]}, $maxDistance: 1000}}}'),
  ('$near between', '{loc: {$near: {$geometry: {type: "Point", coordinates: [2.36, 48.85]}, $minDistance: 100, $maxDistance: 1500}}}'),
  ('$nearSphere in radians', '{loc: {$nearSphere: [2.36, 48.85], $maxDistance: 0.0002}}'),
  ('$near without a maximum', '{loc: {$near: {$geometry: {type: "Point", coordinates: [2.36, 48.85]}}}}'),
  ('flat $box', '{loc: {$geoWithin: {$box: [[2, 48], [3, 49]]}}}'),
  ('flat $near', '{loc: {$near: [2.36, 48.85], $maxDistance: 0.1}}'),
  ('no geometry asked', '{kind: "cafe"}'),
  ('kind and circle', '{kind: "cafe", loc: {$geoWithin: {$centerSphere: [[2.35, 48.85], 0.001]}}}'),
  ('kinds and circle', '{kind: {$in: ["cafe", "park"]}, loc: {$geoWithin: {$centerSphere: [[2.35, 48.85], 0.001]}}}'),
  ('kind range and circle', '{kind: {$gt: "c"}, loc: {$geoWithin: {$centerSphere: [[2.35, 48.85], 0.001]}}}'),
  ('$or of circles', '{$or: [{loc: {$geoWithin: {$centerSphere: [[2.35, 48.85], 0.0001]}}}, {loc: {$geoWithin: {$centerSphere: [[151.2, -33.9], 0.0001]}}}]}'),
  ('not within', '{loc: {$not: {$geoWithin: {$centerSphere: [[2.35, 48.85], 0.001]}}}}'),
  ('embedded path', '{"stops.at": {$geoWithin: {$centerSphere: [[13.4, 52.5], 0.001]}}}');
SELECT label,
       (SELECT group_concat(_id, ' ') FROM (SELECT _id FROM places(f) ORDER BY _id)),
       CASE WHEN (SELECT group_concat(_id, ' ') FROM (SELECT _id FROM places(f) ORDER BY _id))
              IS (SELECT group_concat(_id, ' ') FROM (SELECT _id FROM plain(f) ORDER BY _id))
            THEN 'same' ELSE 'DIFFERENT' END,
       json_extract(doc_explain('places', f), '$.cursor')
  FROM queries;
SELECT '$near order', group_concat(_id, ' ') FROM places('{loc: {$near: {$geometry: {type: "Point", coordinates: [2.36, 48.85]}, $maxDistance: 1000}}}');
SELECT 'explain', json_extract(doc_explain('places', '{loc: {$geoWithin: {$centerSphere: [[-73.98, 40.75], 0.01]}}}'), '$.n', '$.nscannedObjects', '$.isMultiKey');
SELECT 'hint without geometry', group_concat(_id, ' ') FROM places('{}', NULL, NULL, '{hint: {loc: "2dsphere"}}');
SELECT 'hint by name', json_extract(doc_explain('places', '{kind: "shop", loc: {$geoWithin: {$centerSphere: [[2.35, 48.85], 0.001]}}}', NULL, NULL, '{hint: "loc_2dsphere"}'), '$.cursor');
SELECT 'count', count(*) FROM places('{loc: {$geoWithin: {$centerSphere: [[2.35, 48.85], 0.001]}}}');

.print -- $near without a maximum, under a limit: rings through the index
SELECT 'nearest 2', group_concat(_id, ' ') FROM (SELECT _id FROM places('{loc: {$near: {$geometry: {type: "Point", coordinates: [2.36, 48.85]}}}}') LIMIT 2);
SELECT 'without', group_concat(_id, ' ') FROM (SELECT _id FROM plain('{loc: {$near: {$geometry: {type: "Point", coordinates: [2.36, 48.85]}}}}') LIMIT 2);
SELECT 'nearest 3 after 4', group_concat(_id, ' ') FROM places('{loc: {$nearSphere: [2.36, 48.85]}}', NULL, NULL, '{skip: 4, limit: 3}');
SELECT 'without', group_concat(_id, ' ') FROM plain('{loc: {$nearSphere: [2.36, 48.85]}}', NULL, NULL, '{skip: 4, limit: 3}');
SELECT 'plan', json_extract(doc_explain('places', '{loc: {$near: {$geometry: {type: "Point", coordinates: [2.36, 48.85]}}}}', NULL, NULL, '{limit: 2}'), '$.cursor', '$.n');
SELECT 'sorted: no rings', json_extract(doc_explain('places', '{loc: {$near: {$geometry: {type: "Point", coordinates: [2.36, 48.85]}}}}', NULL, '{kind: 1}', '{limit: 2}'), '$.cursor');
SELECT 'far: every ring', group_concat(_id, ' ') FROM places('{loc: {$nearSphere: [-150, -60]}}', NULL, NULL, '{limit: 2}');
SELECT 'without', group_concat(_id, ' ') FROM plain('{loc: {$nearSphere: [-150, -60]}}', NULL, NULL, '{limit: 2}');

.print -- $geoNear with maxDistance, or followed by $limit
SELECT 'metres', group_concat(json_extract(doc, '$._id') || ':' || round(json_extract(doc, '$.d')), ' ')
  FROM doc_aggregate('places', '[{$geoNear: {near: {type: "Point", coordinates: [2.36, 48.85]}, distanceField: "d", key: "loc", maxDistance: 1000}}]');
SELECT 'without', group_concat(json_extract(doc, '$._id') || ':' || round(json_extract(doc, '$.d')), ' ')
  FROM doc_aggregate('plain', '[{$geoNear: {near: {type: "Point", coordinates: [2.36, 48.85]}, distanceField: "d", key: "loc", maxDistance: 1000}}]');
SELECT 'radians, with a query', group_concat(json_extract(doc, '$._id'), ' ')
  FROM doc_aggregate('places', '[{$geoNear: {near: [2.36, 48.85], spherical: true, distanceField: "d", key: "loc", maxDistance: 0.0002, query: {kind: "cafe"}}}]');
SELECT 'limited', group_concat(json_extract(doc, '$._id') || ':' || round(json_extract(doc, '$.d')), ' ')
  FROM doc_aggregate('places', '[{$geoNear: {near: {type: "Point", coordinates: [2.36, 48.85]}, distanceField: "d", key: "loc"}}, {$limit: 3}]');
SELECT 'without', group_concat(json_extract(doc, '$._id') || ':' || round(json_extract(doc, '$.d')), ' ')
  FROM doc_aggregate('plain', '[{$geoNear: {near: {type: "Point", coordinates: [2.36, 48.85]}, distanceField: "d", key: "loc"}}, {$limit: 3}]');
SELECT 'a minimum and $limit', group_concat(json_extract(doc, '$._id'), ' ')
  FROM doc_aggregate('places', '[{$geoNear: {near: {type: "Point", coordinates: [2.36, 48.85]}, distanceField: "d", key: "loc", minDistance: 700}}, {$limit: 2}]');
SELECT 'no key, three 2dsphere indexes', group_concat(json_extract(doc, '$._id'), ' ')
  FROM doc_aggregate('places', '[{$geoNear: {near: {type: "Point", coordinates: [2.36, 48.85]}, distanceField: "d", maxDistance: 1000}}]');
SELECT 'no key, no index', group_concat(json_extract(doc, '$._id'), ' ')
  FROM doc_aggregate('plain', '[{$geoNear: {near: {type: "Point", coordinates: [2.36, 48.85]}, distanceField: "d", maxDistance: 1000}}]');
SELECT 'a $near in its query', group_concat(json_extract(doc, '$._id'), ' ')
  FROM doc_aggregate('places', '[{$geoNear: {near: [2.36, 48.85], spherical: true, distanceField: "d", key: "loc", maxDistance: 0.0002, query: {loc: {$nearSphere: [2.36, 48.85]}}}}]');

.print -- updates and deletes keep the index
SELECT 'move', doc_update_one('places', '{_id: 2}', '{$set: {loc: [-73.981, 40.751]}}');
SELECT 'into a polygon', doc_update_one('places', '{_id: 4}', '{$set: {loc: {type: "Polygon", coordinates: [[[-74, 40.7], [-73.9, 40.7], [-73.9, 40.8], [-74, 40.7]]]}}}');
SELECT 'remove', doc_update_one('places', '{_id: 10}', '{$unset: {loc: 1}}');
DELETE FROM places WHERE _id = 5;
SELECT 'near New York', group_concat(_id, ' ') FROM places('{loc: {$geoIntersects: {$geometry: {type: "Point", coordinates: [-73.981, 40.751]}}}}');
SELECT 'check', doc_check('places');
SELECT 'drop', doc_drop_index('places', 'loc_2dsphere');
SELECT 'after the drop', json_extract(doc_explain('places', '{loc: {$geoWithin: {$centerSphere: [[2.35, 48.85], 0.001]}}}'), '$.cursor');

.print -- a shard key cannot be 2dsphere
ATTACH ':memory:' AS s1;
SELECT doc_add_shard('s1');
CREATE VIRTUAL TABLE spots USING docext;
SELECT doc_shard_collection('spots', '{loc: "2dsphere"}');

.print -- 2d indexes: legacy points in the plane
CREATE VIRTUAL TABLE grid USING docext;
INSERT INTO grid(doc) VALUES
  ('{_id: 1, kind: "a", pos: [1, 1]}'),
  ('{_id: 2, kind: "b", pos: [5, 5]}'),
  ('{_id: 3, kind: "a", pos: {x: 10, y: 3}}'),
  ('{_id: 4, kind: "b", pos: [[2, 2], [50, 50]]}'),
  ('{_id: 5, kind: "a"}'),
  ('{_id: 6, kind: "a", pos: null}'),
  ('{_id: 7, kind: "b", pos: [-179.5, 179.9]}'),
  ('{_id: 8, kind: "a", pos: [3, 3, 99]}'),
  ('{_id: 9, kind: "b", pos: [-179.95, 10]}');
CREATE VIRTUAL TABLE gridplain USING docext;
INSERT INTO gridplain(doc) SELECT doc FROM grid;
SELECT 'create', doc_create_index('grid', '{pos: "2d"}');
SELECT 'compound', doc_create_index('grid', '{pos: "2d", kind: 1}');
SELECT 'indexes', group_concat(name || ' ' || key || ' ' || multikey || ' ' || entries, '; ') FROM doc_indexes('grid');
SELECT 'other options', doc_create_index('grid', '{pos: "2d"}', '{bits: 12, name: "pos_small"}');
CREATE VIRTUAL TABLE board USING docext;
INSERT INTO board(doc) VALUES ('{_id: 1, pos: [0, 0]}'), ('{_id: 2, pos: [63.9, -64]}'), ('{_id: 3, pos: [1, 1]}');
SELECT 'bounds', doc_create_index('board', '{pos: "2d"}', '{min: -64, max: 64, bits: 3}');
SELECT 'in a cell', group_concat(_id, ' '), json_extract(doc_explain('board', '{pos: {$geoWithin: {$box: [[0, 0], [0.5, 0.5]]}}}'), '$.nscanned') FROM board('{pos: {$geoWithin: {$box: [[0, 0], [0.5, 0.5]]}}}');
CREATE VIRTUAL TABLE board2 USING docext;
INSERT INTO board2(doc) SELECT doc FROM board;
SELECT 'out of bounds', doc_create_index('board2', '{pos: "2d"}', '{min: 0, max: 10}');
SELECT 'no index made', group_concat(name, ' ') FROM doc_indexes('board2');
SELECT 'not first', doc_create_index('grid', '{kind: 1, pos: "2d"}');
SELECT 'bits', doc_create_index('grid', '{pos: "2d"}', '{bits: 33, name: "b33"}');
SELECT 'min max', doc_create_index('grid', '{pos: "2d"}', '{min: 5, max: -5, name: "mm"}');
SELECT 'options elsewhere', doc_create_index('grid', '{kind: 1}', '{bits: 10, name: "kb"}');
SELECT 'unique', doc_create_index('grid', '{pos: "2d"}', '{unique: true, name: "u2"}');
SELECT 'shard key', doc_shard_collection('grid', '{pos: "2d"}');
INSERT INTO grid(doc) VALUES ('{_id: 20, pos: [180, 0]}');
INSERT INTO grid(doc) VALUES ('{_id: 20, pos: {type: "Point", coordinates: [1, 2]}}');
INSERT INTO grid(doc) VALUES ('{_id: 20, pos: "here"}');
INSERT INTO grid(doc) VALUES ('{_id: 20, pos: [[1, 2], "x"]}');
SELECT 'count', count(*) FROM grid;
SELECT 'check', doc_check('grid');
CREATE TEMP TABLE flat(label, f);
INSERT INTO flat VALUES
  ('$box', '{pos: {$geoWithin: {$box: [[0, 0], [6, 6]]}}}'),
  ('$box at a corner', '{pos: {$geoWithin: {$box: [[5, 5], [7, 7]]}}}'),
  ('$center', '{pos: {$geoWithin: {$center: [[0, 0], 3]}}}'),
  ('$polygon', '{pos: {$geoWithin: {$polygon: [[0, 0], [12, 0], [12, 4]]}}}'),
  ('$near with a maximum', '{pos: {$near: [4, 4], $maxDistance: 5}}'),
  ('[x, y, d]', '{pos: {$near: [4, 4, 2]}}'),
  ('kind and $box', '{kind: "a", pos: {$geoWithin: {$box: [[0, 0], [20, 20]]}}}'),
  ('$centerSphere: boxes', '{pos: {$geoWithin: {$centerSphere: [[0, 0], 0.2]}}}'),
  ('$centerSphere across the antimeridian', '{pos: {$geoWithin: {$centerSphere: [[179.9, 10], 0.01]}}}'),
  ('$nearSphere with a maximum', '{pos: {$nearSphere: [4, 4], $maxDistance: 0.03}}'),
  ('$geoIntersects: no bounds', '{pos: {$geoIntersects: {$geometry: {type: "Point", coordinates: [5, 5]}}}}'),
  ('far corner', '{pos: {$geoWithin: {$box: [[-180, 179], [-179, 180]]}}}');
SELECT label,
       (SELECT group_concat(_id, ' ') FROM (SELECT _id FROM grid(f) ORDER BY _id)),
       CASE WHEN (SELECT group_concat(_id, ' ') FROM (SELECT _id FROM grid(f) ORDER BY _id))
              IS (SELECT group_concat(_id, ' ') FROM (SELECT _id FROM gridplain(f) ORDER BY _id))
            THEN 'same' ELSE 'DIFFERENT' END,
       json_extract(doc_explain('grid', f), '$.cursor')
  FROM flat;
SELECT 'nearest 3', group_concat(_id, ' ') FROM (SELECT _id FROM grid('{pos: {$near: [4, 4]}}') LIMIT 3);
SELECT 'without', group_concat(_id, ' ') FROM (SELECT _id FROM gridplain('{pos: {$near: [4, 4]}}') LIMIT 3);
SELECT 'plan', json_extract(doc_explain('grid', '{pos: {$near: [4, 4]}}', NULL, NULL, '{limit: 3}'), '$.cursor', '$.n');
SELECT 'on the sphere', group_concat(_id, ' ') FROM (SELECT _id FROM grid('{pos: {$nearSphere: [4, 4]}}') LIMIT 3);
SELECT 'without', group_concat(_id, ' ') FROM (SELECT _id FROM gridplain('{pos: {$nearSphere: [4, 4]}}') LIMIT 3);
SELECT 'far', group_concat(_id, ' ') FROM (SELECT _id FROM grid('{pos: {$near: [-170, 170]}}') LIMIT 2);
SELECT 'without', group_concat(_id, ' ') FROM (SELECT _id FROM gridplain('{pos: {$near: [-170, 170]}}') LIMIT 2);
SELECT '$geoNear', group_concat(json_extract(doc, '$._id') || ':' || round(json_extract(doc, '$.d'), 2), ' ')
  FROM doc_aggregate('grid', '[{$geoNear: {near: [4, 4], distanceField: "d", key: "pos"}}, {$limit: 3}]');
SELECT 'without', group_concat(json_extract(doc, '$._id') || ':' || round(json_extract(doc, '$.d'), 2), ' ')
  FROM doc_aggregate('gridplain', '[{$geoNear: {near: [4, 4], distanceField: "d", key: "pos"}}, {$limit: 3}]');
SELECT 'no key, two 2d indexes', group_concat(json_extract(doc, '$._id'), ' ')
  FROM doc_aggregate('grid', '[{$geoNear: {near: [4, 4], distanceField: "d"}}, {$limit: 3}]');
SELECT 'no key, one 2d index', group_concat(json_extract(doc, '$._id'), ' ')
  FROM doc_aggregate('board', '[{$geoNear: {near: [4, 4], distanceField: "d"}}]');
SELECT 'move', doc_update_one('grid', '{_id: 2}', '{$set: {pos: [-3, -3]}}');
SELECT 'bad move', doc_update_one('grid', '{_id: 1}', '{$set: {pos: [500, 0]}}');
SELECT 'after', group_concat(_id, ' ') FROM grid('{pos: {$geoWithin: {$box: [[-4, -4], [0, 0]]}}}');
SELECT 'check', doc_check('grid');

-- $geoNear first in a $unionWith's pipeline takes its key from that
-- collection's geospatial index, as at the head of a pipeline
SELECT 'union', doc FROM doc_aggregate('grid', '[{$match: {_id: 1}}, {$project: {_id: 1}},
  {$unionWith: {coll: "board", pipeline: [{$geoNear: {near: [1, 2], distanceField: "d"}}, {$limit: 2},
  {$project: {_id: 1, d: 1}}]}}]');
SELECT 'union', doc FROM doc_aggregate('board', '[{$match: {_id: 1}}, {$project: {_id: 1}},
  {$unionWith: {coll: "grid", pipeline: [{$geoNear: {near: [-3, -3], distanceField: "d"}}]}}]');
