// test/lib_rng.js — the seeded random numbers of the differential tests'
// generators (diff_query.js, diff_update.js, diff_aggregate.js), so that a
// run is reproducible from its seed.
//
//   const { rnd, int, pick, chance } = require("./lib_rng.js")(SEED);
//
// rnd() is in [0, 1) (mulberry32, a small seeded PRNG); int(n) in [0, n);
// pick(a) an element of a; chance(p) true with probability p.
module.exports = function seeded(seed) {
  let state = seed >>> 0;
  function rnd() {
    state = (state + 0x6D2B79F5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  const int = (n) => Math.floor(rnd() * n);
  return { rnd, int, pick: (a) => a[int(a.length)], chance: (p) => rnd() < p };
};
