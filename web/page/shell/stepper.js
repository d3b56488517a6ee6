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
// A scene (scene.js) keeps the stepper within a range of its steps ({ from, to }, 0-based):
// ◀, ▶|, |◀, the keys and play stay inside it, and with loop play goes round from its end to its start.
// stepper.setGate(fn) lets a step wait (the quiz, shell/quiz.js): fn(from, to) → the furthest
// step at or before `to` that may be shown now; a move forward stops there (and play pauses).
// A section whose steps come from a live process (the writer's samples, made as its run trains)
// passes that process's ticker as `live`: the stepper then only walks the steps that exist (no ▶
// nor speed of its own, so the section's Start / Pause is the one play control), and space
// plays and pauses the process, as Start / Pause does. positionKey names what its position counts
// ('stepper.positionSample' where the steps are a run's samples, beside a status that counts the
// run's training steps).
import { h, s, listeners } from './dom.js';
import { addStrings } from './i18n.js';
import { STEPPER_STRINGS } from './stepper.strings.js';

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

export function createStepper({ i18n, host, count, render, initial = 0, range = null, loop = false, live = null, positionKey = 'stepper.position' }) {
  const texts = i18n.binder();
  const events = listeners();
  let total = count;
  let scene = { range, loop };
  // the first and last step the stepper may show: the scene's range within this many steps
  const lo = () => (scene.range ? Math.min(scene.range.from, total - 1) : 0);
  const hi = () => (scene.range ? Math.min(scene.range.to, total - 1) : total - 1);
  const clamp = (i) => Math.max(lo(), Math.min(i, hi()));
  let index = clamp(initial);
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
  // pause as two drawn bars: ⏸ (U+23F8) is missing from common font sets (Debian's shows an empty box)
  const pauseGlyph = s('svg', { class: 'pause-glyph', viewBox: '0 0 10 10', width: '0.8em', height: '0.8em', 'aria-hidden': 'true', focusable: 'false' },
    s('rect', { x: 1.5, y: 1, width: 2.6, height: 8 }), s('rect', { x: 5.9, y: 1, width: 2.6, height: 8 }));
  pauseGlyph.style.fill = 'currentColor';
  play.append(pauseGlyph);
  const forward = button('step-forward', '▶|', 'stepper.forward');
  const speedLabel = h('span', { class: 'speed-label' });
  const speedSelect = h('select', { class: 'step-speed' },
    SPEEDS.map((v) => h('option', { value: String(v), text: `${v}×`, selected: v === 1 })));
  const position = h('span', { class: 'step-position', attrs: { 'aria-hidden': 'true' } });
  const narration = h('p', { class: 'narration', attrs: { 'aria-live': 'polite', 'aria-atomic': 'true' } });
  const keysHint = h('span', { class: 'keys-hint' });
  const speedBox = h('label', { class: 'speed' }, speedLabel, speedSelect);
  const element = h('div', { class: 'stepper' },
    h('div', { class: 'stepper-controls', attrs: { role: 'group' } },
      first, back, play, forward, speedBox, position, keysHint),
    narration);
  play.hidden = speedBox.hidden = Boolean(live);

  function labelButtons() {
    for (const b of [first, back, forward]) b.setAttribute('aria-label', i18n.t(b.dataset.key));
    for (const b of [first, back, forward]) b.title = i18n.t(b.dataset.key);
    const playing = timer !== null;
    play.setAttribute('aria-label', i18n.t(playing ? 'stepper.pause' : 'stepper.play'));
    play.title = play.getAttribute('aria-label');
    play.firstChild.hidden = playing;
    pauseGlyph.style.display = playing ? '' : 'none';
    play.setAttribute('aria-pressed', String(playing));
    texts.set(speedLabel, 'stepper.speed');
    texts.set(keysHint, 'stepper.keys');
    element.querySelector('.stepper-controls').setAttribute('aria-label', i18n.t('stepper.keys'));
  }

  function draw(animate) {
    const text = render(index, { animate: animate && !reducedMotion.matches });
    narration.textContent = text || '';
    position.textContent = i18n.t(positionKey, { i: index + 1, n: total });
    back.disabled = index <= lo();
    first.disabled = index <= lo();
    forward.disabled = index >= hi();
    if (reported.index !== index || reported.count !== total) {
      reported = { index, count: total };
      for (const fn of [...watchers]) fn({ index, count: total, playing: timer !== null });
    }
  }

  let gate = null;
  /** i clamped to the steps, and held back by the gate when it lies ahead. */
  function reachable(i) {
    const to = clamp(i);
    return gate && to > index ? Math.max(index, Math.min(to, gate(index, to))) : to;
  }

  function go(i, animate = true) {
    const to = reachable(i);
    if (to < clamp(i) && timer !== null) pause();
    index = to;
    draw(animate);
  }

  function pause() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    labelButtons();
  }

  function tick() {
    if (index >= hi()) {
      if (!scene.loop) { pause(); return; }
      go(lo());   // loop: from the range's end round to its start
    } else {
      const was = index;
      go(index + 1);
      if (index === was || timer === null) { pause(); return; }   // held by the gate
    }
    if (index >= hi() && !scene.loop) { pause(); return; }
    timer = setTimeout(tick, BASE_DELAY_MS / speed);
  }

  function start() {
    if (timer !== null) return;
    if (index >= hi()) go(lo(), false);
    if (reducedMotion.matches) { go(hi(), false); return; }
    timer = setTimeout(tick, 0);
    labelButtons();
  }

  events.on(first, 'click', () => { pause(); go(lo()); });
  events.on(back, 'click', () => { pause(); go(index - 1); });
  events.on(forward, 'click', () => { pause(); go(index + 1); });
  events.on(play, 'click', () => (timer === null ? start() : pause()));
  events.on(speedSelect, 'change', () => { speed = Number(speedSelect.value) || 1; });
  stepKeys(events, host, {
    toggle: () => (live ? live.toggle() : timer === null ? start() : pause()),
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
    /** The steps the stepper keeps to (0-based, within count) and whether play loops. */
    get range() { return { from: lo(), to: hi() }; },
    get loop() { return scene.loop; },
    go, pause, play: start,
    forward: () => go(index + 1),
    back: () => go(index - 1),
    /**
     * New number of steps (the data changed shape); keeps the position when it still exists.
     * A stepper resting on its last step stays on the last step: a finished table stays finished
     * when the sentence grows (the softmax section opens there).
     */
    setCount(n, keepAt = index) {
      const finished = timer === null && total > 1 && index === hi() && keepAt === index;
      total = Math.max(1, n);
      // a playing run keeps playing through new data: from where it was, or from the start when
      // that step no longer exists (clamping it to the end would stop it mid-run)
      const was = index;
      if (timer !== null && keepAt > hi()) index = lo();
      else index = finished ? hi() : clamp(keepAt);
      // a gate holds a finished table short of the step it waits for
      if (gate && index > was) index = Math.max(was, Math.min(index, gate(was, index)));
      draw(false);
    },
    /**
     * A new scene: { range, loop } as createStepper takes them, and optionally the step to show
     * (else the current one, kept within the new range).
     */
    setScene({ range: nextRange = null, loop: nextLoop = false, initial: at = null }) {
      scene = { range: nextRange, loop: nextLoop };
      index = clamp(at ?? index);
      labelButtons();
      draw(false);
    },
    /** fn(from, to) → the furthest step up to `to` that may be shown now, or null for none. */
    setGate(fn) {
      gate = fn;
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
