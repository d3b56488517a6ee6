// sections/roles.js: the three roles. Query, key and value as a look-up in a library: a small picture
// whose parts light up step by step. No numbers here (those start in the embedding section).
import { h, s, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { ROLES_STRINGS } from './roles.strings.js';
import { defineSection } from '../shell/section-shell.js';

addStrings(ROLES_STRINGS);

// how strongly each book is drawn in the picture (illustration only; no numbers are shown)
const WIDTHS = [6, 1.5, 4];
const BOOKS = ['roles.book1', 'roles.book2', 'roles.book3'];

const rowOf = (snap) => snap.n - 1;
/** The picture has no numbers; its claim (the weights share out all the attention) is checked on the page's own. */
export const ROLES_QUIZ = [{
  id: 'sum', atStep: 2, numeric: { tolerance: 0.01, digits: 2 },
  prompt: (snap, t) => t('quiz.roles.prompt', { w: snap.words[rowOf(snap)] }),
  answer: (snap) => snap.derived.rowSums[rowOf(snap)],
  explain: (snap, t) => t('quiz.roles.explain', { terms: snap.weights.row(rowOf(snap)).map((x) => fmt(x)).join(' + '), sum: fmt(snap.derived.rowSums[rowOf(snap)]) }),
}];

export const rolesSection = defineSection({
  id: 'roles', quiz: ROLES_QUIZ, titleKey: 'roles.title', introKeys: ['roles.intro1', 'roles.intro2'],
  setup(frame) {
    const { i18n } = frame;
    const holder = h('div', { class: 'picture-holder' });
    frame.stage.append(holder);

    // Two drawings of one picture: a wide one, and a tall one for narrow columns (phones, narrow
    // widgets), where the wide one would shrink its text to about 7 px. CSS shows one of them.
    const label = () => i18n.t('roles.title');
    const lines = (key) => i18n.t(key).split(' ');   // English titles may take two lines
    function wide(step) {
      const svg = s('svg', { class: 'picture picture-wide', viewBox: '0 0 560 230', role: 'img', 'aria-label': label() });
      svg.append(s('rect', { class: 'box', x: 4, y: 90, width: 162, height: 46, rx: 8 }),
        s('circle', { class: 'q', cx: 20, cy: 113, r: 8 }), s('text', { x: 33, y: 118, text: i18n.t('roles.need') }));
      BOOKS.forEach((key, b) => {
        const y = 20 + b * 70;
        svg.append(
          s('line', { class: `link${step >= 1 ? '' : ' off'}`, x1: 166, y1: 113, x2: 250, y2: y + 22, 'stroke-width': step >= 2 ? WIDTHS[b] : 2 }),
          s('rect', { class: 'box', x: 250, y, width: 150, height: 44, rx: 6 }),
          s('rect', { class: 'k', x: 250, y, width: 10, height: 44, rx: 3 }),
          s('text', { x: 268, y: y + 18, text: i18n.t(key) }),
          s('text', { class: 'muted', x: 268, y: y + 36, text: `K · ${i18n.t('roles.content')} V` }),
          s('line', { class: `link${step >= 3 ? '' : ' off'}`, x1: 400, y1: y + 22, x2: 440, y2: 113, 'stroke-width': step >= 3 ? WIDTHS[b] : 2 }));
      });
      svg.append(s('rect', { class: `box${step >= 3 ? '' : ' off'}`, x: 440, y: 90, width: 112, height: 46, rx: 8 }),
        s('circle', { class: `v${step >= 3 ? '' : ' off'}`, cx: 456, cy: 113, r: 7 }),
        s('text', { class: step >= 3 ? '' : 'off', x: 468, y: 118, text: i18n.t('roles.result') }));
      return svg;
    }
    // the tall one: the need on top, the three books side by side, what is retrieved below
    function tall(step) {
      const svg = s('svg', { class: 'picture picture-tall', viewBox: '0 0 330 292', role: 'img', 'aria-label': label() });
      svg.append(s('rect', { class: 'box', x: 40, y: 4, width: 250, height: 40, rx: 8 }),
        s('circle', { class: 'q', cx: 58, cy: 24, r: 8 }), s('text', { x: 72, y: 29, text: i18n.t('roles.need') }));
      BOOKS.forEach((key, b) => {
        const x = 4 + b * 110, y = 104, mid = x + 51;
        const title = lines(key);
        svg.append(
          s('line', { class: `link${step >= 1 ? '' : ' off'}`, x1: 165, y1: 44, x2: mid, y2: y, 'stroke-width': step >= 2 ? WIDTHS[b] : 2 }),
          s('rect', { class: 'box', x, y, width: 102, height: 80, rx: 6 }),
          s('rect', { class: 'k', x, y, width: 102, height: 9, rx: 3 }),
          ...title.map((line, k) => s('text', { x: mid, y: y + 31 + k * 17 - (title.length - 1) * 8, 'text-anchor': 'middle', text: line })),
          s('text', { class: 'muted', x: mid, y: y + 68, 'text-anchor': 'middle', text: `K · ${i18n.t('roles.content')} V` }),
          s('line', { class: `link${step >= 3 ? '' : ' off'}`, x1: mid, y1: y + 80, x2: 165, y2: 248, 'stroke-width': step >= 3 ? WIDTHS[b] : 2 }));
      });
      svg.append(s('rect', { class: `box${step >= 3 ? '' : ' off'}`, x: 80, y: 248, width: 170, height: 40, rx: 8 }),
        s('circle', { class: `v${step >= 3 ? '' : ' off'}`, cx: 98, cy: 268, r: 7 }),
        s('text', { class: step >= 3 ? '' : 'off', x: 112, y: 273, text: i18n.t('roles.result') }));
      return svg;
    }
    return {
      count: () => 4,
      render(index) {
        clear(holder).append(wide(index), tall(index));
        return i18n.t(`roles.s${index}`);
      },
    };
  },
});
