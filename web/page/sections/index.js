// sections/index.js: the one registry of sections. Every list of sections (the page's story,
// the URL's `section` values, the widget's `section` attribute, iframe mode, the declarations'
// QkvLabSection type, the tests) derives from here; adding a section means adding one line.
//
// Each entry is { id, load() }: load() resolves to the section's definition { id, create(ctx) },
// made by defineSection() (section-shell.js) or written by hand (training). Most definitions are
// here already (load() just hands them over); the two training sections are loaded on demand
// (training-sections.js), so a bundle can split them off: the widget's classic script fetches
// them from qkv-lab-widget-training.js only when a training section is shown.
// create(ctx) returns the section object every host uses:
//   { id, element, stepper?, run?, update?(snapshot), setLanguage?(lang), destroy(),
//     onProgress(fn) → off }
// where onProgress reports { section, kind: 'step', step, count, stage? } when a stepper moves
// and { section, kind: 'train', step, total, loss } when a training run moves. The two training
// sections (trainstep: one step walked through; training: the run) share one run, ctx.training.
import { walkthroughSection } from './walkthrough.js';
import { rolesSection } from './roles.js';
import { embeddingSection } from './embedding.js';
import { projectionsSection } from './projections.js';
import { scoresSection } from './scores.js';
import { softmaxSection } from './softmax.js';
import { mixingSection } from './mixing.js';
import { learnableSection } from './learnable.js';
import { symmetrySection } from './symmetry.js';
import { scalingSection } from './scaling.js';
import { multiheadSection } from './multihead.js';
import { positionsSection } from './positions.js';
import { flowSection } from './flow.js';

/** An entry whose definition is here already. */
function ready(definition) {
  return Object.freeze({ id: definition.id, titleKey: definition.titleKey, load: () => Promise.resolve(definition) });
}

/**
 * An entry whose definition lives in a module loaded the first time one of its sections is asked
 * for: training-sections.js (the two training sections) or gpt/sections.js (the block, the writer
 * and generation, with the GPT's worker and its data).
 */
function onDemandFrom(importModule) {
  let pending = null;
  return (id) => Object.freeze({
    id,
    load() {
      pending ||= importModule().catch((error) => { pending = null; throw error; });
      return pending.then((all) => all[id]);
    },
  });
}
const onDemand = onDemandFrom(() => import('./training-sections.js').then((m) => m.trainingSections()));
const onDemandGPT = onDemandFrom(() => import('../gpt/sections.js').then((m) => m.gptSections()));

/** The page's story, in order. */
export const PAGE_SECTIONS = Object.freeze([
  ...[rolesSection, embeddingSection, projectionsSection, scoresSection, softmaxSection,
    mixingSection, learnableSection, symmetrySection,
    // the series' next chapters: why √d_k, multi-head attention, positional encoding (issue 12)
    scalingSection, multiheadSection, positionsSection].map(ready),
  onDemand('trainstep'), onDemand('training'),
  ready(flowSection),
  // after the data flow: the Transformer block, a GPT the reader trains, generation with its KV cache
  onDemandGPT('block'), onDemandGPT('writer'), onDemandGPT('generate'),
]);

/** The compact X → output tour: the widget's and iframe mode's default; not in the page's story. */
export const WALKTHROUGH = ready(walkthroughSection);

/** Every section a widget or an iframe can show; the first is the default. */
export const ALL_SECTIONS = Object.freeze([WALKTHROUGH, ...PAGE_SECTIONS]);

export const SECTION_IDS = Object.freeze(PAGE_SECTIONS.map((s) => s.id));
export const WIDGET_SECTION_IDS = Object.freeze(ALL_SECTIONS.map((s) => s.id));
export const DEFAULT_SECTION = WALKTHROUGH.id;

/** The entry for an id, or undefined. */
export function sectionById(id) {
  return ALL_SECTIONS.find((s) => s.id === id);
}
