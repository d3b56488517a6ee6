// random.mjs: a small seeded generator of floats in [0, 1) (mulberry32), for what the tests and
// the benchmark choose at random and must choose the same way on every run: shapes, permutations,
// a training stream's window offsets.
/** mulberry32(seed) → () => a float in [0, 1); the same seed gives the same sequence. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
