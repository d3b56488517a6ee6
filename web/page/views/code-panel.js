// views/code-panel.js: a collapsible "code" box under a section: the step as a NumPy line and as the
// equivalent qkv-lab call (code-lines.js), with the lines that must run before them folded in a
// second box, so that both can be copied and run and give the numbers on the page.
//   const code = codePanel(frame, 'scores');
//   …  code.draw(snap, { pull });   // in the section's draw()
import { h } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { CODE_PANEL_STRINGS } from './code-panel.strings.js';
import { codeLines } from '../models/code-lines.js';

addStrings(CODE_PANEL_STRINGS);

export function codePanel(frame, stepId) {
  const { texts } = frame;
  const block = (lang) => {
    const code = h('code');
    const pre = h('pre', { class: 'code-block' }, code);
    pre.dataset.lang = lang;
    return { pre, code };
  };
  const py = block('py'), js = block('js'), setupPy = block('py'), setupJs = block('js');
  const element = h('details', { class: 'code-panel' },
    texts.set(h('summary'), 'code.summary'),
    texts.set(h('p', { class: 'code-label' }), 'code.numpy'), py.pre,
    texts.set(h('p', { class: 'code-label' }), 'code.js'), js.pre,
    h('details', { class: 'code-setup' }, texts.set(h('summary'), 'code.setup'),
      texts.set(h('p', { class: 'code-label' }), 'code.numpy'), setupPy.pre,
      texts.set(h('p', { class: 'code-label' }), 'code.js'), setupJs.pre),
    texts.set(h('p', { class: 'note' }), 'code.note'));
  element.dataset.step = stepId;
  frame.element.append(element);

  return {
    element,
    /** Rewrites the code for this snapshot (options: { pull } for the learnable section). */
    draw(snap, options) {
      const step = codeLines(snap, options).step(stepId);
      py.code.textContent = step.py;
      js.code.textContent = step.js;
      setupPy.code.textContent = step.setup.py;
      setupJs.code.textContent = step.setup.js;
      element.dataset.results = step.results.join(' ');
    },
  };
}
