// "The Transformer block": one token's path through one pre-LN GPT-2 block, stage by stage, with
// the numbers of qkv.transformerBlock (gpt/block-model.js computes them once per change of the
// block's width, heads, token or seed; this file only draws). LayerNorm (mean and variance, then
// normalise, then γ and β), attention with biases, the residual, LayerNorm again, the FFN
// (expand to 4d, GELU beside its curve, contract), the second residual; then each part's
// parameter count and what the training sections' small model did without.
import { h, s, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { QUIZ_GPT_STRINGS } from './quiz-gpt.strings.js';
import { BLOCK_STRINGS } from './block.strings.js';
import { defineSection, indexLabels, bars } from '../shell/section-shell.js';
import { blockSource, rowOf } from '../gpt/block-model.js';
import { GPT_CHOICES, BLOCK_LINE, BLOCK_KEYS } from '../gpt/settings.js';

addStrings(BLOCK_STRINGS);
addStrings(QUIZ_GPT_STRINGS);   // its questions' words travel with it

/** The stages, in order: each names the rows it shows. */
const STAGES = [
  { id: 'input', rows: ['X'] },
  { id: 'stats1', rows: ['x', 'stats1'] },
  { id: 'normalise1', rows: ['x', 'stats1', 'hat1'] },
  { id: 'affine1', rows: ['hat1', 'gamma1', 'beta1', 'ln1'] },
  { id: 'attention', rows: ['ln1', 'heads', 'concat', 'attn'] },
  { id: 'residual1', rows: ['x', 'attn', 'resid1'] },
  { id: 'ln2', rows: ['resid1', 'stats2', 'hat2', 'gamma2', 'beta2', 'ln2'] },
  { id: 'expand', rows: ['ln2', 'hidden'] },
  { id: 'gelu', rows: ['hidden', 'curve', 'gelu'] },
  { id: 'contract', rows: ['gelu', 'mlp'] },
  { id: 'residual2', rows: ['resid1', 'mlp', 'out'] },
  { id: 'parts', rows: ['out', 'lacked'] },
];
/** Which part of the parameter table each stage belongs to. */
const PART_OF = { stats1: 'ln1', normalise1: 'ln1', affine1: 'ln1', attention: 'attn', ln2: 'ln2', expand: 'mlp', gelu: 'mlp', contract: 'mlp' };

/** Asked before the row's statistics are shown. */
export const BLOCK_QUIZ = [{
  id: 'mean', atStep: STAGES.findIndex((st) => st.id === 'stats1'), when: (d) => Boolean(d && d.ln1), numeric: { tolerance: 0.01, digits: 2 },
  prompt: (d, t) => t('quiz.block.meanPrompt'),
  answer: (d) => d.ln1.mean,
  explain: (d, t) => t('quiz.block.meanExplain', { d: d.d, mean: fmt(d.ln1.mean), variance: fmt(d.ln1.variance) }),
}];

export const blockSection = defineSection({
  id: 'block', quiz: BLOCK_QUIZ, titleKey: 'block.title', introKeys: ['block.intro1', 'block.intro2'],
  source: blockSource, settings: BLOCK_KEYS,
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;

    // controls: the block's width d, its heads, and the token followed (all in the URL)
    const select = (key, labelKey, options, value) => {
      const el = h('select', { attrs: { 'data-setting': key } });
      const label = h('label', { class: 'block-choice' }, texts.set(h('span'), labelKey), el);
      events.on(el, 'change', () => ctx.setSetting(key, Number(el.value)));
      return { el, label, options, value };
    };
    const dimSelect = select('bdim', 'block.d', () => GPT_CHOICES.bdim.map((v) => [v, String(v)]), (snap) => snap.d);
    const headSelect = select('bheads', 'block.heads', (snap) => GPT_CHOICES.bheads.filter((v) => snap.d % v === 0).map((v) => [v, String(v)]), (snap) => snap.heads);
    const tokenSelect = select('btok', 'block.token', () => Array.from(BLOCK_LINE).map((ch, i) => [i, `${i + 1}: ${ch}`]), (snap) => snap.token);
    const selects = [dimSelect, headSelect, tokenSelect];
    frame.controls.append(h('div', { class: 'block-controls' }, selects.map((c) => c.label)));

    // one labelled place per row; a stage shows some of them
    const places = {};
    const place = (name, ...content) => {
      const title = texts.set(h('h3', { class: 'sub-title block-row-title' }), `block.row.${name}`);
      places[name] = h('div', { class: 'block-row', dataset: { row: name } }, title, ...content);
      return places[name];
    };
    const rowViews = {};
    const rowView = (name, label) => {
      rowViews[name] = frame.view({ name, title: label, label, csv: false, className: 'block-table' });
      return place(name, rowViews[name].element);
    };
    const xView = frame.view({ name: 'Xblock', title: 'X', label: 'X', csv: false, className: 'block-table' });
    const stats1 = h('p', { class: 'num block-stats' });
    const stats2 = h('p', { class: 'num block-stats' });
    const headsBox = h('div', { class: 'block-heads' });
    const curve = h('div', { class: 'gelu-curve' });
    const lacked = h('div', { class: 'block-lacked' }, texts.set(h('p'), 'block.lacked1'), texts.set(h('p'), 'block.lacked2'));
    const partsTable = h('table', { class: 'block-parts' });
    const stageBox = h('div', { class: 'block-path' },
      place('X', xView.element), rowView('x', 'x'), place('stats1', stats1), rowView('hat1', 'x̂'),
      rowView('gamma1', 'γ₁'), rowView('beta1', 'β₁'), rowView('ln1', 'LN₁(x)'), place('heads', headsBox),
      rowView('concat', 'concat'), rowView('attn', 'attn'), rowView('resid1', 'r'), place('stats2', stats2),
      rowView('hat2', 'r̂'), rowView('gamma2', 'γ₂'), rowView('beta2', 'β₂'), rowView('ln2', 'LN₂(r)'),
      rowView('hidden', 'h'), place('curve', curve), rowView('gelu', 'GELU(h)'), rowView('mlp', 'ffn'),
      rowView('out', 'out'), place('lacked', lacked));
    const partsTitle = texts.set(h('h3', { class: 'sub-title' }), 'block.partsTitle');
    frame.stage.append(stageBox, h('div', { class: 'block-parts-box' }, partsTitle, texts.attr(h('div', { class: 'matrix-scroll', attrs: { tabindex: '0', role: 'group' } }, partsTable), 'aria-label', 'block.partsTitle')));

    const statsText = (st, key) => i18n.t(key, { mean: fmt(st.mean), variance: fmt(st.variance), rstd: fmt(st.rstd) });

    function drawCurve(snap) {
      clear(curve);
      const W = 260, H = 150, pad = 18, X0 = -4, X1 = 4, Y0 = -0.5, Y1 = 4;
      const px = (x) => pad + ((x - X0) / (X1 - X0)) * (W - 2 * pad);
      const py = (y) => H - pad - ((y - Y0) / (Y1 - Y0)) * (H - 2 * pad);
      const path = snap.curve.x.map((x, j) => `${j ? 'L' : 'M'}${px(x).toFixed(1)},${py(snap.curve.y[j]).toFixed(1)}`).join('');
      const hid = snap.trace.hidden.row(snap.token), gel = snap.trace.gelu.row(snap.token);
      const dots = hid.map((x, j) => (x >= X0 && x <= X1 && gel[j] <= Y1
        ? s('circle', { cx: px(x).toFixed(1), cy: py(gel[j]).toFixed(1), r: 2.6, class: 'gelu-dot' }) : null));
      const label = i18n.t('block.curveLabel', { k: hid.length });
      curve.append(s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label, class: 'gelu-svg' },
        s('line', { x1: pad, x2: W - pad, y1: py(0), y2: py(0), class: 'axis' }),
        s('line', { x1: px(0), x2: px(0), y1: pad / 2, y2: H - pad, class: 'axis' }),
        s('path', { d: path, class: 'gelu-line' }), ...dots,
        s('text', { x: W - pad, y: py(0) - 4, 'text-anchor': 'end', class: 'axis-label', text: 'h' }),
        s('text', { x: px(0) + 4, y: pad, class: 'axis-label', text: 'GELU(h)' })),
        h('p', { class: 'note', text: i18n.t('block.curveNote') }));
    }

    function drawHeads(snap) {
      clear(headsBox);
      const t = snap.token;
      const labels = snap.chars.slice(0, t + 1);
      snap.trace.attention.heads.forEach((head, k) => {
        const weights = head.weights.row(t).slice(0, t + 1);
        headsBox.append(h('div', { class: 'block-head', dataset: { head: String(k) } },
          h('p', { class: 'block-head-title', text: i18n.t('block.headTitle', { k: k + 1, dk: snap.dk }) }),
          bars(labels, weights, { fmt })));
      });
    }

    function drawParts(snap, part) {
      clear(partsTable);
      const d = snap.d, hd = snap.hidden;
      const rows = [
        ['ln1', `γ, β: 2 × ${d}`, snap.counts.ln1],
        ['attn', `W_Q, W_K, W_V, W_O: 4 × ${d}×${d}; b: 4 × ${d}`, snap.counts.attn],
        ['ln2', `γ, β: 2 × ${d}`, snap.counts.ln2],
        ['mlp', `W1: ${d}×${hd}, b1: ${hd}, W2: ${hd}×${d}, b2: ${d}`, snap.counts.mlp],
      ];
      partsTable.append(h('caption', { text: i18n.t('block.partsCaption', { d }) }),
        h('thead', {}, h('tr', {}, ['block.part', 'block.shapes', 'block.count'].map((k) => h('th', { attrs: { scope: 'col' }, text: i18n.t(k) })))),
        h('tbody', {},
          rows.map(([id, shapes, count]) => h('tr', { class: id === part ? 'hl-part' : '' },
            h('th', { attrs: { scope: 'row' }, text: i18n.t(`block.part.${id}`) }), h('td', { class: 'num', text: shapes }),
            h('td', { class: 'num', text: count.toLocaleString('en-US') }))),
          h('tr', { class: 'total' }, h('th', { attrs: { scope: 'row' }, text: i18n.t('block.part.total') }),
            h('td', { class: 'num', text: `12·${d}² + 13·${d}` }), h('td', { class: 'num', text: snap.counts.total.toLocaleString('en-US') }))));
    }

    let index = 0;
    function draw(snap) {
      const t = snap.token;
      for (const c of selects) {
        const value = c.value(snap);
        clear(c.el).append(...c.options(snap).map(([v, text]) => h('option', { value: String(v), text, selected: v === value })));
      }
      const cols = indexLabels(snap.d), hcols = indexLabels(snap.hidden);
      const tr = snap.trace;
      const one = (name, m, labels = cols) => rowViews[name].update(rowOf(m, t), { rowLabels: [snap.chars[t]], colLabels: labels });
      xView.update(snap.X, { rowLabels: snap.chars, colLabels: cols });
      one('x', snap.X); one('hat1', snap.hat1); one('ln1', tr.ln1);
      rowViews.gamma1.update(snap.weights.ln1.gamma, { rowLabels: ['γ₁'], colLabels: cols });
      rowViews.beta1.update(snap.weights.ln1.beta, { rowLabels: ['β₁'], colLabels: cols });
      one('concat', tr.attention.concat); one('attn', tr.attention.output); one('resid1', tr.resid1);
      one('hat2', snap.hat2); one('ln2', tr.ln2);
      rowViews.gamma2.update(snap.weights.ln2.gamma, { rowLabels: ['γ₂'], colLabels: cols });
      rowViews.beta2.update(snap.weights.ln2.beta, { rowLabels: ['β₂'], colLabels: cols });
      one('hidden', tr.hidden, hcols); one('gelu', tr.gelu, hcols); one('mlp', tr.mlp); one('out', tr.output);
      stats1.textContent = statsText(snap.ln1, 'block.stats1');
      stats2.textContent = statsText(snap.ln2, 'block.stats2');
      drawHeads(snap);
      drawCurve(snap);
      drawParts(snap, PART_OF[STAGES[index].id]);
    }

    function render(i) {
      index = i;
      const snap = snapNow();
      const stage = STAGES[i];
      for (const [name, el] of Object.entries(places)) el.hidden = !stage.rows.includes(name);
      xView.highlight(snap.X.row(snap.token).map((_, j) => [snap.token, j, 'hl-row']));
      drawParts(snap, PART_OF[stage.id]);
      frame.element.dataset.stage = stage.id;
      const t = snap.token;
      return i18n.t(`block.step.${stage.id}`, {
        // t: the position counted from 1, as a reader counts (the URL's btok is 0-based)
        ch: snap.chars[t], t: t + 1, n: snap.n, d: snap.d, H: snap.heads, dk: snap.dk, hidden: snap.hidden,
        mean: fmt(snap.ln1.mean), variance: fmt(snap.ln1.variance), mean2: fmt(snap.ln2.mean), variance2: fmt(snap.ln2.variance),
        k: t + 1, total: snap.counts.total.toLocaleString('en-US'), share: Math.round((100 * snap.counts.mlp) / snap.counts.total),
      });
    }

    return {
      count: () => STAGES.length, draw, render,
      stage: (i) => STAGES[i].id,
      setLanguage: () => draw(snapNow()),
    };
  },
});
