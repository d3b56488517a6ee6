// "Generation, token by token": the writer's model (taken from its run as a file's bytes and
// loaded on the main thread) continues a prompt. Step 0 is the prefill: the prompt's whole causal
// attention matrix; then one step per token: the new token's single row of attention over
// everything before it, the K and V caches growing by that row, the next-character
// distribution with temperature, top-k and top-p applied (what they cut and renormalise), and
// the character drawn. A side note times a token with and without the cache, live.
// gpt/generation.js computes every number; this file only draws.
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { QUIZ_GPT_STRINGS } from '../strings/quiz-gpt.js';
import { GENERATE_STRINGS } from '../strings/generate.js';
import { defineSection, indexLabels, bars } from '../shell/section-shell.js';
import { generationSource, generationOf } from '../gpt/generation.js';
import { GPT_CHOICES, GENERATE_KEYS } from '../gpt/settings.js';
import { refusalText } from '../gpt/refusals.js';

addStrings(GENERATE_STRINGS);
addStrings(QUIZ_GPT_STRINGS);   // its questions' words travel with it

const shown = (ch) => (ch === '\n' ? '⏎' : ch);
/** A probability: 3 decimals, or 3 significant digits when it is smaller than 0.01. */
const fmtP = (p) => (p > 0 && p < 0.01 ? p.toPrecision(3) : fmt(p));

/** Asked before the second generated character is shown: how far the cache has grown. */
export const GENERATE_QUIZ = [{
  id: 'kv', atStep: 1, when: (d) => Boolean(d && d.status === 'ready' && !d.error && d.steps.length > 1),
  numeric: { tolerance: 0, digits: 0, integer: true },
  prompt: (d, t) => t('quiz.gen.kvPrompt'),
  answer: (d) => d.steps[1].kvLength,
  explain: (d, t) => t('quiz.gen.kvExplain', { n0: d.promptLength, k: d.steps[1].kvLength }),
}];

export const generateSection = defineSection({
  id: 'generate', quiz: GENERATE_QUIZ, titleKey: 'gen.title', introKeys: ['gen.intro1', 'gen.intro2'],
  source: generationSource, settings: GENERATE_KEYS,
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const gen = generationOf(ctx);
    const snapNow = () => frame.snap;

    // ---- controls (prompt and sampling in the URL) ----
    const prompt = h('input', { attrs: { type: 'text', 'data-setting': 'gprompt', maxlength: '60' } });
    const promptError = h('p', { class: 'gpt-error', attrs: { role: 'alert', 'data-role': 'prompt-error' } });
    events.on(prompt, 'change', () => { if (!ctx.setSetting('gprompt', prompt.value)) prompt.value = snapNow().settings.prompt; });
    const choices = [];
    const choice = (key, values, format = String) => {
      const el = h('select', { attrs: { 'data-setting': key } },
        values.map((v) => h('option', { value: String(v), text: format(v) })));
      choices.push([key, el]);
      events.on(el, 'change', () => ctx.setSetting(key, Number(el.value)));
      return h('label', { class: 'gpt-choice' }, texts.set(h('span'), `gen.${key}`), el);
    };
    const take = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'take-model' } }), 'gen.take');
    events.on(take, 'click', () => gen.useWriterModel());
    const train = h('button', { attrs: { type: 'button', 'data-role': 'train' } });
    events.on(train, 'click', () => gen.toggleTraining());
    const writerNote = h('span', { class: 'note', attrs: { 'data-role': 'writer-step' } });
    const modelNote = h('p', { class: 'note', attrs: { 'data-role': 'model' } });
    frame.controls.append(h('div', { class: 'gen-controls' },
      h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'gen.prompt'), prompt),
      choice('gtemp', GPT_CHOICES.gtemp), choice('gtopk', GPT_CHOICES.gtopk, (v) => (v === 0 ? i18n.t('gen.all') : String(v))),
      choice('gtopp', GPT_CHOICES.gtopp), take), h('div', { class: 'gen-controls' }, train, writerNote), promptError, modelNote);

    // ---- which layer and head the matrices show (a view choice, not a setting) ----
    let layer = 0, head = 0;
    const layerSelect = h('select', { attrs: { 'data-role': 'layer' } });
    const headSelect = h('select', { attrs: { 'data-role': 'head' } });
    events.on(layerSelect, 'change', () => { layer = Number(layerSelect.value); draw(snapNow()); frame.stepper.refresh(); });
    events.on(headSelect, 'change', () => { head = Number(headSelect.value); draw(snapNow()); frame.stepper.refresh(); });
    const viewPick = h('div', { class: 'gen-controls' },
      h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'gen.layer'), layerSelect),
      h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'gen.head'), headSelect));

    const line = h('p', { class: 'gen-text', attrs: { lang: 'zh', 'data-role': 'text' } });
    const endNote = h('p', { class: 'note', attrs: { 'data-role': 'text-end' } });
    const prefillView = frame.view({ name: 'prefill', title: 'A', label: () => i18n.t('gen.prefillLabel'), csv: false });
    const prefillBox = h('div', { class: 'gen-prefill' }, texts.set(h('h3', { class: 'sub-title' }), 'gen.prefillTitle'), prefillView.element);
    const rowBox = h('div', { class: 'gen-row', attrs: { 'data-role': 'attention-row' } });
    const kView = frame.view({ name: 'Kcache', title: 'K', label: () => i18n.t('gen.kLabel'), csv: false });
    const vView = frame.view({ name: 'Vcache', title: 'V', label: () => i18n.t('gen.vLabel'), csv: false });
    const cacheBox = h('div', { class: 'gen-cache', attrs: { 'data-role': 'cache' } },
      texts.set(h('h3', { class: 'sub-title' }), 'gen.cacheTitle'), h('div', { class: 'equation' }, kView.element, vView.element));
    const distTable = h('table', { class: 'dist', attrs: { 'data-role': 'distribution' } });
    const distNote = h('p', { class: 'note' });
    // the caption sits outside the scroller, so a phone sees all of it; while the table is wider
    // than the page a hint says so, as the matrix views do (matrix-view.js)
    const distCaption = h('p', { class: 'note dist-caption', attrs: { 'aria-hidden': 'true' } });
    const distScrolls = h('p', { class: 'matrix-scrolls', attrs: { 'data-role': 'dist-scrolls' }, hidden: true });
    const distScroller = texts.attr(h('div', { class: 'matrix-scroll', attrs: { tabindex: '0', role: 'group' } }, distTable), 'aria-label', 'gen.distTitle');
    const distBox = h('div', { class: 'gen-dist' }, texts.set(h('h3', { class: 'sub-title' }), 'gen.distTitle'), distCaption, distScroller, distScrolls, distNote);
    const checkDist = () => {
      const cut = distScroller.scrollWidth > distScroller.clientWidth + 1;
      distScrolls.hidden = !cut;
      distScrolls.textContent = cut ? i18n.t('gen.distScrolls') : '';
    };
    const resizes = typeof ResizeObserver === 'function' ? new ResizeObserver(checkDist) : null;
    if (resizes) { resizes.observe(distScroller); resizes.observe(distTable); }
    // the drawn text stays while the settings change; another draw only when asked
    const redraw = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'redraw' } }), 'gen.redraw');
    events.on(redraw, 'click', () => gen.redraw());
    const drawnNote = h('p', { class: 'note', attrs: { 'data-role': 'drawn' } });
    const measure = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'measure' } }), 'gen.measure');
    events.on(measure, 'click', () => gen.measure());
    const costText = h('p', { attrs: { 'data-role': 'cost' } });
    const cost = h('aside', { class: 'cost-note' }, texts.set(h('p'), 'gen.costIntro'), costText, measure);
    const errorBox = h('p', { class: 'gpt-error', attrs: { role: 'alert' } });
    const drawnBox = h('div', { class: 'gen-controls' }, redraw, drawnNote);
    frame.stage.append(errorBox, line, endNote, drawnBox, viewPick,
      h('div', { class: 'gen-cols' }, h('div', {}, prefillBox, rowBox), h('div', {}, cacheBox)), distBox, cost);

    const options = (el, count, labelKey, value) => {
      clear(el).append(...Array.from({ length: count }, (_, i) => h('option', { value: String(i), text: i18n.t(labelKey, { k: i + 1 }), selected: i === value })));
    };

    let index = 0;
    const SETTING_OF = { gtemp: 'temperature', gtopk: 'topK', gtopp: 'topP' };
    function draw(snap) {
      for (const [key, el] of choices) el.value = String(snap.settings[SETTING_OF[key]]);
      if (prompt.getRootNode().activeElement !== prompt) prompt.value = snap.settings.prompt;
      const ready = snap.status === 'ready' && !snap.error;
      take.disabled = false;
      const w = snap.writer;
      texts.set(train, w.running ? 'gen.pauseTraining' : 'gen.train');
      train.disabled = !w.ready || (w.done && !w.running);
      writerNote.textContent = w.ready ? i18n.t('gen.writerStep', { step: w.step }) : '';
      modelNote.textContent = snap.status === 'ready'
        ? i18n.t(snap.modelStep ? 'gen.modelStep' : 'gen.modelUntrained', { step: snap.modelStep })
        : i18n.t('gen.waiting');
      promptError.hidden = !(snap.error);
      promptError.textContent = snap.error ? i18n.t('gen.refused', { message: snap.error.key ? i18n.t(snap.error.key, snap.error.vars) : refusalText(i18n, snap.error.message) }) : '';
      errorBox.hidden = snap.status !== 'error' && !snap.takeError;
      errorBox.textContent = snap.status === 'error' ? i18n.t('gen.noModel', { message: refusalText(i18n, snap.message) })
        : snap.takeError ? i18n.t('gen.noModelKept', { message: refusalText(i18n, snap.takeError), step: snap.modelStep || 0 }) : '';
      for (const el of [line, drawnBox, viewPick, frame.stage.querySelector('.gen-cols'), distBox]) el.hidden = !ready;
      redraw.disabled = !ready;
      if (snap.status === 'ready' && snap.cost && snap.cost.tokens) {
        costText.textContent = i18n.t('gen.cost', { tokens: snap.cost.tokens, with: fmt(snap.cost.cached, 2), without: fmt(snap.cost.uncached, 2),
          ratio: (snap.cost.uncached / snap.cost.cached).toFixed(1), n: Array.from(snap.cost.prompt).length });
      } else costText.textContent = i18n.t('gen.costNone');
      measure.disabled = !ready;
      if (!ready) return;
      const dw = snap.drawnWith;
      const same = dw.temperature === snap.settings.temperature && dw.topK === snap.settings.topK && dw.topP === snap.settings.topP;
      drawnNote.textContent = i18n.t(same ? 'gen.drawnSame' : 'gen.drawnEarlier', { n: snap.draws + 1, T: dw.temperature,
        k: dw.topK || i18n.t('gen.all'), p: dw.topP });
      layer = Math.min(layer, snap.layers - 1);
      head = Math.min(head, snap.heads - 1);
      options(layerSelect, snap.layers, 'gen.layerN', layer);
      options(headSelect, snap.heads, 'gen.headN', head);
      const first = snap.steps[0];
      const n0 = snap.promptLength;
      const pw = first.layers[layer][head].weights;
      const labels = first.chars.map(shown);
      prefillView.update(pw, { rowLabels: labels, colLabels: labels });
    }

    function render(i) {
      index = i;
      const snap = snapNow();
      frame.element.dataset.genStep = String(i);
      if (snap.status !== 'ready' || snap.error) return i18n.t(snap.status === 'ready' ? 'gen.none' : 'gen.waiting');
      const st = snap.steps[i];
      const n0 = snap.promptLength;
      clear(line).append(h('span', { class: 'prompt', text: snap.prompt }),
        ...snap.steps.slice(0, i).map((s) => h('span', { text: shown(s.char) })),
        h('span', { class: 'new', text: shown(st.char) }));
      // at the last step: why the text ends here (the end token, or a full context)
      const last = i === snap.steps.length - 1;
      endNote.textContent = !last ? '' : i18n.t(snap.stopped === 'end' ? 'gen.ended' : 'gen.cutByContext', { context: snap.context });
      prefillBox.hidden = i !== 0;
      const L = st.layers[layer][head];
      const n = st.chars.length;
      const labels = st.chars.map(shown);
      clear(rowBox).append(h('h3', { class: 'sub-title', text: i18n.t(i === 0 ? 'gen.rowTitle0' : 'gen.rowTitle', { ch: labels[n - 1], n }) }),
        bars(labels, L.weights.row(n - 1), { fmt }));
      kView.update(L.K, { rowLabels: labels, colLabels: indexLabels(L.K.cols) });
      vView.update(L.V, { rowLabels: labels, colLabels: indexLabels(L.V.cols) });
      const fresh = i === 0 ? [] : Array.from({ length: L.K.cols }, (_, j) => [n - 1, j, 'hl-row']);
      kView.highlight(fresh);
      vView.highlight(fresh);
      cacheBox.dataset.rows = String(n);
      // the distribution, with what temperature, top-k and top-p did to it
      const d = st.dist;
      distCaption.textContent = i18n.t('gen.distCaption', { vocab: d.vocab.toLocaleString('en-US') });
      clear(distTable).append(h('caption', { class: 'visually-hidden', text: distCaption.textContent }),
        h('thead', {}, h('tr', {}, ['gen.colChar', 'gen.colP1', 'gen.colPT', 'gen.colTopK', 'gen.colCum', 'gen.colRenorm']
          .map((k) => h('th', { attrs: { scope: 'col' }, text: i18n.t(k, { T: snap.settings.temperature, p: snap.settings.topP, k: d.topK.toLocaleString('en-US') }) })))),
        h('tbody', {}, d.top.map((r) => h('tr', { class: `${r.kept ? '' : 'cut'} ${r.id === st.token ? 'chosen' : ''}` },
          h('th', { attrs: { scope: 'row', lang: 'zh' }, text: shown(r.char) }), h('td', { class: 'num', text: fmtP(r.p1) }),
          h('td', { class: 'num', text: r.pT === null ? '—' : fmtP(r.pT) }), h('td', { class: 'num', text: r.inTopK === null ? '—' : fmtP(r.inTopK) }),
          h('td', { class: 'num', text: r.cumulative === null ? '—' : fmt(r.cumulative) }),
          h('td', { class: 'num', text: r.kept ? fmtP(r.renorm) : i18n.t('gen.cut') })))));
      checkDist();
      distNote.textContent = d.greedy ? i18n.t('gen.greedy')
        : i18n.t(d.keep === 1 ? 'gen.cutNote.one' : 'gen.cutNote', { keep: d.keep.toLocaleString('en-US'), vocab: d.vocab.toLocaleString('en-US'), k: snap.settings.topK || i18n.t('gen.all'), p: snap.settings.topP });
      const vars = { ch: shown(st.char), rank: st.rank + 1, n, n0, kv: st.kvLength, prev: labels[n - 1] };
      return i18n.t(i === 0 ? 'gen.step0' : 'gen.stepN', vars) + (st.keptNow ? '' : `${i18n.lang === 'zh' ? '' : ' '}${i18n.t('gen.cutNow', { ch: shown(st.char) })}`);
    }

    return {
      count: (snap) => (snap.status === 'ready' && !snap.error ? Math.max(1, snap.steps.length) : 1),
      draw, render, stage: (i) => (i === 0 ? 'prefill' : `token-${i}`),
      setLanguage: () => draw(snapNow()),
      destroy: () => resizes?.disconnect(),
      // the model is the writer's, which a link does not hold (section-tools.js shows this beside the code)
      embedNote: (snap) => (snap.modelStep ? i18n.t('gen.embedModel', { step: snap.modelStep }) : null),
    };
  },
});
