// "Why divide by √d_k" (the series' chapter 3): random q and k with unit-variance components; a
// d_k slider (1 … 512, in the URL as sdk); the histogram of all 2048 q·k, whose spread grows like
// √d_k, beside q·k/√d_k, whose spread stays near 1; one row's softmax unscaled and scaled, with
// its largest weight and entropy; and the softmax's Jacobian, which is what starves the gradients
// when the row collapses. The numbers come from models/scaling.js (the section's source: the
// seed's draws and the slider's d_k through the WebAssembly API); this file only lays them out.
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { SCALING_STRINGS } from './scaling.strings.js';
import { defineSection, bars } from '../shell/section-shell.js';
import { scalingSource, DEFAULT_SCALING_DK, SCALING_DKS, SCALING_QUERIES, SCALING_KEYS, ROW_KEYS, HISTOGRAM } from '../models/scaling.js';
import { createHistogram } from '../views/histogram.js';
import { codePanel } from '../views/code-panel.js';

addStrings(SCALING_STRINGS);

const STAGES = ['sample', 'raw', 'scaled', 'softmax', 'gradient'];
const TICKS = [-60, -40, -20, 0, 20, 40, 60];

/** The three spreads offered; the answer is the one nearest the divided scores' (d_k ≥ 4 keeps them apart). */
const spreadChoices = (d) => [['one', 1], ['root', d.root], ['dk', d.dk]];
export const SCALING_QUIZ = [{
  id: 'spread', atStep: 2, when: (d) => d.dk >= 4,
  prompt: (d, t) => t('quiz.scaling.prompt', { root: fmt(d.root, 2) }),
  choices: (d, t) => spreadChoices(d).map(([value]) => ({ value, label: t(`quiz.scaling.${value}`, { root: fmt(d.root, 2), dk: d.dk }) })),
  answer: (d) => spreadChoices(d).reduce((best, c) => (Math.abs(c[1] - d.scaled.std) < Math.abs(best[1] - d.scaled.std) ? c : best))[0],
  explain: (d, t) => t('quiz.scaling.explain', { raw: fmt(d.raw.std, 2), root: fmt(d.root, 2), scaled: fmt(d.scaled.std, 2) }),
}];

export const scalingSection = defineSection({
  id: 'scaling', quiz: SCALING_QUIZ, titleKey: 'scaling.title', introKeys: ['scaling.intro1', 'scaling.intro2'],
  properties: [{ name: 'sdk', type: 'int', min: 1, max: 512, values: SCALING_DKS, default: DEFAULT_SCALING_DK }],   // the slider's d_k (one of its stops)
  source: scalingSource,
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const data = () => frame.snap;

    // the d_k slider: one stop per entry of SCALING_DKS; the reader's choice goes to the URL
    const slider = h('input', { class: 'sdk-slider', attrs: { type: 'range', min: '0', max: String(SCALING_DKS.length - 1), step: '1' },
      value: String(Math.max(0, SCALING_DKS.indexOf(data().dk))) });
    const sliderLabel = h('span', { class: 'num' });
    frame.controls.append(h('label', { class: 'range' }, texts.set(h('span', { class: 'visually-hidden' }), 'scaling.dkLabel'), slider, sliderLabel));
    events.on(slider, 'input', () => ctx.setSetting('sdk', SCALING_DKS[Number(slider.value)]));

    const sample = h('p', { class: 'num scaling-sample' });
    const histTitle = h('h3', { class: 'sub-title' });
    const histogram = createHistogram();
    // the legend names the series drawn: q·k / √d_k only from the step that divides
    const legendScaled = h('span', { class: 'legend-item' },
      h('span', { class: 'swatch scaled', attrs: { 'aria-hidden': 'true' } }), texts.set(h('span'), 'scaling.legendScaled'));
    const legend = h('p', { class: 'hist-legend' },
      h('span', { class: 'legend-item' }, h('span', { class: 'swatch raw', attrs: { 'aria-hidden': 'true' } }), texts.set(h('span'), 'scaling.legendRaw')),
      legendScaled);
    const spreadView = frame.view({ name: 'spread', csv: false, label: () => i18n.t('scaling.spreadLabel'), title: () => i18n.t('scaling.spreadLabel') });
    const histPanel = h('div', { class: 'scaling-hist' }, histTitle, histogram.element, legend, spreadView.element);
    const cards = h('div', { class: 'cards scaling-cards' });
    const why = texts.set(h('p', { class: 'note scaling-why' }), 'scaling.why');
    frame.stage.append(sample, histPanel, cards, why);
    const code = codePanel(frame, 'scaling');
    const parts = { sample, raw: histPanel, scaled: histPanel, softmax: cards, gradient: why };

    function rowCard(key, cls, stats, d) {
      const row = stats.first, mean = stats.mean;
      const labels = row.weights.map((_, j) => i18n.t('scaling.key', { j }));
      return h('div', { class: `card ${cls}` }, h('h3', { text: i18n.t(key) }), bars(labels, row.weights, { fmt, cls: cls === 'raw' ? 'q' : 'k' }),
        h('p', { class: 'sum num', text: i18n.t('scaling.rowStats', { max: fmt(row.max), h: fmt(row.entropy), hu: fmt(d.row.uniformEntropy), j: fmt(row.jacobian) }) }),
        h('p', { class: 'sum num', text: i18n.t('scaling.rowMean', { nq: SCALING_QUERIES, c: stats.collapsed, max: fmt(mean.max), h: fmt(mean.entropy), j: fmt(mean.jacobian) }) }));
    }

    let index = STAGES.length - 1;
    function draw(d) {
      slider.value = String(Math.max(0, SCALING_DKS.indexOf(d.dk)));
      const dkText = i18n.t('scaling.dk', { dk: d.dk, root: fmt(d.root) });
      sliderLabel.textContent = dkText;
      slider.setAttribute('aria-valuetext', dkText);
      const more = d.sample.more > 0 ? i18n.t('scaling.moreAfter', { n: d.dk }) : '';
      sample.textContent = i18n.t('scaling.sample', { q: d.sample.q.map((x) => fmt(x, 2)).join(', '), k: d.sample.k.map((x) => fmt(x, 2)).join(', '), more, dot: fmt(d.sample.dot) });
      histTitle.textContent = i18n.t('scaling.histTitle', { count: d.count });
      spreadView.update(d.spread,
        { rowLabels: [i18n.t('scaling.spreadRaw'), i18n.t('scaling.spreadScaled')], colLabels: [i18n.t('scaling.mean'), i18n.t('scaling.std')] });
      clear(cards).append(rowCard('scaling.rowRaw', 'raw', d.row.unscaled, d), rowCard('scaling.rowScaled', 'scaled', d.row.scaled, d));
      code.draw(d);
      drawHistogram(d);
    }
    function drawHistogram(d) {
      const series = [{ counts: d.raw.counts, cls: 'raw' }];
      if (index >= 2) series.push({ counts: d.scaled.counts, cls: 'scaled' });
      legendScaled.hidden = index < 2;
      histogram.draw({ ...HISTOGRAM, series, ticks: TICKS,
        label: i18n.t('scaling.histLabel', { count: d.count, dk: d.dk, std: fmt(d.raw.std, 2), std2: fmt(d.scaled.std, 2), min: HISTOGRAM.min, max: HISTOGRAM.max }) });
    }

    function render(i) {
      index = i;
      const d = data();
      // the divided scores' row of the spread table appears with the step that divides, as their
      // histogram does (and the exercise's answer stays unseen until then)
      spreadView.setHidden(i < 2 ? (r) => r === 1 : null);
      for (const [k, stage] of STAGES.entries()) parts[stage].classList.toggle('dim', k > i);
      parts[STAGES[i]].classList.remove('dim');
      drawHistogram(d);
      const r = d.row, vars = {
        nq: SCALING_QUERIES, nk: SCALING_KEYS, count: d.count, dk: d.dk, seed: d.seed, dot: fmt(d.sample.dot), root: fmt(d.root),
        std: fmt(d.raw.std, 2), std2: fmt(d.scaled.std, 2), keys: ROW_KEYS, hu: fmt(r.uniformEntropy),
        max1: fmt(r.unscaled.mean.max), h1: fmt(r.unscaled.mean.entropy), max2: fmt(r.scaled.mean.max), h2: fmt(r.scaled.mean.entropy),
        j1: fmt(r.unscaled.mean.jacobian), j2: fmt(r.scaled.mean.jacobian), c1: r.unscaled.collapsed, c2: r.scaled.collapsed,
      };
      if (i === 3) vars.verdict = i18n.t(r.unscaled.collapsed >= 4 ? 'scaling.collapsed' : 'scaling.notCollapsed');
      if (i === 4) {
        const ratio = r.scaled.mean.jacobian / Math.max(r.unscaled.mean.jacobian, 1e-12);
        vars.verdict = ratio >= 1.5 ? i18n.t('scaling.starved', { ratio: ratio >= 1000 ? ratio.toExponential(1) : ratio.toFixed(1) }) : i18n.t('scaling.notStarved');
      }
      return i18n.t(`scaling.step${i}`, vars);
    }

    return {
      count: () => STAGES.length, draw, render,
      stage: (i) => STAGES[i],
      setLanguage: () => draw(data()),
    };
  },
});
