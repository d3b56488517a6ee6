// training/car-reading.js: the car experiment's reading over time, from the store's data: cos(猫, 汽车)
// step by step on the run's corpus and on the default corpus with the same settings (the store's
// reference run), with where the run's value peaked. No DOM here; the view is
// sections/training/car-reading.js.
//
//   carReading(store.run, store.reference) → null (no reference, or no 汽车) or
//   { here: [{ step, v }], base: [{ step, v }], step, nowHere, nowBase, peak: { step, v } }

/** At most this many points per series (a long run is sampled evenly; the last step always kept). */
const POINTS = 200;

function series(run) {
  const all = [run.initialPoint(), ...run.history].filter((r) => Number.isFinite(r.catCar));
  const every = Math.max(1, Math.ceil(all.length / POINTS));
  const kept = all.filter((_, i) => i % every === 0 || i === all.length - 1);
  return { all, points: kept.map((r) => ({ step: r.step, v: r.catCar })) };
}

export function carReading(run, reference) {
  if (!run || !reference || !run.probes.far || !reference.probes.far) return null;
  const here = series(run), base = series(reference);
  if (!here.all.length || !base.all.length) return null;
  let peak = here.all[0];
  for (const r of here.all) if (r.catCar > peak.catCar) peak = r;
  const step = Math.min(here.all.at(-1).step, base.all.at(-1).step);
  const at = (all) => all.find((r) => r.step === step)?.catCar ?? all.at(-1).catCar;
  return {
    here: here.points, base: base.points, step, total: run.total,
    nowHere: at(here.all), nowBase: at(base.all), peak: { step: peak.step, v: peak.catCar },
  };
}
