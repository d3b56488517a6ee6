// section-shell.js: the frame every section shares: a <section> with a heading, an intro, a
// focusable stage (keyboard steps while focus is inside) and a stepper. Renders only inside its
// own element, so a section works the same in the page and in a shadow root.
import { h } from './dom.js';
import { createStepper } from './stepper.js';

export function createShell({ id, i18n, titleKey, introKeys = [] }) {
  const texts = i18n.binder();
  const title = texts.set(h('h2', { class: 'section-title' }), titleKey);
  const intro = h('div', { class: 'section-intro' }, introKeys.map((k) => texts.set(h('p'), k)));
  const controls = h('div', { class: 'section-controls' });
  const stage = h('div', { class: 'stage', attrs: { tabindex: '0' } });
  const element = h('section', { class: 'qkv-section', attrs: { 'aria-labelledby': `${id}-title` } }, title, intro, controls, stage);
  title.id = `${id}-title`;
  element.dataset.section = id;
  element.id = id;
  return {
    element, stage, controls, intro, texts,
    addStepper(options) {
      const stepper = createStepper({ i18n, host: element, ...options });
      element.insertBefore(stepper.element, stage);
      stage.setAttribute('aria-describedby', `${id}-narration`);
      stepper.element.querySelector('.narration').id = `${id}-narration`;
      return stepper;
    },
  };
}

/** A labelled switch (checkbox) whose label text follows the language. */
export function toggle(texts, key, checked, onChange, events) {
  const input = h('input', { attrs: { type: 'checkbox', role: 'switch' }, checked });
  const label = h('label', { class: 'switch' }, input, texts.set(h('span'), key));
  events.on(input, 'change', () => onChange(input.checked));
  return { element: label, input };
}

/**
 * Horizontal bars for a row of weights (0…1), each labelled with its token and value. Screen
 * readers read the labels and values as text; the bars themselves are decoration.
 */
export function bars(labels, values, { fmt, cls = '' } = {}) {
  return h('div', { class: `bars ${cls}` },
    values.map((v, j) => h('div', { class: 'bar-row' },
      h('span', { class: 'bar-label', text: labels[j] }),
      h('span', { class: 'bar-track', attrs: { 'aria-hidden': 'true' } }, h('span', { class: 'bar-fill', style: `width:${Math.max(0, Math.min(1, v)) * 100}%` })),
      h('span', { class: 'bar-value num', text: fmt(v) }))));
}
