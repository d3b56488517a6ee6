// views/code-panel.js: a collapsible "code" box under a section: the step as a NumPy line and as the
// equivalent qkv-lab call (code-lines.js), with the lines that must run before them folded in a
// second box, so that both can be copied and run and give the numbers on the page.
//   const code = codePanel(frame, 'scores');
//   …  code.draw(snap, { pull });   // in the section's draw()
import { h } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { codeLines } from '../models/code-lines.js';

addStrings({
  zh: {
    'code.summary': '代码：NumPy 与 qkv-lab',
    'code.numpy': 'NumPy（Python）',
    'code.js': 'JavaScript（qkv-lab）',
    'code.setup': '要先运行的几行（复制后可以原样运行）',
    'code.note': '两段代码都得出这一节显示的数：NumPy 用 float64，qkv-lab 用 float32，到这里显示的 3 位小数都一样。',
  },
  en: {
    'code.summary': 'Code: NumPy and qkv-lab',
    'code.numpy': 'NumPy (Python)',
    'code.js': 'JavaScript (qkv-lab)',
    'code.setup': 'The lines to run first (copy them and they run as they are)',
    'code.note': 'Both give the numbers this section shows: NumPy in float64, qkv-lab in float32, the same to the 3 decimals on the page.',
  },
});

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
    /** Rewrites the code for this snapshot (options: { pull } for section 7). */
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
