// sections/training/controls.js: the run's settings in the style of TensorFlow Playground: batch size,
// learning rate, dimension, optimizer and the run's own seed. Each writes the URL state (so a link
// reproduces the run); the store starts a new run from it. A seed that is not a whole number from
// 0 to 4294967295 is refused with a message, as the projections section refuses its seed.
//
//   const controls = createTrainingControls({ ctx, texts, events, onChange });
//   layout.slots.settings.append(controls.element);   controls.refresh();
import { h } from '../../shell/dom.js';
import { CHOICES, defaultLr } from '../../training/settings.js';

const OPTIMIZER_NAMES = { sgd: 'SGD', adam: 'Adam' };

export function createTrainingControls({ ctx, texts, events, uid, onChange = () => {} }) {
  const { i18n, state } = ctx;
  const select = (role, name) => h('select', { attrs: { 'data-role': role, 'data-setting': name } });
  const batch = select('batch', 'batch');
  const lr = select('lr', 'lr');
  const dim = select('dim', 'dim');
  const opt = select('optimizer', 'opt');
  const seed = h('input', { attrs: { type: 'text', inputmode: 'numeric', maxlength: '12', 'data-role': 'seed', 'aria-describedby': `${uid}-seed-msg` } });
  const seedMessage = h('span', { class: 'inline-message', attrs: { id: `${uid}-seed-msg`, 'aria-live': 'polite', 'data-role': 'seed-message' } });
  const seedOwn = h('p', { class: 'tr-note tr-seed-own' });
  const adamNote = texts.set(h('p', { class: 'tr-note tr-adam-note', attrs: { 'data-role': 'adam-note' } }), 'training.adamNote');
  const field = (key, control) => h('label', {}, texts.set(h('span'), key), control);
  const group = h('div', { class: 'tr-settings', attrs: { role: 'group' } },
    field('training.batchSize', batch), field('training.lr', lr), field('training.dim', dim),
    field('training.optimizer', opt), field('training.seed', seed), seedMessage);
  texts.attr(group, 'aria-label', 'training.settings');
  const element = h('div', { class: 'tr-settings-panel' }, group, seedOwn, adamNote);

  /** Fills a select with the choices (and the current value, when a link brought another one). */
  function fill(el, values, current, label) {
    const all = values.includes(current) ? values : [...values, current].sort((a, b) => (typeof a === 'number' ? a - b : 0));
    el.replaceChildren(...all.map((v) => h('option', { value: String(v), text: label(v), selected: v === current })));
  }

  function refresh() {
    fill(batch, CHOICES.batch, state.get('batch'), (n) => i18n.t(n === 1 ? 'training.batchOption.one' : 'training.batchOption.many', { n }));
    fill(lr, CHOICES.lr, state.get('lr'), String);
    fill(dim, CHOICES.dim, state.get('dim'), String);
    fill(opt, CHOICES.opt, state.get('opt'), (o) => OPTIMIZER_NAMES[o]);
    if (seed.getRootNode().activeElement !== seed) seed.value = String(state.get('tseed'));
    seedOwn.textContent = i18n.t('training.seedOwn', { seed: state.get('seed') });
    adamNote.hidden = state.get('opt') !== 'adam';
  }

  const set = (name, value) => {
    if (state.get(name) === value) return;
    state.set(name, value);
    onChange(name);
  };
  events.on(batch, 'change', () => set('batch', Number(batch.value)));
  events.on(lr, 'change', () => set('lr', Number(lr.value)));
  events.on(dim, 'change', () => set('dim', Number(dim.value)));
  events.on(opt, 'change', () => {
    // each optimizer has its own scale of learning rates: switching takes that optimizer's default
    const chosen = opt.value;
    state.set('lr', defaultLr(chosen));
    set('opt', chosen);
  });
  events.on(seed, 'change', () => {
    const text = seed.value.trim();
    const value = Number(text);
    const before = state.get('tseed');
    if (!/^\d{1,10}$/.test(text) || !state.set('tseed', value)) {
      seedMessage.textContent = i18n.t('training.seedBad', { seed: state.get('tseed') });
      seed.setAttribute('aria-invalid', 'true');
      seed.value = String(state.get('tseed'));
      return;
    }
    seedMessage.textContent = '';
    seed.removeAttribute('aria-invalid');
    if (value !== before) onChange('tseed');
  });
  const offState = state.onChange(() => refresh());

  refresh();
  return {
    element,
    refresh,
    /** The settings of the run in words, for the narration: '1 sentence, learning rate 0.5, …'. */
    describe() {
      const n = state.get('batch');
      return i18n.t('training.what.settings', {
        batch: i18n.t(n === 1 ? 'training.batchOption.one' : 'training.batchOption.many', { n }),
        lr: state.get('lr'), dim: state.get('dim'), opt: OPTIMIZER_NAMES[state.get('opt')],
      });
    },
    setLanguage() {
      seedMessage.textContent = seedMessage.textContent ? i18n.t('training.seedBad', { seed: state.get('tseed') }) : '';
      refresh();
    },
    destroy() { offState(); },
  };
}
