// sections/training/layout.js: the DOM of the training run's section, and nothing else: no numbers, no
// listeners. The other parts fill it (view.js draws the run, controller.js drives it, probes.js,
// controls.js, corpus-panel.js, counting.js, seed-spread.js and exports.js bring their own cards).
//
//   const layout = createTrainingLayout({ texts, uid });
//   layout.element             the <section>
//   layout.controls.play …     the run's buttons (data-role="play" | "step" | "back" | "reset" | "speed")
//   layout.slots.settings …    where the other parts put their elements
import { h } from '../../shell/dom.js';

/**
 * Speeds in training steps per second (a frame does as many steps as are due). The default
 * schedule (TRAINING_DEFAULTS.steps, one sentence a step) takes half a minute at the default.
 */
export const SPEEDS = Object.freeze([2, 5, 10, 20, 50, 100]);
export const DEFAULT_SPEED = 50;

export function createTrainingLayout({ texts, uid }) {
  const button = (role, key) => texts.set(h('button', { attrs: { type: 'button', 'data-role': role } }), key);
  const controls = {
    play: h('button', { attrs: { type: 'button', 'data-role': 'play', 'aria-pressed': 'false' } }),
    step: button('step', 'training.step'),
    back: button('back', 'training.back'),
    reset: button('reset', 'training.reset'),
    speed: h('select', { attrs: { 'data-role': 'speed' } },
      SPEEDS.map((n) => texts.set(h('option', { value: String(n), selected: n === DEFAULT_SPEED }), 'training.speedOption', { n }))),
  };
  const controlBar = h('div', { class: 'tr-controls', attrs: { role: 'group' } },
    controls.play, controls.step, controls.back, controls.reset,
    h('label', {}, texts.set(h('span'), 'training.speed'), controls.speed));
  texts.attr(controlBar, 'aria-label', 'training.keys');

  const status = {
    progress: h('span', { class: 'tr-progress', attrs: { 'data-role': 'progress' } }),
    loss: h('span', { class: 'tr-loss', attrs: { 'data-role': 'loss' } }),
    sims: h('span', { class: 'tr-sim-now' }),
    narration: h('p', { class: 'tr-narration narration', attrs: { id: `${uid}-narration`, 'data-role': 'narration' } }),
    error: h('div', { class: 'tr-error', attrs: { role: 'alert', 'data-role': 'error' }, hidden: true }),
    notice: h('p', { class: 'notice tr-notice', attrs: { role: 'status', 'data-role': 'notice' }, hidden: true }),
  };

  const batch = {
    title: h('h3'),
    empty: texts.set(h('p', { class: 'tr-note' }), 'training.batchNone'),
    list: h('ol', { attrs: { 'data-role': 'batch' } }),
    updated: h('p', { class: 'tr-updated', attrs: { 'data-role': 'updated-words' } }),
  };

  const canvas = (chart, key) => texts.attr(h('canvas', { attrs: { role: 'img', 'data-chart': chart } }), 'aria-label', key);
  const charts = {
    loss: canvas('loss', 'training.lossChart'),
    similarity: canvas('similarity', 'training.simChart'),
    scatter: canvas('scatter', 'training.scatterChart'),
  };
  // the line charts' legends: HTML lists (read by screen readers, translated like the rest), each
  // swatch drawn like its series' line by view.js
  const lineSwatches = [];
  const lineLegend = (kind, keys) => h('ul', { class: 'tr-legend' }, keys.map((key, i) => {
    const swatch = h('span', { class: 'tr-line-swatch', attrs: { 'aria-hidden': 'true' } });
    lineSwatches.push({ swatch, kind, i });
    return h('li', {}, swatch, texts.set(h('span'), key));
  }));
  const lossLegend = lineLegend('loss', ['training.lossRaw', 'training.lossAvg']);
  const simLegend = lineLegend('similarity', ['training.simCatDog', 'training.simCatCar']);
  const simMissing = h('p', { class: 'tr-note', hidden: true });
  const groupLegend = h('ul', { class: 'tr-group-legend' });
  const scatterNote = h('p', { class: 'tr-note' });

  const heat = {
    title: texts.set(h('h3'), 'training.heatmapTitle'),  // never empty, even before the run exists
    note: h('p', { class: 'tr-note' }),
    legendBar: h('span', { class: 'heat-legend-bar' }),
    legendMin: h('span', { class: 'tr-num' }),
    legendMax: h('span', { class: 'tr-num' }),
    slot: h('div', { class: 'tr-heat-slot' }),
  };

  const slots = {
    settings: h('div', { class: 'tr-settings-slot' }),
    corpus: h('div', { class: 'tr-corpus-slot' }),
    counting: h('div', { class: 'tr-counting-slot tr-wide' }),
    probes: h('div', { class: 'tr-stack tr-probes-slot' }),
    seeds: h('div', { class: 'tr-seeds-slot' }),
    exports: h('div', { class: 'tr-exports-slot' }),
    pngLoss: h('div'), pngSimilarity: h('div'), pngScatter: h('div'),
  };

  const card = (cls, ...children) => h('div', { class: `tr-card ${cls}` }, ...children);
  const intro2 = h('p');
  const intro3 = h('p');
  const stage = h('div', { class: 'stage tr-stage', attrs: { tabindex: '0', 'aria-describedby': `${uid}-narration` } },
    h('div', { class: 'tr-status' }, status.progress, status.loss, status.sims),
    status.narration);
  const title = texts.set(h('h2', { class: 'section-title', attrs: { id: `${uid}-title` } }), 'training.title');
  const element = h('section', { class: 'qkv-section qkv-training', attrs: { id: 'training', 'data-section': 'training', 'data-state': 'loading', 'aria-labelledby': `${uid}-title` } },
    title,
    h('div', { class: 'tr-intro' },
      texts.set(h('p'), 'training.intro1'), intro2, intro3, texts.set(h('p'), 'training.intro4')),
    slots.settings,
    controlBar,
    texts.set(h('p', { class: 'tr-keys keys-hint' }), 'training.keys'),
    // the stage: focusable, so the keys work after a click or Tab here (as in the other sections)
    stage,
    status.error,
    status.notice,
    slots.corpus,
    h('div', { class: 'tr-grid' },
      card('tr-batch tr-wide', batch.title, batch.empty, batch.list, batch.updated),
      h('div', { class: 'tr-stack' },
        card('tr-loss-card', texts.set(h('h3'), 'training.lossChart'), lossLegend, h('div', { class: 'tr-chart' }, charts.loss), slots.pngLoss),
        card('tr-sim-card', texts.set(h('h3'), 'training.simChart'), simLegend, simMissing, h('div', { class: 'tr-chart' }, charts.similarity), slots.pngSimilarity)),
      card('tr-scatter-card', texts.set(h('h3'), 'training.scatterChart'), scatterNote,
        h('div', { class: 'tr-chart tr-square' }, charts.scatter), groupLegend, slots.pngScatter),
      card('tr-heat-card', heat.title, heat.note, heat.slot,
        h('div', { class: 'heat-legend', attrs: { 'aria-hidden': 'true' } }, heat.legendMin, heat.legendBar, heat.legendMax)),
      slots.counting,
      slots.probes,
      slots.seeds,
      slots.exports));

  return {
    element, stage, intro2, intro3, controls, controlBar, status, batch, charts, lineSwatches, lossLegend, simLegend, simMissing,
    groupLegend, scatterNote, heat, slots,
  };
}
