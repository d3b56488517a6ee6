// context.js: the `ctx` every section receives (qkv, i18n, state, getSnapshot, setSetting, edit,
// resetEdits, announce, goTo, training): the settings come from a state object, the snapshot is recomputed
// with the WASM API whenever a setting that changes the numbers or an edited cell changes.
// The page (main.js) makes one; each <qkv-lab> widget makes its own, so two widgets on a page
// share nothing but the WASM instance. Nothing here touches the document.
import { Matrix } from '../matrix.js';
import { computeSnapshot } from './attention-model.js';
import { deriveSnapshot } from './snapshot-derived.js';
import { createTrainingStore } from './training-store.js';

/** The settings the snapshot is computed from. */
export const SNAPSHOT_KEYS = ['seed', 'sentence', 'scale', 'pos'];

/**
 * createSectionContext({ qkv, i18n, state, announce, goTo, onSnapshot })
 * onSnapshot(snapshot) runs after every recomputation (the widget passes it to section.update).
 * trainingOptions: createModel options that override the state's for the training run (tests).
 */
export function createSectionContext({ qkv, i18n, state, announce = () => {}, goTo = () => {}, onSnapshot = () => {}, trainingOptions = {} }) {
  let overrides = {};
  const settings = () => Object.fromEntries(SNAPSHOT_KEYS.map((key) => [key, state.get(key)]));
  // the snapshot and everything derived from it, computed together: sections only read them
  const compute = () => {
    const snap = computeSnapshot(qkv, settings(), overrides);
    snap.derived = deriveSnapshot(qkv, snap);
    return Object.freeze(snap);
  };
  let snapshot = compute();
  let training = null;

  function recompute() {
    snapshot = compute();
    onSnapshot(snapshot);
  }

  return {
    qkv, i18n, state, announce, goTo,
    getSnapshot: () => snapshot,
    /** The training run the training sections share (training-store.js), made when first asked for. */
    get training() {
      training ||= createTrainingStore({ qkv, state, extraOptions: trainingOptions });
      return training;
    },
    /** One setting; false when the value is refused. Recomputes when it changes the numbers. */
    setSetting(name, value) {
      const before = state.get(name);
      if (!state.set(name, value)) return false;
      if (before !== state.get(name) && SNAPSHOT_KEYS.includes(name)) {
        if (name === 'seed' || name === 'sentence' || name === 'pos') overrides = {};
        recompute();
      }
      return true;
    },
    /** The reader edited cell (i, j) of X, Wq, Wk or Wv. */
    edit(name, i, j, value) {
      const base = overrides[name] || snapshot[name];
      const next = new Matrix(base.rows, base.cols, base.data.slice());
      next.data[i * next.cols + j] = value;
      overrides = { ...overrides, [name]: next };
      recompute();
    },
    resetEdits() {
      overrides = {};
      recompute();
    },
  };
}
