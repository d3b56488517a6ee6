// shell/scene.js: a scene is the part of a section a post shows: the step it opens at, the range
// of steps its stepper keeps to, whether play wraps round, and whether it plays once in view.
//
//   <qkv-lab section="softmax" step="4" steps="2-5" loop autoplay></qkv-lab>
//   qkv-lab.html?embed=1&section=softmax&step=4&steps=2-5&loop=1&autoplay=1
//
// The four are properties of the one state list (state.js: step, steps, loop, autoplay), so an
// attribute, a page link and an iframe link say them the same way and fall back the same way.
// This module only turns them into what a stepper takes; it imports nothing (state.js and the
// section shell both use it).
//
// Steps are counted as the stepper shows them: step 1 is "step 1 of n". `step` 0 (or none) opens
// the section where it opens by itself (its first step); one past its last step, or a range that
// ends past it, falls back with a notice (fitScene, once the section knows how many steps it has).
// In the two training sections `step` is the run's step (the training store reads it); there
// `steps` and `loop` apply to trainstep's stage stepper. In the writer, `step` is its GPT run's
// step too: the run trains to it on open (gpt/store.js).

/** The state properties a scene is made of. */
export const SCENE_KEYS = Object.freeze(['step', 'steps', 'loop', 'autoplay']);

/** 'a-b' with 1 ≤ a ≤ b ≤ max → { from: a, to: b }; anything else → null. */
export function parseRange(raw, max = 999) {
  const m = /^(\d{1,4})-(\d{1,4})$/.exec(String(raw ?? '').trim());
  if (!m) return null;
  const from = Number(m[1]);
  const to = Number(m[2]);
  return from >= 1 && from <= to && to <= max ? { from, to } : null;
}

/**
 * The scene the state describes → { step, range, loop, autoplay, outside }: step is 1-based or
 * null (the section's own opening step), range { from, to } 1-based or null (every step). A step
 * outside the range is `outside` (the host says so) and the scene opens at the range's start.
 */
export function sceneOf(state) {
  const range = parseRange(state.get('steps'));
  let step = state.get('step') || null;
  const outside = Boolean(step && range && (step < range.from || step > range.to));
  if (outside) step = range.from;
  return { step, range, loop: state.get('loop') === true, autoplay: state.get('autoplay') === true, outside };
}

/**
 * The scene against the section it is for, once its number of steps (count) is known: a `steps`
 * range that ends past the last step falls back to every step, and a `step` past the last step
 * to the range's start (or, without a range, the section's own opening step), as any bad value of
 * a link or an attribute falls back. runStep: `step` is a training run's (trainstep), checked by
 * the training store, not here. → { scene, refused: [{ name, value, fallback }] }: what fell back,
 * for the host's one-line notice (fallback null: the default).
 */
export function fitScene(scene, count, { runStep = false } = {}) {
  if (!scene || !(count >= 1)) return { scene, refused: [] };
  const refused = [];
  let { step, range } = scene;
  if (range && range.to > count) {
    refused.push({ name: 'steps', value: `${range.from}-${range.to}`, fallback: null });
    range = null;
  }
  if (!runStep && step && step > count) {
    refused.push({ name: 'step', value: String(step), fallback: range ? range.from : null });
    step = range ? range.from : null;
  }
  return { scene: refused.length ? { ...scene, step, range } : scene, refused };
}

/**
 * What a stepper takes (0-based): { initial, range: { from, to } | null, loop }. runStep: the
 * section's `step` is its training run's, not its stepper's (trainstep), so it sets no initial.
 */
export function stepperScene(scene, { runStep = false } = {}) {
  if (!scene) return { initial: null, range: null, loop: false };
  const range = scene.range ? { from: scene.range.from - 1, to: scene.range.to - 1 } : null;
  let initial = !runStep && scene.step ? scene.step - 1 : null;
  if (initial === null && range) initial = range.from;
  return { initial, range, loop: scene.loop };
}

/** The scene as attributes, in the order a tag reads best (the values of a scene in effect). */
export function sceneAttributes({ step, range, loop, autoplay }) {
  const out = [];
  if (step) out.push(['step', String(step)]);
  if (range) out.push(['steps', `${range.from}-${range.to}`]);
  if (loop) out.push(['loop', '']);
  if (autoplay) out.push(['autoplay', '']);
  return out;
}
