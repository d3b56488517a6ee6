// shell/stepper.js: the step-through controller every section uses.
//   const stepper = createStepper({ i18n, host, count, render });
//   host.append(stepper.element);
// render(index, { animate }) draws step `index` (0 … count-1) and returns the sentence that
// narrates it; the sentence is shown and read out by an ARIA live region.
// Controls: first / back / play-pause / forward, a speed menu, and the keys space (play/pause),
// ← and → while focus is inside host (but not in a text field, nor on a wide table's scroller).
// With prefers-reduced-motion, play jumps straight to the last step and render gets animate: false.
// stepper.onChange(fn) tells whoever needs to know (the section's progress event, the widget)
// that the position or the number of steps changed, whatever moved it: a button, a key, play,
// or a call from outside. Nobody has to watch the DOM to find out.
import { h, listeners } from './dom.js';
import { addStrings } from './i18n.js';
import { STEPPER_STRINGS } from '../strings/stepper.js';

addStrings(STEPPER_STRINGS);

const SPEEDS = [0.5, 1, 2, 4];

/**
 * The stepping keys, for the stepper and for anything stepped the same way (the training run):
 * space toggles play (except on a button or a <summary>, which it presses), → steps forward, ← back, while
 * focus is inside host but not in a text field, and not on a wide table's scroller (there ← →
 * scroll, as in any scroll box). events: a dom.js listeners() set, which removes the handler.
 */
export function stepKeys(events, host, { toggle, forward, back }) {
  events.on(host, 'keydown', (event) => {
    const target = event.target;
    // text fields, and sliders (their arrows are their own), keep their keys
    if (target.closest && target.closest('input, textarea, select, [contenteditable="true"], [role="slider"]')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key.startsWith('Arrow') && target.classList && target.classList.contains('matrix-scroll')) return;
    if (event.key === ' ' && target.tagName !== 'BUTTON' && target.tagName !== 'SUMMARY') {
      event.preventDefault();
      toggle();
    } else if (event.key === 'ArrowRight') {
      event.preventDefault();
      forward();
    } else if (event.key === 'ArrowLeft') {
      event.preventDefault();
      back();
    }
  });
}
const BASE_DELAY_MS = 900;

export function createStepper({ i18n, host, count, render, initial = 0 }) {
  const texts = i18n.binder();
  const events = listeners();
  let index = Math.max(0, Math.min(initial, count - 1));
  let total = count;
  let timer = null;
  let speed = 1;
  const watchers = new Set();
  let reported = { index, count };
  const reducedMotion = typeof matchMedia === 'function' ? matchMedia('(prefers-reduced-motion: reduce)') : { matches: false };

  const button = (cls, glyph, key) => {
    const b = h('button', { class: `step-btn ${cls}`, attrs: { type: 'button' } }, h('span', { text: glyph, attrs: { 'aria-hidden': 'true' } }));
    b.dataset.key = key;
    return b;
  };
  const first = button('step-first', '|◀', 'stepper.first');
  const back = button('step-back', '◀', 'stepper.back');
  const play = button('step-play', '▶', 'stepper.play');
  const forward = button('step-forward', '▶|', 'stepper.forward');
  const speedLabel = h('span', { class: 'speed-label' });
  const speedSelect = h('select', { class: 'step-speed' },
    SPEEDS.map((v) => h('option', { value: String(v), text: `${v}×`, selected: v === 1 })));
  const position = h('span', { class: 'step-position', attrs: { 'aria-hidden': 'true' } });
  const narration = h('p', { class: 'narration', attrs: { 'aria-live': 'polite', 'aria-atomic': 'true' } });
  const keysHint = h('span', { class: 'keys-hint' });
  const element = h('div', { class: 'stepper' },
    h('div', { class: 'stepper-controls', attrs: { role: 'group' } },
      first, back, play, forward,
      h('label', { class: 'speed' }, speedLabel, speedSelect), position, keysHint),
    narration);

  function labelButtons() {
    for (const b of [first, back, forward]) b.setAttribute('aria-label', i18n.t(b.dataset.key));
    for (const b of [first, back, forward]) b.title = i18n.t(b.dataset.key);
    const playing = timer !== null;
    play.setAttribute('aria-label', i18n.t(playing ? 'stepper.pause' : 'stepper.play'));
    play.title = play.getAttribute('aria-label');
    play.firstChild.textContent = playing ? '⏸' : '▶';
    play.setAttribute('aria-pressed', String(playing));
    texts.set(speedLabel, 'stepper.speed');
    texts.set(keysHint, 'stepper.keys');
    element.querySelector('.stepper-controls').setAttribute('aria-label', i18n.t('stepper.keys'));
  }

  function draw(animate) {
    const text = render(index, { animate: animate && !reducedMotion.matches });
    narration.textContent = text || '';
    position.textContent = i18n.t('stepper.position', { i: index + 1, n: total });
    back.disabled = index === 0;
    first.disabled = index === 0;
    forward.disabled = index === total - 1;
    if (reported.index !== index || reported.count !== total) {
      reported = { index, count: total };
      for (const fn of [...watchers]) fn({ index, count: total, playing: timer !== null });
    }
  }

  function go(i, animate = true) {
    index = Math.max(0, Math.min(i, total - 1));
    draw(animate);
  }

  function pause() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    labelButtons();
  }

  function tick() {
    if (index >= total - 1) { pause(); return; }
    go(index + 1);
    timer = setTimeout(tick, BASE_DELAY_MS / speed);
    if (index >= total - 1) pause();
  }

  function start() {
    if (timer !== null) return;
    if (index >= total - 1) go(0, false);
    if (reducedMotion.matches) { go(total - 1, false); return; }
    timer = setTimeout(tick, 0);
    labelButtons();
  }

  events.on(first, 'click', () => { pause(); go(0); });
  events.on(back, 'click', () => { pause(); go(index - 1); });
  events.on(forward, 'click', () => { pause(); go(index + 1); });
  events.on(play, 'click', () => (timer === null ? start() : pause()));
  events.on(speedSelect, 'change', () => { speed = Number(speedSelect.value) || 1; });
  stepKeys(events, host, {
    toggle: () => (timer === null ? start() : pause()),
    forward: () => { pause(); go(index + 1); },
    back: () => { pause(); go(index - 1); },
  });

  labelButtons();
  draw(false);

  return {
    element,
    get index() { return index; },
    get count() { return total; },
    get playing() { return timer !== null; },
    go, pause, play: start,
    forward: () => go(index + 1),
    back: () => go(index - 1),
    /**
     * New number of steps (the data changed shape); keeps the position when it still exists.
     * A stepper resting on its last step stays on the last step: a finished table stays finished
     * when the sentence grows (the softmax section opens there).
     */
    setCount(n, keepAt = index) {
      const finished = timer === null && total > 1 && index === total - 1 && keepAt === index;
      total = Math.max(1, n);
      // a playing run keeps playing through new data: from where it was, or from the start when
      // that step no longer exists (clamping it to the end would stop it mid-run)
      if (timer !== null && keepAt > total - 1) index = 0;
      else index = finished ? total - 1 : Math.min(keepAt, total - 1);
      draw(false);
    },
    /** fn({ index, count, playing }) after every change of position or length; returns off(). */
    onChange(fn) {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    /** Redraws the current step (new numbers or a new language). */
    refresh() {
      labelButtons();
      draw(false);
    },
    destroy() {
      pause();
      watchers.clear();
      events.off();
    },
  };
}
