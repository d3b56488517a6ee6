// views/dot-geometry.js: the dot product as geometry (the scores section). Two 2-D vectors a and b on a plane; the
// reader drags their tips (mouse, pen or touch), or focuses a tip and turns it with ← → and
// lengthens it with ↑ ↓ (each tip is a slider). The numbers beside it (a·b term by term, |a|, |b|,
// cos θ, θ) come from measure(a, b), the context's WASM computation (snapshot-derived.js,
// dotGeometry); this file only draws them.
//   const picture = createDotGeometry({ i18n, events, measure: ctx.measureDot });
//   frame.intro.append(picture.element);   …   picture.refresh();   // after a language change
import { h, s, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { DOT_GEOMETRY_STRINGS } from './dot-geometry.strings.js';

addStrings(DOT_GEOMETRY_STRINGS);

const UNIT = 40;          // SVG units per 1 on the plane (the plane spans −3 … 3)
const MAX_LENGTH = 2.9;
const GRID = 0.05;        // dragged tips snap to this grid
const TURN = 5 * Math.PI / 180;
const STRETCH = 0.1;

/** The verdict for cos θ (NaN when a vector has length 0). */
export function verdict(cos) {
  if (!Number.isFinite(cos)) return 'zero';
  if (cos >= 0.98) return 'same';
  if (cos <= -0.98) return 'opposite';
  if (Math.abs(cos) <= 0.02) return 'right';
  return cos > 0 ? 'acute' : 'obtuse';
}

export function createDotGeometry({ i18n, events, measure }) {
  const vectors = { a: [1.5, 0.5], b: [0.75, 1.5] };
  let m = measure(vectors.a, vectors.b);

  const plane = s('svg', { class: 'dot-plane', viewBox: '-126 -126 252 252', role: 'group' });
  for (let k = -3; k <= 3; k++) {
    plane.append(s('line', { class: k === 0 ? 'axis' : 'grid', x1: k * UNIT, y1: -120, x2: k * UNIT, y2: 120 }),
      s('line', { class: k === 0 ? 'axis' : 'grid', x1: -120, y1: k * UNIT, x2: 120, y2: k * UNIT }));
  }
  const arc = s('path', { class: 'arc' });
  const shadow = s('line', { class: 'shadow', x1: 0, y1: 0 });
  const drop = s('line', { class: 'drop' });
  plane.append(arc, shadow, drop);
  const parts = {};
  for (const [v, cls] of [['a', 'q'], ['b', 'k']]) {
    const line = s('line', { class: `vec ${cls}`, x1: 0, y1: 0 });
    const head = s('polygon', { class: `head ${cls}` });
    const label = s('text', { class: `vec-label ${cls}`, text: v });
    const tip = s('g', { class: `tip ${cls}`, tabindex: 0, role: 'slider', 'aria-valuemin': 0, 'aria-valuemax': 359 },
      s('circle', { class: 'hit', r: 22 }), s('circle', { class: 'ring', r: 11 }), s('circle', { class: 'tip-dot', r: 6 }));
    tip.dataset.vector = v;
    plane.append(line, head, label, tip);
    parts[v] = { line, head, label, tip };
  }

  const title = h('h3', { class: 'sub-title' });
  const intro = h('p', { class: 'note' });
  const presets = ['same', 'right', 'opposite'].map((kind) => {
    const b = h('button', { class: 'geo-preset', attrs: { type: 'button' } });
    b.dataset.preset = kind;
    events.on(b, 'click', () => preset(kind));
    return b;
  });
  const valueA = h('p', { class: 'num geo-a' });
  const valueB = h('p', { class: 'num geo-b' });
  const sum = h('p', { class: 'num geo-sum' });
  const polar = h('p', { class: 'num geo-polar' });
  const said = h('p', { class: 'geo-verdict', attrs: { role: 'status' } });
  const link = h('p', { class: 'note' });
  const element = h('div', { class: 'dot-geometry' }, title, intro,
    h('div', { class: 'geo-body' }, plane,
      h('div', { class: 'geo-readout' }, valueA, valueB, sum, polar, said, h('div', { class: 'geo-presets' }, presets))),
    link);

  const toPlane = ([x, y]) => [x * UNIT, -y * UNIT];
  const angleOf = ([x, y]) => Math.atan2(y, x);
  const degrees = (v) => Math.round(((angleOf(v) * 180 / Math.PI) + 360) % 360);

  function arrowHead([x, y]) {
    const [px, py] = toPlane([x, y]);
    const len = Math.hypot(px, py);
    if (len < 1) return '';
    const ux = px / len, uy = py / len;
    const back = [px - 12 * ux, py - 12 * uy];
    return [[px, py], [back[0] - 6 * uy, back[1] + 6 * ux], [back[0] + 6 * uy, back[1] - 6 * ux]].map((p) => p.join(',')).join(' ');
  }

  function draw() {
    for (const v of ['a', 'b']) {
      const [px, py] = toPlane(vectors[v]);
      const { line, head, label, tip } = parts[v];
      line.setAttribute('x2', px); line.setAttribute('y2', py);
      head.setAttribute('points', arrowHead(vectors[v]));
      const len = Math.hypot(px, py) || 1;
      label.setAttribute('x', px + (px / len) * 16 - 4); label.setAttribute('y', py + (py / len) * 16 + 5);
      tip.setAttribute('transform', `translate(${px} ${py})`);
      tip.setAttribute('aria-valuenow', degrees(vectors[v]));
      tip.setAttribute('aria-valuetext', i18n.t('geo.value', {
        v, x: fmt(vectors[v][0]), y: fmt(vectors[v][1]), len: fmt(m.lengths[v === 'a' ? 0 : 1]), deg: degrees(vectors[v]),
      }));
      tip.setAttribute('aria-label', i18n.t('geo.handle', { v }));
    }
    // b's shadow on a's line, and the drop from b's tip to it
    const la = m.lengths[0];
    if (la > 0 && Number.isFinite(m.shadow)) {
      const [ux, uy] = [vectors.a[0] / la, vectors.a[1] / la];
      const [sx, sy] = toPlane([ux * m.shadow, uy * m.shadow]);
      shadow.setAttribute('x2', sx); shadow.setAttribute('y2', sy);
      const [bx, by] = toPlane(vectors.b);
      drop.setAttribute('x1', bx); drop.setAttribute('y1', by); drop.setAttribute('x2', sx); drop.setAttribute('y2', sy);
      shadow.classList.toggle('negative', m.dot < 0);
    }
    // the angle θ between them, as an arc of radius 0.6
    const r = 0.6 * UNIT;
    const t1 = angleOf(vectors.a), t2 = angleOf(vectors.b);
    let delta = t2 - t1;
    while (delta > Math.PI) delta -= 2 * Math.PI;
    while (delta < -Math.PI) delta += 2 * Math.PI;
    const p1 = [r * Math.cos(t1), -r * Math.sin(t1)], p2 = [r * Math.cos(t1 + delta), -r * Math.sin(t1 + delta)];
    arc.setAttribute('d', Number.isFinite(m.cos) ? `M ${p1[0]} ${p1[1]} A ${r} ${r} 0 0 ${delta > 0 ? 0 : 1} ${p2[0]} ${p2[1]}` : '');

    const [ax, ay] = vectors.a, [bx, by] = vectors.b;
    valueA.textContent = `a = [${fmt(ax)}, ${fmt(ay)}]`;
    valueB.textContent = `b = [${fmt(bx)}, ${fmt(by)}]`;
    sum.textContent = i18n.t('geo.sum', { ax: fmt(ax), bx: fmt(bx), ay: fmt(ay), by: fmt(by), dot: fmt(m.dot) });
    polar.textContent = i18n.t('geo.polar', { la: fmt(m.lengths[0]), lb: fmt(m.lengths[1]), cos: fmt(m.cos), deg: fmt(m.degrees, 1), polar: fmt(m.polar) });
    const kind = verdict(m.cos);
    said.dataset.verdict = kind;
    said.textContent = i18n.t(`geo.v.${kind}`, { max: fmt(m.maxDot) });
  }

  function set(v, point) {
    let [x, y] = point;
    const len = Math.hypot(x, y);
    if (len > MAX_LENGTH) { x *= MAX_LENGTH / len; y *= MAX_LENGTH / len; }
    vectors[v] = [x, y];
    m = measure(vectors.a, vectors.b);
    draw();
  }
  const snap = (x) => Math.round(x / GRID) * GRID;

  function preset(kind) {
    const [ax, ay] = vectors.a;
    const la = Math.hypot(ax, ay) || 1;
    const lb = Math.hypot(...vectors.b) || 1;
    const unit = [ax / la, ay / la];
    const along = { same: unit, right: [-unit[1], unit[0]], opposite: [-unit[0], -unit[1]] }[kind];
    set('b', [along[0] * lb, along[1] * lb]);
  }

  // pointer (mouse, pen, touch): the tip follows the pointer while it is down
  let dragging = null;
  const planePoint = (event) => {
    const matrix = plane.getScreenCTM();
    if (!matrix) return null;
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    return [snap(p.x / UNIT), snap(-p.y / UNIT)];
  };
  for (const v of ['a', 'b']) {
    const { tip } = parts[v];
    events.on(tip, 'pointerdown', (event) => {
      dragging = v;
      tip.setPointerCapture?.(event.pointerId);
      tip.focus({ preventScroll: true });
      event.preventDefault();
    });
    events.on(tip, 'pointermove', (event) => {
      if (dragging !== v) return;
      const p = planePoint(event);
      if (p) set(v, p);
    });
    const release = () => { dragging = null; };
    events.on(tip, 'pointerup', release);
    events.on(tip, 'pointercancel', release);
    // keys: ← → turn by 5°, ↑ ↓ lengthen or shorten by 0.1
    events.on(tip, 'keydown', (event) => {
      const [x, y] = vectors[v];
      const len = Math.hypot(x, y);
      const angle = Math.atan2(y, x);
      let next = null;
      if (event.key === 'ArrowLeft') next = [len * Math.cos(angle + TURN), len * Math.sin(angle + TURN)];
      if (event.key === 'ArrowRight') next = [len * Math.cos(angle - TURN), len * Math.sin(angle - TURN)];
      if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
        const to = Math.max(0, Math.min(MAX_LENGTH, len + (event.key === 'ArrowUp' ? STRETCH : -STRETCH)));
        next = len > 0 ? [x * to / len, y * to / len] : [to, 0];
      }
      if (!next) return;
      event.preventDefault();
      set(v, next);
    });
  }

  function refresh() {
    title.textContent = i18n.t('geo.title');
    intro.textContent = i18n.t('geo.intro');
    link.textContent = i18n.t('geo.link');
    plane.setAttribute('aria-label', i18n.t('geo.title'));
    for (const b of presets) b.textContent = i18n.t(`geo.${b.dataset.preset}`);
    draw();
  }
  refresh();

  return {
    element, refresh,
    /** The vectors as they are now (tests and the code panel read them). */
    get vectors() { return { a: [...vectors.a], b: [...vectors.b] }; },
  };
}
