// "预训练: what a bigger model trained longer buys". Three steps: the pretrained poet beside the
// writer's small GPT, the counting baselines and the real poems, in one table read from the
// measured data; what the model is and how it was trained (its report); and the rhyme head: the
// attention of the step that writes line 4's last character, on the reader's quatrain, with the
// report's average beside it. pretrained/poet.js computes every number; this file only draws.
import { h, s, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { PRETRAINED_STRINGS } from './pretrained.strings.js';
import { defineSection, bars } from '../shell/section-shell.js';
import { pretrainedSource } from '../pretrained/poet.js';
import { PRETRAINED_PROPERTIES, PRETRAINED_KEYS } from '../pretrained/settings.js';

addStrings(PRETRAINED_STRINGS);

const STEP_TABLE = 0, STEP_FACTS = 1, STEP_HEAD = 2;
const pct = (x) => `${Math.round(100 * x)} %`;
// shares under 1 % keep a decimal (lines copied: 0.07 %), so that they do not read as none
const pctFine = (x) => (x > 0 && x < 0.01 ? `${(100 * x).toFixed(2)} %` : pct(x));
const number = (x) => x.toLocaleString('en-US');
/** A multiple: where the other positions get next to nothing it runs into the thousands, and its digits say nothing more. */
const RATIO_CAP = 1000;
/**
 * Digits that tell the rhyme head's weight on this poem from every other head's: three, or more
 * where another head's agrees with it to three (1.000 and 1.000 would read as a tie the rank
 * beside them does not have).
 */
function weightDigits(snap) {
  const best = snap.readings[snap.best.layer][snap.best.head].toRhyme;
  const others = snap.readings.flat().map((r) => r.toRhyme).filter((w) => w !== best);
  for (let d = 3; d < 6; d++) if (others.every((w) => fmt(w, d) !== fmt(best, d))) return d;
  return 6;
}
const ratioText = (x) => (x >= RATIO_CAP ? `> ${number(RATIO_CAP)}` : x >= 100 ? fmt(x, 0) : fmt(x, 1));
const rowVars = (of) => Object.fromEntries(Object.entries(of).map(([k, v]) => [k, k === 'temperature' ? v : number(v)]));

/** A table figure ({ value } | { range } | null) as text. */
function figureText(figure, format, none) {
  if (!figure) return none;
  if (figure.range) return `${format(figure.range[0])}–${format(figure.range[1])}`;
  return format(figure.value);
}

const ready = (d) => Boolean(d && d.status === 'ready' && !d.error);

/** Asked before the rhyme head is shown: which earlier line end the report's head watches most. */
export const PRETRAINED_QUIZ = [{
  id: 'line', atStep: STEP_HEAD, when: ready,
  prompt: (d, t) => t('pre.quizPrompt', { next: d.chars[d.positions.query + 1], layer: d.best.layer + 1, head: d.best.head + 1 }),
  choices: (d, t) => [1, 2, 3].map((k) => ({ value: k, label: t('pre.quizChoice', { k, ch: d.chars[d.positions.lineEnds[k - 1]] }) })),
  answer: (d) => d.line,
  explain: (d, t) => {
    const w = d.readings[d.best.layer][d.best.head].toLineEnds;
    return t('pre.quizExplain', { w1: fmt(w[0]), w2: fmt(w[1]), w3: fmt(w[2]), line: d.line });
  },
}];

/** The heat map: one cell per query and position, tinted by the weight; the rhyme cell boxed. */
function heatMap(weights, chars, mark, label) {
  const n = weights.rows, cell = 10, pad = 12;
  const size = pad + n * cell;
  const cells = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const w = weights.data[i * n + j];
      cells.push(s('rect', { x: pad + j * cell, y: pad + i * cell, width: cell, height: cell, class: 'pre-cell', 'fill-opacity': Math.max(0.03, Math.min(1, w)).toFixed(3) }));
    }
  }
  const axis = chars.flatMap((ch, k) => [
    s('text', { x: pad + k * cell + cell / 2, y: pad - 3, class: 'pre-axis', 'text-anchor': 'middle', text: ch }),
    s('text', { x: pad - 2, y: pad + k * cell + cell - 2, class: 'pre-axis', 'text-anchor': 'end', text: ch }),
  ]);
  const box = s('rect', { x: pad + mark.key * cell - 1, y: pad + mark.query * cell - 1, width: cell + 2, height: cell + 2, class: 'pre-mark', 'data-role': 'rhyme-cell',
    'data-query': mark.query, 'data-key': mark.key });
  return s('svg', { viewBox: `0 0 ${size + 2} ${size + 2}`, class: 'pre-map', role: 'img', 'aria-label': label, lang: 'zh' }, ...cells, ...axis, box);
}

export const pretrainedSection = defineSection({
  id: 'pretrained', quiz: PRETRAINED_QUIZ, titleKey: 'pre.title',
  introKeys: [['pre.intro1', (snap) => ({ temperature: snap.rows.find((r) => r.id === 'pretrained').of.temperature })], 'pre.intro2'],
  source: pretrainedSource, properties: PRETRAINED_PROPERTIES, settings: PRETRAINED_KEYS,
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;

    // ---- step 0: the table ----
    const table = h('table', { class: 'pre-table', attrs: { role: 'table', 'data-role': 'comparison' } });
    const tableNote = h('p', { class: 'note' });
    const tableBox = h('div', { class: 'pre-part', attrs: { 'data-part': 'table' } },
      texts.set(h('h3', { class: 'sub-title' }), 'pre.tableTitle'),
      texts.attr(h('div', { class: 'matrix-scroll', attrs: { tabindex: '0', role: 'group' } }, table), 'aria-label', 'pre.tableTitle'), tableNote);

    // ---- step 1: the model and its training ----
    const facts = h('dl', { class: 'pre-facts', attrs: { 'data-role': 'facts' } });
    const factsBox = h('div', { class: 'pre-part', attrs: { 'data-part': 'facts' } },
      texts.set(h('h3', { class: 'sub-title' }), 'pre.factsTitle'), facts,
      h('p', {}, texts.set(h('span'), 'pre.offline'), ' ', texts.set(h('code'), 'pre.reproduce')));

    // ---- step 2: the rhyme head ----
    const poemInput = h('input', { attrs: { type: 'text', maxlength: '40', lang: 'zh', 'data-setting': 'ppoem', 'aria-describedby': `${frame.id}-poem-msg` } });
    const poemMsg = h('p', { class: 'pre-error', attrs: { role: 'alert', 'data-role': 'poem-msg' }, hidden: true });
    poemMsg.id = `${frame.id}-poem-msg`;
    events.on(poemInput, 'change', () => {
      const text = poemInput.value.trim();
      const ok = ctx.setSetting('ppoem', text);
      poemMsg.textContent = ok ? '' : `${i18n.t('pre.poemBad')} ${i18n.t('pre.poemKept')}`;
      poemMsg.hidden = ok;
      if (ok) poemInput.removeAttribute('aria-invalid');
      else poemInput.setAttribute('aria-invalid', 'true');
    });
    const exampleSelect = h('select', { attrs: { 'data-role': 'example' } });
    events.on(exampleSelect, 'change', () => {
      poemInput.removeAttribute('aria-invalid');
      poemMsg.textContent = '';
      poemMsg.hidden = true;
      ctx.setSetting('ppoem', exampleSelect.value === '0' ? '' : snapNow().examples[Number(exampleSelect.value)]);
    });
    // which head the map shows (a view choice, not a setting): the report's rhyme head until the reader picks another
    let shown = null;
    const layerSelect = h('select', { attrs: { 'data-role': 'layer' } });
    const headSelect = h('select', { attrs: { 'data-role': 'head' } });
    const pick = () => { shown = { layer: Number(layerSelect.value), head: Number(headSelect.value) }; drawHead(snapNow()); frame.stepper.refresh(); };
    events.on(layerSelect, 'change', pick);
    events.on(headSelect, 'change', pick);
    const headIntro = h('p');
    const average = h('p', { attrs: { 'data-role': 'average' } });
    const status = h('p', { class: 'note', attrs: { 'data-role': 'status', 'aria-live': 'polite' } });
    const mapTitle = h('h3', { class: 'sub-title' });
    const mapBox = h('div', { class: 'pre-map-box', attrs: { 'data-role': 'map' } });
    const rowTitle = h('h3', { class: 'sub-title' });
    const rowBox = h('div', { attrs: { 'data-role': 'query-row' } });
    const grid = h('table', { class: 'pre-grid', attrs: { 'data-role': 'heads' } });
    const gridScroll = h('div', { class: 'matrix-scroll', attrs: { tabindex: '0', role: 'group' } }, grid);
    const headReady = h('div', { class: 'pre-head-ready' },
      h('div', { class: 'pre-controls' },
        h('label', { class: 'pre-choice' }, texts.set(h('span'), 'pre.layer'), layerSelect),
        h('label', { class: 'pre-choice' }, texts.set(h('span'), 'pre.head'), headSelect)),
      h('div', { class: 'pre-cols' }, h('div', {}, mapTitle, mapBox), h('div', {}, rowTitle, rowBox)),
      texts.set(h('h3', { class: 'sub-title' }), 'pre.gridTitle'),
      texts.attr(gridScroll, 'aria-label', 'pre.gridTitle'));
    const headBox = h('div', { class: 'pre-part', attrs: { 'data-part': 'head' } },
      texts.set(h('h3', { class: 'sub-title' }), 'pre.headTitle'), headIntro, average,
      h('div', { class: 'pre-controls' },
        h('label', { class: 'pre-choice pre-poem' }, texts.set(h('span'), 'pre.poem'), poemInput),
        h('label', { class: 'pre-choice' }, texts.set(h('span'), 'pre.example'), exampleSelect)),
      poemMsg, status, headReady);
    frame.stage.append(tableBox, factsBox, headBox);

    function drawTable(snap) {
      const none = i18n.t('pre.none');
      const writerVocab = snap.rows.find((r) => r.id === 'writer').vocab;
      const cols = ['pre.col.name', 'pre.col.loss', 'pre.col.form', 'pre.col.rhyme', 'pre.col.copied'];
      // explicit roles: on a phone the rows are laid out as cards (pretrained-css.js), which would
      // otherwise drop the table's semantics; each figure carries its column's name for that layout
      const label = (k) => i18n.t(cols[k]);
      const cell = (k, text) => h('td', { class: 'num', attrs: { role: 'cell', 'data-label': label(k) }, text });
      clear(table).append(
        h('caption', { text: i18n.t('pre.tableCaption') }),
        h('thead', { attrs: { role: 'rowgroup' } }, h('tr', { attrs: { role: 'row' } }, cols.map((k) => h('th', { attrs: { scope: 'col', role: 'columnheader' }, text: i18n.t(k) })))),
        h('tbody', { attrs: { role: 'rowgroup' } }, snap.rows.map((r) => h('tr', { class: r.id === 'pretrained' ? 'pre-poet' : '', attrs: { role: 'row', 'data-row': r.id } },
          h('th', { attrs: { scope: 'row', role: 'rowheader' }, text: i18n.t(`pre.row.${r.id}`, rowVars(r.of)) }),
          cell(1, figureText(r.loss, (x) => fmt(x, 3), none)),
          cell(2, figureText(r.wellFormed, pct, none)),
          cell(3, figureText(r.lines24, pct, none)),
          cell(4, figureText(r.copied, pctFine, none))))));
      tableNote.textContent = i18n.t('pre.tableNote', { vocab: number(writerVocab) });
    }

    function drawFacts(snap) {
      const f = snap.facts;
      const row = (key, vars) => [h('dt', { text: i18n.t(`pre.fact.${key}`) }), h('dd', { text: i18n.t(`pre.fact.${key}Value`, vars) })];
      clear(facts).append(
        ...row('size', { ...f, parameters: number(f.parameters), vocab: number(f.vocab) }),
        ...row('text', { poems: number(f.poems), characters: number(f.characters) }),
        ...row('schedule', { steps: number(f.steps), batch: f.batch }),
        ...row('time', { cpu: f.cpuMinutes, wall: f.wallMinutes, hardware: f.hardware }),
        ...row('file', { kib: number(Math.round(f.bytes / 1024)) }));
    }

    const headOf = (snap) => shown ?? snap.best;
    function drawHead(snap) {
      const a = snap.average;
      headIntro.textContent = i18n.t('pre.headIntro', { poems: number(a.poems.all) });
      const bestAverage = a.heads[a.best.layer][a.best.head];
      average.textContent = `${i18n.t('pre.average', { poems: number(a.poems.all), layer: a.best.layer + 1, head: a.best.head + 1,
        ratio: ratioText(a.best.ratio), second: ratioText(a.second.ratio), share: pct(bestAverage.line2Most), atRhyme: fmt(a.atRhyme.best.ratio, 1) })} ${i18n.t(a.specialises ? 'pre.verdictClear' : 'pre.verdictNone')}`;
      if (poemInput.getRootNode().activeElement !== poemInput && poemInput.getAttribute('aria-invalid') !== 'true') poemInput.value = snap.poem;
      const exampleIndex = snap.examples.indexOf(snap.poem);
      clear(exampleSelect).append(...snap.examples.map((p, k) => h('option', { value: String(k), text: `${i18n.t('pre.exampleN', { k: k + 1 })}: ${Array.from(p).slice(0, 5).join('')}…`, selected: k === exampleIndex })),
        exampleIndex < 0 ? h('option', { value: '-1', text: '—', selected: true, disabled: true }) : null);
      status.hidden = snap.status === 'ready' && !snap.error;
      status.textContent = snap.status === 'waiting' ? i18n.t('pre.loading')
        : snap.status === 'error' ? i18n.t('pre.loadError', { message: snap.message })
          : snap.error ? i18n.t(snap.error.key, snap.error.vars) : '';
      headReady.hidden = !ready(snap) || frame.quizHides('line');
      if (!ready(snap)) return;
      const L = snap.weights.length, H = snap.weights[0].length;
      const at = headOf(snap);
      clear(layerSelect).append(...Array.from({ length: L }, (_, k) => h('option', { value: String(k), text: i18n.t('pre.layerN', { k: k + 1 }), selected: k === at.layer })));
      clear(headSelect).append(...Array.from({ length: H }, (_, k) => h('option', { value: String(k), text: i18n.t('pre.headN', { k: k + 1 }), selected: k === at.head })));
      const weights = snap.weights[at.layer][at.head];
      const { query, rhyme } = snap.positions;
      const w = weights.data[query * weights.cols + rhyme];
      const vars = { layer: at.layer + 1, head: at.head + 1, n: weights.rows, q: query + 1, k: rhyme + 1, qc: snap.chars[query], kc: snap.chars[rhyme], w: fmt(w), next: snap.chars[query + 1] };
      mapTitle.textContent = i18n.t('pre.mapTitle', vars);
      clear(mapBox).append(heatMap(weights, snap.chars, { query, key: rhyme }, i18n.t('pre.mapLabel', vars)));
      rowTitle.textContent = i18n.t('pre.rowTitle', vars);
      clear(rowBox).append(bars(snap.chars.slice(0, query + 1), Array.from(weights.data.subarray(query * weights.cols, query * weights.cols + query + 1)), { fmt, cls: 'pre-bars' }));
      rowBox.querySelectorAll('.bar-row')[rhyme]?.classList.add('pre-rhyme');
      const digits = weightDigits(snap);
      clear(grid).append(h('caption', { text: i18n.t('pre.gridCaption') }),
        h('thead', {}, h('tr', {}, h('td'), Array.from({ length: H }, (_, k) => h('th', { attrs: { scope: 'col' }, text: i18n.t('pre.headN', { k: k + 1 }) })))),
        h('tbody', {}, snap.readings.map((row, l) => h('tr', {}, h('th', { attrs: { scope: 'row' }, text: i18n.t('pre.layerN', { k: l + 1 }) }),
          row.map((r, hh) => h('td', { class: `num${l === snap.best.layer && hh === snap.best.head ? ' pre-best' : ''}${l === at.layer && hh === at.head ? ' pre-shown' : ''}`,
            attrs: { 'data-layer': l, 'data-head': hh }, text: `${fmt(r.toRhyme, digits)} (${fmt(a.heads[l][hh].toRhyme)})` }))))));
    }

    function draw(snap) {
      drawTable(snap);
      drawFacts(snap);
      drawHead(snap);
    }

    function render(i) {
      const snap = snapNow();
      frame.element.dataset.preStep = String(i);
      tableBox.hidden = i !== STEP_TABLE;
      factsBox.hidden = i !== STEP_FACTS;
      headBox.hidden = i !== STEP_HEAD;
      headReady.hidden = !ready(snap) || frame.quizHides('line');
      if (i === STEP_TABLE) {
        const f = snap.findings;
        return i18n.t('pre.stepTable', { countingForm: pct(f.countingForm), countingRhyme: pct(f.countingRhyme), chance: pct(f.chance),
          poetForm: pct(f.poetForm), poetRhyme: pct(f.poetRhyme), realRhyme: pct(f.realRhyme) });
      }
      if (i === STEP_FACTS) {
        const f = snap.facts;
        return i18n.t('pre.stepFacts', { parameters: number(f.parameters), characters: number(f.characters), cpu: f.cpuMinutes });
      }
      if (!ready(snap)) return status.textContent;
      const at = snap.best;
      const r = snap.readings[at.layer][at.head];
      const { query, rhyme } = snap.positions;
      return i18n.t('pre.stepHead', { layer: at.layer + 1, head: at.head + 1, qc: snap.chars[query], kc: snap.chars[rhyme], w: fmt(r.toRhyme, weightDigits(snap)),
        ratio: ratioText(r.ratio), rank: snap.bestRank, count: snap.ranked.length, line: snap.line });
    }

    return {
      count: () => 3,
      draw, render, stage: (i) => ['comparison', 'training', 'rhyme-head'][i],
      setLanguage: () => draw(snapNow()),
    };
  },
});
