// shell/context.js: the `ctx` every section receives (qkv, i18n, state, getSnapshot, setSetting, edit,
// resetEdits, measureDot, announce, goTo, training): the settings come from a state object, the snapshot is recomputed
// with the WASM API whenever a setting that changes the numbers or an edited cell changes, and
// republished with new snapshot.choices when a setting changes which of its numbers are shown.
// The page (main.js) makes one; each <qkv-lab> widget makes its own, so two widgets on a page
// share nothing but the WASM instance. Nothing here touches the document.
import { computeSnapshot } from '../models/attention.js';
import { deriveSnapshot, dotGeometry } from '../models/snapshot-derived.js';
import { sceneOf } from './scene.js';
import { ALL_SECTIONS } from '../sections/index.js';

/**
 * How the training run's store is made (training/store.js's createTrainingStore): given by the
 * training sections' module when it loads (training-sections.js), so that the widget's core script,
 * which every post loads, does not carry the training run; only the training sections ask for it.
 */
let makeTrainingStore = null;
export function provideTrainingStore(create) {
  makeTrainingStore = create;
}

/** The settings the snapshot is computed from. */
export const SNAPSHOT_KEYS = ['seed', 'sentence', 'scale', 'pos', 'dk'];
/**
 * Settings a section shows without new numbers: the snapshot holds multi-head attention for every
 * head count, the sine table for every width, K·Qᵀ, the shared-projection scores, the softmax at
 * every temperature and the pull experiment at every pull, and snapshot.choices says which the
 * reader chose (every setting an attention section owns is such a choice: sections/index.js). A
 * change publishes the same numbers with the new choices, through the same path as
 * new numbers, so no section keeps a copy of a setting (and a host rebuilds nothing by name).
 */
export const CHOICE_KEYS = Object.freeze(ALL_SECTIONS.filter((s) => s.kind === 'attention').flatMap((s) => s.properties.map((p) => p.name)));

/**
 * Edited cells outlive every setting change except the ones that replace what they edited: a new
 * seed draws new weights (and a new d_k reshapes them), a new sentence makes a new X. Those edits are dropped, and the next
 * snapshot says so (snapshot.droppedEdits = { names, setting }) so that a section can tell the
 * reader. Switching position vectors on or off, or the scale, keeps every edit.
 */
const DROPPED_BY = { seed: ['Wq', 'Wk', 'Wv'], sentence: ['X'], dk: ['Wq', 'Wk', 'Wv'] };

/**
 * createSectionContext({ qkv, i18n, state, announce, goTo, onSnapshot })
 * onSnapshot(snapshot) runs after every recomputation (the widget passes it to section.update).
 * trainingOptions: createModel options that override the state's for the training run (tests).
 */
/*
 * scene: { section, live } names the section the state's scene (step, steps, loop, autoplay;
 * scene.js) applies to: the widget's own, or the page's ?section=; live: later changes of those
 * properties move it too (the widget's attributes; the page applies its link once, when it opens).
 * onSceneChecked(id, refused): the section has checked the scene against its number of steps;
 * refused lists what fell back ([{ name, value, fallback }], scene.js fitScene), for the host's notice.
 * sectionTools(options) → off: the host's actions added to each section's preamble (the page's
 * shell/section-tools.js; the widget has none).
 * playsOnOpen: a section may play its steps once by itself the first time it is seen (the page;
 * a widget and an iframe play only when their author says autoplay).
 * poetTextUrl: the address of the pretrained poet's training text (web/pretrained/tang-poet-train.bin),
 * which the generation section checks the poet's lines against; the page served over HTTP has it.
 * onLoadError(message): something a section loads on demand could not be had (the pretrained
 * poet's weights): the section says so itself; the host may tell its own listeners (the widget's
 * qkv-error).
 */
export function createSectionContext({ qkv, i18n, state, announce = () => {}, goTo = () => {}, onSnapshot = () => {}, trainingOptions = {}, scene = null, onSceneChecked = () => {}, sectionTools = null, playsOnOpen = false, poetTextUrl = null, onLoadError = () => {} }) {
  let overrides = {};
  const settings = () => Object.fromEntries(SNAPSHOT_KEYS.map((key) => [key, state.get(key)]));
  const choices = () => Object.freeze(Object.fromEntries(CHOICE_KEYS.map((key) => [key, state.get(key)])));
  // the snapshot and everything derived from it, computed together: sections only read them
  const compute = (droppedEdits = null) => {
    const snap = computeSnapshot(qkv, settings(), overrides);
    snap.droppedEdits = droppedEdits;
    snap.derived = deriveSnapshot(qkv, snap);
    snap.choices = choices();
    return Object.freeze(snap);
  };
  let snapshot = compute();
  let training = null;

  function recompute(droppedEdits) {
    snapshot = compute(droppedEdits);
    onSnapshot(snapshot);
  }

  return {
    qkv, i18n, state, announce, goTo, sectionTools,
    /** Whether a section may play its steps once by itself when first seen (section-shell.js playsOnOpen): the page's choice. */
    playsOnOpen,
    /** Where the pretrained poet's training text is served (gpt/poet-text.js), or null where the host has none. */
    poetTextUrl,
    /** A section could not load what it loads on demand (its message is on screen already): the host's listeners hear it. */
    loadFailed: (message) => onLoadError(message),
    getSnapshot: () => snapshot,
    /** The scene for section `id` ({ step, range, loop, autoplay, outside }), or null when it has none. */
    sceneFor: (id) => (scene && scene.section === id ? sceneOf(state) : null),
    sceneLive: Boolean(scene && scene.live),
    /** The section checked its scene against its steps: refused, what fell back (scene.js fitScene), [] when nothing did. */
    sceneChecked: (id, refused) => onSceneChecked(id, refused),
    /** The training run the training sections share (training/store.js), made when first asked for. */
    get training() {
      training ||= makeTrainingStore({ qkv, state, extraOptions: trainingOptions });
      return training;
    },
    /** One setting; false when the value is refused. Recomputes when it changes the numbers. */
    setSetting(name, value) {
      const before = state.get(name);
      if (!state.set(name, value)) return false;
      if (before !== state.get(name) && SNAPSHOT_KEYS.includes(name)) {
        const names = (DROPPED_BY[name] || []).filter((m) => overrides[m] && overrides[m].length);
        if (names.length) {
          overrides = Object.fromEntries(Object.entries(overrides).filter(([m]) => !names.includes(m)));
        }
        recompute(names.length ? { names, setting: name } : null);
      } else if (before !== state.get(name) && CHOICE_KEYS.includes(name)) {
        snapshot = Object.freeze({ ...snapshot, choices: choices() });
        onSnapshot(snapshot);
      }
      return true;
    },
    /** The reader edited cell (i, j) of X, Wq, Wk or Wv. */
    edit(name, i, j, value) {
      const cells = (overrides[name] || []).filter(([a, b]) => a !== i || b !== j);
      overrides = { ...overrides, [name]: [...cells, [i, j, value]] };
      recompute();
    },
    /** The scores section's picture: a·b, |a|, |b|, cos θ for two 2-D vectors the reader moves. */
    measureDot: (a, b) => dotGeometry(qkv, a, b),
    resetEdits() {
      overrides = {};
      recompute();
    },
  };
}
