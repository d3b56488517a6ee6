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
import { registerSectionTitles } from '../shell/i18n.js';
import { TRAINING_PROPERTIES } from '../training/settings.js';
import { GPT_PROPERTIES } from '../gpt/settings.js';
import { PRETRAINED_PROPERTIES } from '../pretrained/settings.js';
import { FINETUNE_PROPERTIES } from '../finetune/settings.js';

/**
 * An entry whose definition is here already. Every entry declares, without loading anything:
 *   kind        'attention' (draws the attention snapshot), 'data' (a source of its own) or 'live'
 *               (a process the reader plays: shell/ticker.js)
 *   properties  the URL properties it owns (shell/state.js reads them from here)
 *   choices     the snapshot.choices keys it draws (context.js)
 */
function ready(definition) {
  const { id, titleKey, kind, properties, choices } = definition;
  return Object.freeze({ id, titleKey, kind, properties, choices, load: () => Promise.resolve(definition) });
}

/**
 * An entry whose definition lives in a module loaded the first time one of its sections is asked
 * for: training-sections.js (the two training sections) or gpt/gpt-sections.js (the block, the writer
 * and generation, with the GPT's worker and its data).
 */
function onDemandFrom(importModule) {
  let pending = null;
  return (id, { kind, properties = [] }) => Object.freeze({
    id, kind, properties: Object.freeze([...properties]), choices: Object.freeze([]),
    load() {
      pending ||= importModule().catch((error) => { pending = null; throw error; });
      return pending.then((all) => all[id]);
    },
  });
}
const onDemand = onDemandFrom(() => import('./training-sections.js').then((m) => m.trainingSections()));
const onDemandGPT = onDemandFrom(() => import('../gpt/gpt-sections.js').then((m) => m.gptSections()));
// the 预训练 section: its data and code in a module of their own, the pretrained weights later
// still (qkv.loadPretrained(), when the section is first seen)
const onDemandPretrained = onDemandFrom(() => import('../pretrained/pretrained-sections.js').then((m) => m.pretrainedSections()));
// fine-tuning: its own module (the pretrained poet is loaded only when the section is seen)
const onDemandFineTune = onDemandFrom(() => import('../finetune/finetune-sections.js').then((m) => m.finetuneSections()));

/** The page's story, in order. */
export const PAGE_SECTIONS = Object.freeze([
  ...[rolesSection, embeddingSection, projectionsSection, scoresSection, softmaxSection,
    mixingSection, learnableSection, symmetrySection,
    // the series' next chapters: why √d_k, multi-head attention, positional encoding
    scalingSection, multiheadSection, positionsSection].map(ready),
  // the one-step walkthrough and the run share the training run and its settings
  onDemand('trainstep', { kind: 'data', properties: TRAINING_PROPERTIES }), onDemand('training', { kind: 'live', properties: TRAINING_PROPERTIES }),
  ready(flowSection),
  // after the data flow: the Transformer block, a GPT the reader trains, generation with its KV
  // cache; gpt/settings.js holds the three sections' settings as one list. The writer's run is a
  // live process on the shell's ticker (shell/ticker.js) whose samples a stepper walks
  onDemandGPT('block', { kind: 'data', properties: GPT_PROPERTIES }), onDemandGPT('writer', { kind: 'live', properties: GPT_PROPERTIES }),
  onDemandGPT('generate', { kind: 'data', properties: GPT_PROPERTIES }),
  // what a bigger model trained longer buys: the pretrained poet against the writer and counting
  onDemandPretrained('pretrained', { kind: 'data', properties: PRETRAINED_PROPERTIES }),
  // the pretrained poet adapted by the reader: LoRA or full fine-tuning, played by the shell's ticker
  onDemandFineTune('finetune', { kind: 'data', properties: FINETUNE_PROPERTIES }),
]);

/** The compact X → output tour: the widget's and iframe mode's default; not in the page's story. */
export const WALKTHROUGH = ready(walkthroughSection);

/** Every section a widget or an iframe can show; the first is the default. */
export const ALL_SECTIONS = Object.freeze([WALKTHROUGH, ...PAGE_SECTIONS]);

export const SECTION_IDS = Object.freeze(PAGE_SECTIONS.map((s) => s.id));
export const WIDGET_SECTION_IDS = Object.freeze(ALL_SECTIONS.map((s) => s.id));
export const DEFAULT_SECTION = WALKTHROUGH.id;

/** The URL properties the sections own, once each, in story order (shell/state.js adds its own). */
export const SECTION_PROPERTIES = Object.freeze([...new Map(ALL_SECTIONS.flatMap((s) => s.properties).map((p) => [p.name, p])).values()]);

// texts name sections as [[id]]: their titles come from here (shell/i18n.js)
registerSectionTitles(Object.fromEntries(ALL_SECTIONS.filter((s) => s.titleKey).map((s) => [s.id, s.titleKey])));

/** The entry for an id, or undefined. */
export function sectionById(id) {
  return ALL_SECTIONS.find((s) => s.id === id);
}
