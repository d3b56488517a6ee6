// context.js: the `ctx` one widget hands to the page's sections, the same shape web/page/main.js
// builds for the page (qkv, i18n, state, getSnapshot, setSetting, edit, resetEdits, announce,
// goTo), but owned by one widget: its own settings, its own edits, its own snapshot. Nothing here
// touches the document; two widgets on a page never share anything but the WASM instance.
import { Matrix } from '../matrix.js';
import { computeSnapshot } from '../page/attention-model.js';

const SNAPSHOT_KEYS = ['seed', 'sentence', 'scale', 'pos'];

/**
 * createSectionContext({ qkv, i18n, state, announce, goTo, onSnapshot })
 * onSnapshot(snapshot) runs after every recomputation (the widget passes it to section.update).
 */
export function createSectionContext({ qkv, i18n, state, announce = () => {}, goTo = () => {}, onSnapshot = () => {} }) {
  let overrides = {};
  const settings = () => ({ seed: state.get('seed'), sentence: state.get('sentence'), scale: state.get('scale'), pos: state.get('pos') });
  let snapshot = computeSnapshot(qkv, settings(), overrides);

  function recompute() {
    snapshot = computeSnapshot(qkv, settings(), overrides);
    onSnapshot(snapshot);
  }

  return {
    qkv, i18n, state, announce, goTo,
    getSnapshot: () => snapshot,
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
