// sections/trainstep.js: one training step, walked through on one sentence (the second article's
// 我 爱 吃 苹 → 果): look-up, positions, the head's attention, next-word probabilities, the loss,
// the gradient that reaches the embedding table (non-zero on exactly this sentence's rows) and the
// update, then the same sentence's loss again. Real numbers from the shared training run at its
// current step (training/step.js computes them; this file only draws), and beside them the
// attention and the prediction at step 0 and now.
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { QUIZ_TRAINING_STRINGS } from './quiz-training.strings.js';
import { TRAINSTEP_STRINGS } from './trainstep.strings.js';
import { defineSection, toggle } from '../shell/section-shell.js';
import { createTrainStepSource } from '../training/step.js';
import { createHeatTable } from '../views/heat-table.js';
import { EmbeddingHeatmap, HEATMAP_ROWS } from '../views/embedding-heatmap.js';
import { glossed, glossedShort, glossedSentence } from './training/glosses.js';
import { themeOf } from '../views/charts/theme.js';

/** The stages, in order: the stepper's steps and the `stage` of its progress events. */
export const TRAINSTEP_STAGES = Object.freeze(['lookup', 'positions', 'attention', 'predict', 'loss', 'backward', 'update', 'after']);
const TOP = 5;  // next-word bars per position

/** fmt, except that a number too small for 3 decimals but not 0 reads as such (2.1e-5), never 0.000. */
function fmtSmall(x) {
  return x !== 0 && Math.abs(x) < 0.0005 ? x.toExponential(1) : fmt(x);
}

addStrings(TRAINSTEP_STRINGS);
addStrings(QUIZ_TRAINING_STRINGS);   // its questions' words travel with it

const ready = (d) => d.status === 'ready' && Boolean(d.update);
/**
 * Asked before the gradient is shown (the backward stage says on how many rows it is non-zero,
 * which with SGD is the answer: the reader reasons from the look-up instead) and before the loss
 * after the update.
 */
export const TRAINSTEP_QUIZ = [{
  id: 'rows', atStep: TRAINSTEP_STAGES.indexOf('backward'), when: ready, numeric: { tolerance: 0, digits: 0, integer: true },
  prompt: (d, t) => t('quiz.ts.rowsPrompt'),
  answer: (d) => d.update.updatedRows.length,
  explain: (d, t) => t('quiz.ts.rowsExplain', { rows: d.update.updatedRows.map((r) => d.vocab[r]).join(' '), k: d.update.updatedRows.length }),
}, {
  id: 'loss', atStep: TRAINSTEP_STAGES.indexOf('after'), when: ready,
  prompt: (d, t) => t('quiz.ts.lossPrompt', { sentence: d.tokens.join(' ') }),
  choices: (d, t) => [{ value: 'up', label: t('quiz.up') }, { value: 'down', label: t('quiz.down') }],
  answer: (d) => (d.update.lossAfter > d.update.loss ? 'up' : 'down'),
  explain: (d, t) => t('quiz.ts.lossExplain', { before: fmt(d.update.loss), after: fmt(d.update.lossAfter) }),
}];


/** How the walkthrough names the model's parameters (web/model.js PARAMETER_NAMES). */
const PARAMETER_LABELS = { embedding: 'E', Wq: 'W_Q', Wk: 'W_K', Wv: 'W_V', Wout: 'W_out', bout: 'b' };

/**
 * What the intro says of the update: with SGD the walkthrough's step is the run's own step on this
 * sentence; with Adam it is not (the copy's moments start at 0), and the intro says so plainly.
 */
function introUpdate(snap, i18n) {
  if (!snap || snap.status !== 'ready') return { update: i18n.t('ts.intro2.sgd') };
  const batch = snap.batchSize > 1 ? ` ${i18n.t('ts.intro2.batch', { n: snap.batchSize })}` : '';
  return { update: `${i18n.t(snap.optimizer === 'adam' ? 'ts.intro2.adam' : 'ts.intro2.sgd')}${batch}` };
}

export const trainstepSection = defineSection({
  id: 'trainstep', quiz: TRAINSTEP_QUIZ, titleKey: 'ts.title', introKeys: ['ts.intro1', ['ts.intro2', introUpdate]], className: 'qkv-trainstep',
  source: createTrainStepSource, runStep: true,
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const lang = () => i18n.lang;
    const store = ctx.training;

    // ---- controls: the sentence, where the run is, and two jumps of the run ----
    const select = h('select', { class: 'ts-sentence', attrs: { 'data-role': 'ts-sentence' } });
    const gloss = h('p', { class: 'note ts-gloss' });
    const runAt = h('p', { class: 'note ts-run', attrs: { 'data-role': 'ts-run' } });
    const missing = h('p', { class: 'inline-message', attrs: { 'aria-live': 'polite', 'data-role': 'ts-missing' }, hidden: true });
    const toStart = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'ts-start' } }), 'ts.toStart');
    const toEnd = h('button', { attrs: { type: 'button', 'data-role': 'ts-end' } });
    frame.controls.append(
      h('label', { class: 'field' }, texts.set(h('span'), 'ts.sentence'), select),
      toStart, toEnd, runAt, missing, gloss);
    events.on(select, 'change', () => ctx.state.set('example', select.value));
    events.on(toStart, 'click', () => store.goTo(0).then(() => store.saveStep()));
    events.on(toEnd, 'click', () => store.run && store.goTo(store.run.total).then(() => store.saveStep()));

    // ---- the stage: a strip of stage buttons, one panel per stage, and the then-and-now panel ----
    const stageButtons = TRAINSTEP_STAGES.map((name, i) => {
      const b = texts.set(h('button', { class: 'flow-stage', attrs: { type: 'button', 'data-stage': name } }), `ts.stage.${name}`);
      events.on(b, 'click', () => frame.stepper.go(i));
      return b;
    });
    const strip = h('ol', { class: 'flow ts-flow' }, stageButtons.map((b) => h('li', {}, b)));
    texts.attr(strip, 'aria-label', 'ts.stages');
    const status = h('p', { class: 'note ts-status', attrs: { 'data-role': 'ts-status' } });
    const panels = Object.fromEntries(TRAINSTEP_STAGES.map((name) => [name, h('div', { class: 'ts-panel', attrs: { 'data-panel': name }, hidden: true })]));
    const compare = h('aside', { class: 'ts-compare card', attrs: { 'data-role': 'ts-compare' } });
    frame.stage.append(strip, status, h('div', { class: 'ts-body' }, h('div', { class: 'ts-panels' }, Object.values(panels)), compare));

    // look-up
    const chips = h('div', { class: 'chips ts-chips' });
    const lookupNote = h('p', { class: 'note' });
    const oneHot = h('p', { class: 'num ts-onehot', attrs: { 'data-role': 'ts-onehot' } });
    const rowsView = frame.view({ name: 'E[ids]', label: () => i18n.t('ts.rowsE', { n: snapNow()?.now?.tokens.length ?? 0 }), csv: false });
    const tableE = new EmbeddingHeatmap({ reducedMotion: () => true, maxRows: HEATMAP_ROWS });
    const tableETitle = texts.set(h('h3', { class: 'sub-title' }), 'ts.tableEShort');  // never an empty heading
    // a large vocabulary's heat maps draw their first HEATMAP_ROWS rows, and say so here
    const tableENote = h('p', { class: 'note', attrs: { 'data-role': 'ts-table-shown', hidden: '' } });
    const gradHeatNote = h('p', { class: 'note', attrs: { 'data-role': 'ts-grad-shown', hidden: '' } });
    const shownNote = (note, heat, rows) => {
      note.hidden = heat.shownRows >= rows;
      note.textContent = note.hidden ? '' : i18n.t('ts.heatShown', { shown: heat.shownRows, rows });
    };
    panels.lookup.append(chips, lookupNote, oneHot, h('div', { class: 'ts-row' },
      rowsView.element, h('div', { class: 'ts-table' }, tableETitle, tableE.element, tableENote)));
    // positions
    const eView = frame.view({ name: 'E[ids]', label: 'E[ids]', csv: false });
    const pView = frame.view({ name: 'P', label: 'P', csv: false });
    const xView = frame.view({ name: 'X', label: 'X', csv: false });
    panels.positions.append(texts.set(h('p', { class: 'note' }), 'ts.positionsNote'),
      h('div', { class: 'equation' }, eView.element, h('span', { class: 'op', text: '+' }), pView.element, h('span', { class: 'op', text: '=' }), xView.element));
    // attention
    const qView = frame.view({ name: 'Q', label: 'Q = X·W_Q', csv: false });
    const kView = frame.view({ name: 'K', label: 'K = X·W_K', csv: false });
    const vView = frame.view({ name: 'V', label: 'V = X·W_V', csv: false });
    const sView = frame.view({ name: 'S', label: () => i18n.t('ts.scores'), csv: false });
    const wTable = createHeatTable({ caption: () => i18n.t('ts.weights') });
    const attentionNote = h('p', { class: 'note' });
    panels.attention.append(attentionNote, h('div', { class: 'ts-row' }, qView.element, kView.element, vView.element),
      h('div', { class: 'ts-row' }, sView.element, wTable.element));
    // prediction
    const predictNote = h('p', { class: 'note' });
    const readOff = h('p', { class: 'ts-readoff', attrs: { 'data-role': 'ts-readoff' } });
    const predictCards = h('div', { class: 'cards ts-cards' });
    const hView = frame.view({ name: 'h', label: 'h = X + A·V', csv: false });
    panels.predict.append(predictNote, readOff, predictCards, h('div', { class: 'ts-row' }, hView.element));
    // loss
    const lossNote = h('p', { class: 'note' });
    const lossBars = h('div', { class: 'bars ts-bars' });
    const lossMean = h('p', { class: 'ts-mean', attrs: { 'data-role': 'ts-loss' } });
    panels.loss.append(lossNote, lossBars, lossMean);
    // backward
    const backwardNote = h('p', { class: 'note' });
    const normBars = h('div', { class: 'bars ts-bars', attrs: { 'data-role': 'ts-grad-rows' } });
    const zeroLine = h('p', { class: 'ts-zero', attrs: { 'data-role': 'ts-zero' } });
    const gView = frame.view({ name: '∂loss/∂E', label: () => i18n.t('ts.gradTable'), csv: false });
    const gradHeat = new EmbeddingHeatmap({ reducedMotion: () => true, maxRows: HEATMAP_ROWS });
    const gradHeatTitle = texts.set(h('h3', { class: 'sub-title' }), 'ts.gradHeatShort');
    // the backward pass starts at the logits: dlogits = p − onehot(target)
    const dlogitsLine = h('p', { class: 'note', attrs: { 'data-role': 'ts-dlogits' } });
    panels.backward.append(dlogitsLine, backwardNote, normBars, zeroLine, h('div', { class: 'ts-row' },
      gView.element, h('div', { class: 'ts-table' }, gradHeatTitle, gradHeat.element, gradHeatNote)));
    // update
    const updateNote = h('p', { class: 'note' });
    const beforeView = frame.view({ name: 'E', label: () => i18n.t('ts.before'), csv: false });
    const deltaView = frame.view({ name: 'Δ', label: () => i18n.t(snapNow()?.optimizer === 'adam' ? 'ts.adamStep' : 'ts.step'), csv: false });
    const afterView = frame.view({ name: 'E′', label: () => i18n.t('ts.afterRows'), csv: false });
    // every parameter the step changed, not only E's rows
    const changesTitle = texts.set(h('h3', { class: 'sub-title' }), 'ts.changesTitle');
    const changesBody = h('tbody');
    const changesTable = h('table', { class: 'ts-changes', attrs: { 'data-role': 'ts-changes' } },
      h('thead', {}, h('tr', {}, ['ts.changes.name', 'ts.changes.changed', 'ts.changes.norm', 'ts.changes.max']
        .map((key) => texts.set(h('th', { attrs: { scope: 'col' } }), key)))), changesBody);
    const changesNote = h('p', { class: 'note' });
    panels.update.append(updateNote, h('div', { class: 'equation' }, beforeView.element, h('span', { class: 'op', text: '+' }),
      deltaView.element, h('span', { class: 'op', text: '=' }), afterView.element),
    changesTitle, h('div', { class: 'matrix-scroll' }, changesTable), changesNote);
    // after
    const afterNote = texts.set(h('p', { class: 'note' }), 'ts.afterNote');
    const afterLine = h('p', { class: 'ts-mean', attrs: { 'data-role': 'ts-after' } });
    const afterBars = h('div', { class: 'ts-pairs' });
    // "update E only": how much of the drop the table's step alone buys
    let tableOnly = false;
    const tableOnlySwitch = toggle(texts, 'ts.tableOnly', false, (on) => { tableOnly = on; if (snapNow()) drawTableOnly(snapNow()); }, events);
    tableOnlySwitch.input.dataset.role = 'ts-table-only';
    const tableOnlyLine = h('p', { class: 'ts-mean', attrs: { 'data-role': 'ts-table-only-result' }, hidden: true });
    panels.after.append(afterNote, afterLine, tableOnlySwitch.element, tableOnlyLine, afterBars);
    function drawTableOnly(snap) {
      const { update } = snap;
      tableOnlyLine.hidden = !tableOnly;
      if (!tableOnly) return;
      const drop = update.loss - update.lossAfter, dropE = update.loss - update.lossTableOnly;
      tableOnlyLine.textContent = i18n.t(drop > 0 ? 'ts.tableOnlyResult' : 'ts.tableOnlyNoDrop', {
        before: fmt(update.loss), only: fmt(update.lossTableOnly), all: fmt(update.lossAfter),
        share: drop > 0 ? ((100 * dropE) / drop).toFixed(1) : '0',
      });
    }

    const snapNow = () => (frame.snap && frame.snap.status === 'ready' ? frame.snap : null);
    const word = (w) => glossed(w, lang());

    /** bar rows: [{ label, value, text, mark }] with values 0 … 1 of the track */
    function barRows(rows, cls = '') {
      return rows.map(({ label, value, text, mark }) => h('div', { class: `bar-row${mark ? ' ts-mark' : ''} ${cls}` },
        h('span', { class: 'bar-label', text: label, attrs: { title: label } }),
        h('span', { class: 'bar-track', attrs: { 'aria-hidden': 'true' } }, h('span', { class: 'bar-fill', style: `width:${Math.max(0, Math.min(1, value)) * 100}%` })),
        h('span', { class: 'bar-value num', text })));
    }

    const context = (snap, t) => snap.now.tokens.slice(1, t + 1).join(' ') || '<s>';
    const rowLabels = (snap) => snap.now.tokens.map((w, t) => `${t} ${w}`);
    const rankOf = (probs, t, id) => {
      const row = probs.data.subarray(t * probs.cols, (t + 1) * probs.cols);
      let rank = 1;
      for (let v = 0; v < row.length; v++) if (row[v] > row[id]) rank++;
      return rank;
    };
    const pOf = (ins, t) => ins.probs.data[t * ins.probs.cols + ins.targetIds[t]];
    // the position whose right answer is the sentence's last word: p(果 | 我 爱 吃 苹)
    const lastWordAt = (snap) => snap.now.tokens.length - 2;

    function drawControls(snap) {
      const data = frame.snap;
      if (snap) {
        const texts2 = snap.sentences.map((s) => s.join(' '));
        if (select.options.length !== texts2.length || [...select.options].some((o, i) => o.value !== texts2[i])) {
          select.replaceChildren(...texts2.map((t) => h('option', { value: t, text: t })));
        }
        select.value = texts2[snap.sentenceIndex];
        gloss.textContent = lang() === 'en' ? glossedSentence(snap.tokens, 'en') : '';
        gloss.hidden = lang() !== 'en';
        runAt.textContent = i18n.t('ts.runAt', {
          step: snap.step, total: snap.total, seed: snap.seed, opt: snap.optimizer === 'adam' ? 'Adam' : 'SGD', lr: snap.lr,
          batch: snap.batchSize === 1 ? i18n.t('ts.batchOne') : i18n.t('ts.batchMany', { n: snap.batchSize }),
        });
        toEnd.textContent = i18n.t('ts.toEnd', { total: snap.total });
        toStart.disabled = snap.step === 0;
        toEnd.disabled = snap.step >= snap.total;
        missing.hidden = !snap.missing;
        missing.textContent = snap.missing ? i18n.t('ts.missing', { asked: snap.missing, used: snap.tokens.join(' ') }) : '';
      } else {
        toStart.disabled = toEnd.disabled = true;
        toEnd.textContent = i18n.t('ts.toEnd', { total: store.run ? store.run.total : '…' });
      }
      frame.element.dataset.state = data.status;
      status.hidden = data.status === 'ready';
      status.textContent = data.status === 'replaying' ? i18n.t('ts.replaying', data)
        : data.status === 'error' ? i18n.t('ts.error', data)
          : data.status === 'waiting' ? i18n.t('ts.waiting') : '';
    }

    function draw() {
      const snap = snapNow();
      drawControls(snap);
      for (const p of Object.values(panels)) p.classList.toggle('dim', !snap);
      if (!snap) return;
      const { now, update, vocab } = snap;
      const n = now.tokens.length, d = snap.dim, V = vocab.length;
      frame.element.dataset.step = String(snap.step);
      // the heat maps' colours follow the text colour the section inherits (light or dark)
      const dark = themeOf(frame.element, typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches).dark;
      tableE.setDark(dark);
      gradHeat.setDark(dark);
      const labels = rowLabels(snap);
      const dims = Array.from({ length: d }, (_, j) => String(j));

      // look-up
      chips.replaceChildren(...now.tokens.map((w, t) => h('span', { class: 'chip', attrs: { 'data-id': now.ids[t] } },
        word(w), h('small', { text: i18n.t('ts.idChip', { id: now.ids[t] }) }))));
      // why more rows than the article's example: it predicts only the last word, from the words
      // before it; here every position predicts, so <s> and the last word are read too
      const rowsRead = new Set(now.ids).size;
      const inner = [...new Set(now.tokens.slice(1, -1))];
      lookupNote.textContent = `${i18n.t('ts.lookupNote', { rest: V - 1, V, d })} ${i18n.t('ts.whyRows', {
        n: rowsRead, m: inner.length, words: inner.join(' '), first: now.tokens[1], last: now.tokens.at(-1),
      })}`;
      // one-hot of the first word, written out: a 1 at its id, 0 everywhere else
      const id = now.ids[1];
      const shown = Math.min(V, Math.max(id + 3, 10));
      const places = Array.from({ length: shown }, (_, v) => (v === id ? '1' : '0')).join(' ');
      oneHot.textContent = `one-hot(${now.tokens[1]}) = [${places}${shown < V ? ' …' : ''}]  (${V})  × E = E[${id}]`;
      rowsView.update(now.embeddingRows, { rowLabels: labels, colLabels: dims });
      tableE.setWords(vocab, vocab.map((w) => glossedShort(w, lang())));
      tableE.draw(snap.table);
      tableE.flash(snap.step, [...new Set(now.ids)]);
      tableETitle.textContent = i18n.t('ts.tableE', { V, d });
      shownNote(tableENote, tableE, V);

      // positions
      eView.update(now.embeddingRows, { rowLabels: labels, colLabels: dims });
      pView.update(now.positions, { rowLabels: labels, colLabels: dims });
      xView.update(now.X, { rowLabels: labels, colLabels: dims });

      // attention
      attentionNote.textContent = i18n.t('ts.attentionNote', { sqrt: fmt(Math.sqrt(d)) });
      qView.update(now.Q, { rowLabels: labels, colLabels: dims });
      kView.update(now.K, { rowLabels: labels, colLabels: dims });
      vView.update(now.V, { rowLabels: labels, colLabels: dims });
      sView.update(now.scores, { rowLabels: labels, colLabels: now.tokens });
      sView.setHidden((i, j) => j > i);
      wTable.update(now.weights, labels, now.tokens);

      // prediction: the top words at each position, the right one marked
      predictNote.textContent = i18n.t('ts.predictNote', { k: TOP });
      hView.update(now.h, { rowLabels: labels, colLabels: dims });
      const last = lastWordAt(snap);
      readOff.textContent = i18n.t('ts.readOff', { word: now.targets[last], context: context(snap, last), p: fmt(pOf(now, last)) });
      predictCards.replaceChildren(...now.tokens.map((_, t) => {
        const row = Array.from(now.probs.data.subarray(t * V, (t + 1) * V), (p, v) => ({ p, v }));
        row.sort((a, b) => b.p - a.p || a.v - b.v);
        const top = row.slice(0, TOP);
        const target = now.targetIds[t];
        // bar labels are narrow: the short gloss ('苹 ap-'); the line below the bars gives the full one
        const rows = top.map(({ p, v }) => ({ label: glossedShort(vocab[v], lang()), value: p, text: fmt(p), mark: v === target }));
        if (!top.some(({ v }) => v === target)) rows.push({ label: glossedShort(vocab[target], lang()), value: pOf(now, t), text: fmt(pOf(now, t)), mark: true });
        for (const r of rows) if (r.mark) r.label = `✓ ${r.label}`;
        return h('div', { class: `card ts-card${t === last ? ' active' : ''}`, attrs: { 'data-position': t } },
          h('h3', { text: i18n.t('ts.after', { context: context(snap, t) }) }),
          h('div', { class: 'bars' }, barRows(rows)),
          h('p', { class: 'sum', text: i18n.t('ts.target', { word: word(now.targets[t]), p: fmt(pOf(now, t)), rank: rankOf(now.probs, t, target), V }) }));
      }));

      // loss per position and the mean
      lossNote.textContent = i18n.t('ts.lossNote', { n });
      const maxLoss = Math.max(Math.log(V), ...now.losses);
      lossBars.replaceChildren(...barRows(now.losses.map((l, t) => ({
        label: `${context(snap, t)} → ${now.targets[t]}`, value: l / maxLoss, text: fmt(l) }))));
      lossMean.textContent = i18n.t('ts.lossMean', { loss: fmt(now.loss), V, uniform: fmt(Math.log(V)) });

      // backward: the gradient's non-zero rows, and the count of rows that are exactly 0
      backwardNote.textContent = i18n.t('ts.backwardNote', { zero: snap.zeroRows });
      const maxNorm = Math.max(...now.gradientRows.map((r) => r.norm), 1e-12);
      normBars.replaceChildren(...barRows(now.gradientRows.map((r) => ({
        label: `${r.row} ${word(r.word)}`, value: r.norm / maxNorm, text: fmtSmall(r.norm) }))));
      zeroLine.textContent = i18n.t('ts.zeroRows', { zero: snap.zeroRows });
      const gRows = now.gradientRows.map((r) => r.row);
      gView.update(snap.gradNonZero, { rowLabels: now.gradientRows.map((r) => `${r.row} ${r.word}`), colLabels: dims });
      gradHeat.setWords(vocab, vocab.map((w) => glossedShort(w, lang())));
      gradHeat.draw(now.gradients.embedding);
      gradHeat.flash(snap.step, gRows);
      gradHeatTitle.textContent = i18n.t('ts.gradHeat', { V, d, k: gRows.length });
      shownNote(gradHeatNote, gradHeat, V);

      // the start of the backward pass, at the last position: dlogits = p − onehot(target)
      {
        const last = lastWordAt(snap);
        const target = now.targetIds[last];
        let top = -1;
        for (let v = 0; v < V; v++) if (v !== target && (top < 0 || now.probs.data[last * V + v] > now.probs.data[last * V + top])) top = v;
        dlogitsLine.textContent = i18n.t('ts.dlogits', {
          n: now.tokens.length, context: context(snap, last), target: now.targets[last], dt: fmtSmall(pOf(now, last) - 1),
          top: vocab[top], dtop: fmtSmall(now.probs.data[last * V + top]),
        });
      }

      // update: before, the step, after (for the rows that changed)
      const k = update.updatedRows.length;
      const upLabels = update.updatedRows.map((r) => `${r} ${vocab[r]}`);
      updateNote.textContent = i18n.t(snap.optimizer === 'adam' ? 'ts.updateNoteAdam' : 'ts.updateNoteSgd', { lr: snap.lr, k });
      beforeView.update(update.rowsBefore, { rowLabels: upLabels, colLabels: dims });
      deltaView.update(update.delta, { rowLabels: upLabels, colLabels: dims });
      afterView.update(update.rowsAfter, { rowLabels: upLabels, colLabels: dims });
      changesBody.replaceChildren(...update.changes.map((c) => h('tr', { attrs: { 'data-parameter': c.name } },
        h('th', { attrs: { scope: 'row' }, text: `${PARAMETER_LABELS[c.name] || c.name} (${c.rows}×${c.cols})` }),
        h('td', { class: 'num', text: i18n.t('ts.changes.of', { changed: c.changed, size: c.size }) }),
        h('td', { class: 'num', text: fmtSmall(c.norm) }), h('td', { class: 'num', text: fmtSmall(c.max) }))));
      const others = update.changes.filter((c) => c.name !== 'embedding' && c.changed > 0).length;
      changesNote.textContent = i18n.t('ts.changesNote', { others });

      // the loss again
      const diff = update.lossAfter - update.loss;
      afterLine.textContent = `${fmt(update.loss)} → ${fmt(update.lossAfter)}: ${diff <= 0
        ? i18n.t('ts.lower', { diff: fmt(-diff) }) : i18n.t('ts.higher', { diff: fmt(diff), lr: snap.lr })}`;
      afterLine.classList.toggle('good', diff <= 0);
      const maxPair = Math.max(...now.losses, ...update.after.losses, 1e-12);
      afterBars.replaceChildren(...now.losses.map((l, t) => h('div', { class: 'ts-pair' },
        h('p', { class: 'ts-pair-title', text: `${context(snap, t)} → ${word(now.targets[t])}` }),
        h('div', { class: 'bars' }, barRows([
          { label: i18n.t('ts.lossBefore'), value: l / maxPair, text: fmt(l) },
          { label: i18n.t('ts.lossAfter'), value: update.after.losses[t] / maxPair, text: fmt(update.after.losses[t]) },
        ])))));

      drawTableOnly(snap);
      drawCompare(snap);
    }

    // then and now: the same sentence's attention and prediction at step 0 and at the run's step
    const compareTitle = texts.set(h('h3'), 'ts.compareShort');
    const compareNote = h('p', { class: 'note' });
    const sides = ['start', 'now'].map((which) => {
      const table = createHeatTable({ caption: () => (which === 'start' ? i18n.t('ts.at0') : i18n.t('ts.atNow', { step: snapNow()?.step ?? 0 })) });
      const p = h('p', { attrs: { 'data-role': 'ts-p' } });
      const spread = h('p', { attrs: { 'data-role': 'ts-spread' } });
      return { which, table, p, spread, element: h('div', { class: 'ts-side', attrs: { 'data-side': which } }, table.element, p, spread) };
    });
    compare.append(compareTitle, compareNote, h('div', { class: 'ts-sides' }, sides.map((s) => s.element)));

    function drawCompare(snap) {
      const last = lastWordAt(snap);
      const labels = snap.now.tokens;
      compareTitle.textContent = i18n.t('ts.compare', { step: snap.step });
      compareNote.textContent = snap.step === 0 ? i18n.t('ts.compareZero') : i18n.t('ts.compareNote');
      for (const side of sides) {
        const ins = snap[side.which];
        side.table.update(ins.weights, labels, labels);
        side.p.textContent = i18n.t('ts.pLast', { word: ins.targets[last], context: context(snap, last), p: fmt(pOf(ins, last)) });
        side.spread.textContent = i18n.t('ts.spread', { v: fmt(snap.spread[side.which]) });
      }
    }

    function render(index) {
      TRAINSTEP_STAGES.forEach((name, i) => {
        panels[name].hidden = i !== index;
        stageButtons[i].classList.toggle('active', i === index);
        stageButtons[i].setAttribute('aria-current', i === index ? 'step' : 'false');
      });
      const snap = snapNow();
      if (!snap) return i18n.t('ts.say.wait');
      const { now, update, vocab } = snap;
      const n = now.tokens.length;
      const last = lastWordAt(snap);
      switch (TRAINSTEP_STAGES[index]) {
        case 'lookup':
          return i18n.t('ts.say.lookup', { n, ids: now.ids.join(', '), first: now.tokens[1], id: now.ids[1], rest: vocab.length - new Set(now.ids).size });
        case 'positions':
          return i18n.t('ts.say.positions', { n, d: snap.dim });
        case 'attention': {
          const row = now.weights.row(n - 1);
          const top = row.indexOf(Math.max(...row));
          return i18n.t('ts.say.attention', { d: snap.dim, last: now.tokens[n - 1], top: now.tokens[top], w: fmt(row[top]) });
        }
        case 'predict':
          return i18n.t('ts.say.predict', { context: context(snap, last), word: now.targets[last], p: fmt(pOf(now, last)), rank: rankOf(now.probs, last, now.targetIds[last]), V: vocab.length });
        case 'loss':
          return i18n.t('ts.say.loss', { n, loss: fmt(now.loss) });
        case 'backward':
          return i18n.t('ts.say.backward', { k: now.gradientRows.length, zero: snap.zeroRows });
        case 'update':
          return i18n.t(snap.optimizer === 'adam' ? 'ts.say.updateAdam' : 'ts.say.update', { k: update.updatedRows.length, lr: snap.lr });
        default:
          return i18n.t('ts.say.after', { before: fmt(update.loss), after: fmt(update.lossAfter) });
      }
    }

    return {
      count: () => TRAINSTEP_STAGES.length,
      draw, render,
      stage: (index) => TRAINSTEP_STAGES[index],
      setLanguage: () => draw(),
      destroy() {
        wTable.destroy();
        for (const side of sides) side.table.destroy();
      },
    };
  },
});
