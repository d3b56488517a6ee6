// "Generation, token by token": a model continues a prompt: the pretrained poet (loaded when the
// section is first seen), the writer's run (taken as a file's bytes and loaded on the main
// thread), or a LoRA adapter on the poet; held to a form (gform) and an acrostic (gacro) if asked. Step 0 is the prefill: the prompt's whole causal
// attention matrix; then one step per token: the new token's single row of attention over
// everything before it, the K and V caches growing by that row, the next-character
// distribution with temperature, top-k and top-p applied (what they cut and renormalise), and
// the character drawn; at a step the form decided, what the model wanted and what the form
// required. Beside it the poem as the metrics read it (form, rhyme, 平/仄, lines found in the
// training poems, with their source). A side note times a token with and without the cache, live.
// On the page the poem plays itself once when first seen (playsOnOpen); ▶ plays it again.
// gpt/generation.js computes every number; this file only draws.
import { h, clear, fmt, selectNumber } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { QUIZ_GPT_STRINGS } from './quiz-gpt.strings.js';
import { GENERATE_STRINGS } from './generate.strings.js';
import { defineSection, indexLabels, bars } from '../shell/section-shell.js';
import { generationSource, generationOf } from '../gpt/generation.js';
import { GPT_CHOICES, GENERATE_KEYS, GEN_MODELS, GEN_FORMS } from '../gpt/settings.js';
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
      choices.push([key, el, format]);
      events.on(el, 'change', () => ctx.setSetting(key, Number(el.value)));
      return h('label', { class: 'gpt-choice' }, texts.set(h('span'), `gen.${key}`), el);
    };
    // the model: the poet, the writer's run, an adapter (a file, or one the 微调 section hands over)
    const modelSelect = h('select', { attrs: { 'data-setting': 'gmodel' } }, GEN_MODELS.map((m) => h('option', { value: m })));
    events.on(modelSelect, 'change', () => ctx.setSetting('gmodel', modelSelect.value));
    const take = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'take-model' } }), 'gen.take');
    events.on(take, 'click', () => gen.useWriterModel());
    const adapterInput = h('input', { attrs: { type: 'file', accept: '.qkvlora,application/octet-stream', 'data-role': 'adapter-file' } });
    events.on(adapterInput, 'change', () => {
      const file = adapterInput.files && adapterInput.files[0];
      if (!file) return;
      file.arrayBuffer().then((buf) => gen.loadAdapterFile(new Uint8Array(buf), file.name)).finally(() => { adapterInput.value = ''; });
    });
    const adapterLabel = h('label', { class: 'gpt-file' }, texts.set(h('span'), 'gen.adapterFile'), adapterInput);
    // the form and the acrostic (藏头诗)
    const formSelect = h('select', { attrs: { 'data-setting': 'gform' } }, GEN_FORMS.map((f) => h('option', { value: f })));
    events.on(formSelect, 'change', () => ctx.setSetting('gform', formSelect.value));
    const acrostic = h('input', { attrs: { type: 'text', 'data-setting': 'gacro', maxlength: '8', size: '8', lang: 'zh', autocomplete: 'off' } });
    events.on(acrostic, 'change', () => { if (!ctx.setSetting('gacro', acrostic.value.trim())) acrostic.value = snapNow().settings.acrostic; });
    const acrosticHint = texts.set(h('span', { class: 'note', attrs: { id: `${frame.element.id || 'generate'}-acrostic-hint` } }), 'gen.acrosticHint');
    acrostic.setAttribute('aria-describedby', acrosticHint.id);
    const train = h('button', { attrs: { type: 'button', 'data-role': 'train' } });
    events.on(train, 'click', () => gen.toggleTraining());
    const writerNote = h('span', { class: 'note', attrs: { 'data-role': 'writer-step' } });
    const modelNote = h('p', { class: 'note', attrs: { 'data-role': 'model', 'aria-live': 'polite' } });
    const writerRow = h('div', { class: 'gen-controls' }, train, writerNote);
    frame.controls.append(
      h('div', { class: 'gen-controls' }, h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'gen.who'), modelSelect), take, adapterLabel),
      modelNote,
      h('div', { class: 'gen-controls' },
        h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'gen.prompt'), prompt),
        h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'gen.form'), formSelect),
        h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'gen.acrostic'), acrostic), acrosticHint),
      h('div', { class: 'gen-controls' },
        choice('gtemp', GPT_CHOICES.gtemp), choice('gtopk', GPT_CHOICES.gtopk, (v) => (v === 0 ? i18n.t('gen.all') : String(v))),
        choice('gtopp', GPT_CHOICES.gtopp)),
      writerRow, promptError);

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
    // at a step the form decided: what the model wanted, what the form required
    const maskNote = h('p', { class: 'gen-mask', attrs: { 'data-role': 'mask-note' } });
    // the poem as the metrics read it
    const readingBox = h('div', { class: 'gen-reading', attrs: { 'data-role': 'reading' } });
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
    frame.stage.append(errorBox, line, endNote, maskNote, drawnBox, readingBox, viewPick,
      h('div', { class: 'gen-cols' }, h('div', {}, prefillBox, rowBox), h('div', {}, cacheBox)), distBox, cost);

    const options = (el, count, labelKey, value) => {
      clear(el).append(...Array.from({ length: count }, (_, i) => h('option', { value: String(i), text: i18n.t(labelKey, { k: i + 1 }), selected: i === value })));
    };

    const formName = (form) => i18n.t(`gen.form.${form}`);
    const errorText = (error) => (error.key
      ? i18n.t(error.key, { ...error.vars, ...(error.vars.form ? { form: formName(error.vars.form) } : {}) })
      : refusalText(i18n, error.message));

    // loadPretrained's refusals where the page has no model (the single-file page; a build without
    // the file: tools/build-page.mjs and tools/pretrained-bundle.mjs word them), in the page's language
    const poetWhy = (message) => (/^loadPretrained: the single-file page/.test(message) ? i18n.t('gen.poetSingleFile')
      : /^loadPretrained: this build of qkv-lab has no pretrained model/.test(message) ? i18n.t('gen.poetNotBuilt')
        : refusalText(i18n, message));

    /** What the section says about the model that writes (and why, when it is not the one chosen). */
    function modelText(snap) {
      const m = snap.writing;
      const parts = [];
      if (m.fallback === 'poet') parts.push(i18n.t('gen.poetFailed', { message: poetWhy(m.poetError || '') }));
      if (m.fallback === 'adapter') parts.push(i18n.t('gen.noAdapter'));
      if (m.adapterLoading) parts.push(i18n.t('gen.adapterLoading'));
      if (m.adapterError) parts.push(i18n.t('gen.adapterRefused', { message: refusalText(i18n, m.adapterError) }));
      if (snap.status === 'loading') parts.push(i18n.t('gen.poetLoading'));
      else if (snap.status === 'waiting') parts.push(i18n.t('gen.waiting'));
      else if (snap.status === 'ready') {
        if (m.kind === 'poet') parts.push(i18n.t('gen.modelPoet', { layers: snap.layers, heads: snap.heads, dim: snap.dk * snap.heads }));
        else if (m.kind === 'adapter') parts.push(i18n.t('gen.modelAdapter', { name: m.name || '—' }));
        else parts.push(i18n.t(snap.modelStep ? 'gen.modelStep' : 'gen.modelUntrained', { step: snap.modelStep }));
      }
      return parts.join(' ');
    }

    /** The poem as the metrics read it: form, rhyme (marked, with finals), 平/仄, lines found in the training poems. */
    function drawReading(snap) {
      const r = snap.reading;
      clear(readingBox);
      if (!r) return;
      const poem = Array.from(snap.prompt + snap.text);
      const rhymeAt = new Map((r.rhyme?.ends ?? []).map((e) => [e.at, e]));
      const toneAt = new Map((r.tones?.positions ?? []).map((p) => [p.at, p]));
      const copiedAt = new Set();
      for (const l of r.lines) if (l.source) for (let k = 0; k < Array.from(l.text).length; k++) copiedAt.add(l.at + k);
      // the poem once more, whole, with its rhyme and its copied lines marked
      const marked = h('p', { class: 'gen-poem', attrs: { lang: 'zh', 'data-role': 'poem' } }, poem.map((ch, k) => {
        const e = rhymeAt.get(k);
        const cls = [e ? (r.rhyme.lines24 && e.line <= 4 ? 'rhyme' : 'rhyme-miss') : '', copiedAt.has(k) ? 'copied' : ''].filter(Boolean).join(' ');
        const span = h('span', { text: ch, ...(cls ? { class: cls } : {}) });
        if (e) { span.dataset.rhymeLine = String(e.line); span.dataset.final = e.final ?? ''; }
        return span;
      }));
      const items = [];
      items.push(h('li', { attrs: { 'data-role': 'reading-form' } }, r.form
        ? i18n.t('gen.readForm', { form: formName(r.form) }) : i18n.t('gen.readNoForm')));
      if (r.rhyme) {
        const [e2, e4] = r.rhyme.ends;
        const end = (e) => i18n.t('gen.readEnd', { line: e.line, ch: e.char, final: e.final ?? '?', group: e.group ?? '—',
          level: toneAt.get(e.at)?.level ?? '?' });
        items.push(h('li', { attrs: { 'data-role': 'reading-rhyme' } },
          i18n.t(r.rhyme.lines24 ? 'gen.readRhyme' : 'gen.readNoRhyme', { a: end(e2), b: end(e4) }),
          r.rhyme.ends.length > 2 ? ` ${i18n.t(r.rhyme.allEven ? 'gen.readAllEven' : 'gen.readNotAllEven', { n: r.rhyme.ends.length })}` : ''));
        const first = r.tones.positions[0];
        items.push(h('li', { attrs: { 'data-role': 'reading-tones' } }, i18n.t('gen.readTones', {
          list: r.tones.positions.map((p) => `${p.char} ${p.level ?? '?'}`).join(i18n.lang === 'zh' ? '，' : ', '), first: `${first.char} ${first.level ?? '?'}` })));
      }
      const copied = r.lines.filter((l) => l.source);
      const novelty = h('li', { attrs: { 'data-role': 'reading-novelty' } },
        i18n.t(copied.length ? 'gen.readCopied' : 'gen.readNew', { n: copied.length, lines: r.novelty.lines }));
      if (copied.length) {
        novelty.append(h('ul', {}, copied.map((l) => h('li', { class: 'copied-line' },
          h('span', { class: 'copied', attrs: { lang: 'zh' }, text: l.text }), l.given ? ` ${i18n.t('gen.readGiven')}` : '', ` ${i18n.t('gen.readFrom')} `,
          h('q', { attrs: { lang: 'zh', 'data-role': 'source' }, text: l.source })))));
      }
      if (r.novelty.copiedPoems) novelty.append(h('strong', { text: ` ${i18n.t('gen.readWholePoem')}` }));
      items.push(novelty);
      if (r.longest.length >= 2) {
        items.push(h('li', { attrs: { 'data-role': 'reading-longest' } },
          i18n.t('gen.readLongest', { text: r.longest.text, n: r.longest.length }), ' ',
          r.longest.source ? h('q', { attrs: { lang: 'zh' }, text: r.longest.source }) : ''));
      }
      const checked = snap.writing.checked;
      readingBox.append(texts.set(h('h3', { class: 'sub-title' }), 'gen.readTitle'), marked, h('ul', { class: 'gen-read-list' }, items),
        h('p', { class: 'note', attrs: { 'data-role': 'checked', 'data-checked': checked },
          text: i18n.t(`gen.checked.${checked}`, { n: snap.training.toLocaleString('en-US'), mb: (snap.trainingFileBytes / 1e6).toFixed(1) }) }));
    }

    let index = 0;
    const SETTING_OF = { gtemp: 'temperature', gtopk: 'topK', gtopp: 'topP' };
    function draw(snap) {
      for (const [key, el, format] of choices) selectNumber(el, snap.settings[SETTING_OF[key]], format);
      const focused = prompt.getRootNode().activeElement;
      if (focused !== prompt) prompt.value = snap.settings.prompt;
      if (focused !== acrostic) acrostic.value = snap.settings.acrostic;
      for (const o of modelSelect.options) o.textContent = i18n.t(`gen.who.${o.value}`);
      for (const o of formSelect.options) o.textContent = formName(o.value);
      modelSelect.value = snap.settings.who;
      formSelect.value = snap.settings.form;
      const ready = snap.status === 'ready' && !snap.error;
      take.disabled = false;
      const w = snap.writer;
      const writes = snap.writing?.kind === 'writer' || snap.settings.who === 'writer';
      writerRow.hidden = !writes;
      texts.set(train, w.running ? 'gen.pauseTraining' : 'gen.train');
      train.disabled = !w.ready || (w.done && !w.running);
      writerNote.textContent = w.ready ? i18n.t('gen.writerStep', { step: w.step }) : '';
      modelNote.textContent = snap.writing ? modelText(snap) : i18n.t('gen.waiting');
      frame.element.dataset.writing = snap.status === 'ready' ? snap.writing.kind : snap.status;
      promptError.hidden = !(snap.error);
      promptError.textContent = snap.error ? i18n.t('gen.refused', { message: errorText(snap.error) }) : '';
      errorBox.hidden = snap.status !== 'error' && !snap.takeError;
      errorBox.textContent = snap.status === 'error' ? i18n.t('gen.noModel', { message: refusalText(i18n, snap.message || '') })
        : snap.takeError ? i18n.t('gen.noModelKept', { message: refusalText(i18n, snap.takeError), step: snap.modelStep || 0 }) : '';
      for (const el of [line, drawnBox, viewPick, frame.stage.querySelector('.gen-cols'), distBox, readingBox]) el.hidden = !ready;
      redraw.disabled = !ready;
      if (snap.status === 'ready' && snap.cost && snap.cost.tokens) {
        costText.textContent = i18n.t('gen.cost', { tokens: snap.cost.tokens, with: fmt(snap.cost.cached, 2), without: fmt(snap.cost.uncached, 2),
          ratio: (snap.cost.uncached / snap.cost.cached).toFixed(1), n: Array.from(snap.cost.prompt).length });
      } else if (snap.status === 'ready' && snap.cost?.error) {
        costText.textContent = i18n.t('gen.costError', { message: refusalText(i18n, snap.cost.error) });
      } else costText.textContent = i18n.t('gen.costNone');
      measure.disabled = !ready;
      if (!ready) { clear(readingBox); maskNote.textContent = ''; return; }
      const dw = snap.drawnWith;
      const same = dw.temperature === snap.settings.temperature && dw.topK === snap.settings.topK && dw.topP === snap.settings.topP;
      drawnNote.textContent = i18n.t(same ? 'gen.drawnSame' : 'gen.drawnEarlier', { n: snap.draws + 1, T: dw.temperature,
        k: dw.topK || i18n.t('gen.all'), p: dw.topP });
      layer = Math.min(layer, snap.layers - 1);
      head = Math.min(head, snap.heads - 1);
      options(layerSelect, snap.layers, 'gen.layerN', layer);
      options(headSelect, snap.heads, 'gen.headN', head);
      const first = snap.steps[0];
      const pw = first.layers[layer][head].weights;
      const labels = first.chars.map(shown);
      prefillView.update(pw, { rowLabels: labels, colLabels: labels });
      drawReading(snap);
    }

    /** The sentence for a step the form decided: what the model wanted, what the form required. */
    function maskText(mask) {
      const want = { ch: shown(mask.wanted.char), p: fmtP(mask.wanted.p), removed: fmtP(mask.removed) };
      // the form agreed with the model: said only where the mask took at least a percent away
      if (!mask.overruled) return mask.removed >= 0.01 ? i18n.t('gen.maskKept', want) : '';
      const r = mask.required;
      if (r === 'character') return i18n.t('gen.maskChar', want);
      if (r === '\n') return i18n.t('gen.maskEnd', want);
      if (r === '，' || r === '。') return i18n.t('gen.maskMark', { ...want, mark: r });
      return i18n.t('gen.maskAcrostic', { ...want, req: r });
    }

    function render(i) {
      index = i;
      const snap = snapNow();
      frame.element.dataset.genStep = String(i);
      if (snap.status !== 'ready' || snap.error) return i18n.t(snap.status === 'ready' ? 'gen.none' : snap.status === 'loading' ? 'gen.poetLoading' : 'gen.waiting');
      const st = snap.steps[i];
      const n0 = snap.promptLength;
      // the text so far, a span per character: the prompt's muted, the new one lit, a rhyme once written marked
      const rhymeAt = new Map((snap.reading?.rhyme?.ends ?? []).map((e) => [e.at, e]));
      const written = [...Array.from(snap.prompt), ...snap.steps.slice(0, i + 1).map((s) => s.char)];
      clear(line).append(...written.map((ch, k) => {
        const cls = [k < n0 - 1 ? 'prompt' : '', k === written.length - 1 ? 'new' : '', rhymeAt.has(k) ? 'rhyme' : ''].filter(Boolean).join(' ');
        return h('span', { text: shown(ch), ...(cls ? { class: cls } : {}) });
      }));
      // at the last step: why the text ends here (the end token, or a full context)
      const last = i === snap.steps.length - 1;
      endNote.textContent = !last ? '' : i18n.t(snap.stopped === 'end' ? 'gen.ended' : 'gen.cutByContext', { context: snap.context });
      const said = st.mask ? maskText(st.mask) : '';
      maskNote.textContent = said;
      maskNote.hidden = !said;
      maskNote.classList.toggle('overruled', Boolean(st.mask?.overruled));
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
      distCaption.textContent = i18n.t(d.masked ? 'gen.distCaptionMasked' : 'gen.distCaption', { vocab: d.vocab.toLocaleString('en-US'), allowed: d.allowed.toLocaleString('en-US') });
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
      const gap = i18n.lang === 'zh' ? '' : ' ';
      return i18n.t(i === 0 ? 'gen.step0' : 'gen.stepN', vars) + (st.keptNow ? '' : `${gap}${i18n.t('gen.cutNow', { ch: shown(st.char) })}`)
        + (said ? `${gap}${said}` : '');
    }

    return {
      count: (snap) => (snap.status === 'ready' && !snap.error ? Math.max(1, snap.steps.length) : 1),
      draw, render, stage: (i) => (i === 0 ? 'prefill' : `token-${i}`),
      // on the page the poem writes itself once, character by character, when its line is first on
      // screen with a model ready (section-shell.js: not under reduced motion, a link's scene, or
      // once the reader has clicked or typed in the section)
      playsOnOpen: { ready: (snap) => snap.status === 'ready' && !snap.error, watch: line },
      setLanguage: () => draw(snapNow()),
      destroy: () => resizes?.disconnect(),
      // the writer's trained model and an adapter are not in a link (section-tools.js shows this
      // beside the code); the poet is: the code loads it
      embedNote: (snap) => (snap.writing?.kind === 'adapter' ? i18n.t('gen.embedAdapter')
        : snap.writing?.kind === 'writer' && snap.modelStep ? i18n.t('gen.embedModel', { step: snap.modelStep }) : null),
    };
  },
});
